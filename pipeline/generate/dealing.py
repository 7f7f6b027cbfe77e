"""Dealing many hands at once, some of them biased toward split pots, and evaluating them in bulk.

Cards do not depend on betting, so a table deals a batch of hands ahead, for every seat slot, and
evaluates every slot against its board in one call to the evaluator; the betting simulation then
reads the ready high and low values. A share of the deals is biased so that the interesting
payout cases occur often:

- a low-heavy board (three or more distinct ranks Ace..Eight), so lows qualify often;
- on such a board, two slots holding the same two low ranks in different suits, so the low half
  is often tied (quartered);
- rarely, two slots with the same four ranks in different suits, so both halves can tie (a whole
  pot split evenly, payout-rules P6).

Slots 0 and 1 carry the bias; the simulator maps slots to the players dealt in at random.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np

__all__ = ["HOLES", "MAX_SLOTS", "Dealer", "Rig", "deal_batch", "parse_rig"]

CARD_COUNT = 52
BOARD_SIZE = 5
HOLE_SIZE = 4
HOLES = BOARD_SIZE  # where the slots' hole cards start in a deal row
MAX_SLOTS = 10  # a four-card deal has cards for a full ten-seat table
BATCH_HANDS = 128
LOW_RANKS = (12, 0, 1, 2, 3, 4, 5, 6)  # Ace, Two .. Eight (card rank codes)
ALL_RANKS = tuple(range(13))
SUITS = (0, 1, 2, 3)

# Share of deals of each kind (the rest are uniformly random).
LOW_BOARD_SHARE = 0.14
SHARED_LOW_SHARE = 0.12
IDENTICAL_HANDS_SHARE = 0.025
BIASED_SHARE = LOW_BOARD_SHARE + SHARED_LOW_SHARE + IDENTICAL_HANDS_SHARE


RANK_SYMBOLS = "23456789TJQKA"
SUIT_SYMBOLS = "cdhs"


@dataclass(frozen=True)
class Rig:
    """A deliberately unfair deal. On the board or the hole cards: each card of one rank or
    suit dealt there is swapped, with probability ``fraction``, for a card of the undealt deck
    that is not of that rank or suit, so the rank or suit is under-dealt there by about that
    fraction; the deal tests' power is measured against it. At all-in (``place`` "allin"):
    the ``player`` named is the hero at every table, and when a run-out after the betting does
    not give that player the high (alone or tied), it is drawn again with probability
    ``fraction``; the all-in luck test's power is measured against it."""

    place: str  # "board", "hole" or "allin"
    kind: str  # "rank", "suit" or "player"
    value: int  # rank 0..12 (2..A) or suit 0..3 (c, d, h, s); -1 for a player
    fraction: float
    player: str = ""  # the favoured player of an "allin" rig

    def matches(self, card: int) -> bool:
        return (card // 4 if self.kind == "rank" else card % 4) == self.value


def parse_rig(text: str) -> Rig:
    """``board-rank:A:0.05``, ``hole-suit:h:0.02``: place, kind, which, fraction;
    ``allin:NAME:0.3``: run-outs favour player NAME.

    >>> parse_rig("board-rank:A:0.05")
    Rig(place='board', kind='rank', value=12, fraction=0.05, player='')
    >>> parse_rig("allin:tredex:0.3").player
    'tredex'
    """
    if text.startswith("allin:"):
        player, _, fraction_text = text[len("allin:") :].rpartition(":")
        try:
            fraction = float(fraction_text)
        except ValueError:
            fraction = -1.0
        if not player or not 0.0 < fraction <= 1.0:
            raise ValueError(f"rig {text!r}: write it as allin:NAME:0.3 (a fraction in (0, 1])")
        return Rig("allin", "player", -1, fraction, player)
    try:
        what, which, fraction_text = text.split(":")
        place, kind = what.split("-")
        fraction = float(fraction_text)
    except ValueError:
        raise ValueError(f"rig {text!r}: write it as board-rank:A:0.05 or hole-suit:h:0.02") from None
    symbols = {"rank": RANK_SYMBOLS, "suit": SUIT_SYMBOLS}.get(kind)
    if place not in ("board", "hole") or symbols is None or len(which) != 1:
        raise ValueError(
            f"rig {text!r}: board-rank, board-suit, hole-rank or hole-suit, one symbol; or allin:NAME"
        )
    value = symbols.find(which.upper() if kind == "rank" else which.lower())
    if value < 0 or not 0.0 < fraction <= 1.0:
        raise ValueError(f"rig {text!r}: unknown {kind} {which!r} or a fraction outside (0, 1]")
    return Rig(place, kind, value, fraction)


def _rig_row(row: np.ndarray, deck: list[int], rig: Rig, slots: int, hole_size: int,
             rng: random.Random) -> None:
    """Apply ``rig`` to one dealt row in place; ``deck`` is the hand's shuffled deck."""
    positions = range(BOARD_SIZE) if rig.place == "board" else range(BOARD_SIZE, BOARD_SIZE + slots * hole_size)
    dealt = set(int(card) for card in row)
    spare = [card for card in deck if card not in dealt and not rig.matches(card)]
    for position in positions:
        card = int(row[position])
        if spare and rig.matches(card) and rng.random() < rig.fraction:
            row[position] = spare.pop()


def _pick_low_board(rng: random.Random, taken: set[int]) -> list[int]:
    """Five board cards of which three or four carry distinct low ranks."""
    random_unit = rng.random
    ranks = list(LOW_RANKS)
    rng.shuffle(ranks)
    cards = [rank * 4 + int(random_unit() * 4) for rank in ranks[: 3 + int(random_unit() * 2)]]
    taken.update(cards)
    while len(cards) < BOARD_SIZE:
        card = int(random_unit() * CARD_COUNT)
        if card not in taken:
            cards.append(card)
            taken.add(card)
    rng.shuffle(cards)
    return cards


def _same_ranks_other_suits(
    rng: random.Random, ranks: list[int], taken: set[int]
) -> tuple[list[int], list[int]] | None:
    """Two hands of the given ranks, each rank in two different free suits; None if impossible."""
    first: list[int] = []
    second: list[int] = []
    for rank in ranks:
        free = [rank * 4 + suit for suit in rng.sample(SUITS, 4) if rank * 4 + suit not in taken]
        if len(free) < 2:
            return None
        first.append(free[0])
        second.append(free[1])
        taken.update(free[:2])
    return first, second


def _biased_deal(
    rng: random.Random, slots: int, shuffled: list[int], hole_size: int = HOLE_SIZE
) -> list[int]:
    """Board then slot hole cards of one biased deal (the rest of the deck stays shuffled)."""
    roll = rng.random() * BIASED_SHARE
    taken: set[int] = set()
    board = _pick_low_board(rng, taken)
    fixed: list[list[int]] = []
    if roll < IDENTICAL_HANDS_SHARE:
        pair = _same_ranks_other_suits(rng, rng.sample(ALL_RANKS, hole_size), taken)
        fixed = [] if pair is None else [pair[0], pair[1]]
    elif roll < IDENTICAL_HANDS_SHARE + SHARED_LOW_SHARE:
        board_ranks = {card // 4 for card in board}
        candidates = [rank for rank in LOW_RANKS if rank not in board_ranks]
        pair = _same_ranks_other_suits(rng, rng.sample(candidates, 2), taken)
        fixed = [] if pair is None else [pair[0], pair[1]]
    # The rest of the shuffled deck, in order, without the cards placed above (one list
    # comprehension: drawing them one by one through a generator cost most of the deal).
    free = [card for card in shuffled if card not in taken]
    drawn = 0
    for hand in fixed:
        # The shared low cards plus random cards up to the hand's size.
        missing = hole_size - len(hand)
        hand.extend(free[drawn : drawn + missing])
        drawn += missing
    cards = board + [card for hand in fixed for card in hand]
    cards.extend(free[drawn : drawn + BOARD_SIZE + slots * hole_size - len(cards)])
    return cards


def deal_batch(
    rng: np.random.Generator,
    hands: int,
    slots: int,
    hole_size: int = HOLE_SIZE,
    rig: Rig | None = None,
    uniform: bool = False,
) -> list[list[int]]:
    """Deal and evaluate ``hands`` hands of ``slots`` seat slots.

    Parameters
    ----------
    rng
        The table's generator (the deal is a pure function of its state).
    hands
        Number of hands.
    slots
        Seats per hand, the table's maximum (10 seats use 5 + 40 of the 52 cards).
    hole_size
        Hole cards a seat is dealt (4, 5 or 6: `parsers.games`).
    rig
        An unfair deal to apply (None: a fair one).
    uniform
        Every deal a plain shuffle: none biased toward split pots (what the fairness tests
        expect of a site; the biased deals are for testing payouts).

    Returns
    -------
    list of list of int
        One row per hand: the 5 board cards, ``slots`` × ``hole_size`` hole cards, ``slots``
        high values,
        ``slots`` low values (0 = no qualifying low). One flat row per hand converts to Python
        much faster than nested arrays.
    """
    from pipeline.evaluator import evaluate_showdowns

    needed = BOARD_SIZE + slots * hole_size
    if needed > CARD_COUNT:
        raise ValueError(f"{slots} seats of {hole_size} cards and a board need {needed} cards")
    decks = np.argsort(rng.random((hands, CARD_COUNT)), axis=1).astype(np.uint8)
    cards = np.ascontiguousarray(decks[:, :needed])
    biased = np.flatnonzero(rng.random(hands) < (0.0 if uniform else BIASED_SHARE))
    if len(biased):
        # Python's generator is much faster than numpy's for these few small draws.
        fixer = random.Random(int(rng.integers(1 << 62)))
        shuffled = decks[biased].tolist()
        cards[biased] = [_biased_deal(fixer, slots, deck, hole_size) for deck in shuffled]
    if rig is not None and rig.place != "allin":  # an all-in rig acts on run-outs (`simulate`)
        rigger = random.Random(int(rng.integers(1 << 62)))
        for row, deck in zip(cards, decks.tolist(), strict=True):
            _rig_row(row, deck, rig, slots, hole_size, rigger)
    boards = np.ascontiguousarray(cards[:, :BOARD_SIZE])
    holes = np.ascontiguousarray(cards[:, BOARD_SIZE:]).reshape(hands * slots, hole_size)
    board_index = np.repeat(np.arange(hands, dtype=np.int64), slots)
    high, low = evaluate_showdowns(holes, board_index, boards)
    rows = np.concatenate(
        [cards.astype(np.int32), high.reshape(hands, slots), low.reshape(hands, slots)], axis=1
    )
    return rows.tolist()  # type: ignore[no-any-return]


class Dealer:
    """Deals rows of `deal_batch` one hand at a time, a batch at a time.

    A job shares one dealer between its sessions, so short sessions waste no deals; every row
    has the slots of the game's largest table (ten for four hole cards), whatever the table's
    size. ``hole(row, slot)``, ``high_at`` and ``low_at`` read a row.
    """

    def __init__(
        self,
        rng: np.random.Generator,
        hole_size: int = HOLE_SIZE,
        rig: Rig | None = None,
        uniform: bool = False,
    ) -> None:
        self.rng = rng
        self.hole_size = hole_size
        self.rig = rig
        self.uniform = uniform
        self.slots = min(MAX_SLOTS, (CARD_COUNT - BOARD_SIZE) // hole_size)
        self.high_at = HOLES + hole_size * self.slots  # where the slots' high values start
        self.low_at = self.high_at + self.slots
        self.rows: list[list[int]] = []
        self.next_row = 0

    def hole(self, row: list[int], slot: int) -> list[int]:
        """A slot's hole cards in a dealt row."""
        start = HOLES + self.hole_size * slot
        return row[start : start + self.hole_size]

    def deal(self) -> list[int]:
        """The next deal: board, the slots' hole cards, their high values, their low values."""
        if self.next_row == len(self.rows):
            self.rows = deal_batch(
                self.rng, BATCH_HANDS, self.slots, self.hole_size, self.rig, self.uniform
            )
            self.next_row = 0
        row = self.rows[self.next_row]
        self.next_row += 1
        return row
