"""The per-hand checks every text site shares, run on the canonical rows before a hand is stored.

Each returns ``hand, reason`` for the hands it finds wrong (the first reason per hand); a site's
own checks come before these, so its more specific reason wins.
"""

from __future__ import annotations

import polars as pl

from parsers.columns import holds_a_null
from parsers.engine.hole_cards import hole_card_checks, partly_shown_duplicates

__all__ = [
    "MAX_SEATS",
    "actor_problems",
    "board_checks",
    "card_problems",
    "first_problem",
    "seat_problems",
]

# No Omaha table seats more players: a hand listing more is damaged (fuzzing spliced 200 seat
# lines and every text format parsed it), and parsers/engine/kernels.py assumes a handful per street.
MAX_SEATS = 10


def first_problem(*checks: tuple[pl.Expr, str | pl.Expr]) -> pl.Expr:
    """The reason of the first check whose condition holds, null where none does.

    A site lists its own checks as ``(condition, reason)`` pairs, in the order that decides
    which reason a damaged hand gets (the root cause first); a reason is a text, or an
    expression (a column of reasons found earlier).
    """

    def reason_of(reason: str | pl.Expr) -> pl.Expr:
        return pl.lit(reason) if isinstance(reason, str) else reason

    (condition, reason), *rest = checks
    chain = pl.when(condition).then(reason_of(reason))
    for condition, reason in rest:
        chain = chain.when(condition).then(reason_of(reason))
    return chain


def board_checks(board: pl.Expr) -> tuple[tuple[pl.Expr, str], ...]:
    """The checks of a hand's (first) board every text engine ends its hand checks with: a
    card that could not be read, more than five cards. A second board's are `card_problems`'."""
    return (
        (holds_a_null(board), "unreadable board card"),
        (board.list.len() > 5, "more than five board cards"),
    )


def seat_problems(seats: pl.DataFrame) -> pl.DataFrame:
    """Hands whose seat lines cannot stand (too many, unreadable, a seat or a name twice), then
    hands whose hole cards break the rules of `parsers.engine.hole_cards`."""
    card_checks = hole_card_checks()
    if "game_hole_cards" not in seats.columns:
        seats = seats.with_columns(game_hole_cards=pl.lit(None, dtype=pl.Int8))
    per_hand = seats.group_by("hand").agg(
        seats=pl.len(),
        bad=(pl.col("seat").is_null() | pl.col("player").is_null()).sum(),
        bad_stack=pl.col("stack_start").is_null().sum(),
        distinct_seats=pl.col("seat").n_unique(),
        distinct_players=pl.col("player").n_unique(),
        # The reason of the first seat failing each hole-card check (null: none fails).
        **{
            f"cards_{index}": reason.filter(condition).first()
            for index, (condition, reason) in enumerate(card_checks)
        },
    )
    reason = first_problem(
        (pl.col("seats") > MAX_SEATS, f"more than {MAX_SEATS} seat lines"),
        (pl.col("bad") > 0, "unreadable seat line"),
        (pl.col("bad_stack") > 0, "unreadable stack"),
        (pl.col("distinct_seats") != pl.col("seats"), "duplicate seat number"),
        (pl.col("distinct_players") != pl.col("seats"), "duplicate player name"),
        *[
            (pl.col(f"cards_{index}").is_not_null(), pl.col(f"cards_{index}"))
            for index in range(len(card_checks))
        ],
    )
    return per_hand.select("hand", reason=reason).filter(pl.col("reason").is_not_null())


def actor_problems(
    actions: pl.DataFrame, collections: pl.DataFrame, seats: pl.DataFrame
) -> pl.DataFrame:
    seated = seats.select("hand", "player")
    actors = pl.concat(
        [
            actions.select("hand", "seq", "player", "amount", "kind"),
            collections.select(
                "hand", (pl.col("seq") + 100_000).alias("seq"), "player", "amount",
                pl.lit("collected").alias("kind"),
            ),
        ]
    )
    strangers = (
        actors.join(seated, on=["hand", "player"], how="anti")
        .sort("hand", "seq")
        .unique("hand", keep="first", maintain_order=True)
        # A name that could not be read is null: say so rather than give a null reason.
        .select(
            "hand",
            reason=pl.lit("player not seated: ")
            + pl.col("player").fill_null("(unreadable name)"),
        )
    )
    bad_amounts = (
        actors.filter(
            pl.col("kind").is_in(["fold", "check", "show", "muck"]).not_()
            & (pl.col("amount").is_null() | (pl.col("amount") < 0))
        )
        .sort("hand", "seq")
        .unique("hand", keep="first", maintain_order=True)
        .select("hand", reason=pl.lit("unreadable or negative amount (") + pl.col("kind") + ")")
    )
    return pl.concat([strangers, bad_amounts])


def card_problems(
    hands: pl.DataFrame, seats: pl.DataFrame, showdowns: pl.DataFrame
) -> pl.DataFrame:
    """Hands with a card dealt twice, a shown hand holding a card that could not be read
    (``shows [1,2,3c 9h As Qs]``), or a second board (a pot run twice) holding such a card
    or more than five cards.

    A card counts once a player, whether the player's hole cards hold it or a show of only
    some of them (``shows [Qs]``, `hole_cards.partly_shown_duplicates`): a partly shown card
    that is on the board or in another player's hand is as impossible as any other card dealt
    twice."""
    hole = seats.select("hand", pl.col("hole_cards").alias("card")).explode("card")
    board = hands.select("hand", pl.col("board").alias("card")).explode("card")
    board2 = (
        hands.filter(pl.col("board2").is_not_null())
        .select(
            "hand",
            # The second run repeats the first run's flop (and turn): only new cards count.
            pl.col("board2").list.set_difference(pl.col("board")).alias("card"),
        )
        .explode("card")
    )
    cards = pl.concat([hole, board, board2]).drop_nulls("card")
    duplicated = (
        cards.group_by("hand", "card")
        .len()
        .filter(pl.col("len") > 1)
        .sort("hand", "card")
        .select("hand", reason=pl.lit("duplicate card code ") + pl.col("card").cast(pl.String))
    )
    shown_elsewhere = partly_shown_duplicates(seats, showdowns, pl.concat([board, board2]))
    unreadable = showdowns.filter(holds_a_null(pl.col("cards"))).select(
        "hand", reason=pl.lit("unreadable shown card")
    )
    # Every engine's own board checks read the first board; the second run's is checked here.
    second_board = pl.col("board2")
    unreadable_second_board = hands.filter(
        holds_a_null(second_board) | (second_board.list.len() > 5)
    ).select("hand", reason=pl.lit("unreadable second board"))
    return pl.concat([duplicated, shown_elsewhere, unreadable, unreadable_second_board]).unique(
        "hand", keep="first", maintain_order=True
    )
