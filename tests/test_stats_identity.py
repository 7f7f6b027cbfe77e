"""Player identity: a player is (site, screen name); aliases merge accounts."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pipeline.identity import ANONYMOUS_SITES, alias_lists, load_aliases, parse_aliases
from pipeline.stats import model_files
from tests.shared_data import CORPUS, needs_shared


def test_aliases_file(tmp_path: Path) -> None:
    path = tmp_path / "aliases.toml"
    path.write_text('me = ["pokerstars:Hero", "FullTilt:Hero: two"]\n"x y" = ["bovada:[ME]"]\n')
    aliases = load_aliases(path)
    assert aliases == {
        "pokerstars:Hero": "me",
        "fulltilt:Hero: two": "me",
        "bovada:[ME]": "x y",
    }
    assert alias_lists(aliases) == (
        ["bovada:[ME]", "fulltilt:Hero: two", "pokerstars:Hero"],
        ["x y", "me", "me"],
    )
    assert alias_lists({}) == (None, None)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"me": "pokerstars:Hero"}, "must be a list"),
        ({"me": ["Hero"]}, "is not"),
        ({"me": [":Hero"]}, "is not"),
        ({"a": ["pokerstars:H"], "b": ["pokerstars:H"]}, "belongs to both"),
        ({" ": ["pokerstars:H"]}, "needs a name"),
    ],
)
def test_bad_aliases(data: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_aliases(data)


def test_bad_toml(tmp_path: Path) -> None:
    path = tmp_path / "aliases.toml"
    path.write_text("me = [\n")
    with pytest.raises(ValueError, match="not valid TOML"):
        load_aliases(path)


def test_anonymous_sites_agree_with_the_models() -> None:
    text = dict(model_files())["stg_hands"]
    listed = re.search(r"site in \(([^)]*)\) as is_anonymous", text)
    assert listed is not None
    assert tuple(item.strip().strip("'") for item in listed.group(1).split(",")) == ANONYMOUS_SITES



@pytest.fixture(scope="module")
def two_sites(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Generated PokerStars and Full Tilt hands: the generator reuses names on both sites."""
    from pipeline.audit import run_audit
    from pipeline.generate import generate
    from pipeline.ingest import ingest

    work = tmp_path_factory.mktemp("identity")
    generate(400, 3, work / "gen", workers=1)
    generate(400, 4, work / "gen", site="fulltilt", workers=1)
    root = work / "dataset"
    ingest([work / "gen" / "pokerstars", work / "gen" / "fulltilt"], root)
    run_audit(root, rake_schedule="generated")
    return root


def test_a_name_on_two_sites_is_two_players_until_aliased(two_sites: Path, tmp_path: Path) -> None:
    import polars as pl
    from typer.testing import CliRunner

    from pipeline.cli import app
    from pipeline.stats import compute_stats

    everyone = compute_stats(two_sites, counts=True)
    assert not everyone["site"].str.contains(",").any()
    shared = (
        everyone.group_by("player", "currency").agg(pl.col("site").n_unique().alias("sites"))
        .filter(pl.col("sites") == 2)
        .sort("player", "currency")
    )
    assert shared.height > 0
    name, currency = shared.row(0)[:2]
    rows = compute_stats(two_sites, players=name, counts=True).filter(
        pl.col("currency") == currency
    )
    assert sorted(rows["site"]) == ["fulltilt", "pokerstars"]
    one = compute_stats(two_sites, players=f"fulltilt:{name}", counts=True)
    assert set(one["site"]) == {"fulltilt"}

    aliases = tmp_path / "aliases.toml"
    aliases.write_text(f'"The Person" = ["pokerstars:{name}", "fulltilt:{name}"]\n')
    merged = compute_stats(two_sites, players="The Person", counts=True, aliases=aliases)
    merged = merged.filter(pl.col("currency") == currency)
    assert merged.height == 1
    assert merged["site"][0] == "fulltilt,pokerstars"
    for column in ("hands", "vpip_hands", "net_won_minor", "showdowns"):
        assert merged[column][0] == rows[column].sum()
    # The accounts no longer answer to their bare name, which other players may still use.
    assert compute_stats(two_sites, players=name, aliases=aliases).filter(
        pl.col("currency") == currency
    ).height == 0

    result = CliRunner().invoke(
        app, ["stats", str(two_sites), "--aliases", str(aliases), "-p", "The Person"]
    )
    assert result.exit_code == 0, result.output
    assert "The Person" in result.output and "fulltilt,pokerstars" in result.output
    bad = tmp_path / "bad.toml"
    bad.write_text('x = ["nosite"]\n')
    result = CliRunner().invoke(app, ["stats", str(two_sites), "--aliases", str(bad)])
    assert result.exit_code != 0 and "site:name" in result.output


@needs_shared(CORPUS / "other")
def test_anonymous_tables_give_only_the_hero(tmp_path: Path) -> None:
    import polars as pl

    from pipeline.ingest import ingest
    from pipeline.stats import compute_stats, open_database

    root = tmp_path / "dataset"
    ingest(sorted((CORPUS / "other").glob("Bovada-*.txt")), root)
    frame = compute_stats(root, counts=True)
    assert frame["player"].to_list() == ["[ME]"] * frame.height
    connection = open_database(root, persistent=False)
    try:
        hands = connection.execute("select count(*) from hands").fetchone()
    finally:
        connection.close()
    assert hands is not None and frame["hands"].sum() == hands[0]  # a hero in every hand
    by_site = compute_stats(root, by="site")
    assert set(by_site["player"]) == {"[ME]"}
    assert pl.Series(by_site["hands"]).sum() == hands[0]
