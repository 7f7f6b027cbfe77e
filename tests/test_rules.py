"""Scalar rules reference: the hand-worked cases of payout-rules.md and properties.

Expected amounts below are worked out by hand from payout-rules.md P1-P9 and K1-K4 (the
arithmetic is in the comments), never produced by the code under test. Where the rules document
contrasts the cardroom result with pokerkit's (D1-D3), the scenario is replayed through
pokerkit as well, to show it is the one the document describes.
"""

from __future__ import annotations

import warnings
from collections import Counter, defaultdict
from collections.abc import Sequence

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline.profiles import PROFILES, RakeRule, SiteProfile
from pipeline.rules import (
    HALVES,
    Contender,
    Settlement,
    UnevaluableHand,
    build_pots,
    clockwise_order,
    compute_rake,
    settle,
    split_evenly,
)

RANKS = "23456789TJQKA"
SUITS = "cdhs"
NO_RAKE = PROFILES["no-rake"]


def cards(text: str) -> tuple[int, ...]:
    """Card codes of ``"As Kd 2c"`` (rank * 4 + suit)."""
    return tuple(RANKS.index(token[0]) * 4 + SUITS.index(token[1]) for token in text.split())


def player(seat: int, name: str, put_in: int, hole: str | None, folded: bool = False) -> Contender:
    return Contender(seat, name, put_in, folded, None if hole is None else cards(hole))


def lines(settlement: Settlement) -> list[tuple[int, int, str, str, int]]:
    return [(p.pot_index, p.board_index, p.half, p.player, p.amount) for p in settlement.payouts]


def net(settlement: Settlement, contenders: Sequence[Contender]) -> list[int]:
    totals = settlement.totals()
    return [totals.get(c.player, 0) - c.put_in for c in contenders]


# -- splitting and seats ----------------------------------------------------------------------


def test_split_evenly_gives_spare_units_one_each_to_the_first() -> None:
    assert split_evenly(107, 3) == [36, 36, 35]  # P5: not 37/35/35 (D2)
    assert split_evenly(19, 2) == [10, 9]
    assert split_evenly(5, 7) == [1, 1, 1, 1, 1, 0, 0]
    # P9: Full Tilt $0.50/$1 splits $7.75 as $3.90/$3.85; $31,999.50 as $16,000/$15,999.50.
    assert split_evenly(775, 2, unit=5) == [390, 385]
    assert split_evenly(3_199_950, 2, unit=50) == [1_600_000, 1_599_950]
    # A fraction of a unit (a pot raked in cents at a nickel table) stays with the first share.
    assert split_evenly(777, 2, unit=5) == [392, 385]


def test_clockwise_order_starts_left_of_the_button() -> None:
    assert clockwise_order([1, 2, 3, 5, 6], button_seat=5) == [6, 1, 2, 3, 5]
    assert clockwise_order([2, 4, 7], button_seat=9) == [2, 4, 7]
    assert clockwise_order([2, 4, 7], button_seat=3) == [4, 7, 2]  # dead button on an empty seat


# -- pots --------------------------------------------------------------------------------------


def test_pots_from_contribution_levels_with_dead_money() -> None:
    contenders = [
        player(1, "short", 100, None),
        player(2, "middle", 250, None),
        player(3, "deep", 400, None),
        player(4, "caller", 400, None),
        player(5, "folder", 300, None, folded=True),
        player(6, "blind", 10, None, folded=True),
    ]
    pots = build_pots(contenders)
    # main: 100 x 5 + the blind's 10; side 1: 150 x 4 (folder reached it); side 2: folder's
    # last 50 + 150 x 2.
    assert [(pot.index, pot.amount, pot.eligible) for pot in pots] == [
        (0, 510, ("short", "middle", "deep", "caller")),
        (1, 600, ("middle", "deep", "caller")),
        (2, 350, ("deep", "caller")),
    ]
    assert sum(pot.amount for pot in pots) == sum(c.put_in for c in contenders)


def test_dead_money_above_every_live_level_stays_in_the_last_pot() -> None:
    # A dead small blind posted with the big blind: the folder put in more than the others.
    pots = build_pots(
        [player(1, "a", 2, None), player(2, "b", 2, None), player(3, "c", 3, None, True)]
    )
    assert [(pot.amount, pot.eligible) for pot in pots] == [(7, ("a", "b"))]


def test_build_pots_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="every contender folded"):
        build_pots([player(1, "a", 5, None, True)])
    with pytest.raises(ValueError, match="twice"):
        build_pots([player(1, "a", 5, None), player(2, "a", 5, None)])
    with pytest.raises(ValueError, match="negative"):
        build_pots([player(1, "a", -5, None)])


# -- the hand-worked cases of payout-rules.md ----------------------------------------------------

# A board with no low possible (only 2 and 3 are eight or under): ties on the high only.
NO_LOW_STRAIGHT_BOARD = cards("9c Tc Jd 2h 3s")


def test_p5_three_way_tie_spares_one_each_clockwise() -> None:
    """Pot 107, three tied highs: 36/36/35 clockwise from the button, not 37/35/35 (D2)."""
    contenders = [
        player(1, "first", 35, "Qh Kh 4c 5c"),  # all three: king-high straight, no low
        player(2, "third", 35, "Qd Kd 4d 5d"),
        player(3, "folder", 2, None, folded=True),
        player(5, "second", 35, "Qs Ks 4h 5h"),
    ]
    settlement = settle(contenders, [NO_LOW_STRAIGHT_BOARD], button_seat=2, rake=0)
    # Clockwise from the button (seat 2): seat 3 (folded), 5, then 1, then 2.
    assert lines(settlement) == [
        (0, 0, "scoop", "second", 36),
        (0, 0, "scoop", "first", 36),
        (0, 0, "scoop", "third", 35),
    ]


def test_p6_identical_hands_in_both_halves_split_the_whole_pot() -> None:
    """Pot 66, two players with the same high and the same low: 33/33, not 34/32."""
    board = cards("2c 3d 4h Kc Qs")
    contenders = [
        player(1, "left", 33, "Ah 5h 9c 9d"),  # wheel for high and low
        player(2, "right", 33, "Ad 5d Tc Th"),  # the same wheel
    ]
    settlement = settle(contenders, [board], button_seat=2, rake=0)
    assert lines(settlement) == [(0, 0, "scoop", "left", 33), (0, 0, "scoop", "right", 33)]
    # Half by half would have been 17 + 17 to the first seat clockwise and 16 + 16 to the other.


def test_odd_unit_between_the_halves_goes_high() -> None:
    """P4 at pot 39 (high 20, low 19) and at a table that splits in nickels (P9)."""
    board = cards("2c 5d 7h Kc Ks")
    contenders = [
        player(1, "high", 389, "Kd Qd Jc Tc"),  # trip kings, no low
        player(2, "low", 389, "Ah 3h 9c 9d"),  # 7,5,3,2,A
    ]
    assert lines(settle(contenders, [board], button_seat=1, rake=778 - 39)) == [
        (0, 0, "high", "high", 20),
        (0, 0, "low", "low", 19),
    ]
    full_tilt = SiteProfile(site="fulltilt", odd_chip_unit=5)
    # $7.75 after rake at Full Tilt $0.50/$1: $3.90 high, $3.85 low.
    settlement = settle(contenders, [board], button_seat=1, rake=3, profile=full_tilt)
    assert settlement.pots[0].amount == 775
    assert lines(settlement) == [(0, 0, "high", "high", 390), (0, 0, "low", "low", 385)]


def test_quartered_low() -> None:
    """P7: two tied lows get a quarter each; the high winner who also ties low gets three."""
    board = cards("2c 5d 7h Kc Ks")
    quartered = [
        player(1, "low-a", 50, "Ah 3h 9c 9d"),  # 7,5,3,2,A
        player(2, "high", 50, "Kd Qd Jc Tc"),  # trip kings, no low
        player(3, "low-b", 50, "As 3s 9h Qh"),  # the same 7,5,3,2,A
        player(4, "folder", 51, None, folded=True),
    ]
    # Pot 201: high 101; low 100 = 50 + 50.
    assert lines(settle(quartered, [board], button_seat=4, rake=0)) == [
        (0, 0, "high", "high", 101),
        (0, 0, "low", "low-a", 50),
        (0, 0, "low", "low-b", 50),
    ]
    three_quarters = [
        player(1, "scooper", 100, "Kd Ad 3d 9d"),  # trip kings and 7,5,3,2,A
        player(2, "quarter", 100, "Ah 3h 9c Jc"),  # 7,5,3,2,A, kings with A-J... below trips
    ]
    # Pot 200: high 100 to the scooper, low 100 = 50 + 50.
    assert settle(three_quarters, [board], button_seat=2, rake=0).totals() == {
        "scooper": 150,
        "quarter": 50,
    }


def test_d1_side_pot_without_a_low_is_scooped() -> None:
    """D1: a low in the main pot does not halve a side pot whose players have none.

    A (short, the only low), B (best high), C (second high) are all in for 100, 200 and 300;
    D folds on the flop after putting in 300. Main 400 {A, B, C}: B 200 high, A 200 low.
    Side 1 300 {B, C}: no low among them, B scoops (pokerkit halves it: B 150 + 75, C 75).
    Side 2 200 {C}. Nets: cardroom [+100, +300, -100, -300]; pokerkit [+100, +225, -25, -300].
    """
    contenders = [
        player(1, "A", 100, "Ah 2h Jc Td"),  # 7,4,3,2,A; a pair of kings
        player(2, "B", 200, "7s 7c Qh Qd"),  # sevens full of kings
        player(3, "C", 300, "Kd Jh Tc 9c"),  # trip kings
        player(4, "D", 300, "Qs Js 9s 8s", folded=True),
    ]
    board = cards("3c 4d 7h Kc Ks")
    settlement = settle(contenders, [board], button_seat=4, rake=0)
    assert net(settlement, contenders) == [100, 300, -100, -300]
    assert lines(settlement) == [
        (0, 0, "high", "B", 200),
        (0, 0, "low", "A", 200),
        (1, 0, "scoop", "B", 300),
        (2, 0, "scoop", "C", 200),
    ]
    pokerkit_net = replay_in_pokerkit(
        [100, 200, 1000, 1000],
        [c.hole_cards for c in contenders],
        board,
        [[300, "call", "call", "call"], [100, "fold"]],
    )
    assert pokerkit_net == [100, 225, -25, -300]


def test_d3_side_pots_with_the_same_contenders_are_split_separately() -> None:
    """D3: six all in at 100, 141, 261, 298, 400, 400; four side pots.

    The two shortest-but-one (141 and 261) lose everything, which leaves side pots 1-3
    (205, 480, 111) with the same contenders. Split separately: high 103 + 240 + 56 = 399,
    low 102 + 240 + 55 = 397. Merged (pokerkit), 796 would split 398/398.
    """
    board = cards("3c 4d 7h Kc Ks")
    contenders = [
        player(1, "P1", 100, "Ah 2h Jc Td"),  # best low 7,4,3,2,A
        player(2, "P2", 141, "Qs Js 9s 8s"),  # no low, a pair of kings
        player(3, "P3", 261, "Qc Jd 9d 8c"),  # no low, a pair of kings
        player(4, "P4", 298, "7s 7c Qh Qd"),  # best high: sevens full of kings
        player(5, "P5", 400, "As 5c 9h Th"),  # second low 7,5,4,3,A
        player(6, "P6", 400, "Kd Jh Tc 9c"),  # trip kings
    ]
    settlement = settle(contenders, [board], button_seat=6, rake=0)
    assert [pot.amount for pot in settlement.pots] == [600, 205, 480, 111, 204]
    by_pot: dict[int, dict[str, int]] = defaultdict(dict)
    for payout in settlement.payouts:
        by_pot[payout.pot_index][payout.half] = payout.amount
    assert [by_pot[index] for index in (1, 2, 3)] == [
        {"high": 103, "low": 102},
        {"high": 240, "low": 240},
        {"high": 56, "low": 55},
    ]
    assert settlement.totals() == {"P1": 300, "P4": 300 + 399, "P5": 397 + 102, "P6": 102}
    pokerkit_net = replay_in_pokerkit(
        [c.put_in for c in contenders],
        [c.hole_cards for c in contenders],
        board,
        [[261, 298, 400, "call", "call", "call"]],
    )
    # pokerkit gives P4 and P5 398 each from the merged side pots: one unit moves.
    assert pokerkit_net == [200, -141, -261, 400, 100, -298]
    assert net(settlement, contenders) == [200, -141, -261, 401, 99, -298]


def test_d2_pokerkit_gives_every_spare_unit_to_the_first_winner() -> None:
    """D2 through pokerkit: the 107 pot of the P5 test there goes 37/35/35."""
    holes = [cards("Qh Kh 4c 5c"), cards("2s 3c 6d 6h"), cards("Qd Kd 4d 5d"), cards("Qs Ks 4h 5h")]
    # Blinds 1 and 2; seat 3 raises to 35, the button calls, the small blind calls, the big
    # blind folds: 35 x 3 + 2 dead.
    pokerkit_net = replay_in_pokerkit(
        [35, 100, 35, 35], holes, NO_LOW_STRAIGHT_BOARD, [[35, "call", "call", "fold"]]
    )
    assert pokerkit_net == [37 - 35, -2, 35 - 35, 35 - 35]
    contenders = [
        player(1, "sb", 35, "Qh Kh 4c 5c"),
        player(2, "bb", 2, None, folded=True),
        player(3, "utg", 35, "Qd Kd 4d 5d"),
        player(4, "button", 35, "Qs Ks 4h 5h"),
    ]
    settlement = settle(contenders, [NO_LOW_STRAIGHT_BOARD], button_seat=4, rake=0)
    assert settlement.totals() == {"sb": 36, "utg": 36, "button": 35}


def test_run_it_twice_stars_courchevel_97007286518() -> None:
    """Stars #97007286518 (Courchevel, five hole cards), run twice after the flop.

    Both put in $81.75; rake $0.50 leaves 16300: 8150 per board. Board 1: Player0's full
    house high 4075, Hero's 7,5,4,3,A low 4075. Board 2: Player0's seven-high straight high
    4075; both wheel for low, 4075 = 2038 to Hero (big blind, first left of the button) + 2037.
    """
    contenders = [
        player(3, "Player0", 8175, "7d 6d Jh Ah 5s"),
        player(4, "Hero", 8175, "As 4s Ks Ad Qh"),
    ]
    boards = [cards("7h 5d 3s 7s Ts"), cards("7h 5d 3s 2s 4h")]
    settlement = settle(contenders, boards, button_seat=3, rake=50)
    assert lines(settlement) == [
        (0, 0, "high", "Player0", 4075),
        (0, 0, "low", "Hero", 4075),
        (0, 1, "high", "Player0", 4075),
        (0, 1, "low", "Hero", 2038),
        (0, 1, "low", "Player0", 2037),
    ]
    assert settlement.totals() == {"Player0": 10187, "Hero": 6113}  # $101.87 and $61.13


def test_run_it_twice_remainder_goes_to_the_first_board() -> None:
    """P8: pot 101 over two boards: 51 to the first, 50 to the second, then hi/lo on each."""
    contenders = [
        player(1, "a", 50, "Ah 2h Jc Td"),  # low on both boards
        player(2, "b", 51, "Kd Jh Tc 9c"),  # trip kings on both boards
    ]
    boards = [cards("3c 4d 7h Kc Ks"), cards("3c 4d 7h Ks Kc")]
    settlement = settle(contenders, boards, button_seat=2, rake=0)
    # b's last unit is uncalled in real play; here it makes the pot odd on purpose.
    assert [pot.amount for pot in settlement.pots] == [100, 1]
    main = [line for line in lines(settlement) if line[0] == 0]
    assert main == [
        (0, 0, "high", "b", 25),
        (0, 0, "low", "a", 25),
        (0, 1, "high", "b", 25),
        (0, 1, "low", "a", 25),
    ]
    odd = [player(1, "a", 50, "Ah 2h Jc Td"), player(2, "b", 50, "Kd Jh Tc 9c"),
           player(3, "c", 1, None, folded=True)]  # fmt: skip
    assert lines(settle(odd, boards, button_seat=2, rake=0)) == [
        (0, 0, "high", "b", 26),  # board 0 gets 51: high 26, low 25
        (0, 0, "low", "a", 25),
        (0, 1, "high", "b", 25),
        (0, 1, "low", "a", 25),
    ]


def test_uncontested_pot_needs_no_cards_and_unknown_contested_hand_raises() -> None:
    everyone_folded = [player(1, "winner", 4, None), player(2, "folder", 2, None, folded=True)]
    assert lines(settle(everyone_folded, [], button_seat=1, saw_flop=False)) == [
        (0, 0, "scoop", "winner", 6)
    ]
    contested = [player(1, "known", 10, "Ah 2h Jc Td"), player(2, "unknown", 10, None)]
    with pytest.raises(UnevaluableHand, match="unknown") as raised:
        settle(contested, [cards("3c 4d 7h Kc Ks")], button_seat=1, rake=0)
    assert raised.value.player == "unknown"
    assert isinstance(raised.value, ValueError)


def test_rake_comes_from_the_main_pot_before_the_split() -> None:
    """K4: the side pot is split whole; the main pot is halved after the rake."""
    board = cards("3c 4d 7h Kc Ks")
    contenders = [
        player(1, "A", 100, "Ah 2h Jc Td"),
        player(2, "B", 200, "7s 7c Qh Qd"),
        player(3, "C", 200, "Kd Jh Tc 9c"),
    ]
    settlement = settle(contenders, [board], button_seat=3, rake=15)
    assert [pot.amount for pot in settlement.pots] == [285, 200]
    assert lines(settlement) == [
        (0, 0, "high", "B", 143),
        (0, 0, "low", "A", 142),
        (1, 0, "scoop", "B", 200),
    ]


def test_settle_rejects_inconsistent_input() -> None:
    board = cards("3c 4d 7h Kc Ks")
    duplicate_card = [player(1, "a", 10, "Ah 2h Jc Td"), player(2, "b", 10, "Ah 7c Qh Qd")]
    with pytest.raises(ValueError, match="dealt twice"):
        settle(duplicate_card, [board], button_seat=1, rake=0)
    fine = [player(1, "a", 10, "Ah 2h Jc Td"), player(2, "b", 10, "7s 7c Qh Qd")]
    with pytest.raises(ValueError, match="not complete"):
        settle(fine, [board[:3]], button_seat=1, rake=0)
    with pytest.raises(ValueError, match="rake"):
        settle(fine, [board], button_seat=1, rake=21)


# -- rake --------------------------------------------------------------------------------------

STARS_2009 = PROFILES["pokerstars-2009-micro"].rake
STARS_NOW = PROFILES["pokerstars"].rake


def test_rake_increment_rule_of_stars_before_2012() -> None:
    """5 cents per full dollar (rakeback.com): $0.99 free, $1.01-$1.99 5c, $2.01 10c."""
    assert compute_rake(485, 5, True, STARS_2009) == 20  # corpus #35875159084
    assert [compute_rake(pot, 6, True, STARS_2009) for pot in (99, 101, 199, 201)] == [0, 5, 5, 10]
    assert compute_rake(10_000, 2, True, STARS_2009) == 50  # heads-up cap $0.50
    assert compute_rake(10_000, 6, True, STARS_2009) == 200  # $2 cap
    assert compute_rake(3500, 10, True, PROFILES["pokerstars-2005-limit"].rake) == 100  # $1 per $20


def test_rake_true_percentage_rounds_half_to_even() -> None:
    assert compute_rake(97, 5, True, STARS_NOW) == 3  # 3.395: corpus #258753941248
    assert compute_rake(10_000, 6, True, STARS_NOW) == 30  # $0.30 cap
    five_percent = RakeRule(500, ())
    # 1.5 -> 2, 2.5 -> 2, 3.5 -> 4, 0.5 -> 0: halves go to the even cent.
    assert [compute_rake(pot, 6, True, five_percent) for pot in (30, 50, 70, 10)] == [2, 2, 4, 0]
    assert compute_rake(39, 6, True, RakeRule(500, (), rounding="floor")) == 1


def test_rake_caps_no_flop_no_drop_and_no_rule() -> None:
    rule = RakeRule(500, ((2, 50), (3, 100), (5, 200)))
    assert [compute_rake(100_000, players, True, rule) for players in (2, 3, 4, 5, 9)] == [
        50, 100, 100, 200, 200,
    ]  # fmt: skip
    assert compute_rake(100_000, 6, False, rule) == 0  # K1
    assert compute_rake(100_000, 6, False, RakeRule(500, (), no_flop_no_drop=False)) == 5000
    assert compute_rake(100_000, 6, True, None) == 0
    with pytest.raises(ValueError):
        RakeRule(500, (), rounding="ceiling")


def test_settle_computes_the_rake_from_the_profile() -> None:
    """rake=None: Stars 2009, pot $4.85 with five dealt in: $0.20 from the main pot."""
    board = cards("3c 4d 7h Kc Ks")
    contenders = [
        player(1, "A", 242, "Ah 2h Jc Td"),
        player(2, "B", 242, "7s 7c Qh Qd"),
        player(3, "C", 1, None, folded=True),
    ]
    profile = PROFILES["pokerstars-2009-micro"]
    settlement = settle(contenders, [board], button_seat=2, players_dealt=5, profile=profile)
    assert settlement.rake == 20
    assert settlement.pots[0].amount == 465
    no_flop = settle(contenders, [board], button_seat=2, saw_flop=False, profile=profile)
    assert no_flop.rake == 0


# -- properties on random deals ----------------------------------------------------------------

PROPERTY_SETTINGS = settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


@st.composite
def deals(
    draw: st.DrawFn, *, board_count: int = 1, step: int = 1, hide_folded: bool = True
) -> tuple[list[Contender], list[tuple[int, ...]], int]:
    """Random valid deals: 2-6 players on a 9-seat table, distinct cards, random levels.

    Amounts are multiples of ``step``; two boards share the flop (run twice after it).
    """
    count = draw(st.integers(2, 6))
    seats = draw(st.lists(st.integers(1, 9), min_size=count, max_size=count, unique=True))
    button = draw(st.integers(1, 9))
    deck = draw(st.permutations(range(52)))
    first_board = tuple(deck[:5])
    boards = [first_board, (*first_board[:3], *deck[5:7])][:board_count]
    holes = [tuple(deck[7 + 4 * index : 11 + 4 * index]) for index in range(count)]
    put_in = draw(st.lists(st.integers(0, 60), min_size=count, max_size=count))
    folded = draw(st.lists(st.booleans(), min_size=count, max_size=count))
    if all(folded):
        folded[draw(st.integers(0, count - 1))] = False
    contenders = [
        Contender(
            seat=seat,
            player=f"p{seat}",
            put_in=amount * step,
            folded=is_folded,
            hole_cards=None if is_folded and hide_folded else hole,
        )
        for seat, hole, amount, is_folded in zip(seats, holes, put_in, folded, strict=True)
    ]
    return contenders, boards, button


def groups(settlement: Settlement) -> dict[tuple[int, int, str], dict[str, int]]:
    """Amounts by (pot, board, half) and player."""
    grouped: dict[tuple[int, int, str], dict[str, int]] = defaultdict(dict)
    for payout in settlement.payouts:
        grouped[(payout.pot_index, payout.board_index, payout.half)][payout.player] = payout.amount
    return grouped


@PROPERTY_SETTINGS
@given(deal=deals(board_count=2), two_boards=st.booleans(), rake=st.integers(0, 100))
def test_chips_are_conserved(
    deal: tuple[list[Contender], list[tuple[int, ...]], int], two_boards: bool, rake: int
) -> None:
    contenders, boards, button = deal
    total = sum(c.put_in for c in contenders)
    rake = min(rake, total)
    settlement = settle(contenders, boards if two_boards else boards[:1], button, rake=rake)
    assert sum(p.amount for p in settlement.payouts) + settlement.rake == total
    assert sum(pot.amount for pot in settlement.pots) + settlement.rake == total
    assert all(p.amount > 0 for p in settlement.payouts)


@PROPERTY_SETTINGS
@given(deal=deals(board_count=2), two_boards=st.booleans())
def test_only_eligible_players_are_paid_and_odd_units_are_single(
    deal: tuple[list[Contender], list[tuple[int, ...]], int], two_boards: bool
) -> None:
    contenders, boards, button = deal
    settlement = settle(contenders, boards if two_boards else boards[:1], button, rake=0)
    folded = {c.player for c in contenders if c.folded}
    eligible = {pot.index: set(pot.eligible) for pot in settlement.pots}
    for payout in settlement.payouts:
        assert payout.player not in folded
        assert payout.player in eligible[payout.pot_index]
        assert payout.half in HALVES
    name_of_seat = {c.seat: c.player for c in contenders}
    clockwise = {
        name_of_seat[seat]: position
        for position, seat in enumerate(clockwise_order(name_of_seat, button))
    }
    for amounts in groups(settlement).values():
        # P5: shares differ by at most one unit, and the larger ones come first clockwise.
        assert max(amounts.values()) - min(amounts.values()) <= 1
        ordered = [amounts[name] for name in sorted(amounts, key=clockwise.__getitem__)]
        assert ordered == sorted(ordered, reverse=True)
    # Deterministic order: pot, board, half (high, low, scoop), then clockwise.
    keys = [
        (p.pot_index, p.board_index, HALVES.index(p.half), clockwise[p.player])
        for p in settlement.payouts
    ]
    assert keys == sorted(keys)


def rotated(contenders: Sequence[Contender], shift: int, table: int = 9) -> list[Contender]:
    return [
        Contender((c.seat - 1 + shift) % table + 1, c.player, c.put_in, c.folded, c.hole_cards)
        for c in contenders
    ]


@PROPERTY_SETTINGS
@given(deal=deals(), shift=st.integers(1, 8))
def test_rotating_seats_and_button_together_changes_nothing(
    deal: tuple[list[Contender], list[tuple[int, ...]], int], shift: int
) -> None:
    contenders, boards, button = deal
    before = settle(contenders, boards, button, rake=0)
    after = settle(rotated(contenders, shift), boards, (button - 1 + shift) % 9 + 1, rake=0)
    assert after.payouts == before.payouts
    assert [(p.amount, set(p.eligible)) for p in after.pots] == [
        (p.amount, set(p.eligible)) for p in before.pots
    ]


@PROPERTY_SETTINGS
@given(deal=deals(), data=st.data())
def test_renumbering_seats_moves_at_most_the_odd_units(
    deal: tuple[list[Contender], list[tuple[int, ...]], int], data: st.DataObject
) -> None:
    contenders, boards, button = deal
    seats = data.draw(st.permutations([c.seat for c in contenders]))
    new_button = data.draw(st.integers(1, 9))
    renumbered = [
        Contender(seat, c.player, c.put_in, c.folded, c.hole_cards)
        for seat, c in zip(seats, contenders, strict=True)
    ]
    before = groups(settle(contenders, boards, button, rake=0))
    after = groups(settle(renumbered, boards, new_button, rake=0))
    assert before.keys() == after.keys()
    moved: Counter[str] = Counter()
    for key, amounts in before.items():
        # The same halves and the same shares; only who holds the spare units may change.
        assert sum(amounts.values()) == sum(after[key].values())
        assert sorted(amounts.values()) == sorted(after[key].values())
        for name in amounts.keys() | after[key].keys():
            difference = abs(amounts.get(name, 0) - after[key].get(name, 0))
            assert difference <= 1
            moved[name] += difference > 0
    totals_before = Counter[str]()
    totals_after = Counter[str]()
    for key in before:
        totals_before.update(before[key])
        totals_after.update(after[key])
    for name in totals_before.keys() | totals_after.keys():
        assert abs(totals_before[name] - totals_after[name]) <= moved[name]


# With every amount a multiple of 240 = 2 boards x 2 halves x 60 (60 = lcm(1..6)), every split
# is exact: pots of 240k, boards of 120k, halves of 60k, divisible among up to 6 winners.
EXACT_STEP = 240


@PROPERTY_SETTINGS
@given(deal=deals(step=EXACT_STEP), data=st.data())
def test_renumbering_seats_changes_nothing_without_odd_units(
    deal: tuple[list[Contender], list[tuple[int, ...]], int], data: st.DataObject
) -> None:
    contenders, boards, button = deal
    seats = data.draw(st.permutations([c.seat for c in contenders]))
    renumbered = [
        Contender(seat, c.player, c.put_in, c.folded, c.hole_cards)
        for seat, c in zip(seats, contenders, strict=True)
    ]
    before = settle(contenders, boards, button, rake=0).totals()
    assert settle(renumbered, boards, data.draw(st.integers(1, 9)), rake=0).totals() == before


@PROPERTY_SETTINGS
@given(deal=deals(), exact=st.booleans())
def test_two_identical_boards_pay_like_one(
    deal: tuple[list[Contender], list[tuple[int, ...]], int], exact: bool
) -> None:
    contenders, boards, button = deal
    if exact:
        contenders = [
            Contender(c.seat, c.player, c.put_in * EXACT_STEP, c.folded, c.hole_cards)
            for c in contenders
        ]
    one = settle(contenders, boards, button, rake=0)
    two = settle(contenders, [boards[0], boards[0]], button, rake=0)
    one_totals, two_totals = one.totals(), two.totals()
    if exact:
        assert two_totals == one_totals
    else:
        # Halving each board's share can move a unit between the halves, and each board's
        # tie can hand a spare unit to someone else: at most two units per pot and half a
        # player is paid from.
        halves_paid: Counter[str] = Counter(
            name
            for name, _, _ in {
                (p.player, p.pot_index, p.half) for p in (*one.payouts, *two.payouts)
            }
        )
        for name in one_totals.keys() | two_totals.keys():
            assert abs(one_totals.get(name, 0) - two_totals.get(name, 0)) <= 2 * halves_paid[name]


@PROPERTY_SETTINGS
@given(deal=deals(step=5), rake=st.integers(0, 20))
def test_nickel_table_pays_in_nickels(
    deal: tuple[list[Contender], list[tuple[int, ...]], int], rake: int
) -> None:
    """P9: with every amount a multiple of the unit, so is every payment."""
    contenders, boards, button = deal
    rake = min(rake * 5, sum(c.put_in for c in contenders))
    nickels = SiteProfile(site="fulltilt", odd_chip_unit=5)
    settlement = settle(contenders, boards, button, rake=rake, profile=nickels)
    assert all(p.amount % 5 == 0 for p in settlement.payouts)
    for amounts in groups(settlement).values():
        assert max(amounts.values()) - min(amounts.values()) <= 5


# -- pokerkit replay (test-only oracle for D1-D3) ----------------------------------------------


def replay_in_pokerkit(
    stacks: Sequence[int],
    holes: Sequence[tuple[int, ...] | None],  # every player's, folded players' included
    board: tuple[int, ...],
    script: Sequence[Sequence[int | str]],
) -> list[int]:
    """Play a no-limit Omaha Hi/Lo hand in pokerkit and return each player's net result.

    pokerkit seats the small blind first and the button last, posts blinds of 1 and 2, and
    settles pots its own way (payout-rules.md §5): that is the point of the comparison.
    ``script`` holds the actions of each street from the first: an int raises to that amount.
    """
    pytest.importorskip("pokerkit")
    from pokerkit import (
        Automation,
        NoLimitPokerMixin,
        OmahaEightOrBetterLowHand,
        OmahaHoldemHand,
        OmahaHoldemMixin,
        UnfixedLimitHoldem,
    )

    class NoLimitOmahaEight(NoLimitPokerMixin, OmahaHoldemMixin, UnfixedLimitHoldem):
        hand_types = (OmahaHoldemHand, OmahaEightOrBetterLowHand)

    automations = (
        Automation.ANTE_POSTING,
        Automation.BET_COLLECTION,
        Automation.BLIND_OR_STRADDLE_POSTING,
        Automation.CARD_BURNING,
        Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
        Automation.HAND_KILLING,
        Automation.CHIPS_PUSHING,
        Automation.CHIPS_PULLING,
    )
    state = NoLimitOmahaEight(automations, False, 0, (1, 2), 2)(list(stacks), len(stacks))

    def text(codes: Sequence[int]) -> str:
        return "".join(RANKS[code // 4] + SUITS[code % 4] for code in codes)

    with warnings.catch_warnings():
        # pokerkit burns cards at random and warns when a burnt card is dealt later on; the
        # burn cards play no part in the hand, so the chosen cards are dealt regardless.
        warnings.filterwarnings("ignore", message="A card being dealt", category=UserWarning)
        for hole in holes:
            assert hole is not None
            state.deal_hole(text(hole))
        streets = [board[:3], board[3:4], board[4:5]]
        for actions in script:
            for action in actions:
                if isinstance(action, int):
                    state.complete_bet_or_raise_to(action)
                elif action == "call":
                    state.check_or_call()
                else:
                    assert action == "fold", action
                    state.fold()
            if streets and state.can_deal_board():
                state.deal_board(text(streets.pop(0)))
        while streets and state.can_deal_board():  # everyone all in: run the board out
            state.deal_board(text(streets.pop(0)))
    return [final - start for final, start in zip(state.stacks, stacks, strict=True)]


# -- dead blinds --------------------------------------------------------------------------------


def test_a_dead_blind_is_no_part_of_its_posters_bet() -> None:
    """A missed small blind posted on return (10, dead) with a live big blind: its poster
    matched the caller's 1,695 live chips, so there is no side pot of his 10; the dead chips
    are in the main pot, which the caller wins whole (PokerNow hand 110, 0.10 of 40.00)."""
    contenders = [
        Contender(1, "returner", 1705, False, cards("Kd Qc 9s 5h"), dead=10),
        Contender(2, "caller", 1695, False, cards("As 2d 3c Kh")),
        Contender(3, "folder", 495, True, None),
    ]
    pots = build_pots(contenders)
    assert [(pot.amount, pot.eligible) for pot in pots] == [(3895, ("returner", "caller"))]
    # Read as a bet, the 10 was a side pot the returner took back.
    as_bet = [Contender(c.seat, c.player, c.put_in, c.folded, c.hole_cards) for c in contenders]
    assert [pot.amount for pot in build_pots(as_bet)] == [3885, 10]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 3_000), st.integers(0, 40), st.booleans()),
        min_size=2,
        max_size=7,
    )
)
def test_dead_blinds_conserve_chips_and_the_kernel_agrees(
    rows: list[tuple[int, int, bool]],
) -> None:
    """Pots with dead blinds hold every chip put in, and the audit's compiled pot builder
    gives the same pots as this reference."""
    import numpy as np

    from pipeline import payouts

    # A player still in with live chips: without one, the pots are nobody's to win.
    rows = [(max(rows[0][0], 1), rows[0][1], False), *rows[1:]]
    contenders = [
        Contender(seat, f"p{seat}", live + dead, folded, None, dead=dead)
        for seat, (live, dead, folded) in enumerate(rows, 1)
    ]
    total = sum(c.put_in for c in contenders)
    pots = build_pots(contenders)
    assert sum(pot.amount for pot in pots) == total
    table = payouts.build_pots(
        np.array([0, len(rows)], dtype=np.int64),
        np.array([c.put_in for c in contenders], dtype=np.int64),
        np.array([c.folded for c in contenders], dtype=np.bool_),
        dead=np.array([c.dead for c in contenders], dtype=np.int64),
    )
    assert int(table.amount.sum()) == total
    live = [pot for pot in pots if pot.amount > 0]
    kernel = [
        (
            int(amount),
            tuple(contenders[p].player for p in table.eligible[start:end]),
        )
        for amount, start, end in zip(
            table.amount, table.eligible_start[:-1], table.eligible_start[1:], strict=True
        )
        if amount > 0
    ]
    assert kernel == [(pot.amount, tuple(sorted(pot.eligible, key=lambda n: int(n[1:])))) for pot in live]
