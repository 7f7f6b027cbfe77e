"""Compile every numba kernel into numba's on-disk cache: ``python -m pipeline.warm``.

A kernel is compiled the first time a process calls it, then cached beside its source
(``__pycache__``). With a cold cache the first ``hilo run`` of the sample took 49 s instead of
4.4 s (PokerStars' compiled reader and the line cutter alone take ~17 s), spent silently in
the first command a user types. Set-up (``make setup``) runs this module once, as a C
extension would be built at install time.

It runs the pipeline itself, in this process, on small generated archives of every generator
site (all limits, cash and tournaments, all-ins), so exactly the kernels and signatures a real
run uses are compiled; worker processes then load them from the cache.

It also writes the bytecode of hilo's own packages. An editable install leaves them as source,
and where ``PYTHONDONTWRITEBYTECODE`` is set (as on the machine hilo is developed on) every
process compiled its ~37,000 lines again: 0.15–0.5 s of each command's start, in the driver and in
the workers' fork server alike. Python still recompiles a module whose source has changed since.
"""

from __future__ import annotations

import compileall
import contextlib
import io
import sys
import tempfile
import time
from pathlib import Path

__all__ = ["PACKAGES", "compile_bytecode", "main", "warm"]

HANDS_PER_SITE = 300
SEED = 7
REPOSITORY = Path(__file__).resolve().parent.parent
PACKAGES = ("pipeline", "parsers")  # what a `hilo` command imports


def compile_bytecode(directories: list[Path]) -> bool:
    """Write the bytecode of every module under ``directories``; False if one failed (the
    others are still written)."""
    return all([compileall.compile_dir(directory, quiet=1) for directory in directories])


def warm() -> float:
    """Run generate, ingest, audit and statistics once on small archives; return the seconds."""
    from pipeline.cli import app
    from pipeline.generate import generate
    from pipeline.generate.sites import SITES

    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="hilo-warm-") as scratch:
        inputs = []
        for site in SITES:
            generated = Path(scratch) / site
            generate(HANDS_PER_SITE, SEED, generated, site=site, workers=1)
            inputs.append(str(generated / site))
        command = ["run", *inputs, "--out", str(Path(scratch) / "out"), "--workers", "1"]
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            app(command + ["--rake-schedule", "generated"], standalone_mode=False)
    return time.perf_counter() - started


def main() -> None:
    """Write hilo's bytecode, warm the kernel cache and say how long it took."""
    if not compile_bytecode([REPOSITORY / package for package in PACKAGES]):
        print("hilo: some modules could not be compiled to bytecode", file=sys.stderr)
    seconds = warm()
    print(f"hilo: compiled kernels cached in {seconds:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
