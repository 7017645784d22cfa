"""Shared by the trace-driven codemods (RTF003 input-signature, RTF004 reduce-retracing).

* match a recorded function to its ``def`` (project-relative file + qualified
  name, falling back to the first line: ``co_firstlineno`` is the first
  decorator's line);
* read what the source says (:class:`~retrace_fix.traces.generalize.SourceInfo`):
  parameters and literal defaults, ``self`` of methods, an existing signature,
  and what the body does with each parameter (Python-scalar uses, static-shape
  reads, reassignments);
* hand both to :func:`retrace_fix.traces.generalize.plan_signature`;
* small LibCST helpers to add a keyword to a ``tf.function`` spelling.

Never imports TensorFlow.
"""

from __future__ import annotations

import ast
import os
import re
from typing import TYPE_CHECKING, Any, Callable

import libcst as cst

from retrace_fix.analysis import TfFunctionSite, qualnames
from retrace_fix.codemods._callsites import ModuleCalls
from retrace_fix.codemods._loop_safety import loop_blockers
from retrace_fix.codemods._rewritten import rewrite_reason, rewritten_by
from retrace_fix.node_text import code_of
from retrace_fix.tfnames import (BUILTIN_NAMES, ImportTable, Scope, all_params, canonical, dotted_name, local_bindings,
                                 named_params)
from retrace_fix.traces.generalize import (
    NO_LITERAL,
    TENSOR_KINDS,
    BodyFacts,
    ParamInfo,
    ScalarUse,
    ShapeRead,
    SignaturePlan,
    SourceInfo,
    plan_signature,
    summarize,
)
from retrace_fix.traces.model import FunctionTraces

if TYPE_CHECKING:  # pragma: no cover
    from retrace_fix.codemods._base import RetraceCodemod

_PLAN_KEY = "retrace_fix.trace_plans"
_TRACED_KEY = "retrace_fix.traced_functions"

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
#: clocks a tf.function body reads while tracing (RTF102), and what to use in graph code instead
CLOCKS = {
    "time.time": "tf.timestamp()",
    "time.time_ns": "tf.timestamp()",
    "time.perf_counter": "tf.timestamp()",
    "time.perf_counter_ns": "tf.timestamp()",
    "time.monotonic": "tf.timestamp()",
    "time.monotonic_ns": "tf.timestamp()",
    "time.process_time": "tf.timestamp()",
    "time.clock": "tf.timestamp()",
    "datetime.datetime.now": "tf.timestamp()",
    "datetime.datetime.utcnow": "tf.timestamp()",
    "datetime.datetime.today": "tf.timestamp()",
    "datetime.date.today": "tf.timestamp()",
}


def draws_at_trace_time(qualified: str | None) -> bool:
    """A clock or random draw: its value is frozen into each trace, so a fix that changes how often the
    function traces changes how often it is drawn, and with it the results."""
    return bool(qualified) and (qualified in CLOCKS or qualified.startswith(("random.", "numpy.random.")))


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


def short(node: cst.CSTNode, limit: int = 60) -> str:
    text = " ".join(code_of(node).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


# --------------------------------------------------------------------------- parameters


def literal_default(node: cst.BaseExpression | None) -> Any:
    if node is None:
        return NO_LITERAL
    try:
        value = ast.literal_eval(code_of(node).strip())
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return NO_LITERAL
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return NO_LITERAL


def param_infos(node: cst.FunctionDef) -> list[ParamInfo]:
    params = node.params
    infos: list[ParamInfo] = []
    for param in named_params(params, keyword_only=False):
        infos.append(ParamInfo(param.name.value, "positional", param.default is not None, literal_default(param.default)))
    if isinstance(params.star_arg, cst.Param):
        infos.append(ParamInfo(params.star_arg.name.value, "var_positional"))
    for param in params.kwonly_params:
        infos.append(ParamInfo(param.name.value, "keyword_only", param.default is not None, literal_default(param.default)))
    if isinstance(params.star_kwarg, cst.Param):
        infos.append(ParamInfo(params.star_kwarg.name.value, "var_keyword"))
    return infos


def site_keywords(site: TfFunctionSite) -> dict[str, cst.Arg]:
    """Keyword arguments already given to the ``tf.function(...)`` of this site."""
    return site.keywords()


def _method_info(node: cst.FunctionDef, site: TfFunctionSite, scope: Scope, infos: list[ParamInfo]) -> tuple[str | None, str | None]:
    """(parameter TensorFlow skips, problem) for methods."""
    if site.class_name is None:
        return None, None
    if site.form == "wrap-call":
        # tf.function(self._step): a bound method, its first parameter is already bound
        return (infos[0].name if infos else None), None
    kinds = set()
    for decorator in node.decorators:
        name = scope.qualify(decorator.decorator)
        if name in ("builtins.staticmethod", "builtins.classmethod"):
            kinds.add(name.split(".")[1])
    if "staticmethod" in kinds:
        return None, None
    if not infos or infos[0].kind != "positional":
        return None, None
    first = infos[0].name
    if "classmethod" in kinds:
        return first, f"`{first}` of a classmethod is not skipped by TensorFlow (only a parameter named `self` is)"
    if first != "self":
        return first, f"the first parameter `{first}` is not named `self` (TensorFlow skips `self` by name only)"
    return "self", None


# --------------------------------------------------------------------------- the body


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
        if isinstance(parent, cst.Element):
            container = self._parent(node, depth + 1)
            arg = self._parent(node, depth + 2)
            call = self._parent(node, depth + 3)
            if (
                isinstance(container, (cst.List, cst.Tuple))
                and isinstance(arg, cst.Arg)
                and isinstance(call, cst.Call)
                and _is_tf_api(self.scope.qualify(call.func))
            ):
                keyword = arg.keyword.value if arg.keyword is not None else None
                uses.append(ScalarUse("tf_arg", short(call), needs_python=_needs_python(self.scope.qualify(call.func), keyword)))
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
        if _is_tf_api(qualified):
            return ScalarUse("tf_arg", short(call), needs_python=_needs_python(qualified, keyword))
        callee = self.project_function(call.func) if not arg.star else None
        if callee is not None:  # the user's own code: a run of the program proves whether it takes a tensor
            return ScalarUse("project_call", short(call), other=callee)
        return ScalarUse("other", short(call))


def _needs_python(qualified: str | None, keyword: str | None) -> bool:
    return qualified in _NEEDS_PYTHON or keyword in _NEEDS_PYTHON_KEYWORDS


def _is_tf_api(qualified: str | None) -> bool:
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
               project_function: Callable[[cst.BaseExpression], str | None] | None = None) -> BodyFacts:
    """What ``node``'s body does with ``params``; ``tensor_names``: parameters that hold tensors;
    ``project_function``: the dotted name of a callee that is a function of the user's project, else None."""

    def blockers(loop: cst.For, loop_scope: Scope) -> list[str]:
        return loop_blockers_for(loop, loop_scope, node, tensor_names)

    scope.push_function(node)
    try:
        collector = _BodyFactsCollector(params, scope, blockers)
        collector.local_names = _names_bound_inside(node) - _param_names(node)
        if project_function is not None:
            collector.project_function = project_function
        node.body.visit(collector)
    finally:
        scope.pop_function()
    return collector.facts


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


# --------------------------------------------------------------------------- matching traces


def match_traces(codemod: "RetraceCodemod", node: cst.FunctionDef, qualname: str, unique: bool):
    """The recorded FunctionTraces of ``node``, or None."""
    traces = codemod.settings.traces
    relpath = codemod.settings.relpath
    if traces is None or not relpath:
        return None
    analysis = codemod.analysis
    first_line = analysis.line_of(node.decorators[0] if node.decorators else node)
    if unique:
        found = traces.find(relpath, qualname, first_line)
    else:
        found = [f for f in traces.find(relpath, qualname=qualname) if f.firstlineno == first_line]
    if not found:
        found = [f for f in traces.find(relpath, line=first_line) if f.name == node.name.value]
    return found[0] if len(found) == 1 else None


def traced_functions(codemod: "RetraceCodemod") -> dict[cst.FunctionDef, FunctionTraces]:
    """The recorded traces of every tf.function of this tree (cached per tree).

    Functions whose parameters differ from the recorded ones (the code changed
    since recording) are left out.  RTF003, RTF004 and RTF106 share this lookup.
    """
    analysis = codemod.analysis
    cache = codemod.context.scratch.get(_TRACED_KEY)
    if cache is not None and cache[0] is analysis.module:
        return cache[1]
    result: dict[cst.FunctionDef, FunctionTraces] = {}
    if codemod.settings.traces is not None and analysis.tf_functions:
        names = qualnames(analysis.module)
        counts: dict[str, int] = {}
        for name in names.values():
            counts[name] = counts.get(name, 0) + 1
        for node in analysis.tf_functions:
            qualname = names.get(node)
            if qualname is None:
                continue
            function = match_traces(codemod, node, qualname, counts[qualname] == 1)
            if function is None:
                continue
            if function.params and function.params != [p.name for p in param_infos(node)]:
                continue  # the code changed since recording
            result[node] = function
    codemod.context.scratch[_TRACED_KEY] = (analysis.module, result)
    return result


def matched_keys(scratch: dict) -> list | None:
    """The keys of the recorded functions matched in the tree (None: nothing looked them up)."""
    cache = scratch.get(_TRACED_KEY)
    if cache is None:
        return None
    return sorted({function.key for function in cache[1].values()})


def traced_dims(function: FunctionTraces, param: str) -> tuple[frozenset | None, dict] | None:
    """The dimensions of tensor parameter ``param`` that ``reduce_retracing`` turns to ``None``.

    Those are the dimensions whose static size differed between the recorded
    traces (a size recorded as ``None`` counts as a size of its own): TensorFlow
    generalises each later trace to the most specific shape common with the
    earlier ones, so a dimension that never varied keeps its size.  This is the
    same notion of "varies" RTF004 checks static-shape reads against.

    Returns ``(dims, sizes)``: ``dims`` None means every dimension (the rank
    varied or was unknown), ``sizes`` maps a dimension to the sizes seen, in
    first-seen order.  A parameter that was never a tensor gets
    ``(frozenset(), {})``; None when no trace records ``param`` at all.
    """
    descs = [trace.args[param] for trace in function.traces if param in trace.args]
    if not descs:
        return None
    tensors = [desc for desc in descs if desc.get("kind") in TENSOR_KINDS]
    if not tensors:
        return frozenset(), {}  # a Python value, an object, a container, a variable: no shape to relax
    if len({desc.get("kind") for desc in tensors}) > 1:
        return None, {}  # tensor and ragged/sparse in different calls: nothing is known per dimension
    summary = summarize(tensors, param)
    return summary.varying_dims, dict(summary.dim_values)


def plans(codemod: "RetraceCodemod") -> dict[cst.FunctionDef, SignaturePlan]:
    """The signature plan of every recorded tf.function of this tree (cached per tree)."""
    analysis = codemod.analysis
    cache = codemod.context.scratch.get(_PLAN_KEY)
    if cache is not None and cache[0] is analysis.module:
        return cache[1]
    result: dict[cst.FunctionDef, SignaturePlan] = {}
    if codemod.settings.traces is not None and analysis.tf_functions:
        scope = Scope(analysis.table)
        for node, function in traced_functions(codemod).items():
            site = analysis.tf_functions[node]
            infos = param_infos(node)
            skip_self, problem = _method_info(node, site, scope, infos)
            params = {p.name for p in infos if p.name != skip_self}
            tensor_names = {
                name
                for name in params
                if function.traces
                and all(t.args.get(name, {}).get("kind") in ("tensor", "ragged", "sparse") for t in function.traces)
            }
            sites = _call_sites(codemod, node)
            keywords = site_keywords(site)
            jit = keywords.get("jit_compile")
            autograph = keywords.get("autograph")
            source = SourceInfo(
                params=infos,
                skip_self=skip_self,
                method_problem=problem,
                has_signature="input_signature" in keywords,
                jit_compile=jit is not None and not (isinstance(jit.value, cst.Name) and jit.value.value in ("False", "None")),
                autograph=autograph is None or (isinstance(autograph.value, cst.Name) and autograph.value.value == "True"),
                tensor_at_call_sites=_tensor_at_call_sites(sites, scope),
                call_site_values=_explicit_values(sites),
                facts=body_facts(node, params, scope, tensor_names, project_functions(codemod, scope)),
                rewritten=_rewritten_note(codemod, node),
            )
            result[node] = plan_signature(function, source)
    codemod.context.scratch[_PLAN_KEY] = (analysis.module, result)
    return result


def project_functions(codemod: "RetraceCodemod", scope: Scope) -> Callable[[cst.BaseExpression], str | None]:
    """Which callees are functions of the user's own project: a def at the top of this module, a name
    imported relatively (``from .ops import double``) or from a module that is a file of the project
    (``from helpers import double``, ``import helpers`` then ``helpers.double``: ``helpers.py`` or
    ``helpers/`` beside the file or at the project root).  Returns the callee's dotted name, else None."""
    filename = codemod.context.filename
    relpath = codemod.settings.relpath
    module = codemod.analysis.module
    top_defs = {s.name.value for s in module.body if isinstance(s, cst.FunctionDef)}
    table = scope.table
    folders: list[str] = []
    if filename:
        here = os.path.dirname(os.path.abspath(filename))
        folders.append(here)
        if relpath and os.path.abspath(filename).replace(os.sep, "/").endswith("/" + relpath):
            root = os.path.abspath(filename)[: -len(relpath) - 1]
            if root and root != here:
                folders.append(root)
    found: dict[str, bool] = {}

    def in_project(top: str) -> bool:
        if top not in found:
            found[top] = bool(top) and any(
                os.path.isfile(os.path.join(f, top + ".py")) or os.path.isdir(os.path.join(f, top)) for f in folders)
        return found[top]

    def project_function(func: cst.BaseExpression) -> str | None:
        dotted = dotted_name(func)
        if dotted is None:
            return None
        head = dotted.split(".", 1)[0]
        if scope.is_local(head):
            return None  # a value of the function's own
        if table.aliases.get(head, "") is None:  # bound by a relative import
            return dotted
        if dotted == head and head in top_defs and head not in table.aliases:
            return dotted  # a function of this module
        qualified = scope.qualify(func)
        if qualified and "." in qualified and not _is_tf_api(qualified) and in_project(qualified.split(".", 1)[0]):
            return qualified
        return None

    return project_function


def _rewritten_note(codemod: "RetraceCodemod", node: cst.FunctionDef) -> str:
    """Why the recorded proofs do not cover ``node``'s body: a codemod of this run rewrote it, or ""."""
    code = rewritten_by(codemod.context.scratch, codemod.qualname(node))
    return rewrite_reason(code) if code is not None else ""


def _call_sites(codemod: "RetraceCodemod", node: cst.FunctionDef) -> list:
    """The calls of ``node`` in this module (RTF001's call-site analysis), or []."""
    calls = ModuleCalls.get(codemod.analysis, codemod.context.scratch)
    callee = calls.callable_for(node)
    return calls.calls_of(callee) if callee is not None else []


def _tensor_at_call_sites(sites: list, scope: Scope) -> frozenset:
    """Parameters that every call in this module passes as a TensorFlow op's result."""
    if not sites:
        return frozenset()
    params: set[str] | None = None
    for site in sites:
        tensors = {
            name
            for name, expr in site.args.items()
            if isinstance(expr, cst.Call) and _is_tf_api(scope.qualify(expr.func))
        }
        params = tensors if params is None else params & tensors
    return frozenset(params or ())


def _explicit_values(sites: list) -> dict[str, list]:
    """Per parameter: the values calls in this module pass explicitly (NO_LITERAL when not a literal)."""
    values: dict[str, list] = {}
    for site in sites:
        for name, expr in site.args.items():
            values.setdefault(name, []).append(literal_default(expr))
    return values


# --------------------------------------------------------------------------- editing


def tf_spelling(table: ImportTable) -> tuple[str | None, bool]:
    """(how to spell ``tensorflow`` in a module, whether ``import`` of it must be added); (None, False)
    when the module imports no TensorFlow and both ``tf`` and ``tensorflow`` are taken."""
    for local, target in sorted(table.aliases.items()):
        if canonical(f"{target}.TensorSpec") == "tensorflow.TensorSpec" and canonical(target) in (
            "tensorflow",
            "tensorflow.compat.v2",
        ):
            return local, False
    for candidate in ("tf", "tensorflow"):
        if candidate not in table.aliases and candidate not in table.rebound and candidate not in BUILTIN_NAMES:
            return candidate, True
    return None, False


def call_arg_indent(expr: cst.BaseExpression) -> str | None:
    """The indentation of the arguments of a call written one argument per line, else None."""
    if isinstance(expr, cst.Call) and isinstance(expr.whitespace_before_args, cst.ParenthesizedWhitespace):
        return expr.whitespace_before_args.last_line.value
    return None


def add_keyword(expr: cst.BaseExpression, keyword: str, value: cst.BaseExpression) -> cst.Call:
    """``tf.function`` → ``tf.function(kw=value)``; ``tf.function(a)`` → ``tf.function(a, kw=value)``.

    A call written one argument per line gets the new argument on its own line,
    before the closing parenthesis; comments stay on the lines they were on.
    """
    new_arg = cst.Arg(
        value=value,
        keyword=cst.Name(keyword),
        equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")),
    )
    if not isinstance(expr, cst.Call):
        return cst.Call(func=expr, args=[new_arg])
    args = list(expr.args)
    if not args:
        return expr.with_changes(args=[new_arg])
    last = args[-1]
    indent = call_arg_indent(expr)
    if isinstance(last.comma, cst.Comma):
        after = last.comma.whitespace_after
        if isinstance(after, cst.ParenthesizedWhitespace) and indent is not None:
            # `    last=1,  # note\n)` -> `    last=1,  # note\n    kw=value,\n)`
            args[-1] = last.with_changes(
                comma=last.comma.with_changes(whitespace_after=after.with_changes(last_line=cst.SimpleWhitespace(indent)))
            )
            closing = cst.ParenthesizedWhitespace(
                first_line=cst.TrailingWhitespace(), empty_lines=[], indent=after.indent, last_line=after.last_line
            )
            new_arg = new_arg.with_changes(comma=cst.Comma(whitespace_after=closing))
        args.append(new_arg)
    elif indent is not None and isinstance(last.whitespace_after_arg, cst.ParenthesizedWhitespace):
        # `    last=1\n)` -> `    last=1,\n    kw=value\n)`
        before_close = last.whitespace_after_arg
        args[-1] = last.with_changes(
            comma=cst.Comma(
                whitespace_after=cst.ParenthesizedWhitespace(
                    first_line=cst.TrailingWhitespace(), empty_lines=[], indent=before_close.indent,
                    last_line=cst.SimpleWhitespace(indent),
                )
            ),
            whitespace_after_arg=cst.SimpleWhitespace(""),
        )
        args.append(new_arg.with_changes(whitespace_after_arg=before_close))
    else:
        args[-1] = last.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        args.append(new_arg)
    return expr.with_changes(args=args)


# --------------------------------------------------------------------------- messages

#: one finding, one line: the text line of a trace-driven finding stays about this long
MAX_MESSAGE = 160
_LEADING_PARAM = re.compile(r"^`([^`]+)`")


def _param_of(text: str) -> str | None:
    found = _LEADING_PARAM.match(text)
    return found.group(1) if found else None


def clauses(plan: SignaturePlan) -> list[tuple[str | None, str, bool]]:
    """What keeps ``plan`` from a signature, one clause per parameter: ``(param, text, blocking)``.

    ``blocking``: the clause, not only a variation, keeps the signature from being written.  A
    blocker replaces the clause saying that the same parameter varied, keeping its values.
    """
    order: list[str] = []
    texts: dict[str, str] = {}
    params: dict[str, str | None] = {}
    varied: dict[str, str] = {}
    blocking: set[str] = set()
    for text in plan.problems:
        param = _param_of(text)
        key = param or text
        if key not in texts:
            order.append(key)
            texts[key], params[key], varied[key] = text, param, text
    for param, text in plan.blockers:
        key = param or text
        if key not in texts:
            # the very clause a problem already lists (an item of a container, `xs[0]`): once
            key = next((k for k, listed in varied.items() if listed == text), key)
        if key in blocking:
            continue
        blocking.add(key)
        params[key] = param
        if key not in texts:
            order.append(key)
        elif key in varied and param is not None:
            problem = varied[key]
            head = f"`{param}`: "
            if problem != text and problem.startswith(head) and text.startswith(f"`{param}` "):
                values = re.sub(r" varies \((.*)\)$", r" \1", problem[len(head):])
                text = f"`{param}` ({values})" + text[len(param) + 2:]
        texts[key] = text
    return [(params[key], texts[key], key in blocking) for key in order]


def joined(items) -> str:
    """Clauses joined with ``; `` (a clause ending with a full stop, like an error message, loses it)."""
    return "; ".join(item[:-1] if item.endswith(".") and not item.endswith("..") else item for item in items)


def short_list(items: list[str], limit: int = 2) -> str:
    """``a; b (+3 more)``"""
    shown = "; ".join(items[:limit])
    return shown + (f" (+{len(items) - limit} more)" if len(items) > limit else "")


def one_line(text: str, limit: int = MAX_MESSAGE) -> str:
    """``text`` within ``limit`` characters: first without its parenthesised values (``(Python int
    1, 2, 3)``, the reason keeps them), then cut at a clause boundary (or a word)."""
    while len(text) > limit:
        shorter = re.sub(r" \((?:Python|`)[^()]*(?:\([^()]*\))?[^()]*\)", "", text, count=1)
        if shorter == text:
            break
        text = shorter
    if len(text) <= limit:
        return text
    cut = text.rfind("; ", 0, limit - 1)
    if cut < limit // 2:
        cut = text.rfind(" ", 0, limit - 1)
    return text[:cut].rstrip(" ;,:") + " …"
