"""Cake parser: corpus conformance, golden hands, chip balance, the audit, damaged input.

Golden values were read off the hand text by hand (tournament chips), not produced by the
parser.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

import polars as pl
import pytest

import parsers
from parsers.base import ParseResult
from parsers.cake import CakeParser
from parsers.text import decode_lines
from pipeline.audit import PAYOUT_KINDS, audit_tables
from tests.parsers.corpus import cards, frames, manifest_rows
from tests.shared_data import CORPUS, needs_corpus

TOUR = "Cake/tour/PLO8-2max-USD-5-201307.txt"
MONEY_IN = ("post_sb", "post_bb", "post_dead", "ante", "call", "bet", "raise")


def parse_bytes(data: bytes, source: str = "test.txt") -> ParseResult:
    decoded = decode_lines(data)
    parser = CakeParser()
    assert parser.sniff("\n".join(decoded.lines.head(20).to_list()))
    return parser.parse(decoded.lines, decoded.offsets, source)


def parse_file(relative: str) -> ParseResult:
    return parse_bytes((CORPUS / relative).read_bytes(), str(CORPUS / relative))


def manifest() -> list[dict[str, str]]:
    rows = manifest_rows()
    return [r for r in rows if r["role"].startswith("hand_history") and r["site"] == "Cake"]


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
    """Σ put in − returned = Σ collected for every hand (a tournament: no rake)."""
    tables = frames(parse_file(TOUR))
    actions = tables["actions"]
    signed = (
        pl.when(pl.col("kind").is_in(MONEY_IN))
        .then(pl.col("amount"))
        .when(pl.col("kind") == "uncalled_return")
        .then(-pl.col("amount"))
        .otherwise(0)
    )
    put = actions.group_by("hand_id").agg(put=signed.sum())
    collected = tables["collections"].group_by("hand_id").agg(collected=pl.col("amount").sum())
    joined = put.join(collected, on="hand_id").sort("hand_id")
    assert joined.rows() == [("3389E587C7000012", 654, 654), ("3389E587C7000013", 20, 20)]
    assert tables["hands"]["rake"].to_list() == [None, None]


@needs_corpus
def test_horizon_does_not_claim_cake_files() -> None:
    """Horizon's client prints Cake's layout, and its parser is registered first: it claims only
    heads with Horizon's title (``$ Perth (9-Max) 21915``), not Cake's."""
    from parsers.horizon import HorizonParser

    head = "\n".join(decode_lines((CORPUS / TOUR).read_bytes()).lines.head(20).to_list())
    assert not HorizonParser().sniff(head)
    detected = parsers.detect(head)
    assert detected is not None and detected.site == "cake"


# -- golden hands ------------------------------------------------------------------------------


@needs_corpus
def test_golden_split_pot() -> None:
    """Hand#3389E587C7000012: high to Player0, low to Hero ("wins low pot 327 with")."""
    tables = frames(parse_file(TOUR))
    hand_id = "3389E587C7000012"
    hand = tables["hands"].filter(pl.col("hand_id") == hand_id).row(0, named=True)
    assert (hand["tournament_id"], hand["table_name"], hand["buy_in"]) == (
        "T15042503",
        "1",
        "$5 + $0.25",
    )
    assert (hand["game"], hand["limit_type"], hand["currency"], hand["money_scale"]) == (
        "O8",
        "PL",
        "CHIPS",
        1,
    )
    assert (hand["small_blind"], hand["big_blind"], hand["ante"]) == (10, 20, None)
    assert (hand["button_seat"], hand["max_seats"], hand["players_dealt"]) == (8, 2, 2)
    assert hand["started_at"] == datetime(2013, 7, 16, 10, 38, 40, tzinfo=UTC)
    assert hand["board"] == cards("4d 2h Jc 8h Qs")
    assert (hand["total_pot"], hand["rake"]) == (None, None)

    seats = tables["seats"].filter(pl.col("hand_id") == hand_id).sort("seat")
    assert seats.select("seat", "player", "position", "stack_start", "is_hero").rows() == [
        (3, "Player0", "BB", 1640, False),
        (8, "Hero", "SB", 1360, True),
    ]
    assert seats["hole_cards"].to_list() == [cards("As Kh Ah Ac"), cards("5s 3c 4s 5c")]
    actions = tables["actions"].filter(pl.col("hand_id") == hand_id).sort("seq")
    assert actions.select("street", "player", "kind", "amount", "to_amount").rows() == [
        (0, "Hero", "post_sb", 10, 10),
        (0, "Player0", "post_bb", 20, 20),
        (0, "Hero", "raise", 50, 60),  # "raises to 60"
        (0, "Player0", "call", 40, 60),
        (1, "Player0", "check", None, 0),
        (1, "Hero", "bet", 80, 80),
        (1, "Player0", "call", 80, 80),
        (2, "Player0", "check", None, 0),
        (2, "Hero", "bet", 187, 187),
        (2, "Player0", "call", 187, 187),
        (3, "Player0", "check", None, 0),
        (3, "Hero", "check", None, 0),
        (3, "Hero", "show", None, None),
        (3, "Player0", "show", None, None),
    ]
    collections = tables["collections"].filter(pl.col("hand_id") == hand_id).sort("seq")
    assert collections.select("player", "amount", "pot_index", "half").rows() == [
        ("Player0", 327, None, "high"),
        ("Hero", 327, None, "low"),
    ]
    showdowns = tables["showdowns"].filter(pl.col("hand_id") == hand_id)
    assert showdowns.select("player", "high_desc", "low_desc").rows() == [
        ("Hero", "Pair of Fives", None),
        ("Player0", "Pair of Aces", None),
    ]


@needs_corpus
def test_golden_uncalled_and_winner_mucks() -> None:
    """Hand#3389E587C7000013: ``Hero: returns uncalled bet 10``, then ``Hero: mucks`` and
    ``Hero wins high pot 20``: the winner's muck is a hand not shown, not a fold."""
    tables = frames(parse_file(TOUR))
    actions = tables["actions"].filter(pl.col("hand_id") == "3389E587C7000013").sort("seq")
    assert actions.select("player", "kind", "amount", "to_amount").rows() == [
        ("Player0", "post_sb", 10, 10),
        ("Hero", "post_bb", 20, 20),
        ("Player0", "fold", None, 10),
        ("Hero", "uncalled_return", 10, None),
    ]
    hand = tables["hands"].filter(pl.col("hand_id") == "3389E587C7000013").row(0, named=True)
    assert (hand["board"], hand["button_seat"]) == ([], 3)
    assert tables["collections"].filter(pl.col("hand_id") == "3389E587C7000013").select(
        "player", "amount", "half"
    ).rows() == [("Hero", 20, "high")]


# -- the audit ---------------------------------------------------------------------------------


@pytest.fixture
def registered(monkeypatch: pytest.MonkeyPatch) -> None:
    """The audit reads the site's profile (rake printed, uncalled bets printed, payout lines)
    from the parser registry: register the parser for the test if it is not yet."""
    if not any(parser.site == "cake" for parser in parsers.PARSERS):
        monkeypatch.setattr(parsers, "PARSERS", (*parsers.PARSERS, CakeParser()))


@needs_corpus
def test_audit_finds_no_wrong_payment(registered: None) -> None:
    tables = frames(parse_file(TOUR))
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

HAND = """Hand#3389E587C70000{n:02d} - $5 Heads-up PL Omaha Hi-Lo Turbo T15042503 -- CASH -- $5 + $0.25 -- 2 Max -- Table 1 -- 0/10/20 PL OmahaHiLo -- 2013/07/16 - 10:38:40
Dealer: Seat 8
Seat 3: Player0 (1,640 in chips)
Seat 8: Hero (1,360 in chips)
Hero: posts small blind 10
Player0: posts big blind 20
Dealt to Hero [5s,3c,4s,5c]
Hero: raises to 60
Player0: calls 40
*** FLOP *** [4d,2h,Jc]
Player0: is all in 1,580
Hero: is all in 1,300
Player0: returns uncalled bet 280
*** TURN *** [8h]
*** RIVER *** [Qs]
***SHOW DOWN***
Hero: shows [5s 3c 4s 5c] (Pair of Fives  )
Player0: shows [As Kh Ah Ac] (Pair of Aces  )
Player0 wins high pot 1,360 with Pair of Aces
Hero wins low pot 1,360 with
"""


def hand_text(n: int) -> str:
    return HAND.format(n=n)


def rejects(result: ParseResult) -> list[tuple[str | None, str]]:
    return frames(result)["rejects"].select("hand_id", "reason").rows()


def test_synthetic_all_ins() -> None:
    """``is all in`` prints the chips added: a bet into the flop, then a call for less."""
    result = parse_bytes((hand_text(1) + "\n\n" + hand_text(2)).encode())
    assert (result.hands_found, result.parsed, result.rejected) == (2, 2, 0)
    flop = frames(result)["actions"].filter(
        pl.col("hand_id") == "3389E587C7000001", pl.col("street") == 1
    )
    assert flop.select("player", "kind", "amount", "to_amount", "is_all_in").rows() == [
        ("Player0", "bet", 1580, 1580, True),
        ("Hero", "call", 1300, 1300, True),
        ("Player0", "uncalled_return", 280, None, False),
    ]


def test_truncated_and_garbage_hands_are_quarantined() -> None:
    cut = hand_text(2).split("*** RIVER ***")[0]
    garbage = hand_text(3).replace("Dealer: Seat 8\n", "Dealer: Seat 8\n\x7f\x00 noise\n")
    result = parse_bytes("\n".join([hand_text(1), cut, garbage, hand_text(4)]).encode())
    assert (result.hands_found, result.parsed, result.rejected) == (4, 2, 2)
    assert rejects(result) == [
        ("3389E587C7000002", "truncated hand: no showdown section"),
        ("3389E587C7000003", "unrecognised line: \x7f\x00 noise"),
    ]


def test_bad_cards_and_other_games() -> None:
    duplicate = hand_text(2).replace("Dealt to Hero [5s,3c,4s,5c]", "Dealt to Hero [5s,3c,4s,4d]")
    holdem = hand_text(3).replace("PL OmahaHiLo --", "NL Hold'em --")
    result = parse_bytes("\n".join([hand_text(1), duplicate, holdem]).encode())
    assert (result.parsed, result.skipped, result.rejected) == (1, 1, 1)
    assert result.skipped_games == {"Hold'em": 1}
    assert rejects(result)[0][1].startswith("a player is shown different hole cards")
