"""May an integer parameter of a tf.function become a scalar ``int32`` tensor?

The question the input-signature codemod (RTF003) and RTF001 ask before giving
a parameter a ``tf.TensorSpec([], tf.int32)`` slot or passing ``tf.constant``
at the call sites: :func:`param_blockers` says yes (an empty list) only when
every use of it is a ``range(...)`` bound of a loop that
:func:`~retrace_fix.codemods._loop_safety.loop_blockers` accepts, or an
argument of a TensorFlow op.  Pure LibCST; never imports TensorFlow; new checks
only add blockers.
"""

from __future__ import annotations

from typing import Iterable

import libcst as cst

from retrace_fix.codemods._graph_loop_hazards import TF_NEEDS_PYTHON_INT
from retrace_fix.codemods._loop_safety import Blocker, loop_blockers, statement_header
from retrace_fix.codemods._tf_values import ValueReads, is_tf_op, names_in, qualified_name, range_call
from retrace_fix.node_text import short_code
from retrace_fix.tfnames import Scope, all_params


def param_blockers(
    function: cst.FunctionDef,
    param: str,
    scope: Scope,
    *,
    tensor_names: Iterable[str] = (),
) -> list[Blocker]:
    """Every reason integer parameter ``param`` of ``function`` may not become a scalar int32 tensor.

    Safe uses: a bound of ``for ... in range(...)`` whose body passes
    :func:`loop_blockers`, or an argument of a TensorFlow op (``tf.cast(n, ...)``,
    ``tf.range(n)``).  Anything else - Python arithmetic, comparisons, ``if n``,
    indexing, passing it to Python code, rebinding it - is a blocker.
    """
    blockers: list[Blocker] = []
    tensor_names = set(tensor_names)
    safe_loops: set[int] = set()

    class _V(ValueReads):
        def __init__(self) -> None:
            self.tf_call_depth = 0
            self.range_bound_depth = 0

        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            if node is function:
                return True
            if param in {p.name.value for p in all_params(node.params)}:
                return False  # shadowed
            return True

        def visit_Lambda(self, node: cst.Lambda) -> bool:
            return param not in {p.name.value for p in all_params(node.params)}

        def visit_ClassDef(self, node: cst.ClassDef) -> bool:
            return False

        def visit_For(self, node: cst.For) -> None:
            call = range_call(node, scope)
            if call is not None and any(param in names_in(a.value) for a in call.args):
                if not all(_is_simple_bound(a.value, param) for a in call.args):
                    blockers.append(Blocker(node.iter, f"`{short_code(node.iter)}` computes the bound in Python"))
                found = loop_blockers(node, scope, function=function, tensor_names=tensor_names | {param})
                blockers.extend(found)
                safe_loops.add(id(call))

        def visit_Call(self, node: cst.Call) -> bool:
            if id(node) in safe_loops:
                return False
            if is_tf_op(scope, node.func):
                if qualified_name(scope, node.func) in TF_NEEDS_PYTHON_INT and any(
                    param in names_in(a.value) for a in node.args
                ):
                    blockers.append(Blocker(node, f"`{short_code(node)}` needs a Python int"))
                return False
            return True

        def visit_Assign(self, node: cst.Assign) -> None:
            for target in node.targets:
                if param in names_in(target.target) and isinstance(target.target, (cst.Name, cst.Tuple, cst.List)):
                    blockers.append(Blocker(node, f"`{short_code(node)}` rebinds `{param}`"))

        def visit_AugAssign(self, node: cst.AugAssign) -> None:
            if isinstance(node.target, cst.Name) and node.target.value == param:
                blockers.append(Blocker(node, f"`{short_code(node)}` rebinds `{param}`"))

        def visit_Name(self, node: cst.Name) -> None:
            if node.value == param:
                blockers.append(Blocker(node, f"`{param}` is used as a Python value"))

        def visit_Param(self, node: cst.Param) -> bool:
            return False

    # Visit the For nodes first so their range() calls are known, then everything.
    class _Collect(cst.CSTVisitor):
        def visit_For(self, node: cst.For) -> None:
            call = range_call(node, scope)
            if call is not None and any(param in names_in(a.value) for a in call.args):
                safe_loops.add(id(call))

    function.body.visit(_Collect())
    visitor = _V()
    function.body.visit(visitor)
    refined = _refine_name_uses(blockers, function, param, scope)
    unique: list[Blocker] = []
    seen: set[str] = set()
    for blocker in refined:
        if blocker.reason not in seen:
            seen.add(blocker.reason)
            unique.append(blocker)
    return unique


def _is_simple_bound(expr: cst.BaseExpression, param: str) -> bool:
    return isinstance(expr, (cst.Name, cst.Integer))


def _refine_name_uses(blockers: list[Blocker], function, param: str, scope: Scope) -> list[Blocker]:
    """Replace the bare "used as a Python value" blockers by the statement that uses it."""
    names = [b for b in blockers if b.reason.endswith("is used as a Python value")]
    if not names:
        return blockers
    owners: dict[int, cst.CSTNode] = {}

    class _Owner(cst.CSTVisitor):
        def __init__(self) -> None:
            self.stack: list[cst.CSTNode] = []

        def on_visit(self, node: cst.CSTNode) -> bool:
            if isinstance(node, (cst.BaseSmallStatement, cst.If, cst.While, cst.For, cst.With)):
                self.stack.append(node)
            if isinstance(node, cst.Name) and self.stack:
                owners[id(node)] = self.stack[-1]
            return True

        def on_leave(self, original_node: cst.CSTNode) -> None:
            if self.stack and self.stack[-1] is original_node:
                self.stack.pop()

    function.body.visit(_Owner())
    out: list[Blocker] = []
    for b in blockers:
        if b in names:
            owner = owners.get(id(b.node), b.node)
            out.append(Blocker(b.node, f"`{statement_header(owner)}` uses `{param}` as a Python value"))
        else:
            out.append(b)
    return out
