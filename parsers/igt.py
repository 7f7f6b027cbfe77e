"""IGT JSON hand histories (the Boss Media schema as JSON), Omaha Hi/Lo.

**Unconfirmed on real Omaha Hi/Lo data**: no IGT export has been seen. site-formats.md ("IGT")
quotes public samples (``HandHistories.Parser.UnitTests/SampleHandHistories/IGT``) as the Boss
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

Keys are the Boss attribute names in any case, so the decoding is Boss's
(`parsers.boss.read_boss_hand`): card ids, blinds, increments, per-player totals with a half
type, the pot after rake, silent uncalled bets derived from the printed pot.
"""

from __future__ import annotations

import dataclasses
import json
import re
from typing import Any, ClassVar

from parsers.boss import BossParser, read_boss_hand
from parsers.xml_hands import HandProblem, HandRecord, XmlHandParser
from parsers.xml_safe import MAX_DEPTH
from pipeline.profiles import SiteProfile

__all__ = ["SITE", "IgtParser"]

SITE = "igt"


class IgtParser(XmlHandParser):
    """Parser for IGT JSON hand histories (unconfirmed on real Omaha Hi/Lo data)."""

    site: ClassVar[str] = SITE
    # As Boss: one total per player with a half type, the pot after rake, the rake printed.
    profile: ClassVar[SiteProfile] = dataclasses.replace(BossParser.profile, site=SITE)
    start_tag: ClassVar[re.Pattern[str]] = re.compile(r"^[ \t]*\{")
    hand_end: ClassVar[str] = "}"
    sniff_pattern: ClassVar[re.Pattern[str]] = re.compile(r'(?m)^\s*\{.*"game"\s*:\s*"GAME_[A-Z]+"')
    hand_id_pattern: ClassVar[re.Pattern[str]] = re.compile(r'"id"\s*:\s*"?([0-9A-Za-z-]+)')

    def split_element(self, piece: str) -> tuple[str, str]:
        return piece.strip(), ""  # one JSON object per line

    def read_hand(self, text: str, context: dict[str, Any]) -> HandRecord:
        document = _load(text)
        if not isinstance(document, dict):
            raise HandProblem("a hand is not a JSON object")
        header = {
            _boss_name(key): _text(value) or ""
            for key, value in document.items()
            if not isinstance(value, list | dict)
        }
        elements: list[dict[str, Any]] = []
        for player in _objects(document, "players"):
            elements.append({"tag": "PLAYER", **_attributes(player)})
        for action in _objects(document, "actions"):
            elements.append({"tag": "ACTION", **_attributes(action)})
        showdown = _lookup(document, "showdown")
        if isinstance(showdown, dict):
            elements.append(
                {
                    "tag": "SHOWDOWN",
                    **_attributes(showdown),
                    "results": [_attributes(result) for result in _objects(showdown, "results")],
                }
            )
        return read_boss_hand(header, elements)


def _load(text: str) -> Any:
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
    if _depth(document) > MAX_DEPTH:
        raise HandProblem(f"unsafe JSON: nested deeper than {MAX_DEPTH}")
    return document


def _depth(value: Any) -> int:
    """Nesting depth, iteratively (a hostile document must not exhaust the stack)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        deepest = max(deepest, level)
        if level > MAX_DEPTH:
            return level
        children = (
            item.values() if isinstance(item, dict) else item if isinstance(item, list) else ()
        )
        stack.extend((child, level + 1) for child in children)
    return deepest


def _boss_name(key: str) -> str:
    # IGT's "gameType" names the game (OMAHAHILO), not Boss's real/play GAMETYPE.
    return "IGT_GAMETYPE" if key.lower() == "gametype" else key.upper()


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


def _attributes(item: dict[str, Any]) -> dict[str, Any]:
    attributes: dict[str, Any] = {"cards": [_text(card) for card in item.get("cards") or []]}
    for key, value in item.items():
        if key.lower() in ("cards", "results"):
            continue
        if isinstance(value, list | dict):
            raise HandProblem(f"unexpected nested value under {key[:30]!r}")
        attributes[_boss_name(key)] = (_text(value) or "").strip()
    return attributes
