"""Winamax parser: conformance on the real corpus, golden hands, chip balance, audit, damage.

Golden values were read off the hand text by hand (amounts in cents), not produced by the parser.
"""

from __future__ import annotations

from datetime import UTC, datetime

import polars as pl
import pytest

import parsers
from parsers.base import ParseResult
from parsers.columns import card_code
from parsers.text import decode_lines
from parsers.winamax import GAME_NAMES, WinamaxParser
from tests.parsers.corpus import (
    cards,
    chip_ledger,
    frames,
    games_read,
    manifest_rows,
    parsed_games,
    variant_counts,
)
from tests.shared_data import CORPUS, needs_corpus

PARSER = WinamaxParser()
PAYOUT_KINDS = ("payout", "missing_winner", "unexpected_winner", "odd_chip")


def parse_data(data: bytes, name: str = "test.txt") -> ParseResult:
    decoded = decode_lines(data)
    assert PARSER.sniff("\n".join(decoded.lines.head(20).to_list())), name
    return PARSER.parse(decoded.lines, decoded.offsets, name)


def parse_text(text: str) -> ParseResult:
    return parse_data(text.encode("utf-8"))


def parse_file(relative: str) -> ParseResult:
    path = CORPUS / relative
    return parse_data(path.read_bytes(), str(path))


def manifest() -> list[dict[str, str]]:
    rows = manifest_rows()
    return [
        r for r in rows if r["role"].startswith("hand_history") and r["path"].startswith("Winamax/")
    ]


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


# -- conformance -------------------------------------------------------------------------------


@needs_corpus
@pytest.mark.parametrize("row", manifest(), ids=lambda row: row["path"])
def test_corpus_file_counts(row: dict[str, str]) -> None:
    """Omaha Hi/Lo and 5 Card Omaha Hi/Lo (Big O) hands parse, each with its game; no rejects."""
    result = parse_file(row["path"])
    counts = variant_counts(row["variants"])
    read = games_read(row["variants"], GAME_NAMES.values())
    assert parsed_games(result) == read
    assert result.parsed == sum(read.values())
    assert result.skipped == sum(counts.values()) - sum(read.values())
    assert result.rejected == 0, frames(result)["rejects"]["reason"].to_list()
    assert result.hands_found == int(row["hands"])




@needs_corpus
@pytest.mark.parametrize(
    "row", [r for r in manifest() if "O8:" in r["variants"]], ids=lambda r: r["path"]
)
def test_corpus_chips_balance(row: dict[str, str]) -> None:
    """Σ put in − returned = Σ collected + rake, and the printed total is net: Σ collected."""
    joined = chip_ledger(frames(parse_file(row["path"])))
    assert joined.height > 0
    unbalanced = joined.filter(
        (pl.col("put") - pl.col("returned") != pl.col("collected") + pl.col("rake"))
        | (pl.col("total_pot") != pl.col("collected"))
    )
    assert unbalanced.height == 0, unbalanced


@needs_corpus
def test_corpus_audit_has_no_payout_findings(registered: None) -> None:
    tables = [frames(parse_file(row["path"])) for row in manifest()]
    merged = {name: pl.concat([t[name] for t in tables]) for name in tables[0]}
    findings = audit(merged)
    read = [games_read(row["variants"], GAME_NAMES.values()) for row in manifest()]
    assert merged["hands"].height == sum(sum(counts.values()) for counts in read)
    assert findings.filter(pl.col("kind").is_in(PAYOUT_KINDS)).height == 0, findings
    # 2022: one "collected 3.38€ from pot" pays the main pot and the winner's unmatched top
    # together; another hand spreads them over "side pot 1" lines. Per player the money is
    # right: the second is a wording finding only.
    mannheim = findings.filter(pl.col("hand_id").str.starts_with("16999921-"))
    assert set(mannheim["severity"]) <= {"wording", "rules"}, mannheim
    assert mannheim.filter(pl.col("kind") == "payout_lines")["hand_id"].to_list() == [
        "16999921-1089-1645973956"
    ]
    # Winamax's total pot is net of rake: with its profile the totals balance.
    assert findings.filter(pl.col("kind") == "chip_conservation").height == 0, findings


# -- golden hands ------------------------------------------------------------------------------


@needs_corpus
def test_golden_scoop_with_labelled_halves() -> None:
    """#9247976-238-1478874600: Hero scoops 9.91€ as 4.96€ (HI) + 4.95€ (LO); rake 0.69€."""
    tables = frames(parse_file("Winamax/cash/PLO8-6max-EUR-1.00-2.00-201611.txt"))
    hand = tables["hands"].row(0, named=True)
    assert hand["hand_id"] == "9247976-238-1478874600"
    assert (hand["site"], hand["game"], hand["limit_type"]) == ("winamax", "O8", "PL")
    assert (hand["currency"], hand["money_scale"]) == ("EUR", 100)
    assert (hand["small_blind"], hand["big_blind"], hand["small_bet"], hand["ante"]) == (
        100,
        200,
        None,
        None,
    )
    assert (hand["table_name"], hand["max_seats"], hand["button_seat"]) == ("Göttingen 04", 6, 1)
    assert hand["started_at"] == datetime(2016, 11, 11, 14, 30, 0, tzinfo=UTC)
    assert hand["time_zone"] == "UTC"
    assert hand["board"] == cards("Ac 5s 4h 5d Qc") and hand["board2"] is None
    assert (hand["total_pot"], hand["rake"], hand["players_dealt"]) == (991, 69, 2)
    assert hand["source_offset"] == 0

    seats = tables["seats"].sort("seat")
    assert seats.select("seat", "player", "stack_start", "is_hero", "position").rows() == [
        (1, "Player0", 13836, False, "SB"),
        (2, "Hero", 21291, True, "BB"),
    ]
    assert seats["hole_cards"].to_list() == [cards("8d 2d 2c Td"), cards("4d 9h 7h 2s")]

    actions = tables["actions"].sort("seq")
    assert actions.select(
        "street", "player", "kind", "amount", "to_amount", "is_all_in"
    ).rows() == [
        (0, "Player0", "post_sb", 100, 100, False),
        (0, "Hero", "post_bb", 200, 200, False),
        (0, "Player0", "call", 100, 200, False),
        (0, "Hero", "check", None, 200, False),
        (1, "Hero", "bet", 330, 330, False),
        (1, "Player0", "call", 330, 330, False),
        (2, "Hero", "check", None, 0, False),
        (2, "Player0", "check", None, 0, False),
        (3, "Hero", "check", None, 0, False),
        (3, "Player0", "check", None, 0, False),
        (3, "Player0", "show", None, None, False),
        (3, "Hero", "show", None, None, False),
    ]
    assert tables["collections"].sort("seq").select(
        "player", "amount", "pot_index", "half", "board_index"
    ).rows() == [
        ("Hero", 496, 0, "high", 0),
        ("Hero", 495, 0, "low", 0),
    ]
    # This export drops the HI/LO labels: the first shows line is the high, the second the low.
    assert tables["showdowns"].select("player", "high_desc", "low_desc").rows() == [
        ("Player0", "Two pairs : 5 and 2", None),
        ("Hero", "Two pairs : 5 and 4", "High card : 7"),
    ]


@needs_corpus
def test_golden_play_money_split() -> None:
    """#8976324-443-1476102647: play money with cents; 0.47 high to Player0, 0.46 low to Hero."""
    tables = frames(parse_file("Winamax/cash/PLO8-2max-play-0.05-0.10-201610.export.txt"))
    hand = tables["hands"].row(0, named=True)
    assert (hand["game"], hand["currency"], hand["money_scale"]) == ("O8", "PLAY", 100)
    assert (hand["small_blind"], hand["big_blind"], hand["total_pot"], hand["rake"]) == (
        5,
        10,
        93,
        7,
    )
    assert (hand["table_name"], hand["max_seats"], hand["button_seat"]) == ("Derby", 2, 2)
    assert hand["board"] == cards("3h 4s 5h 7c 4c")
    assert hand["started_at"] == datetime(2016, 10, 10, 12, 30, 47, tzinfo=UTC)
    assert tables["collections"].sort("seq").select(
        "player", "amount", "pot_index", "half"
    ).rows() == [
        ("Player0", 47, 0, "high"),
        ("Hero", 46, 0, "low"),
    ]
    river = tables["actions"].filter(pl.col("street") == 3).sort("seq")
    assert river.select("player", "kind", "amount", "to_amount").rows() == [
        ("Hero", "bet", 30, 30),
        ("Player0", "call", 30, 30),
        ("Hero", "show", None, None),
        ("Player0", "show", None, None),
    ]
    assert tables["showdowns"].select("player", "high_desc", "low_desc").rows() == [
        ("Hero", "Two pairs : 5 and 4", "High card : 7"),
        ("Player0", "Two pairs : Jacks and 4", "High card : 8"),
    ]
    stacks = dict(tables["seats"].select("player", "stack_start").iter_rows())
    assert stacks == {"Hero": 400, "Player0": 1000}


# The corpus' side-pot hand is 5 Card Omaha Hi/Lo (skipped): the same hand with four hole cards
# each (the fifth card dropped) exercises the uncalled excess that Winamax pays as a side pot.
SIDE_POT_HAND = """Winamax Poker - CashGame - HandId: #9247976-232-1478874498 - Omaha Hi/Lo pot limit (1€/2€) - 2016/11/11 14:28:18 UTC
Table: 'Göttingen 04' 6-max (real money) Seat #1 is the button
Seat 1: Player0 (78€)
Seat 2: Hero (207.96€)
*** ANTE/BLINDS ***
Player0 posts small blind 1€
Hero posts big blind 2€
Dealt to Hero [3h Ah Jc Ts]
*** PRE-FLOP ***
Player0 raises 4€ to 6€
Hero raises 12€ to 18€
Player0 raises 36€ to 54€
Hero calls 36€
*** FLOP *** [Kh 4c 9c]
Hero bets 108€
Player0 calls 24€ and is all-in
*** TURN *** [Kh 4c 9c][3c]
*** RIVER *** [Kh 4c 9c 3c][5s]
*** SHOW DOWN ***
Player0 shows [Th Ac Tc Td] (Flush Ace high)
Hero shows [3h Ah Jc Ts] (Two pairs : 9 and 3)
Hero collected 84€ from side pot 1
Player0 collected 154.50€ from main pot
*** SUMMARY ***
Total pot 238.50€ | Rake 1.50€
Board: [Kh 4c 9c 3c 5s]
Seat 1: Player0 (small blind) (button) showed [Th Ac Tc Td] and won 154.50€ with Flush Ace high
Seat 2: Hero (big blind) showed [3h Ah Jc Ts] and won 84€ with Two pairs : 9 and 3
"""


def test_uncalled_excess_paid_as_a_side_pot(registered: None) -> None:
    """Hero's 84€ over Player0's all-in is not returned but 'collected from side pot 1'."""
    tables = frames(parse_text(SIDE_POT_HAND))
    assert tables["collections"].sort("seq").select(
        "player", "amount", "pot_index", "half"
    ).rows() == [
        ("Hero", 8400, 1, None),
        ("Player0", 15450, 0, None),
    ]
    assert tables["actions"].filter(pl.col("kind") == "uncalled_return").height == 0
    flop = tables["actions"].filter(pl.col("street") == 1).sort("seq")
    assert flop.select("player", "kind", "amount", "to_amount", "is_all_in").rows()[:2] == [
        ("Hero", "bet", 10800, 10800, False),
        ("Player0", "call", 2400, 2400, True),
    ]
    row = chip_ledger(tables).row(0, named=True)
    assert (row["put"], row["collected"], row["rake"], row["total_pot"]) == (
        24000,
        23850,
        150,
        23850,
    )
    findings = audit(tables)
    assert (
        findings.filter(pl.col("kind").is_in(PAYOUT_KINDS + ("chip_conservation",))).height == 0
    ), findings


# -- damaged input -----------------------------------------------------------------------------


def hand_text(number: int) -> str:
    return SIDE_POT_HAND.replace("#9247976-232-1478874498", f"#9247976-232-{number}")


def rejects(result: ParseResult) -> list[tuple[str | None, str]]:
    return frames(result)["rejects"].select("hand_id", "reason").rows()


def test_truncated_hand_is_quarantined_and_the_rest_parsed() -> None:
    cut = hand_text(2).split("*** SUMMARY ***")[0]
    result = parse_text(hand_text(1) + "\n" + cut + "\n" + hand_text(3))
    assert (result.hands_found, result.parsed, result.rejected) == (3, 2, 1)
    assert rejects(result) == [("9247976-232-2", "truncated hand: no summary")]


def test_garbage_line_quarantines_only_its_hand() -> None:
    data = (
        hand_text(1).encode()
        + b"\n"
        + hand_text(2).encode().replace(b"Hero bets", b"\x00\xff\xfegarbage\nHero bets")
        + b"\n"
        + hand_text(3).encode()
    )
    result = parse_data(data)
    assert (result.parsed, result.rejected) == (2, 1)
    stored = frames(result)["rejects"].row(0, named=True)
    assert stored["hand_id"] == "9247976-232-2" and stored["reason"].startswith("unrecognised line")
    assert data[stored["source_offset"] :].startswith(
        b"Winamax Poker - CashGame - HandId: #9247976-232-2 "
    )


def test_bad_header_other_game_and_impossible_cards() -> None:
    header = hand_text(2).replace("Omaha Hi/Lo pot limit (1€/2€)", "Omaha Hi/Lo ???")
    holdem = hand_text(3).replace("Omaha Hi/Lo pot limit", "Holdem no limit")
    repeated = (
        hand_text(4)
        .replace("Dealt to Hero [3h Ah Jc Ts]", "Dealt to Hero [3h Ah Jc Kh]")
        .replace("Hero shows [3h Ah Jc Ts]", "Hero shows [3h Ah Jc Kh]")
        .replace("showed [3h Ah Jc Ts]", "showed [3h Ah Jc Kh]")
    )
    stranger = hand_text(5).replace("Hero bets 108€", "Mallory bets 108€")
    result = parse_text("\n".join([hand_text(1), header, holdem, repeated, stranger]))
    assert (result.hands_found, result.parsed, result.skipped, result.rejected) == (5, 1, 1, 3)
    assert result.skipped_games == {"Holdem": 1}
    assert dict(rejects(result)) == {
        None: "unrecognised hand header",
        "9247976-232-4": f"duplicate card code {card_code('Kh')}",
        "9247976-232-5": "player not seated: Mallory",
    }


def test_text_before_the_first_hand_is_quarantined() -> None:
    result = parse_text("exported by some tool\n\n" + hand_text(1))
    assert (result.hands_found, result.parsed, result.rejected) == (2, 1, 1)
    assert rejects(result) == [(None, "text before the first hand header")]


SHORT_BIG_BLIND = """Winamax Poker - CashGame - HandId: #604004-36565-1303594573 - Omaha Hi/Lo no limit (0.05€/0.10€) - 2011/04/23 21:36:13 UTC
Table: 'Castor' 6-max (real money) Seat #4 is the button
Seat 1: Ann (0.01€)
Seat 3: Ben (28.20€)
Seat 4: Cid (10.34€)
Seat 6: Dan (19.26€)
*** ANTE/BLINDS ***
Dan posts small blind 0.05€
Ann posts big blind 0.01€ and is all-in
Dealt to Ben [Kh 7d Jd 2h]
*** PRE-FLOP *** 
Ben folds
Cid folds
Dan folds
Ann collected 0.02€ from pot
*** SUMMARY ***
Total pot 0.02€ | No rake
Seat 1: Ann (big blind) won 0.02€
Seat 3: Ben folded before Flop
Seat 4: Cid (button) folded before Flop
Seat 6: Dan (small blind) folded before Flop
"""


def test_folded_small_blind_gets_its_unmatched_blind_back(registered: None) -> None:
    """Dan folds his 0.05€ small blind to Ann's 0.01€ all-in big blind: the 0.04€ nobody could
    win goes back to him (Winamax prints no return), Ann wins 0.01€ + 0.01€, and the big blind
    posted all-in for less does not set the table's blind (0.10€, from the header)."""
    result = parse_text(SHORT_BIG_BLIND)
    assert result.rejected == 0
    tables = frames(result)
    returned = tables["actions"].filter(pl.col("kind") == "uncalled_return")
    assert returned.select("player", "amount").rows() == [("Dan", 4)]
    hand = tables["hands"].row(0, named=True)
    assert (hand["small_blind"], hand["big_blind"]) == (5, 10)
    assert audit(tables).height == 0
