"""Imported by ingest's fork server, and only there (`pipeline.executor`'s preload list): when
the server exits, it skips the interpreter's teardown.

The fork server exits once the driver and its workers are gone. Tearing down an interpreter
that holds polars, pyarrow, numba and the parsers takes ~0.3 s of a core, and all that time the
server still holds the driver's standard output and error: whoever reads them through a pipe (a
shell pipeline, `bench ingest`) waits for it. The server has nothing to flush or close (its
socket file belongs to the driver's temporary folder), so it leaves at once.

Workers forked from the server leave by ``os._exit`` already (`multiprocessing` ends a child
so), so the handler never runs in them. Anywhere else this import would end the process with
status 0 whatever happened before, unflushed output lost.
"""

from __future__ import annotations

import atexit
import os

atexit.register(os._exit, 0)
