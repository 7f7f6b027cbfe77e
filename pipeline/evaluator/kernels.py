"""numba kernels of the hi/lo evaluator (internal; the public API is `pipeline.evaluator`).

Rows are processed in chunks, each in three passes. Pass 1 turns cards into table indices
(sorting networks and mask arithmetic, no dependent loads) and notes the few rows that may
hold a flush; pass 2 gathers from the tables; pass 3 adds those flushes. Keeping the
dependent gathers out of the arithmetic loop lets the CPU overlap many table misses, which
a one-pass loop cannot. A row's index is parked in the output array and overwritten by the
gathered value, so the hot loop allocates nothing.

Inputs arrive flattened (``hole.reshape(-1)``) and are indexed with unsigned integers:
numba then emits neither stride multiplications nor negative-index wrap-around, and the
small tables share one base pointer (`EvaluatorTables.card_table`), which keeps the loop
free of register spills. This layout doubled the measured rate.

Validation is fused into pass 1: the card bits of a row are summed and or-ed; the two agree
only if no card repeats, and codes >= 52 carry `INVALID_CARD_BIT`. Every uint8 code indexes
the card table safely, so a bad row costs nothing until the caller raises.
"""

from __future__ import annotations

import numba
import numpy as np
from numba import prange

from pipeline.evaluator.classes import RANK_COUNT
from pipeline.evaluator.tables import (
    BOARD_TERM_OFFSET,
    CARD_BIT_OFFSET,
    CARD_INFO_LOW_SHIFT,
    CARD_INFO_OFFSET,
    CARD_INFO_RANK_SHIFT,
    HOLE_TERM_OFFSET,
    INVALID_CARD_BIT,
)

__all__ = [
    "BOARD_DATA_WIDTH",
    "CHUNK_ROWS",
    "NO_BAD_ROW",
    "evaluate_players_parallel",
    "evaluate_players_serial",
    "evaluate_rows_parallel",
    "evaluate_rows_serial",
    "prepare_boards_parallel",
    "prepare_boards_serial",
]

CHUNK_ROWS = 2048
NO_BAD_ROW = -1
BOARD_DATA_WIDTH = 3

_U = np.uint64
_VALID_CARD_MASK = _U(int(INVALID_CARD_BIT) - 1)
_INVALID_MASK = ~_VALID_CARD_MASK
_SUIT_MASK = _U(0xFFFF)
_LOW_MASK = _U(0xFF)
_RANK_MASK = _U(0x1FFF)
_WORD_MASK = _U(0xFFFFFFFF)
# Adding 5 to a board suit nibble sets its bit 3 iff the suit has >= 3 board cards; adding
# 6 to a hole nibble iff >= 2 hole cards. A flush is possible iff the two flags meet.
_BOARD_FLUSH_BIAS = _U(0x5555)
_HOLE_FLUSH_BIAS = _U(0x6666)
_FLUSH_FLAG_BITS = _U(0x8888)
_FLUSH_FLAG_SHIFT = _U(48)  # flags stored above the row number (rows < 2**48)
_ROW_MASK = _U((1 << 48) - 1)

_jit = numba.njit(cache=True, nogil=True)
_parallel_jit = numba.njit(cache=True, nogil=True, parallel=True)


@_jit
def _sorted4(
    a: np.uint64, b: np.uint64, c: np.uint64, d: np.uint64
) -> tuple[np.uint64, np.uint64, np.uint64, np.uint64]:
    a, b = min(a, b), max(a, b)
    c, d = min(c, d), max(c, d)
    a, c = min(a, c), max(a, c)
    b, d = min(b, d), max(b, d)
    b, c = min(b, c), max(b, c)
    return a, b, c, d


@_jit
def _sorted5(
    a: np.uint64, b: np.uint64, c: np.uint64, d: np.uint64, e: np.uint64
) -> tuple[np.uint64, np.uint64, np.uint64, np.uint64, np.uint64]:
    a, b = min(a, b), max(a, b)
    d, e = min(d, e), max(d, e)
    c, e = min(c, e), max(c, e)
    c, d = min(c, d), max(c, d)
    a, d = min(a, d), max(a, d)
    a, c = min(a, c), max(a, c)
    b, e = min(b, e), max(b, e)
    b, d = min(b, d), max(b, d)
    b, c = min(b, c), max(b, c)
    return a, b, c, d, e


@_jit
def _rank(info: np.uint64) -> np.uint64:
    return info >> _U(CARD_INFO_RANK_SHIFT)


@_jit
def _hole_index(card_table, i0, i1, i2, i3):  # type: ignore[no-untyped-def]
    """Combinatorial index of the hole rank multiset, from the four card infos."""
    r0, r1, r2, r3 = _sorted4(_rank(i0), _rank(i1), _rank(i2), _rank(i3))
    base = _U(HOLE_TERM_OFFSET)
    return (
        card_table[base + r0]
        + card_table[base + _U(RANK_COUNT) + r1]
        + card_table[base + _U(2 * RANK_COUNT) + r2]
        + card_table[base + _U(3 * RANK_COUNT) + r3]
    )


@_jit
def _board_offset(card_table, j0, j1, j2, j3, j4):  # type: ignore[no-untyped-def]
    """Row offset of the board rank multiset in the high table, from the five card infos."""
    r0, r1, r2, r3, r4 = _sorted5(_rank(j0), _rank(j1), _rank(j2), _rank(j3), _rank(j4))
    base = _U(BOARD_TERM_OFFSET)
    return (
        card_table[base + r0]
        + card_table[base + _U(RANK_COUNT) + r1]
        + card_table[base + _U(2 * RANK_COUNT) + r2]
        + card_table[base + _U(3 * RANK_COUNT) + r3]
        + card_table[base + _U(4 * RANK_COUNT) + r4]
    )


@_jit
def _flush_suit(flags: np.uint64) -> np.uint64:
    for suit in range(4):
        if flags & (_U(8) << _U(4 * suit)):
            return _U(suit)
    return _U(0)


@_jit
def _suit_rank_mask(cards, first, count, suit):  # type: ignore[no-untyped-def]
    """Rank bit mask of the cards ``cards[first:first + count]`` of one suit."""
    mask = _U(0)
    for position in range(_U(count)):
        card = _U(cards[first + position])
        if card & _U(3) == suit:
            mask |= _U(1) << (card >> _U(2))
    # A code >= 52 (a bad row, raised by the caller) would set a bit above the 13 ranks, and
    # the flush table it indexes has 2**13 entries.
    return mask & _RANK_MASK


@_jit
def _best_flush(hole_mask, board_mask, flush_table):  # type: ignore[no-untyped-def]
    """Best flush of two ranks of ``hole_mask`` and three of ``board_mask`` (one suit)."""
    best = flush_table[0]
    first_bits = hole_mask
    while first_bits:
        first = first_bits & (~first_bits + _U(1))
        first_bits ^= first
        second_bits = first_bits
        while second_bits:
            second = second_bits & (~second_bits + _U(1))
            second_bits ^= second
            pair = first | second
            bits_i = board_mask
            while bits_i:
                bit_i = bits_i & (~bits_i + _U(1))
                bits_i ^= bit_i
                bits_j = bits_i
                while bits_j:
                    bit_j = bits_j & (~bits_j + _U(1))
                    bits_j ^= bit_j
                    bits_k = bits_j
                    while bits_k:
                        bit_k = bits_k & (~bits_k + _U(1))
                        bits_k ^= bit_k
                        best = max(best, flush_table[pair | bit_i | bit_j | bit_k])
    return best


@_jit
def _evaluate_chunk(  # type: ignore[no-untyped-def]
    hole, board, start, stop, high_out, low_out, card_table, flush_table, low_table, high_table
):
    """Evaluate rows ``start:stop``, each with its own board; return the first bad row or -1."""
    flush_rows = np.empty(stop - start, dtype=np.uint64)
    flush_count = 0
    first_bad = np.int64(NO_BAD_ROW)
    bit = _U(CARD_BIT_OFFSET)
    info = _U(CARD_INFO_OFFSET)
    for row in range(_U(start), _U(stop)):
        hole_base = row * _U(4)
        board_base = row * _U(5)
        h0 = _U(hole[hole_base])
        h1 = _U(hole[hole_base + _U(1)])
        h2 = _U(hole[hole_base + _U(2)])
        h3 = _U(hole[hole_base + _U(3)])
        b0 = _U(board[board_base])
        b1 = _U(board[board_base + _U(1)])
        b2 = _U(board[board_base + _U(2)])
        b3 = _U(board[board_base + _U(3)])
        b4 = _U(board[board_base + _U(4)])
        c0 = card_table[bit + h0]
        c1 = card_table[bit + h1]
        c2 = card_table[bit + h2]
        c3 = card_table[bit + h3]
        c4 = card_table[bit + b0]
        c5 = card_table[bit + b1]
        c6 = card_table[bit + b2]
        c7 = card_table[bit + b3]
        c8 = card_table[bit + b4]
        bit_sum = c0 + c1 + c2 + c3 + c4 + c5 + c6 + c7 + c8
        bit_union = c0 | c1 | c2 | c3 | c4 | c5 | c6 | c7 | c8
        is_bad = (bit_sum != bit_union) | ((bit_union & _INVALID_MASK) != _U(0))
        if is_bad and first_bad == NO_BAD_ROW:
            first_bad = np.int64(row)
        i0 = card_table[info + h0]
        i1 = card_table[info + h1]
        i2 = card_table[info + h2]
        i3 = card_table[info + h3]
        j0 = card_table[info + b0]
        j1 = card_table[info + b1]
        j2 = card_table[info + b2]
        j3 = card_table[info + b3]
        j4 = card_table[info + b4]
        high_out[row] = _board_offset(card_table, j0, j1, j2, j3, j4) + _hole_index(
            card_table, i0, i1, i2, i3
        )
        hole_union = i0 | i1 | i2 | i3
        board_union = j0 | j1 | j2 | j3 | j4
        low_out[row] = ((board_union >> _U(CARD_INFO_LOW_SHIFT - 8)) & (_LOW_MASK << _U(8))) | (
            (hole_union >> _U(CARD_INFO_LOW_SHIFT)) & _LOW_MASK
        )
        hole_suits = (i0 + i1 + i2 + i3) & _SUIT_MASK
        board_suits = (j0 + j1 + j2 + j3 + j4) & _SUIT_MASK
        flags = (
            (board_suits + _BOARD_FLUSH_BIAS) & (hole_suits + _HOLE_FLUSH_BIAS) & _FLUSH_FLAG_BITS
        )
        if flags != _U(0):
            flush_rows[flush_count] = row | (flags << _FLUSH_FLAG_SHIFT)
            flush_count += 1
    for row in range(_U(start), _U(stop)):
        high_out[row] = high_table[_U(high_out[row])]
        low_out[row] = low_table[_U(low_out[row])]
    for position in range(flush_count):
        row = flush_rows[position] & _ROW_MASK
        suit = _flush_suit(flush_rows[position] >> _FLUSH_FLAG_SHIFT)
        flush_value = _best_flush(
            _suit_rank_mask(hole, row * _U(4), 4, suit),
            _suit_rank_mask(board, row * _U(5), 5, suit),
            flush_table,
        )
        high_out[row] = max(high_out[row], flush_value)
    return first_bad


@_jit
def evaluate_rows_serial(  # type: ignore[no-untyped-def]
    hole, board, high_out, low_out, card_table, flush_table, low_table, high_table
):
    """Evaluate every row (flattened inputs) on the calling thread; first bad row or -1."""
    row_count = high_out.shape[0]
    first_bad = np.int64(NO_BAD_ROW)
    for start in range(0, row_count, CHUNK_ROWS):
        bad = _evaluate_chunk(
            hole, board, start, min(start + CHUNK_ROWS, row_count), high_out, low_out,
            card_table, flush_table, low_table, high_table,
        )  # fmt: skip
        if bad != NO_BAD_ROW and first_bad == NO_BAD_ROW:
            first_bad = bad
    return first_bad


@_parallel_jit
def evaluate_rows_parallel(  # type: ignore[no-untyped-def]
    hole, board, high_out, low_out, card_table, flush_table, low_table, high_table
):
    """Evaluate every row (flattened inputs) on numba's thread pool; first bad row or -1."""
    row_count = high_out.shape[0]
    chunk_count = (row_count + CHUNK_ROWS - 1) // CHUNK_ROWS
    bad_rows = np.empty(chunk_count, dtype=np.int64)
    for chunk in prange(chunk_count):
        start = chunk * CHUNK_ROWS
        bad_rows[chunk] = _evaluate_chunk(
            hole, board, start, min(start + CHUNK_ROWS, row_count), high_out, low_out,
            card_table, flush_table, low_table, high_table,
        )  # fmt: skip
    for chunk in range(chunk_count):
        if bad_rows[chunk] != NO_BAD_ROW:
            return bad_rows[chunk]
    return NO_BAD_ROW


@_jit
def _prepare_boards_chunk(boards, start, stop, board_data, card_table):  # type: ignore[no-untyped-def]
    """Per-board work shared by the board's players; return the first bad board or -1.

    ``board_data`` (B * 3 uint64) receives per board: the high-table row offset with the
    low rank mask at bit 32 and the flush flags at bit 48; the board's card bits; the rank
    mask of its flush suit (if >= 3 cards share one) with the suit at bit 16.
    """
    first_bad = np.int64(NO_BAD_ROW)
    for row in range(_U(start), _U(stop)):
        base = row * _U(5)
        bit_sum = _U(0)
        bit_union = _U(0)
        for position in range(_U(5)):
            card_bit = card_table[_U(CARD_BIT_OFFSET) + _U(boards[base + position])]
            bit_sum += card_bit
            bit_union |= card_bit
        is_bad = (bit_sum != bit_union) | ((bit_union & _INVALID_MASK) != _U(0))
        if is_bad and first_bad == NO_BAD_ROW:
            first_bad = np.int64(row)
        info = _U(CARD_INFO_OFFSET)
        j0 = card_table[info + _U(boards[base])]
        j1 = card_table[info + _U(boards[base + _U(1)])]
        j2 = card_table[info + _U(boards[base + _U(2)])]
        j3 = card_table[info + _U(boards[base + _U(3)])]
        j4 = card_table[info + _U(boards[base + _U(4)])]
        low_mask = ((j0 | j1 | j2 | j3 | j4) >> _U(CARD_INFO_LOW_SHIFT)) & _LOW_MASK
        flags = (((j0 + j1 + j2 + j3 + j4) & _SUIT_MASK) + _BOARD_FLUSH_BIAS) & _FLUSH_FLAG_BITS
        output = row * _U(BOARD_DATA_WIDTH)
        board_data[output] = (
            _board_offset(card_table, j0, j1, j2, j3, j4) | (low_mask << _U(32)) | (flags << _U(48))
        )
        board_data[output + _U(1)] = bit_union
        if flags != _U(0):
            suit = _flush_suit(flags)
            board_data[output + _U(2)] = _suit_rank_mask(boards, base, 5, suit) | (suit << _U(16))
        else:
            board_data[output + _U(2)] = _U(0)
    return first_bad


@_jit
def prepare_boards_serial(boards, board_data, card_table):  # type: ignore[no-untyped-def]
    """Prepare every board on the calling thread; return the first bad board or -1."""
    return _prepare_boards_chunk(
        boards, 0, board_data.shape[0] // BOARD_DATA_WIDTH, board_data, card_table
    )


@_parallel_jit
def prepare_boards_parallel(boards, board_data, card_table):  # type: ignore[no-untyped-def]
    """Prepare every board on numba's thread pool; return the first bad board or -1."""
    board_count = board_data.shape[0] // BOARD_DATA_WIDTH
    chunk_count = (board_count + CHUNK_ROWS - 1) // CHUNK_ROWS
    bad_rows = np.empty(chunk_count, dtype=np.int64)
    for chunk in prange(chunk_count):
        start = chunk * CHUNK_ROWS
        bad_rows[chunk] = _prepare_boards_chunk(
            boards, start, min(start + CHUNK_ROWS, board_count), board_data, card_table
        )
    for chunk in range(chunk_count):
        if bad_rows[chunk] != NO_BAD_ROW:
            return bad_rows[chunk]
    return NO_BAD_ROW


@_jit
def _evaluate_players_chunk(  # type: ignore[no-untyped-def]
    hole, board_index, start, stop, high_out, low_out, board_data,
    card_table, flush_table, low_table, high_table,
):  # fmt: skip
    """Evaluate players ``start:stop`` against prepared boards; first bad row or -1."""
    # Rows that may hold a flush, and their boards, kept apart: packing both into one word
    # limited a call to 65,536 boards.
    flush_rows = np.empty(stop - start, dtype=np.uint64)
    flush_boards = np.empty(stop - start, dtype=np.uint64)
    flush_count = 0
    first_bad = np.int64(NO_BAD_ROW)
    board_count = _U(board_data.shape[0] // BOARD_DATA_WIDTH)
    bit = _U(CARD_BIT_OFFSET)
    info = _U(CARD_INFO_OFFSET)
    for row in range(_U(start), _U(stop)):
        board = _U(board_index[row])  # a negative index wraps to a huge one: out of range
        if board >= board_count:
            first_bad = np.int64(row) if first_bad == NO_BAD_ROW else first_bad
            board = _U(0)
        board_base = board * _U(BOARD_DATA_WIDTH)
        packed = board_data[board_base]
        hole_base = row * _U(4)
        h0 = _U(hole[hole_base])
        h1 = _U(hole[hole_base + _U(1)])
        h2 = _U(hole[hole_base + _U(2)])
        h3 = _U(hole[hole_base + _U(3)])
        c0 = card_table[bit + h0]
        c1 = card_table[bit + h1]
        c2 = card_table[bit + h2]
        c3 = card_table[bit + h3]
        bit_sum = c0 + c1 + c2 + c3
        bit_union = c0 | c1 | c2 | c3
        is_bad = (
            (bit_sum != bit_union)
            | ((bit_union & _INVALID_MASK) != _U(0))
            | ((bit_union & board_data[board_base + _U(1)]) != _U(0))
        )
        if is_bad and first_bad == NO_BAD_ROW:
            first_bad = np.int64(row)
        i0 = card_table[info + h0]
        i1 = card_table[info + h1]
        i2 = card_table[info + h2]
        i3 = card_table[info + h3]
        high_out[row] = (packed & _WORD_MASK) + _hole_index(card_table, i0, i1, i2, i3)
        low_out[row] = ((packed >> _U(24)) & (_LOW_MASK << _U(8))) | (
            ((i0 | i1 | i2 | i3) >> _U(CARD_INFO_LOW_SHIFT)) & _LOW_MASK
        )
        hole_suits = (i0 + i1 + i2 + i3) & _SUIT_MASK
        if ((packed >> _U(48)) & (hole_suits + _HOLE_FLUSH_BIAS)) != _U(0):
            flush_rows[flush_count] = row
            flush_boards[flush_count] = board
            flush_count += 1
    for row in range(_U(start), _U(stop)):
        high_out[row] = high_table[_U(high_out[row])]
        low_out[row] = low_table[_U(low_out[row])]
    for position in range(flush_count):
        row = flush_rows[position]
        board = flush_boards[position]
        flush_word = board_data[board * _U(BOARD_DATA_WIDTH) + _U(2)]
        suit = flush_word >> _U(16)
        flush_value = _best_flush(
            _suit_rank_mask(hole, row * _U(4), 4, suit), flush_word & _RANK_MASK, flush_table
        )
        high_out[row] = max(high_out[row], flush_value)
    return first_bad


@_jit
def evaluate_players_serial(  # type: ignore[no-untyped-def]
    hole, board_index, high_out, low_out, board_data, card_table, flush_table, low_table,
    high_table,
):  # fmt: skip
    """Evaluate players against prepared boards on the calling thread; first bad row or -1."""
    row_count = high_out.shape[0]
    first_bad = np.int64(NO_BAD_ROW)
    for start in range(0, row_count, CHUNK_ROWS):
        bad = _evaluate_players_chunk(
            hole, board_index, start, min(start + CHUNK_ROWS, row_count), high_out, low_out,
            board_data, card_table, flush_table, low_table, high_table,
        )  # fmt: skip
        if bad != NO_BAD_ROW and first_bad == NO_BAD_ROW:
            first_bad = bad
    return first_bad


@_parallel_jit
def evaluate_players_parallel(  # type: ignore[no-untyped-def]
    hole, board_index, high_out, low_out, board_data, card_table, flush_table, low_table,
    high_table,
):  # fmt: skip
    """Evaluate players against prepared boards on numba's thread pool; first bad row or -1."""
    row_count = high_out.shape[0]
    chunk_count = (row_count + CHUNK_ROWS - 1) // CHUNK_ROWS
    bad_rows = np.empty(chunk_count, dtype=np.int64)
    for chunk in prange(chunk_count):
        start = chunk * CHUNK_ROWS
        bad_rows[chunk] = _evaluate_players_chunk(
            hole, board_index, start, min(start + CHUNK_ROWS, row_count), high_out, low_out,
            board_data, card_table, flush_table, low_table, high_table,
        )  # fmt: skip
    for chunk in range(chunk_count):
        if bad_rows[chunk] != NO_BAD_ROW:
            return bad_rows[chunk]
    return NO_BAD_ROW
