"""The end of every text parse: shared checks, quarantine, notes, rejects, canonical tables.

A site's decoding hands over `HandTables` (its rows keyed by the block-local ``hand`` number and
its own quarantine verdicts); `finish` adds the checks every site shares (`parsers.engine.checks`),
keeps the hands that pass, turns harmless unknown lines into notes (`parsers.notes`) and the
others, with damaged hands, into rejects, and returns the `ParseResult`.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import polars as pl
import pyarrow as pa

from parsers.base import ParseResult, table_from_frame
from parsers.engine.checks import actor_problems, card_problems, seat_problems
from parsers.notes import note_rows, triage_unknown_lines, with_other_games
from pipeline.positions import assign_positions
from pipeline.schema import HAND_TABLES

__all__ = [
    "REJECT_SCHEMA",
    "HandTables",
    "SourceFiles",
    "batch_files",
    "complete_columns",
    "finish",
    "finish_files",
    "showdown_rows",
    "unknown_lines",
]

REJECT_SCHEMA = {
    "source_file": pl.String,
    "source_offset": pl.Int64,
    "site": pl.String,
    "hand_id": pl.String,
    "reason": pl.String,
    "raw_text": pl.String,
}


@dataclass(frozen=True)
class SourceFiles:
    """The files of a batch parsed together: file ``k`` (``names[k]``) holds the hands
    numbered from ``first_hand[k]`` up to the next file's first (hands are numbered in line
    order; lines before the first hand belong to the first file)."""

    names: Sequence[str]
    first_hand: np.ndarray  # int64, ascending, first_hand[0] == 0

    def of_hands(self, hands: np.ndarray) -> np.ndarray:
        """The file index of each hand number (-1, a file's preamble: the first file)."""
        return np.maximum(np.searchsorted(self.first_hand, hands, side="right") - 1, 0)


def batch_files(
    starts: np.ndarray, file_starts: np.ndarray, names: Sequence[str]
) -> SourceFiles | None:
    """The `SourceFiles` of whole files laid end to end (file ``k``'s first line is
    ``file_starts[k]``; ``starts`` marks the lines that open a hand), or None when a file
    after the first does not open with a hand: its first lines would be read as the end of
    the previous file's last hand, so such files are parsed one by one."""
    bounds = np.append(np.asarray(file_starts, dtype=np.int64), len(starts))
    firsts, ends = bounds[1:-1], bounds[2:]
    if not starts[firsts[firsts < ends]].all():
        return None
    opened_before = np.concatenate(([0], np.cumsum(starts, dtype=np.int64)))
    first_hand = opened_before[bounds[:-1]]
    first_hand[:1] = 0  # the first file's preamble (hand -1) is the first file's too
    return SourceFiles(names, first_hand)


@dataclass
class HandTables:
    """What a site parser decoded from one block, keyed by the block-local ``hand`` number.

    ``headers`` has one row per hand start (``hand``, ``hand_id``, ``is_o8``: the hand is of
    a game hilo reads, ``game``: the name printed, counted where the hand is skipped); ``hands``
    one row per such hand with the canonical hand columns, the game's code as ``game_code``
    where the site reads more than one game (`parsers.base.table_from_frame`: else Omaha
    Hi/Lo); the other frames are the canonical tables with ``hand`` instead of ``hand_id``.
    ``reasons`` are the site's own quarantine verdicts (``hand``, ``reason``), checked before
    the shared ones.
    """

    site: str
    source_file: str
    frame: pl.DataFrame
    headers: pl.DataFrame
    hands: pl.DataFrame
    seats: pl.DataFrame
    actions: pl.DataFrame
    collections: pl.DataFrame
    showdowns: pl.DataFrame
    reasons: list[pl.DataFrame] = field(default_factory=list)
    # The site's cross-checks (a summary that disagrees with the rows): judged after the shared
    # checks, since a damaged row already reported makes them disagree too.
    cross_checks: list[pl.DataFrame] = field(default_factory=list)
    # Whether ``seats.position`` comes from the site (Bovada prints positions as names);
    # otherwise positions are counted from the button seat.
    positions_printed: bool = False
    # Lines no form of the site recognised (`unknown_lines`): kept as notes or quarantined.
    unknown_lines: pl.DataFrame | None = None
    # Lines before a file's first hand that are no text (a site's export banner), not rejected.
    preamble_ignorable: str | None = None
    # A batch of whole files parsed together (`batch_files`): `finish_files` then gives one
    # result per file. None: one file, ``source_file``.
    files: SourceFiles | None = None


def finish(tables: HandTables) -> ParseResult:
    """Run the shared checks, quarantine the failing hands and build the canonical tables."""
    if tables.files is not None and len(tables.files.names) != 1:
        raise ValueError("a batch of several files is finished by finish_files")
    return finish_files(tables)[0]


def finish_files(tables: HandTables) -> list[ParseResult]:
    """`finish`, one result per file of the batch (``tables.files``; one file without it)."""
    site = tables.site
    files = tables.files or SourceFiles([tables.source_file], np.zeros(1, dtype=np.int64))
    names = pl.Series("source_file", list(files.names), dtype=pl.String)

    def source_file_of(frame: pl.DataFrame) -> pl.Series:
        return names.gather(files.of_hands(frame["hand"].to_numpy()))

    headers = with_other_games(tables.headers, tables.frame)
    skipped = headers.filter(pl.col("header_ok") & ~pl.col("is_o8"))
    candidates = headers.filter(pl.col("header_ok") & pl.col("is_o8")).select("hand")
    bad_headers = headers.filter(~pl.col("header_ok")).select(
        "hand", reason=pl.lit("unrecognised hand header")
    )
    hands = tables.hands.join(candidates, on="hand", how="semi")
    if "source_file" not in hands.columns:  # PHH batches files: its hands carry their own
        hands = hands.with_columns(source_file=source_file_of(hands))
    hands = complete_columns(hands, "hands")
    seats = tables.seats.join(candidates, on="hand", how="semi")
    actions = tables.actions.join(candidates, on="hand", how="semi")
    collections = tables.collections.join(candidates, on="hand", how="semi")
    showdowns = tables.showdowns.join(candidates, on="hand", how="semi")
    no_seats = candidates.join(seats.select("hand").unique(), on="hand", how="anti").select(
        "hand", reason=pl.lit("no seat lines")
    )
    unknown = tables.unknown_lines
    if unknown is None:
        unknown = unknown_lines(tables.frame, pl.lit(False))
    damaged = pl.col("damaged") if "damaged" in unknown.columns else None
    unknown_reasons, notes = triage_unknown_lines(unknown, damaged=damaged, seats=seats)
    reasons = (
        pl.concat(
            [
                bad_headers,
                unknown_reasons,
                *[reason.select("hand", "reason") for reason in tables.reasons],
                no_seats,
                seat_problems(seats),
                actor_problems(actions, collections, seats),
                card_problems(hands, seats, showdowns),
                *[reason.select("hand", "reason") for reason in tables.cross_checks],
            ],
            how="vertical_relaxed",
        )
        # A check whose message quotes an unreadable field still quarantines the hand.
        .with_columns(pl.col("reason").fill_null("damaged hand (reason text unreadable)"))
        .join(headers.select("hand"), on="hand", how="semi")
        .join(skipped.select("hand"), on="hand", how="anti")
        .unique(subset="hand", keep="first", maintain_order=True)
    )
    good = candidates.join(reasons, on="hand", how="anti")
    hands = hands.join(good, on="hand", how="semi")
    seats = seats.join(good, on="hand", how="semi")
    if not tables.positions_printed:
        seats = (
            assign_positions(seats, hands)
            if seats.height
            else seats.with_columns(position=pl.lit(None, dtype=pl.String))
        )
    dealt = seats.group_by("hand").agg(players_dealt=(~pl.col("sitting_out")).sum().cast(pl.Int16))
    hands = hands.drop("players_dealt", strict=False).join(dealt, on="hand", how="left")
    ids = hands.select("hand", "hand_id")
    site_column = pl.lit(site).alias("site")

    def keyed(frame: pl.DataFrame, table: str) -> pl.DataFrame:
        frame = frame.join(good, on="hand", how="semi").join(ids, on="hand", how="left")
        return complete_columns(frame.with_columns(site_column), table)

    notes = note_rows(notes, tables.frame, hands, site)
    preamble = _preamble_rejects(tables, files.names[0])
    hand_rejects = _hand_rejects(tables, reasons)
    rejects = pl.concat(
        [
            preamble.with_columns(hand=pl.lit(-1, dtype=pl.Int32)),
            hand_rejects.with_columns(source_file=source_file_of(hand_rejects)),
        ],
        how="diagonal_relaxed",
    )
    frames = {
        "hands": complete_columns(hands.with_columns(site_column), "hands").sort("hand"),
        "seats": keyed(seats, "seats").sort("hand", "seat"),
        "actions": keyed(actions, "actions").sort("hand", "seq"),
        "collections": keyed(collections, "collections").sort("hand", "seq"),
        "showdowns": keyed(showdowns, "showdowns").sort("hand", "line_no"),
        "notes": notes,
        "rejects": rejects,
    }
    return _results_by_file(frames, files, headers, skipped)


def _results_by_file(
    frames: dict[str, pl.DataFrame],
    files: SourceFiles,
    headers: pl.DataFrame,
    skipped: pl.DataFrame,
) -> list[ParseResult]:
    """Each file's slice of the canonical tables (each frame in ``hand`` order, a file's
    hands contiguous) and its accounting: hand starts and preambles found, skipped games."""
    count = len(files.names)
    tables = {name: table_from_frame(frame, name) for name, frame in frames.items()}
    bounds = {
        name: np.searchsorted(
            files.of_hands(frame["hand"].to_numpy()), np.arange(count + 1), side="left"
        )
        for name, frame in frames.items()
    }
    found = np.bincount(files.of_hands(headers["hand"].to_numpy()), minlength=count)
    found[0] += int((frames["rejects"]["hand"] < 0).sum())  # the first file's preamble
    skipped_file = files.of_hands(skipped["hand"].to_numpy())
    results = []
    for index in range(count):
        mine: dict[str, pa.Table] = {
            name: table.slice(bounds[name][index], bounds[name][index + 1] - bounds[name][index])
            for name, table in tables.items()
        }
        games = skipped.filter(pl.Series(skipped_file == index))
        results.append(
            ParseResult(
                tables=mine,
                hands_found=int(found[index]),
                parsed=mine["hands"].num_rows,
                skipped=games.height,
                rejected=mine["rejects"].num_rows,
                skipped_games={
                    str(game): int(number)
                    for game, number in games.group_by("game").len().sort("game").iter_rows()
                },
            )
        )
    return results


def complete_columns(frame: pl.DataFrame, table: str) -> pl.DataFrame:
    """Add the canonical columns a site never prints, as nulls."""
    schema = _polars_schema(table)
    missing = [name for name in schema if name not in frame.columns]
    return frame.with_columns(pl.lit(None, dtype=schema[name]).alias(name) for name in missing)


@functools.cache
def _polars_schema(table: str) -> dict[str, pl.DataType]:
    empty = pl.from_arrow(HAND_TABLES[table].empty_table())
    assert isinstance(empty, pl.DataFrame)
    return dict(empty.schema)


def _preamble_text(tables: HandTables) -> pl.DataFrame:
    """The lines before the first hand that hold text the site's own banner does not explain."""
    # The hand test first: stripping every line of a block costs more than the rest of this.
    text = tables.frame.filter(pl.col("hand") < 0).filter(pl.col("line").str.strip_chars() != "")
    if tables.preamble_ignorable is not None and text.height:
        text = text.filter(~pl.col("line").str.contains(tables.preamble_ignorable))
    return text


def _preamble_rejects(tables: HandTables, source_file: str) -> pl.DataFrame:
    text = _preamble_text(tables)
    if text.height == 0:
        return pl.DataFrame(schema=REJECT_SCHEMA)
    preamble = tables.frame.filter(pl.col("hand") < 0)
    return pl.DataFrame(
        {
            "source_file": [source_file],
            "source_offset": [int(text["offset"][0])],
            "site": [tables.site],
            "hand_id": [None],
            "reason": ["text before the first hand header"],
            "raw_text": ["\n".join(preamble["line"].to_list())],
        },
        schema=REJECT_SCHEMA,
    )


def _hand_rejects(tables: HandTables, reasons: pl.DataFrame) -> pl.DataFrame:
    """The quarantined hands' rejects rows, with their ``hand`` (``source_file`` is left to
    the caller, which knows each hand's file)."""
    text = (
        tables.frame.join(reasons.select("hand"), on="hand", how="semi")
        .group_by("hand")
        .agg(raw_text=pl.col("line").str.join("\n"), source_offset=pl.col("offset").first())
    )
    return (
        reasons.join(text, on="hand", how="left")
        .join(tables.headers.select("hand", "hand_id"), on="hand", how="left")
        .sort("hand")
        .select(
            "hand",
            source_file=pl.lit(None, dtype=pl.String),
            source_offset="source_offset",
            site=pl.lit(tables.site),
            hand_id="hand_id",
            reason="reason",
            raw_text="raw_text",
        )
        .cast(REJECT_SCHEMA)  # type: ignore[arg-type]
    )


def showdown_rows(
    shows: pl.DataFrame,
    cards: str | pl.Expr = "cards",
    high_desc: str | pl.Expr | None = None,
    low_desc: str | pl.Expr | None = None,
    board_index: int | None = 0,
) -> pl.DataFrame:
    """`HandTables.showdowns` of the rows ``shows`` (``hand``, ``line_no``, ``player``): their
    cards (card codes) and the hands' descriptions, null where the site prints none, and the
    board they were shown for (null: every board of a hand run twice)."""
    return shows.select(
        "hand",
        "line_no",
        "player",
        cards=cards,
        high_desc=pl.lit(None, dtype=pl.String) if high_desc is None else high_desc,
        low_desc=pl.lit(None, dtype=pl.String) if low_desc is None else low_desc,
        board_index=pl.lit(board_index, dtype=pl.Int8),
    )


def unknown_lines(
    lines: pl.DataFrame, unknown: pl.Expr, damaged: pl.Expr | None = None
) -> pl.DataFrame:
    """The lines no form of the site recognised (`HandTables.unknown_lines`).

    ``damaged`` marks those shaped like a data line the site failed to read: they quarantine
    their hand whatever they hold (see `parsers.notes`).
    """
    return lines.filter(unknown).select(
        "hand",
        "line_no",
        "line",
        "offset",
        damaged=pl.lit(False) if damaged is None else damaged.fill_null(True),
    )
