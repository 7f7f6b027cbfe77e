"""How PokerStars prints money."""

from __future__ import annotations

from functools import lru_cache

__all__ = ["cash_money", "chips"]


# The cents part of an amount (none for whole dollars): a lookup is several times faster than
# formatting ``{rest:02d}``.
_CENTS = ("",) + tuple(f".{cents:02d}" for cents in range(1, 100))


@lru_cache(maxsize=1 << 16)
def cash_money(cents: int) -> str:
    """PokerStars' dollars: ``$0.31``, ``$3`` for whole dollars, ``$11.27``.

    >>> cash_money(31), cash_money(300), cash_money(1127), cash_money(0)
    ('$0.31', '$3', '$11.27', '$0')
    """
    dollars, rest = divmod(cents, 100)
    return f"${dollars}{_CENTS[rest]}"


# Tournament chips print as plain integers (``1500``).
chips = str
