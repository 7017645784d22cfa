"""One root, processed wherever a task runs: on a Dask worker, or in this process.

:func:`process_root` takes a :class:`RootTask` (a local root's paths, or a git
URL) and the run's :class:`TaskSettings`, and returns a :class:`RootOutcome`
that the coordinator turns into output exactly as a local run would:

* a git root is cloned shallowly into a scratch directory of its own
  (:mod:`retrace_fix.bulk.scratch`: on a memory file system with room to
  spare, else under the Dask worker's local directory or the system's
  temporary directory), processed, and removed (on a thread of its own,
  :func:`~retrace_fix.bulk.scratch.discard_scratch`, while the next root is
  processed; :func:`~retrace_fix.bulk.scratch.wait_for_scratch` waits for it);
  its files are named ``<root-name>/<path in the
  repository>``, and ``--exclude`` / ``[tool.retrace-fix] exclude`` patterns
  apply relative to the clone; on a ``--scheduler local`` run the clone may have been
  made ahead, while the cluster started (:mod:`retrace_fix.bulk.clone_ahead`): the task
  takes it rather than making its own;
* a local root is read where it is (the worker must see the same paths as the
  coordinator: a LocalCluster, or a shared file system); its files are named
  relative to the coordinator's current directory, as a local run names them;
  files under a deeper root given separately are left to that root;
* files are processed one after another by the engine (a task is one unit of
  parallelism); only changed files keep their text in the outcome.

An exception (a clone that fails, a worker that dies) is the executor's to
retry; :func:`failed_outcome` is what a root that failed twice reports.
"""

from __future__ import annotations

import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from retrace_fix import __version__
from retrace_fix.sources.discovery import DiscoveryError, discover, display_path
from retrace_fix.engine.call_sites import with_call_site_plans
from retrace_fix.engine.options import RunOptions
from retrace_fix.engine.process import process_file
from retrace_fix.engine.run import explicit_roots, make_jobs
from retrace_fix.findings import FileResult
from retrace_fix.bulk.clone_ahead import take
from retrace_fix.bulk.git_sources import CloneError, GitSource, clone
from retrace_fix.bulk.roots import contains
from retrace_fix.bulk.scratch import (
    discard_scratch, scratch_bases, scratch_prefix, short_of_space, wait_for_scratch,
)

#: the engine's per-file work runs one file at a time per process: a task on a
#: multi-threaded worker waits here (git clones, outside it, still overlap)
ENGINE_LOCK = threading.Lock()


class WorkerMismatch(Exception):
    """The worker runs another version of retrace-fix than the coordinator."""


@dataclass(frozen=True)
class TaskSettings:
    """What every root of a run shares (sent to each worker once)."""

    options: RunOptions
    excludes: tuple[tuple[Path, tuple[str, ...]], ...]  # (base, patterns) for local roots
    clone_excludes: tuple[str, ...]  # patterns applied relative to each cloned root
    cwd: str  # the coordinator's current directory: local roots' files are named relative to it
    version: str = __version__
    ahead: str | None = None  # where git roots may be cloned ahead on this machine (:mod:`~retrace_fix.bulk.clone_ahead`)


@dataclass(frozen=True)
class RootTask:
    """What a worker is sent to process one :class:`~retrace_fix.bulk.roots.Root`.

    A type of its own rather than the root itself: it is pickled to a Dask
    worker (or handed to a thread that runs while the coordinator goes on), and
    sent again unchanged when the task is retried, so it is frozen and holds
    only what processing needs (the position its outcome is matched by, the
    arguments' absolute paths, the deeper roots to leave alone), never the
    root's files or the report's state.
    """

    index: int  # position in the run
    label: str  # as given
    name: str  # unique in the run; cloned files are named ``<name>/<path>``
    paths: tuple[tuple[str, str], ...] = ()  # local root: (as given, absolute) per argument
    skip: tuple[str, ...] = ()  # absolute directories of deeper roots given separately
    source: GitSource | None = None  # git root


@dataclass
class RootOutcome:
    index: int
    files: list[FileResult] = field(default_factory=list)  # processed files, sorted by path
    problems: list[FileResult] = field(default_factory=list)  # what could not be processed at all
    commit: str | None = None  # the commit a git root was cloned at


def process_root(task: RootTask, settings: TaskSettings) -> RootOutcome:
    """Discover and fix one root; raises when it cannot be cloned (the executor retries)."""
    if settings.version != __version__:
        raise WorkerMismatch(f"the worker runs retrace-fix {__version__}, the coordinator {settings.version}")
    if task.source is not None:
        return _process_clone(task, settings)
    return _process_local(task, settings)


def _process_local(task: RootTask, settings: TaskSettings) -> RootOutcome:
    outcome = RootOutcome(task.index)
    excludes = [(base, list(patterns)) for base, patterns in settings.excludes]
    files: list[Path] = []
    seen: set[str] = set()
    for label, absolute in task.paths:
        try:
            found = discover([absolute], excludes)
        except DiscoveryError:
            outcome.problems.append(_problem(f"{label}: no such file or directory"))
            continue
        except OSError as exc:
            outcome.problems.append(_problem(f"{label}: cannot read ({exc.strerror or exc})"))
            continue
        for path in found.files:
            key = str(path.resolve())
            if key not in seen and not any(contains(deeper, str(path)) for deeper in task.skip):
                seen.add(key)
                files.append(path)
        outcome.problems += [_problem(_relabel(p, absolute, label)) for p in found.problems]
    cwd = Path(settings.cwd)
    outcome.files = _process(files, lambda path: display_path(path, cwd), settings.options)
    return outcome


def _process_clone(task: RootTask, settings: TaskSettings) -> RootOutcome:
    assert task.source is not None
    outcome = RootOutcome(task.index)
    taken = take(settings.ahead, task.source) if settings.ahead is not None else None
    scratch, checkout, outcome.commit = taken or _clone_somewhere(task.source, task.name)
    try:
        found = discover([str(checkout)], [(checkout, list(settings.clone_excludes))])
        outcome.files = _process(
            found.files, lambda path: f"{task.name}/{path.relative_to(checkout).as_posix()}", settings.options
        )
        outcome.problems = [_problem(_relabel(p, str(checkout), task.name, inside=True)) for p in found.problems]
    finally:
        discard_scratch(scratch)
    return outcome


def _clone_somewhere(source: GitSource, name: str) -> tuple[str, Path, str]:
    """A new scratch directory, the clone of ``source`` made in it (``name``) and the clone's commit:
    in the first of :func:`~retrace_fix.bulk.scratch.scratch_bases`, and in the next one where the
    clone failed for want of room (it filled the memory file system; asked before its scratch is
    discarded, which frees the room again)."""
    bases = scratch_bases()
    for attempt, base in enumerate(bases, 1):
        scratch = tempfile.mkdtemp(prefix=scratch_prefix(), dir=base)
        checkout = Path(scratch) / name
        try:
            return scratch, checkout, clone(source, checkout)
        except BaseException as exc:
            again = isinstance(exc, CloneError) and attempt < len(bases) and short_of_space(base)
            discard_scratch(scratch)
            if not again:
                raise
    raise AssertionError("unreachable: the last base returns or raises")  # pragma: no cover


def _process(files: list[Path], display: Callable[[Path], str], options: RunOptions) -> list[FileResult]:
    jobs = make_jobs(files, explicit_roots(options))
    for job in jobs:
        job.display = display(job.path)
    with ENGINE_LOCK:
        options = with_call_site_plans(jobs, options)  # RTF005 decides over the whole root
        results = [process_file(job, options) for job in jobs]
    for result in results:
        # only the text of changed files (patches, writes, branches) and of files with findings
        # (SARIF places a notebook's findings in its cells by the original text) is needed
        if not result.changed and not result.findings:
            result.original = result.fixed = None
    results.sort(key=lambda r: r.path)
    return results


def _problem(message: str) -> FileResult:
    return FileResult(path=message.split(":")[0], error=message)


def _relabel(message: str, old: str, new: str, inside: bool = False) -> str:
    """``message`` naming ``new`` instead of the path ``old`` (and paths under it when ``inside``)."""
    if message.startswith(old + ":") or (inside and message.startswith(old + "/")):
        return new + message[len(old):]
    return message


def failed_outcome(task: RootTask, reason: str) -> RootOutcome:
    """What a root that could not be processed twice reports: one error naming the root."""
    return RootOutcome(task.index, problems=[FileResult(path=task.label, error=f"{task.label}: {reason}")])


__all__ = ["RootOutcome", "RootTask", "TaskSettings", "WorkerMismatch", "discard_scratch", "failed_outcome",
           "process_root", "wait_for_scratch"]
