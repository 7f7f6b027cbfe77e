"""iPoker XML parser on hand-written documents (no real iPoker Omaha Hi/Lo export exists).

The documents follow site-formats.md ("iPoker": suit-first cards, ``win=`` per player, cp1252
bytes under ``encoding="utf-8"``) and the layout of fpdb's public iPoker samples: a session
``<general>`` then games, two of them on one line. Golden values are worked out by hand: in
game 1001 (board 3c 4d Kh 8s Kc) Alice's trip kings take the high half, Hero's 8-4-3-2-A the
low; 1.90 put in, 1.81 paid (0.91 + 0.90, the odd cent to the high), so 0.09 rake.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import polars as pl

import parsers
from parsers.ipoker import IPokerParser, ipoker_amount, ipoker_card
from pipeline.audit import PAYOUT_KINDS
from pipeline.dataset import read_table
from pipeline.ingest import ingest
from tests.parsers.corpus import cards, frames
from tests.parsers.structured import ingest_and_audit, parse_bytes, reasons

SESSION = """<?xml version="1.0" encoding="utf-8"?><session sessioncode="5550001">
  <general>
    <mode>real</mode>
    <gametype>Omaha Hi-Lo PL $0.05/$0.10</gametype>
    <tablename>Testville</tablename>
    <duration>00:05</duration>
    <gamecount>2</gamecount>
    <startdate>2014-05-01 20:00:00</startdate>
    <currency>USD</currency>
    <nickname>Hero</nickname>
  </general>
  <game gamecode="1001">
    <general>
      <startdate>2014-05-01 20:00:05</startdate>
      <players>
        <player seat="1" name="Alice" chips="$10" dealer="1" win="$0.91" bet="$0.80" /><player seat="2" name="Bob" chips="$8" dealer="0" win="$0" bet="$0.30" /><player seat="3" name="Hero" chips="$5" dealer="0" win="$0.90" bet="$0.80" /><player seat="4" name="" chips="$0" dealer="0" win="$0" bet="$0" />
      </players>
    </general>
    <round no="0">
      <action no="1" player="Bob" type="1" sum="$0.05" cards="[cards]"/><action no="2" player="Hero" type="2" sum="$0.10" cards="[cards]"/>
    </round>
    <round no="1">
      <cards type="Pocket" player="Alice">DK HQ C7 S6</cards><action no="3" player="Alice" type="23" sum="$0.30" cards=""/><cards type="Pocket" player="Bob">X X X X</cards><action no="4" player="Bob" type="3" sum="$0.25" cards=""/><cards type="Pocket" player="Hero">SA S2 H9 D9</cards><action no="5" player="Hero" type="3" sum="$0.20" cards=""/>
    </round>
    <round no="2">
      <cards type="Flop" player="">C3 D4 HK</cards><action no="7" player="Hero" type="5" sum="$0.50" cards=""/><action no="6" player="Bob" type="4" sum="$0" cards=""/><action no="9" player="Bob" type="0" sum="$0" cards=""/><action no="8" player="Alice" type="3" sum="$0.50" cards=""/>
    </round>
    <round no="3">
      <cards type="Turn" player="">S8</cards><action no="10" player="Hero" type="4" sum="$0" cards=""/><action no="11" player="Alice" type="4" sum="$0" cards=""/>
    </round>
    <round no="4">
      <cards type="River" player="">CK</cards><action no="12" player="Hero" type="4" sum="$0" cards=""/><action no="13" player="Alice" type="4" sum="$0" cards=""/>
    </round>
  </game><game gamecode="1002">
    <general>
      <startdate>2014-05-01 20:01:10</startdate>
      <players>
        <player seat="1" name="Alice" chips="$10.11" dealer="0" win="$0" bet="$0.10" /><player seat="2" name="Bob" chips="$7.70" dealer="1" win="$0" bet="$0" /><player seat="3" name="Hero" chips="$5.10" dealer="0" win="$0.20" bet="$0.30" />
      </players>
    </general>
    <round no="0">
      <action no="1" player="Hero" type="1" sum="$0.05" cards="[cards]"/><action no="2" player="Alice" type="2" sum="$0.10" cards="[cards]"/>
    </round>
    <round no="1">
      <cards type="Pocket" player="Bob">X X X X</cards><action no="3" player="Bob" type="0" sum="$0" cards=""/><cards type="Pocket" player="Hero">HA H3 D10 C10</cards><action no="4" player="Hero" type="3" sum="$0.05" cards=""/><cards type="Pocket" player="Alice">X X X X</cards><action no="5" player="Alice" type="4" sum="$0" cards=""/>
    </round>
    <round no="2">
      <cards type="Flop" player="">C2 C5 C9</cards><action no="6" player="Hero" type="5" sum="$0.20" cards=""/><action no="7" player="Alice" type="0" sum="$0" cards=""/>
    </round>
  </game>
</session>
"""


def test_cards_and_amounts() -> None:
    assert [ipoker_card(token) for token in ("DK", "C10", "SA", "H2", "X", "")] == [
        *cards("Kd Tc As 2h"),
        None,
        None,
    ]
    assert [ipoker_amount(text, 100, "t") for text in ("€0.79", "$4.98", "0,05", "$1,000.50")] == [
        79,
        498,
        5,
        100050,
    ]
    assert ipoker_amount("1 500", 1, "t") == 1500


def test_registered_and_golden_split_pot() -> None:
    result = parsers.parse_bytes(SESSION.encode(), "session.xml")
    assert result is not None
    assert (result.hands_found, result.parsed, result.rejected) == (2, 2, 0), reasons(result)
    tables = frames(result)
    hand = tables["hands"].filter(pl.col("hand_id") == "1001").row(0, named=True)
    assert (hand["site"], hand["table_name"], hand["currency"], hand["limit_type"]) == (
        "ipoker",
        "Testville",
        "USD",
        "PL",
    )
    assert (hand["small_blind"], hand["big_blind"], hand["button_seat"]) == (5, 10, 1)
    assert hand["started_at"] == datetime(2014, 5, 1, 20, 0, 5, tzinfo=UTC)
    assert hand["board"] == cards("3c 4d Kh 8s Kc")
    assert (hand["total_pot"], hand["rake"]) == (None, None)
    seats = tables["seats"].filter(pl.col("hand_id") == "1001").sort("seat")
    assert seats.select("seat", "player", "stack_start", "is_hero").rows() == [
        (1, "Alice", 1000, False),
        (2, "Bob", 800, False),
        (3, "Hero", 500, True),
    ]  # the nameless seat 4 is empty
    assert seats["hole_cards"].to_list() == [cards("Kd Qh 7c 6s"), None, cards("As 2s 9h 9d")]
    actions = tables["actions"].filter(pl.col("hand_id") == "1001").sort("seq")
    # Listed out of order in the file; played in "no" order.
    assert actions.select("street", "player", "kind", "amount", "to_amount").rows() == [
        (0, "Bob", "post_sb", 5, 5),
        (0, "Hero", "post_bb", 10, 10),
        (0, "Alice", "raise", 30, 30),  # type 23: raise to 0.30
        (0, "Bob", "call", 25, 30),
        (0, "Hero", "call", 20, 30),
        (1, "Bob", "check", None, 0),
        (1, "Hero", "bet", 50, 50),
        (1, "Alice", "call", 50, 50),
        (1, "Bob", "fold", None, 0),
        (2, "Hero", "check", None, 0),
        (2, "Alice", "check", None, 0),
        (3, "Hero", "check", None, 0),
        (3, "Alice", "check", None, 0),
    ]
    assert tables["collections"].filter(pl.col("hand_id") == "1001").select(
        "player", "amount", "pot_index", "half"
    ).rows() == [("Alice", 91, None, None), ("Hero", 90, None, None)]
    assert tables["showdowns"].filter(pl.col("hand_id") == "1001")["player"].to_list() == [
        "Alice",
        "Hero",
    ]
    assert tables["showdowns"].filter(pl.col("hand_id") == "1002").height == 0


def test_audit_of_the_documents(tmp_path: Path) -> None:
    source = tmp_path / "session.xml"
    source.write_text(SESSION)
    files, findings = ingest_and_audit([source], tmp_path / "ds")
    assert files["hands"].to_list() == [2]
    assert findings.filter(pl.col("kind").is_in(PAYOUT_KINDS)).height == 0
    assert findings.height == 0, findings


def test_cp1252_bytes_under_a_utf8_declaration_are_recovered() -> None:
    data = SESSION.replace("Alice", "J\u00f6rg").encode("cp1252")
    result = parse_bytes(IPokerParser(), data)
    assert result.rejected == 0, reasons(result)
    assert "J\u00f6rg" in frames(result)["seats"]["player"].to_list()


def test_other_games_skipped_and_a_session_header_is_needed() -> None:
    holdem = SESSION.replace("Omaha Hi-Lo PL", "Holdem NL")
    result = parse_bytes(IPokerParser(), holdem.encode())
    assert (result.hands_found, result.skipped, result.skipped_games) == (2, 2, {"Holdem": 2})
    games_only = SESSION[SESSION.index("  <game gamecode") :]
    result = parse_bytes(IPokerParser(), games_only.encode())
    assert reasons(result) == [
        ("1001", "no session <general> before the game: game and stakes unknown"),
        ("1002", "no session <general> before the game: game and stakes unknown"),
    ]


def test_a_long_session_streams_in_blocks(tmp_path: Path) -> None:
    """Games on lines of their own, cut into 8 KiB blocks: the session header of the first
    block applies to all, and every game is found once."""
    head, rest = SESSION.split('  <game gamecode="1001">', 1)
    game = '  <game gamecode="1001">' + rest[: rest.index("</game>") + len("</game>")] + "\n"
    games = "".join(game.replace('"1001"', f'"{2000 + n}"') for n in range(60))
    source = tmp_path / "long.xml"
    source.write_text(head + games + "</session>\n")
    summary = ingest([str(source)], tmp_path / "ds", workers=1, block_bytes=8 << 10)
    assert (summary.hands_found, summary.parsed, summary.rejected) == (60, 60, 0)
    hands = pl.from_arrow(read_table(tmp_path / "ds", "hands"))
    assert hands["hand_id"].n_unique() == 60


def test_games_chained_on_closing_lines_stream_in_blocks(tmp_path: Path) -> None:
    """Real iPoker files chain games as ``</game><game gamecode=…>``: a block cut on such a line
    leaves the closing tag to the next block, and no game is lost or spoiled."""
    head, rest = SESSION.split('  <game gamecode="1001">', 1)
    body = rest[: rest.index("</game>")].rstrip()  # the game without its closing tag
    chained = "\n  </game>".join(f'<game gamecode="{3000 + n}">' + body for n in range(80))
    source = tmp_path / "chained.xml"
    source.write_text(head + "  " + chained + "\n  </game>\n</session>\n")
    summary = ingest([str(source)], tmp_path / "ds", workers=1, block_bytes=8 << 10)
    assert (summary.hands_found, summary.parsed, summary.rejected) == (80, 80, 0)
    hands = pl.from_arrow(read_table(tmp_path / "ds", "hands"))
    assert sorted(hands["hand_id"].to_list()) == [str(3000 + n) for n in range(80)]
