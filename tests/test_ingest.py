"""The ingest engine.

Real PokerStars corpus, archives, bad files, idempotency, determinism, streaming in blocks,
orphan clean-up and failure isolation.
"""

from __future__ import annotations

import gzip
import hashlib
import shutil
import zipfile
from collections import Counter
from collections.abc import Callable
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.bench_ingest import replicate_hands
from pipeline import dataset
from pipeline import ingest as ingest_module
from pipeline.executor import make_executor
from pipeline.ingest import Source, expand_inputs, ingest, plan_batches
from pipeline.ingest import driver as ingest_driver
from pipeline.ingest import parts as ingest_parts
from pipeline.ingest import task as ingest_task
from pipeline.schema import TABLES
from tests.conftest import o8_hands, table_rows


def manifest_by_path(root: Path) -> dict[str, dict[str, Any]]:
    return {row["path"]: row for row in dataset.read_manifest(root).to_pylist()}


def part_files(root: Path) -> dict[str, str]:
    """Relative path -> sha256 of every Parquet file of the hand tables."""
    return {
        path.relative_to(root).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for table in dataset.PART_TABLES
        for path in sorted((root / table).rglob("*.parquet"))
    }


@pytest.fixture(scope="module")
def stars_dataset(tmp_path_factory: pytest.TempPathFactory, stars_files: list[Path]) -> Path:
    """Ingest the corpus's PokerStars files once (two local worker processes)."""
    root = tmp_path_factory.mktemp("stars") / "dataset"
    ingest(stars_files, root, workers=2)
    return root


# --- the real corpus ----------------------------------------------------------------------


def test_corpus_files_account_for_every_o8_hand(
    stars_dataset: Path,
    stars_files: list[Path],
    corpus_dir: Path,
    corpus_manifest: dict[str, dict[str, str]],
) -> None:
    rows = manifest_by_path(stars_dataset)
    assert set(rows) == {str(path) for path in stars_files}
    for path in stars_files:
        row = rows[str(path)]
        assert row["error"] is None, row
        assert row["site"] == "pokerstars"
        assert row["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
        assert row["size"] == path.stat().st_size
        # A hand stored from an earlier file (the 2025 Big O hand, exported twice) is a
        # duplicate of it.
        found = row["hands"] + row["skipped"] + row["rejected"] + row["duplicates"]
        assert found == o8_hands(corpus_manifest, corpus_dir, path), path


def test_tables_agree_with_the_manifest(stars_dataset: Path) -> None:
    files = dataset.read_manifest(stars_dataset)
    hands = dataset.read_table(stars_dataset, "hands")
    assert hands.num_rows == sum(files.column("hands").to_pylist()) > 90
    assert set(hands.column("source_file").to_pylist()) <= set(files.column("path").to_pylist())
    hand_ids = set(hands.column("hand_id").to_pylist())
    for table in ("seats", "actions", "collections"):
        rows = dataset.read_table(stars_dataset, table)
        assert rows.num_rows > 0
        assert set(rows.column("hand_id").to_pylist()) <= hand_ids
    # Every part a manifest row names exists, and there is no other part.
    named = {part for parts in files.column("parts").to_pylist() for part in parts}
    index = {part for part in named if part.startswith("hand_keys/")}  # pipeline.duplicates
    assert all((stars_dataset / part).is_file() for part in index) and index
    assert named - index == set(part_files(stars_dataset))


def test_layout_is_hive_partitioned_by_site_and_month(stars_dataset: Path) -> None:
    # Each hand lies in the folder of the month it started in (UTC), its other rows with it.
    month_of_hand = {}
    for path in (stars_dataset / "hands").glob("site=pokerstars/month=*/part-*.parquet"):
        month = path.parent.name.removeprefix("month=")
        for hand in pq.read_table(path).to_pylist():
            assert hand["started_at"].strftime("%Y-%m") == month, hand["hand_id"]
            month_of_hand[hand["hand_id"]] = month
    assert len(month_of_hand) == dataset.read_table(stars_dataset, "hands").num_rows
    for table in ("hands", "seats", "actions", "collections", "showdowns"):
        parts = list((stars_dataset / table).glob("site=pokerstars/month=*/part-*.parquet"))
        assert parts, table
        assert not list((stars_dataset / table).glob("site=pokerstars/part-*.parquet")), table
        for path in parts:
            assert pq.read_schema(path).equals(TABLES[table], check_metadata=False), table
            month = path.parent.name.removeprefix("month=")
            hand_ids = set(pq.read_table(path, columns=["hand_id"]).column(0).to_pylist())
            assert {month_of_hand[hand_id] for hand_id in hand_ids} == {month}, path
    assert not list((stars_dataset / "rejects").glob("site=*/month=*"))


def test_rows_keep_source_order_within_a_part(stars_dataset: Path) -> None:
    order = {str(path): index for index, path in enumerate(manifest_by_path(stars_dataset))}
    parts = sorted((stars_dataset / "hands").rglob("part-*.parquet"))
    assert parts
    for path in parts:
        hands = pq.read_table(path).to_pylist()
        keys = [(order[row["source_file"]], row["source_offset"]) for row in hands]
        assert keys == sorted(keys), path


# --- idempotency and determinism --------------------------------------------------------


def test_second_ingest_adds_nothing_and_says_so(tmp_path: Path, stars_files: list[Path]) -> None:
    root = tmp_path / "dataset"
    first = ingest(stars_files, root, workers=2)
    before = part_files(root)
    manifests = sorted((root / "files").iterdir())
    second = ingest(stars_files, root, workers=2)
    assert first.files == len(stars_files) and first.parsed > 90
    assert (second.files, second.parsed, second.parts_written) == (0, 0, 0)
    assert second.already_ingested == len(stars_files)
    assert part_files(root) == before
    assert sorted((root / "files").iterdir()) == manifests


def test_same_input_gives_byte_identical_parts(tmp_path: Path, stars_files: list[Path]) -> None:
    one = tmp_path / "one"
    two = tmp_path / "two"
    inline = tmp_path / "inline"
    ingest(stars_files, one, workers=1, batch_bytes=20_000)  # several tasks: a process pool
    ingest(stars_files, two, workers=2, batch_bytes=20_000)
    ingest(stars_files, inline)  # one task, run in this process
    assert len(part_files(one)) > 3 * len(dataset.PART_TABLES)
    assert part_files(one) == part_files(two)
    for table in dataset.PART_TABLES:
        assert table_rows(one, table) == table_rows(inline, table), table
    volatile = ["ingested_at", "parts"]  # part names follow the batches
    assert table_rows(one, "files", drop=volatile) == table_rows(inline, "files", drop=volatile)


def test_a_copy_of_a_file_is_ingested_once(tmp_path: Path, stars_files: list[Path]) -> None:
    original = max(stars_files, key=lambda path: path.stat().st_size)
    folder = tmp_path / "inputs"
    folder.mkdir()
    shutil.copy(original, folder / "a.txt")
    shutil.copy(original, folder / "b.txt")
    summary = ingest([folder], tmp_path / "dataset", workers=1)
    assert (summary.files, summary.already_ingested) == (1, 1)
    assert list(manifest_by_path(tmp_path / "dataset")) == [str(folder / "a.txt")]


# --- archives ---------------------------------------------------------------------------


def _add_member(archive: zipfile.ZipFile, name: str, data: bytes, mode: int = 0o100644) -> None:
    info = zipfile.ZipInfo(name)
    info.external_attr = mode << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    archive.writestr(info, data)


def test_zip_and_gzip_inputs_with_refused_members(
    tmp_path: Path,
    stars_files: list[Path],
    corpus_dir: Path,
    corpus_manifest: dict[str, dict[str, str]],
) -> None:
    *good, zipped_too = sorted(stars_files, key=lambda path: path.stat().st_size)[-3:]
    archive = tmp_path / "hands.zip"
    with zipfile.ZipFile(archive, "w") as writer:
        for path in (good[0], zipped_too):
            _add_member(writer, f"histories/{path.name}", path.read_bytes())
        _add_member(writer, "../escape.txt", good[0].read_bytes())
        _add_member(writer, "/etc/absolute.txt", good[0].read_bytes())
        _add_member(writer, "link.txt", b"/etc/passwd", mode=0o120777)
        _add_member(writer, "inner.zip", b"PK\x05\x06" + bytes(18))
        _add_member(writer, "bomb.txt", bytes(20 << 20))
    compressed = tmp_path / "single.txt.gz"
    compressed.write_bytes(gzip.compress(good[1].read_bytes()))
    # The same text zipped and gzipped: one copy is ingested, the other is "already ingested".
    copy = tmp_path / "copy.txt.gz"
    copy.write_bytes(gzip.compress(zipped_too.read_bytes()))

    summary = ingest([archive, compressed, copy], tmp_path / "dataset", workers=2)
    assert summary.already_ingested == 1

    rows = manifest_by_path(tmp_path / "dataset")
    for path in (good[0], zipped_too):
        row = rows[f"{archive}!histories/{path.name}"]
        assert row["error"] is None
        assert row["hands"] + row["skipped"] == o8_hands(corpus_manifest, corpus_dir, path)
    assert rows[str(compressed)]["error"] is None
    assert rows[str(compressed)]["hands"] == o8_hands(corpus_manifest, corpus_dir, good[1])
    assert str(copy) not in rows
    expected_errors = {
        "../escape.txt": "unsafe archive member path",
        "/etc/absolute.txt": "unsafe archive member path",
        "link.txt": "symbolic link",
        "inner.zip": "nested archive",
        "bomb.txt": "compression ratio",
    }
    rejects = {
        row["source_file"]: row["reason"]
        for row in dataset.read_table(tmp_path / "dataset", "rejects").to_pylist()
    }
    for member, reason in expected_errors.items():
        assert reason in rows[f"{archive}!{member}"]["error"]
        assert reason in rejects[f"{archive}!{member}"]
    assert len(summary.errors) == len(expected_errors)
    hands = dataset.read_table(tmp_path / "dataset", "hands")
    assert f"{archive}!histories/{good[0].name}" in hands.column("source_file").to_pylist()
    assert str(compressed) in hands.column("source_file").to_pylist()
    assert not list(tmp_path.glob("*escape*")) and not (tmp_path.parent / "escape.txt").exists()


def test_gzip_bomb_is_stopped_while_reading(tmp_path: Path) -> None:
    bomb = tmp_path / "bomb.txt.gz"
    bomb.write_bytes(gzip.compress(b"PokerStars Hand #1: " + bytes(64 << 20)))
    summary = ingest([bomb], tmp_path / "dataset", workers=1)
    assert summary.errors and "compression ratio" in summary.errors[0][1]


def test_a_file_failing_after_rows_were_written_leaves_no_rows(
    tmp_path: Path,
    replicated_file: Path,
    stars_files: list[Path],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    data = gzip.compress(replicated_file.read_bytes())
    truncated = tmp_path / "truncated.txt.gz"
    truncated.write_bytes(data[: len(data) * 3 // 4])  # fails at 3/4, after rows were flushed
    good = max(stars_files, key=lambda path: path.stat().st_size)
    root = tmp_path / "dataset"
    aborts: list[int] = []
    abort = ingest_parts.PartSink.abort

    def counted_abort(sink: Any) -> None:
        aborts.append(1)
        abort(sink)

    monkeypatch.setattr(ingest_parts.PartSink, "abort", counted_abort)
    with ThreadPoolExecutor(1) as executor:  # in this process, so the patch applies
        summary = ingest(
            [truncated, good],
            root,
            executor=executor,
            block_bytes=20_000,
            flush_rows=1,
            batch_bytes=10**9,
        )
    assert aborts == [1]  # the batch's written rows were dropped and the batch redone
    rows = manifest_by_path(root)
    assert "corrupt gzip stream" in rows[str(truncated)]["error"]
    assert rows[str(truncated)]["hands"] == 0
    assert rows[str(good)]["error"] is None and rows[str(good)]["hands"] > 50
    sources = set(dataset.read_table(root, "hands").column("source_file").to_pylist())
    assert sources == {str(good)}
    assert summary.parsed == rows[str(good)]["hands"]


def test_the_output_folder_inside_an_input_folder_is_not_read(
    tmp_path: Path, stars_files: list[Path]
) -> None:
    shutil.copy(stars_files[0], tmp_path / "hands.txt")
    ingest([tmp_path], tmp_path / "dataset", workers=1)
    second = ingest([tmp_path], tmp_path / "dataset", workers=1)
    assert list(manifest_by_path(tmp_path / "dataset")) == [str(tmp_path / "hands.txt")]
    assert (second.files, second.already_ingested) == (0, 1)


def test_corrupt_zip_is_an_error_not_a_crash(tmp_path: Path, stars_files: list[Path]) -> None:
    broken = tmp_path / "broken.zip"
    broken.write_bytes(b"PK\x03\x04 this is not really a zip archive")
    summary = ingest([broken, stars_files[0]], tmp_path / "dataset", workers=1)
    assert summary.files == 2
    assert [path for path, _ in summary.errors] == [str(broken)]
    assert "zip" in summary.errors[0][1]


# --- bad files ------------------------------------------------------------------------------


def test_empty_binary_and_unknown_files_are_recorded(
    tmp_path: Path, stars_files: list[Path]
) -> None:
    folder = tmp_path / "inputs"
    folder.mkdir()
    (folder / "empty.txt").write_bytes(b"")
    (folder / "binary.dat").write_bytes(bytes(range(256)) * 64)
    (folder / "notes.txt").write_text("Dear diary,\nno poker today.\n", encoding="utf-8")
    good = max(stars_files, key=lambda path: path.stat().st_size)
    shutil.copy(good, folder / "good.txt")

    summary = ingest([folder], tmp_path / "dataset", workers=2)

    rows = manifest_by_path(tmp_path / "dataset")
    assert "empty" in rows[str(folder / "empty.txt")]["error"]
    assert "binary" in rows[str(folder / "binary.dat")]["error"]
    assert "unknown format" in rows[str(folder / "notes.txt")]["error"]
    assert rows[str(folder / "good.txt")]["error"] is None
    assert rows[str(folder / "good.txt")]["hands"] > 50
    rejects = dataset.read_table(tmp_path / "dataset", "rejects").to_pylist()
    by_file = {row["source_file"]: row for row in rejects}
    assert by_file[str(folder / "notes.txt")]["raw_text"].startswith("Dear diary")
    assert by_file[str(folder / "empty.txt")]["reason"] == "empty file"
    assert summary.files == 4 and len(summary.errors) == 3


def test_symbolic_links_in_folders_are_not_followed(
    tmp_path: Path, stars_files: list[Path]
) -> None:
    folder = tmp_path / "inputs"
    folder.mkdir()
    (folder / "link.txt").symlink_to(stars_files[0])
    sources = expand_inputs([folder])
    assert [(source.path, source.error) for source in sources] == [
        (str(folder / "link.txt"), "symbolic link not followed")
    ]


def test_missing_input_is_a_bad_argument(tmp_path: Path) -> None:
    with pytest.raises(ingest_module.InputError):
        ingest([tmp_path / "missing"], tmp_path / "dataset")


# --- streaming in blocks ----------------------------------------------------------------


@pytest.fixture(scope="module")
def replicated_file(tmp_path_factory: pytest.TempPathFactory, stars_files: list[Path]) -> Path:
    path = tmp_path_factory.mktemp("replicated") / "many-hands.txt"
    path.write_bytes(b"".join(replicate_hands(stars_files, 3)))
    return path


@pytest.mark.parametrize(
    "encoding", ["utf-8", "utf-8-sig-crlf", "utf-16"], ids=["utf8", "bom-crlf", "utf16"]
)
def test_small_blocks_give_the_same_rows_as_one_block(
    tmp_path: Path, replicated_file: Path, encoding: str
) -> None:
    text = replicated_file.read_text(encoding="utf-8")
    source = tmp_path / "input.txt"
    if encoding == "utf-8":
        source.write_bytes(text.encode("utf-8"))
    elif encoding == "utf-8-sig-crlf":
        source.write_bytes(text.replace("\n", "\r\n").encode("utf-8-sig"))
    else:
        source.write_bytes(text.encode("utf-16"))  # with BOM, native (little) endian
    whole = tmp_path / "whole"
    blocks = tmp_path / "blocks"
    ingest([source], whole, workers=1)
    # 20,001 bytes: blocks end mid-line, mid-hand and (UTF-16) at odd positions.
    ingest([source], blocks, workers=1, block_bytes=20_001)
    for table in dataset.PART_TABLES:
        assert table_rows(whole, table) == table_rows(blocks, table), table
    files = dataset.read_manifest(blocks).to_pylist()[0]
    assert files["hands"] > 250 and files["error"] is None
    assert files["sha256"] == hashlib.sha256(source.read_bytes()).hexdigest()
    offsets = dataset.read_table(blocks, "hands").column("source_offset").to_pylist()
    data = source.read_bytes()
    marker = "PokerStars".encode("utf-16-le" if encoding == "utf-16" else "utf-8")
    assert all(data[offset : offset + len(marker)] == marker for offset in offsets)


def test_hands_longer_than_a_block_are_carried_whole(
    tmp_path: Path, stars_files: list[Path]
) -> None:
    source = next(path for path in stars_files if path.name.startswith("PLO8-6max-USD-0.01"))
    whole = tmp_path / "whole"
    tiny = tmp_path / "tiny"
    ingest([source], whole, workers=1)
    ingest([source], tiny, workers=1, block_bytes=257)  # every hand spans several blocks
    for table in dataset.PART_TABLES:
        assert table_rows(whole, table) == table_rows(tiny, table), table
    assert dataset.read_table(tiny, "hands").num_rows == 15


def test_a_large_copy_is_detected_before_parsing(tmp_path: Path, replicated_file: Path) -> None:
    root = tmp_path / "dataset"
    ingest([replicated_file], root, workers=1, block_bytes=64 << 10)
    copy = tmp_path / "copy.txt"
    shutil.copy(replicated_file, copy)
    sources = [Source(str(copy), str(copy), size=copy.stat().st_size)]
    marked = ingest_driver._mark_known(
        sources, dataset.read_manifest(root), 64 << 10, ingest_module.IngestSummary(root)
    )
    assert marked[0].hash_first and marked[0].known_sha256
    summary = ingest([copy], root, workers=1, block_bytes=64 << 10)
    assert (summary.files, summary.already_ingested, summary.parts_written) == (0, 1, 0)


# --- crash safety building blocks -----------------------------------------------------


def test_orphans_and_temporaries_are_removed_on_start(
    tmp_path: Path, stars_files: list[Path]
) -> None:
    root = tmp_path / "dataset"
    ingest(stars_files[:3], root, workers=1)
    committed = part_files(root)
    orphan = root / "hands" / "site=pokerstars" / "part-0123456789abcdef0123.parquet"
    shutil.copy(root / next(iter(committed)), orphan)
    temporary = root / "actions" / "site=pokerstars" / ".part-deadbeef.tmp"
    temporary.write_bytes(b"half written")
    manifest_temporary = root / "files" / ".part-cafe.tmp"
    manifest_temporary.write_bytes(b"half written")
    summary = ingest(stars_files[3:], root, workers=1)
    assert summary.orphans_removed == 3
    assert not orphan.exists() and not temporary.exists() and not manifest_temporary.exists()
    assert set(committed) <= set(part_files(root))


def test_lock_is_exclusive(tmp_path: Path) -> None:
    import fcntl

    calls: list[str] = []
    with dataset.dataset_lock(tmp_path):
        with open(tmp_path / dataset.LOCK_NAME, "a+b") as other:
            with pytest.raises(BlockingIOError):
                fcntl.flock(other.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    with dataset.dataset_lock(tmp_path, on_wait=lambda: calls.append("waited")):
        pass
    assert calls == []


# --- failure isolation ------------------------------------------------------------------


class _FailingFor(Executor):
    """A thread executor whose tasks raise for batches containing ``poison``."""

    def __init__(self, poison: str) -> None:
        self._threads = ThreadPoolExecutor(2)
        self._poison = poison

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        task = args[0]
        if any(self._poison in source.path for source in task.sources):
            return self._threads.submit(_raise, MemoryError("worker ran out of memory"))
        return self._threads.submit(fn, *args, **kwargs)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        self._threads.shutdown(wait=wait, cancel_futures=cancel_futures)


def _raise(error: BaseException) -> None:
    raise error


def test_a_failing_task_fails_only_its_files(tmp_path: Path, stars_files: list[Path]) -> None:
    poison = stars_files[0].name
    with _FailingFor(poison) as executor:
        summary = ingest(stars_files, tmp_path / "dataset", executor=executor, batch_bytes=1)
    assert [path for path, _ in summary.errors] == [str(stars_files[0])]
    assert "ingest task failed: MemoryError" in summary.errors[0][1]
    rows = manifest_by_path(tmp_path / "dataset")
    assert len(rows) == len(stars_files)
    assert sum(row["hands"] for row in rows.values()) == summary.parsed > 90
    rejects = dataset.read_table(tmp_path / "dataset", "rejects").to_pylist()
    assert [row["source_file"] for row in rejects] == [str(stars_files[0])]
    # A failed task may be transient (a worker killed for memory): the next run retries it.
    retry = ingest(stars_files, tmp_path / "dataset", workers=1, batch_bytes=1)
    assert (retry.files, retry.already_ingested) == (1, len(stars_files) - 1)
    assert retry.parsed > 0 and not retry.errors


def test_a_parser_crash_quarantines_only_that_hand(
    tmp_path: Path, stars_files: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    import parsers

    parser = parsers.PARSERS[0]
    original = type(parser).parse
    victim = "#68173693354:"  # a hand of the knockout tournament file

    def fragile(self: Any, lines: Any, offsets: Any, source_file: str) -> Any:
        if lines.str.contains(victim, literal=True).any():
            raise ValueError("parser bug")
        return original(self, lines, offsets, source_file)

    original_files = type(parser).parse_files

    def fragile_files(self: Any, lines: Any, *rest: Any) -> Any:
        if lines.str.contains(victim, literal=True).any():
            raise ValueError("parser bug")
        return original_files(self, lines, *rest)

    monkeypatch.setattr(type(parser), "parse", fragile)
    # Small files are parsed several at a time; a crash there falls back to file by file.
    monkeypatch.setattr(type(parser), "parse_files", fragile_files)
    knockout = next(path for path in stars_files if "Knockout" in path.name)
    with ThreadPoolExecutor(1) as executor:
        summary = ingest([knockout], tmp_path / "dataset", executor=executor)
    assert (summary.parsed, summary.rejected) == (72, 1)
    (reject,) = dataset.read_table(tmp_path / "dataset", "rejects").to_pylist()
    assert reject["reason"] == "parser error: ValueError: parser bug"
    assert victim in reject["raw_text"] and reject["source_offset"] > 0


# --- planning and executor ------------------------------------------------------------


def test_batches_group_small_files_and_copies() -> None:
    def source(name: str, size: int, crc32: int | None = None) -> Source:
        return Source(name, name, size=size, crc32=crc32)

    sources = [
        source("a", 10, crc32=7),
        source("b", 30),
        source("c", 100),
        source("d", 10, crc32=7),
        source("e", 10, crc32=8),
        source("f", 5),
    ]
    batches = plan_batches(sources, batch_bytes=40)
    names = [[item.path for item in batch] for batch in batches]
    # "d" is a copy of "a" (size and checksum) and joins its batch; "e" only has its size;
    # "c" is larger than a batch and alone.
    assert names == [["a", "b", "d"], ["c"], ["e", "f"]]
    assert plan_batches(sources, batch_bytes=40) == batches
    many = [source(f"f{index}", index + 1) for index in range(10)]
    assert [len(batch) for batch in plan_batches(many, batch_bytes=10**9, max_files=4)] == [
        4,
        4,
        2,
    ]


def test_make_executor_runs_local_processes() -> None:
    from concurrent.futures import ProcessPoolExecutor

    with make_executor(None, 2) as executor:
        assert isinstance(executor, ProcessPoolExecutor)
        assert executor.submit(pow, 2, 10).result() == 1024


def test_the_driver_does_not_load_the_parsers() -> None:
    # The driver never parses: the parsers and their compiled kernels (~0.2 s of CPU, taken
    # from the workers on a 2-core machine) load in the fork server, whose preload names them.
    import subprocess
    import sys

    from pipeline.executor import _PRELOAD

    def modules_loaded_by(imports: str) -> str:
        # Flushed: the fork server's preload ends its process without flushing (fork_server).
        code = (
            f"import sys, {imports}; "
            "print(sorted({'parsers', 'numba'} & sys.modules.keys()), flush=True)"
        )
        run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        return run.stdout.strip() or run.stderr

    assert modules_loaded_by("pipeline.ingest, pipeline.cli") == "[]"
    assert modules_loaded_by(", ".join(_PRELOAD)) == "['numba', 'parsers']"


def test_scheduler_address_without_dask_says_how_to_install() -> None:
    import importlib.util

    if importlib.util.find_spec("distributed") is not None:
        pytest.skip("Dask is installed: the message for its absence cannot be shown")
    with pytest.raises(RuntimeError, match=r"hilo\[dask\]"):
        make_executor("tcp://127.0.0.1:8786")


def test_ingest_on_a_dask_cluster(tmp_path: Path, stars_files: list[Path]) -> None:
    distributed = pytest.importorskip("distributed", reason="Dask is an optional extra")
    local = tmp_path / "local"
    remote = tmp_path / "dask"
    ingest(stars_files, local, workers=2, batch_bytes=20_000)
    with distributed.LocalCluster(processes=False, dashboard_address=None) as cluster:
        ingest(stars_files, remote, scheduler=cluster.scheduler_address, batch_bytes=20_000)
    assert part_files(local) == part_files(remote)


# --- bounded memory and the month partitions -------------------------------------------------


def test_a_task_holds_a_bounded_number_of_rows(
    tmp_path: Path, replicated_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    peaks: list[int] = []
    close = ingest_parts.PartSink.close

    def recording_close(sink: Any, part_id: str) -> list[tuple[str, str]]:
        peaks.append(sink.peak_pending_rows)
        return close(sink, part_id)

    monkeypatch.setattr(ingest_parts.PartSink, "close", recording_close)
    block_bytes, flush_rows = 16 << 10, 300
    root = tmp_path / "dataset"
    with ThreadPoolExecutor(1) as executor:  # in this process, so the patch applies
        ingest(
            [replicated_file],
            root,
            executor=executor,
            block_bytes=block_bytes,
            flush_rows=flush_rows,
        )
    rows = sum(dataset.read_table(root, table).num_rows for table in dataset.PART_TABLES)
    # A row comes from at least one line of text, and a line is over 10 bytes: one block adds
    # at most block_bytes / 10 rows to the buffer before it is flushed.
    assert len(peaks) == 1 and peaks[0] <= flush_rows + block_bytes // 10
    assert rows > 4 * peaks[0]
    for path in (root / "actions").rglob("part-*.parquet"):
        metadata = pq.read_metadata(path)
        assert metadata.num_row_groups > 1
        for index in range(metadata.num_row_groups):
            assert metadata.row_group(index).num_rows <= peaks[0]


def test_rows_go_to_the_month_of_their_hand() -> None:
    import datetime as dt

    import pyarrow as pa

    from pipeline.schema import HAND_TABLES

    def at(month: int) -> dt.datetime:
        return dt.datetime(2009, month, 28, 23, 59, tzinfo=dt.UTC)

    hands = pa.Table.from_pylist(
        [
            {"site": "s", "hand_id": "1", "started_at": at(6)},
            {"site": "s", "hand_id": "2", "started_at": at(7)},
            {"site": "s", "hand_id": "3", "started_at": None},
            {"site": "s", "hand_id": "4", "started_at": at(6)},
        ],
        schema=pa.schema(
            [HAND_TABLES["hands"].field(name) for name in ("site", "hand_id", "started_at")]
        ),
    )
    seats = pa.Table.from_pylist(
        [
            {"hand_id": hand_id, "seat": seat}
            for hand_id, seat in [("4", 1), ("1", 1), ("2", 1), ("1", 2), ("3", 1), ("9", 1)]
        ]
    )
    rejects = pa.Table.from_pylist([{"hand_id": "x"}])
    pieces = ingest_parts.split_by_month({"hands": hands, "seats": seats, "rejects": rejects})
    got = {
        month: {table: rows.to_pylist() for table, rows in tables.items()}
        for month, tables in pieces
    }
    null = dataset.NULL_PARTITION
    assert set(got) == {None, "2009-06", "2009-07", null}
    assert got[None] == {"rejects": [{"hand_id": "x"}]}
    assert [row["hand_id"] for row in got["2009-06"]["hands"]] == ["1", "4"]
    assert got["2009-06"]["seats"] == [
        {"hand_id": "4", "seat": 1},
        {"hand_id": "1", "seat": 1},
        {"hand_id": "1", "seat": 2},
    ]
    assert got["2009-07"]["seats"] == [{"hand_id": "2", "seat": 1}]
    # No start time, or no hand at all: the null month, never lost.
    assert got[null]["seats"] == [{"hand_id": "3", "seat": 1}, {"hand_id": "9", "seat": 1}]
    assert [row["hand_id"] for row in got[null]["hands"]] == ["3"]
    assert sum(len(tables.get("seats", [])) for tables in got.values()) == seats.num_rows


@settings(max_examples=60, deadline=None)
@given(
    hand_months=st.lists(st.sampled_from([None, 1, 2, 3, 12]), min_size=1, max_size=80),
    seat_hands=st.lists(st.integers(min_value=0, max_value=90), max_size=200),
    ordered=st.booleans(),
)
def test_month_split_keeps_every_row_in_order(
    hand_months: list[int | None], seat_hands: list[int], ordered: bool
) -> None:
    # Against the plain rule: a row goes to its hand's month (the null month when its hand
    # has no start time or is not there), rows keep their order. Sorted hands give few runs
    # of a month (sliced), shuffled ones many (sorted by month, then sliced).
    import datetime as dt

    import pyarrow as pa

    from pipeline.schema import HAND_TABLES

    if ordered:
        hand_months = sorted(hand_months, key=lambda month: (month is None, month or 0))
    starts = [
        None if month is None else dt.datetime(2009, month, 28, 23, 59, tzinfo=dt.UTC)
        for month in hand_months
    ]
    hands = pa.Table.from_pylist(
        [
            {"site": "s", "hand_id": str(number), "started_at": start}
            for number, start in enumerate(starts)
        ],
        schema=pa.schema(
            [HAND_TABLES["hands"].field(name) for name in ("site", "hand_id", "started_at")]
        ),
    )
    seats = pa.table(
        {"hand_id": [str(hand) for hand in seat_hands], "row": list(range(len(seat_hands)))},
        schema=pa.schema([("hand_id", pa.string()), ("row", pa.int64())]),
    )
    pieces = ingest_parts.split_by_month({"hands": hands, "seats": seats})

    null = dataset.NULL_PARTITION

    def month_of(hand: int) -> str:
        month = hand_months[hand] if hand < len(hand_months) else None
        return null if month is None else f"2009-{month:02d}"

    # A block of one month is kept whole (rows of a missing hand included).
    only = {month_of(hand) for hand in range(len(hand_months))}
    expected: dict[str, list[int]] = {}
    for row, hand in enumerate(seat_hands):
        month = next(iter(only)) if len(only) == 1 else month_of(hand)
        expected.setdefault(month, []).append(row)
    got = {
        month: tables["seats"]["row"].to_pylist()
        for month, tables in pieces
        if "seats" in tables and tables["seats"].num_rows
    }
    assert got == expected
    assert [month for month, _ in pieces] == sorted(month for month, _ in pieces)
    hands_by_month = {
        month: tables["hands"]["hand_id"].to_pylist() for month, tables in pieces if "hands" in tables
    }
    assert sum(map(len, hands_by_month.values())) == len(hand_months)
    for month, ids in hands_by_month.items():
        assert [int(i) for i in ids] == sorted(int(i) for i in ids)
        assert all(month_of(int(i)) == month for i in ids)


def test_month_names_are_the_partition_values() -> None:
    # Named by arithmetic; the partition values are Arrow's formatting (dataset.month_of).
    import datetime as dt

    import pyarrow as pa

    starts = [
        dt.datetime(year, month, day, hour, tzinfo=dt.UTC)
        for year in (1, 999, 1969, 1970, 2011, 9999)
        for month in (1, 2, 12)
        for day, hour in ((1, 0), (28, 23))
    ]
    for values in (starts + [None], [None], [starts[0]]):
        column = pa.chunked_array([pa.array(values, pa.timestamp("us", tz="UTC"))])
        codes, names = ingest_parts._month_codes(column)
        assert [names[code] for code in codes] == dataset.month_of(column).to_pylist()


def test_month_split_of_a_block_of_many_months() -> None:
    # More months than a 16-bit code holds (a hostile block): still each hand in its month,
    # in order.
    import random

    import numpy as np
    import pyarrow as pa

    from pipeline.schema import HAND_TABLES

    months = list(range(40_000))  # months since 1970-01: years 1970 to 5303
    random.Random(4).shuffle(months)
    mid_month = np.array(months, "datetime64[M]").astype("datetime64[us]") + np.timedelta64(
        14, "D"
    )
    starts = pa.array(mid_month.view(np.int64)).cast(pa.timestamp("us", tz="UTC"))
    hands = pa.table(
        {
            "site": ["s"] * len(months),
            "hand_id": [str(number) for number in range(len(months))],
            "started_at": starts,
        },
        schema=pa.schema(
            [HAND_TABLES["hands"].field(name) for name in ("site", "hand_id", "started_at")]
        ),
    )
    pieces = ingest_parts.split_by_month({"hands": hands})
    expected = dataset.month_of(starts).to_pylist()
    assert len(pieces) == len(set(expected))
    for month, tables in pieces:
        ids = [int(i) for i in tables["hands"]["hand_id"].to_pylist()]
        assert ids == sorted(ids) and {expected[i] for i in ids} == {month}


def test_tasks_get_absolute_paths(
    tmp_path: Path, stars_files: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    # A Dask worker runs in its own working directory: relative paths would point elsewhere.
    shutil.copy(stars_files[0], tmp_path / "hands.txt")
    monkeypatch.chdir(tmp_path)
    tasks: list[ingest_module.BatchTask] = []

    class Recording(Executor):
        def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
            tasks.append(args[0])
            future: Future[Any] = Future()
            future.set_result(fn(*args, **kwargs))
            return future

    summary = ingest(["hands.txt"], "dataset", executor=Recording())
    assert summary.parsed > 0 and tasks
    for task in tasks:
        assert task.root == str(tmp_path / "dataset")
        assert [source.location for source in task.sources] == [str(tmp_path / "hands.txt")]
        assert [source.path for source in task.sources] == ["hands.txt"]  # recorded as given


# --- lines too long to be text ----------------------------------------------------------


@pytest.fixture(scope="module")
def generated_hands(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """Forty generated PokerStars cash hands, each its own text."""
    from pipeline.generate import generate

    out = tmp_path_factory.mktemp("generated")
    generate(40, 11, out, tournament_share=0.0, workers=1)
    text = "".join(path.read_text() for path in sorted((out / "pokerstars").rglob("*.txt")))
    hands = [hand.strip("\n") for hand in text.split("\n\n\n") if hand.strip()]
    assert len(hands) == 40 and all(hand.startswith("PokerStars ") for hand in hands)
    return hands


def hand_id_of(hand: str) -> str:
    return hand.split("#", 1)[1].split(":", 1)[0]


@pytest.mark.parametrize("encoding", ["utf-8", "utf-16"])
def test_a_line_too_long_quarantines_its_hand_and_keeps_the_rest(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    generated_hands: list[str],
    encoding: str,
) -> None:
    """Hand 7 holds two lines of 200,000 characters, hand 40 one at the file's end without a
    line break: with the line limit at 64 KiB, those two hands are quarantined (once each)
    naming the line, the other 38 parse as they do without it."""
    monkeypatch.setattr(ingest_task, "MAX_LINE_BYTES", 64 << 10)
    long_line = "x" * 200_000
    hands = list(generated_hands)
    seven = hands[6].split("\n")
    hands[6] = "\n".join([*seven[:3], long_line, *seven[3:6], long_line, *seven[6:]])
    hands[39] = hands[39] + "\n" + long_line
    clean = tmp_path / "clean.txt"
    damaged = tmp_path / "damaged.txt"
    clean.write_text("\n\n\n".join(generated_hands) + "\n", encoding=encoding)
    damaged.write_text("\n\n\n".join(hands), encoding=encoding)

    expected = ingest([clean], tmp_path / "clean", workers=1, block_bytes=16 << 10)
    summary = ingest([damaged], tmp_path / "damaged", workers=1, block_bytes=16 << 10)

    assert expected.parsed == 40
    assert (summary.hands_found, summary.parsed, summary.rejected) == (40, 38, 2)
    assert summary.errors == []
    damaged_ids = {hand_id_of(hands[6]), hand_id_of(hands[39])}
    for table in ("hands", "seats", "actions", "collections"):
        clean_rows = table_rows(tmp_path / "clean", table, drop=["source_file", "source_offset"])
        undamaged = Counter({row: n for row, n in clean_rows.items() if row[1] not in damaged_ids})
        assert table_rows(tmp_path / "damaged", table, drop=["source_file", "source_offset"]) == (
            undamaged
        ), table
    rejects = dataset.read_table(tmp_path / "damaged", "rejects").to_pylist()
    data = damaged.read_bytes()
    marker = "PokerStars ".encode("utf-16-le" if encoding == "utf-16" else "utf-8")
    assert len(rejects) == 2
    for reject, hand in zip(
        sorted(rejects, key=lambda row: row["source_offset"]), (hands[6], hands[39])
    ):
        assert reject["reason"].startswith(f"line of more than {64 << 10} bytes at byte ")
        assert reject["reason"].endswith("hand quarantined, the line skipped")
        assert reject["raw_text"].startswith(hand.split("\n", 1)[0])
        assert reject["raw_text"].endswith("\n" + "x" * 200 + "…")
        offset = reject["source_offset"]
        assert data[offset : offset + len(marker)] == marker
    row = manifest_by_path(tmp_path / "damaged")[str(damaged)]
    assert (row["hands"], row["rejected"], row["error"]) == (38, 2, None)
    assert row["sha256"] == hashlib.sha256(data).hexdigest() and row["size"] == len(data)


@pytest.mark.parametrize("zeroed", ["the first 4 KiB", "8 KiB inside"])
def test_a_zeroed_block_loses_only_the_hands_it_covers(
    tmp_path: Path, generated_hands: list[str], zeroed: str
) -> None:
    """A block of NUL bytes (what a crash can leave in a file) over the start of a file or
    inside its first 64 KiB: the file is not refused as binary; the hands the block touches
    are quarantined, every other hand parses."""
    data = bytearray(("\n\n\n".join(generated_hands) + "\n").encode())
    start, size = (0, 4096) if zeroed == "the first 4 KiB" else (20_000, 8192)
    data[start : start + size] = bytes(size)
    path = tmp_path / "zeroed.txt"
    path.write_bytes(bytes(data))
    summary = ingest([path], tmp_path / "dataset", workers=1)
    assert summary.errors == []
    starts = [0]
    for hand in generated_hands[:-1]:
        starts.append(starts[-1] + len(hand.encode()) + 3)
    touched = {
        hand_id_of(hand)
        for hand, begin in zip(generated_hands, starts, strict=True)
        if begin < start + size and begin + len(hand.encode()) > start
    }
    assert 1 <= len(touched) <= 8
    kept = set(dataset.read_table(tmp_path / "dataset", "hands").column("hand_id").to_pylist())
    assert kept == {hand_id_of(hand) for hand in generated_hands} - touched
    assert summary.rejected >= 1
    assert summary.hands_found == summary.parsed + summary.skipped + summary.rejected


def test_a_hand_too_long_is_quarantined_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, generated_hands: list[str]
) -> None:
    """Hand 12 holds 20,000 chat lines (about 600 KB) before its summary: with the hand limit
    at 64 KiB it is quarantined once, as too long, and the lines past the limit are not taken
    for hands of their own; the other 39 parse as they do without it."""
    monkeypatch.setattr(ingest_task, "MAX_CARRY_BYTES", 64 << 10)
    hands = list(generated_hands)
    twelve = hands[11].split("\n")
    chat = [f'someone said, "line {number}"' for number in range(20_000)]
    hands[11] = "\n".join([*twelve[:-3], *chat, *twelve[-3:]])
    path = tmp_path / "long-hand.txt"
    path.write_text("\n\n\n".join(hands) + "\n")
    summary = ingest([path], tmp_path / "dataset", workers=1, block_bytes=16 << 10)
    assert (summary.hands_found, summary.parsed, summary.rejected) == (40, 39, 1)
    rejects = dataset.read_table(tmp_path / "dataset", "rejects").to_pylist()
    assert [(row["source_offset"], row["reason"]) for row in rejects] == [
        (
            path.read_bytes().index(hands[11].encode()),
            f"hand of more than {64 << 10} bytes: quarantined",
        )
    ]
    kept = set(dataset.read_table(tmp_path / "dataset", "hands").column("hand_id").to_pylist())
    assert kept == {hand_id_of(hand) for hand in hands} - {hand_id_of(hands[11])}
