"""The tf.functions without an ``input_signature``, counted on CPython's tree as LibCST's finder counts them.

A file that no codemod needs LibCST for still counts, for the run's next-step hint, the defs that
become a tf.function without a signature.  :func:`unsigned_tf_functions` reads them on CPython's tree
the way :func:`~retrace_fix.tf_functions.find_tf_functions` reads LibCST's: a decorated def first
(``@tf.function``, ``@tf.function(...)``), then each ``tf.function(f, ...)``/``tf.function(...)(f)``
of a def resolved by ``_TfFunctionFinder._resolve_target``: a bare name in the innermost function
or module scope around the call that defines a def of that name (class bodies are no such scope; the
last def of the name there), ``self.m``/``cls.m`` in the innermost class around the call; nothing
else (``tf.function(step)`` of a variable, ``tf.function(obj.m)``).  The same count as LibCST's
where the tf.function names are resolved alike, so a file's hint does not depend on whether a
codemod parsed it.
"""

from __future__ import annotations

import ast

from retrace_fix.ast_walk import child_fields

_AST = ast.AST
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)


def _signed(call: ast.Call) -> bool:
    return any(k.arg == "input_signature" for k in call.keywords)


def unsigned_tf_functions(tree: ast.Module, facts) -> int:
    """How many defs of ``tree`` become a tf.function without an ``input_signature`` (``facts``: the
    file's :class:`~retrace_fix.codemods._tree_facts.TreeFacts`, for what can be ``tf.function`` and
    its creations, and its index of the tree).  The index's defs for the decorated ones; the scopes are read only in a module
    that wraps a def by a call (``tf.function(f)``), where the names must be resolved."""
    is_tf_function = facts.is_tf_function
    sites: dict[int, bool] = {}  # id(def) -> has an input_signature
    for node in facts.index.of_type(*_DEFS):
        for decorator in node.decorator_list:  # type: ignore[attr-defined]
            if is_tf_function(decorator):
                sites[id(node)] = False
                break
            if type(decorator) is ast.Call and is_tf_function(decorator.func):  # type: ignore[attr-defined]
                sites[id(node)] = _signed(decorator)  # type: ignore[arg-type]
                break
    wrapping = [node for node, _owner, _loop, first in facts.creations
                if type(node) is ast.Call and type(first) in (ast.Name, ast.Attribute)]
    if wrapping:
        _resolve_wraps(tree, facts, sites)
    return sum(not signed for signed in sites.values())


def _position(node: ast.AST) -> tuple[int, int]:
    return node.lineno, node.col_offset  # type: ignore[attr-defined]


def _resolve_wraps(tree: ast.Module, facts, sites: dict[int, bool]) -> None:
    """Add to ``sites`` the defs ``tf.function(f, ...)``/``tf.function(...)(f)`` wrap (in source order,
    a def already a site is kept), each target resolved as ``_TfFunctionFinder`` resolves it."""
    is_tf_function = facts.is_tf_function
    defs: dict[tuple, dict[str, ast.AST]] = {}  # scope key -> def name -> the last def of that name
    wraps: list[tuple[tuple[int, int], ast.Call, ast.AST, tuple]] = []  # (where, the call with the keywords, target, key)
    stack: list[tuple[ast.AST, tuple]] = [(tree, ())]
    pop, push = stack.pop, stack.append
    while stack:
        node, key = pop()
        kind = type(node)
        inner = key
        if kind in _DEFS:
            known = defs.setdefault(key, {})
            last = known.get(node.name)  # type: ignore[attr-defined]
            if last is None or _position(last) < _position(node):
                known[node.name] = node  # type: ignore[attr-defined]
            inner = (*key, node)
        elif kind is ast.ClassDef:
            inner = (*key, node)
        elif kind is ast.Call and node.args and type(node.args[0]) is not ast.Starred:  # type: ignore[attr-defined]
            func = node.func  # type: ignore[attr-defined]
            if is_tf_function(func):
                wraps.append((_position(node), node, node.args[0], key))  # type: ignore[arg-type, attr-defined]
            elif type(func) is ast.Call and is_tf_function(func.func):  # type: ignore[attr-defined]
                wraps.append((_position(node), func, node.args[0], key))  # type: ignore[arg-type, attr-defined]
        for name in child_fields(kind):
            value = getattr(node, name, None)
            if type(value) is list:
                for item in value:
                    if isinstance(item, _AST):
                        push((item, inner))
            elif isinstance(value, _AST):
                push((value, inner))
    wraps.sort(key=lambda w: w[0])
    for _where, call, target, key in wraps:
        found = _resolve(target, key, defs)
        if found is not None and id(found) not in sites:
            sites[id(found)] = _signed(call)


def _resolve(target: ast.AST, key: tuple, defs: dict[tuple, dict[str, ast.AST]]) -> ast.AST | None:
    """The def ``target`` names from the scope ``key`` (``_TfFunctionFinder._resolve_target``)."""
    if type(target) is ast.Name:
        for depth in range(len(key), -1, -1):
            scope = key[:depth]
            if depth and type(scope[-1]) is ast.ClassDef:
                continue  # class bodies are not enclosing scopes for names
            found = defs.get(scope, {}).get(target.id)  # type: ignore[attr-defined]
            if found is not None:
                return found
        return None
    if type(target) is ast.Attribute and type(target.value) is ast.Name \
            and target.value.id in ("self", "cls"):  # type: ignore[attr-defined]
        for depth in range(len(key), 0, -1):
            if type(key[depth - 1]) is ast.ClassDef:
                return defs.get(key[:depth], {}).get(target.attr)  # type: ignore[attr-defined]
    return None
