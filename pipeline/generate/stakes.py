"""Stakes, blind levels, the rake of cash tables, table and player names used by the generator.

Everything here is data: the PokerStars-like structures the simulated tables play with. Money is
in the table's minor unit (cents for cash games, chips for tournaments). The rake is a schedule
file (`pipeline.rake_schedules`, ``docs/rake.md``): ``hilo generate --rake-schedule FILE``,
``generated`` (``pipeline/rake/generated.toml``) unless told otherwise.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from decimal import Decimal
from functools import lru_cache

from pipeline.rake_schedules import RakeSchedule, ScheduleError, ScheduleRule

__all__ = [
    "BLIND_LEVELS",
    "CASH_STAKES",
    "FIXED_LIMIT_LEVELS",
    "HEADS_UP_RAISE_LIMIT",
    "NAME_PARTS",
    "RAISE_CAP",
    "TABLE_STEMS",
    "TOURNAMENT_BUY_INS",
    "CASH_SCALE",
    "EDT_OFFSET",
    "CashRake",
    "Stakes",
    "check_schedule",
    "roman",
]

# Cash money is in cents (dollars and euros alike): the schedule's amounts are read at this scale.
CASH_SCALE = 100
# The simulator's clock is Eastern summer time (`pipeline.generate.EPOCH`): four hours behind
# UTC. A schedule's ``since``/``until`` are days in UTC, as the parsers store ``started_at``.
EDT_OFFSET = dt.timedelta(hours=4)

# PokerStars fixed limit: a bet and three raises (the big blind counts as the first bet preflop).
RAISE_CAP = 4
# Where a site lifts the cap heads-up (cash games only, never PokerStars:
# `pipeline.generate.sites`), the simulator still stops at this many bets so the text stays
# plausible.
HEADS_UP_RAISE_LIMIT = 7


@dataclass(frozen=True, slots=True)
class Stakes:
    """The money structure of one hand.

    Attributes
    ----------
    limit_type
        ``FL``, ``PL`` or ``NL``.
    small_blind, big_blind
        Blind posts.
    small_bet, big_bet
        Fixed-limit bet sizes (preflop and flop / turn and river); the big blind otherwise.
    ante
        Ante per player (tournaments only; 0 for none).
    header_low, header_high
        The two figures PokerStars prints in the header: the bets in fixed limit, the blinds
        otherwise.
    """

    limit_type: str
    small_blind: int
    big_blind: int
    small_bet: int
    big_bet: int
    ante: int = 0

    @property
    def header_low(self) -> int:
        """First header figure."""
        return self.small_bet if self.limit_type == "FL" else self.small_blind

    @property
    def header_high(self) -> int:
        """Second header figure."""
        return self.big_bet if self.limit_type == "FL" else self.big_blind


def _fixed(small_bet: int, big_bet: int, small_blind: int, big_blind: int) -> Stakes:
    return Stakes("FL", small_blind, big_blind, small_bet, big_bet)


def _blinds(limit_type: str, small_blind: int, big_blind: int) -> Stakes:
    return Stakes(limit_type, small_blind, big_blind, big_blind, big_blind)


# Cash stakes in cents. Fixed-limit blinds follow PokerStars (payout-rules B1/B1x: $5/$10 posts
# $2/$5, so the small blind is not always half the small bet).
CASH_STAKES: dict[str, tuple[Stakes, ...]] = {
    "FL": (
        _fixed(2, 4, 1, 2),
        _fixed(4, 8, 2, 4),
        _fixed(10, 20, 5, 10),
        _fixed(25, 50, 10, 25),
        _fixed(50, 100, 25, 50),
        _fixed(100, 200, 50, 100),
        _fixed(300, 600, 100, 300),
        _fixed(500, 1000, 200, 500),
    ),
    "PL": tuple(
        _blinds("PL", sb, bb) for sb, bb in ((1, 2), (2, 5), (5, 10), (10, 25), (25, 50), (50, 100))
    ),
    "NL": tuple(_blinds("NL", sb, bb) for sb, bb in ((1, 2), (2, 5), (5, 10), (10, 25), (25, 50))),
}

# Tournament levels (small blind, big blind, ante when the tournament plays antes).
BLIND_LEVELS: tuple[tuple[int, int, int], ...] = (
    (10, 20, 0),
    (15, 30, 0),
    (25, 50, 5),
    (50, 100, 10),
    (75, 150, 15),
    (100, 200, 25),
    (150, 300, 25),
    (200, 400, 50),
    (300, 600, 75),
    (400, 800, 100),
    (600, 1200, 150),
    (800, 1600, 200),
    (1000, 2000, 250),
    (1500, 3000, 300),
    (2000, 4000, 500),
    (3000, 6000, 600),
    (4000, 8000, 1000),
)
# Fixed-limit tournament levels (small bet, big bet); blinds are half and all of the small bet.
FIXED_LIMIT_LEVELS: tuple[tuple[int, int], ...] = (
    (20, 40),
    (30, 60),
    (50, 100),
    (100, 200),
    (150, 300),
    (200, 400),
    (300, 600),
    (400, 800),
    (600, 1200),
    (1000, 2000),
    (1500, 3000),
    (2000, 4000),
    (3000, 6000),
    (4000, 8000),
)

# Buy-ins as PokerStars prints them (prize pool + fee [+ bounty]) and the prize paid to the winner.
TOURNAMENT_BUY_INS: tuple[str, ...] = (
    "$1.08+$0.27+$0.15 USD",
    "$3.19+$0.31 USD",
    "$6.50+$0.50 USD",
    "$0.98+$0.02 USD",
    "$14.29+$0.71 USD",
)


@dataclass(frozen=True, slots=True, eq=False)
class CashRake:
    """The rake schedule as one cash table sees it: the facts a rule can test that stay the same
    for the whole session (site, cash, limit, currency, big blind), the rest per hand.

    `rule_for` gives the first rule of the schedule matching a hand started on ``day`` (UTC)
    with ``players`` dealt in, as the audit looks it up from the parsed hand
    (`pipeline.audit`); None: no rule, no rake.
    """

    schedule: RakeSchedule
    site: str
    currency: str
    limit_type: str
    big_blind: int  # minor units (`CASH_SCALE`)
    _rules: dict[tuple[dt.date, int], ScheduleRule | None] = field(
        default_factory=dict, repr=False
    )

    def rule_for(self, day: dt.date, players: int) -> ScheduleRule | None:
        """The rule of a hand (looked up once per day and number of players)."""
        key = (day, players)
        try:
            return self._rules[key]
        except KeyError:
            rule = self.schedule.rule_for(
                self.site,
                False,
                self.limit_type,
                self.currency,
                Decimal(self.big_blind) / CASH_SCALE,
                day,
                players,
            )
            self._rules[key] = rule
            return rule


def check_schedule(schedule: RakeSchedule, site: str) -> None:
    """Refuse, before any hand is played, a rule that could rake this site's cash hands with an
    amount that is not a whole number of cents (``cap = "0.005"``): a ScheduleError naming the
    schedule and the rule."""
    for rule in schedule.rules:
        if rule.game == "tournament" or rule.site not in (None, site):
            continue
        try:
            for amount in (rule.cap, rule.increment, rule.per):
                if amount is not None:
                    rule.minor(amount, CASH_SCALE)
        except ScheduleError as error:
            raise ScheduleError(f"rake schedule {schedule.name}: {error}") from None


TABLE_STEMS: tuple[str, ...] = (
    "Gaby", "Sualocin", "Jiangxi", "Latona", "Gutemberga", "Aaltje", "Bellatrix", "Carina",
    "Dione", "Elektra", "Fornax", "Galatea", "Hydra", "Ixion", "Juno", "Kallisto", "Lyra",
    "Mensa", "Nemesis", "Oberon", "Pavo", "Quirinus", "Rhea", "Sagitta", "Tethys", "Urania",
    "Vela", "Wezen", "Xanthe", "Ymir", "Zosma", "Achernar", "Bootes", "Castor", "Deneb",
    "Eltanin", "Fomalhaut", "Gienah", "Hadar", "Izar", "Kochab", "Lesath", "Markab", "Nashira",
    "Okul", "Phact", "Rigel", "Sabik", "Thuban", "Unuk", "Vindemiatrix", "Wasat", "Zaniah",
)  # fmt: skip

# Player names are built from a first part and a suffix; some contain spaces, dots, dashes and
# digits like real screen names (never ": ", " collected " or brackets, which PokerStars forbids).
NAME_PARTS: tuple[tuple[str, ...], tuple[str, ...]] = (
    (
        "tredex", "APTEM", "Sooners", "barlowdog", "Jorge", "VORON", "Lord Minge", "StaKuGor",
        "UnderMe", "supermeXXX", "xgz", "tiger", "EricSteph", "diyi", "RadRandy", "toxic",
        "jthegreat", "CoinJock", "ros-r-reed", "skinner", "Mr NoNo", "2TONTOM", "Pike",
        "low.ball", "wheelie", "Scoopy", "quarterback", "nut_low", "Hi Lo Joe", "Omaha_Mama",
        "dfcastro.net", "Kel Playa", "grinder", "fishy", "sharkbait", "eight.or.better", "A2345",
        "counterfeit", "backdoor", "Bicycle", "Rivera", "turnip", "flopzilla", "Ms Split",
    ),
    ("", "1", "7", "83", "89", "99", "2009", "_x", "-ru", "76", "11", "42", "_nl", "007", "13"),
)  # fmt: skip

_ROMAN = (
    (1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"),
    (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I"),
)  # fmt: skip


@lru_cache(maxsize=256)
def roman(number: int) -> str:
    """Roman numeral of a positive integer (PokerStars numbers tables and levels this way).

    >>> roman(1), roman(4), roman(14), roman(2011)
    ('I', 'IV', 'XIV', 'MMXI')
    """
    parts: list[str] = []
    for value, symbol in _ROMAN:
        count, number = divmod(number, value)
        parts.append(symbol * count)
    return "".join(parts)
