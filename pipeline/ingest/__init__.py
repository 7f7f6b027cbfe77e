"""Ingest hand-history files, folders and archives into the Parquet dataset.

The driver (:func:`ingest`, `driver`) expands the inputs into :class:`Source` objects and groups
them into batches (`sources`), submits one task per batch to an executor and commits each result
as it completes: it renames the task's temporary parts into place and writes a manifest part
(see :mod:`pipeline.dataset` for the layout and the commit protocol).

A task (`task`) streams each source in blocks of a few MB, so memory stays bounded whatever the
size of a file or archive: a block is cut at the last hand start, the lines before it are parsed,
and the bytes of the unfinished hand are carried into the next block. Rows are buffered (at most
about ``flush_rows`` plus one block's rows) and written as row groups of one Parquet part per
(table, site, month) for the whole batch (`parts`).

Every input file ends in the manifest, with its counts or an ``error``; every hand ends parsed,
skipped (other game) or in ``rejects``. Nothing raises for a bad file or hand; only bad
arguments (a path that does not exist) and an unwritable output folder do.
"""

from pipeline.ingest.driver import IngestSummary, ingest
from pipeline.ingest.parts import BatchResult, BatchTask, FileOutcome
from pipeline.ingest.sources import (
    BATCH_BYTES,
    BLOCK_BYTES,
    InputError,
    Source,
    expand_inputs,
    plan_batches,
)

__all__ = [
    "BATCH_BYTES",
    "BLOCK_BYTES",
    "BatchResult",
    "BatchTask",
    "FileOutcome",
    "IngestSummary",
    "InputError",
    "Source",
    "expand_inputs",
    "ingest",
    "plan_batches",
]
