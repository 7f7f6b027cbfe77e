"""The deal tests' error rates: false alarms on fair archives, power against rigged deals.

1. False alarms: ``HILO_FAIRNESS_ARCHIVES`` (default 100) fair archives of
   ``HILO_FAIRNESS_HANDS`` hands (default 20,000), each generated with its own seed
   (``hilo generate --uniform-deal``: every hand from a plain shuffle), ingested and tested by
   `pipeline.fairness.fairness_report`, the whole path a user's archive takes. Per test: the
   share with p ≤ α (α = 0.01) and its binomial standard error; for the family (every test of
   an archive, Holm-adjusted): the share of archives with any test flagged. Play decides which
   hands reach the flop, turn and river, so the board tests are measured on the selection a real
   archive has; the shares of hands reaching each street are printed and used in part 2.
2. Power: for each rig (``board-suit:h``, ``hole-rank:A``, ``hole-suit:h``, as ``hilo generate
   --rig`` deals them; ``board-rank`` is not measured: no deal test reads the board's ranks,
   which play biases) and archive size (20,000, 100,000, 1,000,000 hands), the
   smallest fraction of a grid that is flagged (any test of the family after Holm) in at least
   95 % of ``HILO_FAIRNESS_REPLICAS`` (default 20) simulated archives. These deal the hero's hole
   cards and the board from numpy shuffles with the rig applied the generator's way (a matching
   card swapped, with the rig's probability, for a random undealt card that does not match)
   without playing the hands: the rig acts on the deal and the tests read only cards. Boards
   are cut to the street each hand reached with the shares measured in part 1.

Run with ``python -m bench fairness`` (``HILO_FAIRNESS_ARCHIVES=10 HILO_FAIRNESS_SIZES=20000`` for
a quick run; ``--power`` or ``--false-alarms`` for one part). The load average is printed: run it on an idle machine.
"""

from __future__ import annotations

import math
import os
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np

__all__ = ["main"]

ALPHA = 0.01
ARCHIVES = int(os.environ.get("HILO_FAIRNESS_ARCHIVES", "100"))
HANDS = int(os.environ.get("HILO_FAIRNESS_HANDS", "20000"))
REPLICAS = int(os.environ.get("HILO_FAIRNESS_REPLICAS", "20"))
SIZES = tuple(
    int(size) for size in os.environ.get("HILO_FAIRNESS_SIZES", "20000,100000,1000000").split(",")
)
FRACTIONS = (0.005, 0.01, 0.02, 0.03, 0.05, 0.1, 0.2, 0.3, 0.5, 1.0)
RIGS = ("board-suit:h", "hole-rank:A", "hole-suit:h")
HERO_RUN = 80  # hands a hero plays at one table in a row, for the repeat test
CHUNK = 100_000


def _load() -> str:
    return "load " + " ".join(f"{value:.2f}" for value in os.getloadavg())


def false_alarms() -> tuple[float, float, float]:
    """Part 1; returns the shares of hands that reached the flop, the turn and the river."""
    from pipeline.fairness import fairness_report
    from pipeline.generate import generate
    from pipeline.ingest import ingest

    shares: dict[str, list[float]] = {}
    family_flags = 0
    streets = np.zeros(4)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="hilo-fairness-") as folder:
        work = Path(folder)
        for archive in range(ARCHIVES):
            out, dataset = work / "gen", work / "dataset"
            generate(HANDS, 10_000 + archive, out, uniform_deal=True, workers=2)
            ingest([out / "pokerstars"], dataset)
            report = fairness_report(dataset, alpha=ALPHA)
            for test in report.tests:
                shares.setdefault(test.test.name, []).append(test.test.p_value)
            family_flags += any(test.flagged for test in report.tests)
            counts = {t.test.name: t.test.observations for t in report.tests}
            streets += [HANDS, counts.get("flop_suit_pattern", 0),
                        counts.get("turn_suits", 0), counts.get("river_suits", 0)]  # fmt: skip
            shutil.rmtree(out)
            shutil.rmtree(dataset)
    seconds = time.perf_counter() - started
    error = math.sqrt(ALPHA * (1 - ALPHA) / ARCHIVES)
    print(f"false alarms: {ARCHIVES} fair archives of {HANDS:,} hands ({seconds:.0f} s, {_load()})")
    print(f"  expected share at alpha {ALPHA}: {ALPHA:.3f} ± {error:.3f} (one standard error)")
    for name, values in shares.items():
        flagged = float(np.mean(np.array(values) <= ALPHA))
        print(f"  {name:<28} p <= {ALPHA}: {flagged:.3f}  mean p {np.mean(values):.3f}")
    print(f"  family (any test flagged after Holm): {family_flags / ARCHIVES:.3f} (at most {ALPHA})")
    reach = streets[1:] / streets[0]
    print(f"  hands reaching flop / turn / river: {reach[0]:.3f} / {reach[1]:.3f} / {reach[2]:.3f}")
    return float(reach[0]), float(reach[1]), float(reach[2])


def _matches(cards: np.ndarray, kind: str, value: int) -> np.ndarray:
    return (cards // 4 if kind == "rank" else cards % 4) == value


def _deal(hands: int, rig: str, fraction: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """The hero's four hole cards and a five-card board per hand, rigged."""
    from pipeline.generate.dealing import parse_rig

    rule = parse_rig(f"{rig}:{fraction}")
    decks = np.argsort(rng.random((hands, 52)), axis=1).astype(np.int64)
    board, hole, undealt = decks[:, :5], decks[:, 5:9], decks[:, 9:]
    target = board if rule.place == "board" else hole
    swap = _matches(target, rule.kind, rule.value) & (rng.random(target.shape) < fraction)
    spare_first = np.argsort(_matches(undealt, rule.kind, rule.value), axis=1, kind="stable")
    spares = np.take_along_axis(undealt, spare_first, axis=1)
    which = np.where(swap, np.cumsum(swap, axis=1) - 1, 0)
    target[:] = np.where(swap, np.take_along_axis(spares, which, axis=1), target)
    return hole, board


def _flagged(hands: int, rig: str, fraction: float, reach: tuple[float, float, float],
             rng: np.random.Generator) -> bool:
    from pipeline.fairness.deals import deal_tests
    from pipeline.fairness.statistics import holm

    holes, boards = [], []
    for start in range(0, hands, CHUNK):
        hole, board = _deal(min(CHUNK, hands - start), rig, fraction, rng)
        holes.append(hole)
        boards.append(board)
    hole = np.concatenate(holes)
    board = np.concatenate(boards)
    reached = rng.random(hands)
    lengths = np.where(reached < reach[2], 5, np.where(reached < reach[1], 4,
                       np.where(reached < reach[0], 3, 0)))  # fmt: skip
    cut = [row[:length].tolist() for row, length in zip(board, lengths, strict=True)]
    runs = np.arange(hands) // HERO_RUN
    tests = deal_tests(hole, runs, cut)
    return min(holm([test.p_value for test in tests])) <= ALPHA


def power(reach: tuple[float, float, float]) -> None:
    """Part 2."""
    rng = np.random.default_rng(2026)
    print(f"power: the smallest rig fraction flagged in >= 95% of {REPLICAS} archives ({_load()})")
    print(f"  {'rig':<14}" + "".join(f"{size:>14,}" for size in SIZES))
    for rig in RIGS:
        cells = []
        for size in SIZES:
            found = "> 1"
            for fraction in FRACTIONS:
                needed = math.ceil(0.95 * REPLICAS)
                hits = 0
                for replica in range(REPLICAS):
                    hits += _flagged(size, rig, fraction, reach, rng)
                    if hits + (REPLICAS - replica - 1) < needed:
                        break  # cannot reach 95% any more
                if hits >= needed:
                    found = f"{fraction:g}"
                    break
            cells.append(found)
        print(f"  {rig:<14}" + "".join(f"{cell:>14}" for cell in cells), flush=True)


def main(options: list[str] | None = None) -> None:
    chosen = set(options or ())
    reach = (0.74, 0.72, 0.71)  # measured shares (part 1, 20,000-hand archives)
    if not chosen or "--false-alarms" in chosen:
        reach = false_alarms()
    if not chosen or "--power" in chosen:
        power(reach)
