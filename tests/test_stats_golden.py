"""Statistics against goldens computed by older code (``tests/golden_stats/``).

The goldens were written by ``compute_stats(..., counts=True)`` of main at 1c54d3a (one pass of
the models over a DuckDB table, a player = a screen name over all sites) for a generated archive
(3,000 PokerStars hands seed 7, 1,500 Full Tilt hands seed 8, audited with the generated rake
schedule). The real corpus is not pinned this way: it grows, and parsers read more of it, so its
statistics change for good reasons (the parsers' corpus tests pin what is read). Since then a player is a (site, name) pair: grouped ``by="site"``
the old rows are exactly the new ones, and with every account aliased to its bare name the new
code merges sites as the old one did, for every other grouping.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from pipeline.stats import compute_stats

GOLDEN = Path(__file__).parent / "golden_stats"


def _same(new: pl.DataFrame, old: pl.DataFrame, keys: list[str]) -> None:
    assert set(old.columns) <= set(new.columns)  # a statistic added since is a new column
    new = new.select(old.columns).sort(keys, nulls_last=True)
    old = old.sort(keys, nulls_last=True)
    assert_frame_equal(new, old, check_exact=False, rel_tol=1e-12)


def _merge_by_name(dataset: Path) -> dict[str, str]:
    """Aliases merging every account into its bare screen name: the old identity."""
    import duckdb

    rows = duckdb.sql(
        "select distinct site, player from read_parquet(?)",
        params=[[str(path) for path in (dataset / "seats").rglob("part-*.parquet")]],
    ).fetchall()
    return {f"{site}:{player}": player for site, player in rows if player is not None}


def _check(dataset: Path, name: str) -> None:
    by_site = compute_stats(dataset, by="site", counts=True)
    old = pl.read_parquet(GOLDEN / f"{name}_site.parquet")
    _same(by_site, old, ["player", "currency", "site"])

    default = compute_stats(dataset, counts=True)
    assert default.height == by_site.height
    assert default["site"].str.contains(",").sum() == 0  # one site per row

    aliases = _merge_by_name(dataset)
    for by in ("position", "month", "stakes", None):
        path = GOLDEN / f"{name}_{by}.parquet"
        if not path.exists():
            continue
        old = pl.read_parquet(path)
        new = compute_stats(dataset, by=by, counts=True, aliases=aliases)
        keys = ["player", "currency"] + ([by] if by else [])
        _same(new, old, keys)


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from pipeline.audit import run_audit
    from pipeline.generate import generate
    from pipeline.ingest import ingest

    work = tmp_path_factory.mktemp("golden")
    generate(3000, 7, work / "gen", workers=1)
    generate(1500, 8, work / "gen", site="fulltilt", workers=1)
    root = work / "dataset"
    ingest([work / "gen"], root)
    run_audit(root, rake_schedule="generated")
    return root


def test_generated_archive_matches_the_old_code(generated: Path) -> None:
    _check(generated, "gen")
