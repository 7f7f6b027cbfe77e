"""The small interface every site parser implements, and the result it returns."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar, Protocol

import numpy as np
import polars as pl
import pyarrow as pa

from parsers.games import OMAHA_HI_LO
from pipeline.schema import HAND_TABLES, REJECTS

__all__ = ["GAME_CODE", "ParseResult", "SiteParser", "table_from_frame"]

# The game of a hand whose site reads no other: Omaha Hi/Lo (`parsers.games`).
GAME_CODE = OMAHA_HI_LO.code


@dataclass
class ParseResult:
    """Canonical tables for one block of hands, and the accounting of that block.

    ``hands_found == parsed + skipped + rejected`` always holds: every hand start the parser
    recognised ends in exactly one of the three.
    """

    tables: dict[str, pa.Table]  # hands, seats, actions, collections, showdowns, rejects
    hands_found: int
    parsed: int
    skipped: int
    rejected: int
    skipped_games: dict[str, int] = field(default_factory=dict)  # game name -> hands skipped

    def __post_init__(self) -> None:
        if self.hands_found != self.parsed + self.skipped + self.rejected:
            raise AssertionError(
                f"accounting broken: found {self.hands_found} != parsed {self.parsed}"
                f" + skipped {self.skipped} + rejected {self.rejected}"
            )


class SiteParser(Protocol):
    """One module per site implements this (see parsers/pokerstars.py)."""

    site: ClassVar[str]

    def sniff(self, head: str) -> bool:
        """Whether decoded text starting with ``head`` (a few KB) is this site's format."""
        ...

    def hand_starts(self, lines: pl.Series) -> np.ndarray:
        """Boolean mask of the lines that open a hand (used to cut files into blocks)."""
        ...

    def parse(self, lines: pl.Series, offsets: np.ndarray, source_file: str) -> ParseResult:
        """Parse whole hands (``lines`` starts at a hand start or is preamble text)."""
        ...


def table_from_frame(frame: pl.DataFrame, table: str) -> pa.Table:
    """Cast a polars frame to the canonical Arrow schema of ``table`` (columns in order)."""
    schema = HAND_TABLES[table] if table in HAND_TABLES else REJECTS
    if table == "hands":
        # ``game`` is the code of the hand's game (`parsers.games`), whatever the site printed:
        # a site that reads more than one game gives it as ``game_code`` (its header's name,
        # read by `parsers.games.game_codes`); a hand without one is Omaha Hi/Lo.
        code = (
            pl.col("game_code").fill_null(GAME_CODE)
            if "game_code" in frame.columns
            else pl.lit(GAME_CODE)
        )
        frame = frame.with_columns(game=code)
    arrow = frame.select(schema.names).to_arrow()
    return arrow.cast(schema)
