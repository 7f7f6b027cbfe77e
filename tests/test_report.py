"""``hilo report``: one self-contained, safe HTML page with the right numbers.

A small generated archive has its busiest players renamed to hostile names, its tables and files
given names with markup; it is ingested, audited and reported on. The page is opened in headless
Chromium (Debian's ``chromium``; skipped with a reason where it is absent): it must render
without a console message and without a network request, keep its title, run no script from
the data, show every name literally and keep every table inside its column. Its numbers are compared with numbers computed here
independently, in DuckDB SQL over the tables.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

import duckdb
import polars as pl
import pytest
from typer.testing import CliRunner

from pipeline.cli import app
from pipeline.dataset import read_table

HOSTILE_PLAYERS = ("<script>alert(1)</script>", "O'Brien", "名字", 'Tom "T" & <b>Jerry</b>')
HOSTILE_TABLE = "<i>Rigel</i> & co"
HOSTILE_FILE_PREFIX = "<img src=x onerror=alert(2)> "
MONEY_IN = ("post_sb", "post_bb", "post_dead", "ante", "call", "bet", "raise")
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--hide-scrollbars",
    "--mute-audio",
)


# -- the dataset ----------------------------------------------------------------------------------


@dataclass
class Reported:
    """A generated, renamed, ingested and audited dataset and its report."""

    archive: Path
    dataset: Path
    report: Path
    html: str
    renamed: dict[str, str]


def _hostile_archive(folder: Path) -> dict[str, str]:
    """Rename the four busiest players, one table and every file of ``folder`` (in place)."""
    files = sorted(folder.glob("*.txt"))
    seats: Counter[str] = Counter()
    tables: Counter[str] = Counter()
    for path in files:
        text = path.read_text(encoding="utf-8")
        seats.update(re.findall(r"^Seat \d+: (.+?) \((?:\$|\d)", text, re.MULTILINE))
        tables.update(re.findall(r"^Table '([^']+)'", text, re.MULTILINE))
    busiest = [name for name, _ in seats.most_common(len(HOSTILE_PLAYERS))]
    renamed = dict(zip(busiest, HOSTILE_PLAYERS, strict=True))
    cash_tables = [name for name, _ in tables.most_common() if not re.match(r"^\d+ \d+$", name)]
    table = cash_tables[0]
    for path in files:
        text = path.read_text(encoding="utf-8")
        for old, new in renamed.items():
            text = re.sub(rf"(?<![\w.-]){re.escape(old)}(?![\w.-])", lambda _m, n=new: n, text)
        text = text.replace(f"Table '{table}'", f"Table '{HOSTILE_TABLE}'")
        path.write_text(text, encoding="utf-8")
        path.rename(path.with_name(HOSTILE_FILE_PREFIX + path.name))
    return renamed


@pytest.fixture(scope="module")
def reported(tmp_path_factory: pytest.TempPathFactory) -> Reported:
    from pipeline.audit import run_audit
    from pipeline.generate import generate
    from pipeline.ingest import ingest
    from pipeline.report import write_report

    root = tmp_path_factory.mktemp("report")
    generate(
        700, 21, root / "generated", limit="mix", tournament_share=0.3, fault_rate=0.06, workers=1
    )
    archive = root / "generated" / "pokerstars"
    renamed = _hostile_archive(archive)
    dataset = root / "dataset"
    summary = ingest([archive], dataset, workers=1)
    assert not summary.errors
    run_audit(dataset, "generated")
    report = root / "report.html"
    write_report(dataset, report, top=6)
    return Reported(archive, dataset, report, report.read_text(encoding="utf-8"), renamed)


# -- numbers computed independently (DuckDB SQL over the tables) ----------------------------------


@pytest.fixture(scope="module")
def sql(reported: Reported) -> Iterator[duckdb.DuckDBPyConnection]:
    connection = duckdb.connect()
    for table in ("hands", "seats", "actions", "collections", "files"):
        connection.register(f"t_{table}", read_table(reported.dataset, table))
    for name in ("payouts", "discrepancies"):
        folder = reported.dataset / "audit" / name
        frame = pl.read_parquet(folder / "site=*" / "*.parquet", hive_partitioning=True)
        connection.register(f"t_{name}", frame.to_arrow())
    connection.register("t_allin_equity", read_table(reported.dataset, "allin_equity"))
    money_in = ", ".join(f"'{kind}'" for kind in MONEY_IN)
    connection.execute(f"""
        create view hand_players as
        with seats as (
            select site, hand_id, player, position from t_seats
            where not coalesce(sitting_out, false) and player is not null
        ),
        acts as (
            select site, hand_id, player,
                   sum(case when kind in ({money_in}) then amount else 0 end) as put_in,
                   sum(case when kind = 'uncalled_return' then amount else 0 end) as returned,
                   bool_or(kind = 'fold') as folded
            from t_actions group by all
        ),
        paid as (select site, hand_id, player, sum(amount) as collected
                 from t_collections group by all),
        unfolded as (
            select seats.site, seats.hand_id,
                   count(*) filter (where not coalesce(acts.folded, false)) as players_left
            from seats left join acts using (site, hand_id, player) group by all
        )
        select seats.player, seats.position, hands.currency, hands.money_scale,
               hands.limit_type, hands.tournament_id is not null as is_tournament,
               case when hands.limit_type = 'FL' then hands.small_bet else hands.small_blind end
                   as stakes_small,
               case when hands.limit_type = 'FL' then hands.big_bet else hands.big_blind end
                   as stakes_big,
               coalesce(paid.collected, 0) - coalesce(acts.put_in, 0)
                   + coalesce(acts.returned, 0) as net,
               not coalesce(acts.folded, false) and unfolded.players_left >= 2 as showdown
        from seats
        join t_hands as hands using (site, hand_id)
        left join acts using (site, hand_id, player)
        left join paid using (site, hand_id, player)
        join unfolded using (site, hand_id)
    """)
    connection.execute("""
        create view hilo as
        with main as (select * from t_payouts where pot_index = 0 and board_index = 0),
        pots as (
            select site, hand_id, count(distinct player) as collectors,
                   bool_or(half = 'low') as has_low,
                   count(distinct player) filter (where half = 'high') as high_winners,
                   count(distinct player) filter (where half = 'low') as low_winners
            from main group by all
        ),
        winners as (
            select site, hand_id, player, bool_or(half = 'high') as got_high,
                   bool_or(half = 'low') as got_low, sum(amount) as amount
            from main group by all
        )
        select winners.player, hands.currency, winners.amount,
               case
                   when collectors = 1 then 'scooped'
                   when got_high and got_low then 'three_quartered'
                   when has_low and got_high and high_winners = 1 then 'high_only'
                   when has_low and got_low and low_winners = 1 then 'low_only'
                   when has_low and (case when got_high then high_winners
                                          else low_winners end) = 2 then 'quartered'
                   when has_low then 'split_half'
                   else 'chopped'
               end as outcome
        from winners join pots using (site, hand_id) join t_hands as hands using (site, hand_id)
    """)
    yield connection
    connection.close()


# -- a small DOM ----------------------------------------------------------------------------------


@dataclass
class Node:
    tag: str
    attrs: dict[str, str]
    children: list[Node | str] = field(default_factory=list)

    def text(self) -> str:
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def walk(self) -> Iterator[Node]:
        yield self
        for child in self.children:
            if isinstance(child, Node):
                yield from child.walk()

    def find_all(self, tag: str | None = None, **attrs: str) -> list[Node]:
        return [
            node
            for node in self.walk()
            if (tag is None or node.tag == tag)
            and all(node.attrs.get(k.replace("_", "-")) == v for k, v in attrs.items())
        ]

    def classes(self) -> set[str]:
        return set(self.attrs.get("class", "").split())


VOID = {"meta", "link", "br", "img", "input", "hr", "col", "source", "wbr", "area", "base"}


class DomBuilder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("#document", {})
        self.stack = [self.root]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = Node(tag, {key: value or "" for key, value in attrs})
        self.stack[-1].children.append(node)
        if tag not in VOID:
            self.stack.append(node)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.stack[-1].children.append(Node(tag, {key: value or "" for key, value in attrs}))

    def handle_endtag(self, tag: str) -> None:
        for index in range(len(self.stack) - 1, 0, -1):
            if self.stack[index].tag == tag:
                del self.stack[index:]
                return

    def handle_data(self, data: str) -> None:
        self.stack[-1].children.append(data)


def parse_dom(text: str) -> Node:
    builder = DomBuilder()
    builder.feed(text)
    builder.close()
    return builder.root


# -- the browser ----------------------------------------------------------------------------------


@dataclass
class BrowserRun:
    dom: str
    console: list[str]
    page_requests: list[str]


def _chromium() -> str:
    found = shutil.which("chromium") or (
        "/usr/bin/chromium" if os.access("/usr/bin/chromium", os.X_OK) else None
    )
    if found is None:
        pytest.skip("chromium is not installed (Debian package chromium; .ci/run installs it)")
    return found


def open_in_chromium(page: Path, work: Path) -> BrowserRun:
    """Load ``page``; return the DOM after load, console messages and the page's requests."""
    work.mkdir(parents=True, exist_ok=True)
    net_log = work / "net-log.json"
    result = subprocess.run(
        [
            _chromium(),
            *CHROMIUM_FLAGS,
            f"--user-data-dir={work / 'profile'}",
            "--enable-logging=stderr",
            "--v=0",
            f"--log-net-log={net_log}",
            "--net-log-capture-mode=Default",
            "--dump-dom",
            page.resolve().as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    console = [line for line in result.stderr.splitlines() if ":CONSOLE" in line]
    events = json.loads(net_log.read_text(encoding="utf-8"))
    names = {value: key for key, value in events["constants"]["logEventTypes"].items()}
    requests = [
        event["params"]["url"]
        for event in events["events"]
        if names.get(event["type"]) == "URL_REQUEST_START_JOB"
        # Requests of a page opened from a file are keyed to file://; the browser's own
        # background traffic (updates, time) is not.
        and "file://" in event.get("params", {}).get("network_isolation_key", "")
    ]
    return BrowserRun(result.stdout, console, requests)


def screenshot(page: Path, target: Path, work: Path, height: int = 3200) -> Path:
    subprocess.run(
        [
            _chromium(),
            *CHROMIUM_FLAGS,
            f"--user-data-dir={work / 'profile-shot'}",
            f"--window-size=1300,{height}",
            f"--screenshot={target}",
            page.resolve().as_uri(),
        ],
        capture_output=True,
        timeout=120,
        check=True,
    )
    return target


# Measures, after the page's layout, where each table ends against the column it is in. Every
# <details> is opened first, so that the findings' tables are laid out too.
LAYOUT_SCRIPT = """
for (const details of document.querySelectorAll('details')) details.open = true;
const found = [];
for (const table of document.querySelectorAll('table')) {
  // What shows of the table: the table, or the box it scrolls in.
  let shown = table;
  for (let box = table.parentElement; box !== document.body; box = box.parentElement) {
    if (getComputedStyle(box).overflowX !== 'visible') { shown = box; break; }
  }
  // Its column: the grid or flex item it is in, or else its section's content box.
  let column = table.parentElement;
  while (column.tagName !== 'SECTION'
         && !['grid', 'flex'].includes(getComputedStyle(column.parentElement).display)) {
    column = column.parentElement;
  }
  const style = getComputedStyle(column);
  found.push({
    table: table.id || table.className,
    right: shown.getBoundingClientRect().right,
    column: column.getBoundingClientRect().right - parseFloat(style.paddingRight)
      - parseFloat(style.borderRightWidth),
    scrolls: shown !== table && shown.scrollWidth > shown.clientWidth,
  });
}
const out = document.createElement('pre');
out.id = 'hilo-layout';
out.textContent = JSON.stringify(found);
document.body.appendChild(out);
"""


@dataclass(frozen=True)
class TableFit:
    """Where a table (or the box it scrolls in) ends, and where its column ends, in pixels."""

    table: str
    right: float
    column: float
    scrolls: bool


def table_layout(page: str, work: Path, width: int = 1280) -> list[TableFit]:
    """Lay ``page`` out in Chromium at ``width`` pixels and measure every table (a copy of the
    page without its Content-Security-Policy runs the measuring script; layout is the same)."""
    work.mkdir(parents=True, exist_ok=True)
    copy = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", page)
    copy = copy.replace("</body>", f"<script>{LAYOUT_SCRIPT}</script></body>")
    assert "<script>" in copy
    measured = work / "measured.html"
    measured.write_text(copy, encoding="utf-8")
    result = subprocess.run(
        [
            _chromium(),
            *CHROMIUM_FLAGS,
            f"--user-data-dir={work / 'profile-layout'}",
            f"--window-size={width},2000",
            "--dump-dom",
            measured.resolve().as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    (node,) = parse_dom(result.stdout).find_all("pre", id="hilo-layout")
    return [TableFit(**item) for item in json.loads(node.text())]


@pytest.fixture(scope="module")
def browser(reported: Reported, tmp_path_factory: pytest.TempPathFactory) -> BrowserRun:
    return open_in_chromium(reported.report, tmp_path_factory.mktemp("chromium"))


@pytest.fixture(scope="module")
def dom(browser: BrowserRun) -> Node:
    return parse_dom(browser.dom)


# -- the harness itself ---------------------------------------------------------------------------


def test_harness_sees_console_messages_and_requests(tmp_path: Path) -> None:
    """The browser checks below can fail: a request and a console error are both caught."""
    page = tmp_path / "bad.html"
    page.write_text(
        "<!DOCTYPE html><html><head><title>t</title></head><body>"
        "<img src='http://127.0.0.1:9/pixel.png'><script>console.error('boom')</script>"
        "</body></html>",
        encoding="utf-8",
    )
    run = open_in_chromium(page, tmp_path / "chromium")
    assert any("boom" in line for line in run.console)
    assert "http://127.0.0.1:9/pixel.png" in run.page_requests


# -- safety ---------------------------------------------------------------------------------------


def test_page_renders_without_console_messages_or_requests(
    reported: Reported, browser: BrowserRun, dom: Node, tmp_path: Path
) -> None:
    assert browser.console == []
    assert browser.page_requests == []
    title = dom.find_all("title")
    assert [node.text() for node in title] == [f"hilo report · {reported.dataset.name}"]
    shot = screenshot(reported.report, tmp_path / "report.png", tmp_path)
    assert shot.stat().st_size > 10_000
    # The winnings charts carry the all-in adjusted line (drawn dashed beside net).
    assert all(
        figure.find_all("g", id="curve-adjusted")
        for figure in dom.find_all("figure")
        if "winnings" in figure.classes()
    )
    kept = os.environ.get("HILO_REPORT_SCREENSHOT")
    if kept:
        shutil.copyfile(shot, kept)
    print(f"screenshot: {shot}")


def test_no_table_overflows_its_column(reported: Reported, tmp_path: Path) -> None:
    """At 1280 pixels every table ends inside its column and, but for the findings' tables (a
    hand's text), needs no scrolling either."""
    fits = table_layout(reported.html, tmp_path)
    assert {fit.table for fit in fits} >= {"findings-by-kind", "by-position", "stats"}
    for fit in fits:
        assert fit.right <= fit.column + 0.5, fit
        assert fit.table == "findings" or not fit.scrolls, fit


def test_page_is_self_contained_and_runs_nothing(reported: Reported, dom: Node) -> None:
    assert dom.find_all("script") == []
    for node in dom.walk():
        for name, value in node.attrs.items():
            assert not name.startswith("on"), (node.tag, name, value)
            if name in ("src", "href", "xlink:href", "action", "poster", "srcset"):
                assert value.startswith(("#", "data:")), (node.tag, name, value)
    policy = [
        node.attrs["content"]
        for node in dom.find_all("meta")
        if node.attrs.get("http-equiv", "").lower() == "content-security-policy"
    ]
    assert policy and "default-src 'none'" in policy[0]
    assert not re.search(r"url\(\s*['\"]?(?!data:|#)", reported.html)
    assert "@import" not in reported.html
    assert len(dom.find_all("svg")) >= 2


def test_hostile_names_are_shown_literally(reported: Reported, dom: Node) -> None:
    text = dom.text()
    for name in HOSTILE_PLAYERS:
        sections = dom.find_all("section", data_player=name)
        assert len(sections) == 1, name
        assert sections[0].find_all("h2")[0].text() == f"{name} (pokerstars)"
        assert any(link.text() == f"{name} (pokerstars)" for link in dom.find_all("a"))
    with duckdb.connect() as connection:
        connection.register("hands", read_table(reported.dataset, "hands"))
        (parsed,) = connection.execute(
            "select count(*) from hands where table_name = ?", [HOSTILE_TABLE]
        ).fetchone()
    assert parsed > 0  # the renamed table went through the parser
    if any(HOSTILE_TABLE == cell.text() for cell in dom.find_all("td")):
        assert "<i>Rigel</i>" not in reported.html
    assert HOSTILE_FILE_PREFIX.strip() in text  # the source file named under a finding's hand
    raw = reported.html
    assert "<script>alert(1)</script>" not in raw
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in raw
    assert "<b>Jerry</b>" not in raw and "<i>Rigel</i>" not in raw
    assert "<img src=x" not in raw


# -- numbers --------------------------------------------------------------------------------------


def _cell_minor(cell: Node) -> int:
    return int(cell.attrs["data-minor"])


def test_overview_numbers(sql: duckdb.DuckDBPyConnection, dom: Node) -> None:
    hands, sites, tables = sql.execute(
        "select count(*), count(distinct site), count(distinct (site, table_name)) from t_hands"
    ).fetchone()
    cards = {
        node.attrs["data-metric"]: node
        for node in dom.find_all("div")
        if "data-metric" in node.attrs
    }
    assert int(cards["hands"].attrs["data-value"]) == hands
    assert int(cards["sites"].attrs["data-value"]) == sites
    assert int(cards["tables"].attrs["data-value"]) == tables
    files, parsed, skipped, rejected = sql.execute(
        "select count(*), sum(hands), sum(skipped), sum(rejected) from t_files"
    ).fetchone()
    manifest = dom.find_all("table", id="manifest")[0].find_all("td")
    assert [int(cell.attrs["data-value"]) for cell in manifest[:4]] == [
        files,
        parsed,
        skipped,
        rejected,
    ]
    stakes_total = sum(
        int(row.find_all("td")[-1].attrs["data-value"])
        for row in dom.find_all("table", id="stakes")[0].find_all("tr")[1:]
    )
    assert stakes_total == hands


def test_audit_numbers(sql: duckdb.DuckDBPyConnection, dom: Node) -> None:
    expected = dict(
        sql.execute("select kind, count(*) from t_discrepancies group by kind").fetchall()
    )
    assert expected, "the generated faults should give findings"
    shown = {}
    for row in dom.find_all("table", id="findings-by-kind")[0].find_all("tr")[1:]:
        cells = row.find_all("td")
        shown[cells[0].text()] = int(cells[-2].attrs["data-value"])
    assert shown == expected
    money_kinds = (
        "payout",
        "missing_winner",
        "unexpected_winner",
        "odd_chip",
        "rake",
        "chip_conservation",
        "bet_size",
        "pot_limit",
        "blinds",
    )
    affected = {
        (kind, currency): int(total)
        for kind, currency, total in sql.execute(
            f"""select kind, currency, sum(abs(expected - recorded))
                from t_discrepancies join t_hands using (site, hand_id)
                where expected is not null and recorded is not null
                  and kind in {money_kinds}
                group by all"""
        ).fetchall()
    }
    shown_affected = {
        (cell.attrs["data-kind"], cell.attrs["data-currency"]): _cell_minor(cell)
        for cell in dom.find_all("td")
        if "data-kind" in cell.attrs
    }
    assert shown_affected == affected
    rows = [
        row
        for table in dom.find_all("table")
        if "findings" in table.classes()
        for row in table.find_all("tr")[1:]
    ]
    assert len(rows) == sum(expected.values())  # fewer than the cap: all shown
    opened = [node for node in dom.find_all("pre") if "key-lines" in node.classes()]
    assert opened and all(node.text().strip() for node in opened)


def _blocks(dom: Node, name: str) -> dict[str, Node]:
    section = dom.find_all("section", data_player=name)[0]
    return {
        node.attrs["data-currency"]: node
        for node in section.find_all("div")
        if "currency-block" in node.classes()
    }


def test_player_numbers(reported: Reported, sql: duckdb.DuckDBPyConnection, dom: Node) -> None:
    for name in HOSTILE_PLAYERS:
        totals = {
            currency: (hands, net, showdown, other)
            for currency, hands, net, showdown, other in sql.execute(
                """select currency, count(*), sum(net), sum(net) filter (where showdown),
                          sum(net) filter (where not showdown)
                   from hand_players where player = ? group by currency""",
                [name],
            ).fetchall()
        }
        blocks = _blocks(dom, name)
        assert set(blocks) == set(totals), name
        for currency, block in blocks.items():
            hands, net, showdown, other = totals[currency]
            figure = next(node for node in block.find_all("figure") if "winnings" in node.classes())
            assert int(figure.attrs["data-hands"]) == hands
            assert int(figure.attrs["data-net-minor"]) == net
            assert int(figure.attrs["data-showdown-minor"]) == (showdown or 0)
            assert int(figure.attrs["data-non-showdown-minor"]) == (other or 0)
            points = int(figure.attrs["data-points"])
            assert points == min(hands, 1999) + 1
            # All-in adjusted: net with each all-in pot's payment replaced by its expectation.
            adjustment = sql.execute(
                """select coalesce(sum(expected_amount - actual_amount), 0), count(distinct hand_id)
                   from t_allin_equity join t_hands using (site, hand_id)
                   where player = ? and currency = ?""",
                [name, currency],
            ).fetchone()
            assert abs(int(figure.attrs["data-adjusted-minor"]) - (net + adjustment[0])) <= 0.5
            allin = next(t for t in block.find_all("table") if "allin" in t.classes())
            assert int(allin.find_all("td")[1].attrs["data-value"]) == adjustment[1]
            for line in ("all", "adjusted", "showdown", "non_showdown"):
                group = figure.find_all("g", id=f"curve-{line}")
                assert len(group) == 1
                path = group[0].find_all("path")[0].attrs["d"]
                assert 2 <= len(re.findall(r"[ML]", path)) <= points

            by_position = {
                (position or "–"): (count, total)
                for position, count, total in sql.execute(
                    """select position, count(*), sum(net) from hand_players
                       where player = ? and currency = ? group by position""",
                    [name, currency],
                ).fetchall()
            }
            table = next(t for t in block.find_all("table") if "by-position" in t.classes())
            shown = {}
            for row in table.find_all("tbody")[0].find_all("tr"):
                cells = row.find_all("td")
                shown[cells[0].text()] = (int(cells[1].attrs["data-value"]), _cell_minor(cells[2]))
            assert shown == by_position

            by_stakes = Counter(
                sql.execute(
                    """select count(*), sum(net) from hand_players where player = ? and currency = ?
                   group by limit_type, stakes_small, stakes_big, is_tournament""",
                    [name, currency],
                ).fetchall()
            )
            table = next(t for t in block.find_all("table") if "by-stakes" in t.classes())
            shown_stakes = Counter(
                (int(row.find_all("td")[1].attrs["data-value"]), _cell_minor(row.find_all("td")[2]))
                for row in table.find_all("tbody")[0].find_all("tr")
            )
            assert shown_stakes == by_stakes

            hilo = {
                outcome: (count, amount)
                for outcome, count, amount in sql.execute(
                    """select outcome, count(*), sum(amount) from hilo
                       where player = ? and currency = ? group by outcome""",
                    [name, currency],
                ).fetchall()
            }
            table = next(t for t in block.find_all("table") if "hilo" in t.classes())
            shown_hilo = {}
            for row in table.find_all("tbody")[0].find_all("tr"):
                cells = row.find_all("td")
                count = int(cells[1].attrs["data-value"])
                if count:
                    shown_hilo[cells[0].attrs["data-outcome"]] = (count, _cell_minor(cells[3]))
            assert shown_hilo == hilo

            stats = next(t for t in block.find_all("table") if "stats" in t.classes())
            values = {
                row.find_all("td")[0].attrs.get("data-stat"): row.find_all("td")[1]
                for row in stats.find_all("tbody")[0].find_all("tr")
            }
            assert int(values["hands"].attrs["data-value"]) == hands


def test_top_players_by_hands(
    reported: Reported, sql: duckdb.DuckDBPyConnection, dom: Node
) -> None:
    top = [
        name
        for name, _ in sql.execute(
            "select player, count(*) as n from hand_players group by player order by n desc, player"
            " limit 6"
        ).fetchall()
    ]
    shown = [
        node.attrs["data-player"] for node in dom.find_all("section") if "data-player" in node.attrs
    ]
    assert shown == top


# -- options, caps, fallbacks ---------------------------------------------------------------------


def test_command_with_players_and_days(
    reported: Reported, sql: duckdb.DuckDBPyConnection, tmp_path: Path
) -> None:
    first, last = sql.execute(
        "select min(started_at)::date, max(started_at)::date from t_hands"
    ).fetchone()
    since = first + (last - first) / 4
    until = last - (last - first) / 4
    out = tmp_path / "chosen.html"
    # A hostile name that played in the window (which players did depends on the archive).
    ((name,),) = sql.execute(
        "select player from t_seats join t_hands using (site, hand_id)"
        " where started_at::date between ? and ? and list_contains(?, player)"
        " group by player order by count(*) desc, player limit 1",
        [since, until, list(HOSTILE_PLAYERS)],
    ).fetchall()
    result = CliRunner().invoke(
        app,
        [
            "report",
            str(reported.dataset),
            "--out",
            str(out),
            "--player",
            name,
            "--player",
            "nobody-here",
            "--since",
            since.isoformat(),
            "--until",
            until.isoformat(),
        ],
    )
    assert result.exit_code == 0, result.output
    assert f"report: {out}" in result.stdout
    page = parse_dom(out.read_text(encoding="utf-8"))
    (hands,) = sql.execute(
        "select count(*) from t_hands where started_at::date between ? and ?", [since, until]
    ).fetchone()
    card = [node for node in page.find_all("div") if node.attrs.get("data-metric") == "hands"]
    assert int(card[0].attrs["data-value"]) == hands
    assert [
        node.attrs["data-player"]
        for node in page.find_all("section")
        if "data-player" in node.attrs
    ] == [name]
    assert "nobody-here" in page.find_all("p", id="missing-players")[0].text()

    bad = CliRunner().invoke(app, ["report", str(reported.dataset), "--since", "2011-02-30"])
    assert bad.exit_code == 2
    assert "not a date" in bad.stderr


def test_findings_are_capped_with_a_note(reported: Reported, tmp_path: Path) -> None:
    from pipeline.report import write_report

    out = tmp_path / "capped.html"
    write_report(reported.dataset, out, top=1, max_findings=5)
    page = parse_dom(out.read_text(encoding="utf-8"))
    rows = [
        row
        for table in page.find_all("table")
        if "findings" in table.classes()
        for row in table.find_all("tbody")[0].find_all("tr")
    ]
    assert len(rows) == 5
    assert "Showing 5 of" in page.find_all("p", id="findings-capped")[0].text()


def test_winnings_curve_is_sampled() -> None:
    from pipeline.report import _curve, curve_indices

    rows = pl.DataFrame(
        {"net": list(range(-5000, 5000)) * 3, "showdown": [True, False, False] * 10_000}
    )
    curve = _curve(rows, 2000)
    assert len(curve.x) <= 2000 and curve.x[0] == 0 and curve.x[-1] == 30_000
    assert curve.final["all"] == int(rows["net"].sum())
    assert curve.y["all"][-1] == curve.final["all"]
    assert curve.final["showdown"] + curve.final["non_showdown"] == curve.final["all"]
    assert curve_indices(10, 2000).tolist() == list(range(10))


def test_hand_text_falls_back_to_the_tables(reported: Reported, tmp_path: Path) -> None:
    from pipeline.report import build_report

    hidden = reported.archive.with_name("moved-away")
    reported.archive.rename(hidden)
    try:
        data = build_report(reported.dataset, top=1)
    finally:
        hidden.rename(reported.archive)
    assert data.audit is not None and data.audit["texts"]
    for text in data.audit["texts"].values():
        assert text.origin.startswith("rebuilt from the tables")
        assert any(line.startswith("*** SUMMARY ***") for line in text.lines)


def test_run_ends_with_the_report(reported: Reported, tmp_path: Path) -> None:
    out = tmp_path / "run"
    result = CliRunner().invoke(
        app,
        [
            "run",
            str(reported.archive),
            "--out",
            str(out),
            "--workers",
            "1",
            "--rake-schedule",
            "generated",
        ],
    )
    assert result.exit_code == 0, result.output
    assert result.stdout.rstrip().splitlines()[-1] == f"report: {out / 'report.html'}"
    assert (out / "report.html").stat().st_size > 10_000


def test_statistics_over_the_players_hands_equal_the_whole_dataset(reported: Reported) -> None:
    """The report reads the facts only where the chosen players' accounts are: the numbers
    `hilo stats` gives each account over the whole dataset."""
    from pipeline.report import Player, _player_stats
    from pipeline.stats import compute_stats, open_database, pruned_database

    accounts = [f"pokerstars:{name}" for name in HOSTILE_PLAYERS]
    players = [
        Player(name, ("pokerstars",), (account,))
        for name, account in zip(HOSTILE_PLAYERS, accounts, strict=True)
    ]
    facts = pruned_database(reported.dataset, accounts)
    try:
        per_player, note = _player_stats(facts, reported.dataset, players, None, None)
    finally:
        facts.close()
    assert note is None and per_player is not None
    connection = open_database(reported.dataset, persistent=False)
    try:
        whole = compute_stats(reported.dataset, players=accounts, connection=connection)
    finally:
        connection.close()
    order = ["player", "currency"]
    narrowed = pl.concat(
        [
            rows.with_columns(player=pl.lit(player.name))
            for player, rows in zip(players, per_player, strict=True)
        ]
    ).sort(order)
    whole = whole.sort(order)
    assert narrowed.columns == whole.columns and narrowed.height == whole.height
    for column in narrowed.columns:
        if narrowed[column].dtype.is_float():  # sums in another order: the last bits differ
            left, right = narrowed[column].to_list(), whole[column].to_list()
            assert [x is None for x in left] == [y is None for y in right], column
            pairs = [(x, y) for x, y in zip(left, right, strict=True) if x is not None]
            assert [x for x, _ in pairs] == pytest.approx([y for _, y in pairs], rel=1e-9)
        else:
            assert narrowed[column].equals(whole[column], null_equal=True), column


def test_hand_text_from_zip_members_and_gzip_files(reported: Reported, tmp_path: Path) -> None:
    import gzip
    import zipfile

    from pipeline.audit import run_audit
    from pipeline.ingest import ingest
    from pipeline.report import build_report

    files = sorted(reported.archive.glob("*.txt"))
    inputs = tmp_path / "inputs"
    inputs.mkdir()
    with zipfile.ZipFile(inputs / "hands.zip", "w", zipfile.ZIP_DEFLATED) as archive:
        for path in files[: len(files) // 2]:
            archive.write(path, path.name)
    for path in files[len(files) // 2 :]:
        (inputs / f"{path.name}.gz").write_bytes(gzip.compress(path.read_bytes()))
    dataset = tmp_path / "dataset"
    ingest([inputs], dataset, workers=1)
    run_audit(dataset, "generated")
    data = build_report(dataset, top=1)
    assert data.audit is not None and data.audit["texts"]
    origins = [text.origin for text in data.audit["texts"].values()]
    assert all(origin.startswith("source: ") for origin in origins), origins
    assert any(".zip!" in origin for origin in origins)
    assert any(".txt.gz," in origin for origin in origins)


# -- players: one per account, as hilo stats counts them ------------------------------------------


@pytest.fixture(scope="module")
def two_sites(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """PokerStars and Full Tilt archives generated with the same seed: the same screen names
    play on both sites."""
    from pipeline.generate import generate
    from pipeline.ingest import ingest

    root = tmp_path_factory.mktemp("two-sites")
    generate(150, 5, root / "generated", workers=1)
    generate(150, 5, root / "generated", site="fulltilt", workers=1)
    dataset = root / "dataset"
    summary = ingest(
        [root / "generated" / "pokerstars", root / "generated" / "fulltilt"], dataset, workers=1
    )
    assert not summary.errors
    return dataset


def _player_sections(page: Node) -> list[tuple[str, str, int]]:
    """(name, sites, hands) of each player section, in the page's order."""
    found = []
    for section in page.find_all("section"):
        if "data-player" in section.attrs:
            hands = sum(
                int(figure.attrs["data-hands"])
                for figure in section.find_all("figure")
                if "winnings" in figure.classes()
            )
            found.append((section.attrs["data-player"], section.attrs["data-sites"], hands))
    return found


def test_a_name_on_two_sites_is_two_players(two_sites: Path, tmp_path: Path) -> None:
    from pipeline.stats import compute_stats

    seats = pl.from_arrow(read_table(two_sites, "seats"))
    assert isinstance(seats, pl.DataFrame)
    per_site = seats.group_by("player", "site").len()
    shared = per_site.group_by("player").agg(sites=pl.len(), hands=pl.col("len").sum())
    name = shared.filter(pl.col("sites") == 2).sort("hands", "player", descending=[True, False])[
        "player"
    ][0]
    hands = dict(per_site.filter(pl.col("player") == name).select("site", "len").iter_rows())

    out = tmp_path / "two.html"
    result = CliRunner().invoke(
        app, ["report", str(two_sites), "--out", str(out), "--player", name]
    )
    assert result.exit_code == 0, result.output
    page = parse_dom(out.read_text(encoding="utf-8"))
    sections = _player_sections(page)
    assert sorted(sections) == sorted((name, site, count) for site, count in hands.items())
    assert {link.text() for link in page.find_all("a")} >= {
        f"{name} (fulltilt)",
        f"{name} (pokerstars)",
    }
    # Each section's statistics are hilo stats' row of that account.
    for section in page.find_all("section"):
        if section.attrs.get("data-player") != name:
            continue
        site = section.attrs["data-sites"]
        expected = compute_stats(two_sites, players=[f"{site}:{name}"])
        for table in section.find_all("table"):
            if "stats" in table.classes():
                currency = table.attrs["data-currency"]
                row = expected.filter(pl.col("currency") == currency).row(0, named=True)
                cells = {
                    tr.find_all("td")[0].attrs["data-stat"]: tr.find_all("td")[1]
                    for tr in table.find_all("tbody")[0].find_all("tr")
                }
                assert int(cells["hands"].attrs["data-value"]) == row["hands"]
                assert cells["vpip"].attrs.get("data-value") == (
                    None if row["vpip"] is None else str(row["vpip"])
                )

    # The person of an aliases file is one player over both accounts.
    aliases = tmp_path / "aliases.toml"
    aliases.write_text(f'"me" = ["pokerstars:{name}", "fulltilt:{name}"]\n', encoding="utf-8")
    merged = tmp_path / "merged.html"
    result = CliRunner().invoke(
        app,
        [
            "report",
            str(two_sites),
            "--out",
            str(merged),
            "--player",
            "me",
            "--aliases",
            str(aliases),
        ],
    )
    assert result.exit_code == 0, result.output
    page = parse_dom(merged.read_text(encoding="utf-8"))
    assert _player_sections(page) == [("me", "fulltilt, pokerstars", sum(hands.values()))]


def test_top_players_are_the_accounts_hilo_stats_lists_first(
    two_sites: Path, tmp_path: Path
) -> None:
    from pipeline.report import write_report
    from pipeline.stats import compute_stats

    out = tmp_path / "top.html"
    write_report(two_sites, out, top=6)
    shown = _player_sections(parse_dom(out.read_text(encoding="utf-8")))
    totals = (
        compute_stats(two_sites)
        .group_by("player", "site")
        .agg(pl.col("hands").sum())
        .sort(["hands", "player", "site"], descending=[True, False, False])
        .head(6)
    )
    assert shown == list(totals.select("player", "site", "hands").iter_rows())
