"""Betting-structure checks: bet sizes, raise cap, pot-limit maximum, blinds, order of action.

The rules are payout-rules.md §3 (B1-B7). Every hand is checked at once: the actions of all
hands, in stored order (a hand's actions are written together and in sequence; they are sorted
only when not), go through one compiled pass that replays each betting round (who is still
in, the street's high bet, the pot, whose turn it is) and marks the rows that break a rule;
only the marked rows get their text back to become findings. Keys are integers throughout
(``pipeline.hand_keys``). Blind amounts need no replay and are checked column-wise.

What is checked (finding kinds of ``pipeline.audit``):

``bet_size``
    Fixed limit: a bet or raise must bring the street total to one bet (small bet on preflop
    and flop, big bet on turn and river) over the bet faced, or complete a short all-in to the
    next full bet level (B3); an all-in may be smaller, never larger. Pot and no limit: a bet
    or raise that is not all-in must raise by at least the big blind and the largest raise
    increment of the street (B5). Any limit: a call must not put in more than is owed.
``raise_cap``
    Fixed limit: more bets and raises on a street than ``SiteProfile.raise_cap`` (the opening
    bet counts, preflop the big blind is the first bet, an all-in raise of at least half a bet
    counts, B3). The cap is lifted when the betting is heads-up (two players neither folded
    nor all-in) before it is reached, if the profile says so; never in tournaments unless a
    tournament profile says otherwise (B2).
``pot_limit``
    Pot limit: a bet or raise to more than ``B + P + (B - own)``, B the bet to match, P every
    chip in the middle (antes and dead blinds included), own the player's street total (B5).
``blinds``
    Pot and no limit: a small or big blind post other than the stakes (less is allowed all-in).
    Fixed limit: a big blind other than the small bet (B1), or a small blind above the big
    blind; a small blind below half the small bet is legal on some tables (B1x).
``action_order``
    A fold, check, call, bet or raise by someone other than the next player clockwise who is
    neither folded nor all-in; a round starts left of the big blind preflop and left of the
    button after (B7, heads-up included). Extra live blinds act in their turn (B6).

Deliberately not checked, to keep false findings out: the order of blind and ante posts; dead
blind amounts (their size differs between sites); antes (the header does not print them); a
check or a short call made while a bet is owed; whether a round ended too early or a player
was skipped at its end; preflop order in a hand whose big blind is not the first or second
player dealt left of the button (a missing or moved blind the hand does not show); hands
without a button seat, or with an actor missing from the seats, are not judged on order.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numba
import numpy as np
import numpy.typing as npt
import polars as pl

from pipeline.hand_keys import (
    MatchedActions,
    action_kind_codes,
    attach_hand_rows,
    clockwise_seats,
    hand_offsets,
    match_actions,
    number_hands,
    replay_order,
)
from pipeline.profiles import PROFILES, SiteProfile, site_profile

__all__ = ["BETTING_KINDS", "betting_findings", "betting_profile", "keyed_betting_findings"]

BETTING_KINDS = ("bet_size", "raise_cap", "pot_limit", "blinds", "action_order")

HAND_KEY = ["site", "hand_id"]
STREET_NAMES = ("preflop", "flop", "turn", "river")

# Action kinds as small integers for the compiled pass.
(
    POST_SB,
    POST_BB,
    POST_DEAD,
    ANTE,
    FOLD,
    CHECK,
    CALL,
    BET,
    RAISE,
    UNCALLED_RETURN,
    SHOW,
    MUCK,
) = range(12)
KIND_CODES = {
    "post_sb": POST_SB,
    "post_bb": POST_BB,
    "post_dead": POST_DEAD,
    "ante": ANTE,
    "fold": FOLD,
    "check": CHECK,
    "call": CALL,
    "bet": BET,
    "raise": RAISE,
    "uncalled_return": UNCALLED_RETURN,
    "show": SHOW,
    "muck": MUCK,
}
FIXED_LIMIT, POT_LIMIT, NO_LIMIT, OTHER_LIMIT = range(4)
LIMIT_CODES = {"FL": FIXED_LIMIT, "PL": POT_LIMIT, "NL": NO_LIMIT}

# Why a row broke a bet-size rule (0: it did not).
(
    SIZE_OK,
    SIZE_NOT_ONE_BET,
    SIZE_ALL_IN_ABOVE_LIMIT,
    SIZE_CALL_ABOVE_OWED,
    SIZE_RAISE_BELOW_MINIMUM,
    SIZE_BET_BELOW_MINIMUM,
) = range(6)

Int64Array = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]


def betting_profile(site: str, is_tournament: bool) -> SiteProfile:
    """The profile whose raise cap and heads-up uncapping apply to a hand.

    Cash hands use the profile the site's parser declares (`site_profile`): its ``raise_cap``
    (bets a street, the opening bet included) and whether the cap is lifted heads-up are the
    site's rules. Tournaments use ``"<site>-tournament"`` when it exists; otherwise the site's
    profile with heads-up uncapping off, since it is "typically not for a tournament" (B2).

    Examples
    --------
    >>> betting_profile("pokerstars", is_tournament=True).heads_up_uncapped
    False
    >>> betting_profile("pokerstars", is_tournament=False).heads_up_uncapped
    False
    """
    base = site_profile(site)
    if not is_tournament:
        return base
    tournament = PROFILES.get(f"{site}-tournament")
    if tournament is not None:
        return tournament
    return dataclasses.replace(base, heads_up_uncapped=False)


def betting_findings(
    hands: pl.DataFrame, seats: pl.DataFrame, actions: pl.DataFrame
) -> pl.DataFrame:
    """Findings of the betting-structure checks for every hand of the canonical tables.

    Parameters
    ----------
    hands, seats, actions
        Canonical tables (``pipeline.schema``) of one or several sites. A hand present twice
        (same site and number) is checked once.

    Returns
    -------
    pl.DataFrame
        Rows in ``pipeline.audit.FINDING_SCHEMA`` of kinds `BETTING_KINDS`. ``expected``
        and ``recorded`` are amounts in the hand's minor unit, except for ``raise_cap`` (the
        cap and the bet number) and ``action_order`` (the seat whose turn it was and the seat
        that acted).
    """
    numbered = number_hands(hands)
    seats = clockwise_seats(attach_hand_rows(seats, numbered), numbered)
    actions = attach_hand_rows(actions, numbered)
    seat_start = hand_offsets(seats["hand_row"].to_numpy(), numbered.height)
    kind_code = action_kind_codes(actions)
    matched = match_actions(actions, kind_code, seat_start, seats)
    return keyed_betting_findings(numbered, seats, actions, kind_code, matched)


def keyed_betting_findings(
    hands: pl.DataFrame,
    seats: pl.DataFrame,
    actions: pl.DataFrame,
    kind_code: Int64Array,
    matched: MatchedActions,
) -> pl.DataFrame:
    """`betting_findings` on tables already keyed by `pipeline.hand_keys`.

    ``hands`` has one row per ``hand_row`` in that order; ``seats`` are sorted by hand row and
    clockwise from the button (`pipeline.hand_keys.clockwise_seats`); ``actions`` (in stored
    order) carry ``hand_row`` and ``player_key``, with ``kind_code`` and ``matched`` from
    `pipeline.hand_keys`.
    """
    # Imported here: pipeline.audit calls this function, so a module-level import would be
    # circular.
    from pipeline.audit_outputs import FINDING_SCHEMA

    rules = _hand_rules(hands)
    straddles = _straddles(hands, actions, kind_code)
    players = _participants(seats, matched, hands.height, straddles)
    marks = _replay(hands, rules, players, seats, actions, kind_code, matched, straddles)
    findings = [
        _blind_findings(hands, rules, actions, kind_code, straddles),
        _size_findings(marks),
        _cap_findings(marks),
        _pot_limit_findings(marks),
        _order_findings(marks),
    ]
    return pl.concat(
        [frame.select(list(FINDING_SCHEMA)).cast(FINDING_SCHEMA) for frame in findings],
        how="vertical",
    ).sort(["site", "hand_id", "kind", "player"], nulls_last=True)


# -- inputs of the replay -----------------------------------------------------------------------


def _hand_rules(hands: pl.DataFrame) -> pl.DataFrame:
    """Per hand (in hand-row order): the limit code and the rule parameters of its profile."""
    profiles = {
        (site, tournament): betting_profile(site, tournament)
        for site, tournament in hands.select(
            "site", is_tournament=pl.col("tournament_id").is_not_null()
        )
        .unique()
        .iter_rows()
    }
    rules = pl.DataFrame(
        [
            (site, tournament, profile.raise_cap or 0, profile.heads_up_uncapped)
            for (site, tournament), profile in profiles.items()
        ],
        schema={
            "site": pl.String,
            "is_tournament": pl.Boolean,
            "raise_cap": pl.Int64,
            "heads_up_uncapped": pl.Boolean,
        },
        orient="row",
    )
    return hands.select(
        "site",
        is_tournament=pl.col("tournament_id").is_not_null(),
        limit_code=pl.col("limit_type").replace_strict(
            LIMIT_CODES, default=OTHER_LIMIT, return_dtype=pl.Int64
        ),
    ).join(rules, on=["site", "is_tournament"], how="left", maintain_order="left")


def _straddles(hands: pl.DataFrame, actions: pl.DataFrame, kind_code: Int64Array) -> BoolArray:
    """Per action row: a straddle, a second live big blind of twice the big blind posted
    beside one of the big blind (PokerNow's ``posts a straddle of 0.50`` at 0.10/0.25): the
    bet to match preflop, whose poster acts last before the flop."""
    big_blind = hands["big_blind"].fill_null(0).to_numpy()[actions["hand_row"].to_numpy()]
    amount = actions["amount"].fill_null(0).to_numpy()
    is_big = kind_code == POST_BB
    plain = np.zeros(hands.height, dtype=np.bool_)
    plain[actions["hand_row"].to_numpy()[is_big & (amount == big_blind)]] = True
    return is_big & (big_blind > 0) & (amount == 2 * big_blind) & plain[
        actions["hand_row"].to_numpy()
    ]


@dataclasses.dataclass(frozen=True)
class _Participants:
    """Players dealt in, one per seat row with an action, clockwise from the button (CSR).

    A player is dealt in when they have any action: every dealt player posts, antes or acts
    before the hand can end, while a seated player waiting for the big blind has no line.
    """

    seat_row: Int64Array  # per participant: its row of the seats
    start: Int64Array  # per hand: offsets into the participants (len hands + 1)
    turn_of_seat: Int64Array  # per seat row: its place in the order, -1 when not dealt in
    stack: Int64Array
    posted_small_blind: BoolArray
    posted_big_blind: BoolArray
    straddled: BoolArray


def _participants(
    seats: pl.DataFrame, matched: MatchedActions, hands: int, straddles: BoolArray
) -> _Participants:
    seat_rows = np.flatnonzero(matched.acted).astype(np.int64)
    hand = seats["hand_row"].to_numpy()[seat_rows]
    start = hand_offsets(hand, hands)
    turn_of_seat = np.full(seats.height, -1, dtype=np.int64)
    turn_of_seat[seat_rows] = np.arange(len(seat_rows)) - start[hand]
    stack = seats["stack_start"].fill_null(np.iinfo(np.int64).max).to_numpy()
    straddled = np.zeros(seats.height, dtype=np.bool_)
    straddlers = matched.seat_row[straddles]
    straddled[straddlers[straddlers >= 0]] = True
    return _Participants(
        seat_row=seat_rows,
        start=start,
        turn_of_seat=turn_of_seat,
        stack=np.ascontiguousarray(stack[seat_rows], dtype=np.int64),
        posted_small_blind=matched.posted_small_blind[seat_rows],
        posted_big_blind=matched.posted_big_blind[seat_rows],
        straddled=straddled[seat_rows],
    )


@numba.njit(cache=True)
def _preflop_first_turn_kernel(
    start: Int64Array, small_blind: BoolArray, big_blind: BoolArray, straddled: BoolArray
) -> Int64Array:
    hands = start.shape[0] - 1
    first_turn = np.full(hands, -1, dtype=np.int64)
    for h in range(hands):
        first, dealt = start[h], start[h + 1] - start[h]
        big_blind_turn = -1
        for turn in range(dealt):
            if big_blind[first + turn] and not straddled[first + turn]:
                big_blind_turn = turn
                break
        # The small blind's poster may also post a big blind he missed (a return to the
        # table): the big blind is then the next player's.
        if (
            big_blind_turn == 0
            and dealt > 2
            and small_blind[first]
            and big_blind[first + 1]
            and not straddled[first + 1]
        ):
            big_blind_turn = 1
        if big_blind_turn == 0 or (big_blind_turn == 1 and small_blind[first]):
            turn = (big_blind_turn + 1) % dealt
            if straddled[first + turn]:  # the straddler acts last
                turn = (turn + 1) % dealt
            first_turn[h] = turn
    return first_turn


def _preflop_first_turn(players: _Participants) -> Int64Array:
    """Per hand, the turn of the player left of the big blind; -1 when the blind is unclear.

    The big blind is the first player clockwise from the button who posted one: the first
    player dealt (no small blind, or heads-up where the button posts the small blind) or the
    second when the first posted the small blind. Anywhere else a blind was missed or moved in
    a way the hand does not show, and the preflop order is not judged. After a straddle the
    player left of the straddler acts first.
    """
    return _preflop_first_turn_kernel(
        players.start, players.posted_small_blind, players.posted_big_blind, players.straddled
    )


MARK_NAMES = (
    "street_total",
    "bet_faced",
    "size_problem",
    "size_expected",
    "bet_number",
    "capped_with",
    "pot_maximum",
    "out_of_turn",
    "expected_turn",
)


def _replay(
    hands: pl.DataFrame,
    rules: pl.DataFrame,
    players: _Participants,
    seats: pl.DataFrame,
    actions: pl.DataFrame,
    kind_code: Int64Array,
    matched: MatchedActions,
    straddles: BoolArray,
) -> pl.DataFrame:
    """Run the compiled replay over every action; return the rows that broke a rule."""
    order = replay_order(actions, hands.height)
    action_hand = actions["hand_row"].to_numpy()
    seat_row = matched.seat_row
    turn = np.where(seat_row >= 0, players.turn_of_seat[np.maximum(seat_row, 0)], -1)
    if seats.height == 0:
        turn = np.full(actions.height, -1, dtype=np.int64)
    # Order is judged only where every actor has a seat and the button is known.
    orderable = hands["button_seat"].is_not_null().to_numpy().copy()
    orderable[np.unique(action_hand[turn < 0])] = False
    # Preflop the big blind is the bet to match, even when its poster is all-in for less.
    preflop_bet = np.where(
        rules["limit_code"].to_numpy() == FIXED_LIMIT,
        hands["small_bet"].fill_null(0).to_numpy(),
        hands["big_blind"].fill_null(0).to_numpy(),
    )
    # A straddle is the bet to match preflop.
    np.maximum.at(
        preflop_bet,
        action_hand[straddles],
        actions["amount"].fill_null(0).to_numpy()[straddles],
    )

    def ordered(values: np.ndarray) -> np.ndarray:
        return np.ascontiguousarray(values if order is None else values[order])

    outputs = _replay_kernel(
        ordered(action_hand),
        ordered(actions["street"].cast(pl.Int64).fill_null(-1).to_numpy()),
        ordered(kind_code),
        ordered(actions["amount"].fill_null(0).to_numpy()),
        ordered(actions["to_amount"].fill_null(-1).to_numpy()),
        ordered(actions["is_all_in"].fill_null(False).to_numpy()),
        ordered(turn),
        players.start,
        players.stack,
        rules["limit_code"].to_numpy(),
        hands["small_bet"].fill_null(0).to_numpy(),
        hands["big_bet"].fill_null(0).to_numpy(),
        hands["big_blind"].fill_null(0).to_numpy(),
        preflop_bet,
        rules["raise_cap"].fill_null(0).to_numpy(),
        rules["heads_up_uncapped"].fill_null(True).to_numpy(),
        _preflop_first_turn(players),
        orderable,
    )
    marks: dict[str, npt.NDArray[Any]] = dict(zip(MARK_NAMES, outputs, strict=True))
    flagged = np.flatnonzero(
        (marks["size_problem"] != SIZE_OK)
        | (marks["bet_number"] > 0)
        | (marks["pot_maximum"] >= 0)
        | marks["out_of_turn"]
    )
    # Only the few flagged rows get their text columns back.
    rows = flagged if order is None else order[flagged]
    hand = action_hand[rows]
    expected_turn = marks["expected_turn"][flagged]
    due = expected_turn >= 0
    due_seat_row = np.full(len(rows), -1, dtype=np.int64)
    due_seat_row[due] = players.seat_row[players.start[hand[due]] + expected_turn[due]]
    actor_seat_row = seat_row[rows]
    seat_player = seats["player"]
    seat_number = seats["seat"].cast(pl.Int64)

    def seat_column(values: pl.Series, seat_rows: np.ndarray, name: str) -> pl.Series:
        index = pl.Series(seat_rows, dtype=pl.Int64)
        # A null index gathers a null: the actor or the player due is not seated.
        index = pl.select(pl.when(index >= 0).then(index)).to_series()
        return values.gather(index).alias(name)

    return (
        actions[rows]
        .select("hand_row", "player", "kind", "amount", "street")
        .with_columns(
            site=hands["site"].gather(hand),
            hand_id=hands["hand_id"].gather(hand),
            raise_cap=rules["raise_cap"].gather(hand),
            actor_seat=seat_column(seat_number, actor_seat_row, "actor_seat"),
            due_player=seat_column(seat_player, due_seat_row, "due_player"),
            due_seat=seat_column(seat_number, due_seat_row, "due_seat"),
            **{name: pl.Series(name, values[flagged]) for name, values in marks.items()},
        )
    )


# -- the compiled replay ------------------------------------------------------------------------


@numba.njit(cache=True)
def _next_turn(
    start: int,
    count: int,
    first: int,
    folded: BoolArray,
    all_in: BoolArray,
    acted_ahead: BoolArray,
) -> int:
    """The first turn from ``start`` on whose player can act and has not already acted ahead."""
    for step in range(count):
        turn = (start + step) % count
        player = first + turn
        if not folded[player] and not all_in[player] and not acted_ahead[player]:
            return turn
    return -1


@numba.njit(cache=True)
def _replay_kernel(
    action_hand: Int64Array,
    street: Int64Array,
    kind: Int64Array,
    amount: Int64Array,
    to_amount: Int64Array,
    is_all_in: BoolArray,
    turn: Int64Array,
    player_start: Int64Array,
    stack: Int64Array,
    limit: Int64Array,
    small_bet: Int64Array,
    big_bet: Int64Array,
    big_blind: Int64Array,
    preflop_bet: Int64Array,
    raise_cap: Int64Array,
    heads_up_uncapped: BoolArray,
    preflop_first_turn: Int64Array,
    orderable: BoolArray,
) -> tuple[
    Int64Array,
    Int64Array,
    Int64Array,
    Int64Array,
    Int64Array,
    Int64Array,
    Int64Array,
    BoolArray,
    Int64Array,
]:
    """Replay every betting round and mark the actions that break a rule.

    Rows are actions sorted by hand and sequence; ``turn`` is the actor's place clockwise from
    the button among the hand's players (``player_start`` gives each hand's players).
    Returns, per row: the actor's street total after it; the bet faced before it (the
    street's high, preflop at least the big blind); the bet-size problem code and the amount
    that was due; the bet number when it broke the raise cap (else 0) and how many players
    were in when the street was capped (0 when the cap applies heads-up too); the pot-limit
    maximum when exceeded (else -1); whether the action was out of turn, and the turn of the
    player due to act then (-1 when nobody was).
    """
    rows = action_hand.shape[0]
    total_out = np.zeros(rows, dtype=np.int64)
    faced_out = np.zeros(rows, dtype=np.int64)
    size_problem = np.zeros(rows, dtype=np.int64)
    size_expected = np.zeros(rows, dtype=np.int64)
    bet_number_out = np.zeros(rows, dtype=np.int64)
    capped_with_out = np.zeros(rows, dtype=np.int64)
    pot_maximum_out = np.full(rows, -1, dtype=np.int64)
    expected_turn_out = np.full(rows, -1, dtype=np.int64)
    out_of_turn = np.zeros(rows, dtype=np.bool_)

    players = stack.shape[0]
    folded = np.zeros(players, dtype=np.bool_)
    all_in = np.zeros(players, dtype=np.bool_)
    acted_ahead = np.zeros(players, dtype=np.bool_)
    put_in = np.zeros(players, dtype=np.int64)
    street_total = np.zeros(players, dtype=np.int64)

    hand = -1
    current_street = -1
    first = 0
    count = 0
    pot = 0
    high = 0  # the street's bet to match
    level = 0  # fixed limit: the full-bet level reached, short all-ins left out (B3)
    bets = 0  # fixed limit: bets and raises counted toward the cap
    capped = False
    capped_with = 0  # players in when the street was capped
    minimum_raise = 0  # pot and no limit: the smallest increment a raise may add
    next_turn = 0  # where the search for the player to act starts
    for row in range(rows):
        if action_hand[row] != hand:
            hand = action_hand[row]
            first = player_start[hand]
            count = player_start[hand + 1] - first
            for player in range(first, first + count):
                folded[player] = False
                all_in[player] = False
                put_in[player] = 0
            pot = 0
            current_street = -1
        h = hand
        if street[row] != current_street:
            current_street = street[row]
            for player in range(first, first + count):
                street_total[player] = 0
                acted_ahead[player] = False
            preflop = current_street == 0
            high = preflop_bet[h] if preflop else 0
            level = high
            bets = 1 if preflop else 0
            capped = False
            capped_with = 0
            minimum_raise = big_blind[h]
            next_turn = preflop_first_turn[h] if preflop else 0
        if turn[row] < 0:
            continue
        player = first + turn[row]
        code = kind[row]
        unit = small_bet[h] if current_street <= 1 else big_bet[h]

        if code == UNCALLED_RETURN:
            pot -= amount[row]
            put_in[player] -= amount[row]
            continue
        if code == SHOW or code == MUCK or code < 0:
            continue
        if code == ANTE or code == POST_DEAD:
            pot += amount[row]
            put_in[player] += amount[row]
            if is_all_in[row] or put_in[player] >= stack[player]:
                all_in[player] = True
            continue

        own = street_total[player]
        new_total = own
        if code == POST_SB or code == POST_BB or code == CALL or code == BET or code == RAISE:
            new_total = to_amount[row] if to_amount[row] >= 0 else own + amount[row]
        goes_all_in = is_all_in[row] or put_in[player] + amount[row] >= stack[player]
        total_out[row] = new_total
        faced_out[row] = high

        voluntary = code == FOLD or code == CHECK or code == CALL or code == BET or code == RAISE
        if voluntary and orderable[h] and next_turn >= 0 and count > 0:
            expected = _next_turn(next_turn, count, first, folded, all_in, acted_ahead)
            if expected == turn[row]:
                # Players who acted ahead of their turn are passed over once (their action
                # stands), so a single out-of-turn action yields a single finding.
                for step in range(count):
                    passed = (next_turn + step) % count
                    if passed == expected:
                        break
                    acted_ahead[first + passed] = False
                next_turn = (expected + 1) % count
            else:
                out_of_turn[row] = True
                expected_turn_out[row] = expected
                acted_ahead[player] = True

        if code == CALL and new_total > high:
            size_problem[row] = SIZE_CALL_ABOVE_OWED
            size_expected[row] = max(high - own, 0)

        if (code == BET or code == RAISE) and new_total > high:
            players_in = 0
            for other in range(first, first + count):
                if not folded[other] and not all_in[other]:
                    players_in += 1
            # A fixed-limit hand whose bet sizes were not printed (OHH names none) is not judged.
            if limit[h] == FIXED_LIMIT and unit > 0:
                full = high + unit
                completed = level + unit
                counted = True
                if not goes_all_in:
                    if new_total != full and new_total != completed:
                        size_problem[row] = SIZE_NOT_ONE_BET
                        size_expected[row] = full
                else:
                    most = max(full, completed)
                    if new_total > most:
                        size_problem[row] = SIZE_ALL_IN_ABOVE_LIMIT
                        size_expected[row] = most
                    # Less than half a bet over the bet faced is not a raise (B3).
                    counted = new_total >= most or 2 * (new_total - high) >= unit
                if counted and raise_cap[h] > 0:
                    # Players in only ever decrease on a street: three in now means three in
                    # when the cap was reached, and once capped it stays capped (B2).
                    if bets >= raise_cap[h] and players_in >= 3 and not capped:
                        capped = True
                        capped_with = players_in
                    if bets + 1 > raise_cap[h] and (capped or not heads_up_uncapped[h]):
                        bet_number_out[row] = bets + 1
                        capped_with_out[row] = capped_with
                    if bets + 1 >= raise_cap[h] and players_in >= 3 and not capped:
                        capped = True
                        capped_with = players_in
                if counted:
                    bets += 1
                    level = max(level + unit, new_total)
            else:
                if limit[h] == POT_LIMIT:
                    # B5: the bet to match, plus the pot after calling it.
                    maximum = high + pot + (high - own)
                    if new_total > maximum:
                        pot_maximum_out[row] = maximum
                if limit[h] == POT_LIMIT or limit[h] == NO_LIMIT:
                    increment = new_total - high
                    # A raise to the most any other player still in can put in is a raise
                    # nobody can be short of, whatever its size (PokerNow caps a raise there).
                    covering = -1
                    for other in range(first, first + count):
                        if other != player and not folded[other] and not all_in[other]:
                            covering = max(
                                covering, street_total[other] + stack[other] - put_in[other]
                            )
                    covers = covering >= 0 and new_total == covering
                    if not goes_all_in and not covers and increment < minimum_raise:
                        size_problem[row] = (
                            SIZE_BET_BELOW_MINIMUM if high == 0 else SIZE_RAISE_BELOW_MINIMUM
                        )
                        size_expected[row] = high + minimum_raise
                    # A short all-in leaves the minimum where it was (B4).
                    minimum_raise = max(minimum_raise, increment)

        if code == FOLD:
            folded[player] = True
        added = amount[row] if code != FOLD and code != CHECK else 0
        pot += added
        put_in[player] += added
        street_total[player] = new_total
        high = max(high, new_total)
        if goes_all_in and added > 0:
            all_in[player] = True
    return (
        total_out,
        faced_out,
        size_problem,
        size_expected,
        bet_number_out,
        capped_with_out,
        pot_maximum_out,
        out_of_turn,
        expected_turn_out,
    )


# -- findings -----------------------------------------------------------------------------------

STREET = pl.col("street").cast(pl.Int64).replace_strict(
    dict(enumerate(STREET_NAMES)), default="street ?", return_dtype=pl.String
)
TO_TOTAL = pl.col("street_total").cast(pl.String)


def _finding(kind: str, expected: pl.Expr, recorded: pl.Expr, detail: pl.Expr) -> list[pl.Expr]:
    return [
        *[pl.col(name) for name in HAND_KEY],
        pl.col("player"),
        pl.lit(kind).alias("kind"),
        expected.cast(pl.Int64).alias("expected"),
        recorded.cast(pl.Int64).alias("recorded"),
        detail.alias("detail"),
    ]


def _blind_findings(
    hands: pl.DataFrame,
    rules: pl.DataFrame,
    actions: pl.DataFrame,
    kind_code: Int64Array,
    straddles: BoolArray,
) -> pl.DataFrame:
    """Posted blinds against the stakes (B1, B1x); a short all-in post and a straddle are
    allowed."""
    post_rows = np.flatnonzero(((kind_code == POST_SB) | (kind_code == POST_BB)) & ~straddles)
    hand = actions["hand_row"].to_numpy()[post_rows]
    posts = (
        actions[post_rows]
        .select("hand_row", "player", "kind", "amount", "is_all_in")
        .with_columns(
            is_fixed=rules["limit_code"].gather(hand) == FIXED_LIMIT,
            small_blind=hands["small_blind"].gather(hand),
            big_blind=hands["big_blind"].gather(hand),
            small_bet=hands["small_bet"].gather(hand),
        )
    )
    is_fixed = pl.col("is_fixed")
    is_small = pl.col("kind") == "post_sb"
    # Fixed limit prints the limits, not the blinds: the big blind is the small bet, the small
    # blind anything up to it (B1x).
    stake = (
        pl.when(is_fixed)
        .then(pl.col("small_bet"))
        .when(is_small)
        .then(pl.col("small_blind"))
        .otherwise(pl.col("big_blind"))
    )
    short_all_in = pl.col("is_all_in").fill_null(False) & (pl.col("amount") < stake)
    wrong = pl.when(is_fixed & is_small).then(pl.col("amount") > stake).otherwise(
        (pl.col("amount") != stake) & ~short_all_in
    )
    blind_name = pl.when(is_small).then(pl.lit("small blind")).otherwise(pl.lit("big blind"))
    detail = pl.when(is_fixed & is_small).then(
        pl.lit("small blind posted ")
        + pl.col("amount").cast(pl.String)
        + " is more than the big blind "
        + stake.cast(pl.String)
    ).otherwise(
        blind_name
        + " posted "
        + pl.col("amount").cast(pl.String)
        + ", the stakes say "
        + stake.cast(pl.String)
    )
    return (
        posts.filter(stake.is_not_null() & wrong.fill_null(False))
        .with_columns(
            site=pl.lit(hands["site"]).gather(pl.col("hand_row")),
            hand_id=pl.lit(hands["hand_id"]).gather(pl.col("hand_row")),
        )
        .select(_finding("blinds", stake, pl.col("amount"), detail))
    )


def _size_findings(marks: pl.DataFrame) -> pl.DataFrame:
    problem = pl.col("size_problem")
    action = pl.col("kind") + " to " + TO_TOTAL
    detail = (
        pl.when(problem == SIZE_NOT_ONE_BET)
        .then(
            STREET
            + ": "
            + action
            + " is not one fixed-limit bet over "
            + pl.col("bet_faced").cast(pl.String)
            + " (to "
            + pl.col("size_expected").cast(pl.String)
            + ")"
        )
        .when(problem == SIZE_ALL_IN_ABOVE_LIMIT)
        .then(
            STREET
            + ": all-in "
            + action
            + " exceeds the fixed-limit maximum "
            + pl.col("size_expected").cast(pl.String)
        )
        .when(problem == SIZE_CALL_ABOVE_OWED)
        .then(
            STREET
            + ": call of "
            + pl.col("amount").cast(pl.String)
            + " is more than the "
            + pl.col("size_expected").cast(pl.String)
            + " owed"
        )
        .when(problem == SIZE_RAISE_BELOW_MINIMUM)
        .then(
            STREET
            + ": raise to "
            + TO_TOTAL
            + " is below the minimum raise to "
            + pl.col("size_expected").cast(pl.String)
        )
        .otherwise(
            STREET
            + ": bet "
            + TO_TOTAL
            + " is below the minimum bet "
            + pl.col("size_expected").cast(pl.String)
        )
    )
    recorded = pl.when(problem == SIZE_CALL_ABOVE_OWED).then(pl.col("amount")).otherwise(
        pl.col("street_total")
    )
    return marks.filter(problem != SIZE_OK).select(
        _finding("bet_size", pl.col("size_expected"), recorded, detail)
    )


def _cap_findings(marks: pl.DataFrame) -> pl.DataFrame:
    detail = (
        STREET
        + ": "
        + pl.col("kind")
        + " to "
        + TO_TOTAL
        + " is bet "
        + pl.col("bet_number").cast(pl.String)
        + ", over the cap of "
        + pl.col("raise_cap").cast(pl.String)
        + pl.when(pl.col("capped_with") > 0)
        .then(" reached with " + pl.col("capped_with").cast(pl.String) + " players in")
        .otherwise(pl.lit(", which this hand's profile does not lift heads-up"))
    )
    return marks.filter(pl.col("bet_number") > 0).select(
        _finding("raise_cap", pl.col("raise_cap"), pl.col("bet_number"), detail)
    )


def _pot_limit_findings(marks: pl.DataFrame) -> pl.DataFrame:
    detail = (
        STREET
        + ": "
        + pl.col("kind")
        + " to "
        + TO_TOTAL
        + " exceeds the pot-limit maximum "
        + pl.col("pot_maximum").cast(pl.String)
    )
    return marks.filter(pl.col("pot_maximum") >= 0).select(
        _finding("pot_limit", pl.col("pot_maximum"), pl.col("street_total"), detail)
    )


def _order_findings(marks: pl.DataFrame) -> pl.DataFrame:
    detail = (
        STREET
        + ": "
        + pl.col("player")
        + " (seat "
        + pl.col("actor_seat").cast(pl.String)
        + ") "
        + pl.col("kind")
        + pl.when(pl.col("due_player").is_not_null())
        .then(
            " before "
            + pl.col("due_player")
            + " (seat "
            + pl.col("due_seat").cast(pl.String)
            + "), whose turn it was"
        )
        .otherwise(pl.lit(" when nobody was due to act"))
    )
    return marks.filter(pl.col("out_of_turn")).select(
        _finding("action_order", pl.col("due_seat"), pl.col("actor_seat"), detail)
    )
