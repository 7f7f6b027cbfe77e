"""Absolute / UB parser: corpus conformance, a golden hand, chip balance, the audit, damaged
input.

Golden values were read off the hand text by hand (amounts in cents), not produced by the
parser.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

import polars as pl
import pytest

import parsers
from parsers.absolute import AbsoluteParser
from parsers.base import ParseResult
from parsers.text import decode_lines
from pipeline.audit import PAYOUT_KINDS, audit_tables
from tests.parsers.corpus import cards, chip_ledger, frames, manifest_rows
from tests.shared_data import CORPUS, needs_corpus

CASH = "Absolute/cash/PLO8-2max-USD-30-60-200912.txt"


def parse_bytes(data: bytes, source: str = "test.txt") -> ParseResult:
    decoded = decode_lines(data)
    parser = AbsoluteParser()
    assert parser.sniff("\n".join(decoded.lines.head(20).to_list()))
    return parser.parse(decoded.lines, decoded.offsets, source)


def parse_file(relative: str) -> ParseResult:
    return parse_bytes((CORPUS / relative).read_bytes(), str(CORPUS / relative))


def manifest() -> list[dict[str, str]]:
    rows = manifest_rows()
    return [r for r in rows if r["role"].startswith("hand_history") and r["site"] == "Absolute"]


# -- conformance -------------------------------------------------------------------------------


@needs_corpus
@pytest.mark.parametrize("row", manifest(), ids=lambda row: row["path"])
def test_corpus_file_counts(row: dict[str, str]) -> None:
    result = parse_file(row["path"])
    counts = {name: int(n) for name, n in re.findall(r"([\w-]+):(\d+)", row["variants"])}
    assert result.parsed == counts.get("O8", 0)
    assert result.skipped == sum(n for name, n in counts.items() if name != "O8")
    assert result.rejected == 0, frames(result)["rejects"]["reason"].to_list()
    assert result.hands_found == int(row["hands"])


@needs_corpus
def test_corpus_chips_balance() -> None:
    """Σ put in − returned = Total Pot (gross) = Σ collected + rake."""
    joined = chip_ledger(frames(parse_file(CASH)))
    assert joined.select("put", "returned", "total_pot", "collected", "rake").rows() == [
        (15000, 3000, 12000, 11925, 75)
    ]


# -- golden hand -------------------------------------------------------------------------------


@needs_corpus
def test_golden_heads_up_limit() -> None:
    """Stage #1828549717: ``Normal $30/$60`` (fixed limit), ``Raises $45 to $60`` from the
    small blind, ``returned ($30) : not called``, ``Collects $119.25 from main pot``."""
    tables = frames(parse_file(CASH))
    hand = tables["hands"].row(0, named=True)
    assert (hand["hand_id"], hand["table_name"], hand["tournament_id"]) == (
        "1828549717",
        "Linden Ct",
        None,
    )
    assert (hand["game"], hand["limit_type"], hand["currency"], hand["money_scale"]) == (
        "O8",
        "FL",
        "USD",
        100,
    )
    assert (hand["small_bet"], hand["big_bet"]) == (3000, 6000)
    assert (hand["small_blind"], hand["big_blind"], hand["ante"]) == (1500, 3000, None)
    assert (hand["button_seat"], hand["max_seats"], hand["players_dealt"]) == (6, 2, 2)
    # "18:23:36.005 (ET)" on 31 Dec 2009 is EST, UTC-5.
    assert hand["started_at"] == datetime(2009, 12, 31, 23, 23, 36, tzinfo=UTC)
    assert hand["time_zone"] == "ET"
    assert hand["board"] == cards("Jc 5h 2c")
    assert (hand["total_pot"], hand["rake"]) == (12000, 75)

    seats = tables["seats"].sort("seat")
    assert seats.select("seat", "player", "position", "stack_start", "is_hero").rows() == [
        (4, "Hero", "BB", 100000, True),
        (6, "Player0", "SB", 119550, False),
    ]
    assert seats["hole_cards"].to_list() == [cards("9h Qc 2d 3h"), None]
    actions = tables["actions"].sort("seq")
    assert actions.select(
        "street", "player", "kind", "amount", "to_amount", "is_all_in"
    ).rows() == [
        (0, "Player0", "post_sb", 1500, 1500, False),
        (0, "Hero", "post_bb", 3000, 3000, False),
        (0, "Player0", "raise", 4500, 6000, False),
        (0, "Hero", "call", 3000, 6000, False),
        (1, "Hero", "check", None, 0, False),
        (1, "Player0", "bet", 3000, 3000, False),
        (1, "Hero", "fold", None, 0, False),
        (1, "Player0", "uncalled_return", 3000, None, False),
    ]
    assert tables["collections"].select("player", "amount", "pot_index", "half").rows() == [
        ("Player0", 11925, 0, None)
    ]
    assert tables["showdowns"].height == 0  # "Player0 - Does not show"


# -- the audit ---------------------------------------------------------------------------------


@pytest.fixture
def registered(monkeypatch: pytest.MonkeyPatch) -> None:
    """The audit reads the site's profile (rake printed, uncalled bets printed, payout lines)
    from the parser registry: register the parser for the test if it is not yet."""
    if not any(parser.site == "absolute" for parser in parsers.PARSERS):
        monkeypatch.setattr(parsers, "PARSERS", (*parsers.PARSERS, AbsoluteParser()))


@needs_corpus
def test_audit_finds_no_wrong_payment(registered: None) -> None:
    tables = frames(parse_file(CASH))
    findings = audit_tables(
        tables["hands"],
        tables["seats"],
        tables["actions"],
        tables["collections"],
        tables["showdowns"],
    ).discrepancies
    assert findings.filter(pl.col("kind").is_in(PAYOUT_KINDS)).height == 0
    assert findings.filter(pl.col("kind") == "chip_conservation").height == 0


# -- damaged input -----------------------------------------------------------------------------

HAND = """Stage #{n}: Omaha Hi/Lo  Pot Limit $0.25/$0.50 - 2009-12-31 18:23:36.005 (ET) [ 2009-12-31 18:23:36 ]
Table: Linden Ct (Real Money) Seat #6 is the dealer
Seat 2 - Villain One ($50 in chips)
Seat 4 - Hero ($50 in chips)
Seat 6 - Player0 ($50 in chips)
Hero - Posts small blind $0.25
Villain One - Posts big blind $0.50
*** POCKET CARDS ***
Dealt to Hero [9h Qc Ac 3h]
Player0 - Raises $1.25 to $1.75
Hero - Calls $1.50
Villain One - Folds
*** FLOP *** [Jc 5h 2c]
Hero - Checks
Player0 - All-In $48.25
Hero - All-In $48.25
*** TURN *** [Jc 5h 2c] [Kd]
*** RIVER *** [Jc 5h 2c Kd] [7s]
*** SHOW DOWN ***
Hero - Shows [9h Qc Ac 3h]
Player0 - Shows [Ah Ad 4c 8d]
Player0 Collects $49.88 from main pot
Hero Collects $49.87 from main pot
*** SUMMARY ***
Total Pot($100.50) | Rake ($0.75)
Board [Jc 5h 2c Kd 7s]
Seat 2: Villain One (big blind) Folded on the POCKET CARDS
Seat 4: Hero (small blind) collected Total ($49.87) LO:($49.87)
Seat 6: Player0 (dealer) collected Total ($49.88) HI:($49.88)
"""


def hand_text(n: int) -> str:
    return HAND.format(n=n)


def rejects(result: ParseResult) -> list[tuple[str | None, str]]:
    return frames(result)["rejects"].select("hand_id", "reason").rows()


def test_synthetic_pot_limit_all_ins(registered: None) -> None:
    """``All-In $x`` prints the chips added: a bet on the flop, then a call of it."""
    result = parse_bytes((hand_text(1) + "\n\n" + hand_text(2)).encode())
    assert (result.hands_found, result.parsed, result.rejected) == (2, 2, 0)
    tables = frames(result)
    hand = tables["hands"].filter(pl.col("hand_id") == "1").row(0, named=True)
    assert (hand["limit_type"], hand["small_blind"], hand["big_blind"]) == ("PL", 25, 50)
    flop = tables["actions"].filter(pl.col("hand_id") == "1", pl.col("street") == 1)
    assert flop.select("player", "kind", "amount", "to_amount", "is_all_in").rows() == [
        ("Hero", "check", None, 0, False),
        ("Player0", "bet", 4825, 4825, True),
        ("Hero", "call", 4825, 4825, True),
    ]
    assert chip_ledger(tables).filter(pl.col("hand_id") == "1").select(
        "put", "total_pot", "collected", "rake"
    ).rows() == [(10050, 10050, 9975, 75)]
    findings = audit_tables(
        tables["hands"],
        tables["seats"],
        tables["actions"],
        tables["collections"],
        tables["showdowns"],
    ).discrepancies
    assert findings.filter(pl.col("kind").is_in(PAYOUT_KINDS)).height == 0, findings


def test_truncated_garbage_and_inconsistent_hands() -> None:
    cut = hand_text(2).split("*** SUMMARY ***")[0]
    garbage = hand_text(3).replace("Hero - Checks\n", "Hero - Checks\n\x13\x10 ???\n")
    summary = hand_text(4).replace("LO:($49.87)", "LO:($49.78)")
    data = "\n".join([hand_text(1), cut, garbage, summary, hand_text(5)]).encode()
    result = parse_bytes(data)
    assert (result.hands_found, result.parsed, result.rejected) == (5, 2, 3)
    assert rejects(result) == [
        ("2", "truncated hand: no summary"),
        ("3", "unrecognised line: \x13\x10 ???"),
        ("4", "summary collected Total of Hero differs from its Collects lines or its HI/LO parts"),
    ]
    stored = frames(result)["rejects"].row(0, named=True)
    assert data[stored["source_offset"] :].startswith(b"Stage #2:")


def test_other_games_are_skipped() -> None:
    holdem = hand_text(2).replace("Omaha Hi/Lo", "Holdem")
    result = parse_bytes((hand_text(1) + "\n" + holdem).encode())
    assert (result.parsed, result.skipped, result.rejected) == (1, 1, 0)
    assert result.skipped_games == {"Holdem": 1}
