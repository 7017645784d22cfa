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
from retrace_fix.engine import FileJob, RunOptions, plan_codemods, process_file, selected_codemods
from tests.support.golden import GOLDEN_ROOT

SOURCES = sorted(p for p in GOLDEN_ROOT.glob("*/*/*.py") if p.name in ("input.py", "expected.py"))


def planned(text: str) -> set[str]:
    options = RunOptions(unsafe_fixes=True)
    to_run, _, _ = plan_codemods(text.encode(), text, selected_codemods(options), options, has_traces=False)
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
