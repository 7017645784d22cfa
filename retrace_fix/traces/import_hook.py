"""One ``sys.meta_path`` finder that runs code around the execution of chosen modules.

:class:`ModuleHook` finds nothing itself: for a module it watches, it asks the
other finders of ``sys.meta_path`` for the spec and wraps the spec's loader, so
that ``around(module, execute)`` runs the module (``execute(module)``) with
whatever it adds before or after.  Used by the recorder (patch tf.function's
class right after TensorFlow's module executed,
:mod:`retrace_fix.traces.tf_patching`), the timing probe of ``retrace-fix
bench`` (time the framework imports, :mod:`retrace_fix.bench.probe`) and the
fidelity benchmark's probe (``benchmarks/fidelity_probe``, which loads this
file by its path).

Pure standard library, importing nothing of this project: it is loaded into
every Python process that ``retrace-fix record`` or ``bench`` runs, before the
program.
"""

from __future__ import annotations

import importlib.abc
import sys
from typing import Any, Callable, Iterable

#: ``around(module, execute)``: must call ``execute(module)`` once (and let its exception out)
Around = Callable[[Any, Callable[[Any], None]], None]


class _WrappingLoader(importlib.abc.Loader):
    """Delegates to the real loader; executes the module through ``around``."""

    def __init__(self, loader: Any, around: Around):
        self._loader = loader
        self._around = around

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        self._around(module, self._loader.exec_module)

    def __getattr__(self, name):
        return getattr(self._loader, name)


class ModuleHook(importlib.abc.MetaPathFinder):
    """A ``sys.meta_path`` finder that reacts only to the modules named in ``names``.

    ``once``: a name is watched until it is first looked for, and the hook leaves
    ``sys.meta_path`` when no name is left (otherwise it stays until :meth:`remove`).
    Re-entrant calls are ignored: another hook of this kind asking the finders of
    ``sys.meta_path`` in turn does not come back here.
    """

    def __init__(self, names: Iterable[str], around: Around, once: bool = False):
        self.pending = set(names)
        self._around = around
        self._once = once
        self._busy = False

    def find_spec(self, fullname, path, target=None):
        if fullname not in self.pending or self._busy:
            return None
        if self._once:
            self.pending.discard(fullname)
            if not self.pending:
                self.remove()
        self._busy = True
        try:
            for finder in list(sys.meta_path):
                if finder is self or not hasattr(finder, "find_spec"):
                    continue
                spec = finder.find_spec(fullname, path, target)
                if spec is not None:
                    if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                        spec.loader = _WrappingLoader(spec.loader, self._around)
                    return spec
            return None
        finally:
            self._busy = False

    def install(self) -> None:
        """Put the hook first on ``sys.meta_path`` (once; nothing when no name is left to watch)."""
        if self.pending and self not in sys.meta_path:
            sys.meta_path.insert(0, self)

    def remove(self) -> None:
        if self in sys.meta_path:
            sys.meta_path.remove(self)

    @property
    def installed(self) -> bool:
        return self in sys.meta_path
