"""The rake by pot of real PokerStars cash hands with side pots (the shared reference data,
``stars-side-pot-rake.tsv``): what the audit's running-total rule says each pot gave is what
the site printed, hand for hand, where taking the main pot first or shares in proportion does
not fit."""

from __future__ import annotations

import csv
import json
from fractions import Fraction

import numpy as np

from pipeline.payouts import PotTable, printed_pot_rake, rake_by_pot, running_total_rake
from tests.shared_data import REFERENCE, needs_shared

DATA = REFERENCE / "data" / "stars-side-pot-rake.tsv"
pytestmark = needs_shared(DATA)


def _minor(text: str, scale: int) -> list[int]:
    return [round(Fraction(value) * scale) for value in json.loads(text)]


def _scale(row: dict[str, str]) -> int:
    """Minor units a unit: cents, or whole chips at a Home Game's play-chip table."""
    return 1 if row["currency"] == "PLAY" else 100


def _rounded(value: Fraction, rounding: str) -> int:
    whole, part = divmod(value.numerator, value.denominator)
    if rounding == "floor" or part == 0:
        return whole
    return whole + (2 * part >= value.denominator)  # half up


def _rows() -> list[dict[str, str]]:
    with open(DATA, newline="") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    return [
        row
        for row in rows
        if row["site"].startswith("PokerStars")
        and row["rake"] not in ("", "0.00")
        and not row["cashout"]
        and not row["run_twice"]
        and not row["class"].startswith("excluded")
        and row["cum_model_fits"]
    ]


def _fit(row: dict[str, str]) -> tuple[Fraction, str, int]:
    """The first rate, rounding and step (1, or 5 cents for the 2008 hand taken in whole 5
    cents) the data's search found for the hand's total rake."""
    first = row["cum_model_fits"].split(";")[0]
    rate, rounding = first.split()[:2]
    return Fraction(rate), rounding, 5 if "unit5" in first else 1


def test_running_total_gives_what_pokerstars_printed() -> None:
    rows = _rows()
    assert len(rows) >= 95, len(rows)
    running = main_first = proportional = 0
    for row in rows:
        scale = _scale(row)
        gross, deductions = _minor(row["gross_pots"], scale), _minor(row["deductions"], scale)
        rake = round(Fraction(row["rake"]) * scale)
        rate, rounding, step = _fit(row)
        held = [True] * len(gross)
        shares = running_total_rake(
            gross, held, rake, lambda pot: step * _rounded(pot * rate / step, rounding)
        )
        running += shares == deductions
        assert printed_pot_rake(gross, held, _minor(row["printed_pots"], scale), rake) == deductions
        table = PotTable(
            np.zeros(len(gross), dtype=np.int64),
            np.arange(len(gross), dtype=np.int64),
            np.array(gross, dtype=np.int64),
            np.zeros(len(gross) + 1, dtype=np.int64),
            np.zeros(0, dtype=np.int64),
        )
        main_first += rake_by_pot(table, np.array([rake])).tolist() == deductions
        proportional += rake_by_pot(table, np.array([rake]), np.array([True])).tolist() == deductions
    assert running == len(rows), (running, len(rows))
    assert main_first < len(rows) // 2 and proportional < len(rows) // 2, (main_first, proportional)
