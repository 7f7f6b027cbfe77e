"""Integer keys for the audit: hand rows, player hashes, and actions matched to seats.

The audit and the betting checks work on many hands at once. Joining tens of millions of
action rows on ``(site, hand_id)`` text, or sorting them, costs more than the checks
themselves, so the keys are made once here:

- ``hand_row``: the hand's row in the hands table sorted by ``(site, hand_id)``. A table's rows
  of one hand are contiguous (the parsers write a hand's lines together), so only the first row
  of each run of equal keys is looked up; the rest copy it.
- ``player_key``: a hash of the player name, to tell the players of one hand apart.
- seats sorted by hand row and clockwise from the button (CSR offsets per hand), and every
  action matched to its actor's seat row by a compiled pass over the few seats of its hand.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np
import numpy.typing as npt
import polars as pl

__all__ = [
    "ACTION_KIND_CODES",
    "MatchedActions",
    "action_kind_codes",
    "attach_hand_rows",
    "clockwise_seats",
    "hand_offsets",
    "match_actions",
    "number_hands",
    "replay_order",
]

HAND_KEY = ["site", "hand_id"]

# Action kinds as small integers (shared by the payout and betting passes; -1: unknown).
ACTION_KIND_CODES = {
    "post_sb": 0,
    "post_bb": 1,
    "post_dead": 2,
    "ante": 3,
    "fold": 4,
    "check": 5,
    "call": 6,
    "bet": 7,
    "raise": 8,
    "uncalled_return": 9,
    "show": 10,
    "muck": 11,
}
_UNCALLED, _FOLD, _MUCK, _SHOW, _POST_SB, _POST_BB = 9, 4, 11, 10, 0, 1

Int64Array = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]


def number_hands(hands: pl.DataFrame) -> pl.DataFrame:
    """One row per hand (the first of repeated keys), sorted by key, with ``hand_row``."""
    return (
        hands.unique(subset=HAND_KEY, keep="first", maintain_order=True)
        .sort(HAND_KEY)
        .with_row_index("hand_row")
        .with_columns(pl.col("hand_row").cast(pl.Int64))
    )


def attach_hand_rows(frame: pl.DataFrame, hands: pl.DataFrame) -> pl.DataFrame:
    """Rows of ``frame`` whose hand is in ``hands``, with ``hand_row`` (and ``player_key``).

    Only the first row of each run of equal ``(site, hand_id)`` goes through the join, on a
    hash of the key; a hand's rows split into several runs are still each looked up, so the
    result does not depend on the rows being grouped.
    """
    if frame.height == 0:
        keyed = frame.with_columns(hand_row=pl.lit(None, dtype=pl.Int64))
    else:
        # Only the key columns are filtered and hashed: copying whole rows of tens of
        # thousands of actions cost more than the lookup itself.
        keys = frame.select(HAND_KEY)
        run = keys.select(pl.struct(*HAND_KEY).rle_id()).to_series()
        firsts = keys.filter(run != run.shift(1, fill_value=-1)).select(
            hand_key=pl.struct(*HAND_KEY).hash(seed=0)
        )
        found = firsts.join(
            hands.select(hand_key=pl.struct(*HAND_KEY).hash(seed=0), hand_row="hand_row"),
            on="hand_key",
            how="left",
            maintain_order="left",
        )["hand_row"]
        keyed = frame.with_columns(hand_row=found.gather(run))
        if found.null_count():
            keyed = keyed.filter(pl.col("hand_row").is_not_null())
    if "player" in keyed.columns:
        keyed = keyed.with_columns(player_key=pl.col("player").hash(seed=0))
    return keyed


def clockwise_seats(seats: pl.DataFrame, hands: pl.DataFrame) -> pl.DataFrame:
    """Seats (keyed by `attach_hand_rows`) sorted by hand row, then clockwise from the seat
    left of the button (a hand without a button counts from seat 0), with ``clockwise``."""
    button = hands["button_seat"].cast(pl.Int64).fill_null(0)
    seats = seats.with_columns(
        clockwise=(pl.col("seat").cast(pl.Int64) - pl.lit(button).gather(pl.col("hand_row")) - 1)
        % 256
    )
    # One integer sort key instead of two columns: clockwise is 0..255.
    order = seats.select(
        pl.arg_sort_by(pl.col("hand_row") * 256 + pl.col("clockwise"), maintain_order=True)
    ).to_series()
    return seats[order]


def hand_offsets(hand_row: npt.NDArray[np.integer], hands: int) -> Int64Array:
    """CSR offsets of rows sorted by hand row: hand ``h`` is ``[offsets[h], offsets[h + 1])``."""
    return np.searchsorted(hand_row, np.arange(hands + 1)).astype(np.int64)


@numba.njit(cache=True)
def _is_replay_ordered(hand: Int64Array, seq: Int64Array, hands: int) -> bool:
    """Whether every hand's rows are contiguous and in increasing ``seq`` order."""
    seen = np.zeros(hands, dtype=np.bool_)
    for row in range(hand.shape[0]):
        h = hand[row]
        if row > 0 and hand[row - 1] == h:
            if seq[row] <= seq[row - 1]:
                return False
            continue
        if seen[h]:
            return False
        seen[h] = True
    return True


def replay_order(actions: pl.DataFrame, hands: int) -> npt.NDArray[np.int64] | None:
    """None when the actions are already grouped by hand in ``seq`` order, else the order.

    Parsers write a hand's actions together and in order, so the usual answer is None and the
    tens of millions of action rows are never sorted. Otherwise a stable sort by hand and
    ``seq`` gives the replay order.
    """
    hand = actions["hand_row"].to_numpy()
    seq = actions["seq"].cast(pl.Int64).fill_null(-1).to_numpy()
    if _is_replay_ordered(hand, seq, hands):
        return None
    return (
        actions.select(pl.arg_sort_by(["hand_row", "seq"], maintain_order=True))
        .to_series()
        .cast(pl.Int64)
        .to_numpy()
    )


@dataclass(frozen=True)
class MatchedActions:
    """Actions matched to the seat rows of their actors, and per-seat totals of the actions."""

    seat_row: Int64Array  # per action: the actor's seat row, -1 when not seated
    put_in: Int64Array  # per seat row: chips put in less uncalled returns
    folded: BoolArray  # folded or mucked
    mucked: BoolArray
    showed: BoolArray
    acted: BoolArray  # has any action (dealt in)
    posted_small_blind: BoolArray
    posted_big_blind: BoolArray


@numba.njit(cache=True)
def _match_kernel(
    action_hand: Int64Array,
    action_player: npt.NDArray[np.uint64],
    kind: Int64Array,
    amount: Int64Array,
    seat_start: Int64Array,
    seat_player: npt.NDArray[np.uint64],
) -> tuple[
    Int64Array, Int64Array, BoolArray, BoolArray, BoolArray, BoolArray, BoolArray, BoolArray
]:
    seats = seat_player.shape[0]
    seat_row = np.full(action_hand.shape[0], -1, dtype=np.int64)
    put_in = np.zeros(seats, dtype=np.int64)
    folded = np.zeros(seats, dtype=np.bool_)
    mucked = np.zeros(seats, dtype=np.bool_)
    showed = np.zeros(seats, dtype=np.bool_)
    acted = np.zeros(seats, dtype=np.bool_)
    small_blind = np.zeros(seats, dtype=np.bool_)
    big_blind = np.zeros(seats, dtype=np.bool_)
    for row in range(action_hand.shape[0]):
        h = action_hand[row]
        code = kind[row]
        signed = 0
        if code == 0 or code == 1 or code == 2 or code == 3 or code == 6 or code == 7 or code == 8:
            signed = amount[row]
        elif code == _UNCALLED:
            signed = -amount[row]
        # Every seat row of the player takes the action (a name seated twice is bad input,
        # and both rows then carry the same totals, as a join on the name would give).
        for seat in range(seat_start[h], seat_start[h + 1]):
            if seat_player[seat] != action_player[row]:
                continue
            if seat_row[row] < 0:
                seat_row[row] = seat
            put_in[seat] += signed
            acted[seat] = True
            if code == _FOLD or code == _MUCK:
                folded[seat] = True
            if code == _MUCK:
                mucked[seat] = True
            if code == _SHOW:
                showed[seat] = True
            if code == _POST_SB:
                small_blind[seat] = True
            if code == _POST_BB:
                big_blind[seat] = True
    return seat_row, put_in, folded, mucked, showed, acted, small_blind, big_blind


def action_kind_codes(actions: pl.DataFrame) -> Int64Array:
    """The ``kind`` column as `ACTION_KIND_CODES` (-1 for a kind the audit does not know)."""
    known = pl.Enum(list(ACTION_KIND_CODES))
    # A non-strict enum cast turns a kind outside the list (and a missing one) into null.
    codes = actions["kind"].cast(known, strict=False).to_physical().cast(pl.Int64)
    return codes.fill_null(-1).to_numpy()


def match_actions(
    actions: pl.DataFrame, kind_code: Int64Array, seat_start: Int64Array, seats: pl.DataFrame
) -> MatchedActions:
    """Match each action (with ``hand_row``, ``player_key``) to its actor's row of ``seats``.

    ``seats`` are sorted by hand row with ``seat_start`` their CSR offsets per hand.
    """
    outputs = _match_kernel(
        actions["hand_row"].to_numpy(),
        actions["player_key"].to_numpy(),
        kind_code,
        actions["amount"].fill_null(0).to_numpy(),
        seat_start,
        seats["player_key"].to_numpy(),
    )
    return MatchedActions(*outputs)
