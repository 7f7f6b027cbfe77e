"""Merge / Carbon Poker XML hand histories, Omaha Hi/Lo.

What Merge writes, and so what this parser records (site-formats.md, "Merge / Carbon"):

- A file opens with ``<description type="Omaha H/L8" stakes="Limit $1/$2"/>`` (``"… Tournament"``
  for tournaments; ``"HORSE Tournament"`` for a mixed rotation, whose games are told apart by
  each game's ``multigametype``: 34, 35 and 37 are Omaha Hi/Lo). The description is printed
  once, before the first game; the games after it are ``<game id="45547825-416"
  starttime="20111220050117" numholecards="4" gametype="35" seats="9" realmoney="true"
  data="20111220|Bohai (45547825)|45547825|45547825-416|false">`` elements.
- ``starttime`` is Eastern time (it matches the events' epoch-millisecond timestamps read in
  ET); the hand id is the ``id`` as printed. ``data`` holds the table name (cash) or the
  tournament and table number (``46630882-1``).
- Players are referred to by seat number (0-based; recorded as seat + 1, so seat 1 is the first
  seat and ``players dealer=`` maps the same way). Tournament ``balance`` is printed after the
  blinds and antes were posted (fpdb adds them back; the first hand of the corpus sit-and-go
  confirms it: 1,490 + the 10 small blind = the 1,500 starting stack), cash balances before.
- Events: ``SMALL_BLIND``/``BIG_BLIND``; ``RETURN_BLIND`` posts both (the big blind live, the
  rest dead); ``CALL``, ``BET`` and ``ALL_IN`` print the chips added; ``RAISE`` the street total
  (hands before 2010-09-08 ET printed the chips added, as fpdb notes); ``CHAT`` and seat
  housekeeping events are ignored, an unknown event type quarantines the hand.
- Cards: ``<cards type="HOLE" player=>`` (the recording player's), ``SHOWN``, ``MUCKED``;
  ``COMMUNITY`` repeats the whole board so far.
- Payouts: ``<winner amount="240.00" uncalled="false" potnumber="1" player="4" hand="Queen High
  Straight" pottype="h"/>``: ``half`` from ``pottype`` (``h`` high, ``l`` low, ``n`` a pot not
  split), ``pot_index`` = ``potnumber`` − 1. A winner row with ``uncalled="true"`` is an
  uncalled bet given back (recorded as ``uncalled_return``); otherwise an uncalled bet is inside
  the winner's amount (the corpus hand 45547825-416: 6.00 put in, a 1.00 bet unanswered, 5.75
  won). No rake and no total pot are printed (the audit infers the rake).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any, ClassVar
from xml.etree.ElementTree import Element
from zoneinfo import ZoneInfo

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
    drop_winner_mucks,
    largest_posts,
    minor_units,
    read_element,
    seat_row,
    small_number,
)
from parsers.engine.xml_safe import attribute
from pipeline.profiles import SiteProfile

__all__ = ["SITE", "MergeParser"]

SITE = "merge"
O8_GAME = "Omaha H/L8"
MIXES = ("HORSE", "HA", "RASH", "HO", "SHOE", "HOSE", "HAR")
# multigametype codes of a mixed rotation (fpdb's MergeToFpdb.Multigametypes).
MULTIGAME_NAMES = {
    "1": "Hold'em",
    "2": "Hold'em",
    "9": "Hold'em",
    "23": "Hold'em",
    "4": "Omaha",
    "34": O8_GAME,
    "35": O8_GAME,
    "37": O8_GAME,
    "38": "7 Card Stud",
    "39": "7 Card Stud",
    "41": "7 Card Stud",
    "42": "7 Card Stud",
    "43": "7 Card Stud Hi/Lo",
    "45": "7 Card Stud Hi/Lo",
    "46": "Razz",
    "47": "Razz",
    "49": "Razz",
}
LIMITS = {"No Limit": "NL", "Pot Limit": "PL", "Limit": "FL"}
STREETS = {"BLINDS": 0, "PREFLOP": 0, "POSTFLOP": 1, "POSTTURN": 2, "POSTRIVER": 3}
HALVES = {"h": "high", "l": "low", "n": None}
# Events that say nothing about the money or the cards of the hand.
INFORMATIONAL = {
    "CHAT",
    "PLAYER_OUT",
    "LEAVE",
    "JOIN",
    "SIT_IN",
    "DISCONNECTED",
    "RECONNECTED",
    "TIME_BANK",
    "TIMEBANK",
    "EXTRA_TIME",
    "WAIT_FOR_BB",
    "OBSERVER",
}
# Events that put chips in (the amount is read only for these).
PAYING = {
    "SMALL_BLIND",
    "BIG_BLIND",
    "INITIAL_BLIND",
    "ANTE",
    "RETURN_BLIND",
    "CALL",
    "BET",
    "RAISE",
    "COMPLETE",
    "ALL_IN",
}
EASTERN = ZoneInfo("America/New_York")
# Before this moment (ET) RAISE printed the chips added, after it the street total (fpdb).
RAISE_TO_SINCE = datetime(2010, 9, 8, tzinfo=EASTERN)

_DESCRIPTION = re.compile(r'^\s*<description type="(?P<type>[^"]*)" stakes="(?P<stakes>[^"]*)"')
_MULTIGAME_CODE = re.compile(r'\smultigametype="\s*([0-9]+)\s*"')
_STAKES = re.compile(r"\$?(?P<small>[\d.,]+)/\$?(?P<big>[\d.,]+)")


class MergeParser(XmlHandParser):
    """Parser for Merge / Carbon XML hand histories."""

    site: ClassVar[str] = SITE
    # Labelled halves per numbered pot; no rake printed (the audit infers it); an uncalled bet
    # is printed, as an ``uncalled="true"`` winner row or inside the winner's amount.
    profile: ClassVar[SiteProfile] = SiteProfile(
        site=SITE,
        halves_labelled=True,
        total_pot_is_gross=True,
        raise_cap=4,
        payout_lines="per_half",
        rake_printed=False,
        uncalled_printed=True,
    )
    start_tag: ClassVar[re.Pattern[str]] = re.compile(r'<game id="')
    hand_end: ClassVar[str] = "</game>"
    sniff_pattern: ClassVar[re.Pattern[str]] = re.compile(
        r'^\s*<game id="[0-9]+-[0-9]+" starttime="', re.MULTILINE
    )
    hand_id_pattern: ClassVar[re.Pattern[str]] = re.compile(r'<game id="([^"]+)"')

    def outside_line(self, line: str, context: dict[str, Any]) -> bool:
        found = _DESCRIPTION.match(line)
        if found:
            context["description"] = (found["type"], found["stakes"])
        return found is not None

    def read_hand(self, text: str, context: dict[str, Any]) -> HandRecord:
        if "description" not in context:
            raise HandProblem("no <description> before the game: game and stakes unknown")
        description, stakes = context["description"]
        if description.removesuffix(" Tournament").strip() in MIXES:
            # Most games of a mixed rotation are other games: their opening tag says so, and
            # reading the whole element (80% of a HORSE file's parse) would say nothing more.
            code = _MULTIGAME_CODE.search(text, 0, text.find(">"))
            game = MULTIGAME_NAMES.get(code[1]) if code else None
            if game is not None and game != O8_GAME:
                raise SkippedGame(game)
        return _Hand(read_element(text, "game"), description, stakes).record()


class _Hand:
    """The decoding of one ``<game>`` element."""

    def __init__(self, root: Element, description: str, stakes: str) -> None:
        self.root = root
        self.hand_id = attribute(root, "id") or ""
        tournament = description.endswith(" Tournament")
        base = description.removesuffix(" Tournament").strip()
        self.mixed = base if base in MIXES else None
        game = (
            MULTIGAME_NAMES.get(code, f"multigametype {code}")
            if self.mixed and (code := attribute(root, "multigametype") or "")
            else base
        )
        if game != O8_GAME:
            raise SkippedGame(game)
        if attribute(root, "numholecards") != "4":
            raise HandProblem("Omaha Hi/Lo game without four hole cards")
        self.limit_type = next(
            (code for name, code in LIMITS.items() if stakes.strip().startswith(name)), None
        )
        if self.limit_type is None:
            raise HandProblem(f"unrecognised stakes {stakes[:60]!r}")
        if stakes.strip().startswith("Half Pot Limit"):
            raise HandProblem("half pot limit is not a limit this dataset records")
        self.tournament = tournament
        play = attribute(root, "realmoney") == "false"
        self.currency = "CHIPS" if tournament else ("PLAY" if play else "USD")
        self.scale = 1 if tournament else 100
        self.stakes = _STAKES.search(stakes)
        started = attribute(root, "starttime") or ""
        try:
            local = datetime.strptime(started[:14], "%Y%m%d%H%M%S").replace(tzinfo=EASTERN)
        except ValueError:
            raise HandProblem(f"unreadable start time {started[:20]!r}") from None
        self.started_local = local
        self.started_at = local.astimezone(UTC)

    def amount(self, element: Element, what: str) -> int:
        return minor_units(attribute(element, "amount"), self.scale, what)

    def record(self) -> HandRecord:
        root = self.root
        players = root.find("players")
        if players is None:
            raise HandProblem("truncated hand: no <players>")
        names: dict[str, str] = {}
        seats: list[dict[str, Any]] = []
        for entry in players.iter("player"):
            seat_text = attribute(entry, "seat") or ""
            seat_number = small_number(seat_text, 3)
            name = attribute(entry, "nickname")
            if seat_number is None or name is None:
                raise HandProblem("unreadable player element")
            names[seat_text] = name
            seats.append(
                seat_row(
                    seat_number + 1,
                    name,
                    minor_units(attribute(entry, "balance"), self.scale, "balance"),
                    sitting_out=attribute(entry, "dealtin") == "false",
                )
            )
        dealer = small_number(attribute(players, "dealer"), 3)
        if dealer is None:
            raise HandProblem("unreadable dealer seat")

        def who(element: Element) -> str:
            seat = attribute(element, "player") or ""
            # An unknown seat keeps its number, so the shared checks name the stranger.
            return names.get(seat, f"seat {seat}")

        for child in root:
            if child.tag not in ("players", "round"):
                raise HandProblem(f"unrecognised element <{child.tag[:40]}>")
        record = HandRecord(hand_id=self.hand_id, hand={})
        events: list[tuple[int, Element]] = []
        board: list[int | None] = []
        winners: list[Element] = []
        street = 0
        for round_element in root.iter("round"):
            round_id = attribute(round_element, "id") or ""
            street = STREETS.get(round_id, street)
            for child in round_element:
                if child.tag == "event":
                    events.append((street, child))
                elif child.tag == "cards":
                    kind = attribute(child, "type")
                    cards = [_card(token) for token in (attribute(child, "cards") or "").split(",")]
                    if kind == "COMMUNITY":
                        board = cards
                    elif kind == "HOLE":
                        record.dealt_to(who(child), cards)
                        record.heroes.append(who(child))
                    elif kind in ("SHOWN", "MUCKED"):
                        record.shown_by(who(child), cards)
                        if kind == "SHOWN":
                            record.showdowns.append({"player": who(child), "cards": cards})
                elif child.tag == "winner":
                    winners.append(child)
                else:
                    raise HandProblem(f"unrecognised element <{child.tag[:40]}>")
        if not winners:
            raise HandProblem("truncated hand: nobody wins a pot")
        check_board(board)

        big_blind = max(
            (
                self.amount(e, "big blind")
                for _, e in events
                if attribute(e, "type") in ("BIG_BLIND", "INITIAL_BLIND")
            ),
            default=None,
        )
        small_bet = big_bet = None
        if self.limit_type == "FL" and self.stakes is not None and not self.tournament:
            small_bet = minor_units(self.stakes["small"], self.scale, "stakes")
            big_bet = minor_units(self.stakes["big"], self.scale, "stakes")
        if big_blind is None and small_bet is not None:
            big_blind = small_bet  # fixed limit: the big blind is the small bet
        if self.limit_type == "FL" and small_bet is None and big_blind is not None:
            # Tournament descriptions print no stakes ("Limit"): the bets are one and two big
            # blinds, as in the corpus HORSE freeroll's Omaha rounds (30/60 at 15/30 blinds).
            small_bet, big_bet = big_blind, 2 * big_blind
        posted_before_balance: dict[str, int] = {}
        for street_no, event in events:
            action = self.action(street_no, event, who(event), big_blind)
            for row in action:
                record.actions.append(row)
                if row["kind"] in ("post_sb", "post_bb", "post_dead", "ante"):
                    player = row["player"]
                    posted_before_balance[player] = (
                        posted_before_balance.get(player, 0) + row["amount"]
                    )
        if self.tournament:
            # Tournament balances are printed after the blinds and antes were posted.
            for seat in seats:
                seat["stack_start"] += posted_before_balance.get(seat["player"], 0)
        record.seats = seats

        descriptions: dict[tuple[str, str], str] = {}
        for winner in winners:
            winner_name = who(winner)
            amount = self.amount(winner, "winner")
            if attribute(winner, "uncalled") == "true":
                record.actions.append(
                    {
                        "street": street,
                        "player": winner_name,
                        "kind": "uncalled_return",
                        "amount": amount,
                    }
                )
                continue
            pot_type = attribute(winner, "pottype") or "n"
            if pot_type not in HALVES:
                raise HandProblem(f"unrecognised pottype {pot_type[:10]!r}")
            number = small_number(attribute(winner, "potnumber"), 2)
            pot_index = number - 1 if number else None
            record.collections.append(
                collection_row(winner_name, amount, pot_index, HALVES[pot_type])
            )
            if (description := attribute(winner, "hand")) is not None:
                descriptions[(winner_name, "low" if pot_type == "l" else "high")] = description
        for shown in record.showdowns:
            shown["high_desc"] = descriptions.get((shown["player"], "high"))
            shown["low_desc"] = descriptions.get((shown["player"], "low"))
        drop_winner_mucks(record)

        posted = largest_posts(record.actions)
        data = (attribute(root, "data") or "").split("|")
        tournament_id = table_name = None
        if self.tournament and len(data) > 2:
            table_name = data[2]
            tournament_id = data[2].split("-")[0]
        elif len(data) > 1:
            table_name = data[1]
        record.hand = {
            "tournament_id": tournament_id,
            "table_name": table_name,
            "limit_type": self.limit_type,
            "currency": self.currency,
            "money_scale": self.scale,
            "small_blind": posted["post_sb"],
            "big_blind": big_blind,
            "small_bet": small_bet,
            "big_bet": big_bet,
            "ante": posted["ante"],
            "max_seats": small_number(attribute(root, "seats"), 3),
            "button_seat": dealer + 1,
            "started_at": self.started_at,
            "time_zone": "ET",
            "mixed_game": self.mixed,
            "board": board,
            "total_pot": None,
            "rake": None,
        }
        return record

    def action(
        self, street: int, event: Element, player: str, big_blind: int | None
    ) -> list[dict[str, Any]]:
        """The canonical action rows of one ``<event>`` (none for informational events)."""
        kind = attribute(event, "type") or ""
        row: dict[str, Any] = {"street": street, "player": player}
        if kind in INFORMATIONAL:
            return []
        if kind == "GAME_CANCELLED":
            raise HandProblem("hand cancelled")
        if kind in ("FOLD", "SIT_OUT"):
            return [{**row, "kind": "fold"}]
        if kind == "CHECK":
            return [{**row, "kind": "check"}]
        if kind == "SHOW":
            return [{**row, "kind": "show"}]
        if kind == "MUCK":
            return [{**row, "kind": "muck"}]
        if kind not in PAYING:
            raise HandProblem(f"unrecognised event type {kind[:40]!r}")
        amount = self.amount(event, kind.lower())
        if kind == "SMALL_BLIND":
            return [{**row, "kind": "post_sb", "amount": amount}]
        if kind in ("BIG_BLIND", "INITIAL_BLIND"):
            return [{**row, "kind": "post_bb", "amount": amount}]
        if kind == "ANTE":
            return [{**row, "kind": "ante", "amount": amount}]
        if kind == "RETURN_BLIND":
            # Posting both: the big blind is live, the rest dead (site-formats.md).
            if big_blind is None:
                raise HandProblem("RETURN_BLIND with no big blind to split it by")
            if amount > big_blind:
                return [
                    {**row, "kind": "post_dead", "amount": amount - big_blind},
                    {**row, "kind": "post_bb", "amount": big_blind},
                ]
            return [
                {**row, "kind": "post_bb" if amount == big_blind else "post_sb", "amount": amount}
            ]
        if kind == "CALL":
            return [{**row, "kind": "call", "amount": amount}]
        if kind == "BET":
            return [{**row, "kind": "bet", "amount": amount}]
        if kind in ("RAISE", "COMPLETE"):
            if self.started_local < RAISE_TO_SINCE:
                return [{**row, "kind": "raise", "amount": amount}]
            return [{**row, "kind": "raise", "to": amount}]
        # ALL_IN: the chips added; its kind (bet, call, raise) follows from its effect.
        return [all_in_row(row, amount)]


@cached_when_short(16)  # 52 cards in a few spellings
def _card(token: str) -> int | None:
    token = token.strip()
    return card(token[:-1], token[-1:]) if len(token) >= 2 else None
