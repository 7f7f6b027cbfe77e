"""Imported by ingest's fork server: the compiled kernels loaded once before workers fork.

Loading a compiled kernel from numba's cache costs a few hundred milliseconds the first time a
process calls it; workers forked from a server that has loaded them start with them ready.
Only numpy goes in: polars or Arrow work would start thread pools, which do not survive a fork.
"""

from __future__ import annotations

import numpy as np

from parsers import byte_kernels
from parsers.engine import hole_cards, kernels
from parsers.pokerstars import compiled_header, compiled_reader
from pipeline import positions


def warm() -> None:
    """Run each compiled kernel once on a tiny input."""
    # Read-only buffers, as the kernels get them from Arrow: another type to numba.
    raw = np.frombuffer(b"Seat 1: a ($1 in chips)\n", dtype=np.uint8)
    _, offsets, content = byte_kernels.split_lines(raw)
    data = np.frombuffer(content.tobytes(), dtype=np.uint8)
    offsets = np.frombuffer(offsets.tobytes(), dtype=np.int64)
    spans = np.zeros(1, dtype=np.int64)
    byte_kernels.gather_strings(data, spans, spans)
    no_extra, header_spans = np.zeros(0, dtype=np.uint8), np.zeros((1, 1, 2), dtype=np.int64)
    byte_kernels.gather_string_columns(data, no_extra, np.zeros(1, dtype=np.bool_), header_spans)
    byte_kernels.money_of_lines(data, offsets, True)
    byte_kernels.card_tokens_of_lines(data, offsets)
    kernels.highest_before(
        np.zeros(1, dtype=np.int32), np.zeros(1, dtype=np.int8), np.zeros(1, dtype=np.int64)
    )
    kernels.fill_forward(np.ones(1, dtype=np.bool_), -1, spans, spans)
    kernels.running_sums(
        np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64), 1
    )
    compiled_reader.scan(data, offsets, np.ones(1, dtype=np.bool_), np.ones(1, dtype=np.bool_))
    hand, out = np.zeros(1, dtype=np.int32), np.zeros(1, dtype=np.bool_)
    for button in (np.ones(1, dtype=np.int16), np.ones(1, dtype=np.int64)):  # read, assembled
        positions.position_codes(hand, spans, out, button)
    valid = np.ones(1, dtype=np.bool_)
    hole_cards.card_set_keys(spans, spans, valid, valid)
    hole_cards.sighting_kinds(spans, valid, valid, valid, spans)
    compiled_reader.split_descriptions(data, spans, spans)
    compiled_header.header_spans(data, offsets, spans)
    compiled_header.table_spans(data, offsets, spans)


warm()
