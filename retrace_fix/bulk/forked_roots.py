"""Root tasks on this machine without a cluster (git URL roots, no ``--scheduler``): forked workers.

:func:`run_forked` runs each :class:`~retrace_fix.bulk.root_task.RootTask` in one of ``workers``
processes forked from this one where the engine's own pool forks its workers
(:func:`~retrace_fix.engine.pool.fork_context`; the engine is imported here already), so that the
roots' files are processed side by side, not one at a time under one interpreter lock as threads
would.  Over the 34 corpus roots given as ``file://`` URLs,
``--jobs 2``: 9.4 s with threads, 5.5 s forked (N local paths: about 5 s).

As everywhere else, a task that fails is tried once more (in the worker that ran it) and then
reported as an error of that root alone.  A worker that dies (killed, out of memory) takes the
pool down with it: the roots that were not finished are then run again one at a time, each in a
process of its own, so that the one that kills its process fails alone.  A worker removes its
clones as a process that clones always does (:mod:`retrace_fix.bulk.scratch`: on a thread of its
own while the next root goes on, waited for as the worker ends); the clones of a worker that died
or was ended (Ctrl-C) are removed by the run once its workers are gone.
"""

from __future__ import annotations

import functools
import multiprocessing
import os
import signal
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Callable, Sequence

from retrace_fix.bulk.git import raise_stopped
from retrace_fix.bulk.root_task import RootOutcome, RootTask, TaskSettings, failed_outcome
from retrace_fix.bulk.scratch import sweep_orphans, wait_for_scratch
from retrace_fix.engine.pool import abandon, fork_context, frozen_heap

TaskFunction = Callable[[RootTask, TaskSettings], RootOutcome]


def run_forked(
    tasks: Sequence[RootTask],
    settings: TaskSettings,
    workers: int,
    attempt: Callable[[RootTask, TaskSettings, TaskFunction], RootOutcome],
    task_function: TaskFunction,
    on_done: Callable[[RootOutcome], None] | None = None,
) -> dict[int, RootOutcome]:
    """Every task's outcome by its index; ``attempt(task, settings, task_function)`` runs one task
    (and retries it) in a worker."""
    outcomes: dict[int, RootOutcome] = {}
    call = functools.partial(attempt, settings=settings, task_function=task_function)

    def finish(outcome: RootOutcome) -> None:
        outcomes[outcome.index] = outcome
        if on_done is not None:
            on_done(outcome)

    context = fork_context()
    assert context is not None, "run_forked where fork_context() gives none"
    try:
        with frozen_heap():
            unfinished = _run_pool(tasks, call, workers, context, finish)
            for task in unfinished:  # a worker died: the rest one at a time, each in a process of its own
                lost = _run_pool([task], call, 1, context, finish)
                if lost:
                    finish(failed_outcome(task, "the process running it died (tried twice)"))
    finally:
        sweep_orphans()  # the clones of workers that died or were ended mid-root (all are reaped now)
    return outcomes


def _run_pool(tasks: Sequence[RootTask], call: Callable[[RootTask], RootOutcome], workers: int,
              context: multiprocessing.context.BaseContext, finish: Callable[[RootOutcome], None]) -> list[RootTask]:
    """Run ``tasks`` in a pool of ``workers`` forked processes; the tasks whose outcome was lost
    with a worker that died (none when every worker lived)."""
    with ProcessPoolExecutor(max_workers=max(1, min(workers, len(tasks))), mp_context=context,
                             initializer=_worker_signals) as pool:
        try:
            pending: dict[Future[RootOutcome], RootTask] = {
                pool.submit(_run_root, call, task): task for task in tasks
            }
            while pending:
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    task = pending.pop(future)
                    try:
                        finish(future.result())
                    except BrokenProcessPool:
                        return [task, *(t for f, t in pending.items() if not _finished(f, finish))]
        except KeyboardInterrupt:
            abandon(pool)  # the workers ended and reaped: the clones they leave are dead processes'
            raise
    return []


_IN_ROOT = False  # in a worker: whether it is running a root now


def _worker_signals() -> None:
    """A worker's signals: Ctrl-C is the coordinator's to act on (it ends the workers); the
    coordinator's SIGTERM stops the root being run as an exception would (git is ended and waited
    for, the clone removed), and a worker between roots leaves once its clones are removed: no git
    outlives its worker to write into a clone the run has already swept."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _on_terminate)


def _on_terminate(signum: int, frame: object) -> None:
    if _IN_ROOT:
        raise_stopped(signum, frame)
    wait_for_scratch()
    os._exit(128 + signum)


def _run_root(call: Callable[[RootTask], RootOutcome], task: RootTask) -> RootOutcome:
    global _IN_ROOT
    _IN_ROOT = True
    try:
        return call(task)
    finally:
        _IN_ROOT = False


def _finished(future: Future[RootOutcome], finish: Callable[[RootOutcome], None]) -> bool:
    """Whether a pending task of a broken pool had finished (its outcome is then kept)."""
    if future.done() and not future.cancelled() and future.exception() is None:
        finish(future.result())
        return True
    return False


__all__ = ["run_forked"]
