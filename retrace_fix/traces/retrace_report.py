"""``retrace-fix report``: per tf.function, its calls, its traces, and why each retrace happened.

Each trace is compared with the one recorded before it (first-seen order) and
every argument that differs is named with the change, e.g.::

    `X`: shape (16, 50) → (32, 50)
    `num_steps`: Python int 10 → 20
    `x`: dtype int32 → float32
    `model`: new object of type Sequential
    `cfg`: list length 2 → 3

Functions are listed most costly first (most traces).  Version-2 trace files
also give where the traced calls came from and each candidate fix's proof::

      called from: run.py:10 (×3), eval.py:2
      proof: scalar k=float32: k=float32[] → traced

When the trace file has the time of the traced calls (``seconds``, recorded
since that field exists), each function also gets a line with the total wall
time of its traced calls and the part of it spent in retraces (the distinct
traces after the first), and the report ends with the same for all functions::

      time: 0.912 s in traced calls, 0.604 s (66%) in retraces
    time in traced calls: 1.234 s, 0.800 s (65%) in retraces
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from typing import Iterable

from retrace_fix.traces.model import FunctionTraces, Proof, Trace, TraceSet, add_seconds
from retrace_fix.wording import plural

#: notebooks read to name the cells of recorded lines (path -> notebook, None: cannot be read)
_NOTEBOOKS: dict = {}


def location(file: str, line: int) -> str:
    """``file:line``; for a notebook (its line counts its code cells joined, as the recorder and the
    fixer read it) ``nb.ipynb:cell N:LINE`` when the notebook is found under the project root."""
    if not file.endswith(".ipynb"):
        return f"{file}:{line}"
    if file not in _NOTEBOOKS:
        import os

        from retrace_fix.sources.discovery import find_project_root
        from retrace_fix.notebooks.notebook import NotebookError, read_notebook

        try:
            with open(os.path.join(find_project_root(), file), "rb") as handle:
                _NOTEBOOKS[file] = read_notebook(handle.read())
        except (OSError, NotebookError):
            _NOTEBOOKS[file] = None
    notebook = _NOTEBOOKS[file]
    if notebook is None or not notebook.code:
        return f"{file}:{line}"
    cell, in_cell = notebook.locate(line)
    return f"{file}:cell {cell}:{in_cell}"

ARROW = "→"


@dataclass
class TraceEntry:
    """One distinct trace of a function, with what changed since the previous one."""

    index: int  # 1-based, in first-seen order
    count: int  # how often this exact trace happened
    nested: bool
    via: str
    arguments: str  # compact summary of every argument
    changes: list[str] = field(default_factory=list)  # empty for the first trace
    seconds: float | None = None  # wall time of the call(s) that made it; None when not recorded
    #: further traces TF made of this signature because a first call created variables
    variable_creation: int = 0


@dataclass
class FunctionReport:
    """What the report says about one tf.function."""

    file: str
    qualname: str
    firstlineno: int
    calls: int
    traces: int  # distinct traces
    total_traces: int  # TensorFlow's count: repeats of an identical trace and variable-creation traces included
    retraces: int
    reduce_retracing: bool
    has_input_signature: bool
    trace_seconds: float | None = None  # wall time of every traced call; None when not recorded
    retrace_seconds: float | None = None  # the part of it in the distinct traces after the first
    nested_seconds: float | None = None  # the part of it in nested traces (inside a caller's time too)
    entries: list[TraceEntry] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: where the traced calls came from: ``train.py:40 (×3)`` (format version 2)
    called_from: list[str] = field(default_factory=list)
    #: each candidate fix trial-traced on the live function at the end of the recording, with its
    #: outcome: ``input_signature x=float32[None, 4]: traced`` (format version 2)
    proofs: list[str] = field(default_factory=list)
    #: the traces TF made again because a first call created variables (in ``total_traces``)
    variable_creation: int = 0
    #: a tf.function of a wrapped callable (``functools.partial``, ``callable object``), None otherwise
    wraps: str | None = None
    #: with ``wraps``: the parameters the wrapper binds, which the call does not pass
    bound: list[str] = field(default_factory=list)


# ---------------------------------------------------------------------------
# describing values


def format_shape(shape: list | None) -> str:
    """``[16, 50]`` -> ``(16, 50)``, ``[3]`` -> ``(3,)``, ``[None]`` -> ``(None,)``, ``None`` -> ``<unknown rank>``."""
    if shape is None:
        return "<unknown rank>"
    return repr(tuple(shape))


def _python_value(value: dict) -> str:
    raw = value.get("value")
    if value.get("type") == "str" and isinstance(raw, str):
        return repr(raw)
    if value.get("type") == "float" and raw in ("nan", "inf", "-inf"):
        return raw
    return "None" if raw is None else str(raw)


def describe_value(value: dict) -> str:
    """A short human description of one value descriptor."""
    kind = value.get("kind")
    if kind == "tensor":
        return f"tensor {value.get('dtype')} {format_shape(value.get('shape'))}"
    if kind in ("ragged", "sparse", "variable"):
        return f"{kind} {value.get('dtype')} {format_shape(value.get('shape'))}"
    if kind == "python":
        return f"Python {value.get('type')} {_python_value(value)}"
    if kind == "object":
        return f"object of type {value.get('type')} (#{value.get('id')})"
    if kind in ("list", "tuple"):
        items = ", ".join(describe_value(v) for v in value.get("items", []))
        return f"{kind} [{items}]" if kind == "list" else f"tuple ({items})"
    if kind == "per_replica":
        items = ", ".join(describe_value(v) for v in value.get("items", []))
        return f"PerReplica ({items})"
    if kind in ("dict", "namedtuple"):
        items = ", ".join(f"{k}: {describe_value(v)}" for k, v in value.get("items", {}).items())
        return f"{value.get('type')}({items})" if kind == "namedtuple" else f"dict {{{items}}}"
    return str(value.get("repr") or value.get("type") or kind)


def _short(value: dict) -> str:
    """The brief form used in a trace's argument summary."""
    kind = value.get("kind")
    if kind == "tensor":
        return f"{value.get('dtype')}{format_shape(value.get('shape'))}"
    if kind == "python":
        return _python_value(value)
    if kind == "object":
        return f"<{value.get('type')} #{value.get('id')}>"
    if kind in ("list", "tuple"):
        items = ", ".join(_short(v) for v in value.get("items", []))
        return f"[{items}]" if kind == "list" else f"({items}{',' if len(value.get('items', [])) == 1 else ''})"
    if kind == "per_replica":
        return f"PerReplica({', '.join(_short(v) for v in value.get('items', []))})"
    if kind in ("dict", "namedtuple"):
        items = ", ".join(f"{k}={_short(v)}" for k, v in value.get("items", {}).items())
        return f"{value.get('type')}({items})" if kind == "namedtuple" else f"{{{items}}}"
    return describe_value(value)


# ---------------------------------------------------------------------------
# explaining a retrace


def value_changes(name: str, old: dict | None, new: dict | None) -> list[str]:
    """Why ``old`` and ``new`` (descriptors of argument ``name``) trace differently; [] if they don't."""
    if old == new:
        return []
    label = f"`{name}`"
    if old is None:
        return [f"{label}: new argument, {describe_value(new)}"]
    if new is None:
        return [f"{label}: argument no longer passed (was {describe_value(old)})"]
    kind = old.get("kind")
    if kind != new.get("kind"):
        return [f"{label}: {describe_value(old)} {ARROW} {describe_value(new)}"]
    if kind in ("tensor", "ragged", "sparse", "variable"):
        changes = []
        if old.get("dtype") != new.get("dtype"):
            changes.append(f"{label}: dtype {old.get('dtype')} {ARROW} {new.get('dtype')}")
        if old.get("shape") != new.get("shape"):
            changes.append(f"{label}: shape {format_shape(old.get('shape'))} {ARROW} {format_shape(new.get('shape'))}")
        for key in ("ragged_rank", "row_splits_dtype", "trainable"):
            if old.get(key) != new.get(key):
                changes.append(f"{label}: {key} {old.get(key)} {ARROW} {new.get(key)}")
        return changes or [f"{label}: {describe_value(old)} {ARROW} {describe_value(new)}"]
    if kind == "python":
        if old.get("type") == new.get("type"):
            return [f"{label}: Python {new.get('type')} {_python_value(old)} {ARROW} {_python_value(new)}"]
        return [f"{label}: {describe_value(old)} {ARROW} {describe_value(new)}"]
    if kind == "object":
        return [f"{label}: new object of type {new.get('type')}"]
    if kind in ("list", "tuple", "per_replica"):
        old_items, new_items = old.get("items", []), new.get("items", [])
        if len(old_items) != len(new_items):
            what = "number of replicas" if kind == "per_replica" else f"{kind} length"
            return [f"{label}: {what} {len(old_items)} {ARROW} {len(new_items)}"]
        changes = []
        for index, (a, b) in enumerate(zip(old_items, new_items)):
            changes += value_changes(f"{name}[{index}]", a, b)
        return changes
    if kind in ("dict", "namedtuple"):
        if kind == "namedtuple" and old.get("type") != new.get("type"):
            return [f"{label}: {old.get('type')} {ARROW} {new.get('type')}"]
        old_items, new_items = old.get("items", {}), new.get("items", {})
        if list(old_items) != list(new_items):
            if kind == "dict":
                return [f"{label}: dict keys {sorted(old_items)} {ARROW} {sorted(new_items)}"]
            return [f"{label}: fields {list(old_items)} {ARROW} {list(new_items)}"]
        changes = []
        for key in old_items:
            sub = f"{name}[{key!r}]" if kind == "dict" else f"{name}.{key}"
            changes += value_changes(sub, old_items[key], new_items[key])
        return changes
    return [f"{label}: {describe_value(old)} {ARROW} {describe_value(new)}"]


def trace_changes(previous: Trace, trace: Trace, bound: Iterable[str] = (), wraps: str | None = None) -> list[str]:
    """Every argument difference between two consecutive traces (parameter order); a change of a
    parameter in ``bound`` (one the ``wraps`` wrapper binds) says that the call did not pass it."""
    changes: list[str] = []
    names = list(previous.args) + [n for n in trace.args if n not in previous.args]
    bound = set(bound)
    for name in names:
        found = value_changes(name, previous.args.get(name), trace.args.get(name))
        if name in bound and found:
            found = [f"{change} (bound by the {wraps or 'wrapper'}, not passed by the call)" for change in found]
        changes += found
    if previous.nested != trace.nested:
        changes.append("traced inside another tf.function's trace" if trace.nested else "traced from eager code")
    if previous.via != trace.via:
        changes.append("traced by get_concrete_function()" if trace.via != "call" else "traced by a call")
    if not changes:
        changes.append("same arguments, different context (device, distribution strategy or SavedModel export)")
    return changes


def _arguments(trace: Trace) -> str:
    return ", ".join(f"{name}={_short(value)}" for name, value in trace.args.items()) or "(no arguments)"


# ---------------------------------------------------------------------------
# building and rendering


def function_report(function: FunctionTraces) -> FunctionReport:
    """The report for one function."""
    report = FunctionReport(
        file=function.file,
        qualname=function.qualname,
        firstlineno=function.firstlineno,
        calls=function.calls,
        traces=len(function.traces),
        total_traces=function.total_traces,
        retraces=function.retraces,
        reduce_retracing=function.reduce_retracing,
        has_input_signature=function.has_input_signature,
        trace_seconds=function.trace_seconds,
        retrace_seconds=function.retrace_seconds,
        variable_creation=function.variable_creation_traces,
        wraps=function.wraps,
        bound=list(function.bound) if function.wraps is not None else [],
    )
    if report.trace_seconds is not None:
        nested = 0.0
        for trace in function.traces:
            if trace.nested:
                nested = add_seconds(nested, trace.seconds)
        report.nested_seconds = nested
    previous: Trace | None = None
    for index, trace in enumerate(function.traces, start=1):
        report.entries.append(
            TraceEntry(
                index=index,
                count=trace.count,
                nested=trace.nested,
                via=trace.via,
                arguments=_arguments(trace),
                changes=trace_changes(previous, trace, report.bound, report.wraps) if previous is not None else [],
                seconds=trace.seconds,
                variable_creation=trace.variable_creation,
            )
        )
        previous = trace
    per_line: dict[str, int] = {}  # calls on one line at different columns are one place to the reader
    for site in function.call_sites:
        where = location(site.file, site.line)
        per_line[where] = per_line.get(where, 0) + site.count
    report.called_from = [where + (f" (×{count})" if count > 1 else "") for where, count in per_line.items()]
    report.proofs = [proof_line(key, proof) for key, proof in function.proofs.items()]
    if function.wraps is not None:
        own_self = function.params[0] if function.wraps == "callable object" and function.params else None
        named = [name for name in function.bound if name != own_self]  # an object's self goes without saying
        bound = f" (it binds {', '.join(f'`{name}`' for name in named)})" if named else ""
        report.notes.append(
            f"a tf.function of a {function.wraps}{bound}, recorded at the code it calls, "
            f"`{function.qualname}`: no fix is made from these traces"
        )
    steady = {json.dumps(t.args, sort_keys=True) for t in function.traces if not t.nested}
    if len(function.traces) > 1 and len(steady) <= 1:
        report.notes.append(
            "every retrace happened while a calling tf.function was being traced (nested): once the caller's "
            "graph is built they cost nothing; fix the caller's retracing instead"
        )
    if report.variable_creation:
        report.notes.append(
            f"{plural(report.variable_creation, 'trace')} of the same signature again because the call created "
            "variables: TensorFlow traces a tf.function's first call with variable creation allowed, lifts the "
            "variables' initializers, then traces it once more without (not a retrace; once per tf.function object)"
        )
    repeated = [t for t in function.traces if t.count > 1]
    if repeated:
        if all(t.nested for t in repeated):
            report.notes.append(
                "identical traces repeated inside other tf.functions' traces: each trace of the caller traces it again"
            )
        else:
            report.notes.append(
                "identical traces repeated: the tf.function object is re-created (define it once, outside the loop "
                "or function that builds it) or the objects it is a method of are"
            )
    return report


MAX_CANDIDATE = 100  # characters of a candidate's description in the text report


def proof_line(key: str, proof: Proof) -> str:
    """``call_site alpha=float32: traced``; a failed proof quotes its error, one not run says why."""
    candidate = re.sub(r"\s+#[0-9a-f]+$", "", key)
    if len(candidate) > MAX_CANDIDATE:
        candidate = candidate[: MAX_CANDIDATE - 1] + "…"
    if proof.failed:
        return f"{candidate} → failed: {proof.error or 'no error recorded'}"
    if proof.result == "not_run":
        return f"{candidate} → not run" + (f": {proof.note}" if proof.note else "")
    return f"{candidate} → {proof.result}"


def build_report(trace_set: TraceSet | Iterable[FunctionTraces]) -> list[FunctionReport]:
    """One FunctionReport per function, most costly first (most traces, then most calls)."""
    reports = [function_report(f) for f in trace_set]
    reports.sort(key=lambda r: (-r.total_traces, -r.traces, -r.calls, r.file, r.firstlineno, r.qualname))
    return reports



def recorded_line(trace_set: TraceSet) -> str:
    """``recorded 4 traces of 1 function``: the same totals as the report's last line."""
    traces = sum(f.total_traces for f in trace_set)
    return f"recorded {plural(traces, 'trace')} of {plural(len(trace_set), 'function')}"


def format_seconds(seconds: float) -> str:
    """``0.01234`` -> ``0.012 s`` (milliseconds are the resolution that matters for tracing)."""
    return f"{seconds:.3f} s"


def _share(part: float, whole: float) -> str:
    return f"{round(100 * part / whole)}%" if whole > 0 else "0%"


def _time_line(total: float, retraces: float, show_retraces: bool) -> str:
    text = f"{format_seconds(total)} in traced calls"
    if show_retraces:
        text += f", {format_seconds(retraces)} ({_share(retraces, total)}) in retraces"
    return text


def render_text(reports: list[FunctionReport]) -> str:
    """The plain-text report."""
    if not reports:
        return "no tf.function traces recorded\n"
    lines: list[str] = []
    for report in reports:
        flags = []
        if report.reduce_retracing:
            flags.append("reduce_retracing")
        if report.has_input_signature:
            flags.append("input_signature")
        traces = plural(report.total_traces, "trace")
        if report.total_traces != report.traces:
            detail = [f"{report.traces} distinct"]
            if report.variable_creation:
                detail.append(f"{report.variable_creation} variable-creation")
            traces += f" ({', '.join(detail)})"
        wrapped = f" (via {report.wraps})" if report.wraps else ""
        header = (f"{location(report.file, report.firstlineno)} {report.qualname}{wrapped}: "
                  f"{plural(report.calls, 'call')}, {traces}")
        if report.retraces:
            header += f", {plural(report.retraces, 'retrace')}"
        if flags:
            header += f" [{', '.join(flags)}]"
        lines.append(header)
        for entry in report.entries:
            tags = []
            if entry.count > 1:
                tags.append(f"×{entry.count}")
            if entry.variable_creation:
                tags.append(f"+{entry.variable_creation} variable-creation")
            if entry.nested:
                tags.append("nested")
            if entry.via != "call":
                tags.append(entry.via)
            tag = f" ({', '.join(tags)})" if tags else ""
            lines.append(f"  trace {entry.index}{tag}: {entry.arguments}")
            for change in entry.changes:
                lines.append(f"    {change}")
        for note in report.notes:
            lines.append(f"  note: {note}")
        if report.called_from:
            lines.append(f"  called from: {', '.join(report.called_from)}")
        for proof in report.proofs:
            lines.append(f"  proof: {proof}")
        if report.trace_seconds is not None:
            retrace_seconds = report.retrace_seconds or 0.0
            lines.append(f"  time: {_time_line(report.trace_seconds, retrace_seconds, report.retraces > 0)}")
        lines.append("")
    total = sum(r.total_traces for r in reports)
    retraces = sum(r.retraces for r in reports)
    lines.append(f"{plural(len(reports), 'function')}, {plural(total, 'trace')}, {plural(retraces, 'retrace')}")
    timed = [r for r in reports if r.trace_seconds is not None]
    if timed:
        seconds = sum(r.trace_seconds or 0.0 for r in timed)
        retrace_seconds = sum(r.retrace_seconds or 0.0 for r in timed)
        nested_seconds = sum(r.nested_seconds or 0.0 for r in timed)
        line = f"time in traced calls: {format_seconds(seconds)}, {format_seconds(retrace_seconds)}"
        line += f" ({_share(retrace_seconds, seconds)}) in retraces"
        if nested_seconds > 0:
            line += (
                f"; {format_seconds(nested_seconds)} of it in nested traces, "
                "which their callers' traced calls also include"
            )
        if len(timed) < len(reports):
            line += f" ({len(reports) - len(timed)} of {plural(len(reports), 'function')} without recorded time)"
        lines.append(line)
    return "\n".join(lines) + "\n"


def render_json(reports: list[FunctionReport]) -> str:
    """The JSON report: ``{"functions": [...]}`` in report order."""
    return json.dumps({"functions": [asdict(r) for r in reports]}, indent=2, ensure_ascii=False) + "\n"


def render_report(reports: list[FunctionReport] | TraceSet, fmt: str = "text") -> str:
    """Render ``reports`` (or a TraceSet, reported first) as ``"text"`` or ``"json"``."""
    if isinstance(reports, TraceSet):
        reports = build_report(reports)
    if fmt == "text":
        return render_text(reports)
    if fmt == "json":
        return render_json(reports)
    raise ValueError(f"unknown report format {fmt!r} (expected 'text' or 'json')")
