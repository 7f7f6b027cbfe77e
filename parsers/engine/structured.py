"""What the structured-format parsers share (Merge, Boss, Microgaming, iPoker XML; IGT JSON).

These formats hold one hand per element (``<game>``, ``<HISTORY>``, ``<Game>``) or JSON object,
so a block of lines is cut at each hand's opening line, each hand's text is read on its own
through `parsers.engine.xml_safe` (or `json`) and decoded by the site's `read_hand` into a
`HandRecord`. The records become the frames of `parsers.engine.assembly.HandTables`, and the
shared `finish` runs the same seat, actor and card checks, positions and rejects as the text
parsers. The Boss schema, which two sites print (Boss as XML, IGT as JSON), is read by
`parsers.engine.boss_schema`.

Text outside the hand elements (``<ROOT>``, ``----PRIMA.DAT----``, Merge's ``<description>``,
iPoker's session ``<general>``) is either wrapper text, dropped, or *context* a site reads for
the hands after it (the stakes of a Merge file are printed once, before its first game). The
context of a file is remembered by source file, so the hands of a file's later 8 MiB blocks
still see it: ingest parses a file's blocks in order, in one process.

One hand is decoded with Python objects, not columns: an XML element has to be walked anyway,
and the decoded rows are handed to polars once per block. Amounts are converted exactly with
`decimal` (a printed amount with more decimals than the unit allows quarantines the hand).
"""

from __future__ import annotations

import contextlib
import functools
import gc
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any, ClassVar, TypeVar
from xml.etree.ElementTree import Element

import numpy as np
import polars as pl
import pyarrow as pa

from parsers.base import ParseResult
from parsers.columns import CARD_CODES, MAX_MINOR_UNITS
from parsers.engine.assembly import HandTables, finish
from parsers.engine.betting import settle_all_in_kinds, street_amounts
from parsers.engine.hole_cards import attach_hole_cards
from parsers.engine.line_forms import may_find
from parsers.engine.xml_safe import MAX_DOCUMENT_CHARS, XmlRefused, read_document
from pipeline.profiles import SiteProfile
from pipeline.schema import HAND_TABLES

__all__ = [
    "HandProblem",
    "HandRecord",
    "SkippedGame",
    "XmlHandParser",
    "all_in_row",
    "cached_when_short",
    "card",
    "check_board",
    "collection_row",
    "collector_paused",
    "drop_winner_mucks",
    "json_depth",
    "largest_posts",
    "minor_units",
    "paired_stakes",
    "read_element",
    "seat_row",
    "small_number",
    "unmatched_top",
]

# An amount in plain ASCII digits (`minor_units`' fast path): whole part, decimals.
_PLAIN_AMOUNT = re.compile(r"([0-9]+)(?:\.([0-9]*))?")
# Raw text kept in a reject row for a hand too large to be one (the rest is in the file).
_REJECT_TEXT_CHARS = 4000
_CONTEXTS_KEPT = 64  # files whose context is remembered (a file's blocks arrive in order)


_Result = TypeVar("_Result")


def cached_when_short(
    longest: int, maxsize: int = 1024
) -> Callable[[Callable[..., _Result]], Callable[..., _Result]]:
    """`functools.lru_cache` for a function of a text (and more arguments) that a file repeats
    (cards, amounts, keys), for texts of at most ``longest`` characters: a longer one is
    computed each time, so hostile input (a 1 MiB token) cannot make the cache hold more than
    ``maxsize × longest`` characters."""

    def decorate(function: Callable[..., _Result]) -> Callable[..., _Result]:
        cached = functools.lru_cache(maxsize=maxsize)(function)

        @functools.wraps(function)
        def call(text: str, *rest: Any) -> _Result:
            return cached(text, *rest) if len(text) <= longest else function(text, *rest)

        call.cache_info = cached.cache_info  # type: ignore[attr-defined]
        return call

    return decorate


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """The cyclic garbage collector paused for the duration (a parse of one block).

    Decoding a block allocates a few hundred thousand small containers (elements, JSON values,
    row dicts) that are kept until the block's frames are built and that reference counting
    frees (they form no cycles): the collector would only rescan the growing heap again and
    again, a fifth of a structured parse. A block is bounded (8 MiB), so anything cyclic left
    meanwhile waits at most one block. Nested use is fine: only the outermost resumes it.
    """
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


class HandProblem(ValueError):
    """A hand that cannot be recorded faithfully; the message is the quarantine reason."""


class SkippedGame(Exception):
    """A well-formed hand of another game (counted as skipped under ``game``)."""

    def __init__(self, game: str) -> None:
        super().__init__(game)
        self.game = game


@dataclass
class HandRecord:
    """One decoded Omaha Hi/Lo hand, rows as dicts with canonical column names.

    ``hand`` holds the canonical hand columns (``board`` as card codes); ``actions`` rows have
    ``street``, ``player``, ``kind``, ``amount`` (chips added, where printed) or ``to`` (street
    total, where printed) and ``all_in_undecided`` for an all-in whose kind follows from its
    effect; ``sightings`` are (player, card codes, dealt) wherever a player's cards were seen
    (`dealt_to`, `shown_by`; see `parsers.engine.hole_cards`).
    """

    hand_id: str
    hand: dict[str, Any]
    seats: list[dict[str, Any]] = field(default_factory=list)
    actions: list[dict[str, Any]] = field(default_factory=list)
    collections: list[dict[str, Any]] = field(default_factory=list)
    showdowns: list[dict[str, Any]] = field(default_factory=list)
    sightings: list[tuple[str, list[int | None], bool]] = field(default_factory=list)
    heroes: list[str] = field(default_factory=list)

    def dealt_to(self, player: str, cards: list[int | None]) -> None:
        """The cards dealt to ``player``, the recording player (the hero)."""
        self.sightings.append((player, cards, True))

    def shown_by(self, player: str, cards: list[int | None]) -> None:
        """Cards ``player`` showed, or mucked face up."""
        self.sightings.append((player, cards, False))


def minor_units(text: str | None, scale: int, what: str) -> int:
    """A printed amount (``$1,000.50``, ``€0.05``, ``1500.00``) in minor units, exactly.

    Raises `HandProblem` for an unreadable or negative amount, or one finer than the unit
    (``10.50`` tournament chips), so the hand is quarantined instead of rounded.
    """
    if text is None:
        raise HandProblem(f"missing amount ({what})")
    whole, _, fraction = text.partition(".")
    if (
        whole.isdigit()
        and (fraction.isdigit() or not fraction)
        and len(text) <= 40
        and text.isascii()
    ):
        # Plain ASCII digits with at most one point, as nearly every amount is printed: the
        # integer path below without cleaning or matching (the text is its own cleaned form).
        unit: int = 10 ** len(fraction)
        minor, left = divmod(int(whole + fraction) * scale, unit)
        if not left and minor < MAX_MINOR_UNITS:
            return minor
    cleaned = text.strip().lstrip("$€£").replace(",", "").strip()
    plain = _PLAIN_AMOUNT.fullmatch(cleaned) if len(cleaned) <= 40 else None
    if plain is not None:
        # The common case in integers (Decimal costs a few microseconds an amount); anything
        # else, out of range or finer than the unit, takes the Decimal path and its verdict.
        whole, fraction = plain[1], plain[2] or ""
        value, remainder = divmod(int(whole + fraction) * scale, 10 ** len(fraction))
        if not remainder and value < MAX_MINOR_UNITS:
            return value
    if len(cleaned) > 40:
        raise HandProblem(f"unreadable amount {text[:40]!r} ({what})")
    try:
        value = Decimal(cleaned) * scale
    except InvalidOperation:
        raise HandProblem(f"unreadable amount {text[:40]!r} ({what})") from None
    if not value.is_finite() or value < 0 or value != value.to_integral_value():
        raise HandProblem(f"unreadable amount {text[:40]!r} ({what})")
    if value >= MAX_MINOR_UNITS:
        raise HandProblem(f"amount out of range {text[:40]!r} ({what})")
    return int(value)


def small_number(text: str | None, digits: int = 4) -> int | None:
    """A plain decimal number of at most ``digits`` ASCII digits (a seat, pot or action
    number, an epoch), else None: ``int()`` alone would take ``²`` or ten thousand digits."""
    if text is None:
        return None
    stripped = text.strip()
    # str.isdigit alone would take "²": ASCII only, as the pattern [0-9]{1,digits}.
    if not (0 < len(stripped) <= digits and stripped.isascii() and stripped.isdigit()):
        return None
    return int(text)


def card(rank: str, suit: str) -> int | None:
    """Card code of a rank (``2``..``9``, ``10`` or ``T``, ``J``, ``Q``, ``K``, ``A``) and a
    suit letter (any case); None when unreadable."""
    if len(suit) == 1 and (code := CARD_CODES.get(rank + suit)) is not None:
        return code  # already canonical ("Th"), as most sites print them
    rank = rank.strip().upper()
    rank = "T" if rank == "10" else rank
    return CARD_CODES.get(rank + suit.strip().lower())


def read_element(text: str, tag: str) -> Element:
    """A hand's text read safely as one ``<tag>`` element (`parsers.engine.xml_safe`)."""
    root = read_document(text, f"{tag} element")
    if root.tag != tag:
        raise HandProblem(f"unexpected root element <{root.tag[:40]}>")
    return root


def seat_row(seat: int, player: str, stack_start: int, sitting_out: bool = False) -> dict[str, Any]:
    """A `HandRecord.seats` row."""
    return {"seat": seat, "player": player, "stack_start": stack_start, "sitting_out": sitting_out}


def collection_row(
    player: str, amount: int, pot_index: int | None = None, half: str | None = None
) -> dict[str, Any]:
    """A `HandRecord.collections` row (``pot_index`` and ``half`` None where not printed)."""
    return {"player": player, "amount": amount, "pot_index": pot_index, "half": half}


def all_in_row(row: dict[str, Any], amount: int) -> dict[str, Any]:
    """An all-in of ``amount`` chips added, whose kind (bet, call, raise) the shared
    assembly settles from its effect; ``row`` holds its street and player."""
    return {**row, "kind": "call", "amount": amount, "is_all_in": True, "all_in_undecided": True}


def check_board(board: list[int | None]) -> None:
    """Quarantine a hand whose board is not three to five readable cards (none is fine)."""
    if board and (any(code is None for code in board) or len(board) not in (3, 4, 5)):
        raise HandProblem("unreadable board")


def largest_posts(actions: list[dict[str, Any]]) -> dict[str, int | None]:
    """The largest small blind, big blind and ante posted (None where nobody posted one)."""
    largest: dict[str, int | None] = {"post_sb": None, "post_bb": None, "ante": None}
    for row in actions:  # one pass: this runs for every hand
        kind = row["kind"]
        if kind in largest:
            amount = row["amount"]
            best = largest[kind]
            if best is None or amount > best:
                largest[kind] = amount
    return largest


def paired_stakes(
    stakes: list[str], limit_type: str, scale: int, actions: list[dict[str, Any]]
) -> dict[str, int | None]:
    """The blind, bet and ante columns of a hand from a printed pair of stakes (``0.05/0.10``
    split into two; anything else is no stakes) and its posts.

    The pair is the blinds, or in fixed limit the bets (no Omaha Hi/Lo fixed-limit sample
    confirms it), the blinds then being the largest posted; the ante is the largest posted.
    """
    small = big = None
    if len(stakes) == 2:
        small = minor_units(stakes[0], scale, "stakes")
        big = minor_units(stakes[1], scale, "stakes")
    posted = largest_posts(actions)
    fixed = limit_type == "FL"
    return {
        "small_blind": posted["post_sb"] if fixed else small,
        "big_blind": posted["post_bb"] if fixed else big,
        "small_bet": small if fixed else None,
        "big_bet": big if fixed else None,
        "ante": posted["ante"],
    }


_LIVE_KINDS = frozenset(("post_sb", "post_bb", "call", "bet", "raise"))
_DEAD_KINDS = frozenset(("post_dead", "ante"))  # dead blinds and antes never match a bet


def unmatched_top(record: HandRecord, pot: int) -> tuple[str, int] | None:
    """The player and chips of an uncalled bet a site hands back without a word, from the pot
    it printed: whatever the actions put in beyond ``pot`` can only be the unmatched top of the
    largest live contribution; None when there is no such excess or it does not fit there (a
    difference the audit's chip-conservation check then reports)."""
    put_in = 0
    live: dict[str, int] = {}
    for row in record.actions:
        kind = row["kind"]
        if kind in _LIVE_KINDS:
            put_in += row["amount"]
            live[row["player"]] = live.get(row["player"], 0) + row["amount"]
        elif kind in _DEAD_KINDS:
            put_in += row["amount"]
    excess = put_in - pot
    if excess <= 0 or not live:
        return None
    ranked = sorted(live.items(), key=lambda item: item[1], reverse=True)
    player, largest = ranked[0]
    second = ranked[1][1] if len(ranked) > 1 else 0
    return (player, excess) if excess <= largest - second else None


def json_depth(value: Any, most: int) -> int:
    """Nesting depth of a decoded JSON value (a value inside a list or object is one level
    deeper), level by level without recursion (a hostile document must not exhaust the
    stack); stops counting past ``most``."""
    deepest, level = 1, [value]
    while deepest <= most:
        below: list[Any] = []
        for item in level:
            if type(item) is dict:
                below.extend(item.values())
            elif type(item) is list:
                below.extend(item)
        if not below:
            break
        level = below
        deepest += 1
    return deepest


def drop_winner_mucks(record: HandRecord) -> None:
    """A winner's muck is a hand not shown, not a hand given up: drop its ``muck`` row."""
    winners = {row["player"] for row in record.collections}
    record.actions = [
        row for row in record.actions if not (row["kind"] == "muck" and row["player"] in winners)
    ]


@dataclass
class _Found:
    """What one parse found, in file order: a piece of text per entry (a hand, or text outside
    the hands that is not known wrapper text), its header and the verdicts."""

    pieces: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, Any]] = field(default_factory=list)
    reasons: list[dict[str, Any]] = field(default_factory=list)
    records: dict[int, HandRecord] = field(default_factory=dict)

    def add(self, text: str, offset: int, hand_id: str | None) -> int:
        hand = len(self.headers)
        self.pieces.append({"line": text, "offset": offset, "hand": hand, "is_start": True})
        self.headers.append(
            {"hand": hand, "hand_id": hand_id, "header_ok": True, "is_o8": True, "game": None}
        )
        return hand


class XmlHandParser:
    """The `SiteParser` for a format with one structured element per hand.

    A site's subclass names ``site``, ``profile``, ``start_tag`` (a hand's opening tag),
    ``hand_end`` (its closing tag), ``sniff_pattern`` and implements `read_hand`, plus
    `outside_line` for the text between hands. A line holding an opening tag starts a hand
    (ingest cuts files into blocks there too); a second tag on the same line does not.
    """

    site: ClassVar[str]
    profile: ClassVar[SiteProfile]
    start_tag: ClassVar[re.Pattern[str]]  # the opening tag of a hand, found anywhere in a line
    hand_end: ClassVar[str]
    # Whether a hand's closing tag may open the next line (iPoker): see `_read_piece`.
    closing_tag_may_follow: ClassVar[bool] = False
    sniff_pattern: ClassVar[Any]  # re.Pattern[str]
    # The hand id in a hand's first characters (group 1), for the reject row of an unreadable
    # hand; None: not guessed.
    hand_id_pattern: ClassVar[re.Pattern[str] | None] = None

    def __init__(self) -> None:
        self._contexts: dict[str, dict[str, Any]] = {}

    # -- the SiteParser protocol -------------------------------------------------------------

    def sniff(self, head: str) -> bool:
        return may_find(self.sniff_pattern, head) and self.sniff_pattern.search(head) is not None

    def hand_starts(self, lines: pl.Series) -> np.ndarray:
        """Lines holding a hand's opening tag (anywhere: iPoker writes ``</game><game …>``)."""
        return lines.str.contains(self.start_tag.pattern).fill_null(False).to_numpy()

    def parse(self, lines: pl.Series, offsets: np.ndarray, source_file: str) -> ParseResult:
        with collector_paused():
            return self._parse(lines, offsets, source_file)

    def _parse(self, lines: pl.Series, offsets: np.ndarray, source_file: str) -> ParseResult:
        texts: list[str] = lines.to_list()
        rows = [int(row) for row in np.flatnonzero(self.hand_starts(lines))]
        # A hand starts at the first opening tag of its line; what precedes the tag on that
        # line (iPoker's ``</game>`` of the hand before) ends the text before it.
        columns = [self._tag_column(texts[row]) for row in rows]
        context = self._context_for(source_file)
        found = _Found()

        preamble = "\n".join(texts[: rows[0]] if rows else texts)
        if rows and columns[0]:
            preamble += "\n" + texts[rows[0]][: columns[0]]
        if context.pop("closed_early", False) and self.closing_tag_may_follow:
            preamble = preamble.lstrip().removeprefix(self.hand_end)
        self._outside(preamble, int(offsets[0]) if texts else 0, context, found)

        for index, (row, column) in enumerate(zip(rows, columns, strict=True)):
            following = rows[index + 1] if index + 1 < len(rows) else len(texts)
            parts = [texts[row][column:], *texts[row + 1 : following]]
            if following < len(texts) and columns[index + 1]:
                parts.append(texts[following][: columns[index + 1]])
            piece = "\n".join(parts)
            last = index + 1 == len(rows)
            self._read_piece(piece, int(offsets[row]), last, context, found)
        self._contexts[source_file] = context
        if len(self._contexts) > _CONTEXTS_KEPT:
            self._contexts.pop(next(iter(self._contexts)))

        for entry in found.pieces:  # text too large to be a hand keeps only its beginning
            if len(entry["line"]) > MAX_DOCUMENT_CHARS:
                entry["line"] = entry["line"][:_REJECT_TEXT_CHARS]
        frame = pl.DataFrame(
            {
                name: [entry[name] for entry in found.pieces]
                for name in ("line", "offset", "hand", "is_start")
            },
            schema={
                "line": pl.String,
                "offset": pl.Int64,
                "hand": pl.Int32,
                "is_start": pl.Boolean,
            },
        ).with_row_index("line_no")
        tables = self._tables(frame, source_file, found.headers, found.records, found.reasons)
        return finish(tables)

    def _tag_column(self, line: str) -> int:
        found = self.start_tag.search(line)
        return found.start() if found else 0

    def _read_piece(
        self, piece: str, offset: int, last: bool, context: dict[str, Any], found: _Found
    ) -> None:
        """Decode one hand's text into ``found`` (a record, a skipped game or a reason)."""
        hand = found.add(piece, offset, self._hand_id_guess(piece[:400]))
        hand_context = dict(context)  # the text after the hand speaks for the hands after it
        try:
            if len(piece) > MAX_DOCUMENT_CHARS:
                raise HandProblem(
                    f"unsafe XML: hand element of {len(piece):,} characters exceeds the"
                    f" {MAX_DOCUMENT_CHARS:,}-character limit"
                )
            if (
                last
                and self.closing_tag_may_follow
                and self.hand_end not in piece
                and piece.rstrip().endswith("</round>")
            ):
                # The block was cut on a ``</game><game …>`` line: this hand's closing tag
                # opens the next block, which drops it (``closed_early``).
                element, rest = piece.rstrip() + self.hand_end, ""
                context["closed_early"] = True
            else:
                element, rest = self.split_element(piece)
            unknown = self.outside_text(rest, context) if rest.strip() else None
            if unknown is not None:
                raise HandProblem("unrecognised text after the hand: " + unknown.strip()[:120])
            record = self.read_hand(element, hand_context)
        except SkippedGame as skipped:
            found.headers[-1].update(is_o8=False, game=skipped.game)
            return
        except (HandProblem, XmlRefused) as problem:
            found.reasons.append({"hand": hand, "reason": str(problem)})
            return
        found.headers[-1]["hand_id"] = record.hand_id
        found.records[hand] = record

    def _outside(self, text: str, offset: int, context: dict[str, Any], found: _Found) -> None:
        """Read the text before the first hand; unknown text is one rejected entry."""
        if not text.strip():
            return
        unknown = self.outside_text(text, context)
        if unknown is None:
            return
        if re.search(r"<!(?:DOCTYPE|ENTITY)", text):
            reason = "unsafe XML: DTD or entity declaration refused"
        else:
            reason = "text before the first hand: " + unknown.strip()[:120]
        hand = found.add(text, offset, None)
        found.reasons.append({"hand": hand, "reason": reason})

    # -- what a site implements --------------------------------------------------------------

    def read_hand(self, text: str, context: dict[str, Any]) -> HandRecord:
        """Decode one hand's text; raise `HandProblem` or `SkippedGame` when it is not kept."""
        raise NotImplementedError

    def split_element(self, piece: str) -> tuple[str, str]:
        """A hand's text (from its opening tag to the next hand's) as (element, the text after
        its closing tag)."""
        close = piece.find(self.hand_end)
        if close < 0:
            raise HandProblem(f"truncated hand: no {self.hand_end}")
        close += len(self.hand_end)
        return piece[:close], piece[close:]

    def outside_line(self, line: str, context: dict[str, Any]) -> bool:
        """Whether a line outside the hands is known wrapper text (updating ``context`` when
        it carries information for the hands after it). Blank lines are always known."""
        return False

    def outside_text(self, text: str, context: dict[str, Any]) -> str | None:
        """Read text outside the hands line by line (see `outside_line`); return the first
        unknown line, or None. Sites whose context spans several lines override this."""
        unknown = None
        for line in text.split("\n"):  # every line: known context may follow unknown text
            if line.strip() and not self.outside_line(line, context) and unknown is None:
                unknown = line
        return unknown

    # -- internals ---------------------------------------------------------------------------

    def _context_for(self, source_file: str) -> dict[str, Any]:
        return dict(self._contexts.get(source_file, {}))

    def _hand_id_guess(self, first_line: str) -> str | None:
        if self.hand_id_pattern is None:
            return None
        found = self.hand_id_pattern.search(first_line)
        return found[1] if found else None

    def _tables(
        self,
        frame: pl.DataFrame,
        source_file: str,
        headers: list[dict[str, Any]],
        records: dict[int, HandRecord],
        reasons: list[dict[str, Any]],
    ) -> HandTables:
        # Each table is built once per block from plain lists, one per column, gathered in one
        # pass over the records (a dict per row costs more than the polars frame itself).
        first_offsets = dict(frame.filter(pl.col("is_start")).select("hand", "offset").iter_rows())
        numbers = list(records)
        hand_schema = {"hand": pl.Int32, **_schema("hands")}
        fixed = {
            "hand": numbers,
            "hand_id": [record.hand_id for record in records.values()],
            "source_file": [source_file] * len(numbers),
            "source_offset": [first_offsets[hand] for hand in numbers],
        }
        hands = _frame(
            {
                name: fixed[name]
                if name in fixed
                else [record.hand.get(name) for record in records.values()]
                for name in hand_schema
            },
            hand_schema,
        )
        seat_columns = _rows_by_column(
            records, "seats", ("seat", "player", "stack_start", "sitting_out")
        )
        seats = _frame(
            seat_columns,
            {
                "hand": pl.Int32,
                "seat": pl.Int16,
                "player": pl.String,
                "stack_start": pl.Int64,
                "sitting_out": pl.Boolean,
            },
        )
        sighting_hands: list[int] = []
        sighting_numbers: list[int] = []
        sighting_players: list[str] = []
        sighting_cards: list[list[int | None]] = []
        sighting_dealt: list[bool] = []
        for hand, record in records.items():
            for number, (player, cards, dealt) in enumerate(record.sightings):
                sighting_hands.append(hand)
                sighting_numbers.append(number)
                sighting_players.append(player)
                sighting_cards.append(cards)
                sighting_dealt.append(dealt)
        sightings = _frame(
            {
                "hand": sighting_hands,
                "line_no": sighting_numbers,
                "player": sighting_players,
                "cards": sighting_cards,
                "dealt": sighting_dealt,
            },
            {
                "hand": pl.Int32,
                "line_no": pl.Int64,
                "player": pl.String,
                "cards": pl.List(pl.UInt8),
                "dealt": pl.Boolean,
            },
        )
        hero_hands = [hand for hand, record in records.items() for _ in record.heroes]
        heroes = _frame(
            {
                "hand": hero_hands,
                "player": [player for record in records.values() for player in record.heroes],
            },
            {"hand": pl.Int32, "player": pl.String},
        )
        seats = attach_hole_cards(seats, sightings, heroes)
        actions = self._actions(records)
        collection_columns = _rows_by_column(
            records, "collections", ("player", "amount", "pot_index", "half"), {"board_index": 0}
        )
        collections = _frame(
            collection_columns,
            {
                "hand": pl.Int32,
                "seq": pl.Int32,
                "player": pl.String,
                "amount": pl.Int64,
                "pot_index": pl.Int8,
                "half": pl.String,
                "board_index": pl.Int8,
            },
        )
        showdown_columns = _rows_by_column(
            records,
            "showdowns",
            ("player", "cards"),
            {"board_index": 0, "high_desc": None, "low_desc": None},
        )
        showdown_columns["line_no"] = showdown_columns.pop("seq")
        showdowns = _frame(
            showdown_columns,
            {
                "hand": pl.Int32,
                "line_no": pl.Int64,
                "player": pl.String,
                "cards": pl.List(pl.UInt8),
                "high_desc": pl.String,
                "low_desc": pl.String,
                "board_index": pl.Int8,
            },
        )
        header_frame = _frame(
            {
                name: [row[name] for row in headers]
                for name in ("hand", "hand_id", "header_ok", "is_o8", "game")
            },
            {
                "hand": pl.Int32,
                "hand_id": pl.String,
                "header_ok": pl.Boolean,
                "is_o8": pl.Boolean,
                "game": pl.String,
            },
        )
        reason_frame = _frame(
            {name: [row[name] for row in reasons] for name in ("hand", "reason")},
            {"hand": pl.Int32, "reason": pl.String},
        )
        return HandTables(
            site=self.site,
            source_file=source_file,
            frame=frame,
            headers=header_frame,
            hands=hands,
            seats=seats,
            actions=actions,
            collections=collections,
            showdowns=showdowns,
            reasons=[reason_frame],
        )

    @staticmethod
    def _actions(records: dict[int, HandRecord]) -> pl.DataFrame:
        columns = _rows_by_column(
            records,
            "actions",
            ("street", "player", "kind"),
            {"amount": None, "to": None, "is_all_in": False, "all_in_undecided": False},
        )
        frame = _frame(
            columns,
            {
                "hand": pl.Int32,
                "seq": pl.Int32,
                "street": pl.Int8,
                "player": pl.String,
                "kind": pl.String,
                "amount": pl.Int64,
                "to": pl.Int64,
                "is_all_in": pl.Boolean,
                "all_in_undecided": pl.Boolean,
            },
        ).sort("hand", "seq")
        return settle_all_in_kinds(street_amounts(frame), pl.col("all_in_undecided"))


def _rows_by_column(
    records: dict[int, HandRecord],
    table: str,
    required: tuple[str, ...],
    defaults: dict[str, Any] | None = None,
) -> dict[str, list[Any]]:
    """The ``table`` rows (`HandRecord` dicts) of every record as lists per column, with
    ``hand`` and ``seq`` (the row's number within its hand); a column of ``defaults`` takes
    its default where a row lacks it, one of ``required`` is null there."""
    defaults = defaults or {}
    hands: list[int] = []
    sequence: list[int] = []
    rows: list[dict[str, Any]] = []
    for hand, record in records.items():
        table_rows: list[dict[str, Any]] = getattr(record, table)
        hands.extend([hand] * len(table_rows))
        sequence.extend(range(len(table_rows)))
        rows.extend(table_rows)
    columns: dict[str, list[Any]] = {"hand": hands, "seq": sequence}
    for name in required:
        columns[name] = [row.get(name) for row in rows]
    for name, default in defaults.items():
        columns[name] = [row.get(name, default) for row in rows]
    return columns


def _frame(columns: dict[str, list[Any]], schema: dict[str, Any]) -> pl.DataFrame:
    """A frame of ``schema`` from one list per column (a missing column is all null)."""
    height = len(next(iter(columns.values()))) if columns else 0
    if not height:
        return pl.DataFrame(schema=schema)
    series = []
    for name, dtype in schema.items():
        values = columns.get(name)
        if values is None:
            values = [None] * height
        if dtype == pl.List(pl.UInt8):
            # Card lists through Arrow: polars converts a list of lists one inner list at a time.
            series.append(pl.Series(name, pa.array(values, type=pa.list_(pa.uint8()))))
        else:
            series.append(pl.Series(name, values, dtype=dtype))
    return pl.DataFrame(series)


@functools.cache
def _schema(table: str) -> dict[str, pl.DataType]:
    empty = pl.from_arrow(HAND_TABLES[table].empty_table())
    assert isinstance(empty, pl.DataFrame)
    return dict(empty.schema)
