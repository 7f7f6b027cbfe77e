"""A site's line kinds as a table of forms, and the classification of a block's lines by it.

A form says how a line of one kind is recognised (a literal start, a literal part, the whole
text, or a regular expression searched in it) and where in a hand it may stand (``where``: a
mask the engine knows, or one the site passes, such as its street-marker lines). The first form
that matches classifies the line; a line no form matches is unknown, and `parsers.notes` decides
whether it is a harmless note or quarantines its hand.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

__all__ = ["LineForm", "classify", "kind_fields", "kinds_of"]

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

    def test(self, line: pl.Series) -> np.ndarray | None:
        """Where the line text has this form (None: any text)."""
        if self.starts is not None:
            found = line.str.starts_with(self.starts)
        elif self.contains is not None:
            found = line.str.contains(self.contains, literal=True)
        elif self.equals is not None:
            found = line == self.equals
        elif self.pattern is not None:
            found = line.str.contains(self.pattern)
        else:
            return None
        return found.fill_null(False).to_numpy()


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
    conditions = []
    open_lines = np.ones(len(line), dtype=bool)  # no earlier form has taken them
    for form in forms:
        place = places[form.where]
        if form.pattern is not None:
            # A regular expression is searched only where its answer can matter: lines no
            # earlier form took, where the form may stand (the first form still wins).
            rows = np.flatnonzero(open_lines & place)
            found = np.zeros(len(line), dtype=bool)
            if len(rows):
                found[rows] = form.test(line.gather(rows))  # type: ignore[index]
        else:
            found = form.test(line)
        condition = place if found is None else place & found
        open_lines &= ~condition
        conditions.append(condition)
    return np.select(conditions, np.arange(len(forms)), len(forms))


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
