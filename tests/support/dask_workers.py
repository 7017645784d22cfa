"""Dask worker processes that start cheaply, for the tests that need real ones.

``--scheduler local`` (``retrace_fix/bulk/cluster.py``) starts a ``LocalCluster`` of worker
processes, forked from one server process that imported ``distributed`` and the engine once
(``forkserver``, :func:`retrace_fix.bulk.cluster.worker_server`); Dask's default (``spawn``)
starts each as a fresh interpreter that imports both: about a second of CPU per worker.
:func:`forked_workers` does the same for any cluster a test starts inside it.  They are still processes of their own: a task crosses a process boundary
(pickled, sent over TCP) and a worker that dies takes only itself down.
"""

from __future__ import annotations

import multiprocessing
from contextlib import contextmanager
from typing import Iterator

from retrace_fix.bulk.worker_server import WORKER_PRELOAD

#: what the server imports once, before it forks the workers: what ``--scheduler local``'s imports
PRELOAD = list(WORKER_PRELOAD)


@contextmanager
def forked_workers() -> Iterator[None]:
    """Worker processes started inside the block are forked from a server process; the server is
    stopped (and waited for: its CPU and its workers' is counted as this process's children's) at
    the end.  Where ``forkserver`` or Dask's switch for it is missing, Dask's own start method."""
    import dask
    import distributed.utils

    if "forkserver" not in multiprocessing.get_all_start_methods() or not hasattr(
        distributed.utils, "_forkserver_preload_set"
    ):  # pragma: no cover - another platform or Dask
        yield
        return
    from multiprocessing import forkserver

    # Dask's own preload list would import numpy and pandas into this process to offer them
    context = multiprocessing.get_context("forkserver")
    preload = list(getattr(forkserver._forkserver, "_preload_modules", ["__main__"]))
    context.set_forkserver_preload(PRELOAD)
    was_set, distributed.utils._forkserver_preload_set = distributed.utils._forkserver_preload_set, True
    try:
        with dask.config.set({"distributed.worker.multiprocessing-method": "forkserver"}):
            yield
    finally:
        distributed.utils._forkserver_preload_set = was_set
        stop = getattr(forkserver._forkserver, "_stop", None)
        if stop is not None:
            stop()
        context.set_forkserver_preload(preload)
