"""A site's line kinds as a table of forms, and the classification of a block's lines by it.

A form says how a line of one kind is recognised (a literal start, a literal part, the whole
text, or a regular expression searched in it) and where in a hand it may stand (``where``: a
mask the engine knows, or one the site passes, such as its street-marker lines). The first form
that matches classifies the line; a line no form matches is unknown, and `parsers.notes` decides
whether it is a harmless note or quarantines its hand.

Literal tests run compiled over the block's bytes (`lines_with`), and so does the test of a
literal each regular expression requires (`required_literal`), so that the expression is
searched only in the lines that have it.
"""

from __future__ import annotations

import functools
import itertools
import re
import re._parser as regex_parser  # the standard library's reader of regular expressions
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from parsers.byte_kernels import (
    LITERAL_ANY,
    LITERAL_CONTAINS,
    LITERAL_EQUALS,
    LITERAL_STARTS,
    lines_with,
    series_bytes,
)

__all__ = ["DecodedFields", "LineForm", "classify", "kind_fields", "kinds_of", "may_find"]

SUMMARY_SECTION = 5


@dataclass(frozen=True)
class LineForm:
    """One kind of line: at most one of ``starts``, ``contains``, ``equals``, ``pattern``
    (none: the ``where`` mask alone decides), and ``where`` it may stand."""

    kind: int | str
    starts: str | None = None
    contains: str | None = None
    equals: str | None = None
    pattern: str | None = None
    # "any", "start" (a hand's first line), "setup" (before the cards: section -1), "dealt"
    # (from the cards on), "body" (all but the summary), "summary" (section 5), or the name of
    # a mask the site passes to `classify`.
    where: str = "any"


def classify(
    lines: pl.DataFrame,
    section: np.ndarray,
    forms: tuple[LineForm, ...],
    unknown: int,
    masks: dict[str, np.ndarray] | None = None,
    informational: tuple[int, str] | None = None,
) -> pl.DataFrame:
    """``lines`` with ``section`` and ``kind`` (Int8): the first of ``forms`` each line has.

    ``section`` is each line's street code (-1 before the cards, 5 in the summary); ``masks``
    are the site's own places (marker lines, the line after the header, ...). A line no form
    takes is ``unknown``, or, when it matches ``informational`` (kind, pattern: known text
    that carries nothing the tables need, tried on those lines only), that kind.
    """
    places = {
        "any": np.ones(lines.height, dtype=bool),
        "start": lines["is_start"].to_numpy(),
        "setup": section == -1,
        "dealt": section >= 0,
        "body": section < SUMMARY_SECTION,
        "summary": section == SUMMARY_SECTION,
        **(masks or {}),
    }
    line = lines["line"]
    codes = np.array([form.kind for form in forms] + [unknown], dtype=np.int8)
    kinds = codes[_first_form_indices(line, forms, places)]
    if informational is not None:
        other = np.flatnonzero(kinds == unknown)
        if len(other):
            info_kind, pattern = informational
            known = line.gather(other).str.contains(pattern).fill_null(False).to_numpy()
            kinds[other[known]] = info_kind
    return lines.with_columns(
        section=pl.Series(section, dtype=pl.Int8), kind=pl.Series(kinds, dtype=pl.Int8)
    )


def kinds_of(lines: pl.DataFrame, forms: tuple[LineForm, ...], unknown: str) -> pl.Series:
    """The first of ``forms`` (named kinds, found anywhere in a hand) each line has."""
    places = {"any": np.ones(lines.height, dtype=bool), "start": lines["is_start"].to_numpy()}
    names = pl.Series("kind", [form.kind for form in forms] + [unknown], dtype=pl.String)
    # Gathered by index: a numpy array of strings cost 13-17 ms a 2,000-hand block to become
    # a column.
    return names.gather(_first_form_indices(lines["line"], forms, places))


def _first_form_indices(
    line: pl.Series, forms: tuple[LineForm, ...], places: dict[str, np.ndarray]
) -> np.ndarray:
    """Per line, the index in ``forms`` of the first form it has (``len(forms)``: none)."""
    data, offsets = series_bytes(line)
    indices = np.full(len(line), len(forms), dtype=np.int64)
    open_lines = line.is_not_null().to_numpy().copy()  # lines no earlier form has taken
    for index, form in enumerate(forms):
        # Each test runs only where its answer can matter: lines no earlier form took, where
        # the form may stand; the expression only in those that have the literal it requires.
        rows = np.flatnonzero(open_lines & places[form.where])
        literal = form_literal(form)
        if literal.mode != LITERAL_ANY and len(rows):
            text = np.frombuffer(literal.text, dtype=np.uint8)
            rows = rows[lines_with(data, offsets, rows, literal.mode, text)]
        if not literal.exact and len(rows) and form.pattern is not None:
            rows = rows[line.gather(rows).str.contains(form.pattern).fill_null(False).to_numpy()]
        indices[rows] = index
        open_lines[rows] = False
    return indices


@dataclass(frozen=True)
class Literal:
    """Text a line must have for a form to match (``mode``: ``LITERAL_*`` of
    `parsers.byte_kernels`), and whether having it is enough (``exact``)."""

    mode: int
    text: bytes = b""  # UTF-8
    exact: bool = True


@functools.cache
def form_literal(form: LineForm) -> Literal:
    """The literal test of ``form``: its own, or the one its pattern requires."""
    if form.starts is not None:
        return Literal(LITERAL_STARTS, form.starts.encode())
    if form.contains is not None:
        return Literal(LITERAL_CONTAINS, form.contains.encode())
    if form.equals is not None:
        return Literal(LITERAL_EQUALS, form.equals.encode())
    if form.pattern is not None:
        return required_literal(form.pattern)
    return Literal(LITERAL_ANY)


# Flags under which a literal in the pattern does not match only itself, or a line start is
# not the text's start.
_LITERAL_CHANGING_FLAGS = re.IGNORECASE | re.MULTILINE | re.VERBOSE


def required_literal(pattern: str) -> Literal:
    """A literal every text ``pattern`` finds a match in has: its anchored start, else the
    longest run of literal characters in its top-level sequence (a run outside any group,
    alternation or repetition must be in every match).

    The patterns are polars' (Rust's regex crate). Python's reader reads the syntax the two
    share; a pattern it cannot read, or whose flags change what a literal means, requires
    nothing (``LITERAL_ANY``), which is always safe.
    """
    try:
        parsed = regex_parser.parse(pattern)
    except (re.error, OverflowError, RecursionError):
        return Literal(LITERAL_ANY, exact=False)
    if parsed.state.flags & _LITERAL_CHANGING_FLAGS:
        return Literal(LITERAL_ANY, exact=False)
    items = list(parsed)
    anchored = bool(items) and items[0] == (regex_parser.AT, regex_parser.AT_BEGINNING)
    # (position of the run's first item, its text) of each run of literal characters
    runs = [
        (run[0][0], "".join(chr(value) for _, (_, value) in run))
        for literal, group in itertools.groupby(
            enumerate(items), key=lambda item: item[1][0] is regex_parser.LITERAL
        )
        if literal
        for run in [list(group)]
    ]
    body = items[1:] if anchored else items
    only_literals = bool(body) and all(op is regex_parser.LITERAL for op, _ in body)
    if anchored and runs and runs[0][0] == 1:
        return Literal(LITERAL_STARTS, runs[0][1].encode(), exact=only_literals)
    if runs and not anchored and only_literals:
        return Literal(LITERAL_CONTAINS, runs[0][1].encode())
    longest = max((run for _, run in runs), key=len, default="")
    if len(longest) >= 2:  # one character is in nearly every line: not worth the search
        return Literal(LITERAL_CONTAINS, longest.encode(), exact=False)
    return Literal(LITERAL_ANY, exact=False)


def may_find(pattern: str | re.Pattern[str], text: str) -> bool:
    """False when ``pattern`` (a polars pattern, or a compiled Python one) cannot be found in
    ``text`` because none of the texts one of which every match holds is in it; else True.

    Substring searches in C: the sniffers test every registered format against a file's head
    (16 KiB), and a regular expression that fails there costs 20-100 µs, a polars one more.
    """
    if isinstance(pattern, str):
        needed = _texts_needed(pattern, 0)
    else:  # flags given to re.compile are not in its source
        needed = _texts_needed(pattern.pattern, pattern.flags)
    return not needed or any(needed_text in text for needed_text in needed)


@functools.cache
def _texts_needed(pattern: str, flags: int) -> tuple[str, ...]:
    try:
        parsed = regex_parser.parse(pattern, flags)
    except (re.error, OverflowError, RecursionError):
        return ()
    if parsed.state.flags & (re.IGNORECASE | re.VERBOSE):
        return ()
    return _one_of_needed(list(parsed))


def _one_of_needed(items: list[tuple[Any, Any]]) -> tuple[str, ...]:
    """Texts one of which every match of the parsed sequence ``items`` holds (() if unknown):
    a run of literal characters, or an alternation each of whose branches needs some, or a
    group or repetition (at least once) that does; of those, the one whose shortest text is
    longest."""
    is_literal = regex_parser.LITERAL
    choices = [
        ("".join(chr(value) for _, value in run),)
        for literal, group in itertools.groupby(items, key=lambda item: item[0] is is_literal)
        if literal
        for run in [list(group)]
    ]
    for op, value in items:
        inner: tuple[str, ...] = ()
        if op is regex_parser.BRANCH:
            branches = [_one_of_needed(list(branch)) for branch in value[1]]
            inner = tuple(text for branch in branches for text in branch) if all(branches) else ()
        elif op is regex_parser.SUBPATTERN and not value[1] & re.IGNORECASE:
            inner = _one_of_needed(list(value[3]))
        elif op in (regex_parser.MAX_REPEAT, regex_parser.MIN_REPEAT) and value[0] >= 1:
            inner = _one_of_needed(list(value[2]))
        choices.append(inner)
    useful = [choice for choice in choices if choice and min(map(len, choice)) >= 2]
    return max(useful, key=lambda choice: min(map(len, choice)), default=())


def kind_fields(
    lines: pl.DataFrame, kind: int | str, pattern: str, *context: str
) -> pl.DataFrame:
    """The named groups of ``pattern`` over the lines of one ``kind``, after their ``context``
    columns (``hand``, ``line_no``, ``money_scale``...)."""
    return (
        lines.lazy()  # the filter then copies only the columns selected
        .filter(pl.col("kind") == kind)
        .select(*context, pl.col("line").str.extract_groups(pattern).alias("_fields"))
        .unnest("_fields")
        .collect()
    )


class DecodedFields:
    """The `kind_fields` of one parse, each decoded once.

    Several steps of a site read the same lines (its actions, seats and showdowns all read the
    action lines; its pots and their checks the pot lines): a regular expression's groups cost
    0.25–0.5 µs a line, the largest share of a text parse.
    """

    def __init__(self) -> None:
        self._decoded: dict[tuple[object, ...], tuple[pl.DataFrame, pl.DataFrame]] = {}

    def __call__(
        self, lines: pl.DataFrame, kind: int | str, pattern: str, *context: str
    ) -> pl.DataFrame:
        """`kind_fields` of ``lines``, decoded on the first call with these arguments."""
        key = (id(lines), kind, pattern, context)
        cached = self._decoded.get(key)
        # The frame is kept with its result, so its id cannot be reused by another frame.
        if cached is None or cached[0] is not lines:
            cached = (lines, kind_fields(lines, kind, pattern, *context))
            self._decoded[key] = cached
        return cached[1]
