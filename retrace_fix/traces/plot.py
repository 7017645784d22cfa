"""``retrace-fix report --plot FILE.png``: traces per function as a bar chart (matplotlib).

One horizontal bar per tf.function, most costly on top (the report's order):

* grey — the first trace (unavoidable);
* red — retraces: distinct traces after the first (new shapes, dtypes, Python
  values or objects; ``retrace-fix report`` says which argument changed);
* orange — identical traces repeated, i.e. the tf.function object was created
  again (in a loop, per call, per model instance);

with the number of calls written after each bar.  When the reports carry the
time of the traced calls (``trace_seconds`` and ``retrace_seconds`` of
:class:`retrace_fix.traces.retrace_report.FunctionReport`, from the trace file's
``seconds``), a second panel shows it per function: blue for the first trace's
call(s), red for the retraces', the total written after the bar.

matplotlib is an optional dependency (``pip install matplotlib``, or retrace-fix's ``[plot]`` extra).
The chart is drawn on an Agg canvas without pyplot, so it touches no global
matplotlib state and needs no display.
"""

from __future__ import annotations

import io
import os
from dataclasses import dataclass
from typing import Any, Sequence

from retrace_fix.sources.writes import write_file

try:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
except ImportError as exc:  # pragma: no cover - exercised by the missing-matplotlib test
    raise ImportError("matplotlib is not installed; pip install matplotlib") from exc

from retrace_fix.traces.retrace_report import format_seconds
from retrace_fix.wording import plural

MAX_FUNCTIONS = 30
FIRST_COLOR = "#9e9e9e"
RETRACE_COLOR = "#d62728"
REPEAT_COLOR = "#ff7f0e"
TIME_COLOR = "#1f77b4"


@dataclass(frozen=True)
class PlotRow:
    """What one bar shows."""

    label: str
    first: int  # 1 when the function traced at all
    retraces: int  # distinct traces after the first
    repeats: int  # identical traces again (the tf.function was re-created)
    calls: int
    seconds: float | None  # wall time of the traced calls, when recorded
    retrace_seconds: float | None = None  # the part of ``seconds`` spent in retraces

    @property
    def total(self) -> int:
        return self.first + self.retraces + self.repeats


def _label(report: Any, width: int = 48) -> str:
    qualname = str(report.qualname)
    if getattr(report, "wraps", None):  # a partial's or callable object's record beside the def's own
        qualname += f" via {report.wraps}"
    where = f"{report.file}:{report.firstlineno}"
    text = f"{qualname}  ({where})"
    if len(text) > width:
        keep = width - len(qualname) - 5
        if keep > 8:
            text = f"{qualname}  (…{where[-keep:]})"
        else:
            text = qualname if len(qualname) <= width else "…" + qualname[-(width - 1) :]
    return text


def plot_rows(reports: Sequence[Any], limit: int = MAX_FUNCTIONS) -> tuple[list[PlotRow], int]:
    """The bars to draw (report order, at most ``limit``) and how many functions were left out."""
    rows = []
    for report in list(reports)[:limit]:
        distinct = int(report.traces)
        total = int(getattr(report, "total_traces", distinct))
        seconds = getattr(report, "trace_seconds", None)
        retrace_seconds = getattr(report, "retrace_seconds", None)
        rows.append(
            PlotRow(
                label=_label(report),
                first=1 if distinct else 0,
                retraces=max(0, distinct - 1),
                repeats=max(0, total - distinct),
                calls=int(report.calls),
                seconds=float(seconds) if seconds is not None else None,
                retrace_seconds=float(retrace_seconds) if retrace_seconds is not None else None,
            )
        )
    return rows, max(0, len(reports) - limit)



def build_figure(reports: Sequence[Any]) -> Figure:
    """The chart as a matplotlib Figure (not yet saved)."""
    rows, left_out = plot_rows(reports)
    timed = any(row.seconds is not None for row in rows)
    height = max(2.6, 1.5 + 0.42 * len(rows))
    figure = Figure(figsize=(12.5 if timed else 10, height), dpi=110, layout="constrained")
    FigureCanvasAgg(figure)
    if not rows:
        axes = figure.add_subplot()
        axes.axis("off")
        axes.text(0.5, 0.5, "no tf.function traces recorded", ha="center", va="center", fontsize=13)
        return figure

    if timed:
        axes, time_axes = figure.subplots(1, 2, sharey=True, width_ratios=[3, 1.4])
    else:
        axes, time_axes = figure.add_subplot(), None
    positions = list(range(len(rows)))
    first = [r.first for r in rows]
    retraces = [r.retraces for r in rows]
    repeats = [r.repeats for r in rows]
    axes.barh(positions, first, color=FIRST_COLOR, label="first trace")
    axes.barh(positions, retraces, left=first, color=RETRACE_COLOR, label="retraces (an argument changed)")
    axes.barh(
        positions,
        repeats,
        left=[a + b for a, b in zip(first, retraces)],
        color=REPEAT_COLOR,
        label="identical traces again (tf.function re-created)",
    )
    longest = max(r.total for r in rows)
    for position, row in zip(positions, rows):
        axes.text(
            row.total + longest * 0.01 + 0.05,
            position,
            f"{plural(row.total, 'trace')}, {plural(row.calls, 'call')}",
            va="center",
            fontsize=9,
        )
    axes.set_yticks(positions, [r.label for r in rows], fontsize=9)
    axes.set_ylim(len(rows) - 0.5, -0.5)  # most costly on top, no padding rows
    axes.set_xlim(0, longest * 1.35 + 1)
    axes.set_xlabel("traces")
    axes.xaxis.get_major_locator().set_params(integer=True)
    axes.grid(axis="x", alpha=0.3)
    axes.set_axisbelow(True)
    for side in ("top", "right"):
        axes.spines[side].set_visible(False)
    figure.legend(loc="outside lower center", ncols=3, fontsize=8, frameon=False)
    total = sum(r.total for r in rows)
    beyond = sum(r.retraces + r.repeats for r in rows)
    title = f"tf.function traces per function: {plural(total, 'trace')}, {beyond} beyond the first"
    if left_out:
        title += f" (top {len(rows)} shown, {left_out} more)"
    figure.suptitle(title, x=0.01, ha="left", fontsize=11)
    if time_axes is not None:
        axes.set_title("traces", loc="left", fontsize=10)

    if time_axes is not None:
        seconds = [r.seconds or 0.0 for r in rows]
        retrace_seconds = [min(r.retrace_seconds or 0.0, s) for r, s in zip(rows, seconds)]
        first_seconds = [s - r for s, r in zip(seconds, retrace_seconds)]
        time_axes.barh(positions, first_seconds, color=TIME_COLOR)
        time_axes.barh(positions, retrace_seconds, left=first_seconds, color=RETRACE_COLOR)
        for position, row in zip(positions, rows):
            if row.seconds is not None:
                time_axes.text(row.seconds, position, f" {format_seconds(row.seconds)}", va="center", fontsize=9)
        time_axes.set_xlabel("seconds in traced calls (red: retraces)")
        time_axes.set_xlim(0, max(seconds) * 1.45 or 1)
        title = "time in traced calls"
        if sum(seconds) > 0:
            title += f" ({round(100 * sum(retrace_seconds) / sum(seconds))}% in retraces)"
        time_axes.set_title(title, loc="left", fontsize=10)
        time_axes.grid(axis="x", alpha=0.3)
        time_axes.set_axisbelow(True)
        time_axes.tick_params(axis="y", left=False)
        for side in ("top", "right"):
            time_axes.spines[side].set_visible(False)
    return figure


def write_plot(reports: Sequence[Any], path: str | os.PathLike) -> None:
    """Write the chart of ``reports`` (from :func:`retrace_fix.traces.retrace_report.build_report`) to ``path``.

    The format follows the file's extension (``.png``, ``.svg``, ``.pdf``; PNG
    when there is none matplotlib knows).
    """
    figure = build_figure(reports)
    suffix = os.path.splitext(os.fspath(path))[1].lower().lstrip(".")
    fmt = suffix if suffix in figure.canvas.get_supported_filetypes() else "png"
    buffer = io.BytesIO()
    figure.savefig(buffer, format=fmt)
    write_file(os.path.abspath(os.fspath(path)), buffer.getvalue())


__all__ = ["write_plot", "build_figure", "plot_rows", "PlotRow"]
