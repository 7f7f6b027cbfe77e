"""`bench.bench_same.compare_tables`: equal tables pass, one changed cell is reported."""

from __future__ import annotations

import pyarrow as pa

from bench.bench_same import compare_tables


def _table(amounts: list[int | None]) -> pa.Table:
    return pa.table(
        {
            "hand_id": pa.array([1, 1, 2], pa.int64()),
            "player": pa.array(["ann", "bob", "ann"]),
            "amount": pa.array(amounts, pa.int64()),
        }
    )


def test_equal_tables_are_the_same() -> None:
    assert compare_tables(_table([10, None, 30]), _table([10, None, 30])) is None


def test_one_differing_cell_is_reported_with_its_row_and_column() -> None:
    difference = compare_tables(_table([10, None, 30]), _table([10, 20, 30]))
    assert difference is not None
    assert (difference.base_rows, difference.current_rows, difference.schema_note) == (3, 3, "")
    [row] = difference.rows
    assert (row.index, row.columns) == (1, ("amount",))
    assert (row.base, row.current) == ({"amount": None}, {"amount": 20})


def test_a_missing_row_and_a_changed_type_are_reported() -> None:
    narrower = pa.schema(
        [("hand_id", pa.int32()), ("player", pa.string()), ("amount", pa.int64())]
    )
    shorter = _table([10, None, 30]).slice(0, 2).cast(narrower)
    difference = compare_tables(_table([10, None, 30]), shorter)
    assert difference is not None
    assert (difference.base_rows, difference.current_rows) == (3, 2)
    assert "hand_id int64 -> int32" in difference.schema_note
    assert [row.index for row in difference.rows] == [2]
