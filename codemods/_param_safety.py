"""May an integer parameter of a tf.function become a scalar ``int32`` tensor?

The question the input-signature codemod (RTF003) and RTF001 ask before giving
a parameter a ``tf.TensorSpec([], tf.int32)`` slot or passing ``tf.constant``
at the call sites: :func:`param_blockers` says yes (an empty list) only when
every use of it is a ``range(...)`` bound of a loop that
:func:`~retrace_fix.codemods._loop_safety.loop_blockers` accepts, an
argument of a TensorFlow op, or an index of a dense tensor (``grid_sizes[dim]``).  Pure LibCST; never imports TensorFlow; new checks
only add blockers.
"""

from __future__ import annotations

from typing import Iterable

import libcst as cst

from retrace_fix.codemods._graph_loop_hazards import TF_NEEDS_PYTHON_INT
from retrace_fix.codemods._loop_safety import Blocker, loop_blockers, statement_header
from retrace_fix.codemods._tf_values import (
    ValueReads,
    is_indexable_tensor,
    is_tf_op,
    names_in,
    qualified_name,
    range_call,
    rebound_names,
    tensor_indices,
)
from retrace_fix.node_text import short_code
from retrace_fix.tfnames import Scope, all_params, local_bindings


def param_blockers(
    function: cst.FunctionDef,
    param: str,
    scope: Scope,
    *,
    tensor_names: Iterable[str] = (),
) -> list[Blocker]:
    """Every reason integer parameter ``param`` of ``function`` may not become a scalar int32 tensor.

    Safe uses: a bound of ``for ... in range(...)`` whose body passes
    :func:`loop_blockers`, an argument of a TensorFlow op (``tf.cast(n, ...)``,
    ``tf.range(n)``), or an index of a tensor (``x[n]``, ``x[n, ...]``, ``x[..., n]`` where ``x`` is
    in ``tensor_names`` and never rebound, or a TF op's result: a scalar int32 tensor indexes it as the
    Python int does).  Anything else - Python arithmetic, comparisons, ``if n``, indexing a list or
    anything not known to be a tensor, passing it to Python code, rebinding it - is a blocker.
    """
    blockers: list[Blocker] = []
    tensor_names = set(tensor_names)
    dense = tensor_names - rebound_names(function)
    safe_loops: set[int] = set()

    class _V(ValueReads):
        def __init__(self) -> None:
            self.tf_call_depth = 0
            self.range_bound_depth = 0
            self.nested: list[set[str]] = []  # names the nested defs and lambdas around bind

        def shadowing(self) -> set[str]:
            return set().union(*self.nested)

        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            if node is function:
                return True
            if param in {p.name.value for p in all_params(node.params)}:
                return False  # shadowed
            self.nested.append(set(local_bindings(node)))
            return True

        def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
            if original_node is not function:
                self.nested.pop()

        def visit_Lambda(self, node: cst.Lambda) -> bool:
            if param in {p.name.value for p in all_params(node.params)}:
                return False
            self.nested.append(set(local_bindings(node)))
            return True

        def leave_Lambda(self, original_node: cst.Lambda) -> None:
            self.nested.pop()

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

        def visit_Subscript(self, node: cst.Subscript) -> bool:
            safe = [i for i in tensor_indices(node) if isinstance(i, cst.Name) and i.value == param]
            if not safe or not is_indexable_tensor(node.value, scope, dense) or names_in(node.value) & self.shadowing():
                return True
            node.value.visit(self)
            for element in node.slice:
                if not (isinstance(element.slice, cst.Index) and any(element.slice.value is i for i in safe)):
                    element.visit(self)
            return False

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
