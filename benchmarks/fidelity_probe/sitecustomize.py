"""TensorFlow's own trace counts, per tf.function origin, for ``benchmarks/fidelity.py``.

Imported by ``site`` in every Python process the fidelity runner starts (this
directory is on ``PYTHONPATH``; under ``retrace-fix record`` the recorder's
``sitecustomize`` comes first and chains to this one).  A no-op unless
``$FIDELITY_PROBE_DIR`` is set.  It must not change what it measures, so it
holds no reference to any object of the program:

* ``Function.__init__`` of TensorFlow's tf.function class is wrapped (when TF's
  module is imported, by retrace_fix's import hook, ``retrace_fix/traces/import_hook.py``
  of this checkout; nothing is imported here) to note each new Function:
  its origin (file, qualname, first line of the Python function's code; for a
  ``functools.partial``, ``partialmethod`` or callable object, of the code it
  calls, with how it was wrapped, found here independently of the recorder) and
  a weak reference to it;
* ``FunctionCache.add`` is wrapped to keep each Function's
  ``len(function_cache)`` (= ``experimental_get_tracing_count()``) up to date,
  so the count of a Function that died is known too;
* at shutdown (threading's exit hook: before the ``atexit`` handlers and
  before the recorder's proofs, whose hook was registered earlier and runs
  later) the counts of live Functions are read once more and written to
  ``$FIDELITY_PROBE_DIR/probe-<pid>.json`` as ``{"FILE::QUALNAME::LINE": count}``,
  summed over the Function objects of one origin.  Paths are relative to the
  current directory at start (the program's project root).
"""

import os
import sys


def _install():
    out_dir = os.environ.get("FIDELITY_PROBE_DIR")
    if not out_dir:
        return
    import json
    import threading
    import weakref

    root = os.path.realpath(os.getcwd())
    module_name = "tensorflow.python.eager.polymorphic_function.polymorphic_function"
    entries = []  # [origin, weakref to the Function, count]
    by_cache = {}  # id(function cache) -> entry (the newest Function with that cache id)

    def unwrapped(target):
        """(code, how it was wrapped) of a partial, partialmethod or callable object (else (None, None))."""
        import functools
        import types

        wraps = None
        for _ in range(32):
            method = None
            if isinstance(target, types.FunctionType):
                method = getattr(target, "__partialmethod__", None) or getattr(target, "_partialmethod", None)
            if isinstance(target, functools.partial):
                wraps, target = wraps or "functools.partial", target.func
            elif isinstance(method, functools.partialmethod):
                wraps, target = wraps or "functools.partialmethod", method.func
            elif isinstance(target, types.MethodType):
                target = target.__func__
            elif getattr(target, "__wrapped__", None) is not None:
                target = target.__wrapped__
            elif isinstance(target, types.FunctionType):
                return (target.__code__, wraps) if wraps else (None, None)
            elif callable(target) and not isinstance(target, type) and \
                    isinstance(getattr(type(target), "__call__", None), types.FunctionType):
                wraps, target = wraps or "callable object", type(target).__call__
            else:
                return None, None
        return None, None

    def origin_of(function):
        code, wraps = getattr(function, "_key_for_call_stats", None), None
        python_function = getattr(function, "_python_function", None)
        if not hasattr(code, "co_filename") or hasattr(python_function, "_partialmethod") or \
                hasattr(python_function, "__partialmethod__"):
            code, wraps = unwrapped(python_function)
        if not hasattr(code, "co_filename"):
            return None
        filename = os.path.realpath(os.path.join(root, code.co_filename))
        rel = os.path.relpath(filename, root)
        parts = rel.split(os.sep)
        if parts[0] == os.pardir or "site-packages" in parts or "dist-packages" in parts:
            return None
        origin = ["/".join(parts), getattr(code, "co_qualname", code.co_name), str(code.co_firstlineno)]
        return "::".join(origin + ([wraps] if wraps else []))

    def patch(module):
        function_class = module.Function
        init = function_class.__init__

        def __init__(self, *args, **kwargs):
            init(self, *args, **kwargs)
            try:
                origin = origin_of(self)
                if origin is not None:
                    entry = [origin, weakref.ref(self), len(self._function_cache)]
                    entries.append(entry)
                    by_cache[id(self._function_cache)] = entry
            except Exception:
                pass

        function_class.__init__ = __init__
        from tensorflow.core.function.polymorphism import function_cache

        cache_class = function_cache.FunctionCache
        add = cache_class.add

        def add_entry(self, *args, **kwargs):
            result = add(self, *args, **kwargs)
            entry = by_cache.get(id(self))
            if entry is not None:
                function = entry[1]()
                if function is None or getattr(function, "_function_cache", None) is self:
                    entry[2] = len(self)
            return result

        cache_class.add = add_entry

    def dump():
        counts = {}
        for origin, ref, count in entries:
            function = ref()
            if function is not None:
                count = len(function._function_cache)
            counts[origin] = counts.get(origin, 0) + count
        if not counts:
            return
        path = os.path.join(out_dir, f"probe-{os.getpid()}.json")
        with open(path, "w", encoding="utf-8") as handle:
            json.dump(counts, handle, sort_keys=True)

    def execute_then_patch(module, execute):
        execute(module)
        patch(module)

    _module_hook().ModuleHook([module_name], execute_then_patch, once=True).install()
    threading._register_atexit(dump)


def _module_hook():
    """``retrace_fix/traces/import_hook.py`` of this checkout, loaded by its path: the probe must not
    depend on the ``retrace_fix`` it measures (``--repo`` records with another checkout's)."""
    import importlib.util

    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    path = os.path.join(repo, "retrace_fix", "traces", "import_hook.py")
    spec = importlib.util.spec_from_file_location("_fidelity_probe_import_hook", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _chain_to_next_sitecustomize():
    import importlib.machinery
    import importlib.util

    here = os.path.dirname(os.path.abspath(__file__))
    entries = [os.path.abspath(p or os.curdir) for p in sys.path]
    # only the entries after this one: the recorder's sitecustomize, first on the path, chained here
    path = sys.path[entries.index(here) + 1:] if here in entries else sys.path
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", path)
    if spec is None or spec.loader is None:
        return
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)


_install()
_chain_to_next_sitecustomize()
