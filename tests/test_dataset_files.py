"""How dataset parts are written: their column encodings and how they are flushed to disk."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from pipeline import dataset
from pipeline.ingest import ingest

SAMPLE = Path(__file__).resolve().parent.parent / "data" / "sample" / "pokerstars"


def _column_encodings(path: Path) -> dict[str, set[str]]:
    metadata = pq.ParquetFile(path).metadata
    encodings: dict[str, set[str]] = {}
    for group in range(metadata.num_row_groups):
        for index in range(metadata.num_columns):
            column = metadata.row_group(group).column(index)
            encodings.setdefault(column.path_in_schema, set()).update(column.encodings)
    return encodings


def test_parts_store_one_off_values_without_a_dictionary(tmp_path: Path) -> None:
    ingest([SAMPLE], tmp_path, workers=1)
    actions = next((tmp_path / "actions").rglob("part-*.parquet"))
    encodings = _column_encodings(actions)
    for plain in ("hand_id", "seq"):
        assert not encodings[plain] & {"PLAIN_DICTIONARY", "RLE_DICTIONARY"}, plain
    for repeated in ("player", "kind", "amount"):
        assert encodings[repeated] & {"PLAIN_DICTIONARY", "RLE_DICTIONARY"}, repeated
    index = next((tmp_path / "hand_keys").rglob("part-*.parquet"))
    assert not _column_encodings(index)["key"] & {"PLAIN_DICTIONARY", "RLE_DICTIONARY"}


def _written(tmp_path: Path, count: int) -> list[Path]:
    paths = [tmp_path / f"file-{number}" for number in range(count)]
    for path in paths:
        path.write_bytes(b"x")
    return paths


def test_quick_flushes_stay_on_the_calling_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    flushed: list[tuple[Path, str]] = []
    monkeypatch.setattr(
        dataset, "fsync_file", lambda path: flushed.append((path, threading.current_thread().name))
    )
    # Quick, whatever else the machine is doing: a pause of the test must not look like a disk.
    monkeypatch.setattr(dataset, "_SERIAL_FLUSH_SECONDS", 60.0)
    paths = _written(tmp_path, 20)
    dataset.fsync_all(paths)
    assert [path for path, _ in flushed] == paths
    assert {thread for _, thread in flushed} == {threading.current_thread().name}


def test_slow_flushes_go_on_side_by_side_and_each_path_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    flushed: list[tuple[Path, str]] = []
    lock = threading.Lock()

    def slow_flush(path: Path) -> None:
        time.sleep(dataset._SERIAL_FLUSH_SECONDS * 2)
        with lock:
            flushed.append((path, threading.current_thread().name))

    monkeypatch.setattr(dataset, "fsync_file", slow_flush)
    paths = _written(tmp_path, 20)
    dataset.fsync_all(paths)
    assert sorted(path for path, _ in flushed) == sorted(paths)
    assert flushed[0] == (paths[0], threading.current_thread().name)
    assert all(thread.startswith("hilo-fsync") for _, thread in flushed[1:])


def test_a_forked_process_gets_flushing_threads_of_its_own(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    parent_pool = dataset._flush_threads()
    assert dataset._flush_threads() is parent_pool
    real_pid = dataset.os.getpid()
    monkeypatch.setattr(dataset.os, "getpid", lambda: real_pid + 1)
    assert dataset._flush_threads() is not parent_pool
