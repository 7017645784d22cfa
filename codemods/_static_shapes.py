"""Reads of a tensor's static shape: ``x.shape[k]`` and its spellings.

Shared by RTF008 (static-to-dynamic-shape, which rewrites them) and the graph-code
diagnostics (which report them): :func:`static_read` recognises ``x.shape[k]``,
``x.get_shape()[k]`` and ``x.shape.as_list()[k]``; :func:`integer` reads a literal
index (``2``, ``-1``).
"""

from __future__ import annotations

import libcst as cst


def static_read(node: cst.CSTNode) -> tuple[str, cst.BaseExpression] | None:
    """``(name, index)`` of ``name.shape[k]``, ``name.get_shape()[k]`` or ``name.shape.as_list()[k]``."""
    if not isinstance(node, cst.Subscript) or len(node.slice) != 1:
        return None
    element = node.slice[0].slice
    if not isinstance(element, cst.Index) or integer(element.value) is None:
        return None
    base = node.value
    if isinstance(base, cst.Call) and not base.args and isinstance(base.func, cst.Attribute):
        attr = base.func.attr.value
        if attr == "as_list" and isinstance(base.func.value, cst.Attribute) and base.func.value.attr.value == "shape":
            base = base.func.value
        elif attr == "get_shape":
            base = cst.Attribute(value=base.func.value, attr=cst.Name("shape"))
        else:
            return None
    if isinstance(base, cst.Attribute) and base.attr.value == "shape" and isinstance(base.value, cst.Name):
        return base.value.value, element.value
    return None


def integer(expr: cst.BaseExpression) -> int | None:
    if isinstance(expr, cst.Integer):
        return int(expr.value, 0)
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus) and isinstance(
        expr.expression, cst.Integer
    ):
        return -int(expr.expression.value, 0)
    return None
