"""Unrecognised lines without money or cards end in `notes`, end to end.

Ingest stores them with the commit protocol of the other hand tables, counts them on the
summary line, lists their most frequent shapes on standard error, and the report shows the
same list; a second ingest of the same file adds nothing.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
from typer.testing import CliRunner

from pipeline import dataset
from pipeline.cli import app
from tests.parsers.test_real_forms import HOME_GAME

CHAT = "<b>gamma</b> has 15 seconds left to act"


def archive(folder: Path) -> Path:
    """Three hands: two with the same time-bank notice (other names), one with a banner."""
    hands = [
        HOME_GAME,
        HOME_GAME.replace("#99631756108", "#99631756110").replace("gamma", "<b>gamma</b>"),
        HOME_GAME.replace("#99631756108", "#99631756111").replace(
            "gamma has 15 seconds left to act", "Happy hour is active at this table"
        ),
    ]
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "home.txt"
    path.write_text("\n\n".join(hands), encoding="utf-8")
    return path


def test_ingest_stores_counts_and_lists_note_shapes(tmp_path: Path) -> None:
    source = archive(tmp_path / "in")
    out = tmp_path / "dataset"
    result = CliRunner().invoke(app, ["ingest", str(source), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "hands parsed 3 · skipped 0 · rejected 0 · duplicates 0 · notes 3" in result.stdout
    assert "3 unrecognised lines without money or cards kept in notes" in result.stderr
    shapes = [line.split(maxsplit=1) for line in result.stderr.splitlines()[1:3]]
    assert shapes == [
        ["2", "<player> has <n> seconds left to act"],
        ["1", "Happy hour is active at this table"],
    ]

    notes = pl.from_arrow(dataset.read_table(out, "notes"))
    assert isinstance(notes, pl.DataFrame)
    assert sorted(notes.select("hand_id", "line_number", "text").rows()) == [
        ("99631756108", 17, "gamma has 15 seconds left to act"),
        ("99631756110", 17, CHAT),
        ("99631756111", 17, "Happy hour is active at this table"),
    ]
    data = source.read_bytes()
    for offset, text in notes.select("source_offset", "text").rows():
        assert data[offset:].startswith(text.encode())
    # Notes go with their hand's month, like the other hand tables.
    assert {part.parent.name for part in out.glob("notes/site=pokerstars/*/part-*.parquet")} == {
        "month=2013-06"
    }

    again = CliRunner().invoke(app, ["ingest", str(source), "--out", str(out)])
    assert "· notes 0" in again.stdout
    assert dataset.read_table(out, "notes").num_rows == 3


def test_report_lists_the_note_shapes_escaped(tmp_path: Path) -> None:
    source = archive(tmp_path / "in")
    out = tmp_path / "dataset"
    assert CliRunner().invoke(app, ["ingest", str(source), "--out", str(out)]).exit_code == 0
    page = tmp_path / "report.html"
    result = CliRunner().invoke(app, ["report", str(out), "--out", str(page)])
    assert result.exit_code == 0, result.output
    html = page.read_text(encoding="utf-8")
    section = html[html.index('id="notes"') :]
    assert "&lt;player&gt; has &lt;n&gt; seconds left to act" in section
    assert "&lt;b&gt;gamma&lt;/b&gt; has 15 seconds left to act" in section
    assert "<b>gamma</b>" not in html
