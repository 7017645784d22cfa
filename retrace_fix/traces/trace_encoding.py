"""TensorFlow's TraceTypes as the trace file's JSON value descriptors (``docs/trace-format.md``).

:func:`encode_trace_type` turns one parameter's TraceType of a traced
``FunctionType`` into a descriptor (tensor, ragged, sparse, variable, Python
value, object, containers); the encoders are chosen by class name, walking the
MRO, so this module never imports TensorFlow.  Objects passed by identity get
small ordinals (:data:`OBJECT_IDS`), held only weakly, so that a proof can find
the live object again (:meth:`_ObjectIds.lookup`).
"""

from __future__ import annotations

import math
import os
import threading
import weakref
from typing import Any, Callable

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


def object_numbers(value: Any) -> list[int]:
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


def _after_fork_in_child() -> None:
    """A new lock in a forked child (see :mod:`retrace_fix.traces.function_stats`)."""
    OBJECT_IDS._lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
