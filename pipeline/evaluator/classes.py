"""Hand classes: the numbering of high and low values, their decoding and their wording.

High values are the 7,462 equivalence classes of five-card poker hands numbered
1 (7-5-4-3-2 offsuit) to 7,462 (royal flush): larger is better, equal is a tie. The
numbering is the standard one, so ``high == 7463 - phevaluator_rank``.

Low values are the 56 eight-or-better lows numbered 1 (8-7-6-5-4) to 56 (5-4-3-2-A),
and 0 for "no qualifying low".

Ranks are card ranks, 0..12 for 2..A, as in the card code ``rank * 4 + suit``.

Examples
--------
>>> describe_high(HIGH_CLASS_COUNT)
'a Royal Flush'
>>> describe_low(LOW_CLASS_COUNT)
'5,4,3,2,A'
>>> high_category(1) is HighCategory.HIGH_CARD
True
"""

from __future__ import annotations

import enum
import functools
import itertools
from dataclasses import dataclass
from typing import overload

import numpy as np
import numpy.typing as npt

__all__ = [
    "HIGH_CLASS_COUNT",
    "LOW_CLASS_COUNT",
    "HighCategory",
    "HighClass",
    "describe_high",
    "describe_low",
    "high_category",
    "high_category_bounds",
    "high_classes",
    "high_descriptions",
    "high_ranks",
    "low_classes",
    "low_descriptions",
    "low_ranks",
]

HIGH_CLASS_COUNT = 7462
LOW_CLASS_COUNT = 56

ACE = 12
RANK_COUNT = 13
LOW_RANK_LIMIT = 6  # card rank of the Eight: lows use A and 2..8

RANK_NAMES = (
    "Deuce", "Three", "Four", "Five", "Six", "Seven", "Eight",
    "Nine", "Ten", "Jack", "Queen", "King", "Ace",
)  # fmt: skip
PLURAL_RANK_NAMES = (
    "Deuces", "Threes", "Fours", "Fives", "Sixes", "Sevens", "Eights",
    "Nines", "Tens", "Jacks", "Queens", "Kings", "Aces",
)  # fmt: skip
LOW_RANK_SYMBOLS = ("2", "3", "4", "5", "6", "7", "8")


class HighCategory(enum.IntEnum):
    """Category of a high hand, weakest first."""

    HIGH_CARD = 0
    PAIR = 1
    TWO_PAIR = 2
    THREE_OF_A_KIND = 3
    STRAIGHT = 4
    FLUSH = 5
    FULL_HOUSE = 6
    FOUR_OF_A_KIND = 7
    STRAIGHT_FLUSH = 8


@dataclass(frozen=True, slots=True)
class HighClass:
    """One high equivalence class.

    Attributes
    ----------
    category
        The hand category.
    ranks
        The five ranks in order of significance: grouped cards first (largest group
        first, then higher rank), then kickers descending; straights from their top card
        down, the wheel as ``(3, 2, 1, 0, 12)``.
    """

    category: HighCategory
    ranks: tuple[int, int, int, int, int]

    @property
    def is_flush(self) -> bool:
        """Whether the five cards must share a suit."""
        return self.category in (HighCategory.FLUSH, HighCategory.STRAIGHT_FLUSH)


def _straight_ranks() -> list[tuple[int, int, int, int, int]]:
    """Return the ten straights, weakest (the wheel) first, each from its top card down."""
    straights: list[tuple[int, int, int, int, int]] = [(3, 2, 1, 0, ACE)]
    for top in range(4, RANK_COUNT):
        straights.append((top, top - 1, top - 2, top - 3, top - 4))
    return straights


@functools.cache
def high_classes() -> tuple[HighClass, ...]:
    """All 7,462 high classes; the class with value ``v`` is at index ``v - 1``.

    Returns
    -------
    tuple of HighClass
        Weakest first.
    """
    straight_sets = {frozenset(ranks) for ranks in _straight_ranks()}
    # Descending tuples compare lexicographically the way poker compares kickers.
    unpaired = sorted(
        tuple(sorted(combination, reverse=True))
        for combination in itertools.combinations(range(RANK_COUNT), 5)
        if frozenset(combination) not in straight_sets
    )
    pairs = sorted(
        (pair, *sorted(kickers, reverse=True))
        for pair in range(RANK_COUNT)
        for kickers in itertools.combinations([r for r in range(RANK_COUNT) if r != pair], 3)
    )
    two_pairs = sorted(
        (high, low, kicker)
        for low, high in itertools.combinations(range(RANK_COUNT), 2)
        for kicker in range(RANK_COUNT)
        if kicker not in (low, high)
    )
    trips = sorted(
        (trip, *sorted(kickers, reverse=True))
        for trip in range(RANK_COUNT)
        for kickers in itertools.combinations([r for r in range(RANK_COUNT) if r != trip], 2)
    )
    full_houses = sorted(
        (trip, pair) for trip in range(RANK_COUNT) for pair in range(RANK_COUNT) if pair != trip
    )
    quads = sorted(
        (quad, kicker)
        for quad in range(RANK_COUNT)
        for kicker in range(RANK_COUNT)
        if kicker != quad
    )
    classes: list[HighClass] = []
    classes += [HighClass(HighCategory.HIGH_CARD, ranks) for ranks in unpaired]  # type: ignore[arg-type]
    classes += [HighClass(HighCategory.PAIR, (p, p, a, b, c)) for p, a, b, c in pairs]
    classes += [HighClass(HighCategory.TWO_PAIR, (h, h, lo, lo, k)) for h, lo, k in two_pairs]
    classes += [HighClass(HighCategory.THREE_OF_A_KIND, (t, t, t, a, b)) for t, a, b in trips]
    classes += [HighClass(HighCategory.STRAIGHT, ranks) for ranks in _straight_ranks()]
    classes += [HighClass(HighCategory.FLUSH, ranks) for ranks in unpaired]  # type: ignore[arg-type]
    classes += [HighClass(HighCategory.FULL_HOUSE, (t, t, t, p, p)) for t, p in full_houses]
    classes += [HighClass(HighCategory.FOUR_OF_A_KIND, (q, q, q, q, k)) for q, k in quads]
    classes += [HighClass(HighCategory.STRAIGHT_FLUSH, ranks) for ranks in _straight_ranks()]
    if len(classes) != HIGH_CLASS_COUNT:
        raise AssertionError(f"enumerated {len(classes)} high classes")
    return tuple(classes)


@functools.cache
def high_category_bounds() -> npt.NDArray[np.int32]:
    """First value of each category, indexed by `HighCategory`, plus one past the end.

    Returns
    -------
    numpy.ndarray
        int32 array of length 10; category ``c`` spans ``bounds[c] <= value < bounds[c + 1]``.
    """
    bounds = np.zeros(len(HighCategory) + 1, dtype=np.int32)
    for value, high_class in reversed(list(enumerate(high_classes(), start=1))):
        bounds[high_class.category] = value
    bounds[-1] = HIGH_CLASS_COUNT + 1
    bounds.flags.writeable = False
    return bounds


@functools.cache
def low_classes() -> tuple[tuple[int, int, int, int, int], ...]:
    """All 56 lows as low ranks (Ace = 1 .. Eight = 8), highest first; value ``v`` at ``v - 1``.

    Returns
    -------
    tuple of tuple of int
        Weakest (8-7-6-5-4) first, best (5-4-3-2-A) last.
    """
    lows = [
        tuple(sorted(combination, reverse=True))
        for combination in itertools.combinations(range(1, 9), 5)
    ]
    # A low is worse when its descending ranks are lexicographically larger.
    return tuple(sorted(lows, reverse=True))  # type: ignore[arg-type]


def _check_high(value: int | np.integer) -> int:
    value = int(value)
    if not 1 <= value <= HIGH_CLASS_COUNT:
        raise ValueError(f"high value {value} is not in 1..{HIGH_CLASS_COUNT}")
    return value


def _check_low(value: int | np.integer) -> int:
    value = int(value)
    if not 0 <= value <= LOW_CLASS_COUNT:
        raise ValueError(f"low value {value} is not in 0..{LOW_CLASS_COUNT}")
    return value


@overload
def high_category(value: int | np.integer) -> HighCategory: ...
@overload
def high_category(value: npt.NDArray[np.integer]) -> npt.NDArray[np.int8]: ...
def high_category(
    value: int | np.integer | npt.NDArray[np.integer],
) -> HighCategory | npt.NDArray[np.int8]:
    """Category of a high value, or of every value in an array.

    Parameters
    ----------
    value
        A high value (1..7462) or an integer array of them.

    Returns
    -------
    HighCategory or numpy.ndarray
        The category, or an int8 array of `HighCategory` codes for an array input.

    Examples
    --------
    >>> high_category(7462).name
    'STRAIGHT_FLUSH'
    >>> high_category(np.array([1, 1278])).tolist()
    [0, 1]
    """
    bounds = high_category_bounds()
    if isinstance(value, np.ndarray):
        values = np.asarray(value)
        if values.size and (values.min() < 1 or values.max() > HIGH_CLASS_COUNT):
            raise ValueError(f"high values must be in 1..{HIGH_CLASS_COUNT}")
        return (np.searchsorted(bounds, values, side="right") - 1).astype(np.int8)
    checked = _check_high(int(value))
    return HighCategory(int(np.searchsorted(bounds, checked, side="right")) - 1)


def high_ranks(value: int | np.integer) -> tuple[int, int, int, int, int]:
    """Return the five card ranks (0..12 = 2..A) of a high value, by significance.

    Examples
    --------
    >>> high_ranks(7462)
    (12, 11, 10, 9, 8)
    """
    return high_classes()[_check_high(value) - 1].ranks


def low_ranks(value: int | np.integer) -> tuple[int, ...]:
    """Return the five card ranks (0..12 = 2..A) of a low value, highest low card first.

    The ace counts low, so it comes last. ``()`` for 0 (no qualifying low).

    Examples
    --------
    >>> low_ranks(LOW_CLASS_COUNT)
    (3, 2, 1, 0, 12)
    >>> low_ranks(0)
    ()
    """
    checked = _check_low(value)
    if checked == 0:
        return ()
    return tuple(ACE if low_rank == 1 else low_rank - 2 for low_rank in low_classes()[checked - 1])


def _kicker_text(kickers: tuple[int, ...]) -> str:
    return " - " + "+".join(RANK_NAMES[rank] for rank in kickers) + " kicker"


def describe_high(value: int | np.integer, *, with_kickers: bool = False) -> str:
    """PokerStars wording of a high value.

    Parameters
    ----------
    value
        A high value (1..7462).
    with_kickers
        Append every kicker, highest first, as PokerStars does in a ``shows`` line when
        shown hands share the grouped ranks, e.g. ``three of a kind, Jacks - Ace+Queen
        kicker`` (the only form in the corpus; whether Stars sometimes prints fewer
        kickers is unverified, so compare a printed kicker list as a prefix). Hands
        without kickers (straights, flushes, full houses) are unchanged.

    Returns
    -------
    str
        E.g. ``a pair of Aces``, ``a straight, Ace to Five``, ``a Royal Flush``.

    Examples
    --------
    >>> describe_high(1)
    'high card Seven'
    >>> describe_high(HIGH_CLASS_COUNT - 1)
    'a straight flush, Nine to King'
    """
    high_class = high_classes()[_check_high(value) - 1]
    ranks = high_class.ranks
    category = high_class.category
    kickers: tuple[int, ...] = ()
    if category is HighCategory.HIGH_CARD:
        text = f"high card {RANK_NAMES[ranks[0]]}"
        kickers = ranks[1:]
    elif category is HighCategory.PAIR:
        text = f"a pair of {PLURAL_RANK_NAMES[ranks[0]]}"
        kickers = ranks[2:]
    elif category is HighCategory.TWO_PAIR:
        text = f"two pair, {PLURAL_RANK_NAMES[ranks[0]]} and {PLURAL_RANK_NAMES[ranks[2]]}"
        kickers = ranks[4:]
    elif category is HighCategory.THREE_OF_A_KIND:
        text = f"three of a kind, {PLURAL_RANK_NAMES[ranks[0]]}"
        kickers = ranks[3:]
    elif category is HighCategory.STRAIGHT:
        text = f"a straight, {RANK_NAMES[ranks[4]]} to {RANK_NAMES[ranks[0]]}"
    elif category is HighCategory.FLUSH:
        text = f"a flush, {RANK_NAMES[ranks[0]]} high"
    elif category is HighCategory.FULL_HOUSE:
        text = f"a full house, {PLURAL_RANK_NAMES[ranks[0]]} full of {PLURAL_RANK_NAMES[ranks[3]]}"
    elif category is HighCategory.FOUR_OF_A_KIND:
        text = f"four of a kind, {PLURAL_RANK_NAMES[ranks[0]]}"
        kickers = ranks[4:]
    elif ranks[0] == ACE:
        text = "a Royal Flush"
    else:
        text = f"a straight flush, {RANK_NAMES[ranks[4]]} to {RANK_NAMES[ranks[0]]}"
    if with_kickers and kickers:
        text += _kicker_text(kickers)
    return text


def describe_low(value: int | np.integer) -> str:
    """PokerStars wording of a low value: ranks descending, comma-separated, ace as ``A``.

    Returns ``""`` for 0 (no qualifying low; PokerStars then prints no ``LO:`` part).

    Examples
    --------
    >>> describe_low(1)
    '8,7,6,5,4'
    """
    return ",".join("A" if rank == ACE else LOW_RANK_SYMBOLS[rank] for rank in low_ranks(value))


@functools.cache
def high_descriptions(*, with_kickers: bool = False) -> tuple[str, ...]:
    """Return `describe_high` of every value, at index ``value - 1``, for vectorised lookups.

    Examples
    --------
    >>> descriptions = np.array(high_descriptions(), dtype=object)
    >>> descriptions[np.array([7462, 1]) - 1].tolist()
    ['a Royal Flush', 'high card Seven']
    """
    return tuple(
        describe_high(value, with_kickers=with_kickers) for value in range(1, HIGH_CLASS_COUNT + 1)
    )


@functools.cache
def low_descriptions() -> tuple[str, ...]:
    """Return `describe_low` of every value, at index ``value`` (``""`` at 0 = no low)."""
    return tuple(describe_low(value) for value in range(LOW_CLASS_COUNT + 1))
