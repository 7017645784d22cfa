"""The worker pool: files dealt to worker processes in size-ordered chunks (:func:`chunk_jobs`),
Ctrl-C stopping them at once, and a worker's death costing only the file that killed it."""

from __future__ import annotations

import gc
import multiprocessing
import sys
import time
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import contextmanager, nullcontext
from concurrent.futures.process import BrokenProcessPool
from typing import Callable, Iterator

from retrace_fix.engine.isolation import isolated
from retrace_fix.engine.options import FileJob, RunOptions
from retrace_fix.engine.process import process_file, without_text
from retrace_fix.engine.warm_up import warm_up
from retrace_fix.findings import FileResult


_WORKER_OPTIONS: RunOptions | None = None


def _init_worker(options: RunOptions) -> None:
    global _WORKER_OPTIONS
    _WORKER_OPTIONS = options
    gc.freeze()  # the imported modules never become garbage: keep them out of collections


def fork_context() -> multiprocessing.context.BaseContext | None:
    """The start method of worker processes that share this process's imports and heap: ``fork``,
    where it is safe to use (Linux); None elsewhere (no forked workers)."""
    return multiprocessing.get_context("fork") if sys.platform.startswith("linux") else None


@contextmanager
def frozen_heap() -> Iterator[None]:
    """While forked workers run: the objects made so far outlive the run, so the parent's
    collections skip them, and a worker's never touches them (their pages stay shared after the
    fork).  Nothing is done where the heap is frozen already."""
    frozen = gc.get_freeze_count() == 0
    if frozen:
        gc.freeze()
    try:
        yield
    finally:
        if frozen:
            gc.unfreeze()


def abandon(pool: ProcessPoolExecutor) -> None:
    """Ctrl-C: drop ``pool``'s queued tasks and end its workers now (:func:`stop_workers`).

    A worker ended while it wrote a result leaves half a message in the results pipe; the pool's
    manager thread would wait for the rest forever, and the interpreter waits for that thread as it
    exits.  This process's own end of the pipe's writing side is closed once every worker is gone:
    the manager thread then reads the end of the pipe and stops."""
    pool.shutdown(wait=False, cancel_futures=True)
    stop_workers()
    writer = getattr(getattr(pool, "_result_queue", None), "_writer", None)
    if writer is not None:  # CPython's ProcessPoolExecutor (a SimpleQueue's two connections)
        writer.close()


def stop_workers(grace: float = 5.0, deadline: float = 30.0) -> None:
    """Terminate every worker process of this run, and any the pool's manager thread starts while
    it winds down (workers are started on demand): until none is left.  One that ignores SIGTERM
    for ``grace`` seconds (a loaded machine) is killed; no worker outlives the run."""
    end = time.monotonic() + deadline
    while True:
        children = multiprocessing.active_children()
        if not children or time.monotonic() > end:
            return
        for child in children:
            child.terminate()
        for child in children:
            child.join(timeout=grace)
            if child.is_alive():
                child.kill()
                child.join()


def _work_chunk(jobs: list[FileJob]) -> list[FileResult]:
    assert _WORKER_OPTIONS is not None
    return [without_text(process_file(job, _WORKER_OPTIONS)) for job in jobs]


CHUNK_FILES = 16  # at most this many files per task sent to a worker
CHUNKS_PER_WORKER = 32  # aim: each worker gets at least this many tasks' worth of bytes


def chunk_jobs(work: list[FileJob], workers: int) -> list[list[FileJob]]:
    """Split ``work`` into worker tasks, largest files first (longest job first).

    One large file can take seconds while thousands of small ones take
    milliseconds each: started last, it would keep one worker busy after the
    others ran dry.  Files go out largest first, in tasks of about
    ``total bytes / (workers * CHUNKS_PER_WORKER)`` (so the largest go one by
    one) and never more than ``CHUNK_FILES`` files.  Output order does not depend
    on this: results are sorted by path.
    """
    sized = [(_size(job), job) for job in work]
    sized.sort(key=lambda item: -item[0])  # stable: equal sizes keep their order
    target = max(1, sum(size for size, _ in sized) // (workers * CHUNKS_PER_WORKER))
    chunks: list[list[FileJob]] = []
    chunk: list[FileJob] = []
    weight = 0
    for size, job in sized:
        chunk.append(job)
        weight += size
        if weight >= target or len(chunk) >= CHUNK_FILES:
            chunks.append(chunk)
            chunk, weight = [], 0
    if chunk:
        chunks.append(chunk)
    return chunks


def _size(job: FileJob) -> int:
    """The file's size in bytes (0 when it cannot be read)."""
    try:
        return job.path.stat().st_size
    except OSError:
        return 0


def _work_isolated(job: FileJob, options: RunOptions) -> FileResult:
    """After a worker died: one file at a time in its own child process."""
    status, value = isolated(process_file, (job, options), _size(job))
    if status == "ok":
        return without_text(value)
    return FileResult(path=job.display, error=f"{job.display}:1: {value}; file left unchanged")


def run_in_workers(work: list[FileJob], options: RunOptions, workers: int, emit: Callable[[FileResult], None]) -> None:
    """Process ``work`` in up to ``workers`` processes, calling ``emit`` with each file's result as it
    comes back (in chunk order, not path order)."""
    context = fork_context()
    chunks = chunk_jobs(work, workers)
    if context is not None:
        warm_up(work, options)  # what each worker would build on its first files, built once
    with frozen_heap() if context is not None else nullcontext():
        _run_chunks(work, chunks, options, workers, context, emit)


def _run_chunks(work: list[FileJob], chunks: list[list[FileJob]], options: RunOptions, workers: int,
                context: multiprocessing.context.BaseContext | None, emit: Callable[[FileResult], None]) -> None:
    collected: set[int] = set()  # indexes of the chunks whose results came back
    futures: list[Future[list[FileResult]]] = []
    try:
        with ProcessPoolExecutor(
            max_workers=min(workers, len(work)),
            mp_context=context,
            initializer=_init_worker,
            initargs=(options,),
        ) as pool:
            futures = [pool.submit(_work_chunk, chunk) for chunk in chunks]
            try:
                for index, future in enumerate(futures):
                    for res in future.result():
                        emit(res)
                    collected.add(index)
            except KeyboardInterrupt:
                # Ctrl-C: drop the queued tasks and stop the workers now rather
                # than after the chunks they hold (nothing has been written yet)
                abandon(pool)
                raise
    except BrokenProcessPool:
        # A worker died (killed, or a crash no guard foresaw).  Chunks that
        # finished are kept; the files of every other chunk are redone, each in
        # its own child: the culprit fails alone, the others are fixed.
        for index, chunk in enumerate(chunks):
            if index in collected:
                continue
            future = futures[index] if index < len(futures) else None
            done = future is not None and future.done() and not future.cancelled() and future.exception() is None
            for res in future.result() if done else (_work_isolated(job, options) for job in chunk):
                emit(res)
