"""Can a Python ``if`` on a bool parameter become a ``tf.cond`` without changing what the body does?

RTF005 passing a Python bool flag as ``tf.constant(flag, dtype=tf.bool)`` turns ``if flag:`` (and
``a if flag else b``) into a ``tf.cond`` under AutoGraph: *both* branches are traced, once, and the
branch is chosen when the graph runs.  That is equivalent to the two graphs it replaces when

* tracing both branches succeeds and they produce values of one structure and dtype -- AutoGraph's
  ``tf.cond`` refuses anything else, so the record-time proof (the live function traced with the flag
  as a bool tensor) checks it; and
* neither branch has a Python side effect: Python code in a branch runs at trace time, and now it runs
  for the branch not taken too (``outputs.append(x)`` in both branches appends twice; ``print``
  prints both; ``self.mode = ...`` is set by both).  That is what this module checks, statically.

A ``while`` on the flag (a ``tf.while_loop``) and a flag that selects training-mode behaviour
(``training``: dropout, batch statistics -- two graphs on purpose) are never called safe here.
"""

from __future__ import annotations

import libcst as cst

from retrace_fix.cst_tree import find_nodes, stored_targets
from retrace_fix.node_text import first_line as _short
from retrace_fix.tfnames import Scope, binding_sites, local_bindings, mentions as _mentions

#: methods that change a Python container (or object) in place
_MUTATORS = frozenset(
    {"append", "extend", "insert", "pop", "remove", "clear", "update", "setdefault", "add", "discard", "popitem"}
)
#: parameter names that select training-mode behaviour: two graphs are usually what the author wants
TRAINING_FLAGS = frozenset({"training", "is_training", "train", "train_mode", "training_mode", "is_train"})
#: modules whose functions are not Python side effects (TF ops run in the branch taken, at run time)
_LIBRARIES = ("tensorflow", "keras", "numpy", "math")


def flag_branch_risk(node: cst.FunctionDef, param: str, scope: Scope) -> str | None:
    """Why the Python tests on ``param`` in ``node``'s body are not safe as ``tf.cond`` (None: they are,
    given a proof that traced the body with ``param`` as a tensor)."""
    if param in TRAINING_FLAGS:
        return (
            f"`{param}` selects training-mode behaviour: two graphs (one per mode) are usually on purpose, "
            "and as a tensor both modes are traced into one graph"
        )
    finder = _Tests(param)
    node.body.visit(finder)
    if finder.loops:
        return f"`{finder.loops[0]}` on `{param}` becomes a tf.while_loop"
    if not finder.branches:
        return f"the Python test on `{param}` was not found in the body"
    outer = _outer_names(node)
    for text, branches in finder.branches:
        for branch in branches:
            effect = _side_effect(branch, scope, outer)
            if effect is not None:
                return (
                    f"Python `{text}` on `{param}` becomes a tf.cond: both branches are traced, and a branch "
                    f"has a Python side effect (`{effect}`) that then runs for the branch not taken too"
                )
    return None


class _Tests(cst.CSTVisitor):
    """The ``if``/``while``/``x if c else y`` whose test reads ``param``, nested defs that rebind it
    excluded."""

    def __init__(self, param: str) -> None:
        self.param = param
        self.branches: list[tuple[str, list[cst.CSTNode]]] = []
        self.loops: list[str] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return self.param not in set(local_bindings(node))

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return self.param not in set(local_bindings(node))

    def visit_If(self, node: cst.If) -> None:
        if _mentions(node.test, self.param):
            branches: list[cst.CSTNode] = [node.body]
            if node.orelse is not None:
                branches.append(node.orelse)
            self.branches.append((f"if {_short(node.test)}:", branches))

    def visit_IfExp(self, node: cst.IfExp) -> None:
        if _mentions(node.test, self.param):
            self.branches.append((f"... if {_short(node.test)} else ...", [node.body, node.orelse]))

    def visit_While(self, node: cst.While) -> None:
        if _mentions(node.test, self.param):
            self.loops.append(f"while {_short(node.test)}:")


def _outer_names(node: cst.FunctionDef) -> set[str]:
    """Names ``node`` (or a function in it) declares ``global`` or ``nonlocal``."""
    return {name for name, site in binding_sites(node, nested=True) if isinstance(site, (cst.Global, cst.Nonlocal))}


def _side_effect(branch: cst.CSTNode, scope: Scope, outer: set[str]) -> str | None:
    """The first Python side effect in ``branch`` (a statement block or an expression), or None."""

    def effect(node: cst.CSTNode) -> bool:
        if isinstance(node, (cst.Assign, cst.AugAssign, cst.AnnAssign)):
            return any(
                isinstance(target, (cst.Attribute, cst.Subscript))
                or (isinstance(target, cst.Name) and target.value in outer)
                for target in stored_targets(node)
            )
        if isinstance(node, (cst.Global, cst.Nonlocal, cst.Del, cst.Yield)):
            return True
        if not isinstance(node, cst.Call):
            return False
        func = node.func
        if (scope.qualify(func) or "").split(".")[0] in _LIBRARIES:
            return False
        if isinstance(func, cst.Name):
            return func.value in ("print", "setattr", "delattr", "exec", "open", "input")
        return isinstance(func, cst.Attribute) and func.attr.value in _MUTATORS

    found = find_nodes(branch, effect)
    return _short(found[0]) if found else None
