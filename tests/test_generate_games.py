"""`hilo generate --game` round trips: Big O, 6-card Omaha Hi/Lo and Courchevel Hi/Lo archives
generated, ingested and audited.

Each site that deals a game (`pipeline.generate.sites`: PokerStars all three, Winamax Big O)
writes an archive with faults injected; ingest must read every hand with its game (no reject,
none skipped) and the audit must find exactly the faulted hands, with the kinds each fault
shows as (`tests.test_generate_sites`), and settle the clean hands as the generator did.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from parsers.games import GAMES
from pipeline.audit import audit_tables
from pipeline.dataset import read_table
from pipeline.generate import generate
from pipeline.generate.sites import SITES
from pipeline.ingest import ingest
from tests.test_generate_sites import (
    TABLES,
    RoundTrip,
    check_counts,
    check_faults_found,
    check_money_against_truth,
)

GAME_SITES = [
    (site, game)
    for site, text in sorted(SITES.items())
    for game in text.games
    if game != "O8"
]


def game_round_trip(
    tmp_path: Path, site: str, game: str, hands: int, seed: int, fault_rate: float
) -> RoundTrip:
    out = tmp_path / f"{site}-{game}-{seed}"
    generate(hands, seed, out, site=site, game=game, fault_rate=fault_rate, workers=1)
    dataset = out / "dataset"
    summary = ingest([out / site], dataset, workers=1)
    tables = {name: pl.from_arrow(read_table(dataset, name)) for name in TABLES}
    result = audit_tables(**tables, rake_schedule="generated")  # type: ignore[arg-type]
    return RoundTrip(site, out, tables, result, summary)  # type: ignore[arg-type]


def check_trip(trip: RoundTrip, game: str) -> dict[str, int]:
    """Every hand read with its game, the faults found and nothing else, the money right."""
    check_counts(trip)
    hands = trip.tables["hands"]
    assert set(hands["game"]) == {game}
    dealt = trip.tables["seats"]["hole_cards"].drop_nulls().list.len()
    assert set(dealt) == {GAMES[game].hole_cards}
    if GAMES[game].exposed_before_flop:
        # Every hand has its exposed card, hands that ended before the flop only that one.
        assert hands["board"].list.len().min() == GAMES[game].exposed_before_flop
    assert trip.result.unevaluable == 0
    by_kind = check_faults_found(trip)
    check_money_against_truth(trip)
    return by_kind


def test_the_sites_deal_the_games() -> None:
    assert GAME_SITES == [
        ("pokerstars", "O8-5card"),
        ("pokerstars", "O8-6card"),
        ("pokerstars", "Courchevel-HL"),
        ("winamax", "O8-5card"),
    ]


@pytest.mark.parametrize(("site", "game"), GAME_SITES)
def test_generated_games_round_trip(tmp_path: Path, site: str, game: str) -> None:
    trip = game_round_trip(tmp_path, site, game, 300, seed=41, fault_rate=0.12)
    by_kind = check_trip(trip, game)
    assert sum(by_kind.values()) >= 15, by_kind


@pytest.mark.slow
@pytest.mark.parametrize(("site", "game"), GAME_SITES)
def test_many_generated_hands_of_each_game_round_trip(
    tmp_path: Path, site: str, game: str
) -> None:
    trip = game_round_trip(tmp_path, site, game, 5000, seed=43, fault_rate=0.05)
    by_kind = check_trip(trip, game)
    # Every fault kind the site's text can show was injected and found.
    assert set(by_kind) == set(SITES[site].fault_kinds), by_kind


def test_statistics_filter_and_group_by_game(tmp_path: Path) -> None:
    """`hilo stats --game G` keeps one game's hands and `--by game` splits a player's rows by
    game: the games' hands add up to the player's."""
    from pipeline.audit import run_audit
    from pipeline.generate import generate
    from pipeline.ingest import ingest
    from pipeline.stats import compute_stats

    generate(300, 5, tmp_path / "big-o", game="O8-5card", workers=1)
    generate(300, 6, tmp_path / "o8", workers=1)
    root = tmp_path / "dataset"
    ingest([tmp_path / "big-o" / "pokerstars", tmp_path / "o8" / "pokerstars"], root)
    run_audit(root, rake_schedule="generated")
    everything = compute_stats(root)
    by_game = compute_stats(root, by="game")
    assert set(by_game["game"].to_list()) == {"O8", "O8-5card"}
    assert by_game["hands"].sum() == everything["hands"].sum()
    big_o = compute_stats(root, game="O8-5card")
    assert big_o["hands"].sum() == by_game.filter(pl.col("game") == "O8-5card")["hands"].sum()
    assert 0 < big_o["hands"].sum() < everything["hands"].sum()
