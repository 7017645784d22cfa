"""RTF001 and the RTF002 unsafe rewrite under real TensorFlow.

For every golden case of ``range-to-tf-range`` that changes the code (and the
unsafe ``predict`` loop cases), the case's ``drive.py`` runs once against
``input.py`` and once against ``expected.py``: the printed results must match
(allclose) and no tf.function may trace more often after the fix.  The step-count
cases must end with exactly one trace.

The must-not-change hazard cases are justified the other way round: a naive
``range`` -> ``tf.range`` rewrite of them breaks (an exception) or changes what
the program does.

Everything runs in this process (one TensorFlow import): ``input`` is loaded
from the chosen file into ``sys.modules`` and ``drive.py`` is executed with
``runpy``.
"""

from __future__ import annotations

import contextlib
import io
import re
import runpy
import sys
import types
from pathlib import Path

import pytest

pytestmark = pytest.mark.tf

tf = pytest.importorskip("tensorflow")
np = pytest.importorskip("numpy")

GOLDEN = Path(__file__).resolve().parents[2] / "golden"
RANGE = GOLDEN / "range-to-tf-range"

#: cases whose fix must bring every listed function down to one trace
ONE_TRACE = {
    "step-count-literal-call-sites": "train_with_python_args",
    "step-count-loop-variable": "run_steps",
    "aliases": "scaled",
    "comments-preserved": "accumulate",
    "with-input-signature-from-traces": "repeat_add",
    "step-count-module-variable": "train",
    "step-count-method": "forecast",
}

_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:e[-+]?\d+)?|nan|inf")


def run_drive(case_dir: Path, source: Path | str, tmp_path: Path, name: str) -> str:
    """Run ``case_dir/drive.py`` with ``import input`` bound to ``source``; return its stdout."""
    if isinstance(source, str):  # source text: write it where AutoGraph can read it back
        path = tmp_path / f"{name}.py"
        path.write_text(source, encoding="utf-8")
    else:
        path = source
    module = types.ModuleType("input")
    module.__file__ = str(path)
    saved = sys.modules.get("input")
    sys.modules["input"] = module
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            tf.keras.utils.set_random_seed(0)
            exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), module.__dict__)
            runpy.run_path(str(case_dir / "drive.py"), run_name="__main__")
    finally:
        if saved is None:
            sys.modules.pop("input", None)
        else:
            sys.modules["input"] = saved
    return out.getvalue()


def parse(output: str) -> tuple[list[list[float]], dict[str, int], list[str]]:
    results, traces, other = [], {}, []
    for line in output.splitlines():
        if line.startswith("result"):
            results.append([float(n) for n in _NUMBER.findall(line[len("result"):])])
        elif line.startswith("traces "):
            _, name, count = line.split()
            traces[name] = int(count)
        elif line.startswith("dtype"):
            other.append(line)
    return results, traces, other


def changed_cases() -> list[Path]:
    cases = [
        d for d in sorted(RANGE.iterdir())
        if (d / "drive.py").exists() and (d / "expected.py").exists()  # no expected.py: must not change
    ]
    predict = GOLDEN / "predict-to-call"
    return cases + [predict / "outside-tf-function-unsafe-fix", predict / "outside-tf-function-unsafe-forms"]


@pytest.mark.parametrize("case_dir", changed_cases(), ids=lambda d: f"{d.parent.name}/{d.name}")
def test_fix_keeps_results_and_never_adds_traces(case_dir: Path, tmp_path: Path):
    before = parse(run_drive(case_dir, case_dir / "input.py", tmp_path, "before"))
    after = parse(run_drive(case_dir, case_dir / "expected.py", tmp_path, "after"))
    results_before, traces_before, other_before = before
    results_after, traces_after, other_after = after
    assert results_before, "drive.py printed no results"
    assert len(results_before) == len(results_after)
    for one, two in zip(results_before, results_after):
        np.testing.assert_allclose(two, one, rtol=1e-5, atol=1e-6)
    assert other_before == other_after  # e.g. the predict loop still returns a float32 ndarray
    assert traces_before.keys() == traces_after.keys()
    for name, count in traces_before.items():
        assert traces_after[name] <= count, f"{name}: {count} traces before, {traces_after[name]} after"
    if case_dir.name in ONE_TRACE:
        name = ONE_TRACE[case_dir.name]
        assert traces_before[name] > 1
        assert traces_after[name] == 1


def naive_rewrite(source: str) -> str:
    """What a rewriter without the safety proof would do: every ``range`` loop becomes ``tf.range``."""
    return source.replace(" in range(", " in tf.range(")


@pytest.mark.parametrize(
    "case, error, match",
    [
        ("hazard-list-index", TypeError, "list indices must be integers"),
        ("hazard-float-arithmetic", TypeError, "Expected int32"),
        ("hazard-list-append", Exception, "cannot be accessed from FuncGraph"),
        ("hazard-tf-variable", TypeError, "Tensor is unhashable"),
        ("python-number-accumulator", TypeError, "does not match type int32"),
    ],
)
def test_naive_tf_range_breaks_the_hazards(case: str, error: type, match: str, tmp_path: Path):
    case_dir = RANGE / case
    assert not (case_dir / "expected.py").exists()  # the case must not change
    run_drive(case_dir, case_dir / "input.py", tmp_path, "original")  # the original works
    naive = naive_rewrite((case_dir / "input.py").read_text())
    assert naive != (case_dir / "input.py").read_text()
    with pytest.raises(error, match=match):
        run_drive(case_dir, naive, tmp_path, "naive")


def test_naive_tf_range_changes_python_side_effects(tmp_path: Path):
    case_dir = RANGE / "hazard-print"
    original = run_drive(case_dir, case_dir / "input.py", tmp_path, "original")
    naive = run_drive(case_dir, naive_rewrite((case_dir / "input.py").read_text()), tmp_path, "naive")
    # unrolled: one print per iteration per trace (2 + 3); graph loop: one per trace
    assert original.count("tracing step") == 5
    assert naive.count("tracing step") == 2
