"""What the fix command is asked to do, and what that means for a run.

:class:`FixRequest` holds the fix command's options (``retrace-fix [OPTIONS]
PATH...``, also built by ``bench`` for its fix step); :func:`prepare` turns it
into the engine's :class:`~retrace_fix.engine.options.RunOptions` (``[tool.retrace-fix]``
merged with the command line, codes checked, trace files loaded) and the files
to process.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from retrace_fix.config import ConfigError, find_config, load_config
from retrace_fix.sources.discovery import DiscoveryError, discover, discover_roots, find_project_root
from retrace_fix.engine.options import RunOptions, unknown_codes
from retrace_fix.sources.ignore_patterns import check_patterns


@dataclass
class VerifyOptions:
    """``--verify ... -- CMD``: run CMD before and after the fixes; keep only the fixes the runs prove."""

    command: list[str]
    compare: list[str] = field(default_factory=list)  # --compare PATH: results files CMD writes
    compare_stdout: str | None = None  # --compare-stdout REGEX: compare only these stdout lines
    rtol: float = 1e-5
    atol: float = 1e-8
    timeout: float | None = None  # seconds per run of CMD
    rounds: int = 3  # fix rounds at most (each re-recorded on the fixed copy)
    max_runs: int = 25  # runs of CMD at most, the original's included


@dataclass
class FixRequest:
    paths: list[str]
    mode: str = "fix"  # fix | diff | check | interactive
    traces: list[str] = field(default_factory=list)
    unsafe_fixes: bool | None = None
    check_syntax: bool | None = None  # --check-syntax: also files that cannot hold a target
    select: list[str] | None = None
    ignore: list[str] = field(default_factory=list)
    jobs: int | None = None
    exclude: list[str] = field(default_factory=list)
    output_format: str = "text"
    patch_dir: Path | None = None
    config: Path | None = None
    quiet: bool = False
    repos: list[str] = field(default_factory=list)  # roots read from --repos FILE (also in paths)
    summary: Path | None = None  # --summary FILE.md: per-root Markdown summary (bulk runs)
    scheduler: str | None = None  # --scheduler ADDRESS|local: one task per root on a Dask cluster
    shard: Any = None  # --shard K/N (retrace_fix.bulk.shard.Shard): only that slice of the roots
    all_paths: list[str] | None = None  # the whole list of roots when ``paths`` is one shard of it
    branch: str | None = None  # --branch NAME: commit the fixes to a new branch per git repository
    #: PATH ``-``: the source comes from standard input, named this (``--stdin-filename``; ``-`` without it)
    stdin_filename: str | None = None
    show_fixes: bool = False  # --show-fixes: fix mode also lists every fix it applied
    verify: VerifyOptions | None = None  # --verify ... -- CMD: only fixes the user's program proves


class UsageProblem(Exception):
    """Bad input that stops the run before any file is touched (exit 2)."""


def prepare(request: FixRequest) -> tuple[RunOptions, list[Path], list[str]]:
    """Resolve config, codes, traces and files; raises UsageProblem."""
    options, excludes = resolve_options(request)
    try:
        # several roots: a missing root is reported for that root, the others still run
        found = discover_roots(request.paths, excludes) if is_bulk(request) else discover(request.paths, excludes)
    except DiscoveryError as exc:
        raise UsageProblem(str(exc)) from None
    assignment = options.trace_assignment
    if assignment is not None and not assignment.several_roots and request.traces:
        roots = {find_project_root(directory) for directory in {path.parent for path in found.files}}
        if len(roots) > 1:  # one path holding several repositories: traces apply to theirs only
            options = replace(options, trace_assignment=trace_assignment(request, len(roots)))
    return options, found.files, found.problems


def resolve_options(request: FixRequest) -> tuple[RunOptions, list[tuple[Path, list[str]]]]:
    """Config, codes and traces: the run's options and its exclude patterns; raises UsageProblem."""
    try:
        config_path = request.config or find_config(config_start(request))
        config = load_config(config_path)
    except ConfigError as exc:
        raise UsageProblem(str(exc)) from None
    select = request.select if request.select is not None else config.select
    ignore = [*config.ignore, *request.ignore]
    bad = unknown_codes([*(select or []), *ignore])
    if bad:
        raise UsageProblem(f"unknown code `{bad[0]}` (see `retrace-fix codemods`)")
    assignment = trace_assignment(request)
    unsafe = request.unsafe_fixes if request.unsafe_fixes is not None else config.unsafe_fixes
    check_syntax = getattr(request, "check_syntax", None)
    options = RunOptions(
        select=tuple(select) if select is not None else None,
        ignore=tuple(ignore),
        unsafe_fixes=unsafe,
        trace_assignment=assignment,
        check_syntax=check_syntax if check_syntax is not None else config.check_syntax,
    )
    problem = check_patterns(request.exclude)
    if problem:
        raise UsageProblem(f"--exclude: {problem}")
    excludes = [(config.base_dir, config.exclude), (Path.cwd(), request.exclude)]
    return options, excludes


def config_start(request: FixRequest) -> Path:
    """Where the search for ``[tool.retrace-fix]`` starts: the current directory, or
    the directory of the file named by ``--stdin-filename`` (as ruff does: an editor
    may run the command from anywhere)."""
    if request.stdin_filename not in (None, "-"):
        return Path(os.path.abspath(request.stdin_filename)).parent
    return Path.cwd()


def trace_assignment(request: FixRequest, roots: int = 1) -> Any:
    """Which trace files apply to which root (``--traces FILE`` / ``ROOT=FILE``; in a run over several
    roots, each root's own ``.retrace/traces.json``); None when there are none to look for.

    ``roots``: how many project roots the files found belong to (one path may hold several
    repositories): over several, a plain trace file applies only to the root it belongs to.
    """
    bulk = len(request.all_paths if request.all_paths is not None else request.paths) > 1 or bool(request.repos)
    several = bulk or roots > 1
    if not request.traces and not bulk:
        return None
    from retrace_fix.traces.model import TraceFileError
    from retrace_fix.traces.project import TraceAssignment, load_sources

    try:
        sources = load_sources(request.traces)
    except TraceFileError as exc:
        raise UsageProblem(str(exc)) from None
    return TraceAssignment(sources=tuple(sources), several_roots=several, own_files=bulk)


def is_bulk(request: FixRequest) -> bool:
    """Several roots (or a bulk option): a missing root must not stop the others."""
    return (
        len(request.paths) > 1
        or bool(getattr(request, "repos", None))
        or getattr(request, "summary", None) is not None
        or getattr(request, "shard", None) is not None
        or request.patch_dir is not None
    )
