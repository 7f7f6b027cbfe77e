"""OnGame parser: corpus conformance, a golden hand, chip balance, the audit, damaged input.

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
from parsers.ongame import OnGameParser
from parsers.text import decode_lines
from pipeline.audit import PAYOUT_KINDS, audit_tables
from tests.parsers.corpus import cards, frames, manifest_rows
from tests.shared_data import CORPUS, needs_corpus

TOUR = "OnGame/tour/R-186-1481_1.txt"
MONEY_IN = ("post_sb", "post_bb", "post_dead", "ante", "call", "bet", "raise")


def parse_bytes(data: bytes, source: str = "test.txt") -> ParseResult:
    decoded = decode_lines(data)
    parser = OnGameParser()
    assert parser.sniff("\n".join(decoded.lines.head(20).to_list()))
    return parser.parse(decoded.lines, decoded.offsets, source)


def parse_file(relative: str) -> ParseResult:
    return parse_bytes((CORPUS / relative).read_bytes(), str(CORPUS / relative))


def manifest() -> list[dict[str, str]]:
    rows = manifest_rows()
    return [r for r in rows if r["role"].startswith("hand_history") and r["site"] == "OnGame"]


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


# Uncalled chips OnGame gives back without a line, read off each hand's summary: the bettor's
# final stack holds them (start − put in + collected + returned).
SILENT_RETURNS = {
    # "tsop13 bets 175", all fold; "Main pot: 220 won by tsop13 (220)", "tsop13 (2430), net: +170"
    "T5-330030241-8": ("tsop13", 175),
    # "Lakesdie raises 3165 to 3540 [all in]" against KREST 78's 1855 all-in;
    # "Seat 5: Lakesdie (4308), net: +648" = 3660 − 3660 + 1793 + 830 + 1685
    "T5-330030241-9": ("Lakesdie", 1685),
    # "Afro_Fyr bets 255", "KREST 78 folds"; "Main pot: 255 won by Afro_Fyr (255)", net: +150
    "T5-330030241-10": ("Afro_Fyr", 255),
    # "Lakesdie raises 4098 to 4308 [all in]", the others all in for less; "Lakesdie (158)"
    "T5-330030241-11": ("Lakesdie", 158),
}


@needs_corpus
def test_corpus_chips_balance() -> None:
    """Σ put in = Σ collected + rake, except by exactly the silently returned chips."""
    tables = frames(parse_file(TOUR))
    put = (
        tables["actions"]
        .filter(pl.col("kind").is_in(MONEY_IN))
        .group_by("hand_id")
        .agg(put=pl.col("amount").sum())
    )
    collected = tables["collections"].group_by("hand_id").agg(collected=pl.col("amount").sum())
    joined = (
        tables["hands"]
        .select("hand_id", "rake", "side_pots")
        .join(put, on="hand_id")
        .join(collected, on="hand_id")
        .with_columns(missing=pl.col("put") - pl.col("collected") - pl.col("rake"))
    )
    assert joined["rake"].to_list() == [0] * 12
    # Tournament pots are paid in full: each printed pot is what its winners got.
    assert (joined["side_pots"].list.sum() == joined["collected"]).all()
    missing = dict(joined.filter(pl.col("missing") != 0).select("hand_id", "missing").iter_rows())
    assert missing == {hand_id: amount for hand_id, (_, amount) in SILENT_RETURNS.items()}


# -- golden hand -------------------------------------------------------------------------------


@needs_corpus
def test_golden_side_pot_and_quartered_low() -> None:
    """T5-330030241-9: the site-formats example. Three all-ins on the flop, a main pot split
    high / two lows, a side pot split high / low, names with spaces."""
    tables = frames(parse_file(TOUR))
    hand_id = "T5-330030241-9"
    hand = tables["hands"].filter(pl.col("hand_id") == hand_id).row(0, named=True)
    assert (hand["tournament_id"], hand["buy_in"], hand["table_name"]) == (
        "R-186-1481",
        "$1.20",
        "Table #3",
    )
    assert (hand["game"], hand["limit_type"], hand["currency"], hand["money_scale"]) == (
        "O8",
        "PL",
        "CHIPS",
        1,
    )
    assert (hand["small_blind"], hand["big_blind"], hand["ante"]) == (15, 30, None)
    assert (hand["button_seat"], hand["max_seats"], hand["players_dealt"]) == (4, 8, 7)
    # "Fri Jun 28 19:13:34 GST 2013": Gulf Standard Time, UTC+4.
    assert hand["started_at"] == datetime(2013, 6, 28, 15, 13, 34, tzinfo=UTC)
    assert hand["time_zone"] == "GST"
    assert hand["board"] == cards("Kd 6h 4h 3c 3h")
    assert (hand["total_pot"], hand["rake"], hand["side_pots"]) == (None, 0, [3585, 1660])

    seats = tables["seats"].filter(pl.col("hand_id") == hand_id).sort("seat")
    assert seats.select("seat", "player", "stack_start", "is_hero").rows() == [
        (1, "KREST 78", 1975, False),
        (2, "Afro_Fyr", 1505, False),
        (3, "footpooljay1", 4150, False),
        (4, "LLIOPOXXX", 1145, False),
        (5, "Lakesdie", 3660, True),
        (7, "tsop13", 2430, False),
        (9, "AApoKK", 3305, False),
    ]
    holes = dict(seats.select("player", "hole_cards").iter_rows())
    assert holes["Lakesdie"] == cards("Js Kh Qd Ks")
    assert holes["KREST 78"] == cards("Jc Ac 7d 5h")
    assert holes["LLIOPOXXX"] == cards("7c Qc Ad 5d")
    assert holes["tsop13"] is None

    actions = tables["actions"].filter(pl.col("hand_id") == hand_id).sort("seq")
    assert actions.select(
        "street", "player", "kind", "amount", "to_amount", "is_all_in"
    ).rows() == [
        (0, "Lakesdie", "post_sb", 15, 15, False),
        (0, "tsop13", "post_bb", 30, 30, False),
        (0, "AApoKK", "call", 30, 30, False),
        (0, "KREST 78", "raise", 120, 120, False),
        (0, "Afro_Fyr", "fold", None, 0, False),
        (0, "footpooljay1", "fold", None, 0, False),
        (0, "LLIOPOXXX", "call", 120, 120, False),
        (0, "Lakesdie", "call", 105, 120, False),
        (0, "tsop13", "fold", None, 30, False),
        (0, "AApoKK", "call", 90, 120, False),
        (1, "Lakesdie", "bet", 375, 375, False),
        (1, "AApoKK", "fold", None, 0, False),
        (1, "KREST 78", "raise", 1635, 1635, False),
        (1, "LLIOPOXXX", "call", 1025, 1025, True),
        (1, "Lakesdie", "raise", 3165, 3540, True),  # "raises 3165 to 3540 [all in]"
        (1, "KREST 78", "call", 220, 1855, True),
        # The summary shows three hands.
        (3, "KREST 78", "show", None, None, False),
        (3, "LLIOPOXXX", "show", None, None, False),
        (3, "Lakesdie", "show", None, None, False),
    ]
    collections = tables["collections"].filter(pl.col("hand_id") == hand_id).sort("seq")
    assert collections.select("player", "amount", "pot_index", "half").rows() == [
        ("Lakesdie", 1793, 0, "high"),
        ("KREST 78", 896, 0, "low"),
        ("LLIOPOXXX", 896, 0, "low"),
        ("Lakesdie", 830, 1, "high"),
        ("KREST 78", 830, 1, "low"),
    ]
    showdowns = tables["showdowns"].filter(pl.col("hand_id") == hand_id)
    assert showdowns.select("player", "high_desc", "low_desc").rows() == [
        ("KREST 78", "STRAIGHT SEVEN", None),
        ("LLIOPOXXX", "STRAIGHT SEVEN", None),
        ("Lakesdie", "FULL_HOUSE KING, THREE", None),
    ]


@needs_corpus
def test_scoop_labels_and_showdown_mucks() -> None:
    """T5-330030241-1: ``won by tsop13 (125 High), tsop13 (125 Low)``; AApoKK called to the
    showdown and the summary prints no cards for it (``Seat 9: AApoKK (1920), net: -80``)."""
    tables = frames(parse_file(TOUR))
    hand_id = "T5-330030241-1"
    collections = tables["collections"].filter(pl.col("hand_id") == hand_id).sort("seq")
    assert collections.select("player", "amount", "pot_index", "half").rows() == [
        ("tsop13", 125, 0, "high"),
        ("tsop13", 125, 0, "low"),
    ]
    final = tables["actions"].filter(pl.col("hand_id") == hand_id, pl.col("street") == 3)
    assert final.filter(pl.col("kind").is_in(["show", "muck"])).select("player", "kind").rows() == [
        ("zlnalea", "show"),
        ("tsop13", "show"),
        ("AApoKK", "muck"),
    ]
    unsplit = tables["collections"].filter(pl.col("hand_id") == "T5-330030241-2")
    assert unsplit.select("player", "amount", "half").rows() == [("tsop13", 200, None)]


# -- the audit ---------------------------------------------------------------------------------


@pytest.fixture
def registered(monkeypatch: pytest.MonkeyPatch) -> None:
    """The audit reads the site's profile (rake printed, uncalled bets printed, payout lines)
    from the parser registry: register the parser for the test if it is not yet."""
    if not any(parser.site == "ongame" for parser in parsers.PARSERS):
        monkeypatch.setattr(parsers, "PARSERS", (*parsers.PARSERS, OnGameParser()))


@needs_corpus
def test_audit_finds_no_wrong_payment(registered: None) -> None:
    """With the silent uncalled returns given back by the audit (the profile says OnGame does
    not print them), every pot is paid as the rules say. T5-330030241-12 has an all-in player
    who then mucks ("Lakesdie raises 158 to 158 [all in]", "Seat 5: Lakesdie (0), net: -158"):
    his contribution still caps the main pot, so the audit, like OnGame, builds "Main pot: 790"
    and "Side pot 1: 450", both won by KREST 78."""
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

HAND = """***** History for hand T5-1-{n} (TOURNAMENT: "PL Omaha HL", R-1-1, buy-in: $1.20) *****
Start hand: Fri Jun 28 18:54:24 GST 2013
Table: Table #3 [330030241] (POT_LIMIT OMAHA_HI_LO 10/20, Chips)
User: Lakesdie
Button: seat 2
Players in round: 3 (8)
Seat 2: Afro Fyr (2000)
Seat 5: Lakesdie (2000)
Seat 6: zlnalea (2000)
Lakesdie posts small blind (10)
zlnalea posts big blind (20)
---
Dealing pocket cards
Dealing to Lakesdie: [As, 7d, 3s, 7c]
Afro Fyr calls 20
Lakesdie calls 10
zlnalea checks
--- Dealing flop [5d, Qs, 8h]
Lakesdie checks
zlnalea bets 60
Afro Fyr folds
Lakesdie folds
---
Summary:
Main pot: 60 won by zlnalea (60)
Rake taken: $0
Seat 2: Afro Fyr (1980), net: -20
Seat 5: Lakesdie (1980), net: -20
Seat 6: zlnalea (2040), net: +40
***** End of hand T5-1-{n} *****
"""


def hand_text(n: int) -> str:
    return HAND.format(n=n)


def rejects(result: ParseResult) -> list[tuple[str | None, str]]:
    return frames(result)["rejects"].select("hand_id", "reason").rows()


def test_synthetic_hand_with_spaces_in_names() -> None:
    result = parse_bytes((hand_text(1) + hand_text(2)).encode())
    assert (result.hands_found, result.parsed, result.rejected) == (2, 2, 0)
    actions = frames(result)["actions"].filter(pl.col("hand_id") == "T5-1-1")
    assert actions.filter(pl.col("player") == "Afro Fyr")["kind"].to_list() == ["call", "fold"]


def test_truncated_and_garbage_hands_are_quarantined() -> None:
    cut = hand_text(2).split("Summary:")[0]
    garbage = hand_text(3).replace("zlnalea checks\n", "zlnalea checks\n\x00\x13 garbage\n")
    result = parse_bytes((hand_text(1) + cut + garbage + hand_text(4)).encode())
    assert (result.hands_found, result.parsed, result.rejected) == (4, 2, 2)
    assert rejects(result) == [
        ("T5-1-2", "truncated hand: no summary"),
        ("T5-1-3", "unrecognised line: \x00\x13 garbage"),
    ]


def test_inconsistent_summary_is_quarantined() -> None:
    pot = hand_text(2).replace("won by zlnalea (60)", "won by zlnalea (70)")
    stack = hand_text(3).replace("zlnalea (2040), net: +40", "zlnalea (2050), net: +40")
    stranger = hand_text(4).replace("Afro Fyr folds", "Mallory folds")
    result = parse_bytes((hand_text(1) + pot + stack + stranger).encode())
    assert result.parsed == 1
    assert dict(rejects(result)) == {
        "T5-1-2": "pot lines do not add up: winners leave -10, rake taken 0",
        "T5-1-3": "summary seat 6: final stack is not the starting stack plus the net",
        "T5-1-4": "player not seated: Mallory",
    }


def test_other_games_are_skipped() -> None:
    holdem = hand_text(2).replace("OMAHA_HI_LO", "TEXAS_HOLDEM")
    result = parse_bytes((hand_text(1) + holdem).encode())
    assert (result.parsed, result.skipped, result.rejected) == (1, 1, 0)
    assert result.skipped_games == {"TEXAS_HOLDEM": 1}
