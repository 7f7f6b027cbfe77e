"""Vectorised pot building and hi/lo splitting for many hands at once.

The inputs are flat arrays over players grouped by hand (CSR layout: the players of hand ``h``
are rows ``hand_start[h] : hand_start[h + 1]``, in clockwise order starting at the seat left of
the button). One compiled pass builds every hand's main and side pots from the contribution
levels, and a second splits each pot under payout-rules.md P1–P9:

- pots come from the distinct contribution levels of the players still in; folded chips are dead
  money in the levels they reached; pots are never merged (P1);
- rake comes out of the main pot before it is split (K4), any excess out of the next pots;
- several boards split the pot evenly first, the spare units to the first board (P8);
- a pot is halved only when one of its own eligible players has a low (P2), the high taking the
  odd unit (P4); otherwise the high scoops (P3);
- tied winners share a half, the spare units one each clockwise from the button (P5, P7);
- the same players winning both halves share the whole pot evenly (P6); a single player
  winning both halves takes them as two payments, as sites print them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numba
import numpy as np
import numpy.typing as npt

__all__ = [
    "HALF_HIGH",
    "HALF_LOW",
    "HALF_SCOOP",
    "HALF_NAMES",
    "PotTable",
    "PayoutTable",
    "build_pots",
    "printed_pot_rake",
    "rake_by_pot",
    "running_total_rake",
    "split_pots",
]

HALF_HIGH, HALF_LOW, HALF_SCOOP = 0, 1, 2
HALF_NAMES = ("high", "low", "scoop")

Int64Array = npt.NDArray[np.int64]


@dataclass(frozen=True)
class PotTable:
    """Pots of many hands: one row per pot, eligible players as CSR rows into the player arrays."""

    hand: Int64Array
    index: Int64Array  # 0 main, 1.. side pots by increasing level
    amount: Int64Array  # before rake
    eligible_start: Int64Array  # len(hand) + 1 offsets into ``eligible``
    eligible: Int64Array  # player rows, clockwise from the button
    # Whether two or more players put chips into the pot; None: every pot. A pot of one
    # player's chips is the unmatched top of a site that pays it back as a won pot.
    contested: npt.NDArray[np.bool_] | None = None


@dataclass(frozen=True)
class PayoutTable:
    """One row per computed payment."""

    pot: Int64Array  # row in the PotTable
    board: Int64Array
    half: Int64Array  # HALF_HIGH, HALF_LOW or HALF_SCOOP
    player: Int64Array  # player row
    amount: Int64Array


@numba.njit(cache=True)
def _build_pots_kernel(
    hand_start: Int64Array,
    total_in: Int64Array,
    folded: npt.NDArray[np.bool_],
    mucked: npt.NDArray[np.bool_],
    dead: Int64Array,
) -> tuple[
    Int64Array, Int64Array, Int64Array, Int64Array, Int64Array, npt.NDArray[np.bool_]
]:
    hands = hand_start.shape[0] - 1
    players = total_in.shape[0]
    # A dead blind is no part of its poster's bet: levels come from the live chips, and the
    # dead ones go to the hand's main pot.
    put_in = total_in - dead
    # At most one pot per player still in: allocate for the worst case, trim at the end.
    pot_hand = np.empty(players + hands, dtype=np.int64)
    pot_index = np.empty(players + hands, dtype=np.int64)
    pot_amount = np.empty(players + hands, dtype=np.int64)
    pot_contested = np.ones(players + hands, dtype=np.bool_)
    eligible_start = np.zeros(players + hands + 1, dtype=np.int64)
    eligible = np.empty(players * 3 + 16, dtype=np.int64)
    pots = 0
    used = 0
    for h in range(hands):
        first, last = hand_start[h], hand_start[h + 1]
        levels = np.empty(last - first, dtype=np.int64)
        count = 0
        for p in range(first, last):
            # Levels come from the players who reached showdown, mucked or not: an all-in
            # player who mucks still capped a pot, though it is no longer theirs to win.
            if (not folded[p] or mucked[p]) and put_in[p] > 0:
                levels[count] = put_in[p]
                count += 1
        levels = np.unique(levels[:count])
        previous = 0
        total_before = 0
        for k in range(levels.shape[0]):
            level = levels[k]
            amount = 0
            contributors = 0
            for p in range(first, last):
                part = min(put_in[p], level) - min(put_in[p], previous)
                if k == 0:
                    part += dead[p]
                amount += part
                if part > 0:
                    contributors += 1
            pot_hand[pots] = h
            pot_index[pots] = k
            pot_amount[pots] = amount
            pot_contested[pots] = contributors >= 2
            for p in range(first, last):
                if not folded[p] and put_in[p] >= level:
                    if used >= eligible.shape[0]:
                        grown = np.empty(eligible.shape[0] * 2, dtype=np.int64)
                        grown[:used] = eligible[:used]
                        eligible = grown
                    eligible[used] = p
                    used += 1
            eligible_start[pots + 1] = used
            pots += 1
            total_before += amount
            previous = level
        # Dead money above the highest live level (a folded player who put in more than anyone
        # still in) belongs to the last pot: the players left contest it.
        above = 0
        for p in range(first, last):
            above += max(put_in[p] - previous, 0)
            if levels.shape[0] == 0:
                above += dead[p]
        if above > 0:
            if levels.shape[0] > 0:
                pot_amount[pots - 1] += above
                pot_contested[pots - 1] = True
            else:
                # Everyone folded: nobody is eligible, the chips are reported as an orphan pot.
                pot_hand[pots] = h
                pot_index[pots] = 0
                pot_amount[pots] = above
                eligible_start[pots + 1] = used
                pots += 1
    return (
        pot_hand[:pots],
        pot_index[:pots],
        pot_amount[:pots],
        eligible_start[: pots + 1],
        eligible[:used],
        pot_contested[:pots],
    )


def build_pots(
    hand_start: Int64Array,
    put_in: Int64Array,
    folded: npt.NDArray[np.bool_],
    mucked: npt.NDArray[np.bool_] | None = None,
    dead: Int64Array | None = None,
) -> PotTable:
    """Main and side pots of every hand from each player's total contribution.

    ``folded`` players (a fold, or a muck at showdown) can win nothing; ``mucked`` ones among
    them still mark a pot level with their contribution. ``dead``: the part of each
    contribution that is a dead blind (a missed small blind posted on return): no part of the
    poster's bet, it goes to the main pot.
    """
    if mucked is None:
        mucked = np.zeros(len(put_in), dtype=np.bool_)
    if dead is None:
        dead = np.zeros(len(put_in), dtype=np.int64)
    hand, index, amount, eligible_start, eligible, contested = _build_pots_kernel(
        np.ascontiguousarray(hand_start, dtype=np.int64),
        np.ascontiguousarray(put_in, dtype=np.int64),
        np.ascontiguousarray(folded, dtype=np.bool_),
        np.ascontiguousarray(mucked, dtype=np.bool_),
        np.ascontiguousarray(dead, dtype=np.int64),
    )
    return PotTable(hand, index, amount, eligible_start, eligible, contested)


@numba.njit(cache=True)
def _share(
    amount: int,
    winners: Int64Array,
    unit: int,
    pot: int,
    board: int,
    half: int,
    out_pot: Int64Array,
    out_board: Int64Array,
    out_half: Int64Array,
    out_player: Int64Array,
    out_amount: Int64Array,
    rows: int,
) -> int:
    """Split ``amount`` among ``winners`` (clockwise order): equal shares in whole units, the
    spare units one each to the first winners clockwise; a sub-unit remainder to the first."""
    count = winners.shape[0]
    units = amount // unit
    remainder = amount - units * unit
    each = units // count
    spare = units - each * count
    for w in range(count):
        value = each * unit
        if w < spare:
            value += unit
        if w == 0:
            value += remainder
        out_pot[rows] = pot
        out_board[rows] = board
        out_half[rows] = half
        out_player[rows] = winners[w]
        out_amount[rows] = value
        rows += 1
    return rows


@numba.njit(cache=True)
def board_share(amount: int, step: int, board_count: int, board: int) -> int:
    """The part of a pot (after rake) that board ``board`` of ``board_count`` settles: even
    shares in whole units, the spare units to the first boards, a sub-unit rest to the first (P8)."""
    units = amount // step
    per_board = units // board_count
    board_spare = units - per_board * board_count
    share = per_board * step
    if board < board_spare:
        share += step
    if board == 0:
        share += amount - units * step
    return share


@numba.njit(cache=True)
def settle_board(
    share: int,
    players: Int64Array,
    high: npt.NDArray[np.int32],
    low: npt.NDArray[np.int32],
    showed: npt.NDArray[np.bool_],
    step: int,
    pot: int,
    board: int,
    out_pot: Int64Array,
    out_board: Int64Array,
    out_half: Int64Array,
    out_player: Int64Array,
    out_amount: Int64Array,
    rows: int,
    spare_to_high: bool = False,
    halves_apart: bool = False,
) -> int:
    """Pay one board's ``share`` of a pot among its eligible ``players`` (P2-P7); the payment
    rows are written from ``rows`` on and the next free row is returned. Shared by the audit's
    split and the all-in equity (`pipeline.equity`), so both follow the same rules.

    ``spare_to_high``: the units a low half shared by tied players cannot split evenly go to
    the high half instead of one each to the first low winners (Bovada). ``halves_apart``: the
    same players tying both halves share each half on its own, not the whole pot (P6), so the
    first of them gets each half's spare unit (PokerNow)."""
    if players.shape[0] == 1 and (high[players[0], board] < 0 or not showed[players[0]]):
        # Uncontested and unseen: one payment. A lone player who showed still gets
        # the pot as high and low halves when a low qualifies, as sites print it.
        return _share(share, players, step, pot, board, 2, out_pot, out_board, out_half,
                      out_player, out_amount, rows)
    best_high = -1
    best_low = 0
    for p in players:
        best_high = max(best_high, high[p, board])
        best_low = max(best_low, low[p, board])
    high_winners = players[high[players, board] == best_high]
    if best_low == 0:
        return _share(share, high_winners, step, pot, board, 2, out_pot, out_board,
                      out_half, out_player, out_amount, rows)
    low_winners = players[low[players, board] == best_low]
    same = high_winners.shape[0] == low_winners.shape[0]
    if same:
        for w in range(high_winners.shape[0]):
            if high_winners[w] != low_winners[w]:
                same = False
                break
    if same and high_winners.shape[0] > 1 and not halves_apart:
        return _share(share, high_winners, step, pot, board, 2, out_pot, out_board,
                      out_half, out_player, out_amount, rows)
    share_units = share // step
    high_share = ((share_units + 1) // 2) * step + (share - share_units * step)
    if spare_to_high:
        high_share += ((share_units // 2) % low_winners.shape[0]) * step
    rows = _share(high_share, high_winners, step, pot, board, 0, out_pot, out_board,
                  out_half, out_player, out_amount, rows)
    return _share(share - high_share, low_winners, step, pot, board, 1, out_pot, out_board,
                  out_half, out_player, out_amount, rows)


@numba.njit(cache=True)
def _split_kernel(
    pot_hand: Int64Array,
    pot_index: Int64Array,
    pot_amount: Int64Array,
    eligible_start: Int64Array,
    eligible: Int64Array,
    pot_rake: Int64Array,
    unit: Int64Array,
    boards: Int64Array,
    high: npt.NDArray[np.int32],
    low: npt.NDArray[np.int32],
    showed: npt.NDArray[np.bool_],
    spare_to_high: npt.NDArray[np.bool_],
    halves_apart: npt.NDArray[np.bool_],
) -> tuple[Int64Array, Int64Array, Int64Array, Int64Array, Int64Array]:
    pots = pot_hand.shape[0]
    capacity = eligible.shape[0] * 4 + pots * 4 + 16
    out_pot = np.empty(capacity, dtype=np.int64)
    out_board = np.empty(capacity, dtype=np.int64)
    out_half = np.empty(capacity, dtype=np.int64)
    out_player = np.empty(capacity, dtype=np.int64)
    out_amount = np.empty(capacity, dtype=np.int64)
    rows = 0
    for q in range(pots):
        h = pot_hand[q]
        amount = pot_amount[q] - pot_rake[q]
        players = eligible[eligible_start[q] : eligible_start[q + 1]]
        if players.shape[0] == 0:
            continue
        step = unit[h]
        board_count = boards[h]
        for b in range(board_count):
            share = board_share(amount, step, board_count, b)
            rows = settle_board(share, players, high, low, showed, step, q, b, out_pot,
                                out_board, out_half, out_player, out_amount, rows,
                                spare_to_high[h], halves_apart[h])
    return (
        out_pot[:rows],
        out_board[:rows],
        out_half[:rows],
        out_player[:rows],
        out_amount[:rows],
    )


@numba.njit(cache=True)
def _rake_by_pot_kernel(
    pot_hand: Int64Array,
    pot_amount: Int64Array,
    rake: Int64Array,
    each_pot: npt.NDArray[np.bool_],
    contested: npt.NDArray[np.bool_],
) -> Int64Array:
    pots = pot_hand.shape[0]
    taken = np.zeros(pots, dtype=np.int64)
    first = 0
    while first < pots:
        h = pot_hand[first]
        end = first
        total = 0
        shared = 0  # what the contested pots hold: uncalled chips give no share
        while end < pots and pot_hand[end] == h:
            total += pot_amount[end]
            if contested[end]:
                shared += pot_amount[end]
            end += 1
        left = min(rake[h], total)
        if each_pot[h] and shared > 0:
            # Each contested side pot in proportion to its size, rounded down; the main pot
            # the rest (fits the six Bovada corpus hands with a side pot: 6 of 6.26, 38 of
            # 38.90, ...).
            proportional = min(left, shared)
            for q in range(first + 1, end):
                if contested[q]:
                    taken[q] = proportional * pot_amount[q] // shared
            given = 0
            for q in range(first + 1, end):
                given += taken[q]
            taken[first] = min(left - given, pot_amount[first])
            short = left - given - taken[first]
            for q in range(first + 1, end):  # a main pot too small for its share: the next pots
                part = min(short, pot_amount[q] - taken[q])
                taken[q] += part
                short -= part
        else:
            # The main pot first; what a tiny main pot cannot hold, out of the next.
            for q in range(first, end):
                part = min(left, pot_amount[q])
                taken[q] = part
                left -= part
        first = end
    return taken


def rake_by_pot(
    pots: PotTable, rake: Int64Array, each_pot: npt.NDArray[np.bool_] | None = None
) -> Int64Array:
    """The rake each pot gives (payout-rules K4): from the main pot first, or, for the hands
    marked ``each_pot``, from every contested pot in proportion to its size (side pots rounded
    down, the main pot the rest; a pot of one player's chips, an unmatched top paid back as a
    won pot, gives no share: nobody called those chips). A rake larger than the hand's pots
    takes them whole.

    >>> pots = PotTable(np.array([0, 0]), np.array([0, 1]), np.array([296, 126]),
    ...                 np.array([0, 2, 4]), np.array([0, 1, 1, 2]))
    >>> rake_by_pot(pots, np.array([20])).tolist(), rake_by_pot(pots, np.array([20]), np.array([True])).tolist()
    ([20, 0], [15, 5])
    """
    hands = np.ascontiguousarray(pots.hand, dtype=np.int64)
    amounts = np.ascontiguousarray(pots.amount, dtype=np.int64)
    rakes = np.ascontiguousarray(rake, dtype=np.int64)
    contested = (
        np.ones(len(amounts), dtype=np.bool_)
        if pots.contested is None
        else np.ascontiguousarray(pots.contested, dtype=np.bool_)
    )
    if len(contested) != len(amounts):
        raise ValueError("PotTable.contested must hold one flag a pot")
    flags = np.zeros(len(rakes), dtype=np.bool_) if each_pot is None else each_pot.copy()
    # Proportional shares multiply rake by pot: hands where that could pass 2^62 (no real hand)
    # are shared out here in Python's exact integers instead.
    huge = np.zeros(len(rakes), dtype=np.bool_)
    if flags.any() and len(amounts):
        largest = np.zeros(len(rakes), dtype=np.int64)
        np.maximum.at(largest, hands, amounts)
        huge = flags & (np.abs(rakes).astype(np.float64) * largest.astype(np.float64) >= 2.0**61)
        flags &= ~huge
    taken = _rake_by_pot_kernel(hands, amounts, rakes, np.ascontiguousarray(flags), contested)
    for hand in np.flatnonzero(huge):
        rows = np.flatnonzero(hands == hand)
        taken[rows] = _proportional(
            amounts[rows].tolist(), int(rakes[hand]), contested[rows].tolist()
        )
    return taken


def _proportional(amounts: list[int], rake: int, contested: list[bool]) -> list[int]:
    """`rake_by_pot`'s each-pot rule for one hand, in exact integers."""
    total = sum(amounts)
    shared = sum(amount for amount, held in zip(amounts, contested) if held)
    left = min(rake, total)
    if not shared:  # as the kernel: the main pot first
        shares = []
        for amount in amounts:
            shares.append(min(left, amount))
            left -= shares[-1]
        return shares
    proportional = min(left, shared)
    shares = [0] + [
        proportional * amount // shared if held else 0
        for amount, held in zip(amounts[1:], contested[1:])
    ]
    shares[0] = min(left - sum(shares), amounts[0])
    short = left - sum(shares)
    for index in range(1, len(amounts)):
        part = min(short, amounts[index] - shares[index])
        shares[index] += part
        short -= part
    return shares


def _per_hand_flags(flags: npt.NDArray[np.bool_] | None, hands: int) -> npt.NDArray[np.bool_]:
    if flags is None:
        return np.zeros(hands, dtype=np.bool_)
    return np.ascontiguousarray(flags, dtype=np.bool_)


def running_total_rake(
    amounts: Sequence[int], contested: Sequence[bool], rake: int, rake_upto: Callable[[int], int]
) -> list[int] | None:
    """One hand's rake by pot, worked out pot by pot on the running total of the gross pots.

    The rake up to pot k is ``min(rake, rake_upto(main + side 1 + ... + side k))``, pot k gives
    what that adds, and the last contested pot the rest of ``rake`` (PokerStars: 98 of 98 real
    cash hands with side pots, where neither the main pot first nor shares in proportion fit).
    A pot of one player's chips gives nothing. None when the shares would not fit in their pots
    (a rake larger than the rule allows the pots before the last): the caller decides then.

    >>> running_total_rake([583, 298], [True, True], 48, lambda pot: (pot * 55 + 500) // 1000)
    [32, 16]
    """
    taken = [0] * len(amounts)
    last = max((index for index, held in enumerate(contested) if held), default=-1)
    if last < 0:
        return None
    total = given = 0
    for index, (amount, held) in enumerate(zip(amounts, contested, strict=True)):
        if not held:
            continue
        total += amount
        upto = rake if index == last else min(rake, rake_upto(total))
        part = upto - given
        if part < 0 or part > amount:
            return None
        taken[index] = part
        given = upto
    return taken


def printed_pot_rake(
    amounts: Sequence[int], contested: Sequence[bool], printed: Sequence[int], rake: int
) -> list[int] | None:
    """One hand's rake by pot as the site printed it: each contested pot's gross amount less
    its printed net amount. None unless the printed pots are one a contested pot and their
    differences are the hand's rake, each between nothing and the whole pot."""
    gross = [amount for amount, held in zip(amounts, contested, strict=True) if held]
    if len(gross) != len(printed):
        return None
    parts = [pot - net for pot, net in zip(gross, printed, strict=True)]
    if sum(parts) != rake or any(part < 0 or part > pot for part, pot in zip(parts, gross)):
        return None
    shares = iter(parts)
    return [next(shares) if held else 0 for held in contested]


def split_pots(
    pots: PotTable,
    rake: Int64Array,
    unit: Int64Array,
    boards: Int64Array,
    high: npt.NDArray[np.int32],
    low: npt.NDArray[np.int32],
    showed: npt.NDArray[np.bool_],
    each_pot: npt.NDArray[np.bool_] | None = None,
    pot_rake: Int64Array | None = None,
    spare_to_high: npt.NDArray[np.bool_] | None = None,
    halves_apart: npt.NDArray[np.bool_] | None = None,
) -> PayoutTable:
    """Payments of every pot under the hi/lo rules.

    Parameters
    ----------
    rake, unit, boards:
        Per hand: rake taken (`rake_by_pot`: from the main pot first, or from each pot in
        proportion where ``each_pot`` marks the hand), the smallest unit for splitting, number
        of boards (1, or 2 when run twice).
    high, low:
        Per player row and board (shape ``(players, 2)``): evaluator values, larger is better,
        low 0 = no qualifying low. Only eligible players of contested pots are read.
    showed:
        Per player row: whether the cards were shown down. A lone player who showed takes a
        pot with a qualifying low as two payments (high and low); one who did not, as one.
    pot_rake:
        Per pot: the rake it gives, where the caller has worked it out (`running_total_rake`,
        `printed_pot_rake`); otherwise `rake_by_pot` of ``rake`` and ``each_pot``.
    spare_to_high, halves_apart:
        Per hand: a tied low half's spare units go to the high half; the same players tying
        both halves share each half on its own (`settle_board`).
    """
    pot, board, half, player, amount = _split_kernel(
        pots.hand,
        pots.index,
        pots.amount,
        pots.eligible_start,
        pots.eligible,
        rake_by_pot(pots, rake, each_pot) if pot_rake is None else pot_rake,
        np.ascontiguousarray(unit, dtype=np.int64),
        np.ascontiguousarray(boards, dtype=np.int64),
        np.ascontiguousarray(high, dtype=np.int32),
        np.ascontiguousarray(low, dtype=np.int32),
        np.ascontiguousarray(showed, dtype=np.bool_),
        _per_hand_flags(spare_to_high, len(rake)),
        _per_hand_flags(halves_apart, len(rake)),
    )
    return PayoutTable(pot, board, half, player, amount)
