"""Ingest throughput and memory on large PokerStars archives, beside a naive baseline.

Two archives of ≥ 200,000 hands each: large files (the corpus's PokerStars Omaha Hi/Lo hands
replicated with fresh hand ids, 5,000 hands a file, also as one zip) and small files (what
`hilo generate` writes: one table session a file, about 80 hands, as players' folders are).
Each is ingested by ``hilo ingest`` in a child process twice, once timed and once with its memory
watched (watching costs the ingest time: `run_ingest`); the report gives hands/s and MB/s of the
first, peak memory of the second (the largest single process and the largest sum over the
ingest's processes), next to a single-threaded loop over the same files that only matches every
line against one combined regular expression. From the times of the key index parts a run
wrote, it also gives when the first and the last task ended and the rate between them: the rate
once the processes run, apart from their start-up. Goal: ≥ 100,000 hands/s on 2 cores, ≥ 4× the
naive loop, peak PSS ≤ 1 GiB.

Run with ``python -m bench ingest``; ``HILO_BENCH_HANDS`` changes the number of hands.
"""

from __future__ import annotations

import os
import platform
import re
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import pyarrow.parquet as pq

from tests.shared_data import CORPUS

__all__ = [
    "HAND_ID",
    "main",
    "naive_scan",
    "replicate_hands",
    "stars_corpus_files",
    "write_replicated_files",
]

REPOSITORY = Path(__file__).resolve().parent.parent
HANDS_WANTED = int(os.environ.get("HILO_BENCH_HANDS", "200000"))
HANDS_PER_FILE = 5000
GOAL_HANDS_PER_SECOND = 100_000
GOAL_PEAK_BYTES = 1 << 30

HAND_ID = re.compile(rb"^(PokerStars [A-Za-z ]*?(?:Hand|Game) #)(\d+)(:)", re.MULTILINE)
# The naive baseline: one regular expression for every kind of line a parser has to read.
NAIVE_LINE = re.compile(
    r"^(?:PokerStars (?:Hand|Game) #(\d+):"
    r"|Table '([^']*)'"
    r"|Seat (\d+): (.+?) \(([^ )]+) in chips"
    r"|(.+?): (posts|folds|checks|calls|bets|raises|shows|mucks)"
    r"|Dealt to (.+?) \["
    r"|\*\*\* (.+?) \*\*\*"
    r"|Uncalled bet \(([^)]+)\) returned to (.+)"
    r"|(.+?) collected (\S+) from"
    r"|Total pot (\S+)"
    r"|Board \[([^\]]*)\])"
)


def stars_corpus_files(corpus: Path) -> list[Path]:
    """Return the corpus's PokerStars hand-history files (``Stars/**/*.txt``, ``other/Stars-*``)."""
    files = sorted((corpus / "Stars").rglob("*.txt")) + sorted((corpus / "other").glob("Stars-*"))
    return [path for path in files if path.is_file()]


def _normalised_text(path: Path) -> bytes:
    """Return a file's text as UTF-8 with LF endings, ending with a blank line."""
    data = path.read_bytes().removeprefix(b"\xef\xbb\xbf").replace(b"\r\n", b"\n")
    return data.rstrip(b"\n") + b"\n\n\n"


def replicate_hands(files: Sequence[Path], copies: int, first_id: int = 10**11) -> Iterable[bytes]:
    """Yield ``copies`` copies of the hands of ``files``, every hand with a new unique id."""
    template = b"".join(_normalised_text(path) for path in files)
    next_id = first_id

    def renumber(match: re.Match[bytes]) -> bytes:
        nonlocal next_id
        next_id += 1
        return match.group(1) + str(next_id).encode() + match.group(3)

    for _ in range(copies):
        yield HAND_ID.sub(renumber, template)


def write_replicated_files(
    folder: Path, files: Sequence[Path], hands: int, hands_per_file: int = HANDS_PER_FILE
) -> list[Path]:
    """Write about ``hands`` replicated hands into text files of ``hands_per_file`` each."""
    template_hands = sum(len(HAND_ID.findall(_normalised_text(path))) for path in files)
    copies_per_file = max(1, hands_per_file // template_hands)
    file_count = max(1, -(-hands // (copies_per_file * template_hands)))
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for number in range(file_count):
        path = folder / f"HH-replicated-{number:04d}.txt"
        first_id = 10**11 + number * copies_per_file * template_hands
        path.write_bytes(b"".join(replicate_hands(files, copies_per_file, first_id)))
        written.append(path)
    return written


def naive_scan(paths: Sequence[Path]) -> tuple[int, int]:
    """Read ``paths`` line by line and match each line; return ``(hands, bytes)``."""
    hands = 0
    size = 0
    for path in paths:
        with open(path, encoding="utf-8", errors="replace") as handle:
            for line in handle:
                match = NAIVE_LINE.match(line)
                if match is not None and match.group(1) is not None:
                    hands += 1
        size += path.stat().st_size
    return hands, size


class _MemoryWatch:
    """Sample the resident memory of a process tree (/proc) until stopped."""

    def __init__(self, root_pid: int) -> None:
        self.root_pid = root_pid
        self.peak_single = 0  # bytes, largest VmHWM of one process
        self.peak_total = 0  # bytes, largest sum of proportional set sizes at one instant
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> _MemoryWatch:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.is_set():
            total = 0
            for pid in _descendants(self.root_pid):
                status = _status(pid)
                # Pss shares the pages the workers inherit from the fork server among them;
                # summing plain RSS would count those shared libraries once per process.
                total += _proportional_size(pid) or status.get("VmRSS", 0)
                self.peak_single = max(self.peak_single, status.get("VmHWM", 0))
            self.peak_total = max(self.peak_total, total)
            time.sleep(0.05)


def _descendants(root: int) -> list[int]:
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as handle:
                    fields = handle.read().rsplit(")", 1)[1].split()
                parents[int(entry)] = int(fields[1])
            except (OSError, IndexError, ValueError):
                continue
    found = [root]
    frontier = [root]
    while frontier:
        parent = frontier.pop()
        children = [pid for pid, ppid in parents.items() if ppid == parent]
        found.extend(children)
        frontier.extend(children)
    return found


def _proportional_size(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/smaps_rollup") as handle:
            for line in handle:
                if line.startswith("Pss:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def _status(pid: int) -> dict[str, int]:
    values: dict[str, int] = {}
    try:
        with open(f"/proc/{pid}/status") as handle:
            for line in handle:
                key, _, rest = line.partition(":")
                if key in ("VmRSS", "VmHWM"):
                    values[key] = int(rest.split()[0]) * 1024
    except OSError:
        pass
    return values


@dataclass
class IngestRun:
    """One measured ``hilo ingest`` child process."""

    label: str
    seconds: float
    summary: str
    peak_single: int
    peak_total: int
    first_task: float | None = None  # seconds from the command to the first task's end
    steady_rate: float | None = None  # hands stored a second from there to the last task's end
    last_task: float | None = None  # seconds from the command to the last task's end


def run_ingest(
    label: str,
    inputs: Sequence[Path],
    out: Path,
    workers: int | None,
    watch_memory: bool = False,
) -> IngestRun:
    """Run ``hilo ingest`` in a child process and measure its time, or its memory.

    One or the other: reading a process's ``smaps_rollup`` walks its page tables, and doing it
    every 50 ms over the ingest's four processes took 15-20 % of the ingest's wall time on the
    2-core machine (2026-12-06: 4.74-5.20 s watched, 4.05-4.36 s not, 200,000 hands).
    """
    command = [sys.executable, "-m", "pipeline.cli", "ingest", *map(str, inputs), "--out", str(out)]
    if workers:
        command += ["--workers", str(workers)]
    started = time.perf_counter()
    started_at = time.time()
    child = subprocess.Popen(
        command, cwd=REPOSITORY, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    peak_single = peak_total = 0
    if watch_memory:
        with _MemoryWatch(child.pid) as watch:
            output, _ = child.communicate()
        peak_single, peak_total = watch.peak_single, watch.peak_total
    else:
        output, _ = child.communicate()
    seconds = time.perf_counter() - started
    if child.returncode != 0:
        raise RuntimeError(f"hilo ingest failed ({child.returncode}):\n{output}")
    summary = next((line for line in output.splitlines() if line.startswith("files ")), output)
    timings = task_timings(out, started_at)
    return IngestRun(label, seconds, summary, peak_single, peak_total, *timings)


def task_timings(out: Path, started_at: float) -> tuple[float | None, float | None, float | None]:
    """When the run's first task ended (seconds after ``started_at``, a ``time.time()``), the
    hands stored a second from then to the last task's end (the rate once the processes have
    started, which a 200,000-hand run hides behind about a second of start-up), and when the
    last task ended.

    Read from the key index parts the run wrote: a task writes its one last, with a row a
    hand, so its modification time is the task's end (the driver's rename keeps it).
    """
    from pipeline.duplicates import INDEX

    ended = sorted(
        (modified, pq.read_metadata(path).num_rows)
        for path in (out / INDEX).glob("part-*.parquet")
        if (modified := path.stat().st_mtime) >= started_at
    )
    # Under four tasks (two a worker) the first and last may end together: no rate to tell.
    if len(ended) < 4 or ended[-1][0] <= ended[0][0]:
        return None, None, None
    first, last = ended[0][0], ended[-1][0]
    hands_after_first = sum(rows for _, rows in ended[1:])
    return first - started_at, hands_after_first / (last - first), last - started_at


def timed_and_watched(label: str, inputs: Sequence[Path], out: Path, memory_out: Path) -> IngestRun:
    """The same ingest twice, timed into ``out`` and then watched into ``memory_out``: the
    first run's time with the second run's peak memory."""
    timed = run_ingest(label, inputs, out, None)
    watched = run_ingest(label, inputs, memory_out, None, watch_memory=True)
    return replace(timed, peak_single=watched.peak_single, peak_total=watched.peak_total)


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


def _small_files_run(scratch: Path) -> tuple[IngestRun, int, float]:
    """Generated hands in small files: ingest against the naive loop over the same files."""
    from pipeline.generate import generate

    started = time.perf_counter()
    generate(HANDS_WANTED, 18, scratch / "generated", site="pokerstars")
    files = sorted((scratch / "generated" / "pokerstars").glob("*.txt"))
    print(
        f"small files: {HANDS_WANTED} generated hands in {len(files)} files"
        f" ({sum(path.stat().st_size for path in files) / 1e6:.0f} MB,"
        f" generated in {time.perf_counter() - started:.0f} s)"
    )
    # Untimed: a cold numba cache (a fresh clone before `make setup`) would add ~25 s here.
    warm_up = run_ingest("warm-up", files[:2], scratch / "warm-up", None)
    print(f"warm-up ingest of 2 files: {warm_up.seconds:.1f} s (compiles kernels if not cached)")
    hands, size, baseline = _timed_naive_scan(files)
    run = timed_and_watched(
        "hilo ingest small files",
        [scratch / "generated" / "pokerstars"],
        scratch / "out",
        scratch / "out-memory",
    )
    _print_run(run, hands, size, baseline)
    return run, hands, baseline


def _timed_naive_scan(files: Sequence[Path]) -> tuple[int, int, float]:
    """The naive loop over ``files``, printed: ``(hands, bytes, seconds)``."""
    started = time.perf_counter()
    hands, size = naive_scan(files)
    seconds = time.perf_counter() - started
    print(
        f"{'naive regex loop (1 thread)':34s} {seconds:7.2f} s {hands / seconds:10,.0f}"
        f" hands/s {size / 1e6 / seconds:7.1f} MB/s  ({hands} hands)"
    )
    return hands, size, seconds


def _print_run(run: IngestRun, hands: int, size: int, baseline: float) -> None:
    print(
        f"{run.label:34s} {run.seconds:7.2f} s {hands / run.seconds:10,.0f} hands/s"
        f" {size / 1e6 / run.seconds:7.1f} MB/s  x{baseline / run.seconds:5.2f} baseline"
        f"  peak RSS {run.peak_single / 2**20:6.0f} MiB/process"
        f" {run.peak_total / 2**20:6.0f} MiB total (PSS)"
    )
    print(f"{'':34s} {run.summary}")
    if run.first_task is not None and run.steady_rate is not None and run.last_task is not None:
        print(
            f"{'':34s} first task done after {run.first_task:.2f} s, the last after"
            f" {run.last_task:.2f} s; {run.steady_rate:,.0f} hands/s stored between them"
        )


def main() -> None:
    """Build the archive, run the baseline and the ingests, print the comparison."""
    corpus = CORPUS
    sources = stars_corpus_files(corpus)
    if not sources:
        print(f"skipped: no PokerStars files under {corpus}")
        return
    print(
        f"machine: {_cores()} cores, {_cpu_model()}, Python {platform.python_version()},"
        f" load {' '.join(f'{value:.2f}' for value in os.getloadavg())}"
    )
    with tempfile.TemporaryDirectory(prefix="hilo-bench-") as scratch:
        small, small_hands, small_baseline = _small_files_run(Path(scratch) / "small")
        folder = Path(scratch) / "hands"
        files = write_replicated_files(folder, sources, HANDS_WANTED)
        archive = Path(scratch) / "hands.zip"
        with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as writer:
            for path in files:
                writer.write(path, path.name)
        text_bytes = sum(path.stat().st_size for path in files)
        print(
            f"large files: {len(files)} files, {text_bytes / 1e6:.0f} MB text,"
            f" zip {archive.stat().st_size / 1e6:.0f} MB"
        )
        hands, _, baseline = _timed_naive_scan(files)
        out = Path(scratch)
        runs = [
            timed_and_watched("hilo ingest folder", [folder], out / "dir", out / "dir-m"),
            timed_and_watched("hilo ingest zip", [archive], out / "zip", out / "zip-m"),
            # Into the zip's datasets again: every file is already there.
            timed_and_watched(
                "hilo ingest zip again (no-op)", [archive], out / "zip", out / "zip-m"
            ),
        ]
    for run in runs:
        _print_run(run, hands, text_bytes, baseline)
    peak = max(run.peak_total for run in [small, *runs])
    for label, run, count, naive in (
        ("small files", small, small_hands, small_baseline),
        ("large files", runs[0], hands, baseline),
    ):
        rate = count / run.seconds
        steady = f"; {run.steady_rate:,.0f} after the first task" if run.steady_rate else ""
        print(
            f"goal {label}: ≥ {GOAL_HANDS_PER_SECOND:,} hands/s"
            f" {'met' if rate >= GOAL_HANDS_PER_SECOND else 'NOT met'} ({rate:,.0f}{steady});"
            f" ≥ 4× naive {'met' if naive / run.seconds >= 4 else 'NOT met'}"
            f" (x{naive / run.seconds:.2f})"
        )
    print(
        f"goal peak PSS ≤ 1 GiB: {'met' if peak <= GOAL_PEAK_BYTES else 'NOT met'}"
        f" ({peak / 2**20:.0f} MiB); load {' '.join(f'{v:.2f}' for v in os.getloadavg())}"
    )


if __name__ == "__main__":
    main()
