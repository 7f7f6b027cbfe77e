"""The betting of one hand, compiled: posts, four betting rounds, uncalled bets, the run-out.

`play_hand` is the hot loop of the generator (a Python version ran at ~100 µs a hand; this
one at a few). Players are ring indices (clockwise from the seat left of the button; heads-up
index 0 is the big blind and 1 the button, who posts the small blind). The rules it follows:

- antes (dead money) first, then the small and big blind, then a live big blind for each
  newcomer not in the blinds (payout-rules B6); a stack too short posts what it has, all-in;
- preflop everyone must match the full big blind even when its poster is short;
- fixed limit: every bet and raise is one small bet (preflop, flop) or big bet (turn, river);
  a bet and three raises at most (`RAISE_CAP` bets, the big blind counting preflop). Only
  when the caller asks (``heads_up_uncapped``: cash tables of a site that does so; never
  PokerStars, whose cap holds heads-up too) is it lifted when two players are left before
  the cap is reached (once capped with more players in, the round stays capped), and the
  simulator then stops at `HEADS_UP_RAISE_LIMIT` bets;
- pot limit: a bet is at most the pot, a raise at most to B + P + c (B5); no limit: up to the
  stack; the minimum raise is the last full bet or raise (the big blind at least);
- an all-in for less than a full bet or raise does not reopen the betting; the simulator then
  closes raising for the rest of the street, so no later size is open to interpretation;
- at the end of each round the part of the largest street total nobody matched is returned;
- with one player left the hand ends; with nobody left to bet the board is run out.

Decisions are random: uniforms come from a buffer filled by the caller, so the hand is a pure
function of its inputs.
"""

from __future__ import annotations

import numba
import numpy as np
import numpy.typing as npt

from pipeline.generate.stakes import HEADS_UP_RAISE_LIMIT, RAISE_CAP

__all__ = [
    "ACTION_FIELDS",
    "LIMIT_CODES",
    "MAX_ACTIONS",
    "STAKES_FIELDS",
    "UNIFORMS_PER_HAND",
    "UniformBuffer",
    "play_hand",
]

# Action kinds.
POST_SMALL_BLIND, POST_BIG_BLIND, POST_ANTE, FOLD, CHECK, CALL, BET, RAISE, RETURN = range(9)
# Columns of the action rows: street, player, kind, chips added (returned), street total after,
# all-in flag, raise over the bet faced.
ACTION_FIELDS = 7
MAX_ACTIONS = 640
# A hand never draws more uniforms than this (≤ 4 per action).
UNIFORMS_PER_HAND = 5 * MAX_ACTIONS + 16
LIMIT_CODES = {"FL": 0, "PL": 1, "NL": 2}
# Figures of the stakes at the head of `play_packed`'s numbers.
STAKES_FIELDS = 7
FIXED_LIMIT, POT_LIMIT, NO_LIMIT = 0, 1, 2
BOARD_CARDS_SHOWN = (0, 3, 4, 5)

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]


class UniformBuffer:
    """Random numbers for `play_hand`, drawn in bulk from a numpy generator."""

    SIZE = 1 << 15

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng
        self.values = rng.random(self.SIZE)
        self.cursor = 0

    def reserve(self) -> None:
        """Make sure one more hand's worth of numbers is left."""
        if self.cursor + UNIFORMS_PER_HAND > self.SIZE:
            self.values = self.rng.random(self.SIZE)
            self.cursor = 0


@numba.njit(cache=True, nogil=True)
def _record(
    actions: IntArray,
    count: int,
    street: int,
    player: int,
    kind: int,
    amount: int,
    to_amount: int,
    all_in: bool,
    raised_by: int,
) -> int:
    actions[count, 0] = street
    actions[count, 1] = player
    actions[count, 2] = kind
    actions[count, 3] = amount
    actions[count, 4] = to_amount
    actions[count, 5] = 1 if all_in else 0
    actions[count, 6] = raised_by
    return count + 1


@numba.njit(cache=True, nogil=True)
def _size(
    uniforms: FloatArray,
    cursor: int,
    lowest: int,
    pot_size: int,
    most: int,
    no_limit: bool,
    fever: bool,
) -> tuple[int, int]:
    """A pot-limit or no-limit street total to bet or raise to.

    ``lowest`` is the minimum, ``pot_size`` the pot-sized bet or raise (the pot-limit maximum),
    ``most`` everything the player has. Often the pot, else a share of the way from the
    minimum to it; in no limit now and then all-in. Committing most of a stack means all-in
    whenever the limit allows it.
    """
    if lowest >= most:
        return most, cursor  # all-in for less than a full bet or raise
    highest = min(pot_size, most)
    if no_limit:
        shove = uniforms[cursor]
        cursor += 1
        if shove < (0.4 if fever else 0.04):
            return most, cursor
    pick = uniforms[cursor]
    cursor += 1
    if fever or pick < 0.42:
        target = highest
    else:
        target = lowest + int((highest - lowest) * (0.3 + 0.7 * uniforms[cursor]))
        cursor += 1
    if (no_limit or highest == most) and target * 10 >= most * 6:
        target = most  # committing most of the stack: players just move in
    target = max(target, lowest)
    return target, cursor


@numba.njit(cache=True, nogil=True)
def _decide(
    uniforms: FloatArray,
    cursor: int,
    strength: float,
    looseness: float,
    aggression: float,
    street: int,
    to_call: int,
    pot: int,
    can_raise: bool,
    raises: int,
    fever: bool,
) -> tuple[int, int]:
    """FOLD, CALL (a check when there is nothing to call) or RAISE (a bet when unopened)."""
    if fever:
        looseness = 0.95
        aggression = 0.85
    if to_call == 0:
        roll = uniforms[cursor]
        cursor += 1
        if can_raise and roll < aggression * (0.25 + strength) * 0.8:
            return RAISE, cursor
        return CALL, cursor
    if street == 0:
        threshold = 1.0 - looseness * (0.72**raises)
    else:
        threshold = 0.5 + 0.07 * raises - 0.3 * looseness
    if to_call * 4 <= pot:
        threshold -= 0.15  # a cheap call
    noise = uniforms[cursor]
    cursor += 1
    if strength + 0.1 * (noise - 0.5) < threshold:
        return FOLD, cursor
    roll = uniforms[cursor]
    cursor += 1
    if can_raise and strength > 0.62 and roll < aggression * (1.0 - 0.2 * raises):
        return RAISE, cursor
    return CALL, cursor


@numba.njit(cache=True, nogil=True)
def _strengths(
    high: IntArray, low: IntArray, uniforms: FloatArray, cursor: int
) -> tuple[FloatArray, int]:
    """A noisy 0..1 strength per player from the final values of everybody's hands.

    The share of opponents beaten high, or (better) 0.55 + 0.45 × the share beaten low for a
    qualifying low, blended with noise: players know roughly, not exactly, where they stand.
    """
    n = high.shape[0]
    others = max(n - 1, 1)
    strength = np.empty(n, dtype=np.float64)
    for player in range(n):
        beaten_high = 0
        beaten_low = 0
        for other in range(n):
            if high[other] < high[player]:
                beaten_high += 1
            if low[other] < low[player]:
                beaten_low += 1
        rank = beaten_high / others
        if low[player] > 0:
            rank = max(rank, 0.55 + 0.45 * beaten_low / others)
        strength[player] = 0.65 * rank + 0.35 * uniforms[cursor]
        cursor += 1
    return strength, cursor


@numba.njit(cache=True, nogil=True)
def play_hand(
    limit: int,
    small_blind: int,
    big_blind: int,
    small_bet: int,
    big_bet: int,
    ante: int,
    heads_up_uncapped: bool,
    stack: IntArray,
    looseness: FloatArray,
    aggression: FloatArray,
    high: IntArray,
    low: IntArray,
    newcomer: BoolArray,
    fever: BoolArray,
    uniforms: FloatArray,
    cursor: int,
    put_in: IntArray,
    fold_street: IntArray,
    preflop_flags: IntArray,
    actions: IntArray,
) -> tuple[int, int, int, int, int]:
    """Play one hand's betting (see the module docstring).

    Parameters
    ----------
    limit
        `FIXED_LIMIT`, `POT_LIMIT` or `NO_LIMIT`.
    small_blind, big_blind, small_bet, big_bet, ante
        The stakes.
    heads_up_uncapped
        Lift the fixed-limit cap when two players are left before it is reached (cash games
        of sites that do; False for PokerStars and every tournament).
    stack
        Stacks at the start, in ring order; updated in place to the stacks at the end
        (before any winnings).
    looseness, aggression
        Per player, 0..1.
    high, low
        Per player, the evaluator's values of their final hand (decisions lean on them).
    newcomer
        Players who post a big blind out of position.
    fever
        Players who play very loose and aggressive this hand (multi-way all-ins).
    uniforms, cursor
        Random numbers and the position of the next one to use.
    put_in, fold_street, preflop_flags, actions
        Outputs: chips put in after returns; street of the fold (-1 none); bit 1 = voluntarily
        put chips in preflop (VPIP), bit 2 = raised preflop (PFR); action rows.

    Returns
    -------
    tuple of int
        Number of actions, board cards shown (0, 3, 4, 5), 1 if the hand reached a showdown,
        the last aggressor on the river (-1 none), the new cursor.
    """
    n = stack.shape[0]
    strength, cursor = _strengths(high, low, uniforms, cursor)
    street_total = np.zeros(n, dtype=np.int64)
    folded = np.zeros(n, dtype=np.bool_)
    all_in = np.zeros(n, dtype=np.bool_)
    acted = np.zeros(n, dtype=np.bool_)
    for player in range(n):
        put_in[player] = 0
        fold_street[player] = -1
        preflop_flags[player] = 0
    live = n
    able = n
    pot = 0
    count = 0
    last_river_aggressor = -1
    if n == 2:
        small_blind_player, big_blind_player = 1, 0
    else:
        small_blind_player, big_blind_player = 0, 1

    # Posts: antes, blinds, newcomers' big blinds.
    for step in range(3 + n):
        if step < n:
            player, kind, amount = step, POST_ANTE, ante
        elif step == n:
            player, kind, amount = small_blind_player, POST_SMALL_BLIND, small_blind
        elif step == n + 1:
            player, kind, amount = big_blind_player, POST_BIG_BLIND, big_blind
        else:
            continue
        chips = min(amount, stack[player])
        if chips <= 0 or all_in[player]:
            continue
        stack[player] -= chips
        put_in[player] += chips
        pot += chips
        if kind != POST_ANTE:  # antes are dead money, not part of the street total
            street_total[player] += chips
        went_all_in = stack[player] == 0
        if went_all_in:
            all_in[player] = True
            able -= 1
        count = _record(
            actions, count, 0, player, kind, chips, street_total[player], went_all_in, 0
        )
    for player in range(n):
        if not newcomer[player] or player == small_blind_player or player == big_blind_player:
            continue
        if all_in[player]:
            continue
        chips = min(big_blind, stack[player])
        stack[player] -= chips
        put_in[player] += chips
        pot += chips
        street_total[player] += chips
        went_all_in = stack[player] == 0
        if went_all_in:
            all_in[player] = True
            able -= 1
        count = _record(
            actions, count, 0, player, POST_BIG_BLIND, chips, street_total[player], went_all_in, 0
        )

    order = np.empty(n, dtype=np.int64)
    board_shown = 0
    for street in range(4):
        if street == 0:
            if n == 2:
                order[0], order[1] = 1, 0
            else:
                for index in range(n):
                    order[index] = (index + 2) % n
        else:
            board_shown = BOARD_CARDS_SHOWN[street]
            for index in range(n):
                order[index] = index
                street_total[index] = 0
        # -- one betting round ----------------------------------------------------------------
        fixed_size = small_bet if street <= 1 else big_bet
        if street == 0:
            current = big_blind  # everyone matches the full blind, even a short one
            bets = 1
        else:
            current = 0
            bets = 0
        minimum_raise = fixed_size if limit == FIXED_LIMIT else big_blind
        for index in range(n):
            acted[index] = False
        raising_open = True
        capped = False
        raises_faced = 0
        position = 0
        idle = 0
        while idle < n and live > 1:
            player = order[position % n]
            position += 1
            if folded[player] or all_in[player]:
                idle += 1
                continue
            to_call = current - street_total[player]
            if to_call <= 0 and (acted[player] or able < 2):
                idle += 1
                continue
            idle = 0
            to_call = max(to_call, 0)
            can_raise = raising_open and able > 1 and stack[player] > to_call
            if limit == FIXED_LIMIT and can_raise:
                cap = RAISE_CAP
                if heads_up_uncapped and live == 2 and not capped:
                    cap = HEADS_UP_RAISE_LIMIT
                can_raise = bets < cap
            # Heads-up fixed-limit pots see raising wars (up to the cap, or beyond it where
            # the site lifts it).
            war = limit == FIXED_LIMIT and live == 2
            decision, cursor = _decide(
                uniforms, cursor, strength[player], looseness[player], aggression[player],
                street, to_call, pot, can_raise, raises_faced // 2 if war else raises_faced,
                fever[player],
            )  # fmt: skip
            acted[player] = True
            own = street_total[player]
            if decision == FOLD:
                folded[player] = True
                fold_street[player] = street
                live -= 1
                able -= 1
                count = _record(actions, count, street, player, FOLD, 0, own, False, 0)
                continue
            if decision == CALL and to_call == 0:
                count = _record(actions, count, street, player, CHECK, 0, own, False, 0)
                continue
            if decision == CALL:
                chips = min(to_call, stack[player])
                target = own + chips
                kind = CALL
                raised_by = 0
            else:
                most = own + stack[player]
                if limit == FIXED_LIMIT:
                    target = current + fixed_size
                else:
                    lowest = big_blind if current == 0 else current + minimum_raise
                    pot_size = current + pot + to_call  # payout-rules B5: B + P + c
                    target, cursor = _size(
                        uniforms,
                        cursor,
                        lowest,
                        pot_size,
                        most,
                        limit == NO_LIMIT,
                        fever[player],
                    )
                target = min(target, most)
                chips = target - own
                kind = BET if current == 0 else RAISE
                raised_by = target - current
            stack[player] -= chips
            put_in[player] += chips
            pot += chips
            street_total[player] = target
            went_all_in = stack[player] == 0
            if went_all_in:
                all_in[player] = True
                able -= 1
            if street == 0:
                preflop_flags[player] |= 1 if kind == CALL else 3
            count = _record(
                actions, count, street, player, kind, chips, target, went_all_in, raised_by
            )
            if kind == CALL:
                continue
            if street == 3:
                last_river_aggressor = player
            if raised_by >= minimum_raise:
                if limit != FIXED_LIMIT:
                    minimum_raise = raised_by
                bets += 1
                raises_faced += 1
                # Capped with three or more players in: stays capped even if it gets
                # heads-up later in the round (B2).
                if bets >= RAISE_CAP and live > 2:
                    capped = True
                for other in range(n):
                    if other != player:
                        acted[other] = False
            else:
                # A short all-in: the others must answer it, but nobody raises again.
                raising_open = False
                for other in range(n):
                    if other != player and street_total[other] < target:
                        acted[other] = False
            current = target
        # -- the part of the largest street total nobody matched goes back -------------------
        top = -1
        owner = -1
        second = 0
        for index in range(n):
            total = street_total[index]
            if total > top:
                second = max(second, top)
                top = total
                owner = index
            elif total > second:
                second = total
        if top > second:
            returned = top - second
            street_total[owner] -= returned
            put_in[owner] -= returned
            stack[owner] += returned
            pot -= returned
            if all_in[owner]:
                all_in[owner] = False
                if not folded[owner]:
                    able += 1
            count = _record(
                actions, count, street, owner, RETURN, returned, street_total[owner], False, 0
            )
        if live == 1:
            return count, board_shown, 0, last_river_aggressor, cursor
    return count, board_shown, 1, last_river_aggressor, cursor


@numba.njit(cache=True, nogil=True)
def play_packed(
    numbers: IntArray,
    traits: FloatArray,
    uniforms: FloatArray,
    cursor: int,
    results: IntArray,
    actions: IntArray,
) -> tuple[int, int, int, int, int]:
    """`play_hand` with its inputs and outputs packed in a few flat arrays.

    Converting a handful of Python lists to arrays and back costs more than the betting
    itself; one flat list per type converts fastest.

    Parameters
    ----------
    numbers
        The `STAKES_FIELDS` stakes figures (limit code, small blind, big blind, small bet,
        big bet, ante, heads-up uncapped 0/1), then five rows of one column per player in ring
        order: stack, high, low, newcomer (0/1), fever (0/1).
    traits
        Looseness of every player, then aggression of every player.
    uniforms, cursor
        As in `play_hand`.
    results
        Output rows: put in, stack at the end, fold street, preflop flags.
    actions
        Output action rows.
    """
    n = traits.shape[0] // 2
    players = numbers[STAKES_FIELDS:].reshape(5, n)
    stack = players[0].copy()
    outcome = play_hand(
        numbers[0], numbers[1], numbers[2], numbers[3], numbers[4], numbers[5],
        numbers[6] == 1,
        stack, traits[:n], traits[n:], players[1], players[2], players[3] == 1, players[4] == 1,
        uniforms, cursor, results[0], results[2], results[3], actions,
    )  # fmt: skip
    results[1, :] = stack
    return outcome
