"""Parse rate per core of every registered parser, on intact seed hands.

The seeds are the fuzz harness's (`tests.fuzzing.load_seeds`): the corpus's hands of each
site, generated hands of the sites `hilo generate` writes, and the hand-written test documents
of the structured formats. Each parser parses ``HILO_PARSERS_HANDS`` hands (default 20,000)
drawn from its seeds, in blocks of ``HILO_PARSERS_BLOCK`` hands (default 2,000) — decoding
included, as ingest does it — in a child process limited to one thread (``POLARS_MAX_THREADS=1``,
``NUMBA_NUM_THREADS=1``): the figure is hands per second per core. A parser with a reference
path (PokerStars' block parser, which the compiled reader must equal) is measured both ways in
the same child, so the ratio is taken on the same input, machine and load.

Each parser is also measured on blocks of the size ingest reads a large file in
(`pipeline.ingest.BLOCK_BYTES`, 8 MiB: ~5,000 PokerStars hands), ``HILO_PARSERS_HANDS`` hands in
all (at least one block): a parse has a fixed cost per block, so this is the rate ingest sees.

A parser that parses a batch of small files in one pass (``parse_files``, as ingest uses it)
is also measured on ``SMALL_FILES`` files of 20 to 120 hands: the batch against the same files
parsed one by one (the baseline), in the same child.

Goal: ≥ 50,000 hands/s per core for every text site; XML/JSON ≥ 10× 500–800.

Run with ``python -m bench parsers``; ``HILO_PARSERS_SITES=pokerstars,bovada`` limits the sites.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parent.parent
HANDS = int(os.environ.get("HILO_PARSERS_HANDS", "20000"))
BLOCK = int(os.environ.get("HILO_PARSERS_BLOCK", "2000"))
SITES = [site for site in os.environ.get("HILO_PARSERS_SITES", "").split(",") if site]
SMALL_FILES = 40
TEXT_GOAL = 50_000
STRUCTURED_GOAL = 5_000  # 10 × the 500 hands/s of the slowest structured reader before
STRUCTURED = frozenset({"merge", "boss", "microgaming", "ipoker", "igt"})


def _measure(site: str) -> dict[str, object]:
    """In the child: hands per second of ``site`` (and of its reference path, if any)."""
    from parsers.text import decode_lines
    from tests.fuzzing import load_seeds, parser_by_site

    seeds = load_seeds()
    parser = parser_by_site(site)
    own = seeds.hands[site]
    rng = random.Random(0)
    blocks = [
        ("\n\n".join(rng.choice(own) for _ in range(BLOCK)) + "\n").encode(
            "utf-8", errors="surrogateescape"
        )
        for _ in range(max(1, HANDS // BLOCK))
    ]
    paths = {"parse": parser.parse}
    reference = getattr(parser, "parse_by_block_parser", None)
    if reference is not None:
        paths["reference"] = reference
    rates: dict[str, object] = {"site": site, "seeds": len(own)}
    for name, parse in paths.items():
        decoded = decode_lines(blocks[0])
        parse(decoded.lines, decoded.offsets, "warm-up.txt")  # compiled kernels load once
        hands = 0
        elapsed = 0.0
        for data in blocks:
            start = time.perf_counter()
            decoded = decode_lines(data)
            result = parse(decoded.lines, decoded.offsets, "bench.txt")
            elapsed += time.perf_counter() - start
            hands += result.hands_found
        rates[name] = hands / elapsed
        rates[f"{name}_mb_s"] = sum(map(len, blocks)) / elapsed / 1e6
    rates["ingest_block"] = _ingest_blocks(parser, own, rng)
    if callable(getattr(parser, "parse_files", None)):
        rates.update(_small_files(parser, own, rng))
    return rates


def _ingest_blocks(parser: object, own: list[str], rng: random.Random) -> float:
    """Hands per second on blocks of ingest's block size, ``HANDS`` hands in all."""
    from parsers.text import decode_lines
    from pipeline.ingest import BLOCK_BYTES

    hands = elapsed = 0.0
    while hands < HANDS:
        pieces, size = [], 0
        while size < BLOCK_BYTES:
            pieces.append(rng.choice(own))
            size += len(pieces[-1]) + 2
        data = ("\n\n".join(pieces) + "\n").encode("utf-8", errors="surrogateescape")
        start = time.perf_counter()
        decoded = decode_lines(data)
        found = parser.parse(decoded.lines, decoded.offsets, "bench.txt").hands_found  # type: ignore[attr-defined]
        elapsed += time.perf_counter() - start
        hands += found
        if not found:
            break  # seeds no block finds a hand in: one block says so
    return hands / elapsed if elapsed else 0.0


def _small_files(parser: object, own: list[str], rng: random.Random) -> dict[str, float]:
    """Hands per second on `SMALL_FILES` small files: one by one, and as one batch."""
    import numpy as np
    import polars as pl

    from parsers.text import decode_lines

    files = [
        decode_lines(
            ("\n\n".join(rng.choice(own) for _ in range(rng.randint(20, 120))) + "\n").encode(
                "utf-8", errors="surrogateescape"
            )
        )
        for _ in range(SMALL_FILES)
    ]
    names = [f"file-{index}.txt" for index in range(SMALL_FILES)]
    sizes = np.array([len(item.lines) for item in files], dtype=np.int64)
    lines = pl.concat([item.lines for item in files])
    offsets = np.concatenate([item.offsets for item in files])
    file_starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    start = time.perf_counter()
    hands = sum(
        parser.parse(item.lines, item.offsets, name).hands_found  # type: ignore[attr-defined]
        for item, name in zip(files, names)
    )
    alone = time.perf_counter() - start
    start = time.perf_counter()
    parser.parse_files(lines, offsets, file_starts, names)  # type: ignore[attr-defined]
    batched = time.perf_counter() - start
    return {"small_alone": hands / alone, "small_batch": hands / batched}


def _child(site: str) -> dict[str, object]:
    environment = {**os.environ, "POLARS_MAX_THREADS": "1", "NUMBA_NUM_THREADS": "1"}
    output = subprocess.run(
        [sys.executable, "-m", "bench.bench_parsers", "--child", site],
        cwd=REPOSITORY,
        env=environment,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return json.loads(output.strip().splitlines()[-1])


def main() -> None:
    """Measure every parser with seeds, one child each, and print the table."""
    import parsers
    from tests.fuzzing import load_seeds

    seeds = load_seeds()
    sites = [parser.site for parser in parsers.PARSERS if seeds.hands.get(parser.site)]
    sites = [site for site in sites if not SITES or site in SITES]
    print(
        f"parse rate per core: {HANDS:,} hands a parser in blocks of {BLOCK:,} hands and in"
        f" blocks of 8 MiB (ingest's), one thread;"
        f" load {' '.join(f'{value:.2f}' for value in os.getloadavg())}"
    )
    print(
        f"{'parser':12s} {'seeds':>6s} {'hands/s':>9s} {'MB/s':>6s}  goal     "
        f" {'8 MiB':>8s}  goal      reference  ratio"
        f"  small files: {'alone':>7s} {'batch':>7s}  ratio"
    )
    for site in sites:
        rates = _child(site)
        goal = STRUCTURED_GOAL if site in STRUCTURED else TEXT_GOAL
        verdict = "met" if float(rates["parse"]) >= goal else "NOT met"  # type: ignore[arg-type]
        large = float(rates["ingest_block"])  # type: ignore[arg-type]
        line = (
            f"{site:12s} {rates['seeds']:>6} {rates['parse']:>9,.0f} {rates['parse_mb_s']:>6.1f}"
            f"  {verdict:8s} {large:>8,.0f}  {'met' if large >= goal else 'NOT met':8s}"
        )
        if "reference" in rates:
            line += (
                f"  {rates['reference']:>9,.0f}  x{float(rates['parse']) / float(rates['reference']):.2f}"  # type: ignore[arg-type]
            )
        else:
            line += " " * 18
        if "small_batch" in rates:
            alone = float(rates["small_alone"])  # type: ignore[arg-type]
            batch = float(rates["small_batch"])  # type: ignore[arg-type]
            line += f"  {'':12s} {alone:>7,.0f} {batch:>7,.0f}  x{batch / alone:.2f}"
        print(line, flush=True)
    print(f"done, load {' '.join(f'{value:.2f}' for value in os.getloadavg())}")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--child":
        print(json.dumps(_measure(sys.argv[2])))
    else:
        main()
