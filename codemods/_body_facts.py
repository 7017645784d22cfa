"""What a tf.function's body does with each of its parameters, for the trace-driven codemods.

:func:`body_facts` walks one ``def`` (nested defs included unless they shadow a
parameter) and returns the :class:`~retrace_fix.traces.generalize.BodyFacts`
that :func:`retrace_fix.traces.generalize.decide_signature` judges a signature
by: Python-scalar uses of each parameter (arithmetic, tests, arguments of
TensorFlow ops, ``range`` bounds with RTF001's loop analysis), static-shape
reads (``x.shape[0]``, ``len(x)``, through names computed from a parameter),
reassignments, and what runs only while tracing (clock and random draws,
mutations of state the call does not own).

Never imports TensorFlow.
"""

from __future__ import annotations

from typing import Callable

import libcst as cst

from retrace_fix.codemods._finding_text import short
from retrace_fix.codemods._loop_safety import loop_blockers
from retrace_fix.codemods._tf_values import (
    VARIABLE_INDEX_METHODS,
    VARIABLE_VALUE_METHODS,
    is_indexable_tensor,
    rebound_names,
    tensor_indices,
)
from retrace_fix.codemods._trace_time_draws import draws_at_trace_time
from retrace_fix.tfnames import Scope, all_params, local_bindings
from retrace_fix.traces.generalize import BodyFacts, ScalarUse, ShapeRead


_RANDOM_APIS = {
    "tensorflow.random.normal",
    "tensorflow.random.uniform",
    "tensorflow.random.truncated_normal",
    "tensorflow.random.stateless_normal",
    "tensorflow.random.stateless_uniform",
    "tensorflow.random.stateless_truncated_normal",
}
_RANDOM_KEYWORDS = {"mean", "stddev", "minval", "maxval"}

#: TensorFlow arguments that must be Python values (a tensor there fails or changes the graph's structure)
_NEEDS_PYTHON = {
    "tensorflow.split",
    "tensorflow.unstack",
    "tensorflow.random.set_seed",
    "tensorflow.autograph.experimental.set_loop_options",
    "tensorflow.TensorSpec",
    "tensorflow.TensorShape",
    # `tf.constant(tensor)` raises "Expected any non-tensor type" (tensorflow/tensorflow#... the
    # issue-12 crash); a Variable's initial value or a Python-side conversion needs the number too
    "tensorflow.constant",
    "tensorflow.Variable",
    "tensorflow.get_static_value",
}
_NEEDS_PYTHON_KEYWORDS = {"num", "seed", "name", "num_or_size_splits", "axis", "dtype", "element_shape"}


#: methods that change a Python container in place (``history.append(loss)``)
_MUTATORS = {"append", "extend", "insert", "update", "add", "setdefault", "pop", "popitem", "remove", "clear", "discard"}


def _root_name(node: cst.BaseExpression) -> cst.Name | None:
    """``a`` of ``a.b[c].d``."""
    while isinstance(node, (cst.Attribute, cst.Subscript)):
        node = node.value
    return node if isinstance(node, cst.Name) else None


_ARITHMETIC = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide)

#: methods of a ``tf.Variable`` whose first argument is converted to the variable's dtype
_VARIABLE_METHODS = {"assign", "assign_add", "assign_sub"}
_LITERAL_CLIMB = (cst.Add, cst.Subtract, cst.Multiply, cst.FloorDivide, cst.Divide)


class _BodyFactsCollector(cst.CSTVisitor):
    """Uses of the parameters in one function body (nested defs included unless they shadow)."""

    def __init__(self, params: set[str], scope: Scope, loop_blockers) -> None:
        self.params = params
        self.scope = scope
        self.loop_blockers = loop_blockers
        self.facts = BodyFacts()
        self.stack: list[cst.CSTNode] = []
        self.shadowed: list[set[str]] = []
        # local name -> parameters it was computed from (static-shape taint)
        self.derived: dict[str, set[str]] = {}
        #: names bound inside the body (the def's own and its nested defs' bindings, parameters of the
        #: def excluded, names declared global or nonlocal excluded): what mutating them changes no state
        #: outside the call
        self.local_names: set[str] = set()
        self.outer_names: set[str] = set()  # declared global or nonlocal
        #: the dotted name of a callee that is a function of the user's project (None: not one)
        self.project_function: Callable[[cst.BaseExpression], str | None] = lambda func: None
        #: names (``history``) and ``self`` attributes (``self.history``) provably bound to a ``tf.Variable``
        self.variables: set[str] = set()
        #: ``index`` uses whose subscripted value is judged after the walk: (uses, position, value,
        #: the text of an ``other`` use should the value not be a dense tensor, names bound around it)
        self.pending_indices: list[tuple[list, int, cst.BaseExpression, str, set[str]]] = []

    # -- bookkeeping
    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, (cst.FunctionDef, cst.Lambda)) and self.stack:
            bound = set(local_bindings(node))
            self.shadowed.append(bound & self.params)
        self.stack.append(node)
        return super().on_visit(node)

    def on_leave(self, original_node: cst.CSTNode) -> None:
        super().on_leave(original_node)
        self.stack.pop()
        if isinstance(original_node, (cst.FunctionDef, cst.Lambda)) and self.stack:
            self.shadowed.pop()

    def _visible(self, name: str) -> bool:
        return name in self.params and not any(name in s for s in self.shadowed)

    def _parent(self, node: cst.CSTNode, depth: int = 1) -> cst.CSTNode | None:
        """The ``depth``-th ancestor of ``node`` (which must be on the stack)."""
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i] is node:
                return self.stack[i - depth] if i - depth >= 0 else None
        return None

    # -- assignments
    def _targets(self, node: cst.BaseExpression) -> list[str]:
        if isinstance(node, cst.Name):
            return [node.value]
        if isinstance(node, (cst.Tuple, cst.List)):
            names: list[str] = []
            for element in node.elements:
                names.extend(self._targets(element.value))
            return names
        if isinstance(node, cst.StarredElement):
            return self._targets(node.value)
        return []

    def _mark_reassigned(self, target: cst.BaseExpression) -> None:
        for name in self._targets(target):
            if self._visible(name):
                self.facts.reassigned.add(name)

    def visit_Assign(self, node: cst.Assign) -> None:
        sources = self._sources(node.value)
        for target in node.targets:
            self._mark_reassigned(target.target)
            for name in self._targets(target.target):
                if sources and name not in self.params:
                    self.derived[name] = set(sources)
                else:
                    self.derived.pop(name, None)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._mark_reassigned(node.target)
        target = node.target
        if isinstance(target, cst.Name):
            if target.value in self.outer_names:
                self.facts.trace_mutations.append(short(node))
        elif self._outside_state(target):
            self.facts.trace_mutations.append(short(node))

    def _outside_state(self, target: cst.BaseExpression) -> bool:
        """Is ``target`` (``tracker.value``, ``cache[k]``) part of an object the call does not own: one
        reached from a parameter (``self`` included), a global or a closure, not a module?"""
        root = _root_name(target)
        if root is None or root.value in self.local_names and root.value not in self.outer_names:
            return False
        return self.scope.lookup(root.value) is None  # an imported module or a builtin is not state

    def visit_Global(self, node: cst.Global) -> None:
        self.outer_names.update(item.name.value for item in node.names)

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        self.outer_names.update(item.name.value for item in node.names)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._mark_reassigned(node.target)

    def visit_For(self, node: cst.For) -> None:
        self._mark_reassigned(node.target)

    def visit_AsName(self, node: cst.AsName) -> None:
        self._mark_reassigned(node.name)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._mark_reassigned(node.target)

    def visit_Del(self, node: cst.Del) -> None:
        self._mark_reassigned(node.target)

    def _sources(self, expr: cst.BaseExpression) -> set[str]:
        found: set[str] = set()

        class _Names(cst.CSTVisitor):
            def visit_Name(inner, name: cst.Name) -> None:  # noqa: N805
                if self._visible(name.value):
                    found.add(name.value)
                elif name.value in self.derived:
                    found.update(self.derived[name.value])

            def visit_Attribute(inner, attr: cst.Attribute) -> bool:  # noqa: N805
                attr.value.visit(inner)
                return False

        expr.visit(_Names())
        return found

    def visit_Call(self, node: cst.Call) -> None:
        if draws_at_trace_time(self.scope.qualify(node.func)):
            self.facts.trace_draws.append(short(node))
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value in _MUTATORS and self._outside_state(func.value):
            self.facts.trace_mutations.append(short(node))

    # -- names
    def visit_Name(self, node: cst.Name) -> None:
        parent = self._parent(node)
        if isinstance(parent, cst.Attribute) and parent.attr is node:
            return
        if isinstance(parent, cst.Arg) and parent.keyword is node:
            return
        if isinstance(parent, (cst.FunctionDef, cst.ClassDef, cst.Param, cst.ImportAlias, cst.AsName)):
            return
        name = node.value
        if self._visible(name):
            self._shape_read(node, {name}, derived=False)
            self._scalar_use(node, name)
        elif name in self.derived and not any(name in s for s in self.shadowed):
            self._shape_read(node, self.derived[name], derived=True)

    def _shape_read(self, node: cst.Name, params: set[str], derived: bool) -> None:
        parent = self._parent(node)
        # len(x)
        if isinstance(parent, cst.Arg) and parent.value is node and parent.keyword is None:
            call = self._parent(parent)
            if isinstance(call, cst.Call) and self.scope.is_builtin(call.func, "len") and call.args and call.args[0] is parent:
                for param in params:
                    self.facts.shape_reads.append(ShapeRead(param, frozenset({0}), short(call), derived, via_len=True))
            return
        # walk x[...]/x.attr chains up to a `.shape`
        expr: cst.CSTNode = node
        depth = 1
        rooted_deeper = False
        while True:
            up = self._parent(node, depth)
            if isinstance(up, cst.Attribute) and up.value is expr and up.attr.value in ("shape", "get_shape"):
                shape_node: cst.CSTNode = up
                after = self._parent(node, depth + 1)
                if up.attr.value == "get_shape":
                    if not (isinstance(after, cst.Call) and after.func is up):
                        return
                    shape_node = after
                    depth += 1
                    after = self._parent(node, depth + 1)
                self._classify_shape(node, shape_node, after, depth + 1, params, derived, rooted_deeper)
                return
            if isinstance(up, cst.Subscript) and up.value is expr or isinstance(up, cst.Attribute) and up.value is expr:
                expr = up
                depth += 1
                rooted_deeper = True
                continue
            return

    def _classify_shape(self, node, shape_node, after, depth, params, derived, rooted_deeper) -> None:
        dims: frozenset | None = None
        text_node = shape_node
        if isinstance(after, cst.Attribute) and after.value is shape_node:
            attr = after.attr.value
            if attr in ("rank", "ndims"):
                return
            if attr == "as_list":
                call = self._parent(node, depth + 1)
                text_node = call if isinstance(call, cst.Call) else after
                sub = self._parent(node, depth + 2)
                if isinstance(call, cst.Call) and isinstance(sub, cst.Subscript) and sub.value is call:
                    dims = _index_of(sub)
                    text_node = sub
            else:
                text_node = after
        elif isinstance(after, cst.Subscript) and after.value is shape_node:
            dims = _index_of(after)
            text_node = after
        if rooted_deeper:
            dims = None
        for param in params:
            self.facts.shape_reads.append(ShapeRead(param, dims, short(text_node), derived))

    def _scalar_use(self, node: cst.Name, name: str) -> None:
        expr: cst.CSTNode = node
        float_op = False
        depth = 1
        parent = self._parent(node, depth)
        # n - 1, 2 * n ... with literals stay "an expression of n"
        while isinstance(parent, cst.BinaryOperation) and isinstance(parent.operator, _LITERAL_CLIMB):
            other = parent.right if parent.left is expr else parent.left
            if not _is_number(other):
                break
            float_op = float_op or isinstance(parent.operator, cst.Divide)
            expr = parent
            depth += 1
            parent = self._parent(node, depth)
        uses = self.facts.uses.setdefault(name, [])
        if isinstance(parent, cst.Arg) and parent.value is expr:
            call = self._parent(node, depth + 1)
            if isinstance(call, cst.Call):
                uses.append(self._call_use(call, parent, expr, node, depth, float_op))
                return
        if isinstance(parent, cst.BinaryOperation):
            other = parent.right if parent.left is expr else parent.left
            other_name = other.value if isinstance(other, cst.Name) and self._visible(other.value) else None
            uses.append(
                ScalarUse(
                    "binop",
                    short(parent),
                    other=other_name if isinstance(parent.operator, _ARITHMETIC) else None,
                    float_op=float_op or isinstance(parent.operator, cst.Divide),
                )
            )
            return
        comparison = self._tensor_comparison(node, expr, parent, depth)
        if comparison is not None:
            uses.append(comparison)
            return
        if isinstance(parent, cst.Index) and parent.value is expr and not float_op:
            subscript = self._parent(node, depth + 2)
            if isinstance(subscript, cst.Subscript) and any(i is expr for i in tensor_indices(subscript)):
                # `grid_sizes[dim]`: judged once the walk knows which names are rebound
                text = short(_statement_of(self.stack, parent) or expr)
                self.pending_indices.append((uses, len(uses), subscript.value, text, self._bound_around()))
                uses.append(ScalarUse("index", short(subscript)))
                return
        if isinstance(parent, cst.Element):
            # `[[epoch]]`: climb the nested list/tuple literals to the argument they are
            level = depth
            container = self._parent(node, level + 1)
            while isinstance(container, (cst.List, cst.Tuple)) and isinstance(self._parent(node, level + 2), cst.Element):
                level += 2
                container = self._parent(node, level + 1)
            arg = self._parent(node, level + 2)
            call = self._parent(node, level + 3)
            if (
                isinstance(container, (cst.List, cst.Tuple))
                and isinstance(arg, cst.Arg)
                and isinstance(call, cst.Call)
                and arg.value is container
            ):
                keyword = arg.keyword.value if arg.keyword is not None else None
                if is_tf_api(self.scope.qualify(call.func)):
                    uses.append(ScalarUse("tf_arg", short(call), needs_python=_needs_python(self.scope.qualify(call.func), keyword)))
                    return
                variable_use = self._variable_method_use(call, arg)
                if variable_use is not None:
                    uses.append(variable_use)
                    return
        uses.append(ScalarUse("other", short(_statement_of(self.stack, parent) or expr), in_test=self._in_test(expr)))

    def _tensor_comparison(self, node: cst.Name, expr, parent, depth: int) -> ScalarUse | None:
        """``coin < epsilon`` outside a Python test, against another parameter: a ``compare`` use
        (a tensor comparison when that parameter is a tensor, which the traces tell)."""
        if isinstance(parent, cst.Comparison) and parent.left is expr:
            comparison = parent
            other = parent.comparisons[0].comparator if len(parent.comparisons) == 1 else None
        elif isinstance(parent, cst.ComparisonTarget) and parent.comparator is expr:
            comparison = self._parent(node, depth + 1)
            other = comparison.left if isinstance(comparison, cst.Comparison) and len(comparison.comparisons) == 1 else None
        else:
            return None
        if not isinstance(other, cst.Name) or not self._visible(other.value) or self._in_test(comparison):
            return None
        operator = comparison.comparisons[0].operator
        if not isinstance(operator, (cst.LessThan, cst.LessThanEqual, cst.GreaterThan, cst.GreaterThanEqual)):
            return None  # ==, !=, is, in: left to the general rule (a Python value)
        return ScalarUse("compare", short(comparison), other=other.value)

    def _bound_around(self) -> set[str]:
        """Names bound by the nested defs and lambdas around the node being visited."""
        bound: set[str] = set()
        for outer in self.stack:
            if isinstance(outer, (cst.FunctionDef, cst.Lambda)):
                bound.update(local_bindings(outer))
        return bound

    def _variable_method_use(self, call: cst.Call, arg: cst.Arg) -> ScalarUse | None:
        """``history.scatter_nd_update([[epoch]], [loss])`` on a module-level ``tf.Variable``: TensorFlow
        converts the indices (and values) with ``tf.convert_to_tensor``, which packs scalar tensors."""
        func = call.func
        if not isinstance(func, cst.Attribute):
            return None
        receiver = func.value
        if isinstance(receiver, cst.Attribute) and isinstance(receiver.value, cst.Name):
            root, dotted = receiver.value.value, f"{receiver.value.value}.{receiver.attr.value}"
        elif isinstance(receiver, cst.Name):
            root = dotted = receiver.value
        else:
            return None
        if dotted not in self.variables or root in self._bound_around():
            return None
        method = func.attr.value
        if arg.star:
            return None
        if method in VARIABLE_INDEX_METHODS:
            indices = arg.keyword.value == "indices" if arg.keyword is not None else call.args[0] is arg
            if indices:
                return ScalarUse("index", short(call))
            return ScalarUse("tf_arg", short(call))
        if method in VARIABLE_VALUE_METHODS:
            return ScalarUse("tf_arg", short(call))
        return None

    def _in_test(self, expr: cst.CSTNode) -> bool:
        """Is ``expr`` (the name, or the expression of it being classified) the test of a Python
        ``if``/``while``/conditional expression, alone or inside comparisons, ``and``/``or``/``not``?"""
        current = expr
        while True:
            up = self._parent_of(current)
            if isinstance(up, (cst.Comparison, cst.ComparisonTarget, cst.BooleanOperation)) or (
                isinstance(up, cst.UnaryOperation) and isinstance(up.operator, cst.Not)
            ):
                current = up
                continue
            return isinstance(up, (cst.If, cst.While, cst.IfExp)) and up.test is current

    def _parent_of(self, node: cst.CSTNode) -> cst.CSTNode | None:
        for i in range(len(self.stack) - 1, 0, -1):
            if self.stack[i] is node:
                return self.stack[i - 1]
        return None

    def _call_use(self, call: cst.Call, arg: cst.Arg, expr, node, depth: int, float_op: bool) -> ScalarUse:
        qualified = self.scope.qualify(call.func)
        keyword = arg.keyword.value if arg.keyword is not None else None
        positional = keyword is None and not arg.star
        if qualified == "builtins.range" and positional:
            loop = self._parent(node, depth + 2)
            if isinstance(loop, cst.For) and loop.iter is call:
                blockers = tuple(self.loop_blockers(loop, self.scope))
                return ScalarUse("range", f"for {short(loop.target)} in {short(call)}", blockers=blockers)
            return ScalarUse("other", short(call))
        if qualified == "tensorflow.range":
            return ScalarUse("tf_range", short(call), float_op=float_op)
        if qualified == "tensorflow.cast" and call.args and call.args[0] is arg:
            target = call.args[1].value if len(call.args) > 1 and call.args[1].keyword is None else None
            for other in call.args:
                if other.keyword is not None and other.keyword.value == "dtype":
                    target = other.value
            dotted = (self.scope.qualify(target) or short(target)) if target is not None else None
            return ScalarUse("cast", short(call), dtype=dotted.rsplit(".", 1)[-1] if dotted else None)
        if (
            isinstance(call.func, cst.Attribute)
            and call.func.attr.value in _VARIABLE_METHODS
            and positional
            and call.args[0] is arg
        ):
            # `variable.assign(n)`: a tf.Variable converts the number (or takes a tensor of its dtype)
            return ScalarUse("tf_arg", short(call))
        if qualified in _RANDOM_APIS and keyword in _RANDOM_KEYWORDS:
            dtype = None
            for other in call.args:
                if other.keyword is not None and other.keyword.value == "dtype":
                    dotted = self.scope.qualify(other.value) or short(other.value)
                    dtype = dotted.rsplit(".", 1)[-1]
            return ScalarUse("random_kw", short(call), dtype=dtype)
        if is_tf_api(qualified):
            return ScalarUse("tf_arg", short(call), needs_python=_needs_python(qualified, keyword))
        callee = self.project_function(call.func) if not arg.star else None
        if callee is not None:  # the user's own code: a run of the program proves whether it takes a tensor
            return ScalarUse("project_call", short(call), other=callee)
        return ScalarUse("other", short(call))


def _needs_python(qualified: str | None, keyword: str | None) -> bool:
    return qualified in _NEEDS_PYTHON or keyword in _NEEDS_PYTHON_KEYWORDS


def is_tf_api(qualified: str | None) -> bool:
    return bool(qualified) and qualified.startswith("tensorflow.") and qualified != "tensorflow.function"


def _is_number(node: cst.CSTNode) -> bool:
    if isinstance(node, (cst.Integer, cst.Float)):
        return True
    return isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus) and isinstance(node.expression, (cst.Integer, cst.Float))


def _index_of(subscript: cst.Subscript) -> frozenset | None:
    if len(subscript.slice) != 1:
        return None
    index = subscript.slice[0].slice
    if not isinstance(index, cst.Index):
        return None
    value = index.value
    if isinstance(value, cst.Integer):
        return frozenset({int(value.value, 0)})
    if isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Minus) and isinstance(value.expression, cst.Integer):
        return frozenset({-int(value.expression.value, 0)})
    return None


def _statement_of(stack: list[cst.CSTNode], node: cst.CSTNode | None) -> cst.CSTNode | None:
    """The innermost small statement / compound-statement header around the use, for messages."""
    if node is None:
        return None
    for candidate in reversed(stack):
        if isinstance(candidate, (cst.If, cst.While)):
            return candidate.test
        if isinstance(candidate, cst.BaseSmallStatement):
            return candidate
    return node


def body_facts(node: cst.FunctionDef, params: set[str], scope: Scope, tensor_names: set[str] = frozenset(),
               project_function: Callable[[cst.BaseExpression], str | None] | None = None, *,
               dense_names: set[str] | None = None, variables: set[str] = frozenset()) -> BodyFacts:
    """What ``node``'s body does with ``params``; ``tensor_names``: parameters that hold tensors;
    ``project_function``: the dotted name of a callee that is a function of the user's project, else None;
    ``dense_names``: the parameters that hold dense tensors (default ``tensor_names``), which a scalar
    int tensor may index; ``variables``: module-level names (``history``) and ``self`` attributes
    (``self.history``) provably bound to a ``tf.Variable``."""

    def blockers(loop: cst.For, loop_scope: Scope) -> list[str]:
        return loop_blockers_for(loop, loop_scope, node, tensor_names)

    scope.push_function(node)
    try:
        collector = _BodyFactsCollector(params, scope, blockers)
        collector.local_names = _names_bound_inside(node) - _param_names(node)
        if project_function is not None:
            collector.project_function = project_function
        rebound = rebound_names(node)
        collector.variables = {v for v in variables if v.split(".")[0] not in rebound}
        node.body.visit(collector)
        dense = set(tensor_names if dense_names is None else dense_names) - collector.facts.reassigned
        for uses, position, value, text, bound in collector.pending_indices:
            shadowed = any(name in bound for name in _names_read(value))
            if shadowed or not is_indexable_tensor(value, scope, dense):
                uses[position] = ScalarUse("other", text)
    finally:
        scope.pop_function()
    return collector.facts


def _names_read(expr: cst.BaseExpression) -> set[str]:
    found: set[str] = set()

    class _V(cst.CSTVisitor):
        def visit_Name(self, name: cst.Name) -> None:
            found.add(name.value)

    expr.visit(_V())
    return found


def _param_names(node: cst.FunctionDef | cst.Lambda) -> set[str]:
    return {p.name.value for p in all_params(node.params)}


def _names_bound_inside(node: cst.FunctionDef) -> set[str]:
    """Names bound in ``node`` and in the defs and lambdas nested in it (their parameters included)."""
    found: set[str] = set(local_bindings(node))

    class _Nested(cst.CSTVisitor):
        def visit_FunctionDef(self, inner: cst.FunctionDef) -> None:
            found.update(local_bindings(inner))

        def visit_Lambda(self, inner: cst.Lambda) -> None:
            found.update(local_bindings(inner))

    node.body.visit(_Nested())
    return found


def loop_blockers_for(loop: cst.For, scope: Scope, function: cst.FunctionDef, tensor_names: set[str]) -> list[str]:
    """Why ``loop`` is not safe with a tensor bound (RTF001's analysis), one line each.

    The bound parameter counts as a tensor name: it is the one about to get a
    ``TensorSpec([], tf.int32)`` slot.
    """
    call = loop.iter
    bound = {a.value.value for a in getattr(call, "args", ()) if isinstance(a.value, cst.Name)}
    found = loop_blockers(loop, scope, function=function, tensor_names=set(tensor_names) | bound)
    return [getattr(b, "reason", str(b)) for b in found]
