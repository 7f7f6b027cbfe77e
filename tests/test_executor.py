"""The fork server's environment: thread pools sized for one worker among many."""

from __future__ import annotations

import multiprocessing.forkserver
import os

import pytest

from pipeline import executor


def test_the_fork_server_sizes_unset_thread_pools_and_keeps_the_users(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("POLARS_MAX_THREADS", raising=False)
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "7")
    seen: dict[str, str | None] = {}

    def ensure_running() -> None:
        seen.update({name: os.environ.get(name) for name in executor._THREAD_POOL_SIZES})

    monkeypatch.setattr(multiprocessing.forkserver, "ensure_running", ensure_running)
    executor._start_fork_server(threads_per_worker=1)
    assert seen == {"POLARS_MAX_THREADS": "1", "OPENBLAS_NUM_THREADS": "7"}
    assert "POLARS_MAX_THREADS" not in os.environ  # set for the server only
    assert os.environ["OPENBLAS_NUM_THREADS"] == "7"
