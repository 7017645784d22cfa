"""Can ``tf.function(<lambda or partial>)`` in a def be RTF006's forwarding evidence?  Read in CPython's tree.

Without traces or a loop, :meth:`~retrace_fix.codemods._hoist_decider.HoistDecider.forward_evidence`
hoists ``tf.function(lambda x: f(x, k))`` and ``tf.function(functools.partial(f, k=k))`` only when
:func:`~retrace_fix.codemods._hoist_forward.read_forwarder` reads a forwarder (a lambda with plain
parameters, no defaults, whose body calls a named function that is not one of them; a ``partial``
of a named function) and that function is a module-level def or is imported (``f`` or
``module.f``).  ``tf.function(lambda: model(x))``, ``tf.function(lambda t: init(t))`` of a local
``init`` and ``tf.function(make(f))`` are none.  :func:`may_forward` asks the same as a superset
(any import of the name counts, wherever it is).
"""

from __future__ import annotations

import ast

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)


def _head(expr: ast.AST) -> str | None:
    """The first name of a dotted name (``f``, ``ops.nn.f``), None for anything else."""
    while type(expr) is ast.Attribute:
        expr = expr.value  # type: ignore[attr-defined]
    return expr.id if type(expr) is ast.Name else None  # type: ignore[attr-defined]


def _named_function(target: ast.AST, tree: ast.Module, facts) -> bool:
    """Can ``target`` be a module-level def (``module_def``) or an imported function
    (``imported_name``, ``imported_function``)?"""
    head = _head(target)
    if head is None:
        return False
    if head in facts.imports:
        return True
    return type(target) is ast.Name and any(
        type(node) in _DEFS and node.name == head for node in tree.body)  # type: ignore[attr-defined]


def _may_be_partial(func: ast.AST, facts) -> bool:
    """Can ``func`` qualify to ``functools.partial``?"""
    if type(func) is ast.Attribute:
        return func.attr == "partial"  # type: ignore[attr-defined]
    return type(func) is ast.Name and (func.id == "partial" or any(  # type: ignore[attr-defined]
        target.rsplit(".", 1)[-1] == "partial" for target in facts.imports.get(func.id, ())))  # type: ignore[attr-defined]


def may_forward(first: ast.AST, tree: ast.Module, facts) -> bool:
    """Is ``first`` (what ``tf.function(...)`` wraps) a lambda or ``partial`` that may forward to a
    module-level or imported function (see the module docstring)?"""
    if type(first) is ast.Lambda:
        arguments = first.args  # type: ignore[attr-defined]
        if not arguments.args or arguments.posonlyargs or arguments.kwonlyargs or arguments.vararg \
                or arguments.kwarg or arguments.defaults:
            return False
        body = first.body  # type: ignore[attr-defined]
        if type(body) is not ast.Call:
            return False
        head = _head(body.func)  # type: ignore[attr-defined]
        if head is None or head in {a.arg for a in arguments.args}:
            return False
        return _named_function(body.func, tree, facts)  # type: ignore[attr-defined]
    if type(first) is ast.Call and _may_be_partial(first.func, facts):  # type: ignore[attr-defined]
        args = first.args  # type: ignore[attr-defined]
        return bool(args) and type(args[0]) is not ast.Starred and _named_function(args[0], tree, facts)
    return False
