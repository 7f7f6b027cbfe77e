"""numba kernels for rows of five or six hole cards (internal; see `pipeline.evaluator`).

Big O, Courchevel and 6-card Omaha Hi/Lo play exactly two hole cards, like Omaha, so a row's
best high is the best over its hole *pairs* and its low needs two distinct low hole ranks.

High: three four-card subsets of the hole hold every pair of its five or six cards (a
covering design), so the best non-flush high is the largest of the three subsets' entries in
the 4-card high table (H45, `pipeline.evaluator.tables`):

- six cards: {0, 1, 2, 3}, {0, 1, 4, 5}, {2, 3, 4, 5}; a pair inside the first four is in the
  first, a pair meeting {4, 5} is in the second (with 0 or 1) or the third (with 2 or 3);
- five cards: {0, 1, 2, 3}, {0, 1, 4, 2}, {2, 3, 4, 0}; card 4 pairs with 0 and 1 in the
  second, with 2 and 3 in the third.

A row costs three H45 reads for five or six cards, against one for four, and no table of its
own. The candidates were measured on one core as prototypes without flushes or validation,
rates relative to the full 4-card kernel (5 / 6 cards): a table of the best high per (board
rank multiset, hole rank pair), 6,188 x 169 uint16 = 2.1 MB, read 10 or 15 times a row, ran
0.72x / 0.63x on random deals and 0.84x / 0.71x on shared boards; these three subsets 0.87x /
0.87x and 0.75x / 0.76x. A table per 5-card hole rank multiset would take 77 MB (6-card:
230 MB) to save two reads.

Low: the LOW2 table is indexed by the rank masks of hole and board, whatever the hole count.
Flushes: as in `pipeline.evaluator.kernels`, a suit with >= 2 hole and >= 3 board cards marks
the row; the third pass tries every pair of the hole's cards of that suit.

Layout, validation and the three passes are those of `pipeline.evaluator.kernels` (read its
docstring): hole rows arrive flattened with ``width`` cards each, every uint8 code indexes the
tables safely, and the first bad row is returned instead of raised.
"""

from __future__ import annotations

import numba
import numpy as np
from numba import prange

from pipeline.evaluator.kernels import (
    _BOARD_FLUSH_BIAS,
    _FLUSH_FLAG_BITS,
    _FLUSH_FLAG_SHIFT,
    _HOLE_FLUSH_BIAS,
    _INVALID_MASK,
    _LOW_MASK,
    _RANK_MASK,
    _ROW_MASK,
    _SUIT_MASK,
    _WORD_MASK,
    BOARD_DATA_WIDTH,
    CHUNK_ROWS,
    NO_BAD_ROW,
    _best_flush,
    _board_offset,
    _flush_suit,
    _hole_index,
    _suit_rank_mask,
)
from pipeline.evaluator.tables import CARD_BIT_OFFSET, CARD_INFO_LOW_SHIFT, CARD_INFO_OFFSET

__all__ = [
    "evaluate_wide_players_parallel",
    "evaluate_wide_players_serial",
    "evaluate_wide_rows_parallel",
    "evaluate_wide_rows_serial",
]

_U = np.uint64
# The flush flags of pipeline.evaluator.kernels hold for six hole cards: a suit nibble counts
# at most 6 of them, and 6 + _HOLE_FLUSH_BIAS's 6 = 12 does not carry into the next nibble.

_jit = numba.njit(cache=True, nogil=True)
_parallel_jit = numba.njit(cache=True, nogil=True, parallel=True)


@_jit
def _cover_indices(card_table, six, i0, i1, i2, i3, i4, i5):  # type: ignore[no-untyped-def]
    """H45 hole indices of the three four-card subsets that hold every pair of the hole
    (cards 0..4, and 5 when ``six``; ``i5`` is ignored otherwise)."""
    # Sorting the ranks once and taking the subsets by sorted position saves comparisons
    # but measured 5-7 % slower than three independent four-card sorts.
    second_last = i5 if six else i2
    third_last = i5 if six else i0
    return (
        _hole_index(card_table, i0, i1, i2, i3),
        _hole_index(card_table, i0, i1, i4, second_last),
        _hole_index(card_table, i2, i3, i4, third_last),
    )


@_jit
def _evaluate_wide_chunk(  # type: ignore[no-untyped-def]
    hole, width, board, start, stop, high_out, low_out, card_table, flush_table, low_table,
    high_table,
):  # fmt: skip
    """Evaluate rows ``start:stop`` of ``width`` (5 or 6) hole cards; first bad row or -1."""
    flush_rows = np.empty(stop - start, dtype=np.uint64)
    # The second and third subset indices of each row; the first is parked in high_out.
    more = np.empty(2 * (stop - start), dtype=np.uint64)
    flush_count = 0
    first_bad = np.int64(NO_BAD_ROW)
    six = width == 6
    stride = _U(width)
    bit = _U(CARD_BIT_OFFSET)
    info = _U(CARD_INFO_OFFSET)
    for row in range(_U(start), _U(stop)):
        hole_base = row * stride
        board_base = row * _U(5)
        h0 = _U(hole[hole_base])
        h1 = _U(hole[hole_base + _U(1)])
        h2 = _U(hole[hole_base + _U(2)])
        h3 = _U(hole[hole_base + _U(3)])
        h4 = _U(hole[hole_base + _U(4)])
        b0 = _U(board[board_base])
        b1 = _U(board[board_base + _U(1)])
        b2 = _U(board[board_base + _U(2)])
        b3 = _U(board[board_base + _U(3)])
        b4 = _U(board[board_base + _U(4)])
        c5 = _U(0)
        i5 = _U(0)
        if six:
            h5 = _U(hole[hole_base + _U(5)])
            c5 = card_table[bit + h5]
            i5 = card_table[info + h5]
        bit_sum = (
            card_table[bit + h0] + card_table[bit + h1] + card_table[bit + h2]
            + card_table[bit + h3] + card_table[bit + h4] + c5
            + card_table[bit + b0] + card_table[bit + b1] + card_table[bit + b2]
            + card_table[bit + b3] + card_table[bit + b4]
        )  # fmt: skip
        bit_union = (
            card_table[bit + h0] | card_table[bit + h1] | card_table[bit + h2]
            | card_table[bit + h3] | card_table[bit + h4] | c5
            | card_table[bit + b0] | card_table[bit + b1] | card_table[bit + b2]
            | card_table[bit + b3] | card_table[bit + b4]
        )  # fmt: skip
        is_bad = (bit_sum != bit_union) | ((bit_union & _INVALID_MASK) != _U(0))
        if is_bad and first_bad == NO_BAD_ROW:
            first_bad = np.int64(row)
        i0 = card_table[info + h0]
        i1 = card_table[info + h1]
        i2 = card_table[info + h2]
        i3 = card_table[info + h3]
        i4 = card_table[info + h4]
        j0 = card_table[info + b0]
        j1 = card_table[info + b1]
        j2 = card_table[info + b2]
        j3 = card_table[info + b3]
        j4 = card_table[info + b4]
        offset = _board_offset(card_table, j0, j1, j2, j3, j4)
        first, second, third = _cover_indices(card_table, six, i0, i1, i2, i3, i4, i5)
        local = (row - _U(start)) * _U(2)
        high_out[row] = offset + first
        more[local] = offset + second
        more[local + _U(1)] = offset + third
        hole_union = i0 | i1 | i2 | i3 | i4 | i5
        board_union = j0 | j1 | j2 | j3 | j4
        low_out[row] = ((board_union >> _U(CARD_INFO_LOW_SHIFT - 8)) & (_LOW_MASK << _U(8))) | (
            (hole_union >> _U(CARD_INFO_LOW_SHIFT)) & _LOW_MASK
        )
        hole_suits = (i0 + i1 + i2 + i3 + i4 + i5) & _SUIT_MASK
        board_suits = (j0 + j1 + j2 + j3 + j4) & _SUIT_MASK
        flags = (
            (board_suits + _BOARD_FLUSH_BIAS) & (hole_suits + _HOLE_FLUSH_BIAS) & _FLUSH_FLAG_BITS
        )
        if flags != _U(0):
            flush_rows[flush_count] = row | (flags << _FLUSH_FLAG_SHIFT)
            flush_count += 1
    for row in range(_U(start), _U(stop)):
        local = (row - _U(start)) * _U(2)
        high_out[row] = max(
            high_table[_U(high_out[row])], high_table[more[local]], high_table[more[local + _U(1)]]
        )
        low_out[row] = low_table[_U(low_out[row])]
    for position in range(flush_count):
        row = flush_rows[position] & _ROW_MASK
        suit = _flush_suit(flush_rows[position] >> _FLUSH_FLAG_SHIFT)
        flush_value = _best_flush(
            _suit_rank_mask(hole, row * stride, width, suit),
            _suit_rank_mask(board, row * _U(5), 5, suit),
            flush_table,
        )
        high_out[row] = max(high_out[row], flush_value)
    return first_bad


@_jit
def evaluate_wide_rows_serial(  # type: ignore[no-untyped-def]
    hole, width, board, high_out, low_out, card_table, flush_table, low_table, high_table
):
    """Evaluate every row of ``width`` hole cards on the calling thread; first bad row or -1."""
    row_count = high_out.shape[0]
    first_bad = np.int64(NO_BAD_ROW)
    for start in range(0, row_count, CHUNK_ROWS):
        bad = _evaluate_wide_chunk(
            hole, width, board, start, min(start + CHUNK_ROWS, row_count), high_out, low_out,
            card_table, flush_table, low_table, high_table,
        )  # fmt: skip
        if bad != NO_BAD_ROW and first_bad == NO_BAD_ROW:
            first_bad = bad
    return first_bad


@_parallel_jit
def evaluate_wide_rows_parallel(  # type: ignore[no-untyped-def]
    hole, width, board, high_out, low_out, card_table, flush_table, low_table, high_table
):
    """Evaluate every row of ``width`` hole cards on numba's thread pool; first bad row or -1."""
    row_count = high_out.shape[0]
    chunk_count = (row_count + CHUNK_ROWS - 1) // CHUNK_ROWS
    bad_rows = np.empty(chunk_count, dtype=np.int64)
    for chunk in prange(chunk_count):
        start = chunk * CHUNK_ROWS
        bad_rows[chunk] = _evaluate_wide_chunk(
            hole, width, board, start, min(start + CHUNK_ROWS, row_count), high_out, low_out,
            card_table, flush_table, low_table, high_table,
        )  # fmt: skip
    for chunk in range(chunk_count):
        if bad_rows[chunk] != NO_BAD_ROW:
            return bad_rows[chunk]
    return NO_BAD_ROW


@_jit
def _evaluate_wide_players_chunk(  # type: ignore[no-untyped-def]
    hole, width, board_index, start, stop, high_out, low_out, board_data,
    card_table, flush_table, low_table, high_table,
):  # fmt: skip
    """Players ``start:stop`` of ``width`` (5 or 6) hole cards against boards prepared by
    `pipeline.evaluator.kernels.prepare_boards_serial`; first bad row or -1."""
    flush_rows = np.empty(stop - start, dtype=np.uint64)
    flush_boards = np.empty(stop - start, dtype=np.uint64)
    more = np.empty(2 * (stop - start), dtype=np.uint64)
    flush_count = 0
    first_bad = np.int64(NO_BAD_ROW)
    board_count = _U(board_data.shape[0] // BOARD_DATA_WIDTH)
    six = width == 6
    stride = _U(width)
    bit = _U(CARD_BIT_OFFSET)
    info = _U(CARD_INFO_OFFSET)
    for row in range(_U(start), _U(stop)):
        board = _U(board_index[row])  # a negative index wraps to a huge one: out of range
        if board >= board_count:
            first_bad = np.int64(row) if first_bad == NO_BAD_ROW else first_bad
            board = _U(0)
        board_base = board * _U(BOARD_DATA_WIDTH)
        packed = board_data[board_base]
        hole_base = row * stride
        h0 = _U(hole[hole_base])
        h1 = _U(hole[hole_base + _U(1)])
        h2 = _U(hole[hole_base + _U(2)])
        h3 = _U(hole[hole_base + _U(3)])
        h4 = _U(hole[hole_base + _U(4)])
        c5 = _U(0)
        i5 = _U(0)
        if six:
            h5 = _U(hole[hole_base + _U(5)])
            c5 = card_table[bit + h5]
            i5 = card_table[info + h5]
        c0 = card_table[bit + h0]
        c1 = card_table[bit + h1]
        c2 = card_table[bit + h2]
        c3 = card_table[bit + h3]
        c4 = card_table[bit + h4]
        bit_sum = c0 + c1 + c2 + c3 + c4 + c5
        bit_union = c0 | c1 | c2 | c3 | c4 | c5
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
        i4 = card_table[info + h4]
        offset = packed & _WORD_MASK
        first, second, third = _cover_indices(card_table, six, i0, i1, i2, i3, i4, i5)
        local = (row - _U(start)) * _U(2)
        high_out[row] = offset + first
        more[local] = offset + second
        more[local + _U(1)] = offset + third
        low_out[row] = ((packed >> _U(24)) & (_LOW_MASK << _U(8))) | (
            ((i0 | i1 | i2 | i3 | i4 | i5) >> _U(CARD_INFO_LOW_SHIFT)) & _LOW_MASK
        )
        hole_suits = (i0 + i1 + i2 + i3 + i4 + i5) & _SUIT_MASK
        if ((packed >> _U(48)) & (hole_suits + _HOLE_FLUSH_BIAS)) != _U(0):
            flush_rows[flush_count] = row
            flush_boards[flush_count] = board
            flush_count += 1
    for row in range(_U(start), _U(stop)):
        local = (row - _U(start)) * _U(2)
        high_out[row] = max(
            high_table[_U(high_out[row])], high_table[more[local]], high_table[more[local + _U(1)]]
        )
        low_out[row] = low_table[_U(low_out[row])]
    for position in range(flush_count):
        row = flush_rows[position]
        board = flush_boards[position]
        flush_word = board_data[board * _U(BOARD_DATA_WIDTH) + _U(2)]
        suit = flush_word >> _U(16)
        flush_value = _best_flush(
            _suit_rank_mask(hole, row * stride, width, suit), flush_word & _RANK_MASK, flush_table
        )
        high_out[row] = max(high_out[row], flush_value)
    return first_bad


@_jit
def evaluate_wide_players_serial(  # type: ignore[no-untyped-def]
    hole, width, board_index, high_out, low_out, board_data, card_table, flush_table,
    low_table, high_table,
):  # fmt: skip
    """Players of ``width`` hole cards against prepared boards, on the calling thread."""
    row_count = high_out.shape[0]
    first_bad = np.int64(NO_BAD_ROW)
    for start in range(0, row_count, CHUNK_ROWS):
        bad = _evaluate_wide_players_chunk(
            hole, width, board_index, start, min(start + CHUNK_ROWS, row_count), high_out,
            low_out, board_data, card_table, flush_table, low_table, high_table,
        )  # fmt: skip
        if bad != NO_BAD_ROW and first_bad == NO_BAD_ROW:
            first_bad = bad
    return first_bad


@_parallel_jit
def evaluate_wide_players_parallel(  # type: ignore[no-untyped-def]
    hole, width, board_index, high_out, low_out, board_data, card_table, flush_table,
    low_table, high_table,
):  # fmt: skip
    """Players of ``width`` hole cards against prepared boards, on numba's thread pool."""
    row_count = high_out.shape[0]
    chunk_count = (row_count + CHUNK_ROWS - 1) // CHUNK_ROWS
    bad_rows = np.empty(chunk_count, dtype=np.int64)
    for chunk in prange(chunk_count):
        start = chunk * CHUNK_ROWS
        bad_rows[chunk] = _evaluate_wide_players_chunk(
            hole, width, board_index, start, min(start + CHUNK_ROWS, row_count), high_out,
            low_out, board_data, card_table, flush_table, low_table, high_table,
        )  # fmt: skip
    for chunk in range(chunk_count):
        if bad_rows[chunk] != NO_BAD_ROW:
            return bad_rows[chunk]
    return NO_BAD_ROW
