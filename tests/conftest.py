"""Shared fixtures: the real corpus (found by `tests.shared_data`), and dataset helpers."""

from __future__ import annotations

import csv
import os
import subprocess
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from tests.shared_data import corpus_or_skip

REPOSITORY = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    """Return the shared corpus (`tests.shared_data.CORPUS`); skip, saying where, when absent."""
    return corpus_or_skip()


@pytest.fixture(scope="session")
def corpus_manifest(corpus_dir: Path) -> dict[str, dict[str, str]]:
    """Rows of the corpus's MANIFEST.tsv by path relative to the corpus."""
    with open(corpus_dir / "MANIFEST.tsv", newline="", encoding="utf-8") as handle:
        return {row["path"]: row for row in csv.DictReader(handle, delimiter="\t")}


# A synthetic unit-test hand reusing a real hand's number (Stars/tour/PL-Courcheval-HL-...txt,
# #170983530791) with other seats and actions: ingested beside it, the two are conflicting
# copies, quarantined or kept by which task commits first. Read on its own by the parser tests.
CONFLICTING_FIXTURE = "Stars/fixture/courchevel.txt"


@pytest.fixture(scope="session")
def stars_files(corpus_dir: Path) -> list[Path]:
    """Return the corpus's PokerStars hand-history files (``Stars/**/*.txt``, ``other/Stars-*``),
    but the synthetic fixture whose hand number a real hand holds (`CONFLICTING_FIXTURE`)."""
    from bench.bench_ingest import stars_corpus_files

    files = [
        path
        for path in stars_corpus_files(corpus_dir)
        if path != corpus_dir / CONFLICTING_FIXTURE
    ]
    if not files:
        pytest.skip(f"no PokerStars files in {corpus_dir}")
    return files


def o8_hands(manifest: dict[str, dict[str, str]], corpus: Path, path: Path) -> int:
    """Return the number of Omaha Hi/Lo hands the corpus manifest gives for ``path``."""
    return int(manifest[path.relative_to(corpus).as_posix()]["o8_hands"])


def run_hilo(
    arguments: Sequence[str], cwd: Path = REPOSITORY, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    """Run ``python -m pipeline.cli ARGUMENTS`` in a child process (the repository importable)."""
    environment = {**os.environ, "PYTHONPATH": str(REPOSITORY)}
    return subprocess.run(
        [sys.executable, "-m", "pipeline.cli", *arguments],
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def _hashable(value: object) -> object:
    if isinstance(value, list):
        return tuple(_hashable(item) for item in value)
    if isinstance(value, dict):
        return tuple(sorted((key, _hashable(item)) for key, item in value.items()))
    return value


def table_rows(root: Path, table: str, drop: Sequence[str] = ()) -> Counter[tuple[object, ...]]:
    """Return the committed rows of ``table`` at ``root`` as a multiset of tuples."""
    from pipeline.dataset import read_table

    rows = read_table(root, table)
    rows = rows.drop_columns([name for name in drop if name in rows.column_names])
    return Counter(tuple(_hashable(value) for value in row.values()) for row in rows.to_pylist())


@pytest.fixture
def dataset_rows() -> Callable[..., Counter[tuple[object, ...]]]:
    """``dataset_rows(root, table, drop=())``: see :func:`table_rows`."""
    return table_rows
