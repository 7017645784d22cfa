"""What RTF002 (predict-to-call) reads about ``model.predict`` calls and the loops around them.

The cheap prefilter on CPython's tree (:func:`predict_calls`,
:func:`self_attribute_calls`), the methods a Python loop runs every step
(:func:`per_step_methods`), and the facts about one call (``verbose=0``, a functional
model with a single output) and its edit (a keyword dropped).  The command in
:mod:`retrace_fix.codemods.predict_to_call` decides and edits with them.
"""

from __future__ import annotations

import ast

import libcst as cst

from retrace_fix.ast_walk import child_fields, walk
from retrace_fix.codemods._keras import KerasEvidence

PREDICT_METHODS = ("predict", "predict_on_batch")
#: Keras calls that pay a per-call setup when made once per step of a Python loop
PER_STEP_METHODS = (*PREDICT_METHODS, "train_on_batch")
#: the fields of a loop whose code runs once per iteration (as ``_in_loop_body`` reads them;
#: a ``while`` loop's test too); None: every field
_LOOP_BODIES: dict[type, tuple[str, ...] | None] = {
    ast.For: ("body",), ast.AsyncFor: ("body",), ast.While: None,
    ast.ListComp: ("elt",), ast.SetComp: ("elt",), ast.GeneratorExp: ("elt",), ast.DictComp: ("key", "value"),
}


def predict_calls(root: ast.AST) -> tuple[bool, bool]:
    """(a predict call on a bare name in the body of a loop or comprehension, any predict call)
    in ``root``."""
    anywhere = False
    stack: list[tuple[ast.AST, bool]] = [(root, False)]
    while stack:
        node, in_loop = stack.pop()
        kind = type(node)
        if kind is ast.Call:
            func = node.func
            if type(func) is ast.Attribute and func.attr in PREDICT_METHODS:
                if in_loop and type(func.value) is ast.Name:
                    return True, True
                anywhere = True
        bodies = _LOOP_BODIES.get(kind, ())
        for name in child_fields(kind):
            value = getattr(node, name, None)
            flag = in_loop or bodies is None or name in bodies
            for child in value if type(value) is list else (value,):
                if isinstance(child, ast.AST):
                    stack.append((child, flag))
    return False, anywhere


def self_attribute_calls(root: ast.AST) -> bool:
    """Is there a ``self.<attr>.predict(...)`` / ``.train_on_batch(...)`` call in ``root``?"""
    for node in walk(root):
        if type(node) is ast.Call:
            func = node.func
            if (
                type(func) is ast.Attribute
                and func.attr in PER_STEP_METHODS
                and type(func.value) is ast.Attribute
                and type(func.value.value) is ast.Name
                and func.value.value.id == "self"
            ):
                return True
    return False


def is_self_attribute(node: cst.CSTNode) -> bool:
    return isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == "self"


class _StepCalls(cst.CSTVisitor):
    """The method names called in the body of a Python loop (``agent.act(s)``), and the
    ``self.<method>()`` calls each method makes."""

    def __init__(self) -> None:
        self.in_loops: set[str] = set()
        self.self_calls: dict[str, set[str]] = {}
        self._frames: list[tuple[str | None, int]] = [(None, 0)]

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._frames.append((node.name.value, 0))

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._frames.pop()

    def _looped(self, *parts: cst.CSTNode | None) -> None:
        name, depth = self._frames[-1]
        self._frames[-1] = (name, depth + 1)
        for part in parts:
            if part is not None:
                part.visit(self)
        self._frames[-1] = (name, depth)

    def visit_For(self, node: cst.For) -> bool:
        node.target.visit(self)
        node.iter.visit(self)
        self._looped(node.body)
        if node.orelse is not None:
            node.orelse.visit(self)
        return False

    def visit_While(self, node: cst.While) -> bool:
        self._looped(node.test, node.body)
        if node.orelse is not None:
            node.orelse.visit(self)
        return False

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if not isinstance(func, cst.Attribute):
            return
        name, depth = self._frames[-1]
        if depth:
            self.in_loops.add(func.attr.value)
        if name is not None and isinstance(func.value, cst.Name) and func.value.value == "self":
            self.self_calls.setdefault(name, set()).add(func.attr.value)


def per_step_methods(module: cst.Module) -> frozenset[str]:
    """Names of the methods a Python loop of ``module`` calls every step: called as
    ``obj.<name>(...)`` in a loop body, or as ``self.<name>()`` from such a method."""
    calls = _StepCalls()
    module.visit(calls)
    found = set(calls.in_loops)
    todo = list(found)
    while todo:
        for callee in calls.self_calls.get(todo.pop(), ()):
            if callee not in found:
                found.add(callee)
                todo.append(callee)
    return frozenset(found)


def without_keyword(call: cst.Call, keyword: str) -> cst.Call:
    return call.with_changes(args=[a for a in call.args if a.keyword is None or a.keyword.value != keyword])


def quiet(call: cst.Call) -> bool:
    """``verbose=0`` / ``verbose=False``: ``predict`` prints nothing a direct call would drop."""
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == "verbose":
            value = arg.value
            return (isinstance(value, cst.Integer) and value.evaluated_value == 0) or (
                isinstance(value, cst.Name) and value.value == "False"
            )
    return False


def one_output(call: cst.Call, evidence: KerasEvidence) -> bool:
    """``keras.Model(inputs, outputs)`` with ``outputs`` a single tensor expression."""
    outputs = None
    positional = [a for a in call.args if a.keyword is None and not a.star]
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == "outputs":
            outputs = arg.value
    if outputs is None and len(positional) >= 2:
        outputs = positional[1].value
    if outputs is None:
        return False
    if isinstance(outputs, cst.Name):
        # every assignment of that name (any scope) must be a single tensor expression
        values = [value for _owner, targets, value in evidence._pending
                  if any(isinstance(t, cst.Name) and t.value == outputs.value for t in targets)]
        return bool(values) and all(isinstance(v, (cst.Call, cst.Attribute, cst.Subscript)) for v in values)
    return isinstance(outputs, (cst.Call, cst.Attribute, cst.Subscript))
