"""Player statistics: the sql/ models, `pipeline.stats` and ``hilo stats``/``query``.

The hands in ``tests/test_stats_hands/`` were written for these tests in PokerStars' format
(``pl8_6max.txt``: pot limit $0.01/$0.02, table 'Test I' 6-max plus one heads-up hand at
'Test II'; ``lo8_limit.txt``: one fixed-limit $0.10/$0.20 hand). Every expected flag and number
below is worked out by hand from the text, in the comments. Positions on a 6-handed table, from
the button: SB, BB, UTG, HJ, CO, BTN.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import duckdb
import polars as pl
import pytest
from typer.testing import CliRunner

from pipeline.cli import app
from pipeline.stats import (
    DATABASE_NAME,
    LAYERS,
    compute_stats,
    model_files,
    open_database,
    parse_stakes,
)

HANDS_FOLDER = Path(__file__).parent / "test_stats_hands"
ODD_NAME = "Zoë O'Hara\"; DROP TABLE hands;--"
PLAYERS = ["Alice", "Bob", "Carol", "Dave", "Erin", "Frank", ODD_NAME]


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The hand-written hands, ingested and audited (the audit gives the hi/lo payouts)."""
    from pipeline.audit import run_audit
    from pipeline.ingest import ingest

    root = tmp_path_factory.mktemp("stats") / "dataset"
    summary = ingest([HANDS_FOLDER], root)
    assert summary.line().startswith("files 2 · hands parsed 10 ·")
    audit = run_audit(root)
    assert audit.hands == 10 and audit.unevaluable == 0
    assert audit.findings_by_kind == {}  # the hands are legal and correctly paid
    return root


@pytest.fixture(scope="module")
def memory(dataset: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    """An in-memory database with the dataset's views, shared by the tests that only read."""
    connection = open_database(dataset, persistent=False)
    yield connection
    connection.close()


@pytest.fixture(scope="module")
def facts(dataset: Path) -> pl.DataFrame:
    connection = open_database(dataset)
    try:
        frame = pl.from_arrow(connection.sql("select * from fct_hand_players").to_arrow_table())
    finally:
        connection.close()
    assert isinstance(frame, pl.DataFrame)
    return frame


# -- per hand: every flag, by hand ---------------------------------------------------------------

FLAGS = [
    "is_walk",
    "is_vpip",
    "is_pfr",
    "pfr_chance",
    "is_opener",
    "faced_two_bet",
    "made_three_bet",
    "faced_three_bet",
    "folded_to_three_bet",
    "faced_three_bet_or_more",
    "made_four_bet",
    "steal_chance",
    "made_steal",
    "fold_to_steal_chance",
    "folded_to_steal",
    "limp_chance",
    "made_limp",
    "faced_two_bet_cold",
    "made_cold_call",
    "flop_cbet_chance",
    "made_flop_cbet",
    "turn_cbet_chance",
    "made_turn_cbet",
    "fold_to_flop_cbet_chance",
    "folded_to_flop_cbet",
    "fold_to_turn_cbet_chance",
    "folded_to_turn_cbet",
    "flop_check_raise_chance",
    "made_flop_check_raise",
    "saw_flop",
    "went_to_showdown",
    "won_at_showdown",
    "won_without_showdown",
    "is_hilo_showdown",
    "won_high",
    "won_low",
    "is_scoop",
    "is_high_only",
    "is_low_only",
    "is_quartered",
    "is_three_quartered",
    "is_chopped",
]

# hand -> player -> the flags that are true (every other flag of FLAGS is false).
EXPECTED_FLAGS: dict[str, dict[str, str]] = {
    # 1. A walk. Button Alice; Dave (UTG), Erin (HJ), Frank (CO), Alice (BTN), Bob (SB) fold.
    # Everyone who folded had one decision in an unraised pot with chips to call (a limp
    # chance) where a raise was possible (a PFR chance); CO, BTN and SB were folded to (steal
    # chances). Carol (BB) never decides: a walk, out of the VPIP/PFR base, and takes the pot
    # without a showdown (no hi/lo flags: those are for showdowns only).
    "90000000001": {
        "Alice": "pfr_chance steal_chance limp_chance",
        "Bob": "pfr_chance steal_chance limp_chance",
        "Carol": "is_walk won_without_showdown",
        "Dave": "pfr_chance limp_chance",
        "Erin": "pfr_chance limp_chance",
        "Frank": "pfr_chance limp_chance steal_chance",
    },
    # 2. Limp, raise over the limper, cold 3-bet, cold call of the 3-bet, 4-bet, all fold.
    # Button Bob: Carol SB, Dave BB, Erin UTG, Frank HJ, Alice CO.
    # Erin limps (limp chance, limp, VPIP), later faces the 3-bet (2 raises) and folds: fold to
    # 3-bet, and a 4-bet chance; two decisions make a PFR chance.
    # Frank raises over the limper: the open (first raise, a 2-bet); an unraised pot with chips
    # to call (limp chance, not taken); faced Alice's 3-bet and 4-bet it (no fold).
    # Alice faced exactly one raise with no money in: 3-bet chance (taken) and cold-call chance
    # (not taken, she raised); then faced the 4-bet (4-bet chance) and folded.
    # Bob faced two raises on his first decision: a 3-bet faced (not a cold-call chance, that is
    # for the 2-bet) and called (VPIP); then folded to the 4-bet.
    # Carol and Dave (blinds) fold to the 3-bet. Frank wins without a showdown.
    "90000000002": {
        "Alice": "is_vpip is_pfr pfr_chance faced_two_bet made_three_bet faced_three_bet_or_more"
        " faced_two_bet_cold",
        "Bob": "is_vpip pfr_chance faced_three_bet faced_three_bet_or_more",
        "Carol": "pfr_chance faced_three_bet folded_to_three_bet faced_three_bet_or_more",
        "Dave": "pfr_chance faced_three_bet folded_to_three_bet faced_three_bet_or_more",
        "Erin": "is_vpip pfr_chance faced_three_bet folded_to_three_bet faced_three_bet_or_more"
        " limp_chance made_limp",
        "Frank": "is_vpip is_pfr pfr_chance is_opener faced_three_bet faced_three_bet_or_more"
        " made_four_bet limp_chance won_without_showdown",
    },
    # 3. Steal from the CO, SB folds to it, BB defends; flop and turn c-bet chain, BB
    # check-calls the flop and check-raises the turn; Bob folds. Rake $0.03.
    # Button Carol: Dave SB, Erin BB, Frank UTG, Alice HJ, Bob CO.
    # Frank and Alice fold first (limp chances). Bob opens from the CO with everyone folded
    # before: a steal. Carol (BTN) faces the open with no money in: 3-bet and cold-call chances.
    # Dave (SB) and Erin (BB) face the steal alone: fold-to-steal chances; Dave folds.
    # Flop: Erin checks, Bob (the preflop raiser, no bet in front) c-bets, Erin calls (fold to
    # c-bet chance) - she checked then faced a bet: a flop check-raise chance, not taken.
    # Turn: Bob c-bets again (the chain: he c-bet the flop), Erin check-raises, Bob folds.
    "90000000003": {
        "Alice": "pfr_chance limp_chance",
        "Bob": "is_vpip is_pfr pfr_chance is_opener steal_chance made_steal limp_chance"
        " flop_cbet_chance made_flop_cbet turn_cbet_chance made_turn_cbet saw_flop",
        "Carol": "pfr_chance faced_two_bet faced_two_bet_cold",
        "Dave": "pfr_chance faced_two_bet fold_to_steal_chance folded_to_steal",
        "Erin": "is_vpip pfr_chance faced_two_bet fold_to_steal_chance fold_to_flop_cbet_chance"
        " fold_to_turn_cbet_chance flop_check_raise_chance saw_flop won_without_showdown",
        "Frank": "pfr_chance limp_chance",
    },
    # 4. UTG open, cold call, SB call; the SB donk-bets the flop (no c-bet chance for Alice, no
    # c-bet pot), checked down; Alice wins the high half, Erin and Carol tie for the low half
    # and get a quarter each (27 / 13 / 13 cents of 53).
    # Button Dave: Erin SB, Frank BB, Alice UTG, Bob HJ, Carol CO.
    "90000000004": {
        "Alice": "is_vpip is_pfr pfr_chance is_opener limp_chance saw_flop went_to_showdown"
        " won_at_showdown is_hilo_showdown won_high is_high_only",
        "Bob": "pfr_chance faced_two_bet faced_two_bet_cold",
        "Carol": "is_vpip pfr_chance faced_two_bet faced_two_bet_cold made_cold_call saw_flop"
        " went_to_showdown won_at_showdown is_hilo_showdown won_low is_low_only is_quartered",
        "Dave": "pfr_chance faced_two_bet faced_two_bet_cold",
        "Erin": "is_vpip pfr_chance faced_two_bet saw_flop went_to_showdown won_at_showdown"
        " is_hilo_showdown won_low is_low_only is_quartered",
        "Frank": "pfr_chance faced_two_bet",
    },
    # 5. Folded to the SB, who steals; the BB 3-bets; the SB folds to the 3-bet.
    # Button Erin: Frank SB, Alice BB, Bob UTG, Carol HJ, Dave CO.
    # Dave (CO) and Erin (BTN) were folded to: steal chances, not taken.
    "90000000005": {
        "Alice": "is_vpip is_pfr pfr_chance faced_two_bet made_three_bet fold_to_steal_chance"
        " won_without_showdown",
        "Bob": "pfr_chance limp_chance",
        "Carol": "pfr_chance limp_chance",
        "Dave": "pfr_chance steal_chance limp_chance",
        "Erin": "pfr_chance steal_chance limp_chance",
        "Frank": "is_vpip is_pfr pfr_chance is_opener faced_three_bet folded_to_three_bet"
        " faced_three_bet_or_more steal_chance made_steal limp_chance",
    },
    # 6. Button steal, the SB calls, the short BB 3-bets all in for $0.28 (no fold-to-steal
    # chance for him: the SB is in), both call; a side pot; Frank scoops main and side pot.
    # Button Frank: Alice SB, Bob BB, Carol UTG, Dave HJ, Erin CO. Rake $0.05.
    # The preflop aggressor (Bob) is all in: no c-bet chance for anyone; Frank's flop bet is
    # not a c-bet. Alice checks, faces the bet: a check-raise chance. Bob, all in preflop, saw
    # the flop and went to the showdown.
    "90000000006": {
        "Alice": "is_vpip pfr_chance faced_two_bet faced_three_bet faced_three_bet_or_more"
        " fold_to_steal_chance flop_check_raise_chance saw_flop went_to_showdown"
        " is_hilo_showdown",
        "Bob": "is_vpip is_pfr pfr_chance faced_two_bet made_three_bet saw_flop went_to_showdown"
        " is_hilo_showdown",
        "Carol": "pfr_chance limp_chance",
        "Dave": "pfr_chance limp_chance",
        "Erin": "pfr_chance steal_chance limp_chance",
        "Frank": "is_vpip is_pfr pfr_chance is_opener faced_three_bet faced_three_bet_or_more"
        " steal_chance made_steal limp_chance saw_flop went_to_showdown won_at_showdown"
        " is_hilo_showdown won_high won_low is_scoop",
    },
    # 7. Heads-up at 'Test II' (Carol sits out: not dealt in). The button is the small blind:
    # Alice completes (a limp, VPIP; her steal chance is not taken: completing is not a
    # steal). The BB checks his option: no VPIP, but a PFR chance (he could raise). He bets
    # the turn and Alice folds.
    "90000000007": {
        "Alice": "is_vpip pfr_chance steal_chance limp_chance made_limp saw_flop",
        ODD_NAME: "pfr_chance saw_flop won_without_showdown",
    },
    # 8. A limped pot checked to the river; Carol (BB) bets, Dave calls. Carol wins the high
    # half alone and ties Dave for the low: three quarters for her (8 + 4 cents), a quarter
    # for Dave (3 cents; the odd cent of the low half goes to Carol, first clockwise from the
    # button). Button Alice: Bob SB, Carol BB, Dave UTG, Erin HJ, Frank CO.
    "90000000008": {
        "Alice": "pfr_chance limp_chance",
        "Bob": "pfr_chance limp_chance",
        "Carol": "pfr_chance saw_flop went_to_showdown won_at_showdown is_hilo_showdown"
        " won_high won_low is_three_quartered",
        "Dave": "is_vpip pfr_chance limp_chance made_limp saw_flop went_to_showdown"
        " won_at_showdown is_hilo_showdown won_low is_low_only is_quartered",
        "Erin": "pfr_chance limp_chance",
        "Frank": "pfr_chance limp_chance",
    },
    # 9. UTG open, HJ cold-calls; flop c-bet called; turn c-bet chance declined (check); two
    # Broadway straights chop a pot with no low (19 and 18 cents).
    # Button Bob: Carol SB, Dave BB, Erin UTG, Frank HJ, Alice CO.
    "90000000009": {
        "Alice": "pfr_chance faced_two_bet faced_two_bet_cold",
        "Bob": "pfr_chance faced_two_bet faced_two_bet_cold",
        "Carol": "pfr_chance faced_two_bet",
        "Dave": "pfr_chance faced_two_bet",
        "Erin": "is_vpip is_pfr pfr_chance is_opener limp_chance flop_cbet_chance made_flop_cbet"
        " turn_cbet_chance saw_flop went_to_showdown won_at_showdown is_hilo_showdown won_high"
        " is_chopped",
        "Frank": "is_vpip pfr_chance faced_two_bet faced_two_bet_cold made_cold_call"
        " fold_to_flop_cbet_chance saw_flop went_to_showdown won_at_showdown is_hilo_showdown"
        " won_high is_chopped",
    },
    # 10. Fixed limit, 4 players (Alice SB, Bob BB, Carol CO, Dave BTN): CO steal, BTN 3-bet,
    # SB caps it with the 4th bet (a 4-bet; she faced the 3-bet), the BB calls the capped pot
    # with his only decision: no PFR chance (no raise possible). Alice c-bets the flop, Bob and
    # Carol fold to it, Dave calls; Alice checks the turn (turn c-bet chance declined; she then
    # faces Dave's bet, a check-raise chance that is no flop one) and folds. Rake $0.09.
    "90000000010": {
        "Alice": "is_vpip is_pfr pfr_chance faced_three_bet faced_three_bet_or_more"
        " made_four_bet flop_cbet_chance made_flop_cbet turn_cbet_chance saw_flop",
        "Bob": "is_vpip faced_three_bet_or_more fold_to_flop_cbet_chance folded_to_flop_cbet"
        " saw_flop",
        "Carol": "is_vpip is_pfr pfr_chance is_opener faced_three_bet_or_more steal_chance"
        " made_steal limp_chance fold_to_flop_cbet_chance folded_to_flop_cbet saw_flop",
        "Dave": "is_vpip is_pfr pfr_chance faced_two_bet made_three_bet faced_three_bet_or_more"
        " faced_two_bet_cold fold_to_flop_cbet_chance saw_flop won_without_showdown",
    },
}


def test_every_flag_of_every_hand(facts: pl.DataFrame) -> None:
    """Each (hand, player) has exactly the flags worked out by hand."""
    assert facts.height == sum(len(players) for players in EXPECTED_FLAGS.values())
    problems = []
    for row in facts.iter_rows(named=True):
        expected = set(EXPECTED_FLAGS[row["hand_id"]][row["player"]].split())
        assert expected <= set(FLAGS), expected - set(FLAGS)
        actual = {flag for flag in FLAGS if row[flag]}
        if actual != expected:
            problems.append(
                f"{row['hand_id']} {row['player']}: missing {sorted(expected - actual)},"
                f" unexpected {sorted(actual - expected)}"
            )
    assert not problems, "\n".join(problems)


def test_positions_and_sitting_out(facts: pl.DataFrame) -> None:
    """Positions come from the parser (heads-up: the button is the SB); sitting out = not dealt."""
    positions = dict(
        facts.filter(pl.col("hand_id") == "90000000007").select("player", "position").iter_rows()
    )
    assert positions == {"Alice": "SB", ODD_NAME: "BB"}
    limit_hand = dict(
        facts.filter(pl.col("hand_id") == "90000000010").select("player", "position").iter_rows()
    )
    assert limit_hand == {"Alice": "SB", "Bob": "BB", "Carol": "CO", "Dave": "BTN"}


# Chips put in, collected and net, per hand (cents), from the text:
# 2: Frank put in 23 (57 less 34 returned) and collected 74: +51; Alice, Bob -23; Carol -1,
#    Dave -2, Erin -2.
# 3: Bob 7+10+20 = 37; Erin 7+10+80-60 = 37, collected 72 (75 less 3 rake): +35; Dave -1.
# 6: Frank and Alice 28+50 = 78, Bob 28; Frank collects 50+50 (side) + 40+39 (main, after the
#    5 cents of rake) = 179: +101.
# 10: Alice 40+10 = 50, Bob 40, Carol 40, Dave 40+10 (+20 returned) = 50, collects 171.
NET_WON = {
    ("90000000001", "Bob"): -1,
    ("90000000001", "Carol"): 1,
    ("90000000002", "Frank"): 51,
    ("90000000002", "Alice"): -23,
    ("90000000003", "Erin"): 35,
    ("90000000003", "Bob"): -37,
    ("90000000004", "Alice"): 10,
    ("90000000004", "Erin"): -4,
    ("90000000006", "Frank"): 101,
    ("90000000006", "Alice"): -78,
    ("90000000006", "Bob"): -28,
    ("90000000008", "Carol"): 5,
    ("90000000008", "Dave"): -4,
    ("90000000009", "Erin"): 2,
    ("90000000009", "Frank"): 1,
    ("90000000010", "Dave"): 121,
    ("90000000010", "Alice"): -50,
}

# Rake shares in millionths of a cent: R * c / P, rounded down.
# 3: R = 3, P = 75: Dave 3*1/75 = 0.04, Bob and Erin 3*37/75 = 1.48.
# 6: R = 5, P = 184: Frank and Alice 5*78/184 = 2.1195652.., Bob 5*28/184 = 0.7608695..
# 10: R = 9, P = 180: Alice and Dave 9*50/180 = 2.5, Bob and Carol 9*40/180 = 2.
RAKE_MICROS = {
    ("90000000003", "Dave"): 40_000,
    ("90000000003", "Bob"): 1_480_000,
    ("90000000003", "Erin"): 1_480_000,
    ("90000000006", "Frank"): 2_119_565,
    ("90000000006", "Alice"): 2_119_565,
    ("90000000006", "Bob"): 760_869,
    ("90000000010", "Alice"): 2_500_000,
    ("90000000010", "Bob"): 2_000_000,
    ("90000000010", "Carol"): 2_000_000,
    ("90000000010", "Dave"): 2_500_000,
}


def test_money_per_hand(facts: pl.DataFrame) -> None:
    """Net won and rake shares per hand; every hand balances (net sums to minus the rake)."""
    rows = {
        (hand, player): (net, rake)
        for hand, player, net, rake in facts.select(
            "hand_id", "player", "net_won", "rake_paid_micros"
        ).iter_rows()
    }
    for key, net in NET_WON.items():
        assert rows[key][0] == net, key
    for key, (_, rake) in rows.items():
        assert rake == RAKE_MICROS.get(key, 0), key
    assert facts["is_balanced"].all()
    per_hand = facts.group_by("hand_id").agg(pl.col("net_won").sum())
    assert dict(per_hand.iter_rows()) == {
        hand: -{"90000000003": 3, "90000000006": 5, "90000000010": 9}.get(hand, 0)
        for hand in EXPECTED_FLAGS
    }


# -- per player: the aggregates ------------------------------------------------------------------

# Counted from the hands above (hand numbers in brackets).
ALICE = {
    "hands": 10,
    "walks": 0,
    "vpip_hands": 6,  # [2 4 5 6 7 10]
    "pfr_hands": 4,  # [2 4 5 10]
    "pfr_chances": 10,  # every hand
    "three_bets": 2,  # [2 5]
    "three_bet_chances": 4,  # faced one raise [2 5 6 9]
    "three_bet_folds": 0,
    "fold_to_three_bet_chances": 2,  # faced a 3-bet [6 10]
    "four_bets": 1,  # [10]
    "four_bet_chances": 3,  # faced 3-bet or more [2 6 10]
    "steals": 0,
    "steal_chances": 2,  # BTN in 1, heads-up SB in 7
    "fold_to_steal_chances": 2,  # BB vs SB in 5, SB vs BTN in 6
    "steal_folds": 0,
    "limps": 1,  # [7]
    "limp_chances": 5,  # [1 3 4 7 8]
    "cold_calls": 0,
    "cold_call_chances": 2,  # [2 9]
    "postflop_bets": 1,  # [10 flop]
    "postflop_raises": 0,
    "postflop_calls": 2,  # [4 flop, 6 flop]
    "postflop_folds": 2,  # [7 turn, 10 turn]
    "flop_cbets": 1,
    "flop_cbet_chances": 1,  # [10]
    "turn_cbets": 0,
    "turn_cbet_chances": 1,  # [10]
    "flop_check_raise_chances": 1,  # [6]
    "check_raise_chances": 2,  # [6 flop, 10 turn]
    "check_raises": 0,
    "flops_seen": 4,  # [4 6 7 10]
    "showdowns": 2,  # [4 6]
    "showdowns_won": 1,  # [4]
    "net_won_minor": -137,  # -23 +10 +6 -78 -2 -50
    "rake_paid_micros": 4_619_565,  # 2 119 565 + 2 500 000
    "hilo_showdowns": 2,
    "high_only_wins": 1,
    "scoops": 0,
    "showdown_main_pots": 132,  # 53 + 79
    "showdown_main_pots_collected": 27,
}
FRANK = {
    "hands": 8,
    "vpip_hands": 4,  # [2 5 6 9]
    "pfr_hands": 3,  # [2 5 6]
    "fold_to_three_bet_chances": 3,  # [2 5 6]
    "three_bet_folds": 1,  # [5]
    "opener_fold_to_three_bet_chances": 3,
    "opener_three_bet_folds": 1,
    "four_bets": 1,  # [2]
    "steals": 2,  # SB in 5, BTN in 6
    "steal_chances": 3,  # CO in 1, SB in 5, BTN in 6
    "cold_calls": 1,
    "cold_call_chances": 1,  # [9]
    "flops_seen": 2,
    "showdowns": 2,
    "showdowns_won": 2,
    "net_won_minor": 145,  # +51 -6 +101 -2 +1
    "hilo_showdowns": 2,
    "scoops": 1,  # [6]
    "chopped": 1,  # [9]
}


def _row(frame: pl.DataFrame, player: str, **keys: Any) -> dict[str, Any]:
    selected = frame.filter(pl.col("player") == player)
    for column, value in keys.items():
        selected = selected.filter(pl.col(column) == value)
    assert selected.height == 1, (player, keys, selected)
    return selected.row(0, named=True)


def test_player_counts(dataset: Path) -> None:
    frame = compute_stats(dataset, counts=True)
    assert set(frame["player"]) == set(PLAYERS)
    for player, expected in (("Alice", ALICE), ("Frank", FRANK)):
        row = _row(frame, player)
        assert {key: row[key] for key in expected} == expected, player
    # Hands: dealt in only (Carol sat out hand 7).
    assert dict(frame.select("player", "hands").iter_rows()) == {
        "Alice": 10, "Bob": 9, "Carol": 9, "Dave": 9, "Erin": 8, "Frank": 8, ODD_NAME: 1,
    }  # fmt: skip


def test_player_ratios(dataset: Path, memory: duckdb.DuckDBPyConnection) -> None:
    """Ratios are fractions; money is in currency units, named by the currency column."""
    alice = _row(compute_stats(dataset, connection=memory), "Alice")
    assert alice["site"] == "pokerstars" and alice["currency"] == "USD"
    assert alice["vpip"] == pytest.approx(6 / 10)
    assert alice["pfr"] == pytest.approx(4 / 10)
    assert alice["three_bet"] == pytest.approx(2 / 4)
    assert alice["four_bet"] == pytest.approx(1 / 3)
    assert alice["af"] == pytest.approx((1 + 0) / 2)  # (bets + raises) / calls
    assert alice["afq"] == pytest.approx(1 / (1 + 2 + 2))  # / (bets + raises + calls + folds)
    assert alice["wtsd"] == pytest.approx(2 / 4)
    assert alice["wsd"] == pytest.approx(1 / 2)
    assert alice["wwsf"] == pytest.approx(1 / 4)
    assert alice["saw_flop"] == pytest.approx(4 / 10)
    assert alice["steal"] == 0.0 and alice["fold_to_steal"] == 0.0
    assert alice["net_won"] == Decimal("-1.37")
    assert alice["rake_paid"] == Decimal("0.05")  # 4.619565 cents
    # bb/100: the pot-limit hands in big blinds of 2 cents, the limit hand (-50 cents) in big
    # blinds of 10 cents: (-87 / 2 - 50 / 10) * 100 / 10 hands; big bets: 2 x 2 cents and 20.
    assert alice["bb_per_100"] == pytest.approx((-87 / 2 - 50 / 10) * 10)
    assert alice["big_bets_per_100"] == pytest.approx((-87 / 4 - 50 / 20) * 10)
    assert alice["high_only_pct"] == pytest.approx(1 / 2)
    assert alice["pot_share_at_showdown"] == pytest.approx(27 / 132)
    assert alice["cold_call"] == 0.0 and alice["limp"] == pytest.approx(1 / 5)

    erin = _row(compute_stats(dataset, connection=memory), "Erin")
    assert erin["check_raise"] == pytest.approx(1 / 2)  # hand 3: flop chance, turn taken
    assert erin["fold_to_three_bet"] == 1.0 and erin["flop_cbet"] == 1.0
    assert erin["quartered_pct"] == pytest.approx(1 / 2) and erin["chopped_pct"] == 0.5
    carol = _row(compute_stats(dataset, connection=memory), "Carol")
    assert carol["three_quartered_pct"] == pytest.approx(1 / 2)  # hands 4 and 8
    assert carol["vpip"] == pytest.approx(2 / 8)  # hand 1 was her walk
    assert carol["won_without_showdown"] == pytest.approx(1 / 9)
    frank = _row(compute_stats(dataset, connection=memory), "Frank")
    assert frank["scoop_pct"] == 0.5 and frank["fold_to_three_bet_opener"] == pytest.approx(1 / 3)
    bob = _row(compute_stats(dataset, connection=memory), "Bob")
    assert bob["af"] is None  # no postflop call: aggression factor undefined
    assert bob["fold_to_flop_cbet"] == 1.0  # hand 10


def test_filters_and_groups(dataset: Path, memory: duckdb.DuckDBPyConnection) -> None:
    def stats(**filters: Any) -> pl.DataFrame:
        return compute_stats(dataset, connection=memory, **filters)

    limit = stats(limit="FL")
    assert sorted(limit["player"]) == ["Alice", "Bob", "Carol", "Dave"]
    assert set(limit["hands"]) == {1}
    assert _row(limit, "Dave")["big_bets_per_100"] == pytest.approx(121 / 20 * 100)
    for stakes in ("0.10/0.20", "$0.1/$0.2", "0.1/0.2 USD"):
        assert stats(stakes=stakes).height == 4, stakes
    assert stats(stakes="0.01/0.02", players="Alice")["hands"].item() == 9
    assert stats(site="pokerstars").height == 7
    assert stats(site="ftp").height == 0
    day = dt.date(2009, 11, 26)  # 10:00 ET is 15:00 UTC, the same day
    assert stats(since=day, until=day).height == 7
    assert stats(since="2009-11-27").height == 0
    assert stats(until="2009-11-25").height == 0
    assert stats(min_hands=9)["player"].to_list() == [
        "Alice", "Bob", "Carol", "Dave",
    ]  # fmt: skip

    by_position = stats(players=["Erin"], by="position")
    assert by_position.columns[:4] == ["player", "site", "currency", "position"]
    assert dict(by_position.select("position", "hands").iter_rows()) == {
        "UTG": 2, "HJ": 2, "SB": 1, "BB": 1, "CO": 1, "BTN": 1,
    }  # fmt: skip
    by_stakes = stats(players=["Alice"], by="stakes")
    assert dict(by_stakes.select("stakes", "hands").iter_rows()) == {
        "PL 0.01/0.02": 9, "FL 0.10/0.20": 1,
    }  # fmt: skip
    by_month = stats(by="month")
    assert set(by_month["month"]) == {"2009-11"}
    by_site = stats(by="site")
    assert by_site.columns[:3] == ["player", "site", "currency"]
    assert set(by_site["site"]) == {"pokerstars"}

    with pytest.raises(ValueError, match="limit"):
        stats(limit="HU")
    with pytest.raises(ValueError, match="by"):
        stats(by="table")
    with pytest.raises(ValueError, match="stakes"):
        stats(stakes="cheap")
    with pytest.raises(ValueError, match="date"):
        stats(since="yesterday")


def test_parse_stakes() -> None:
    assert parse_stakes("0.01/0.02") == ("0.01", "0.02")
    assert parse_stakes("$2/$4") == ("2", "4")
    assert parse_stakes("€0.5 / €1 EUR") == ("0.5", "1")


# -- user values are parameters, never SQL ------------------------------------------------------


def _hands_in_database(dataset: Path) -> int:
    connection = duckdb.connect(str(dataset / DATABASE_NAME), read_only=True)
    try:
        return int(connection.sql("select count(*) from hands").fetchall()[0][0])
    finally:
        connection.close()


@pytest.mark.parametrize(
    "name",
    [ODD_NAME, "x' or '1'='1", "Alice'; drop view hands; --", 'Alice" or 1=1 --', "%", "*"],
)
def test_player_names_cannot_alter_the_query(dataset: Path, name: str) -> None:
    frame = compute_stats(dataset, players=[name], site="pokerstars'; --")
    assert frame.height == 0  # the site is one odd value, not SQL
    frame = compute_stats(dataset, players=[name])
    assert frame["player"].to_list() == ([ODD_NAME] if name == ODD_NAME else [])
    assert _hands_in_database(dataset) == 10


def test_player_name_through_the_cli(dataset: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(app, ["stats", str(dataset), "--player", ODD_NAME, "--format", "json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert [row["player"] for row in rows] == [ODD_NAME]
    assert rows[0]["hands"] == 1 and rows[0]["net_won"] in ("0.02", 0.02)
    result = runner.invoke(
        app, ["stats", str(dataset), "--player", "x' or '1'='1", "--player", "Bob", "-f", "csv"]
    )
    assert result.exit_code == 0, result.output
    assert [line.split(",")[0] for line in result.stdout.splitlines()[1:]] == ["Bob"]
    assert _hands_in_database(dataset) == 10


# -- the command line ----------------------------------------------------------------------------


def test_stats_command_formats(dataset: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    table = runner.invoke(app, ["stats", str(dataset)])
    assert table.exit_code == 0, table.output
    header = table.stdout.splitlines()[0].split()
    for column in ("player", "site", "hands", "vpip", "pfr", "three_bet", "af", "wtsd", "wsd",
                   "net_won", "bb_per_100", "scoop_pct"):  # fmt: skip
        assert column in header
    assert table.stdout.rstrip().endswith("(7 rows)")

    csv_file = tmp_path / "stats.csv"
    result = runner.invoke(
        app, ["stats", str(dataset), "--by", "position", "-f", "csv", "-o", str(csv_file)]
    )
    assert result.exit_code == 0, result.output
    frame = pl.read_csv(csv_file)
    assert "position" in frame.columns and frame["hands"].sum() == 54

    parquet = tmp_path / "stats.parquet"
    result = runner.invoke(
        app, ["stats", str(dataset), "--counts", "-f", "parquet", "-o", str(parquet)]
    )
    assert result.exit_code == 0, result.output
    assert "vpip_hands" in pl.read_parquet(parquet).columns

    assert runner.invoke(app, ["stats", str(dataset), "-f", "parquet"]).exit_code == 2
    assert runner.invoke(app, ["stats", str(dataset), "-f", "xml"]).exit_code == 2
    assert runner.invoke(app, ["stats", str(dataset), "--limit", "XL"]).exit_code == 2
    assert runner.invoke(app, ["stats", str(tmp_path / "none")]).exit_code == 2
    result = runner.invoke(app, ["stats", str(dataset), "--stakes", "0.1/0.2", "--min-hands", "1"])
    assert result.exit_code == 0 and result.stdout.rstrip().endswith("(4 rows)")


def test_query_command(dataset: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(
        app, ["query", str(dataset), "select count(*) as hands, sum(rake) as rake from stg_hands"]
    )
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[2].split() == ["10", "17"]
    result = runner.invoke(app, ["query", str(dataset), "select * from no_such_table"])
    assert result.exit_code == 2 and "query failed" in result.output


def test_run_stage_prints_the_top_players(
    dataset: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from pipeline.cli import STAGES, stats_stage

    names = [stage.__name__ for stage in STAGES]
    assert "stats_stage" in names
    for earlier in ("ingest_stage", "audit_stage"):
        if earlier in names:
            assert names.index("stats_stage") > names.index(earlier)
    stats_stage(SimpleNamespace(dataset=dataset))  # type: ignore[arg-type]
    text = capsys.readouterr().out
    assert "Alice" in text and "(7 rows)" in text and DATABASE_NAME in text


# -- the database and the models -----------------------------------------------------------------


def test_database_views_work_from_anywhere(dataset: Path, tmp_path: Path) -> None:
    """DATASET/hilo.duckdb holds a view per table and model; another process in another folder
    (as the duckdb command line would) reads them."""
    compute_stats(dataset)
    script = (
        "import duckdb, sys\n"
        "c = duckdb.connect(sys.argv[1], read_only=True)\n"
        "print(c.sql('select count(*) from fct_hand_players').fetchall()[0][0])\n"
        "print(c.sql('select count(*) from agg_player_stats').fetchall()[0][0])\n"
        "print(c.sql(\"select hands from rpt_player_stats(filter_players := ['Alice'])\")"
        ".fetchall()[0][0])\n"
    )
    output = subprocess.run(
        [sys.executable, "-c", script, str(dataset / DATABASE_NAME)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": ""},
    ).stdout.split()
    assert output == ["54", "7", "10"]
    connection = duckdb.connect(str(dataset / DATABASE_NAME), read_only=True)
    try:
        views = {
            row[0] for row in connection.sql("select view_name from duckdb_views()").fetchall()
        }
        tables = {
            row[0] for row in connection.sql("select table_name from duckdb_tables()").fetchall()
        }
    finally:
        connection.close()
    assert tables == set()  # no copy of the facts: they are Parquet parts under DATASET/stats
    for stem, _ in model_files():
        if not stem.startswith("rpt_"):
            assert stem in views
    for table in ("hands", "seats", "actions", "collections", "showdowns", "rejects", "files",
                  "audit_payouts", "audit_discrepancies"):  # fmt: skip
        assert table in views


HOLD_DATABASE = (
    "import duckdb, sys, time; c = duckdb.connect(sys.argv[1]);"
    " print('ready', flush=True); time.sleep(30)"
)


def test_locked_database_falls_back_to_memory(dataset: Path) -> None:
    """Another process holding hilo.duckdb (e.g. the duckdb CLI) does not stop the stats."""
    compute_stats(dataset)
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            HOLD_DATABASE,
            str(dataset / DATABASE_NAME),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
        assert compute_stats(dataset, players="Alice")["hands"].item() == 10
    finally:
        holder.kill()
        holder.wait()


def test_model_files_follow_the_style() -> None:
    """One model per file, layered, with a header (purpose, grain, inputs) and final CTE."""
    files = model_files()
    stems = [stem for stem, _ in files]
    layers = [next(i for i, layer in enumerate(LAYERS) if stem.startswith(layer)) for stem in stems]
    assert layers == sorted(layers)
    for stem in ("stg_hands", "stg_seats", "stg_actions", "stg_collections", "stg_payouts",
                 "fct_hand_players", "agg_player_stats"):  # fmt: skip
        assert stem in stems
    for stem, text in files:
        lines = text.splitlines()
        assert lines[0].startswith(f"-- {stem}: "), stem
        header = "\n".join(line for line in lines if line.startswith("--"))
        assert "-- grain:" in header and "-- inputs:" in header, stem
        assert all(len(line) <= 80 for line in lines), stem
        body = "\n".join(line.split("--", 1)[0] for line in lines)
        code = re.sub(r"'[^']*'", "''", body)
        assert code == code.lower(), stem  # lowercase SQL (string literals aside)
        last_select = [line for line in body.splitlines() if line.startswith("select")][-1]
        assert "final as (" in body and last_select == "select * from final", stem


def test_dataset_without_audit_has_no_hilo_stats(tmp_path: Path) -> None:
    from pipeline.ingest import ingest

    root = tmp_path / "dataset"
    ingest([HANDS_FOLDER / "lo8_limit.txt"], root)
    frame = compute_stats(root)
    assert frame.height == 4
    assert frame["scoop_pct"].null_count() == 4  # no audit payouts: no hi/lo denominators
    assert frame["wtsd"].to_list() == [0.0, 0.0, 0.0, 0.0]
    empty = tmp_path / "empty"
    (empty / "files").mkdir(parents=True)
    assert compute_stats(empty).height == 0


# -- generated archives: the generator's own record -------------------------------------------------

GENERATED_HANDS = 4000


def test_generated_hands_match_the_generator_truth(tmp_path: Path) -> None:
    """Hands, VPIP, PFR, flops seen, showdowns, showdowns won and net won equal the generator's
    ground truth (``truth/truth_players``), per hand and player and per player.

    Cash and tournament tables, every limit, 5 % of hands with an injected fault (the truth
    records money as the text does); several ingest parts, built in several chunks."""
    try:
        from pipeline.generate import generate
    except ImportError as error:  # pragma: no cover - the generator ships with hilo now
        pytest.skip(f"pipeline.generate is not available ({error})")
    from pipeline.ingest import ingest

    out = tmp_path / "generated"
    generate(
        GENERATED_HANDS,
        20260606,
        out,
        limit="mix",
        tournament_share=0.3,
        fault_rate=0.05,
        workers=1,
    )
    root = tmp_path / "dataset"
    # Small batches: several ingest parts, so the facts are built in several chunks.
    with ThreadPoolExecutor(1) as executor:
        summary = ingest([out / "pokerstars"], root, executor=executor, batch_bytes=400_000)
    assert f"hands parsed {GENERATED_HANDS} " in summary.line()
    assert len(list((root / "hands").rglob("part-*.parquet"))) > 3
    truth = pl.read_parquet(out / "truth" / "truth_players.parquet").filter("dealt_in")
    truth_hands = pl.read_parquet(out / "truth" / "truth_hands.parquet").select(
        "hand_id", "currency"
    )

    connection = open_database(root)
    try:
        facts = pl.from_arrow(
            connection.sql(
                "select site, hand_id, player, is_vpip, is_pfr, saw_flop, went_to_showdown,"
                " won_at_showdown, net_won from fct_hand_players"
            ).to_arrow_table()
        )
        stats = compute_stats(root, counts=True, connection=connection)
        chunked = connection.sql("select * from fct_hand_players").pl()
    finally:
        connection.close()
    # The facts stored per part equal one pass over everything.
    assert len(list((root / "stats" / "fct_hand_players").rglob("part-*.parquet"))) > 3
    whole = open_database(root, persistent=False, stored_facts=False)
    try:
        single = whole.sql("select * from fct_hand_players").pl()
    finally:
        whole.close()
    keys = ["site", "hand_id", "player"]
    assert chunked.sort(keys).equals(single.sort(keys))
    assert isinstance(facts, pl.DataFrame)
    joined = truth.join(facts, on=["site", "hand_id", "player"], how="full", coalesce=True)
    assert joined.height == truth.height == facts.height
    for mine, theirs in (
        ("is_vpip", "vpip"),
        ("is_pfr", "pfr"),
        ("saw_flop", "saw_flop"),
        ("went_to_showdown", "showdown"),
        ("won_at_showdown", "won_at_showdown"),
        ("net_won", "net_won"),
    ):
        wrong = joined.filter(pl.col(mine).ne_missing(pl.col(theirs)))
        assert wrong.height == 0, (mine, wrong.head(5))

    expected = (
        truth.join(truth_hands, on="hand_id")
        .group_by("player", "currency")
        .agg(
            hands=pl.len(),
            vpip_hands=pl.col("vpip").sum(),
            pfr_hands=pl.col("pfr").sum(),
            flops_seen=pl.col("saw_flop").sum(),
            showdowns=pl.col("showdown").sum(),
            showdowns_won=pl.col("won_at_showdown").sum(),
            net_won_minor=pl.col("net_won").sum(),
        )
        .sort("player", "currency")
    )
    actual = stats.select(expected.columns).sort("player", "currency")
    assert actual.equals(expected.cast(actual.schema)), (actual, expected)


# -- the declarations: every statistic declared once reaches every output -----------------------------


def test_every_declared_statistic_and_count_is_a_column(
    dataset: Path, memory: duckdb.DuckDBPyConnection
) -> None:
    """`pipeline.statistics` alone declares the columns: stats, counts and labels follow it."""
    from pipeline import statistics

    plain = compute_stats(dataset, connection=memory)
    assert tuple(plain.columns) == tuple(c for c in statistics.STAT_COLUMNS if c != "group_value")
    with_counts = compute_stats(dataset, connection=memory, counts=True)
    assert {count.name for count in statistics.COUNTS} <= set(with_counts.columns)
    assert set(statistics.LABELS) >= {s.name for s in statistics.STATISTICS}
    assert len({s.name for s in statistics.STATISTICS}) == len(statistics.STATISTICS)


def test_docs_tables_are_the_declarations() -> None:
    """docs/stats.md's statistics tables are generated: `python -m pipeline.statistics FILE`."""
    from pipeline.statistics import with_docs_tables

    path = Path(__file__).resolve().parents[1] / "docs" / "stats.md"
    text = path.read_text(encoding="utf-8")
    assert text == with_docs_tables(text), "run: python -m pipeline.statistics docs/stats.md"


def test_generated_model_columns_fit_the_style() -> None:
    """The columns written into the models keep their style: one per line, ≤ 80 characters."""
    from pipeline.statistics import counts_sql, statistics_sql

    for generated in (counts_sql(), statistics_sql()):
        assert all(len(line) <= 80 for line in generated.splitlines())
        assert generated.rstrip().endswith(",")  # the models' columns continue after them
