"""Boss Media XML parser: corpus conformance, golden hands, the audit, damaged input.

Golden values were read off the XML by hand; cards through the LINK table (0–12 diamonds
A..K, 13–25 clubs, 26–38 hearts, 39–51 spades) worked out on paper and checked against the
printed hand templates (``FULLHOUSE`` for Player1's KKK55).
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import polars as pl
import pytest

from parsers.base import ParseResult
from parsers.boss import BossParser, boss_card
from tests.parsers.corpus import cards, chip_ledger, frames
from tests.parsers.structured import (
    audit_site_corpus,
    check_corpus_counts,
    manifest_rows,
    parse_bytes,
    parse_corpus_file,
    reasons,
)
from tests.shared_data import CORPUS, needs_corpus

LO8 = "Boss/cash/LO8-EUR-0.05-0.10-201207.xml"
DEAD_SMALL = "Boss/cash/PLO8-CAD-0.05-0.10-201703.dead.small.txt"


def parse_file(relative: str) -> ParseResult:
    return parse_corpus_file(BossParser(), relative)


def test_card_links() -> None:
    assert [boss_card(link) for link in ("0", "12", "13", "38", "48", "51", "b", "52", "")] == [
        *cards("Ad Kd Ac Kh Ts Ks"),
        None,
        None,
        None,
    ]


@needs_corpus
@pytest.mark.parametrize("row", manifest_rows("Boss"), ids=lambda row: row["path"])
def test_corpus_file_counts(row: dict[str, str]) -> None:
    check_corpus_counts(parse_file(row["path"]), row)


@needs_corpus
def test_golden_showdown() -> None:
    """HISTORY 2907049023: Player1's full house beats Player0's trip kings; no low."""
    tables = frames(parse_file(LO8))
    hand = tables["hands"].row(0, named=True)
    assert (hand["hand_id"], hand["table_name"], hand["currency"], hand["limit_type"]) == (
        "2907049023",
        "Table OH 103",
        "EUR",
        "PL",
    )
    assert (hand["small_blind"], hand["big_blind"], hand["button_seat"]) == (5, 10, 5)
    assert hand["started_at"] == datetime(2012, 7, 3, 17, 7, 36, tzinfo=UTC)  # DATE=1341335256
    assert hand["board"] == cards("Ks Kd Ac Kh Tc")  # LINK 51 12 13 38 22
    assert (hand["total_pot"], hand["rake"]) == (76, 4)  # POT is after rake
    seats = tables["seats"].sort("seat")
    assert seats.select("seat", "player", "stack_start", "is_hero").rows() == [
        (1, "Player0", 410, False),
        (2, "Hero", 1000, True),
        (3, "Player1", 288, False),
        (4, "Player2", 1483, False),
        (5, "Player3", 528, False),
    ]
    assert seats["hole_cards"].to_list()[:3] == [
        cards("2h Ad Jd 8s"),  # 27 0 10 46
        cards("Ts 3h Qs 2d"),  # 48 28 50 1
        cards("5s 4h As 5d"),  # 43 29 39 4
    ]
    actions = tables["actions"].sort("seq")
    assert actions.select("street", "player", "kind", "amount").rows() == [
        (0, "Player0", "post_sb", 5),
        (0, "Hero", "post_bb", 10),
        (0, "Player1", "raise", 35),
        (0, "Player2", "fold", None),
        (0, "Player3", "fold", None),
        (0, "Player0", "call", 35),  # 0.05 more than owed: the flop POT says 0.80 went in
        (0, "Hero", "fold", None),
        (1, "Player0", "check", None),
        (1, "Player1", "check", None),
        (2, "Player0", "check", None),
        (2, "Player1", "check", None),
        (3, "Player0", "check", None),
        (3, "Player1", "check", None),
        (3, "Player0", "uncalled_return", 5),  # [derived] 0.85 put in, POT 0.76 + RAKE 0.04
    ]
    assert tables["collections"].select("player", "amount", "pot_index", "half").rows() == [
        ("Player1", 76, None, "high")  # WINTYPE_HI
    ]
    assert tables["showdowns"].select("player", "high_desc", "low_desc").rows() == [
        ("Player0", "$(STR_G_WIN_THREEOFAKIND) $(STR_G_CARDS_KINGS)", None),
        ("Player1", "$(STR_G_WIN_FULLHOUSE)", None),
    ]


@needs_corpus
def test_golden_dead_small_blind_and_silent_uncalled_bet() -> None:
    """HISTORY 230993221: two players post a dead small blind with their big blind; the 1.12
    turn bet nobody called comes back (POT 2.14 + RAKE 0.11 = 2.25 stayed in)."""
    tables = frames(parse_file(DEAD_SMALL))
    actions = tables["actions"]
    assert actions.filter(pl.col("kind") == "post_dead").select("player", "amount").rows() == [
        ("Player2", 5),
        ("Player3", 5),
    ]
    assert actions.filter(pl.col("kind") == "uncalled_return").select(
        "player", "amount"
    ).rows() == [("Player5", 112)]
    ledger = chip_ledger(tables).row(0, named=True)
    assert ledger["put"] - ledger["returned"] == 225
    assert ledger["collected"] + ledger["rake"] == 225
    assert tables["showdowns"].height == 0  # won by default: cards listed, not shown


@needs_corpus
def test_audit_of_the_corpus(tmp_path: Path) -> None:
    """No payout finding; the one finding is what the site wrote (the 0.05 over-call)."""
    findings = audit_site_corpus("Boss", tmp_path / "ds")
    assert findings.select("hand_id", "player", "kind", "expected", "recorded").rows() == [
        ("2907049023", "Player0", "bet_size", 30, 35)
    ]


# -- damaged and other input -------------------------------------------------------------------


@needs_corpus
def test_other_games_skipped_damage_quarantined() -> None:
    hand = (CORPUS / LO8).read_text().replace("<ROOT>\n", "").replace("</HISTORY>", "</HISTORY>\n")
    holdem = hand.replace('ID="2907049023"', 'ID="1"').replace("GAME_OMAHL", "GAME_THM")
    no_showdown = hand.replace('ID="2907049023"', 'ID="2"')
    no_showdown = no_showdown[: no_showdown.index("<SHOWDOWN")] + "</HISTORY>\n"
    bad_card = hand.replace('ID="2907049023"', 'ID="3"').replace('LINK="22"', 'LINK="x"')
    result = parse_bytes(
        BossParser(), ("<ROOT>\n" + holdem + no_showdown + bad_card + hand).encode()
    )
    assert (result.hands_found, result.parsed, result.skipped, result.rejected) == (4, 1, 1, 2)
    assert result.skipped_games == {"Hold'em": 1}
    assert reasons(result) == [
        ("2", "truncated hand: no showdown element"),
        ("3", "unreadable board"),
    ]
