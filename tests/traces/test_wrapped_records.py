"""Records of tf.functions that wrap a ``functools.partial`` or a callable object, without TensorFlow.

:func:`~retrace_fix.traces.function_stats.unwrap_callable` finds the code such a
tf.function traces; the trace file keeps its record apart (``wraps``, ``bound``,
format version 3), ``report`` says which changes were bound values, and no
codemod takes the wrapped ``def`` for a tf.function.  The same with real
TensorFlow: ``tests/traces/test_wrapped_callables_tf.py``.
"""

from __future__ import annotations

import functools
import json

import pytest

from retrace_fix.codemods._call_site_decision import wants_files
from retrace_fix.traces.function_stats import FunctionStats, unwrap_callable
from retrace_fix.traces.model import (
    BASE_VERSION,
    VERSION,
    CallSite,
    FunctionTraces,
    Trace,
    TraceFileError,
    TraceSet,
    load_trace_file,
    save_trace_file,
)
from retrace_fix.traces.retrace_report import build_report, render_report
from tests.support.cli_runner import run_cli


def f(x, y, axis=0, scale=1.0):
    return x


class Scale:
    def __init__(self, k):
        self.k = k

    def __call__(self, x, n):
        return x

    def method(self, x, k):
        return x

    bound_k = functools.partialmethod(method, k=3)


def code_of(function):
    return function.__code__


# --------------------------------------------------------------------------- unwrapping


def test_partial_with_a_bound_keyword():
    found = unwrap_callable(functools.partial(f, axis=1))
    assert (found.code, found.wraps, found.bound, found.instance) == (f.__code__, "functools.partial", ["axis"], None)


def test_partial_with_bound_positional_arguments():
    found = unwrap_callable(functools.partial(f, "x", "y"))
    assert (found.code, found.bound) == (f.__code__, ["x", "y"])


def test_nested_partials_bind_what_each_binds():
    def logged(*args, **kwargs):  # Python flattens a partial of a partial: a wrapper keeps them apart
        return inner(*args, **kwargs)

    inner = functools.partial(f, "x", scale=2.0)
    functools.update_wrapper(logged, inner)
    found = unwrap_callable(functools.partial(logged, axis=1))
    assert (found.code, found.wraps, found.bound) == (f.__code__, "functools.partial", ["x", "axis", "scale"])


def test_callable_object_is_its_types_call_with_self_bound():
    scale = Scale(2)
    found = unwrap_callable(scale)
    assert (found.code, found.wraps, found.bound) == (Scale.__call__.__code__, "callable object", ["self"])
    assert found.instance is scale


def test_partial_of_a_callable_object():
    scale = Scale(2)
    found = unwrap_callable(functools.partial(scale, n=1))
    assert (found.code, found.wraps, found.bound, found.instance) == (
        Scale.__call__.__code__, "functools.partial", ["self", "n"], scale)


def test_partialmethod_through_an_instance_and_through_the_class():
    scale = Scale(2)
    through_instance = unwrap_callable(scale.bound_k)  # a partial of the bound method
    assert (through_instance.code, through_instance.wraps, through_instance.bound, through_instance.instance) == (
        Scale.method.__code__, "functools.partial", ["self", "k"], scale)
    through_class = unwrap_callable(Scale.bound_k)  # the call passes self
    assert (through_class.code, through_class.wraps, through_class.bound, through_class.instance) == (
        Scale.method.__code__, "functools.partialmethod", ["k"], None)


def test_wrapped_chains_are_followed_as_tensorflow_does():
    @functools.wraps(f)
    def logged(*args, **kwargs):
        return f(*args, **kwargs)

    found = unwrap_callable(functools.partial(logged, axis=1))
    assert (found.code, found.bound) == (f.__code__, ["axis"])


def test_nothing_wrapped_or_nothing_with_code():
    class Hostile:
        def __getattribute__(self, name):
            raise RuntimeError(name)

    class Cycle:
        def __call__(self):
            pass

    cycle = Cycle()
    cycle.__wrapped__ = cycle  # a __wrapped__ chain that never ends
    for value in (f, Scale(1).method, Scale, len, functools.partial(len), object(), None, Hostile(),
                  functools.partial(cycle)):
        assert unwrap_callable(value) is None, value
    assert unwrap_callable(functools.partial(f)).bound == []


class FakeFunction:
    """What FunctionStats reads of TensorFlow's Function: the Python callable and the call-stats key."""

    def __init__(self, python_function):
        self._python_function = self.python_function = python_function
        self._key_for_call_stats = python_function  # TF's key when there is no code object


def test_stats_of_a_partial_and_of_a_callable_object():
    stats = FunctionStats(FakeFunction(functools.partial(f, axis=1)))
    code = f.__code__
    assert stats.origin == (code.co_filename, "f", code.co_firstlineno, "functools.partial")
    assert (stats.params, stats.bound, stats.wraps, stats.is_method) == (
        ["x", "y", "axis", "scale"], ["axis"], "functools.partial", False)
    stats = FunctionStats(FakeFunction(Scale(2)))
    assert stats.origin[1:] == ("Scale.__call__", Scale.__call__.__code__.co_firstlineno, "callable object")
    assert (stats.bound, stats.is_method) == (["self"], True)  # its self is recorded as an argument


def test_stats_of_a_plain_function_are_unchanged():
    function = FakeFunction(f)
    function._key_for_call_stats = f.__code__
    stats = FunctionStats(function)
    assert (stats.origin, stats.wraps, stats.bound) == ((f.__code__.co_filename, "f", f.__code__.co_firstlineno), None, [])


# --------------------------------------------------------------------------- the trace file

X = {"kind": "tensor", "shape": [2, 3], "dtype": "float32"}


def py(value):
    return {"kind": "python", "type": "int", "value": value}


def record(wraps=None, bound=(), axes=(1,), qualname="f", calls=None) -> FunctionTraces:
    function = FunctionTraces(file="m.py", qualname=qualname, firstlineno=4, name=qualname,
                              params=["x", "y", "axis"], calls=calls if calls is not None else len(axes),
                              wraps=wraps, bound=list(bound))
    for axis in axes:
        function.add_trace(Trace({"x": X, "y": py(2), "axis": py(axis)}))
    return function


def test_a_wrapped_record_is_apart_from_the_plain_one_at_the_same_def(tmp_path):
    plain, wrapped = record(axes=(0,)), record("functools.partial", ["axis"], axes=(1, 2))
    trace_set = TraceSet()
    trace_set.add(plain)
    trace_set.add(wrapped)
    assert [f.key for f in trace_set] == [("m.py", "f", 4), ("m.py", "f", 4, "functools.partial")]
    save_trace_file(trace_set, tmp_path / "t.json")
    data = json.loads((tmp_path / "t.json").read_text())
    assert data["version"] == VERSION == 3  # a version-2 reader would take the partial's def for a tf.function
    assert "wraps" not in data["functions"][0] and "bound" not in data["functions"][0]
    assert (data["functions"][1]["wraps"], data["functions"][1]["bound"]) == ("functools.partial", ["axis"])
    loaded = load_trace_file(str(tmp_path / "t.json"))
    assert [(f.key, f.bound, f.total_traces) for f in loaded] == [
        (("m.py", "f", 4), [], 1), (("m.py", "f", 4, "functools.partial"), ["axis"], 2)]
    merged = loaded.merge(loaded)
    assert [(f.total_traces, f.bound) for f in merged] == [(2, []), (4, ["axis"])]


def test_files_without_wrapped_records_stay_version_2(tmp_path):
    save_trace_file(TraceSet(functions={("m.py", "f", 4): record()}), tmp_path / "t.json")
    assert json.loads((tmp_path / "t.json").read_text())["version"] == BASE_VERSION == 2


def test_merging_unions_the_bound_names():
    a = record("functools.partial", ["axis"])
    b = record("functools.partial", ["y", "axis"], axes=(2,))
    assert a.merged(b).bound == ["axis", "y"]


@pytest.mark.parametrize(("field", "value", "message"), [
    ("bound", "axis", "functions[0].bound: expected a list"),
    ("bound", [1], "functions[0].bound: expected a list of strings"),
    ("wraps", "", "functions[0].wraps: expected a non-empty string or null"),
    ("wraps", "functools\x1b.partial", "functions[0].wraps: control character in"),
    ("wraps", 3, "functions[0].wraps: expected a string or null"),
])
def test_bad_wraps_or_bound_is_a_clear_error(tmp_path, field, value, message):
    item = record("functools.partial", ["axis"]).to_json()
    item[field] = value
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"format": "retrace-fix-traces", "version": 3, "functions": [item]}))
    with pytest.raises(TraceFileError) as info:
        load_trace_file(str(path))
    assert str(info.value).startswith(f"{path}: invalid trace file: {message}")


def test_find_leaves_wrapped_records_out_unless_asked():
    trace_set = TraceSet()
    for function in (record(), record("functools.partial", ["axis"]), record("callable object", ["self"], qualname="C.__call__")):
        trace_set.add(function)
    assert [f.key for f in trace_set.find("m.py")] == [("m.py", "f", 4)]
    assert [f.key for f in trace_set.find("m.py", "f", 4)] == [("m.py", "f", 4)]
    assert trace_set.find("m.py", "C.__call__") == []
    assert len(trace_set.find("m.py", line=4, wrapped=True)) == 3


# --------------------------------------------------------------------------- consumers


def test_report_marks_the_record_and_its_bound_changes():
    text = render_report(build_report([record("functools.partial", ["axis"], axes=(1, 2))]), "text")
    assert text == "\n".join([
        "m.py:4 f (via functools.partial): 2 calls, 2 traces, 1 retrace",
        "  trace 1: x=float32(2, 3), y=2, axis=1",
        "  trace 2: x=float32(2, 3), y=2, axis=2",
        "    `axis`: Python int 1 → 2 (bound by the functools.partial, not passed by the call)",
        "  note: a tf.function of a functools.partial (it binds `axis`), recorded at the code it calls, `f`: "
        "no fix is made from these traces",
        "",
        "1 function, 2 traces, 1 retrace",
        "",
    ])
    rows = json.loads(render_report(build_report([record("functools.partial", ["axis"])]), "json"))["functions"]
    assert (rows[0]["wraps"], rows[0]["bound"]) == ("functools.partial", ["axis"])
    plain = json.loads(render_report(build_report([record(axes=(1, 2))]), "json"))["functions"][0]
    assert (plain["wraps"], plain["bound"]) == (None, [])
    assert "bound by" not in render_report(build_report([record(axes=(1, 2))]), "text")
    obj = record("callable object", ["self"], axes=(1, 2), qualname="C.__call__")
    obj.params = ["self", "x", "y", "axis"]
    assert "  note: a tf.function of a callable object, recorded at the code it calls, `C.__call__`: " \
        "no fix is made from these traces\n" in render_report(build_report([obj]), "text")
    obj.params = []  # a hand-written file may have none
    assert "(it binds `self`)" in render_report(build_report([obj]), "text")


def test_call_site_consumers_skip_wrapped_records():
    """RTF005's pre-pass and RTF009 map a call's arguments onto ``params``: a partial's call passes fewer."""
    sites = [CallSite("run.py", 3, 4)]
    wrapped = record("functools.partial", ["axis"], axes=(1, 2))
    wrapped.call_sites = list(sites)
    plain = record(axes=(1, 2), qualname="g")
    plain.call_sites = list(sites)
    trace_set = TraceSet()
    trace_set.add(wrapped)
    assert wants_files(trace_set, ["m.py", "run.py"]) == set()
    trace_set.add(plain)
    assert wants_files(trace_set, ["m.py", "run.py"]) == {"m.py", "run.py"}


SOURCE = """\
import functools

import tensorflow as tf


def f(x, fn):
    return fn(x)


step = tf.function(functools.partial(f))


def run(x):
    for i in range(3):
        step(x, lambda t: t + i)
"""


def new_lambdas(wraps):
    """``step``'s record: a new function object for ``fn`` at every call from the loop."""
    function = {"file": "m.py", "qualname": "f", "firstlineno": 6, "name": "f", "params": ["x", "fn"], "calls": 3,
                "traces": [{"args": {"x": X, "fn": {"kind": "object", "type": "function", "id": i}}}
                           for i in (1, 2, 3)],
                "call_sites": [{"file": "m.py", "line": 15, "column": 8, "count": 3}]}
    if wraps:
        function.update(wraps=wraps, bound=[])
    return {"format": "retrace-fix-traces", "version": 3, "functions": [function]}


def test_the_fix_run_reads_nothing_into_a_wrapped_record(tmp_path):
    """The same record without ``wraps`` makes RTF009 bind the lambda at the recorded call site and says
    that it matched no tf.function; as a partial's record it is left alone, silently."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "m.py").write_text(SOURCE)
    for name, wraps in (("plain.json", None), ("wrapped.json", "functools.partial")):
        (tmp_path / name).write_text(json.dumps(new_lambdas(wraps)))
    plain = run_cli("--diff", "m.py", "--traces", "plain.json", cwd=tmp_path)
    assert "RTF009" in plain.stderr and "matched nothing" in plain.stderr  # what a wrapped record must not do
    assert run_cli("--diff", "m.py", "--traces", "wrapped.json", cwd=tmp_path).outcome == (
        0, "", "0 files would change, 0 fixes available, 0 diagnostics, 0 errors\n")
    assert (tmp_path / "m.py").read_text() == SOURCE


DECORATED = """\
import functools

import tensorflow as tf


@tf.function
def step(x, k):
    return x * k


def run(xs):
    for x in xs:
        step(x, 2)
    for k in range(3):
        tf.function(functools.partial(step, k=k))(xs[0])
"""


def partial_of_step(wraps):
    """The partial's record: at ``@tf.function def step`` (the partial wraps that Function), ``k``
    bound per tf.function, shapes varying, a new tf.function per iteration."""
    function = {"file": "m.py", "qualname": "step", "firstlineno": 6, "name": "step", "params": ["x", "k"],
                "calls": 3, "recreated": 2, "call_sites": [{"file": "m.py", "line": 15, "column": 8, "count": 3}],
                "traces": [{"args": {"x": {"kind": "tensor", "shape": [n, 3], "dtype": "float32"}, "k": py(k)}}
                           for n, k in ((2, 0), (4, 1), (8, 2))]}
    if wraps:
        function.update(wraps=wraps, bound=["k"])
    return {"format": "retrace-fix-traces", "version": 3, "functions": [function]}


def test_a_decorated_tf_function_at_the_partials_position_is_not_fixed_from_its_traces(tmp_path):
    """RTF003/RTF004 (signature plans), RTF005, RTF006 (trace evidence) and RTF001/RTF106 look the
    tf.function at a position up with ``TraceSet.find``: a partial's record there is not its traces."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "m.py").write_text(DECORATED)
    for name, wraps in (("plain.json", None), ("wrapped.json", "functools.partial")):
        (tmp_path / name).write_text(json.dumps(partial_of_step(wraps)))
    plain = run_cli("--diff", "m.py", "--traces", "plain.json", "--unsafe-fixes", cwd=tmp_path)
    assert plain.returncode == 1 and "+@tf.function(input_signature=[" in plain.stdout  # what must not happen
    wrapped = run_cli("--diff", "m.py", "--traces", "wrapped.json", "--unsafe-fixes", cwd=tmp_path)
    alone = run_cli("--diff", "m.py", "--unsafe-fixes", cwd=tmp_path)
    assert (wrapped.returncode, wrapped.stdout) == (alone.returncode, alone.stdout) == (0, "")
    assert wrapped.stderr.splitlines() == [line for line in alone.stderr.splitlines() if not line.startswith("hint:")]
    assert "RTF006" in wrapped.stderr and "recorded run" not in wrapped.stderr  # no trace evidence from it
    assert (tmp_path / "m.py").read_text() == DECORATED


def test_the_plot_labels_a_wrapped_record():
    pytest.importorskip("matplotlib")
    from retrace_fix.traces.plot import plot_rows

    rows, _ = plot_rows(build_report([record("functools.partial", ["axis"], axes=(1, 2)), record(qualname="g")]))
    assert [row.label for row in rows] == ["f via functools.partial  (m.py:4)", "g  (m.py:4)"]
