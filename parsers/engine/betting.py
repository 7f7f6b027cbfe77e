"""Street totals: what every action adds and the player's street total after it."""

from __future__ import annotations

import numpy as np
import polars as pl

from parsers.engine.kernels import highest_before as highest_before_in_street
from parsers.engine.kernels import street_totals
from parsers.engine.lines import in_printed_order

__all__ = [
    "LIVE_KINDS",
    "SILENT_KINDS",
    "highest_total_before",
    "ordered_actions",
    "settle_all_in_kinds",
    "street_amounts",
]

# Kinds whose chips count toward the player's street total (antes and dead blinds do not).
LIVE_KINDS = ("post_sb", "post_bb", "call", "bet", "raise")
# Kinds that move no chips: their amount is null whatever the line printed.
SILENT_KINDS = ("fold", "check", "show", "muck")
# The canonical streets, preflop to river: rows printed before the deal (posts) or after the
# river (shows, mucks) count in the first or last betting street.
PREFLOP, RIVER = 0, 3


def ordered_actions(actions: pl.DataFrame, street_from: str) -> pl.DataFrame:
    """``actions`` `in_printed_order`, numbered (``seq``), with ``street``: the canonical
    street, from the site's section column ``street_from``, clipped to preflop..river. This is
    the frame `street_amounts` reads.

    The other columns are kept as they are (an existing ``street`` or ``seq`` is replaced
    where it stands).
    """
    return in_printed_order(actions).with_columns(
        street=pl.col(street_from).clip(PREFLOP, RIVER).cast(pl.Int8)
    )


def street_amounts(
    actions: pl.DataFrame,
    printed_total: pl.Series | None = None,
    live_kinds: tuple[str, ...] = LIVE_KINDS,
) -> pl.DataFrame:
    """``amount`` (chips added) and ``to_amount`` (street total after) of every action.

    ``actions`` is in action order with ``hand``, ``street``, ``player``, ``kind``, ``amount``
    (the increment, where the site prints one) and ``to`` (the street total, where the site
    prints one). ``printed_total`` marks the rows whose ``to`` is read (default: every live row
    that has one): a printed total always wins over a printed increment (site-formats §1.2).
    """
    kind = actions["kind"]
    live = kind.is_in(list(live_kinds))
    in_flow = live | kind.is_in(["fold", "check"])
    if printed_total is None:
        printed_total = live & actions["to"].is_not_null()
    to_amount, added = street_totals(
        actions["hand"].to_numpy(),
        actions["street"].to_numpy(),
        actions["player"].hash(seed=0).to_numpy().view(np.int64),
        live.to_numpy(),
        printed_total.to_numpy(),
        in_flow.to_numpy(),
        actions["amount"].fill_null(0).to_numpy(),
        actions["to"].fill_null(0).to_numpy(),
    )
    silent = kind.is_in(list(SILENT_KINDS))
    return actions.with_columns(
        amount=pl.when(~silent).then(
            pl.when(printed_total).then(pl.Series(added)).otherwise(pl.col("amount"))
        ),
        to_amount=pl.when(in_flow).then(pl.Series(to_amount)),
    )


def settle_all_in_kinds(actions: pl.DataFrame, undecided: pl.Expr) -> pl.DataFrame:
    """Kind of an all-in printed as chips added only (Bovada ``All-in $x``, Cake ``is all in``).

    Run after `street_amounts`: the row bets into an unopened street, calls up to the street's
    highest total so far, or raises above it.
    """
    highest_before = highest_total_before(actions)
    return actions.with_columns(
        kind=pl.when(undecided)
        .then(
            pl.when(highest_before == 0)
            .then(pl.lit("bet"))
            .when(pl.col("to_amount") <= highest_before)
            .then(pl.lit("call"))
            .otherwise(pl.lit("raise"))
        )
        .otherwise(pl.col("kind"))
    )


def highest_total_before(actions: pl.DataFrame) -> pl.Series:
    """Per row, the highest ``to_amount`` of the earlier rows of its hand and street (0 for the
    first): a compiled loop where the hands' rows are consecutive, else the polars window."""
    hand, street = actions["hand"], actions["street"]
    readable = hand.null_count() == 0 and hand.is_sorted()
    if readable and street.drop_nulls().is_between(PREFLOP, RIVER).all():
        return pl.Series(
            highest_before_in_street(
                hand.to_numpy(),
                street.fill_null(-1).to_numpy(),
                actions["to_amount"].fill_null(0).to_numpy(),
            )
        )
    return actions.select(
        pl.col("to_amount").fill_null(0).cum_max().shift(1, fill_value=0).over("hand", "street")
    ).to_series()
