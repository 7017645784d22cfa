"""A golden case's program imported in the test process, and a ``tf`` that counts Function objects.

For the TensorFlow tests that run a case's ``input.py`` and ``expected.py`` side by side and
count what each makes; nothing here imports TensorFlow (a test passes its ``tf`` in).
"""

from __future__ import annotations

import importlib.util
import itertools
import types
from pathlib import Path

_names = itertools.count()


def load_module(path: Path, name: str | None = None) -> types.ModuleType:
    """``path`` imported as a fresh module, named ``name`` (default: a new name each call, so two
    sides never share one)."""
    spec = importlib.util.spec_from_file_location(name or f"_case_module_{next(_names)}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class CountingTf(types.ModuleType):
    """``tf`` for a case module (``module.tf = CountingTf(tf, made)``): everything is ``tf``'s, and
    every Function object its ``tf.function`` makes, called directly or as ``@tf.function(...)``, is
    appended to ``made``."""

    def __init__(self, tf: types.ModuleType, made: list):
        super().__init__("tensorflow")
        self._tf = tf
        self._made = made

    def __getattr__(self, name):
        return getattr(self._tf, name)

    def function(self, *args, **kwargs):
        made = self._tf.function(*args, **kwargs)
        if callable(made) and not args:  # @tf.function(...) form: wrap the decorator
            decorator = made

            def wrap(f):
                function = decorator(f)
                self._made.append(function)
                return function

            return wrap
        self._made.append(made)
        return made
