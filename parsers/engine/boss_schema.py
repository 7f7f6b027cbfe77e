"""The Boss Media hand schema, read into a `HandRecord`: the hands of Boss's XML and IGT's JSON.

Two sites print a hand in this one schema (site-formats.md, "Boss Media" and "IGT"): a header
(``ID``, ``GAME``, ``GAMEKIND``, ``TABLECURRENCY``, ``LIMIT``, ``STAKES``, ``DATE``) and, in
order, ``PLAYER`` elements, ``ACTION`` elements (``HAND_BLINDS``, ``HAND_ANTE``, ``HAND_DEAL``,
``HAND_BOARD``, ``ACTION_*``, amounts as the chips added) and one ``SHOWDOWN`` with a
``RESULT`` per player. Each site reads its own text (XML elements, JSON objects) into the plain
dicts `read_boss_hand` takes, and passes its own card numbering (``card_of``): the two sites
number their ranks differently. What the schema means is decoded here once: game and limit
names, blinds and increments, per-player totals with a half type, the pot after rake, and the
uncalled bets handed back silently, derived from the printed pot.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from parsers.engine.structured import (
    HandProblem,
    HandRecord,
    SkippedGame,
    all_in_row,
    cached_when_short,
    check_board,
    collection_row,
    minor_units,
    paired_stakes,
    seat_row,
    small_number,
    unmatched_top,
)

__all__ = ["read_boss_hand"]

O8_GAME = "GAME_OMAHL"
GAME_NAMES = {"GAME_THM": "Hold'em", "GAME_OMA": "Omaha", "GAME_OMAHL": "Omaha Hi/Lo"}
LIMITS = {
    "PL": "PL",
    "NL": "NL",
    "FL": "FL",
    "Pot Limit": "PL",
    "No Limit": "NL",
    "Fixed Limit": "FL",
    "Limit": "FL",
}
BLIND_KINDS = {"HAND_SB": "post_sb", "HAND_BB": "post_bb", "HAND_DSB": "post_dead"}
BOARD_STREETS = {"BOARD_FLOP": 1, "BOARD_TURN": 2, "BOARD_RIVER": 3}
HALVES = {"WINTYPE_HI": "high", "WINTYPE_LO": "low", "WINTYPE_HILO": None}
# RESULT descriptions that say the cards were not compared at a showdown.
NOT_SHOWN = ("$(STR_BY_DEFAULT)", "$(STR_G_MUCK)")
# A hidden card's id at both sites (their ``card_of`` decode it to None).
HIDDEN = "b"
_SILENT = {"ACTION_FOLD": "fold", "ACTION_CHECK": "check"}
_PAYING = {"ACTION_CALL": "call", "ACTION_BET": "bet", "ACTION_RAISE": "raise"}


def read_boss_hand(
    header: dict[str, str],
    elements: list[dict[str, Any]],
    card_of: Callable[[str | None], int | None],
) -> HandRecord:
    """One Boss-schema hand (XML at Boss, JSON at IGT) from its header attributes and children.

    ``elements`` are dicts with ``tag`` (``PLAYER``, ``ACTION``, ``SHOWDOWN``), the element's
    attributes under their Boss names, ``cards`` (LINK ids) and, for the showdown, ``results``;
    ``card_of`` decodes a LINK id (the schema's two sites number their ranks differently).
    """
    hand_id = (header.get("ID") or "").strip()
    game = (header.get("GAME") or "").strip()
    if game != O8_GAME:
        raise SkippedGame(GAME_NAMES.get(game, game or "unknown game"))
    kind = (header.get("GAMEKIND") or "").strip()
    tournament = kind not in ("GAMEKIND_CASH", "")
    real = (header.get("GAMETYPE") or "GAMETYPE_REAL").strip() == "GAMETYPE_REAL"
    currency = "CHIPS" if tournament else ((header.get("TABLECURRENCY") or "").strip() or None)
    if not tournament and not real:
        currency = "PLAY"
    if currency is None:
        raise HandProblem("no table currency")
    scale = 1 if tournament else 100
    limit_type = LIMITS.get((header.get("LIMIT") or "").strip())
    if limit_type is None:
        raise HandProblem(f"unrecognised limit {(header.get('LIMIT') or '')[:20]!r}")
    epoch = small_number(header.get("DATE"), 11)
    if epoch is None or epoch > 32503680000:  # year 3000
        raise HandProblem("unreadable start time")
    started_at = datetime.fromtimestamp(epoch, tz=UTC)

    record = HandRecord(hand_id=hand_id, hand={})
    actions = record.actions
    button = None
    street = 0
    board: list[int | None] = []
    showdown: dict[str, Any] | None = None
    for element in elements:
        tag = element["tag"]
        if tag == "PLAYER":
            name = element.get("NAME")
            seat = small_number(element.get("SEAT"), 3)
            if not name or seat is None:
                raise HandProblem("unreadable PLAYER element")
            if name == "UNKNOWN":
                continue
            record.seats.append(
                seat_row(
                    seat,
                    name,
                    _amount(element.get("AMOUNT"), scale, "player amount"),
                    sitting_out=element.get("STATE", "STATE_PLAYING") != "STATE_PLAYING",
                )
            )
            if element.get("DEALER") == "Y":
                button = seat
        elif tag == "ACTION":
            action = element.get("TYPE") or ""
            player = element.get("PLAYER")
            value = element.get("VALUE")
            if not player and action != "HAND_BOARD":
                raise HandProblem(f"{action[:30] or 'ACTION'} without a player")
            # Rows written out in full: merging a dict into each one costs more than the rest.
            if action == "HAND_BLINDS":
                blind = BLIND_KINDS.get(element.get("KIND") or "")
                if blind is None:
                    raise HandProblem(f"unrecognised blind kind {element.get('KIND', '')[:30]!r}")
                amount = _amount(value, scale, "blind")
                actions.append(
                    {"street": street, "player": player, "kind": blind, "amount": amount}
                )
            elif action == "HAND_ANTE":
                amount = _amount(value, scale, "ante")
                actions.append({"street": street, "player": player, "kind": "ante", "amount": amount})
            elif action == "HAND_DEAL":
                links = element["cards"]
                if links.count(HIDDEN) == len(links):
                    continue  # nothing seen (most deals): no card to decode
                cards = [card_of(link) for link in links]
                if cards.count(None) < len(cards) and player is not None:
                    record.dealt_to(player, cards)
                    record.heroes.append(player)
            elif action == "HAND_BOARD":
                street = BOARD_STREETS.get(value or "", -1)
                if street < 0:
                    raise HandProblem(f"unrecognised board {(value or '')[:20]!r}")
                board = [card_of(link) for link in element["cards"]]
            elif action in _SILENT:
                actions.append({"street": street, "player": player, "kind": _SILENT[action]})
            elif action in _PAYING:
                amount = _amount(value, scale, action)
                actions.append(
                    {"street": street, "player": player, "kind": _PAYING[action], "amount": amount}
                )
            elif action == "ACTION_ALLIN":
                amount = _amount(value, scale, action)
                actions.append(all_in_row({"street": street, "player": player}, amount))
            else:
                raise HandProblem(f"unrecognised action type {action[:40]!r}")
        elif tag == "SHOWDOWN":
            showdown = element
        else:
            raise HandProblem(f"unrecognised element <{tag[:40]}>")
    if showdown is None:
        raise HandProblem("truncated hand: no showdown element")
    if button is None:
        raise HandProblem("no dealer seat")
    check_board(board)

    for result in showdown.get("results", []):
        player = result.get("PLAYER")
        if not player:
            raise HandProblem("RESULT without a player")
        win = _amount(result.get("WIN") or "0", scale, "result win")
        cards = [card_of(link) for link in result.get("cards", [])]
        known = cards.count(None) < len(cards)
        if known and None in cards:
            raise HandProblem(f"unreadable card among the shown cards of {player[:40]!r}")
        if known:
            record.shown_by(player, cards)
        description = result.get("HAND")
        if known and description not in NOT_SHOWN:
            record.showdowns.append(
                {
                    "player": player,
                    "cards": cards,
                    "high_desc": description,
                    "low_desc": (result.get("HANDEXT") or "").strip() or None,
                }
            )
        if win > 0:
            win_type = result.get("WINTYPE") or "WINTYPE_HILO"
            if win_type not in HALVES:
                raise HandProblem(f"unrecognised win type {win_type[:30]!r}")
            record.collections.append(collection_row(player, win, half=HALVES[win_type]))
    if not record.collections:
        raise HandProblem("truncated hand: nobody wins a pot")

    total_pot = _amount(showdown.get("POT"), scale, "showdown pot")
    rake = _amount(showdown.get("RAKE") or "0", scale, "showdown rake")
    _derive_uncalled_return(record, total_pot + rake, street)

    stakes = (header.get("STAKES") or "").split("/")
    blinds_and_bets = paired_stakes(stakes, limit_type, scale, record.actions)
    record.hand = {
        "tournament_id": (header.get("TABLETOURNEYID") or "").strip() or None,
        "table_name": (header.get("TABLE") or "").strip() or None,
        "limit_type": limit_type,
        "currency": currency,
        "money_scale": scale,
        **blinds_and_bets,
        "max_seats": None,
        "button_seat": button,
        "started_at": started_at,
        "time_zone": "UTC",
        "board": board,
        "total_pot": total_pot,
        "rake": rake,
    }
    return record


def _amount(text: str | None, scale: int, what: str) -> int:
    """`minor_units` of ``text``, remembered for the next hand (`_known_amount`)."""
    if text is None:
        return minor_units(text, scale, what)  # refused: missing
    return _known_amount(text, scale, what)


# A file repeats the same few amounts (stacks, blinds, bets), and a look-up costs a twentieth
# of reading one; an unreadable amount raises, so it is never kept.
@cached_when_short(24, maxsize=4096)
def _known_amount(text: str, scale: int, what: str) -> int:
    return minor_units(text, scale, what)


def _derive_uncalled_return(record: HandRecord, pot: int, street: int) -> None:
    """Record the uncalled bet Boss hands back without a word, from its printed pot.

    The showdown's ``POT`` + ``RAKE`` is what stayed in the pot; whatever more was put in can
    only be the unmatched top of the largest contribution (230993221: a 1.12 turn bet nobody
    called). It is recorded as an ``uncalled_return`` [derived] when it fits there; any other
    difference is left for the audit's chip-conservation check.
    """
    top = unmatched_top(record, pot)
    if top is not None:
        player, excess = top
        record.actions.append(
            {"street": street, "player": player, "kind": "uncalled_return", "amount": excess}
        )
