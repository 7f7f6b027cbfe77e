"""A block's canonical tables, from either reader, merged and cut into one result per file."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl
import pyarrow as pa

from parsers.base import ParseResult, table_from_frame
from pipeline.positions import assign_positions


@dataclass
class BlockTables:
    """A block's stored hands and their rows (before positions), keyed by segment ``hand``."""

    hands: pl.DataFrame
    seats: pl.DataFrame
    actions: pl.DataFrame
    collections: pl.DataFrame
    showdowns: pl.DataFrame
    notes: pl.DataFrame
    rejects: pl.DataFrame
    found: np.ndarray  # segments opened by a hand header
    skipped: pl.DataFrame  # hand, game: hands of other games

    def renumbered(self, segments: np.ndarray) -> BlockTables:
        """The same tables with segment ``k`` renamed ``segments[k]`` (an increasing map)."""

        def renumber(frame: pl.DataFrame) -> pl.DataFrame:
            hand = segments[frame["hand"].to_numpy()]
            return frame.with_columns(hand=pl.Series("hand", hand, dtype=pl.Int32))

        return BlockTables(
            hands=renumber(self.hands),
            seats=renumber(self.seats),
            actions=renumber(self.actions),
            collections=renumber(self.collections),
            showdowns=renumber(self.showdowns),
            notes=renumber(self.notes),
            rejects=renumber(self.rejects),
            found=segments[self.found],
            skipped=renumber(self.skipped),
        )


@dataclass
class StoredTables:
    """Canonical Arrow tables of some of a block's segments, and the segment of every row."""

    tables: dict[str, pa.Table]
    segments: dict[str, np.ndarray]
    found: np.ndarray  # segments opened by a hand header
    skipped: pl.DataFrame  # hand, game: hands of other games


def stored(tables: BlockTables) -> StoredTables:
    """The block parser's frames as canonical tables: positions, players dealt, hand ids."""
    hands = tables.hands
    seats = assign_positions(tables.seats, hands)
    hands = hands.join(
        seats.group_by("hand").agg(
            (~pl.col("sitting_out")).sum().cast(pl.Int16).alias("players_dealt")
        ),
        on="hand",
        how="left",
    )
    ids = hands.select("hand", "hand_id")
    seats, actions, collections, showdowns = (
        frame.join(ids, on="hand", how="left")
        for frame in (seats, tables.actions, tables.collections, tables.showdowns)
    )
    frames = {
        "hands": hands.sort("hand"),
        "seats": seats.sort("hand", "seat"),
        "actions": actions.sort("hand", "seq"),
        "collections": collections.sort("hand", "seq"),
        "showdowns": showdowns.sort("hand", "line_no"),
        "notes": tables.notes.sort("hand", maintain_order=True),
        "rejects": tables.rejects.sort("hand", maintain_order=True),
    }
    return StoredTables(
        tables={name: table_from_frame(frame, name) for name, frame in frames.items()},
        segments={name: frame["hand"].to_numpy() for name, frame in frames.items()},
        found=tables.found,
        skipped=tables.skipped,
    )


def merged(parts: list[StoredTables]) -> StoredTables:
    """One set of tables, every table's rows in segment order (each part's order kept)."""
    if len(parts) == 1:
        return parts[0]
    tables: dict[str, pa.Table] = {}
    segments: dict[str, np.ndarray] = {}
    for name in parts[0].tables:
        rows = np.concatenate([part.segments[name] for part in parts])
        order = np.argsort(rows, kind="stable")
        tables[name] = pa.concat_tables([part.tables[name] for part in parts]).take(order)
        segments[name] = rows[order]
    return StoredTables(
        tables=tables,
        segments=segments,
        found=np.concatenate([part.found for part in parts]),
        skipped=pl.concat([part.skipped for part in parts]),
    )


def results_by_file(
    stored: StoredTables, segment_file: np.ndarray, source_files: list[str]
) -> list[ParseResult]:
    """Split the block's tables and counts by source file.

    Every table is in segment order and segments follow the files' order, so each file's
    rows are one contiguous slice of each table, sliced without copying.
    """
    files = len(source_files)
    bounds_of = {
        name: np.searchsorted(segment_file[rows], np.arange(files + 1))
        for name, rows in stored.segments.items()
    }
    skipped = stored.skipped
    header_files = segment_file[stored.found]
    skipped_files = segment_file[skipped["hand"].to_numpy()]
    rejected_segments = stored.segments["rejects"]
    preamble_files = segment_file[rejected_segments[~np.isin(rejected_segments, stored.found)]]
    found = np.bincount(header_files, minlength=files) + np.bincount(
        preamble_files, minlength=files
    )
    skipped_counts = np.bincount(skipped_files, minlength=files)
    results = []
    for file in range(files):
        tables = {
            name: table.slice(bounds_of[name][file], bounds_of[name][file + 1] - bounds_of[name][file])
            for name, table in stored.tables.items()
        }
        games: dict[str, int] = {}
        if skipped_counts[file]:
            of_file = skipped.filter(pl.Series(skipped_files == file)).group_by("game").len()
            games = {str(k): int(v) for k, v in of_file.sort("game").iter_rows()}
        results.append(
            ParseResult(
                tables=tables,
                hands_found=int(found[file]),
                parsed=tables["hands"].num_rows,
                skipped=int(skipped_counts[file]),
                rejected=tables["rejects"].num_rows,
                skipped_games=games,
            )
        )
    return results
