"""Rake schedules as data: TOML files of rules that say what rake a cash hand owes.

A site's payments team knows the schedule it charges; hilo cannot. So a schedule is a file
(``hilo audit --rake-schedule FILE``, ``hilo generate --rake-schedule FILE``), and the schedules
hilo knows from public sources are such files shipped in the package (``auto``: real sites by
era and stake; ``generated``: what ``hilo generate`` takes by default). The format, with a
worked example, is in ``docs/rake.md``.

A schedule is a list of ``[[rule]]`` tables; the first rule whose conditions all hold applies:

- conditions (each optional): ``site``, ``game`` (``cash`` | ``tournament``), ``limit`` (a list of
  ``FL``/``PL``/``NL``), ``currency``, ``big_blind = [low, high]`` (in the currency's units,
  inclusive), ``since``/``until`` (dates, inclusive), ``players = [low, high]`` (players dealt in);
- the rake: ``percent`` (an exact decimal, ``"5"`` or ``"4.5"``) rounded to the currency's minor
  unit ``down``, ``half-even`` or ``up``; or ``increment``/``per`` (``increment = "0.01"``,
  ``per = "0.20"``: one cent for every full 20 cents of pot); ``cap`` (in the currency's units);
  ``no_flop_no_drop`` (default true); ``from`` = ``main-first`` (the main pot, then side pots in
  order), ``each-pot`` (every pot in proportion to its size) or ``running-total`` (pot by pot,
  main first, the rule's rake of the running total of the gross pots);
- ``check`` = ``exact`` (default: the rake must be what the rule says) or ``cap`` (the rule's
  percentage is not trusted, only its cap and no flop no drop are checked).

A hand no rule matches is checked for no flop no drop only. Amounts are exact: decimals are read
as text, never as floats.
"""

from __future__ import annotations

import datetime as dt
import functools
import tomllib
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from importlib import resources
from pathlib import Path
from typing import Any

__all__ = [
    "RAKE_SOURCES",
    "ROUNDINGS",
    "RakeSchedule",
    "ScheduleError",
    "ScheduleRule",
    "load_schedule",
    "schedule_names",
]

ROUNDINGS = ("down", "half-even", "up")
RAKE_SOURCES = ("main-first", "each-pot", "running-total")
CHECKS = ("exact", "cap")
GAMES = ("cash", "tournament")
LIMIT_TYPES = ("FL", "PL", "NL")
SHIPPED = {"auto": "auto.toml", "generated": "generated.toml"}
_KEYS = {
    "site", "game", "limit", "currency", "big_blind", "since", "until", "players", "percent",
    "rounding", "increment", "per", "cap", "no_flop_no_drop", "from", "check", "note",
}  # fmt: skip


class ScheduleError(ValueError):
    """A schedule file that cannot be read: the message names the file, the rule and the key."""


@dataclass(frozen=True, slots=True)
class ScheduleRule:
    """One ``[[rule]]`` of a schedule (see the module docstring for each field)."""

    number: int  # 1-based, in file order: the first matching rule applies
    site: str | None = None
    game: str | None = None
    limits: tuple[str, ...] | None = None
    currency: str | None = None
    big_blind: tuple[Decimal, Decimal] | None = None
    since: dt.date | None = None
    until: dt.date | None = None
    players: tuple[int, int] | None = None
    percent: Fraction = Fraction(0)
    rounding: str = "half-even"
    increment: Decimal | None = None
    per: Decimal | None = None
    cap: Decimal | None = None
    no_flop_no_drop: bool = True
    source: str = "main-first"
    check: str = "exact"

    def matches(
        self,
        site: str,
        tournament: bool,
        limit_type: str | None,
        currency: str | None,
        big_blind: Decimal | None,
        day: dt.date | None,
        players: int | None,
    ) -> bool:
        """Whether a hand with these facts falls under this rule (an unknown fact never does
        when the rule names a condition on it)."""
        if self.site is not None and site != self.site:
            return False
        if self.game is not None and (self.game == "tournament") != tournament:
            return False
        if self.limits is not None and limit_type not in self.limits:
            return False
        if self.currency is not None and currency != self.currency:
            return False
        if self.big_blind is not None and not (
            big_blind is not None and self.big_blind[0] <= big_blind <= self.big_blind[1]
        ):
            return False
        if self.since is not None and not (day is not None and day >= self.since):
            return False
        if self.until is not None and not (day is not None and day <= self.until):
            return False
        return self.players is None or (
            players is not None and self.players[0] <= players <= self.players[1]
        )

    def minor(self, amount: Decimal, scale: int) -> int:
        """An amount in the currency's units as minor units (exact, or a ScheduleError)."""
        value = amount * scale
        if value != value.to_integral_value():
            raise ScheduleError(f"rule {self.number}: {amount} is not a whole number of minor units")
        return int(value)

    def rake(self, pot: int, scale: int, saw_flop: bool) -> int:
        """The rake this rule takes from a hand's ``pot`` (minor units, after uncalled returns).

        >>> rule = ScheduleRule(1, percent=Fraction(5, 100), cap=Decimal("3.00"))
        >>> rule.rake(1250, 100, True), rule.rake(4150, 100, True), rule.rake(10_000, 100, True)
        (62, 208, 300)
        >>> ScheduleRule(2, increment=Decimal("0.01"), per=Decimal("0.20")).rake(1259, 100, True)
        62
        """
        if self.no_flop_no_drop and not saw_flop:
            return 0
        if self.increment is not None and self.per is not None:
            rake = self.minor(self.increment, scale) * (pot // self.minor(self.per, scale))
        else:
            rake = _rounded(pot * self.percent, self.rounding)
        if self.cap is not None:
            rake = min(rake, self.minor(self.cap, scale))
        return rake

    def cap_minor(self, scale: int) -> int | None:
        return None if self.cap is None else self.minor(self.cap, scale)


def _rounded(value: Fraction, rounding: str) -> int:
    quotient, remainder = divmod(value.numerator, value.denominator)
    if remainder == 0 or rounding == "down":
        return quotient
    if rounding == "up":
        return quotient + 1
    twice = 2 * remainder
    if twice > value.denominator or (twice == value.denominator and quotient % 2 == 1):
        return quotient + 1
    return quotient


@dataclass(frozen=True, slots=True)
class RakeSchedule:
    """The rules of one schedule file, in order."""

    name: str
    rules: tuple[ScheduleRule, ...]

    def rule_for(
        self,
        site: str,
        tournament: bool,
        limit_type: str | None,
        currency: str | None,
        big_blind: Decimal | None,
        day: dt.date | None,
        players: int | None,
    ) -> ScheduleRule | None:
        """The first rule that matches, or None."""
        for rule in self.rules:
            if rule.matches(site, tournament, limit_type, currency, big_blind, day, players):
                return rule
        return None


def schedule_names() -> tuple[str, ...]:
    """The names of the shipped schedules (``auto``, ``generated``)."""
    return tuple(SHIPPED)


def load_schedule(name_or_path: str | Path) -> RakeSchedule:
    """A shipped schedule by name, or a schedule file; ScheduleError when it cannot be read."""
    if str(name_or_path) in SHIPPED:
        text = resources.files("pipeline").joinpath("rake", SHIPPED[str(name_or_path)]).read_text(
            encoding="utf-8"
        )
        return _parsed(str(name_or_path), text)
    path = Path(name_or_path)
    try:
        stat = path.stat()
    except OSError as error:
        raise ScheduleError(f"rake schedule {path}: {error.strerror or error}") from None
    return _cached(str(path.resolve()), stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=16)
def _cached(path: str, mtime: int, size: int) -> RakeSchedule:
    if size > 1 << 20:
        raise ScheduleError(f"rake schedule {path}: larger than 1 MiB")
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ScheduleError(f"rake schedule {path}: {error}") from None
    return _parsed(path, text)


@functools.lru_cache(maxsize=16)
def _parsed(name: str, text: str) -> RakeSchedule:
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ScheduleError(f"rake schedule {name}: not TOML: {error}") from None
    unknown_tables = set(document) - {"rule"}
    if unknown_tables:
        raise ScheduleError(f"rake schedule {name}: unknown keys {sorted(unknown_tables)}")
    rules = document.get("rule", [])
    if not isinstance(rules, list) or not all(isinstance(rule, dict) for rule in rules):
        raise ScheduleError(f"rake schedule {name}: 'rule' must be a list of [[rule]] tables")
    try:
        return RakeSchedule(name, tuple(_rule(number, rule) for number, rule in enumerate(rules, 1)))
    except ScheduleError as error:
        raise ScheduleError(f"rake schedule {name}: {error}") from None


def _rule(number: int, table: dict[str, Any]) -> ScheduleRule:
    def fail(message: str) -> ScheduleError:
        return ScheduleError(f"rule {number}: {message}")

    unknown = set(table) - _KEYS
    if unknown:
        raise fail(f"unknown keys {sorted(unknown)}")
    rounding = _choice(table, "rounding", ROUNDINGS, "half-even", fail)
    source = _choice(table, "from", RAKE_SOURCES, "main-first", fail)
    check = _choice(table, "check", CHECKS, "exact", fail)
    game = _choice(table, "game", GAMES, None, fail)
    limits = table.get("limit")
    if limits is not None:
        limits = [limits] if isinstance(limits, str) else limits
        if not isinstance(limits, list) or not limits or any(v not in LIMIT_TYPES for v in limits):
            raise fail(f"limit must be a list of {', '.join(LIMIT_TYPES)}")
    percent = _decimal(table, "percent", fail)
    increment, per = _decimal(table, "increment", fail), _decimal(table, "per", fail)
    if (increment is None) != (per is None):
        raise fail("increment and per go together")
    if percent is None and increment is None:
        raise fail("a rule needs percent, or increment and per")
    if percent is not None and increment is not None:
        raise fail("percent or increment and per, not both")
    if percent is not None and not Decimal(0) <= percent <= Decimal(100):
        raise fail(f"percent must be between 0 and 100, got {percent}")
    if per is not None and per <= 0:
        raise fail("per must be above 0")
    nfnd = table.get("no_flop_no_drop", True)
    if not isinstance(nfnd, bool):
        raise fail("no_flop_no_drop must be true or false")
    for key in ("site", "currency", "note"):
        if key in table and not isinstance(table[key], str):
            raise fail(f"{key} must be text")
    return ScheduleRule(
        number=number,
        site=table.get("site"),
        game=game,
        limits=tuple(limits) if limits is not None else None,
        currency=table.get("currency"),
        big_blind=_decimal_range(table, "big_blind", fail),
        since=_date(table, "since", fail),
        until=_date(table, "until", fail),
        players=_players(table, fail),
        percent=Fraction(percent) / 100 if percent is not None else Fraction(0),
        rounding=rounding,
        increment=increment,
        per=per,
        cap=_decimal(table, "cap", fail),
        no_flop_no_drop=nfnd,
        source=source,
        check=check,
    )


def _choice(table: dict[str, Any], key: str, allowed: tuple[str, ...], default: Any, fail: Any) -> Any:
    value = table.get(key, default)
    if value is not default and value not in allowed:
        raise fail(f"{key} must be one of {', '.join(allowed)}, got {value!r}")
    return value


def _decimal(table: dict[str, Any], key: str, fail: Any) -> Decimal | None:
    value = table.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise fail(f"{key} must be an exact decimal written as text, such as \"5\" or \"0.50\"")
    try:
        number = Decimal(str(value).strip())
    except InvalidOperation:
        raise fail(f"{key} is not a decimal: {value!r}") from None
    if not number.is_finite() or number < 0:
        raise fail(f"{key} must be a finite amount >= 0, got {value!r}")
    return number


def _decimal_range(table: dict[str, Any], key: str, fail: Any) -> tuple[Decimal, Decimal] | None:
    value = table.get(key)
    if value is None:
        return None
    if not isinstance(value, list) or len(value) != 2:
        raise fail(f"{key} must be [low, high]")
    low, high = (_decimal({key: item}, key, fail) for item in value)
    assert low is not None and high is not None
    if low > high:
        raise fail(f"{key}: low above high")
    return low, high


def _players(table: dict[str, Any], fail: Any) -> tuple[int, int] | None:
    value = table.get("players")
    if value is None:
        return None
    if (
        not isinstance(value, list)
        or len(value) != 2
        or not all(isinstance(item, int) and not isinstance(item, bool) for item in value)
        or not 1 <= value[0] <= value[1] <= 10
    ):
        raise fail("players must be [low, high] with 1 <= low <= high <= 10")
    return value[0], value[1]


def _date(table: dict[str, Any], key: str, fail: Any) -> dt.date | None:
    value = table.get(key)
    if value is None:
        return None
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    if isinstance(value, str):
        try:
            return dt.date.fromisoformat(value)
        except ValueError:
            pass
    raise fail(f"{key} must be a date (2012-01-01)")
