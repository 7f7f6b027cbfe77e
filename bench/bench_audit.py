"""Audit throughput on a generated dataset, beside the scalar rules reference.

Generates ``HILO_BENCH_AUDIT_HANDS`` hands (default 1,000,000; cached under ``bench/out`` so a
second run skips generation and ingest), ingests them, then times

- ``audit_tables`` on tables already in memory (I/O excluded),
- ``run_audit`` on the dataset folder (reading Parquet and writing ``audit/``, I/O included),
- ``pipeline.rules.settle_tables`` (one hand at a time, plain Python) on the first
  ``HILO_BENCH_REFERENCE_HANDS`` hands (default 20,000): the same work, so the ratio of the two
  rates is the speed-up of the vectorised audit.

Run with ``python -m bench audit``.
"""

from __future__ import annotations

import os
import platform
import subprocess
import sys
import time
from pathlib import Path

import polars as pl

__all__ = ["main"]

REPOSITORY = Path(__file__).resolve().parent.parent
HANDS = int(os.environ.get("HILO_BENCH_AUDIT_HANDS", "1000000"))
REFERENCE_HANDS = int(os.environ.get("HILO_BENCH_REFERENCE_HANDS", "20000"))
TABLES = ("hands", "seats", "actions", "collections", "showdowns")


def _machine() -> str:
    model = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{os.cpu_count()} cores, {model}, Python {platform.python_version()}"


def _prepare(folder: Path) -> Path:
    """Generate and ingest the archive once; reuse it when it is already there."""
    dataset = folder / "dataset"
    if (dataset / "files").is_dir():
        return dataset
    archive = folder / "archive"
    hilo = [sys.executable, "-m", "pipeline.cli"]
    started = time.perf_counter()
    subprocess.run(
        [*hilo, "generate", "--hands", str(HANDS), "--seed", "7", "--out", str(archive),
         "--fault-rate", "0.01"],
        check=True,
    )  # fmt: skip
    print(f"generated {HANDS:,} hands in {time.perf_counter() - started:.1f} s")
    started = time.perf_counter()
    subprocess.run([*hilo, "ingest", str(archive / "pokerstars"), "--out", str(dataset)], check=True)
    print(f"ingested in {time.perf_counter() - started:.1f} s")
    return dataset


def main() -> None:
    """Print audit rates (I/O excluded and included) and the scalar reference's rate."""
    from pipeline.audit import audit_tables, run_audit
    from pipeline.dataset import read_table
    from pipeline.rules import settle_tables

    print(f"machine: {_machine()}")
    folder = REPOSITORY / "bench" / "out" / f"audit-{HANDS}"
    dataset = _prepare(folder)
    tables = {name: pl.from_arrow(read_table(dataset, name)) for name in TABLES}
    hands = tables["hands"].height

    started = time.perf_counter()
    result = audit_tables(**tables, rake_schedule="generated")  # type: ignore[arg-type]
    in_memory = time.perf_counter() - started
    started = time.perf_counter()
    run_audit(dataset, "generated")
    with_io = time.perf_counter() - started

    sample_ids = tables["hands"]["hand_id"].head(REFERENCE_HANDS)
    sample = {
        name: frame.filter(pl.col("hand_id").is_in(sample_ids.implode()))
        for name, frame in tables.items()
    }
    started = time.perf_counter()
    settle_tables(sample["hands"], sample["seats"], sample["actions"])
    reference = time.perf_counter() - started
    reference_rate = len(sample_ids) / reference

    audit_rate = hands / in_memory
    print(f"hands {hands:,} · findings {result.discrepancies.height:,}")
    print(f"audit, tables in memory : {audit_rate:12,.0f} hands/s ({in_memory:.1f} s)")
    print(f"audit, Parquet in and out: {hands / with_io:12,.0f} hands/s ({with_io:.1f} s)")
    print(f"scalar reference        : {reference_rate:12,.0f} hands/s ({len(sample_ids):,} hands)")
    print(f"ratio audit / reference : {audit_rate / reference_rate:12.1f}x")


if __name__ == "__main__":
    main()
