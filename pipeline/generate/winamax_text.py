"""Winamax hand-history text for simulated cash hands, line for line as the site writes it.

The layout follows the corpus (``corpus/Winamax/cash``, 2016):

- ``Winamax Poker - CashGame - HandId: #600000-0-1301662800 - Omaha Hi/Lo pot limit (0.01€/0.02€)
  - 2011/04/01 13:00:00 UTC`` (the hand id is table-hand-Unix time; fixed limit shows the bets),
  ``Table: 'Gaby I' 6-max (real money) Seat #1 is the button``, ``Seat 1: P (138.36€)``.
- Euros with the symbol after the amount, no decimals for whole euros (``4.96€``, ``2€``);
  ``raises 4€ to 6€`` (raise over the bet faced, then the street total).
- ``*** ANTE/BLINDS ***``, ``*** PRE-FLOP ***`` (with its trailing space), ``*** TURN *** [Ac 5s
  4h][5d]``; at a showdown two ``shows`` lines per player with a low, ``(HI : …)`` and ``(LO :
  High card : 7)``, then one ``collected`` line per pot and half: ``from pot(HI)``, ``from main
  pot(LO)``, ``from side pot 1``.
- An uncalled bet is never returned in the text: the chips are paid back as a won pot
  (``collected 84€ from side pot 1``), and the printed total includes them.
- ``Total pot 9.91€ | Rake 0.69€``: the total is net of rake; ``No rake`` when none is taken.
- UTF-8, CRLF line ends, a blank line between hands.
"""

from __future__ import annotations

import calendar
from collections.abc import Callable, Sequence

from pipeline.generate.betting import BET, CALL, CHECK, FOLD, RAISE
from pipeline.generate.pokerstars_text import CARD_TEXT, FOLDED, HIGH_TEXT, LOW_TEXT, _hole_text
from pipeline.generate.showdown import HALF_HIGH, HALF_LOW
from pipeline.generate.simulate import HandRecord
from pipeline.generate.site_text import (
    Action,
    SessionLines,
    append_betting,
    append_run_out,
    bet_won_back,
    blind_word,
    opening_posts,
    printed_payments,
    utc,
    utc_stamp,
)

__all__ = ["SessionText", "file_name", "hand_id_text", "render_hand"]

UNIT = 1
LIMIT_NAMES = {"FL": "fixed limit", "PL": "pot limit", "NL": "no limit"}
ALL_IN = ("", " and is all-in")
HALF_LABELS = {HALF_HIGH: "(HI)", HALF_LOW: "(LO)"}
# PokerStars' wording of a high hand class → Winamax's.
_HIGH_PREFIXES = (
    ("high card ", "High card : "),
    ("a pair of ", "One pair : "),
    ("two pair, ", "Two pairs : "),
    ("three of a kind, ", "Trips of "),
    ("a straight flush, ", "Straight flush "),
    ("a straight, ", "Straight "),
    ("a flush, ", "Flush "),
    ("a full house, ", "Full of "),
    ("four of a kind, ", "Four of a kind : "),
)


def euros(cents: int) -> str:
    """``4.96€``, ``2€``, ``0.05€``.

    >>> euros(496), euros(200), euros(5)
    ('4.96€', '2€', '0.05€')
    """
    whole, rest = divmod(cents, 100)
    return f"{whole}.{rest:02d}€" if rest else f"{whole}€"


def hand_id_text(hand: HandRecord) -> str:
    """``table-hand-Unix time`` as Winamax numbers hands (``9247976-238-1478874600``)."""
    stamp = calendar.timegm(utc(hand.started_at).timetuple())
    return f"{hand.hand_id // 100_000}-{hand.hand_id % 100_000}-{stamp}"


def high_text(value: int) -> str:
    """A high hand in Winamax's words (``Two pairs : Aces and Sevens``)."""
    text = HIGH_TEXT[value]
    for stars, winamax in _HIGH_PREFIXES:
        if text.startswith(stars):
            return winamax + text[len(stars) :]
    return text


def low_text(value: int) -> str:
    """A low in Winamax's words: its highest card (``High card : 7``)."""
    return f"High card : {LOW_TEXT[value].split(',')[0]}"


# What the header calls each game Winamax deals (`parsers.games` codes).
GAME_NAMES = {"O8": "Omaha Hi/Lo", "O8-5card": "5 Card Omaha Hi/Lo"}


def _header(hand: HandRecord) -> str:
    stakes = hand.stakes
    return (
        f"Winamax Poker - CashGame - HandId: #{hand_id_text(hand)}"
        f" - {GAME_NAMES[hand.table.game.code]} {LIMIT_NAMES[stakes.limit_type]}"
        f" ({euros(stakes.header_low)}/{euros(stakes.header_high)})"
        f" - {utc_stamp(hand.started_at)} UTC"
    )


def render_hand(hand: HandRecord, lines: list[str]) -> None:
    """Append the lines of one hand."""
    if hand.table.is_tournament:
        raise ValueError("the Winamax writer writes cash games only (see pipeline.generate.sites)")
    table = hand.table
    money = euros
    names = hand.players
    append = lines.append
    append(_header(hand))
    append(
        f"Table: '{table.name}' {table.max_seats}-max (real money) Seat #{hand.button_seat} is the button"
    )
    for seat, name, stack, sitting_out in hand.seats:
        append(f"Seat {seat}: {name} ({money(stack)}){' is sitting out' * sitting_out}")
    append("*** ANTE/BLINDS ***")
    posts, _, blinds = opening_posts(hand)  # cash tables (all Winamax writes) post no antes
    for _, player, kind, amount, _, all_in, _ in blinds:
        append(f"{names[player]} posts {blind_word(kind)} blind {money(amount)}{ALL_IN[all_in]}")
    if hand.hero >= 0:
        append(f"Dealt to {names[hand.hero]} [{_hole_text(hand.holes[hand.hero])}]")
    append("*** PRE-FLOP *** ")
    board = [CARD_TEXT[card] for card in hand.board]
    street = append_betting(hand, posts, board, money, _street_marker, _action_line, lines)
    append_run_out(hand, street, board, _street_marker, lines)
    hole_texts = [_hole_text(cards) for cards in hand.holes]
    if hand.showdown:
        append("*** SHOW DOWN ***")
        for player in hand.show_order:
            if hand.mucked[player]:
                append(f"{names[player]} mucks")
                continue
            cards = hole_texts[player]
            append(f"{names[player]} shows [{cards}] (HI : {high_text(hand.high[player])})")
            if hand.low[player]:
                append(f"{names[player]} shows [{cards}] (LO : {low_text(hand.low[player])})")
    payments = printed_payments(hand, UNIT, uncalled_as_pot=True)
    pot_count = max((share.pot_index for share in payments), default=0) + 1
    won = [0] * len(names)
    for share in payments:
        if pot_count == 1:
            pot = "pot"
        else:
            pot = "main pot" if share.pot_index == 0 else f"side pot {share.pot_index}"
        label = HALF_LABELS.get(share.half, "")
        append(f"{names[share.player]} collected {money(share.amount)} from {pot}{label}")
        won[share.player] += share.amount
    # Winamax names no seat when a player joins.
    lines.extend(line.split(" at seat #")[0] for line in hand.closing_lines)
    append("*** SUMMARY ***")
    won_back = bet_won_back(hand)
    put_in = hand.total_pot + (won_back[1] if won_back else 0)
    rake = hand.recorded_rake
    append(f"Total pot {money(put_in - rake)} | {f'Rake {money(rake)}' if rake else 'No rake'}")
    if hand.board_shown:
        append(f"Board: [{' '.join(board[: hand.board_shown])}]")
    _summary_seats(hand, won, hole_texts, lines)


def _action_line(name: str, action: Action, money: Callable[[int], str]) -> str | None:
    _, _, kind, amount, to_amount, all_in, raised_by = action
    if kind == CALL:
        return f"{name} calls {money(amount)}{ALL_IN[all_in]}"
    if kind == CHECK:
        return f"{name} checks"
    if kind == FOLD:
        return f"{name} folds"
    if kind == RAISE:
        return f"{name} raises {money(raised_by)} to {money(to_amount)}{ALL_IN[all_in]}"
    if kind == BET:
        return f"{name} bets {money(amount)}{ALL_IN[all_in]}"
    # An uncalled bet is not returned in the text: it is paid back as a pot.
    return None


def _street_marker(street: int, board: Sequence[str]) -> str:
    """``*** FLOP *** [Ac 5s 4h]``, ``*** TURN *** [Ac 5s 4h][5d]``, ``*** RIVER *** [Ac 5s 4h
    5d][Qc]``."""
    if street == 1:
        return f"*** FLOP *** [{board[0]} {board[1]} {board[2]}]"
    if street == 2:
        return f"*** TURN *** [{board[0]} {board[1]} {board[2]}][{board[3]}]"
    return f"*** RIVER *** [{board[0]} {board[1]} {board[2]} {board[3]}][{board[4]}]"


def _summary_seats(
    hand: HandRecord, won: list[int], hole_texts: list[str], lines: list[str]
) -> None:
    names = hand.players
    seats = hand.player_seats
    labels = [""] * len(names)
    labels[hand.small_blind_player] += " (small blind)"
    labels[hand.big_blind_player] += " (big blind)"
    labels[-1] += " (button)"  # the ring ends at the button
    first = seats.index(min(seats))
    for player in (*range(first, len(names)), *range(first)):
        head = f"Seat {seats[player]}: {names[player]}{labels[player]}"
        fold_street = hand.fold_street[player]
        if fold_street >= 0:
            lines.append(head + FOLDED[fold_street])
        elif not hand.showdown:
            lines.append(f"{head} won {euros(won[player])}")
        elif hand.mucked[player]:
            lines.append(f"{head} mucked [{hole_texts[player]}]")
        else:
            result = f"won {euros(won[player])}" if won[player] else "lost"
            description = f"HI : {high_text(hand.high[player])}"
            if hand.low[player]:
                description += f"; LO : {low_text(hand.low[player])}"
            lines.append(f"{head} showed [{hole_texts[player]}] and {result} with {description}")


def SessionText() -> SessionLines:
    """A Winamax session file: UTF-8, CRLF line ends, a blank line between hands."""
    return SessionLines(render_hand, separator=("",), line_end="\r\n")


def file_name(first: HandRecord) -> str:
    """``20110401_Gaby I(600000)_real_holdem_no-limit.txt``-style: date, table and game."""
    moment = utc(first.started_at)
    game = LIMIT_NAMES[first.stakes.limit_type].replace(" ", "-")
    return (
        f"{moment.year}{moment.month:02d}{moment.day:02d}_{first.table.name}"
        f"({first.hand_id // 100_000})_real_omaha8_{game}.txt"
    )
