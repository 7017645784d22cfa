"""Running root tasks on a Dask cluster (``--scheduler ADDRESS|local``; optional extra ``retrace-fix[dask]``).

* ``--scheduler local`` starts a ``LocalCluster`` of ``--jobs`` worker
  processes (default: one per CPU), one thread each, for the run; any other
  value is the address of a running scheduler (``tcp://host:8786``), whose
  workers must have the same retrace-fix installed.
* Each root is one task.  A task that fails -- its worker died or lost its
  connection, or the root could not be cloned -- is submitted once more; when
  the second try fails too, the root is reported as an error and every other
  root still counts.  (The ``LocalCluster`` is told not to retry a task whose
  worker died on its own, so that "once more" means once.)
* ``--scheduler local``'s workers are forked from one server process that imported
  ``distributed`` and the engine once (the ``forkserver`` start method, where the platform
  has it), not started as fresh interpreters that each import both (Dask's default,
  ``spawn``: about a second of CPU per worker, most of the cluster's start).  The server is
  started first thing (:func:`retrace_fix.bulk.worker_server.worker_server`: the command
  line starts it as soon as it reads ``--scheduler local``; run as its own command, it imports
  Dask and the engine and forks the server from itself), and the ``file://`` roots are cloned
  ahead meanwhile (:mod:`retrace_fix.bulk.clone_ahead`).  The workers are still processes of
  their own, forked from a process that runs no thread: a worker that dies takes only itself down.
* Only this module and :mod:`~retrace_fix.bulk.worker_server` import ``distributed``, and
  only when a run asks for it.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import os
import uuid
from contextlib import ExitStack, contextmanager
from typing import Any, Callable, Iterator, Sequence

from retrace_fix.bulk.root_task import RootOutcome, RootTask, TaskSettings, failed_outcome, process_root
from retrace_fix.bulk.scratch import sweep_orphans
from retrace_fix.bulk.worker_server import worker_server

EXTRA_HINT = "pip install distributed, or retrace-fix's [dask] extra"
CONNECT_TIMEOUT = "20s"
#: Dask's settings for the LocalCluster of one run, its own (its dashboard is never looked at):
#: a worker holds only the task it runs, so a worker that dies takes no queued root with it (and a
#: root has no other worker to be stolen by); no statistical profiler sampling the workers' stacks;
#: each worker's memory looked at once a second rather than ten times; the event loops' check for
#: being blocked (a warning in the logs) once a second rather than every 20 ms, and the system
#: monitor's samples of CPU and memory every 5 s rather than 0.5 s, in each of the cluster's five
#: servers (scheduler, nannies, workers).  The last three: 4% of a bulk run's wall time
#: (farm-bench, 10 pairs, 34 roots: A/B wall 0.96, CPU 0.95).
QUIET_CLUSTER = {
    "distributed.scheduler.worker-saturation": 1.0,
    "distributed.scheduler.work-stealing": False,
    "distributed.worker.profile.enabled": False,
    "distributed.worker.memory.monitor-interval": "1s",
    "distributed.admin.tick.interval": "1s",
    "distributed.admin.system-monitor.interval": "5s",
}
_RUNS = itertools.count()


class SchedulerError(Exception):
    """The cluster cannot be used (Dask missing, scheduler unreachable); one line, exit 2."""


@contextmanager
def dask_client(address: str, workers: int | None = None) -> Iterator[Any]:
    """A ``distributed.Client`` for ``address`` (``local``: a LocalCluster for this run); raises SchedulerError."""
    stack = ExitStack()  # the workers' server, where they are forked from one (closed last)
    # started first: it imports the engine and Dask while this process imports Dask
    forked = stack.enter_context(worker_server()) if address == "local" else False
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        stack.close()
        raise SchedulerError(f"--scheduler needs Dask's distributed package ({EXTRA_HINT})") from None
    cluster = None
    try:
        if address == "local":
            import dask

            method = "forkserver" if forked else dask.config.get("distributed.worker.multiprocessing-method")
            with dask.config.set({**QUIET_CLUSTER, "distributed.worker.multiprocessing-method": method}), \
                    _own_preload():
                cluster = LocalCluster(
                    n_workers=workers or os.cpu_count() or 1,
                    threads_per_worker=1,
                    processes=True,
                    dashboard_address=":0",  # no fixed port (8787 may be taken)
                    silence_logs=logging.CRITICAL,  # a task that fails is reported by the coordinator
                    scheduler_kwargs={"allowed_failures": 0},
                )
            client = Client(cluster)
            client.run(warm_worker)  # this run's own workers: the engine imported and warmed, its heap frozen
        else:
            client = Client(address, timeout=CONNECT_TIMEOUT)
    except (OSError, TimeoutError, ValueError, RuntimeError) as exc:
        if cluster is not None:
            cluster.close()
        stack.close()
        message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        what = "cannot start a LocalCluster" if address == "local" else "cannot connect"
        raise SchedulerError(f"--scheduler {address}: {what}: {message}") from None
    except BaseException:  # Ctrl-C while the cluster starts or the client connects
        if cluster is not None:
            cluster.close()
        stack.close()
        raise
    with stack:
        try:
            yield client
        finally:
            client.close()
            if cluster is not None:
                cluster.close()
                sweep_orphans()  # clones of workers that died mid-root (their memory is not the disk's)


@contextmanager
def _own_preload() -> Iterator[None]:
    """While the cluster starts: Dask's own preparation of a forkserver left out (it would import
    every optional package it knows, numpy and pandas among them, into this process, and name
    them as the server's preload).  Dask without that switch (another version) does it: slower,
    the same workers."""
    import distributed.utils

    was = getattr(distributed.utils, "_forkserver_preload_set", None)
    if was is None:  # pragma: no cover - another Dask
        yield
        return
    distributed.utils._forkserver_preload_set = True
    try:
        yield
    finally:
        distributed.utils._forkserver_preload_set = was


def warm_worker() -> None:
    """On a worker of ``--scheduler local`` (started for this run only): the engine imported, its
    caches built and everything so far kept out of the garbage collector's passes
    (:mod:`retrace_fix.bulk.worker_preload`; nothing left to do in a worker forked from the
    server that imported it); never on a cluster shared with others."""
    import retrace_fix.bulk.worker_preload  # noqa: F401


def run_on_dask(
    client: Any,
    tasks: Sequence[RootTask],
    settings: TaskSettings,
    on_done: Callable[[RootOutcome], None] | None = None,
    task_function: Callable[[RootTask, TaskSettings], RootOutcome] = process_root,
) -> list[RootOutcome]:
    """Run every task on the cluster (each failed task once more); outcomes in task order."""
    from distributed import as_completed

    # keys share the task group "retrace-fix-root" (the scheduler queues a large group evenly);
    # the part after it starts with a digit, which ends Dask's group name
    run = f"retrace-fix-root-{next(_RUNS)}{uuid.uuid4().hex[:12]}"
    tries: dict[str, tuple[RootTask, int]] = {}
    outcomes: dict[int, RootOutcome] = {}

    def submit(task: RootTask, attempt: int) -> Any:
        # the settings go with each task: data scattered to a worker would die with it
        future = client.submit(task_function, task, settings, key=f"{run}-{task.index}-{attempt}", pure=False)
        tries[future.key] = (task, attempt)
        return future

    def finish(task: RootTask, outcome: RootOutcome) -> None:
        outcomes[task.index] = outcome
        if on_done is not None:
            on_done(outcome)

    pending = as_completed([submit(task, 1) for task in tasks])
    for future in pending:
        task, attempt = tries.pop(future.key)
        try:
            outcome = future.result()
        except (Exception, asyncio.CancelledError) as exc:
            future.release()
            if attempt == 1:
                try:
                    pending.add(submit(task, 2))
                    continue
                except Exception as again:  # the client itself is gone
                    exc = again
            finish(task, failed_outcome(task, describe_failure(exc, attempt)))
            continue
        future.release()
        finish(task, outcome)
    return [outcomes[task.index] for task in tasks]


def describe_failure(exc: BaseException, attempts: int) -> str:
    """One line for a root whose task failed ``attempts`` times."""
    name = type(exc).__name__
    if name == "KilledWorker":
        what = "the worker running it died"
    elif name in ("CommClosedError", "FutureCancelledError", "CancelledError"):
        what = f"the cluster lost the task ({name})"
    else:
        text = str(exc).strip().splitlines()
        what = text[0] if text and type(exc).__module__.startswith("retrace_fix") else f"{name}: {text[0] if text else ''}".rstrip(": ")
    return f"{what} ({'tried twice' if attempts > 1 else 'not retried'})"


__all__ = ["EXTRA_HINT", "SchedulerError", "dask_client", "describe_failure", "run_on_dask", "warm_worker",
           "worker_server"]
