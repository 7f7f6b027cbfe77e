"""Microgaming / Prima XML hand histories (``----PRIMA.DAT----``), Omaha Hi/Lo.

What Microgaming writes, and so what this parser records (site-formats.md, "Microgaming"):

- Files hold ``----PRIMA.DAT----`` markers, ``<Game hhversion="2" id= date="2012-09-27
  16:45:13" tablename= unicodetablename= stakes="1|2" betlimit="PL" gametype="Omaha H/L"
  currencysymbol="rCA=" playerseat="4" istournament="0" rake="300">`` elements and
  ``ExtendedTableName: …`` lines. ``gametype`` ``Omaha H/L`` is Omaha Hi/Lo; other games are
  skipped. No zone is printed: times are stored as UTC as printed.
- Names and the currency symbol are base64 UTF-16LE (``unicodealias``, ``currencysymbol``:
  ``rCA=`` is €). The plain ``alias`` is the player's name unless it lost characters (``?``),
  when the decoded ``unicodealias`` is used instead.
- ``<Seat num= alias= balance= dealer="true"/>``; ``playerseat`` is the recording player.
- ``<Action type="SmallBlind|BigBlind|Ante|Fold|Check|Call|Bet|Raise|AllIn" seat= value=>``:
  values are the chips added (``Call value="5.00"`` from a 2.00 big blind to 7.00).
  ``DealCards``/``ShowCards``/``DealFlop``/``DealTurn``/``DealRiver`` carry ``<Card value="10"
  suit="d"/>`` children.
- Payouts: ``<Action type="Win"><Seat num="2" amount="102.00" pot="0" lowhandwin="1"/>``: one
  total per player (``half`` and ``pot_index`` are not recorded: ``lowhandwin`` is unreliable,
  a public sample flags both winners). ``rake`` is in cents (``300`` = 3.00; 105.00 put in,
  102.00 won in the corpus hand). No total pot; uncalled bets are not printed.
"""

from __future__ import annotations

import base64
import binascii
import re
from datetime import UTC, datetime
from typing import Any, ClassVar
from xml.etree.ElementTree import Element

from parsers.engine.structured import (
    HandProblem,
    HandRecord,
    SkippedGame,
    XmlHandParser,
    all_in_row,
    card,
    check_board,
    collection_row,
    drop_winner_mucks,
    minor_units,
    paired_stakes,
    read_element,
    seat_row,
    small_number,
)
from parsers.engine.xml_safe import attribute
from pipeline.profiles import SiteProfile

__all__ = ["SITE", "MicrogamingParser"]

SITE = "microgaming"
O8_GAMES = ("Omaha H/L", "Omaha Hi/Lo", "Omaha Hi-Lo")
LIMITS = {"PL": "PL", "NL": "NL", "FL": "FL", "L": "FL"}
CURRENCIES = {"€": "EUR", "$": "USD", "£": "GBP"}
BOARD_STREETS = {"DealFlop": 1, "DealTurn": 2, "DealRiver": 3}
BETTING = {
    "SmallBlind": "post_sb",
    "BigBlind": "post_bb",
    "Ante": "ante",
    "Call": "call",
    "Bet": "bet",
    "Raise": "raise",
}
# Actions that carry nothing for the canonical tables.
INFORMATIONAL = {"SitOut", "SitIn", "Leave", "Join", "Chat", "Disconnect", "Reconnect"}


def decode_utf16(text: str | None) -> str | None:
    """A base64 UTF-16LE attribute decoded; None when absent or unreadable."""
    if not text:
        return None
    try:
        return base64.b64decode(text, validate=True).decode("utf-16-le").strip() or None
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None


class MicrogamingParser(XmlHandParser):
    """Parser for Microgaming / Prima XML hand histories."""

    site: ClassVar[str] = SITE
    # One total per player; the rake printed (in cents), no total pot; uncalled bets silent.
    profile: ClassVar[SiteProfile] = SiteProfile(
        site=SITE,
        halves_labelled=False,
        total_pot_is_gross=True,
        raise_cap=4,
        payout_lines="per_player",
        rake_printed=True,
        uncalled_printed=False,
    )
    start_tag: ClassVar[re.Pattern[str]] = re.compile(r"<Game ")
    hand_end: ClassVar[str] = "</Game>"
    sniff_pattern: ClassVar[re.Pattern[str]] = re.compile(
        r'^\s*<Game hhversion="[0-9]+" id="[0-9]+"', re.MULTILINE
    )
    hand_id_pattern: ClassVar[re.Pattern[str]] = re.compile(r' id="([^"]+)"')

    def outside_line(self, line: str, context: dict[str, Any]) -> bool:
        stripped = line.strip()
        return stripped == "----PRIMA.DAT----" or stripped.startswith("ExtendedTableName: ")

    def read_hand(self, text: str, context: dict[str, Any]) -> HandRecord:
        return _read(read_element(text, "Game"))


def _cards(element: Element) -> list[int | None]:
    return [
        card(attribute(c, "value") or "", attribute(c, "suit") or "")
        for c in _children(element, "Card")
    ]


def _children(element: Element, tag: str) -> list[Element]:
    """``element.findall(tag)`` for a plain tag, without the cost of ElementPath."""
    return [child for child in element if child.tag == tag]


def _child(element: Element, tag: str) -> Element | None:
    """``element.find(tag)`` for a plain tag."""
    return next((child for child in element if child.tag == tag), None)


# The date as Microgaming prints it (``2012-09-27 16:45:13``), in ASCII digits.
_PLAIN_DATE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2}) ([0-9]{2}):([0-9]{2}):([0-9]{2})")


def _start_time(text: str) -> datetime:
    """``text`` read as ``%Y-%m-%d %H:%M:%S``; `HandProblem` when it is not such a time."""
    try:
        plain = _PLAIN_DATE.fullmatch(text)
        if plain is not None:
            # strptime costs ten times as much; on this exact form both take the same fields
            # and refuse the same impossible dates (month 13, 30 February, hour 24).
            year, month, day, hour, minute, second = map(int, plain.groups())
            return datetime(year, month, day, hour, minute, second)
        return datetime.strptime(text, "%Y-%m-%d %H:%M:%S")
    except ValueError:
        raise HandProblem("unreadable start time") from None


def _read(root: Element) -> HandRecord:
    hand_id = attribute(root, "id") or ""
    game = attribute(root, "gametype") or "unknown game"
    if game not in O8_GAMES:
        raise SkippedGame(game)
    tournament = attribute(root, "istournament") not in (None, "0")
    play = attribute(root, "realmoney") == "false"
    scale = 1 if tournament else 100
    if tournament:
        currency: str | None = "CHIPS"
    elif play:
        currency = "PLAY"
    else:
        currency = CURRENCIES.get(decode_utf16(attribute(root, "currencysymbol")) or "")
    if currency is None:
        raise HandProblem("unrecognised currency symbol")
    limit_type = LIMITS.get(attribute(root, "betlimit") or "")
    if limit_type is None:
        raise HandProblem(f"unrecognised bet limit {(attribute(root, 'betlimit') or '')[:20]!r}")
    started_at = _start_time(attribute(root, "date") or "")

    record = HandRecord(hand_id=hand_id, hand={})
    names: dict[str, str] = {}
    button = None
    seats_element = _child(root, "Seats")
    if seats_element is None:
        raise HandProblem("truncated hand: no <Seats>")
    for seat in _children(seats_element, "Seat"):
        number = attribute(seat, "num") or ""
        alias = attribute(seat, "alias")
        if alias is None or "?" in alias:
            alias = decode_utf16(attribute(seat, "unicodealias")) or alias
        seat_number = small_number(number, 3)
        if seat_number is None or alias is None:
            raise HandProblem("unreadable Seat element")
        names[number] = alias
        record.seats.append(
            seat_row(seat_number, alias, minor_units(attribute(seat, "balance"), scale, "balance"))
        )
        if attribute(seat, "dealer") == "true":
            button = seat_number
    if button is None:
        raise HandProblem("no dealer seat")
    hero = names.get(attribute(root, "playerseat") or "")
    if hero is not None:
        record.heroes.append(hero)

    def who(element: Element) -> str:
        number = attribute(element, "seat") or attribute(element, "num") or ""
        return names.get(number, f"seat {number}")

    gameplay = _child(root, "Gameplay")
    if gameplay is None:
        raise HandProblem("truncated hand: no <Gameplay>")
    street = 0
    board: list[int | None] = []
    won = False
    actions = record.actions
    for action in _children(gameplay, "Action"):
        kind = attribute(action, "type") or ""
        # Rows written out in full: merging a dict into each one costs more than the rest.
        if kind in BETTING:
            player = who(action)
            amount = minor_units(attribute(action, "value"), scale, kind)
            actions.append(
                {"street": street, "player": player, "kind": BETTING[kind], "amount": amount}
            )
        elif kind == "AllIn":
            amount = minor_units(attribute(action, "value"), scale, kind)
            actions.append(all_in_row({"street": street, "player": who(action)}, amount))
        elif kind in ("Fold", "Check"):
            actions.append({"street": street, "player": who(action), "kind": kind.lower()})
        elif kind == "DealCards":
            record.dealt_to(who(action), _cards(action))
        elif kind == "ShowCards":
            cards = _cards(action)
            record.shown_by(who(action), cards)
            record.showdowns.append({"player": who(action), "cards": cards})
            actions.append({"street": street, "player": who(action), "kind": "show"})
        elif kind == "MuckCards":
            actions.append({"street": street, "player": who(action), "kind": "muck"})
        elif kind in BOARD_STREETS:
            street = BOARD_STREETS[kind]
            board = [*board, *_cards(action)]
        elif kind == "Win":
            won = True
            for seat in _children(action, "Seat"):
                amount = minor_units(attribute(seat, "amount"), scale, "win")
                if amount > 0:
                    record.collections.append(collection_row(who(seat), amount))
        elif kind in INFORMATIONAL:
            continue
        else:
            raise HandProblem(f"unrecognised action type {kind[:40]!r}")
    if not won or not record.collections:
        raise HandProblem("truncated hand: nobody wins a pot")
    check_board(board)
    drop_winner_mucks(record)

    stakes = (attribute(root, "stakes") or "").split("|")
    blinds_and_bets = paired_stakes(stakes, limit_type, scale, record.actions)
    rake_text = attribute(root, "rake")
    rake = None
    if rake_text is not None and not tournament:
        # Printed in cents whatever the currency's unit.
        rake = minor_units(rake_text, 1, "rake") * scale // 100
    record.hand = {
        "tournament_id": None,
        "table_name": decode_utf16(attribute(root, "unicodetablename"))
        or attribute(root, "tablename"),
        "limit_type": limit_type,
        "currency": currency,
        "money_scale": scale,
        **blinds_and_bets,
        "max_seats": None,
        "button_seat": button,
        "started_at": started_at.replace(tzinfo=UTC),
        "time_zone": None,
        "board": board,
        "total_pot": None,
        "rake": rake,
    }
    return record
