"""Helpers shared by the tests of the structured-format parsers (Merge, Boss, Microgaming,
iPoker XML; IGT JSON): parsing bytes or a corpus file, the MANIFEST rows of a site and the
counts they promise, ingest + audit findings."""

from __future__ import annotations

import csv
from pathlib import Path

import polars as pl

from parsers.base import ParseResult, SiteParser
from parsers.text import decode_lines
from pipeline.audit import PAYOUT_KINDS, run_audit
from pipeline.dataset import read_table
from pipeline.ingest import ingest
from tests.parsers.corpus import variant_counts
from tests.shared_data import CORPUS


def parse_bytes(parser: SiteParser, data: bytes, source: str = "test.xml") -> ParseResult:
    """Sniff and parse a whole document held in memory with ``parser``."""
    decoded = decode_lines(data)
    assert parser.sniff("\n".join(decoded.lines.head(40).to_list()))
    return parser.parse(decoded.lines, decoded.offsets, source)


def parse_corpus_file(parser: SiteParser, relative: str) -> ParseResult:
    """Sniff and parse the whole corpus file at ``relative`` (a MANIFEST path)."""
    path = CORPUS / relative
    return parse_bytes(parser, path.read_bytes(), str(path))


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


def check_corpus_counts(result: ParseResult, row: dict[str, str]) -> None:
    """A whole corpus file's parse agrees with its MANIFEST ``row``: every hand found, the
    Omaha Hi/Lo ones parsed, the other games skipped, none rejected."""
    assert result.rejected == 0, reasons(result)
    o8_hands = int(row["o8_hands"])
    assert result.parsed == o8_hands == variant_counts(row["variants"]).get("O8", 0)
    assert result.skipped == int(row["hands"]) - o8_hands
    assert result.hands_found == int(row["hands"])


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


def audit_site_corpus(site: str, out: Path) -> pl.DataFrame:
    """Ingest every corpus file of ``site`` into ``out`` and audit it: nothing is rejected and
    no payout is found wrong; the findings are returned for the site's own checks."""
    files, findings = ingest_and_audit([CORPUS / row["path"] for row in manifest_rows(site)], out)
    assert files["rejected"].sum() == 0
    assert findings.filter(pl.col("kind").is_in(PAYOUT_KINDS)).height == 0
    return findings
