"""Run every benchmark module ``bench/bench_*.py`` (or those whose name contains an argument).

Usage: ``python -m bench [NAME ...]``. Benchmarks in ``ON_REQUEST`` (hours of machine time) run
only when named.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
from pathlib import Path

ON_REQUEST = frozenset({"bench_fuzz", "bench_scale"})


def bench_modules(filters: list[str]) -> list[str]:
    """Return the names of the benchmark modules to run, in name order."""
    folder = Path(__file__).parent
    names = sorted(
        info.name for info in pkgutil.iter_modules([str(folder)]) if info.name.startswith("bench_")
    )
    if not filters:
        return [name for name in names if name not in ON_REQUEST]
    # A filter naming a module exactly selects only it (``ev`` is bench_ev, not also
    # bench_evaluator); any other filter selects every module whose name contains it.
    chosen = set()
    for part in filters:
        if f"bench_{part}" in names:
            chosen.add(f"bench_{part}")
        else:
            chosen.update(name for name in names if part in name)
    return [name for name in names if name in chosen]


def main(arguments: list[str]) -> int:
    """Run the selected benchmarks; return the exit status."""
    names = bench_modules(arguments)
    if not names:
        print(f"no benchmark matches {' '.join(arguments)}", file=sys.stderr)
        return 2
    for name in names:
        print(f"== {name}", flush=True)
        module = importlib.import_module(f"bench.{name}")
        module.main()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
