"""What RTF009's decider starts from, read in CPython's tree (the second half of its tree check).

Without traces, :class:`~retrace_fix.codemods._bind_decider.ArgDecider` looks only at a call site
of :class:`~retrace_fix.codemods._callsites.ModuleCalls` (or of a *forwarder*: a module-level def
whose own body passes one of its parameters to such a call) that

* sits in a ``for``/``while`` loop of its own def (a def starts with no loop; the innermost
  loop around the call must be a statement, not a comprehension: the name is bound before it),
* in no def that is a tf.function (a call there traces only while its caller traces),
* and passes an attribute, a lambda or a ``partial(...)``.

:func:`loops_pass_new_callables` asks the same of CPython's tree, as a superset: a forwarder
is any module-level def whose body passes a parameter name to a call
:meth:`~retrace_fix.codemods._tree_facts.TreeFacts.may_call_a_tf_function` accepts; only the
defs LibCST surely finds to be tf.functions (``TreeFacts.surely``) count as graph code; a
``for`` loop's iterable counts as inside it.
"""

from __future__ import annotations

import ast

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
_STATEMENT_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _parameters(node: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    arguments = node.args
    return {a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)}


def _forwarders(tree: ast.Module, facts) -> set[str]:
    """Module-level defs that may pass a parameter straight on to a tf.function of this module."""
    found: set[str] = set()
    for node in tree.body:
        if type(node) not in _DEFS:
            continue
        params = _parameters(node)  # type: ignore[arg-type]
        for inner in facts.index.subtree(node):
            if type(inner) is ast.Call and facts.may_call_a_tf_function(inner.func) and any(  # type: ignore[attr-defined]
                    type(v) is ast.Name and v.id in params  # type: ignore[attr-defined]
                    for v in [*inner.args, *(k.value for k in inner.keywords)]):  # type: ignore[attr-defined]
                found.add(node.name)  # type: ignore[attr-defined]
                break
    return found


def _new_callable(value: ast.AST) -> bool:
    """An argument built anew at every evaluation: an attribute (a bound method), a lambda, a ``partial``."""
    return isinstance(value, (ast.Attribute, ast.Lambda)) or (
        isinstance(value, ast.Call) and "partial" in ast.unparse(value.func))


def loops_pass_new_callables(tree: ast.Module, facts) -> bool:
    """Is there a call RTF009's decider can act on (see the module docstring)?"""
    callees: set[str] = set()
    index = facts.index
    callees.update(node.name for node in index.of_type(*_DEFS))  # type: ignore[attr-defined]
    for node in index.of_type(ast.Assign):
        callees.update(target.id for target in node.targets if type(target) is ast.Name)  # type: ignore[attr-defined]
    forwarders: set[str] | None = None
    surely = facts.surely
    # (node, the innermost loop around it in its def is a statement (None: no loop), under a surely tf.function)
    stack: list[tuple[ast.AST, bool | None, bool]] = [(tree, None, False)]
    while stack:
        node, loop, graph = stack.pop()
        kind = type(node)
        if kind in _DEFS:
            inner_graph = graph or id(node) in surely
            for child in ast.iter_child_nodes(node):
                stack.append((child, None, inner_graph))  # a def's body starts with no loop
            continue
        if kind is ast.Call and loop and not graph:
            func = node.func  # type: ignore[attr-defined]
            name = func.id if type(func) is ast.Name else func.attr if type(func) is ast.Attribute else None
            if name in callees and any(_new_callable(v) for v in [*node.args, *(k.value for k in node.keywords)]):  # type: ignore[attr-defined]
                if facts.may_call_a_tf_function(func):
                    return True
                if type(func) is ast.Name:
                    if forwarders is None:
                        forwarders = _forwarders(tree, facts)
                    if func.id in forwarders:
                        return True
        if kind in _STATEMENT_LOOPS:
            inner = True
        elif kind in _COMPREHENSIONS:
            inner = False
        else:
            inner = loop
        for child in ast.iter_child_nodes(node):
            stack.append((child, inner, graph))
    return False
