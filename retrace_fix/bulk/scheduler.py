"""Bulk runs as one task per root: on a Dask cluster (``--scheduler``), or here when roots are git URLs.

The coordinator (this module) plans the roots, hands each one to an executor
as a :class:`~retrace_fix.bulk.root_task.RootTask`, and turns the outcomes into the
same result and per-root report a local run builds, which the fix command
(:func:`retrace_fix.commands.fix.finish`) then prints and writes exactly as it does
for a local run: ``--patch-dir`` patches, ``--summary``, the table, JSON,
``--branch``.  Only the coordinator writes.

Executors: :func:`retrace_fix.bulk.cluster.run_on_dask` with ``--scheduler``;
without it (git URL roots on one machine) :func:`run_here`, ``--jobs``
processes forked from this one (threads where the platform does not fork).  Either way a
root whose task fails is tried once more, then reported as an error of that
root alone.  On a terminal a progress bar counts finished roots.
"""

from __future__ import annotations

import os
import sys
from concurrent.futures import ThreadPoolExecutor, as_completed
from contextlib import contextmanager
from dataclasses import replace
from typing import Callable, Iterator, Sequence

from retrace_fix.output import render as output
from retrace_fix.bulk.run import BulkReport
from retrace_fix.engine.options import RunResult
from retrace_fix.findings import FileResult
from retrace_fix.bulk.clone_ahead import active_directory
from retrace_fix.bulk.roots import Root, RootError, contains, has_git_urls, group_roots, root_key
from retrace_fix.bulk.root_task import (
    RootOutcome, RootTask, TaskSettings, failed_outcome, process_root, wait_for_scratch,
)

from retrace_fix.fix_request import FixRequest, UsageProblem, resolve_options


def wants_root_tasks(request: FixRequest) -> bool:
    """``--scheduler``, or a git URL among the roots."""
    if request.scheduler is not None:
        return True
    try:
        return has_git_urls(request.paths)
    except RootError:
        return True  # reported by run_root_tasks


def run_root_tasks(request: FixRequest) -> tuple[RunResult, BulkReport]:
    """Run every root of ``request`` as a task; its result and per-root report.

    Raises UsageProblem (exit 2, nothing written) for roots, options or a
    scheduler that cannot be used.
    """
    try:
        every = group_roots(request.all_paths if request.all_paths is not None else request.paths)
    except RootError as exc:
        raise UsageProblem(str(exc)) from None
    options, excludes = resolve_options(request)
    wanted = {root_key(raw) for raw in request.paths}
    here = [root for root in every if root.key in wanted]
    problem = unsupported(request, here)
    if problem:
        raise UsageProblem(problem)
    tasks = [task for task, root in zip(make_tasks(here, every), here) if root.url_error is None]
    settings = TaskSettings(
        options=options,
        excludes=tuple((base, tuple(patterns)) for base, patterns in excludes),
        clone_excludes=tuple(pattern for _, patterns in excludes for pattern in patterns),
        cwd=os.getcwd(),
    )
    with _progress([task.label for task in tasks]) as on_done:
        if request.scheduler in (None, "local"):  # workers on this machine: they take the clones made ahead
            settings = replace(settings, ahead=active_directory())
        if request.scheduler is not None:
            from retrace_fix.bulk.cluster import SchedulerError, dask_client, run_on_dask

            try:
                with dask_client(request.scheduler, request.jobs) as client:
                    outcomes = run_on_dask(client, tasks, settings, on_done)
            except SchedulerError as exc:
                raise UsageProblem(str(exc)) from None
        else:
            outcomes = run_here(tasks, settings, request.jobs, on_done)
    by_index = {outcome.index: outcome for outcome in outcomes}
    for index, root in enumerate(here):  # a malformed git URL: that root's error, the others ran
        if root.url_error is not None:
            by_index[index] = RootOutcome(index, problems=[FileResult(path=root.label, error=root.url_error)])
    return gather(request, here, [by_index[index] for index in range(len(here))])


def unsupported(request: FixRequest, roots: Sequence[Root]) -> str | None:
    """Why this run cannot be done as root tasks (None: it can)."""
    if request.mode == "interactive":
        return "--interactive needs local files: it cannot be combined with --scheduler or git URL roots"
    remote = next((root.label for root in roots if root.is_remote), None)
    if remote is None:
        return None
    if request.branch is not None:
        return f"--branch needs local checkouts, and {remote} is cloned for this run only (use --patch-dir)"
    if request.mode == "fix" and request.patch_dir is None:
        return f"{remote} is cloned for this run only: fix it with --patch-dir DIR (or look with --diff, --check)"
    return None


def make_tasks(here: Sequence[Root], every: Sequence[Root]) -> list[RootTask]:
    """One task per root of this run; a local root skips what deeper roots (of any shard) own."""
    tasks = []
    for index, root in enumerate(here):
        if root.is_remote:
            tasks.append(RootTask(index, root.label, root.name, source=root.source))
            continue
        deeper = [
            os.path.abspath(raw)
            for other in every
            if not other.is_remote and other.key != root.key and contains(root.key, other.key)
            for raw in other.paths
        ]
        paths = tuple((raw, os.path.abspath(raw)) for raw in root.paths)
        tasks.append(RootTask(index, root.label, root.name, paths=paths, skip=tuple(deeper)))
    return tasks


def run_here(
    tasks: Sequence[RootTask],
    settings: TaskSettings,
    jobs: int | None = None,
    on_done: Callable[[RootOutcome], None] | None = None,
    task_function: Callable[[RootTask, TaskSettings], RootOutcome] = process_root,
) -> list[RootOutcome]:
    """Run the tasks on this machine, each failed task once more; outcomes in task order.

    ``jobs`` processes forked from this one where the engine's pool forks its own (Linux:
    :mod:`retrace_fix.bulk.forked_roots`), else ``jobs`` threads (the clones overlap, the files are
    processed one at a time); one task after another in this process for ``jobs=1``."""
    from retrace_fix.bulk.forked_roots import run_forked
    from retrace_fix.engine.pool import fork_context

    outcomes: dict[int, RootOutcome] = {}
    workers = max(1, min(len(tasks), jobs or os.cpu_count() or 1))
    try:
        if workers == 1:
            for task in tasks:
                outcomes[task.index] = attempt(task, settings, task_function)
                if on_done is not None:
                    on_done(outcomes[task.index])
        elif fork_context() is not None:
            outcomes = run_forked(tasks, settings, workers, attempt, task_function, on_done)
        else:
            with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="retrace-fix-root") as pool:
                futures = [pool.submit(attempt, task, settings, task_function) for task in tasks]
                for future in as_completed(futures):
                    outcome = future.result()
                    outcomes[outcome.index] = outcome
                    if on_done is not None:
                        on_done(outcome)
    finally:
        wait_for_scratch()  # the clones are removed when the run's tasks are done
    return [outcomes[task.index] for task in tasks]


def attempt(task: RootTask, settings: TaskSettings,
            task_function: Callable[[RootTask, TaskSettings], RootOutcome] = process_root) -> RootOutcome:
    """One task's outcome: run it, once more if it raises, then its root's error."""
    from retrace_fix.bulk.cluster import describe_failure

    try:
        return task_function(task, settings)
    except Exception:
        try:
            return task_function(task, settings)
        except Exception as exc:
            return failed_outcome(task, describe_failure(exc, 2))


def gather(request: FixRequest, here: Sequence[Root], outcomes: Sequence[RootOutcome]) -> tuple[RunResult, BulkReport]:
    """The run's result (files sorted by path, then what could not be processed) and its per-root report."""
    files: list[FileResult] = []
    problems: list[FileResult] = []
    for root, outcome in zip(here, outcomes):
        root.files = [*outcome.files, *outcome.problems]
        files += outcome.files
        problems += outcome.problems
    files.sort(key=lambda r: r.path)
    report = BulkReport(mode=request.mode, roots=list(here), patch_dir=request.patch_dir)
    return RunResult(files=files + problems), report


@contextmanager
def _progress(labels: list[str]) -> Iterator[Callable[[RootOutcome], None] | None]:
    """On a terminal, a bar on standard error that advances per finished root."""
    if not labels or not output.stream_is_terminal(sys.stderr):
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(
        TextColumn("retrace-fix"), BarColumn(), MofNCompleteColumn(), TextColumn("roots"), TimeElapsedColumn(),
        TextColumn("{task.description}"), console=Console(file=sys.stderr), transient=True,
    ) as progress:
        bar = progress.add_task("", total=len(labels))
        yield lambda outcome: progress.update(bar, advance=1, description=labels[outcome.index])


__all__ = ["attempt", "gather", "make_tasks", "run_here", "run_root_tasks", "unsupported", "wants_root_tasks"]
