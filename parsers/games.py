"""The Omaha Hi/Lo games hilo reads: what ``hands.game`` holds and what each game deals.

Every game is Omaha Hi/Lo's rules with more hole cards: the high uses exactly two hole
cards and three board cards, and so (independently) does the eight-or-better low. Courchevel
deals the first flop card face up before the preflop betting. A site module declares the game
names its headers print, each with its code (`game_codes`: any other name is another game,
skipped); everything downstream (the hole-card rules, checks, audit, evaluator, statistics,
export) asks this table how many hole cards the hand holds.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import polars as pl

__all__ = [
    "BIG_O",
    "COURCHEVEL",
    "GAMES",
    "Game",
    "HOLE_CARD_COUNTS",
    "OMAHA_HI_LO",
    "SIX_CARD",
    "exposed_count",
    "game_codes",
    "game_named",
    "hole_card_count",
]


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


def game_codes(names: pl.Expr, codes: Mapping[str, str]) -> pl.Expr:
    """The ``hands.game`` code of each printed game name (``codes``: the names a site's headers
    print for the games it reads, each with its code); null for any other name, another game.

    >>> names = pl.DataFrame({"game": ["Omaha Hi/Lo", "5 Card Omaha Hi/Lo", "Hold'em", None]})
    >>> codes = {"Omaha Hi/Lo": "O8", "5 Card Omaha Hi/Lo": "O8-5card"}
    >>> names.select(game_codes(pl.col("game"), codes))["game"].to_list()
    ['O8', 'O8-5card', None, None]
    """
    unknown = set(codes.values()) - set(GAMES)
    if unknown:
        raise ValueError(f"not game codes: {', '.join(sorted(unknown))}")
    return names.replace_strict(dict(codes), default=None, return_dtype=pl.String)


def hole_card_count(codes: pl.Expr) -> pl.Expr:
    """The hole cards the game of each ``hands.game`` code deals (a null code: Omaha Hi/Lo's
    four), as Int8."""
    return (
        codes.fill_null(OMAHA_HI_LO.code)
        .replace_strict(HOLE_CARD_COUNTS, default=OMAHA_HI_LO.hole_cards, return_dtype=pl.Int8)
    )


def exposed_count(codes: pl.Expr) -> pl.Expr:
    """The board cards the game of each ``hands.game`` code deals face up before the preflop
    betting (Courchevel's one; a null code: Omaha Hi/Lo's none), as Int8."""
    exposed = {code: game.exposed_before_flop for code, game in GAMES.items()}
    return codes.fill_null(OMAHA_HI_LO.code).replace_strict(
        exposed, default=0, return_dtype=pl.Int8
    )
