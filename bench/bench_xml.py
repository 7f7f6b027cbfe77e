"""Structured-format parsers (Merge, Boss, Microgaming XML): hands/s beside PokerStars text.

Each corpus hand is replicated under fresh hand ids into a block of ``HILO_BENCH_XML_HANDS``
hands (default 5,000) and parsed in one call, after a warm-up parse (numba compilation and
imports are not timed). The PokerStars parser on the corpus's Stars files, replicated to about
as many hands, is the baseline run in the same process: the ratio is what to compare across
machines; the load average is printed beside it. Also timed:
`parsers.engine.xml_safe.read_document` alone on one Merge game (the safe reading's share of a
hand's cost).

Run with ``python -m bench xml``.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable

from parsers.base import SiteParser
from parsers.boss import BossParser
from parsers.engine.xml_safe import read_document
from parsers.merge import MergeParser
from parsers.microgaming import MicrogamingParser
from parsers.pokerstars import PokerStarsParser
from parsers.text import decode_lines
from tests.shared_data import CORPUS

__all__ = ["main"]

HANDS = int(os.environ.get("HILO_BENCH_XML_HANDS", "5000"))


def _merge_block(count: int) -> bytes:
    text = (CORPUS / "Merge/cash/PLO8-USD-0.25-0.50-201111.txt").read_text().replace("\r", "")
    description, game = text.split("\n", 1)
    games = "".join(game.replace("40231841-160", f"40231841-{n}") for n in range(count))
    return (description + "\n" + games).encode()


def _boss_block(count: int) -> bytes:
    text = (CORPUS / "Boss/cash/LO8-EUR-0.05-0.10-201207.xml").read_text()
    hand = text.replace("<ROOT>\n", "").replace("</ROOT>", "").strip()
    return "".join(hand.replace("2907049023", str(10**9 + n)) + "\n" for n in range(count)).encode()


def _microgaming_block(count: int) -> bytes:
    text = (CORPUS / "Microgaming/cash/PLO8-EUR-1.00-2.00-201209.txt").read_text()
    game = text[text.index("<Game ") : text.index("</Game>") + len("</Game>")]
    return "".join(
        game.replace("4577018979", str(10**10 + n)) + "\n" for n in range(count)
    ).encode()


def _stars_block(count: int) -> bytes:
    files = sorted((CORPUS / "Stars").rglob("*.txt"))
    sample = b"".join(path.read_bytes() for path in files)
    per_copy = max(1, sample.count(b"PokerStars "))
    return sample * max(1, count // per_copy)


def _hands_per_second(parser: SiteParser, data: bytes) -> tuple[float, int]:
    decoded = decode_lines(data)
    parser.parse(decoded.lines[:400], decoded.offsets[:400], "warm-up")
    start = time.perf_counter()
    result = parser.parse(decoded.lines, decoded.offsets, "bench")
    elapsed = time.perf_counter() - start
    return result.parsed / elapsed, result.parsed


def _per_second(action: Callable[[], object], repeat: int) -> float:
    start = time.perf_counter()
    for _ in range(repeat):
        action()
    return repeat / (time.perf_counter() - start)


def main() -> None:
    if not (CORPUS / "MANIFEST.tsv").exists():
        print(f"corpus not found at {CORPUS}: nothing to measure")
        return
    baseline, stars_hands = _hands_per_second(PokerStarsParser(), _stars_block(HANDS))
    print(f"pokerstars (baseline)  {stars_hands:>7,} hands  {baseline:>9,.0f} hands/s")
    for name, parser, block in (
        ("merge", MergeParser(), _merge_block),
        ("boss", BossParser(), _boss_block),
        ("microgaming", MicrogamingParser(), _microgaming_block),
    ):
        rate, parsed = _hands_per_second(parser, block(HANDS))
        print(f"{name:<22} {parsed:>7,} hands  {rate:>9,.0f} hands/s  {rate / baseline:.2f}x")
    text = (CORPUS / "Merge/cash/PLO8-USD-0.25-0.50-201111.txt").read_text()
    game = text[text.index("<game ") : text.index("</game>") + len("</game>")]
    print(
        f"read_document (one {len(game):,}-char game)  {_per_second(lambda: read_document(game), 2000):,.0f}/s"
    )
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
