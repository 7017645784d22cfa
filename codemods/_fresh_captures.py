"""Is a repeated tf.function creation a retrace at all?  Not when what it closes over is new each time.

A tf.function created per call of its function (or per iteration of a loop)
traces once per creation.  That is a retrace to remove only when the creations
could have shared one function.  When the new function closes over an object that
is itself new each time - a Keras model built for this cross-validation fold, an
optimizer, a ``tf.Variable`` - one trace per object is inherent: the hand fix is
none, and moving the function out would keep using the first object.  RTF006
(hoist-tf-function) and RTF101 (the per-call creation diagnostic) both stay quiet
then (issue 22: no noise on programs that do not retrace).

:func:`fresh_captures` names the names a creation reads that hold such an object:

* bound, in the loop around the creation or in its enclosing function, to a
  *new object*: a constructor call (``keras.Sequential(...)``, ``Model(...)``,
  ``tf.Variable(...)``: a capitalised callee, as
  :func:`~retrace_fix.codemods._hoist_bodies.fresh_objects` reads it) or a call
  of a module-level *builder* (a function of this module whose every ``return``
  gives such a call, directly or through a name it binds to one);
* or a parameter of the enclosing function to which every call of that function
  in a loop of this module passes a new object (a constructor or builder call, or
  a name bound to one in the loop iteration that makes the call).

Code alone: traces say it better (``fresh_captures`` in the trace file, read by
RTF006's trace evidence).  Pure LibCST; never imports TensorFlow.
"""

from __future__ import annotations

import libcst as cst

from retrace_fix.codemods._callsites import ModuleCalls
from retrace_fix.codemods._creations import Creation
from retrace_fix.cst_tree import target_names
from retrace_fix.tfnames import dotted_name, local_bindings


def fresh_captures(creation: Creation, calls: ModuleCalls, scope, module: cst.Module) -> list[str]:
    """Names the created tf.function reads that hold an object new at every creation (see the module)."""
    read = _names_read(creation)
    if not read:
        return []
    builders = _Builders(module, scope)
    if creation.loops:
        loop = creation.loops[-1]
        body = loop.body if isinstance(loop, (cst.For, cst.While)) else None
        return [n for n in read if body is not None and n in _fresh_bindings(body, builders)]
    owner = creation.owner
    if owner is None:
        return []
    found = [n for n in read if n in _fresh_bindings(owner.body, builders)]
    params = _parameters(owner)
    for name in read:
        if name in found or name not in params or name in _rebound(owner, name):
            continue
        repeated = calls.repeated_calls(owner.name.value)
        if repeated and all(_passes_fresh(c.call, c.loops, params, name, builders) for c in repeated):
            found.append(name)
    return found


def _names_read(creation: Creation) -> list[str]:
    """Bare names the created function reads (a def's body, or the arguments of ``tf.function(...)``),
    less the names a def or lambda binds itself."""
    node = creation.node
    if isinstance(node, cst.FunctionDef):
        parts: list[cst.CSTNode] = [node.body]
        own = set(local_bindings(node))
    elif isinstance(node, cst.Call):
        parts = [arg.value for arg in node.args]
        if isinstance(node.func, cst.Call):  # tf.function(...)(f)
            parts += [arg.value for arg in node.func.args]
        own = set()
    else:
        return []
    names: dict[str, None] = {}

    class _Reads(cst.CSTVisitor):
        def visit_Name(self, name: cst.Name) -> None:
            names[name.value] = None

        def visit_Attribute(self, attribute: cst.Attribute) -> bool:
            attribute.value.visit(self)
            return False  # `x.model`: the attribute's name is no read of `model`

        def visit_Lambda(self, lam: cst.Lambda) -> bool:
            lam.body.visit(self)  # its parameters shadow: dropped below when they match
            for param in lam.params.params:
                names.pop(param.name.value, None)
            return False

    for part in parts:
        part.visit(_Reads())
    return [n for n in names if n not in own]


def _parameters(function: cst.FunctionDef) -> list[str]:
    params = function.params
    return [p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)]


def _rebound(function: cst.FunctionDef, name: str) -> list[cst.CSTNode]:
    """Assignments of ``name`` in ``function``'s own body (a parameter rebound is no longer what the caller passed)."""
    found: list[cst.CSTNode] = []

    class _Stores(cst.CSTVisitor):
        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            return node is function

        def visit_ClassDef(self, node: cst.ClassDef) -> bool:
            return False

        def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
            if name in target_names(node.target):
                found.append(node)

        def visit_AugAssign(self, node: cst.AugAssign) -> None:
            if name in target_names(node.target):
                found.append(node)

        def visit_For(self, node: cst.For) -> None:
            if name in target_names(node.target):
                found.append(node)

    function.visit(_Stores())
    return found


def _fresh_bindings(body: cst.CSTNode, builders: "_Builders") -> set[str]:
    """Names that ``body`` (a loop's or a function's, nested defs and classes left out) binds only to new objects."""
    fresh: set[str] = set()
    other: set[str] = set()

    class _Stores(cst.CSTVisitor):
        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            return False

        def visit_ClassDef(self, node: cst.ClassDef) -> bool:
            return False

        def visit_Assign(self, node: cst.Assign) -> None:
            new = builders.is_new_object(node.value)
            for target in node.targets:
                names = target_names(target.target)
                if new and isinstance(target.target, cst.Name):
                    fresh.update(names)
                else:
                    other.update(names)

        def visit_AugAssign(self, node: cst.AugAssign) -> None:
            other.update(target_names(node.target))

        def visit_For(self, node: cst.For) -> None:
            other.update(target_names(node.target))

    body.visit(_Stores())
    return fresh - other


def _passes_fresh(call: cst.Call, loops: tuple, params: list[str], name: str, builders: "_Builders") -> bool:
    """Does ``call`` pass a new object as parameter ``name``?"""
    index = params.index(name)
    value = None
    for position, arg in enumerate(call.args):
        if arg.star:
            return False
        if arg.keyword is not None and arg.keyword.value == name:
            value = arg.value
        elif arg.keyword is None and position == index:
            value = arg.value
    if value is None:
        return False
    if builders.is_new_object(value):
        return True
    if isinstance(value, cst.Name) and loops:
        loop = loops[-1]
        body = loop.body if isinstance(loop, (cst.For, cst.While)) else None
        return body is not None and value.value in _fresh_bindings(body, builders)
    return False


class _Builders:
    """Which expressions make a new object: constructor calls and calls of this module's builders."""

    def __init__(self, module: cst.Module, scope) -> None:
        self.module = module
        self.scope = scope
        self._defs = {s.name.value: s for s in module.body if isinstance(s, cst.FunctionDef)}
        self._known: dict[str, bool] = {}

    def is_new_object(self, value: cst.BaseExpression) -> bool:
        if not isinstance(value, cst.Call):
            return False
        qualified = self.scope.qualify(value.func) or dotted_name(value.func) or ""
        if qualified.rsplit(".", 1)[-1][:1].isupper() or qualified == "tensorflow.Variable":
            return True
        return isinstance(value.func, cst.Name) and self._is_builder(value.func.value)

    def _is_builder(self, name: str) -> bool:
        """A module-level function whose every ``return`` gives a new object."""
        if name in self._known:
            return self._known[name]
        self._known[name] = False  # recursion: not a builder
        function = self._defs.get(name)
        if function is None or sum(1 for s in self.module.body if isinstance(s, cst.FunctionDef)
                                    and s.name.value == name) != 1:
            return False
        returns: list[cst.BaseExpression | None] = []

        class _Returns(cst.CSTVisitor):
            def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
                return node is function

            def visit_Lambda(self, node: cst.Lambda) -> bool:
                return False

            def visit_Return(self, node: cst.Return) -> None:
                returns.append(node.value)

        function.visit(_Returns())
        shared = {n.name.value for s in _statements(function) if isinstance(s, (cst.Global, cst.Nonlocal))
                  for n in s.names}  # `global _MODEL; _MODEL = Model(); return _MODEL`: a cache, not a builder
        fresh = _fresh_bindings(function.body, self) - shared
        self._known[name] = bool(returns) and all(
            value is not None and (self.is_new_object(value) or (isinstance(value, cst.Name) and value.value in fresh))
            for value in returns)
        return self._known[name]


def _statements(function: cst.FunctionDef) -> list[cst.BaseSmallStatement]:
    """The small statements of ``function``'s own body (nested defs and classes left out)."""
    found: list[cst.BaseSmallStatement] = []

    class _Small(cst.CSTVisitor):
        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            return node is function

        def visit_ClassDef(self, node: cst.ClassDef) -> bool:
            return False

        def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
            found.extend(node.body)

    function.visit(_Small())
    return found
