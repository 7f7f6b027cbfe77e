"""Steps shared by the line-oriented text parsers (Bovada, OnGame, KingsClub, Cake, Absolute).

Each of those parsers classifies its own lines and decodes its own fields; what is left is the
same everywhere and lives here: the frame of lines with the hand each belongs to, sections
forward-filled from marker lines, street totals from increments or to-amounts, hole cards from
every sighting, the per-hand checks that quarantine damaged hands (the PokerStars parser's seat,
actor and card checks are reused as they are), the rejects, and the final `ParseResult`.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np
import polars as pl

from parsers.base import ParseResult, table_from_frame
from parsers.columns import TIME_ZONES
from parsers.kernels import street_totals
from parsers.notes import note_rows, triage_unknown_lines, with_other_games
from parsers.pokerstars.block_parser import BlockParser as _StarsChecks
from parsers.pokerstars.block_parser import forward_fill as _fill_rows
from pipeline.positions import assign_positions
from pipeline.profiles import SiteProfile
from pipeline.schema import HAND_TABLES

__all__ = [
    "AnchoredParser",
    "LIVE_KINDS",
    "HandTables",
    "attach_hole_cards",
    "finish",
    "forward_fill",
    "line_frame",
    "local_to_utc",
    "settle_all_in_kinds",
    "street_amounts",
    "unknown_lines",
]

# Kinds whose chips count toward the player's street total (antes and dead blinds do not).
LIVE_KINDS = ("post_sb", "post_bb", "call", "bet", "raise")

REJECT_SCHEMA = {
    "source_file": pl.String,
    "source_offset": pl.Int64,
    "site": pl.String,
    "hand_id": pl.String,
    "reason": pl.String,
    "raw_text": pl.String,
}


def line_frame(lines: pl.Series, offsets: np.ndarray, starts: pl.Series) -> pl.DataFrame:
    """One row per line: ``line_no``, ``line``, ``offset``, ``hand`` (-1 before the first
    hand start) and ``is_start``."""
    starts = starts.fill_null(False)
    return pl.DataFrame(
        {
            "line": lines.alias("line"),
            "offset": pl.Series("offset", offsets, dtype=pl.Int64),
            "hand": (starts.cast(pl.Int32).cum_sum() - 1).alias("hand"),
            "is_start": starts.alias("is_start"),
        }
    ).with_row_index("line_no")


def forward_fill(frame: pl.DataFrame, marker: pl.Series, reset_value: int = -1) -> np.ndarray:
    """Per line, the code of the latest marker at or before it within the same hand.

    ``marker`` holds a code on marker lines and null elsewhere; every hand start resets the
    value to ``reset_value``.
    """
    rows = np.flatnonzero(marker.is_not_null().to_numpy())
    return _fill_rows(
        frame.height,
        frame["is_start"].to_numpy(),
        reset_value,
        rows,
        marker.gather(rows).cast(pl.Int64).to_numpy(),
    )


def local_to_utc(date_time: pl.Expr, zone: pl.Expr, zones: dict[str, str], fmt: str) -> pl.Expr:
    """Wall-clock text in a printed zone → UTC; ``zones`` maps each abbreviation to IANA.

    Zones of `parsers.columns.TIME_ZONES` are known as well; an unknown zone gives null.
    """
    naive = date_time.str.strptime(pl.Datetime("us"), fmt, strict=False)
    result: pl.Expr = pl.lit(None, dtype=pl.Datetime("us", "UTC"))
    for abbreviation, iana in {**TIME_ZONES, **zones}.items():
        converted = naive.dt.replace_time_zone(
            iana, ambiguous="earliest", non_existent="null"
        ).dt.convert_time_zone("UTC")
        result = pl.when(zone == abbreviation).then(converted).otherwise(result)
    return result


def street_amounts(actions: pl.DataFrame) -> pl.DataFrame:
    """``amount`` (chips added) and ``to_amount`` (street total after) of every action.

    ``actions`` is in action order with ``hand``, ``street``, ``player``, ``kind``, ``amount``
    (the increment, where the site prints one) and ``to`` (the street total, where the site
    prints one). A printed total always wins over a printed increment (site-formats §1.2).
    """
    kind = actions["kind"]
    live = kind.is_in(list(LIVE_KINDS))
    in_flow = live | kind.is_in(["fold", "check"])
    printed_total = live & actions["to"].is_not_null()
    to_amount, added = street_totals(
        actions["hand"].to_numpy(),
        actions["street"].to_numpy(),
        actions["player"].hash(seed=0).to_numpy().view(np.int64),
        live.to_numpy(),
        printed_total.to_numpy(),
        in_flow.to_numpy(),
        actions["amount"].fill_null(0).to_numpy(),
        actions["to"].fill_null(0).to_numpy(),
    )
    silent = kind.is_in(["fold", "check", "show", "muck"])
    return actions.with_columns(
        amount=pl.when(~silent).then(
            pl.when(printed_total).then(pl.Series(added)).otherwise(pl.col("amount"))
        ),
        to_amount=pl.when(in_flow).then(pl.Series(to_amount)),
    )


def settle_all_in_kinds(actions: pl.DataFrame, undecided: pl.Expr) -> pl.DataFrame:
    """Kind of an all-in printed as chips added only (Bovada ``All-in $x``, Cake ``is all in``).

    Run after `street_amounts`: the row bets into an unopened street, calls up to the street's
    highest total so far, or raises above it.
    """
    highest_before = (
        pl.col("to_amount").fill_null(0).cum_max().shift(1, fill_value=0).over("hand", "street")
    )
    return actions.with_columns(
        kind=pl.when(undecided)
        .then(
            pl.when(highest_before == 0)
            .then(pl.lit("bet"))
            .when(pl.col("to_amount") <= highest_before)
            .then(pl.lit("call"))
            .otherwise(pl.lit("raise"))
        )
        .otherwise(pl.col("kind"))
    )


def attach_hole_cards(
    seats: pl.DataFrame, sightings: pl.DataFrame, heroes: pl.DataFrame | None = None
) -> pl.DataFrame:
    """``hole_cards`` (last sighting), ``card_versions`` and ``is_hero`` on the seats.

    ``sightings`` has ``hand``, ``line_no``, ``player`` and ``cards`` (list of card codes);
    two different sightings of one player's cards make ``card_versions`` > 1, which the seat
    checks quarantine. ``heroes`` lists ``hand``, ``player`` of the recording player.
    """
    cards = (
        sightings.filter(pl.col("cards").is_not_null())
        .sort("hand", "line_no")
        .with_columns(key=pl.col("cards").list.sort().cast(pl.List(pl.String)).list.join(","))
        .group_by("hand", "player", maintain_order=True)
        .agg(hole_cards=pl.col("cards").last(), card_versions=pl.col("key").n_unique())
    )
    seats = seats.join(cards, on=["hand", "player"], how="left").with_columns(
        card_versions=pl.col("card_versions").fill_null(0)
    )
    if heroes is None:
        return seats.with_columns(is_hero=pl.lit(False))
    flagged = heroes.unique().with_columns(is_hero=pl.lit(True))
    return seats.join(flagged, on=["hand", "player"], how="left").with_columns(
        is_hero=pl.col("is_hero").fill_null(False)
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


@dataclass
class HandTables:
    """What a site parser decoded from one block, keyed by the block-local ``hand`` number.

    ``headers`` has one row per hand start (``hand``, ``hand_id``, ``is_o8``, ``game``);
    ``hands`` one row per Omaha Hi/Lo hand with the canonical hand columns; the other frames
    are the canonical tables with ``hand`` instead of ``hand_id``. ``reasons`` are the site's
    own quarantine verdicts (``hand``, ``reason``), checked before the shared ones.
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
    # Whether ``seats.position`` comes from the site (Bovada prints positions as names);
    # otherwise positions are counted from the button seat.
    positions_printed: bool = False
    # Lines no form of the site recognised (`unknown_lines`): kept as notes or quarantined.
    unknown_lines: pl.DataFrame | None = None


def finish(tables: HandTables) -> ParseResult:
    """Run the shared checks, quarantine the failing hands and build the canonical tables."""
    site = tables.site
    headers = with_other_games(tables.headers, tables.frame)
    skipped = headers.filter(pl.col("header_ok") & ~pl.col("is_o8"))
    candidates = headers.filter(pl.col("header_ok") & pl.col("is_o8")).select("hand")
    bad_headers = headers.filter(~pl.col("header_ok")).select(
        "hand", reason=pl.lit("unrecognised hand header")
    )
    hands = _complete(tables.hands.join(candidates, on="hand", how="semi"), "hands")
    seats = tables.seats.join(candidates, on="hand", how="semi")
    actions = tables.actions.join(candidates, on="hand", how="semi")
    collections = tables.collections.join(candidates, on="hand", how="semi")
    showdowns = tables.showdowns.join(candidates, on="hand", how="semi")
    no_seats = candidates.join(seats.select("hand").unique(), on="hand", how="anti").select(
        "hand", reason=pl.lit("truncated hand: no seat lines")
    )
    unknown = tables.unknown_lines
    if unknown is None:
        unknown = unknown_lines(tables.frame, pl.lit(False))
    unknown_reasons, notes = triage_unknown_lines(unknown, damaged=pl.col("damaged"))
    reasons = (
        pl.concat(
            [
                bad_headers,
                unknown_reasons,
                *[reason.select("hand", "reason") for reason in tables.reasons],
                no_seats,
                _StarsChecks._seat_problems(seats),
                _StarsChecks._actor_problems(actions, collections, seats),
                _StarsChecks._card_problems(hands, seats, showdowns),
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
        return _complete(frame.with_columns(site_column), table)

    notes = note_rows(
        notes, tables.frame, hands.with_columns(source_file=pl.lit(tables.source_file)), site
    )
    rejects = pl.concat(
        [_preamble_rejects(tables), _hand_rejects(tables, reasons)], how="vertical_relaxed"
    )
    skipped_games = {
        str(game): int(count)
        for game, count in skipped.group_by("game").len().sort("game").iter_rows()
    }
    result_tables = {
        "hands": table_from_frame(
            _complete(hands.with_columns(site_column), "hands").sort("hand"), "hands"
        ),
        "seats": table_from_frame(keyed(seats, "seats").sort("hand", "seat"), "seats"),
        "actions": table_from_frame(keyed(actions, "actions").sort("hand", "seq"), "actions"),
        "collections": table_from_frame(
            keyed(collections, "collections").sort("hand", "seq"), "collections"
        ),
        "showdowns": table_from_frame(
            keyed(showdowns, "showdowns").sort("hand", "line_no"), "showdowns"
        ),
        "notes": table_from_frame(notes, "notes"),
        "rejects": table_from_frame(rejects, "rejects"),
    }
    preamble = 1 if _preamble_text(tables.frame).height else 0
    return ParseResult(
        tables=result_tables,
        hands_found=headers.height + preamble,
        parsed=hands.height,
        skipped=skipped.height,
        rejected=rejects.height,
        skipped_games=skipped_games,
    )


def _complete(frame: pl.DataFrame, table: str) -> pl.DataFrame:
    """Add the canonical columns a site never prints, as nulls."""
    schema = _polars_schema(table)
    missing = [name for name in schema if name not in frame.columns]
    return frame.with_columns(pl.lit(None, dtype=schema[name]).alias(name) for name in missing)


@functools.cache
def _polars_schema(table: str) -> dict[str, pl.DataType]:
    empty = pl.from_arrow(HAND_TABLES[table].empty_table())
    assert isinstance(empty, pl.DataFrame)
    return dict(empty.schema)


def _preamble_text(frame: pl.DataFrame) -> pl.DataFrame:
    return frame.filter((pl.col("hand") < 0) & (pl.col("line").str.strip_chars() != ""))


def _preamble_rejects(tables: HandTables) -> pl.DataFrame:
    preamble = tables.frame.filter(pl.col("hand") < 0)
    text = _preamble_text(tables.frame)
    if text.height == 0:
        return pl.DataFrame(schema=REJECT_SCHEMA)
    return pl.DataFrame(
        {
            "source_file": [tables.source_file],
            "source_offset": [int(text["offset"][0])],
            "site": [tables.site],
            "hand_id": [None],
            "reason": ["text before the first hand header"],
            "raw_text": ["\n".join(preamble["line"].to_list())],
        },
        schema=REJECT_SCHEMA,
    )


def _hand_rejects(tables: HandTables, reasons: pl.DataFrame) -> pl.DataFrame:
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
            source_file=pl.lit(tables.source_file),
            source_offset="source_offset",
            site=pl.lit(tables.site),
            hand_id="hand_id",
            reason="reason",
            raw_text="raw_text",
        )
        .cast(REJECT_SCHEMA)  # type: ignore[arg-type]
    )


class AnchoredParser:
    """The parser interface for a format whose hands each open with a recognisable line.

    A site's subclass names ``site``, ``profile``, ``hand_start`` (the pattern of a hand's first
    line), ``sniff_pattern`` (searched in a file's first lines) and implements `tables`, its
    decoding of a block of lines; splitting, sniffing and the final assembly are shared.
    """

    site: ClassVar[str]
    profile: ClassVar[SiteProfile]
    hand_start: ClassVar[str]
    sniff_pattern: ClassVar[re.Pattern[str]]

    def sniff(self, head: str) -> bool:
        """A hand header within the first lines of a file."""
        return self.sniff_pattern.search(head) is not None

    def hand_starts(self, lines: pl.Series) -> np.ndarray:
        """Mask of hand header lines."""
        return lines.str.contains(self.hand_start).fill_null(False).to_numpy()

    def parse(self, lines: pl.Series, offsets: np.ndarray, source_file: str) -> ParseResult:
        """Parse a block of whole hands into the canonical tables."""
        frame = line_frame(lines, offsets, lines.str.contains(self.hand_start))
        return finish(self.tables(frame, source_file))

    def tables(self, frame: pl.DataFrame, source_file: str) -> HandTables:
        """The site's decoding of a block of lines (``line_frame`` layout)."""
        raise NotImplementedError

