"""The compiled PokerStars reader against the block parser, and its byte primitives.

The block parser (``parse_by_block_parser``) is the reference: for every input the tables and
counts of the two paths must be equal, on the real corpus, on generated archives of several
kinds, on many files parsed in one pass, and on mutated hands. The byte primitives are
compared with the polars decoders they stand in for.
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parsers.pokerstars import compiled_reader as compiled
from parsers.byte_kernels import (
    card_list,
    literal,
    money_cents,
    split_lines,
    strings_array,
    strings_arrays,
)
from parsers.columns import cards_list, money_by_expressions
from parsers.pokerstars import HAND_START, PokerStarsParser, parse_with_block_parser
from parsers.text import UnreadableFile, decode_lines, decode_text
from pipeline.generate import generate
from pipeline.positions import LABEL_NAMES, assign_positions, position_codes
from tests.fuzzing import differences, load_seeds, mutated_block
from tests.shared_data import CORPUS, needs_corpus

PARSER = PokerStarsParser()


def stars_files() -> list[Path]:
    if not CORPUS.exists():
        return []
    return sorted((CORPUS / "Stars").rglob("*.txt")) + sorted((CORPUS / "other").glob("Stars-*"))


def assert_same_as_block_parser(data: bytes, name: str = "x.txt") -> int:
    """Parse ``data`` both ways; return how many hands the compiled reader took."""
    decoded = decode_lines(data)
    compiled_result = PARSER.parse(decoded.lines, decoded.offsets, name)
    reference = PARSER.parse_by_block_parser(decoded.lines, decoded.offsets, name)
    assert differences(compiled_result, reference) == []
    starts = decoded.lines.str.contains(HAND_START).fill_null(False).to_numpy()
    new_file = np.zeros(len(decoded.lines), dtype=bool)
    new_file[:1] = True
    return int(compiled.read_block(decoded.lines, starts, new_file).accepted.sum())


@needs_corpus
@pytest.mark.parametrize("path", stars_files(), ids=lambda path: path.name)
def test_corpus_files_equal_the_block_parser(path: Path) -> None:
    assert_same_as_block_parser(path.read_bytes(), str(path))


@needs_corpus
def test_corpus_hands_are_mostly_read_compiled() -> None:
    """Every corpus Omaha Hi/Lo hand but the ones in forms it leaves alone is read compiled;
    the hands of the other games hilo reads (Big O, Courchevel...) go to the block parser."""
    taken = sum(assert_same_as_block_parser(path.read_bytes()) for path in stars_files())
    parsed = 0
    for path in stars_files():
        decoded = decode_lines(path.read_bytes())
        result = PARSER.parse(decoded.lines, decoded.offsets, "x")
        games = result.tables["hands"].column("game").to_pylist()
        parsed += games.count("O8")
    assert taken == parsed  # today every stored corpus hand; a new form may lower this


@pytest.mark.parametrize(
    ("seed", "limit", "tournaments", "faults"),
    [(1, "mix", 0.3, 0.0), (2, "FL", 0.7, 0.2), (3, "PL", 0.0, 0.1), (4, "NL", 1.0, 0.0)],
)
def test_generated_archives_equal_the_block_parser(
    tmp_path: Path, seed: int, limit: str, tournaments: float, faults: float
) -> None:
    generate(
        600, seed, tmp_path, site="pokerstars", limit=limit, tournament_share=tournaments,
        fault_rate=faults, workers=1,
    )
    files = sorted((tmp_path / "pokerstars").glob("*.txt"))
    taken = sum(assert_same_as_block_parser(path.read_bytes(), path.name) for path in files)
    assert taken >= 590  # what the generator writes is the usual hand


def test_many_files_in_one_pass(tmp_path: Path) -> None:
    """Files parsed together (ingest's small-file batches) keep their own rows and counts,
    with compiled and block-parsed hands interleaved within and across files."""
    generate(300, 9, tmp_path, site="pokerstars", workers=1)
    texts = [path.read_bytes() for path in sorted((tmp_path / "pokerstars").glob("*.txt"))]
    # Damage some hands so that both paths have hands in the same files.
    rng = random.Random(5)
    texts = [
        text.replace(b"*** SUMMARY ***", b"*** SUMMARY ***\nfree text 12,34", 1)
        if rng.random() < 0.5
        else text
        for text in texts
    ]
    texts.insert(2, b"junk before the first hand\n" + texts[2])
    decoded = [decode_lines(text) for text in texts]
    lines = pl.concat([part.lines for part in decoded])
    offsets = np.concatenate([part.offsets for part in decoded])
    sizes = np.array([len(part.lines) for part in decoded])
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1])).astype(np.int64)
    names = [f"file-{number}.txt" for number in range(len(texts))]
    together = PARSER.parse_files(lines, offsets, starts, names)
    reference = parse_with_block_parser(lines, offsets, starts, names)
    assert len(together) == len(texts)
    for mine, theirs in zip(together, reference, strict=True):
        assert differences(mine, theirs) == []
    assert sum(result.rejected for result in together) >= 1
    assert together[2].tables["rejects"].column("reason")[0].as_py().startswith("text before")


@needs_corpus
def test_mutated_hands_equal_the_block_parser() -> None:
    seeds = load_seeds(generated_hands=100)
    rng = random.Random(7)
    for _ in range(12):
        data, _ = mutated_block(seeds.hands["pokerstars"], seeds.foreign("pokerstars"), rng, 60)
        assert_same_as_block_parser(data)


# -- the byte primitives -----------------------------------------------------------------------

AMOUNT_TEXT = st.text(alphabet="0123456789,.$€£₹ -ab", max_size=14)


@settings(deadline=None, max_examples=400)
@given(texts=st.lists(AMOUNT_TEXT, min_size=1, max_size=20))
def test_money_cents_reads_what_money_reads(texts: list[str]) -> None:
    """Where the compiled reader reads an amount, it is the amount the expressions read at both
    scales (a fractional chip amount is refused by the caller)."""
    data, offsets = _buffer(texts)
    for scale in (100, 1):
        expected = pl.select(money_by_expressions(pl.Series(texts), scale)).to_series().to_list()
        for index in range(len(texts)):
            value, fractional = money_cents(data, int(offsets[index]), int(offsets[index + 1]))
            if value < 0:
                continue  # left to the block parser, which explains it
            if scale == 1 and fractional:
                assert expected[index] is None
                continue
            assert expected[index] == (value if scale == 100 else value // 100), texts[index]


def test_money_cents_examples() -> None:
    for text, value in [("$1,234.5", 123450), ("€0.05", 5), ("12", 1200), ("1,00,000", 10000000)]:
        data = literal(text)
        assert money_cents(data, 0, len(data))[0] == value
    for text in ["1,2,3", "$", "1.", "12.345", "--1", "1 000", "1e5", "12345678901234"]:
        data = literal(text)
        assert money_cents(data, 0, len(data))[0] == -1, text


@settings(deadline=None, max_examples=300)
@given(texts=st.lists(st.text(alphabet="23456789TJQKAcdhsx 1", max_size=14), min_size=1))
def test_card_list_reads_what_cards_list_reads(texts: list[str]) -> None:
    data, offsets = _buffer(texts)
    expected = pl.select(cards_list(pl.Series(texts))).to_series().to_list()
    out = np.zeros(5, dtype=np.uint8)
    for index, text in enumerate(texts):
        count = card_list(data, int(offsets[index]), int(offsets[index + 1]), out)
        if count < 0:
            assert None in expected[index] or len(expected[index]) > 5, text
        else:
            assert out[:count].tolist() == expected[index], text


def _reference_lines(data: bytes) -> list[str]:
    text = data.decode("utf-8").replace("\r", "").replace("\u00a0", " ")
    pieces = text.split("\n")
    if pieces and pieces[-1] == "":
        pieces.pop()
    return [piece.rstrip(" \t") for piece in pieces]


@settings(deadline=None, max_examples=300)
@given(text=st.text(alphabet=st.sampled_from(list("ab \t\r\n\u00a0é€£"))))
def test_split_lines_cuts_like_the_text_decoder(text: str) -> None:
    data = text.encode()
    line_starts, offsets, content = split_lines(np.frombuffer(data, dtype=np.uint8))
    got = [bytes(content[offsets[i] : offsets[i + 1]]).decode() for i in range(len(line_starts))]
    assert got == _reference_lines(data)
    expected_starts = [0] + [i + 1 for i, byte in enumerate(data) if byte == 0x0A]
    assert line_starts.tolist() == expected_starts[: len(line_starts)]


@settings(deadline=None, max_examples=300)
@given(
    text=st.text(alphabet=st.sampled_from(list("ab \t\r\n\u00a0é€£"))),
    form=st.sampled_from(["utf-8", "utf-8-sig", "cp1252", "utf-16", "broken"]),
)
def test_decoded_text_is_the_decoded_lines_joined(text: str, form: str) -> None:
    # The sniffer's text: the lines every parser gets, by string methods where it can.
    if form == "broken":
        data = text.encode() + b"\xff\xfe\x80"
    else:
        data = text.encode(form, errors="replace")
    try:
        expected = "\n".join(decode_lines(data).lines.to_list())
    except UnreadableFile:
        with pytest.raises(UnreadableFile):
            decode_text(data)
        return
    assert decode_text(data) == expected


def test_strings_array_spans_and_nulls() -> None:
    data = literal("Hero: folds")
    array = strings_array(data, np.array([0, -1, 6]), np.array([4, -1, 11]))
    assert array.to_pylist() == ["Hero", None, "folds"]
    array.validate(full=True)
    # A span outside the data is null, never a read past it.
    assert strings_array(data, np.array([5]), np.array([99])).to_pylist() == [None]


@settings(deadline=None, max_examples=200)
@given(
    data=st.binary(max_size=40).map(lambda raw: bytes(b % 128 for b in raw)),
    extra=st.binary(max_size=20).map(lambda raw: bytes(b % 128 for b in raw)),
    rows=st.lists(
        st.tuples(
            st.booleans(),
            st.lists(st.tuples(st.integers(-2, 45), st.integers(-2, 45)), min_size=3, max_size=3),
        ),
        max_size=12,
    ),
    marked=st.integers(0, 12),
)
def test_strings_arrays_are_strings_array_of_each_field(
    data: bytes, extra: bytes, rows: list[tuple[bool, list[tuple[int, int]]]], marked: int
) -> None:
    # Every field as `strings_array` gives it from the buffer its row reads; a row past the
    # marks given, or a span outside its buffer, is null.
    marked = min(marked, len(rows))
    spans = np.array([[list(span) for span in fields] for _, fields in rows], dtype=np.int64)
    spans = spans.reshape(len(rows), 3, 2)
    from_extra = np.array([in_extra for in_extra, _ in rows[:marked]], dtype=bool)
    block, more = np.frombuffer(data, dtype=np.uint8), np.frombuffer(extra, dtype=np.uint8)
    arrays = strings_arrays(block, spans, more, from_extra)
    assert len(arrays) == 3
    for field, array in enumerate(arrays):
        array.validate(full=True)
        expected = [
            strings_array(more if from_extra[row] else block, *spans[row : row + 1, field].T)
            .to_pylist()[0]
            if row < marked
            else None
            for row in range(len(rows))
        ]
        assert array.to_pylist() == expected


@settings(deadline=None, max_examples=200)
@given(
    hands=st.lists(
        st.tuples(
            st.lists(st.tuples(st.integers(1, 10), st.booleans()), min_size=1, max_size=10),
            st.integers(1, 10),
        ),
        min_size=1,
        max_size=8,
    )
)
def test_positions_are_those_of_assign_positions(
    hands: list[tuple[list[tuple[int, bool]], int]],
) -> None:
    rows = []
    for hand, (seats, button) in enumerate(hands):
        for seat in sorted({seat for seat, _ in seats}):
            out = next(flag for number, flag in seats if number == seat)
            rows.append((hand, seat, out, button))
    frame = pl.DataFrame(
        rows, schema={"hand": pl.Int32, "seat": pl.Int16, "sitting_out": pl.Boolean,
                      "button_seat": pl.Int16}, orient="row",
    )
    expected = assign_positions(
        frame.drop("button_seat"), frame.select("hand", "button_seat").unique("hand")
    ).sort("hand", "seat")["position"].to_list()
    labels = position_codes(
        frame["hand"].to_numpy(), frame["seat"].to_numpy().astype(np.int64),
        frame["sitting_out"].to_numpy(), frame["button_seat"].to_numpy(),
    )
    assert [LABEL_NAMES[k] if k >= 0 else None for k in labels] == expected


def _buffer(texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
    encoded = [text.encode() for text in texts]
    offsets = np.concatenate(([0], np.cumsum([len(e) for e in encoded]))).astype(np.int64)
    return np.frombuffer(b"".join(encoded) or b"\0", dtype=np.uint8), offsets
