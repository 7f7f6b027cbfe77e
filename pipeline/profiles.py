"""Per-site rule parameters: split unit, rake schedule, raise cap, how payouts are printed.

The payout rules (payout-rules.md P1-P9, K1-K4) are the same everywhere; what differs between
sites is captured by a small `SiteProfile`. The rake schedules the audit and the generator use
are data (`pipeline.rake_schedules`, docs/rake.md, `pipeline/rake/*.toml`); the `RakeRule`s
here are the scalar reference settlement's (`pipeline.rules.settle`) and the tests' independent
statement of the same schedules.
"""

from __future__ import annotations

from dataclasses import dataclass

from pipeline.rake_schedules import RAKE_SOURCES

__all__ = [
    "PROFILES",
    "RAKE_ROUNDINGS",
    "RakeRule",
    "SiteProfile",
    "generated_rake_rule",
    "site_profile",
]

RAKE_ROUNDINGS = ("half_even", "floor", "increment")
PAYOUT_LINES = ("per_half", "per_pot", "per_player")


@dataclass(frozen=True, slots=True)
class RakeRule:
    """How a cash-game rake is taken from a pot (payout-rules.md K1-K3).

    Attributes
    ----------
    percent_basis_points
        Rake percentage in hundredths of a percent: 500 = 5 %.
    caps
        ``(minimum players dealt, cap in minor units)`` in increasing order of players, e.g.
        ``((2, 50), (3, 100), (5, 200))``. The cap for n players dealt in is the last entry
        whose minimum is <= n. Empty = no cap.
    no_flop_no_drop
        No rake when the hand ends in the first betting round (K1).
    rounding
        ``"half_even"``: a true percentage rounded half to even at the minor unit (PokerStars
        since 2012); ``"floor"``: a true percentage rounded down; ``"increment"``: the rake grows
        by `increment` units per full ``increment * 10000 / percent`` of pot (PokerStars before
        2012: 5 cents per full dollar).
    increment
        Step of the ``"increment"`` rounding, in minor units.
    """

    percent_basis_points: int
    caps: tuple[tuple[int, int], ...]
    no_flop_no_drop: bool = True
    rounding: str = "half_even"
    increment: int = 1

    def __post_init__(self) -> None:
        if self.percent_basis_points < 0:
            raise ValueError(f"percent_basis_points must be >= 0, got {self.percent_basis_points}")
        if self.rounding not in RAKE_ROUNDINGS:
            raise ValueError(f"rounding must be one of {RAKE_ROUNDINGS}, got {self.rounding!r}")
        if self.increment < 1:
            raise ValueError(f"increment must be >= 1, got {self.increment}")
        minimums = [minimum for minimum, _ in self.caps]
        if minimums != sorted(set(minimums)):
            raise ValueError(f"caps must be in strictly increasing order of players: {self.caps}")
        if any(cap < 0 for _, cap in self.caps):
            raise ValueError(f"caps must be >= 0: {self.caps}")

    def cap_for(self, players_dealt: int) -> int | None:
        """Cap for a hand with ``players_dealt`` players dealt in; None when uncapped.

        Below the first entry's minimum (a schedule that starts at 3 players, say), the first
        entry's cap applies: the smallest cap is the one meant for the fewest players.

        Examples
        --------
        >>> RakeRule(500, ((2, 50), (3, 100), (5, 200))).cap_for(4)
        100
        """
        if not self.caps:
            return None
        cap = self.caps[0][1]
        for minimum, entry_cap in self.caps:
            if minimum <= players_dealt:
                cap = entry_cap
        return cap


@dataclass(frozen=True, slots=True)
class SiteProfile:
    """The parameters of the rules that vary by site (and stake, and period).

    Attributes
    ----------
    site
        Site code as in ``hands.site``.
    odd_chip_unit
        The table's smallest unit for splitting, in minor units (P9): 1 cent online, 5 cents
        at Full Tilt's $0.50/$1 limit tables, 1 chip in tournaments.
    halves_labelled
        Whether the site labels each collected line high or low (site-formats.md §1.1).
    total_pot_is_gross
        Whether the printed total pot includes the rake.
    raise_cap
        Bets per street in fixed limit, the opening bet included; None = unlimited.
    heads_up_uncapped
        Whether the cap is lifted when the betting is heads-up before it is reached (B2).
    rake
        The rake schedule; None for tournaments, play money and unknown schedules.
    payout_lines
        How collected amounts are printed (site-formats.md §1.1): ``"per_half"`` one line per
        half per pot (labelled or not), ``"per_pot"`` halves summed per pot and player,
        ``"per_player"`` one total per player.
    rake_printed
        Whether the site prints the rake; when it does not, the audit infers it as the chips
        put in less the chips paid out, and checks that inferred rake instead.
    uncalled_printed
        Whether an uncalled bet's return is in the text (as a return line or as a won pot);
        when it is not, the audit returns the unmatched part of the largest contribution itself.
    description_style
        The wording of printed hand descriptions the audit can check (``"pokerstars"``);
        None when the site's wording is not checked.
    rake_from
        Which pots the rake comes from when no schedule rule says (docs/rake.md):
        ``"main-first"`` (payout-rules K4), ``"each-pot"`` (every pot in proportion to its
        size: Bovada's side pots show their share of the rake) or ``"running-total"`` (pot by
        pot on the running total of the gross pots: PokerStars; without a rule's rate, each
        pot's rake is its gross amount less the net amount the site printed).
    blinds_in_collected
        Whether the unmatched part of a blind, never printed as a return, is paid inside its
        owner's ``collected`` line when everyone folds to it (888poker: ``collected [ $3 ]``
        after a walk at $1/$2); the audit takes it out of that line before comparing. An
        unmatched bet or raise is returned apart at such a site.
    low_spare_to_high
        Whether the units a low half shared by tied players cannot split evenly go to the high
        half's winner instead of one each to the first low winners clockwise (payout-rules P5):
        Bovada, in both corpus hands with a tied low and an odd unit.
    tied_halves_apart
        Whether the same players tying both halves share each half on its own (the first of
        them clockwise getting each half's spare unit) instead of the whole pot evenly (P6):
        PokerNow, which prints one line per half and player.
    sole_pots_printed
        Whether a pot only one player can win (the others put chips in and folded) is printed
        when that player takes it; KingsClub gives it back without a line, as it does an
        uncalled bet, and its summary's nets show the player paid.
    hand_counter
        A regular expression whose first group, over a hand's id, is its table's count of hands
        dealt, where the site's ids carry one (Winamax: ``9247976-232-1478874498`` is hand 232
        of table 9247976; the 20 hands of one table's 2022 export count 1065 to 1077 and 1083
        to 1089, the six missing ones 3 min 43 s apart): two hands of a table whose counts do
        not follow have hands between them, so the button check does not pair them.
    """

    site: str
    odd_chip_unit: int = 1
    halves_labelled: bool = False
    total_pot_is_gross: bool = True
    raise_cap: int | None = 4
    heads_up_uncapped: bool = True
    rake: RakeRule | None = None
    payout_lines: str = "per_half"
    rake_printed: bool = True
    uncalled_printed: bool = True
    description_style: str | None = None
    rake_from: str = "main-first"
    blinds_in_collected: bool = False
    sole_pots_printed: bool = True
    low_spare_to_high: bool = False
    tied_halves_apart: bool = False
    hand_counter: str | None = None

    def __post_init__(self) -> None:
        if self.payout_lines not in PAYOUT_LINES:
            raise ValueError(f"payout_lines must be one of {PAYOUT_LINES}, got {self.payout_lines!r}")
        if self.odd_chip_unit < 1:
            raise ValueError(f"odd_chip_unit must be >= 1, got {self.odd_chip_unit}")
        if self.rake_from not in RAKE_SOURCES:
            raise ValueError(f"rake_from must be one of {RAKE_SOURCES}, got {self.rake_from!r}")
        if self.raise_cap is not None and self.raise_cap < 1:
            raise ValueError(f"raise_cap must be >= 1 or None, got {self.raise_cap}")


# PokerStars since 2012, pot- and no-limit $0.01/$0.02: a true percentage of 3.5 % rounded half
# to even, capped at $0.30 whatever the number of players (pokerstars.in/poker/room/rake/ for
# the rounding; the $0.01/$0.02 row of Stars' published tables for rate and cap). Matches the
# 2025 corpus hand #258753941248: pot $0.97, rake $0.03. Higher stakes have other rates and
# caps: build a RakeRule for them rather than trusting this one.
POKERSTARS_MICRO_RAKE = RakeRule(percent_basis_points=350, caps=((2, 30),))

# PokerStars before 2012, pot- and no-limit micro stakes: 5 %, taken 5 cents per full dollar
# (rakeback.com, "PokerStars rake structure"), capped at $0.50 heads-up and $2 otherwise; the
# 3-4 player step of the old table is not documented in our sources. Matches the 2009-2010
# corpus hands ($4.85 -> $0.20, pots under $1 unraked).
POKERSTARS_2009_MICRO_RAKE = RakeRule(
    percent_basis_points=500, caps=((2, 50), (3, 200)), rounding="increment", increment=5
)

# PokerStars 2005, fixed limit $5/$10: $1 per full $20 of pot, capped at $3 ("mid stakes" in
# the same source). Fits the one 2005 corpus hand (pot $35, rake $1); the heads-up cap of that
# schedule is unknown, so none is modelled.
POKERSTARS_2005_LIMIT_RAKE = RakeRule(
    percent_basis_points=500, caps=((2, 300),), rounding="increment", increment=100
)

PROFILES: dict[str, SiteProfile] = {
    # The default PokerStars cash profile: the current schedule at the smallest stake.
    "pokerstars": SiteProfile(site="pokerstars", rake=POKERSTARS_MICRO_RAKE),
    "pokerstars-2009-micro": SiteProfile(site="pokerstars", rake=POKERSTARS_2009_MICRO_RAKE),
    "pokerstars-2005-limit": SiteProfile(site="pokerstars", rake=POKERSTARS_2005_LIMIT_RAKE),
    # Tournaments take their fee from the buy-in, never from pots; the heads-up uncapping of
    # fixed-limit betting is "typically not for a tournament" (BARGE, B2).
    "pokerstars-tournament": SiteProfile(site="pokerstars", rake=None, heads_up_uncapped=False),
    # A site-neutral profile without rake, for generated hands and tournaments elsewhere.
    "no-rake": SiteProfile(site="generic", rake=None),
}


def generated_rake_rule(big_blind: int) -> RakeRule:
    """The rake `hilo generate` takes at a cash stake: 5 % rounded half to even, capped by
    players dealt in and stake (docs/faults.md)."""
    if big_blind <= 5:
        caps = ((2, 30), (3, 50), (5, 100))
    elif big_blind <= 25:
        caps = ((2, 50), (3, 100), (5, 150))
    else:
        caps = ((2, 100), (3, 200), (5, 300))
    return RakeRule(500, caps)


def site_profile(site: str) -> SiteProfile:
    """The profile a site's parser declares (``PROFILE`` next to it), else a known one here.

    Parsers record what each site prints; how the site prints payouts (labelled halves, gross
    or net total, split unit) is declared beside each parser so the audit compares at the
    right granularity.
    """
    import parsers

    for parser in parsers.PARSERS:
        declared = getattr(parser, "profile", None)
        if parser.site == site and isinstance(declared, SiteProfile):
            return declared
    return PROFILES.get(site, PROFILES["no-rake"])
