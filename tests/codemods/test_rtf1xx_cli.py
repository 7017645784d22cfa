"""RTF001 and the RTF1xx diagnostics through the command line (no TensorFlow import)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from retrace_fix.codemods import RULES
from retrace_fix.findings import Tier
from tests.support.cli_runner import run_cli
from tests.support.tracefiles import with_proofs

DIAGNOSTIC_CODES = [code for code, rule in RULES.items() if rule.tier is Tier.DIAGNOSTIC]

PROBLEMS = textwrap.dedent(
    """\
    import time

    import tensorflow as tf


    @tf.function
    def mixed_type_op(x, y):
        return x + y


    mixed_type_op(tf.constant(1, dtype=tf.int32), tf.constant(2.0))
    mixed_type_op(tf.constant(1.0), tf.constant(2.0))


    @tf.function
    def timed(x):
        return x + time.time()


    for batch in range(3):
        step = tf.function(lambda v: v * 2)
        step(tf.constant(batch))
    """
)

STEPS = textwrap.dedent(
    """\
    import tensorflow as tf


    @tf.function
    def train(x, num_steps):
        total = tf.zeros([])
        for i in range(num_steps):
            total += tf.reduce_sum(x)
        return total


    for n in [10, 20, 30]:
        train(tf.ones([2]), n)
    """
)


def test_codemods_lists_every_code_and_explain_prints_each_page(tmp_path: Path):
    listing = run_cli("codemods", cwd=tmp_path)
    assert listing.returncode == 0
    codes = [line.split()[0] for line in listing.stdout.splitlines() if line.strip()]
    for code in ["RTF001", "RTF002", *DIAGNOSTIC_CODES]:
        assert code in codes
    for code in ["RTF001", *DIAGNOSTIC_CODES]:
        page = run_cli("explain", code, cwd=tmp_path)
        assert page.returncode == 0, page.stderr
        for heading in ("What it does", "Why it retraces", "Example", "Fix safety"):
            assert f"\n{heading}\n" in "\n" + page.stdout, (code, heading)


def test_check_reports_dtype_drift_per_call_functions_and_clocks_with_exit_1(tmp_path: Path):
    (tmp_path / "prog.py").write_text(PROBLEMS)
    result = run_cli("--check", "prog.py", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    lines = result.stdout.splitlines()
    assert any(line.startswith("prog.py:12:15: RTF105 [diagnostic]") for line in lines), lines
    assert any(line.startswith("prog.py:17:16: RTF102 [diagnostic] `time.time()`") for line in lines), lines
    assert any(line.startswith("prog.py:21:12: RTF101 [diagnostic]") for line in lines), lines
    assert (tmp_path / "prog.py").read_text() == PROBLEMS  # --check never writes


def test_each_diagnostic_code_can_be_selected_and_suppressed(tmp_path: Path):
    (tmp_path / "prog.py").write_text(PROBLEMS)
    only = run_cli("--check", "--select", "RTF102", "prog.py", cwd=tmp_path)
    assert [line.split()[1] for line in only.stdout.splitlines()] == ["RTF102"]
    (tmp_path / "prog.py").write_text(
        PROBLEMS.replace("return x + time.time()", "return x + time.time()  # retrace-fix: ignore[RTF102]")
    )
    quiet = run_cli("--check", "prog.py", cwd=tmp_path)
    assert "RTF102" not in quiet.stdout
    assert "RTF105" in quiet.stdout and "RTF101" in quiet.stdout


def test_step_count_fix_then_nothing_left(tmp_path: Path):
    (tmp_path / "train.py").write_text(STEPS)
    diff = run_cli("--diff", "train.py", cwd=tmp_path)
    assert diff.returncode == 1
    assert "+    for i in tf.range(num_steps):" in diff.stdout
    assert "+    train(tf.ones([2]), tf.constant(n))" in diff.stdout
    without = run_cli("--check", "--ignore", "RTF001", "train.py", cwd=tmp_path)
    assert "RTF103" in without.stdout  # not fixed: the varying step count is explained instead
    fixed = run_cli("train.py", cwd=tmp_path)
    assert fixed.returncode == 0
    again = run_cli("--check", "train.py", cwd=tmp_path)
    assert again.returncode == 0 and again.stdout == ""


@pytest.mark.parametrize("flag", [[], ["--unsafe-fixes"]])
def test_predict_loop_is_fixed_only_with_unsafe_fixes(tmp_path: Path, flag: list[str]):
    source = textwrap.dedent(
        """\
        import tensorflow as tf

        model = tf.keras.Sequential([tf.keras.layers.Dense(1)])


        def evaluate(batches):
            return [model.predict(b, verbose=0) for b in batches]
        """
    )
    (tmp_path / "loop.py").write_text(source)
    result = run_cli("--diff", *flag, "loop.py", cwd=tmp_path)
    if flag:
        assert result.returncode == 1
        assert "+    return [model(b, training=False).numpy() for b in batches]" in result.stdout
    else:
        assert result.returncode == 0 and result.stdout == ""
        check = run_cli("--check", "loop.py", cwd=tmp_path)
        assert "RTF002 [unsafe]" in check.stdout
        assert "no internal batching" in check.stdout


RELAX_STEP = textwrap.dedent(
    """\
    import tensorflow as tf


    @tf.function
    def step(x, model):
        return tf.reshape(model(x), [x.shape[0], -1])
    """
)


def _step_traces(batch: int | None) -> str:
    """Three traces of `step` in which only dim 1 of `x` varies (dim 0 is `batch` every time)."""
    traces = [
        {
            "args": {
                "x": {"kind": "tensor", "shape": [batch, width], "dtype": "float32"},
                "model": {"kind": "object", "type": "Dense", "id": 1},
            },
            "count": 1,
            "nested": False,
            "via": "call",
        }
        for width in (3, 5, 7)
    ]
    function = {
        "file": "step.py", "qualname": "step", "firstlineno": 4, "name": "step", "params": ["x", "model"],
        "calls": 3, "reduce_retracing": False, "has_input_signature": False, "traces": traces,
    }
    data = {"format": "retrace-fix-traces", "version": 1, "tensorflow": "2.21.0", "functions": [function]}
    return json.dumps(with_proofs(data))  # as recorded: reduce_retracing was proven on the live function


@pytest.mark.parametrize("batch", [4, None])
def test_reduce_retracing_from_traces_leaves_nothing_for_the_next_run(tmp_path: Path, batch: int | None):
    """RTF004 adds reduce_retracing=True (dim 1 varied); RTF106 must not then report `x.shape[0]` (dim 0 never varied)."""
    (tmp_path / "step.py").write_text(RELAX_STEP)
    (tmp_path / "traces.json").write_text(_step_traces(batch))
    first = run_cli("--traces", "traces.json", "step.py", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert first.stdout == ""
    assert first.stderr == "1 file changed, 1 fix applied, 0 diagnostics, 0 errors\n"
    assert (tmp_path / "step.py").read_text() == RELAX_STEP.replace("@tf.function\n", "@tf.function(reduce_retracing=True)\n")
    again = run_cli("--check", "--traces", "traces.json", "step.py", cwd=tmp_path)
    assert (again.returncode, again.stdout) == (0, "")
    assert again.stderr == "0 files would change, 0 fixes available, 0 diagnostics, 0 errors\n"
    # without the traces the batch dimension is assumed to vary: the read is reported
    guess = run_cli("--check", "step.py", cwd=tmp_path)
    assert guess.returncode == 1
    assert guess.stdout == (
        "step.py:6:34: RTF106 [diagnostic] `x.shape[0]` is `None` here (`reduce_retracing` makes the batch dimension "
        "`None` from the second shape on); use `tf.shape(x)[0]`\n"
    )


# One problem, one finding: a call-site diagnostic (RTF103, RTF105) that repeats what
# RTF001 or RTF003 reports about the same parameter is dropped, unless its own code is
# the only one selected (retrace_fix.codemods.DEFERS_TO).

BLOCKED_STEPS = textwrap.dedent(
    """\
    import tensorflow as tf


    @tf.function
    def train(x, n_steps):
        for i in range(n_steps):
            print(i)
        return x


    train(tf.ones([2]), n_steps=10)
    train(tf.ones([2]), 20)
    """
)

BLOCKED_STEPS_RTF001 = (
    "train.py:6:14: RTF001 [diagnostic] `train` traces once per Python int `n_steps` (10, 20), and the loop is not "
    "provably safe as a `tf.range` loop: line 7: `print(i)` is a Python side effect: it would run once per trace, "
    "not once per iteration\n"
)
BLOCKED_STEPS_RTF103 = (
    "train.py:11:29: RTF103 [diagnostic] `train` receives the Python int `n_steps` = 10, 20 at its call sites: each "
    "value traces a new graph; pass a tensor (`tf.constant(...)`) or give `n_steps` a `tf.TensorSpec` slot in "
    "input_signature\n"
)


@pytest.mark.parametrize(
    "options, expected",
    [
        ([], BLOCKED_STEPS_RTF001),  # every codemod: RTF001 explains the blocked loop, RTF103 is its duplicate
        (["--select", "RTF001,RTF103"], BLOCKED_STEPS_RTF001),
        (["--select", "RTF001"], BLOCKED_STEPS_RTF001),
        (["--select", "RTF103"], BLOCKED_STEPS_RTF103),  # selected alone, still reported
        (["--ignore", "RTF001"], BLOCKED_STEPS_RTF103),
    ],
)
def test_step_count_is_reported_once(tmp_path: Path, options: list[str], expected: str):
    (tmp_path / "train.py").write_text(BLOCKED_STEPS)
    result = run_cli("--check", *options, "train.py", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (1, expected), result.stderr
    summary = [line for line in result.stderr.splitlines() if not line.startswith("hint: ")]  # test_next_step.py
    assert summary == ["0 files would change, 0 fixes available, 1 diagnostic, 0 errors"]


def test_step_count_suppressions(tmp_path: Path):
    # suppressing RTF001 at the loop also hides RTF103's duplicate of it ...
    (tmp_path / "train.py").write_text(
        BLOCKED_STEPS.replace("range(n_steps):", "range(n_steps):  # retrace-fix: ignore[RTF001]")
    )
    result = run_cli("--check", "train.py", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (0, ""), result.stderr
    # ... but not when RTF103 is the only code selected (then nothing is a duplicate)
    alone = run_cli("--check", "--select", "RTF103", "train.py", cwd=tmp_path)
    assert alone.stdout == BLOCKED_STEPS_RTF103
    # suppressing RTF103 at the call site never hides RTF001
    (tmp_path / "train.py").write_text(
        BLOCKED_STEPS.replace("n_steps=10)", "n_steps=10)  # retrace-fix: ignore[RTF103]")
    )
    result = run_cli("--check", "train.py", cwd=tmp_path)
    assert result.stdout == BLOCKED_STEPS_RTF001


DTYPE_DRIFT = textwrap.dedent(
    """\
    import tensorflow as tf


    @tf.function
    def mixed_type_op(x, y):
        return x + y


    mixed_type_op(tf.constant(1, dtype=tf.int32), tf.constant(2.0))
    mixed_type_op(tf.constant(1.0), tf.constant(2.0))
    mixed_type_op(tf.constant(1, dtype=tf.int64), tf.constant(2.0))
    """
)

DTYPE_DRIFT_RTF003 = (
    "prog.py:4:1: RTF003 [diagnostic] `mixed_type_op` traced 3 times: `x`: dtype varies (int32, float32, int64) — "
    "cast at the call site\n"
)
DTYPE_DRIFT_RTF105 = (
    "prog.py:10:15: RTF105 [diagnostic] `mixed_type_op` receives `x` as int32, float32 and int64 tensors: each dtype "
    "traces a new graph; cast at the call site (`tf.cast(..., tf.float32)`)\n"
)


def _dtype_traces() -> str:
    traces = [
        {
            "args": {"x": {"kind": "tensor", "shape": [], "dtype": dtype},
                     "y": {"kind": "tensor", "shape": [], "dtype": "float32"}},
            "count": 1, "nested": False, "via": "call",
        }
        for dtype in ("int32", "float32", "int64")
    ]
    function = {
        "file": "prog.py", "qualname": "mixed_type_op", "firstlineno": 4, "name": "mixed_type_op",
        "params": ["x", "y"], "calls": 3, "reduce_retracing": False, "has_input_signature": False, "traces": traces,
    }
    data = {"format": "retrace-fix-traces", "version": 1, "tensorflow": "2.21.0", "functions": [function]}
    return json.dumps(with_proofs(data))  # as recorded: reduce_retracing was proven on the live function


@pytest.mark.parametrize(
    "options, expected",
    [
        (["--traces", "traces.json"], DTYPE_DRIFT_RTF003),  # the recorded evidence wins over the static guess
        (["--traces", "traces.json", "--select", "RTF003,RTF105"], DTYPE_DRIFT_RTF003),
        (["--traces", "traces.json", "--select", "RTF105"], DTYPE_DRIFT_RTF105),  # selected alone, still reported
        (["--traces", "traces.json", "--ignore", "RTF003"], DTYPE_DRIFT_RTF105),
        ([], DTYPE_DRIFT_RTF105),  # no traces: RTF003 does not run
    ],
)
def test_dtype_drift_is_reported_once(tmp_path: Path, options: list[str], expected: str):
    (tmp_path / "prog.py").write_text(DTYPE_DRIFT)
    (tmp_path / "traces.json").write_text(_dtype_traces())
    result = run_cli("--check", *options, "prog.py", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (1, expected), result.stderr
    summary = [line for line in result.stderr.splitlines() if not line.startswith("hint: ")]  # test_next_step.py
    assert summary == ["0 files would change, 0 fixes available, 1 diagnostic, 0 errors"]


def test_dtype_drift_suppressions(tmp_path: Path):
    (tmp_path / "traces.json").write_text(_dtype_traces())
    # suppressing RTF003 on the decorator line also hides RTF105's duplicate of it
    (tmp_path / "prog.py").write_text(DTYPE_DRIFT.replace("@tf.function\n", "@tf.function  # retrace-fix: ignore[RTF003]\n"))
    result = run_cli("--check", "--traces", "traces.json", "prog.py", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (0, ""), result.stderr
    # suppressing RTF105 at the call site never hides RTF003
    (tmp_path / "prog.py").write_text(
        DTYPE_DRIFT.replace("mixed_type_op(tf.constant(1.0), tf.constant(2.0))",
                            "mixed_type_op(tf.constant(1.0), tf.constant(2.0))  # retrace-fix: ignore[RTF105]")
    )
    result = run_cli("--check", "--traces", "traces.json", "prog.py", cwd=tmp_path)
    assert result.stdout == DTYPE_DRIFT_RTF003
