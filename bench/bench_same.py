"""Sameness check: the current tree's parsers give the same canonical tables as REV's.

Run with ``python -m bench same --base REV``. The check

1. extracts REV (``git archive``) into a folder under the repository's parent (``--work``,
   default ``<repository>-same`` beside it; an extraction is kept and reused per commit);
2. generates an archive of every site ``hilo generate --site`` writes (``HANDS_PER_SITE``
   hands each, a fixed seed, ``FAULT_RATE`` of them deliberately mis-recorded) and takes every
   file of the shared corpus (`tests.shared_data.CORPUS`; skipped, with a message, when absent);
3. parses every input twice, in one child process per side, each with its own tree first on
   ``PYTHONPATH`` and as working directory (the same interpreter: the dependencies are the
   same), writing every table `parsers.parse_bytes` returns (rejects and notes included) to
   Parquet, and the accounting to ``result.json``; a parser with a reference path (PokerStars'
   block parser) parses the input a second time by it (``<table>.reference.parquet``);
4. compares the two sides input by input and table by table, and prints the first differing
   rows of every table that differs.

Exit status 1 when any table or accounting differs (or a side fails), 0 when all are equal.
The parsing children are limited to one thread each and run one after the other.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPOSITORY = Path(__file__).resolve().parent.parent
HANDS_PER_SITE = int(os.environ.get("HILO_SAME_HANDS", "3000"))
SEED = 18
FAULT_RATE = 0.05
RESULT_FILE = "result.json"
SHOWN_ROWS = 3  # differing rows printed per table

__all__ = ["RowDifference", "TableDifference", "compare_tables", "main"]


@dataclass(frozen=True)
class RowDifference:
    """One row (by position) where two tables differ, with the values of the columns that do."""

    index: int
    columns: tuple[str, ...]
    base: dict[str, Any]
    current: dict[str, Any]


@dataclass(frozen=True)
class TableDifference:
    """How two versions of one table differ: row counts, schemas and the first differing rows."""

    base_rows: int
    current_rows: int
    schema_note: str  # empty when the schemas are equal
    rows: tuple[RowDifference, ...]

    def lines(self) -> list[str]:
        """The difference as indented report lines."""
        out = [f"    rows: base {self.base_rows:,}, current {self.current_rows:,}"]
        if self.schema_note:
            out.append(f"    schema: {self.schema_note}")
        for row in self.rows:
            out.append(f"    row {row.index}: columns {', '.join(row.columns)}")
            out.append(f"      base    {row.base}")
            out.append(f"      current {row.current}")
        return out


def _same_value(left: object, right: object) -> bool:
    """Equal values; NaN equals NaN (a float column holding NaN on both sides is the same)."""
    if isinstance(left, float) and isinstance(right, float):
        return left == right or (math.isnan(left) and math.isnan(right))
    return left == right


def compare_tables(base: Any, current: Any, shown: int = SHOWN_ROWS) -> TableDifference | None:
    """None when two `pyarrow.Table`\\ s are equal (schema and rows, in order), otherwise their
    row counts, schema difference and up to ``shown`` first differing rows.

    Rows are compared by position: the parsers' tables have a deterministic order, and a row
    moved is a difference too. Columns only one side has are reported in the schema note and
    left out of the row comparison.
    """
    if base.schema.equals(current.schema) and base.equals(current):
        return None
    schema_note = ""
    if not base.schema.equals(current.schema):
        only_base = [name for name in base.column_names if name not in current.column_names]
        only_current = [name for name in current.column_names if name not in base.column_names]
        changed = [
            f"{name} {base.schema.field(name).type} -> {current.schema.field(name).type}"
            for name in base.column_names
            if name in current.column_names
            and base.schema.field(name).type != current.schema.field(name).type
        ]
        parts = []
        if only_base:
            parts.append(f"only in base: {', '.join(only_base)}")
        if only_current:
            parts.append(f"only in current: {', '.join(only_current)}")
        if changed:
            parts.append(f"types: {'; '.join(changed)}")
        if not parts and base.column_names != current.column_names:
            parts.append(f"column order {base.column_names} -> {current.column_names}")
        schema_note = "; ".join(parts) or "metadata differs"
    shared = [name for name in base.column_names if name in current.column_names]
    rows: list[RowDifference] = []
    batch = 10_000
    for start in range(0, max(base.num_rows, current.num_rows), batch):
        left = base.select(shared).slice(start, batch).to_pylist()
        right = current.select(shared).slice(start, batch).to_pylist()
        for offset in range(max(len(left), len(right))):
            left_row = left[offset] if offset < len(left) else {}
            right_row = right[offset] if offset < len(right) else {}
            columns = tuple(
                name
                for name in shared
                if name not in left_row
                or name not in right_row
                or not _same_value(left_row[name], right_row[name])
            )
            if columns:
                rows.append(
                    RowDifference(
                        start + offset,
                        columns,
                        {name: left_row.get(name, "<no row>") for name in columns},
                        {name: right_row.get(name, "<no row>") for name in columns},
                    )
                )
                if len(rows) >= shown:
                    break
        if len(rows) >= shown:
            break
    return TableDifference(base.num_rows, current.num_rows, schema_note, tuple(rows))


# ----------------------------------------------------------------------------------------------
# The child: parse inputs with whichever tree is first on sys.path.


def _parse_outcome(parse: Any, folder: Path, suffix: str = "") -> dict[str, object]:
    """Run ``parse()`` (a `parsers.ParseResult`, None or a raise); write its tables to
    ``folder/<table><suffix>.parquet`` and return its accounting."""
    import pyarrow.parquet as pq

    try:
        result = parse()
    except Exception as error:  # noqa: BLE001 - a raise is an outcome to compare
        return {"error": f"{type(error).__name__}: {error}"}
    if result is None:
        return {"recognised": False}
    for name, table in result.tables.items():
        pq.write_table(table, folder / f"{name}{suffix}.parquet")
    return {
        "recognised": True,
        "hands_found": result.hands_found,
        "parsed": result.parsed,
        "skipped": result.skipped,
        "rejected": result.rejected,
        "skipped_games": dict(sorted(result.skipped_games.items())),
        "tables": sorted(result.tables),
    }


def run_child(expected_root: Path, input_root: Path, listing: Path, out: Path) -> None:
    """Parse every input listed (one path relative to ``input_root`` a line) with the parsers
    found on ``sys.path``, which must be ``expected_root``'s; write the tables and accounting
    under ``out/<relative path>/``.

    A parser with a reference path (PokerStars' block parser, which takes only the hands the
    compiled reader does not read completely) parses the input a second time by it, its
    tables written as ``<table>.reference.parquet``: a change to the reference path shows
    even where the fast path hides it.
    """
    import parsers
    from parsers.text import decode_lines

    found = Path(parsers.__file__).resolve().parent.parent
    if found != expected_root.resolve():
        raise SystemExit(f"child imported parsers from {found}, expected {expected_root}")
    for relative in listing.read_text().splitlines():
        folder = out / relative
        folder.mkdir(parents=True, exist_ok=True)
        data = (input_root / relative).read_bytes()
        outcome = {"parse": _parse_outcome(lambda: parsers.parse_bytes(data, relative), folder)}
        try:
            decoded = decode_lines(data)
        except Exception:  # noqa: BLE001 - parse_bytes decodes too: its outcome has the raise
            reference = None
        else:
            parser = parsers.detect("\n".join(decoded.lines.head(20).to_list()))
            reference = getattr(parser, "parse_by_block_parser", None)
        if reference is not None:
            outcome["reference"] = _parse_outcome(
                lambda: reference(decoded.lines, decoded.offsets, relative), folder, ".reference"
            )
        (folder / RESULT_FILE).write_text(json.dumps(outcome, sort_keys=True) + "\n")


# ----------------------------------------------------------------------------------------------
# The parent: the base tree, the inputs, both sides and the comparison.


def _git(*arguments: str) -> str:
    return subprocess.run(
        ["git", *arguments], cwd=REPOSITORY, check=True, capture_output=True, text=True
    ).stdout.strip()


def extract_revision(revision: str, work: Path) -> tuple[str, Path]:
    """The commit ``revision`` names and a folder holding its tree (extracted once, reused)."""
    commit = _git("rev-parse", "--verify", f"{revision}^{{commit}}")
    tree = work / f"base-{commit[:12]}"
    marker = tree / ".extracted"
    if marker.exists():
        return commit, tree
    if tree.exists():
        shutil.rmtree(tree)
    tree.mkdir(parents=True)
    archive = subprocess.run(
        ["git", "archive", "--format=tar", commit], cwd=REPOSITORY, check=True, capture_output=True
    ).stdout
    with tempfile.TemporaryFile(dir=work) as handle:
        handle.write(archive)
        handle.seek(0)
        with tarfile.open(fileobj=handle) as tar:
            tar.extractall(tree, filter="data")
    marker.write_text(commit + "\n")
    return commit, tree


def generate_inputs(root: Path) -> list[str]:
    """Archives of every generator site under ``root/generated/<site>/``; their paths."""
    from pipeline.generate import generate
    from pipeline.generate.sites import SITES

    files: list[str] = []
    for site in SITES:
        target = root / "generated" / site
        summary = generate(
            HANDS_PER_SITE, SEED, target, site=site, fault_rate=FAULT_RATE, workers=1
        )
        texts = sorted(path for path in (target / site).rglob("*") if path.is_file())
        print(f"  generated {site}: {summary.hands:,} hands, {len(texts)} files", flush=True)
        files += [str(path.relative_to(root)) for path in texts]
    return files


def corpus_inputs(root: Path) -> list[str]:
    """Every file of the shared corpus, linked under ``root/corpus/``; their paths."""
    # Imported here: a parsing child runs this file with another tree's packages first.
    from tests.shared_data import CORPUS

    if not CORPUS.is_dir():
        print(f"  corpus not found at {CORPUS}: skipped", flush=True)
        return []
    files = []
    for path in sorted(path for path in CORPUS.rglob("*") if path.is_file()):
        relative = Path("corpus") / path.relative_to(CORPUS)
        link = root / relative
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(path)
        files.append(str(relative))
    print(f"  corpus: {len(files)} files", flush=True)
    return files


def parse_side(tree: Path, input_root: Path, listing: Path, out: Path) -> None:
    """Run the child for one side: ``tree`` first on the path and as the working directory."""
    environment = {
        **os.environ,
        "PYTHONPATH": str(tree),
        "POLARS_MAX_THREADS": "1",
        "NUMBA_NUM_THREADS": "1",
    }
    command = [sys.executable, str(Path(__file__).resolve()), "--child", str(tree)]
    command += [str(input_root), str(listing), str(out)]
    started = time.perf_counter()
    subprocess.run(command, cwd=tree, env=environment, check=True)
    print(f"  parsed with {tree} in {time.perf_counter() - started:.0f} s", flush=True)


def compare_input(base: Path, current: Path) -> tuple[list[str], dict[str, TableDifference | str]]:
    """The table names compared for one input and what differs (a `TableDifference`, or a
    note for accounting and tables only one side wrote)."""
    import pyarrow.parquet as pq

    differences: dict[str, TableDifference | str] = {}
    base_result = json.loads((base / RESULT_FILE).read_text())
    current_result = json.loads((current / RESULT_FILE).read_text())
    if base_result != current_result:
        differences[RESULT_FILE] = f"base {base_result} != current {current_result}"
    names = sorted({path.stem for path in [*base.glob("*.parquet"), *current.glob("*.parquet")]})
    for name in names:
        base_file, current_file = base / f"{name}.parquet", current / f"{name}.parquet"
        if not base_file.exists() or not current_file.exists():
            differences[name] = f"only {'current' if not base_file.exists() else 'base'} has it"
            continue
        difference = compare_tables(pq.read_table(base_file), pq.read_table(current_file))
        if difference is not None:
            differences[name] = difference
    return names, differences


def main(arguments: list[str] | None = None) -> int:
    """Compare REV's parsers with the current tree's on every input; 1 if anything differs."""
    parser = argparse.ArgumentParser(prog="python -m bench same", description=__doc__)
    parser.add_argument("--base", default="HEAD", help="the revision to compare with")
    parser.add_argument(
        "--work",
        type=Path,
        default=REPOSITORY.parent / f"{REPOSITORY.name}-same",
        help="folder for the extracted revision, the inputs and both sides' tables",
    )
    options = parser.parse_args(arguments or [])
    work: Path = options.work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    commit, base_tree = extract_revision(options.base, work)
    print(f"same: {options.base} ({commit[:12]}) against the tree at {REPOSITORY}", flush=True)
    run = work / "run"
    if run.exists():
        shutil.rmtree(run)
    input_root = run / "inputs"
    input_root.mkdir(parents=True)
    inputs = generate_inputs(input_root) + corpus_inputs(input_root)
    listing = run / "inputs.txt"
    listing.write_text("".join(f"{name}\n" for name in inputs))
    parse_side(base_tree, input_root, listing, run / "base")
    parse_side(REPOSITORY, input_root, listing, run / "current")

    tables = identical = 0
    differing: list[tuple[str, str, TableDifference | str]] = []
    for name in inputs:
        compared, differences = compare_input(run / "base" / name, run / "current" / name)
        tables += len(compared)
        identical += len([table for table in compared if table not in differences])
        differing += [(name, table, difference) for table, difference in differences.items()]
    print(
        f"same: {len(inputs)} inputs compared, {tables} tables: {identical} identical,"
        f" {len([entry for entry in differing if entry[1] != RESULT_FILE])} differing;"
        f" accounting differing for"
        f" {len([entry for entry in differing if entry[1] == RESULT_FILE])} inputs"
    )
    for name, table, difference in differing:
        print(f"  DIFFERS {name} :: {table}")
        if isinstance(difference, str):
            print(f"    {difference}")
        else:
            for line in difference.lines():
                print(line)
    return 1 if differing else 0


if __name__ == "__main__":
    if len(sys.argv) == 6 and sys.argv[1] == "--child":
        run_child(*(Path(argument) for argument in sys.argv[2:]))
    else:
        sys.exit(main(sys.argv[1:]))
