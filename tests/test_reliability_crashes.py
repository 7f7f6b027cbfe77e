"""SIGKILL at many points of ``hilo ingest``, ``hilo audit`` and ``hilo stats``; then run again.

The inputs overlap (some hands are in two files), so the kill also lands in the middle of
duplicate handling. After the re-runs, every table, the key index, the audit's outputs and the
statistics must equal those of an uninterrupted run, compared through the public CLI.
"""

from __future__ import annotations

import itertools
import random
import subprocess
from pathlib import Path

import pytest

from bench.bench_ingest import write_replicated_files
from pipeline import dataset, duplicates
from pipeline.audit import run_audit
from tests.conftest import REPOSITORY, run_hilo, table_rows
from tests.test_cli import _assert_same_dataset, _ingest_command, _kill_when

QUERIES = {
    "payouts": "select * from audit_payouts order by all",
    "discrepancies": "select * from audit_discrepancies order by all",
}


def overlapping_inputs(folder: Path, stars_files: list[Path], hands: int) -> Path:
    """Replicated corpus hands in files of 700, plus files overlapping their neighbours."""
    inputs = folder / "inputs"
    written = write_replicated_files(inputs, stars_files, hands, hands_per_file=700)
    for number, (left, right) in enumerate(itertools.pairwise(written)):
        if number % 2 == 0:
            a, b = left.read_bytes(), right.read_bytes()
            (inputs / f"overlap-{number:04d}.txt").write_bytes(a[len(a) // 2 :] + b[: len(b) // 3])
    return inputs


def index_rows(root: Path) -> list[tuple[object, ...]]:
    import pyarrow.parquet as pq

    named = {p for parts in dataset.read_manifest(root).column("parts").to_pylist() for p in parts}
    rows = [
        tuple(row.values())
        for part in sorted(named)
        if part.startswith(f"{duplicates.INDEX}/")
        for row in pq.read_table(root / part).to_pylist()
    ]
    return sorted(rows, key=str)


def _rounded(csv_text: str) -> list[tuple[str, ...]]:
    """CSV rows with floats to 9 significant digits: DuckDB sums floats in parallel, in no fixed
    order, so the last bits of a float average differ between any two runs, killed or not."""
    rows = []
    for line in csv_text.splitlines():
        cells = []
        for cell in line.split(","):
            try:
                number = float(cell)
            except ValueError:
                cells.append(cell)
                continue
            cells.append(cell if cell.lstrip("-").isdigit() else f"{number:.9g}")
        rows.append(tuple(cells))
    return rows


def cli_outputs(root: Path) -> dict[str, object]:
    """What a user sees: the audit's rows (DuckDB views) and ``hilo stats`` as CSV."""
    from pipeline.stats import open_database

    connection = open_database(root, persistent=False)
    try:
        outputs: dict[str, object] = {
            name: connection.sql(sql).fetchall() for name, sql in QUERIES.items()
        }
    finally:
        connection.close()
    result = run_hilo(["stats", str(root), "--format", "csv", "--counts"])
    assert result.returncode == 0, result.stderr
    outputs["stats"] = _rounded(result.stdout)
    return outputs


def kill_after(arguments: list[str], seconds: float) -> bool:
    """Run ``hilo ARGUMENTS``, SIGKILL it after ``seconds``; return whether it was running."""
    import sys

    command = [sys.executable, "-m", "pipeline.cli", *arguments]
    return _kill_when(command, REPOSITORY / "no-such-dataset", f"after:{seconds}")


def crash_everything(
    tmp_path: Path,
    stars_files: list[Path],
    hands: int,
    ingest_kills: list[str],
    delays: list[float],
) -> None:
    inputs = overlapping_inputs(tmp_path, stars_files, hands)
    clean, crashed = tmp_path / "clean", tmp_path / "crashed"
    subprocess.run(_ingest_command(inputs, clean), cwd=REPOSITORY, check=True, capture_output=True)
    run_audit(clean, "auto")  # in this process: the uninterrupted reference needs no CLI
    expected = cli_outputs(clean)
    assert dataset.read_manifest(clean).column("duplicates").to_pylist().count(0) < len(
        list(inputs.iterdir())
    ), "the inputs must hold duplicate hands"

    interrupted = [
        _kill_when(_ingest_command(inputs, crashed), crashed, ready) for ready in ingest_kills
    ]
    assert any(interrupted), "every ingest finished before its kill: make the input larger"
    final = run_hilo(_ingest_command(inputs, crashed)[3:])
    assert final.returncode == 0, final.stderr
    _assert_same_dataset(clean, crashed)
    assert index_rows(crashed) == index_rows(clean)
    assert table_rows(crashed, "files", drop=["ingested_at"]) == table_rows(
        clean, "files", drop=["ingested_at"]
    )

    for delay in delays:  # audit, then stats, killed part-way (or not at all when too fast)
        kill_after(["audit", str(crashed), "--rake-schedule", "auto"], delay)
    assert run_hilo(["audit", str(crashed), "--rake-schedule", "auto"]).returncode == 0
    for delay in delays:
        kill_after(["stats", str(crashed)], delay)
    assert cli_outputs(crashed) == expected
    assert not list(crashed.rglob("*.tmp"))


def test_killed_ingest_audit_and_stats_rerun_to_the_uninterrupted_results(
    tmp_path: Path, stars_files: list[Path]
) -> None:
    crash_everything(tmp_path, stars_files, 2_800, ["commits+1", "after:1.2"], [1.0])


@pytest.mark.slow
def test_killed_many_times_at_random_points(tmp_path: Path, stars_files: list[Path]) -> None:
    chooser = random.Random(11)
    kills = [f"after:{chooser.uniform(0.2, 4.0):.2f}" for _ in range(6)]
    kills += [f"commits+{chooser.randint(1, 6)}" for _ in range(4)]
    delays = [round(chooser.uniform(0.2, 3.0), 2) for _ in range(6)]
    crash_everything(tmp_path, stars_files, 40_000, kills, delays)
