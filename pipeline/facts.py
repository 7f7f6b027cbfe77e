"""Per-part statistics facts: the ``fct_`` models computed per ingest part, stored as Parquet.

::

    DATASET/stats/
      .hilo.lock                                           one refresh at a time
      facts.parquet                                        the facts manifest (the commit point)
      plan.json                                            the inputs the manifest is complete for
      fct_hand_players/site=S/month=M/part-<id>-<fp>.parquet
                                                the facts of hands/site=S/month=M/part-<id>

A ``fct_`` model's rows for a hand depend only on that hand's rows (hands, seats, actions,
collections: all in parts of one relative path) and on the audit's outputs for it, so each hands
part gets its own fact part, computed by one task: DuckDB in memory over that part's files (the
audit's outputs of its site, narrowed to its hands), with a memory limit, writing a temporary
file. Tasks run on the same `concurrent.futures.Executor` as ingest and audit (local processes,
or Dask with ``--scheduler``), or in this process when there is little to do.

A fact part's *fingerprint* digests the SQL of its model and of every model it reads (not the
others), and the path, size and modification time of each input file it reads (the audit's files
only when the model reads the audit): equal fingerprints, equal facts. The fingerprint is in the
file name, so a file of a name always holds the same facts.

Commit protocol, as ingest: a task writes ``.part-<random>.tmp``; the driver renames it to its
final name and then rewrites ``facts.parquet`` (temporary file, ``os.replace``), which lists the
fact parts that are current. Readers read only what ``facts.parquet`` lists, so a refresh killed
at any moment leaves the facts that were committed, and the next refresh computes the rest and
deletes what no manifest row names (under ``stats/.hilo.lock``). The refresh is *lazy*: it runs
at the start of ``hilo stats``, ``query``, ``report`` and ``run``'s stats stage (never inside
``hilo ingest``), and computes only the hands parts whose fingerprint changed — after an ingest,
the new parts; after ``compact``, the merged ones; after a model change, the parts of the models
that read it; after a new audit, every part of the sites it rewrote. When nothing changed since
the last refresh (``plan.json`` holds a digest of the models, of every committed part and audit
file by path, size and modification time, and of ``facts.parquet``), the refresh reads only the
manifest.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import os
import time
import warnings
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from concurrent.futures import Executor, Future, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import pyarrow as pa
import pyarrow.parquet as pq

if TYPE_CHECKING:
    import duckdb

__all__ = [
    "FACTS_DIRECTORY",
    "FACTS_MANIFEST",
    "FactPart",
    "FactTask",
    "compute_fact_part",
    "model_dependencies",
    "plan_facts",
    "read_fact_manifest",
    "refresh_facts",
]

FACTS_DIRECTORY = "stats"
FACTS_MANIFEST = "facts.parquet"
FACTS_VERSION = "hilo-facts-1"
# The inputs and facts manifest of the last refresh that left nothing to compute: while they
# stay the same, a refresh only reads the manifest (planning costs ~0.1 s per million hands).
PLAN_CACHE = "plan.json"
# A task's DuckDB memory (several tasks run at once; beyond it DuckDB spills to disk).
TASK_MEMORY = os.environ.get("HILO_FACTS_MEMORY", "512MiB")
# Fact parts are sorted by account, in row groups of this many rows, so that a query for a few
# players reads only the row groups whose account range holds them.
ROW_GROUP_ROWS = 16_384
# Fewer hands than this to compute: run in this process (starting workers costs more).
INLINE_HANDS = int(os.environ.get("HILO_FACTS_INLINE_HANDS", "60000"))
# Small parts are computed several to a task, up to this many hands.
BATCH_HANDS = 20_000
# Parts of up to this many hands are sorted in Arrow and written by pyarrow, 2x faster than
# DuckDB's sort and writer (measured on a 20,000-hand part); larger ones (compacted parts: up to
# ~280,000 hands) by DuckDB, which keeps to the task's memory limit by spilling.
ARROW_HANDS = 60_000
# Parts of up to this many hands run their model once, straight to Arrow. Binding it first as a
# relation (for its columns and types) plans it twice: ~20 ms of fct_hand_players' ~100 ms on
# a part of 100 hands. Larger parts take the relation, whose result is not copied again (a
# DB-API result's Arrow table is: +40 MiB peak on a part of 20,000 hands).
RUN_ONCE_HANDS = 2_000
# Fact parts are sorted by these of their columns (account first: see ROW_GROUP_ROWS).
SORT_COLUMNS = ("account", "player", "site", "hand_id")
# Columns whose values seldom repeat within a row group (one a hand, or a stack): stored
# without a dictionary, which only added to them (fct_hand_players: 13 % smaller, 10 % faster to
# write, on a 20,000-hand part).
PLAIN_COLUMNS = frozenset({"hand_id", "started_at", "stack_start"})
# DuckDB's 128-bit integers (sums of int64), stored as int64.
WIDE_INTEGERS = ("HUGEINT", "UHUGEINT")
# Commit the manifest at least this often while tasks complete (a kill loses at most that).
COMMIT_SECONDS = 5.0

# A fact part's distinct stakes: these columns of its rows.
STAKE_COLUMNS = ("limit_type", "money_scale", "stakes_small_minor", "stakes_big_minor")
Stakes = tuple[str | None, int | None, int | None, int | None]
STAKES_TYPE = pa.struct(
    [
        ("limit_type", pa.string()),
        ("money_scale", pa.int64()),
        ("small", pa.int64()),
        ("big", pa.int64()),
    ]
)
MANIFEST_SCHEMA = pa.schema(
    [
        ("model", pa.string()),
        ("hand_part", pa.string()),  # hands/site=…/month=…/part-<id>.parquet
        ("fingerprint", pa.string()),
        ("path", pa.string()),  # stats/<model>/site=…/month=…/part-<id>-<fp>.parquet
        ("rows", pa.int64()),
        ("site", pa.string()),
        ("first_day", pa.date32()),  # of the dated hands (null: none dated)
        ("last_day", pa.date32()),
        ("stakes", pa.list_(STAKES_TYPE)),  # the distinct stakes of its hands
        ("accounts", pa.binary()),  # which accounts it may hold (pipeline.account_filter)
    ]
)


@dataclass(frozen=True)
class FactTask:
    """One fact part to compute: ``model`` over the hands part ``hand_part``.

    ``inputs`` maps each source view the model reads to its files for this part (paths
    relative to the dataset); views not listed are empty.
    """

    model: str
    hand_part: str
    site: str
    inputs: tuple[tuple[str, tuple[str, ...]], ...]
    fingerprint: str
    output: str
    hands: int = 0  # the hands part's rows, read only for a task that is computed
    memory_limit: str = TASK_MEMORY
    threads: int = 1


@dataclass(frozen=True)
class FactPart:
    """A committed (or just computed) fact part: one row of ``facts.parquet``."""

    model: str
    hand_part: str
    fingerprint: str
    path: str
    rows: int
    site: str
    first_day: dt.date | None
    last_day: dt.date | None
    stakes: tuple[Stakes, ...] = ()
    accounts: bytes | None = None  # a filter of its accounts; None: no account column, or unknown


@dataclass
class RefreshSummary:
    """What a refresh did, and the fact parts that are current after it, per model."""

    parts: dict[str, list[FactPart]] = field(default_factory=dict)
    computed: int = 0
    kept: int = 0
    removed: int = 0
    seconds: float = 0.0


# -- the models a fact model reads -------------------------------------------------------------


def model_dependencies(
    stem: str, models: Mapping[str, str], given: Iterable[str] = ()
) -> tuple[list[str], set[str]]:
    """The models ``stem`` reads, transitively, in creation order, and the sources it reads;
    the models in ``given`` (read from stored facts) are listed but not followed."""
    from pipeline.stats import _references

    needed: list[str] = []
    sources: set[str] = set()
    seen: set[str] = set()
    stops = set(given)

    def visit(name: str) -> None:
        if name in seen:
            return
        seen.add(name)
        for reference in sorted(() if name in stops else _references(models[name])):
            if reference in models and reference != name:
                visit(reference)
            elif reference not in models:
                sources.add(reference)
        needed.append(name)

    visit(stem)
    return needed, sources


# -- the plan ------------------------------------------------------------------------------------


def _file_key(root: Path, relative: str) -> str:
    stat = os.stat(root / relative)
    return f"{relative}\t{stat.st_size}\t{stat.st_mtime_ns}"


@dataclass(frozen=True)
class AuditFiles:
    """One audit output's files of one site, and which of them cover each hands part.

    ``by_part`` is None when some file does not say which parts it covers (written before
    that was recorded, or a unit that left repeated hands out): every part then reads all.
    """

    files: tuple[str, ...]
    by_part: Mapping[str, tuple[str, ...]] | None


def audit_files(root: Path, folder: str) -> dict[str, AuditFiles]:
    """The files of ``DATASET/audit/<folder>`` per site, with the parts each covers (read from
    their Parquet metadata, `pipeline.audit_outputs.HAND_PARTS_KEY`)."""
    import json

    from pipeline.audit_outputs import HAND_PARTS_KEY

    per_site: dict[str, list[str]] = {}
    for path in sorted((root / "audit" / folder).glob("site=*/part-*.parquet")):
        site = path.parent.name.removeprefix("site=")
        per_site.setdefault(site, []).append(path.relative_to(root).as_posix())
    result: dict[str, AuditFiles] = {}
    for site, files in per_site.items():
        by_part: dict[str, list[str]] | None = {}
        for relative in files:
            metadata = pq.read_schema(root / relative).metadata or {}
            covered = json.loads(metadata[HAND_PARTS_KEY]) if HAND_PARTS_KEY in metadata else None
            if covered is None or by_part is None:
                by_part = None
                continue
            for part in covered:
                by_part.setdefault(part, []).append(relative)
        result[site] = AuditFiles(
            tuple(files),
            None if by_part is None else {part: tuple(v) for part, v in by_part.items()},
        )
    return result


def _audit_files(
    per_site: Mapping[str, AuditFiles], site: str, hand_part: str, hand_parts: set[str]
) -> tuple[str, ...]:
    """The audit files that can hold payouts of ``hand_part``'s hands.

    A part no file covers was ingested after the audit (none), unless some file covers a part
    that is gone (compacted after the audit): then the part's hands may be in any file.
    """
    found = per_site.get(site)
    if found is None:
        return ()
    if found.by_part is None:
        return found.files
    if hand_part in found.by_part:
        return found.by_part[hand_part]
    if any(part not in hand_parts for part in found.by_part):
        return found.files
    return ()


def plan_facts(
    root: Path, parts: Mapping[str, list[str]], audit: Mapping[str, Mapping[str, AuditFiles]]
) -> list[FactTask]:
    """Every fact part the dataset should have now (computed or not).

    ``parts`` maps a dataset table to its committed parts (relative paths); ``audit`` maps an
    audit view (``audit_payouts``, …) to its files per site (`audit_files`).
    """
    from pipeline.stats import CHUNKED_TABLES, MATERIALISED, model_files

    models = dict(model_files())
    committed = {table: set(paths) for table, paths in parts.items()}
    hand_parts = committed.get("hands", set())
    stems = [stem for stem in models if stem.startswith(MATERIALISED)]
    plans = {}
    for stem in stems:
        needed, sources = model_dependencies(stem, models)
        digest = hashlib.sha256(FACTS_VERSION.encode())
        for name in needed:
            digest.update(f"{name}\n{models[name]}\n".encode())
        upstream = [name for name in needed[:-1] if name.startswith(MATERIALISED)]
        plans[stem] = (digest.hexdigest(), sources, upstream)
    # Part by part, each model after the fact models it reads, which it takes from their
    # part files (named by their fingerprints) instead of computing them again.
    tasks: list[FactTask] = []
    for hand_part in parts.get("hands", []):
        suffix = hand_part.removeprefix("hands/")
        site = suffix.split("/", 1)[0].removeprefix("site=")
        folder = Path(suffix).parent.as_posix()
        name = Path(suffix).name.removesuffix(".parquet")
        outputs: dict[str, str] = {}
        for stem in stems:
            model_digest, sources, upstream = plans[stem]
            inputs: list[tuple[str, tuple[str, ...]]] = []
            for table in CHUNKED_TABLES:
                candidate = f"{table}/{suffix}"
                if table in sources and candidate in committed.get(table, ()):
                    inputs.append((table, (candidate,)))
            for view in sorted(audit):
                if view in sources:
                    files = _audit_files(audit[view], site, hand_part, hand_parts)
                    inputs.append((view, files))
            digest = hashlib.sha256(model_digest.encode())
            for _, files in inputs:
                for relative in files:
                    digest.update(_file_key(root, relative).encode() + b"\n")
            for model in upstream:  # its file name is its fingerprint
                inputs.append((model, (outputs[model],)))
                digest.update(f"{outputs[model]}\n".encode())
            fingerprint = digest.hexdigest()[:20]
            output = f"{FACTS_DIRECTORY}/{stem}/{folder}/{name}-{fingerprint}.parquet"
            outputs[stem] = output
            tasks.append(
                FactTask(
                    model=stem,
                    hand_part=hand_part,
                    site=site,
                    inputs=tuple(inputs),
                    fingerprint=fingerprint,
                    output=output,
                )
            )
    return tasks


# -- one task --------------------------------------------------------------------------------------


def compute_fact_part(root: str, task: FactTask) -> tuple[FactPart, str]:
    """Compute ``task`` into a temporary file next to its output; return its row and the
    temporary file (relative). Runs in a worker: takes paths, returns names, never data."""
    return compute_fact_parts(root, [task])[0]


def compute_fact_parts(root: str, tasks: Sequence[FactTask]) -> list[tuple[FactPart, str]]:
    """`compute_fact_part` for several small tasks on one DuckDB connection (its set-up, about
    0.3 s, would otherwise dominate parts of a few hundred hands). The settings of the first
    task apply to all."""
    from pipeline.stats import connect, model_files, source_schemas

    base = Path(root)
    models = dict(model_files())
    schemas = source_schemas()
    connection = connect(
        ":memory:", memory_limit=tasks[0].memory_limit, threads=tasks[0].threads
    )
    connection.execute("set preserve_insertion_order = false")  # the parts are sorted after
    results = []
    created: set[str] = set()
    written: dict[str, str] = {}  # output -> this batch's temporary file (not renamed yet)
    # The rows just written for the current hands part, by output: the next models of the part
    # read them from memory rather than decode the file again (the same rows, in the same order).
    in_memory: dict[str, pa.Table] = {}
    hand_part: str | None = None
    try:
        for task in tasks:
            if task.hand_part != hand_part:  # no later task reads the last part's facts
                in_memory.clear()
                hand_part = task.hand_part
            part, temporary, table = _compute(
                connection, base, task, models, schemas, created, written, in_memory
            )
            written[task.output] = temporary
            if table is not None:
                in_memory[task.output] = table
            results.append((part, temporary))
    finally:
        connection.close()
    return results


def _compute(
    connection: duckdb.DuckDBPyConnection,
    base: Path,
    task: FactTask,
    models: Mapping[str, str],
    schemas: Mapping[str, pa.Schema],
    created: set[str],
    written: Mapping[str, str],
    in_memory: Mapping[str, pa.Table],
) -> tuple[FactPart, str, pa.Table | None]:
    """Compute ``task`` into a temporary file; return its manifest row, the file (relative) and
    the rows written when they were sorted in Arrow (None when DuckDB wrote them)."""
    from pipeline.dataset import fsync_file, new_temporary_path
    from pipeline.stats import MATERIALISED, Sources, _model_statement

    given = dict(task.inputs)
    # The fact models it reads come from this part's stored facts of them, where there are any.
    stored = {
        model: (found, outputs)
        for model, outputs in given.items()
        if model.startswith(MATERIALISED)
        and (found := _stored_fact(base, outputs, written)) is not None
    }
    needed, sources = model_dependencies(task.model, models, stored)
    if sources:  # the sources it reads (a view over one it does not read is not evaluated)
        paths = {
            view: [str(base / relative) for relative in given.get(view, ())]
            for view in schemas
            if view in sources
        }
        Sources(base, paths, dict(schemas)).point(connection, audit_of_hands=True)
    for stem in needed[:-1]:
        if stem in stored:
            path, outputs = stored[stem]
            table = next((in_memory[output] for output in outputs if output in in_memory), None)
            if table is None:
                relation = connection.sql("select * from read_parquet(?)", params=[path])
            else:  # the rows this batch just wrote to ``path``
                relation = connection.from_arrow(table)
            relation.create_view(stem, replace=True)
        elif stem.startswith(MATERIALISED):  # no stored facts of it: computed again
            body = models[stem].strip().rstrip(";")
            connection.execute(f"create or replace view {stem} as\n{body}")
        elif stem not in created:  # views bind by name: they follow the re-pointed sources
            connection.execute(_model_statement(stem, models[stem]))
            created.add(stem)
    body = models[task.model].strip().rstrip(";")
    temporary = new_temporary_path((base / task.output).parent)
    table = None
    if task.hands <= RUN_ONCE_HANDS:
        result = connection.execute(body)
        kinds = {name: str(kind) for name, kind, *_ in result.description}
        with warnings.catch_warnings():
            # "an extra copy of the rows": the reason larger parts take a relation instead
            warnings.simplefilter("ignore", UserWarning)
            computed = result.to_arrow_table()
    else:
        # The model bound once, as a relation: its columns and types come with it.
        relation = connection.sql(body)
        kinds = {name: str(kind) for name, kind in zip(relation.columns, relation.types)}
        computed = relation.to_arrow_table() if task.hands <= ARROW_HANDS else None
    columns = set(kinds)
    order = [c for c in SORT_COLUMNS if c in columns]
    wide = {name for name, kind in kinds.items() if kind in WIDE_INTEGERS}
    if computed is not None:
        table = _write_in_arrow(computed, wide, order, temporary)
        batches: Iterable[pa.RecordBatch] = table.to_batches()
    else:
        relation.create_view(task.model, replace=True)
        # Parquet has no 128-bit integer (DuckDB would write a double): sums of int64 amounts
        # are stored as int64, a cast that fails loudly rather than rounds if one overflowed.
        selected = ", ".join(
            f'cast("{name}" as bigint) as "{name}"' if name in wide else f'"{name}"'
            for name in kinds
        )
        ordering = f" order by {', '.join(order)} nulls last" if order else ""
        # Column names come from hilo's models; the path is a temporary name hilo made (hex).
        connection.execute(
            f"copy (select {selected} from {task.model}{ordering}) to '{temporary}'"
            f" (format parquet, compression zstd, row_group_size {ROW_GROUP_ROWS})"
        )
        summarised = ("account", "started_on", *STAKE_COLUMNS)
        # at least one column: a batch of none would have no rows to count
        wanted = [name for name in summarised if name in columns] or [next(iter(kinds))]
        batches = pq.ParquetFile(temporary).iter_batches(columns=wanted)
    fsync_file(temporary)
    rows, first, last, stakes, accounts = _summary(batches, columns)
    part = FactPart(
        model=task.model,
        hand_part=task.hand_part,
        fingerprint=task.fingerprint,
        path=task.output,
        rows=int(rows),
        site=task.site,
        first_day=first,
        last_day=last,
        stakes=stakes,
        accounts=accounts,
    )
    return part, temporary.relative_to(base).as_posix(), table


def _stored_fact(base: Path, outputs: Sequence[str], written: Mapping[str, str]) -> str | None:
    """The file holding an upstream fact part: written by this batch, or committed."""
    for output in outputs:
        if output in written:
            return str(base / written[output])
        if (base / output).is_file():
            return str(base / output)
    return None


def _write_in_arrow(
    table: pa.Table, wide: Collection[str], order: list[str], path: Path
) -> pa.Table:
    """The rows of ``table`` sorted by ``order`` (nulls last) into a Parquet file at
    ``path``; its ``wide`` (128-bit integer) columns as int64."""
    import pyarrow.compute as pc

    for name in wide:
        # Parquet has no 128-bit integer (DuckDB gives Arrow a decimal128): sums of int64
        # amounts are stored as int64, a cast that fails loudly rather than rounds if one
        # overflowed (as DuckDB's cast to bigint does).
        index = table.schema.get_field_index(name)
        table = table.set_column(index, name, table.column(index).cast(pa.int64()))
    if order:
        keys = [(column, "ascending") for column in order]  # nulls at the end: the default
        table = table.take(pc.sort_indices(table, sort_keys=keys))
    pq.write_table(
        table,
        path,
        compression="zstd",
        write_statistics=True,
        row_group_size=ROW_GROUP_ROWS,
        use_dictionary=[name for name in table.column_names if name not in PLAIN_COLUMNS],
    )
    return table


def _summary(
    batches: Iterable[pa.RecordBatch], columns: set[str]
) -> tuple[int, dt.date | None, dt.date | None, tuple[Stakes, ...], bytes | None]:
    """A fact part's manifest columns, from its rows: how many, the first and last day, the
    distinct stakes (in order, nulls last) and the filter of its accounts. Read batch by batch
    in Arrow, so a part written by DuckDB is never held whole, and with no query to plan (the
    three DuckDB queries it took cost ~7 ms a part, a tenth of a small part's whole task)."""
    import pyarrow.compute as pc

    from pipeline.account_filter import account_filter

    rows = 0
    days: list[dt.date] = []
    stakes: set[Stakes] = set()
    accounts: set[str] = set()
    has_accounts = "account" in columns
    dated = {"started_on", *STAKE_COLUMNS} <= columns
    for batch in batches:
        rows += batch.num_rows
        if has_accounts:
            accounts.update(pc.unique(batch.column("account")).drop_null().to_pylist())
        if dated and batch.num_rows:
            extremes = pc.min_max(batch.column("started_on"))
            if extremes["min"].is_valid:  # null only when the batch has no dated row
                days += [extremes["min"].as_py(), extremes["max"].as_py()]
            table = pa.Table.from_batches([batch.select(list(STAKE_COLUMNS))])
            for row in table.group_by(list(STAKE_COLUMNS)).aggregate([]).to_pylist():
                stakes.add(tuple(row[name] for name in STAKE_COLUMNS))
    filtered = account_filter(accounts) if has_accounts else None
    if not dated:
        return rows, None, None, (), filtered
    ordered = sorted(stakes, key=lambda key: tuple((value is None, value) for value in key))
    return rows, min(days, default=None), max(days, default=None), tuple(ordered), filtered


# -- the manifest ----------------------------------------------------------------------------------


def read_fact_manifest(root: Path) -> list[FactPart]:
    """The committed fact parts (every model), as ``facts.parquet`` lists them."""
    path = root / FACTS_DIRECTORY / FACTS_MANIFEST
    if not path.is_file():
        return []
    table = pq.read_table(path)
    columns = {name: table.column(name).to_pylist() for name in table.column_names}
    columns["stakes"] = [
        tuple((item["limit_type"], item["money_scale"], item["small"], item["big"]) for item in row)
        if row
        else ()
        for row in columns["stakes"]
    ]
    if "accounts" not in columns:  # written before the filters were kept: read every part
        columns["accounts"] = [None] * table.num_rows
    names = [field.name for field in dataclasses.fields(FactPart)]
    return [FactPart(*values) for values in zip(*(columns[name] for name in names), strict=True)]


def _commit(root: Path, parts: Iterable[FactPart]) -> None:
    """Replace ``facts.parquet`` with ``parts`` in one rename: the commit point."""
    from pipeline.dataset import fsync_directory, new_temporary_path, write_parquet

    ordered = sorted(parts, key=lambda part: (part.model, part.hand_part))
    table = pa.Table.from_pylist(
        [
            {
                "model": part.model,
                "hand_part": part.hand_part,
                "fingerprint": part.fingerprint,
                "path": part.path,
                "rows": part.rows,
                "site": part.site,
                "first_day": part.first_day,
                "last_day": part.last_day,
                "stakes": [
                    {"limit_type": a, "money_scale": b, "small": c, "big": d}
                    for a, b, c, d in part.stakes
                ],
                "accounts": part.accounts,
            }
            for part in ordered
        ],
        schema=MANIFEST_SCHEMA,
    )
    folder = root / FACTS_DIRECTORY
    temporary = new_temporary_path(folder)
    write_parquet(table, temporary)
    os.replace(temporary, folder / FACTS_MANIFEST)
    fsync_directory(folder)


def _remove_unlisted(root: Path, listed: set[str]) -> int:
    """Delete fact files and temporaries no manifest row names (under the stats lock)."""
    from pipeline.dataset import is_temporary

    folder = root / FACTS_DIRECTORY
    removed = 0
    if not folder.is_dir():
        return 0
    for directory, _, names in os.walk(folder):
        for name in names:
            path = Path(directory) / name
            relative = path.relative_to(root).as_posix()
            if path.parent == folder and name != FACTS_MANIFEST and not is_temporary(path):
                continue  # the lock file and anything else that is not a part
            if name == FACTS_MANIFEST and path.parent == folder:
                continue
            if is_temporary(path) or (name.endswith(".parquet") and relative not in listed):
                path.unlink(missing_ok=True)
                removed += 1
    return removed


# -- the refresh -----------------------------------------------------------------------------------


def refresh_facts(
    root: str | os.PathLike[str],
    *,
    executor: Executor | None = None,
    scheduler: str | None = None,
    workers: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    fail_after: int | None = None,
) -> RefreshSummary:
    """Bring ``DATASET/stats`` up to date with the committed dataset; return what is current.

    Parts whose fingerprint is committed already are kept; the others are computed, one task
    each, on ``executor`` (or one made from ``scheduler``/``workers``; in this process when
    fewer than `INLINE_HANDS` hands are to be computed and neither is given), committed as they
    complete. ``fail_after`` (tests) raises after that many parts were renamed into place.
    """
    from pipeline.dataset import dataset_lock
    from pipeline.executor import default_workers, make_executor
    from pipeline.stats import AUDIT_TABLES, _manifest_parts

    started = time.perf_counter()
    base = Path(root)
    folder = base / FACTS_DIRECTORY
    folder.mkdir(exist_ok=True)
    summary = RefreshSummary()
    with dataset_lock(folder):
        absolute = _manifest_parts(base)
        prefix = len(str(base.resolve())) + 1  # the paths are the resolved folder's, then "/"
        parts = {
            table: [path[prefix:] for path in paths]
            for table, paths in absolute.items()
            if table != "files"
        }
        inputs_key = _inputs_key(base, parts)
        cached = _cached_parts(base, inputs_key)
        if cached is not None:
            for part in cached:
                summary.parts.setdefault(part.model, []).append(part)
            summary.kept = len(cached)
            summary.seconds = time.perf_counter() - started
            return summary
        audit = {view: audit_files(base, name) for view, name in AUDIT_TABLES.items()}
        tasks = plan_facts(base, parts, audit)
        committed = {
            (part.model, part.hand_part, part.fingerprint): part
            for part in read_fact_manifest(base)
            if (base / part.path).is_file()
        }
        current: dict[tuple[str, str], FactPart] = {}
        todo: list[FactTask] = []
        for task in tasks:
            kept = committed.get((task.model, task.hand_part, task.fingerprint))
            if kept is None:
                hands = pq.read_metadata(base / task.hand_part).num_rows
                todo.append(dataclasses.replace(task, hands=hands))
            else:
                current[(task.model, task.hand_part)] = kept
        backfilled = _backfill_account_filters(base, current)
        summary.kept = len(current)
        listed = {part.path for part in committed.values()}
        summary.removed += _remove_unlisted(base, listed)
        if todo:
            stale = len(committed) != len(current) or backfilled
            inline = executor is None and scheduler is None and workers is None and (
                sum({task.hand_part: task.hands for task in todo}.values()) < INLINE_HANDS
                or default_workers() == 1
            )
            if inline:
                threads = default_workers()
                memory = _driver_memory()
                todo = [
                    dataclasses.replace(task, threads=threads, memory_limit=memory)
                    for task in todo
                ]
            own = None
            if not inline and executor is None:
                own = executor = make_executor(scheduler, workers)
            last_commit = time.monotonic()
            pending_commit = stale
            try:
                results = _run(base, todo, None if inline else executor)
                for done, (part, temporary) in enumerate(results, start=1):
                    os.replace(base / temporary, base / part.path)
                    current[(part.model, part.hand_part)] = part
                    summary.computed += 1
                    pending_commit = True
                    if progress is not None:
                        progress(done, len(todo))
                    if fail_after is not None and done >= fail_after:
                        raise RuntimeError(f"stopped after {done} fact parts (test)")
                    if time.monotonic() - last_commit > COMMIT_SECONDS:
                        _commit(base, current.values())
                        last_commit, pending_commit = time.monotonic(), False
            finally:
                if pending_commit and summary.computed:
                    _commit(base, current.values())
                if own is not None:
                    own.shutdown(wait=True, cancel_futures=True)
        elif len(committed) != len(current) or backfilled:
            _commit(base, current.values())
        if summary.computed or len(committed) != len(current):
            summary.removed += _remove_unlisted(base, {part.path for part in current.values()})
        _remember_plan(base, inputs_key)
    for part in sorted(current.values(), key=lambda part: part.hand_part):
        summary.parts.setdefault(part.model, []).append(part)
    summary.seconds = time.perf_counter() - started
    return summary


def _backfill_account_filters(root: Path, current: dict[tuple[str, str], FactPart]) -> bool:
    """Give the kept parts of account facts committed before the manifest kept account filters
    their filter, read from their own file (far cheaper than computing them again); return
    whether any was added."""
    from pipeline.account_filter import account_filter
    from pipeline.stats import ACCOUNT_FACTS

    added = False
    for key, part in current.items():
        if part.accounts is None and part.model in ACCOUNT_FACTS:
            column = pq.read_table(root / part.path, columns=["account"]).column("account")
            names = column.unique().drop_null().to_pylist()
            current[key] = dataclasses.replace(part, accounts=account_filter(names))
            added = True
    return added


def _inputs_key(root: Path, parts: Mapping[str, list[str]]) -> str:
    """A digest of everything a plan depends on but the facts manifest: the models' SQL, the
    committed parts and the audit's files, each file by path, size and modification time."""
    from pipeline.stats import AUDIT_TABLES, model_files

    digest = hashlib.sha256(FACTS_VERSION.encode())
    for stem, text in model_files():
        digest.update(f"{stem}\n{text}\n".encode())
    audit = [
        path.relative_to(root).as_posix()
        for folder in sorted(AUDIT_TABLES.values())
        for path in sorted((root / "audit" / folder).glob("site=*/part-*.parquet"))
    ]
    for table in sorted(parts):
        for relative in parts[table]:
            digest.update(_file_key(root, relative).encode() + b"\n")
    for relative in audit:
        digest.update(_file_key(root, relative).encode() + b"\n")
    return digest.hexdigest()


def _manifest_key(root: Path) -> str | None:
    path = root / FACTS_DIRECTORY / FACTS_MANIFEST
    return _file_key(root, path.relative_to(root).as_posix()) if path.is_file() else None


def _cached_parts(root: Path, inputs_key: str) -> list[FactPart] | None:
    """The committed fact parts when the last refresh ended with these inputs and this facts
    manifest (`PLAN_CACHE`), and every part it lists is there; None when a plan is needed."""
    import json

    try:
        cached = json.loads((root / FACTS_DIRECTORY / PLAN_CACHE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(cached, dict) or cached.get("inputs") != inputs_key:
        return None
    if cached.get("manifest") != _manifest_key(root):
        return None
    from pipeline.stats import ACCOUNT_FACTS

    parts = read_fact_manifest(root)
    if not all(os.path.isfile(root / part.path) for part in parts):
        return None
    if any(part.accounts is None and part.model in ACCOUNT_FACTS for part in parts):
        return None  # kept from before the account filters: the refresh adds them
    return parts


def _remember_plan(root: Path, inputs_key: str) -> None:
    """Record that the facts manifest is the whole plan of these inputs (best effort: without
    the record the next refresh plans again)."""
    import json

    from pipeline.dataset import new_temporary_path

    folder = root / FACTS_DIRECTORY
    record = {"inputs": inputs_key, "manifest": _manifest_key(root)}
    try:
        temporary = new_temporary_path(folder)
        temporary.write_text(json.dumps(record), encoding="utf-8")
        os.replace(temporary, folder / PLAN_CACHE)
    except OSError:
        pass


def _driver_memory() -> str:
    from pipeline.stats import DEFAULT_MEMORY_LIMIT

    return os.environ.get("HILO_DUCKDB_MEMORY") or DEFAULT_MEMORY_LIMIT


def _run(
    root: Path, tasks: list[FactTask], executor: Executor | None
) -> Iterable[tuple[FactPart, str]]:
    """Results in completion order: in this process, or one future per batch of tasks."""
    if executor is None:
        for batch in _batches(tasks, INLINE_HANDS):
            yield from compute_fact_parts(str(root), batch)
        return
    futures: list[Future[list[tuple[FactPart, str]]]] = [
        executor.submit(compute_fact_parts, str(root), batch)
        for batch in _batches(tasks, BATCH_HANDS)
    ]
    for future in as_completed(futures):
        yield from future.result()


def _batches(tasks: list[FactTask], hands: int) -> list[list[FactTask]]:
    """Consecutive tasks grouped up to ``hands`` hands (a larger part alone); the tasks of one
    hands part stay together, so a model reads the facts its batch wrote before it."""
    batches: list[list[FactTask]] = []
    current: list[FactTask] = []
    total = 0
    for task in tasks:
        new_part = not current or current[-1].hand_part != task.hand_part
        if new_part and current and total + task.hands > hands:
            batches.append(current)
            current, total = [], 0
        current.append(task)
        if new_part:
            total += task.hands
    if current:
        batches.append(current)
    return batches
