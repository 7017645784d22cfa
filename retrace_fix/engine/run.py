"""A run over many files (:func:`run`): one job per file with its project root
(:func:`make_jobs`), RTF005's pre-pass, then the files in this process or in workers."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable

from retrace_fix.sources.discovery import ProjectRoots, display_path, posix_relative
from retrace_fix.engine.call_sites import with_call_site_plans
from retrace_fix.engine.options import FileJob, RunOptions, RunResult
from retrace_fix.engine.pool import run_in_workers
from retrace_fix.engine.process import process_file, without_text
from retrace_fix.findings import FileResult


def make_jobs(files: list[Path], explicit_roots: tuple[str, ...] = ()) -> list[FileJob]:
    """One job per file, with its project root and its path relative to it.

    ``explicit_roots``: the realpaths of ``--traces ROOT=FILE`` roots.  A file inside one of them
    that lies deeper than the project root found for it (plain folders, no git) gets that ROOT
    as its root: the trace file was recorded there, and names the files relative to it.
    """
    cwd = Path.cwd()
    jobs = []
    roots: dict[Path, tuple[str, str]] = {}  # directory -> (its project root, its realpath)
    project_roots = ProjectRoots()  # find_project_root, asked once per directory
    for path in files:
        directory = path.parent
        if directory not in roots:
            real = os.path.realpath(directory)
            found = project_roots.of(real)
            inside = [r for r in explicit_roots if _within(real, r) and _within(r, found)]
            roots[directory] = (max(inside, key=len) if inside else found, real)
        root, real_directory = roots[directory]
        # the recorder names files by their resolved path, relative to the same root
        rel = _relative(_realpath(path, real_directory), root)
        display = display_path(path, cwd)
        jobs.append(FileJob(path=path, display=display, relpath=rel if rel is not None else display, root=str(root)))
    return jobs


def _realpath(path: Path, real_directory: str) -> str:
    """``os.path.realpath(path)``, given its directory's: a file that is no link is its directory's
    realpath and its name (one ``lstat`` instead of one per component)."""
    name = path.name
    if name in ("", ".", "..") or os.path.islink(path):
        return os.path.realpath(path)
    return os.path.join(real_directory, name)


def _relative(real: str, root: str) -> str | None:
    """``real`` relative to ``root`` (POSIX separators), None when it is not below it."""
    relative = posix_relative(real, root)
    if relative is not None:
        return relative
    try:
        return Path(real).relative_to(root).as_posix()
    except ValueError:
        return None


def _within(inner: str, outer: str) -> bool:
    return inner == outer or inner.startswith(outer.rstrip(os.sep) + os.sep)


def explicit_roots(options: RunOptions) -> tuple[str, ...]:
    """The ``ROOT`` of every ``--traces ROOT=FILE`` of the run (realpaths)."""
    assignment = options.trace_assignment
    return tuple(s.root for s in assignment.sources if s.root is not None) if assignment is not None else ()


def run(
    files: list[Path],
    options: RunOptions,
    jobs: int | None = None,
    on_result: Callable[[FileResult], None] | None = None,
) -> RunResult:
    """Process ``files``; results come back sorted by display path whatever ``jobs`` is, those of
    files with nothing to report without their text (:func:`~retrace_fix.engine.process.without_text`)."""
    work = make_jobs(files, explicit_roots(options))
    options = with_call_site_plans(work, options)
    workers = max(1, jobs or os.cpu_count() or 1)
    results: list[FileResult] = []

    def emit(res: FileResult) -> None:
        results.append(res)
        if on_result:
            on_result(res)

    if workers == 1 or len(work) < 2:
        for job in work:
            emit(without_text(process_file(job, options)))
    else:
        run_in_workers(work, options, workers, emit)
    results.sort(key=lambda r: r.path)
    return RunResult(files=results)
