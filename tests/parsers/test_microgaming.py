"""Microgaming / Prima XML parser: corpus conformance, a golden hand, the audit, damage.

Golden values were read off the XML by hand (105.00 put in, ``rake="300"`` cents, 102.00 won).
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from parsers.base import ParseResult
from parsers.microgaming import MicrogamingParser, decode_utf16
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

HAND = "Microgaming/cash/PLO8-EUR-1.00-2.00-201209.txt"


def parse_file(relative: str) -> ParseResult:
    return parse_corpus_file(MicrogamingParser(), relative)


def test_base64_utf16_fields() -> None:
    assert decode_utf16("rCA=") == "€"
    assert decode_utf16("SABlAHIAbwA=") == "Hero"
    assert decode_utf16("not base64!") is None


@needs_corpus
@pytest.mark.parametrize("row", manifest_rows("Microgaming"), ids=lambda row: row["path"])
def test_corpus_file_counts(row: dict[str, str]) -> None:
    check_corpus_counts(parse_file(row["path"]), row)


@needs_corpus
def test_golden_showdown() -> None:
    """Game 4577018979: Player0 scoops 102.00 (trip threes and 7-4-3-2-A) from 105.00."""
    tables = frames(parse_file(HAND))
    hand = tables["hands"].row(0, named=True)
    assert (hand["hand_id"], hand["table_name"], hand["currency"], hand["limit_type"]) == (
        "4577018979",
        "Cut-Off HILO 1 - €200 Max",
        "EUR",
        "PL",
    )
    assert (hand["small_blind"], hand["big_blind"], hand["button_seat"]) == (100, 200, 2)
    assert hand["started_at"] == datetime(2012, 9, 27, 16, 45, 13, tzinfo=UTC)
    assert hand["board"] == cards("3d Kc 7s Ah 2s")
    assert (hand["total_pot"], hand["rake"]) == (None, 300)
    seats = tables["seats"].sort("seat")
    assert seats.select("seat", "player", "stack_start", "is_hero").rows() == [
        (2, "Player0", 83176, False),
        (3, "Player1", 29540, False),
        (4, "Hero", 14410, True),
        (5, "Player2", 33321, False),
    ]
    assert seats["hole_cards"].to_list()[0] == cards("Ad 3s 4c 3c")
    assert seats["hole_cards"].to_list()[2] == cards("8d 5d As Qh")
    actions = tables["actions"].sort("seq")
    assert actions.select("street", "player", "kind", "amount", "to_amount").rows()[:6] == [
        (0, "Player1", "post_sb", 100, 100),
        (0, "Hero", "post_bb", 200, 200),
        (0, "Player2", "fold", None, 0),
        (0, "Player0", "raise", 700, 700),
        (0, "Player1", "fold", None, 100),
        (0, "Hero", "call", 500, 700),  # value="5.00": chips added
    ]
    assert tables["collections"].select("player", "amount", "pot_index", "half").rows() == [
        ("Player0", 10200, None, None)
    ]
    ledger = chip_ledger(tables).row(0, named=True)
    assert ledger["put"] == 10500 == ledger["collected"] + ledger["rake"]
    # endbalance 881.76 = 831.76 − 52.00 put in + 102.00 won
    assert 83176 - 5200 + 10200 == 88176


@needs_corpus
def test_audit_of_the_corpus(tmp_path: Path) -> None:
    findings = audit_site_corpus("Microgaming", tmp_path / "ds")  # the one file, HAND
    assert findings.height == 0, findings


@needs_corpus
def test_damaged_and_other_games() -> None:
    text = (CORPUS / HAND).read_text()
    game = text[text.index("<Game ") : text.index("</Game>") + len("</Game>")] + "\n"
    holdem = game.replace('id="4577018979"', 'id="1"').replace(
        'gametype="Omaha H/L"', 'gametype="Holdem"'
    )
    unknown = game.replace('id="4577018979"', 'id="2"').replace('type="Check"', 'type="Dance"', 1)
    no_win = game.replace('id="4577018979"', 'id="3"').replace('type="Win"', 'type="Check"')
    data = "----PRIMA.DAT----\n\n" + holdem + unknown + no_win + game + "\nExtendedTableName: x\n"
    result = parse_bytes(MicrogamingParser(), data.encode())
    assert (result.hands_found, result.parsed, result.skipped, result.rejected) == (4, 1, 1, 2)
    assert reasons(result) == [
        ("2", "unrecognised action type 'Dance'"),
        ("3", "truncated hand: nobody wins a pot"),
    ]
