"""Layout, locking and the commit protocol of a hilo dataset folder.

::

    DATASET/
      .hilo.lock                                   exclusive lock while an ingest runs
      hands/site=pokerstars/month=2026-11/part-<id>.parquet
                                                   one part per (ingest batch, table, site, month)
      seats/ actions/ collections/ showdowns/      same layout (a row goes with its hand's month)
      hands/site=x/month=__HIVE_DEFAULT_PARTITION__/...   hands without a start time
      rejects/site=pokerstars/part-<id>.parquet    rejects: by site only (they have no time)
      rejects/site=__HIVE_DEFAULT_PARTITION__/...  files whose site is unknown (hive's null)
      files/part-<id>.parquet                      the manifest: one row per input file

Datasets written before the month level existed (``hands/site=x/part-<id>.parquet``) stay
valid: readers go through the manifest, never through the folder layout.

A part becomes visible only through the manifest. Writers create ``.part-<random>.tmp`` files
next to their final place; the driver renames them to ``part-<id>.parquet`` and then writes a
manifest part, which is the commit point. A run killed at any moment leaves at worst temporary
files and part files that no manifest names; :func:`remove_orphans` deletes both at the start of
the next run, under the lock, so the dataset is always exactly the committed inputs.

Compaction (:mod:`pipeline.compact`) replaces the whole manifest in one step: it writes one
manifest part holding every row, whose Parquet metadata lists the parts it *supersedes* (name
and SHA-256 of their bytes). Readers ignore superseded manifest parts, so the new one switches
the dataset over at once; :func:`remove_orphans` deletes the superseded ones later.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from pipeline.schema import FILES, TABLES

__all__ = [
    "DATED_TABLES",
    "LOCK_NAME",
    "MANIFEST",
    "NULL_PARTITION",
    "PART_TABLES",
    "commit_manifest",
    "dataset_lock",
    "is_temporary",
    "live_manifest_paths",
    "month_of",
    "new_temporary_path",
    "parquet_options",
    "part_name",
    "partition_directory",
    "read_manifest",
    "read_table",
    "table_parts",
    "remove_orphans",
    "stable_id",
    "write_parquet",
]

PART_TABLES = ("hands", "seats", "actions", "collections", "showdowns", "notes", "rejects")
# Tables partitioned by the month their hand started in, below the site.
DATED_TABLES = ("hands", "seats", "actions", "collections", "showdowns", "notes")
MANIFEST = "files"
ALLIN_EQUITY = "allin_equity"
LOCK_NAME = ".hilo.lock"
# The value hive readers (DuckDB, pyarrow, polars) read back as null.
NULL_PARTITION = "__HIVE_DEFAULT_PARTITION__"
PARQUET_OPTIONS: dict[str, object] = {"compression": "zstd", "write_statistics": True}
# Columns whose values seldom repeat within a part (one a hand, a line, a file offset, a
# reject's text): a dictionary only adds to them. Measured on 190,650 hands' parts (714 files):
# 11.0 -> 7.6 MB, and the writer skips a dictionary it would give up on anyway.
PLAIN_COLUMNS = frozenset({"hand_id", "seq", "source_offset", "key", "raw_text"})

_TEMPORARY_PREFIX = ".part-"
_TEMPORARY_SUFFIX = ".tmp"
_PART_NAME = re.compile(r"^part-[0-9a-f]+\.parquet$")
_SITE_VALUE = re.compile(r"^[A-Za-z0-9_.-]+$")
_MONTH_VALUE = re.compile(r"^[0-9]{4}-[0-9]{2}$")
# Parquet key-value metadata of a compacted manifest part: {superseded name: sha256 of bytes}.
SUPERSEDES_KEY = b"hilo.supersedes"


def stable_id(lines: Iterable[str]) -> str:
    r"""Return a short hex digest of ``lines``: the deterministic id of a part.

    >>> stable_id(["a.txt\tabc"]) == stable_id(["a.txt\tabc"])
    True
    >>> len(stable_id([]))
    20
    """
    digest = hashlib.sha256()
    for line in lines:
        digest.update(line.encode("utf-8", "surrogateescape"))
        digest.update(b"\n")
    return digest.hexdigest()[:20]


def part_name(part_id: str) -> str:
    """Return the file name of part ``part_id``."""
    return f"part-{part_id}.parquet"


def partition_directory(table: str, site: str | None, month: str | None = None) -> str:
    """Return the folder of ``table`` rows of ``site`` (and ``month``), relative to the root.

    ``month`` is ``YYYY-MM`` or :data:`NULL_PARTITION`; None leaves the month level out.

    >>> partition_directory("hands", "pokerstars", "2009-07")
    'hands/site=pokerstars/month=2009-07'
    >>> partition_directory("rejects", None)
    'rejects/site=__HIVE_DEFAULT_PARTITION__'
    """
    if site is None:
        folder = f"{table}/site={NULL_PARTITION}"
    elif _SITE_VALUE.match(site):
        folder = f"{table}/site={site}"
    else:
        raise ValueError(f"site name {site!r} cannot be a partition value")
    if month is None:
        return folder
    if month != NULL_PARTITION and not _MONTH_VALUE.match(month):
        raise ValueError(f"month {month!r} is not YYYY-MM")
    return f"{folder}/month={month}"


def month_of(started_at: pa.ChunkedArray | pa.Array) -> pa.Array:
    """Return the ``YYYY-MM`` partition value of each start time (UTC); null becomes
    :data:`NULL_PARTITION`."""
    import pyarrow.compute as pc

    if pa.types.is_timestamp(started_at.type) and started_at.type.tz is None:
        started_at = pc.assume_timezone(started_at, "UTC")
    months = pc.strftime(started_at, format="%Y-%m")
    return pc.fill_null(months, NULL_PARTITION)


def new_temporary_path(directory: Path) -> Path:
    """Return an unused temporary file name in ``directory`` (created if missing).

    Random, so that a worker left over from a killed run can never write over a new run's file.
    """
    directory.mkdir(parents=True, exist_ok=True)
    return directory / f"{_TEMPORARY_PREFIX}{uuid.uuid4().hex}{_TEMPORARY_SUFFIX}"


def parquet_options(schema: pa.Schema) -> dict[str, object]:
    """The writer options of a part of ``schema``: `PARQUET_OPTIONS`, with a dictionary for
    every column but the `PLAIN_COLUMNS`."""
    dictionary = [name for name in schema.names if name not in PLAIN_COLUMNS]
    return {**PARQUET_OPTIONS, "use_dictionary": dictionary}


def is_temporary(path: Path) -> bool:
    """Whether ``path`` is a writer's temporary file (never part of the dataset)."""
    return path.name.startswith(_TEMPORARY_PREFIX) and path.name.endswith(_TEMPORARY_SUFFIX)


def write_parquet(table: pa.Table, path: Path) -> None:
    """Write ``table`` to ``path`` in one go, flushed to disk."""
    pq.write_table(table, path, **parquet_options(table.schema))
    fsync_file(path)


def fsync_file(path: Path) -> None:
    """Flush a written file to disk, so a rename can never publish an empty file after a crash."""
    descriptor = os.open(path, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


# A disk that makes each flush wait has the rest flushed side by side: a task that wrote a
# part per table and month (an archive spanning years) would otherwise wait for each in turn.
# A disk that flushes in microseconds is flushed in turn: handing 34 flushes to threads cost
# ~4 ms of CPU a task (2.0 ms serial, 0.4 ms of CPU) on this project's machine.
_FLUSH_THREADS = 16
_SERIAL_FLUSH_SECONDS = 0.002
_flush_pool: tuple[int, ThreadPoolExecutor] | None = None  # (owning process, pool)


def fsync_all(paths: Iterable[Path], *, directories: bool = False) -> None:
    """`fsync_file` (or `fsync_directory`) every path; returns when all are on disk."""
    flush = fsync_directory if directories else fsync_file
    paths = list(paths)
    started = time.perf_counter()
    for done, path in enumerate(paths, start=1):
        flush(path)
        if done < len(paths) and time.perf_counter() - started > _SERIAL_FLUSH_SECONDS:
            for _ in _flush_threads().map(flush, paths[done:]):
                pass
            return


def _flush_threads() -> ThreadPoolExecutor:
    """This process's flushing threads (a forked child makes its own: threads do not fork)."""
    global _flush_pool
    if _flush_pool is None or _flush_pool[0] != os.getpid():
        _flush_pool = (os.getpid(), ThreadPoolExecutor(_FLUSH_THREADS, "hilo-fsync"))
    return _flush_pool[1]


def fsync_directory(path: Path) -> None:
    """Flush a folder's entries (the renames into it) to disk."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:  # not supported on this platform / filesystem
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)


@contextmanager
def dataset_lock(root: Path, on_wait: Callable[[], None] | None = None) -> Iterator[None]:
    """Hold the dataset's exclusive lock (one writer at a time) for the ``with`` body.

    The kernel releases an ``flock`` when its holder dies, so a killed run never leaves the
    dataset locked.

    Parameters
    ----------
    root:
        The dataset folder (must exist).
    on_wait:
        Called once if another process holds the lock, before blocking until it is released.
    """
    with open(root / LOCK_NAME, "a+b") as handle:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if on_wait is not None:
                on_wait()
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def _manifest_paths(root: Path) -> list[Path]:
    folder = root / MANIFEST
    if not folder.is_dir():
        return []
    return sorted(path for path in folder.iterdir() if _PART_NAME.match(path.name))


def _supersedes(schema: pa.Schema) -> dict[str, str]:
    metadata = schema.metadata or {}
    if SUPERSEDES_KEY not in metadata:
        return {}
    listed: dict[str, str] = json.loads(metadata[SUPERSEDES_KEY])
    return listed


def file_sha256(path: Path) -> str:
    """Return the SHA-256 of a file's bytes."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def _live(paths: list[Path], superseded: dict[str, str]) -> list[Path]:
    """Drop the manifest parts a compacted one supersedes.

    A name is superseded only with the same bytes: a later commit may reuse a name (names come
    from the committed paths), and its rows are live.
    """
    return [
        path
        for path in paths
        if path.name not in superseded or file_sha256(path) != superseded[path.name]
    ]


def live_manifest_paths(root: Path) -> list[Path]:
    """Return the manifest parts that hold the committed rows (superseded ones left out)."""
    paths = _manifest_paths(root)
    superseded: dict[str, str] = {}
    for path in paths:
        superseded.update(_supersedes(pq.read_schema(path)))
    return _live(paths, superseded)


def _as_manifest(rows: pa.Table) -> pa.Table:
    """Return manifest rows in the current FILES schema; columns added since they were written
    are null."""
    for field in FILES:
        if field.name not in rows.column_names:
            rows = rows.append_column(field, pa.nulls(rows.num_rows, field.type))
    return rows.select(FILES.names).replace_schema_metadata(None).cast(FILES)


def read_manifest(root: Path) -> pa.Table:
    """Return every committed row of the ``files`` manifest (in commit-file name order)."""
    tables = {path: pq.read_table(path) for path in _manifest_paths(root)}
    superseded: dict[str, str] = {}
    for table in tables.values():
        superseded.update(_supersedes(table.schema))
    parts = [_as_manifest(tables[path]) for path in _live(list(tables), superseded)]
    if not parts:
        return FILES.empty_table()
    return pa.concat_tables(parts)


def read_table(root: Path, table: str) -> pa.Table:
    """Return all committed rows of ``table`` (only parts a manifest names), in part order.

    Rows keep the columns of the canonical schema; the ``site`` partition is not added again.
    ``allin_equity``, an output of the audit, is read from ``root/audit/allin_equity/``.
    """
    if table == MANIFEST:
        return read_manifest(root)
    if table == ALLIN_EQUITY:
        return _read_audit_output(Path(root), table)
    schema = TABLES[table]
    parts = [pq.read_table(path, schema=schema) for path in table_parts(root, table)]
    return pa.concat_tables(parts) if parts else schema.empty_table()


def table_parts(root: Path, table: str) -> list[Path]:
    """The committed part files of ``table`` (a manifest names them), in part order: for a
    reader that scans a few columns of them."""
    referenced = _referenced_parts(read_manifest(root))
    return [Path(root) / part for part in sorted(referenced) if part.startswith(f"{table}/")]


def _read_audit_output(root: Path, table: str) -> pa.Table:
    """Every unit file of an audit output, in path order, with ``site`` from its folder."""
    import polars as pl

    from pipeline.audit_outputs import ALLIN_EQUITY_SCHEMA

    schema = pl.DataFrame(schema=ALLIN_EQUITY_SCHEMA).to_arrow().schema
    parts = []
    for path in sorted((root / "audit" / table).glob("site=*/part-*.parquet")):
        part = pq.read_table(path)
        site = path.parent.name.removeprefix("site=")
        part = part.append_column("site", pa.array([site] * part.num_rows, pa.string()))
        parts.append(part.select(schema.names).cast(schema))
    return pa.concat_tables(parts) if parts else schema.empty_table()


def _referenced_parts(manifest: pa.Table) -> set[str]:
    referenced: set[str] = set()
    for parts in manifest.column("parts").to_pylist():
        referenced.update(parts or ())
    return referenced


def remove_orphans(root: Path) -> list[Path]:
    """Delete temporary files and parts that no manifest names; return what was deleted.

    Call it under :func:`dataset_lock` only: another writer's uncommitted parts look like
    orphans too. Manifest parts a compacted one supersedes go too. Files other than
    ``part-*.parquet`` and temporaries are left alone.
    """
    referenced = _referenced_parts(read_manifest(root))
    removed: list[Path] = []
    live = set(live_manifest_paths(root))
    for path in _manifest_paths(root):
        if path not in live:
            path.unlink(missing_ok=True)
            removed.append(path)
    for table in (*PART_TABLES, MANIFEST):
        folder = root / table
        if not folder.is_dir():
            continue
        for directory, _, names in os.walk(folder):
            for name in names:
                path = Path(directory) / name
                relative = path.relative_to(root).as_posix()
                orphan = is_temporary(path) or (
                    table != MANIFEST and _PART_NAME.match(name) and relative not in referenced
                )
                if orphan:
                    path.unlink(missing_ok=True)
                    removed.append(path)
    return removed


def commit_manifest(root: Path, rows: pa.Table, supersedes: Sequence[Path] = ()) -> Path:
    """Write ``rows`` (schema FILES) as one manifest part: the commit point of their parts.

    The name is derived from the committed paths and digests, so the same commit is the same
    file; the rename makes it appear whole or not at all. ``supersedes`` (compaction only):
    manifest parts whose rows ``rows`` replaces; readers ignore them from the rename on.
    """
    rows = rows.cast(FILES)
    folder = root / MANIFEST
    keys = (
        f"{path}\t{digest or ''}"
        for path, digest in zip(
            rows.column("path").to_pylist(), rows.column("sha256").to_pylist(), strict=True
        )
    )
    tag = ["compacted"] if supersedes else []
    final = folder / part_name(stable_id([*tag, *keys]))
    if supersedes:
        listed = {path.name: file_sha256(path) for path in supersedes}
        rows = rows.replace_schema_metadata({SUPERSEDES_KEY: json.dumps(listed, sort_keys=True)})
    temporary = new_temporary_path(folder)
    write_parquet(rows, temporary)
    os.replace(temporary, final)
    fsync_directory(folder)
    return final
