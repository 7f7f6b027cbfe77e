"""The sites `hilo generate` writes, and what each one's text can show.

Every site has a writer module in this package with the same three names: ``SessionText`` (a
session file built hand by hand: ``add(hand)``, ``data()`` → bytes), ``file_name(first hand)`` and
``hand_id_text`` (how the site prints a hand id; None when it prints the plain number). What
differs beyond the layout is kept here:

- ``split_unit``: the smallest unit a pot is split in (payout-rules P9) as the site's parser
  declares it (`pipeline.profiles.SiteProfile.odd_chip_unit`), so the simulator settles pots the
  way the audit expects that site to;
- ``fault_kinds``: the injected faults (``docs/faults.md``) the audit can detect from that
  site's text — a site whose hand descriptions are not checked cannot show a
  ``description_mismatch`` — drawn by default; the optional kinds
  (`pipeline.generate.faults.OPTIONAL_FAULT_KINDS`: ``rake_under_schedule``) every site can
  show too, but only when asked for (``hilo generate --fault-kinds``, `fault_kinds_for`);
- ``tournaments``: whether the site's tournament text can be audited as the simulator settles
  it;
- ``heads_up_uncapped``: whether the fixed-limit cap of a bet and three raises is lifted at the
  site's cash tables when a pot gets heads-up before it is reached (payout-rules B2).
  PokerStars never lifts it, in cash games or tournaments (real-site-evidence.md: 23 capped
  heads-up streets, at most 4 bets a street in 445 real limit hands); for the other sites we
  have no evidence either way and keep the rule-book default. Tournaments are never uncapped.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from types import ModuleType

from collections.abc import Sequence

from pipeline.generate.faults import (
    ALL_FAULT_KINDS,
    DESCRIPTION_MISMATCH,
    FAULT_KINDS,
    OPTIONAL_FAULT_KINDS,
)

__all__ = ["SITES", "SiteText", "fault_kinds_for", "site_text"]

# Every kind but the description: only PokerStars' wording is checked by the audit
# (`SiteProfile.description_style`).
PAYOUT_AND_RAKE_FAULTS = tuple(kind for kind in FAULT_KINDS if kind != DESCRIPTION_MISMATCH)


@dataclass(frozen=True, slots=True)
class SiteText:
    """How `hilo generate` writes one site."""

    name: str
    writer: str  # module in this package
    split_unit: int
    fault_kinds: tuple[str, ...]
    tournaments: bool
    currency: str  # of cash games
    heads_up_uncapped: bool = True  # fixed-limit cash tables only
    games: tuple[str, ...] = ("O8",)  # what the site deals (`parsers.games` codes)

    def module(self) -> ModuleType:
        """The writer module."""
        return importlib.import_module(f"pipeline.generate.{self.writer}")

    @property
    def allowed_fault_kinds(self) -> tuple[str, ...]:
        """Every kind that may be asked for: the default ones and the optional ones."""
        return self.fault_kinds + OPTIONAL_FAULT_KINDS


SITES: dict[str, SiteText] = {
    # PokerStars caps fixed limit at 4 bets a street heads-up too (real-site-evidence.md).
    "pokerstars": SiteText(
        "pokerstars",
        "pokerstars_text",
        1,
        FAULT_KINDS,
        True,
        "USD",
        heads_up_uncapped=False,
        games=("O8", "O8-5card", "O8-6card", "Courchevel-HL"),
    ),
    "ggpoker": SiteText("ggpoker", "ggpoker_text", 1, PAYOUT_AND_RAKE_FAULTS, True, "USD"),
    # Full Tilt's parser declares a 5-cent split unit (its $0.50/$1 tables split $7.75 as
    # $3.90/$3.85) and applies it to tournament chips as well: the simulator splits the same way.
    "fulltilt": SiteText("fulltilt", "fulltilt_text", 5, PAYOUT_AND_RAKE_FAULTS, True, "USD"),
    # Party prints no rake: the audit infers it (chips put in less chips paid), so a rake fault
    # shows as an inferred rake above the cap or before the flop.
    "partypoker": SiteText("partypoker", "partypoker_text", 1, PAYOUT_AND_RAKE_FAULTS, True, "USD"),
    # Winamax prints tournament chips in hundredths (``7410.50``), which the parser stores with
    # money_scale 100, so the audit splits chip pots to a hundredth of a chip while the
    # simulator (and any real table) splits them to the chip: cash games only.
    "winamax": SiteText(
        "winamax", "winamax_text", 1, PAYOUT_AND_RAKE_FAULTS, False, "EUR", games=("O8", "O8-5card")
    ),
}


def site_text(name: str) -> SiteText:
    """The site called ``name``; ValueError for an unknown one."""
    try:
        return SITES[name]
    except KeyError:
        raise ValueError(f"unknown site {name!r} (known: {', '.join(SITES)})") from None


def fault_kinds_for(name: str, kinds: Sequence[str]) -> tuple[str, ...]:
    """The fault kinds asked for at site ``name``, in the order of `ALL_FAULT_KINDS`;
    ValueError for an unknown code, one the site's text cannot show, or none at all.

    >>> fault_kinds_for("ggpoker", ["rake_under_schedule", "rake_over_cap"])
    ('rake_over_cap', 'rake_under_schedule')
    """
    site = site_text(name)
    asked = set(kinds)
    unknown = sorted(asked - set(ALL_FAULT_KINDS))
    if unknown:
        raise ValueError(
            f"unknown fault kind(s) {', '.join(unknown)} (known: {', '.join(ALL_FAULT_KINDS)})"
        )
    refused = sorted(asked - set(site.allowed_fault_kinds))
    if refused:
        raise ValueError(
            f"{name}'s text cannot show the fault kind(s) {', '.join(refused)}"
            f" (it can show: {', '.join(site.allowed_fault_kinds)})"
        )
    if not asked:
        raise ValueError("--fault-kinds names no fault kind")
    return tuple(kind for kind in ALL_FAULT_KINDS if kind in asked)
