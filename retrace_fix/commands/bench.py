"""``retrace-fix bench``: prove on your own workload that the fixes remove retraces, keep results, and pay.

::

    retrace-fix bench [--runs N] [--traces FILE] [--unsafe-fixes] [--select CODES]
                      [--compare PATH] [--compare-stdout REGEX] [--rtol 1e-5]
                      [--format text|json|markdown] -- CMD [ARGS...]

1. The project (the git root above the current directory, else the current
   directory) is copied twice into a temporary directory: ``before/`` as it is,
   ``after/`` fixed in-process by the engine with the given options (what
   ``retrace-fix [--traces ...] [--unsafe-fixes] .`` would write).  Without
   ``--traces`` the original's first run is recorded and its traces drive the
   fixes (``--no-record``: static fixes only); when the original fails before
   it traces (``model.predict`` inside a tf.function), the fixed tree runs once
   more under the recorder and its traces drive a second fix step (the chained
   fix, e.g. RTF003 after RTF002).  VCS, virtual-environment and
   cache directories are not copied; ``--exclude`` leaves out more.  The
   user's tree is only read.
2. CMD runs N times in each tree (alternating, in fresh processes, from the
   copy of the current directory) under the trace recorder and a timing probe
   (:mod:`retrace_fix.bench.probe`): per run the traces of every tf.function,
   the wall time of CMD, the program time without the TensorFlow import, and
   TensorFlow's own graph-building time.
3. Outputs are compared (``--compare PATH`` files: .npy, .npz, .json or text;
   ``--compare-stdout REGEX`` lines) with ``--rtol``/``--atol``.

Exit codes: 0 the fixed version is validated (or the original failed and the
fixed version runs); 1 outputs differ, the fixed version traces more, or its
CMD fails (also when the original fails too: nothing could be validated);
2 bad arguments (also a ``--compare`` file the original never writes, or a
``--compare-stdout`` pattern matching none of its lines).

This module never imports TensorFlow.
"""

from __future__ import annotations

import dataclasses
import re
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Callable

from retrace_fix.bench import BenchError
from retrace_fix.bench.copying import copy_project, exclude_matcher
from retrace_fix.bench.options import (check_compare_sources, check_comparison, check_copy_size, command_after_dashes,
                                      progress_log, project_of_cwd)
from retrace_fix.bench.outputs import (LineMask, TextOutput, compare_values, line_difference, line_mask,
                                      mask_summary, relative_compare_path, stdout_matches)
from retrace_fix.bench.render import FORMATS, render
from retrace_fix.bench.verdict import (
    EXIT_ERROR, SIDES, BenchReport, FixSummary, failure_text, function_rows, judge, seconds_text, why_failed,
)
from retrace_fix.bench.runs import RunRecord, Tree, run_once
from retrace_fix.patch.diffs import unified_diff
from retrace_fix.wording import plural


@dataclass
class BenchRequest:
    command: list[str]
    runs: int = 3
    traces: list[str] = field(default_factory=list)
    unsafe_fixes: bool | None = None
    select: list[str] | None = None
    ignore: list[str] = field(default_factory=list)
    exclude: list[str] = field(default_factory=list)
    compare: list[str] = field(default_factory=list)
    compare_stdout: str | None = None
    rtol: float = 1e-5
    atol: float = 1e-8
    output_format: str = "text"
    timeout: float | None = None
    keep: bool = False
    config: Path | None = None
    quiet: bool = False
    record: bool = True  # without --traces: fix from the traces of the original's first run


#: ``fixer(before_root, after_root, project_root, traces) -> FixSummary`` rewrites the after
#: tree; ``traces`` is the TraceSet recorded by the first run of the original (or None).
Fixer = Callable[[Path, Path, Path, Any], FixSummary]


def validate(request: BenchRequest) -> list[str]:
    """Check the arguments; return the command (leading ``--`` removed); raises BenchError."""
    command = command_after_dashes(request.command, "no command given (usage: retrace-fix bench [OPTIONS] -- CMD [ARGS...])")
    if request.runs < 1:
        raise BenchError(f"--runs must be at least 1, got {request.runs}")
    if request.output_format not in FORMATS:
        raise BenchError(f"--format must be one of {', '.join(FORMATS)}, got {request.output_format!r}")
    check_comparison(request.rtol, request.atol, request.timeout, request.compare_stdout)
    return command


def engine_fixer(request: BenchRequest, project_root: Path) -> Fixer:
    """The default fixer: the engine with the request's options, on the copied files.

    Options, codes, trace files and the files to fix are resolved at once (a bad
    argument is a BenchError before anything runs); discovery runs on the
    user's tree, read only, so the fixed files are those ``retrace-fix .`` would
    write.
    """
    import dataclasses

    from retrace_fix.engine.call_sites import with_call_site_plans
    from retrace_fix.engine.options import FileJob
    from retrace_fix.engine.process import process_file
    from retrace_fix.findings import Tier
    from retrace_fix.output.render import file_diff
    from retrace_fix.fix_request import FixRequest, UsageProblem, prepare

    fix_request = FixRequest(
        paths=[str(project_root)],
        traces=list(request.traces),
        unsafe_fixes=request.unsafe_fixes,
        select=request.select,
        ignore=list(request.ignore),
        exclude=list(request.exclude),
        config=request.config,
    )
    try:
        options, files, _problems = prepare(fix_request)
    except UsageProblem as exc:
        raise BenchError(str(exc)) from None

    def fix(before_root: Path, after_root: Path, root: Path, traces: Any = None) -> FixSummary:
        run_options = options if traces is None else dataclasses.replace(options, traces=traces, trace_assignment=None)
        summary = FixSummary()
        diffs = []
        jobs = []
        for path in files:
            try:
                rel = path.relative_to(root).as_posix()
            except ValueError:
                continue
            target = after_root / rel
            if not target.is_file() or target.is_symlink():
                continue
            jobs.append(FileJob(path=target, display=rel, relpath=rel))
        # RTF005 decides over every file of the copy at once (its call sites may be in any module)
        run_options = with_call_site_plans(jobs, dataclasses.replace(run_options, call_site_plans=None))
        for job in jobs:
            rel, target = job.relpath, job.path
            result = process_file(job, run_options)
            if result.error:
                summary.errors.append(result.error)
                continue
            for finding in result.findings:
                if finding.applied:
                    summary.applied[finding.code] += 1
                elif finding.tier is Tier.DIAGNOSTIC:
                    summary.diagnostics += 1
                else:
                    summary.not_applied += 1
            if result.changed:
                target.write_bytes((result.fixed or "").encode(result.encoding))
                summary.files_changed.append(rel)
                diffs.append(file_diff(result))
        summary.diff = "".join(diffs)
        return summary

    return fix


def compare_runs(report: BenchReport, pattern: re.Pattern | None, compare_paths: list[str]) -> None:
    """Compare outputs of each successful fixed run with the original's (fills differences, masks and notes).

    What differs between the original's own successful runs is not the fixes' doing: in the
    ``--compare-stdout`` lines only the tokens that vary (a number, an id, a hex address) are
    masked, the rest of each line is compared; a ``--compare`` file that varies is left out whole.
    """
    before, after = report.side("before"), report.side("after")
    keys = list(compare_paths) + (["stdout"] if pattern is not None else [])
    report.compared = [("stdout /" + pattern.pattern + "/") if k == "stdout" else k for k in keys]
    if not keys:
        return

    def value(record: RunRecord, key: str) -> Any:
        if key == "stdout":
            return TextOutput(stdout_matches(record.outputs.get("stdout", ""), pattern))
        return record.outputs.get(key)

    ok_before = [r for r in before if r.ok]
    if not ok_before:
        return
    base = ok_before[0]
    masks: dict[int, LineMask] = {}
    unstable: set[str] = set()
    base_lines = value(base, "stdout").splitlines() if pattern is not None else []
    for key in keys:
        label = report.compared[keys.index(key)]
        for other in ok_before[1:]:
            if key != "stdout":
                if compare_values(value(base, key), value(other, key), report.rtol, report.atol):
                    unstable.add(key)
                continue
            other_lines = value(other, key).splitlines()
            if len(other_lines) != len(base_lines):
                unstable.add(key)
                continue
            for index, (la, lb) in enumerate(zip(base_lines, other_lines)):
                mask = line_mask(la, lb, report.rtol, report.atol, masks.get(index))
                if mask is not None:
                    masks[index] = mask
        if key in unstable:
            report.masked.append(f"{label}: varies between the original's own runs, not compared")
        elif key == "stdout" and masks:
            report.masked.append(f"{label}: {plural(len(base_lines), 'line')}, {mask_summary(masks.values())}")
    if report.masked:
        report.notes.append(
            "the original's outputs vary between its own runs (" + "; ".join(report.masked) + "): only what varies "
            "is masked, the rest is compared (seed the program for a full comparison)"
        )
    for b, a in zip(before, after):
        if not (b.ok and a.ok):
            continue
        for key in keys:
            label = report.compared[keys.index(key)]
            if key in unstable:
                continue
            if key in a.missing_outputs and key not in base.missing_outputs:
                report.output_differences.append(f"{key}: not written by the fixed version (run {a.index + 1})")
                continue
            if key == "stdout" and masks:
                diffs = _masked_differences(base_lines, value(a, key).splitlines(), masks, report, label)
            else:
                diffs = compare_values(value(base, key), value(a, key), report.rtol, report.atol, label)
            report.output_differences += [d for d in diffs if d not in report.output_differences]
    report.stable = any(key not in unstable and not (key == "stdout" and masks and not _stable_lines(base_lines, masks))
                        for key in keys)


def _masked_differences(base: list[str], lines: list[str], masks: dict[int, LineMask], report: BenchReport,
                        label: str) -> list[str]:
    if len(base) != len(lines):
        return [f"{label}: {len(base)} lines before, {len(lines)} after"]
    found = []
    for index, (la, lb) in enumerate(zip(base, lines)):
        mask = masks.get(index)
        problem = mask.difference(lb, report.rtol, report.atol) if mask is not None else \
            line_difference(la, lb, report.rtol, report.atol)
        if problem is not None:
            found.append(f"{label}: line {index + 1}: {problem}")
        if len(found) >= 5:
            break
    return found


def _stable_lines(lines: list[str], masks: dict[int, LineMask]) -> bool:
    """Is anything left a changed result would show in (a stable number, or a line that never varies)?"""
    return any((index not in masks and line.strip()) or (index in masks and masks[index].stable_numbers)
               for index, line in enumerate(lines))


def run_bench(
    request: BenchRequest,
    fixer: Fixer | None = None,
    out: IO[str] | None = None,
    err: IO[str] | None = None,
) -> int:
    """Run the whole bench; print the report on ``out``; return the exit code."""
    out = out or sys.stdout
    err = err or sys.stderr
    try:
        report = bench(request, fixer=fixer, err=err)
    except BenchError as exc:
        err.write(f"retrace-fix bench: error: {exc}\n")
        return EXIT_ERROR
    render(report, request.output_format, out)
    return report.exit_code


def bench(
    request: BenchRequest,
    fixer: Fixer | None = None,
    err: IO[str] | None = None,
) -> BenchReport:
    """Copy, fix, run and compare; raises BenchError for bad arguments."""
    err = err or sys.stderr
    command = validate(request)
    cwd, project_root = project_of_cwd()
    compare_paths = [relative_compare_path(spec, project_root, cwd) for spec in request.compare]
    pattern = re.compile(request.compare_stdout) if request.compare_stdout is not None else None
    excluded = exclude_matcher(project_root, cwd, request.exclude)
    check_copy_size(project_root, excluded)
    fixer = fixer or engine_fixer(request, project_root)
    auto_record = request.record and not request.traces
    log = progress_log(err, request.quiet)
    work = Path(tempfile.mkdtemp(prefix="retrace-fix-bench-"))
    try:
        name = project_root.name or "project"
        trees = {}
        for side in SIDES:
            root = work / side / name
            copy_project(project_root, root, excluded)
            trees[side] = Tree(side=side, root=root, cwd=root / cwd.relative_to(project_root))

        def run(side: str, index: int, prove: bool = False) -> RunRecord:
            record = run_once(
                trees[side], index, command, work, project_root, compare_paths, request.timeout, prove
            )
            state = "ok" if record.ok else failure_text(record)
            traces = record.total_traces
            log(
                f"  run {index + 1}/{request.runs} {side:<6} {state:<12} wall {seconds_text(record.wall_s)}, "
                f"{plural(traces, 'trace')}"
            )
            return record

        records: list[RunRecord] = []
        recorded = None
        if auto_record:
            log(f"retrace-fix bench: recording `{' '.join(command)}` on the original to find trace-driven fixes")
            records.append(run("before", 0, prove=True))  # its traces drive the fixes: it proves them
            recorded = records[0].trace_set if records[0].trace_set is not None and len(records[0].trace_set) else None
        summary = fixer(trees["before"].root, trees["after"].root, project_root, recorded)
        chain_note = None
        if auto_record and not records[0].ok and summary.files_changed:
            # the original fails before it traces: what the fixed version traces may call for more fixes
            log("retrace-fix bench: the original fails, so its run recorded nothing to fix from; "
                "recording the fixed tree once for the fixes its traces call for")
            chain_tree = dataclasses.replace(trees["after"], side="chain")
            chain = run_once(chain_tree, 0, command, work, project_root, compare_paths, request.timeout)
            chain_note = _chain_fixes(fixer, trees, project_root, summary, chain)
        report = BenchReport(
            command=command,
            runs=request.runs,
            rtol=request.rtol,
            atol=request.atol,
            project=str(project_root),
            fixes=summary,
            records=records,
        )
        if recorded is not None:
            report.notes.append(
                f"fixes driven by the traces of the original's first run ({sum(len(f.traces) for f in recorded)} "
                f"distinct traces of {plural(len(recorded), 'function')}); "
                "give --traces to use a recording of your own, --no-record for static fixes only"
            )
        if chain_note:
            report.notes.append(chain_note)
        for problem in summary.errors:
            report.notes.append(f"not fixed: {problem}")
        if not summary.files_changed:
            report.nothing_to_fix = True
            report.functions = function_rows(report.side("before"), [])
            judge(report)
            return report
        log(
            f"retrace-fix bench: {summary.total_applied} fix(es) in {len(summary.files_changed)} file(s); "
            f"running `{' '.join(command)}` {request.runs}× per tree in {work}"
        )
        for index in range(request.runs):
            order = SIDES if index % 2 == 0 else tuple(reversed(SIDES))
            for side in order:
                if index == 0 and side == "before" and auto_record:
                    continue  # the recording run is the original's first run
                report.records.append(run(side, index))
        report.records.sort(key=lambda r: (SIDES.index(r.side), r.index))
        ok_before = report.ok_runs("before")
        if ok_before:
            check_compare_sources(ok_before[0], pattern, compare_paths)
        report.functions = function_rows(report.side("before"), report.side("after"))
        compare_runs(report, pattern, compare_paths)
        if report.all_ok("before") and report.all_ok("after") and not any(r.traces for r in report.records):
            report.notes.append(_no_traces_note(report))
        judge(report)
        if request.keep:
            report.notes.append(f"trees kept in {work}")
        return report
    finally:
        if not request.keep:
            shutil.rmtree(work, ignore_errors=True)


def _chain_fixes(fixer: Fixer, trees: dict[str, Tree], project_root: Path, summary: FixSummary,
                 chain: RunRecord) -> str:
    """Fix the after tree again from the traces of ``chain`` (its run); ``summary`` gets the result.

    Returns the note that says what happened.
    """
    head = "the original fails, so its first run recorded no traces: the fixed tree ran once more under the recorder"
    if not chain.ok:
        return f"{head}, and failed ({why_failed(chain)}): no fix from its traces"
    if chain.trace_set is None or not len(chain.trace_set):
        return f"{head}: it traced no tf.function, so no fix from traces"
    more = fixer(trees["before"].root, trees["after"].root, project_root, chain.trace_set)
    summary.applied.update(more.applied)
    summary.files_changed = sorted(set(summary.files_changed) | set(more.files_changed))
    summary.diagnostics, summary.not_applied = more.diagnostics, more.not_applied
    summary.errors += more.errors
    diffs = []
    for rel in summary.files_changed:
        old, new = (trees[side].root / rel for side in ("before", "after"))
        diffs.append(unified_diff(old.read_text(encoding="utf-8", errors="replace"),
                                  new.read_text(encoding="utf-8", errors="replace"), rel, quoted=True))
    summary.diff = "".join(diffs)
    if not more.total_applied:
        return f"{head}: its traces call for no further fix"
    codes = ", ".join(f"{code} ×{n}" for code, n in sorted(more.applied.items()))
    return f"{head}, and its traces gave {plural(more.total_applied, 'more fix')} ({codes})"


#: a speedup at least this large, with no overlap between the runs, is the fixes' result
CLEAR_SPEEDUP = 1.2


def _no_traces_note(report: BenchReport) -> str:
    """Why neither tree traced: a result when the fixed version is clearly faster, else a question."""
    sb, sa, ratio = report.timing(report.speedup_metric)
    clear = (ratio is not None and sb is not None and sa is not None and ratio >= CLEAR_SPEEDUP
             and max(sa.values) < min(sb.values))
    if clear:
        return ("no tf.function traced in either tree: the speedup comes from code outside tf.functions "
                "(RTF002 calling a Keras model directly in a Python loop, for example)")
    return "no tf.function traces were recorded (does CMD run Python code of this project that uses TensorFlow?)"
