"""All-in equity: each player's expected share of every pot of an all-in hand.

For every all-in spot (`pipeline.equity.spots`) every remaining board is enumerated exactly
(`pipeline.equity.enumeration`) and each board is settled with the audit's own rules, so the
expected amount of a player is the average of the integer payouts over all run-outs, odd units
included: the expected amounts of a pot sum to the pot after rake (up to float rounding).
Run-it-twice hands settle each board's half of the pot on its own; each board's run-out is
uniform over the same remaining cards, so its expectation is the single-board one applied to
that half. Equity and expected amounts are expectations, stored as float64; money columns
(``pot_amount``, ``actual_amount``) stay int64 minor units.
"""

from __future__ import annotations

import threading
import zlib

import numba
import numpy as np
import numpy.typing as npt
import polars as pl

from pipeline.audit_outputs import ALLIN_EQUITY_SCHEMA
from pipeline.equity import enumeration
from pipeline.equity.spots import SpotTable, find_spots

__all__ = [
    "ALLIN_EQUITY_SCHEMA",
    "SpotTable",
    "allin_equity_rows",
    "expected_payouts",
    "find_spots",
    "high_by_hole",
    "spot_seeds",
]

# Boards drawn for a sampled spot. A payout lies in [0, pot], so its variance is at most
# pot² / 4 and the standard error of its mean at most pot / (2 √SAMPLES) = 0.1 % of the pot.
SAMPLES = 250_000
# Measured on 2 cores (bench_ev): sampling heads-up preflop is about 3x faster than dealing
# every board (random boards miss the evaluator's table cache) but several times slower than
# the exact preflop board classes, so the audit uses ``exact``; ``sampled`` stays for
# comparison and for callers who want it.
METHODS = ("exact", "enumerate", "sampled")
# Spots below which the thread pool costs more than it saves (a preflop spot is worth many).
PARALLEL_MINIMUM_SPOTS = 64

_high_by_hole: npt.NDArray[np.uint16] | None = None
_high_by_hole_lock = threading.Lock()
_NO_TABLE = np.zeros(1, dtype=np.uint16)  # passed instead when no spot reads it


def high_by_hole() -> npt.NDArray[np.uint16]:
    """The evaluator's high table hole-major: row ``hole_index`` holds that hole multiset's
    value on each of the 6,188 board rank multisets (`pipeline.evaluator.tables`, which is
    board-major). A preflop spot reads every board multiset for each player: one contiguous
    12 KB row instead of 6,188 reads 3.6 KB apart. Built once per process (22 MB, about
    0.1 s), on the first preflop spot."""
    global _high_by_hole
    if _high_by_hole is None:
        from pipeline.evaluator.tables import BOARD_MULTISET_COUNT, HOLE_MULTISET_COUNT, load_tables

        with _high_by_hole_lock:
            if _high_by_hole is None:
                board_major = load_tables().high.reshape(BOARD_MULTISET_COUNT, HOLE_MULTISET_COUNT)
                table = np.ascontiguousarray(board_major.T).reshape(-1)
                table.flags.writeable = False
                _high_by_hole = table
    return _high_by_hole


def _check_spots(spots: SpotTable) -> None:
    """CSR offsets and array lengths the kernel trusts: checked here, before it runs."""
    count = spots.spots
    for name, starts, rows in (
        ("player_start", spots.player_start, len(spots.player_row)),
        ("pot_start", spots.pot_start, len(spots.pot_row)),
    ):
        if len(starts) != count + 1 or starts[0] != 0 or starts[-1] != rows or (np.diff(starts) < 0).any():
            raise ValueError(f"{name} is not a valid offset array over {rows} rows")
    width = spots.hole.shape[1] if spots.hole.ndim == 2 else 0
    if spots.hole.shape != (len(spots.player_row), width) or not 4 <= width <= 6:
        raise ValueError("hole must be (players, 4), (players, 5) or (players, 6)")
    if spots.known.shape != (count, 5):
        raise ValueError("known must be (spots, 5)")
    for name in ("known_count", "unit", "board_count", "street", "hole_count"):
        if len(getattr(spots, name)) != count:
            raise ValueError(f"{name} must have one value per spot")
    if len(spots.pot_amount) != len(spots.pot_row) or len(spots.pot_eligible) != len(spots.pot_row):
        raise ValueError("pot_amount and pot_eligible must have one value per pot")


def expected_payouts(
    spots: SpotTable,
    *,
    method: str = "exact",
    seeds: npt.NDArray[np.int64] | None = None,
    parallel: bool | None = None,
) -> tuple[
    npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.int64],
    npt.NDArray[np.int64], npt.NDArray[np.bool_], npt.NDArray[np.float64],
]:  # fmt: skip
    """Expected amount of every spot player in every spot pot over the run-outs.

    ``method``: ``exact`` enumerates every board (preflop by classes of boards that play alike,
    each counted: `enumeration._preflop_classes`); ``enumerate`` deals every board one by one
    on every street (the plain way, kept to check and measure the other); ``sampled`` draws
    `SAMPLES` boards per spot (seeded per spot by ``seeds``, so a rerun gives the same values).

    Returns
    -------
    expected, standard_error
        float64 (pots, `enumeration.MAX_PLAYERS`): column ``i`` is the spot's player ``i``;
        the standard error is 0 for exact spots.
    runouts
        int64 per spot: boards enumerated or drawn.
    status
        int64 per spot: `enumeration.STATUS_OK` or why the spot was not computed.
    exact
        bool per spot.
    variance
        float64 (spots, `enumeration.MAX_PLAYERS`): the variance over the run-outs of each
        player's total payout from the spot's pots (the pots' joint outcomes for two or three
        pots; beyond, bounded as if the pots were perfectly correlated).
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    from pipeline.evaluator.api import PARALLEL_MINIMUM_ROWS, _run_kernel
    from pipeline.evaluator.tables import load_tables

    _check_spots(spots)
    tables = load_tables()
    exact = np.full(spots.spots, method != "sampled", dtype=bool)
    # Per spot: 0 exact, -1 exact dealing every board, > 0 boards to draw.
    samples = np.where(exact, -1 if method == "enumerate" else 0, SAMPLES).astype(np.int64)
    if seeds is None:
        seeds = np.arange(spots.spots, dtype=np.int64)
    expected = np.zeros(len(spots.pot_row) * enumeration.MAX_PLAYERS, dtype=np.float64)
    spread = np.zeros_like(expected)
    variance = np.zeros(spots.spots * enumeration.MAX_PLAYERS, dtype=np.float64)
    runouts = np.zeros(spots.spots, dtype=np.int64)
    status = np.full(spots.spots, enumeration.STATUS_BAD_INPUT, dtype=np.int64)
    if spots.spots:
        threads = max(1, numba.get_num_threads())
        # Preflop spots (and Courchevel ones, one board card known) are the costly ones.
        heavy = spots.known_count <= 1
        # Preflop spots counted by class read the hole-major high table.
        classes = bool(((spots.known_count == 0) & (samples == 0)).any())
        wanted = spots.spots >= PARALLEL_MINIMUM_SPOTS or bool(heavy.sum() >= 2)
        _run_kernel(
            enumeration.expected_payouts_serial, enumeration.expected_payouts_parallel,
            PARALLEL_MINIMUM_ROWS if wanted else 0, parallel,
            np.ascontiguousarray(spots.player_start, dtype=np.int64),
            np.ascontiguousarray(spots.hole, dtype=np.uint8).reshape(-1), spots.hole.shape[1],
            np.ascontiguousarray(spots.hole_count, dtype=np.int64),
            np.ascontiguousarray(spots.known, dtype=np.uint8).reshape(-1),
            np.ascontiguousarray(spots.known_count, dtype=np.int64),
            np.ascontiguousarray(spots.pot_start, dtype=np.int64),
            np.ascontiguousarray(spots.pot_amount, dtype=np.int64),
            np.ascontiguousarray(spots.pot_eligible, dtype=np.int64),
            np.ascontiguousarray(spots.unit, dtype=np.int64),
            np.ascontiguousarray(spots.board_count, dtype=np.int64),
            samples, np.ascontiguousarray(seeds, dtype=np.int64), expected, spread, variance,
            runouts, status,
            tables.card_table, tables.flush, tables.low, tables.high,
            high_by_hole() if classes else _NO_TABLE,
            # A preflop spot costs ~10^3 turn spots: one per task balances the threads.
            1 if heavy.any() else max(1, spots.spots // (8 * threads)),
        )  # fmt: skip
    width = enumeration.MAX_PLAYERS
    return (
        expected.reshape(-1, width), spread.reshape(-1, width), runouts, status, exact,
        variance.reshape(-1, width),
    )  # fmt: skip


def spot_seeds(spots: SpotTable, hands: pl.DataFrame) -> npt.NDArray[np.int64]:
    """A seed per spot from its site and hand number: reruns draw the same boards."""
    keys = hands.select(key=pl.col("site") + pl.lit("\x1f") + pl.col("hand_id"))["key"]
    return np.array(
        [zlib.crc32(key.encode()) for key in keys.gather(spots.hand_row).to_list()],
        dtype=np.int64,
    )


def allin_equity_rows(
    spots: SpotTable,
    hands: pl.DataFrame,
    players: pl.DataFrame,
    pot_index: npt.NDArray[np.int64],
    paid_pot: npt.NDArray[np.int64],
    paid_player: npt.NDArray[np.int64],
    paid_amount: npt.NDArray[np.int64],
    *,
    method: str = "exact",
    parallel: bool | None = None,
) -> pl.DataFrame:
    """One `ALLIN_EQUITY_SCHEMA` row per spot pot and eligible player.

    ``pot_index`` is per pot row (0 main); ``paid_*`` are the rules' payments for the dealt
    board(s) (pot row, player row, amount), which give ``actual_amount``.
    """
    expected, spread, runouts, status, exact, variance = expected_payouts(
        spots, method=method, seeds=spot_seeds(spots, hands), parallel=parallel
    )
    pot_spot = np.repeat(np.arange(spots.spots), np.diff(spots.pot_start))
    # One row per computed spot pot and eligible player, pot by pot, players in order.
    eligible = ((spots.pot_eligible[:, None] >> np.arange(enumeration.MAX_PLAYERS)) & 1).astype(bool)
    eligible &= (status[pot_spot] == enumeration.STATUS_OK)[:, None]
    pot, local = np.nonzero(eligible)
    if not len(pot):
        return pl.DataFrame(schema=ALLIN_EQUITY_SCHEMA)
    pot = pot.astype(np.int64)
    local = local.astype(np.int64)
    spot = pot_spot[pot]
    player_row = spots.player_row[spots.player_start[spot] + local]
    # What the rules paid each player from each spot pot (rows of other pots left out first).
    spot_paid = np.isin(paid_pot, spots.pot_row)
    paid: dict[tuple[int, int], int] = {}
    for q, p, amount in zip(
        paid_pot[spot_paid].tolist(), paid_player[spot_paid].tolist(), paid_amount[spot_paid].tolist()
    ):
        paid[(q, p)] = paid.get((q, p), 0) + amount
    actual = np.array(
        [paid.get((q, p), 0) for q, p in zip(spots.pot_row[pot].tolist(), player_row.tolist())],
        dtype=np.int64,
    )
    contenders = eligible.sum(axis=1)[pot].astype(np.int64)
    pot_amount = spots.pot_amount[pot]
    expected_amount = expected[pot, local]
    equity = np.divide(
        expected_amount, pot_amount, out=np.zeros(len(pot), dtype=np.float64), where=pot_amount > 0
    )
    hand_row = spots.hand_row[spot]
    return pl.DataFrame(
        {
            "site": hands["site"].gather(hand_row),
            "hand_id": hands["hand_id"].gather(hand_row),
            "player": players["player"].gather(player_row),
            "street": spots.street[spot],
            "pot_index": pot_index[spots.pot_row[pot]],
            "contenders": contenders,
            "pot_amount": pot_amount,
            "equity": equity,
            "expected_amount": expected_amount,
            "actual_amount": actual,
            "exact": exact[spot],
            "standard_error": spread[pot, local],
            "runouts": runouts[spot],
            "spot_variance": variance[spot, local],
        }
    ).cast(ALLIN_EQUITY_SCHEMA)
