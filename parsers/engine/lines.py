"""A block's lines as a frame, and the values carried forward from marker lines."""

from __future__ import annotations

import numpy as np
import polars as pl

from parsers.columns import TIME_ZONES
from parsers.engine.kernels import fill_forward
from pipeline.row_runs import number_in_run

__all__ = ["fill_from_rows", "forward_fill", "in_printed_order", "line_frame", "local_to_utc"]

# The order a hand printed its rows in: their line, then their place among the rows one line
# holds (a "posts small & big blinds" line is a dead and a live post).
PRINTED_ORDER = ("hand", "line_no", "sub")


def line_frame(lines: pl.Series, offsets: np.ndarray, starts: pl.Series | np.ndarray) -> pl.DataFrame:
    """One row per line: ``line_no``, ``line``, ``offset``, ``hand`` (-1 before the first
    hand start) and ``is_start``."""
    if isinstance(starts, np.ndarray):
        starts = pl.Series("is_start", starts, dtype=pl.Boolean)
    starts = starts.fill_null(False)
    return pl.DataFrame(
        {
            "line": lines.alias("line"),
            "offset": pl.Series("offset", offsets, dtype=pl.Int64),
            # A running count never decreases: flagged so, polars groups and joins by hand
            # over slices instead of hashes (2-3x faster).
            "hand": (starts.cast(pl.Int32).cum_sum() - 1).alias("hand").set_sorted(),
            "is_start": starts.alias("is_start"),
        }
    ).with_row_index("line_no")


def in_printed_order(rows: pl.DataFrame) -> pl.DataFrame:
    """``rows`` (actions, collections) in the order their hand printed them, with ``seq``:
    their number within the hand, from 0.

    The rows need ``hand`` and ``line_no``, and ``sub`` where a line may hold more than one
    (else rows of one line keep their order); a row without a line of its own (a muck a site
    infers at the showdown) comes after the printed ones.
    """
    order = [column for column in PRINTED_ORDER if column in rows.columns]
    return rows.sort(*order, nulls_last=True, maintain_order=True).with_columns(
        seq=number_in_run("hand").cast(pl.Int32)
    )


def fill_from_rows(
    size: int, resets: np.ndarray, reset_value: int, rows: np.ndarray, values: np.ndarray
) -> np.ndarray:
    """Each line takes the value of the latest marker row or reset row at or before it."""
    if len(resets) != size or len(rows) != len(values):
        raise ValueError("fill_from_rows: a mask of every line and a value a row")
    return fill_forward(
        np.asarray(resets, dtype=np.bool_),
        reset_value,
        np.asarray(rows, dtype=np.int64),
        np.asarray(values, dtype=np.int64),
    )


def forward_fill(frame: pl.DataFrame, marker: pl.Series, reset_value: int = -1) -> np.ndarray:
    """Per line, the code of the latest marker at or before it within the same hand.

    ``marker`` holds a code on marker lines and null elsewhere; every hand start resets the
    value to ``reset_value``.
    """
    rows = np.flatnonzero(marker.is_not_null().to_numpy())
    return fill_from_rows(
        frame.height,
        frame["is_start"].to_numpy(),
        reset_value,
        rows,
        marker.gather(rows).cast(pl.Int64).to_numpy(),
    )


def local_to_utc(date_time: pl.Expr, zone: pl.Expr, zones: dict[str, str], fmt: str) -> pl.Expr:
    """Wall-clock text in a printed zone → UTC; ``zones`` maps each abbreviation to IANA.

    Zones of `parsers.columns.TIME_ZONES` are known as well; an unknown zone gives null.
    """
    naive = date_time.str.strptime(pl.Datetime("us"), fmt, strict=False)
    result: pl.Expr = pl.lit(None, dtype=pl.Datetime("us", "UTC"))
    for abbreviation, iana in {**TIME_ZONES, **zones}.items():
        converted = naive.dt.replace_time_zone(
            iana, ambiguous="earliest", non_existent="null"
        ).dt.convert_time_zone("UTC")
        result = pl.when(zone == abbreviation).then(converted).otherwise(result)
    return result
