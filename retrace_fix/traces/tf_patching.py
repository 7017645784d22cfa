"""The recorder's hooks in TensorFlow's tf.function class, and what they do when a call traced.

``Function.__call__``, ``get_concrete_function`` and
``_get_concrete_function_garbage_collected`` of TensorFlow's one tf.function
class are wrapped at class level (:func:`patch_function_class`), so every
tf.function of the process is seen, including ones created before the
recorder was installed.  The per-call work is a calls counter
(:mod:`retrace_fix.traces.function_stats`) and ``len(function_cache)`` before
and after; only when the length changed does :func:`_on_trace` read the new
cache entries, encode their types (:mod:`retrace_fix.traces.trace_encoding`)
and hand each :class:`~retrace_fix.traces.model.Trace` to every active
recorder (:data:`RECORDERS`).

This module does not import TensorFlow: :func:`ensure_patched` patches at once
when TensorFlow's module is already imported, and otherwise installs an import
hook (:mod:`retrace_fix.traces.import_hook`) that patches right after it is.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import time
import types
from typing import Any, Callable, Iterator

from retrace_fix.traces.frames import callers
from retrace_fix.traces.function_stats import (STATS, FunctionStats, bound_instance, new_stats, unwrap_callable,
                                                  variable_owner_captures)
from retrace_fix.traces.import_hook import ModuleHook
from retrace_fix.traces.model import Trace
from retrace_fix.traces.trace_encoding import describe_object, encode_trace_type

TF_MODULE = "tensorflow.python.eager.polymorphic_function.polymorphic_function"

_clock = time.perf_counter

_ORIGINALS: dict[str, Any] = {}
_PATCHED_CLASS: Any = None
_ERROR_REPORTED = False
#: the thread running proofs: the hooks ignore its calls and traces (None: no proof running)
_PROVING_THREAD: int | None = None
#: the active recorders (:class:`~retrace_fix.traces.recorder.Recorder`): each gets every trace
RECORDERS: list[Any] = []


@contextlib.contextmanager
def hooks_ignore_this_thread() -> Iterator[None]:
    """While the block runs (the proofs), the hooks ignore this thread's calls and traces, and take
    out again the entries its trials add to the caches of the tf.functions they call."""
    global _PROVING_THREAD
    previous = _PROVING_THREAD
    _PROVING_THREAD = threading.get_ident()
    try:
        yield
    finally:
        _PROVING_THREAD = previous


def report_error(exc: BaseException) -> None:
    """Say once per process that the recorder failed (never raise into the program)."""
    global _ERROR_REPORTED
    if not _ERROR_REPORTED:
        _ERROR_REPORTED = True
        print(f"retrace-fix: recorder error (traces may be incomplete): {exc!r}", file=sys.stderr)


def _on_trace(
    function: Any, stats: FunctionStats, via: str, before: int, seconds: float | None = None, caller: Any = None
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
        if not RECORDERS or stats.origin is None:
            return
        if stats.live is None and stats.wraps is None:  # a wrapped callable gets no proofs: no fix edits it
            from retrace_fix.traces.prover import live_function

            stats.live = live_function(function)
        if stats.captures is None:
            stats.captures = variable_owner_captures(function)
        cache = function._function_cache
        primary = getattr(cache, "_primary", None)
        entries = list(primary.items()) if primary is not None else [((None, cf.function_type), cf) for cf in cache.values()]
        entries = entries[before:]
        instance = _instance(function, stats) if stats.is_method else None
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
        frames = callers(caller) if caller is not None and not inside else None
        for recorder in list(RECORDERS):
            for trace in new.values():
                recorder.add_trace(stats, trace, reduce_retracing, has_signature, frames)
                frames = None  # one call, one call site (even when it made several traces)
    except Exception as exc:  # never break the user's program
        report_error(exc)


def _instance(function: Any, stats: FunctionStats) -> Any:
    """The object a method's ``self`` is: the bound method's instance, or the callable object a
    wrapped tf.function calls (looked up at each trace: the statistics hold no object of the program)."""
    if stats.wraps is not None:
        unwrapped = unwrap_callable(function._python_function)
        return unwrapped.instance if unwrapped is not None else None
    return bound_instance(function._python_function)


def _scope_name(context: Any) -> str | None:
    """The ``ScopeType`` of a function-cache key's context (``VARIABLE_CREATION`` for the first
    trace of a Function, ``NO_VARIABLE_CREATION`` once its first call created variables)."""
    scope = getattr(context, "scope_type", None)
    return getattr(scope, "name", None) if scope is not None else None


def _inside_function() -> bool:
    ops = sys.modules.get("tensorflow.python.framework.ops")
    try:
        return bool(ops.inside_function()) if ops is not None else False
    except Exception:
        return False


def _make_hook(original: Callable, name: str) -> Callable:
    """``name`` of TF's Function class wrapped: ``__call__`` counts the call and notes its caller's frame
    (the call site); ``get_concrete_function`` and its variant only record the traces they make."""
    via = "call" if name == "__call__" else "get_concrete_function"
    counts_calls = name == "__call__"

    def hook(self, *args, **kwds):
        before = len(self._function_cache)
        start = _clock()
        try:
            return original(self, *args, **kwds)
        finally:
            if _PROVING_THREAD is None or _PROVING_THREAD != threading.get_ident():
                stats = STATS.get(id(self))
                if stats is None or stats.ref() is not self:
                    stats = new_stats(self)
                if counts_calls:
                    stats.calls += 1
                if len(self._function_cache) != before:
                    _on_trace(self, stats, via, before, _clock() - start, sys._getframe(1) if counts_calls else None)
            elif counts_calls and len(self._function_cache) != before:
                _forget_trial_traces(self, before)

    hook.__name__ = name
    hook.__qualname__ = f"Function.{name}"
    hook.__wrapped__ = original  # type: ignore[attr-defined]
    hook.__doc__ = original.__doc__
    hook._retrace_fix = True  # type: ignore[attr-defined]
    return hook


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
        report_error(exc)


_HOOKED_NAMES = ("__call__", "get_concrete_function", "_get_concrete_function_garbage_collected")


def patch_function_class(function_class: Any) -> None:
    """Wrap ``__call__`` and the get_concrete_function methods of TF's Function class (idempotent)."""
    global _PATCHED_CLASS
    if _PATCHED_CLASS is function_class:
        return
    for name in _HOOKED_NAMES:
        original = function_class.__call__ if name == "__call__" else function_class.__dict__.get(name)
        if original is not None:
            _ORIGINALS[name] = original
            setattr(function_class, name, _make_hook(original, name))
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
        _HOOK.remove()
        for callback in list(ON_PATCH):
            callback()


#: called once TF's Function class is patched (the process recorder then takes over SIGTERM)
ON_PATCH: list[Callable[[], None]] = []


def _execute_then_patch(module: types.ModuleType, execute: Callable[[Any], None]) -> None:
    """Run TF's module, then patch its Function class (a failure to patch never fails the import)."""
    execute(module)
    try:
        _patch_module(module)
    except Exception as exc:
        report_error(exc)


#: reacts only to TF's polymorphic_function module; stays until TF is patched
_HOOK = ModuleHook([TF_MODULE], _execute_then_patch)


def ensure_patched() -> None:
    """Patch now if TF's module is imported, else arrange to patch when it is."""
    module = sys.modules.get(TF_MODULE)
    if module is not None and getattr(module, "Function", None) is not None:
        _patch_module(module)
        return
    _HOOK.install()


def unpatch() -> None:
    """Remove the import hook and restore TF's methods (the last recorder stopped)."""
    _HOOK.remove()
    unpatch_function_class()


def is_patched() -> bool:
    return _PATCHED_CLASS is not None
