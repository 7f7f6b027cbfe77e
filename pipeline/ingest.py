"""Ingest hand-history files, folders and archives into the Parquet dataset.

The driver (:func:`ingest`) expands the inputs into :class:`Source` objects, groups them into
batches, submits one :func:`ingest_batch` task per batch to an executor and commits each result
as it completes: it renames the task's temporary parts into place and writes a manifest part
(see :mod:`pipeline.dataset` for the layout and the commit protocol).

A task streams each source in blocks of a few tens of MB, so memory stays bounded whatever the
size of a file or archive: a block is cut at the last hand start, the lines before it are parsed,
and the bytes of the unfinished hand are carried into the next block. Rows are buffered (at most
about ``flush_rows`` plus one block's rows) and written as row groups of one Parquet part per
(table, site, month) for the whole batch.

Every input file ends in the manifest, with its counts or an ``error``; every hand ends parsed,
skipped (other game) or in ``rejects``. Nothing raises for a bad file or hand; only bad
arguments (a path that does not exist) and an unwritable output folder do.
"""

from __future__ import annotations

import errno
import gzip
import hashlib
import os
import re
import stat
import struct
import zipfile
import zlib
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Executor, Future, as_completed
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import Any, BinaryIO, Literal, TypeVar

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

import parsers
from parsers.base import ParseResult, SiteParser
from parsers.text import UnreadableFile, decode_lines, decode_text, detect_encoding
from pipeline import dataset, duplicates
from parsers.notes import line_shape
from pipeline.schema import FILES, HAND_TABLES, REJECTS

__all__ = [
    "BLOCK_BYTES",
    "BATCH_BYTES",
    "BatchResult",
    "BatchTask",
    "FileOutcome",
    "IngestSummary",
    "InputError",
    "Source",
    "expand_inputs",
    "ingest",
    "ingest_batch",
    "plan_batches",
]

BLOCK_BYTES = 8 << 20  # bytes read and parsed at a time (parsing needs ~30x that in memory)
BATCH_BYTES = 16 << 20  # small files are grouped into tasks of about this much text
BATCH_MAX_FILES = 256  # ... and at most this many files (parsing has a fixed cost per call)
# Rows buffered by a task before they become row groups (~50 MB of Arrow data). Counted in rows,
# not bytes: Arrow buffer sizes vary with chunking, and the flush points shape the files' bytes.
FLUSH_ROWS = 500_000
SNIFF_BYTES = 64 << 10  # bytes looked at to tell text from binary data
SNIFF_TEXT_BYTES = 16 << 10  # text given to the format registry (every format shows by then)
SMALL_FILES_LINES = 400_000  # whole small files parsed together up to about this many lines
MAX_CARRY_BYTES = 4 * BLOCK_BYTES  # a "hand" longer than this is not a hand: parse what we have
MAX_LINE_BYTES = MAX_CARRY_BYTES  # a longer line is skipped and its hand quarantined
LONG_LINE_HEAD_BYTES = 4096  # what is decoded of such a line: does it open a hand?
MAX_MEMBER_BYTES = 16 << 30  # refuse larger archive members
MAX_COMPRESSION_RATIO = 100  # hand histories compress about 10:1; bombs 1000:1
RATIO_FREE_BYTES = 1 << 20  # small members may compress well beyond the ratio harmlessly
REJECT_TEXT_CHARS = 4000  # text kept in a file-level reject row
TASK_FAILED = "ingest task failed"  # a worker died or raised: the next run tries again
_OUT_OF_SPACE = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)  # fatal for the run, not one file
_RETRIED_ERRORS = ("cannot read file", "cannot list folder")  # access may be granted later

_ZIP_MAGIC = b"PK\x03\x04"
_EMPTY_ZIP_MAGIC = b"PK\x05\x06"
_GZIP_MAGIC = b"\x1f\x8b"
_NESTED_ARCHIVE = re.compile(r"\.(zip|gz|tgz|tar|7z|rar|bz2|xz|zst)$", re.IGNORECASE)
_WINDOWS_DRIVE = re.compile(r"^[A-Za-z]:")

Compression = Literal["none", "zip", "gzip"]
T = TypeVar("T")


class InputError(ValueError):
    """A path given to ingest does not exist or cannot be listed (a bad argument)."""


class _Refused(Exception):
    """Reading a source was stopped by a guard (size, compression ratio)."""


@dataclass(frozen=True)
class Source:
    """One input file: a plain file, a zip member or the content of a gzip file."""

    path: str  # as recorded in the tables: the path as given, "archive.zip!member" for members
    location: str  # the file on disk (the archive, for members)
    member: str | None = None  # zip member name
    compression: Compression = "none"
    size: int | None = None  # content bytes (gzip: the trailer's size modulo 2**32)
    crc32: int | None = None  # content checksum: from the archive, or computed to find copies
    error: str | None = None  # known before reading (refused member, symbolic link, ...)
    known_sha256: frozenset[str] = frozenset()  # committed digests of files of this size
    hash_first: bool = False  # hash before parsing: this may be a copy of another file


@dataclass(frozen=True)
class BatchTask:
    """The arguments of one :func:`ingest_batch` call (picklable, no data)."""

    sources: tuple[Source, ...]
    root: str
    block_bytes: int = BLOCK_BYTES
    flush_rows: int = FLUSH_ROWS


@dataclass
class FileOutcome:
    """What happened to one source: a manifest row plus what the summary needs."""

    path: str
    size: int | None
    sha256: str | None = None
    site: str | None = None
    hands_found: int = 0
    parsed: int = 0
    skipped: int = 0
    rejected: int = 0
    duplicates: int = 0  # hands already stored from another file (see pipeline.duplicates)
    error: str | None = None
    parts: list[str] = field(default_factory=list)
    skipped_games: dict[str, int] = field(default_factory=dict)
    notes: int = 0  # lines kept in `notes` (unrecognised, without money or cards)
    note_shapes: dict[str, int] = field(default_factory=dict)  # line shape -> lines
    already_ingested: bool = False  # same content as a committed (or earlier) file: no row


@dataclass
class BatchResult:
    """What a task returns: outcomes and temporary files to publish, never table data."""

    files: list[FileOutcome]
    moves: list[tuple[str, str]]  # (temporary path, final path relative to the root)


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


# --------------------------------------------------------------------------------------------
# Expanding the inputs (driver)


def expand_inputs(
    paths: Sequence[str | os.PathLike[str]], exclude: Path | None = None
) -> list[Source]:
    """Return the sources of ``paths``: files, folders (recursive), zip and gzip archives.

    Folders are walked in name order, without following symbolic links and skipping hidden
    entries (``.git``, ``.DS_Store``) and the folder ``exclude`` (the dataset being written);
    a symbolic link inside a folder is recorded as refused. Archive members that could harm or
    exhaust the machine are recorded with an ``error``.

    Raises
    ------
    InputError
        A path does not exist.
    """
    excluded = exclude.resolve() if exclude is not None else None
    sources: list[Source] = []
    for given in paths:
        shown = os.fspath(given)
        path = Path(shown)
        if not path.exists():
            raise InputError(f"no such file or folder: {shown}")
        if path.is_dir():
            sources.extend(_folder_sources(path, shown, excluded))
        else:
            sources.extend(_file_sources(path, shown))
    return sources


def _folder_sources(folder: Path, shown: str, excluded: Path | None) -> Iterator[Source]:
    unlistable: list[OSError] = []  # a folder that cannot be listed is recorded, not fatal

    def refused_folders() -> Iterator[Source]:
        for error in unlistable:
            where = os.path.normpath(os.path.join(shown, os.path.relpath(error.filename, folder)))
            yield Source(where, str(error.filename), error=f"cannot list folder: {error.strerror}")
        unlistable.clear()

    for directory, subfolders, names in os.walk(folder, onerror=unlistable.append):
        yield from refused_folders()
        if excluded is not None and Path(directory).resolve() == excluded:
            subfolders[:] = []
            continue
        subfolders[:] = sorted(name for name in subfolders if not name.startswith("."))
        relative = os.path.relpath(directory, folder)
        for name in sorted(names):
            if name.startswith("."):
                continue
            shown_path = os.path.normpath(os.path.join(shown, relative, name))
            path = Path(directory) / name
            if path.is_symlink():
                yield Source(shown_path, str(path), error="symbolic link not followed")
            elif path.is_file():
                yield from _file_sources(path, shown_path)
        for name in subfolders:
            path = Path(directory) / name
            if path.is_symlink():
                shown_path = os.path.normpath(os.path.join(shown, relative, name))
                yield Source(shown_path, str(path), error="symbolic link not followed")
    yield from refused_folders()


def _file_sources(path: Path, shown: str) -> list[Source]:
    try:
        with open(path, "rb") as handle:
            magic = handle.read(4)
        size = path.stat().st_size
    except OSError as error:
        return [Source(shown, str(path), error=f"cannot read file: {error.strerror}")]
    if magic.startswith((_ZIP_MAGIC, _EMPTY_ZIP_MAGIC)) or path.suffix.lower() == ".zip":
        return _zip_sources(path, shown)
    if magic.startswith(_GZIP_MAGIC) or path.suffix.lower() == ".gz":
        return [_gzip_source(path, shown, size)]
    return [Source(shown, str(path), size=size)]


def _zip_sources(path: Path, shown: str) -> list[Source]:
    try:
        with zipfile.ZipFile(path) as archive:
            members = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError) as error:
        return [Source(shown, str(path), error=f"not a readable zip archive: {error}")]
    sources = []
    for info in members:
        if info.is_dir() or info.filename.startswith("__MACOSX/"):
            continue  # folders, and macOS resource forks, hold no hand histories
        sources.append(
            Source(
                f"{shown}!{info.filename}",
                str(path),
                member=info.filename,
                compression="zip",
                size=info.file_size,
                crc32=info.CRC,
                error=_member_refusal(info),
            )
        )
    return sources


def _member_refusal(info: zipfile.ZipInfo) -> str | None:
    """Why a zip member must not be read, or None when it is safe."""
    name = info.filename.replace("\\", "/")
    if name.startswith("/") or _WINDOWS_DRIVE.match(name) or ".." in PurePosixPath(name).parts:
        return "unsafe archive member path (absolute or containing '..')"
    if stat.S_ISLNK(info.external_attr >> 16):
        return "symbolic link in archive not followed"
    if info.flag_bits & 0x1:
        return "encrypted archive member"
    if _NESTED_ARCHIVE.search(name):
        return "nested archive not supported: extract it and ingest its files"
    if info.file_size > MAX_MEMBER_BYTES:
        return f"archive member too large: {info.file_size} bytes > {MAX_MEMBER_BYTES}"
    ratio = info.file_size / max(info.compress_size, 1)
    if info.file_size > RATIO_FREE_BYTES and ratio > MAX_COMPRESSION_RATIO:
        return (
            f"compression ratio {ratio:.0f}:1 above the {MAX_COMPRESSION_RATIO}:1 limit (zip bomb?)"
        )
    return None


def _gzip_source(path: Path, shown: str, size: int) -> Source:
    if size < 18:  # header + trailer
        return Source(shown, str(path), compression="gzip", size=0, error="truncated gzip file")
    with open(path, "rb") as handle:
        handle.seek(-8, os.SEEK_END)
        checksum, content_size = struct.unpack("<II", handle.read(8))
    return Source(shown, str(path), compression="gzip", size=content_size, crc32=checksum)


def plan_batches(
    sources: Sequence[Source],
    batch_bytes: int = BATCH_BYTES,
    max_files: int = BATCH_MAX_FILES,
) -> list[list[Source]]:
    """Group ``sources`` into tasks of about ``batch_bytes`` (a large file is a task alone).

    Consecutive sources fill a batch in input order. A source with the size and checksum of an
    earlier one (a copy) joins that one's batch, so that the task keeps the first and counts the
    second as already ingested. The grouping depends only on the inputs, so the part names
    (derived from the batch) are the same on every run.
    """
    batches: list[list[Source]] = []
    batch_sizes: list[int] = []
    home_of_size: dict[tuple[int, int], int] = {}
    for source in sources:
        key = _copy_key(source)
        if key is not None and key in home_of_size:
            batches[home_of_size[key]].append(source)
            continue
        size = source.size or 0
        if (
            not batches or batch_sizes[-1] + size > batch_bytes or len(batches[-1]) >= max_files
        ) and (not batches or batches[-1]):
            batches.append([])
            batch_sizes.append(0)
        batches[-1].append(source)
        batch_sizes[-1] += size
        if key is not None:
            home_of_size[key] = len(batches) - 1
    return batches


def _size_key(source: Source) -> int | None:
    """Return the size used to find copies (gzip trailers store it modulo 2**32)."""
    if source.error is not None or source.size is None:
        return None
    return source.size % (1 << 32)


def _copy_key(source: Source) -> tuple[int, int] | None:
    """Return ``(size, crc32)``, equal for copies of a file; None when the checksum is unknown."""
    size = _size_key(source)
    if size is None or source.crc32 is None:
        return None
    return size, source.crc32


def _checksum_possible_copies(sources: list[Source]) -> list[Source]:
    """Give a crc32 to plain files whose size another source has (only those may be copies).

    Archives carry their members' checksums; a plain file is read once more, at ~4 GB/s.
    """
    counts: dict[int, int] = {}
    for source in sources:
        if (key := _size_key(source)) is not None:
            counts[key] = counts.get(key, 0) + 1
    checked = []
    for source in sources:
        key = _size_key(source)
        if source.crc32 is None and key is not None and counts[key] > 1:
            checksum = 0
            try:
                with open(source.location, "rb") as handle:
                    while chunk := handle.read(BLOCK_BYTES):
                        checksum = zlib.crc32(chunk, checksum)
            except OSError:
                checksum = None  # type: ignore[assignment]  # the task will report the error
            source = replace(source, crc32=checksum)
        checked.append(source)
    return checked


# --------------------------------------------------------------------------------------------
# The driver


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
    sources = _checksum_possible_copies(sources)
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
    futures = {executor.submit(ingest_batch, task): number for number, task in enumerate(tasks)}
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
        if (copy_key := _copy_key(source)) is not None:
            copy_counts[copy_key] = copy_counts.get(copy_key, 0) + 1
    marked: list[Source] = []
    for source in sources:
        if source.error is not None:
            if (source.path, source.size) in refused:
                summary.already_ingested += 1
            else:
                marked.append(source)
            continue
        key = _size_key(source)
        known = frozenset(digests_by_size.get(key, ())) if key is not None else frozenset()
        copy_key = _copy_key(source)
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
    sink = _PartSink(root, FLUSH_ROWS)
    outcomes = []
    for index, source in enumerate(batch):
        sink.add(index, "rejects", None, _file_reject(source.path, reason, None, None))
        outcomes.append(FileOutcome(source.path, source.size, error=reason))
    return _close_batch(sink, outcomes, tag="failed")


# --------------------------------------------------------------------------------------------
# The task (worker)


class _SourceFailed(Exception):
    """A source failed after some of its rows were written: the batch restarts without it."""

    def __init__(self, index: int, outcome: FileOutcome) -> None:
        super().__init__(outcome.error)
        self.index = index
        self.outcome = outcome


def ingest_batch(task: BatchTask) -> BatchResult:
    """Parse the sources of ``task`` and write their rows as temporary parts.

    Returns the outcome of every source and the temporary files to rename into place; the
    driver commits them. A failure inside one source becomes that source's ``error``.
    """
    root = Path(task.root)
    settled: dict[int, FileOutcome] = {}  # sources whose outcome a failed attempt decided
    while True:
        sink = _PartSink(root, task.flush_rows)
        try:
            with _ZipCache() as archives:
                outcomes = _ingest_sources(task, sink, archives, settled)
        except _SourceFailed as failure:
            sink.abort()
            settled[failure.index] = failure.outcome
            continue
        except BaseException:
            sink.abort()
            raise
        return _close_batch(sink, outcomes, tag="")


def _close_batch(sink: _PartSink, outcomes: list[FileOutcome], tag: str) -> BatchResult:
    contributors = [
        f"{outcome.path}\t{outcome.sha256 or ''}\t{outcome.error or ''}"
        for index, outcome in enumerate(outcomes)
        if sink.touched(index)
    ]
    part_id = dataset.stable_id([tag, *contributors])
    moves = sink.close(part_id)
    for index, outcome in enumerate(outcomes):
        outcome.parts = sink.parts_of(index, part_id)
    return BatchResult(outcomes, moves)


def _ingest_sources(
    task: BatchTask,
    sink: _PartSink,
    archives: _ZipCache,
    settled: dict[int, FileOutcome],
) -> list[FileOutcome]:
    outcomes: list[FileOutcome] = []
    first_path_of: dict[str, str] = {}  # digest -> first path in this batch
    small_files = _SmallFiles()
    for index, source in enumerate(task.sources):
        if index in settled:
            outcome = settled[index]
            if outcome.error is not None:
                reject = _file_reject(source.path, outcome.error, site=outcome.site)
                sink.add(index, "rejects", outcome.site, reject)
        elif source.error is not None:
            outcome = FileOutcome(source.path, source.size, error=source.error)
            sink.add(index, "rejects", None, _file_reject(source.path, source.error))
        else:
            outcome = _ingest_source(
                index, source, task, sink, archives, first_path_of, small_files
            )
        if outcome.sha256 is not None and not outcome.already_ingested:
            first_path_of.setdefault(outcome.sha256, outcome.path)
        outcomes.append(outcome)
        if small_files.lines >= SMALL_FILES_LINES:
            small_files.parse_into(sink)
        sink.flush_if_full()
    small_files.parse_into(sink)
    return outcomes


def _ingest_source(
    index: int,
    source: Source,
    task: BatchTask,
    sink: _PartSink,
    archives: _ZipCache,
    first_path_of: dict[str, str],
    small_files: _SmallFiles | None = None,
) -> FileOutcome:
    """Stream one source into ``sink``; any failure becomes the outcome's error."""
    outcome = FileOutcome(source.path, source.size)
    try:
        if source.hash_first:
            outcome.sha256, outcome.size = _hash_source(source, archives)
            if _is_copy(outcome, source, first_path_of):
                return outcome
        with _open_source(source, archives) as stream:
            _stream_source(
                index, source, stream, task.block_bytes, sink, outcome, first_path_of, small_files
            )
    except _SourceFailed:
        raise
    except Exception as error:  # a file never stops the run: record why it failed
        outcome.error = _describe(error)
        outcome.hands_found = outcome.parsed = outcome.skipped = outcome.rejected = 0
        if sink.flushed(index):
            raise _SourceFailed(index, outcome) from error
        sink.discard(index)
        reject = _file_reject(source.path, outcome.error, site=outcome.site)
        sink.add(index, "rejects", outcome.site, reject)
    if outcome.already_ingested and sink.touched(index):
        # A copy discovered only at the end (gzip size hints can mislead): undo its rows.
        if sink.flushed(index):
            raise _SourceFailed(index, outcome)
        sink.discard(index)
    return outcome


def _is_copy(outcome: FileOutcome, source: Source, first_path_of: dict[str, str]) -> bool:
    digest = outcome.sha256
    if digest in source.known_sha256 or digest in first_path_of:
        outcome.already_ingested = True
    return outcome.already_ingested


def _describe(error: BaseException) -> str:
    if isinstance(error, _Refused | UnreadableFile):
        return str(error)
    if isinstance(error, zipfile.BadZipFile):
        return f"corrupt archive member: {error}"
    if isinstance(error, gzip.BadGzipFile | EOFError | zlib.error):
        return f"corrupt gzip stream: {error}"
    if isinstance(error, OSError):
        return f"cannot read file: {error}"
    return f"{type(error).__name__}: {error}"


def _stream_source(
    index: int,
    source: Source,
    stream: BinaryIO,
    block_bytes: int,
    sink: _PartSink,
    outcome: FileOutcome,
    first_path_of: dict[str, str],
    small_files: _SmallFiles | None = None,
) -> None:
    """Read, sniff and parse one source block by block.

    A file that fits in one block is handed to ``small_files`` (when its parser can parse
    several files in one pass) instead of being parsed on its own.
    """
    block = _read_block(stream, block_bytes)
    at_end = len(block) < block_bytes
    hasher = None
    if outcome.sha256 is None:
        hasher = hashlib.sha256(block)
        if at_end:
            outcome.sha256, outcome.size = hasher.hexdigest(), len(block)
            if _is_copy(outcome, source, first_path_of):
                return
    parser, refusal, preview = _sniff(block)
    if parser is None:
        if hasher is not None and not at_end:  # still identify it, so a re-run skips it
            outcome.sha256, outcome.size = _drain(stream, hasher, len(block))
        outcome.error = refusal
        sink.add(index, "rejects", None, _file_reject(source.path, refusal, preview))
        return
    outcome.site = parser.site
    encoding: str | None = None
    newline = _newline_of(block)
    in_quarantined_hand = False  # lines up to the next hand start follow a quarantined hand
    carry = b""
    carry_offset = 0
    position = 0  # file offset just past ``block``
    while True:
        position += len(block)
        data = carry + block if carry else block
        data_offset = carry_offset
        if in_quarantined_hand:
            data, data_offset, in_quarantined_hand = _drop_rest_of_hand(
                parser, data, data_offset, at_end, newline, encoding
            )
        # Only whole lines are decoded; the partial last line waits for the next block.
        cut = _last_line_end(data, data_offset, newline)
        if len(data) - cut > MAX_LINE_BYTES:
            encoding = _quarantine_long_line(
                index, parser, data, data_offset, cut, encoding, source.path, sink, outcome
            )
            in_quarantined_hand = True
            skipped = _skip_line(stream, block_bytes, newline, position, at_end, hasher)
            block, at_end, position = skipped.block, skipped.at_end, skipped.position
            carry, carry_offset = b"", position - len(block)
            position -= len(block)  # the loop's head counts the block again
            if not block and at_end:
                break
            continue
        complete = data if at_end else data[:cut]
        if complete:
            lines = decode_lines(complete, data_offset, encoding)
            encoding = lines.encoding
            if at_end:
                if (
                    small_files is not None
                    and position == len(block)
                    and small_files.accepts(parser)
                ):
                    small_files.add(index, parser, lines.lines, lines.offsets, source.path, outcome)
                else:
                    _add_parsed(
                        index, parser, lines.lines, lines.offsets, source.path, sink, outcome
                    )
                carry = b""
            else:
                keep = _last_hand_start(parser, lines.lines)
                whole_hands = keep
                if keep is None and len(data) <= MAX_CARRY_BYTES:
                    keep = whole_hands = 0  # no complete hand yet: carry it all
                elif keep is None and parser.hand_starts(lines.lines.head(1))[0]:
                    # One hand longer than any real one: quarantined, the rest of it dropped.
                    _reject_hand(
                        index,
                        parser,
                        (int(lines.offsets[0]), "\n".join(lines.lines.head(200).to_list())),
                        f"hand of more than {MAX_CARRY_BYTES} bytes: quarantined",
                        source.path,
                        sink,
                        outcome,
                    )
                    in_quarantined_hand = True
                    keep, whole_hands = len(lines.lines), 0
                elif keep is None:
                    keep = whole_hands = len(lines.lines)  # no hand's shape: parse what we have
                if whole_hands:
                    _add_parsed(
                        index,
                        parser,
                        lines.lines[:whole_hands],
                        lines.offsets[:whole_hands],
                        source.path,
                        sink,
                        outcome,
                    )
                carry_offset = (
                    int(lines.offsets[keep])
                    if keep < len(lines.lines)
                    else (data_offset + len(complete))
                )
                carry = data[carry_offset - data_offset :]
        else:
            carry, carry_offset = data, data_offset
        sink.flush_if_full()
        if at_end:
            break
        block = _read_block(stream, block_bytes)
        at_end = len(block) < block_bytes
        if hasher is not None:
            hasher.update(block)
    if hasher is not None and outcome.sha256 is None:
        outcome.sha256, outcome.size = hasher.hexdigest(), position
        _is_copy(outcome, source, first_path_of)


def _quarantine_long_line(
    index: int,
    parser: SiteParser,
    data: bytes,
    data_offset: int,
    cut: int,
    encoding: str | None,
    source_file: str,
    sink: _PartSink,
    outcome: FileOutcome,
) -> str | None:
    """Account for ``data``, whose last line (from ``cut``) is longer than ``MAX_LINE_BYTES``.

    The whole hands before the long line are parsed; the hand it opens or belongs to is
    quarantined (its lines after the long one are then dropped, see `_drop_rest_of_hand`).
    A long line outside any hand is junk between hands, which parsers pass over anyway.
    Returns the encoding the text before the line was decoded with.
    """
    line_offset = data_offset + cut
    head = decode_lines(data[cut : cut + LONG_LINE_HEAD_BYTES], line_offset, encoding).lines
    opens_hand = bool(parser.hand_starts(head.head(1))[0])
    lines = decode_lines(data[:cut], data_offset, encoding) if cut else None
    starts = np.flatnonzero(parser.hand_starts(lines.lines) if lines is not None else [])
    hand: tuple[int, str] | None = None
    whole_lines = 0 if lines is None else len(lines.lines)
    if opens_hand:
        hand = (line_offset, "")
    elif lines is not None and len(starts):
        whole_lines = int(starts[-1])
        hand_text = "\n".join(lines.lines[whole_lines:].head(200).to_list())
        hand = (int(lines.offsets[whole_lines]), hand_text + "\n")
    if lines is not None and whole_lines:
        _add_parsed(
            index,
            parser,
            lines.lines[:whole_lines],
            lines.offsets[:whole_lines],
            source_file,
            sink,
            outcome,
        )
    if hand is not None:
        offset, text = hand
        reason = (
            f"line of more than {MAX_LINE_BYTES} bytes at byte {line_offset}:"
            " hand quarantined, the line skipped"
        )
        text += str(head[0])[:200] + "…"
        _reject_hand(index, parser, (offset, text), reason, source_file, sink, outcome)
    return encoding if lines is None else lines.encoding


def _reject_hand(
    index: int,
    parser: SiteParser,
    hand: tuple[int, str],
    reason: str,
    source_file: str,
    sink: _PartSink,
    outcome: FileOutcome,
) -> None:
    """Quarantine one hand, given as (offset, beginning of its text), that ingest will not parse."""
    offset, text = hand
    reject = _file_reject(source_file, reason, text, site=parser.site).set_column(
        1, "source_offset", pa.array([offset], pa.int64())
    )
    sink.add(index, "rejects", parser.site, reject)
    outcome.hands_found += 1
    outcome.rejected += 1


def _drop_rest_of_hand(
    parser: SiteParser,
    data: bytes,
    data_offset: int,
    at_end: bool,
    newline: bytes,
    encoding: str | None,
) -> tuple[bytes, int, bool]:
    """Drop the whole lines of ``data`` before its first hand start.

    Returns ``(data, data_offset, still in the hand)``: the lines after a skipped line belong
    to its quarantined hand, and a parser would take them for a hand without a header.
    """
    cut = len(data) if at_end else _last_line_end(data, data_offset, newline)
    if not cut:
        return data, data_offset, True
    lines = decode_lines(data[:cut], data_offset, encoding)
    starts = np.flatnonzero(parser.hand_starts(lines.lines))
    if not len(starts):
        return data[cut:], data_offset + cut, True
    first = int(lines.offsets[starts[0]])
    return data[first - data_offset :], first, False


@dataclass(frozen=True)
class _AfterLine:
    """Where reading resumes after a skipped line."""

    block: bytes  # the rest of the block the line ended in
    at_end: bool
    position: int  # file offset just past ``block``


def _skip_line(
    stream: BinaryIO,
    block_bytes: int,
    newline: bytes,
    position: int,
    at_end: bool,
    hasher: hashlib._Hash | None,
) -> _AfterLine:
    """Read past the end of the line being read at ``position`` without keeping it."""
    while not at_end:
        block = _read_block(stream, block_bytes)
        at_end = len(block) < block_bytes
        if hasher is not None:
            hasher.update(block)
        block_offset = position
        position += len(block)
        end = _first_line_end(block, block_offset, newline)
        if end:
            return _AfterLine(block[end:], at_end, position)
    return _AfterLine(b"", True, position)


def _drain(stream: BinaryIO, hasher: hashlib._Hash, size: int) -> tuple[str, int]:
    """Hash the rest of a stream; return ``(sha256, size)`` given ``size`` bytes so far."""
    while chunk := stream.read(BLOCK_BYTES):
        hasher.update(chunk)
        size += len(chunk)
    return hasher.hexdigest(), size


def _last_hand_start(parser: SiteParser, lines: pl.Series) -> int | None:
    """Index of the last line that opens a hand, or None when no line after the first does."""
    starts = np.flatnonzero(parser.hand_starts(lines))
    if len(starts) == 0 or starts[-1] == 0:
        return None
    return int(starts[-1])


def _newline_of(first_block: bytes) -> bytes:
    """The bytes of a line break in a file starting with ``first_block``."""
    encoding, _ = detect_encoding(first_block[:4096])
    if encoding == "utf-16-le":
        return b"\n\x00"
    if encoding == "utf-16-be":
        return b"\x00\n"
    return b"\n"


def _last_line_end(data: bytes, data_offset: int, newline: bytes) -> int:
    """Index just past the last complete line in ``data`` (which starts at ``data_offset``)."""
    if len(newline) == 1:
        return data.rfind(newline) + 1
    end = len(data)
    while (found := data.rfind(newline, 0, end)) >= 0:
        if (data_offset + found) % 2 == 0:  # a code unit, not the middle of two
            return found + 2
        end = found + 1
    return 0


def _first_line_end(data: bytes, data_offset: int, newline: bytes) -> int:
    """Index just past the first line break in ``data``, or 0 when it holds none."""
    if len(newline) == 1:
        return data.find(newline) + 1
    start = 0
    while (found := data.find(newline, start)) >= 0:
        if (data_offset + found) % 2 == 0:
            return found + 2
        start = found + 1
    return 0


def _sniff(block: bytes) -> tuple[SiteParser | None, str, str | None]:
    """Return ``(parser, why not, text preview)`` for a file starting with ``block``."""
    head = block[:SNIFF_BYTES]
    if not head:
        return None, "empty file", None
    encoding, bom = detect_encoding(head[:4096])
    # NUL bytes are damage inside a text file (a stray byte, a block zeroed by a crash: the hands
    # around them still parse, the damaged ones are quarantined by their parser), or binary data.
    if not encoding.startswith("utf-16") and head.count(b"\x00") > max(1, len(head) >> 10):
        parser, _, _ = _sniff(head.replace(b"\x00", b""))
        if parser is None:
            return None, "binary file: NUL bytes in its first 64 KiB, not a hand history", None
        return parser, "", None
    head = head[:SNIFF_TEXT_BYTES]
    if len(head) < len(block):
        cut = _last_line_end(head, 0, _newline_of(head))
        head = head[:cut] if cut > bom else head
    try:
        text = decode_text(head)
    except UnreadableFile as error:
        return None, f"unreadable text: {error}", None
    if not text.strip():
        return None, "empty file: blank lines only", None
    parser = parsers.detect(text)
    if parser is None:
        return None, "unknown format: no parser recognises its first lines", text
    return parser, "", None


class _SmallFiles:
    """Whole small files waiting to be parsed together, one parse per parser and batch.

    A parse has a fixed cost of some hundreds of column operations: file by file, an archive
    of many small files (a site writes one per table session) would spend most of its time
    there. Files stay in order, and each one's rows and counts are still its own.
    """

    def __init__(self) -> None:
        self._files: list[tuple[int, SiteParser, pl.Series, np.ndarray, str, FileOutcome]] = []
        self.lines = 0

    @staticmethod
    def accepts(parser: SiteParser) -> bool:
        return callable(getattr(parser, "parse_files", None))

    def add(
        self,
        index: int,
        parser: SiteParser,
        lines: pl.Series,
        offsets: np.ndarray,
        source_file: str,
        outcome: FileOutcome,
    ) -> None:
        self._files.append((index, parser, lines, offsets, source_file, outcome))
        self.lines += len(lines)

    def parse_into(self, sink: _PartSink) -> None:
        """Parse everything waiting (grouped by parser) and hand each file's rows to ``sink``."""
        files, self._files, self.lines = self._files, [], 0
        for site in dict.fromkeys(entry[1].site for entry in files):
            group = [entry for entry in files if entry[1].site == site]
            parser = group[0][1]
            sizes = np.array([len(entry[2]) for entry in group], dtype=np.int64)
            try:
                results = parser.parse_files(  # type: ignore[attr-defined]
                    pl.concat([entry[2] for entry in group]),
                    np.concatenate([entry[3] for entry in group]),
                    np.concatenate(([0], np.cumsum(sizes)[:-1])),
                    [entry[4] for entry in group],
                )
            except Exception:
                # One file's text made the batched parse raise: parse file by file, where
                # the resilient path isolates the hand at fault.
                for index, _, lines, offsets, source_file, outcome in group:
                    _add_parsed(index, parser, lines, offsets, source_file, sink, outcome)
                continue
            for (index, _, _, _, _, outcome), result in zip(group, results, strict=True):
                _account(index, parser, result, sink, outcome)


def _add_parsed(
    index: int,
    parser: SiteParser,
    lines: pl.Series,
    offsets: np.ndarray,
    source_file: str,
    sink: _PartSink,
    outcome: FileOutcome,
) -> None:
    _account(index, parser, _parse_resilient(parser, lines, offsets, source_file), sink, outcome)


def _account(
    index: int, parser: SiteParser, result: ParseResult, sink: _PartSink, outcome: FileOutcome
) -> None:
    """Add a parse result's counts to the file's outcome and its rows to the sink."""
    outcome.hands_found += result.hands_found
    outcome.parsed += result.parsed
    outcome.skipped += result.skipped
    outcome.rejected += result.rejected
    for game, count in result.skipped_games.items():
        outcome.skipped_games[game] = outcome.skipped_games.get(game, 0) + count
    notes = result.tables.get("notes")
    if notes is not None and notes.num_rows:
        outcome.notes += notes.num_rows
        for shape, lines in note_shapes(notes, result.tables.get("seats")).items():
            outcome.note_shapes[shape] = outcome.note_shapes.get(shape, 0) + lines
    for month, tables in _split_by_month(result.tables):
        for table in dataset.PART_TABLES:
            rows = tables.get(table)
            if rows is not None and rows.num_rows:
                sink.add(index, table, parser.site, _conform(rows, table), month)


# Shapes kept per file: enough for the most frequent ten of a run, bounded for hostile input.
MAX_NOTE_SHAPES = 1000


def note_shapes(notes: pa.Table, seats: pa.Table | None) -> dict[str, int]:
    """Lines per shape (digits and the hand's player names blanked) of a block's notes."""
    players: dict[str, list[str]] = {}
    if seats is not None:
        for hand_id, player in zip(
            seats.column("hand_id").to_pylist(), seats.column("player").to_pylist(), strict=True
        ):
            if player:
                players.setdefault(hand_id, []).append(player)
    shapes: dict[str, int] = {}
    for hand_id, text in zip(
        notes.column("hand_id").to_pylist(), notes.column("text").to_pylist(), strict=True
    ):
        shape = line_shape(text[:200], tuple(players.get(hand_id, ())))
        if shape in shapes or len(shapes) < MAX_NOTE_SHAPES:
            shapes[shape] = shapes.get(shape, 0) + 1
    return shapes


def _split_by_month(tables: dict[str, pa.Table]) -> list[tuple[str | None, dict[str, pa.Table]]]:
    """Split a parse result's tables by the month their hands started in.

    Rows of the other hand tables go with their hand (looked up by ``hand_id``; a row whose
    hand is missing goes to the null month). ``rejects`` have no month. Row order is kept.
    """
    undated = {table: rows for table, rows in tables.items() if table not in dataset.DATED_TABLES}
    pieces: list[tuple[str | None, dict[str, pa.Table]]] = [(None, undated)] if undated else []
    dated = {table: rows for table, rows in tables.items() if table in dataset.DATED_TABLES}
    hands = dated.get("hands")
    if hands is None or hands.num_rows == 0:
        if dated:
            pieces.append((dataset.NULL_PARTITION, dated))
        return pieces
    hand_codes, names = _month_codes(hands.column("started_at"))
    if len(names) == 1:  # the usual case: a block of hands within one month
        pieces.append((names[0], dated))
        return pieces
    if dataset.NULL_PARTITION not in names:
        names.append(dataset.NULL_PARTITION)
    null_code = names.index(dataset.NULL_PARTITION)
    by_month: dict[str, dict[str, pa.Table]] = {}
    for table, rows in dated.items():
        if table == "hands":
            codes = hand_codes
        else:
            position = pc.index_in(rows.column("hand_id"), value_set=hands.column("hand_id"))
            found = pc.fill_null(position, -1).to_numpy()
            codes = np.where(found >= 0, hand_codes[np.maximum(found, 0)], null_code)
        for code, rows_of_month in _rows_by_code(rows, codes, len(names)).items():
            by_month.setdefault(names[code], {})[table] = rows_of_month
    for month in sorted(by_month):
        pieces.append((month, by_month[month]))
    return pieces


def _month_codes(started_at: pa.ChunkedArray) -> tuple[np.ndarray, list[str]]:
    """Each hand's month as a code into the months' partition values (`dataset.month_of`).

    Months are told apart on the timestamps' integers and named by arithmetic: Arrow's
    formatting costs about 0.1 ms a call whatever its size, paid once per small file.
    """
    values = started_at.combine_chunks() if isinstance(started_at, pa.ChunkedArray) else started_at
    months = values.to_numpy(zero_copy_only=False).astype("datetime64[M]").view(np.int64)
    distinct, first, codes = np.unique(months, return_index=True, return_inverse=True)
    names = []
    for month, row in zip(distinct.tolist(), first.tolist(), strict=True):
        year = 1970 + month // 12
        if 1 <= year <= 9999:  # %Y as Arrow prints it: four digits; NaT is far below
            names.append(f"{year:04d}-{month % 12 + 1:02d}")
        else:  # a missing start time (or a year of more digits): Arrow names it
            names.append(dataset.month_of(values.take(pa.array([row]))).to_pylist()[0])
    return codes.reshape(-1), names


# Runs of one month a table's rows may fall into before they are sorted instead of sliced:
# slicing a run costs about as much as taking a few hundred rows.
_MAX_MONTH_RUNS = 32


def _rows_by_code(rows: pa.Table, codes: np.ndarray, count: int) -> dict[int, pa.Table]:
    """``rows`` by their month's code (``0 <= codes < count``), each month's rows in order.

    A month's rows are a few runs when hands are in time order: slices of them are joined
    without copying (the part writer copies them once, as it would anyway). Rows whose
    months alternate more often are ordered by a stable sort of the codes and sliced.
    """
    if rows.num_rows == 0:
        return {}
    run_starts = np.flatnonzero(np.diff(codes)) + 1
    if len(run_starts) < _MAX_MONTH_RUNS:
        starts = [0, *run_starts.tolist()]
        ends = [*starts[1:], rows.num_rows]
        slices: dict[int, list[pa.Table]] = {}
        for code, start, end in zip(codes[starts].tolist(), starts, ends, strict=True):
            slices.setdefault(code, []).append(rows.slice(start, end - start))
        return {code: pa.concat_tables(parts) for code, parts in slices.items()}
    # A stable sort of 16-bit codes is a radix sort; a hostile block may hold more months.
    order = np.argsort(codes.astype(np.int16 if count <= 1 << 15 else np.int64), kind="stable")
    ordered_rows = rows.take(pa.array(order))
    by_code = {}
    start = 0
    for code, size in enumerate(np.bincount(codes, minlength=count).tolist()):
        if size:
            by_code[code] = ordered_rows.slice(start, size)
            start += size
    return by_code


def _parse_resilient(
    parser: SiteParser, lines: pl.Series, offsets: np.ndarray, source_file: str
) -> ParseResult:
    """Parse a block; if the parser raises, isolate and quarantine the hands that make it raise.

    A parser bug on one hand must not lose the block's other hands. The block is halved at a
    hand start until the failing pieces are single hands: a few parse calls per bad hand
    instead of one call per hand of the block.
    """
    try:
        return parser.parse(lines, offsets, source_file)
    except Exception as error:
        starts = np.flatnonzero(parser.hand_starts(lines))
        bounds = [0, *[int(start) for start in starts if start > 0], len(lines)]
        return _merge_results(_bisect(parser, lines, offsets, source_file, bounds, error))


def _bisect(
    parser: SiteParser,
    lines: pl.Series,
    offsets: np.ndarray,
    source_file: str,
    bounds: list[int],
    error: Exception,
) -> list[ParseResult]:
    """Parse the hands between ``bounds`` (line indices of hand starts) whose parse raised."""
    if len(bounds) <= 2:
        begin, end = bounds[0], bounds[-1]
        return [
            _parser_error_reject(parser.site, lines[begin:end], offsets[begin], source_file, error)
        ]
    middle = len(bounds) // 2
    results = []
    for piece_bounds in (bounds[: middle + 1], bounds[middle:]):
        begin, end = piece_bounds[0], piece_bounds[-1]
        try:
            results.append(parser.parse(lines[begin:end], offsets[begin:end], source_file))
        except Exception as piece_error:
            results.extend(_bisect(parser, lines, offsets, source_file, piece_bounds, piece_error))
    return results


def _parser_error_reject(
    site: str, lines: pl.Series, offset: int, source_file: str, error: Exception
) -> ParseResult:
    """One hand the parser raised on, quarantined with the exception as its reason."""
    reject = pa.Table.from_pylist(
        [
            {
                "source_file": source_file,
                "source_offset": int(offset),
                "site": site,
                "hand_id": None,
                "reason": f"parser error: {type(error).__name__}: {error}",
                "raw_text": "\n".join(lines.to_list()),
            }
        ],
        schema=REJECTS,
    )
    return ParseResult({"rejects": reject}, 1, 0, 0, 1)


def _merge_results(results: Sequence[ParseResult]) -> ParseResult:
    tables: dict[str, pa.Table] = {}
    for table in dataset.PART_TABLES:
        pieces = [result.tables[table] for result in results if table in result.tables]
        pieces = [_conform(piece, table) for piece in pieces if piece.num_rows]
        if pieces:
            tables[table] = pa.concat_tables(pieces)
    games: dict[str, int] = {}
    for result in results:
        for game, count in result.skipped_games.items():
            games[game] = games.get(game, 0) + count
    return ParseResult(
        tables,
        sum(result.hands_found for result in results),
        sum(result.parsed for result in results),
        sum(result.skipped for result in results),
        sum(result.rejected for result in results),
        games,
    )


def _conform(rows: pa.Table, table: str) -> pa.Table:
    """Return ``rows`` in the canonical schema of ``table`` (cast when a parser drifted)."""
    schema = HAND_TABLES[table] if table in HAND_TABLES else REJECTS
    if rows.schema.equals(schema):
        return rows
    return rows.select(schema.names).cast(schema)


def _file_reject(
    path: str, reason: str, text: str | None = None, site: str | None = None
) -> pa.Table:
    """One ``rejects`` row for a whole file that could not be ingested."""
    return pa.Table.from_pylist(
        [
            {
                "source_file": path,
                "source_offset": 0,
                "site": site,
                "hand_id": None,
                "reason": reason,
                "raw_text": text[:REJECT_TEXT_CHARS] if text else None,
            }
        ],
        schema=REJECTS,
    )


# --------------------------------------------------------------------------------------------
# Reading sources


def _read_block(stream: BinaryIO, size: int) -> bytes:
    """Read ``size`` bytes, fewer only at the end of the stream."""
    chunks = []
    wanted = size
    while wanted > 0:
        chunk = stream.read(wanted)
        if not chunk:
            break
        chunks.append(chunk)
        wanted -= len(chunk)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def _hash_source(source: Source, archives: _ZipCache) -> tuple[str, int]:
    """Return ``(sha256, size)`` of a source's content."""
    digest = hashlib.sha256()
    size = 0
    with _open_source(source, archives) as stream:
        while chunk := stream.read(BLOCK_BYTES):
            digest.update(chunk)
            size += len(chunk)
    return digest.hexdigest(), size


class _ZipCache:
    """Open archives of a task, so members of one zip do not re-read its directory each."""

    def __init__(self) -> None:
        self._archives: dict[str, zipfile.ZipFile] = {}

    def get(self, location: str) -> zipfile.ZipFile:
        if location not in self._archives:
            self._archives[location] = zipfile.ZipFile(location)
        return self._archives[location]

    def __enter__(self) -> _ZipCache:
        return self

    def __exit__(self, *_: object) -> None:
        for archive in self._archives.values():
            archive.close()


@contextmanager
def _open_source(source: Source, archives: _ZipCache) -> Iterator[BinaryIO]:
    """Open the content of a source for reading, with size and compression-ratio guards."""
    if source.compression == "zip":
        assert source.member is not None
        with archives.get(source.location).open(source.member) as member:
            yield member  # type: ignore[misc]  # size limits were checked from its header
    elif source.compression == "gzip":
        with open(source.location, "rb") as raw:
            counted = _CountingReader(raw)
            with gzip.GzipFile(fileobj=counted, mode="rb") as content:  # type: ignore[call-overload]
                yield _RatioGuard(content, counted)  # type: ignore[misc]
    else:
        with open(source.location, "rb") as handle:
            yield handle


class _CountingReader:
    """A read-only file wrapper that counts the bytes read through it."""

    def __init__(self, raw: BinaryIO) -> None:
        self._raw = raw
        self.consumed = 0

    def read(self, size: int = -1) -> bytes:
        data = self._raw.read(size)
        self.consumed += len(data)
        return data

    def __getattr__(self, name: str) -> object:
        return getattr(self._raw, name)


class _RatioGuard:
    """Stop reading a compressed stream that expands beyond the ratio or size limit."""

    def __init__(self, content: BinaryIO, compressed: _CountingReader) -> None:
        self._content = content
        self._compressed = compressed
        self._produced = 0

    def read(self, size: int = -1) -> bytes:
        data = self._content.read(size)
        self._produced += len(data)
        limit = max(self._compressed.consumed * MAX_COMPRESSION_RATIO, RATIO_FREE_BYTES)
        if self._produced > limit:
            raise _Refused(
                f"compression ratio above the {MAX_COMPRESSION_RATIO}:1 limit (gzip bomb?)"
            )
        if self._produced > MAX_MEMBER_BYTES:
            raise _Refused(f"compressed file expands beyond {MAX_MEMBER_BYTES} bytes")
        return data


# --------------------------------------------------------------------------------------------
# Writing parts


_PartKey = tuple[str, str | None, str | None]  # (table, site, month)


def _sort_key(key: _PartKey) -> tuple[str, str, str]:
    return key[0], key[1] or "", key[2] or ""


class _PartSink:
    """Buffered rows of one task, written as one temporary Parquet file per (table, site,
    month).

    Rows are kept in arrival order (the sources' order, then the file order within each), and
    the buffer is written as row groups whenever it holds ``flush_rows`` rows.
    """

    def __init__(self, root: Path, flush_rows: int) -> None:
        self._root = root
        self._flush_rows = flush_rows
        self._pending: list[tuple[int, _PartKey, pa.Table]] = []
        self._pending_rows = 0
        self.peak_pending_rows = 0  # the most rows ever buffered (for tests and benchmarks)
        self._writers: dict[_PartKey, tuple[pq.ParquetWriter, Path]] = {}
        self._touched: dict[int, set[_PartKey]] = {}
        self._flushed: set[int] = set()
        self._written_hands: dict[_PartKey, list[pa.Table]] = {}  # hands parts' rows, in order

    def add(
        self, index: int, table: str, site: str | None, rows: pa.Table, month: str | None = None
    ) -> None:
        """Buffer ``rows`` of ``table`` from source ``index`` (``month``: see
        :func:`pipeline.dataset.partition_directory`)."""
        if rows.num_rows == 0:
            return
        key = (table, site, month)
        self._pending.append((index, key, rows))
        self._pending_rows += rows.num_rows
        self.peak_pending_rows = max(self.peak_pending_rows, self._pending_rows)
        self._touched.setdefault(index, set()).add(key)

    def touched(self, index: int) -> bool:
        """Whether source ``index`` has rows in this sink."""
        return bool(self._touched.get(index))

    def flushed(self, index: int) -> bool:
        """Whether rows of source ``index`` were already written (they cannot be taken back)."""
        return index in self._flushed

    def discard(self, index: int) -> None:
        """Drop the buffered rows of source ``index`` (none of them was written)."""
        self._pending = [entry for entry in self._pending if entry[0] != index]
        self._pending_rows = sum(entry[2].num_rows for entry in self._pending)
        self._touched.pop(index, None)

    def flush_if_full(self) -> None:
        """Write the buffer when it holds enough rows for good row groups."""
        if self._pending_rows >= self._flush_rows:
            self._flush()

    def _flush(self) -> None:
        grouped: dict[_PartKey, list[pa.Table]] = {}
        for index, key, rows in self._pending:
            grouped.setdefault(key, []).append(rows)
            self._flushed.add(index)
        for key in sorted(grouped, key=_sort_key):
            writer = self._writer(key)
            # One chunk per column: page boundaries must not depend on how rows were chunked.
            rows = pa.concat_tables(grouped[key]).combine_chunks()
            writer.write_table(rows)
            if key[0] == "hands":
                self._written_hands.setdefault(key, []).append(rows.select(duplicates.HAND_SOURCE))
        self._pending = []
        self._pending_rows = 0

    def _writer(self, key: _PartKey) -> pq.ParquetWriter:
        if key not in self._writers:
            directory = self._root / dataset.partition_directory(*key)
            path = dataset.new_temporary_path(directory)
            table = key[0]
            schema = HAND_TABLES[table] if table in HAND_TABLES else REJECTS
            writer = pq.ParquetWriter(path, schema, **dataset.parquet_options(schema))
            self._writers[key] = (writer, path)
        return self._writers[key][0]

    def parts_of(self, index: int, part_id: str) -> list[str]:
        """Return the final relative paths of the parts holding rows of source ``index``."""
        return sorted(
            f"{dataset.partition_directory(*key)}/{dataset.part_name(part_id)}"
            for key in self._touched.get(index, ())
        )

    def close(self, part_id: str) -> list[tuple[str, str]]:
        """Write what is buffered, close the files; return (temporary, final) path pairs."""
        moves = []
        try:
            self._flush()
            for key, (writer, path) in self._writers.items():
                writer.close()
                final = f"{dataset.partition_directory(*key)}/{dataset.part_name(part_id)}"
                moves.append((str(path), final))
            if (index := self._hand_index(part_id)) is not None:
                moves.append(index)
            dataset.fsync_all(Path(temporary) for temporary, _ in moves)
        except BaseException:  # a full disk, say: leave no open writer or temporary file
            self.abort()
            raise
        self._writers = {}
        return sorted(moves, key=lambda move: move[1])

    def _hand_index(self, part_id: str) -> tuple[str, str] | None:
        """Write the key index of the hands written (`pipeline.duplicates`), as a move.

        Here, in the task, so the driver's commit only looks the keys up (hashing them there
        cost ~3.5 µs a hand of the one process every task waits on).
        """
        order = sorted(self._written_hands, key=lambda key: dataset.partition_directory(*key))
        hands = [rows for key in order for rows in self._written_hands[key]]
        self._written_hands = {}
        if not hands:
            return None
        index = duplicates.index_rows(pa.concat_tables(hands))
        if index.num_rows == 0:
            return None
        path = dataset.new_temporary_path(self._root / duplicates.INDEX)
        try:
            # Synced with the parts.
            pq.write_table(index, path, **dataset.parquet_options(index.schema))
        except BaseException:
            path.unlink(missing_ok=True)
            raise
        return str(path), f"{duplicates.INDEX}/{dataset.part_name(part_id)}"

    def abort(self) -> None:
        """Close and delete every temporary file (the task restarts or gives up)."""
        for writer, path in self._writers.values():
            try:
                writer.close()
            except OSError:  # e.g. a full disk: the file is deleted anyway
                writer.is_open = False  # or its __del__ retries and prints a traceback
            finally:
                path.unlink(missing_ok=True)
        self._writers = {}
        self._pending = []
        self._pending_rows = 0
        self._written_hands = {}
