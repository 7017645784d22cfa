"""Timing probe loaded into every Python process that ``retrace-fix bench`` runs.

``retrace-fix bench`` writes a tiny ``sitecustomize`` shim into its temporary
directory and puts it on the child's ``PYTHONPATH`` right after the recorder's
(see :mod:`retrace_fix.bench`).  The shim imports this module and calls
:func:`install`, which

* notes the time the process started running Python code,
* times ``import tensorflow`` (an import hook on the top-level package only),
* and at exit writes ``timing-<pid>.json`` into ``$RETRACE_FIX_BENCH_DIR``::

    {"pid": 123, "program_s": 0.84, "tf_import_s": 3.1, "tracing_s": 0.21,
     "tensorflow": "2.21.0"}

``program_s`` is the time from start to exit *minus* the TensorFlow import
(which costs seconds and is the same before and after a fix, so it would only
add noise); ``tracing_s`` is TensorFlow's own graph-building time, the
monitoring counter ``/tensorflow/core/tf_function/graph_building_time_usecs``
(outermost traces only), or null where this TensorFlow does not have it.

Pure standard library, and it never imports TensorFlow itself.
"""

from __future__ import annotations

import atexit
import importlib.abc
import json
import os
import sys
import time

ENV_BENCH_DIR = "RETRACE_FIX_BENCH_DIR"

#: Modules that have held ``_graph_building_time_counter`` (newest first).
COUNTER_MODULES = (
    "tensorflow.python.eager.polymorphic_function.tracing_compilation",  # TF >= 2.15
    "tensorflow.python.eager.polymorphic_function.tracing_compiler",  # TF 2.13-2.14
    "tensorflow.python.eager.polymorphic_function.polymorphic_function",
    "tensorflow.python.eager.function",
)

_STATE: dict = {"start": None, "tf_import_s": 0.0, "installed": False, "pid": None}


def graph_building_seconds() -> float | None:
    """TensorFlow's graph-building time so far in this process, or None when unavailable."""
    for name in COUNTER_MODULES:
        module = sys.modules.get(name)
        counter = getattr(module, "_graph_building_time_counter", None)
        if counter is None:
            continue
        try:
            return float(counter.get_cell().value()) / 1e6
        except Exception:  # pragma: no cover - an incompatible TF
            return None
    return None


class _TimedLoader(importlib.abc.Loader):
    def __init__(self, loader):
        self._loader = loader

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        started = time.perf_counter()
        try:
            self._loader.exec_module(module)
        finally:
            _STATE["tf_import_s"] += time.perf_counter() - started

    def __getattr__(self, name):
        return getattr(self._loader, name)


class _TensorFlowImportTimer(importlib.abc.MetaPathFinder):
    """Times the execution of the top-level ``tensorflow`` package (its submodules included)."""

    def find_spec(self, fullname, path, target=None):
        if fullname != "tensorflow":
            return None
        if self in sys.meta_path:
            sys.meta_path.remove(self)
        for finder in sys.meta_path:
            if not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    spec.loader = _TimedLoader(spec.loader)
                return spec
        return None


def _write() -> None:
    directory = os.environ.get(ENV_BENCH_DIR)
    if not directory or _STATE["pid"] != os.getpid():
        return
    now = time.perf_counter()
    tf_module = sys.modules.get("tensorflow")
    record = {
        "pid": os.getpid(),
        "program_s": max(0.0, now - _STATE["start"] - _STATE["tf_import_s"]),
        "tf_import_s": _STATE["tf_import_s"],
        "tracing_s": graph_building_seconds(),
        "tensorflow": getattr(tf_module, "__version__", None),
    }
    path = os.path.join(directory, f"timing-{os.getpid()}.json")
    try:
        tmp = path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as handle:
            json.dump(record, handle)
        os.replace(tmp, path)
    except OSError:  # never disturb the program's exit
        pass


def install() -> bool:
    """Start timing this process (once); a no-op without ``$RETRACE_FIX_BENCH_DIR``."""
    if _STATE["installed"] or not os.environ.get(ENV_BENCH_DIR):
        return False
    _STATE.update(installed=True, start=time.perf_counter(), pid=os.getpid())
    if "tensorflow" not in sys.modules:
        sys.meta_path.insert(0, _TensorFlowImportTimer())
    atexit.register(_write)
    return True
