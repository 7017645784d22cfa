"""RTF001 and the RTF1xx diagnostics through the command line (no TensorFlow import)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

DIAGNOSTIC_CODES = ["RTF101", "RTF102", "RTF103", "RTF104", "RTF105", "RTF106", "RTF107"]

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


def run_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RETRACE_FIX")}
    return subprocess.run(
        [sys.executable, "-m", "retrace_fix", *args], cwd=cwd, capture_output=True, text=True, env=env, timeout=120
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
    return json.dumps({"format": "retrace-fix-traces", "version": 1, "tensorflow": "2.21.0", "functions": [function]})


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
