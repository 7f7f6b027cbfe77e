"""PokerStars hand-history text for simulated hands, line for line as the site writes it.

The layout follows the corpus (2009–2011 era): ``PokerStars Game #…`` headers in ET, trailing
spaces after ``folds``/``checks``/seat lines/``Rake``, three blank lines between hands, CRLF line
ends, a UTF-8 BOM on tournament files. At a showdown each pot is settled in turn, side pots
first (highest first): the players of that pot not yet seen show (or muck), then one
``collected`` line per half, the high first, then ``No low hand qualified`` when no pot was split.
A scoop at a showdown with a qualifying low is two lines (#35875159084 in the corpus), without
one a single line (#35875356253); a pot won without a showdown is one line.

Two things follow what real PokerStars text shows (``real-site-evidence.md``):

- in fixed limit, ``Betting is capped`` right after the fourth bet of a street (a bet and three
  raises, the big blind counting as the first bet before the flop; 37 of 37 capped streets);
- a cash table lists only the players dealt in: a player sitting out has no ``Seat N:`` line
  and no other line either (0 of 36,978 real cash hands list one; at the start of a hand the
  corpus omits them, as ``Gaby II`` does with EricSteph261 while away). Tournament tables list
  them, ``Seat N: X (1500 in chips) is sitting out``.
"""

from __future__ import annotations

import codecs
from collections.abc import Callable, Sequence
from datetime import datetime

from pipeline.generate.betting import (
    BET,
    CALL,
    CHECK,
    FOLD,
    POST_ANTE,
    POST_SMALL_BLIND,
    RAISE,
)
from pipeline.generate.money import cash_money, chips
from pipeline.generate.showdown import (
    HALF_HIGH,
    HALF_LOW,
    HALF_SCOOP,
    Share,
    high_half,
    take_rake,
)
from pipeline.generate.simulate import HandRecord, TableInfo
from pipeline.generate.stakes import RAISE_CAP, Stakes, roman

__all__ = [
    "CARD_TEXT",
    "HIGH_TEXT",
    "HIGH_TEXT_WITH_KICKERS",
    "LINE_END",
    "LOW_TEXT",
    "SessionText",
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
FOLDED = tuple(f" folded {street}" for street in STREET_NAMES)  # summary lines, by fold street
ALL_IN = ("", " and is all-in")  # indexed by the action's all-in flag
CAPPED = "Betting is capped"


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


def _hole_text(cards: Sequence[int]) -> str:
    """The hole cards as text (four in one f-string: a join builds a list and costs twice as
    much)."""
    text = CARD_TEXT
    if len(cards) != 4:  # Big O, Courchevel, 6-card
        return " ".join(text[card] for card in cards)
    first, second, third, fourth = cards
    return f"{text[first]} {text[second]} {text[third]} {text[fourth]}"


# ``00`` .. ``59``: looking the two digits up is several times faster than formatting them.
TWO_DIGITS = tuple(f"{number:02d}" for number in range(60))


def _time(moment: datetime) -> str:
    two = TWO_DIGITS
    return (
        f"{moment.year}/{two[moment.month]}/{two[moment.day]}"
        f" {moment.hour}:{two[moment.minute]}:{two[moment.second]} ET"
    )


# What the header calls each game (`parsers.games` codes).
GAME_NAMES = {
    "O8": "Omaha Hi/Lo",
    "O8-5card": "5 Card Omaha Hi/Lo",
    "O8-6card": "6 Card Omaha Hi/Lo",
    "Courchevel-HL": "Courchevel Hi/Lo",
}
FILE_GAME_NAMES = {code: name.replace("/", "-") for code, name in GAME_NAMES.items()}


def _game_text(hand: HandRecord) -> str:
    """The header between the hand id and the time (the same for every hand of a level)."""
    table = hand.table
    stakes = hand.stakes
    low = stakes.header_low
    high = stakes.header_high
    game = f"{GAME_NAMES[table.game.code]} {LIMIT_NAMES[stakes.limit_type]}"
    if table.is_tournament:
        return (
            f": Tournament #{table.tournament_id}, {table.buy_in} {game}"
            f" - Level {roman(hand.level)} ({low}/{high}) - "
        )
    return f":  {game} ({cash_money(low)}/{cash_money(high)} USD) - "


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
    names: Sequence[str],
    hole_texts: list[str],
    money: Money,
    lines: list[str],
) -> None:
    """Shows, mucks and collected lines pot by pot, side pots first."""
    pot_count = len(hand.pots)
    recorded = shares_by_pot(hand.recorded_shares, pot_count)
    shown: set[int] = set()
    shown_texts: set[str] = set()
    order = hand.show_order
    mucked = hand.mucked
    high = hand.high
    split = False
    for pot_index in range(pot_count - 1, -1, -1):
        pot_shares = printed_shares(hand, pot_index, recorded[pot_index])
        involved = set(hand.pots[pot_index].eligible)
        for share in pot_shares:
            involved.add(share.player)
        for player in order:
            if player in shown or player not in involved:
                continue
            shown.add(player)
            if mucked[player]:
                lines.append(f"{names[player]}: mucks hand ")
                continue
            plain = HIGH_TEXT[high[player]]
            # PokerStars adds the kickers when an earlier shown hand has the same wording.
            high_text = HIGH_TEXT_WITH_KICKERS[high[player]] if plain in shown_texts else plain
            shown_texts.add(plain)
            lines.append(
                f"{names[player]}: shows [{hole_texts[player]}]"
                f" ({_description(hand, player, high_text)})"
            )
        name = _pot_name(pot_index, pot_count)
        # Side pot lines carry a trailing space in PokerStars' text; main pot and pot do not.
        tail = " " if pot_index > 0 else ""
        for share in pot_shares:
            lines.append(f"{names[share.player]} collected {money(share.amount)} from {name}{tail}")
            split = split or share.half in (HALF_HIGH, HALF_LOW)
    if not split:
        lines.append("No low hand qualified")


def shares_by_pot(shares: Sequence[Share], pot_count: int) -> list[list[Share]]:
    """``shares`` grouped by pot index (in their order within each pot)."""
    if pot_count == 1:
        return [list(shares)]
    by_pot: list[list[Share]] = [[] for _ in range(pot_count)]
    for share in shares:
        by_pot[share.pot_index].append(share)
    return by_pot


def printed_shares(
    hand: HandRecord, pot_index: int, pot_shares: list[Share], unit: int = 1
) -> list[Share]:
    """The recorded shares of one pot at a showdown as PokerStars prints them: one line per
    half (``unit``: the table's smallest unit for splitting, P9).

    Two cases differ from the shares themselves:

    - the same players tying both halves split the pot evenly as a whole (P6); each player's
      share is printed as two lines (half rounded up, then half rounded down), high parts first;
    - a side pot with a single player left in it who holds a qualifying low is settled like any
      pot at the showdown: a high line and a low line to that player.

    A pot shared without a qualifying low stays one line per winner.
    """
    scoops = [share for share in pot_shares if share.half == HALF_SCOOP]
    result = pot_shares
    if scoops and len(scoops) == len(pot_shares):
        eligible = hand.pots[pot_index].eligible
        low = hand.low
        if len(scoops) == 1 and len(eligible) == 1 and low[scoops[0].player]:
            share = scoops[0]
            high = high_half(share.amount, unit)
            result = [
                Share(pot_index, HALF_HIGH, share.player, high),
                Share(pot_index, HALF_LOW, share.player, share.amount - high),
            ]
        elif len(scoops) > 1 and any(low[player] for player in eligible):
            highs = [high_half(s.amount, unit) for s in scoops]
            result = [
                Share(pot_index, HALF_HIGH, s.player, high) for s, high in zip(scoops, highs)
            ]
            result.extend(
                Share(pot_index, HALF_LOW, s.player, s.amount - high)
                for s, high in zip(scoops, highs)
            )
    return [share for share in result if share.amount > 0]


def render_hand(hand: HandRecord) -> list[str]:
    """The lines of one hand (without the blank lines that follow it)."""
    lines: list[str] = []
    _render_hand(hand, _game_text(hand), lines)
    return lines


def _render_hand(hand: HandRecord, game_text: str, lines: list[str]) -> None:
    """Append the lines of ``hand`` to ``lines``; ``game_text`` is the header's middle
    (`_game_text`), which a session's hands share."""
    table = hand.table
    money = chips if table.is_tournament else cash_money
    names = hand.players
    seats = hand.player_seats
    append = lines.append
    append(f"PokerStars Game #{hand.hand_id}{game_text}{_time(hand.started_at)}")
    append(f"Table '{table.name}' {table.max_seats}-max Seat #{hand.button_seat} is the button")
    tournament = table.is_tournament
    for seat, name, stack, sitting_out in hand.seats:
        if sitting_out and not tournament:
            continue  # a cash table does not list a player who sits out
        # The trailing space is PokerStars'.
        tail = " is sitting out" if sitting_out else " "
        append(f"Seat {seat}: {name} ({money(stack)} in chips){tail}")
    actions = hand.actions
    # The posts open the action list: antes (PokerStars lists them in seat order), then blinds.
    posts = 0
    while posts < len(actions) and actions[posts][2] <= POST_ANTE:
        posts += 1
    if hand.stakes.ante:
        antes = sorted((a for a in actions[:posts] if a[2] == POST_ANTE), key=lambda a: seats[a[1]])
        for _, player, _, amount, _, all_in, _ in antes:
            append(f"{names[player]}: posts the ante {money(amount)}{ALL_IN[all_in]}")
    blind_posters: set[int] = set()
    for _, player, kind, amount, _, all_in, _ in actions[:posts]:
        if kind != POST_ANTE:
            blind = "small" if kind == POST_SMALL_BLIND else "big"
            append(f"{names[player]}: posts {blind} blind {money(amount)}{ALL_IN[all_in]}")
            blind_posters.add(player)
    append("*** HOLE CARDS ***")
    # Hole cards as text, each written when first needed (the hero's, then at the showdown
    # twice: shows and summary).
    hole_texts = [""] * len(names)
    if hand.hero >= 0:
        hole_texts[hand.hero] = _hole_text(hand.holes[hand.hero])
        append(f"Dealt to {names[hand.hero]} [{hole_texts[hand.hero]}]")
    board = [CARD_TEXT[card] for card in hand.board]
    if hand.table.game.exposed_before_flop:
        append(f"*** PRE-FLOP *** [{board[0]}]")
    street = 0
    stakes = hand.stakes
    # Fixed limit: full bets so far on the street (the big blind is the first before the flop)
    # and the size of a full bet; `CAPPED` follows the RAISE_CAP-th. Other limits never cap.
    fixed_limit = stakes.limit_type == "FL"
    bets = 1
    full_bet = stakes.small_bet
    for action_street, player, kind, amount, to_amount, all_in, raised_by in actions[posts:]:
        if action_street != street:
            while action_street > street:
                street += 1
                append(_street_marker(street, board))
            bets = 0
            full_bet = stakes.small_bet if street <= 1 else stakes.big_bet
        # The most frequent kinds first.
        name = names[player]
        if kind == CALL:
            append(f"{name}: calls {money(amount)}{ALL_IN[all_in]}")
        elif kind == CHECK:
            append(name + ": checks ")
        elif kind == FOLD:
            append(name + ": folds ")
        elif kind == RAISE or kind == BET:
            if kind == RAISE:
                append(f"{name}: raises {money(raised_by)} to {money(to_amount)}{ALL_IN[all_in]}")
            else:
                append(f"{name}: bets {money(amount)}{ALL_IN[all_in]}")
            # A short all-in is no full bet: the betting kernel does not count it either.
            if fixed_limit and raised_by >= full_bet:
                bets += 1
                if bets == RAISE_CAP:
                    append(CAPPED)
        else:
            append(f"Uncalled bet ({money(amount)}) returned to {name}")
    last_street = (0, 0, 0, 1, 2, 3)[hand.board_shown]
    while street < last_street:
        street += 1
        append(_street_marker(street, board))
    if hand.showdown:
        append("*** SHOW DOWN ***")
        for player in hand.show_order:
            if not hole_texts[player]:
                hole_texts[player] = _hole_text(hand.holes[player])
        _showdown_lines(hand, names, hole_texts, money, lines)
    else:
        winner = hand.recorded_shares[0].player
        append(f"{names[winner]} collected {money(hand.recorded_shares[0].amount)} from pot")
        if hand.says_no_show:
            append(f"{names[winner]}: doesn't show hand ")
    lines.extend(hand.closing_lines)
    append("*** SUMMARY ***")
    append(_total_line(hand, money))
    if hand.board_shown:
        append(f"Board [{' '.join(board[: hand.board_shown])}]")
    _summary_seats(hand, money, blind_posters, hole_texts, lines)


def _street_marker(street: int, board: Sequence[str]) -> str:
    """``*** FLOP *** [..]``, ``*** TURN *** [...] [.]``, ``*** RIVER *** [....] [.]``."""
    if street == 1:
        return f"*** FLOP *** [{board[0]} {board[1]} {board[2]}]"
    if street == 2:
        return f"*** TURN *** [{board[0]} {board[1]} {board[2]}] [{board[3]}]"
    return f"*** RIVER *** [{board[0]} {board[1]} {board[2]} {board[3]}] [{board[4]}]"


def _total_line(hand: HandRecord, money: Money) -> str:
    pots = ""
    if len(hand.pots) > 1:
        amounts = take_rake(
            hand.pots, hand.recorded_rake, hand.rake_each_pot, hand.rake_running_total
        )
        parts = [f"Main pot {money(amounts[0])}."]
        if len(amounts) == 2:
            parts.append(f"Side pot {money(amounts[1])}.")
        else:
            parts.extend(
                f"Side pot-{index} {money(amount)}."
                for index, amount in enumerate(amounts)
                if index
            )
        pots = " " + " ".join(parts)
    return f"Total pot {money(hand.total_pot)}{pots} | Rake {money(hand.recorded_rake)} "


def _summary_seats(
    hand: HandRecord,
    money: Money,
    blind_posters: set[int],
    hole_texts: list[str],
    lines: list[str],
) -> None:
    players = hand.players
    seats = hand.player_seats
    count = len(players)
    won = hand.won
    flags = hand.preflop_flags
    labels = [""] * count
    labels[-1] = " (button)"  # the ring ends at the button
    labels[hand.small_blind_player] += " (small blind)"
    labels[hand.big_blind_player] += " (big blind)"
    # The ring starts left of the button; the summary goes by seat number.
    first = seats.index(min(seats))
    showdown = hand.showdown
    fold_streets = hand.fold_street
    for player in (*range(first, count), *range(first)):
        fold_street = fold_streets[player]
        if fold_street >= 0:
            # "(didn't bet)": folded before the flop without putting a chip in, antes aside:
            # neither a blind nor a voluntary call, bet or raise (the VPIP flag).
            if fold_street == 0 and player not in blind_posters and not flags[player] & 1:
                result = " folded before Flop (didn't bet)"
            else:
                result = FOLDED[fold_street]
        elif not showdown:
            result = f" collected ({money(won[player])})"
        elif hand.mucked[player]:
            result = f" mucked [{hole_texts[player]}]"
        else:
            description = _description(hand, player, HIGH_TEXT[hand.high[player]])
            if won[player]:
                result = (
                    f" showed [{hole_texts[player]}] and won ({money(won[player])})"
                    f" with {description}"
                )
            else:
                result = f" showed [{hole_texts[player]}] and lost with {description}"
        lines.append(f"Seat {seats[player]}: {players[player]}{labels[player]}{result}")


class SessionText:
    """The text of one session file, built hand by hand (a hand is not needed once added)."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.tournament = False
        # The header's middle of the last hand: within a session, only a new tournament level
        # changes it.
        self._game_text = ""
        self._game: tuple[TableInfo, Stakes, int] | None = None

    def add(self, hand: HandRecord) -> None:
        """Append ``hand`` and the three blank lines that follow it."""
        game = self._game
        if game is None or (
            hand.table is not game[0] or hand.stakes is not game[1] or hand.level != game[2]
        ):
            self._game = (hand.table, hand.stakes, hand.level)
            self._game_text = _game_text(hand)
        self.tournament = hand.table.is_tournament
        _render_hand(hand, self._game_text, self.lines)
        self.lines.extend(("", "", ""))

    def text(self) -> str:
        """The file's text (tournament files start with a BOM)."""
        body = self._body()
        return BOM + body if self.tournament else body

    def data(self) -> bytes:
        """The file's bytes: `text` in UTF-8.

        The BOM goes in front of the encoded text: a str that starts with it is stored two
        bytes a character, and encoding it took longer than rendering the hands.
        """
        data = self._body().encode("utf-8")
        return codecs.BOM_UTF8 + data if self.tournament else data

    def _body(self) -> str:
        # Every line ends with a line end, the last one too.
        return LINE_END.join([*self.lines, ""]) if self.lines else ""


def render_session(hands: Sequence[HandRecord]) -> str:
    """The text of a session file: every hand followed by three blank lines."""
    session = SessionText()
    for hand in hands:
        session.add(hand)
    return session.text()


# PokerStars prints the hand number as it is (`pipeline.generate.sites`).
hand_id_text = None


def file_name(first: HandRecord) -> str:
    """A PokerStars-style file name for a session that starts with ``first``."""
    table = first.table
    date = f"{first.started_at.year}{first.started_at.month:02d}{first.started_at.day:02d}"
    limit = LIMIT_NAMES[first.stakes.limit_type]
    game = FILE_GAME_NAMES[table.game.code]
    if table.is_tournament:
        return f"HH{date} T{table.tournament_id} {game} {limit}.txt"
    stakes = first.stakes
    low = cash_money(stakes.header_low)
    high = cash_money(stakes.header_high)
    return f"HH{date} {table.name} - {low}-{high} - USD {game} {limit}.txt"
