"""Boss Media XML hand histories (``<HISTORY … GAME="GAME_OMAHL">``), Omaha Hi/Lo.

What Boss writes, and so what this parser records (site-formats.md, "Boss Media"):

- One ``<HISTORY ID= TABLE= GAME= GAMEKIND= TABLECURRENCY= LIMIT="PL" STAKES="0.05/0.10"
  DATE="1341335256">`` element per hand, optionally inside ``<ROOT>``. ``GAME_OMAHL`` is Omaha
  Hi/Lo (other games are skipped); ``DATE`` is epoch seconds (UTC).
- ``<PLAYER NAME= SEAT= AMOUNT= STATE= DEALER="Y">``: seats as printed, the dealer is the button.
- ``HAND_BLINDS`` with ``KIND`` ``HAND_SB``/``HAND_BB``, or ``HAND_DSB``: a dead small blind
  (``post_dead``); ``HAND_ANTE``. ``ACTION_CALL``, ``ACTION_BET``, ``ACTION_RAISE`` and
  ``ACTION_ALLIN`` print the chips added (``VALUE``). Cards are ``<CARD LINK="17">``: 0–12
  diamonds A..K, 13–25 clubs, 26–38 hearts, 39–51 spades; ``b`` is a hidden card.
  ``HAND_BOARD`` repeats the whole board so far.
- Payouts: ``<SHOWDOWN POT="0.76" RAKE="0.04">`` (``POT`` after rake) with one ``<RESULT
  WINTYPE="WINTYPE_HI|LO|HILO" PLAYER= WIN= HAND= HANDEXT=>`` per player: a per-player total,
  ``half`` high or low where ``WINTYPE`` names one half, null for ``WINTYPE_HILO`` (both).
  ``HAND`` is a localisation template (``$(STR_G_WIN_FULLHOUSE)``), kept as printed;
  ``HANDEXT`` is the low.
- Uncalled bets are handed back without a word (and are not inside ``WIN``); the showdown's
  ``POT`` + ``RAKE`` says what stayed in, so the difference is recorded as an
  ``uncalled_return`` of the largest contributor **[derived]**. The corpus hand 2907049023
  shows the small blind calling 0.35 into a 0.35 raise (0.05 more than owed) while the flop's
  running ``POT`` is 0.80: the 0.05 comes back the same way (the audit still reports the call
  as a ``bet_size`` finding: it is what the site wrote).

IGT writes the same schema as JSON: what it means is read once, by
`parsers.engine.boss_schema.read_boss_hand`; this module holds Boss's XML, card ids and profile.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar
from xml.etree.ElementTree import Element

from parsers.engine.boss_schema import read_boss_hand
from parsers.engine.structured import (
    HandRecord,
    XmlHandParser,
    card,
    read_element,
    small_number,
)
from parsers.engine.xml_safe import attribute
from pipeline.profiles import SiteProfile

__all__ = ["SITE", "BossParser", "boss_card"]

SITE = "boss"
_RANKS = "A23456789TJQK"
_SUITS = "dchs"


def boss_card(link: str | None) -> int | None:
    """Card code of a Boss ``LINK`` id; None for a hidden (``b``) or unreadable card."""
    code = _BOSS_CODES.get(link)  # type: ignore[arg-type]
    if code is not None:
        return code
    number = small_number(link, 2)
    if number is None or number > 51:
        return None
    return card(_RANKS[number % 13], _SUITS[number // 13])


# The 52 ids as printed (``"0"``..``"51"``), decoded once; other spellings take the long way.
_BOSS_CODES: dict[str, int] = {
    str(number): card(_RANKS[number % 13], _SUITS[number // 13]) for number in range(52)  # type: ignore[misc]
}


class BossParser(XmlHandParser):
    """Parser for Boss Media XML hand histories."""

    site: ClassVar[str] = SITE
    # One total per player (with a half type); the pot printed after rake, the rake printed;
    # uncalled bets handed back silently are derived from the printed pot (see below).
    profile: ClassVar[SiteProfile] = SiteProfile(
        site=SITE,
        halves_labelled=False,
        total_pot_is_gross=False,
        raise_cap=4,
        payout_lines="per_player",
        rake_printed=True,
        uncalled_printed=True,
    )
    start_tag: ClassVar[re.Pattern[str]] = re.compile(r"<HISTORY ")
    hand_end: ClassVar[str] = "</HISTORY>"
    sniff_pattern: ClassVar[re.Pattern[str]] = re.compile(
        r'^\s*<HISTORY ID="[0-9]+"[^>]* GAME="GAME_', re.MULTILINE
    )
    hand_id_pattern: ClassVar[re.Pattern[str]] = re.compile(r'<HISTORY ID="([^"]+)"')

    def outside_line(self, line: str, context: dict[str, Any]) -> bool:
        return line.strip() in ("<ROOT>", "</ROOT>") or line.lstrip().startswith("<?xml ")

    def read_hand(self, text: str, context: dict[str, Any]) -> HandRecord:
        root = read_element(text, "HISTORY")
        return read_boss_hand(root.attrib, _elements(root), boss_card)


def _elements(root: Element) -> list[dict[str, Any]]:
    """The children of a ``<HISTORY>`` as plain dicts: ``tag``, attributes, ``cards`` (LINKs)
    and, for a ``<SHOWDOWN>``, its ``results`` (the shape IGT's JSON shares). An attribute
    named ``tag`` replaces the element's tag, ``cards`` and ``results`` are replaced."""
    out = []
    for child in root:
        item: dict[str, Any] = {"tag": child.tag}
        # Every value stripped, in a plain loop: a comprehension runs in a frame of its own
        # (Python 3.11), which costs more than the five or so attributes Boss writes.
        for key, value in child.attrib.items():
            item[key] = value.strip()
        # Most elements (PLAYER, most ACTIONs) have no children: no CARD to look for.
        item["cards"] = _links(child) if len(child) else []
        if child.tag == "SHOWDOWN":
            results = []
            for result in child:
                if result.tag == "RESULT":
                    entry: dict[str, Any] = {}
                    for key, value in result.attrib.items():
                        entry[key] = value.strip()
                    entry["cards"] = _links(result) if len(result) else []
                    results.append(entry)
            item["results"] = results
        out.append(item)
    return out


def _links(element: Element) -> list[str | None]:
    """The LINKs of an element's ``<CARD>`` children, as `attribute` reads them (stripped,
    None when absent or empty)."""
    # Children by tag with a loop, as findall does for a plain tag, without ElementPath (nor
    # a comprehension's frame).
    links = []
    for c in element:
        if c.tag == "CARD":
            links.append(c.get("LINK"))
    if _PLAIN_LINKS.issuperset(links):
        return links  # ids as printed: already what attribute gives
    return [attribute(c, "LINK") for c in element if c.tag == "CARD"]


# The LINK ids Boss prints ("0".."51", "b" hidden): `attribute` returns them unchanged.
_PLAIN_LINKS = frozenset((*_BOSS_CODES, "b"))
