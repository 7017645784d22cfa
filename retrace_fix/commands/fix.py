"""The fix command: config → discovery → engine → output → writes.

Kept apart from :mod:`retrace_fix.cli` so that it can be called (and tested)
without the command-line layer.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from retrace_fix.output import render as output
from retrace_fix.bulk.run import BulkReport, finish_report, report_for, write_patch_dir
from retrace_fix.engine.options import RunOptions, RunResult
from retrace_fix.engine.run import run
from retrace_fix.sources.discovery import display_path
from retrace_fix.findings import FileResult, Tier
from retrace_fix.fix_request import FixRequest, UsageProblem, prepare
from retrace_fix.output.next_step import next_step_hint
from retrace_fix.sources.stdin import read_stdin_source
from retrace_fix.bulk.scheduler import run_root_tasks, wants_root_tasks
from retrace_fix.sources.writes import WriteRefused, replace_file

if TYPE_CHECKING:  # pragma: no cover
    from retrace_fix.verify.summary import VerifyReport

EXIT_OK, EXIT_FOUND, EXIT_ERROR = 0, 1, 2
PROGRESS_MIN_FILES = 50


def run_fix_command(request: FixRequest) -> int:
    if request.stdin_filename is not None:  # PATH `-`: one source from standard input
        return run_stdin(request)
    if request.shard is not None:
        from retrace_fix.bulk.roots import RootError
        from retrace_fix.bulk.shard import narrow

        try:
            request = narrow(request, request.shard)
        except RootError as exc:  # a malformed git URL among the roots
            print(f"retrace-fix: error: {exc}", file=sys.stderr)
            return EXIT_ERROR
    if request.verify is not None:  # record, fix, prove: only the fixes the program's runs prove
        from retrace_fix.verify import VerifyError
        from retrace_fix.verify.session import run_verify

        try:
            result, proof = run_verify(request, sys.stderr)
        except (UsageProblem, VerifyError) as exc:
            print(f"retrace-fix: error: {exc}", file=sys.stderr)
            return EXIT_ERROR
        return finish(request, result, verify=proof)
    if wants_root_tasks(request):  # --scheduler, or git URL roots: one task per root
        try:
            result, report = run_root_tasks(request)
        except UsageProblem as exc:
            print(f"retrace-fix: error: {exc}", file=sys.stderr)
            return EXIT_ERROR
        return finish(request, result, report)
    try:
        options, files, problems = prepare(request)
    except UsageProblem as exc:
        print(f"retrace-fix: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    result = _run_with_progress(files, options, request.jobs)
    for problem in problems:
        result.files.append(FileResult(path=problem.split(":")[0], error=problem))
    return finish(request, result)


def run_stdin(request: FixRequest) -> int:
    """``retrace-fix [--diff|--check] - [--stdin-filename NAME]`` (see :mod:`retrace_fix.sources.stdin`)."""
    try:
        source = read_stdin_source(request)
    except UsageProblem as exc:
        print(f"retrace-fix: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    result = source.run()
    if request.mode != "fix":
        return finish(request, result)  # a diff or the findings, named NAME, as for a file
    err = sys.stderr  # standard output carries the source
    data, problem = source.output(result)
    if problem:
        result.files[0].error = problem
    out = getattr(sys.stdout, "buffer", None)
    if out is not None:
        sys.stdout.flush()
        out.write(data)
        out.flush()
    else:  # a text stream without bytes underneath (tests)
        sys.stdout.write(data.decode("utf-8", "surrogateescape"))
    output.write_findings(result, err, only_unapplied=not request.show_fixes)
    output.write_errors(result, err)
    if not request.quiet:
        _write_skip_notes(request, result, err)
        err.write(output.summary_line(result, "fix") + "\n")
    return EXIT_ERROR if result.errors else EXIT_OK


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


def finish(request: FixRequest, result: RunResult, report: "BulkReport | None" = None,
           verify: "VerifyReport | None" = None) -> int:
    """Print, write, and compute the exit code for a finished run.

    ``report`` holds the roots when the caller built them (a run of one task per root);
    ``verify``: the run was ``--verify`` (``result`` holds only the verified fixes).
    """
    out, err = sys.stdout, sys.stderr
    mode = request.mode
    fmt = request.output_format
    if verify is not None and fmt == "text":
        err.write(verify.text())
    add_verify = verify.add_to_json if verify is not None else None
    roots = report  # the roots, when the caller (or --branch, below) built them
    if request.branch is not None:  # the fixes go to new branches, not into the files
        from retrace_fix.bulk.branches import commit_branches

        roots = roots if roots is not None else BulkReport.build(request, result)
        commit_branches(request.branch, roots, err, proof=verify.proof_table() if verify is not None else None)
    if request.patch_dir is not None:
        code = write_patch_dir(request, result, roots, extend_json=add_verify)
        return verify.exit_code if verify is not None and verify.exit_code is not None and code == 0 else code
    if mode == "interactive":
        from retrace_fix.patch.interactive import run_interactive

        code = run_interactive(request, result)
        _print_hint(request, result, err)
        return verify.exit_code if verify is not None and verify.exit_code is not None and code == 0 else code

    write_failures: list[str] = []
    if mode == "fix" and request.branch is None:
        for file_result in result.files:
            if file_result.changed:
                failure = write_result(file_result)
                if failure:
                    write_failures.append(failure)
                    file_result.error = failure

    bulk_report = report if report is not None else report_for(request, result, roots)  # per-root summary, else None
    coverage = trace_coverage(request, result)
    if fmt == "json":
        json_text = output.to_json(result, mode, include_diff=(mode == "diff"))
        if request.branch is not None and roots is not None:  # nothing was written: say what was committed
            json_text = _with_branch_summary(json_text, request.branch, roots, result)
        if coverage:
            json_text = _with_trace_coverage(json_text, coverage)
        json_text = bulk_report.add_to_json(json_text) if bulk_report else json_text
        out.write(add_verify(json_text) if add_verify is not None else json_text)
    elif fmt == "sarif":
        from retrace_fix.output.sarif import to_sarif

        out.write(to_sarif(result))
    else:
        if mode == "diff":
            output.write_diffs(result, out, color=output.stream_is_terminal(out))
            if not request.quiet:  # the diagnostics the summary counts, next to the pure diff (as ruff does)
                output.write_findings(result, err, only_tier=Tier.DIAGNOSTIC)
        elif mode == "check":
            output.write_findings(result, out)
        else:  # fix: show what is left to do by hand (and, with --show-fixes, what was done)
            output.write_findings(result, out, only_unapplied=not request.show_fixes)
        output.write_errors(result, err)
        if not request.quiet:
            _write_skip_notes(request, result, err)
        for line in coverage:
            err.write(f"retrace-fix: {line}\n")
        if not request.quiet and request.branch is not None and roots is not None:  # nothing was written here
            err.write(output.branch_summary_line(result, request.branch, roots.committed_files, roots.committed_fixes,
                                                 len(roots.branch_errors)) + "\n")
        elif not request.quiet:
            err.write(output.summary_line(result, mode) + "\n")
        _print_hint(request, result, err)
    if finish_report(bulk_report, request, err, text=(fmt == "text")):
        return EXIT_ERROR

    if result.errors or (roots is not None and roots.branch_errors):
        return EXIT_ERROR
    if verify is not None and verify.exit_code is not None:
        return verify.exit_code  # the original fails and nothing ran (2), nothing stable to compare (1)
    if mode == "diff":
        return EXIT_FOUND if any(f.changed for f in result.files) else EXIT_OK
    if mode == "check":
        return EXIT_FOUND if result.findings else EXIT_OK
    return EXIT_OK


def _write_skip_notes(request: FixRequest, result: RunResult, err) -> None:
    """Say why a file named on the command line was skipped (an R notebook), as ruff does: a file
    found by walking a directory is skipped silently, and neither is an error."""
    named = {display_path(Path(os.path.abspath(raw))) for raw in request.paths if raw != "-"}
    for file_result in result.files:
        if file_result.skip_note and (file_result.path in named or request.paths == ["-"]):
            err.write(f"note: {file_result.skip_note}\n")


def _print_hint(request: FixRequest, result: RunResult, err) -> None:
    hint = next_step_hint(request, result)
    if hint:
        err.write(hint + "\n")


def trace_coverage(request: FixRequest, result: RunResult) -> list[str]:
    """What the traces did not reach: recorded functions that matched no ``def`` of the files
    checked, trace files that apply to no root (one line each; none without traces)."""
    from retrace_fix.fix_request import trace_assignment
    from retrace_fix.traces.project import coverage_lines

    if not any(f.trace_root for f in result.files):
        return []
    try:
        assignment = trace_assignment(request, len({f.trace_root for f in result.files if f.trace_root}))
    except UsageProblem:  # pragma: no cover - the files loaded a moment ago
        return []
    return coverage_lines(assignment, result.files)


def _with_branch_summary(json_text: str, branch: str, roots: BulkReport, result: RunResult) -> str:
    """The JSON summary of a ``--branch`` run: what went to the branches (the files were not written)."""
    import json

    payload = json.loads(json_text)
    summary = payload["summary"]
    summary["committed_files"], summary["committed_fixes"] = roots.committed_files, roots.committed_fixes
    summary["text"] = output.branch_summary_line(result, branch, roots.committed_files, roots.committed_fixes,
                                                 len(roots.branch_errors))
    return json.dumps(payload, indent=2, sort_keys=False) + "\n"


def _with_trace_coverage(json_text: str, coverage: list[str]) -> str:
    import json

    payload = json.loads(json_text)
    payload["summary"]["traces"] = coverage
    return json.dumps(payload, indent=2, sort_keys=False) + "\n"


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
