"""Compiled loops for the few parser steps that are sequential by nature."""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["fill_forward", "highest_before", "running_sums", "street_totals"]

_MAX_PLAYERS_PER_STREET = 64


@numba.njit(cache=True)
def street_totals(
    hand: np.ndarray,
    street: np.ndarray,
    player_hash: np.ndarray,
    is_live: np.ndarray,
    is_raise: np.ndarray,
    in_flow: np.ndarray,
    amount: np.ndarray,
    raise_to: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Each player's street total after every action, and the chips added by raises.

    Rows are in action order. A raise prints the new total (``raise_to``); every other live
    action prints the chips it adds (``amount``). Players are told apart by a hash of their
    name; a street has at most a handful of them, so a linear search beats any map.
    Returns ``(to_amount, added)``; ``to_amount`` is -1 for rows outside the betting flow
    (antes, dead blinds, returns, shows).
    """
    rows = hand.shape[0]
    seen = np.zeros(_MAX_PLAYERS_PER_STREET, dtype=np.int64)
    running = np.zeros(_MAX_PLAYERS_PER_STREET, dtype=np.int64)
    seen_count = 0
    to_amount = np.full(rows, -1, dtype=np.int64)
    added = amount.copy()
    for row in range(rows):
        if row == 0 or hand[row] != hand[row - 1] or street[row] != street[row - 1]:
            seen_count = 0
        if not in_flow[row]:
            continue
        slot = -1
        for k in range(seen_count):
            if seen[k] == player_hash[row]:
                slot = k
                break
        if slot < 0:
            if seen_count == _MAX_PLAYERS_PER_STREET:
                continue  # an absurd hand; its seat checks quarantine it
            slot = seen_count
            seen[slot] = player_hash[row]
            running[slot] = 0
            seen_count += 1
        before = running[slot]
        if is_raise[row]:
            added[row] = raise_to[row] - before
            running[slot] = raise_to[row]
        elif is_live[row]:
            running[slot] = before + amount[row]
        to_amount[row] = running[slot]
    return to_amount, added


@numba.njit(cache=True)
def fill_forward(
    resets: np.ndarray, reset_value: int, rows: np.ndarray, values: np.ndarray
) -> np.ndarray:
    """Per line, the value of the latest of ``rows`` (``values[k]`` at line ``rows[k]``) or
    of the reset lines (``resets``: ``reset_value``) at or before it; ``reset_value`` before
    any. A line that is both takes its row's value, and of a line given twice, the later.

    One pass: in numpy it took six over the whole block. A row outside the lines raises
    IndexError.
    """
    size = resets.shape[0]
    has_value = np.zeros(size, dtype=np.bool_)
    value_at = np.empty(size, dtype=np.int64)
    for index in range(min(rows.shape[0], values.shape[0])):
        row = rows[index]
        if not 0 <= row < size:
            raise IndexError("a row outside the lines")
        has_value[row] = True
        value_at[row] = values[index]
    filled = np.empty(size, dtype=np.int64)
    current = reset_value
    for line in range(size):
        if has_value[line]:
            current = value_at[line]
        elif resets[line]:
            current = reset_value
        filled[line] = current
    return filled


@numba.njit(cache=True)
def highest_before(hand: np.ndarray, street: np.ndarray, to_amount: np.ndarray) -> np.ndarray:
    """Per row, the highest ``to_amount`` of the earlier rows of its hand and street (0 for
    the first of them).

    A hand's rows are consecutive; its streets may come in any order. ``street`` is 0 to 3,
    or -1 for none (a group of its own); a row of any other value counts as none. Rows past
    the shortest array are 0.
    """
    before = np.zeros(hand.shape[0], dtype=np.int64)
    rows = min(hand.shape[0], street.shape[0], to_amount.shape[0])
    highest = np.zeros(5, dtype=np.int64)
    seen = np.zeros(5, dtype=np.bool_)
    for row in range(rows):
        if row == 0 or hand[row] != hand[row - 1]:
            seen[:] = False
        slot = street[row] if 0 <= street[row] <= 3 else 4
        if seen[slot]:
            before[row] = highest[slot]
            highest[slot] = max(highest[slot], to_amount[row])
        else:
            highest[slot] = to_amount[row]
            seen[slot] = True
    return before


@numba.njit(cache=True)
def running_sums(group: np.ndarray, value: np.ndarray, order: np.ndarray, groups: int) -> np.ndarray:
    """Per row, the sum of ``value`` over the rows of its ``group`` up to and including it,
    the rows taken in ``order`` (a permutation of the row numbers).

    ``group`` is 0 to ``groups`` - 1; a row of any other group, or an entry of ``order``
    that is no row, counts in no sum (its own is 0).
    """
    rows = min(group.shape[0], value.shape[0])
    sums = np.zeros(group.shape[0], dtype=np.int64)
    totals = np.zeros(max(groups, 0), dtype=np.int64)
    for index in range(order.shape[0]):
        row = order[index]
        if not 0 <= row < rows:
            continue
        slot = group[row]
        if 0 <= slot < groups:
            totals[slot] += value[row]
            sums[row] = totals[slot]
    return sums
