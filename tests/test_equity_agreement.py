"""All-in equity of the compiled kernel against the independent brute force on 500+ spots:
preflop, flop and turn; 2, 3 and 4 players; side pots; run-outs with quartering and with no
low; and 300+ spots of 5 and 6 hole cards (flop, turn, Courchevel preflop). Slow (a few
minutes): ``pytest -m slow tests/test_equity_agreement.py -s`` prints the counts."""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest

from pipeline.evaluator import evaluate
from tests.equity_reference import omaha_strengths, reference_equity
from tests.test_equity import compare_with_reference, random_spot

pytestmark = pytest.mark.slow

SPOTS_PER_SHAPE = {4: 120, 3: 45, 0: 4}  # known board cards → spots per player count


def evaluator_strengths(holes: list[tuple[int, ...]], boards: list[tuple[int, ...]]) -> list[dict]:
    """Per board and player (high, low) from the public batch evaluator (a million preflop
    boards are out of reach of pokerkit): a sample of the boards is checked against pokerkit
    below, so the oracle still decides."""
    board_array = np.array(boards, dtype=np.uint8)
    values = []
    for hole in holes:
        hole_array = np.repeat(np.array([hole], dtype=np.uint8), len(boards), axis=0)
        values.append(evaluate(hole_array, board_array))
    rng = random.Random(len(boards))
    for board_row in rng.sample(range(len(boards)), 300):
        oracle = [omaha_strengths(hole, boards[board_row]) for hole in holes]
        for i in range(len(holes)):
            for j in range(len(holes)):
                high_i, high_j = int(values[i][0][board_row]), int(values[j][0][board_row])
                assert (high_i > high_j) == (oracle[i][0] > oracle[j][0])
                low_i, low_j = int(values[i][1][board_row]), int(values[j][1][board_row])
                assert (low_i > 0) == (oracle[i][1] is not None)
                if low_i and low_j:
                    assert (low_i > low_j) == (oracle[i][1] > oracle[j][1])
    highs = [value[0].tolist() for value in values]
    lows = [value[1].tolist() for value in values]
    return [
        {i: (highs[i][b], lows[i][b] if lows[i][b] > 0 else None) for i in range(len(holes))}
        for b in range(len(boards))
    ]


def test_kernel_agrees_with_the_brute_force_on_500_spots(monkeypatch: pytest.MonkeyPatch) -> None:
    import tests.test_equity as equity_tests

    rng = random.Random(2020)
    shapes: Counter[tuple[int, int]] = Counter()
    side_pots = 0
    seen_total = Counter()
    for known, per_shape in SPOTS_PER_SHAPE.items():
        for players in (2, 3, 4):
            spots = [random_spot(rng, players, known) for _ in range(per_shape)]
            if known == 0:
                # Preflop: strengths from the batch evaluator, checked against pokerkit.
                monkeypatch.setattr(
                    equity_tests,
                    "reference_equity",
                    lambda *args: reference_equity(*args, strengths_of=evaluator_strengths),
                )
            seen = compare_with_reference(spots)
            monkeypatch.undo()
            seen_total.update(seen)
            shapes[({0: "preflop", 3: "flop", 4: "turn"}[known], players)] += len(spots)
            side_pots += sum(len(spot["pots"]) > 1 for spot in spots)
    print(f"\nspots by (street, players): {dict(shapes)}; with side pots: {side_pots}; "
          f"with quartering: {seen_total['quartered']}; with no low: {seen_total['no_low']}; "
          f"with both: {seen_total['both']}")
    assert sum(shapes.values()) >= 500
    assert side_pots > 50 and seen_total["both"] > 50


WIDE_SPOTS_PER_SHAPE = {4: 40, 3: 15}  # known board cards → spots per player count


def test_wide_spots_agree_with_the_brute_force(monkeypatch: pytest.MonkeyPatch) -> None:
    # Big O and 6-card spots on the flop and turn (2-4 players, side pots), and Courchevel
    # preflop spots (five hole cards, the first board card known; strengths from the 4-card
    # kernel over each hand's four-card subsets, checked against pokerkit).
    import tests.test_equity as equity_tests
    from tests.test_equity import independent_strengths

    rng = random.Random(2121)
    shapes: Counter[tuple[int, str, int]] = Counter()
    side_pots = 0
    seen_total: Counter[str] = Counter()
    cases = [
        (hole_cards, known, players, count)
        for hole_cards in (5, 6)
        for known, count in WIDE_SPOTS_PER_SHAPE.items()
        for players in (2, 3, 4)
    ] + [(5, 1, players, 2) for players in (2, 3, 4)]
    for hole_cards, known, players, count in cases:
        spots = [random_spot(rng, players, known, hole_cards) for _ in range(count)]
        if known == 1:
            monkeypatch.setattr(
                equity_tests,
                "reference_equity",
                lambda *args: reference_equity(*args, strengths_of=independent_strengths),
            )
        seen = compare_with_reference(spots)
        monkeypatch.undo()
        seen_total.update(seen)
        street = {1: "courchevel preflop", 3: "flop", 4: "turn"}[known]
        shapes[(hole_cards, street, players)] += len(spots)
        side_pots += sum(len(spot["pots"]) > 1 for spot in spots)
    print(f"\nspots by (hole cards, street, players): {dict(shapes)}; with side pots: {side_pots}; "
          f"with quartering: {seen_total['quartered']}; with no low: {seen_total['no_low']}; "
          f"with both: {seen_total['both']}")
    assert sum(shapes.values()) >= 300
    assert side_pots > 30 and seen_total["both"] > 30
