"""The parser interface of a text format whose hands each open with a recognisable line."""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import polars as pl

from parsers.engine.assembly import HandTables
from parsers.engine.file_batches import FileBatchParser
from parsers.engine.lines import line_frame
from pipeline.profiles import SiteProfile

__all__ = ["AnchoredParser", "Block"]


class Block:
    """One parse of a block of lines by a site: its decoding, handed to `finish` as `HandTables`."""

    def __init__(self, frame: pl.DataFrame, source_file: str) -> None:
        self.frame = frame
        self.source_file = source_file

    def candidate_lines(self, candidates: pl.DataFrame, *columns: str | pl.Expr) -> pl.DataFrame:
        """The lines of the hands in ``candidates``, with its ``columns`` (``money_scale``...)."""
        return self.frame.filter(pl.col("hand") >= 0).join(
            candidates.select("hand", *columns), on="hand", how="inner"
        )

    def tables(self) -> HandTables:
        raise NotImplementedError


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
        return self.block(line_frame(lines, offsets, starts), source_file).tables()
