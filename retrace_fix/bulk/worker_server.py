"""The server process ``--scheduler local``'s Dask workers are forked from (the ``forkserver`` start method).

Its own module, importing nothing of the engine, so that a run can start it before it
imports anything heavy: the command line starts it as soon as it reads ``--scheduler
local`` (:func:`worker_server`, for the whole command), and the server imports Dask and
the engine (:data:`WORKER_PRELOAD`, about a second of CPU, the engine's caches built) while the coordinator imports
its own (the codemods, LibCST, Dask).  :func:`retrace_fix.bulk.cluster.dask_client`
enters the same block; the outermost one stops the server.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
from contextlib import contextmanager
from typing import Iterator

#: what the server process that ``--scheduler local``'s workers are forked from imports once
#: (the second: the engine, warmed up and frozen, :mod:`retrace_fix.bulk.worker_preload`)
WORKER_PRELOAD = ("distributed", "retrace_fix.bulk.worker_preload")


@contextmanager
def worker_server() -> Iterator[bool]:
    """The server process ``--scheduler local``'s workers are forked from (:data:`WORKER_PRELOAD`
    imported there once), started without waiting for it, for the block; yields False where the
    platform has no ``forkserver`` (the workers then start as Dask starts them).

    Entered as soon as a run knows it will start a LocalCluster, so that the server's imports
    (about a second of CPU) overlap the coordinator's own work (importing Dask, starting the
    scheduler).  At the end a server this block started is stopped and waited for (its CPU and
    its workers' is then this process's children's, and no process outlives the run); one that
    ran before is left alone.  Nesting is allowed: the outermost block that started it stops it.
    The same holds for multiprocessing's resource tracker, which the server starts where none runs.
    """
    if "forkserver" not in multiprocessing.get_all_start_methods():
        yield False
        return
    from multiprocessing import forkserver, resource_tracker

    server = getattr(forkserver, "_forkserver", None)
    ran_before = getattr(server, "_forkserver_pid", None) is not None
    tracker = getattr(resource_tracker, "_resource_tracker", None)  # the server starts it too
    tracker_ran_before = getattr(tracker, "_pid", None) is not None
    try:
        context = multiprocessing.get_context("forkserver")
        if not ran_before:
            context.set_forkserver_preload(list(WORKER_PRELOAD))  # imported there; one that fails fails no run
        forkserver.ensure_running()
    except (OSError, ValueError, RuntimeError):  # pragma: no cover - no server: Dask's own start method
        yield False
        return
    try:
        yield True
    finally:
        stop = getattr(server, "_stop", None)
        if not ran_before and stop is not None:
            _end_server(getattr(server, "_forkserver_pid", None))
            stop()  # reaps it, and the module forgets it (a later run starts another)
        stop_tracker = getattr(tracker, "_stop", None)
        if not tracker_ran_before and stop_tracker is not None:
            stop_tracker()  # and waits for it: no process of the run outlives it (one starts again on demand)


def _end_server(pid: int | None) -> None:
    """End the workers' server at once (its workers have ended with the cluster): it holds no
    state, and ending politely would cost its interpreter's shutdown (0.3 s of wall time)."""
    if pid is None:
        return
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:  # pragma: no cover - gone already
        pass


__all__ = ["WORKER_PRELOAD", "worker_server"]
