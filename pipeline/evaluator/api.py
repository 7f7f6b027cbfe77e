"""Public entry points of the hi/lo evaluator: validation, dispatch, results.

Card code ``rank * 4 + suit``: rank 0..12 = 2..A, suit 0..3 = c, d, h, s.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import Any

import numba
import numpy as np
import numpy.typing as npt

from pipeline.evaluator import kernels, kernels_wide
from pipeline.evaluator.tables import EvaluatorTables, load_tables

__all__ = ["card_text", "evaluate", "evaluate_showdowns", "parse_cards", "warm_up"]

HOLE_CARD_COUNT = 4
HOLE_CARD_COUNTS = (4, 5, 6)  # Omaha Hi/Lo, Big O and Courchevel, 6-card
BOARD_CARD_COUNT = 5
CARD_COUNT = 52
# Below this many rows the thread pool's start-up costs more than it saves.
PARALLEL_MINIMUM_ROWS = 4 * kernels.CHUNK_ROWS

RANK_SYMBOLS = "23456789TJQKA"
SUIT_SYMBOLS = "cdhs"

CardArray = npt.NDArray[np.uint8]
ValueArray = npt.NDArray[np.int32]


def card_text(code: int) -> str:
    """Two-character text of a card code.

    Examples
    --------
    >>> card_text(51)
    'As'
    """
    if not 0 <= code < CARD_COUNT:
        raise ValueError(f"card code {code} is not in 0..{CARD_COUNT - 1}")
    return RANK_SYMBOLS[code // 4] + SUIT_SYMBOLS[code % 4]


def parse_cards(text: str) -> CardArray:
    """Card codes of a text such as ``"As Kd 2c"`` or ``"AsKd2c"``.

    Examples
    --------
    >>> parse_cards("2c As").tolist()
    [0, 51]
    """
    compact = "".join(text.split())
    if len(compact) % 2:
        raise ValueError(f"cannot read cards from {text!r}")
    codes = []
    for position in range(0, len(compact), 2):
        rank = RANK_SYMBOLS.find(compact[position].upper())
        suit = SUIT_SYMBOLS.find(compact[position + 1].lower())
        if rank < 0 or suit < 0:
            raise ValueError(f"cannot read card {compact[position : position + 2]!r} in {text!r}")
        codes.append(rank * 4 + suit)
    return np.array(codes, dtype=np.uint8)


def _check_card_array(name: str, array: object, columns: int | tuple[int, ...]) -> CardArray:
    if not isinstance(array, np.ndarray):
        # ValueError, not TypeError: callers handle one exception for any unusable input.
        message = f"{name} must be a numpy uint8 array, got {type(array).__name__}"
        raise ValueError(message)  # noqa: TRY004
    if array.dtype != np.uint8:
        raise ValueError(f"{name} must have dtype uint8, got {array.dtype}")
    allowed = (columns,) if isinstance(columns, int) else columns
    if array.ndim != 2 or array.shape[1] not in allowed:
        shapes = " or ".join(f"(N, {count})" for count in allowed)
        raise ValueError(f"{name} must have shape {shapes}, got {array.shape}")
    return np.ascontiguousarray(array)


def _row_problem(cards: list[int]) -> str:
    """Why a row of card codes (hole first, then board) is not a valid deal."""
    for code in cards:
        if code >= CARD_COUNT:
            return f"card code {code} is not in 0..{CARD_COUNT - 1}"
    seen: set[int] = set()
    for code in cards:
        if code in seen:
            return f"card {card_text(code)} appears twice"
        seen.add(code)
    return "invalid cards"


# numba's workqueue threading layer aborts the process if two Python threads launch
# parallel kernels at once, so at most one thread uses the pool; the others run the serial
# kernel, which releases the GIL and is safe to run concurrently.
_parallel_lock = threading.Lock()
# GNU OpenMP (numba's omp layer) can hang in a child forked after its threads started, as
# in a fork-based process pool whose parent evaluated first; such children stay serial
# unless asked explicitly. One numba thread per worker process is the right shape anyway.
_pool_started = False
_forked_after_pool = False


def _note_fork() -> None:
    global _forked_after_pool
    _forked_after_pool = _forked_after_pool or _pool_started


os.register_at_fork(after_in_child=_note_fork)


def _run_kernel(
    serial: Callable[..., int],
    parallel: Callable[..., int],
    row_count: int,
    use_parallel: bool | None,
    *arguments: Any,
) -> int:
    global _pool_started
    wanted = (
        row_count >= PARALLEL_MINIMUM_ROWS
        and numba.get_num_threads() > 1
        and not _forked_after_pool
        if use_parallel is None
        else use_parallel
    )
    if wanted and _parallel_lock.acquire(blocking=False):
        try:
            _pool_started = True
            return int(parallel(*arguments))
        finally:
            _parallel_lock.release()
    return int(serial(*arguments))


def evaluate(
    hole: CardArray, board: CardArray, *, parallel: bool | None = None
) -> tuple[ValueArray, ValueArray]:
    """Best Omaha high and best eight-or-better low of each row, each from 2 hole + 3 board cards.

    Parameters
    ----------
    hole
        uint8 array (N, 4), (N, 5) or (N, 6) of hole card codes (Omaha Hi/Lo, Big O and
        Courchevel, 6-card Omaha Hi/Lo); exactly two of them play.
    board
        uint8 array (N, 5) of board card codes, one board per row.
    parallel
        Use numba's thread pool (``numba.set_num_threads`` sets its size). Default: when
        there are enough rows to pay for it, never in a process forked after this
        process used the pool. In a process pool, give each worker one numba thread.

    Returns
    -------
    high, low
        int32 arrays of length N. ``high`` is 1..7462, larger is better, equal is a tie
        (``7463 - high`` is phevaluator's rank). ``low`` is 1..56, larger is better,
        0 = no qualifying low. High and low are chosen independently.

    Raises
    ------
    ValueError
        Wrong type, dtype or shape, or a row with a code >= 52 or a repeated card; the
        message names the first bad row.

    Examples
    --------
    >>> import numpy as np
    >>> hole = np.array([[48, 0, 4, 44]], dtype=np.uint8)       # Ac 2c 3c Kc
    >>> board = np.array([[8, 13, 30, 41, 51]], dtype=np.uint8)  # 4c 5d 9h Qd As
    >>> high, low = evaluate(hole, board)
    >>> from pipeline.evaluator import describe_high, describe_low
    >>> describe_high(high[0]), describe_low(low[0])
    ('a straight, Ace to Five', '5,4,3,2,A')
    """
    hole = _check_card_array("hole", hole, HOLE_CARD_COUNTS)
    board = _check_card_array("board", board, BOARD_CARD_COUNT)
    if hole.shape[0] != board.shape[0]:
        raise ValueError(f"hole has {hole.shape[0]} rows but board has {board.shape[0]}")
    row_count = hole.shape[0]
    high = np.empty(row_count, dtype=np.int32)
    low = np.empty(row_count, dtype=np.int32)
    if row_count == 0:
        return high, low
    tables = load_tables()
    if hole.shape[1] == HOLE_CARD_COUNT:
        bad_row = _run_kernel(
            kernels.evaluate_rows_serial, kernels.evaluate_rows_parallel, row_count, parallel,
            hole.reshape(-1), board.reshape(-1), high, low,
            tables.card_table, tables.flush, tables.low, tables.high,
        )  # fmt: skip
    else:
        bad_row = _run_kernel(
            kernels_wide.evaluate_wide_rows_serial, kernels_wide.evaluate_wide_rows_parallel,
            row_count, parallel, hole.reshape(-1), hole.shape[1], board.reshape(-1), high, low,
            tables.card_table, tables.flush, tables.low, tables.high,
        )  # fmt: skip
    if bad_row != kernels.NO_BAD_ROW:
        cards = [int(code) for code in hole[bad_row]] + [int(code) for code in board[bad_row]]
        raise ValueError(f"row {bad_row}: {_row_problem(cards)} (hole + board {cards})")
    return high, low


def evaluate_showdowns(
    hole: CardArray,
    board_index: npt.NDArray[np.integer],
    boards: CardArray,
    *,
    parallel: bool | None = None,
) -> tuple[ValueArray, ValueArray]:
    """Like `evaluate`, with each board shared by several players and prepared once.

    Parameters
    ----------
    hole
        uint8 array (M, 4), (M, 5) or (M, 6) of hole card codes, one row per player-hand.
    board_index
        Integer array (M,): row of ``boards`` the player plays against (a run-it-twice
        hand has one board row per run and one player row per run).
    boards
        uint8 array (B, 5) of board card codes.
    parallel
        As in `evaluate`.

    Returns
    -------
    high, low
        int32 arrays of length M, encoded as in `evaluate`.

    Raises
    ------
    ValueError
        Wrong type, dtype or shape; a board row with a code >= 52 or a repeated card
        (names the board row); a player row whose index is out of range, or whose cards
        are invalid, repeated or also on its board (names the player row).
    """
    hole = _check_card_array("hole", hole, HOLE_CARD_COUNTS)
    boards = _check_card_array("boards", boards, BOARD_CARD_COUNT)
    if not isinstance(board_index, np.ndarray) or not np.issubdtype(board_index.dtype, np.integer):
        raise ValueError("board_index must be a numpy integer array")
    if board_index.shape != (hole.shape[0],):
        raise ValueError(f"board_index must have shape ({hole.shape[0]},), got {board_index.shape}")
    given_index = board_index
    # Huge uint64 values wrap to negative int64, which the kernel rejects like any other.
    board_index = np.ascontiguousarray(board_index).astype(np.int64, copy=False)
    row_count = hole.shape[0]
    board_count = boards.shape[0]
    high = np.empty(row_count, dtype=np.int32)
    low = np.empty(row_count, dtype=np.int32)
    tables = load_tables()
    board_data = np.empty(board_count * kernels.BOARD_DATA_WIDTH, dtype=np.uint64)
    bad_board = _run_kernel(
        kernels.prepare_boards_serial, kernels.prepare_boards_parallel, board_count, parallel,
        boards.reshape(-1), board_data, tables.card_table,
    )  # fmt: skip
    if bad_board != kernels.NO_BAD_ROW:
        cards = [int(code) for code in boards[bad_board]]
        raise ValueError(f"boards row {bad_board}: {_row_problem(cards)} (board {cards})")
    if row_count == 0:
        return high, low
    if hole.shape[1] == HOLE_CARD_COUNT:
        bad_row = _run_kernel(
            kernels.evaluate_players_serial, kernels.evaluate_players_parallel, row_count,
            parallel, hole.reshape(-1), board_index, high, low, board_data,
            tables.card_table, tables.flush, tables.low, tables.high,
        )  # fmt: skip
    else:
        bad_row = _run_kernel(
            kernels_wide.evaluate_wide_players_serial, kernels_wide.evaluate_wide_players_parallel,
            row_count, parallel, hole.reshape(-1), hole.shape[1], board_index, high, low,
            board_data, tables.card_table, tables.flush, tables.low, tables.high,
        )  # fmt: skip
    if bad_row != kernels.NO_BAD_ROW:
        index = int(given_index[bad_row])
        if not 0 <= index < board_count:
            raise ValueError(f"row {bad_row}: board index {index} is not in 0..{board_count - 1}")
        cards = [int(code) for code in hole[bad_row]] + [int(code) for code in boards[index]]
        raise ValueError(f"row {bad_row}: {_row_problem(cards)} (hole + board {index} {cards})")
    return high, low


def warm_up() -> EvaluatorTables:
    """Load (or build) the tables and compile the kernels, e.g. in a pool initializer.

    Returns
    -------
    EvaluatorTables
        The shared tables.
    """
    tables = load_tables()
    board = np.array([[10, 11, 12, 13, 14]], dtype=np.uint8)
    # One call per kernel variant (4 and 5-6 hole cards, serial and thread pool) so none
    # compiles later.
    for width in (HOLE_CARD_COUNT, max(HOLE_CARD_COUNTS)):
        hole = np.arange(width, dtype=np.uint8)[None, :]
        for parallel in (False, True):
            evaluate(hole, board, parallel=parallel)
            evaluate_showdowns(hole, np.zeros(1, dtype=np.int64), board, parallel=parallel)
    return tables
