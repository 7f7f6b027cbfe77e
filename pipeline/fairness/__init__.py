"""``hilo fairness``: is the deal random, and how lucky was each player at all-in?

Deal tests (`pipeline.fairness.deals`) run per *family*: one site, one calendar year (UTC)
and one game; their p-values are adjusted within the family by Holm's method, and a test is
flagged when its adjusted p-value is at most ``alpha``. All-in luck (`pipeline.fairness.luck`)
sums each player's actual minus expected payouts over the audit's all-in spots, with the
variance of each spot's payout over its run-outs, into a z-score.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import polars as pl

from parsers.games import GAMES
from pipeline.dataset import table_parts
from pipeline.fairness.deals import DealTest, deal_tests
from pipeline.fairness.statistics import holm

__all__ = ["FamilyTest", "FairnessReport", "fairness_report"]

DEFAULT_ALPHA = 0.01


@dataclass(frozen=True)
class FamilyTest:
    """A deal test of one family, with its adjusted p-value."""

    site: str
    period: str
    game: str
    test: DealTest
    p_adjusted: float
    flagged: bool

    def row(self) -> dict[str, object]:
        """The test as JSON-ready values."""
        return {
            "name": self.test.name,
            "site": self.site,
            "period": self.period,
            "game": self.game,
            "cards": self.test.observations,
            "statistic": round(self.test.statistic, 6),
            "degrees_of_freedom": self.test.degrees,
            "p_value": self.test.p_value,
            "p_adjusted": self.p_adjusted,
            "flagged": self.flagged,
        }


@dataclass
class FairnessReport:
    """What `fairness_report` found."""

    alpha: float
    tests: list[FamilyTest] = field(default_factory=list)
    players: pl.DataFrame | None = None  # all-in luck per player (pipeline.fairness.luck)
    sites: pl.DataFrame | None = None  # the players' z-scores per site against N(0, 1)


def _scan(root: Path, table: str, columns: list[str]) -> pl.LazyFrame | None:
    parts = table_parts(root, table)
    if not parts:
        return None
    return pl.scan_parquet([str(path) for path in parts]).select(columns)


def _hands(
    root: Path,
    site: str | None,
    since: dt.date | None,
    until: dt.date | None,
    stakes: tuple[str, str] | None,
) -> pl.DataFrame:
    """The selected hands: their family, table run and board."""
    scan = _scan(
        root,
        "hands",
        ["site", "hand_id", "game", "table_name", "tournament_id", "source_file",
         "source_offset", "started_at", "money_scale", "small_blind", "big_blind", "board"],
    )  # fmt: skip
    if scan is None:
        return pl.DataFrame()
    if site is not None:
        scan = scan.filter(pl.col("site") == site)
    if since is not None:
        scan = scan.filter(pl.col("started_at").dt.date() >= since)
    if until is not None:
        scan = scan.filter(pl.col("started_at").dt.date() <= until)
    if stakes is not None:
        scan = scan.filter(
            (pl.col("small_blind") == (float(stakes[0]) * pl.col("money_scale")).round(0))
            & (pl.col("big_blind") == (float(stakes[1]) * pl.col("money_scale")).round(0))
        )
    return (
        scan.with_columns(
            game=pl.col("game").fill_null("O8"),
            period=pl.col("started_at").dt.year().cast(pl.String).fill_null("undated"),
        )
        .unique(["site", "hand_id"], keep="first")
        .sort("site", "table_name", "tournament_id", "source_file", "source_offset", nulls_last=True)
        .collect()
    )


def fairness_report(
    dataset: str | Path,
    *,
    site: str | None = None,
    since: dt.date | None = None,
    until: dt.date | None = None,
    stakes: tuple[str, str] | None = None,
    players: list[str] | None = None,
    alpha: float = DEFAULT_ALPHA,
) -> FairnessReport:
    """Run every deal test of every family of the dataset's selected hands.

    ``stakes`` are the blinds in currency units (``("0.05", "0.10")``); ``players`` keep only
    the hands where one of them is the hero (for the hole-card tests) or the player (for the
    luck).
    """
    from pipeline.fairness.luck import flag_players, luck_by_player, luck_by_site

    if not 0.0 < alpha < 1.0:
        raise ValueError("alpha must be between 0 and 1")
    root = Path(dataset)
    report = FairnessReport(alpha=alpha)
    hands = _hands(root, site, since, until, stakes)
    if hands.height == 0:
        return report
    heroes = _scan(root, "seats", ["site", "hand_id", "player", "is_hero", "hole_cards"])
    hero_rows = (
        pl.DataFrame()
        if heroes is None
        else heroes.filter(pl.col("is_hero").fill_null(False)).collect()
    )
    if players and hero_rows.height:
        hero_rows = hero_rows.filter(pl.col("player").is_in(players))
    if hero_rows.height:
        hero_rows = hands.select(
            "site", "hand_id", "game", "period", "table_name", "tournament_id", "source_file"
        ).with_row_index("order").join(hero_rows, on=["site", "hand_id"], how="inner").sort("order")
    for (family_site, period, game), family in hands.group_by(
        ["site", "period", "game"], maintain_order=True
    ):
        holes, runs = _hero_cards(hero_rows, str(family_site), str(period), str(game))
        boards = [board or [] for board in family["board"].to_list()]
        tests = deal_tests(holes, runs, boards)
        adjusted = holm([test.p_value for test in tests])
        report.tests.extend(
            FamilyTest(str(family_site), str(period), str(game), test, p, p <= alpha)
            for test, p in zip(tests, adjusted, strict=True)
        )
    report.players = flag_players(
        luck_by_player(root, hands.select("site", "hand_id"), players), alpha
    )
    report.sites = luck_by_site(report.players)
    return report


def _hero_cards(
    hero_rows: pl.DataFrame, site: str, period: str, game: str
) -> tuple[np.ndarray, np.ndarray]:
    """The hero's hole cards of one family (rows of the game's size only) and each row's run
    of consecutive hands at one table."""
    size = GAMES[game].hole_cards if game in GAMES else 4
    empty = np.zeros((0, size), dtype=np.int64), np.zeros(0, dtype=np.int64)
    if hero_rows.height == 0:
        return empty
    rows = hero_rows.filter(
        (pl.col("site") == site)
        & (pl.col("period") == period)
        & (pl.col("game") == game)
        & (pl.col("hole_cards").list.len() == size)
    )
    if rows.height == 0:
        return empty
    holes = rows["hole_cards"].list.to_array(size).to_numpy().astype(np.int64).reshape(-1, size)
    table = rows.select(
        pl.concat_str(
            [pl.col(name).fill_null("") for name in ("table_name", "tournament_id", "source_file")],
            separator="\x1f",
        )
    ).to_series()
    runs = (table != table.shift(1)).fill_null(True).cum_sum().to_numpy().astype(np.int64)
    return holes, runs
