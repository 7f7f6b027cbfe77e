"""The same hand in two files or archives is stored once; two versions of one hand are quarantined.

Hands come from a real PokerStars corpus file, cut into single hands and written into
overlapping files. The expected dataset is computed independently: the union of the hands,
ingested from one file with no overlap.
"""

from __future__ import annotations

import gzip
import itertools
import re
import zipfile
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench.bench_ingest import HAND_ID, _normalised_text
from pipeline import dataset, duplicates
from pipeline.ingest import ingest
from tests.conftest import run_hilo
from tests.shared_data import CORPUS, needs_shared

SOURCE = CORPUS / "Stars" / "tour" / "NLO8-USD-STT-201109.Knockout.sample.txt"
HAND_TABLES = ("hands", "seats", "actions", "collections", "showdowns")

needs_source = needs_shared(SOURCE)
pytestmark = needs_source


def corpus_hands() -> list[bytes]:
    """The hands of the corpus file, one bytes string each (LF line ends)."""
    text = _normalised_text(SOURCE)
    starts = [match.start() for match in HAND_ID.finditer(text)] + [len(text)]
    return [text[begin:end] for begin, end in itertools.pairwise(starts)]


def hand_id(hand: bytes) -> str:
    match = HAND_ID.search(hand)
    assert match is not None
    return match.group(2).decode()


def content(root: Path, table: str) -> Counter[str]:
    """Rows of ``table`` without where they came from, as a multiset."""
    rows = dataset.read_table(root, table)
    rows = rows.drop_columns(
        [name for name in ("source_file", "source_offset") if name in rows.column_names]
    )
    return Counter(str(row) for row in rows.to_pylist())


def assert_same_hands(actual: Path, expected: Path) -> None:
    for table in HAND_TABLES:
        assert content(actual, table) == content(expected, table), table


def accounting(root: Path) -> tuple[int, int, int, int]:
    files = dataset.read_manifest(root)
    return tuple(
        sum(files.column(name).to_pylist())
        for name in ("hands", "skipped", "rejected", "duplicates")
    )  # type: ignore[return-value]


def altered(hand: bytes) -> bytes:
    """The same hand id with one stack changed: a different hand under the same number."""
    changed, count = re.subn(
        rb"\((\d+) in chips", lambda m: b"(%d in chips" % (int(m.group(1)) + 1), hand, count=1
    )
    assert count == 1
    return changed


@pytest.fixture(scope="module")
def hands() -> list[bytes]:
    return corpus_hands()


@pytest.fixture(scope="module")
def union_dataset(hands: list[bytes], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The first 50 hands ingested from one file: what every overlapping split must give."""
    folder = tmp_path_factory.mktemp("union")
    (folder / "in").mkdir()
    (folder / "in" / "all.txt").write_bytes(b"".join(hands[:50]))
    ingest([folder / "in"], folder / "dataset", workers=1)
    return folder / "dataset"


def test_overlapping_files_in_one_run_store_each_hand_once(
    hands: list[bytes], union_dataset: Path, tmp_path: Path
) -> None:
    inputs = tmp_path / "in"
    inputs.mkdir()
    # b.txt starts with the hand a.txt ends with: the two copies are adjacent in the part.
    (inputs / "a.txt").write_bytes(b"".join(hands[:30]))
    (inputs / "b.txt").write_bytes(b"".join(hands[29:50]))
    (inputs / "c.txt").write_bytes(b"".join(hands[10:20]))
    summary = ingest([inputs], tmp_path / "dataset", workers=1)
    assert (summary.parsed, summary.duplicates, summary.rejected) == (50, 11, 0)
    assert summary.hands_found == 30 + 21 + 10
    assert_same_hands(tmp_path / "dataset", union_dataset)
    rows = {row["path"]: row for row in dataset.read_manifest(tmp_path / "dataset").to_pylist()}
    assert [rows[str(inputs / name)]["duplicates"] for name in ("a.txt", "b.txt", "c.txt")] == [
        0,
        1,
        10,
    ]
    assert accounting(tmp_path / "dataset") == (50, 0, 0, 11)


def test_overlap_across_runs_and_archives_is_stored_once(
    hands: list[bytes], union_dataset: Path, tmp_path: Path
) -> None:
    first, second = tmp_path / "first.zip", tmp_path / "second.txt.gz"
    with zipfile.ZipFile(first, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("session/a.txt", b"".join(hands[:35]))
    second.write_bytes(gzip.compress(b"".join(hands[25:50])))
    root = tmp_path / "dataset"
    one = ingest([first], root, workers=1)
    two = ingest([second], root, workers=1)
    assert (one.parsed, one.duplicates) == (35, 0)
    assert (two.parsed, two.duplicates, two.rejected) == (15, 10, 0)
    assert_same_hands(root, union_dataset)
    # The stored copy is the first one committed.
    stored = dataset.read_table(root, "hands").to_pylist()
    sources = {row["hand_id"]: row["source_file"] for row in stored}
    assert sources[hand_id(hands[30])] == f"{first}!session/a.txt"
    # A third run of the same inputs adds nothing (whole-file copies, by SHA-256).
    again = ingest([first, second], root, workers=1)
    assert (again.parsed, again.duplicates, again.already_ingested) == (0, 0, 2)


def test_conflicting_copy_across_runs_is_quarantined_with_both_sources(
    hands: list[bytes], tmp_path: Path
) -> None:
    (tmp_path / "a.txt").write_bytes(b"".join(hands[:10]))
    changed = [*hands[5:8], altered(hands[8]), hands[9]]
    (tmp_path / "b.txt").write_bytes(b"".join(changed))
    root = tmp_path / "dataset"
    ingest([tmp_path / "a.txt"], root, workers=1)
    summary = ingest([tmp_path / "b.txt"], root, workers=1)
    assert (summary.parsed, summary.duplicates, summary.rejected) == (0, 4, 1)
    rejects = dataset.read_table(root, "rejects").to_pylist()
    assert len(rejects) == 1
    reject = rejects[0]
    assert reject["hand_id"] == hand_id(hands[8])
    assert reject["reason"].startswith(duplicates.CONFLICT)
    assert (
        str(tmp_path / "a.txt") in reject["reason"] and str(tmp_path / "b.txt") in reject["reason"]
    )
    assert reject["source_file"] == str(tmp_path / "b.txt")
    # The first version stays, unchanged.
    first_only = tmp_path / "first-only"
    ingest([tmp_path / "a.txt"], first_only, workers=1)
    assert_same_hands(root, first_only)


def test_conflicting_copies_in_one_commit_are_all_quarantined(
    hands: list[bytes], tmp_path: Path
) -> None:
    inputs = tmp_path / "in"
    inputs.mkdir()
    (inputs / "a.txt").write_bytes(b"".join(hands[:6]))
    (inputs / "b.txt").write_bytes(altered(hands[5]) + hands[6])
    summary = ingest([inputs], tmp_path / "dataset", workers=1)
    # Neither version of hand 5 can be trusted over the other: both are quarantined.
    assert (summary.parsed, summary.duplicates, summary.rejected) == (6, 0, 2)
    stored = {
        row["hand_id"] for row in dataset.read_table(tmp_path / "dataset", "hands").to_pylist()
    }
    assert hand_id(hands[5]) not in stored and len(stored) == 6
    for table in ("seats", "actions"):
        ids = set(dataset.read_table(tmp_path / "dataset", table).column("hand_id").to_pylist())
        assert hand_id(hands[5]) not in ids, table
    reasons = [
        row["reason"] for row in dataset.read_table(tmp_path / "dataset", "rejects").to_pylist()
    ]
    assert len(reasons) == 2 and all(
        str(inputs / "a.txt") in r and str(inputs / "b.txt") in r for r in reasons
    )


def test_key_index_is_committed_with_the_manifest(hands: list[bytes], tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_bytes(b"".join(hands[:12]))
    root = tmp_path / "dataset"
    ingest([tmp_path / "a.txt"], root, workers=1)
    index_parts = sorted((root / duplicates.INDEX).glob("part-*.parquet"))
    assert len(index_parts) == 1
    named = {
        part for parts in dataset.read_manifest(root).column("parts").to_pylist() for part in parts
    }
    assert f"{duplicates.INDEX}/{index_parts[0].name}" in named
    import pyarrow.parquet as pq

    index = pq.read_table(index_parts[0]).to_pylist()
    assert sorted(row["hand_id"] for row in index) == sorted(hand_id(hand) for hand in hands[:12])
    keys = duplicates.hand_keys([row["site"] for row in index], [row["hand_id"] for row in index])
    assert [row["key"] for row in index] == keys.tolist()
    # An index part no manifest names (a killed run's) is removed by the next run.
    orphan = root / duplicates.INDEX / "part-0123456789abcdef0123.parquet"
    orphan.write_bytes(index_parts[0].read_bytes())
    ingest([tmp_path / "a.txt"], root, workers=1)
    assert not orphan.exists() and index_parts[0].exists()


def test_cli_summary_counts_duplicates(hands: list[bytes], tmp_path: Path) -> None:
    inputs = tmp_path / "in"
    inputs.mkdir()
    (inputs / "a.txt").write_bytes(b"".join(hands[:8]))
    (inputs / "b.txt").write_bytes(b"".join(hands[4:10]))
    result = run_hilo(["ingest", str(inputs), "--out", str(tmp_path / "dataset"), "--workers", "1"])
    assert result.returncode == 0, result.stderr
    assert "files 2 · hands parsed 10 · skipped 0 · rejected 0 · duplicates 4 · notes 0" in result.stdout


@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    pieces=st.lists(st.tuples(st.integers(0, 24), st.integers(1, 10)), min_size=1, max_size=5),
    runs=st.integers(1, 3),
    batch_kb=st.sampled_from([4, 64]),
)
def test_any_overlapping_split_stores_the_union(
    hands: list[bytes],
    tmp_path_factory: pytest.TempPathFactory,
    pieces: list[tuple[int, int]],
    runs: int,
    batch_kb: int,
) -> None:
    """Random overlapping slices, ingested over 1-3 runs in small or large batches."""
    folder = tmp_path_factory.mktemp("split")
    slices = [hands[start : start + length] for start, length in pieces]
    files = []
    for number, chosen in enumerate(slices):
        path = folder / f"slice-{number}.txt"
        path.write_bytes(b"".join(chosen))
        files.append(path)
    root = folder / "dataset"
    found = duplicates_seen = parsed = 0
    for run in range(runs):
        summary = ingest(files[run::runs], root, workers=1, batch_bytes=batch_kb << 10)
        found += summary.hands_found
        duplicates_seen += summary.duplicates
        parsed += summary.parsed
    distinct = {hand_id(hand) for chosen in slices for hand in chosen}
    stored = dataset.read_table(root, "hands").column("hand_id").to_pylist()
    assert sorted(stored) == sorted(distinct)
    # Nothing lost: every hand found is stored once or counted as a duplicate.
    # Byte-identical files are whole-file copies (already ingested), not duplicate hands.
    contents = {b"".join(chosen): len(chosen) for chosen in slices}
    copies = sum(contents.values())
    assert (found, parsed, duplicates_seen) == (copies, len(distinct), copies - len(distinct))
    assert accounting(root) == (len(distinct), 0, 0, copies - len(distinct))


def test_duplicates_are_found_after_compaction(
    hands: list[bytes], union_dataset: Path, tmp_path: Path
) -> None:
    """``hilo compact`` merges parts and rewrites the manifest: the key index must survive it."""
    from pipeline.compact import compact

    root = tmp_path / "dataset"
    for number, (start, end) in enumerate([(0, 15), (15, 30), (30, 40)]):
        (tmp_path / f"part{number}.txt").write_bytes(b"".join(hands[start:end]))
        ingest([tmp_path / f"part{number}.txt"], root, workers=1)
    compact(root)
    named = {
        part for parts in dataset.read_manifest(root).column("parts").to_pylist() for part in parts
    }
    assert {part for part in named if part.startswith(f"{duplicates.INDEX}/")}
    (tmp_path / "overlap.txt").write_bytes(b"".join(hands[10:50]))
    (tmp_path / "changed.txt").write_bytes(altered(hands[3]))
    summary = ingest([tmp_path / "overlap.txt", tmp_path / "changed.txt"], root, workers=1)
    assert (summary.parsed, summary.duplicates, summary.rejected) == (10, 30, 1)
    assert_same_hands(root, union_dataset)


@settings(deadline=None, max_examples=60)
@given(
    batches=st.lists(
        st.lists(st.integers(-(2**63), 2**63 - 1) | st.integers(-5, 5), max_size=12),
        max_size=40,
    )
)
def test_the_key_index_finds_exactly_the_keys_added(batches: list[list[int]]) -> None:
    index = duplicates._SortedKeys(np.zeros(0, dtype=np.int64))
    added: set[int] = set()
    for batch in batches:  # more batches than chunks kept apart: the merge runs too
        keys = np.array(batch, dtype=np.int64)
        assert index.contains(keys).tolist() == [key in added for key in batch]
        index.add(keys)
        added.update(batch)
    probe = np.array(sorted(added) + [7, -7], dtype=np.int64)
    assert index.contains(probe).tolist() == [int(key) in added for key in probe]


@settings(deadline=None, max_examples=100)
@given(
    stored=st.lists(st.integers(-5, 5), max_size=8),
    task=st.lists(st.integers(-5, 5) | st.integers(-(2**63), 2**63 - 1), max_size=20),
)
def test_a_tasks_repeated_keys_are_the_stored_ones_and_those_it_holds_twice(
    stored: list[int], task: list[int]
) -> None:
    guard = object.__new__(duplicates.DuplicateGuard)  # only its key index is read
    guard._keys = duplicates._SortedKeys(np.array(stored, dtype=np.int64))
    found_stored, repeated = guard._repeated_keys(np.array(task, dtype=np.int64))
    twice = {key for key, count in Counter(task).items() if count > 1}
    assert found_stored == set(task) & set(stored)
    assert repeated == found_stored | twice
