"""Compaction of many small parts into few large ones.

A dataset is ingested from a generated archive in three runs of one file per task, so each
partition holds many small parts. Compaction must keep every row, cut the file count, change
nothing on a second run, and leave a dataset that reads the same rows whenever it is killed.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import polars as pl
import pyarrow.parquet as pq
import pytest
from polars.testing import assert_frame_equal

from pipeline import dataset
from pipeline.compact import compact, plan_groups
from pipeline.generate import generate
from pipeline.ingest import ingest

REPO = Path(__file__).resolve().parent.parent
# Small enough that the test archive's parts (about 15,000 rows in all) fall into several groups.
TARGET_ROWS = 3_000


def row_digests(root: Path) -> dict[str, tuple[int, str]]:
    """Per table: row count and a digest of the sorted rows (order-free: parts get merged)."""
    digests = {}
    for table in (*dataset.PART_TABLES, dataset.MANIFEST):
        rows = dataset.read_table(root, table)
        if table == dataset.MANIFEST:
            rows = rows.drop_columns(["parts"])  # the one column compaction rewrites
        text = "\n".join(sorted(repr(row) for row in rows.to_pylist()))
        digests[table] = (rows.num_rows, hashlib.sha256(text.encode()).hexdigest())
    return digests


def part_files(root: Path) -> dict[str, str]:
    """Relative path -> sha256 of every part file of the hand tables."""
    return {
        path.relative_to(root).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for table in dataset.PART_TABLES
        for path in sorted((root / table).rglob("*.parquet"))
    }


def partition_sizes(root: Path) -> dict[str, dict[str, int]]:
    """Partition (``site=…/month=…``) -> part name -> rows over all the hand tables."""
    sizes: dict[str, dict[str, int]] = {}
    for table in dataset.PART_TABLES:
        for path in (root / table).rglob("*.parquet"):
            partition = path.parent.relative_to(root / table).as_posix()
            rows = pq.read_metadata(path).num_rows
            named = sizes.setdefault(partition, {})
            named[path.name] = named.get(path.name, 0) + rows
    return sizes


def small_parts(sizes: dict[str, dict[str, int]]) -> dict[str, int]:
    """Partition -> how many of its parts hold fewer rows than half the compaction target."""
    return {
        partition: sum(rows * 2 < TARGET_ROWS for rows in named.values())
        for partition, named in sizes.items()
    }


def referenced_parts(root: Path) -> set[str]:
    manifest = dataset.read_manifest(root)
    return {
        part
        for parts in manifest.column("parts").to_pylist()
        for part in parts
        if part.split("/", 1)[0] in dataset.PART_TABLES
    }


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    out = tmp_path_factory.mktemp("archive")
    generate(600, 9, out, workers=1)
    return sorted((out / "pokerstars").iterdir())


@pytest.fixture(scope="module")
def fragmented(tmp_path_factory: pytest.TempPathFactory, archive: list[Path]) -> Path:
    """A dataset of three ingest runs with one task per file: many small parts."""
    root = tmp_path_factory.mktemp("fragmented") / "dataset"
    thirds = [archive[index::3] for index in range(3)]
    with ThreadPoolExecutor(1) as executor:
        for files in thirds:
            ingest(files, root, executor=executor, batch_bytes=1)
    return root


@pytest.fixture()
def copy(tmp_path: Path, fragmented: Path) -> Path:
    root = tmp_path / "dataset"
    shutil.copytree(fragmented, root)
    return root


def test_plan_groups_only_merges_small_parts_and_stays_under_the_target() -> None:
    sizes = {f"part-{index:02d}": size for index, size in enumerate([5, 40, 10, 60, 30, 20, 45])}
    groups = plan_groups(sizes, target=100)
    assert groups == [["part-00", "part-01", "part-02"], ["part-04", "part-05"]]
    for group in groups:
        assert 50 <= sum(sizes[name] for name in group) < 100
    # What is left after merging is planned as nothing.
    merged = {"a": 55, "b": 50, "c": 45, "d": 60}
    assert plan_groups(merged, target=100) == []


def test_compaction_keeps_every_row_and_reduces_the_file_count(copy: Path) -> None:
    before_rows, before_parts = row_digests(copy), part_files(copy)
    sizes_before = partition_sizes(copy)
    manifests_before = len(dataset.live_manifest_paths(copy))
    summary = compact(copy, target_rows=TARGET_ROWS)
    after_parts = part_files(copy)
    assert row_digests(copy) == before_rows
    assert before_rows["hands"][0] == 600
    assert summary.parts_before > summary.parts_after > 0
    assert len(after_parts) == len(before_parts) - summary.parts_before + summary.parts_after
    # How many parts remain depends on the part names, which hash the archive's temporary path
    # (40-60 of the 120 here, in a simulation over random names). What packing guarantees is that
    # a partition keeps at most one part below half the target, so the next run merges nothing.
    assert len(after_parts) < len(before_parts)
    assert max(small_parts(sizes_before).values()) > 1
    assert max(small_parts(partition_sizes(copy)).values()) <= 1
    assert manifests_before > 3 and len(list((copy / "files").iterdir())) == 1  # one per task
    # The manifest names exactly the part files there are.
    assert referenced_parts(copy) == set(after_parts)


def test_compaction_keeps_a_hands_rows_in_files_of_one_name(copy: Path) -> None:
    compact(copy, target_rows=TARGET_ROWS)
    hand_file = {}
    for path in (copy / "hands").rglob("part-*.parquet"):
        for hand_id in pq.read_table(path, columns=["hand_id"]).column(0).to_pylist():
            hand_file[hand_id] = (path.parent.relative_to(copy / "hands"), path.name)
    for table in ("seats", "actions", "collections", "showdowns"):
        for path in (copy / table).rglob("part-*.parquet"):
            place = (path.parent.relative_to(copy / table), path.name)
            hand_ids = set(pq.read_table(path, columns=["hand_id"]).column(0).to_pylist())
            assert {hand_file[hand_id] for hand_id in hand_ids} == {place}, path


def test_statistics_are_the_same_after_compaction(copy: Path) -> None:
    from pipeline.stats import compute_stats, open_database

    def statistics() -> pl.DataFrame:
        # Small chunks: the statistics work part ids a few at a time. Persistent: the second
        # call rebuilds the tables of DATASET/hilo.duckdb over the new files.
        connection = open_database(copy, chunk_hands=200)
        try:
            frame = compute_stats(copy, connection=connection, counts=True)
        finally:
            connection.close()
        return frame.sort(["player", "site", "currency"])

    before = statistics()
    compact(copy, target_rows=TARGET_ROWS)
    after = statistics()
    assert before.height > 10
    # Counts exactly; ratios up to float summation order (chunks sum in another order).
    assert_frame_equal(after, before, rel_tol=1e-12)


def test_compaction_is_idempotent(copy: Path) -> None:
    compact(copy, target_rows=TARGET_ROWS)
    files = {
        path.relative_to(copy).as_posix(): path.read_bytes() for path in copy.rglob("*.parquet")
    }
    again = compact(copy, target_rows=TARGET_ROWS)
    assert (again.parts_before, again.parts_after, again.manifests_after) == (0, 0, 1)
    assert {
        path.relative_to(copy).as_posix(): path.read_bytes() for path in copy.rglob("*.parquet")
    } == files


def test_ingest_after_compaction_knows_every_file(copy: Path, archive: list[Path]) -> None:
    before = row_digests(copy)
    compact(copy, target_rows=TARGET_ROWS)
    with ThreadPoolExecutor(1) as executor:
        summary = ingest(archive, copy, executor=executor)
    assert (summary.files, summary.already_ingested) == (0, len(archive))
    assert row_digests(copy) == before


_KILLER = """
import os, signal, sys
from pathlib import Path
from pipeline import compact, dataset

root, point, target = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])

def die():
    os.kill(os.getpid(), signal.SIGKILL)

if point.startswith("merge-"):  # at the start of the n-th merged file
    wanted, calls, merge = int(point.removeprefix("merge-")), [0], compact._merge_files
    def merge_or_die(*args):
        calls[0] += 1
        if calls[0] == wanted:
            die()
        return merge(*args)
    compact._merge_files = merge_or_die
elif point == "manifest-written":  # the new manifest is written, not yet renamed
    write = dataset.write_parquet
    def write_and_die(table, path):
        write(table, path)
        if path.parent.name == "files":
            die()
    dataset.write_parquet = write_and_die
elif point in ("committed", "cleaning"):  # just after the commit; after its first deletion
    commit, committed, unlink = dataset.commit_manifest, [False], Path.unlink
    def commit_then(*args, **kwargs):
        commit(*args, **kwargs)
        committed[0] = True
        if point == "committed":
            die()
    def unlink_then(self, missing_ok=False):
        unlink(self, missing_ok=missing_ok)
        if committed[0]:
            die()
    dataset.commit_manifest = commit_then
    Path.unlink = unlink_then
compact.compact(root, target_rows=target)
sys.exit(3)  # the kill point was never reached
"""


@pytest.mark.parametrize(
    "point",
    [
        pytest.param("merge-1", marks=pytest.mark.slow),
        "merge-4",
        pytest.param("manifest-written", marks=pytest.mark.slow),
        "committed",
        pytest.param("cleaning", marks=pytest.mark.slow),
    ],
)
def test_a_killed_compaction_leaves_a_dataset_that_reads_the_same(
    tmp_path: Path, copy: Path, point: str
) -> None:
    expected_rows = row_digests(copy)
    reference = tmp_path / "reference"
    shutil.copytree(copy, reference)
    compact(reference, target_rows=TARGET_ROWS)
    script = tmp_path / "killer.py"
    script.write_text(_KILLER)
    environment = {**os.environ, "PYTHONPATH": str(REPO)}
    process = subprocess.run(  # noqa: PLW1510 - the return code is what is tested
        [sys.executable, str(script), str(copy), point, str(TARGET_ROWS)],
        cwd=REPO,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert process.returncode == -signal.SIGKILL, process.stderr
    assert row_digests(copy) == expected_rows
    # The next run finishes the job: the same files as an uninterrupted compaction, no litter.
    compact(copy, target_rows=TARGET_ROWS)
    assert row_digests(copy) == expected_rows
    assert part_files(copy) == part_files(reference)
    assert referenced_parts(copy) == set(part_files(copy))
    assert not [path for path in copy.rglob("*") if dataset.is_temporary(path)]
    assert len(dataset.live_manifest_paths(copy)) == len(list((copy / "files").iterdir())) == 1


def test_compacting_what_is_not_a_dataset_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="not a hilo dataset"):
        compact(tmp_path)
