"""The dtype and static shape that a TensorFlow or NumPy constructor call states in the source.

``tf.constant([1, 2])`` is an int32 tensor of shape ``[2]``, ``np.zeros((n, 5))`` a
float64 array of shape ``[n, 5]``: :func:`dtype_of` and :func:`shape_of` read
that from the call alone (a dtype keyword, a literal value, the library's
default), for the call-site diagnostics (RTF105 dtype drift, RTF107 shape
drift) and RTF007's loop analysis.  Pure LibCST; never imports TensorFlow.
"""

from __future__ import annotations

import libcst as cst

from retrace_fix.codemods._callsites import literal_value
from retrace_fix.tfnames import Scope


# --------------------------------------------------------------------------- dtypes

_TF_FLOAT_DEFAULT = {
    "tensorflow.zeros", "tensorflow.ones", "tensorflow.eye", "tensorflow.random.normal",
    "tensorflow.random.uniform", "tensorflow.random.truncated_normal", "tensorflow.keras.backend.zeros",
}
_NP_FLOAT64 = {
    "numpy.zeros", "numpy.ones", "numpy.empty", "numpy.random.rand", "numpy.random.randn",
    "numpy.random.random", "numpy.random.normal", "numpy.random.uniform", "numpy.random.standard_normal",
    "numpy.random.random_sample", "numpy.linspace", "numpy.eye", "numpy.identity",
}
_NP_INT64 = {"numpy.random.randint"}
_DTYPE_NAMES = {
    "float16", "bfloat16", "float32", "float64", "half", "double", "int8", "int16", "int32", "int64",
    "uint8", "uint16", "uint32", "uint64", "bool", "complex64", "complex128", "string",
}


def _dtype_name(expr: cst.BaseExpression, scope: Scope) -> str | None:
    if isinstance(expr, cst.SimpleString):
        value = expr.evaluated_value
        return value if isinstance(value, str) and value in _DTYPE_NAMES else None
    q = scope.qualify(expr)
    if q is None:
        return None
    last = q.rsplit(".", 1)[-1]
    if q.startswith(("tensorflow.", "numpy.")) and last in _DTYPE_NAMES:
        return {"half": "float16", "double": "float64"}.get(last, last)
    if q == "builtins.float":
        return "float64"
    if q == "builtins.int":
        return "int64"
    return None


def _keyword(call: cst.Call, name: str, position: int | None = None) -> cst.BaseExpression | None:
    for index, arg in enumerate(call.args):
        if arg.keyword is not None and arg.keyword.value == name:
            return arg.value
    if position is not None:
        positional = [a for a in call.args if a.keyword is None and not a.star]
        if len(positional) > position:
            return positional[position].value
    return None


def _literal_dtype(value: cst.BaseExpression | None, tf_default: bool) -> str | None:
    """dtype of a literal (nested lists allowed): TF picks int32/float32, numpy int64/float64."""
    kinds: set[str] = set()

    def walk(e: cst.BaseExpression) -> bool:
        lit = literal_value(e)
        if lit is not None:
            kinds.add(lit[0])
            return True
        if isinstance(e, (cst.List, cst.Tuple)):
            return all(walk(el.value) for el in e.elements)
        return False

    if value is None or not walk(value) or not kinds:
        return None
    if "str" in kinds:
        return "string" if kinds == {"str"} else None
    if "float" in kinds:
        return "float32" if tf_default else "float64"
    if kinds == {"bool"}:
        return "bool"
    return "int32" if tf_default else "int64"


def dtype_of(expr: cst.BaseExpression | None, scope: Scope) -> str | None:
    """The dtype a TF/numpy constructor call produces, when the code says it; else None."""
    if not isinstance(expr, cst.Call):
        return None
    func = expr.func
    if isinstance(func, cst.Attribute) and func.attr.value == "astype" and expr.args:
        return _dtype_name(expr.args[0].value, scope)
    q = scope.qualify(func)
    if q is None:
        return None
    explicit = _keyword(expr, "dtype")
    if q in ("tensorflow.constant", "tensorflow.convert_to_tensor"):
        if explicit is None:
            explicit = _keyword(expr, "dtype", 1)
        if explicit is not None:
            return _dtype_name(explicit, scope)
        value = _keyword(expr, "value", 0)
        nested = dtype_of(value, scope) if isinstance(value, cst.Call) else None
        return nested or _literal_dtype(value, tf_default=True)
    if q == "tensorflow.cast":
        target = _keyword(expr, "dtype", 1)
        return _dtype_name(target, scope) if target is not None else None
    if q in ("tensorflow.zeros", "tensorflow.ones") and explicit is None:
        explicit = _keyword(expr, "dtype", 1)  # tf.zeros(shape, tf.int32)
    if q in _TF_FLOAT_DEFAULT:
        return _dtype_name(explicit, scope) if explicit is not None else "float32"
    if q == "tensorflow.range":
        if explicit is not None:
            return _dtype_name(explicit, scope)
        return _literal_dtype(cst.List([cst.Element(a.value) for a in expr.args if a.keyword is None]), True)
    if q in ("numpy.array", "numpy.asarray"):
        if explicit is None:
            explicit = _keyword(expr, "dtype", 1)
        if explicit is not None:
            return _dtype_name(explicit, scope)
        return _literal_dtype(_keyword(expr, "object", 0), tf_default=False)
    if q in _NP_FLOAT64:
        return _dtype_name(explicit, scope) if explicit is not None else "float64"
    if q in _NP_INT64:
        return _dtype_name(explicit, scope) if explicit is not None else "int64"
    if q.startswith("numpy.") and q.rsplit(".", 1)[-1] in _DTYPE_NAMES:
        return q.rsplit(".", 1)[-1]  # np.float32(1.0)
    return None


# --------------------------------------------------------------------------- shapes

VARYING = "varying"  # a dimension that takes several values (loop variable, counter)
UNKNOWN = "?"  # a dimension the code does not pin down

_TF_SHAPE_FIRST = {
    "tensorflow.zeros", "tensorflow.ones", "tensorflow.fill", "tensorflow.random.normal",
    "tensorflow.random.uniform", "tensorflow.random.truncated_normal", "tensorflow.random.stateless_normal",
    "numpy.zeros", "numpy.ones", "numpy.empty", "numpy.full",
}
_NP_SIZE_KEYWORD = {
    "numpy.random.normal", "numpy.random.uniform", "numpy.random.randint", "numpy.random.random",
    "numpy.random.standard_normal", "numpy.random.random_sample", "numpy.random.choice",
}
_NP_STAR_DIMS = {"numpy.random.rand", "numpy.random.randn"}


def shape_dims(expr: cst.BaseExpression | None) -> tuple | None:
    """``(16, 50)`` / ``[n, 5]`` / ``5`` as a shape tuple (names kept symbolic)."""
    if expr is None:
        return None
    if isinstance(expr, (cst.List, cst.Tuple)):
        out = []
        for element in expr.elements:
            if isinstance(element, cst.StarredElement):
                return None
            value = element.value
            if isinstance(value, cst.Integer):
                out.append(value.evaluated_value)
            elif isinstance(value, cst.Name) and value.value != "None":
                out.append(value)
            else:
                out.append(UNKNOWN)
        return tuple(out)
    if isinstance(expr, cst.Integer):
        return (expr.evaluated_value,)
    if isinstance(expr, cst.Name) and expr.value != "None":
        return (expr,)  # np.zeros(n) or np.zeros(shape): resolved (or dropped) by _resolve_dims
    return None


def _literal_shape(value: cst.BaseExpression | None) -> tuple | None:
    """Shape of a (rectangular) nested literal list: ``[[1, 2], [3, 4]]`` -> (2, 2)."""
    if value is None:
        return None
    if literal_value(value) is not None:
        return ()
    if isinstance(value, (cst.List, cst.Tuple)):
        inner = [_literal_shape(e.value) for e in value.elements]
        if not inner or any(i is None for i in inner) or len(set(inner)) != 1:
            return None if inner else (0,)
        return (len(inner), *inner[0])
    return None


def shape_of(expr: cst.BaseExpression | None, scope: Scope) -> tuple | None:
    """The static shape a TF/numpy constructor call produces (dims: int, Name, or UNKNOWN), else None."""
    if not isinstance(expr, cst.Call):
        return None
    q = scope.qualify(expr.func)
    if q is None:
        return None
    if q in ("tensorflow.constant", "tensorflow.convert_to_tensor", "numpy.array", "numpy.asarray"):
        if _keyword(expr, "shape") is not None:
            return shape_dims(_keyword(expr, "shape"))
        return _literal_shape(_keyword(expr, "value" if q.startswith("tensorflow") else "object", 0))
    if q in _TF_SHAPE_FIRST:
        return shape_dims(_keyword(expr, "shape", 0) if q.startswith("tensorflow") else _keyword(expr, "shape", 0))
    if q == "tensorflow.reshape":
        return shape_dims(_keyword(expr, "shape", 1))
    if q in _NP_SIZE_KEYWORD:
        size = _keyword(expr, "size")
        return shape_dims(size) if size is not None else None
    if q in _NP_STAR_DIMS:
        dims = [a.value for a in expr.args if a.keyword is None and not a.star]
        return shape_dims(cst.Tuple([cst.Element(d) for d in dims])) if dims else ()
    return None
