"""Compiled enumeration of every remaining board of many all-in spots (internal).

A spot is a hand whose betting ended before the river: its contenders' hole cards (4, 5 or 6
each, as its game deals), the board cards dealt when the last chips went in (0, 3 or 4; 1
before the flop in Courchevel) and its pots (amount after rake, eligible contenders as a bit
mask over the spot's players in clockwise order). For every completion of the board the kernel
evaluates each contender with the evaluator's own board-amortised chunk kernels
(`pipeline.evaluator.kernels`, `kernels_wide` for 5 and 6 hole cards: a board prepared once
for all its players) and reduces each pot to its *outcome*: the set of best highs and the set
of best qualifying lows among the pot's eligible players. Boards with the same outcome pay the
same, so each distinct outcome is settled once, by the audit's own per-board settlement
(`pipeline.payouts.settle_board`, rules P2-P7, with `board_share` for P8), and weighted by how
many boards produced it. The expected amount of a player is then the exact average over all
boards of the integer payouts, odd units included, and a pot's expected amounts sum to the pot.

Preflop spots (about a million boards heads-up) are counted by board classes instead of dealt
one by one (`_preflop_classes`, `_preflop_heads_up` for two players), reading each player's
high values from the hole-major high table (`pipeline.equity.high_by_hole`); a Courchevel
preflop spot, one board card known, deals its
C(n, 4) boards (about 100,000 heads-up) one by one. A spot may also be sampled (``samples[s]
> 0`` boards drawn from a generator seeded per spot) or dealt board by board on every street
(``samples[s] < 0``, to check and measure the classes).

Every input is untrusted: counts, masks and card codes are checked before they index anything,
and a spot that fails a check gets a status instead of a result.
"""

from __future__ import annotations

import math

import numba
import numpy as np
from numba import prange

from pipeline.evaluator import kernels, kernels_wide
from pipeline.evaluator.tables import (
    BOARD_MULTISET_COUNT,
    CARD_INFO_LOW_SHIFT,
    CARD_INFO_OFFSET,
    HOLE_MULTISET_COUNT,
    _card_table,
)
from pipeline.payouts import board_share, settle_board

__all__ = [
    "MAX_HOLE_CARDS",
    "MAX_OUTCOMES",
    "MAX_PLAYERS",
    "STATUS_BAD_CARDS",
    "STATUS_BAD_INPUT",
    "STATUS_OK",
    "STATUS_TOO_MANY_OUTCOMES",
    "expected_payouts_parallel",
    "expected_payouts_serial",
]

MAX_PLAYERS = 10  # contenders per spot; a spot has at most as many pots as contenders
MIN_HOLE_CARDS = 4
MAX_HOLE_CARDS = 6  # 6-card Omaha Hi/Lo
MAX_OUTCOMES = 4096  # distinct (high winners, low winners) per pot; far above any real spot
# The joint outcome of a spot's pots (each pot's winners, 20 bits a pot) is kept for the
# variance of a player's total payout when the spot has two or three pots; with more, the
# variance is bounded by perfect correlation between the pots (the square of the summed
# standard deviations), which only makes a luck z-score smaller.
JOINT_POTS = 3
_MASK_BITS = 10  # winners of a half as a bit mask of up to MAX_PLAYERS players
BOARD_CHUNK = 512  # boards evaluated per call of the evaluator's chunk kernel

STATUS_OK = 0
STATUS_BAD_CARDS = 1  # a card code >= 52, or a card twice among holes and board
STATUS_TOO_MANY_OUTCOMES = 2
STATUS_BAD_INPUT = 3  # counts or masks out of range, or more cards than a deck holds

_U = np.uint64
LOW_SHIFT = CARD_INFO_LOW_SHIFT

_jit = numba.njit(cache=True, nogil=True)


@_jit
def _popcount(bits: np.uint64) -> int:
    count = 0
    while bits:
        bits &= bits - _U(1)
        count += 1
    return count
_parallel_jit = numba.njit(cache=True, nogil=True, parallel=True)


@_jit
def _combinations(available: int, chosen: int) -> int:
    total = 1
    for k in range(chosen):
        total = total * (available - k) // (k + 1)
    return total


@_jit
def _record(keys, counts, used, pot, key, weight):  # type: ignore[no-untyped-def]
    """Count ``weight`` boards of outcome ``key`` for local pot ``pot``; False when full."""
    base = pot * MAX_OUTCOMES
    for slot in range(used[pot]):
        if keys[base + slot] == key:
            counts[base + slot] += weight
            return True
    if used[pot] >= MAX_OUTCOMES:
        return False
    keys[base + used[pot]] = key
    counts[base + used[pot]] = weight
    used[pot] += 1
    return True


@_jit
def _record_joint(keys, counts, used, slot, key, weight):  # type: ignore[no-untyped-def]
    """`_record` for the joint outcome table ``slot``; a full table gives up (used -1) instead
    of failing the spot: the variance then falls back to its bound."""
    if used[slot] < 0:
        return
    if not _record(keys, counts, used, slot, key, weight):
        used[slot] = -1


@_jit
def _record_board(  # type: ignore[no-untyped-def]
    high, low, row, players, first_pot, pots, pot_eligible, keys, counts, used, weight
):
    """Reduce one board's values (``high[row + i]``, ``low[row + i]`` for the spot's player
    ``i``) to each pot's outcome, the best highs and best lows among its eligible players (bit
    masks), and count it ``weight`` times (and the joint outcome of two or three pots, in table
    ``pots``); False when an outcome table is full."""
    joint = 0
    for q in range(pots):
        mask = pot_eligible[first_pot + q]
        best_high = -1
        best_low = 0
        for i in range(players):
            if mask & (1 << i):
                best_high = max(best_high, high[row + i])
                best_low = max(best_low, low[row + i])
        high_mask = 0
        low_mask = 0
        for i in range(players):
            if mask & (1 << i):
                if high[row + i] == best_high:
                    high_mask |= 1 << i
                if best_low > 0 and low[row + i] == best_low:
                    low_mask |= 1 << i
        if not _record(keys, counts, used, q, (high_mask << 16) | low_mask, weight):
            return False
        joint |= ((high_mask << _MASK_BITS) | low_mask) << (2 * _MASK_BITS * q)
    if 2 <= pots <= JOINT_POTS:
        _record_joint(keys, counts, used, pots, joint, weight)
    return True


# C(n, k) for the n <= 4 free suits of a rank and the k <= 5 board cards of it (k = 5 is five
# of a rank: no board).
_BINOMIAL = np.array(
    [[1, 0, 0, 0, 0, 0], [1, 1, 0, 0, 0, 0], [1, 2, 1, 0, 0, 0], [1, 3, 3, 1, 0, 0], [1, 4, 6, 4, 1, 0]],
    dtype=np.int64,
)
MAX_ORDERS = 128  # orders of the highs summed per preflop spot; beyond, classes recorded one by one
_ORDER_SLOTS = 256  # open-addressing slots of the order ids (twice MAX_ORDERS)
_DIRECT_PLAYERS = 4  # up to this many players an order's id is read at its key (16 bits)
_LOW_SETS = 256  # a board's low ranks (A..8) as an 8-bit mask

_inline = numba.njit(cache=True, nogil=True, inline="always")
# A part of a board rank multiset is one of its distinct ranks with its multiplicity (1 to 4),
# rank * _PART_WIDTH + multiplicity; a multiset of fewer than five ranks is padded with the
# neutral part (one way, no card of any suit).
_PART_WIDTH = 6
_NEUTRAL_PART = 13 * _PART_WIDTH
_PARTS = _NEUTRAL_PART + 1


def _board_multisets() -> np.ndarray:
    """Every board rank multiset but five of a rank (6,175), in the order of its index in
    the high table (`pipeline.evaluator.tables`): its index, the bit mask of its low ranks
    (the card table's low bits), its five parts and its count of distinct ranks."""
    card_table = _card_table()
    table = []
    for r4 in range(13):
        for r3 in range(r4 + 1):
            for r2 in range(r3 + 1):
                for r1 in range(r2 + 1):
                    for r0 in range(r1 + 1):
                        ranks = (r0, r1, r2, r3, r4)
                        if r0 == r4:
                            continue
                        index = sum(math.comb(rank + position, position + 1)
                                    for position, rank in enumerate(ranks))  # fmt: skip
                        low = 0
                        for rank in ranks:
                            low |= (int(card_table[CARD_INFO_OFFSET + 4 * rank]) >> LOW_SHIFT) & 0xFF
                        parts = [rank * _PART_WIDTH + ranks.count(rank) for rank in sorted(set(ranks))]
                        padding = [_NEUTRAL_PART] * (5 - len(parts))
                        table.append([index, low, *parts, *padding, len(parts)])
    return np.array(table, dtype=np.int64)


_MULTISETS = _board_multisets()


@_inline
def _order_key(high, players):  # type: ignore[no-untyped-def]
    """The order of the players' highs: for each player, how many players beat it (4 bits
    each). Two boards with the same order have the same high winners in every pot."""
    if players == 3:  # the comparisons written out: no loop, no branch
        h0, h1, h2 = high[0], high[1], high[2]
        return (
            (np.int64(h1 > h0) + np.int64(h2 > h0))
            | ((np.int64(h0 > h1) + np.int64(h2 > h1)) << 4)
            | ((np.int64(h0 > h2) + np.int64(h1 > h2)) << 8)
        )
    if players == 4:
        h0, h1, h2, h3 = high[0], high[1], high[2], high[3]
        return (
            (np.int64(h1 > h0) + np.int64(h2 > h0) + np.int64(h3 > h0))
            | ((np.int64(h0 > h1) + np.int64(h2 > h1) + np.int64(h3 > h1)) << 4)
            | ((np.int64(h0 > h2) + np.int64(h1 > h2) + np.int64(h3 > h2)) << 8)
            | ((np.int64(h0 > h3) + np.int64(h1 > h3) + np.int64(h2 > h3)) << 12)
        )
    key = 0
    for i in range(players):
        above = 0
        mine = high[i]
        for j in range(players):
            above += np.int64(high[j] > mine)  # no branch: the comparisons are unpredictable
        key |= above << (4 * i)
    return key


@_inline
def _order_id(key, high, players, order_key, order_high, order_slot, orders, summed):  # type: ignore[no-untyped-def]
    """Small id of the order ``key`` (if new: ``high`` becomes its representative highs and
    its row of ``summed`` is zeroed), or -1 when `MAX_ORDERS` orders are taken. Up to
    `_DIRECT_PLAYERS` players ``order_slot`` is indexed by the key itself, beyond it is an
    open-addressing table of `_ORDER_SLOTS` slots."""
    if players <= _DIRECT_PLAYERS:
        slot = key
    else:
        slot = ((key * 0x9E3779B97F4A7C15) >> 56) & (_ORDER_SLOTS - 1)
        while order_slot[slot] >= 0 and order_key[order_slot[slot]] != key:
            slot = (slot + 1) & (_ORDER_SLOTS - 1)
    if order_slot[slot] >= 0:
        return np.int64(order_slot[slot])
    if orders[0] >= MAX_ORDERS:
        return np.int64(-1)
    found = orders[0]
    order_slot[slot] = found
    order_key[found] = key
    for i in range(players):
        order_high[found, i] = high[i]
    summed[found, :] = 0
    orders[0] = found + 1
    return np.int64(found)


@_jit
def _flush_floor(flush_table):  # type: ignore[no-untyped-def]
    """The weakest flush's value: every hand without a flush is below it, every full house
    and quads above it; a flush short of a straight flush is below those."""
    floor = np.int64(1 << 30)
    for mask in range(1 << 13):
        if flush_table[mask] > 0 and flush_table[mask] < floor:
            floor = np.int64(flush_table[mask])
    return floor


@_jit
def _deck_ways(in_use):  # type: ignore[no-untyped-def]
    """The deck's suits by rank (bit mask) and the ways of drawing each part (`_MULTISETS`):
    C(a, m) in all for a rank with a free suits; by suit, C(a - 1, m - 1) with a card of s
    (0 if s is gone) and C(a - [s free], m) without. The neutral part: one way, without s."""
    free_suits = np.zeros(13, dtype=np.int64)
    for card in range(52):
        if not in_use[card]:
            free_suits[card // 4] |= 1 << (card % 4)
    way_total = np.zeros(_PARTS, dtype=np.int64)
    ways_with = np.zeros((4, _PARTS), dtype=np.int64)
    ways_without = np.zeros((4, _PARTS), dtype=np.int64)
    way_total[_NEUTRAL_PART] = 1
    for suit in range(4):
        ways_without[suit, _NEUTRAL_PART] = 1
    for rank in range(13):
        free = _popcount(_U(free_suits[rank]))
        for count in range(1, _PART_WIDTH):
            part = rank * _PART_WIDTH + count
            way_total[part] = _BINOMIAL[free, count]
            for suit in range(4):
                has_suit = (free_suits[rank] >> suit) & 1
                ways_without[suit, part] = _BINOMIAL[free - has_suit, count]
                if has_suit:
                    ways_with[suit, part] = _BINOMIAL[free - 1, count - 1]
    return free_suits, way_total, ways_with, ways_without


@_jit
def _hands(hole, stride, width, first_player, players, card_table):  # type: ignore[no-untyped-def]
    """Each player's rows of the hole-major high table (one for four hole cards, the three
    four-card subsets that hold every pair for five or six, `kernels_wide`), low ranks
    (8-bit mask) and ranks of each suit (13-bit masks)."""
    info = _U(CARD_INFO_OFFSET)
    rows = np.empty((players, 3), dtype=np.int64)
    hole_low = np.empty(players, dtype=np.uint64)
    hole_suit = np.empty((players, 4), dtype=np.uint64)
    for i in range(players):
        base = _U((first_player + i) * stride)
        i0 = card_table[info + _U(hole[base])]
        i1 = card_table[info + _U(hole[base + _U(1)])]
        i2 = card_table[info + _U(hole[base + _U(2)])]
        i3 = card_table[info + _U(hole[base + _U(3)])]
        i4 = card_table[info + _U(hole[base + _U(4)])] if width >= 5 else _U(0)
        i5 = card_table[info + _U(hole[base + _U(5)])] if width >= 6 else _U(0)
        if width == 4:
            index = kernels._hole_index(card_table, i0, i1, i2, i3)
            first, second, third = index, index, index
        else:
            first, second, third = kernels_wide._cover_indices(
                card_table, width == 6, i0, i1, i2, i3, i4, i5
            )
        rows[i, 0] = np.int64(first) * BOARD_MULTISET_COUNT
        rows[i, 1] = np.int64(second) * BOARD_MULTISET_COUNT
        rows[i, 2] = np.int64(third) * BOARD_MULTISET_COUNT
        hole_low[i] = ((i0 | i1 | i2 | i3 | i4 | i5) >> _U(LOW_SHIFT)) & _U(0xFF)
        for suit in range(4):
            hole_suit[i, suit] = kernels._suit_rank_mask(hole, base, width, _U(suit))
    return rows, hole_low, hole_suit


@_jit
def _straight_flush_needs(mine, needs):  # type: ignore[no-untyped-def]
    """Write into ``needs`` the three board ranks that complete a straight flush with two of
    the ranks ``mine`` of a suit (the ace plays low in the wheel); return how many."""
    count = 0
    for lowest in range(-1, 9):  # -1: the wheel, A2345
        window = 0
        for rank in range(lowest, lowest + 5):
            window |= 1 << (rank if rank >= 0 else 12)
        inside = mine & window
        for a in range(13):
            for b in range(a + 1, 13):
                pair = (1 << a) | (1 << b)
                if inside & pair == pair:
                    needs[count] = window & ~pair
                    count += 1
    return count


@_inline
def _suit_boards(ways_with, ways_without, suit, m):  # type: ignore[no-untyped-def]
    """Boards of multiset ``m`` with three or more cards of ``suit``: the product over its
    parts of (ways without s) + (ways with s) x, its coefficients of x^3 and above."""
    e0, e1, e2, e3 = 1, 0, 0, 0
    for position in range(2, 7):
        part = _MULTISETS[m, position]
        c0 = ways_without[suit, part]
        c1 = ways_with[suit, part]
        e3 = e3 * c0 + (e3 + e2) * c1
        e2 = e2 * c0 + e1 * c1
        e1 = e1 * c0 + e0 * c1
        e0 = e0 * c0
    return e3


@_inline
def _within_reach(m, kinds, free_suits, suit, needs, need_count):  # type: ignore[no-untyped-def]
    """Whether the ranks of multiset ``m`` still holding a card of ``suit`` include one of
    the rank triples ``needs`` (a straight flush's)."""
    ranks = 0
    for k in range(kinds):
        rank = _MULTISETS[m, 2 + k] // _PART_WIDTH
        if (free_suits[rank] >> suit) & 1:
            ranks |= 1 << rank
    for n in range(need_count):
        if needs[n] & ~ranks == 0:
            return True
    return False


@_inline
def _suit_kinds(  # type: ignore[no-untyped-def]
    m, kinds, suit, free_suits, ways_with, ways_without, distinct, with_suit, without_suit
):
    """For each distinct rank k of multiset ``m``: its rank, its ways with a card of ``suit``
    and without one (into ``distinct``, ``with_suit``, ``without_suit``); returns the bit mask
    of the kinds whose rank still has a card of ``suit`` in the deck."""
    eligible = 0
    for k in range(kinds):
        part = _MULTISETS[m, 2 + k]
        distinct[k] = part // _PART_WIDTH
        without_suit[k] = ways_without[suit, part]
        with_suit[k] = ways_with[suit, part]
        if (free_suits[distinct[k]] >> suit) & 1:
            eligible |= 1 << k
    return eligible


@_inline
def _flush_class(chosen, kinds, distinct, with_suit, without_suit):  # type: ignore[no-untyped-def]
    """The flush class whose cards of the suit are the kinds ``chosen`` (`_suit_kinds`): how
    many boards it holds (none for fewer than three kinds: no flush), and T, its ranks of the
    suit (a 13-bit mask)."""
    if _popcount(_U(chosen)) < 3:
        return 0, 0
    count = 1
    suit_ranks = 0
    for k in range(kinds):
        if chosen & (1 << k):
            count *= with_suit[k]
            suit_ranks |= 1 << distinct[k]
        else:
            count *= without_suit[k]
    return count, suit_ranks


@_inline
def _flushers(free_suits, hole_suit, players, suit):  # type: ignore[no-untyped-def]
    """The players who can make a flush in ``suit`` (bit i: player i holds two or more of
    it); none when fewer than three of its ranks are left in the deck."""
    ranks_free = 0
    for rank in range(13):
        ranks_free += (free_suits[rank] >> suit) & 1
    mask = 0
    if ranks_free >= 3:
        for i in range(players):
            if _popcount(hole_suit[i, suit]) >= 2:
                mask |= 1 << i
    return mask


@_jit
def _record_boards(  # type: ignore[no-untyped-def]
    high, board_low, count, players, low, low_table, hole_low, first_pot, pots, pot_eligible,
    keys, counts, used,
):  # fmt: skip
    """Record ``count`` boards of highs ``high`` and low ranks ``board_low`` in the outcome
    tables at once (when their order has no sum: the orders ran out); False when an outcome
    table is full."""
    for i in range(players):
        low[i] = low_table[(board_low << _U(8)) | hole_low[i]]
    return _record_board(high, low, 0, players, first_pot, pots, pot_eligible, keys, counts,
                         used, count)  # fmt: skip


@_jit
def _record_sums(  # type: ignore[no-untyped-def]
    summed, order_high, orders, players, low, low_table, hole_low, first_pot, pots,
    pot_eligible, keys, counts, used,
):  # fmt: skip
    """Record the boards summed by order and low ranks (``summed``), each order with its
    representative highs (``order_high``); False when an outcome table is full."""
    high = np.empty(players, dtype=np.int64)
    for order in range(orders):
        for i in range(players):
            high[i] = order_high[order, i]
        for board_low in range(_LOW_SETS):
            if summed[order, board_low] != 0 and not _record_boards(
                high, _U(board_low), summed[order, board_low], players, low, low_table, hole_low,
                first_pot, pots, pot_eligible, keys, counts, used,
            ):  # fmt: skip
                return False
    return True


# Highs standing for the three heads-up orders of `_preflop_heads_up`: a tie, player 0 best,
# player 1 best.
_HEADS_UP_HIGHS = np.array([[1, 1], [2, 1], [1, 2]], dtype=np.int64)


@_jit
def _preflop_classes(  # type: ignore[no-untyped-def]
    hole, stride, width, first_player, players, in_use, first_pot, pots, pot_eligible, keys,
    counts, used, card_table, flush_table, low_table, high_by_hole,
):  # fmt: skip
    """Every preflop board, counted by class instead of dealt one by one; returns the boards
    (-1 when an outcome table is full).

    A board's highs and lows depend only on its rank multiset R, except where one suit s
    holds three or more of its cards (at most one suit can, in five cards): then the flushes
    depend on the set T of ranks that suit holds too. The hands are fixed, so this holds for
    any number of hole cards: without a flush a player's high is a function of the two rank
    multisets and the low of the two low-rank sets, and a flush needs three board cards of
    one suit (two of the player's), whose ranks are T. So the boards fall into classes (R)
    with no flush possible and (R, s, T), |T| >= 3, each counted by how many boards of the
    deck it holds: for each rank r of R with multiplicity m and a available suits, C(a, m)
    ways, C(a - 1, m - 1) with s forced when r is in T, C(a - [s free], m) without s
    otherwise. The no-flush count of R is its total less its flush classes.

    Work saved, every count still exact:

    - a suit in which no player holds two cards (or with fewer than three ranks left in the
      deck) flushes nobody: its flush boards play as R and are never split off;
    - a board's outcome is the order of its highs (`_order_key`) with its low ranks (each
      player's low is a function of the board's low-rank set), so classes are summed by
      (order, low ranks) and each sum is recorded once, at the end;
    - when nobody has a full house or better on R, any flush beats every hand on R: in a
      flush class the players who can flush in s outrank the others, who keep R's order.
      With one such player every flush class of (R, s) has one order, R's with that player
      on top, and its boards are counted at once (`_suit_boards`: boards of R with three or
      more cards of s, the product of each rank's ways without s and with s as a polynomial
      in the cards of s), summed after the loop by R's order and low ranks. With several,
      and each pot contested by one of them, the order is that of their flushes, a function
      of T alone, kept per (s, T);
    - when someone has a full house on R, a flush short of a straight flush still ranks
      below every full house and above every hand below one: with one flusher the flush
      classes of (R, s) again share one order, unless R's ranks of s hold a straight flush
      for it (`_within_reach`).

    Two players take `_preflop_heads_up`, the same classes with three orders.

    The high values of R are read from ``high_by_hole``, the evaluator's high table hole-major
    (`pipeline.equity.high_by_hole`): each player's 6,188 values are one contiguous row.
    """
    flush_floor = _flush_floor(flush_table)
    free_suits, way_total, ways_with, ways_without = _deck_ways(in_use)
    rows, hole_low, hole_suit = _hands(hole, stride, width, first_player, players, card_table)
    # The suits someone can flush in, their players (two or more cards of the suit), each
    # such (suit, player)'s row of the flush memo, and whether every pot has one of them.
    flush_suits = np.empty(4, dtype=np.int64)
    suit_count = 0
    suited = np.zeros((4, players), dtype=np.int64)
    suited_count = np.zeros(4, dtype=np.int64)
    memo_row = np.zeros((4, players), dtype=np.int64)
    memo_rows = 0
    every_pot = np.zeros(4, dtype=np.bool_)
    for suit in range(4):
        mask = _flushers(free_suits, hole_suit, players, suit)
        for i in range(players):
            if mask & (1 << i):
                suited[suit, suited_count[suit]] = i
                memo_row[suit, i] = memo_rows
                memo_rows += 1
                suited_count[suit] += 1
        if suited_count[suit] > 0:
            flush_suits[suit_count] = suit
            suit_count += 1
            every_pot[suit] = True
            for q in range(pots):
                if pot_eligible[first_pot + q] & mask == 0:
                    every_pot[suit] = False
    # A suit's only flusher: the rank triples that complete a straight flush for it.
    straight_flush_need = np.zeros((4, 10 * 15), dtype=np.int64)
    straight_flush_count = np.zeros(4, dtype=np.int64)
    for suit in range(4):
        if suited_count[suit] == 1:
            straight_flush_count[suit] = _straight_flush_needs(
                np.int64(hole_suit[suited[suit, 0], suit]), straight_flush_need[suit]
            )
    order_key = np.empty(MAX_ORDERS, dtype=np.int64)
    order_high = np.empty((MAX_ORDERS, players), dtype=np.int64)  # highs of that order
    order_slot = np.full(
        1 << (4 * players) if players <= _DIRECT_PLAYERS else _ORDER_SLOTS, -1, dtype=np.int16
    )
    orders = np.zeros(1, dtype=np.int64)
    summed = np.empty((MAX_ORDERS, _LOW_SETS), dtype=np.int64)  # boards by order and low ranks
    # Made on first use (most multisets never need them): flushes by memo row and T, the
    # order of a class of several flushers by suit and T.
    flush_value = np.empty((0, 1 << 13), dtype=np.int32)
    order_of = np.empty((0, 1 << 13), dtype=np.int16)
    high = np.empty(players, dtype=np.int64)
    low = np.empty(players, dtype=np.int64)
    plain_high = np.empty(players, dtype=np.int64)
    distinct = np.empty(5, dtype=np.int64)
    with_suit = np.empty(5, dtype=np.int64)  # ways of a rank of R with its card of s
    without_suit = np.empty(5, dtype=np.int64)  # ways of a rank of R without s
    cell = np.full(_MULTISETS.shape[0], -1, dtype=np.int64)  # R's order and low ranks, deferred
    wide = width != 4
    boards = 0
    for m in range(_MULTISETS.shape[0]):  # every board rank multiset R, in index order
        p0, p1, p2, p3, p4 = (_MULTISETS[m, 2], _MULTISETS[m, 3], _MULTISETS[m, 4],
                              _MULTISETS[m, 5], _MULTISETS[m, 6])  # fmt: skip
        total = way_total[p0] * way_total[p1] * way_total[p2] * way_total[p3] * way_total[p4]
        if total == 0:
            continue
        row = _MULTISETS[m, 0]
        board_low = _U(_MULTISETS[m, 1])
        kinds = _MULTISETS[m, 7]
        best_plain = np.int64(0)
        for i in range(players):
            value = np.int64(high_by_hole[rows[i, 0] + row])
            if wide:
                value = max(value, np.int64(high_by_hole[rows[i, 1] + row]),
                            np.int64(high_by_hole[rows[i, 2] + row]))  # fmt: skip
            plain_high[i] = value
            best_plain = max(best_plain, value)
        below_flushes = best_plain < flush_floor
        # R's order (-1 past `MAX_ORDERS`); a known one read here directly (measured faster).
        key = _order_key(plain_high, players)
        plain_order = np.int64(order_slot[key]) if players <= _DIRECT_PLAYERS else np.int64(-1)
        if plain_order < 0:
            plain_order = _order_id(key, plain_high, players, order_key, order_high, order_slot,
                                    orders, summed)  # fmt: skip
        # Nobody has a full house: the boards of a suit with one flusher move to R's order
        # with the flusher on top, summed for every such R after this loop.
        deferred = below_flushes and plain_order >= 0
        if deferred:
            cell[m] = plain_order * _LOW_SETS + np.int64(board_low)
        flush_boards = 0
        for f in range(suit_count):
            suit = flush_suits[f]
            if suited_count[suit] == 1:
                if deferred:
                    continue
                e3 = _suit_boards(ways_with, ways_without, suit, m)
                if e3 == 0:
                    continue
                # A full house on R: still one order if the flusher cannot make a straight
                # flush with ranks of R.
                if below_flushes or not _within_reach(
                    m, kinds, free_suits, suit, straight_flush_need[suit],
                    straight_flush_count[suit],
                ):  # fmt: skip
                    # Any flush short of a straight flush ranks above every
                    # hand below a full house and below every full house.
                    for i in range(players):
                        high[i] = plain_high[i]
                    flusher = suited[suit, 0]
                    high[flusher] = max(plain_high[flusher], flush_floor)
                    order = _order_id(_order_key(high, players), high, players, order_key,
                                      order_high, order_slot, orders, summed)  # fmt: skip
                    if order >= 0:
                        summed[order, board_low] += e3
                    elif not _record_boards(high, board_low, e3, players, low, low_table,
                                            hole_low, first_pot, pots, pot_eligible, keys,
                                            counts, used):  # fmt: skip
                        return -1
                    flush_boards += e3
                    continue
            # Several flushers, or a straight flush in reach: class by class.
            if flush_value.shape[0] == 0:
                flush_value = np.full((memo_rows, 1 << 13), -1, dtype=np.int32)
                order_of = np.full((4, 1 << 13), -2, dtype=np.int16)
            eligible = _suit_kinds(m, kinds, suit, free_suits, ways_with, ways_without,
                                   distinct, with_suit, without_suit)  # fmt: skip
            if _popcount(_U(eligible)) < 3:
                continue
            chosen = eligible
            while chosen:  # every subset of the eligible kinds
                count, suit_ranks = _flush_class(chosen, kinds, distinct, with_suit, without_suit)
                chosen = (chosen - 1) & eligible
                if count == 0:
                    continue
                if below_flushes and every_pot[suit]:
                    # The flushers' order, the others below them (at 0).
                    order = np.int64(order_of[suit, suit_ranks])
                    if order == -2:
                        for i in range(players):
                            high[i] = 0
                        for j in range(suited_count[suit]):
                            i = suited[suit, j]
                            value = np.int32(kernels._best_flush(
                                hole_suit[i, suit], _U(suit_ranks), flush_table))  # fmt: skip
                            flush_value[memo_row[suit, i], suit_ranks] = value
                            high[i] = value
                        order = _order_id(_order_key(high, players), high, players,
                                          order_key, order_high, order_slot, orders, summed)  # fmt: skip
                        order_of[suit, suit_ranks] = order
                    if order >= 0:
                        summed[order, board_low] += count
                        flush_boards += count
                        continue
                changed = False
                for i in range(players):
                    high[i] = plain_high[i]
                for j in range(suited_count[suit]):
                    i = suited[suit, j]
                    value = flush_value[memo_row[suit, i], suit_ranks]
                    if value < 0:
                        value = np.int32(kernels._best_flush(
                            hole_suit[i, suit], _U(suit_ranks), flush_table))  # fmt: skip
                        flush_value[memo_row[suit, i], suit_ranks] = value
                    if value > high[i]:
                        high[i] = value
                        changed = True
                if not changed:
                    continue  # plays as R
                order = _order_id(_order_key(high, players), high, players,
                                  order_key, order_high, order_slot, orders, summed)  # fmt: skip
                if order >= 0:
                    summed[order, board_low] += count
                elif not _record_boards(high, board_low, count, players, low, low_table,
                                        hole_low, first_pot, pots, pot_eligible, keys, counts,
                                        used):  # fmt: skip
                    return -1
                flush_boards += count
        if total > flush_boards:
            if plain_order >= 0:
                summed[plain_order, board_low] += total - flush_boards
            elif not _record_boards(plain_high, board_low, total - flush_boards, players, low,
                                    low_table, hole_low, first_pot, pots, pot_eligible, keys,
                                    counts, used):  # fmt: skip
                return -1
        boards += total
    # The deferred flush boards: for each suit with one flusher, the boards of three or more
    # cards of it (the product over R's parts of (ways without s) + (ways with s) x, its
    # coefficient of x^3 and above) summed by R's order and low ranks, then moved from that
    # order to the same order with the flusher on top (built from the order alone: the
    # flusher above everyone, the others as they were).
    plain_orders = orders[0]
    moved = np.empty(plain_orders * _LOW_SETS, dtype=np.int64)
    for f in range(suit_count):
        suit = flush_suits[f]
        if suited_count[suit] != 1:
            continue
        moved[:] = 0
        for m in range(_MULTISETS.shape[0]):
            target = cell[m]
            if target >= 0:
                moved[target] += _suit_boards(ways_with, ways_without, suit, m)
        flusher = suited[suit, 0]
        for order in range(plain_orders):
            key = order_key[order]
            flusher_above = (key >> (4 * flusher)) & 15
            raised_key = 0
            for i in range(players):
                above = (key >> (4 * i)) & 15
                if i == flusher:
                    above = 0
                elif above <= flusher_above:
                    above += 1  # the flusher did not beat this player; now it does
                raised_key |= above << (4 * i)
                high[i] = players - above  # a high vector of that order
            raised_order = np.int64(-2)
            for board_low in range(_LOW_SETS):
                count = moved[order * _LOW_SETS + board_low]
                if count == 0:
                    continue
                summed[order, board_low] -= count
                if raised_order == -2:
                    raised_order = _order_id(raised_key, high, players, order_key, order_high,
                                             order_slot, orders, summed)  # fmt: skip
                if raised_order >= 0:
                    summed[raised_order, board_low] += count
                elif not _record_boards(high, _U(board_low), count, players, low, low_table,
                                        hole_low, first_pot, pots, pot_eligible, keys, counts,
                                        used):  # fmt: skip
                    return -1
    if not _record_sums(summed, order_high, orders[0], players, low, low_table, hole_low,
                        first_pot, pots, pot_eligible, keys, counts, used):  # fmt: skip
        return -1
    return boards


@_jit
def _preflop_heads_up(  # type: ignore[no-untyped-def]
    hole, stride, width, first_player, in_use, first_pot, pots, pot_eligible, keys, counts,
    used, card_table, flush_table, low_table, high_by_hole,
):  # fmt: skip
    """`_preflop_classes` for two players, the common spot: a board's outcome is which of
    them holds the better high, or both (three orders), with its low ranks. Per multiset R,
    each suit one player can flush in: with no full house on R the flusher wins the high on
    every flush board of R; with one, a flush short of a straight flush ranks below it, so
    the order still holds for all of them unless a straight flush is within reach. Both
    players flushing in a suit, or a straight flush within reach: class by class."""
    flush_floor = _flush_floor(flush_table)
    free_suits, way_total, ways_with, ways_without = _deck_ways(in_use)
    rows, hole_low, hole_suit = _hands(hole, stride, width, first_player, 2, card_table)
    # Per suit: who can flush in it (bit i: player i holds two of it; three of its ranks
    # must be left), and a single flusher's straight flush triples.
    flushers = np.zeros(4, dtype=np.int64)
    flush_suits = np.empty(4, dtype=np.int64)
    suit_count = 0
    needs = np.zeros((4, 10 * 15), dtype=np.int64)
    need_count = np.zeros(4, dtype=np.int64)
    for suit in range(4):
        flushers[suit] = _flushers(free_suits, hole_suit, 2, suit)
        if flushers[suit] == 0:
            continue
        flush_suits[suit_count] = suit
        suit_count += 1
        if flushers[suit] != 3:
            flusher = flushers[suit] >> 1
            need_count[suit] = _straight_flush_needs(np.int64(hole_suit[flusher, suit]), needs[suit])
    # Flushes by player, suit and T, made on first use (most spots never need one).
    flush_value = np.empty((2, 4, 0), dtype=np.int32)
    summed = np.zeros((3, _LOW_SETS), dtype=np.int64)  # by order (tie, 0 best, 1 best), low ranks
    distinct = np.empty(5, dtype=np.int64)
    with_suit = np.empty(5, dtype=np.int64)
    without_suit = np.empty(5, dtype=np.int64)
    wide = width != 4
    boards = 0
    for m in range(_MULTISETS.shape[0]):  # every board rank multiset R, in index order
        total = (way_total[_MULTISETS[m, 2]] * way_total[_MULTISETS[m, 3]]
                 * way_total[_MULTISETS[m, 4]] * way_total[_MULTISETS[m, 5]]
                 * way_total[_MULTISETS[m, 6]])  # fmt: skip
        if total == 0:
            continue
        row = _MULTISETS[m, 0]
        board_low = _MULTISETS[m, 1]
        kinds = _MULTISETS[m, 7]
        h0 = np.int64(high_by_hole[rows[0, 0] + row])
        h1 = np.int64(high_by_hole[rows[1, 0] + row])
        if wide:
            h0 = max(h0, np.int64(high_by_hole[rows[0, 1] + row]),
                     np.int64(high_by_hole[rows[0, 2] + row]))  # fmt: skip
            h1 = max(h1, np.int64(high_by_hole[rows[1, 1] + row]),
                     np.int64(high_by_hole[rows[1, 2] + row]))  # fmt: skip
        flush_boards = 0
        for f in range(suit_count):
            suit = flush_suits[f]
            e3 = _suit_boards(ways_with, ways_without, suit, m)
            if e3 == 0:
                continue
            mask = flushers[suit]
            if mask != 3:
                flusher = mask >> 1
                mine = h0 if flusher == 0 else h1
                theirs = h1 if flusher == 0 else h0
                if mine < flush_floor and theirs < flush_floor:
                    summed[1 + flusher, board_low] += e3
                    flush_boards += e3
                    continue
                if not _within_reach(m, kinds, free_suits, suit, needs[suit], need_count[suit]):
                    if mine >= flush_floor:
                        continue  # the flusher's full house beats its flushes: plays as R
                    # its flush against the other's full house (or better)
                    summed[2 - flusher, board_low] += e3
                    flush_boards += e3
                    continue
            # Class by class: T, the ranks of the suit's three or more board cards.
            if flush_value.shape[2] == 0:
                flush_value = np.full((2, 4, 1 << 13), -1, dtype=np.int32)
            eligible = _suit_kinds(m, kinds, suit, free_suits, ways_with, ways_without,
                                   distinct, with_suit, without_suit)  # fmt: skip
            chosen = eligible
            while chosen:  # every subset of the eligible kinds
                count, suit_ranks = _flush_class(chosen, kinds, distinct, with_suit, without_suit)
                chosen = (chosen - 1) & eligible
                if count == 0:
                    continue
                a = h0
                b = h1
                for i in range(2):
                    if mask & (1 << i):
                        value = flush_value[i, suit, suit_ranks]
                        if value < 0:
                            value = np.int32(kernels._best_flush(
                                hole_suit[i, suit], _U(suit_ranks), flush_table))  # fmt: skip
                            flush_value[i, suit, suit_ranks] = value
                        if i == 0:
                            a = max(a, np.int64(value))
                        else:
                            b = max(b, np.int64(value))
                if a == h0 and b == h1:
                    continue  # plays as R
                order = 1 if a > b else (2 if b > a else 0)
                summed[order, board_low] += count
                flush_boards += count
        order = 1 if h0 > h1 else (2 if h1 > h0 else 0)
        summed[order, board_low] += total - flush_boards
        boards += total
    if not _record_sums(summed, _HEADS_UP_HIGHS, 3, 2, np.empty(2, dtype=np.int64), low_table,
                        hole_low, first_pot, pots, pot_eligible, keys, counts, used):  # fmt: skip
        return -1
    return boards


@_jit
def _settle_outcome(  # type: ignore[no-untyped-def]
    high_mask, low_mask, s, pot, q, board, players, pot_eligible, pot_amount, unit, board_count,
    eligible, stand_high, stand_low, showed, out_pot, out_board, out_half, out_player,
    out_amount, paid,
):  # fmt: skip
    """Add to ``paid`` what the audit's rules pay each player from board ``board``'s share of
    pot ``pot`` (local ``q``) when the players of ``high_mask`` hold the best high and those of
    ``low_mask`` the best low (none: no low): stand-in values, winners 1, others 0."""
    mask = pot_eligible[pot]
    count = 0
    for i in range(players):
        if mask & (1 << i):
            eligible[count] = i
            count += 1
    for i in range(players):
        stand_high[i, 0] = 1 + ((high_mask >> i) & 1)
        stand_low[i, 0] = (low_mask >> i) & 1
    share = board_share(pot_amount[pot], unit[s], board_count[s], board)
    rows = settle_board(share, eligible[:count], stand_high, stand_low, showed, unit[s], q, 0,
                        out_pot, out_board, out_half, out_player, out_amount, 0)  # fmt: skip
    for r in range(rows):
        paid[out_player[r]] += out_amount[r]


@_jit
def _spot(  # type: ignore[no-untyped-def]
    s, player_start, hole, hole_stride, hole_count, known, known_count, pot_start, pot_amount,
    pot_eligible, unit, board_count, samples, seeds, expected, spread, variance, boards_seen,
    card_table, flush_table, low_table, high_table, high_by_hole, boards, board_data, holes,
    board_index, high, low, keys, counts, used,
):  # fmt: skip
    """Enumerate spot ``s`` (or, when ``samples[s] > 0``, draw that many boards at random
    from a generator seeded with ``seeds[s]``); write its expected amounts and their standard
    errors (0 when exact) and the variance of each player's total payout over the run-outs;
    return its status. Player ``i``'s hole cards are the first
    ``hole_count[s]`` of ``hole[(player_start[s] + i) * hole_stride:]``."""
    first_player = player_start[s]
    players = player_start[s + 1] - first_player
    first_pot = pot_start[s]
    pots = pot_start[s + 1] - first_pot
    dealt = known_count[s]
    width = hole_count[s]
    if players < 2 or players > MAX_PLAYERS or pots < 1 or pots > MAX_PLAYERS:
        return STATUS_BAD_INPUT
    if width < MIN_HOLE_CARDS or width > MAX_HOLE_CARDS or width > hole_stride:
        return STATUS_BAD_INPUT
    if dealt < 0 or dealt > 4 or unit[s] < 1 or board_count[s] < 1 or board_count[s] > 2:
        return STATUS_BAD_INPUT
    everyone = (1 << players) - 1
    for q in range(pots):
        mask = pot_eligible[first_pot + q]
        if mask <= 0 or (mask & ~everyone) != 0 or pot_amount[first_pot + q] < 0:
            return STATUS_BAD_INPUT
    # The deck: every card not in a contender's hand or on the known board.
    in_use = np.zeros(52, dtype=np.bool_)
    for i in range(players):
        for position in range(width):
            card = hole[(first_player + i) * hole_stride + position]
            if card >= 52 or in_use[card]:
                return STATUS_BAD_CARDS
            in_use[card] = True
    for position in range(dealt):
        card = known[s * 5 + position]
        if card >= 52 or in_use[card]:
            return STATUS_BAD_CARDS
        in_use[card] = True
    deck = np.empty(52, dtype=np.uint8)
    available = 0
    for card in range(52):
        if not in_use[card]:
            deck[available] = card
            available += 1
    drawn = 5 - dealt
    if available < drawn:  # more hole cards than a deck can deal with a board
        return STATUS_BAD_INPUT
    sampled = samples[s] > 0
    if sampled:
        # Seeded per spot: the same spot gives the same rows whichever thread runs it.
        np.random.seed(seeds[s] & 0x7FFFFFFF)
        total = samples[s]
    else:
        total = _combinations(available, drawn)
    # Each row of a chunk is (board, player), board-major: the first ``chunk * players`` rows
    # are exactly a chunk's players, whatever its size.
    rows_needed = min(BOARD_CHUNK, total) * players
    for row in range(rows_needed):
        player = first_player + row % players
        for position in range(width):
            holes[row * width + position] = hole[player * hole_stride + position]
        board_index[row] = row // players
    for q in range(pots + 1):
        used[q] = 0
    choice = np.arange(drawn)
    remaining = total
    if dealt == 0 and samples[s] == 0:
        if high_by_hole.shape[0] != BOARD_MULTISET_COUNT * HOLE_MULTISET_COUNT:
            return STATUS_BAD_INPUT  # not the hole-major high table
        if players == 2:
            counted = _preflop_heads_up(
                hole, hole_stride, width, first_player, in_use, first_pot, pots, pot_eligible,
                keys, counts, used, card_table, flush_table, low_table, high_by_hole,
            )  # fmt: skip
        else:
            counted = _preflop_classes(
                hole, hole_stride, width, first_player, players, in_use, first_pot, pots,
                pot_eligible, keys, counts, used, card_table, flush_table, low_table,
                high_by_hole,
            )  # fmt: skip
        if counted < 0:
            return STATUS_TOO_MANY_OUTCOMES
        if counted != total:  # every board counted once, or not a result
            return STATUS_BAD_INPUT
        remaining = 0
    while remaining > 0:
        chunk = min(BOARD_CHUNK, remaining)
        for b in range(chunk):
            for position in range(dealt):
                boards[b * 5 + position] = known[s * 5 + position]
            if sampled:
                # A partial Fisher-Yates shuffle: ``drawn`` distinct cards, uniformly.
                for position in range(drawn):
                    pick = position + np.random.randint(0, available - position)
                    card = deck[pick]
                    deck[pick] = deck[position]
                    deck[position] = card
                    boards[b * 5 + dealt + position] = card
                continue
            for position in range(drawn):
                boards[b * 5 + dealt + position] = deck[choice[position]]
            # Next combination of ``drawn`` deck positions, in lexicographic order.
            i = drawn - 1
            while i >= 0 and choice[i] == available - drawn + i:
                i -= 1
            if i >= 0:
                choice[i] += 1
                for j in range(i + 1, drawn):
                    choice[j] = choice[j - 1] + 1
        if kernels._prepare_boards_chunk(boards, 0, chunk, board_data, card_table) != -1:
            return STATUS_BAD_CARDS
        if width == 4:
            bad = kernels._evaluate_players_chunk(
                holes, board_index, 0, chunk * players, high, low, board_data,
                card_table, flush_table, low_table, high_table,
            )  # fmt: skip
        else:
            bad = kernels_wide._evaluate_wide_players_chunk(
                holes, width, board_index, 0, chunk * players, high, low, board_data,
                card_table, flush_table, low_table, high_table,
            )  # fmt: skip
        if bad != -1:
            return STATUS_BAD_CARDS
        # The reduction of `_record_board`, written out: called here a numba function of
        # this many arguments, it halved the flop rate (measured).
        for b in range(chunk):
            row = b * players
            joint = 0
            for q in range(pots):
                mask = pot_eligible[first_pot + q]
                best_high = -1
                best_low = 0
                for i in range(players):
                    if mask & (1 << i):
                        best_high = max(best_high, high[row + i])
                        best_low = max(best_low, low[row + i])
                high_mask = 0
                low_mask = 0
                for i in range(players):
                    if mask & (1 << i):
                        if high[row + i] == best_high:
                            high_mask |= 1 << i
                        if best_low > 0 and low[row + i] == best_low:
                            low_mask |= 1 << i
                if not _record(keys, counts, used, q, (high_mask << 16) | low_mask, 1):
                    return STATUS_TOO_MANY_OUTCOMES
                joint |= ((high_mask << _MASK_BITS) | low_mask) << (2 * _MASK_BITS * q)
            if 2 <= pots <= JOINT_POTS:
                _record_joint(keys, counts, used, pots, joint, 1)
        remaining -= chunk
    boards_seen[s] = total
    # Settle each outcome once with the audit's rules on stand-in values (winners 1, others 0).
    stand_high = np.zeros((players, 1), dtype=np.int32)
    stand_low = np.zeros((players, 1), dtype=np.int32)
    showed = np.ones(players, dtype=np.bool_)
    out_pot = np.empty(4 * MAX_PLAYERS + 8, dtype=np.int64)
    out_board = np.empty_like(out_pot)
    out_half = np.empty_like(out_pot)
    out_player = np.empty_like(out_pot)
    out_amount = np.empty_like(out_pot)
    eligible = np.empty(players, dtype=np.int64)
    # A hand run twice: each board's payouts vary on their own and their variances are
    # summed. The second run-out is dealt from the cards the first left, a small negative
    # correlation (about 1 / (cards left - 1)) left out: the variance is a little too large.
    boards_run = board_count[s]
    board_mean = np.zeros((boards_run, players), dtype=np.float64)  # E[total of board b]
    bound = np.zeros(players, dtype=np.float64)  # sum of the pots' standard deviations
    paid = np.zeros(players, dtype=np.float64)
    for q in range(pots):
        sums = np.zeros(players, dtype=np.float64)
        pot_variance = np.zeros(players, dtype=np.float64)
        for board in range(boards_run):
            mean = np.zeros(players, dtype=np.float64)
            squares = np.zeros(players, dtype=np.float64)
            for slot in range(used[q]):
                key = keys[q * MAX_OUTCOMES + slot]
                weight = counts[q * MAX_OUTCOMES + slot] / total
                paid[:] = 0.0
                _settle_outcome(
                    key >> 16, key & 0xFFFF, s, first_pot + q, q, board, players, pot_eligible,
                    pot_amount, unit, board_count, eligible, stand_high, stand_low, showed,
                    out_pot, out_board, out_half, out_player, out_amount, paid,
                )  # fmt: skip
                for i in range(players):
                    mean[i] += paid[i] * weight
                    squares[i] += paid[i] * paid[i] * weight
            for i in range(players):
                sums[i] += mean[i]
                pot_variance[i] += max(squares[i] - mean[i] * mean[i], 0.0)
                board_mean[board, i] += mean[i]
        for i in range(players):
            expected[(first_pot + q) * MAX_PLAYERS + i] = sums[i]
            if sampled:
                spread[(first_pot + q) * MAX_PLAYERS + i] = np.sqrt(pot_variance[i] / total)
            else:
                spread[(first_pot + q) * MAX_PLAYERS + i] = 0.0
            bound[i] += np.sqrt(pot_variance[i])
    if pots == 1 or pots > JOINT_POTS or used[pots] <= 0:
        # One pot: its variance exactly; beyond `JOINT_POTS` (or a joint table that overflowed):
        # the bound of perfectly correlated pots.
        for i in range(players):
            variance[s * MAX_PLAYERS + i] = bound[i] * bound[i]
        return STATUS_OK
    for i in range(players):
        variance[s * MAX_PLAYERS + i] = 0.0
    for board in range(boards_run):
        squares = np.zeros(players, dtype=np.float64)
        for slot in range(used[pots]):
            joint = keys[pots * MAX_OUTCOMES + slot]
            weight = counts[pots * MAX_OUTCOMES + slot] / total
            paid[:] = 0.0
            for q in range(pots):
                part = joint >> (2 * _MASK_BITS * q)
                _settle_outcome(
                    (part >> _MASK_BITS) & 0x3FF, part & 0x3FF, s, first_pot + q, q, board,
                    players, pot_eligible, pot_amount, unit, board_count, eligible, stand_high,
                    stand_low, showed, out_pot, out_board, out_half, out_player, out_amount,
                    paid,
                )  # fmt: skip
            for i in range(players):
                squares[i] += paid[i] * paid[i] * weight
        for i in range(players):
            variance[s * MAX_PLAYERS + i] += max(
                squares[i] - board_mean[board, i] * board_mean[board, i], 0.0
            )
    return STATUS_OK


@_jit
def _spots(  # type: ignore[no-untyped-def]
    first, last, player_start, hole, hole_stride, hole_count, known, known_count, pot_start,
    pot_amount, pot_eligible, unit, board_count, samples, seeds, expected, spread, variance,
    boards_seen, status, card_table, flush_table, low_table, high_table, high_by_hole,
):  # fmt: skip
    """Enumerate spots ``first:last`` with one set of work buffers."""
    boards = np.empty(BOARD_CHUNK * 5, dtype=np.uint8)
    board_data = np.empty(BOARD_CHUNK * kernels.BOARD_DATA_WIDTH, dtype=np.uint64)
    holes = np.empty(BOARD_CHUNK * MAX_PLAYERS * MAX_HOLE_CARDS, dtype=np.uint8)
    board_index = np.empty(BOARD_CHUNK * MAX_PLAYERS, dtype=np.int64)
    high = np.empty(BOARD_CHUNK * MAX_PLAYERS, dtype=np.int32)
    low = np.empty(BOARD_CHUNK * MAX_PLAYERS, dtype=np.int32)
    # One outcome table per pot and one for the joint outcome of the pots.
    keys = np.empty((MAX_PLAYERS + 1) * MAX_OUTCOMES, dtype=np.int64)
    counts = np.empty((MAX_PLAYERS + 1) * MAX_OUTCOMES, dtype=np.int64)
    used = np.zeros(MAX_PLAYERS + 1, dtype=np.int64)
    for s in range(first, last):
        status[s] = _spot(
            s, player_start, hole, hole_stride, hole_count, known, known_count, pot_start,
            pot_amount, pot_eligible, unit, board_count, samples, seeds, expected, spread,
            variance, boards_seen, card_table, flush_table, low_table, high_table, high_by_hole,
            boards, board_data, holes, board_index, high, low, keys, counts, used,
        )  # fmt: skip


@_jit
def expected_payouts_serial(  # type: ignore[no-untyped-def]
    player_start, hole, hole_stride, hole_count, known, known_count, pot_start, pot_amount,
    pot_eligible, unit, board_count, samples, seeds, expected, spread, variance, boards_seen,
    status, card_table, flush_table, low_table, high_table, high_by_hole, block_spots,
):  # fmt: skip
    """Every spot on the calling thread (see `_spot`; ``block_spots`` is for the parallel
    variant's signature); returns the number of spots."""
    spots = player_start.shape[0] - 1
    _spots(0, spots, player_start, hole, hole_stride, hole_count, known, known_count,
           pot_start, pot_amount, pot_eligible, unit, board_count, samples, seeds, expected,
           spread, variance, boards_seen, status, card_table, flush_table, low_table,
           high_table, high_by_hole)  # fmt: skip
    return spots


@_parallel_jit
def expected_payouts_parallel(  # type: ignore[no-untyped-def]
    player_start, hole, hole_stride, hole_count, known, known_count, pot_start, pot_amount,
    pot_eligible, unit, board_count, samples, seeds, expected, spread, variance, boards_seen,
    status, card_table, flush_table, low_table, high_table, high_by_hole, block_spots,
):  # fmt: skip
    """Every spot on numba's thread pool, in blocks of ``block_spots`` spots."""
    spots = player_start.shape[0] - 1
    block_spots = max(1, block_spots)
    blocks = (spots + block_spots - 1) // block_spots
    for block in prange(blocks):
        first = block * block_spots
        _spots(first, min(first + block_spots, spots), player_start, hole, hole_stride,
               hole_count, known, known_count, pot_start, pot_amount, pot_eligible, unit,
               board_count, samples, seeds, expected, spread, variance, boards_seen, status,
               card_table, flush_table, low_table, high_table, high_by_hole)  # fmt: skip
    return spots
