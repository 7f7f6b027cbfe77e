"""The simulator's own settlement: pots from contribution levels, rake, hi/lo splits, odd chips.

(`Pot` and `Share` are named tuples: immutable like frozen dataclasses, and several times cheaper
to create, which matters at tens of thousands of hands a second.)

This is deliberately a separate implementation from ``pipeline.rules`` (the scalar rules
reference): the tests settle every generated hand again with ``pipeline.rules.settle`` from the
parsed text and compare, so the two cross-check each other. Players are identified by their index
in *ring order*: the players dealt in, clockwise starting at the seat left of the button, so the
ring order is also the order in which spare units are handed out (payout-rules P5).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, NamedTuple

from pipeline.payouts import running_total_rake

if TYPE_CHECKING:
    from pipeline.rake_schedules import ScheduleRule

__all__ = [
    "HALF_HIGH",
    "HALF_LOW",
    "HALF_SCOOP",
    "Pot",
    "Share",
    "build_pots",
    "high_half",
    "running_total_of",
    "split_pots",
    "take_rake",
]

HALF_HIGH = "high"
HALF_LOW = "low"
HALF_SCOOP = "scoop"


class Pot(NamedTuple):
    """One pot: its amount before rake and the players who can win it, in ring order."""

    amount: int
    eligible: tuple[int, ...]


class Share(NamedTuple):
    """One payment: the pot (0 main, 1.. side), the half (``high``/``low``/``scoop``), the
    player's ring index and the amount."""

    pot_index: int
    half: str
    player: int
    amount: int


def build_pots(put_in: Sequence[int], folded: Sequence[bool]) -> list[Pot]:
    """Main and side pots from what each player put in (after uncalled bets were returned).

    Each distinct level reached by a player still in the hand closes a pot; folded chips are dead
    money in the levels they reached (payout-rules P1). Pots are never merged.

    >>> build_pots([50, 100, 100, 30], [False, False, False, True])
    [Pot(amount=180, eligible=(0, 1, 2)), Pot(amount=100, eligible=(1, 2))]
    """
    live = [index for index, has_folded in enumerate(folded) if not has_folded]
    total = sum(put_in)
    levels = sorted({put_in[index] for index in live})
    if len(levels) == 1:
        # The common case: one pot (everyone still in put in the same).
        return [Pot(total, tuple(live))]
    pots: list[Pot] = []
    below = 0  # the chips under the previous level, each player's capped at it
    for level in levels:
        up_to = sum([min(chips, level) for chips in put_in])
        eligible = tuple([index for index in live if put_in[index] >= level])
        pots.append(Pot(up_to - below, eligible))
        below = up_to
    # Folded chips above every live level cannot happen once uncalled bets are returned; keep
    # them anyway rather than lose chips.
    excess = total - below
    if excess and pots:
        last = pots[-1]
        pots[-1] = Pot(last.amount + excess, last.eligible)
    return pots


def running_total_of(rule: ScheduleRule | None, scale: int) -> Callable[[int], int] | None:
    """The rule's rake of a running total of pots, where the rule takes its rake that way
    (``from = "running-total"``); None otherwise."""
    if rule is None or rule.source != "running-total":
        return None
    return lambda pot: rule.rake(pot, scale, True)


def take_rake(
    pots: Sequence[Pot],
    rake: int,
    each_pot: bool = False,
    running_total: Callable[[int], int] | None = None,
) -> list[int]:
    """Pot amounts after ``rake`` (payout-rules K4), as `pipeline.payouts.rake_by_pot` takes it.

    From the main pot first (a main pot smaller than the rake gives it all, the rest comes out
    of the next pots); or, ``each_pot`` (a schedule rule's ``from = "each-pot"``), from every
    pot in proportion to its size: each side pot gives ``rake × pot // total``, rounded down,
    the main pot the rest (what a main pot too small for its part cannot give comes out of the
    side pots in order); or, given the rule's ``running_total`` (`running_total_of`), pot by
    pot on the running total of the pots (`pipeline.payouts.running_total_rake`). A rake larger
    than the pots takes them whole.

    >>> pots = [Pot(296, (0, 1, 2)), Pot(126, (1, 2))]
    >>> take_rake(pots, 20), take_rake(pots, 20, each_pot=True)
    ([276, 126], [281, 121])
    >>> take_rake(pots, 20, running_total=lambda pot: pot // 20)
    [282, 120]
    """
    amounts = [pot.amount for pot in pots]
    if running_total is not None and len(amounts) > 1:
        taken = running_total_rake(amounts, [True] * len(amounts), rake, running_total)
        if taken is not None:
            return [amount - part for amount, part in zip(amounts, taken)]
    if each_pot and len(amounts) > 1:
        total = sum(amounts)
        if total <= 0:
            return amounts
        left = min(rake, total)
        taken = [0] + [left * amount // total for amount in amounts[1:]]
        taken[0] = min(left - sum(taken), amounts[0])
        short = left - sum(taken)
        for index in range(1, len(amounts)):
            if short <= 0:
                break
            part = min(short, amounts[index] - taken[index])
            taken[index] += part
            short -= part
        return [amount - part for amount, part in zip(amounts, taken)]
    for index, amount in enumerate(amounts):
        taken = min(amount, rake)
        amounts[index] = amount - taken
        rake -= taken
        if rake == 0:
            break
    return amounts


def _pay(
    shares: list[Share],
    pot_index: int,
    half: str,
    winners: Sequence[int],
    amount: int,
    unit: int = 1,
) -> None:
    """Append equal shares of ``amount`` in whole ``unit`` s, the spare units one each to the
    first winners in ring order (P5, P9) and a sub-unit remainder to the first; a unit split
    among more winners than units leaves some with nothing: no payment, no line."""
    units, remainder = divmod(amount, unit)
    base, spare = divmod(units, len(winners))
    for rank, player in enumerate(winners):
        part = (base + 1 if rank < spare else base) * unit
        if rank == 0:
            part += remainder
        if part > 0:
            shares.append(Share(pot_index, half, player, part))


def high_half(amount: int, unit: int = 1) -> int:
    """The high half of a split pot: the odd unit goes to the high (P4), and so does a sub-unit
    remainder (P9), as the audit splits it (`pipeline.payouts`).

    >>> high_half(775), high_half(775, 5), high_half(777, 5)
    (388, 390, 392)
    """
    units, remainder = divmod(amount, unit)
    return (units + 1) // 2 * unit + remainder


def split_pots(
    pots: Sequence[Pot],
    amounts: Sequence[int],
    high: Sequence[int],
    low: Sequence[int],
    showdown: bool,
    unit: int = 1,
) -> list[Share]:
    """Who gets what from each pot, in PokerStars' printing order.

    Parameters
    ----------
    pots
        From `build_pots`.
    amounts
        Pot amounts after rake (`take_rake`).
    high, low
        Evaluator values per ring index (larger is better, low 0 = none); unused without a
        showdown.
    showdown
        Whether the hand reached a showdown; without one each pot has a single eligible player.
    unit
        The table's smallest unit for splitting (P9): 1, or 5 cents at Full Tilt.

    Returns
    -------
    list of Share
        Side pots first, highest first, then the main pot; within a pot high shares before low
        shares, tied winners in ring order (so the spare units come first). Zero amounts are
        left out.
    """
    shares: list[Share] = []
    for pot_index in range(len(pots) - 1, -1, -1):
        eligible = pots[pot_index].eligible
        amount = amounts[pot_index]
        if len(eligible) == 1 or not showdown:
            if amount > 0:
                shares.append(Share(pot_index, HALF_SCOOP, eligible[0], amount))
            continue
        best_high = max([high[index] for index in eligible])
        high_winners = [index for index in eligible if high[index] == best_high]
        best_low = max([low[index] for index in eligible])
        if best_low == 0:
            _pay(shares, pot_index, HALF_SCOOP, high_winners, amount, unit)
            continue
        low_winners = [index for index in eligible if low[index] == best_low]
        if len(high_winners) > 1 and high_winners == low_winners:
            # Identical hands in both halves share the whole pot evenly (P6).
            _pay(shares, pot_index, HALF_SCOOP, high_winners, amount, unit)
            continue
        high_amount = high_half(amount, unit)  # the odd unit goes to the high half (P4)
        _pay(shares, pot_index, HALF_HIGH, high_winners, high_amount, unit)
        _pay(shares, pot_index, HALF_LOW, low_winners, amount - high_amount, unit)
    return shares
