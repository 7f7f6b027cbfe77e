"""Stored per-part facts: incremental, fingerprinted, kill-safe, same on Dask.

The reference everywhere is the one-pass computation of the models over the whole dataset
(``open_database(..., stored_facts=False)``: the code path before facts were stored per part).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from pipeline import facts as facts_module
from pipeline.audit import run_audit
from pipeline.facts import FACTS_DIRECTORY, read_fact_manifest, refresh_facts
from pipeline.generate import generate
from pipeline.ingest import ingest
from pipeline.stats import DATABASE_NAME, compute_stats, open_database

REPO = Path(__file__).resolve().parent.parent
FACT_MODELS = (
    "fct_hand_players", "fct_hand_summary", "fct_player_counts", "fct_player_totals"
)  # a part each
BATCH_BYTES = 200_000  # many small ingest parts
SUMMARY = "fct_hand_summary"  # the one fact model that does not read the audit


FACT_KEYS = {
    "fct_hand_players": ["site", "hand_id", "player"],
    "fct_player_counts": ["site", "account", "currency", "position", "game", "stakes", "started_on"],
}


def reference_facts(root: Path, model: str = "fct_hand_players") -> pl.DataFrame:
    """The one-pass facts; its 128-bit sums as int64, as the stored parts hold them."""
    connection = open_database(root, persistent=False, stored_facts=False)
    try:
        frame = connection.sql(f"select * from {model}").pl()
    finally:
        connection.close()
    wide = [name for name, kind in frame.schema.items() if kind == pl.Decimal(38, 0)]
    return frame.with_columns(pl.col(wide).cast(pl.Int64)).sort(FACT_KEYS[model])


def stored_facts(root: Path, model: str = "fct_hand_players") -> pl.DataFrame:
    connection = open_database(root, persistent=False)
    try:
        frame = connection.sql(f"select * from {model}").pl()
    finally:
        connection.close()
    return frame.sort(FACT_KEYS[model])


def reference_stats(root: Path, **filters: object) -> pl.DataFrame:
    connection = open_database(root, persistent=False, stored_facts=False)
    try:
        options: dict[str, object] = {"counts": True, "connection": connection, **filters}
        return compute_stats(root, **options)  # type: ignore[arg-type]
    finally:
        connection.close()


def assert_same_stats(root: Path, **filters: object) -> None:
    keys = ["player", "site", "currency"]
    new = compute_stats(root, counts=True, **filters)  # type: ignore[arg-type]
    old = reference_stats(root, **filters)
    by = filters.get("by")
    if isinstance(by, str) and by in new.columns:
        keys.append(by)
    keys = [key for key in keys if key in new.columns]
    assert_frame_equal(new.sort(keys, nulls_last=True), old.sort(keys, nulls_last=True))


def fact_files(root: Path) -> dict[str, int]:
    return {
        path.relative_to(root).as_posix(): path.stat().st_mtime_ns
        for path in (root / FACTS_DIRECTORY).rglob("*.parquet")
        if path.name != "facts.parquet"
    }


def assert_manifest_describes_its_files(root: Path) -> None:
    """Each manifest row's rows, days, stakes and account filter equal what DuckDB finds in
    the file it names."""
    import duckdb

    from pipeline.account_filter import account_filter

    connection = duckdb.connect()
    try:
        for part in read_fact_manifest(root):
            rows = connection.sql("select * from read_parquet(?)", params=[str(root / part.path)])
            assert part.rows == rows.aggregate("count(*)").fetchall()[0][0]
            columns = set(rows.columns)
            if {"started_on", "limit_type", "money_scale", "stakes_small_minor"} <= columns:
                days = rows.aggregate("min(started_on), max(started_on)").fetchall()[0]
                assert (part.first_day, part.last_day) == days
                stakes = (
                    rows.select("limit_type, money_scale, stakes_small_minor, stakes_big_minor")
                    .distinct()
                    .order("all")
                    .fetchall()
                )
                assert part.stakes == tuple(stakes)
            else:
                assert (part.first_day, part.last_day, part.stakes) == (None, None, ())
            if "account" in columns:
                names = rows.filter("account is not null").select("account").distinct()
                assert part.accounts == account_filter(name for (name,) in names.fetchall())
    finally:
        connection.close()


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("facts-archive")
    generate(1200, 21, out, workers=1)
    generate(600, 22, out / "more", workers=1)
    return out


def _ingest(paths: list[Path], root: Path) -> None:
    with ThreadPoolExecutor(1) as executor:
        ingest(paths, root, executor=executor, batch_bytes=BATCH_BYTES)


@pytest.fixture()
def first(tmp_path: Path, archive: Path) -> Path:
    root = tmp_path / "dataset"
    _ingest([archive / "pokerstars"], root)
    run_audit(root, rake_schedule="generated")
    return root


def test_facts_equal_one_pass_and_only_new_parts_are_computed(first: Path, archive: Path) -> None:
    summary = refresh_facts(first)
    assert set(summary.parts) == set(FACT_MODELS)
    assert summary.computed == len(FACT_MODELS) * len(summary.parts["fct_hand_players"]) > 3
    assert_frame_equal(stored_facts(first), reference_facts(first))
    assert_manifest_describes_its_files(first)
    # Counts are per part: a day of one account may be in two parts; their sums are the same.
    dimensions = [
        "site", "account", "currency", "money_scale", "position", "game", "limit_type", "stakes",
        "stakes_small_minor", "stakes_big_minor", "started_on", "month",
    ]  # fmt: skip
    stored, reference = (
        frame.group_by(dimensions).agg(pl.all().sum()).sort(dimensions, nulls_last=True)
        for frame in (
            stored_facts(first, "fct_player_counts"), reference_facts(first, "fct_player_counts")
        )
    )
    assert_frame_equal(stored, reference)
    assert_same_stats(first)
    before = fact_files(first)
    # Nothing changed: nothing computed.
    again = refresh_facts(first)
    assert again.computed == 0 and again.kept == summary.computed
    assert fact_files(first) == before

    _ingest([archive / "more" / "pokerstars"], first)  # a new session, not audited yet
    hand_parts = {part.hand_part for part in summary.parts["fct_hand_players"]}
    later = refresh_facts(first)
    new_parts = {part.hand_part for part in later.parts["fct_hand_players"]} - hand_parts
    assert later.computed == len(FACT_MODELS) * len(new_parts) > 0
    assert later.kept == summary.computed
    after = fact_files(first)
    assert {path: after[path] for path in before} == before  # old facts untouched
    assert_frame_equal(stored_facts(first), reference_facts(first))
    assert_same_stats(first)
    assert_same_stats(first, by="position")
    assert_same_stats(first, by="month")

    # A new audit (the new hands get payouts): the parts that read the audit are recomputed.
    run_audit(first, rake_schedule="generated")
    audited = refresh_facts(first)
    readers_of_the_audit = len(FACT_MODELS) - 1  # all but SUMMARY
    assert audited.computed == readers_of_the_audit * len(audited.parts["fct_hand_players"])
    assert_frame_equal(stored_facts(first), reference_facts(first))
    # The replaced facts are gone; the manifest names exactly the files there are.
    listed = {part.path for part in read_fact_manifest(first)}
    assert listed == set(fact_files(first))


def test_a_refresh_with_nothing_changed_only_reads_the_manifest(
    first: Path, archive: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    summary = refresh_facts(first)
    planned: list[int] = []
    plan = facts_module.plan_facts

    def counting_plan(*arguments: object) -> object:
        planned.append(1)
        return plan(*arguments)  # type: ignore[arg-type]

    monkeypatch.setattr(facts_module, "plan_facts", counting_plan)
    again = refresh_facts(first)
    assert not planned and again.computed == 0
    assert again.parts == summary.parts

    # A fact file gone: planned again, and that part computed again.
    gone = summary.parts["fct_player_totals"][0]
    (first / gone.path).unlink()
    repaired = refresh_facts(first)
    assert len(planned) == 1 and repaired.computed == 1
    assert (first / gone.path).is_file()

    # New hands, a new audit: each plans again once, then the record holds.
    _ingest([archive / "more" / "pokerstars"], first)
    assert refresh_facts(first).computed > 0 and len(planned) == 2
    run_audit(first, rake_schedule="generated")
    assert refresh_facts(first).computed > 0 and len(planned) == 3
    assert refresh_facts(first).computed == 0 and len(planned) == 3
    assert_frame_equal(stored_facts(first), reference_facts(first))

    # A facts manifest that is not the one recorded (another writer, a restore): planned.
    manifest = first / FACTS_DIRECTORY / "facts.parquet"
    os.utime(manifest, ns=(manifest.stat().st_atime_ns, manifest.stat().st_mtime_ns + 1))
    assert refresh_facts(first).computed == 0 and len(planned) == 4


def test_parts_too_large_for_arrow_are_written_by_duckdb_with_the_same_facts(
    first: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(facts_module, "ARROW_HANDS", 0)  # every part takes DuckDB's path
    summary = refresh_facts(first)
    assert summary.computed == len(FACT_MODELS) * len(summary.parts["fct_hand_players"])
    assert_frame_equal(stored_facts(first), reference_facts(first))
    assert_same_stats(first)
    assert_same_stats(first, by="stakes")
    manifest = read_fact_manifest(first)
    assert all(part.first_day is not None for part in manifest if part.model != "fct_player_totals")
    assert_manifest_describes_its_files(first)


def test_a_model_change_recomputes_what_reads_it(
    first: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import pipeline.stats as stats

    summary = refresh_facts(first)
    original = stats.model_files()

    def with_unused_model() -> list[tuple[str, str]]:
        return [*original, ("int_unused", "-- int_unused: nothing\nselect 1 as one")]

    monkeypatch.setattr(stats, "model_files", with_unused_model)
    assert refresh_facts(first).computed == 0  # fct_hand_players does not read it

    def with_changed_staging() -> list[tuple[str, str]]:
        return [
            (stem, text + "\n-- changed\n" if stem == "stg_actions" else text)
            for stem, text in original
        ]

    monkeypatch.setattr(stats, "model_files", with_changed_staging)
    changed = refresh_facts(first)
    # fct_hand_players (and the counts and totals over it) read stg_actions; the summary does not
    assert changed.computed == summary.computed - len(summary.parts[SUMMARY])

    def with_changed_counts() -> list[tuple[str, str]]:
        return [
            (stem, text + "\n-- changed\n" if stem == "fct_player_counts" else text)
            for stem, text in with_changed_staging()
        ]

    # Only the counts change: they (and the totals) are computed again from the stored parts.
    monkeypatch.setattr(stats, "model_files", with_changed_counts)
    hand_players = {
        path: mtime for path, mtime in fact_files(first).items() if "/fct_hand_players/" in path
    }
    found: list[str | None] = []
    stored_fact = facts_module._stored_fact

    def spy(*arguments: object) -> str | None:
        found.append(stored_fact(*arguments))  # type: ignore[arg-type]
        return found[-1]

    monkeypatch.setattr(facts_module, "_stored_fact", spy)
    counts_only = refresh_facts(first)  # the counts, and the totals that read them
    assert counts_only.computed == 2 * len(counts_only.parts["fct_player_counts"]) > 3
    assert found and None not in found  # every upstream part read from its file
    assert {
        path: mtime for path, mtime in fact_files(first).items() if "/fct_hand_players/" in path
    } == hand_players
    assert_same_stats(first)
    assert_same_stats(first, by="position")


def test_filters_read_only_the_parts_they_need(first: Path) -> None:
    refresh_facts(first)
    months = sorted(
        {part.first_day for part in read_fact_manifest(first) if part.first_day is not None}
    )
    assert len(months) > 1
    since = months[len(months) // 2].isoformat()
    for filters in (
        {"since": since},
        {"until": since},
        {"since": since, "until": since},
        {"stakes": "0.05/0.10"},
        {"limit": "FL"},
        {"limit": "PL", "by": "stakes"},
        {"site": "pokerstars", "by": "site"},
        {"site": "fulltilt"},
    ):
        assert_same_stats(first, **filters)
    everyone = compute_stats(first)
    some = everyone["player"].head(3).to_list()
    assert_same_stats(first, players=some)
    assert_same_stats(first, players=[f"pokerstars:{some[0]}", "nobody"], by="position")
    assert compute_stats(first, players=["nobody"]).height == 0


def test_a_player_query_reads_the_parts_that_hold_the_player(
    first: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import pipeline.stats as stats

    summary = refresh_facts(first)
    holding: dict[str, set[str]] = {}
    for part in summary.parts["fct_hand_players"]:
        table = pl.read_parquet(first / part.path, columns=["account"])
        for account in table["account"].drop_nulls().unique().to_list():
            holding.setdefault(account, set()).add(str((first / part.path).resolve()))
    rarest = min(sorted(holding), key=lambda account: len(holding[account]))
    total = len(summary.parts["fct_hand_players"])
    assert len(holding[rarest]) <= total // 2  # else the test shows nothing
    read: dict[str, list[str]] = {}
    view = stats.fact_view

    def spy(connection: object, stem: str, paths: list[str], accounts: object = None) -> None:
        read[stem] = list(paths)
        view(connection, stem, paths, accounts)  # type: ignore[arg-type]

    monkeypatch.setattr(stats, "fact_view", spy)
    assert_same_stats(first, players=[rarest])
    assert set(read["fct_hand_players"]) >= holding[rarest]  # never a part that holds it left out
    assert len(read["fct_hand_players"]) < total


def test_database_holds_views_and_no_copy_of_the_facts(first: Path) -> None:
    import duckdb

    open_database(first).close()
    connection = duckdb.connect(str(first / DATABASE_NAME), read_only=True)
    try:
        tables = connection.sql("select table_name from duckdb_tables()").fetchall()
        count = connection.sql("select count(*) from fct_hand_players").fetchall()[0][0]
    finally:
        connection.close()
    assert tables == []
    assert count == reference_facts(first).height
    size = (first / DATABASE_NAME).stat().st_size
    parquet = sum(path.stat().st_size for path in first.rglob("*.parquet"))
    assert size < parquet


def test_a_refresh_stopped_part_way_leaves_the_committed_facts(first: Path) -> None:
    expected = reference_stats(first)
    with pytest.raises(RuntimeError, match="stopped after 2"):
        refresh_facts(first, fail_after=2)
    committed = read_fact_manifest(first)
    assert 0 < len(committed) <= 3
    for part in committed:
        assert (first / part.path).is_file()
    summary = refresh_facts(first)
    assert summary.kept == len(committed)
    assert not list((first / FACTS_DIRECTORY).rglob("*.tmp"))
    keys = ["player", "site", "currency"]
    assert_frame_equal(compute_stats(first, counts=True).sort(keys), expected.sort(keys))


KILL_SCRIPT = """
import os, signal, sys
from pipeline.facts import refresh_facts

def progress(done, total):
    if done == int(sys.argv[2]):
        os.kill(os.getpid(), signal.SIGKILL)

refresh_facts(sys.argv[1], progress=progress)
"""


@pytest.mark.parametrize("after", [1, 4])
def test_sigkilled_refresh_then_rerun_gives_the_same_results(
    first: Path, tmp_path: Path, after: int
) -> None:
    expected = reference_stats(first)
    result = subprocess.run(
        [sys.executable, "-c", KILL_SCRIPT, str(first), str(after)],
        cwd=REPO,
        capture_output=True,
        text=True,
        env={**os.environ, "HILO_FACTS_INLINE_HANDS": "1000000000"},
    )
    assert result.returncode == -signal.SIGKILL, result.stderr
    # What a reader sees now is what was committed: every listed file is whole.
    for part in read_fact_manifest(first):
        assert (first / part.path).is_file()
    keys = ["player", "site", "currency"]
    assert_frame_equal(compute_stats(first, counts=True).sort(keys), expected.sort(keys))
    assert not list((first / FACTS_DIRECTORY).rglob("*.tmp"))


def test_local_processes_give_the_same_facts(first: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(first, copy)
    refresh_facts(first)
    refresh_facts(copy, workers=2)
    assert_frame_equal(stored_facts(copy), stored_facts(first))


def test_unwritable_stats_folder_computes_in_memory(
    first: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise PermissionError(13, "Permission denied")

    expected = reference_stats(first)
    monkeypatch.setattr(facts_module, "refresh_facts", refuse)
    keys = ["player", "site", "currency"]
    assert_frame_equal(compute_stats(first, counts=True).sort(keys), expected.sort(keys))
    assert "(Permission denied); using memory" in capsys.readouterr().err


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as local_cluster:
        yield local_cluster.scheduler_address


@pytest.mark.dask
@pytest.mark.slow
def test_dask_two_workers_give_identical_stats(first: Path, tmp_path: Path, cluster: str) -> None:
    from typer.testing import CliRunner

    from pipeline.cli import app

    copy = tmp_path / "copy"
    shutil.copytree(first, copy)
    summary = refresh_facts(copy, scheduler=cluster)
    assert summary.computed > 3
    assert_frame_equal(stored_facts(copy), reference_facts(first))
    result = CliRunner().invoke(
        app, ["stats", str(first), "--format", "csv", "--counts", "--scheduler", cluster]
    )
    assert result.exit_code == 0, result.output
    assert read_fact_manifest(first)  # the CLI computed them on the cluster
    keys = ["player", "site", "currency"]
    # Sums are exact; a float ratio may differ in its last bits with the summation order.
    assert_frame_equal(
        compute_stats(first, counts=True).sort(keys),
        compute_stats(copy, counts=True).sort(keys),
        check_exact=False,
        rel_tol=1e-12,
    )
    assert_frame_equal(
        compute_stats(first, counts=True).sort(keys),
        reference_stats(copy).sort(keys),
        check_exact=False,
        rel_tol=1e-12,
    )


def test_each_part_reads_only_its_audit_files_even_after_compaction(first: Path) -> None:
    from pipeline.compact import compact
    from pipeline.facts import audit_files, plan_facts
    from pipeline.stats import AUDIT_TABLES, _manifest_parts

    def plan() -> list[facts_module.FactTask]:
        absolute = _manifest_parts(first)
        base = first.resolve()
        parts = {
            table: [Path(path).relative_to(base).as_posix() for path in paths]
            for table, paths in absolute.items()
            if table != "files"
        }
        audit = {view: audit_files(first, name) for view, name in AUDIT_TABLES.items()}
        readers = [task for task in plan_facts(first, parts, audit) if task.model != SUMMARY]
        assert readers
        return readers  # the fact models that read the audit

    run_audit(first, rake_schedule="generated", unit_hands=300)  # several units
    every = {path for task in plan() for view, files in task.inputs if view == "audit_payouts"
             for path in files}  # fmt: skip
    assert len(every) > 2
    assert all(
        0 < len(dict(task.inputs)["audit_payouts"]) < len(every) for task in plan()
    )  # a part reads its own unit's payouts, not the site's
    refresh_facts(first)
    compact(first, target_rows=10**9)  # merged parts: the audit's files name parts now gone
    tasks = plan()
    assert any(len(dict(task.inputs)["audit_payouts"]) == len(every) for task in tasks)
    assert_frame_equal(stored_facts(first), reference_facts(first))
    assert_same_stats(first)


def test_wide_sums_are_stored_as_int64_or_fail_loudly(tmp_path: Path) -> None:
    """A model's 128-bit integer sums are written as int64, sorted rows and all; a sum beyond
    int64 raises rather than rounds (as DuckDB's cast to bigint did before)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from pipeline.stats import connect

    connection = connect(":memory:", threads=1)
    try:
        relation = connection.sql(
            "select account, sum(amount::bigint) * 1000000 as micros"
            " from (values ('b', 2), ('a', 1)) as rows(account, amount) group by account"
        )
        assert [str(kind) for kind in relation.types][-1] == "HUGEINT"
        written = facts_module._write_in_arrow(
            relation.to_arrow_table(), ["micros"], ["account"], tmp_path / "part.parquet"
        )
        stored = pq.read_table(tmp_path / "part.parquet")
        assert stored.equals(written)
        assert stored.schema.field("micros").type == pa.int64()
        assert stored.to_pylist() == [
            {"account": "a", "micros": 1_000_000},
            {"account": "b", "micros": 2_000_000},
        ]
        too_large = connection.sql(
            "select sum(x) * 10 as micros from (values (4611686018427387904)) as rows(x)"
        )
        with pytest.raises(pa.ArrowInvalid):
            facts_module._write_in_arrow(
                too_large.to_arrow_table(), ["micros"], [], tmp_path / "large.parquet"
            )
    finally:
        connection.close()
