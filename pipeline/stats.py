"""Player statistics: the DuckDB models of ``sql/`` over a dataset's Parquet tables.

A tiny loader, no templating. The dataset's tables become views over exactly the part files the
``files`` manifest names (``read_parquet(?, hive_partitioning = true)``, the list of paths bound as
a parameter); the audit's outputs, when present, become ``audit_payouts`` and
``audit_discrepancies``. Then every ``sql/*.sql`` file is loaded in layer order (``stg_``,
``int_``, ``fct_``, ``rpt_``, ``agg_``; within a layer, after the models it reads): a model file
holds one ``select`` and becomes ``create or replace view <stem> as …``, except the ``fct_``
models, which are computed per ingest part and stored as Parquet (`pipeline.facts`) and become
views over those parts, and the ``rpt_`` files, which hold a whole ``create or replace macro
<stem>(…) as table …`` (a model with parameters).

Everything lives in ``DATASET/hilo.duckdb`` as views, so ``duckdb DATASET/hilo.duckdb`` opens it
all; the views are recreated on every `open_database`, after the stored facts were brought up to
date (only the parts whose inputs or models changed are computed). DuckDB resolves a view's relative
paths against the working directory of whoever opens the database, never against the database
file, so the Parquet paths are absolute (moving the dataset only needs one ``hilo stats`` or
``hilo query`` to repair them).

User values (player names, site, stakes, dates, …) reach SQL only as prepared parameters of the
``rpt_player_stats`` macro: `compute_stats` never formats them into SQL text.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import sys
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from pipeline.identity import Aliases, alias_lists, load_aliases
from pipeline.statistics import STAT_COLUMNS, TABLE_COLUMNS, expand_markers

if TYPE_CHECKING:
    import duckdb
    import polars as pl

    from pipeline.facts import FactPart, RefreshSummary

__all__ = [
    "BY_DIMENSIONS",
    "DATABASE_NAME",
    "LAYERS",
    "LIMITS",
    "SOURCE_TABLES",
    "STAT_COLUMNS",
    "Sources",
    "compute_stats",
    "connect",
    "find_sources",
    "load_models",
    "model_files",
    "open_database",
    "parse_stakes",
    "pruned_database",
    "register_sources",
]

DATABASE_NAME = "hilo.duckdb"
LAYERS = ("stg_", "int_", "fct_", "rpt_", "agg_")
BY_DIMENSIONS = ("position", "stakes", "month", "site", "game")
LIMITS = ("FL", "PL", "NL")
SOURCE_TABLES = (
    "hands", "seats", "actions", "collections", "showdowns", "notes", "rejects", "files"
)
AUDIT_TABLES = {
    "audit_payouts": "payouts",
    "audit_discrepancies": "discrepancies",
    "allin_equity": "allin_equity",
}
# Tables whose parts share their relative path with the hands they hold (pipeline.facts).
CHUNKED_TABLES = ("hands", "seats", "actions", "collections", "showdowns")
# Models computed per part and stored as Parquet (pipeline.facts): the per hand and player facts.
MATERIALISED = "fct_"
# Fact models with a row per account, stored sorted by it: `--player` reads only its rows.
ACCOUNT_FACTS = ("fct_hand_players", "fct_player_counts", "fct_player_totals")
# DuckDB's own share of a 1 GiB process (Python, Arrow and polars take the rest); beyond it
# large sorts and joins spill to the temporary folder. ``$HILO_DUCKDB_MEMORY`` overrides it.
DEFAULT_MEMORY_LIMIT = "640MiB"
_REFERENCE = re.compile(r"\b(?:from|join)\s+([a-z_][a-z0-9_]*)", re.IGNORECASE)
_STAKES = re.compile(
    r"^\s*[^\d/]*?(\d+(?:\.\d+)?)\s*[^\d/]*?\s*/\s*[^\d/]*?(\d+(?:\.\d+)?)\s*[A-Za-z]*\s*$"
)


# -- the models ----------------------------------------------------------------------------------


def model_files() -> list[tuple[str, str]]:
    """Return ``(stem, text)`` of every ``sql/*.sql`` file, in the order they must be created.

    A model comes after the models it reads (``from``/``join`` references: DuckDB binds a
    view or macro when it is created); among the models ready, layers go in `LAYERS` order,
    then names.
    """
    found: dict[str, str] = {}
    for entry in resources.files("sql").iterdir():
        if entry.name.endswith(".sql") and entry.is_file():
            found[entry.name[: -len(".sql")]] = expand_markers(entry.read_text(encoding="utf-8"))
    unknown = sorted(stem for stem in found if not stem.startswith(LAYERS))
    if unknown:
        raise ValueError(f"sql/ files outside the layers {LAYERS}: {unknown}")

    def rank(stem: str) -> tuple[int, str]:
        return next(i for i, layer in enumerate(LAYERS) if stem.startswith(layer)), stem

    pending = sorted(found, key=rank)
    reads = {
        stem: {name for name in _references(found[stem]) if name in found and name != stem}
        for stem in found
    }
    ordered: list[tuple[str, str]] = []
    done: set[str] = set()
    while pending:
        ready = next((stem for stem in pending if reads[stem] <= done), None)
        if ready is None:
            raise ValueError(f"circular references between sql/ models: {pending}")
        ordered.append((ready, found[ready]))
        done.add(ready)
        pending.remove(ready)
    return ordered


def _references(text: str) -> set[str]:
    without_comments = "\n".join(line.split("--", 1)[0] for line in text.splitlines())
    return {name.lower() for name in _REFERENCE.findall(without_comments)}


def _model_statement(stem: str, text: str) -> str:
    """The statement creating a non-materialised model: a view, or a ``rpt_`` macro as written."""
    body = text.strip().rstrip(";")
    if stem.startswith("rpt_"):
        if not re.search(rf"create\s+or\s+replace\s+macro\s+{stem}\s*\(", body, re.IGNORECASE):
            raise ValueError(f"sql/{stem}.sql must define the macro {stem}")
        return body
    return f"create or replace view {stem} as\n{body}"


def load_models(
    connection: duckdb.DuckDBPyConnection,
    sources: Sources,
    *,
    facts: Mapping[str, Sequence[str]] | None = None,
    rebuild: bool = True,
    chunk_hands: int | None = None,
) -> list[str]:
    """Create every model of ``sql/`` on ``connection`` (after `register_sources`).

    A ``fct_`` model is a view over its stored fact parts when ``facts`` names them
    (``{model: absolute paths}``, from `pipeline.facts.refresh_facts`); with ``facts=None``
    it is computed here, in one pass over the source views, into a table (the reference
    path, and the fallback when the facts cannot be stored). A dataset without hands parts
    gets the model as a plain (empty) view. Every other model is a view (``create or
    replace view <stem> as …``), a ``rpt_`` one a table macro. ``rebuild`` and
    ``chunk_hands`` are accepted for compatibility and ignored. Returns the model names.
    """
    del rebuild, chunk_hands
    names = []
    for stem, text in model_files():
        if stem.startswith(MATERIALISED):
            _drop_relation(connection, stem)
            body = text.strip().rstrip(";")
            paths = None if facts is None else list(facts.get(stem, ()))
            if paths is None:
                connection.execute(f"create table {stem} as\n{body}")
            elif paths:
                fact_view(connection, stem, paths)
            else:
                connection.execute(f"create view {stem} as\n{body}")
        else:
            connection.execute(_model_statement(stem, text))
        names.append(stem)
    return names


def fact_view(
    connection: duckdb.DuckDBPyConnection,
    stem: str,
    paths: Sequence[str],
    accounts: Sequence[str] | None = None,
) -> None:
    """(Re)create view ``stem`` over fact part files; with ``accounts``, only those accounts'
    rows (a filter DuckDB checks against each row group's account range, so the parts,
    sorted by account, are read only where the accounts are)."""
    _drop_relation(connection, stem)
    # The model name is hilo's own; the paths and accounts are bound parameters.
    if accounts is None:
        relation = connection.sql(
            "select * from read_parquet(?, hive_partitioning = false)", params=[list(paths)]
        )
    else:
        wanted = sorted(set(accounts))
        condition = f"account in ({', '.join('?' for _ in wanted)})" if wanted else "false"
        relation = connection.sql(
            f"select * from read_parquet(?, hive_partitioning = false) where {condition}",
            params=[list(paths), *wanted],
        )
    relation.create_view(stem, replace=True)


def _drop_relation(connection: duckdb.DuckDBPyConnection, stem: str) -> None:
    # DuckDB refuses "drop view if exists" on a table (and the reverse): ask what it is.
    existing = connection.execute(
        "select table_type from information_schema.tables"
        " where table_schema = 'main' and table_name = ?",
        [stem],
    ).fetchall()
    if existing:
        connection.execute(f"drop {'view' if existing[0][0] == 'VIEW' else 'table'} {stem}")


# -- the inputs ----------------------------------------------------------------------------------


@dataclass
class Sources:
    """The Parquet files behind each source view, and how to point the views at them.

    ``paths`` maps a view (``hands``, …, ``audit_payouts``) to absolute file paths: for the
    dataset's tables exactly the parts the ``files`` manifest names, for the audit's outputs
    the files of ``DATASET/audit/<table>/site=*/``.
    """

    dataset: Path
    paths: dict[str, list[str]]
    schemas: dict[str, pa.Schema]

    def point(self, connection: duckdb.DuckDBPyConnection, *, audit_of_hands: bool = False) -> None:
        """(Re)create every source view; with ``audit_of_hands`` the audit's outputs keep only
        the rows of the ``hands`` view's hands (one part's facts read its site's audit files)."""
        for view, paths in self.paths.items():
            if paths and audit_of_hands and view in AUDIT_TABLES:
                # Table names in this query are hilo's own; the paths are a bound parameter.
                relation = connection.sql(
                    "select audited.* from read_parquet(?, hive_partitioning = true) as audited"
                    " semi join hands on audited.site = hands.site"
                    " and audited.hand_id = hands.hand_id",
                    params=[paths],
                )
                relation.create_view(view, replace=True)
            elif paths:
                # The dataset's tables hold every column in their files; reading their folder
                # names too would add ``month`` and break on mixed layouts (see dataset.py).
                hive = "true" if view in AUDIT_TABLES else "false"
                relation = connection.sql(
                    f"select * from read_parquet(?, hive_partitioning = {hive})", params=[paths]
                )
                relation.create_view(view, replace=True)
            else:
                _empty_view(connection, view, self.schemas[view])


def _manifest_parts(dataset: Path) -> dict[str, list[str]]:
    """Committed part files per table, absolute paths, in name order."""
    import pyarrow.parquet as pq

    from pipeline.dataset import MANIFEST, live_manifest_paths

    parts: dict[str, list[str]] = {table: [] for table in SOURCE_TABLES}
    # One snapshot: the manifest parts are listed once, and only the parts those name are
    # read. A commit landing meanwhile is then in neither view (``files`` would otherwise
    # count hands that ``hands`` does not have).
    manifest_paths = live_manifest_paths(dataset)
    referenced: set[str] = set()
    for path in manifest_paths:
        for listed in pq.read_table(path, columns=["parts"]).column("parts").to_pylist():
            referenced.update(listed or ())
    # Parts are plain files under the dataset: resolving the folder once is enough (a
    # resolve per part costs more than the rest of `hilo stats --player` on 5M hands).
    base = str(dataset.resolve())
    for relative in sorted(referenced):
        table = relative.split("/", 1)[0]
        absolute = f"{base}/{relative}"
        if table in parts and os.path.isfile(absolute):
            parts[table].append(absolute)
    parts["files"] = sorted(f"{base}/{MANIFEST}/{path.name}" for path in manifest_paths)
    return parts


def _empty_view(connection: duckdb.DuckDBPyConnection, name: str, schema: pa.Schema) -> None:
    """A view with ``schema``'s columns and no rows (a table with no committed part yet)."""
    holder = f"_hilo_empty_{name}"
    connection.register(holder, schema.empty_table())
    try:
        described = connection.execute(f"describe select * from {holder}").fetchall()
    finally:
        connection.unregister(holder)
    # Column names and types come from hilo's own schemas, never from users.
    columns = ",\n    ".join(
        f'cast(null as {kind}) as "{column}"' for column, kind, *_ in described
    )
    connection.execute(f"create or replace view {name} as\nselect\n    {columns}\nlimit 0")


def find_sources(dataset: str | os.PathLike[str]) -> Sources:
    """The files behind every source view of the dataset at ``dataset``."""
    root = Path(dataset)
    paths = _manifest_parts(root)
    for view, folder in AUDIT_TABLES.items():
        paths[view] = sorted(
            str(path.resolve()) for path in (root / "audit" / folder).glob("site=*/part-*.parquet")
        )
    return Sources(root, paths, source_schemas())


def source_schemas() -> dict[str, pa.Schema]:
    """The columns of every source view (for the empty view of a table with no file)."""
    from pipeline.audit_outputs import ALLIN_EQUITY_SCHEMA, DISCREPANCY_SCHEMA, PAYOUT_SCHEMA
    from pipeline.schema import TABLES

    schemas = {view: TABLES[view] for view in SOURCE_TABLES}
    schemas["audit_payouts"] = _polars_schema_to_arrow(PAYOUT_SCHEMA)
    schemas["audit_discrepancies"] = _polars_schema_to_arrow(DISCREPANCY_SCHEMA)
    schemas["allin_equity"] = _polars_schema_to_arrow(ALLIN_EQUITY_SCHEMA)
    return schemas


def register_sources(
    connection: duckdb.DuckDBPyConnection, dataset: str | os.PathLike[str]
) -> Sources:
    """Create a view per dataset table and audit output over all their files; return them."""
    sources = find_sources(dataset)
    sources.point(connection)
    return sources


def _polars_schema_to_arrow(schema: dict[str, Any]) -> pa.Schema:
    import polars as pl

    return pl.DataFrame(schema=schema).to_arrow().schema


# -- connections ---------------------------------------------------------------------------------


def connect(
    database: str | os.PathLike[str] = ":memory:",
    *,
    memory_limit: str | None = None,
    temp_directory: str | os.PathLike[str] | None = None,
    threads: int | None = None,
    read_only: bool = False,
) -> duckdb.DuckDBPyConnection:
    """Open DuckDB with hilo's session settings: UTC, a memory limit and a spill folder.

    ``memory_limit`` defaults to ``$HILO_DUCKDB_MEMORY`` or `DEFAULT_MEMORY_LIMIT`;
    ``temp_directory`` (where large sorts and joins spill) to ``$HILO_DUCKDB_TEMP`` or a
    ``hilo-duckdb`` folder in the system's temporary directory; ``threads`` to
    ``$HILO_DUCKDB_THREADS`` or the cores this process may run on.
    """
    import duckdb

    from pipeline.executor import default_workers

    config: dict[str, Any] = {}
    config["memory_limit"] = (
        memory_limit or os.environ.get("HILO_DUCKDB_MEMORY") or DEFAULT_MEMORY_LIMIT
    )
    spill = temp_directory or os.environ.get("HILO_DUCKDB_TEMP")
    if spill is None:
        spill = Path(tempfile.gettempdir()) / "hilo-duckdb"
    Path(spill).mkdir(parents=True, exist_ok=True)
    config["temp_directory"] = str(spill)
    config["threads"] = (
        threads or int(os.environ.get("HILO_DUCKDB_THREADS", "0")) or default_workers()
    )
    connection = duckdb.connect(str(database), read_only=read_only, config=config)
    connection.execute("set TimeZone = 'UTC'")
    connection.execute("set enable_progress_bar = false")
    return connection


def open_database(
    dataset: str | os.PathLike[str],
    *,
    persistent: bool = True,
    memory_limit: str | None = None,
    temp_directory: str | os.PathLike[str] | None = None,
    threads: int | None = None,
    chunk_hands: int | None = None,
    scheduler: str | None = None,
    workers: int | None = None,
    facts: RefreshSummary | None = None,
    stored_facts: bool = True,
) -> duckdb.DuckDBPyConnection:
    """Return a connection holding every dataset view and model, up to date.

    First the stored facts are brought up to date (`pipeline.facts.refresh_facts`: only the
    parts that changed are computed, on local processes or the Dask cluster at
    ``scheduler``), unless ``facts`` gives a refresh's result already. The ``fct_`` models
    are then views over the fact parts. With ``persistent`` (the default) the connection is
    ``DATASET/hilo.duckdb``, whose views are recreated (it holds no copy of the facts); if the
    file cannot be opened for writing (another process holds it, a read-only folder), an
    in-memory database is built instead and a note goes to standard error; ``persistent=False``
    always builds in memory. When the facts cannot be stored (a full disk, a read-only
    dataset) or ``stored_facts=False``, the ``fct_`` models are computed into tables of the
    connection, in one pass (the reference path). ``chunk_hands`` is ignored (compatibility).
    """
    import duckdb

    del chunk_hands
    root = Path(dataset)
    if not root.is_dir():
        raise FileNotFoundError(f"no dataset at {root}")
    if facts is None and stored_facts:
        facts = refresh_stored_facts(root, scheduler=scheduler, workers=workers)
    settings: dict[str, Any] = {
        "memory_limit": memory_limit,
        "temp_directory": temp_directory,
        "threads": threads,
    }
    connection = None
    if persistent:
        try:
            connection = connect(root / DATABASE_NAME, **settings)
        except (duckdb.Error, OSError) as error:
            print(
                f"hilo: {root / DATABASE_NAME} not writable ({error}); using memory",
                file=sys.stderr,
            )
    if connection is None:
        connection = connect(":memory:", **settings)
    try:
        connection.execute("begin transaction")
        sources = register_sources(connection, root)
        load_models(connection, sources, facts=None if facts is None else fact_paths(root, facts))
        # A file written by an older hilo held the facts as a table and a fingerprint of them.
        connection.execute("drop table if exists hilo_state")
        connection.execute("commit")
    except BaseException:
        connection.close()
        raise
    return connection


def refresh_stored_facts(
    root: Path, *, scheduler: str | None = None, workers: int | None = None
) -> RefreshSummary | None:
    """`pipeline.facts.refresh_facts`, or None (with a note) when they cannot be stored."""
    import duckdb

    from pipeline.facts import FACTS_DIRECTORY, refresh_facts

    try:
        return refresh_facts(root, scheduler=scheduler, workers=workers)
    except (OSError, duckdb.IOException) as error:  # a full disk, a read-only dataset
        if isinstance(error, OSError):
            reason = error.strerror or str(error)
        else:  # DuckDB's message ends with {"errno":"28", ...}: say it as the system does
            code = re.search(r'"errno":\s*"(\d+)"', str(error))
            reason = os.strerror(int(code.group(1))) if code else str(error)
        print(
            f"hilo: cannot store the statistics facts in {root / FACTS_DIRECTORY}"
            f" ({reason}); using memory",
            file=sys.stderr,
        )
        return None


def fact_paths(
    root: Path, facts: RefreshSummary, keep: Callable[[FactPart], bool] | None = None
) -> dict[str, list[str]]:
    """Absolute paths of each model's current fact parts (those ``keep`` accepts)."""
    base = root.resolve()
    return {
        model: [str(base / part.path) for part in parts if keep is None or keep(part)]
        for model, parts in facts.parts.items()
    }


# -- the statistics ------------------------------------------------------------------------------


def parse_stakes(text: str) -> tuple[str, str]:
    """Return the two amounts of a stakes text, as exact decimal strings.

    >>> parse_stakes("0.01/0.02")
    ('0.01', '0.02')
    >>> parse_stakes("$2/$4")
    ('2', '4')
    """
    match = _STAKES.match(text)
    if not match:
        raise ValueError(f"stakes {text!r} are not like 0.01/0.02")
    try:
        small, big = (str(Decimal(value)) for value in match.groups())
    except InvalidOperation as error:  # pragma: no cover - the pattern only lets numbers through
        raise ValueError(f"stakes {text!r} are not like 0.01/0.02") from error
    return small, big


def _as_date(value: str | dt.date | dt.datetime | None, name: str) -> dt.date | None:
    if value is None:
        return None
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    try:
        return dt.date.fromisoformat(value)
    except ValueError as error:
        raise ValueError(f"{name} {value!r} is not a date (YYYY-MM-DD)") from error


def compute_stats(
    dataset: str | os.PathLike[str],
    players: Iterable[str] | str | None = None,
    site: str | None = None,
    limit: str | None = None,
    stakes: str | None = None,
    since: str | dt.date | None = None,
    until: str | dt.date | None = None,
    by: str | None = None,
    min_hands: int | None = None,
    *,
    game: str | None = None,
    counts: bool = False,
    aliases: Aliases | str | os.PathLike[str] | None = None,
    connection: duckdb.DuckDBPyConnection | None = None,
    scheduler: str | None = None,
    workers: int | None = None,
) -> pl.DataFrame:
    """Player statistics over the dataset at ``dataset`` (docs/stats.md defines every column).

    Parameters
    ----------
    dataset:
        The dataset folder (its ``hilo.duckdb`` is refreshed, see `open_database`).
    players:
        Players (one or several): a screen name (on any site), ``site:name`` (one account)
        or a person of ``aliases``; None for everyone.
    site, limit, stakes:
        Keep hands of one site, limit (``FL``, ``PL``, ``NL``) or stakes (``"0.01/0.02"``:
        blinds, or small/big bet in fixed limit, in currency units).
    since, until:
        First and last day (UTC, both included), as dates or ``YYYY-MM-DD``.
    by:
        Add a grouping dimension: ``position``, ``stakes``, ``month``, ``site`` or ``game``;
        the column is named after it.
    min_hands:
        Leave out rows with fewer hands.
    game:
        Keep hands of one game (``hands.game``: ``O8``, ``O8-5card``, ``O8-6card``,
        ``Courchevel-HL``).
    counts:
        Also return every numerator and denominator (``vpip_hands``, ``pfr_chances``, …, and
        money in minor units ``net_won_minor``, ``rake_paid_minor``).
    aliases:
        Accounts to merge into persons: ``{"site:name": person}`` or the path of an aliases
        TOML file (`pipeline.identity`). Without, a player is one (site, screen name).
    connection:
        A connection from `open_database` to reuse; by default the stored facts are
        refreshed (on ``scheduler`` or ``workers`` local processes when there is much to
        compute) and an in-memory connection reads only the fact parts the filters need
        (see `pruned_database`).

    Returns
    -------
    polars.DataFrame
        One row per player and currency (and ``by`` value), most hands first. Ratios are
        fractions 0..1 (null without an opportunity); ``net_won`` and ``rake_paid`` are decimals
        in the ``currency`` column's unit.
    """
    import polars as pl

    if isinstance(players, str):
        players = [players]
    names = None if players is None else [str(name) for name in players]
    if limit is not None and limit not in LIMITS:
        raise ValueError(f"limit {limit!r} is not one of {', '.join(LIMITS)}")
    if by is not None and by not in BY_DIMENSIONS:
        raise ValueError(f"by {by!r} is not one of {', '.join(BY_DIMENSIONS)}")
    if min_hands is not None and min_hands < 0:
        raise ValueError("min_hands must be >= 0")
    stakes_small, stakes_big = parse_stakes(stakes) if stakes is not None else (None, None)
    if isinstance(aliases, (str, os.PathLike)):
        aliases = load_aliases(aliases)
    alias_accounts, alias_persons = alias_lists(aliases)
    parameters = {
        "players": names,
        "site": site,
        "game": game,
        "limit": limit,
        "stakes_small": stakes_small,
        "stakes_big": stakes_big,
        "since": _as_date(since, "since"),
        "until": _as_date(until, "until"),
        "by": by,
        "min_hands": min_hands,
        "alias_accounts": alias_accounts,
        "alias_persons": alias_persons,
    }
    query = """
        select * from rpt_player_stats(
            filter_players := cast($players as varchar[]),
            filter_site := cast($site as varchar),
            filter_game := cast($game as varchar),
            filter_limit := cast($limit as varchar),
            filter_stakes_small := cast($stakes_small as varchar),
            filter_stakes_big := cast($stakes_big as varchar),
            filter_since := cast($since as date),
            filter_until := cast($until as date),
            group_dimension := cast($by as varchar),
            minimum_hands := cast($min_hands as bigint),
            alias_accounts := cast($alias_accounts as varchar[]),
            alias_persons := cast($alias_persons as varchar[])
        )
    """
    own = connection is None
    database = (
        pruned_database(
            Path(dataset),
            names,
            aliases,
            site,
            limit,
            (stakes_small, stakes_big),
            parameters["since"],
            parameters["until"],
            scheduler=scheduler,
            workers=workers,
        )
        if connection is None
        else connection
    )
    try:
        table = database.sql(query, params=parameters).to_arrow_table()
    finally:
        if own:
            database.close()
    frame = pl.from_arrow(table)
    assert isinstance(frame, pl.DataFrame)
    if not counts:
        frame = frame.select(STAT_COLUMNS)
    if by is None:
        frame = frame.drop("group_value")
    else:
        if by == "site":  # one site per row: the group replaces the list of sites
            frame = frame.drop("site")
        frame = frame.rename({"group_value": by})
        order = list(
            dict.fromkeys(c for c in ("player", "site", "currency", by) if c in frame.columns)
        )
        frame = frame.select(*order, *[c for c in frame.columns if c not in order])
    return frame


def pruned_database(
    root: Path,
    players: list[str] | None = None,
    aliases: Aliases | None = None,
    site: str | None = None,
    limit: str | None = None,
    stakes: tuple[str | None, str | None] = (None, None),
    since: dt.date | None = None,
    until: dt.date | None = None,
    *,
    scheduler: str | None = None,
    workers: int | None = None,
    facts: RefreshSummary | None = None,
    refresh: bool = True,
) -> duckdb.DuckDBPyConnection:
    """An in-memory connection whose ``fct_`` views read only the fact parts the filters need.

    Parts are left out by site, by day range (the first and last day of each part's hands,
    kept in the facts manifest) and by stakes and limit (each part's distinct stakes); with
    ``players``, the account facts read only the parts whose account filter may hold the
    accounts the players can mean (`pipeline.account_filter`), and only those accounts' rows,
    a filter DuckDB checks against each row group of the (account-sorted) parts. The
    ``rpt_player_stats`` macro still applies every filter exactly: this only skips reading.
    The connection holds the ``fct_`` views and the ``rpt_`` macros (with the models they read),
    nothing else. ``facts`` is a refresh done already (without it and with ``refresh``, one is
    done here); when the facts cannot be stored (no ``facts`` after that), everything is
    computed in memory (`open_database`).
    """
    from pipeline.account_filter import may_hold

    if facts is None and refresh:
        facts = refresh_stored_facts(root, scheduler=scheduler, workers=workers)
    if facts is None:
        return open_database(root, persistent=False, stored_facts=False)
    if facts.computed or facts.removed or not (root / DATABASE_NAME).exists():
        _update_database_views(root, facts)
    small, big = (Decimal(value) if value is not None else None for value in stakes)
    accounts = _accounts_meant(players, aliases)

    def keep(part: FactPart) -> bool:
        if site is not None and part.site != site:
            return False
        if accounts is not None and part.model in ACCOUNT_FACTS:
            if not may_hold(part.accounts, accounts):
                return False
        if since is not None and (part.last_day is None or part.last_day < since):
            return False
        if until is not None and (part.first_day is None or part.first_day > until):
            return False
        if limit is not None or small is not None or big is not None:
            return any(
                (limit is None or kind == limit)
                and (small is None or (scale is not None and low == small * scale))
                and (big is None or (scale is not None and high == big * scale))
                for kind, scale, low, high in part.stakes
            )
        return True

    everything = fact_paths(root, facts)
    chosen = fact_paths(root, facts, keep)
    models = model_files()
    facts_only = all(everything.get(stem) for stem, _ in models if stem.startswith(MATERIALISED))
    connection = connect(":memory:")
    try:
        connection.execute("begin transaction")
        if not facts_only:  # a dataset without hands: empty views over the source views
            load_models(connection, register_sources(connection, root), facts=everything)
        for model, paths in chosen.items():
            if paths:
                fact_view(connection, model, paths, accounts if model in ACCOUNT_FACTS else None)
            elif everything.get(model):  # nothing selected: no rows, the model's columns
                fact_view(connection, model, everything[model][:1], [])
        if facts_only:
            _load_reports(connection, root, models)
        connection.execute("commit")
    except BaseException:
        connection.close()
        raise
    return connection


def _load_reports(
    connection: duckdb.DuckDBPyConnection, root: Path, models: list[tuple[str, str]]
) -> None:
    """The ``rpt_`` macros and the models they read, over the ``fct_`` views; the dataset's
    views only if one of them reads the dataset (today none does)."""
    from pipeline.facts import model_dependencies

    texts = dict(models)
    materialised = [stem for stem in texts if stem.startswith(MATERIALISED)]
    needed: set[str] = set()
    read: set[str] = set()
    for stem in texts:
        if stem.startswith("rpt_"):
            names, sources = model_dependencies(stem, texts, materialised)
            needed.update(name for name in names if not name.startswith(MATERIALISED))
            read.update(sources)
    if read & {*SOURCE_TABLES, *AUDIT_TABLES}:
        register_sources(connection, root)
    for stem, text in models:
        if stem in needed:
            connection.execute(_model_statement(stem, text))


def _accounts_meant(players: list[str] | None, aliases: Aliases | None) -> list[str] | None:
    """Every screen name a ``--player`` value can select (a superset: the macro decides)."""
    if players is None:
        return None
    names = set(players)
    for player in players:
        if ":" in player:
            names.add(player.split(":", 1)[1])
    for account, person in (aliases or {}).items():
        if person in players:
            names.add(account.split(":", 1)[1])
    return sorted(names)


def _update_database_views(root: Path, facts: RefreshSummary) -> None:
    """Create ``DATASET/hilo.duckdb`` or point its views at the new fact parts (best effort: a
    locked or unwritable file is left as it is, and repaired by the next ``hilo query``)."""
    import duckdb

    try:
        open_database(root, facts=facts).close()
    except (duckdb.Error, OSError):
        pass


def stats_table_columns(frame: pl.DataFrame) -> Sequence[str]:
    """The columns ``hilo stats --format table`` prints (the rest go to csv, json, parquet)."""
    wanted = ("player", "site", "currency", *BY_DIMENSIONS, "hands", *TABLE_COLUMNS)
    seen: list[str] = []
    for column in wanted:
        if column in frame.columns and column not in seen:
            seen.append(column)
    return seen
