"""The fix command: config → discovery → engine → output → writes.

Kept apart from :mod:`retrace_fix.cli` so that it can be called (and tested)
without the command-line layer.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from retrace_fix import output
from retrace_fix.config import ConfigError, find_config, load_config
from retrace_fix.discovery import DiscoveryError, discover
from retrace_fix.engine import RunOptions, RunResult, run, unknown_codes
from retrace_fix.findings import FileResult
from retrace_fix.patching import FileChangedError, atomic_write

if TYPE_CHECKING:  # pragma: no cover
    from retrace_fix.bulk import BulkReport

EXIT_OK, EXIT_FOUND, EXIT_ERROR = 0, 1, 2
PROGRESS_MIN_FILES = 50


@dataclass
class FixRequest:
    paths: list[str]
    mode: str = "fix"  # fix | diff | check | interactive
    traces: list[str] = field(default_factory=list)
    unsafe_fixes: bool | None = None
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
    shard: Any = None  # --shard K/N (retrace_fix.shard.Shard): only that slice of the roots
    all_paths: list[str] | None = None  # the whole list of roots when ``paths`` is one shard of it
    branch: str | None = None  # --branch NAME: commit the fixes to a new branch per git repository


class UsageProblem(Exception):
    """Bad input that stops the run before any file is touched (exit 2)."""


def prepare(request: FixRequest) -> tuple[RunOptions, list[Path], list[str]]:
    """Resolve config, codes, traces and files; raises UsageProblem."""
    options, excludes = resolve_options(request)
    from retrace_fix.bulk import discover_roots, is_bulk

    try:
        # several roots: a missing root is reported for that root, the others still run
        found = discover_roots(request.paths, excludes) if is_bulk(request) else discover(request.paths, excludes)
    except DiscoveryError as exc:
        raise UsageProblem(str(exc)) from None
    return options, found.files, found.problems


def resolve_options(request: FixRequest) -> tuple[RunOptions, list[tuple[Path, list[str]]]]:
    """Config, codes and traces: the run's options and its exclude patterns; raises UsageProblem."""
    try:
        config_path = request.config or find_config(Path.cwd())
        config = load_config(config_path)
    except ConfigError as exc:
        raise UsageProblem(str(exc)) from None
    select = request.select if request.select is not None else config.select
    ignore = [*config.ignore, *request.ignore]
    bad = unknown_codes([*(select or []), *ignore])
    if bad:
        raise UsageProblem(f"unknown code `{bad[0]}` (see `retrace-fix codemods`)")
    trace_set = None
    if request.traces:
        from retrace_fix.traces.model import TraceFileError, load_trace_files

        try:
            trace_set = load_trace_files(request.traces)
        except TraceFileError as exc:
            raise UsageProblem(str(exc)) from None
    unsafe = request.unsafe_fixes if request.unsafe_fixes is not None else config.unsafe_fixes
    options = RunOptions(
        select=tuple(select) if select is not None else None,
        ignore=tuple(ignore),
        unsafe_fixes=unsafe,
        traces=trace_set,
    )
    excludes = [(config.base_dir, config.exclude), (Path.cwd(), request.exclude)]
    return options, excludes


def run_fix_command(request: FixRequest) -> int:
    if request.shard is not None:
        from retrace_fix.roots import RootError
        from retrace_fix.shard import narrow

        try:
            request = narrow(request, request.shard)
        except RootError as exc:  # a malformed git URL among the roots
            print(f"retrace-fix: error: {exc}", file=sys.stderr)
            return EXIT_ERROR
    from retrace_fix.taskrun import wants_root_tasks

    if wants_root_tasks(request):  # --scheduler, or git URL roots: one task per root
        from retrace_fix.taskrun import run_root_tasks

        return run_root_tasks(request)
    try:
        options, files, problems = prepare(request)
    except UsageProblem as exc:
        print(f"retrace-fix: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    result = _run_with_progress(files, options, request.jobs)
    for problem in problems:
        result.files.append(FileResult(path=problem.split(":")[0], error=problem))
    return finish(request, result)


def _run_with_progress(files: list[Path], options: RunOptions, jobs: int | None) -> RunResult:
    if len(files) < PROGRESS_MIN_FILES or not output.stream_is_terminal(sys.stderr):
        return run(files, options, jobs)
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    console = Console(file=sys.stderr)
    with Progress(
        TextColumn("retrace-fix"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
        console=console, transient=True,
    ) as progress:
        task = progress.add_task("files", total=len(files))
        advance: Callable[[FileResult], None] = lambda _result: progress.advance(task)
        return run(files, options, jobs, on_result=advance)


def finish(request: FixRequest, result: RunResult, report: "BulkReport | None" = None) -> int:
    """Print, write, and compute the exit code for a finished run.

    ``report`` holds the roots when the caller built them (a run of one task per root).
    """
    out, err = sys.stdout, sys.stderr
    mode = request.mode
    roots = report  # the roots, when the caller (or --branch, below) built them
    if request.branch is not None:  # the fixes go to new branches, not into the files
        from retrace_fix.branch import commit_branches
        from retrace_fix.bulk import BulkReport

        roots = roots if roots is not None else BulkReport.build(request, result)
        commit_branches(request.branch, roots, err)
    if request.patch_dir is not None:
        from retrace_fix.bulk import write_patch_dir

        return write_patch_dir(request, result, roots)
    if mode == "interactive":
        from retrace_fix.interactive import run_interactive

        return run_interactive(request, result)

    write_failures: list[str] = []
    if mode == "fix" and request.branch is None:
        for file_result in result.files:
            if file_result.changed:
                failure = write_result(file_result)
                if failure:
                    write_failures.append(failure)
                    file_result.error = failure

    from retrace_fix.bulk import finish_report, report_for

    bulk_report = report if report is not None else report_for(request, result, roots)  # per-root summary, else None
    fmt = request.output_format
    if fmt == "json":
        json_text = output.to_json(result, mode, include_diff=(mode == "diff"))
        out.write(bulk_report.add_to_json(json_text) if bulk_report else json_text)
    elif fmt == "sarif":
        try:
            from retrace_fix.sarif import to_sarif
        except ImportError:
            print("retrace-fix: error: --format sarif is not available in this version", file=err)
            return EXIT_ERROR
        out.write(to_sarif(result))
    else:
        if mode == "diff":
            output.write_diffs(result, out, color=output.stream_is_terminal(out))
        elif mode == "check":
            output.write_findings(result, out)
        else:  # fix: show what is left to do by hand
            output.write_findings(result, out, only_unapplied=True)
        output.write_errors(result, err)
        if not request.quiet:
            err.write(output.summary_line(result, mode) + "\n")
    if finish_report(bulk_report, request, err, text=(fmt == "text")):
        return EXIT_ERROR

    if result.errors or (roots is not None and roots.branch_errors):
        return EXIT_ERROR
    if mode == "diff":
        return EXIT_FOUND if any(f.changed for f in result.files) else EXIT_OK
    if mode == "check":
        return EXIT_FOUND if result.findings else EXIT_OK
    return EXIT_OK


def write_result(file_result: FileResult) -> str | None:
    """Write one fixed file atomically; return an error message instead of raising."""
    path = Path(file_result.path)
    try:
        original = (file_result.original or "").encode(file_result.encoding)
        atomic_write(path, (file_result.fixed or "").encode(file_result.encoding), expected_old=original)
    except FileChangedError as exc:
        return f"{file_result.path}:1: {exc}"
    except (OSError, UnicodeEncodeError) as exc:
        return f"{file_result.path}:1: cannot write: {getattr(exc, 'strerror', None) or exc}"
    return None
