"""Shared pytest options and collection rules.

* ``--update-golden`` regenerates golden expectations.
* ``tests/*_tf.py`` hold the tests that run real TensorFlow (marker ``tf``, set by each
  module's ``pytestmark``). When ``-m`` deselects ``tf`` they are not even imported:
  importing them would import TensorFlow, seconds per process, for nothing.
* pytest-xdist (``-n auto --dist loadfile``, in ``pyproject.toml``'s ``addopts``) runs each
  module on one worker: its module-scoped fixtures are built once.
"""

from __future__ import annotations

TF_MODULE_SUFFIX = "_tf.py"


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
