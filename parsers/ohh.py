"""Parser for OHH, the Open Hand History standard (JSON; hh-specs.handhistory.org, spec 1.2-1.4).

A file holds ``{"ohh": {...}}`` objects, one per hand: the spec's storage format writes them
one after another, separated by a blank line, each usually on one line; a pretty-printed
object spans many lines (the spec's own examples). A hand starts at a line that opens such an
object: ``{"ohh": ...`` on one line, or a lone ``{`` whose next line is ``"ohh": ...``. Each
hand's text is read with `json` (numbers as `decimal.Decimal`, never binary floats) after the
engine's size limit (`parsers.engine.xml_safe.MAX_DOCUMENT_CHARS`); nesting deeper than
`MAX_DEPTH` quarantines the hand, as an integer of more than 40 digits or an amount that is
not a finite number, negative, finer than the money unit or out of range does.

Only ``game_type`` ``"OmahaHiLo"`` is read (the spec's game types are Holdem, Omaha,
OmahaHiLo, Stud, StudHiLo and Draw); other games are counted as skipped, and so is an
OmahaHiLo hand whose dealt or shown hands hold 5 or 6 cards.

What OHH records, and how it becomes the canonical tables:

- ``game_number`` is the ``hand_id``; ``start_date_utc`` (ISO 8601, UTC) ``started_at``;
  ``table_name``, ``table_size``, ``dealer_seat`` the table columns; ``bet_limit.bet_type``
  (NL, PL, FL) ``limit_type``; ``small_blind_amount``, ``big_blind_amount`` and
  ``ante_amount`` the stakes (a null blind is the largest posted).
- Money: amounts are decimals in the table's currency, read exactly: cents (``money_scale``
  100) at a cash table (play money ``XPM``/``PPC`` is ``PLAY``), whole chips (``CHIPS``,
  scale 1) in a tournament (``tournament`` true, or a ``tournament_info`` object before spec
  1.3, which added ``tournament``); ``tournament_info.tournament_number`` is the
  ``tournament_id``.
- ``players``: seats (``is_sitting_out`` kept), the player's ``name`` the player;
  ``hero_player_id`` marks the hero.
- ``rounds``: Preflop, Flop, Turn, River (board cards in ``cards``), Showdown (its shows and
  mucks count on the last street dealt). Actions map to kinds: Post SB ``post_sb``, Post BB,
  Straddle and Post Extra Blind ``post_bb``, Post Ante ``ante``, Post Dead ``post_dead``,
  Fold, Check, Bet, Raise, Call as named (``amount`` is the chips the action puts in, as the
  spec says of a raise), Shows Cards ``show`` (with a ``showdowns`` row), Mucks Cards
  ``muck``; Dealt Cards gives hole cards. ``is_allin`` is ``is_all_in``.
- ``pots``: each ``player_wins`` entry with a win is a ``collections`` row of that pot
  (``pot_index`` = the pot's ``number``, ``half`` null: OHH does not say which half); the
  total pot is the sum of the pots' ``amount`` (which includes the rake), ``hands.rake`` the
  sum of their ``rake`` and ``jackpot`` (both leave the pot); with several pots,
  ``side_pots`` holds each pot's amount net of both, by pot number.
- Uncalled bets: the spec has no action for a bet handed back. Chips put in that no pot
  holds can only be the unmatched top of the largest contribution: when they fit there they
  are written as an ``uncalled_return`` row (after the last action of that player's last
  street); any other difference is left to the audit's chip-conservation check.

Kept as ``notes`` (one row per fact, ``line_number`` 1, the hand's offset, the text naming
the field by its path, e.g. ``pots[0].player_wins[1].cashout_amount = 12.34``):
``spec_version``, ``site_name``, ``network_name``, ``internal_version``, ``table_handle``,
``table_skin``, each of ``flags``, ``bet_limit.bet_cap``, the other ``tournament_info``
fields, ``tournament_bounties``, a tournament's ``currency`` (the buy-in's), ``display``,
``player_bounty``, ``jackpot``, ``cashout_amount``, ``cashout_fee``, ``bonus_amount``,
``contributed_rake`` (kind ``ohh_field``; a null, absent or zero optional amount is no
fact), any field the spec does not name (kind ``ohh_unknown_field``), and the actions hilo
has no kind for: Added Chips, Sits Down, Stands Up, Player Adjustment (kind ``ohh_action``).

What hilo cannot carry either way: OHH names no fixed-limit bet sizes (``small_bet`` and
``big_bet`` stay null), no hand descriptions (``high_desc``/``low_desc`` null), no time zone
but UTC, no level or buy-in text, no second board (a hand run twice, whose second board the
spec does not place, is quarantined) and no per-half payouts; hilo keeps the split of the
rake between pots only through ``side_pots``. Add to Pot (money the site adds to a pot) has
no hilo action kind: such a hand is quarantined.

The site is always ``ohh``: the audit judges an OHH hand by what OHH can carry, whichever site
wrote it (``site_name`` keeps that, in notes). Quarantined (a ``rejects`` row with the reason
naming the field): malformed JSON, a missing required field or one of the wrong type (all
fields are required unless the spec says otherwise), unknown actions, streets out of order,
unreadable cards, actions of unknown players, and the shared checks.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal, DecimalException
from typing import Any, ClassVar

import numpy as np
import polars as pl
import pyarrow as pa

from parsers.base import ParseResult
from parsers.columns import CARD_CODES, MAX_MINOR_UNITS
from parsers.engine.hole_cards import DAMAGED, HOLE_CARDS, sighting_kind
from parsers.engine.structured import (
    HandProblem,
    HandRecord,
    SkippedGame,
    XmlHandParser,
    check_board,
    collection_row,
    drop_winner_mucks,
    json_depth,
    largest_posts,
    seat_row,
    unmatched_top,
)
from parsers.engine.xml_safe import MAX_DEPTH
from pipeline.profiles import SiteProfile
from pipeline.schema import NOTES

__all__ = ["NOTE_KINDS", "O8_GAME", "SITE", "OhhParser"]

SITE = "ohh"
O8_GAME = "OmahaHiLo"
LIMIT_TYPES = ("NL", "PL", "FL")
PLAY_MONEY = ("XPM", "PPC")  # PPC before spec 1.4.6, still allowed for existing hands
MAX_PLAYERS = 10
MAX_SEAT = 99
MAX_INTEGER_DIGITS = 40  # a longer JSON integer is read as a Decimal and refused where it is used

NOTE_FIELD = "ohh_field"
NOTE_UNKNOWN_FIELD = "ohh_unknown_field"
NOTE_ACTION = "ohh_action"
NOTE_KINDS = (NOTE_FIELD, NOTE_UNKNOWN_FIELD, NOTE_ACTION)

# A hand opens at ``{"ohh":`` on one line, or at a lone ``{`` whose next line is ``"ohh":``.
_ONE_LINE_START = '^\ufeff?[ \t]*\\{[ \t]*"ohh"[ \t]*:'
_LONE_BRACE = "^\ufeff?[ \t]*\\{[ \t]*$"
_OHH_KEY = '^[ \t]*"ohh"[ \t]*:'
_SNIFF = re.compile('(?m)^\ufeff?[ \t]*\\{[ \t]*(?:\\n[ \t]*)?"ohh"[ \t]*:[ \t]*\\{')

_OHH_KEYS = frozenset(
    (
        *("spec_version", "site_name", "network_name", "internal_version", "tournament"),
        *("tournament_info", "game_number", "start_date_utc", "table_name", "table_handle"),
        *("table_skin", "game_type", "bet_limit", "table_size", "currency", "dealer_seat"),
        *("small_blind_amount", "big_blind_amount", "ante_amount", "hero_player_id", "flags"),
        *("players", "rounds", "pots", "tournament_bounties"),
    )
)
_BET_LIMIT_KEYS = frozenset(("bet_type", "bet_cap"))
_PLAYER_KEYS = frozenset(
    ("id", "seat", "name", "display", "starting_stack", "player_bounty", "is_sitting_out")
)
_ROUND_KEYS = frozenset(("id", "street", "cards", "actions"))
_ACTION_KEYS = frozenset(("action_number", "player_id", "action", "amount", "is_allin", "cards"))
_POT_KEYS = frozenset(("number", "amount", "rake", "jackpot", "player_wins"))
_WIN_KEYS = frozenset(
    (
        *("player_id", "win_amount", "cashout_amount", "cashout_fee", "bonus_amount"),
        "contributed_rake",
    )
)
# Fields with no hilo column, kept as notes when they hold a value.
_TEXT_NOTES = ("spec_version", "site_name", "network_name", "internal_version")
_OPTIONAL_TEXT_NOTES = ("table_handle", "table_skin")
_WIN_NOTES = ("cashout_amount", "cashout_fee", "bonus_amount", "contributed_rake")

# Streets in the order the spec lists them; Showdown counts on the last street dealt.
_STREETS = {"Preflop": 0, "Flop": 1, "Turn": 2, "River": 3}
_ORDER = {"Preflop": 0, "Flop": 1, "Turn": 2, "River": 3, "Showdown": 4}
_BOARD_CARDS = {"Flop": 3, "Turn": 1, "River": 1}

_MONEY_KINDS = {
    "Post SB": "post_sb",
    "Post BB": "post_bb",
    "Straddle": "post_bb",
    "Post Extra Blind": "post_bb",
    "Post Ante": "ante",
    "Post Dead": "post_dead",
    "Bet": "bet",
    "Raise": "raise",
    "Call": "call",
}
_SILENT_KINDS = {"Fold": "fold", "Check": "check"}
_CARD_ACTIONS = ("Dealt Cards", "Shows Cards", "Mucks Cards")
_NOTE_ACTIONS = ("Added Chips", "Sits Down", "Stands Up", "Player Adjustment")
_VERSION = re.compile(r"([0-9]{1,4})\.([0-9]{1,4})(?:\.[0-9]{1,4})?")
_CURRENCY = re.compile(r"[A-Z]{3}")


class OhhParser(XmlHandParser):
    """Reads OHH files (``{"ohh": ...}`` JSON objects, one per hand), game ``OmahaHiLo``."""

    site: ClassVar[str] = SITE
    # One win per player per pot (halves summed), the pot's amount gross of its rake, the rake
    # printed per pot (its split between pots kept in `side_pots`, net), uncalled bets written
    # out by the parser from the pots.
    profile: ClassVar[SiteProfile] = SiteProfile(
        site=SITE,
        halves_labelled=False,
        total_pot_is_gross=True,
        raise_cap=4,
        payout_lines="per_pot",
        rake_printed=True,
        uncalled_printed=True,
        rake_from="running-total",
    )
    start_tag: ClassVar[re.Pattern[str]] = re.compile(r"\{")
    hand_end: ClassVar[str] = "}"
    sniff_pattern: ClassVar[re.Pattern[str]] = _SNIFF
    hand_id_pattern: ClassVar[re.Pattern[str]] = re.compile(
        r'"game_number"\s*:\s*"([^"\\]{1,64})"'
    )

    def __init__(self) -> None:
        super().__init__()
        self._offset = 0
        self._decoded: tuple[str, Any] | None = None
        self._notes: dict[int, list[tuple[str, str]]] = {}

    def hand_starts(self, lines: pl.Series) -> np.ndarray:
        """``{"ohh":`` lines, and lone ``{`` lines whose next line is ``"ohh":``."""
        one_line = lines.str.contains(_ONE_LINE_START).fill_null(False)
        lone = lines.str.contains(_LONE_BRACE).fill_null(False)
        keyed = lines.shift(-1).str.contains(_OHH_KEY).fill_null(False)
        return (one_line | (lone & keyed)).to_numpy()

    def parse(self, lines: pl.Series, offsets: np.ndarray, source_file: str) -> ParseResult:
        """The engine's parse, and each stored hand's kept facts added to ``notes``."""
        self._notes = {}
        try:
            result = super().parse(lines, offsets, source_file)
            return _with_notes(result, self._notes, source_file)
        finally:
            self._notes = {}
            self._decoded = None

    def _read_piece(self, piece: str, offset: int, last: bool, context: Any, found: Any) -> None:
        self._offset = offset  # notes are keyed by the hand's offset (unique in a block)
        super()._read_piece(piece, offset, last, context, found)

    def split_element(self, piece: str) -> tuple[str, str]:
        """The hand's JSON object (decoded here, once) and the text after it."""
        start = len(piece) - len(piece.lstrip())
        try:
            document, end = _DECODER.raw_decode(piece, start)
        except RecursionError:
            raise HandProblem(f"unsafe JSON: nested deeper than {MAX_DEPTH}") from None
        except ValueError as error:  # JSONDecodeError
            raise HandProblem(f"malformed JSON: {str(error)[:200]}") from None
        except DecimalException:  # an exponent beyond what a Decimal holds: 1e9999999999999999999
            raise HandProblem("malformed JSON: a number out of range") from None
        element = piece[start:end]
        self._decoded = (element, document)
        return element, piece[end:]

    def read_hand(self, text: str, context: dict[str, Any]) -> HandRecord:
        decoded, self._decoded = self._decoded, None
        if decoded is None or decoded[0] is not text:  # not the text just split: decode it
            self.split_element(text)
            decoded, self._decoded = self._decoded, None
        assert decoded is not None
        document = decoded[1]
        if json_depth(document, MAX_DEPTH) > MAX_DEPTH:
            raise HandProblem(f"unsafe JSON: nested deeper than {MAX_DEPTH}")
        record, notes = _Reader().read(document)
        if notes:
            self._notes[self._offset] = notes
        return record


def _integer(text: str) -> int | Decimal:
    """A JSON integer; one of more than `MAX_INTEGER_DIGITS` digits stays a Decimal (``int``
    stops at 4,300 digits, and no field holds such a number), refused where it is read."""
    return int(text) if len(text) <= MAX_INTEGER_DIGITS else Decimal(text)


# NaN and Infinity (not JSON, but Python's reader takes them) become Decimals too, so the field
# that holds one is named when it is refused.
_DECODER = json.JSONDecoder(parse_float=Decimal, parse_int=_integer, parse_constant=Decimal)


def render(value: Any) -> str:
    """A JSON value as compact JSON text, decimals as written (``0.00``, ``1E+5``).

    >>> render({"a": [Decimal("0.50"), True, None, "x"]})
    '{"a":[0.50,true,null,"x"]}'
    """
    if isinstance(value, Decimal):
        return str(value)
    if type(value) is list:
        return "[" + ",".join(render(item) for item in value) + "]"
    if type(value) is dict:
        return "{" + ",".join(f"{_json(key)}:{render(item)}" for key, item in value.items()) + "}"
    return _json(value)


def _json(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if _encodable(text) else json.dumps(value)  # a lone surrogate stays escaped


_KIND_NAMES = {
    "string": (str,),
    "integer": (int,),
    "number": (int, Decimal),
    "boolean": (bool,),
    "object": (dict,),
    "array": (list,),
}


def _typed(value: Any, kind: str, path: str) -> Any:
    if type(value) not in _KIND_NAMES[kind]:
        article = "an" if kind[0] in "aeio" else "a"
        raise HandProblem(f"{path}: not {article} {kind} ({render(value)[:40]})")
    if kind == "string" and not _encodable(value):
        raise HandProblem(f"{path}: not valid Unicode (a lone surrogate)")
    return value


def _encodable(text: str) -> bool:
    """Whether ``text`` has no lone surrogate (JSON's ``\\ud800`` escapes make them), which
    no table could store."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _get(obj: dict[str, Any], key: str, kind: str, path: str, required: bool = True) -> Any:
    """``obj[key]`` of JSON type ``kind``; a missing required field (or a null one) raises, an
    optional one absent or null is None."""
    where = f"{path}.{key}" if path else key
    if key not in obj or obj[key] is None:
        if required:
            raise HandProblem(f"{where}: missing" if key not in obj else f"{where}: null")
        return None
    return _typed(obj[key], kind, where)


def _money(value: Any, scale: int, path: str) -> int:
    """A JSON number in minor units, exactly; raises for anything else (negative, not finite,
    finer than the unit, out of range)."""
    if type(value) is int:
        if value < 0:
            raise HandProblem(f"{path}: negative amount ({value})")
        if value * scale >= MAX_MINOR_UNITS:
            raise HandProblem(f"{path}: amount out of range ({render(value)[:40]})")
        return value * scale
    if type(value) is not Decimal:
        raise HandProblem(f"{path}: not a number ({render(value)[:40]})")
    if not value.is_finite():
        raise HandProblem(f"{path}: not a finite number ({value})")
    sign, digits, exponent = value.as_tuple()
    assert isinstance(exponent, int)  # finite
    if len(digits) > MAX_INTEGER_DIGITS:
        raise HandProblem(f"{path}: unreadable amount ({render(value)[:40]})")
    number = int("".join(map(str, digits)))
    if number == 0:
        return 0  # also -0.00
    if sign:
        raise HandProblem(f"{path}: negative amount ({value})")
    if exponent >= 0:
        if exponent > 20:
            raise HandProblem(f"{path}: amount out of range ({value})")
        minor, left = number * 10**exponent * scale, 0
    elif -exponent > 2 * MAX_INTEGER_DIGITS:
        raise HandProblem(f"{path}: amount finer than the money unit ({value})")
    else:
        minor, left = divmod(number * scale, 10**-exponent)
    if left:
        raise HandProblem(f"{path}: amount finer than the money unit ({value})")
    if minor >= MAX_MINOR_UNITS:
        raise HandProblem(f"{path}: amount out of range ({value})")
    return minor


def _small(value: Any, path: str, low: int, high: int) -> int:
    """An integer field within ``low..high``."""
    _typed(value, "integer", path)
    if not low <= value <= high:
        raise HandProblem(f"{path}: out of range ({value})")
    return int(value)


def _cards(value: Any, path: str) -> list[int]:
    """A list of card strings (``"As"``) as card codes; ``""`` or null is no cards."""
    if value is None or value == "":
        return []
    _typed(value, "array", path)
    codes = []
    for index, text in enumerate(value):
        code = CARD_CODES.get(text) if type(text) is str else None
        if code is None:
            raise HandProblem(f"{path}[{index}]: unreadable card ({render(text)[:20]})")
        codes.append(code)
    return codes


def _started_at(text: str) -> datetime:
    if len(text) > 40:
        raise HandProblem(f"start_date_utc: not an ISO 8601 date ({text[:40]!r})")
    try:
        moment = datetime.fromisoformat(text)
        return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
    except (ValueError, OverflowError):
        raise HandProblem(f"start_date_utc: not an ISO 8601 date ({text[:40]!r})") from None


@dataclass
class _Player:
    name: str
    seat: int


@dataclass
class _Reader:
    """Reads one decoded ``{"ohh": ...}`` document into a record and its notes."""

    notes: list[tuple[str, str]] = field(default_factory=list)

    def note(self, kind: str, path: str, value: Any) -> None:
        text = f"{path} = {render(value)}"
        if not _encodable(text):  # a key holding a lone surrogate: kept escaped
            text = text.encode("utf-8", "backslashreplace").decode("utf-8")
        self.notes.append((kind, text))

    def unknown(self, obj: dict[str, Any], known: frozenset[str], path: str) -> None:
        for key, value in obj.items():
            if key not in known:
                self.note(NOTE_UNKNOWN_FIELD, f"{path}.{key}" if path else key, value)

    def optional_amount(self, obj: dict[str, Any], key: str, path: str) -> None:
        """An optional amount with no hilo column: a note when it holds a non-zero number."""
        value = _get(obj, key, "number", path, required=False)
        if value is not None and value != 0:
            self.note(NOTE_FIELD, f"{path}.{key}" if path else key, value)

    def read(self, document: Any) -> tuple[HandRecord, list[tuple[str, str]]]:
        if type(document) is not dict:
            raise HandProblem("not an OHH hand: the JSON value is not an object")
        if "ohh" not in document:
            raise HandProblem("ohh: missing")
        ohh = _typed(document["ohh"], "object", "ohh")
        for key, value in document.items():
            if key != "ohh":
                self.note(NOTE_UNKNOWN_FIELD, f"{key} (beside ohh)", value)
        game_type = _get(ohh, "game_type", "string", "")
        if game_type != O8_GAME:
            raise SkippedGame(game_type[:40] or "unknown game")
        record = self._hand(ohh)
        return record, self.notes

    def _hand(self, ohh: dict[str, Any]) -> HandRecord:
        self.unknown(ohh, _OHH_KEYS, "")
        version = _get(ohh, "spec_version", "string", "")
        parsed = _VERSION.match(version)
        if parsed is None:
            raise HandProblem(f"spec_version: not a version string ({version[:20]!r})")
        spec = (int(parsed[1]), int(parsed[2]))
        for key in _TEXT_NOTES:
            self.note(NOTE_FIELD, key, _get(ohh, key, "string", ""))
        for key in _OPTIONAL_TEXT_NOTES:
            value = _get(ohh, key, "string", "", required=False)
            if value is not None:
                self.note(NOTE_FIELD, key, value)
        hand_id = _get(ohh, "game_number", "string", "")
        if not hand_id.strip():
            raise HandProblem("game_number: empty")
        started_at = _started_at(_get(ohh, "start_date_utc", "string", ""))
        table_name = _get(ohh, "table_name", "string", "")
        limits = _get(ohh, "bet_limit", "object", "")
        self.unknown(limits, _BET_LIMIT_KEYS, "bet_limit")
        limit_type = _get(limits, "bet_type", "string", "bet_limit")
        if limit_type not in LIMIT_TYPES:
            raise HandProblem(f"bet_limit.bet_type: unknown limit ({limit_type[:20]!r})")
        self.optional_amount(limits, "bet_cap", "bet_limit")
        max_seats = _small(_get(ohh, "table_size", "integer", ""), "table_size", 1, MAX_SEAT)
        button = _small(_get(ohh, "dealer_seat", "integer", ""), "dealer_seat", 0, MAX_SEAT)
        flags = _get(ohh, "flags", "array", "", required=False) or []
        for index, flag in enumerate(flags):
            self.note(NOTE_FIELD, "flags", _typed(flag, "string", f"flags[{index}]"))

        # The money unit: tournament chips are whole, a cash table's currency has cents.
        tournament = _get(ohh, "tournament", "boolean", "", required=spec >= (1, 3))
        info = _get(ohh, "tournament_info", "object", "", required=False)
        if tournament is None:
            tournament = info is not None  # before spec 1.3, which added "tournament"
        printed_currency = _get(ohh, "currency", "string", "")
        tournament_id = None
        if tournament:
            currency, scale = "CHIPS", 1
            self.note(NOTE_FIELD, "currency", printed_currency)  # the buy-in's currency
        elif printed_currency in PLAY_MONEY:
            currency, scale = "PLAY", 100
        elif _CURRENCY.fullmatch(printed_currency):
            currency, scale = printed_currency, 100
        else:
            raise HandProblem(f"currency: not an ISO 4217 code ({printed_currency[:20]!r})")
        if info is not None:
            for key, value in info.items():
                if (
                    key == "tournament_number"
                    and tournament
                    and (type(value) is int or (type(value) is str and value and _encodable(value)))
                ):
                    tournament_id = str(value)
                elif value is not None:
                    self.note(NOTE_FIELD, f"tournament_info.{key}", value)
        bounties = _get(ohh, "tournament_bounties", "array", "", required=False) or []
        for index, bounty in enumerate(bounties):
            self.note(NOTE_FIELD, f"tournament_bounties[{index}]", bounty)

        record = HandRecord(hand_id=hand_id, hand={})
        players = self._players(ohh, scale, record)
        hero = _get(ohh, "hero_player_id", "integer", "", required=False)
        if hero is not None:
            if hero not in players:
                raise HandProblem(f"hero_player_id: no player with id {hero}")
            record.heroes.append(players[hero].name)
        board = self._rounds(ohh, scale, players, record)
        check_board(board)
        total_pot, rake, net_pots = self._pots(ohh, scale, players, record)
        _return_uncalled(record, total_pot)
        drop_winner_mucks(record)

        posted = largest_posts(record.actions)
        small_blind = _get(ohh, "small_blind_amount", "number", "", required=False)
        big_blind = _get(ohh, "big_blind_amount", "number", "", required=False)
        ante = _money(_get(ohh, "ante_amount", "number", ""), scale, "ante_amount")
        record.hand = {
            "tournament_id": tournament_id,
            "table_name": table_name,
            "limit_type": limit_type,
            "currency": currency,
            "money_scale": scale,
            "small_blind": posted["post_sb"]
            if small_blind is None
            else _money(small_blind, scale, "small_blind_amount"),
            "big_blind": posted["post_bb"]
            if big_blind is None
            else _money(big_blind, scale, "big_blind_amount"),
            "small_bet": None,  # OHH names no fixed-limit bet sizes
            "big_bet": None,
            "ante": ante or None,
            "max_seats": max_seats,
            "button_seat": button,
            "started_at": started_at,
            "time_zone": "UTC",
            "board": board,
            "total_pot": total_pot,
            "rake": rake,
            "side_pots": net_pots if len(net_pots) > 1 else None,
        }
        return record

    def _players(
        self, ohh: dict[str, Any], scale: int, record: HandRecord
    ) -> dict[int, _Player]:
        items = _get(ohh, "players", "array", "")
        if not items:
            raise HandProblem("players: no players")
        if len(items) > MAX_PLAYERS:
            raise HandProblem(f"players: more than {MAX_PLAYERS} players ({len(items)})")
        players: dict[int, _Player] = {}
        for index, item in enumerate(items):
            path = f"players[{index}]"
            _typed(item, "object", path)
            self.unknown(item, _PLAYER_KEYS, path)
            number = _get(item, "id", "integer", path)
            if number in players:
                raise HandProblem(f"{path}.id: duplicate id {number}")
            seat = _small(_get(item, "seat", "integer", path), f"{path}.seat", 0, MAX_SEAT)
            name = _get(item, "name", "string", path)
            if not name.strip():
                raise HandProblem(f"{path}.name: empty")
            stack = _get(item, "starting_stack", "number", path)
            stack = _money(stack, scale, f"{path}.starting_stack")
            display = _get(item, "display", "string", path, required=False)
            if display is not None:
                self.note(NOTE_FIELD, f"{path}.display", display)
            self.optional_amount(item, "player_bounty", path)
            sitting_out = bool(_get(item, "is_sitting_out", "boolean", path, required=False))
            players[number] = _Player(name, seat)
            record.seats.append(seat_row(seat, name, stack, sitting_out))
        return players

    def _rounds(
        self,
        ohh: dict[str, Any],
        scale: int,
        players: dict[int, _Player],
        record: HandRecord,
    ) -> list[int | None]:
        """The board; actions, shows and sightings into ``record``."""
        rounds = _get(ohh, "rounds", "array", "")
        flags = ohh.get("flags") if type(ohh.get("flags")) is list else []
        board: list[int | None] = []
        street = 0
        last_order = -1
        last_id: int | None = None
        for index, item in enumerate(rounds):
            path = f"rounds[{index}]"
            _typed(item, "object", path)
            self.unknown(item, _ROUND_KEYS, path)
            number = _get(item, "id", "integer", path)
            if last_id is not None and number <= last_id:
                raise HandProblem(f"{path}.id: not after the round before ({number})")
            last_id = number
            name = _get(item, "street", "string", path)
            order = _ORDER.get(name)
            if order is None:
                raise HandProblem(f"{path}.street: unknown street ({name[:30]!r})")
            if index == 0 and name != "Preflop":
                raise HandProblem(f"{path}.street: the first round is not Preflop ({name!r})")
            # Each board street follows the one before it; Showdown may follow any.
            if order <= last_order or (name in _BOARD_CARDS and order != last_order + 1):
                twice = " (a hand run twice is not read)" if "Run_It_Twice" in flags else ""
                raise HandProblem(f"{path}.street: {name} out of order{twice}")
            last_order = order
            cards = _cards(item.get("cards"), f"{path}.cards")
            if name in _BOARD_CARDS:
                if len(cards) != _BOARD_CARDS[name]:
                    raise HandProblem(
                        f"{path}.cards: a {name} round of {len(cards)} cards, not"
                        f" {_BOARD_CARDS[name]}"
                    )
                board.extend(cards)
            elif cards:
                raise HandProblem(f"{path}.cards: board cards in a {name} round")
            street = _STREETS.get(name, street)
            self._actions(item, path, street, scale, players, record)
        if last_order < 0:
            raise HandProblem("rounds: no Preflop round")
        return board

    def _actions(
        self,
        item: dict[str, Any],
        path: str,
        street: int,
        scale: int,
        players: dict[int, _Player],
        record: HandRecord,
    ) -> None:
        actions = _get(item, "actions", "array", path)
        showdown = item.get("street") == "Showdown"
        last_number: int | None = None
        for index, action in enumerate(actions):
            where = f"{path}.actions[{index}]"
            _typed(action, "object", where)
            self.unknown(action, _ACTION_KEYS, where)
            number = _get(action, "action_number", "integer", where)
            if last_number is not None and number <= last_number:
                raise HandProblem(f"{where}.action_number: not after the action before ({number})")
            last_number = number
            name = _get(action, "action", "string", where)
            if name == "Add to Pot":
                raise HandProblem(f"{where}: Add to Pot (money added to a pot has no hilo action)")
            if name in _NOTE_ACTIONS:
                self.note(NOTE_ACTION, where, action)
                continue
            if name not in _MONEY_KINDS and name not in _SILENT_KINDS and name not in _CARD_ACTIONS:
                raise HandProblem(f"{where}.action: unknown action ({name[:30]!r})")
            player_id = _get(action, "player_id", "integer", where)
            player = players.get(player_id)
            if player is None:
                raise HandProblem(f"{where}.player_id: no player with id {player_id}")
            amount = _get(action, "amount", "number", where, required=False)
            all_in = bool(_get(action, "is_allin", "boolean", where, required=False))
            cards = _cards(action.get("cards"), f"{where}.cards")
            row: dict[str, Any] = {"street": street, "player": player.name, "showdown": showdown}
            if showdown and name not in _CARD_ACTIONS:
                raise HandProblem(f"{where}.action: a {name} in the Showdown round")
            if name in _MONEY_KINDS:
                if amount is None:
                    raise HandProblem(f"{where}.amount: missing (a {name} puts chips in)")
                if name == "Bet" and street == 0:
                    raise HandProblem(f"{where}.action: a Bet preflop (the spec allows none)")
                row.update(
                    kind=_MONEY_KINDS[name],
                    amount=_money(amount, scale, f"{where}.amount"),
                    is_all_in=all_in,
                )
            elif amount is not None and amount != 0:
                raise HandProblem(f"{where}.amount: a {name} that puts chips in")
            if cards and name not in _CARD_ACTIONS:
                raise HandProblem(f"{where}.cards: cards on a {name}")
            # The hole-card rules decide (a show of one to three cards is a partial show); the
            # reject names the field.
            dealt = name == "Dealt Cards"
            if cards and sighting_kind(len(cards), True, dealt, HOLE_CARDS) == DAMAGED:
                if len(cards) in (5, 6) and name in ("Dealt Cards", "Shows Cards"):
                    raise SkippedGame(f"{O8_GAME} ({len(cards)} hole cards)")
                raise HandProblem(f"{where}.cards: {len(cards)} hole cards, not 4")
            if name in _SILENT_KINDS:
                row["kind"] = _SILENT_KINDS[name]
            elif name == "Dealt Cards":
                if cards:
                    record.dealt_to(player.name, list(cards))
                continue
            elif name == "Shows Cards":
                row["kind"] = "show"
                if cards:
                    record.shown_by(player.name, list(cards))
                    record.showdowns.append({"player": player.name, "cards": cards})
            elif name == "Mucks Cards":
                row["kind"] = "muck"
                if cards:
                    record.shown_by(player.name, list(cards))
            record.actions.append(row)

    def _pots(
        self,
        ohh: dict[str, Any],
        scale: int,
        players: dict[int, _Player],
        record: HandRecord,
    ) -> tuple[int, int, list[int]]:
        """Total pot (gross), rake (with jackpots) and each pot's net amount, by number; each
        win a collection of its pot."""
        items = _get(ohh, "pots", "array", "")
        pots: list[tuple[int, int, int, list[dict[str, Any]]]] = []
        numbers: set[int] = set()
        for index, pot in enumerate(items):
            path = f"pots[{index}]"
            _typed(pot, "object", path)
            self.unknown(pot, _POT_KEYS, path)
            number = _small(_get(pot, "number", "integer", path), f"{path}.number", 0, 127)
            if number in numbers:
                raise HandProblem(f"{path}.number: duplicate pot number {number}")
            numbers.add(number)
            amount = _money(_get(pot, "amount", "number", path), scale, f"{path}.amount")
            rake_value = _get(pot, "rake", "number", path, required=False)
            rake = 0 if rake_value is None else _money(rake_value, scale, f"{path}.rake")
            jackpot_value = _get(pot, "jackpot", "number", path, required=False)
            jackpot = (
                0 if jackpot_value is None else _money(jackpot_value, scale, f"{path}.jackpot")
            )
            if jackpot:
                self.note(NOTE_FIELD, f"{path}.jackpot", jackpot_value)
            wins = []
            for win_index, win in enumerate(_get(pot, "player_wins", "array", path)):
                where = f"{path}.player_wins[{win_index}]"
                _typed(win, "object", where)
                self.unknown(win, _WIN_KEYS, where)
                player_id = _get(win, "player_id", "integer", where)
                player = players.get(player_id)
                if player is None:
                    raise HandProblem(f"{where}.player_id: no player with id {player_id}")
                won = _money(_get(win, "win_amount", "number", where), scale, f"{where}.win_amount")
                for key in _WIN_NOTES:
                    self.optional_amount(win, key, where)
                if won:
                    wins.append(collection_row(player.name, won, pot_index=number))
            pots.append((number, amount, rake + jackpot, wins))
        pots.sort(key=lambda pot: pot[0])
        for _, _, _, wins in pots:
            record.collections.extend(wins)
        total = sum(amount for _, amount, _, _ in pots)
        taken = sum(rake for _, _, rake, _ in pots)
        if total >= MAX_MINOR_UNITS:
            raise HandProblem("pots: total out of range")
        return total, taken, [amount - rake for _, amount, rake, _ in pots]


def _return_uncalled(record: HandRecord, pot: int) -> None:
    """Write out the uncalled bet the pots leave out (the spec has no action for it): an
    ``uncalled_return`` of the unmatched top (`unmatched_top`), after the last action of its
    owner's last street."""
    top = unmatched_top(record, pot)
    if top is None:
        return
    player, excess = top
    last = max(
        position
        for position, row in enumerate(record.actions)
        if row["player"] == player and row["kind"] in ("post_sb", "post_bb", "call", "bet", "raise")
    )
    street = record.actions[last]["street"]
    after = max(
        (
            position
            for position, row in enumerate(record.actions)
            if row["street"] == street and not row.get("showdown")
        ),
        default=last,
    )
    record.actions.insert(
        after + 1,
        {"street": street, "player": player, "kind": "uncalled_return", "amount": excess},
    )


def _with_notes(
    result: ParseResult, notes: dict[int, list[tuple[str, str]]], source_file: str
) -> ParseResult:
    """The result with the kept facts of its stored hands in ``notes``."""
    if not notes:
        return result
    hands = result.tables["hands"]
    rows: dict[str, list[Any]] = {name: [] for name in NOTES.names}
    for hand_id, offset in zip(
        hands.column("hand_id").to_pylist(), hands.column("source_offset").to_pylist(), strict=True
    ):
        for kind, text in notes.get(offset, []):
            rows["site"].append(SITE)
            rows["hand_id"].append(hand_id)
            rows["source_file"].append(source_file)
            rows["source_offset"].append(offset)
            rows["line_number"].append(1)
            rows["text"].append(text)
            rows["kind"].append(kind)
    if not rows["text"]:
        return result
    ours = pa.Table.from_pydict(rows, schema=NOTES)
    result.tables["notes"] = pa.concat_tables([result.tables["notes"], ours])
    return result
