"""Per-Function statistics of the recorder: calls, origin, parameters, and the dead ones' calls.

One :class:`FunctionStats` per tf.function object the patched methods saw
(:mod:`retrace_fix.traces.tf_patching`), found by the object's id and checked
by a weak reference: the recorder never holds a Function.  When a Function
dies its calls are folded into its origin's total (:func:`calls_by_origin`),
so a function recreated per step is still counted.

A tf.function of a ``functools.partial`` or of a callable object has no code
object of its own: :func:`unwrap_callable` finds the code TensorFlow traces
(the partial's function, ``type(obj).__call__``), how it was wrapped and which
parameters the wrapper binds, so that its traces are recorded at that code's
position as a record of their own (``wraps``).  Pure standard library.
"""

from __future__ import annotations

import functools
import inspect
import os
import threading
import types
import weakref
from typing import Any, NamedTuple

def code_params(code: types.CodeType) -> list[str]:
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


def _method_owner(method: types.MethodType) -> Any:
    """The instance of a bound method (a per-instance tf.function's ``TfMethodTarget`` looked through)."""
    owner = method.__self__
    if type(owner).__name__ == "TfMethodTarget":
        owner = getattr(owner, "target", None)
    return owner


def bound_instance(python_function: Any) -> Any:
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
            return _method_owner(candidate)
        candidate = getattr(candidate, "__original_wrapped__", None) or getattr(candidate, "__wrapped__", None)
    return None


#: how many wrappers (partials, methods, ``__wrapped__`` links, callable objects) unwrapping follows
MAX_UNWRAP = 32
WRAPS_PARTIAL = "functools.partial"
WRAPS_PARTIALMETHOD = "functools.partialmethod"
WRAPS_CALLABLE_OBJECT = "callable object"


class Unwrapped(NamedTuple):
    """What :func:`unwrap_callable` found under a tf.function's Python callable."""

    code: types.CodeType  # the code TensorFlow traces
    wraps: str  # the outermost wrapper: WRAPS_PARTIAL, WRAPS_PARTIALMETHOD or WRAPS_CALLABLE_OBJECT
    bound: list  # parameters of ``code`` the call does not pass: bound by a partial, or the object's ``self``
    instance: Any  # the object a callable object's or a bound method's ``self`` is, or None


def _partialmethod_of(target: Any) -> functools.partialmethod | None:
    """The ``partialmethod`` a function made by one (its class attribute read from the class) stands for
    (``_partialmethod`` up to Python 3.12, ``__partialmethod__`` since 3.13)."""
    if not isinstance(target, types.FunctionType):
        return None
    for name in ("__partialmethod__", "_partialmethod"):
        found = getattr(target, name, None)
        if isinstance(found, functools.partialmethod):
            return found
    return None


def unwrap_callable(python_function: Any) -> Unwrapped | None:
    """The code a tf.function of a ``functools.partial`` (nested too), a ``partialmethod`` or a
    callable object traces, or None (a plain function or method, or nothing with a code object).

    Follows partials (``.func``), ``partialmethod`` functions (:func:`_partialmethod_of`), bound
    methods (``__func__``), ``__wrapped__`` links as TensorFlow's ``_key_for_call_stats`` does, and
    a callable object's ``type(obj).__call__``, down to a Python function.  ``bound`` lists the
    parameters that the call does not pass: those missing from the callable's signature (a
    partial's positional arguments, a method's or callable object's ``self``) and the partial's
    keywords (TensorFlow traces them as keyword arguments with their bound values).  Never raises.
    """
    try:
        return _unwrap(python_function)
    except Exception:  # an object whose attributes raise: not recorded, never an error in the program
        return None


def _unwrap(python_function: Any) -> Unwrapped | None:
    target = python_function
    wraps: str | None = None
    keywords: list[str] = []
    instance = None
    for _ in range(MAX_UNWRAP):
        if isinstance(target, functools.partial):
            wraps = wraps or WRAPS_PARTIAL
            keywords += [k for k in target.keywords if k not in keywords]
            target = target.func
            continue
        partialmethod = _partialmethod_of(target)
        if partialmethod is not None:
            wraps = wraps or WRAPS_PARTIALMETHOD
            keywords += [k for k in partialmethod.keywords if k not in keywords]
            target = partialmethod.func
            continue
        if isinstance(target, types.MethodType):
            instance = _method_owner(target) if instance is None else instance
            target = target.__func__
            continue
        wrapped = getattr(target, "__wrapped__", None)
        if wrapped is not None:
            target = wrapped
            continue
        if isinstance(target, types.FunctionType):
            break
        if isinstance(target, type) or not callable(target):
            return None  # a class (calling it constructs), or nothing TensorFlow could call
        call = getattr(type(target), "__call__", None)
        if call is None or isinstance(call, (types.WrapperDescriptorType, types.MethodWrapperType)):
            return None  # a builtin's call slot: no Python code
        wraps = wraps or WRAPS_CALLABLE_OBJECT
        instance = target if instance is None else instance
        target = call
    else:
        return None
    if wraps is None:
        return None
    code = target.__code__
    params = code_params(code)
    try:
        passed = set(inspect.signature(python_function).parameters)
    except (TypeError, ValueError):
        passed = set(params)
    bound = [p for p in params if p not in passed or p in keywords]
    bound += [k for k in keywords if k not in bound and k.isidentifier()]
    return Unwrapped(code, wraps, bound, instance)


class FunctionStats:
    """Per-Function bookkeeping; created on the first call/trace the recorder sees."""

    __slots__ = ("ref", "calls", "origin", "params", "name", "is_method", "seen", "function_id", "live",
                 "wraps", "bound", "captures")

    def __init__(self, function: Any):
        self.calls = 0
        self.seen: set[int] = set()  # ids of the concrete functions already recorded (see tf_patching._on_trace)
        #: (file, qualname, first line) of the traced code, with ``wraps`` last for a wrapped callable
        #: (a record of its own: the partial of ``f`` is not ``f``); None: no code object
        self.origin: tuple | None = None
        self.params: list[str] = []
        self.name = ""
        #: how the traced code was wrapped (:func:`unwrap_callable`), None for a function or method
        self.wraps: str | None = None
        self.bound: list[str] = []  # the parameters the wrapper binds (the call does not pass them)
        python_function = getattr(function, "_python_function", None)
        unwrapped = None
        code = None
        if _partialmethod_of(python_function) is None:  # else its code is functools' own ``_method``
            code = getattr(function, "_key_for_call_stats", None)
            if not isinstance(code, types.CodeType):
                code = getattr(getattr(function, "python_function", None), "__code__", None)
        if not isinstance(code, types.CodeType):
            unwrapped = unwrap_callable(python_function)
            code = unwrapped.code if unwrapped is not None else None
        if isinstance(code, types.CodeType):
            qualname = getattr(code, "co_qualname", code.co_name)
            self.origin = (code.co_filename, qualname, code.co_firstlineno)
            self.params = code_params(code)
            self.name = code.co_name
        if unwrapped is not None:
            self.wraps = unwrapped.wraps
            self.bound = list(unwrapped.bound)
            self.origin = (*self.origin, unwrapped.wraps)
            # the object is ``self`` of the traced code, as a method's instance is: recorded as an argument
            self.is_method = unwrapped.instance is not None and bool(self.params) and self.params[0] in self.bound
        else:
            self.is_method = bound_instance(python_function) is not None
        self.function_id = id(function)
        self.ref = weakref.ref(function, _DEAD_REFS.append)
        self.live: Any = None  # prover.LiveFunction, made on the first trace
        #: the variable-owning objects its Python function closes over, read on the first trace
        #: (:func:`variable_owner_captures`); None until then
        self.captures: tuple | None = None


#: classes (of TensorFlow or Keras, by name anywhere in an object's MRO) whose instances own variables: a
#: tf.function closing over a new one of them needs its own trace (its variables are captured by the graph)
_VARIABLE_OWNERS = frozenset({"Module", "Layer", "Variable", "BaseOptimizer", "OptimizerV2", "Optimizer"})


def owns_variables(value: Any) -> bool:
    """A Keras model or layer, a ``tf.Module``, an optimizer or a variable (by class name and package)."""
    try:
        mro = type(value).__mro__
    except AttributeError:  # pragma: no cover - every type has one
        return False
    for klass in mro:
        root = (getattr(klass, "__module__", "") or "").split(".", 1)[0]
        if root in ("tensorflow", "keras", "tf_keras") and klass.__name__ in _VARIABLE_OWNERS:
            return True
    return False


def variable_owner_captures(function: Any) -> tuple[tuple[str, weakref.ref], ...]:
    """``(name, weak reference)`` for each variable-owning object the Python function of a
    tf.function ``function`` closes over: its closure cells by free-variable name, and the
    instance of a bound method (as ``self``).  Holds nothing strongly."""
    python = getattr(function, "_python_function", None)
    found: list[tuple[str, weakref.ref]] = []

    def add(name: str, value: Any) -> None:
        if owns_variables(value):
            try:
                found.append((name, weakref.ref(value)))
            except TypeError:  # not weakly referenceable: left out
                pass

    for _ in range(8):
        if python is None:
            break
        if isinstance(python, types.MethodType):
            add("self", python.__self__)
            python = python.__func__
            continue
        code, closure = getattr(python, "__code__", None), getattr(python, "__closure__", None)
        if isinstance(code, types.CodeType) and closure:
            for name, cell in zip(code.co_freevars, closure):
                try:
                    add(name, cell.cell_contents)
                except ValueError:  # an empty cell
                    continue
        python = getattr(python, "__wrapped__", None)
    return tuple(found)


def fresh_capture(previous: tuple, current: tuple) -> bool:
    """Does ``current`` (a new function object's :func:`variable_owner_captures`) close over another
    object than ``previous`` did under the same name (the old one gone, or not the same)?"""
    before = dict(previous)
    for name, ref in current:
        old = before.get(name)
        if old is None:
            continue
        value = ref()
        if value is not None and old() is not value:
            return True
    return False


# id(Function) -> stats of the live Function with that id (checked with stats.ref)
STATS: dict[int, FunctionStats] = {}
# id(stats.ref) -> stats, for every Function not yet known to be dead
_LIVE: dict[int, FunctionStats] = {}
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
        if STATS.get(stats.function_id) is stats:
            del STATS[stats.function_id]
        if stats.origin is not None and stats.calls:
            _DEAD_CALLS[stats.origin] = _DEAD_CALLS.get(stats.origin, 0) + stats.calls


def new_stats(function: Any) -> FunctionStats:
    """Start the statistics of ``function`` (a Function not seen before, or a new one with a dead one's id)."""
    stats = FunctionStats(function)
    with _STATS_LOCK:
        _collect_dead()
        STATS[id(function)] = stats
        _LIVE[id(stats.ref)] = stats
    return stats


def calls_by_origin() -> dict[tuple, int]:
    """Calls seen so far, per raw origin (dead Functions included)."""
    with _STATS_LOCK:
        _collect_dead()
        totals = dict(_DEAD_CALLS)
        for stats in list(_LIVE.values()):
            if stats.origin is not None:
                totals[stats.origin] = totals.get(stats.origin, 0) + stats.calls
    return totals


def _after_fork_in_child() -> None:
    """A new lock in a forked child: another thread of the parent may have held it at the fork,
    and that thread does not exist in the child, so the copy would stay locked for ever."""
    global _STATS_LOCK
    _STATS_LOCK = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
