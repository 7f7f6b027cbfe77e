"""The compiled header and table readers against PokerStars' regular expressions (the reference).

Every line of the usual shapes, and every line one edit away from them, must give the same
groups (the compiled reader leaves any line it does not read to the expressions, so a
difference can only come from a line it wrongly accepts).
"""

from __future__ import annotations

import numpy as np
import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from parsers.byte_kernels import series_bytes
from parsers.pokerstars import HAND_START, hand_starts
from parsers.pokerstars.block_parser import header_groups
from parsers.pokerstars.compiled_header import (
    HEADER_GROUPS,
    header_fields,
    header_spans,
    table_fields,
)
from parsers.pokerstars.forms import TABLE

HEADERS = (
    (
        "PokerStars Game #352398200142810355: Tournament #32790885045, $14.29+$0.71 USD Omaha Hi/Lo"
        " Pot Limit - Level VIII (200/400) - 2011/04/02 8:05:23 ET"
    ),
    "PokerStars Hand #1:  Omaha Hi/Lo Pot Limit ($0.10/$0.25 USD) - 2011/04/02 12:00:00 ET",
    "PokerStars Hand #1:  Omaha Hi/Lo Limit ($2/$4) - 2011/04/02 12:00:00 PT [2011/04/02 15:00:00 ET]",
    (
        "PokerStars Hand #123: Tournament #9, Freeroll Omaha Hi/Lo No Limit - Level I (10/20)"
        " - 2011/4/2 8:05:23 CET [2011/4/2 2:05:23 ET]"
    ),
    (
        "PokerStars Game #5: Tournament #9, €1+€0.10 EUR Omaha Hi/Lo Limit - Level XV (1,000/2,000)"
        " - 2019/12/31 23:59:59 ET"
    ),
    (
        "PokerStars Hand #77:  Omaha Hi/Lo No Limit (€0.05/€0.10 EUR) - 2020/01/01 00:00:00 CET"
        " [2019/12/31 18:00:00 ET]"
    ),
    "PokerStars Hand #7:  Omaha Hi/Lo Pot Limit (£0.05/£0.10) - 2020/01/01 00:00:00 WET",
    "PokerStars Zoom Hand #7:  Omaha Hi/Lo Pot Limit ($0.05/$0.10) - 2020/01/01 00:00:00 ET",
    "PokerStars Hand #7:  5 Card Omaha Hi/Lo Pot Limit ($0.05/$0.10 USD) - 2020/01/01 00:00:00 ET",
)
TABLES = (
    "Table 'Aletta II' 6-max Seat #4 is the button",
    "Table '32790885045 1' 10-max Seat #9 is the button",
    "Table 'It's' Seat #1 is the button",
    "Table 'X' 9-max (Play Money) Seat #1 is the button",
)
# Edits that reach the expressions' choice points: the Freeroll alternative, currency codes,
# Unicode white space and digits, parentheses, brackets, doubled spaces.
PIECES = [
    *"0123456789 ()[]/$.,:-#'ABZaLimtPo\t€£\u2003\u3000\u0085\u202f\u0660é",
    "Freeroll",
    "Limit",
    "Pot Limit",
    " - ",
    "Level ",
    " USD",
    "Tournament #",
    "Omaha Hi/Lo ",
    " [",
    "-max",
    " Seat #",
]


def _edited(text: str, edits: list[tuple[int, int, int]]) -> str:
    chars = list(text)
    for kind, where, piece in edits:
        at = where % (len(chars) + 1)
        if kind == 0 and chars:
            del chars[min(at, len(chars) - 1)]
        elif kind == 1:
            chars.insert(at, PIECES[piece % len(PIECES)])
        elif chars:
            chars[min(at, len(chars) - 1)] = PIECES[piece % len(PIECES)]
    return "".join(chars)


_EDITS = st.lists(
    st.tuples(st.integers(0, 2), st.integers(0, 200), st.integers(0, 1000)), max_size=3
)


def _same(got: pl.DataFrame, expected: pl.DataFrame, lines: list[str]) -> None:
    assert got.columns == expected.columns
    for column in expected.columns:
        equal = got[column].eq_missing(expected[column]).to_numpy()
        assert equal.all(), (column, [lines[row] for row in np.flatnonzero(~equal)[:3]])


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(HEADERS), _EDITS), min_size=1, max_size=40))
def test_header_groups_equal_the_expressions(cases: list[tuple[str, list]]) -> None:
    lines = [_edited(text, edits) for text, edits in cases]
    series = pl.Series("line", lines)
    data, offsets = series_bytes(series)
    rows = np.arange(len(lines))
    expected = header_groups(series).select(name for name, _ in HEADER_GROUPS)
    _same(header_fields(data, offsets, series, rows), expected, lines)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(TABLES), _EDITS), min_size=1, max_size=40))
def test_table_groups_equal_the_expression(cases: list[tuple[str, list]]) -> None:
    lines = [_edited(text, edits) for text, edits in cases]
    series = pl.Series("line", lines)
    data, offsets = series_bytes(series)
    expected = series.str.extract_groups(TABLE).struct.unnest()
    _same(table_fields(data, offsets, series, np.arange(len(lines))), expected, lines)


def test_the_usual_shapes_are_read_in_compiled_code() -> None:
    # The point of the compiled reader: the usual headers do not fall back to the expressions.
    series = pl.Series("line", HEADERS)
    data, offsets = series_bytes(series)
    accepted, _ = header_spans(data, offsets, np.arange(len(HEADERS), dtype=np.int64))
    # A freeroll, a Zoom table and 5 Card Omaha go to the expressions.
    assert accepted.tolist() == [True, True, True, False, True, True, True, False, False]


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from(HEADERS + TABLES + ("PokerStars ",)), _EDITS), max_size=40)
)
def test_hand_starts_are_the_expressions(cases: list[tuple[str, list]]) -> None:
    lines = pl.Series("line", [_edited(text, edits) for text, edits in cases], dtype=pl.String)
    expected = lines.str.contains(HAND_START).fill_null(False).to_numpy()
    assert hand_starts(lines).tolist() == expected.tolist()
