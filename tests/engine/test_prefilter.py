"""The prefilter decides which codemods a file needs LibCST for, from its bytes and then from
CPython's tree (:meth:`RetraceCodemod.might_apply_to_tree`): it must never drop a codemod
that would report something.  Checked on every golden source, and on the cases RTF002's
tree check (a predict call in a loop, or where a tf.function can be) tells apart.
"""

from __future__ import annotations

import libcst as cst
import pytest

from retrace_fix import fastvisit
from retrace_fix.codemods import REGISTRY
from retrace_fix.engine.options import FileJob, RunOptions, selected_codemods
from retrace_fix.engine.prefilter import codemods_to_run
from retrace_fix.engine.process import process_file
from tests.support.golden import GOLDEN_ROOT
from tests.support.shared_trees import sharing

SOURCES = sorted(p for p in GOLDEN_ROOT.glob("*/*/*.py") if p.name in ("input.py", "expected.py"))


def planned(text: str) -> set[str]:
    options = RunOptions(unsafe_fixes=True)
    to_run, _, _ = codemods_to_run(text.encode(), text, selected_codemods(options), options, has_traces=False)
    return {cls.CODE for cls in to_run}


@pytest.fixture
def parse_once():
    """One LibCST parse, CPython parse, outline and analysis per text for the test's runs
    (:func:`tests.support.shared_trees.sharing`): the runs of one source (a run per codemod the
    prefilter dropped) may share them; parsing again was about half of this module's time."""
    with sharing({}):
        yield


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
        # "for" only in a comment, or a loop only after the compile: read by CPython, dropped there
        ("# for each rate\nmodel.compile(optimizer='sgd')\nmodel.fit(x, y)\n", False),
        ("model.compile(optimizer='sgd')\nmodel.fit(x, y)\nfor lr in rates:\n    print(lr)\n", False),
        # a training call split by what the tokenizer skips
        ("for lr in rates:\n    model.compile(optimizer=opt(lr))\n    (model.  # train\n     fit(x, y))\n", True),
    ],
)
def test_compile_in_a_loop_is_read_in_the_bytes_first(text, needed):
    from retrace_fix.codemods.compile_in_loop import CompileInLoopCommand

    assert ("RTF010" in planned(text)) is needed
    if "for" not in text and "while" not in text:
        assert not CompileInLoopCommand.might_apply(text.encode())
    assert reports(text, "RTF010") is needed


@pytest.mark.parametrize(
    "text",
    [
        # train_on_batch on a bare name, the model built or loaded (no predict call in the file)
        KERAS + "for x, y in data:\n    model.train_on_batch(x, y)\n",
        "import tensorflow as tf\nmodel = tf.keras.models.load_model(p)\nfor x, y in data:\n"
        "    model.train_on_batch(x, y)\n",
        # a bare-name predict in a method a loop calls every step
        KERAS + "class Agent:\n    def act(self, s):\n        return model.predict(s, verbose=0)\n\n"
        "agent = Agent()\nfor s in states:\n    agent.act(s)\n",
    ],
)
def test_keras_calls_per_loop_step_that_report_are_parsed(text):
    """Each reports when run without the prefilter, and the prefilter lets it through (the
    tree check once asked for a predict call in a loop, or on ``self.<attr>``, before these)."""
    assert reports(text, "RTF002")
    assert "RTF002" in planned(text)


def test_a_predict_call_needs_a_keras_model_or_a_tf_function_in_the_bytes():
    from retrace_fix.codemods.predict_to_call import PredictToCallCommand

    assert not PredictToCallCommand.might_apply(b"import sklearn\nfor x in data:\n    y = est.predict(x)\n")
    assert PredictToCallCommand.might_apply(KERAS.encode() + b"y = model.predict(x)\n")
    assert PredictToCallCommand.might_apply(b"import tensorflow as tf\nf = tf.function(g)\ny = m.predict(x)\n")
    # outside a tf.function, predict reports only on a name assigned a Model/Sequential call
    assert not PredictToCallCommand.might_apply(
        b"import tensorflow as tf\nmodel = tf.keras.models.load_model(p)\nfor x in data:\n    y = model.predict(x)\n")
    assert not reports("import tensorflow as tf\nmodel = tf.keras.models.load_model(p)\nfor x in data:\n"
                       "    y = model.predict(x)\n", "RTF002")
    assert PredictToCallCommand.might_apply(
        b"import tensorflow as tf\nmodel = (tf.keras.Sequential  # c\n)([])\nfor x in data:\n    y = model.predict(x)\n")


TF = "import tensorflow as tf\n\n"
STEP = TF + "@tf.function\ndef step(x, n):\n    return x * n\n\n"
TF_DEF = TF + "@tf.function\ndef one(x):\n    return x\n\n"


def check_plan(text: str, code: str, needed: bool) -> None:
    """The tree checks plan ``code``'s codemod for ``text`` exactly when ``needed``; one it drops
    really reports nothing there (run without the prefilter)."""
    assert (code in planned(text)) is needed
    if not needed:
        from pathlib import Path

        cls = next(cls for cls in REGISTRY if cls.CODE == code)
        job = FileJob(path=Path("/nonexistent/input.py"), display="input.py", relpath="input.py", data=text.encode())
        result = process_file(job, RunOptions(select=cls.codes(), unsafe_fixes=True, prefilter=False))
        assert not result.error and not result.findings, (result.error, result.findings)


@pytest.mark.parametrize(
    "text, needed",
    [
        # the call sites RTF103/104/105/107 read: a call of a tf.function with an argument that can tell
        (STEP + "for n in range(3):\n    step(x, n)\n", True),  # a loop variable
        (STEP + "step(tf.ones([2]), 3)\nstep(tf.ones([3]), 3)\n", True),  # two calls for `x`
        (STEP + "step(tf.ones([2]), 3)\n", False),  # one source per parameter, no loop
        (STEP + "n = 3\nstep(x, n)\nstep(x, n)\n", False),  # the same value twice
        (STEP + "step(x, 3)\nstep(y, 3)\n", False),
        (STEP + "step(self.x, 3)\nstep(self.y, 4)\n", True),  # positions kept past an attribute
        (STEP + "m = make()\nfor b in data:\n    step(m, b)\n", False),  # made once, before the loop
        (STEP + "for b in data:\n    m = tf.keras.Sequential()\n    step(m, 1)\n", True),  # an object per iteration
        (STEP + "for b in data:\n    m = make()\n    step(m, 1)\n", False),  # a call that states nothing
        (STEP + "@tf.function\ndef outer(x):\n    return step(x, 1) + step(x, 2)\n", False),  # graph code
        (STEP + "def outer(x):\n    return step(x, 1) + step(x, 2)\n", True),  # eager: two values
        (STEP + "@tf.function\ndef outer(x):\n    return step(x, 1) + step(x, 2)\n\ntf = None\n", True),  # unsure
        (STEP + "for n in range(3):\n    x = tf.zeros([n])\nfor b in data:\n    step(x, 1)\n", True),
        (STEP + "step(x, 1)\nstep(x, 2)\n", True),  # two literals: two values to compare
        (STEP + "k = 2\nif flag:\n    k = 3\nstep(x, k)\n", True),  # a name given two values
        (STEP + "k = 2\nstep(x, k)\n", False),  # one value, no loop: nothing to compare
        (STEP + "for b in data:\n    step(b, self.n)\n", False),  # in a loop, but nothing that can vary
        (STEP + "for i, b in enumerate(data):\n    step(b, i)\n", True),  # an enumerate index
        ("from tensorflow import function as tfn\n\n@tfn\ndef step(x):\n    return x\n\nstep(1)\nstep(2)\n", True),
        (TF + "def f(x):\n    return x\n\nstep = tf.function(f)\nstep(2.0)\nstep(3.0)\n", True),  # assigned
        (STEP + "for x, n in data:\n    step(x, n)\n", False),  # names with no value the analysis reads
        (STEP + "step(self.x, batch[0])\n", False),  # an attribute, a subscript
        (STEP + "other(1, 2)\n", False),  # not a tf.function of this module
        (TF + "def step(x, n):\n    return x\n\nstep(x, 3)\ng = tf.function(h)\n", False),  # no def to be one
        # RTF101: a creation that may run over and over (module-level loops included)
        (TF_DEF + "for b in data:\n    f = tf.function(g)\n", True),
        (TF_DEF + "def make():\n    return tf.function(g)\n\nfor b in data:\n    make()\n", True),
        (TF + "for b in data:\n    f = tf.function(g)\n", False),  # no def to be a tf.function: not read
        (TF + "class A:\n    def __init__(self):\n        self.f = tf.function(self.g)\n\n    def g(self):\n"
         "        return 1\n", False),  # in a factory, never called per step
    ],
)
def test_call_site_diagnostics_need_a_call_site_or_a_repeated_creation(text, needed):
    check_plan(text, "RTF101", needed)


@pytest.mark.parametrize(
    "text, needed",
    [
        (TF + "def run(x):\n    @tf.function\n    def f(y):\n        return y\n    return f(x)\n\n"
         "for b in data:\n    run(b)\n", True),  # its def is called in a loop
        (TF + "def run(xs):\n    for x in xs:\n        f = tf.function(lambda: x)\n", True),  # a loop in its def
        (TF + "class A:\n    def call(self, x):\n        return tf.function(self.g)(x)\n", True),  # wraps a method
        ("import functools\n" + TF + "def f(x, k):\n    return x\n\ndef run(x, k):\n"
         "    return tf.function(functools.partial(f, k=k))(x)\n", True),  # forwards to a module-level f
        (TF + "def run(x):\n    @tf.function\n    def f(y):\n        return y\n    return f(x)\n", False),  # once
        (TF + "for b in data:\n    f = tf.function(g)\n", False),  # module level: RTF101's, not moved
        (TF + "def build(x):\n    return tf.function(g)\n\nfor b in data:\n    build(b)\n", False),  # a factory
    ],
)
def test_hoisting_needs_a_creation_in_a_def_that_repeats(text, needed):
    check_plan(text, "RTF006", needed)


@pytest.mark.parametrize(
    "text, needed",
    [
        ("import time\n" + TF + "@tf.function\ndef f(x):\n    return x + time.time()\n", True),
        ("import numpy as np\n" + TF + "@tf.function\ndef f(x):\n    return x + np.random.rand()\n", True),
        ("from random import random as draw\n" + TF_DEF + "f = tf.function(lambda x: x + draw())\n", True),
        (TF + "@tf.function(reduce_retracing=True)\ndef f(x):\n    return tf.reshape(x, [x.shape[0], -1])\n", True),
        ("import time\n" + TF + "@tf.function\ndef f(x):\n    return x\n\nstart = time.time()\n", False),  # eager
        (TF + "@tf.function\ndef f(x):\n    return x + tf.random.normal([1])\n", False),  # a TF op
        (TF + "@tf.function\ndef f(x):\n    return tf.reshape(x, [x.shape[0], -1])\n", False),  # no None dims
        (TF + "@tf.function(input_signature=[tf.TensorSpec([None])])\ndef f(x):\n    return x + 1\n", False),
    ],
)
def test_graph_code_diagnostics_need_a_draw_or_a_shape_read_in_graph_code(text, needed):
    check_plan(text, "RTF102", needed)


@pytest.mark.parametrize(
    "text, code, needed",
    [
        (TF + "@tf.function\ndef f(x, n):\n    for i in range(n):\n        x += 1\n    return x\n", "RTF001", True),
        (TF + "@tf.function\ndef f(x, n):\n    ys = []\n    for i in range(n):\n        ys.append(x)\n"
         "    return ys\n", "RTF007", True),
        (TF + "@tf.function\ndef f(x, n):\n    for i in range(n):\n        x += 1\n    return x\n", "RTF007", False),
        (TF + "@tf.function\ndef f(x):\n    return x\n\nfor i in range(3):\n    f(i)\n", "RTF001", False),
        (TF + "@tf.function\ndef f(x, n):\n    for y in x:\n        x += 1\n    return x\n", "RTF001", False),
        (TF + "@tf.function\ndef f(x):\n    for i in range(3):\n        x += 1\n    return x\n", "RTF001", False),
        (TF + "@tf.function\ndef f(x):\n    for i in range(tf.shape(x)[0]):\n        x += 1\n    return x\n", "RTF001",
         True),
    ],
)
def test_range_codemods_need_a_range_loop_in_graph_code(text, code, needed):
    check_plan(text, code, needed)


def reports(text: str, code: str) -> bool:
    """Does ``code``'s codemod report something on ``text``, run without the prefilter?"""
    from pathlib import Path

    cls = next(cls for cls in REGISTRY if cls.CODE == code)
    job = FileJob(path=Path("/nonexistent/input.py"), display="input.py", relpath="input.py", data=text.encode())
    result = process_file(job, RunOptions(select=cls.codes(), unsafe_fixes=True, prefilter=False))
    assert not result.error, result.error
    return bool(result.findings)


KERAS_CLASS = TF + "class A(tf.keras.Model):\n    def __init__(self):\n        self.net = {}\n\n" \
    "    def act(self, s):\n        return self.net.predict(s, verbose=0)\n\nfor s in states:\n    A().act(s)\n"

STEP3 = TF + "@tf.function\ndef step(x, a, b):\n    return x * a * b\n\n"
G = "def g(x, k):\n    return x * k\n\n"

#: the fourth pass's reasons to drop a file: (near miss the check drops, its positive twin, code)
NEAR_MISSES = [
    # RTF101-107: only calls ModuleCalls resolves (a tf.function nested in a def is no callable)
    (TF + "def run(x):\n    @tf.function\n    def f(y, n):\n        return y\n    f(x, 1)\n    f(x, 2)\n",
     STEP + "def run(x):\n    step(x, 1)\n    step(x, 2)\n", "RTF101"),
    # ...a method only as <name>.m(...)
    (TF + "class A:\n    @tf.function\n    def step(self, x, n):\n        return x\n\nA().step(x, 1)\nA().step(x, 2)\n",
     TF + "class A:\n    @tf.function\n    def step(self, x, n):\n        return x\n\na = A()\na.step(x, 1)\n"
     "a.step(x, 2)\n", "RTF101"),
    # ...a name's bindings only in the defs around the call and the module
    (STEP + "def a(x):\n    n = 2\n    return n\n\ndef b(x):\n    n = 3\n    step(x, n)\n",
     STEP + "def b(x):\n    n = 2\n    if flag:\n        n = 3\n    step(x, n)\n", "RTF101"),
    # ...a call states a type only as a Keras class or a TF/NumPy constructor
    (STEP + "for b in data:\n    m = tf.nn.relu(b)\n    step(m, 1)\n",
     STEP + "for n in range(3):\n    m = tf.zeros([n])\n    step(m, 1)\n", "RTF101"),
    # ...a method's receiver only as self or a name assigned an instance of a class of this module
    (TF + "class A:\n    @tf.function\n    def step(self, x, n):\n        return x\n\na = make()\na.step(x, 1)\n"
     "a.step(x, 2)\n",
     TF + "class A:\n    @tf.function\n    def step(self, x, n):\n        return x\n\na = A()\na.step(x, 1)\n"
     "a.step(x, 2)\n", "RTF101"),
    # ...the same constructor text, reading no local name, states the same dtype and shape
    (STEP + "step(tf.constant([1.0]), 1)\nstep(tf.constant([1.0]), 1)\n",
     STEP + "step(tf.constant([1.0]), 1)\nstep(tf.constant([1]), 1)\n", "RTF101"),
    # ...a value varies in a loop only through bindings the call can read
    (STEP + "def a():\n    for n in range(3):\n        pass\n\ndef b(x):\n    n = 2\n    for i in data:\n"
     "        step(x, n)\n",
     STEP + "def b(x):\n    for n in range(3):\n        step(x, n)\n", "RTF101"),
    # ...a keyword is one parameter (two keywords of a call are not two sources of one)
    (STEP3 + "step(x, a=1, b=2)\n", STEP3 + "step(x, a=1, b=2)\nstep(x, a=2, b=2)\n", "RTF101"),
    # ...a value made in a loop varies only as an object, a loop variable or a shape that reads a name
    (STEP + "for n in range(3):\n    m = tf.constant([1.0, 2.0])\n    step(m, 1)\n",
     STEP + "for n in range(3):\n    m = tf.zeros([n])\n    step(m, 1)\n", "RTF101"),
    (STEP + "import numpy as np\nfor n in range(3):\n    m = xs.astype(np.float32)\n    step(m, 1)\n",
     STEP + "for n in range(3):\n    m = tf.zeros([n])\n    step(m, 1)\n", "RTF101"),
    # ...a constructor's literal value counts by its kind (4 and 5: one dtype, one shape)
    (STEP + "step(tf.constant(4), 1)\nstep(tf.constant(5), 1)\n",
     STEP + "step(tf.constant(4), 1)\nstep(tf.constant(5.0), 1)\n", "RTF101"),
    # ...an object only of a class compared by identity (an ExtensionType is compared by value)
    (TF + "class P(tf.experimental.ExtensionType):\n    x: tf.Tensor\n\n@tf.function\ndef step(p):\n"
     "    return p.x\n\nstep(P(1))\nstep(P(2))\n",
     TF + "class P:\n    def __init__(self, x):\n        self.x = x\n\n@tf.function\ndef step(p):\n"
     "    return p.x\n\nstep(P(1))\nstep(P(2))\n", "RTF101"),
    # ...tf.constant(<name>) states no dtype nor shape
    (STEP + "v = [1.0]\nstep(tf.constant(v), 1)\nw = [1]\nstep(tf.constant(w), 1)\n",
     STEP + "step(tf.constant([1.0]), 1)\nstep(tf.constant([1]), 1)\n", "RTF101"),
    # ...a def named once (two defs of the name: ModuleCalls resolves neither)
    (STEP + "step(x, 1)\n\ndef step(x, n):\n    return x\n\nstep(x, 2)\n",
     STEP + "step(x, 1)\nstep(x, 2)\n", "RTF101"),
    # RTF002 outside a tf.function: a call _blocker accepts, on a model built by Model/Sequential
    (KERAS + "for x in data:\n    y = model.predict(x, batch_size=8)\n",
     KERAS + "for x in data:\n    y = model.predict(x, verbose=0)\n", "RTF002"),
    (TF + "model = tf.keras.models.load_model(p)\nfor x in data:\n    y = model.predict(x, verbose=0)\n",
     TF + "model = tf.keras.Sequential()\nfor x in data:\n    y = model.predict(x, verbose=0)\n", "RTF002"),
    (KERAS_CLASS.format("make()"), KERAS_CLASS.format("tf.keras.Sequential()"), "RTF002"),
    # ...a Model(inputs, outputs) only with a single output (a name every assignment gives one)
    (TF + "inp = tf.keras.Input((2,))\nouts = [tf.keras.layers.Dense(1)(inp), tf.keras.layers.Dense(1)(inp)]\n"
     "model = tf.keras.Model(inp, outs)\nfor x in data:\n    y = model.predict(x, verbose=0)\n",
     TF + "inp = tf.keras.Input((2,))\nout = tf.keras.layers.Dense(1)(inp)\n"
     "model = tf.keras.Model(inp, out)\nfor x in data:\n    y = model.predict(x, verbose=0)\n", "RTF002"),
    # ...a bare-name predict in a class only in a method a loop calls (through self calls too)
    (KERAS + "class Agent:\n    def act(self, s):\n        return model.predict(s, verbose=0)\n\n"
     "    def run(self, states):\n        return [self.act(s) for s in states]\n",
     KERAS + "class Agent:\n    def act(self, s):\n        return model.predict(s, verbose=0)\n\n"
     "    def run(self, states):\n        for s in states:\n            self.step(s)\n\n"
     "    def step(self, s):\n        return self.act(s)\n", "RTF002"),
    # RTF002 inside one: a blocked call reports only on Keras evidence
    (TF + "@tf.function\ndef f(model, w, x):\n    return model.predict_on_batch(w, x, training=False)\n",
     TF + "@tf.function\ndef f(model: tf.keras.Model, w, x):\n    return model.predict_on_batch(w, x, training=False)\n",
     "RTF002"),
    # ...on a receiver that may be a Keras model: a name assigned a model or annotated as one
    (TF + "model = tf.keras.Sequential()\n\n@tf.function\ndef f(m, w, x):\n"
     "    return m.predict_on_batch(w, x, training=False)\n",
     TF + "model = tf.keras.Sequential()\n\n@tf.function\ndef f(m, w, x):\n"
     "    return model.predict_on_batch(w, x, training=False)\n", "RTF002"),
    # ...an unblocked one: not on a receiver that is neither a name nor an attribute, nor on a name
    # every assignment gives an object of a class of the module that derives from no model
    (TF + "class Model(object):\n    def predict(self, x):\n        return x\n\nmodel = Model()\n\n"
     "@tf.function\ndef f(x):\n    return model.predict(x)\n",
     TF + "model = tf.keras.Sequential()\n\n@tf.function\ndef f(x):\n    return model.predict(x)\n", "RTF002"),
    (TF + "model = tf.keras.Sequential()\n\n@tf.function\ndef f(x):\n    return make().predict(x)\n",
     TF + "model = tf.keras.Sequential()\n\n@tf.function\ndef f(x):\n    return model.predict(x)\n", "RTF002"),
    # ...self in a class that may derive from a Keras model
    (TF + "m = tf.keras.Sequential()\n\nclass A(tf.Module):\n    @tf.function\n    def f(self, w, x):\n"
     "        return self.predict_on_batch(w, x, training=False)\n",
     TF + "class A(tf.keras.Model):\n    @tf.function\n    def f(self, w, x):\n"
     "        return self.predict_on_batch(w, x, training=False)\n", "RTF002"),
    # ...self.<attr> assigned a model
    (TF + "class A(tf.Module):\n    def __init__(self):\n        self.net = make(tf.keras.Model)\n\n"
     "    @tf.function\n    def f(self, w, x):\n        return self.net.predict_on_batch(w, x, training=False)\n",
     TF + "class A(tf.Module):\n    def __init__(self):\n        self.net = tf.keras.Model(i, o)\n\n"
     "    @tf.function\n    def f(self, w, x):\n        return self.net.predict_on_batch(w, x, training=False)\n",
     "RTF002"),
    # RTF106: a static shape read directly in a tf.function that itself generalises shapes
    (TF + "@tf.function(reduce_retracing=True)\ndef f(x):\n    return x\n\n@tf.function\ndef g(x):\n"
     "    return tf.reshape(x, [x.shape[0], -1])\n",
     TF + "@tf.function\ndef f(x):\n    return x\n\n@tf.function(reduce_retracing=True)\ndef g(x):\n"
     "    return tf.reshape(x, [x.shape[0], -1])\n", "RTF102"),
    # ...only a parameter's shape read (p.shape[k], p.get_shape()[k], p.shape.as_list(), len(p))
    (TF + "@tf.function(reduce_retracing=True)\ndef g(x):\n    y = tf.reshape(x, [-1, 2])\n"
     "    return tf.reshape(y, [y.shape[0], -1])\n",
     TF + "@tf.function(reduce_retracing=True)\ndef g(x):\n    y = tf.reshape(x, [-1, 2])\n"
     "    return tf.reshape(y, [x.shape[0], -1])\n", "RTF102"),
    # ...len(p) only where a Python int is needed (an argument of range or of a NumPy call)
    (TF + "@tf.function(reduce_retracing=True)\ndef g(x):\n    if len(x) == 2:\n        return x\n"
     "    return tf.repeat(x, len(x))\n",
     TF + "@tf.function(reduce_retracing=True)\ndef g(x):\n    for i in range(len(x) - 1):\n        tf.print(i)\n"
     "    return x\n", "RTF102"),
    # ...in a tf.function whose decorator relaxes shapes (a keyword passed True, a signature list)
    (TF + "@tf.function(reduce_retracing=False)\ndef g(x):\n    return tf.reshape(x, [x.shape[0], -1])\n",
     TF + "@tf.function(reduce_retracing=True)\ndef g(x):\n    return tf.reshape(x, [x.shape[0], -1])\n", "RTF102"),
    # RTF009: a loop passes a callable only to a call ModuleCalls resolves (or a module-level forwarder)
    (TF + "def run(xs):\n    @tf.function\n    def step(fn, x):\n        return fn(x)\n\n    for x in xs:\n"
     "        step(lambda v: v + 1, x)\n",
     TF_STEP + "def run(xs):\n    for x in xs:\n        step(lambda v: v + 1, x)\n", "RTF009"),
    # ...a forwarder only as a module-level def whose body passes a parameter on to a tf.function
    (TF_STEP + "def run(fn, x):\n    return fn(x)\n\nfor x in xs:\n    run(lambda v: v + 1, x)\n",
     TF_STEP + "def run(fn, x):\n    return step(fn, x)\n\nfor x in xs:\n    run(lambda v: v + 1, x)\n", "RTF009"),
    # ...a loop in no tf.function (a call there traces only while its caller traces)
    (TF_STEP + "@tf.function\ndef outer(xs):\n    for x in xs:\n        step(lambda v: v + 1, x)\n",
     TF_STEP + "def outer(xs):\n    for x in xs:\n        step(lambda v: v + 1, x)\n", "RTF009"),
    # ...the innermost loop a statement (no name can be bound before a comprehension's item)
    (TF_STEP + "for b in data:\n    ys = [step(lambda v: v + 1, x) for x in b]\n",
     TF_STEP + "for x in xs:\n    step(lambda v: v + 1, x)\n", "RTF009"),
    # RTF010: a compile and a training call on the same model, which the loop does not rebind
    (TF + "for lr in rates:\n    model = make()\n    model.compile(optimizer='sgd', loss='mse')\n"
     "    model.fit(x, y)\n",
     TF + "model = make()\nfor lr in rates:\n    model.compile(optimizer='sgd', loss='mse')\n    model.fit(x, y)\n",
     "RTF010"),
    (TF + "for lr in rates:\n    model.compile(optimizer='sgd', loss='mse')\n    other.fit(x, y)\n",
     TF + "for lr in rates:\n    model.compile(optimizer='sgd', loss='mse')\n    model.fit(x, y)\n", "RTF010"),
    # RTF001: a bound that may be a tensor or a parameter
    (TF + "@tf.function\ndef f(x):\n    for i in range(len(x)):\n        x += 1\n    return x\n",
     TF + "@tf.function\ndef f(x, n):\n    for i in range(n):\n        x += 1\n    return x\n\nf(x, 3)\nf(x, 4)\n",
     "RTF001"),
    (TF + "class A:\n    @tf.function\n    def f(self, x):\n        for i in range(self.n):\n            x += 1\n"
     "        return x\n",
     TF + "class A:\n    @tf.function\n    def f(self, x, n):\n        for i in range(n):\n            x += 1\n"
     "        return x\n\na = A()\na.f(x, 3)\na.f(x, 4)\n", "RTF001"),
    (TF + "def outer(n):\n    @tf.function\n    def f(x):\n        for i in range(n):\n            x += 1\n"
     "        return x\n    return f\n",
     TF + "@tf.function\ndef f(x, n):\n    for i in range(n):\n        x += 1\n    return x\n\nf(x, 3)\nf(x, 4)\n",
     "RTF001"),
    # RTF001, RTF007: a loop over the builtin range only (a tf.range loop is a graph loop already)
    (TF + "@tf.function\ndef f(x, n):\n    for i in tf.range(n):\n        x += 1\n    return x\n\nf(x, 3)\nf(x, 4)\n",
     TF + "@tf.function\ndef f(x, n):\n    for i in range(n):\n        x += 1\n    return x\n\nf(x, 3)\nf(x, 4)\n",
     "RTF001"),
    (TF + "@tf.function\ndef f(x, n):\n    xs = []\n    for i in tf.range(n):\n        xs.append(x[i])\n"
     "    return tf.stack(xs)\n\nfor n in (2, 3):\n    f(x, n)\n",
     TF + "@tf.function\ndef f(x, n):\n    xs = []\n    for i in range(n):\n        xs.append(x[i])\n"
     "    return tf.stack(xs)\n\nfor n in (2, 3):\n    f(x, n)\n", "RTF007"),
    # RTF006: tf.function(lambda/partial) in a def only as a forwarder to a module-level or imported function
    (TF + G + "def run(x, k):\n    init = make()\n    return tf.function(lambda t: init(t, k))(x)\n",
     TF + G + "def run(x, k):\n    return tf.function(lambda t: g(t, k))(x)\n", "RTF006"),
    (TF + G + "def run(x, k):\n    return tf.function(lambda: g(x, k))()\n",
     TF + G + "def run(x, k):\n    return tf.function(lambda t: g(t, k))(x)\n", "RTF006"),
    (TF + "import functools\n\n" + G + "def run(x, k):\n    return tf.function(wrap(g, k=k))(x)\n",
     TF + "import functools\n\n" + G + "def run(x, k):\n    return tf.function(functools.partial(g, k=k))(x)\n",
     "RTF006"),
    # RTF006: tf.function(<self>.m) of the method's own object, and not stored or returned
    (TF + "import mod\n\nclass A:\n    def call(self, x):\n        return tf.function(mod.g)(x)\n",
     TF + "class A:\n    def call(self, x):\n        return tf.function(self.g)(x)\n\n    def g(self, x):\n"
     "        return x\n", "RTF006"),
    (TF + "class A:\n    def build(self):\n        self.f = tf.function(self.g)\n\n    def g(self):\n        return 1\n",
     TF + "class A:\n    def run(self):\n        f = tf.function(self.g)\n        return f()\n\n    def g(self):\n"
     "        return 1\n", "RTF006"),
    (TF + "class A:\n    def build(self):\n        return tf.function(self.g)\n\n    def g(self):\n        return 1\n",
     TF + "class A:\n    def run(self):\n        return tf.function(self.g)()\n\n    def g(self):\n        return 1\n",
     "RTF006"),
]


@pytest.mark.parametrize("near_miss, twin, code", NEAR_MISSES)
def test_each_reason_to_drop_a_file_has_a_near_miss_and_a_twin_that_reports(near_miss, twin, code):
    check_plan(near_miss, code, False)  # dropped, and it reports nothing without the prefilter
    assert code in planned(twin)
    assert reports(twin, code)


PER_STEP_SOURCE = """
class Agent:
    def act(self, s):
        return self.policy(s)

    def policy(self, s):
        return self.net.predict(s)

    def train(self):
        while other.ready():
            self.step()
        else:
            other.done()

    def step(self):
        for batch in other.batches():
            other.learn(batch)
            def helper():
                other.hidden()
        else:
            other.after()
        return [other.item(x) for x in y]


for episode in range(3):
    agent.act(s)
    agent.train()
    def nested():
        agent.not_per_step()
"""


def test_per_step_methods_on_cpython_tree_hold_the_deciders_and_follow_self_calls():
    """RTF002's tree check reads the methods a loop calls every step from the statements around
    each call (a ``for`` body, a ``while`` test or body, not in a def inside them) and the
    ``self.<name>()`` calls of those methods: the decider's (LibCST) answer is always within it."""
    import ast

    from retrace_fix.ast_walk import TreeIndex
    from retrace_fix.codemods._predict_facts import ast_per_step_methods, per_step_methods

    found = ast_per_step_methods(TreeIndex(ast.parse(PER_STEP_SOURCE)))
    assert found == {"act", "train", "policy", "ready", "step", "learn"}
    with fastvisit.installed():  # the decider's walks as the engine runs them
        assert per_step_methods(cst.parse_module(PER_STEP_SOURCE)) <= found
        for path in SOURCES:
            text = path.read_text(encoding="utf-8")
            assert per_step_methods(cst.parse_module(text)) <= ast_per_step_methods(TreeIndex(ast.parse(text))), path
