"""One ingest task, run by a worker: its sources read block by block, sniffed and parsed.

A block is cut at the last hand start, the lines before it are parsed, and the bytes of the
unfinished hand are carried into the next block, so memory stays bounded whatever the size of a
file. Only this module of the package imports the parsers: the driver never parses.
"""

from __future__ import annotations

import gzip
import hashlib
import zipfile
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import numpy as np
import polars as pl
import pyarrow as pa

import parsers
from parsers.base import ParseResult, SiteParser
from parsers.notes import line_shape
from parsers.text import UnreadableFile, decode_lines, decode_text, detect_encoding
from pipeline import dataset
from pipeline.ingest.parts import (
    BatchResult,
    BatchTask,
    FileOutcome,
    PartSink,
    close_batch,
    conform,
    file_reject,
    split_by_month,
)
from pipeline.ingest.sources import (
    BLOCK_BYTES,
    Refused,
    Source,
    ZipCache,
    hash_source,
    open_source,
    read_block,
)
from pipeline.schema import REJECTS

__all__ = [
    "MAX_CARRY_BYTES",
    "MAX_LINE_BYTES",
    "ingest_batch",
    "note_shapes",
]

SNIFF_BYTES = 64 << 10  # bytes looked at to tell text from binary data
SNIFF_TEXT_BYTES = 16 << 10  # text given to the format registry (every format shows by then)
SMALL_FILES_LINES = 400_000  # whole small files parsed together up to about this many lines
MAX_CARRY_BYTES = 4 * BLOCK_BYTES  # a "hand" longer than this is not a hand: parse what we have
MAX_LINE_BYTES = MAX_CARRY_BYTES  # a longer line is skipped and its hand quarantined
LONG_LINE_HEAD_BYTES = 4096  # what is decoded of such a line: does it open a hand?


class _SourceFailed(Exception):
    """A source failed after some of its rows were written: the batch restarts without it."""

    def __init__(self, index: int, outcome: FileOutcome) -> None:
        super().__init__(outcome.error)
        self.index = index
        self.outcome = outcome


def ingest_batch(task: BatchTask) -> BatchResult:
    """Parse the sources of ``task`` and write their rows as temporary parts.

    Returns the outcome of every source and the temporary files to rename into place; the
    driver commits them. A failure inside one source becomes that source's ``error``.
    """
    root = Path(task.root)
    settled: dict[int, FileOutcome] = {}  # sources whose outcome a failed attempt decided
    while True:
        sink = PartSink(root, task.flush_rows)
        try:
            with ZipCache() as archives:
                outcomes = _ingest_sources(task, sink, archives, settled)
        except _SourceFailed as failure:
            sink.abort()
            settled[failure.index] = failure.outcome
            continue
        except BaseException:
            sink.abort()
            raise
        return close_batch(sink, outcomes, tag="")


def _ingest_sources(
    task: BatchTask,
    sink: PartSink,
    archives: ZipCache,
    settled: dict[int, FileOutcome],
) -> list[FileOutcome]:
    outcomes: list[FileOutcome] = []
    first_path_of: dict[str, str] = {}  # digest -> first path in this batch
    small_files = _SmallFiles()
    for index, source in enumerate(task.sources):
        if index in settled:
            outcome = settled[index]
            if outcome.error is not None:
                reject = file_reject(source.path, outcome.error, site=outcome.site)
                sink.add(index, "rejects", outcome.site, reject)
        elif source.error is not None:
            outcome = FileOutcome(source.path, source.size, error=source.error)
            sink.add(index, "rejects", None, file_reject(source.path, source.error))
        else:
            outcome = _ingest_source(
                index, source, task, sink, archives, first_path_of, small_files
            )
        if outcome.sha256 is not None and not outcome.already_ingested:
            first_path_of.setdefault(outcome.sha256, outcome.path)
        outcomes.append(outcome)
        if small_files.lines >= SMALL_FILES_LINES:
            small_files.parse_into(sink)
        sink.flush_if_full()
    small_files.parse_into(sink)
    return outcomes


def _ingest_source(
    index: int,
    source: Source,
    task: BatchTask,
    sink: PartSink,
    archives: ZipCache,
    first_path_of: dict[str, str],
    small_files: _SmallFiles | None = None,
) -> FileOutcome:
    """Stream one source into ``sink``; any failure becomes the outcome's error."""
    outcome = FileOutcome(source.path, source.size)
    try:
        if source.hash_first:
            outcome.sha256, outcome.size = hash_source(source, archives)
            if _is_copy(outcome, source, first_path_of):
                return outcome
        with open_source(source, archives) as stream:
            _stream_source(
                index, source, stream, task.block_bytes, sink, outcome, first_path_of, small_files
            )
    except _SourceFailed:
        raise
    except Exception as error:  # a file never stops the run: record why it failed
        outcome.error = _describe(error)
        outcome.hands_found = outcome.parsed = outcome.skipped = outcome.rejected = 0
        if sink.flushed(index):
            raise _SourceFailed(index, outcome) from error
        sink.discard(index)
        reject = file_reject(source.path, outcome.error, site=outcome.site)
        sink.add(index, "rejects", outcome.site, reject)
    if outcome.already_ingested and sink.touched(index):
        # A copy discovered only at the end (gzip size hints can mislead): undo its rows.
        if sink.flushed(index):
            raise _SourceFailed(index, outcome)
        sink.discard(index)
    return outcome


def _is_copy(outcome: FileOutcome, source: Source, first_path_of: dict[str, str]) -> bool:
    digest = outcome.sha256
    if digest in source.known_sha256 or digest in first_path_of:
        outcome.already_ingested = True
    return outcome.already_ingested


def _describe(error: BaseException) -> str:
    if isinstance(error, Refused | UnreadableFile):
        return str(error)
    if isinstance(error, zipfile.BadZipFile):
        return f"corrupt archive member: {error}"
    if isinstance(error, gzip.BadGzipFile | EOFError | zlib.error):
        return f"corrupt gzip stream: {error}"
    if isinstance(error, OSError):
        return f"cannot read file: {error}"
    return f"{type(error).__name__}: {error}"


def _stream_source(
    index: int,
    source: Source,
    stream: BinaryIO,
    block_bytes: int,
    sink: PartSink,
    outcome: FileOutcome,
    first_path_of: dict[str, str],
    small_files: _SmallFiles | None = None,
) -> None:
    """Read, sniff and parse one source block by block.

    A file that fits in one block is handed to ``small_files`` (when its parser can parse
    several files in one pass) instead of being parsed on its own.
    """
    block = read_block(stream, block_bytes)
    at_end = len(block) < block_bytes
    hasher = None
    if outcome.sha256 is None:
        hasher = hashlib.sha256(block)
        if at_end:
            outcome.sha256, outcome.size = hasher.hexdigest(), len(block)
            if _is_copy(outcome, source, first_path_of):
                return
    parser, refusal, preview = _sniff(block)
    if parser is None:
        if hasher is not None and not at_end:  # still identify it, so a re-run skips it
            outcome.sha256, outcome.size = _drain(stream, hasher, len(block))
        outcome.error = refusal
        sink.add(index, "rejects", None, file_reject(source.path, refusal, preview))
        return
    outcome.site = parser.site
    encoding: str | None = None
    newline = _newline_of(block)
    in_quarantined_hand = False  # lines up to the next hand start follow a quarantined hand
    carry = b""
    carry_offset = 0
    position = 0  # file offset just past ``block``
    while True:
        position += len(block)
        data = carry + block if carry else block
        data_offset = carry_offset
        if in_quarantined_hand:
            data, data_offset, in_quarantined_hand = _drop_rest_of_hand(
                parser, data, data_offset, at_end, newline, encoding
            )
        # Only whole lines are decoded; the partial last line waits for the next block.
        cut = _last_line_end(data, data_offset, newline)
        if len(data) - cut > MAX_LINE_BYTES:
            encoding = _quarantine_long_line(
                index, parser, data, data_offset, cut, encoding, source.path, sink, outcome
            )
            in_quarantined_hand = True
            skipped = _skip_line(stream, block_bytes, newline, position, at_end, hasher)
            block, at_end, position = skipped.block, skipped.at_end, skipped.position
            carry, carry_offset = b"", position - len(block)
            position -= len(block)  # the loop's head counts the block again
            if not block and at_end:
                break
            continue
        complete = data if at_end else data[:cut]
        if complete:
            lines = decode_lines(complete, data_offset, encoding)
            encoding = lines.encoding
            if at_end:
                if (
                    small_files is not None
                    and position == len(block)
                    and small_files.accepts(parser)
                ):
                    small_files.add(index, parser, lines.lines, lines.offsets, source.path, outcome)
                else:
                    _add_parsed(
                        index, parser, lines.lines, lines.offsets, source.path, sink, outcome
                    )
                carry = b""
            else:
                keep = _last_hand_start(parser, lines.lines)
                whole_hands = keep
                if keep is None and len(data) <= MAX_CARRY_BYTES:
                    keep = whole_hands = 0  # no complete hand yet: carry it all
                elif keep is None and parser.hand_starts(lines.lines.head(1))[0]:
                    # One hand longer than any real one: quarantined, the rest of it dropped.
                    _reject_hand(
                        index,
                        parser,
                        (int(lines.offsets[0]), "\n".join(lines.lines.head(200).to_list())),
                        f"hand of more than {MAX_CARRY_BYTES} bytes: quarantined",
                        source.path,
                        sink,
                        outcome,
                    )
                    in_quarantined_hand = True
                    keep, whole_hands = len(lines.lines), 0
                elif keep is None:
                    keep = whole_hands = len(lines.lines)  # no hand's shape: parse what we have
                if whole_hands:
                    _add_parsed(
                        index,
                        parser,
                        lines.lines[:whole_hands],
                        lines.offsets[:whole_hands],
                        source.path,
                        sink,
                        outcome,
                    )
                carry_offset = (
                    int(lines.offsets[keep])
                    if keep < len(lines.lines)
                    else (data_offset + len(complete))
                )
                carry = data[carry_offset - data_offset :]
        else:
            carry, carry_offset = data, data_offset
        sink.flush_if_full()
        if at_end:
            break
        block = read_block(stream, block_bytes)
        at_end = len(block) < block_bytes
        if hasher is not None:
            hasher.update(block)
    if hasher is not None and outcome.sha256 is None:
        outcome.sha256, outcome.size = hasher.hexdigest(), position
        _is_copy(outcome, source, first_path_of)


def _quarantine_long_line(
    index: int,
    parser: SiteParser,
    data: bytes,
    data_offset: int,
    cut: int,
    encoding: str | None,
    source_file: str,
    sink: PartSink,
    outcome: FileOutcome,
) -> str | None:
    """Account for ``data``, whose last line (from ``cut``) is longer than ``MAX_LINE_BYTES``.

    The whole hands before the long line are parsed; the hand it opens or belongs to is
    quarantined (its lines after the long one are then dropped, see `_drop_rest_of_hand`).
    A long line outside any hand is junk between hands, which parsers pass over anyway.
    Returns the encoding the text before the line was decoded with.
    """
    line_offset = data_offset + cut
    head = decode_lines(data[cut : cut + LONG_LINE_HEAD_BYTES], line_offset, encoding).lines
    opens_hand = bool(parser.hand_starts(head.head(1))[0])
    lines = decode_lines(data[:cut], data_offset, encoding) if cut else None
    starts = np.flatnonzero(parser.hand_starts(lines.lines) if lines is not None else [])
    hand: tuple[int, str] | None = None
    whole_lines = 0 if lines is None else len(lines.lines)
    if opens_hand:
        hand = (line_offset, "")
    elif lines is not None and len(starts):
        whole_lines = int(starts[-1])
        hand_text = "\n".join(lines.lines[whole_lines:].head(200).to_list())
        hand = (int(lines.offsets[whole_lines]), hand_text + "\n")
    if lines is not None and whole_lines:
        _add_parsed(
            index,
            parser,
            lines.lines[:whole_lines],
            lines.offsets[:whole_lines],
            source_file,
            sink,
            outcome,
        )
    if hand is not None:
        offset, text = hand
        reason = (
            f"line of more than {MAX_LINE_BYTES} bytes at byte {line_offset}:"
            " hand quarantined, the line skipped"
        )
        text += str(head[0])[:200] + "…"
        _reject_hand(index, parser, (offset, text), reason, source_file, sink, outcome)
    return encoding if lines is None else lines.encoding


def _reject_hand(
    index: int,
    parser: SiteParser,
    hand: tuple[int, str],
    reason: str,
    source_file: str,
    sink: PartSink,
    outcome: FileOutcome,
) -> None:
    """Quarantine one hand, given as (offset, beginning of its text), that ingest will not parse."""
    offset, text = hand
    reject = file_reject(source_file, reason, text, site=parser.site).set_column(
        1, "source_offset", pa.array([offset], pa.int64())
    )
    sink.add(index, "rejects", parser.site, reject)
    outcome.hands_found += 1
    outcome.rejected += 1


def _drop_rest_of_hand(
    parser: SiteParser,
    data: bytes,
    data_offset: int,
    at_end: bool,
    newline: bytes,
    encoding: str | None,
) -> tuple[bytes, int, bool]:
    """Drop the whole lines of ``data`` before its first hand start.

    Returns ``(data, data_offset, still in the hand)``: the lines after a skipped line belong
    to its quarantined hand, and a parser would take them for a hand without a header.
    """
    cut = len(data) if at_end else _last_line_end(data, data_offset, newline)
    if not cut:
        return data, data_offset, True
    lines = decode_lines(data[:cut], data_offset, encoding)
    starts = np.flatnonzero(parser.hand_starts(lines.lines))
    if not len(starts):
        return data[cut:], data_offset + cut, True
    first = int(lines.offsets[starts[0]])
    return data[first - data_offset :], first, False


@dataclass(frozen=True)
class _AfterLine:
    """Where reading resumes after a skipped line."""

    block: bytes  # the rest of the block the line ended in
    at_end: bool
    position: int  # file offset just past ``block``


def _skip_line(
    stream: BinaryIO,
    block_bytes: int,
    newline: bytes,
    position: int,
    at_end: bool,
    hasher: hashlib._Hash | None,
) -> _AfterLine:
    """Read past the end of the line being read at ``position`` without keeping it."""
    while not at_end:
        block = read_block(stream, block_bytes)
        at_end = len(block) < block_bytes
        if hasher is not None:
            hasher.update(block)
        block_offset = position
        position += len(block)
        end = _first_line_end(block, block_offset, newline)
        if end:
            return _AfterLine(block[end:], at_end, position)
    return _AfterLine(b"", True, position)


def _drain(stream: BinaryIO, hasher: hashlib._Hash, size: int) -> tuple[str, int]:
    """Hash the rest of a stream; return ``(sha256, size)`` given ``size`` bytes so far."""
    while chunk := stream.read(BLOCK_BYTES):
        hasher.update(chunk)
        size += len(chunk)
    return hasher.hexdigest(), size


def _last_hand_start(parser: SiteParser, lines: pl.Series) -> int | None:
    """Index of the last line that opens a hand, or None when no line after the first does."""
    starts = np.flatnonzero(parser.hand_starts(lines))
    if len(starts) == 0 or starts[-1] == 0:
        return None
    return int(starts[-1])


def _newline_of(first_block: bytes) -> bytes:
    """The bytes of a line break in a file starting with ``first_block``."""
    encoding, _ = detect_encoding(first_block[:4096])
    if encoding == "utf-16-le":
        return b"\n\x00"
    if encoding == "utf-16-be":
        return b"\x00\n"
    return b"\n"


def _last_line_end(data: bytes, data_offset: int, newline: bytes) -> int:
    """Index just past the last complete line in ``data`` (which starts at ``data_offset``)."""
    if len(newline) == 1:
        return data.rfind(newline) + 1
    end = len(data)
    while (found := data.rfind(newline, 0, end)) >= 0:
        if (data_offset + found) % 2 == 0:  # a code unit, not the middle of two
            return found + 2
        end = found + 1
    return 0


def _first_line_end(data: bytes, data_offset: int, newline: bytes) -> int:
    """Index just past the first line break in ``data``, or 0 when it holds none."""
    if len(newline) == 1:
        return data.find(newline) + 1
    start = 0
    while (found := data.find(newline, start)) >= 0:
        if (data_offset + found) % 2 == 0:
            return found + 2
        start = found + 1
    return 0


def _sniff(block: bytes) -> tuple[SiteParser | None, str, str | None]:
    """Return ``(parser, why not, text preview)`` for a file starting with ``block``."""
    head = block[:SNIFF_BYTES]
    if not head:
        return None, "empty file", None
    encoding, bom = detect_encoding(head[:4096])
    # NUL bytes are damage inside a text file (a stray byte, a block zeroed by a crash: the hands
    # around them still parse, the damaged ones are quarantined by their parser), or binary data.
    # Searched for before counted: finding none (any text file) costs a fortieth of a count.
    binary_like = b"\x00" in head and head.count(b"\x00") > max(1, len(head) >> 10)
    if not encoding.startswith("utf-16") and binary_like:
        parser, _, _ = _sniff(head.replace(b"\x00", b""))
        if parser is None:
            return None, "binary file: NUL bytes in its first 64 KiB, not a hand history", None
        return parser, "", None
    head = head[:SNIFF_TEXT_BYTES]
    if len(head) < len(block):
        cut = _last_line_end(head, 0, _newline_of(head))
        head = head[:cut] if cut > bom else head
    try:
        text = decode_text(head)
    except UnreadableFile as error:
        return None, f"unreadable text: {error}", None
    if not text.strip():
        return None, "empty file: blank lines only", None
    parser = parsers.detect(text)
    if parser is None:
        return None, "unknown format: no parser recognises its first lines", text
    return parser, "", None


class _SmallFiles:
    """Whole small files waiting to be parsed together, one parse per parser and batch.

    A parse has a fixed cost of some hundreds of column operations: file by file, an archive
    of many small files (a site writes one per table session) would spend most of its time
    there. Files stay in order, and each one's rows and counts are still its own.
    """

    def __init__(self) -> None:
        self._files: list[tuple[int, SiteParser, pl.Series, np.ndarray, str, FileOutcome]] = []
        self.lines = 0

    @staticmethod
    def accepts(parser: SiteParser) -> bool:
        return callable(getattr(parser, "parse_files", None))

    def add(
        self,
        index: int,
        parser: SiteParser,
        lines: pl.Series,
        offsets: np.ndarray,
        source_file: str,
        outcome: FileOutcome,
    ) -> None:
        self._files.append((index, parser, lines, offsets, source_file, outcome))
        self.lines += len(lines)

    def parse_into(self, sink: PartSink) -> None:
        """Parse everything waiting (grouped by parser) and hand each file's rows to ``sink``."""
        files, self._files, self.lines = self._files, [], 0
        for site in dict.fromkeys(entry[1].site for entry in files):
            group = [entry for entry in files if entry[1].site == site]
            parser = group[0][1]
            sizes = np.array([len(entry[2]) for entry in group], dtype=np.int64)
            try:
                results = parser.parse_files(  # type: ignore[attr-defined]
                    pl.concat([entry[2] for entry in group]),
                    np.concatenate([entry[3] for entry in group]),
                    np.concatenate(([0], np.cumsum(sizes)[:-1])),
                    [entry[4] for entry in group],
                )
            except Exception:
                # One file's text made the batched parse raise: parse file by file, where
                # the resilient path isolates the hand at fault.
                for index, _, lines, offsets, source_file, outcome in group:
                    _add_parsed(index, parser, lines, offsets, source_file, sink, outcome)
                continue
            for (index, _, _, _, _, outcome), result in zip(group, results, strict=True):
                _account(index, parser, result, sink, outcome)


def _add_parsed(
    index: int,
    parser: SiteParser,
    lines: pl.Series,
    offsets: np.ndarray,
    source_file: str,
    sink: PartSink,
    outcome: FileOutcome,
) -> None:
    _account(index, parser, _parse_resilient(parser, lines, offsets, source_file), sink, outcome)


def _account(
    index: int, parser: SiteParser, result: ParseResult, sink: PartSink, outcome: FileOutcome
) -> None:
    """Add a parse result's counts to the file's outcome and its rows to the sink."""
    outcome.hands_found += result.hands_found
    outcome.parsed += result.parsed
    outcome.skipped += result.skipped
    outcome.rejected += result.rejected
    for game, count in result.skipped_games.items():
        outcome.skipped_games[game] = outcome.skipped_games.get(game, 0) + count
    notes = result.tables.get("notes")
    if notes is not None and notes.num_rows:
        outcome.notes += notes.num_rows
        for shape, lines in note_shapes(notes, result.tables.get("seats")).items():
            outcome.note_shapes[shape] = outcome.note_shapes.get(shape, 0) + lines
    for month, tables in split_by_month(result.tables):
        for table in dataset.PART_TABLES:
            rows = tables.get(table)
            if rows is not None and rows.num_rows:
                sink.add(index, table, parser.site, conform(rows, table), month)


# Shapes kept per file: enough for the most frequent ten of a run, bounded for hostile input.
MAX_NOTE_SHAPES = 1000


def note_shapes(notes: pa.Table, seats: pa.Table | None) -> dict[str, int]:
    """Lines per shape (digits and the hand's player names blanked) of a block's notes."""
    players: dict[str, list[str]] = {}
    if seats is not None:
        for hand_id, player in zip(
            seats.column("hand_id").to_pylist(), seats.column("player").to_pylist(), strict=True
        ):
            if player:
                players.setdefault(hand_id, []).append(player)
    shapes: dict[str, int] = {}
    for hand_id, text in zip(
        notes.column("hand_id").to_pylist(), notes.column("text").to_pylist(), strict=True
    ):
        shape = line_shape(text[:200], tuple(players.get(hand_id, ())))
        if shape in shapes or len(shapes) < MAX_NOTE_SHAPES:
            shapes[shape] = shapes.get(shape, 0) + 1
    return shapes


def _parse_resilient(
    parser: SiteParser, lines: pl.Series, offsets: np.ndarray, source_file: str
) -> ParseResult:
    """Parse a block; if the parser raises, isolate and quarantine the hands that make it raise.

    A parser bug on one hand must not lose the block's other hands. The block is halved at a
    hand start until the failing pieces are single hands: a few parse calls per bad hand
    instead of one call per hand of the block.
    """
    try:
        return parser.parse(lines, offsets, source_file)
    except Exception as error:
        starts = np.flatnonzero(parser.hand_starts(lines))
        bounds = [0, *[int(start) for start in starts if start > 0], len(lines)]
        return _merge_results(_bisect(parser, lines, offsets, source_file, bounds, error))


def _bisect(
    parser: SiteParser,
    lines: pl.Series,
    offsets: np.ndarray,
    source_file: str,
    bounds: list[int],
    error: Exception,
) -> list[ParseResult]:
    """Parse the hands between ``bounds`` (line indices of hand starts) whose parse raised."""
    if len(bounds) <= 2:
        begin, end = bounds[0], bounds[-1]
        return [
            _parser_error_reject(parser.site, lines[begin:end], offsets[begin], source_file, error)
        ]
    middle = len(bounds) // 2
    results = []
    for piece_bounds in (bounds[: middle + 1], bounds[middle:]):
        begin, end = piece_bounds[0], piece_bounds[-1]
        try:
            results.append(parser.parse(lines[begin:end], offsets[begin:end], source_file))
        except Exception as piece_error:
            results.extend(_bisect(parser, lines, offsets, source_file, piece_bounds, piece_error))
    return results


def _parser_error_reject(
    site: str, lines: pl.Series, offset: int, source_file: str, error: Exception
) -> ParseResult:
    """One hand the parser raised on, quarantined with the exception as its reason."""
    reject = pa.Table.from_pylist(
        [
            {
                "source_file": source_file,
                "source_offset": int(offset),
                "site": site,
                "hand_id": None,
                "reason": f"parser error: {type(error).__name__}: {error}",
                "raw_text": "\n".join(lines.to_list()),
            }
        ],
        schema=REJECTS,
    )
    return ParseResult({"rejects": reject}, 1, 0, 0, 1)


def _merge_results(results: Sequence[ParseResult]) -> ParseResult:
    tables: dict[str, pa.Table] = {}
    for table in dataset.PART_TABLES:
        pieces = [result.tables[table] for result in results if table in result.tables]
        pieces = [conform(piece, table) for piece in pieces if piece.num_rows]
        if pieces:
            tables[table] = pa.concat_tables(pieces)
    games: dict[str, int] = {}
    for result in results:
        for game, count in result.skipped_games.items():
            games[game] = games.get(game, 0) + count
    return ParseResult(
        tables,
        sum(result.hands_found for result in results),
        sum(result.parsed for result in results),
        sum(result.skipped for result in results),
        sum(result.rejected for result in results),
        games,
    )
