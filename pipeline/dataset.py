"""Layout, locking and the commit protocol of a hilo dataset folder.

::

    DATASET/
      .hilo.lock                                   exclusive lock while an ingest runs
      hands/site=pokerstars/part-<id>.parquet      one part per (ingest batch, table, site)
      seats/ actions/ collections/ showdowns/ rejects/   same layout
      rejects/site=__HIVE_DEFAULT_PARTITION__/...  files whose site is unknown (hive's null)
      files/part-<id>.parquet                      the manifest: one row per input file

A part becomes visible only through the manifest. Writers create ``.part-<random>.tmp`` files
next to their final place; the driver renames them to ``part-<id>.parquet`` and then writes a
manifest part, which is the commit point. A run killed at any moment leaves at worst temporary
files and part files that no manifest names; :func:`remove_orphans` deletes both at the start of
the next run, under the lock, so the dataset is always exactly the committed inputs.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
import uuid
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from pipeline.schema import FILES, TABLES

__all__ = [
    "LOCK_NAME",
    "MANIFEST",
    "NULL_PARTITION",
    "PART_TABLES",
    "commit_manifest",
    "dataset_lock",
    "is_temporary",
    "new_temporary_path",
    "part_name",
    "partition_directory",
    "read_manifest",
    "read_table",
    "remove_orphans",
    "stable_id",
    "write_parquet",
]

PART_TABLES = ("hands", "seats", "actions", "collections", "showdowns", "rejects")
MANIFEST = "files"
LOCK_NAME = ".hilo.lock"
# The value hive readers (DuckDB, pyarrow, polars) read back as null.
NULL_PARTITION = "__HIVE_DEFAULT_PARTITION__"
PARQUET_OPTIONS: dict[str, object] = {"compression": "zstd", "write_statistics": True}

_TEMPORARY_PREFIX = ".part-"
_TEMPORARY_SUFFIX = ".tmp"
_PART_NAME = re.compile(r"^part-[0-9a-f]+\.parquet$")
_SITE_VALUE = re.compile(r"^[A-Za-z0-9_.-]+$")


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


def partition_directory(table: str, site: str | None) -> str:
    """Return the folder of ``table`` rows of ``site``, relative to the dataset root.

    >>> partition_directory("hands", "pokerstars")
    'hands/site=pokerstars'
    >>> partition_directory("rejects", None)
    'rejects/site=__HIVE_DEFAULT_PARTITION__'
    """
    if site is None:
        return f"{table}/site={NULL_PARTITION}"
    if not _SITE_VALUE.match(site):
        raise ValueError(f"site name {site!r} cannot be a partition value")
    return f"{table}/site={site}"


def new_temporary_path(directory: Path) -> Path:
    """Return an unused temporary file name in ``directory`` (created if missing).

    Random, so that a worker left over from a killed run can never write over a new run's file.
    """
    directory.mkdir(parents=True, exist_ok=True)
    return directory / f"{_TEMPORARY_PREFIX}{uuid.uuid4().hex}{_TEMPORARY_SUFFIX}"


def is_temporary(path: Path) -> bool:
    """Whether ``path`` is a writer's temporary file (never part of the dataset)."""
    return path.name.startswith(_TEMPORARY_PREFIX) and path.name.endswith(_TEMPORARY_SUFFIX)


def write_parquet(table: pa.Table, path: Path) -> None:
    """Write ``table`` to ``path`` in one go, flushed to disk."""
    pq.write_table(table, path, **PARQUET_OPTIONS)
    fsync_file(path)


def fsync_file(path: Path) -> None:
    """Flush a written file to disk, so a rename can never publish an empty file after a crash."""
    descriptor = os.open(path, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


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


def read_manifest(root: Path) -> pa.Table:
    """Return every committed row of the ``files`` manifest (in commit-file name order)."""
    parts = [pq.read_table(path).cast(FILES) for path in _manifest_paths(root)]
    if not parts:
        return FILES.empty_table()
    return pa.concat_tables(parts)


def read_table(root: Path, table: str) -> pa.Table:
    """Return all committed rows of ``table`` (only parts a manifest names), in part order.

    Rows keep the columns of the canonical schema; the ``site`` partition is not added again.
    """
    if table == MANIFEST:
        return read_manifest(root)
    schema = TABLES[table]
    referenced = sorted(
        part for part in _referenced_parts(read_manifest(root)) if part.startswith(f"{table}/")
    )
    parts = [pq.read_table(root / part, schema=schema) for part in referenced]
    return pa.concat_tables(parts) if parts else schema.empty_table()


def _referenced_parts(manifest: pa.Table) -> set[str]:
    referenced: set[str] = set()
    for parts in manifest.column("parts").to_pylist():
        referenced.update(parts or ())
    return referenced


def remove_orphans(root: Path) -> list[Path]:
    """Delete temporary files and parts that no manifest names; return what was deleted.

    Call it under :func:`dataset_lock` only: another writer's uncommitted parts look like
    orphans too. Files other than ``part-*.parquet`` and temporaries are left alone.
    """
    referenced = _referenced_parts(read_manifest(root))
    removed: list[Path] = []
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


def commit_manifest(root: Path, rows: pa.Table) -> Path:
    """Write ``rows`` (schema FILES) as one manifest part: the commit point of their parts.

    The name is derived from the committed paths and digests, so the same commit is the same
    file; the rename makes it appear whole or not at all.
    """
    rows = rows.cast(FILES)
    folder = root / MANIFEST
    keys = (
        f"{path}\t{digest or ''}"
        for path, digest in zip(
            rows.column("path").to_pylist(), rows.column("sha256").to_pylist(), strict=True
        )
    )
    final = folder / part_name(stable_id(keys))
    temporary = new_temporary_path(folder)
    write_parquet(rows, temporary)
    os.replace(temporary, final)
    fsync_directory(folder)
    return final
