"""Hostile player, table and file names through the real parser, every table, DuckDB, the CLI and
the report: stored exactly, never executed, never shown raw on a terminal or in a page."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from pipeline import dataset
from pipeline.cli import shown
from tests.conftest import run_hilo
from tests.test_reliability_duplicates import corpus_hands, needs_source

pytestmark = needs_source

HOSTILE_PLAYERS = [
    "x'); DROP TABLE hands;--",
    '"; select 1; --',
    "$(touch /tmp/hilo-pwned)`id`",
    "<script>alert(1)</script>",
    "\x1b[2J\x1b[31mred\x07",
    "\u202eexe.txt",
    "L" * 300,
]
HOSTILE_TABLE = "T'\"<b>\u202e;$(id)"
HOSTILE_FILE = "hh '; DROP TABLE files;-- $(id) <i>.txt"


def with_names(hand: bytes, players: list[str]) -> tuple[bytes, list[str]]:
    """Rename the hand's first seated players and its table; return the text and the names."""
    text = hand.decode("utf-8")
    seated = re.findall(r"^Seat \d+: (.+?) \(", text, re.MULTILINE)
    renamed = []
    for old, new in zip(dict.fromkeys(seated), players, strict=False):
        text = re.sub(rf"(?<![\w]){re.escape(old)}(?![\w])", lambda _, new=new: new, text)
        renamed.append(new)
    text = re.sub(
        r"^Table '([^']*)'", lambda _: f"Table '{HOSTILE_TABLE}'", text, count=1, flags=re.MULTILINE
    )
    return text.encode("utf-8"), renamed


@pytest.fixture(scope="module")
def hostile_dataset(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, set[str]]:
    folder = tmp_path_factory.mktemp("hostile")
    inputs = folder / "inputs"
    inputs.mkdir()
    pieces, names = [], set()
    for number, hand in enumerate(corpus_hands()[:8]):
        start = number % len(HOSTILE_PLAYERS)
        rotated = HOSTILE_PLAYERS[start:] + HOSTILE_PLAYERS[:start]  # distinct names per hand
        text, renamed = with_names(hand, rotated)
        pieces.append(text)
        names.update(renamed)
    (inputs / HOSTILE_FILE).write_bytes(b"".join(pieces))
    root = folder / "dataset"
    result = run_hilo(["ingest", str(inputs), "--out", str(root), "--workers", "1"])
    assert result.returncode == 0, result.stderr
    assert "hands parsed 8 " in result.stdout, result.stdout
    return root, names


def test_names_are_stored_exactly(hostile_dataset: tuple[Path, set[str]]) -> None:
    root, names = hostile_dataset
    players = set(dataset.read_table(root, "seats").column("player").to_pylist())
    assert names <= players and set(HOSTILE_PLAYERS) <= players
    actors = set(dataset.read_table(root, "actions").column("player").to_pylist())
    assert actors & set(HOSTILE_PLAYERS)
    hands = dataset.read_table(root, "hands")
    assert set(hands.column("table_name").to_pylist()) == {HOSTILE_TABLE}
    assert {Path(path).name for path in hands.column("source_file").to_pylist()} == {HOSTILE_FILE}


def test_stats_for_hostile_names_through_the_cli(hostile_dataset: tuple[Path, set[str]]) -> None:
    root, _ = hostile_dataset
    selection = [argument for name in HOSTILE_PLAYERS for argument in ("--player", name)]
    result = run_hilo(["stats", str(root), *selection, "--format", "json"])
    assert result.returncode == 0, result.stderr
    table = run_hilo(["stats", str(root), *selection])
    assert table.returncode == 0, table.stderr
    for name in HOSTILE_PLAYERS:
        assert f'"player":{_json(name)}' in result.stdout, name
        assert shown(name)[:40] in table.stdout, name
    # No raw control or bidirectional character reaches the terminal.
    assert not any(not char.isprintable() for char in table.stdout.replace("\n", ""))


def test_duckdb_tables_survive_and_queries_take_names_as_values(
    hostile_dataset: tuple[Path, set[str]],
) -> None:
    root, _ = hostile_dataset
    from pipeline.stats import open_database

    connection = open_database(root)
    try:
        for name in HOSTILE_PLAYERS:
            count = connection.execute(
                "select count(*) from seats where player = ?", [name]
            ).fetchone()
            assert count is not None and count[0] >= 1, name
        tables = {
            row[0]
            for row in connection.execute("select table_name from duckdb_tables()").fetchall()
        }
        views = {
            row[0] for row in connection.execute("select view_name from duckdb_views()").fetchall()
        }
        assert {"hands", "seats", "files"} <= views | tables
    finally:
        connection.close()
    assert not Path("/tmp/hilo-pwned").exists()
    listing = run_hilo(["query", str(root), "select distinct player from seats order by 1"])
    assert listing.returncode == 0
    assert "\x1b" not in listing.stdout and "\u202e" not in listing.stdout


def test_report_escapes_names(hostile_dataset: tuple[Path, set[str]], tmp_path: Path) -> None:
    root, _ = hostile_dataset
    out = tmp_path / "report.html"
    arguments = ["report", str(root), "--out", str(out)]
    for name in HOSTILE_PLAYERS[:4]:
        arguments += ["--player", name]
    result = run_hilo(arguments)
    assert result.returncode == 0, result.stderr
    page = out.read_text(encoding="utf-8")
    assert "<script>alert(1)</script>" not in page
    assert "<b>\u202e" not in page
    assert html.escape("<script>alert(1)</script>") in page or "\\u003cscript" in page


def _json(name: str) -> str:
    import json

    return (
        json.dumps(name, ensure_ascii=False).replace("\x1b", "\\u001b").replace("\x07", "\\u0007")
    )
