"""Peak memory of a benchmark child process and everything it starts."""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

__all__ = ["run_measured", "tree_memory"]

SAMPLE_SECONDS = 0.05


def tree_memory(pid: int) -> int:
    """Memory of process ``pid`` and all its descendants, in bytes.

    The proportional set size (PSS) where Linux gives it: worker processes forked from one
    server share its pages, which summing their RSS would count once per process.
    """
    import psutil

    try:
        root = psutil.Process(pid)
        processes = [root, *root.children(recursive=True)]
    except psutil.NoSuchProcess:
        return 0
    total = 0
    for process in processes:
        try:
            try:
                total += process.memory_full_info().pss
            except (AttributeError, psutil.AccessDenied):
                total += process.memory_info().rss
        except psutil.NoSuchProcess:
            pass
    return total


def run_measured(
    arguments: list[str], cwd: Path, env: dict[str, str] | None = None
) -> tuple[dict[str, Any], int]:
    """Run a child whose last output line is JSON; return that object and the tree's peak memory."""
    child = subprocess.Popen(
        arguments, cwd=cwd, stdout=subprocess.PIPE, text=True, env=env or dict(os.environ)
    )
    peak = 0
    done = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, tree_memory(child.pid))
            time.sleep(SAMPLE_SECONDS)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    output, _ = child.communicate()
    done.set()
    sampler.join()
    if child.returncode != 0:
        raise RuntimeError(f"{' '.join(arguments[-4:])} failed ({child.returncode})")
    result: dict[str, Any] = json.loads(output.strip().splitlines()[-1])
    return result, peak
