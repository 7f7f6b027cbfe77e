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
one by one (`_preflop_classes`); a Courchevel preflop spot, one board card known, deals its
C(n, 4) boards (about 100,000 heads-up) one by one. A spot may also be sampled (``samples[s]
> 0`` boards drawn from a generator seeded per spot) or dealt board by board on every street
(``samples[s] < 0``, to check and measure the classes).

Every input is untrusted: counts, masks and card codes are checked before they index anything,
and a spot that fails a check gets a status instead of a result.
"""

from __future__ import annotations

import numba
import numpy as np
from numba import prange

from pipeline.evaluator import kernels, kernels_wide
from pipeline.evaluator.tables import CARD_INFO_LOW_SHIFT, CARD_INFO_OFFSET
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


@_jit
def _preflop_classes(  # type: ignore[no-untyped-def]
    hole, stride, width, first_player, players, in_use, first_pot, pots, pot_eligible, keys,
    counts, used, card_table, flush_table, low_table, high_table,
):  # fmt: skip
    """Every preflop board, counted by class instead of dealt one by one; returns the boards.

    A board's highs and lows depend only on its rank multiset R, except where one suit s
    holds three or more of its cards (at most one suit can, in five cards): then the flushes
    depend on the set T of ranks that suit holds too. The hands are fixed, so this holds for
    any number of hole cards: without a flush a player's high is a function of the two rank
    multisets and the low of the two low-rank sets, and a flush needs three board cards of
    one suit (two of the player's), whose ranks are T. So the boards fall into classes (R) with
    no flush possible and (R, s, T), |T| >= 3; each class is evaluated once (the evaluator's
    rank-multiset table, its flush table for the flush classes) and counted by how many boards
    of the deck it holds: for each rank r of R with multiplicity m and a available suits,
    C(a, m) ways, C(a - 1, m - 1) with s forced when r is in T, C(a - [s free], m) without s
    otherwise. The no-flush count of R is its total less its flush classes.
    """
    info = _U(CARD_INFO_OFFSET)
    free_suits = np.zeros(13, dtype=np.int64)  # bit mask of the suits of each rank still in the deck
    for card in range(52):
        if not in_use[card]:
            free_suits[card // 4] |= 1 << (card % 4)
    # The hand's entries of the high table: one for four hole cards (stored three times), the
    # three four-card subsets that hold every pair for five or six (`kernels_wide`).
    hole_index = np.empty((players, 3), dtype=np.uint64)
    hole_low = np.empty(players, dtype=np.uint64)
    hole_suit = np.empty((players, 4), dtype=np.uint64)  # rank mask of each suit in the hand
    hole_suit_count = np.zeros((players, 4), dtype=np.int64)
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
            hole_index[i, 0], hole_index[i, 1], hole_index[i, 2] = index, index, index
        else:
            first, second, third = kernels_wide._cover_indices(
                card_table, width == 6, i0, i1, i2, i3, i4, i5
            )
            hole_index[i, 0], hole_index[i, 1], hole_index[i, 2] = first, second, third
        hole_low[i] = ((i0 | i1 | i2 | i3 | i4 | i5) >> _U(LOW_SHIFT)) & _U(0xFF)
        for suit in range(4):
            hole_suit[i, suit] = kernels._suit_rank_mask(hole, base, width, _U(suit))
            hole_suit_count[i, suit] = _popcount(hole_suit[i, suit])
    high = np.empty(players, dtype=np.int64)
    low = np.empty(players, dtype=np.int64)
    plain_high = np.empty(players, dtype=np.int64)
    ranks = np.empty(5, dtype=np.int64)
    distinct = np.empty(5, dtype=np.int64)
    multiplicity = np.empty(5, dtype=np.int64)
    boards = 0
    for r0 in range(13):
        for r1 in range(r0, 13):
            for r2 in range(r1, 13):
                for r3 in range(r2, 13):
                    for r4 in range(r3, 13):
                        ranks[0], ranks[1], ranks[2], ranks[3], ranks[4] = r0, r1, r2, r3, r4
                        kinds = 0
                        for position in range(5):
                            if kinds > 0 and distinct[kinds - 1] == ranks[position]:
                                multiplicity[kinds - 1] += 1
                            else:
                                distinct[kinds] = ranks[position]
                                multiplicity[kinds] = 1
                                kinds += 1
                        total = 1
                        for k in range(kinds):
                            total *= _combinations(_popcount(_U(free_suits[distinct[k]])), multiplicity[k])
                        if total == 0:
                            continue
                        j0 = card_table[info + _U(r0 * 4)]
                        j1 = card_table[info + _U(r1 * 4)]
                        j2 = card_table[info + _U(r2 * 4)]
                        j3 = card_table[info + _U(r3 * 4)]
                        j4 = card_table[info + _U(r4 * 4)]
                        offset = kernels._board_offset(card_table, j0, j1, j2, j3, j4)
                        board_low = ((j0 | j1 | j2 | j3 | j4) >> _U(LOW_SHIFT)) & _U(0xFF)
                        for i in range(players):
                            plain_high[i] = max(
                                high_table[offset + hole_index[i, 0]],
                                high_table[offset + hole_index[i, 1]],
                                high_table[offset + hole_index[i, 2]],
                            )
                            low[i] = low_table[(board_low << _U(8)) | hole_low[i]]
                        flush_boards = 0
                        for suit in range(4):
                            for chosen in range(1 << kinds):
                                if _popcount(_U(chosen)) < 3:
                                    continue
                                count = 1
                                suit_ranks = _U(0)
                                for k in range(kinds):
                                    suits = free_suits[distinct[k]]
                                    has_suit = (suits >> suit) & 1
                                    if chosen & (1 << k):
                                        if not has_suit:
                                            count = 0
                                            break
                                        count *= _combinations(_popcount(_U(suits)) - 1, multiplicity[k] - 1)
                                        suit_ranks |= _U(1) << _U(distinct[k])
                                    else:
                                        count *= _combinations(_popcount(_U(suits)) - has_suit, multiplicity[k])
                                if count == 0:
                                    continue
                                for i in range(players):
                                    high[i] = plain_high[i]
                                    if hole_suit_count[i, suit] >= 2:
                                        high[i] = max(high[i], np.int64(kernels._best_flush(
                                            hole_suit[i, suit], suit_ranks, flush_table)))
                                if not _record_board(high, low, 0, players, first_pot, pots,
                                                     pot_eligible, keys, counts, used, count):
                                    return -1
                                flush_boards += count
                        if total > flush_boards:
                            if not _record_board(plain_high, low, 0, players, first_pot, pots,
                                                 pot_eligible, keys, counts, used,
                                                 total - flush_boards):
                                return -1
                        boards += total
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
    card_table, flush_table, low_table, high_table, boards, board_data, holes, board_index, high,
    low, keys, counts, used,
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
        counted = _preflop_classes(
            hole, hole_stride, width, first_player, players, in_use, first_pot, pots,
            pot_eligible, keys, counts, used, card_table, flush_table, low_table, high_table,
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
    boards_seen, status, card_table, flush_table, low_table, high_table,
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
            variance, boards_seen, card_table, flush_table, low_table, high_table, boards,
            board_data, holes, board_index, high, low, keys, counts, used,
        )  # fmt: skip


@_jit
def expected_payouts_serial(  # type: ignore[no-untyped-def]
    player_start, hole, hole_stride, hole_count, known, known_count, pot_start, pot_amount,
    pot_eligible, unit, board_count, samples, seeds, expected, spread, variance, boards_seen,
    status, card_table, flush_table, low_table, high_table, block_spots,
):  # fmt: skip
    """Every spot on the calling thread (see `_spot`; ``block_spots`` is for the parallel
    variant's signature); returns the number of spots."""
    spots = player_start.shape[0] - 1
    _spots(0, spots, player_start, hole, hole_stride, hole_count, known, known_count,
           pot_start, pot_amount, pot_eligible, unit, board_count, samples, seeds, expected,
           spread, variance, boards_seen, status, card_table, flush_table, low_table,
           high_table)  # fmt: skip
    return spots


@_parallel_jit
def expected_payouts_parallel(  # type: ignore[no-untyped-def]
    player_start, hole, hole_stride, hole_count, known, known_count, pot_start, pot_amount,
    pot_eligible, unit, board_count, samples, seeds, expected, spread, variance, boards_seen,
    status, card_table, flush_table, low_table, high_table, block_spots,
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
               card_table, flush_table, low_table, high_table)  # fmt: skip
    return spots
