"""Merge / Carbon XML parser: corpus conformance, golden hands, streaming, the audit, damage.

Golden values were read off the XML by hand, from the fpdb THP sidecars of the sit-and-go
sample (``.hands``/``.hp``, decoded here independently of the parser), or from the events'
epoch timestamps — never produced by the parser.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

import polars as pl
import pytest

from parsers.base import ParseResult
from parsers.merge import MergeParser
from pipeline.dataset import read_table
from pipeline.ingest import ingest
from tests.parsers.corpus import cards, frames
from tests.parsers.structured import (
    audit_site_corpus,
    check_corpus_counts,
    manifest_rows,
    parse_bytes,
    parse_corpus_file,
    reasons,
)
from tests.shared_data import CORPUS, needs_corpus

CASH_SHOWDOWN = "Merge/cash/PLO8-USD-0.25-0.50-201111.txt"
POST_BOTH = "Merge/cash/LO8-9max-USD-1.00-2.00-201112.post.both.txt"
SNG = "Merge/tour/PLO8-USD-SNG-2-2012.Sample.xml"
HORSE = "Merge/tour/HORSE-Tournament-Freeroll.201107.xml"


def parse_file(relative: str) -> ParseResult:
    return parse_corpus_file(MergeParser(), relative)


@needs_corpus
@pytest.mark.parametrize("row", manifest_rows("Merge"), ids=lambda row: row["path"])
def test_corpus_file_counts(row: dict[str, str]) -> None:
    check_corpus_counts(parse_file(row["path"]), row)


@needs_corpus
def test_golden_cash_showdown() -> None:
    """Game 40231841-160 (``Limit $0.25/$0.50``): Hero's straight scoops 1.43 unsplit."""
    tables = frames(parse_file(CASH_SHOWDOWN))
    hand = tables["hands"].row(0, named=True)
    assert (hand["hand_id"], hand["table_name"], hand["tournament_id"]) == (
        "40231841-160",
        "Aral (40231841)",
        None,
    )
    assert (hand["game"], hand["limit_type"], hand["currency"], hand["money_scale"]) == (
        "O8",
        "FL",
        "USD",
        100,
    )
    assert (hand["small_blind"], hand["big_blind"], hand["small_bet"], hand["big_bet"]) == (
        10,
        25,
        25,
        50,
    )
    # dealer="7" is the eighth seat; starttime 01:07:04 Eastern (EDT) is 05:07:04 UTC.
    assert (hand["button_seat"], hand["players_dealt"]) == (8, 7)
    assert hand["started_at"] == datetime(2011, 9, 8, 5, 7, 4, tzinfo=UTC)
    assert hand["board"] == cards("Jc Kh Td Qd 8s")
    assert (hand["total_pot"], hand["rake"]) == (None, None)

    seats = tables["seats"].sort("seat")
    assert seats.select("seat", "player", "stack_start", "is_hero").rows() == [
        (1, "Hero", 1200, True),
        (4, "Player2", 983, False),
        (5, "Player0", 1838, False),
        (6, "Player1", 1993, False),
        (7, "Player3", 545, False),
        (8, "Player5", 421, False),
        (9, "Player6", 1528, False),
    ]
    hole = dict(zip(seats["player"].to_list(), seats["hole_cards"].to_list(), strict=True))
    assert hole["Hero"] == cards("Th 9c 9s Qh")
    assert hole["Player6"] == cards("2c 3h Tc Kd")
    actions = tables["actions"].sort("seq")
    assert actions.select("street", "player", "kind", "amount", "to_amount").rows() == [
        (0, "Player6", "post_sb", 10, 10),
        (0, "Hero", "post_bb", 25, 25),
        (0, "Player2", "call", 25, 25),
        (0, "Player0", "fold", None, 0),
        (0, "Player1", "fold", None, 0),
        (0, "Player3", "call", 25, 25),
        (0, "Player5", "fold", None, 0),
        (0, "Player6", "call", 15, 25),
        (0, "Hero", "check", None, 25),
        (1, "Player6", "check", None, 0),
        (1, "Hero", "bet", 25, 25),
        (1, "Player2", "fold", None, 0),
        (1, "Player3", "fold", None, 0),
        (1, "Player6", "call", 25, 25),
        (2, "Player6", "check", None, 0),
        (2, "Hero", "check", None, 0),
        (3, "Player6", "check", None, 0),
        (3, "Hero", "check", None, 0),
        (3, "Player6", "show", None, None),
        (3, "Hero", "show", None, None),
    ]
    assert tables["collections"].select("player", "amount", "pot_index", "half").rows() == [
        ("Hero", 143, 0, None)  # pottype="n", potnumber="1"
    ]
    assert tables["showdowns"].select("player", "cards", "high_desc", "low_desc").rows() == [
        ("Player6", cards("2c 3h Tc Kd"), None, None),
        ("Hero", cards("Th 9c 9s Qh"), "King High Straight", None),
    ]


@needs_corpus
def test_golden_post_both_and_uncalled_inside_the_win() -> None:
    """Game 45547825-416: ``RETURN_BLIND amount="1.50"`` is a live 1.00 big blind and 0.50
    dead; ``RAISE amount="2.00"`` is a raise to 2.00; the 1.00 flop bet nobody called is
    inside the 5.75 won (6.00 put in)."""
    tables = frames(parse_file(POST_BOTH))
    actions = tables["actions"].sort("seq")
    assert actions.select("street", "player", "kind", "amount", "to_amount").rows()[:7] == [
        (0, "Player0", "post_sb", 50, 50),
        (0, "Player2", "post_bb", 100, 100),
        (0, "Player1", "post_dead", 50, None),
        (0, "Player1", "post_bb", 100, 100),
        (0, "Player1", "raise", 100, 200),
        (0, "Player0", "fold", None, 50),
        (0, "Player2", "call", 100, 200),
    ]
    # The winner's MUCK is a hand not shown, not a fold.
    assert "muck" not in actions["kind"].to_list()
    assert tables["collections"].select("player", "amount").rows() == [("Player1", 575)]
    hand = tables["hands"].row(0, named=True)
    # starttime 05:01:17 Eastern (EST) = the first event's timestamp 1324375277698 ms.
    assert hand["started_at"] == datetime.fromtimestamp(1324375277, tz=UTC)
    assert (hand["button_seat"], hand["small_bet"], hand["big_bet"]) == (7, 100, 200)


def _sidecar_card(code: int) -> int:
    """fpdb's card number (1–13 hearts 2..A, 14–26 diamonds, 27–39 clubs, 40–52 spades)
    as a card code, so the THP sidecars are compared without the parser's help."""
    suit = "hdcs"[(code - 1) // 13]
    rank = "23456789TJQKA"[(code - 1) % 13]
    return cards(rank + suit)[0]


@needs_corpus
def test_golden_sit_and_go_against_the_thp_sidecars() -> None:
    """The first hand of the sit-and-go sample against fpdb's expected rows."""
    expected_hand = (CORPUS / (SNG + ".hands")).read_text()
    expected_players = (CORPUS / (SNG + ".hp")).read_text()
    tables = frames(parse_file(SNG))
    hand = tables["hands"].row(0, named=True)
    board = [_sidecar_card(int(n)) for n in re.findall(r"'boardcard\d': (\d+)", expected_hand)]
    assert hand["board"] == board
    assert (
        hand["hand_id"].replace("-", "") == re.search(r"'siteHandNo': u'(\d+)'", expected_hand)[1]
    )
    assert (hand["currency"], hand["money_scale"], hand["limit_type"]) == ("CHIPS", 1, "PL")
    assert hand["tournament_id"] == "46630882"

    blocks = re.findall(r"u'(\w+)': \{(.*?)\}", expected_players, re.DOTALL)
    seats = tables["seats"]
    for name, body in blocks:
        fields = dict(re.findall(r"'(\w+)': (-?\d+|True|False)", body))
        row = seats.filter(pl.col("player") == name).row(0, named=True)
        assert row["seat"] == int(fields["seatNo"])
        dealt = [int(fields[f"card{i}"]) for i in range(1, 5)]
        if any(dealt):
            assert row["hole_cards"] == [_sidecar_card(n) for n in dealt], name
        put_in = (int(fields["winnings"]) - int(fields["totalProfit"])) // 100
        won = int(fields["winnings"]) // 100
        paid = tables["collections"].filter(pl.col("player") == name)["amount"].sum()
        assert paid == won, name
        spent = (
            tables["actions"]
            .filter((pl.col("player") == name) & (pl.col("kind") != "uncalled_return"))["amount"]
            .sum()
        )
        assert spent == put_in, name
    # Both all-in players put in their whole stack: the printed balance (1,490) is after the
    # 10 small blind, the stack recorded before it (fpdb's sidecar keeps 1,490).
    allin = seats.filter(pl.col("player").is_in(["Player1", "Player2"])).sort("seat")
    assert allin["stack_start"].to_list() == [1500, 1500]


@needs_corpus
def test_mixed_rotation_keeps_only_omaha_hi_lo() -> None:
    result = parse_file(HORSE)
    text = (CORPUS / HORSE).read_text()
    codes = re.findall(r'multigametype="(\d+)"', text)
    assert result.parsed == sum(code == "37" for code in codes) == 4
    assert result.skipped == len(codes) - 4 == 24
    hands = frames(result)["hands"]
    assert set(hands["mixed_game"]) == {"HORSE"}
    # No stakes in a tournament description: the 15/30 blinds make 30/60 bets.
    assert set(zip(hands["big_blind"], hands["small_bet"], hands["big_bet"], strict=True)) == {
        (30, 30, 60)
    }


@needs_corpus
def test_other_games_skipped_from_their_opening_tag_as_by_a_full_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The shortcut that skips another game of a rotation by its ``multigametype`` alone gives
    the tables the whole element's read gives; a damaged game of another kind is that game."""
    from parsers import merge

    shortcut = parse_file(HORSE)
    monkeypatch.setattr(merge, "_MULTIGAME_CODE", re.compile("(?!)"))
    full = parse_file(HORSE)
    monkeypatch.undo()
    assert shortcut.skipped == full.skipped == 24
    for name in full.tables:
        assert shortcut.tables[name].equals(full.tables[name]), name

    text = (CORPUS / HORSE).read_text()
    stud = re.search(r'<game [^>]*multigametype="(?:38|39|41|42)"[^>]*>', text)
    assert stud is not None
    damaged = text.replace(stud[0], stud[0] + "<round", 1)
    result = parse_bytes(MergeParser(), damaged.encode(), "damaged.xml")
    assert (result.parsed, result.skipped, result.rejected) == (4, 24, 0)


@needs_corpus
def test_streaming_in_small_blocks_keeps_counts_and_context(tmp_path: Path) -> None:
    """Cut into 16 KiB blocks, the later blocks have no <description>: the file's context is
    remembered, and every hand is still found once."""
    summary = ingest([str(CORPUS / HORSE)], tmp_path / "ds", workers=1, block_bytes=16 << 10)
    assert (summary.parsed, summary.skipped, summary.rejected) == (4, 24, 0)
    whole = frames(parse_file(HORSE))["hands"].sort("hand_id")
    streamed = pl.from_arrow(read_table(tmp_path / "ds", "hands")).sort("hand_id")
    assert streamed["hand_id"].to_list() == whole["hand_id"].to_list()
    assert streamed["source_offset"].to_list() == whole["source_offset"].to_list()


@needs_corpus
def test_audit_of_the_corpus(tmp_path: Path) -> None:
    findings = audit_site_corpus("Merge", tmp_path / "ds")
    assert findings.height == 0, findings


# -- damaged input -----------------------------------------------------------------------------

DESCRIPTION = '<description type="Omaha H/L8" stakes="Limit $0.25/$0.50"/>\n'


def _game(number: int, body_extra: str = "", close: bool = True) -> str:
    text = (CORPUS / CASH_SHOWDOWN).read_text().replace("\r", "")
    game = text[text.index("<game ") :]
    game = game.replace('id="40231841-160"', f'id="40231841-{number}"')
    marker = '<round id="PREFLOP" sequence="2">\n'
    game = game.replace(marker, marker + body_extra, 1)
    return game if close else game[: game.index("</game>")]


@needs_corpus
def test_damaged_games_are_quarantined_and_the_rest_kept() -> None:
    data = (
        DESCRIPTION
        + _game(1)
        + _game(2, '<event sequence="0" type="TELEPORT" player="0"/>\n')
        + _game(3, '<event sequence="0" type="CALL" player="0" amount="0.125"/>\n')
        + _game(4).replace("<players ", "<jackpot/><players ", 1)
        + _game(5)
        + _game(6, close=False)
    ).encode()
    result = parse_bytes(MergeParser(), data)
    assert (result.hands_found, result.parsed, result.rejected) == (6, 2, 4)
    assert reasons(result) == [
        ("40231841-2", "unrecognised event type 'TELEPORT'"),
        ("40231841-3", "unreadable amount '0.125' (call)"),
        ("40231841-4", "unrecognised element <jackpot>"),
        ("40231841-6", "truncated hand: no </game>"),
    ]


@needs_corpus
def test_a_game_without_its_description_is_quarantined() -> None:
    result = parse_bytes(MergeParser(), _game(7).encode())
    assert reasons(result) == [
        ("40231841-7", "no <description> before the game: game and stakes unknown")
    ]
