"""Deal tests: does what was dealt follow the exact probabilities of a shuffled deck?

Only what play cannot select is tested (docs/fairness.md says why each is sound):

- the hero's hole cards, in every hand dealt to the hero (folded or not): each card, rank and
  suit, and per hand the rank pattern (pairs, trips), the suit pattern and the number of
  distinct low ranks (Ace to Eight);
- consecutive hands of the hero at one table: how many hole cards repeat (a weak shuffle
  repeats itself);
- the suits of the board by street (suit labels are symmetric under play: no strategy prefers
  hearts to spades), and the flop's suit pattern (monotone, two-tone, rainbow).

Card-count tests take several cards of one hand, drawn without replacement; their counts vary
less than a multinomial's by the finite-population factor (52 - k) / 51, by which the statistic
is divided so that it follows the chi-square law exactly in the limit. Hand-level tests use one
category per hand: plain chi-square. Categories expected fewer than five times are pooled.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from pipeline.fairness.statistics import chi_square_survival

__all__ = ["DealTest", "deal_tests", "overlap_probabilities", "pattern_probabilities"]

DECK = 52
RANKS = 13
SUITS = 4
LOW_RANKS = (12, 0, 1, 2, 3, 4, 5, 6)  # Ace, Two .. Eight (rank = code // 4)
MINIMUM_EXPECTED = 5.0
RANK_LABELS = tuple("23456789TJQKA")
SUIT_LABELS = ("clubs", "diamonds", "hearts", "spades")
CARD_LABELS = tuple(rank + suit for rank in RANK_LABELS for suit in "cdhs")

CardMatrix = npt.NDArray[np.int64]  # (hands, cards) of codes rank * 4 + suit


@dataclass(frozen=True)
class DealTest:
    """One test's outcome (before any adjustment)."""

    name: str
    observations: int  # cards or hands counted
    statistic: float
    degrees: int
    p_value: float
    # Per category (after pooling): its label, the count observed, the count expected and the
    # count's standard deviation under a fair deal (what the report draws).
    cells: tuple[tuple[str, float, float, float], ...] = ()


def _compositions(total: int, parts: int, most: int) -> list[tuple[int, ...]]:
    """Every vector of ``parts`` counts in 0..most summing to ``total``."""
    if parts == 1:
        return [(total,)] if total <= most else []
    found = []
    for first in range(min(total, most) + 1):
        found.extend((first, *rest) for rest in _compositions(total - first, parts - 1, most))
    return found


@functools.cache
def pattern_probabilities(cards: int) -> dict[str, dict[tuple[int, ...], float]]:
    """Exact probabilities of a ``cards``-card hand's rank pattern (the multiplicities of its
    ranks, largest first), suit pattern and number of distinct low ranks.

    >>> round(pattern_probabilities(4)["suits"][(1, 1, 1, 1)], 6)  # 13^4 / C(52, 4)
    0.105498
    """
    hands = math.comb(DECK, cards)
    ranks: dict[tuple[int, ...], float] = {}
    lows: dict[tuple[int, ...], float] = {}
    for counts in _compositions(cards, RANKS, SUITS):
        ways = math.prod(math.comb(SUITS, count) for count in counts) / hands
        pattern = tuple(sorted((count for count in counts if count), reverse=True))
        ranks[pattern] = ranks.get(pattern, 0.0) + ways
        low = (sum(1 for rank in LOW_RANKS if counts[rank]),)
        lows[low] = lows.get(low, 0.0) + ways
    suits: dict[tuple[int, ...], float] = {}
    for counts in _compositions(cards, SUITS, RANKS):
        ways = math.prod(math.comb(RANKS, count) for count in counts) / hands
        pattern = tuple(sorted((count for count in counts if count), reverse=True))
        suits[pattern] = suits.get(pattern, 0.0) + ways
    return {"ranks": ranks, "suits": suits, "lows": lows}


@functools.cache
def overlap_probabilities(cards: int) -> dict[tuple[int, ...], float]:
    """How many of a ``cards``-card hand's cards the next independent hand repeats."""
    hands = math.comb(DECK, cards)
    return {
        (same,): math.comb(cards, same) * math.comb(DECK - cards, cards - same) / hands
        for same in range(cards + 1)
    }


def _patterns(values: CardMatrix, categories: int) -> list[tuple[int, ...]]:
    """Each row's multiplicities of ``values`` (0..categories-1), largest first, nonzero."""
    counts = np.zeros((values.shape[0], categories), dtype=np.int64)
    np.add.at(counts, (np.repeat(np.arange(values.shape[0]), values.shape[1]), values.ravel()), 1)
    ordered = -np.sort(-counts, axis=1)
    return [tuple(int(v) for v in row if v) for row in ordered]


def _categorical(
    name: str, observed: list[tuple[int, ...]], probabilities: dict[tuple[int, ...], float]
) -> DealTest | None:
    """Chi-square of one category per observation against exact probabilities; the rarest
    categories pooled until every cell expects at least five; None if fewer than two cells."""
    total = len(observed)
    if total == 0:
        return None
    tally: dict[tuple[int, ...], int] = {}
    for key in observed:
        tally[key] = tally.get(key, 0) + 1
    unknown = set(tally) - set(probabilities)
    if unknown:
        raise ValueError(f"{name}: categories outside the distribution: {sorted(unknown)}")
    cells = sorted(probabilities, key=lambda key: probabilities[key])
    rare = [key for key in cells if total * probabilities[key] < MINIMUM_EXPECTED]
    common = cells[len(rare) :]
    expected = [total * probabilities[key] for key in common]
    observed_counts = [float(tally.get(key, 0)) for key in common]
    pooled_expected = sum(total * probabilities[key] for key in rare)
    pooled_observed = float(sum(tally.get(key, 0) for key in rare))
    if rare and (pooled_expected >= MINIMUM_EXPECTED or not common):
        expected.append(pooled_expected)
        observed_counts.append(pooled_observed)
    elif rare:  # too rare even together: joined to the rarest common cell
        expected[0] += pooled_expected
        observed_counts[0] += pooled_observed
    if len(expected) < 2:
        return None
    statistic = sum((o - e) ** 2 / e for o, e in zip(observed_counts, expected, strict=True))
    degrees = len(expected) - 1
    labels = ["-".join(map(str, key)) for key in common] + (["other"] if len(expected) > len(common) else [])
    cells = tuple(
        (label, o, e, math.sqrt(e * (1 - e / total)))
        for label, o, e in zip(labels, observed_counts, expected, strict=True)
    )
    return DealTest(name, total, statistic, degrees, chi_square_survival(statistic, degrees), cells)


def _card_counts(
    name: str,
    values: npt.NDArray[np.int64],
    categories: int,
    per_draw: int,
    labels: Sequence[str],
) -> DealTest | None:
    """Chi-square of category counts of cards drawn ``per_draw`` at a time without
    replacement (each category holds DECK / categories cards), with the finite-population
    factor."""
    if values.size == 0:
        return None
    counts = np.bincount(values.ravel(), minlength=categories).astype(float)
    expected = values.size / categories
    if expected < MINIMUM_EXPECTED:
        return None
    factor = (DECK - per_draw) / (DECK - 1)
    statistic = float(((counts - expected) ** 2).sum() / expected) / factor
    degrees = categories - 1
    spread = math.sqrt(expected * (1 - 1 / categories) * factor)
    cells = tuple((label, float(count), expected, spread) for label, count in zip(labels, counts, strict=True))
    return DealTest(
        name, int(values.size), statistic, degrees, chi_square_survival(statistic, degrees), cells
    )


@functools.cache
def _flop_patterns() -> dict[tuple[int, ...], float]:
    flops = math.comb(DECK, 3)
    return {
        (3,): SUITS * math.comb(RANKS, 3) / flops,
        (2, 1): SUITS * (SUITS - 1) * math.comb(RANKS, 2) * RANKS / flops,
        (1, 1, 1): math.comb(SUITS, 3) * RANKS**3 / flops,
    }


def deal_tests(
    hero_holes: CardMatrix, hero_sequence: npt.NDArray[np.int64], boards: list[list[int]]
) -> list[DealTest]:
    """Every deal test of one family (one site, period and game).

    ``hero_holes``: the hero's hole cards, one row per hand (all of one game's size), in
    dealing order; ``hero_sequence``: per row, the id of its run of consecutive hands at one
    table (rows of a run are contiguous); ``boards``: every hand's board as dealt (any
    length 0..5).
    """
    tests: list[DealTest | None] = []
    if hero_holes.size:
        cards = hero_holes.shape[1]
        probabilities = pattern_probabilities(cards)
        tests += [
            _card_counts("hero_cards", hero_holes, DECK, cards, CARD_LABELS),
            _card_counts("hero_ranks", hero_holes // SUITS, RANKS, cards, RANK_LABELS),
            _card_counts("hero_suits", hero_holes % SUITS, SUITS, cards, SUIT_LABELS),
            _categorical("hero_rank_pattern", _patterns(hero_holes // SUITS, RANKS), probabilities["ranks"]),
            _categorical("hero_suit_pattern", _patterns(hero_holes % SUITS, SUITS), probabilities["suits"]),
        ]
        low_rank = np.isin(hero_holes // SUITS, LOW_RANKS)
        distinct_lows = [
            (len({int(rank) for rank in row[mask]}),)
            for row, mask in zip(hero_holes // SUITS, low_rank, strict=True)
        ]
        tests.append(_categorical("hero_low_ranks", distinct_lows, probabilities["lows"]))
        same_run = hero_sequence[1:] == hero_sequence[:-1]
        repeats = [
            (len(set(first.tolist()) & set(second.tolist())),)
            for first, second in zip(hero_holes[:-1][same_run], hero_holes[1:][same_run], strict=True)
        ]
        tests.append(_categorical("hero_repeats_previous_hand", repeats, overlap_probabilities(cards)))
    flops = np.array([board[:3] for board in boards if len(board) >= 3], dtype=np.int64).reshape(-1, 3)
    turns = np.array([board[3] for board in boards if len(board) >= 4], dtype=np.int64)
    rivers = np.array([board[4] for board in boards if len(board) >= 5], dtype=np.int64)
    tests += [
        _card_counts("flop_suits", flops % SUITS, SUITS, 3, SUIT_LABELS),
        _categorical("flop_suit_pattern", _patterns(flops % SUITS, SUITS), _flop_patterns()),
        _card_counts("turn_suits", turns.reshape(-1, 1) % SUITS, SUITS, 1, SUIT_LABELS),
        _card_counts("river_suits", rivers.reshape(-1, 1) % SUITS, SUITS, 1, SUIT_LABELS),
    ]
    return [test for test in tests if test is not None]

