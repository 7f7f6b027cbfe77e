"""Independent brute force of all-in equity, for tests: plain Python, one board at a time.

Hand strengths come from pokerkit (the oracle): a five-card high depends only on its ranks
and whether it is a flush, a five-card low only on its ranks, so pokerkit is asked once per
such key and the answers are cached. The best Omaha hand is the max over the 60 ways to take
exactly two hole and three board cards. Settlement is written here again from
payout-rules.md P2-P8 (not imported from the pipeline): halves per pot, high takes the odd
unit, tied winners one spare unit each clockwise, the same players winning both halves share
the whole pot, boards split evenly with the spare units to the first.
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from functools import lru_cache

from pokerkit import EightOrBetterLowHand, StandardHighHand

RANKS = "23456789TJQKA"
SUITS = "cdhs"


@lru_cache(maxsize=None)
def _high_of_key(ranks: tuple[int, ...], flush: bool) -> StandardHighHand:
    suits = "sssss" if flush else "cdhsc"
    return StandardHighHand("".join(RANKS[rank] + suits[i] for i, rank in enumerate(ranks)))


@lru_cache(maxsize=None)
def _low_of_key(ranks: tuple[int, ...]) -> EightOrBetterLowHand | None:
    try:
        return EightOrBetterLowHand("".join(RANKS[rank] + "cdhsc"[i] for i, rank in enumerate(ranks)))
    except ValueError:
        return None


def omaha_strengths(hole: tuple[int, ...], board: tuple[int, ...]) -> tuple[object, object]:
    """Best high and best eight-or-better low (None: no low), exactly 2 hole + 3 board cards."""
    best_high = None
    best_low = None
    for pair in itertools.combinations(hole, 2):
        for triple in itertools.combinations(board, 3):
            cards = pair + triple
            ranks = tuple(sorted(card // 4 for card in cards))
            flush = len({card % 4 for card in cards}) == 1
            high = _high_of_key(ranks, flush)
            if best_high is None or high > best_high:
                best_high = high
            low = _low_of_key(ranks)
            if low is not None and (best_low is None or low > best_low):
                best_low = low
    return best_high, best_low


def split_evenly(amount: int, winners: list[int], unit: int) -> dict[int, int]:
    units, rest = divmod(amount, unit)
    each, spare = divmod(units, len(winners))
    shares = {player: each * unit + (unit if position < spare else 0) for position, player in enumerate(winners)}
    shares[winners[0]] += rest
    return shares


def settle_one_board(amount: int, players: list[int], strengths: dict[int, tuple[object, object]], unit: int) -> dict[int, int]:
    """P2-P7 for one board: ``players`` in clockwise order."""
    if len(players) == 1:
        return {players[0]: amount}
    best_high = max(strengths[p][0] for p in players)
    high_winners = [p for p in players if strengths[p][0] == best_high]
    lows = [strengths[p][1] for p in players if strengths[p][1] is not None]
    if not lows:
        return split_evenly(amount, high_winners, unit)
    best_low = max(lows)
    low_winners = [p for p in players if strengths[p][1] is not None and strengths[p][1] == best_low]
    if high_winners == low_winners and len(high_winners) > 1:
        return split_evenly(amount, high_winners, unit)
    units, rest = divmod(amount, unit)
    high_half = (units + 1) // 2 * unit + rest
    paid: dict[int, int] = {}
    for part, winners in ((high_half, high_winners), (amount - high_half, low_winners)):
        for player, value in split_evenly(part, winners, unit).items():
            paid[player] = paid.get(player, 0) + value
    return paid


def board_shares(amount: int, unit: int, boards: int) -> list[int]:
    units, rest = divmod(amount, unit)
    each, spare = divmod(units, boards)
    shares = [each * unit + (unit if board < spare else 0) for board in range(boards)]
    shares[0] += rest
    return shares


def pokerkit_strengths(holes: list[tuple[int, ...]], boards: list[tuple[int, ...]]) -> list[dict]:
    """Per board, per player: (high, low) from pokerkit."""
    return [{i: omaha_strengths(hole, board) for i, hole in enumerate(holes)} for board in boards]


def reference_equity(
    holes: list[tuple[int, ...]],
    known: tuple[int, ...],
    pots: list[tuple[int, list[int]]],
    unit: int,
    boards: int,
    strengths_of=pokerkit_strengths,
) -> tuple[list[dict[int, Fraction]], dict[str, int]]:
    """Exact expected amount per pot and player over every completion of ``known``, and how
    often some pot was quartered (a tied low beside a different high) or had no low.

    ``strengths_of(holes, boards)`` gives per board a {player: (high, low)} mapping of
    comparable values (low None: no qualifying low)."""
    used = set(known) | {card for hole in holes for card in hole}
    deck = [card for card in range(52) if card not in used]
    sums = [dict.fromkeys(players, 0) for _, players in pots]
    events = {"quartered": 0, "no_low": 0, "boards": 0}
    all_boards = [known + drawn for drawn in itertools.combinations(deck, 5 - len(known))]
    for strengths in strengths_of(holes, all_boards):
        events["boards"] += 1
        for (amount, players), total in zip(pots, sums):
            if len(players) > 1:
                lows = [strengths[p][1] for p in players if strengths[p][1] is not None]
                if not lows:
                    events["no_low"] += 1
                elif sum(1 for p in players if strengths[p][1] == max(lows)) > 1:
                    events["quartered"] += 1
            for share in board_shares(amount, unit, boards):
                for player, value in settle_one_board(share, players, strengths, unit).items():
                    total[player] += value
    count = events["boards"]
    return [{p: Fraction(v, count) for p, v in total.items()} for total in sums], events
