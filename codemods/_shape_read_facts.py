"""Which static shape reads RTF106 can report, read in CPython's tree (its tree check).

:class:`~retrace_fix.codemods.graph_code_diagnostics.GraphDiagnosticsCommand` reports a static
shape read (RTF106) only in the body of a tf.function that generalises shapes
(``_ReadOnly._relaxed_dims``: ``input_signature=[...]``, ``reduce_retracing=True``,
``experimental_relax_shapes=True``), and only three reads, each of a *parameter* of that
function: ``p.shape[k]``/``p.get_shape()[k]`` with ``k`` an integer, ``p.shape.as_list()``,
and ``len(p)`` where a Python int is needed (an argument of ``range(...)`` or a NumPy call).  ``x.shape`` of a local tensor, ``self.w.shape``,
``len(self.layers)`` never report.  :func:`relaxed_shape_reads` asks for such a read in the defs
:class:`~retrace_fix.codemods._tree_facts.TreeFacts` found relaxed, as a superset: every parameter
counts (``self`` and reassigned ones too), ``len(p)`` in any argument of a call that may be ``range``
or NumPy's, reads in nested lambdas and classes too.
"""

from __future__ import annotations

import ast

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
#: tf.function's keywords that make ``_relaxed_dims`` relax shapes when passed ``True``
_RELAX_KEYWORDS = frozenset({"reduce_retracing", "experimental_relax_shapes"})


def _parameters(node: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    arguments = node.args
    return {a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)}


def _index(value: ast.AST) -> bool:
    """An integer index, as LibCST's ``Integer`` or ``-Integer`` (``x.shape[0]``, ``x.shape[-1]``)."""
    if type(value) is ast.UnaryOp and type(value.op) is ast.USub:  # type: ignore[attr-defined]
        value = value.operand  # type: ignore[attr-defined]
    return type(value) is ast.Constant and type(value.value) is int  # type: ignore[attr-defined]


def _shape_of_parameter(node: ast.AST, params: set[str]) -> bool:
    """``p.shape`` with ``p`` a parameter?"""
    return type(node) is ast.Attribute and node.attr == "shape" and type(node.value) is ast.Name \
        and node.value.id in params  # type: ignore[attr-defined]


def _needs_an_int(func: ast.AST, facts) -> bool:
    """Can ``func`` qualify to ``builtins.range`` or a ``numpy.`` name (``_ReadOnly.visit_Call``'s
    ``int_contexts``: where ``len(p)`` must be a Python int)?"""
    if type(func) is ast.Name and func.id == "range":  # type: ignore[attr-defined]
        return True
    while type(func) is ast.Attribute:
        func = func.value  # type: ignore[attr-defined]
    return type(func) is ast.Name and any(
        target.split(".")[0] in ("numpy", "builtins") for target in facts.imports.get(func.id, ()))  # type: ignore[attr-defined]


def _len_calls(node: ast.AST) -> list[ast.AST]:
    """The calls that are ``node`` or an arithmetic operand of it (``graph_code_diagnostics._len_calls``)."""
    kind = type(node)
    if kind is ast.Call:
        return [node]
    if kind is ast.BinOp:
        return _len_calls(node.left) + _len_calls(node.right)  # type: ignore[attr-defined]
    if kind is ast.UnaryOp:
        return _len_calls(node.operand)  # type: ignore[attr-defined]
    return []


def _len_of(call: ast.AST, params: set[str]) -> bool:
    """``len(p)`` of a parameter ``p``?"""
    return type(call.func) is ast.Name and call.func.id == "len" and len(call.args) == 1 \
        and not call.keywords and type(call.args[0]) is ast.Name and call.args[0].id in params  # type: ignore[attr-defined]


def _reads_a_parameter_shape(function: ast.FunctionDef | ast.AsyncFunctionDef, facts) -> bool:
    """A read RTF106 can report in ``function``'s own body (nested defs are read on their own)."""
    params = _parameters(function)
    if not params:
        return False
    stack: list[ast.AST] = [*function.body]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind in _DEFS:
            continue  # its reads are checked against its own tf.function (``relaxed[-1]``)
        if kind is ast.Subscript:
            base = node.value  # type: ignore[attr-defined]
            if _index(node.slice) and (  # type: ignore[attr-defined]
                _shape_of_parameter(base, params)
                or (type(base) is ast.Call and type(base.func) is ast.Attribute and base.func.attr == "get_shape"  # type: ignore[attr-defined]
                    and type(base.func.value) is ast.Name and base.func.value.id in params)):  # type: ignore[attr-defined]
                return True
        elif kind is ast.Attribute:
            if node.attr == "as_list" and _shape_of_parameter(node.value, params):  # type: ignore[attr-defined]
                return True
        elif kind is ast.Call and _needs_an_int(node.func, facts):  # type: ignore[attr-defined]
            for value in [*node.args, *(k.value for k in node.keywords)]:  # type: ignore[attr-defined]
                if any(_len_of(call, params) for call in _len_calls(value)):
                    return True
        stack.extend(ast.iter_child_nodes(node))
    return False


def _decorator_relaxes(function: ast.FunctionDef | ast.AsyncFunctionDef, facts) -> bool:
    """Can the def's tf.function relax shapes?  Read only where every decorator is a
    ``tf.function(...)`` call and no ``tf.function(<name>, ...)`` call wraps the def's name
    elsewhere: then one of the decorators passes ``input_signature=[...]``/``(...)``,
    ``reduce_retracing=True``, ``experimental_relax_shapes=True`` or ``**kwargs``."""
    decorators = function.decorator_list
    calls = [d for d in decorators if type(d) is ast.Call and facts.is_tf_function(d.func)]  # type: ignore[attr-defined]
    if not calls or len(calls) != len(decorators) or function.name in facts.wrapped:
        return True  # the keywords may come from elsewhere
    for call in calls:
        for keyword in call.keywords:  # type: ignore[attr-defined]
            if keyword.arg is None:
                return True  # **kwargs: anything
            if keyword.arg == "input_signature" and type(keyword.value) in (ast.List, ast.Tuple):
                return True
            if keyword.arg in _RELAX_KEYWORDS and type(keyword.value) is ast.Constant and keyword.value.value is True:  # type: ignore[attr-defined]
                return True
    return False


def relaxed_shape_reads(tree: ast.Module, facts) -> bool:
    """Is there, in a def whose tf.function may generalise shapes (``facts._relaxed``), a read RTF106
    can report (:func:`_reads_a_parameter_shape`)?"""
    relaxed = facts._relaxed
    if not relaxed:
        return False
    for node in facts.index.of_type(*_DEFS):
        if id(node) in relaxed and _decorator_relaxes(node, facts) \
                and _reads_a_parameter_shape(node, facts):  # type: ignore[arg-type]
            return True
    return False
