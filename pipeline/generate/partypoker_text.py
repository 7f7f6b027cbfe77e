"""PartyPoker hand-history text for simulated hands, line for line as the site writes it.

The layout follows the corpus (``corpus/PartyPoker``, 2012-2016):

- ``Game #N starts.``, a blank line, ``#Game No : N``, ``***** Hand History for Game N *****``;
  cash headers ``$0.04/$0.08 USD FL Omaha Hi-Lo - Friday, April 01, 09:00:00 EDT 2011`` (fixed
  limit: the bets) or ``$2 USD PL Omaha Hi-Lo - …`` (pot and no limit: the table's maximum buy-in,
  100 big blinds; the blinds are read from the posts); tournaments ``PL Omaha Hi-Lo $1.50 USD
  Buy-in Trny: 450000000 Level: 3  Blinds-Antes(25/50 -5) - …`` in chips.
- ``Table Gaby I (Real Money)``, ``Seat 9 is the button``, ``Total number of players : 5/6``,
  ``Seat 4: P ( $60 USD )`` (players sitting out are not listed).
- Every action amount is an increment (``raises [$30 USD]`` adds $30); an all-in action reads
  ``P is all-In  [$5 USD]``; blinds end with a full stop.
- At a showdown: ``P shows [ 2d, Jd, Qs, Ah ]a pair of Queens.`` and ``P shows6,5,3,2,A  for
  low.``, losers who muck ``P doesn't show [ .. ].``, then ``P wins $5 USD from the main pot
  with …`` / ``P wins Lo ($5 USD) from the side pot 1 with …`` per pot and half.
- No summary, total pot or rake; an uncalled bet is never returned: it is part of what the
  winner wins (``P does not show cards.`` / ``P wins $239 USD`` without a showdown, a lone
  side pot at one).
- ASCII, CRLF line ends, a blank line between hands.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from pipeline.generate.betting import BET, CALL, CHECK, FOLD, RAISE
from pipeline.generate.pokerstars_text import CARD_TEXT, HIGH_TEXT, LOW_TEXT
from pipeline.generate.showdown import HALF_LOW
from pipeline.generate.simulate import HandRecord
from pipeline.generate.site_text import (
    Action,
    SessionLines,
    append_betting,
    append_run_out,
    blind_word,
    buy_in_parts,
    grouped,
    opening_posts,
    printed_payments,
)

__all__ = ["SessionText", "file_name", "hand_id_text", "render_hand"]

UNIT = 1
LIMIT_CODES = {"FL": "FL", "PL": "PL", "NL": "NL"}
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
MONTHS = (
    "", "January", "February", "March", "April", "May", "June", "July", "August", "September",
    "October", "November", "December",
)  # fmt: skip
BUY_IN_BIG_BLINDS = 100

# Party prints the game number as it is.
hand_id_text = None


def dollars(cents: int) -> str:
    """``$200 USD``, ``$657.64 USD``."""
    return f"${grouped(cents, 100)} USD"


def chips(amount: int) -> str:
    """``2,910``."""
    return grouped(amount, 1)


def _when(hand: HandRecord) -> str:
    """``Friday, April 01, 09:00:00 EDT 2011`` (the simulator's clock is Eastern summer time)."""
    moment = hand.started_at
    return (
        f"{WEEKDAYS[moment.weekday()]}, {MONTHS[moment.month]} {moment.day:02d},"
        f" {moment.hour:02d}:{moment.minute:02d}:{moment.second:02d} EDT {moment.year}"
    )


def _buy_in(buy_in: str) -> str:
    """``$1.08+$0.27+$0.15 USD`` → ``$1.50 USD``: the whole price."""
    return dollars(sum(buy_in_parts(buy_in)))


def _header_lines(hand: HandRecord) -> list[str]:
    table = hand.table
    stakes = hand.stakes
    limit = LIMIT_CODES[stakes.limit_type]
    if table.is_tournament:
        if stakes.ante:
            blinds = f"Blinds-Antes({chips(stakes.small_blind)}/{chips(stakes.big_blind)} -{chips(stakes.ante)})"
        else:
            blinds = f"Blinds({chips(stakes.small_blind)}/{chips(stakes.big_blind)})"
        header = (
            f"{limit} Omaha Hi-Lo {_buy_in(table.buy_in)} Buy-in Trny: {table.tournament_id}"
            f" Level: {hand.level}  {blinds} - {_when(hand)}"
        )
        return [header, f"Table Sit & Go ({table.tournament_id}) Table #1 (Real Money)"]
    if stakes.limit_type == "FL":
        game = f"{dollars(stakes.small_bet).removesuffix(' USD')}/{dollars(stakes.big_bet)}"
    else:
        game = dollars(stakes.big_blind * BUY_IN_BIG_BLINDS)
    return [
        f"{game} {limit} Omaha Hi-Lo - {_when(hand)}",
        f"Table {table.name} (Real Money)",
    ]


def _cards(cards: Sequence[int]) -> str:
    return ", ".join(CARD_TEXT[card] for card in cards)


def render_hand(hand: HandRecord, lines: list[str]) -> None:
    """Append the lines of one hand."""
    table = hand.table
    money = chips if table.is_tournament else dollars
    names = hand.players
    append = lines.append
    append(f"Game #{hand.hand_id} starts.")
    append("")
    append(f"#Game No : {hand.hand_id}")
    append(f"***** Hand History for Game {hand.hand_id} *****")
    header, table_line = _header_lines(hand)
    append(header)
    append(table_line)
    append(f"Seat {hand.button_seat} is the button")
    seated = [line for line in hand.seats if not line.sitting_out]
    append(f"Total number of players : {len(seated)}/{table.max_seats}")
    for seat, name, stack, _ in seated:
        append(f"Seat {seat}: {name} ( {money(stack)} )")
    if table.is_tournament:
        stakes = hand.stakes
        append(f"Trny: {table.tournament_id} Level: {hand.level}")
        append(f"Blinds({chips(stakes.small_blind)}/{chips(stakes.big_blind)})")
    posts, antes, blinds = opening_posts(hand)
    for _, player, _, amount, _, _, _ in antes:
        append(f"{names[player]} posts ante [{money(amount)}]")
    for _, player, kind, amount, _, _, _ in blinds:
        append(f"{names[player]} posts {blind_word(kind)} blind [{money(amount)}].")
    append("** Dealing down cards **")
    if hand.hero >= 0:
        hole = " ".join(CARD_TEXT[card] for card in hand.holes[hand.hero])
        append(f"Dealt to {names[hand.hero]} [  {hole} ]")
    board = [CARD_TEXT[card] for card in hand.board]
    street = append_betting(hand, posts, board, money, _deal_line, _action_line, lines)
    append_run_out(hand, street, board, _deal_line, lines)
    payments = printed_payments(hand, UNIT, uncalled_as_pot=True)
    if not hand.showdown:
        winner = payments[0].player
        append(f"{names[winner]} does not show cards.")
        total = sum(share.amount for share in payments)
        won = f"{chips(total)} chips" if table.is_tournament else dollars(total)
        append(f"{names[winner]} wins {won}")
    else:
        for player in hand.show_order:
            cards = _cards(hand.holes[player])
            if hand.mucked[player]:
                append(f"{names[player]} doesn't show [ {cards} ].")
                continue
            append(f"{names[player]} shows [ {cards} ]{HIGH_TEXT[hand.high[player]]}.")
            if hand.low[player]:
                append(f"{names[player]} shows{LOW_TEXT[hand.low[player]]}  for low.")
        for share in payments:
            pot = "main pot" if share.pot_index == 0 else f"side pot {share.pot_index}"
            paid = f"{chips(share.amount)} chips" if table.is_tournament else dollars(share.amount)
            if share.half == HALF_LOW:
                low = LOW_TEXT[hand.low[share.player]]
                # A low paid to a player without one (an injected fault) names no hand.
                with_part = f" with {low}" if low else ""
                append(f"{names[share.player]} wins Lo ({paid}) from the {pot}{with_part}.")
            else:
                high = HIGH_TEXT[hand.high[share.player]]
                append(f"{names[share.player]} wins {paid} from the {pot} with {high}.")
    for line in hand.closing_lines:
        # Party's words for arrivals, departures and finishes.
        if line.endswith("leaves the table"):
            append(line.replace("leaves the table", "has left the table."))
        elif " joins the table at seat #" in line:
            append(line.split(" joins the table")[0] + " has joined the table.")
        elif " finished the tournament in " in line:
            name, _, place = line.partition(" finished the tournament in ")
            append(f"{name} finished in {place.split()[0].rstrip('stndrh')} place.")


def _action_line(name: str, action: Action, money: Callable[[int], str]) -> str | None:
    _, _, kind, amount, _, all_in, _ = action
    if kind == CHECK:
        return f"{name} checks"
    if kind == FOLD:
        return f"{name} folds"
    if all_in and kind in (CALL, BET, RAISE):
        return f"{name} is all-In  [{money(amount)}]"
    if kind == CALL:
        return f"{name} calls [{money(amount)}]"
    if kind == RAISE:
        return f"{name} raises [{money(amount)}]"
    if kind == BET:
        return f"{name} bets [{money(amount)}]"
    # An uncalled bet is never returned in the text: the winner wins it back.
    return None


def _deal_line(street: int, board: Sequence[str]) -> str:
    """``** Dealing Flop ** [ Qh, Kd, 6d ]``, ``** Dealing Turn ** [ Qs ]``."""
    if street == 1:
        return f"** Dealing Flop ** [ {board[0]}, {board[1]}, {board[2]} ]"
    if street == 2:
        return f"** Dealing Turn ** [ {board[3]} ]"
    return f"** Dealing River ** [ {board[4]} ]"


def SessionText() -> SessionLines:
    """A PartyPoker session file: ASCII, CRLF line ends, a blank line between hands."""
    return SessionLines(render_hand, separator=("",), line_end="\r\n", encoding="ascii")


def file_name(first: HandRecord) -> str:
    """``Gaby I 2011-04-01 PL Omaha Hi-Lo.txt`` (tournaments: ``Trny 450000000 … .txt``)."""
    moment = first.started_at
    date = f"{moment.year}-{moment.month:02d}-{moment.day:02d}"
    game = f"{LIMIT_CODES[first.stakes.limit_type]} Omaha Hi-Lo"
    table = first.table
    if table.is_tournament:
        return f"Trny {table.tournament_id} {date} {game}.txt"
    return f"{table.name} {date} {game}.txt"
