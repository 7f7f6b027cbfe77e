"""The deal tests' error rates: false alarms on fair archives, power against rigged deals.

1. False alarms: ``HILO_FAIRNESS_ARCHIVES`` (default 100) fair archives of
   ``HILO_FAIRNESS_HANDS`` hands (default 20,000), each generated with its own seed
   (``hilo generate --uniform-deal``: every hand from a plain shuffle), ingested and tested by
   `pipeline.fairness.fairness_report`, the whole path a user's archive takes. Per test: the
   share with p ≤ α (α = 0.01) and its binomial standard error; for the family (every test of
   an archive, Holm-adjusted): the share of archives with any test flagged. Play decides which
   hands reach the flop, turn and river, so the board tests are measured on the selection a real
   archive has; the shares of hands reaching each street are printed and used in part 2.
   Then the hole-card tests alone on ``HILO_FAIRNESS_SIMULATED`` (default 2,000) simulated
   fair deals of the same size (numpy shuffles, no play), where 100 archives are too few to
   see each test's 1 %: the share of each test at 0.01, 0.05 and 0.1.
2. Power: for each rig (``board-suit:h``, ``hole-rank:A``, ``hole-suit:h``, as ``hilo generate
   --rig`` deals them; ``board-rank`` is not measured: no deal test reads the board's ranks,
   which play biases) and archive size (20,000, 100,000, 1,000,000 hands), the
   smallest fraction of a grid that is flagged (any test of the family after Holm) in at least
   95 % of ``HILO_FAIRNESS_REPLICAS`` (default 20) simulated archives. These deal the hero's hole
   cards and the board from numpy shuffles with the rig applied the generator's way (a matching
   card swapped, with the rig's probability, for a random undealt card that does not match)
   without playing the hands: the rig acts on the deal and the tests read only cards. Boards
   are cut to the street each hand reached with the shares measured in part 1.
3. Luck power: for each fraction of a grid, one archive of ``HILO_FAIRNESS_LUCK_HANDS`` hands
   (default 100,000; pot- and no-limit cash tables, where all-ins are common) generated with
   ``--rig allin:NAME:F`` (NAME the hero at every table; a run-out that does not give NAME the high
   drawn again with probability F), ingested and audited. NAME's spots (luck and variance)
   are then resampled with replacement into ``HILO_FAIRNESS_REPLICAS`` archives of each size
   (NAME's spots per hand as measured), and an archive counts as flagged when NAME's z has a
   two-sided p at most α: what ``hilo fairness --player NAME`` answers for one currency. The
   table gives the smallest fraction flagged in at least 95 % of them.

Run with ``python -m bench fairness`` (``HILO_FAIRNESS_ARCHIVES=10 HILO_FAIRNESS_SIZES=20000`` for
a quick run; ``--false-alarms``, ``--power`` or ``--luck`` for those parts). The load average is printed: run it on an idle machine.
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
SIMULATED = int(os.environ.get("HILO_FAIRNESS_SIMULATED", "2000"))
REPLICAS = int(os.environ.get("HILO_FAIRNESS_REPLICAS", "20"))
SIZES = tuple(
    int(size) for size in os.environ.get("HILO_FAIRNESS_SIZES", "20000,100000,1000000").split(",")
)
FRACTIONS = (0.005, 0.01, 0.02, 0.03, 0.05, 0.1, 0.2, 0.3, 0.5, 1.0)
RIGS = ("board-suit:h", "hole-rank:A", "hole-suit:h")
LUCK_HANDS = int(os.environ.get("HILO_FAIRNESS_LUCK_HANDS", "100000"))
LUCK_FRACTIONS = (0.05, 0.1, 0.2, 0.3, 0.5, 1.0)
FAVOURED = "tredex"  # a name of the generator's pool
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


def simulated_false_alarms() -> None:
    """Part 1, the hole-card tests on simulated fair deals."""
    from pipeline.fairness.deals import deal_tests

    rng = np.random.default_rng(99)
    started = time.perf_counter()
    shares: dict[str, list[float]] = {}
    for _ in range(SIMULATED):
        holes = np.argsort(rng.random((HANDS, 52)), axis=1)[:, :4].astype(np.int64)
        for test in deal_tests(holes, np.arange(HANDS) // HERO_RUN, []):
            shares.setdefault(test.name, []).append(test.p_value)
    seconds = time.perf_counter() - started
    print(f"  hole-card tests on {SIMULATED:,} simulated fair deals of {HANDS:,} hands "
          f"({seconds:.0f} s); standard error at 0.01: {math.sqrt(0.0099 / SIMULATED):.4f}")
    for name, values in shares.items():
        p = np.array(values)
        print(f"  {name:<28} p <= 0.01: {np.mean(p <= 0.01):.4f}  <= 0.05: "
              f"{np.mean(p <= 0.05):.4f}  <= 0.1: {np.mean(p <= 0.1):.4f}")


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


def _favoured_spots(fraction: float, work: Path) -> tuple[np.ndarray, np.ndarray]:
    """The favoured player's (actual - expected, variance) per all-in spot of one rigged
    archive of `LUCK_HANDS` hands."""
    import polars as pl

    from pipeline.audit import run_audit
    from pipeline.dataset import read_table
    from pipeline.generate import generate
    from pipeline.ingest import ingest

    out, dataset = work / "gen", work / "dataset"
    generate(LUCK_HANDS, 20_000 + int(fraction * 1000), out, limit="PL,NL", tournament_share=0.0,
             rig=f"allin:{FAVOURED}:{fraction}", workers=2)  # fmt: skip
    ingest([out / "pokerstars"], dataset)
    run_audit(dataset, rake_schedule="generated")
    equity = pl.from_arrow(read_table(dataset, "allin_equity"))
    assert isinstance(equity, pl.DataFrame)
    spots = (
        equity.filter(pl.col("player") == FAVOURED)
        .group_by("hand_id")
        .agg(
            luck=(pl.col("actual_amount").sum() - pl.col("expected_amount").sum()).cast(pl.Float64),
            variance=pl.col("spot_variance").first(),
        )
        .filter(pl.col("variance") > 0)
    )
    shutil.rmtree(out)
    shutil.rmtree(dataset)
    return spots["luck"].to_numpy(), spots["variance"].to_numpy()


def luck_power() -> None:
    """Part 3."""
    from pipeline.fairness.statistics import normal_two_sided

    rng = np.random.default_rng(2027)
    print(f"luck power: the smallest allin:{FAVOURED}:F flagged in >= 95% of {REPLICAS} "
          f"archives (spots resampled from one {LUCK_HANDS:,}-hand archive per F; {_load()})")
    print(f"  {'F':<6}{'spots/hand':>11}{'z (source)':>12}" + "".join(f"{size:>12,}" for size in SIZES))
    smallest: dict[int, str] = {}
    with tempfile.TemporaryDirectory(prefix="hilo-luck-") as folder:
        for fraction in LUCK_FRACTIONS:
            luck, variance = _favoured_spots(fraction, Path(folder))
            rate = len(luck) / LUCK_HANDS
            source_z = luck.sum() / math.sqrt(variance.sum())
            shares = []
            for size in SIZES:
                count = max(1, round(rate * size))
                flagged = 0
                for _ in range(REPLICAS):
                    pick = rng.integers(0, len(luck), count)
                    z = luck[pick].sum() / math.sqrt(variance[pick].sum())
                    flagged += count >= 30 and normal_two_sided(z) <= ALPHA
                shares.append(flagged / REPLICAS)
                if flagged / REPLICAS >= 0.95:
                    smallest.setdefault(size, f"{fraction:g}")
            print(f"  {fraction:<6g}{rate:>11.4f}{source_z:>12.2f}"
                  + "".join(f"{share:>12.2f}" for share in shares), flush=True)  # fmt: skip
    print(f"  smallest F flagged in >= 95%: "
          + ", ".join(f"{size:,} hands: {smallest.get(size, '> 1')}" for size in SIZES))


def main(options: list[str] | None = None) -> None:
    chosen = set(options or ())
    reach = (0.74, 0.72, 0.71)  # measured shares (part 1, 20,000-hand archives)
    if not chosen or "--false-alarms" in chosen:
        reach = false_alarms()
        simulated_false_alarms()
    if not chosen or "--power" in chosen:
        power(reach)
    if not chosen or "--luck" in chosen:
        luck_power()
