"""The executor factory: local worker processes by default, a Dask cluster when given an address.

The pipeline only ever sees a :class:`concurrent.futures.Executor`; the engine is chosen here, so
parsers and pipeline stages never import Dask. See ``reference/engine-and-style.md``.
"""

from __future__ import annotations

import multiprocessing
import os
import select
import threading
import time
from collections.abc import Callable
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from typing import Any, TypeVar

__all__ = ["DEFAULT_RETRIES", "default_workers", "make_executor", "start_local_workers"]

DEFAULT_RETRIES = 2
# Imported once in the fork server, so each worker starts without re-importing polars and pyarrow
# or loading the compiled kernels again (the task's module brings the package and the parsers);
# the last makes the server's own exit immediate.
_PRELOAD = ["pipeline.ingest.task", "parsers.warm", "pipeline.fork_server"]
_PARENT_POLL_SECONDS = 0.5
_THREAD_POOL_SIZES = ("POLARS_MAX_THREADS", "OPENBLAS_NUM_THREADS")

T = TypeVar("T")


def default_workers() -> int:
    """Return the number of cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def make_executor(scheduler: str | None = None, workers: int | None = None) -> Executor:
    """Return the executor that runs per-file and per-partition tasks.

    Parameters
    ----------
    scheduler:
        Address of a Dask scheduler (``tcp://host:8786``); ``None`` runs local worker processes.
    workers:
        Local worker processes; ``None`` means one per core. Ignored with a scheduler (the
        cluster decides).

    Returns
    -------
    concurrent.futures.Executor
        Shut it down when done (``with make_executor() as executor:``); for Dask this also
        closes the client.
    """
    if scheduler:
        return _dask_executor(scheduler, DEFAULT_RETRIES)
    count = workers if workers and workers > 0 else default_workers()
    return ProcessPoolExecutor(
        max_workers=count,
        mp_context=start_local_workers(count),
        initializer=_exit_with_parent,
        initargs=(os.getpid(),),
    )


def start_local_workers(workers: int | None = None) -> multiprocessing.context.BaseContext:
    """Start the fork server local workers are forked from, and return its context.

    Its preload (polars, pyarrow, the parsers, the compiled kernels: about 1.2 s) runs in the
    background, so a caller that starts it before its own imports and planning finds it ready
    when it submits the first task; `make_executor` starts it only if it is not running.
    """
    count = workers if workers and workers > 0 else default_workers()
    # Not "fork": the driver may already run polars/arrow thread pools, which do not survive a
    # fork. The fork server is a fresh interpreter, so its children start clean and fast.
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(_PRELOAD)
    _start_fork_server(threads_per_worker=max(1, default_workers() // count))
    return context


def _start_fork_server(threads_per_worker: int) -> None:
    """Start the fork server with the thread pools of polars and OpenBLAS sized for one worker
    among many.

    Both size their pools when imported (in the fork server, by the preload), to all cores by
    default: N workers would then run N x cores threads. OpenBLAS's idle threads also spin: 1.8 %
    of an ingest's samples, on the core the other worker needs. A value the user set is kept.
    """
    import multiprocessing.forkserver

    unset = [name for name in _THREAD_POOL_SIZES if name not in os.environ]
    for name in unset:
        os.environ[name] = str(threads_per_worker)
    try:
        multiprocessing.forkserver.ensure_running()
    finally:
        for name in unset:
            del os.environ[name]


def _exit_with_parent(driver_pid: int) -> None:
    """Make a worker exit as soon as its driver dies (a killed run must not leave workers).

    A worker whose driver was killed would otherwise wait on its task queue forever: the fork
    server and the workers keep each other's pipes open. A daemon thread waits on a pidfd of
    the driver, which becomes readable when the driver exits (even before it is reaped).
    """

    def watch() -> None:
        try:
            descriptor = os.pidfd_open(driver_pid)
        except (AttributeError, OSError):  # not Linux >= 5.3: poll instead
            while _is_alive(driver_pid):
                time.sleep(_PARENT_POLL_SECONDS)
        else:
            select.select([descriptor], [], [])
        os._exit(70)

    threading.Thread(target=watch, name="hilo-driver-watch", daemon=True).start()


def _is_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _dask_executor(address: str, retries: int) -> Executor:
    """Return a Dask client's executor that closes its client on shutdown."""
    try:
        from distributed import Client
    except ImportError as error:  # pragma: no cover - depends on the optional extra
        raise RuntimeError("a scheduler address needs Dask: pip install 'hilo[dask]'") from error
    client = Client(address)  # type: ignore[no-untyped-call]
    return _ClosingExecutor(
        client.get_executor(retries=retries),  # type: ignore[no-untyped-call]
        client.close,
    )


class _ClosingExecutor(Executor):
    """Delegate to ``inner`` and run ``close`` after shutting it down.

    Dask's ``ClientExecutor.shutdown`` leaves its client open; this closes it.
    """

    def __init__(self, inner: Executor, close: Callable[[], Any]) -> None:
        self._inner = inner
        self._close = close

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        return self._inner.submit(fn, *args, **kwargs)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        try:
            if cancel_futures:  # Dask's ClientExecutor.shutdown has no cancel_futures
                self._inner.shutdown(wait=False)
            else:
                self._inner.shutdown(wait=wait)
        finally:
            self._close()
