"""IGT JSON parser: a hand-written document in the flat Boss-like shape, and the real export.

Golden values of the hand-written document were worked out by hand with IGT's deuce-first card
ids (the real export's descriptions fix that order, see `parsers.igt.igt_card`): board 3d 6c Th
Ad 5s (link 1 17 34 12 42); Alice's 2h 4h As Ac make trip aces and a 6-5-4-3-2 low, Bob's
Ks Kd 8c 9c a pair of kings and no low, so she scoops 0.57 of the 0.60 put in (rake 0.03, pot
after rake).
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import polars as pl

import parsers
from parsers.igt import IgtParser
from pipeline.audit import PAYOUT_KINDS
from tests.parsers.corpus import cards, frames
from tests.parsers.structured import ingest_and_audit, parse_bytes, reasons
from tests.shared_data import CORPUS, needs_corpus

HAND = """{"id": "77001", "table": "Omaha HL 7", "game": "GAME_OMAHL", "gameType": "OMAHAHILO", "gameKind": "GAMEKIND_CASH", "tableCurrency": "EUR", "limit": "Pot Limit", "stakes": "0.05/0.10", "date": "1400000000", "players": [{"name": "Alice", "seat": "1", "amount": "5.00", "state": "STATE_PLAYING", "dealer": "N"}, {"name": "Bob", "seat": "2", "amount": "5.00", "state": "STATE_PLAYING", "dealer": "Y"}], "actions": [{"type": "HAND_BLINDS", "player": "Bob", "kind": "HAND_SB", "value": "0.05"}, {"type": "HAND_BLINDS", "player": "Alice", "kind": "HAND_BB", "value": "0.10"}, {"type": "HAND_DEAL", "player": "Alice", "cards": ["26", "28", "51", "25"]}, {"type": "HAND_DEAL", "player": "Bob", "cards": ["b", "b", "b", "b"]}, {"type": "ACTION_CALL", "player": "Bob", "value": "0.05"}, {"type": "ACTION_CHECK", "player": "Alice"}, {"type": "HAND_BOARD", "value": "BOARD_FLOP", "pot": "0.20", "rake": "0.00", "cards": ["1", "17", "34"]}, {"type": "ACTION_BET", "player": "Alice", "value": "0.20"}, {"type": "ACTION_CALL", "player": "Bob", "value": "0.20"}, {"type": "HAND_BOARD", "value": "BOARD_TURN", "pot": "0.57", "rake": "0.03", "cards": ["1", "17", "34", "12"]}, {"type": "ACTION_CHECK", "player": "Alice"}, {"type": "ACTION_CHECK", "player": "Bob"}, {"type": "HAND_BOARD", "value": "BOARD_RIVER", "pot": "0.57", "rake": "0.03", "cards": ["1", "17", "34", "12", "42"]}, {"type": "ACTION_CHECK", "player": "Alice"}, {"type": "ACTION_CHECK", "player": "Bob"}], "showdown": {"name": "HAND_SHOWDOWN", "pot": "0.57", "rake": "0.03", "mainpot": "0.57", "results": [{"winType": "WINTYPE_HILO", "player": "Alice", "win": "0.57", "hand": "$(STR_G_WIN_THREEOFAKIND) $(STR_G_CARDS_ACES)", "handExt": "6 5 4 3 2 ", "cards": ["26", "28", "51", "25"]}, {"player": "Bob", "win": "0.00", "hand": "$(STR_G_WIN_PAIR) $(STR_G_CARDS_KINGS)", "cards": ["50", "11", "19", "20"]}]}}"""


def test_registered_and_golden_scoop() -> None:
    result = parsers.parse_bytes((HAND + "\n").encode(), "hands.json")
    assert result is not None
    assert (result.hands_found, result.parsed, result.rejected) == (1, 1, 0), reasons(result)
    tables = frames(result)
    hand = tables["hands"].row(0, named=True)
    assert (hand["site"], hand["hand_id"], hand["table_name"], hand["currency"]) == (
        "igt",
        "77001",
        "Omaha HL 7",
        "EUR",
    )
    assert (hand["limit_type"], hand["small_blind"], hand["big_blind"], hand["button_seat"]) == (
        "PL",
        5,
        10,
        2,
    )
    assert hand["started_at"] == datetime.fromtimestamp(1400000000, tz=UTC)
    assert hand["board"] == cards("3d 6c Th Ad 5s")
    assert (hand["total_pot"], hand["rake"]) == (57, 3)
    seats = tables["seats"].sort("seat")
    assert seats.select("player", "stack_start", "is_hero").rows() == [
        ("Alice", 500, True),
        ("Bob", 500, False),
    ]
    assert seats["hole_cards"].to_list() == [cards("2h 4h As Ac"), cards("Ks Kd 8c 9c")]
    assert tables["collections"].select("player", "amount", "half").rows() == [
        ("Alice", 57, None)  # WINTYPE_HILO: both halves
    ]
    assert tables["showdowns"].select("player", "low_desc").rows() == [
        ("Alice", "6 5 4 3 2"),
        ("Bob", None),
    ]


def test_audit_of_the_document(tmp_path: Path) -> None:
    source = tmp_path / "hands.json"
    source.write_text(HAND + "\n")
    files, findings = ingest_and_audit([source], tmp_path / "ds")
    assert files["hands"].to_list() == [1]
    assert findings.filter(pl.col("kind").is_in(PAYOUT_KINDS)).height == 0
    assert findings.height == 0, findings


def test_damaged_and_other_games() -> None:
    holdem = HAND.replace('"77001"', '"1"').replace("GAME_OMAHL", "GAME_THM")
    truncated = HAND.replace('"77001"', '"2"')[:-40]
    deep = HAND.replace('"77001"', '"3"').replace(
        '"table"', '"x": ' + "[" * 100 + "]" * 100 + ', "table"'
    )
    not_a_number = HAND.replace('"77001"', '"4"').replace('"1400000000"', "NaN")
    data = f"{holdem}\n{truncated}\n{deep}\n{not_a_number}\n{HAND}\n"
    result = parse_bytes(IgtParser(), data.encode())
    assert (result.hands_found, result.parsed, result.skipped, result.rejected) == (5, 1, 1, 3)
    found = reasons(result)
    assert found[0][0] == "2" and found[0][1].startswith("malformed JSON")
    assert found[1] == ("3", "unsafe JSON: nested deeper than 32")
    assert found[2] == ("4", "malformed JSON: NaN is not a number")


REAL = "IGT/cash/PLO8-GeneralHand.json.txt"


@needs_corpus
def test_real_export() -> None:
    """The real ``{"history": [...]}`` export: amounts from the bankroll after each action,
    deuce-first card ids, millisecond dates; the audit agrees with every payment."""
    data = (CORPUS / REAL).read_bytes()
    result = parsers.parse_bytes(data, REAL)
    assert result is not None and result.tables["hands"].num_rows == 1, reasons(result)
    assert (result.hands_found, result.parsed, result.rejected) == (1, 1, 0)
    tables = frames(result)
    hand = tables["hands"].row(0, named=True)
    assert (hand["hand_id"], hand["currency"], hand["limit_type"], hand["tournament_id"]) == (
        "54500000.hand.202",
        "SEK",
        "PL",
        None,
    )
    assert (hand["small_blind"], hand["big_blind"], hand["button_seat"]) == (25, 50, 5)
    assert hand["started_at"] == datetime.fromtimestamp(1488470000, tz=UTC)
    assert hand["board"] == cards("Js 4h 2h 8c Th")
    assert (hand["total_pot"], hand["rake"]) == (3941, 109)
    # The SB completes with 0.25 although the action prints the street total 0.50.
    hero = tables["actions"].filter(pl.col("player") == "HERO")
    assert hero.select("kind", "amount").rows()[:2] == [("post_sb", 25), ("call", 25)]
    put_in = tables["actions"].filter(pl.col("kind") != "uncalled_return")["amount"].sum()
    assert put_in == hand["total_pot"] + hand["rake"]
    assert tables["collections"].select("player", "amount", "half").rows() == [
        ("HERO", 1971, "high"),
        ("PLAYER4", 1970, "low"),
    ]
    shown = dict(tables["showdowns"].select("player", "cards").rows())
    assert shown == {"HERO": cards("Jh 9c 4c Td"), "PLAYER4": cards("3s 4s 5s As")}


@needs_corpus
def test_real_export_with_several_hands_in_one_document() -> None:
    import json

    document = json.loads((CORPUS / REAL).read_text(encoding="utf-8-sig"))
    second = json.loads(json.dumps(document["history"][0]))
    second["handId"] = "54500000.hand.203"
    second["game"] = "GAME_THM"  # another game in the same session is skipped
    third = json.loads(json.dumps(document["history"][0]))
    third["handId"] = "54500000.hand.204"
    document["history"] += [second, third]
    result = parsers.parse_bytes((json.dumps(document) + "\n").encode(), REAL)
    assert result is not None
    assert (result.hands_found, result.parsed, result.skipped, result.rejected) == (3, 2, 1, 0)
    assert frames(result)["hands"]["hand_id"].to_list() == [
        "54500000.hand.202",
        "54500000.hand.204",
    ]
