"""Everleaf parser: corpus conformance, a golden split hand, the chip balance and audit once the
unprinted rake and silent uncalled bets are accounted for, and damaged input. Golden values
were read off the text by hand."""

from __future__ import annotations

from datetime import UTC, datetime

import polars as pl
import pytest

from parsers.base import ParseResult
from parsers.everleaf import EverleafParser
from tests.parsers.test_partypoker import (
    audit,
    cards,
    corpus_tables,
    frames,
    implied_rake,
    manifest_rows,
    needs_corpus,
    parse_data,
    parse_path,
    payout_findings,
    registered,  # noqa: F401  (fixture)
    rejects,
    variant_counts,
    with_silent_returns,
)

EVERLEAF = EverleafParser()
FILE = "Everleaf/cash/FLO8-10max-USD-0.50-1.00-201003.HU.on.10max.txt"


@needs_corpus
@pytest.mark.parametrize("row", manifest_rows("Everleaf"), ids=lambda row: row["path"])
def test_corpus_file_counts(row: dict[str, str]) -> None:
    result = parse_path(EVERLEAF, row["path"])
    counts = variant_counts(row["variants"])
    assert result.hands_found == int(row["hands"])
    assert result.parsed == counts.get("O8", 0)
    assert result.skipped == int(row["hands"]) - counts.get("O8", 0)
    assert result.rejected == 0, rejects(result)


@needs_corpus
def test_golden_tied_high_and_low() -> None:
    """#148736641: both players make a pair of tens (high $0.47 / $0.48), Villain's wheel-ish
    6-low takes the low ($0.95); $2.00 in, $1.90 paid."""
    tables = frames(parse_path(EVERLEAF, FILE))
    hand_id = "148736641"
    hand = tables["hands"].filter(pl.col("hand_id") == hand_id).row(0, named=True)
    assert (hand["site"], hand["table_name"], hand["game"]) == (
        "everleaf",
        "Kentfield I",
        "O8",
    )
    assert (hand["limit_type"], hand["currency"], hand["money_scale"]) == ("FL", "USD", 100)
    assert (hand["small_bet"], hand["big_bet"], hand["small_blind"], hand["big_blind"]) == (
        50,
        100,
        25,
        50,
    )
    assert (hand["button_seat"], hand["players_dealt"], hand["max_seats"]) == (6, 2, None)
    assert hand["board"] == cards("4d 6c Ad Js Tc")
    assert (hand["total_pot"], hand["rake"], hand["time_zone"]) == (None, None, None)
    assert hand["started_at"] == datetime(2010, 3, 1, 11, 9, 52, tzinfo=UTC)

    seats = tables["seats"].filter(pl.col("hand_id") == hand_id).sort("seat")
    assert seats.select("seat", "player", "stack_start", "position", "is_hero").rows() == [
        (6, "Villain", 1918, "SB", False),  # heads-up: the button is the small blind
        (10, "Hero", 2772, "BB", True),
    ]
    assert seats["hole_cards"].to_list() == [cards("3c Ts Kc 5c"), cards("7h Td 3d Kh")]

    actions = tables["actions"].filter(pl.col("hand_id") == hand_id).sort("seq")
    assert actions.select("player", "street", "kind", "amount", "to_amount").rows() == [
        ("Villain", 0, "post_sb", 25, 25),
        ("Hero", 0, "post_bb", 50, 50),
        ("Villain", 0, "call", 25, 50),
        ("Hero", 0, "check", None, 50),
        ("Hero", 1, "bet", 50, 50),
        ("Villain", 1, "call", 50, 50),
        ("Hero", 2, "check", None, 0),
        ("Villain", 2, "check", None, 0),
        ("Hero", 3, "check", None, 0),
        ("Villain", 3, "check", None, 0),
        ("Hero", 3, "show", None, None),
        ("Villain", 3, "show", None, None),
    ]
    collections = tables["collections"].filter(pl.col("hand_id") == hand_id).sort("seq")
    assert collections.select("player", "amount", "pot_index", "half").rows() == [
        ("Villain", 47, 0, "high"),
        ("Hero", 48, 0, "high"),
        ("Villain", 95, 0, "low"),
    ]
    showdowns = tables["showdowns"].filter(pl.col("hand_id") == hand_id)
    assert showdowns.select("player", "high_desc", "low_desc").rows() == [
        ("Hero", "a pair of tens", None),
        ("Villain", "a pair of tens", "6, 5, 4, 3, A"),
    ]


@needs_corpus
def test_unsplit_and_silent_uncalled_hand() -> None:
    """#148735532: "Hero: bets [$ 0.50 USD]", Villain folds, "Hero wins $ 1.90 USD from main
    pot": no half label, and the $0.50 bet is never returned in the text."""
    tables = frames(parse_path(EVERLEAF, FILE))
    hand_id = "148735532"
    actions = tables["actions"].filter(pl.col("hand_id") == hand_id).sort("seq")
    assert actions.select("player", "kind", "amount", "to_amount").rows() == [
        ("Villain", "post_sb", 25, 25),
        ("Hero", "post_bb", 50, 50),
        ("Villain", "raise", 75, 100),  # "raises [$ 0.75 USD]": an increment
        ("Hero", "call", 50, 100),
        ("Hero", "bet", 50, 50),
        ("Villain", "fold", None, 0),
    ]
    assert tables["collections"].filter(pl.col("hand_id") == hand_id).select(
        "player", "amount", "pot_index", "half"
    ).rows() == [("Hero", 190, 0, None)]


@needs_corpus
def test_chip_balance_leaves_a_five_percent_rake() -> None:
    """With the silent uncalled bets returned, Σ put in − Σ collected is exactly 5 % of the pot
    when a flop was dealt and 0 otherwise (no flop, no drop): nothing else is unaccounted for."""
    tables = with_silent_returns(corpus_tables(EVERLEAF, "Everleaf"))
    implied = implied_rake(tables).join(
        tables["hands"].select("hand_id", flop=pl.col("board").list.len() > 0), on="hand_id"
    )
    assert implied.height == 74
    wrong = implied.filter(
        pl.col("rake") != pl.when(pl.col("flop")).then(pl.col("put") * 5 // 100).otherwise(0)
    )
    assert wrong.height == 0, wrong


@needs_corpus
@pytest.mark.usefixtures("registered")
def test_audit_payouts_match_once_rake_and_returns_are_known() -> None:
    tables = corpus_tables(EVERLEAF, "Everleaf")
    findings = audit(tables)
    # Everleaf prints neither the rake nor the return of an uncalled bet: the audit infers the
    # rake and returns the unmatched bet itself (profile: rake_printed, uncalled_printed False).
    assert payout_findings(findings).height == 0
    # The inferred rake is plausible on every hand (5 % of the pot where a flop was dealt).
    assert "rake" not in findings["kind"].to_list()


# -- damaged input -----------------------------------------------------------------------------

HAND = """Everleaf Gaming Game #{hand_id}
***** Hand history for game #{hand_id} *****
$0.50/$1 Omaha Hi/Lo - 2010/03/01 - 11:09:52
Table Kentfield I
Seat 6 is the button
Total number of players: 2
Seat 6: Villain (  $ 19.18 USD )
Seat 10: Hero (  $ 27.72 USD )
Villain: posts small blind [$ 0.25 USD]
Hero: posts big blind [$ 0.50 USD]
** Dealing down cards **
Dealt to Hero [ {hero} ]
Villain calls [$ 0.25 USD]
Hero checks
** Dealing Flop ** [ 4d, 6c, Ad ]
Hero: bets [$ 0.50 USD]
Villain folds
Hero does not show cards
Hero wins $ 0.95 USD from main pot



"""


def hand_text(hand_id: int, hero: str = "7h, Td, 3d, Kh") -> str:
    return HAND.format(hand_id=hand_id, hero=hero)


def parse_text(text: str) -> ParseResult:
    return parse_data(EVERLEAF, text.encode())


def test_truncated_garbage_and_cards() -> None:
    cut = hand_text(2).split("** Dealing Flop **")[0] + "\n\n\n"
    garbage = hand_text(3).replace("Hero checks", "Hero checks\n\x13 garbage ###")
    duplicate = hand_text(4, hero="7h, Td, 3d, Ad")  # Ad is on the flop
    result = parse_text(hand_text(1) + cut + garbage + duplicate + hand_text(5))
    assert (result.hands_found, result.parsed, result.rejected) == (5, 2, 3)
    assert dict(rejects(result)) == {
        "2": "truncated hand: no payout line",
        "3": "unrecognised line: \x13 garbage ###",
        "4": f"duplicate card code {4 * 12 + 1}",
    }


def test_preamble_unseated_actor_and_other_games() -> None:
    stranger = hand_text(2).replace("Villain folds", "Mallory folds")
    holdem = hand_text(3).replace("Omaha Hi/Lo", "Hold'em")
    result = parse_text("banner\n" + hand_text(1) + stranger + holdem)
    assert (result.hands_found, result.parsed, result.skipped, result.rejected) == (4, 1, 1, 2)
    assert dict(rejects(result)) == {
        None: "text before the first hand header",
        "2": "player not seated: Mallory",
    }
    # "does not show cards" by the uncontested winner is not a muck.
    assert "muck" not in frames(result)["actions"]["kind"].to_list()
