"""``hilo generate`` throughput: hands per second of PokerStars text plus ground truth.

Generates ≥ 100,000 mixed hands (fixed, pot and no limit; cash and tournaments; 3 % faulted) into
a temporary folder, once in one process and once with one process per core, and reports
hands/s and MB/s of text. Goal: ≥ 20,000 hands/s on the whole machine.

Because a pure-Python workload is what the generator is, the benchmark also measures how much a
second process actually adds on this machine (a fixed loop run alone, then in every core at
once): on shared or hyper-threaded cores that factor, not the code, bounds the parallel figure.
Each run also reports the CPU time per hand of its processes (the parent's and, in parallel, the
workers'), which other work on a shared machine disturbs much less than the wall time.

Then every site's writer (``--site``) generates the same hands in one process; each is reported
in hands/s and as a ratio to PokerStars' writer measured in the same run, with the machine's
load average before and after (other work on a shared machine moves all sites alike, so the
ratios hold better than the rates).

Run with ``python -m bench generate``; ``HILO_BENCH_GENERATE_HANDS`` changes the number of hands.
"""

from __future__ import annotations

import os
import platform
import resource
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

__all__ = ["main", "parallel_scaling"]

HANDS = int(os.environ.get("HILO_BENCH_GENERATE_HANDS", "100000"))
SEED = 2024
GOAL_HANDS_PER_SECOND = 20_000
BURN_LOOPS = 6_000_000


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as handle:
            for line in handle:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def _burn(loops: int) -> float:
    """Seconds a fixed pure-Python loop takes."""
    started = time.perf_counter()
    total = 0
    for value in range(loops):
        total += value
    return time.perf_counter() - started


def parallel_scaling(processes: int) -> float:
    """How many times one process's pure-Python throughput ``processes`` processes deliver."""
    alone = _burn(BURN_LOOPS)
    with ProcessPoolExecutor(processes) as pool:
        started = time.perf_counter()
        list(pool.map(_burn, [BURN_LOOPS] * processes))
        together = time.perf_counter() - started
    return processes * alone / together


def _children_cpu() -> float:
    """CPU seconds of the finished child processes (the generator's workers)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _run(
    hands: int, out: Path, workers: int, site: str = "pokerstars"
) -> tuple[float, float, int, float]:
    """Wall seconds, MB of text, files, and CPU microseconds per hand of all processes."""
    from pipeline.generate import generate

    cpu = time.process_time() + _children_cpu()
    started = time.perf_counter()
    summary = generate(hands, SEED, out, site=site, fault_rate=0.03, workers=workers)
    seconds = time.perf_counter() - started
    cpu = time.process_time() + _children_cpu() - cpu
    assert summary.hands == hands
    return seconds, summary.text_bytes / 1e6, summary.files, cpu / hands * 1e6


def main() -> None:
    """Warm up, generate in one process and on every core, print the figures."""
    from pipeline.generate import generate

    cores = _cores()
    print(f"machine: {cores} cores, {_cpu_model()}, Python {platform.python_version()}")
    print(f"pure-Python scaling with {cores} processes: x{parallel_scaling(cores):.2f}")
    with tempfile.TemporaryDirectory(prefix="hilo-bench-generate-") as folder:
        root = Path(folder)
        generate(500, SEED, root / "warm-up", workers=1)  # numba caches, description tables
        single = max(HANDS // 5, 1000)
        seconds, megabytes, _, cpu = _run(single, root / "single", workers=1)
        print(
            f"1 process:   {single:>7,} hands in {seconds:5.1f} s = {single / seconds:8,.0f} hands/s"
            f" ({megabytes / seconds:.1f} MB/s of text; CPU {cpu:.0f} µs/hand)"
        )
        seconds, megabytes, files, cpu = _run(HANDS, root / "all", workers=cores)
        rate = HANDS / seconds
        print(
            f"{cores} processes: {HANDS:>7,} hands in {seconds:5.1f} s = {rate:8,.0f} hands/s"
            f" ({megabytes / seconds:.1f} MB/s of text, {files} files, {megabytes:.0f} MB;"
            f" CPU {cpu:.0f} µs/hand)"
        )
        verdict = "met" if rate >= GOAL_HANDS_PER_SECOND else "NOT met"
        print(f"goal ≥ {GOAL_HANDS_PER_SECOND:,} hands/s: {verdict}")
        _sites(root, single)


def _sites(root: Path, hands: int) -> None:
    """Every site's writer on the same hands in one process, as a ratio to PokerStars'."""
    from pipeline.generate import generate
    from pipeline.generate.sites import SITES

    load = os.getloadavg()[0]
    print(f"site writers, 1 process, {hands:,} hands each (load average {load:.2f} before):")
    baseline = 0.0
    for site in SITES:
        generate(200, SEED, root / f"warm-{site}", site=site, workers=1)
        seconds, megabytes, _, cpu = _run(hands, root / f"site-{site}", workers=1, site=site)
        rate = hands / seconds
        baseline = baseline or rate
        print(
            f"  {site:<11} {rate:8,.0f} hands/s  x{rate / baseline:4.2f} of pokerstars"
            f"  ({megabytes / seconds:4.1f} MB/s of text; CPU {cpu:.0f} µs/hand)"
            + ("" if SITES[site].tournaments else "  [cash tables only]")
        )
    print(f"  load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
