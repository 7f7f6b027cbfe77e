"""All-in equity throughput: spots per second by street and player count, and the whole pass.

1. Synthetic spots (random deals, low-heavy, nested side pots, as in ``tests/test_equity``):
   exact enumeration on one thread and on numba's pool of both cores, per street (turn, flop,
   preflop) and player count (2, 3, 4); preflop also sampled (250,000 boards, standard error
   ≤ 0.1 % of the pot). The named baseline in the same run is the scalar brute force of the
   tests (``tests/equity_reference``, pokerkit strengths): turn spots only, it would take
   minutes per flop spot.
2. The whole pass over a generated archive of ``HILO_EV_HANDS`` hands (default 1,000,000;
   generated and ingested once under ``bench/out/ev-<hands>``): ``run_audit`` on two worker
   processes without and with the all-in equity, alternated ``HILO_EV_ROUNDS`` times (default
   1), wall time of each, the ratio of the medians and the spots found.

The machine is shared: the load average is printed beside every figure.
Run with ``python -m bench ev`` (``HILO_EV_HANDS=100000`` for a quick run); ``python -m bench
ev --kernel`` runs only part 1, ``python -m bench ev --whole`` only part 2.
"""

from __future__ import annotations

import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

__all__ = ["main"]

REPOSITORY = Path(__file__).resolve().parent.parent
HANDS = int(os.environ.get("HILO_EV_HANDS", "1000000"))
ROUNDS = int(os.environ.get("HILO_EV_ROUNDS", "1"))  # audits without and with equity, alternated
SPOTS = {4: 20_000, 3: 2_000, 0: 200}  # known board cards → synthetic spots per measurement
STREETS = {4: "turn", 3: "flop", 0: "preflop"}


def _load() -> str:
    return "load " + " ".join(f"{value:.2f}" for value in os.getloadavg())


def _rate(spots: list[dict], **options: object) -> float:
    from pipeline.equity import expected_payouts
    from tests.test_equity import spot_table

    table = spot_table(spots)
    expected_payouts(spot_table(spots[:2]), **options)  # compile / warm
    started = time.perf_counter()
    expected_payouts(table, **options)
    return len(spots) / (time.perf_counter() - started)


def _kernel_rates() -> None:
    from tests.equity_reference import reference_equity
    from tests.test_equity import random_spot

    rng = random.Random(20)
    reference_spots = [random_spot(rng, 2, 4) for _ in range(20)]
    started = time.perf_counter()
    for spot in reference_spots:
        reference_equity(spot["holes"], spot["known"], spot["pots"], spot["unit"], spot["boards"])
    baseline = len(reference_spots) / (time.perf_counter() - started)
    print(f"baseline: scalar brute force (pokerkit strengths), turn heads-up: "
          f"{baseline:,.1f} spots/s ({_load()})")
    for known, count in SPOTS.items():
        for players in (2, 3, 4):
            spots = [random_spot(rng, players, known) for _ in range(count)]
            one = _rate(spots, parallel=False)
            two = _rate(spots, parallel=True)
            line = (f"{STREETS[known]:7} {players} players, exact: {one:,.1f} spots/s on one "
                    f"core, {two:,.1f} on both")
            if known == 4 and players == 2:
                line += f" ({two / baseline:,.0f}x the baseline)"
            if known == 0:
                dealt = _rate(spots, parallel=True, method="enumerate")
                sampled = _rate(spots, parallel=True, method="sampled")
                line += (f"; dealing every board: {dealt:,.1f} on both (exact by classes is "
                         f"{two / dealt:.1f}x that); sampled: {sampled:,.1f} on both "
                         f"({sampled / two:.2f}x exact)")
            print(f"{line} ({_load()})", flush=True)


def _prepare(folder: Path) -> Path:
    dataset = folder / "dataset"
    if (dataset / "files").is_dir():
        return dataset
    hilo = [sys.executable, "-m", "pipeline.cli"]
    started = time.perf_counter()
    subprocess.run(
        [*hilo, "generate", "--hands", str(HANDS), "--seed", "7", "--out", str(folder / "archive")],
        check=True, cwd=REPOSITORY,
    )  # fmt: skip
    subprocess.run(
        [*hilo, "ingest", str(folder / "archive" / "pokerstars"), "--out", str(dataset)],
        check=True, cwd=REPOSITORY,
    )  # fmt: skip
    print(f"generated and ingested {HANDS:,} hands in {time.perf_counter() - started:.0f} s")
    return dataset


def _whole_pass() -> None:
    import polars as pl

    from pipeline.audit import run_audit
    from pipeline.dataset import read_table
    from pipeline.executor import make_executor

    dataset = _prepare(REPOSITORY / "bench" / "out" / f"ev-{HANDS}")
    runs: dict[bool, list[float]] = {False: [], True: []}
    for _ in range(ROUNDS):  # alternated, so that a change of load hits both alike
        for equity in (False, True):
            with make_executor(workers=2) as executor:
                started = time.perf_counter()
                run_audit(dataset, "generated", executor=executor, equity=equity)
                runs[equity].append(time.perf_counter() - started)
            print(f"audit over {HANDS:,} hands, 2 workers, equity {'on' if equity else 'off'}: "
                  f"{runs[equity][-1]:,.1f} s ({_load()})", flush=True)
    times = {equity: statistics.median(values) for equity, values in runs.items()}
    ratios = [on / off for off, on in zip(runs[False], runs[True])]
    print(f"audit with the all-in equity / without: {statistics.median(ratios):.2f}x, the median "
          f"of {ROUNDS} alternated rounds ({', '.join(f'{ratio:.2f}' for ratio in ratios)}; "
          f"median times {times[True]:,.1f} s / {times[False]:,.1f} s)")
    rows = pl.from_arrow(read_table(dataset, "allin_equity"))
    spots = rows.group_by("site", "hand_id").agg(pl.col("street").first(), pl.col("player").n_unique())
    by_street = dict(spots.group_by("street").len().sort("street").iter_rows())
    print(f"all-in equity pass: {times[True] - times[False]:,.1f} s of wall time on top of the "
          f"audit for {spots.height:,} spots (by street {by_street}), {rows.height:,} rows")


def main(options: list[str] | None = None) -> int:
    options = options or []
    unknown = [option for option in options if option not in ("--kernel", "--whole")]
    if unknown:
        print(f"bench ev: unknown options {' '.join(unknown)} (--kernel, --whole)", file=sys.stderr)
        return 2
    sys.path.insert(0, str(REPOSITORY))
    print(f"{os.cpu_count()} cores ({_load()})")
    if "--whole" not in options or "--kernel" in options:
        _kernel_rates()
    if "--kernel" not in options or "--whole" in options:
        _whole_pass()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
