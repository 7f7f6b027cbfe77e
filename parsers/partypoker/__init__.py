"""PartyPoker hand histories (``***** Hand History for Game N *****``), Omaha Hi-Lo.

What PartyPoker prints, and so what this parser records (site-formats.md, "PartyPoker"):

- ``#Game No : N`` and ``***** Hand History for Game N *****`` open a hand; the ``Game #N starts.``
  line that many exports print belongs to the hand *after* the one it follows, so it is read as
  an informational line wherever it stands (it is never a hand of its own).
- Headers: cash fixed limit ``$20/$40 USD FL Omaha Hi-Lo - Thursday, January 26, 18:13:53 EST 2012``
  (the stakes are the bets; blinds come from the posts); cash pot limit ``$200 USD PL Omaha Hi-Lo``
  (a buy-in label, not stakes: blinds come from the posts); tournaments
  ``PL Omaha Hi-Lo $22 USD Buy-in Trny: 105411156 Level: 2  Blinds(20/40) - …`` (chips).
  Times carry EST/EDT and are converted to UTC.
- Every amount in an action is an increment (``raises [$30 USD]`` adds $30); ``is all-In [x]``
  adds x and is a bet, call or raise depending on what it brings the player's street total to.
- Payouts: ``wins $239 USD`` (one aggregated line, no pot named), ``wins 640 chips from the main
  pot`` (high or unsplit), ``wins Lo (640 chips) from the main pot`` (labelled low half),
  ``from the side pot 1``. An uncalled bet is never returned in the text: it is part of the won
  amount (``$239`` = $200 pot + $40 unreturned bet − $1 rake), so it is kept as the collection.
- No summary, no total pot, no rake: ``hands.total_pot`` and ``hands.rake`` are null (the 2023
  layout prints them).
- A small blind that folds to a big blind all-in for less gets its unmatched chips back without
  a line (nobody left can win them): an ``uncalled_return`` is added for it
  (:func:`folded_excess_returns`). A big blind posted all-in for less (the player's whole stack)
  does not set the table's big blind; the fixed-limit small bet or the pot-limit buy-in label
  (100 big blinds) does then.
- The 2023 layout (``***** Hand History For Game 1676832422659jxi26omnah *****``, ``0.05/0.10
  Omaha Hi/Lo Game Table (PL) - Sun Feb 19 13:45:49 EST 2023``) is another text: its hands are
  told apart by their header and read by `parsers.partypoker.modern`, which says what it prints
  (no payout in the body; a summary with the pots net of rake, the rake and each player's
  balance and total collected); the older layouts' hands of the same block by
  `parsers.partypoker.legacy`, and what both print alike is `parsers.partypoker.common`.

The engine the Party family (Party, 888/Pacific, Everleaf) and Full Tilt share — street
sections, amount and card decoding, `BlockParts` and `assembled`, which turns a site's extractions
into the canonical tables — is `parsers.engine.block_parts`; this package holds PartyPoker's facts.
"""

from __future__ import annotations

import re
from typing import ClassVar

import numpy as np
import polars as pl

from parsers.engine.block_parts import BlockParts, BlockPartsParser, anchor_starts
from parsers.partypoker.common import GAME_STARTS_LINE
from parsers.partypoker.legacy import legacy_parts
from parsers.partypoker.modern import modern_hand_numbers, modern_parts
from pipeline.profiles import SiteProfile

__all__ = ["PartyPokerParser"]

SITE = "partypoker"


_PARTY_SNIFF = re.compile(r"^\*{5} Hand History [Ff]or Game [0-9A-Za-z]+ \*{5}", re.MULTILINE)
_ANCHOR = r"^(?:#Game No : (\d+)$|\*{5} Hand History [Ff]or Game ([0-9A-Za-z]+) \*{5})"


class PartyPokerParser(BlockPartsParser):
    """Parser for PartyPoker text hand histories (Omaha Hi-Lo)."""

    site: ClassVar[str] = SITE
    # Before 2023: labelled halves ("wins Lo (…)"), pot named; no total pot and no rake
    # printed (a null total is never compared). The 2023 layout prints one "collected" total
    # per player and the pot net of rake ("Main Pot: $2.23 Rake: $0.11" for $2.34 put in):
    # so payouts are compared per player and pot, never line by line, and a printed total is
    # net of rake.
    profile: ClassVar[SiteProfile] = SiteProfile(
        site=SITE,
        halves_labelled=True,
        total_pot_is_gross=False,
        payout_lines="per_player",
        odd_chip_unit=1,
        raise_cap=4,
        rake_printed=False,
        # An uncalled bet is inside the amount the winner "wins" (site-formats.md §1.3).
        uncalled_printed=True,
    )

    # A ``***** Hand History for Game N *****`` line (888's reads ``Cassava Hand History``).
    sniff_pattern: ClassVar[re.Pattern[str]] = _PARTY_SNIFF
    preamble_ignorable: ClassVar[str | None] = GAME_STARTS_LINE

    def hand_starts(self, lines: pl.Series) -> np.ndarray:
        """The first anchor line (``#Game No`` or the history line) of each game number."""
        return anchor_starts(lines, _ANCHOR)

    @staticmethod
    def read_parts(frame: pl.DataFrame) -> BlockParts:
        """The block's hands in the layouts before 2023 and in the 2023 layout, read apart."""
        modern = modern_hand_numbers(frame)
        if modern.height == 0:
            return legacy_parts(frame)
        is_modern = pl.col("hand").is_in(modern["hand"].implode())
        new = modern_parts(frame.filter(is_modern))
        if frame.filter(~is_modern & (pl.col("hand") >= 0)).height == 0:
            return _with_frame(new, frame)
        return _merged_parts(frame, legacy_parts(frame.filter(~is_modern)), new)


def _with_frame(parts: BlockParts, frame: pl.DataFrame) -> BlockParts:
    parts.frame = frame
    return parts


def _merged_parts(frame: pl.DataFrame, old: BlockParts, new: BlockParts) -> BlockParts:
    """One block's parts from the parts of its hands in each layout."""

    def both(first: pl.DataFrame, second: pl.DataFrame) -> pl.DataFrame:
        return pl.concat([first, second], how="diagonal_relaxed")

    unknown = [part for part in (old.unknown_lines, new.unknown_lines) if part is not None]
    return BlockParts(
        frame=frame,
        headers=both(old.headers, new.headers),
        hands=both(old.hands, new.hands),
        seats=both(old.seats, new.seats),
        actions=both(old.actions, new.actions),
        collections=both(old.collections, new.collections),
        showdowns=both(old.showdowns, new.showdowns),
        sightings=both(old.sightings, new.sightings),
        problems=[*old.problems, *new.problems],
        unknown_lines=pl.concat(unknown, how="diagonal_relaxed") if unknown else None,
    )
