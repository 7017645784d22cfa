"""The recorder against real TensorFlow.

Each TensorFlow import costs seconds, so the scenarios are batched: one recorded
program (with a Python child process) covers most of the recorder's behaviour,
and a few small programs cover crashing, SIGTERM and the pytest plugin.  The
context-manager tests run in this process.
"""

from __future__ import annotations

import collections
import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

pytest.importorskip("tensorflow")  # skipped, not an error, where TensorFlow is not installed

from retrace_fix.traces.model import load_trace_file
from retrace_fix.commands.record import run_record
from retrace_fix.traces.retrace_report import build_report, render_report
from tests.support.cli_runner import run_cli

pytestmark = pytest.mark.tf

REPO = Path(__file__).resolve().parents[2]

PROGRAM = '''\
import subprocess
import sys

import numpy as np
import tensorflow as tf
log = open("log.txt", "w", buffering=1)

@tf.function
def train_step(X, num_steps):
    return tf.reduce_sum(X) * num_steps


for batch in (16, 32, 32, 16):
    train_step(tf.ones([batch, 50]), 10)
train_step(tf.ones([32, 50]), 20)


@tf.function
def double(x):
    return x * 2


double(tf.constant([1, 2], tf.int32))
double(tf.constant([1.0, 2.0]))
double(np.ones([2], np.float32))


class Mod:
    def __init__(self):
        self.v = None

    @tf.function
    def step(self, x):
        if self.v is None:
            self.v = tf.Variable(tf.zeros_like(x))
        return x + self.v


m1 = Mod()
m1.step(tf.ones([3]))
m1.step(tf.ones([3]))
print("m1 tracing count", m1.step.experimental_get_tracing_count(), file=log)
m2 = Mod()
m2.step(tf.ones([3]))


@tf.function
def inner(x):
    return x * 2


@tf.function
def outer(x, k):
    return inner(x) + k


outer(tf.ones([2]), 1)
outer(tf.ones([2]), 2)
outer.get_concrete_function(tf.TensorSpec([None], tf.float32), 1)


def scale(x, cfg):
    return x * len(cfg)


scale_fn = tf.function(scale)
scale_fn(tf.ones([2]), [1, 2])
scale_fn(tf.ones([2]), [1, 2, 3])


def add_one(x):
    return x + 1


for _ in range(3):
    tf.function(add_one)(tf.ones([2]))


@tf.function(reduce_retracing=True)
def apply(model, x):
    return model(x)


model_a = tf.keras.Sequential([tf.keras.layers.Input([3]), tf.keras.layers.Dense(2)])
model_b = tf.keras.Sequential([tf.keras.layers.Input([3]), tf.keras.layers.Dense(2)])
apply(model_a, tf.ones([1, 3]))
apply(model_b, tf.ones([1, 3]))
model_a.predict(np.ones([4, 3]), verbose=0)

child = subprocess.run([sys.executable, "child.py"], capture_output=True, text=True)
print("child exit code", child.returncode, child.stderr.strip().splitlines()[-1], file=log)
sys.exit(3)
'''

CHILD = '''\
import tensorflow as tf


@tf.function
def child_fn(x):
    return x - 1


child_fn(tf.ones([4]))
raise RuntimeError("boom")
'''


def make_project(path: Path, **files: str) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    (path / ".git").mkdir(exist_ok=True)  # the project root is the git root
    for name, text in files.items():
        (path / name).write_text(text)
    return path


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """Run PROGRAM under ``run_record`` once: (exit code, TraceSet, the program's log)."""
    project = make_project(tmp_path_factory.mktemp("proj"), **{"prog.py": PROGRAM, "child.py": CHILD})
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(project)
        patch.delenv("RETRACE_FIX_PROJECT_ROOT", raising=False)
        code = run_record([sys.executable, "prog.py"], None)
    return code, load_trace_file(str(project / ".retrace" / "traces.json")), (project / "log.txt").read_text()


def functions_by_name(trace_set):
    return {f.qualname: f for f in trace_set}


def test_exit_code_passes_through(recorded):
    assert recorded[0] == 3


def test_python_child_processes_are_recorded_even_when_they_raise(recorded):
    assert "child exit code 1 RuntimeError: boom" in recorded[2]
    f = functions_by_name(recorded[1])["child_fn"]
    assert (f.file, f.calls, f.traces[0].args["x"]["shape"]) == ("child.py", 1, [4])


def test_only_project_functions_are_recorded(recorded):
    trace_set = recorded[1]
    assert trace_set.tensorflow_version == __import__("importlib.metadata").metadata.version("tensorflow-cpu")
    assert sorted((f.file, f.qualname) for f in trace_set) == [
        ("child.py", "child_fn"),  # from the child Python process: its shard was merged
        ("prog.py", "Mod.step"),
        ("prog.py", "add_one"),
        ("prog.py", "apply"),
        ("prog.py", "double"),
        ("prog.py", "inner"),
        ("prog.py", "outer"),
        ("prog.py", "scale"),
        ("prog.py", "train_step"),
    ]  # Keras's predict/one_step_on_data functions are not there


def test_shapes_and_python_values(recorded):
    f = functions_by_name(recorded[1])["train_step"]
    assert (f.firstlineno, f.name, f.params, f.calls) == (8, "train_step", ["X", "num_steps"], 5)
    assert [t.args for t in f.traces] == [
        {"X": {"kind": "tensor", "shape": [16, 50], "dtype": "float32"}, "num_steps": _int(10)},
        {"X": {"kind": "tensor", "shape": [32, 50], "dtype": "float32"}, "num_steps": _int(10)},
        {"X": {"kind": "tensor", "shape": [32, 50], "dtype": "float32"}, "num_steps": _int(20)},
    ]
    assert all(t.count == 1 and not t.nested and t.via == "call" for t in f.traces)


def _int(value):
    return {"kind": "python", "type": "int", "value": value}


def test_dtypes_and_numpy_arrays(recorded):
    f = functions_by_name(recorded[1])["double"]
    assert f.calls == 3
    assert [t.args["x"] for t in f.traces] == [
        {"kind": "tensor", "shape": [2], "dtype": "int32"},
        {"kind": "tensor", "shape": [2], "dtype": "float32"},
    ]  # the float32 numpy array reused the float32 tensor's trace


def test_methods_record_self_and_fold_the_variable_creation_double_trace(recorded):
    assert "m1 tracing count 2\n" in recorded[2]  # TF traced m1.step twice on its first call...
    f = functions_by_name(recorded[1])["Mod.step"]
    assert (f.firstlineno, f.params, f.calls) == (32, ["self", "x"], 3)
    # ... (variable creation): recorded once
    assert [(t.args, t.count) for t in f.traces] == [
        ({"self": {"kind": "object", "type": "Mod", "id": 1}, "x": {"kind": "tensor", "shape": [3], "dtype": "float32"}}, 1),
        ({"self": {"kind": "object", "type": "Mod", "id": 2}, "x": {"kind": "tensor", "shape": [3], "dtype": "float32"}}, 1),
    ]  # fmt: skip


def test_nested_and_get_concrete_function(recorded):
    functions = functions_by_name(recorded[1])
    inner, outer = functions["inner"], functions["outer"]
    assert [(t.args["x"]["shape"], t.nested, t.via) for t in inner.traces] == [([2], True, "call"), ([None], True, "call")]
    assert inner.calls == 3  # once per trace of outer
    assert [(t.args["k"]["value"], t.via) for t in outer.traces] == [(1, "call"), (2, "call"), (1, "get_concrete_function")]
    assert outer.calls == 2


def test_call_form_and_recreated_functions(recorded):
    functions = functions_by_name(recorded[1])
    scale = functions["scale"]
    assert (scale.firstlineno, scale.calls) == (62, 2)
    assert [len(t.args["cfg"]["items"]) for t in scale.traces] == [2, 3]
    add_one = functions["add_one"]
    assert (add_one.calls, [t.count for t in add_one.traces]) == (3, [3])
    # three tf.function objects traced the same thing: two re-creations (RTF006's evidence); a function
    # whose traces differ, or that traces again only inside another one's traces, was not re-created
    assert (add_one.recreated, scale.recreated, functions["inner"].recreated) == (2, 0, 0)


def test_objects_and_flags(recorded):
    f = functions_by_name(recorded[1])["apply"]
    assert f.reduce_retracing is True and f.has_input_signature is False
    assert [t.args["model"] for t in f.traces] == [
        {"kind": "object", "type": "Sequential", "id": 3},
        {"kind": "object", "type": "Sequential", "id": 4},
    ]


def test_report_of_the_recorded_program(recorded):
    text = render_report(build_report(recorded[1]), "text")
    expected = """\
        prog.py:8 train_step: 5 calls, 3 traces, 2 retraces
          trace 1: X=float32(16, 50), num_steps=10
          trace 2: X=float32(32, 50), num_steps=10
            `X`: shape (16, 50) → (32, 50)
          trace 3: X=float32(32, 50), num_steps=20
            `num_steps`: Python int 10 → 20
        """
    assert textwrap.dedent(expected) in text
    assert "    `x`: dtype int32 → float32\n" in text
    assert "    `model`: new object of type Sequential\n" in text
    assert "    `self`: new object of type Mod\n" in text
    assert "    `cfg`: list length 2 → 3\n" in text
    assert "prog.py:8 train_step: 5 calls, 3 traces, 2 retraces" in text.splitlines()
    # TF's count: each Mod's first call created its variable and was traced twice (m1 logs 2)
    assert "prog.py:32 Mod.step: 3 calls, 4 traces (2 distinct, 2 variable-creation), 1 retrace" in text.splitlines()
    assert "m1 tracing count 2" in recorded[2]
    # every function block ends with its time line; the totals end the report
    blocks = text.split("\n\n")
    assert len(blocks) == 10
    assert all(re.fullmatch(r"  time: \d+\.\d{3} s in traced calls(, \d+\.\d{3} s \(\d+%\) in retraces)?", block.splitlines()[-1])
               for block in blocks[:-1])  # fmt: skip
    summary, total = blocks[-1].splitlines()
    assert summary == "9 functions, 22 traces, 9 retraces"  # TF's count: 2 of them variable-creation (Mod.step)
    assert re.fullmatch(
        r"time in traced calls: \d+\.\d{3} s, \d+\.\d{3} s \(\d+%\) in retraces; \d+\.\d{3} s of it in nested traces, "
        r"which their callers' traced calls also include",
        total,
    )


def test_every_recorded_trace_has_its_time(recorded):
    # calls, get_concrete_function, nested traces, folded double traces, re-created functions, the child process
    traces = [(f.qualname, t) for f in recorded[1] for t in f.traces]
    assert len(traces) == 20 - 3 + 1  # add_one: one distinct trace recorded 3 times
    assert all(t.seconds is not None and t.seconds > 0 for _, t in traces), traces
    inner_seconds = sum(t.seconds for name, t in traces if name == "inner")
    outer_seconds = sum(t.seconds for name, t in traces if name == "outer")
    assert outer_seconds > inner_seconds  # the nested traces happened inside outer's traced calls


# ---------------------------------------------------------------------------
# terminated programs


def test_sigterm_is_forwarded_and_the_child_still_writes(tmp_path):
    project = make_project(
        tmp_path,
        **{
            "sleeper.py": textwrap.dedent(
                """\
                import pathlib, time
                import tensorflow as tf

                @tf.function
                def f(x):
                    return x + 1

                f(tf.ones([5]))
                pathlib.Path("ready").write_text("1")
                time.sleep(120)
                """
            )
        },
    )
    driver = (
        "import sys; from retrace_fix.commands.record import run_record; "
        "sys.exit(run_record([sys.executable, 'sleeper.py'], 'term.json'))"
    )
    env = dict(os.environ, PYTHONPATH=str(REPO))
    process = subprocess.Popen(
        [sys.executable, "-c", driver], cwd=project, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        deadline = time.monotonic() + 120
        while not (project / "ready").exists():
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline, "the recorded program never got ready"
            time.sleep(0.1)
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 128 + signal.SIGTERM, err
    assert "recorded 1 trace of 1 function to term.json" in err
    f = functions_by_name(load_trace_file(str(project / "term.json")))["f"]
    assert (f.calls, f.traces[0].args["x"]["shape"]) == (1, [5])


# ---------------------------------------------------------------------------
# pytest plugin


def test_pytest_plugin_records_a_test_run(tmp_path):
    project = make_project(
        tmp_path,
        **{
            "test_model.py": textwrap.dedent(
                """\
                import tensorflow as tf

                @tf.function
                def f(x):
                    return x * 2

                def test_one():
                    f(tf.ones([1]))
                    f(tf.ones([2]))

                def test_two_fails():
                    f(tf.ones([2]))
                    assert False
                """
            )
        },
    )
    args = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--retrace-record", "rec/t.json"]
    from importlib.metadata import entry_points

    if not any(ep.value == "retrace_fix.traces.pytest_plugin" for ep in entry_points(group="pytest11")):
        args[3:3] = ["-p", "retrace_fix.traces.pytest_plugin"]
    env = dict(os.environ, PYTHONPATH=str(REPO))
    env.pop("RETRACE_FIX_PROJECT_ROOT", None)
    result = subprocess.run(args + ["test_model.py"], cwd=project, env=env, capture_output=True, text=True)
    assert result.returncode == 1, result.stdout + result.stderr
    assert f"retrace-fix: recorded 2 traces of 1 function to {project / 'rec' / 't.json'}" in result.stdout
    f = functions_by_name(load_trace_file(str(project / "rec" / "t.json")))["f"]
    assert (f.file, f.calls, [t.args["x"]["shape"] for t in f.traces]) == ("test_model.py", 3, [[1], [2]])
    assert [(c.file, c.line, c.column, c.count) for c in f.call_sites] == [("test_model.py", 8, 4, 1), ("test_model.py", 9, 4, 1)]
    # the end of the session proved the signature on the live function
    proofs = {k.split(" #")[0]: p.result for k, p in f.proofs.items()}
    assert proofs == {
        "input_signature: x=tf.TensorSpec(shape=[None], dtype=tf.float32)": "traced",
        "reduce_retracing: x=float32[None]": "traced",
    }


# ---------------------------------------------------------------------------
# context manager (in this process)


@pytest.fixture(scope="module")
def tf():
    return pytest.importorskip("tensorflow")


def test_context_manager_records_every_value_kind(tf, tmp_path):
    from retrace_fix.traces import record_traces
    from retrace_fix.traces import tf_patching

    Point = collections.namedtuple("Point", "x y")

    @tf.function
    def many(a, *args, flag=None, **kw):
        return a

    @tf.function
    def before(x):
        return x

    before(tf.ones([1]))  # traced before recording: not recorded
    path = tmp_path / "cm.json"
    with record_traces(path) as active:
        before(tf.ones([1]))
        before(tf.ones([5]))
        many(
            tf.ones([2, 3]),
            3,
            [tf.ones([2]), 2.5],
            flag="on",
            d={"b": (None, True), "a": tf.zeros([1], tf.int64)},
            p=Point(1, tf.zeros([4])),
            r=tf.ragged.constant([[1], [2, 3]]),
            s=tf.sparse.from_dense(tf.ones([2, 2])),
            v=tf.Variable(1.0, trainable=False),
            n=float("nan"),
            ds=tf.data.Dataset.range(3),
        )
        assert len(active.trace_set()) == 2
    assert not tf_patching.RECORDERS or os.environ.get("RETRACE_FIX_SHARD_DIR")
    earlier, f = sorted(load_trace_file(str(path)), key=lambda f: f.qualname)
    assert (earlier.qualname.rsplit(".", 1)[-1], earlier.calls) == ("before", 2)
    assert [t.args["x"]["shape"] for t in earlier.traces] == [[5]]
    assert (f.file, f.qualname, f.params, f.calls) == (
        "tests/traces/test_recorder_tf.py",
        "test_context_manager_records_every_value_kind.<locals>.many",
        ["a", "args", "flag", "kw"],
        1,
    )
    args = f.traces[0].args
    assert list(args) == ["a", "args_0", "args_1", "flag", "d", "ds", "n", "p", "r", "s", "v"]  # **kw sorted
    assert args["a"] == {"kind": "tensor", "shape": [2, 3], "dtype": "float32"}
    assert args["args_0"] == {"kind": "python", "type": "int", "value": 3}
    assert args["args_1"] == {
        "kind": "list",
        "items": [{"kind": "tensor", "shape": [2], "dtype": "float32"}, {"kind": "python", "type": "float", "value": 2.5}],
    }
    assert args["d"] == {
        "kind": "dict",
        "items": {
            "a": {"kind": "tensor", "shape": [1], "dtype": "int64"},
            "b": {
                "kind": "tuple",
                "items": [{"kind": "python", "type": "NoneType", "value": None}, {"kind": "python", "type": "bool", "value": True}],
            },
        },
    }  # fmt: skip
    assert args["flag"] == {"kind": "python", "type": "str", "value": "on"}
    assert args["n"] == {"kind": "python", "type": "float", "value": "nan"}
    assert args["p"] == {
        "kind": "namedtuple",
        "type": "Point",
        "items": {"x": {"kind": "python", "type": "int", "value": 1}, "y": {"kind": "tensor", "shape": [4], "dtype": "float32"}},
    }  # fmt: skip
    assert args["r"] == {"kind": "ragged", "shape": [2, None], "dtype": "int32", "ragged_rank": 1, "row_splits_dtype": "int64"}
    assert args["s"] == {"kind": "sparse", "shape": [2, 2], "dtype": "float32"}
    assert args["v"] == {"kind": "variable", "shape": [], "dtype": "float32", "trainable": False}
    assert args["ds"]["kind"] == "other" and args["ds"]["type"] == "DatasetSpec"
    json.dumps(args, allow_nan=False)  # strictly JSON-safe


def test_context_manager_writes_when_the_block_raises(tf, tmp_path):
    from retrace_fix.traces import record_traces

    @tf.function
    def g(x):
        return x

    path = tmp_path / "raised.json"
    with pytest.raises(ZeroDivisionError):
        with record_traces(path):
            g(tf.ones([7]))
            1 / 0
    (f,) = list(load_trace_file(str(path)))
    assert (f.qualname.rsplit(".", 1)[-1], f.calls, f.traces[0].args["x"]["shape"]) == ("g", 1, [7])


def test_time_of_each_traced_call_is_recorded_and_reported(tf, tmp_path):
    from retrace_fix.traces import record_traces

    @tf.function
    def slow_to_trace(x):
        time.sleep(0.05)  # Python code runs only while tracing: each trace costs at least 50 ms
        return x * 2

    path = tmp_path / "timed.json"
    with record_traces(path):
        for n in (1, 2, 1, 3, 4, 4):  # 4 distinct shapes: the first trace and 3 retraces
            slow_to_trace(tf.ones([n]))
    (f,) = list(load_trace_file(str(path)))
    assert (f.calls, [t.args["x"]["shape"] for t in f.traces], [t.count for t in f.traces]) == (6, [[1], [2], [3], [4]], [1] * 4)
    assert all(0.05 <= t.seconds < 60 for t in f.traces), [t.seconds for t in f.traces]
    assert f.retrace_seconds == round(sum(t.seconds for t in f.traces[1:]), 6)
    assert f.retrace_seconds >= 0.15
    code, out, _ = run_cli("report", str(path)).outcome
    assert code == 0
    lines = out.splitlines()
    total, retraces = f"{f.trace_seconds:.3f} s", f"{f.retrace_seconds:.3f} s"
    share = f"{round(100 * f.retrace_seconds / f.trace_seconds)}%"
    assert lines[0].endswith("slow_to_trace: 6 calls, 4 traces, 3 retraces")
    assert lines[-4:] == [
        f"  time: {total} in traced calls, {retraces} ({share}) in retraces",
        "",
        "1 function, 4 traces, 3 retraces",
        f"time in traced calls: {total}, {retraces} ({share}) in retraces",
    ]


def test_functions_outside_the_project_root_are_ignored(tf, tmp_path):
    from retrace_fix.traces import record_traces

    @tf.function
    def h(x):
        return x

    with record_traces(tmp_path / "t.json", project_root=str(tmp_path)) as active:
        h(tf.ones([1]))
    assert len(active.trace_set()) == 0
