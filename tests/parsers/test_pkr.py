"""PKR parser: conformance on the real corpus, golden hands, chip balance, audit, damaged input.

Golden values were read off the hand text by hand (amounts in cents), not produced by the parser.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

import polars as pl
import pytest

import parsers
from parsers.base import ParseResult
from parsers.columns import card_code
from parsers.pkr import PkrParser
from parsers.text import decode_lines
from tests.parsers.corpus import cards, frames, manifest_rows, variant_counts
from tests.shared_data import CORPUS, needs_corpus

PARSER = PkrParser()
PAYOUT_KINDS = ("payout", "missing_winner", "unexpected_winner", "odd_chip")
MONEY_IN = ["post_sb", "post_bb", "post_dead", "ante", "call", "bet", "raise"]
TIES = "PKR/cash/PLO8-USD-2.00-4.00-201108.ties.low.txt"


def parse_data(data: bytes, name: str = "test.txt") -> ParseResult:
    decoded = decode_lines(data)
    assert PARSER.sniff("\n".join(decoded.lines.head(20).to_list())), name
    return PARSER.parse(decoded.lines, decoded.offsets, name)


def parse_text(text: str) -> ParseResult:
    return parse_data(text.encode("utf-8"))


def manifest() -> list[dict[str, str]]:
    rows = manifest_rows()
    return [
        r for r in rows if r["role"].startswith("hand_history") and r["path"].startswith("PKR/")
    ]


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


def final_stacks(text: str) -> dict[str, int]:
    """The ``Seat N: P - $x`` lines after the last street: stacks after the hand, in cents."""
    tail = text.split("Dealing River", 1)[1]
    return {
        name: round(float(amount) * 100)
        for name, amount in re.findall(r"^Seat \d+: (.+) - \$([\d.]+)\s*$", tail, re.MULTILINE)
    }


def balance_against_final_stacks(tables: dict[str, pl.DataFrame], text: str) -> None:
    """Start − put in + returned + collected = the stack PKR prints after the hand."""
    actions = tables["actions"]
    signed = actions.select(
        "player",
        change=pl.when(pl.col("kind").is_in(MONEY_IN))
        .then(-pl.col("amount"))
        .when(pl.col("kind") == "uncalled_return")
        .then(pl.col("amount"))
        .otherwise(0),
    )
    collected = tables["collections"].select("player", change=pl.col("amount"))
    changes = pl.concat([signed, collected]).group_by("player").agg(pl.col("change").sum())
    after = (
        tables["seats"]
        .join(changes, on="player", how="left")
        .select("player", after=pl.col("stack_start") + pl.col("change").fill_null(0))
    )
    assert dict(after.iter_rows()) == final_stacks(text)


# -- conformance -------------------------------------------------------------------------------


@needs_corpus
@pytest.mark.parametrize("row", manifest(), ids=lambda row: row["path"])
def test_corpus_file_counts(row: dict[str, str]) -> None:
    result = parse_data((CORPUS / row["path"]).read_bytes(), row["path"])
    counts = variant_counts(row["variants"])
    assert result.parsed == counts.get("O8", 0)
    assert result.skipped == sum(n for name, n in counts.items() if name != "O8")
    assert result.rejected == 0, frames(result)["rejects"]["reason"].to_list()
    assert result.hands_found == int(row["hands"])


@needs_corpus
def test_corpus_chips_balance_and_audit(registered: None) -> None:
    """Pot sizes (gross) = Σ put in = Σ collected + rake; final stacks agree; no payout finding."""
    text = (CORPUS / TIES).read_text()
    tables = frames(parse_text(text))
    hand = tables["hands"].row(0, named=True)
    put = tables["actions"].filter(pl.col("kind").is_in(MONEY_IN))["amount"].sum()
    collected = tables["collections"]["amount"].sum()
    assert (put, hand["total_pot"], collected + hand["rake"]) == (14000, 14000, 14000)
    balance_against_final_stacks(tables, text)
    findings = audit(tables)
    assert (
        findings.filter(pl.col("kind").is_in(PAYOUT_KINDS + ("chip_conservation",))).height == 0
    ), findings


# -- golden hands ------------------------------------------------------------------------------


@needs_corpus
def test_golden_ties_in_both_halves() -> None:
    """#1830508295: identical wheels; high and low each split $34.75 / $34.75 after $1 rake."""
    tables = frames(parse_text((CORPUS / TIES).read_text()))
    hand = tables["hands"].row(0, named=True)
    assert (hand["site"], hand["hand_id"], hand["game"], hand["limit_type"]) == (
        "pkr",
        "1830508295",
        "O8",
        "PL",
    )
    assert (hand["currency"], hand["money_scale"], hand["small_blind"], hand["big_blind"]) == (
        "USD",
        100,
        200,
        400,
    )
    assert (hand["table_name"], hand["max_seats"]) == ("39429846 - Montego Bay", None)
    assert hand["button_seat"] == 6  # "Button is at seat 5" then "Moving Button to seat 6"
    assert hand["started_at"] == datetime(2011, 8, 26, 11, 24, 50, tzinfo=UTC)
    assert hand["time_zone"] is None
    assert hand["board"] == cards("3d 2c 8s Ac 4h")
    assert (hand["total_pot"], hand["rake"], hand["side_pots"], hand["players_dealt"]) == (
        14000,
        100,
        None,
        3,
    )

    seats = tables["seats"].sort("seat")
    assert seats.select("seat", "player", "stack_start", "is_hero", "position").rows() == [
        (1, "Hero", 40200, True, "SB"),
        (5, "Player0", 21390, False, "BB"),
        (6, "Player1", 49170, False, "BTN"),
    ]
    assert seats["hole_cards"].to_list() == [cards("9d 5d 7h 3s"), cards("Ah Kd 7d 5h"), None]

    actions = tables["actions"].sort("seq")
    assert actions.select(
        "street", "player", "kind", "amount", "to_amount", "is_all_in"
    ).rows() == [
        (0, "Hero", "post_sb", 200, 200, False),
        (0, "Player0", "post_bb", 400, 400, False),
        (0, "Player1", "fold", None, 0, False),
        (0, "Hero", "raise", 1000, 1200, False),
        (0, "Player0", "call", 800, 1200, False),  # "calls $12" is the street total
        (1, "Hero", "bet", 1600, 1600, False),
        (1, "Player0", "call", 1600, 1600, False),
        (2, "Hero", "check", None, 0, False),
        (2, "Player0", "check", None, 0, False),
        (3, "Hero", "bet", 4200, 4200, False),
        (3, "Player0", "call", 4200, 4200, False),
        (3, "Hero", "show", None, None, False),
        (3, "Player0", "show", None, None, False),
    ]
    assert tables["collections"].sort("seq").select(
        "player", "amount", "pot_index", "half"
    ).rows() == [
        ("Hero", 3475, None, "high"),
        ("Player0", 3475, None, "high"),
        ("Hero", 3475, None, "low"),
        ("Player0", 3475, None, "low"),
    ]
    assert tables["showdowns"].select("player", "high_desc", "low_desc").rows() == [
        ("Hero", "Straight, 5 high", "A2345"),
        ("Player0", "Straight, 5 high", "A2345"),
    ]


# A hand written in the layout of the corpus hand and of PKR's hold'em samples (side pots named
# "side pot #1", "Returning $x to P uncalled", chat and emotes), to cover what the one O8 corpus
# hand does not.
HAND = """Table #39429846 - Montego Bay
Starting Hand #{number}
Start time of hand: 26 Aug 2011 11:30:00
Last Hand #1830508295
Game Type: OMAHA HI/LO
Limit Type: POT LIMIT
Table Type: RING
Money Type: REAL MONEY
Blinds are now $2 / $4
Button is at seat 6
Seat 1: Hero - $402
Seat 5: Player0 - $10
Seat 6: Player1 - $491.70
Shuffling Deck
Moving Button to seat 1
Player0 posts small blind ($2)
Player1 posts big blind ($4)
Dealing Cards
Dealing [9 d][5 d][7 h][3 s] to Hero
Hero raises to $12
Player1: nice
Player0 calls $10 (all-in)
Player1 calls $12
Pot sizes: $34
Dealing Flop [3 d][2 c][8 s]
Player1 checks
Hero bets $20
Player1 claps.
Player1 folds
Returning $20 to Hero uncalled
Pot sizes: $30
Pot sizes: $4
Player0 shows [A h][K d][T d][5 h]
Hero shows [9 d][5 d][7 h][3 s]
Dealing Turn [A c]
Pot sizes: $30
Pot sizes: $4
Dealing River [4 h]
Pot sizes: $30
Pot sizes: $4
Taking Rake of $1 from pot 1
Hero has Straight, 5 high
Hero has low hand: A2345
Player0 has Straight, 5 high
Player0 has low hand: A2345
Hero wins $2 from side pot #1 with high hand: Straight, 5 high
Hero wins $2 from side pot #1 with low hand: A2345
Hero ties, and wins $7.25 with high hand: Straight, 5 high
Player0 ties, and wins $7.25 with high hand: Straight, 5 high
Hero ties $7.25 with low hand: A2345
Player0 ties $7.25 with low hand: A2345
Seat 1: Hero - $408.50
Seat 5: Player0 - $14.50
Seat 6: Player1 - $479.70
End of Hand #{number}
"""


def hand_text(number: int) -> str:
    return HAND.format(number=number)


def test_side_pot_uncalled_bet_chat_and_emotes(registered: None) -> None:
    text = hand_text(1)
    tables = frames(parse_text(text))
    hand = tables["hands"].row(0, named=True)
    assert (hand["total_pot"], hand["side_pots"], hand["rake"], hand["button_seat"]) == (
        3400,
        [3000, 400],
        100,
        1,
    )
    actions = tables["actions"].sort("seq")
    assert actions.filter(pl.col("street") == 0).select(
        "player", "kind", "amount", "to_amount", "is_all_in"
    ).rows() == [
        ("Player0", "post_sb", 200, 200, False),
        ("Player1", "post_bb", 400, 400, False),
        ("Hero", "raise", 1200, 1200, False),
        ("Player0", "call", 800, 1000, True),
        ("Player1", "call", 800, 1200, False),
    ]
    assert actions.filter(pl.col("kind") == "uncalled_return").select(
        "player", "amount", "street"
    ).rows() == [("Hero", 2000, 1)]
    # Side pots are named, so the unnamed lines are the main pot.
    assert tables["collections"].sort("seq").select(
        "player", "amount", "pot_index", "half"
    ).rows() == [
        ("Hero", 200, 1, "high"),
        ("Hero", 200, 1, "low"),
        ("Hero", 725, 0, "high"),
        ("Player0", 725, 0, "high"),
        ("Hero", 725, 0, "low"),
        ("Player0", 725, 0, "low"),
    ]
    balance_against_final_stacks(tables, text)
    findings = audit(tables)
    assert (
        findings.filter(pl.col("kind").is_in(PAYOUT_KINDS + ("chip_conservation",))).height == 0
    ), findings


# -- damaged input -----------------------------------------------------------------------------


def test_truncated_garbage_and_foreign_hands() -> None:
    cut = hand_text(2).split("Taking Rake")[0]
    garbage = hand_text(3).replace("Player1 checks", "Player1 checks\n%%% \x13garbage")
    holdem = hand_text(4).replace("OMAHA HI/LO", "HOLD'EM")
    damaged_action = hand_text(5).replace("Hero bets $20", "Hero bets $2O")
    no_game = hand_text(6).replace("Game Type: OMAHA HI/LO\n", "")
    result = parse_text(
        "\n".join([hand_text(1), cut, garbage, holdem, damaged_action, no_game, hand_text(7)])
    )
    assert (result.hands_found, result.parsed, result.skipped, result.rejected) == (7, 2, 1, 4)
    assert result.skipped_games == {"HOLD'EM": 1}
    reasons = dict(rejects(result))
    assert reasons["2"] == "truncated hand: no end of hand line"
    assert reasons["3"].startswith("unrecognised line: %%%")
    assert reasons["5"] == "unrecognised line: Hero bets $2O"
    assert reasons["6"] == "unrecognised hand header"  # the hand number is still read


def test_impossible_cards_and_unseated_player() -> None:
    repeated = hand_text(2).replace("[A h][K d][T d][5 h]", "[A h][K d][T d][9 d]")
    stranger = hand_text(3).replace("Player1 checks", "Mallory checks")
    result = parse_text("\n".join([hand_text(1), repeated, stranger]))
    assert result.parsed == 1
    assert dict(rejects(result)) == {
        "2": f"duplicate card code {card_code('9d')}",
        "3": "player not seated: Mallory",
    }
