"""Player statistics over a dataset of ≥ 1,000,000 hands: `pipeline.stats.compute_stats` time.

The dataset is synthesised straight as Parquet (text generation and ingest would dominate): a
seed of real-shaped hands — from the hand generator (`pipeline.generate`) when it is there,
else the corpus's PokerStars hands — is parsed once, audited once, and its tables (hands, seats,
actions, collections, audit payouts) are replicated with fresh hand ids and rotated player
names until there are enough hands (about 6 seats and 12 actions a hand). Parts are written in
the dataset layout and committed through a manifest, so the views read exactly what an ingest
would have written.

Reported: the cold build (open ``hilo.duckdb``, create the views, compute the
``fct_hand_players`` table chunk by chunk), the warm reopen (nothing changed: nothing rebuilt),
the full statistics query (every player, all stats) on the built table, filtered and grouped
queries, CPU and the process's peak memory. DuckDB runs with ``memory_limit``
(``HILO_BENCH_MEMORY``, default ``4GB``) and a spill folder next to the dataset. Goal: ≤ 10 s
on 2 cores.

Run with ``python -m bench stats``; ``HILO_BENCH_STATS_HANDS`` changes the number of hands,
``HILO_BENCH_KEEP=1`` keeps the dataset (printed) for a second look.
"""

from __future__ import annotations

import os
import platform
import resource
import shutil
import tempfile
import time
from pathlib import Path

import polars as pl

__all__ = ["main", "seed_tables", "synthesise_dataset"]

REPOSITORY = Path(__file__).resolve().parent.parent
HANDS_WANTED = int(os.environ.get("HILO_BENCH_STATS_HANDS", "1000000"))
SEED_HANDS = 20_000
PARTS = 8
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
        files = sorted((REPOSITORY.parent / "shared" / "corpus" / "Stars").rglob("*.txt"))
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

    from pipeline.dataset import commit_manifest, part_name, stable_id, write_parquet
    from pipeline.schema import FILES
    from pipeline.schema import TABLES as SCHEMAS

    copies = -(-hands // seed["hands"].height)
    per_part = -(-copies // PARTS)
    manifest_parts: list[str] = []
    for part in range(PARTS):
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
                write_parquet(frame.drop("site").to_arrow(), target)
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
            "error": [None],
            "parts": [manifest_parts],
            "ingested_at": [None],
        },
        schema=FILES,
    )
    commit_manifest(root, rows)
    return copies * seed["hands"].height


def _cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _peak_rss_bytes() -> int:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if platform.system() == "Darwin" else peak * 1024


def main() -> None:
    """Synthesise the dataset, time the statistics, print the numbers."""
    from pipeline.stats import CHUNK_HANDS, compute_stats, open_database

    work = Path(tempfile.mkdtemp(prefix="hilo-bench-stats-"))
    try:
        started = time.perf_counter()
        seed, origin = seed_tables(work / "seed")
        dataset = work / "dataset"
        hands = synthesise_dataset(dataset, seed, HANDS_WANTED)
        seats = hands // seed["hands"].height * seed["seats"].height
        actions = hands // seed["hands"].height * seed["actions"].height
        print(
            f"dataset: {hands:,} hands, {seats:,} seats ({seats / hands:.1f}/hand),"
            f" {actions:,} actions ({actions / hands:.1f}/hand) from {origin};"
            f" built in {time.perf_counter() - started:.1f} s"
        )
        settings = {"memory_limit": MEMORY_LIMIT, "temp_directory": work / "spill"}
        print(
            f"duckdb: memory_limit={MEMORY_LIMIT}, temp_directory={work / 'spill'},"
            f" {os.cpu_count()} cores"
        )

        began, cpu = time.perf_counter(), _cpu_seconds()
        connection = open_database(dataset, **settings)  # type: ignore[arg-type]
        build = time.perf_counter() - began
        build_cpu = _cpu_seconds() - cpu
        connection.close()
        began = time.perf_counter()
        connection = open_database(dataset, **settings)  # type: ignore[arg-type]
        reopen = time.perf_counter() - began

        timings = []
        for _ in range(3):
            began = time.perf_counter()
            frame = compute_stats(dataset, connection=connection)
            timings.append(time.perf_counter() - began)
        total_hands = int(frame["hands"].sum())
        top = frame["player"][0]
        began = time.perf_counter()
        one = compute_stats(dataset, players=[top], by="position", connection=connection)
        filtered = time.perf_counter() - began
        began = time.perf_counter()
        compute_stats(dataset, by="stakes", limit="PL", connection=connection)
        grouped = time.perf_counter() - began
        connection.close()

        best = min(timings)
        print(
            f"cold: open hilo.duckdb, build the views and the fct_hand_players table"
            f" (chunks of {CHUNK_HANDS:,} hands): {build:.1f} s ({build_cpu:.1f} s CPU)"
        )
        print(f"warm: reopen (fingerprint unchanged, nothing rebuilt): {reopen:.2f} s")
        print(
            f"warm: all players, all stats: {', '.join(f'{t:.2f}' for t in timings)} s"
            f" ({frame.height:,} player rows, {total_hands:,} player-hands,"
            f" {hands / best:,.0f} hands/s)"
        )
        print(
            f"warm: one player by position: {filtered:.2f} s ({one.height} rows);"
            f" PL by stakes: {grouped:.2f} s"
        )
        print(f"cold + one stats query: {build + best:.1f} s")
        print(f"peak RSS: {_peak_rss_bytes() / 2**30:.2f} GiB")
        for label, seconds in (("warm stats query", best), ("cold build + query", build + best)):
            verdict = "met" if seconds <= GOAL_SECONDS else "MISSED"
            print(f"goal ≤ {GOAL_SECONDS:.0f} s, {label} over {hands:,} hands: {verdict}")
    finally:
        if os.environ.get("HILO_BENCH_KEEP"):
            print(f"kept: {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
