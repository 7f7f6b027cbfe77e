"""All-in spots of Big O, 6-card Omaha Hi/Lo and Courchevel through the audit (`audit_tables`).

Generated Omaha Hi/Lo hands are turned into hands of another game: the game column changes and
every seat with known cards gets one or two more cards its hand does not use. The betting is
the same, so the spots are the same hands; their expected amounts are checked against the
brute force (every run-out, pokerkit strengths, the rules written again), Courchevel's
preflop spots know the first board card, and a player holding fewer cards than the game deals
is unknown cards.
"""

from __future__ import annotations

import math
import random
from pathlib import Path

import polars as pl
import pytest

from parsers.games import GAMES
from pipeline.audit import AuditResult, audit_tables
from pipeline.dataset import read_table
from pipeline.profiles import site_profile
from tests.equity_reference import reference_equity
from tests.test_equity import independent_strengths

TABLES = ("hands", "seats", "actions", "collections", "showdowns")
Tables = dict[str, pl.DataFrame]


@pytest.fixture(scope="module")
def omaha_tables(tmp_path_factory: pytest.TempPathFactory) -> Tables:
    from pipeline.generate import generate
    from pipeline.ingest import ingest

    root = tmp_path_factory.mktemp("equity_games")
    generate(600, 44, root / "generated", limit="mix", tournament_share=0.3, workers=1)
    summary = ingest([root / "generated" / "pokerstars"], root / "dataset", workers=1)
    assert not summary.errors
    return {name: pl.from_arrow(read_table(root / "dataset", name)) for name in TABLES}


def as_game(tables: Tables, game: str, seed: int = 7) -> tuple[Tables, set[str]]:
    """The tables with every hand of ``game``: each seat with cards gets the extra cards from
    those its hand does not use. Returns the tables and the hands where every seat with cards
    got them (in the others some keep four, which is unknown cards for this game)."""
    extra = GAMES[game].hole_cards - 4
    rng = random.Random(seed)
    hands = tables["hands"].with_columns(game=pl.lit(game))
    used: dict[str, set[int]] = {}
    for hand_id, board, board2 in hands.select("hand_id", "board", "board2").iter_rows():
        used[hand_id] = set(board or []) | set(board2 or [])
    seats = tables["seats"]
    for hand_id, cards in seats.select("hand_id", "hole_cards").iter_rows():
        used[hand_id] |= set(cards or [])
    complete = set(used)
    new_cards: list[list[int] | None] = []
    for hand_id, cards in seats.select("hand_id", "hole_cards").iter_rows():
        if cards is None:
            new_cards.append(None)
            continue
        free = sorted(set(range(52)) - used[hand_id])
        if len(free) < extra:
            complete.discard(hand_id)
            new_cards.append(cards)
            continue
        added = rng.sample(free, extra)
        used[hand_id] |= set(added)
        new_cards.append([*cards, *added])
    seats = seats.with_columns(hole_cards=pl.Series(new_cards, dtype=seats["hole_cards"].dtype))
    return {**tables, "hands": hands, "seats": seats}, complete


def audit(tables: Tables) -> AuditResult:
    return audit_tables(**tables, rake_schedule="generated")  # type: ignore[arg-type]


def spot_streets(result: AuditResult) -> dict[str, int]:
    return dict(result.allin_equity.select("hand_id", "street").unique().iter_rows())


def check_rows_add_up(result: AuditResult) -> None:
    equity = result.allin_equity
    pots = equity.group_by("hand_id", "pot_index").agg(
        pl.col("expected_amount").sum(), pl.col("actual_amount").sum(), pl.col("pot_amount").first()
    )
    gap = (pots["expected_amount"] - pots["pot_amount"]).abs()
    assert (gap <= 1e-9 * pots["pot_amount"] + 1e-9).all()
    assert (pots["actual_amount"] == pots["pot_amount"]).all()
    paid = result.payouts.group_by("hand_id", "pot_index", "player").agg(
        paid=pl.col("amount").sum()
    )
    joined = equity.join(paid, on=["hand_id", "pot_index", "player"], how="left")
    assert (joined["paid"].fill_null(0) == joined["actual_amount"]).all()


def spot_input(
    tables: Tables, equity: pl.DataFrame, hand_id: str
) -> tuple[list[tuple[int, ...]], list[tuple[int, list[int]]], pl.DataFrame, list[str], dict]:
    """The holes (clockwise from the button), pots and rows of one spot, for the brute force."""
    hand = tables["hands"].filter(pl.col("hand_id") == hand_id).row(0, named=True)
    rows = equity.filter(pl.col("hand_id") == hand_id)
    names = rows.select("player").unique(maintain_order=True)["player"].to_list()
    order = (
        tables["seats"]
        .filter(pl.col("hand_id") == hand_id)
        .with_columns(after=(pl.col("seat") - hand["button_seat"] - 1) % 100)
        .sort("after")
    )
    in_order = [name for name in order["player"].to_list() if name in names]
    holes = [tuple(order.filter(pl.col("player") == name)["hole_cards"][0]) for name in in_order]
    pots = []
    for pot_index in sorted(rows["pot_index"].unique().to_list()):
        pot = rows.filter(pl.col("pot_index") == pot_index)
        members = sorted(in_order.index(name) for name in pot["player"].to_list())
        pots.append((int(pot["pot_amount"][0]), members))
    return holes, pots, rows, in_order, hand


def check_against_brute_force(
    tables: Tables, equity: pl.DataFrame, hand_id: str, known_count: int, strengths_of=None
) -> None:
    holes, pots, rows, in_order, hand = spot_input(tables, equity, hand_id)
    unit = site_profile(hand["site"]).odd_chip_unit
    boards = 2 if hand["board2"] else 1
    options = {} if strengths_of is None else {"strengths_of": strengths_of}
    truth, events = reference_equity(
        holes, tuple(hand["board"][:known_count]), pots, unit, boards, **options
    )
    assert rows["runouts"][0] == events["boards"]
    for (amount, members), pot_index, exact in zip(
        pots, sorted(rows["pot_index"].unique().to_list()), truth, strict=True
    ):
        for member in members:
            row = rows.filter(
                (pl.col("pot_index") == pot_index) & (pl.col("player") == in_order[member])
            )
            want = float(exact[member])
            assert row["expected_amount"][0] == pytest.approx(want, abs=1e-12 * max(amount, 1))


KNOWN_BY_STREET = {0: 0, 1: 3, 2: 4}


@pytest.mark.parametrize("game", ["O8-5card", "O8-6card"])
def test_big_o_and_six_card_spots_match_the_brute_force(
    omaha_tables: Tables, game: str
) -> None:
    omaha = spot_streets(audit(omaha_tables))
    tables, complete = as_game(omaha_tables, game)
    result = audit(tables)
    streets = spot_streets(result)
    # The same betting, so the same spots wherever every known hand got its extra cards.
    assert {hand: street for hand, street in omaha.items() if hand in complete} == {
        hand: street for hand, street in streets.items() if hand in complete
    }
    assert len(streets) >= 20
    check_rows_add_up(result)
    equity = result.allin_equity
    hole_counts = tables["seats"].join(
        equity.select("hand_id", "player").unique(), on=["hand_id", "player"]
    )
    assert (hole_counts["hole_cards"].list.len() == GAMES[game].hole_cards).all()
    later = [hand_id for hand_id, street in sorted(streets.items()) if street >= 1]
    for hand_id in later[:10]:
        check_against_brute_force(tables, equity, hand_id, KNOWN_BY_STREET[streets[hand_id]])
    assert len(later) >= 5


def test_courchevel_preflop_spots_know_the_first_board_card(omaha_tables: Tables) -> None:
    tables, _ = as_game(omaha_tables, "Courchevel-HL")
    result = audit(tables)
    check_rows_add_up(result)
    equity = result.allin_equity
    preflop = equity.filter(pl.col("street") == 0)
    assert preflop.height > 0
    per_spot = preflop.group_by("hand_id").agg(
        pl.col("runouts").first(), pl.col("player").n_unique()
    )
    for hand_id, runouts, players in per_spot.iter_rows():
        assert runouts == math.comb(52 - 5 * players - 1, 4), hand_id
    # The spots of most players (fewest boards) against the brute force, whose strengths come
    # from the 4-card kernel over each hand's four-card subsets (checked against pokerkit).
    smallest = preflop.sort("runouts", "hand_id")
    hand_ids = smallest.select("hand_id").unique(maintain_order=True)["hand_id"].to_list()[:2]
    for hand_id in hand_ids:
        check_against_brute_force(tables, equity, hand_id, 1, strengths_of=independent_strengths)


def test_a_player_without_the_games_hole_count_is_unknown_cards(omaha_tables: Tables) -> None:
    tables, _ = as_game(omaha_tables, "O8-5card")
    equity = audit(tables).allin_equity
    streets = dict(equity.select("hand_id", "street").unique().iter_rows())
    hand_id = sorted(streets)[0]
    player = equity.filter(pl.col("hand_id") == hand_id)["player"][0]
    short = (pl.col("hand_id") == hand_id) & (pl.col("player") == player)
    seats = tables["seats"].with_columns(
        hole_cards=pl.when(short)
        .then(pl.col("hole_cards").list.head(4))
        .otherwise(pl.col("hole_cards"))
    )
    again = spot_streets(audit({**tables, "seats": seats}))
    assert hand_id not in again
    assert set(again) == set(streets) - {hand_id}
