"""Full Tilt parser: corpus conformance, golden hands (with fpdb's sidecar files as a second
source), chip balance, the audit, and damaged input.

Golden values were read off the hand text by hand; the ``.hp``/``.hands``/``.gt`` sidecars of the
observed hand (fpdb's expected rows, cards numbered 1-52 by suit h, d, c, s) are compared too.
"""

from __future__ import annotations

import ast
import re
from datetime import UTC, datetime

import polars as pl
import pytest

from parsers.base import ParseResult
from parsers.fulltilt import FullTiltParser
from tests.parsers.test_partypoker import (
    CORPUS,
    audit,
    cards,
    contributions,
    corpus_tables,
    frames,
    manifest_rows,
    needs_corpus,
    parse_data,
    parse_path,
    payout_findings,
    registered,  # noqa: F401  (fixture)
    rejects,
    variant_counts,
)

FTP = FullTiltParser()
OBSERVED = "FTP/cash/LO8-6max-USD-200-400.200610.Observed.Hand.with.chat.txt"
TEN_GAME = "FTP/cash/10Game-6max-USD-2.50-5.201104.Sample.txt"


@needs_corpus
@pytest.mark.parametrize("row", manifest_rows("FTP"), ids=lambda row: row["path"])
def test_corpus_file_counts(row: dict[str, str]) -> None:
    result = parse_path(FTP, row["path"])
    counts = variant_counts(row["variants"])
    assert result.hands_found == int(row["hands"])
    assert result.parsed == counts.get("O8", 0)
    assert result.skipped == int(row["hands"]) - counts.get("O8", 0)  # other games
    assert result.rejected == 0, rejects(result)


# -- golden hands ------------------------------------------------------------------------------


@needs_corpus
def test_golden_observed_hand_with_chat() -> None:
    """#1088791321: $200/$400 limit, observers chatting, high $2,048.50 / low $2,048.50, rake $3."""
    tables = frames(parse_path(FTP, OBSERVED))
    hand = tables["hands"].row(0, named=True)
    assert (hand["site"], hand["hand_id"], hand["table_name"]) == ("fulltilt", "1088791321", "Vero")
    assert (hand["game"], hand["limit_type"], hand["currency"], hand["money_scale"]) == (
        "O8",
        "FL",
        "USD",
        100,
    )
    assert (hand["small_bet"], hand["big_bet"]) == (20000, 40000)
    assert (hand["small_blind"], hand["big_blind"], hand["ante"]) == (10000, 20000, None)
    assert (hand["max_seats"], hand["button_seat"], hand["players_dealt"]) == (6, 3, 5)
    assert hand["board"] == cards("7h 8s 3s 4s Ah")
    assert (hand["total_pot"], hand["rake"]) == (410000, 300)
    # "0:03:34 ET - 2006/10/11" is EDT (UTC-4).
    assert hand["started_at"] == datetime(2006, 10, 11, 4, 3, 34, tzinfo=UTC)
    assert hand["time_zone"] == "ET" and hand["tournament_id"] is None

    seats = tables["seats"].sort("seat")
    assert seats.select("seat", "player", "stack_start", "sitting_out", "position").rows() == [
        (1, "zbubop", 1067600, False, "UTG"),
        (2, "AllenCunningham", 602500, False, "CO"),
        (3, "TexasLimitDonk", 681600, False, "BTN"),
        (4, "Mike Matusow", 1068900, True, None),
        (5, "Erick Lindgren", 433950, False, "SB"),
        (6, "Shoe Lab", 1596850, False, "BB"),
    ]
    shown = dict(seats.select("player", "hole_cards").rows())
    assert shown["zbubop"] == cards("3c 9h As Qs")
    assert shown["AllenCunningham"] == cards("7d 2c Ks Ad")
    assert shown["Shoe Lab"] is None and not seats["is_hero"].any()

    actions = (
        tables["actions"]
        .sort("seq")
        .select("player", "street", "kind", "amount", "to_amount", "is_all_in")
    )
    assert actions.rows() == [
        ("Erick Lindgren", 0, "post_sb", 10000, 10000, False),
        ("Shoe Lab", 0, "post_bb", 20000, 20000, False),
        ("zbubop", 0, "call", 20000, 20000, False),
        ("AllenCunningham", 0, "raise", 40000, 40000, False),  # "raises to $400"
        ("TexasLimitDonk", 0, "fold", None, 0, False),
        ("Erick Lindgren", 0, "fold", None, 10000, False),
        ("Shoe Lab", 0, "call", 20000, 40000, False),
        ("zbubop", 0, "call", 20000, 40000, False),
        ("Shoe Lab", 1, "check", None, 0, False),
        ("zbubop", 1, "check", None, 0, False),
        ("AllenCunningham", 1, "bet", 20000, 20000, False),
        ("Shoe Lab", 1, "fold", None, 0, False),
        ("zbubop", 1, "call", 20000, 20000, False),
        ("zbubop", 2, "check", None, 0, False),
        ("AllenCunningham", 2, "bet", 40000, 40000, False),
        ("zbubop", 2, "raise", 80000, 80000, False),  # "raises to $800"
        ("AllenCunningham", 2, "call", 40000, 80000, False),
        ("zbubop", 3, "bet", 40000, 40000, False),
        ("AllenCunningham", 3, "call", 40000, 40000, False),
        ("zbubop", 3, "show", None, None, False),
        ("AllenCunningham", 3, "show", None, None, False),
    ]
    assert tables["collections"].sort("seq").select(
        "player", "amount", "pot_index", "half"
    ).rows() == [
        ("zbubop", 204850, 0, "high"),
        ("AllenCunningham", 204850, 0, "low"),
    ]
    # The 2006 export prints each low on its own line; the summary gives both halves.
    assert tables["showdowns"].select("player", "high_desc", "low_desc").rows() == [
        ("zbubop", "a flush, Ace high", "8,7,4,3,A"),
        ("AllenCunningham", "two pair, Aces and Sevens", "7,4,3,2,A"),
    ]


def fpdb_card(code: int) -> int:
    """fpdb's card number (1..52: 2h..Ah, 2d..Ad, 2c..Ac, 2s..As) → ours (rank * 4 + suit)."""
    rank, fpdb_suit = (code - 1) % 13, (code - 1) // 13
    return rank * 4 + {0: 2, 1: 1, 2: 0, 3: 3}[fpdb_suit]


@needs_corpus
def test_observed_hand_agrees_with_fpdb_sidecars() -> None:
    """The .hp (per player), .hands (per hand) and .gt (game type) rows fpdb expects."""
    tables = frames(parse_path(FTP, OBSERVED))
    base = CORPUS / OBSERVED
    players = ast.literal_eval(base.with_name(base.name + ".hp").read_text())
    hand_row = base.with_name(base.name + ".hands").read_text()
    gametype = base.with_name(base.name + ".gt").read_text()

    seats = tables["seats"]
    paid = tables["collections"].group_by("player").agg(pl.col("amount").sum())
    put = contributions(tables["actions"].with_columns(hand_id=pl.lit("h")))
    assert sorted(players) == sorted(
        seats.filter(~pl.col("sitting_out"))["player"].to_list()
    )  # fpdb drops the sitting-out seat
    for name, expected in players.items():
        seat = seats.filter(pl.col("player") == name).row(0, named=True)
        assert seat["seat"] == expected["seatNo"]
        assert seat["stack_start"] == expected["startCash"]
        won = dict(paid.rows()).get(name, 0)
        assert won == expected["winnings"]
        assert won - dict(put.select("player", "put").rows())[name] == expected["totalProfit"]
        if expected["card1"]:
            known = [fpdb_card(expected[f"card{i}"]) for i in range(1, 5)]
            assert seat["hole_cards"] == known
        else:
            assert seat["hole_cards"] is None

    fields = dict(re.findall(r"'(\w+)': (\d+),", hand_row))
    hand = tables["hands"].row(0, named=True)
    assert hand["board"] == [fpdb_card(int(fields[f"boardcard{i}"])) for i in range(1, 6)]
    assert "datetime.datetime(2006, 10, 11, 4, 3, 34, tzinfo=pytz.utc)" in hand_row
    assert hand["started_at"] == datetime(2006, 10, 11, 4, 3, 34, tzinfo=UTC)
    # streetNPot: the pot at the end of flop, turn and river.
    by_street = (
        tables["actions"]
        .filter(pl.col("kind").is_in(["post_sb", "post_bb", "call", "bet", "raise"]))
        .group_by("street")
        .agg(pl.col("amount").sum())
        .sort("street")
        .with_columns(pot=pl.col("amount").cum_sum())
    )
    assert by_street["pot"].to_list()[1:] == [
        int(fields["street1Pot"]),
        int(fields["street2Pot"]),
        int(fields["street3Pot"]),
    ]
    # Game type: ring, Omaha hi/lo, fixed limit, blinds $100/$200, bets $200/$400 (cents).
    assert "'omahahilo', 'fl', 's', 'none', 10000, 20000, 20000, 40000" in gametype
    assert (hand["small_blind"], hand["big_blind"], hand["small_bet"], hand["big_bet"]) == (
        10000,
        20000,
        20000,
        40000,
    )


@needs_corpus
def test_golden_utf16_ten_game_hand() -> None:
    """The one Limit Omaha H/L hand of the UTF-16LE 10-Game file: CET with [ET], "adds $5"."""
    tables = frames(parse_path(FTP, TEN_GAME))
    hand = tables["hands"].row(0, named=True)
    assert hand["hand_id"] == "29704107511" and hand["game"] == "O8"
    assert (hand["small_bet"], hand["big_bet"], hand["small_blind"], hand["big_blind"]) == (
        250,
        500,
        125,
        250,
    )
    # "[13:36:43 ET - 2011/04/07]" (EDT) = 17:36:43 UTC = "19:36:43 CET" (CEST).
    assert hand["started_at"] == datetime(2011, 4, 7, 17, 36, 43, tzinfo=UTC)
    assert (hand["total_pot"], hand["rake"], hand["board"]) == (1250, 0, cards("Tc Th 7h 4c"))
    assert hand["source_offset"] == 2  # after the UTF-16 byte order mark
    hero = tables["seats"].filter(pl.col("is_hero")).row(0, named=True)
    assert (hero["player"], hero["hole_cards"]) == ("Hero", cards("4d As Jc Jd"))
    turn = tables["actions"].filter(pl.col("street") == 2).sort("seq")
    assert turn.select("player", "kind", "amount").rows() == [
        ("Hero", "check", None),
        ("grimyreaper1", "bet", 500),
        ("Hero", "fold", None),
        ("grimyreaper1", "uncalled_return", 500),
    ]
    # "grimyreaper1 mucks" then "wins the pot ($12.50)": not a muck, the pot was uncontested.
    assert tables["collections"].select("player", "amount", "pot_index", "half").rows() == [
        ("grimyreaper1", 1250, 0, None)
    ]
    assert "muck" not in tables["actions"]["kind"].to_list()


@needs_corpus
def test_golden_old_tournament_header() -> None:
    tables = frames(parse_path(FTP, "FTP/tour/LO8-HORSE-2max-SnG-USD-200-200604.txt"))
    hand = tables["hands"].row(0, named=True)
    assert (hand["hand_id"], hand["tournament_id"], hand["table_name"]) == (
        "579366587",
        "3795352",
        "1",
    )
    assert hand["buy_in"] == "$200 + $10 Heads Up Sit & Go"
    assert (hand["currency"], hand["money_scale"], hand["max_seats"]) == ("CHIPS", 1, 2)
    assert (hand["small_bet"], hand["big_bet"], hand["small_blind"], hand["big_blind"]) == (
        40,
        80,
        20,
        40,
    )
    assert (hand["total_pot"], hand["rake"]) == (320, 0)
    assert tables["actions"].filter(pl.col("kind") == "uncalled_return").select(
        "player", "amount"
    ).rows() == [("Hero", 80)]


# -- chip balance and audit --------------------------------------------------------------------


@needs_corpus
def test_chip_balance() -> None:
    """Σ put in − returned = printed total pot = Σ collected + rake (the total is gross)."""
    tables = corpus_tables(FTP, "FTP")
    put = contributions(tables["actions"]).group_by("hand_id").agg(put=pl.col("put").sum())
    paid = tables["collections"].group_by("hand_id").agg(paid=pl.col("amount").sum())
    joined = tables["hands"].join(put, on="hand_id").join(paid, on="hand_id")
    assert joined.height == 3
    assert (joined["put"] == joined["total_pot"]).all()
    assert (joined["paid"] + joined["rake"] == joined["total_pot"]).all()


@needs_corpus
@pytest.mark.usefixtures("registered")
def test_audit_finds_nothing_on_the_corpus() -> None:
    found = audit(corpus_tables(FTP, "FTP"))
    assert payout_findings(found).height == 0
    assert found.height == 0, found


def test_profile_split_unit() -> None:
    """$0.50/$1 fixed limit splits $7.75 as $3.90/$3.85: a 5-cent unit (payout-rules P9)."""
    assert FTP.profile.odd_chip_unit == 5
    assert FTP.profile.halves_labelled and FTP.profile.total_pot_is_gross


# -- damaged input -----------------------------------------------------------------------------

HAND = """Full Tilt Poker Game #{hand_id}: Table Dickson (6 max) - FL Omaha H/L - $0.50/$1 - 20:31:38 ET - 2014/01/05
Seat 1: SomeStupid ($10.90)
Seat 3: Greszik ($4)
Greszik posts the small blind of $0.25
SomeStupid posts the big blind of $0.50
The button is in seat #3
*** HOLE CARDS ***
Greszik raises to $1
SomeStupid calls $0.50
*** FLOP *** [2h 3c Jh] (Total Pot: $2, 2 Players)
SomeStupid checks
Greszik bets $0.50
SomeStupid calls $0.50
*** TURN *** [2h 3c Jh] [Kh] (Total Pot: $3, 2 Players)
SomeStupid checks
Da Poker Pirate sits down
Greszik bets $1
SomeStupid calls $1
Da Poker Pirate adds $10
*** RIVER *** [2h 3c Jh Kh] [8d] (Total Pot: $5, 2 Players)
SomeStupid bets $1
Greszik raises to $1.50, and is all in
SomeStupid calls $0.50
*** SHOW DOWN ***
Greszik shows [{greszik}] a flush, Ace high, for high
SomeStupid shows [5d 3h 4c Kd] two pair, Kings and Threes, for high and 8,5,4,3,2, for low
Greszik wins the high pot ($3.90) with a flush, Ace high
SomeStupid wins the low pot ($3.85) with 8,5,4,3,2
*** SUMMARY ***
Total pot $8 | Rake $0.25
Board: [2h 3c Jh Kh 8d]
Seat 1: SomeStupid (big blind) showed [5d 3h 4c Kd] and won ($3.85) with HI: two pair, Kings and Threes; LO: 8,5,4,3,2
Seat 3: Greszik (small blind) showed [{greszik}] and won ($3.90) with HI: a flush, Ace high
"""


def hand_text(hand_id: int, greszik: str = "9c Qh Ah Js") -> str:
    return HAND.format(hand_id=hand_id, greszik=greszik)


def parse_text(text: str) -> ParseResult:
    return parse_data(FTP, text.encode())


@pytest.mark.usefixtures("registered")
def test_split_unit_sample_2014() -> None:
    """The P9 sample itself: 2014 header form, all-in raise, odd 5 cents to the high half."""
    result = parse_text(hand_text(33727835942))
    assert (result.parsed, result.rejected) == (1, 0)
    tables = frames(result)
    hand = tables["hands"].row(0, named=True)
    assert (hand["small_bet"], hand["big_bet"], hand["total_pot"], hand["rake"]) == (
        50,
        100,
        800,
        25,
    )
    river = tables["actions"].filter((pl.col("street") == 3) & (pl.col("kind") != "show"))
    assert river.sort("seq").select(
        "player", "kind", "amount", "to_amount", "is_all_in"
    ).rows() == [
        ("SomeStupid", "bet", 100, 100, False),
        ("Greszik", "raise", 150, 150, True),
        ("SomeStupid", "call", 50, 150, False),
    ]
    assert tables["showdowns"].select("player", "high_desc", "low_desc").rows() == [
        ("Greszik", "a flush, Ace high", None),
        ("SomeStupid", "two pair, Kings and Threes", "8,5,4,3,2"),
    ]
    assert payout_findings(audit(tables)).height == 0


def test_truncated_garbage_and_run_it_twice() -> None:
    cut = hand_text(2).split("*** SUMMARY ***")[0]
    garbage = hand_text(3).replace("SomeStupid checks", "\x00\x13garbage", 1)
    twice = hand_text(4).replace("*** RIVER ***", "*** RIVER 1 ***")
    result = parse_text("\n".join([hand_text(1), cut, garbage, twice, hand_text(5)]))
    assert (result.hands_found, result.parsed, result.rejected) == (5, 2, 3)
    assert dict(rejects(result)) == {
        "2": "truncated hand: no summary",
        "3": "unrecognised line: \x00\x13garbage",
        "4": "run it twice is not supported",
    }


def test_unseated_actor_conflicting_cards_and_unknown_header() -> None:
    stranger = hand_text(2).replace("SomeStupid checks", "Mallory checks", 1)
    conflict = hand_text(3).replace("showed [9c Qh Ah Js]", "showed [9c Qh Ah Jd]")
    header = hand_text(4).replace("FL Omaha H/L - $0.50/$1", "Omaha ??")
    result = parse_text("\n".join([hand_text(1), stranger, conflict, header]))
    assert result.parsed == 1
    assert dict(rejects(result)) == {
        "2": "player not seated: Mallory",
        "3": "a player is shown different hole cards",
        None: "unrecognised hand header",
    }
