"""Random deals for tests and benchmarks.

Examples
--------
>>> hole, board = random_deals(3, seed=1)
>>> hole.shape, board.shape, hole.dtype.name
((3, 4), (3, 5), 'uint8')
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

__all__ = ["random_deals", "random_showdowns"]

CARD_COUNT = 52
BOARD_CARD_COUNT = 5


def _rows_with_repeats(cards: npt.NDArray[np.uint8]) -> npt.NDArray[np.bool_]:
    ordered = np.sort(cards, axis=1)
    repeats: npt.NDArray[np.bool_] = np.any(ordered[:, 1:] == ordered[:, :-1], axis=1)
    return repeats


def random_deals(
    count: int, seed: int | np.random.Generator | None = None, hole_cards: int = 4
) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.uint8]]:
    """Uniformly random deals: ``hole_cards`` hole cards and five board cards per row.

    Parameters
    ----------
    count
        Number of deals.
    seed
        Seed or generator.
    hole_cards
        4 (Omaha Hi/Lo), 5 (Big O, Courchevel) or 6.

    Returns
    -------
    hole, board
        uint8 arrays (count, hole_cards) and (count, 5), no card repeated within a row.
    """
    generator = np.random.default_rng(seed)
    width = hole_cards + BOARD_CARD_COUNT
    cards = generator.integers(0, CARD_COUNT, size=(count, width), dtype=np.uint8)
    # Redrawing whole rows that repeat a card keeps every ordered deal equally likely.
    repeats = _rows_with_repeats(cards)
    while repeats.any():
        cards[repeats] = generator.integers(
            0, CARD_COUNT, size=(int(repeats.sum()), width), dtype=np.uint8
        )
        repeats[repeats] = _rows_with_repeats(cards[repeats])
    return np.ascontiguousarray(cards[:, :hole_cards]), np.ascontiguousarray(cards[:, hole_cards:])


def random_showdowns(
    board_count: int,
    minimum_players: int = 2,
    maximum_players: int = 6,
    seed: int | np.random.Generator | None = None,
    hole_cards: int = 4,
) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64], npt.NDArray[np.uint8]]:
    """Random showdowns: each board shared by 2..6 (or the given range of) players.

    Parameters
    ----------
    board_count
        Number of boards (hands).
    minimum_players, maximum_players
        Inclusive range of players per board, drawn uniformly; at most 11 fit a deck with
        four hole cards each, 9 with five, 7 with six.
    seed
        Seed or generator.
    hole_cards
        Hole cards per player: 4, 5 or 6.

    Returns
    -------
    hole, board_index, boards
        As taken by `pipeline.evaluator.evaluate_showdowns`; players of a board are
        consecutive rows.
    """
    most = (CARD_COUNT - BOARD_CARD_COUNT) // hole_cards
    if not 1 <= minimum_players <= maximum_players <= most:
        raise ValueError(f"players per board must satisfy 1 <= minimum <= maximum <= {most}")
    generator = np.random.default_rng(seed)
    decks = generator.permuted(
        np.tile(np.arange(CARD_COUNT, dtype=np.uint8), (board_count, 1)), axis=1
    )
    players = generator.integers(minimum_players, maximum_players + 1, size=board_count)
    board_index = np.repeat(np.arange(board_count, dtype=np.int64), players)
    seat = np.arange(board_index.size) - np.repeat(np.cumsum(players) - players, players)
    columns = BOARD_CARD_COUNT + hole_cards * seat[:, None] + np.arange(hole_cards)
    hole = decks[board_index[:, None], columns]
    boards = np.ascontiguousarray(decks[:, :BOARD_CARD_COUNT])
    return np.ascontiguousarray(hole), board_index, boards
