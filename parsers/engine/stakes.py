"""Blinds and bets from a header's two stakes, as most sites print them."""

from __future__ import annotations

import polars as pl

__all__ = ["blinds_and_bets"]


def blinds_and_bets(is_fixed: pl.Expr, first: pl.Expr, second: pl.Expr) -> dict[str, pl.Expr]:
    """``small_bet``, ``big_bet``, ``small_blind``, ``big_blind`` from the header's stakes.

    A fixed-limit header prints the bets; its blinds are what was posted (``posted_sb``,
    ``posted_bb``; the big blind falls back to the small bet). Other limits print the blinds.
    """
    return {
        "small_bet": pl.when(is_fixed).then(first),
        "big_bet": pl.when(is_fixed).then(second),
        "small_blind": pl.when(is_fixed).then(pl.col("posted_sb")).otherwise(first),
        "big_blind": pl.when(is_fixed).then(pl.coalesce("posted_bb", first)).otherwise(second),
    }
