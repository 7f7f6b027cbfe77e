"""All-in equity as an audit output: the spots found in generated hands, their rows against the
brute force and the audit's payouts, the table through read_table and DuckDB, the stats."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from pipeline.dataset import read_table
from pipeline.profiles import site_profile
from tests.equity_reference import reference_equity

KNOWN_BY_STREET = {0: 0, 1: 3, 2: 4}


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from pipeline.audit import run_audit
    from pipeline.generate import generate
    from pipeline.ingest import ingest

    root = tmp_path_factory.mktemp("equity")
    generate(600, 33, root / "generated", limit="mix", tournament_share=0.3, workers=1)
    summary = ingest([root / "generated" / "pokerstars"], root / "dataset", workers=1)
    assert not summary.errors
    run_audit(root / "dataset", "generated")
    return root / "dataset"


def test_rows_add_up_and_match_the_payouts(dataset: Path) -> None:
    equity = pl.from_arrow(read_table(dataset, "allin_equity"))
    assert equity.height > 0 and set(equity["street"].unique()) <= {0, 1, 2}
    assert equity["exact"].all() and (equity["standard_error"] == 0).all()
    pots = equity.group_by("site", "hand_id", "pot_index").agg(
        pl.col("expected_amount").sum(), pl.col("actual_amount").sum(), pl.col("pot_amount").first(),
        pl.col("contenders").first(), pl.len(),
    )
    assert (pots["len"] == pots["contenders"]).all()
    assert ((pots["expected_amount"] - pots["pot_amount"]).abs() <= 1e-9 * pots["pot_amount"] + 1e-9).all()
    assert (pots["actual_amount"] == pots["pot_amount"]).all()
    payouts = pl.read_parquet(dataset / "audit" / "payouts" / "site=*" / "*.parquet", hive_partitioning=True)
    paid = payouts.group_by("site", "hand_id", "pot_index", "player").agg(paid=pl.col("amount").sum())
    joined = equity.join(paid, on=["site", "hand_id", "pot_index", "player"], how="left")
    assert (joined["paid"].fill_null(0) == joined["actual_amount"]).all()
    equity_column = equity["equity"]
    assert ((equity_column >= 0) & (equity_column <= 1 + 1e-12)).all()


def test_spots_are_all_in_hands_with_known_cards(dataset: Path) -> None:
    equity = pl.from_arrow(read_table(dataset, "allin_equity"))
    actions = pl.from_arrow(read_table(dataset, "actions"))
    spots = equity.select("site", "hand_id", "street").unique()
    later = (
        actions.join(spots, on=["site", "hand_id"])
        .filter((pl.col("street") > pl.col("street_right")) & pl.col("kind").is_in(["check", "bet", "call", "raise", "fold"]))
    )
    assert later.height == 0  # no betting after the all-in street
    all_in = actions.join(spots, on=["site", "hand_id"]).group_by("site", "hand_id").agg(pl.col("is_all_in").any())
    assert all_in["is_all_in"].all()
    seats = pl.from_arrow(read_table(dataset, "seats"))
    players = equity.select("site", "hand_id", "player").unique().join(seats, on=["site", "hand_id", "player"])
    assert (players["hole_cards"].list.len() == 4).all()
    folded = actions.filter(pl.col("kind") == "fold").select("site", "hand_id", "player")
    assert equity.join(folded, on=["site", "hand_id", "player"], how="semi").height == 0


def test_turn_and_flop_rows_equal_the_brute_force_from_the_hand(dataset: Path) -> None:
    equity = pl.from_arrow(read_table(dataset, "allin_equity")).filter(pl.col("street") >= 1)
    hands = pl.from_arrow(read_table(dataset, "hands")).join(equity.select("site", "hand_id").unique(), on=["site", "hand_id"])
    seats = pl.from_arrow(read_table(dataset, "seats"))
    checked = 0
    for hand in hands.filter(pl.col("board2").is_null()).head(25).iter_rows(named=True):
        rows = equity.filter(pl.col("hand_id") == hand["hand_id"])
        street = rows["street"][0]
        names = rows.select("player").unique(maintain_order=True)["player"].to_list()
        order = (
            seats.filter(pl.col("hand_id") == hand["hand_id"])
            .with_columns(after=(pl.col("seat") - hand["button_seat"] - 1) % 100)
            .sort("after")
        )
        in_order = [name for name in order["player"].to_list() if name in names]
        holes = [tuple(order.filter(pl.col("player") == name)["hole_cards"][0]) for name in in_order]
        pots = []
        for pot_index in sorted(rows["pot_index"].unique().to_list()):
            pot = rows.filter(pl.col("pot_index") == pot_index)
            pots.append((int(pot["pot_amount"][0]), [in_order.index(name) for name in pot["player"].to_list()]))
            pots[-1][1].sort()
        known = tuple(hand["board"][: KNOWN_BY_STREET[street]])
        unit = site_profile(hand["site"]).odd_chip_unit
        truth, _ = reference_equity(holes, known, pots, unit, 1)
        for (amount, members), pot_index, exact in zip(pots, sorted(rows["pot_index"].unique().to_list()), truth):
            for member in members:
                row = rows.filter((pl.col("pot_index") == pot_index) & (pl.col("player") == in_order[member]))
                assert row["expected_amount"][0] == pytest.approx(float(exact[member]), abs=1e-9 * max(amount, 1))
        checked += 1
    assert checked >= 10


def test_stats_views(dataset: Path) -> None:
    from pipeline.stats import open_database

    connection = open_database(dataset, persistent=False)
    count = connection.sql("select count(*) from allin_equity").fetchall()[0][0]
    assert count == read_table(dataset, "allin_equity").num_rows
    frame = connection.sql("select * from agg_player_allin").pl()
    assert abs(frame["allin_luck_minor"].sum()) < 1e-6 * max(1.0, frame["allin_actual_minor"].abs().sum())
    difference = frame["net_won_adjusted_minor"] - frame["net_won_minor"] + frame["allin_luck_minor"]
    assert (difference.abs() < 1e-6).all()
    assert frame["allin_spots"].sum() == connection.sql(
        "select count(*) from (select distinct site, hand_id, player from allin_equity)"
    ).fetchall()[0][0]


def test_audit_without_equity_writes_no_spots(dataset: Path, tmp_path: Path) -> None:
    """`hilo audit --no-equity` audits the same pots and leaves allin_equity empty."""
    import shutil

    from tests.conftest import run_hilo

    copy = tmp_path / "dataset"
    shutil.copytree(dataset, copy)
    result = run_hilo(["audit", str(copy), "--no-equity", "--rake-schedule", "generated", "-w", "1"])
    assert result.returncode in (0, 1), result.stderr
    assert read_table(copy, "allin_equity").num_rows == 0
    payouts = sorted(path.name for path in (copy / "audit" / "payouts").rglob("*.parquet"))
    assert payouts and payouts == sorted(
        path.name for path in (dataset / "audit" / "payouts").rglob("*.parquet")
    )
    assert read_table(dataset, "allin_equity").num_rows > 0
