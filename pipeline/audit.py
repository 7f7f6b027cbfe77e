"""The audit: recompute every hand's payouts and compare them with what the site recorded.

All hands of a unit are audited together: tables are keyed by integers once
(``pipeline.hand_keys``), contributions and pots come from compiled passes
(``pipeline.hand_keys``, ``pipeline.payouts``), hand strengths from the evaluator's
board-amortised entry, and the comparison is a few joins on integer keys. Findings carry a
stable ``kind`` (documented in docs/audit.md) and a ``detail`` a person can read without the
raw file.

`audit_tables` audits tables in memory; `run_audit` audits a dataset folder unit by unit (a
few ingest parts, or a range of one large part) on an executor, so memory is bounded by the
unit, and runs the one check that spans units (the button) over a projection in DuckDB.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
from collections.abc import Callable
from concurrent.futures import Executor, as_completed
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path

import numpy as np
import polars as pl

from parsers.games import HOLE_CARD_COUNTS, OMAHA_HI_LO, exposed_count
from pipeline.betting import keyed_betting_findings
from pipeline.evaluator import (
    HIGH_CLASS_COUNT,
    LOW_CLASS_COUNT,
    describe_high,
    describe_low,
    evaluate_showdowns,
)
from pipeline.hand_keys import (
    MatchedActions,
    action_kind_codes,
    attach_hand_rows,
    clockwise_seats,
    hand_offsets,
    match_actions,
    number_hands,
)
from pipeline.audit_outputs import (
    ALLIN_EQUITY_SCHEMA,
    DISCREPANCY_SCHEMA,
    FINDING_KINDS,
    FINDING_SCHEMA,
    HAND_PARTS_KEY,
    PAYOUT_SCHEMA,
    SEVERITIES,
    SEVERITY,
)
from pipeline.equity import allin_equity_rows, find_spots
from pipeline.payouts import (
    HALF_NAMES,
    PayoutTable,
    PotTable,
    build_pots,
    printed_pot_rake,
    rake_by_pot,
    running_total_rake,
    split_pots,
)
from pipeline.profiles import SiteProfile, site_profile
from pipeline.rake_schedules import ScheduleError, ScheduleRule, load_schedule

__all__ = [
    "DISCREPANCY_SCHEMA",
    "FINDING_SCHEMA",
    "SEVERITIES",
    "SEVERITY",
    "FINDING_KINDS",
    "PAYOUT_SCHEMA",
    "AuditResult",
    "AuditSummary",
    "AuditUnit",
    "UnitSummary",
    "audit_tables",
    "audit_unit",
    "plan_units",
    "run_audit",
    "with_severity",
]

PAYOUT_KINDS = ("payout", "missing_winner", "unexpected_winner", "odd_chip")


def with_severity(findings: pl.DataFrame) -> pl.DataFrame:
    """Findings of `FINDING_SCHEMA` in `DISCREPANCY_SCHEMA`: each kind's severity added."""
    return findings.with_columns(
        severity=pl.col("kind").replace_strict(SEVERITY, default="rules", return_dtype=pl.String)
    ).select(list(DISCREPANCY_SCHEMA))
HAND_KEY = ["site", "hand_id"]


@dataclass(frozen=True)
class AuditResult:
    payouts: pl.DataFrame
    discrepancies: pl.DataFrame
    hands: int
    unevaluable: int
    # Expected share of every pot of the all-in hands (`pipeline.equity`), when computed.
    allin_equity: pl.DataFrame = field(default_factory=lambda: pl.DataFrame(schema=ALLIN_EQUITY_SCHEMA))


def _profile(site: str) -> SiteProfile:
    return site_profile(site)


def _per_hand(values: pl.Series | np.ndarray, name: str) -> pl.Expr:
    """A per-hand column looked up by ``hand_row``."""
    return pl.lit(pl.Series(name, values)).gather(pl.col("hand_row"))


def _contenders(
    hands: pl.DataFrame, seats: pl.DataFrame, matched: MatchedActions, actions: pl.DataFrame
) -> pl.DataFrame:
    """One row per seated player: chips put in (``dead``: the part that is a dead blind),
    whether they gave up, clockwise order.

    ``seats`` are already in hand and clockwise order; the per-player totals come from the
    compiled pass that matched every action to its seat (`pipeline.hand_keys`).
    """
    players = seats.select("hand_row", "player_key", "seat", "player", "hole_cards").with_columns(
        put_in=pl.Series(matched.put_in),
        folded=pl.Series(matched.folded),
        mucked=pl.Series(matched.mucked),
        showed=pl.Series(matched.showed),
    )
    dead = (
        actions.filter(pl.col("kind") == "post_dead")
        .group_by("hand_row", "player")
        .agg(dead=pl.col("amount").fill_null(0).sum())
    )
    return players.join(dead, on=["hand_row", "player"], how="left", maintain_order="left").with_columns(
        dead=pl.col("dead").fill_null(0).cast(pl.Int64)
    )


def _return_unmatched(
    players: pl.DataFrame, hands: pl.DataFrame, collections: pl.DataFrame, actions: pl.DataFrame
) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """Give the unmatched part of the largest contribution back to its owner before pots are
    built; return the players, an ``uncalled_unprinted`` finding per return not printed, and
    the collections less the unmatched blinds a site pays inside its collected lines.

    Chips nobody matched were never in the pot, printed or not. Some sites (site-formats.md
    §1.3: 888, Everleaf, OnGame, KingsClub) never print the return: it is given back without a
    finding. Elsewhere the excess is given back when the site's own payments say it was (the
    collected amounts and the printed rake add up to the chips put in less the excess: a
    return line the site left out, a wording finding), and kept where the site paid it as a
    won pot (PartyPoker, Merge, Winamax) or where no printed rake lets the two be told apart.
    """
    largest, largest_count, second = _top_two(players)
    silent_sites = [
        site for site in hands["site"].unique().to_list() if not _profile(site).uncalled_printed
    ]
    hand_row = players["hand_row"].to_numpy()
    put_in = players["put_in"].to_numpy()
    dead = players["dead"].to_numpy()
    collected = np.zeros(hands.height, dtype=np.int64)
    np.add.at(collected, collections["hand_row"].to_numpy(), collections["amount"].fill_null(0).to_numpy())
    pot = np.zeros(hands.height, dtype=np.int64)
    np.add.at(pot, hand_row, put_in)
    paid = collected + hands["rake"].fill_null(0).to_numpy()
    silent = hands["site"].is_in(silent_sites).to_numpy()[hand_row]
    rake_printed = hands["rake"].is_not_null().to_numpy()[hand_row]
    excess = largest - second
    top = (put_in - dead == largest) & (largest_count == 1) & (second < largest)
    unprinted = top & ~silent & rake_printed & (paid[hand_row] == pot[hand_row] - excess)
    returned = top & (silent | unprinted)
    findings = _empty_findings()
    if unprinted.any():
        rows = np.flatnonzero(unprinted)
        findings = (
            players[rows]
            .with_columns(excess=pl.Series(excess[rows]))
            .with_columns(*_hand_columns(hands))
            .select(
                *HAND_KEY,
                "player",
                kind=pl.lit("uncalled_unprinted"),
                expected=pl.col("excess"),
                recorded=pl.lit(0, dtype=pl.Int64),
                detail=pl.lit("unmatched ")
                + pl.col("excess").cast(pl.String)
                + pl.lit(" went back to its owner without a return line"),
            )
        )
    players = players.with_columns(put_in=pl.Series(np.where(returned, put_in - excess, put_in)))
    return players, findings, _blinds_out_of_collected(
        players, hands, collections, actions, np.flatnonzero(returned), excess
    )


def _blinds_out_of_collected(
    players: pl.DataFrame,
    hands: pl.DataFrame,
    collections: pl.DataFrame,
    actions: pl.DataFrame,
    returned: np.ndarray,
    excess: np.ndarray,
) -> pl.DataFrame:
    """``collections`` with each unmatched blind the audit gave back taken out of its owner's
    collected lines, at the sites that pay it inside them (``blinds_in_collected``: 888poker's
    ``collected [ $3 ]`` when everyone folds to the big blind is both blinds). Only an owner
    who put in nothing but blinds; taken from the owner's last line first; an owner whose
    lines hold less keeps them as printed."""
    sites = [s for s in hands["site"].unique().to_list() if _profile(s).blinds_in_collected]
    if not sites or len(returned) == 0 or collections.height == 0:
        return collections
    in_site = hands["site"].is_in(sites).to_numpy()
    voluntary = actions.filter(pl.col("kind").is_in(["call", "bet", "raise"])).select(
        "hand_row", "player"
    )
    owners = (
        players[returned]
        .select("hand_row", "player")
        .with_columns(back=pl.Series(excess[returned]))
        .filter(pl.Series(in_site[players["hand_row"].to_numpy()[returned]]))
        .join(voluntary, on=["hand_row", "player"], how="anti")
    )
    if owners.height == 0:
        return collections
    lines = (
        collections.with_row_index("line")
        .join(owners, on=["hand_row", "player"], how="inner")
        .with_columns(amount=pl.col("amount").fill_null(0))
        .sort("line", descending=True)
        .with_columns(
            later=pl.col("amount").cum_sum().over("hand_row", "player") - pl.col("amount"),
            held=pl.col("amount").sum().over("hand_row", "player"),
        )
        .filter(pl.col("held") >= pl.col("back"))
        .with_columns(
            taken=pl.min_horizontal(
                pl.col("amount"), pl.max_horizontal(pl.col("back") - pl.col("later"), 0)
            )
        )
    )
    if lines.height == 0:
        return collections
    taken = np.zeros(collections.height, dtype=np.int64)
    taken[lines["line"].to_numpy()] = lines["taken"].to_numpy()
    # A line that held nothing but the blind was no payment.
    emptied = pl.Series((taken > 0) & (taken == collections["amount"].fill_null(0).to_numpy()))
    return collections.with_columns(amount=pl.col("amount") - pl.Series(taken)).filter(~emptied)


def _top_two(players: pl.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per player row: the hand's largest contribution, how many players put it in, and the
    largest contribution below it (0 if none): the live chips, a dead blind being no part of
    its poster's bet. Rows of a hand are contiguous."""
    put = players["put_in"].to_numpy().astype(np.int64, copy=False)
    if "dead" in players.columns:
        put = put - players["dead"].to_numpy()
    if put.shape[0] == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty
    hand = players["hand_row"].to_numpy()
    starts = np.flatnonzero(np.r_[True, hand[1:] != hand[:-1]])
    sizes = np.diff(np.r_[starts, put.shape[0]])
    largest = np.repeat(np.maximum.reduceat(put, starts), sizes)
    is_top = put == largest
    count = np.repeat(np.add.reduceat(is_top.astype(np.int64), starts), sizes)
    below = np.where(is_top, -1, put)
    second = np.maximum(np.repeat(np.maximum.reduceat(below, starts), sizes), 0)
    return largest, count, second


def _strengths(
    players: pl.DataFrame, hands: pl.DataFrame
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """High and low values per player row and board; -1 high where the hand cannot be read."""
    rows = players.height
    high = np.full((rows, 2), -1, dtype=np.int32)
    low = np.zeros((rows, 2), dtype=np.int32)
    readable = np.zeros((rows, 2), dtype=bool)
    hand_of = players["hand_row"].to_numpy()
    held = players["hole_cards"].list.len().fill_null(0).to_numpy()
    dealt = _hole_card_counts(hands)[hand_of]
    for board_index, column in enumerate(("board", "board2")):
        boards = hands[column]
        complete = (boards.list.len().fill_null(0) == 5).to_numpy()
        board_rows = np.flatnonzero(complete)
        compact = np.full(hands.height, -1, dtype=np.int64)
        compact[board_rows] = np.arange(len(board_rows))
        board_array = _card_matrix(boards.gather(board_rows), 5)
        for count in np.unique(dealt):
            chosen = np.flatnonzero((held == count) & (dealt == count) & complete[hand_of])
            if len(chosen) == 0:
                continue
            hole = _card_matrix(players["hole_cards"].gather(chosen), int(count))
            # The parser quarantines hands with repeated cards, so the evaluator's ValueError
            # can only come from hand-made tables; it is allowed to propagate.
            values_high, values_low = evaluate_showdowns(
                hole, compact[hand_of[chosen]], board_array
            )
            high[chosen, board_index] = values_high
            low[chosen, board_index] = values_low
            readable[chosen, board_index] = True
    return high, low, readable


def _hole_card_counts(hands: pl.DataFrame) -> np.ndarray:
    """The hole cards each hand's game deals (four where the game is not named)."""
    if "game" not in hands.columns:
        return np.full(hands.height, OMAHA_HI_LO.hole_cards, dtype=np.int64)
    return (
        hands["game"]
        .fill_null(OMAHA_HI_LO.code)
        .replace_strict(HOLE_CARD_COUNTS, default=OMAHA_HI_LO.hole_cards, return_dtype=pl.Int64)
        .to_numpy()
    )


def _exposed_counts(hands: pl.DataFrame) -> pl.Expr:
    """The board cards each hand's game deals face up before the preflop betting (none where
    the game is not named)."""
    if "game" not in hands.columns:
        return pl.lit(OMAHA_HI_LO.exposed_before_flop)
    return exposed_count(pl.col("game"))


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
    return _audit(
        hands, seats, actions, collections, showdowns, rake_schedule, check_button=True
    )


def _audit(
    hands: pl.DataFrame,
    seats: pl.DataFrame,
    actions: pl.DataFrame,
    collections: pl.DataFrame,
    showdowns: pl.DataFrame,
    rake_schedule: str,
    *,
    check_button: bool,
    with_equity: bool = True,
) -> AuditResult:
    """`audit_tables`, with the button check (which spans hands) left to the caller or not."""
    if hands.height == 0:
        return AuditResult(
            payouts=pl.DataFrame(schema=PAYOUT_SCHEMA),
            discrepancies=with_severity(_empty_findings()),
            hands=0,
            unevaluable=0,
        )
    hands = number_hands(hands)
    seats, actions, collections, showdowns = (
        attach_hand_rows(frame, hands) for frame in (seats, actions, collections, showdowns)
    )
    seats = clockwise_seats(seats, hands)
    hand_start = hand_offsets(seats["hand_row"].to_numpy(), hands.height)
    kind_code = action_kind_codes(actions)
    matched = match_actions(actions, kind_code, hand_start, seats)
    players, unprinted_returns, collections = _return_unmatched(
        _contenders(hands, seats, matched, actions), hands, collections, actions
    )
    # A player who went all-in and then mucked gave up the pots but still set their level.
    pots = build_pots(
        hand_start,
        players["put_in"].to_numpy(),
        players["folded"].to_numpy(),
        players["mucked"].to_numpy(),
        players["dead"].to_numpy(),
    )

    high, low, readable = _strengths(players, hands)
    boards = np.where(hands["board2"].list.len().fill_null(0).to_numpy() == 5, 2, 1)
    hands = _with_inferred_rake(hands, players, collections)
    rake = hands["rake"].fill_null(0).to_numpy()
    rules = _rake_rules(hands, rake_schedule)
    each_pot_sites = [
        site for site in hands["site"].unique().to_list() if _profile(site).rake_from == "each-pot"
    ]
    each_pot = (rules["each_pot"] | rules["site"].is_in(each_pot_sites)).to_numpy()
    unit_by_site = {site: _profile(site).odd_chip_unit for site in hands["site"].unique()}
    units = hands["site"].replace_strict(unit_by_site, return_dtype=pl.Int64).to_numpy()

    unevaluable_hands = _unevaluable_rows(pots, readable, boards)
    pot_rake = _running_total_rake(
        pots, rake_by_pot(pots, rake, each_pot), hands, rules, rake_schedule
    )
    spare_sites = [s for s in hands["site"].unique().to_list() if _profile(s).low_spare_to_high]
    apart_sites = [s for s in hands["site"].unique().to_list() if _profile(s).tied_halves_apart]
    split = split_pots(
        pots,
        rake,
        units,
        boards,
        high,
        low,
        players["showed"].to_numpy(),
        each_pot,
        pot_rake,
        hands["site"].is_in(spare_sites).to_numpy(),
        hands["site"].is_in(apart_sites).to_numpy(),
    )
    allin_equity = _allin_equity(
        hands, seats, players, actions, matched, pots, pot_rake, units, boards, split
    ) if with_equity else pl.DataFrame(schema=ALLIN_EQUITY_SCHEMA)
    payouts = (
        pl.DataFrame(
            {
                "hand_row": pots.hand[split.pot],
                "pot_index": pots.index[split.pot].astype(np.int8),
                "board_index": split.board.astype(np.int8),
                "half": pl.Series(HALF_NAMES).gather(split.half),
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

    silent = _silent_sole_pots(pots, pot_rake, hands, players, collections)
    compared = payouts.join(silent, on=["hand_row", "pot_index"], how="anti")
    findings = [
        _unevaluable_findings(hands, unevaluable_hands),
        unprinted_returns,
        _compare(compared, collections, hands, unevaluable_hands, _unmatched_owners(pots, players)),
        _conservation_findings(hands, players, collections, silent),
        _rake_findings(rules),
        _description_findings(players, showdowns, high, low, readable, hands),
        _button_findings(hands, seats) if check_button else _empty_findings(),
        keyed_betting_findings(hands, seats, actions, kind_code, matched),
    ]
    discrepancies = with_severity(
        pl.concat(
            [frame.select(list(FINDING_SCHEMA)).cast(FINDING_SCHEMA) for frame in findings],
            how="vertical",
        ).sort(["site", "hand_id", "kind", "player"], nulls_last=True)
    )
    return AuditResult(
        payouts=payouts.select(list(PAYOUT_SCHEMA)).cast(PAYOUT_SCHEMA),
        discrepancies=discrepancies,
        hands=hands.height,
        unevaluable=len(unevaluable_hands),
        allin_equity=allin_equity,
    )


def _allin_equity(
    hands: pl.DataFrame,
    seats: pl.DataFrame,
    players: pl.DataFrame,
    actions: pl.DataFrame,
    matched: MatchedActions,
    pots: PotTable,
    pot_rake: np.ndarray,
    units: np.ndarray,
    boards: np.ndarray,
    split: PayoutTable,
) -> pl.DataFrame:
    """The all-in spots of these hands and every player's expected share of their pots."""
    spots = find_spots(
        hands,
        players,
        seats["stack_start"].fill_null(-1).to_numpy().astype(np.int64),
        actions,
        np.asarray(matched.seat_row, dtype=np.int64),
        pots,
        pot_rake,
        units,
        boards,
    )
    return allin_equity_rows(
        spots, hands, players, pots.index, split.pot, split.player, split.amount
    ).sort("site", "hand_id", "pot_index", "player")


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
    put_in = np.zeros(hands.height, dtype=np.int64)
    np.add.at(put_in, players["hand_row"].to_numpy(), players["put_in"].to_numpy())
    # The pot a rake is taken from: the chips put in less any unmatched top (which a site may
    # pay back as a won pot, but never rakes).
    largest, count, second = _top_two(players)
    # Where two players share the largest contribution nothing is unmatched.
    unmatched = np.where(count == 1, largest - second, 0)
    per_hand = np.zeros(hands.height, dtype=np.int64)
    np.maximum.at(per_hand, players["hand_row"].to_numpy(), unmatched)
    hands = hands.with_columns(pot_matched=pl.Series(put_in - per_hand), pot_put_in=pl.Series(put_in))
    if not unprinted:
        return hands.with_columns(rake_inferred=pl.lit(False))
    collected = np.zeros(hands.height, dtype=np.int64)
    np.add.at(collected, collections["hand_row"].to_numpy(), collections["amount"].fill_null(0).to_numpy())
    inferred = pl.Series(np.maximum(put_in - collected, 0))
    # Tournaments take their fee from the buy-in, never from pots: nothing to infer there.
    infer = (
        hands["site"].is_in(unprinted)
        & hands["rake"].is_null()
        & hands["tournament_id"].is_null()
    )
    return hands.with_columns(
        rake=pl.when(infer).then(inferred).otherwise(pl.col("rake")), rake_inferred=infer
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
    return pl.DataFrame(schema=FINDING_SCHEMA)


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


def _unmatched_owners(pots: PotTable, players: pl.DataFrame) -> pl.DataFrame:
    """``hand_row, player_key`` of each player paid an unmatched top back as a pot of their own
    chips (a pot nobody else put chips in: PartyPoker, Merge, Winamax)."""
    if pots.contested is None or pots.contested.all():
        return pl.DataFrame(schema={"hand_row": pl.UInt32, "player_key": players["player_key"].dtype})
    alone = np.flatnonzero(~pots.contested)
    owner = pots.eligible[pots.eligible_start[alone]]
    return players[owner].select(pl.col("hand_row").cast(pl.UInt32), "player_key")


def _compare(
    payouts: pl.DataFrame,
    collections: pl.DataFrame,
    hands: pl.DataFrame,
    unevaluable_rows: np.ndarray,
    unmatched_owners: pl.DataFrame,
) -> pl.DataFrame:
    """Expected vs recorded money per hand, pot, board and player, then line by line.

    A site that prints no pot number is compared per hand and player (its rows have a null
    pot_index); a site printing one total per player (`SiteProfile.payout_lines`
    ``per_player``: KingsClub's ``wins (932.50) from pot`` for both boards of a hand run twice)
    over every board too. So is the owner of an unmatched top paid back as a pot of their own chips
    (``unmatched_owners``): it is no pot anybody contested, and sites print it as its own pot,
    inside the main pot's line (Winamax 2022: ``collected 3.38€ from pot``) or spread over
    the owner's lines; what that player is owed in all is the money. Lines are compared only
    where the rules give separate halves: a scoop is one payment but sites print it as one or
    two lines.

    The sums and line counts are compared on integer keys for every player; the lines
    themselves (lists) are only gathered for the few rows that need them.
    """
    # A line that pays nothing ("collected 0.00 from pot" after a walk) is no payment.
    recorded = collections.filter(
        ~pl.col("hand_row").is_in(unevaluable_rows) & (pl.col("amount").fill_null(-1) != 0)
    ).with_columns(board_index=pl.col("board_index").fill_null(0))
    pot_unknown = np.zeros(hands.height, dtype=bool)
    pot_unknown[recorded.filter(pl.col("pot_index").is_null())["hand_row"].to_numpy()] = True
    expected = payouts.with_columns(
        pot_index=pl.when(~_per_hand(pot_unknown, "pot_unknown")).then(pl.col("pot_index"))
    )
    per_player_sites = [
        site
        for site in hands["site"].unique().to_list()
        if _profile(site).payout_lines == "per_player"
    ]
    if per_player_sites:
        # One line per player for all boards: the boards' shares are compared summed.
        all_boards = _per_hand(hands["site"].is_in(per_player_sites), "all_boards")
        board = pl.when(all_boards).then(0).otherwise(pl.col("board_index"))
        expected = expected.with_columns(board_index=board.cast(expected["board_index"].dtype))
        recorded = recorded.with_columns(board_index=board.cast(recorded["board_index"].dtype))
    if unmatched_owners.height:
        owners = unmatched_owners.with_columns(owner=pl.lit(True))

        def all_pots(frame: pl.DataFrame) -> pl.DataFrame:
            joined = frame.join(
                owners, on=["hand_row", "player_key"], how="left", maintain_order="left"
            )
            return joined.with_columns(
                pot_index=pl.when(pl.col("owner").is_null()).then(pl.col("pot_index"))
            ).drop("owner")

        expected, recorded = all_pots(expected), all_pots(recorded)
    key = ["hand_row", "pot_index", "board_index", "player_key"]
    # Lines are compared one by one only where the site prints one line per half.
    per_half_sites = [
        site
        for site in hands["site"].unique().to_list()
        if _profile(site).payout_lines == "per_half"
    ]
    lines_per_half = hands["site"].is_in(per_half_sites)
    expected_sums = (
        expected.with_row_index("expected_row")
        .group_by(key)
        .agg(
            expected=pl.col("amount").sum(),
            expected_count=pl.len(),
            expected_min=pl.col("amount").min(),
            expected_max=pl.col("amount").max(),
            has_scoop=(pl.col("half") == "scoop").any(),
            expected_row=pl.col("expected_row").first(),
        )
        .with_columns(
            lines_checked=~pl.col("has_scoop") & _per_hand(lines_per_half, "per_half")
        )
    )
    recorded_sums = (
        recorded.with_row_index("recorded_row")
        .group_by(key)
        .agg(
            recorded=pl.col("amount").sum(),
            recorded_count=pl.len(),
            recorded_min=pl.col("amount").min(),
            recorded_max=pl.col("amount").max(),
            recorded_row=pl.col("recorded_row").first(),
        )
    )
    both = expected_sums.join(
        recorded_sums, on=key, how="full", coalesce=True, nulls_equal=True
    )
    # The money of the pot a row's difference moved within (an odd chip keeps it whole): the
    # pot's, or the board's of the whole hand where some rows are compared over all pots (an
    # unmatched top's owner beside players compared pot by pot: a chip moved between them
    # leaves each pot's sums unequal).
    merged = pl.col("pot_index").is_null().any().over("hand_row")
    pot_window = ("hand_row", "pot_index", "board_index")

    def pot_money(column: str) -> pl.Expr:
        amount = pl.col(column).fill_null(0)
        return (
            pl.when(merged)
            .then(amount.sum().over("hand_row", "board_index"))
            .otherwise(amount.sum().over(pot_window))
        )

    both = both.with_columns(pot_expected=pot_money("expected"), pot_recorded=pot_money("recorded"))
    unit_by_site = {site: _profile(site).odd_chip_unit for site in hands["site"].unique()}
    unit = _per_hand(hands["site"].replace_strict(unit_by_site, return_dtype=pl.Int64), "unit")
    difference = (pl.col("recorded").fill_null(0) - pl.col("expected").fill_null(0)).abs()
    # Equal sums, counts, smallest and largest: the sorted lines are equal when there are at
    # most two; more (pots merged where the site prints no pot number) need the lists.
    same_shape = (
        (pl.col("expected_count") == pl.col("recorded_count"))
        & (pl.col("expected_min") == pl.col("recorded_min"))
        & (pl.col("expected_max") == pl.col("recorded_max"))
    )
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
        .when(pl.col("lines_checked") & ~same_shape)
        .then(pl.lit("payout_lines"))
        .when(pl.col("lines_checked") & (pl.col("expected_count") > 2))
        .then(pl.lit("compare lines"))
    )
    flagged = both.with_columns(kind=kind).filter(pl.col("kind").is_not_null())
    lines = _lines_of(flagged, expected, recorded, key)
    flagged = (
        flagged.join(lines, on=key, how="left", nulls_equal=True)
        .with_columns(
            kind=pl.when(pl.col("kind") != "compare lines")
            .then(pl.col("kind"))
            .when(pl.col("expected_lines") != pl.col("recorded_lines"))
            .then(pl.lit("payout_lines"))
        )
        .filter(pl.col("kind").is_not_null())
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
    expected_lines = pl.when(pl.col("lines_checked")).then(
        pl.col("expected_lines").cast(pl.List(pl.String)).list.join(" + ")
    )
    detail = (
        pot_label
        + board_label
        + pl.lit(": expected ")
        + pl.coalesce(expected_lines, pl.col("expected").cast(pl.String), pl.lit("nothing"))
        + pl.lit(", recorded ")
        + pl.col("recorded_lines").cast(pl.List(pl.String)).list.join(" + ").fill_null("nothing")
    )
    expected_player = _gather_or_null(expected["player"], flagged["expected_row"])
    recorded_player = _gather_or_null(recorded["player"], flagged["recorded_row"])
    return flagged.with_columns(*_hand_columns(hands), detail=detail).select(
        *HAND_KEY,
        player=pl.coalesce(expected_player, recorded_player),
        kind="kind",
        expected=pl.col("expected").fill_null(0),
        recorded=pl.col("recorded").fill_null(0),
        detail="detail",
    )


def _lines_of(
    flagged: pl.DataFrame, expected: pl.DataFrame, recorded: pl.DataFrame, key: list[str]
) -> pl.DataFrame:
    """The sorted expected and recorded lines of the flagged keys."""
    keys = flagged.select(key)
    expected_lines = (
        expected.join(keys, on=key, how="semi", nulls_equal=True)
        .group_by(key)
        .agg(expected_lines=pl.col("amount").sort())
    )
    recorded_lines = (
        recorded.join(keys, on=key, how="semi", nulls_equal=True)
        .group_by(key)
        .agg(recorded_lines=pl.col("amount").sort())
    )
    return keys.join(expected_lines, on=key, how="left", nulls_equal=True).join(
        recorded_lines, on=key, how="left", nulls_equal=True
    )


def _gather_or_null(values: pl.Series, rows: pl.Series) -> pl.Series:
    """``values`` at ``rows``; null where the row is null."""
    return values.gather(rows.cast(pl.Int64))


def _silent_sole_pots(
    pots: PotTable,
    pot_rake: np.ndarray,
    hands: pl.DataFrame,
    players: pl.DataFrame,
    collections: pl.DataFrame,
) -> pl.DataFrame:
    """``hand_row, pot_index, amount`` of the pots a site gave back to their only eligible
    player without a line (``sole_pots_printed`` false: KingsClub prints no line for a side pot
    of dead money that the one player left in it takes back, its summary's nets showing him
    paid), where that player has no line in the hand. They are compared as paid, like an
    uncalled bet returned silently."""
    empty = pl.DataFrame(schema={"hand_row": pl.UInt32, "pot_index": pl.Int8, "amount": pl.Int64})
    sites = [s for s in hands["site"].unique().to_list() if not _profile(s).sole_pots_printed]
    if not sites or len(pots.amount) == 0:
        return empty
    sole = np.flatnonzero(
        (np.diff(pots.eligible_start) == 1)
        & hands["site"].is_in(sites).to_numpy()[pots.hand]
        & (pots.amount - pot_rake > 0)
    )
    if len(sole) == 0:
        return empty
    owner = pots.eligible[pots.eligible_start[sole]]
    candidates = pl.DataFrame(
        {
            "hand_row": pots.hand[sole].astype(np.uint32),
            "pot_index": pots.index[sole].astype(np.int8),
            "amount": (pots.amount - pot_rake)[sole],
            "player": players["player"].gather(owner),
        }
    )
    paid = collections.select(pl.col("hand_row").cast(pl.UInt32), "player").unique()
    return candidates.join(paid, on=["hand_row", "player"], how="anti").drop("player")


def _conservation_findings(
    hands: pl.DataFrame,
    players: pl.DataFrame,
    collections: pl.DataFrame,
    silent: pl.DataFrame | None = None,
) -> pl.DataFrame:
    """Σ collected + rake must equal Σ contributions (returns already taken off; a pot given
    back silently, ``silent``, counts as collected)."""
    put = players.group_by("hand_row").agg(put_in=pl.col("put_in").sum())
    paid = collections.group_by("hand_row").agg(collected=pl.col("amount").sum())
    if silent is not None and silent.height:
        paid = (
            pl.concat(
                [
                    paid.with_columns(pl.col("hand_row").cast(pl.UInt32)),
                    silent.select("hand_row", collected="amount"),
                ],
                how="vertical_relaxed",
            )
            .group_by("hand_row")
            .agg(pl.col("collected").sum())
        )
    gross_by_site = {site: _profile(site).total_pot_is_gross for site in hands["site"].unique()}
    joined = (
        hands.select("hand_row", *HAND_KEY, "rake", "total_pot", "pot_matched")
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
    # A site that pays an uncalled bet back as a won pot may print the pot without it
    # (PartyPoker 2023): the pot is then what was matched.
    unmatched = pl.col("put_in") - pl.col("pot_matched")
    total = joined.filter(
        pl.col("total_pot").is_not_null()
        & (pl.col("total_pot") != printed_total)
        & (pl.col("total_pot") != printed_total - unmatched)
    ).select(
        *HAND_KEY,
        player=pl.lit(None, dtype=pl.String),
        kind=pl.lit("chip_conservation"),
        expected=printed_total,
        recorded=pl.col("total_pot"),
        detail=pl.lit("printed total pot differs from the chips put in"),
    )
    return pl.concat([paid_out, total])


def _rake_rules(hands: pl.DataFrame, rake_schedule: str) -> pl.DataFrame:
    """Per hand row, the rake rule of its schedule as columns (`_scheduled_rake` reads them).

    ``rake_schedule`` names a shipped schedule (``auto``, ``generated``) or a schedule file
    (`pipeline.rake_schedules`). Each hand takes the first rule matching its site, game, limit,
    currency, big blind, date and players dealt (``rule`` null when none does).
    """
    schedule = load_schedule(rake_schedule)
    facts = hands.select(
        "hand_row",
        *HAND_KEY,
        "rake",
        "rake_inferred",
        "pot_put_in",
        "pot_matched",
        "players_dealt",
        "money_scale",
        # A board longer than the cards the game exposes before the flop (Courchevel's one).
        saw_flop=pl.col("board").list.len() > _exposed_counts(hands),
        tournament=pl.col("tournament_id").is_not_null(),
        limit_type=pl.col("limit_type"),
        currency=pl.col("currency"),
        big_blind=pl.col("big_blind"),
        # Without dates in the schedule, one lookup serves every day.
        day=pl.col("started_at").dt.date()
        if any(rule.since or rule.until for rule in schedule.rules)
        else pl.lit(None, dtype=pl.Date),
    )
    keys = ["site", "tournament", "limit_type", "currency", "big_blind", "money_scale", "day", "players_dealt"]
    combos = facts.select(keys).unique()
    rules = [
        schedule.rule_for(
            site,
            tournament,
            limit_type,
            currency,
            None if big_blind is None or not scale else Decimal(big_blind) / scale,
            day,
            players,
        )
        for site, tournament, limit_type, currency, big_blind, scale, day, players in combos.iter_rows()
    ]
    columns = [
        _rule_columns(rule, scale)
        for rule, scale in zip(rules, combos["money_scale"].fill_null(1).to_list(), strict=True)
    ]
    combos = pl.concat(
        [combos, pl.DataFrame(columns, schema=_RULE_COLUMNS, orient="row")], how="horizontal"
    ).with_columns(schedule=pl.lit(schedule.name))
    return (
        facts.join(combos, on=keys, how="left", nulls_equal=True)
        .sort("hand_row")
        .with_columns(expected=_scheduled_rake())
    )


_RULE_COLUMNS = {
    "rule": pl.Int32,
    "exact": pl.Boolean,
    "no_flop_no_drop": pl.Boolean,
    "cap": pl.Int64,
    "numerator": pl.Int64,
    "denominator": pl.Int64,
    "rounding": pl.String,
    "increment": pl.Int64,
    "per": pl.Int64,
    "each_pot": pl.Boolean,
    "source": pl.String,
}


def _running_total_rake(
    pots: PotTable,
    pot_rake: np.ndarray,
    hands: pl.DataFrame,
    rules: pl.DataFrame,
    rake_schedule: str,
) -> np.ndarray:
    """``pot_rake`` with the hands whose rake comes pot by pot on the running total of the
    gross pots (a rule's ``from = "running-total"``, or no rule and a site profile that says
    so) shared that way.

    The rule's rate shares it where the rule is exact; otherwise the pots the site printed net
    of rake say what each gave, where they add up (a rate the schedule does not trust, or none:
    most stakes of a site are in no public schedule); else the rule's rate; else ``pot_rake``
    stays as it was (the main pot first). Only hands with two or more contested pots differ.
    """
    contested = np.ones(len(pots.amount), dtype=np.bool_) if pots.contested is None else pots.contested
    pots_per_hand = np.bincount(pots.hand[contested], minlength=hands.height)
    rake = rules["rake"].fill_null(0).to_numpy()
    profile_running = [
        site for site in hands["site"].unique().to_list() if _profile(site).rake_from == "running-total"
    ]
    running = (
        (rules["source"] == "running-total").fill_null(False)
        | (rules["rule"].is_null() & rules["site"].is_in(profile_running))
    ).to_numpy()
    candidates = np.flatnonzero(running & (pots_per_hand >= 2) & (rake > 0))
    if len(candidates) == 0:
        return pot_rake
    schedule = load_schedule(rake_schedule)
    by_number = {rule.number: rule for rule in schedule.rules}
    printed = (
        hands["side_pots"].to_list() if "side_pots" in hands.columns else [None] * hands.height
    )
    numbers = rules["rule"].to_list()
    exact = rules["exact"].to_list()
    scales = rules["money_scale"].fill_null(1).to_list()
    pot_rows = np.flatnonzero(np.isin(pots.hand, candidates))
    starts = np.searchsorted(pots.hand[pot_rows], candidates)
    ends = np.searchsorted(pots.hand[pot_rows], candidates, side="right")
    shared = pot_rake.copy()
    for hand, start, end in zip(candidates.tolist(), starts.tolist(), ends.tolist(), strict=True):
        rows = pot_rows[start:end]
        amounts, held = pots.amount[rows].tolist(), contested[rows].tolist()
        rule = by_number.get(numbers[hand]) if numbers[hand] is not None else None
        scale = int(scales[hand])

        def by_rule(rule: ScheduleRule = rule) -> list[int] | None:
            return running_total_rake(
                amounts, held, int(rake[hand]), lambda pot: rule.rake(pot, scale, True)
            )

        def as_printed() -> list[int] | None:
            net = printed[hand]
            return None if not net else printed_pot_rake(amounts, held, net, int(rake[hand]))

        if rule is not None and exact[hand]:
            taken = by_rule()
        else:
            taken = as_printed()
            if taken is None and rule is not None:
                taken = by_rule()
        if taken is not None:
            shared[rows] = taken
    return shared


def _rule_columns(rule: ScheduleRule | None, scale: int) -> tuple[object, ...]:
    """A rule's `_RULE_COLUMNS` in a currency of ``scale`` minor units; a rule whose amounts
    are no whole number of that currency's units (a cent cap on a play-chip table) is none."""
    if rule is not None:
        try:
            cap = rule.cap_minor(scale)
            increment = None if rule.increment is None else rule.minor(rule.increment, scale)
            per = None if rule.per is None else rule.minor(rule.per, scale)
        except ScheduleError:
            rule = None
    if rule is None:
        return (None, False, True, None, 0, 1, "half-even", None, None, False, None)
    return (
        rule.number,
        rule.check == "exact",
        rule.no_flop_no_drop,
        cap,
        rule.percent.numerator,
        rule.percent.denominator,
        rule.rounding,
        increment,
        per,
        rule.source == "each-pot",
        rule.source,
    )


def _rake_findings(checked: pl.DataFrame) -> pl.DataFrame:
    """The rake a hand's schedule rule owes (exactly, or its cap only), and no flop no drop.

    ``checked`` is `_rake_rules` of the hands after the rake of sites that print none was
    inferred. A hand no rule matches is checked for no flop no drop only (K1), so a rake is
    never called wrong on a guess.
    """
    rake = pl.col("rake").fill_null(0)
    finding = dict(player=pl.lit(None, dtype=pl.String), kind=pl.lit("rake"))
    preflop = checked.filter(~pl.col("saw_flop") & pl.col("no_flop_no_drop") & (rake > 0)).select(
        *HAND_KEY,
        **finding,
        expected=pl.lit(0, dtype=pl.Int64),
        recorded=rake,
        detail=pl.lit("rake taken although the hand ended before the flop (no flop, no drop)"),
    )
    after_flop = checked.filter(pl.col("saw_flop") | ~pl.col("no_flop_no_drop"))
    rule_label = pl.lit(" of rule ") + pl.col("rule").cast(pl.String) + pl.lit(" in ") + pl.col("schedule")
    wrong = after_flop.filter(pl.col("exact") & (rake != pl.col("expected"))).select(
        *HAND_KEY,
        **finding,
        expected="expected",
        recorded=rake,
        detail=pl.when(rake > pl.col("expected")).then(pl.lit("rake above")).otherwise(pl.lit("rake below"))
        + pl.lit(" the ")
        + pl.col("expected").cast(pl.String)
        + rule_label
        + pl.lit(" (pot ")
        + pl.col("pot_matched").cast(pl.String)
        + pl.lit(", ")
        + pl.col("players_dealt").cast(pl.String)
        + pl.lit(" players dealt)"),
    )
    over_cap = after_flop.filter(
        ~pl.col("exact") & pl.col("cap").is_not_null() & (rake > pl.col("cap"))
    ).select(
        *HAND_KEY,
        **finding,
        expected="cap",
        recorded=rake,
        detail=pl.lit("rake above the cap of ")
        + pl.col("cap").cast(pl.String)
        + " for "
        + pl.col("players_dealt").cast(pl.String)
        + " players dealt"
        + rule_label,
    )
    # No room takes a tenth of a pot: an inferred "rake" that large is a pot not paid out.
    implausible = checked.filter(
        pl.col("rake_inferred") & (rake * 10 > pl.col("pot_put_in"))
    ).select(
        *HAND_KEY,
        **finding,
        expected=pl.col("pot_put_in") // 10,
        recorded=rake,
        detail=pl.lit("the site prints no rake, and the chips not paid out (")
        + rake.cast(pl.String)
        + ") exceed a tenth of the pot ("
        + pl.col("pot_put_in").cast(pl.String)
        + ")",
    )
    return pl.concat([preflop, wrong, over_cap, implausible]).unique(
        HAND_KEY, keep="first", maintain_order=True
    )


def _scheduled_rake() -> pl.Expr:
    """The rake of a hand under its rule's columns (``numerator``/``denominator`` of the
    percentage and ``rounding``, or ``increment`` per ``per``; ``cap``), exactly, in integers."""
    pot = pl.col("pot_matched")
    scaled = pot * pl.col("numerator")
    quotient = scaled // pl.col("denominator")
    remainder = scaled - quotient * pl.col("denominator")
    twice = 2 * remainder
    percent = (
        pl.when(pl.col("rounding") == "down")
        .then(quotient)
        .when(pl.col("rounding") == "up")
        .then(quotient + (remainder > 0).cast(pl.Int64))
        .otherwise(
            quotient
            + (
                (twice > pl.col("denominator"))
                | ((twice == pl.col("denominator")) & (quotient % 2 == 1))
            ).cast(pl.Int64)
        )
    )
    raw = pl.when(pl.col("increment").is_not_null()).then(
        pl.col("increment") * (pot // pl.col("per"))
    ).otherwise(percent)
    capped = pl.when(pl.col("cap").is_not_null()).then(pl.min_horizontal(raw, pl.col("cap"))).otherwise(raw)
    return pl.when(~pl.col("saw_flop") & pl.col("no_flop_no_drop")).then(0).otherwise(capped)


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
    needed to tell two shown hands apart, so printed kickers must be a prefix of the real ones;
    a later hand of the same rank that loses gets `` - lower kicker``, right only when another
    shown hand of that rank on the board is higher (real-site-evidence.md, "Kicker notes").
    """
    checked_sites = [
        site
        for site in hands["site"].unique().to_list()
        if _profile(site).description_style == "pokerstars"
    ]
    showdowns = showdowns.select(
        *HAND_KEY, "player", "hand_row", "player_key", "board_index", "high_desc", "low_desc"
    ).filter(pl.col("site").is_in(checked_sites))
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
        base=plain.gather(shown["high_value"]), wanted_low=lows.gather(shown["low_value"])
    ).with_columns(
        # The best shown hand of the same rank on this board: "- lower kicker" needs one above.
        best_same_rank=pl.col("high_value").max().over("hand_row", "board_index", "base")
    )
    printed = pl.col("high_desc")
    low_ok = (pl.col("low_desc").fill_null("") == pl.col("wanted_low").fill_null(""))
    # Nearly every printed text is the plain description and a right low: only the other
    # rows need the kicker comparison below.
    shown = shown.filter(~(printed.is_null() | (printed == pl.col("base"))) | ~low_ok)
    shown = shown.with_columns(full=with_kickers.gather(shown["high_value"]))
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
        | (
            (printed == pl.col("base") + " - lower kicker")
            & (pl.col("best_same_rank") > pl.col("high_value"))
        )
    )
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


# The button moves to the next seat clockwise whose player was dealt into both the previous and
# the current hand (real-site-evidence.md: 99.5 % of 31,152 clean consecutive PokerStars cash
# pairs, 897 of 897 tournament pairs; "the next seat listed" fits 97.8 %): a newcomer who posts
# is passed over, and a table going from three or more players to two puts the button on the
# previous big blind (when that player is still dealt in). Cash tables deal in the seats not sitting out; tournaments deal in every
# listed seat. A pair is judged only when nothing is missing between the two hands: within two
# minutes, no quarantined hand of the same file between them, and, where the site's hand ids
# count the table's hands (`SiteProfile.hand_counter`), counts that follow. One query serves the
# in-memory audit and the per-unit one (where it is the only check spanning units):
# ``button_hands`` (site, hand_id, table_name, tournament_id, started_at, button_seat,
# source_file, source_offset, part_order, row_order), ``button_seats`` (site, hand_id, seat,
# player, sitting_out) and ``button_rejects`` (source_file, source_offset).
_BUTTON_SQL = """
with hands as (
    select site, hand_id, table_name, tournament_id, started_at, button_seat,
        source_file, source_offset, {hand_counter} as hand_counter
    from button_hands
    {first_copy}
),
dealt as (
    select site, hand_id, seat, player
    from button_seats
    where not coalesce(sitting_out, false)
    union all
    -- Tournaments deal in the players they list as sitting out.
    select seats.site, seats.hand_id, seats.seat, seats.player
    from button_seats as seats
    join hands on hands.site = seats.site and hands.hand_id = seats.hand_id
    where coalesce(seats.sitting_out, false) and hands.tournament_id is not null
),
ordered as (
    select *
    from (
        select
            site, hand_id, button_seat, started_at, source_file, source_offset,
            lag(hand_id) over table_order as previous_hand,
            lag(button_seat) over table_order as previous_button,
            lag(started_at) over table_order as previous_start,
            lag(source_file) over table_order as previous_file,
            lag(source_offset) over table_order as previous_offset,
            hand_counter - lag(hand_counter) over table_order as counted_apart
        from hands
        where table_name is not null and button_seat is not null
        window table_order as (
            partition by site, table_name, tournament_id
            order by started_at nulls last, try_cast(hand_id as bigint) nulls last, hand_id
        )
    )
    where previous_button is not null and started_at - previous_start <= interval 2 minute
        and coalesce(counted_apart, 1) = 1
),
unbroken as (
    select ordered.*
    from ordered
    {gap_filter}
),
seated as (
    select
        site,
        hand_id,
        list(seat order by seat) as seats,
        list(hash(seat, player) order by seat) as sitters
    from dealt
    group by site, hand_id
),
pairs as (
    select
        unbroken.site, unbroken.hand_id, unbroken.button_seat, unbroken.previous_button,
        len(current.seats) as current_players,
        len(previous.seats) as previous_players,
        list_filter(
            current.seats, lambda seat, i: list_contains(previous.sitters, current.sitters[i])
        ) as both_seats,
        list_concat(
            list_filter(previous.seats, lambda seat: seat > unbroken.previous_button),
            list_filter(previous.seats, lambda seat: seat <= unbroken.previous_button)
        )[2] as previous_big_blind
    from unbroken
    join seated as current
        on current.site = unbroken.site and current.hand_id = unbroken.hand_id
    join seated as previous
        on previous.site = unbroken.site and previous.hand_id = unbroken.previous_hand
),
expected as (
    select *,
        case
            when previous_players >= 3 and current_players = 2
                and list_contains(both_seats, previous_big_blind)
                then previous_big_blind
            else coalesce(
                list_min(list_filter(both_seats, lambda seat: seat > previous_button)),
                list_min(both_seats)
            )
        end as expected
    from pairs
)
select
    site,
    hand_id,
    cast(null as varchar) as player,
    'button' as kind,
    cast(expected as bigint) as expected,
    cast(button_seat as bigint) as recorded,
    'button on seat ' || button_seat || ', expected seat ' || expected
        || ' (previous hand''s button: seat ' || previous_button || ')' as detail
from expected
where expected is not null and button_seat != expected
"""
# Keeps the first copy of a hand present twice; a window over every hand, so it is left out
# when the caller knows no hand is repeated.
_FIRST_COPY = """qualify row_number() over (
        partition by site, hand_id order by part_order, row_order
    ) = 1"""
_BUTTON_COLUMNS = (
    "site, hand_id, table_name, tournament_id, started_at, button_seat, source_file, source_offset"
)


def _hand_counter_sql() -> str:
    """The SQL of a hand's table hand count (`SiteProfile.hand_counter`; null where its site's
    ids carry none, or its id does not match)."""
    import parsers

    patterns = {
        parser.site: pattern.replace("'", "''")
        for parser in parsers.PARSERS
        if (pattern := _profile(parser.site).hand_counter) is not None
    }
    cases = [
        f"when '{site}' then try_cast(regexp_extract(hand_id, '{pattern}', 1) as bigint)"
        for site, pattern in patterns.items()
    ]
    if not cases:
        return "cast(null as bigint)"
    return f"case site {' '.join(cases)} end"


def _button_findings(hands: pl.DataFrame, seats: pl.DataFrame) -> pl.DataFrame:
    """The button check over in-memory tables (no quarantined hands are known here)."""
    import duckdb

    with duckdb.connect() as connection:
        button_hands = hands.select(
            *_BUTTON_COLUMNS.split(", "), part_order=pl.lit(0), row_order="hand_row"
        )
        button_seats = seats.select("site", "hand_id", "seat", "player", "sitting_out")
        connection.register("button_hands", button_hands)
        connection.register("button_seats", button_seats)
        return _button_result(connection, rejects=False)


# A pair with a quarantined hand of the same file between its two hands is a gap.
_GAP_FILTER = """where not exists (
        select 1 from button_rejects as rejects
        where rejects.source_file = ordered.source_file
            and ordered.previous_file = ordered.source_file
            and rejects.source_offset > least(ordered.previous_offset, ordered.source_offset)
            and rejects.source_offset < greatest(ordered.previous_offset, ordered.source_offset)
    )"""


def _button_result(
    connection: object, *, first_copies: bool = True, rejects: bool = True
) -> pl.DataFrame:
    query = _BUTTON_SQL.format(
        first_copy=_FIRST_COPY if first_copies else "",
        gap_filter=_GAP_FILTER if rejects else "",
        hand_counter=_hand_counter_sql(),
    )
    found = connection.sql(query).pl()  # type: ignore[attr-defined]
    return found.cast(FINDING_SCHEMA) if found.height else _empty_findings()


def _dataset_button_findings(
    root: Path,
    hand_parts: list[str],
    seat_parts: list[str],
    reject_parts: list[str],
    repeated: bool = True,
) -> pl.DataFrame:
    """The button check over the whole dataset, in DuckDB with bounded memory (it spills).

    ``repeated`` False says no hand is present twice, so the query skips keeping the first
    copy of each hand (a window over every hand, most of the check's time).
    """
    import duckdb

    if not hand_parts:
        return _empty_findings()
    spill = root / "audit" / ".spill"
    with duckdb.connect(config={"memory_limit": BUTTON_MEMORY, "threads": 2}) as connection:
        connection.execute("set preserve_insertion_order = false")
        connection.execute(f"set temp_directory = '{spill.as_posix()}'")
        connection.sql(
            f"select {_BUTTON_COLUMNS}, filename as part_order, file_row_number as row_order"
            " from read_parquet(?, filename = true, file_row_number = true)",
            params=[[str(root / part) for part in hand_parts]],
        ).create_view("button_hands")
        if seat_parts:
            connection.sql(
                "select site, hand_id, seat, player, sitting_out from read_parquet(?)",
                params=[[str(root / part) for part in seat_parts]],
            ).create_view("button_seats")
        else:
            connection.execute(
                "create view button_seats as select '' as site, '' as hand_id,"
                " cast(0 as smallint) as seat, '' as player, false as sitting_out limit 0"
            )
        if reject_parts:
            connection.sql(
                "select source_file, source_offset from read_parquet(?)"
                " where source_offset is not null",
                params=[[str(root / part) for part in reject_parts]],
            ).create_view("button_rejects")
        return _button_result(connection, first_copies=repeated, rejects=bool(reject_parts))


@dataclass(frozen=True)
class AuditSummary:
    """What ``hilo audit`` prints: totals and findings by kind, with example hands."""

    hands: int
    unevaluable: int
    payouts: int
    findings_by_kind: dict[str, int]
    examples: dict[str, list[str]]
    output: str
    # Money the money findings put in question: Σ |recorded − expected| per currency (minor
    # units, with the currency's minor units per unit), for the summary line.
    money_affected: dict[tuple[str, int], int] = field(default_factory=dict)

    def findings_by_severity(self) -> dict[str, int]:
        """Findings per severity, in `SEVERITIES` order (money first)."""
        counts = {severity: 0 for severity in SEVERITIES}
        for kind, count in self.findings_by_kind.items():
            counts[SEVERITY.get(kind, "rules")] += count
        return counts


@dataclass(frozen=True)
class AuditUnit:
    """A bounded piece of the dataset audited by one task.

    ``parts`` are part paths relative to a table's folder (``site=x/…/part-<id>.parquet``): a
    hand's rows in every table sit in parts of the same relative path. ``rows`` limits a unit
    of a single large part to a range of its hands. ``excluded`` are (part, hand id) pairs of
    hands whose first copy is in another part, so that a repeated hand is audited once.
    """

    site: str
    parts: tuple[str, ...]
    rows: tuple[int, int] | None = None
    excluded: tuple[tuple[str, str], ...] = ()

    @property
    def name(self) -> str:
        """The output file name: the same unit always writes the same file."""
        from pipeline.dataset import part_name, stable_id

        lines = [*self.parts, f"rows {self.rows}" if self.rows else ""]
        return part_name(stable_id(lines))


@dataclass(frozen=True)
class UnitSummary:
    """What one unit's task returns: its totals and the files it wrote."""

    hands: int
    unevaluable: int
    payouts: int
    findings_by_kind: dict[str, int]
    examples: dict[str, list[tuple[str, str]]]  # kind → first (site, hand_id), in key order
    written: list[str]  # paths relative to the dataset's audit folder
    money_affected: dict[tuple[str, int], int] = field(default_factory=dict)


UNIT_HANDS = 20_000  # hands per unit: bounds a task's memory (2 workers + driver < 1 GiB)
# DuckDB's limit for the button check; beyond it, it spills to disk. 256 MB ran out of memory on
# the second audit of a 1,000,000-hand archive (its window operators cannot spill all of it).
BUTTON_MEMORY = "512MB"
AUDIT_TABLES = ("payouts", "discrepancies", "allin_equity")
_EXAMPLES = 3


def audit_unit(root: str, unit: AuditUnit, rake_schedule: str, equity: bool = True) -> UnitSummary:
    """Audit one unit and write its outputs; pure apart from its own output files.

    Each output is written under a temporary name and renamed to a name derived from the
    unit, so a retried or repeated task replaces its file instead of adding rows. The button
    check spans units and is left to `run_audit`.
    """
    dataset = Path(root)
    tables = _read_unit(dataset, unit)
    result = _audit(**tables, rake_schedule=rake_schedule, check_button=False, with_equity=equity)
    written = [
        path
        for name, frame in (
            ("payouts", result.payouts),
            ("discrepancies", result.discrepancies),
            ("allin_equity", result.allin_equity),
        )
        if (path := _write_unit_output(dataset / "audit", name, unit, frame)) is not None
    ]
    return UnitSummary(
        hands=result.hands,
        unevaluable=result.unevaluable,
        payouts=result.payouts.height,
        findings_by_kind=dict(result.discrepancies.group_by("kind").len().iter_rows()),
        examples=_examples(result.discrepancies),
        written=written,
        money_affected=_money_affected(result.discrepancies, tables["hands"]),
    )


def _money_affected(discrepancies: pl.DataFrame, hands: pl.DataFrame) -> dict[tuple[str, int], int]:
    """Σ |recorded − expected| of the money findings, per (currency, minor units per unit).

    Chip conservation restates the same chips as the payout findings of its hand, so it is
    left out of the sum.
    """
    money = discrepancies.filter(
        (pl.col("severity") == "money") & (pl.col("kind") != "chip_conservation")
    )
    if money.height == 0:
        return {}
    currencies = (
        hands.select(*HAND_KEY, "currency", "money_scale")
        .join(money.select(HAND_KEY).unique(), on=HAND_KEY, how="semi")
        .unique(HAND_KEY)
    )
    totals = (
        money.join(currencies, on=HAND_KEY, how="left")
        .group_by(pl.col("currency").fill_null("?"), pl.col("money_scale").fill_null(1))
        .agg(amount=(pl.col("recorded") - pl.col("expected")).abs().sum())
    )
    return {
        (str(currency), int(scale)): int(amount) for currency, scale, amount in totals.iter_rows()
    }


# The columns of the hands, seats and showdowns that the checks read: a unit reads only these
# (the other columns of those tables are a good part of their bytes). A check that starts
# reading another column must add it here.
_UNIT_COLUMNS = {
    "hands": [
        "site", "hand_id", "tournament_id", "table_name", "game", "limit_type", "currency",
        "money_scale", "small_blind", "big_blind", "small_bet", "big_bet", "button_seat", "started_at",
        "board", "board2", "total_pot", "side_pots", "rake", "players_dealt",
    ],
    "seats": ["site", "hand_id", "seat", "player", "stack_start", "hole_cards"],
    "showdowns": ["site", "hand_id", "player", "high_desc", "low_desc", "board_index"],
}  # fmt: skip


def _read_unit(root: Path, unit: AuditUnit) -> dict[str, pl.DataFrame]:
    """The unit's rows of every table (hands limited to ``rows``, later copies taken out)."""
    from pipeline.schema import TABLES

    def read(table: str, part: str) -> pl.LazyFrame | None:
        path = root / table / part
        if not path.exists():
            return None
        schema = pl.from_arrow(TABLES[table].empty_table()).schema  # type: ignore[union-attr]
        wanted = _UNIT_COLUMNS.get(table, list(schema))
        frame = pl.scan_parquet(path, hive_partitioning=False).select(
            [pl.col(name).cast(schema[name]) for name in wanted]
        )
        later_copies = [hand_id for copy_part, hand_id in unit.excluded if copy_part == part]
        if later_copies:
            frame = frame.filter(~pl.col("hand_id").is_in(pl.Series(later_copies).implode()))
        return frame

    hands = pl.concat([frame for part in unit.parts if (frame := read("hands", part)) is not None])
    if unit.rows is not None:
        start, stop = unit.rows
        # Copies of a hand earlier in the part belong to the range holding the first copy.
        first_copy = hands.select(first=pl.col("hand_id").is_first_distinct()).slice(
            start, stop - start
        )
        hands = pl.concat([hands.slice(start, stop - start), first_copy], how="horizontal")
        hands = hands.filter(pl.col("first")).drop("first")
    hands_frame = hands.collect()
    tables = {"hands": hands_frame}
    wanted = hands_frame["hand_id"].implode() if unit.rows is not None else None
    for table in ("seats", "actions", "collections", "showdowns"):
        frames = [frame for part in unit.parts if (frame := read(table, part)) is not None]
        if not frames:
            tables[table] = pl.from_arrow(TABLES[table].empty_table())  # type: ignore[assignment]
            continue
        frame = pl.concat(frames)
        if wanted is not None:
            frame = frame.filter(pl.col("hand_id").is_in(wanted))
        tables[table] = frame.collect()
    return tables


def _write_unit_output(
    folder: Path, table: str, unit: AuditUnit, frame: pl.DataFrame
) -> str | None:
    """Write (or, when empty, remove) the unit's file of ``table``; its relative path."""
    from pipeline.dataset import fsync_directory, new_temporary_path, write_parquet

    directory = folder / table / f"site={unit.site}"
    final = directory / unit.name
    if frame.height == 0:
        final.unlink(missing_ok=True)
        return None
    temporary = new_temporary_path(directory)
    # Which hands parts the file covers, for the statistics' facts (pipeline.facts), which read
    # only a part's own audit files; a unit that left out repeated hands names none.
    covered = None if unit.excluded else [f"hands/{part}" for part in unit.parts]
    arrow = frame.drop("site").to_arrow()
    arrow = arrow.replace_schema_metadata({HAND_PARTS_KEY: json.dumps(covered)})
    write_parquet(arrow, temporary)
    os.replace(temporary, final)
    fsync_directory(directory)
    return final.relative_to(folder).as_posix()


def _examples(discrepancies: pl.DataFrame) -> dict[str, list[tuple[str, str]]]:
    """Per kind, the first few distinct hand ids in key order (with their site)."""
    firsts = (
        discrepancies.select("kind", "site", "hand_id")
        .sort("site", "hand_id")
        .unique(subset=["kind", "hand_id"], keep="first", maintain_order=True)
    )
    return {
        kind: list(zip(group["site"].head(_EXAMPLES), group["hand_id"].head(_EXAMPLES)))
        for (kind,), group in firsts.partition_by("kind", as_dict=True).items()
    }


def plan_units(root: Path, unit_hands: int = UNIT_HANDS) -> tuple[list[AuditUnit], list[str], list[str]]:
    """Split the committed dataset into units; also return the hands and seats part paths.

    Parts are grouped per site, in part order, up to ``unit_hands`` hands; a larger part is
    cut into row ranges. A hand whose copies sit in several units is audited in the unit of
    its first copy (dataset read order), as the whole-table audit keeps the first.
    """
    units, hand_parts, seat_parts, _, _ = _plan(root, unit_hands)
    return units, hand_parts, seat_parts


def _plan(
    root: Path, unit_hands: int
) -> tuple[list[AuditUnit], list[str], list[str], list[str], bool]:
    """`plan_units`, and whether any hand is present more than once in the dataset."""
    import pyarrow.parquet as pq

    from pipeline.dataset import read_manifest

    parts: set[str] = set()
    for listed in read_manifest(root).column("parts").to_pylist():
        parts.update(listed or ())
    hand_parts = sorted(part for part in parts if part.startswith("hands/"))
    seat_parts = sorted(part for part in parts if part.startswith("seats/"))
    reject_parts = sorted(part for part in parts if part.startswith("rejects/"))
    owners, repeated = _first_copies(root, hand_parts)
    units: list[AuditUnit] = []
    group: list[str] = []
    group_site = ""
    group_hands = 0

    def close_group() -> None:
        if group:
            units.append(AuditUnit(group_site, tuple(group)))
            group.clear()

    for part in hand_parts:
        relative = part.removeprefix("hands/")
        site = relative.split("/", 1)[0].removeprefix("site=")
        count = pq.ParquetFile(root / part).metadata.num_rows
        if count > unit_hands:
            close_group()
            for start in range(0, count, unit_hands):
                units.append(AuditUnit(site, (relative,), (start, min(start + unit_hands, count))))
            continue
        if group and (site != group_site or group_hands + count > unit_hands):
            close_group()
        if not group:
            group_site, group_hands = site, 0
        group.append(relative)
        group_hands += count
    close_group()
    if owners:
        units = [_with_exclusions(unit, owners) for unit in units]
    return units, hand_parts, seat_parts, reject_parts, repeated


def _first_copies(
    root: Path, hand_parts: list[str]
) -> tuple[dict[tuple[str, str], str], bool]:
    """(site, hand_id) → the part (relative to the table folder) of its first copy, for the
    hands present in more than one part; and whether any hand is present more than once
    (in several parts or twice in one)."""
    import duckdb

    if not hand_parts:
        return {}, False
    with duckdb.connect(config={"memory_limit": BUTTON_MEMORY, "threads": 2}) as connection:
        connection.execute(f"set temp_directory = '{(root / 'audit' / '.spill').as_posix()}'")
        rows = connection.sql(
            "with copies as ("
            " select site, hand_id, filename, count(*) as in_part"
            " from read_parquet(?, filename = true) group by site, hand_id, filename),"
            " repeated as (select site, hand_id, count(*) > 1 as several_parts from copies"
            " group by site, hand_id having count(*) > 1 or sum(in_part) > 1)"
            " select site, hand_id, min(filename), bool_or(several_parts) from copies"
            " join repeated using (site, hand_id) group by site, hand_id",
            params=[[str(root / part) for part in hand_parts]],
        ).fetchall()
    prefix = len(str(root / "hands")) + 1
    owners = {
        (site, hand_id): filename[prefix:]
        for site, hand_id, filename, several_parts in rows
        if several_parts
    }
    return owners, bool(rows)


def _with_exclusions(unit: AuditUnit, owners: dict[tuple[str, str], str]) -> AuditUnit:
    """Name the later copies in the unit's parts (part, hand id), which it must skip."""
    excluded = tuple(
        sorted(
            (part, hand_id)
            for (site, hand_id), owner in owners.items()
            if site == unit.site
            for part in unit.parts
            if part != owner
        )
    )
    return dataclasses.replace(unit, excluded=excluded) if excluded else unit


def run_audit(
    root: Path,
    rake_schedule: str = "auto",
    executor: Executor | None = None,
    progress: Callable[[int, int], None] | None = None,
    *,
    unit_hands: int = UNIT_HANDS,
    equity: bool = True,
) -> AuditSummary:
    """Audit every committed hand of the dataset at ``root`` and write ``root/audit/``.

    The dataset is cut into units of at most ``unit_hands`` hands (`plan_units`), each
    audited by `audit_unit` on ``executor`` (None: here, one after the other), so memory is
    bounded by a unit whatever the dataset's size. The button check, which compares
    consecutive hands across units, runs once in DuckDB over a few columns of the hands and
    seats, under a memory limit past which DuckDB spills to ``audit/.spill``.
    Outputs are ``audit/{payouts,discrepancies,allin_equity}/site=<site>/part-<unit>.parquet``
    (``allin_equity``: `pipeline.equity`, left out when ``equity`` is false), each written
    under a temporary name and renamed; files of an earlier run that this run did not write
    are removed at the end. ``progress`` is called with (units done, units).
    """
    root = Path(root)
    output = root / "audit"
    for table in AUDIT_TABLES:
        (output / table).mkdir(parents=True, exist_ok=True)
    units, hand_parts, seat_parts, reject_parts, repeated = _plan(root, unit_hands)
    summaries: list[UnitSummary] = []
    if executor is None:
        for done, unit in enumerate(units, start=1):
            summaries.append(audit_unit(str(root), unit, rake_schedule, equity))
            if progress is not None:
                progress(done, len(units))
    else:
        futures = [
            executor.submit(audit_unit, str(root), unit, rake_schedule, equity) for unit in units
        ]
        try:
            # The button check needs no unit's result: it runs here while the workers audit.
            button = with_severity(
                _dataset_button_findings(root, hand_parts, seat_parts, reject_parts, repeated)
            )
            for done, future in enumerate(as_completed(futures), start=1):
                summaries.append(future.result())
                if progress is not None:
                    progress(done, len(units))
        except BaseException:
            # The files already written stay valid; a rerun replaces them and removes the rest.
            for future in futures:
                future.cancel()
            raise
    if executor is None:
        button = with_severity(
            _dataset_button_findings(root, hand_parts, seat_parts, reject_parts, repeated)
        )
    written = {path for summary in summaries for path in summary.written}
    for (site,), part in button.partition_by("site", as_dict=True).items():
        unit = AuditUnit(str(site), ("button",))
        path = _write_unit_output(output, "discrepancies", unit, part)
        if path is not None:
            written.add(path)
    _remove_stale(output, written)
    counts: dict[str, int] = {}
    for summary in summaries:
        for kind, count in summary.findings_by_kind.items():
            counts[kind] = counts.get(kind, 0) + count
    if button.height:
        counts["button"] = counts.get("button", 0) + button.height
    return AuditSummary(
        hands=sum(summary.hands for summary in summaries),
        unevaluable=sum(summary.unevaluable for summary in summaries),
        payouts=sum(summary.payouts for summary in summaries),
        findings_by_kind=dict(sorted(counts.items())),
        examples=_merged_examples([summary.examples for summary in summaries], button),
        output=str(output),
        money_affected=_summed([summary.money_affected for summary in summaries]),
    )


def _summed(per_unit: list[dict[tuple[str, int], int]]) -> dict[tuple[str, int], int]:
    total: dict[tuple[str, int], int] = {}
    for amounts in per_unit:
        for key, amount in amounts.items():
            total[key] = total.get(key, 0) + amount
    return dict(sorted(total.items()))


def _merged_examples(
    per_unit: list[dict[str, list[tuple[str, str]]]], button: pl.DataFrame
) -> dict[str, list[str]]:
    candidates: dict[str, list[tuple[str, str]]] = {}
    for examples in [*per_unit, _examples(button)]:
        for kind, pairs in examples.items():
            candidates.setdefault(kind, []).extend(pairs)
    merged: dict[str, list[str]] = {}
    for kind, pairs in sorted(candidates.items()):
        chosen: list[str] = []
        for _, hand_id in sorted(pairs):
            if hand_id not in chosen:
                chosen.append(hand_id)
            if len(chosen) == _EXAMPLES:
                break
        merged[kind] = chosen
    return merged


def _remove_stale(folder: Path, written: set[str]) -> None:
    """Delete audit files this run did not write (earlier runs, other layouts, litter)."""
    import shutil

    from pipeline.dataset import is_temporary

    for table in AUDIT_TABLES:
        for path in (folder / table).glob("site=*/*"):
            relative = path.relative_to(folder).as_posix()
            if path.is_file() and (is_temporary(path) or path.suffix == ".parquet") and relative not in written:
                path.unlink(missing_ok=True)
    shutil.rmtree(folder / ".spill", ignore_errors=True)
