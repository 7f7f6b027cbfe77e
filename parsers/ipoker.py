"""iPoker XML hand histories (``<session>`` files of ``<game gamecode=…>`` elements), Omaha Hi/Lo.

**Unconfirmed on real Omaha Hi/Lo data**: no iPoker O8 export has been seen. The layout follows
site-formats.md ("iPoker") and the public Stud Hi-Lo and Omaha samples of fpdb (fpdb-3
``regression-test-files/cash/iPoker``); the tests use small documents written from them.

What iPoker writes, and so what this parser records:

- A session: ``<session sessioncode=…><general>…<gametype>Omaha Hi-Lo PL €0.05/€0.10</gametype>
  <tablename>…<currency>EUR</currency><nickname>Hero</nickname>…</general>`` then many
  ``<game gamecode="N">`` elements, often several on one line (``</game><game …>``). The session
  ``<general>`` is printed once, before the first game: it is the context of the games after it
  (remembered across the blocks of a file). ``<tournamentcode>`` marks a tournament (chips).
- Each game: ``<general><startdate>2011-08-04 04:49:36</startdate><players><player seat= name=
  chips="$4.98" dealer="1" win="$0.21" bet="$0.08"/>…``. No zone is printed: times are stored
  as UTC as printed. A seat with an empty name is empty.
- ``<round no="0">`` blinds, ``1`` preflop, ``2``–``4`` flop, turn, river. ``<action no= player=
  type= sum=>`` in ``no`` order (the file does not list them in order): type 0 fold, 1 small
  blind, 2 big blind (above the big blind: both, the rest dead), 3 call, 4 check, 5 bet,
  6 raise by (chips added), 7 all-in (chips added), 9 sit out (a fold), 15 ante, 23 raise to
  (street total); 8 is no action.
- Cards are suit first (``DK``, ``C10``; ``X`` hidden): ``<cards type="Pocket" player=>``, and
  ``Flop``/``Turn``/``River`` for the board. When two or more players are still in at the end,
  the known cards of those players are their shown hands.
- Payouts: ``win="€N"`` per player: one total per player, no halves, no pots. No rake and no
  total pot are printed (the audit infers the rake); uncalled bets are not printed.
"""

from __future__ import annotations

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
    cached_when_short,
    card,
    check_board,
    collection_row,
    largest_posts,
    minor_units,
    read_element,
    seat_row,
    small_number,
)
from parsers.engine.xml_safe import XmlRefused, attribute, read_document
from pipeline.profiles import SiteProfile

__all__ = ["SITE", "IPokerParser"]

SITE = "ipoker"
O8_GAMES = ("Omaha Hi-Lo", "Omaha HiLow", "Omaha Hi/Lo")
LIMITS = {
    "No limit": "NL",
    "Pot limit": "PL",
    "Limit": "FL",
    "NL": "NL",
    "SL": "NL",
    "LZ": "NL",
    "PL": "PL",
    "LP": "PL",
    "L": "FL",
    "FL": "FL",
}
_GAMETYPE = re.compile(
    r"^(?P<game>.+?) (?P<limit>No limit|Pot limit|Limit|NL|SL|LZ|PL|LP|FL|L)"
    r"(?: (?P<small>[^ /]+)/(?P<big>[^ /]+))?(?: Ante .*)?$"
)
STREETS = {"0": 0, "1": 0, "2": 1, "3": 2, "4": 3}
BOARD_TYPES = ("Flop", "Turn", "River")
_SESSION_GENERAL = re.compile(r"<general>.*?</general>", re.DOTALL)
_WRAPPERS = re.compile(r"<\?xml[^>]*\?>|<session\b[^>]*>|</session>")
_ISO_TIME = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}")
DATE_FORMATS = (
    "%Y-%m-%d %H:%M:%S",
    "%d-%m-%Y %H:%M:%S",
    "%d/%m/%Y %H:%M:%S",
    "%Y/%m/%d %H:%M:%S",
    "%d.%m.%Y %H:%M:%S",
    "%Y-%m-%d %H:%M",
)


def ipoker_amount(text: str | None, scale: int, what: str) -> int:
    """An iPoker amount (``€0.79``, ``$4.98``, ``1 500``, ``0,05``) in minor units."""
    if text is None:
        raise HandProblem(f"missing amount ({what})")
    value = _known_amount(text, scale)
    return value if value is not None else _amount(text, scale, what)


@cached_when_short(64, maxsize=4096)  # a session repeats a few dozen amounts
def _known_amount(text: str, scale: int) -> int | None:
    """The amount of ``text``, or None when it is unreadable (`_amount` then says why)."""
    try:
        return _amount(text, scale, "")
    except HandProblem:
        return None


def _amount(text: str, scale: int, what: str) -> int:
    cleaned = _NOT_AMOUNT.sub("", text)
    if "," in cleaned and "." not in cleaned and _DECIMAL_COMMA.fullmatch(cleaned):
        cleaned = cleaned.replace(",", ".")  # a decimal comma
    return minor_units(cleaned.replace(",", "") or text, scale, what)


_NOT_AMOUNT = re.compile(r"[^\d.,]")
_DECIMAL_COMMA = re.compile(r"\d+,\d{1,2}")


@cached_when_short(16)  # 52 cards in a few spellings
def ipoker_card(token: str) -> int | None:
    """``DK`` → Kd, ``C10`` → Tc; None for ``X`` or an unreadable token."""
    token = token.strip()
    return card(token[1:], token[:1]) if len(token) >= 2 else None


class IPokerParser(XmlHandParser):
    """Parser for iPoker XML hand histories (unconfirmed on real Omaha Hi/Lo data)."""

    site: ClassVar[str] = SITE
    # One total per player; no rake and no total printed; uncalled bets not printed.
    profile: ClassVar[SiteProfile] = SiteProfile(
        site=SITE,
        halves_labelled=False,
        total_pot_is_gross=True,
        raise_cap=4,
        payout_lines="per_player",
        rake_printed=False,
        uncalled_printed=False,
    )
    start_tag: ClassVar[re.Pattern[str]] = re.compile(r'<game gamecode="')
    hand_end: ClassVar[str] = "</game>"
    closing_tag_may_follow: ClassVar[bool] = True  # ``</game><game gamecode=…>`` lines
    # A session header (its <general> can run past the first lines) or a game.
    sniff_pattern: ClassVar[re.Pattern[str]] = re.compile(
        r'<session sessioncode="-?[0-9]*">|<game gamecode="[0-9]+">'
    )
    hand_id_pattern: ClassVar[re.Pattern[str]] = re.compile(r'<game gamecode="([^"]+)"')

    def outside_text(self, text: str, context: dict[str, Any]) -> str | None:
        for found in _SESSION_GENERAL.finditer(text):
            try:
                general = read_document(found.group(0), "session general element")
            except XmlRefused as refused:
                return f"session header: {refused}"
            context["session"] = {child.tag: (child.text or "").strip() for child in general}
        rest = _WRAPPERS.sub("", _SESSION_GENERAL.sub("", text))
        return next((line for line in rest.split("\n") if line.strip()), None)

    def read_hand(self, text: str, context: dict[str, Any]) -> HandRecord:
        root = read_element(text, "game")
        session = context.get("session")
        if session is None:
            raise HandProblem("no session <general> before the game: game and stakes unknown")
        return _read(root, session)


def _start_time(text: str) -> datetime | None:
    """A printed start time as UTC; None when no known form reads it."""
    if _ISO_TIME.fullmatch(text):  # the common form, and strptime costs 15 µs a call
        try:
            return datetime.fromisoformat(text).replace(tzinfo=UTC)
        except ValueError:
            return None
    for date_format in DATE_FORMATS:
        try:
            return datetime.strptime(text, date_format).replace(tzinfo=UTC)
        except ValueError:
            continue
    return None


def _read(root: Element, session: dict[str, str]) -> HandRecord:
    hand_id = attribute(root, "gamecode") or ""
    found = _GAMETYPE.match(session.get("gametype", ""))
    if found is None:
        raise HandProblem(f"unrecognised game type {session.get('gametype', '')[:60]!r}")
    if found["game"] not in O8_GAMES:
        raise SkippedGame(found["game"])
    limit_type = LIMITS[found["limit"]]
    tournament_id = session.get("tournamentcode") or None
    scale = 1 if tournament_id else 100
    currency = "CHIPS" if tournament_id else (session.get("currency") or None)
    if session.get("mode") == "play":
        currency = "PLAY"
    if currency is None:
        raise HandProblem("no session currency")
    general = root.find("general")
    if general is None:
        raise HandProblem("truncated hand: no <general>")
    started_text = (general.findtext("startdate") or "").strip()
    started_at = _start_time(started_text)
    if started_at is None:
        raise HandProblem(f"unreadable start time {started_text[:30]!r}")

    record = HandRecord(hand_id=hand_id, hand={})
    button = None
    wins: list[tuple[str, int]] = []
    for entry in general.iter("player"):
        name = attribute(entry, "name")
        seat = small_number(attribute(entry, "seat"), 3)
        if name is None:
            continue  # an empty seat
        if seat is None:
            raise HandProblem("unreadable player seat")
        record.seats.append(
            seat_row(seat, name, ipoker_amount(attribute(entry, "chips"), scale, "chips"))
        )
        if attribute(entry, "dealer") == "1":
            button = seat
        wins.append((name, ipoker_amount(attribute(entry, "win") or "0", scale, "win")))
    if button is None:
        raise HandProblem("no dealer seat")
    hero = session.get("nickname") or None
    if hero:
        record.heroes.append(hero)

    small_stake = big_stake = None
    if found["small"] and found["big"]:
        small_stake = ipoker_amount(found["small"], scale, "stakes")
        big_stake = ipoker_amount(found["big"], scale, "stakes")
    fixed = limit_type == "FL"
    # Fixed limit prints the bets (fpdb's table: the big blind is half the big bet, the
    # small blind half that); elsewhere the blinds.
    big_blind_size = small_stake if fixed else big_stake

    board: list[int | None] = []
    numbered: list[tuple[int, int, Element]] = []
    folded: set[str] = set()
    known_cards: dict[str, list[int | None]] = {}
    for round_element in root.iter("round"):
        street = STREETS.get(attribute(round_element, "no") or "")
        if street is None:
            raise HandProblem(f"unrecognised round {attribute(round_element, 'no')!r}")
        for cards in round_element.iter("cards"):
            kind = attribute(cards, "type")
            tokens = (cards.text or "").split()
            codes = [ipoker_card(token) for token in tokens]
            if kind in BOARD_TYPES:
                board.extend(codes)
            elif kind == "Pocket":
                player = attribute(cards, "player") or ""
                if any(code is not None for code in codes):
                    # A hand prints every player's pocket cards alike: the hero's are his deal.
                    if player == hero:
                        record.dealt_to(player, codes)
                    else:
                        record.shown_by(player, codes)
                    known_cards[player] = codes
        for action in round_element.iter("action"):
            number = small_number(attribute(action, "no"), 6)
            if number is None:
                raise HandProblem("unreadable action number")
            numbered.append((number, street, action))
    for _, street, action in sorted(numbered, key=lambda item: item[0]):
        player = attribute(action, "player") or ""
        kind = attribute(action, "type") or ""
        row: dict[str, Any] = {"street": street, "player": player}
        if kind in ("0", "9"):
            record.actions.append({**row, "kind": "fold"})
            folded.add(player)
        elif kind == "4":
            record.actions.append({**row, "kind": "check"})
        elif kind == "8":
            continue
        else:
            amount = ipoker_amount(attribute(action, "sum"), scale, f"action type {kind}")
            if kind == "1":
                record.actions.append({**row, "kind": "post_sb", "amount": amount})
            elif kind == "2":
                if big_blind_size is not None and amount > big_blind_size:
                    record.actions.append(
                        {**row, "kind": "post_dead", "amount": amount - big_blind_size}
                    )
                    amount = big_blind_size
                record.actions.append({**row, "kind": "post_bb", "amount": amount})
            elif kind == "15":
                record.actions.append({**row, "kind": "ante", "amount": amount})
            elif kind == "3":
                record.actions.append({**row, "kind": "call", "amount": amount})
            elif kind == "5":
                record.actions.append({**row, "kind": "bet", "amount": amount})
            elif kind == "6":
                record.actions.append({**row, "kind": "raise", "amount": amount})
            elif kind == "23":
                record.actions.append({**row, "kind": "raise", "to": amount})
            elif kind == "7":
                record.actions.append(all_in_row(row, amount))
            else:
                raise HandProblem(f"unrecognised action type {kind[:10]!r}")
    check_board(board)
    still_in = {seat["player"] for seat in record.seats} - folded
    if len(still_in) > 1:  # a showdown: the cards of those still in were shown
        for name, shown in known_cards.items():
            if name in still_in:
                record.showdowns.append({"player": name, "cards": shown})
    record.collections = [collection_row(player, amount) for player, amount in wins if amount > 0]
    if not record.collections:
        raise HandProblem("truncated hand: nobody wins a pot")

    posted = largest_posts(record.actions)
    record.hand = {
        "tournament_id": tournament_id,
        "table_name": session.get("tablename") or None,
        "limit_type": limit_type,
        "currency": currency,
        "money_scale": scale,
        "small_blind": posted["post_sb"] if fixed or small_stake is None else small_stake,
        "big_blind": posted["post_bb"] if fixed or big_stake is None else big_stake,
        "small_bet": small_stake if fixed else None,
        "big_bet": big_stake if fixed else None,
        "ante": posted["ante"],
        "max_seats": None,
        "button_seat": button,
        "started_at": started_at,
        "time_zone": None,
        "board": board,
        "total_pot": None,
        "rake": None,
    }
    return record
