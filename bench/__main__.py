"""Run every benchmark module ``bench/bench_*.py`` (or those whose name contains an argument).

Usage: ``python -m bench [NAME ...] [--OPTION ...]``. Benchmarks in ``ON_REQUEST`` (hours of
machine time, or checks rather than measurements) run only when named. Arguments from the first
one starting with ``-`` on are the options of the named module, whose ``main`` then takes them
as a list (``python -m bench same --base main``); a module's ``main`` may return an exit status.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import sys
from pathlib import Path

ON_REQUEST = frozenset({"bench_fuzz", "bench_same", "bench_scale"})


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
    """Run the selected benchmarks; return the exit status (the highest a module returned)."""
    first_option = next(
        (index for index, part in enumerate(arguments) if part.startswith("-")), len(arguments)
    )
    filters, options = arguments[:first_option], arguments[first_option:]
    names = bench_modules(filters)
    if not names:
        print(f"no benchmark matches {' '.join(filters)}", file=sys.stderr)
        return 2
    status = 0
    for name in names:
        print(f"== {name}", flush=True)
        module = importlib.import_module(f"bench.{name}")
        if options and not inspect.signature(module.main).parameters:
            print(f"{name} takes no options ({' '.join(options)})", file=sys.stderr)
            return 2
        returned = module.main(options) if options else module.main()
        status = max(status, returned or 0)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
