"""Helpers shared by the per-site parser tests: the corpus's manifest and table access (the
corpus itself is found by `tests.shared_data`)."""

from __future__ import annotations

import csv
import re
from collections import Counter
from collections.abc import Iterable

import polars as pl

from parsers.base import ParseResult
from parsers.columns import card_code
from tests.shared_data import CORPUS, has_corpus


def manifest_rows() -> list[dict[str, str]]:
    """Every row of the corpus's ``MANIFEST.tsv`` (none when the corpus is absent)."""
    if not has_corpus():
        return []
    with open(CORPUS / "MANIFEST.tsv", newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


def cards(text: str) -> list[int]:
    """``"Ah Kd"`` → card codes."""
    return [card_code(token) for token in text.split()]


def frames(result: ParseResult) -> dict[str, pl.DataFrame]:
    """A parse result's tables as polars frames."""
    return {name: pl.from_arrow(table) for name, table in result.tables.items()}  # type: ignore[misc]


def variant_counts(variants: str) -> dict[str, int]:
    """MANIFEST's ``variants`` column (``O8:51,Razz:3``) as a dict."""
    return {name: int(count) for name, count in re.findall(r"([\w-]+):(\d+)", variants)}


def games_read(variants: str, codes: Iterable[str]) -> dict[str, int]:
    """The hands of MANIFEST's ``variants`` column of the games ``codes`` (`parsers.games`
    codes a site reads), by game."""
    wanted = set(codes)
    return {name: count for name, count in variant_counts(variants).items() if name in wanted}


def parsed_games(result: ParseResult) -> dict[str, int]:
    """The stored hands of a parse result, by ``hands.game``."""
    return dict(Counter(result.tables["hands"].column("game").to_pylist()))


MONEY_IN = ("post_sb", "post_bb", "post_dead", "ante", "call", "bet", "raise")


def chip_ledger(tables: dict[str, pl.DataFrame]) -> pl.DataFrame:
    """Per hand: printed total pot and rake, chips put in, returned and collected (0 if none)."""
    actions = tables["actions"]
    put = (
        actions.filter(pl.col("kind").is_in(MONEY_IN))
        .group_by("hand_id")
        .agg(put=pl.col("amount").sum())
    )
    returned = (
        actions.filter(pl.col("kind") == "uncalled_return")
        .group_by("hand_id")
        .agg(returned=pl.col("amount").sum())
    )
    collected = tables["collections"].group_by("hand_id").agg(collected=pl.col("amount").sum())
    return (
        tables["hands"]
        .select("hand_id", "total_pot", "rake")
        .join(put, on="hand_id", how="left")
        .join(returned, on="hand_id", how="left")
        .join(collected, on="hand_id", how="left")
        .fill_null(0)
    )
