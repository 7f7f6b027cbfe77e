"""The header and table lines of the usual PokerStars hand, read field by field in compiled code.

Nearly every header is one of two shapes, a cash game and a tournament:

    PokerStars Hand #1:  Omaha Hi/Lo Pot Limit ($0.10/$0.25 USD) - 2011/04/02 12:00:00 ET
    PokerStars Game #1: Tournament #2, $14.29+$0.71 USD Omaha Hi/Lo Limit - Level II (15/30)
        - 2011/04/02 8:05:23 ET [2011/04/02 8:05:23 ET]

(the second on one line). A line of one of those shapes is cut into the groups the regular
expressions of `parsers.pokerstars.forms` (HEADER, GAME_TEXT, STAKES, TABLE) give it; any other
line, or anything unusual in one (another game, a club, a Zoom or Home Game prefix, a mixed
game, a freeroll, a tab or a Unicode space or digit, an odd stake), is left to those expressions. So the shapes read here are narrow on
purpose: for them the expressions' groups are plain to see, and the tests compare the two
readers on every header of the corpus, of generated archives and of mutated hands.
"""

from __future__ import annotations

import numba
import numpy as np
import polars as pl

from parsers.byte_kernels import literal, series_bytes, starts_with, strings_arrays
from parsers.pokerstars.block_parser import header_groups
from parsers.pokerstars.forms import TABLE

__all__ = ["HEADER_GROUPS", "header_fields", "table_fields"]

# Spans of a header's groups that the hand table is built from (`HEADER_GROUPS`), in this
# order; -1 where the group does not take part.
(
    F_HAND_ID,
    F_TOURNAMENT_ID,
    F_BUY_IN,
    F_LEVEL,
    F_DATE,
    F_TIME,
    F_ZONE,
    F_ET_DATE,
    F_ET_TIME,
    F_ET_ZONE,
    F_GAME,
    F_LIMIT,
    F_SYMBOL,
    F_FIRST,
    F_SECOND,
    F_CODE,
) = range(16)
_FIELDS = 16
# The groups of the regular expressions that the hand table is built from, and the span each
# reads (None: a group these shapes never fill, so null for them). The other groups (the
# prefix, the club, the game and stakes texts before they are cut) are only the expressions'
# steps.
HEADER_GROUPS = (
    ("hand_id", F_HAND_ID),
    ("tournament_id", F_TOURNAMENT_ID),
    ("buy_in", F_BUY_IN),
    ("level", F_LEVEL),
    ("date", F_DATE),
    ("time", F_TIME),
    ("zone", F_ZONE),
    ("et_date", F_ET_DATE),
    ("et_time", F_ET_TIME),
    ("et_zone", F_ET_ZONE),
    ("mixed", None),
    ("game", F_GAME),
    ("limit", F_LIMIT),
    ("symbol", F_SYMBOL),
    ("first", F_FIRST),
    ("second", F_SECOND),
    ("code", F_CODE),
)

_STARS_HAND = literal("PokerStars Hand #")
_STARS_GAME = literal("PokerStars Game #")
_TOURNAMENT = literal("Tournament #")
_FREEROLL = literal("Freeroll")
_GAME = literal("Omaha Hi/Lo ")
_LIMIT = literal("Limit")
_POT_LIMIT = literal("Pot Limit")
_NO_LIMIT = literal("No Limit")
_LEVEL = literal(" - Level ")
_DASH = literal(" - ")
_TABLE = literal("Table '")
_SEAT_BUTTON = literal(" Seat #")
_IS_BUTTON = literal(" is the button")
_MAX = literal("-max")
_TABLE_GROUPS = (("table_name", 0), ("max_seats", 1), ("button_seat", 2))


@numba.njit(cache=True)
def _digits(data: np.ndarray, start: int, end: int, low: int, high: int) -> int:
    """End of a run of ``low`` to ``high`` ASCII digits at ``start``, or -1."""
    i = start
    while i < end and i - start < high and 0x30 <= data[i] <= 0x39:
        i += 1
    if i - start < low or (i < end and 0x30 <= data[i] <= 0x39):
        return -1
    return i


@numba.njit(cache=True)
def _upper(data: np.ndarray, start: int, end: int) -> int:
    """End of a run of one or more ASCII capitals at ``start``, or -1."""
    i = start
    while i < end and 0x41 <= data[i] <= 0x5A:
        i += 1
    return i if i > start else -1


@numba.njit(cache=True)
def _limit(data: np.ndarray, start: int, end: int) -> int:
    """End of ``Limit``, ``Pot Limit`` or ``No Limit`` at ``start``, or -1."""
    for word in (_LIMIT, _POT_LIMIT, _NO_LIMIT):
        if starts_with(data, start, end, word):
            return start + word.shape[0]
    return -1


@numba.njit(cache=True)
def _symbol(data: np.ndarray, start: int, end: int) -> int:
    """End of an optional ``$``, ``€`` or ``£`` at ``start``."""
    if start < end and data[start] == 0x24:
        return start + 1
    if (
        end - start >= 3
        and data[start] == 0xE2
        and data[start + 1] == 0x82
        and data[start + 2] == 0xAC
    ):
        return start + 3
    if end - start >= 2 and data[start] == 0xC2 and data[start + 1] == 0xA3:
        return start + 2
    return start


@numba.njit(cache=True)
def _amount(data: np.ndarray, start: int, end: int) -> int:
    """End of a run of digits, dots and commas starting with a digit, or -1."""
    if start >= end or not 0x30 <= data[start] <= 0x39:
        return -1
    i = start
    while i < end and (0x30 <= data[i] <= 0x39 or data[i] == 0x2E or data[i] == 0x2C):
        i += 1
    return i


@numba.njit(cache=True)
def _stakes(data: np.ndarray, start: int, end: int, spans: np.ndarray, row: int) -> bool:
    """``SYMBOL FIRST / SYMBOL SECOND [ CODE]`` filling ``data[start:end]`` exactly."""
    first = _symbol(data, start, end)
    first_end = _amount(data, first, end)
    if first_end < 0 or first_end >= end or data[first_end] != 0x2F:  # /
        return False
    second = _symbol(data, first_end + 1, end)
    second_end = _amount(data, second, end)
    if second_end < 0:
        return False
    spans[row, F_SYMBOL, 0], spans[row, F_SYMBOL, 1] = start, first
    spans[row, F_FIRST, 0], spans[row, F_FIRST, 1] = first, first_end
    spans[row, F_SECOND, 0], spans[row, F_SECOND, 1] = second, second_end
    if second_end == end:
        return True
    if data[second_end] != 0x20 or end - second_end != 4:
        return False
    if _upper(data, second_end + 1, end) != end:
        return False
    spans[row, F_CODE, 0], spans[row, F_CODE, 1] = second_end + 1, end
    return True


@numba.njit(cache=True)
def _date_time_zone(
    data: np.ndarray, start: int, end: int, spans: np.ndarray, row: int, field: int
) -> int:
    """``YYYY/M/D H:MM:SS ZONE`` at ``start`` into ``field``, ``field + 1``, ``field + 2``;
    its end, or -1."""
    i = _digits(data, start, end, 4, 4)
    if i < 0 or i >= end or data[i] != 0x2F:
        return -1
    i = _digits(data, i + 1, end, 1, 2)
    if i < 0 or i >= end or data[i] != 0x2F:
        return -1
    i = _digits(data, i + 1, end, 1, 2)
    if i < 0 or i >= end or data[i] != 0x20:
        return -1
    spans[row, field, 0], spans[row, field, 1] = start, i
    time = i + 1
    i = _digits(data, time, end, 1, 2)
    if i < 0 or i >= end or data[i] != 0x3A:
        return -1
    i = _digits(data, i + 1, end, 2, 2)
    if i < 0 or i >= end or data[i] != 0x3A:
        return -1
    i = _digits(data, i + 1, end, 2, 2)
    if i < 0 or i >= end or data[i] != 0x20:
        return -1
    spans[row, field + 1, 0], spans[row, field + 1, 1] = time, i
    zone_end = _upper(data, i + 1, end)
    if zone_end < 0:
        return -1
    spans[row, field + 2, 0], spans[row, field + 2, 1] = i + 1, zone_end
    return zone_end


@numba.njit(cache=True)
def _unicode_space(data: np.ndarray, start: int, end: int) -> bool:
    """Whether a white space character other than ASCII's starts at ``start`` (U+0085, U+00A0,
    U+1680, U+2000 to U+200A, U+2028, U+2029, U+202F, U+205F, U+3000)."""
    if (
        end - start >= 2
        and data[start] == 0xC2
        and (data[start + 1] == 0x85 or data[start + 1] == 0xA0)
    ):
        return True
    if end - start < 3:
        return False
    a, b, c = data[start], data[start + 1], data[start + 2]
    if a == 0xE1:
        return b == 0x9A and c == 0x80
    if a == 0xE2 and b == 0x80:
        return c <= 0x8A or c == 0xA8 or c == 0xA9 or c == 0xAF
    if a == 0xE2 and b == 0x81:
        return c == 0x9F
    return a == 0xE3 and b == 0x80 and c == 0x80


@numba.njit(cache=True)
def _printable(data: np.ndarray, start: int, end: int) -> bool:
    """No control byte, space or parenthesis in ``data[start:end]``."""
    for i in range(start, end):
        if data[i] <= 0x20 or data[i] == 0x28 or data[i] == 0x29 or data[i] == 0x7F:
            return False
    return start < end


@numba.njit(cache=True)
def _header(data: np.ndarray, start: int, end: int, spans: np.ndarray, row: int) -> bool:
    if not (
        starts_with(data, start, end, _STARS_HAND) or starts_with(data, start, end, _STARS_GAME)
    ):
        return False
    hand_id = start + _STARS_HAND.shape[0]
    i = _digits(data, hand_id, end, 1, 30)
    if i < 0 or i >= end or data[i] != 0x3A:
        return False
    spans[row, F_HAND_ID, 0], spans[row, F_HAND_ID, 1] = hand_id, i
    i += 1
    if i >= end or data[i] != 0x20:
        return False
    while i < end and data[i] == 0x20:
        i += 1
    if starts_with(data, i, end, _TOURNAMENT):
        tournament = i + _TOURNAMENT.shape[0]
        i = _digits(data, tournament, end, 1, 30)
        if i < 0 or end - i < 2 or data[i] != 0x2C or data[i + 1] != 0x20:
            return False
        spans[row, F_TOURNAMENT_ID, 0], spans[row, F_TOURNAMENT_ID, 1] = tournament, i
        buy_in = i + 2
        if starts_with(data, buy_in, end, _FREEROLL) or _unicode_space(data, buy_in, end):
            return False  # the expression's own alternative, or more of its \s+
        i = buy_in
        while i < end and data[i] != 0x20:
            i += 1
        if not _printable(data, buy_in, i):
            return False
        if not starts_with(data, i + 1, end, _GAME):  # a currency code first
            code_end = _upper(data, i + 1, end)
            if code_end != i + 4:
                return False
            i = code_end
        if i >= end or data[i] != 0x20:
            return False
        spans[row, F_BUY_IN, 0], spans[row, F_BUY_IN, 1] = buy_in, i
        game = i + 1
        if not starts_with(data, game, end, _GAME):
            return False
        limit = game + _GAME.shape[0]
        limit_end = _limit(data, limit, end)
        i = limit_end
        if i < 0 or not starts_with(data, i, end, _LEVEL):
            return False
        level = i + _LEVEL.shape[0]
        i = level
        while i < end and data[i] != 0x20:
            if data[i] >= 0x80:  # perhaps a Unicode space, which ends the regex's \S+
                return False
            i += 1
        if not _printable(data, level, i) or end - i < 2 or data[i + 1] != 0x28:
            return False
        spans[row, F_LEVEL, 0], spans[row, F_LEVEL, 1] = level, i
        stakes = i + 2
        i = stakes
        while i < end and data[i] != 0x29:
            i += 1
        if i >= end or not _stakes(data, stakes, i, spans, row):
            return False
        close = i
    else:
        game = i
        if not starts_with(data, game, end, _GAME):
            return False
        limit = game + _GAME.shape[0]
        limit_end = _limit(data, limit, end)
        i = limit_end
        if i < 0 or end - i < 2 or data[i] != 0x20 or data[i + 1] != 0x28:
            return False
        stakes = i + 2
        i = stakes
        while i < end and data[i] != 0x29:
            if data[i] == 0x28:
                return False
            i += 1
        if i >= end or not _stakes(data, stakes, i, spans, row):
            return False
        close = i
    spans[row, F_GAME, 0], spans[row, F_GAME, 1] = game, game + _GAME.shape[0] - 1
    spans[row, F_LIMIT, 0], spans[row, F_LIMIT, 1] = limit, limit_end
    if not starts_with(data, close + 1, end, _DASH):
        return False
    i = _date_time_zone(data, close + 1 + _DASH.shape[0], end, spans, row, F_DATE)
    if i < 0:
        return False
    if i == end:
        return True
    if end - i < 3 or data[i] != 0x20 or data[i + 1] != 0x5B:  # " ["
        return False
    i = _date_time_zone(data, i + 2, end, spans, row, F_ET_DATE)
    return i >= 0 and i == end - 1 and data[i] == 0x5D  # "]"


@numba.njit(cache=True)
def header_spans(
    data: np.ndarray, offsets: np.ndarray, rows: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """For each line ``rows[k]``: whether it is a header of the usual shapes, and its spans
    (``spans[k, field]``: start and end; a header's fields lie together, as it is read)."""
    count = rows.shape[0]
    spans = np.full((count, _FIELDS, 2), -1, dtype=np.int64)
    ok = np.zeros(count, dtype=np.bool_)
    for k in range(count):
        row = rows[k]
        if 0 <= row < offsets.shape[0] - 1:
            start, end = offsets[row], offsets[row + 1]
            if 0 <= start <= end <= data.shape[0] and _header(data, start, end, spans, k):
                ok[k] = True
            else:
                spans[k] = -1
    return ok, spans


@numba.njit(cache=True)
def table_spans(
    data: np.ndarray, offsets: np.ndarray, rows: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """For each line ``rows[k]``: whether it is ``Table 'NAME'[ N-max] Seat #N is the button``
    with no other quote after the name, and the spans of name, seats and button
    (``spans[k, 0 to 2]``)."""
    count = rows.shape[0]
    spans = np.full((count, 3, 2), -1, dtype=np.int64)
    ok = np.zeros(count, dtype=np.bool_)
    for k in range(count):
        row = rows[k]
        if not 0 <= row < offsets.shape[0] - 1:
            continue
        start, end = offsets[row], offsets[row + 1]
        if not (0 <= start <= end <= data.shape[0]) or not starts_with(data, start, end, _TABLE):
            continue
        name = start + _TABLE.shape[0]
        quote = end - 1
        while quote >= name and data[quote] != 0x27:
            quote -= 1
        if quote < name:
            continue
        i = quote + 1
        seats = -1
        if i < end and data[i] == 0x20 and i + 1 < end and 0x30 <= data[i + 1] <= 0x39:
            seats_end = _digits(data, i + 1, end, 1, 30)
            if seats_end < 0 or not starts_with(data, seats_end, end, _MAX):
                continue
            seats = i + 1
            i = seats_end + _MAX.shape[0]
        if not starts_with(data, i, end, _SEAT_BUTTON):
            continue
        button = i + _SEAT_BUTTON.shape[0]
        i = _digits(data, button, end, 1, 30)
        if i < 0 or end - i != _IS_BUTTON.shape[0] or not starts_with(data, i, end, _IS_BUTTON):
            continue
        ok[k] = True
        spans[k, 0, 0], spans[k, 0, 1] = name, quote
        if seats >= 0:
            spans[k, 1, 0], spans[k, 1, 1] = seats, seats_end
        spans[k, 2, 0], spans[k, 2, 1] = button, i
    return ok, spans


def _columns(
    data: np.ndarray,
    spans: np.ndarray,
    ok: np.ndarray,
    groups: tuple[tuple[str, int | None], ...],
    slow: pl.DataFrame | None,
) -> pl.DataFrame:
    """A frame of the texts of ``groups`` (a group of field None is null), the rows not
    ``ok`` taken from ``slow`` (the expressions' groups of those rows, in order)."""
    rows = len(ok)
    chosen = np.full((rows, len(groups), 2), -1, dtype=np.int64)
    for index, (_, field) in enumerate(groups):
        if field is not None:
            chosen[:, index] = spans[:, field]
    pieces: list[np.ndarray] = []
    if slow is not None:
        fallback, size = np.flatnonzero(~ok), 0
        for index, (name, _) in enumerate(groups):
            values, offsets = series_bytes(slow[name])
            known = slow[name].is_not_null().to_numpy()
            chosen[fallback, index, 0] = np.where(known, offsets[:-1] + size, -1)
            chosen[fallback, index, 1] = offsets[1:] + size
            pieces.append(values)
            size += len(values)
    extra = np.concatenate(pieces) if pieces else np.zeros(0, dtype=np.uint8)
    arrays = strings_arrays(data, chosen, extra, ~ok)
    return pl.DataFrame(
        [pl.Series(name, array) for (name, _), array in zip(groups, arrays, strict=True)]
    )


def header_fields(
    data: np.ndarray, offsets: np.ndarray, lines: pl.Series, rows: np.ndarray
) -> pl.DataFrame:
    """The `HEADER_GROUPS` of lines ``rows`` of ``lines`` (whose bytes are ``data`` cut at
    ``offsets``, as `series_bytes` gives them), as the expressions read them."""
    ok, spans = header_spans(data, offsets, rows.astype(np.int64))
    slow = None if ok.all() else header_groups(lines.gather(rows[~ok]))
    return _columns(data, spans, ok, HEADER_GROUPS, slow)


def table_fields(
    data: np.ndarray, offsets: np.ndarray, lines: pl.Series, rows: np.ndarray
) -> pl.DataFrame:
    """The groups of TABLE (``table_name``, ``max_seats``, ``button_seat``) of lines ``rows``
    (``data`` and ``offsets`` as for `header_fields`)."""
    ok, spans = table_spans(data, offsets, rows.astype(np.int64))
    slow = None if ok.all() else lines.gather(rows[~ok]).str.extract_groups(TABLE).struct.unnest()
    return _columns(data, spans, ok, _TABLE_GROUPS, slow)
