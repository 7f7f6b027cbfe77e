"""Cross-checks of the hi/lo evaluator against independent libraries.

- pokerkit hand classes (test-only oracle): same order and ties for high and for low, and
  the same deals with a qualifying low.
- phevaluator: our high equals ``7463 - evaluate_omaha_cards(board..., hole...)`` exactly.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest

from pipeline.evaluator import HIGH_CLASS_COUNT, card_text, evaluate, parse_cards, random_deals
from tests.test_evaluator import EDGE_CASES, assert_same_order

pokerkit = pytest.importorskip("pokerkit")
phevaluator = pytest.importorskip("phevaluator")


def cards_text(codes: npt.NDArray[np.uint8]) -> str:
    return "".join(card_text(int(code)) for code in codes)


def check_against_pokerkit(hole: npt.NDArray[np.uint8], board: npt.NDArray[np.uint8]) -> None:
    high, low = evaluate(hole, board)
    high_keys: list[int] = []
    low_keys: list[int | None] = []
    for hole_row, board_row in zip(hole, board, strict=True):
        hole_text, board_text = cards_text(hole_row), cards_text(board_row)
        high_keys.append(pokerkit.OmahaHoldemHand.from_game(hole_text, board_text).entry.index)
        try:
            low_hand = pokerkit.OmahaEightOrBetterLowHand.from_game(hole_text, board_text)
        except ValueError:  # pokerkit's way of saying "no qualifying low"
            low_keys.append(None)
        else:
            low_keys.append(-low_hand.entry.index)  # pokerkit: a smaller low index is better
    assert_same_order(high.tolist(), high_keys)
    qualifies = np.array([key is not None for key in low_keys])
    np.testing.assert_array_equal(low > 0, qualifies)
    assert_same_order(low[qualifies].tolist(), [key for key in low_keys if key is not None])


def test_pokerkit_agrees_on_sample() -> None:
    check_against_pokerkit(*random_deals(1_500, seed=21))


def test_pokerkit_agrees_on_edge_families() -> None:
    hole = np.stack([parse_cards(case[0]) for case in EDGE_CASES])
    board = np.stack([parse_cards(case[1]) for case in EDGE_CASES])
    check_against_pokerkit(hole, board)


@pytest.mark.slow
def test_pokerkit_agrees_on_20k_deals() -> None:
    check_against_pokerkit(*random_deals(20_000, seed=22))


def test_phevaluator_high_is_exact_on_100k_deals() -> None:
    hole, board = random_deals(100_000, seed=23)
    high, _ = evaluate(hole, board)
    evaluate_omaha_cards = phevaluator.evaluate_omaha_cards
    expected = np.fromiter(
        (
            HIGH_CLASS_COUNT + 1 - evaluate_omaha_cards(*board_row, *hole_row)
            for hole_row, board_row in zip(hole.tolist(), board.tolist(), strict=True)
        ),
        dtype=np.int32,
        count=len(hole),
    )
    np.testing.assert_array_equal(high, expected)
    # A sample this size reaches most classes, so the check is not carried by a few.
    assert len(np.unique(high)) > 4_000
