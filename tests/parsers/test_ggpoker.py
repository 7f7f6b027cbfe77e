"""GGPoker parser, Omaha Hi/Lo — UNCONFIRMED against real exports (no GGPoker O8 sample exists).

The hands below are written to imitate the documented GGPoker Omaha layout (the hi-only public
samples in ``jejellyroll-fr/fpdb-3``, ``regression-test-files/cash/GGPoker/Flop/``) with the game
named ``Omaha Hi/Lo``. They check that the parser reads that layout consistently; they are not
golden files from the site, and site-formats.md asks for real ones before GGPoker O8 is enabled.
"""

from __future__ import annotations

from datetime import UTC, datetime

import polars as pl
import pytest

import parsers
from parsers.base import ParseResult
from parsers.ggpoker import GGPokerParser
from parsers.text import decode_lines
from tests.parsers.corpus import cards, frames

PARSER = GGPokerParser()
PAYOUT_KINDS = ("payout", "missing_winner", "unexpected_winner", "odd_chip")
MONEY_IN = ["post_sb", "post_bb", "post_dead", "ante", "call", "bet", "raise"]

HAND = """Poker Hand #OM10000000{number}: Omaha Hi/Lo Pot Limit ($0.5/$1) - 2021/03/01 12:00:00
Table 'PLOHiLo1' 6-max Seat #1 is the button
Seat 1: Hero ($100 in chips)
Seat 2: 5a1b2c3d ($30.5 in chips)
Seat 3: 7e8f9a0b ($80 in chips)
5a1b2c3d: posts small blind $0.5
7e8f9a0b: posts big blind $1
*** HOLE CARDS ***
Dealt to Hero [Ah 2h Kd Qs]
Dealt to 5a1b2c3d
Dealt to 7e8f9a0b
Hero: raises $2.5 to $3.5
5a1b2c3d: calls $3
7e8f9a0b: folds
*** FLOP *** [3c 4d Kh]
5a1b2c3d: checks
Hero: bets $7
5a1b2c3d: calls $7
*** TURN *** [3c 4d Kh] [9s]
5a1b2c3d: bets $20 and is all-in
Hero: calls $20
5a1b2c3d: shows [Ks Kc Jd Td] (Three Kings)
Hero: shows [Ah 2h Kd Qs] (Pair of Kings)
*** RIVER *** [3c 4d Kh 9s] [7c]
*** SHOWDOWN ***
5a1b2c3d collected $29 from pot
Hero collected $29 from pot
*** SUMMARY ***
Total pot $62 | Rake $3 | Jackpot $1 | Bingo $0
Board [3c 4d Kh 9s 7c]
Seat 1: Hero (button) showed [Kd Qs Ah 2h] and won ($29) with Pair of Kings
Seat 2: 5a1b2c3d (small blind) showed [Ks Kc Jd Td] and won ($29) with Three Kings
Seat 3: 7e8f9a0b (big blind) folded before Flop
"""

RUN_TWICE = """*** FIRST RIVER *** [3c 4d Kh 9s] [7c]
*** SECOND RIVER *** [3c 4d Kh 9s] [Qd]
*** FIRST SHOWDOWN ***
5a1b2c3d collected $14.5 from pot
Hero collected $14.5 from pot
*** SECOND SHOWDOWN ***
5a1b2c3d collected $29 from pot
*** SUMMARY ***
Total pot $62 | Rake $3 | Jackpot $1 | Bingo $0
Hand was run two times
FIRST Board [3c 4d Kh 9s 7c]
SECOND Board [3c 4d Kh 9s Qd]
"""


def hand_text(number: int) -> str:
    return HAND.format(number=number)


def run_twice_text(number: int) -> str:
    text = hand_text(number)
    start = text.index("*** RIVER ***")
    end = text.index("Seat 1: Hero (button) showed")
    return text[:start] + RUN_TWICE + text[end:]


def parse_text(text: str) -> ParseResult:
    decoded = decode_lines(text.encode("utf-8"))
    assert PARSER.sniff("\n".join(decoded.lines.head(20).to_list()))
    return PARSER.parse(decoded.lines, decoded.offsets, "test.txt")


def rejects(result: ParseResult) -> list[tuple[str | None, str]]:
    return frames(result)["rejects"].select("hand_id", "reason").rows()


@pytest.fixture
def registered(monkeypatch: pytest.MonkeyPatch) -> None:
    """The audit reads each site's profile from the parser registry."""
    if not any(parser.site == PARSER.site for parser in parsers.PARSERS):
        monkeypatch.setattr(parsers, "PARSERS", (*parsers.PARSERS, PARSER))


def audit(tables: dict[str, pl.DataFrame]) -> pl.DataFrame:
    from pipeline.audit import audit_tables

    return audit_tables(
        tables["hands"],
        tables["seats"],
        tables["actions"],
        tables["collections"],
        tables["showdowns"],
    ).discrepancies


def test_imitated_hand_field_by_field() -> None:
    tables = frames(parse_text(hand_text(1)))
    hand = tables["hands"].row(0, named=True)
    assert (hand["site"], hand["hand_id"], hand["game"], hand["limit_type"]) == (
        "ggpoker",
        "OM100000001",
        "O8",
        "PL",
    )
    assert (hand["currency"], hand["money_scale"], hand["small_blind"], hand["big_blind"]) == (
        "USD",
        100,
        50,
        100,
    )
    assert (hand["table_name"], hand["max_seats"], hand["button_seat"]) == ("PLOHiLo1", 6, 1)
    # No zone is printed: the time is read as UTC.
    assert hand["started_at"] == datetime(2021, 3, 1, 12, 0, 0, tzinfo=UTC)
    assert hand["time_zone"] is None
    assert hand["board"] == cards("3c 4d Kh 9s 7c") and hand["board2"] is None
    assert (hand["total_pot"], hand["rake"], hand["players_dealt"]) == (
        6200,
        400,
        3,
    )  # rake + jackpot

    seats = tables["seats"].sort("seat")
    assert seats.select("seat", "player", "stack_start", "is_hero", "position").rows() == [
        (1, "Hero", 10000, True, "BTN"),
        (2, "5a1b2c3d", 3050, False, "SB"),
        (3, "7e8f9a0b", 8000, False, "BB"),
    ]
    # The summary prints Hero's cards in another order: the same cards, the dealt order kept.
    assert seats["hole_cards"].to_list() == [cards("Ah 2h Kd Qs"), cards("Ks Kc Jd Td"), None]

    actions = tables["actions"].sort("seq")
    assert actions.select(
        "street", "player", "kind", "amount", "to_amount", "is_all_in"
    ).rows() == [
        (0, "5a1b2c3d", "post_sb", 50, 50, False),
        (0, "7e8f9a0b", "post_bb", 100, 100, False),
        (0, "Hero", "raise", 350, 350, False),
        (0, "5a1b2c3d", "call", 300, 350, False),
        (0, "7e8f9a0b", "fold", None, 100, False),
        (1, "5a1b2c3d", "check", None, 0, False),
        (1, "Hero", "bet", 700, 700, False),
        (1, "5a1b2c3d", "call", 700, 700, False),
        (2, "5a1b2c3d", "bet", 2000, 2000, True),
        (2, "Hero", "call", 2000, 2000, False),
        (2, "5a1b2c3d", "show", None, None, False),
        (2, "Hero", "show", None, None, False),
    ]
    # "collected $29 from pot" names no pot: GGPoker prints "from pot" for side pots too.
    assert tables["collections"].sort("seq").select(
        "player", "amount", "pot_index", "half", "board_index"
    ).rows() == [
        ("5a1b2c3d", 2900, None, None, 0),
        ("Hero", 2900, None, None, 0),
    ]
    assert tables["showdowns"].select("player", "high_desc", "low_desc").rows() == [
        ("5a1b2c3d", "Three Kings", None),
        ("Hero", "Pair of Kings", None),
    ]


def test_chip_balance_and_audit(registered: None) -> None:
    """Total (gross) = Σ put in = Σ collected + rake + jackpot; the split is the rules' split."""
    tables = frames(parse_text(hand_text(1) + "\n" + run_twice_text(2)))
    put = (
        tables["actions"]
        .filter(pl.col("kind").is_in(MONEY_IN))
        .group_by("hand_id")
        .agg(pl.col("amount").sum())
    )
    collected = (
        tables["collections"].group_by("hand_id").agg(pl.col("amount").sum().alias("collected"))
    )
    joined = tables["hands"].join(put, on="hand_id").join(collected, on="hand_id")
    assert (
        joined.select("total_pot", "amount", "collected", "rake").rows()
        == [(6200, 6200, 5800, 400)] * 2
    )
    findings = audit(tables)
    assert (
        findings.filter(pl.col("kind").is_in(PAYOUT_KINDS + ("chip_conservation",))).height == 0
    ), findings


def test_run_it_twice_boards() -> None:
    tables = frames(parse_text(run_twice_text(2)))
    hand = tables["hands"].row(0, named=True)
    assert hand["board"] == cards("3c 4d Kh 9s 7c")
    assert hand["board2"] == cards("3c 4d Kh 9s Qd")  # the shared flop and turn, a second river
    assert tables["collections"].sort("seq").select("player", "amount", "board_index").rows() == [
        ("5a1b2c3d", 1450, 0),
        ("Hero", 1450, 0),
        ("5a1b2c3d", 2900, 1),
    ]


def test_other_games_are_skipped() -> None:
    plo = hand_text(2).replace("Omaha Hi/Lo Pot Limit", "PLO")
    omaha = hand_text(3).replace("Omaha Hi/Lo Pot Limit", "Omaha Pot Limit")
    result = parse_text("\n\n".join([hand_text(1), plo, omaha]))
    assert (result.parsed, result.skipped, result.rejected) == (1, 2, 0)
    assert result.skipped_games == {"Omaha": 1, "PLO": 1}


def test_unrepresentable_and_damaged_hands_are_quarantined() -> None:
    thrice = run_twice_text(2).replace(
        "*** FIRST SHOWDOWN ***", "*** THIRD RIVER *** [3c 4d Kh 9s] [Jh]\n*** FIRST SHOWDOWN ***"
    )
    cash_drop = hand_text(3).replace(
        "5a1b2c3d: posts small blind", "Cash Drop to Pot : total $0.2\n5a1b2c3d: posts small blind"
    )
    cut = hand_text(4).split("*** SUMMARY ***")[0]
    garbage = hand_text(5).replace("Hero: bets $7", "\x00garbage\nHero: bets $7")
    header = hand_text(6).replace("($0.5/$1)", "(?)")
    result = parse_text("\n\n".join([hand_text(1), thrice, cash_drop, cut, garbage, header]))
    assert (result.hands_found, result.parsed, result.rejected) == (6, 1, 5)
    reasons = dict(rejects(result))
    assert reasons["OM100000002"] == "hand run three times: only two boards can be stored"
    assert reasons["OM100000003"] == "cash drop to pot: house money no action accounts for"
    assert reasons["OM100000004"] == "truncated hand: no summary"
    assert reasons["OM100000005"].startswith("unrecognised line")
    assert reasons["OM100000006"] == "unrecognised hand header"  # the number is still read
