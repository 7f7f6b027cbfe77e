"""The inputs of an ingest, and reading them.

Files, folders, zip members and gzip streams become :class:`Source` objects, grouped into the
tasks' batches; a task reads each one through the archives' guards (member paths, sizes and
compression ratios) without unpacking anything to disk.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import re
import stat
import struct
import zipfile
import zlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath
from typing import BinaryIO, Literal

__all__ = [
    "BATCH_BYTES",
    "BATCH_MAX_FILES",
    "BLOCK_BYTES",
    "MAX_COMPRESSION_RATIO",
    "MAX_MEMBER_BYTES",
    "RATIO_FREE_BYTES",
    "Compression",
    "InputError",
    "Refused",
    "Source",
    "ZipCache",
    "checksum_possible_copies",
    "copy_key_of",
    "expand_inputs",
    "hash_source",
    "open_source",
    "plan_batches",
    "read_block",
    "size_key_of",
]

BLOCK_BYTES = 8 << 20  # bytes read and parsed at a time (parsing needs ~30x that in memory)
BATCH_BYTES = 16 << 20  # small files are grouped into tasks of about this much text
BATCH_MAX_FILES = 256  # ... and at most this many files (parsing has a fixed cost per call)
MAX_MEMBER_BYTES = 16 << 30  # refuse larger archive members
MAX_COMPRESSION_RATIO = 100  # hand histories compress about 10:1; bombs 1000:1
RATIO_FREE_BYTES = 1 << 20  # small members may compress well beyond the ratio harmlessly

_ZIP_MAGIC = b"PK\x03\x04"
_EMPTY_ZIP_MAGIC = b"PK\x05\x06"
_GZIP_MAGIC = b"\x1f\x8b"
_NESTED_ARCHIVE = re.compile(r"\.(zip|gz|tgz|tar|7z|rar|bz2|xz|zst)$", re.IGNORECASE)
_WINDOWS_DRIVE = re.compile(r"^[A-Za-z]:")

Compression = Literal["none", "zip", "gzip"]


class InputError(ValueError):
    """A path given to ingest does not exist or cannot be listed (a bad argument)."""


class Refused(Exception):
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


# --------------------------------------------------------------------------------------------
# Expanding the inputs and planning the tasks (the driver)


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
        key = copy_key_of(source)
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


def size_key_of(source: Source) -> int | None:
    """Return the size used to find copies (gzip trailers store it modulo 2**32)."""
    if source.error is not None or source.size is None:
        return None
    return source.size % (1 << 32)


def copy_key_of(source: Source) -> tuple[int, int] | None:
    """Return ``(size, crc32)``, equal for copies of a file; None when the checksum is unknown."""
    size = size_key_of(source)
    if size is None or source.crc32 is None:
        return None
    return size, source.crc32


def checksum_possible_copies(sources: list[Source]) -> list[Source]:
    """Give a crc32 to plain files whose size another source has (only those may be copies).

    Archives carry their members' checksums; a plain file is read once more, at ~4 GB/s.
    """
    counts: dict[int, int] = {}
    for source in sources:
        if (key := size_key_of(source)) is not None:
            counts[key] = counts.get(key, 0) + 1
    checked = []
    for source in sources:
        key = size_key_of(source)
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
# Reading sources (a task)


def read_block(stream: BinaryIO, size: int) -> bytes:
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


def hash_source(source: Source, archives: ZipCache) -> tuple[str, int]:
    """Return ``(sha256, size)`` of a source's content."""
    digest = hashlib.sha256()
    size = 0
    with open_source(source, archives) as stream:
        while chunk := stream.read(BLOCK_BYTES):
            digest.update(chunk)
            size += len(chunk)
    return digest.hexdigest(), size


class ZipCache:
    """Open archives of a task, so members of one zip do not re-read its directory each."""

    def __init__(self) -> None:
        self._archives: dict[str, zipfile.ZipFile] = {}

    def get(self, location: str) -> zipfile.ZipFile:
        if location not in self._archives:
            self._archives[location] = zipfile.ZipFile(location)
        return self._archives[location]

    def __enter__(self) -> ZipCache:
        return self

    def __exit__(self, *_: object) -> None:
        for archive in self._archives.values():
            archive.close()


@contextmanager
def open_source(source: Source, archives: ZipCache) -> Iterator[BinaryIO]:
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
            raise Refused(
                f"compression ratio above the {MAX_COMPRESSION_RATIO}:1 limit (gzip bomb?)"
            )
        if self._produced > MAX_MEMBER_BYTES:
            raise Refused(f"compressed file expands beyond {MAX_MEMBER_BYTES} bytes")
        return data
