"""A full disk during ingest, audit and stats: a clear error, the committed dataset intact, and a
re-run after space is freed that completes to the dataset of a run that never ran out.

The slow test puts the dataset on a small tmpfs mounted for the test (needs root or
CAP_SYS_ADMIN; skipped with the reason otherwise): space runs out for real (ENOSPC), at whatever
write comes next. The other needs no privilege: a file size limit (RLIMIT_FSIZE) on the
child process makes writes fail the same way (EFBIG).
"""

from __future__ import annotations

import os
import resource
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from bench.bench_ingest import write_replicated_files
from pipeline import dataset
from tests.conftest import REPOSITORY, run_hilo, table_rows


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    mount_point = tmp_path / "disk"
    mount_point.mkdir()
    if shutil.which("mount") is None:
        pytest.skip("no mount command: cannot make a small filesystem")
    made = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=6m", "tmpfs", str(mount_point)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if made.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here ({made.stderr.strip()}): needs root")
    try:
        yield mount_point
    finally:
        subprocess.run(["umount", "-l", str(mount_point)], check=False)


def resize(mount_point: Path, megabytes: int) -> None:
    subprocess.run(["mount", "-o", f"remount,size={megabytes}m", str(mount_point)], check=True)


def fill(mount_point: Path, leave: int = 0) -> Path:
    """Take every free byte of the filesystem but ``leave``; return the file to delete."""
    filler = mount_point / "filler"
    with open(filler, "wb") as handle:
        try:
            while True:
                handle.write(b"\0" * (64 << 10))
                handle.flush()
        except OSError:
            pass
    os.truncate(filler, max(0, filler.stat().st_size - leave))
    return filler


def assert_clear_failure(result: subprocess.CompletedProcess[str]) -> None:
    assert result.returncode != 0
    assert "Traceback" not in result.stderr, result.stderr
    assert "No space left on device" in result.stderr, result.stderr


@pytest.mark.slow
def test_full_disk_during_ingest_audit_and_stats(
    small_disk: Path, tmp_path: Path, stars_files: list[Path]
) -> None:
    inputs = tmp_path / "inputs"
    files = write_replicated_files(inputs, stars_files, 14_000, hands_per_file=700)
    first = inputs / "first"
    first.mkdir()
    files[0].rename(first / files[0].name)
    root = small_disk / "dataset"
    expected = tmp_path / "expected"
    for target in (root, expected):
        assert (
            run_hilo(["ingest", str(first), "--out", str(target), "--workers", "1"]).returncode == 0
        )
    committed = {table: table_rows(root, table) for table in ("hands", "files")}

    # Ingest: the whole input does not fit in 6 MB.
    for target in (expected,):
        assert (
            run_hilo(["ingest", str(inputs), "--out", str(target), "--workers", "2"]).returncode
            == 0
        )
    filler = fill(small_disk, leave=400 << 10)
    result = run_hilo(["ingest", str(inputs), "--out", str(root), "--workers", "2"])
    assert_clear_failure(result)
    # The committed state is still whole and readable (possibly plus whole later commits).
    hands = table_rows(root, "hands")
    assert all(hands[row] >= count for row, count in committed["hands"].items())
    resize(small_disk, 64)
    filler.unlink()
    again = run_hilo(["ingest", str(inputs), "--out", str(root), "--workers", "2"])
    assert again.returncode == 0, again.stderr
    for table in (*dataset.PART_TABLES,):
        assert table_rows(root, table) == table_rows(expected, table), table
    assert not list(root.rglob("*.tmp"))

    # Audit with no byte left: a clean failure, then a complete run.
    ballast = fill(small_disk)
    assert_clear_failure(run_hilo(["audit", str(root)]))
    assert table_rows(root, "hands") == table_rows(expected, "hands")
    # Stats cannot update DATASET/hilo.duckdb: they say so and compute in memory instead.
    stats = run_hilo(["stats", str(root), "--format", "csv"])
    assert stats.returncode == 0 and "Traceback" not in stats.stderr
    assert "No space left on device); using memory" in stats.stderr
    ballast.unlink()
    done = run_hilo(["audit", str(root)])
    assert done.returncode == 0, done.stderr
    assert run_hilo(["stats", str(root), "--format", "csv"]).returncode == 0
    assert run_hilo(["audit", str(expected)]).returncode == 0
    for sql in ("select count(*) from audit_payouts", "select count(*) from audit_discrepancies"):
        counts = [
            run_hilo(["query", str(where), sql, "--format", "csv"]).stdout
            for where in (root, expected)
        ]
        assert counts[0] == counts[1], sql


def _limit_file_size(limit: int) -> Callable[[], None]:
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write then fails with EFBIG instead

    return apply


def test_file_size_limit_during_ingest_needs_no_root(
    tmp_path: Path, stars_files: list[Path]
) -> None:
    """Without a small filesystem: RLIMIT_FSIZE makes every write past N bytes fail (EFBIG)."""
    inputs = tmp_path / "inputs"
    write_replicated_files(inputs, stars_files, 2_800, hands_per_file=700)
    root, expected = tmp_path / "dataset", tmp_path / "expected"
    arguments = ["ingest", str(inputs), "--workers", "1", "--batch-mb", "1"]
    assert run_hilo([*arguments, "--out", str(expected)]).returncode == 0
    first = inputs / "HH-replicated-0000.txt"
    assert run_hilo(["ingest", str(first), "--out", str(root)]).returncode == 0
    before = {table: table_rows(root, table) for table in dataset.PART_TABLES}
    environment = {**os.environ, "PYTHONPATH": str(REPOSITORY), "PYTHONDONTWRITEBYTECODE": "1"}
    limited = subprocess.run(
        [sys.executable, "-m", "pipeline.cli", *arguments, "--out", str(root)],
        cwd=REPOSITORY, env=environment, capture_output=True, text=True, timeout=300,
        preexec_fn=_limit_file_size(8_000), check=False,  # parts here are ~14 kB
    )  # fmt: skip
    assert limited.returncode == 2, limited.stdout + limited.stderr
    assert "Traceback" not in limited.stderr, limited.stderr
    assert limited.stderr.startswith(f"hilo: error: cannot write to {root}"), limited.stderr
    # What was committed before is whole and readable, and nothing was added half-way.
    committed = dataset.read_manifest(root)
    assert {table: table_rows(root, table) for table in dataset.PART_TABLES} == before
    again = run_hilo([*arguments, "--out", str(root)])
    assert again.returncode == 0, again.stderr
    for table in dataset.PART_TABLES:
        assert table_rows(root, table) == table_rows(expected, table), table
    assert committed.num_rows < dataset.read_manifest(root).num_rows
    assert not list(root.rglob("*.tmp"))
