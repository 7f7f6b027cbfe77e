"""The audit: recompute every hand's payouts and compare them with what the site recorded.

All hands of a partition are audited together: contributions and pots come from polars
aggregations and one compiled pass (``pipeline.payouts``), hand strengths from the evaluator's
board-amortised entry, and the comparison is a handful of joins. Findings carry a stable
``kind`` (documented in docs/audit.md) and a ``detail`` a person can read without the raw file.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import polars as pl

from pipeline.betting import betting_findings
from pipeline.evaluator import (
    HIGH_CLASS_COUNT,
    LOW_CLASS_COUNT,
    describe_high,
    describe_low,
    evaluate_showdowns,
)
from pipeline.payouts import HALF_NAMES, PotTable, build_pots, split_pots
from pipeline.profiles import SiteProfile, rake_rule_for, site_profile

__all__ = [
    "AuditResult",
    "AuditSummary",
    "DISCREPANCY_SCHEMA",
    "FINDING_KINDS",
    "PAYOUT_SCHEMA",
    "audit_tables",
    "run_audit",
]

FINDING_KINDS = (
    "payout",
    "missing_winner",
    "unexpected_winner",
    "odd_chip",
    "rake",
    "chip_conservation",
    "bet_size",
    "raise_cap",
    "pot_limit",
    "blinds",
    "action_order",
    "button",
    "hand_description",
    "unevaluable",
)
PAYOUT_KINDS = ("payout", "missing_winner", "unexpected_winner", "odd_chip")

PAYOUT_SCHEMA = {
    "site": pl.String,
    "hand_id": pl.String,
    "pot_index": pl.Int8,
    "board_index": pl.Int8,
    "half": pl.String,
    "player": pl.String,
    "amount": pl.Int64,
}
DISCREPANCY_SCHEMA = {
    "site": pl.String,
    "hand_id": pl.String,
    "player": pl.String,
    "kind": pl.String,
    "expected": pl.Int64,
    "recorded": pl.Int64,
    "detail": pl.String,
}
MONEY_IN = ("post_sb", "post_bb", "post_dead", "ante", "call", "bet", "raise")
HAND_KEY = ["site", "hand_id"]


@dataclass(frozen=True)
class AuditResult:
    payouts: pl.DataFrame
    discrepancies: pl.DataFrame
    hands: int
    unevaluable: int


def _profile(site: str) -> SiteProfile:
    return site_profile(site)


def _keyed(frame: pl.DataFrame, hand_rows: pl.DataFrame) -> pl.DataFrame:
    """Attach ``hand_row`` and a hash of the player name, so later joins compare integers.

    Only the key column goes through the join; the looked-up row numbers are attached after,
    which spares copying every string column of a large table.
    """
    rows = _lookup(frame.select(hand_key=_hand_key()), hand_rows, "hand_key", ["hand_row"])
    keyed = frame.with_columns(rows).filter(pl.col("hand_row").is_not_null())
    if "player" in keyed.columns:
        keyed = keyed.with_columns(player_key=pl.col("player").hash(seed=0))
    return keyed


def _lookup(
    keys: pl.DataFrame, table: pl.DataFrame, on: str | list[str], columns: list[str]
) -> list[pl.Series]:
    """Columns of ``table`` for each row of ``keys`` (a left join that keeps row order)."""
    found = keys.join(table, on=on, how="left", maintain_order="left")
    return [found[name] for name in columns]


def _hand_key() -> pl.Expr:
    return pl.struct("site", "hand_id").hash(seed=0)


def _per_hand(values: pl.Series | np.ndarray, name: str) -> pl.Expr:
    """A per-hand column looked up by ``hand_row``."""
    return pl.lit(pl.Series(name, values)).gather(pl.col("hand_row"))


def _contenders(hands: pl.DataFrame, seats: pl.DataFrame, actions: pl.DataFrame) -> pl.DataFrame:
    """One row per seated player: chips put in, whether they gave up, clockwise order."""
    kind = pl.col("kind")
    amount = pl.col("amount").fill_null(0)
    per_player = (
        actions.with_columns(
            signed=pl.when(kind.is_in(MONEY_IN))
            .then(amount)
            .when(kind == "uncalled_return")
            .then(-amount)
            .otherwise(0),
            gave_up=kind.is_in(["fold", "muck"]),
            mucked=kind == "muck",
            showed=kind == "show",
        )
        .group_by("hand_row", "player_key")
        .agg(
            put_in=pl.col("signed").sum(),
            folded=pl.col("gave_up").any(),
            mucked=pl.col("mucked").any(),
            showed=pl.col("showed").any(),
        )
    )
    button = hands["button_seat"].cast(pl.Int32).fill_null(0)
    seats = seats.select("hand_row", "player_key", "seat", "player", "hole_cards")
    looked_up = _lookup(
        seats.select("hand_row", "player_key"),
        per_player,
        ["hand_row", "player_key"],
        ["put_in", "folded", "mucked", "showed"],
    )
    players = (
        seats.with_columns(looked_up)
        .with_columns(
            put_in=pl.col("put_in").fill_null(0),
            folded=pl.col("folded").fill_null(False),
            mucked=pl.col("mucked").fill_null(False),
            showed=pl.col("showed").fill_null(False),
            clockwise=(pl.col("seat").cast(pl.Int32) - _per_hand(button, "button") - 1) % 256,
        )
        .sort("hand_row", "clockwise")
    )
    return _return_silent_uncalled(players, hands)


def _return_silent_uncalled(players: pl.DataFrame, hands: pl.DataFrame) -> pl.DataFrame:
    """Give back the unmatched part of the largest contribution where the site does not print it.

    Some sites (site-formats.md §1.3: 888, Everleaf, Party cash) hand an uncalled bet back
    without a word; the chips were never in the pot. Where returns are printed this changes
    nothing, since the largest contribution is then already matched.
    """
    silent_sites = [
        site for site in hands["site"].unique().to_list() if not _profile(site).uncalled_printed
    ]
    if not silent_sites:
        return players
    silent = _per_hand(hands["site"].is_in(silent_sites), "silent")
    ranked = players.with_columns(
        largest=pl.col("put_in").max().over("hand_row"),
        largest_count=(pl.col("put_in") == pl.col("put_in").max()).sum().over("hand_row"),
        second=pl.col("put_in")
        .filter(pl.col("put_in") < pl.col("put_in").max())
        .max()
        .over("hand_row")
        .fill_null(0),
    )
    unmatched = (
        silent
        & (pl.col("put_in") == pl.col("largest"))
        & (pl.col("largest_count") == 1)
    )
    return ranked.with_columns(
        put_in=pl.when(unmatched).then(pl.col("second")).otherwise(pl.col("put_in"))
    ).drop("largest", "largest_count", "second")


def _strengths(
    players: pl.DataFrame, hands: pl.DataFrame
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """High and low values per player row and board; -1 high where the hand cannot be read."""
    rows = players.height
    high = np.full((rows, 2), -1, dtype=np.int32)
    low = np.zeros((rows, 2), dtype=np.int32)
    readable = np.zeros((rows, 2), dtype=bool)
    hole_ok = players["hole_cards"].list.len().fill_null(0).to_numpy() == 4
    hand_of = players["hand_row"].to_numpy()
    for board_index, column in enumerate(("board", "board2")):
        boards = hands[column]
        complete = (boards.list.len().fill_null(0) == 5).to_numpy()
        chosen = np.flatnonzero(hole_ok & complete[hand_of])
        if len(chosen) == 0:
            continue
        board_rows = np.flatnonzero(complete)
        compact = np.full(hands.height, -1, dtype=np.int64)
        compact[board_rows] = np.arange(len(board_rows))
        board_array = _card_matrix(boards.gather(board_rows), 5)
        hole = _card_matrix(players["hole_cards"].gather(chosen), 4)
        # The parser quarantines hands with repeated cards, so the evaluator's ValueError can
        # only come from hand-made tables; it is allowed to propagate.
        values_high, values_low = evaluate_showdowns(hole, compact[hand_of[chosen]], board_array)
        high[chosen, board_index] = values_high
        low[chosen, board_index] = values_low
        readable[chosen, board_index] = True
    return high, low, readable


def _card_matrix(cards: pl.Series, width: int) -> np.ndarray:
    """A list column whose rows all hold ``width`` cards → uint8 array (rows, width)."""
    return np.ascontiguousarray(
        cards.list.to_array(width).to_numpy().reshape(-1, width), dtype=np.uint8
    )


def audit_tables(
    hands: pl.DataFrame,
    seats: pl.DataFrame,
    actions: pl.DataFrame,
    collections: pl.DataFrame,
    showdowns: pl.DataFrame,
    *,
    rake_schedule: str = "auto",
) -> AuditResult:
    """Audit every hand of these canonical tables (one or several sites).

    A hand present twice (same site and number) is audited once. ``rake_schedule`` names the
    rake rules the hands were played under (`pipeline.profiles.rake_rule_for`).
    """
    if hands.height == 0:
        return AuditResult(
            payouts=pl.DataFrame(schema=PAYOUT_SCHEMA),
            discrepancies=_empty_findings(),
            hands=0,
            unevaluable=0,
        )
    hands = (
        hands.unique(subset=HAND_KEY, keep="first", maintain_order=True)
        .sort(HAND_KEY)
        .with_row_index("hand_row")
        .with_columns(pl.col("hand_row").cast(pl.Int64), hand_key=_hand_key())
    )
    hand_rows = hands.select("hand_key", "hand_row")
    unkeyed = (seats, actions)
    seats, actions, collections, showdowns = (
        _keyed(frame, hand_rows) for frame in (seats, actions, collections, showdowns)
    )
    players = _contenders(hands, seats, actions)
    hand_row = players["hand_row"].to_numpy()
    hand_start = np.searchsorted(hand_row, np.arange(hands.height + 1)).astype(np.int64)
    # A player who went all-in and then mucked gave up the pots but still set their level.
    pots = build_pots(
        hand_start,
        players["put_in"].to_numpy(),
        players["folded"].to_numpy(),
        players["mucked"].to_numpy(),
    )

    high, low, readable = _strengths(players, hands)
    boards = np.where(hands["board2"].list.len().fill_null(0).to_numpy() == 5, 2, 1)
    hands = _with_inferred_rake(hands, players, collections)
    rake = hands["rake"].fill_null(0).to_numpy()
    unit_by_site = {site: _profile(site).odd_chip_unit for site in hands["site"].unique()}
    units = hands["site"].replace_strict(unit_by_site, return_dtype=pl.Int64).to_numpy()

    unevaluable_hands = _unevaluable_rows(pots, readable, boards)
    split = split_pots(pots, rake, units, boards, high, low, players["showed"].to_numpy())
    payouts = (
        pl.DataFrame(
            {
                "hand_row": pots.hand[split.pot],
                "pot_index": pots.index[split.pot].astype(np.int8),
                "board_index": split.board.astype(np.int8),
                "half": np.array(HALF_NAMES)[split.half],
                "player": players["player"].gather(split.player),
                "player_key": players["player_key"].gather(split.player),
                "amount": split.amount,
            }
        )
        .filter(~pl.col("hand_row").is_in(unevaluable_hands) & (pl.col("amount") > 0))
        .with_columns(
            site=_per_hand(hands["site"], "site"), hand_id=_per_hand(hands["hand_id"], "hand_id")
        )
    )

    findings = [
        _unevaluable_findings(hands, unevaluable_hands),
        _compare(payouts, collections, hands, unevaluable_hands),
        _conservation_findings(hands, players, collections),
        _rake_findings(hands, rake_schedule),
        _description_findings(players, showdowns, high, low, readable, hands),
        _button_findings(hands, seats),
        betting_findings(hands.drop("hand_row", "hand_key"), *unkeyed),
    ]
    discrepancies = pl.concat(
        [frame.select(list(DISCREPANCY_SCHEMA)).cast(DISCREPANCY_SCHEMA) for frame in findings],
        how="vertical",
    ).sort(["site", "hand_id", "kind", "player"], nulls_last=True)
    return AuditResult(
        payouts=payouts.select(list(PAYOUT_SCHEMA)).cast(PAYOUT_SCHEMA),
        discrepancies=discrepancies,
        hands=hands.height,
        unevaluable=len(unevaluable_hands),
    )


def _with_inferred_rake(
    hands: pl.DataFrame, players: pl.DataFrame, collections: pl.DataFrame
) -> pl.DataFrame:
    """Where a site prints no rake, take it as the chips put in less the chips paid out.

    The payouts are then split after that rake, and the rake checks judge the inferred amount
    (``rake_inferred`` marks those hands); a negative remainder stays a conservation finding.
    """
    unprinted = [
        site for site in hands["site"].unique().to_list() if not _profile(site).rake_printed
    ]
    if not unprinted:
        return hands.with_columns(rake_inferred=pl.lit(False), pot_put_in=pl.lit(0, pl.Int64))
    put = players.group_by("hand_row").agg(put_in=pl.col("put_in").sum())
    paid = collections.group_by("hand_row").agg(collected=pl.col("amount").sum())
    put_in, collected = _lookup(hands.select("hand_row"), put, "hand_row", ["put_in"]) + _lookup(
        hands.select("hand_row"), paid, "hand_row", ["collected"]
    )
    inferred = (put_in.fill_null(0) - collected.fill_null(0)).clip(lower_bound=0)
    # Tournaments take their fee from the buy-in, never from pots: nothing to infer there.
    infer = (
        hands["site"].is_in(unprinted)
        & hands["rake"].is_null()
        & hands["tournament_id"].is_null()
    )
    return hands.with_columns(
        rake=pl.when(infer).then(inferred).otherwise(pl.col("rake")),
        rake_inferred=infer,
        pot_put_in=put_in.fill_null(0),
    )


def _unevaluable_rows(pots: PotTable, readable: np.ndarray, boards: np.ndarray) -> np.ndarray:
    """Hands with a contested pot where an eligible player's cards cannot be read."""
    if len(pots.hand) == 0:
        return np.zeros(0, dtype=np.int64)
    sizes = np.diff(pots.eligible_start)
    contested = sizes > 1
    unreadable_pot = np.zeros(len(pots.hand), dtype=bool)
    for board in range(2):
        unreadable = (~readable[pots.eligible, board]).astype(np.int64)
        # reduceat needs a valid start per pot; empty pots are contested by nobody anyway.
        starts = np.minimum(pots.eligible_start[:-1], max(len(unreadable) - 1, 0))
        per_pot = np.add.reduceat(unreadable, starts) if len(unreadable) else np.zeros_like(sizes)
        per_pot[sizes == 0] = 0
        unreadable_pot |= contested & (boards[pots.hand] > board) & (per_pot > 0)
    return np.unique(pots.hand[unreadable_pot])


def _empty_findings() -> pl.DataFrame:
    return pl.DataFrame(schema=DISCREPANCY_SCHEMA)


def _hand_columns(hands: pl.DataFrame) -> list[pl.Expr]:
    return [_per_hand(hands["site"], "site"), _per_hand(hands["hand_id"], "hand_id")]


def _unevaluable_findings(hands: pl.DataFrame, rows: np.ndarray) -> pl.DataFrame:
    if len(rows) == 0:
        return _empty_findings()
    return hands.filter(pl.col("hand_row").is_in(rows)).select(
        *HAND_KEY,
        player=pl.lit(None, dtype=pl.String),
        kind=pl.lit("unevaluable"),
        expected=pl.lit(None, dtype=pl.Int64),
        recorded=pl.lit(None, dtype=pl.Int64),
        detail=pl.lit("a contested pot has a player whose hole cards were not shown"),
    )


def _compare(
    payouts: pl.DataFrame,
    collections: pl.DataFrame,
    hands: pl.DataFrame,
    unevaluable_rows: np.ndarray,
) -> pl.DataFrame:
    """Expected vs recorded money per hand, pot, board and player, then line by line.

    A site that prints no pot number is compared per hand and player (its rows have a null
    pot_index). Lines are compared only where the rules give separate halves: a scoop is one
    payment but sites print it as one or two lines.
    """
    recorded = collections.filter(~pl.col("hand_row").is_in(unevaluable_rows))
    pot_known = recorded.group_by("hand_row").agg(pot_known=pl.col("pot_index").is_not_null().all())
    expected = payouts.join(pot_known, on="hand_row", how="left").with_columns(
        pot_index=pl.when(pl.col("pot_known").fill_null(True)).then(pl.col("pot_index"))
    )
    key = ["hand_row", "pot_index", "board_index", "player_key"]
    # Lines are compared one by one only where the site prints one line per half.
    per_half_sites = [
        site
        for site in hands["site"].unique().to_list()
        if _profile(site).payout_lines == "per_half"
    ]
    lines_per_half = hands["site"].is_in(per_half_sites)
    expected_sums = (
        expected.group_by(key)
        .agg(
            expected=pl.col("amount").sum(),
            expected_lines=pl.col("amount").sort(),
            has_scoop=(pl.col("half") == "scoop").any(),
            expected_player=pl.col("player").first(),
        )
        .with_columns(
            expected_lines=pl.when(~pl.col("has_scoop") & _per_hand(lines_per_half, "per_half"))
            .then(pl.col("expected_lines"))
        )
    )
    recorded_sums = (
        recorded.with_columns(board_index=pl.col("board_index").fill_null(0))
        .group_by(key)
        .agg(
            recorded=pl.col("amount").sum(),
            recorded_lines=pl.col("amount").sort(),
            recorded_player=pl.col("player").first(),
        )
    )
    both = expected_sums.join(recorded_sums, on=key, how="full", coalesce=True, nulls_equal=True)
    pot_totals = both.group_by("hand_row", "pot_index", "board_index").agg(
        pot_expected=pl.col("expected").fill_null(0).sum(),
        pot_recorded=pl.col("recorded").fill_null(0).sum(),
    )
    both = both.join(
        pot_totals, on=["hand_row", "pot_index", "board_index"], how="left", nulls_equal=True
    )
    unit_by_site = {site: _profile(site).odd_chip_unit for site in hands["site"].unique()}
    unit = _per_hand(hands["site"].replace_strict(unit_by_site, return_dtype=pl.Int64), "unit")
    difference = (pl.col("recorded").fill_null(0) - pl.col("expected").fill_null(0)).abs()
    kind = (
        pl.when(pl.col("recorded").is_null())
        .then(pl.lit("missing_winner"))
        .when(pl.col("expected").is_null())
        .then(pl.lit("unexpected_winner"))
        .when(
            (pl.col("expected") != pl.col("recorded"))
            & (difference <= unit)
            & (pl.col("pot_expected") == pl.col("pot_recorded"))
        )
        .then(pl.lit("odd_chip"))
        .when(pl.col("expected") != pl.col("recorded"))
        .then(pl.lit("payout"))
        .when(pl.col("expected_lines").is_not_null() & (pl.col("expected_lines") != pl.col("recorded_lines")))
        .then(pl.lit("payout"))
    )
    pot_label = (
        pl.when(pl.col("pot_index").is_null())
        .then(pl.lit("all pots"))
        .when(pl.col("pot_index") == 0)
        .then(pl.lit("main pot"))
        .otherwise(pl.lit("side pot ") + pl.col("pot_index").cast(pl.String))
    )
    board_label = pl.when(pl.col("board_index") > 0).then(pl.lit(", second board")).otherwise(
        pl.lit("")
    )
    lines = (
        pl.col("expected_lines").cast(pl.List(pl.String)).list.join(" + ")
    )
    detail = (
        pot_label
        + board_label
        + pl.lit(": expected ")
        + pl.coalesce(lines, pl.col("expected").cast(pl.String), pl.lit("nothing"))
        + pl.lit(", recorded ")
        + pl.col("recorded_lines").cast(pl.List(pl.String)).list.join(" + ").fill_null("nothing")
    )
    return (
        both.with_columns(kind=kind)
        .filter(pl.col("kind").is_not_null())
        .with_columns(*_hand_columns(hands), detail=detail)
        .select(
            *HAND_KEY,
            player=pl.coalesce("expected_player", "recorded_player"),
            kind="kind",
            expected=pl.col("expected").fill_null(0),
            recorded=pl.col("recorded").fill_null(0),
            detail="detail",
        )
    )


def _conservation_findings(
    hands: pl.DataFrame, players: pl.DataFrame, collections: pl.DataFrame
) -> pl.DataFrame:
    """Σ collected + rake must equal Σ contributions (returns already taken off)."""
    put = players.group_by("hand_row").agg(put_in=pl.col("put_in").sum())
    paid = collections.group_by("hand_row").agg(collected=pl.col("amount").sum())
    gross_by_site = {site: _profile(site).total_pot_is_gross for site in hands["site"].unique()}
    joined = (
        hands.select("hand_row", *HAND_KEY, "rake", "total_pot")
        .join(put, on="hand_row", how="left")
        .join(paid, on="hand_row", how="left")
        .with_columns(
            put_in=pl.col("put_in").fill_null(0),
            collected=pl.col("collected").fill_null(0),
            rake=pl.col("rake").fill_null(0),
            gross=pl.col("site").replace_strict(gross_by_site, return_dtype=pl.Boolean),
        )
    )
    paid_out = joined.filter(pl.col("collected") + pl.col("rake") != pl.col("put_in")).select(
        *HAND_KEY,
        player=pl.lit(None, dtype=pl.String),
        kind=pl.lit("chip_conservation"),
        expected=pl.col("put_in") - pl.col("rake"),
        recorded=pl.col("collected"),
        detail=pl.lit("collected + rake ≠ chips put in: put in ")
        + pl.col("put_in").cast(pl.String)
        + ", rake "
        + pl.col("rake").cast(pl.String)
        + ", collected "
        + pl.col("collected").cast(pl.String),
    )
    printed_total = pl.when(pl.col("gross")).then(pl.col("put_in")).otherwise(
        pl.col("put_in") - pl.col("rake")
    )
    total = joined.filter(
        pl.col("total_pot").is_not_null() & (pl.col("total_pot") != printed_total)
    ).select(
        *HAND_KEY,
        player=pl.lit(None, dtype=pl.String),
        kind=pl.lit("chip_conservation"),
        expected=printed_total,
        recorded=pl.col("total_pot"),
        detail=pl.lit("printed total pot differs from the chips put in"),
    )
    return pl.concat([paid_out, total])


def _rake_findings(hands: pl.DataFrame, rake_schedule: str) -> pl.DataFrame:
    """No flop, no drop (K1), and rake above the cap of the hand's schedule (K2).

    The schedule is chosen by site, era and stake (`profile_name`); a hand with no documented
    schedule is checked for K1 only, so a rake is never called wrong on a guess.
    """
    raked = hands.filter(pl.col("rake").fill_null(0) > 0)
    if raked.height == 0:
        return _empty_findings()
    # One schedule lookup per distinct (site, year, stake) rather than per hand.
    stakes = raked.with_columns(
        year=pl.col("started_at").dt.year(),
        tournament=pl.col("tournament_id").is_not_null(),
    )
    combos = stakes.select(
        "site", "year", "limit_type", "big_blind", "tournament", "money_scale", "players_dealt"
    ).unique()
    rules = [rake_rule_for(rake_schedule, *row[:6]) for row in combos.iter_rows()]
    combos = combos.with_columns(
        cap=pl.Series(
            [
                rule.cap_for(row[6] or 0) if rule is not None else None
                for rule, row in zip(rules, combos.iter_rows(), strict=True)
            ],
            dtype=pl.Int64,
        ),
        no_flop_no_drop=pl.Series([rule is None or rule.no_flop_no_drop for rule in rules]),
    )
    raked = stakes.join(
        combos,
        on=["site", "year", "limit_type", "big_blind", "tournament", "money_scale", "players_dealt"],
        how="left",
        nulls_equal=True,
    )
    preflop = raked.filter(
        (pl.col("board").list.len() == 0) & pl.col("no_flop_no_drop")
    ).select(
        *HAND_KEY,
        player=pl.lit(None, dtype=pl.String),
        kind=pl.lit("rake"),
        expected=pl.lit(0, dtype=pl.Int64),
        recorded=pl.col("rake"),
        detail=pl.lit("rake taken although the hand ended before the flop (no flop, no drop)"),
    )
    over_cap = raked.filter(
        (pl.col("board").list.len() > 0)
        & pl.col("cap").is_not_null()
        & (pl.col("rake") > pl.col("cap"))
    ).select(
        *HAND_KEY,
        player=pl.lit(None, dtype=pl.String),
        kind=pl.lit("rake"),
        expected=pl.col("cap"),
        recorded=pl.col("rake"),
        detail=pl.lit("rake above the cap of ")
        + pl.col("cap").cast(pl.String)
        + " for "
        + pl.col("players_dealt").cast(pl.String)
        + " players dealt",
    )
    # No room takes a tenth of a pot: an inferred "rake" that large is a pot not paid out.
    implausible = raked.filter(
        pl.col("rake_inferred") & (pl.col("rake") * 10 > pl.col("pot_put_in"))
    ).select(
        *HAND_KEY,
        player=pl.lit(None, dtype=pl.String),
        kind=pl.lit("rake"),
        expected=pl.col("pot_put_in") // 10,
        recorded=pl.col("rake"),
        detail=pl.lit("the site prints no rake, and the chips not paid out (")
        + pl.col("rake").cast(pl.String)
        + ") exceed a tenth of the pot ("
        + pl.col("pot_put_in").cast(pl.String)
        + ")",
    )
    return pl.concat([preflop, over_cap, implausible])


@functools.cache
def _description_tables() -> tuple[pl.Series, pl.Series, pl.Series]:
    """PokerStars wording of every high value (plain and with kickers) and every low value."""
    highs = range(1, HIGH_CLASS_COUNT + 1)
    return (
        pl.Series([""] + [describe_high(value) for value in highs]),
        pl.Series([""] + [describe_high(value, with_kickers=True) for value in highs]),
        pl.Series([None] + [describe_low(value) for value in range(1, LOW_CLASS_COUNT + 1)]),
    )


def _description_findings(
    players: pl.DataFrame,
    showdowns: pl.DataFrame,
    high: np.ndarray,
    low: np.ndarray,
    readable: np.ndarray,
    hands: pl.DataFrame,
) -> pl.DataFrame:
    """The printed HI/LO text must name the hand the cards make (per board).

    PokerStars adds kickers (``three of a kind, Jacks - Ace+Queen kicker``) only as far as
    needed to tell two shown hands apart, so printed kickers must be a prefix of the real ones.
    """
    checked_sites = [
        site
        for site in hands["site"].unique().to_list()
        if _profile(site).description_style == "pokerstars"
    ]
    showdowns = showdowns.filter(pl.col("site").is_in(checked_sites))
    if showdowns.height == 0:
        return _empty_findings()
    index = players.select("hand_row", "player_key").with_row_index("player_row")
    shown = showdowns.join(index, on=["hand_row", "player_key"], how="inner").with_columns(
        board_index=pl.col("board_index").fill_null(0).cast(pl.Int64)
    )
    player_row = shown["player_row"].to_numpy().astype(np.int64)
    board = shown["board_index"].to_numpy()
    shown = shown.with_columns(
        readable=pl.Series(readable[player_row, board]),
        high_value=pl.Series(np.maximum(high[player_row, board], 0).astype(np.int64)),
        low_value=pl.Series(low[player_row, board].astype(np.int64)),
    ).filter(pl.col("readable") & (pl.col("high_desc").is_not_null() | pl.col("low_desc").is_not_null()))
    plain, with_kickers, lows = _description_tables()
    shown = shown.with_columns(
        base=plain.gather(shown["high_value"]),
        full=with_kickers.gather(shown["high_value"]),
        wanted_low=lows.gather(shown["low_value"]),
    )
    printed = pl.col("high_desc")
    printed_kickers = printed.str.strip_prefix(pl.col("base") + " - ").str.strip_suffix(" kicker")
    full_kickers = pl.col("full").str.strip_prefix(pl.col("base") + " - ").str.strip_suffix(
        " kicker"
    )
    high_ok = (
        printed.is_null()
        | (printed == pl.col("base"))
        | (
            printed.str.starts_with(pl.col("base") + " - ")
            & (pl.col("full") != pl.col("base"))
            & full_kickers.str.starts_with(printed_kickers)
        )
    )
    low_ok = (pl.col("low_desc").fill_null("") == pl.col("wanted_low").fill_null(""))
    high_problem = pl.when(~high_ok).then(
        pl.lit("HI printed '") + printed + "', cards make '" + pl.col("base") + "'"
    )
    low_problem = pl.when(~low_ok).then(
        pl.lit("LO printed '")
        + pl.col("low_desc").fill_null("none")
        + "', cards make '"
        + pl.col("wanted_low").fill_null("none")
        + "'"
    )
    return (
        shown.with_columns(
            detail=pl.concat_str(
                [high_problem, low_problem], separator="; ", ignore_nulls=True
            )
        )
        .filter(~high_ok | ~low_ok)
        .select(
            *HAND_KEY,
            "player",
            kind=pl.lit("hand_description"),
            expected=pl.lit(None, dtype=pl.Int64),
            recorded=pl.lit(None, dtype=pl.Int64),
            detail="detail",
        )
    )


def _button_findings(hands: pl.DataFrame, seats: pl.DataFrame) -> pl.DataFrame:
    """Between consecutive hands at a table the button moves to the next occupied seat left.

    Hands of one table are ordered by start time then hand number; a gap (hands missing from
    the archive) cannot be told from a skipped button, so only hands within two minutes of the
    previous one are judged.
    """
    table = ["site", "table_name", "tournament_id"]
    ordered = (
        hands.filter(pl.col("table_name").is_not_null() & pl.col("button_seat").is_not_null())
        .select("hand_row", *table, "started_at", "hand_id", "button_seat")
        .with_columns(hand_number=pl.col("hand_id").cast(pl.Int64, strict=False))
        .sort(*table, "started_at", "hand_number", nulls_last=True)
        .with_columns(
            previous_button=pl.col("button_seat").shift(1).over(table),
            previous_start=pl.col("started_at").shift(1).over(table),
        )
        .filter(
            pl.col("previous_button").is_not_null()
            & ((pl.col("started_at") - pl.col("previous_start")) <= pl.duration(minutes=2))
        )
        .select("hand_row", "button_seat", "previous_button")
    )
    candidates = seats.select("hand_row", "seat").join(ordered, on="hand_row", how="inner")
    next_left = (
        candidates.filter(pl.col("seat") > pl.col("previous_button"))
        .group_by("hand_row")
        .agg(next_left=pl.col("seat").min())
    )
    lowest = candidates.group_by("hand_row").agg(lowest=pl.col("seat").min())
    return (
        ordered.join(next_left, on="hand_row", how="left")
        .join(lowest, on="hand_row", how="left")
        .with_columns(expected=pl.coalesce("next_left", "lowest"))
        .filter(pl.col("expected").is_not_null() & (pl.col("button_seat") != pl.col("expected")))
        .with_columns(*_hand_columns(hands))
        .select(
            *HAND_KEY,
            player=pl.lit(None, dtype=pl.String),
            kind=pl.lit("button"),
            expected=pl.col("expected").cast(pl.Int64),
            recorded=pl.col("button_seat").cast(pl.Int64),
            detail=pl.lit("button on seat ")
            + pl.col("button_seat").cast(pl.String)
            + ", expected seat "
            + pl.col("expected").cast(pl.String)
            + " (previous hand's button: seat "
            + pl.col("previous_button").cast(pl.String)
            + ")",
        )
    )


@dataclass(frozen=True)
class AuditSummary:
    """What ``hilo audit`` prints: totals and findings by kind, with example hands."""

    hands: int
    unevaluable: int
    payouts: int
    findings_by_kind: dict[str, int]
    examples: dict[str, list[str]]
    output: str


def run_audit(root: Path, rake_schedule: str = "auto") -> AuditSummary:
    """Audit every committed hand of the dataset at ``root`` and write ``root/audit/``.

    The outputs are rewritten whole on each run (each file written under a temporary name and
    renamed), so a rerun or a run killed half-way never leaves mixed results.
    """
    from pipeline.dataset import read_table

    tables = {
        name: pl.from_arrow(read_table(root, name))
        for name in ("hands", "seats", "actions", "collections", "showdowns")
    }
    result = audit_tables(**tables, rake_schedule=rake_schedule)  # type: ignore[arg-type]
    output = root / "audit"
    _write_audit_table(result.payouts, output / "payouts")
    _write_audit_table(result.discrepancies, output / "discrepancies")
    counts = result.discrepancies.group_by("kind").len().sort("kind")
    examples = {
        kind: result.discrepancies.filter(pl.col("kind") == kind)["hand_id"].unique(
            maintain_order=True
        ).head(3).to_list()
        for kind in counts["kind"].to_list()
    }
    return AuditSummary(
        hands=result.hands,
        unevaluable=result.unevaluable,
        payouts=result.payouts.height,
        findings_by_kind=dict(counts.iter_rows()),
        examples=examples,
        output=str(output),
    )


def _write_audit_table(frame: pl.DataFrame, folder: Path) -> None:
    """Replace ``folder`` with one Parquet file per site (hive layout ``site=…``)."""
    from pipeline.dataset import fsync_directory, new_temporary_path, write_parquet

    folder.mkdir(parents=True, exist_ok=True)
    written: set[Path] = set()
    for (site,), part in frame.partition_by("site", as_dict=True).items():
        directory = folder / f"site={site}"
        temporary = new_temporary_path(directory)
        write_parquet(part.drop("site").to_arrow(), temporary)
        final = directory / "part-0.parquet"
        os.replace(temporary, final)
        fsync_directory(directory)
        written.add(final)
    for stale in folder.glob("site=*/*.parquet"):
        if stale not in written:
            stale.unlink()
