"""Player statistics as a user runs them: ``hilo stats`` and ``hilo report`` in fresh processes.

The dataset is synthesised straight as Parquet (text generation and ingest would dominate): a
seed of real-shaped hands — from the hand generator (`pipeline.generate`) when it is there,
else the corpus's PokerStars hands — is parsed once, audited once, and its tables (hands, seats,
actions, collections, audit payouts) are replicated with fresh hand ids and rotated player
names until there are enough hands, one part (and one audit file, recording the part it covers)
per seed copy of 20,000 hands. Parts are committed through a manifest, so the views read exactly
what an ingest would have written.

Reported, each in a fresh ``python -m pipeline.cli`` process with the peak PSS of its process
tree and the load average when it started: the first ``hilo stats`` (computes every part's
facts), a second one (nothing changed), then after committing 10,000 more hands (one part, not
audited): ``hilo stats`` for all players, ``hilo stats --player NAME`` (twice) and ``hilo report
--player NAME``; then the sizes of ``hilo.duckdb``, the dataset's Parquet and the stored facts.
``HILO_BENCH_BASELINE=/path/to/checkout`` runs the same steps with that code on a copy of the
same dataset (the named baseline, e.g. a worktree of main).

Run with ``python -m bench stats``; ``HILO_BENCH_STATS_HANDS`` changes the number of hands
(default 1,000,000), ``HILO_BENCH_KEEP=1`` keeps the dataset (printed) for a second look, and
``HILO_BENCH_STATS_DATASET=PATH`` copies a dataset synthesised before (with `synthesise_dataset`,
no stats yet) instead of synthesising one (5,000,000 hands take ~10 minutes to synthesise).
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import polars as pl

__all__ = ["main", "seed_tables", "synthesise_dataset"]

REPOSITORY = Path(__file__).resolve().parent.parent
HANDS_WANTED = int(os.environ.get("HILO_BENCH_STATS_HANDS", "1000000"))
SEED_HANDS = 20_000
GOAL_SECONDS = 10.0
MEMORY_LIMIT = os.environ.get("HILO_BENCH_MEMORY", "4GB")
NAME_ROTATIONS = 40  # each replica renames players: about 40x the seed's player pool
TABLES = ("hands", "seats", "actions", "collections", "showdowns")


def seed_tables(folder: Path) -> tuple[dict[str, pl.DataFrame], str]:
    """Parse a seed of hands; return its tables (plus ``payouts`` from the audit) and origin."""
    from parsers import parse_bytes

    try:
        from pipeline.generate import generate
    except ImportError:
        generate = None  # type: ignore[assignment]
    if generate is not None:
        generate(SEED_HANDS, 11, folder, limit="mix", tournament_share=0.3, workers=1)
        files = sorted((folder / "pokerstars").glob("*.txt"))
        origin = f"pipeline.generate ({SEED_HANDS} hands)"
    else:
        from tests.shared_data import CORPUS

        files = sorted((CORPUS / "Stars").rglob("*.txt"))
        origin = "corpus PokerStars hands"
    frames: dict[str, list[pl.DataFrame]] = {table: [] for table in TABLES}
    for path in files:
        result = parse_bytes(path.read_bytes(), path.name)
        if result is None:
            continue
        for table in TABLES:
            frames[table].append(pl.from_arrow(result.tables[table]))  # type: ignore[arg-type]
    tables = {table: pl.concat(parts, how="vertical_relaxed") for table, parts in frames.items()}
    from pipeline.audit import audit_tables

    tables["payouts"] = audit_tables(
        tables["hands"],
        tables["seats"],
        tables["actions"],
        tables["collections"],
        tables["showdowns"],
    ).payouts
    return tables, origin


def _replica(frame: pl.DataFrame, copy: int, players: list[str]) -> pl.DataFrame:
    """One copy: hand ids made unique, player names rotated within the seed's pool."""
    result = frame.with_columns(pl.col("hand_id") + f"-{copy}")
    for column in players:
        if column in result.columns:
            result = result.with_columns(
                pl.when(pl.col(column).is_not_null())
                .then(pl.col(column) + f"~{copy % NAME_ROTATIONS}")
                .otherwise(pl.col(column))
                .alias(column)
            )
    return result


def synthesise_dataset(root: Path, seed: dict[str, pl.DataFrame], hands: int) -> int:
    """Write ≥ ``hands`` hands as a committed dataset at ``root``; return the hand count."""
    import pyarrow as pa

    import json

    from pipeline.audit_outputs import HAND_PARTS_KEY
    from pipeline.dataset import commit_manifest, part_name, stable_id, write_parquet
    from pipeline.schema import FILES
    from pipeline.schema import TABLES as SCHEMAS

    copies = -(-hands // seed["hands"].height)
    # One part per seed copy (20,000 hands), about what an ingest batch or a compacted group
    # holds: the facts are computed and stored per part.
    per_part = 1
    manifest_parts: list[str] = []
    for part in range(copies):
        first, last = part * per_part, min(copies, (part + 1) * per_part)
        if first >= last:
            break
        part_id = stable_id([f"bench-stats-{part}"])
        for table in (*TABLES, "payouts"):
            frame = pl.concat(
                [_replica(seed[table], copy, ["player"]) for copy in range(first, last)]
            )
            if table == "payouts":
                folder = root / "audit" / "payouts" / "site=pokerstars"
                folder.mkdir(parents=True, exist_ok=True)
                target = folder / f"part-{part}.parquet"
                # As the audit writes it: the hands part its unit covered (pipeline.facts).
                covered = json.dumps([f"hands/site=pokerstars/{part_name(part_id)}"])
                arrow = frame.drop("site").to_arrow()
                write_parquet(arrow.replace_schema_metadata({HAND_PARTS_KEY: covered}), target)
                continue
            arrow = frame.to_arrow().cast(SCHEMAS[table])
            relative = f"{table}/site=pokerstars/{part_name(part_id)}"
            (root / relative).parent.mkdir(parents=True, exist_ok=True)
            write_parquet(arrow, root / relative)
            manifest_parts.append(relative)
    rows = pa.table(
        {
            "path": ["bench-stats-synthetic"],
            "size": [0],
            "sha256": ["0" * 64],
            "site": ["pokerstars"],
            "hands": [copies * seed["hands"].height],
            "skipped": [0],
            "rejected": [0],
            "duplicates": [0],
            "error": [None],
            "parts": [manifest_parts],
            "ingested_at": [None],
        },
        schema=FILES,
    )
    commit_manifest(root, rows)
    return copies * seed["hands"].height


def _hands_in(root: Path) -> int:
    import pyarrow.parquet as pq

    return sum(pq.read_metadata(path).num_rows for path in (root / "hands").rglob("part-*.parquet"))


def add_part(root: Path, seed: dict[str, pl.DataFrame], hands: int, copy: int) -> int:
    """Commit one more part of ``hands`` hands (fresh ids), as an ingest of a session would:
    no audit payouts for them yet."""
    import pyarrow as pa

    from pipeline.dataset import commit_manifest, part_name, stable_id, write_parquet
    from pipeline.schema import FILES
    from pipeline.schema import TABLES as SCHEMAS

    keep = seed["hands"].head(hands).select("site", "hand_id")
    part_id = stable_id([f"bench-stats-extra-{copy}"])
    relatives = []
    for table in TABLES:
        frame = seed[table].join(keep, on=["site", "hand_id"], how="semi")
        arrow = _replica(frame, copy, ["player"]).to_arrow().cast(SCHEMAS[table])
        relative = f"{table}/site=pokerstars/{part_name(part_id)}"
        write_parquet(arrow, root / relative)
        relatives.append(relative)
    rows = pa.table(
        {
            "path": [f"bench-stats-extra-{copy}"],
            "size": [0],
            "sha256": [f"{copy:064d}"],
            "site": ["pokerstars"],
            "hands": [keep.height],
            "skipped": [0],
            "rejected": [0],
            "duplicates": [0],
            "error": [None],
            "parts": [relatives],
            "ingested_at": [None],
        },
        schema=FILES,
    )
    commit_manifest(root, rows)
    return keep.height


def _load() -> str:
    return Path("/proc/loadavg").read_text().split()[0] if Path("/proc/loadavg").exists() else "?"


def timed(arguments: list[str], code: Path) -> tuple[float, int, str]:
    """Run ``python -m pipeline.cli ARGUMENTS`` with the code at ``code``; return seconds, the
    process tree's peak memory (PSS) and the load average when it started."""
    import subprocess
    import threading

    from bench.measure import tree_memory

    load = _load()
    environment = {**os.environ, "PYTHONPATH": str(code)}
    began = time.perf_counter()
    child = subprocess.Popen(
        [sys.executable, "-m", "pipeline.cli", *arguments],
        cwd=code,
        env=environment,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    peak = 0
    done = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, tree_memory(child.pid))
            time.sleep(0.05)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    _, error = child.communicate()
    done.set()
    sampler.join()
    seconds = time.perf_counter() - began
    if child.returncode != 0:
        raise RuntimeError(f"{' '.join(arguments)} failed: {error[-2000:]}")
    return seconds, peak, load


def _size(path: Path, pattern: str = "*") -> int:
    return sum(item.stat().st_size for item in path.rglob(pattern) if item.is_file())


def main() -> None:
    """Synthesise a dataset, then time ``hilo stats``/``report`` as a user runs them, in fresh
    processes: the first build, an increment of 10,000 hands, one player; with this code and,
    when ``HILO_BENCH_BASELINE`` names a checkout of older code, with that on a copy."""
    work = Path(tempfile.mkdtemp(prefix="hilo-bench-stats-"))
    baseline = os.environ.get("HILO_BENCH_BASELINE")
    try:
        started = time.perf_counter()
        seed, origin = seed_tables(work / "seed")
        dataset = work / "dataset"
        given = os.environ.get("HILO_BENCH_STATS_DATASET")
        if given:
            shutil.copytree(given, dataset)
            hands = _hands_in(dataset)
        else:
            hands = synthesise_dataset(dataset, seed, HANDS_WANTED)
        print(
            f"dataset: {hands:,} hands in parts of {seed['hands'].height:,} from {origin};"
            f" built in {time.perf_counter() - started:.1f} s; {os.cpu_count()} cores"
        )
        player = f"{seed['seats']['player'][0]}~0"
        codes = [("this", REPOSITORY)]
        if baseline:
            shutil.copytree(dataset, work / "baseline")
            codes.append(("baseline", Path(baseline)))
        for label, code in codes:
            root = dataset if label == "this" else work / "baseline"
            steps = [
                ("first build: hilo stats (all players)", ["stats", str(root), "-f", "csv"]),
                ("again, nothing changed", ["stats", str(root), "-f", "csv"]),
            ]
            for name, arguments in steps:
                seconds, peak, load = timed([*arguments, "-o", str(work / "s.csv")], code)
                rate = f", {hands / seconds:,.0f} hands/s" if "first" in name else ""
                print(
                    f"[{label}] {name}: {seconds:.1f} s{rate}, peak PSS {peak / 2**30:.2f} GiB,"
                    f" load {load}"
                )
            extra = add_part(root, seed, 10_000, copy=10_000)
            print(f"[{label}] + {extra:,} hands committed (one part, not audited)")
            for name, arguments in (
                ("hilo stats (all players)", ["stats", str(root), "-o", str(work / "s.txt")]),
                ("hilo stats --player", ["stats", str(root), "-p", player, "-f", "csv"]),
                ("hilo stats --player (again)", ["stats", str(root), "-p", player, "-f", "csv"]),
                ("hilo report --player", ["report", str(root), "-p", player, "-o", str(work / "r")]),
            ):
                seconds, peak, load = timed(arguments, code)
                print(
                    f"[{label}] after +10,000: {name}: {seconds:.2f} s,"
                    f" peak PSS {peak / 2**30:.2f} GiB, load {load}"
                )
            database = (root / "hilo.duckdb").stat().st_size
            parquet = _size(root, "*.parquet") - _size(root / "stats", "*.parquet")
            facts = _size(root / "stats", "*.parquet")
            print(
                f"[{label}] sizes: hilo.duckdb {database / 2**20:.1f} MiB = "
                f"{100 * database / parquet:.1f} % of the dataset's Parquet"
                f" ({parquet / 2**20:.1f} MiB); stored facts {facts / 2**20:.1f} MiB"
            )
    finally:
        if os.environ.get("HILO_BENCH_KEEP"):
            print(f"kept: {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
