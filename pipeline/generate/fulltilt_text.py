"""Full Tilt Poker hand-history text for simulated hands, line for line as the site writes it.

The layout follows the corpus (``corpus/FTP``, 2006-2011):

- ``Full Tilt Poker Game #60000000000: Table Gaby I (6 max) - $0.02/$0.04 - Limit Omaha H/L -
  9:00:00 ET - 2011/04/01`` (fixed limit shows the bets, pot and no limit the blinds; heads-up
  tables say ``(heads up)``); tournaments ``Full Tilt Poker Game #…: $1.35 + $0.15 Sit & Go
  (450000000), Table 1 - 25/50 Ante 5 - Pot Limit Omaha H/L - …`` in chips.
- Dollars are grouped and whole amounts have no cents (``$10,676``, ``$4,339.50``, ``$5``).
- Antes, then ``posts the small blind of $1.25`` / ``posts the big blind of $2.50``, then ``The
  button is in seat #4``; ``raises to $800`` gives the street total only; ``, and is all in``.
- ``Uncalled bet of $5 returned to P``. At a showdown ``P shows [..] two pair, Aces and Sevens, for
  high and 7,4,3,2,A, for low``, then one line per pot and labelled half: ``wins the high pot
  ($2,048.50) with …``, ``wins the low side pot #2 (…)``, ``ties for the high main pot (…)``. A
  pot won without a showdown: ``P mucks`` (when the winner does not show), ``P wins the pot
  ($12.50)``.
- ``Total pot $4,100 Main pot $3,000. Side pot 1 $1,097. | Rake $3``: gross of rake, the pots
  after it. Summary seats ``showed [..] and won ($x) with HI: …; LO: …``, ``didn't bet
  (folded)``, ``folded before the Flop``, ``collected ($12.50), mucked``.
- UTF-16LE with a BOM, LF line ends, three blank lines between hands (the 2011 export).

Full Tilt splits to the table's smallest chip; the parser's profile declares 5 cents (and the
same 5 for tournament chips), so the simulator settles Full Tilt tables in units of 5
(`pipeline.generate.sites`).
"""

from __future__ import annotations

from collections.abc import Callable

from pipeline.generate.betting import BET, CALL, CHECK, FOLD, RAISE
from pipeline.generate.pokerstars_text import (
    CARD_TEXT,
    HIGH_TEXT,
    LIMIT_NAMES,
    LOW_TEXT,
    _hole_text,
    _street_marker,
)
from pipeline.generate.showdown import HALF_HIGH, HALF_LOW, take_rake
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

UNIT = 5
ALL_IN = ("", ", and is all in")
FOLDED = (
    " folded before the Flop",
    " folded on the Flop",
    " folded on the Turn",
    " folded on the River",
)
HALF_WORDS = {HALF_HIGH: "high ", HALF_LOW: "low "}

# Full Tilt prints the hand number as it is.
hand_id_text = None


def dollars(cents: int) -> str:
    """``$10,676``, ``$4,339.50``, ``$0.05``."""
    return "$" + grouped(cents, 100)


def chips(amount: int) -> str:
    """``1,320``."""
    return grouped(amount, 1)


def _tournament_name(buy_in: str) -> str:
    """``$1.08+$0.27+$0.15 USD`` → ``$1.35 + $0.15 Sit & Go``: prize pool and bounty, then the
    fee."""
    parts = buy_in_parts(buy_in)
    fee = parts[1] if len(parts) == 3 else parts[-1]
    return f"{dollars(sum(parts) - fee)} + {dollars(fee)} Sit & Go"


def _header(hand: HandRecord) -> str:
    table = hand.table
    stakes = hand.stakes
    moment = hand.started_at
    when = (
        f"{moment.hour}:{moment.minute:02d}:{moment.second:02d} ET"
        f" - {moment.year}/{moment.month:02d}/{moment.day:02d}"
    )
    game = f"{LIMIT_NAMES[stakes.limit_type]} Omaha H/L"
    if table.is_tournament:
        ante = f" Ante {chips(stakes.ante)}" if stakes.ante else ""
        return (
            f"Full Tilt Poker Game #{hand.hand_id}: {_tournament_name(table.buy_in)}"
            f" ({table.tournament_id}), Table 1"
            f" - {chips(stakes.header_low)}/{chips(stakes.header_high)}{ante} - {game} - {when}"
        )
    seats = "(heads up)" if table.max_seats == 2 else f"({table.max_seats} max)"
    return (
        f"Full Tilt Poker Game #{hand.hand_id}: Table {table.name} {seats}"
        f" - {dollars(stakes.header_low)}/{dollars(stakes.header_high)} - {game} - {when}"
    )


def _show_text(hand: HandRecord, player: int) -> str:
    high = HIGH_TEXT[hand.high[player]]
    low = LOW_TEXT[hand.low[player]]
    return f"{high}, for high and {low}, for low" if low else high


def _summary_text(hand: HandRecord, player: int) -> str:
    high = HIGH_TEXT[hand.high[player]]
    low = LOW_TEXT[hand.low[player]]
    return f"HI: {high}; LO: {low}" if low else high


def render_hand(hand: HandRecord, lines: list[str]) -> None:
    """Append the lines of one hand."""
    table = hand.table
    money = chips if table.is_tournament else dollars
    names = hand.players
    append = lines.append
    append(_header(hand))
    for seat, name, stack, sitting_out in hand.seats:
        append(f"Seat {seat}: {name} ({money(stack)}){', is sitting out' * sitting_out}")
    posts, antes, blinds = opening_posts(hand)
    for _, player, _, amount, _, all_in, _ in antes:
        append(f"{names[player]} antes {money(amount)}{ALL_IN[all_in]}")
    for _, player, kind, amount, _, all_in, _ in blinds:
        append(
            f"{names[player]} posts the {blind_word(kind)} blind of {money(amount)}{ALL_IN[all_in]}"
        )
    blind_posters = {action[1] for action in blinds}
    append(f"The button is in seat #{hand.button_seat}")
    append("*** HOLE CARDS ***")
    if hand.hero >= 0:
        append(f"Dealt to {names[hand.hero]} [{_hole_text(hand.holes[hand.hero])}]")
    board = [CARD_TEXT[card] for card in hand.board]
    street = append_betting(hand, posts, board, money, _street_marker, _action_line, lines)
    append_run_out(hand, street, board, _street_marker, lines)
    hole_texts = [""] * len(names)
    payments = printed_payments(hand, UNIT)
    if hand.showdown:
        append("*** SHOW DOWN ***")
        for player in hand.show_order:
            hole_texts[player] = _hole_text(hand.holes[player])
            if hand.mucked[player]:
                append(f"{names[player]} mucks")
            else:
                append(f"{names[player]} shows [{hole_texts[player]}] {_show_text(hand, player)}")
        pot_count = len(hand.pots)
        for share in payments:
            tied = sum(
                1 for other in payments
                if other.pot_index == share.pot_index and other.half == share.half
            )  # fmt: skip
            verb = "ties for" if tied > 1 else "wins"
            pot = _pot_name(share.pot_index, pot_count)
            with_text = (
                LOW_TEXT[hand.low[share.player]]
                if share.half == HALF_LOW
                else HIGH_TEXT[hand.high[share.player]]
            )
            # A low paid to a player without one (an injected fault) names no hand.
            with_part = f" with {with_text}" if with_text else ""
            append(
                f"{names[share.player]} {verb} the {HALF_WORDS.get(share.half, '')}{pot}"
                f" ({money(share.amount)}){with_part}"
            )
    else:
        winner = payments[0].player
        if hand.says_no_show:
            append(f"{names[winner]} mucks")
        append(f"{names[winner]} wins the pot ({money(payments[0].amount)})")
    for line in hand.closing_lines:
        # Full Tilt prints arrivals as "sits down"; tournament finishes are left out.
        if line.endswith("leaves the table"):
            append(line)
        elif " joins the table at seat #" in line:
            append(line.split(" joins the table")[0] + " sits down")
    append("*** SUMMARY ***")
    append(_total_line(hand, money))
    if hand.board_shown:
        append(f"Board: [{' '.join(board[: hand.board_shown])}]")
    _summary_seats(hand, money, blind_posters, hole_texts, lines)


def _action_line(name: str, action: Action, money: Callable[[int], str]) -> str:
    _, _, kind, amount, to_amount, all_in, _ = action
    if kind == CALL:
        return f"{name} calls {money(amount)}{ALL_IN[all_in]}"
    if kind == CHECK:
        return f"{name} checks"
    if kind == FOLD:
        return f"{name} folds"
    if kind == RAISE:
        return f"{name} raises to {money(to_amount)}{ALL_IN[all_in]}"
    if kind == BET:
        return f"{name} bets {money(amount)}{ALL_IN[all_in]}"
    return f"Uncalled bet of {money(amount)} returned to {name}"


def _pot_name(pot_index: int, pot_count: int) -> str:
    if pot_count == 1:
        return "pot"
    if pot_index == 0:
        return "main pot"
    return f"side pot #{pot_index}"


def _total_line(hand: HandRecord, format_money: Callable[[int], str]) -> str:
    pots = ""
    if len(hand.pots) > 1:
        amounts = take_rake(
            hand.pots, hand.recorded_rake, hand.rake_each_pot, hand.rake_running_total
        )
        parts = [f"Main pot {format_money(amounts[0])}."]
        parts.extend(
            f"Side pot {index} {format_money(amount)}."
            for index, amount in enumerate(amounts)
            if index
        )
        pots = " " + " ".join(parts)
    return (
        f"Total pot {format_money(hand.total_pot)}{pots} | Rake {format_money(hand.recorded_rake)}"
    )


def _summary_seats(
    hand: HandRecord,
    format_money: Callable[[int], str],
    blind_posters: set[int],
    hole_texts: list[str],
    lines: list[str],
) -> None:
    names = hand.players
    seats = hand.player_seats
    count = len(names)
    labels = [""] * count
    labels[-1] = " (button)"
    labels[hand.small_blind_player] += " (small blind)"
    labels[hand.big_blind_player] += " (big blind)"
    dealt = {seats[player]: player for player in range(count)}
    for seat, name, _, sitting_out in hand.seats:
        if sitting_out or seat not in dealt:
            lines.append(f"Seat {seat}: {name} is sitting out")
            continue
        player = dealt[seat]
        head = f"Seat {seat}: {name}{labels[player]}"
        fold_street = hand.fold_street[player]
        won = hand.won[player]
        if fold_street >= 0:
            if (
                fold_street == 0
                and player not in blind_posters
                and not hand.preflop_flags[player] & 1
            ):
                lines.append(f"{head} didn't bet (folded)")
            else:
                lines.append(head + FOLDED[fold_street])
        elif not hand.showdown:
            mucked = ", mucked" if hand.says_no_show else ""
            lines.append(f"{head} collected ({format_money(won)}){mucked}")
        elif hand.mucked[player]:
            lines.append(f"{head} mucked [{hole_texts[player]}] - {_summary_text(hand, player)}")
        elif won:
            lines.append(
                f"{head} showed [{hole_texts[player]}] and won ({format_money(won)})"
                f" with {_summary_text(hand, player)}"
            )
        else:
            lines.append(
                f"{head} showed [{hole_texts[player]}] and lost with {_summary_text(hand, player)}"
            )


def SessionText() -> SessionLines:
    """A Full Tilt session file: UTF-16LE with a BOM, LF line ends, three blank lines between
    hands."""
    return SessionLines(render_hand, separator=("", "", ""), encoding="utf-16-le", bom=True)


def file_name(first: HandRecord) -> str:
    """``FT20110401 Gaby I - $0.02-$0.04 - Limit Omaha H-L.txt`` (tournaments: ``FT20110401
    Sit & Go (450000000) - Limit Omaha H-L.txt``)."""
    moment = first.started_at
    date = f"{moment.year}{moment.month:02d}{moment.day:02d}"
    game = f"{LIMIT_NAMES[first.stakes.limit_type]} Omaha H-L"
    table = first.table
    if table.is_tournament:
        return f"FT{date} Sit & Go ({table.tournament_id}) - {game}.txt"
    stakes = first.stakes
    return (
        f"FT{date} {table.name} - {dollars(stakes.header_low)}-{dollars(stakes.header_high)}"
        f" - {game}.txt"
    )
