"""All-in equity: the compiled enumeration against an independent brute force, conservation,
and the spots found in audited hands."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.equity import SpotTable, expected_payouts
from pipeline.equity.enumeration import MAX_PLAYERS, STATUS_BAD_CARDS, STATUS_OK
from tests.equity_reference import reference_equity


def random_spot(rng: random.Random, players: int, known_count: int) -> dict:
    """Hole cards, a known board, nested pots (main + side pots of the deeper stacks)."""
    cards = rng.sample(range(52), players * 4 + known_count)
    # Low-heavy deals so that lows, ties and quartering occur: draw ranks A-8 more often.
    if rng.random() < 0.5:
        lows = [card for card in range(52) if card // 4 in (12, 0, 1, 2, 3, 4, 5)]
        pool = rng.sample(lows, min(len(lows), players * 4 + known_count))
        rest = [card for card in range(52) if card not in pool]
        cards = (pool + rng.sample(rest, len(rest)))[: players * 4 + known_count]
        rng.shuffle(cards)
    holes = [tuple(cards[4 * i : 4 * i + 4]) for i in range(players)]
    known = tuple(cards[players * 4 :])
    everyone = list(range(players))
    pots = [(rng.randint(1, 5000), everyone)]
    deeper = everyone
    while len(deeper) > 2 and rng.random() < 0.6:
        deeper = sorted(rng.sample(deeper, len(deeper) - 1))
        pots.append((rng.randint(1, 3000), deeper))
    return {
        "holes": holes,
        "known": known,
        "pots": pots,
        "unit": rng.choice((1, 1, 5)),
        "boards": rng.choice((1, 1, 1, 2)),
    }


def spot_table(spots: list[dict]) -> SpotTable:
    player_start = np.cumsum([0] + [len(spot["holes"]) for spot in spots]).astype(np.int64)
    pot_start = np.cumsum([0] + [len(spot["pots"]) for spot in spots]).astype(np.int64)
    known = np.zeros((len(spots), 5), dtype=np.uint8)
    for row, spot in enumerate(spots):
        known[row, : len(spot["known"])] = spot["known"]
    return SpotTable(
        hand_row=np.arange(len(spots), dtype=np.int64),
        street=np.array([{0: 0, 3: 1, 4: 2}[len(spot["known"])] for spot in spots], dtype=np.int64),
        known=known,
        known_count=np.array([len(spot["known"]) for spot in spots], dtype=np.int64),
        unit=np.array([spot["unit"] for spot in spots], dtype=np.int64),
        board_count=np.array([spot["boards"] for spot in spots], dtype=np.int64),
        player_start=player_start,
        player_row=np.arange(player_start[-1], dtype=np.int64),
        hole=np.array([hole for spot in spots for hole in spot["holes"]], dtype=np.uint8).reshape(-1, 4),
        pot_start=pot_start,
        pot_row=np.arange(pot_start[-1], dtype=np.int64),
        pot_amount=np.array([amount for spot in spots for amount, _ in spot["pots"]], dtype=np.int64),
        pot_eligible=np.array(
            [sum(1 << p for p in players) for spot in spots for _, players in spot["pots"]],
            dtype=np.int64,
        ),
    )


def compare_with_reference(spots: list[dict], method: str = "exact") -> dict[str, int]:
    """Kernel vs brute force on every spot; returns how many spots had quartering / no low.

    Exact spots must agree to 1e-12 of the pot; sampled ones within 5 stated standard errors
    (and the stated error must be at most 0.1 % of the pot)."""
    expected, spread, runouts, status, exact = expected_payouts(spot_table(spots), method=method)
    assert (status == STATUS_OK).all()
    assert (exact == (method == "exact")).all()
    seen = {"quartered": 0, "no_low": 0, "both": 0}
    pot_row = 0
    for row, spot in enumerate(spots):
        reference, events = reference_equity(spot["holes"], spot["known"], spot["pots"], spot["unit"], spot["boards"])
        if method == "exact":
            assert runouts[row] == events["boards"]
        for (amount, players), truth in zip(spot["pots"], reference):
            for player in range(MAX_PLAYERS):
                want = float(truth.get(player, 0))
                if method == "exact":
                    assert spread[pot_row, player] == 0
                    assert expected[pot_row, player] == pytest.approx(want, abs=1e-12 * max(amount, 1))
                else:
                    assert spread[pot_row, player] <= 0.001 * amount
                    assert abs(expected[pot_row, player] - want) <= 5 * spread[pot_row, player] + 1e-9
            pot_row += 1
        seen["quartered"] += events["quartered"] > 0
        seen["no_low"] += events["no_low"] > 0
        seen["both"] += events["quartered"] > 0 and events["no_low"] > 0
    return seen


def test_turn_and_flop_spots_match_the_brute_force() -> None:
    rng = random.Random(20)
    spots = [random_spot(rng, players, 4) for players in (2, 3, 4) for _ in range(8)]
    spots += [random_spot(rng, players, 3) for players in (2, 3) for _ in range(2)]
    seen = compare_with_reference(spots)
    assert seen["both"] > 0  # quartering and no-low both occurred in some spot's run-outs


def test_sampled_spots_are_within_their_stated_error() -> None:
    # Sampling (250,000 boards a spot) checked where the brute force is quick: turn spots.
    rng = random.Random(7)
    spots = [random_spot(rng, players, 4) for players in (2, 3) for _ in range(3)]
    compare_with_reference(spots, method="sampled")


def test_bad_cards_give_a_status_not_a_result() -> None:
    spot = random_spot(random.Random(3), 2, 4)
    spot["holes"][1] = (spot["holes"][0][0], *spot["holes"][1][1:])  # a card twice
    expected, spread, runouts, status, exact = expected_payouts(spot_table([spot]))
    assert status[0] == STATUS_BAD_CARDS
    assert (expected == 0).all()


@settings(deadline=None, max_examples=40)
@given(
    seed=st.integers(0, 2**32 - 1),
    players=st.integers(2, 4),
    known_count=st.sampled_from((3, 4)),
)
def test_expected_amounts_of_a_pot_sum_to_the_pot(seed: int, players: int, known_count: int) -> None:
    spot = random_spot(random.Random(seed), players, known_count)
    expected, *_ = expected_payouts(spot_table([spot]))
    for row, (amount, players_in) in enumerate(spot["pots"]):
        assert expected[row].sum() == pytest.approx(amount, rel=1e-12, abs=1e-9)
        outside = [p for p in range(MAX_PLAYERS) if p not in players_in]
        assert (expected[row, outside] == 0).all()
        assert (expected[row] >= 0).all()


def test_preflop_board_classes_count_every_board_once() -> None:
    # The preflop classes (rank multiset, flush suit and its ranks) against dealing every
    # board: the same expected amounts; the brute force itself checks both in the slow suite.
    rng = random.Random(11)
    spots = [random_spot(rng, players, 0) for players in (2, 3, 5, 8)]
    by_class = expected_payouts(spot_table(spots), method="exact")
    dealt = expected_payouts(spot_table(spots), method="enumerate")
    assert (by_class[3] == STATUS_OK).all() and (by_class[2] == dealt[2]).all()
    assert np.abs(by_class[0] - dealt[0]).max() <= 1e-9
