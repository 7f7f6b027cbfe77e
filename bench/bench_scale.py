"""The whole pipeline at scale: ingest, audit, statistics and compaction of millions of hands.

Generates ``HILO_SCALE_HANDS`` hands (default 5,000,000; about 1.6 GB of text per million), once,
cached under ``bench/out/scale-<hands>/archive`` (or uses ``HILO_SCALE_ARCHIVE``). Then each stage runs in a fresh process (so one
stage's memory does not count against the next) while the resident memory of that process and
all its children (pool workers, Dask nanny and worker processes) is sampled every 50 ms:

- ``local``: ``ingest`` with local worker processes (one per core), ``audit`` on the same
  pool, ``stats`` (DuckDB, its memory limit and spill folder at their defaults), ``compact``,
  then ``stats`` again on the compacted dataset;
- ``dask, 2 workers`` and ``dask, 1 worker``: a ``LocalCluster`` of worker processes started by
  the stage's process (its start-up is timed apart), ``ingest`` and ``audit`` through it. The
  statistics run in DuckDB on one node whatever the engine, so they are measured once.

Rates are hands per second; the ratio is the local run's time over the stage's (above 1: faster
than local). The Dask datasets must have byte-identical part files to the local one. The
machine is shared: the load average is printed before and after.

Run with ``python -m bench scale`` (``HILO_SCALE_HANDS=1000000`` for a shorter run).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from bench.measure import run_measured

__all__ = ["main"]

REPOSITORY = Path(__file__).resolve().parent.parent
HANDS = int(os.environ.get("HILO_SCALE_HANDS", "5000000"))
SEED = 7
ENGINES = {"local": None, "dask, 2 workers": 2, "dask, 1 worker": 1}
# HILO_SCALE_ENGINES=local skips the cluster runs (a comma list of the names above).
SELECTED = [
    name.strip() for name in os.environ.get("HILO_SCALE_ENGINES", ",".join(ENGINES)).split(",")
]
LOCAL_STAGES = ("ingest", "audit", "stats", "compact", "stats, compacted")
CLUSTER_STAGES = ("ingest", "audit")


def _load() -> str:
    return "load average " + " ".join(f"{value:.2f}" for value in os.getloadavg())


def _folder() -> Path:
    return REPOSITORY / "bench" / "out" / f"scale-{HANDS}"


def _archive() -> Path:
    """Generate the archive once; reuse it when a finished one is there.

    ``HILO_SCALE_ARCHIVE`` names a folder of hand histories to use instead (for instance the
    audit benchmark's archive of the same size), so that no generation is needed.
    """
    if given := os.environ.get("HILO_SCALE_ARCHIVE"):
        return Path(given)
    archive = _folder() / "archive"
    done = archive / ".complete"
    if done.exists():
        return archive / "pokerstars"
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "pipeline.cli", "generate", "--hands", str(HANDS),
         "--seed", str(SEED), "--out", str(archive)],
        check=True, cwd=REPOSITORY,
    )  # fmt: skip
    done.write_text("")
    size = sum(path.stat().st_size for path in (archive / "pokerstars").rglob("*"))
    print(
        f"generated {HANDS:,} hands ({size / 1e9:.2f} GB) in {time.perf_counter() - started:.0f} s"
    )
    return archive / "pokerstars"


# -- one stage, in a child process -----------------------------------------------------------


def _run_stage(engine: str, stage: str, dataset: Path, archive: Path) -> dict[str, Any]:
    """Run ``stage`` of ``engine`` in this process; return its timings and counts."""
    from pipeline.executor import make_executor

    workers = ENGINES[engine]
    cluster = None
    startup = 0.0
    scheduler = None
    if workers is not None:
        from distributed import LocalCluster

        started = time.perf_counter()
        cluster = LocalCluster(
            n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None
        )
        scheduler = cluster.scheduler_address
        startup = time.perf_counter() - started
    try:
        started = time.perf_counter()
        result: dict[str, Any] = {"startup": startup}
        if stage == "ingest":
            from pipeline.ingest import ingest

            summary = ingest([archive], dataset, scheduler=scheduler)
            result["hands"] = summary.parsed
        elif stage == "audit":
            from pipeline.audit import run_audit

            with make_executor(scheduler) as executor:
                audited = run_audit(dataset, "generated", executor=executor)
            result["hands"] = audited.hands
            result["findings"] = sum(audited.findings_by_kind.values())
        elif stage.startswith("stats"):
            from pipeline.stats import compute_stats

            frame = compute_stats(dataset)
            result["players"] = frame.height
            result["hands"] = _hands(dataset)
        elif stage == "compact":
            from pipeline.compact import compact

            compacted = compact(dataset)
            result["hands"] = _hands(dataset)
            result["files"] = f"{compacted.parts_before} → {compacted.parts_after}"
            result["manifests"] = f"{compacted.manifests_before} → {compacted.manifests_after}"
        result["seconds"] = time.perf_counter() - started
        return result
    finally:
        if cluster is not None:
            cluster.close()


def _hands(dataset: Path) -> int:
    import pyarrow.compute as pc

    from pipeline.dataset import read_manifest

    return int(pc.sum(read_manifest(dataset).column("hands")).as_py() or 0)


# -- the driver ------------------------------------------------------------------------------


def _measure(engine: str, stage: str, dataset: Path, archive: Path) -> dict[str, Any]:
    """Run one stage in a child process; its result and the peak memory (PSS) of its tree."""
    result, peak = run_measured(
        [sys.executable, "-m", "bench.bench_scale", engine, stage, str(dataset), str(archive)],
        cwd=REPOSITORY,
    )  # fmt: skip
    result["peak_rss"] = peak
    return result


def _part_digests(dataset: Path) -> dict[str, str]:
    from pipeline.dataset import PART_TABLES

    return {
        path.relative_to(dataset).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for table in PART_TABLES
        for path in sorted((dataset / table).rglob("*.parquet"))
    }


def _dataset_bytes(dataset: Path) -> dict[str, tuple[int, int]]:
    """Per table: (files, bytes) of its part files."""
    from pipeline.dataset import PART_TABLES

    sizes = {}
    for table in PART_TABLES:
        paths = list((dataset / table).rglob("part-*.parquet"))
        sizes[table] = (len(paths), sum(path.stat().st_size for path in paths))
    return sizes


def main() -> None:
    """Run every engine's stages; print rates, peak memory and ratios to the local run."""
    archive = _archive()
    folder = _folder()
    print(f"machine: {os.cpu_count()} cores · {HANDS:,} hands · before: {_load()}")
    results: dict[tuple[str, str], dict[str, Any]] = {}
    datasets = {}
    for engine in SELECTED:
        dataset = folder / ("dataset-" + engine.replace(", ", "-").replace(" ", "-"))
        shutil.rmtree(dataset, ignore_errors=True)
        datasets[engine] = dataset
        stages = LOCAL_STAGES if engine == "local" else CLUSTER_STAGES
        for stage in stages:
            if engine == "local" and stage == "compact":
                sizes = _dataset_bytes(dataset)
                print("before compaction: " + ", ".join(
                    f"{table} {files} files {size / 1e6:.0f} MB" for table, (files, size) in sizes.items()
                ))  # fmt: skip
                reference = _part_digests(dataset)
            results[(engine, stage)] = result = _measure(engine, stage, dataset, archive)
            print(f"  {engine:<16} {stage:<17} {json.dumps(result)}", flush=True)
        if engine != "local":
            same = _part_digests(dataset) == reference
            print(f"  {engine}: part files identical to the local run: {same}")
    sizes = _dataset_bytes(datasets["local"])
    print("after compaction: " + ", ".join(
        f"{table} {files} files {size / 1e6:.0f} MB" for table, (files, size) in sizes.items()
    ))  # fmt: skip
    print(f"after: {_load()}")

    print(f"{'engine':<16} {'stage':<17} {'hands/s':>9} {'seconds':>8} {'peak RSS':>9}"
          f" {'x local':>8} {'start-up':>9}")  # fmt: skip
    for (engine, stage), result in results.items():
        local = results[("local", stage)]
        print(
            f"{engine:<16} {stage:<17} {result['hands'] / result['seconds']:9,.0f}"
            f" {result['seconds']:8.1f} {result['peak_rss'] / (1 << 20):6,.0f} MB"
            f" {local['seconds'] / result['seconds']:7.2f}x {result['startup']:8.1f}s"
        )


if __name__ == "__main__":
    if len(sys.argv) == 5:
        engine, stage, dataset, archive = sys.argv[1:]
        print(json.dumps(_run_stage(engine, stage, Path(dataset), Path(archive))))
    else:
        main()
