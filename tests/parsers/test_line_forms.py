"""Line classification by form tables: the literal each regular expression requires, the
compiled literal tests, and the whole classification against a plain polars one."""

from __future__ import annotations

import random
import re

import numpy as np
import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

from parsers import detect, parse_bytes
from parsers.byte_kernels import (
    LITERAL_ANY,
    LITERAL_CONTAINS,
    LITERAL_EQUALS,
    LITERAL_STARTS,
    lines_with,
    series_bytes,
)
from parsers.engine import line_forms
from parsers.engine.line_forms import Literal, LineForm, may_find, required_literal
from parsers.text import decode_text
from tests.fuzzing import load_seeds, mutated_block


@pytest.mark.parametrize(
    ("pattern", "literal"),
    [
        (r"^Seat (?P<seat>\d+): ", Literal(LITERAL_STARTS, b"Seat ", exact=False)),
        (r"^Board: \[", Literal(LITERAL_STARTS, b"Board: [", exact=True)),
        (
            r"^(?P<player>.+?) shows \[(?P<cards>[^\]]*)\]$",
            Literal(LITERAL_CONTAINS, b" shows [", exact=False),
        ),
        # An optional start: the longest run outside it.
        (
            r"^\ufeff?Full ?Tilt ?Poker Game #\d+: ",
            Literal(LITERAL_CONTAINS, b"Poker Game #", exact=False),
        ),
        (r"collected", Literal(LITERAL_CONTAINS, b"collected", exact=True)),
        (r"collected$", Literal(LITERAL_CONTAINS, b"collected", exact=False)),
        (r"^€ won", Literal(LITERAL_STARTS, "€ won".encode(), exact=True)),
        # Nothing every match must have, or nothing Python's reader can vouch for.
        (r"^(?:Seat|Table) ", Literal(LITERAL_ANY, exact=False)),
        (r"^\s*$", Literal(LITERAL_ANY, exact=False)),
        (r"(?i)^seat ", Literal(LITERAL_ANY, exact=False)),
        (r"(?m)^Seat ", Literal(LITERAL_ANY, exact=False)),
        (r"^(?<player>.+) folds", Literal(LITERAL_ANY, exact=False)),  # Rust-only syntax
        (r"^\x{20AC} won", Literal(LITERAL_ANY, exact=False)),
        (r"^a b", Literal(LITERAL_STARTS, b"a b", exact=True)),
        (r"x y", Literal(LITERAL_CONTAINS, b"x y", exact=True)),
        (r"^. folds", Literal(LITERAL_CONTAINS, b" folds", exact=False)),
        (r"^.x", Literal(LITERAL_ANY, exact=False)),  # one character is not worth a search
    ],
)
def test_the_literal_a_pattern_requires(pattern: str, literal: Literal) -> None:
    assert required_literal(pattern) == literal


def _has(line: str, literal: Literal) -> bool:
    text = line.encode()
    return {
        LITERAL_ANY: True,
        LITERAL_STARTS: text.startswith(literal.text),
        LITERAL_CONTAINS: literal.text in text,
        LITERAL_EQUALS: text == literal.text,
    }[literal.mode]


_PIECES = ["a", "b", " ", "€", "a+", "(?:ab)?", "[ab]", ".", "(a|b)", "|", "b*", "\\d", "$"]
_PATTERNS = st.builds(
    lambda anchored, parts: ("^" if anchored else "") + "".join(parts),
    st.booleans(),
    st.lists(st.sampled_from(_PIECES), max_size=6),
)


@given(_PATTERNS, st.lists(st.text(alphabet="ab €1", max_size=8), min_size=1, max_size=30))
def test_every_line_a_pattern_matches_has_its_literal(pattern: str, lines: list[str]) -> None:
    literal = required_literal(pattern)
    matched = pl.Series(lines, dtype=pl.String).str.contains(pattern).to_list()
    for line, found in zip(lines, matched):
        if found:
            assert _has(line, literal), (pattern, line, literal)
        if literal.exact:
            assert found == _has(line, literal), (pattern, line, literal)


# Alternations, groups and repetitions of texts too: the sniffers' patterns have them.
_SNIFF_PIECES = [*_PIECES, "(ab|ba)", "(?:ab|b€)", "(?i:ab)", "(ab)+", "(?:a|bb)", "ab|ba"]
_SNIFF_PATTERNS = st.builds(
    lambda anchored, parts: ("^" if anchored else "") + "".join(parts),
    st.booleans(),
    st.lists(st.sampled_from(_SNIFF_PIECES), max_size=6),
)


@given(
    _SNIFF_PATTERNS,
    st.sampled_from([0, re.MULTILINE, re.IGNORECASE, re.VERBOSE]),
    st.text(alphabet="ab €1\n", max_size=40),
)
def test_may_find_is_false_only_where_the_pattern_finds_nothing(
    pattern: str, flags: int, text: str
) -> None:
    compiled = re.compile(pattern, flags)
    if compiled.search(text) is not None:
        assert may_find(compiled, text), (pattern, flags, text)
        assert flags or may_find(pattern, text), (pattern, text)


def test_may_find_reads_the_literal_a_sniff_pattern_requires() -> None:
    hand_start = re.compile(r"^\ufeff?PokerStars (?:Hand|Game) #\d+: ", re.MULTILINE)
    assert not may_find(hand_start, "Seat 1: Stars (500 in chips)\n" * 400)
    assert may_find(hand_start, "x\nPokerStars Hand #1: Omaha")
    assert not may_find(r'(?m)^\s*\{.*"game"\s*:', "{}")  # (?m) leaves the literal required
    assert may_find(re.compile("pokerstars hand", re.IGNORECASE), "POKERSTARS HAND")
    either = re.compile(r"^(?:Everleaf Gaming Game #\d+$|\*{5} Hand history for game #\d+ )")
    assert not may_find(either, "Game #1\nhistory for game #2")
    assert may_find(either, "x ***** Hand history for game #")


def test_the_registry_sniffs_as_without_the_literal_prefilter(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seeds = load_seeds(generated_hands=0)
    rng = random.Random(3)
    heads = []
    for site, hands in sorted(seeds.hands.items()):
        heads.append(decode_text(("\n\n".join(hands) + "\n").encode("utf-8", "surrogateescape")))
        block = mutated_block(hands, seeds.foreign(site), rng, 40)[0]
        heads.append(decode_text(block[: 16 << 10]))
    with_prefilter = [detect(head) for head in heads]
    monkeypatch.setattr(line_forms, "_texts_needed", lambda pattern, flags: ())
    assert [detect(head) for head in heads] == with_prefilter
    assert {parser.site for parser in with_prefilter if parser} == set(seeds.hands)


def test_literal_tests_read_nothing_outside_their_spans() -> None:
    data = np.frombuffer(b"Seat 1Seat", dtype=np.uint8)
    # Line 0 "Seat 1", line 1 "Seat", line 2 runs past the data, line 3 ends before it starts.
    offsets = np.array([0, 6, 10, 99, 5], dtype=np.int64)
    rows = np.array([0, 1, 2, 3, -1, 7], dtype=np.int64)
    seat = np.frombuffer(b"Seat ", dtype=np.uint8)
    assert lines_with(data, offsets, rows, LITERAL_STARTS, seat).tolist() == [
        True, False, False, False, False, False
    ]
    assert lines_with(data, offsets, rows, LITERAL_CONTAINS, seat[:4]).tolist() == [
        True, True, False, False, False, False
    ]
    assert lines_with(data, offsets, rows, LITERAL_EQUALS, seat[:4]).tolist() == [
        False, True, False, False, False, False
    ]
    assert lines_with(data, offsets, rows, LITERAL_ANY, seat).tolist() == [
        True, True, False, False, False, False
    ]


def _plain_first_forms(
    line: pl.Series, forms: tuple[LineForm, ...], places: dict[str, np.ndarray]
) -> np.ndarray:
    """Classification as polars alone does it: every form's own test over every line."""
    chosen = np.full(len(line), len(forms), dtype=np.int64)
    for index in reversed(range(len(forms))):
        form = forms[index]
        if form.starts is not None:
            found = line.str.starts_with(form.starts)
        elif form.contains is not None:
            found = line.str.contains(form.contains, literal=True)
        elif form.equals is not None:
            found = line == form.equals
        elif form.pattern is not None:
            found = line.str.contains(form.pattern)
        else:
            found = pl.Series([True] * len(line))
        chosen[found.fill_null(False).to_numpy() & places[form.where]] = index
    return chosen


def test_classification_agrees_with_plain_polars_on_every_sites_seeds_and_mutations(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seeds = load_seeds(generated_hands=0)
    calls: list[tuple[pl.Series, tuple[LineForm, ...], dict[str, np.ndarray]]] = []
    first_forms = line_forms._first_form_indices

    def recorded(line, forms, places):  # type: ignore[no-untyped-def]
        calls.append((line, forms, places))
        return first_forms(line, forms, places)

    monkeypatch.setattr(line_forms, "_first_form_indices", recorded)
    rng = random.Random(18)
    classified_sites = set()
    for site, hands in sorted(seeds.hands.items()):
        blocks = [("\n\n".join(hands) + "\n").encode("utf-8", errors="surrogateescape")]
        blocks.append(mutated_block(hands, seeds.foreign(site), rng, 200)[0])
        for number, block in enumerate(blocks):
            before = len(calls)
            parse_bytes(block, f"{site}-{number}.txt")
            if len(calls) > before:
                classified_sites.add(site)
    assert len(classified_sites) >= 10, classified_sites
    for line, forms, places in calls:
        plain = _plain_first_forms(line, forms, places)
        assert np.array_equal(first_forms(line, forms, places), plain)


def test_the_compiled_tests_see_a_strings_bytes() -> None:
    data, offsets = series_bytes(pl.Series(["Seat 1", "", "€ 5"]))
    assert bytes(data) == "Seat 1€ 5".encode()
    assert offsets.tolist() == [0, 6, 6, 11]


def test_a_null_line_has_no_form() -> None:
    line = pl.Series(["Seat 1", None, "abc", ""], dtype=pl.String)
    forms = (
        LineForm("blank", equals=""),
        LineForm("seat", starts="Seat "),
        LineForm("b", pattern="b"),
    )
    places = {"any": np.ones(len(line), dtype=bool)}
    assert line_forms._first_form_indices(line, forms, places).tolist() == [1, 3, 2, 0]


def test_decoded_fields_decode_each_kind_once_per_frame(monkeypatch: pytest.MonkeyPatch) -> None:
    lines = pl.DataFrame(
        {
            "hand": [0, 0, 1, 1],
            "kind": [1, 2, 1, 2],
            "line": ["Seat 1: Ann ($5)", "Ann: folds", "Seat 2: Bob ($7)", "Bob: checks"],
        }
    )
    seat = r"^Seat (?P<seat>\d+): (?P<player>.+) \((?P<stack>[^)]*)\)$"
    decoded = []
    real = line_forms.kind_fields

    def counted(*arguments: object) -> pl.DataFrame:
        decoded.append(arguments[1:3])
        return real(*arguments)  # type: ignore[arg-type]

    monkeypatch.setattr(line_forms, "kind_fields", counted)
    fields = line_forms.DecodedFields()
    first = fields(lines, 1, seat, "hand")
    assert first.equals(real(lines, 1, seat, "hand"))
    assert first["player"].to_list() == ["Ann", "Bob"]
    assert fields(lines, 1, seat, "hand") is first
    fields(lines, 2, r"^(?P<player>.+?): (?P<verb>\w+)$", "hand")
    fields(lines, 1, seat, "hand", "kind")  # other context columns: another decoding
    copy = lines.clone()  # another frame, even with the same rows, is decoded for itself
    assert fields(copy, 1, seat, "hand").equals(first)
    assert decoded == [(1, seat), (2, r"^(?P<player>.+?): (?P<verb>\w+)$"), (1, seat), (1, seat)]
