"""``hilo report`` over a dataset of ≥ 1,000,000 hands: time and size of the HTML page.

The dataset is synthesised straight as Parquet (text generation and ingest of a million hands
would dominate): a seed of generated hands (`pipeline.generate`, with injected faults so the
audit has findings) is parsed and audited once; its tables and the audit's outputs are
replicated with fresh hand ids until there are enough hands. Player names are rotated between
replicas (``name~k``) except the seed's busiest player, who plays in every replica: the report's
top player then has well over 100,000 hands, so the winnings curve is sampled.

The source files of replicated hands do not carry the new hand ids, so the findings' hand text
is rebuilt from the tables (the slower path of the two).

Reported: the time of `pipeline.report.write_report` (default options: top 5 players, at most
2,000 points a curve, 250 findings), split into gathering and rendering, the page's size and
what takes the room, and the peak memory. Run with ``python -m bench report``;
``HILO_BENCH_REPORT_HANDS`` changes the number of hands, ``HILO_BENCH_KEEP=1`` keeps the
dataset and the page (printed).
"""

from __future__ import annotations

import os
import platform
import re
import resource
import shutil
import tempfile
import time
from pathlib import Path

import polars as pl

__all__ = ["main", "seed_tables", "synthesise_dataset"]

HANDS_WANTED = int(os.environ.get("HILO_BENCH_REPORT_HANDS", "1000000"))
SEED_HANDS = 20_000
SEED_FAULT_RATE = 0.05
NAME_ROTATIONS = 10
PARTS = 8
TABLES = ("hands", "seats", "actions", "collections", "showdowns")
PLAYER_COLUMNS = ("player",)


def seed_tables(folder: Path) -> dict[str, pl.DataFrame]:
    """Generate, parse and audit a seed; return its tables plus ``payouts`` and ``discrepancies``."""
    from parsers import parse_bytes
    from pipeline.audit import audit_tables
    from pipeline.generate import generate

    generate(SEED_HANDS, 17, folder, limit="mix", tournament_share=0.3, fault_rate=SEED_FAULT_RATE)
    frames: dict[str, list[pl.DataFrame]] = {table: [] for table in TABLES}
    for path in sorted((folder / "pokerstars").glob("*.txt")):
        result = parse_bytes(path.read_bytes(), str(path))
        if result is None:
            continue
        for table in TABLES:
            frame = pl.from_arrow(result.tables[table])
            assert isinstance(frame, pl.DataFrame)
            frames[table].append(frame)
    tables = {table: pl.concat(parts, how="vertical_relaxed") for table, parts in frames.items()}
    audited = audit_tables(
        tables["hands"],
        tables["seats"],
        tables["actions"],
        tables["collections"],
        tables["showdowns"],
        rake_schedule="generated",
    )
    tables["payouts"] = audited.payouts
    tables["discrepancies"] = audited.discrepancies
    return tables


def _replica(frame: pl.DataFrame, copy: int, hero: str) -> pl.DataFrame:
    """One copy: hand ids made unique, every name but the hero's rotated."""
    result = frame.with_columns(pl.col("hand_id") + f"-{copy}")
    if "player" in result.columns:
        result = result.with_columns(
            pl.when(pl.col("player").is_null() | (pl.col("player") == hero))
            .then(pl.col("player"))
            .otherwise(pl.col("player") + f"~{copy % NAME_ROTATIONS}")
            .alias("player")
        )
    return result


def synthesise_dataset(root: Path, seed: dict[str, pl.DataFrame], hands: int) -> int:
    """Write ≥ ``hands`` hands (and the audit's outputs) as a committed dataset at ``root``."""
    import pyarrow as pa

    from pipeline.dataset import commit_manifest, part_name, stable_id, write_parquet
    from pipeline.schema import FILES
    from pipeline.schema import TABLES as SCHEMAS

    hero = seed["seats"].group_by("player").len().sort("len", descending=True)["player"][0]
    copies = -(-hands // seed["hands"].height)
    per_part = -(-copies // PARTS)
    manifest_parts: list[str] = []
    for part in range(PARTS):
        first, last = part * per_part, min(copies, (part + 1) * per_part)
        if first >= last:
            break
        part_id = stable_id([f"bench-report-{part}"])
        for table in (*TABLES, "payouts", "discrepancies"):
            frame = pl.concat([_replica(seed[table], copy, hero) for copy in range(first, last)])
            if table in ("payouts", "discrepancies"):
                folder = root / "audit" / table / "site=pokerstars"
                folder.mkdir(parents=True, exist_ok=True)
                write_parquet(frame.drop("site").to_arrow(), folder / f"part-{part}.parquet")
                continue
            relative = f"{table}/site=pokerstars/{part_name(part_id)}"
            (root / relative).parent.mkdir(parents=True, exist_ok=True)
            write_parquet(frame.to_arrow().cast(SCHEMAS[table]), root / relative)
            manifest_parts.append(relative)
    total = copies * seed["hands"].height
    rows = pa.table(
        {
            "path": ["bench-report-synthetic"],
            "size": [0],
            "sha256": ["0" * 64],
            "site": ["pokerstars"],
            "hands": [total],
            "skipped": [0],
            "rejected": [0],
            "error": [None],
            "parts": [manifest_parts],
            "ingested_at": [None],
        },
        schema=FILES,
    )
    commit_manifest(root, rows)
    return total


def _peak_rss_bytes() -> int:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if platform.system() == "Darwin" else peak * 1024


def _composition(page: str) -> str:
    svg = sum(len(match) for match in re.findall(r"<svg.*?</svg>", page, re.DOTALL))
    pre = sum(len(match) for match in re.findall(r"<pre.*?</pre>", page, re.DOTALL))
    return (
        f"charts {svg / 1e6:.2f} MB ({page.count('<svg')} SVG), hand text {pre / 1e6:.2f} MB,"
        f" rest {(len(page) - svg - pre) / 1e6:.2f} MB"
    )


def main() -> None:
    """Synthesise the dataset, time the report, print the numbers."""
    from pipeline.report import build_report, render_report, write_report

    work = Path(tempfile.mkdtemp(prefix="hilo-bench-report-"))
    try:
        started = time.perf_counter()
        seed = seed_tables(work / "seed")
        dataset = work / "dataset"
        hands = synthesise_dataset(dataset, seed, HANDS_WANTED)
        findings = hands // seed["hands"].height * seed["discrepancies"].height
        print(
            f"dataset: {hands:,} hands, {findings:,} findings, from {SEED_HANDS:,} generated"
            f" hands (fault rate {SEED_FAULT_RATE}); built in"
            f" {time.perf_counter() - started:.1f} s; {os.cpu_count()} cores"
        )

        began = time.perf_counter()
        summary = write_report(dataset, work / "report.html")
        total = time.perf_counter() - began
        began = time.perf_counter()
        data = build_report(dataset)
        gathered = time.perf_counter() - began
        began = time.perf_counter()
        page = render_report(data)
        rendered = time.perf_counter() - began
        top = data.players[0] if data.players else None
        print(
            f"write_report: {total:.1f} s (first call, imports included); again: gather"
            f" {gathered:.1f} s + render {rendered:.1f} s"
        )
        print(
            f"page: {summary.size / 1e6:.2f} MB ({_composition(page)});"
            f" {summary.players} players, {summary.findings:,} findings"
        )
        if top is not None:
            points = max(len(block.curve.x) for block in top.blocks)
            print(f"top player: {top.hands:,} hands, curve {points:,} points")
        print(f"peak RSS: {_peak_rss_bytes() / 2**30:.2f} GiB")
    finally:
        if os.environ.get("HILO_BENCH_KEEP"):
            print(f"kept: {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
