"""What both PartyPoker layouts (before 2023, and 2023) print alike: the history line, the
player count, dealt cards, the action verbs and the blinds posted."""

from __future__ import annotations

import polars as pl

__all__ = [
    "GAME_STARTS_LINE",
    "HISTORY_LINE",
    "PARTY_DEALT",
    "PARTY_PLAYERS",
    "PARTY_VERBS",
    "posted_blinds",
]

# Printed before a hand by many exports, and so before a file's first hand: carries nothing.
GAME_STARTS_LINE = r"^Game #\d+ starts\.$"
# Game numbers are digits until the 2023 layout, which prints "1676832422659jxi26omnah".
HISTORY_LINE = r"^\*{5} Hand History [Ff]or Game (?P<number>[0-9A-Za-z]+) \*{5}"

PARTY_PLAYERS = r"^Total number of players : \d+(?:/(?P<max_seats>\d+))?$"

PARTY_DEALT = r"^Dealt to (?P<player>.+?) \[(?P<cards>[^\]]*)\]$"

PARTY_VERBS = {
    "posts small blind": "post_sb",
    "posts big blind": "post_bb",
    "posts big blind + dead": "post_both",
    "posts ante": "ante",
    "posts ante of": "ante",
    "calls": "call",
    "bets": "bet",
    "raises": "raise",
    "is all-In": "all_in",
    "checks": "check",
    "folds": "fold",
}


def posted_blinds(posts: pl.DataFrame, full: pl.Expr) -> pl.DataFrame:
    """Per hand, the blinds and ante posted; ``posted_bb`` only from a big blind that was not
    the poster's whole stack (``full``), ``short_bb`` from any."""
    amount, kind = pl.col("amount"), pl.col("kind")
    return posts.group_by("hand").agg(
        posted_sb=amount.filter(kind == "post_sb").max(),
        posted_bb=amount.filter((kind == "post_bb") & full).max(),
        short_bb=amount.filter(kind == "post_bb").max(),
        posted_ante=amount.filter(kind == "ante").max(),
    )
