"""A player's hole cards from the places a hand prints them: the one rule every site follows.

A sighting is a place a site prints a player's hole cards: the deal to the player who recorded
the hand, a show at showdown, a hand mucked face up in the summary. A site module only reads its
lines (or elements) into sightings and says which are deals; what they make of a seat is decided
here, the same for every site. How many cards a player holds is the hand's game's
(`parsers.games`: four in Omaha Hi/Lo, five in Big O and Courchevel, six in 6-card Omaha
Hi/Lo); a site that reads more than one game passes each hand's game (``hands.game`` code),
and a hand without one is Omaha Hi/Lo.

- The game's count of readable cards (`FULL`), dealt or shown, are the player's hole cards.
- A show of one card up to one fewer than the game deals, every one readable (`PARTIAL`: an
  all-in player's ``shows [Qs]``, PokerStars' summary ``mucked [Qs]``), is part of a hand: the
  seat's hole cards stay unknown, so the audit calls the pot unevaluable instead of guessing the
  rest. The site keeps the shown cards in its showdowns, where each must be dealt nowhere else
  (`partly_shown_duplicates`).
- Any other sighting (a deal of fewer cards than the game deals, no card, more than it deals, a
  card that cannot be read) is `DAMAGED`: its hand is quarantined (`NOT_THE_GAMES_CARDS`, which
  names the count).
- All the sightings of a player hold the same cards, a partial show some of them. Sites print
  shown cards in another order than dealt, so sightings compare as sets; two sets quarantine
  the hand (`SHOWN_DIFFERENT_CARDS`). The seat keeps the first sighting's order: the dealt
  order.

`attach_hole_cards` applies the rules to a frame of sightings, for every parser. The compiled
PokerStars reader reads Omaha Hi/Lo hands only; it calls the same scalar rules (`sighting_kind`
with four cards, `card_set_key`) on each sighting it reads, and leaves a hand to the block parser
whenever one is not `FULL` or holds other cards than an earlier one.
"""

from __future__ import annotations

import numba
import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc

from parsers.games import OMAHA_HI_LO, hole_card_count

__all__ = [
    "DAMAGED",
    "FULL",
    "HOLE_CARDS",
    "KEYED_CARDS",
    "NOT_THE_GAMES_CARDS",
    "PARTIAL",
    "SHOWN_DIFFERENT_CARDS",
    "attach_hole_cards",
    "card_set_columns",
    "card_set_key",
    "card_set_keys",
    "games_hole_cards",
    "hole_card_checks",
    "is_partial_show",
    "not_the_games_cards",
    "partly_shown_duplicates",
    "sighting_kind",
    "sighting_kinds",
]

# Omaha Hi/Lo's four: the hole cards of a hand whose game is not given.
HOLE_CARDS = OMAHA_HI_LO.hole_cards
# What a sighting is (`sighting_kind`).
FULL, PARTIAL, DAMAGED = 0, 1, 2

# The reason of a damaged sighting, with the count the hand's game deals (`not_the_games_cards`).
NOT_THE_GAMES_CARDS = "hole cards are not the game's {} readable cards"
SHOWN_DIFFERENT_CARDS = "a player is shown different hole cards"

# Cards a set key holds: one byte each, the count in the top byte.
KEYED_CARDS = 7


def not_the_games_cards(hole_cards: int) -> str:
    """The reject reason of a damaged sighting in a game dealing ``hole_cards`` cards.

    >>> not_the_games_cards(5)
    "hole cards are not the game's 5 readable cards"
    """
    return NOT_THE_GAMES_CARDS.format(hole_cards)


@numba.njit(cache=True)
def sighting_kind(cards: int, readable: bool, dealt: bool, hole_cards: int) -> int:
    """`FULL`, `PARTIAL` or `DAMAGED`: a sighting of ``cards`` cards, ``readable`` when every
    one of them is, ``dealt`` for the deal (which is all of a hand), else a show, in a game
    dealing ``hole_cards``."""
    if readable and cards == hole_cards:
        return FULL
    if readable and not dealt and 0 < cards < hole_cards:
        return PARTIAL
    return DAMAGED


@numba.njit(cache=True)
def card_set_key(
    values: np.ndarray, valid: np.ndarray, start: int, end: int, held: np.ndarray
) -> tuple[np.uint64, bool]:
    """A number that is equal for two lists of card codes exactly when they hold the same codes
    in any order (nulls, ``valid`` False, left out); and whether the list ``values[start:end]``
    fits one (at most `KEYED_CARDS` codes, each 0 to 255). ``held``: room for as many codes."""
    count = 0
    for index in range(start, end):
        if not valid[index]:
            continue
        code = values[index]
        if count == KEYED_CARDS or not 0 <= code <= 255:
            return np.uint64(0), False
        place = count  # insertion sort: a handful of codes
        while place > 0 and held[place - 1] > code:
            held[place] = held[place - 1]
            place -= 1
        held[place] = code
        count += 1
    key = np.uint64(count) << np.uint64(56)
    for place in range(count):
        key |= np.uint64(held[place]) << np.uint64(8 * place)
    return key, True


@numba.njit(cache=True)
def card_set_keys(
    offsets: np.ndarray, values: np.ndarray, value_valid: np.ndarray, row_valid: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """`card_set_key` of each list ``values[offsets[row]:offsets[row + 1]]``; a null list, or
    one outside ``values``, does not fit."""
    rows = max(offsets.shape[0] - 1, 0)
    keys = np.zeros(rows, dtype=np.uint64)
    fits = np.zeros(rows, dtype=np.bool_)
    held = np.zeros(KEYED_CARDS, dtype=np.int64)
    limit = min(values.shape[0], value_valid.shape[0])
    for row in range(min(rows, row_valid.shape[0])):
        start, end = offsets[row], offsets[row + 1]
        if row_valid[row] and 0 <= start <= end <= limit:
            keys[row], fits[row] = card_set_key(values, value_valid, start, end, held)
    return keys, fits


@numba.njit(cache=True)
def sighting_kinds(
    offsets: np.ndarray,
    value_valid: np.ndarray,
    row_valid: np.ndarray,
    dealt: np.ndarray,
    hole_cards: np.ndarray,
) -> np.ndarray:
    """`sighting_kind` of each list ``[offsets[row], offsets[row + 1])`` of card codes
    (``value_valid`` False: a card that could not be read) in a game dealing
    ``hole_cards[row]``; a null list is `DAMAGED`."""
    rows = max(offsets.shape[0] - 1, 0)
    kinds = np.full(rows, DAMAGED, dtype=np.int8)
    for row in range(min(rows, row_valid.shape[0], dealt.shape[0], hole_cards.shape[0])):
        start, end = offsets[row], offsets[row + 1]
        if not row_valid[row] or not 0 <= start <= end <= value_valid.shape[0]:
            continue
        readable = True
        for index in range(start, end):
            readable = readable and value_valid[index]
        kinds[row] = sighting_kind(end - start, readable, dealt[row], hole_cards[row])
    return kinds


def _list_buffers(cards: pl.Series) -> tuple[np.ndarray, pa.Array, np.ndarray, np.ndarray]:
    """``(offsets, values, value_valid, row_valid)`` of a list column, as the kernels read it."""
    array = cards.to_arrow()
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    values = array.values
    return (
        array.offsets.to_numpy().astype(np.int64),
        values,
        values.is_valid().to_numpy(zero_copy_only=False),
        array.is_valid().to_numpy(zero_copy_only=False),
    )


def _kinds(cards: pl.Series, dealt: np.ndarray, hole_cards: pl.Series | int) -> np.ndarray:
    offsets, _, value_valid, row_valid = _list_buffers(cards)
    counts = (
        np.full(len(cards), hole_cards, dtype=np.int64)
        if isinstance(hole_cards, int)
        else hole_cards.fill_null(HOLE_CARDS).cast(pl.Int64).to_numpy()
    )
    return sighting_kinds(offsets, value_valid, row_valid, dealt, counts)


def is_partial_show(cards: pl.Series, hole_cards: pl.Series | int = HOLE_CARDS) -> pl.Series:
    """Whether each shown list of card codes is a `PARTIAL` show (null list: False) in a game
    dealing ``hole_cards`` (one count, or one per row)."""
    return pl.Series(
        _kinds(cards, np.zeros(len(cards), dtype=np.bool_), hole_cards) == PARTIAL
    )


def games_hole_cards(hands: pl.Series, games: pl.DataFrame | None) -> pl.Series:
    """The hole cards of the game of each hand number in ``hands``: ``games`` lists ``hand``
    and ``game_code`` (a `parsers.games` code; None, a hand missing or a null code: Omaha
    Hi/Lo's four)."""
    if games is None or hands.len() == 0:
        return pl.Series("game_hole_cards", np.full(hands.len(), HOLE_CARDS), dtype=pl.Int8)
    counts = games.select(
        pl.col("hand").cast(hands.dtype), game_hole_cards=hole_card_count(pl.col("game_code"))
    ).unique("hand", keep="first")
    return (
        hands.to_frame("hand")
        .join(counts, on="hand", how="left", maintain_order="left")
        .select(pl.col("game_hole_cards").fill_null(HOLE_CARDS))
        .to_series()
    )


def card_set_columns(cards: pl.Series) -> tuple[pl.Series, pl.Series]:
    """Two keys of each list of card codes, equal for two lists exactly when they hold the
    same codes in any order (nulls left out): a number for the usual lists (`card_set_keys`),
    a text for the others; each null where the other is used."""
    offsets, values, value_valid, row_valid = _list_buffers(cards)
    keys, fits = card_set_keys(
        offsets,
        pc.fill_null(values, 0).to_numpy(zero_copy_only=False).astype(np.int64),
        value_valid,
        row_valid,
    )
    texts = pl.Series("long_key", [None] * len(cards), dtype=pl.String)
    if not fits.all():
        rows = np.flatnonzero(~fits)
        # The same equality, by text: sorted codes joined (a null code is left out).
        long_keys = cards.gather(rows).list.sort().cast(pl.List(pl.String)).list.join(",")
        texts = texts.scatter(rows, long_keys)
    return pl.Series("key", keys).set(pl.Series(~fits), None), texts


def attach_hole_cards(
    seats: pl.DataFrame,
    sightings: pl.DataFrame,
    heroes: pl.DataFrame | None = None,
    games: pl.DataFrame | None = None,
) -> pl.DataFrame:
    """``hole_cards``, ``card_versions``, ``damaged_sightings``, ``game_hole_cards`` and
    ``is_hero`` on the seats.

    ``sightings`` has ``hand``, ``line_no`` (the order the hand printed them), ``player``,
    ``cards`` (card codes; a null list is no sighting) and ``dealt``; ``heroes`` lists
    ``hand``, ``player`` of the recording player; ``games`` (``hand``, ``game_code``) the game
    of each hand, for a site that reads more than one (None: every hand is Omaha Hi/Lo). The
    seat takes the first sighting's cards that is not a partial show; ``card_versions`` counts
    the sets of cards of those sightings, and one more where a partial show holds a card
    outside them; ``damaged_sightings`` counts the damaged ones; ``game_hole_cards`` is what
    the hand's game deals. `hole_card_checks` quarantines on them.
    """
    ordered = sightings.filter(pl.col("cards").is_not_null()).sort("hand", "line_no")
    kinds = _kinds(
        ordered["cards"], ordered["dealt"].to_numpy(), games_hole_cards(ordered["hand"], games)
    )
    is_partial = pl.Series(kinds == PARTIAL)
    whole = ordered.filter(~is_partial).with_columns(kind=pl.Series(kinds[kinds != PARTIAL]))
    keys, long_keys = card_set_columns(whole["cards"])
    versions = pl.col("key").drop_nulls().n_unique() + pl.col("long_key").drop_nulls().n_unique()
    cards = (
        whole.with_columns(key=keys, long_key=long_keys)
        .group_by("hand", "player", maintain_order=True)
        .agg(
            hole_cards=pl.col("cards").first(),
            card_versions=versions.cast(pl.UInt32),
            damaged_sightings=(pl.col("kind") == DAMAGED).sum().cast(pl.UInt32),
        )
    )
    partial = ordered.filter(is_partial)
    if partial.height:
        outside = (
            partial.join(cards, on=["hand", "player"], how="inner")
            .filter(pl.col("cards").list.set_difference("hole_cards").list.len() > 0)
            .select("hand", "player")
            .unique()
            .with_columns(outside=pl.lit(True))
        )
        cards = (
            cards.join(outside, on=["hand", "player"], how="left")
            .with_columns(card_versions=pl.col("card_versions") + pl.col("outside").is_not_null())
            .drop("outside")
        )
    seats = seats.join(cards, on=["hand", "player"], how="left").with_columns(
        card_versions=pl.col("card_versions").fill_null(0),
        damaged_sightings=pl.col("damaged_sightings").fill_null(0),
        game_hole_cards=games_hole_cards(seats["hand"], games),
    )
    if heroes is None:
        return seats.with_columns(is_hero=pl.lit(False))
    flagged = heroes.unique().with_columns(is_hero=pl.lit(True))
    return seats.join(flagged, on=["hand", "player"], how="left").with_columns(
        is_hero=pl.col("is_hero").fill_null(False)
    )


def hole_card_checks() -> tuple[tuple[pl.Expr, pl.Expr], ...]:
    """The seat checks of the rules above, in the order a hand's reason is chosen: per seat
    conditions over `attach_hole_cards`' columns, with their reasons (per seat expressions:
    a damaged sighting names the count of the hand's game, `not_the_games_cards`)."""
    count = pl.col("game_hole_cards").fill_null(HOLE_CARDS).cast(pl.String)
    before, after = NOT_THE_GAMES_CARDS.split("{}")
    return (
        (pl.col("damaged_sightings") > 0, pl.lit(before) + count + pl.lit(after)),
        (pl.col("card_versions") > 1, pl.lit(SHOWN_DIFFERENT_CARDS)),
    )


def partly_shown_duplicates(
    seats: pl.DataFrame, showdowns: pl.DataFrame, board_cards: pl.DataFrame
) -> pl.DataFrame:
    """``hand, reason``: hands where a card shown by a player whose hole cards are unknown (a
    partial show) is also on a board (``board_cards``: ``hand``, ``card``) or another player's.
    Shows of known hole cards are in the hole cards, checked with the board already."""
    partly = showdowns.select("hand", "player", pl.col("cards").alias("card")).join(
        seats.filter(pl.col("hole_cards").is_not_null()).select("hand", "player"),
        on=["hand", "player"],
        how="anti",
    )
    if partly.height == 0:
        return pl.DataFrame(schema={"hand": seats.schema["hand"], "reason": pl.String})
    in_hands = partly.select("hand").unique()
    shown = partly.explode("card")
    board_owner = pl.lit(None, dtype=pl.String).alias("player")
    owned = pl.concat(
        [
            seats.join(in_hands, on="hand", how="semi")
            .select("hand", "player", pl.col("hole_cards").alias("card"))
            .explode("card"),
            shown,
            board_cards.join(in_hands, on="hand", how="semi").select("hand", board_owner, "card"),
        ],
        how="vertical_relaxed",
    )
    return (
        owned.drop_nulls("card")
        .unique()
        .group_by("hand", "card")
        .len()
        .filter(pl.col("len") > 1)
        .join(shown.select("hand", "card"), on=["hand", "card"], how="semi")
        .sort("hand", "card")
        .select("hand", reason=pl.lit("duplicate card code ") + pl.col("card").cast(pl.String))
    )
