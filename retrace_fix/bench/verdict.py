"""The bench report: what the fix step did, traces and timings per side, and the verdict.

:func:`judge` decides the status, the one-line verdict and the exit code: 0 the
fixed version is validated (or the original failed and the fixed version
runs); 1 outputs differ, the fixed version traces more, or its CMD fails.
"""

from __future__ import annotations

import os
import platform
import re
import statistics
from collections import Counter
from dataclasses import dataclass, field

from retrace_fix.bench.runs import RunRecord
from retrace_fix.wording import plural

EXIT_OK, EXIT_FAIL, EXIT_ERROR = 0, 1, 2
JSON_FORMAT = "retrace-fix-bench"
JSON_VERSION = 1
SIDES = ("before", "after")


@dataclass
class FixSummary:
    """What the fix step did to the ``after`` tree."""

    files_changed: list[str] = field(default_factory=list)
    applied: Counter = field(default_factory=Counter)  # code -> fixes applied
    diagnostics: int = 0
    not_applied: int = 0  # fixable findings left out (unsafe tier, suppressed)
    errors: list[str] = field(default_factory=list)
    diff: str = ""

    @property
    def total_applied(self) -> int:
        return sum(self.applied.values())

    def to_json(self) -> dict:
        return {
            "files_changed": list(self.files_changed),
            "applied": self.total_applied,
            "by_code": dict(sorted(self.applied.items())),
            "diagnostics": self.diagnostics,
            "not_applied": self.not_applied,
            "errors": list(self.errors),
            "diff": self.diff,
        }


@dataclass
class Stat:
    values: list[float]

    @property
    def median(self) -> float:
        return statistics.median(self.values)

    def to_json(self) -> dict:
        return {"median": self.median, "min": min(self.values), "max": max(self.values), "values": self.values}


def _stat(records: list[RunRecord], attribute: str) -> Stat | None:
    values = [getattr(r, attribute) for r in records]
    if not values or any(v is None for v in values):
        return None
    return Stat([float(v) for v in values])


@dataclass
class FunctionRow:
    file: str
    qualname: str
    before: list[int]
    after: list[int]
    calls_before: int | None = None
    calls_after: int | None = None

    @staticmethod
    def _summary(values: list[int]) -> int | None:
        return int(statistics.median_low(values)) if values else None

    @property
    def traces_before(self) -> int | None:
        return self._summary(self.before)

    @property
    def traces_after(self) -> int | None:
        return self._summary(self.after)

    def to_json(self) -> dict:
        return {
            "file": self.file,
            "qualname": self.qualname,
            "traces_before": self.traces_before,
            "traces_after": self.traces_after,
            "traces_before_runs": self.before,
            "traces_after_runs": self.after,
            "calls_before": self.calls_before,
            "calls_after": self.calls_after,
        }


def function_rows(before: list[RunRecord], after: list[RunRecord]) -> list[FunctionRow]:
    """One row per tf.function, matched across the trees by file and qualified name.

    The fix may move lines (an injected signature), so first lines only order
    same-named functions of a file.
    """

    def labelled(records: list[RunRecord]) -> dict[tuple[str, str], list[tuple[list[int], list[int]]]]:
        keys = sorted({k for r in records for k in r.traces}, key=lambda k: (k[0], k[2], k[1]))
        grouped: dict[tuple[str, str], list[tuple[list[int], list[int]]]] = {}
        for key in keys:
            counts = [r.traces.get(key, 0) for r in records]
            calls = [r.calls.get(key, 0) for r in records]
            # a partial's or callable object's record (``wraps``, last in its key) is a function of its own
            label = key[1] + (f" (via {key[3]})" if len(key) > 3 else "")
            grouped.setdefault((key[0], label), []).append((counts, calls))
        return grouped

    b, a = labelled(before), labelled(after)
    rows = []
    for file, qualname in sorted(set(b) | set(a)):
        lb, la = b.get((file, qualname), []), a.get((file, qualname), [])
        for i in range(max(len(lb), len(la))):
            name = qualname if i == 0 else f"{qualname} #{i + 1}"
            tb, cb = lb[i] if i < len(lb) else ([0] * len(before), [0] * len(before))
            ta, ca = la[i] if i < len(la) else ([0] * len(after), [0] * len(after))
            rows.append(
                FunctionRow(
                    file=file,
                    qualname=name,
                    before=tb,
                    after=ta,
                    calls_before=FunctionRow._summary(cb),
                    calls_after=FunctionRow._summary(ca),
                )
            )
    return rows


@dataclass
class BenchReport:
    command: list[str]
    runs: int
    rtol: float
    atol: float
    project: str
    fixes: FixSummary
    records: list[RunRecord] = field(default_factory=list)
    functions: list[FunctionRow] = field(default_factory=list)
    output_differences: list[str] = field(default_factory=list)
    compared: list[str] = field(default_factory=list)
    #: what of the compared outputs varies between the original's own runs and was masked
    masked: list[str] = field(default_factory=list)
    #: something stable was left to compare (False: every compared output varies run to run)
    stable: bool = True
    notes: list[str] = field(default_factory=list)
    status: str = "ok"  # ok | fail | error
    verdict: str = ""
    exit_code: int = EXIT_OK
    nothing_to_fix: bool = False

    def side(self, side: str) -> list[RunRecord]:
        return [r for r in self.records if r.side == side]

    def ok_runs(self, side: str) -> list[RunRecord]:
        return [r for r in self.side(side) if r.ok]

    def all_ok(self, side: str) -> bool:
        runs = self.side(side)
        return bool(runs) and all(r.ok for r in runs)

    @property
    def tensorflow(self) -> str | None:
        return next((r.tensorflow for r in self.records if r.tensorflow), None)

    def traces_total(self, side: str) -> int | None:
        """Median total traces of the side's successful runs (None when none succeeded)."""
        runs = self.ok_runs(side)
        if not runs:
            return None
        return int(statistics.median_low([r.total_traces for r in runs]))

    def timing(self, attribute: str) -> tuple[Stat | None, Stat | None, float | None]:
        sb, sa = _stat(self.ok_runs("before"), attribute), _stat(self.ok_runs("after"), attribute)
        ratio = None
        if sb is not None and sa is not None and sa.median > 0:
            ratio = sb.median / sa.median
        return sb, sa, ratio

    @property
    def speedup_metric(self) -> str:
        program = self.timing("program_s")
        return "program_s" if program[0] is not None and program[1] is not None else "wall_s"

    @property
    def speedup(self) -> float | None:
        return self.timing(self.speedup_metric)[2]

    def to_json(self) -> dict:
        timing = {}
        for attribute in ("wall_s", "program_s", "program_cpu_s", "tracing_s"):
            sb, sa, ratio = self.timing(attribute)
            timing[attribute] = {
                "before": sb.to_json() if sb else None,
                "after": sa.to_json() if sa else None,
                "speedup": ratio,
            }
        return {
            "format": JSON_FORMAT,
            "version": JSON_VERSION,
            "command": self.command,
            "project": self.project,
            "runs": self.runs,
            "rtol": self.rtol,
            "atol": self.atol,
            "tensorflow": self.tensorflow,
            "machine": machine_info(),
            "fixes": self.fixes.to_json(),
            "nothing_to_fix": self.nothing_to_fix,
            "traces": {"before": self.traces_total("before"), "after": self.traces_total("after")},
            "functions": [row.to_json() for row in self.functions],
            "timing": timing,
            "speedup": self.speedup,
            "speedup_metric": self.speedup_metric,
            "outputs": {
                "compared": self.compared,
                "equal": not self.output_differences and not self.masked,
                "differences": self.output_differences,
                "masked": self.masked,
                "stable": self.stable,
            },
            "run_details": [r.to_json() for r in self.records],
            "notes": self.notes,
            "status": self.status,
            "verdict": self.verdict,
            "exit_code": self.exit_code,
        }


def machine_info() -> dict:
    """CPU model, core count, OS and Python: where the numbers were measured."""
    cpu = platform.processor() or ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as handle:
            for line in handle:
                if line.lower().startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {
        "cpu": cpu or platform.machine(),
        "cores": os.cpu_count(),
        "platform": platform.platform(terse=True),
        "python": platform.python_version(),
    }


def judge(report: BenchReport) -> None:
    """Fill in status, verdict and exit code."""
    before_ok, after_ok = report.all_ok("before"), report.all_ok("after")
    tb, ta = report.traces_total("before"), report.traces_total("after")
    fixes = report.fixes.total_applied
    fixes_text = f"{plural(fixes, 'fix')} in {plural(len(report.fixes.files_changed), 'file')}"
    if report.nothing_to_fix:
        failed = next((r for r in report.side("before") if not r.ok), None)
        if failed is not None:  # nothing ran, nothing was fixed: nothing could be validated
            report.status, report.exit_code = "error", EXIT_ERROR
            report.verdict = (f"ERROR: the original fails ({why_failed(failed)}) and nothing was fixed: "
                              "nothing could be validated")
            return
        report.status, report.exit_code = "ok", EXIT_OK
        report.verdict = "nothing to fix with these options: the fixed tree equals the original (see `retrace-fix --check`)"
        return
    if not after_ok:
        failed = next(r for r in report.side("after") if not r.ok)
        why = failure_text(failed)
        if before_ok:
            report.status, report.exit_code = "fail", EXIT_FAIL
            report.verdict = f"FAIL: the fixed version fails ({why}) where the original runs"
        else:  # not a verdict on the fixes: the command does not run
            report.status, report.exit_code = "error", EXIT_ERROR
            report.verdict = f"ERROR: the command fails in both trees ({why}): nothing could be validated"
        return
    if not before_ok:
        failed = next(r for r in report.side("before") if not r.ok)
        report.status, report.exit_code = "ok", EXIT_OK
        report.verdict = (
            f"OK: the original fails ({why_failed(failed)}); with the fixes it runs "
            f"({fixes_text}; {plural(ta, 'trace')})"
        )
        return
    problems = []
    if report.compared and not report.stable:
        problems.append("nothing stable left to compare: the outputs named vary between the original's own runs "
                        f"({'; '.join(report.masked)})")
    if report.output_differences:
        problems.append(f"outputs differ ({report.output_differences[0]})")
    if tb is not None and ta is not None and ta > tb:
        problems.append(f"the fixed version traces more ({tb} → {ta})")
    if problems:
        report.status, report.exit_code = "fail", EXIT_FAIL
        report.verdict = "FAIL: " + "; ".join(problems)
        return
    parts = [f"traces {tb} → {ta}" if tb or ta else "no tf.function traced before or after"]
    metric = report.speedup_metric
    sb, sa, ratio = report.timing(metric)
    if ratio is not None and sb is not None and sa is not None:
        overlap = min(sb.values) <= max(sa.values) and min(sa.values) <= max(sb.values) and len(sb.values) > 1
        what = "program time" if metric == "program_s" else "wall time"
        if ratio >= 1:
            speed = f"{ratio:.2f}× faster ({what} {seconds_text(sb.median)} → {seconds_text(sa.median)})"
        else:
            speed = f"{1 / ratio:.2f}× slower ({what} {seconds_text(sb.median)} → {seconds_text(sa.median)})"
        cpu = report.timing("program_cpu_s")[2] if metric == "program_s" else None
        if cpu is not None:
            speed = speed[:-1] + f"; CPU time {cpu:.2f}×)"
        if overlap:
            speed += ", within run-to-run noise"
        parts.append(speed)
    tracing = report.timing("tracing_s")
    if tracing[0] is not None and tracing[1] is not None:
        parts.append(f"tracing {seconds_text(tracing[0].median)} → {seconds_text(tracing[1].median)}")
    if report.compared and report.masked:
        parts.append(f"outputs match where stable ({'; '.join(report.masked)}; rtol {report.rtol:g})")
    elif report.compared:
        parts.append(f"outputs equal (rtol {report.rtol:g})")
    else:
        parts.append("outputs not compared (use --compare or --compare-stdout)")
    report.status, report.exit_code = "ok", EXIT_OK
    report.verdict = f"OK: {fixes_text}; " + ", ".join(parts)


def failure_text(record: RunRecord) -> str:
    if record.start_error:
        return record.start_error
    if record.timed_out:
        return "timed out"
    return f"exit code {record.exit_code}"


_EXCEPTION = re.compile(r"^[\w.]*(Error|Exception|Exit|Interrupt|Failure)\b.*")


def why_failed(record: RunRecord) -> str:
    """``exit code 1: ValueError: ...``: how a run failed, with the exception line of its stderr."""
    text = failure_text(record)
    if record.timed_out or record.start_error:
        return text
    lines = [line.strip() for line in record.stderr_tail.splitlines() if line.strip()]
    errors = [line for line in lines if _EXCEPTION.match(line)]
    last = (errors or lines or [""])[-1]
    return f"{text}: {last[:200]}" if last else text


def seconds_text(value: float | None) -> str:
    if value is None:
        return "—"
    if value < 1:
        return f"{value * 1000:.1f} ms"
    return f"{value:.2f} s"
