"""Audit throughput and peak memory on a generated dataset, against the previous audit.

Generates ``HILO_BENCH_AUDIT_HANDS`` hands (default 1,000,000; cached under ``bench/out`` so a
second run skips generation and ingest), ingests them, then runs each path in a fresh process
(so that one path's memory does not count against the next) and samples the memory of that
process and all its children every 50 ms (proportional set size, so pages a forked worker
shares with its parent count once):

- ``baseline``: the whole-table audit of git revision ``HILO_BENCH_AUDIT_BASELINE`` (default
  ``e512d28``, before the per-unit audit), loaded from git: read every table, audit in memory.
  Its modules import today's others (profiles, rules), so it runs only while those keep the
  names it imports; when it cannot, the run says so and the ratios are against ``in memory``;
- ``in memory``: today's ``audit_tables`` on the same tables (the whole dataset in memory);
- ``units, here``: ``run_audit`` with no executor (units one after the other, Parquet in/out);
- ``units, 2 workers``: ``run_audit`` on a pool of two local worker processes;
- ``2 workers, no equity``: the same without the all-in equity (``equity=False``), so the
  line after the table gives what the equity costs on the same archive in the same run;
- ``units, <rev>`` (only when ``HILO_BENCH_AUDIT_UNITS_BASELINE`` names a git revision that has
  ``run_audit``): ``units, here`` with the whole tree of that revision (``git archive`` under
  ``bench/out``, run once untimed first so its compiled kernels are cached), to measure a
  change to the per-unit audit against the revision before it.

Rates are hands per second of the audit alone (tables in memory) and of the whole run (I/O
included); the ratio is against the baseline in the same run. The machine is shared: the load
average is printed before and after. ``pipeline.rules.settle_tables`` (one hand at a time,
plain Python) on ``HILO_BENCH_REFERENCE_HANDS`` hands gives the scalar reference rate.

Run with ``python -m bench audit``.
"""

from __future__ import annotations

import importlib
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import polars as pl

from bench.measure import run_measured

__all__ = ["main"]

REPOSITORY = Path(__file__).resolve().parent.parent
HANDS = int(os.environ.get("HILO_BENCH_AUDIT_HANDS", "1000000"))
REFERENCE_HANDS = int(os.environ.get("HILO_BENCH_REFERENCE_HANDS", "20000"))
BASELINE = os.environ.get("HILO_BENCH_AUDIT_BASELINE", "e512d28")
UNIT_HANDS = int(os.environ.get("HILO_BENCH_AUDIT_UNIT_HANDS", "0"))  # 0: run_audit's default
TABLES = ("hands", "seats", "actions", "collections", "showdowns")
UNITS_BASELINE = os.environ.get("HILO_BENCH_AUDIT_UNITS_BASELINE", "")
PATHS = ("baseline", "in memory", "units, here", "units, 2 workers", "2 workers, no equity")


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


def _load() -> str:
    return "load average " + " ".join(f"{value:.2f}" for value in os.getloadavg())


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
    subprocess.run(
        [*hilo, "ingest", str(archive / "pokerstars"), "--out", str(dataset)], check=True
    )
    print(f"ingested in {time.perf_counter() - started:.1f} s")
    return dataset


def _baseline_audit_tables():  # type: ignore[no-untyped-def]
    """``audit_tables`` of git revision `BASELINE` (its audit and betting modules)."""
    folder = Path(tempfile.mkdtemp(prefix="hilo-baseline-"))
    sources = {}
    for module in ("audit", "betting"):
        text = subprocess.run(
            ["git", "show", f"{BASELINE}:pipeline/{module}.py"],
            cwd=REPOSITORY, check=True, capture_output=True, text=True,
        ).stdout  # fmt: skip
        sources[module] = text.replace(
            "from pipeline.betting import", "from hilo_baseline_betting import"
        )
    for module, text in sources.items():
        (folder / f"hilo_baseline_{module}.py").write_text(text)
    sys.path.insert(0, str(folder))
    return importlib.import_module("hilo_baseline_audit").audit_tables


def _run_path(path: str, dataset: Path) -> dict[str, float]:
    """Run one path in this process; return its timings (seconds)."""
    from pipeline.audit import audit_tables, run_audit
    from pipeline.dataset import read_table

    started = time.perf_counter()
    if path in ("baseline", "in memory"):
        tables = {name: pl.from_arrow(read_table(dataset, name)) for name in TABLES}
        audit = _baseline_audit_tables() if path == "baseline" else audit_tables
        audit_started = time.perf_counter()
        result = audit(**tables, rake_schedule="generated")
        audit_seconds = time.perf_counter() - audit_started
        return {
            "audit": audit_seconds,
            "total": time.perf_counter() - started,
            "hands": result.hands,
            "findings": result.discrepancies.height,
        }
    from pipeline.audit import UNIT_HANDS as DEFAULT_UNIT_HANDS

    unit_hands = UNIT_HANDS or DEFAULT_UNIT_HANDS
    if path == "units, here":
        summary = run_audit(dataset, "generated", unit_hands=unit_hands)
    else:
        from pipeline.executor import make_executor

        with make_executor(workers=2) as executor:
            summary = run_audit(
                dataset, "generated", executor=executor, unit_hands=unit_hands,
                equity=path != "2 workers, no equity",
            )  # fmt: skip
    seconds = time.perf_counter() - started
    findings = sum(summary.findings_by_kind.values())
    return {"audit": seconds, "total": seconds, "hands": summary.hands, "findings": findings}


def _revision_tree(revision: str) -> Path:
    """The files of git ``revision``, extracted once under ``bench/out``."""
    commit = subprocess.run(
        ["git", "rev-parse", "--verify", f"{revision}^{{commit}}"],
        cwd=REPOSITORY, check=True, capture_output=True, text=True,
    ).stdout.strip()  # fmt: skip
    tree = REPOSITORY / "bench" / "out" / f"tree-{commit[:12]}"
    if not (tree / "pipeline").is_dir():
        tree.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(
            ["git", "archive", commit], cwd=REPOSITORY, check=True, capture_output=True
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
    return tree


def _measure(path: str, dataset: Path, tree: Path = REPOSITORY) -> dict[str, float]:
    """Run ``path`` in a child process; its timings and the peak memory (PSS) of its process tree.

    ``tree`` is the source tree the child runs (this one, or a revision's `_revision_tree`).
    """
    timings, peak = run_measured(
        [sys.executable, "-m", "bench.bench_audit", path, str(dataset)],
        cwd=tree, env={**os.environ, "PYTHONPATH": str(tree)},
    )  # fmt: skip
    timings["peak_memory"] = peak
    return timings


def main() -> None:
    """Print each path's rates, peak memory and ratio to the baseline, and the scalar rate."""
    from pipeline.dataset import read_table
    from pipeline.rules import settle_tables

    print(f"machine: {_machine()}")
    folder = REPOSITORY / "bench" / "out" / f"audit-{HANDS}"
    dataset = _prepare(folder)
    print(f"before: {_load()}")
    results = {}
    for path in PATHS:
        try:
            results[path] = _measure(path, dataset)
        except RuntimeError as error:
            if path != "baseline":
                raise
            print(f"baseline {BASELINE} cannot run against today's modules ({error}): "
                  f"ratios are against 'in memory'")
    if UNITS_BASELINE:
        tree = _revision_tree(UNITS_BASELINE)
        _measure("units, here", dataset, tree)  # compiles and caches that tree's kernels
        results[f"units, {UNITS_BASELINE}"] = _measure("units, here", dataset, tree)
    print(f"after:  {_load()}")

    reference = "baseline" if "baseline" in results else "in memory"
    base = results[reference]
    hands = base["hands"]
    print(f"hands {hands:,.0f} · findings {base['findings']:,.0f} (reference: {reference})")
    print(
        f"{'path':<22} {'audit hands/s':>14} {'with I/O':>12} {'peak PSS':>10} {'x reference':>12}"
    )
    for path, timing in results.items():
        assert timing["hands"] == hands and timing["findings"] == base["findings"], path
        print(
            f"{path:<22} {hands / timing['audit']:14,.0f} {hands / timing['total']:12,.0f}"
            f" {timing['peak_memory'] / (1 << 20):8,.0f} MB"
            f" {base['total'] / timing['total']:11.1f}x"
        )
    with_equity, without = results["units, 2 workers"], results["2 workers, no equity"]
    print(f"audit with the all-in equity / without, 2 workers: "
          f"{with_equity['total'] / without['total']:.2f}x "
          f"({with_equity['total']:.1f} s / {without['total']:.1f} s)")

    sample_hands = pl.from_arrow(read_table(dataset, "hands"))
    sample_ids = sample_hands["hand_id"].head(REFERENCE_HANDS)  # type: ignore[index]
    sample = {
        name: pl.from_arrow(read_table(dataset, name)).filter(  # type: ignore[union-attr]
            pl.col("hand_id").is_in(sample_ids.implode())
        )
        for name in ("hands", "seats", "actions")
    }
    started = time.perf_counter()
    settle_tables(sample["hands"], sample["seats"], sample["actions"])
    reference_rate = len(sample_ids) / (time.perf_counter() - started)
    print(f"scalar reference: {reference_rate:,.0f} hands/s ({len(sample_ids):,} hands)")


if __name__ == "__main__":
    if len(sys.argv) == 3:
        print(json.dumps(_run_path(sys.argv[1], Path(sys.argv[2]))))
    else:
        main()
