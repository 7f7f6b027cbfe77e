"""Where the shared test material is: the conformance corpus and the reference data.

Both are kept beside the repository, not in it: ``../shared/corpus`` (real hand histories and
their ``MANIFEST.tsv``) and ``../shared/reference`` (evidence tables drawn from real hands).
``HILO_SHARED=/path/to/shared`` names another folder holding the two. This module is the one
place that knows the path: every test and benchmark that reads the material takes it from here.
A test that needs it is skipped when it is absent, with a reason naming the path it looked at
(``pytest -rs`` lists the reasons).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

__all__ = [
    "CORPUS",
    "REFERENCE",
    "SHARED",
    "corpus_or_skip",
    "has_corpus",
    "missing",
    "needs_corpus",
    "needs_reference",
    "needs_shared",
]

REPOSITORY = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("HILO_SHARED") or REPOSITORY.parent / "shared")
CORPUS = SHARED / "corpus"
REFERENCE = SHARED / "reference"


def missing(path: Path) -> str:
    """Why a test that reads ``path`` is skipped: the path, and where the material lives."""
    return (
        f"shared test material not found at {path}: the corpus and reference data live beside"
        f" the repository ({REPOSITORY.parent / 'shared'}); HILO_SHARED=/path/to/shared names"
        " another folder holding them"
    )


def has_corpus() -> bool:
    """Whether the corpus is there (its ``MANIFEST.tsv``)."""
    return (CORPUS / "MANIFEST.tsv").is_file()


def needs_shared(path: Path) -> pytest.MarkDecorator:
    """Skip the test, with `missing`'s reason, unless ``path`` exists."""
    return pytest.mark.skipif(not path.exists(), reason=missing(path))


needs_corpus = pytest.mark.skipif(not has_corpus(), reason=missing(CORPUS / "MANIFEST.tsv"))
needs_reference = needs_shared(REFERENCE)


def corpus_or_skip() -> Path:
    """The corpus; skips the calling test (or fixture) when it is absent."""
    if not has_corpus():
        pytest.skip(missing(CORPUS / "MANIFEST.tsv"))
    return CORPUS
