"""Partial parsing: LibCST sees only what the tf.function analyses read, and a codemod that
allows it (``NEEDS_WHOLE_MODULE = False``) reports exactly what it reports on the whole module.

* what :meth:`Outline.pruned_text` keeps and empties, on small modules;
* the engine: the same findings, fixed text and errors with partial parsing on and off
  (every result that came from a partial parse is compared with a run of the whole module;
  where the engine itself ran the whole module, it is not run again), on every golden case
  and on generated tf.function programs (every golden case padded with defs and classes
  built to collide with its names: ``tests/test_partial_parse_padded.py``);
* the engine never prunes for a codemod that needs the whole module, and a file a
  codemod edits is rewritten from the whole module.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import inspect
import itertools
import re
from dataclasses import replace
from pathlib import Path
from typing import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from retrace_fix.codemods import REGISTRY
from retrace_fix.codemods._base import RetraceCodemod
from retrace_fix.engine.options import FileJob, RunOptions
from retrace_fix.engine import transform
from retrace_fix.engine.call_sites import with_call_site_plans
from retrace_fix.engine.process import process_file
from retrace_fix.partial_parse import Outline
from tests.support.golden import EngineRun, GoldenCase, discover_cases
from tests.support.shared_trees import sharing
from tests.engine.test_fuzz import SETTINGS, tf_programs

CASES = discover_cases()


def pruned(text: str) -> str | None:
    return Outline(text, ast.parse(text)).pruned_text()


def kept(text: str) -> list[str]:
    """The lines of ``text`` partial parsing keeps (the others come back empty)."""
    result = pruned(text)
    assert result is not None, "nothing was pruned"
    lines, kept_lines = text.splitlines(keepends=True), result.splitlines(keepends=True)
    assert len(kept_lines) == len(lines)
    for line, same in zip(lines, kept_lines):
        assert same in (line, line[len(line.rstrip("\r\n")):])
    return [line.rstrip("\r\n") for line in kept_lines if line.strip()]


# ----------------------------------------------------------------------------- what stays


def test_unrelated_defs_and_classes_become_empty_lines_in_place():
    text = (
        "import tensorflow as tf\n"
        "\n"
        "def unrelated(a):\n"
        "    return a + 1\n"
        "\n"
        "class Other:\n"
        "    def method(self):\n"
        "        return 2\n"
        "\n"
        "@tf.function\n"
        "def step(x):\n"
        "    return x * 2\n"
    )
    result = pruned(text)
    assert result == (
        "import tensorflow as tf\n\n\n\n\n\n\n\n\n"
        "@tf.function\n"
        "def step(x):\n"
        "    return x * 2\n"
    )


def test_line_endings_survive_and_a_missing_last_newline_too():
    text = "import tensorflow as tf\r\ndef unrelated():\r\n    return 1\r\n@tf.function\r\ndef f(x):\r\n    return x"
    assert pruned(text) == "import tensorflow as tf\r\n\r\n\r\n@tf.function\r\ndef f(x):\r\n    return x"


def test_nothing_to_prune():
    assert pruned("import tensorflow as tf\n\n@tf.function\ndef f(x):\n    return x\n\nf(1)\n") is None
    assert pruned("x = 1\n") is None


def test_call_sites_callers_and_helpers_stay():
    text = """import tensorflow as tf

def helper(x):
    return x + 1

@tf.function
def step(x, n):
    return helper(x) * n

def train():
    for n in range(3):
        step(1.0, n)

def make():
    return tf.function(lambda v: v)

def loop():
    for _ in range(3):
        make()

def unrelated():
    return [i for i in range(10)]
"""
    lines = kept(text)
    assert "def helper(x):" in lines  # a name the tf.function uses
    assert "def train():" in lines  # a call site
    assert "def make():" in lines and "def loop():" in lines  # a creator and its caller
    assert "def unrelated():" not in lines


def test_methods_wrapped_by_name_and_same_named_methods_stay():
    text = """import tensorflow as tf

class Model:
    def __init__(self):
        self.step = tf.function(self._step)

    def _step(self, x):
        return x

    def unrelated(self):
        return 0

class Runner:
    @tf.function
    def call(self, x):
        return x

class Other:
    def call(self, x):
        return x + 1

    def also_unrelated(self):
        return 1
"""
    lines = kept(text)
    assert "    def _step(self, x):" in lines  # tf.function(self._step)
    assert "class Other:" in lines and "    def call(self, x):" in lines[lines.index("class Other:"):]
    assert "    def unrelated(self):" not in lines and "    def also_unrelated(self):" not in lines


def test_classes_passed_to_a_tf_function_keep_their_identity_members_and_a_body():
    text = """import tensorflow as tf

class Config:
    def __init__(self, scale):
        self.scale = scale

    def __eq__(self, other):
        return True

    def describe(self):
        return "config"

class Plain:
    def describe(self):
        return "plain"

    def more(self):
        return 1

@tf.function
def apply(x, cfg):
    return x

apply(1.0, Config(2.0))
apply(1.0, Plain())
"""
    lines = kept(text)
    assert "    def __eq__(self, other):" in lines  # RTF104 asks whether instances compare by value
    assert "    def describe(self):" in lines[lines.index("class Plain:"):]  # a class body must not be empty
    assert "    def more(self):" not in lines
    ast.parse(pruned(text))


def test_names_that_change_what_builtins_and_imports_mean_stay():
    text = """import tensorflow as tf
import numpy as np

def range(n):
    return [n]

class np:
    pass

def unused():
    return 1

@tf.function
def f(x):
    return x
"""
    lines = kept(text)
    assert "def range(n):" in lines and "class np:" in lines
    assert "def unused():" not in lines


# ----------------------------------------------------------------------------- the same findings either way


#: numbers of the files :func:`run` writes
_RUNS = itertools.count()


def job_of(source: str, tmp_path: Path) -> FileJob:
    """``source`` as the file ``input.py`` (what the traces and the findings name it), its bytes
    given with the job (``FileJob.data``, as standard input is) instead of written to
    ``tmp_path``: the engine reads them from there and nowhere else, and the ~2,400 files these
    modules wrote cost about 0.9 ms of system time each (what is compared is the engine's work
    on the text, the same both ways; reading files is ``tests/e2e``'s).  Each job still names a
    new path of its own under ``tmp_path``, which holds no file."""
    path = tmp_path / f"input-{next(_RUNS)}.py"
    return FileJob(path=path, display="input.py", relpath="input.py", data=source.encode("utf-8"))


#: the trees of :func:`trees_shared` blocks, innermost last (:func:`tests.support.shared_trees.sharing`)
_SHARED_TREES: list[dict] = []


@contextlib.contextmanager
def trees_shared() -> Iterator[None]:
    """Within the block, :func:`run` has LibCST and CPython parse each text once, the prefilter
    read CPython's tree once (:class:`~retrace_fix.partial_parse.Outline`) and the codemods build
    their analysis of a tree once (:func:`tests.support.shared_trees.sharing`): the runs of one
    source (partial parsing on and off, the option sets) share them, as the engine's results do not
    depend on which parse of a text it reads (``tests/engine/test_prefilter.py`` shares them the
    same way).  They are dropped at the end of the block."""
    _SHARED_TREES.append({})
    try:
        yield
    finally:
        _SHARED_TREES.pop()


def _in_shared_block() -> contextlib.AbstractContextManager:
    """The innermost :func:`trees_shared` block's sharing, or nothing outside one."""
    return sharing(_SHARED_TREES[-1]) if _SHARED_TREES else contextlib.nullcontext()


def run(source: str, options: RunOptions, tmp_path: Path) -> object:
    with _in_shared_block():
        return process_file(job_of(source, tmp_path), options)


#: with_plans' plans: {(source, id(traces)): (traces, plans)}
_PLANS: dict[tuple[str, int], tuple[object, object]] = {}


def with_plans(source: str, options: RunOptions, tmp_path: Path) -> RunOptions:
    """``options`` with RTF005's call-site plan of ``source``, made as :func:`process_file` makes it
    when not given one (:func:`with_call_site_plans`, this file alone).  The plan reads the whole
    file whether or not the run then parses part of it: the runs with partial parsing on and off
    that are compared share one.  A plan is made from the text and the traces only, so the option
    sets of one source with the same traces share it too (made once per process).  Within
    :func:`trees_shared`, the plan's parse and analysis of the text are the runs' own."""
    if options.call_site_plans is not None or not options.wants_call_site_plans:
        return options
    if options.trace_assignment is not None:
        return _planned(source, options, tmp_path)
    key = (source, id(options.traces))
    known = _PLANS.get(key)
    if known is None or known[0] is not options.traces:
        known = _PLANS[key] = (options.traces, _planned(source, options, tmp_path).call_site_plans)
    return replace(options, call_site_plans=known[1])


def _planned(source: str, options: RunOptions, tmp_path: Path) -> RunOptions:
    with _in_shared_block():
        return with_call_site_plans([job_of(source, tmp_path)], options)


def outcome(result) -> tuple:
    return ([f.to_json() for f in result.findings], result.fixed, result.error)


class WholeModuleRun(Exception):
    """Raised in place of the engine's run of the whole module (see :func:`partial_outcome`)."""


def partial_outcome(source: str, options: RunOptions, tmp_path: Path) -> object | None:
    """The result of a run with partial parsing allowed, or None where the engine runs the whole
    module (it pruned nothing, or a codemod edits and the whole module must be rerun): that
    result is a whole-module run by construction, and the run is stopped there."""
    real = transform._transform_text
    signature = inspect.signature(real)

    def partial_texts_only(*args, **kwargs):
        if signature.bind(*args, **kwargs).arguments.get("source") is None:
            raise WholeModuleRun
        return real(*args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(transform, "_transform_text", partial_texts_only)
        try:
            return run(source, options, tmp_path)
        except WholeModuleRun:
            return None


def assert_same_either_way(source: str, options: RunOptions, tmp_path: Path, partial: object = None) -> None:
    """Partial parsing reports exactly what the whole module gives: every result that came from a
    partial text is compared with a run that never prunes (``partial``: that result, if already run
    with these ``options``)."""
    if partial is None:
        options = with_plans(source, options, tmp_path)
        partial = partial_outcome(source, options, tmp_path)
    if partial is None:
        return
    whole = run(source, replace(options, partial_parse=False), tmp_path)
    assert outcome(partial) == outcome(whole)


@functools.lru_cache(maxsize=None)
def _option_sets(directory: Path) -> tuple[RunOptions, RunOptions]:
    case = GoldenCase(directory)
    return case.options(), RunOptions(unsafe_fixes=True, traces=case.options().traces)


def option_sets(case: GoldenCase) -> tuple[RunOptions, RunOptions]:
    """The case's own options, then every codemod with unsafe fixes (the same objects each call)."""
    return _option_sets(case.directory)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_golden_cases_same_either_way(case: GoldenCase, tmp_path):
    own, every_codemod = option_sets(case)
    with trees_shared():
        _golden_case_same_either_way(case, own, every_codemod, tmp_path)


def _golden_case_same_either_way(case: GoldenCase, own: RunOptions, every_codemod: RunOptions, tmp_path: Path) -> None:
    for path in {case.directory / "input.py", case.expected_path}:
        source = path.read_text(encoding="utf-8")
        # the case's own options: the run tests/codemods/test_golden.py checks, shared both ways
        # (a partial result that stands is the engine's result; a stopped run is not stored)
        known = case.known_run(path)
        if known is None:
            partial = partial_outcome(source, own, tmp_path)
            if partial is not None:
                case.remember_run(path, EngineRun(partial, from_partial_text=True))
        else:
            partial = known.result if known.from_partial_text else None
        if partial is not None:
            assert_same_either_way(source, own, tmp_path, partial)
        assert_same_either_way(source, every_codemod, tmp_path)


UNRELATED = st.sampled_from([
    "def helper(x):\n    return x + 1\n",
    "def train():\n    for n in range(3):\n        step(1.0, n)\n",
    "class Model:\n    def step(self, x):\n        return x\n\n    def other(self):\n        return 1\n",
    "def n():\n    return 3\n",
    "class Holder:\n    n = 4\n",
    "def values():\n    return []\n",
    "def maker():\n    return tf.function(lambda v: v)\n",
    "def caller():\n    for _ in range(2):\n        maker()\n",
    "def _step(x, n):\n    return x\n",
    "def unrelated(a):\n    return a\n",
])


@SETTINGS
@given(source=tf_programs(), extra=st.lists(UNRELATED, max_size=4), first=st.booleans(), unsafe=st.booleans())
def test_generated_programs_same_either_way(source, extra, first, unsafe, tmp_path_factory):
    pad = "\n\n".join(extra)
    lines = source.split("\n\n\n", 1)
    program = (lines[0] + "\n\n\n" + pad + "\n\n\n" + lines[1]) if first and len(lines) == 2 else source + "\n\n" + pad
    try:
        ast.parse(program)
    except SyntaxError:
        return
    assert_same_either_way(program, RunOptions(unsafe_fixes=unsafe), tmp_path_factory.mktemp("prog"))


# ----------------------------------------------------------------------------- the engine's side


def test_a_codemod_needs_the_whole_module_unless_it_says_otherwise():
    assert RetraceCodemod.NEEDS_WHOLE_MODULE is True
    allowing = {cls.CODE for cls in REGISTRY if not cls.NEEDS_WHOLE_MODULE}
    assert allowing == {"RTF001", "RTF004", "RTF006", "RTF007", "RTF101", "RTF102"}  # one codemod per entry (RTF101: the call-site diagnostics)


BIG = (
    "import tensorflow as tf\n\n"
    "def unrelated(a):\n    return a\n\n"
    "@tf.function\ndef step(x):\n    return x.predict(x)\n\n"
    "for batch in [1, 2]:\n    step(batch)\n"
)


SHARED = (
    "import tensorflow as tf\n\n"
    "def unrelated(a):\n    return a\n\n"
    "@tf.function\ndef step(x, n):\n    return x * n\n\n"
    "for n in [1, 2, 3]:\n    step(1.0, n)\n"
)


def test_the_runs_of_one_text_share_its_parses_and_analyses(tmp_path, monkeypatch):
    """Within trees_shared(), the option sets' runs of one text (partial parsing on and off) parse
    each text LibCST is given once and build one analysis per tree, and report what runs that share
    nothing report."""
    import libcst as cst

    from retrace_fix.analysis import ModuleAnalysis

    options = [RunOptions(select=("RTF103",)), RunOptions(unsafe_fixes=True),
               RunOptions(unsafe_fixes=True, partial_parse=False)]
    alone = [outcome(run(SHARED, each, tmp_path)) for each in options]
    parsed, built = [], []
    real_parse, real_build = cst.parse_module, ModuleAnalysis.__dict__["build"].__func__
    monkeypatch.setattr(cst, "parse_module", lambda text, *a, **k: parsed.append(text) or real_parse(text, *a, **k))
    monkeypatch.setattr(ModuleAnalysis, "build",
                        classmethod(lambda cls, tree, *a, **k: built.append(tree) or real_build(cls, tree, *a, **k)))
    with trees_shared():
        together = [outcome(run(SHARED, each, tmp_path)) for each in options]
    assert together == alone
    assert alone[0][0] and not any(f["applied"] for f in alone[1][0])  # findings, and no edit
    assert len(parsed) == len(set(parsed)) == 2  # the pruned text and the whole module, once each
    assert len(built) == len({id(tree) for tree in built}) == 2


def test_whole_module_codemods_get_the_whole_module(tmp_path, monkeypatch):
    calls = []
    monkeypatch.setattr(Outline, "pruned_text", lambda self: calls.append(1) or None)
    run(BIG, RunOptions(select=("RTF002",)), tmp_path)
    assert calls == []  # RTF002 reads the whole module: nothing was pruned
    run(BIG, RunOptions(select=("RTF101",)), tmp_path)
    assert calls == [1]


EDITED = (
    "import tensorflow as tf\n\n"
    "def unrelated(a):\n    return a\n\n"
    "@tf.function(experimental_relax_shapes=True)\n"
    "def step(x):\n    return x\n"
)


def _count_parses(monkeypatch) -> list[str]:
    parsed: list[str] = []
    real = transform.cst.parse_module
    monkeypatch.setattr(transform.cst, "parse_module", lambda text: parsed.append(text) or real(text))
    return parsed


def test_an_edited_file_is_rewritten_from_the_whole_module(tmp_path, monkeypatch):
    """A partial run that would edit (here: RTF004's hint missed it) is abandoned for the whole module."""
    from retrace_fix.codemods.reduce_retracing import ReduceRetracingCommand

    monkeypatch.setattr(ReduceRetracingCommand, "likely_to_edit", classmethod(lambda cls, outline: False))
    parsed = _count_parses(monkeypatch)
    result = run(EDITED, RunOptions(), tmp_path)
    assert result.fixed == EDITED.replace("experimental_relax_shapes", "reduce_retracing")
    assert "def unrelated(a):" not in parsed[0]  # the partial parse saw the fix ...
    assert parsed[1:] == [EDITED]  # ... the whole module made it (the fixed code: CPython's check only)
    assert result.libcst_parses == 2
    assert re.search(r"RTF004", str([f.code for f in result.findings]))


def test_a_file_that_will_be_edited_is_parsed_whole_once(tmp_path, monkeypatch):
    """RTF004 tells from the text that it will rename the keyword: LibCST parses the whole module, once."""
    parsed = _count_parses(monkeypatch)
    result = run(EDITED, RunOptions(), tmp_path)
    assert result.fixed == EDITED.replace("experimental_relax_shapes", "reduce_retracing")
    assert parsed == [EDITED] and result.libcst_parses == 1
    assert [f.code for f in result.findings] == ["RTF004"]


