"""The parser interface of a text format whose hands each open with a recognisable line."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import polars as pl

from parsers.columns import money
from parsers.engine.assembly import HandTables, unknown_lines
from parsers.engine.file_batches import FileBatchParser
from parsers.engine.line_forms import DecodedFields, kind_fields
from parsers.engine.lines import line_frame
from pipeline.profiles import SiteProfile

__all__ = ["AnchoredParser", "Block", "seat_fields", "seat_lines", "with_sitting_out"]


class Block:
    """One parse of a block of lines by a site: its decoding, handed to `finish` as `HandTables`."""

    unknown_kind: ClassVar[int]  # the kind its classification gives a line no form reads

    def __init__(self, frame: pl.DataFrame, source_file: str, site: str) -> None:
        self.frame = frame
        self.source_file = source_file
        self.site = site
        self.fields = DecodedFields()  # `kind_fields`, each decoded once per parse

    def candidate_lines(self, candidates: pl.DataFrame, *columns: str | pl.Expr) -> pl.DataFrame:
        """The lines of the hands in ``candidates``, with its ``columns`` (``money_scale``...)."""
        return self.frame.filter(pl.col("hand") >= 0).join(
            candidates.select("hand", *columns), on="hand", how="inner"
        )

    def tables(self) -> HandTables:
        raise NotImplementedError

    def assemble(self, lines: pl.DataFrame, **parts: Any) -> HandTables:
        """The block's `HandTables` from its ``parts`` (``headers``, ``hands``… ``reasons``):
        the ``lines`` of `unknown_kind` are its unknown lines, unless the site gives its own
        ``unknown_lines``."""
        if "unknown_lines" not in parts:
            parts["unknown_lines"] = unknown_lines(lines, pl.col("kind") == self.unknown_kind)
        return HandTables(site=self.site, source_file=self.source_file, frame=self.frame, **parts)


class AnchoredParser(FileBatchParser):
    """The parser interface for a format whose hands each open with a recognisable line.

    A site's subclass names ``site``, ``profile``, ``hand_start`` (the pattern of a hand's first
    line), ``sniff_pattern`` (searched in a file's first lines) and ``block``, its decoding of a
    block of lines (a `Block`); splitting, sniffing and the final assembly are shared.
    """

    site: ClassVar[str]
    profile: ClassVar[SiteProfile]
    block: ClassVar[type[Block]]

    def hand_tables(
        self, lines: pl.Series, offsets: np.ndarray, starts: np.ndarray, source_file: str
    ) -> HandTables:
        """The site's decoding of a block of whole hands."""
        return self.block(line_frame(lines, offsets, starts), source_file, self.site).tables()


def seat_fields(rows: pl.DataFrame) -> pl.DataFrame:
    """``hand, player, seat, stack_start`` of a site's seat lines, decoded: ``rows`` holds the
    ``seat``, ``player`` and ``stack`` groups of its seat pattern and ``money_scale``."""
    return rows.select(
        "hand",
        "player",
        seat=pl.col("seat").cast(pl.Int16, strict=False),
        stack_start=money(pl.col("stack"), pl.col("money_scale")),
    )


def seat_lines(lines: pl.DataFrame, kind: int, pattern: str) -> pl.DataFrame:
    """`seat_fields` of the lines of ``kind`` read by ``pattern``."""
    return seat_fields(kind_fields(lines, kind, pattern, "hand", "money_scale"))


def with_sitting_out(seats: pl.DataFrame, in_hand: pl.DataFrame) -> pl.DataFrame:
    """``seats`` with ``sitting_out``: a seated player not in ``in_hand`` (``hand, player``:
    who was dealt in or acted) sat out the hand."""
    present = in_hand.select("hand", "player").unique().with_columns(_present=pl.lit(True))
    return (
        seats.join(present, on=["hand", "player"], how="left")
        .with_columns(sitting_out=pl.col("_present").is_null())
        .drop("_present")
    )
