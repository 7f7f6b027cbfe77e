"""Fast Omaha Hi/Lo evaluator: best high and best eight-or-better low of many hands at once.

``evaluate(hole, board)`` and ``evaluate_showdowns(hole, board_index, boards)`` return
int32 ``(high, low)`` arrays: high 1..7462 (larger is better, ``7463 - high`` is
phevaluator's rank), low 1..56 (larger is better) or 0 for no qualifying low. Equal values
tie. Hole rows hold 4, 5 or 6 cards (Omaha Hi/Lo; Big O and Courchevel; 6-card Omaha
Hi/Lo), exactly two of which play: four cost one read of the high table (`kernels`), five and
six three (`kernels_wide`). `describe_high` / `describe_low` give PokerStars wording;
`high_ranks` / `low_ranks` decode the ranks; `pipeline.evaluator.reference` is a plain-Python
brute-force reference.
"""

from pipeline.evaluator.api import card_text, evaluate, evaluate_showdowns, parse_cards, warm_up
from pipeline.evaluator.classes import (
    HIGH_CLASS_COUNT,
    LOW_CLASS_COUNT,
    HighCategory,
    HighClass,
    describe_high,
    describe_low,
    high_category,
    high_category_bounds,
    high_classes,
    high_descriptions,
    high_ranks,
    low_classes,
    low_descriptions,
    low_ranks,
)
from pipeline.evaluator.sampling import random_deals, random_showdowns
from pipeline.evaluator.tables import cache_directory, load_tables

__all__ = [
    "HIGH_CLASS_COUNT",
    "LOW_CLASS_COUNT",
    "HighCategory",
    "HighClass",
    "cache_directory",
    "card_text",
    "describe_high",
    "describe_low",
    "evaluate",
    "evaluate_showdowns",
    "high_category",
    "high_category_bounds",
    "high_classes",
    "high_descriptions",
    "high_ranks",
    "load_tables",
    "low_classes",
    "low_descriptions",
    "low_ranks",
    "parse_cards",
    "random_deals",
    "random_showdowns",
    "warm_up",
]
