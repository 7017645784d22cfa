"""The fix command: config → discovery → engine → output → writes.

Kept apart from :mod:`retrace_fix.cli` so that it can be called (and tested)
without the command-line layer.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from retrace_fix import output
from retrace_fix.config import ConfigError, find_config, load_config
from retrace_fix.discovery import DiscoveryError, discover
from retrace_fix.engine import RunOptions, RunResult, run, unknown_codes
from retrace_fix.findings import FileResult
from retrace_fix.writes import WriteRefused, replace_file

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


class UsageProblem(Exception):
    """Bad input that stops the run before any file is touched (exit 2)."""


def prepare(request: FixRequest) -> tuple[RunOptions, list[Path], list[str]]:
    """Resolve config, codes, traces and files; raises UsageProblem."""
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
    from retrace_fix.bulk import discover_roots, is_bulk

    try:
        # several roots: a missing root is reported for that root, the others still run
        found = discover_roots(request.paths, excludes) if is_bulk(request) else discover(request.paths, excludes)
    except DiscoveryError as exc:
        raise UsageProblem(str(exc)) from None
    return options, found.files, found.problems


def run_fix_command(request: FixRequest) -> int:
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


def finish(request: FixRequest, result: RunResult) -> int:
    """Print, write, and compute the exit code for a finished run."""
    out, err = sys.stdout, sys.stderr
    mode = request.mode
    if request.patch_dir is not None:
        from retrace_fix.bulk import write_patch_dir

        return write_patch_dir(request, result)
    if mode == "interactive":
        from retrace_fix.interactive import run_interactive

        return run_interactive(request, result)

    write_failures: list[str] = []
    if mode == "fix":
        for file_result in result.files:
            if file_result.changed:
                failure = write_result(file_result)
                if failure:
                    write_failures.append(failure)
                    file_result.error = failure

    from retrace_fix.bulk import finish_report, report_for

    bulk_report = report_for(request, result)  # per-root summary of a bulk run, else None
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

    if result.errors:
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
        replace_file(path, (file_result.fixed or "").encode(file_result.encoding), expected_old=original)
    except WriteRefused as exc:
        return f"{file_result.path}:1: {exc}"
    except (OSError, UnicodeEncodeError) as exc:
        return f"{file_result.path}:1: cannot write: {getattr(exc, 'strerror', None) or exc}"
    return None
