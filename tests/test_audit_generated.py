"""The audit on generated archives: agreement with the scalar rules reference and with the
generator's ground truth, and every injected fault found (precision and recall 1.0)."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from parsers import parse_bytes
from pipeline.audit import AuditResult, audit_tables
from pipeline.generate import generate
from pipeline.rules import settle_tables

TABLES = ("hands", "seats", "actions", "collections", "showdowns")
PER_PLAYER = ["site", "hand_id", "pot_index", "board_index", "player"]

# What each injected fault must show up as (docs/faults.md → docs/audit.md).
FINDINGS_FOR_FAULT = {
    "odd_chip_wrong_player": {"odd_chip"},
    "low_to_wrong_player": {"missing_winner", "unexpected_winner", "payout"},
    "high_to_second_best": {"missing_winner", "unexpected_winner", "payout"},
    "no_split_with_low": {"missing_winner", "unexpected_winner", "payout"},
    "side_pot_ineligible": {"missing_winner", "unexpected_winner", "payout"},
    "rake_over_cap": {"rake"},
    "rake_no_flop": {"rake"},
    "description_mismatch": {"hand_description"},
}


def parsed_tables(folder: Path) -> dict[str, pl.DataFrame]:
    parts: dict[str, list[pl.DataFrame]] = {name: [] for name in TABLES}
    for path in sorted((folder / "pokerstars").iterdir()):
        result = parse_bytes(path.read_bytes(), str(path))
        assert result is not None and result.rejected == 0, path
        for name in TABLES:
            parts[name].append(pl.from_arrow(result.tables[name]))  # type: ignore[arg-type]
    return {name: pl.concat(frames) for name, frames in parts.items()}


def per_player(payouts: pl.DataFrame) -> pl.DataFrame:
    return payouts.group_by(PER_PLAYER).agg(pl.col("amount").sum()).sort(PER_PLAYER)


def audit_generated(
    tmp_path: Path, hands: int, seed: int, fault_rate: float
) -> tuple[dict[str, pl.DataFrame], AuditResult, Path]:
    out = tmp_path / "generated"
    generate(hands, seed, out, limit="mix", tournament_share=0.3, fault_rate=fault_rate)
    tables = parsed_tables(out)
    return tables, audit_tables(**tables, rake_schedule="generated"), out


def check_agreement(tables: dict[str, pl.DataFrame], result: AuditResult, out: Path) -> None:
    faulted = pl.read_parquet(out / "truth" / "truth_faults.parquet").select("hand_id")
    clean = result.payouts.join(faulted, on="hand_id", how="anti")
    # The scalar reference, hand by hand, on the same parsed tables.
    reference = settle_tables(tables["hands"], tables["seats"], tables["actions"])
    reference = reference.join(faulted, on="hand_id", how="anti")
    assert per_player(clean).equals(per_player(reference))
    # The generator's own settlement (a third, independent implementation).
    truth = pl.read_parquet(out / "truth" / "truth_payouts.parquet").join(
        faulted, on="hand_id", how="anti"
    )
    assert per_player(clean).equals(
        per_player(truth.select(*PER_PLAYER, "amount").cast(clean.select(*PER_PLAYER, "amount").schema))
    )


def check_faults_found(result: AuditResult, out: Path) -> dict[str, int]:
    faults = pl.read_parquet(out / "truth" / "truth_faults.parquet")
    found = result.discrepancies.group_by("hand_id").agg(kinds=pl.col("kind").unique())
    faulted_hands = set(faults["hand_id"])
    flagged_hands = set(found["hand_id"])
    assert flagged_hands - faulted_hands == set(), "findings on unfaulted hands"
    assert faulted_hands - flagged_hands == set(), "injected faults not found"
    kinds = dict(zip(found["hand_id"], found["kinds"], strict=True))
    for hand_id, fault in zip(faults["hand_id"], faults["kind"], strict=True):
        assert set(kinds[hand_id]) <= FINDINGS_FOR_FAULT[fault], (hand_id, fault, kinds[hand_id])
    return dict(faults.group_by("kind").len().iter_rows())


def test_clean_archive_agrees_with_reference_and_truth(tmp_path: Path) -> None:
    tables, result, out = audit_generated(tmp_path, 3000, seed=11, fault_rate=0.0)
    assert result.discrepancies.height == 0, result.discrepancies.head(10)
    assert result.unevaluable == 0
    check_agreement(tables, result, out)
    # The sample is varied enough to mean something: side pots and split pots occur.
    assert result.payouts["pot_index"].max() >= 2
    assert (result.payouts["half"] == "low").sum() > 100


def test_every_injected_fault_is_found_and_nothing_else(tmp_path: Path) -> None:
    tables, result, out = audit_generated(tmp_path, 4000, seed=12, fault_rate=0.05)
    by_kind = check_faults_found(result, out)
    assert set(by_kind) == set(FINDINGS_FOR_FAULT), by_kind
    check_agreement(tables, result, out)


@pytest.mark.slow
def test_hundred_thousand_hands(tmp_path: Path) -> None:
    tables, result, out = audit_generated(tmp_path, 100_000, seed=13, fault_rate=0.02)
    check_faults_found(result, out)
    check_agreement(tables, result, out)
