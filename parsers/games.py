"""The Omaha Hi/Lo games hilo reads: what ``hands.game`` holds and what each game deals.

Every game is Omaha Hi/Lo's rules with more hole cards: the high uses exactly two hole
cards and three board cards, and so (independently) does the eight-or-better low. Courchevel
deals the first flop card face up before the preflop betting. A site module names the game
its header prints; everything downstream (checks, audit, evaluator, statistics, export) asks
this table how many hole cards the hand holds.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["GAMES", "Game", "HOLE_CARD_COUNTS", "OMAHA_HI_LO", "game_named"]


@dataclass(frozen=True)
class Game:
    code: str  # hands.game
    title: str  # as a player reads it
    hole_cards: int
    exposed_before_flop: int = 0  # board cards dealt face up before the preflop betting
    # The betting structures sites deal it in: the variants only pot limit.
    limits: tuple[str, ...] = ("PL",)

    @property
    def max_players(self) -> int:
        """The most players one deck deals in (ten at most): 5-card 9, 6-card 7."""
        return min(10, (52 - 5) // self.hole_cards)


OMAHA_HI_LO = Game("O8", "Omaha Hi/Lo", 4, limits=("FL", "PL", "NL"))
BIG_O = Game("O8-5card", "5-Card Omaha Hi/Lo (Big O)", 5)
SIX_CARD = Game("O8-6card", "6-Card Omaha Hi/Lo", 6)
COURCHEVEL = Game("Courchevel-HL", "Courchevel Hi/Lo", 5, exposed_before_flop=1)

GAMES: dict[str, Game] = {game.code: game for game in (OMAHA_HI_LO, BIG_O, SIX_CARD, COURCHEVEL)}
# hands.game -> hole cards dealt, for the table code that joins it (polars replace_strict).
HOLE_CARD_COUNTS: dict[str, int] = {code: game.hole_cards for code, game in GAMES.items()}


def game_named(code: str | None) -> Game:
    """The game of a ``hands.game`` value; a hand without one is Omaha Hi/Lo."""
    if code is None:
        return OMAHA_HI_LO
    try:
        return GAMES[code]
    except KeyError:
        raise ValueError(f"game {code!r} is not one of {', '.join(GAMES)}") from None
