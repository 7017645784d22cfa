"""Root tasks on this machine without a cluster (git URL roots, no ``--scheduler``): forked workers.

:func:`run_forked` runs each :class:`~retrace_fix.bulk.root_task.RootTask` in one of ``workers``
processes forked from this one (the engine is imported here already, as the engine's own pool
forks its workers), so that the roots' files are processed side by side, not one at a time under
one interpreter lock as threads would.  Over the 34 corpus roots given as ``file://`` URLs,
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
import gc
import multiprocessing
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Callable, Sequence

from retrace_fix.bulk.root_task import RootOutcome, RootTask, TaskSettings, failed_outcome
from retrace_fix.bulk.scratch import sweep_orphans

TaskFunction = Callable[[RootTask, TaskSettings], RootOutcome]


def can_fork() -> bool:
    """Forked workers are used where the engine's own pool uses them (Linux)."""
    import sys

    return sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods()


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

    context = multiprocessing.get_context("fork")
    frozen = gc.get_freeze_count() == 0
    if frozen:
        gc.freeze()  # this process's objects stay out of the workers' collections (pages shared)
    try:
        unfinished = _run_pool(tasks, call, workers, context, finish)
        for task in unfinished:  # a worker died: the rest one at a time, each in a process of its own
            lost = _run_pool([task], call, 1, context, finish)
            if lost:
                finish(failed_outcome(task, "the process running it died (tried twice)"))
    finally:
        if frozen:
            gc.unfreeze()
        sweep_orphans()  # the clones of workers that died or were ended mid-root (all are reaped now)
    return outcomes


def _run_pool(tasks: Sequence[RootTask], call: Callable[[RootTask], RootOutcome], workers: int,
              context: multiprocessing.context.BaseContext, finish: Callable[[RootOutcome], None]) -> list[RootTask]:
    """Run ``tasks`` in a pool of ``workers`` forked processes; the tasks whose outcome was lost
    with a worker that died (none when every worker lived)."""
    pending: dict[Future[RootOutcome], RootTask] = {}
    with ProcessPoolExecutor(max_workers=max(1, min(workers, len(tasks))), mp_context=context) as pool:
        try:
            pending = {pool.submit(call, task): task for task in tasks}
            while pending:
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    task = pending.pop(future)
                    try:
                        finish(future.result())
                    except BrokenProcessPool:
                        return [task, *(t for f, t in pending.items() if not _finished(f, finish))]
        except KeyboardInterrupt:
            pool.shutdown(wait=False, cancel_futures=True)
            _end_workers()
            raise
    return []


def _end_workers(grace: float = 5.0) -> None:
    """Ctrl-C: end every worker now (nothing has been written yet) and reap it, so that the clones
    it leaves are known to be a dead process's."""
    children = multiprocessing.active_children()
    for child in children:
        child.terminate()
    for child in children:
        child.join(timeout=grace)
        if child.is_alive():  # pragma: no cover - one that ignores SIGTERM
            child.kill()
            child.join()


def _finished(future: Future[RootOutcome], finish: Callable[[RootOutcome], None]) -> bool:
    """Whether a pending task of a broken pool had finished (its outcome is then kept)."""
    if future.done() and not future.cancelled() and future.exception() is None:
        finish(future.result())
        return True
    return False


__all__ = ["can_fork", "run_forked"]
