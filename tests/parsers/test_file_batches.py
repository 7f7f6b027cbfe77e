"""Small files parsed as one batch give each file what parsing it alone gives."""

from __future__ import annotations

import random

import numpy as np
import polars as pl
import pytest

import parsers
from parsers.base import ParseResult
from parsers.engine import file_batches
from parsers.engine.assembly import SourceFiles, batch_files
from parsers.engine.file_batches import FileBatchParser
from parsers.text import decode_lines
from tests.fuzzing import Seeds, load_seeds, mutate_hand

BATCHED = sorted(parser.site for parser in parsers.PARSERS if isinstance(parser, FileBatchParser))


@pytest.fixture(scope="module")
def seeds() -> Seeds:
    return load_seeds(generated_hands=0)


BANNER = b"Exported by the site's client\n\n"


def _files(site: str, seeds: Seeds, rng: random.Random) -> list[bytes]:
    """Files of a few whole hands each: intact seeds, mutated ones (quarantines, notes, other
    games), an empty file and, first, one with a banner before its first hand."""
    hands = seeds.hands[site]
    files = [
        ("\n\n".join(rng.choice(hands) for _ in range(rng.randint(1, 6))) + "\n").encode()
        for _ in range(3)
    ]
    foreign = seeds.foreign(site)
    for _ in range(3):  # an intact first hand, as a real file opens, then mutated ones
        texts = [rng.choice(hands)]
        for _ in range(rng.randint(1, 10)):
            texts.append(mutate_hand(rng.choice(hands), rng, foreign)[0])
        files.append(("\n\n".join(texts) + "\n").encode("utf-8", errors="surrogateescape"))
    files.insert(2, b"")
    files[0] = BANNER + files[0]
    return files


def _batch(parser, files: list[bytes], names: list[str]):  # type: ignore[no-untyped-def]
    decoded = [decode_lines(data) for data in files]
    sizes = np.array([len(item.lines) for item in decoded], dtype=np.int64)
    return parser.parse_files(
        pl.concat([item.lines for item in decoded]),
        np.concatenate([item.offsets for item in decoded]),
        np.concatenate(([0], np.cumsum(sizes)[:-1])),
        names,
    )


def _assert_same(batched: ParseResult, alone: ParseResult, name: str) -> None:
    assert (
        batched.hands_found,
        batched.parsed,
        batched.skipped,
        batched.rejected,
        batched.skipped_games,
    ) == (alone.hands_found, alone.parsed, alone.skipped, alone.rejected, alone.skipped_games), name
    for table, rows in alone.tables.items():
        assert batched.tables[table].equals(rows), (name, table)


@pytest.mark.parametrize("site", BATCHED)
def test_a_batch_of_files_gives_each_file_its_own_result(
    site: str, seeds: Seeds, monkeypatch: pytest.MonkeyPatch
) -> None:
    if site not in seeds.hands:
        pytest.skip(f"no seed hands for {site}")
    parser = next(parser for parser in parsers.PARSERS if parser.site == site)
    layouts: list[SourceFiles | None] = []

    def recorded(*arguments):  # type: ignore[no-untyped-def]
        layouts.append(batch_files(*arguments))
        return layouts[-1]

    monkeypatch.setattr(file_batches, "batch_files", recorded)
    rng = random.Random(14)
    for banner_later in (False, True):  # a later file's banner: the files are parsed alone
        layouts.clear()
        files = [data for data in _files(site, seeds, rng) if _decodes(data)]
        files = files[:3] if banner_later else files  # the refusal needs no more files
        # Blank lines before a later file's first hand are no text: the batch stands.
        files[-1] = (BANNER if banner_later else b"\n\n") + files[-1]
        names = [f"{site}/{index}.txt" for index in range(len(files))]
        batched = _batch(parser, files, names)
        assert len(batched) == len(files)
        assert [layout is not None for layout in layouts] == ([] if banner_later else [True])
        for data, name, result in zip(files, names, batched):
            decoded = decode_lines(data)
            _assert_same(result, parser.parse(decoded.lines, decoded.offsets, name), name)


def _decodes(data: bytes) -> bool:
    try:
        decode_lines(data)
    except ValueError:
        return False
    return True


def test_a_file_that_does_not_open_with_a_hand_is_parsed_alone() -> None:
    starts = np.array([True, False, True, False, False, True, False])
    # Files at lines 0, 2 and 5: each opens with a hand; hands 0, 1 and 2.
    layout = batch_files(starts, np.array([0, 2, 5]), ["a", "b", "c"])
    assert layout is not None
    assert layout.first_hand.tolist() == [0, 1, 2]
    assert layout.of_hands(np.array([-1, 0, 1, 2])).tolist() == [0, 0, 1, 2]
    # An empty file (b, at line 2 like c) holds no hand.
    layout = batch_files(starts, np.array([0, 2, 2]), ["a", "b", "c"])
    assert layout is not None and layout.of_hands(np.array([1])).tolist() == [2]
    # A file whose first line opens no hand (c, from line 4): the batch is refused.
    assert batch_files(starts, np.array([0, 2, 4]), ["a", "b", "c"]) is None
