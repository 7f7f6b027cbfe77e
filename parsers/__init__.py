"""Site parsers behind a registry that sniffs each input's format from its first characters."""

from __future__ import annotations

from parsers.base import ParseResult, SiteParser
from parsers.pokerstars import PokerStarsParser

__all__ = ["PARSERS", "ParseResult", "SiteParser", "detect"]

# Order matters only when two formats could claim the same head; the most specific goes first.
PARSERS: tuple[SiteParser, ...] = (PokerStarsParser(),)


def detect(head: str) -> SiteParser | None:
    """Return the parser whose format the decoded ``head`` of a file is in, or None."""
    for parser in PARSERS:
        if parser.sniff(head):
            return parser
    return None
