"""The run helpers give what the polars windows they replace give, on any sorted frame."""

from __future__ import annotations

import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.row_runs import number_in_run, run_starts

KEYS = st.lists(st.tuples(st.integers(0, 3), st.none() | st.sampled_from("ab")), max_size=40)


@settings(deadline=None, max_examples=200)
@given(rows=KEYS, values=st.lists(st.integers(-5, 5), min_size=40, max_size=40))
def test_runs_equal_windows(rows: list[tuple[int, str | None]], values: list[int]) -> None:
    frame = pl.DataFrame(
        {
            "hand": [hand for hand, _ in rows],
            "player": [player for _, player in rows],
            "value": values[: len(rows)],
        },
        schema={"hand": pl.Int32, "player": pl.String, "value": pl.Int64},
    ).sort("hand", "player", maintain_order=True)
    total = pl.col("value").cum_sum()
    before = pl.when(run_starts("hand", "player")).then(total - pl.col("value")).forward_fill()
    got = frame.select(
        seq=number_in_run("hand"),
        pair_seq=number_in_run("hand", "player"),
        running=total - before,
    )
    expected = frame.select(
        seq=pl.int_range(pl.len()).over("hand"),
        pair_seq=pl.int_range(pl.len()).over("hand", "player"),
        running=pl.col("value").cum_sum().over("hand", "player"),
    )
    assert got.cast(pl.Int64).equals(expected.cast(pl.Int64))
