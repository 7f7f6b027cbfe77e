"""All-in equity: the compiled enumeration against an independent brute force, conservation,
and the spots found in audited hands."""

from __future__ import annotations

import dataclasses
import itertools
import math
import random
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.equity import SpotTable, expected_payouts
from pipeline.equity.enumeration import MAX_PLAYERS, STATUS_BAD_CARDS, STATUS_OK
from pipeline.evaluator import evaluate
from pipeline.profiles import PROFILES
from pipeline.rules import Contender, settle
from tests.equity_reference import omaha_strengths, reference_equity


def random_spot(rng: random.Random, players: int, known_count: int, hole_cards: int = 4) -> dict:
    """Hole cards (``hole_cards`` each), a known board, nested pots (main + side pots of the
    deeper stacks)."""
    dealt = players * hole_cards + known_count
    cards = rng.sample(range(52), dealt)
    # Low-heavy deals so that lows, ties and quartering occur: draw ranks A-8 more often.
    if rng.random() < 0.5:
        lows = [card for card in range(52) if card // 4 in (12, 0, 1, 2, 3, 4, 5)]
        pool = rng.sample(lows, min(len(lows), dealt))
        rest = [card for card in range(52) if card not in pool]
        cards = (pool + rng.sample(rest, len(rest)))[:dealt]
        rng.shuffle(cards)
    holes = [tuple(cards[hole_cards * i : hole_cards * (i + 1)]) for i in range(players)]
    known = tuple(cards[players * hole_cards :])
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


STREET_OF_KNOWN = {0: 0, 1: 0, 3: 1, 4: 2}  # 1: a Courchevel preflop spot


def spot_table(spots: list[dict]) -> SpotTable:
    """The kernel's input; spots may hold different hole counts (rows padded to the widest)."""
    player_start = np.cumsum([0] + [len(spot["holes"]) for spot in spots]).astype(np.int64)
    pot_start = np.cumsum([0] + [len(spot["pots"]) for spot in spots]).astype(np.int64)
    known = np.zeros((len(spots), 5), dtype=np.uint8)
    for row, spot in enumerate(spots):
        known[row, : len(spot["known"])] = spot["known"]
    counts = [len(spot["holes"][0]) for spot in spots]
    width = max(counts, default=4)
    hole = np.zeros((int(player_start[-1]), width), dtype=np.uint8)
    for row, cards in enumerate(cards for spot in spots for cards in spot["holes"]):
        hole[row, : len(cards)] = cards
    return SpotTable(
        hand_row=np.arange(len(spots), dtype=np.int64),
        street=np.array([STREET_OF_KNOWN[len(spot["known"])] for spot in spots], dtype=np.int64),
        known=known,
        known_count=np.array([len(spot["known"]) for spot in spots], dtype=np.int64),
        unit=np.array([spot["unit"] for spot in spots], dtype=np.int64),
        board_count=np.array([spot["boards"] for spot in spots], dtype=np.int64),
        hole_count=np.array(counts, dtype=np.int64),
        player_start=player_start,
        player_row=np.arange(player_start[-1], dtype=np.int64),
        hole=hole,
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
    expected, spread, runouts, status, exact, _ = expected_payouts(spot_table(spots), method=method)
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
    expected, spread, runouts, status, exact, _ = expected_payouts(spot_table([spot]))
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
    # The variance of each player's total, from the classes' joint outcomes too.
    assert np.abs(by_class[5] - dealt[5]).max() <= 1e-9 * max(1.0, float(dealt[5].max()))


def test_preflop_board_classes_shortcuts_count_every_board_once() -> None:
    # Hands chosen for each shortcut of `_preflop_classes`: one player can flush in a suit
    # (its flush boards counted at once), two can (summed by the order of their flushes),
    # a side pot without the main pot's only flusher (each class on its own), pairs and
    # sets that make full houses (a flush no longer beats every hand), and ten players
    # (more orders of the highs than are summed: the rest recorded one by one).
    from pipeline.evaluator.api import parse_cards

    def spot(holes: list[str], pots: list[tuple[int, list[int]]], boards: int = 1) -> dict:
        return {
            "holes": [tuple(parse_cards(hole).tolist()) for hole in holes],
            "known": (),
            "pots": pots,
            "unit": 1,
            "boards": boards,
        }

    spots = [
        spot(["As Ks 2d 3c", "Qh Jd Tc 4h"], [(1001, [0, 1])]),
        spot(["As Ks 2d 3c", "Qs Js 4h 5h"], [(999, [0, 1])], boards=2),
        spot(["Ah 2h 3d 4c", "Ks Kd 5s 6c", "Qs Jc Ts 7d"], [(1500, [0, 1, 2]), (700, [1, 2])]),
        spot(["Ah Ad Kh Kd", "Qs Qc Js Jc"], [(1234, [0, 1])]),
        spot(["Ah Ad 2h 3s", "Kc Kd 4c 5d", "8s 8h 7s 7h"], [(3000, [0, 1, 2]), (900, [1, 2])]),
        spot(
            ["Ah 2h 3c 4d", "As 2s 5c 6d", "Kh Qh Jc Td", "Ks Qs 9c 8d", "Kc Qc 9h 8h",
             "Jh Th 9s 8s", "7h 6h 5s 4s", "7c 6c 5h 4h", "3d 2d Jd Qd", "Ad Kd 7d 6s"],
            [(5000, list(range(10))), (2000, [0, 1, 2, 3, 4]), (800, [0, 1])],
        ),
    ]  # fmt: skip
    by_class = expected_payouts(spot_table(spots), method="exact")
    dealt = expected_payouts(spot_table(spots), method="enumerate")
    assert (by_class[3] == STATUS_OK).all() and (by_class[2] == dealt[2]).all()
    assert np.abs(by_class[0] - dealt[0]).max() <= 1e-9
    assert np.abs(by_class[5] - dealt[5]).max() <= 1e-9 * max(1.0, float(dealt[5].max()))


def crowded_spot(rng: random.Random, players: int, hole_cards: int) -> dict:
    """A preflop spot whose hands crowd two suits and a few ranks: several flushers in a
    suit, straight flushes within reach, pairs and sets that make full houses."""
    suits = rng.sample(range(4), 2)
    ranks = rng.sample(range(13), 7)
    pool = [rank * 4 + suit for rank in range(13) for suit in suits]
    pool += [rank * 4 + suit for rank in ranks for suit in range(4) if suit not in suits]
    spot = random_spot(rng, players, 0, hole_cards)
    cards = rng.sample(pool, players * hole_cards)
    spot["holes"] = [tuple(cards[hole_cards * i : hole_cards * (i + 1)]) for i in range(players)]
    return spot


@pytest.mark.parametrize("hole_cards", [4, 5, 6])
def test_preflop_board_classes_on_crowded_suits_count_every_board_once(hole_cards: int) -> None:
    # Random hands where the shortcuts of `_preflop_classes` and `_preflop_heads_up` decide
    # most boards, against dealing every board.
    rng = random.Random(70 + hole_cards)
    spots = [crowded_spot(rng, players, hole_cards) for players in (2, 2, 2, 3, 4, 6)]
    by_class = expected_payouts(spot_table(spots), method="exact")
    dealt = expected_payouts(spot_table(spots), method="enumerate")
    assert (by_class[3] == STATUS_OK).all() and (by_class[2] == dealt[2]).all()
    assert np.abs(by_class[0] - dealt[0]).max() <= 1e-9
    assert np.abs(by_class[5] - dealt[5]).max() <= 1e-9 * max(1.0, float(dealt[5].max()))


# --- 5 and 6 hole cards (Big O, Courchevel, 6-card Omaha Hi/Lo) ------------------------


@pytest.mark.parametrize("hole_cards", [5, 6])
def test_wide_turn_and_flop_spots_match_the_brute_force(hole_cards: int) -> None:
    rng = random.Random(30 + hole_cards)
    spots = [random_spot(rng, players, 4, hole_cards) for players in (2, 3, 4) for _ in range(6)]
    spots += [random_spot(rng, players, 3, hole_cards) for players in (2, 3, 4)]
    seen = compare_with_reference(spots)
    assert sum(len(spot["pots"]) > 1 for spot in spots) > 0
    assert seen["quartered"] > 0 and seen["no_low"] > 0


def test_spots_of_every_hole_count_in_one_table() -> None:
    # One call mixes 4-, 5- and 6-card spots (rows padded to six cards): each spot's values
    # are those it gets alone.
    rng = random.Random(41)
    spots = [random_spot(rng, 3, 4, hole_cards) for hole_cards in (4, 5, 6, 5, 4, 6)]
    together = expected_payouts(spot_table(spots))
    assert (together[3] == STATUS_OK).all()
    pot_row = 0
    for spot in spots:
        alone = expected_payouts(spot_table([spot]))
        rows = len(spot["pots"])
        np.testing.assert_array_equal(together[0][pot_row : pot_row + rows], alone[0])
        pot_row += rows


def rules_brute_force(
    holes: list[tuple[int, ...]],
    known: tuple[int, ...],
    put_in: list[int],
    folded_chips: int,
    unit: int,
    boards: int,
) -> tuple[list[tuple[int, list[int]]], dict[tuple[int, int], Fraction], int]:
    """Every run-out of ``known`` settled by `pipeline.rules.settle` (the scalar rules
    reference), averaged: the pots (amount, eligible players), the expected amount of each
    (pot, player) and the number of run-outs.

    Players are seats 1..n with the button on seat n, so the clockwise order is the spot's
    order; a folded player (seat n + 1, cards unknown) leaves ``folded_chips`` of dead money.
    A hand run twice is settled with the same board twice: each board's run-out is uniform
    over the same cards, so by linearity the average is the two-board expectation.
    """
    names = [f"p{i}" for i in range(len(holes))]
    contenders = [
        Contender(seat + 1, name, amount, False, hole)
        for seat, (name, amount, hole) in enumerate(zip(names, put_in, holes, strict=True))
    ]
    if folded_chips:
        contenders.append(Contender(len(holes) + 1, "folded", folded_chips, True, None))
    profile = dataclasses.replace(PROFILES["pokerstars"], odd_chip_unit=unit)
    used = set(known) | {card for hole in holes for card in hole}
    deck = [card for card in range(52) if card not in used]
    sums: dict[tuple[int, int], int] = {}
    runouts = 0
    pots: list[tuple[int, list[int]]] = []
    for drawn in itertools.combinations(deck, 5 - len(known)):
        board = known + drawn
        settlement = settle(contenders, [board] * boards, len(holes), rake=0, profile=profile)
        for payout in settlement.payouts:
            key = (payout.pot_index, names.index(payout.player))
            sums[key] = sums.get(key, 0) + payout.amount
        runouts += 1
        pots = [
            (pot.amount, sorted(names.index(name) for name in pot.eligible))
            for pot in settlement.pots
        ]
    return pots, {key: Fraction(total, runouts) for key, total in sums.items()}, runouts


@pytest.mark.parametrize("hole_cards", [5, 6])
@pytest.mark.parametrize("known_count", [3, 4])
def test_wide_spots_match_settling_every_runout_with_the_rules(
    hole_cards: int, known_count: int
) -> None:
    # 2-4 players, side pots from unequal stacks, dead money, run twice, a 5-unit table.
    rng = random.Random(100 * hole_cards + known_count)
    checked_side_pots = 0
    for players in (2, 3, 4, 4, 3):
        spot = random_spot(rng, players, known_count, hole_cards)
        put_in = [
            rng.choice((100, 250, 250, 600, 1000)) * rng.choice((1, 5)) for _ in range(players)
        ]
        folded_chips = rng.choice((0, 0, 35))
        unit, boards = rng.choice((1, 1, 5)), rng.choice((1, 1, 2))
        pots, truth, runouts = rules_brute_force(
            spot["holes"], spot["known"], put_in, folded_chips, unit, boards
        )
        spot.update(pots=[pot for pot in pots if pot[0] > 0], unit=unit, boards=boards)
        # A side pot two or more players contest.
        checked_side_pots += any(len(members) > 1 for _, members in spot["pots"][1:])
        expected, spread, outcomes, status, _, _ = expected_payouts(spot_table([spot]))
        assert status[0] == STATUS_OK and outcomes[0] == runouts
        pot_indexes = [index for index, pot in enumerate(pots) if pot[0] > 0]
        for row, (pot_index, (amount, members)) in enumerate(zip(pot_indexes, spot["pots"])):
            for player in range(MAX_PLAYERS):
                want = float(truth.get((pot_index, player), 0))
                assert expected[row, player] == pytest.approx(want, abs=1e-12 * amount)
    assert checked_side_pots > 0


@pytest.mark.parametrize("hole_cards", [5, 6])
def test_wide_preflop_board_classes_count_every_board_once(hole_cards: int) -> None:
    # The class argument (highs and lows by the board's rank multiset, flushes by the ranks
    # of a suit with three board cards) holds for any fixed hands: checked against dealing
    # every board.
    rng = random.Random(50 + hole_cards)
    spots = [
        random_spot(rng, players, 0, hole_cards)
        for players in (2, 3, 5, 7)
        if players * hole_cards <= 42
    ]
    by_class = expected_payouts(spot_table(spots), method="exact")
    dealt = expected_payouts(spot_table(spots), method="enumerate")
    assert (by_class[3] == STATUS_OK).all() and (by_class[2] == dealt[2]).all()
    assert np.abs(by_class[0] - dealt[0]).max() <= 1e-9
    # The variance of each player's total, from the classes' joint outcomes too.
    assert np.abs(by_class[5] - dealt[5]).max() <= 1e-9 * max(1.0, float(dealt[5].max()))


def independent_strengths(
    holes: list[tuple[int, ...]], boards: list[tuple[int, ...]]
) -> list[dict]:
    """Per board and player (high, low) from the 4-card kernel over every four-card subset of
    the hand (not the 5-6 card kernel the spot uses), a sample of boards checked against
    pokerkit; for boards too many for pokerkit alone."""
    board_array = np.array(boards, dtype=np.uint8)
    values = []
    for hole in holes:
        subsets = [
            evaluate(np.repeat(np.array([subset], np.uint8), len(boards), axis=0), board_array)
            for subset in itertools.combinations(hole, 4)
        ]
        values.append(
            (np.max([v[0] for v in subsets], axis=0), np.max([v[1] for v in subsets], axis=0))
        )
    rng = random.Random(len(boards))
    for row in rng.sample(range(len(boards)), 200):
        oracle = [omaha_strengths(hole, boards[row]) for hole in holes]
        for i, j in itertools.product(range(len(holes)), repeat=2):
            assert (values[i][0][row] > values[j][0][row]) == (oracle[i][0] > oracle[j][0])
            assert (values[i][1][row] > 0) == (oracle[i][1] is not None)
            if values[i][1][row] and values[j][1][row]:
                assert (values[i][1][row] > values[j][1][row]) == (oracle[i][1] > oracle[j][1])
    highs = [value[0].tolist() for value in values]
    lows = [value[1].tolist() for value in values]
    return [
        {i: (highs[i][b], lows[i][b] if lows[i][b] > 0 else None) for i in range(len(holes))}
        for b in range(len(boards))
    ]


def test_courchevel_preflop_spot_deals_every_board_after_the_first_card() -> None:
    # Courchevel shows the first board card before the preflop betting: a preflop all-in
    # knows it, and the kernel deals the other four (C(31, 4) boards for four players).
    rng = random.Random(60)
    spot = random_spot(rng, 4, 1, 5)
    expected, _, runouts, status, _, _ = expected_payouts(spot_table([spot]))
    assert status[0] == STATUS_OK and runouts[0] == math.comb(52 - 21, 4)
    truth, events = reference_equity(
        spot["holes"], spot["known"], spot["pots"], spot["unit"], spot["boards"],
        strengths_of=independent_strengths,
    )  # fmt: skip
    assert events["boards"] == runouts[0]
    for row, ((amount, _), exact) in enumerate(zip(spot["pots"], truth)):
        for player in range(MAX_PLAYERS):
            want = float(exact.get(player, 0))
            assert expected[row, player] == pytest.approx(want, abs=1e-12 * max(amount, 1))


def _runout_totals(
    holes: list[tuple[int, ...]], known: tuple[int, ...], put_in: list[int], unit: int
) -> list[list[int]]:
    """Each run-out's total payout per player (one board), settled by `pipeline.rules`."""
    names = [f"p{i}" for i in range(len(holes))]
    contenders = [
        Contender(seat + 1, name, amount, False, hole)
        for seat, (name, amount, hole) in enumerate(zip(names, put_in, holes, strict=True))
    ]
    profile = dataclasses.replace(PROFILES["pokerstars"], odd_chip_unit=unit)
    used = set(known) | {card for hole in holes for card in hole}
    deck = [card for card in range(52) if card not in used]
    totals = []
    for drawn in itertools.combinations(deck, 5 - len(known)):
        settlement = settle(contenders, [known + drawn], len(holes), rake=0, profile=profile)
        paid = [0] * len(holes)
        for payout in settlement.payouts:
            paid[names.index(payout.player)] += payout.amount
        totals.append(paid)
    return totals


@pytest.mark.parametrize("hole_cards", [4, 5])
def test_spot_variance_is_the_variance_of_each_players_total(hole_cards: int) -> None:
    """The variance of a player's total payout over the run-outs (what all-in luck's z divides
    by) against settling every run-out with the rules: one pot, and two or three pots whose
    joint outcome the engine keeps."""
    rng = random.Random(70 + hole_cards)
    pot_counts = set()
    for players, known_count in ((2, 4), (3, 4), (4, 4), (3, 3), (4, 3)):
        spot = random_spot(rng, players, known_count, hole_cards)
        put_in = [rng.choice((100, 250, 600, 1000)) for _ in range(players)]
        totals = np.array(
            _runout_totals(spot["holes"], spot["known"], put_in, 1), dtype=np.float64
        )
        pots, _, _ = rules_brute_force(spot["holes"], spot["known"], put_in, 0, 1, 1)
        spot.update(pots=[pot for pot in pots if pot[0] > 0], unit=1, boards=1)
        pot_counts.add(len(spot["pots"]))
        *_, status, _, variance = expected_payouts(spot_table([spot]))
        assert status[0] == STATUS_OK
        want = totals.var(axis=0)
        scale = max(1.0, float(totals.max()) ** 2)
        np.testing.assert_allclose(variance[0, :players], want, atol=1e-9 * scale)
    assert {1, 2} <= pot_counts


def test_spot_variance_of_a_hand_run_twice() -> None:
    """Run twice, the boards' payouts add up their variances; the second run-out comes from the
    cards the first left, so the true variance is a little smaller (by about 1 / (cards - 1)):
    against every ordered pair of distinct rivers settled with the rules."""
    rng = random.Random(91)
    for players in (2, 3):
        spot = random_spot(rng, players, 4)
        put_in = [rng.choice((100, 250, 600)) for _ in range(players)]
        pots, _, _ = rules_brute_force(spot["holes"], spot["known"], put_in, 0, 1, 1)
        spot.update(pots=[pot for pot in pots if pot[0] > 0], unit=1, boards=2)
        names = [f"p{i}" for i in range(players)]
        contenders = [
            Contender(seat + 1, name, amount, False, hole)
            for seat, (name, amount, hole) in enumerate(zip(names, put_in, spot["holes"], strict=True))
        ]
        used = set(spot["known"]) | {card for hole in spot["holes"] for card in hole}
        deck = [card for card in range(52) if card not in used]
        totals = []
        for first, second in itertools.permutations(deck, 2):
            boards = [spot["known"] + (first,), spot["known"] + (second,)]
            settlement = settle(contenders, boards, players, rake=0, profile=PROFILES["pokerstars"])
            paid = [0] * players
            for payout in settlement.payouts:
                paid[names.index(payout.player)] += payout.amount
            totals.append(paid)
        truth = np.array(totals, dtype=np.float64).var(axis=0)
        *_, status, _, variance = expected_payouts(spot_table([spot]))
        assert status[0] == STATUS_OK
        ratio = variance[0, :players] / truth
        assert np.all((ratio >= 1.0 - 1e-9) & (ratio <= 1.0 + 2.0 / (len(deck) - 2))), ratio
