"""What the site writers other than PokerStars' share: session files, time zones, grouped
amounts, and the payments of a hand in the order and granularity they are printed.

The PokerStars writer (`pipeline.generate.pokerstars_text`) keeps its own tuned session builder
(its output must stay byte-identical); the other writers build on `SessionLines` here and reuse
the PokerStars writer's cards, descriptions and per-half payment rules.
"""

from __future__ import annotations

import codecs
from collections.abc import Callable, Sequence
from datetime import datetime

from pipeline.generate.betting import POST_ANTE, POST_SMALL_BLIND, RETURN
from pipeline.generate.pokerstars_text import TWO_DIGITS, printed_shares, shares_by_pot
from pipeline.generate.showdown import HALF_HIGH, HALF_LOW, HALF_SCOOP, Share, high_half
from pipeline.generate.simulate import HandRecord
from pipeline.generate.stakes import EDT_OFFSET

__all__ = [
    "Action",
    "SessionLines",
    "append_betting",
    "append_run_out",
    "bet_won_back",
    "blind_word",
    "buy_in_parts",
    "grouped",
    "opening_posts",
    "printed_payments",
    "uncalled_bet",
    "utc",
    "utc_stamp",
]

# One simulated action: street, player, kind, amount, to_amount, all_in, raised_by.
Action = list[int]

# The simulator's clock is Eastern Time, and every session stays inside 2011's summer time
# (`pipeline.generate.EPOCH`): EDT, four hours behind UTC (the rake schedule's days are UTC too).
_EDT_OFFSET = EDT_OFFSET


def utc(moment: datetime) -> datetime:
    """A simulated (Eastern summer) time in UTC."""
    return moment + _EDT_OFFSET


def utc_stamp(moment: datetime) -> str:
    """A simulated time as ``2011/04/01 13:00:00`` in UTC."""
    moment = utc(moment)
    two = TWO_DIGITS
    return (
        f"{moment.year}/{two[moment.month]}/{two[moment.day]}"
        f" {two[moment.hour]}:{two[moment.minute]}:{two[moment.second]}"
    )


def buy_in_parts(buy_in: str) -> list[int]:
    """The parts of a tournament buy-in in cents: ``$1.08+$0.27+$0.15 USD`` → ``[108, 27, 15]``."""
    parts = []
    for part in buy_in.split()[0].split("+"):
        whole, _, rest = part.lstrip("$").partition(".")
        parts.append(int(whole) * 100 + int(rest or 0))
    return parts


def grouped(amount: int, scale: int) -> str:
    """An amount in minor units with thousands separators: ``10,676``, ``4,339.50``; whole
    amounts without decimals (``scale`` 100: cents, 1: chips).

    >>> grouped(1067600, 100), grouped(433950, 100), grouped(125, 100), grouped(2910, 1)
    ('10,676', '4,339.50', '1.25', '2,910')
    """
    if scale == 1:
        return f"{amount:,}"
    whole, cents = divmod(amount, 100)
    return f"{whole:,}.{cents:02d}" if cents else f"{whole:,}"


def opening_posts(hand: HandRecord) -> tuple[int, list[Action], list[Action]]:
    """The posts that open the action list: (how many, the antes in seat order, the blinds
    in the order posted)."""
    actions = hand.actions
    posts = 0
    while posts < len(actions) and actions[posts][2] <= POST_ANTE:
        posts += 1
    seats = hand.player_seats
    antes = sorted((a for a in actions[:posts] if a[2] == POST_ANTE), key=lambda a: seats[a[1]])
    blinds = [action for action in actions[:posts] if action[2] != POST_ANTE]
    return posts, antes, blinds


def blind_word(kind: int) -> str:
    """``small`` or ``big``: the blind a post of ``kind`` is."""
    return "small" if kind == POST_SMALL_BLIND else "big"


def append_betting(
    hand: HandRecord,
    posts: int,
    board: Sequence[str],
    money: Callable[[int], str],
    street_marker: Callable[[int, Sequence[str]], str],
    action_line: Callable[[str, Action, Callable[[int], str]], str | None],
    lines: list[str],
) -> int:
    """Append the betting after the ``posts``, each street opened by ``street_marker``'s line
    and each action written by ``action_line`` with the player's name and ``money`` (None: the
    site prints no line for it); return the last street reached."""
    names = hand.players
    street = 0
    for action in hand.actions[posts:]:
        while action[0] > street:
            street += 1
            lines.append(street_marker(street, board))
        line = action_line(names[action[1]], action, money)
        if line is not None:
            lines.append(line)
    return street


def append_run_out(
    hand: HandRecord,
    street: int,
    board: Sequence[str],
    street_marker: Callable[[int, Sequence[str]], str],
    lines: list[str],
) -> None:
    """Append the markers of the streets dealt after the betting ended on ``street`` (an
    all-in runs the board out)."""
    last_street = (0, 0, 0, 1, 2, 3)[hand.board_shown]
    while street < last_street:
        street += 1
        lines.append(street_marker(street, board))


def uncalled_bet(hand: HandRecord) -> tuple[int, int] | None:
    """``(player, amount)`` of the bet returned uncalled, or None."""
    for action in reversed(hand.actions):
        if action[2] == RETURN:
            return action[1], action[3]
    return None


def bet_won_back(hand: HandRecord) -> tuple[int, int] | None:
    """At a site that prints no return: the uncalled bet the bettor wins back as a pot, or None.

    A bettor who folded (a small blind facing a big blind all-in for less) does not: nobody
    still in can win those chips, so they go back without a line, and the parsers take them
    back themselves.
    """
    returned = uncalled_bet(hand)
    if returned is None or hand.fold_street[returned[0]] >= 0:
        return None
    return returned


def printed_payments(hand: HandRecord, unit: int, uncalled_as_pot: bool = False) -> list[Share]:
    """The recorded payments of ``hand`` as one line each, side pots first (highest first).

    At a showdown each pot is printed per half, as `printed_shares` settles it (a lone player
    with a low takes a high and a low half; tied players sharing both halves take each half).
    With ``uncalled_as_pot`` (sites that print no return of an uncalled bet, site-formats.md
    §1.3) the returned chips are paid back as a won pot: added to the top pot when the bettor
    alone is in it, else as one more pot above the others — which is where a pot builder that
    sees the bet as put in finds them.
    """
    pot_count = len(hand.pots)
    by_pot = shares_by_pot(hand.recorded_shares, pot_count)
    returned = bet_won_back(hand) if uncalled_as_pot else None
    extra: list[Share] = []
    if returned is not None:
        player, amount = returned
        top = pot_count - 1
        alone = tuple(hand.pots[top].eligible) == (player,)
        if alone and all(share.player == player for share in by_pot[top]):
            total = sum(share.amount for share in by_pot[top]) + amount
            by_pot[top] = [Share(top, HALF_SCOOP, player, total)]
        elif alone:
            # The top pot was paid to someone else (an injected fault): the bet comes back
            # on its own line in that pot.
            by_pot[top] = [*by_pot[top], Share(top, HALF_SCOOP, player, amount)]
        else:
            extra = _lone_pot(hand, pot_count, player, amount, unit)
    result: list[Share] = list(extra)
    for pot_index in range(pot_count - 1, -1, -1):
        if hand.showdown:
            result.extend(printed_shares(hand, pot_index, by_pot[pot_index], unit))
        else:
            result.extend(share for share in by_pot[pot_index] if share.amount > 0)
    return result


def _lone_pot(hand: HandRecord, pot_index: int, player: int, amount: int, unit: int) -> list[Share]:
    """A pot of ``amount`` that only ``player`` is in, printed as `printed_shares` would."""
    if hand.showdown and hand.low[player]:
        high = high_half(amount, unit)
        halves = [
            Share(pot_index, HALF_HIGH, player, high),
            Share(pot_index, HALF_LOW, player, amount - high),
        ]
        return [share for share in halves if share.amount > 0]
    return [Share(pot_index, HALF_SCOOP, player, amount)]


class SessionLines:
    """The text of one session file, built hand by hand.

    ``render`` appends one hand's lines; ``separator`` lines follow every hand; the file is
    encoded with ``encoding`` (a BOM first when ``bom``) and its lines end with ``line_end``.
    """

    def __init__(
        self,
        render: Callable[[HandRecord, list[str]], None],
        *,
        separator: Sequence[str] = ("",),
        line_end: str = "\n",
        encoding: str = "utf-8",
        bom: bool = False,
    ) -> None:
        self.lines: list[str] = []
        self._render = render
        self._separator = tuple(separator)
        self._line_end = line_end
        self._encoding = encoding
        self._bom = bom

    def add(self, hand: HandRecord) -> None:
        """Append ``hand`` and the separator lines that follow it."""
        self._render(hand, self.lines)
        self.lines.extend(self._separator)

    def text(self) -> str:
        """The file's text (without a BOM)."""
        return self._line_end.join([*self.lines, ""]) if self.lines else ""

    def data(self) -> bytes:
        """The file's bytes."""
        data = self.text().encode(self._encoding)
        if not self._bom:
            return data
        bom = codecs.BOM_UTF16_LE if self._encoding == "utf-16-le" else codecs.BOM_UTF8
        return bom + data
