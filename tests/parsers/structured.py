"""Helpers shared by the tests of the structured-format parsers (Merge, Boss, Microgaming,
iPoker XML; IGT JSON): parsing bytes, the MANIFEST rows of a site, ingest + audit findings."""

from __future__ import annotations

import csv
from pathlib import Path

import polars as pl

from parsers.base import ParseResult, SiteParser
from parsers.text import decode_lines
from pipeline.audit import run_audit
from pipeline.dataset import read_table
from pipeline.ingest import ingest
from tests.parsers.corpus import CORPUS


def parse_bytes(parser: SiteParser, data: bytes, source: str = "test.xml") -> ParseResult:
    """Sniff and parse a whole document held in memory with ``parser``."""
    decoded = decode_lines(data)
    assert parser.sniff("\n".join(decoded.lines.head(40).to_list()))
    return parser.parse(decoded.lines, decoded.offsets, source)


def manifest_rows(site: str) -> list[dict[str, str]]:
    """MANIFEST.tsv rows of the hand-history files of ``site`` (empty without the corpus)."""
    if not (CORPUS / "MANIFEST.tsv").exists():
        return []
    with open(CORPUS / "MANIFEST.tsv", newline="") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    seen: set[str] = set()
    chosen = []
    for row in rows:  # the manifest lists a file twice at times
        if (
            row["site"] == site
            and row["role"].startswith("hand_history")
            and row["path"] not in seen
        ):
            seen.add(row["path"])
            chosen.append(row)
    return chosen


def reasons(result: ParseResult) -> list[tuple[str | None, str]]:
    rejects = pl.from_arrow(result.tables["rejects"])
    assert isinstance(rejects, pl.DataFrame)
    return list(zip(rejects["hand_id"].to_list(), rejects["reason"].to_list(), strict=True))


def ingest_and_audit(paths: list[Path], out: Path) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Ingest ``paths`` into ``out`` and audit it: (files manifest, discrepancies)."""
    ingest([str(path) for path in paths], out, workers=1)
    run_audit(out)
    files = pl.from_arrow(read_table(out, "files"))
    found = sorted((out / "audit" / "discrepancies").rglob("*.parquet"))
    findings = (
        pl.concat([pl.read_parquet(path) for path in found], how="diagonal_relaxed")
        if found
        else pl.DataFrame(schema={"hand_id": pl.String, "kind": pl.String})
    )
    assert isinstance(files, pl.DataFrame)
    return files, findings
