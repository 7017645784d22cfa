"""Executed: a tf.function around a forwarding lambda or ``functools.partial``, hoisted by RTF006.

Issue 22, pattern 3/5 (tensorflow/addons#1830): ``equalize`` wrapped ``lambda img:
equalize_image(img, data_format=data_format)`` (or ``functools.partial(...)``) in a new
tf.function at every call, so every call traced.  The case
``golden/hoist-tf-function/forward-lambda-partial`` is fixed by the CLI (default mode) and both
versions run on the same images: the outputs are equal, and TensorFlow's own count
(``experimental_get_tracing_count``, summed over every Function object) drops from one trace per
call to one per distinct bound Python value.  One import of TensorFlow, one fixture for the module.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

tf = pytest.importorskip("tensorflow")  # skipped, not an error, where TensorFlow is not installed

import numpy as np  # noqa: E402

from tests.support.case_modules import CountingTf, load_module  # noqa: E402
from tests.support.cli_runner import run_cli  # noqa: E402

pytestmark = pytest.mark.tf

CASE = Path(__file__).resolve().parents[2] / "golden" / "hoist-tf-function" / "forward-lambda-partial"
CALLS = 3  # images: main's loop calls each of the four functions once per image


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """(fixed text, {"before"/"after": (outputs, Function objects made per call, module)})."""
    directory = Path(os.path.realpath(tmp_path_factory.mktemp("hoist-forward")))
    shutil.copyfile(CASE / "input.py", directory / "before.py")
    shutil.copyfile(CASE / "input.py", directory / "after.py")
    result = run_cli("after.py", cwd=directory)
    assert result.returncode == 0, result.stderr
    rng = np.random.default_rng(0)
    images = [tf.constant(rng.uniform(0, 255, size=(4, 4, 3)).astype("float32")) for _ in range(CALLS)]
    out = {}
    for side in ("before", "after"):
        module = load_module(directory / f"{side}.py", f"_hoist_forward_{side}")
        made: list = []
        module.tf = CountingTf(tf, made)
        outputs = [value.numpy() for value in module.main(images)]
        module.tf = tf
        out[side] = (outputs, made, module)
    return (directory / "after.py").read_text(), out


def test_the_cli_writes_the_golden_fix(runs):
    fixed, _ = runs
    assert fixed == (CASE / "expected.py").read_text()


def test_outputs_are_the_same(runs):
    _, out = runs
    before, after = out["before"][0], out["after"][0]
    assert len(before) == len(after) == 4 * CALLS
    for old, new in zip(before, after):
        np.testing.assert_allclose(new, old, rtol=1e-6, atol=1e-6)


def test_every_call_made_and_traced_a_new_function_before(runs):
    _, out = runs
    made = out["before"][1]
    assert len(made) == 4 * CALLS  # equalize, equalize_partial, shift_twice, shift_swapped: one per call
    assert [f.experimental_get_tracing_count() for f in made] == [1] * (4 * CALLS)


def test_after_no_call_makes_a_function_and_each_value_traces_once(runs):
    _, out = runs
    made, module = out["after"][1], out["after"][2]
    assert made == []
    counts = {name: getattr(module, name).experimental_get_tracing_count()
              for name in ("_tf_equalize_image", "_tf_shifted", "_shifted_fn")}
    # data_format "channels_last" (equalize) and "channels_first" (equalize_partial): 2 traces
    assert counts == {"_tf_equalize_image": 2, "_tf_shifted": 1, "_shifted_fn": 1}
    assert sum(counts.values()) == 4 < 4 * CALLS
