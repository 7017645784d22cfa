"""Proofs on the live function (real TensorFlow, in-process): what a trial may and may not do.

The programs live in a module written to a temporary project, recorded with a
``Recorder`` whose project root is that directory; ``Recorder.prove()`` then
trial-traces the candidates the way the end of a recording does.
"""

from __future__ import annotations

import gc
import importlib
import sys
import textwrap

import pytest

pytest.importorskip("tensorflow")  # skipped, not an error, where TensorFlow is not installed

pytestmark = pytest.mark.tf

PROGRAM = """
import tensorflow as tf

PRINTED = []


@tf.function
def predict(x):
    print("tracing predict")  # a trace-time side effect: a trial must not show it
    PRINTED.append(1)
    return tf.reduce_sum(x, axis=1)


class Lazy(tf.Module):
    def __init__(self):
        super().__init__()
        self.scale = None

    @tf.function
    def __call__(self, x):
        if self.scale is None:  # creates its variable on the first trace only
            self.scale = tf.Variable(2.0)
        return x * self.scale


@tf.function
def train_step(x, model):
    return tf.reduce_sum(model(x))


@tf.function
def outer(x):
    return inner(x) + 1.0


@tf.function
def inner(x):
    return x * 2.0


def run(lazy, model):
    for n in (1, 2, 3):
        predict(tf.ones([n, 2]))
        lazy(tf.ones([n]))
        train_step(tf.ones([n, 3]), model)
        outer(tf.ones([n]))
"""


@pytest.fixture(scope="module")
def tf():
    return importlib.import_module("tensorflow")


@pytest.fixture()
def program(tf, tmp_path, monkeypatch):
    from retrace_fix.traces import recorder

    (tmp_path / "prog.py").write_text(textwrap.dedent(PROGRAM), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("prog", None)
    module = importlib.import_module("prog")
    rec = recorder.activate(recorder.Recorder(str(tmp_path)))
    recorder._PROOF_CACHE.clear()
    yield module, rec
    recorder.deactivate(rec)
    sys.modules.pop("prog", None)


def by_name(trace_set):
    return {f.qualname: f for f in trace_set}


def results(function):
    return {key.split(" #")[0]: (proof.result, proof.error or proof.note) for key, proof in function.proofs.items()}


def test_a_trial_leaves_the_users_functions_alone(program, capsys):
    module, rec = program
    lazy, model = module.Lazy(), module.tf.keras.layers.Dense(1)
    module.run(lazy, model)
    counts = {name: getattr(module, name).experimental_get_tracing_count() for name in ("predict", "train_step", "outer", "inner")}
    counts["lazy"] = lazy.__call__.experimental_get_tracing_count()
    variables = list(lazy.variables) + list(model.variables)
    printed = len(module.PRINTED)
    before = rec.trace_set()
    capsys.readouterr()
    rec.prove()
    after = rec.trace_set()
    # no new trace or call recorded, the users' caches and variables as they were, nothing printed
    assert [(f.key, f.calls, len(f.traces)) for f in after] == [(f.key, f.calls, len(f.traces)) for f in before]
    assert {name: getattr(module, name).experimental_get_tracing_count() for name in ("predict", "train_step", "outer")} == {
        name: counts[name] for name in ("predict", "train_step", "outer")
    }
    assert lazy.__call__.experimental_get_tracing_count() == counts["lazy"]
    assert list(lazy.variables) + list(model.variables) == variables
    assert capsys.readouterr() == ("", "")
    assert len(module.PRINTED) > printed  # the trial did trace the body (its prints were swallowed)
    functions = by_name(after)
    assert results(functions["predict"])["input_signature: x=tf.TensorSpec(shape=[None, 2], dtype=tf.float32)"] == ("traced", None)
    assert results(functions["train_step"])["reduce_retracing: x=float32[None, 3]"] == ("traced", None)


def test_a_trial_never_creates_variables(program):
    """The lazy layer's first trace creates its variable: a fresh function would create another."""
    module, rec = program
    lazy = module.Lazy()
    for n in (1, 2, 3):
        lazy(module.tf.ones([n]))
    rec.prove()
    (function,) = [f for f in rec.trace_set() if f.qualname == "Lazy.__call__"]
    signature = results(function)["input_signature: x=tf.TensorSpec(shape=[None], dtype=tf.float32)"]
    assert signature == ("traced", None)  # the variable exists by now: the trial only reads it
    fresh = module.Lazy()
    fresh(module.tf.ones([1]))
    fresh.scale = None  # as if it had never run: the trial would have to create it
    from retrace_fix.traces import prover
    from retrace_fix.traces.signature_candidates import Candidate
    from retrace_fix.traces.summaries import TensorSpecInfo

    live = prover.live_function(fresh.__call__)
    candidate = Candidate("input_signature", "k", signature=[("x", TensorSpecInfo("tensor", (None,), "float32"))])
    proof = prover.trial_trace(live, candidate, lambda number: None)
    assert proof.result == "failed" and "create a tf.Variable" in proof.error
    assert fresh.scale is None


def test_by_default_nothing_the_program_dropped_is_kept_and_the_proofs_say_why(program):
    """A program builds its model and trainer inside main() and returns: they are gone by exit,
    when proofs run; the recorder holds nothing strongly (it would change their lifetimes)."""
    import weakref

    module, rec = program
    refs = []

    def main():
        lazy, model = module.Lazy(), module.tf.keras.layers.Dense(1)
        refs.extend([weakref.ref(lazy), weakref.ref(model)])
        module.run(lazy, model)

    main()
    gc.collect()
    assert [ref() for ref in refs] == [None, None]  # as without the recorder
    rec.prove()
    functions = by_name(rec.trace_set())
    assert results(functions["Lazy.__call__"])["input_signature: x=tf.TensorSpec(shape=[None], dtype=tf.float32)"] == (
        "not_run", "the Lazy instance was no longer alive at the end of the program"
    )
    assert results(functions["train_step"])["reduce_retracing: x=float32[None, 3]"] == (
        "not_run", "an argument (Dense) was no longer alive at the end of the program"
    )
    # what needs nothing of the program's objects is still proved
    assert results(functions["predict"])["input_signature: x=tf.TensorSpec(shape=[None, 2], dtype=tf.float32)"] == ("traced", None)


def test_instances_and_arguments_the_program_dropped_are_kept_for_the_proofs_on_request(program, monkeypatch):
    """$RETRACE_FIX_PROOF_KEEP_ALIVE=1: the recorder holds the newest instance and object arguments
    of each function that retraced, so the proofs of main()'s objects run (lifetimes change)."""
    monkeypatch.setenv("RETRACE_FIX_PROOF_KEEP_ALIVE", "1")
    module, rec = program

    def main():
        module.run(module.Lazy(), module.tf.keras.layers.Dense(1))

    main()
    gc.collect()
    rec.prove()
    functions = by_name(rec.trace_set())
    assert results(functions["Lazy.__call__"])["input_signature: x=tf.TensorSpec(shape=[None], dtype=tf.float32)"] == ("traced", None)
    assert results(functions["train_step"])["reduce_retracing: x=float32[None, 3]"] == ("traced", None)


def test_only_the_newest_instance_of_a_function_is_kept_on_request(program, monkeypatch):
    import weakref

    monkeypatch.setenv("RETRACE_FIX_PROOF_KEEP_ALIVE", "1")
    module, rec = program
    first = module.Lazy()
    for n in (1, 2):
        first(module.tf.ones([n]))
    dropped = weakref.ref(first)
    del first
    second = module.Lazy()
    for n in (3, 4):
        second(module.tf.ones([n]))
    gc.collect()
    assert dropped() is None  # the second instance's retraces replaced what was held
    kept = weakref.ref(second)
    del second
    gc.collect()
    assert kept() is not None
    rec.start()  # a new recording lets go of it
    gc.collect()
    assert kept() is None


def test_dead_instances_and_arguments_are_not_proven_and_say_why(program, monkeypatch):
    module, rec = program
    lazy, model = module.Lazy(), module.tf.keras.layers.Dense(1)
    monkeypatch.setenv("RETRACE_FIX_PROOF_SECONDS", "0")  # proofs off while running: nothing is held
    module.run(lazy, model)
    del lazy, model
    gc.collect()
    monkeypatch.delenv("RETRACE_FIX_PROOF_SECONDS")
    rec.prove()
    functions = by_name(rec.trace_set())
    assert set(results(functions["Lazy.__call__"]).values()) == {
        ("not_run", "the Lazy instance was no longer alive at the end of the program")
    }
    assert results(functions["train_step"])["reduce_retracing: x=float32[None, 3]"] == (
        "not_run", "an argument (Dense) was no longer alive at the end of the program"
    )
    # a fix without a proof is unsafe at most, with the reason
    from retrace_fix.traces.signature_candidates import search_candidates, stored_oracle
    from retrace_fix.traces.summaries import ParamInfo

    plan = search_candidates(functions["train_step"], [ParamInfo("x"), ParamInfo("model")], None,
                           stored_oracle(functions["train_step"]))
    assert plan.relax.status == "unproven" and "no longer alive" in plan.relax.note


def test_the_time_budget_bounds_the_proofs(program):
    from retrace_fix.traces.prover import Budget

    module, rec = program
    module.run(module.Lazy(), module.tf.keras.layers.Dense(1))
    rec.prove(Budget(total=0.0))  # proofs off: nothing is stored
    assert all(not f.proofs for f in rec.trace_set())
    rec.prove(Budget(total=60.0, per_function=1e-9))
    proofs = [p for f in rec.trace_set() for p in f.proofs.values()]
    assert proofs and {(p.result, p.note) for p in proofs} == {("not_run", "the time budget for proofs was spent ($RETRACE_FIX_PROOF_SECONDS)")}


def test_call_sites_name_the_calling_line_and_nested_traces_have_none(program):
    module, rec = program
    module.run(module.Lazy(), module.tf.keras.layers.Dense(1))
    functions = by_name(rec.trace_set())
    lines = textwrap.dedent(PROGRAM).splitlines()

    def line_of(text):
        return next(i for i, line in enumerate(lines, 1) if line.strip() == text)

    predict_line, outer_line = line_of("predict(tf.ones([n, 2]))"), line_of("outer(tf.ones([n]))")
    assert [(c.file, c.line, c.column, c.count) for c in functions["predict"].call_sites] == [("prog.py", predict_line, 8, 3)]
    assert [(c.file, c.line, c.column, c.count) for c in functions["outer"].call_sites] == [("prog.py", outer_line, 8, 3)]
    assert functions["inner"].call_sites == []  # traced while `outer` traced
    assert all(t.nested for t in functions["inner"].traces)


def test_a_python_function_is_held_only_when_that_keeps_nothing_else_alive():
    """A closure-free def with literal defaults (a tf.function re-created per call around a
    nested def) is held, so its proofs run; a closure or a default object is held weakly."""
    import weakref

    from retrace_fix.traces.prover import _function_holder

    class Model:
        pass

    def make():
        model = Model()

        def plain(x, scale=2.0):
            return x * scale

        def closure(x):
            return model

        def default(x, m=Model()):
            return m

        return plain, closure, default, weakref.ref(model)

    plain, closure, default, model = make()
    holders = [_function_holder(f) for f in (plain, closure, default)]
    assert [isinstance(h, weakref.ref) for h in holders] == [False, True, True]
    del plain, closure, default
    gc.collect()
    assert holders[0]() is not None and holders[1]() is None and holders[2]() is None
    assert model() is None  # nothing held the closure's cell


CONSTANT_PROGRAM = """
import tensorflow as tf


@tf.function
def own(x, i):
    return x + tf.constant(i) + tf.constant(i, tf.int32)


@tf.function
def computed(x, i):
    return x + tf.constant(i + 1)


def run():
    for step in (1, 2, 3):
        own(tf.constant(1), step)
        computed(tf.constant(1), step)
"""


def test_the_body_s_own_tf_constant_is_proven_as_a_conversion_and_restored(tf, tmp_path, monkeypatch):
    """The probe traces ``tf.constant(i)`` as a conversion of exactly ``i``'s tensor (``tf.constant(i + 1)``
    still fails), and ``tf.constant`` is the real one again afterwards."""
    from retrace_fix.traces import recorder

    (tmp_path / "prog_const.py").write_text(textwrap.dedent(CONSTANT_PROGRAM), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("prog_const", None)
    original = tf.constant
    rec = recorder.activate(recorder.Recorder(str(tmp_path)))
    recorder._PROOF_CACHE.clear()
    try:
        module = importlib.import_module("prog_const")
        module.run()
        rec.prove()
        functions = by_name(rec.trace_set())
    finally:
        recorder.deactivate(rec)
        sys.modules.pop("prog_const", None)
    assert tf.constant is original
    own = results(functions["own"])
    assert own["scalar i=int32: x=int32[], i=int32[]"][0] == "failed"
    assert own["scalar i=int32 (tf.constant of i as conversions): x=int32[], i=int32[]"] == ("traced", None)
    assert own["call_site: i=int32 (tf.constant of i as conversions)"] == ("traced", None)
    computed = results(functions["computed"])
    assert computed["scalar i=int32 (tf.constant of i as conversions): x=int32[], i=int32[]"][0] == "failed"
    assert not any(key.startswith("call_site") and result == "traced" for key, (result, _) in computed.items())
