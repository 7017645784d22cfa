"""Shared pytest options and collection rules.

* ``--update-golden`` regenerates golden expectations.
* ``tests/*_tf.py`` hold the tests that run real TensorFlow (marker ``tf``, set by each
  module's ``pytestmark``). When ``-m`` deselects ``tf`` they are not even imported:
  importing them would import TensorFlow, seconds per process, for nothing.
* Under pytest-xdist (``-n``, on by default in ``pyproject.toml``) with ``--dist loadgroup``,
  the tests of a module that share a module-scoped fixture run on one worker, so the fixture
  (a recorded program, a built wheel, a TensorFlow model) is built once and torn down once.
  Tests marked ``@pytest.mark.xdist_group("NAME")`` run one after another on one worker.
"""

from __future__ import annotations

import pytest

TF_MODULE_SUFFIX = "_tf.py"


def pytest_addoption(parser):
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="rewrite golden/*/*/expected.py and findings.txt from the current codemods",
    )


def _selects_tf_tests(markexpr: str) -> bool:
    """Whether ``-m markexpr`` can select a test marked ``tf`` (and nothing else that a
    ``*_tf.py`` module's tests carry); True when unsure."""
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


def _module_fixture_group(item) -> str | None:
    """The module's node id when ``item`` uses a module-scoped fixture of its own module."""
    module = item.nodeid.split("::", 1)[0]
    info = getattr(item, "_fixtureinfo", None)
    for definitions in (info.name2fixturedefs.values() if info is not None else ()):
        if any(d.scope == "module" and d.baseid == module for d in definitions):
            return module
    return None


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups
def pytest_collection_modifyitems(config, items):
    if not hasattr(config, "workerinput"):  # only xdist's workers schedule by group
        return
    for item in items:
        group = _module_fixture_group(item)
        if group is not None and item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(group))
