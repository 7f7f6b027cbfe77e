"""Compiled loops for the few parser steps that are sequential by nature."""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["street_totals"]


@numba.njit(cache=True)
def street_totals(
    hand: np.ndarray,
    street: np.ndarray,
    player: np.ndarray,
    is_live: np.ndarray,
    is_raise: np.ndarray,
    in_flow: np.ndarray,
    amount: np.ndarray,
    raise_to: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Each player's street total after every action, and the chips added by raises.

    Rows are in action order. A raise prints the new total (``raise_to``); every other live
    action prints the chips it adds (``amount``). Returns ``(to_amount, added)``; ``to_amount``
    is -1 for rows outside the betting flow (antes, dead blinds, returns, shows).
    """
    rows = hand.shape[0]
    running = np.zeros(player.max() + 1 if rows else 1, dtype=np.int64)
    touched = np.empty(rows, dtype=np.int64)
    touched_count = 0
    to_amount = np.full(rows, -1, dtype=np.int64)
    added = amount.copy()
    for row in range(rows):
        if row == 0 or hand[row] != hand[row - 1] or street[row] != street[row - 1]:
            for k in range(touched_count):
                running[touched[k]] = 0
            touched_count = 0
        if not in_flow[row]:
            continue
        who = player[row]
        touched[touched_count] = who
        touched_count += 1
        before = running[who]
        if is_raise[row]:
            added[row] = raise_to[row] - before
            running[who] = raise_to[row]
        elif is_live[row]:
            running[who] = before + amount[row]
        to_amount[row] = running[who]
    return to_amount, added
