"""PokerNow (pokernow.club) CSV logs of home games, Omaha Hi/Lo.

PokerNow exports a whole session of a table as one CSV log: the header ``entry,at,order``,
then one row per log entry, newest entry first. ``at`` is the entry's UTC time (ISO,
``2022-07-09T02:58:27.297Z``) and ``order`` an integer stamp that sorts the entries; ``entry``
is the text, quoted as CSV quotes it (``""`` for a quote). Each line is read by the csv module
(real logs hold one row per line). A line it refuses (a quote left open) is a malformed row and
quarantines the hand it stands in; a line that reads but is not the three fields with a numeric
stamp is no row of the log: an unknown line, judged whole (see below). A hand's rows are read in
time order, by their stamps (a line without one right after the row below it in the file).

What a log prints, and so what this parser records:

- A hand opens with ``-- starting hand #182  (Pot Limit Omaha Hi/Lo 8 or Better) (dealer:
  "name @ id") --`` (newer logs add ``(id: 0slnqggy3qan)`` after the number; ``(dead button)``
  instead of a dealer) and closes with ``-- ending hand #182 --``. A session is dealer's choice:
  only ``Pot Limit`` (or ``No Limit``) ``Omaha Hi/Lo 8 or Better`` is read, every other game is
  counted as skipped under its printed name. The dealer's seat is the button (null for a dead
  button or a dealer not in the hand).
- ``Player stacks: #3 "name @ id" (65.11) | …`` gives the seats and stacks of the players
  dealt in. A player is ``"name @ id"``: the id is PokerNow's player id, which stays when a
  player renames, so it is ``seats.player`` (and every ``player`` column). The canonical seats
  have no column for a display name, so the printed name is not stored.
- Posts: ``posts a small blind of``, ``posts a big blind of``, ``posts a missed big blind of``
  and ``posts a straddle of`` are live (``post_sb``, ``post_bb``; a straddle is a third live
  blind, a ``post_bb`` as other sites record it), ``posts a missing small blind of`` is dead
  (``post_dead``), ``posts an ante of`` an ``ante``. Stakes are the hand's own posts (blinds
  change mid-session): the largest small blind posted (else the largest missing small blind),
  the largest big blind posted (else the largest missed one; a straddle is no big blind).
- ``bets``, ``calls`` and ``raises to`` print the player's street total (``calls 0.85`` from a
  0.10 small blind adds 0.75); ``… and go all in`` marks an all-in. ``Uncalled bet of 4.20
  returned to "…"`` is an ``uncalled_return``.
- Boards: ``Flop:  [A♦, 6♥, 7♦]``, ``Turn: A♦, 6♥, 7♦ [3♠]``, ``River: … [K♥]`` (ranks print
  ``10``; the cards before the bracket must be the board so far). A pot run twice prints
  ``Flop (second run)``, ``Turn (second run)``, ``River (second run)``: ``hands.board2`` is the
  second run's five cards (the first run's on the streets it did not deal again), as the engine
  keeps a second board for every site.
- ``collected 15.75 from pot with low hand with seven high (combination: A♠, 2♦, 3♠, 5♠, 7♦)``
  and ``with hi hand with flush ace high (combination: …)`` are the halves (``half`` low /
  high); older logs print ``with Two Pair (combination: …)`` and uncontested pots ``collected
  4.20 from pot``: ``half`` null there. One line per half per pot, the pots not named
  (``pot_index`` null). ``… on the second run`` marks the second board's collections
  (``board_index`` 1). The description without its half label or run mark, combination
  included (``flush ace high (combination: A♠, K♠, 9♠, 5♠, 2♠)``), is the collector's
  ``showdowns.high_desc`` or ``low_desc`` (an unlabelled one is ``high_desc``); in a pot run
  twice each shown hand has one showdown row per board.
- ``"x @ y" shows a 3♦, 9♣, 2♦, A♠.`` is a show (players often show after the hand has ended;
  such a late show is a show of that hand). No rake is taken or printed (``hands.rake`` and
  ``total_pot`` null); amounts are play chips with cents (``currency`` PLAY, ``money_scale``
  100), times UTC as printed.

The hero. ``Your hand is 4♦, 9♣, 9♥, 5♥`` gives the exporting player's cards without naming
the player. The hero of a block of hands is the one player who remains when the players dealt
into every hand that has such a line are taken, less those whose own ``shows`` differs from
that hand's ``Your hand is`` cards (every line of every game counts). The exporter is dealt into
each of those hands, so a single player left is certainly the exporter: the hero's seat gets
``is_hero`` and the cards. When more than one is left (or none: an account that changed its id
mid-log) nobody is guessed: the line is kept in ``notes`` (kind
``hole_cards_of_unknown_player``). The evidence is the parsed block's: ingest's 8 MiB blocks
hold thousands of hands, and a block too small to single out one player loses the hero (the
cards go to notes), never names another.

Lines that are not a hand's. A session log also prints table administration: seat requests
and approvals, players joining, standing up, sitting back and quitting (with their stacks),
stack changes by the admin, blind and ante changes, room ownership, id changes, ``WARNING:``
and ``IMPORTANT:`` notices. Printed between two hands they are the session's, not a hand's, and
are not stored: what they change shows in the next hand's own lines (its ``Player stacks``,
its posts), and hanging them on a neighbouring hand would misplace them. Printed while a hand
runs they are kept as that hand's notes (kind ``table_admin``), in the hand's line order.
Other known lines of a hand without a table of their own are notes too: the run-it-twice
choices (``run_it_twice_choice``), ``Dead Small Blind`` (``dead_small_blind``) and ``Undealt
cards: …`` (``undealt_cards``, printed after the hand ended; it carries cards but is the
site's known line, so it does not quarantine the hand). Any other line of a hand (after its
ending line too) is unknown: a note when it carries no money or cards, else the hand is
quarantined (`parsers.notes`). Notes are numbered as the engine numbers a hand's lines, from
the hand's first line in the file (newest first: the starting row is the hand's last line).

Hand identity. Newer logs print a hand id (``(id: 0slnqggy3qan)``), which is the ``hand_id``.
Older ones print only the hand number, which restarts in every game, and their rows do not carry
the game's id (only the file name does, and files get renamed): their ``hand_id`` is
``<hand number>-<order stamp of the hand's first row>``, which the same log exported twice or
renamed keeps, and two games give the same only if two hands of the same number started in the
same stamp.

Blocks. Rows are newest first, so in the file a hand's lines run from the line after the newer
hand's starting row (the rows printed between the two hands and after this one ended come first)
down to its own ``-- starting hand`` row. That first line is where the hand starts for cutting a
file into blocks (`PokerNowParser.hand_starts`; the first line of a block opens its first hand):
a block then holds whole hands, each with the rows printed after it, and a hand's
``source_offset`` and a reject's raw text are its lines from that first one, as the file holds
them. The lines after the last starting row of a whole log are older than its first hand: the
session's opening administration, not stored; any other row there is rejected (one entry,
"rows older than the first hand that are not the session's"). In a block they are the first
rows of a hand not yet whole, which `hand_starts` leaves to the next block.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, ClassVar

import numpy as np
import polars as pl

from parsers.base import ParseResult
from parsers.engine.assembly import finish
from parsers.engine.structured import (
    HandProblem,
    HandRecord,
    XmlHandParser,
    card,
    collection_row,
    collector_paused,
    minor_units,
    seat_row,
)
from pipeline.profiles import SiteProfile
from pipeline.schema import NOTES

__all__ = ["NOTE_KINDS", "SITE", "PokerNowParser", "hand_id_of"]

SITE = "pokernow"
SCALE = 100  # play chips printed with cents
CURRENCY = "PLAY"

# The kinds of the notes this parser keeps besides the engine's "unrecognised" lines.
NOTE_TABLE_ADMIN = "table_admin"
NOTE_RUN_IT_TWICE = "run_it_twice_choice"
NOTE_DEAD_SMALL_BLIND = "dead_small_blind"
NOTE_UNDEALT_CARDS = "undealt_cards"
NOTE_UNATTRIBUTED_HOLE_CARDS = "hole_cards_of_unknown_player"
NOTE_KINDS = (
    NOTE_TABLE_ADMIN,
    NOTE_RUN_IT_TWICE,
    NOTE_DEAD_SMALL_BLIND,
    NOTE_UNDEALT_CARDS,
    NOTE_UNATTRIBUTED_HOLE_CARDS,
)

CSV_HEADER = "entry,at,order"
# A starting row as the file holds it (the entry quoted): what `hand_starts` looks for.
START_ROW_TEXT = '"-- starting hand #'

_FIRST_ROW = re.compile(r'^".*",\d{4}-\d{2}-\d{2}T[0-9:.]+Z,[0-9]+$')

HEADER = re.compile(
    r"^-- starting hand #(?P<number>[0-9]+)(?: \(id: (?P<id>[\w-]+)\))?\s+\((?P<game>.+?)\)"
    r' \((?:dealer: "(?P<dealer>.*)"|(?P<dead>dead button))\) --$'
)
O8_GAME = re.compile(r"^(?P<limit>Pot Limit|No Limit) Omaha Hi/Lo 8 or Better$")
LIMITS = {"Pot Limit": "PL", "No Limit": "NL"}
END = re.compile(r"^-- ending hand #(?P<number>[0-9]+) --$")

# A player as printed, "name @ id": the id is the last " @ " part (names may hold " @ ").
PLAYER = r'"(?P<name>.*?) @ (?P<player>[\w-]+)"'
_PLAYER_ID = re.compile(r'^(?P<name>.*) @ (?P<player>[\w-]+)$')
ACTOR = re.compile(rf"^{PLAYER} (?P<rest>.+)$")
STACKS = re.compile(r"^Player stacks: (?P<seats>.+)$")
STACK_ITEM = re.compile(rf"#(?P<seat>[0-9]{{1,2}}) {PLAYER} \((?P<stack>[^()]*)\)")
YOUR_HAND = re.compile(r"^Your hand is (?P<cards>.+)$")
UNCALLED = re.compile(rf"^Uncalled bet of (?P<amount>\S+) returned to {PLAYER}$")
FLOP = re.compile(r"^Flop(?P<second> \(second run\))?: +\[(?P<cards>[^\]]*)\]$")
LATER_STREET = re.compile(
    r"^(?P<street>Turn|River)(?P<second> \(second run\))?: (?P<before>[^\[\]]*?) *"
    r"\[(?P<card>[^\]]*)\]$"
)
UNDEALT = re.compile(r"^Undealt cards: ")

# What follows a player's quoted name.
POST = re.compile(
    r"^posts (?:a (?P<blind>small blind|big blind|missing small blind|missed big blind|straddle)"
    r"|(?P<ante>an ante)) of (?P<amount>\S+?)(?P<all_in> and go all in)?$"
)
BET = re.compile(r"^(?P<verb>bets|calls|raises to) (?P<amount>\S+?)(?P<all_in> and go all in)?$")
SHOWS = re.compile(r"^shows a (?P<cards>.+)\.$")
COLLECTED = re.compile(r"^collected (?P<amount>\S+) from pot(?: with (?P<desc>.+))?$")
CHOOSES = re.compile(r"^chooses to +(?:not )?run it twice\.$")
POST_KINDS = {
    "small blind": "post_sb",
    "big blind": "post_bb",
    "missed big blind": "post_bb",  # posted live: the player then checks a bet of one blind
    "straddle": "post_bb",
    "missing small blind": "post_dead",
}
BET_KINDS = {"bets": "bet", "calls": "call", "raises to": "raise"}
SECOND_RUN = " on the second run"
HALVES = (("hi hand with ", "high"), ("low hand with ", "low"))
COMBINATION = re.compile(r"\(combination: (?P<cards>[^()]*)\)$")

RUN_IT_TWICE_LINES = re.compile(
    r"^(?:Remaining players decide whether to run it twice\."
    r"|All players in hand choose to run it twice\."
    r"|Some players choose to not run it twice\.)$"
)
DEAD_SMALL_BLIND = "Dead Small Blind"
# Table administration, which PokerNow prints between and during hands (see the docstring).
TABLE_ADMIN = re.compile(
    "^(?:"
    + "|".join(
        (
            rf"The player {PLAYER} (?:requested a seat|canceled the seat request)\.",
            rf"The player {PLAYER} (?:joined the game|quits the game) with a stack of \S+\.",
            rf"The player {PLAYER} (?:stand up|sit back) with the stack of \S+\.",
            rf"The player {PLAYER} passed the room ownership to {PLAYER}\.",
            rf"The player {PLAYER} changed the ID from \S+ to \S+ because authenticated login\.",
            rf"The admin approved the player {PLAYER} participation with a stack of \S+\.",
            rf"The admin updated the player {PLAYER} stack from \S+ to \S+\.",
            rf"The admin {PLAYER} (?:enqueued the removal of the player {PLAYER}"
            rf"|rejected the seat request from the player {PLAYER}"
            rf"|forced the player {PLAYER} to away mode in the next hand"
            r"|enqueued the game stop on next hand)\.",
            r"The game's (?:small blind|big blind|ante) was changed from \S+ to \S+\.",
            r"WARNING: .*",
            r"IMPORTANT: .*",
        )
    ).replace("(?P<name>", "(?:").replace("(?P<player>", "(?:")
    + ")$"
)

SUIT_LETTERS = {"♠": "s", "♥": "h", "♦": "d", "♣": "c"}
CARD_TOKEN = re.compile(r"^(10|[2-9TJQKA])([♠♥♦♣])\ufe0f?$")
PREFLOP, FLOP_STREET, TURN_STREET, RIVER_STREET = 0, 1, 2, 3
_ORDER_DIGITS = 20  # an order stamp is a number of microseconds and a counter: 15-17 digits


def hand_id_of(number: str, printed_id: str | None, first_order: int) -> str:
    """The ``hand_id`` of a hand: the id PokerNow prints, else ``<number>-<first row's stamp>``.

    >>> hand_id_of("7", "0slnqggy3qan", 165733550729700), hand_id_of("2", None, 165733550729700)
    ('0slnqggy3qan', '2-165733550729700')
    """
    return printed_id if printed_id else f"{number}-{first_order}"


@dataclass
class _Row:
    """One line of the log: its place in the block and its fields. ``entry`` is None for a
    line the CSV reader refuses (quoting left open); a line that reads as CSV but not as the
    three fields ``entry,at,order`` with a numeric stamp has no ``order`` and is kept whole as
    its ``entry``: a line no form knows."""

    index: int
    offset: int
    raw: str
    entry: str | None = None
    at: str | None = None
    order: int | None = None


def _read_row(index: int, offset: int, raw: str) -> _Row:
    row = _Row(index, offset, raw)
    try:
        fields = next(csv.reader([raw], strict=True), None)
    except csv.Error:
        return row
    row.entry = raw
    if fields is None or len(fields) != 3:
        return row
    entry, at, order = fields
    if not (0 < len(order) <= _ORDER_DIGITS and order.isascii() and order.isdigit()):
        return row
    row.entry, row.at, row.order = entry, at, int(order)
    return row


def _is_session_line(row: _Row) -> bool:
    """A stamped row of the session's table administration."""
    return row.order is not None and TABLE_ADMIN.match(row.entry or "") is not None


def _belongs_to_no_hand(line: str | None) -> bool:
    """A blank line, the log's header or a row of the session's administration."""
    if line is None or not line.strip() or _is_csv_header(line):
        return True
    return line.startswith('"') and _is_session_line(_read_row(0, 0, line))


@dataclass
class _Evidence:
    """What a hand says about the hero: the players dealt in (None: unreadable), the cards of
    its ``Your hand is`` line (None: no such line) and each player's shown cards."""

    seated: frozenset[str] | None
    hero_cards: frozenset[int | None] | None
    shown: dict[str, frozenset[int | None]]


def _hero(evidence: Iterable[_Evidence]) -> str | None:
    """The one player dealt into every hand with a ``Your hand is`` line whose own shows never
    differ from those cards; None when not exactly one is left (see the module docstring)."""
    left: set[str] | None = None
    contradicted: set[str] = set()
    for hand in evidence:
        if hand.hero_cards is None or hand.seated is None:
            continue
        left = set(hand.seated) if left is None else left & hand.seated
        contradicted.update(
            player for player, cards in hand.shown.items() if cards != hand.hero_cards
        )
    if left is None:
        return None
    left -= contradicted
    return next(iter(left)) if len(left) == 1 else None


def _cards(text: str) -> list[int | None]:
    """``"4♦, 9♣, 10♥"`` → card codes (None for an unreadable card)."""
    codes: list[int | None] = []
    for token in text.split(","):
        found = CARD_TOKEN.match(token.strip())
        codes.append(card(found[1], SUIT_LETTERS[found[2]]) if found else None)
    return codes


def _readable_cards(text: str, what: str) -> list[int]:
    codes = _cards(text)
    if any(code is None for code in codes):
        raise HandProblem(f"unreadable card ({what}): {text[:60]}")
    return codes  # type: ignore[return-value]


@dataclass
class _Note:
    """A known line of a hand kept in ``notes``: 1 = the hand's first line."""

    line_number: int
    offset: int
    text: str
    kind: str


@dataclass
class _Segment:
    """One hand's lines: in the file from ``begin`` (the line after the previous starting row,
    or the block's first line) to its starting row at ``end``."""

    hand: int
    begin: int
    end: int
    rows: list[_Row]  # time order, the starting row first (file order when a row is damaged)
    start: _Row
    header: re.Match[str] | None = None
    problem: str | None = None


class PokerNowParser(XmlHandParser):
    """Parser for PokerNow CSV logs (see the module docstring).

    It reuses the structured engine's records and tables (`XmlHandParser._tables`): a hand is
    gathered from its rows into a `HandRecord`, as the XML and JSON sites read one element.
    Sniffing, hand starts and the parse of a block are its own (a log is no element per hand).
    """

    site: ClassVar[str] = SITE
    # No rake: PokerNow takes none and prints none. Halves are labelled ("hi hand", "low
    # hand"), one line per half per pot; uncalled bets are printed as returned.
    profile: ClassVar[SiteProfile] = SiteProfile(
        site=SITE,
        rake=None,
        halves_labelled=True,
        payout_lines="per_half",
        rake_printed=False,
        uncalled_printed=True,
        # Two players tying both halves of 120.22 get 30.06 + 30.06 and 30.05 + 30.05: each
        # half is shared on its own (hand 139 of the corpus log YCw_8yzk...).
        tied_halves_apart=True,
    )

    # -- the SiteParser protocol -------------------------------------------------------------

    def sniff(self, head: str) -> bool:
        """The CSV header, then (if any) a row shaped as PokerNow writes them."""
        lines = head.lstrip("\ufeff").split("\n", 2)
        if lines[0].strip() != CSV_HEADER:
            return False
        return len(lines) < 2 or not lines[1].strip() or bool(_FIRST_ROW.match(lines[1].strip()))

    def hand_starts(self, lines: pl.Series) -> np.ndarray:
        """Where each hand's lines begin in the file. Newest row first, a hand's lines begin
        after the previous hand's starting row (the first hand's with the lines' first line).
        After the last starting row a hand begins only if a line follows that is not the
        session's: in a whole log those rows are the session's opening (older than its first
        hand), in a block they may be the first rows of a hand not yet whole."""
        rows = np.flatnonzero(_starting_rows(lines))
        marks = np.zeros(len(lines), dtype=bool)
        if len(rows):
            marks[0] = True
            marks[rows[:-1] + 1] = True
            after = int(rows[-1]) + 1
            if after < len(lines) and not all(
                _belongs_to_no_hand(line) for line in lines.slice(after).to_list()
            ):
                marks[after] = True
        return marks

    def parse(self, lines: pl.Series, offsets: np.ndarray, source_file: str) -> ParseResult:
        with collector_paused():
            return self._parse_log(lines, np.asarray(offsets, dtype=np.int64), source_file)

    # -- the block ---------------------------------------------------------------------------

    def _parse_log(self, lines: pl.Series, offsets: np.ndarray, source_file: str) -> ParseResult:
        # Columns for the whole block, Python objects only for the rows a step reads: the
        # starting rows, the rows that say who the hero is and the Omaha Hi/Lo hands' rows.
        count = len(lines)
        start_rows = np.flatnonzero(_starting_rows(lines))
        hands = len(start_rows)
        begins = np.concatenate(([0], start_rows[:-1] + 1)).astype(np.int64)[:hands]
        rest_begin = int(start_rows[-1]) + 1 if hands else 0
        hero = _hero(_block_evidence(lines, offsets, start_rows))
        rest = [
            _read_row(rest_begin + position, int(offsets[rest_begin + position]), text)
            for position, text in enumerate(lines.slice(rest_begin).to_list())
            if text is not None and not _belongs_to_no_hand(text)
        ]
        stray = next((row for row in rest if not _is_session_line(row)), None)

        headers: list[dict[str, Any]] = []
        records: dict[int, HandRecord] = {}
        reasons: list[dict[str, Any]] = []
        unknown: list[tuple[int, int, str, int]] = []  # hand, line_no, text, offset
        notes: dict[int, list[_Note]] = {}
        starting_texts = lines.gather(start_rows).to_list()
        for hand, (begin, end, text) in enumerate(zip(begins, start_rows, starting_texts)):
            start = _read_row(int(end), int(offsets[end]), text or "")
            header, problem = _header_row(hand, start)
            headers.append(header)
            if problem is not None:
                reasons.append({"hand": hand, "reason": problem})
                continue
            if not header["is_o8"]:
                continue
            hand_lines = lines.slice(int(begin), int(end - begin) + 1)
            segment = _segment(hand, int(begin), hand_lines, offsets)
            if segment.problem is not None:
                reasons.append({"hand": hand, "reason": segment.problem})
                continue
            segment.header = HEADER.match(start.entry or "")
            reader = _HandReader(segment, header, hero)
            try:
                records[hand] = reader.read()
            except HandProblem as problem_found:
                reasons.append({"hand": hand, "reason": str(problem_found)})
            else:
                notes[hand] = reader.notes
            # Judged first: an unknown line that carries money explains a hand that then
            # reads wrong (a flop row without its stamp, then a turn on no board).
            unknown.extend(reader.unknown)

        # The frame keeps every hand's lines as the file holds them: a reject's raw text and
        # offset are the hand's lines from its first in the file.
        hand_of_line = np.searchsorted(start_rows, np.arange(count), side="left")
        is_start = np.zeros(count, dtype=bool)
        is_start[begins] = True
        if stray is not None and hands:
            # Rows older than the block's first hand (after its starting row in the file) that
            # are not the session's: no hand's, rejected as one entry (`hand_starts` opens one).
            is_start[rest_begin] = True
            headers.append(
                {"hand": hands, "hand_id": None, "header_ok": True, "is_o8": True, "game": None}
            )
            reasons.append(
                {
                    "hand": hands,
                    "reason": "rows older than the first hand that are not the session's: "
                    + stray.raw[:100],
                }
            )
        elif not hands:
            hand_of_line[:] = -1  # text before any hand: rejected when it is not the session's
        frame = pl.DataFrame(
            {
                "line_no": pl.Series(np.arange(count), dtype=pl.UInt32),
                "line": lines.rename("line"),
                "offset": pl.Series(offsets, dtype=pl.Int64),
                "hand": pl.Series(hand_of_line, dtype=pl.Int32),
                "is_start": pl.Series(is_start, dtype=pl.Boolean),
            }
        )
        if stray is None:
            frame = frame.filter((pl.col("hand") < hands) & (pl.col("hand") >= 0))
        tables = self._tables(frame, source_file, headers, records, reasons)
        tables.unknown_lines = pl.DataFrame(
            unknown,
            schema={"hand": pl.Int32, "line_no": pl.UInt32, "line": pl.String, "offset": pl.Int64},
            orient="row",
        ).with_columns(damaged=pl.lit(False))
        result = finish(tables)
        return _with_known_notes(result, records, notes, source_file)


def _starting_rows(lines: pl.Series) -> np.ndarray:
    """The starting rows as the file holds them (the entry quoted)."""
    return lines.str.starts_with(START_ROW_TEXT).fill_null(False).to_numpy()


def _is_csv_header(line: str | None) -> bool:
    return line is not None and line.strip().lstrip("\ufeff") == CSV_HEADER


def _block_evidence(
    lines: pl.Series, offsets: np.ndarray, start_rows: np.ndarray
) -> list[_Evidence]:
    """Each hand's `_Evidence`, from the rows that can hold it (every game's)."""
    evidence = [_Evidence(None, None, {}) for _ in start_rows]
    candidates = (
        lines.str.starts_with('"Player stacks: ')
        | lines.str.starts_with('"Your hand is ')
        | lines.str.contains('"" shows a ', literal=True)
    ).fill_null(False)
    indexes = np.flatnonzero(candidates.to_numpy())
    owners = np.searchsorted(start_rows, indexes, side="left")
    texts = lines.gather(indexes).to_list()
    # Oldest first (the file is newest first): the first row of a kind is the hand's own.
    for index, owner, text in reversed(list(zip(indexes, owners, texts))):
        if owner >= len(start_rows) or text is None:
            continue
        row = _read_row(int(index), int(offsets[index]), text)
        if row.order is None or row.entry is None:
            continue
        entry, hand = row.entry, evidence[owner]
        if entry.startswith("Player stacks: "):
            if hand.seated is None and (seats := _stack_items(entry)) is not None:
                hand.seated = frozenset(player for _, player, _ in seats)
        elif found := YOUR_HAND.match(entry):
            if hand.hero_cards is None:
                hand.hero_cards = frozenset(_cards(found["cards"]))
        elif (actor := ACTOR.match(entry)) and (shows := SHOWS.match(actor["rest"])):
            hand.shown.setdefault(actor["player"], frozenset(_cards(shows["cards"])))
    return evidence


def _segment(hand: int, begin: int, lines: pl.Series, offsets: np.ndarray) -> _Segment:
    """One hand's rows, newest first as the file has them (its starting row last), put in time
    order (a line without a stamp right after the row below it in the file, printed before it)."""
    rows = [
        _read_row(begin + position, int(offsets[begin + position]), text)
        for position, text in enumerate(lines.to_list())
        if text is not None and text.strip() and not _is_csv_header(text)
    ]
    start, end = rows[-1], begin + len(lines) - 1
    malformed = next((row for row in rows if row.entry is None), None)
    if malformed is not None:
        segment = _Segment(hand, begin, end, rows[::-1], start)
        segment.problem = "malformed CSV row: " + malformed.raw[:100]
        return segment
    keys: dict[int, tuple[int, int, int]] = {}
    earlier = 0
    for position, row in enumerate(reversed(rows)):
        if row.order is not None:
            earlier = row.order
            keys[row.index] = (row.order, 0, position)
        else:
            keys[row.index] = (earlier, 1, position)
    ordered = sorted(rows, key=lambda row: keys[row.index])
    segment = _Segment(hand, begin, end, ordered, start)
    if ordered[0] is not start:
        segment.problem = "log rows out of order: a row of the hand is older than its start"
    return segment


def _header_row(hand: int, start: _Row) -> tuple[dict[str, Any], str | None]:
    """The `HandTables.headers` row of a hand and the problem of its starting row, if any. A
    starting row that cannot be read is the hand's own problem (not the engine's header check,
    which looks for another game's name on a hand's first line: here not its starting row)."""
    unread = {"hand": hand, "hand_id": None, "header_ok": True, "is_o8": True, "game": None}
    if start.entry is None:
        return unread, "malformed CSV row: " + start.raw[:100]
    if start.order is None:
        return unread, "malformed CSV row: a starting row without its time and order: " + (
            start.raw[:80]
        )
    header = HEADER.match(start.entry)
    if header is None:
        return unread, "unrecognised hand header: " + start.entry[:100]
    game = header["game"]
    return {
        "hand": hand,
        "hand_id": hand_id_of(header["number"], header["id"], start.order),
        "header_ok": True,
        "is_o8": O8_GAME.match(game) is not None,
        "game": game,
    }, None


def _stack_items(entry: str) -> list[tuple[int, str, str]] | None:
    """(seat, player id, stack text) of a ``Player stacks`` line; None when the line holds
    anything else than its items separated by `` | ``."""
    found = STACKS.match(entry)
    if found is None:
        return None
    items = list(STACK_ITEM.finditer(found["seats"]))
    if not items or " | ".join(item[0] for item in items) != found["seats"]:
        return None
    return [(int(item["seat"]), item["player"], item["stack"]) for item in items]


class _HandReader:
    """Reads one Omaha Hi/Lo hand's rows (time order) into a `HandRecord`, its notes and its
    unknown lines; raises `HandProblem` for a hand that cannot be recorded faithfully."""

    def __init__(
        self,
        segment: _Segment,
        header: dict[str, Any],
        hero: str | None,
    ) -> None:
        self.segment = segment
        self.header = header
        self.hero = hero
        self.notes: list[_Note] = []
        self.unknown: list[tuple[int, int, str, int]] = []
        self.street = PREFLOP
        self.board: list[int] = []
        self.board2: list[int] | None = None
        self.ended = False
        self.seats: list[tuple[int, str, str]] | None = None
        self.hero_cards: tuple[_Row, list[int | None]] | None = None
        self.actions: list[dict[str, Any]] = []
        self.collections: list[dict[str, Any]] = []
        self.shows: dict[str, list[int | None]] = {}  # each player's first shown cards
        self.sightings: list[tuple[str, list[int | None], bool]] = []  # every show, compared
        self.descriptions: dict[tuple[str, int, str], str] = {}
        self.posts: list[tuple[str, int, bool]] = []  # printed blind, amount, all in

    def read(self) -> HandRecord:
        match = self.segment.header
        assert match is not None
        for row in self.segment.rows[1:]:
            if row.order is None:
                self._unknown(row, row.entry or row.raw)  # not a row of the log: judged whole
            else:
                self._row(row, row.entry or "")
        if not self.ended:
            raise HandProblem("truncated hand: no ending line")
        if self.seats is None:
            raise HandProblem("no seat lines")
        return self._record(match)

    # -- one row -----------------------------------------------------------------------------

    def _row(self, row: _Row, entry: str) -> None:
        if entry.startswith('"') and (actor := ACTOR.match(entry)):
            self._actor_row(row, actor["player"], actor["rest"])
        elif TABLE_ADMIN.match(entry):
            if not self.ended:
                self._note(row, NOTE_TABLE_ADMIN)
        elif found := END.match(entry):
            if self.ended:
                raise HandProblem("two ending lines")
            if found["number"] != self.segment.header["number"]:  # type: ignore[index]
                raise HandProblem(f"ending line of another hand: {entry[:60]}")
            self.ended = True
        elif entry.startswith("Player stacks: "):
            self._not_after_end(entry)
            self._stacks(entry)
        elif found := YOUR_HAND.match(entry):
            self._not_after_end(entry)
            if self.hero_cards is not None:
                raise HandProblem("two 'Your hand is' lines")
            self.hero_cards = (row, _cards(found["cards"]))
        elif found := FLOP.match(entry):
            self._not_after_end(entry)
            self._flop(found)
        elif found := LATER_STREET.match(entry):
            self._not_after_end(entry)
            self._later_street(found)
        elif found := UNCALLED.match(entry):
            self._not_after_end(entry)
            self._action(found["player"], "uncalled_return", amount=self._money(found["amount"]))
        elif UNDEALT.match(entry):
            self._note(row, NOTE_UNDEALT_CARDS)
        elif RUN_IT_TWICE_LINES.match(entry):
            self._note(row, NOTE_RUN_IT_TWICE)
        elif entry == DEAD_SMALL_BLIND:
            self._note(row, NOTE_DEAD_SMALL_BLIND)
        else:
            self._unknown(row, entry)

    def _actor_row(self, row: _Row, player: str, rest: str) -> None:
        if found := SHOWS.match(rest):
            # Shown after the hand ended too: a late show is a show of the hand.
            cards = _cards(found["cards"])
            self.sightings.append((player, cards, False))
            if player not in self.shows:
                self.shows[player] = cards
                self._action(player, "show")
        elif CHOOSES.match(rest):
            self._note(row, NOTE_RUN_IT_TWICE)
        elif rest in ("folds", "checks"):
            self._not_after_end(rest, player)
            self._action(player, "fold" if rest == "folds" else "check")
        elif found := BET.match(rest):
            self._not_after_end(rest, player)
            self._action(
                player,
                BET_KINDS[found["verb"]],
                to=self._money(found["amount"]),
                is_all_in=found["all_in"] is not None,
            )
        elif found := POST.match(rest):
            self._not_after_end(rest, player)
            blind = found["blind"] or "ante"
            amount = self._money(found["amount"])
            all_in = found["all_in"] is not None
            self.posts.append((blind, amount, all_in))
            kind = "ante" if found["ante"] else POST_KINDS[blind]
            self._action(player, kind, amount=amount, is_all_in=all_in, street=PREFLOP)
        elif found := COLLECTED.match(rest):
            self._not_after_end(rest, player)
            self._collected(player, self._money(found["amount"]), found["desc"])
        else:
            self._unknown(row, row.entry or "")

    def _not_after_end(self, text: str, player: str | None = None) -> None:
        """After its ending line a hand prints shows and notes only: play there is damage."""
        if self.ended:
            who = f'"{player}" ' if player else ""
            raise HandProblem(f"a line of play after the ending line: {who}{text[:60]}")

    def _stacks(self, entry: str) -> None:
        if self.seats is not None:
            raise HandProblem("two 'Player stacks' lines")
        seats = _stack_items(entry)
        if seats is None:
            raise HandProblem("unreadable seat line")
        self.seats = seats

    def _flop(self, found: re.Match[str]) -> None:
        cards = _readable_cards(found["cards"], "board")
        if len(cards) != 3:
            raise HandProblem("a flop of other than three cards")
        if found["second"]:
            if self.board2 is not None or not self.board:
                raise HandProblem("second run's flop out of place")
            self.board2 = cards
            return
        if self.board:
            raise HandProblem("two flops")
        self.board = cards
        self.street = FLOP_STREET

    def _later_street(self, found: re.Match[str]) -> None:
        street = TURN_STREET if found["street"] == "Turn" else RIVER_STREET
        before = _readable_cards(found["before"], "board") if found["before"].strip() else []
        dealt = _readable_cards(found["card"], "board")
        if len(dealt) != 1 or len(before) != street + 1:
            raise HandProblem(f"unreadable {found['street'].lower()} line")
        if found["second"]:
            # The second run repeats the board it starts from: the first run's first cards,
            # or its own flop (and turn) when it dealt them again.
            base = self.board2 if self.board2 is not None else self.board[: len(before)]
            if before != base:
                raise HandProblem("second run's board disagrees with the cards before it")
            self.board2 = before + dealt
            return
        if before != self.board:
            raise HandProblem(f"{found['street'].lower()} line disagrees with the board")
        self.board = before + dealt
        self.street = street

    def _collected(self, player: str, amount: int, desc: str | None) -> None:
        board_index, half = 0, None
        if desc is not None:
            if SECOND_RUN in desc:
                board_index = 1
                desc = re.sub(r"\s+", " ", desc.replace(SECOND_RUN, " ")).strip()
            for label, name in HALVES:
                if desc.startswith(label):
                    half, desc = name, desc[len(label) :]
                    break
            combination = COMBINATION.search(desc)
            if combination is not None:
                _readable_cards(combination["cards"], "combination")
            self.descriptions.setdefault((player, board_index, half or "high"), desc)
        row = collection_row(player, amount, None, half)
        row["board_index"] = board_index
        self.collections.append(row)

    def _action(
        self,
        player: str,
        kind: str,
        amount: int | None = None,
        to: int | None = None,
        is_all_in: bool = False,
        street: int | None = None,
    ) -> None:
        self.actions.append(
            {
                "street": self.street if street is None else street,
                "player": player,
                "kind": kind,
                "amount": amount,
                "to": to,
                "is_all_in": is_all_in,
            }
        )

    def _money(self, text: str) -> int:
        return minor_units(text, SCALE, "amount")

    def _note(self, row: _Row, kind: str) -> None:
        # Numbered as the engine numbers a hand's unrecognised lines: from the hand's first
        # line in the file (newest first: the starting row is the hand's last line).
        line_number = row.index - self.segment.begin + 1
        self.notes.append(_Note(line_number, row.offset, row.entry or "", kind))

    def _unknown(self, row: _Row, entry: str) -> None:
        self.unknown.append((self.segment.hand, row.index, entry, row.offset))

    # -- the record --------------------------------------------------------------------------

    def _record(self, match: re.Match[str]) -> HandRecord:
        assert self.seats is not None
        seat_of = {player: seat for seat, player, _ in self.seats}
        seats = [
            seat_row(seat, player, minor_units(stack, SCALE, "stack"))
            for seat, player, stack in self.seats
        ]
        dealer = _PLAYER_ID.match(match["dealer"]) if match["dealer"] is not None else None
        hero_seated = self.hero is not None and self.hero in seat_of
        sightings: list[tuple[str, list[int | None], bool]] = []
        heroes: list[str] = []
        if self.hero_cards is not None:
            row, cards = self.hero_cards
            if hero_seated:
                assert self.hero is not None
                heroes.append(self.hero)
                sightings.append((self.hero, cards, True))
            else:
                self._note(row, NOTE_UNATTRIBUTED_HOLE_CARDS)
        sightings.extend(self.sightings)
        game = O8_GAME.match(self.header["game"])
        assert game is not None
        limit_type = LIMITS[game["limit"]]
        start = self.segment.start
        hand = {
            "limit_type": limit_type,
            "currency": CURRENCY,
            "money_scale": SCALE,
            **self._stakes(),
            "button_seat": seat_of.get(dealer["player"]) if dealer is not None else None,
            "started_at": _utc(start.at),
            "time_zone": "UTC",
            "board": self.board,
            "board2": self.board2,
        }
        return HandRecord(
            hand_id=self.header["hand_id"],
            hand=hand,
            seats=seats,
            actions=self.actions,
            collections=self.collections,
            showdowns=self._showdowns(),
            sightings=sightings,
            heroes=heroes,
        )

    def _stakes(self) -> dict[str, int | None]:
        def largest(blind: str, all_in: bool | None = None) -> int | None:
            amounts = [
                amount
                for printed, amount, was_all_in in self.posts
                if printed == blind and (all_in is None or was_all_in == all_in)
            ]
            return max(amounts, default=None)

        def first_known(*amounts: int | None) -> int | None:
            return next((amount for amount in amounts if amount is not None), None)

        # A blind posted all in for less says nothing of the table's blind.
        return {
            "small_blind": first_known(
                largest("small blind", all_in=False),
                largest("missing small blind", all_in=False),
                largest("small blind"),
            ),
            "big_blind": first_known(
                largest("big blind", all_in=False),
                largest("missed big blind", all_in=False),
                largest("big blind"),
            ),
            "small_bet": None,
            "big_bet": None,
            "ante": largest("ante"),
        }

    def _showdowns(self) -> list[dict[str, Any]]:
        """One row per shown hand with its collections' descriptions (one per board when the
        pot was run twice); a collector described but never shown has a row without cards."""
        boards = (0, 1) if self.board2 is not None else (0,)
        described = [player for player, _, _ in self.descriptions if player not in self.shows]
        players = [*self.shows, *dict.fromkeys(described)]
        return [
            {
                "player": player,
                "cards": self.shows.get(player),
                "board_index": board_index,
                "high_desc": self.descriptions.get((player, board_index, "high")),
                "low_desc": self.descriptions.get((player, board_index, "low")),
            }
            for player in players
            for board_index in boards
        ]


def _utc(text: str | None) -> datetime:
    if text is None or not text.endswith("Z") or len(text) > 40:
        raise HandProblem(f"unreadable start time {str(text)[:40]!r}")
    try:
        moment = datetime.fromisoformat(text[:-1])
    except ValueError:
        raise HandProblem(f"unreadable start time {text[:40]!r}") from None
    if moment.tzinfo is not None:
        raise HandProblem(f"unreadable start time {text[:40]!r}")
    return moment.replace(tzinfo=UTC)


def _with_known_notes(
    result: ParseResult,
    records: dict[int, HandRecord],
    notes: dict[int, list[_Note]],
    source_file: str,
) -> ParseResult:
    """The result with the known lines of its stored hands added to its notes, each hand's
    notes in the order of their line numbers."""
    kept_ids = result.tables["hands"].column("hand_id").to_pylist()
    position_of: dict[str, int] = {}
    rows: list[dict[str, Any]] = []
    for hand, record in sorted(records.items()):
        position = len(position_of)
        if position >= len(kept_ids) or record.hand_id != kept_ids[position]:
            continue  # quarantined by the shared checks: its text is in rejects
        position_of.setdefault(record.hand_id, position)
        rows.extend(
            {
                "position": position,
                "site": SITE,
                "hand_id": record.hand_id,
                "source_file": source_file,
                "source_offset": note.offset,
                "line_number": note.line_number,
                "text": note.text,
                "kind": note.kind,
            }
            for note in notes.get(hand, [])
        )
    if not rows:
        return result
    engine_notes = pl.from_arrow(result.tables["notes"])
    assert isinstance(engine_notes, pl.DataFrame)
    engine_notes = engine_notes.with_columns(
        position=pl.col("hand_id").replace_strict(position_of, default=-1, return_dtype=pl.Int64)
    )
    ours = pl.DataFrame(rows, schema={**engine_notes.schema})
    merged = (
        pl.concat([engine_notes, ours.select(engine_notes.columns)])
        .sort("position", "line_number", maintain_order=True)
        .drop("position")
    )
    result.tables["notes"] = merged.to_arrow().cast(NOTES)
    return result
