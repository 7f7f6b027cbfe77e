"""Deliberate payout and text errors, injected so that the audit has something to find.

A fault changes what the hand history *records* (who collected what, the rake, a printed hand
description) while the text stays internally consistent: collected lines, the summary's
``won (x)`` amounts, ``Total pot``/``Main pot``/``Side pot`` and ``Rake`` all agree with each other
and with the chips put in. Only re-evaluating the cards (or, for the rake, checking it against the
rake schedule) shows the error. The stable codes and what each one means are in ``docs/faults.md``.

The rake faults are only injected where the hand's rake schedule (``hilo generate
--rake-schedule``) gives a rule for the hand: a hand no rule covers is never raked, and the audit
would have no amount to hold the text to.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pipeline.generate.showdown import (
    HALF_HIGH,
    HALF_LOW,
    HALF_SCOOP,
    Pot,
    Share,
    running_total_of,
    split_pots,
    take_rake,
)
from pipeline.rake_schedules import ScheduleRule

__all__ = [
    "ALL_FAULT_KINDS",
    "FAULT_KINDS",
    "OPTIONAL_FAULT_KINDS",
    "RAKE_FAULTS",
    "FaultContext",
    "InjectedFault",
    "choose_fault",
]

ODD_CHIP_WRONG_PLAYER = "odd_chip_wrong_player"
LOW_TO_WRONG_PLAYER = "low_to_wrong_player"
HIGH_TO_SECOND_BEST = "high_to_second_best"
NO_SPLIT_WITH_LOW = "no_split_with_low"
SIDE_POT_INELIGIBLE = "side_pot_ineligible"
RAKE_OVER_CAP = "rake_over_cap"
RAKE_NO_FLOP = "rake_no_flop"
RAKE_UNDER_SCHEDULE = "rake_under_schedule"
DESCRIPTION_MISMATCH = "description_mismatch"

NO_PLAYER = -1  # a fault about the hand (the rake), not about one player

FAULT_KINDS: tuple[str, ...] = (
    ODD_CHIP_WRONG_PLAYER,
    LOW_TO_WRONG_PLAYER,
    HIGH_TO_SECOND_BEST,
    NO_SPLIT_WITH_LOW,
    SIDE_POT_INELIGIBLE,
    RAKE_OVER_CAP,
    RAKE_NO_FLOP,
    DESCRIPTION_MISMATCH,
)
# Kinds injected only when asked for (``hilo generate --fault-kinds``): adding them to the
# default draw would change which fault every faulted hand of an existing archive gets.
OPTIONAL_FAULT_KINDS: tuple[str, ...] = (RAKE_UNDER_SCHEDULE,)
ALL_FAULT_KINDS: tuple[str, ...] = FAULT_KINDS + OPTIONAL_FAULT_KINDS
RAKE_FAULTS: tuple[str, ...] = (RAKE_OVER_CAP, RAKE_NO_FLOP, RAKE_UNDER_SCHEDULE)


@dataclass(frozen=True, slots=True)
class FaultContext:
    """A settled hand as the simulator knows it (players by ring index)."""

    players: tuple[str, ...]
    pots: tuple[Pot, ...]
    amounts: tuple[int, ...]  # pot amounts after rake
    shares: tuple[Share, ...]
    rake: int
    high: tuple[int, ...]
    low: tuple[int, ...]
    folded: tuple[bool, ...]
    showdown: bool
    saw_flop: bool
    rake_rule: ScheduleRule | None  # the schedule's rule for the hand; None: no rule, no rake
    players_dealt: int
    total_pot: int  # after uncalled bets went back: what the rule rakes
    unit: int = 1  # the table's smallest unit for splitting (P9)
    scale: int = 100  # minor units per unit of the currency (the rule's amounts)

    @property
    def each_pot(self) -> bool:
        """Whether the rule takes its rake from every pot in proportion (else main pot first)."""
        return self.rake_rule is not None and self.rake_rule.source == "each-pot"

    @property
    def raked(self) -> bool:
        """Whether the rule rakes this hand at all (no flop, no drop aside)."""
        rule = self.rake_rule
        return rule is not None and (self.saw_flop or not rule.no_flop_no_drop)


@dataclass(frozen=True, slots=True)
class InjectedFault:
    """What the text will record instead of the truth, and what was changed."""

    kind: str
    player: int  # ring index of the player the fault is about, NO_PLAYER for the rake
    detail: str
    shares: tuple[Share, ...]
    rake: int
    description_overrides: tuple[tuple[int, str, str], ...] = ()


Injector = Callable[[FaultContext, random.Random], InjectedFault | None]


def _pot_shares(shares: Sequence[Share], pot_index: int) -> list[Share]:
    return [share for share in shares if share.pot_index == pot_index]


def _replace_pot(
    shares: Sequence[Share], pot_index: int, replacement: Sequence[Share]
) -> tuple[Share, ...]:
    """The shares with one pot's payments replaced, keeping the printing order of the pots."""
    result: list[Share] = []
    placed = False
    for share in shares:
        if share.pot_index != pot_index:
            result.append(share)
        elif not placed:
            result.extend(replacement)
            placed = True
    return tuple(result)


def _contested_pots(context: FaultContext) -> list[int]:
    if not context.showdown:
        return []
    return [index for index, pot in enumerate(context.pots) if len(pot.eligible) > 1]


def _odd_chip(context: FaultContext, rng: random.Random) -> InjectedFault | None:
    """Move one odd unit to a player the rules do not give it to (P4 or P5 broken)."""
    names = context.players
    unit = context.unit
    for pot_index in _contested_pots(context):
        shares = _pot_shares(context.shares, pot_index)
        for half in (HALF_HIGH, HALF_LOW, HALF_SCOOP):
            part = [share for share in shares if share.half == half]
            if len(part) < 2:
                continue
            most = max(share.amount for share in part)
            least = min(share.amount for share in part)
            # One spare unit apart (a sub-unit remainder may ride on the first share).
            if not unit <= most - least < 2 * unit:
                continue
            giver = next(share for share in part if share.amount == most)
            taker = next(share for share in part if share.amount == least)
            changed = [
                Share(s.pot_index, s.half, s.player, s.amount - unit)
                if s is giver
                else Share(s.pot_index, s.half, s.player, s.amount + unit)
                if s is taker
                else s
                for s in shares
            ]
            detail = (
                f"pot {pot_index} {half}: odd chip to {names[taker.player]}"
                f" instead of {names[giver.player]}"
            )
            return InjectedFault(
                ODD_CHIP_WRONG_PLAYER,
                taker.player,
                detail,
                _replace_pot(context.shares, pot_index, changed),
                context.rake,
            )
        highs = [share for share in shares if share.half == HALF_HIGH]
        lows = [share for share in shares if share.half == HALF_LOW]
        if (
            len(highs) == 1
            and len(lows) == 1
            and highs[0].player != lows[0].player
            and unit <= highs[0].amount - lows[0].amount < 2 * unit
        ):
            high, low = highs[0], lows[0]
            changed = [
                Share(pot_index, HALF_HIGH, high.player, high.amount - unit),
                Share(pot_index, HALF_LOW, low.player, low.amount + unit),
            ]
            detail = (
                f"pot {pot_index}: odd chip between the halves to the low"
                f" ({names[low.player]}) instead of the high ({names[high.player]})"
            )
            return InjectedFault(
                ODD_CHIP_WRONG_PLAYER,
                low.player,
                detail,
                _replace_pot(context.shares, pot_index, changed),
                context.rake,
            )
    return None


def _low_to_wrong_player(context: FaultContext, rng: random.Random) -> InjectedFault | None:
    """Pay a pot's low half to an eligible player other than the best low."""
    names = context.players
    for pot_index in _contested_pots(context):
        shares = _pot_shares(context.shares, pot_index)
        lows = [share for share in shares if share.half == HALF_LOW]
        if len(lows) != 1:
            continue
        winner = lows[0].player
        others = [p for p in context.pots[pot_index].eligible if p != winner]
        # The second-best low when there is one: the most plausible mistake.
        others.sort(key=lambda p: -context.low[p])
        wrong = others[0]
        changed = [
            Share(s.pot_index, s.half, wrong, s.amount) if s.half == HALF_LOW else s for s in shares
        ]
        detail = f"pot {pot_index} low paid to {names[wrong]} instead of {names[winner]}"
        return InjectedFault(
            LOW_TO_WRONG_PLAYER,
            wrong,
            detail,
            _replace_pot(context.shares, pot_index, changed),
            context.rake,
        )
    return None


def _high_to_second_best(context: FaultContext, rng: random.Random) -> InjectedFault | None:
    """Pay a pot's high half (or the whole pot without a low) to the second-best high."""
    names = context.players
    for pot_index in _contested_pots(context):
        shares = _pot_shares(context.shares, pot_index)
        highs = [share for share in shares if share.half == HALF_HIGH]
        scoops = [share for share in shares if share.half == HALF_SCOOP]
        paid = highs if highs else scoops
        if len(paid) != 1:
            continue
        winner = paid[0].player
        eligible = context.pots[pot_index].eligible
        beaten = [p for p in eligible if context.high[p] < context.high[winner]]
        if not beaten:
            continue
        second_value = max(context.high[p] for p in beaten)
        second = next(p for p in eligible if context.high[p] == second_value)
        changed = [
            Share(s.pot_index, s.half, second, s.amount) if s is paid[0] else s for s in shares
        ]
        half = paid[0].half
        detail = f"pot {pot_index} {half} paid to {names[second]} instead of {names[winner]}"
        return InjectedFault(
            HIGH_TO_SECOND_BEST,
            second,
            detail,
            _replace_pot(context.shares, pot_index, changed),
            context.rake,
        )
    return None


def _no_split(context: FaultContext, rng: random.Random) -> InjectedFault | None:
    """The high hand takes the whole pot although a low qualifies."""
    names = context.players
    for pot_index in _contested_pots(context):
        shares = _pot_shares(context.shares, pot_index)
        highs = [share for share in shares if share.half == HALF_HIGH]
        lows = [share for share in shares if share.half == HALF_LOW]
        if len(highs) != 1 or all(share.player == highs[0].player for share in lows):
            continue  # a scoop by one player would not change who is paid
        winner = highs[0].player
        amount = sum(share.amount for share in shares)
        changed = [Share(pot_index, HALF_SCOOP, winner, amount)]
        losers = ", ".join(names[share.player] for share in lows)
        detail = f"pot {pot_index} not split: {names[winner]} scooped, low of {losers} ignored"
        return InjectedFault(
            NO_SPLIT_WITH_LOW,
            winner,
            detail,
            _replace_pot(context.shares, pot_index, changed),
            context.rake,
        )
    return None


def _side_pot_ineligible(context: FaultContext, rng: random.Random) -> InjectedFault | None:
    """A side pot paid to a player who is only in the main pot (all-in for less)."""
    if not context.showdown or len(context.pots) < 2:
        return None
    names = context.players
    main = context.pots[0].eligible
    for pot_index in range(len(context.pots) - 1, 0, -1):
        eligible = context.pots[pot_index].eligible
        outsiders = [p for p in main if p not in eligible]
        if not outsiders:
            continue
        wrong = outsiders[0]
        amount = context.amounts[pot_index]
        if amount == 0:
            continue
        changed = [Share(pot_index, HALF_SCOOP, wrong, amount)]
        detail = f"side pot {pot_index} paid to {names[wrong]}, who is not eligible for it"
        return InjectedFault(
            SIDE_POT_INELIGIBLE,
            wrong,
            detail,
            _replace_pot(context.shares, pot_index, changed),
            context.rake,
        )
    return None


def _with_rake(context: FaultContext, rake: int) -> tuple[Share, ...]:
    """The same splits with a different rake, taken from the pots as the hand's rule takes it
    (the main pot first, or every pot in proportion): the pots' winners get what it leaves."""
    high = list(context.high)
    low = list(context.low)
    amounts = take_rake(
        context.pots, rake, context.each_pot, running_total_of(context.rake_rule, context.scale)
    )
    return tuple(split_pots(context.pots, amounts, high, low, context.showdown, context.unit))


def _rake_over_cap(context: FaultContext, rng: random.Random) -> InjectedFault | None:
    """More rake than the schedule's rule allows: its cap plus a tenth of it (at least one unit)
    when the rule has a cap; without a cap, the rule's exact amount plus a tenth of it (at
    least one unit), only where the rule is checked exactly (``check = "exact"``)."""
    rule = context.rake_rule
    if rule is None or not context.raked:
        return None
    cap = rule.cap_minor(context.scale)
    if cap is not None:
        rake = cap + max(1, cap // 10)
        detail = (
            f"rake {rake} above the cap {cap} for {context.players_dealt} players"
            f" (correct {context.rake})"
        )
    elif rule.check == "exact":
        rake = context.rake + max(1, context.rake // 10)
        detail = (
            f"rake {rake} above the {context.rake} of schedule rule {rule.number} (no cap)"
            f" for {context.players_dealt} players"
        )
    else:
        return None
    if rake >= context.pots[0].amount:
        return None
    return InjectedFault(RAKE_OVER_CAP, NO_PLAYER, detail, _with_rake(context, rake), rake)


def _rake_no_flop(context: FaultContext, rng: random.Random) -> InjectedFault | None:
    """Rake taken from a hand that ended before the flop (no flop, no drop broken): what the
    rule would take after a flop, at least one unit."""
    rule = context.rake_rule
    if rule is None or context.saw_flop or not rule.no_flop_no_drop:
        return None
    rake = max(1, rule.rake(context.total_pot, context.scale, True))
    if rake >= context.pots[0].amount:
        return None
    detail = f"rake {rake} taken although the hand ended before the flop"
    return InjectedFault(RAKE_NO_FLOP, NO_PLAYER, detail, _with_rake(context, rake), rake)


def _rake_under_schedule(context: FaultContext, rng: random.Random) -> InjectedFault | None:
    """Less rake than the schedule's rule says: its amount less a tenth of it (at least one
    unit), the difference left in the pots for their winners (chips still balance). Only where
    the rule takes a rake (at least one unit) and is checked exactly."""
    rule = context.rake_rule
    if rule is None or rule.check != "exact" or not context.raked or context.rake < 1:
        return None
    rake = context.rake - max(1, context.rake // 10)
    detail = (
        f"rake {rake} below the {context.rake} of schedule rule {rule.number}"
        f" for {context.players_dealt} players ({context.rake - rake} left to the winners)"
    )
    return InjectedFault(RAKE_UNDER_SCHEDULE, NO_PLAYER, detail, _with_rake(context, rake), rake)


def _description_mismatch(context: FaultContext, rng: random.Random) -> InjectedFault | None:
    """A shown hand described as something its cards do not make (high or low part)."""
    from pipeline.generate.pokerstars_text import HIGH_TEXT, LOW_TEXT

    if not context.showdown:
        return None
    shown = [p for p in range(len(context.players)) if not context.folded[p]]
    player = rng.choice(shown)
    high = context.high[player]
    low = context.low[player]
    high_text = HIGH_TEXT[high]
    low_text = LOW_TEXT[low]
    if rng.random() < 0.6:
        while high_text == HIGH_TEXT[high]:
            other = min(
                max(high + rng.choice((-1, 1)) * rng.randint(1, 400), 1), len(HIGH_TEXT) - 1
            )
            high_text = HIGH_TEXT[other]
        what = f"high printed as '{high_text}', cards make '{HIGH_TEXT[high]}'"
    else:
        while low_text == LOW_TEXT[low]:
            low_text = LOW_TEXT[rng.randint(0, len(LOW_TEXT) - 1)]
        printed = low_text or "no low"
        actual = LOW_TEXT[low] or "no low"
        what = f"low printed as '{printed}', cards make '{actual}'"
    detail = f"{context.players[player]}: {what}"
    return InjectedFault(
        DESCRIPTION_MISMATCH,
        player,
        detail,
        context.shares,
        context.rake,
        ((player, high_text, low_text),),
    )


INJECTORS: dict[str, Injector] = {
    ODD_CHIP_WRONG_PLAYER: _odd_chip,
    LOW_TO_WRONG_PLAYER: _low_to_wrong_player,
    HIGH_TO_SECOND_BEST: _high_to_second_best,
    NO_SPLIT_WITH_LOW: _no_split,
    SIDE_POT_INELIGIBLE: _side_pot_ineligible,
    RAKE_OVER_CAP: _rake_over_cap,
    RAKE_NO_FLOP: _rake_no_flop,
    DESCRIPTION_MISMATCH: _description_mismatch,
    RAKE_UNDER_SCHEDULE: _rake_under_schedule,
}


# Kinds that fit few hands (a side pot needs an all-in for less, an odd chip a split with a
# remainder) are preferred when they fit, so that every kind shows up in a modest sample.
RARITY_WEIGHTS = {
    SIDE_POT_INELIGIBLE: 8,
    ODD_CHIP_WRONG_PLAYER: 4,
    RAKE_OVER_CAP: 3,
    NO_SPLIT_WITH_LOW: 2,
}


def choose_fault(
    context: FaultContext, rng: random.Random, kinds: Sequence[str] = FAULT_KINDS
) -> InjectedFault | None:
    """Inject one fault, of a kind chosen at random among ``kinds`` (those a site's text can
    show, `pipeline.generate.sites`) that fit the hand.

    Returns None when no kind fits (e.g. a hand won without a showdown in a tournament): the
    caller then tries again on a later hand, so the share of faulted hands stays as asked.
    """
    candidates = (INJECTORS[kind](context, rng) for kind in ALL_FAULT_KINDS if kind in kinds)
    fitting = [injected for injected in candidates if injected is not None]
    if not fitting:
        return None
    weights = [RARITY_WEIGHTS.get(injected.kind, 1) for injected in fitting]
    return rng.choices(fitting, weights)[0]
