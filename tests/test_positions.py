"""Positions: the compiled path of `assign_positions` against its polars expressions."""

from __future__ import annotations

import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline import positions
from pipeline.positions import assign_positions


def _frames(
    hands: list[tuple[list[tuple[int | None, bool | None]], int | None, bool]],
) -> tuple[pl.DataFrame, pl.DataFrame]:
    seats = [
        (hand, seat, f"p{index}", out)
        for hand, (rows, _, _) in enumerate(hands)
        for index, (seat, out) in enumerate(rows)
    ]
    frame = pl.DataFrame(
        seats,
        schema={"hand": pl.Int32, "seat": pl.Int16, "player": pl.String, "sitting_out": pl.Boolean},
        orient="row",
    )
    buttons = pl.DataFrame(
        [(hand, button) for hand, (_, button, listed) in enumerate(hands) if listed],
        schema={"hand": pl.Int32, "button_seat": pl.Int16},
        orient="row",
    )
    return frame.reverse(), buttons  # rows of a hand need not be together or in order


_KNOWN_SEAT = st.tuples(st.integers(1, 10), st.booleans())
_ANY_SEAT = st.tuples(st.none() | st.integers(1, 10), st.none() | st.booleans())


def _hands(seat: st.SearchStrategy[tuple[int | None, bool | None]]) -> st.SearchStrategy:
    return st.lists(
        st.tuples(st.lists(seat, max_size=11), st.none() | st.integers(0, 11), st.booleans()),
        max_size=8,
    )


@settings(max_examples=300, deadline=None)
@given(st.one_of(_hands(_KNOWN_SEAT), _hands(_ANY_SEAT)))
def test_positions_are_the_same_on_both_paths(
    hands: list[tuple[list[tuple[int | None, bool | None]], int | None, bool]],
) -> None:
    # Duplicate or unknown seats, unknown flags, hands without a button or a row in ``hands``:
    # the compiled path takes the frames it reads exactly as the expressions do, and only those.
    seats, buttons = _frames(hands)
    expected = positions._positions_by_expressions(seats, buttons)
    got = assign_positions(seats, buttons)
    assert got.columns == expected.columns
    assert got.sort("hand", "player").equals(expected.sort("hand", "player"))
    read_by_expressions_only = any(
        seat is None or out is None for rows, _, _ in hands for seat, out in rows
    ) or any(len({seat for seat, _ in rows}) != len(rows) for rows, _, _ in hands)
    assert (positions._compiled_positions(seats, buttons) is None) == read_by_expressions_only


def test_the_usual_table_is_read_in_compiled_code() -> None:
    hands = [
        ([(seat, seat == 4) for seat in range(1, 7)], 2, True),
        ([(1, False), (2, False)], 1, True),
    ]
    seats, buttons = _frames(hands)
    compiled = positions._compiled_positions(seats, buttons)
    assert compiled is not None
    labels = dict(
        zip(
            compiled.select(pl.format("{}/{}", "hand", "seat")).to_series(),
            compiled["position"],
            strict=True,
        )
    )
    # Seat 4 sits out: five dealt in, the button on seat 2.
    assert labels == {
        "0/1": "CO", "0/2": "BTN", "0/3": "SB", "0/4": None, "0/5": "BB", "0/6": "UTG",
        "1/1": "SB", "1/2": "BB",
    }  # fmt: skip
