"""Fuzzing throughput, memory and findings: a million mutated hands through every parser.

For every parser registered in ``parsers.PARSERS`` that has seed hands (`tests.fuzzing`), a child
process parses ``HILO_FUZZ_HANDS`` mutated hands (default 1,000,000) in blocks of
``HILO_FUZZ_BLOCK`` hands and checks every block's invariants; every 50th block carries a 4 MiB
line. Beside it, in the same process, the unmutated seeds are parsed in blocks of the same size:
the baseline of the throughput ratio (``parse/s`` — decoding, parsing and checking mutated
blocks — over ``clean/s``; ``hands/s`` also counts making the mutations). The child also runs
a sample of mutated files (plain and zipped) through `pipeline.ingest.ingest`. A second child
measures the peak memory of parsing one hand with a huge line (``HILO_FUZZ_HUGE_MB``, default
16 MiB): the stated bound is a peak growth of at most ``HUGE_LINE_BOUND_FACTOR`` times the
line's size (flagged with ``!`` when exceeded).

Run with ``python -m bench fuzz``; ``HILO_FUZZ_SITES=pokerstars,bovada`` limits the parsers,
``HILO_FUZZ_SEED`` changes the mutations (runs with different seeds add up),
``HILO_FUZZ_FINDINGS`` is where failing inputs are written (default ``/tmp/hilo-fuzz-findings``).
A parser's child is started only when its turn comes, so the code it fuzzes is the code on disk
at that moment.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import tempfile
import time
import zipfile
from collections import Counter
from pathlib import Path
from typing import Any

from tests.fuzzing import memory_now, peak_memory, reset_peak_memory

REPOSITORY = Path(__file__).resolve().parent.parent
HANDS = int(os.environ.get("HILO_FUZZ_HANDS", "1000000"))
BLOCK = int(os.environ.get("HILO_FUZZ_BLOCK", "2000"))
HUGE_MB = int(os.environ.get("HILO_FUZZ_HUGE_MB", "16"))
SEED = int(os.environ.get("HILO_FUZZ_SEED", "2026"))  # another seed, other mutations: runs add up
SITES = [site for site in os.environ.get("HILO_FUZZ_SITES", "").split(",") if site]
FINDINGS = Path(os.environ.get("HILO_FUZZ_FINDINGS", "/tmp/hilo-fuzz-findings"))
HUGE_LINE_EVERY = 50
PROGRESS = os.environ.get("HILO_FUZZ_PROGRESS", "") == "1"  # children report progress on stderr
# Stated bound: parsing a hand with one line of L bytes peaks at most this many times L above
# the process's memory before it (the decoded text, the line series, a few regex passes).
HUGE_LINE_BOUND_FACTOR = 32
INGEST_FILES = 8
INGEST_HANDS_PER_FILE = 250


def _baseline(site: str, seeds: object, hands: int) -> float:
    """Hands per second parsing the intact seeds in blocks of the same size."""
    from parsers.text import decode_lines
    from tests.fuzzing import parser_by_site

    parser = parser_by_site(site)
    own = seeds.hands[site]  # type: ignore[attr-defined]
    # Blocks of the fuzzed blocks' size in hands: a whole-file seed (Merge) holds several.
    count = max(1, round(BLOCK / seeds.hands_per_seed(site)))  # type: ignore[attr-defined]
    rng = random.Random(0)
    done, elapsed = 0, 0.0
    while done < hands:
        data = ("\n\n".join(rng.choice(own) for _ in range(count)) + "\n").encode(
            "utf-8", errors="surrogateescape"
        )
        start = time.perf_counter()
        decoded = decode_lines(data)
        result = parser.parse(decoded.lines, decoded.offsets, "baseline.txt")
        elapsed += time.perf_counter() - start
        done += result.hands_found
    return done / elapsed


def _huge_line_probe(site: str, seeds: object) -> dict[str, object]:
    """Peak memory of parsing one hand that carries a ``HUGE_MB`` MiB line."""
    from tests.fuzzing import huge_line, parse_checked, parser_by_site

    parser = parser_by_site(site)
    rng = random.Random(5)
    hand = seeds.hands[site][0]  # type: ignore[attr-defined]
    size = HUGE_MB << 20
    worst = 0
    problems: list[str] = []
    for _ in range(3):  # a giant name, a giant amount, a junk line (random order)
        data = (huge_line(hand, rng, (), size=size) + "\n").encode(
            "utf-8", errors="surrogateescape"
        )
        before = memory_now()
        reset_peak_memory()
        problems += parse_checked(parser, data)
        worst = max(worst, peak_memory() - before)
        del data
    return {
        "huge_line_bytes": size,
        "huge_line_peak_growth": worst,
        "huge_line_factor": round(worst / size, 1),
        "huge_line_within_bound": worst <= HUGE_LINE_BOUND_FACTOR * size,
        "huge_line_problems": sorted(set(problems)),
    }


def _ingest_sample(site: str, seeds: object) -> dict[str, object]:
    """Mutated files, plain and in a zip, through `pipeline.ingest.ingest`: no exception, and
    the summary's accounting matches the dataset's rows."""
    from pipeline import dataset
    from pipeline.ingest import ingest
    from tests.fuzzing import MUTATORS, mutated_block

    rng = random.Random(9)
    own, foreign = seeds.hands[site], seeds.foreign(site)  # type: ignore[attr-defined]
    problems: list[str] = []
    with tempfile.TemporaryDirectory(prefix="hilo-fuzz-ingest-") as folder:
        inputs = Path(folder, "in")
        inputs.mkdir()
        # Half the files without NUL bytes: ingest refuses a file with a NUL in its first
        # 64 KiB as binary, and the sample is meant to exercise the parsers too.
        without_nul = [name for name in MUTATORS if name != "nul_bytes"]
        for number in range(INGEST_FILES):
            data, _ = mutated_block(
                own,
                foreign,
                rng,
                INGEST_HANDS_PER_FILE,
                mutators=without_nul if number % 2 else list(MUTATORS),
            )
            Path(inputs, f"{site}-{number}.txt").write_bytes(data)
        with zipfile.ZipFile(Path(folder, "more.zip"), "w", zipfile.ZIP_DEFLATED) as archive:
            for number in range(INGEST_FILES // 2):
                data, _ = mutated_block(own, foreign, rng, INGEST_HANDS_PER_FILE)
                archive.writestr(f"zipped-{number}.txt", data)
        out = Path(folder, "dataset")
        try:
            summary = ingest([inputs, Path(folder, "more.zip")], out, workers=1)
        except Exception as error:  # noqa: BLE001 - the finding
            return {"ingest_problems": [f"ingest raised {type(error).__name__}: {error}"]}
        # Hands already stored from another file are counted apart (pipeline/duplicates.py).
        duplicates = getattr(summary, "duplicates", 0)
        if summary.hands_found != summary.parsed + summary.skipped + summary.rejected + duplicates:
            problems.append(
                f"ingest accounting: found {summary.hands_found} != parsed {summary.parsed}"
                f" + skipped {summary.skipped} + rejected {summary.rejected}"
                f" + duplicates {duplicates}"
            )
        if summary.files != INGEST_FILES + INGEST_FILES // 2:
            problems.append(f"ingest recorded {summary.files} files")
        hands = dataset.read_table(out, "hands").num_rows
        rejects = dataset.read_table(out, "rejects")
        if hands != summary.parsed:
            problems.append(f"ingest: {hands} hand rows but parsed {summary.parsed}")
        if rejects.num_rows != summary.rejected + len(summary.errors):
            problems.append(
                f"ingest: {rejects.num_rows} reject rows but rejected {summary.rejected}"
                f" + file errors {len(summary.errors)}"
            )
        return {
            "ingest_hands_found": summary.hands_found,
            "ingest_parsed": summary.parsed,
            "ingest_rejected": summary.rejected,
            "ingest_duplicates": duplicates,
            "ingest_problems": problems,
        }


def run_child(site: str) -> None:
    """Fuzz one parser and print one JSON line of results."""
    from tests.fuzzing import FuzzRun, fuzz_parser, load_seeds

    seeds = load_seeds()
    start = time.perf_counter()
    reset_peak_memory()

    def progress(run: FuzzRun) -> None:
        if run.blocks % 50 == 0:
            rate = run.hands / (time.perf_counter() - start)
            print(f"{site}: {run.hands:,} hands, {rate:,.0f}/s", file=sys.stderr, flush=True)

    run = fuzz_parser(
        site,
        seeds,
        HANDS,
        seed=SEED,
        block_hands=BLOCK,
        huge_line_every=HUGE_LINE_EVERY,
        on_block=progress,
    )
    seconds = time.perf_counter() - start
    fuzz_peak = peak_memory()
    baseline = _baseline(site, seeds, min(HANDS, 50 * BLOCK))
    saved = [str(finding.save(FINDINGS / site)) for finding in run.findings]
    kinds = Counter(
        problem[:120] for finding in run.findings for problem in finding.problem.split("; ")
    )
    result = {
        "site": site,
        "seed_hands": len(seeds.hands[site]),
        "hands": run.hands,
        "blocks": run.blocks,
        "mutations": run.mutations,
        "megabytes": round(run.bytes / 1e6, 1),
        "seconds": round(seconds, 1),
        "hands_per_second": round(run.hands / seconds),
        "parse_hands_per_second": round(run.hands / run.parse_seconds),
        "baseline_hands_per_second": round(baseline),
        "peak_rss": fuzz_peak,
        "failing_blocks": len(run.findings),
        "finding_kinds": dict(kinds),
        "saved": saved[:5],
        **_ingest_sample(site, seeds),
    }
    print(json.dumps(result), flush=True)


def run_huge_line_child(site: str) -> None:
    """Print the huge-line probe of one parser as one JSON line. A process of its own: after a
    million hands, the heap's fragments would be counted as the line's growth, and the line's
    freed memory as the fuzz run's peak."""
    from tests.fuzzing import load_seeds

    print(json.dumps(_huge_line_probe(site, load_seeds())), flush=True)


def _child(mode: str, site: str) -> tuple[dict[str, object] | None, str]:
    """Run ``python -m bench.bench_fuzz MODE SITE``; return its JSON result or its error."""
    completed = subprocess.run(
        [sys.executable, "-m", "bench.bench_fuzz", mode, site],
        cwd=REPOSITORY,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE if not PROGRESS else None,
        text=True,
        check=False,
    )
    lines = [line for line in completed.stdout.splitlines() if line.startswith("{")]
    if completed.returncode or not lines:
        return None, f"child failed ({completed.returncode}): {(completed.stderr or '')[-800:]}"
    result: dict[str, object] = json.loads(lines[-1])
    return result, ""


def _load_average() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


def main() -> None:
    """Fuzz every registered parser that has seeds, one child process after another."""
    import parsers
    from tests.fuzzing import load_seeds

    seeds = load_seeds()
    sites = [parser.site for parser in parsers.PARSERS if not SITES or parser.site in SITES]
    print(
        f"fuzz: {HANDS:,} mutated hands per parser in blocks of {BLOCK:,}; cpus {os.cpu_count()},"
        f" load {_load_average()}",
        flush=True,
    )
    for note in seeds.notes:
        print(f"  note: {note}", flush=True)
    header = (
        f"{'parser':<12} {'seeds':>5} {'hands':>9} {'hands/s':>8} {'parse/s':>8} {'clean/s':>8}"
        f" {'ratio':>5}"
        f" {'MB/s':>6} {'peak RSS':>9} {'huge line ×':>11} {'bad blocks':>10}  ingest"
    )
    print(header, flush=True)
    total_bad = 0
    for site in sites:
        if site not in seeds.hands:
            print(
                f"{site:<12} no seed hands (no corpus file is claimed by this parser)", flush=True
            )
            continue
        fuzzed, error = _child("--child", site)
        probed, probe_error = _child("--huge-line", site)
        if fuzzed is None or probed is None:
            print(f"{site:<12} {error or probe_error}", flush=True)
            total_bad += 1
            continue
        r: dict[str, Any] = {**fuzzed, **probed}
        ratio = r["parse_hands_per_second"] / max(r["baseline_hands_per_second"], 1)
        ingest_note = "ok" if not r["ingest_problems"] else "; ".join(r["ingest_problems"])
        print(
            f"{site:<12} {r['seed_hands']:>5} {r['hands']:>9,} {r['hands_per_second']:>8,}"
            f" {r['parse_hands_per_second']:>8,}"
            f" {r['baseline_hands_per_second']:>8,} {ratio:>5.2f}"
            f" {r['megabytes'] / r['seconds']:>6.1f} {r['peak_rss'] / 2**20:>6.0f} MiB"
            f" {r['huge_line_factor']:>10}{'' if r['huge_line_within_bound'] else '!'}"
            f" {r['failing_blocks']:>10}  {ingest_note}",
            flush=True,
        )
        for kind, count in sorted(r["finding_kinds"].items(), key=lambda item: -item[1]):
            print(f"    {count:>5} × {kind}", flush=True)
        for problem in r["huge_line_problems"]:
            print(f"    huge line: {problem}", flush=True)
        for path in r["saved"]:
            print(f"    saved {path}", flush=True)
        total_bad += r["failing_blocks"] + len(r["ingest_problems"])
    print(f"fuzz: done, load {_load_average()}; blocks or samples with findings: {total_bad}")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--child":
        run_child(sys.argv[2])
    elif len(sys.argv) == 3 and sys.argv[1] == "--huge-line":
        run_huge_line_child(sys.argv[2])
    else:
        main()
