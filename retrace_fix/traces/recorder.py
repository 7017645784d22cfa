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
  ``co_firstlineno``.  Files outside the project root or inside
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

This module does not import TensorFlow.  ``install()`` patches at once when
TensorFlow's module is already imported, and otherwise installs a
``sys.meta_path`` hook that patches right after it is imported.
"""

from __future__ import annotations

import atexit
import contextlib
import importlib.abc
import itertools
import math
import os
import signal
import sys
import threading
import time
import types
import weakref
from typing import Any, Callable, Iterator

from retrace_fix.sources.discovery import ENV_PROJECT_ROOT, find_project_root
from retrace_fix.traces.cells import CellLocator, is_cell_file
from retrace_fix.traces.model import CallSite, FunctionTraces, Trace, TraceSet, save_trace_file

#: Environment variable naming the directory where each process writes its shard.
ENV_SHARD_DIR = "RETRACE_FIX_SHARD_DIR"
#: Environment variable naming the directory holding the ``retrace_fix`` package (for sitecustomize).
ENV_PACKAGE_PATH = "RETRACE_FIX_PACKAGE_PATH"

TF_MODULE = "tensorflow.python.eager.polymorphic_function.polymorphic_function"

_clock = time.perf_counter

_IGNORED_DIR_NAMES = frozenset({"site-packages", "dist-packages"})
_START_CWD = os.getcwd()


# ---------------------------------------------------------------------------
# project root and origins


def relative_source_path(filename: str, project_root: str) -> str | None:
    """``filename`` as a POSIX path relative to ``project_root``; None when it is not project code."""
    if not filename or filename.startswith("<"):
        return None
    if not os.path.isabs(filename):
        filename = os.path.join(_START_CWD, filename)
    real = os.path.realpath(filename)
    try:
        rel = os.path.relpath(real, project_root)
    except ValueError:  # another drive on Windows
        return None
    parts = rel.split(os.sep)
    if parts[0] == os.pardir or os.path.isabs(rel):
        return None
    if _IGNORED_DIR_NAMES.intersection(parts):
        return None
    return "/".join(parts)


def _code_params(code: types.CodeType) -> list[str]:
    """Parameter names of a code object in signature order (``self``, ``*args`` and ``**kw`` included)."""
    names = code.co_varnames
    positional = list(names[: code.co_argcount])
    keyword_only = list(names[code.co_argcount : code.co_argcount + code.co_kwonlyargcount])
    index = code.co_argcount + code.co_kwonlyargcount
    star = []
    if code.co_flags & 0x04:  # CO_VARARGS
        star = [names[index]]
        index += 1
    double_star = [names[index]] if code.co_flags & 0x08 else []  # CO_VARKEYWORDS
    return positional + star + keyword_only + double_star


def _bound_instance(python_function: Any) -> Any:
    """The instance a tf.function of a bound method is bound to, or None.

    Per-instance Functions (``obj.method`` for ``@tf.function`` methods) wrap a
    ``MethodType`` whose ``__self__`` is a ``TfMethodTarget`` holding a weak
    reference to the instance; ``tf.function(obj.method)`` wraps the bound
    method directly.  In both cases the traced FunctionType has no ``self``.
    """
    candidate = python_function
    for _ in range(16):
        if candidate is None:
            return None
        if isinstance(candidate, types.MethodType):
            owner = candidate.__self__
            if type(owner).__name__ == "TfMethodTarget":
                owner = getattr(owner, "target", None)
            return owner
        candidate = getattr(candidate, "__original_wrapped__", None) or getattr(candidate, "__wrapped__", None)
    return None


class _FnStats:
    """Per-Function bookkeeping; created on the first call/trace the recorder sees."""

    __slots__ = ("ref", "calls", "origin", "params", "name", "is_method", "seen", "function_id", "live")

    def __init__(self, function: Any):
        self.calls = 0
        self.seen: set[int] = set()  # ids of the concrete functions already recorded (see _on_trace)
        self.origin: tuple[str, str, int] | None = None
        self.params: list[str] = []
        self.name = ""
        code = getattr(function, "_key_for_call_stats", None)
        if not isinstance(code, types.CodeType):
            code = getattr(getattr(function, "python_function", None), "__code__", None)
        if isinstance(code, types.CodeType):
            qualname = getattr(code, "co_qualname", code.co_name)
            self.origin = (code.co_filename, qualname, code.co_firstlineno)
            self.params = _code_params(code)
            self.name = code.co_name
        self.is_method = _bound_instance(getattr(function, "_python_function", None)) is not None
        self.function_id = id(function)
        self.ref = weakref.ref(function, _DEAD_REFS.append)
        self.live: Any = None  # prover.LiveFunction, made on the first trace


# id(Function) -> stats of the live Function with that id (checked with stats.ref)
_STATS: dict[int, _FnStats] = {}
# id(stats.ref) -> stats, for every Function not yet known to be dead
_LIVE: dict[int, _FnStats] = {}
# weakrefs of dead Functions; weakref callbacks only append here (they may run inside
# any allocation, so they must not touch the dicts), _collect_dead() folds them
_DEAD_REFS: list[weakref.ref] = []
# calls of dead Functions, summed per origin
_DEAD_CALLS: dict[tuple, int] = {}
_STATS_LOCK = threading.Lock()


def _collect_dead() -> None:
    """Fold the calls of dead Functions into ``_DEAD_CALLS`` (call with ``_STATS_LOCK`` held)."""
    while _DEAD_REFS:
        stats = _LIVE.pop(id(_DEAD_REFS.pop()), None)
        if stats is None:
            continue
        if _STATS.get(stats.function_id) is stats:
            del _STATS[stats.function_id]
        if stats.origin is not None and stats.calls:
            _DEAD_CALLS[stats.origin] = _DEAD_CALLS.get(stats.origin, 0) + stats.calls


def _new_stats(function: Any) -> _FnStats:
    stats = _FnStats(function)
    with _STATS_LOCK:
        _collect_dead()
        _STATS[id(function)] = stats
        _LIVE[id(stats.ref)] = stats
    return stats


def _calls_by_origin() -> dict[tuple, int]:
    """Calls seen so far, per raw origin (dead Functions included)."""
    with _STATS_LOCK:
        _collect_dead()
        totals = dict(_DEAD_CALLS)
        for stats in list(_LIVE.values()):
            if stats.origin is not None:
                totals[stats.origin] = totals.get(stats.origin, 0) + stats.calls
    return totals


# ---------------------------------------------------------------------------
# TraceType -> JSON value descriptor


class _ObjectIds:
    """Small ordinals for objects seen as Weakref arguments (first object = 1)."""

    def __init__(self):
        self._ids: dict[int, tuple[Any, int]] = {}
        self._by_number: dict[int, Any] = {}  # number -> weakref (objects are never held)
        self._next = 1
        self._lock = threading.Lock()

    def get(self, obj: Any) -> int:
        with self._lock:
            entry = self._ids.get(id(obj))
            if entry is not None and entry[0]() is obj:
                return entry[1]
            number = self._next
            self._next += 1
            try:
                key = id(obj)
                holder: Any = weakref.ref(obj, lambda _r, key=key, number=number: self._forget(key, number))
            except TypeError:
                # not weak-referenceable: never held (holding it would change its lifetime, and the
                # reuse of its id after its death), so never known again; a proof cannot use it
                return number
            self._ids[id(obj)] = (holder, number)
            self._by_number[number] = holder
            return number

    def _forget(self, key: int, number: int) -> None:
        self._ids.pop(key, None)
        self._by_number.pop(number, None)

    def lookup(self, number: int) -> Any:
        """The live object that got ``number``, or None (dead, or never seen)."""
        holder = self._by_number.get(number)
        return holder() if holder is not None else None

    def reset(self) -> None:
        with self._lock:
            self._ids.clear()
            self._by_number.clear()
            self._next = 1


OBJECT_IDS = _ObjectIds()


def _object_numbers(value: Any) -> list[int]:
    """The ``id`` numbers of the objects a trace's argument descriptors name, at any depth."""
    found: list[int] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if item.get("kind") == "object" and isinstance(item.get("id"), int):
                found.append(item["id"])
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


_MAX_REPR = 300


def _shape(shape: Any) -> list | None:
    try:
        if shape.rank is None:
            return None
        return [None if d is None else int(d) for d in shape.as_list()]
    except Exception:  # pragma: no cover - exotic shapes
        return None


def _dtype(dtype: Any) -> str:
    return getattr(dtype, "name", None) or str(dtype)


def _python_value(value: Any) -> dict:
    if type(value) is object:  # TF's NanMarker: a NaN argument
        return {"kind": "python", "type": "float", "value": "nan"}
    if isinstance(value, float) and not math.isfinite(value):
        return {"kind": "python", "type": "float", "value": repr(value)}
    if value is None or isinstance(value, (bool, int, float, str)):
        json_value: Any = value
    else:
        json_value = repr(value)[:_MAX_REPR]
    return {"kind": "python", "type": type(value).__name__, "value": json_value}


def describe_object(obj: Any) -> dict:
    """Descriptor of a Python object passed by identity (TF Weakref argument)."""
    if obj is None:
        return {"kind": "object", "type": "<dead object>", "id": 0}
    return {"kind": "object", "type": type(obj).__qualname__, "id": OBJECT_IDS.get(obj)}


def _encode_tensor_spec(t: Any) -> dict:
    return {"kind": "tensor", "shape": _shape(t.shape), "dtype": _dtype(t.dtype)}


def _encode_ragged(t: Any) -> dict:
    return {
        "kind": "ragged",
        "shape": _shape(t.shape),
        "dtype": _dtype(t.dtype),
        "ragged_rank": int(t.ragged_rank),
        "row_splits_dtype": _dtype(t.row_splits_dtype),
    }


def _encode_sparse(t: Any) -> dict:
    return {"kind": "sparse", "shape": _shape(t.shape), "dtype": _dtype(t.dtype)}


def _encode_variable(t: Any) -> dict:
    return {"kind": "variable", "shape": _shape(t.shape), "dtype": _dtype(t.dtype), "trainable": bool(t.trainable)}


def _encode_literal(t: Any) -> dict:
    return _python_value(t.value)


def _encode_weakref(t: Any) -> dict:
    ref = getattr(t, "_ref", None)
    return describe_object(ref() if ref is not None else None)


def _encode_tuple(t: Any) -> dict:
    return {"kind": "tuple", "items": [encode_trace_type(c) for c in t.components]}


def _encode_list(t: Any) -> dict:
    return {"kind": "list", "items": [encode_trace_type(c) for c in t.components_tuple.components]}


def _encode_namedtuple(t: Any) -> dict:
    return {
        "kind": "namedtuple",
        "type": str(t.type_name),
        "items": {str(n): encode_trace_type(c) for n, c in zip(t.attribute_names, t.attributes.components)},
    }


def _encode_attrs(t: Any) -> dict:
    return _encode_namedtuple(t.named_attributes)


def _encode_dict(t: Any) -> dict:
    items = {str(k): encode_trace_type(v) for k, v in t.mapping.items()}
    return {"kind": "dict", "items": dict(sorted(items.items()))}


def _encode_per_replica(t: Any) -> dict:
    """A distributed value (``tf.distribute`` ``PerReplica``): one descriptor per replica's component."""
    return {"kind": "per_replica", "items": [encode_trace_type(c) for c in t._value_specs]}


# Dispatch on class names (walking the MRO) so this module needs no TF import.
_ENCODERS: dict[str, Callable[[Any], dict]] = {
    "TensorSpec": _encode_tensor_spec,
    "RaggedTensorSpec": _encode_ragged,
    "SparseTensorSpec": _encode_sparse,
    "VariableSpec": _encode_variable,
    "Literal": _encode_literal,
    "Weakref": _encode_weakref,
    "Tuple": _encode_tuple,
    "List": _encode_list,
    "NamedTuple": _encode_namedtuple,
    "Attrs": _encode_attrs,
    "Dict": _encode_dict,
    "PerReplicaSpec": _encode_per_replica,
}


def encode_trace_type(trace_type: Any) -> dict:
    """JSON value descriptor of one TF TraceType (see ``docs/trace-format.md``)."""
    for cls in type(trace_type).__mro__:
        encoder = _ENCODERS.get(cls.__name__)
        if encoder is not None:
            try:
                return encoder(trace_type)
            except Exception:
                break
    return {"kind": "other", "type": type(trace_type).__name__, "repr": repr(trace_type)[:_MAX_REPR]}


# ---------------------------------------------------------------------------
# recorders


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
            self._kept_alive.clear()
            self._proved.clear()
            self._calls_baseline = _calls_by_origin()

    def _relative(self, filename: str) -> str | None:
        rel = self._rel_cache.get(filename, ...)
        if rel is ...:
            rel = self._rel_cache[filename] = relative_source_path(filename, self.project_root)
        return rel

    def _located(self, filename: str, line: int) -> tuple[str | None, int]:
        """(file relative to the project root, line) of project code; a notebook cell a kernel ran
        is named by its notebook and the line of the notebook's text (:mod:`retrace_fix.traces.cells`)."""
        rel = self._relative(filename)
        if rel is None and is_cell_file(filename):
            if self._cells is None:
                self._cells = CellLocator(self.project_root)
            located = self._cells.locate(filename, line)
            if located is not None:
                return located
        return rel, line

    def _call_site(self, callers: list) -> CallSite | None:
        """The first caller frame in project code (not TensorFlow's, Keras's or generated code)."""
        for filename, line, column in callers:
            rel, line = self._located(filename, line)
            if rel is not None:
                return CallSite(rel, line, column)
        return None

    def add_trace(
        self,
        stats: _FnStats,
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
        filename, qualname, line = stats.origin
        rel, line = self._located(filename, line)
        if rel is None:
            return
        key = (rel, qualname, line)
        site = self._call_site(callers) if callers else None
        with self._lock:
            function = self._functions.get(key)
            if function is None:
                function = self._functions[key] = FunctionTraces(
                    file=rel, qualname=qualname, firstlineno=line, name=stats.name, params=list(stats.params), calls=0
                )
                self._origins[key] = stats.origin
            function.reduce_retracing = function.reduce_retracing or reduce_retracing
            function.has_input_signature = function.has_input_signature or has_input_signature
            function.add_trace(trace)
            if site is not None:
                function.add_call_site(site)
            if stats.live is not None:
                lives = self._live.setdefault(key, [])
                if stats.live in lives:
                    lives.remove(stats.live)
                lives.append(stats.live)
                del lives[: -self.MAX_LIVE]
            if len(function.traces) > 1 and _keep_alive_enabled():
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
        for number in _object_numbers(trace.args):
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
        global _PROVING_THREAD
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
                and self._proved.get(key) != len(function.traces)
            ]
        if not todo:
            return
        previous = _PROVING_THREAD
        _PROVING_THREAD = threading.get_ident()
        try:
            for key, function, count in todo:
                work = FunctionTraces(
                    file=function.file, qualname=function.qualname, firstlineno=function.firstlineno,
                    name=function.name, params=list(function.params), calls=function.calls,
                    traces=[t.copy() for t in function.traces],
                )
                try:
                    prover.prove_function(
                        work, self._live_function(key), budget, OBJECT_IDS.lookup, _PROOF_CACHE.setdefault(key, {})
                    )
                except Exception as exc:  # never break the user's program
                    _report_error(exc)
                    continue
                with self._lock:
                    function.proofs = dict(work.proofs)
                    self._proved[key] = count
        finally:
            _PROVING_THREAD = previous

    def trace_set(self, prove: bool = False) -> TraceSet:
        """A snapshot of what was recorded (functions with at least one trace); with ``prove``,
        :meth:`prove` runs first so the snapshot holds the proofs."""
        if prove:
            self.prove()
        calls = _calls_by_origin()
        result = TraceSet(tensorflow_version=_tensorflow_version())
        with self._lock:
            for key, function in self._functions.items():
                origin = self._origins[key]
                snapshot = FunctionTraces(
                    file=function.file,
                    qualname=function.qualname,
                    firstlineno=function.firstlineno,
                    name=function.name,
                    params=list(function.params),
                    calls=max(0, calls.get(origin, 0) - self._calls_baseline.get(origin, 0)),
                    traces=[t.copy() for t in function.traces],
                    reduce_retracing=function.reduce_retracing,
                    has_input_signature=function.has_input_signature,
                    call_sites=[CallSite(c.file, c.line, c.column, c.count) for c in function.call_sites],
                    proofs=dict(function.proofs),
                    # one process: an identical trace again is a new tf.function object at this origin
                    recreated=sum(t.count - 1 for t in function.traces if not t.nested),
                )
                result.add(snapshot)
        return result


def _tensorflow_version() -> str | None:
    module = sys.modules.get("tensorflow")
    version = getattr(module, "__version__", None)
    if version is None:
        version = getattr(sys.modules.get("tensorflow.python.framework.versions"), "__version__", None)
    return version


_RECORDERS: list[Recorder] = []
#: $RETRACE_FIX_PROOF_KEEP_ALIVE=1: hold the newest objects of a function that retraced for its proofs
ENV_KEEP_ALIVE = "RETRACE_FIX_PROOF_KEEP_ALIVE"


def _keep_alive_enabled() -> bool:
    """$RETRACE_FIX_PROOF_KEEP_ALIVE is set (not ``0``) and proofs are on (read at each trace)."""
    if os.environ.get(ENV_KEEP_ALIVE, "").strip() in ("", "0"):
        return False
    from retrace_fix.traces.prover import Budget

    return Budget.from_environment().enabled
_ERROR_REPORTED = False
#: the thread running proofs: the hooks ignore its calls and traces (None: no proof running)
_PROVING_THREAD: int | None = None
#: outcomes of trial traces, per recorded key, shared by the recorders of the process
_PROOF_CACHE: dict[tuple, dict] = {}


def _report_error(exc: BaseException) -> None:
    global _ERROR_REPORTED
    if not _ERROR_REPORTED:
        _ERROR_REPORTED = True
        print(f"retrace-fix: recorder error (traces may be incomplete): {exc!r}", file=sys.stderr)


def _on_trace(
    function: Any, stats: _FnStats, via: str, before: int, seconds: float | None = None, caller: Any = None
) -> None:
    """Called after a call that traced: record the cache entries added since ``before``.

    ``seconds`` is the call's wall time; it goes to the trace it made (split
    evenly in the rare case that one call made several distinct traces).

    The cache is insertion-ordered and TF never deletes from it, so the new
    entries are the ones past the old length; entries made before the recorder
    was active are thus never recorded.  ``stats.seen`` keeps two threads that
    traced the same function at once from recording an entry twice.
    """
    try:
        if not _RECORDERS or stats.origin is None:
            return
        if stats.live is None:
            from retrace_fix.traces.prover import live_function

            stats.live = live_function(function)
        cache = function._function_cache
        primary = getattr(cache, "_primary", None)
        entries = list(primary.items()) if primary is not None else [((None, cf.function_type), cf) for cf in cache.values()]
        entries = entries[before:]
        instance = _bound_instance(function._python_function) if stats.is_method else None
        # parent_graph is only set under a TF1-style graph (init_scope lifts a FuncGraph
        # to eager), so a trace made while another tf.function traces is told by the
        # default graph still being a FuncGraph after the call returned.
        inside = _inside_function()
        new: dict[str, Trace] = {}
        first_context: dict[str, Any] = {}
        for (context, function_type), concrete in entries:
            if id(concrete) in stats.seen:
                continue
            stats.seen.add(id(concrete))
            args: dict[str, dict] = {}
            if stats.is_method:
                args[stats.params[0] if stats.params else "self"] = describe_object(instance)
            for name, parameter in function_type.parameters.items():
                args[name] = encode_trace_type(parameter.annotation)
            nested = inside or getattr(getattr(context, "context", None), "parent_graph", None) is not None
            trace = Trace(args=args, nested=nested, via=via)
            same = new.get(trace.identity())
            if same is None:
                new[trace.identity()] = trace
            elif _scope_name(context) != _scope_name(first_context.get(trace.identity())):
                same.variable_creation += 1  # the first call created variables: TF traced it again
            else:  # pragma: no cover - one call, one signature, one scope: not seen in TF 2.15-2.21
                same.count += 1
            first_context.setdefault(trace.identity(), context)
        if not new:
            return
        if seconds is not None:
            share = round(max(0.0, seconds) / len(new), 6)
            for trace in new.values():
                trace.seconds = share
        reduce_retracing = bool(getattr(function, "_reduce_retracing", False))
        has_signature = getattr(function, "input_signature", None) is not None
        callers = _callers(caller) if caller is not None and not inside else None
        for recorder in list(_RECORDERS):
            for trace in new.values():
                recorder.add_trace(stats, trace, reduce_retracing, has_signature, callers)
                callers = None  # one call, one call site (even when it made several traces)
    except Exception as exc:  # never break the user's program
        _report_error(exc)


def _scope_name(context: Any) -> str | None:
    """The ``ScopeType`` of a function-cache key's context (``VARIABLE_CREATION`` for the first
    trace of a Function, ``NO_VARIABLE_CREATION`` once its first call created variables)."""
    scope = getattr(context, "scope_type", None)
    return getattr(scope, "name", None) if scope is not None else None


_MAX_CALLER_FRAMES = 40


def _callers(frame: Any) -> list[tuple[str, int, int | None]]:
    """``(filename, line, column)`` of ``frame`` and the frames above it (innermost first).

    The column (0-based, in UTF-8 bytes as Python counts it) of the call being made comes from
    ``co_positions()`` on Python 3.11+; None before.
    """
    found = []
    while frame is not None and len(found) < _MAX_CALLER_FRAMES:
        code = frame.f_code
        column = None
        positions = getattr(code, "co_positions", None)
        if positions is not None and frame.f_lasti >= 0:
            try:
                position = next(itertools.islice(positions(), frame.f_lasti // 2, None), None)
            except Exception:  # pragma: no cover - defensive
                position = None
            if position is not None and position[2] is not None:
                column = position[2]
        found.append((code.co_filename, frame.f_lineno, column))
        frame = frame.f_back
    return found


def _inside_function() -> bool:
    ops = sys.modules.get("tensorflow.python.framework.ops")
    try:
        return bool(ops.inside_function()) if ops is not None else False
    except Exception:
        return False


# ---------------------------------------------------------------------------
# patching TensorFlow's Function class

_ORIGINALS: dict[str, Any] = {}
_PATCHED_CLASS: Any = None


def _stats_for(function: Any) -> _FnStats:
    stats = _STATS.get(id(function))
    if stats is None or stats.ref() is not function:
        stats = _new_stats(function)
    return stats


def _make_call(original: Callable) -> Callable:
    def __call__(self, *args, **kwds):
        before = len(self._function_cache)
        start = _clock()
        try:
            return original(self, *args, **kwds)
        finally:
            if _PROVING_THREAD is None or _PROVING_THREAD != threading.get_ident():
                stats = _STATS.get(id(self))
                if stats is None or stats.ref() is not self:
                    stats = _new_stats(self)
                stats.calls += 1
                if len(self._function_cache) != before:
                    _on_trace(self, stats, "call", before, _clock() - start, sys._getframe(1))
            elif len(self._function_cache) != before:
                _forget_trial_traces(self, before)

    __call__.__wrapped__ = original  # type: ignore[attr-defined]
    __call__.__doc__ = original.__doc__
    __call__._retrace_fix = True  # type: ignore[attr-defined]
    return __call__


def _forget_trial_traces(function: Any, before: int) -> None:
    """Take the entries a proof's trial added to ``function``'s cache out again.

    A trial traces a *fresh* tf.function around the recorded Python function, but
    another tf.function its body calls is traced inside the trial like inside any
    caller, and its cache gains a nested entry.  Left there, it would change that
    function's ``experimental_get_tracing_count()`` (and its dispatch) after the
    proofs; the outer trial graph keeps its own reference to the concrete function.
    """
    try:
        cache = function._function_cache
        primary = getattr(cache, "_primary", None)
        if primary is None:
            return
        for context, function_type in list(primary)[before:]:
            cache.delete(function_type, context)
    except Exception as exc:  # never break the user's program
        _report_error(exc)


def _make_gcf(original: Callable, name: str) -> Callable:
    def get_concrete_function(self, *args, **kwargs):
        before = len(self._function_cache)
        start = _clock()
        try:
            return original(self, *args, **kwargs)
        finally:
            if len(self._function_cache) != before and (
                _PROVING_THREAD is None or _PROVING_THREAD != threading.get_ident()
            ):
                _on_trace(self, _stats_for(self), "get_concrete_function", before, _clock() - start)

    get_concrete_function.__name__ = name
    get_concrete_function.__qualname__ = f"Function.{name}"
    get_concrete_function.__wrapped__ = original  # type: ignore[attr-defined]
    get_concrete_function.__doc__ = original.__doc__
    get_concrete_function._retrace_fix = True  # type: ignore[attr-defined]
    return get_concrete_function


_GCF_NAMES = ("get_concrete_function", "_get_concrete_function_garbage_collected")


def patch_function_class(function_class: Any) -> None:
    """Wrap ``__call__`` and the get_concrete_function methods of TF's Function class (idempotent)."""
    global _PATCHED_CLASS
    if _PATCHED_CLASS is function_class:
        return
    _ORIGINALS["__call__"] = function_class.__call__
    function_class.__call__ = _make_call(function_class.__call__)
    for name in _GCF_NAMES:
        original = function_class.__dict__.get(name)
        if original is not None:
            _ORIGINALS[name] = original
            setattr(function_class, name, _make_gcf(original, name))
    _PATCHED_CLASS = function_class


def unpatch_function_class() -> None:
    """Restore TF's methods where ours are still in place."""
    global _PATCHED_CLASS
    cls = _PATCHED_CLASS
    if cls is None:
        return
    for name, original in _ORIGINALS.items():
        if getattr(cls.__dict__.get(name), "_retrace_fix", False):
            setattr(cls, name, original)
    _ORIGINALS.clear()
    _PATCHED_CLASS = None


def _patch_module(module: types.ModuleType) -> None:
    function_class = getattr(module, "Function", None)
    if function_class is not None:
        patch_function_class(function_class)
        if _HOOK in sys.meta_path:
            sys.meta_path.remove(_HOOK)
        for callback in list(_ON_PATCH):
            callback()


_ON_PATCH: list[Callable[[], None]] = []


class _PatchingLoader(importlib.abc.Loader):
    """Delegates to the real loader and patches the module right after it executed."""

    def __init__(self, loader: Any):
        self._loader = loader

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        self._loader.exec_module(module)
        try:
            _patch_module(module)
        except Exception as exc:
            _report_error(exc)

    def __getattr__(self, name):
        return getattr(self._loader, name)


class _ImportHook(importlib.abc.MetaPathFinder):
    """A ``sys.meta_path`` finder that only reacts to TF's polymorphic_function module."""

    def find_spec(self, fullname, path, target=None):
        if fullname != TF_MODULE:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    spec.loader = _PatchingLoader(spec.loader)
                return spec
        return None


_HOOK = _ImportHook()


def ensure_patched() -> None:
    """Patch now if TF's module is imported, else arrange to patch when it is."""
    module = sys.modules.get(TF_MODULE)
    if module is not None and getattr(module, "Function", None) is not None:
        _patch_module(module)
        return
    if _HOOK not in sys.meta_path:
        sys.meta_path.insert(0, _HOOK)


def is_patched() -> bool:
    return _PATCHED_CLASS is not None


def activate(recorder: Recorder) -> Recorder:
    """Start ``recorder`` and make it receive traces (patching TF now or on import)."""
    recorder.start()
    _RECORDERS.append(recorder)
    ensure_patched()
    return recorder


def deactivate(recorder: Recorder) -> None:
    """Stop ``recorder``; when it was the last one, remove the hooks."""
    if recorder in _RECORDERS:
        _RECORDERS.remove(recorder)
    if not _RECORDERS:
        if _HOOK in sys.meta_path:
            sys.meta_path.remove(_HOOK)
        unpatch_function_class()


def _after_fork_in_child() -> None:
    """A forked child starts empty: the parent writes what the parent recorded.

    Locks are made anew first: another thread of the parent may have held one
    at the moment of the fork, and that thread does not exist in the child, so
    the copy would stay locked for ever.
    """
    global _STATS_LOCK
    _STATS_LOCK = threading.Lock()
    OBJECT_IDS._lock = threading.Lock()
    for recorder in _RECORDERS:
        recorder._lock = threading.Lock()
        recorder.start()
    if _PROCESS is not None:
        _PROCESS.after_fork()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


# ---------------------------------------------------------------------------
# the process-wide recorder of ``retrace-fix record`` (installed by sitecustomize)


class _ProcessRecorder:
    """Writes the recorder's traces to ``<shard dir>/<pid>.json`` at exit, SIGTERM included."""

    def __init__(self, shard_dir: str, project_root: str | None):
        self.shard_dir = shard_dir
        self.recorder = Recorder(project_root)
        self._previous_sigterm: Any = None
        self._token: str | None = None
        self._finalizer: Any = None  # multiprocessing.util.Finalize that writes at a child's exit
        #: proving or writing now: a SIGTERM that arrives meanwhile (multiprocessing terminates its
        #: pool workers while they write at exit) waits for it instead of re-entering the recorder,
        #: whose lock this thread may hold (that deadlocked)
        self._busy = False
        self._sigterm_waiting = False

    def install(self) -> None:
        atexit.register(self.write)
        _register_before_atexit(self._prove_at_exit)
        _ON_PATCH.append(self._on_patch)
        activate(self.recorder)

    def _prove_at_exit(self) -> None:
        """Prove while TensorFlow and Keras are intact: threading's exit hook runs before the
        ``atexit`` handlers, some of which (AutoGraph's temporary files, Keras's tree registry)
        would make a trial fail for reasons of their own.  ``write`` then does not prove again.

        While another (non-daemon) thread of the program still runs, the program has not
        finished: the proofs then wait for ``write``, after those threads were joined."""
        current = threading.current_thread()
        if any(t is not current and t.is_alive() and not t.daemon for t in threading.enumerate()):
            return
        with self._not_interrupted_by_sigterm():
            try:
                if is_patched():
                    self.recorder.prove()
            except KeyboardInterrupt:  # Ctrl-C while proving: keep what was proved, write, leave
                pass
            finally:
                self._proved_at_exit = True

    @contextlib.contextmanager
    def _not_interrupted_by_sigterm(self) -> Iterator[None]:
        """Run the block to its end; a SIGTERM that arrives meanwhile is acted on after it (see
        :meth:`_on_sigterm`).  Re-entered (a write from a handler), it changes nothing."""
        if self._busy:
            yield
            return
        self._busy = True
        try:
            yield
        finally:
            self._busy = False
            if self._sigterm_waiting:
                self._sigterm_waiting = False
                self._on_sigterm(signal.SIGTERM, None)

    def shard_path(self) -> str:
        """``traces-<pid>-<random>.json``: unique even when a later process reuses the pid."""
        if self._token is None:
            self._token = f"{os.getpid()}-{os.urandom(4).hex()}"
        return os.path.join(self.shard_dir, f"traces-{self._token}.json")

    def write(self) -> None:
        """:meth:`_write`, to its end even when SIGTERM arrives meanwhile."""
        with self._not_interrupted_by_sigterm():
            self._write()

    def _write(self) -> None:
        """Write this process's shard (once TensorFlow was imported and something traced).

        Ctrl-C cannot cut it short.  The shard directory is never created here:
        when ``retrace-fix record`` has already merged and removed it (a process
        that outlived the recording), there is nobody left to read the shard.
        """
        if not is_patched():
            return
        previous_sigint = None
        if threading.current_thread() is threading.main_thread():
            try:
                previous_sigint = signal.signal(signal.SIGINT, signal.SIG_IGN)
            except (ValueError, OSError):  # pragma: no cover
                previous_sigint = None
        try:
            prove = not getattr(self, "_proved_at_exit", False)
            trace_set = self.recorder.trace_set(prove=prove)
            if len(trace_set):
                save_trace_file(trace_set, self.shard_path(), make_parents=False)
        except FileNotFoundError:
            pass  # the recording is over (its shard directory is gone)
        except Exception as exc:
            print(f"retrace-fix: could not write traces: {exc}", file=sys.stderr)
        finally:
            if previous_sigint is not None:
                signal.signal(signal.SIGINT, previous_sigint)

    def _on_patch(self) -> None:
        """Once TF is in: take over SIGTERM (main thread only) so a terminated program still writes."""
        if self._previous_sigterm is not None or threading.current_thread() is not threading.main_thread():
            return
        try:
            self._previous_sigterm = signal.getsignal(signal.SIGTERM)
            signal.signal(signal.SIGTERM, self._on_sigterm)
        except (ValueError, OSError):  # pragma: no cover - embedded interpreters
            pass

    def _on_sigterm(self, signum, frame) -> None:
        if self._busy:  # proving or writing already: finish that first (_not_interrupted_by_sigterm)
            self._sigterm_waiting = True
            return
        self.write()
        previous = self._previous_sigterm
        if callable(previous):
            previous(signum, frame)
        elif previous == signal.SIG_IGN:
            return
        else:  # default: die by the signal, as without the recorder
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGTERM)

    def after_fork(self) -> None:
        """A forked child writes its own shard.

        Children of ``multiprocessing`` (``fork`` and ``forkserver`` start
        methods; ``spawn`` children are fresh interpreters with their own
        ``atexit``) end with ``os._exit``, which skips ``atexit``: they write
        from multiprocessing's exit finalizers instead.  But
        ``BaseProcess._bootstrap`` clears the finalizer registry
        (``util._finalizer_registry.clear()``) after the fork, before the
        child's work, and only then runs ``util._run_after_forkers()``; so the
        finalizer is registered now (for forks that never bootstrap) *and*
        again from an after-forker (``util.register_after_fork``), which is
        what survives in pool workers and forkserver children.
        """
        self._token = None
        self._finalizer = None
        util = sys.modules.get("multiprocessing.util")
        if util is not None:
            try:
                self.ensure_exit_writer()
                util.register_after_fork(self, _ProcessRecorder.ensure_exit_writer)
            except Exception as exc:  # pragma: no cover - a multiprocessing without these
                _report_error(exc)

    def ensure_exit_writer(self) -> None:
        """Register ``write`` with multiprocessing's exit finalizers (once per registry)."""
        util = sys.modules.get("multiprocessing.util")
        if util is None:
            return
        if self._finalizer is not None and self._finalizer.still_active():
            return
        # exitpriority below 0: after multiprocessing has joined this process's own children
        self._finalizer = util.Finalize(None, self.write, exitpriority=-100)


def _register_before_atexit(callback: Callable[[], None]) -> None:
    """Run ``callback`` when the interpreter shuts down, before the ``atexit`` handlers
    (``threading``'s exit hook; plain ``atexit`` where this Python has none)."""
    register = getattr(threading, "_register_atexit", None)
    try:
        if register is not None:
            register(callback)
            return
    except RuntimeError:  # pragma: no cover - already shutting down
        return
    atexit.register(callback)  # pragma: no cover - Python < 3.9


_PROCESS: _ProcessRecorder | None = None


def install_process_recorder() -> bool:
    """Install the shard-writing recorder when ``$RETRACE_FIX_SHARD_DIR`` is set; True if installed."""
    global _PROCESS
    shard_dir = os.environ.get(ENV_SHARD_DIR)
    if not shard_dir or _PROCESS is not None:
        return False
    _PROCESS = _ProcessRecorder(shard_dir, os.environ.get(ENV_PROJECT_ROOT) or None)
    _PROCESS.install()
    return True
