"""Compaction: rewrite the many small parts of a partition into few large ones, atomically.

Every ingest batch writes one part per (table, site, month) it touches, so a large archive ingested
in many runs (or a busy site ingested daily) leaves thousands of small files in a partition, and
reading them costs more than reading their rows. :func:`compact` merges them:

1. under the dataset's lock, remove what no manifest names (a killed earlier run's litter);
2. in each partition folder (``site=…/month=…``), group the small parts by part id and write each
   group of two or more as one new part per table, under a temporary name renamed into place
   (new parts are orphans until step 3: readers go through the manifest and never see them);
3. write one manifest part with every row, its ``parts`` pointing at the new files, that
   supersedes all earlier manifest parts: the one commit point (:func:`pipeline.dataset.commit_manifest`);
4. delete the superseded manifest parts and the replaced parts (:func:`pipeline.dataset.remove_orphans`).

A kill before step 3 leaves the old dataset plus orphans, after it the new one plus garbage; both
read the same rows, and the next ingest or compaction removes the garbage. A second run finds
nothing to merge and changes nothing.

A group keeps one part id across tables: a hand's rows in ``hands``, ``seats``, ``actions``, …
stay in files of the same name, which the statistics rely on to work a chunk of parts at a time.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import pyarrow as pa
import pyarrow.parquet as pq

from pipeline import dataset
from pipeline.schema import FILES, HAND_TABLES, REJECTS

__all__ = ["TARGET_ROWS", "CompactSummary", "compact", "plan_groups"]

# Rows of one merged group, all its tables together (about 28 per generated hand, most of them
# actions). Parts from half of it up are left alone; merged groups hold between half and all of
# it: about 140,000-280,000 hands, 22-45 MB over all tables, the ``actions`` file 9-18 MB
# (measured). Not more: the statistics work a chunk of whole part ids at a time, sized for about
# 250,000 hands. Counted in rows, not bytes: a merged file compresses better than its inputs, and
# a size that shrank on merging would be merged again by the next run.
TARGET_ROWS = 8_000_000
ROW_GROUP_ROWS = 250_000  # rows per row group written (memory holds about one)


@dataclass
class CompactSummary:
    """What one :func:`compact` run did."""

    dataset: Path
    partitions: int = 0  # partition folders with parts merged
    parts_before: int = 0  # part files replaced
    parts_after: int = 0  # part files written in their place
    rows: int = 0  # rows rewritten
    manifests_before: int = 0
    manifests_after: int = 0

    def line(self) -> str:
        """Return the one-line summary printed by the CLI."""
        return (
            f"partitions {self.partitions} · parts {self.parts_before} → {self.parts_after}"
            f" · rows rewritten {self.rows}"
            f" · manifest files {self.manifests_before} → {self.manifests_after}"
        )


def plan_groups(sizes: dict[str, int], target: int) -> list[list[str]]:
    """Group the part names of one partition (``name -> rows``) into merges.

    Only parts smaller than half the target take part; in name order they fill a group until it
    holds half the target or more, so a group stays under the target. Groups of one part are
    dropped (nothing to merge). After a run a partition has at most one part below half the
    target, so the next run plans nothing: compaction is idempotent.

    >>> plan_groups({"a": 10, "b": 10, "c": 90, "d": 30, "e": 5}, target=100)
    [['a', 'b', 'd']]
    """
    groups: list[list[str]] = []
    current: list[str] = []
    filled = 0
    for name in sorted(sizes):
        if sizes[name] * 2 >= target:
            continue
        current.append(name)
        filled += sizes[name]
        if filled * 2 >= target:
            groups.append(current)
            current, filled = [], 0
    groups.append(current)
    return [group for group in groups if len(group) > 1]


def compact(
    root: str | Path,
    *,
    target_rows: int = TARGET_ROWS,
    on_wait: Callable[[], None] | None = None,
) -> CompactSummary:
    """Merge the small parts of every partition of the dataset at ``root``; see the module.

    Raises
    ------
    FileNotFoundError
        ``root`` is not a hilo dataset.
    """
    root = Path(root)
    if not (root / dataset.MANIFEST).is_dir():
        raise FileNotFoundError(f"not a hilo dataset (no files manifest): {root}")
    summary = CompactSummary(dataset=root)
    with dataset.dataset_lock(root, on_wait):
        dataset.remove_orphans(root)
        manifests = dataset.live_manifest_paths(root)
        manifest = dataset.read_manifest(root)
        summary.manifests_before = summary.manifests_after = len(manifests)
        renamed = _merge_partitions(root, _referenced(manifest), target_rows, summary)
        if not renamed and len(manifests) <= 1:
            return summary
        dataset.commit_manifest(root, _renamed_rows(manifest, renamed), supersedes=manifests)
        summary.manifests_after = 1
        dataset.remove_orphans(root)
    return summary


def _referenced(manifest: pa.Table) -> list[str]:
    parts: set[str] = set()
    for listed in manifest.column("parts").to_pylist():
        parts.update(listed or ())
    return sorted(parts)


def _merge_partitions(
    root: Path, parts: list[str], target_rows: int, summary: CompactSummary
) -> dict[str, str]:
    """Write the merged parts; return ``old relative path -> new relative path``."""
    # partition folder (without the table) -> part name -> table -> relative path
    layout: dict[str, dict[str, dict[str, str]]] = {}
    for relative in parts:
        path = PurePosixPath(relative)
        table, partition = path.parts[0], "/".join(path.parts[1:-1])
        if table not in dataset.PART_TABLES or not partition:
            continue  # tables other modules own (their layout is theirs) stay as they are
        layout.setdefault(partition, {}).setdefault(path.name, {})[table] = relative
    renamed: dict[str, str] = {}
    for partition, names in sorted(layout.items()):
        sizes = {
            name: sum(pq.read_metadata(root / relative).num_rows for relative in tables.values())
            for name, tables in names.items()
        }
        groups = plan_groups(sizes, target_rows)
        if groups:
            summary.partitions += 1
        for group in groups:
            new_name = dataset.part_name(dataset.stable_id(["compacted", partition, *group]))
            tables = sorted({table for name in group for table in names[name]})
            for table in tables:
                inputs = [names[name][table] for name in group if table in names[name]]
                output = f"{table}/{partition}/{new_name}"
                summary.rows += _merge_files(root, table, inputs, output)
                summary.parts_before += len(inputs)
                summary.parts_after += 1
                renamed.update(dict.fromkeys(inputs, output))
    return renamed


def _merge_files(root: Path, table: str, inputs: list[str], output: str) -> int:
    """Write the rows of ``inputs`` in order as ``output`` (temporary file, then rename)."""
    schema = HAND_TABLES.get(table, REJECTS)
    target = root / output
    temporary = dataset.new_temporary_path(target.parent)
    pending: list[pa.Table] = []
    pending_rows = rows = 0
    try:
        with pq.ParquetWriter(temporary, schema, **dataset.parquet_options(schema)) as writer:
            for relative in inputs:
                source = pq.ParquetFile(root / relative)
                for index in range(source.num_row_groups):
                    group = source.read_row_group(index).select(schema.names).cast(schema)
                    pending.append(group)
                    pending_rows += group.num_rows
                    rows += group.num_rows
                    if pending_rows >= ROW_GROUP_ROWS:
                        writer.write_table(pa.concat_tables(pending).combine_chunks())
                        pending, pending_rows = [], 0
            if pending:
                writer.write_table(pa.concat_tables(pending).combine_chunks())
        dataset.fsync_file(temporary)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    temporary.replace(target)
    dataset.fsync_directory(target.parent)
    return rows


def _renamed_rows(manifest: pa.Table, renamed: dict[str, str]) -> pa.Table:
    """The manifest with each row's ``parts`` pointing at the merged files."""
    parts = [
        sorted({renamed.get(part, part) for part in listed or ()})
        for listed in manifest.column("parts").to_pylist()
    ]
    index = manifest.schema.get_field_index("parts")
    column = pa.array(parts, type=FILES.field("parts").type)
    return manifest.set_column(index, FILES.field("parts"), column)
