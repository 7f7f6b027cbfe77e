"""`hilo ingest` of small files of every site `hilo generate` writes, against PokerStars.

`bench ingest` measures PokerStars archives only, which have a compiled reader; a player's
folder of another site goes through the shared text engine. Each site's generated hands (the
same count, seed and table sessions, one session a file) are ingested by ``hilo ingest`` in a
child process, once to warm up and then timed; the report gives hands/s and the ratio to
PokerStars' rate in the same run (the baseline), with the machine's load.

Run with ``python -m bench ingest_sites``; ``HILO_BENCH_SITE_HANDS`` (default 20,000) changes
the hands per site.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from bench.bench_ingest import run_ingest

__all__ = ["main"]

HANDS = int(os.environ.get("HILO_BENCH_SITE_HANDS", "20000"))
BASELINE = "pokerstars"


def main() -> None:
    """Generate each site's files, ingest them, print the rates against PokerStars'."""
    from pipeline.generate import generate
    from pipeline.generate.sites import SITES

    sites = [BASELINE, *sorted(site for site in SITES if site != BASELINE)]
    print(f"ingest of {HANDS:,} generated hands a site in small files; load {_load()}")
    print(f"{'site':12s} {'files':>6s} {'seconds':>8s} {'hands/s':>9s}  vs {BASELINE}")
    rates: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="hilo-bench-sites-") as scratch:
        for site in sites:
            root = Path(scratch) / site
            generate(HANDS, 18, root, site=site)
            folder = root / site
            files = sorted(path for path in folder.iterdir() if path.is_file())
            run_ingest("warm-up", files[:2], root / "warm-up", None)
            run = run_ingest(site, [folder], root / "out", None)
            rates[site] = HANDS / run.seconds
            print(
                f"{site:12s} {len(files):6d} {run.seconds:8.2f} {rates[site]:9,.0f}"
                f"  x{rates[site] / rates[BASELINE]:.2f}   {run.summary}"
            )
    print(f"done, load {_load()}")


def _load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())
