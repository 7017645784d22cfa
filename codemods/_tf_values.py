"""Which expressions of a function are TensorFlow values, statically.

* :func:`is_tf_op` - does a call run a TensorFlow op (``tf.shape``, not ``tf.Variable``);
* :func:`range_call` - the builtin ``range(...)`` a ``for`` loop iterates over;
* :func:`is_tensor_expr` - is an expression certainly a tensor (an op's result,
  a known tensor name, arithmetic on one);
* :func:`tf_valued_names` - the names of a function every assignment of which
  is a TensorFlow value.

Shared by the loop analyses (RTF001, RTF007) and the codemods that ask whether
a value is already a tensor.  Pure LibCST; never imports TensorFlow.
"""

from __future__ import annotations

from typing import Iterable

import libcst as cst

from retrace_fix.tfnames import Scope, all_params


TF_NOT_AN_OP = frozenset({"tensorflow.Variable", "tensorflow.Module", "tensorflow.py_function",
                           "tensorflow.numpy_function", "tensorflow.function"})


def qualified_name(scope: Scope, node: cst.BaseExpression) -> str | None:
    try:
        return scope.qualify(node)
    except Exception:  # pragma: no cover - defensive
        return None


def is_tf_op(scope: Scope, func: cst.BaseExpression) -> bool:
    """Does calling ``func`` run a TensorFlow op (``tf.shape``, ``tf.math.add``; not ``tf.Variable``)?"""
    q = qualified_name(scope, func)
    return q is not None and q.startswith("tensorflow.") and q not in TF_NOT_AN_OP


def range_call(for_node: cst.For, scope: Scope) -> cst.Call | None:
    """The ``range(...)`` call a for loop iterates over (builtin ``range``, any alias), else None."""
    it = for_node.iter
    if not isinstance(it, cst.Call) or not it.args or len(it.args) > 3:
        return None
    if any(a.star or a.keyword is not None for a in it.args):
        return None
    return it if qualified_name(scope, it.func) == "builtins.range" else None


class ValueReads(cst.CSTVisitor):
    """Visits the parts of an expression that are read as values: an attribute's object, not the
    attribute's name; an argument's value, not its keyword."""

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        node.value.visit(self)
        return False

    def visit_Arg(self, node: cst.Arg) -> bool:
        node.value.visit(self)
        return False


def names_in(node: cst.CSTNode) -> set[str]:
    """The names ``node`` reads (``a`` and ``b`` of ``a.x(b, key=1)``)."""
    found: set[str] = set()

    class _V(ValueReads):
        def visit_Name(self, n: cst.Name) -> None:
            found.add(n.value)

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
                    for name in names_in(target.target):
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
            for name in names_in(node.target):
                it = node.iter
                tensor_iter = isinstance(it, cst.Call) and is_tf_op(scope, it.func)
                assigned.setdefault(name, []).append(it if tensor_iter else None)

        def visit_AsName(self, node: cst.AsName) -> None:
            for name in names_in(node.name):
                assigned.setdefault(name, []).append(None)

    function.visit(_V())
    params = {p.name.value for p in all_params(function.params)}

    def tf_value(e: cst.BaseExpression | None, names: set[str]) -> bool:
        if e is None:
            return False
        if isinstance(e, cst.Name):
            return e.value in names
        if isinstance(e, cst.Call):
            if is_tf_op(scope, e.func) or qualified_name(scope, e.func) in ("tensorflow.Variable", "tensorflow.TensorArray"):
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
