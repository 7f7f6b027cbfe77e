"""Benchmark of the hi/lo evaluator against phevaluator and pokerkit, in one run.

Rates are player-hands per second (one player's 4 hole cards against a 5-card board),
median of several runs, high and low both computed unless stated. Absolute numbers on a
shared VM move by up to 1.5x between runs: compare the ratios printed side by side.

The hole-count table times 4, 5 and 6 hole cards on one core in interleaved rounds (one call
each per round, so a busy neighbour slows all three alike) and gives each count's median
rate and its ratio to the 4-card rate.
"""

from __future__ import annotations

import contextlib
import os
import platform
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import numba
import numpy as np
import numpy.typing as npt

from pipeline.evaluator import (
    card_text,
    evaluate,
    evaluate_showdowns,
    random_deals,
    random_showdowns,
    warm_up,
)
from pipeline.evaluator.tables import build_high_table, high_table_path, load_tables

__all__ = ["main"]

DEAL_COUNT = 1_000_000
PHEVALUATOR_DEALS = 100_000
POKERKIT_DEALS = 500
REPEATS = 5
HOLE_CARD_COUNTS = (4, 5, 6)
HOLE_COUNT_ROUNDS = 9
# Goals: a 5- or 6-card row costs about its hole pairs (10, 15) against four cards' 6.
HOLE_COUNT_GOALS = {5: 0.54, 6: 0.36}
C_ANCHOR_RATE = 25.5e6  # notes: C, H45 + flush + LOW2, two passes, one core


def cpu_model() -> str:
    """CPU model name from /proc/cpuinfo (or the platform's guess)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def median_seconds(function: Callable[[], object], repeats: int = REPEATS) -> float:
    """Median wall time of ``repeats`` calls after one warm-up call."""
    function()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def phevaluator_rate(hole: npt.NDArray[np.uint8], board: npt.NDArray[np.uint8]) -> float | None:
    """High-only rate of phevaluator's ``evaluate_omaha_cards``, one Python call per hand."""
    try:
        from phevaluator import evaluate_omaha_cards
    except ImportError:
        return None
    rows = [
        (*board_row, *hole_row)
        for hole_row, board_row in zip(hole.tolist(), board.tolist(), strict=True)
    ]

    def run() -> None:
        for cards in rows:
            evaluate_omaha_cards(*cards)

    return len(rows) / median_seconds(run, repeats=3)


def pokerkit_rate(hole: npt.NDArray[np.uint8], board: npt.NDArray[np.uint8]) -> float | None:
    """High + low rate of pokerkit's hand classes (a test oracle, pure Python)."""
    try:
        from pokerkit import OmahaEightOrBetterLowHand, OmahaHoldemHand
    except ImportError:
        return None
    texts = [
        ("".join(map(card_text, hole_row)), "".join(map(card_text, board_row)))
        for hole_row, board_row in zip(hole.tolist(), board.tolist(), strict=True)
    ]

    def run() -> None:
        for hole_text, board_text in texts:
            OmahaHoldemHand.from_game(hole_text, board_text)
            with contextlib.suppress(ValueError):  # pokerkit's "no qualifying low"
                OmahaEightOrBetterLowHand.from_game(hole_text, board_text)

    return len(texts) / median_seconds(run, repeats=1)


def hole_count_rates() -> dict[str, float]:
    """Player-hands/s on one core for 4, 5 and 6 hole cards, random deals and showdowns
    (2-6 players a board), medians of interleaved rounds."""
    calls: dict[str, tuple[int, Callable[[], object]]] = {}
    for count in HOLE_CARD_COUNTS:
        hole, board = random_deals(DEAL_COUNT, seed=10 + count, hole_cards=count)
        calls[f"random deals, {count} hole cards"] = (
            DEAL_COUNT,
            lambda hole=hole, board=board: evaluate(hole, board, parallel=False),
        )
        shown, index, boards = random_showdowns(
            DEAL_COUNT // 4, 2, 6, seed=20 + count, hole_cards=count
        )
        calls[f"showdowns 2-6 per board, {count} hole cards"] = (
            len(shown),
            lambda shown=shown, index=index, boards=boards: evaluate_showdowns(
                shown, index, boards, parallel=False
            ),
        )
    times: dict[str, list[float]] = {name: [] for name in calls}
    for _, call in calls.values():
        call()  # compiled and cached before timing
    for _ in range(HOLE_COUNT_ROUNDS):
        for name, (_, call) in calls.items():
            start = time.perf_counter()
            call()
            times[name].append(time.perf_counter() - start)
    return {name: rows / statistics.median(times[name]) for name, (rows, _) in calls.items()}


def print_hole_count_rates(rates: dict[str, float]) -> None:
    """The hole-count table: rate and ratio to the 4-card rate of the same kind."""
    print(f"{'one core, by hole cards':<58}{'rate':>15}{'vs 4 cards':>16}{'goal':>8}")
    for name, rate in rates.items():
        kind, count = name.rsplit(", ", 1)
        four = rates[f"{kind}, 4 hole cards"]
        goal = HOLE_COUNT_GOALS.get(int(count.split()[0]))
        shown_goal = f">= {goal:.2f}x" if goal else ""
        print(f"{name:<58}{rate / 1e6:>11.2f} M/s{rate / four:>15.2f}x{shown_goal:>10}")


def measure() -> dict[str, float]:
    """Run the benchmark, print a report and return the rates (player-hands/s).

    Returns
    -------
    dict
        Rate by measurement name, plus ``table_build_seconds``.
    """
    all_threads = numba.get_num_threads()
    start = time.perf_counter()
    build_high_table()
    build_seconds = time.perf_counter() - start
    warm_up()
    print("hi/lo evaluator benchmark (player-hands/s; high + low unless noted)")
    layer = numba.threading_layer()  # type: ignore[attr-defined]
    print(
        f"machine: {cpu_model()}, nproc {os.cpu_count()}, numba {numba.__version__} "
        f"({layer} threading layer, {all_threads} threads), "
        f"numpy {np.__version__}, Python {platform.python_version()}"
    )
    print(
        f"H45 table build (in memory): {build_seconds:.2f} s; "
        f"cached at {high_table_path()} ({load_tables().high.nbytes / 1e6:.1f} MB, mmap)"
    )
    hole, board = random_deals(DEAL_COUNT, seed=1)
    show_hole, board_index, boards = random_showdowns(DEAL_COUNT // 4, 2, 6, seed=2)
    results: dict[str, float] = {"table_build_seconds": build_seconds}
    for label, threads in (("1 thread", 1), (f"{all_threads} threads", all_threads)):
        numba.set_num_threads(threads)
        results[f"random deals, {label}"] = DEAL_COUNT / median_seconds(
            lambda: evaluate(hole, board)
        )
        results[f"showdowns 2-6 per board, {label}"] = len(show_hole) / median_seconds(
            lambda: evaluate_showdowns(show_hole, board_index, boards)
        )
    numba.set_num_threads(1)
    load_before = os.getloadavg()[0]
    by_hole_count = hole_count_rates()
    load_after = os.getloadavg()[0]
    numba.set_num_threads(all_threads)
    phevaluator = phevaluator_rate(hole[:PHEVALUATOR_DEALS], board[:PHEVALUATOR_DEALS])
    pokerkit = pokerkit_rate(hole[:POKERKIT_DEALS], board[:POKERKIT_DEALS])
    if phevaluator is not None:
        results["phevaluator evaluate_omaha_cards (high only, per call)"] = phevaluator
    if pokerkit is not None:
        results["pokerkit hand classes (per hand)"] = pokerkit
    single = results["random deals, 1 thread"]
    print(f"{'measurement':<58}{'rate':>15}{'vs phevaluator':>16}{'vs pokerkit':>13}")
    for name, rate in results.items():
        if name == "table_build_seconds":
            continue
        versus_phevaluator = f"{rate / phevaluator:,.0f}x" if phevaluator else "n/a"
        versus_pokerkit = f"{rate / pokerkit:,.0f}x" if pokerkit else "n/a"
        shown = f"{rate / 1e6:.2f} M/s" if rate >= 1e5 else f"{rate / 1e3:.2f} k/s"
        print(f"{name:<58}{shown:>15}{versus_phevaluator:>16}{versus_pokerkit:>13}")
    print_hole_count_rates(by_hole_count)
    print(
        "load average (1 min) before / after the hole-count rounds: "
        f"{load_before:.2f} / {load_after:.2f} on {os.cpu_count()} CPUs"
    )
    results.update(by_hole_count)
    print(
        f"one thread vs the C two-pass anchor of the notes ({C_ANCHOR_RATE / 1e6:.1f} M/s, "
        f"other machine): {single / C_ANCHOR_RATE:.2f}x on random deals, "
        f"{results['showdowns 2-6 per board, 1 thread'] / C_ANCHOR_RATE:.2f}x on showdowns"
    )
    return results


def main() -> int:
    """``python -m bench evaluator``: print the report; exit status 0."""
    measure()
    return 0


if __name__ == "__main__":
    main()
