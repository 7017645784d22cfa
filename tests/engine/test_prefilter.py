"""The prefilter decides which codemods a file needs LibCST for, from its bytes and then from
CPython's tree (:meth:`RetraceCodemod.might_apply_to_tree`): it must never drop a codemod
that would report something.  Checked on every golden source, and on the cases RTF002's
tree check (a predict call in a loop, or where a tf.function can be) tells apart.
"""

from __future__ import annotations

import functools

import libcst as cst
import pytest

from retrace_fix.codemods import REGISTRY
from retrace_fix.engine.options import FileJob, RunOptions, selected_codemods
from retrace_fix.engine.prefilter import codemods_to_run
from retrace_fix.engine.process import process_file
from tests.support.golden import GOLDEN_ROOT

SOURCES = sorted(p for p in GOLDEN_ROOT.glob("*/*/*.py") if p.name in ("input.py", "expected.py"))


def planned(text: str) -> set[str]:
    options = RunOptions(unsafe_fixes=True)
    to_run, _, _ = codemods_to_run(text.encode(), text, selected_codemods(options), options, has_traces=False)
    return {cls.CODE for cls in to_run}


@pytest.fixture
def parse_once(monkeypatch):
    """One LibCST parse per text for the test's runs: a tree is immutable, so the runs of one
    source (a run per codemod the prefilter dropped) may share it; parsing again was about half
    of this module's time."""
    monkeypatch.setattr(cst, "parse_module", functools.cache(cst.parse_module))


@pytest.mark.parametrize("path", SOURCES, ids=[p.relative_to(GOLDEN_ROOT).as_posix() for p in SOURCES])
def test_the_prefilter_keeps_every_codemod_that_reports(path, tmp_path, parse_once):
    target = tmp_path / "input.py"
    target.write_bytes(path.read_bytes())
    job = FileJob(path=target, display="input.py", relpath="input.py")
    keeps = planned(path.read_text(encoding="utf-8"))
    for cls in REGISTRY:
        if cls.NEEDS_TRACES or cls.CODE in keeps:
            continue  # kept: whatever it reports, it runs
        result = process_file(job, RunOptions(select=cls.codes(), unsafe_fixes=True, prefilter=False))
        if result.findings:
            assert cls.CODE in keeps, (cls.CODE, [f.code for f in result.findings])


KERAS = "import tensorflow as tf\nmodel = tf.keras.Sequential([tf.keras.layers.Dense(1)])\n"


@pytest.mark.parametrize(
    "text, needed",
    [
        (KERAS + "for x in data:\n    y = model.predict(x)\n", True),  # the unsafe form: in a loop
        (KERAS + "ys = [model.predict(x) for x in data]\n", True),
        (KERAS + "y = model.predict(x)\n", False),  # once, outside any tf.function: nothing to say
        (KERAS + "@tf.function\ndef f(x):\n    return model.predict(x)\n", True),
        (KERAS + "def g(x):\n    return model.predict(x)\nf = tf.function(g)\n", True),  # wrapped by name
        (KERAS + "@tf.function\ndef f(x):\n    return x\n\ndef g(x):\n    return model.predict(x)\n", False),
        ("y = model.predict(x)\nfor x in data:\n    print(x)\n", False),
        (KERAS + "for y in model.predict(x):\n    print(y)\n", False),  # once: the loop's iterable
        (KERAS + "ys = [y for y in model.predict(x)]\n", False),
        (KERAS + "while model.predict(x) > 0:\n    x = x - 1\n", True),  # a while loop's test runs each time
        (KERAS + "for x in data:\n    for y in model.predict(x):\n        print(y)\n", True),  # an outer body
        ("import sklearn\nfor x in data:\n    y = est.predict(x)\n", False),  # no Keras model built here
    ],
)
def test_predict_calls_that_cannot_be_reported_are_not_parsed(text, needed):
    assert ("RTF002" in planned(text)) is needed


TF_STEP = "import tensorflow as tf\n\n@tf.function\ndef step(fn, x):\n    return fn(x)\n\n"


@pytest.mark.parametrize(
    "text, needed",
    [
        (TF_STEP + "for b in data:\n    step(agent.update, b)\n", True),  # a tf.function of this module
        (TF_STEP + "for b in data:\n    step(lambda v: v, b)\n", True),
        (TF_STEP + "for b in data:\n    step(functools.partial(f, 1), b)\n", True),
        (TF_STEP + "def run(fn, b):\n    return step(fn, b)\n\nfor b in data:\n    run(agent.update, b)\n", True),
        ("import tensorflow as tf\nstep = tf.function(g)\nfor b in data:\n    step(agent.update, b)\n", True),
        ("import tensorflow as tf\n\nclass A:\n    @tf.function\n    def step(self, fn):\n        return fn()\n\n"
         "    def loop(self):\n        for b in data:\n            self.step(self.update)\n", True),
        # callables passed in a loop, but to functions this module neither defines nor assigns
        (TF_STEP + "for b in data:\n    print(len(self.items), b)\n", False),
        (TF_STEP + "for b in data:\n    xs = sorted(b, key=lambda v: v.size)\n", False),
        (TF_STEP + "for b in data:\n    tf.nest.map_structure(agent.update, b)\n", False),
        (TF_STEP + "step(agent.update, 1)\n", False),  # not in a loop
    ],
)
def test_callables_passed_in_a_loop_need_a_callee_of_this_module(text, needed):
    """RTF009 (and the whole-module parse it needs) only where a loop passes a new callable to a
    function this module defines or assigns: the calls its call-site analysis resolves."""
    assert ("RTF009" in planned(text)) is needed


@pytest.mark.parametrize(
    "text, needed",
    [
        ("for lr in rates:\n    model.compile(optimizer=opt(lr))\n    model.fit(x, y)\n", True),
        ("while True:\n    model.compile('sgd')\n    model.train_on_batch(x, y)\n", True),
        ("model.compile(optimizer='sgd')\nmodel.fit(x, y)\n", False),  # no loop: not even parsed by CPython
        ("for lr in rates:\n    model.compile(optimizer=opt(lr))\n", False),  # nothing trained in it
    ],
)
def test_compile_in_a_loop_is_read_in_the_bytes_first(text, needed):
    from retrace_fix.codemods.compile_in_loop import CompileInLoopCommand

    assert ("RTF010" in planned(text)) is needed
    if "for" not in text and "while" not in text:
        assert not CompileInLoopCommand.might_apply(text.encode())


def test_a_predict_call_needs_a_keras_model_or_a_tf_function_in_the_bytes():
    from retrace_fix.codemods.predict_to_call import PredictToCallCommand

    assert not PredictToCallCommand.might_apply(b"import sklearn\nfor x in data:\n    y = est.predict(x)\n")
    assert PredictToCallCommand.might_apply(KERAS.encode() + b"y = model.predict(x)\n")
    assert PredictToCallCommand.might_apply(b"import tensorflow as tf\nf = tf.function(g)\ny = m.predict(x)\n")
