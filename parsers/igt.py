"""IGT JSON hand histories (the Boss Media schema as JSON), Omaha Hi/Lo.

One real export is in ``../shared/corpus/IGT``: ``{"history": [hand, …]}`` with ``player``,
``action`` and ``showDown.result`` lists, cards as ``[{"link": "35"}]`` numbered deuce first,
millisecond dates and street totals with each player's ``bankRoll`` after the action
(`_as_flat_hand` reads it into the flat shape below). site-formats.md ("IGT") quotes the
public samples (``HandHistories.Parser.UnitTests/SampleHandHistories/IGT``) as the Boss
schema in JSON: ``"game":"GAME_OMAHL","gameType":"OMAHAHILO","limit":"Pot Limit"``,
``"winType":"WINTYPE_HILO","handExt":"8 7 5 4 2 ","win":"6.57"``, ``"mainpot":"6.57",
"rake":"0.18"`` (the pot after rake). This parser reads that shape, one hand per line (JSON
Lines):

``{"id": "…", "table": "…", "game": "GAME_OMAHL", "gameType": "OMAHAHILO", "gameKind":
"GAMEKIND_CASH", "tableCurrency": "EUR", "limit": "Pot Limit", "stakes": "0.05/0.10",
"date": "1341335256", "players": [{"name", "seat", "amount", "state", "dealer"}],
"actions": [{"type": "HAND_BLINDS", "player", "kind", "value"}, {"type": "HAND_BOARD",
"value": "BOARD_FLOP", "cards": ["51", "12", "13"]}, …], "showdown": {"pot", "rake",
"mainpot", "results": [{"winType", "player", "win", "hand", "handExt", "cards"}]}}``

Keys are the Boss attribute names in any case, so the decoding is the Boss schema's
(`parsers.engine.boss_schema.read_boss_hand`, which Boss's XML uses too): blinds, increments,
per-player totals with a half type, the pot after rake, silent uncalled bets derived from the
printed pot. IGT's own are its card ids (`igt_card`), its JSON shapes and its profile.
"""

from __future__ import annotations

import json
import re
from decimal import Decimal
from typing import Any, ClassVar

import numpy as np
import polars as pl

from parsers.base import ParseResult
from parsers.columns import CARD_CODES, RANKS
from parsers.engine.boss_schema import read_boss_hand
from parsers.engine.structured import (
    HandProblem,
    HandRecord,
    SkippedGame,
    XmlHandParser,
    cached_when_short,
    collector_paused,
    json_depth,
    small_number,
)
from parsers.engine.xml_safe import MAX_DEPTH
from pipeline.profiles import SiteProfile

__all__ = ["SITE", "IgtParser"]

SITE = "igt"


class IgtParser(XmlHandParser):
    """Parser for IGT JSON hand histories."""

    site: ClassVar[str] = SITE
    # As Boss prints them (the same schema): one total per player with a half type, the pot
    # printed after rake, the rake printed; uncalled bets handed back silently are derived
    # from the printed pot.
    profile: ClassVar[SiteProfile] = SiteProfile(
        site=SITE,
        halves_labelled=False,
        total_pot_is_gross=False,
        raise_cap=4,
        payout_lines="per_player",
        rake_printed=True,
        uncalled_printed=True,
    )
    start_tag: ClassVar[re.Pattern[str]] = re.compile(r"^[ \t]*\{")
    hand_end: ClassVar[str] = "}"
    sniff_pattern: ClassVar[re.Pattern[str]] = re.compile(
        r'(?m)^\ufeff?\s*\{.*"game"\s*:\s*"GAME_[A-Z]+"'
    )
    hand_id_pattern: ClassVar[re.Pattern[str]] = re.compile(r'"id"\s*:\s*"?([0-9A-Za-z-]+)')

    def parse(self, lines: pl.Series, offsets: np.ndarray, source_file: str) -> ParseResult:
        """Parse a block; a real export's ``{"history": [hand, …]}`` line is read hand by hand."""
        with collector_paused():
            return self._parse_histories(lines, offsets, source_file)

    def _parse_histories(
        self, lines: pl.Series, offsets: np.ndarray, source_file: str
    ) -> ParseResult:
        texts: list[str] = lines.to_list()
        if not any(_HISTORY.match(text) for text in texts):
            return super().parse(lines, offsets, source_file)
        expanded: list[str] = []
        expanded_offsets: list[int] = []
        for text, offset in zip(texts, offsets.tolist(), strict=True):
            for hand in _history_hands(text, self._decoded):
                expanded.append(hand)
                expanded_offsets.append(offset)
        try:
            return super().parse(
                pl.Series("line", expanded, dtype=pl.String),
                np.array(expanded_offsets, dtype=np.int64),
                source_file,
            )
        finally:
            self._decoded.clear()

    def __init__(self) -> None:
        super().__init__()
        # What the one-hand documents read by `_history_hands` decode to, by their exact text
        # (one entry per line holding it): the hand is not read a second time. A record is
        # what the block keeps of a hand anyway, so this holds little more than the block's
        # records (a decoded document would hold ten times its text).
        self._decoded: dict[str, list[HandRecord | HandProblem | SkippedGame]] = {}

    def split_element(self, piece: str) -> tuple[str, str]:
        return piece.strip(), ""  # one JSON object per line

    def read_hand(self, text: str, context: dict[str, Any]) -> HandRecord:
        pending = self._decoded.get(text)
        if not pending:
            return _read_text(text)
        decoded = pending.pop()
        if isinstance(decoded, HandRecord):
            return decoded
        raise decoded


def _read_document(document: Any) -> HandRecord:
    """The hand of one decoded JSON document (flat, or a real export's one-hand history) by
    the flat read; its callers have tried the one-pass read (`_shallow_export`) first."""
    if not isinstance(document, dict):
        raise HandProblem("a hand is not a JSON object")
    document = _one_hand(document)
    if not isinstance(document, dict):
        raise HandProblem("a hand is not a JSON object")
    return read_boss_hand(*_flat_parts(_as_flat_hand(document)), igt_card)


def _read_text(text: str) -> HandRecord:
    """`_read_document(_load(text))`, with the depth walk skipped for a real export's hand."""
    document = _parse(text)
    parts = _shallow_export(document)
    if parts is None:
        _refuse_deep(document)
        return _read_document(document)
    return read_boss_hand(*parts, igt_card)


def _one_hand(document: dict[str, Any]) -> Any:
    """The hand of a real export of one hand (``{"history": [hand]}``), read as it stands in
    the file; any other document is its own hand."""
    history = _lookup(document, "history")
    if isinstance(history, list) and len(history) == 1 and len(document) == 1:
        return history[0]
    return document


def _shallow_export(document: Any) -> tuple[dict[str, str], list[dict[str, Any]]] | None:
    """`_exported_parts` of a document as `_read_document` unwraps it, or None.

    What `_exported_parts` accepts is nested at most `_EXPORT_DEPTH` deep, so such a document
    (inside a one-hand ``history`` at most) needs no `json_depth` walk: it is below `MAX_DEPTH`.
    `_exported_parts` itself reads a fixed few levels only, without recursion, so a hostile
    document is safe to look at first; any other goes through `json_depth` as before.
    """
    if type(document) is not dict:
        return None
    document = _one_hand(document)
    if type(document) is not dict:
        return None
    return _exported_parts(document)


def _refuse_deep(document: Any) -> None:
    if json_depth(document, MAX_DEPTH) > MAX_DEPTH:
        raise HandProblem(f"unsafe JSON: nested deeper than {MAX_DEPTH}")


def _flat_parts(document: dict[str, Any]) -> tuple[dict[str, str], list[dict[str, Any]]]:
    """A flat-shape hand as `read_boss_hand` takes it: header values and elements."""
    header = _header(document)
    elements = [_attributes(player, "PLAYER") for player in _objects(document, "players")]
    elements += [_attributes(action, "ACTION") for action in _objects(document, "actions")]
    showdown = _lookup(document, "showdown")
    if isinstance(showdown, dict):
        item = _attributes(showdown, "SHOWDOWN")
        item["results"] = [_attributes(result) for result in _objects(showdown, "results")]
        elements.append(item)
    return header, elements


def _header(document: dict[str, Any]) -> dict[str, str]:
    # A plain loop: a comprehension runs in a frame of its own (Python 3.11), dearer here.
    header: dict[str, str] = {}
    for key, value in document.items():
        # `_KNOWN_NAMES` holds `_boss_name` of the keys IGT writes, without a call.
        if type(value) is str:  # most values: `_text` of a string is the string
            header[_KNOWN_NAMES.get(key) or _boss_name(key)] = value
        elif not isinstance(value, list | dict):
            header[_KNOWN_NAMES.get(key) or _boss_name(key)] = _text(value) or ""
    return header


# The keys of a real export's hand and of its items (../shared/corpus/IGT), in their case.
_HAND_KEYS = frozenset(
    (
        *("player", "action", "showDown", "id", "session", "table", "game", "gameType"),
        *("gameKind", "tableCurrency", "limit", "date", "tableTourneyId", "endTime", "tableId"),
        *("handId", "rakeId", "currentPlayerRegTicketId", "anonymous", "tournamentTable"),
        *("stake", "bet", "pot", "win", "loss"),
    )
)
_PLAYER_KEYS = frozenset(("name", "seat", "state", "dealer", "id", "amount", "bounty"))
_ACTION_KEYS = frozenset(
    ("kind", "date", "type", "player", "value", "bankRoll", "card", "mainpot", "rake", "pot")
)
_SHOWDOWN_KEYS = frozenset(("date", "name", "result", "mainpot", "rake", "pot"))
_RESULT_KEYS = frozenset(
    ("player", "hand", "winCard", "winType", "date", "card", "folded", "handExt", "bankRoll")
    + ("win",)
)


def _exported_parts(hand: dict[str, Any]) -> tuple[dict[str, str], list[dict[str, Any]]] | None:
    """`_flat_parts(_as_flat_hand(hand))` in one pass, for a real export's hand as IGT writes
    it (its keys, string values, cards as ``[{"link": "35"}]``); None for anything else, which
    takes that longer way and so keeps its refusals and their order."""
    players, actions, showdown = hand.get("player"), hand.get("action"), hand.get("showDown")
    if (
        type(players) is not list
        or type(actions) is not list
        or type(showdown) is not dict
        or not hand.keys() <= _HAND_KEYS
        or type(results := showdown.get("result")) is not list
    ):
        return None
    for key, value in hand.items():
        # Its other values are read flat (`_header` passes over lists and objects): a nested
        # one declines, which keeps an accepted hand at most `_EXPORT_DEPTH` deep.
        if type(value) in (list, dict) and key not in _NESTED_HAND_KEYS:
            return None
    elements: list[dict[str, Any]] = []
    bankroll: dict[Any, Decimal | None] = {}
    for player in players:
        item = _exported_item(player, "PLAYER", _PLAYER_KEYS)
        if item is None:
            return None
        bankroll[player.get("name")] = _decimal(player.get("amount"))
        elements.append(item)
    for action in actions:
        item = _exported_item(action, "ACTION", _ACTION_KEYS)
        if item is None:
            return None
        fall = _bankroll_fall(bankroll, action)
        if fall is not None:
            item["VALUE"] = fall
        item.pop("BANKROLL", None)
        elements.append(item)
    showdown_item = _exported_item(showdown, "SHOWDOWN", _SHOWDOWN_KEYS)
    if showdown_item is None:
        return None
    showdown_results = []
    for result in results:
        item = _exported_item(result, None, _RESULT_KEYS)
        if item is None:
            return None
        item.pop("WINCARD", None)
        showdown_results.append(item)
    showdown_item["results"] = showdown_results
    elements.append(showdown_item)
    return _header(_flat_fields(hand)), elements


# The hand's values `_exported_parts` reads as lists and objects.
_NESTED_HAND_KEYS = frozenset(("player", "action", "showDown"))
# How deep a list passed over by `_exported_item` may be (a winCard list of links is 3).
_SKIPPED_DEPTH = 8
# The deepest hand `_exported_parts` accepts, the hand being 1: a result (4, in showDown's
# result list) and a passed-over list below it. With a one-hand ``history`` around it (2 more)
# this stays below `MAX_DEPTH`, which a test holds.
_EXPORT_DEPTH = 4 + _SKIPPED_DEPTH


def _exported_item(item: Any, tag: str | None, keys: frozenset[str]) -> dict[str, Any] | None:
    """`_attributes(_with_links(item), tag)` for an object of some of ``keys`` holding string
    (or true/false) values and ``card`` links as strings; None for anything else."""
    if type(item) is not dict or not item.keys() <= keys:
        return None
    attributes: dict[str, Any] = {} if tag is None else {"tag": tag}
    attributes["cards"] = []
    for key, value in item.items():
        name = _KNOWN_NAMES.get(key)
        if name is not None and type(value) is str:
            attributes[name] = value.strip()
        elif name is not None and type(value) is bool:
            attributes[name] = "Y" if value else "N"
        elif key == "card" and type(value) is list:
            cards = []
            for link in value:
                # Exactly {"link": "35"}: one key, and it is "link" holding a text.
                if type(link) is not dict or len(link) != 1:
                    return None
                text = link.get("link")
                if type(text) is not str:
                    return None
                cards.append(text)
            attributes["cards"] = cards
        elif key == "result" and tag == "SHOWDOWN" and type(value) is list:
            continue  # the results are read apart, each one checked as an item
        elif key in ("result", "winCard") and type(value) is list:
            # Not kept (the winning five cards), so not read: shallow ones only, as
            # `_EXPORT_DEPTH` counts on (links as in ``card``, 3 deep, seen without a walk).
            if not _plain_links(value) and json_depth(value, MAX_DEPTH) > _SKIPPED_DEPTH:
                return None
            continue
        else:
            return None
    return attributes


def _plain_links(value: list[Any]) -> bool:
    """Whether a list holds only objects of one text value (``{"link": "35"}``), 3 deep."""
    for link in value:
        if type(link) is not dict or len(link) != 1 or type(next(iter(link.values()))) is not str:
            return False
    return True


def _decoded_document(
    document: Any, parts: tuple[dict[str, str], list[dict[str, Any]]] | None = None
) -> HandRecord | HandProblem | SkippedGame:
    """`_read_document`'s record (from ``parts`` when `_shallow_export` gave them), or its
    refusal made anew: the raised one's traceback holds the frames that read the document,
    and so the whole decoded document."""
    try:
        if parts is not None:
            return read_boss_hand(*parts, igt_card)
        return _read_document(document)
    except HandProblem as problem:
        return HandProblem(str(problem))
    except SkippedGame as skipped:
        return SkippedGame(skipped.game)


def igt_card(link: str | None) -> int | None:
    """Card code of an IGT ``link`` id; None for a hidden (``b``) or unreadable card.

    Ranks run from the deuce (``link % 13``: 0 = 2 .. 12 = A), unlike Boss's ace-first ids:
    in the real export the winner's five ``winCard`` ids 35 48 8 34 19 are described as
    "two pair, jacks and tens" and the loser's 28 41 51 48 34 as "pair of fours", which only
    the deuce-first order gives. Suits are Boss's (d, c, h, s by ``link // 13``).

    >>> [igt_card(link) for link in ("0", "12", "51", "b")]
    [1, 49, 51, None]
    """
    code = _IGT_CODES.get(link)  # type: ignore[arg-type]
    if code is not None:
        return code
    number = small_number(link, 2)
    if number is None or number > 51:
        return None
    return CARD_CODES[RANKS[number % 13] + _SUITS[number // 13]]


_SUITS = "dchs"
# The 52 ids as printed, decoded once (as Boss's `_BOSS_CODES`).
_IGT_CODES = {
    str(number): CARD_CODES[RANKS[number % 13] + _SUITS[number // 13]] for number in range(52)
}


_HISTORY = re.compile(r'^\ufeff?\s*\{\s*"history"\s*:')


def _history_hands(
    text: str, decoded: dict[str, list[HandRecord | HandProblem | SkippedGame]] | None = None
) -> list[str]:
    """The hands of a ``{"history": [...]}`` document, one JSON text each; the line itself
    when it is not such a document (it is then read, or refused, as one hand). A document
    read here and kept as one hand is decoded at once, its record or refusal put in
    ``decoded`` under the text it was read from."""
    if not _HISTORY.match(text):
        return [text]
    bare = text.lstrip("\ufeff")
    try:
        document = _parse(bare)
    except HandProblem:
        return [text]
    hands = document.get("history") if isinstance(document, dict) else None
    if not isinstance(hands, list) or len(hands) < 2 or len(document) != 1:
        parts = _shallow_export(document)
        if parts is None and json_depth(document, MAX_DEPTH) > MAX_DEPTH:
            return [text]  # refused when the line is read as a hand, as `_load` refuses it
        if decoded is not None:
            decoded.setdefault(bare, []).append(_decoded_document(document, parts))
        return [text]
    if json_depth(document, MAX_DEPTH) > MAX_DEPTH:
        return [text]
    # Several hands in one document: each is read on its own, its text re-written compactly
    # (a rejected one keeps that text, at the document's offset).
    return [json.dumps(hand, separators=(",", ":")) for hand in hands]


def _as_flat_hand(hand: dict[str, Any]) -> dict[str, Any]:
    """A real export's hand in the flat shape `read_hand` reads.

    Real IGT files (``../shared/corpus/IGT``) write ``player``/``action``/``showDown.result``
    lists, cards as ``[{"link": "35"}]``, the date in milliseconds, ``stake``, and amounts as
    the player's street total, each action followed by the player's ``bankRoll``: the chips
    an action adds are the fall of that bankroll, which holds whichever way a value is meant.
    """
    if not any(key in hand for key in ("player", "action", "showDown")):
        return hand
    flat = _flat_fields(hand)
    players = [_with_links(player) for player in _list_of_objects(hand, "player")]
    # A name that is a list or an object cannot key the bankrolls: it is left out here, and
    # reading the player's values refuses the hand with its reason.
    bankroll = {
        name: _decimal(player.get("amount"))
        for player in players
        if not isinstance(name := player.get("name"), list | dict)
    }
    actions = []
    for action in _list_of_objects(hand, "action"):
        action = _with_links(action)
        fall = _bankroll_fall(bankroll, action)
        if fall is not None:
            action["value"] = fall
        action.pop("bankRoll", None)
        actions.append(action)
    flat["players"] = players
    flat["actions"] = actions
    showdown = hand.get("showDown")
    if isinstance(showdown, dict):
        results = [
            {key: value for key, value in _with_links(result).items() if key != "winCard"}
            for result in _list_of_objects(showdown, "result")
        ]
        flat["showdown"] = {
            **{key: value for key, value in showdown.items() if key != "result"},
            "results": results,
        }
    return flat


def _flat_fields(hand: dict[str, Any]) -> dict[str, Any]:
    """A real export's hand values in the flat shape, all but its player, action and
    showdown lists."""
    flat: dict[str, Any] = {
        key: value
        for key, value in hand.items()
        if key not in ("player", "action", "showDown", "id", "handId", "date", "stake")
    }
    flat["id"] = hand.get("handId") or hand.get("id")
    flat["stakes"] = hand.get("stake")
    date = str(hand.get("date") or "")
    flat["date"] = date[:-3] if len(date) == 13 and date.isdigit() else date  # milliseconds
    if hand.get("tournamentTable") is False:
        flat.pop("tableTourneyId", None)  # a cash table's id, not a tournament's
    return flat


def _bankroll_fall(bankroll: dict[Any, Decimal | None], action: dict[str, Any]) -> str | None:
    """The chips ``action`` adds, as text: the fall of its player's bankroll to the
    ``bankRoll`` printed after it (None where either is unknown, or the action has no value);
    ``bankroll`` moves on to that figure. A name that is a list or an object is nobody's."""
    name, after = action.get("player"), _decimal(action.get("bankRoll"))
    if isinstance(name, list | dict):
        name = None
    before = bankroll.get(name)
    if after is not None and name in bankroll:
        bankroll[name] = after
    if after is None or before is None or action.get("value") is None:
        return None
    return str(before - after)


def _list_of_objects(document: dict[str, Any], key: str) -> list[dict[str, Any]]:
    value = document.get(key) or []
    if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
        raise HandProblem(f"{key} is not a list of objects")
    return value


def _with_links(item: dict[str, Any]) -> dict[str, Any]:
    """``"card": [{"link": "35"}]`` → ``"cards": ["35"]``."""
    if "card" not in item:
        return dict(item)
    links = item["card"]
    if not isinstance(links, list) or not all(isinstance(link, dict) for link in links):
        raise HandProblem("card is not a list of objects")
    cards = [link.get("link") for link in links]
    return {**{key: value for key, value in item.items() if key != "card"}, "cards": cards}


def _decimal(value: Any) -> Decimal | None:
    if not isinstance(value, str) or not _PLAIN_AMOUNT.match(value):
        return None
    return Decimal(value)


_PLAIN_AMOUNT = re.compile(r"^[0-9]{1,16}(?:\.[0-9]{1,4})?$")


def _load(text: str) -> Any:
    document = _parse(text)
    _refuse_deep(document)
    return document


def _parse(text: str) -> Any:
    """The JSON of ``text``, its depth not yet checked (`_load` checks it)."""

    def refuse(constant: str) -> None:
        raise HandProblem(f"malformed JSON: {constant} is not a number")

    try:
        document = json.loads(text, parse_constant=refuse)
    except HandProblem:
        raise
    except ValueError as error:  # JSONDecodeError, or an integer of thousands of digits
        raise HandProblem(f"malformed JSON: {error}") from None
    except RecursionError:
        raise HandProblem(f"unsafe JSON: nested deeper than {MAX_DEPTH}") from None
    return document


@cached_when_short(64, maxsize=4096)  # a file repeats the same few keys
def _boss_name(key: str) -> str:
    # IGT's "gameType" names the game (OMAHAHILO), not Boss's real/play GAMETYPE.
    return "IGT_GAMETYPE" if key.lower() == "gametype" else key.upper()


@cached_when_short(64, maxsize=4096)  # a file repeats the same few keys
def _attribute_name(key: str) -> str | None:
    """The Boss name of an item's key; None for the nested ``cards`` and ``results``."""
    return None if key.lower() in ("cards", "results") else _boss_name(key)


def _text(value: Any) -> str | None:
    if value is None or isinstance(value, bool):
        return None if value is None else ("Y" if value else "N")
    return str(value)


def _lookup(document: dict[str, Any], key: str) -> Any:
    return next((value for name, value in document.items() if name.lower() == key), None)


def _objects(document: dict[str, Any], key: str) -> list[dict[str, Any]]:
    value = _lookup(document, key)
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
        raise HandProblem(f"{key} is not a list of objects")
    return value


def _attributes(item: dict[str, Any], tag: str | None = None) -> dict[str, Any]:
    """An item's values under their Boss names, ``cards`` as texts, and ``tag`` if given."""
    attributes: dict[str, Any] = {} if tag is None else {"tag": tag}
    cards = item.get("cards") or []
    if not isinstance(cards, list):  # a number would not iterate, a text would as digits
        raise HandProblem("cards is not a list")
    attributes["cards"] = [card if type(card) is str else _text(card) for card in cards]
    for key, value in item.items():
        name = _KNOWN_NAMES.get(key) or _attribute_name(key)
        if name is None:
            continue
        if type(value) is str:  # most values: `_text` of a string is the string
            attributes[name] = value.strip()
            continue
        if isinstance(value, list | dict):
            raise HandProblem(f"unexpected nested value under {key[:30]!r}")
        attributes[name] = (_text(value) or "").strip()
    return attributes


# The Boss names of the keys IGT writes, looked up without a call (other keys, and the
# nested ``cards`` and ``results``, go through `_attribute_name`).
_KNOWN_NAMES: dict[str, str] = {
    key: name
    for key in (
        *("name", "seat", "amount", "state", "dealer", "id", "bounty", "kind", "date", "type"),
        *("player", "value", "mainpot", "rake", "pot", "winType", "win", "hand", "handExt"),
        *("leftpot", "rightpot", "bankRoll", "winCard"),
        *("session", "table", "game", "gameType", "gameKind", "tableCurrency", "limit"),
        *("tableTourneyId", "endTime", "tableId", "handId", "rakeId", "anonymous"),
        *("currentPlayerRegTicketId", "tournamentTable", "stake", "bet", "loss", "folded"),
    )
    if (name := _attribute_name(key)) is not None
}
