"""Cross-checks of the hi/lo evaluator against independent libraries.

- pokerkit hand classes (test-only oracle): same order and ties for high and for low, and
  the same deals with a qualifying low, for 4, 5 and 6 hole cards. pokerkit's own Omaha
  classes judge a few thousand deals (about 300 deals a second); the million-deal check per
  hole count asks pokerkit for the value of every five-card class once (rank multiset, and
  suited or not) and takes the best of the 2-hole + 3-board choices with numpy.
- phevaluator: our high equals ``7463 - evaluate_omaha_cards(board..., hole...)`` exactly
  (four hole cards: phevaluator's Omaha takes four).
"""

from __future__ import annotations

import itertools
from functools import cache

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


@pytest.mark.parametrize("hole_cards", [5, 6])
def test_pokerkit_agrees_on_wide_sample(hole_cards: int) -> None:
    check_against_pokerkit(*random_deals(400, seed=24 + hole_cards, hole_cards=hole_cards))


RANKS = "23456789TJQKA"
RANK_WEIGHT = 8 ** np.arange(13, dtype=np.int64)  # a rank multiset as base-8 digit counts


@cache
def pokerkit_five_card_values() -> tuple[
    npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]
]:
    """pokerkit's value of every five-card class: sorted rank-multiset keys and, per key, the
    high index unsuited, suited (-1 where the ranks cannot be one suit) and the low index
    (-1: no eight-or-better low; pokerkit's smaller low index is the better low)."""
    keys, plain, suited, low = [], [], [], []
    for ranks in itertools.combinations_with_replacement(range(13), 5):
        if len(set(ranks)) == 1:
            continue  # five of a rank is not a hand
        mixed = "".join(RANKS[rank] + "cdhsc"[position] for position, rank in enumerate(ranks))
        keys.append(int(RANK_WEIGHT[list(ranks)].sum()))
        plain.append(pokerkit.OmahaHoldemHand(mixed).entry.index)
        distinct = len(set(ranks)) == 5
        one_suit = "".join(RANKS[rank] + "s" for rank in ranks)
        suited.append(pokerkit.OmahaHoldemHand(one_suit).entry.index if distinct else -1)
        try:
            low_index = pokerkit.OmahaEightOrBetterLowHand(mixed).entry.index
        except ValueError:
            low_index = -1
        if distinct and low_index >= 0:
            # A low ignores suits; pokerkit must agree for the table to stand for it.
            assert pokerkit.OmahaEightOrBetterLowHand(one_suit).entry.index == low_index
        low.append(low_index)
    order = np.argsort(keys)
    key_array, plain_array, suited_array, low_array = (
        np.array(column, dtype=np.int64)[order] for column in (keys, plain, suited, low)
    )
    return key_array, plain_array, suited_array, low_array


def pokerkit_brute_force(
    hole: npt.NDArray[np.uint8], board: npt.NDArray[np.uint8]
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """pokerkit's best high and best low of each deal over every choice of exactly two hole
    and three board cards, in numpy: the high index (larger is better) and the low key
    ``55 - index`` (larger is better, -1 = no qualifying low)."""
    keys, plain, suited, low = pokerkit_five_card_values()
    ranks = (hole // 4).astype(np.int64), (board // 4).astype(np.int64)
    suits = (hole % 4).astype(np.int64), (board % 4).astype(np.int64)
    pairs = np.array(list(itertools.combinations(range(hole.shape[1]), 2)))
    triples = np.array(list(itertools.combinations(range(5), 3)))
    pair_key = RANK_WEIGHT[ranks[0][:, pairs]].sum(axis=2)
    triple_key = RANK_WEIGHT[ranks[1][:, triples]].sum(axis=2)
    pair_suits, triple_suits = suits[0][:, pairs], suits[1][:, triples]
    pair_suit = np.where(pair_suits[:, :, 0] == pair_suits[:, :, 1], pair_suits[:, :, 0], -1)
    triple_suit = np.where(
        (triple_suits[:, :, 0] == triple_suits[:, :, 1])
        & (triple_suits[:, :, 1] == triple_suits[:, :, 2]),
        triple_suits[:, :, 0],
        -2,
    )
    key = pair_key[:, :, None] + triple_key[:, None, :]
    flush = pair_suit[:, :, None] == triple_suit[:, None, :]
    position = np.searchsorted(keys, key)
    assert (keys[position] == key).all()
    high = np.where(flush, suited[position], plain[position])
    assert (high >= 0).all()
    low_index = low[position]
    low_key = np.where(low_index >= 0, 55 - low_index, -1)
    return high.max(axis=(1, 2)), low_key.max(axis=(1, 2))


def check_against_pokerkit_classes(
    hole: npt.NDArray[np.uint8], board: npt.NDArray[np.uint8]
) -> None:
    high, low = evaluate(hole, board)
    chunk = 20_000
    parts = [
        pokerkit_brute_force(hole[start : start + chunk], board[start : start + chunk])
        for start in range(0, len(hole), chunk)
    ]
    high_keys = np.concatenate([part[0] for part in parts])
    low_keys = np.concatenate([part[1] for part in parts])
    # Same order and ties, checked at once: the value -> key map must be a strictly
    # increasing function (equal values, equal keys; a larger value, a larger key).
    for values, keys in ((high, high_keys), (low, low_keys)):
        pairs = np.unique(np.stack([values.astype(np.int64), keys]), axis=1)
        assert len(np.unique(pairs[0])) == pairs.shape[1], "a value has two keys"
        assert (np.diff(pairs[1]) > 0).all(), "values and keys order differently"
    np.testing.assert_array_equal(low > 0, low_keys >= 0)


@pytest.mark.parametrize("hole_cards", [4, 5, 6])
def test_pokerkit_classes_agree_on_20k_deals(hole_cards: int) -> None:
    hole, board = random_deals(20_000, seed=70 + hole_cards, hole_cards=hole_cards)
    check_against_pokerkit_classes(hole, board)


@pytest.mark.slow
@pytest.mark.parametrize("hole_cards", [4, 5, 6])
def test_pokerkit_classes_agree_on_a_million_deals(hole_cards: int) -> None:
    check_against_pokerkit_classes(
        *random_deals(1_000_000, seed=80 + hole_cards, hole_cards=hole_cards)
    )


def test_pokerkit_agrees_on_edge_families() -> None:
    hole = np.stack([parse_cards(case[0]) for case in EDGE_CASES])
    board = np.stack([parse_cards(case[1]) for case in EDGE_CASES])
    check_against_pokerkit(hole, board)


@pytest.mark.slow
@pytest.mark.parametrize("hole_cards", [4, 5, 6])
def test_pokerkit_agrees_on_20k_deals(hole_cards: int) -> None:
    check_against_pokerkit(*random_deals(20_000, seed=18 + hole_cards, hole_cards=hole_cards))


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
