"""``hilo report``: one self-contained HTML page over a dataset and its audit.

The page holds an overview (hands, sites, stakes, dates, what the ``files`` manifest counted), the
audit's findings (by kind and site, money affected, a capped table whose rows open on the hand's
key lines, read back from the source file or rebuilt from the tables), and for the top players
by hands (or those asked for) a cumulative winnings graph with showdown and non-showdown lines,
the statistics of `pipeline.stats.compute_stats`, results by position and by stakes, and the
hi/lo breakdown of the pots the audit paid them.

Layout: `build_report` gathers the numbers (`ReportData`); `render_report` turns them into rows
of formatted text (`Table`, `Cell`, ...) that the Jinja2 templates in
``pipeline/report_assets/*.html.j2`` lay out, with the style sheet ``report.css`` inlined.

Safety: the templates escape every value they insert (autoescape), so player, table and file
names, hand text and finding details are shown as text. The only markup inserted as it is: the
style sheet and the SVG charts of `pipeline.report_charts`, which escape their own texts and
attributes and carry only hilo's labels and numbers. The page has no script at all, and a
Content-Security-Policy that forbids scripts and every network fetch, so nothing from the data
can run or call out even if a future edit forgot to escape.

Size: a winnings curve keeps at most ``max_points`` points per player and currency, the findings
table at most ``max_findings`` rows (a fair share per kind, with a note), so a report over
millions of hands stays around a megabyte or two.

Money is exact: amounts are int64 minor units, shown through `decimal.Decimal` with the currency
named ("1,234.50 USD", "12,000 chips"); only chart coordinates are floats.
"""

from __future__ import annotations

import datetime as dt
import gzip
import math
import os
import re
import time
import zipfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from decimal import Decimal
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, cast

import numpy as np
import polars as pl
from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup

from pipeline.fairness import FairnessReport
from pipeline.fairness.luck import MINIMUM_SPOTS
from pipeline.identity import Aliases, alias_lists, load_aliases
from pipeline.statistics import LABELS, MONEY, PLAIN_NUMBERS

if TYPE_CHECKING:
    import duckdb

    from pipeline.facts import RefreshSummary

__all__ = [
    "DEFAULT_TOP",
    "MAX_CURVE_POINTS",
    "MAX_FINDINGS",
    "REPORT_NAME",
    "ReportData",
    "ReportSummary",
    "build_report",
    "curve_indices",
    "format_money",
    "render_report",
    "write_report",
]

REPORT_NAME = "report.html"
DEFAULT_TOP = 5
MAX_FINDINGS = 250
MAX_CURVE_POINTS = 2000
MAX_HAND_BYTES = 64 << 10
MAX_LISTED_FILES = 50
# Notes read to count their shapes: enough for the frequent ones, bounded on a huge archive.
MAX_SHAPED_NOTES = 200_000
MONEY_IN = ("post_sb", "post_bb", "post_dead", "ante", "call", "bet", "raise")
# Finding kinds whose expected/recorded are amounts of money (the others hold seats, bet
# numbers or nothing): docs/audit.md.
MONEY_KINDS = (
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
POSITION_ORDER = ("SB", "BB", "UTG", "UTG+1", "UTG+2", "UTG+3", "LJ", "HJ", "CO", "BTN")
HILO_OUTCOMES = (
    ("scooped", "Scooped (whole pot alone)"),
    ("high_only", "High only (high half alone)"),
    ("low_only", "Low only (low half alone)"),
    ("quartered", "Quartered (one half, shared by two)"),
    ("split_half", "One half, shared by three or more"),
    ("three_quartered", "Three-quartered (both halves, not alone)"),
    ("chopped", "Chopped (no low, whole pot shared)"),
)
CURVE_COLOURS = {
    "all": "#2e7d32",
    "adjusted": "#e08a00",
    "showdown": "#1f5fbf",
    "non_showdown": "#c62828",
}
CURVE_LABELS = {
    "all": "all hands",
    "adjusted": "all-in adjusted",
    "showdown": "showdown",
    "non_showdown": "non-showdown",
}
# Drawing order; the all-in adjusted line exists only when the dataset was audited.
CURVE_ORDER = ("all", "adjusted", "showdown", "non_showdown")
HAND_KEY = ["site", "hand_id"]
_CURRENCY_CODE = re.compile(r"^[A-Z]{3,6}$")
_RANKS = "23456789TJQKA"
_SUITS = "cdhs"


# -- formatting -----------------------------------------------------------------------------------


def currency_name(currency: str | None) -> str:
    """How a currency is named after an amount: the ISO code, or chips for tournaments.

    >>> currency_name("USD"), currency_name("CHIPS"), currency_name("PLAY")
    ('USD', 'chips', 'play chips')
    """
    if currency in (None, "", "CHIPS"):
        return "chips"
    if currency == "PLAY":
        return "play chips"
    return str(currency)


def _decimals(scale: int) -> int:
    return max(0, round(math.log10(scale))) if scale and scale > 0 else 0


def format_amount(minor: int | None, scale: int) -> str:
    """An amount in minor units as currency units with thousands separators (exact).

    >>> format_amount(-123456, 100), format_amount(12000, 1), format_amount(None, 100)
    ('-1,234.56', '12,000', '–')
    """
    if minor is None:
        return "–"
    scale = scale or 1
    value = Decimal(int(minor)) / Decimal(scale)
    return f"{value:,.{_decimals(scale)}f}"


def format_money(minor: int | None, currency: str | None, scale: int) -> str:
    """An amount in minor units with the currency named.

    >>> format_money(250, "USD", 100), format_money(-3000, "CHIPS", 1)
    ('2.50 USD', '-3,000 chips')
    """
    if minor is None:
        return "–"
    return f"{format_amount(minor, scale)} {currency_name(currency)}"


def _decimal_money(value: Decimal | float | None, currency: str | None, scale: int) -> str:
    if value is None:
        return "–"
    number = Decimal(str(value))
    return f"{number:,.{_decimals(scale or 1)}f} {currency_name(currency)}"


def _count(value: int | None) -> str:
    return "–" if value is None else f"{int(value):,}"


def _percent(numerator: float | None, denominator: float | None = 1.0) -> str:
    if numerator is None or not denominator:
        return "–"
    return f"{100.0 * numerator / denominator:.1f}%"


def _number(value: float | None, digits: int = 2) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return f"{value:,.{digits}f}"


def _card(code: int | None) -> str:
    if code is None:
        return "??"
    return _RANKS[code // 4] + _SUITS[code % 4]


def _cards(codes: Sequence[int | None] | None) -> str:
    return " ".join(_card(code) for code in codes) if codes else ""


def _sign_class(value: float | Decimal | None) -> str | None:
    if value is None:
        return "num"
    return "num neg" if value < 0 else ("num pos" if value > 0 else "num")


# -- reading the dataset --------------------------------------------------------------------------


def _part_paths(root: Path, table: str) -> list[str]:
    from pipeline.dataset import read_manifest

    manifest = read_manifest(root)
    found: set[str] = set()
    for parts in manifest.column("parts").to_pylist():
        for part in parts or ():
            if part.startswith(f"{table}/") and (root / part).is_file():
                found.add(str(root / part))
    return sorted(found)


def _scan(root: Path, table: str, columns: Sequence[str]) -> pl.LazyFrame:
    """The committed rows of ``table`` (only the parts the manifest names), some columns."""
    from pipeline.schema import TABLES

    paths = _part_paths(root, table)
    if not paths:
        empty = pl.from_arrow(TABLES[table].empty_table())
        assert isinstance(empty, pl.DataFrame)
        return empty.lazy().select(columns)
    return pl.scan_parquet(paths, hive_partitioning=False).select(columns)


def _audit_table(root: Path, name: str, schema: dict[str, Any]) -> pl.DataFrame | None:
    """An audit output (``DATASET/audit/<name>``), or None when the dataset was not audited."""
    scan = _audit_scan(root, name, schema)
    return None if scan is None else scan.collect()


def _audit_scan(root: Path, name: str, schema: dict[str, Any]) -> pl.LazyFrame | None:
    """`_audit_table`, not read yet (filters given later are applied while reading)."""
    paths = sorted(str(path) for path in (root / "audit" / name).glob("site=*/part-*.parquet"))
    if not (root / "audit" / name).is_dir():
        return None
    if not paths:
        return pl.DataFrame(schema=schema).lazy()
    frame = pl.scan_parquet(paths, hive_partitioning=True)
    return frame.select([pl.col(column).cast(kind) for column, kind in schema.items()])


def _as_date(value: str | dt.date | None, name: str) -> dt.date | None:
    if value is None or isinstance(value, dt.date):
        return value
    try:
        return dt.date.fromisoformat(value)
    except ValueError as error:
        raise ValueError(f"{name} {value!r} is not a date (YYYY-MM-DD)") from error


# -- the gathered data ----------------------------------------------------------------------------


@dataclass(frozen=True)
class HandText:
    """A hand's lines and where they come from."""

    lines: list[str]
    origin: str


@dataclass
class Curve:
    """A player's cumulative winnings in one currency, sampled."""

    hands: int
    # all / showdown / non_showdown (and adjusted: an expectation, rounded), minor units
    final: dict[str, int]
    x: np.ndarray
    y: dict[str, np.ndarray]  # minor units at each kept hand


@dataclass
class CurrencyBlock:
    """One player's results in one currency."""

    currency: str
    scale: int
    hands: int
    curve: Curve
    stats: dict[str, Any] | None
    by_position: pl.DataFrame
    by_stakes: pl.DataFrame
    hilo: pl.DataFrame | None  # outcome, pots, amount (None: no audit)
    allin: dict[str, Any] | None = None  # all-in luck summary (None: no audit)


@dataclass(frozen=True)
class Player:
    """A player as `hilo stats` counts one: an account (a screen name on one site) or, with
    aliases, a person (the accounts the aliases give that person)."""

    name: str  # the screen name, or the person
    sites: tuple[str, ...]
    accounts: tuple[str, ...]  # "site:name", as the aliases and --player write an account

    @property
    def label(self) -> str:
        """The name and where it played: ``Hero (pokerstars)``, ``me (fulltilt, pokerstars)``."""
        return f"{self.name} ({', '.join(self.sites)})"


@dataclass
class PlayerSection:
    player: Player
    hands: int
    blocks: list[CurrencyBlock]


@dataclass
class ReportData:
    """Everything the page shows, computed from the dataset (see `build_report`)."""

    dataset: str
    generated_at: dt.datetime
    since: dt.date | None
    until: dt.date | None
    requested_players: list[str]
    overview: dict[str, Any]
    sites: pl.DataFrame
    stakes: pl.DataFrame
    files: pl.DataFrame
    rejects: pl.DataFrame
    note_shapes: pl.DataFrame  # shape, lines, example: the most frequent lines kept in notes
    audit: dict[str, Any] | None
    players: list[PlayerSection]
    missing_players: list[str]
    stats_note: str | None
    notes: list[str] = field(default_factory=list)
    fairness: FairnessReport | None = None  # the deal tests and all-in luck (docs/fairness.md)


@dataclass(frozen=True)
class ReportSummary:
    """What `write_report` wrote."""

    path: Path
    size: int
    hands: int
    players: int
    findings: int
    seconds: float


def build_report(
    dataset: str | os.PathLike[str],
    players: Sequence[str] | None = None,
    since: str | dt.date | None = None,
    until: str | dt.date | None = None,
    *,
    top: int = DEFAULT_TOP,
    max_findings: int = MAX_FINDINGS,
    max_points: int = MAX_CURVE_POINTS,
    facts: RefreshSummary | None = None,
    aliases: Aliases | str | os.PathLike[str] | None = None,
) -> ReportData:
    """Gather the report's numbers from the dataset at ``dataset``.

    Parameters
    ----------
    dataset:
        The dataset folder (with ``audit/`` when ``hilo audit`` ran).
    players:
        Players to report on, as `pipeline.stats.compute_stats` reads them: a screen name (its
        account on every site it played on), ``site:name`` (one account) or a person of
        ``aliases``; default: the ``top`` players by hands.
    since, until:
        First and last day (UTC, both included) of the hands reported on.
    top:
        How many players when ``players`` is not given.
    max_findings:
        Rows of the findings table (the counts and sums cover every finding).
    max_points:
        Points per winnings curve (the totals cover every hand).
    facts:
        The stored facts' refresh, when the caller did it (default: done here).
    aliases:
        Accounts to merge into persons, as `pipeline.stats.compute_stats` takes them (a mapping
        ``{"site:name": person}`` or the path of an aliases TOML file). Without, a player is one
        (site, screen name) pair, as in ``hilo stats``.
    """
    root = Path(dataset)
    if not (root / "files").is_dir():
        raise FileNotFoundError(f"not a hilo dataset (no files manifest): {root}")
    if max_points < 3:
        raise ValueError("max_points must be >= 3")
    first, last = _as_date(since, "since"), _as_date(until, "until")
    if isinstance(aliases, (str, os.PathLike)):
        aliases = load_aliases(aliases)

    from pipeline.stats import pruned_database, refresh_stored_facts

    if facts is None:
        facts = refresh_stored_facts(root)
    # Every count comes from the stored facts, read only where the dates (and the players'
    # accounts) are (`pipeline.stats`).
    requested = list(dict.fromkeys(str(name) for name in players)) if players else []
    database = pruned_database(
        root, requested or None, aliases, since=first, until=last, facts=facts, refresh=False
    )
    try:
        summary = _hand_summary(database, first, last)
        chosen = _choose_players(database, requested, aliases, max(0, top), first, last)
        missing = [name for name in requested if not any(_means(name, p) for p in chosen)]
        accounts = [account for player in chosen for account in player.accounts]
        if accounts and not requested:  # read again, only where the chosen accounts are
            database.close()
            database = pruned_database(
                root, accounts, since=first, until=last, facts=facts, refresh=False
            )
        frame = _with_player_index(hand_results(database, accounts, first, last), chosen)
        stats, stats_note = _player_stats(database, root, chosen, first, last)
    finally:
        database.close()
    hands = _selected_hands(root, first, last)
    manifest = _manifest_frame(root)
    overview = _overview(summary, manifest, first, last)
    sites = (
        summary.group_by("site")
        .agg(
            hands=pl.col("hands").sum(),
            first=pl.col("first_started_at").min(),
            last=pl.col("last_started_at").max(),
        )
        .sort("hands", "site", descending=[True, False])
    )
    stakes = (
        summary.group_by(
            "limit_type", "currency", "money_scale", "stakes_small", "stakes_big", "is_tournament"
        )
        .agg(hands=pl.col("hands").sum())
        .sort(["currency", "limit_type", "stakes_big", "stakes_small"], nulls_last=True)
    )
    rejects = (
        _scan(root, "rejects", ["reason"])
        .collect()
        .with_columns(pl.col("reason").fill_null("(no reason)"))
        .group_by("reason")
        .len()
        .sort("len", "reason", descending=[True, False])
        .head(15)
    )
    note_shapes = _note_shapes(root, hands)
    files = (
        manifest.filter((pl.col("rejected") > 0) | pl.col("error").is_not_null())
        .sort("path")
        .head(MAX_LISTED_FILES)
    )

    audit = _audit_section(root, hands, max_findings)
    sections = _player_sections(root, frame, chosen, audit is not None, stats, max_points)
    from pipeline.fairness import fairness_report

    fairness = fairness_report(root, since=first, until=last)
    return ReportData(
        dataset=str(root),
        generated_at=dt.datetime.now(dt.UTC).replace(microsecond=0),
        since=first,
        until=last,
        requested_players=requested,
        overview=overview,
        sites=sites,
        stakes=stakes,
        files=files,
        rejects=rejects,
        note_shapes=note_shapes,
        audit=audit,
        players=sections,
        missing_players=missing,
        stats_note=stats_note,
        fairness=fairness,
    )


def _note_shapes(root: Path, hands: pl.LazyFrame, limit: int = 10) -> pl.DataFrame:
    """The most frequent shapes of the selected hands' notes (digits and player names blanked),
    with the number of lines and one example each."""
    stored = _scan(root, "notes", ["site", "hand_id", "text"])
    empty = pl.DataFrame(schema={"shape": pl.String, "lines": pl.Int64, "example": pl.String})
    if stored.head(1).collect().height == 0:
        return empty
    notes = (
        stored.join(_keys_in(hands, stored.select(HAND_KEY)), on=HAND_KEY, how="semi")
        .head(MAX_SHAPED_NOTES)
        .collect()
    )
    if notes.height == 0:
        return empty
    from parsers.notes import line_shape  # the parsers' import is worth it only for notes

    players = (
        _scan(root, "seats", ["site", "hand_id", "player"])
        .join(notes.lazy().select(HAND_KEY).unique(), on=HAND_KEY, how="semi")
        .group_by(HAND_KEY)
        .agg("player")
        .collect()
    )
    named = notes.join(players, on=HAND_KEY, how="left")
    shapes = [
        line_shape(text[:200], tuple(names or ()))
        for text, names in zip(named["text"].to_list(), named["player"].to_list(), strict=True)
    ]
    return (
        named.with_columns(shape=pl.Series(shapes, dtype=pl.String))
        .group_by("shape")
        .agg(lines=pl.len().cast(pl.Int64), example=pl.col("text").min())
        .sort("lines", "shape", descending=[True, False])
        .head(limit)
    )


def _hand_summary(
    database: duckdb.DuckDBPyConnection, first: dt.date | None, last: dt.date | None
) -> pl.DataFrame:
    """The selected days' rows of ``fct_hand_summary``, with the stakes the report shows (a
    fixed-limit game's bets, other games' blinds) and the tournament flag."""
    query = """
        select * from fct_hand_summary
        where ($since is null or started_on >= cast($since as date))
            and ($until is null or started_on <= cast($until as date))
    """
    table = database.sql(query, params={"since": first, "until": last}).to_arrow_table()
    frame = pl.from_arrow(table)
    assert isinstance(frame, pl.DataFrame)
    fixed = (pl.col("limit_type") == "FL") & pl.col("small_bet").is_not_null()
    return frame.with_columns(
        pl.col("money_scale").fill_null(1),
        stakes_small=pl.when(fixed).then("small_bet").otherwise("small_blind"),
        stakes_big=pl.when(fixed).then(pl.col("big_bet")).otherwise(pl.col("big_blind")),
        is_tournament=pl.col("tournament_id").is_not_null(),
    )


def _selected_hands(root: Path, first: dt.date | None, last: dt.date | None) -> pl.LazyFrame:
    """The hands of the selected days, not read yet: the report reads only those its findings
    and notes name (`_keys_in`), never the whole table."""
    columns = ["site", "hand_id", "currency", "money_scale", "table_name", "started_at"]
    frame = _scan(root, "hands", columns)
    day = pl.col("started_at").dt.date()
    if first is not None:
        frame = frame.filter(day >= first)
    if last is not None:
        frame = frame.filter(day <= last)
    return frame.with_columns(pl.col("money_scale").fill_null(1))


def _keys_in(hands: pl.LazyFrame, keys: pl.LazyFrame) -> pl.LazyFrame:
    """The rows of ``hands`` whose key is in ``keys`` (a few): read by hand id first, so that
    the scan keeps only those rows."""
    wanted = keys.select(HAND_KEY).unique().collect()
    return hands.filter(pl.col("hand_id").is_in(wanted["hand_id"].implode())).join(
        wanted.lazy(), on=HAND_KEY, how="semi"
    )


def _manifest_frame(root: Path) -> pl.DataFrame:
    from pipeline.dataset import read_manifest

    frame = pl.from_arrow(read_manifest(root).drop_columns(["parts"]))
    assert isinstance(frame, pl.DataFrame)
    return frame


def _overview(
    summary: pl.DataFrame, manifest: pl.DataFrame, first: dt.date | None, last: dt.date | None
) -> dict[str, Any]:
    """The overview's numbers from the selected rows of ``fct_hand_summary``."""
    started = summary["first_started_at"].drop_nulls()
    ended = summary["last_started_at"].drop_nulls()
    return {
        "hands": int(summary["hands"].sum()),
        "sites": summary["site"].n_unique(),
        "tables": summary.select("site", "table_name").n_unique(),
        "tournaments": summary["tournament_id"].drop_nulls().n_unique(),
        "first": started.min() if len(started) else None,
        "last": ended.max() if len(ended) else None,
        "files": manifest.height,
        "parsed": int(manifest["hands"].sum() or 0),
        "skipped": int(manifest["skipped"].sum() or 0),
        "rejected": int(manifest["rejected"].sum() or 0),
        "file_errors": int(manifest["error"].is_not_null().sum()),
        "filtered": first is not None or last is not None,
    }


# -- audit ----------------------------------------------------------------------------------------


def _audit_section(root: Path, hands: pl.LazyFrame, max_findings: int) -> dict[str, Any] | None:
    from pipeline.audit_outputs import DISCREPANCY_SCHEMA, FINDING_KINDS

    found = _audit_table(root, "discrepancies", DISCREPANCY_SCHEMA)
    if found is None:
        return None
    order = {kind: index for index, kind in enumerate(FINDING_KINDS)}
    findings = found.join(
        _keys_in(hands, found.lazy()).collect(), on=HAND_KEY, how="inner"
    ).with_columns(
        difference=pl.when(pl.col("kind").is_in(MONEY_KINDS)).then(
            (pl.col("expected") - pl.col("recorded")).abs()
        ),
        kind_order=pl.col("kind").replace_strict(order, default=len(order), return_dtype=pl.Int32),
    )
    by_kind_site = findings.group_by("kind", "kind_order", "site").len().sort("kind_order", "site")
    by_kind = (
        findings.group_by("kind", "kind_order")
        .agg(findings=pl.len(), hands=pl.struct(HAND_KEY).n_unique())
        .sort("kind_order")
    )
    money = (
        findings.filter(pl.col("difference").is_not_null())
        .group_by("kind", "kind_order", "currency", "money_scale")
        .agg(affected=pl.col("difference").sum(), findings=pl.len())
        .sort("kind_order", "currency")
    )
    shown = _shown_findings(findings, max_findings)
    texts = _hand_texts(root, shown.select(HAND_KEY).unique())
    return {
        "total": findings.height,
        "hands": findings.select(HAND_KEY).n_unique(),
        "by_kind_site": by_kind_site,
        "by_kind": by_kind,
        "money": money,
        "shown": shown,
        "texts": texts,
        "sites": sorted(findings["site"].unique().to_list()),
    }


def _shown_findings(findings: pl.DataFrame, limit: int) -> pl.DataFrame:
    """At most ``limit`` findings, a fair share per kind: the largest differences first."""
    ranked = findings.sort(
        ["kind_order", "difference", "site", "hand_id"],
        descending=[False, True, False, False],
        nulls_last=True,
    ).with_columns(rank=pl.int_range(pl.len()).over("kind"))
    return ranked.sort("rank", "kind_order").head(max(0, limit)).sort(["kind_order", "rank"])


def _hand_texts(root: Path, keys: pl.DataFrame) -> dict[tuple[str, str], HandText]:
    """The text of each hand in ``keys``: from its source file if readable, else the tables."""
    if keys.is_empty():
        return {}
    located = (
        _scan(root, "hands", [*HAND_KEY, "source_file", "source_offset"])
        .join(keys.lazy(), on=HAND_KEY, how="semi")
        .collect()
    )
    files = located["source_file"].drop_nulls().unique().to_list()
    offsets = (
        pl.concat(
            [
                _scan(root, "hands", ["source_file", "source_offset"])
                .filter(pl.col("source_file").is_in(files))
                .collect(),
                _scan(root, "rejects", ["source_file", "source_offset"])
                .filter(pl.col("source_file").is_in(files))
                .collect(),
            ]
        )
        .unique()
        .sort("source_file", "source_offset")
    )
    ends = offsets.with_columns(end_offset=pl.col("source_offset").shift(-1).over("source_file"))
    located = located.join(ends, on=["source_file", "source_offset"], how="left")
    sizes = dict(_manifest_frame(root).select("path", "size").iter_rows())
    texts: dict[tuple[str, str], HandText] = {}
    for (source,), group in (
        located.filter(pl.col("source_file").is_not_null())
        .partition_by("source_file", as_dict=True, maintain_order=True)
        .items()
    ):
        texts.update(_read_source(str(source), group, sizes.get(source)))
    missing = keys.join(
        pl.DataFrame(
            {"site": [key[0] for key in texts], "hand_id": [key[1] for key in texts]},
            schema={"site": pl.String, "hand_id": pl.String},
        ),
        on=HAND_KEY,
        how="anti",
    )
    texts.update(_hands_from_tables(root, missing))
    return texts


@contextmanager
def _open_source(source: str) -> Iterator[IO[bytes]]:
    """A binary stream of the text of ``source``: a file, a gzip file or ``archive.zip!member``."""
    path = Path(source)
    if not path.is_file() and "!" in source:
        archive, member = source.rsplit("!", 1)
        if Path(archive).is_file() and zipfile.is_zipfile(archive):
            with zipfile.ZipFile(archive) as zipped:
                try:
                    stream = zipped.open(member)
                except KeyError:
                    raise FileNotFoundError(source) from None
                with stream:
                    yield stream
            return
    with open(path, "rb") as raw:
        magic = raw.read(2)
        raw.seek(0)
        if magic == b"\x1f\x8b":
            with gzip.GzipFile(fileobj=raw, mode="rb") as unzipped:
                yield cast(IO[bytes], unzipped)
        else:
            yield raw


def _read_source(
    source: str, group: pl.DataFrame, expected_size: int | None
) -> dict[tuple[str, str], HandText]:
    """Hands of one source file, each cut at the next hand's offset; checked by hand id."""
    from parsers.text import decode_lines, detect_encoding

    texts: dict[tuple[str, str], HandText] = {}
    try:
        path = Path(source)
        changed = (
            path.is_file()
            and expected_size is not None
            and path.stat().st_size != expected_size
            and not source.endswith(".gz")  # the manifest holds the text's size, not the file's
        )
        if changed:
            return texts  # the file changed since it was ingested
        with _open_source(source) as stream:
            head = stream.read(4096)
            codec, _ = detect_encoding(head)
            for site, hand_id, offset, end in (
                group.select("site", "hand_id", "source_offset", "end_offset")
                .sort("source_offset")
                .iter_rows()
            ):
                if offset is None:
                    continue
                length = MAX_HAND_BYTES if end is None else min(end - offset, MAX_HAND_BYTES)
                stream.seek(offset)
                chunk = stream.read(max(0, length))
                encoding = codec
                if codec == "utf-8":
                    try:
                        chunk.decode("utf-8")
                    except UnicodeDecodeError:
                        encoding = "cp1252"
                try:
                    lines = decode_lines(chunk, offset, encoding).lines.to_list()
                except ValueError:
                    continue
                while lines and not lines[-1].strip():
                    lines.pop()
                if end is None:  # the file's last hand: stop at the first blank gap
                    for index in range(1, len(lines) - 1):
                        if not lines[index].strip() and not lines[index + 1].strip():
                            lines = lines[:index]
                            break
                if lines and str(hand_id) in lines[0]:
                    texts[(str(site), str(hand_id))] = HandText(
                        lines, f"source: {source}, byte {offset:,}"
                    )
    except (OSError, ValueError, zipfile.BadZipFile, EOFError):
        return texts
    return texts


def _hands_from_tables(root: Path, keys: pl.DataFrame) -> dict[tuple[str, str], HandText]:
    """Hand text rebuilt from the tables, for hands whose source file cannot be read."""
    if keys.is_empty():
        return {}
    lazy_keys = keys.lazy()

    def rows(
        table: str, columns: list[str], order: list[str]
    ) -> dict[tuple[str, str], list[dict[str, Any]]]:
        frame = (
            _scan(root, table, [*HAND_KEY, *columns])
            .join(lazy_keys, on=HAND_KEY, how="semi")
            .collect()
            .sort([*HAND_KEY, *order])
        )
        grouped: dict[tuple[str, str], list[dict[str, Any]]] = {}
        for row in frame.iter_rows(named=True):
            grouped.setdefault((row["site"], row["hand_id"]), []).append(row)
        return grouped

    hands = rows(
        "hands",
        [
            "table_name",
            "limit_type",
            "currency",
            "money_scale",
            "small_blind",
            "big_blind",
            "small_bet",
            "big_bet",
            "started_at",
            "board",
            "total_pot",
            "rake",
            "button_seat",
        ],
        [],
    )
    seats = rows("seats", ["seat", "player", "stack_start", "hole_cards", "position"], ["seat"])
    actions = rows(
        "actions", ["seq", "street", "player", "kind", "amount", "to_amount", "is_all_in"], ["seq"]
    )
    collections = rows("collections", ["seq", "player", "amount", "pot_index", "half"], ["seq"])
    streets = {1: "FLOP", 2: "TURN", 3: "RIVER"}
    texts: dict[tuple[str, str], HandText] = {}
    for key, (hand,) in hands.items():
        scale = hand["money_scale"] or 1

        def amount(value: int | None, scale: int = scale) -> str:
            return format_amount(value, scale)

        fixed = hand["limit_type"] == "FL" and hand["small_bet"] is not None
        small = hand["small_bet"] if fixed else hand["small_blind"]
        big = hand["big_bet"] if fixed else hand["big_blind"]
        started = hand["started_at"]
        lines = [
            f"{key[0]} hand #{key[1]}",
            f"{hand['table_name'] or ''} · {hand['limit_type'] or ''} {amount(small)}/"
            f"{amount(big)} {currency_name(hand['currency'])} · "
            f"{started:%Y-%m-%d %H:%M:%S} UTC"
            if started
            else "",
            f"button seat {hand['button_seat']}",
        ]
        for seat in seats.get(key, []):
            cards = f" [{_cards(seat['hole_cards'])}]" if seat["hole_cards"] else ""
            lines.append(
                f"Seat {seat['seat']}: {seat['player']} ({amount(seat['stack_start'])})"
                f" {seat['position'] or ''}{cards}"
            )
        board = hand["board"] or []
        street = 0
        for action in actions.get(key, []):
            while action["street"] is not None and action["street"] > street:
                street += 1
                shown = board[: 2 + street] if street <= 3 else board
                lines.append(f"*** {streets.get(street, street)} *** [{_cards(shown)}]")
            text = f"{action['player']}: {action['kind']}"
            if action["amount"] is not None:
                text += f" {amount(action['amount'])}"
            if action["kind"] in ("raise", "bet") and action["to_amount"] is not None:
                text += f" to {amount(action['to_amount'])}"
            if action["is_all_in"]:
                text += " and is all-in"
            lines.append(text)
        lines.append("*** SUMMARY ***")
        lines.append(f"Total pot {amount(hand['total_pot'])} | Rake {amount(hand['rake'])}")
        if board:
            lines.append(f"Board [{_cards(board)}]")
        for collection in collections.get(key, []):
            pot = collection["pot_index"]
            where = "pot" if pot is None else ("main pot" if pot == 0 else f"side pot-{pot}")
            half = f" ({collection['half']})" if collection["half"] else ""
            lines.append(
                f"{collection['player']} collected {amount(collection['amount'])}"
                f" from {where}{half}"
            )
        texts[key] = HandText(
            [line for line in lines if line],
            "rebuilt from the tables: the source file is not readable any more",
        )
    return texts


_KEY_LINE = re.compile(
    r"(\*\*\*|collected|Total pot|Rake|Board|Uncalled|returned|shows|Seat \d+:.*(button|won|lost))",
    re.IGNORECASE,
)


def key_lines(lines: Sequence[str], player: str | None) -> list[str]:
    """The lines a person needs for a finding: header, streets, pot, payments, the player's.

    >>> hand = ["Hand #1", "Table 'x'", "Seat 1: a (5)", "Seat 2: b (5)", "b: folds",
    ...         "a collected 10 from pot", "*** SUMMARY ***"]
    >>> key_lines(hand, "a")
    ['Hand #1', "Table 'x'", 'Seat 1: a (5)', 'a collected 10 from pot', '*** SUMMARY ***']
    """
    mentions = re.compile(rf"(?<![\w.-]){re.escape(player)}(?![\w.-])").search if player else None
    kept = []
    for index, line in enumerate(lines):
        if index < 2 or _KEY_LINE.search(line) or (mentions and mentions(line)):
            kept.append(line)
    return kept


# -- players --------------------------------------------------------------------------------------


def _choose_players(
    facts: Any,
    requested: list[str],
    aliases: Aliases | None,
    top: int,
    first: dt.date | None,
    last: dt.date | None,
) -> list[Player]:
    """The players to report on, as ``hilo stats`` counts them (``rpt_player_stats``: an
    account, or a person of ``aliases``), with hands in the selected days: those the
    ``requested`` names mean, in the order asked for, or else the ``top`` with the most hands.

    A name means what it means to ``hilo stats --player``: every player of that name (a screen
    name on any site, or a person) and the account ``site:name``.
    """
    alias_accounts, alias_persons = alias_lists(aliases)
    rows = facts.sql(
        """
        with aliases as (
            select
                unnest(cast($alias_accounts as varchar[])) as account_key,
                unnest(cast($alias_persons as varchar[])) as person
        ),
        accounts as (
            select site, site || ':' || account as account_key, account, sum(hands) as hands
            from fct_player_counts
            where ($since is null or started_on >= cast($since as date))
                and ($until is null or started_on <= cast($until as date))
            group by site, account
        ),
        identified as (
            select
                accounts.*,
                coalesce(aliases.person, accounts.account) as name,
                -- an account not merged is one site's player; a person spans its sites
                case when aliases.person is null then accounts.site end as own_site
            from accounts
            left join aliases using (account_key)
        )
        select
            name,
            list(distinct site order by site) as sites,
            list(account_key order by account_key) as accounts,
            sum(hands) as hands
        from identified
        where $players is null
            or list_contains(cast($players as varchar[]), name)
            or list_contains(cast($players as varchar[]), account_key)
        group by name, own_site
        order by hands desc, name, sites
        limit cast($top as bigint)
        """,
        params={
            "alias_accounts": alias_accounts,
            "alias_persons": alias_persons,
            "since": first,
            "until": last,
            "players": requested or None,
            "top": None if requested else top,
        },
    ).fetchall()
    players = [Player(name, tuple(sites), tuple(accounts)) for name, sites, accounts, _ in rows]
    if requested:  # in the order asked for; the most hands first among those a name means
        asked = {name: index for index, name in reversed(list(enumerate(requested)))}
        players.sort(key=lambda player: min(asked.get(key, len(asked)) for key in _keys(player)))
    return players


def _keys(player: Player) -> tuple[str, ...]:
    """The names that select ``player``: its name and its accounts ``site:name``."""
    return (player.name, *player.accounts)


def _means(name: str, player: Player) -> bool:
    """Whether ``--player name`` selects ``player`` (as `_choose_players` does)."""
    return name in _keys(player)


def hand_results(
    facts: Any, accounts: Sequence[str], first: dt.date | None, last: dt.date | None
) -> pl.DataFrame:
    """One row per hand of the ``accounts`` (``site:name``; fct_hand_players on the connection
    ``facts``): net won, showdown, position, stakes, time, in the order of play.

    ``net`` = collected − chips put in (blinds, antes, calls, bets, raises, less uncalled bets
    returned), in the hand's minor unit; ``showdown``: the player never folded and at least two
    players dealt in never folded — the statistics layer's own columns (docs/stats.md).
    ``player`` is the name the hand gives the seat (at anonymous tables, a position label; the
    account is then ``[ME]`` for the hero).
    """
    query = """
        select
            site, hand_id, player, site || ':' || account as account, position, started_at,
            currency, coalesce(money_scale, 1) as money_scale, big_blind, limit_type,
            stakes_small_minor as stakes_small, stakes_big_minor as stakes_big,
            is_tournament, net_won as net, went_to_showdown as showdown
        from fct_hand_players
        where list_contains(cast($accounts as varchar[]), site || ':' || account)
            and ($since is null or started_on >= cast($since as date))
            and ($until is null or started_on <= cast($until as date))
        order by started_at, site, hand_id, account
    """
    parameters = {"accounts": list(accounts), "since": first, "until": last}
    frame = pl.from_arrow(facts.sql(query, params=parameters).to_arrow_table())
    assert isinstance(frame, pl.DataFrame)
    return frame


def _with_player_index(frame: pl.DataFrame, players: list[Player]) -> pl.DataFrame:
    """``frame`` (`hand_results`) with ``player_index``: the position in ``players`` of the
    player each row's account belongs to."""
    owner = {account: index for index, player in enumerate(players) for account in player.accounts}
    return frame.with_columns(
        player_index=pl.col("account").replace_strict(owner, return_dtype=pl.Int64)
    )


def _player_stats(
    facts: Any,
    root: Path,
    players: list[Player],
    first: dt.date | None,
    last: dt.date | None,
) -> tuple[list[pl.DataFrame] | None, str | None]:
    """`pipeline.stats.compute_stats` for each of ``players`` (its rows, one per currency) on
    the connection ``facts``: the numbers ``hilo stats`` gives that account or person."""
    if not players:
        return [], None
    from pipeline.stats import compute_stats

    # One query for every player: each player's accounts are given as one person, named by the
    # player's index, so that every row says whose it is (two players may share a name).
    by_index = {
        account: str(index) for index, player in enumerate(players) for account in player.accounts
    }
    try:
        frame = compute_stats(
            root,
            players=list(by_index),
            since=first,
            until=last,
            aliases=by_index,
            connection=facts,
        )
    except Exception as error:  # noqa: BLE001 - the rest of the report is still worth having
        return None, (
            f"the statistics could not be computed ({type(error).__name__}: {error}); "
            "the table shows the few numbers computed here from the tables"
        )
    return [frame.filter(pl.col("player") == str(index)) for index in range(len(players))], None


def _player_sections(
    root: Path,
    frame: pl.DataFrame,
    players: list[Player],
    audited: bool,
    stats: list[pl.DataFrame] | None,
    max_points: int,
) -> list[PlayerSection]:
    if not players:
        return []
    hilo = _hilo_outcomes(root, frame) if audited else None
    if audited:
        frame = _with_allin(root, frame)
    sections = []
    for index, player in enumerate(players):
        mine = frame.filter(pl.col("player_index") == index)
        blocks = []
        currencies = (
            mine.group_by("currency", "money_scale")
            .len()
            .sort("len", "currency", descending=[True, False])
        )
        for currency, scale, count in currencies.iter_rows():
            rows = mine.filter((pl.col("currency") == currency) & (pl.col("money_scale") == scale))
            stats_row = None
            if stats is not None:
                matched = stats[index].filter(pl.col("currency") == currency)
                stats_row = matched.row(0, named=True) if matched.height else None
            else:
                stats_row = _fallback_stats(rows)
            blocks.append(
                CurrencyBlock(
                    currency=currency,
                    scale=int(scale),
                    hands=int(count),
                    curve=_curve(rows, max_points),
                    stats=stats_row,
                    by_position=_results_by(rows, ["position"]),
                    by_stakes=_results_by(
                        rows, ["limit_type", "stakes_small", "stakes_big", "is_tournament"]
                    ),
                    hilo=None
                    if hilo is None
                    else _hilo_table(
                        hilo.filter(
                            (pl.col("player_index") == index) & (pl.col("currency") == currency)
                        )
                    ),
                    allin=_allin_summary(rows) if audited else None,
                )
            )
        sections.append(PlayerSection(player=player, hands=mine.height, blocks=blocks))
    return sections


def _with_allin(root: Path, frame: pl.DataFrame) -> pl.DataFrame:
    """``frame`` (`hand_results`) with each hand's all-in adjustment: Σ (expected − paid) over
    the all-in pots of the player (audit output ``allin_equity``), 0.0 in other hands."""
    from pipeline.audit_outputs import ALLIN_EQUITY_SCHEMA

    equity = _audit_table(root, "allin_equity", ALLIN_EQUITY_SCHEMA)
    if equity is None:
        equity = pl.DataFrame(schema=ALLIN_EQUITY_SCHEMA)
    spots = (
        equity.filter(pl.col("player").is_in(frame["player"].unique().implode()))
        .group_by(*HAND_KEY, "player")
        .agg(
            allin_expected=pl.col("expected_amount").sum(),
            allin_actual=pl.col("actual_amount").sum(),
            allin_equity=pl.col("expected_amount").sum() / pl.col("pot_amount").sum(),
        )
    )
    joined = frame.join(spots, on=[*HAND_KEY, "player"], how="left", maintain_order="left")
    return joined.with_columns(
        allin_spot=pl.col("allin_expected").is_not_null(),
        allin_adjustment=(pl.col("allin_expected") - pl.col("allin_actual")).fill_null(0.0),
    )


def _allin_summary(rows: pl.DataFrame) -> dict[str, Any]:
    """All-in spots, average equity, expected and paid amounts and the luck of one block."""
    spots = rows.filter(pl.col("allin_spot"))
    expected = float(spots["allin_expected"].sum()) if spots.height else 0.0
    actual = int(spots["allin_actual"].sum()) if spots.height else 0
    return {
        "spots": spots.height,
        "average_equity": float(spots["allin_equity"].mean()) if spots.height else None,  # type: ignore[arg-type]
        "expected_minor": expected,
        "actual_minor": actual,
        "luck_minor": actual - expected,
    }


def curve_indices(count: int, max_points: int) -> np.ndarray:
    """Indices (0-based hands) kept on a curve of ``count`` hands: ≤ ``max_points - 1``, the
    last hand always kept (the origin is the extra point).

    >>> curve_indices(5, 10).tolist()
    [0, 1, 2, 3, 4]
    >>> indices = curve_indices(100_000, 2000); len(indices) <= 1999, int(indices[-1])
    (True, 99999)
    """
    if count <= max_points - 1:
        return np.arange(count)
    step = math.ceil(count / (max_points - 2))
    kept = np.arange(step - 1, count, step)
    if kept[-1] != count - 1:
        kept = np.append(kept, count - 1)
    return kept


def _curve(rows: pl.DataFrame, max_points: int) -> Curve:
    net = rows["net"].fill_null(0).to_numpy().astype(np.int64)
    showdown = rows["showdown"].fill_null(False).to_numpy()
    series = {
        "all": np.cumsum(net),
        "showdown": np.cumsum(np.where(showdown, net, 0)),
        "non_showdown": np.cumsum(np.where(showdown, 0, net)),
    }
    if "allin_adjustment" in rows.columns:
        # Net with every all-in pot replaced by its expected amount (a float expectation).
        series["adjusted"] = np.cumsum(net + rows["allin_adjustment"].fill_null(0.0).to_numpy())
    kept = curve_indices(len(net), max_points)
    x = np.concatenate(([0], kept + 1))
    y = {name: np.concatenate(([0], values[kept])) for name, values in series.items()}
    final = {name: int(round(values[-1])) if len(values) else 0 for name, values in series.items()}
    return Curve(hands=len(net), final=final, x=x, y=y)


def _results_by(rows: pl.DataFrame, keys: list[str]) -> pl.DataFrame:
    bb = pl.col("big_blind").cast(pl.Float64)
    return (
        rows.group_by(keys)
        .agg(
            hands=pl.len(),
            net=pl.col("net").sum(),
            showdown_net=pl.col("net").filter(pl.col("showdown")).sum(),
            non_showdown_net=pl.col("net").filter(~pl.col("showdown")).sum(),
            showdowns=pl.col("showdown").sum(),
            bb_per_100=(pl.col("net") / bb).mean() * 100,
        )
        .sort(keys, nulls_last=True)
    )


def _weighted_bb(frame: pl.DataFrame) -> float | None:
    hands = int(frame["hands"].sum())
    if not hands or frame["bb_per_100"].null_count():
        return None
    return float((frame["bb_per_100"] * frame["hands"]).sum()) / hands


def _fallback_stats(rows: pl.DataFrame) -> dict[str, Any]:
    """The few numbers shown when `pipeline.stats` cannot give the statistics table."""
    hands = rows.height
    showdowns = int(rows["showdown"].sum())
    won = int(rows.filter(pl.col("showdown") & (pl.col("net") > 0)).height)
    bb = rows.select((pl.col("net") / pl.col("big_blind")).mean() * 100).item()
    return {
        "hands": hands,
        "net_won_minor": int(rows["net"].sum()),
        "bb_per_100": bb,
        "showdowns": showdowns,
        "showdowns_won_net_positive": won,
    }


def _hilo_outcomes(root: Path, frame: pl.DataFrame) -> pl.DataFrame:
    """Each main pot (first board) the audit paid a seat of ``frame`` (`hand_results` with the
    ``player_index``), with its hi/lo outcome."""
    from pipeline.audit_outputs import PAYOUT_SCHEMA

    payouts = _audit_scan(root, "payouts", PAYOUT_SCHEMA)
    assert payouts is not None
    seats = frame.select(*HAND_KEY, "player", "player_index", "currency")
    main_pots = payouts.filter((pl.col("pot_index") == 0) & (pl.col("board_index") == 0))
    paid = (
        main_pots.filter(pl.col("player").is_in(seats["player"].unique().implode()))
        .join(seats.lazy(), on=[*HAND_KEY, "player"], how="semi")
        .select(HAND_KEY)
        .unique()
        .collect()
    )
    main = (
        main_pots.filter(pl.col("hand_id").is_in(paid["hand_id"].implode()))
        .collect()
        .join(paid, on=HAND_KEY, how="semi")
    )
    pots = main.group_by(HAND_KEY).agg(
        collectors=pl.col("player").n_unique(),
        has_low=(pl.col("half") == "low").any(),
        high_winners=pl.col("player").filter(pl.col("half") == "high").n_unique(),
        low_winners=pl.col("player").filter(pl.col("half") == "low").n_unique(),
    )
    winners = (
        main.join(seats, on=[*HAND_KEY, "player"])
        .group_by(*HAND_KEY, "player", "player_index", "currency")
        .agg(
            got_high=(pl.col("half") == "high").any(),
            got_low=(pl.col("half") == "low").any(),
            got_whole=(pl.col("half") == "scoop").any(),
            amount=pl.col("amount").sum(),
        )
        .join(pots, on=HAND_KEY)
    )
    one_half_only = pl.col("has_low") & (pl.col("got_high") != pl.col("got_low"))
    sharing = pl.when(pl.col("got_high")).then("high_winners").otherwise("low_winners")
    return winners.with_columns(
        outcome=pl.when(pl.col("collectors") == 1)
        .then(pl.lit("scooped"))
        .when(pl.col("got_high") & pl.col("got_low"))
        .then(pl.lit("three_quartered"))
        .when(one_half_only & (sharing == 1) & pl.col("got_high"))
        .then(pl.lit("high_only"))
        .when(one_half_only & (sharing == 1))
        .then(pl.lit("low_only"))
        .when(one_half_only & (sharing == 2))
        .then(pl.lit("quartered"))
        .when(one_half_only)
        .then(pl.lit("split_half"))
        .otherwise(pl.lit("chopped"))
    )


def _hilo_table(outcomes: pl.DataFrame) -> pl.DataFrame:
    counted = outcomes.group_by("outcome").agg(pots=pl.len(), amount=pl.col("amount").sum())
    order = pl.DataFrame(
        {
            "outcome": [key for key, _ in HILO_OUTCOMES],
            "label": [label for _, label in HILO_OUTCOMES],
        }
    )
    return order.join(counted, on="outcome", how="left", maintain_order="left").with_columns(
        pl.col("pots").fill_null(0).cast(pl.Int64), pl.col("amount").fill_null(0)
    )


# -- charts ---------------------------------------------------------------------------------------


def _unit_label(currency: str) -> str:
    name = currency_name(currency)
    return name if _CURRENCY_CODE.match(currency or "") or name.endswith("chips") else "units"


def winnings_chart(curve: Curve, currency: str, scale: int) -> Markup:
    """Cumulative winnings over hands: all hands, showdown and non-showdown lines."""
    from pipeline.report_charts import Line, line_chart

    lines = [
        Line(
            gid=f"curve-{name}",
            xs=curve.x.tolist(),
            ys=(curve.y[name] / float(scale or 1)).tolist(),
            colour=CURVE_COLOURS[name],
            width=1.8 if name in ("all", "adjusted") else 1.2,
            label=CURVE_LABELS[name],
            dashed=name == "adjusted",
        )
        for name in CURVE_ORDER
        if name in curve.y
    ]
    return Markup(  # report_charts escapes every text and attribute it draws
        line_chart(
            lines,
            x_max=curve.hands,
            x_label="hands",
            y_label=f"won ({_unit_label(currency)})",
            label="cumulative winnings over hands",
            x_text=lambda value: f"{value:,.0f}",
            y_text=lambda value: f"{value:,.10g}",
        )
    )


def findings_chart(by_kind: pl.DataFrame) -> Markup:
    """Findings per kind, horizontal bars (kinds are hilo's own codes, not user text)."""
    from pipeline.report_charts import Bar, bar_chart

    bars = [
        Bar(_safe_kind(kind), count, "#1f5fbf")
        for kind, count in zip(by_kind["kind"].to_list(), by_kind["findings"].to_list())
    ]
    return Markup(  # report_charts escapes every text and attribute it draws
        bar_chart(
            bars, x_label="findings", label="findings by kind", width=6.4, left=1.35, margin=0.12
        )
    )


def hilo_chart(table: pl.DataFrame) -> Markup:
    """Main pots won by hi/lo outcome, horizontal bars."""
    from pipeline.report_charts import Bar, bar_chart

    colours = {
        "scooped": "#2e7d32",
        "high_only": "#1f5fbf",
        "low_only": "#7b4fc2",
        "quartered": "#b26a00",
        "split_half": "#b26a00",
        "three_quartered": "#00838f",
        "chopped": "#6b7280",
    }
    shown = table.filter(pl.col("pots") > 0)
    bars = [
        Bar(_hilo_short(key), count, colours[key])
        for key, count in zip(shown["outcome"].to_list(), shown["pots"].to_list())
    ]
    return Markup(  # report_charts escapes every text and attribute it draws
        bar_chart(
            bars,
            x_label="main pots won",
            label="hi/lo outcomes of the main pots won",
            width=5.2,
            left=1.15,
            margin=0.15,
        )
    )


def _safe_kind(kind: str) -> str:
    return kind if re.fullmatch(r"[a-z_]{1,40}", kind or "") else "other"


def _hilo_short(key: str) -> str:
    return {
        "scooped": "scooped",
        "high_only": "high only",
        "low_only": "low only",
        "quartered": "quartered",
        "split_half": "half, 3+ ways",
        "three_quartered": "three-quartered",
        "chopped": "chopped",
    }[key]


# -- the page: what the templates show ------------------------------------------------------------


@dataclass(frozen=True)
class Cell:
    """A table cell: its text, a link or a kind label, and the ``<td>``'s class and data
    attributes (the templates escape every one)."""

    text: str
    css: str | None = None
    data: dict[str, object] = field(default_factory=dict)  # data-NAME attributes, None left out
    href: str | None = None  # the text is a link to this anchor of the page
    kind: bool = False  # the text is a finding kind, drawn as a label

    @property
    def attributes(self) -> dict[str, object]:
        return {"class": self.css, **{f"data-{name}": value for name, value in self.data.items()}}


@dataclass(frozen=True)
class Column:
    label: str
    numeric: bool = False


@dataclass(frozen=True)
class Table:
    """A table: the columns' headers, rows of cells, an optional total row."""

    columns: list[Column]
    rows: list[list[Cell]]
    footer: list[Cell] | None = None
    attributes: dict[str, object] = field(default_factory=dict)  # id, class, data-currency


@dataclass(frozen=True)
class Card:
    """One number of a row of cards (data-metric and data-value carry it for readers)."""

    label: str
    value: str
    metric: str | None = None
    number: int | None = None


@dataclass(frozen=True)
class HandView:
    """A finding's hand: its key lines, every line, and where the text comes from."""

    key_lines: str
    text: str
    lines: int
    origin: str


@dataclass(frozen=True)
class FindingRow:
    cells: list[Cell]
    detail: str
    hand: HandView | None


@dataclass(frozen=True)
class KindGroup:
    """The findings of one kind shown, under a summary that says how many there are."""

    kind: str
    count: str
    columns: list[Column]
    rows: list[FindingRow]


@dataclass(frozen=True)
class LegendItem:
    colour: str
    text: str


@dataclass(frozen=True)
class CurrencyView:
    """One player's results in one currency."""

    currency: str
    title: str
    chart: Markup
    chart_attributes: dict[str, object]
    caption: str
    legend: list[LegendItem]
    stats: Table | None
    by_position: Table
    by_stakes: Table
    hilo: Table | None
    hilo_chart: Markup | None
    allin: Table | None


@dataclass(frozen=True)
class PlayerView:
    anchor: str
    name: str
    sites: str
    note: str
    currencies: list[CurrencyView]


@dataclass(frozen=True)
class OverviewView:
    cards: list[Card]
    manifest: Table
    filtered: bool  # the page covers some days only (the manifest counts every file)
    sites: Table
    stakes: Table
    rejects: Table | None
    notes: Table | None
    files: Table | None
    files_capped: bool
    max_listed_files: int


@dataclass(frozen=True)
class AuditView:
    """The audit's cards and, when there are findings, their tables, chart and rows."""

    cards: list[Card]
    total: int
    by_kind: Table | None = None
    chart: Markup | None = None
    money: Table | None = None
    capped: str | None = None  # the note when not every finding is shown
    groups: list[KindGroup] = field(default_factory=list)


@dataclass(frozen=True)
class PlayersView:
    missing: str | None  # the names asked for that have no hands
    shown: str
    summary: Table
    sections: list[PlayerView]
    stats_note: str | None


@dataclass
class FairnessView:
    summary: str
    tests: Table
    chart: Markup | None  # the hero's ranks and suits against their fair ranges
    chart_caption: str
    luck: Table | None
    luck_chart: Markup | None  # players' z-scores against the standard normal
    luck_note: str


@lru_cache(maxsize=1)
def _templates() -> Environment:
    """The page's templates (``pipeline/report_assets/*.html.j2``); every value they insert is
    escaped, and an undefined name is an error rather than an empty string."""
    return Environment(
        loader=PackageLoader("pipeline", "report_assets"),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def _css() -> Markup:
    # hilo's own style sheet, inserted as it is: escaping would break its quoted font names.
    return Markup((resources.files("pipeline") / "report_assets" / "report.css").read_text("utf-8"))


def _when(value: dt.datetime | None) -> str:
    return "–" if value is None else f"{value:%Y-%m-%d %H:%M} UTC"


def _stakes_text(
    limit: str | None,
    small: int | None,
    big: int | None,
    currency: str | None,
    scale: int,
    tournament: bool | None = None,
) -> str:
    kind = " tournament" if tournament else ""
    return (
        f"{limit or '?'} {format_amount(small, scale)}/{format_amount(big, scale)} "
        f"{currency_name(currency)}{kind}"
    )


def _number_cell(text: str, value: object = None) -> Cell:
    return Cell(text, "num", {"value": value})


def _count_cell(value: int) -> Cell:
    return _number_cell(_count(value), value)


def _money_cell(minor: int | None, currency: str | None, scale: int) -> Cell:
    return Cell(
        format_money(minor, currency, scale),
        _sign_class(minor),
        {"minor": None if minor is None else int(minor)},
    )


def render_report(data: ReportData) -> str:
    """The HTML page for ``data``."""
    title = f"hilo report · {Path(data.dataset).name or data.dataset}"
    filters = []
    if data.since or data.until:
        filters.append(
            f"hands from {data.since or 'the first day'} to {data.until or 'the last day'} (UTC)"
        )
    if data.requested_players:
        filters.append(f"players asked for: {', '.join(data.requested_players)}")
    links = [
        ("Overview", "#overview"),
        ("Audit", "#audit"),
        ("Deal fairness", "#fairness"),
        ("Players", "#players"),
    ]
    links += [
        (section.player.label, f"#player-{index}") for index, section in enumerate(data.players, 1)
    ]
    page = _templates().get_template("report.html.j2")
    return page.render(
        title=title,
        css=_css(),
        subtitle=f"dataset {data.dataset} · generated {data.generated_at:%Y-%m-%d %H:%M} UTC"
        + (" · " + "; ".join(filters) if filters else ""),
        links=links,
        overview=_overview_view(data),
        audit=_audit_view(data),
        players=_players_view(data),
        fairness=_fairness_view(data.fairness),
        footer="hilo · money in each currency's units, exact; charts sampled to at most "
        f"{MAX_CURVE_POINTS:,} points per line",
    )


def _overview_view(data: ReportData) -> OverviewView:
    view = data.overview
    cards = [
        Card("Hands", _count(view["hands"]), "hands", view["hands"]),
        Card("Sites", _count(view["sites"]), "sites", view["sites"]),
        Card("Tables", _count(view["tables"]), "tables", view["tables"]),
        Card("Tournaments", _count(view["tournaments"]), "tournaments", view["tournaments"]),
        Card("First hand", _when(view["first"]), "first"),
        Card("Last hand", _when(view["last"]), "last"),
    ]
    manifest = Table(
        [
            Column("Files", True),
            Column("Hands parsed", True),
            Column("Skipped (other games)", True),
            Column("Rejected", True),
            Column("Unreadable files", True),
        ],
        [
            [
                _count_cell(view[key])
                for key in ("files", "parsed", "skipped", "rejected", "file_errors")
            ]
        ],
        attributes={"id": "manifest"},
    )
    sites = Table(
        [Column("Site"), Column("Hands", True), Column("First hand"), Column("Last hand")],
        [
            [Cell(site), _count_cell(hands), Cell(_when(first)), Cell(_when(last))]
            for site, hands, first, last in data.sites.iter_rows()
        ],
        attributes={"id": "sites"},
    )
    rejects = Table(
        [Column("Reason"), Column("Hands", True)],
        [[Cell(reason), _count_cell(count)] for reason, count in data.rejects.iter_rows()],
        attributes={"id": "rejects"},
    )
    notes = Table(
        [Column("Shape"), Column("Lines", True), Column("Example")],
        [
            [Cell(shape), _count_cell(lines), Cell(example, "source")]
            for shape, lines, example in data.note_shapes.iter_rows()
        ],
        attributes={"id": "notes"},
    )
    files = Table(
        [Column("File"), Column("Hands", True), Column("Rejected", True), Column("Error")],
        [
            [Cell(path, "source"), _count_cell(hands), _count_cell(rejected), Cell(error or "")]
            for path, hands, rejected, error in data.files.select(
                "path", "hands", "rejected", "error"
            ).iter_rows()
        ],
        attributes={"id": "problem-files"},
    )
    return OverviewView(
        cards=cards,
        manifest=manifest,
        filtered=view["filtered"],
        sites=sites,
        stakes=_stakes_table(data.stakes),
        rejects=rejects if rejects.rows else None,
        notes=notes if notes.rows else None,
        files=files if files.rows else None,
        files_capped=data.files.height >= MAX_LISTED_FILES,
        max_listed_files=MAX_LISTED_FILES,
    )


def _stakes_table(stakes: pl.DataFrame) -> Table:
    """Hands per stakes: one row per game and stakes, one column per limit."""
    limits = [limit for limit in ("FL", "PL", "NL") if limit in stakes["limit_type"].to_list()]
    limits += sorted({str(limit) for limit in stakes["limit_type"].to_list()} - {"FL", "PL", "NL"})
    grouped: dict[tuple[bool, str, int, int | None, int | None], dict[str, int]] = {}
    for limit, currency, scale, small, big, tournament, hands in stakes.iter_rows():
        key = (bool(tournament), currency, int(scale or 1), small, big)
        grouped.setdefault(key, {})[str(limit)] = hands
    rows = []
    for key in sorted(
        grouped, key=lambda item: (item[0], item[1] or "", item[4] or 0, item[3] or 0)
    ):
        tournament, currency, scale, small, big = key
        counts = grouped[key]
        rows.append(
            [
                Cell("tournament" if tournament else "cash"),
                Cell(_stakes_text(None, small, big, currency, scale).removeprefix("? ")),
            ]
            + [
                _count_cell(counts[limit]) if limit in counts else _number_cell("")
                for limit in limits
            ]
            + [_count_cell(sum(counts.values()))]
        )
    return Table(
        [
            Column("Game"),
            Column("Stakes"),
            *[Column(limit, True) for limit in limits],
            Column("Hands", True),
        ],
        rows,
        attributes={"id": "stakes"},
    )


def _audit_view(data: ReportData) -> AuditView | None:
    """The audit's cards, tables and findings; None when the dataset was not audited."""
    audit = data.audit
    if audit is None:
        return None
    cards = [
        Card("Findings", _count(audit["total"]), "findings", audit["total"]),
        Card("Hands with findings", _count(audit["hands"]), "finding-hands", audit["hands"]),
        Card("Share of hands", _percent(audit["hands"], data.overview["hands"])),
    ]
    if audit["total"] == 0:
        return AuditView(cards, 0)

    from pipeline.audit_outputs import SEVERITY

    sites = audit["sites"]
    counts: dict[tuple[str, str], int] = {
        (kind, site): count for kind, _, site, count in audit["by_kind_site"].iter_rows()
    }
    by_kind = Table(
        [
            Column("Kind"),
            Column("Severity"),
            *[Column(site, True) for site in sites],
            Column("Findings", True),
            Column("Hands", True),
        ],
        [
            [Cell(kind, kind=True), Cell(SEVERITY.get(kind, "rules"))]
            + [_count_cell(counts.get((kind, site), 0)) for site in sites]
            + [_count_cell(findings), _count_cell(hands)]
            for kind, _, findings, hands in audit["by_kind"].iter_rows()
        ],
        attributes={"id": "findings-by-kind"},
    )
    money = Table(
        [
            Column("Kind"),
            Column("Currency"),
            Column("Findings with amounts", True),
            Column("Money affected Σ|expected − recorded|", True),
        ],
        [
            [
                Cell(kind, kind=True),
                Cell(currency_name(currency)),
                _count_cell(findings),
                Cell(
                    format_money(affected, currency, scale),
                    "num",
                    {"minor": int(affected), "kind": kind, "currency": currency},
                ),
            ]
            for kind, _, currency, scale, affected, findings in audit["money"].iter_rows()
        ],
        attributes={"id": "money-affected"},
    )
    shown: pl.DataFrame = audit["shown"]
    capped = None
    if shown.height < audit["total"]:
        capped = (
            f"Showing {shown.height:,} of {audit['total']:,} findings (a share of each kind, "
            "largest differences first); every finding is in DATASET/audit/discrepancies."
        )
    columns = [
        Column("Site"),
        Column("Hand", True),
        Column("Table"),
        Column("Player"),
        Column("Expected", True),
        Column("Recorded", True),
        Column("Detail (open for the hand)"),
    ]
    totals = dict(audit["by_kind"].select("kind", "findings").iter_rows())
    groups = []
    for (kind,), group in shown.partition_by("kind", as_dict=True, maintain_order=True).items():
        total = totals.get(kind, group.height)
        count = (
            f"{total:,} findings"
            if group.height == total
            else f"{group.height:,} of {total:,} findings shown"
        )
        rows = [_finding_row(row, audit["texts"]) for row in group.iter_rows(named=True)]
        groups.append(KindGroup(str(kind), count, columns, rows))
    return AuditView(
        cards=cards,
        total=audit["total"],
        by_kind=by_kind,
        chart=findings_chart(audit["by_kind"]),
        money=money if money.rows else None,
        capped=capped,
        groups=groups,
    )


def _finding_row(row: dict[str, Any], texts: dict[tuple[str, str], HandText]) -> FindingRow:
    scale = row["money_scale"] or 1
    money_kind = row["kind"] in MONEY_KINDS

    def amount(value: int | None) -> Cell:
        if value is None:
            return _number_cell("–")
        text = format_money(value, row["currency"], scale) if money_kind else f"{value:,}"
        return _number_cell(text, value)

    text = texts.get((row["site"], row["hand_id"]))
    hand = None
    if text:
        hand = HandView(
            "\n".join(key_lines(text.lines, row["player"])),
            "\n".join(text.lines),
            len(text.lines),
            text.origin,
        )
    return FindingRow(
        [
            Cell(row["site"]),
            Cell(row["hand_id"], "num"),
            Cell(row["table_name"] or ""),
            Cell(row["player"] or "–", "name"),
            amount(row["expected"]),
            amount(row["recorded"]),
        ],
        row["detail"] or row["kind"],
        hand,
    )


# Labels of the report's own columns; every statistic's label is declared with it.
STAT_LABELS = {**LABELS, "showdowns_won_net_positive": "Showdowns won (net positive)"}
_SKIPPED_STATS = {"player", "site", "currency"}


def _stat_rows(stats: dict[str, Any], currency: str, scale: int) -> list[list[Cell]]:
    rows: list[list[Cell]] = []
    for column, value in stats.items():
        if column in _SKIPPED_STATS:
            continue
        label = STAT_LABELS.get(column, column.replace("_", " "))
        if column.endswith("_minor"):
            cell = _money_cell(value, currency, scale)
        elif isinstance(value, Decimal) or column in MONEY:
            cell = Cell(
                _decimal_money(value, currency, scale),
                _sign_class(value),
                {"value": None if value is None else str(value)},
            )
        elif isinstance(value, bool) or value is None:
            cell = _number_cell("–")
        elif isinstance(value, int):
            cell = _count_cell(value)
        elif column in PLAIN_NUMBERS:
            cell = _number_cell(_number(value), value)
        elif isinstance(value, float):
            cell = _number_cell(_percent(value), value)
        else:
            cell = Cell(str(value))
        rows.append([Cell(label, data={"stat": column}), cell])
    return rows


# The share of a fair deal's counts the intervals of the fairness chart hold (2.576 standard
# deviations: 99%).
FAIR_RANGE_SIGMAS = 2.576
LUCK_PLAYERS_SHOWN = 15
LUCK_CHART_SPOTS = 10  # fewer spots: a z-score of a few values, far from normal


def _fairness_view(report: FairnessReport | None) -> FairnessView | None:
    """The deal tests as a table and a chart of the largest family's hero ranks and suits; the
    players' all-in luck as a table and their z-scores against the normal curve."""
    from pipeline.report_charts import Interval, interval_chart, normal_histogram

    if report is None or not report.tests:
        return None
    flagged = sum(test.flagged for test in report.tests)
    families = {(test.site, test.period, test.game) for test in report.tests}
    summary = (
        f"{len(report.tests)} tests in {len(families)} "
        f"{'family' if len(families) == 1 else 'families'} (site, year, game); "
        f"{flagged} flagged at α = {report.alpha:g} after Holm's adjustment within each family."
    )
    tests = Table(
        [
            Column("Site"), Column("Year"), Column("Game"), Column("Test"),
            Column("Observations", True), Column("p", True), Column("Adjusted p", True),
            Column("Flagged"),
        ],  # fmt: skip
        [
            [
                Cell(test.site), Cell(test.period), Cell(test.game), Cell(test.test.name),
                _count_cell(test.test.observations), _number_cell(f"{test.test.p_value:.4f}"),
                _number_cell(f"{test.p_adjusted:.4f}"), Cell("yes" if test.flagged else ""),
            ]  # fmt: skip
            for test in report.tests
        ],
        attributes={"id": "deal-tests"},
    )
    by_name = {}
    for test in report.tests:
        if test.test.name in ("hero_ranks", "hero_suits"):
            key = (test.site, test.period, test.game)
            by_name.setdefault(key, {})[test.test.name] = test.test
    chart, caption = None, ""
    if by_name:
        key, chosen = max(by_name.items(), key=lambda item: sum(t.observations for t in item[1].values()))
        rows = []
        for name in ("hero_ranks", "hero_suits"):
            test = chosen.get(name)
            if test is None:
                continue
            rows += [
                Interval(
                    label,
                    (observed - expected) / spread,
                    0.0,
                    -FAIR_RANGE_SIGMAS,
                    FAIR_RANGE_SIGMAS,
                )
                for label, observed, expected, spread in test.cells
                if spread > 0
            ]
        chart = Markup(  # report_charts escapes every text and attribute it draws
            interval_chart(
                rows,
                x_label="cards dealt less a fair deal's, in standard deviations",
                label="the hero's ranks and suits against a fair deal",
                width=6.4,
                left=0.9,
            )
        )
        caption = (
            f"The hero's hole cards at {key[0]} in {key[1]} ({key[2]}), by rank and suit: the "
            "dot is how far the count dealt is from a fair deal's, in standard deviations; the "
            "band is where a fair deal lands 99% of the time (one category at a time)."
        )
    players = report.players if report.players is not None else pl.DataFrame()
    luck, luck_chart = None, None
    luck_note = "No all-in spots: run hilo audit DATASET first (it computes them)."
    if players.height:
        # The flagged players first, then the most spots.
        shown = players.sort("flagged", descending=True, maintain_order=True).head(LUCK_PLAYERS_SHOWN)
        luck = Table(
            [Column("Player"), Column("Site"), Column("Currency"), Column("All-in spots", True),
             Column("Luck", True), Column("z", True), Column("p", True), Column("Adjusted p", True),
             Column("Flagged")],  # fmt: skip
            [
                [
                    Cell(row["player"]), Cell(row["site"]), Cell(row["currency"]),
                    _count_cell(row["spots"]), _number_cell(_number(row["luck"])),
                    _number_cell("–" if row["z"] is None else f"{row['z']:+.2f}"),
                    _number_cell("–" if row["p_value"] is None else f"{row['p_value']:.3f}"),
                    _number_cell("–" if row["p_adjusted"] is None else f"{row['p_adjusted']:.3f}"),
                    Cell("yes" if row["flagged"] else ""),
                ]  # fmt: skip
                for row in shown.iter_rows(named=True)
            ],
            attributes={"id": "luck"},
        )
        scores = players.filter(pl.col("spots") >= LUCK_CHART_SPOTS)["z"].drop_nulls().to_list()
        if scores:
            luck_chart = Markup(  # report_charts escapes every text and attribute it draws
                normal_histogram(
                    scores,
                    x_label=f"all-in luck z of the {len(scores)} players with "
                    f"{LUCK_CHART_SPOTS}+ spots (line: a fair deal's normal curve)",
                    label="players' all-in luck against the normal curve",
                    width=6.4,
                )
            )
        luck_note = (
            f"{players.height} players with all-in spots, the {len(shown)} with the most shown. "
            "Luck is what the all-in pots paid less what they were expected to pay over every "
            "run-out; z divides it by its standard deviation, about standard normal for a fair "
            f"deal after a few dozen spots. A player with {MINIMUM_SPOTS}+ spots is flagged when "
            f"the p of z, Holm-adjusted over the site's such players, is at most α = "
            f"{report.alpha:g}."
        )
    return FairnessView(summary, tests, chart, caption, luck, luck_chart, luck_note)


def _players_view(data: ReportData) -> PlayersView:
    how = (
        "players asked for"
        if data.requested_players
        else f"the {len(data.players)} players with the most hands"
    )
    summary = Table(
        [
            Column("Player"),
            Column("Currency"),
            Column("Hands", True),
            Column("Net won", True),
            Column("At showdown", True),
            Column("Without showdown", True),
        ],
        [
            [
                Cell(section.player.label, "name", href=f"#player-{index}"),
                Cell(currency_name(block.currency)),
                _count_cell(block.hands),
                _money_cell(block.curve.final["all"], block.currency, block.scale),
                _money_cell(block.curve.final["showdown"], block.currency, block.scale),
                _money_cell(block.curve.final["non_showdown"], block.currency, block.scale),
            ]
            for index, section in enumerate(data.players, 1)
            for block in section.blocks
        ],
        attributes={"id": "players-summary"},
    )
    sections = []
    for index, section in enumerate(data.players, 1):
        currencies = ", ".join(currency_name(block.currency) for block in section.blocks)
        sections.append(
            PlayerView(
                anchor=f"player-{index}",
                name=section.player.name,
                sites=", ".join(section.player.sites),
                note=f"{section.hands:,} hands"
                + (f" in {currencies}" if len(section.blocks) > 1 else ""),
                currencies=[_currency_view(block) for block in section.blocks],
            )
        )
    return PlayersView(
        missing=", ".join(data.missing_players) if data.missing_players else None,
        shown=f"Showing {how}; a player is an account (a screen name on one site), or a"
        " person of the aliases, as in hilo stats.",
        summary=summary,
        sections=sections,
        stats_note=data.stats_note,
    )


def _currency_view(block: CurrencyBlock) -> CurrencyView:
    currency, scale, curve = block.currency, block.scale, block.curve
    name = currency_name(currency)
    stats = None
    if block.stats is not None:
        stats = Table(
            [Column("Statistic"), Column("Value", True)],
            _stat_rows(block.stats, currency, scale),
            attributes={"class": "stats", "data-currency": currency},
        )
    positions = block.by_position.with_columns(
        order=pl.col("position").replace_strict(
            {label: index for index, label in enumerate(POSITION_ORDER)},
            default=len(POSITION_ORDER),
            return_dtype=pl.Int32,
        )
    ).sort("order", "position", nulls_last=True)
    position_labels = [label or "–" for label in positions["position"].to_list()]
    stakes = block.by_stakes.sort("limit_type", "stakes_big", "stakes_small", nulls_last=True)
    stakes_labels = [
        f"{limit or '?'} {format_amount(small, scale)}/{format_amount(big, scale)}"
        + (" (tournament)" if tournament else "")
        for limit, small, big, tournament in stakes.select(
            "limit_type", "stakes_small", "stakes_big", "is_tournament"
        ).iter_rows()
    ]
    hilo = None
    hilo_figure = None
    if block.hilo is not None:
        total = int(block.hilo["pots"].sum())
        hilo = Table(
            [
                Column("Outcome"),
                Column("Main pots", True),
                Column("Share", True),
                Column(f"Paid ({name})", True),
            ],
            [
                [
                    Cell(label, data={"outcome": outcome}),
                    _count_cell(pots),
                    _number_cell(_percent(pots, total)),
                    _money_cell(amount, currency, scale),
                ]
                for outcome, label, pots, amount in block.hilo.select(
                    "outcome", "label", "pots", "amount"
                ).iter_rows()
            ],
            footer=[
                Cell("Main pots won"),
                _count_cell(total),
                Cell(""),
                _money_cell(int(block.hilo["amount"].sum()), currency, scale),
            ],
            attributes={"class": "hilo", "data-currency": currency},
        )
        hilo_figure = hilo_chart(block.hilo) if total else None
    return CurrencyView(
        currency=currency,
        title=f"{name} · {block.hands:,} hands",
        chart=winnings_chart(curve, currency, scale),
        chart_attributes={
            "class": "chart winnings",
            "data-currency": currency,
            "data-hands": curve.hands,
            "data-points": len(curve.x),
            "data-net-minor": curve.final["all"],
            "data-showdown-minor": curve.final["showdown"],
            "data-non-showdown-minor": curve.final["non_showdown"],
            "data-adjusted-minor": curve.final.get("adjusted"),
        },
        caption=f"Cumulative winnings over {curve.hands:,} hands in {name} (in order of play; "
        f"{len(curve.x):,} points drawn).",
        legend=[
            LegendItem(
                CURVE_COLOURS[key],
                f"{CURVE_LABELS[key]} {format_money(curve.final[key], currency, scale)}",
            )
            for key in CURVE_ORDER
            if key in curve.final
        ],
        stats=stats,
        by_position=_results_table(
            positions, "Position", position_labels, "by-position", currency, scale
        ),
        by_stakes=_results_table(stakes, "Stakes", stakes_labels, "by-stakes", currency, scale),
        hilo=hilo,
        hilo_chart=hilo_figure,
        allin=None if block.allin is None else _allin_table(block.allin, currency, scale),
    )


def _results_table(
    frame: pl.DataFrame, first: str, labels: list[str], css: str, currency: str, scale: int
) -> Table:
    """Hands and winnings per position or stakes (``labels``: each row's), with a total row."""
    hands = int(frame["hands"].sum())
    return Table(
        [
            Column(first),
            Column("Hands", True),
            Column(f"Net won ({currency_name(currency)})", True),
            Column("bb/100", True),
            Column("At showdown", True),
            Column("Without showdown", True),
        ],
        [
            [
                Cell(label, data={"key": label}),
                _count_cell(row["hands"]),
                _money_cell(row["net"], currency, scale),
                _number_cell(_number(row["bb_per_100"]), row["bb_per_100"]),
                _money_cell(row["showdown_net"], currency, scale),
                _money_cell(row["non_showdown_net"], currency, scale),
            ]
            for row, label in zip(frame.iter_rows(named=True), labels, strict=True)
        ],
        footer=[
            Cell("Total"),
            _count_cell(hands),
            _money_cell(int(frame["net"].sum()), currency, scale),
            _number_cell(_number(_weighted_bb(frame))),
            _money_cell(int(frame["showdown_net"].sum()), currency, scale),
            _money_cell(int(frame["non_showdown_net"].sum()), currency, scale),
        ],
        attributes={"class": css, "data-currency": currency},
    )


def _allin_table(summary: dict[str, Any], currency: str, scale: int) -> Table:
    """The all-in luck summary: what the all-in pots paid against their expectation."""
    return Table(
        [Column("All-in"), Column("Value", True)],
        [
            [Cell("All-in spots"), _count_cell(summary["spots"])],
            [Cell("Average equity"), _number_cell(_percent(summary["average_equity"]))],
            [
                Cell("Expected from all-in pots"),
                _money_cell(int(round(summary["expected_minor"])), currency, scale),
            ],
            [Cell("Paid from all-in pots"), _money_cell(summary["actual_minor"], currency, scale)],
            [
                Cell("All-in luck (paid − expected)"),
                _money_cell(int(round(summary["luck_minor"])), currency, scale),
            ],
        ],
        attributes={"class": "allin", "data-currency": currency},
    )


# -- writing --------------------------------------------------------------------------------------


def write_report(
    dataset: str | os.PathLike[str],
    out: str | os.PathLike[str],
    players: Sequence[str] | None = None,
    since: str | dt.date | None = None,
    until: str | dt.date | None = None,
    *,
    top: int = DEFAULT_TOP,
    max_findings: int = MAX_FINDINGS,
    max_points: int = MAX_CURVE_POINTS,
    facts: RefreshSummary | None = None,
    aliases: Aliases | str | os.PathLike[str] | None = None,
) -> ReportSummary:
    """Build the report of ``dataset`` and write it to ``out`` (temporary file, then rename);
    ``facts`` and ``aliases`` as `build_report`."""
    started = time.perf_counter()
    data = build_report(
        dataset,
        players,
        since,
        until,
        top=top,
        max_findings=max_findings,
        max_points=max_points,
        facts=facts,
        aliases=aliases,
    )
    page = render_report(data).encode("utf-8")
    target = Path(out)
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    temporary.write_bytes(page)
    os.replace(temporary, target)
    return ReportSummary(
        path=target,
        size=len(page),
        hands=data.overview["hands"],
        players=len(data.players),
        findings=0 if data.audit is None else data.audit["total"],
        seconds=time.perf_counter() - started,
    )
