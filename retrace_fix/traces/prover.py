"""Proofs: trial-trace each candidate fix on the live function at the end of a recording.

The recorder holds nothing of the program strongly (see :class:`LiveFunction`):
a proof uses the function, the instance and the object arguments that are still
alive when it runs; for one that died it is ``not_run`` with the reason.

At the end of the recorded program (the exit hook of ``retrace-fix record``'s
children, the end of ``record_traces`` and of the pytest plugin's session) the
recorder calls :func:`prove_function` for every function that traced more
than once.  It builds the candidates the fixer would propose
(:func:`retrace_fix.traces.signature_candidates.search_candidates`, the same code the
fixer runs) and answers each with a *trial trace*: a **fresh**
``tf.function`` around the same Python function (a method bound to the
instance the recorder last saw) with the function's own options, asked for
``get_concrete_function(...)`` with the candidate's specs.  The body is traced,
never executed; the recorded ``tf.function`` objects, their caches and the
program's variables are not touched (creating a variable fails the trial).  One
exception: another tf.function the body calls is traced inside the trial like
inside any caller, so its cache gains a nested entry -- at the end of the
program, where nothing runs any more.  Exceptions
are caught, TensorFlow's logging, warnings and the body's prints are silenced,
and the time is bounded: ``$RETRACE_FIX_PROOF_SECONDS`` per process (default
60, ``0`` turns proofs off) and ``$RETRACE_FIX_PROOF_FUNCTION_SECONDS`` per
function (default 15).  What could not be tried is stored as ``not_run`` with
the reason.

A candidate with ``constants`` (RTF005's body edit ``tf.constant(i)`` ->
``tf.convert_to_tensor(i)``) is traced with ``tf.constant`` patched, for the
trial only, to convert exactly the tensors those parameters receive (compared
by identity; any other tensor raises as before): the body traced is the
rewritten one.

A proof shows that the body *traces* with the candidate; it does not show that
the results are the same (``str(n)`` traces fine with a tensor).  The fixer
keeps its static checks for that.

This module imports TensorFlow only inside the trial (TensorFlow is already
imported when there is anything to prove).
"""

from __future__ import annotations

import collections
import contextlib
import functools
import inspect
import io
import logging
import math
import os
import sys
import time
import types
import warnings
import weakref
from dataclasses import dataclass, field
from typing import Any, Callable

from retrace_fix.traces.signature_candidates import (
    FIX_RELAX,
    FIX_SIGNATURE,
    Candidate,
    error_line,
    search_candidates,
)
from retrace_fix.traces.summaries import NO_LITERAL, ContainerSpec, ParamInfo, TensorSpecInfo
from retrace_fix.traces.model import FunctionTraces, Proof

ENV_PROOF_SECONDS = "RETRACE_FIX_PROOF_SECONDS"
ENV_PROOF_FUNCTION_SECONDS = "RETRACE_FIX_PROOF_FUNCTION_SECONDS"
DEFAULT_TOTAL_SECONDS = 60.0
DEFAULT_FUNCTION_SECONDS = 15.0

#: tf.function options carried over to the fresh function of a trial
_OPTION_ATTRIBUTES = {
    "autograph": "_autograph",
    "jit_compile": "_jit_compile",
    "experimental_autograph_options": "_experimental_autograph_options",
    "experimental_attributes": "_attributes",
}


class _Unavailable(Exception):
    """A trial argument cannot be rebuilt (a dead object, a tf.Variable, an unknown type)."""


# ---------------------------------------------------------------------------
# what the recorder keeps of a live tf.function


def _weak(obj: Any) -> Any:
    """A weak reference to ``obj``, or a callable returning None when it cannot have one."""
    try:
        return weakref.ref(obj)
    except TypeError:
        return _NOTHING


def _NOTHING() -> None:
    return None


def _function_holder(function: Callable) -> Callable[[], Any]:
    """How a :class:`LiveFunction` holds the Python function: strongly when holding it keeps
    nothing of the program alive but the function object itself (no closure, literal defaults:
    a ``def`` nested in a function that runs per call, whose tf.function is gone by the end),
    else weakly (a closure's cells, a default object, would live longer)."""
    closure = getattr(function, "__closure__", None)
    defaults = list(getattr(function, "__defaults__", None) or ()) + list(
        (getattr(function, "__kwdefaults__", None) or {}).values()
    )
    module = sys.modules.get(getattr(function, "__module__", None) or "")
    if (
        isinstance(function, types.FunctionType)
        and not closure
        and all(value is None or type(value) in (bool, int, float, str) for value in defaults)
        and getattr(module, "__dict__", None) is function.__globals__  # globals that live on anyway
    ):
        return lambda: function
    return _weak(function)


@dataclass
class LiveFunction:
    """Enough to re-trace a recorded tf.function later: its Python function, the instance of a
    method and the tf.function options.  The instance and any function that would keep an object
    of the program alive (a closure, a default object) are held *weakly*:
    recording must not change an object's lifetime (a bound method or a model kept alive is
    equal to the next one in TensorFlow's cache key, and a ``__del__`` or a weakref-keyed cache of
    the program would run differently), so a proof needs them alive at the end of the program.
    ``function_ref`` and ``instance_ref`` are callables (weak references) returning the object or None."""

    function_ref: Callable[[], Any]
    params: list  # [ParamInfo], ``self`` included
    options: dict = field(default_factory=dict)
    instance_ref: Any = None  # weakref.ref of the instance of a method
    instance_type: str | None = None

    @property
    def is_method(self) -> bool:
        return self.instance_type is not None

    @property
    def python_function(self) -> Callable | None:
        """The plain Python function, None when it was no longer alive."""
        return self.function_ref()

    def bound(self) -> Callable | None:
        """The callable to wrap: the function, or the method bound to its instance (None if it died)."""
        function = self.function_ref()
        if function is None or not self.is_method:
            return function
        instance = self.instance_ref() if self.instance_ref is not None else None
        if instance is None:
            return None
        return function.__get__(instance)

    def missing(self) -> str:
        """Why :meth:`bound` is None."""
        if self.function_ref() is None:
            return "the Python function was no longer alive at the end of the program"
        return f"the {self.instance_type} instance was no longer alive at the end of the program"


def _raw_and_instance(python_function: Any) -> tuple[Callable | None, Any]:
    """(the plain Python function, the instance it is a method of or None)."""
    candidate = python_function
    for _ in range(16):
        if candidate is None:
            return None, None
        if isinstance(candidate, types.MethodType):
            owner = candidate.__self__
            if type(owner).__name__ == "TfMethodTarget":
                owner = getattr(owner, "target", None)
            return candidate.__func__, owner
        if isinstance(candidate, types.FunctionType) and getattr(candidate, "__original_wrapped__", None) is None:
            return candidate, None
        candidate = getattr(candidate, "__original_wrapped__", None) or getattr(candidate, "__wrapped__", None)
    return None, None


def literal(value: Any) -> Any:
    """``value`` when it is a literal a source default could spell the same way, else NO_LITERAL."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, float) and math.isfinite(value):
        return value
    return NO_LITERAL


def param_infos_of(function: Callable) -> list[ParamInfo]:
    """The parameters of a live Python function, as the fixer reads them from its source."""
    try:
        signature = inspect.signature(function, follow_wrapped=False)
    except (TypeError, ValueError):
        return []
    kinds = {
        inspect.Parameter.POSITIONAL_ONLY: "positional",
        inspect.Parameter.POSITIONAL_OR_KEYWORD: "positional",
        inspect.Parameter.VAR_POSITIONAL: "var_positional",
        inspect.Parameter.KEYWORD_ONLY: "keyword_only",
        inspect.Parameter.VAR_KEYWORD: "var_keyword",
    }
    infos = []
    for parameter in signature.parameters.values():
        kind = kinds[parameter.kind]
        has_default = parameter.default is not inspect.Parameter.empty
        default = literal(parameter.default) if has_default else NO_LITERAL
        if kind in ("var_positional", "var_keyword"):
            infos.append(ParamInfo(parameter.name, kind))
        else:
            infos.append(ParamInfo(parameter.name, kind, has_default, default))
    return infos


def live_function(function: Any) -> LiveFunction | None:
    """The :class:`LiveFunction` of a TensorFlow ``Function`` object (no TensorFlow import)."""
    raw, instance = _raw_and_instance(getattr(function, "_python_function", None))
    if raw is None:
        return None
    options = {}
    for option, attribute in _OPTION_ATTRIBUTES.items():
        value = getattr(function, attribute, None)
        if value is not None and value != {}:
            options[option] = value
    return LiveFunction(
        function_ref=_function_holder(raw),
        params=param_infos_of(raw),
        options=options,
        instance_ref=_weak(instance) if instance is not None else None,
        instance_type=type(instance).__qualname__ if instance is not None else None,
    )


# ---------------------------------------------------------------------------
# time


@dataclass
class Budget:
    """Seconds left for proofs in this process (``total``) and per function."""

    total: float = DEFAULT_TOTAL_SECONDS
    per_function: float = DEFAULT_FUNCTION_SECONDS
    used: float = 0.0

    @classmethod
    def from_environment(cls) -> "Budget":
        return cls(
            total=_seconds(os.environ.get(ENV_PROOF_SECONDS), DEFAULT_TOTAL_SECONDS),
            per_function=_seconds(os.environ.get(ENV_PROOF_FUNCTION_SECONDS), DEFAULT_FUNCTION_SECONDS),
        )

    @property
    def enabled(self) -> bool:
        return self.total > 0 and self.per_function > 0


def _seconds(text: str | None, default: float) -> float:
    if text is None or not text.strip():
        return default
    try:
        value = float(text)
    except ValueError:
        return default
    return value if math.isfinite(value) and value >= 0 else default


# ---------------------------------------------------------------------------
# building trial arguments


def _shape(shape: list | None) -> Any:
    return None if shape is None else list(shape)


def spec_of(spec: Any, tf: Any) -> Any:
    """A TensorFlow spec (or nest of specs) from a :mod:`generalize` spec."""
    if isinstance(spec, TensorSpecInfo):
        shape = None if spec.shape is None else list(spec.shape)
        dtype = tf.as_dtype(spec.dtype)
        if spec.kind == "ragged":
            return tf.RaggedTensorSpec(shape, dtype, spec.ragged_rank, tf.as_dtype(spec.row_splits_dtype or "int64"))
        if spec.kind == "sparse":
            return tf.SparseTensorSpec(shape, dtype)
        return tf.TensorSpec(shape, dtype)
    assert isinstance(spec, ContainerSpec)
    if spec.kind == "list":
        return [spec_of(s, tf) for s in spec.items]
    if spec.kind == "tuple":
        return tuple(spec_of(s, tf) for s in spec.items)
    if spec.kind == "dict":
        return {key: spec_of(s, tf) for key, s in spec.items}
    cls = collections.namedtuple(spec.type_name or "Record", [key for key, _ in spec.items])
    return cls(*(spec_of(s, tf) for _, s in spec.items))


def argument_of(desc: dict, tf: Any, lookup: Callable[[int], Any]) -> Any:
    """The value a trial passes for one recorded value descriptor."""
    kind = desc.get("kind")
    if kind == "tensor":
        return tf.TensorSpec(_shape(desc.get("shape")), tf.as_dtype(desc["dtype"]))
    if kind == "ragged":
        return tf.RaggedTensorSpec(
            _shape(desc.get("shape")), tf.as_dtype(desc["dtype"]), desc.get("ragged_rank"),
            tf.as_dtype(desc.get("row_splits_dtype") or "int64"),
        )
    if kind == "sparse":
        return tf.SparseTensorSpec(_shape(desc.get("shape")), tf.as_dtype(desc["dtype"]))
    if kind == "python":
        value, type_name = desc.get("value"), desc.get("type")
        if type_name == "float" and isinstance(value, str):
            return float(value)
        if type_name in ("int", "float", "bool", "str", "NoneType"):
            return value
        raise _Unavailable(f"a Python {type_name} argument cannot be rebuilt")
    if kind == "object":
        obj = lookup(int(desc.get("id", 0)))
        if obj is None:
            raise _Unavailable(f"an argument ({desc.get('type')}) was no longer alive at the end of the program")
        return obj
    if kind == "list":
        return [argument_of(d, tf, lookup) for d in desc.get("items", [])]
    if kind == "tuple":
        return tuple(argument_of(d, tf, lookup) for d in desc.get("items", []))
    if kind == "dict":
        return {key: argument_of(d, tf, lookup) for key, d in desc.get("items", {}).items()}
    if kind == "namedtuple":
        items = desc.get("items", {})
        cls = collections.namedtuple(desc.get("type") or "Record", list(items))
        return cls(*(argument_of(d, tf, lookup) for d in items.values()))
    if kind == "per_replica":
        from tensorflow.python.distribute import values as distribute_values

        return distribute_values.PerReplicaSpec(*(argument_of(d, tf, lookup) for d in desc.get("items", [])))
    if kind == "variable":
        raise _Unavailable("a tf.Variable argument cannot be rebuilt for a proof")
    raise _Unavailable(f"an argument of type {desc.get('type', kind)} cannot be rebuilt for a proof")


def call_arguments(function: Callable, trial: dict, tf: Any, lookup: Callable[[int], Any]) -> tuple[list, dict]:
    """(positional, keyword) arguments of ``function`` for one trial (parameter names as TensorFlow
    records them: ``args_0``... for ``*args``, each keyword of ``**kwargs`` by name)."""
    remaining = dict(trial)
    positional: list = []
    keywords: dict = {}
    try:
        parameters = list(inspect.signature(function, follow_wrapped=False).parameters.values())
    except (TypeError, ValueError):
        parameters = []
    by_keyword = False
    for parameter in parameters:
        if parameter.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD):
            if parameter.name not in remaining:
                by_keyword = True
                continue
            value = argument_of(remaining.pop(parameter.name), tf, lookup)
            if by_keyword and parameter.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD:
                keywords[parameter.name] = value
            else:
                positional.append(value)
        elif parameter.kind is inspect.Parameter.VAR_POSITIONAL:
            index = 0
            while f"{parameter.name}_{index}" in remaining:
                positional.append(argument_of(remaining.pop(f"{parameter.name}_{index}"), tf, lookup))
                index += 1
        elif parameter.kind is inspect.Parameter.KEYWORD_ONLY and parameter.name in remaining:
            keywords[parameter.name] = argument_of(remaining.pop(parameter.name), tf, lookup)
    for name, desc in remaining.items():  # **kwargs
        keywords[name] = argument_of(desc, tf, lookup)
    return positional, keywords


# ---------------------------------------------------------------------------
# one trial


@contextlib.contextmanager
def _quiet(tf: Any):
    """TensorFlow's logging, Python warnings and the body's prints silenced; creating a variable fails."""
    logger = logging.getLogger("tensorflow")
    level = logger.level
    logger.setLevel(logging.CRITICAL)

    def refuse(next_creator, **kwargs):
        raise RuntimeError("the trial would create a tf.Variable (proofs never create variables)")

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                with tf.variable_creator_scope(refuse):
                    yield
    finally:
        logger.setLevel(level)


def trial_trace(live: LiveFunction, candidate: Candidate, lookup: Callable[[int], Any]) -> Proof:
    """Trace ``candidate`` on a fresh tf.function around ``live``'s Python function."""
    import tensorflow as tf

    function = live.bound()
    if function is None:
        return Proof(candidate.fix, "not_run", note=live.missing())
    try:
        if candidate.fix == FIX_SIGNATURE:
            calls = [([], {})]
            signature = [spec_of(spec, tf) for _, spec in candidate.signature]
        else:
            calls = [call_arguments(function, trial, tf, lookup) for trial in candidate.trials]
            signature = None
    except _Unavailable as exc:
        return Proof(candidate.fix, "not_run", note=str(exc))
    except Exception as exc:  # a descriptor TensorFlow rejects: nothing to prove with
        return Proof(candidate.fix, "not_run", note=f"arguments cannot be rebuilt: {error_line(exc)}")
    options = dict(live.options)
    if candidate.constants:
        function = _constants_as_conversions(tf, function, candidate.constants)
    try:
        with _quiet(tf), _patched_constant(tf, candidate.constants):
            for args, kwargs in calls:
                fresh = _fresh_function(tf, function, signature, candidate.relax or candidate.fix == FIX_RELAX, options)
                fresh.get_concrete_function(*args, **kwargs)
    except Exception as exc:
        return Proof(candidate.fix, "failed", error=error_line(exc))
    return Proof(candidate.fix, "traced")


#: the tensors of the trial's converted parameters whose ``tf.constant(...)`` the candidate rewrites
_CONVERTED: list = []


def _constants_as_conversions(tf: Any, function: Callable, params: tuple) -> Callable:
    """``function`` noting, at each call, the tensors its ``params`` receive: the patched
    ``tf.constant`` converts exactly those (RTF005's body edit ``tf.constant(i)`` ->
    ``tf.convert_to_tensor(i)`` / ``tf.cast(i, dtype)``), and refuses any other tensor as before."""
    signature = inspect.signature(function)

    @functools.wraps(function)
    def noting(*args, **kwargs):
        bound = signature.bind_partial(*args, **kwargs)
        _CONVERTED[:] = [bound.arguments[p] for p in params if p in bound.arguments]
        return function(*args, **kwargs)

    return noting


@contextlib.contextmanager
def _patched_constant(tf: Any, params: tuple):
    """``tf.constant`` that treats the tensors of :data:`_CONVERTED` as the body edit does (for the
    trial only; restored after)."""
    if not params:
        yield
        return
    original = tf.constant

    @tf.autograph.experimental.do_not_convert
    def constant(value, dtype=None, shape=None, name="Const"):
        if shape is None and any(value is tensor for tensor in _CONVERTED):
            return tf.convert_to_tensor(value) if dtype is None else tf.cast(value, dtype)
        return original(value, dtype=dtype, shape=shape, name=name)

    tf.constant = constant
    try:
        yield
    finally:
        tf.constant = original
        _CONVERTED.clear()


def _fresh_function(tf: Any, function: Callable, signature: Any, relax: bool, options: dict) -> Any:
    kwargs = dict(options)
    if signature is not None:
        kwargs["input_signature"] = signature
    if relax:
        kwargs["reduce_retracing"] = True
    try:
        return tf.function(function, **kwargs)
    except TypeError:  # an option this TensorFlow does not take
        minimal = {k: v for k, v in kwargs.items() if k in ("input_signature", "reduce_retracing", "autograph", "jit_compile")}
        return tf.function(function, **minimal)


# ---------------------------------------------------------------------------
# every candidate of one function


def prove_function(
    function: FunctionTraces,
    live: LiveFunction | None,
    budget: Budget,
    lookup: Callable[[int], Any],
    cache: dict | None = None,
) -> None:
    """Search the candidates of ``function`` with trial traces; store every outcome in ``function.proofs``."""
    cache = {} if cache is None else cache
    started = time.perf_counter()
    params = live.params if live is not None else []
    skip_self = function.params[0] if live is not None and live.is_method and function.params else None

    def oracle(candidate: Candidate) -> Proof:
        proof = cache.get(candidate.key)
        if proof is None:
            now = time.perf_counter()
            if live is None:
                proof = Proof(candidate.fix, "not_run", note="the function was not seen alive by this recorder")
            elif now - started >= budget.per_function or budget.used >= budget.total:
                proof = Proof(candidate.fix, "not_run", note=f"the time budget for proofs was spent (${ENV_PROOF_SECONDS})")
            else:
                proof = trial_trace(live, candidate, lookup)
                budget.used += time.perf_counter() - now
            if proof.result != "not_run":
                cache[candidate.key] = proof
        function.add_proof(candidate.key, proof)
        return proof

    search_candidates(function, params or _params_from_names(function), skip_self, oracle)


def _params_from_names(function: FunctionTraces) -> list[ParamInfo]:
    return [ParamInfo(name) for name in function.params]
