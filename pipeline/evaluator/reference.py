"""Scalar reference evaluator, written to be obviously right rather than fast.

It tries all ways (60 with four hole cards, 100 with five, 150 with six) to take exactly two
hole cards and three board cards and ranks each five-card hand with plain Python, sharing no
table or code with the kernel. Results are tuples that compare the way hands do (larger is
better); the tests check that the kernel orders and ties every sample exactly as this module
does.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence

__all__ = [
    "best_high",
    "best_low",
    "five_card_high",
    "five_card_low",
]

ACE = 12
STRAIGHT_FLUSH = 8
FOUR_OF_A_KIND = 7
FULL_HOUSE = 6
FLUSH = 5
STRAIGHT = 4
THREE_OF_A_KIND = 3
TWO_PAIR = 2
PAIR = 1
HIGH_CARD = 0

HighKey = tuple[int, ...]
LowKey = tuple[int, ...]


def five_card_high(cards: Sequence[int]) -> HighKey:
    """Rank five cards for high: ``(category, ranks by significance...)``, larger is better.

    Examples
    --------
    >>> five_card_high([48, 0, 4, 8, 13])  # Ac 2c 3c 4c 5d: the wheel
    (4, 3)
    """
    ranks = [int(card) // 4 for card in cards]
    suits = {int(card) % 4 for card in cards}
    counts = Counter(ranks)
    # Bigger groups first, then higher rank: (3 of 7, 2 of K) -> 7, K.
    grouped = sorted(counts, key=lambda rank: (counts[rank], rank), reverse=True)
    shape = sorted(counts.values(), reverse=True)
    is_flush = len(suits) == 1
    distinct = sorted(counts, reverse=True)
    straight_top = None
    if len(distinct) == 5:
        if distinct[0] - distinct[4] == 4:
            straight_top = distinct[0]
        elif distinct == [ACE, 3, 2, 1, 0]:
            straight_top = 3  # the wheel is a five-high straight
    if straight_top is not None and is_flush:
        return (STRAIGHT_FLUSH, straight_top)
    if shape == [4, 1]:
        return (FOUR_OF_A_KIND, *grouped)
    if shape == [3, 2]:
        return (FULL_HOUSE, *grouped)
    if is_flush:
        return (FLUSH, *distinct)
    if straight_top is not None:
        return (STRAIGHT, straight_top)
    if shape == [3, 1, 1]:
        return (THREE_OF_A_KIND, *grouped)
    if shape == [2, 2, 1]:
        return (TWO_PAIR, *grouped)
    if shape == [2, 1, 1, 1]:
        return (PAIR, *grouped)
    return (HIGH_CARD, *distinct)


def five_card_low(cards: Sequence[int]) -> LowKey | None:
    """Rank five cards for an eight-or-better low; ``None`` if they do not qualify.

    The key is the negated low ranks (Ace = 1 .. Eight = 8) from the highest down, so a
    larger key is a better low.

    Examples
    --------
    >>> five_card_low([48, 0, 4, 8, 13])  # A-2-3-4-5
    (-5, -4, -3, -2, -1)
    >>> five_card_low([48, 0, 4, 8, 28]) is None  # a nine is too high
    True
    """
    low_ranks = [1 if int(card) // 4 == ACE else int(card) // 4 + 2 for card in cards]
    if len(set(low_ranks)) != 5 or max(low_ranks) > 8:
        return None
    return tuple(-rank for rank in sorted(low_ranks, reverse=True))


def best_high(hole: Sequence[int], board: Sequence[int]) -> HighKey:
    """Best high of exactly two of the hole cards and three of the five board cards."""
    return max(
        five_card_high([*pair, *triple])
        for pair in itertools.combinations(hole, 2)
        for triple in itertools.combinations(board, 3)
    )


def best_low(hole: Sequence[int], board: Sequence[int]) -> LowKey | None:
    """Best eight-or-better low of exactly two hole and three board cards, or ``None``."""
    lows = [
        low
        for pair in itertools.combinations(hole, 2)
        for triple in itertools.combinations(board, 3)
        if (low := five_card_low([*pair, *triple])) is not None
    ]
    return max(lows) if lows else None
