"""All-in luck: how far each player's all-in results ran from their expectation.

For every all-in spot the audit's equity engine gives each player's expected payout from each
pot over every run-out (``allin_equity``) and the variance over the run-outs of the player's
total from the spot (``spot_variance``, the same on each of the player's rows of the spot).
Run-outs of different hands are independent, so over a player's spots

    luck = Σ (actual − expected),   z = luck / √Σ variance

and z is close to standard normal for a fair deal once the player has a few dozen spots. A
player is flagged when the p-value of z, Holm-adjusted over the site's players with
`MINIMUM_SPOTS` or more, is at most alpha. Across the players of a site, the z-scores of a fair
deal follow N(0, 1): their mean and their spread are tested too.
"""

from __future__ import annotations

import math
from pathlib import Path

import polars as pl

from pipeline.fairness.statistics import chi_square_survival, holm, normal_two_sided

__all__ = ["MINIMUM_SPOTS", "flag_players", "luck_by_player", "luck_by_site"]

# Below this many spots a player's z is reported but left out of the site's test: its law is
# still far from normal (a single spot's payout takes a few values only).
MINIMUM_SPOTS = 30


def luck_by_player(
    root: Path, hands: pl.DataFrame, players: list[str] | None = None
) -> pl.DataFrame:
    """One row per (site, player, currency): spots, luck (currency units), z, p_value.

    ``hands`` (site, hand_id) are the selected hands; z and p_value are null where the audit
    kept no variance (an older audit output) or the variance is zero.
    """
    from pipeline.dataset import read_table

    schema = {
        "site": pl.String, "player": pl.String, "currency": pl.String, "spots": pl.Int64,
        "luck": pl.Float64, "luck_minor": pl.Float64, "z": pl.Float64, "p_value": pl.Float64,
    }  # fmt: skip
    equity = pl.from_arrow(read_table(root, "allin_equity"))
    assert isinstance(equity, pl.DataFrame)
    if equity.height == 0:
        return pl.DataFrame(schema=schema)
    if "spot_variance" not in equity.columns:
        equity = equity.with_columns(spot_variance=pl.lit(None, dtype=pl.Float64))
    equity = equity.join(hands, on=["site", "hand_id"], how="semi")
    if players:
        equity = equity.filter(pl.col("player").is_in(players))
    money = pl.from_arrow(read_table(root, "hands").select(["site", "hand_id", "currency", "money_scale"]))
    assert isinstance(money, pl.DataFrame)
    spots = (
        equity.group_by("site", "hand_id", "player")
        .agg(
            actual=pl.col("actual_amount").sum().cast(pl.Float64),
            expected=pl.col("expected_amount").sum(),
            variance=pl.col("spot_variance").first(),
        )
        .join(money.unique(["site", "hand_id"]), on=["site", "hand_id"], how="left")
    )
    players_frame = (
        spots.group_by("site", "player", "currency")
        .agg(
            spots=pl.len().cast(pl.Int64),
            luck_minor=(pl.col("actual") - pl.col("expected")).sum(),
            luck=((pl.col("actual") - pl.col("expected")) / pl.col("money_scale")).sum(),
            variance=pl.col("variance").sum(),
            known=pl.col("variance").is_not_null().all(),
        )
        .with_columns(
            z=pl.when(pl.col("known") & (pl.col("variance") > 0)).then(
                pl.col("luck_minor") / pl.col("variance").sqrt()
            )
        )
        .with_columns(
            p_value=pl.col("z").map_elements(normal_two_sided, return_dtype=pl.Float64)
        )
        .select(list(schema))
        .sort("spots", "site", "player", descending=[True, False, False])
    )
    return players_frame


def flag_players(players: pl.DataFrame, alpha: float) -> pl.DataFrame:
    """``players`` (`luck_by_player`) with ``p_adjusted`` (Holm over the site's players with
    `MINIMUM_SPOTS` or more and a z; null for the others, whose z is too far from normal to
    claim an error rate) and ``flagged`` (p_adjusted at most ``alpha``)."""
    tested = (pl.col("spots") >= MINIMUM_SPOTS) & pl.col("p_value").is_not_null()
    indexed = players.with_row_index("row")
    adjusted: dict[int, float] = {}
    for _, group in indexed.filter(tested).group_by(["site"], maintain_order=True):
        rows = group["row"].to_list()
        adjusted.update(zip(rows, holm(group["p_value"].to_list()), strict=True))
    column = pl.Series("p_adjusted", [adjusted.get(row) for row in range(players.height)],
                       dtype=pl.Float64)  # fmt: skip
    return players.with_columns(column).with_columns(
        flagged=pl.col("p_adjusted").fill_null(1.0) <= alpha
    )


def luck_by_site(players: pl.DataFrame) -> pl.DataFrame:
    """Per site, whether its players' z-scores (those with `MINIMUM_SPOTS` or more) look like
    draws of N(0, 1): their mean (z̄√n ~ N(0, 1)) and their spread (Σz² ~ χ² with n degrees)."""
    rows = []
    eligible = players.filter(pl.col("z").is_not_null() & (pl.col("spots") >= MINIMUM_SPOTS))
    for (site,), group in eligible.group_by(["site"], maintain_order=True):
        scores = group["z"].to_list()
        count = len(scores)
        mean = sum(scores) / count
        squares = sum(score * score for score in scores)
        spread = math.sqrt(sum((score - mean) ** 2 for score in scores) / (count - 1)) if count > 1 else None
        # Two-sided for the spread: too little scatter is as suspicious as too much.
        upper = chi_square_survival(squares, count)
        rows.append(
            {
                "site": site,
                "players": count,
                "mean_z": mean,
                "sd_z": spread,
                "p_mean": normal_two_sided(mean * math.sqrt(count)),
                "p_spread": min(1.0, 2 * min(upper, 1.0 - upper)),
            }
        )
    schema = {
        "site": pl.String, "players": pl.Int64, "mean_z": pl.Float64, "sd_z": pl.Float64,
        "p_mean": pl.Float64, "p_spread": pl.Float64,
    }  # fmt: skip
    return pl.DataFrame(rows, schema=schema)
