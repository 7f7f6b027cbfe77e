"""WPN (current format) parser: conformance on the real corpus, golden hands, chip balance, audit,
damaged input.

Golden values were read off the hand text by hand (amounts in cents, tournament chips in chips).
"""

from __future__ import annotations

from datetime import UTC, datetime

import polars as pl
import pytest

import parsers
from parsers.base import ParseResult
from parsers.text import decode_lines, decode_text
from parsers.wpn import GAME_NAMES, WpnParser
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

PARSER = WpnParser()
PAYOUT_KINDS = ("payout", "missing_winner", "unexpected_winner", "odd_chip")
LO8 = "Winning/cash/LO8-6max-USD-20-40-201907.CASHID-TN-St{FULLSTOP} Lucie GAMETYPE.txt"
RIT = "Winning/cash/NLO8-6max-USD-3-6-202104.RIT.txt"
WALK = "Winning/cash/NLO8-6max-USD-3-6-202104.walk.txt"
# 2023 layout: a space before the limit ("Omaha H/L (No Limit)"), a walk paid in the summary.
WALK_2023 = "Winning/cash/NLO8-9max-USD-3.00-6.00-202311.added.space.txt"
TOURNAMENT = "Winning/tour/PLO8-9max-USD-15-201906.SITGOID-TN-$15 PLO Hi{BACKSLASH}Lo Turbo - On Demand GAMETYPE.txt"
# 5 Card Omaha Hi/Lo only: every hand is another game, counted as skipped.
FIVE_CARD = "Winning/cash/5-Card-PLO8-6max-USD-3-6-202212.txt"


def parse_data(data: bytes, name: str = "test.txt") -> ParseResult:
    decoded = decode_lines(data)
    assert PARSER.sniff("\n".join(decoded.lines.head(20).to_list())), name
    return PARSER.parse(decoded.lines, decoded.offsets, name)


def parse_file(relative: str) -> ParseResult:
    path = CORPUS / relative
    return parse_data(path.read_bytes(), str(path))


def manifest() -> list[dict[str, str]]:
    """The current-format WPN files, told by their text (the old ``Game ID`` format has its own
    parser, and a note may not name it)."""
    rows = manifest_rows()
    return [
        row
        for row in rows
        if row["role"].startswith("hand_history")
        and row["path"].startswith("Winning/")
        and PARSER.sniff(decode_text((CORPUS / row["path"]).read_bytes()[:4096]))
    ]


@pytest.fixture
def registered(monkeypatch: pytest.MonkeyPatch) -> None:
    """The audit reads each site's profile from the parser registry."""
    if not any(parser.site == PARSER.site for parser in parsers.PARSERS):
        monkeypatch.setattr(parsers, "PARSERS", (*parsers.PARSERS, PARSER))


def all_corpus_tables() -> dict[str, pl.DataFrame]:
    tables = [frames(parse_file(row["path"])) for row in manifest()]
    return {name: pl.concat([t[name] for t in tables]) for name in tables[0]}


# -- conformance -------------------------------------------------------------------------------


def test_manifest_lists_the_current_format_files() -> None:
    if not manifest():
        pytest.skip(f"conformance corpus not found at {CORPUS}")
    assert sorted(row["path"] for row in manifest()) == sorted(
        [LO8, RIT, WALK, WALK_2023, TOURNAMENT, FIVE_CARD]
    )


@needs_corpus
@pytest.mark.parametrize("row", manifest(), ids=lambda row: row["path"])
def test_corpus_file_counts(row: dict[str, str]) -> None:
    result = parse_file(row["path"])
    counts = variant_counts(row["variants"])
    read = games_read(row["variants"], GAME_NAMES.values())
    assert parsed_games(result) == read
    assert result.parsed == sum(read.values())
    assert result.skipped == sum(counts.values()) - sum(read.values())
    assert result.rejected == 0, frames(result)["rejects"]["reason"].to_list()
    assert result.hands_found == int(row["hands"])


@needs_corpus
def test_corpus_chips_balance() -> None:
    """Σ put in − returned = Σ collected + rake (rake + JP fee), and the total is Σ collected."""
    tables = all_corpus_tables()
    joined = chip_ledger(tables)
    assert joined.height == 19  # 5 Omaha Hi/Lo hands, 14 Big O (5Card Omaha H/L)
    unbalanced = joined.filter(
        (pl.col("put") - pl.col("returned") != pl.col("collected") + pl.col("rake"))
        | (pl.col("total_pot") != pl.col("collected"))
    )
    assert unbalanced.height == 0, unbalanced


@needs_corpus
def test_corpus_audit_payouts(registered: None) -> None:
    """Every pot is paid as the rules say: no payout-kind finding.

    WPN prints one line per pot and player with the halves summed ("Player0 collected $199.00
    from main pot" for a high and a low of $99.50 each); its profile says so (payout_lines
    "per_pot"), so the audit compares per pot and player only.
    """
    from pipeline.audit import audit_tables

    tables = all_corpus_tables()
    findings = audit_tables(
        tables["hands"],
        tables["seats"],
        tables["actions"],
        tables["collections"],
        tables["showdowns"],
    ).discrepancies
    payout = findings.filter(pl.col("kind").is_in(PAYOUT_KINDS))
    assert payout.height == 0, payout


# -- golden hands ------------------------------------------------------------------------------


@needs_corpus
def test_golden_fixed_limit_scoop() -> None:
    """#78708209: fixed limit $20/$40, Player0 scoops $199.00; rake $0.96 + JP fee $0.04."""
    tables = frames(parse_file(LO8))
    hand = tables["hands"].row(0, named=True)
    assert (hand["site"], hand["hand_id"], hand["game"], hand["limit_type"]) == (
        "wpn",
        "78708209",
        "O8",
        "FL",
    )
    assert (hand["currency"], hand["money_scale"], hand["tournament_id"]) == ("USD", 100, None)
    assert (hand["small_bet"], hand["big_bet"]) == (2000, 4000)
    assert (hand["small_blind"], hand["big_blind"], hand["ante"]) == (1000, 2000, None)
    assert (hand["table_name"], hand["max_seats"], hand["button_seat"]) == ("St. Lucie", 6, 1)
    assert hand["started_at"] == datetime(2019, 7, 18, 15, 13, 1, tzinfo=UTC)
    assert hand["board"] == cards("5d 4h As Js 2h") and hand["board2"] is None
    assert (hand["total_pot"], hand["rake"], hand["players_dealt"]) == (19900, 100, 2)

    seats = tables["seats"].sort("seat")
    assert seats.select("seat", "player", "stack_start", "is_hero", "position").rows() == [
        (1, "Hero", 20000, True, "SB"),
        (4, "Player0", 55523, False, "BB"),
    ]
    assert seats["hole_cards"].to_list() == [cards("Kd 4c 9s 6s"), cards("Tc 4s 3h Qd")]

    actions = tables["actions"].sort("seq")
    assert actions.select(
        "street", "player", "kind", "amount", "to_amount", "is_all_in"
    ).rows() == [
        (0, "Hero", "post_sb", 1000, 1000, False),
        (0, "Player0", "post_bb", 2000, 2000, False),
        (0, "Hero", "raise", 3000, 4000, False),  # "raises $30.00 to $40.00"
        (0, "Player0", "call", 2000, 4000, False),
        (1, "Player0", "check", None, 0, False),
        (1, "Hero", "bet", 2000, 2000, False),
        (1, "Player0", "call", 2000, 2000, False),
        (2, "Player0", "check", None, 0, False),
        (2, "Hero", "check", None, 0, False),
        (3, "Player0", "bet", 4000, 4000, False),
        (3, "Hero", "call", 4000, 4000, False),
        (3, "Player0", "show", None, None, False),
        (3, "Hero", "muck", None, None, False),
    ]
    assert tables["collections"].select(
        "player", "amount", "pot_index", "half", "board_index"
    ).rows() == [("Player0", 19900, 0, None, 0)]
    assert tables["showdowns"].select("player", "high_desc", "low_desc").rows() == [
        ("Player0", "a straight, Five high [5d 4s 3h 2h As]", "[5,4,3,2,1]")
    ]


@needs_corpus
def test_golden_run_it_twice() -> None:
    """#779379637: all-in preflop, two boards; 'main pot 1' / 'main pot 2' name the runs."""
    tables = frames(parse_file(RIT))
    hand = tables["hands"].row(0, named=True)
    assert (hand["limit_type"], hand["small_blind"], hand["big_blind"]) == ("NL", 300, 600)
    assert hand["board"] == cards("8h Qd 7d 7h 5d")
    assert hand["board2"] == cards("6c 9s Jh 8c 6s")
    assert (hand["total_pot"], hand["rake"]) == (24600, 300)  # $2.76 rake + $0.24 JP fee
    actions = tables["actions"].sort("seq")
    assert actions.select("player", "kind", "amount", "to_amount", "is_all_in").rows() == [
        ("Player4", "post_sb", 300, 300, False),
        ("Player0", "post_bb", 600, 600, False),
        ("Player1", "fold", None, 0, False),
        ("Hero", "raise", 12000, 12000, True),
        ("Player2", "raise", 13400, 13400, True),
        ("Player3", "fold", None, 0, False),
        ("Player4", "fold", None, 300, False),
        ("Player0", "fold", None, 600, False),
        ("Player2", "uncalled_return", 1400, None, False),
        ("Hero", "show", None, None, False),
        ("Player2", "show", None, None, False),
    ]
    assert tables["collections"].sort("seq").select(
        "player", "amount", "pot_index", "board_index"
    ).rows() == [
        ("Hero", 9225, 0, 0),
        ("Player2", 3075, 0, 0),
        ("Player2", 12300, 0, 1),
    ]
    showdowns = tables["showdowns"].sort("board_index", maintain_order=True)
    assert showdowns.select("player", "board_index", "low_desc").rows() == [
        ("Hero", 0, "[8,7,5,2,1]"),
        ("Player2", 0, "[8,7,5,2,1]"),
        ("Hero", 1, None),  # "LO - []"
        ("Player2", 1, None),
    ]


@needs_corpus
def test_golden_walk_paid_in_the_summary_only() -> None:
    """#779388412: 'Seat 2: Player0 did not show and won $9.00' is the only payout line."""
    tables = frames(parse_file(WALK))
    hand = tables["hands"].row(0, named=True)
    assert (hand["total_pot"], hand["rake"], hand["board"]) == (900, None, [])
    assert tables["collections"].select("player", "amount", "pot_index", "half").rows() == [
        ("Player0", 900, None, None)
    ]
    assert tables["seats"].filter(pl.col("is_hero"))["hole_cards"].to_list() == [
        cards("Qs 2c 8d 8c")
    ]


@needs_corpus
def test_golden_tournament_with_antes_and_button_draw() -> None:
    """#82980175: the one-card 'Dealt to' lines before the blinds are the button draw."""
    tables = frames(parse_file(TOURNAMENT))
    hand = tables["hands"].row(0, named=True)
    assert (hand["tournament_id"], hand["level"], hand["currency"], hand["money_scale"]) == (
        "11212445",
        "1",
        "CHIPS",
        1,
    )
    assert (hand["small_blind"], hand["big_blind"], hand["ante"], hand["limit_type"]) == (
        250,
        500,
        25,
        "PL",
    )
    assert (hand["table_name"], hand["max_seats"], hand["button_seat"]) == ("1", 9, 3)
    assert (hand["total_pot"], hand["rake"]) == (60600, None)
    assert hand["started_at"] == datetime(2019, 7, 25, 2, 31, 33, tzinfo=UTC)
    seats = tables["seats"]
    hero = seats.filter(pl.col("player") == "Hero").row(0, named=True)
    assert hero["hole_cards"] == cards("Ks 9h 3d Th") and hero["stack_start"] == 30000
    antes = tables["actions"].filter(pl.col("kind") == "ante")
    assert antes["amount"].to_list() == [25] * 6 and antes["to_amount"].null_count() == 6
    later = tables["actions"].filter(pl.col("street") >= 1).sort("seq")
    assert later.select("player", "kind", "amount", "to_amount", "is_all_in").rows()[:6] == [
        ("Player1", "bet", 2225, 2225, False),
        ("Player3", "raise", 11125, 11125, False),
        ("Player1", "call", 8900, 11125, False),
        ("Player1", "check", None, 0, False),
        ("Player3", "bet", 16950, 16950, True),
        ("Player1", "call", 16950, 16950, True),
    ]
    assert tables["collections"].select("player", "amount", "pot_index").rows() == [
        ("Player3", 60600, 0)
    ]


# -- damaged input -----------------------------------------------------------------------------

HAND = """Hand #{number} - Omaha H/L(Pot Limit) - $0.25/$0.50 - 2021/04/16 19:14:14 UTC
Parachute 6-max Seat #1 is the button
Seat 1: Alice ($50.00)
Seat 2: Bob ($50.00)
Seat 3: Carol ($50.00)
Bob posts the small blind $0.25
Carol posts the big blind $0.50
Alice posts dead $0.75
*** HOLE CARDS ***
Dealt to Alice [As Ks 2d 3c]
Alice raises $1.50 to $2.00
Bob folds
Carol calls $1.50
*** FLOP *** [7h 8h 9c]
Main pot $4.50 | Rake $0.00
Carol checks
Alice bets $3.00
Carol folds
Uncalled bet ($3.00) returned to Alice
Alice does not show
Alice collected $4.29 from main pot
*** SUMMARY ***
Total pot $4.29 | Rake $0.20 | JP Fee $0.01
Board [7h 8h 9c]
Seat 1: Alice (button) did not show and won $4.29
Seat 2: Bob (small blind) folded on the Pre-Flop
Seat 3: Carol (big blind) folded on the Flop
"""


def hand_text(number: int) -> str:
    return HAND.format(number=number)


def parse_text(text: str) -> ParseResult:
    return parse_data(text.encode("utf-8"))


def rejects(result: ParseResult) -> list[tuple[str | None, str]]:
    return frames(result)["rejects"].select("hand_id", "reason").rows()


def test_dead_blind_and_summary_won_not_double_counted() -> None:
    """'posts dead $0.75' = $0.25 dead + $0.50 live; the body's collected line is the payout."""
    tables = frames(parse_text(hand_text(1)))
    posts = tables["actions"].filter(pl.col("player") == "Alice").sort("seq").head(3)
    assert posts.select("kind", "amount", "to_amount").rows() == [
        ("post_dead", 25, None),
        ("post_bb", 50, 50),
        ("raise", 150, 200),
    ]
    assert tables["collections"].select("player", "amount", "pot_index").rows() == [
        ("Alice", 429, 0)
    ]
    assert tables["hands"].select("total_pot", "rake").row(0) == (429, 21)


@needs_corpus
def test_a_second_board_with_an_unreadable_card_is_quarantined() -> None:
    """Found by fuzzing (seed 27): a second run's turn printed as ``[8c Xx]`` gave a board2 of
    six cards, one unreadable, which the count of its readable cards (five) let through."""
    text = (CORPUS / RIT).read_text(encoding="utf-8-sig")
    damaged = text.replace("*** TURN 2 *** [6c 9s Jh] [8c]", "*** TURN 2 *** [6c 9s Jh] [8c Xx]")
    assert damaged != text
    result = parse_text(damaged)
    assert (result.hands_found, result.parsed, result.rejected) == (1, 0, 1)
    assert [reason for _, reason in rejects(result)] == ["unreadable second board"]


def test_truncated_garbage_and_foreign_hands() -> None:
    cut = hand_text(2).split("*** SUMMARY ***")[0]
    garbage = hand_text(3).replace("Carol checks", "Carol checks\n\x13\x13 ??? \x13")
    holdem = hand_text(4).replace("Omaha H/L(Pot Limit)", "Holdem(No Limit)")
    bad_header = hand_text(5).replace("- $0.25/$0.50 -", "- ??? -")
    result = parse_text("\n".join([hand_text(1), cut, garbage, holdem, bad_header, hand_text(6)]))
    assert (result.hands_found, result.parsed, result.skipped, result.rejected) == (6, 2, 1, 3)
    assert result.skipped_games == {"Holdem": 1}
    reasons = dict(rejects(result))
    assert reasons["2"] == "truncated hand: no summary"
    assert reasons["3"].startswith("unrecognised line")
    assert reasons[None] == "unrecognised hand header"


def test_unreadable_amount_and_unseated_player() -> None:
    amount = hand_text(2).replace("Alice bets $3.00", "Alice bets $3.0.0")
    stranger = hand_text(3).replace("Carol checks", "Mallory checks")
    result = parse_text("\n".join([hand_text(1), amount, stranger]))
    assert result.parsed == 1
    assert dict(rejects(result)) == {
        "2": "unreadable or negative amount (bet)",
        "3": "player not seated: Mallory",
    }
