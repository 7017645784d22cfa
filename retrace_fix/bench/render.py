"""The bench report as text (a rich table on a terminal), Markdown or JSON."""

from __future__ import annotations

import json
import statistics
from typing import IO

from retrace_fix.bench.verdict import SIDES, BenchReport, Stat, failure_text, machine_info, seconds_text, why_failed
from retrace_fix.bench.runs import RunRecord
from retrace_fix.output.render import stream_is_terminal
from retrace_fix.wording import plural

FORMATS = ("text", "json", "markdown")


def _stat_text(stat: Stat | None) -> str:
    if stat is None:
        return "—"
    if len(stat.values) == 1:
        return seconds_text(stat.median)
    return f"{seconds_text(stat.median)} ({seconds_text(min(stat.values))}–{seconds_text(max(stat.values))})"


def _count_text(values: list[int]) -> str:
    if not values:
        return "—"
    low, high = min(values), max(values)
    median = int(statistics.median_low(values))
    return str(median) if low == high else f"{median} ({low}–{high})"


def _ratio_text(ratio: float | None) -> str:
    return "—" if ratio is None else f"{ratio:.2f}×"


def table_rows(report: BenchReport) -> tuple[list[str], list[list[str]], list[str], list[list[str]]]:
    """(trace header, trace rows, timing header, timing rows) shared by every text format."""
    trace_header = ["tf.function", "traces before", "traces after", "calls"]
    trace_rows = []
    # successful runs only: a failed run stops early and traces less
    idx_b = [i for i, r in enumerate(report.side("before")) if r.ok]
    idx_a = [i for i, r in enumerate(report.side("after")) if r.ok]

    def cell(values: list[int], runs: list[RunRecord]) -> str:
        if not runs:
            return ""
        return _count_text(values) if values else "failed"

    for row in report.functions:
        before = [row.before[i] for i in idx_b if i < len(row.before)]
        after = [row.after[i] for i in idx_a if i < len(row.after)]
        calls = row.calls_after if row.calls_after else row.calls_before
        trace_rows.append([f"{row.file}::{row.qualname}", cell(before, report.side("before")),
                           cell(after, report.side("after")), str(calls or "—")])
    total_b = [report.side("before")[i].total_traces for i in idx_b]
    total_a = [report.side("after")[i].total_traces for i in idx_a]
    trace_rows.append(["total", cell(total_b, report.side("before")), cell(total_a, report.side("after")), ""])
    timing_header = ["time (median, min–max)", "before", "after", "speedup"]
    timing_rows = []
    for attribute, label in (
        ("wall_s", "wall time of CMD"),
        ("program_s", "program time (no TF import)"),
        ("program_cpu_s", "program CPU time"),
        ("tracing_s", "TF graph building"),
    ):
        sb, sa, ratio = report.timing(attribute)
        if sb is None and sa is None:
            continue
        timing_rows.append([label, _stat_text(sb), _stat_text(sa), _ratio_text(ratio)])
    return trace_header, trace_rows, timing_header, timing_rows


def plain_table(header: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(str(c)) for c in column) for column in zip(header, *rows)]
    lines = ["  ".join(str(c).ljust(w) for c, w in zip(header, widths)).rstrip()]
    lines.append("  ".join("-" * w for w in widths))
    for row in rows:
        lines.append("  ".join(str(c).ljust(w) for c, w in zip(row, widths)).rstrip())
    return "\n".join(lines) + "\n"


def _md_table(header: list[str], rows: list[list[str]]) -> str:
    def cell(value: str) -> str:
        return str(value).replace("|", "\\|")

    lines = ["| " + " | ".join(cell(h) for h in header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def _headline(report: BenchReport) -> str:
    fixes = report.fixes
    codes = ", ".join(f"{code} ×{n}" for code, n in sorted(fixes.applied.items())) or "none"
    return (
        f"retrace-fix bench: {' '.join(report.command)}  ({plural(report.runs, 'run')} per tree"
        f"{', TensorFlow ' + report.tensorflow if report.tensorflow else ''})\n"
        f"fixes applied: {fixes.total_applied} ({codes}) in {len(fixes.files_changed)} file(s)"
        f"{'; ' + str(fixes.diagnostics) + ' diagnostic(s) left' if fixes.diagnostics else ''}\n"
    )


def _failure_details(report: BenchReport) -> list[str]:
    """The first failing run of each side, with the tail of its stderr.

    An original that fails where every fixed run works is the fixes' result, not
    an error: one line says how it failed.
    """
    lines = []
    for side in SIDES:
        failed = [r for r in report.side(side) if not r.ok]
        if not failed:
            continue
        record = failed[0]
        if side == "before" and report.all_ok("after"):
            lines.append(f"the original fails ({why_failed(record)}); the fixed version runs")
            continue
        lines.append(f"{side} run {record.index + 1} of {report.runs}: {failure_text(record)}"
                     f"{f' ({len(failed)} of {report.runs} runs failed)' if len(failed) > 1 else ''}")
        lines += ["    " + line for line in record.stderr_tail.splitlines()]
    return lines


def render_text(report: BenchReport) -> str:
    out = [_headline(report)]
    if report.records:
        header, rows, theader, trows = table_rows(report)
        out.append("\n" + plain_table(header, rows))
        if trows:
            out.append("\n" + plain_table(theader, trows))
    for line in _failure_details(report):
        out.append(line + "\n")
    for note in report.notes:
        out.append(f"note: {note}\n")
    for difference in report.output_differences[1:6]:
        out.append(f"differs: {difference}\n")
    out.append(f"\n{report.verdict}\n")
    return "".join(out)


def render_markdown(report: BenchReport) -> str:
    out = [f"### retrace-fix bench: `{' '.join(report.command)}`\n\n"]
    fixes = report.fixes
    codes = ", ".join(f"{code} ×{n}" for code, n in sorted(fixes.applied.items())) or "none"
    out.append(
        f"{report.runs} run(s) per tree{', TensorFlow ' + report.tensorflow if report.tensorflow else ''}, "
        f"{machine_info()['cpu']}. Fixes applied: **{fixes.total_applied}** ({codes}) in "
        f"{len(fixes.files_changed)} file(s).\n\n"
    )
    if report.records:
        header, rows, theader, trows = table_rows(report)
        out.append(_md_table(header, rows) + "\n")
        if trows:
            out.append(_md_table(theader, trows) + "\n")
    for line in _failure_details(report):
        out.append(f"    {line}\n")
    for note in report.notes:
        out.append(f"> note: {note}\n")
    mark = "✅" if report.status == "ok" else "❌"
    out.append(f"\n{mark} **{report.verdict}**\n")
    if fixes.diff:
        out.append(f"\n<details><summary>diff</summary>\n\n```diff\n{fixes.diff}```\n\n</details>\n")
    return "".join(out)


def render_rich(report: BenchReport, stream: IO[str]) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console(file=stream)
    console.print(_headline(report).rstrip(), markup=False, highlight=False)
    if report.records:
        header, rows, theader, trows = table_rows(report)
        for head, body in ((header, rows), (theader, trows)):
            if not body:
                continue
            table = Table(show_header=True, header_style="bold")
            for i, column in enumerate(head):
                table.add_column(column, justify="left" if i == 0 else "right")
            for row in body:
                style = "bold" if row[0] == "total" else None
                table.add_row(*row, style=style)
            console.print(table)
    for line in _failure_details(report):
        console.print(line, markup=False, highlight=False)
    for note in report.notes:
        console.print(f"note: {note}", markup=False, highlight=False)
    for difference in report.output_differences[1:6]:
        console.print(f"differs: {difference}", markup=False, highlight=False)
    colour = "green" if report.status == "ok" else "red"
    console.print(report.verdict, style=f"bold {colour}", markup=False, highlight=False)


def render(report: BenchReport, output_format: str, stream: IO[str]) -> None:
    if output_format == "json":
        stream.write(json.dumps(report.to_json(), indent=2, ensure_ascii=False) + "\n")
    elif output_format == "markdown":
        stream.write(render_markdown(report))
    else:
        if stream_is_terminal(stream):
            render_rich(report, stream)
        else:
            stream.write(render_text(report))
