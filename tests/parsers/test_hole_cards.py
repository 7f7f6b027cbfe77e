"""The hole-card rules (`parsers.engine.hole_cards`): one rule for every site and reader."""

from __future__ import annotations

import polars as pl
import pytest

from parsers.columns import CARD_CODES
from parsers.engine.checks import seat_problems
from parsers.engine.hole_cards import (
    DAMAGED,
    FULL,
    PARTIAL,
    SHOWN_DIFFERENT_CARDS,
    attach_hole_cards,
    is_partial_show,
    not_the_games_cards,
    sighting_kind,
)
from tests.parsers import test_ohh, test_pokerstars, test_winamax
from tests.parsers.corpus import cards, frames
from tests.parsers.test_pokerstars_compiled import assert_same_as_block_parser
from tests.parsers.test_real_forms import HOME_GAME, parsed


@pytest.mark.parametrize(
    ("count", "readable", "dealt", "kind"),
    [
        (4, True, True, FULL),
        (4, True, False, FULL),
        (1, True, False, PARTIAL),
        (3, True, False, PARTIAL),
        (3, True, True, DAMAGED),  # a deal is all of a hand
        (0, True, False, DAMAGED),
        (5, True, False, DAMAGED),
        (4, False, False, DAMAGED),
        (2, False, False, DAMAGED),
    ],
)
def test_a_sighting_is_full_partial_or_damaged(
    count: int, readable: bool, dealt: bool, kind: int
) -> None:
    assert sighting_kind(count, readable, dealt, 4) == kind


@pytest.mark.parametrize("hole_cards", [5, 6])
def test_the_games_count_decides(hole_cards: int) -> None:
    """Big O and Courchevel deal five, 6-card Omaha Hi/Lo six: a full sighting is that many,
    a partial show one to one fewer, anything else damaged."""
    assert sighting_kind(hole_cards, True, True, hole_cards) == FULL
    assert sighting_kind(hole_cards, True, False, hole_cards) == FULL
    for shown in range(1, hole_cards):
        assert sighting_kind(shown, True, False, hole_cards) == PARTIAL
        assert sighting_kind(shown, True, True, hole_cards) == DAMAGED
    assert sighting_kind(hole_cards + 1, True, False, hole_cards) == DAMAGED
    assert sighting_kind(0, True, False, hole_cards) == DAMAGED
    assert sighting_kind(hole_cards, False, False, hole_cards) == DAMAGED


def seats_of(
    sightings: list[tuple[str, str, bool]], game: str | None = None
) -> tuple[dict[str, object], list[str]]:
    """The hole cards each player of one hand keeps from ``sightings`` (player, cards as
    printed, dealt) in their order, and the hand's seat problems; ``game``: the hand's game
    (`parsers.games` code; None: no game given, Omaha Hi/Lo)."""
    players = sorted({player for player, _, _ in sightings})
    seats = pl.DataFrame(
        {
            "hand": [0] * len(players),
            "seat": list(range(1, len(players) + 1)),
            "player": players,
            "stack_start": [100] * len(players),
        },
        schema={"hand": pl.Int32, "seat": pl.Int16, "player": pl.String, "stack_start": pl.Int64},
    )
    rows = pl.DataFrame(
        {
            "hand": [0] * len(sightings),
            "line_no": list(range(len(sightings))),
            "player": [player for player, _, _ in sightings],
            "cards": [
                [CARD_CODES.get(token) for token in text.split()] for _, text, _ in sightings
            ],
            "dealt": [dealt for _, _, dealt in sightings],
        },
        schema={
            "hand": pl.Int32,
            "line_no": pl.UInt32,
            "player": pl.String,
            "cards": pl.List(pl.UInt8),
            "dealt": pl.Boolean,
        },
    )
    games = None
    if game is not None:
        games = pl.DataFrame(
            {"hand": [0], "game_code": [game]}, schema_overrides={"hand": pl.Int32}
        )
    attached = attach_hole_cards(seats, rows, games=games)
    hole_cards = dict(attached.select("player", "hole_cards").iter_rows())
    return hole_cards, seat_problems(attached)["reason"].to_list()


def test_cards_shown_in_another_order_keep_the_dealt_order() -> None:
    hole, problems = seats_of([("a", "As Ks Qs Js", True), ("a", "Js Qs Ks As", False)])
    assert (hole, problems) == ({"a": cards("As Ks Qs Js")}, [])


def test_a_partial_show_leaves_the_hole_cards_unknown() -> None:
    hole, problems = seats_of([("a", "As Ks Qs Js", True), ("b", "Qh", False)])
    assert (hole, problems) == ({"a": cards("As Ks Qs Js"), "b": None}, [])


def test_a_partial_show_of_known_cards_is_part_of_them() -> None:
    hole, problems = seats_of([("a", "As Ks Qs Js", True), ("a", "Qs", False)])
    assert (hole, problems) == ({"a": cards("As Ks Qs Js")}, [])
    _, problems = seats_of([("a", "As Ks Qs Js", True), ("a", "2c", False)])
    assert problems == [SHOWN_DIFFERENT_CARDS]


@pytest.mark.parametrize(
    ("sightings", "reason"),
    [
        ([("a", "As Ks", True)], not_the_games_cards(4)),  # a deal of two cards
        ([("a", "As Ks Qs Js 2c", False)], not_the_games_cards(4)),
        # A damaged sighting quarantines its hand wherever it comes, even beside good ones.
        ([("a", "As Ks Qs Js", True), ("a", "As Ks Qs Js Zz", False)], not_the_games_cards(4)),
        ([("a", "As Ks Qs Zz", True), ("a", "As Ks Qs Js", False)], not_the_games_cards(4)),
        ([("a", "As Ks Qs Js", True), ("a", "As Ks Qs Jh", False)], SHOWN_DIFFERENT_CARDS),
    ],
)
def test_damaged_or_different_sightings_quarantine_the_hand(
    sightings: list[tuple[str, str, bool]], reason: str
) -> None:
    assert seats_of(sightings)[1] == [reason]
    assert seats_of(sightings, "O8")[1] == [reason]


def test_each_hands_game_gives_its_count() -> None:
    five = [("a", "As Ks Qs Js 2c", True), ("b", "Qh Jh", False)]
    # Big O: five dealt are the hole cards; two shown are a partial show.
    assert seats_of(five, "O8-5card") == ({"a": cards("As Ks Qs Js 2c"), "b": None}, [])
    assert seats_of(five, "Courchevel-HL")[1] == []
    # The same sightings in Omaha Hi/Lo, or 6-card Omaha Hi/Lo: a deal of the wrong count.
    assert seats_of(five)[1] == [not_the_games_cards(4)]
    assert seats_of(five, "O8-6card")[1] == [not_the_games_cards(6)]
    six = [("a", "As Ks Qs Js 2c 3c", True), ("a", "2c 3c As Ks Qs Js", False)]
    assert seats_of(six, "O8-6card") == ({"a": cards("As Ks Qs Js 2c 3c")}, [])
    # Four cards shown in a five-card game are part of the hand, not all of it.
    hole, problems = seats_of([("a", "As Ks Qs Js", False)], "O8-5card")
    assert (hole, problems) == ({"a": None}, [])


def test_several_hands_of_several_games() -> None:
    """Each hand of a frame takes its own game's count (a mixed file)."""
    rows = pl.DataFrame(
        {
            "hand": [0, 1, 2],
            "line_no": [0, 1, 2],
            "player": ["a", "a", "a"],
            "cards": [cards("As Ks Qs Js"), cards("As Ks Qs Js 2c"), cards("As Ks Qs Js 2c")],
            "dealt": [True, True, True],
        },
        schema_overrides={"hand": pl.Int32, "cards": pl.List(pl.UInt8)},
    )
    seats = pl.DataFrame(
        {"hand": [0, 1, 2], "seat": [1, 1, 1], "player": ["a"] * 3, "stack_start": [100] * 3},
        schema_overrides={"hand": pl.Int32, "seat": pl.Int16},
    )
    games = pl.DataFrame(
        {"hand": [1, 0, 2], "game_code": ["O8-5card", "O8", "O8-6card"]},
        schema_overrides={"hand": pl.Int32},
    )
    attached = attach_hole_cards(seats, rows, games=games).sort("hand")
    assert attached["game_hole_cards"].to_list() == [4, 5, 6]
    assert attached["damaged_sightings"].to_list() == [0, 0, 1]
    problems = seat_problems(attached).sort("hand")
    assert problems.rows() == [(2, not_the_games_cards(6))]
    shown = pl.Series([cards("Qs Js Ts 9s")] * 2, dtype=pl.List(pl.UInt8))
    assert is_partial_show(shown, pl.Series([4, 5])).to_list() == [False, True]


# The same situation, a player showing one card at showdown (PokerStars' beta, Winamax's
# Player0, OHH's B), in each site's forms.
WINAMAX_PARTIAL_SHOW = test_winamax.SIDE_POT_HAND.replace(
    "Player0 shows [Th Ac Tc Td] (Flush Ace high)", "Player0 shows [Qs]"
).replace("showed [Th Ac Tc Td] and won 154.50€ with Flush Ace high", "showed [Qs] and won 154.50€")

OHH_PARTIAL_SHOW = test_ohh.SIDE_POTS.replace(
    '"cards": ["Kh", "Kd", "Qs", "Js"]', '"cards": ["Qs"]'
)


@pytest.mark.parametrize(
    ("text", "player"),
    [(HOME_GAME, "beta"), (WINAMAX_PARTIAL_SHOW, "Player0"), (OHH_PARTIAL_SHOW, "B")],
    ids=["pokerstars", "winamax", "ohh"],
)
def test_a_partial_show_reads_alike_at_every_site(text: str, player: str) -> None:
    result = parsed(text)
    assert (result.parsed, result.rejected) == (1, 0), frames(result)["rejects"]["reason"]
    tables = frames(result)
    shown = tables["showdowns"].filter(pl.col("player") == player)
    assert shown["cards"].to_list() == [cards("Qs")]
    assert tables["seats"].filter(pl.col("player") == player)["hole_cards"].to_list() == [None]


def alice_mucks(shown: str) -> str:
    """A PokerStars hand the compiled reader reads (no name holding ``": "``) whose summary
    shows Alice's cards (dealt ``As Ks Qs Js``) as ``shown``."""
    return (
        test_pokerstars.hand_text(1)
        .replace('Bob "the: Builder"', "Bob")
        .replace(
            "Seat 1: Alice (button) collected ($0.13)", f"Seat 1: Alice (button) mucked [{shown}]"
        )
    )


def test_the_compiled_reader_follows_the_same_rules() -> None:
    assert assert_same_as_block_parser(alice_mucks("As Ks Qs Js").encode()) == 1
    # Cards shown in another order: the compiled reader reads the hand, as the block parser.
    assert assert_same_as_block_parser(alice_mucks("Js Qs Ks As").encode()) == 1
    hole = frames(parsed(alice_mucks("Js Qs Ks As")))["seats"].filter(pl.col("player") == "Alice")
    assert hole["hole_cards"].to_list() == [cards("As Ks Qs Js")]
    # A partial show is left to the block parser, which keeps the hand; other cards do not.
    assert assert_same_as_block_parser(alice_mucks("Qs").encode()) == 0
    assert parsed(alice_mucks("Qs")).parsed == 1
    assert assert_same_as_block_parser(alice_mucks("Js Qs Ks Ah").encode()) == 0
    different = parsed(alice_mucks("Js Qs Ks Ah"))
    assert frames(different)["rejects"]["reason"].to_list() == [SHOWN_DIFFERENT_CARDS]
