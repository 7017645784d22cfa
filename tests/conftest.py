"""Shared pytest options and collection rules.

* ``--update-golden`` regenerates golden expectations.
* ``tests/**/*_tf.py`` (in any folder) hold the tests that run real TensorFlow (marker ``tf``,
  set by each module's ``pytestmark``). When ``-m`` deselects ``tf`` they are not even imported:
  importing them would import TensorFlow, seconds per process, for nothing.
* pytest-xdist (``-n auto --dist loadfile``, in ``pyproject.toml``'s ``addopts``) runs each
  module on one worker: its module-scoped fixtures are built once.  The slowest modules
  (:data:`SLOW_MODULES`) are handed out first, the others by their number of tests (see
  :func:`pytest_collection_modifyitems`).
* The package is compiled to bytecode once, before the workers start (see
  :func:`compile_the_package`).
* What collection built is kept out of the garbage collector's passes (:func:`pytest_collection_finish`),
  and ``tmp_path`` is made without pytest's per-test numbering scan (:func:`tmp_path`).
"""

from __future__ import annotations

import compileall
import gc
import itertools
import re
import signal
import sys
from pathlib import Path

import pytest

TF_MODULE_SUFFIX = "_tf.py"
ROOT = Path(__file__).resolve().parent.parent


def compile_the_package() -> None:
    """Write the bytecode of ``retrace_fix/`` and ``codemods/`` (``__pycache__``, ignored by git).

    Every test process and about ninety children that tests start (``python -m retrace_fix``,
    ``libcst.tool``, the pre-commit hooks) import the package.  Where ``PYTHONDONTWRITEBYTECODE``
    is set (as on this project's machines) each of them compiled all of it again, about 0.15 s
    a process; ``pip install`` of a wheel compiles it once, and so does the test run.
    """
    if not sys.dont_write_bytecode:
        return  # Python writes it itself on the first import
    for folder in ("retrace_fix", "codemods"):
        try:
            compileall.compile_dir(ROOT / folder, quiet=2)
        except OSError:  # pragma: no cover - a read-only checkout: each process compiles, as before
            pass


@pytest.hookimpl(wrapper=True)
def pytest_collection(session):
    """Keep the assert-rewritten bytecode of the test modules (``__pycache__``, ignored by git).

    pytest rewrites the asserts of every test module it imports and caches the result next to
    it, unless ``PYTHONDONTWRITEBYTECODE`` is set (as on this project's machines): then every
    worker, and every pytest the tests start, rewrote all ~80 modules again, about half of what
    collecting the suite costs.  pytest reads the cache even where it does not write it, and
    writes it atomically (workers may race), so collection is allowed to write it.
    """
    saved = sys.dont_write_bytecode
    sys.dont_write_bytecode = False
    try:
        return (yield)
    finally:
        sys.dont_write_bytecode = saved


def pytest_collection_finish(session):
    """Move everything collection made (the imported modules: LibCST, the engine, hypothesis; the
    tests and their parameters) out of the garbage collector's passes: ``gc.freeze()``, as the
    engine's own worker processes do (``retrace_fix/engine/pool.py``).

    A test process holds a large heap that never becomes garbage; every full collection during
    the run (and pytest's five at the end of the session) walked all of it again.  Objects the
    tests make are collected as before.  Measured on four modules (prefilter, tf_functions,
    trace_files, golden; ``-n 0``, three alternated runs): 13.7 s -> 12.8 s CPU.
    """
    gc.collect()  # what collection already dropped is freed, not frozen
    gc.freeze()


#: numbers of the ``tmp_path`` directories this process made (see :func:`tmp_path`)
_TMP_PATHS = itertools.count()


@pytest.fixture
def tmp_path(request, tmp_path_factory) -> Path:
    """pytest's ``tmp_path``: a new empty directory for the test under the run's base temporary
    directory (one per worker), kept afterwards as pytest keeps them (this project leaves
    ``tmp_path_retention_policy`` at its default, ``all``), named ``<test name>-t<number>``.

    pytest's own fixture numbers each directory by listing every directory made so far in the
    folder (about 1,700 per worker in a whole run) and moves a ``<name>current`` symlink: two
    metadata writes and a growing scan per test, ~1-2 ms, for numbers nobody reads.
    """
    name = re.sub(r"[\W]", "_", request.node.name)[:30]  # as pytest names them
    base = tmp_path_factory.getbasetemp()
    while True:
        path = base / f"{name}-t{next(_TMP_PATHS)}"
        try:
            path.mkdir(mode=0o700)
        except FileExistsError:  # a tmp_path_factory.mktemp() of that name: take the next number
            continue
        return path


@pytest.fixture
def ctrl_c_delivered():
    """Ctrl-C (SIGINT) raises KeyboardInterrupt during the test, as at an interactive terminal.

    A shell that starts pytest as a background job without job control (``( pytest & )``, some
    CI runners) starts it with SIGINT ignored: a test that sends itself SIGINT then waits for an
    interrupt that never comes (three minutes, then a failure). Tests of Ctrl-C ask for this.
    """
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def pytest_addoption(parser):
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="rewrite golden/*/*/expected.py (deleted when the case must not change) and findings.txt from the current codemods",
    )


def pytest_configure(config):
    """An editable install leaves ``retrace_fix.egg-info`` in the checkout, listing the package's
    files; since the package provides a pytest plugin, pytest then rewrites the asserts of every
    module of it on import, in every test process (about 0.35 s each, no bytecode cache here).
    The package's own asserts need no rewriting: only tests' asserts explain their failures."""
    must_rewrite = getattr(getattr(config.pluginmanager, "rewrite_hook", None), "_must_rewrite", None)
    if isinstance(must_rewrite, set):  # pytest's private table; without it, nothing changes
        must_rewrite.difference_update({"retrace_fix", "codemods"})
    if not hasattr(config, "workerinput"):  # the controller (or a run without workers), once
        compile_the_package()
    if hasattr(config.option, "loadscopereorder"):  # pytest-xdist >= 3.6 would re-sort the modules
        config.option.loadscopereorder = False  # by number of tests: keep pytest_collection_modifyitems' order


#: the modules that take longest (seconds of their tests on one worker, ``-m "not tf"`` on the
#: shared 2-core machine, load average 2 to 5, 2026-11-28; only their order matters), slowest first
SLOW_MODULES = {
    "tests/test_partial_parse_padded.py": 26,
    "tests/bulk/test_cluster.py": 18,
    "tests/test_positions.py": 16,
    "tests/benchmarks/test_scripts.py": 14,
    "tests/test_analysis_scopes.py": 13,
    "tests/bench/test_bench.py": 13,
    "tests/test_scaffold.py": 12,
    "tests/attack/test_hostile_input.py": 10,
    "tests/engine/test_prefilter.py": 10,
    "tests/codemods/test_libcst_interop.py": 9,
    "tests/codemods/test_golden.py": 8,
    "tests/e2e/test_packaging.py": 7,
    "tests/verify/test_verify.py": 7,
    "tests/patch/test_interactive.py": 7,
    "tests/test_partial_parse.py": 6,
    "tests/attack/test_record_lifecycle.py": 6,
    "tests/test_without_tensorflow.py": 5,
    "tests/test_fastvisit.py": 5,
    "tests/engine/test_fuzz.py": 5,
}


def pytest_collection_modifyitems(config, items):
    """Longest first: the modules of :data:`SLOW_MODULES`, then the rest by number of tests.

    With ``--dist loadfile`` a worker takes the next module when it is done with one.
    pytest-xdist hands them out by number of tests, which put the slow modules with few tests
    (the ones that start processes) last, where one of them kept a worker busy after the
    other ran dry.  Each module's tests keep their order; every worker sorts the same way.
    """
    modules: dict[str, list] = {}
    for item in items:
        modules.setdefault(item.nodeid.split("::", 1)[0], []).append(item)
    order = sorted(modules, key=lambda name: (-SLOW_MODULES.get(name, 0), -len(modules[name])))
    items[:] = [item for name in order for item in modules[name]]


def _selects_tf_tests(markexpr: str) -> bool:
    """Whether ``-m markexpr`` selects a test whose one marker is ``tf`` (what a ``*_tf.py``
    module's tests carry); True when unsure."""
    if not markexpr:
        return True
    try:
        from _pytest.mark.expression import Expression  # pytest's own parser of -m
    except ImportError:  # pragma: no cover - a pytest that moved it: collect, as always
        return True
    try:
        return bool(Expression.compile(markexpr).evaluate(lambda name, **_: name == "tf"))
    except Exception:  # pragma: no cover - pytest reports a bad -m itself
        return True


def pytest_ignore_collect(collection_path, config):
    if collection_path.name.endswith(TF_MODULE_SUFFIX) and not _selects_tf_tests(config.option.markexpr):
        return True
    return None
