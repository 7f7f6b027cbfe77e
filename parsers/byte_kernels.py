"""Compiled primitives over the bytes of a block of lines, shared by the compiled readers.

A block of lines is held as one ``uint8`` array of the lines' bytes laid end to end plus the
``int64`` offsets of each line (Arrow's string layout), so a reader can walk every line of
an archive in compiled code without creating a Python object per line. The input is
untrusted: every function takes the span ``[start, end)`` it may read and never reads
outside it.
"""

from __future__ import annotations

import numba
import numpy as np
import polars as pl
import pyarrow as pa

__all__ = [
    "LITERAL_ANY",
    "LITERAL_CONTAINS",
    "LITERAL_EQUALS",
    "LITERAL_STARTS",
    "CARDS_NONE",
    "CARDS_READ",
    "CARDS_REFUSED",
    "card_list",
    "card_tokens_of_lines",
    "ends_with",
    "find",
    "gather_string_columns",
    "gather_strings",
    "literal",
    "lines_with",
    "money_cents",
    "money_of_lines",
    "series_bytes",
    "starts_with",
    "strings_array",
    "strings_arrays",
]

NO_VALUE = -1
# What `lines_with` asks of a line.
LITERAL_ANY, LITERAL_STARTS, LITERAL_CONTAINS, LITERAL_EQUALS = 0, 1, 2, 3
# Integer digits a printed amount may have: 13 keeps cents of it below MAX_MINOR_UNITS (1e16).
_MAX_INTEGER_DIGITS = 13
_RANK_OF_BYTE = np.full(256, -1, dtype=np.int8)
for _index, _rank in enumerate(b"23456789TJQKA"):
    _RANK_OF_BYTE[_rank] = _index
_SUIT_OF_BYTE = np.full(256, -1, dtype=np.int8)
for _index, _suit in enumerate(b"cdhs"):
    _SUIT_OF_BYTE[_suit] = _index


def literal(text: str) -> np.ndarray:
    """The UTF-8 bytes of ``text`` as an array a compiled function can compare against."""
    return np.frombuffer(text.encode(), dtype=np.uint8).copy()


def series_bytes(lines: pl.Series) -> tuple[np.ndarray, np.ndarray]:
    """``(data, offsets)`` of a string Series: line ``i`` is ``data[offsets[i]:offsets[i+1]]``.

    A null line reads as an empty one.
    """
    array = lines.to_arrow()
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    if array.type != pa.large_string():
        array = array.cast(pa.large_string())
    _, offset_buffer, data_buffer = array.buffers()
    offsets = np.frombuffer(offset_buffer, dtype=np.int64)[array.offset : array.offset + len(array) + 1]
    data = (
        np.frombuffer(data_buffer, dtype=np.uint8)
        if data_buffer is not None
        else np.zeros(0, dtype=np.uint8)
    )
    return data, offsets


def strings_array(data: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> pa.Array:
    """A string array of the spans ``data[starts[i]:ends[i]]``; a negative start is null.

    The spans must cut ``data`` at character boundaries (every reader cuts at ASCII bytes).
    """
    offsets, content, valid = gather_strings(data, starts, ends)
    validity = None
    if not valid.all():
        validity = pa.py_buffer(np.packbits(valid, bitorder="little"))
    return pa.LargeStringArray.from_buffers(
        len(starts), pa.py_buffer(offsets), pa.py_buffer(content), validity
    )


@numba.njit(cache=True)
def gather_strings(
    data: np.ndarray, starts: np.ndarray, ends: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Copy the spans into one buffer: ``(offsets, bytes, valid)`` in Arrow's layout."""
    count = starts.shape[0]
    offsets = np.zeros(count + 1, dtype=np.int64)
    valid = np.zeros(count, dtype=np.bool_)
    size = 0
    for row in range(count):
        start, end = starts[row], ends[row]
        if 0 <= start <= end <= data.shape[0]:
            size += end - start
            valid[row] = True
        offsets[row + 1] = size
    content = np.empty(size, dtype=np.uint8)
    for row in range(count):
        if valid[row]:
            start = starts[row]
            content[offsets[row] : offsets[row + 1]] = data[start : ends[row]]
    return offsets, content, valid


def strings_arrays(
    data: np.ndarray,
    spans: np.ndarray,
    extra: np.ndarray | None = None,
    from_extra: np.ndarray | None = None,
) -> list[pa.Array]:
    """One string array per field of ``spans`` (``[row, field, 0 or 1]``: start and end), as
    `strings_array` gives them, in one pass over the rows: each row's bytes are read once for
    all its fields, not once a field (a block's headers lie scattered over megabytes). The
    spans of a row marked in ``from_extra`` cut ``extra`` instead of ``data``."""
    rows = spans.shape[0]
    if extra is None or from_extra is None:
        extra, from_extra = np.zeros(0, dtype=np.uint8), np.zeros(rows, dtype=np.bool_)
    offsets, content, valid, bases = gather_string_columns(data, extra, from_extra, spans)
    arrays = []
    for field in range(spans.shape[1]):
        validity = None
        if not valid[field].all():
            validity = pa.py_buffer(np.packbits(valid[field], bitorder="little"))
        arrays.append(
            pa.LargeStringArray.from_buffers(
                rows,
                pa.py_buffer(offsets[field]),
                pa.py_buffer(content[bases[field] : bases[field + 1]]),
                validity,
            )
        )
    return arrays


@numba.njit(cache=True)
def gather_string_columns(
    data: np.ndarray, extra: np.ndarray, from_extra: np.ndarray, spans: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """`gather_strings` of every field of ``spans`` at once: ``(offsets[field], bytes,
    valid[field], bases)``, field ``f``'s bytes being ``bytes[bases[f]:bases[f + 1]]``. A
    span outside its buffer, or a row past ``from_extra``, is null."""
    rows, fields = spans.shape[0], spans.shape[1]
    offsets = np.zeros((fields, rows + 1), dtype=np.int64)
    valid = np.zeros((fields, rows), dtype=np.bool_)
    bases = np.zeros(fields + 1, dtype=np.int64)
    sizes = np.zeros(fields, dtype=np.int64)
    for row in range(rows):
        limit = -1
        if row < from_extra.shape[0]:
            limit = extra.shape[0] if from_extra[row] else data.shape[0]
        for field in range(fields):
            start, end = spans[row, field, 0], spans[row, field, 1]
            if 0 <= start <= end <= limit:
                sizes[field] += end - start
                valid[field, row] = True
            offsets[field, row + 1] = sizes[field]
    for field in range(fields):
        bases[field + 1] = bases[field] + sizes[field]
    content = np.empty(bases[fields], dtype=np.uint8)
    for row in range(rows):
        source = extra if row < from_extra.shape[0] and from_extra[row] else data
        for field in range(fields):
            if valid[field, row]:
                at = bases[field] + offsets[field, row]
                start, end = spans[row, field, 0], spans[row, field, 1]
                content[at : at + end - start] = source[start:end]
    return offsets, content, valid, bases


@numba.njit(cache=True)
def starts_with(data: np.ndarray, start: int, end: int, prefix: np.ndarray) -> bool:
    """Whether ``data[start:end]`` begins with ``prefix``."""
    size = prefix.shape[0]
    if end - start < size:
        return False
    for k in range(size):
        if data[start + k] != prefix[k]:
            return False
    return True


@numba.njit(cache=True)
def ends_with(data: np.ndarray, start: int, end: int, suffix: np.ndarray) -> bool:
    """Whether ``data[start:end]`` ends with ``suffix``."""
    size = suffix.shape[0]
    if end - start < size:
        return False
    base = end - size
    for k in range(size):
        if data[base + k] != suffix[k]:
            return False
    return True


@numba.njit(cache=True)
def find(data: np.ndarray, start: int, end: int, needle: np.ndarray) -> int:
    """Position of the first ``needle`` within ``data[start:end]``, or -1."""
    size = needle.shape[0]
    last = end - size
    if size == 0:
        return start
    first = needle[0]
    for position in range(start, last + 1):
        if data[position] != first:
            continue
        matched = True
        for k in range(1, size):
            if data[position + k] != needle[k]:
                matched = False
                break
        if matched:
            return position
    return -1


@numba.njit(cache=True)
def money_cents(data: np.ndarray, start: int, end: int) -> tuple[int, bool]:
    """A printed amount in hundredths of its unit, and whether those hundredths are not zero.

    Reads what ``parsers.columns.money`` reads: an optional ``$ € £ ₹``, digits alone or in
    thousands groups (``1,000`` or lakhs ``1,00,000``), optional decimals, an optional euro
    suffix. Anything else, or an amount ``money`` would refuse or round (more than two
    significant decimals, 14 or more integer digits), gives -1: the caller leaves that hand to
    the reader that explains the refusal.
    """
    i = start
    if i < end and data[i] == 0x24:  # $
        i += 1
    elif end - i >= 3 and data[i] == 0xE2 and data[i + 1] == 0x82 and (
        data[i + 2] == 0xAC or data[i + 2] == 0xB9
    ):  # € ₹
        i += 3
    elif end - i >= 2 and data[i] == 0xC2 and data[i + 1] == 0xA3:  # £
        i += 2
    value = 0
    digits = 0
    run = 0
    grouped = False
    while i < end:
        byte = data[i]
        if 0x30 <= byte <= 0x39:
            value = value * 10 + (byte - 0x30)
            digits += 1
            run += 1
            if digits > _MAX_INTEGER_DIGITS:
                return NO_VALUE, False
            i += 1
        elif byte == 0x2C:  # a thousands separator after 1-3 digits, then groups of 2-3
            if run == 0 or (not grouped and run > 3) or (grouped and (run < 2 or run > 3)):
                return NO_VALUE, False
            grouped = True
            run = 0
            i += 1
        else:
            break
    if run == 0 or (grouped and (run < 2 or run > 3)):
        return NO_VALUE, False
    cents = 0
    if i < end and data[i] == 0x2E:  # .
        i += 1
        decimals = 0
        while i < end and 0x30 <= data[i] <= 0x39:
            if decimals < 2:
                cents = cents * 10 + (data[i] - 0x30)
            elif data[i] != 0x30:
                return NO_VALUE, False
            decimals += 1
            i += 1
        if decimals == 0:
            return NO_VALUE, False
        if decimals == 1:
            cents *= 10
    if end - i == 3 and data[i] == 0xE2 and data[i + 1] == 0x82 and data[i + 2] == 0xAC:
        i += 3
    if i != end:
        return NO_VALUE, False
    return value * 100 + cents, cents != 0


@numba.njit(cache=True)
def money_of_lines(
    data: np.ndarray, offsets: np.ndarray, chips_suffix: bool
) -> tuple[np.ndarray, np.ndarray]:
    """`money_cents` of every line, after an ISO currency code (`` USD``) and, with
    ``chips_suffix``, a `` chips`` or `` Chips`` before it: ``(cents, has_cents)``, cents -1
    where it refuses the text (or the line's span lies outside ``data``)."""
    count = max(offsets.shape[0] - 1, 0)
    cents = np.full(count, NO_VALUE, dtype=np.int64)
    has_cents = np.zeros(count, dtype=np.bool_)
    size = data.shape[0]
    for row in range(count):
        start, end = offsets[row], offsets[row + 1]
        if not 0 <= start <= end <= size:
            continue
        if chips_suffix and (
            ends_with(data, start, end, _CHIPS) or ends_with(data, start, end, _CHIPS_CAPITAL)
        ):
            end -= _CHIPS.shape[0]
        if end - start >= 4 and data[end - 4] == 0x20:
            if _is_upper(data[end - 3]) and _is_upper(data[end - 2]) and _is_upper(data[end - 1]):
                end -= 4
        cents[row], has_cents[row] = money_cents(data, start, end)
    return cents, has_cents


_CHIPS, _CHIPS_CAPITAL = literal(" chips"), literal(" Chips")


@numba.njit(cache=True)
def _is_upper(byte: int) -> bool:
    return 0x41 <= byte <= 0x5A


# `card_tokens_of_lines`' verdict on a line.
CARDS_NONE, CARDS_READ, CARDS_REFUSED = 0, 1, 2


@numba.njit(cache=True)
def _separates_cards(byte: int) -> bool:
    """ASCII whitespace (what ``\\s`` and polars' strip read there), brackets and commas."""
    return byte == 0x20 or 0x09 <= byte <= 0x0D or byte == 0x5B or byte == 0x5D or byte == 0x2C


@numba.njit(cache=True)
def card_tokens_of_lines(
    data: np.ndarray, offsets: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The cards of every line as `block_parts.card_codes` reads them (``[ 8c, 2d ]``,
    ``10c`` for a ten): ``(list_offsets, codes, code_valid, verdict)``, one ``CARDS_*`` verdict
    a line; a token that is no card is an invalid code. A line with a byte outside ASCII (or
    a span outside ``data``) is refused: Unicode whitespace is the expressions' to read."""
    count = max(offsets.shape[0] - 1, 0)
    size = data.shape[0]
    verdict = np.full(count, CARDS_REFUSED, dtype=np.int8)
    list_offsets = np.zeros(count + 1, dtype=np.int64)
    # A token is at least one byte: the lines' bytes bound the tokens of every line. Left
    # uninitialised (every slot used is written), so the pages no token reaches (a huge line of
    # one token) are never touched: zeroed, they cost the probe 2x the line.
    codes = np.empty(size, dtype=np.uint8)
    code_valid = np.empty(size, dtype=np.bool_)
    slot = 0
    for row in range(count):
        list_offsets[row + 1] = slot
        start, end = offsets[row], offsets[row + 1]
        if not 0 <= start <= end <= size:
            continue
        first_slot = slot
        refused = False
        i = start
        while i < end and not refused:
            if _separates_cards(data[i]):
                i += 1
                continue
            token = i
            while i < end and not _separates_cards(data[i]):
                refused = refused or data[i] >= 0x80
                i += 1
            code = _card_code(data, token, i)
            codes[slot] = max(code, 0)
            code_valid[slot] = code >= 0
            slot += 1
        if refused:
            slot = first_slot
        else:
            verdict[row] = CARDS_READ if slot > first_slot else CARDS_NONE
        list_offsets[row + 1] = slot
    return list_offsets, codes[:slot], code_valid[:slot], verdict


@numba.njit(cache=True)
def _card_code(data: np.ndarray, start: int, end: int) -> int:
    """The code of the card ``data[start:end]`` (``Ah``, or ``10h`` for a ten), or -1."""
    if end - start == 2:
        rank, suit = _RANK_OF_BYTE[data[start]], _SUIT_OF_BYTE[data[start + 1]]
    elif end - start == 3 and data[start] == 0x31 and data[start + 1] == 0x30:  # 10x
        rank, suit = 8, _SUIT_OF_BYTE[data[start + 2]]  # T
    else:
        return -1
    return rank * 4 + suit if rank >= 0 and suit >= 0 else -1


@numba.njit(cache=True)
def card_list(data: np.ndarray, start: int, end: int, out: np.ndarray) -> int:
    """Decode ``Ah Kd 2c`` into ``out`` (codes ``rank * 4 + suit``); the count, or -1.

    Every token must be one readable card and tokens are one space apart, as
    ``parsers.columns.cards_list`` reads them; more cards than ``out`` holds is -1 too.
    """
    count = 0
    i = start
    if i >= end:
        return -1
    while True:
        if end - i < 2 or count >= out.shape[0]:
            return -1
        rank = _RANK_OF_BYTE[data[i]]
        suit = _SUIT_OF_BYTE[data[i + 1]]
        if rank < 0 or suit < 0:
            return -1
        out[count] = rank * 4 + suit
        count += 1
        i += 2
        if i == end:
            return count
        if data[i] != 0x20:
            return -1
        i += 1


@numba.njit(cache=True)
def lines_with(
    data: np.ndarray, offsets: np.ndarray, rows: np.ndarray, mode: int, text: np.ndarray
) -> np.ndarray:
    """Per row of ``rows``, whether line ``data[offsets[row]:offsets[row + 1]]`` starts with,
    contains or equals ``text`` (``mode``: ``LITERAL_*``; ``LITERAL_ANY``: every line). A row
    or a span outside its array has none."""
    found = np.zeros(rows.shape[0], dtype=np.bool_)
    size = data.shape[0]
    length = text.shape[0]
    for index in range(rows.shape[0]):
        row = rows[index]
        if not 0 <= row < offsets.shape[0] - 1:
            continue
        start, end = offsets[row], offsets[row + 1]
        if not 0 <= start <= end <= size:
            continue
        if mode == LITERAL_ANY:
            found[index] = True
        elif mode == LITERAL_STARTS:
            found[index] = starts_with(data, start, end, text)
        elif mode == LITERAL_CONTAINS:
            found[index] = find(data, start, end, text) >= 0
        elif mode == LITERAL_EQUALS:
            found[index] = end - start == length and starts_with(data, start, end, text)
    return found


@numba.njit(cache=True)
def split_lines(raw: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """UTF-8 text → ``(line_starts, offsets, content)``: each line without its terminator,
    carriage returns or trailing spaces and tabs, no-break spaces made spaces.

    ``line_starts`` are the lines' byte positions in ``raw``; line ``i`` is
    ``content[offsets[i]:offsets[i + 1]]``. One pass, byte by byte: every byte above 0x0D
    but 0xC2 is copied as it is, so the branch is nearly always taken the same way (1.45×
    the speed of finding the special bytes with numpy and copying the runs between them,
    measured on 50 MB of generated PokerStars files).
    """
    size = raw.shape[0]
    lines = 0
    for position in range(size):
        if raw[position] == 0x0A:
            lines += 1
    # Text after the last newline is a line unless it is carriage returns only.
    tail = size
    while tail > 0 and raw[tail - 1] == 0x0D:
        tail -= 1
    if tail > 0 and raw[tail - 1] != 0x0A:
        lines += 1
    line_starts = np.zeros(lines, dtype=np.int64)
    offsets = np.zeros(lines + 1, dtype=np.int64)
    content = np.empty(size, dtype=np.uint8)
    written = 0
    line = 0
    position = 0
    while position < size and line < lines:
        byte = raw[position]
        position += 1
        if byte > 0x0D and byte != 0xC2:
            content[written] = byte
            written += 1
        elif byte == 0x0A:
            while written > offsets[line] and (
                content[written - 1] == 0x20 or content[written - 1] == 0x09
            ):
                written -= 1
            line += 1
            offsets[line] = written
            if line < lines:
                line_starts[line] = position
        elif byte == 0x0D:
            continue
        elif byte == 0xC2 and position < size and raw[position] == 0xA0:  # a no-break space
            content[written] = 0x20
            written += 1
            position += 1
        else:
            content[written] = byte
            written += 1
    if line < lines:  # the last line has no newline
        while written > offsets[line] and (
            content[written - 1] == 0x20 or content[written - 1] == 0x09
        ):
            written -= 1
        offsets[line + 1] = written
    return line_starts, offsets, content[:written]
