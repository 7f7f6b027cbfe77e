"""Lookup tables of the hi/lo kernel, built on first use and cached on disk.

High (H45): without flushes the best Omaha high depends only on the rank multiset of the
four hole cards (C(16, 4) = 1,820 multisets) and of the five board cards (C(17, 5) = 6,188).
The table holds the best non-flush high value for every pair, board-major so that players
sharing a board read the same 3.6 KB row. A multiset's index is its combinatorial number:
sorted ranks ``r_0 <= r_1 <= ...`` become distinct ``r_i + i`` and the index is
``sum(C(r_i + i, i + 1))``. Flushes are added by the kernel from `EvaluatorTables.flush`.

Low (LOW2): only the distinct ranks A..8 matter; an 8-bit mask for the hole and one for
the board index a 256 x 256 table of the best low value (0 = none).

Only the 22 MB high table is worth caching; it is written once, atomically, as ``.npy`` in
``$HILO_CACHE_DIR`` (default ``$XDG_CACHE_HOME/hilo`` or ``~/.cache/hilo``) and loaded with
``mmap_mode='r'`` so every process of a pool shares the same pages.
"""

from __future__ import annotations

import itertools
import math
import os
import tempfile
import threading
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import numpy as np
import numpy.typing as npt

from pipeline.evaluator.classes import ACE, RANK_COUNT, high_classes, low_classes

__all__ = [
    "BOARD_MULTISET_COUNT",
    "HOLE_MULTISET_COUNT",
    "INVALID_CARD_BIT",
    "EvaluatorTables",
    "build_high_table",
    "cache_directory",
    "high_table_path",
    "load_tables",
]

HOLE_MULTISET_COUNT = math.comb(RANK_COUNT + 3, 4)  # 1,820
BOARD_MULTISET_COUNT = math.comb(RANK_COUNT + 4, 5)  # 6,188
PAIR_MULTISET_COUNT = math.comb(RANK_COUNT + 1, 2)  # 91
TRIPLE_MULTISET_COUNT = math.comb(RANK_COUNT + 2, 3)  # 455
CARD_COUNT = 52
# Every code >= 52 maps to this bit so that one shift detects it; at most 11 cards (six
# hole, five board) are summed per row, so sums of card bits stay below 2**64 and never wrap.
INVALID_CARD_BIT = np.uint64(1 << 52)
TABLE_VERSION = 1


# Layout of `EvaluatorTables.card_table`: every small table in one uint64 array, so the
# kernels keep one base pointer in a register instead of six.
CARD_BIT_OFFSET = 0
CARD_INFO_OFFSET = 256
HOLE_TERM_OFFSET = 512
BOARD_TERM_OFFSET = HOLE_TERM_OFFSET + 4 * RANK_COUNT
CARD_TABLE_LENGTH = BOARD_TERM_OFFSET + 5 * RANK_COUNT
CARD_INFO_LOW_SHIFT = 16
CARD_INFO_RANK_SHIFT = 24


@dataclass(frozen=True, slots=True)
class EvaluatorTables:
    """Every table the kernels read; all arrays are read-only.

    Attributes
    ----------
    card_table
        uint64[629], indexed by card code (any uint8 is safe) or sorted rank:

        - ``[0 + code]``: ``1 << code``, `INVALID_CARD_BIT` for codes >= 52; summed and
          or-ed over a row, the two agree only if no card repeats.
        - ``[256 + code]``: ``suit_nibble | low_bit << 16 | rank << 24`` where
          ``suit_nibble = 1 << (4 * suit)`` (a sum counts cards per suit) and ``low_bit``
          is the bit of the card's low rank (A = bit 0, 2..8 = bits 1..7, 0 above 8).
        - ``[512 + 13 * i + r]``: ``C(r + i, i + 1)`` for the i-th smallest hole rank.
        - ``[564 + 13 * i + r]``: ``C(r + i, i + 1) * 1820`` for the i-th smallest board rank.
    flush
        uint16[8192]: value of a five-card flush (or straight flush) by its rank bit mask.
    low
        uint8[65536]: best low value by ``board_mask << 8 | hole_mask``.
    high
        uint16[6188 * 1820]: best non-flush high by ``board_index * 1820 + hole_index``.
    """

    card_table: npt.NDArray[np.uint64]
    flush: npt.NDArray[np.uint16]
    low: npt.NDArray[np.uint8]
    high: npt.NDArray[np.uint16]


ArrayType = TypeVar("ArrayType", bound=np.ndarray)


def _read_only(array: ArrayType) -> ArrayType:
    array.flags.writeable = False
    return array


def _card_table() -> npt.NDArray[np.uint64]:
    table = np.zeros(CARD_TABLE_LENGTH, dtype=np.uint64)
    table[CARD_BIT_OFFSET : CARD_BIT_OFFSET + 256] = INVALID_CARD_BIT
    for code in range(CARD_COUNT):
        rank, suit = divmod(code, 4)
        if rank == ACE:
            low_bit = 1
        elif rank <= 6:
            low_bit = 1 << (rank + 1)
        else:
            low_bit = 0
        table[CARD_BIT_OFFSET + code] = 1 << code
        table[CARD_INFO_OFFSET + code] = (
            (1 << (4 * suit)) | (low_bit << CARD_INFO_LOW_SHIFT) | (rank << CARD_INFO_RANK_SHIFT)
        )
    for position in range(4):
        for rank in range(RANK_COUNT):
            table[HOLE_TERM_OFFSET + position * RANK_COUNT + rank] = math.comb(
                rank + position, position + 1
            )
    for position in range(5):
        for rank in range(RANK_COUNT):
            table[BOARD_TERM_OFFSET + position * RANK_COUNT + rank] = (
                math.comb(rank + position, position + 1) * HOLE_MULTISET_COUNT
            )
    return _read_only(table)


def _multiset_index(sorted_ranks: tuple[int, ...]) -> int:
    return sum(
        math.comb(rank + position, position + 1) for position, rank in enumerate(sorted_ranks)
    )


def _non_flush_values() -> dict[tuple[int, ...], int]:
    """Value of every five-card rank multiset without a flush, keyed by sorted ranks."""
    return {
        tuple(sorted(high_class.ranks)): value
        for value, high_class in enumerate(high_classes(), start=1)
        if not high_class.is_flush
    }


def _flush_table() -> npt.NDArray[np.uint16]:
    table = np.zeros(1 << RANK_COUNT, dtype=np.uint16)
    for value, high_class in enumerate(high_classes(), start=1):
        if high_class.is_flush:
            table[sum(1 << rank for rank in high_class.ranks)] = value
    return _read_only(table)


def _low_table() -> npt.NDArray[np.uint8]:
    """LOW2: best low of 2 hole ranks + 3 other board ranks, by ``board_mask << 8 | hole_mask``."""
    five_rank_value = np.zeros(256, dtype=np.uint8)
    for value, low_ranks in enumerate(low_classes(), start=1):
        five_rank_value[sum(1 << (low_rank - 1) for low_rank in low_ranks)] = value
    masks = np.arange(256)
    table = np.zeros((256, 256), dtype=np.uint8)
    for hole_pair in itertools.combinations(range(8), 2):
        pair_mask = (1 << hole_pair[0]) | (1 << hole_pair[1])
        hole_has_pair = (masks & pair_mask) == pair_mask
        for board_triple in itertools.combinations(range(8), 3):
            triple_mask = sum(1 << bit for bit in board_triple)
            if triple_mask & pair_mask:
                continue
            board_has_triple = (masks & triple_mask) == triple_mask
            value = five_rank_value[pair_mask | triple_mask]
            np.maximum(
                table,
                np.outer(board_has_triple, hole_has_pair) * value,
                out=table,
                casting="unsafe",
            )
    return _read_only(table.reshape(-1))


def build_high_table() -> npt.NDArray[np.uint16]:
    """Build the H45 table (best non-flush high) in memory.

    Returns
    -------
    numpy.ndarray
        uint16 array of length 6188 * 1820, indexed ``board_index * 1820 + hole_index``.
        Entries for impossible rank multisets (five of a rank) are meaningless.
    """
    values = _non_flush_values()
    pairs = list(itertools.combinations_with_replacement(range(RANK_COUNT), 2))
    triples = list(itertools.combinations_with_replacement(range(RANK_COUNT), 3))
    pair_triple = np.zeros((PAIR_MULTISET_COUNT, TRIPLE_MULTISET_COUNT), dtype=np.uint16)
    for pair in pairs:
        for triple in triples:
            # Five of one rank has no value; it never occurs in a real deal.
            pair_triple[_multiset_index(pair), _multiset_index(triple)] = values.get(
                tuple(sorted(pair + triple)), 0
            )
    hole_pairs = np.zeros((HOLE_MULTISET_COUNT, 6), dtype=np.intp)
    for hole in itertools.combinations_with_replacement(range(RANK_COUNT), 4):
        hole_pairs[_multiset_index(hole)] = [
            _multiset_index(pair) for pair in itertools.combinations(hole, 2)
        ]
    board_triples = np.zeros((BOARD_MULTISET_COUNT, 10), dtype=np.intp)
    for board in itertools.combinations_with_replacement(range(RANK_COUNT), 5):
        board_triples[_multiset_index(board)] = [
            _multiset_index(triple) for triple in itertools.combinations(board, 3)
        ]
    # Max over the 6 hole pairs first (1,820 x 455), then over the 10 board triples,
    # so the large table costs 10 row gathers instead of 60.
    best_by_triple = np.ascontiguousarray(pair_triple[hole_pairs].max(axis=1).T)
    high = best_by_triple[board_triples[:, 0]]
    for column in range(1, 10):
        np.maximum(high, best_by_triple[board_triples[:, column]], out=high)
    return high.reshape(-1)


def cache_directory() -> Path:
    """Directory of the on-disk table cache (``$HILO_CACHE_DIR`` overrides)."""
    configured = os.environ.get("HILO_CACHE_DIR")
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "hilo"


def high_table_path() -> Path:
    """Path of the cached H45 table for this table version."""
    return cache_directory() / f"omaha-high-h45-v{TABLE_VERSION}.npy"


def _spot_check(high: npt.NDArray[np.uint16]) -> bool:
    """Recompute a few entries from first principles to reject a foreign or damaged file."""
    if high.shape != (BOARD_MULTISET_COUNT * HOLE_MULTISET_COUNT,) or high.dtype != np.uint16:
        return False
    values = _non_flush_values()
    generator = np.random.default_rng(TABLE_VERSION)
    for _ in range(24):
        cards = generator.choice(CARD_COUNT, size=9, replace=False) // 4
        hole = tuple(sorted(int(rank) for rank in cards[:4]))
        board = tuple(sorted(int(rank) for rank in cards[4:]))
        expected = max(
            values[tuple(sorted(pair + triple))]
            for pair in itertools.combinations(hole, 2)
            for triple in itertools.combinations(board, 3)
        )
        index = _multiset_index(board) * HOLE_MULTISET_COUNT + _multiset_index(hole)
        if int(high[index]) != expected:
            return False
    return True


def _write_atomically(path: Path, array: npt.NDArray[np.generic]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor, temporary_name = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        with os.fdopen(descriptor, "wb") as handle:
            np.save(handle, array)
            handle.flush()
            os.fsync(handle.fileno())
        # mkstemp creates 0600; other users and containers sharing the cache must read it.
        os.chmod(temporary_name, 0o644)
        # Readers either see no file or the complete one, never a partial write.
        os.replace(temporary_name, path)
    except BaseException:
        Path(temporary_name).unlink(missing_ok=True)
        raise


def _load_high_table() -> npt.NDArray[np.uint16]:
    path = high_table_path()
    if path.exists():
        try:
            mapped = np.load(path, mmap_mode="r")
        except (OSError, ValueError):
            mapped = None
        if mapped is not None and _spot_check(mapped):
            return np.asarray(mapped)
    high = build_high_table()
    try:
        _write_atomically(path, high)
    except OSError as error:
        warnings.warn(
            f"cannot cache the evaluator table at {path} ({error}); using it from memory",
            RuntimeWarning,
            stacklevel=3,
        )
        return _read_only(high)
    return np.asarray(np.load(path, mmap_mode="r"))


_lock = threading.Lock()
_tables: EvaluatorTables | None = None


def load_tables() -> EvaluatorTables:
    """Return the evaluator tables, built or loaded once per process.

    Returns
    -------
    EvaluatorTables
        Shared, read-only tables; the high table is memory-mapped from the disk cache.
    """
    global _tables
    if _tables is None:
        with _lock:
            if _tables is None:
                _tables = EvaluatorTables(
                    card_table=_card_table(),
                    flush=_flush_table(),
                    low=_low_table(),
                    high=_load_high_table(),
                )
    return _tables
