"""The per-unit audit (`run_audit`) against the whole-table audit (`audit_tables`).

A generated archive is ingested as many small parts, then audited in units much smaller than
the dataset (whole parts grouped, and large parts cut into row ranges). The union of the
units' files must be exactly what `audit_tables` finds over all the tables at once, whether
the units run here or on a pool of worker processes.
"""

from __future__ import annotations

import itertools
import multiprocessing
import shutil
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import polars as pl
import pytest

from pipeline.audit import (
    DISCREPANCY_SCHEMA,
    PAYOUT_SCHEMA,
    AuditSummary,
    audit_tables,
    plan_units,
    run_audit,
)
from pipeline.dataset import read_table

TABLES = ("hands", "seats", "actions", "collections", "showdowns")
UNIT_HANDS = 300  # small parts of ~80 hands are grouped, the large part is cut


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from pipeline.generate import generate
    from pipeline.ingest import ingest

    root = tmp_path_factory.mktemp("units")
    generate(
        2500, 31, root / "generated", limit="mix", tournament_share=0.3, fault_rate=0.05, workers=1
    )
    files = sorted((root / "generated" / "pokerstars").iterdir())
    # The first files one part each (grouped into units), the rest as one large part (cut).
    small = ingest(files[:8], root / "dataset", workers=1, batch_bytes=1)
    large = ingest(files[8:], root / "dataset", workers=1, batch_bytes=1 << 30)
    assert not small.errors and not large.errors
    return root / "dataset"


def read_outputs(root: Path, name: str, schema: dict[str, pl.DataType]) -> pl.DataFrame:
    paths = sorted((root / "audit" / name).glob("site=*/part-*.parquet"))
    if not paths:
        return pl.DataFrame(schema=schema)
    frame = pl.read_parquet(paths, hive_partitioning=True)
    return frame.select([pl.col(column).cast(kind) for column, kind in schema.items()])


def canonical(frame: pl.DataFrame) -> pl.DataFrame:
    return frame.sort(frame.columns, nulls_last=True)


def whole_table_audit(root: Path):  # type: ignore[no-untyped-def]
    tables = {name: pl.from_arrow(read_table(root, name)) for name in TABLES}
    return audit_tables(**tables, rake_schedule="generated")  # type: ignore[arg-type]


def check_same_as_whole(root: Path, summary: AuditSummary) -> None:
    whole = whole_table_audit(root)
    payouts = read_outputs(root, "payouts", PAYOUT_SCHEMA)
    discrepancies = read_outputs(root, "discrepancies", DISCREPANCY_SCHEMA)
    assert canonical(payouts).equals(canonical(whole.payouts))
    assert canonical(discrepancies).equals(canonical(whole.discrepancies))
    assert summary.hands == whole.hands
    assert summary.unevaluable == whole.unevaluable
    assert summary.payouts == whole.payouts.height
    by_kind = dict(whole.discrepancies.group_by("kind").len().sort("kind").iter_rows())
    assert summary.findings_by_kind == by_kind
    for kind, examples in summary.examples.items():
        expected = whole.discrepancies.filter(pl.col("kind") == kind)["hand_id"]
        assert examples == expected.unique(maintain_order=True).head(3).to_list()


def test_units_group_and_cut_parts(dataset: Path) -> None:
    units, hand_parts, _ = plan_units(dataset, UNIT_HANDS)
    assert len(hand_parts) >= 5, "the fixture should have many parts"
    assert any(unit.rows is not None for unit in units), "no part was cut into row ranges"
    assert any(len(unit.parts) > 1 for unit in units), "no parts were grouped"
    # Every hand is in exactly one unit.
    cut = [unit for unit in units if unit.rows is not None]
    for part in {unit.parts[0] for unit in cut}:
        ranges = sorted(unit.rows for unit in cut if unit.parts[0] == part)  # type: ignore[type-var]
        assert ranges[0][0] == 0
        assert all(a[1] == b[0] for a, b in itertools.pairwise(ranges))


def test_per_unit_audit_equals_whole_table_audit(dataset: Path) -> None:
    # A file of an earlier layout must not survive the run.
    stale = dataset / "audit" / "payouts" / "site=pokerstars" / "part-0.parquet"
    stale.parent.mkdir(parents=True, exist_ok=True)
    pl.DataFrame({"x": [1]}).write_parquet(stale)
    summary = run_audit(dataset, "generated", unit_hands=UNIT_HANDS)
    assert not stale.exists()
    check_same_as_whole(dataset, summary)
    # The fixture holds every kind of money finding the generator injects, and a rerun
    # writes the same files.
    assert {"odd_chip", "rake", "hand_description"} <= set(summary.findings_by_kind)
    before = sorted(p.name for p in (dataset / "audit").rglob("*.parquet"))
    run_audit(dataset, "generated", unit_hands=UNIT_HANDS)
    assert sorted(p.name for p in (dataset / "audit").rglob("*.parquet")) == before


def test_process_pool_writes_the_same_files(dataset: Path, tmp_path: Path) -> None:
    run_audit(dataset, "generated", unit_hands=UNIT_HANDS)
    local = {
        path.relative_to(dataset / "audit"): pl.read_parquet(path)
        for path in (dataset / "audit").rglob("*.parquet")
    }
    copy = tmp_path / "copy"
    shutil.copytree(dataset, copy, ignore=shutil.ignore_patterns("audit"))
    context = multiprocessing.get_context("spawn")
    done: list[tuple[int, int]] = []
    with ProcessPoolExecutor(max_workers=2, mp_context=context) as executor:
        summary = run_audit(
            copy,
            "generated",
            executor=executor,
            progress=lambda finished, total: done.append((finished, total)),
            unit_hands=UNIT_HANDS,
        )
    pooled = {
        path.relative_to(copy / "audit"): pl.read_parquet(path)
        for path in (copy / "audit").rglob("*.parquet")
    }
    assert set(pooled) == set(local)
    for name, frame in local.items():
        assert pooled[name].equals(frame), name
    assert done[-1][0] == done[-1][1] == len(done)
    check_same_as_whole(copy, summary)


def test_a_hand_in_two_parts_is_audited_once(dataset: Path, tmp_path: Path) -> None:
    """Ingest keeps a hand once, but a dataset built otherwise may hold a hand twice; the
    copy in the later part must not be audited a second time."""
    import pyarrow as pa

    from pipeline.dataset import commit_manifest, read_manifest
    from pipeline.ingest import ingest

    archive = sorted((dataset.parent / "generated" / "pokerstars").iterdir())
    root = tmp_path / "twice"
    ingest([archive[0]], root, workers=1)
    alone = run_audit(root, "generated")
    alone_payouts = canonical(read_outputs(root, "payouts", PAYOUT_SCHEMA))
    alone_findings = canonical(read_outputs(root, "discrepancies", DISCREPANCY_SCHEMA))
    # Every part copied under a later part name and committed as another input file.
    manifest = read_manifest(root)
    copied = []
    for part in manifest.column("parts")[0].as_py():
        target = part.rsplit("/", 1)[0] + "/part-ffffffffffffffffffff.parquet"
        shutil.copyfile(root / part, root / target)
        copied.append(target)
    row = manifest.slice(0, 1).to_pylist()[0]
    row.update(path=str(tmp_path / "copy.txt"), sha256="0" * 64, parts=copied)
    commit_manifest(root, pa.Table.from_pylist([row], schema=manifest.schema))
    assert len(plan_units(root)[1]) == 2
    again = run_audit(root, "generated")
    assert again.hands == alone.hands
    assert again.payouts == alone.payouts
    assert canonical(read_outputs(root, "payouts", PAYOUT_SCHEMA)).equals(alone_payouts)
    assert canonical(read_outputs(root, "discrepancies", DISCREPANCY_SCHEMA)).equals(alone_findings)


def test_row_order_of_the_tables_changes_nothing(dataset: Path) -> None:
    """The fast paths assume a hand's rows are together and in order; shuffled tables take
    the slow paths (one key lookup per row, a sort before the replay) to the same result."""
    tables = {name: pl.from_arrow(read_table(dataset, name)) for name in TABLES}
    ordered = audit_tables(**tables, rake_schedule="generated")  # type: ignore[arg-type]
    shuffled = {
        name: frame.sample(fraction=1.0, shuffle=True, seed=5)  # type: ignore[union-attr]
        for name, frame in tables.items()
    }
    again = audit_tables(**shuffled, rake_schedule="generated")  # type: ignore[arg-type]
    assert canonical(again.payouts).equals(canonical(ordered.payouts))
    assert canonical(again.discrepancies).equals(canonical(ordered.discrepancies))
    assert ordered.discrepancies.height > 0


def test_first_copies_tell_whether_any_hand_is_repeated(tmp_path: Path) -> None:
    """The button check skips keeping first copies only when no hand is present twice: in
    two parts (which also names the part of the first copy) or twice in one part."""
    from pipeline.audit import _first_copies

    def write_parts(*parts: list[str]) -> list[str]:
        folder = tmp_path / f"case{len(list(tmp_path.iterdir()))}"
        names = []
        for number, hand_ids in enumerate(parts):
            name = f"hands/site=x/part-{number}.parquet"
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            pl.DataFrame({"site": ["x"] * len(hand_ids), "hand_id": hand_ids}).write_parquet(
                folder / name
            )
            names.append(name)
        return [str(folder), *names]

    root, *parts = write_parts(["1", "2"], ["3"])
    assert _first_copies(Path(root), parts) == ({}, False)
    root, *parts = write_parts(["1", "2", "2"], ["3"])
    assert _first_copies(Path(root), parts) == ({}, True)
    root, *parts = write_parts(["1", "2"], ["2", "3"])
    assert _first_copies(Path(root), parts) == ({("x", "2"): "site=x/part-0.parquet"}, True)
    assert _first_copies(Path(root), []) == ({}, False)


def test_moved_buttons_are_found_per_unit_as_in_memory(dataset: Path, tmp_path: Path) -> None:
    """The generated hands move the button right; here every fifth hand of a part has it one
    seat on, so the button check (run once over the dataset, not per unit) has findings."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    root = tmp_path / "buttons"
    shutil.copytree(dataset, root, ignore=shutil.ignore_patterns("audit"))
    part = max((root / "hands").rglob("part-*.parquet"), key=lambda path: path.stat().st_size)
    table = pq.read_table(part)
    button = pl.col("button_seat")
    moved = (
        pl.from_arrow(table.select(["button_seat"]))
        .select(pl.when(pl.int_range(pl.len()) % 5 == 0).then(button % 6 + 1).otherwise(button))
        .to_series()
    )
    index = table.schema.get_field_index("button_seat")
    column = pa.array(moved.to_list(), type=table.schema.field(index).type)
    pq.write_table(table.set_column(index, table.schema.field(index), column), part)
    summary = run_audit(root, "generated", unit_hands=UNIT_HANDS)
    assert summary.findings_by_kind.get("button", 0) > 0
    check_same_as_whole(root, summary)
