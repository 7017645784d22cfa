"""Executed: RTF009 (bind-callable-once) and RTF010 (compile-in-loop) fixes trace less, with equal outputs.

Each golden case's ``input.py`` and ``expected.py`` are imported under TensorFlow in this
process (one import of TensorFlow for the module) and their ``main`` run; trace counts come
from TensorFlow itself (``experimental_get_tracing_count``, and the Keras train functions a
``fit`` uses), not from the recorder.  TensorFlow keys a callable argument by a weak reference: two bound
methods of one object and function match while both live, and a freed one never matches
again, which is why a bound method made at every iteration retraces every time.  RTF006's ``tf.function(self.m)`` cache is executed by
``test_semantic_golden_tf.py`` (``golden/hoist-tf-function/method-wrap-cached``: 10 traces
before, 2 after).
"""

from __future__ import annotations

from pathlib import Path

import pytest

tf = pytest.importorskip("tensorflow")  # skipped, not an error, where TensorFlow is not installed

from tests.support.case_modules import load_module  # noqa: E402

pytestmark = pytest.mark.tf

GOLDEN = Path(__file__).resolve().parents[2] / "golden"


def both_sides(case: str):
    directory = GOLDEN / case
    return load_module(directory / "input.py"), load_module(directory / "expected.py")


@pytest.fixture(scope="module")
def batches():
    return [tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0])]


@pytest.mark.parametrize(
    "case, before, after",
    [
        # 8 bound methods in the loop of main, 3 in Agent.train -> one per loop, and the two kept bound
        # methods are equal (same object, same function) while both live: one trace
        ("bind-callable-once/bound-method-applied", 11, 1),
        # a new partial, partial and lambda at each of 2 iterations -> one of each
        ("bind-callable-once/partial-and-lambda-applied", 6, 3),
        # run_epoch is a plain function that passes `fn` on to the tf.function `step`: 2 callables x 3 epochs
        ("bind-callable-once/forwarded-to-tf-function", 6, 2),
    ],
)
def test_callable_bound_once_traces_less_with_the_same_results(case, before, after, batches):
    original, fixed = both_sides(case)
    results_before = [float(v) for v in original.main(batches)]
    results_after = [float(v) for v in fixed.main(batches)]
    assert results_after == pytest.approx(results_before, rel=1e-6)
    traced = getattr(original, "step", None) and "step" or "run_epoch"
    assert getattr(original, traced).experimental_get_tracing_count() == before
    assert getattr(fixed, traced).experimental_get_tracing_count() == after


def test_compile_once_keeps_one_train_function_with_the_same_losses(monkeypatch):
    """Three compiles build three train functions, each traced once; the fix keeps one (plain SGD has no
    state, so the losses stay the same)."""
    train_functions: list = []
    real_fit = tf.keras.Model.fit

    def fit(self, *args, **kwargs):
        history = real_fit(self, *args, **kwargs)
        train_functions.append(self.train_function)
        return history

    monkeypatch.setattr(tf.keras.Model, "fit", fit)
    original, fixed = both_sides("compile-in-loop/learning-rate-unsafe-applied")
    losses = {}
    traced = {}
    for side, module in (("before", original), ("after", fixed)):
        tf.keras.utils.set_random_seed(0)
        train_functions.clear()
        losses[side] = module.main()
        distinct = {id(f): f for f in train_functions}.values()
        traced[side] = (len(distinct), sum(_tracing_count(f) for f in distinct))
    assert losses["after"] == pytest.approx(losses["before"], rel=1e-5)
    assert traced == {"before": (3, 3), "after": (1, 1)}


def _tracing_count(function) -> int:
    """Traces of a Keras train function (a tf.function, or a plain function around one)."""
    count = getattr(function, "experimental_get_tracing_count", None)
    if count is not None:
        return count()
    inner = [c.cell_contents for c in (function.__closure__ or ())
             if hasattr(c.cell_contents, "experimental_get_tracing_count")]
    assert inner, f"no tf.function in Keras's train function {function!r}"
    return sum(f.experimental_get_tracing_count() for f in inner)
