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

:func:`param_blockers` answers the related question the input-signature
codemod (RTF003) asks: may an integer parameter become a scalar ``int32``
tensor (a ``tf.TensorSpec([], tf.int32)`` slot or a ``tf.constant`` at the call
sites)?  Only when every use of it is a ``range(...)`` bound of a loop that
:func:`loop_blockers` accepts, or an argument of a TensorFlow op.

Both functions are pure: they read the CST and never import TensorFlow.  Their
signatures are stable; new checks only add blockers.
"""

from __future__ import annotations

from typing import Iterable, NamedTuple

import libcst as cst

from retrace_fix.node_text import short_code
from retrace_fix.tfnames import Scope, all_params

__all__ = [
    "Blocker",
    "loop_blockers",
    "param_blockers",
    "range_call",
    "is_tensor_expr",
    "tf_valued_names",
]


class Blocker(NamedTuple):
    """One reason a loop body is not safe for a tensor loop variable."""

    node: cst.CSTNode
    reason: str  # one line, names the code: "`layers[i]` indexes a Python list"
    #: the loop-carried name whose shape this statement changes every iteration (a graph loop
    #: carries it only with a shape invariant); None for every other hazard
    grows: str | None = None


# --------------------------------------------------------------------------- tables

#: calls whose only purpose is a Python side effect (or a value that changes per call)
_SIDE_EFFECT_PREFIXES = (
    "builtins.print",
    "builtins.input",
    "builtins.open",
    "builtins.exec",
    "builtins.eval",
    "builtins.setattr",
    "builtins.delattr",
    "builtins.breakpoint",
    "logging.",
    "time.",
    "random.",
    "numpy.random.",
    "datetime.",
    "sys.",
    "os.",
    "warnings.",
    "pdb.",
)
#: container methods that mutate a Python list/dict/set
_MUTATORS = frozenset(
    {"append", "extend", "insert", "pop", "remove", "clear", "update", "setdefault", "add", "discard", "popitem"}
)
#: TF ops whose arguments must be Python ints (a tensor loop variable breaks them)
_TF_NEEDS_PYTHON_INT = frozenset(
    {
        "tensorflow.split",
        "tensorflow.unstack",
        "tensorflow.random.set_seed",
        "tensorflow.autograph.experimental.set_loop_options",
    }
)
_PYTHON_INT_KEYWORDS = frozenset({"num", "seed", "name", "num_or_size_splits"})
#: TF ops that change the shape of what they are given / build a shape from their arguments
_TF_SHAPE_CHANGING = frozenset(
    {
        "concat", "stack", "expand_dims", "tile", "pad", "repeat", "reshape", "squeeze",
        "zeros", "ones", "fill", "range", "eye", "slice", "broadcast_to", "gather_nd",
        "boolean_mask", "unique", "where",
    }
)
_TF_NOT_AN_OP = frozenset({"tensorflow.Variable", "tensorflow.Module", "tensorflow.py_function",
                           "tensorflow.numpy_function", "tensorflow.function"})


def _first_line(node: cst.CSTNode) -> str:
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


def _qualify(scope: Scope, node: cst.BaseExpression) -> str | None:
    try:
        return scope.qualify(node)
    except Exception:  # pragma: no cover - defensive
        return None


def is_tf_op(scope: Scope, func: cst.BaseExpression) -> bool:
    """Does calling ``func`` run a TensorFlow op (``tf.shape``, ``tf.math.add``; not ``tf.Variable``)?"""
    q = _qualify(scope, func)
    return q is not None and q.startswith("tensorflow.") and q not in _TF_NOT_AN_OP


def range_call(for_node: cst.For, scope: Scope) -> cst.Call | None:
    """The ``range(...)`` call a for loop iterates over (builtin ``range``, any alias), else None."""
    it = for_node.iter
    if not isinstance(it, cst.Call) or not it.args or len(it.args) > 3:
        return None
    if any(a.star or a.keyword is not None for a in it.args):
        return None
    return it if _qualify(scope, it.func) == "builtins.range" else None


# --------------------------------------------------------------------------- expression facts


def _names_in(node: cst.CSTNode) -> set[str]:
    found: set[str] = set()

    class _V(cst.CSTVisitor):
        def visit_Name(self, n: cst.Name) -> None:
            found.add(n.value)

        def visit_Attribute(self, n: cst.Attribute) -> bool:
            n.value.visit(self)
            return False

        def visit_Arg(self, n: cst.Arg) -> bool:
            n.value.visit(self)
            return False

    node.visit(_V())
    return found


def is_tensor_expr(expr: cst.BaseExpression, scope: Scope, tensor_names: Iterable[str] = ()) -> bool:
    """Is ``expr`` certainly a tensor: a TF op result, a known tensor name, or arithmetic on one.

    Static shape reads (``x.shape[0]``, ``len(x)``) and Python numbers are not.
    """
    tensor_names = set(tensor_names)

    def walk(e: cst.BaseExpression) -> bool:
        if isinstance(e, cst.Name):
            return e.value in tensor_names
        if isinstance(e, cst.Call):
            return is_tf_op(scope, e.func)
        if isinstance(e, cst.Subscript):
            # tf.shape(x)[0] is a tensor; x.shape[0] is not (x.shape is an Attribute)
            return walk(e.value)
        if isinstance(e, cst.BinaryOperation):
            return walk(e.left) or walk(e.right)
        if isinstance(e, cst.UnaryOperation):
            return walk(e.expression)
        return False

    return walk(expr)


def tf_valued_names(
    function: cst.FunctionDef | None, scope: Scope, tensor_names: Iterable[str] = ()
) -> set[str]:
    """Names of ``function`` every assignment of which is a TF value (op result, method or
    subscript of one, arithmetic on one), plus ``tensor_names``."""
    known = set(tensor_names)
    if function is None:
        return known
    assigned: dict[str, list[cst.BaseExpression | None]] = {}

    class _V(cst.CSTVisitor):
        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            return node is function

        def visit_ClassDef(self, node: cst.ClassDef) -> bool:
            return False

        def visit_Lambda(self, node: cst.Lambda) -> bool:
            return False

        def visit_Assign(self, node: cst.Assign) -> None:
            for target in node.targets:
                if isinstance(target.target, cst.Name):
                    assigned.setdefault(target.target.value, []).append(node.value)
                else:
                    for name in _names_in(target.target):
                        assigned.setdefault(name, []).append(None)

        def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
            if isinstance(node.target, cst.Name):
                assigned.setdefault(node.target.value, []).append(node.value)

        def visit_AugAssign(self, node: cst.AugAssign) -> None:
            if isinstance(node.target, cst.Name):
                assigned.setdefault(node.target.value, []).append(
                    cst.BinaryOperation(left=node.target, operator=cst.Add(), right=node.value)
                )

        def visit_For(self, node: cst.For) -> None:
            for name in _names_in(node.target):
                it = node.iter
                tensor_iter = isinstance(it, cst.Call) and is_tf_op(scope, it.func)
                assigned.setdefault(name, []).append(it if tensor_iter else None)

        def visit_AsName(self, node: cst.AsName) -> None:
            for name in _names_in(node.name):
                assigned.setdefault(name, []).append(None)

    function.visit(_V())
    params = {p.name.value for p in all_params(function.params)}

    def tf_value(e: cst.BaseExpression | None, names: set[str]) -> bool:
        if e is None:
            return False
        if isinstance(e, cst.Name):
            return e.value in names
        if isinstance(e, cst.Call):
            if is_tf_op(scope, e.func) or _qualify(scope, e.func) in ("tensorflow.Variable", "tensorflow.TensorArray"):
                return True
            return isinstance(e.func, cst.Attribute) and tf_value(e.func.value, names)
        if isinstance(e, cst.Subscript):
            return tf_value(e.value, names)
        if isinstance(e, cst.BinaryOperation):
            return tf_value(e.left, names) or tf_value(e.right, names)
        if isinstance(e, cst.UnaryOperation):
            return tf_value(e.expression, names)
        return False

    # Greatest fixpoint: assume every candidate is a TF value, drop the ones with an
    # assignment that is not (``acc = tf.zeros(...)`` then ``acc = acc + x`` stays).
    candidates = {
        name for name, values in assigned.items()
        if name not in known and (name not in params or name in tensor_names)
        and all(v is not None for v in values)
    }
    while True:
        known_now = known | candidates
        keep = set()
        for name in candidates:
            if all(tf_value(v, known_now) for v in assigned[name]):
                keep.add(name)
        if keep == candidates:
            break
        candidates = keep
    return known | candidates


# --------------------------------------------------------------------------- function context


class _Context(cst.CSTVisitor):
    """Bindings before the loop and names read after it (textual order; loops folded)."""

    def __init__(self, loop: cst.For) -> None:
        self.loop = loop
        self.state = "before"
        self.before: dict[str, cst.BaseExpression | str] = {}
        self.after_reads: set[str] = set()
        self._loops: list[cst.CSTNode] = []
        self.enclosing_loops: list[cst.CSTNode] = []

    def run(self, function: cst.FunctionDef) -> "_Context":
        for param in all_params(function.params):
            self.before[param.name.value] = "param"
        function.body.visit(self)
        for outer in self.enclosing_loops[:1]:
            # the outer loop runs its body again after this loop: every read in it counts
            self.after_reads |= _names_in(outer)
        return self

    def _bind(self, target: cst.BaseExpression, value) -> None:
        if self.state != "before":
            return
        if isinstance(target, cst.Name):
            self.before[target.value] = value
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._bind(element.value, "unknown")
        elif isinstance(target, cst.StarredElement):
            self._bind(target.value, "unknown")

    def visit_For(self, node: cst.For) -> bool:
        if node is self.loop:
            self.enclosing_loops = list(self._loops)
            self.state = "after"
            return False
        if self.state == "after":
            # a later `for i in ...` rebinds its target: the reads of `i` in its body are not of ours
            node.iter.visit(self)
            outer, self.after_reads = self.after_reads, set()
            node.body.visit(self)
            self.after_reads = outer | (self.after_reads - set(_names_in(node.target)))
            if node.orelse is not None:
                node.orelse.visit(self)
            return False
        self._bind(node.target, "python-loop")
        self._loops.append(node)
        return True

    def leave_For(self, original_node: cst.For) -> None:
        if self._loops and self._loops[-1] is original_node:
            self._loops.pop()

    def visit_While(self, node: cst.While) -> None:
        self._loops.append(node)

    def leave_While(self, original_node: cst.While) -> None:
        self._loops.pop()

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._bind(target.target, node.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._bind(node.target, node.value if node.value is not None else "unknown")

    def visit_AsName(self, node: cst.AsName) -> None:
        self._bind(node.name, "unknown")

    def visit_Name(self, node: cst.Name) -> None:
        if self.state == "after":
            self.after_reads.add(node.value)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        if self.state == "after":
            self.after_reads |= _names_in(node.body)
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False


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
        ctx = _Context(loop).run(function) if function is not None else None
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

        class _V(cst.CSTVisitor):
            def visit_Name(self, n: cst.Name) -> None:
                nonlocal found
                if n.value in checker.tainted:
                    found = True

            def visit_Attribute(self, n: cst.Attribute) -> bool:
                n.value.visit(self)
                return False

            def visit_Call(self, n: cst.Call) -> bool:
                if is_tf_op(checker.scope, n.func):
                    return False
                return True

            def visit_Arg(self, n: cst.Arg) -> bool:
                n.value.visit(self)
                return False

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
            return _qualify(self.scope, e.value.func) == "tensorflow.shape"
        if isinstance(e, cst.Call):
            return _qualify(self.scope, e.func) in ("tensorflow.size", "tensorflow.rank")
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
        self.block(node, f"`{_first_line(node)}` defines a function inside the loop body")
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        self.block(node, f"`{_first_line(node)}` defines a class inside the loop body")
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        self.block(node, f"`{short_code(node)}` creates a lambda inside the loop body")
        return False

    def visit_Break(self, node: cst.Break) -> None:
        self.block(node, "`break` leaves the loop early: a graph loop needs it as a loop-carried flag")

    def visit_Continue(self, node: cst.Continue) -> None:
        self.block(node, "`continue` skips part of the body: a graph loop needs it as a loop-carried flag")

    def visit_Return(self, node: cst.Return) -> None:
        self.block(node, f"`{short_code(node)}` returns from inside the loop")

    def visit_Yield(self, node: cst.Yield) -> None:
        self.block(node, "`yield` inside the loop")

    def visit_Await(self, node: cst.Await) -> None:
        self.block(node, "`await` inside the loop")

    def visit_Raise(self, node: cst.Raise) -> None:
        self.block(node, f"`{short_code(node)}` raises from inside the loop")

    def visit_Try(self, node: cst.Try) -> None:
        self.block(node, "`try` inside the loop: exceptions cannot cross a graph loop")

    def visit_TryStar(self, node) -> None:  # pragma: no cover - py3.11 syntax
        self.block(node, "`try` inside the loop: exceptions cannot cross a graph loop")

    def visit_With(self, node: cst.With) -> None:
        self.block(node, f"`{_first_line(node)}` enters a context manager inside the loop")

    def visit_Global(self, node: cst.Global) -> None:
        self.block(node, "`global` inside the loop body")

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        self.block(node, "`nonlocal` inside the loop body")

    def visit_Del(self, node: cst.Del) -> None:
        self.block(node, f"`{short_code(node)}` deletes a name inside the loop")

    def visit_Import(self, node: cst.Import) -> None:
        self.block(node, "an import inside the loop body")

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        self.block(node, "an import inside the loop body")

    def visit_While(self, node: cst.While) -> None:
        self.block(node, f"`{_first_line(node)}` is a nested while loop")

    def visit_For(self, node: cst.For) -> bool:
        if node is self.loop:
            return True
        if node.orelse is not None:
            self.block(node, f"`{_first_line(node)}` has an `else` clause")
        if self.mentions_taint(node.iter):
            self.block(node, f"`{_first_line(node)}` loops over a Python range of the loop variable")
        it = node.iter
        if isinstance(it, cst.Call) and is_tf_op(self.scope, it.func):
            self.tainted |= _names_in(node.target)
        else:
            self.tainted -= _names_in(node.target)
        for name in _names_in(node.target):
            self._bound_in_body.add(name)
        return True

    def visit_If(self, node: cst.If) -> None:
        if self.mentions_taint(node.test):
            self.block(node, f"`{_first_line(node)}` branches on the loop variable in Python")

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
        q = _qualify(self.scope, func)
        shown = short_code(node)
        if q is not None and q.startswith(_SIDE_EFFECT_PREFIXES):
            self.block(node, f"`{shown}` is a Python side effect: it would run once per trace, "
                             "not once per iteration")
            return
        if isinstance(func, cst.Attribute) and func.attr.value in _MUTATORS and not self.is_tf_receiver(func.value):
            self.block(node, f"`{shown}` mutates a Python container inside the loop "
                             "(a graph loop cannot fill it; use tf.TensorArray)")
            return
        if q == "tensorflow.Variable":
            self.block(node, f"`{shown}` creates a tf.Variable inside the loop")
            return
        if q is not None and q.startswith("keras.") and q.rsplit(".", 1)[-1][:1].isupper():
            self.block(node, f"`{shown}` constructs a Keras object (and its variables) inside the loop")
            return
        if q is not None and q.startswith("tensorflow.") and q not in _TF_NOT_AN_OP:
            if q in _TF_NEEDS_PYTHON_INT and any(self.mentions_taint(a.value) for a in node.args):
                self.block(node, f"`{shown}` needs a Python int where the loop variable is passed")
            elif any(
                a.keyword is not None and a.keyword.value in _PYTHON_INT_KEYWORDS and self.mentions_taint(a.value)
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
                q = _qualify(checker.scope, n.func) or ""
                short = q.rsplit(".", 1)[-1]
                if q.startswith("tensorflow.") and short in _TF_SHAPE_CHANGING:
                    names = set()
                    for a in n.args:
                        names |= _names_in(a.value)
                    if name in names or any(checker.mentions_taint(a.value) for a in n.args):
                        found = True

            def visit_Subscript(self, n: cst.Subscript) -> None:
                nonlocal found
                slices = [e.slice for e in n.slice if isinstance(e.slice, cst.Slice)]
                if not slices:
                    return
                if name in _names_in(n.value):
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
            names = _names_in(target.target) if isinstance(target.target, (cst.Name, cst.Tuple, cst.List)) else set()
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

    class _V(cst.CSTVisitor):
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
            if call is not None and any(param in _names_in(a.value) for a in call.args):
                if not all(_is_simple_bound(a.value, param) for a in call.args):
                    blockers.append(Blocker(node.iter, f"`{short_code(node.iter)}` computes the bound in Python"))
                found = loop_blockers(node, scope, function=function, tensor_names=tensor_names | {param})
                blockers.extend(found)
                safe_loops.add(id(call))

        def visit_Call(self, node: cst.Call) -> bool:
            if id(node) in safe_loops:
                return False
            if is_tf_op(scope, node.func):
                if _qualify(scope, node.func) in _TF_NEEDS_PYTHON_INT and any(
                    param in _names_in(a.value) for a in node.args
                ):
                    blockers.append(Blocker(node, f"`{short_code(node)}` needs a Python int"))
                return False
            return True

        def visit_Assign(self, node: cst.Assign) -> None:
            for target in node.targets:
                if param in _names_in(target.target) and isinstance(target.target, (cst.Name, cst.Tuple, cst.List)):
                    blockers.append(Blocker(node, f"`{short_code(node)}` rebinds `{param}`"))

        def visit_AugAssign(self, node: cst.AugAssign) -> None:
            if isinstance(node.target, cst.Name) and node.target.value == param:
                blockers.append(Blocker(node, f"`{short_code(node)}` rebinds `{param}`"))

        def visit_Name(self, node: cst.Name) -> None:
            if node.value == param:
                blockers.append(Blocker(node, f"`{param}` is used as a Python value"))

        def visit_Attribute(self, node: cst.Attribute) -> bool:
            node.value.visit(self)
            return False

        def visit_Param(self, node: cst.Param) -> bool:
            return False

        def visit_Arg(self, node: cst.Arg) -> bool:
            node.value.visit(self)
            return False

    # Visit the For nodes first so their range() calls are known, then everything.
    class _Collect(cst.CSTVisitor):
        def visit_For(self, node: cst.For) -> None:
            call = range_call(node, scope)
            if call is not None and any(param in _names_in(a.value) for a in call.args):
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
            out.append(Blocker(b.node, f"`{_first_line(owner)}` uses `{param}` as a Python value"))
        else:
            out.append(b)
    return out
