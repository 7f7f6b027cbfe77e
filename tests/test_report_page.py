"""The report's page as the templates render it, from numbers made here (no dataset).

`synthetic_report` fills every part of the page: a filter, players asked for and missing, the
manifest and its problem files, rejects, notes, many sites, findings of money and other kinds
with and without their hand's text, and a player with a winnings curve, statistics, results,
hi/lo pots and all-in spots. Its text is compared with a golden copy (what a reader sees), every
text it takes from the data is made hostile once to check that the page shows it literally, and
its layout is measured in headless Chromium: no table may overflow its column.

The golden copy is ``tests/golden_report/page.txt``: after an intended change of the page's
wording or layout, ``HILO_UPDATE_GOLDEN=1 pytest tests/test_report_page.py`` rewrites it (review
its diff).
"""

from __future__ import annotations

import datetime as dt
import os
import re
from collections.abc import Callable
from decimal import Decimal
from html.parser import HTMLParser
from pathlib import Path

import polars as pl

from pipeline.fairness import FairnessReport, FamilyTest
from pipeline.fairness.luck import flag_players
from pipeline.fairness.deals import DealTest
from pipeline.report import (
    CurrencyBlock,
    HandText,
    Player,
    PlayerSection,
    ReportData,
    _allin_summary,
    _curve,
    _hilo_table,
    _results_by,
    render_report,
)
from tests.test_report import parse_dom, table_layout

GOLDEN_PAGE = Path(__file__).parent / "golden_report" / "page.txt"
# Every text taken from the data gets this appended in the hostile variant of the page.
HOSTILE = "<img src=x onerror=alert(1)><script>alert(2)\"onload='x' &amp;"
SITES = [
    "pokerstars",
    "fulltilt",
    "partypoker",
    "winamax",
    "pacific",
    "everleaf",
    "wpn",
    "ongame",
    "boss",
    "merge",
    "microgaming",
    "pokernow",
]


def _same(text: str) -> str:
    return text


def _hostile(text: str) -> str:
    return text + HOSTILE


def synthetic_report(mark: Callable[[str], str] = _same) -> ReportData:
    """A report over made-up numbers; ``mark`` is applied to every text that comes from data."""
    utc = dt.UTC
    sites = [mark(site) for site in SITES]
    first = dt.datetime(2024, 3, 1, 9, 15, tzinfo=utc)
    last = dt.datetime(2024, 4, 30, 22, 5, tzinfo=utc)
    overview = {
        "hands": 12_345,
        "sites": len(sites),
        "tables": 40,
        "tournaments": 2,
        "first": first,
        "last": last,
        "files": 61,
        "parsed": 12_400,
        "skipped": 310,
        "rejected": 3,
        "file_errors": 1,
        "filtered": True,
    }
    site_rows = pl.DataFrame(
        {
            "site": sites,
            "hands": [12_345 - 1000 * index for index in range(len(sites))],
            "first": [first] * len(sites),
            "last": [last] * len(sites),
        }
    )
    stakes = pl.DataFrame(
        {
            "limit_type": ["PL", "FL", "NL", "PL"],
            "currency": ["USD", "USD", "CHIPS", mark("EUR")],
            "money_scale": [100, 100, 1, 100],
            "stakes_small": [5, 50, 50, 1],
            "stakes_big": [10, 100, 100, 2],
            "is_tournament": [False, False, True, False],
            "hands": [9_000, 2_000, 1_000, 345],
        }
    )
    files = pl.DataFrame(
        {
            "path": [mark("/archive/stars/a very long folder name/HH20240301 Rigel.txt")],
            "hands": [120],
            "rejected": [3],
            "error": [None],
        }
    )
    rejects = pl.DataFrame({"reason": [mark("truncated hand: no summary")], "len": [3]})
    note_shapes = pl.DataFrame(
        {
            "shape": [mark("Player <name> has timed out")],
            "lines": [14],
            "example": [mark("Player Villain has timed out")],
        }
    )
    kinds = [mark("payout"), mark("button")]
    by_kind_site = pl.DataFrame(
        {
            "kind": [kinds[0]] * len(sites) + [kinds[1]],
            "kind_order": [0] * len(sites) + [1],
            "site": sites + [sites[0]],
            "len": [index + 1 for index in range(len(sites))] + [1],
        }
    )
    shown = pl.DataFrame(
        {
            "site": [sites[0], sites[1], sites[0]],
            "hand_id": ["2001", "2002", "2003"],
            "table_name": [mark("Rigel"), None, mark("Rigel")],
            "player": [mark("Hero"), mark("Villain"), None],
            "expected": [1250, 400, 3],
            "recorded": [1200, 0, 1],
            "detail": [mark("paid 12.00, the rules pay 12.50"), None, mark("button on seat 1")],
            "kind": [kinds[0], kinds[0], kinds[1]],
            "currency": ["USD", "USD", "USD"],
            "money_scale": [100, 100, 100],
        }
    )
    hand = [
        mark("PokerStars Hand #2001: Omaha Hi/Lo Pot Limit ($0.05/$0.10 USD)"),
        mark("Table 'Rigel' 6-max Seat #1 is the button"),
        mark("Seat 1: Hero ($10 in chips)"),
        mark("Seat 2: Villain ($10 in chips)"),
        mark("Villain: folds"),
        mark("Hero collected $12 from pot"),
        "*** SUMMARY ***",
    ]
    audit = {
        "total": len(sites) * (len(sites) + 1) // 2 + 1,
        "hands": 70,
        "by_kind_site": by_kind_site,
        "by_kind": pl.DataFrame(
            {
                "kind": kinds,
                "kind_order": [0, 1],
                "findings": [len(sites) * (len(sites) + 1) // 2, 1],
                "hands": [69, 1],
            }
        ),
        "money": pl.DataFrame(
            {
                "kind": [kinds[0]],
                "kind_order": [0],
                "currency": ["USD"],
                "money_scale": [100],
                "affected": [450],
                "findings": [2],
            }
        ),
        "shown": shown,
        "texts": {(sites[0], "2001"): HandText(hand, mark("source: /archive/a.txt, byte 0"))},
        "sites": sites,
    }
    hands = 40
    rows = pl.DataFrame(
        {
            "net": [(-1) ** index * 1_234_567 * (index % 7) for index in range(hands)],
            "showdown": [index % 3 == 0 for index in range(hands)],
            "position": [
                ["SB", "BB", "UTG", "CO", "BTN", None][index % 6] for index in range(hands)
            ],
            "big_blind": [10] * hands,
            "limit_type": ["PL"] * hands,
            "stakes_small": [5] * hands,
            "stakes_big": [10] * hands,
            "is_tournament": [False] * hands,
            "allin_spot": [index % 10 == 0 for index in range(hands)],
            "allin_expected": [500.5 if index % 10 == 0 else None for index in range(hands)],
            "allin_actual": [800 if index % 10 == 0 else None for index in range(hands)],
            "allin_equity": [0.5 if index % 10 == 0 else None for index in range(hands)],
            "allin_adjustment": [-299.5 if index % 10 == 0 else 0.0 for index in range(hands)],
        }
    )
    outcomes = pl.DataFrame(
        {"outcome": ["scooped", "scooped", "quartered"], "amount": [2_000_000, 500, 250]}
    )
    currency = mark("PLAY")
    stats = {
        "player": mark("Hero"),
        "site": sites[0],
        "currency": currency,
        "hands": hands,
        "vpip": 0.25,
        "pfr": None,
        "af": 1.5,
        "net_won": Decimal("-1234.50"),
        "bb_per_100": -308.6,
        "rake_paid": Decimal("3.25"),
        "net_won_minor": -123450,
    }
    block = CurrencyBlock(
        currency=currency,
        scale=100,
        hands=hands,
        curve=_curve(rows, 2000),
        stats=stats,
        by_position=_results_by(rows, ["position"]),
        by_stakes=_results_by(rows, ["limit_type", "stakes_small", "stakes_big", "is_tournament"]),
        hilo=_hilo_table(outcomes),
        allin=_allin_summary(rows),
    )
    player = Player(mark("Hero"), (sites[0],), (f"{sites[0]}:{mark('Hero')}",))
    ranks = DealTest(
        "hero_ranks", 4000, 9.5, 12, 0.66,
        tuple((rank, 310.0 + index, 307.7, 16.9) for index, rank in enumerate("23456789TJQKA")),
    )  # fmt: skip
    suits = DealTest(
        "hero_suits", 4000, 14.2, 3, 0.0026,
        (("clubs", 1060.0, 1000.0, 27.9), ("diamonds", 980.0, 1000.0, 27.9),
         ("hearts", 920.0, 1000.0, 27.9), ("spades", 1040.0, 1000.0, 27.9)),
    )  # fmt: skip
    fairness = FairnessReport(
        alpha=0.01,
        tests=[
            FamilyTest(sites[0], "2024", "O8", ranks, 1.0, False),
            FamilyTest(sites[0], "2024", "O8", suits, 0.0052, True),
        ],
        players=flag_players(pl.DataFrame(
            {
                "site": [sites[0], sites[1]],
                "player": [mark("Hero"), mark("Villain")],
                "currency": [currency, currency],
                "spots": [40, 12],
                "luck": [-12.5, 3.25],
                "luck_minor": [-1250.0, 325.0],
                "z": [-1.2, 0.4],
                "p_value": [0.2301, 0.6892],
            }
        ), 0.01),
    )
    return ReportData(
        dataset=mark("/data/hilo-out/dataset"),
        generated_at=dt.datetime(2024, 5, 1, 12, 30, tzinfo=utc),
        since=dt.date(2024, 3, 1),
        until=dt.date(2024, 4, 30),
        requested_players=[mark("Hero"), mark("Nobody")],
        overview=overview,
        sites=site_rows,
        stakes=stakes,
        files=files,
        rejects=rejects,
        note_shapes=note_shapes,
        audit=audit,
        players=[PlayerSection(player, hands, [block])],
        missing_players=[mark("Nobody")],
        stats_note=None,
        fairness=fairness,
    )


class _VisibleText(HTMLParser):
    """What a reader sees: the text outside ``<style>``, one line per block element."""

    BLOCKS = frozenset(
        {
            *("p", "div", "tr", "td", "th", "h1", "h2", "h3", "h4", "li", "a", "title"),
            *("section", "header", "footer", "nav", "table", "thead", "tbody", "tfoot"),
            *("figure", "figcaption", "details", "summary", "pre", "svg", "g", "text"),
        }
    )

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.in_style = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.in_style = tag == "style"
        if tag in self.BLOCKS:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        self.in_style = False
        if tag in self.BLOCKS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self.in_style:
            self.parts.append(data)


def visible_text(page: str) -> str:
    parser = _VisibleText()
    parser.feed(page)
    parser.close()
    lines = (re.sub(r"\s+", " ", line).strip() for line in "".join(parser.parts).split("\n"))
    return "\n".join(line for line in lines if line) + "\n"


def test_page_text_is_the_golden_copy() -> None:
    text = visible_text(render_report(synthetic_report()))
    if os.environ.get("HILO_UPDATE_GOLDEN"):
        GOLDEN_PAGE.parent.mkdir(exist_ok=True)
        GOLDEN_PAGE.write_text(text, encoding="utf-8")
    assert text == GOLDEN_PAGE.read_text(encoding="utf-8")


def test_every_text_from_the_data_is_shown_literally() -> None:
    data = synthetic_report(_hostile)
    page = render_report(data)
    for raw in ("<script", "<img", '"onload=', "'x'"):
        assert raw not in page, raw
    dom = parse_dom(page)
    assert dom.find_all("script") == [] and dom.find_all("img") == []
    for node in dom.walk():
        assert not any(name.startswith("on") for name in node.attrs), node.tag
    text = visible_text(page)
    audit = data.audit
    assert audit is not None
    hand = next(iter(audit["texts"].values()))
    marked = [
        data.dataset,
        *audit["sites"],
        *data.stakes["currency"].to_list()[3:],
        *data.files["path"].to_list(),
        *data.rejects["reason"].to_list(),
        *data.note_shapes["shape"].to_list(),
        *data.note_shapes["example"].to_list(),
        *audit["by_kind"]["kind"].to_list(),
        *audit["shown"]["table_name"].drop_nulls().to_list(),
        *audit["shown"]["player"].drop_nulls().to_list(),
        *audit["shown"]["detail"].drop_nulls().to_list(),
        *hand.lines[:6],
        hand.origin,
        *data.missing_players,
        data.players[0].player.label,
        data.players[0].blocks[0].currency,
        *data.fairness.players["player"].to_list(),
    ]
    for value in marked:
        assert HOSTILE in value and value in text, value
    assert dom.find_all("title")[0].text() == f"hilo report · dataset{HOSTILE}"
    (section,) = [node for node in dom.find_all("section") if "data-player" in node.attrs]
    assert section.attrs["data-player"] == _hostile("Hero")
    assert section.attrs["data-sites"] == _hostile("pokerstars")
    assert _hostile("PLAY") in {
        node.attrs["data-currency"] for node in dom.walk() if "data-currency" in node.attrs
    }
    assert _hostile("payout") in {
        node.attrs["data-kind"] for node in dom.walk() if "data-kind" in node.attrs
    }
    # The charts carry no text from the data (an unknown currency is drawn as "units", an
    # unknown kind as "other"), and escape what they draw.
    for svg in dom.find_all("svg"):
        assert HOSTILE not in svg.text()
        assert all(HOSTILE not in value for node in svg.walk() for value in node.attrs.values())


def test_wide_tables_stay_in_their_columns(tmp_path: Path) -> None:
    """Twelve sites' findings beside the chart and money in millions of play chips, at 1280
    pixels: every table ends inside its column (the widest scroll in their own box)."""
    fits = table_layout(render_report(synthetic_report()), tmp_path)
    assert [fit.table for fit in fits if fit.table == "findings-by-kind"] == ["findings-by-kind"]
    for fit in fits:
        assert fit.right <= fit.column + 0.5, fit
