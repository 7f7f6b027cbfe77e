"""The text engine's own pieces: line forms, action order, and what `finish` says of every site
alike."""

from __future__ import annotations

import re

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parsers import parse_bytes
from parsers.columns import holds_a_null
from parsers.engine.betting import highest_total_before, ordered_actions
from parsers.engine.block_parts import _mark_all_ins
from parsers.engine.checks import first_problem
from parsers.engine.hole_cards import card_set_columns
from parsers.engine.kernels import running_sums
from parsers.engine.line_forms import LineForm, classify
from parsers.engine.lines import fill_from_rows, line_frame
from tests.parsers import test_absolute, test_partypoker, test_winamax
from tests.parsers.corpus import cards

KIND_HEADER, KIND_BLANK, KIND_SEAT, KIND_MARKER, KIND_TOTAL, KIND_INFO, KIND_UNKNOWN = range(7)
FORMS = (
    LineForm(KIND_HEADER, where="start"),
    LineForm(KIND_BLANK, equals=""),
    LineForm(KIND_SEAT, pattern=r"^Seat \d+: ", where="setup"),
    LineForm(KIND_MARKER, where="marker"),
    LineForm(KIND_TOTAL, starts="Total pot ", where="summary"),
)
# Tried only on the lines no form takes.
INFORMATIONAL = (KIND_INFO, r" sits out$|^Total pot ")


def test_the_first_form_a_line_has_in_its_place_classifies_it() -> None:
    text = [
        "Hand #1",  # header
        "Seat 1: Ann (10)",  # a seat before the cards
        "*** CARDS ***",
        "Seat 2: Bob (10)",  # the same text after the cards: no form takes it there
        "Total pot 5",  # a summary line outside the summary: known text, nothing more
        "*** SUMMARY ***",
        "Total pot 5",
        "",
        "Bob sits out",
        "Hand #2",
        "Seat 1: Ann (10)",
    ]
    lines = pl.Series("line", text)
    frame = line_frame(lines, np.arange(len(text)), lines.str.starts_with("Hand #"))
    section = np.array([-1, -1, 0, 0, 0, 5, 5, 5, 5, -1, -1])
    marker = lines.str.starts_with("*** ").to_numpy()
    classified = classify(frame, section, FORMS, KIND_UNKNOWN, {"marker": marker}, INFORMATIONAL)
    kinds = classified["kind"].to_list()
    assert kinds == [
        KIND_HEADER,
        KIND_SEAT,
        KIND_MARKER,
        KIND_UNKNOWN,
        KIND_INFO,
        KIND_MARKER,
        KIND_TOTAL,
        KIND_BLANK,
        KIND_INFO,
        KIND_HEADER,
        KIND_SEAT,
    ]


def _without_setup_seats(hand: str) -> str:
    """The hand with its seat lines before the first street marker taken out."""
    kept, dealt = [], False
    for line in hand.splitlines():
        dealt = dealt or line.startswith(("*** ", "** "))
        if not dealt and re.match(r"^Seat \d+(?: -|:) ", line):
            continue
        kept.append(line)
    return "\n".join(kept) + "\n"


HANDS = {
    "absolute": test_absolute.HAND.format(n=1),
    "winamax": test_winamax.SIDE_POT_HAND,
    "partypoker": test_partypoker.hand_text(1),
}


@pytest.mark.parametrize("site", sorted(HANDS))
def test_a_hand_without_seat_lines_is_rejected_as_such_on_every_engine(site: str) -> None:
    whole = parse_bytes(HANDS[site].encode(), "whole.txt")
    assert whole is not None and (whole.parsed, whole.rejected) == (1, 0)
    result = parse_bytes(_without_setup_seats(HANDS[site]).encode(), "seatless.txt")
    assert result is not None
    assert (result.hands_found, result.parsed, result.rejected) == (1, 0, 1)
    assert result.tables["rejects"].column("reason").to_pylist() == ["no seat lines"]


def test_cards_shown_in_another_order_than_dealt_are_the_same_hole_cards() -> None:
    # The PartyPoker family compared sightings in printed order and quarantined this hand.
    dealt = test_partypoker.hand_text(1)
    shown = dealt.replace("Alice does not show cards.", "Alice shows [ Js, Qs, Ks, As ]a straight.")
    result = test_partypoker.parse_text(shown)
    assert (result.parsed, result.rejected) == (1, 0)
    seats = pl.from_arrow(result.tables["seats"])
    assert isinstance(seats, pl.DataFrame)
    alice = seats.filter(pl.col("player") == "Alice")
    assert sorted(alice["hole_cards"][0]) == sorted(cards("As Ks Qs Js"))
    assert alice["is_hero"].to_list() == [True]


def test_actions_are_ordered_numbered_per_hand_and_clipped_to_the_betting_streets() -> None:
    # A dead and a live post printed on one line (sub 0 and 1), rows arriving out of order,
    # a post before the deal (section -1) and a show after the river (section 4).
    actions = pl.DataFrame(
        {
            "hand": [1, 0, 0, 0, 1],
            "line_no": [12, 9, 3, 3, 11],
            "sub": [0, 0, 1, 0, 0],
            "section": [4, 2, -1, -1, 0],
            "kind": ["show", "bet", "post_bb", "post_dead", "call"],
        }
    )
    ordered = ordered_actions(actions, "section")
    assert ordered["kind"].to_list() == ["post_dead", "post_bb", "bet", "call", "show"]
    assert ordered["seq"].to_list() == [0, 1, 2, 0, 1]
    assert ordered["street"].to_list() == [0, 0, 2, 0, 3]
    assert (ordered["street"].dtype, ordered["seq"].dtype) == (pl.Int8, pl.Int32)


def test_a_site_with_one_action_a_line_needs_no_sub_and_inferred_rows_come_last() -> None:
    # OnGame infers a muck at the showdown for a player without a summary line: no line_no.
    actions = pl.DataFrame(
        {
            "hand": [0, 0, 0, 1],
            "line_no": [None, 7, 4, 2],
            "street": [3, 3, 1, 0],
            "kind": ["muck", "show", "bet", "fold"],
        }
    )
    ordered = ordered_actions(actions, "street")
    assert ordered["kind"].to_list() == ["bet", "show", "muck", "fold"]
    assert ordered["seq"].to_list() == [0, 1, 2, 0]


def test_first_problem_gives_the_first_reason_that_holds() -> None:
    frame = pl.DataFrame({"a": [True, False, True, False], "b": [True, True, False, None]})
    reasons = frame.select(
        reason=first_problem((pl.col("a"), "first"), (pl.col("b"), "second"))
    )["reason"].to_list()
    # The first check wins where both hold; a null condition does not hold.
    assert reasons == ["first", "second", "first", None]


ALL_IN_ROWS = st.lists(
    st.tuples(
        st.integers(0, 3),  # hand
        st.none() | st.integers(0, 3),  # street, in any order within the hand
        st.none() | st.integers(-3, 60),  # to_amount
    ),
    max_size=30,
)


@settings(deadline=None, max_examples=300)
@given(rows=ALL_IN_ROWS, out_of_range=st.booleans())
def test_highest_total_before_is_the_windows(rows: list[tuple], out_of_range: bool) -> None:
    """The compiled highest street total before each row is the window's; a frame it cannot
    read (hands out of order, a street past the river) is read by the window itself."""
    frame = pl.DataFrame(
        rows, schema={"hand": pl.Int32, "street": pl.Int8, "to_amount": pl.Int64}, orient="row"
    )
    frame = frame if out_of_range else frame.sort("hand", maintain_order=True)
    if out_of_range and frame.height:
        frame = frame.with_columns(street=pl.col("street").fill_null(0) + 2)
    window = frame.select(
        pl.col("to_amount").fill_null(0).cum_max().shift(1, fill_value=0).over("hand", "street")
    )
    assert highest_total_before(frame).to_list() == window.to_series().to_list()


@settings(deadline=None, max_examples=300)
@given(
    rows=st.lists(st.tuples(st.integers(-1, 4), st.integers(-50, 50)), max_size=40),
    seed=st.integers(0, 2**32 - 1),
)
def test_running_sums_add_each_group_in_the_given_order(rows: list[tuple], seed: int) -> None:
    """Each row's sum is its group's values up to it, in ``order``; a group outside 0..3 has
    no sum, and an ``order`` entry that is no row is passed over."""
    group = np.array([g for g, _ in rows], dtype=np.int64)
    value = np.array([v for _, v in rows], dtype=np.int64)
    order = np.random.default_rng(seed).permutation(len(rows)).astype(np.int64)
    order_with_strays = np.concatenate([order, np.array([-1, len(rows), 10**9], dtype=np.int64)])
    expected = [0] * len(rows)
    totals: dict[int, int] = {}
    for row in order:
        if 0 <= group[row] < 4:
            totals[group[row]] = totals.get(group[row], 0) + value[row]
            expected[row] = totals[group[row]]
    assert running_sums(group, value, order_with_strays, 4).tolist() == expected


@settings(deadline=None, max_examples=300)
@given(
    lines=st.lists(st.tuples(st.booleans(), st.none() | st.integers(-5, 5)), max_size=40),
    reset_value=st.integers(-2, 2),
)
def test_fill_from_rows_carries_the_latest_marker_or_reset_forward(
    lines: list[tuple], reset_value: int
) -> None:
    """Each line holds the value of the nearest marker or reset line at or before it (a line
    that is both: its marker's), by a plain walk over the lines."""
    resets = np.array([reset for reset, _ in lines], dtype=bool)
    rows = np.array(
        [row for row, (_, value) in enumerate(lines) if value is not None], dtype=np.int64
    )
    values = np.array([value for _, value in lines if value is not None], dtype=np.int64)
    expected, current = [], reset_value
    for reset, value in lines:
        current = value if value is not None else reset_value if reset else current
        expected.append(current)
    assert fill_from_rows(len(lines), resets, reset_value, rows, values).tolist() == expected


def test_fill_from_rows_refuses_a_row_outside_the_lines() -> None:
    resets = np.zeros(3, dtype=bool)
    with pytest.raises(IndexError):
        fill_from_rows(3, resets, 0, np.array([3]), np.array([1]))
    with pytest.raises(ValueError):
        fill_from_rows(3, resets, 0, np.array([1, 2]), np.array([1]))


MONEY_IN = ["post_sb", "post_bb", "post_dead", "ante", "call", "bet", "raise"]


def _all_ins_by_windows(actions: pl.DataFrame, seats: pl.DataFrame) -> pl.DataFrame:
    """The rule of `_mark_all_ins` as polars windows: the player's running chips in, by
    ``seq``, reaching the stack."""
    money_in = pl.col("kind").is_in(MONEY_IN)
    signed = (
        pl.when(money_in)
        .then(pl.col("amount").fill_null(0))
        .when(pl.col("kind") == "uncalled_return")
        .then(-pl.col("amount").fill_null(0))
        .otherwise(0)
    )
    stacks = seats.unique(["hand", "player"], keep="first")
    return (
        actions.with_row_index("row")
        .with_columns(put_in=signed.cum_sum().over("hand", "player", order_by="seq"))
        .join(stacks, on=["hand", "player"], how="left")
        .with_columns(
            is_all_in=pl.col("is_all_in")
            | (money_in & (pl.col("stack_start") > 0) & (pl.col("put_in") == pl.col("stack_start")))
        )
        .sort("row")
        .drop("row", "put_in", "stack_start")
    )


@settings(deadline=None, max_examples=200)
@given(
    rows=st.lists(
        st.tuples(
            st.integers(0, 2),  # hand
            st.sampled_from(["a", "b", "c", None]),  # player ("c" has no seat)
            st.sampled_from([*MONEY_IN, "uncalled_return", "fold", "show"]),
            st.none() | st.integers(0, 30),  # amount
            st.booleans(),  # printed all-in
        ),
        max_size=30,
    ),
    stacks=st.tuples(st.integers(0, 40), st.integers(0, 40)),
    seed=st.integers(0, 2**32 - 1),
)
def test_all_ins_are_the_windows_running_chips_in(
    rows: list[tuple], stacks: tuple[int, int], seed: int
) -> None:
    """The compiled running sum marks the all-ins the windows mark, in any row order."""
    rng = np.random.default_rng(seed)
    actions = pl.DataFrame(
        rows,
        schema={
            "hand": pl.Int32, "player": pl.String, "kind": pl.String, "amount": pl.Int64,
            "is_all_in": pl.Boolean,
        },
        orient="row",
    ).with_columns(seq=pl.Series(rng.permutation(len(rows)), dtype=pl.Int32))
    seats = pl.DataFrame(
        {
            "hand": [hand for hand in range(3) for _ in range(2)],
            "player": ["a", "b"] * 3,
            "stack_start": [stacks[0], stacks[1]] * 3,
        },
        schema={"hand": pl.Int32, "player": pl.String, "stack_start": pl.Int64},
    )
    marked = _mark_all_ins(actions, seats)
    assert marked.columns == actions.columns
    assert marked.equals(_all_ins_by_windows(actions, seats))


@settings(deadline=None, max_examples=100)
@given(starts=st.lists(st.none() | st.booleans(), max_size=30))
def test_the_line_frames_hand_is_flagged_sorted_only_because_it_is(starts: list) -> None:
    """Polars trusts the sorted flag of ``hand`` (groups by slices): it must be true."""
    lines = pl.Series([f"line {i}" for i in range(len(starts))], dtype=pl.String)
    frame = line_frame(lines, np.arange(len(starts)), pl.Series(starts, dtype=pl.Boolean))
    hands = frame["hand"].to_numpy()
    assert frame["hand"].flags["SORTED_ASC"]
    assert (np.diff(hands) >= 0).all()
    assert hands.tolist() == (np.cumsum([bool(s) for s in starts], dtype=int) - 1).tolist()


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.none() | st.lists(st.none() | st.integers(0, 300), max_size=9),
        min_size=1,
        max_size=12,
    )
)
def test_card_set_keys_are_equal_exactly_for_the_same_cards(
    lists: list[list[int | None] | None],
) -> None:
    # Two sightings are one version of a player's cards when they hold the same codes in any
    # order, nulls left out: as the sorted codes joined into a text say.
    cards = pl.Series("cards", lists, dtype=pl.List(pl.Int64))
    texts = cards.list.sort().cast(pl.List(pl.String)).list.join(",").to_list()
    keys, long_keys = card_set_columns(cards)
    pairs = list(zip(keys.to_list(), long_keys.to_list(), strict=True))
    for first in range(len(lists)):
        if lists[first] is None:
            assert pairs[first] == (None, None)
            continue
        assert (pairs[first][0] is None) != (pairs[first][1] is None)
        for second in range(len(lists)):
            if lists[second] is not None:
                same = texts[first] == texts[second]
                assert (pairs[first] == pairs[second]) == same, (lists[first], lists[second])


@given(st.lists(st.none() | st.lists(st.none() | st.integers(0, 51), max_size=6), max_size=30))
def test_a_list_holds_a_null_where_dropping_nulls_shortens_it(
    lists: list[list[int | None] | None],
) -> None:
    frame = pl.DataFrame({"cards": pl.Series(lists, dtype=pl.List(pl.UInt8))})
    cards = pl.col("cards")
    expected = frame.select(cards.list.drop_nulls().list.len() < cards.list.len()).to_series()
    assert frame.select(holds_a_null(cards)).to_series().to_list() == expected.to_list()
