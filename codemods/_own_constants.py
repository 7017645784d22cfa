"""The body converts its own parameter: ``tf.constant(i)`` calls RTF005 rewrites with the call sites.

``tf.constant`` refuses a symbolic tensor, so a parameter the body passes to it cannot simply arrive
as a tensor.  The hand fix is two edits: the call sites pass ``tf.constant(step, dtype=tf.int32)`` and
the body converts with an op that takes a tensor or a Python value alike:

* ``tf.constant(i)`` -> ``tf.convert_to_tensor(i)``: for a Python int, float or bool the same int32 /
  float32 / bool tensor ``tf.constant`` makes; for the tensor the call sites now pass, that tensor (its
  dtype is the one ``tf.constant`` chose for the recorded values: the proof picks it);
* ``tf.constant(i, D)`` / ``tf.constant(i, dtype=D)`` -> ``tf.cast(i, D)``, for a Python int or bool
  only: ``tf.cast`` of an int (a Python int or an int tensor) to ``D`` is the value ``tf.constant``
  builds (``tf.convert_to_tensor(i, D)`` would refuse an int32 tensor for a float ``D``).  A Python float
  with a dtype is left alone: ``tf.cast(0.1, tf.float64)`` rounds through float32.

Every ``tf.constant`` whose value is the parameter must be one of these forms (no ``shape=``/``name=``,
the bare parameter as the value), or nothing is rewritten.  The record-time proof traced the body with
exactly these calls as conversions of the parameter's tensor (``retrace_fix.traces.prover``).
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from retrace_fix.node_text import first_line as _short
from retrace_fix.tfnames import Scope, local_bindings, mentions as _mentions

_CONSTANT = "tensorflow.constant"


@dataclass(frozen=True)
class OwnConstant:
    """One ``tf.constant(param[, dtype])`` call of the body and what it becomes."""

    call: cst.Call
    param: str
    dtype: cst.BaseExpression | None  # the dtype argument as written (None: none)


def own_constants(node: cst.FunctionDef, param: str, python_type: str, scope: Scope) -> list[OwnConstant] | str:
    """The ``tf.constant`` calls on ``param`` in ``node``'s body, or why they cannot be rewritten."""
    finder = _Finder(param, scope)
    node.body.visit(finder)
    if finder.refused:
        return finder.refused
    for found in finder.found:
        if found.dtype is not None and python_type == "float":
            return f"`{_short(found.call)}`: a Python float with a dtype (tf.cast would round it through float32)"
    return finder.found


def rewritten(found: OwnConstant, tf_name: str) -> cst.Call:
    """``tf.convert_to_tensor(param)`` / ``tf.cast(param, dtype)`` for ``found``."""
    value = cst.Name(found.param)
    if found.dtype is None:
        return cst.Call(func=cst.Attribute(value=cst.Name(tf_name), attr=cst.Name("convert_to_tensor")),
                        args=[cst.Arg(value=value)])
    comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    return cst.Call(func=cst.Attribute(value=cst.Name(tf_name), attr=cst.Name("cast")),
                    args=[cst.Arg(value=value, comma=comma), cst.Arg(value=found.dtype)])


class _Finder(cst.CSTVisitor):
    def __init__(self, param: str, scope: Scope) -> None:
        self.param = param
        self.scope = scope
        self.found: list[OwnConstant] = []
        self.refused: str = ""

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return self.param not in set(local_bindings(node))

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return self.param not in set(local_bindings(node))

    def visit_Call(self, node: cst.Call) -> None:
        if self.refused or self.scope.qualify(node.func) != _CONSTANT:
            return
        if not any(_mentions(arg.value, self.param) for arg in node.args):
            return
        positional = [arg for arg in node.args if arg.keyword is None and not arg.star]
        keywords = {arg.keyword.value: arg.value for arg in node.args if arg.keyword is not None}
        starred = any(arg.star for arg in node.args)
        value = positional[0].value if positional else keywords.get("value")
        dtype = positional[1].value if len(positional) > 1 else keywords.get("dtype")
        extra = len(positional) > 2 or set(keywords) - {"value", "dtype"} or starred
        if not (isinstance(value, cst.Name) and value.value == self.param) or extra:
            self.refused = f"`{_short(node)}` needs a Python value (only `tf.constant({self.param}[, dtype])` is rewritten)"
            return
        if dtype is not None and _mentions(dtype, self.param):
            self.refused = f"`{_short(node)}` needs a Python value"
            return
        self.found.append(OwnConstant(node, self.param, dtype))
