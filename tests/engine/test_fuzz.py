"""Property tests: whatever the input, the engine never raises, never writes code
that does not parse, is idempotent, and leaves files without targets alone.

Two sources of programs:

* hypothesmith: stored samples (``tests/support/make_cst_shapes.py``) of arbitrary
  (syntactically valid) Python from the grammar (``tests/data/python_programs.json``),
  run with the prefilter both on (the normal path: most are skipped) and off (every
  codemod walks every generated construct), and of modules built from LibCST's node
  types (``tests/data/cst_shapes.json``);
* a small grammar of the patterns the codemods rewrite or diagnose: tf.function in
  all its spellings and aliases, ``experimental_relax_shapes`` / ``reduce_retracing``
  keywords, Keras ``predict`` calls, ``range`` loops, side effects, shape reads,
  call sites with varying Python values, comments and suppressions.

Bounded (``max_examples``, no deadline) so the module runs in well under 30 s.
"""

from __future__ import annotations

import ast
import json
import tempfile
import warnings
from pathlib import Path

import libcst as cst
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from retrace_fix.engine.options import FileJob, RunOptions
from retrace_fix.engine.process import process_file

pytestmark = pytest.mark.filterwarnings("ignore::SyntaxWarning")

SETTINGS = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
    derandomize=True,
)

_WORKDIR = Path(tempfile.mkdtemp(prefix="retrace-fuzz-"))


def run_engine(source: str, **options) -> tuple:
    """Process ``source`` as the file ``input.py`` of ``_WORKDIR``; return (result, result of a
    second run on the output).  The bytes go with the job (``FileJob.data``: the engine reads them
    from there and nowhere else) instead of being written to the file first: rewriting one file
    in place ~600 times cost about a millisecond of system time each, and made ext4 wait for the
    disk at every close."""
    path = _WORKDIR / "input.py"
    job = FileJob(path=path, display="input.py", relpath="input.py", data=source.encode("utf-8"))
    result = process_file(job, RunOptions(**options))
    second = None
    if result.error is None and result.changed:
        job = FileJob(path=path, display="input.py", relpath="input.py", data=result.fixed.encode("utf-8"))
        second = process_file(job, RunOptions(**options))
    return result, second


def cpython_parses(text: str) -> bool:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return False
    return True


def check_properties(source: str, **options) -> None:
    result, second = run_engine(source, **options)
    assert result.original == source
    if result.error is not None:
        # only a file LibCST or CPython cannot handle may be reported, never a codemod crash
        assert "internal error" not in result.error, result.error
        assert result.fixed == source
        return
    if not any(f.applied for f in result.findings):
        assert result.fixed == source  # nothing applied: byte-identical
        return
    assert result.changed
    cst.parse_module(result.fixed)  # the output parses ...
    if cpython_parses(source):
        assert cpython_parses(result.fixed), result.fixed  # ... for CPython too
    assert second is not None and second.error is None, second and second.error
    assert second.fixed == second.original, "not idempotent"
    assert not any(f.applied for f in second.findings)


# ----------------------------------------------------------------------------- arbitrary Python


def libcst_parses(source: str) -> bool:
    try:
        cst.parse_module(source)
    except Exception:
        return False
    return True


#: modules hypothesmith built from Python's grammar (tests/support/make_cst_shapes.py): drawing them
#: cost seconds per test, and a derandomized draw gave the same ones every run
PYTHON_PROGRAMS = json.loads(
    (Path(__file__).resolve().parents[1] / "data" / "python_programs.json").read_text(encoding="utf-8")
)


def test_arbitrary_python_with_prefilter():
    for source in PYTHON_PROGRAMS:
        check_properties(source)


def test_arbitrary_python_every_codemod_runs():
    for source in PYTHON_PROGRAMS:
        check_properties(source, prefilter=False, unsafe_fixes=True)


#: modules hypothesmith built from LibCST's node types (tests/support/make_cst_shapes.py): building them
#: costs seconds per run, and a derandomized draw gave the same ones every run
CST_SHAPES = json.loads((Path(__file__).resolve().parents[1] / "data" / "cst_shapes.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("source", CST_SHAPES, ids=[f"shape{i}" for i in range(len(CST_SHAPES))])
def test_arbitrary_cst_shapes_every_codemod_runs(source):
    check_properties(source, prefilter=False)


def test_the_cst_shapes_are_many_and_parse():
    for sample in (CST_SHAPES, PYTHON_PROGRAMS):
        assert len(sample) >= 50 and len(set(sample)) == len(sample)
        for source in sample:
            assert libcst_parses(source)


# ----------------------------------------------------------------------------- tf.function programs

IMPORTS = st.sampled_from(
    [
        ("import tensorflow as tf\n", "tf.function"),
        ("import tensorflow as tnf\n", "tnf.function"),
        ("import tensorflow.compat.v2 as tf\n", "tf.function"),
        ("from tensorflow import function as tfn\nimport tensorflow as tf\n", "tfn"),
        ("import tensorflow as tf\nfrom tensorflow.python.eager import def_function\n", "def_function.function"),
        ("import tensorflow\n", "tensorflow.function"),
        ("import numpy as tf\n", "tf.function"),  # not TensorFlow at all: nothing may change
    ]
)
KEYWORDS = st.sampled_from(
    ["", "experimental_relax_shapes=True", "reduce_retracing=True", "jit_compile=True",
     "experimental_relax_shapes=True, jit_compile=True", "reduce_retracing=True, experimental_relax_shapes=True",
     "autograph=False", "input_signature=[tf.TensorSpec([None], tf.float32)]"]
)
BODY_LINES = st.sampled_from(
    [
        "y = model.predict(x)",
        "y = model.predict(x, verbose=0)",
        "y = model.predict_on_batch(x)",
        "y = model.predict(x, batch_size=8)",
        "y = other.predict(x)",
        "for i in range(n):\n        x = x + 1.0",
        "for i in range(n):\n        values.append(i)",
        "for i in range(tf.shape(x)[0]):\n        x = x * 2.0",
        "for i in range(3):  # retrace-fix: ignore\n        x = x - 1.0",
        "t = time.time()",
        "r = np.random.rand()",
        "print('tracing', x)",
        "rows = x.shape[0]",
        "k = len(x)",
        "if n > 2:\n        x = x + n",
        "x = (x +\n         1.0)",
        "# a comment\n    x = x  # trailing comment",
    ]
)
CALLS = st.sampled_from(
    [
        "",
        "for n in [1, 2, 3]:\n    {name}(tf.ones([2]), n)\n",
        "for batch in (8, 16, 8):\n    {name}(tf.ones([batch]), 3)\n",
        "{name}(tf.constant([1.0]), 10)\n{name}(tf.constant([1.0, 2.0]), 20)\n",
        "for step in range(3):\n    g = tf.function(lambda v: v + step)\n    g(tf.ones([1]))\n",
        "for data in dataset:\n    out = model.predict(data)\n",
    ]
)
MODELS = st.sampled_from(
    ["model = tf.keras.Sequential([tf.keras.layers.Dense(1)])\n",
     "model = tf.keras.models.load_model('m')\n",
     "import keras\nmodel = keras.Model()\n",
     ""]
)


@st.composite
def tf_programs(draw):
    imports, decorator = draw(IMPORTS)
    form = draw(st.sampled_from(["decorator", "decorator-call", "wrap-call", "call-of-call", "method"]))
    keywords = draw(KEYWORDS)
    lines = draw(st.lists(BODY_LINES, min_size=1, max_size=5))
    body = "\n    ".join(lines) + "\n    return x\n"
    header = "import time\nimport numpy as np\n" + imports + draw(MODELS) + "\nvalues = []\n\n\n"
    name = "step"
    if form == "decorator":
        function = f"@{decorator}\ndef step(x, n):\n    {body}"
    elif form == "decorator-call":
        function = f"@{decorator}({keywords})\ndef step(x, n):\n    {body}"
    elif form == "wrap-call":
        function = f"def _step(x, n):\n    {body}\n\nstep = {decorator}(_step{', ' + keywords if keywords else ''})\n"
    elif form == "call-of-call":
        function = f"def _step(x, n):\n    {body}\n\nstep = {decorator}({keywords})(_step)\n"
    else:
        indented = body.replace("\n    ", "\n        ")
        function = (
            "class Runner:\n    def __init__(self):\n        self.n = 1\n\n"
            f"    @{decorator}({keywords})\n    def step(self, x, n):\n        {indented}"
            "\n\nrunner = Runner()\n"
        )
        name = "runner.step"
    calls = draw(CALLS).format(name=name)
    return header + function + "\n\n" + calls


@SETTINGS
@given(tf_programs(), st.booleans())
def test_tf_function_programs(source, unsafe):
    assert libcst_parses(source), source
    check_properties(source, unsafe_fixes=unsafe)


@SETTINGS
@given(tf_programs(), st.booleans())
def test_prefilter_loses_nothing(source, unsafe):
    """Parsing every file and running every codemod gives exactly the same result."""
    with_filter, _ = run_engine(source, unsafe_fixes=unsafe)
    without, _ = run_engine(source, unsafe_fixes=unsafe, prefilter=False)
    assert [f.to_json() for f in with_filter.findings] == [f.to_json() for f in without.findings]
    assert with_filter.fixed == without.fixed
    assert with_filter.error == without.error


@SETTINGS
@given(tf_programs(), st.sampled_from(["\r\n", "\t"]))
def test_line_endings_and_tabs_survive(source, variant):
    if variant == "\r\n":
        source = source.replace("\n", "\r\n")
    else:  # tabs for indentation
        source = "\n".join(line.replace("    ", "\t") for line in source.split("\n"))
        if not libcst_parses(source):
            return
    result, _ = run_engine(source)
    assert result.error is None or "internal error" not in result.error
    if result.changed:
        cst.parse_module(result.fixed)
        if variant == "\r\n":
            assert "\n" not in result.fixed.replace("\r\n", "")
        else:
            assert "    " not in "".join(
                line[: len(line) - len(line.lstrip())] for line in result.fixed.split("\n")
            )


def test_workdir_is_used():
    assert _WORKDIR.is_dir()


@pytest.fixture(scope="module", autouse=True)
def _cleanup():
    yield
    import shutil

    shutil.rmtree(_WORKDIR, ignore_errors=True)
