"""The compiled reader of PokerStars hands: one pass over a block's bytes for the usual hand.

Nearly every hand a player's folder holds is written in a handful of line forms. This reader
walks the block's lines once in compiled code, reads those forms field by field, keeps each
player's street total and runs the hand checks as it goes; a hand it reads completely comes
out as rows of the canonical tables. Every other hand — another game, a form not listed
here, a line it does not know, anything a check would quarantine — is left whole to the
block parser (``parsers.pokerstars.block_parser``), which explains it. So this reader never decides a
reason or a note: it only has to read correctly the hands it accepts, and the tests compare
it with the block parser on every hand of the corpus and of generated archives.

Amounts are read in hundredths of the printed unit; the hand's ``money_scale`` (from its
header) turns them into minor units afterwards, and a chip hand holding a fractional amount
is left to the block parser.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np
import polars as pl
import pyarrow as pa

from parsers.byte_kernels import (
    card_list,
    ends_with,
    find,
    literal,
    money_cents,
    series_bytes,
    starts_with,
    strings_array,
)
from parsers.engine.checks import MAX_SEATS
from parsers.engine.hole_cards import FULL, HOLE_CARDS, KEYED_CARDS, card_set_key, sighting_kind
from parsers.pokerstars.forms import ACTION_VERBS

__all__ = ["CompiledBlock", "read_block"]

_MAX_SIDE_POTS = 16
_MAX_BOARD = 5

# Line kinds of accepted hands.
(
    LINE_HEADER,
    LINE_PLAIN,  # read and needed by no table: blank, marker, table, informational lines
    LINE_TABLE,
    LINE_SEAT,
    LINE_DEALT,
    LINE_UNCALLED,
    LINE_COLLECTED,
    LINE_ACTION,
    LINE_SKIPPED,  # inside a hand left to the block parser
) = range(9)

# Verbs in the order the block parser tries them (forms.ACTION_VERBS), coded by position.
VERBS = ACTION_VERBS
(
    VERB_SB_AND_BB,
    VERB_SB,
    VERB_BB,
    VERB_ANTE,
    VERB_FOLD,
    VERB_CHECK,
    VERB_CALL,
    VERB_BET,
    VERB_RAISE,
    VERB_SHOW,
    VERB_MUCK,
    VERB_NO_SHOW,
    VERB_SITTING_OUT,
    VERB_SITS_OUT,
    VERB_STANDS_PAT,
    VERB_DISCARDS,
) = range(16)
# Canonical action kinds, by verb; the uncalled return has its own code.
KIND_OF_VERB = {
    VERB_SB: "post_sb",
    VERB_BB: "post_bb",
    VERB_ANTE: "ante",
    VERB_FOLD: "fold",
    VERB_CHECK: "check",
    VERB_CALL: "call",
    VERB_BET: "bet",
    VERB_RAISE: "raise",
    VERB_SHOW: "show",
    VERB_MUCK: "muck",
}
VERB_UNCALLED = 100

_VERB_BYTES = [literal(verb) for verb in VERBS]
_VERB_TABLE = np.zeros((len(VERBS), max(len(v) for v in _VERB_BYTES)), dtype=np.uint8)
_VERB_SIZE = np.array([len(v) for v in _VERB_BYTES], dtype=np.int64)
for _row, _verb in enumerate(_VERB_BYTES):
    _VERB_TABLE[_row, : len(_verb)] = _verb

# Section names of "*** NAME ***" read here (a run-it-twice hand is left to the block parser).
_SECTION_NAMES = ("HOLE CARDS", "PRE-FLOP", "FLOP", "TURN", "RIVER", "SHOW DOWN", "SUMMARY")
_SECTION_CODES = np.array([0, 0, 1, 2, 3, 4, 5], dtype=np.int8)
_SECTION_TABLE = np.zeros((len(_SECTION_NAMES), 16), dtype=np.uint8)
_SECTION_SIZE = np.array([len(name) for name in _SECTION_NAMES], dtype=np.int64)
for _row, _name in enumerate(_SECTION_NAMES):
    _SECTION_TABLE[_row, : len(_name)] = literal(_name)
_HOLE_CARDS_SECTION = 0
_SUMMARY_SECTION = 6

# Informational lines (PokerStars' INFORMATIONAL) read here: whole lines, line endings after a
# name, and the tournament lines `_is_informational` reads.
_WHOLE_INFO = ("Betting is capped", "No low hand qualified")
_INFO_SUFFIXES = (
    " is sitting out",
    " has timed out",
    " has timed out while disconnected",
    " is disconnected",
    " is connected",
    " has returned",
    " leaves the table",
    " will be allowed to play after the button",
)


def _table(texts: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
    encoded = [literal(text) for text in texts]
    table = np.zeros((len(encoded), max(len(e) for e in encoded)), dtype=np.uint8)
    for row, text in enumerate(encoded):
        table[row, : len(text)] = text
    return table, np.array([len(e) for e in encoded], dtype=np.int64)


_WHOLE_INFO_TABLE, _WHOLE_INFO_SIZE = _table(_WHOLE_INFO)
_INFO_SUFFIX_TABLE, _INFO_SUFFIX_SIZE = _table(_INFO_SUFFIXES)

_STARS = literal("*** ")
_STARS_END = literal(" ***")
_TABLE_LINE = literal("Table '")
_SEAT = literal("Seat ")
_DEALT = literal("Dealt to ")
_UNCALLED = literal("Uncalled bet (")
_RETURNED = literal(") returned to ")
_TOTAL = literal("Total pot ")
_MAIN_POT = literal(" Main pot ")
_SIDE_POT = literal(" Side pot")
_RAKE = literal(" | Rake ")
_BOARD_OPEN = literal("Board [")
_MUCKED_OPEN = literal(" mucked [")
_MUCKED = literal("mucked [")
_COLLECTED = literal(" collected ")
_FROM = literal(" from ")
_POT = literal("pot")
_MAIN = literal("main pot")
_SIDE = literal("side pot")
_COLON = literal(": ")
_IN_CHIPS = literal(" in chips")
_BOUNTY = literal(" bounty")
_SITTING_OUT = literal("is sitting out")
_OUT_OF_HAND = literal("out of hand")
_ALL_IN = literal(" and is all-in")
_TO = literal(" to ")
_JOINS = literal(" joins the table at seat #")
_FINISHED = literal(" finished the tournament")
_IN = literal(" in ")
_PLACE = literal(" place")
_AND_RECEIVED = literal(" and received ")
_WINS_THE = literal(" wins the ")
_BOUNTY_FOR = literal(" bounty for eliminating ")
_TOURNAMENT = literal("tournament")
_AND_RECEIVES = literal(" and receives ")
_WITH_HI = literal("with HI: ")
_WITH_LO = literal("with LO: ")
_SAID = literal(' said, "')
_OPEN_PAREN = literal(" (")
_OPEN_BRACKET = literal(" [")
_CLOSE_BRACKET = literal("]")
_CLOSE_PAREN = literal(")")
# Every card `card_list` decodes is readable.
_READABLE = np.ones(_MAX_BOARD, dtype=np.bool_)


@numba.njit(cache=True)
def _matches_row(data, start, end, table, sizes, row) -> bool:  # type: ignore[no-untyped-def]
    size = sizes[row]
    if end - start < size:
        return False
    for k in range(size):
        if data[start + k] != table[row, k]:
            return False
    return True


@numba.njit(cache=True)
def _token_end(data: np.ndarray, start: int, end: int) -> int:
    """End of the run of non-space bytes at ``start``."""
    i = start
    while i < end and data[i] != 0x20:
        i += 1
    return i


@numba.njit(cache=True)
def _read_int(data: np.ndarray, start: int, end: int, limit: int) -> tuple[int, int]:
    """Digits at ``start`` as a number ``<= limit``: ``(value, end)``; value -1 if none/too big."""
    i = start
    value = 0
    while i < end and 0x30 <= data[i] <= 0x39:
        value = value * 10 + (data[i] - 0x30)
        if value > limit:
            return -1, i
        i += 1
    if i == start:
        return -1, i
    return value, i


@numba.njit(cache=True)
def _same_text(data: np.ndarray, a0: int, a1: int, b0: int, b1: int) -> bool:
    if a1 - a0 != b1 - b0:
        return False
    for k in range(a1 - a0):
        if data[a0 + k] != data[b0 + k]:
            return False
    return True


@numba.njit(cache=True)
def _sight(  # type: ignore[no-untyped-def]
    slot, seat_line, count, dealt, scratch, sighting_key, held, cards, card_count
) -> bool:
    """Record a sighting of a player's hole cards, ``count`` codes in ``scratch`` (-1: not a
    list of readable cards), by the rules of `parsers.engine.hole_cards`: the first sighting's
    cards are the seat's. False when the sighting is not `FULL` or holds other cards than an
    earlier one: the block parser reads a partial show and explains the rest. Only Omaha
    Hi/Lo's four cards are read here: a hand of another game goes to the block parser."""
    if sighting_kind(max(count, 0), count >= 0, dealt, HOLE_CARDS) != FULL:
        return False
    key, _ = card_set_key(scratch, _READABLE, 0, count, held)
    if sighting_key[slot] == 0:
        sighting_key[slot] = key
        cards[seat_line, :count] = scratch[:count]
        card_count[seat_line] = count
    elif sighting_key[slot] != key:
        return False
    return True


@numba.njit(cache=True)
def _is_letter(byte: int) -> bool:
    return (0x41 <= byte <= 0x5A) or (0x61 <= byte <= 0x7A)


@numba.njit(cache=True)
def _is_informational(data: np.ndarray, start: int, end: int, section: int) -> bool:
    """The known lines that carry nothing the tables need (a subset of INFORMATIONAL)."""
    for row in range(_WHOLE_INFO_SIZE.shape[0]):
        if end - start == _WHOLE_INFO_SIZE[row] and _matches_row(
            data, start, end, _WHOLE_INFO_TABLE, _WHOLE_INFO_SIZE, row
        ):
            return True
    if section == 5 and starts_with(data, start, end, _SEAT):
        # "Seat \d+: .+" — the summary's seat lines.
        value, i = _read_int(data, start + _SEAT.shape[0], end, 1 << 30)
        return value >= 0 and starts_with(data, i, end, _COLON) and end - i > 2
    for row in range(_INFO_SUFFIX_SIZE.shape[0]):
        size = _INFO_SUFFIX_SIZE[row]
        if end - start > size and _matches_row(
            data, end - size, end, _INFO_SUFFIX_TABLE, _INFO_SUFFIX_SIZE, row
        ):
            return True
    if (
        starts_with(data, start, end, _WITH_HI) or starts_with(data, start, end, _WITH_LO)
    ) and end - start > _WITH_HI.shape[0]:
        return True
    # ".+ finished the tournament( in \d+\w\w place)?( and received .+)?"
    finished = find(data, start + 1, end, _FINISHED)
    if finished > start:
        i = finished + _FINISHED.shape[0]
        if starts_with(data, i, end, _IN):
            place, i = _read_int(data, i + _IN.shape[0], end, 1 << 30)
            if place < 0 or end - i < 2 or not _is_letter(data[i]) or not _is_letter(data[i + 1]):
                return False
            i += 2
            if not starts_with(data, i, end, _PLACE):
                return False
            i += _PLACE.shape[0]
        if i == end:
            return True
        return starts_with(data, i, end, _AND_RECEIVED) and end - i > _AND_RECEIVED.shape[0]
    # ".+ wins the .+ bounty for eliminating .+"
    wins = find(data, start + 1, end, _WINS_THE)
    if wins > start:
        # ".+ wins the tournament( and receives .+)?"
        i = wins + _WINS_THE.shape[0]
        if starts_with(data, i, end, _TOURNAMENT):
            i += _TOURNAMENT.shape[0]
            if i == end or (starts_with(data, i, end, _AND_RECEIVES) and end - i > _AND_RECEIVES.shape[0]):
                return True
        bounty = find(data, wins + _WINS_THE.shape[0] + 1, end, _BOUNTY_FOR)
        if bounty > 0 and end - bounty > _BOUNTY_FOR.shape[0]:
            return True
    joins = find(data, start + 1, end, _JOINS)
    if joins > start:
        value, i = _read_int(data, joins + _JOINS.shape[0], end, 1 << 30)
        if value >= 0 and i == end:
            return True
    return find(data, start + 1, end, _SAID) > start


@numba.njit(cache=True)
def _seat_slot(
    data: np.ndarray, start: int, end: int, seat_lines: np.ndarray, seats: int,
    name_start: np.ndarray, name_end: np.ndarray,
) -> int:
    """The hand's seat whose player is named ``data[start:end]``, or -1."""
    for slot in range(seats):
        line = seat_lines[slot]
        if _same_text(data, start, end, name_start[line], name_end[line]):
            return slot
    return -1


@numba.njit(cache=True)
def scan(data: np.ndarray, offsets: np.ndarray, opens_hand: np.ndarray, new_file: np.ndarray):  # type: ignore[no-untyped-def]  # noqa: C901
    lines = offsets.shape[0] - 1
    kind = np.full(lines, LINE_SKIPPED, dtype=np.int8)
    segment = np.zeros(lines, dtype=np.int32)
    street = np.zeros(lines, dtype=np.int8)
    verb = np.full(lines, -1, dtype=np.int16)
    name_start = np.full(lines, -1, dtype=np.int64)
    name_end = np.full(lines, -1, dtype=np.int64)
    aux_start = np.full(lines, -1, dtype=np.int64)  # bounty (seat), shown cards' description
    aux_end = np.full(lines, -1, dtype=np.int64)
    amount = np.full(lines, -1, dtype=np.int64)  # hundredths; seat lines: the stack
    number = np.full(lines, -1, dtype=np.int64)  # seat number, pot index, raise total
    to_amount = np.full(lines, -1, dtype=np.int64)
    all_in = np.zeros(lines, dtype=np.bool_)
    flag = np.zeros(lines, dtype=np.bool_)  # seat: sitting out
    hero = np.zeros(lines, dtype=np.bool_)
    cards = np.zeros((lines, _MAX_BOARD), dtype=np.uint8)
    card_count = np.zeros(lines, dtype=np.int8)  # seat lines: the hole cards seen (0 or 4)
    # Per segment.
    segments = 0
    for line in range(lines):
        if new_file[line] or opens_hand[line]:
            segments += 1
    accepted = np.zeros(segments, dtype=np.bool_)
    first_line = np.zeros(segments, dtype=np.int64)
    table_line = np.full(segments, -1, dtype=np.int64)
    posted_sb_full = np.full(segments, -1, dtype=np.int64)
    posted_sb_any = np.full(segments, -1, dtype=np.int64)
    posted_bb_full = np.full(segments, -1, dtype=np.int64)
    posted_ante = np.full(segments, -1, dtype=np.int64)
    total = np.full(segments, -1, dtype=np.int64)
    rake = np.full(segments, -1, dtype=np.int64)
    side_pots = np.zeros((segments, _MAX_SIDE_POTS), dtype=np.int64)
    side_pot_count = np.full(segments, -1, dtype=np.int16)
    board = np.zeros((segments, _MAX_BOARD), dtype=np.uint8)
    board_count = np.zeros(segments, dtype=np.int8)
    fractional = np.zeros(segments, dtype=np.bool_)

    seat_lines = np.zeros(MAX_SEATS, dtype=np.int64)
    sighting_key = np.zeros(MAX_SEATS, dtype=np.uint64)  # 0: no sighting yet
    held = np.zeros(KEYED_CARDS, dtype=np.int64)  # room for `card_set_key`
    running = np.zeros(MAX_SEATS, dtype=np.int64)
    scratch = np.zeros(_MAX_BOARD, dtype=np.uint8)

    current = -1
    ok = False
    section = -1
    seats = 0
    has_hole = False
    has_summary = False
    tables = 0
    boards = 0
    action_street = -1
    for line in range(lines + 1):
        opens = False
        if line < lines:
            start = offsets[line]
            end = offsets[line + 1]
            while end > start and (data[end - 1] == 0x20 or data[end - 1] == 0x09):
                end -= 1
            header = opens_hand[line]
            opens = header or new_file[line]
        if line == lines or opens:
            if current >= 0 and ok:
                # The hand checks of the block parser, for the hand that just ended.
                ok = has_summary and has_hole and tables == 1 and seats >= 2
                ok = ok and total[current] >= 0 and rake[current] >= 0 and boards <= 1
                if ok:
                    used = np.zeros(52, dtype=np.bool_)
                    for k in range(board_count[current]):
                        if used[board[current, k]]:
                            ok = False
                        used[board[current, k]] = True
                    for slot in range(seats):
                        seat_line = seat_lines[slot]
                        for k in range(card_count[seat_line]):
                            code = cards[seat_line, k]
                            if used[code]:
                                ok = False
                            used[code] = True
                accepted[current] = ok
            if line == lines:
                break
            current += 1
            first_line[current] = line
            ok = header
            section = -1
            seats = 0
            has_hole = False
            has_summary = False
            tables = 0
            boards = 0
            action_street = -1
            segment[line] = current
            if ok:
                kind[line] = LINE_HEADER
            continue
        segment[line] = current
        if not ok:
            continue
        # The block parser's cheap kinds, tried in its order, each read strictly.
        if start == end:
            kind[line] = LINE_PLAIN
            continue
        if starts_with(data, start, end, _STARS):
            name_from = start + _STARS.shape[0]
            name_to = find(data, name_from, end, _STARS_END)
            if name_to < 0:
                name_to = end
            known = -1
            for row in range(_SECTION_SIZE.shape[0]):
                if name_to - name_from == _SECTION_SIZE[row] and _matches_row(
                    data, name_from, name_to, _SECTION_TABLE, _SECTION_SIZE, row
                ):
                    known = row
                    break
            if known < 0:
                ok = False
                continue
            section = _SECTION_CODES[known]
            has_hole = has_hole or known == _HOLE_CARDS_SECTION
            has_summary = has_summary or known == _SUMMARY_SECTION
            kind[line] = LINE_PLAIN
            continue
        in_summary = section == 5
        if starts_with(data, start, end, _TABLE_LINE):
            tables += 1
            table_line[current] = line
            kind[line] = LINE_TABLE
            continue
        if section == -1 and starts_with(data, start, end, _SEAT):
            seat, i = _read_int(data, start + _SEAT.shape[0], end, 99)
            if seat < 1 or not starts_with(data, i, end, _COLON) or seats == MAX_SEATS:
                ok = False
                continue
            player_from = i + 2
            found = False
            # "(.+?) \((stack) in chips(, (bounty) bounty)?\)(flags)": the first " (" after
            # which the rest reads.
            candidate = player_from + 1
            while not found:
                paren = find(data, candidate, end, _OPEN_PAREN)
                if paren < 0:
                    break
                candidate = paren + 1
                stack_from = paren + 2
                stack_to = stack_from
                while stack_to < end and data[stack_to] != 0x20 and data[stack_to] != 0x2C and data[stack_to] != 0x29:
                    stack_to += 1
                if stack_to == stack_from or not starts_with(data, stack_to, end, _IN_CHIPS):
                    continue
                j = stack_to + _IN_CHIPS.shape[0]
                bounty_from = -1
                bounty_to = -1
                if j < end and data[j] == 0x2C:
                    if j + 1 >= end or data[j + 1] != 0x20:
                        continue
                    close = j + 2
                    while close < end and data[close] != 0x29:
                        close += 1
                    if close == end or not ends_with(data, j + 2, close, _BOUNTY):
                        continue
                    bounty_from = j + 2
                    bounty_to = close - _BOUNTY.shape[0]
                    j = close
                if j >= end or data[j] != 0x29:
                    continue
                value, fraction = money_cents(data, stack_from, stack_to)
                if value < 0:
                    break
                found = True
                name_start[line] = player_from
                name_end[line] = paren
                amount[line] = value
                fractional[current] = fractional[current] or fraction
                number[line] = seat
                aux_start[line] = bounty_from
                aux_end[line] = bounty_to
                flags_from = j + 1
                flag[line] = (
                    find(data, flags_from, end, _SITTING_OUT) >= 0
                    or find(data, flags_from, end, _OUT_OF_HAND) >= 0
                )
            if not found:
                ok = False
                continue
            for slot in range(seats):
                other = seat_lines[slot]
                if number[other] == seat or _same_text(
                    data, name_start[other], name_end[other], name_start[line], name_end[line]
                ):
                    ok = False
            seat_lines[seats] = line
            sighting_key[seats] = 0
            seats += 1
            kind[line] = LINE_SEAT
            continue
        if starts_with(data, start, end, _DEALT):
            # "Dealt to (.+?)( \[cards\])?": only the hero's line with his cards is read.
            player_from = start + _DEALT.shape[0]
            if end - player_from < 2 or data[end - 1] != 0x5D:
                ok = False
                continue
            bracket = find(data, player_from + 1, end, _OPEN_BRACKET)
            if bracket < 0 or find(data, bracket + 2, end - 1, _CLOSE_BRACKET) >= 0:
                ok = False
                continue
            slot = _seat_slot(data, player_from, bracket, seat_lines, seats, name_start, name_end)
            if slot < 0:
                ok = False
                continue
            seat_line = seat_lines[slot]
            count = card_list(data, bracket + 2, end - 1, scratch)
            if not _sight(
                slot, seat_line, count, True, scratch, sighting_key, held, cards, card_count
            ):
                ok = False
                continue
            hero[seat_line] = True
            kind[line] = LINE_DEALT
            continue
        if starts_with(data, start, end, _UNCALLED):
            amount_from = start + _UNCALLED.shape[0]
            close = find(data, amount_from, end, _RETURNED)
            if close <= amount_from or find(data, amount_from, close, _CLOSE_PAREN) >= 0:
                ok = False
                continue
            value, fraction = money_cents(data, amount_from, close)
            player_from = close + _RETURNED.shape[0]
            slot = _seat_slot(data, player_from, end, seat_lines, seats, name_start, name_end)
            if value < 0 or slot < 0:
                ok = False
                continue
            fractional[current] = fractional[current] or fraction
            name_start[line] = player_from
            name_end[line] = end
            amount[line] = value
            verb[line] = VERB_UNCALLED
            street[line] = min(max(section, 0), 3)
            if street[line] != action_street:
                action_street = street[line]
                running[:] = 0
            kind[line] = LINE_UNCALLED
            continue
        if in_summary and starts_with(data, start, end, _TOTAL):
            i = start + _TOTAL.shape[0]
            token = _token_end(data, i, end)
            value, fraction = money_cents(data, i, token)
            if value < 0 or total[current] >= 0:
                ok = False
                continue
            total[current] = value
            fractional[current] = fractional[current] or fraction
            i = token
            pots = 0
            readable = True
            if starts_with(data, i, end, _MAIN_POT):
                i += _MAIN_POT.shape[0]
                token = _token_end(data, i, end)
                value, fraction = money_cents(data, i, token - 1)
                if value < 0 or data[token - 1] != 0x2E:
                    readable = False
                else:
                    side_pots[current, 0] = value
                    fractional[current] = fractional[current] or fraction
                    pots = 1
                    i = token
            while readable and starts_with(data, i, end, _SIDE_POT):
                i += _SIDE_POT.shape[0]
                if i < end and data[i] == 0x2D:
                    index, i = _read_int(data, i + 1, end, 1 << 30)
                    if index < 0:
                        readable = False
                        break
                if i >= end or data[i] != 0x20 or pots == _MAX_SIDE_POTS:
                    readable = False
                    break
                i += 1
                token = _token_end(data, i, end)
                value, fraction = money_cents(data, i, token - 1)
                if value < 0 or data[token - 1] != 0x2E:
                    readable = False
                    break
                side_pots[current, pots] = value
                fractional[current] = fractional[current] or fraction
                pots += 1
                i = token
            if not readable or not starts_with(data, i, end, _RAKE):
                ok = False
                continue
            i += _RAKE.shape[0]
            token = _token_end(data, i, end)
            value, fraction = money_cents(data, i, token)
            if value < 0:
                ok = False
                continue
            rake[current] = value
            fractional[current] = fractional[current] or fraction
            side_pot_count[current] = pots if pots > 0 else -1
            kind[line] = LINE_PLAIN
            continue
        if in_summary and find(data, start, end, _BOARD_OPEN) >= 0:
            if not starts_with(data, start, end, _BOARD_OPEN) or data[end - 1] != 0x5D:
                ok = False
                continue
            inner_from = start + _BOARD_OPEN.shape[0]
            if find(data, inner_from, end - 1, _CLOSE_BRACKET) >= 0:
                ok = False
                continue
            count = card_list(data, inner_from, end - 1, scratch)
            if count < 0:
                ok = False
                continue
            board[current, :count] = scratch[:count]
            board_count[current] = count
            boards += 1
            kind[line] = LINE_PLAIN
            continue
        if in_summary and find(data, start, end, _MUCKED_OPEN) >= 0:
            # "Seat \d+: (.+?) (\([^)]*\) )*mucked \[(cards)\]".
            seat, i = _read_int(data, start + _SEAT.shape[0], end, 1 << 30)
            if (
                not starts_with(data, start, end, _SEAT)
                or seat < 0
                or not starts_with(data, i, end, _COLON)
                or data[end - 1] != 0x5D
            ):
                ok = False
                continue
            player_from = i + 2
            player_to = -1
            inner_from = end
            space = player_from + 1
            while player_to < 0 and space < end:
                if data[space] == 0x20:
                    j = space + 1
                    while j < end and data[j] == 0x28:
                        close = j + 1
                        while close < end and data[close] != 0x29:
                            close += 1
                        if close + 1 >= end or data[close + 1] != 0x20:
                            j = -1
                            break
                        j = close + 2
                    if j >= 0 and starts_with(data, j, end, _MUCKED):
                        inner_from = j + _MUCKED.shape[0]
                        if find(data, inner_from, end - 1, _CLOSE_BRACKET) < 0:
                            player_to = space
                            break
                space += 1
            if player_to < 0:
                ok = False
                continue
            slot = _seat_slot(data, player_from, player_to, seat_lines, seats, name_start, name_end)
            if slot < 0:
                ok = False
                continue
            count = card_list(data, inner_from, end - 1, scratch)
            if not _sight(
                slot, seat_lines[slot], count, False, scratch, sighting_key, held, cards,
                card_count,
            ):
                ok = False
                continue
            kind[line] = LINE_PLAIN
            continue
        if not in_summary and find(data, start, end, _COLLECTED) >= 0:
            # "(.+?) collected (\S+) from (pot|main pot|side pot(-N)?)".
            found = False
            candidate = start + 1
            while not found:
                at = find(data, candidate, end, _COLLECTED)
                if at < 0:
                    break
                candidate = at + 1
                amount_from = at + _COLLECTED.shape[0]
                amount_to = _token_end(data, amount_from, end)
                if amount_to == amount_from or not starts_with(data, amount_to, end, _FROM):
                    continue
                pot_from = amount_to + _FROM.shape[0]
                pot = -1
                if end - pot_from == 3 and starts_with(data, pot_from, end, _POT):
                    pot = 0
                elif end - pot_from == 8 and starts_with(data, pot_from, end, _MAIN):
                    pot = 0
                elif starts_with(data, pot_from, end, _SIDE):
                    after = pot_from + _SIDE.shape[0]
                    if after == end:
                        pot = 1
                    elif data[after] == 0x2D:
                        # A pot number past Int8 is left to the block parser.
                        index, i = _read_int(data, after + 1, end, 127)
                        if index >= 0 and i == end:
                            pot = index
                if pot == -1:
                    continue
                value, fraction = money_cents(data, amount_from, amount_to)
                slot = _seat_slot(data, start, at, seat_lines, seats, name_start, name_end)
                if value < 0 or slot < 0:
                    break
                found = True
                fractional[current] = fractional[current] or fraction
                name_start[line] = start
                name_end[line] = at
                amount[line] = value
                number[line] = pot
            if not found:
                ok = False
                continue
            kind[line] = LINE_COLLECTED
            continue
        if not in_summary and find(data, start, end, _COLON) >= 0:
            colon = find(data, start, end, _COLON)
            rest = colon + 2
            if colon == start:
                ok = False
                continue
            found_verb = -1
            for row in range(_VERB_SIZE.shape[0]):
                size = _VERB_SIZE[row]
                if _matches_row(data, rest, end, _VERB_TABLE, _VERB_SIZE, row) and (
                    rest + size == end or data[rest + size] == 0x20
                ):
                    found_verb = row
                    break
            if found_verb < 0 or found_verb == VERB_SB_AND_BB or found_verb >= VERB_STANDS_PAT:
                ok = False
                continue
            i = rest + _VERB_SIZE[found_verb]
            tail_end = end
            is_all_in = False
            if ends_with(data, i, end, _ALL_IN):
                is_all_in = True
                tail_end = end - _ALL_IN.shape[0]
            elif find(data, i, end, _ALL_IN) >= 0:
                ok = False  # all-in text inside the line: the block parser reads that
                continue
            if (
                found_verb == VERB_SB
                or found_verb == VERB_BB
                or found_verb == VERB_ANTE
                or found_verb == VERB_CALL
                or found_verb == VERB_BET
            ):
                if i >= tail_end or data[i] != 0x20:
                    ok = False
                    continue
                value, fraction = money_cents(data, i + 1, tail_end)
                if value < 0:
                    ok = False
                    continue
                amount[line] = value
                fractional[current] = fractional[current] or fraction
            elif found_verb == VERB_RAISE:
                if i >= tail_end or data[i] != 0x20:
                    ok = False
                    continue
                first_to = _token_end(data, i + 1, tail_end)
                if not starts_with(data, first_to, tail_end, _TO):
                    ok = False
                    continue
                value, fraction = money_cents(data, i + 1, first_to)
                total_to, total_fraction = money_cents(
                    data, first_to + _TO.shape[0], tail_end
                )
                if value < 0 or total_to < 0:
                    ok = False
                    continue
                amount[line] = value
                number[line] = total_to
                fractional[current] = fractional[current] or fraction or total_fraction
            elif found_verb == VERB_SHOW:
                # "shows [cards]( \(description\))?", never all-in.
                if is_all_in or not starts_with(data, i, end, _OPEN_BRACKET):
                    ok = False
                    continue
                close = find(data, i + 2, end, _CLOSE_BRACKET)
                if close < 0:
                    ok = False
                    continue
                count = card_list(data, i + 2, close, scratch)
                if close + 1 != end:
                    if not (
                        starts_with(data, close + 1, end, _OPEN_PAREN) and data[end - 1] == 0x29
                    ):
                        ok = False
                        continue
                    aux_start[line] = close + 3
                    aux_end[line] = end - 1
                slot = _seat_slot(data, start, colon, seat_lines, seats, name_start, name_end)
                if slot < 0:
                    ok = False
                    continue
                if not _sight(
                    slot, seat_lines[slot], count, False, scratch, sighting_key, held, cards,
                    card_count,
                ):
                    ok = False
                    continue
                cards[line, :count] = scratch[:count]
                card_count[line] = count
            elif i != end:  # folds, checks, mucks hand, doesn't show hand, sits out
                ok = False
                continue
            name_start[line] = start
            name_end[line] = colon
            all_in[line] = is_all_in
            verb[line] = found_verb
            kind[line] = LINE_ACTION
            if found_verb >= VERB_NO_SHOW:
                continue  # read, but no row of any table
            slot = _seat_slot(data, start, colon, seat_lines, seats, name_start, name_end)
            if slot < 0:
                ok = False
                continue
            if found_verb == VERB_SB:
                posted_sb_any[current] = max(posted_sb_any[current], amount[line])
                if not is_all_in:
                    posted_sb_full[current] = max(posted_sb_full[current], amount[line])
            elif found_verb == VERB_BB and not is_all_in:
                posted_bb_full[current] = max(posted_bb_full[current], amount[line])
            elif found_verb == VERB_ANTE:
                posted_ante[current] = max(posted_ante[current], amount[line])
            # Street totals, as parsers.engine.kernels.street_totals keeps them.
            street[line] = min(max(section, 0), 3)
            if street[line] != action_street:
                action_street = street[line]
                running[:] = 0
            if found_verb == VERB_RAISE:
                amount[line] = number[line] - running[slot]
                running[slot] = number[line]
                if amount[line] < 0:
                    ok = False
            elif (
                found_verb == VERB_SB
                or found_verb == VERB_BB
                or found_verb == VERB_CALL
                or found_verb == VERB_BET
            ):
                running[slot] += amount[line]
            if found_verb != VERB_ANTE and found_verb <= VERB_RAISE:
                to_amount[line] = running[slot]  # the betting flow; antes stand outside it
            continue
        if _is_informational(data, start, end, section):
            kind[line] = LINE_PLAIN
            continue
        ok = False
    return (
        kind, segment, street, verb, name_start, name_end, aux_start, aux_end, amount, number,
        to_amount, all_in, flag, hero, cards, card_count,
        accepted, first_line, table_line, posted_sb_full, posted_sb_any, posted_bb_full,
        posted_ante, total, rake, side_pots, side_pot_count, board, board_count, fractional,
    )


@dataclass
class CompiledBlock:
    """What one pass read: per line and per segment arrays (see ``_scan``)."""

    data: np.ndarray
    offsets: np.ndarray
    kind: np.ndarray
    segment: np.ndarray
    street: np.ndarray
    verb: np.ndarray
    name_start: np.ndarray
    name_end: np.ndarray
    aux_start: np.ndarray
    aux_end: np.ndarray
    amount: np.ndarray
    number: np.ndarray
    to_amount: np.ndarray
    all_in: np.ndarray
    flag: np.ndarray
    hero: np.ndarray
    cards: np.ndarray
    card_count: np.ndarray
    accepted: np.ndarray
    first_line: np.ndarray
    table_line: np.ndarray
    posted_sb_full: np.ndarray
    posted_sb_any: np.ndarray
    posted_bb_full: np.ndarray
    posted_ante: np.ndarray
    total: np.ndarray
    rake: np.ndarray
    side_pots: np.ndarray
    side_pot_count: np.ndarray
    board: np.ndarray
    board_count: np.ndarray
    fractional: np.ndarray


def read_block(lines: pl.Series, opens_hand: np.ndarray, new_file: np.ndarray) -> CompiledBlock:
    """One compiled pass over ``lines``; the masks mark hand headers and files' first lines."""
    data, offsets = series_bytes(lines)
    return CompiledBlock(data, offsets, *scan(data, offsets, opens_hand, new_file))


def names(block: CompiledBlock, rows: np.ndarray) -> pa.Array:
    """The player names of ``rows``."""
    return strings_array(block.data, block.name_start[rows], block.name_end[rows])


def aux_texts(block: CompiledBlock, rows: np.ndarray) -> pa.Array:
    """The bounty or description text of ``rows`` (null where the line has none)."""
    return strings_array(block.data, block.aux_start[rows], block.aux_end[rows])


def hand_descriptions(block: CompiledBlock, rows: np.ndarray) -> tuple[pa.Array, pa.Array]:
    """``(high, low)`` of the shown hands' descriptions ``HI: …; LO: …`` (null if absent)."""
    high_start, high_end, low_start, low_end = split_descriptions(
        block.data, block.aux_start[rows], block.aux_end[rows]
    )
    return (
        strings_array(block.data, high_start, high_end),
        strings_array(block.data, low_start, low_end),
    )


_HI = literal("HI: ")
_LO = literal("LO: ")
_SEMI_LO = literal("; LO: ")
_SEMI = literal("; ")


@numba.njit(cache=True)
def _labelled(data: np.ndarray, start: int, end: int, label: np.ndarray) -> int:
    """Where the text after the first ``label`` at the start or after ``"; "`` begins, or -1."""
    if starts_with(data, start, end, label):
        return start + label.shape[0]
    i = start
    while True:
        at = find(data, i, end, _SEMI)
        if at < 0:
            return -1
        if starts_with(data, at + 2, end, label):
            return at + 2 + label.shape[0]
        i = at + 1


@numba.njit(cache=True)
def split_descriptions(data, starts, ends):  # type: ignore[no-untyped-def]
    """The spans the block parser's ``(?:^|; )HI: (.*?)(?:; LO: |$)`` and
    ``(?:^|; )LO: (.*)$`` capture in each description span."""
    count = starts.shape[0]
    high_start = np.full(count, -1, dtype=np.int64)
    high_end = np.full(count, -1, dtype=np.int64)
    low_start = np.full(count, -1, dtype=np.int64)
    low_end = np.full(count, -1, dtype=np.int64)
    for row in range(count):
        start, end = starts[row], ends[row]
        if start < 0 or end < start or end > data.shape[0]:
            continue
        high = _labelled(data, start, end, _HI)
        if high >= 0:
            high_start[row] = high
            stop = find(data, high, end, _SEMI_LO)
            high_end[row] = stop if stop >= 0 else end
        low = _labelled(data, start, end, _LO)
        if low >= 0:
            low_start[row] = low
            low_end[row] = end
    return high_start, high_end, low_start, low_end
