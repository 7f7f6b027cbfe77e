"""Hostile XML through `pipeline.ingest.ingest`: billion laughs, external entities (file and
http), a 1 GiB attribute, a 12 MiB element, 100,000 nested elements.

Each must be refused quickly (a generous bound for a loaded machine) with bounded memory and a
clear reason in ``rejects``, while the good hands around it (or in the other file) are kept.
The hostile files are generated in ``tmp_path`` (the 1 GiB one is sparse); none is committed.
"""

from __future__ import annotations

import time
import tracemalloc
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import polars as pl
import pytest

from parsers.engine.xml_safe import MAX_DOCUMENT_CHARS, XmlRefused, read_document
from pipeline.dataset import read_table
from pipeline.ingest import IngestSummary, ingest

SECONDS = 10.0
PEAK_BYTES = 200 << 20

DESCRIPTION = '<description type="Omaha H/L8" stakes="Limit $0.25/$0.50"/>\n'
# A small hand-written Merge game: Ben (button, small blind) folds, Ann takes the blinds.
GAME = """<game id="9000-{n}" starttime="20111220050117" numholecards="4" gametype="35" seats="9" realmoney="true" data="20111220|Test (9000)|9000|9000-{n}|false">
  <players dealer="1">
    <player seat="0" nickname="Ann" balance="$10.00" dealtin="true" />
    <player seat="1" nickname="Ben" balance="$10.00" dealtin="true" />
  </players>
  <round id="BLINDS" sequence="1">
    <event sequence="1" type="SMALL_BLIND" timestamp="1324375277698" player="1" amount="0.10"/>
    <event sequence="2" type="BIG_BLIND" timestamp="1324375277995" player="0" amount="0.25"/>
  </round>
  <round id="PREFLOP" sequence="2">
    <event sequence="3" type="FOLD" timestamp="1324375285810" player="1"/>
  </round>
  <round id="END_OF_FOLDED_GAME" sequence="3">
    <winner amount="0.35" uncalled="false" potnumber="1" player="0" pottype="n"/>
  </round>
</game>
"""
HOSTILE_OPEN = (
    '<game id="6666-1" starttime="20111220050117" numholecards="4" gametype="35" seats="9"'
    ' realmoney="true" data="'
)


def games(first: int, count: int) -> str:
    return "".join(GAME.format(n=n) for n in range(first, first + count))


@contextmanager
def bounded() -> Iterator[Callable[[], tuple[float, int]]]:
    """Measure wall time and the peak of Python allocations (tracemalloc) of the block."""
    tracemalloc.start()
    start = time.perf_counter()
    result: list[tuple[float, int]] = []
    try:
        yield lambda: result[0]
    finally:
        elapsed = time.perf_counter() - start
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        result.append((elapsed, peak))


def run(paths: list[Path], out: Path) -> tuple[IngestSummary, float, int]:
    """Ingest in this process (threads), so tracemalloc sees every allocation."""
    with ThreadPoolExecutor(max_workers=1) as pool, bounded() as measured:
        summary = ingest([str(path) for path in paths], out, executor=pool)
    elapsed, peak = measured()
    return summary, elapsed, peak


def table(out: Path, name: str) -> pl.DataFrame:
    frame = pl.from_arrow(read_table(out, name))
    assert isinstance(frame, pl.DataFrame)
    return frame


def assert_quick(elapsed: float, peak: int) -> None:
    assert elapsed < SECONDS, f"took {elapsed:.1f} s"
    assert peak < PEAK_BYTES, f"peak Python allocations {peak / 2**20:.0f} MiB"


# -- the reader itself ---------------------------------------------------------------------------

LAUGHS = (
    '<!DOCTYPE lolz [<!ENTITY lol "lol">'
    + "".join(
        f'<!ENTITY lol{i} "{("&lol" + (str(i - 1) if i > 1 else "") + ";") * 10}">'
        for i in range(1, 10)
    )
    + "]>"
)


@pytest.mark.parametrize(
    ("document", "reason"),
    [
        (LAUGHS + "<a>&lol9;</a>", "unsafe XML: DTD (<!DOCTYPE>) refused"),
        (
            '<!DOCTYPE a [<!ENTITY x SYSTEM "file:///etc/passwd">]><a>&x;</a>',
            "unsafe XML: DTD (<!DOCTYPE>) refused",
        ),
        (
            '<!DOCTYPE a SYSTEM "http://127.0.0.1:9/evil.dtd"><a/>',
            "unsafe XML: DTD (<!DOCTYPE>) refused",
        ),
        ("<a>&lol9;</a>", "malformed XML: undefined entity: line 1, column 3"),
        ("<a>" * 100_000 + "</a>" * 100_000, "unsafe XML: elements nested deeper than 32"),
        ("<a b='" + "x" * MAX_DOCUMENT_CHARS + "'/>", "exceeds the 1,048,576-character limit"),
    ],
    ids=["billion-laughs", "xxe-file", "xxe-http", "undeclared-entity", "deep", "huge"],
)
def test_reader_refuses(document: str, reason: str) -> None:
    start = time.perf_counter()
    with pytest.raises(XmlRefused) as refused:
        read_document(document)
    assert reason in str(refused.value)
    assert time.perf_counter() - start < SECONDS


def test_reader_reads_a_declared_other_encoding_as_decoded_text() -> None:
    root = read_document('<?xml version="1.0" encoding="utf-16"?><a b="J\u00f6rg"/>')
    assert root.get("b") == "J\u00f6rg"


# -- through ingest ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("declaration", "reference"),
    [
        (LAUGHS, "&lol9;"),
        ('<!DOCTYPE x [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>', "&xxe;"),
        ('<!DOCTYPE x [<!ENTITY xxe SYSTEM "http://127.0.0.1:9/secret">]>', "&xxe;"),
    ],
    ids=["billion-laughs", "xxe-file", "xxe-http"],
)
def test_entities_are_refused_and_the_good_hands_kept(
    tmp_path: Path, declaration: str, reference: str
) -> None:
    hostile = GAME.format(n=50).replace('nickname="Ann"', f'nickname="{reference}"')
    source = tmp_path / "entities.xml"
    source.write_text(
        '<?xml version="1.0"?>\n'
        + declaration
        + "\n"
        + DESCRIPTION
        + games(1, 3)
        + hostile
        + games(4, 3)
    )
    summary, elapsed, peak = run([source], tmp_path / "ds")
    assert_quick(elapsed, peak)
    assert (summary.parsed, summary.rejected) == (6, 2)
    assert summary.hands_found == summary.parsed + summary.skipped + summary.rejected
    rejects = table(tmp_path / "ds", "rejects").sort("source_offset")
    assert rejects["reason"][0] == "unsafe XML: DTD or entity declaration refused"
    assert rejects["reason"][1].startswith("malformed XML: undefined entity: line 3")
    assert rejects["hand_id"].to_list() == [None, "9000-50"]
    players = table(tmp_path / "ds", "seats")["player"].to_list()
    assert set(players) == {"Ann", "Ben"}  # nothing was expanded or fetched
    for name in ("hands", "seats", "actions", "collections", "rejects"):
        frame = table(tmp_path / "ds", name)
        text = " ".join(str(value) for row in frame.iter_rows() for value in row)
        assert "root:x:0" not in text and "lollollol" not in text


def test_a_one_gigabyte_attribute_quarantines_its_game_and_nothing_else(tmp_path: Path) -> None:
    """A sparse file: 70 KB of good games, then an attribute of 1 GiB without a line break,
    then one more game. Ingest's line guard quarantines the game that line opens and reads
    past the line without keeping it; the games around it and the other file are parsed."""
    hostile = tmp_path / "huge-attribute.xml"
    head = (DESCRIPTION + games(1, 80) + HOSTILE_OPEN).encode()
    assert len(head) > 64 << 10  # the sniffed head holds no NUL byte
    with open(hostile, "wb") as handle:
        handle.write(head)
        handle.seek(len(head) + (1 << 30))
        handle.write(b'">\n</game>\n' + games(100, 1).encode())
    good = tmp_path / "good.xml"
    good.write_text(DESCRIPTION + games(200, 5))

    summary, elapsed, peak = run([hostile, good], tmp_path / "ds")
    assert_quick(elapsed, peak)
    files = table(tmp_path / "ds", "files").sort("path")
    assert files.select("path", "hands", "rejected", "error").rows() == [
        (str(good), 5, 0, None),
        (str(hostile), 81, 1, None),
    ]
    assert sorted(table(tmp_path / "ds", "hands")["hand_id"].to_list()) == sorted(
        [f"9000-{n}" for n in [*range(1, 81), 100, *range(200, 205)]]
    )
    rejects = table(tmp_path / "ds", "rejects")
    assert rejects.select("source_file", "source_offset", "reason").rows() == [
        (
            str(hostile),
            len(head) - len(HOSTILE_OPEN),
            f"line of more than 33554432 bytes at byte {len(head) - len(HOSTILE_OPEN)}:"
            " hand quarantined, the line skipped",
        )
    ]
    assert rejects["raw_text"][0].startswith(HOSTILE_OPEN)
    assert (summary.parsed, summary.rejected) == (86, 1)


def test_an_element_larger_than_a_block_is_quarantined_not_buffered(tmp_path: Path) -> None:
    """A 12 MiB attribute broken over lines (more than an 8 MiB block, far more than a hand):
    that game is rejected with its size as the reason and only its beginning kept; the games
    before and after it are parsed."""
    filler = ("y" * 65_535 + "\n") * 192
    source = tmp_path / "big-element.xml"
    source.write_text(
        DESCRIPTION + games(1, 2) + HOSTILE_OPEN + filler + '">\n</game>\n' + games(3, 2)
    )
    summary, elapsed, peak = run([source], tmp_path / "ds")
    assert_quick(elapsed, peak)
    assert (summary.parsed, summary.rejected) == (4, 1)
    rejects = table(tmp_path / "ds", "rejects")
    assert rejects["hand_id"].to_list() == ["6666-1"]
    assert rejects["reason"][0].startswith("unsafe XML: hand element of 12,")
    assert rejects["reason"][0].endswith("exceeds the 1,048,576-character limit")
    assert len(rejects["raw_text"][0]) <= 4000
    assert sorted(table(tmp_path / "ds", "hands")["hand_id"].to_list()) == [
        "9000-1",
        "9000-2",
        "9000-3",
        "9000-4",
    ]


def test_deep_nesting_is_refused_and_the_good_hands_kept(tmp_path: Path) -> None:
    nested = "<a>" * 100_000 + "</a>" * 100_000
    hostile = GAME.format(n=77).replace("  <players ", nested + "\n  <players ", 1)
    source = tmp_path / "deep.xml"
    source.write_text(DESCRIPTION + games(1, 2) + hostile + games(3, 2))
    summary, elapsed, peak = run([source], tmp_path / "ds")
    assert_quick(elapsed, peak)
    assert (summary.parsed, summary.rejected) == (4, 1)
    rejects = table(tmp_path / "ds", "rejects")
    assert rejects.select("hand_id", "reason").rows() == [
        ("9000-77", "unsafe XML: elements nested deeper than 32")
    ]
