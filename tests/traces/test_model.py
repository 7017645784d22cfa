"""The trace file model, merging, validation, the report's reasons, and the TF-free plumbing.

Nothing here imports TensorFlow (the subprocess checks assert it is not imported).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from retrace_fix.traces.model import (
    FORMAT,
    VERSION,
    BASE_VERSION,
    CallSite,
    FunctionTraces,
    Proof,
    Trace,
    TraceFileError,
    TraceSet,
    load_trace_file,
    load_trace_files,
    save_trace_file,
)
from retrace_fix.commands.record import run_record
from retrace_fix.traces.per_process import SITECUSTOMIZE_DIR
from retrace_fix.traces.retrace_report import build_report, render_report, trace_changes, value_changes
from tests.support.cli_runner import run_cli

REPO = Path(__file__).resolve().parents[2]


def tensor(*shape, dtype="float32"):
    return {"kind": "tensor", "shape": list(shape), "dtype": dtype}


def py(value):
    return {"kind": "python", "type": type(value).__name__, "value": value}


def obj(type_name, ident):
    return {"kind": "object", "type": type_name, "id": ident}


def function(file="pkg/train.py", qualname="train_step", line=10, calls=1, traces=(), **kw):
    return FunctionTraces(
        file=file,
        qualname=qualname,
        firstlineno=line,
        name=qualname.rsplit(".", 1)[-1],
        params=list(traces[0].args) if traces else [],
        calls=calls,
        traces=[t.copy() for t in traces],
        **kw,
    )


def trace_set(*functions, tf_version="2.21.0"):
    result = TraceSet(tensorflow_version=tf_version)
    for f in functions:
        result.add(f)
    return result


# ---------------------------------------------------------------------------
# save / load


def test_round_trip_is_deterministic_and_sorted(tmp_path):
    ts = trace_set(
        function(file="b.py", qualname="g", line=3, traces=[Trace({"x": tensor(2)})]),
        function(file="a.py", qualname="z", line=20, traces=[Trace({"x": py(1)}, count=2, nested=True)]),
        function(file="a.py", qualname="y", line=5, traces=[Trace({"m": obj("Net", 1)}, via="get_concrete_function")]),
    )
    path = tmp_path / "out" / "traces.json"
    save_trace_file(ts, path)
    data = json.loads(path.read_text())
    assert data["format"] == FORMAT and data["version"] == BASE_VERSION and data["tensorflow"] == "2.21.0"
    assert [(f["file"], f["firstlineno"]) for f in data["functions"]] == [("a.py", 5), ("a.py", 20), ("b.py", 3)]
    assert list(data["functions"][0]) == [
        "file", "qualname", "firstlineno", "name", "params", "calls",
        "reduce_retracing", "has_input_signature", "traces", "call_sites", "proofs",
    ]  # fmt: skip
    assert data["functions"][1]["traces"] == [{"args": {"x": py(1)}, "count": 2, "nested": True, "via": "call"}]
    loaded = load_trace_file(str(path))
    assert loaded == ts
    again = tmp_path / "again.json"
    save_trace_file(loaded, again)
    assert again.read_bytes() == path.read_bytes()
    assert sorted(p.name for p in tmp_path.joinpath("out").iterdir()) == ["traces.json"]  # no temp files left


def test_save_replaces_atomically_and_keeps_old_file_on_failure(tmp_path, monkeypatch):
    path = tmp_path / "t.json"
    save_trace_file(trace_set(), path)
    before = path.read_bytes()

    def boom(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError):
        save_trace_file(trace_set(function(traces=[Trace({"x": tensor(1)})])), path)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["t.json"]


def test_retraces_and_total_traces():
    f = function(traces=[Trace({"x": tensor(1)}, count=3), Trace({"x": tensor(2)})])
    assert f.retraces == 1 and f.total_traces == 4 and f.key == ("pkg/train.py", "train_step", 10)
    assert function().retraces == 0


def test_variable_creation_traces_count_as_tensorflow_counts_them_but_are_no_retrace(tmp_path):
    """A first call that created variables: TF traced it twice (experimental_get_tracing_count() 2)."""
    lazy = Trace({"x": tensor(4)}, count=2, variable_creation=2)  # two layer objects, each traced twice
    f = function(calls=5, traces=[lazy, Trace({"x": tensor(8)})])
    assert (f.total_traces, f.retraces, f.variable_creation_traces) == (5, 1, 2)
    path = tmp_path / "t.json"
    save_trace_file(trace_set(f), path)
    data = json.loads(path.read_text())
    assert data["version"] == BASE_VERSION == 2  # an optional key: no new format version
    assert [t.get("variable_creation") for t in data["functions"][0]["traces"]] == [2, None]
    (loaded,) = load_trace_file(str(path))
    assert loaded.traces == f.traces and loaded.total_traces == 5
    merged = next(iter(trace_set(f).merge(trace_set(function(traces=[Trace({"x": tensor(4)}, variable_creation=1)])))))
    assert (merged.traces[0].count, merged.traces[0].variable_creation, merged.total_traces) == (3, 3, 7)
    del data["functions"][0]["traces"][0]["variable_creation"]  # a file written before the key: none
    path.write_text(json.dumps(data))
    (old,) = load_trace_file(str(path))
    assert (old.total_traces, old.variable_creation_traces) == (3, 0)
    text = render_report(build_report([f]), "text")
    assert "pkg/train.py:10 train_step: 5 calls, 5 traces (2 distinct, 2 variable-creation), 1 retrace" in text
    assert "  trace 1 (×2, +2 variable-creation): x=float32(4,)" in text
    assert "because the call created variables" in text


# ---------------------------------------------------------------------------
# merge


def test_merge_sums_calls_dedupes_traces_and_keeps_first_seen_order(tmp_path):
    a = trace_set(
        function(calls=5, traces=[Trace({"x": tensor(16)}), Trace({"x": tensor(32)}, count=2)]),
        function(file="only_a.py", traces=[Trace({"n": py(1)})]),
    )
    b = trace_set(
        function(
            calls=7,
            traces=[Trace({"x": tensor(8)}), Trace({"x": tensor(32)}), Trace({"x": tensor(32)}, nested=True)],
            reduce_retracing=True,
        ),
        tf_version="2.15.1",
    )
    save_trace_file(a, tmp_path / "a.json")
    save_trace_file(b, tmp_path / "b.json")
    merged = load_trace_files([str(tmp_path / "a.json"), str(tmp_path / "b.json")])
    assert merged.tensorflow_version == "2.21.0"
    assert len(merged) == 2
    f = merged.functions[("pkg/train.py", "train_step", 10)]
    assert f.calls == 12
    assert f.reduce_retracing is True
    assert [(t.args["x"]["shape"], t.count, t.nested) for t in f.traces] == [
        ([16], 1, False),
        ([32], 3, False),
        ([8], 1, False),
        ([32], 1, True),
    ]
    assert merged == a.merge(b)
    # merging does not modify its inputs
    assert a.functions[("pkg/train.py", "train_step", 10)].calls == 5
    assert [t.count for t in a.functions[("pkg/train.py", "train_step", 10)].traces] == [1, 2]


def test_identical_traces_in_one_file_are_folded():
    data = trace_set(function(traces=[Trace({"x": tensor(1)})])).to_json()
    data["functions"][0]["traces"].append({"args": {"x": tensor(1)}, "count": 4, "nested": False, "via": "call"})
    data["functions"].append(dict(data["functions"][0], calls=2))
    ts = TraceSet.from_json(data)
    f = ts.functions[("pkg/train.py", "train_step", 10)]
    assert f.calls == 3 and [t.count for t in f.traces] == [10]


def test_load_trace_files_of_nothing_is_empty():
    assert load_trace_files([]) == TraceSet()


# ---------------------------------------------------------------------------
# find


def test_find_by_file_qualname_and_line():
    ts = trace_set(
        function(file="pkg/m.py", qualname="Trainer.step", line=12),
        function(file="pkg/m.py", qualname="make.<locals>.f", line=30),
        function(file="pkg/other.py", qualname="Trainer.step", line=12),
    )
    assert [f.qualname for f in ts.find("pkg/m.py")] == ["Trainer.step", "make.<locals>.f"]
    assert [f.firstlineno for f in ts.find("./pkg/m.py", qualname="Trainer.step")] == [12]
    assert [f.qualname for f in ts.find("pkg\\m.py", line=30)] == ["make.<locals>.f"]
    assert [f.firstlineno for f in ts.find("pkg/m.py", "Trainer.step", 12)] == [12]
    # the lines moved since recording: the qualname still finds it
    assert [f.firstlineno for f in ts.find("pkg/m.py", "Trainer.step", 14)] == [12]
    assert ts.find("pkg/m.py", "missing") == [] and ts.find("nope.py") == []


# ---------------------------------------------------------------------------
# errors


def write(tmp_path, text, name="traces.json"):
    path = tmp_path / name
    path.write_text(text) if isinstance(text, str) else path.write_bytes(text)
    return str(path)


def test_corrupt_json_names_file_and_line(tmp_path):
    path = write(tmp_path, '{\n  "format": "retrace-fix-traces",\n  "version": 1,,\n}')
    with pytest.raises(TraceFileError) as info:
        load_trace_files([path])
    assert str(info.value) == f"{path}: invalid JSON at line 3: Expecting property name enclosed in double quotes"


@pytest.mark.parametrize(
    "content",
    ['{"name": "left-pad", "version": "1.0.0"}', "[1, 2, 3]", '"retrace-fix-traces"', b"\x89PNG\r\n\x1a\n\x00\xff"],
)
def test_foreign_file_is_not_a_trace_file(tmp_path, content):
    path = write(tmp_path, content)
    with pytest.raises(TraceFileError) as info:
        load_trace_file(path)
    assert str(info.value).startswith(f"{path}: not a retrace-fix trace file")


def test_newer_version_is_a_clear_error(tmp_path):
    path = write(tmp_path, json.dumps({"format": FORMAT, "version": VERSION + 1, "functions": [], "new_field": {}}))
    with pytest.raises(TraceFileError) as info:
        load_trace_file(path)
    assert str(info.value) == f"{path}: format version {VERSION + 1} is newer than this retrace-fix supports ({VERSION})"


@pytest.mark.parametrize("version", [0, "1", None, True])
def test_invalid_version(tmp_path, version):
    path = write(tmp_path, json.dumps({"format": FORMAT, "version": version, "functions": []}))
    with pytest.raises(TraceFileError, match="invalid format version"):
        load_trace_file(path)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: d.pop("functions"), "functions: expected a list"),
        (lambda d: d["functions"][0].pop("qualname"), "functions[0]: missing 'qualname'"),
        (lambda d: d["functions"][0].update(file="/home/me/pkg/train.py"), "functions[0].file: expected a path relative"),
        (lambda d: d["functions"][0].update(firstlineno="10"), "functions[0].firstlineno: expected an integer"),
        (lambda d: d["functions"][0].update(calls=True), "functions[0].calls: expected an integer"),
        (lambda d: d["functions"][0]["traces"][0].update(via="magic"), "functions[0].traces[0].via: expected one of"),
        (lambda d: d["functions"][0]["traces"][0].update(count=0), "functions[0].traces[0].count: expected a positive"),
        (
            lambda d: d["functions"][0]["traces"][0]["args"].update(x={"kind": "quantum"}),
            "functions[0].traces[0].args.x: unknown value kind 'quantum'",
        ),
        (
            lambda d: d["functions"][0]["traces"][0]["args"].update(x=tensor("16")),
            "functions[0].traces[0].args.x.shape: expected a list of integers/nulls",
        ),
        (
            lambda d: d["functions"][0]["traces"][0]["args"].update(x={"kind": "list", "items": [{"kind": "object"}]}),
            "functions[0].traces[0].args.x[0]: missing 'type'",
        ),
        (lambda d: d["functions"][0]["traces"][0].update(seconds=-0.5), "functions[0].traces[0].seconds: expected a non"),
        (lambda d: d["functions"][0]["traces"][0].update(seconds=float("nan")), "functions[0].traces[0].seconds: expected a non"),
        (lambda d: d["functions"][0]["traces"][0].update(seconds="0.5"), "functions[0].traces[0].seconds: expected an integer or a number"),
        (lambda d: d["functions"][0]["traces"][0].update(seconds=True), "functions[0].traces[0].seconds: expected an integer or a number"),
        (lambda d: d["functions"][0]["traces"][0].update(variable_creation=-1), "functions[0].traces[0].variable_creation: expected a non"),
        (lambda d: d["functions"][0]["traces"][0].update(variable_creation=1.0), "functions[0].traces[0].variable_creation: expected an integer"),
    ],
)
def test_invalid_structure_points_into_the_file(tmp_path, edit, message):
    data = trace_set(function(traces=[Trace({"x": tensor(16, 50)})])).to_json()
    edit(data)
    path = write(tmp_path, json.dumps(data))
    with pytest.raises(TraceFileError) as info:
        load_trace_file(path)
    assert str(info.value).startswith(f"{path}: invalid trace file: {message}")
    assert "\n" not in str(info.value)


def test_missing_file(tmp_path):
    path = str(tmp_path / "nope.json")
    with pytest.raises(TraceFileError) as info:
        load_trace_files([path])
    assert str(info.value) == f"{path}: cannot read: No such file or directory"


def test_every_value_kind_validates():
    args = {
        "t": {"kind": "tensor", "shape": None, "dtype": "float32"},
        "r": {"kind": "ragged", "shape": [2, None], "dtype": "int32", "ragged_rank": 1, "row_splits_dtype": "int64"},
        "s": {"kind": "sparse", "shape": [None, 4], "dtype": "float32"},
        "v": {"kind": "variable", "shape": [], "dtype": "float32", "trainable": True},
        "n": {"kind": "python", "type": "NoneType", "value": None},
        "nan": {"kind": "python", "type": "float", "value": "nan"},
        "o": obj("Sequential", 1),
        "l": {"kind": "list", "items": [py(1), {"kind": "tuple", "items": []}]},
        "d": {"kind": "dict", "items": {"k": py("s")}},
        "p": {"kind": "namedtuple", "type": "Point", "items": {"x": py(1.5)}},
        "ds": {"kind": "other", "type": "DatasetSpec", "repr": "DatasetSpec(...)"},
    }
    data = trace_set(function(traces=[Trace(args)])).to_json()
    assert TraceSet.from_json(json.loads(json.dumps(data))).functions[("pkg/train.py", "train_step", 10)].traces[0].args == args


# ---------------------------------------------------------------------------
# report


@pytest.mark.parametrize(
    ("name", "old", "new", "expected"),
    [
        ("X", tensor(16, 50), tensor(32, 50), ["`X`: shape (16, 50) → (32, 50)"]),
        ("X", tensor(16), tensor(None), ["`X`: shape (16,) → (None,)"]),
        ("X", tensor(3, 4), {"kind": "tensor", "shape": None, "dtype": "float32"}, ["`X`: shape (3, 4) → <unknown rank>"]),
        ("num_steps", py(10), py(20), ["`num_steps`: Python int 10 → 20"]),
        ("mode", py("a"), py("b"), ["`mode`: Python str 'a' → 'b'"]),
        ("flag", py(None), py(2.5), ["`flag`: Python NoneType None → Python float 2.5"]),
        ("x", tensor(2, dtype="int32"), tensor(2, dtype="float32"), ["`x`: dtype int32 → float32"]),
        (
            "x",
            tensor(2, dtype="int32"),
            tensor(3, dtype="float32"),
            ["`x`: dtype int32 → float32", "`x`: shape (2,) → (3,)"],
        ),
        ("model", obj("Sequential", 1), obj("Sequential", 2), ["`model`: new object of type Sequential"]),
        ("cfg", {"kind": "list", "items": [py(1), py(2)]}, {"kind": "list", "items": [py(1), py(2), py(3)]},
         ["`cfg`: list length 2 → 3"]),
        ("cfg", {"kind": "tuple", "items": [py(1), tensor(2)]}, {"kind": "tuple", "items": [py(1), tensor(3)]},
         ["`cfg[1]`: shape (2,) → (3,)"]),
        ("opts", {"kind": "dict", "items": {"a": py(1)}}, {"kind": "dict", "items": {"a": py(1), "b": py(2)}},
         ["`opts`: dict keys ['a'] → ['a', 'b']"]),
        ("opts", {"kind": "dict", "items": {"lr": py(0.1)}}, {"kind": "dict", "items": {"lr": py(0.2)}},
         ["`opts['lr']`: Python float 0.1 → 0.2"]),
        ("p", {"kind": "namedtuple", "type": "P", "items": {"x": tensor(1)}},
         {"kind": "namedtuple", "type": "P", "items": {"x": tensor(2)}}, ["`p.x`: shape (1,) → (2,)"]),
        ("x", py(3), tensor(), ["`x`: Python int 3 → tensor float32 ()"]),
        ("v", {"kind": "variable", "shape": [2], "dtype": "float32", "trainable": True},
         {"kind": "variable", "shape": [2], "dtype": "float32", "trainable": False}, ["`v`: trainable True → False"]),
        ("x", tensor(1), tensor(1), []),
    ],
)  # fmt: skip
def test_value_changes(name, old, new, expected):
    assert value_changes(name, old, new) == expected


def test_trace_changes_for_added_and_removed_arguments_and_context():
    a = Trace({"x": tensor(1), "args_0": py(1)})
    b = Trace({"x": tensor(1), "k": py(2)})
    assert trace_changes(a, b) == [
        "`args_0`: argument no longer passed (was Python int 1)",
        "`k`: new argument, Python int 2",
    ]
    assert trace_changes(a, Trace(a.args, nested=True)) == ["traced inside another tf.function's trace"]
    assert trace_changes(a, Trace(a.args, via="get_concrete_function")) == ["traced by get_concrete_function()"]


def sample_set():
    step = function(
        file="train.py",
        qualname="Trainer.step",
        line=12,
        calls=40,
        traces=[
            Trace({"self": obj("Trainer", 1), "X": tensor(16, 50), "num_steps": py(10)}),
            Trace({"self": obj("Trainer", 1), "X": tensor(32, 50), "num_steps": py(10)}),
            Trace({"self": obj("Trainer", 1), "X": tensor(32, 50), "num_steps": py(20)}),
        ],
    )
    once = function(file="eval.py", qualname="evaluate", line=3, calls=9, traces=[Trace({"x": tensor(8)})])
    loop = function(file="a.py", qualname="<lambda>", line=7, calls=5, traces=[Trace({"x": tensor(2)}, count=5)])
    return trace_set(once, step, loop)


def test_build_report_orders_most_costly_first():
    reports = build_report(sample_set())
    assert [(r.qualname, r.total_traces, r.traces, r.retraces) for r in reports] == [
        ("<lambda>", 5, 1, 0),
        ("Trainer.step", 3, 3, 2),
        ("evaluate", 1, 1, 0),
    ]
    assert reports[1].entries[2].changes == ["`num_steps`: Python int 10 → 20"]


def test_render_text_report():
    text = render_report(build_report(sample_set()), "text")
    assert text == textwrap.dedent(
        """\
        a.py:7 <lambda>: 5 calls, 5 traces (1 distinct)
          trace 1 (×5): x=float32(2,)
          note: identical traces repeated: the tf.function object is re-created (define it once, outside the loop or function that builds it) or the objects it is a method of are

        train.py:12 Trainer.step: 40 calls, 3 traces, 2 retraces
          trace 1: self=<Trainer #1>, X=float32(16, 50), num_steps=10
          trace 2: self=<Trainer #1>, X=float32(32, 50), num_steps=10
            `X`: shape (16, 50) → (32, 50)
          trace 3: self=<Trainer #1>, X=float32(32, 50), num_steps=20
            `num_steps`: Python int 10 → 20

        eval.py:3 evaluate: 9 calls, 1 trace
          trace 1: x=float32(8,)

        3 functions, 9 traces, 2 retraces
        """
    )


def test_render_json_report_and_empty_report():
    data = json.loads(render_report(sample_set(), "json"))
    step = data["functions"][1]
    assert step["qualname"] == "Trainer.step" and step["retraces"] == 2 and step["calls"] == 40
    assert step["entries"][1]["changes"] == ["`X`: shape (16, 50) → (32, 50)"]
    assert render_report([], "text") == "no tf.function traces recorded\n"
    assert json.loads(render_report([], "json")) == {"functions": []}
    with pytest.raises(ValueError):
        render_report([], "xml")


# ---------------------------------------------------------------------------
# time of the traced calls (the optional "seconds" of a trace)


def timed_file_data():
    """A hand-written trace file with known times: a re-created function, shape retraces, nested retraces."""

    def entry(shape, seconds, count=1, nested=False):
        return {"args": {"x": tensor(*shape)}, "count": count, "nested": nested, "via": "call", "seconds": seconds}

    def fn(file, qualname, line, calls, traces):
        return {"file": file, "qualname": qualname, "firstlineno": line, "name": qualname.split(".")[-1],
                "params": ["x"], "calls": calls, "reduce_retracing": False, "has_input_signature": False,
                "traces": traces}

    return {
        "format": FORMAT,
        "version": VERSION,
        "tensorflow": "2.21.0",
        "functions": [
            fn("train.py", "Trainer.step", 12, 300, [entry([16, 50], 0.5), entry([32, 50], 0.25), entry([64, 50], 0.125)]),
            fn("serve.py", "predict", 3, 40, [entry([16, 50], 0.2, count=4)]),
            fn("ops.py", "inner", 7, 6, [entry([4], 0.01, nested=True), entry([8], 0.02, nested=True)]),
        ],
    }  # fmt: skip


TIMED_REPORT = """\
serve.py:3 predict: 40 calls, 4 traces (1 distinct)
  trace 1 (×4): x=float32(16, 50)
  note: identical traces repeated: the tf.function object is re-created (define it once, outside the loop or function that builds it) or the objects it is a method of are
  time: 0.200 s in traced calls

train.py:12 Trainer.step: 300 calls, 3 traces, 2 retraces
  trace 1: x=float32(16, 50)
  trace 2: x=float32(32, 50)
    `x`: shape (16, 50) → (32, 50)
  trace 3: x=float32(64, 50)
    `x`: shape (32, 50) → (64, 50)
  time: 0.875 s in traced calls, 0.375 s (43%) in retraces

ops.py:7 inner: 6 calls, 2 traces, 1 retrace
  trace 1 (nested): x=float32(4,)
  trace 2 (nested): x=float32(8,)
    `x`: shape (4,) → (8,)
  note: every retrace happened while a calling tf.function was being traced (nested): once the caller's graph is built they cost nothing; fix the caller's retracing instead
  time: 0.030 s in traced calls, 0.020 s (67%) in retraces

3 functions, 9 traces, 3 retraces
time in traced calls: 1.105 s, 0.395 s (36%) in retraces; 0.030 s of it in nested traces, which their callers' traced calls also include
"""


def test_seconds_load_round_trip_and_report_exact_figures(tmp_path):
    path = write(tmp_path, json.dumps(timed_file_data()))
    loaded = load_trace_file(path)
    step = loaded.find("train.py", "Trainer.step")[0]
    assert [t.seconds for t in step.traces] == [0.5, 0.25, 0.125]
    assert (step.trace_seconds, step.retrace_seconds) == (0.875, 0.375)
    assert loaded.to_json() == TraceSet.from_json(timed_file_data()).to_json()
    assert loaded.to_json()["functions"][2]["traces"][0]["seconds"] == 0.5  # saved again as it was
    assert render_report(loaded, "text") == TIMED_REPORT
    assert run_cli("report", path).outcome[:2] == (0, TIMED_REPORT)
    data = json.loads(render_report(loaded, "json"))
    figures = [(f["qualname"], f["trace_seconds"], f["retrace_seconds"], f["nested_seconds"]) for f in data["functions"]]
    assert figures == [("predict", 0.2, 0.0, 0.0), ("Trainer.step", 0.875, 0.375, 0.0), ("inner", 0.03, 0.02, 0.03)]
    assert [e["seconds"] for e in data["functions"][1]["entries"]] == [0.5, 0.25, 0.125]


def test_merging_sums_the_seconds_of_identical_traces(tmp_path):
    a = write(tmp_path, json.dumps(timed_file_data()), name="a.json")
    b = write(tmp_path, json.dumps(timed_file_data()), name="b.json")
    merged = load_trace_files([a, b])
    predict = merged.find("serve.py", "predict")[0]
    assert [(t.count, t.seconds) for t in predict.traces] == [(8, 0.4)]
    step = merged.find("train.py", "Trainer.step")[0]
    assert (step.trace_seconds, step.retrace_seconds) == (1.75, 0.75)


def test_old_file_without_seconds_loads_and_reports_without_time_lines(tmp_path):
    data = timed_file_data()
    for item in data["functions"]:
        for trace in item["traces"]:
            del trace["seconds"]
    path = write(tmp_path, json.dumps(data))
    loaded = load_trace_file(path)
    assert all(t.seconds is None for f in loaded for t in f.traces)
    assert all(f.trace_seconds is None and f.retrace_seconds is None for f in loaded)
    by_file = lambda item: item["file"]  # noqa: E731
    expected_functions = [{**item, "call_sites": [], "proofs": []} for item in data["functions"]]
    assert sorted(loaded.to_json()["functions"], key=by_file) == sorted(expected_functions, key=by_file)  # no seconds
    expected = "".join(line for line in TIMED_REPORT.splitlines(keepends=True) if "time" not in line)
    assert render_report(loaded, "text") == expected
    assert run_cli("report", path).outcome[:2] == (0, expected)
    assert "time" not in expected and expected.endswith("3 functions, 9 traces, 3 retraces\n")
    report = json.loads(render_report(loaded, "json"))["functions"][1]
    assert (report["trace_seconds"], report["retrace_seconds"], report["entries"][0]["seconds"]) == (None, None, None)


def test_partly_timed_files_say_which_functions_have_no_time(tmp_path):
    data = timed_file_data()
    for trace in data["functions"][1]["traces"]:  # predict: recorded before "seconds" existed
        del trace["seconds"]
    text = render_report(TraceSet.from_json(data), "text")
    assert "  time: 0.200 s in traced calls\n" not in text
    assert text.endswith(
        "time in traced calls: 0.905 s, 0.395 s (44%) in retraces; 0.030 s of it in nested traces, "
        "which their callers' traced calls also include (1 of 3 functions without recorded time)\n"
    )


# ---------------------------------------------------------------------------
# TF-free plumbing: nothing here may import TensorFlow


def run_python(code, **kwargs):
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + kwargs.pop("pythonpath", ""))
    env.pop("RETRACE_FIX_SHARD_DIR", None)
    env.update(kwargs.pop("env", {}))
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, **kwargs)


def test_importing_traces_modules_does_not_import_tensorflow():
    result = run_python(
        "import sys\n"
        "import retrace_fix.traces, retrace_fix.traces.model, retrace_fix.traces.retrace_report\n"
        "import retrace_fix.traces.recorder, retrace_fix.traces.process_recorder, retrace_fix.traces.per_process, retrace_fix.commands.record, retrace_fix.traces.context\n"
        "import retrace_fix.traces.pytest_plugin\n"
        "assert callable(retrace_fix.traces.record_traces)\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('tensorflow', 'keras', 'numpy')))\n"
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == "[]\n"


def test_sitecustomize_is_a_noop_without_env_and_chains(tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    (other / "sitecustomize.py").write_text("import sys\nsys.chained_marker = 'yes'\n")
    code = "import sys; print(getattr(sys, 'chained_marker', None), 'retrace_fix.traces.recorder' in sys.modules)"
    env = {"PYTHONPATH": os.pathsep.join([SITECUSTOMIZE_DIR, str(other)])}
    result = subprocess.run([sys.executable, "-c", code], env=dict(os.environ, **env), capture_output=True, text=True)
    assert result.stdout == "yes False\n", result.stderr
    # with the variable set, the recorder is installed but TensorFlow is not imported
    shards = tmp_path / "shards"
    shards.mkdir()
    env.update(RETRACE_FIX_SHARD_DIR=str(shards), RETRACE_FIX_PACKAGE_PATH=str(REPO))
    code += "; print('tensorflow' in sys.modules, sys.path.count(" + repr(str(REPO)) + "))"
    result = subprocess.run(
        [sys.executable, "-c", code], env=dict(os.environ, **env), capture_output=True, text=True, cwd=tmp_path
    )
    assert result.stdout == "yes True\nFalse 0\n", result.stderr
    assert list(shards.iterdir()) == []  # a process that never imported TensorFlow writes no shard


def test_run_record_errors_and_exit_code_passthrough(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert run_record([], None) == 2
    assert "no command given" in capsys.readouterr().err
    assert run_record(["retrace-fix-no-such-command-xyz"], None) == 2
    assert capsys.readouterr().err == "retrace-fix record: command not found: retrace-fix-no-such-command-xyz\n"
    assert run_record(["--", sys.executable, "-c", "import sys; sys.exit(5)"], None) == 5
    assert capsys.readouterr().err == "retrace-fix: recorded 0 traces of 0 functions to .retrace/traces.json\n"
    recorded = load_trace_file(".retrace/traces.json")
    assert recorded == TraceSet(project={"name": tmp_path.name, "remote": None, "commit": None})


def test_pytest_plugin_without_option_imports_nothing(tmp_path):
    (tmp_path / "test_ok.py").write_text(
        "import sys\n\ndef test_ok():\n    assert 'retrace_fix.traces.recorder' not in sys.modules\n"
        "    assert 'tensorflow' not in sys.modules\n"
    )
    args = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *_other_plugins_off(), "test_ok.py"]
    if not _plugin_entry_point_installed():
        args[3:3] = ["-p", "retrace_fix.traces.pytest_plugin"]
    env = dict(os.environ, PYTHONPATH=str(REPO))
    result = subprocess.run(args, cwd=tmp_path, env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "retrace-fix" not in result.stdout


def _other_plugins_off() -> list[str]:
    """``-p no:NAME`` for every installed pytest plugin but this one: ours still loads through its
    entry point, without the others' imports (xdist, hypothesis, pytest-benchmark: 0.4 s of CPU)."""
    from importlib.metadata import entry_points

    return [option for ep in entry_points(group="pytest11") if ep.value != "retrace_fix.traces.pytest_plugin"
            for option in ("-p", f"no:{ep.name}")]


def _plugin_entry_point_installed() -> bool:
    from importlib.metadata import entry_points

    return any(ep.value == "retrace_fix.traces.pytest_plugin" for ep in entry_points(group="pytest11"))


# ---------------------------------------------------------------------------
# format version 2: call sites, proofs, distributed values


def v1_file_data():
    """A version-1 file as retrace-fix 0.1 wrote it: no call sites, no proofs."""
    return {
        "format": FORMAT, "version": 1, "tensorflow": "2.21.0",
        "functions": [{"file": "train.py", "qualname": "step", "firstlineno": 3, "name": "step", "params": ["x"],
                       "calls": 3, "reduce_retracing": False, "has_input_signature": False,
                       "traces": [{"args": {"x": tensor(n, 4)}, "count": 1, "nested": False, "via": "call"}
                                  for n in (1, 2, 3)]}],
    }  # fmt: skip


def test_version_1_files_load_without_call_sites_or_proofs(tmp_path):
    loaded = load_trace_file(write(tmp_path, json.dumps(v1_file_data())))
    (step,) = loaded
    assert step.call_sites == [] and step.proofs == {} and len(step.traces) == 3
    assert loaded.to_json()["version"] == BASE_VERSION == 2  # written back in the current version


def test_call_sites_and_proofs_round_trip_and_merge(tmp_path):
    key = "input_signature: x=tf.TensorSpec(shape=[None, 4], dtype=tf.float32)"
    a = function(file="train.py", qualname="step", line=3, traces=[Trace({"x": tensor(1, 4)})])
    a.add_call_site(CallSite("run.py", 10, 4))
    a.add_call_site(CallSite("run.py", 10, 4))
    a.add_proof(key, Proof("input_signature", "traced"))
    a.add_proof("reduce_retracing: x #1", Proof("reduce_retracing", "not_run", note="the time budget for proofs was spent"))
    b = function(file="train.py", qualname="step", line=3, traces=[Trace({"x": tensor(2, 4)})])
    b.add_call_site(CallSite("run.py", 10, 4, count=3))
    b.add_call_site(CallSite("eval.py", 2, None))
    b.add_proof(key, Proof("input_signature", "failed", error="TypeError: boom"))
    b.add_proof("reduce_retracing: x #1", Proof("reduce_retracing", "traced"))
    save_trace_file(trace_set(a), tmp_path / "a.json")
    save_trace_file(trace_set(b), tmp_path / "b.json")
    data = json.loads((tmp_path / "a.json").read_text())["functions"][0]
    assert data["call_sites"] == [{"file": "run.py", "line": 10, "column": 4, "count": 2}]
    assert data["proofs"][0] == {"candidate": key, "fix": "input_signature", "result": "traced"}
    assert data["proofs"][1]["note"] == "the time budget for proofs was spent"
    merged = load_trace_files([str(tmp_path / "a.json"), str(tmp_path / "b.json")])
    (step,) = merged
    assert [(c.file, c.line, c.column, c.count) for c in step.call_sites] == [("run.py", 10, 4, 5), ("eval.py", 2, None, 1)]
    # a failure wins over a success, any outcome over "not run"
    assert step.proofs[key] == Proof("input_signature", "failed", error="TypeError: boom")
    assert step.proofs["reduce_retracing: x #1"].result == "traced"


@pytest.mark.parametrize(
    "field, value, message",
    [
        ("call_sites", [{"file": "/abs/run.py", "line": 1}], "call_sites[0].file: expected a path relative"),
        ("call_sites", [{"file": "run.py", "line": 0}], "call_sites[0]: expected a positive line"),
        ("call_sites", [{"file": "run.py", "line": 1, "column": "4"}], "call_sites[0].column: expected an integer or null"),
        ("proofs", [{"candidate": "k", "fix": "magic", "result": "traced"}], "proofs[0].fix: expected one of"),
        ("proofs", [{"candidate": "k", "fix": "scalar", "result": "maybe"}], "proofs[0].result: expected one of"),
        ("proofs", [{"fix": "scalar", "result": "traced"}], "proofs[0]: missing 'candidate'"),
    ],
)
def test_invalid_call_sites_and_proofs_are_clear_errors(tmp_path, field, value, message):
    data = v1_file_data()
    data["version"] = 2
    data["functions"][0][field] = value
    with pytest.raises(TraceFileError) as info:
        load_trace_file(write(tmp_path, json.dumps(data)))
    assert f"invalid trace file: functions[0].{message}" in str(info.value)


def test_distributed_values_load_and_report_like_their_components(tmp_path):
    def per_replica(n):
        return {"kind": "per_replica", "items": [tensor(n, 4), tensor(n, 4)]}

    data = v1_file_data()
    data["version"] = 2
    data["functions"][0]["traces"] = [
        {"args": {"x": per_replica(n)}, "count": 1, "nested": False, "via": "call"} for n in (4, 3)
    ]
    loaded = load_trace_file(write(tmp_path, json.dumps(data)))
    text = render_report(loaded, "text")
    assert "trace 1: x=PerReplica(float32(4, 4), float32(4, 4))" in text
    assert "`x[0]`: shape (4, 4) → (3, 4)" in text
    data["functions"][0]["traces"][0]["args"]["x"]["items"] = "x"
    with pytest.raises(TraceFileError, match=r"args\.x\.items: expected a list"):
        load_trace_file(write(tmp_path, json.dumps(data)))


def test_the_project_round_trips_and_is_validated(tmp_path):
    data = v1_file_data()
    data["version"] = 2
    data["project"] = {"name": "repo", "remote": "https://host/team/repo.git", "commit": "a" * 40}
    loaded = load_trace_file(write(tmp_path, json.dumps(data)))
    assert loaded.project == data["project"] and loaded.to_json()["project"] == data["project"]
    assert load_trace_file(write(tmp_path, json.dumps(v1_file_data()))).project is None
    data["project"] = {"remote": None}
    with pytest.raises(TraceFileError, match=r"invalid trace file: project: missing 'name'"):
        load_trace_file(write(tmp_path, json.dumps(data)))


def test_recreated_counts_one_process_and_merges_by_the_largest(tmp_path):
    """``recreated``: a per-process count of identical traces made by new tf.function objects.

    Merging two runs sums ``count`` (the same trace, recorded twice) but must not make a
    function that traced once per process look re-created: the merge keeps the largest value.
    """
    once = function(file="train.py", qualname="run.<locals>.step", line=3, traces=[Trace({"x": tensor(2, 4)})])
    again = function(file="train.py", qualname="run.<locals>.step", line=3,
                     traces=[Trace({"x": tensor(2, 4)}, count=3)], recreated=2)
    save_trace_file(trace_set(once), tmp_path / "once.json")
    save_trace_file(trace_set(again), tmp_path / "again.json")
    assert "recreated" not in json.loads((tmp_path / "once.json").read_text())["functions"][0]
    assert json.loads((tmp_path / "again.json").read_text())["functions"][0]["recreated"] == 2
    (twice,) = load_trace_files([str(tmp_path / "once.json"), str(tmp_path / "once.json")])
    assert (twice.traces[0].count, twice.recreated) == (2, 0)
    (merged,) = load_trace_files([str(tmp_path / "once.json"), str(tmp_path / "again.json")])
    assert (merged.traces[0].count, merged.recreated) == (4, 2)
    data = v1_file_data()
    data["functions"][0]["recreated"] = -1
    with pytest.raises(TraceFileError, match=r"functions\[0\].recreated: expected a non-negative integer"):
        load_trace_file(write(tmp_path, json.dumps(data)))


def test_fresh_captures_round_trips_merges_by_the_largest_and_is_validated(tmp_path):
    """``fresh_captures``: of the re-creations, those around a new model (no retrace to remove)."""
    fresh = function(file="train.py", qualname="fold.<locals>.step", line=3,
                     traces=[Trace({"x": tensor(2, 4)}, count=3)], recreated=2, fresh_captures=2)
    plain = function(file="train.py", qualname="fold.<locals>.step", line=3,
                     traces=[Trace({"x": tensor(2, 4)}, count=3)], recreated=2)
    save_trace_file(trace_set(fresh), tmp_path / "fresh.json")
    save_trace_file(trace_set(plain), tmp_path / "plain.json")
    assert json.loads((tmp_path / "fresh.json").read_text())["functions"][0]["fresh_captures"] == 2
    assert "fresh_captures" not in json.loads((tmp_path / "plain.json").read_text())["functions"][0]
    (loaded,) = load_trace_files([str(tmp_path / "fresh.json")])
    assert (loaded.recreated, loaded.fresh_captures) == (2, 2)
    (merged,) = load_trace_files([str(tmp_path / "plain.json"), str(tmp_path / "fresh.json")])
    assert (merged.recreated, merged.fresh_captures) == (2, 2)
    data = v1_file_data()
    data["functions"][0]["fresh_captures"] = -1
    with pytest.raises(TraceFileError, match=r"functions\[0\].fresh_captures: expected a non-negative integer"):
        load_trace_file(write(tmp_path, json.dumps(data)))


def test_report_shows_call_sites_and_proofs():
    step = function(file="train.py", qualname="step", line=3, calls=4,
                    traces=[Trace({"k": py(2)}), Trace({"k": py(3)})])
    step.add_call_site(CallSite("run.py", 10, 4, count=3))
    step.add_call_site(CallSite("eval.py", 2, None))
    step.add_call_site(CallSite("run.py", 10, 30))  # a second call on the same line: one place to the reader
    step.add_proof("scalar k=int32: k=int32[] #ab12", Proof("scalar", "failed", error="TypeError: Input 'y' of 'Pow' Op"))
    step.add_proof("scalar k=float32: k=float32[] #cd34", Proof("scalar", "traced"))
    step.add_proof("reduce_retracing: k", Proof("reduce_retracing", "not_run", note="the time budget for proofs was spent"))
    text = render_report(build_report(trace_set(step)), "text")
    assert text.splitlines()[4:8] == [
        "  called from: run.py:10 (×4), eval.py:2",
        "  proof: scalar k=int32: k=int32[] → failed: TypeError: Input 'y' of 'Pow' Op",
        "  proof: scalar k=float32: k=float32[] → traced",
        "  proof: reduce_retracing: k → not run: the time budget for proofs was spent",
    ]
    data = json.loads(render_report(build_report(trace_set(step)), "json"))["functions"][0]
    assert data["called_from"] == ["run.py:10 (×4)", "eval.py:2"] and len(data["proofs"]) == 3
    # version-1 files have neither: no such lines
    bare = function(file="train.py", qualname="step", line=3, traces=[Trace({"k": py(2)}), Trace({"k": py(3)})])
    assert "called from" not in render_report(build_report(trace_set(bare)), "text")


def test_a_sigterm_that_arrives_while_the_shard_is_written_waits_for_the_write(tmp_path):
    """multiprocessing terminates its pool workers while they write at exit: the handler used to
    re-enter the recorder, whose lock the interrupted write held, and the worker hung for good."""
    import signal

    from retrace_fix.traces.process_recorder import ProcessRecorder

    recorder = ProcessRecorder(str(tmp_path), None)
    events: list[str] = []

    def writing() -> None:
        events.append("write")
        if events.count("write") == 1:
            recorder._on_sigterm(signal.SIGTERM, None)  # the signal lands mid-write
        events.append("written")

    recorder._write = writing
    recorder._previous_sigterm = lambda signum, frame: events.append("previous handler")
    recorder.write()
    assert events == ["write", "written", "write", "written", "previous handler"]
