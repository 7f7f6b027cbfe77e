"""The hole-card rules (`parsers.engine.hole_cards`): one rule for every site and reader."""

from __future__ import annotations

import polars as pl
import pytest

from parsers.columns import CARD_CODES
from parsers.engine.checks import seat_problems
from parsers.engine.hole_cards import (
    DAMAGED,
    FULL,
    NOT_FOUR_READABLE_CARDS,
    PARTIAL,
    SHOWN_DIFFERENT_CARDS,
    attach_hole_cards,
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
    assert sighting_kind(count, readable, dealt) == kind


def seats_of(sightings: list[tuple[str, str, bool]]) -> tuple[dict[str, object], list[str]]:
    """The hole cards each player of one hand keeps from ``sightings`` (player, cards as
    printed, dealt) in their order, and the hand's seat problems."""
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
    attached = attach_hole_cards(seats, rows)
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
        ([("a", "As Ks", True)], NOT_FOUR_READABLE_CARDS),  # a deal of two cards
        ([("a", "As Ks Qs Js 2c", False)], NOT_FOUR_READABLE_CARDS),
        # A damaged sighting quarantines its hand wherever it comes, even beside good ones.
        ([("a", "As Ks Qs Js", True), ("a", "As Ks Qs Js Zz", False)], NOT_FOUR_READABLE_CARDS),
        ([("a", "As Ks Qs Zz", True), ("a", "As Ks Qs Js", False)], NOT_FOUR_READABLE_CARDS),
        ([("a", "As Ks Qs Js", True), ("a", "As Ks Qs Jh", False)], SHOWN_DIFFERENT_CARDS),
    ],
)
def test_damaged_or_different_sightings_quarantine_the_hand(
    sightings: list[tuple[str, str, bool]], reason: str
) -> None:
    assert seats_of(sightings)[1] == [reason]


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
