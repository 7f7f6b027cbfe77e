"""Compiled loops for the few parser steps that are sequential by nature."""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["street_totals"]

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
