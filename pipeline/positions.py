"""Table positions (BTN, SB, BB, UTG .. CO) of the players dealt into each hand.

Positions count clockwise from the button over the players dealt in (sitting-out seats are
skipped), with the labels of docs/stats.md ("Conventions") for 2 to 10 players. Heads-up, the
button is the small blind.
"""

from __future__ import annotations

import numba
import numpy as np
import polars as pl

from pipeline.row_runs import number_in_run

__all__ = [
    "LABEL_NAMES",
    "POSITION_LABELS",
    "assign_positions",
    "labels_after_button",
    "position_codes",
]

# Labels of the seats between the big blind and the button, first to act first.
_MIDDLE: dict[int, tuple[str, ...]] = {
    3: (),
    4: ("CO",),
    5: ("UTG", "CO"),
    6: ("UTG", "HJ", "CO"),
    7: ("UTG", "LJ", "HJ", "CO"),
    8: ("UTG", "UTG+1", "LJ", "HJ", "CO"),
    9: ("UTG", "UTG+1", "UTG+2", "LJ", "HJ", "CO"),
    10: ("UTG", "UTG+1", "UTG+2", "UTG+3", "LJ", "HJ", "CO"),
}


def labels_after_button(players: int) -> tuple[str, ...]:
    """Labels in clockwise order starting at the seat after the button."""
    if players == 2:
        return ("BB", "SB")
    return ("SB", "BB", *_MIDDLE[players], "BTN")


POSITION_LABELS = pl.DataFrame(
    [
        {"players": players, "order": order, "position": label}
        for players in range(2, 11)
        for order, label in enumerate(labels_after_button(players))
    ],
    schema={"players": pl.UInt32, "order": pl.UInt32, "position": pl.String},
)


# Position labels clockwise from the seat after the button, and each (players, order)'s index
# into them (-1 where there is none), for `position_codes`.
LABEL_NAMES = ("BTN", "SB", "BB", "UTG", "UTG+1", "UTG+2", "UTG+3", "LJ", "HJ", "CO")
_LABEL_CODES = np.full((11, 10), -1, dtype=np.int8)
for _players in range(2, 11):
    for _order, _label in enumerate(labels_after_button(_players)):
        _LABEL_CODES[_players, _order] = LABEL_NAMES.index(_label)
_BUTTON = LABEL_NAMES.index("BTN")
_CUTOFF = LABEL_NAMES.index("CO")
_NO_BUTTON = -(1 << 20)  # `position_codes`'s button of a hand whose button seat is unknown


def assign_positions(seats: pl.DataFrame, hands: pl.DataFrame) -> pl.DataFrame:
    """Add ``position`` to ``seats`` (keyed by ``hand``) from ``hands.button_seat``.

    A hand whose button seat is empty (dead button) still gets SB and BB on the first two dealt
    seats after it; nobody is labelled BTN then.
    """
    compiled = _compiled_positions(seats, hands)
    return compiled if compiled is not None else _positions_by_expressions(seats, hands)


def _positions_by_expressions(seats: pl.DataFrame, hands: pl.DataFrame) -> pl.DataFrame:
    """`assign_positions` for any frame, by polars expressions (the compiled path's reference)."""
    dealt = (
        seats.filter(~pl.col("sitting_out"))
        .join(hands.select("hand", "button_seat"), on="hand", how="left")
        .with_columns(
            clockwise=(pl.col("seat").cast(pl.Int32) - pl.col("button_seat").cast(pl.Int32) - 1)
            % 256
        )
        # Sorted, a seat's place after the button is its number in the hand's run of rows
        # (ties keep their order, as an ordinal rank does), without windows over the hand.
        .sort("hand", "clockwise", nulls_last=True, maintain_order=True)
        .with_columns(
            order=pl.when(pl.col("clockwise").is_not_null()).then(
                number_in_run("hand").cast(pl.UInt32)
            )
        )
    )
    per_hand = dealt.group_by("hand").agg(
        players=pl.len().cast(pl.UInt32),
        button_dealt=(pl.col("seat") == pl.col("button_seat")).any(),
    )
    dealt = dealt.join(per_hand, on="hand", how="left")
    # With a dead button the last dealt seat is not the button; shift labels so the blinds stay.
    labelled = dealt.join(POSITION_LABELS, on=["players", "order"], how="left").with_columns(
        position=pl.when(
            ~pl.col("button_dealt") & (pl.col("position") == "BTN")
        )
        .then(pl.lit("CO"))
        .otherwise(pl.col("position"))
    )
    return seats.drop("position", strict=False).join(
        labelled.select("hand", "seat", "position"), on=["hand", "seat"], how="left"
    )


def _compiled_positions(seats: pl.DataFrame, hands: pl.DataFrame) -> pl.DataFrame | None:
    """`assign_positions` by `position_codes`, for seats it reads as the expressions do: every
    seat number and sitting-out flag known, no seat number twice in a hand, one row a hand in
    ``hands``. None for any other frame."""
    if (
        seats["seat"].null_count()
        or seats["sitting_out"].null_count()
        or hands["hand"].is_duplicated().any()
    ):
        return None
    button = (
        seats.select("hand")
        .join(hands.select("hand", "button_seat"), on="hand", how="left", maintain_order="left")
        .get_column("button_seat")
    )
    hand = seats["hand"].to_numpy()
    seat = seats["seat"].to_numpy().astype(np.int64)
    sitting_out = seats["sitting_out"].to_numpy()
    order = np.lexsort((seat, hand))
    hand, seat = hand[order], seat[order]
    if ((hand[1:] == hand[:-1]) & (seat[1:] == seat[:-1])).any():
        return None  # the expressions' join would give such a seat's rows twice
    codes = np.empty(len(order), dtype=np.int8)
    codes[order] = position_codes(
        hand,
        seat,
        sitting_out[order],
        button.fill_null(_NO_BUTTON).to_numpy().astype(np.int64)[order],
    )
    names = pl.Series("position", LABEL_NAMES, dtype=pl.String)
    position = names.gather(pl.Series(codes).cast(pl.UInt32, strict=False))  # -1: null
    return seats.drop("position", strict=False).with_columns(position=position)


@numba.njit(cache=True)
def position_codes(hand, seat, sitting_out, button):  # type: ignore[no-untyped-def]
    """Index into LABEL_NAMES of each seat row (rows grouped by hand), -1 if not dealt in.

    Counted clockwise from the button over the seats dealt in; with the button's seat empty
    (a dead button) the blinds keep their labels and nobody is the button. A hand whose
    button is `_NO_BUTTON` has no positions. Arrays shorter than ``hand`` end the rows read.
    """
    count = min(hand.shape[0], seat.shape[0], sitting_out.shape[0], button.shape[0])
    label = np.full(hand.shape[0], -1, dtype=np.int8)
    first = 0
    while first < count:
        last = first
        while last < count and hand[last] == hand[first]:
            last += 1
        players = 0
        button_dealt = False
        for row in range(first, last):
            if not sitting_out[row]:
                players += 1
                if seat[row] == button[row]:
                    button_dealt = True
        if 2 <= players <= 10 and button[first] != _NO_BUTTON:
            for row in range(first, last):
                if sitting_out[row]:
                    continue
                clockwise = (seat[row] - button[row] - 1) % 256
                order = 0
                for other in range(first, last):
                    ahead = (seat[other] - button[other] - 1) % 256 < clockwise
                    if ahead and not sitting_out[other]:
                        order += 1
                position = _LABEL_CODES[players, order]
                if position == _BUTTON and not button_dealt:
                    position = _CUTOFF
                label[row] = position
        first = last
    return label
