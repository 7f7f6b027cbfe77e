"""The pipeline on a Dask cluster.

A local cluster of two worker processes ingests and audits a generated archive; the dataset
must be the one a local run makes, byte for byte in the part files, also when a task fails
once or a worker process is killed while it works. Without a scheduler address nothing of Dask
is imported at all. The cluster tests are marked ``slow`` and ``dask``: ``pytest -m dask``.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, Future
from pathlib import Path
from typing import Any, TypeVar

import polars as pl
import pytest
from typer.testing import CliRunner

from pipeline import dataset
from pipeline.cli import app
from pipeline.generate import generate
from pipeline.ingest import ingest

REPO = Path(__file__).resolve().parent.parent
BATCH_BYTES = 256 << 10  # the archive's ~60 files make about a dozen tasks
T = TypeVar("T")


# --- what is compared ---------------------------------------------------------------------


def part_files(root: Path) -> dict[str, str]:
    """Relative path -> sha256 of every part file of the hand tables."""
    return {
        path.relative_to(root).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for table in dataset.PART_TABLES
        for path in sorted((root / table).rglob("*.parquet"))
    }


def manifest_rows(root: Path) -> list[dict[str, Any]]:
    rows = dataset.read_manifest(root).drop_columns(["ingested_at"]).to_pylist()
    return sorted(rows, key=lambda row: row["path"])


def audit_output(root: Path) -> dict[str, pl.DataFrame]:
    """Every audit file by relative path, rows sorted (row order within a file is not part of
    the result)."""
    tables = {}
    for path in sorted((root / "audit").rglob("*.parquet")):
        frame = pl.read_parquet(path, hive_partitioning=False)
        tables[path.relative_to(root).as_posix()] = frame.sort(frame.columns, nulls_last=True)
    return tables


def assert_same_dataset(root: Path, reference: Path) -> None:
    assert part_files(root) == part_files(reference)
    assert manifest_rows(root) == manifest_rows(reference)


# --- fixtures -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("archive")
    generate(2000, 11, out, workers=1)
    return out / "pokerstars"


@pytest.fixture(scope="module")
def local_run(tmp_path_factory: pytest.TempPathFactory, archive: Path) -> Path:
    """The reference: ingest and audit with local worker processes."""
    root = tmp_path_factory.mktemp("local") / "dataset"
    summary = ingest([archive], root, workers=2, batch_bytes=BATCH_BYTES)
    assert summary.parsed == 2000 and summary.files > 20
    result = CliRunner().invoke(app, ["audit", str(root), "--rake-schedule", "generated"])
    assert result.exit_code == 0, result.output
    return root


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    """A local cluster of two worker processes; yields the scheduler's address."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as local_cluster:
        yield local_cluster.scheduler_address


# --- test-only hooks: a task fails once, a worker process dies once -------------------------


def _fail_once(marker: str, function: Callable[..., T], *args: Any) -> T:
    """Raise on the first call (of all processes: ``marker`` records it), then run normally."""
    try:
        descriptor = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        return function(*args)
    os.close(descriptor)
    raise RuntimeError("injected task failure (test)")


def _die_once(marker: str, function: Callable[..., T], *args: Any) -> T:
    """Kill this worker process on the first call, after it has done part of the work."""
    try:
        descriptor = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        return function(*args)
    os.close(descriptor)
    os.kill(os.getpid(), signal.SIGKILL)
    raise AssertionError("unreachable")


class _Injecting(Executor):
    """Submit every task through ``hook(marker, task, ...)`` on an inner executor."""

    def __init__(self, inner: Executor, hook: Callable[..., Any], marker: Path) -> None:
        self._inner = inner
        self._hook = hook
        self._marker = str(marker)

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        return self._inner.submit(self._hook, self._marker, fn, *args, **kwargs)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        self._inner.shutdown(wait=wait, cancel_futures=cancel_futures)


# --- tests ----------------------------------------------------------------------------------


@pytest.mark.dask
@pytest.mark.slow  # about 50 s on a loaded 2-core machine, most of it cluster start-up
def test_cluster_run_gives_the_local_dataset_and_audit(
    tmp_path: Path, archive: Path, local_run: Path, cluster: str
) -> None:
    root = tmp_path / "dataset"
    runner = CliRunner()
    # The address from the environment, as a job would set it.
    result = runner.invoke(
        app,
        ["ingest", str(archive), "--out", str(root), "--batch-mb", "1"],
        env={"HILO_SCHEDULER": cluster},
    )
    assert result.exit_code == 0, result.output
    assert "hands parsed 2000" in result.output
    # --batch-mb 1 makes other tasks than the reference: feed the same plan through the API too.
    direct = tmp_path / "direct"
    summary = ingest([archive], direct, scheduler=cluster, batch_bytes=BATCH_BYTES)
    assert summary.parsed == 2000
    assert_same_dataset(direct, local_run)
    result = runner.invoke(
        app, ["audit", str(direct), "--scheduler", cluster, "--rake-schedule", "generated"]
    )
    assert result.exit_code == 0, result.output
    reference, distributed = audit_output(local_run), audit_output(direct)
    assert sum(frame.height for name, frame in reference.items() if "payouts" in name) > 2000
    assert distributed.keys() == reference.keys()
    for name, frame in reference.items():
        assert distributed[name].equals(frame), name
    # The ingest through the command line planned other tasks: the same hands all the same.
    assert sorted(dataset.read_table(root, "hands").column("hand_id").to_pylist()) == sorted(
        dataset.read_table(local_run, "hands").column("hand_id").to_pylist()
    )


@pytest.mark.dask
@pytest.mark.slow  # about 50 s on a loaded 2-core machine, most of it cluster start-up
def test_a_task_that_fails_once_is_retried(
    tmp_path: Path, archive: Path, local_run: Path, cluster: str
) -> None:
    from pipeline.executor import make_executor

    root = tmp_path / "dataset"
    marker = tmp_path / "failed-once"
    with make_executor(cluster) as executor:
        flaky = _Injecting(executor, _fail_once, marker)
        summary = ingest([archive], root, executor=flaky, batch_bytes=BATCH_BYTES)
    assert marker.exists()  # the failure did happen
    assert summary.errors == [] and summary.parsed == 2000
    assert_same_dataset(root, local_run)


@pytest.mark.dask
@pytest.mark.slow  # about 50 s on a loaded 2-core machine, most of it cluster start-up
def test_a_worker_killed_mid_run_changes_nothing(
    tmp_path: Path, archive: Path, local_run: Path, cluster: str
) -> None:
    from pipeline.executor import make_executor

    root = tmp_path / "dataset"
    marker = tmp_path / "killed-once"
    with make_executor(cluster) as executor:
        dying = _Injecting(executor, _die_once, marker)
        summary = ingest([archive], root, executor=dying, batch_bytes=BATCH_BYTES)
    assert marker.exists()  # a worker process did die
    assert summary.errors == [] and summary.parsed == 2000
    assert_same_dataset(root, local_run)
    assert not [path for path in root.rglob("*") if dataset.is_temporary(path)]


_NO_DASK = """
import json, sys
from pipeline.cli import app
app(sys.argv[1:], standalone_mode=False)
loaded = sorted(name for name in sys.modules if name.split(".")[0] in ("dask", "distributed"))
print(json.dumps(loaded))
"""


def test_nothing_of_dask_is_imported_without_a_scheduler(tmp_path: Path) -> None:
    environment = {key: value for key, value in os.environ.items() if key != "HILO_SCHEDULER"}
    process = subprocess.run(  # noqa: PLW1510 - the return code is what is tested
        [
            sys.executable,
            "-c",
            _NO_DASK,
            "run",
            str(REPO / "data" / "sample" / "pokerstars"),
            "--out",
            str(tmp_path / "out"),
            "--rake-schedule",
            "generated",
            "--workers",
            "2",
        ],
        cwd=tmp_path,
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert process.returncode == 0, process.stderr
    assert "hands parsed" in process.stdout
    assert (tmp_path / "out" / "dataset" / "audit").is_dir()
    assert json.loads(process.stdout.strip().splitlines()[-1]) == []
