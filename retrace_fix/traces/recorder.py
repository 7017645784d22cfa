"""The in-process trace recorder.

How it works (see ``docs/trace-format.md`` and the TF internals notes):

* ``Function.__call__``, ``get_concrete_function`` and
  ``_get_concrete_function_garbage_collected`` of TensorFlow's one tf.function
  class (``tensorflow.python.eager.polymorphic_function.polymorphic_function.Function``)
  are wrapped at class level, so every tf.function of the process is seen,
  including ones created before the recorder was installed.
* The per-call work is a calls counter and ``len(function_cache)`` before and
  after.  Only when the length changed (a trace happened) are the new cache
  entries looked at: each new concrete function's ``function_type`` is turned
  into JSON value descriptors, and the cache key's context tells whether the
  trace was nested (made while another tf.function traced).  Every new entry
  is one of TensorFlow's traces, so a function's ``total_traces`` is its
  ``experimental_get_tracing_count()``: the variable-creation double trace
  (same type, two scope types: the first call created variables) is one
  trace with ``variable_creation`` counting the second.
* Each call also reads ``time.perf_counter()`` on entry; a call that traced
  stores its wall time (entry to return: tracing plus that first execution)
  as the new trace's ``seconds``.  A tf.function traced inside another one's
  trace is timed by its own (nested) call, so the outer call's time includes it.
* Origins come from ``Function._key_for_call_stats`` (the user function's code
  object): file relative to the project root, ``co_qualname``,
  ``co_firstlineno``.  A tf.function of a ``functools.partial`` or a callable
  object is recorded at the code it traces (the partial's function,
  ``type(obj).__call__``), as a record of its own marked ``wraps``, with the
  parameters the wrapper binds (``bound``); it gets no proofs, since no fix
  edits it (:func:`~retrace_fix.traces.function_stats.unwrap_callable`).  Files outside the project root or inside
  site-packages (TensorFlow, Keras, ...) are ignored; a notebook cell a Jupyter
  kernel ran is named by its notebook (:mod:`retrace_fix.traces.cells`).

* A call that traced also records where it came from (``call_sites``): the
  first frame above it in project code (TensorFlow/Keras frames skipped),
  as file, line and, on Python 3.11+, column.  Traces made inside another
  tf.function's trace have no call site of their own.
* For each recorded origin the recorder keeps what it needs to re-trace the
  function later (:class:`~retrace_fix.traces.prover.LiveFunction`: the
  Python function and the method's instance, both weakly, the tf.function
  options).  ``Recorder.prove()``, called at the end of the recording,
  trial-traces the candidate fixes of every function that retraced (see
  :mod:`retrace_fix.traces.prover`); while it runs, the hooks ignore every
  call and trace, and take out again the nested entries a trial adds to the
  caches of the tf.functions its body calls.
* The recorder observes without touching: it holds no object of the program
  strongly (argument objects, instances and Python functions only weakly),
  so recording changes no object's lifetime, no identity- or weakref-keyed
  cache (TensorFlow's own included) and no function's tracing count.

This module holds :class:`Recorder` and :func:`activate`/:func:`deactivate`;
the hooks are :mod:`~retrace_fix.traces.tf_patching` (with the import hook of
:mod:`~retrace_fix.traces.import_hook`), the per-Function counters
:mod:`~retrace_fix.traces.function_stats`, the JSON descriptors
:mod:`~retrace_fix.traces.trace_encoding`, project files and call frames
:mod:`~retrace_fix.traces.frames`, and the process-wide recorder of
``retrace-fix record`` (exit, SIGTERM, fork) :mod:`~retrace_fix.traces.process_recorder`.
None of them imports TensorFlow: the hooks patch at once when TensorFlow's
module is already imported, and otherwise right after it is imported.
"""

from __future__ import annotations

import os
import sys
import threading
from typing import Any

from retrace_fix.sources.discovery import find_project_root
from retrace_fix.traces.cells import TIMED_FILES, CellLocator, is_cell_file
from retrace_fix.traces.frames import relative_source_path
from retrace_fix.traces.function_stats import FunctionStats, calls_by_origin, fresh_capture
from retrace_fix.traces.model import CallSite, FunctionTraces, Trace, TraceSet
from retrace_fix.traces.tf_patching import RECORDERS, ensure_patched, hooks_ignore_this_thread, report_error, unpatch
from retrace_fix.traces.trace_encoding import OBJECT_IDS, object_numbers

#: outcomes of trial traces, per recorded key, shared by the recorders of the process
_PROOF_CACHE: dict[tuple, dict] = {}


class Recorder:
    """Collects traces while active; ``trace_set()`` gives what it saw.

    Several recorders may be active at once (e.g. the ``record`` command's and
    a ``record_traces`` context manager inside the program); each sees the
    traces and calls that happen while it is active.
    """

    #: live functions kept per origin (the most recent ones: a method's instances may die)
    MAX_LIVE = 4

    def __init__(self, project_root: str | None = None):
        self.project_root = os.path.realpath(project_root) if project_root else find_project_root()
        self._functions: dict[tuple, FunctionTraces] = {}
        self._origins: dict[tuple, tuple] = {}  # recorded key -> raw origin
        self._live: dict[tuple, list] = {}  # recorded key -> [LiveFunction], newest last
        #: recorded key -> (stats, variable-owner captures) of the function object that traced last
        self._captures: dict[tuple, tuple] = {}
        #: recorded key -> the instance and object arguments of its newest trace, held strongly once
        #: it retraced, only when $RETRACE_FIX_PROOF_KEEP_ALIVE asks for it (see _keep_alive_for_proofs)
        self._kept_alive: dict[tuple, tuple] = {}
        self._proved: dict[tuple, int] = {}  # recorded key -> number of traces when it was proved
        self._rel_cache: dict[str, str | None] = {}
        self._cells: CellLocator | None = None  # a Jupyter kernel's cells -> their notebook
        self._lock = threading.Lock()
        self._calls_baseline: dict[tuple, int] = {}

    def start(self) -> None:
        """Reset the data and take the calls baseline (calls before this are not counted)."""
        with self._lock:
            self._functions.clear()
            self._origins.clear()
            self._live.clear()
            self._captures.clear()
            self._kept_alive.clear()
            self._proved.clear()
            self._calls_baseline = calls_by_origin()

    def _relative(self, filename: str) -> str | None:
        rel = self._rel_cache.get(filename, ...)
        if rel is ...:
            rel = self._rel_cache[filename] = relative_source_path(filename, self.project_root)
        return rel

    def _located(self, filename: str, line: int, qualname: str | None = None) -> tuple[str | None, int]:
        """(file relative to the project root, line) of project code; a notebook cell a kernel ran
        is named by its notebook and the line of the notebook's text (:mod:`retrace_fix.traces.cells`;
        ``qualname``: the function defined there, which places a timed cell's body)."""
        rel = self._relative(filename)
        if rel is None and is_cell_file(filename):
            if self._cells is None:
                self._cells = CellLocator(self.project_root)
            located = self._cells.locate(filename, line, qualname)
            if located is not None:
                return located
        return rel, line

    def _call_site(self, callers: list) -> CallSite | None:
        """The first caller frame in project code (not TensorFlow's, Keras's or generated code); a
        call in the body of a ``%%time`` cell is placed by the frame of the cell that ran the magic."""
        # (filename, line, column) of the outermost frame in a timed body: the one the magic ran (an
        # inner one may be a function another timed cell defined)
        timed = None
        for filename, line, column in callers:
            if filename in TIMED_FILES:
                timed = (filename, line, column)
                continue
            rel, located = self._located(filename, line)
            if rel is None:
                continue
            if timed is not None and self._cells is not None and is_cell_file(filename):
                inner = self._cells.locate_in_magic(filename, timed[0], timed[1])
                if inner is not None:
                    return CallSite(inner[0], inner[1], timed[2])
            return CallSite(rel, located, column)
        return None

    def add_trace(
        self,
        stats: FunctionStats,
        trace: Trace,
        reduce_retracing: bool,
        has_input_signature: bool,
        callers: list | None = None,
    ) -> None:
        """Record one trace of the Function described by ``stats`` (ignored when not project code).

        ``callers``: ``(filename, line, column)`` of the frames above the call that traced,
        innermost first (None for a nested or ``get_concrete_function`` trace).
        """
        if stats.origin is None:
            return
        filename, qualname, line = stats.origin[:3]
        rel, line = self._located(filename, line, qualname)
        if rel is None:
            return
        key = (rel, qualname, line) + ((stats.wraps,) if stats.wraps is not None else ())
        site = self._call_site(callers) if callers else None
        with self._lock:
            function = self._functions.get(key)
            if function is None:
                function = self._functions[key] = FunctionTraces(
                    file=rel, qualname=qualname, firstlineno=line, name=stats.name, params=list(stats.params), calls=0,
                    wraps=stats.wraps, bound=list(stats.bound),
                )
                self._origins[key] = stats.origin
            function.reduce_retracing = function.reduce_retracing or reduce_retracing
            function.has_input_signature = function.has_input_signature or has_input_signature
            previous = self._captures.get(key)
            if (previous is not None and previous[0] is not stats and not trace.nested
                    and any(t.identity() == trace.identity() for t in function.traces)
                    and fresh_capture(previous[1], stats.captures or ())):
                function.fresh_captures += 1  # a new function object around a new model: its own trace
            self._captures[key] = (stats, stats.captures or ())
            function.add_trace(trace)
            if site is not None:
                function.add_call_site(site)
            if stats.live is not None:
                lives = self._live.setdefault(key, [])
                if stats.live in lives:
                    lives.remove(stats.live)
                lives.append(stats.live)
                del lives[: -self.MAX_LIVE]
            if len(function.traces) > 1 and stats.wraps is None and _keep_alive_enabled():  # no proofs: nothing to keep
                self._keep_alive_for_proofs(key, stats.live, trace)

    def _keep_alive_for_proofs(self, key: tuple, live: Any, trace: Trace) -> None:
        """Opt-in (``$RETRACE_FIX_PROOF_KEEP_ALIVE=1``): hold the instance (for a method) and the
        object arguments of the newest trace of a function that retraced until the recording ends,
        so that proofs at exit can use objects a program built inside ``main()`` and dropped.

        Off by default because it changes what it observes: an object kept alive is still equal
        to a new one in TensorFlow's cache key (a bound method ``agent.update`` traced 8 times
        alone and 2 times recorded), its ``__del__`` runs later, a weakref-keyed cache of the
        program keeps its entry and its id is not reused."""
        held = []
        instance = live.instance_ref() if live is not None and live.instance_ref is not None else None
        if instance is not None:
            held.append(instance)
        for number in object_numbers(trace.args):
            obj = OBJECT_IDS.lookup(number)
            if obj is not None:
                held.append(obj)
        self._kept_alive[key] = tuple(held)

    def _live_function(self, key: tuple) -> Any:
        """The newest live function of ``key`` whose instance (for a method) is still alive."""
        lives = self._live.get(key) or []
        for live in reversed(lives):
            if live.bound() is not None:
                return live
        return lives[-1] if lives else None

    def prove(self, budget: Any = None) -> None:
        """Trial-trace the candidate fixes of every function that traced more than once (again only
        when it traced since); see :mod:`retrace_fix.traces.prover`.  Call at the end of the
        recording.  ``budget``: a :class:`~retrace_fix.traces.prover.Budget` (default: from the
        environment, ``$RETRACE_FIX_PROOF_SECONDS``)."""
        from retrace_fix.traces import prover

        budget = budget or prover.Budget.from_environment()
        if not budget.enabled or "tensorflow" not in sys.modules:
            return
        with self._lock:
            todo = [
                (key, function, len(function.traces))
                for key, function in self._functions.items()
                if len(function.traces) > 1
                and not function.has_input_signature
                and function.wraps is None  # a wrapped callable: no codemod edits it, nothing to prove
                and self._proved.get(key) != len(function.traces)
            ]
        if not todo:
            return
        with hooks_ignore_this_thread():
            for key, function, count in todo:
                work = function.copy(proofs={})
                try:
                    prover.prove_function(
                        work, self._live_function(key), budget, OBJECT_IDS.lookup, _PROOF_CACHE.setdefault(key, {})
                    )
                except Exception as exc:  # never break the user's program
                    report_error(exc)
                    continue
                with self._lock:
                    function.proofs = dict(work.proofs)
                    self._proved[key] = count

    def trace_set(self, prove: bool = False) -> TraceSet:
        """A snapshot of what was recorded (functions with at least one trace); with ``prove``,
        :meth:`prove` runs first so the snapshot holds the proofs."""
        if prove:
            self.prove()
        calls = calls_by_origin()
        result = TraceSet(tensorflow_version=_tensorflow_version())
        with self._lock:
            for key, function in self._functions.items():
                origin = self._origins[key]
                result.add(function.copy(
                    calls=max(0, calls.get(origin, 0) - self._calls_baseline.get(origin, 0)),
                    # one process: an identical trace again is a new tf.function object at this origin
                    recreated=sum(t.count - 1 for t in function.traces if not t.nested),
                ))
        return result


def _tensorflow_version() -> str | None:
    module = sys.modules.get("tensorflow")
    version = getattr(module, "__version__", None)
    if version is None:
        version = getattr(sys.modules.get("tensorflow.python.framework.versions"), "__version__", None)
    return version


#: $RETRACE_FIX_PROOF_KEEP_ALIVE=1: hold the newest objects of a function that retraced for its proofs
ENV_KEEP_ALIVE = "RETRACE_FIX_PROOF_KEEP_ALIVE"


def _keep_alive_enabled() -> bool:
    """$RETRACE_FIX_PROOF_KEEP_ALIVE is set (not ``0``) and proofs are on (read at each trace)."""
    if os.environ.get(ENV_KEEP_ALIVE, "").strip() in ("", "0"):
        return False
    from retrace_fix.traces.prover import Budget

    return Budget.from_environment().enabled


def activate(recorder: Recorder) -> Recorder:
    """Start ``recorder`` and make it receive traces (patching TF now or on import)."""
    recorder.start()
    RECORDERS.append(recorder)
    ensure_patched()
    return recorder


def deactivate(recorder: Recorder) -> None:
    """Stop ``recorder``; when it was the last one, remove the hooks."""
    if recorder in RECORDERS:
        RECORDERS.remove(recorder)
    if not RECORDERS:
        unpatch()


def _after_fork_in_child() -> None:
    """A forked child starts empty: the parent writes what the parent recorded.

    Locks are made anew first: another thread of the parent may have held one
    at the moment of the fork, and that thread does not exist in the child, so
    the copy would stay locked for ever (the statistics' and the object ids'
    locks are renewed by their modules, imported, so registered, before this one).
    """
    for recorder in RECORDERS:
        recorder._lock = threading.Lock()
        recorder.start()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
