"""Timing probe loaded into every Python process that ``retrace-fix bench`` runs.

``retrace-fix bench`` names this module in ``$RETRACE_FIX_SITE_MODULES``, so the
recorder's ``sitecustomize`` imports it right after installing the recorder
(see :mod:`retrace_fix.bench.runs`) and calls :func:`install`, which

* notes the time the process started running Python code,
* times the framework imports (``tensorflow``, ``keras``, ``tf_keras``: an
  import hook on those top-level packages, :mod:`retrace_fix.traces.import_hook`;
  nested imports are counted once),
* notes when the program ended (before the recorder's proofs, which are not the program's),
* and at exit writes ``timing-<pid>.json`` into ``$RETRACE_FIX_BENCH_DIR``::

    {"pid": 123, "program_s": 0.84, "program_cpu_s": 1.02, "tf_import_s": 3.1,
     "tracing_s": 0.21, "tensorflow": "2.21.0"}

``program_s`` is the time from start to exit *minus* the framework imports
(they cost seconds and are the same before and after a fix, so they would only
add noise; ``tf_import_s`` is their time); ``program_cpu_s`` is the same span
in CPU time of the process (all threads), which a loaded machine disturbs much
less than wall time; ``tracing_s`` is TensorFlow's own graph-building time, the
monitoring counter ``/tensorflow/core/tf_function/graph_building_time_usecs``
(outermost traces only), or null where this TensorFlow does not have it.

Standard library and two small modules of this package (the import hook, the atomic
write); it never imports TensorFlow itself.
"""

from __future__ import annotations

import atexit
import json
import os
import sys
import threading
import time

from retrace_fix.traces.import_hook import ModuleHook
from retrace_fix.sources.writes import write_file

ENV_BENCH_DIR = "RETRACE_FIX_BENCH_DIR"

#: Modules that have held ``_graph_building_time_counter`` (newest first).
COUNTER_MODULES = (
    "tensorflow.python.eager.polymorphic_function.tracing_compilation",  # TF >= 2.15
    "tensorflow.python.eager.polymorphic_function.tracing_compiler",  # TF 2.13-2.14
    "tensorflow.python.eager.polymorphic_function.polymorphic_function",
    "tensorflow.python.eager.function",
)

#: Top-level packages whose import time is left out of ``program_s``.
FRAMEWORK_PACKAGES = frozenset({"tensorflow", "keras", "tf_keras"})

_STATE: dict = {
    "start": None, "start_cpu": None, "tf_import_s": 0.0, "tf_import_cpu_s": 0.0,
    "installed": False, "pid": None, "depth": 0, "end": None,
}


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


def _timed(module, execute) -> None:
    """Execute a framework package, adding its time to ``tf_import_s`` (outermost imports only)."""
    started, started_cpu = time.perf_counter(), time.process_time()
    _STATE["depth"] += 1
    try:
        execute(module)
    finally:
        _STATE["depth"] -= 1
        if _STATE["depth"] == 0:  # keras imported by tensorflow is already counted
            _STATE["tf_import_s"] += time.perf_counter() - started
            _STATE["tf_import_cpu_s"] += time.process_time() - started_cpu


def _end_of_program() -> None:
    """The program's end, taken before the recorder's own exit work (its proofs trace candidate
    fixes: that is neither the program's time nor its tracing)."""
    if _STATE["pid"] == os.getpid() and _STATE.get("end") is None:
        _STATE["end"] = (time.perf_counter(), time.process_time(), graph_building_seconds())


def _write() -> None:
    directory = os.environ.get(ENV_BENCH_DIR)
    if not directory or _STATE["pid"] != os.getpid():
        return
    now, now_cpu, tracing = _STATE.get("end") or (time.perf_counter(), time.process_time(), graph_building_seconds())
    tf_module = sys.modules.get("tensorflow")
    record = {
        "pid": os.getpid(),
        "program_s": max(0.0, now - _STATE["start"] - _STATE["tf_import_s"]),
        "program_cpu_s": max(0.0, now_cpu - _STATE["start_cpu"] - _STATE["tf_import_cpu_s"]),
        "tf_import_s": _STATE["tf_import_s"],
        "tracing_s": tracing,
        "tensorflow": getattr(tf_module, "__version__", None),
    }
    path = os.path.join(directory, f"timing-{os.getpid()}.json")
    try:
        write_file(path, json.dumps(record).encode("utf-8"))
    except Exception:  # never disturb the program's exit
        pass


def install() -> bool:
    """Start timing this process (once); a no-op without ``$RETRACE_FIX_BENCH_DIR``."""
    if _STATE["installed"] or not os.environ.get(ENV_BENCH_DIR):
        return False
    _STATE.update(installed=True, start=time.perf_counter(), start_cpu=time.process_time(), pid=os.getpid())
    # times the execution of the top-level framework packages (their submodules included)
    ModuleHook(FRAMEWORK_PACKAGES - set(sys.modules), _timed, once=True).install()
    atexit.register(_write)
    # threading's exit hooks run before atexit, the latest registered first: this one before the
    # recorder's proofs (registered by the sitecustomize before it installs this probe)
    register = getattr(threading, "_register_atexit", None)
    if register is not None:
        try:
            register(_end_of_program)
        except RuntimeError:  # pragma: no cover - already shutting down
            pass
    return True
