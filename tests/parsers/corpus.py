"""Helpers shared by the per-site parser tests: the conformance corpus and table access."""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl
import pytest

from parsers.base import ParseResult
from parsers.columns import card_code

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus"
needs_corpus = pytest.mark.skipif(
    not (CORPUS / "MANIFEST.tsv").exists(), reason=f"conformance corpus not found at {CORPUS}"
)


def cards(text: str) -> list[int]:
    """``"Ah Kd"`` → card codes."""
    return [card_code(token) for token in text.split()]


def frames(result: ParseResult) -> dict[str, pl.DataFrame]:
    """A parse result's tables as polars frames."""
    return {name: pl.from_arrow(table) for name, table in result.tables.items()}  # type: ignore[misc]


def variant_counts(variants: str) -> dict[str, int]:
    """MANIFEST's ``variants`` column (``O8:51,Razz:3``) as a dict."""
    return {name: int(count) for name, count in re.findall(r"([\w-]+):(\d+)", variants)}
