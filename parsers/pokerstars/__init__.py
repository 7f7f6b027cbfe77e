"""PokerStars hand histories (``PokerStars Hand #`` / ``Game #``), Omaha Hi/Lo in every form.

Two readers, one result. ``compiled_reader`` walks a block's bytes once and reads the usual
four-card Omaha Hi/Lo hand; ``block_parser`` reads every other hand of the block with column
expressions and explains what it cannot store (``compiled_tables`` and ``tables`` turn both into
the canonical tables, in the block's order). ``forms`` holds the line forms they read.

Games read (``forms.GAME_NAMES``): ``Omaha Hi/Lo`` (``O8``), ``5 Card Omaha Hi/Lo`` (Big O,
``O8-5card``: ``PokerStars Hand #96961585867:  5 Card Omaha Hi/Lo Pot Limit ($2/$4 USD) - …``),
``6 Card Omaha Hi/Lo`` (``O8-6card``) and ``Courchevel Hi/Lo`` (``Courchevel-HL``), each hand
with its own game. Courchevel prints its exposed card after the deal, ``*** PRE-FLOP *** [7h]``,
and the flop either with it (``*** FLOP *** [7h 5d 3s]``, 2013) or apart (``*** FLOP *** [8s]
[2c 9h]``, 2017); the exposed card is the board's first card (checked), and a hand that ended
before the flop has it for board (from the street lines where no ``Board`` line prints it). Hands
of other games in the same file (hold'em, Omaha high, the rest of a mixed rotation) are counted
as skipped; a hand whose text is damaged or inconsistent is quarantined with a reason, and the
rest of the block goes on.

What PokerStars prints, and so what this parser records:

- Money is printed with a currency symbol for cash (``$0.31``) and as plain chips in tournaments
  and play money; stored as cents or chips (``hands.money_scale``).
- ``raises $0.05 to $0.07``: the second figure is the player's street total (``to_amount``), the
  first is the raise over the bet faced; ``calls`` and ``bets`` give the chips added.
- ``posts small & big blinds $0.03``: a missed small blind (dead) plus a live big blind.
- Halves are never labelled (``collections.half`` is null); one ``collected`` line per half and pot
  (side pots first), so ``pot_index`` is kept: ``pot`` / ``main pot`` → 0, ``side pot`` → 1,
  ``side pot-N`` → N.
- ``Total pot`` in the summary includes the rake (gross).
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import polars as pl

from parsers.base import ParseResult
from parsers.engine.line_forms import may_find
from parsers.pokerstars import compiled_reader
from parsers.pokerstars.block_parser import BlockParser, file_layout, parse_with_block_parser
from parsers.pokerstars.compiled_tables import compiled_tables
from parsers.pokerstars.forms import _HAND_START_LINE, HAND_START, SITE
from parsers.pokerstars.tables import merged, results_by_file, stored
from pipeline.profiles import SiteProfile

__all__ = ["HAND_START", "PokerStarsParser", "hand_starts", "parse_with_block_parser"]

HAND_PREFIX = "PokerStars "  # every line HAND_START matches starts so


def hand_starts(lines: pl.Series) -> np.ndarray:
    """Mask of the lines HAND_START matches: it is tried only on lines starting with its first
    word (a literal test is several times cheaper than the expression)."""
    starts = lines.str.starts_with(HAND_PREFIX).fill_null(False).to_numpy()
    rows = np.flatnonzero(starts)
    starts[rows] = lines.gather(rows).str.contains(HAND_START).fill_null(False).to_numpy()
    return starts


class PokerStarsParser:
    """Parser for PokerStars text hand histories."""

    site: ClassVar[str] = SITE
    # Unlabelled lines per half per pot, pot named; total pot printed gross of rake.
    profile: ClassVar[SiteProfile] = SiteProfile(
        site=SITE,
        halves_labelled=False,
        total_pot_is_gross=True,
        # A bet and three raises, not lifted heads-up: 445 real limit hands, 23 capped heads-up
        # streets (real-site-evidence.md, "Fixed-limit cap").
        raise_cap=4,
        heads_up_uncapped=False,
        description_style="pokerstars",
        # Pot by pot on the running total of the gross pots, main pot first: 98 of 98 real cash
        # hands with side pots and rake (real-site evidence, "Rake (PokerStars cash)").
        rake_from="running-total",
    )

    def sniff(self, head: str) -> bool:
        """A PokerStars hand header within the first lines (a BOM or stray text may precede)."""
        return may_find(_HAND_START_LINE, head) and _HAND_START_LINE.search(head) is not None

    def hand_starts(self, lines: pl.Series) -> np.ndarray:
        """Mask of hand header lines."""
        return hand_starts(lines)

    def parse(self, lines: pl.Series, offsets: np.ndarray, source_file: str) -> ParseResult:
        """Parse a block of whole hands into the canonical tables."""
        return self.parse_files(lines, offsets, np.zeros(1, dtype=np.int64), [source_file])[0]

    def parse_by_block_parser(
        self, lines: pl.Series, offsets: np.ndarray, source_file: str
    ) -> ParseResult:
        """The same parse without the compiled reader: the reference it is tested against."""
        return parse_with_block_parser(lines, offsets, np.zeros(1, dtype=np.int64), [source_file])[0]

    def parse_files(
        self,
        lines: pl.Series,
        offsets: np.ndarray,
        file_starts: np.ndarray,
        source_files: list[str],
    ) -> list[ParseResult]:
        """Parse several whole files in one pass; one result per file, in order.

        ``file_starts[i]`` is the first line of ``source_files[i]``. A parse has a fixed cost
        of a few hundred column operations, so an archive of many small files is parsed a
        batch of files at a time rather than file by file.
        """
        starts = hand_starts(lines)
        new_file, file_of_line = file_layout(file_starts, len(lines))
        new_file[:1] = True  # the block's first line opens a segment whatever it is
        read = compiled_reader.read_block(lines, starts, new_file)
        segment_file = file_of_line[read.first_line]
        parts = []
        done = np.zeros(len(read.accepted), dtype=bool)
        if starts.any():
            fast, done = compiled_tables(read, starts, lines, offsets, segment_file, source_files)
            parts.append(fast)
        slow_segments = np.flatnonzero(~done).astype(np.int32)
        if len(slow_segments):
            rows = np.flatnonzero(~done[read.segment])
            files = np.unique(segment_file[slow_segments])
            local_starts = np.searchsorted(file_of_line[rows], files)
            block = BlockParser(
                lines.gather(rows),
                offsets[rows],
                [source_files[file] for file in files],
                local_starts.astype(np.int64),
            )
            if block.segments != len(slow_segments):
                raise AssertionError("the compiled reader and the block parser cut hands apart")
            parts.append(stored(block.tables().renumbered(slow_segments)))
        return results_by_file(merged(parts), segment_file, source_files)
