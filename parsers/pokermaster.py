"""PokerMaster hands written in PokerStars' line forms (``PokerMaster Hand #201579300118: …``).

PokerMaster is a club poker app; its hands reach a player's folder as text that tracking
software writes in PokerStars' forms. The one real sample (a 6-card Omaha Hi/Lo cash hand of a
club table, 2023) reads line for line as PokerStars prints, so the PokerStars block parser reads
it (`parsers.pokerstars.forms.Dialect`); this module holds only what differs:

- Headers open with ``PokerMaster Hand #``: ``PokerMaster Hand #201579300118:  6 Card Omaha
  Hi/Lo Pot Limit ($2/$4 USD) - 2023/10/03 09:07:54 UTC`` (one time, its zone printed).
- After the seats, a comment line holds the app's own record of the hand as JSON: ``# {"gt":
  "PLO6HL","tn":"…","pn":{"0":"<name in the app>",…},"hbcName":"<club>","room":"Prr",…}``
  (game type, table, the players' names in the app by seat, club). It is not read: it is stored
  as a note of kind ``converter_comment``, whatever numbers it holds.
- The summary writes ``with XZ`` where PokerStars names a shown hand (``showed [As Ts Tc 9h 6h
  5d] and lost with XZ``), and ``Seat 1: Player0 mucked`` without cards: summary seat lines,
  which carry nothing the tables need (as at PokerStars).
- Shows print no descriptions (``Player2: shows [As Ts Tc 9h 6h 5d]``); no ``Dealt to`` line (no
  hero); ``Total pot $42 | Rake $1`` is gross, one unlabelled ``collected`` line per half and pot.

Games read: the names PokerStars prints (`parsers.pokerstars.forms.GAME_NAMES`), the tool
writing PokerStars' names; only ``6 Card Omaha Hi/Lo`` (``O8-6card``) has been seen.
"""

from __future__ import annotations

import re
from typing import ClassVar

import numpy as np
import polars as pl

from parsers.base import ParseResult
from parsers.engine.line_forms import may_find
from parsers.pokerstars.block_parser import parse_with_block_parser
from parsers.pokerstars.forms import GAME_NAMES, Dialect
from pipeline.profiles import SiteProfile

__all__ = ["DIALECT", "NOTE_CONVERTER_COMMENT", "SITE", "PokerMasterParser"]

SITE = "pokermaster"
NOTE_CONVERTER_COMMENT = "converter_comment"

DIALECT = Dialect(
    site=SITE,
    room="PokerMaster",
    game_names=GAME_NAMES,
    kept_lines=r"^# \{.*\}$",
    kept_kind=NOTE_CONVERTER_COMMENT,
)
_HAND_START_LINE = re.compile(DIALECT.hand_start.replace("^", "^\ufeff?", 1), re.MULTILINE)


class PokerMasterParser:
    """Parser for PokerMaster hands in PokerStars' forms (the PokerStars block parser)."""

    site: ClassVar[str] = SITE
    # PokerStars' forms: unlabelled lines per half per pot, total pot gross of rake (the one
    # hand: $42 = $41 collected + $1 rake), no hand descriptions. How the room takes rake from
    # side pots is not known (no sample has one): the default rule.
    profile: ClassVar[SiteProfile] = SiteProfile(
        site=SITE, halves_labelled=False, total_pot_is_gross=True
    )

    def sniff(self, head: str) -> bool:
        """A PokerMaster hand header within the first lines."""
        return may_find(_HAND_START_LINE, head) and _HAND_START_LINE.search(head) is not None

    def hand_starts(self, lines: pl.Series) -> np.ndarray:
        """Mask of hand header lines."""
        return lines.str.contains(DIALECT.hand_start).fill_null(False).to_numpy()

    def parse(self, lines: pl.Series, offsets: np.ndarray, source_file: str) -> ParseResult:
        """Parse a block of whole hands into the canonical tables."""
        return self.parse_files(lines, offsets, np.zeros(1, dtype=np.int64), [source_file])[0]

    def parse_files(
        self,
        lines: pl.Series,
        offsets: np.ndarray,
        file_starts: np.ndarray,
        source_files: list[str],
    ) -> list[ParseResult]:
        """Parse several whole files in one pass; one result per file, in order."""
        return parse_with_block_parser(lines, offsets, file_starts, source_files, DIALECT)
