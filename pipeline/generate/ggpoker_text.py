"""GGPoker hand-history text for simulated hands (Omaha Hi/Lo layout unconfirmed).

No real GGPoker Omaha Hi/Lo export exists (site-formats.md): this follows GGPoker's Omaha (high)
layout — the hi-only samples in ``jejellyroll-fr/fpdb-3`` and the imitation in
``tests/parsers/test_ggpoker.py`` — with the game named ``Omaha Hi/Lo``:

- ``Poker Hand #OM60000000000: Omaha Hi/Lo Pot Limit ($0.01/$0.02) - 2011/04/01 13:00:00``: the
  time is printed without a zone (UTC); cash hand ids start ``OM``, tournament ones ``TM``, and
  tournaments read ``Tournament #450000000, $1.50 Sit & Go Omaha Hi/Lo Pot Limit -
  Level3 (25/50)``; fixed-limit headers show the bets.
- Dollars drop a trailing zero of the cents (``$0.5``, ``$2.5``, ``$48.93``); chips are grouped
  (``1,000``). Actions read ``P: raises $2.5 to $3.5`` (raise over the bet faced, then the street
  total), ``… and is all-in``; antes ``P: posts the ante 5``.
- Everyone dealt in gets a ``Dealt to`` line, cards only for the hero. Shown hands are printed as
  soon as nobody can act any more (``P: shows [..] (HI: …; LO: …)``, before the board is run out
  after an all-in), then ``*** SHOWDOWN ***`` — printed in every hand — and one ``collected $x
  from pot`` line per pot and half (the pot is never named).
- ``Uncalled bet ($16) returned to P``; ``Total pot $62 | Rake $3 | Jackpot $0 | Bingo $0``, gross.
  The summary's seat lines are PokerStars'.
"""

from __future__ import annotations

from collections.abc import Callable

from pipeline.generate.betting import BET, CALL, CHECK, FOLD, RAISE
from pipeline.generate.pokerstars_text import (
    ALL_IN,
    CARD_TEXT,
    HIGH_TEXT,
    HIGH_TEXT_WITH_KICKERS,
    LIMIT_NAMES,
    _description,
    _hole_text,
    _street_marker,
    _summary_seats,
)
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
    utc,
    utc_stamp,
)

__all__ = ["SessionText", "file_name", "hand_id_text", "render_hand"]

UNIT = 1
GG_LIMIT_NAMES = {**LIMIT_NAMES, "FL": "Fixed Limit"}


def dollars(cents: int) -> str:
    """GGPoker's dollars: ``$0.5``, ``$2.5``, ``$29``, ``$48.93``, ``$0.05``.

    >>> dollars(50), dollars(250), dollars(2900), dollars(4893), dollars(5)
    ('$0.5', '$2.5', '$29', '$48.93', '$0.05')
    """
    whole, rest = divmod(cents, 100)
    if rest == 0:
        return f"${whole}"
    if rest % 10 == 0:
        return f"${whole}.{rest // 10}"
    return f"${whole}.{rest:02d}"


def chips(amount: int) -> str:
    """Tournament chips, grouped: ``1,000``."""
    return grouped(amount, 1)


def hand_id_text(hand: HandRecord) -> str:
    """``OM…`` for cash hands, ``TM…`` for tournament hands."""
    return f"{'TM' if hand.table.is_tournament else 'OM'}{hand.hand_id}"


def _header(hand: HandRecord) -> str:
    table = hand.table
    stakes = hand.stakes
    game = f"Omaha Hi/Lo {GG_LIMIT_NAMES[stakes.limit_type]}"
    if table.is_tournament:
        low, high = chips(stakes.header_low), chips(stakes.header_high)
        return (
            f"Poker Hand #{hand_id_text(hand)}: Tournament #{table.tournament_id},"
            f" {_tournament_name(table.buy_in)} {game} - Level{hand.level} ({low}/{high})"
            f" - {utc_stamp(hand.started_at)}"
        )
    low, high = dollars(stakes.header_low), dollars(stakes.header_high)
    return f"Poker Hand #{hand_id_text(hand)}: {game} ({low}/{high}) - {utc_stamp(hand.started_at)}"


def _tournament_name(buy_in: str) -> str:
    """``$1.08+$0.27+$0.15 USD`` → ``$1.50 Sit & Go`` (GGPoker names tournaments by
    their full price)."""
    cents = sum(buy_in_parts(buy_in))
    return f"${cents // 100}.{cents % 100:02d} Sit & Go"


def render_hand(hand: HandRecord, lines: list[str]) -> None:
    """Append the lines of one hand."""
    table = hand.table
    money = chips if table.is_tournament else dollars
    names = hand.players
    append = lines.append
    append(_header(hand))
    append(f"Table '{table.name}' {table.max_seats}-max Seat #{hand.button_seat} is the button")
    for seat, name, stack, sitting_out in hand.seats:
        append(f"Seat {seat}: {name} ({money(stack)} in chips){' is sitting out' * sitting_out}")
    posts, antes, blinds = opening_posts(hand)
    for _, player, _, amount, _, all_in, _ in antes:
        append(f"{names[player]}: posts the ante {money(amount)}{ALL_IN[all_in]}")
    for _, player, kind, amount, _, all_in, _ in blinds:
        append(f"{names[player]}: posts {blind_word(kind)} blind {money(amount)}{ALL_IN[all_in]}")
    blind_posters = {action[1] for action in blinds}
    append("*** HOLE CARDS ***")
    hole_texts = [""] * len(names)
    for player, name in enumerate(names):
        if player == hand.hero:
            hole_texts[player] = _hole_text(hand.holes[player])
            append(f"Dealt to {name} [{hole_texts[player]}]")
        else:
            append(f"Dealt to {name}")
    board = [CARD_TEXT[card] for card in hand.board]
    street = append_betting(hand, posts, board, money, _street_marker, _action_line, lines)
    if hand.showdown:
        # Cards are tabled as soon as the betting is over, before the rest of the board.
        shown_texts: set[str] = set()
        for player in hand.show_order:
            hole_texts[player] = _hole_text(hand.holes[player])
            if hand.mucked[player]:
                append(f"{names[player]}: mucks hand")
                continue
            plain = HIGH_TEXT[hand.high[player]]
            high_text = HIGH_TEXT_WITH_KICKERS[hand.high[player]] if plain in shown_texts else plain
            shown_texts.add(plain)
            description = _description(hand, player, high_text)
            append(f"{names[player]}: shows [{hole_texts[player]}] ({description})")
    append_run_out(hand, street, board, _street_marker, lines)
    append("*** SHOWDOWN ***")
    for share in printed_payments(hand, UNIT):
        append(f"{names[share.player]} collected {money(share.amount)} from pot")
    lines.extend(hand.closing_lines)
    append("*** SUMMARY ***")
    append(
        f"Total pot {money(hand.total_pot)} | Rake {money(hand.recorded_rake)}"
        f" | Jackpot {money(0)} | Bingo {money(0)}"
    )
    if hand.board_shown:
        append(f"Board [{' '.join(board[: hand.board_shown])}]")
    summary: list[str] = []
    _summary_seats(hand, money, blind_posters, hole_texts, summary)
    # PokerStars' seat lines, without their trailing spaces.
    lines.extend(line.rstrip() for line in summary)


def _action_line(name: str, action: Action, money: Callable[[int], str]) -> str:
    _, _, kind, amount, to_amount, all_in, raised_by = action
    if kind == CALL:
        return f"{name}: calls {money(amount)}{ALL_IN[all_in]}"
    if kind == CHECK:
        return f"{name}: checks"
    if kind == FOLD:
        return f"{name}: folds"
    if kind == RAISE:
        return f"{name}: raises {money(raised_by)} to {money(to_amount)}{ALL_IN[all_in]}"
    if kind == BET:
        return f"{name}: bets {money(amount)}{ALL_IN[all_in]}"
    return f"Uncalled bet ({money(amount)}) returned to {name}"


def SessionText() -> SessionLines:
    """A GGPoker session file: UTF-8, LF line ends, two blank lines between hands."""
    return SessionLines(render_hand, separator=("", ""))


def file_name(first: HandRecord) -> str:
    """``GG20110401-1300 - Gaby I - 0.01 - 0.02 - 6max.txt`` (tournaments: ``GG20110401-1300 -
    Tournament 450000000 - Omaha Hi-Lo.txt``)."""
    moment = utc(first.started_at)
    stamp = (
        f"GG{moment.year}{moment.month:02d}{moment.day:02d}-{moment.hour:02d}{moment.minute:02d}"
    )
    table = first.table
    if table.is_tournament:
        return f"{stamp} - Tournament {table.tournament_id} - Omaha Hi-Lo.txt"
    stakes = first.stakes
    low = dollars(stakes.header_low).lstrip("$")
    high = dollars(stakes.header_high).lstrip("$")
    return f"{stamp} - {table.name} - {low} - {high} - {table.max_seats}max.txt"
