"""Rake schedules as data: the TOML format, its errors, and the audit judging by it."""

from __future__ import annotations

import datetime as dt
from dataclasses import replace
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parsers import parse_bytes
from pipeline.audit import audit_tables
from pipeline.rake_schedules import ScheduleError, ScheduleRule, load_schedule

TABLES = ("hands", "seats", "actions", "collections", "showdowns")
HANDS = Path(__file__).parent / "test_stats_hands" / "lo8_limit.txt"

# The example schedule the format was specified with, as given: it must be accepted and mean
# exactly this.
ISSUE_EXAMPLE = """
[[rule]]
site = "pokerstars"        # optional: every site when absent
game = "cash"              # cash | tournament
players = [2, 3]           # optional inclusive range of players dealt in
percent = "5"              # exact decimal
rounding = "half-even"     # down | half-even | up, to the currency's minor unit
cap = "1.00"               # optional, in the currency's units
no_flop_no_drop = true
from = "main-first"

[[rule]]
site = "pokerstars"
game = "cash"
players = [4, 10]
percent = "5"
rounding = "half-even"
cap = "2.00"
no_flop_no_drop = true
from = "main-first"
"""


@pytest.fixture
def example(tmp_path: Path) -> Path:
    path = tmp_path / "stars.toml"
    path.write_text(ISSUE_EXAMPLE)
    return path


def test_the_issue_example_means_what_it_says(example: Path) -> None:
    schedule = load_schedule(example)
    facts = ("pokerstars", False, "PL", "USD", Decimal("0.10"), dt.date(2013, 1, 1))
    three, four = schedule.rule_for(*facts, 3), schedule.rule_for(*facts, 4)
    assert three is not None and four is not None
    assert (three.number, four.number) == (1, 2)
    assert three.percent == Fraction(1, 20) and three.rounding == "half-even"
    assert (three.source, three.no_flop_no_drop, three.check) == ("main-first", True, "exact")
    # 5 % of $12.50 is 62.5 cents: half to even gives 62; of $12.70, 63.5 gives 64.
    assert [three.rake(pot, 100, True) for pot in (1250, 1270, 2000, 2010, 5000)] == [
        62, 64, 100, 100, 100
    ]
    assert four.rake(5000, 100, True) == 200 and four.rake(5000, 100, False) == 0
    assert schedule.rule_for("fulltilt", *facts[1:], 4) is None
    assert schedule.rule_for("pokerstars", True, *facts[2:], 4) is None  # a tournament


@settings(deadline=None)
@given(pot=st.integers(0, 10**12), numerator=st.integers(0, 400), scale=st.sampled_from([1, 100]))
def test_percent_rounding_is_exact(pot: int, numerator: int, scale: int) -> None:
    percent = Fraction(numerator, 1000)
    down, even, up = (
        ScheduleRule(1, percent=percent, rounding=rounding).rake(pot, scale, True)
        for rounding in ("down", "half-even", "up")
    )
    exact = pot * percent
    assert down <= exact <= up and up - down <= 1
    assert abs(even - exact) <= Fraction(1, 2)
    if exact.denominator == 2:
        assert even % 2 == 0
    assert 0 <= down <= pot


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[[rule]]\npercent = 5.5\n', "exact decimal written as text"),
        ('[[rule]]\npercent = "5"\nround = "down"\n', "unknown keys ['round']"),
        ('[[rule]]\ncap = "1.00"\n', "needs percent"),
        ('[[rule]]\npercent = "5"\nrounding = "nearest"\n', "rounding must be one of"),
        ('[[rule]]\npercent = "5"\nplayers = [4, 2]\n', "players must be"),
        ('[[rule]]\nincrement = "0.01"\n', "increment and per go together"),
        ('[[rule]]\npercent = "105"\n', "between 0 and 100"),
        ('[[rule]]\npercent = "5"\nsince = "last year"\n', "must be a date"),
        ("[[rule]\n", "not TOML"),
        ('[[rules]]\npercent = "5"\n', "unknown keys ['rules']"),
    ],
)
def test_bad_files_say_what_is_wrong(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(ScheduleError, match=f"{path}") as raised:
        load_schedule(path)
    assert message in str(raised.value)


def test_shipped_schedules_load() -> None:
    for name in ("auto", "generated"):
        assert load_schedule(name).rules


def _audit(text: str, schedule: str | Path) -> pl.DataFrame:
    result = parse_bytes(text.encode(), "hand.txt")
    assert result is not None and result.rejected == 0
    tables = {name: pl.from_arrow(result.tables[name]) for name in TABLES}
    findings = audit_tables(**tables, rake_schedule=str(schedule)).discrepancies  # type: ignore[arg-type]
    return findings.filter(pl.col("kind") == "rake")


def test_audit_judges_the_rake_by_the_file_over_and_under(example: Path) -> None:
    hand = HANDS.read_text().split("\n\n\n")[0]
    assert "Total pot $1.80 | Rake $0.09" in hand  # 5 % of $1.80, four players dealt
    assert _audit(hand, example).height == 0
    under = hand.replace("Dave collected $1.71", "Dave collected $1.72").replace(
        "Rake $0.09", "Rake $0.08"
    ).replace("collected ($1.71)", "collected ($1.72)")
    found = _audit(under, example).row(0, named=True)
    assert (found["expected"], found["recorded"], found["severity"]) == (9, 8, "money")
    assert found["detail"].startswith("rake below the 9 of rule 2 in ")
    over = hand.replace("Dave collected $1.71", "Dave collected $1.70").replace(
        "Rake $0.09", "Rake $0.10"
    ).replace("collected ($1.71)", "collected ($1.70)")
    assert _audit(over, example).select("expected", "recorded").rows() == [(9, 10)]
    # Without a rule for the hand (another site's file), only no flop no drop is checked.
    other = example.parent / "other.toml"
    other.write_text(ISSUE_EXAMPLE.replace('"pokerstars"', '"fulltilt"'))
    assert _audit(over, other).height == 0


@settings(deadline=None)  # the first example compiles the kernel
@given(
    hands=st.lists(
        st.tuples(
            # pot amounts, main first, each with whether two or more players put chips in it
            st.lists(st.tuples(st.integers(0, 10**9), st.booleans()), min_size=1, max_size=6),
            st.integers(0, 10**6),  # rake
            st.booleans(),  # from each pot
        ),
        min_size=1,
        max_size=20,
    )
)
def test_rake_by_pot_conserves_money(hands: list[tuple[list[tuple[int, bool]], int, bool]]) -> None:
    """Whatever the pots, the rake taken sums to the hand's rake (or its whole pots when the
    rake is larger), no pot gives more than it holds, and each-pot side shares are the
    proportional share of the contested pots rounded down (a pot of one player's chips: 0)."""
    import numpy as np

    from pipeline.payouts import PotTable, rake_by_pot

    pot_hand = np.array([h for h, (pots, _, _) in enumerate(hands) for _ in pots])
    amounts = np.array([amount for pots, _, _ in hands for amount, _ in pots])
    contested = np.array([held for pots, _, _ in hands for _, held in pots], dtype=bool)
    index = np.array([i for pots, _, _ in hands for i in range(len(pots))])
    pots = PotTable(
        pot_hand,
        index,
        amounts,
        np.zeros(len(amounts) + 1, dtype=np.int64),
        np.zeros(0, dtype=np.int64),
        contested,
    )
    rakes = np.array([rake for _, rake, _ in hands])
    flags = np.array([each for _, _, each in hands])
    taken = rake_by_pot(pots, rakes, flags)
    assert (taken >= 0).all() and (taken <= amounts).all()
    for h, (hand_pots, rake, each) in enumerate(hands):
        mine = taken[pot_hand == h]
        total = sum(amount for amount, _ in hand_pots)
        assert mine.sum() == min(rake, total)
        left = min(rake, total)
        shared = sum(amount for amount, held in hand_pots if held)
        if each and shared:
            part = min(left, shared)
            shares = [part * amount // shared if held else 0 for amount, held in hand_pots[1:]]
            if left - sum(shares) <= hand_pots[0][0]:
                assert mine[1:].tolist() == shares


def test_rake_by_pot_is_exact_where_rake_times_pot_passes_64_bits() -> None:
    import numpy as np

    from pipeline.payouts import PotTable, rake_by_pot

    amounts = [10**16, 3 * 10**15]
    pots = PotTable(np.array([0, 0]), np.array([0, 1]), np.array(amounts), np.zeros(3, dtype=np.int64), np.zeros(0, dtype=np.int64))
    taken = rake_by_pot(pots, np.array([10**15]), np.array([True])).tolist()
    side = 10**15 * amounts[1] // sum(amounts)
    assert taken == [10**15 - side, side]
    assert rake_by_pot(pots, np.array([10**15])).tolist() == [10**15, 0]
    # A top pot of one player's chips (an unmatched bet paid back as a pot) takes no share,
    # in exact integers as in the compiled rule.
    three = PotTable(
        np.zeros(3, dtype=np.int64),
        np.arange(3),
        np.array([*amounts, 7 * 10**15]),
        np.zeros(4, dtype=np.int64),
        np.zeros(0, dtype=np.int64),
        np.array([True, True, False]),
    )
    assert rake_by_pot(three, np.array([10**15]), np.array([True])).tolist() == [*taken, 0]
    small = PotTable(
        np.zeros(3, dtype=np.int64),
        np.arange(3),
        np.array([100, 30, 70]),
        np.zeros(4, dtype=np.int64),
        np.zeros(0, dtype=np.int64),
        np.array([True, True, False]),
    )
    assert rake_by_pot(small, np.array([10]), np.array([True])).tolist() == [8, 2, 0]
    with pytest.raises(ValueError, match="one flag a pot"):
        rake_by_pot(replace(small, contested=np.array([True])), np.array([10]), np.array([True]))


def test_a_rule_whose_cap_a_currency_cannot_hold_does_not_apply() -> None:
    from pipeline.audit import _rule_columns

    rule = ScheduleRule(3, percent=Fraction(1, 20), cap=Decimal("0.50"))
    assert _rule_columns(rule, 100)[:4] == (3, True, True, 50)
    assert _rule_columns(rule, 1)[0] is None  # play chips: half a chip is no amount


@settings(deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 500), st.booleans()), min_size=2, max_size=9),
)
def test_a_pot_is_contested_when_two_players_put_chips_in_it(
    players: list[tuple[int, bool]],
) -> None:
    """`build_pots` marks a pot contested when two or more players reached into its level (a
    folded player's chips above every level still in make the last pot contested too); the
    unmatched top of the largest bettor is the only pot of one player's chips."""
    import numpy as np

    from pipeline.payouts import build_pots

    put_in = [amount for amount, _ in players]
    folded = [out for _, out in players]
    table = build_pots(
        np.array([0, len(players)], dtype=np.int64),
        np.array(put_in, dtype=np.int64),
        np.array(folded, dtype=np.bool_),
    )
    levels = sorted({amount for amount, out in players if not out and amount > 0})
    expected, previous = [], 0
    for level in levels:
        expected.append(sum(amount > previous for amount in put_in) >= 2)
        previous = level
    dead = sum(max(amount - previous, 0) for amount in put_in)
    if dead and levels:
        expected[-1] = True
    elif dead:
        expected.append(True)  # everyone folded: one pot nobody may win
    assert table.contested is not None
    assert table.contested.tolist() == expected
