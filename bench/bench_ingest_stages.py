"""Where an ingest's time goes: `pipeline.ingest.ingest` in one process, its stages timed.

The two inputs of ``bench ingest`` (``HILO_BENCH_HANDS`` hands, default 200,000): generated
hands in small files, and the corpus's PokerStars hands replicated in files of 5,000. Each is
ingested in this process (tasks run inline, one polars thread), with a timer around each
stage's function. Times are exclusive: a stage inside another (the key index's Parquet write
inside the key index) counts for the inner one only, so the shares add up to the whole.

A profiler is not used for this: cProfile's cost per call doubled the share of Python loops
(the hand keys' hashing read 5 % of an ingest under it, 1.3 % timed). The figures are one
core's; ``bench ingest`` gives the whole process tree's rate.

Run with ``python -m bench ingest_stages``.
"""

from __future__ import annotations

import functools
import os
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from bench.bench_ingest import HANDS_WANTED, stars_corpus_files, write_replicated_files
from tests.shared_data import CORPUS

__all__ = ["StageClock", "main"]


class StageClock:
    """Exclusive seconds per stage of the functions it wraps (nested stages subtract)."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self.calls: dict[str, int] = {}
        self._inner: list[float] = []  # per active stage: seconds spent in stages inside it

    def wrap(self, owner: Any, name: str, stage: str) -> Callable[[], None]:
        """Time ``owner.name`` as ``stage``; return the function that restores it."""
        original = getattr(owner, name)

        @functools.wraps(original)
        def timed(*arguments: Any, **keywords: Any) -> Any:
            started = time.perf_counter()
            self._inner.append(0.0)
            try:
                return original(*arguments, **keywords)
            finally:
                elapsed = time.perf_counter() - started
                inner = self._inner.pop()
                self.seconds[stage] = self.seconds.get(stage, 0.0) + elapsed - inner
                self.calls[stage] = self.calls.get(stage, 0) + 1
                if self._inner:
                    self._inner[-1] += elapsed

        inherited = name not in vars(owner)
        setattr(owner, name, timed)
        if inherited:  # a class's method from its base: drop the wrapper, not set the base's
            return lambda: delattr(owner, name)
        return lambda: setattr(owner, name, original)


@contextmanager
def timed_stages(clock: StageClock) -> Iterator[None]:
    """Time the stages of an ingest (`_stages`) while the ``with`` body runs."""
    restores = [clock.wrap(owner, name, stage) for owner, name, stage in _stages()]
    try:
        yield
    finally:
        for restore in reversed(restores):
            restore()


def _stages() -> list[tuple[Any, str, str]]:
    import pyarrow.parquet as pq

    import parsers
    from pipeline import dataset, duplicates
    from pipeline.ingest import driver, task

    parser_classes = {type(parser) for parser in parsers.PARSERS}
    return [
        *[(cls, "parse_files", "parse") for cls in parser_classes if hasattr(cls, "parse_files")],
        *[(cls, "parse", "parse") for cls in parser_classes],
        (task, "decode_lines", "cutting lines"),
        (task, "_sniff", "sniffing"),
        (task, "read_block", "reading"),
        (task, "split_by_month", "split by month"),
        (pq.ParquetWriter, "write_table", "Parquet writing"),
        (pq.ParquetWriter, "__init__", "opening and closing parts"),
        (pq.ParquetWriter, "close", "opening and closing parts"),
        (duplicates, "index_rows", "the key index"),
        (driver, "_commit", "the driver's commits"),
        (dataset, "fsync_all", "fsync"),
        (driver, "expand_inputs", "listing the inputs"),
    ]


def _ingest_timed(inputs: list[Path], scratch: Path) -> tuple[float, int, StageClock]:
    from pipeline.ingest import ingest
    from pipeline.ingest.driver import _InlineExecutor

    clock = StageClock()
    with timed_stages(clock):
        started = time.perf_counter()
        summary = ingest(inputs, scratch / "out", executor=_InlineExecutor())
        total = time.perf_counter() - started
    return total, summary.parsed, clock


def _print(label: str, total: float, parsed: int, clock: StageClock) -> None:
    print(f"{label}: {parsed:,} hands parsed in {total:.2f} s ({parsed / total:,.0f} hands/s)")
    rows = sorted(clock.seconds.items(), key=lambda item: -item[1])
    for stage, seconds in [*rows, ("other", total - sum(clock.seconds.values()))]:
        calls = clock.calls.get(stage)
        print(
            f"  {stage:28s} {seconds:7.3f} s {100 * seconds / total:5.1f} %"
            + (f"  ({calls:,} calls)" if calls else "")
        )


def main() -> None:
    """Time the stages of an ingest of small files and of large files."""
    sources = stars_corpus_files(CORPUS)
    os.environ.setdefault("POLARS_MAX_THREADS", "1")  # read when polars is first imported
    from pipeline.generate import generate

    print(f"one process, tasks inline; load {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    with tempfile.TemporaryDirectory(prefix="hilo-stages-") as folder:
        scratch = Path(folder)
        generate(HANDS_WANTED, 18, scratch / "generated", site="pokerstars")
        small = scratch / "generated" / "pokerstars"
        # The first ingest loads the compiled kernels: a tiny one first, untimed.
        _ingest_timed(sorted(small.glob("*.txt"))[:1], scratch / "warm-up")
        _print("small files", *_ingest_timed([small], scratch / "small"))
        if not sources:
            print(f"large files skipped: no PokerStars files under {CORPUS}")
            return
        large = scratch / "large"
        write_replicated_files(large, sources, HANDS_WANTED)
        _print("large files", *_ingest_timed([large], scratch / "large-out"))
    print(f"load {' '.join(f'{v:.2f}' for v in os.getloadavg())}")


if __name__ == "__main__":
    main()
