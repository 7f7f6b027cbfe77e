"""The ``hilo`` command line.

Summary line, exit codes, ``run``, and crash safety of a killed ``hilo ingest``.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bench.bench_ingest import write_replicated_files
from pipeline import dataset
from pipeline.cli import app
from tests.conftest import REPOSITORY, o8_hands, run_hilo, table_rows

SUMMARY = re.compile(
    r"^files (\d+) · hands parsed (\d+) · skipped (\d+) · rejected (\d+) · duplicates (\d+)"
    r" · notes \d+$",
    re.MULTILINE,
)


def summary_numbers(output: str) -> tuple[int, int, int, int]:
    return summary_counts(output)[:4]


def summary_counts(output: str) -> tuple[int, int, int, int, int]:
    """files, parsed, skipped, rejected and duplicates of the summary line."""
    matches = SUMMARY.findall(output)
    assert len(matches) == 1, output
    files, parsed, skipped, rejected, duplicates = (int(value) for value in matches[0])
    return files, parsed, skipped, rejected, duplicates


def test_summary_line_accounts_for_every_hand(
    tmp_path: Path,
    stars_files: list[Path],
    corpus_dir: Path,
    corpus_manifest: dict[str, dict[str, str]],
) -> None:
    out = tmp_path / "dataset"
    result = CliRunner().invoke(app, ["ingest", *map(str, stars_files), "--out", str(out)])
    assert result.exit_code == 0, result.output
    files, parsed, skipped, rejected, duplicates = summary_counts(result.stdout)
    expected = sum(o8_hands(corpus_manifest, corpus_dir, path) for path in stars_files)
    assert files == len(stars_files)
    # The 2025 Big O hand is in two files: the second copy is a duplicate.
    assert parsed + skipped + rejected + duplicates == expected
    assert parsed == dataset.read_table(out, "hands").num_rows
    assert f"dataset: {out}" in result.stdout
    assert "already ingested" not in result.stdout

    again = CliRunner().invoke(app, ["ingest", *map(str, stars_files), "--out", str(out)])
    assert again.exit_code == 0
    assert summary_numbers(again.stdout) == (0, 0, 0, 0)
    assert f"already ingested: {len(stars_files)} files" in again.stdout


def test_bad_files_are_reported_but_not_fatal(tmp_path: Path, stars_files: list[Path]) -> None:
    folder = tmp_path / "inputs"
    folder.mkdir()
    (folder / "image.bin").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(500))
    shutil.copy(stars_files[0], folder / "good.txt")
    result = run_hilo(["ingest", str(folder), "--out", str(tmp_path / "dataset")])
    assert result.returncode == 0, result.stderr
    assert summary_numbers(result.stdout)[0] == 2
    assert f"{folder / 'image.bin'}: binary file" in result.stderr
    assert "\x1b[" not in result.stderr + result.stdout  # no progress bar off a terminal


def test_missing_input_exits_non_zero(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app, ["ingest", str(tmp_path / "nowhere"), "--out", str(tmp_path / "d")]
    )
    assert result.exit_code == 2
    assert "no such file or folder" in result.stderr
    assert not (tmp_path / "d").exists()


def test_unwritable_output_exits_non_zero(tmp_path: Path, stars_files: list[Path]) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    result = CliRunner().invoke(
        app, ["ingest", str(stars_files[0]), "--out", str(blocker / "dataset")]
    )
    assert result.exit_code == 2
    assert "cannot write to" in result.stderr


def test_run_ingests_into_out_dataset(tmp_path: Path, stars_files: list[Path]) -> None:
    sample = tmp_path / "data" / "sample" / "pokerstars"
    sample.mkdir(parents=True)
    for path in stars_files[:4]:
        shutil.copy(path, sample / path.name)
    result = run_hilo(["run"], cwd=tmp_path)  # defaults: data/sample/pokerstars -> ./hilo-out
    assert result.returncode == 0, result.stderr
    assert summary_numbers(result.stdout)[0] == 4
    assert "dataset: hilo-out/dataset" in result.stdout
    assert dataset.read_manifest(tmp_path / "hilo-out" / "dataset").num_rows == 4


# --- crash safety -------------------------------------------------------------------------


def _part_digests(root: Path) -> dict[str, str]:
    return {
        path.relative_to(root).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for table in dataset.PART_TABLES
        for path in sorted((root / table).rglob("*.parquet"))
    }


def _commits(root: Path) -> int:
    folder = root / "files"
    return len(list(folder.glob("part-*.parquet"))) if folder.is_dir() else 0


def _ingest_command(inputs: Path, out: Path) -> list[str]:
    # Small blocks and batches: many tasks and commits, so a kill lands between and inside them.
    return [
        sys.executable, "-m", "pipeline.cli", "ingest", str(inputs), "--out", str(out),
        "--workers", "2", "--batch-mb", "1", "--block-mb", "1",
    ]  # fmt: skip


def _kill_when(command: list[str], out: Path, ready: str, timeout: float = 120) -> bool:
    """Start ``command``, SIGKILL it when ``ready`` holds; return whether it was still running.

    ``ready`` is ``"commits+N"`` (N more manifest parts than at start) or ``"after:S"``
    (S seconds after start).
    """
    environment = {**os.environ, "PYTHONPATH": str(REPOSITORY)}
    start_commits = _commits(out)
    started = time.monotonic()
    child = subprocess.Popen(
        command, cwd=REPOSITORY, env=environment,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    kind, _, value = ready.partition("+") if ready.startswith("commits") else ready.partition(":")
    while child.poll() is None and time.monotonic() - started < timeout:
        if kind == "commits" and _commits(out) >= start_commits + int(value):
            break
        if kind == "after" and time.monotonic() - started >= float(value):
            break
        time.sleep(0.005)
    running = child.poll() is None
    child.send_signal(signal.SIGKILL)
    child.wait()
    return running


def _assert_same_dataset(expected: Path, actual: Path) -> None:
    for table in dataset.PART_TABLES:
        assert table_rows(expected, table) == table_rows(actual, table), table
    assert table_rows(expected, "files", drop=["ingested_at"]) == table_rows(
        actual, "files", drop=["ingested_at"]
    )
    assert _part_digests(expected) == _part_digests(actual)
    assert not list(actual.rglob("*.tmp"))


def _crash_and_rerun(tmp_path: Path, stars_files: list[Path], hands: int, kills: list[str]) -> None:
    inputs = tmp_path / "inputs"
    write_replicated_files(inputs, stars_files, hands, hands_per_file=700)
    clean = tmp_path / "clean"
    crashed = tmp_path / "crashed"
    subprocess.run(_ingest_command(inputs, clean), cwd=REPOSITORY, check=True, capture_output=True)
    interrupted = [_kill_when(_ingest_command(inputs, crashed), crashed, ready) for ready in kills]
    assert any(interrupted), "every run finished before its kill: make the input larger"
    final = run_hilo(_ingest_command(inputs, crashed)[3:])
    assert final.returncode == 0, final.stderr
    _assert_same_dataset(clean, crashed)
    assert summary_numbers(final.stdout)[0] + (
        int(m.group(1)) if (m := re.search(r"already ingested: (\d+)", final.stdout)) else 0
    ) == len(list(inputs.iterdir()))


def test_killed_ingest_reruns_to_the_uninterrupted_dataset(
    tmp_path: Path, stars_files: list[Path]
) -> None:
    # Kill right after a first commit, then during start-up/first tasks, then mid-run.
    _crash_and_rerun(tmp_path, stars_files, 10_500, ["commits+1", "after:1.2", "commits+3"])


@pytest.mark.slow
def test_killed_ingest_many_times_reruns_to_the_uninterrupted_dataset(
    tmp_path: Path, stars_files: list[Path]
) -> None:
    kills = ["after:0.3", "commits+1", "after:1.5", "commits+2", "after:2.5", "commits+4"]
    _crash_and_rerun(tmp_path, stars_files, 60_000, kills)


def test_text_table_aligns_numbers_right_and_text_left() -> None:
    import polars as pl

    from pipeline.cli import _text_table

    frame = pl.DataFrame(
        {
            "player": ["Al\x1b[2J", "Bo", None],
            "hands": [12, 3, 400],
            "vpip": [0.25, None, 12.345],
        }
    )
    expected = (
        "player     hands   vpip\n"
        "---------  -----  -----\n"
        "Al\\x1b[2J     12  0.250\n"
        "Bo             3      -\n"
        "-            400   12.3\n"
        "(3 rows)\n"
    )
    assert _text_table(frame) == expected
