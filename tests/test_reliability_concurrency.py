"""Two ingests into one dataset at once, and readers during an ingest.

Overlapping inputs (some hands in both) so that the two writers would store a hand twice if they
did not serialise. Readers (``hilo query``, DuckDB over the manifest) must only ever see whole
commits: every hand they see has its seats, and counts never go down.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import polars as pl
import pytest

from bench.bench_ingest import write_replicated_files
from pipeline import dataset
from pipeline.stats import connect, register_sources
from tests.conftest import REPOSITORY, run_hilo
from tests.test_cli import _ingest_command
from tests.test_reliability_crashes import overlapping_inputs


def start(command: list[str]) -> subprocess.Popen[str]:
    """Run ``command`` in a process group of its own (its workers included)."""
    environment = {**os.environ, "PYTHONPATH": str(REPOSITORY)}
    return subprocess.Popen(
        command, cwd=REPOSITORY, env=environment, text=True,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
    )  # fmt: skip


@contextlib.contextmanager
def paused(process: subprocess.Popen[str]) -> Iterator[None]:
    """Stop ``process`` and its workers wherever they are (mid-write included) for the block."""
    with contextlib.suppress(ProcessLookupError):  # it ended since it was last polled
        os.killpg(process.pid, signal.SIGSTOP)
    try:
        yield
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGCONT)


@pytest.mark.slow
def test_two_ingests_at_once_store_every_hand_once(tmp_path: Path, stars_files: list[Path]) -> None:
    inputs = overlapping_inputs(tmp_path, stars_files, 2_100)
    names = sorted(path.name for path in inputs.iterdir())
    halves = [tmp_path / "one", tmp_path / "two"]
    for half in halves:
        half.mkdir()
    for number, name in enumerate(names):  # alternate files; every third one in both halves
        (halves[number % 2] / name).write_bytes((inputs / name).read_bytes())
        if number % 3 == 0:
            (halves[(number + 1) % 2] / name).write_bytes((inputs / name).read_bytes())
    clean = tmp_path / "clean"
    assert run_hilo(["ingest", str(inputs), "--out", str(clean), "--workers", "1"]).returncode == 0
    shared = tmp_path / "shared"
    runs = [start([*_ingest_command(half, shared)[:-4], "--workers", "1"]) for half in halves]
    outputs = [run.communicate(timeout=300) for run in runs]
    assert [run.returncode for run in runs] == [0, 0], outputs
    hands = dataset.read_table(shared, "hands")
    expected = dataset.read_table(clean, "hands")
    keys = list(
        zip(hands.column("site").to_pylist(), hands.column("hand_id").to_pylist(), strict=True)
    )
    assert len(keys) == len(set(keys)), "a hand was stored twice"
    assert sorted(keys) == sorted(
        zip(
            expected.column("site").to_pylist(), expected.column("hand_id").to_pylist(), strict=True
        )
    )

    # No hand lost: each file's hands are parsed, skipped, rejected or duplicates, and add up
    # to what the one-writer run found in the same file (overlap files cut hands in two).
    def found(root: Path) -> dict[str, int]:
        return {
            Path(row["path"]).name: row["hands"]
            + row["skipped"]
            + row["rejected"]
            + row["duplicates"]
            for row in dataset.read_manifest(root).to_pylist()
        }

    assert found(shared) == found(clean)
    recorded = {
        Path(path).name for path in dataset.read_manifest(shared).column("path").to_pylist()
    }
    assert recorded == set(names)


def test_readers_during_an_ingest_see_only_whole_commits(
    tmp_path: Path, stars_files: list[Path]
) -> None:
    inputs = tmp_path / "inputs"
    write_replicated_files(inputs, stars_files, 6_000, hands_per_file=700)
    root = tmp_path / "dataset"
    writer = start(_ingest_command(inputs, root))
    seen: list[int] = []
    try:
        while writer.poll() is None:
            if (root / "files").is_dir():
                # Looking while the writer is stopped: it runs only between looks, so the
                # looks land between and inside its commits however fast the ingest is.
                with paused(writer):
                    # The source views only, as open_database makes them (its models would
                    # make each look ten times longer).
                    connection = connect(":memory:")
                    try:
                        register_sources(connection, root)
                        hands, orphans = connection.sql(
                            "select (select count(*) from hands),"
                            " (select count(*) from hands h anti join seats s using (site, hand_id))"
                        ).fetchall()[0]
                        recorded = connection.sql(
                            "select coalesce(sum(hands), 0) from files"
                        ).fetchall()[0]
                    finally:
                        connection.close()
                    assert orphans == 0, "a reader saw a hand without its seats"
                    assert recorded is not None and int(recorded[0]) == hands, (
                        "manifest and parts disagree"
                    )
                    seen.append(hands)
            # Often: an ingest that ends with its last commit leaves a few tenths of a second
            # of commits to look at (0.2 s between looks saw one state in a run of three).
            time.sleep(0.05)
    finally:
        writer.wait(timeout=300)
    assert writer.returncode == 0
    assert seen == sorted(seen), "a reader saw the dataset shrink"
    assert len(set(seen)) >= 2, "the reader never ran during the ingest: make the input larger"
    final = run_hilo(["query", str(root), "select count(*) as n from hands", "--format", "csv"])
    assert final.stdout.split()[-1] == str(dataset.read_table(root, "hands").num_rows)


def audit_rows(root: Path, table: str) -> list[tuple[object, ...]]:
    paths = sorted((root / "audit" / table).glob("site=*/part-*.parquet"))
    return sorted(pl.read_parquet(paths, hive_partitioning=True).rows(), key=repr)


def test_an_audit_during_an_ingest_audits_one_snapshot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An ingest commits more hands while an audit runs (between its first and second unit):
    the audit's rows are exactly those of an audit of the dataset as it was when it started;
    the next audit covers everything."""
    from pipeline import audit
    from pipeline.generate import generate
    from pipeline.ingest import ingest

    before, after = tmp_path / "before", tmp_path / "after"
    generate(300, 1, before, fault_rate=0.05, workers=1)
    generate(300, 2, after, fault_rate=0.05, workers=1)
    root, snapshot = tmp_path / "dataset", tmp_path / "snapshot"
    ingest([before / "pokerstars"], root, workers=1)
    ingest([before / "pokerstars"], snapshot, workers=1)
    expected = audit.run_audit(snapshot, unit_hands=100)

    original = audit.audit_unit
    units_started: list[str] = []

    def unit_with_an_ingest_beside_it(*args: object) -> audit.UnitSummary:
        units_started.append(str(args[1]))
        if len(units_started) == 2:
            ingest([after / "pokerstars"], root, workers=1)
        return original(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(audit, "audit_unit", unit_with_an_ingest_beside_it)
    during = audit.run_audit(root, unit_hands=100)
    monkeypatch.setattr(audit, "audit_unit", original)

    assert len(units_started) >= 3 and expected.findings_by_kind
    total = dataset.read_table(root, "hands").num_rows
    assert total > expected.hands == 300
    assert (during.hands, during.payouts, during.findings_by_kind) == (
        expected.hands,
        expected.payouts,
        expected.findings_by_kind,
    )
    for table in ("payouts", "discrepancies"):
        assert audit_rows(root, table) == audit_rows(snapshot, table), table
    assert audit.run_audit(root, unit_hands=100).hands == total
