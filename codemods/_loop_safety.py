"""Is a loop body safe when its loop variable becomes a tensor?

``for i in range(n)`` inside a tf.function is unrolled by AutoGraph: the body
runs ``n`` times *while tracing*, with ``i`` a Python int.  ``for i in
tf.range(n)`` (or ``range`` over a tensor, which AutoGraph converts) builds one
``tf.while_loop``: the body is traced once, with ``i`` a scalar ``int32``
tensor, and every value the body carries from one iteration to the next must be
a tensor of fixed dtype and shape.  Code that is fine in the first form breaks
in the second (all verified on TF 2.15-2.21, see
``docs/codemods/RTF001.md``):

* ``layers[i]`` / ``names[i]`` - a Python list indexed by a tensor
  (``TypeError: list indices must be integers or slices``);
* ``out.append(y)`` / ``out += [y]`` / ``d[k] = y`` - a Python container
  filled inside the graph loop (``InaccessibleTensorError``);
* ``if i == 0:`` / ``f"block_{i}"`` / ``str(i)`` - Python control flow or text
  built from the loop variable;
* ``x * i`` with a float ``x``, ``i / 2``, ``i * 0.5`` - int32 mixed with floats;
* ``tf.Variable(...)`` / Keras layer construction in the body (singleton
  variable error), ``print``/``logging``/``time``/``random`` and attribute
  writes (run once instead of ``n`` times);
* ``break``/``continue``/``return``/``for ... else``, nested ``def``/``lambda``;
* loop-carried values that start as Python numbers, ``None`` or containers, grow
  (``x = tf.concat([x, y], 0)``), or are first bound inside the loop and read
  after it.

:func:`loop_blockers` returns every such hazard it can see, each as a
:class:`Blocker` (the node, and a one-line reason naming it).  An empty list is
a proof - within what static analysis of one module can see - that the body
behaves the same with a tensor loop variable.  Calls into Python code the
analysis cannot see (``self.dense(x)``, ``helper(x)``) are blockers too.

The related question of RTF003 and RTF001, may an integer parameter become a
scalar ``int32`` tensor, is :mod:`retrace_fix.codemods._param_safety`'s; which
expressions are TensorFlow values, :mod:`retrace_fix.codemods._tf_values`'s;
what surrounds the loop, :mod:`retrace_fix.codemods._loop_context`'s.

Pure: it reads the CST and never imports TensorFlow.  Its signature is stable;
new checks only add blockers.
"""

from __future__ import annotations

from typing import Iterable, NamedTuple

import libcst as cst

from retrace_fix.codemods._graph_loop_hazards import (
    MUTATORS,
    PYTHON_INT_KEYWORDS,
    SIDE_EFFECT_PREFIXES,
    STATEMENT_BLOCKERS,
    TF_NEEDS_PYTHON_INT,
    TF_SHAPE_CHANGING,
)
from retrace_fix.codemods._loop_context import LoopContext
from retrace_fix.codemods._tf_values import (
    TF_NOT_AN_OP,
    ValueReads,
    is_tf_op,
    names_in,
    qualified_name,
    tf_valued_names,
)
from retrace_fix.node_text import short_code
from retrace_fix.tfnames import Scope

__all__ = ["Blocker", "loop_blockers", "statement_header"]


class Blocker(NamedTuple):
    """One reason a loop body is not safe for a tensor loop variable."""

    node: cst.CSTNode
    reason: str  # one line, names the code: "`layers[i]` indexes a Python list"
    #: the loop-carried name whose shape this statement changes every iteration (a graph loop
    #: carries it only with a shape invariant); None for every other hazard
    grows: str | None = None


def statement_header(node: cst.CSTNode) -> str:
    """The header of a compound statement (``if i == 0``), else the node's code."""
    if isinstance(node, cst.If):
        return "if " + short_code(node.test)
    if isinstance(node, cst.While):
        return "while " + short_code(node.test)
    if isinstance(node, cst.For):
        return f"for {short_code(node.target)} in {short_code(node.iter)}"
    if isinstance(node, cst.FunctionDef):
        return f"def {node.name.value}(...)"
    if isinstance(node, cst.ClassDef):
        return f"class {node.name.value}"
    if isinstance(node, cst.With):
        return "with " + ", ".join(short_code(item.item) for item in node.items)
    if isinstance(node, cst.Try):
        return "try"
    return short_code(node)


# --------------------------------------------------------------------------- the body checker


def _is_python_literal_value(e) -> str | None:
    """What kind of Python value an initial binding is, when it is not a tensor."""
    if isinstance(e, str):
        return {"python-loop": "a Python loop variable", "unknown": None, "param": None}.get(e)
    if isinstance(e, (cst.Integer, cst.Float, cst.Imaginary)):
        return "a Python number"
    if isinstance(e, cst.UnaryOperation) and isinstance(e.expression, (cst.Integer, cst.Float)):
        return "a Python number"
    if isinstance(e, cst.Name) and e.value in ("None", "True", "False"):
        return "None" if e.value == "None" else "a Python bool"
    if isinstance(e, (cst.List, cst.ListComp)):
        return "a Python list"
    if isinstance(e, (cst.Dict, cst.DictComp)):
        return "a Python dict"
    if isinstance(e, (cst.Set, cst.SetComp)):
        return "a Python set"
    if isinstance(e, cst.Tuple):
        return "a Python tuple"
    if isinstance(e, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)):
        return "a Python string"
    return None


class _BodyChecker(cst.CSTVisitor):
    def __init__(
        self,
        scope: Scope,
        loop: cst.For,
        function: cst.FunctionDef | None,
        tensor_names: set[str],
    ) -> None:
        self.scope = scope
        self.loop = loop
        self.function = function
        self.blockers: list[Blocker] = []
        self.tainted: set[str] = set()  # names holding an int value derived from the loop variable
        self.tf_names = tf_valued_names(function, scope, tensor_names)
        self.tensor_params = set(tensor_names)
        ctx = LoopContext(loop).run(function) if function is not None else None
        self.before = ctx.before if ctx is not None else None
        self.after_reads = ctx.after_reads if ctx is not None else set()
        self._bound_in_body: set[str] = set()
        self._reported_carried: set[str] = set()

    # -- helpers
    def block(self, node: cst.CSTNode, reason: str, grows: str | None = None) -> None:
        if not any(b.node is node and b.reason == reason for b in self.blockers):
            self.blockers.append(Blocker(node, reason, grows))

    def tainted_expr(self, e: cst.BaseExpression) -> bool:
        """Is ``e`` a Python-level value computed from the loop variable (int arithmetic etc.)?"""
        if isinstance(e, cst.Name):
            return e.value in self.tainted
        if isinstance(e, cst.BinaryOperation):
            # int arithmetic keeps the int taint (i + 1, 2 * i); anything else is
            # reported where it happens and does not propagate
            lt, rt = self.tainted_expr(e.left), self.tainted_expr(e.right)
            if lt and rt:
                return True
            if isinstance(e.operator, cst.Divide):
                return False
            return (lt and self.is_int(e.right)) or (rt and self.is_int(e.left))
        if isinstance(e, cst.UnaryOperation):
            return self.tainted_expr(e.expression)
        if isinstance(e, cst.Comparison):
            return self.tainted_expr(e.left) or any(self.tainted_expr(c.comparator) for c in e.comparisons)
        if isinstance(e, cst.BooleanOperation):
            return self.tainted_expr(e.left) or self.tainted_expr(e.right)
        if isinstance(e, cst.IfExp):
            return self.tainted_expr(e.body) or self.tainted_expr(e.orelse)
        if isinstance(e, cst.NamedExpr):
            return self.tainted_expr(e.value)
        return False

    def mentions_taint(self, e: cst.CSTNode) -> bool:
        """Does the loop variable reach ``e`` without passing through a TF op call?"""
        found = False
        checker = self

        class _V(ValueReads):
            def visit_Name(self, n: cst.Name) -> None:
                nonlocal found
                if n.value in checker.tainted:
                    found = True

            def visit_Call(self, n: cst.Call) -> bool:
                return not is_tf_op(checker.scope, n.func)

        e.visit(_V())
        return found

    def is_int(self, e: cst.BaseExpression) -> bool:
        if isinstance(e, cst.Integer):
            return True
        if isinstance(e, cst.UnaryOperation) and isinstance(e.expression, cst.Integer):
            return True
        if self.tainted_expr(e):
            return True
        if isinstance(e, cst.Subscript) and isinstance(e.value, cst.Call):
            return qualified_name(self.scope, e.value.func) == "tensorflow.shape"
        if isinstance(e, cst.Call):
            return qualified_name(self.scope, e.func) in ("tensorflow.size", "tensorflow.rank")
        return False

    def is_tf_receiver(self, e: cst.BaseExpression) -> bool:
        if isinstance(e, cst.Name):
            return e.value in self.tf_names
        if isinstance(e, cst.Call):
            return is_tf_op(self.scope, e.func) or (
                isinstance(e.func, cst.Attribute) and self.is_tf_receiver(e.func.value)
            )
        if isinstance(e, cst.Subscript):
            return self.is_tf_receiver(e.value)
        if isinstance(e, cst.BinaryOperation):
            return self.is_tf_receiver(e.left) or self.is_tf_receiver(e.right)
        return False

    # -- scope boundaries and control flow
    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self.block(node, f"`{statement_header(node)}` defines a function inside the loop body")
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        self.block(node, f"`{statement_header(node)}` defines a class inside the loop body")
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        self.block(node, f"`{short_code(node)}` creates a lambda inside the loop body")
        return False

    def on_visit(self, node: cst.CSTNode) -> bool:
        reason = STATEMENT_BLOCKERS.get(type(node).__name__)
        if reason is not None:
            self.block(node, reason.format(code=short_code(node), header=statement_header(node)))
        return super().on_visit(node)

    def visit_For(self, node: cst.For) -> bool:
        if node is self.loop:
            return True
        if node.orelse is not None:
            self.block(node, f"`{statement_header(node)}` has an `else` clause")
        if self.mentions_taint(node.iter):
            self.block(node, f"`{statement_header(node)}` loops over a Python range of the loop variable")
        it = node.iter
        if isinstance(it, cst.Call) and is_tf_op(self.scope, it.func):
            self.tainted |= names_in(node.target)
        else:
            self.tainted -= names_in(node.target)
        for name in names_in(node.target):
            self._bound_in_body.add(name)
        return True

    def visit_If(self, node: cst.If) -> None:
        if self.mentions_taint(node.test):
            self.block(node, f"`{statement_header(node)}` branches on the loop variable in Python")

    def visit_IfExp(self, node: cst.IfExp) -> None:
        if self.mentions_taint(node.test):
            self.block(node, f"`{short_code(node)}` chooses a value with a Python test on the loop variable")

    def visit_Assert(self, node: cst.Assert) -> None:
        if self.mentions_taint(node.test):
            self.block(node, f"`{short_code(node)}` asserts on the loop variable in Python")

    def visit_BooleanOperation(self, node: cst.BooleanOperation) -> None:
        if self.tainted_expr(node.left) or self.tainted_expr(node.right):
            self.block(node, f"`{short_code(node)}` uses `and`/`or` on the loop variable")

    def visit_UnaryOperation(self, node: cst.UnaryOperation) -> None:
        if isinstance(node.operator, cst.Not) and self.tainted_expr(node.expression):
            self.block(node, f"`{short_code(node)}` uses `not` on the loop variable")

    def visit_FormattedString(self, node: cst.FormattedString) -> None:
        if self.mentions_taint(node):
            self.block(node, f"`{short_code(node)}` formats the loop variable into a string")

    # -- expressions
    def visit_Subscript(self, node: cst.Subscript) -> None:
        uses = False
        for element in node.slice:
            s = element.slice
            if isinstance(s, cst.Index):
                uses = uses or self.mentions_taint(s.value)
            elif isinstance(s, cst.Slice):
                uses = uses or any(
                    part is not None and self.mentions_taint(part) for part in (s.lower, s.upper, s.step)
                )
        if not uses:
            return
        if self.is_tf_receiver(node.value):
            return
        self.block(node, f"`{short_code(node)}` indexes a Python list (or tuple/dict) with the loop variable")

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        self._check_arith(node, node.left, node.operator, node.right)

    def _check_arith(self, node, left, operator, right) -> None:
        lt, rt = self.tainted_expr(left), self.tainted_expr(right)
        if not (lt or rt):
            return
        if isinstance(operator, cst.Divide):
            self.block(node, f"`{short_code(node)}` divides the loop variable: Python gives a float, "
                             "an int32 tensor gives float64")
            return
        other = right if lt else left
        if lt and rt:
            return
        if isinstance(other, (cst.Float, cst.Imaginary)) or (
            isinstance(other, cst.UnaryOperation) and isinstance(other.expression, cst.Float)
        ):
            self.block(node, f"`{short_code(node)}` mixes the loop variable with a Python float "
                             "(an int32 tensor cannot be multiplied by a float)")
            return
        if self.is_int(other):
            return
        self.block(node, f"`{short_code(node)}` mixes the loop variable with `{short_code(other)}` of unknown "
                         "dtype (a tensor loop variable is int32; cast it with `tf.cast`)")

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        q = qualified_name(self.scope, func)
        shown = short_code(node)
        if q is not None and q.startswith(SIDE_EFFECT_PREFIXES):
            self.block(node, f"`{shown}` is a Python side effect: it would run once per trace, "
                             "not once per iteration")
            return
        if isinstance(func, cst.Attribute) and func.attr.value in MUTATORS and not self.is_tf_receiver(func.value):
            self.block(node, f"`{shown}` mutates a Python container inside the loop "
                             "(a graph loop cannot fill it; use tf.TensorArray)")
            return
        if q == "tensorflow.Variable":
            self.block(node, f"`{shown}` creates a tf.Variable inside the loop")
            return
        if q is not None and q.startswith("keras.") and q.rsplit(".", 1)[-1][:1].isupper():
            self.block(node, f"`{shown}` constructs a Keras object (and its variables) inside the loop")
            return
        if q is not None and q.startswith("tensorflow.") and q not in TF_NOT_AN_OP:
            if q in TF_NEEDS_PYTHON_INT and any(self.mentions_taint(a.value) for a in node.args):
                self.block(node, f"`{shown}` needs a Python int where the loop variable is passed")
            elif any(
                a.keyword is not None and a.keyword.value in PYTHON_INT_KEYWORDS and self.mentions_taint(a.value)
                for a in node.args
            ):
                self.block(node, f"`{shown}` needs a Python value where the loop variable is passed")
            return
        if q is not None and q.startswith("builtins."):
            if any(self.mentions_taint(a.value) for a in node.args):
                self.block(node, f"`{shown}` needs a Python value where the loop variable is passed")
            return
        if isinstance(func, cst.Attribute):
            if self.tainted_expr(func.value):
                self.block(node, f"`{shown}` calls a Python method on the loop variable")
                return
            if self.is_tf_receiver(func.value):
                if func.attr.value in ("numpy", "item", "tolist"):
                    self.block(node, f"`{shown}` needs an eager value")
                return
        self.block(node, f"`{shown}` calls Python code retrace-fix cannot see into (it would run once "
                         "per trace, not once per iteration)")

    # -- statements that bind
    def _check_store(self, target: cst.BaseExpression, value: cst.BaseExpression | None, stmt) -> None:
        if isinstance(target, cst.Subscript):
            self.block(stmt, f"`{short_code(stmt)}` writes into `{short_code(target.value)}` (item assignment "
                             "in a graph loop)")
            return
        if isinstance(target, cst.Attribute):
            self.block(stmt, f"`{short_code(stmt)}` sets an attribute inside the loop (a Python side effect)")
            return
        if isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._check_store(element.value, None, stmt)
            return
        if isinstance(target, cst.StarredElement):
            self._check_store(target.value, None, stmt)
            return
        if not isinstance(target, cst.Name):
            return
        name = target.value
        if self.before is None:
            return
        if name in self.before:
            self._check_carried(name, value, stmt)
        elif name in self.after_reads and name not in self._bound_in_body:
            self.block(stmt, f"`{name}` is first assigned inside the loop and read after it")
        self._bound_in_body.add(name)

    def _check_carried(self, name: str, value, stmt) -> None:
        if name == _target_name(self.loop):
            return
        initial = self.before[name] if self.before is not None else "unknown"
        kind = _is_python_literal_value(initial)
        if kind is None and initial == "param" and name not in self.tensor_params:
            kind = "a parameter of unknown type"
        if kind is None and isinstance(initial, cst.BaseExpression) and not self.is_tf_receiver(initial):
            kind = "a value of unknown type"
        if kind is not None and name not in self._reported_carried:
            self._reported_carried.add(name)
            self.block(stmt, f"`{name}` is {kind} before the loop and changes inside it (a graph loop "
                             "carries it as a tensor of fixed dtype)")
        if value is not None and self._changes_shape(name, value):
            self.block(stmt, f"`{short_code(stmt)}` changes the shape of `{name}` every iteration", grows=name)

    def _changes_shape(self, name: str, value: cst.BaseExpression) -> bool:
        checker = self
        found = False

        class _V(cst.CSTVisitor):
            def visit_Call(self, n: cst.Call) -> None:
                nonlocal found
                q = qualified_name(checker.scope, n.func) or ""
                short = q.rsplit(".", 1)[-1]
                if q.startswith("tensorflow.") and short in TF_SHAPE_CHANGING:
                    names = set()
                    for a in n.args:
                        names |= names_in(a.value)
                    if name in names or any(checker.mentions_taint(a.value) for a in n.args):
                        found = True

            def visit_Subscript(self, n: cst.Subscript) -> None:
                nonlocal found
                slices = [e.slice for e in n.slice if isinstance(e.slice, cst.Slice)]
                if not slices:
                    return
                if name in names_in(n.value):
                    found = True  # acc = acc[1:]
                for s in slices:
                    if any(part is not None and checker.mentions_taint(part) for part in (s.lower, s.upper, s.step)):
                        found = True  # acc = x[:i]

            def visit_List(self, n: cst.List) -> None:
                nonlocal found
                if checker.mentions_taint(n):
                    found = True

        value.visit(_V())
        return found

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._check_store(target.target, node.value, node)

    def leave_Assign(self, original_node: cst.Assign) -> None:
        tainted = self.tainted_expr(original_node.value)
        for target in original_node.targets:
            names = names_in(target.target) if isinstance(target.target, (cst.Name, cst.Tuple, cst.List)) else set()
            if tainted and isinstance(target.target, cst.Name):
                self.tainted |= names
            else:
                self.tainted -= names
                if self.is_tf_receiver(original_node.value):
                    self.tf_names |= names

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self._check_store(node.target, node.value, node)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        target = node.target
        if isinstance(target, cst.Name):
            initial = self.before.get(target.value) if self.before is not None else None
            if _is_python_literal_value(initial) in ("a Python list", "a Python tuple", "a Python string"):
                self.block(node, f"`{short_code(node)}` grows a Python {_is_python_literal_value(initial)[9:]} "
                                 "inside the loop")
                return
            if target.value not in self.tainted:
                self._check_arith(node, target, _aug_operator(node.operator), node.value)
        self._check_store(target, node.value, node)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._check_store(node.target, node.value, node)


def _aug_operator(op: cst.BaseAugOp) -> cst.BaseBinaryOp:
    return cst.Divide() if isinstance(op, cst.DivideAssign) else cst.Add()


def _target_name(loop: cst.For) -> str | None:
    return loop.target.value if isinstance(loop.target, cst.Name) else None


def loop_blockers(
    for_node: cst.For,
    scope: Scope,
    *,
    function: cst.FunctionDef | None = None,
    tensor_names: Iterable[str] = (),
) -> list[Blocker]:
    """Every reason ``for_node``'s body is unsafe with a scalar int32 tensor loop variable.

    ``scope`` resolves names (``tf``, ``print``, ``np.random``); it should have the
    enclosing function(s) pushed, as ``RetraceCodemod.scope`` does while visiting.
    ``function`` is the innermost ``def`` containing the loop: pass it to enable
    the loop-carried checks (values bound before the loop, names read after it);
    without it those checks are skipped.  ``tensor_names`` are names known to
    hold tensors (parameters with a TensorSpec slot or tensor traces).

    Returns blockers in source order of discovery; an empty list means safe.
    """
    checker = _BodyChecker(scope, for_node, function, set(tensor_names))
    if not isinstance(for_node.target, cst.Name):
        checker.block(for_node.target, f"the loop target `{short_code(for_node.target)}` is not a single name")
    else:
        checker.tainted.add(for_node.target.value)
        if for_node.target.value in checker.after_reads:
            checker.block(for_node, f"the loop variable `{for_node.target.value}` is read after the loop")
    if for_node.orelse is not None:
        checker.block(for_node.orelse, "`for ... else` has no graph-loop equivalent")
    if for_node.asynchronous is not None:
        checker.block(for_node, "`async for` has no graph-loop equivalent")
    for_node.body.visit(checker)
    return checker.blockers


