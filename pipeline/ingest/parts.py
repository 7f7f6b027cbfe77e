"""What an ingest task writes and returns.

Rows are buffered and written as one temporary Parquet part per (table, site, month) for the
whole task; the task returns each file's outcome and the temporary files to move into place,
never table data.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from pipeline import dataset, duplicates
from pipeline.ingest.sources import BLOCK_BYTES, Source
from pipeline.schema import HAND_TABLES, REJECTS

__all__ = [
    "FLUSH_ROWS",
    "REJECT_TEXT_CHARS",
    "BatchResult",
    "BatchTask",
    "FileOutcome",
    "PartSink",
    "close_batch",
    "conform",
    "file_reject",
    "split_by_month",
]

# Rows buffered by a task before they become row groups (~50 MB of Arrow data). Counted in rows,
# not bytes: Arrow buffer sizes vary with chunking, and the flush points shape the files' bytes.
FLUSH_ROWS = 500_000
REJECT_TEXT_CHARS = 4000  # text kept in a file-level reject row


@dataclass(frozen=True)
class BatchTask:
    """The arguments of one task (:func:`pipeline.ingest.task.ingest_batch`): picklable, no data."""

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


_PartKey = tuple[str, str | None, str | None]  # (table, site, month)


def _sort_key(key: _PartKey) -> tuple[str, str, str]:
    return key[0], key[1] or "", key[2] or ""


class PartSink:
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


def close_batch(sink: PartSink, outcomes: list[FileOutcome], tag: str) -> BatchResult:
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


def split_by_month(tables: dict[str, pa.Table]) -> list[tuple[str | None, dict[str, pa.Table]]]:
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


def conform(rows: pa.Table, table: str) -> pa.Table:
    """Return ``rows`` in the canonical schema of ``table`` (cast when a parser drifted)."""
    schema = HAND_TABLES[table] if table in HAND_TABLES else REJECTS
    if rows.schema.equals(schema):
        return rows
    return rows.select(schema.names).cast(schema)


def file_reject(
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
