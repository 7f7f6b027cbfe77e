"""Which hands are all-in spots, and the arrays the enumeration kernel reads.

A spot is a hand whose betting ended before the river with every contender but at most one
all-in: two or more players still in, all their hole cards known, at least one of them all-in,
no betting action on the streets after the last one that had any, and the board (both boards
when run twice) dealt to the river. Its ``street`` is that last betting street (0 preflop,
1 flop, 2 turn); the board cards dealt by then are known, the rest are enumerated. Cards of
players who folded stay unknown, as trackers treat them: they are left in the deck.

Each hand's game (``hands.game``, `parsers.games`; none is Omaha Hi/Lo) says how many hole
cards its players hold (4, 5 or 6) and how many board cards were face up before the preflop
betting (Courchevel: one, so a preflop all-in there has one known board card). A player row
whose cards are not exactly its game's count is unknown cards.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import polars as pl

from parsers.games import GAMES, OMAHA_HI_LO
from pipeline.equity.enumeration import MAX_HOLE_CARDS, MAX_PLAYERS
from pipeline.payouts import PotTable

__all__ = ["KNOWN_BOARD_CARDS", "SpotTable", "find_spots"]

Int64Array = npt.NDArray[np.int64]
# Board cards dealt when the betting ended, by street, in a game that shows none before the
# flop; a game's `exposed_before_flop` cards replace the preflop 0.
KNOWN_BOARD_CARDS = (0, 3, 4)
_BETTING_KINDS = ("post_sb", "post_bb", "post_dead", "ante", "fold", "check", "call", "bet", "raise")


@dataclass(frozen=True)
class SpotTable:
    """All-in spots in CSR layout: players and pots of spot ``s`` are the rows
    ``player_start[s]:player_start[s + 1]`` and ``pot_start[s]:pot_start[s + 1]``."""

    hand_row: Int64Array  # per spot: row of the hand
    street: Int64Array  # per spot: 0, 1 or 2
    known: npt.NDArray[np.uint8]  # per spot: (5,) board, the first known_count cards are known
    known_count: Int64Array
    unit: Int64Array  # per spot: odd-chip unit (P9)
    board_count: Int64Array  # per spot: 1, or 2 when run twice
    hole_count: Int64Array  # per spot: hole cards of each of its players (4, 5 or 6)
    player_start: Int64Array
    player_row: Int64Array  # per spot player: row of the player, clockwise from the button
    # per spot player: (width,) hole cards, width >= the spot's hole_count (find_spots: 6);
    # the first hole_count are the player's, the rest are ignored
    hole: npt.NDArray[np.uint8]
    pot_start: Int64Array
    pot_row: Int64Array  # per spot pot: row of the pot in the hand's PotTable
    pot_amount: Int64Array  # per spot pot: after rake
    pot_eligible: Int64Array  # per spot pot: bit i set = the spot's player i may win it

    @property
    def spots(self) -> int:
        return len(self.hand_row)


def _card_rows(cards: pl.Series, width: int) -> tuple[np.ndarray, np.ndarray]:
    """(rows, width) uint8 card codes of a list column and whether each row is complete and
    readable (exactly ``width`` cards, none null, all < 52); other rows hold zeros."""
    complete = (
        (cards.list.len().fill_null(0) == width) & (cards.list.drop_nulls().list.len().fill_null(0) == width)
    ).to_numpy()
    codes = np.zeros((len(cards), width), dtype=np.int64)
    rows = np.flatnonzero(complete)
    if len(rows):
        values = cards.gather(rows).list.to_array(width).to_numpy().reshape(-1, width).astype(np.int64)
        valid = ((values >= 0) & (values < 52)).all(axis=1)
        codes[rows] = np.where(valid[:, None], values, 0)
        complete[rows] = valid
    return codes.astype(np.uint8), complete


def _hand_games(hands: pl.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Per hand: hole cards dealt and board cards shown before the preflop betting. A hand
    without a game, or of a game `parsers.games` does not know, is Omaha Hi/Lo (as the
    audit reads it)."""
    if "game" not in hands.columns:
        return (
            np.full(hands.height, OMAHA_HI_LO.hole_cards, dtype=np.int64),
            np.full(hands.height, OMAHA_HI_LO.exposed_before_flop, dtype=np.int64),
        )
    codes = hands["game"].fill_null(OMAHA_HI_LO.code)
    hole_cards = {code: game.hole_cards for code, game in GAMES.items()}
    exposed = {code: game.exposed_before_flop for code, game in GAMES.items()}
    return (
        codes.replace_strict(hole_cards, default=OMAHA_HI_LO.hole_cards, return_dtype=pl.Int64)
        .to_numpy()
        .astype(np.int64),
        codes.replace_strict(
            exposed, default=OMAHA_HI_LO.exposed_before_flop, return_dtype=pl.Int64
        )
        .to_numpy()
        .astype(np.int64),
    )


def _hole_rows(cards: pl.Series, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(rows, `MAX_HOLE_CARDS`) uint8 hole cards, zero-padded, and whether each row holds
    exactly ``counts[row]`` readable cards (`_card_rows`); other rows hold zeros."""
    codes = np.zeros((len(cards), MAX_HOLE_CARDS), dtype=np.uint8)
    known = np.zeros(len(cards), dtype=bool)
    for count in np.unique(counts):
        rows = np.flatnonzero(counts == count)
        if not 0 < count <= MAX_HOLE_CARDS:
            continue  # never a spot: the kernel plays 4 to 6 hole cards
        part, complete = _card_rows(cards.gather(rows), int(count))
        codes[rows, :count] = part
        known[rows] = complete
    return codes, known


def find_spots(
    hands: pl.DataFrame,
    players: pl.DataFrame,
    stack_start: npt.NDArray[np.int64],
    actions: pl.DataFrame,
    action_seat_row: Int64Array,
    pots: PotTable,
    pot_rake: Int64Array,
    units: Int64Array,
    boards: Int64Array,
) -> SpotTable:
    """The all-in spots among audited hands.

    ``hands`` carry ``board``, ``board2`` and (optionally) ``game``; ``players`` are the
    audit's player rows (``hand_row``, ``hole_cards``, ``folded``, ``put_in``; clockwise per
    hand), ``stack_start`` their starting stacks (negative when unknown), ``action_seat_row``
    each action's player row (-1 unseated), ``pots`` and ``pot_rake`` the hand's pots and the
    rake each gives, ``units`` and ``boards`` per hand.
    """
    hand_count = hands.height
    hand_of = players["hand_row"].to_numpy().astype(np.int64)
    folded = players["folded"].to_numpy().astype(bool)
    put_in = players["put_in"].to_numpy().astype(np.int64)
    hole_cards, exposed = _hand_games(hands)

    last_street = np.full(hand_count, -1, dtype=np.int64)
    all_in = np.zeros(players.height, dtype=bool)
    if actions.height:
        action_hand = actions["hand_row"].to_numpy().astype(np.int64)
        street = actions["street"].fill_null(-1).to_numpy().astype(np.int64)
        betting = actions["kind"].is_in(_BETTING_KINDS).to_numpy()
        np.maximum.at(last_street, action_hand[betting], street[betting])
        flagged = actions["is_all_in"].fill_null(False).to_numpy().astype(bool) & (action_seat_row >= 0)
        all_in[action_seat_row[flagged]] = True
    all_in |= (stack_start > 0) & (put_in >= stack_start)

    contender = ~folded
    contenders = np.bincount(hand_of[contender], minlength=hand_count)
    all_in_contenders = np.bincount(hand_of[contender & all_in], minlength=hand_count)
    contested = np.diff(pots.eligible_start) > 0
    hand_has_pot = np.bincount(pots.hand[contested], minlength=hand_count) > 0
    candidate = (
        (last_street >= 0) & (last_street <= 2)
        & (contenders >= 2) & (contenders <= MAX_PLAYERS)
        & (all_in_contenders >= 1) & (contenders - all_in_contenders <= 1)
        & hand_has_pot
    )  # fmt: skip
    # Cards are read only where every other test passed (a small share of the hands); the
    # other rows stay zeros, never read.
    candidate_hands = np.flatnonzero(candidate)
    candidate_players = np.flatnonzero(candidate[hand_of])
    hole = np.zeros((players.height, MAX_HOLE_CARDS), dtype=np.uint8)
    hole_known = np.zeros(players.height, dtype=bool)
    hole[candidate_players], hole_known[candidate_players] = _hole_rows(
        players["hole_cards"].gather(candidate_players), hole_cards[hand_of[candidate_players]]
    )
    board = np.zeros((hand_count, 5), dtype=np.uint8)
    board_complete = np.zeros(hand_count, dtype=bool)
    board[candidate_hands], board_complete[candidate_hands] = _card_rows(
        hands["board"].gather(candidate_hands), 5
    )
    board2 = np.zeros((hand_count, 5), dtype=np.uint8)
    board2_complete = np.zeros(hand_count, dtype=bool)
    board2[candidate_hands], board2_complete[candidate_hands] = _card_rows(
        hands["board2"].gather(candidate_hands), 5
    )
    known = np.bincount(hand_of[contender & hole_known], minlength=hand_count)
    two_boards = boards == 2
    boards_ready = board_complete & (~two_boards | board2_complete)
    is_spot = candidate & (known == contenders) & boards_ready
    known_count = np.array(KNOWN_BOARD_CARDS, dtype=np.int64)[np.clip(last_street, 0, 2)]
    known_count = np.where(last_street <= 0, exposed, known_count)
    # Run twice: both boards must share the cards known when the money went in.
    for count in np.unique(known_count[is_spot & two_boards]):
        if count == 0:
            continue
        rows = np.flatnonzero(is_spot & two_boards & (known_count == count))
        same = (board[rows, :count] == board2[rows, :count]).all(axis=1)
        is_spot[rows[~same]] = False
    spot_hands = np.flatnonzero(is_spot)

    chosen = np.flatnonzero(contender & is_spot[hand_of])  # hand-grouped, clockwise
    local = np.full(players.height, -1, dtype=np.int64)
    player_counts = np.bincount(hand_of[chosen], minlength=hand_count)[spot_hands]
    player_start = np.zeros(len(spot_hands) + 1, dtype=np.int64)
    np.cumsum(player_counts, out=player_start[1:])
    local[chosen] = np.arange(len(chosen)) - np.repeat(player_start[:-1], player_counts)

    spot_of_hand = np.full(hand_count, -1, dtype=np.int64)
    spot_of_hand[spot_hands] = np.arange(len(spot_hands))
    # The spots' contested pots, each with its eligible players as a bit mask of local indices.
    candidates = np.flatnonzero(is_spot[pots.hand]) if len(pots.hand) else np.zeros(0, np.int64)
    member_counts = (pots.eligible_start[candidates + 1] - pots.eligible_start[candidates]).astype(np.int64)
    pot_row = candidates[member_counts > 0].astype(np.int64)
    member_counts = member_counts[member_counts > 0]
    first_member = np.zeros(len(pot_row), dtype=np.int64)
    np.cumsum(member_counts[:-1], out=first_member[1:])
    members = (
        np.repeat(pots.eligible_start[pot_row] - first_member, member_counts)
        + np.arange(int(member_counts.sum()))
    )  # fmt: skip
    bits = np.left_shift(np.int64(1), local[pots.eligible[members]])
    masks = np.bitwise_or.reduceat(bits, first_member) if len(pot_row) else np.zeros(0, np.int64)
    pot_spot = spot_of_hand[pots.hand[pot_row]] if len(pot_row) else np.zeros(0, np.int64)
    pot_start = np.zeros(len(spot_hands) + 1, dtype=np.int64)
    np.cumsum(np.bincount(pot_spot, minlength=len(spot_hands)), out=pot_start[1:])
    known_board = board[spot_hands].copy()
    known_board[np.arange(5) >= known_count[spot_hands][:, None]] = 0
    return SpotTable(
        hand_row=spot_hands.astype(np.int64),
        street=last_street[spot_hands],
        known=known_board,
        known_count=known_count[spot_hands],
        unit=np.asarray(units, dtype=np.int64)[spot_hands],
        board_count=np.asarray(boards, dtype=np.int64)[spot_hands],
        hole_count=hole_cards[spot_hands],
        player_start=player_start,
        player_row=chosen.astype(np.int64),
        hole=np.ascontiguousarray(hole[chosen]),
        pot_start=pot_start,
        pot_row=pot_row,
        pot_amount=(pots.amount[pot_row] - pot_rake[pot_row]).astype(np.int64),
        pot_eligible=np.asarray(masks, dtype=np.int64),
    )
