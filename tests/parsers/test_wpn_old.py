"""WPN old-format (``Game ID:``) parser: conformance on the real corpus, golden hands, chip
balance, audit, the known-bad ``no.flop`` file, damaged input.

Golden values were read off the hand text by hand (amounts in cents), not produced by the parser.
"""

from __future__ import annotations

from datetime import UTC, datetime

import polars as pl
import pytest

import parsers
from parsers.base import ParseResult
from parsers.text import decode_lines, decode_text
from parsers.wpn_old import WpnOldParser
from tests.parsers.corpus import cards, chip_ledger, frames, manifest_rows, variant_counts
from tests.shared_data import CORPUS, needs_corpus

PARSER = WpnOldParser()
PAYOUT_KINDS = ("payout", "missing_winner", "unexpected_winner", "odd_chip")
UTF16 = "Winning/cash/PLO8-6max-USD-0.10-0.25-201608.HH00000000 G0.txt"
NO_FLOP = "Winning/cash/PLO8-6max-USD-20-40-201609.no.flop.HH20160913 G31116857.txt"
SHORT = "Winning/cash/PLO8-6max-USD-3-6-201701.short.HH20170115 G31084891.txt"
ALL_IN = "Winning/cash/PLO8-6max-USD-40-80-201610.disconnected.allin.HH00000000 G0.txt"
TOURNAMENT = "Winning/tour/PLO8-2018.Equity-2.txt"


def parse_data(data: bytes, name: str = "test.txt") -> ParseResult:
    decoded = decode_lines(data)
    assert PARSER.sniff("\n".join(decoded.lines.head(20).to_list())), name
    return PARSER.parse(decoded.lines, decoded.offsets, name)


def parse_file(relative: str) -> ParseResult:
    path = CORPUS / relative
    return parse_data(path.read_bytes(), str(path))


def manifest() -> list[dict[str, str]]:
    """The WPN files in the old layout, told by their text (a note may not name it)."""
    rows = manifest_rows()
    return [
        row
        for row in rows
        if row["role"].startswith("hand_history")
        and row["path"].startswith("Winning/")
        and PARSER.sniff(decode_text((CORPUS / row["path"]).read_bytes()[:4096]))
    ]


def rejects(result: ParseResult) -> list[tuple[str | None, str]]:
    return frames(result)["rejects"].select("hand_id", "reason").rows()


@pytest.fixture
def registered(monkeypatch: pytest.MonkeyPatch) -> None:
    """The audit reads each site's profile from the parser registry."""
    if not any(parser.site == PARSER.site for parser in parsers.PARSERS):
        monkeypatch.setattr(parsers, "PARSERS", (*parsers.PARSERS, PARSER))


def good_corpus_tables() -> dict[str, pl.DataFrame]:
    tables = [frames(parse_file(path)) for path in (UTF16, SHORT, ALL_IN)]
    return {name: pl.concat([t[name] for t in tables]) for name in tables[0]}


# -- conformance -------------------------------------------------------------------------------


def test_manifest_lists_the_old_format_files() -> None:
    if not manifest():
        pytest.skip(f"conformance corpus not found at {CORPUS}")
    assert sorted(row["path"] for row in manifest()) == sorted(
        [UTF16, NO_FLOP, SHORT, ALL_IN, TOURNAMENT]
    )


@needs_corpus
@pytest.mark.parametrize(
    "row", [r for r in manifest() if r["path"] != NO_FLOP], ids=lambda r: r["path"]
)
def test_corpus_file_counts(row: dict[str, str]) -> None:
    result = parse_file(row["path"])
    counts = variant_counts(row["variants"])
    assert result.parsed == counts.get("O8", 0)
    assert result.skipped == sum(n for name, n in counts.items() if name != "O8")
    assert result.rejected == 0, frames(result)["rejects"]["reason"].to_list()
    assert result.hands_found == int(row["hands"])


@needs_corpus
def test_known_bad_no_flop_file_is_quarantined() -> None:
    """site-formats.md: actors and summary disagree (and it rakes a preflop hand).

    ``Player Player3 folds`` ... ``Uncalled bet (20) returned to Player3`` ...
    ``*Player Player3 mucks (does not show cards). Bets: 40. Collects: 79.25.`` while
    ``Player Player0 has small blind (10)``, ``Player Player0 raises (50)`` and the summary says
    ``Player Player0 does not show cards.Bets: 0.``

    No reading of a form reconciles them. The actions contradict themselves: Player3 folds
    first, yet is returned an uncalled 20 and collects. The money differs: the actions put in
    10 + 20 + 40 + 50 − 20 = 100, the summary's Bets 40 + 40 = 80 (= Pot 79.25 + Rake 0.51 + JP
    fee 0.24), with Bets of 0 for both players who posted a blind. It is no walk (two raises are
    made), and the summary's Bets are the same field as in every other hand: the reject stands.
    """
    result = parse_file(NO_FLOP)
    assert (result.hands_found, result.parsed, result.skipped, result.rejected) == (1, 0, 0, 1)
    stored = frames(result)["rejects"].row(0, named=True)
    assert stored["hand_id"] == "727152195"
    assert stored["reason"] == (
        "inconsistent hand: the summary's Bets of Player0 is 0, its actions put in 6000 (minor units)"
    )
    assert stored["raw_text"].startswith("Game started at: 2016/9/13 21:59:15\nGame ID: 727152195")
    assert stored["source_offset"] == 0


@needs_corpus
def test_corpus_chips_balance() -> None:
    """Σ put in − returned = Σ collected + rake (rake + JP fee) = printed pot + rake."""
    tables = good_corpus_tables()
    joined = chip_ledger(tables)
    assert joined.height == 7
    unbalanced = joined.filter(
        (pl.col("put") - pl.col("returned") != pl.col("collected") + pl.col("rake"))
        | (pl.col("total_pot") != pl.col("collected"))
    )
    assert unbalanced.height == 0, unbalanced


@needs_corpus
def test_corpus_audit_payouts(registered: None) -> None:
    """Every pot is paid as the rules say: no payout-kind finding.

    Old WPN prints one total per player ("Collects: 238.50."); its profile says so (payout_lines
    "per_player"), so the audit compares per player only.
    """
    from pipeline.audit import audit_tables

    tables = good_corpus_tables()
    findings = audit_tables(
        tables["hands"],
        tables["seats"],
        tables["actions"],
        tables["collections"],
        tables["showdowns"],
    ).discrepancies
    payout = findings.filter(pl.col("kind").is_in(PAYOUT_KINDS))
    assert payout.height == 0, payout


@needs_corpus
def test_corpus_tournament_hand_without_rake() -> None:
    """#1092512047 prints ``Pot: 10958`` and no rake: a tournament (its table is ``$200 GTD PLO8
    R/A, Table 5``) pays its fee with the buy-in. Stored in chips, rake null, chips balanced."""
    result = parse_file(TOURNAMENT)
    assert (result.hands_found, result.parsed, result.rejected) == (1, 1, 0), rejects(result)
    tables = frames(result)
    hand = tables["hands"].row(0, named=True)
    assert (hand["hand_id"], hand["tournament_id"], hand["table_name"]) == (
        "1092512047",
        "$200 GTD PLO8 R/A",
        "$200 GTD PLO8 R/A, Table 5",
    )
    assert (hand["currency"], hand["money_scale"], hand["limit_type"]) == ("CHIPS", 1, "PL")
    assert (hand["small_blind"], hand["big_blind"], hand["total_pot"], hand["rake"]) == (
        20,
        40,
        10958,
        None,
    )
    seats = tables["seats"].sort("seat")
    assert seats["stack_start"].to_list()[:3] == [5148, 5884, 4000]
    hero = seats.filter(pl.col("is_hero")).row(0, named=True)
    assert (hero["player"], hero["hole_cards"]) == ("Granny_Annie", cards("3d 5h 6s 2s"))
    ledger = chip_ledger(tables).row(0, named=True)
    assert (ledger["put"], ledger["returned"], ledger["collected"]) == (12293, 1335, 10958)
    assert tables["collections"].sort("seq").select("player", "amount").rows() == [
        ("xxPokerVixenxx", 5479),
        ("zc13expert", 5479),
    ]


@needs_corpus
def test_a_cash_hand_without_a_readable_rake_is_still_quarantined() -> None:
    """The same pot line at a cash table (the tournament hand on a cash table's name, and a
    cash hand whose rake is cut off) is money unaccounted for."""
    tournament = (CORPUS / TOURNAMENT).read_text()
    at_cash_table = tournament.replace("$200 GTD PLO8 R/A, Table 5", "(PRR) Urayuli")
    no_rake = hand_text(7).replace("Pot: 0.95. Rake 0.05", "Pot: 0.95")
    garbled_rake = hand_text(8).replace("Rake 0.05", "Rake n/a")
    result = parse_text("\n".join([at_cash_table, no_rake, garbled_rake, hand_text(9)]))
    assert (result.hands_found, result.parsed, result.rejected) == (4, 1, 3)
    assert rejects(result) == [
        ("1092512047", "missing or unreadable pot / rake"),
        ("7", "missing or unreadable pot / rake"),
        ("8", "missing or unreadable pot / rake"),
    ]


# -- golden hands ------------------------------------------------------------------------------


@needs_corpus
def test_golden_disconnected_all_in_side_pot() -> None:
    """#741631166: fixed limit 40/80; Player0 disconnects all-in for 80, a side pot follows."""
    tables = frames(parse_file(ALL_IN))
    hand = tables["hands"].row(0, named=True)
    assert (hand["site"], hand["hand_id"], hand["game"], hand["limit_type"]) == (
        "wpn_old",
        "741631166",
        "O8",
        "FL",
    )
    assert (hand["currency"], hand["money_scale"], hand["table_name"]) == ("USD", 100, "(PRR) Xana")
    assert (hand["small_bet"], hand["big_bet"], hand["small_blind"], hand["big_blind"]) == (
        4000,
        8000,
        2000,
        4000,
    )
    assert (hand["max_seats"], hand["button_seat"], hand["players_dealt"]) == (None, 4, 6)
    # "Game started at: 2016/10/2 21:0:42" has no zone: read as UTC.
    assert hand["started_at"] == datetime(2016, 10, 2, 21, 0, 42, tzinfo=UTC)
    assert hand["time_zone"] is None
    assert hand["board"] == cards("6d 7h 3h 2c 2h")
    assert (hand["total_pot"], hand["rake"]) == (47700, 300)  # Rake 2.76 + JP fee 0.24

    seats = tables["seats"].sort("seat")
    assert seats.select("seat", "player", "stack_start", "is_hero", "sitting_out").rows() == [
        (1, "Hero", 287250, True, False),
        (2, "Player0", 101700, False, False),
        (3, "Player1", 409138, False, False),
        (4, "Player2", 271375, False, False),
        (5, "Player3", 253450, False, False),
        (6, "Player4", 194550, False, False),
    ]
    hole = dict(seats.select("player", "hole_cards").iter_rows())
    assert hole["Hero"] == cards("2d 5h 3c Kc")
    assert hole["Player4"] == cards("Ts 4c 9c 9h")  # printed "[10s 4c 9c 9h]"
    assert hole["Player2"] is None

    actions = tables["actions"].sort("seq")
    assert actions.select(
        "street", "player", "kind", "amount", "to_amount", "is_all_in"
    ).rows() == [
        (0, "Player3", "post_sb", 2000, 2000, False),
        (0, "Player4", "post_bb", 4000, 4000, False),
        (0, "Hero", "fold", None, 0, False),
        (0, "Player0", "call", 4000, 4000, False),
        (0, "Player1", "raise", 8000, 8000, False),
        (0, "Player2", "call", 8000, 8000, False),
        (0, "Player3", "call", 6000, 8000, False),
        (0, "Player4", "call", 4000, 8000, False),
        (0, "Player0", "call", 4000, 8000, False),
        (1, "Player3", "check", None, 0, False),
        (1, "Player4", "check", None, 0, False),
        (1, "Player0", "check", None, 0, False),
        (1, "Player1", "bet", 4000, 4000, False),
        (1, "Player2", "fold", None, 0, False),
        (1, "Player3", "fold", None, 0, False),
        (1, "Player4", "call", 4000, 4000, False),
        (1, "Player0", "call", 0, 0, True),  # "Player Player0 allin", nothing added
        (2, "Player4", "check", None, 0, False),
        (2, "Player1", "check", None, 0, False),
        (3, "Player4", "check", None, 0, False),
        (3, "Player1", "check", None, 0, False),
        (3, "Player0", "show", None, None, False),
        (3, "Player1", "show", None, None, False),
        (3, "Player4", "show", None, None, False),
    ]
    assert tables["collections"].sort("seq").select(
        "player", "amount", "pot_index", "half"
    ).rows() == [
        ("Player0", 19850, None, None),
        ("Player1", 23850, None, None),
        ("Player4", 4000, None, None),
    ]
    assert tables["showdowns"].select("player", "high_desc", "low_desc").rows() == [
        ("Player0", "Flush, 7 high", None),
        ("Player1", "Two pairs. 7s and 2s", "A A 2 3 6 7"),
        ("Player4", "Two pairs. 9s and 2s", None),
    ]


@needs_corpus
def test_golden_utf16_file_and_offsets() -> None:
    """Five hands in UTF-16LE; offsets point at each ``Game started at:`` in the raw bytes."""
    data = (CORPUS / UTF16).read_bytes()
    tables = frames(parse_data(data))
    hands = tables["hands"].sort("source_offset")
    assert hands["hand_id"].to_list() == [
        "693977531",
        "693977937",
        "693978138",
        "693978351",
        "693978609",
    ]
    for offset, hand_id in zip(
        hands["source_offset"].to_list(), hands["hand_id"].to_list(), strict=True
    ):
        text = data[offset : offset + 400].decode("utf-16-le", errors="ignore")
        assert text.startswith("Game started at: ") and f"Game ID: {hand_id} " in text
    hand = hands.filter(pl.col("hand_id") == "693978138").row(0, named=True)
    assert (hand["limit_type"], hand["small_blind"], hand["big_blind"], hand["table_name"]) == (
        "PL",
        10,
        25,
        "(PRR) Elepaio",
    )
    assert (hand["total_pot"], hand["rake"], hand["button_seat"]) == (399, 21, 1)  # 0.15 + 0.06
    assert hand["board"] == cards("Js 4c 5s 3s")
    assert hand["started_at"] == datetime(2016, 8, 2, 11, 18, 29, tzinfo=UTC)
    actions = tables["actions"].filter(pl.col("hand_id") == "693978138").sort("seq")
    assert actions.select("street", "player", "kind", "amount", "to_amount").rows() == [
        (0, "ChazDazzle", "post_sb", 10, 10),
        (0, "ramair7", "post_bb", 25, 25),
        (0, "fullstacker", "raise", 85, 85),
        (0, "ChazDazzle", "fold", None, 10),
        (0, "ramair7", "call", 60, 85),
        (1, "ramair7", "check", None, 0),
        (1, "fullstacker", "bet", 120, 120),
        (1, "ramair7", "call", 120, 120),
        (2, "ramair7", "check", None, 0),
        (2, "fullstacker", "bet", 290, 290),
        (2, "ramair7", "fold", None, 0),
        (2, "fullstacker", "uncalled_return", 290, None),
        # "Player fullstacker mucks cards" with everyone else folded: not showing, no muck.
    ]
    assert tables["collections"].filter(pl.col("hand_id") == "693978138").select(
        "player", "amount"
    ).rows() == [("fullstacker", 399)]
    hero = (
        tables["seats"]
        .filter((pl.col("hand_id") == "693978138") & pl.col("is_hero"))
        .row(0, named=True)
    )
    assert (hero["player"], hero["hole_cards"]) == ("ChazDazzle", cards("8h 9d Kd Kc"))
    shown = tables["seats"].filter(
        (pl.col("hand_id") == "693978351") & (pl.col("player") == "fullstacker")
    )
    assert shown["hole_cards"].to_list() == [cards("2s 8h 2h Jd")]


@needs_corpus
def test_golden_short_table_all_in_raise() -> None:
    """#820605052: 'Player Player2 allin (402.40)' from the small blind is a raise to 405.40."""
    tables = frames(parse_file(SHORT))
    hand = tables["hands"].row(0, named=True)
    assert (hand["table_name"], hand["limit_type"], hand["total_pot"], hand["rake"]) == (
        "(PRR) Pamola (Short)",
        "PL",
        4200,
        0,
    )
    allin = tables["actions"].filter(pl.col("player") == "Player2").sort("seq")
    assert allin.select("kind", "amount", "to_amount", "is_all_in").rows() == [
        ("post_sb", 300, 300, False),
        ("raise", 40240, 40540, True),
        ("uncalled_return", 39340, None, False),
    ]
    assert tables["collections"].select("player", "amount").rows() == [("Player2", 4200)]


# -- damaged input -----------------------------------------------------------------------------

HAND = """Game started at: 2016/8/2 11:19:5
Game ID: {number} 0.10/0.25 (PRR) Elepaio (Omaha HiLow)
Seat 3 is the button
Seat 1: Alice (38.13).
Seat 3: Bob (9.40).
Seat 4: Carol (14.51).
Player Carol has small blind (0.10)
Player Alice has big blind (0.25)
Player Carol received a card.
Player Carol received a card.
Player Carol received a card.
Player Carol received a card.
Player Alice received a card.
Player Alice received a card.
Player Alice received a card.
Player Alice received a card.
Player Bob received card: [4h]
Player Bob received card: [Js]
Player Bob received card: [3s]
Player Bob received card: [9h]
Player Bob folds
Player Carol calls (0.15)
Player Alice checks
*** FLOP ***: [5s 7h 4d]
Player Carol checks
Player Alice bets (0.25)
Player Carol calls (0.25)
*** TURN ***: [5s 7h 4d] [3h]
Player Carol checks
Player Alice checks
*** RIVER ***: [5s 7h 4d 3h] [Ah]
Player Carol checks
Player Alice checks
Player Carol mucks cards
------ Summary ------
Pot: 0.95. Rake 0.05
Board: [5s 7h 4d 3h Ah]
*Player Alice shows: Flush, A high [2s 8h 2h Jd] Low hand (A A 2 3 4 8 ).Bets: 0.50. Collects: 0.95. Wins: 0.45.
Player Bob does not show cards.Bets: 0. Collects: 0. Wins: 0.
Player Carol mucks (does not show cards). Bets: 0.50. Collects: 0. Loses: 0.50.
Game ended at: 2016/8/2 11:19:41
"""


def hand_text(number: int) -> str:
    return HAND.format(number=number)


def parse_text(text: str) -> ParseResult:
    return parse_data(text.encode("utf-8"))


def test_showdown_muck_is_kept_and_the_winner_shows() -> None:
    tables = frames(parse_text(hand_text(1)))
    tail = tables["actions"].sort("seq").tail(2)
    assert tail.select("player", "kind").rows() == [("Carol", "muck"), ("Alice", "show")]
    assert tables["seats"].filter(pl.col("player") == "Bob")["is_hero"].to_list() == [True]


def test_truncated_garbage_foreign_and_bad_header() -> None:
    cut = hand_text(2).split("------ Summary ------")[0]
    garbage = hand_text(3).replace(
        "Player Alice checks\n*** FLOP", "Player Alice checks\n\x00\x01junk\n*** FLOP"
    )
    holdem = hand_text(4).replace("(Omaha HiLow)", "(Hold'em)")
    header = hand_text(5).replace("Game ID: 5 0.10/0.25", "Game ID: 5 ten/quarter")
    result = parse_text("\n".join([hand_text(1), cut, garbage, holdem, header, hand_text(6)]))
    assert (result.hands_found, result.parsed, result.skipped, result.rejected) == (6, 2, 1, 3)
    assert result.skipped_games == {"Hold'em": 1}
    reasons = dict(rejects(result))
    assert reasons["2"] == "truncated hand: no summary"
    assert reasons["3"].startswith("unrecognised line")
    assert reasons[None] == "unrecognised hand header"


def test_summary_bets_that_disagree_quarantine_the_hand() -> None:
    wrong = hand_text(2).replace("Bets: 0.50. Collects: 0.95.", "Bets: 0.60. Collects: 0.95.")
    result = parse_text(hand_text(1) + "\n" + wrong)
    assert result.parsed == 1
    assert rejects(result) == [
        (
            "2",
            "inconsistent hand: the summary's Bets of Alice is 60, its actions put in 50 (minor units)",
        )
    ]
