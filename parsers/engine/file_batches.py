"""Whole small files parsed together: one parse of a batch, one result per file.

A text parse costs some hundred column operations whatever its size (100-200 ms for the
PartyPoker family), and players' folders hold one small file per table session, so ingest hands
a parser a batch of small files at once (`parse_files`). Each file's rows and accounting are
still its own: the files' hands are numbered in order, and `finish_files` cuts the tables at the
first hand of each file.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import ClassVar

import numpy as np
import polars as pl

from parsers.base import ParseResult
from parsers.engine.assembly import HandTables, batch_files, finish, finish_files
from parsers.engine.line_forms import may_find

__all__ = ["FileBatchParser"]


class FileBatchParser:
    """What every text engine's parser shares: ``parse`` and ``parse_files`` from its
    `hand_starts` and its decoding of a block, `hand_tables`; by default a hand opens at a
    ``hand_start`` line and a file is the site's when ``sniff_pattern`` is in its first lines."""

    hand_start: ClassVar[str]
    sniff_pattern: ClassVar[re.Pattern[str]]

    # Lines a file may print before its first hand that carry nothing (PartyPoker's "Game #N
    # starts."): not text before the first hand (`finish` rejects such text), and left out of
    # a batch's later files rather than read as the end of the previous file's last hand.
    preamble_ignorable: ClassVar[str | None] = None

    def sniff(self, head: str) -> bool:
        """A hand's first line within the first lines of a file."""
        return may_find(self.sniff_pattern, head) and self.sniff_pattern.search(head) is not None

    def hand_starts(self, lines: pl.Series) -> np.ndarray:
        """Mask of the lines that open a hand."""
        return lines.str.contains(self.hand_start).fill_null(False).to_numpy()

    def hand_tables(
        self, lines: pl.Series, offsets: np.ndarray, starts: np.ndarray, source_file: str
    ) -> HandTables:
        """The site's decoding of a block of whole hands (``starts``: the lines opening one)."""
        raise NotImplementedError

    def parse(self, lines: pl.Series, offsets: np.ndarray, source_file: str) -> ParseResult:
        """Parse a block of whole hands into the canonical tables."""
        return finish(self._tables(lines, offsets, self.hand_starts(lines), source_file))

    def parse_files(
        self,
        lines: pl.Series,
        offsets: np.ndarray,
        file_starts: np.ndarray,
        source_files: list[str],
    ) -> list[ParseResult]:
        """Parse several whole files (file ``k``'s first line is ``file_starts[k]``) in one
        pass; one result per file, in order, the same as parsing each file alone.

        Files after the first must open with a hand, or their first lines would end the
        previous file's last hand: blank and `preamble_ignorable` lines before it are left out,
        and a batch holding a file with other text there is parsed file by file.
        """
        starts = self.hand_starts(lines)
        kept = self._without_later_preambles(lines, starts, np.asarray(file_starts))
        if kept is not None and not kept.all():
            rows = np.flatnonzero(kept)
            lines, offsets, starts = lines.gather(rows), offsets[rows], starts[rows]
            file_starts = np.searchsorted(rows, file_starts)
        files = batch_files(starts, file_starts, source_files) if kept is not None else None
        if files is None:
            bounds = [*(int(start) for start in file_starts), len(lines)]
            return [
                self.parse(lines[first:end], offsets[first:end], name)
                for first, end, name in zip(bounds, bounds[1:], source_files)
            ]
        tables = self._tables(lines, offsets, starts, source_files[0])
        return finish_files(replace(tables, files=files))

    def _tables(
        self, lines: pl.Series, offsets: np.ndarray, starts: np.ndarray, source_file: str
    ) -> HandTables:
        tables = self.hand_tables(lines, offsets, starts, source_file)
        return replace(tables, preamble_ignorable=self.preamble_ignorable)

    def _without_later_preambles(
        self, lines: pl.Series, starts: np.ndarray, file_starts: np.ndarray
    ) -> np.ndarray | None:
        """The lines to keep: all but the blank or ignorable lines before the first hand of
        the files after the first; None when such a file has other text there."""
        file_of_line = np.searchsorted(file_starts, np.arange(len(lines)), side="right") - 1
        opened = np.cumsum(starts, dtype=np.int64)
        opened_before_file = np.concatenate(([0], opened))[file_starts]
        before_first_hand = (opened - opened_before_file[file_of_line] == 0) & (file_of_line > 0)
        rows = np.flatnonzero(before_first_hand)
        if len(rows) == 0:
            return np.ones(len(lines), dtype=bool)
        text = lines.gather(rows)
        ignorable = text.str.strip_chars() == ""
        if self.preamble_ignorable is not None:
            ignorable = ignorable | text.str.contains(self.preamble_ignorable)
        if not ignorable.fill_null(False).all():
            return None
        return ~before_first_hand
