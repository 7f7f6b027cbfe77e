"""Deal tests and all-in luck (pipeline.fairness): exact distributions, calibration by
simulation, power against a rigged deal, and the command."""

from __future__ import annotations

import doctest
import itertools
import json
import math
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from pipeline.fairness import deals, statistics
from pipeline.fairness.deals import deal_tests, overlap_probabilities, pattern_probabilities
from pipeline.fairness.statistics import chi_square_survival, holm, normal_two_sided


def test_doctests() -> None:
    for module in (deals, statistics):
        assert doctest.testmod(module).failed == 0


@pytest.mark.parametrize(
    ("statistic", "degrees", "p_value"),
    [
        (3.841458820694124, 1, 0.05),  # textbook quantiles
        (6.634896601021214, 1, 0.01),
        (11.344866730144373, 3, 0.01),
        (21.02606981748307, 12, 0.05),
        (68.66929391228578, 51, 0.05),
        (2.0, 2, math.exp(-1.0)),  # two degrees: exp(-x / 2) exactly
    ],
)
def test_chi_square_tail(statistic: float, degrees: int, p_value: float) -> None:
    assert chi_square_survival(statistic, degrees) == pytest.approx(p_value, rel=2e-4)


def test_normal_tail_and_holm() -> None:
    assert normal_two_sided(0.0) == 1.0
    assert normal_two_sided(2.5758293035489) == pytest.approx(0.01, rel=1e-9)
    values = [0.001, 0.2, 0.01, 0.04]
    adjusted = holm(values)
    assert adjusted == pytest.approx([0.004, 0.2, 0.03, 0.08])
    assert all(a >= v for a, v in zip(adjusted, values, strict=True))


def test_hand_patterns_match_every_four_card_hand() -> None:
    """The exact pattern probabilities against all 270,725 four-card hands."""
    hands = np.array(list(itertools.combinations(range(52), 4)), dtype=np.int64)
    expected = pattern_probabilities(4)
    for name, values, categories in (("ranks", hands // 4, 13), ("suits", hands % 4, 4)):
        patterns = deals._patterns(values, categories)
        tally: dict[tuple[int, ...], int] = {}
        for key in patterns:
            tally[key] = tally.get(key, 0) + 1
        assert {key: count / len(hands) for key, count in tally.items()} == pytest.approx(
            expected[name]
        )
    lows = np.isin(hands // 4, deals.LOW_RANKS)
    distinct = [(len({int(r) for r in row[mask]}),) for row, mask in zip(hands // 4, lows, strict=True)]
    tally = {}
    for key in distinct:
        tally[key] = tally.get(key, 0) + 1
    assert {key: count / len(hands) for key, count in tally.items()} == pytest.approx(
        expected["lows"]
    )
    for cards in (4, 5, 6):
        for table in (*pattern_probabilities(cards).values(), overlap_probabilities(cards)):
            assert sum(table.values()) == pytest.approx(1.0)


def _random_family(rng: np.random.Generator, hands: int, cards: int = 4) -> list[deals.DealTest]:
    decks = np.argsort(rng.random((hands, 52)), axis=1)
    holes = decks[:, :cards].astype(np.int64)
    reached = rng.choice([0, 3, 4, 5], size=hands)
    boards = [deck[20 : 20 + length].tolist() for deck, length in zip(decks, reached, strict=True)]
    return deal_tests(holes, np.arange(hands) // 50, boards)


@pytest.mark.parametrize("cards", [4, 5])
def test_false_alarms_of_fair_deals_are_alpha(cards: int) -> None:
    """On 400 fair samples every test's p-values are uniform enough: the share at or below
    0.05 is within four binomial standard errors of 5%, for each test."""
    rng = np.random.default_rng(7 + cards)
    p_values: dict[str, list[float]] = {}
    for _ in range(400):
        for test in _random_family(rng, 1500, cards):
            p_values.setdefault(test.name, []).append(test.p_value)
    assert len(p_values) == 11
    error = math.sqrt(0.05 * 0.95 / 400)
    for name, values in p_values.items():
        share = float(np.mean(np.array(values) <= 0.05))
        assert abs(share - 0.05) < 4 * error, (name, share)


def test_a_rigged_deal_is_flagged() -> None:
    """Hearts under-dealt to the hole cards by 20% in 20,000 hands: the suit test sees it."""
    from pipeline.generate.dealing import deal_batch, parse_rig

    rng = np.random.default_rng(3)
    rows = deal_batch(rng, 20_000, 2, 4, parse_rig("hole-suit:h:0.2"), uniform=True)
    holes = np.array([row[5:9] for row in rows], dtype=np.int64)
    tests = {test.name: test for test in deal_tests(holes, np.zeros(len(rows), dtype=np.int64), [])}
    assert tests["hero_suits"].p_value < 1e-6
    fair = deal_batch(rng, 20_000, 2, 4, None, uniform=True)
    holes = np.array([row[5:9] for row in fair], dtype=np.int64)
    tests = {test.name: test for test in deal_tests(holes, np.zeros(len(fair), dtype=np.int64), [])}
    assert tests["hero_suits"].p_value > 1e-3


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """6,000 uniformly dealt hands, ingested and audited (the audit gives the all-in spots)."""
    from pipeline.audit import run_audit
    from pipeline.generate import generate
    from pipeline.ingest import ingest

    work = tmp_path_factory.mktemp("fairness")
    generate(6000, 21, work / "gen", uniform_deal=True, workers=1)
    ingest([work / "gen" / "pokerstars"], work / "dataset")
    run_audit(work / "dataset", rake_schedule="generated")
    return work / "dataset"


def test_all_in_luck_is_calibrated_on_a_fair_deal(dataset: Path) -> None:
    """Each spot's (actual - expected) / sqrt(variance) has mean 0 and variance 1 over the
    spots of a fair archive, and players' z-scores spread like N(0, 1)."""
    import polars as pl

    from pipeline.dataset import read_table
    from pipeline.fairness import fairness_report

    equity = pl.from_arrow(read_table(dataset, "allin_equity"))
    assert isinstance(equity, pl.DataFrame)
    spots = (
        equity.group_by("hand_id", "player")
        .agg(
            luck=pl.col("actual_amount").sum() - pl.col("expected_amount").sum(),
            variance=pl.col("spot_variance").first(),
        )
        .filter(pl.col("variance") > 0)
    )
    residuals = (spots["luck"] / spots["variance"].sqrt()).to_numpy()
    count = len(residuals)
    assert count > 1000
    assert abs(residuals.mean()) < 4 / math.sqrt(count)
    assert abs(residuals.var() - 1) < 0.12
    players = fairness_report(dataset).players
    assert players is not None
    scores = players.filter(pl.col("spots") >= 5)["z"].drop_nulls().to_numpy()
    assert len(scores) > 50
    assert 0.75 < scores.std(ddof=1) < 1.25
    assert not players["flagged"].any()


def test_rig_syntax() -> None:
    from pipeline.generate.dealing import parse_rig

    rig = parse_rig("allin:Mr NoNo7:0.25")
    assert (rig.place, rig.player, rig.fraction) == ("allin", "Mr NoNo7", 0.25)
    assert parse_rig("hole-rank:a:0.1").value == 12
    for bad in ("allin:tredex", "allin::0.5", "allin:tredex:0", "allin:tredex:1.5", "hole-suit:x:0.1",
                "table-suit:h:0.1"):
        with pytest.raises(ValueError, match="rig"):
            parse_rig(bad)


def test_a_player_favoured_at_all_in_is_flagged(tmp_path: Path) -> None:
    """Run-outs that give one player (the hero at every table) a second chance at the high: that
    player's luck stands out (z > 3, the largest of the site) and is flagged when the player
    asks (``--player``), no other player is flagged, and the deal tests still pass (the rig
    acts on run-outs only). Expected z at 20,000 hands: about 4 (`python -m bench fairness`)."""
    import polars as pl

    from pipeline.audit import run_audit
    from pipeline.fairness import fairness_report
    from pipeline.generate import generate
    from pipeline.ingest import ingest

    favoured = "tredex"
    generate(20_000, 5, tmp_path / "gen", limit="PL,NL", tournament_share=0.0,
             rig=f"allin:{favoured}:1.0", workers=2)  # fmt: skip
    ingest([tmp_path / "gen" / "pokerstars"], tmp_path / "dataset")
    run_audit(tmp_path / "dataset", rake_schedule="generated")
    report = fairness_report(tmp_path / "dataset")
    assert report.players is not None
    tested = report.players.filter(pl.col("p_adjusted").is_not_null())
    top = tested.sort("z", descending=True).row(0, named=True)
    assert top["player"] == favoured and top["z"] > 3 and top["luck"] > 0
    assert report.players.filter(pl.col("flagged"))["player"].to_list() in ([], [favoured])
    assert not any(test.flagged for test in report.tests)
    mine = fairness_report(tmp_path / "dataset", players=[favoured]).players
    assert mine is not None and mine["flagged"].to_list() == [True]
