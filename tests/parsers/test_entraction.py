"""Entraction parser: corpus conformance, golden hands, chip balance, the audit, damaged input.

Golden values were read off the hand text by hand (amounts in euro cents), not produced by the
parser. The two corpus files hold the same hand (#2646515969); the EuroTable copy was edited by
hand upstream: its header says ``EUR 2.00/4.00`` while its posts and bets are those of the
100.00/200.00 table.
"""

from __future__ import annotations

from datetime import UTC, datetime

import polars as pl
import pytest

import parsers
from parsers.base import ParseResult
from parsers.entraction import EntractionParser
from parsers.text import decode_lines
from pipeline.audit import PAYOUT_KINDS, audit_tables
from tests.parsers.corpus import cards, chip_ledger, frames, manifest_rows, variant_counts
from tests.shared_data import CORPUS, needs_corpus

PORTLAND = "Entraction/cash/LO8-2max-EUR-100-200.Portland.txt"
EURO_TABLE = "Entraction/cash/LO8-EUR.EuroTable.txt"
MONEY_KINDS = (*PAYOUT_KINDS, "chip_conservation", "rake")


def parse_bytes(data: bytes, source: str = "test.txt") -> ParseResult:
    decoded = decode_lines(data)
    parser = EntractionParser()
    assert parser.sniff("\n".join(decoded.lines.head(20).to_list()))
    return parser.parse(decoded.lines, decoded.offsets, source)


def parse_file(relative: str) -> ParseResult:
    return parse_bytes((CORPUS / relative).read_bytes(), str(CORPUS / relative))


def manifest() -> list[dict[str, str]]:
    rows = manifest_rows()
    return [r for r in rows if r["role"].startswith("hand_history") and r["site"] == "Entraction"]


def audit(tables: dict[str, pl.DataFrame]) -> pl.DataFrame:
    return audit_tables(
        tables["hands"],
        tables["seats"],
        tables["actions"],
        tables["collections"],
        tables["showdowns"],
    ).discrepancies


# -- conformance -------------------------------------------------------------------------------


@needs_corpus
@pytest.mark.parametrize("row", manifest(), ids=lambda row: row["path"])
def test_corpus_file_counts(row: dict[str, str]) -> None:
    data = (CORPUS / row["path"]).read_bytes()
    head = "\n".join(decode_lines(data).lines.head(20).to_list())
    assert parsers.detect(head).site == "entraction"  # type: ignore[union-attr]
    result = parse_file(row["path"])
    assert result.parsed == variant_counts(row["variants"])["O8"] == 1
    assert (result.skipped, result.rejected) == (0, 0), frames(result)["rejects"]["reason"]
    assert result.hands_found == int(row["hands"])


@needs_corpus
def test_corpus_chips_balance() -> None:
    """Σ put in − paid back = Σ won + rake: 20 bets of 100 make 2,000 = 2 × 999.25 + 1.50."""
    for relative in (PORTLAND, EURO_TABLE):
        ledger = chip_ledger(frames(parse_file(relative)))
        assert ledger.select("hand_id", "put", "returned", "collected", "rake").rows() == [
            ("2646515969", 200000, 0, 199850, 150)
        ]


# -- golden hands ------------------------------------------------------------------------------


@needs_corpus
def test_golden_fixed_limit_split_pot() -> None:
    tables = frames(parse_file(PORTLAND))
    hand = tables["hands"].row(0, named=True)
    assert (hand["site"], hand["hand_id"], hand["table_name"], hand["game"]) == (
        "entraction",
        "2646515969",
        "Portland",
        "O8",
    )
    assert (hand["limit_type"], hand["currency"], hand["money_scale"]) == ("FL", "EUR", 100)
    # "100.00/200.00" are the bets; the blinds are the posts.
    assert (hand["small_bet"], hand["big_bet"]) == (10000, 20000)
    assert (hand["small_blind"], hand["big_blind"], hand["ante"]) == (5000, 10000, None)
    assert (hand["max_seats"], hand["button_seat"], hand["players_dealt"]) == (2, 2, 2)
    # "Game ended 2012-05-31 04:46:52 GMT+01:00"
    assert hand["started_at"] == datetime(2012, 5, 31, 3, 46, 52, tzinfo=UTC)
    assert hand["time_zone"] == "GMT+01:00"
    assert hand["board"] == cards("4c 3s 6c 3c Jh")
    assert (hand["total_pot"], hand["rake"]) == (None, 150)
    seats = tables["seats"].sort("seat")
    assert seats.select("seat", "player", "position", "stack_start", "sitting_out").rows() == [
        (1, "Ballyhoo", "BB", 400000, False),
        (2, "YoOyYo", "SB", 1037812, False),
    ]
    assert seats["hole_cards"].to_list() == [cards("2d Tc 5s Qh"), cards("3h 3d 7s 2s")]
    actions = tables["actions"].sort("seq")
    assert actions.select("street", "player", "kind", "amount", "to_amount").rows() == [
        (0, "Ballyhoo", "post_bb", 10000, 10000),
        (0, "YoOyYo", "post_sb", 5000, 5000),
        (0, "YoOyYo", "raise", 15000, 20000),  # "Raise (150.00)": chips added, 50 -> 200
        (0, "Ballyhoo", "call", 10000, 20000),
        (1, "Ballyhoo", "check", None, 0),
        (1, "YoOyYo", "bet", 10000, 10000),
        (1, "Ballyhoo", "raise", 20000, 20000),
        (1, "YoOyYo", "call", 10000, 20000),
        (2, "Ballyhoo", "bet", 20000, 20000),
        (2, "YoOyYo", "raise", 40000, 40000),
        (2, "Ballyhoo", "call", 20000, 40000),
        (3, "Ballyhoo", "check", None, 0),
        (3, "YoOyYo", "bet", 20000, 20000),
        (3, "Ballyhoo", "call", 20000, 20000),
        (3, "YoOyYo", "show", None, None),
        (3, "Ballyhoo", "show", None, None),
    ]
    assert not actions["is_all_in"].any()
    # One unlabelled line per half, no pot named: quads high, 6-5-4-3-2 low.
    assert tables["collections"].sort("seq").select(
        "player", "amount", "pot_index", "half"
    ).rows() == [("YoOyYo", 99925, None, None), ("Ballyhoo", 99925, None, None)]
    assert tables["showdowns"].select("player", "cards").rows() == [
        ("YoOyYo", cards("3h 3d 7s 2s")),
        ("Ballyhoo", cards("2d Tc 5s Qh")),
    ]


@needs_corpus
def test_golden_edited_header_keeps_its_stakes() -> None:
    """The EuroTable copy: bets from its header, blinds from its posts, as printed."""
    tables = frames(parse_file(EURO_TABLE))
    hand = tables["hands"].row(0, named=True)
    assert (hand["small_bet"], hand["big_bet"]) == (200, 400)
    assert (hand["small_blind"], hand["big_blind"]) == (5000, 10000)
    assert tables["actions"]["amount"].sum() == 200000


# -- the audit ---------------------------------------------------------------------------------


@needs_corpus
def test_audit_finds_no_money_problem() -> None:
    """Portland: no finding at all; the halves rebuilt by the audit are the printed lines.
    EuroTable: its edited header makes every bet and blind the wrong size, and nothing else."""
    portland = frames(parse_file(PORTLAND))
    assert audit(portland).height == 0
    payouts = audit_tables(
        portland["hands"],
        portland["seats"],
        portland["actions"],
        portland["collections"],
        portland["showdowns"],
    ).payouts
    assert payouts.sort("half").select("half", "player", "amount").rows() == [
        ("high", "YoOyYo", 99925),
        ("low", "Ballyhoo", 99925),
    ]
    edited = audit(frames(parse_file(EURO_TABLE)))
    assert edited.filter(pl.col("kind").is_in(MONEY_KINDS)).height == 0
    assert dict(edited.group_by("kind").len().iter_rows()) == {"bet_size": 6, "blinds": 2}


# -- synthetic hands: names with spaces, All-In, Payback, no-shows ------------------------------

# Pot limit, three players; a player named "Call" with a short stack calls all in for less and
# Hero77's unmatched 1.50 comes back as "Payback". Hero77 trips aces (high), Call 7-4-3-2-A (low).
SPLIT = """Game # {n} - Omaha Hi/Lo Pot Limit EUR 0.50/1.00 - Table "Testbed"

Players(max 6):
Sea Bass                    (EUR 100.00 in seat 1)
Call                        (EUR 12.00 in seat 3)
Hero77                      (EUR 80.00 in seat 5)

Dealer:                     Sea Bass
Small Blind:                Call        (0.50)
Big Blind:                  Hero77      (1.00)

Sea Bass                    Raise       (3.50)
Call                        Call        (3.00)
Hero77                      Call        (2.50)

Flop                        Ah - 2c - 7d

Call                        Check
Hero77                      Bet         (10.00)
Sea Bass                    Fold
Call                        All-In      (8.50)
Hero77                      Payback     (1.50)

Turn                        Ah - 2c - 7d - Kd
River                       Ah - 2c - 7d - Kd - 9s

Call shows:                 3c - 4d - Kh - Ks
Hero77 shows:               As - Ad - 8h - 6c

Hero77 wins:                EUR 13.25
Call wins:                  EUR 13.25
Rake:                       EUR 1.00

Game ended 2012-06-01 00:30:00 GMT+01:00
"""

# Fixed limit 2/4; Hero77 scoops (two lines), Sea Bass's "didn't show hand (...)" is a muck.
SCOOP = """Game # {n} - Omaha Hi/Lo Fixed Limit EUR 2.00/4.00 - Table "Testbed"

Players(max 6):
Sea Bass                    (EUR 100.00 in seat 1)
Call                        (EUR 40.00 in seat 3)
Hero77                      (EUR 80.00 in seat 5)

Dealer:                     Call
Small Blind:                Hero77      (1.00)
Big Blind:                  Sea Bass    (2.00)

Call                        Call        (2.00)
Hero77                      Call        (1.00)
Sea Bass                    Check

Flop                        Ah - 2c - 7d

Hero77                      Check
Sea Bass                    Bet         (2.00)
Call                        Fold
Hero77                      Call        (2.00)

Turn                        Ah - 2c - 7d - Kd

Hero77                      Check
Sea Bass                    Check

River                       Ah - 2c - 7d - Kd - 9s

Hero77                      Bet         (4.00)
Sea Bass                    Call        (4.00)

Hero77 shows:               As - Ad - 3h - 4c
Sea Bass didn't show hand (Kc - Qc - Jc - Tc)

Hero77 wins:                EUR 8.75
Hero77 wins:                EUR 8.75
Rake:                       EUR 0.50

Game ended 2012-05-31 04:48:18 GMT+01:00
"""

# Heads-up, the big blind folds: the winner's "didn't show hand" is no action.
FOLD = """Game # {n} - Omaha Hi/Lo Fixed Limit EUR 2.00/4.00 - Table "Duel"

Players(max 2):
Sea Bass                    (EUR 100.00 in seat 1)
Hero77                      (EUR 80.00 in seat 2)

Dealer:                     Hero77
Big Blind:                  Sea Bass    (2.00)
Small Blind:                Hero77      (1.00)

Hero77                      Raise       (3.00)
Sea Bass                    Fold
Hero77                      Payback     (2.00)

Hero77 didn't show hand

Hero77 wins:                EUR 4.00
Rake:                       EUR 0.00

Game ended 2012-05-31 04:50:00 GMT+01:00
"""


def test_synthetic_hands_parse_and_balance() -> None:
    data = "\n".join([SPLIT.format(n=1), SCOOP.format(n=2), FOLD.format(n=3)]).encode()
    result = parse_bytes(data)
    assert (result.hands_found, result.parsed, result.rejected) == (3, 3, 0)
    tables = frames(result)
    hands = tables["hands"].sort("hand_id")
    stakes = hands.select("hand_id", "limit_type", "small_blind", "big_blind", "button_seat")
    assert stakes.rows() == [
        ("1", "PL", 50, 100, 1),
        ("2", "FL", 100, 200, 3),
        ("3", "FL", 100, 200, 2),
    ]
    assert hands["started_at"][0] == datetime(2012, 5, 31, 23, 30, tzinfo=UTC)
    ledger = chip_ledger(tables).sort("hand_id")
    assert ledger.select("hand_id", "put", "returned", "collected", "rake").rows() == [
        ("1", 2900, 150, 2650, 100),
        ("2", 1800, 0, 1750, 50),
        ("3", 600, 200, 400, 0),
    ]
    actions = tables["actions"]
    flop = actions.filter((pl.col("hand_id") == "1") & (pl.col("street") == 1)).sort("seq")
    assert flop.select("player", "kind", "amount", "to_amount", "is_all_in").rows() == [
        ("Call", "check", None, 0, False),
        ("Hero77", "bet", 1000, 1000, False),
        ("Sea Bass", "fold", None, 0, False),  # a name with a space
        ("Call", "call", 850, 850, True),  # "All-In (8.50)": a call for less
        ("Hero77", "uncalled_return", 150, None, False),  # "Payback (1.50)"
    ]
    shows = actions.filter(pl.col("kind").is_in(["show", "muck"])).sort("hand_id", "seq")
    assert shows.select("hand_id", "player", "kind").rows() == [
        ("1", "Call", "show"),
        ("1", "Hero77", "show"),
        ("2", "Hero77", "show"),
        ("2", "Sea Bass", "muck"),
    ]
    seats = tables["seats"].filter(pl.col("hand_id") == "2").sort("seat")
    assert seats["hole_cards"].to_list() == [cards("Kc Qc Jc Tc"), None, cards("As Ad 3h 4c")]
    assert tables["collections"].filter(pl.col("hand_id") == "2")["amount"].to_list() == [875, 875]
    # Halves rebuilt per pot match the lines: a split, a scoop printed twice, an uncontested pot.
    assert audit(tables).height == 0


# -- damaged input -----------------------------------------------------------------------------


def rejects(result: ParseResult) -> list[tuple[str | None, str]]:
    return frames(result)["rejects"].sort("hand_id").select("hand_id", "reason").rows()


def test_damaged_hands_are_quarantined_with_a_reason() -> None:
    amount = SCOOP.format(n=2).replace("Call        (2.00)", "Call        (2,0.0)", 1)
    cut = SCOOP.format(n=3).split("Game ended")[0]
    unknown = SCOOP.format(n=4).replace(
        "Call                        Fold\n", "Call  Donates  (5.00)\n"
    )
    stranger = SCOOP.format(n=5).replace("Dealer:                     Call", "Dealer:   Nobody")
    board = SCOOP.format(n=6).replace("Ah - 2c - 7d - Kd\n", "Ah - 2c - 7h - Kd\n")
    win = SCOOP.format(n=7).replace("EUR 8.75\nRake", "EUR 8.7.5\nRake")
    data = "\n".join(
        [SCOOP.format(n=1), amount, cut, unknown, stranger, board, win, SCOOP.format(n=8)]
    ).encode()
    result = parse_bytes(data)
    assert (result.hands_found, result.parsed, result.skipped, result.rejected) == (8, 2, 0, 6)
    assert result.hands_found == result.parsed + result.skipped + result.rejected
    assert rejects(result) == [
        ("2", "unreadable or negative amount (call)"),
        ("3", "truncated hand: 'Game ended' line missing or repeated"),
        ("4", "unrecognised line: Call  Donates  (5.00)"),
        ("5", "dealer is not a seated player: Nobody"),
        ("6", "street lines disagree on the board"),
        ("7", "unreadable or negative amount (collected)"),
    ]
    stored = frames(result)["rejects"].filter(pl.col("hand_id") == "2").row(0, named=True)
    assert data[stored["source_offset"] :].startswith(b"Game # 2 - Omaha Hi/Lo")
    assert sorted(frames(result)["hands"]["hand_id"].to_list()) == ["1", "8"]


def test_other_games_skipped_and_preamble_quarantined() -> None:
    holdem = SCOOP.format(n=2).replace("Omaha Hi/Lo Fixed Limit", "Texas Hold'em Fixed Limit")
    five_card = SPLIT.format(n=3).replace("Omaha Hi/Lo Pot Limit", "5-Card Omaha Hi/Lo Pot Limit")
    data = ("banner\n" + "\n".join([SCOOP.format(n=1), holdem, five_card])).encode()
    result = parse_bytes(data)
    assert (result.hands_found, result.parsed, result.skipped, result.rejected) == (4, 1, 2, 1)
    assert result.skipped_games == {"5-Card Omaha Hi/Lo": 1, "Texas Hold'em": 1}
    assert rejects(result) == [(None, "text before the first hand header")]
