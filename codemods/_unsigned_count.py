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

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _signed(call: ast.Call) -> bool:
    return any(k.arg == "input_signature" for k in call.keywords)


def _children(node: ast.AST) -> list[ast.AST]:
    """The child nodes in source order (a def's and a class's decorators first, as LibCST has them)."""
    children = list(ast.iter_child_nodes(node))
    if type(node) in _SCOPES:
        decorators = node.decorator_list  # type: ignore[attr-defined]
        ids = {id(d) for d in decorators}
        children = [*decorators, *(c for c in children if id(c) not in ids)]
    return children


def unsigned_tf_functions(tree: ast.Module, facts) -> int:
    """How many defs of ``tree`` become a tf.function without an ``input_signature`` (``facts``: the
    file's :class:`~retrace_fix.codemods._tree_facts.TreeFacts`, for what can be ``tf.function``)."""
    is_tf_function = facts.is_tf_function
    defs: dict[tuple, dict[str, ast.AST]] = {}  # scope key -> def name -> the last def of that name
    sites: dict[int, bool] = {}  # id(def) -> has an input_signature
    wraps: list[tuple[ast.Call, ast.AST, tuple]] = []  # (the call with the keywords, the target, key)
    stack: list[tuple[ast.AST, tuple]] = [(tree, ())]
    while stack:
        node, key = stack.pop()
        kind = type(node)
        inner = key
        if kind in _DEFS:
            defs.setdefault(key, {})[node.name] = node  # type: ignore[attr-defined]
            for decorator in node.decorator_list:  # type: ignore[attr-defined]
                if is_tf_function(decorator):
                    sites[id(node)] = False
                    break
                if type(decorator) is ast.Call and is_tf_function(decorator.func):  # type: ignore[attr-defined]
                    sites[id(node)] = _signed(decorator)  # type: ignore[arg-type]
                    break
            inner = (*key, node)
        elif kind is ast.ClassDef:
            inner = (*key, node)
        elif kind is ast.Call and node.args and type(node.args[0]) is not ast.Starred:  # type: ignore[attr-defined]
            func = node.func  # type: ignore[attr-defined]
            if is_tf_function(func):
                wraps.append((node, node.args[0], key))  # type: ignore[arg-type, attr-defined]
            elif type(func) is ast.Call and is_tf_function(func.func):  # type: ignore[attr-defined]
                wraps.append((func, node.args[0], key))  # type: ignore[arg-type, attr-defined]
        stack.extend((child, inner) for child in reversed(_children(node)))
    for call, target, key in wraps:
        found = _resolve(target, key, defs)
        if found is not None and id(found) not in sites:
            sites[id(found)] = _signed(call)
    return sum(not signed for signed in sites.values())


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
