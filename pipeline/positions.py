"""Table positions (BTN, SB, BB, UTG .. CO) of the players dealt into each hand.

Positions count clockwise from the button over the players dealt in (sitting-out seats are
skipped), with the labels of stats-definitions.md §4 for 2 to 10 players. Heads-up, the button
is the small blind.
"""

from __future__ import annotations

import polars as pl

from pipeline.row_runs import number_in_run

__all__ = ["POSITION_LABELS", "assign_positions", "labels_after_button"]

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


def assign_positions(seats: pl.DataFrame, hands: pl.DataFrame) -> pl.DataFrame:
    """Add ``position`` to ``seats`` (keyed by ``hand``) from ``hands.button_seat``.

    A hand whose button seat is empty (dead button) still gets SB and BB on the first two dealt
    seats after it; nobody is labelled BTN then.
    """
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
