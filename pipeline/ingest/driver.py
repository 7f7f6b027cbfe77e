"""The driver of an ingest: the tasks planned, run on an executor and committed in order.

It never parses: a task's function is imported where the task runs (`_run_task`), so this
process does not load the parsers and their compiled kernels (~0.2 s of CPU the workers want).
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, Future, as_completed
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import pyarrow as pa

from pipeline import dataset, duplicates
from pipeline.ingest.parts import (
    FLUSH_ROWS,
    BatchResult,
    BatchTask,
    FileOutcome,
    PartSink,
    close_batch,
    file_reject,
)
from pipeline.ingest.sources import (
    BATCH_BYTES,
    BLOCK_BYTES,
    Source,
    checksum_possible_copies,
    copy_key_of,
    expand_inputs,
    plan_batches,
    size_key_of,
)
from pipeline.schema import FILES

__all__ = [
    "TASK_FAILED",
    "IngestSummary",
    "ingest",
]

TASK_FAILED = "ingest task failed"  # a worker died or raised: the next run tries again
_OUT_OF_SPACE = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)  # fatal for the run, not one file
_RETRIED_ERRORS = ("cannot read file", "cannot list folder")  # access may be granted later
T = TypeVar("T")


@dataclass
class IngestSummary:
    """Totals of one ingest run."""

    dataset: Path
    files: int = 0  # files recorded in the manifest by this run
    hands_found: int = 0
    parsed: int = 0
    skipped: int = 0
    rejected: int = 0
    duplicates: int = 0
    notes: int = 0
    note_shapes: dict[str, int] = field(default_factory=dict)  # line shape -> lines
    already_ingested: int = 0
    errors: list[tuple[str, str]] = field(default_factory=list)  # (path, reason)
    parts_written: int = 0
    orphans_removed: int = 0

    def line(self) -> str:
        """Return the one-line summary printed by the CLI."""
        return (
            f"files {self.files} · hands parsed {self.parsed} · skipped {self.skipped}"
            f" · rejected {self.rejected} · duplicates {self.duplicates} · notes {self.notes}"
        )

    def frequent_note_shapes(self, count: int = 10) -> list[tuple[str, int]]:
        """The most frequent shapes of the lines kept in ``notes``, most frequent first."""
        return sorted(self.note_shapes.items(), key=lambda item: (-item[1], item[0]))[:count]


def ingest(
    paths: Sequence[str | os.PathLike[str]],
    out: str | os.PathLike[str],
    *,
    workers: int | None = None,
    scheduler: str | None = None,
    executor: Executor | None = None,
    block_bytes: int = BLOCK_BYTES,
    batch_bytes: int = BATCH_BYTES,
    flush_rows: int = FLUSH_ROWS,
    on_progress: Callable[[int, int], None] | None = None,
    on_wait: Callable[[], None] | None = None,
) -> IngestSummary:
    """Ingest ``paths`` into the dataset at ``out``.

    Parameters
    ----------
    paths:
        Files, folders, ``.zip`` and ``.gz`` archives.
    out:
        The dataset folder (created if missing).
    workers, scheduler:
        Passed to :func:`pipeline.executor.make_executor` when ``executor`` is None.
    executor:
        An executor to use instead of making one (it is not shut down).
    block_bytes, batch_bytes, flush_rows:
        Bytes parsed at a time, the target text size of a task, and the rows a task buffers
        before writing row groups.
    on_progress:
        Called with ``(bytes done, bytes total)`` after each committed task.
    on_wait:
        Called if another ingest holds the dataset's lock (this one then waits).

    Raises
    ------
    InputError
        A path does not exist.
    OSError
        The dataset folder cannot be created or written.
    """
    root = Path(out)
    sources = expand_inputs(paths, exclude=root)
    text_bytes = sum(source.size or 0 for source in sources)
    if executor is None and scheduler is None and text_bytes > batch_bytes:
        from pipeline.executor import start_local_workers

        start_local_workers(workers)  # its imports overlap the planning below
    sources = checksum_possible_copies(sources)
    root.mkdir(parents=True, exist_ok=True)
    summary = IngestSummary(dataset=root)
    with dataset.dataset_lock(root, on_wait):
        summary.orphans_removed = len(dataset.remove_orphans(root))
        manifest = dataset.read_manifest(root)
        summary.orphans_removed += len(duplicates.remove_orphan_keys(root, manifest))
        guard = duplicates.DuplicateGuard(root, manifest)
        sources = _mark_known(sources, manifest, block_bytes, summary)
        # Absolute paths: a task may run in another working directory (a Dask worker).
        tasks = [
            BatchTask(
                tuple(_with_absolute_location(source) for source in batch),
                str(root.absolute()),
                block_bytes,
                flush_rows,
            )
            for batch in plan_batches(sources, batch_bytes)
        ]
        progress = _Progress(sum(source.size or 0 for source in sources), on_progress)
        if tasks and executor is not None:
            _run_tasks(executor, tasks, root, summary, progress, guard)
        elif len(tasks) == 1 and scheduler is None:
            # One task gains nothing from a pool but would pay its start-up (~1 s).
            _run_tasks(_InlineExecutor(), tasks, root, summary, progress, guard)
        elif tasks:
            from pipeline.executor import make_executor

            own = make_executor(scheduler, workers)
            try:
                _run_tasks(own, tasks, root, summary, progress, guard)
            except BaseException:
                own.shutdown(wait=False, cancel_futures=True)  # do not wait on Ctrl-C
                raise
            own.shutdown(wait=True)
        # Every task has ended: temporary files left now are litter of failed attempts.
        for path in root.glob("*/**/.part-*.tmp"):
            path.unlink(missing_ok=True)
    return summary


def _with_absolute_location(source: Source) -> Source:
    return replace(source, location=os.path.abspath(source.location))


class _InlineExecutor(Executor):
    """Run each task in this process when it is submitted."""

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        future: Future[T] = Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except Exception as error:
            future.set_exception(error)
        return future


class _Progress:
    """Report bytes done out of ``total`` to an optional callback."""

    def __init__(self, total: int, callback: Callable[[int, int], None] | None) -> None:
        self.total = total
        self.done = 0
        self._callback = callback
        self.advance(0)

    def advance(self, size: int) -> None:
        self.done += size
        if self._callback is not None:
            self._callback(self.done, self.total)


def _run_tasks(
    executor: Executor,
    tasks: Sequence[BatchTask],
    root: Path,
    summary: IngestSummary,
    progress: _Progress,
    guard: duplicates.DuplicateGuard | None = None,
) -> None:
    """Submit every task, and commit the results in task order as they arrive.

    In order, so that which copy of a hand found in two files is kept (the first committed)
    depends on the inputs only, not on which worker finishes first.
    """
    futures = {executor.submit(_run_task, task): number for number, task in enumerate(tasks)}
    finished: dict[int, BatchResult] = {}
    next_commit = 0
    try:
        for future in as_completed(futures):
            number = futures[future]
            try:
                finished[number] = future.result()
            except Exception as error:  # a crashed task fails its own files only
                if isinstance(error, OSError) and error.errno in _OUT_OF_SPACE:
                    raise  # every later task would fail too: stop, committed work stays
                finished[number] = _failed_batch(tasks[number].sources, root, error)
            while next_commit in finished:
                _commit(root, finished.pop(next_commit), summary, guard)
                progress.advance(sum(source.size or 0 for source in tasks[next_commit].sources))
                next_commit += 1
    except BaseException:
        for future in futures:
            future.cancel()
        raise


def _run_task(task: BatchTask) -> BatchResult:
    """Run one task where it was sent (a worker imports the parsing side, the driver never)."""
    from pipeline.ingest.task import ingest_batch

    return ingest_batch(task)


def _mark_known(
    sources: list[Source], manifest: pa.Table, block_bytes: int, summary: IngestSummary
) -> list[Source]:
    """Drop sources the manifest already has; tell the others which digests to check."""
    digests_by_size: dict[int, set[str]] = {}
    refused: set[tuple[str, int | None]] = set()
    for path, size, digest, error in zip(
        manifest.column("path").to_pylist(),
        manifest.column("size").to_pylist(),
        manifest.column("sha256").to_pylist(),
        manifest.column("error").to_pylist(),
        strict=True,
    ):
        if digest is None:
            # Failed tasks and permission errors may pass: the next run tries those again.
            if not (error or "").startswith((TASK_FAILED, *_RETRIED_ERRORS)):
                refused.add((path, size))
        elif size is not None:
            digests_by_size.setdefault(size % (1 << 32), set()).add(digest)
    copy_counts: dict[tuple[int, int], int] = {}
    for source in sources:
        if (copy_key := copy_key_of(source)) is not None:
            copy_counts[copy_key] = copy_counts.get(copy_key, 0) + 1
    marked: list[Source] = []
    for source in sources:
        if source.error is not None:
            if (source.path, source.size) in refused:
                summary.already_ingested += 1
            else:
                marked.append(source)
            continue
        key = size_key_of(source)
        known = frozenset(digests_by_size.get(key, ())) if key is not None else frozenset()
        copy_key = copy_key_of(source)
        may_be_copy = bool(known) or (copy_key is not None and copy_counts[copy_key] > 1)
        large = source.size is None or source.size >= block_bytes
        marked.append(replace(source, known_sha256=known, hash_first=may_be_copy and large))
    return marked


def _commit(
    root: Path,
    result: BatchResult,
    summary: IngestSummary,
    guard: duplicates.DuplicateGuard | None = None,
) -> None:
    """Publish a task's parts, then its manifest rows (the commit point)."""
    # Hands already stored leave the temporary parts first; the key index part joins the moves.
    settled = guard.settle(result.moves, result.files) if guard is not None else None
    for temporary, final in result.moves:
        target = root / final
        os.replace(temporary, target)
    dataset.fsync_all(
        sorted({(root / final).parent for _, final in result.moves}), directories=True
    )
    recorded = [outcome for outcome in result.files if not outcome.already_ingested]
    summary.already_ingested += len(result.files) - len(recorded)
    if recorded:
        dataset.commit_manifest(root, _manifest_rows(recorded))
    if guard is not None and settled is not None:
        guard.committed(settled, recorded)
    summary.parts_written += len(result.moves)
    for outcome in recorded:
        summary.files += 1
        summary.hands_found += outcome.hands_found
        summary.parsed += outcome.parsed
        summary.skipped += outcome.skipped
        summary.rejected += outcome.rejected
        summary.duplicates += outcome.duplicates
        summary.notes += outcome.notes
        for shape, lines in outcome.note_shapes.items():
            summary.note_shapes[shape] = summary.note_shapes.get(shape, 0) + lines
        if outcome.error is not None:
            summary.errors.append((outcome.path, outcome.error))


def _manifest_rows(outcomes: Sequence[FileOutcome]) -> pa.Table:
    ingested_at = datetime.now(UTC)
    return pa.Table.from_pylist(
        [
            {
                "path": outcome.path,
                "size": outcome.size,
                "sha256": outcome.sha256,
                "site": outcome.site,
                "hands": outcome.parsed,
                "skipped": outcome.skipped,
                "rejected": outcome.rejected,
                "duplicates": outcome.duplicates,
                "error": outcome.error,
                "parts": sorted(outcome.parts),
                "ingested_at": ingested_at,
            }
            for outcome in outcomes
        ],
        schema=FILES,
    )


def _failed_batch(batch: Sequence[Source], root: Path, error: BaseException) -> BatchResult:
    """Record every file of a task that raised as failed, with one reject row each."""
    reason = f"{TASK_FAILED}: {type(error).__name__}: {error}"
    sink = PartSink(root, FLUSH_ROWS)
    outcomes = []
    for index, source in enumerate(batch):
        sink.add(index, "rejects", None, file_reject(source.path, reason, None, None))
        outcomes.append(FileOutcome(source.path, source.size, error=reason))
    return close_batch(sink, outcomes, tag="failed")
