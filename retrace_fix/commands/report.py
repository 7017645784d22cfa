"""``retrace-fix report [TRACES...] [--format text|json] [--plot FILE.png]``: per function, traces,
calls and which argument caused each retrace (:mod:`retrace_fix.traces.retrace_report`).

Without TRACES it reads ``.retrace/traces.json``, the file ``retrace-fix record`` writes by default
(and says so when it is missing)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import IO

from retrace_fix.traces.model import TraceFileError, load_trace_files

#: what ``retrace-fix record`` writes without ``-o``
DEFAULT_TRACES = ".retrace/traces.json"
from retrace_fix.traces.retrace_report import build_report, render_report

EXIT_OK, EXIT_ERROR = 0, 2


def run_report(
    trace_files: list[str],
    output_format: str = "text",
    plot: Path | None = None,
    out: IO[str] | None = None,
    err: IO[str] | None = None,
) -> int:
    """Merge ``trace_files``, print the report, optionally draw it; returns the exit code."""
    out, err = out or sys.stdout, err or sys.stderr

    def fail(message: str) -> int:
        err.write(f"retrace-fix: error: {message}\n")
        return EXIT_ERROR

    if not trace_files:
        if not Path(DEFAULT_TRACES).is_file():
            return fail(f"no trace file given, and {DEFAULT_TRACES} (what `retrace-fix record -- CMD` writes) does "
                        "not exist here: record your program first, or name trace files (retrace-fix report TRACES...)")
        trace_files = [DEFAULT_TRACES]
    try:
        trace_set = load_trace_files(list(trace_files))
    except TraceFileError as exc:
        return fail(str(exc))
    if output_format not in ("text", "json"):
        return fail("report supports --format text or json")
    reports = build_report(trace_set)
    out.write(render_report(reports, output_format))
    if plot is not None:
        if importlib.util.find_spec("matplotlib") is None:  # optional: the [plot] extra
            return fail("--plot needs matplotlib (not installed: pip install matplotlib, or retrace-fix's [plot] extra)")
        from retrace_fix.traces.plot import write_plot

        try:
            write_plot(reports, plot)
        except OSError as exc:
            return fail(f"cannot write {plot}: {exc.strerror or exc}")
        err.write(f"retrace-fix: wrote the plot to {plot}\n")
    return EXIT_OK
