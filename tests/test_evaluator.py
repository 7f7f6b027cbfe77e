"""Tests of the hi/lo evaluator.

Kernel vs scalar reference, edge families, validation, table cache, and PokerStars wording
against the real corpus.
"""

from __future__ import annotations

import itertools
import re
import threading
from collections.abc import Hashable, Iterator, Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from pipeline.evaluator import (
    HIGH_CLASS_COUNT,
    LOW_CLASS_COUNT,
    HighCategory,
    describe_high,
    describe_low,
    evaluate,
    evaluate_showdowns,
    high_category,
    high_classes,
    high_descriptions,
    high_ranks,
    low_descriptions,
    low_ranks,
    parse_cards,
    random_deals,
    random_showdowns,
    reference,
    tables,
)
from tests.shared_data import CORPUS, corpus_or_skip, missing


def assert_same_order(values: Sequence[int], keys: Sequence[Hashable | None]) -> int:
    """Assert ``values`` order and tie the sample exactly as ``keys`` do; return #classes.

    Equal values must have equal keys and vice versa, and sorting the distinct values
    must sort their keys strictly increasingly.
    """
    key_of_value: dict[int, Hashable] = {}
    value_of_key: dict[Hashable, int] = {}
    for given_value, key in zip(values, keys, strict=True):
        value = int(given_value)
        assert key_of_value.setdefault(value, key) == key, f"value {value} has two keys"
        assert value_of_key.setdefault(key, value) == value, f"key {key} has two values"
    ordered = sorted(key_of_value)
    for smaller, larger in itertools.pairwise(ordered):
        assert key_of_value[smaller] < key_of_value[larger], (smaller, larger)  # type: ignore[operator]
    return len(ordered)


def check_against_reference(hole: npt.NDArray[np.uint8], board: npt.NDArray[np.uint8]) -> None:
    high, low = evaluate(hole, board)
    high_keys = [
        reference.best_high(h.tolist(), b.tolist()) for h, b in zip(hole, board, strict=True)
    ]
    low_keys = [
        reference.best_low(h.tolist(), b.tolist()) for h, b in zip(hole, board, strict=True)
    ]
    assert_same_order(high.tolist(), high_keys)
    qualifies = np.array([key is not None for key in low_keys])
    np.testing.assert_array_equal(low > 0, qualifies)
    assert_same_order(low[qualifies].tolist(), [key for key in low_keys if key is not None])


def deal(hole_text: str, board_text: str) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.uint8]]:
    return parse_cards(hole_text)[None, :], parse_cards(board_text)[None, :]


def evaluate_one(hole_text: str, board_text: str) -> tuple[int, int]:
    high, low = evaluate(*deal(hole_text, board_text))
    return int(high[0]), int(low[0])


# --- kernel vs reference -------------------------------------------------------------


def test_random_deals_match_reference() -> None:
    check_against_reference(*random_deals(20_000, seed=3))


@pytest.mark.slow
def test_many_random_deals_match_reference() -> None:
    check_against_reference(*random_deals(200_000, seed=4))


def test_low_heavy_deals_match_reference() -> None:
    # Deals from A..8 only make lows, counterfeits and wheels the common case.
    generator = np.random.default_rng(5)
    low_cards = np.array([code for code in range(52) if code // 4 <= 6 or code // 4 == 12])
    cards = np.stack([generator.choice(low_cards, 9, replace=False) for _ in range(5_000)])
    check_against_reference(cards[:, :4].astype(np.uint8), cards[:, 4:].astype(np.uint8))


def test_flush_heavy_deals_match_reference() -> None:
    # Two suits only: flushes, four-flush boards and straight flushes everywhere.
    generator = np.random.default_rng(6)
    cards = np.stack([generator.choice(26, 9, replace=False) for _ in range(5_000)])
    codes = (cards % 13) * 4 + cards // 13
    check_against_reference(codes[:, :4].astype(np.uint8), codes[:, 4:].astype(np.uint8))


# --- 5 and 6 hole cards (Big O, Courchevel, 6-card Omaha Hi/Lo) ----------------------

WIDE = [5, 6]


@pytest.mark.parametrize("hole_cards", WIDE)
def test_wide_random_deals_match_reference(hole_cards: int) -> None:
    check_against_reference(*random_deals(3_000, seed=30 + hole_cards, hole_cards=hole_cards))


@pytest.mark.parametrize("hole_cards", WIDE)
def test_wide_low_and_flush_heavy_deals_match_reference(hole_cards: int) -> None:
    generator = np.random.default_rng(40 + hole_cards)
    width = hole_cards + 5
    low_cards = np.array([code for code in range(52) if code // 4 <= 6 or code // 4 == 12])
    lows = np.stack([generator.choice(low_cards, width, replace=False) for _ in range(2_000)])
    check_against_reference(
        np.ascontiguousarray(lows[:, :hole_cards], dtype=np.uint8),
        np.ascontiguousarray(lows[:, hole_cards:], dtype=np.uint8),
    )
    two_suits = np.stack([generator.choice(26, width, replace=False) for _ in range(2_000)])
    codes = (two_suits % 13) * 4 + two_suits // 13
    check_against_reference(
        np.ascontiguousarray(codes[:, :hole_cards], dtype=np.uint8),
        np.ascontiguousarray(codes[:, hole_cards:], dtype=np.uint8),
    )


def best_of_four_card_subsets(
    hole: npt.NDArray[np.uint8], board: npt.NDArray[np.uint8]
) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int32]]:
    """The second oracle: the 4-card kernel on every four-card subset of each row (5 or 15
    of them); each pair of hole cards lies in some subset, so their best is the row's."""
    subsets = list(itertools.combinations(range(hole.shape[1]), 4))
    values = [evaluate(np.ascontiguousarray(hole[:, list(subset)]), board) for subset in subsets]
    high = np.max([value[0] for value in values], axis=0)
    low = np.max([value[1] for value in values], axis=0)
    return high, low


@pytest.mark.parametrize("hole_cards", WIDE)
def test_wide_rows_equal_the_best_four_card_subset(hole_cards: int) -> None:
    hole, board = random_deals(200_000, seed=50 + hole_cards, hole_cards=hole_cards)
    high, low = evaluate(hole, board)
    expected_high, expected_low = best_of_four_card_subsets(hole, board)
    np.testing.assert_array_equal(high, expected_high)
    np.testing.assert_array_equal(low, expected_low)


@pytest.mark.parametrize("hole_cards", WIDE)
def test_wide_showdowns_equal_per_row_evaluation(hole_cards: int) -> None:
    most = 47 // hole_cards
    hole, board_index, boards = random_showdowns(5_000, 2, most, seed=60, hole_cards=hole_cards)
    shared = evaluate_showdowns(hole, board_index, boards)
    per_row = evaluate(hole, boards[board_index])
    np.testing.assert_array_equal(shared[0], per_row[0])
    np.testing.assert_array_equal(shared[1], per_row[1])


@pytest.mark.parametrize("hole_cards", WIDE)
@pytest.mark.parametrize("function", ["rows", "showdowns"])
def test_wide_parallel_and_serial_agree(function: str, hole_cards: int) -> None:
    hole, board_index, boards = random_showdowns(20_000, 2, 6, seed=61, hole_cards=hole_cards)
    if function == "rows":
        runs = [evaluate(hole, boards[board_index], parallel=flag) for flag in (False, True)]
    else:
        runs = [
            evaluate_showdowns(hole, board_index, boards, parallel=flag) for flag in (False, True)
        ]
    np.testing.assert_array_equal(runs[0][0], runs[1][0])
    np.testing.assert_array_equal(runs[0][1], runs[1][1])


WIDE_CASES = [
    # (hole, board, expected high, expected low)
    # The fifth card makes trips (two pair, Aces and Kings, without it).
    ("Kc Kd 9h 9s As", "Ah Ad 7c 4d 2s", "three of a kind, Aces", ""),
    # The fifth and sixth cards make the wheel, high and low.
    ("Kc Kd 9h 9s 3c 2d", "Ah Ad 7c 4d 5s", "a straight, Ace to Five", "5,4,3,2,A"),
    # Four of a suit in hand and three on board: a flush of the best two of the four.
    ("Ah Kh 2h 3h Qs", "7h 8h Th 4c 5d", "a flush, Ace high", "7,5,4,2,A"),
    ("Ah Kh 2h 3h Qs 6c", "4h 5h 6h Jc Jd", "a straight flush, Deuce to Six", "6,5,4,2,A"),
    ("9c 9d 9h 2s 3s 4s", "Ks Qs Js 8c 7d", "a flush, King high", ""),
    # Three suited hole cards and a four-flush board still need exactly two hole cards.
    ("Ac Kc Qc 2d 3d", "Jc Tc 9c 8c 7h", "a straight flush, Nine to King", ""),
    # Five low ranks in hand but one low rank on board: no straight, no low.
    ("Ac 2d 3h 4s 5c", "6d 9h Ts Jc Qd", "high card Ace", ""),
    ("Ac 2d 3h 4s 5c 8d", "6d 7h 8s Jc Qd", "a straight, Four to Eight", "8,7,6,2,A"),
    # Paired hole ranks add no low rank; a sixth card does.
    ("2c 2d 2h Ks Kc", "3d 4h 5s Qc Jd", "a pair of Kings", ""),
    ("2c 2d 2h Ks Kc 7s", "3d 4h 5s Qc Jd", "a pair of Kings", "7,5,4,3,2"),
]


@pytest.mark.parametrize(("hole_text", "board_text", "expected_high", "expected_low"), WIDE_CASES)
def test_wide_edge_families(
    hole_text: str, board_text: str, expected_high: str, expected_low: str
) -> None:
    high, low = evaluate_one(hole_text, board_text)
    assert describe_high(high) == expected_high
    assert describe_low(low) == expected_low


def test_wide_edge_families_match_reference_jointly() -> None:
    for width in WIDE:
        cases = [case for case in WIDE_CASES if len(case[0].split()) == width]
        hole = np.stack([parse_cards(case[0]) for case in cases])
        board = np.stack([parse_cards(case[1]) for case in cases])
        check_against_reference(hole, board)


@pytest.mark.parametrize("hole_cards", WIDE)
@pytest.mark.parametrize("parallel", [False, True])
def test_wide_bad_rows_are_named(hole_cards: int, parallel: bool) -> None:
    hole, board = random_deals(20_000, seed=62, hole_cards=hole_cards)
    hole[9_000, 1] = hole[9_000, hole_cards - 1]
    board[12_000, 0] = hole[12_000, 2]
    hole[15_000, hole_cards - 1] = 200
    with pytest.raises(ValueError, match=r"^row 9000: card \w\w appears twice"):
        evaluate(hole, board, parallel=parallel)
    hole[9_000] = random_deals(1, seed=3, hole_cards=hole_cards)[0][0]
    board[9_000] = np.setdiff1d(np.arange(52), hole[9_000])[:5]
    with pytest.raises(ValueError, match=r"^row 12000: card \w\w appears twice"):
        evaluate(hole, board, parallel=parallel)
    board[12_000] = np.setdiff1d(np.arange(52), hole[12_000])[:5]
    with pytest.raises(ValueError, match=r"^row 15000: card code 200 is not in 0\.\.51"):
        evaluate(hole, board, parallel=parallel)


@pytest.mark.parametrize("hole_cards", WIDE)
def test_wide_showdown_validation(hole_cards: int) -> None:
    hole, board_index, boards = random_showdowns(100, seed=63, hole_cards=hole_cards)
    bad_hole = hole.copy()
    bad_hole[30, hole_cards - 1] = boards[board_index[30], 0]
    with pytest.raises(ValueError, match=r"^row 30: card \w\w appears twice"):
        evaluate_showdowns(bad_hole, board_index, boards)
    bad_hole = hole.copy()
    bad_hole[31, 4] = 52
    with pytest.raises(ValueError, match=r"^row 31: card code 52"):
        evaluate_showdowns(bad_hole, board_index, boards)
    bad_index = board_index.copy()
    bad_index[5] = -1
    with pytest.raises(ValueError, match=r"^row 5: board index -1 is not in 0\.\.99"):
        evaluate_showdowns(hole, bad_index, boards)
    bad_index[5] = 100
    with pytest.raises(ValueError, match=r"^row 5: board index 100"):
        evaluate_showdowns(hole, bad_index.astype(np.uint32), boards)


def test_wide_empty_input() -> None:
    for width in WIDE:
        high, low = evaluate(np.empty((0, width), np.uint8), np.empty((0, 5), np.uint8))
        assert high.shape == low.shape == (0,)
        shown = evaluate_showdowns(
            np.empty((0, width), np.uint8), np.empty(0, np.int64), np.empty((0, 5), np.uint8)
        )
        assert shown[0].shape == (0,)


def test_showdowns_equal_per_row_evaluation() -> None:
    hole, board_index, boards = random_showdowns(5_000, 2, 10, seed=7)
    shared = evaluate_showdowns(hole, board_index, boards)
    per_row = evaluate(hole, boards[board_index])
    np.testing.assert_array_equal(shared[0], per_row[0])
    np.testing.assert_array_equal(shared[1], per_row[1])


@pytest.mark.parametrize("function", ["rows", "showdowns"])
def test_parallel_and_serial_agree(function: str) -> None:
    hole, board_index, boards = random_showdowns(20_000, 2, 6, seed=8)
    if function == "rows":
        runs = [evaluate(hole, boards[board_index], parallel=flag) for flag in (False, True)]
    else:
        runs = [
            evaluate_showdowns(hole, board_index, boards, parallel=flag) for flag in (False, True)
        ]
    np.testing.assert_array_equal(runs[0][0], runs[1][0])
    np.testing.assert_array_equal(runs[0][1], runs[1][1])


def test_concurrent_threads_get_correct_results() -> None:
    # The numba thread pool may be busy; other threads must fall back, not crash.
    hole, board = random_deals(50_000, seed=9)
    expected = evaluate(hole, board, parallel=False)
    results: list[tuple[npt.NDArray[np.int32], npt.NDArray[np.int32]]] = []
    workers = [
        threading.Thread(target=lambda: results.append(evaluate(hole, board))) for _ in range(4)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert len(results) == 4
    for high, low in results:
        np.testing.assert_array_equal(high, expected[0])
        np.testing.assert_array_equal(low, expected[1])


def test_empty_input() -> None:
    high, low = evaluate(np.empty((0, 4), np.uint8), np.empty((0, 5), np.uint8))
    assert high.shape == low.shape == (0,) and high.dtype == low.dtype == np.int32


def test_input_layouts_do_not_matter() -> None:
    hole, board = random_deals(1_000, seed=10)
    expected = evaluate(hole, board)
    fortran = evaluate(np.asfortranarray(hole), np.asfortranarray(board))
    strided = evaluate(np.repeat(hole, 2, axis=0)[::2], np.repeat(board, 2, axis=0)[1::2])
    read_only_hole, read_only_board = hole.copy(), board.copy()
    read_only_hole.flags.writeable = read_only_board.flags.writeable = False
    read_only = evaluate(read_only_hole, read_only_board)
    for result in (fortran, strided, read_only):
        np.testing.assert_array_equal(result[0], expected[0])
        np.testing.assert_array_equal(result[1], expected[1])


# --- edge families -------------------------------------------------------------------

EDGE_CASES = [
    # (hole, board, expected high, expected low)
    ("As 2c 9d 9h", "3d 4h 5s Kc Qd", "a straight, Ace to Five", "5,4,3,2,A"),
    ("Ac 2d 9h 9s", "3c 4d 6h Ks Qc", "a pair of Nines", "6,4,3,2,A"),
    ("6c 2d Kh Ks", "3c 4d 5h Kd Qc", "a straight, Deuce to Six", "6,5,4,3,2"),
    # Counterfeit: the board pairs the hole's deuce, leaving only two other low ranks.
    ("As 2c Kd Kh", "2d 3h 4s 9c Td", "a pair of Kings", ""),
    ("As 2c Kd Kh", "2d 3h 4s 7c Td", "a pair of Kings", "7,4,3,2,A"),
    # A paired low hole cannot supply two distinct low ranks.
    ("2c 2d Kh Ks", "3c 4d 5h Qs Jd", "a pair of Kings", ""),
    # Four hearts on board and one heart in hand: no flush.
    ("Ah Kc Qd Js", "2h 5h 8h Th 3c", "high card Ace", ""),
    ("Ah Kh Qd Js", "2h 5h 8h Th 3c", "a flush, Ace high", ""),
    # A Hold'em straight needing one hole card is not an Omaha straight.
    ("9c Ks Kd 2h", "5c 6d 7h 8s Qc", "a pair of Kings", ""),
    ("9c Ts Kd 2h", "5c 6d 7h 8s Qc", "a straight, Six to Ten", ""),
    # Quads on board: three board cards at most, so a full house.
    ("Ac Ad Kc Kd", "7c 7d 7h 7s 2c", "a full house, Sevens full of Aces", ""),
    ("Ac 2d Kc Kd", "7c 7d 7h 7s 2c", "a full house, Sevens full of Kings", ""),
    ("7c 7d Kc Kd", "7h 7s 2c 3d 9h", "four of a kind, Sevens", ""),
    # The ace plays high (a pair of aces) and low at once.
    ("As Kd 2c 9h", "Ah 3d 5c Qs 8d", "a pair of Aces", "8,5,3,2,A"),
    # High and low from different hole cards.
    ("Ac 2d Kh Ks", "Kd 3c 4s 7h Qc", "three of a kind, Kings", "7,4,3,2,A"),
    ("Ah Kh 2c 3d", "Qh Jh Th 4s 5s", "a Royal Flush", ""),  # only two low board cards
    ("Ah 2h 9c 9d", "3h 4h 5h Ks Kd", "a straight flush, Ace to Five", "5,4,3,2,A"),
    ("9h Kh 2c 3d", "Qh Jh Th 4s 5s", "a straight flush, Nine to King", ""),
    ("Ac Ad 2c 3d", "Kh Qh 4s 9c Ts", "a pair of Aces", ""),
    ("Ac Kd 8c 8d", "8h 8s 4c 4d Ts", "four of a kind, Eights", ""),  # two from each
    ("Qc Jd 8c 7d", "2h 3s 4c 9d Ks", "high card King", "8,7,4,3,2"),
    ("Ac Ad Kc 3d", "As 8h 8s 4c 2d", "a full house, Aces full of Eights", "8,4,3,2,A"),
    ("Ac Kd Qc 3d", "Js Th 8s 4c 2d", "high card Ace", "8,4,3,2,A"),
    ("Ac Kd 3c 3d", "Qs Jh Ts 4c 2d", "a straight, Ten to Ace", ""),
    ("Ac Ad Kc Kd", "As Ks 8s 4c 2d", "three of a kind, Aces", ""),  # unpaired board
]


@pytest.mark.parametrize(("hole_text", "board_text", "expected_high", "expected_low"), EDGE_CASES)
def test_edge_families(
    hole_text: str, board_text: str, expected_high: str, expected_low: str
) -> None:
    high, low = evaluate_one(hole_text, board_text)
    assert describe_high(high) == expected_high
    assert describe_low(low) == expected_low
    hole, board = parse_cards(hole_text).tolist(), parse_cards(board_text).tolist()
    assert (low == 0) == (reference.best_low(hole, board) is None)


def test_edge_families_match_reference_jointly() -> None:
    hole = np.stack([parse_cards(case[0]) for case in EDGE_CASES])
    board = np.stack([parse_cards(case[1]) for case in EDGE_CASES])
    check_against_reference(hole, board)


def test_seven_six_low_beats_eight_four_low() -> None:
    _, seven_low = evaluate_one("7c 6d Kh Ks", "5c 4d 3h Qs Jd")
    _, eight_low = evaluate_one("8c 4d Kh Ks", "3c 2d Ah Qs Jd")
    _, wheel = evaluate_one("Ac 2d Kh Ks", "3c 4d 5h Qs Jd")
    _, six_low = evaluate_one("Ac 2d Kh Ks", "3c 4d 6h Qs Jd")
    assert describe_low(seven_low) == "7,6,5,4,3" and describe_low(eight_low) == "8,4,3,2,A"
    assert wheel == LOW_CLASS_COUNT > six_low > seven_low > eight_low >= 1


def test_identical_hands_tie_in_both_halves() -> None:
    board = "2c 7d 5h Js Qd"
    first = evaluate_one("Ac Kd 3h 4s", board)
    second = evaluate_one("Ad Kc 3s 4h", board)
    assert first == second and first[1] > 0


def test_same_high_different_kicker_does_not_tie() -> None:
    board = "Ac 5s Js 8c Jd"
    hero, _ = evaluate_one("Jc 3h 2s Qc", board)
    villain, _ = evaluate_one("7s 9s Jh 3c", board)
    assert hero > villain
    assert high_category(hero) == high_category(villain) == HighCategory.THREE_OF_A_KIND


# --- validation ----------------------------------------------------------------------


def test_wrong_shapes_are_rejected() -> None:
    with pytest.raises(ValueError, match=r"hole must have shape \(N, 4\) or \(N, 5\) or \(N, 6\)"):
        evaluate(np.zeros((2, 3), np.uint8), np.zeros((2, 5), np.uint8))
    with pytest.raises(ValueError, match=r"hole must have shape"):
        evaluate(np.zeros((2, 7), np.uint8), np.zeros((2, 5), np.uint8))
    with pytest.raises(ValueError, match=r"board must have shape \(N, 5\)"):
        evaluate(np.zeros((2, 4), np.uint8), np.zeros(10, np.uint8))
    with pytest.raises(ValueError, match="rows"):
        evaluate(*random_deals(2, seed=1)[:1], random_deals(3, seed=1)[1])
    hole, board_index, boards = random_showdowns(3, seed=1)
    with pytest.raises(ValueError, match="board_index must have shape"):
        evaluate_showdowns(hole, board_index[:-1], boards)


def test_wrong_dtypes_are_rejected() -> None:
    hole, board = random_deals(3, seed=1)
    with pytest.raises(ValueError, match="dtype uint8"):
        evaluate(hole.astype(np.int64), board)
    with pytest.raises(ValueError, match="dtype uint8"):
        evaluate(hole, board.astype(np.int8))
    with pytest.raises(ValueError, match="numpy uint8 array"):
        evaluate(hole.tolist(), board)
    with pytest.raises(ValueError, match="integer array"):
        evaluate_showdowns(hole, np.zeros(3, np.float64), board)


@pytest.mark.parametrize("parallel", [False, True])
def test_code_out_of_range_names_first_bad_row(parallel: bool) -> None:
    hole, board = random_deals(20_000, seed=2)
    board[17_001, 3] = 52
    hole[17_500, 0] = 255
    with pytest.raises(ValueError, match=r"^row 17001: card code 52 is not in 0\.\.51"):
        evaluate(hole, board, parallel=parallel)


@pytest.mark.parametrize("parallel", [False, True])
def test_repeated_card_names_first_bad_row(parallel: bool) -> None:
    hole, board = random_deals(20_000, seed=2)
    hole[9_000, 1] = hole[9_000, 3]
    board[12_000, 0] = hole[12_000, 2]
    with pytest.raises(ValueError, match=r"^row 9000: card \w\w appears twice"):
        evaluate(hole, board, parallel=parallel)
    hole[9_000] = random_deals(1, seed=3)[0][0]
    board[9_000] = np.setdiff1d(np.arange(52), hole[9_000])[:5]
    with pytest.raises(ValueError, match=r"^row 12000: card \w\w appears twice"):
        evaluate(hole, board, parallel=parallel)


@pytest.mark.parametrize("hole_text", ["Ac Kc 2d 3d", "Ac Kc 2d 3d 4d", "Ac Kc 2d 3d 4d 5d"])
def test_bad_code_in_a_flush_row_is_reported_not_read(hole_text: str) -> None:
    # Regression: a code >= 52 whose low bits name the flush suit (200 = "rank 50, clubs")
    # set a rank bit far outside the flush table, and the flush pass read there (a crash).
    hole = parse_cards(hole_text)[None, :].copy()
    hole[0, -1] = 200
    board = parse_cards("Qc Jc 9c 8h 7h")[None, :]
    with pytest.raises(ValueError, match=r"^row 0: card code 200 is not in 0\.\.51"):
        evaluate(hole, board)
    with pytest.raises(ValueError, match=r"^row 0: card code 200 is not in 0\.\.51"):
        evaluate_showdowns(hole, np.zeros(1, np.int64), board)


def test_showdown_validation() -> None:
    hole, board_index, boards = random_showdowns(100, seed=3)
    bad_boards = boards.copy()
    bad_boards[40, 1] = bad_boards[40, 4]
    with pytest.raises(ValueError, match=r"^boards row 40: card \w\w appears twice"):
        evaluate_showdowns(hole, board_index, bad_boards)
    bad_boards[40, 1] = 77
    with pytest.raises(ValueError, match=r"^boards row 40: card code 77"):
        evaluate_showdowns(hole, board_index, bad_boards)
    bad_hole = hole.copy()
    bad_hole[30, 2] = boards[board_index[30], 0]
    with pytest.raises(ValueError, match=r"^row 30: card \w\w appears twice"):
        evaluate_showdowns(bad_hole, board_index, boards)
    bad_index = board_index.copy()
    bad_index[5] = -1
    with pytest.raises(ValueError, match=r"^row 5: board index -1 is not in 0\.\.99"):
        evaluate_showdowns(hole, bad_index, boards)
    bad_index[5] = 100
    with pytest.raises(ValueError, match=r"^row 5: board index 100"):
        evaluate_showdowns(hole, bad_index.astype(np.uint32), boards)


# --- classes, wording, decoding ------------------------------------------------------


def test_class_table_sizes_and_categories() -> None:
    classes = high_classes()
    assert len(classes) == HIGH_CLASS_COUNT
    counts = np.bincount(high_category(np.arange(1, HIGH_CLASS_COUNT + 1)), minlength=9)
    assert counts.tolist() == [1277, 2860, 858, 858, 10, 1277, 156, 156, 10]
    assert high_ranks(1) == (5, 3, 2, 1, 0)
    assert low_ranks(1) == (6, 5, 4, 3, 2)
    with pytest.raises(ValueError):
        describe_high(0)
    with pytest.raises(ValueError):
        describe_low(LOW_CLASS_COUNT + 1)


def test_describe_wording() -> None:
    by_text = {describe_high(value): value for value in range(1, HIGH_CLASS_COUNT + 1)}
    for text in [
        "high card Ace",
        "a pair of Aces",
        "two pair, Aces and Sevens",
        "three of a kind, Fours",
        "a straight, Ace to Five",
        "a straight, Nine to King",
        "a flush, Ace high",
        "a full house, Kings full of Fours",
        "four of a kind, Aces",
        "a straight flush, Ace to Five",
        "a Royal Flush",
    ]:
        assert text in by_text, text
    assert describe_high(by_text["three of a kind, Fours"], with_kickers=True).startswith(
        "three of a kind, Fours - "
    )
    assert describe_low(LOW_CLASS_COUNT) == "5,4,3,2,A"
    assert describe_low(0) == ""
    assert high_descriptions()[HIGH_CLASS_COUNT - 1] == "a Royal Flush"
    assert len(set(high_descriptions(with_kickers=True))) > len(set(high_descriptions()))
    assert low_descriptions()[0] == "" and len(set(low_descriptions())) == LOW_CLASS_COUNT + 1


def test_describe_matches_reference_categories_on_random_deals() -> None:
    hole, board = random_deals(2_000, seed=11)
    high, _ = evaluate(hole, board)
    for value, h, b in zip(high.tolist(), hole.tolist(), board.tolist(), strict=True):
        key = reference.best_high(h, b)
        assert int(high_category(value)) == key[0]
        # The reference lists distinct significant ranks; the class lists all five.
        ranks = high_ranks(value)
        significant = list(dict.fromkeys(ranks)) if key[0] not in (4, 8) else [ranks[0]]
        assert tuple(significant) == key[1:]


# --- table cache ---------------------------------------------------------------------


def test_cache_is_written_atomically_and_reused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HILO_CACHE_DIR", str(tmp_path / "cache"))
    built = tables._load_high_table()
    path = tables.high_table_path()
    assert path.parent == tmp_path / "cache" and path.exists()
    assert not any(name.suffix == ".tmp" for name in path.parent.iterdir())
    assert not built.flags.writeable
    modified = path.stat().st_mtime_ns
    again = tables._load_high_table()
    assert path.stat().st_mtime_ns == modified
    np.testing.assert_array_equal(built, again)
    np.testing.assert_array_equal(again, tables.load_tables().high)


def test_damaged_cache_is_rebuilt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HILO_CACHE_DIR", str(tmp_path))
    path = tables.high_table_path()
    path.write_bytes(b"not a table")
    np.testing.assert_array_equal(tables._load_high_table(), tables.load_tables().high)
    np.save(path, np.zeros(10, np.uint16))
    np.testing.assert_array_equal(tables._load_high_table(), tables.load_tables().high)


# --- PokerStars wording in the real corpus -------------------------------------------

SHOWS = re.compile(
    r"^(?P<player>.+?): shows \[(?P<cards>[^\]]+)\] "
    r"\(HI: (?P<high>[^;)]+)(?:; LO: (?P<low>[^)]+))?\)"
)
SHOWED = re.compile(
    r"^Seat \d+: (?P<player>.+?) (?:\([^)]*\) )*showed \[(?P<cards>[^\]]+)\] and (?:won|lost)"
    r"[^\n]*? with HI: (?P<high>[^;\n]+?)(?:; LO: (?P<low>\S+))?\s*$"
)
BOARD = re.compile(r"^Board \[(?P<cards>[^\]]+)\]")


def corpus_descriptions() -> Iterator[tuple[str, str, str, str, str]]:
    """(where, hole, board, high text, low text) for every printed HI/LO description."""
    files = sorted((CORPUS / "Stars").rglob("*.txt")) + sorted(
        (CORPUS / "other").glob("Stars-*.txt")
    )
    for path in files:
        if "fixture" in path.parts:
            continue  # synthetic and deliberately invalid hand texts
        text = path.read_text(encoding="utf-8-sig", errors="replace").replace("\r\n", "\n")
        for hand in re.split(r"\n(?=\ufeff?PokerStars (?:Game|Hand) #)", text):
            header = hand.lstrip("\ufeff").split("\n", 1)[0]
            if "5 Card" in header or "Courchevel" in header:
                continue
            boards = [match["cards"] for line in hand.split("\n") if (match := BOARD.match(line))]
            if len(boards) != 1 or len(boards[0].split()) != 5:
                continue
            for line in hand.split("\n"):
                match = SHOWS.match(line) or SHOWED.match(line)
                if match and len(match["cards"].split()) == 4:
                    where = f"{path.name}: {line.strip()}"
                    yield (
                        where,
                        match["cards"],
                        boards[0],
                        match["high"].strip(),
                        match["low"] or "",
                    )


def test_descriptions_match_pokerstars_corpus() -> None:
    corpus_or_skip()
    cases = list(corpus_descriptions())
    assert len(cases) >= 150, f"only {len(cases)} descriptions parsed from {CORPUS}"
    hole = np.stack([parse_cards(case[1]) for case in cases])
    board = np.stack([parse_cards(case[2]) for case in cases])
    high, low = evaluate(hole, board)
    mismatches = []
    kicker_cases = 0
    for (where, _, _, high_text, low_text), high_value, low_value in zip(
        cases, high, low, strict=True
    ):
        with_kickers = " - " in high_text
        kicker_cases += with_kickers
        ours = (describe_high(high_value, with_kickers=with_kickers), describe_low(low_value))
        if ours != (high_text, low_text):
            mismatches.append(f"{where} -> ours {ours}")
    assert not mismatches, "\n".join(mismatches)
    assert kicker_cases >= 1


def test_fixture_with_invalid_descriptions_is_detected() -> None:
    fixture = CORPUS / "Stars" / "fixture" / "omaha_hilo.txt"
    if not fixture.is_file():
        pytest.skip(missing(fixture))
    lines = fixture.read_text(encoding="utf-8-sig", errors="replace").splitlines()
    board = next(match["cards"] for line in lines if (match := BOARD.match(line)))
    shown = [match for line in lines if (match := SHOWS.match(line))]
    assert shown
    for match in shown:
        high, low = evaluate_one(match["cards"], board)
        # The fixture prints "straight, 4 to 8; LO: 8-7-6-5-A", impossible with 2 + 3 cards.
        assert (describe_high(high), describe_low(low)) == (
            "a straight, Three to Seven",
            "6,5,3,2,A",
        )
        assert (match["high"], match["low"]) != (describe_high(high), describe_low(low))


def test_forked_pool_worker_evaluates_serially_and_correctly() -> None:
    import multiprocessing

    hole, board = random_deals(50_000, seed=12)
    expected = evaluate(hole, board, parallel=True)  # starts the thread pool before forking
    with multiprocessing.get_context("fork").Pool(1) as pool:
        result = pool.apply(evaluate, (hole, board))
    np.testing.assert_array_equal(result[0], expected[0])
    np.testing.assert_array_equal(result[1], expected[1])


def test_showdowns_beyond_65536_boards_match_evaluate() -> None:
    # Regression: the flush pass once packed the board number into 16 bits, so every board
    # after the 65,536th was read as another board when a flush was possible.
    hole, board_index, boards = random_showdowns(70_000, 2, 2, seed=21)
    high, low = evaluate_showdowns(hole, board_index, boards)
    expected_high, expected_low = evaluate(hole, boards[board_index])
    assert np.array_equal(high, expected_high)
    assert np.array_equal(low, expected_low)
