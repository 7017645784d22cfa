"""tf.functions of a ``functools.partial`` or a callable object, recorded with real TensorFlow.

They have no code object of their own; the recorder finds the code TensorFlow
traces (the partial's function, ``type(obj).__call__``) and records its traces
there, marked ``wraps``.  One recorded program (``retrace-fix record``, module
scope) covers: a ``tf.function(partial(...))`` built per call (tensorflow/addons#1830),
a callable object, a partial whose bound keyword differs per call and, at the
same ``def`` as a partial, a plain ``tf.function(f)``.  Counts are checked
against TensorFlow's own ``experimental_get_tracing_count()``, summed over the
Function objects as ``benchmarks/fidelity.py`` does; then ``report`` and
``--diff --traces`` read the file.
"""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("tensorflow")  # skipped, not an error, where TensorFlow is not installed

from retrace_fix.commands.record import run_record
from retrace_fix.traces.model import TraceSet, load_trace_file, save_trace_file
from retrace_fix.traces.retrace_report import build_report, render_report
from tests.support.cli_runner import run_cli

pytestmark = pytest.mark.tf

PROGRAM = '''\
import functools
import json

import tensorflow as tf


def total(x, y, axis=0):
    return tf.reduce_sum(x, axis=axis) * y


def pick(x, y, axis=0):
    return tf.reduce_max(x, axis=axis) * y


class Scale:
    def __init__(self, k):
        self.k = k

    def __call__(self, x, n):
        return x * self.k * n


plain = tf.function(total)


def per_call(x):
    step = tf.function(functools.partial(total, axis=1))
    step(x, 2)
    return step


def per_axis(x, axis):
    step = tf.function(functools.partial(pick, axis=axis))
    step(x, 3)
    return step


def main():
    x = tf.ones([2, 3])
    kept = {"partial": [], "object": [], "axis": []}  # the Functions, to read TensorFlow's counts at the end
    for _ in range(6):
        kept["partial"].append(per_call(x))
    scale = Scale(2.0)
    for n in range(6):
        step = tf.function(scale)
        step(x, n)
        kept["object"].append(step)
    for axis in (0, 1, 0):
        kept["axis"].append(per_axis(x, axis))
    plain(tf.ones([2, 3]), 1)
    plain(tf.ones([4, 3]), 1)
    counts = {name: sum(f.experimental_get_tracing_count() for f in functions) for name, functions in kept.items()}
    counts["plain"] = plain.experimental_get_tracing_count()
    with open("counts.json", "w") as handle:
        json.dump(counts, handle)


main()
'''


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """PROGRAM recorded once: (project root, TraceSet, TensorFlow's counts)."""
    project = tmp_path_factory.mktemp("proj")
    (project / ".git").mkdir()
    (project / "prog.py").write_text(PROGRAM)
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(project)
        patch.delenv("RETRACE_FIX_PROJECT_ROOT", raising=False)
        assert run_record([sys.executable, "prog.py"], None) == 0
    trace_set = load_trace_file(str(project / ".retrace" / "traces.json"))
    return project, trace_set, json.loads((project / "counts.json").read_text())


def by_name(trace_set) -> dict:
    return {(f.qualname, f.wraps): f for f in trace_set}


def test_per_call_partial_records_what_tensorflow_traced(recorded):
    _, trace_set, counts = recorded
    function = by_name(trace_set)[("total", "functools.partial")]
    assert (function.file, function.firstlineno, function.params, function.bound) == (
        "prog.py", 7, ["x", "y", "axis"], ["axis"])
    assert function.total_traces == counts["partial"] == 6
    assert (len(function.traces), function.recreated, function.calls) == (1, 5, 6)
    assert function.traces[0].args["axis"] == {"kind": "python", "type": "int", "value": 1}
    assert [(s.file, s.line) for s in function.call_sites] == [("prog.py", 28)]
    assert function.proofs == {}  # no fix edits a partial's def: nothing to prove


def test_callable_object_records_what_tensorflow_traced(recorded):
    _, trace_set, counts = recorded
    function = by_name(trace_set)[("Scale.__call__", "callable object")]
    assert (function.firstlineno, function.params, function.bound) == (19, ["self", "x", "n"], ["self"])
    assert function.total_traces == counts["object"] == 6
    assert [t.args["n"]["value"] for t in function.traces] == [0, 1, 2, 3, 4, 5]
    assert {t.args["self"]["type"] for t in function.traces} == {"Scale"}  # the object, as a method's self


def test_every_count_is_tensorflows(recorded):
    project, trace_set, counts = recorded
    assert sum(f.total_traces for f in trace_set) == sum(counts.values()) == 6 + 6 + 3 + 2
    assert by_name(trace_set)[("total", None)].total_traces == counts["plain"] == 2
    assert json.loads((project / ".retrace" / "traces.json").read_text())["version"] == 3


def test_report_names_the_bound_keyword_that_changed(recorded):
    _, trace_set, counts = recorded
    assert by_name(trace_set)[("pick", "functools.partial")].total_traces == counts["axis"] == 3
    text = render_report(build_report(trace_set), "text")
    expected = """\
        prog.py:11 pick (via functools.partial): 3 calls, 3 traces (2 distinct), 1 retrace
          trace 1 (×2): x=float32(2, 3), y=3, axis=0
          trace 2: x=float32(2, 3), y=3, axis=1
            `axis`: Python int 0 → 1 (bound by the functools.partial, not passed by the call)
          note: a tf.function of a functools.partial (it binds `axis`), recorded at the code it calls, `pick`: no fix is made from these traces
        """
    assert textwrap.dedent(expected) in text
    assert "    `n`: Python int 0 → 1\n" in text  # the callable object's argument, passed by the call
    assert text.splitlines()[-2] == "4 functions, 17 traces, 7 retraces"


def test_diff_with_the_traces_edits_only_the_real_tf_function(recorded, tmp_path):
    """The partials' records sit at ``def total``/``def pick``, which are no tf.functions: the fix
    run is the same with or without them, and with only them it changes nothing."""
    project, trace_set, _ = recorded
    plain_only = TraceSet(tensorflow_version=trace_set.tensorflow_version)
    wrapped_only = TraceSet(tensorflow_version=trace_set.tensorflow_version)
    for function in trace_set:
        (wrapped_only if function.wraps else plain_only).add(function)
    save_trace_file(plain_only, tmp_path / "plain.json")
    save_trace_file(wrapped_only, tmp_path / "wrapped.json")
    every = run_cli("--diff", "prog.py", "--traces", ".retrace/traces.json", cwd=project)
    plain = run_cli("--diff", "prog.py", "--traces", tmp_path / "plain.json", cwd=project)
    wrapped = run_cli("--diff", "prog.py", "--traces", tmp_path / "wrapped.json", cwd=project)
    none = run_cli("--diff", "prog.py", cwd=project)
    assert every.outcome == plain.outcome
    assert (every.returncode, every.stdout) == (1, "\n".join([
        "--- a/prog.py",
        "+++ b/prog.py",
        "@@ -20,7 +20,10 @@",
        "         return x * self.k * n",
        " ",
        " ",
        "-plain = tf.function(total)",
        "+plain = tf.function(total, input_signature=[",
        "+    tf.TensorSpec(shape=[None, 3], dtype=tf.float32),",
        "+    tf.TensorSpec(shape=[], dtype=tf.float32),",
        "+])",
        " ",
        " ",
        " def per_call(x):",
        "",
    ]))  # the one recorded tf.function, from its own traces only
    assert (wrapped.returncode, wrapped.stdout) == (none.returncode, none.stdout) == (0, "")
    assert "matched nothing" not in every.stderr + wrapped.stderr
    assert (project / "prog.py").read_text() == PROGRAM
