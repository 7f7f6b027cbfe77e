"""Who a player is: a (site, screen name) pair, and the aliases that merge several into a person.

A screen name belongs to a site, so two sites' "Hero" are two players unless the user says they
are one person. The aliases file is a small TOML table, one person per key::

    # aliases.toml
    me = ["pokerstars:Hero", "fulltilt:Hero2"]
    "Old Friend" = ["everleaf:Villain"]

Each value lists accounts as ``site:name`` (the site code of the ``site`` column; the name as
the site printed it, everything after the first colon). An account belongs to one person at
most. Anonymous tables (Bovada/Ignition) name their hero ``[ME]``: ``"bovada:[ME]"``.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from pathlib import Path

__all__ = ["ANONYMOUS_SITES", "Aliases", "alias_lists", "load_aliases", "parse_aliases"]

# Sites that print position labels instead of screen names (sql/stg_hands.sql is_anonymous
# lists the same; tests/test_stats_identity.py checks it).
ANONYMOUS_SITES = ("bovada",)

# account ("site:name") -> person
Aliases = Mapping[str, str]


def parse_aliases(data: Mapping[str, object], origin: str = "aliases") -> dict[str, str]:
    """Validate a parsed aliases table; return ``{"site:name": person}``.

    >>> parse_aliases({"me": ["pokerstars:Hero", "fulltilt:Hero"]})
    {'pokerstars:Hero': 'me', 'fulltilt:Hero': 'me'}
    """
    accounts: dict[str, str] = {}
    for person, listed in data.items():
        if not person.strip():
            raise ValueError(f"{origin}: a person needs a name")
        if not isinstance(listed, list) or not all(isinstance(item, str) for item in listed):
            raise ValueError(f"{origin}: {person!r} must be a list of \"site:name\" strings")
        for account in listed:
            site, colon, name = account.partition(":")
            if not colon or not site.strip() or not name:
                raise ValueError(f"{origin}: {account!r} (of {person!r}) is not \"site:name\"")
            account = f"{site.strip().lower()}:{name}"
            if account in accounts and accounts[account] != person:
                raise ValueError(
                    f"{origin}: {account!r} belongs to both {accounts[account]!r} and {person!r}"
                )
            accounts[account] = person
    return accounts


def load_aliases(path: str | os.PathLike[str]) -> dict[str, str]:
    """Read an aliases TOML file (see the module docstring)."""
    file = Path(path)
    try:
        data = tomllib.loads(file.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as error:
        raise ValueError(f"{file}: not valid TOML ({error})") from error
    return parse_aliases(data, str(file))


def alias_lists(aliases: Aliases | None) -> tuple[list[str] | None, list[str] | None]:
    """The two parallel lists (accounts, persons) the ``rpt_player_stats`` macro takes."""
    if not aliases:
        return None, None
    accounts = sorted(aliases)
    return accounts, [aliases[account] for account in accounts]
