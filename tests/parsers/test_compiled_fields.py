"""The compiled readings of amounts (`columns.money`, `block_parts.amount_value`) and cards
(`block_parts.card_codes`) give what the polars string expressions they replaced give, on any
text, scale and null."""

from __future__ import annotations

import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from parsers.columns import money, money_by_expressions
from parsers.engine.block_parts import (
    _spaced_amount_value,
    amount_value,
    card_codes,
    card_codes_by_expressions,
)

PIECES = ["1", "0", "9", ",", ".", "$", "€", "£", "₹", " ", "-", "a", "USD", "US", " chips", "Chips"]
TEXT = st.none() | st.lists(st.sampled_from(PIECES), max_size=8).map("".join)
SCALE = st.sampled_from([100, 1, None])


@settings(deadline=None, max_examples=300)
@given(rows=st.lists(st.tuples(TEXT, SCALE), min_size=1, max_size=30))
def test_compiled_amounts_equal_the_expressions(rows: list[tuple[str | None, int | None]]) -> None:
    frame = pl.DataFrame(
        {"amount": [text for text, _ in rows], "scale": [scale for _, scale in rows]},
        schema={"amount": pl.String, "scale": pl.Int64},
    )
    text, scale = pl.col("amount"), pl.col("scale")
    read = frame.select(money=money(text, scale), value=amount_value(text, scale))
    expected = frame.select(
        money=money_by_expressions(text, scale), value=_spaced_amount_value(text, scale)
    )
    assert read.equals(expected)


def test_compiled_amounts_in_the_places_parsers_use_them() -> None:
    """A column name kept, a literal scale, a grouped aggregation, and texts only the
    expressions read (spaces, a currency code) beside ones the kernel reads."""
    frame = pl.DataFrame(
        {"hand": [1, 1, 2, 2], "amount": ["$1,049", "$ 0.48 USD", "640 chips", None]}
    )
    more = pl.Series(["$99 USD", "1,000 Chips", "5 chips USD", "5 USD chips", "5 usd", "5 "])
    assert pl.select(amount_value(more, 100)).to_series().to_list() == [
        9900, 100000, None, 500, None, 500,
    ]
    assert pl.select(money(more, 100)).to_series().to_list() == [9900] + [None] * 5
    assert frame.select(money(pl.col("amount"), 100)).columns == ["amount"]
    values = frame.select(amount_value(pl.col("amount"), 100)).to_series().to_list()
    assert values == [104900, 48, 64000, None]
    assert frame.select(money(pl.col("amount"), 100)).to_series().to_list() == [
        104900,
        None,
        None,
        None,
    ]
    largest = frame.group_by("hand", maintain_order=True).agg(
        top=amount_value(pl.col("amount"), 1).max()
    )
    assert largest["top"].to_list() == [1049, 640]  # in chips "$ 0.48 USD" is too precise


CARD_PIECES = ["A", "h", "10", "1", "0", "T", "c", "d", "s", "x", " ", "  ", "\t", "[", "]", ","]
CARD_TEXT = st.none() | st.lists(st.sampled_from(CARD_PIECES), max_size=12).map("".join)


@settings(deadline=None, max_examples=300)
@given(texts=st.lists(CARD_TEXT, min_size=1, max_size=20), unicode=st.booleans())
def test_compiled_cards_equal_the_expressions(texts: list[str | None], unicode: bool) -> None:
    """Tokens of any shape (tens, brackets, commas, tabs, runs of spaces, empty and null
    lines); a line outside ASCII (a no-break space) sends its batch to the expressions."""
    if unicode:
        texts = [*texts, "Ah\u00a0Kd"]
    frame = pl.DataFrame({"cards": texts}, schema={"cards": pl.String})
    read = frame.select(card_codes(pl.col("cards")))
    assert read.equals(frame.select(card_codes_by_expressions(pl.col("cards"))))
    assert read.schema == {"cards": pl.List(pl.UInt8)}
