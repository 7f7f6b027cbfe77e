"""Scalar rules reference: who should be paid what, one hand at a time.

A plain, per-hand implementation of the payout rules of ``reference/payout-rules.md``
(P1-P9, K1-K4), written to be read rather than to be fast. The vectorised audit is written
independently and the two are tested against each other; the generator settles the hands it
invents with `settle`. Hand strength comes from `pipeline.evaluator`; everything else (pots,
rake, halves, ties, odd units, boards) is here.

The steps of `settle`:

1. `build_pots`: one pot per contribution level of the players still in the hand; chips of
   folded players are dead money in every level they reached (P1).
2. Rake: computed with `compute_rake` from the profile, or the recorded figure (audit mode),
   taken from the main pot before anything is split (K1-K4).
3. Each pot on its own, never merged with another (P1, D3): a pot with one eligible player
   goes to them whole; otherwise it is split evenly across the boards, the spare unit to the
   first board (P8), and on each board halved when one of *its* eligible players has an
   eight-or-better low (P2), the odd unit to the high half (P4), else scooped by the best high
   (P3). Tied winners of a half share it, the spare units one each clockwise from the button
   (P5, P7); the same players winning both halves share the whole pot instead (P6).

Amounts are integers in the table's minor unit and are split in multiples of the profile's
``odd_chip_unit`` (P9).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl

from parsers.games import game_named
from pipeline.audit_outputs import PAYOUT_SCHEMA
from pipeline.profiles import PROFILES, RakeRule, SiteProfile

__all__ = [
    "HALVES",
    "Contender",
    "Payout",
    "Pot",
    "Settlement",
    "UnevaluableHand",
    "build_pots",
    "clockwise_order",
    "compute_rake",
    "settle",
    "split_evenly",
    "split_high_low",
]

HALVES = ("high", "low", "scoop")
HOLE_CARD_COUNT = 4
BOARD_CARD_COUNT = 5
CARD_COUNT = 52
BASIS_POINTS = 10_000


class UnevaluableHand(ValueError):
    """A contested pot needs the hand of a player whose hole cards are unknown."""

    def __init__(self, player: str, pot_index: int) -> None:
        super().__init__(
            f"cannot settle pot {pot_index}: the hole cards of {player!r}, who is eligible "
            "for it, are unknown"
        )
        self.player = player
        self.pot_index = pot_index


@dataclass(frozen=True, slots=True)
class Contender:
    """A player dealt into the hand, as far as paying the pots is concerned.

    Attributes
    ----------
    seat
        Seat number (the button and the odd-unit order are in seats).
    player
        Player name, unique within the hand.
    put_in
        Chips committed over the whole hand after uncalled bets were returned: blinds, antes
        and dead money included.
    folded
        Whether the player folded (their chips stay in the pots, they cannot win).
    hole_cards
        The player's hole cards as card codes (``rank * 4 + suit``), four in Omaha (five in
        5-card Omaha and Courchevel: the best hand then uses two of the five); None if unknown.
    dead
        The part of ``put_in`` that is a dead blind (a missed small blind posted on return):
        no part of the player's bet, it goes to the main pot.
    """

    seat: int
    player: str
    put_in: int
    folded: bool
    hole_cards: tuple[int, ...] | None
    dead: int = 0


@dataclass(frozen=True, slots=True)
class Pot:
    """A main or side pot.

    Attributes
    ----------
    index
        0 for the main pot, then 1, 2, .. for the side pots in increasing contribution level.
    amount
        Chips in the pot (after rake, in a `Settlement`).
    eligible
        Players who did not fold and reached this pot's level, in seat order.
    """

    index: int
    amount: int
    eligible: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Payout:
    """One payment the rules call for.

    Attributes
    ----------
    pot_index
        The pot paid from.
    board_index
        0, or 1 for the second board of a hand run twice.
    half
        ``"high"`` or ``"low"``; ``"scoop"`` for a pot (or a board's share of it) that was not
        halved: no qualifying low, a single eligible player, or the same players winning both
        halves (P6).
    player
        Who is paid.
    amount
        How much, in minor units (never zero).
    """

    pot_index: int
    board_index: int
    half: str
    player: str
    amount: int


@dataclass(frozen=True, slots=True)
class Settlement:
    """Everything `settle` decided about one hand.

    Attributes
    ----------
    pots
        The pots after rake, main pot first.
    rake
        Rake taken, in minor units.
    payouts
        In a deterministic order: pot, board, half (high before low), then clockwise from
        the button.
    """

    pots: tuple[Pot, ...]
    rake: int
    payouts: tuple[Payout, ...]

    def totals(self) -> dict[str, int]:
        """Amount paid to each player over all pots, boards and halves."""
        totals: dict[str, int] = {}
        for payout in self.payouts:
            totals[payout.player] = totals.get(payout.player, 0) + payout.amount
        return totals


# -- seats and splitting ----------------------------------------------------------------------


def clockwise_order(seats: Iterable[int], button_seat: int) -> list[int]:
    """Seats in clockwise order from the button: the first seat left of the button first.

    The button itself (if dealt in) comes last.

    Examples
    --------
    >>> clockwise_order([1, 2, 5, 6, 9], button_seat=5)
    [6, 9, 1, 2, 5]
    """
    return sorted(seats, key=lambda seat: (seat <= button_seat, seat))


def split_evenly(amount: int, shares: int, unit: int = 1) -> list[int]:
    """Split ``amount`` into ``shares`` parts in multiples of ``unit``, spares to the first.

    Every part gets the same whole number of units; the units left over go one each to the
    first parts (P5: "no player may receive more than one odd chip"). When ``amount`` is not
    itself a multiple of ``unit`` (a pot already raked in cents at a table splitting in nickels),
    the fraction of a unit goes to the first part as well.

    Examples
    --------
    >>> split_evenly(107, 3)
    [36, 36, 35]
    >>> split_evenly(775, 2, unit=5)
    [390, 385]
    """
    if shares < 1:
        raise ValueError(f"cannot split into {shares} shares")
    if amount < 0 or unit < 1:
        raise ValueError(f"cannot split amount {amount} in units of {unit}")
    whole_units, fraction = divmod(amount, unit)
    units_each, spare_units = divmod(whole_units, shares)
    parts = [
        units_each * unit + (unit if position < spare_units else 0) for position in range(shares)
    ]
    parts[0] += fraction
    return parts


def split_high_low(amount: int, unit: int = 1) -> tuple[int, int]:
    """Halve a pot: the high half gets the odd unit (P4).

    Examples
    --------
    >>> split_high_low(39)
    (20, 19)
    """
    high, low = split_evenly(amount, 2, unit)
    return high, low


# -- pots and rake ----------------------------------------------------------------------------


def _check_contenders(contenders: Sequence[Contender]) -> None:
    players = [contender.player for contender in contenders]
    if len(set(players)) != len(players):
        raise ValueError(f"a player appears twice among the contenders: {players}")
    seats = [contender.seat for contender in contenders]
    if len(set(seats)) != len(seats):
        raise ValueError(f"a seat appears twice among the contenders: {seats}")
    for contender in contenders:
        if contender.put_in < 0:
            raise ValueError(f"{contender.player!r} put in a negative amount ({contender.put_in})")
        if not 0 <= contender.dead <= contender.put_in:
            raise ValueError(f"{contender.player!r}: dead blind {contender.dead} not within put_in")


def build_pots(contenders: Sequence[Contender]) -> list[Pot]:
    """Build the main and side pots from what each player put in, before rake.

    Each distinct amount put in by a player who did not fold closes a pot: the pot holds
    every player's chips between the previous level and this one, folded players' included
    (dead money), and only the players who did not fold and reached the level may win it.
    Chips a folded player put in above the highest such level (a dead blind, say) go to the
    last pot, the only one left for them. Pots are never merged (P1).

    Examples
    --------
    >>> pots = build_pots([
    ...     Contender(1, "short", 100, False, None),
    ...     Contender(2, "deep", 300, False, None),
    ...     Contender(3, "caller", 300, False, None),
    ...     Contender(4, "folder", 150, True, None),
    ... ])
    >>> [(pot.amount, pot.eligible) for pot in pots]
    [(400, ('short', 'deep', 'caller')), (450, ('deep', 'caller'))]
    """
    _check_contenders(contenders)
    live = sorted((c for c in contenders if not c.folded), key=lambda c: c.seat)
    if not live:
        raise ValueError("every contender folded: nobody can win the pot")
    total = sum(contender.put_in for contender in contenders)
    if total == 0:
        return []
    # A live player who put nothing in still wins a pot of dead money when nobody else is
    # left, so an all-zero hand gets one level at 0 holding everything.
    # A dead blind is no part of its poster's bet: levels come from the live chips, and the
    # dead ones go to the main pot.
    bet = {c.player: c.put_in - c.dead for c in contenders}
    levels = sorted({bet[c.player] for c in live if bet[c.player] > 0}) or [0]
    pots: list[Pot] = []
    previous = 0
    for index, level in enumerate(levels):
        amount = sum(max(0, min(bet[c.player], level) - previous) for c in contenders)
        if index == 0:
            amount += sum(c.dead for c in contenders)
        if index == len(levels) - 1:
            amount += sum(max(0, bet[c.player] - level) for c in contenders)
        eligible = tuple(c.player for c in live if bet[c.player] >= level)
        pots.append(Pot(index=index, amount=amount, eligible=eligible))
        previous = level
    return pots


def _round_half_even(numerator: int, denominator: int) -> int:
    quotient, remainder = divmod(numerator, denominator)
    if 2 * remainder > denominator or (2 * remainder == denominator and quotient % 2 == 1):
        quotient += 1
    return quotient


def compute_rake(total_pot: int, players_dealt: int, saw_flop: bool, rule: RakeRule | None) -> int:
    """Rake a site takes from a pot of ``total_pot`` (payout-rules.md K1-K3).

    Parameters
    ----------
    total_pot
        All chips put in, after uncalled bets were returned.
    players_dealt
        Players dealt into the hand (not merely seated): the caps depend on it (K2).
    saw_flop
        Whether the hand went past the first betting round; no flop, no drop (K1).
    rule
        The schedule; None (tournaments, unknown schedules) takes no rake.

    Examples
    --------
    >>> stars_2009 = RakeRule(500, ((2, 50), (3, 200)), rounding="increment", increment=5)
    >>> compute_rake(485, 5, True, stars_2009)  # 5 cents per full dollar
    20
    >>> compute_rake(97, 5, True, RakeRule(350, ((2, 30),)))  # 3.5 % of 97 = 3.395
    3
    """
    if total_pot < 0:
        raise ValueError(f"total_pot must be >= 0, got {total_pot}")
    if rule is None or (rule.no_flop_no_drop and not saw_flop):
        return 0
    scaled = total_pot * rule.percent_basis_points
    if rule.rounding == "half_even":
        rake = _round_half_even(scaled, BASIS_POINTS)
    elif rule.rounding == "floor":
        rake = scaled // BASIS_POINTS
    else:
        # One increment per full (increment / percent) of pot: 5 cents per full dollar at 5 %.
        rake = rule.increment * (scaled // (rule.increment * BASIS_POINTS))
    cap = rule.cap_for(players_dealt)
    return rake if cap is None else min(rake, cap)


def _take_rake(pots: Sequence[Pot], rake: int) -> list[Pot]:
    """Take the rake from the main pot (K4); from the next pots only if the main pot is short."""
    remaining = rake
    raked = []
    for pot in pots:
        taken = min(remaining, pot.amount)
        remaining -= taken
        raked.append(Pot(index=pot.index, amount=pot.amount - taken, eligible=pot.eligible))
    return raked


# -- hand strength ----------------------------------------------------------------------------


Strength = tuple[int, int]  # (high, low) as the evaluator returns them; low 0 = no low


def _check_cards(contenders: Sequence[Contender], boards: Sequence[Sequence[int]]) -> None:
    for contender in contenders:
        if contender.hole_cards is not None and len(contender.hole_cards) < HOLE_CARD_COUNT:
            raise ValueError(
                f"{contender.player!r} has {len(contender.hole_cards)} hole cards, "
                f"at least {HOLE_CARD_COUNT} are needed"
            )
    known = [card for c in contenders if c.hole_cards is not None for card in c.hole_cards]
    for board_index, board in enumerate(boards):
        cards = [*known, *board]
        if any(not 0 <= card < CARD_COUNT for card in cards):
            raise ValueError(f"a card code is not in 0..{CARD_COUNT - 1} (board {board_index})")
        if len(set(cards)) != len(cards):
            raise ValueError(f"a card is dealt twice (hole cards and board {board_index})")


def _evaluate_hands(
    needed: Sequence[tuple[Contender, int]], boards: Sequence[Sequence[int]]
) -> dict[tuple[str, int], Strength]:
    """Best high and low of each (player, board index), with one call to the evaluator.

    Hands with more than four hole cards (5-card Omaha, Courchevel) are evaluated as their
    four-card subsets: every pair of hole cards lies in one of them, so the best of the
    subsets is the best hand using exactly two hole cards.
    """
    from pipeline.evaluator import evaluate  # numba start-up only when a pot is contested

    rows: list[tuple[str, int]] = []
    holes: list[tuple[int, ...]] = []
    row_boards: list[Sequence[int]] = []
    for contender, board_index in needed:
        assert contender.hole_cards is not None
        for subset in itertools.combinations(contender.hole_cards, HOLE_CARD_COUNT):
            rows.append((contender.player, board_index))
            holes.append(subset)
            row_boards.append(boards[board_index])
    high, low = evaluate(np.array(holes, dtype=np.uint8), np.array(row_boards, dtype=np.uint8))
    strengths: dict[tuple[str, int], Strength] = {}
    for key, row_high, row_low in zip(rows, high.tolist(), low.tolist(), strict=True):
        best_high, best_low = strengths.get(key, (0, 0))
        strengths[key] = (max(best_high, row_high), max(best_low, row_low))
    return strengths


# -- settling ---------------------------------------------------------------------------------


def _shares(amount: int, winners: Sequence[str], unit: int) -> list[tuple[str, int]]:
    """Equal shares of ``amount`` for ``winners`` (already clockwise from the button).

    A winner whose share is nothing (fewer units than winners) is left out.
    """
    parts = split_evenly(amount, len(winners), unit)
    return [(player, part) for player, part in zip(winners, parts, strict=True) if part]


def _split_board(
    pot: Pot,
    board_index: int,
    amount: int,
    clockwise: Sequence[str],
    strengths: Mapping[tuple[str, int], Strength],
    unit: int,
) -> list[Payout]:
    """One board's share of a contested pot, halved or scooped among the pot's players."""
    players = [player for player in clockwise if player in pot.eligible]
    highs = {player: strengths[(player, board_index)][0] for player in players}
    lows = {player: strengths[(player, board_index)][1] for player in players}
    high_winners = [player for player in players if highs[player] == max(highs.values())]
    low_winners = [player for player in players if lows[player] == max(lows.values())]
    if max(lows.values()) == 0:
        # Nobody in *this* pot has a qualifying low, whatever other pots hold (P2, P3, D1).
        halves = [("scoop", _shares(amount, high_winners, unit))]
    elif len(high_winners) > 1 and high_winners == low_winners:
        # The same players tie both halves: the whole pot is divided among them, not half by
        # half, so nobody collects two odd units (P6).
        halves = [("scoop", _shares(amount, high_winners, unit))]
    else:
        high_half, low_half = split_high_low(amount, unit)
        halves = [
            ("high", _shares(high_half, high_winners, unit)),
            ("low", _shares(low_half, low_winners, unit)),
        ]
    return [
        Payout(pot.index, board_index, half, player, part)
        for half, shares in halves
        for player, part in shares
    ]


def settle(
    contenders: Sequence[Contender],
    boards: Sequence[Sequence[int]],
    button_seat: int,
    *,
    rake: int | None = None,
    players_dealt: int | None = None,
    saw_flop: bool = True,
    profile: SiteProfile = PROFILES["pokerstars"],
    pot_rakes: Sequence[int] | None = None,
) -> Settlement:
    """Pay every pot of a hand the way the rules say.

    Parameters
    ----------
    contenders
        Every player who put chips in or is still in the hand.
    boards
        The board (five card codes), or two for a hand run twice. A hand decided without a
        showdown may pass a short board, or none.
    button_seat
        The button's seat: odd units go clockwise from it.
    rake
        None: compute it with `compute_rake` from ``profile.rake``. An int: the rake the site
        recorded (audit mode), taken as given.
    players_dealt
        Players dealt into the hand, for the rake caps; default: ``len(contenders)``.
    saw_flop
        Whether the hand reached the flop (no flop, no drop).
    profile
        Site parameters: the split unit and the rake schedule.
    pot_rakes
        The rake each pot gives, main pot first, where the site's way of taking it is known
        (`pipeline.payouts.running_total_rake`, `printed_pot_rake`); default: the main pot
        first (K4).

    Returns
    -------
    Settlement
        The pots after rake, the rake, and the payouts.

    Raises
    ------
    UnevaluableHand
        A pot with two or more eligible players needs the hand of a player whose hole cards
        are None.
    ValueError
        Inconsistent input: a player or seat twice, a negative amount, a rake larger than the
        pot, a contested pot without a full board, a card dealt twice.

    Examples
    --------
    >>> from pipeline.evaluator import parse_cards
    >>> def hand(text):
    ...     return tuple(int(card) for card in parse_cards(text))
    >>> settlement = settle(
    ...     [
    ...         Contender(1, "alice", 50, False, hand("As 2s Kd Kh")),
    ...         Contender(2, "bob", 50, False, hand("Qc Qd 9s 9h")),
    ...     ],
    ...     [hand("3c 4d 5h Kc Jd")],
    ...     button_seat=2,
    ...     rake=0,
    ... )
    >>> [(p.half, p.player, p.amount) for p in settlement.payouts]
    [('high', 'alice', 50), ('low', 'alice', 50)]
    """
    _check_contenders(contenders)
    full_boards = [tuple(board) for board in boards]
    _check_cards(contenders, full_boards)
    unit = profile.odd_chip_unit
    total = sum(contender.put_in for contender in contenders)
    if rake is None:
        dealt = len(contenders) if players_dealt is None else players_dealt
        rake = compute_rake(total, dealt, saw_flop, profile.rake)
    if not 0 <= rake <= total:
        raise ValueError(f"rake {rake} is not between 0 and the pot ({total})")
    pots = build_pots(contenders)
    if pot_rakes is None:
        pots = _take_rake(pots, rake)
    else:
        if len(pot_rakes) != len(pots) or sum(pot_rakes) != rake:
            raise ValueError(f"pot rakes {list(pot_rakes)} do not share the rake {rake} by pot")
        pots = [
            Pot(index=pot.index, amount=pot.amount - taken, eligible=pot.eligible)
            for pot, taken in zip(pots, pot_rakes, strict=True)
        ]

    by_player = {contender.player: contender for contender in contenders}
    by_seat = {contender.seat: contender.player for contender in contenders}
    clockwise = [by_seat[seat] for seat in clockwise_order(by_seat, button_seat)]

    contested = [pot for pot in pots if len(pot.eligible) > 1 and pot.amount > 0]
    needed: list[tuple[Contender, int]] = []
    for pot in contested:
        if not full_boards or any(len(board) != BOARD_CARD_COUNT for board in full_boards):
            raise ValueError(
                f"pot {pot.index} is contested but the boards are not complete: {full_boards}"
            )
        for player in pot.eligible:
            if by_player[player].hole_cards is None:
                raise UnevaluableHand(player, pot.index)
    for player in dict.fromkeys(player for pot in contested for player in pot.eligible):
        needed.extend((by_player[player], board_index) for board_index in range(len(full_boards)))
    strengths = _evaluate_hands(needed, full_boards) if needed else {}

    payouts: list[Payout] = []
    for pot in pots:
        if pot.amount == 0:
            continue
        if len(pot.eligible) == 1:
            payouts.append(Payout(pot.index, 0, "scoop", pot.eligible[0], pot.amount))
            continue
        board_amounts = split_evenly(pot.amount, len(full_boards), unit)  # P8
        for board_index, board_amount in enumerate(board_amounts):
            payouts.extend(_split_board(pot, board_index, board_amount, clockwise, strengths, unit))
    return Settlement(pots=tuple(pots), rake=rake, payouts=tuple(payouts))


PUT_IN_KINDS = ("post_sb", "post_bb", "post_dead", "ante", "call", "bet", "raise")


def settle_tables(
    hands: pl.DataFrame, seats: pl.DataFrame, actions: pl.DataFrame
) -> pl.DataFrame:
    """Settle every hand of canonical tables one at a time: the scalar reference of the audit.

    Contributions come from the actions (chips posted, called, bet and raised less uncalled
    returns); a player who folded or mucked at showdown is out; the recorded rake is used
    (audit mode). Returns one row per payout (site, hand_id, pot_index, board_index, half,
    player, amount); a hand that cannot be evaluated is left out.
    """
    by_hand_seats = seats.partition_by("site", "hand_id", as_dict=True)
    by_hand_actions = actions.partition_by("site", "hand_id", as_dict=True)
    rows: list[tuple[str, str, int, int, str, str, int]] = []
    for hand in hands.iter_rows(named=True):
        key = (hand["site"], hand["hand_id"])
        hand_actions = by_hand_actions.get(key)
        hand_seats = by_hand_seats.get(key)
        if hand_actions is None or hand_seats is None:
            continue
        put_in: dict[str, int] = {}
        dead: dict[str, int] = {}
        out: set[str] = set()
        for player, kind, amount in hand_actions.select("player", "kind", "amount").iter_rows():
            if kind in PUT_IN_KINDS:
                put_in[player] = put_in.get(player, 0) + amount
                if kind == "post_dead":
                    dead[player] = dead.get(player, 0) + amount
            elif kind == "uncalled_return":
                put_in[player] = put_in.get(player, 0) - amount
            elif kind in ("fold", "muck"):
                out.add(player)
        game = game_named(hand.get("game"))
        dealt = game.hole_cards
        contenders = [
            Contender(
                seat,
                player,
                put_in.get(player, 0),
                player in out,
                None if cards is None or len(cards) != dealt else tuple(cards),
                dead.get(player, 0),
            )
            for seat, player, cards in hand_seats.select("seat", "player", "hole_cards").iter_rows()
        ]
        boards = [hand["board"]] + ([hand["board2"]] if hand["board2"] else [])
        try:
            settlement = settle(
                contenders,
                boards,
                hand["button_seat"],
                rake=hand["rake"] or 0,
                players_dealt=hand["players_dealt"],
                # Courchevel's board holds its exposed card before the flop.
                saw_flop=len(hand["board"]) > game.exposed_before_flop,
            )
        except UnevaluableHand:
            continue
        rows.extend(
            (*key, payout.pot_index, payout.board_index, payout.half, payout.player, payout.amount)
            for payout in settlement.payouts
        )
    return pl.DataFrame(
        rows,
        schema=PAYOUT_SCHEMA,
        orient="row",
    )
