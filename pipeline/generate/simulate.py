"""Table sessions of Omaha Hi/Lo: seating, the moving button, blinds, betting and settlement.

A session is a run of consecutive hands at one table: stacks carry over (following what the text
records, faults included), the button moves to the next occupied seat on its left every hand,
players come and go or sit out (cash) or are knocked out (tournaments). Each hand's cards come
from a `Dealer` (dealt and evaluated in bulk), its betting from the compiled kernel
(`pipeline.generate.betting`: antes and blinds, four betting rounds under the table's limit,
uncalled bets, the run-out), its payouts from the simulator's own settlement
(`pipeline.generate.showdown`), and a share of hands gets a deliberate fault
(`pipeline.generate.faults`). Decisions are random but plausible: each player has a looseness and
an aggression, and a strength read from the final values of the hand (players "know" roughly how
good their hand will be, so showdowns are not a coin flip).

Players are referred to by their *ring index*: the players dealt in, clockwise from the seat
left of the button (heads-up, ring index 0 is the big blind and 1 the button, who posts the small
blind).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from pipeline.generate.betting import (
    ACTION_FIELDS,
    LIMIT_CODES,
    MAX_ACTIONS,
    UniformBuffer,
    play_packed,
)
from parsers.games import OMAHA_HI_LO, Game
from pipeline.generate.dealing import HOLES, Dealer
from pipeline.generate.faults import FAULT_KINDS, FaultContext, choose_fault
from pipeline.generate.money import cash_money
from pipeline.generate.showdown import (
    Pot,
    Share,
    build_pots,
    running_total_of,
    split_pots,
    take_rake,
)
from pipeline.generate.stakes import (
    BLIND_LEVELS,
    CASH_SCALE,
    EDT_OFFSET,
    FIXED_LIMIT_LEVELS,
    CashRake,
    Stakes,
)
from pipeline.rake_schedules import ScheduleRule

__all__ = [
    "HandOutcome",
    "HandRecord",
    "SeatLine",
    "Session",
    "SessionPlan",
    "Sitter",
    "TableInfo",
    "play_betting",
]

# The time from one hand to the next: 14 to 93 seconds (built once: timedelta() takes longer
# than a table lookup).
_PAUSES = tuple(timedelta(seconds=seconds) for seconds in range(14, 94))
# Share of hands where everybody but the hero plays loose and aggressive, so that multi-way
# all-ins (and, with varied stacks, several side pots) happen often. Fewer in tournaments, where
# an all-in knocks players out for good.
FEVER_SHARE = 0.07
TOURNAMENT_FEVER_SHARE = 0.025


@dataclass(frozen=True, slots=True)
class TableInfo:
    """What stays the same for every hand of a session."""

    name: str
    max_seats: int
    limit_type: str
    is_tournament: bool
    game: Game = OMAHA_HI_LO
    tournament_id: int = 0
    buy_in: str = ""
    rake: CashRake | None = None  # the rake schedule at a cash table; None: no rake
    split_unit: int = 1  # the smallest unit a pot is split in (P9): 5 cents at Full Tilt
    # Fixed limit: the cap of 4 bets a street is lifted when a cash pot gets heads-up before
    # it is reached (the site's rule, `pipeline.generate.sites`; never in tournaments).
    heads_up_uncapped: bool = False


@dataclass(slots=True)
class Sitter:
    """A player seated at the table (mutable across the session)."""

    seat: int
    name: str
    stack: int
    looseness: float
    aggression: float
    is_hero: bool = False
    sitting_out: int = 0  # hands left sitting out
    newcomer: bool = False  # posts a big blind in the first hand


class SeatLine(NamedTuple):
    """A ``Seat N: name (stack in chips)`` line."""

    seat: int
    name: str
    stack: int
    sitting_out: bool


@dataclass(slots=True)
class HandRecord:
    """Everything the writer and the truth tables need about one simulated hand.

    Read-only by convention, like its per-player sequences (lists in ring order): a frozen
    dataclass sets each of its thirty-odd fields through ``object.__setattr__``, which made
    creating a record cost more than several steps of simulating the hand.

    ``shares``/``rake`` are what the rules say; ``recorded_shares``/``recorded_rake`` are what
    the text says (they differ only in a faulted hand). ``rake_rule`` is the schedule rule the
    hand was raked by (None: no rule, no rake); its ``from`` says which pots give the rake.
    """

    hand_id: int
    started_at: datetime
    table: TableInfo
    stakes: Stakes
    level: int
    button_seat: int
    seats: Sequence[SeatLine]
    players: Sequence[str]
    player_seats: Sequence[int]
    hero: int
    holes: Sequence[Sequence[int]]
    board: Sequence[int]
    board_shown: int
    small_blind_player: int
    big_blind_player: int
    actions: Sequence[list[int]]  # street, player, kind, amount, to_amount, all_in, raised_by
    put_in: Sequence[int]
    fold_street: Sequence[int]
    showdown: bool
    show_order: Sequence[int]
    mucked: Sequence[bool]
    high: Sequence[int]
    low: Sequence[int]
    pots: Sequence[Pot]
    rake: int
    shares: Sequence[Share]
    recorded_rake: int
    recorded_shares: Sequence[Share]
    won: Sequence[int]  # what each player collected, as the text records it
    says_no_show: bool  # an uncontested winner prints "doesn't show hand"
    preflop_flags: Sequence[int]  # bit 1: VPIP, bit 2: PFR (see `HandOutcome`)
    closing_lines: Sequence[str] = ()
    description_overrides: Sequence[tuple[int, str, str]] = ()
    fault: tuple[str, int, str] | None = None  # kind, ring index, detail
    rake_rule: ScheduleRule | None = None

    @property
    def rake_each_pot(self) -> bool:
        """Whether the rake comes from every pot in proportion (else the main pot first)."""
        rule = self.rake_rule
        return rule is not None and rule.source == "each-pot"

    @property
    def rake_running_total(self) -> Callable[[int], int] | None:
        """The rule's rake of a running total of pots, where it takes its rake that way."""
        return running_total_of(self.rake_rule, CASH_SCALE)

    @property
    def total_pot(self) -> int:
        """Chips put in after uncalled bets were returned (PokerStars' gross total pot)."""
        return sum(self.put_in)

    @property
    def players_dealt(self) -> int:
        """Number of players dealt in."""
        return len(self.players)

    @property
    def saw_flop(self) -> bool:
        """Whether the flop was dealt (no flop, no drop)."""
        return self.board_shown >= 3


@dataclass(slots=True)
class HandOutcome:
    """The betting of one hand (per-player lists in ring order; read-only by convention, not
    frozen for the same reason as `HandRecord`)."""

    actions: list[list[int]]  # street, player, kind, amount, to_amount, all_in, raised_by
    put_in: list[int]  # after uncalled bets were returned
    stacks: list[int]  # at the end, before winnings
    fold_street: list[int]  # -1 = did not fold
    preflop_flags: list[int]  # bit 1: put chips in voluntarily (VPIP), bit 2: raised (PFR)
    board_shown: int
    showdown: bool
    last_river_aggressor: int
    small_blind_player: int
    big_blind_player: int

    @property
    def folded(self) -> list[bool]:
        """Whether each player folded."""
        return [street >= 0 for street in self.fold_street]

    @property
    def vpip(self) -> list[bool]:
        """Whether each player put chips in voluntarily before the flop."""
        return [bool(flags & 1) for flags in self.preflop_flags]

    @property
    def pfr(self) -> list[bool]:
        """Whether each player raised before the flop."""
        return [bool(flags & 2) for flags in self.preflop_flags]


# The action rows of the hand being played (copied out as lists after each hand).
_ACTIONS = np.empty((MAX_ACTIONS, ACTION_FIELDS), dtype=np.int64)


def play_betting(
    stakes: Stakes,
    stacks: list[int],
    looseness: list[float],
    aggression: list[float],
    high: list[int],
    low: list[int],
    newcomers: list[bool],
    heads_up_uncapped: bool,
    fever: list[bool],
    uniforms: UniformBuffer,
) -> HandOutcome:
    """Run the compiled betting (`pipeline.generate.betting.play_hand`) for one hand."""
    n = len(stacks)
    numbers = np.array(
        [*_stakes_numbers(stakes, heads_up_uncapped), *stacks, *high, *low, *newcomers, *fever],
        dtype=np.int64,
    )
    traits = np.array([*looseness, *aggression])
    results = np.empty((4, n), dtype=np.int64)
    uniforms.reserve()
    count, board_shown, showdown, aggressor, uniforms.cursor = play_packed(
        numbers, traits, uniforms.values, uniforms.cursor, results, _ACTIONS
    )
    put_in, final_stacks, fold_street, flags = results.tolist()
    return HandOutcome(
        actions=_ACTIONS[:count].tolist(),
        put_in=put_in,
        stacks=final_stacks,
        fold_street=fold_street,
        preflop_flags=flags,
        board_shown=board_shown,
        showdown=bool(showdown),
        last_river_aggressor=aggressor,
        small_blind_player=1 if n == 2 else 0,
        big_blind_player=0 if n == 2 else 1,
    )


@lru_cache(maxsize=256)
def _stakes_numbers(stakes: Stakes, heads_up_uncapped: bool) -> tuple[int, ...]:
    """The stakes figures at the head of `play_packed`'s numbers (a session reuses them)."""
    return (
        LIMIT_CODES[stakes.limit_type],
        stakes.small_blind,
        stakes.big_blind,
        stakes.small_bet,
        stakes.big_bet,
        stakes.ante,
        int(heads_up_uncapped),
    )


@dataclass(frozen=True, slots=True)
class SessionPlan:
    """What one session is asked to produce.

    Attributes
    ----------
    table
        The table.
    hands
        The most hands to play; a tournament that ends, or a hero who goes broke, ends the
        session sooner.
    first_hand_id, started_at
        Id and start time of the first hand (both increase hand after hand).
    stakes
        Cash stakes; None for a tournament, which follows its level schedule.
    has_antes
        Tournament levels with antes.
    hands_per_level
        Tournament hands between blind increases.
    seats_filled
        Players seated at the start.
    starting_stack
        Tournament starting chips.
    fault_rate
        Share of hands whose recorded payout or text is deliberately wrong.
    fault_kinds
        The kinds of fault the site's text can show (`pipeline.generate.sites`).
    """

    table: TableInfo
    hands: int
    first_hand_id: int
    started_at: datetime
    stakes: Stakes | None
    has_antes: bool = False
    hands_per_level: int = 10
    seats_filled: int = 6
    starting_stack: int = 1500
    fault_rate: float = 0.0
    fault_kinds: tuple[str, ...] = FAULT_KINDS


_PLACES = {1: "st", 2: "nd", 3: "rd"}


def _winner_prize(buy_in: str, entrants: int) -> int:
    """The winner's prize in cents: a share of the prize pool (the buy-in's first part).

    >>> _winner_prize("$1.08+$0.27+$0.15 USD", 9)
    486
    """
    dollars, _, cents = buy_in.split("+")[0].lstrip("$").partition(".")
    per_player = int(dollars) * 100 + int(cents or 0)
    share = {2: 100, 6: 65}.get(entrants, 50)
    return per_player * entrants * share // 100


def _ordinal(number: int) -> str:
    """``1st``, ``2nd``, ``11th``, ``23rd``."""
    if 10 <= number % 100 <= 20:
        return f"{number}th"
    return f"{number}{_PLACES.get(number % 10, 'th')}"


@lru_cache(maxsize=256)
def _tournament_stakes(limit_type: str, level: int, has_antes: bool) -> tuple[Stakes, int]:
    """The stakes of a tournament's 0-based ``level`` and its 1-based number (the last level
    repeats); cached, since every hand of a level asks again."""
    if limit_type == "FL":
        level = min(level, len(FIXED_LIMIT_LEVELS) - 1)
        small_bet, big_bet = FIXED_LIMIT_LEVELS[level]
        return Stakes("FL", small_bet // 2, small_bet, small_bet, big_bet), level + 1
    level = min(level, len(BLIND_LEVELS) - 1)
    small_blind, big_blind, ante = BLIND_LEVELS[level]
    stakes = Stakes(
        limit_type, small_blind, big_blind, big_blind, big_blind, ante if has_antes else 0
    )
    return stakes, level + 1


class Session:
    """One table session; iterate `hands` for its `HandRecord` s in order."""

    def __init__(
        self,
        plan: SessionPlan,
        seed: int,
        names: list[str],
        dealer: Dealer,
        uniforms: UniformBuffer,
    ) -> None:
        self.plan = plan
        self.table = plan.table
        self.rng = random.Random(seed)
        self.dealer = dealer
        self.uniforms = uniforms
        self.names = names
        self.sitters: list[Sitter] = []  # always in seat order
        self.sitters = self._seat_players()
        self.button_seat = 0
        self.previous_dealt: set[tuple[int, str]] = set()  # (seat, name) dealt into the last hand
        self.previous_big_blind: tuple[int, str] = (0, "")  # seat and player of the last hand
        self.hand_id = plan.first_hand_id
        self.moment = plan.started_at
        self.faults_owed = 0
        self.finished = False

    # -- seating -----------------------------------------------------------------------------

    def _new_sitter(self, seat: int, name: str, stakes: Stakes | None) -> Sitter:
        rng = self.rng
        if stakes is None:
            stack = self.plan.starting_stack
        else:
            unit = stakes.big_bet if stakes.limit_type == "FL" else stakes.big_blind
            roll = rng.random()
            if roll < 0.18:
                depth = rng.uniform(6, 20)  # short stacks make all-ins and side pots
            elif roll < 0.85:
                depth = rng.uniform(20, 100)
            else:
                depth = rng.uniform(100, 250)
            if stakes.limit_type == "FL":
                depth /= 3
            stack = max(int(depth * unit), 2 * stakes.big_blind)
        return Sitter(
            seat=seat,
            name=name,
            stack=stack,
            looseness=rng.uniform(0.2, 0.62),
            aggression=rng.uniform(0.1, 0.6),
        )

    def _free_name(self) -> str:
        taken = {sitter.name for sitter in self.sitters}
        while True:
            name = self.rng.choice(self.names)
            if name not in taken:
                return name

    def _seat_players(self) -> list[Sitter]:
        plan = self.plan
        rng = self.rng
        seats = sorted(rng.sample(range(1, self.table.max_seats + 1), plan.seats_filled))
        names = rng.sample(self.names, plan.seats_filled)
        sitters = [self._new_sitter(seat, name, plan.stakes) for seat, name in zip(seats, names)]
        hero = rng.choice(sitters)
        hero.is_hero = True
        rig = self.dealer.rig
        if rig is not None and rig.place == "allin":
            # The favoured player is the hero at every table (a name never sits twice).
            for sitter in sitters:
                if sitter.name == rig.player:
                    sitter.name = hero.name
            hero.name = rig.player
        if plan.stakes is not None:
            # The hero (whose hole cards the file shows) buys in for the usual maximum, so
            # that cash sessions do not end too soon.
            unit = plan.stakes.big_bet if plan.stakes.limit_type == "FL" else plan.stakes.big_blind
            hero.stack = max(hero.stack, (35 if plan.stakes.limit_type == "FL" else 100) * unit)
        return sitters

    # -- the hands ---------------------------------------------------------------------------

    def hands(self) -> Iterator[HandRecord]:
        """Play the session's hands one by one."""
        for number in range(self.plan.hands):
            if self.finished:
                return
            button, dealt = self._button_and_dealt()
            if len(dealt) < 2:
                return
            yield self._play_hand(number, dealt, button)

    def _button_and_dealt(self) -> tuple[int, list[Sitter]]:
        """The next hand's button seat and the players dealt in.

        As at PokerStars (real-site-evidence.md, "Button movement"), the button moves to the
        next seat on its left whose player was dealt into the last hand and is dealt into this
        one (a newcomer who posts is passed over; the first hand: anyone), and a table going from
        three or more players to two puts it on the last hand's big blind (when still dealt in).
        A player sitting out on the button's seat comes back, so the button is never dead. A new
        player whose first hand would put them in the small blind waits a hand (sits out) rather
        than post there.
        """
        seated = [sitter for sitter in self.sitters if sitter.stack > 0]
        if not seated:
            return 0, []
        max_seats = self.table.max_seats
        if self.button_seat == 0:
            on_button = self.rng.choice(seated)
        else:
            # In seat order, the next seat on the left is the first one after the previous
            # button's, else the lowest.
            previous = self.button_seat
            stayed = [
                sitter
                for sitter in seated
                if (sitter.seat, sitter.name) in self.previous_dealt and sitter.sitting_out == 0
            ] or seated
            on_button = next((sitter for sitter in stayed if sitter.seat > previous), stayed[0])
        on_button.sitting_out = 0
        button = on_button.seat
        dealt = [sitter for sitter in seated if sitter.sitting_out == 0]
        while len(dealt) > 2 and any(sitter.newcomer for sitter in dealt):
            small_blind = min(dealt, key=lambda sitter: (sitter.seat - button - 1) % max_seats)
            if not small_blind.newcomer:
                break
            small_blind.sitting_out = 1
            dealt.remove(small_blind)
        if len(self.previous_dealt) >= 3 and len(dealt) == 2:
            # The same player, not whoever took the seat since (the big blind may have left).
            big_blind = [
                sitter for sitter in dealt if (sitter.seat, sitter.name) == self.previous_big_blind
            ]
            if big_blind:
                button = big_blind[0].seat
        return button, dealt

    def _stakes(self, number: int) -> tuple[Stakes, int]:
        """The stakes of hand ``number`` and its tournament level (1-based; 0 in cash)."""
        plan = self.plan
        if plan.stakes is not None:
            return plan.stakes, 0
        return _tournament_stakes(
            self.table.limit_type, number // plan.hands_per_level, plan.has_antes
        )

    def _play_hand(self, number: int, dealt: list[Sitter], button: int) -> HandRecord:
        rng = self.rng
        table = self.table
        stakes, level = self._stakes(number)
        self.button_seat = button
        # The ring starts at the first seat after the button's (``dealt`` is in seat order).
        start = next((index for index, sitter in enumerate(dealt) if sitter.seat > button), 0)
        ring = dealt[start:] + dealt[:start]
        n = len(ring)
        self.previous_dealt = {(sitter.seat, sitter.name) for sitter in dealt}
        # Heads-up the button posts the small blind and the other player the big blind.
        big_blind = ring[1] if n > 2 else ring[0]
        self.previous_big_blind = (big_blind.seat, big_blind.name)
        deal = self.dealer.deal()
        # Slots 0 and 1 carry the biased deals: they go to two random players, the other
        # players take the next slots in ring order.
        first = int(rng.random() * n)
        second = (first + 1 + int(rng.random() * (n - 1))) % n
        others = iter(range(2, n))
        slot_of = [
            0 if player == first else 1 if player == second else next(others) for player in range(n)
        ]
        dealer = self.dealer
        holes = [dealer.hole(deal, slot) for slot in slot_of]
        high = [deal[dealer.high_at + slot] for slot in slot_of]
        low = [deal[dealer.low_at + slot] for slot in slot_of]
        outcome = play_betting(
            stakes,
            [sitter.stack for sitter in ring],
            [sitter.looseness for sitter in ring],
            [sitter.aggression for sitter in ring],
            high,
            low,
            [sitter.newcomer for sitter in ring],
            heads_up_uncapped=table.heads_up_uncapped and not table.is_tournament,
            fever=self._fever(ring),
            uniforms=self.uniforms,
        )
        board = deal[:HOLES]
        if dealer.uniform and outcome.showdown:
            board, high, low = self._fresh_run_out(deal, board, holes, outcome, high, low, ring)
        folded = outcome.folded
        pots = build_pots(outcome.put_in, folded)
        total_pot = sum(outcome.put_in)
        saw_flop = outcome.board_shown >= 3
        # The first rule of the schedule for this hand (its UTC day, the players dealt in), on
        # the chips put in after uncalled bets went back (never raked).
        schedule = table.rake
        rule = None
        if schedule is not None:
            rule = schedule.rule_for((self.moment + EDT_OFFSET).date(), n)
        rake = 0 if rule is None else rule.rake(total_pot, CASH_SCALE, saw_flop)
        amounts = take_rake(
            pots, rake, rule is not None and rule.source == "each-pot", running_total_of(rule, CASH_SCALE)
        )
        shares = split_pots(pots, amounts, high, low, outcome.showdown, table.split_unit)
        names = [sitter.name for sitter in ring]
        recorded_shares, recorded_rake = shares, rake
        overrides: list[tuple[int, str, str]] = []
        fault: tuple[str, int, str] | None = None
        if self.plan.fault_rate > 0 and rng.random() < self.plan.fault_rate:
            self.faults_owed += 1
        if self.faults_owed:
            context = FaultContext(
                players=tuple(names),
                pots=tuple(pots),
                amounts=tuple(amounts),
                shares=tuple(shares),
                rake=rake,
                high=tuple(high),
                low=tuple(low),
                folded=tuple(folded),
                showdown=outcome.showdown,
                saw_flop=saw_flop,
                rake_rule=rule,
                scale=CASH_SCALE,
                players_dealt=n,
                total_pot=total_pot,
                unit=table.split_unit,
            )
            injected = choose_fault(context, rng, self.plan.fault_kinds)
            if injected is not None:
                self.faults_owed -= 1
                recorded_shares = list(injected.shares)
                recorded_rake = injected.rake
                overrides = list(injected.description_overrides)
                fault = (injected.kind, injected.player, injected.detail)
        won = [0] * n
        for share in recorded_shares:
            won[share.player] += share.amount
        show_order, mucked = self._showdown_order(
            outcome, folded, won, len(pots), fault is not None
        )
        seats = [
            SeatLine(sitter.seat, sitter.name, sitter.stack, sitter.sitting_out > 0)
            for sitter in self.sitters
        ]
        hand_id = self.hand_id
        started_at = self.moment
        # Stacks follow what the text says was paid, as the site's chips would.
        final = outcome.stacks
        for player, sitter in enumerate(ring):
            sitter.stack = final[player] + won[player]
            sitter.newcomer = False
        closing = self._between_hands(ring, outcome)
        self.hand_id += 200 + int(rng.random() * 2800)
        self.moment += _PAUSES[int(rng.random() * len(_PAUSES))]
        hero = -1
        for index, sitter in enumerate(ring):
            if sitter.is_hero:
                hero = index
        return HandRecord(
            hand_id=hand_id,
            started_at=started_at,
            table=table,
            stakes=stakes,
            level=level,
            button_seat=button,
            seats=seats,
            players=names,
            player_seats=[sitter.seat for sitter in ring],
            hero=hero,
            holes=holes,
            board=board,
            # Courchevel's first board card is face up from the start.
            board_shown=max(outcome.board_shown, table.game.exposed_before_flop),
            small_blind_player=outcome.small_blind_player,
            big_blind_player=outcome.big_blind_player,
            actions=outcome.actions,
            put_in=outcome.put_in,
            fold_street=outcome.fold_street,
            showdown=outcome.showdown,
            show_order=show_order,
            mucked=mucked,
            high=high,
            low=low,
            pots=pots,
            rake=rake,
            shares=shares,
            recorded_rake=recorded_rake,
            recorded_shares=recorded_shares,
            won=won,
            says_no_show=rng.random() < 0.75,
            preflop_flags=outcome.preflop_flags,
            closing_lines=closing,
            description_overrides=overrides,
            fault=fault,
            rake_rule=rule,
        )

    def _fresh_run_out(
        self,
        deal: list[int],
        board: list[int],
        holes: list[list[int]],
        outcome: HandOutcome,
        high: list[int],
        low: list[int],
        ring: list[Sitter],
    ) -> tuple[list[int], list[int], list[int]]:
        """The board cards dealt after the betting ended, drawn again from the cards no one
        holds. The simulated players bet on their final hands (the deal's values), so in an
        all-in the run-out would follow their bets; a fair deal's run-out does not. Under an
        all-in rig (`Rig`) a run-out that does not give the favoured player the high is drawn
        once more with the rig's probability."""
        from pipeline.evaluator import evaluate

        last_street = max(action[0] for action in outcome.actions)
        known = max((0, 3, 4)[last_street] if last_street < 3 else 5,
                    self.table.game.exposed_before_flop)  # fmt: skip
        if known >= len(board):
            return board, high, low
        taken = set(deal[:HOLES]) | {card for hole in holes for card in hole}
        spare = [card for card in range(52) if card not in taken]

        def draw() -> tuple[list[int], tuple[np.ndarray, np.ndarray]]:
            cards = board[:known] + self.rng.sample(spare, len(board) - known)
            dealt = np.array([cards] * len(holes), dtype=np.uint8)
            return cards, evaluate(np.array(holes, dtype=np.uint8), dealt)

        fresh, values = draw()
        rig = self.dealer.rig
        if rig is not None and rig.place == "allin":
            folded = outcome.folded
            highs = values[0].tolist()
            seat = next((i for i, sitter in enumerate(ring)
                         if sitter.name == rig.player and not folded[i]), None)  # fmt: skip
            best = max(high for high, out in zip(highs, folded) if not out)
            if seat is not None and highs[seat] < best and self.rng.random() < rig.fraction:
                fresh, values = draw()
        return fresh, values[0].tolist(), values[1].tolist()

    def _fever(self, ring: list[Sitter]) -> list[bool]:
        """Who plays this hand in a frenzy (see `FEVER_SHARE`); the hero never does."""
        share = TOURNAMENT_FEVER_SHARE if self.table.is_tournament else FEVER_SHARE
        if self.rng.random() >= share:
            return [False] * len(ring)
        return [not sitter.is_hero for sitter in ring]

    def _showdown_order(
        self,
        outcome: HandOutcome,
        folded: list[bool],
        won: list[int],
        pot_count: int,
        faulted: bool,
    ) -> tuple[list[int], list[bool]]:
        """Who shows in which order, and who mucks instead.

        The last aggressor on the river shows first, else the first player left of the button;
        then clockwise. With one pot and nobody all-in, a player who wins nothing may muck
        (never the first to show).
        """
        n = len(won)
        mucked = [False] * n
        if not outcome.showdown:
            return [], mucked
        start = max(outcome.last_river_aggressor, 0)
        order = [player for player in range(start, n) if not folded[player]]
        order += [player for player in range(start) if not folded[player]]
        # Nobody left without chips: no all-in, so nobody's cards are tabled automatically.
        anyone_all_in = min(outcome.stacks) == 0
        if pot_count == 1 and not anyone_all_in and not faulted:
            rng = self.rng
            for player in order[1:]:
                if won[player] == 0 and rng.random() < 0.5:
                    mucked[player] = True
        return order, mucked

    def _between_hands(self, ring: list[Sitter], outcome: HandOutcome) -> list[str]:
        """Knock-outs, departures, arrivals and sit-outs after a hand; the lines they print."""
        if self.table.is_tournament:
            return self._knock_outs(ring, outcome)
        rng = self.rng
        lines: list[str] = []
        stakes = self.plan.stakes
        assert stakes is not None
        short = 5 * stakes.big_blind
        for sitter in list(self.sitters):
            if sitter.sitting_out:
                sitter.sitting_out -= 1
            if sitter.is_hero:
                if sitter.stack == 0:
                    self.finished = True
                continue
            # One draw decides: broke players leave, a short stack half the time, anybody
            # now and then; a few sit out for some hands.
            roll = rng.random()
            if sitter.stack == 0 or (sitter.stack < short and roll < 0.5) or roll < 0.012:
                lines.append(f"{sitter.name} leaves the table")
                self.sitters.remove(sitter)
            elif roll > 0.99:
                sitter.sitting_out = rng.randint(1, 6)
        # Tables refill toward the number of players they opened with.
        if len(self.sitters) < self.plan.seats_filled or rng.random() < 0.05:
            taken = {sitter.seat for sitter in self.sitters}
            for seat in range(1, self.table.max_seats + 1):
                if seat not in taken and rng.random() < 0.3:
                    sitter = self._new_sitter(seat, self._free_name(), stakes)
                    sitter.newcomer = True
                    self.sitters.append(sitter)
                    self.sitters.sort(key=lambda sitter: sitter.seat)
                    lines.append(f"{sitter.name} joins the table at seat #{seat}")
                    break
        return lines

    def _knock_outs(self, ring: list[Sitter], outcome: HandOutcome) -> list[str]:
        """Players left without chips finish; the last one standing wins the tournament."""
        busted = [
            (outcome.put_in[player] + outcome.stacks[player], sitter)
            for player, sitter in enumerate(ring)
            if sitter.stack == 0
        ]
        if not busted:
            return []
        remaining = len(self.sitters)
        lines: list[str] = []
        # Among players knocked out together, the one who started the hand with less finishes
        # lower.
        for _, sitter in sorted(busted, key=lambda item: item[0]):
            lines.append(f"{sitter.name} finished the tournament in {_ordinal(remaining)} place")
            remaining -= 1
            self.sitters.remove(sitter)
            if sitter.is_hero:
                self.finished = True
        if len(self.sitters) == 1:
            winner = self.sitters[0]
            prize = cash_money(_winner_prize(self.table.buy_in, self.plan.seats_filled))
            lines.append(
                f"{winner.name} wins the tournament and receives {prize} - congratulations!"
            )
            self.finished = True
        return lines
