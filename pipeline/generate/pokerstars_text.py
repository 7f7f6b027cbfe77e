"""PokerStars hand-history text for simulated hands, line for line as the site writes it.

The layout follows the corpus (2009–2011 era): ``PokerStars Game #…`` headers in ET, trailing
spaces after ``folds``/``checks``/seat lines/``Rake``, three blank lines between hands, CRLF line
ends, a UTF-8 BOM on tournament files. At a showdown each pot is settled in turn, side pots
first (highest first): the players of that pot not yet seen show (or muck), then one
``collected`` line per half, the high first, then ``No low hand qualified`` when no pot was split.
A scoop at a showdown with a qualifying low is two lines (#35875159084 in the corpus), without
one a single line (#35875356253); a pot won without a showdown is one line.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from functools import lru_cache

from pipeline.generate.betting import (
    BET,
    CALL,
    CHECK,
    FOLD,
    POST_ANTE,
    POST_SMALL_BLIND,
    RETURN,
)
from pipeline.generate.money import cash_money, chips
from pipeline.generate.showdown import HALF_HIGH, HALF_LOW, HALF_SCOOP, Share, take_rake
from pipeline.generate.simulate import HandRecord
from pipeline.generate.stakes import roman

__all__ = [
    "CARD_TEXT",
    "HIGH_TEXT",
    "HIGH_TEXT_WITH_KICKERS",
    "LINE_END",
    "LOW_TEXT",
    "cash_money",
    "file_name",
    "render_hand",
    "render_session",
]

Money = Callable[[int], str]
LINE_END = "\r\n"
BOM = "\ufeff"
RANKS = "23456789TJQKA"
SUITS = "cdhs"
CARD_TEXT: tuple[str, ...] = tuple(rank + suit for rank in RANKS for suit in SUITS)
LIMIT_NAMES = {"FL": "Limit", "PL": "Pot Limit", "NL": "No Limit"}
STREET_NAMES = ("before Flop", "on the Flop", "on the Turn", "on the River")
ALL_IN = ("", " and is all-in")  # indexed by the action's all-in flag


def _descriptions() -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """Every high and low value's PokerStars wording, computed once (index = value)."""
    from pipeline.evaluator import HIGH_CLASS_COUNT, LOW_CLASS_COUNT, describe_high, describe_low

    high = ("",) + tuple(describe_high(value) for value in range(1, HIGH_CLASS_COUNT + 1))
    kicked = ("",) + tuple(
        describe_high(value, with_kickers=True) for value in range(1, HIGH_CLASS_COUNT + 1)
    )
    low = ("",) + tuple(describe_low(value) for value in range(1, LOW_CLASS_COUNT + 1))
    return high, kicked, low


HIGH_TEXT, HIGH_TEXT_WITH_KICKERS, LOW_TEXT = _descriptions()


def _cards(cards: Sequence[int]) -> str:
    text = CARD_TEXT
    return " ".join([text[card] for card in cards])


def _time(moment: datetime) -> str:
    return (
        f"{moment.year}/{moment.month:02d}/{moment.day:02d}"
        f" {moment.hour}:{moment.minute:02d}:{moment.second:02d} ET"
    )


@lru_cache(maxsize=4096)
def _game_text(limit_type: str, low: int, high: int, tournament: str, level: int) -> str:
    """The header between the hand id and the time (the same for many hands: cached)."""
    game = f"Omaha Hi/Lo {LIMIT_NAMES[limit_type]}"
    if tournament:
        return f": {tournament} {game} - Level {roman(level)} ({low}/{high}) - "
    return f":  {game} ({cash_money(low)}/{cash_money(high)} USD) - "


def _header(hand: HandRecord) -> str:
    table = hand.table
    stakes = hand.stakes
    tournament = f"Tournament #{table.tournament_id}, {table.buy_in}" if table.is_tournament else ""
    middle = _game_text(
        stakes.limit_type, stakes.header_low, stakes.header_high, tournament, hand.level
    )
    return f"PokerStars Game #{hand.hand_id}{middle}{_time(hand.started_at)}"


def _pot_name(pot_index: int, pot_count: int) -> str:
    if pot_count == 1:
        return "pot"
    if pot_index == 0:
        return "main pot"
    return "side pot" if pot_count == 2 else f"side pot-{pot_index}"


def _description(hand: HandRecord, player: int, high_text: str) -> str:
    """``HI: …; LO: …`` (no LO part without a qualifying low)."""
    if hand.description_overrides:
        for overridden, high, low in hand.description_overrides:
            if overridden == player:
                return f"HI: {high}; LO: {low}" if low else f"HI: {high}"
    low = LOW_TEXT[hand.low[player]]
    return f"HI: {high_text}; LO: {low}" if low else f"HI: {high_text}"


def _showdown_lines(
    hand: HandRecord,
    shares: Sequence[Share],
    names: Sequence[str],
    money: Money,
    lines: list[str],
) -> None:
    """Shows, mucks and collected lines pot by pot, side pots first."""
    pot_count = len(hand.pots)
    shown: set[int] = set()
    shown_texts: set[str] = set()
    order = hand.show_order
    for pot_index in range(pot_count - 1, -1, -1):
        pot_shares = [share for share in shares if share.pot_index == pot_index]
        involved = set(hand.pots[pot_index].eligible) | {share.player for share in pot_shares}
        for player in order:
            if player in shown or player not in involved:
                continue
            shown.add(player)
            if hand.mucked[player]:
                lines.append(f"{names[player]}: mucks hand ")
                continue
            plain = HIGH_TEXT[hand.high[player]]
            # PokerStars adds the kickers when an earlier shown hand has the same wording.
            high_text = HIGH_TEXT_WITH_KICKERS[hand.high[player]] if plain in shown_texts else plain
            shown_texts.add(plain)
            lines.append(
                f"{names[player]}: shows [{_cards(hand.holes[player])}]"
                f" ({_description(hand, player, high_text)})"
            )
        name = _pot_name(pot_index, pot_count)
        # Side pot lines carry a trailing space in PokerStars' text; main pot and pot do not.
        tail = " " if pot_index > 0 else ""
        for share in pot_shares:
            lines.append(f"{names[share.player]} collected {money(share.amount)} from {name}{tail}")
    if not any(share.half in (HALF_HIGH, HALF_LOW) for share in shares):
        lines.append("No low hand qualified")


def _printed_shares(hand: HandRecord) -> Sequence[Share]:
    """The recorded shares of a showdown as PokerStars prints them: one line per half.

    Two cases differ from the shares themselves:

    - the same players tying both halves split the pot evenly as a whole (P6); each player's
      share is printed as two lines (half rounded up, then half rounded down), high parts first;
    - a side pot with a single player left in it who holds a qualifying low is settled like any
      pot at the showdown: a high line and a low line to that player.

    A pot shared without a qualifying low stays one line per winner.
    """
    shares = hand.recorded_shares
    result: list[Share] = []
    for pot_index in sorted({share.pot_index for share in shares}, reverse=True):
        pot_shares = [share for share in shares if share.pot_index == pot_index]
        scoops = [share for share in pot_shares if share.half == HALF_SCOOP]
        eligible = hand.pots[pot_index].eligible
        if len(scoops) != len(pot_shares):
            result.extend(pot_shares)
        elif len(scoops) == 1 and len(eligible) == 1 and hand.low[scoops[0].player]:
            share = scoops[0]
            result.append(Share(pot_index, HALF_HIGH, share.player, (share.amount + 1) // 2))
            result.append(Share(pot_index, HALF_LOW, share.player, share.amount // 2))
        elif len(scoops) > 1 and any(hand.low[player] for player in eligible):
            result.extend(
                Share(pot_index, HALF_HIGH, s.player, (s.amount + 1) // 2) for s in scoops
            )
            result.extend(Share(pot_index, HALF_LOW, s.player, s.amount // 2) for s in scoops)
        else:
            result.extend(pot_shares)
    return [share for share in result if share.amount > 0]


def render_hand(hand: HandRecord) -> list[str]:
    """The lines of one hand (without the blank lines that follow it)."""
    table = hand.table
    money = chips if table.is_tournament else cash_money
    names = hand.players
    seats = hand.player_seats
    lines = [
        _header(hand),
        f"Table '{table.name}' {table.max_seats}-max Seat #{hand.button_seat} is the button",
    ]
    for seat, name, stack, sitting_out in hand.seats:
        # The trailing space is PokerStars'.
        tail = " is sitting out" if sitting_out else " "
        lines.append(f"Seat {seat}: {name} ({money(stack)} in chips){tail}")
    actions = hand.actions
    # The posts open the action list: antes (PokerStars lists them in seat order), then blinds.
    posts = 0
    while posts < len(actions) and actions[posts][2] <= POST_ANTE:
        posts += 1
    if hand.stakes.ante:
        antes = sorted((a for a in actions[:posts] if a[2] == POST_ANTE), key=lambda a: seats[a[1]])
        for _, player, _, amount, _, all_in, _ in antes:
            lines.append(f"{names[player]}: posts the ante {money(amount)}{ALL_IN[all_in]}")
    for _, player, kind, amount, _, all_in, _ in actions[:posts]:
        if kind != POST_ANTE:
            blind = "small" if kind == POST_SMALL_BLIND else "big"
            lines.append(f"{names[player]}: posts {blind} blind {money(amount)}{ALL_IN[all_in]}")
    lines.append("*** HOLE CARDS ***")
    if hand.hero >= 0:
        lines.append(f"Dealt to {names[hand.hero]} [{_cards(hand.holes[hand.hero])}]")
    board = [CARD_TEXT[card] for card in hand.board]
    street = 0
    append = lines.append
    for action_street, player, kind, amount, to_amount, all_in, raised_by in actions[posts:]:
        if action_street != street:
            while action_street > street:
                street += 1
                append(_street_marker(street, board))
        name = names[player]
        if kind == FOLD:
            append(name + ": folds ")
        elif kind == CHECK:
            append(name + ": checks ")
        elif kind == CALL:
            append(f"{name}: calls {money(amount)}{ALL_IN[all_in]}")
        elif kind == RETURN:
            append(f"Uncalled bet ({money(amount)}) returned to {name}")
        elif kind == BET:
            append(f"{name}: bets {money(amount)}{ALL_IN[all_in]}")
        else:
            append(f"{name}: raises {money(raised_by)} to {money(to_amount)}{ALL_IN[all_in]}")
    last_street = (0, 0, 0, 1, 2, 3)[hand.board_shown]
    while street < last_street:
        street += 1
        lines.append(_street_marker(street, board))
    if hand.showdown:
        lines.append("*** SHOW DOWN ***")
        _showdown_lines(hand, _printed_shares(hand), names, money, lines)
    else:
        winner = hand.recorded_shares[0].player
        lines.append(f"{names[winner]} collected {money(hand.recorded_shares[0].amount)} from pot")
        if hand.says_no_show:
            lines.append(f"{names[winner]}: doesn't show hand ")
    lines.extend(hand.closing_lines)
    lines.append("*** SUMMARY ***")
    lines.append(_total_line(hand, money))
    if hand.board_shown:
        lines.append(f"Board [{' '.join(board[: hand.board_shown])}]")
    _summary_seats(hand, money, lines)
    return lines


def _street_marker(street: int, board: Sequence[str]) -> str:
    """``*** FLOP *** [..]``, ``*** TURN *** [...] [.]``, ``*** RIVER *** [....] [.]``."""
    if street == 1:
        return f"*** FLOP *** [{board[0]} {board[1]} {board[2]}]"
    if street == 2:
        return f"*** TURN *** [{board[0]} {board[1]} {board[2]}] [{board[3]}]"
    return f"*** RIVER *** [{board[0]} {board[1]} {board[2]} {board[3]}] [{board[4]}]"


def _total_line(hand: HandRecord, money: Money) -> str:
    total = f"Total pot {money(hand.total_pot)}"
    if len(hand.pots) > 1:
        amounts = take_rake(hand.pots, hand.recorded_rake)
        parts = [f"Main pot {money(amounts[0])}."]
        if len(amounts) == 2:
            parts.append(f"Side pot {money(amounts[1])}.")
        else:
            parts.extend(
                f"Side pot-{index} {money(amount)}."
                for index, amount in enumerate(amounts)
                if index
            )
        total += " " + " ".join(parts)
    return f"{total} | Rake {money(hand.recorded_rake)} "


def _summary_seats(hand: HandRecord, money: Money, lines: list[str]) -> None:
    players = hand.players
    seats = hand.player_seats
    count = len(players)
    won = [0] * count
    for share in hand.recorded_shares:
        won[share.player] += share.amount
    # "(didn't bet)": folded before the flop without putting a chip in (antes aside).
    put_chips_preflop = [False] * count
    for street, player, kind, amount, _, _, _ in hand.actions:
        if street:
            break
        if kind != POST_ANTE and kind != RETURN and amount:
            put_chips_preflop[player] = True
    labels = [""] * count
    labels[-1] = " (button)"  # the ring ends at the button
    labels[hand.small_blind_player] += " (small blind)"
    labels[hand.big_blind_player] += " (big blind)"
    # The ring starts left of the button; the summary goes by seat number.
    first = seats.index(min(seats))
    showdown = hand.showdown
    for player in list(range(first, count)) + list(range(first)):
        text = f"Seat {seats[player]}: {players[player]}{labels[player]}"
        fold_street = hand.fold_street[player]
        if fold_street >= 0:
            if fold_street == 0 and not put_chips_preflop[player]:
                lines.append(f"{text} folded before Flop (didn't bet)")
            else:
                lines.append(f"{text} folded {STREET_NAMES[fold_street]}")
        elif not showdown:
            lines.append(f"{text} collected ({money(won[player])})")
        elif hand.mucked[player]:
            lines.append(f"{text} mucked [{_cards(hand.holes[player])}]")
        else:
            cards = _cards(hand.holes[player])
            description = _description(hand, player, HIGH_TEXT[hand.high[player]])
            if won[player]:
                lines.append(
                    f"{text} showed [{cards}] and won ({money(won[player])}) with {description}"
                )
            else:
                lines.append(f"{text} showed [{cards}] and lost with {description}")


def render_session(hands: Sequence[HandRecord]) -> str:
    """The text of a session file: every hand followed by three blank lines."""
    lines: list[str] = []
    for hand in hands:
        lines.extend(render_hand(hand))
        lines.extend(("", "", ""))
    lines.append("")
    text = LINE_END.join(lines)
    if hands and hands[0].table.is_tournament:
        text = BOM + text
    return text


def file_name(first: HandRecord) -> str:
    """A PokerStars-style file name for a session that starts with ``first``."""
    table = first.table
    date = f"{first.started_at.year}{first.started_at.month:02d}{first.started_at.day:02d}"
    limit = LIMIT_NAMES[first.stakes.limit_type]
    if table.is_tournament:
        return f"HH{date} T{table.tournament_id} Omaha Hi-Lo {limit}.txt"
    stakes = first.stakes
    low = cash_money(stakes.header_low)
    high = cash_money(stakes.header_high)
    return f"HH{date} {table.name} - {low}-{high} - USD Omaha Hi-Lo {limit}.txt"
