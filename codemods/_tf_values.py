"""Which expressions of a function are TensorFlow values, statically.

* :func:`is_tf_op` - does a call run a TensorFlow op (``tf.shape``, not ``tf.Variable``);
* :func:`range_call` - the builtin ``range(...)`` a ``for`` loop iterates over;
* :func:`is_tensor_expr` - is an expression certainly a tensor (an op's result,
  a known tensor name, arithmetic on one);
* :func:`tf_valued_names` - the names of a function every assignment of which
  is a TensorFlow value;
* :func:`is_indexable_tensor` - may ``expr[i]`` take a scalar int tensor ``i``
  (a dense tensor, not a Python list or the tuple some ops return);
* :func:`tensor_indices` - the indices of ``x[i]``, ``x[i, ...]``, ``x[..., i]``;
* :func:`module_variables` - module-level names bound once, to ``tf.Variable(...)``;
* :func:`instance_variables` - ``self.x`` attributes ``__init__`` binds once, to ``tf.Variable(...)``.

Shared by the loop analyses (RTF001, RTF007) and the codemods that ask whether
a value is already a tensor.  Pure LibCST; never imports TensorFlow.
"""

from __future__ import annotations

from typing import Callable, Iterable

import libcst as cst

from retrace_fix.cst_tree import target_names
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


#: TensorFlow calls whose result is a Python list/tuple/namedtuple or an object, not one tensor:
#: ``tf.split(x, 2)[i]`` with a tensor ``i`` raises "list indices must be integers"
_NOT_ONE_TENSOR = frozenset({
    "tensorflow.split", "tensorflow.unstack", "tensorflow.meshgrid", "tensorflow.shape_n",
    "tensorflow.dynamic_partition", "tensorflow.unique", "tensorflow.unique_with_counts",
    "tensorflow.math.top_k", "tensorflow.nn.top_k", "tensorflow.nn.moments", "tensorflow.nn.weighted_moments",
    "tensorflow.linalg.eigh", "tensorflow.linalg.eig", "tensorflow.linalg.svd", "tensorflow.linalg.qr",
    "tensorflow.linalg.lu", "tensorflow.linalg.slogdet", "tensorflow.while_loop", "tensorflow.cond",
    "tensorflow.case", "tensorflow.switch_case", "tensorflow.map_fn", "tensorflow.vectorized_map",
    "tensorflow.scan", "tensorflow.foldl", "tensorflow.foldr", "tensorflow.gradients",
    "tensorflow.custom_gradient", "tensorflow.recompute_grad", "tensorflow.TensorArray",
    "tensorflow.GradientTape", "tensorflow.identity_n", "tensorflow.tuple", "tensorflow.group",
})
_NOT_ONE_TENSOR_PREFIXES = ("tensorflow.keras.", "tensorflow.nest.", "tensorflow.data.", "tensorflow.summary.",
                            "tensorflow.distribute.", "tensorflow.train.", "tensorflow.io.", "tensorflow.saved_model.")


def is_indexable_tensor(expr: cst.BaseExpression, scope: Scope, dense_names: Iterable[str] = ()) -> bool:
    """May ``expr[i]`` take a scalar int32 tensor ``i`` as it takes a Python int?

    Yes for a dense tensor: a name in ``dense_names`` (parameters the traces record as tensors, never
    rebound), the result of a TensorFlow op that returns one tensor (``tf.shape(x)``), a subscript or
    arithmetic of one.  No for anything the rewriter cannot tell from a Python list, tuple or dict
    (``heads[index]`` on a list of layers; ``tf.split(x, 2)[i]``, a list).
    """
    dense_names = set(dense_names)

    def walk(e: cst.BaseExpression) -> bool:
        if isinstance(e, cst.Name):
            return e.value in dense_names
        if isinstance(e, cst.Call):
            q = qualified_name(scope, e.func)
            return (is_tf_op(scope, e.func) and q not in _NOT_ONE_TENSOR
                    and not q.startswith(_NOT_ONE_TENSOR_PREFIXES))
        if isinstance(e, cst.Subscript):
            return walk(e.value)
        if isinstance(e, cst.BinaryOperation):
            return walk(e.left) and walk(e.right) or walk(e.left) and _is_number(e.right) or (
                _is_number(e.left) and walk(e.right))
        if isinstance(e, cst.UnaryOperation):
            return walk(e.expression)
        return False

    return walk(expr)


def _is_number(e: cst.BaseExpression) -> bool:
    return isinstance(e, (cst.Integer, cst.Float))


def tensor_indices(subscript: cst.Subscript) -> list[cst.BaseExpression]:
    """The single-position indices of ``subscript`` (``i`` of ``x[i]``, ``x[i, ...]``, ``x[..., i]``,
    ``x[i, j]``); slices (``x[i:]``) are not indices."""
    return [element.slice.value for element in subscript.slice if isinstance(element.slice, cst.Index)
            and element.slice.star is None]


#: methods of a ``tf.Variable`` whose indices argument (the first, or ``indices=``) TensorFlow converts
#: with ``tf.convert_to_tensor``: a scalar int32 tensor, or a nested list of them, serves as a Python int
VARIABLE_INDEX_METHODS = frozenset({"scatter_nd_update", "scatter_nd_add", "scatter_nd_sub", "scatter_nd_max",
                                    "scatter_nd_min", "sparse_read", "gather_nd"})
#: methods of a ``tf.Variable`` whose value arguments are converted to the variable's dtype
VARIABLE_VALUE_METHODS = frozenset({"assign", "assign_add", "assign_sub"})


class _TargetBindings(cst.CSTVisitor):
    """Calls ``bind(name)`` for each name an assignment, augmented or annotated assignment, ``for``,
    comprehension ``for``, ``with``/``except ... as``, ``:=`` or ``del`` target binds (nested
    scopes included; ``x.attr = ...`` and ``x[0] = ...`` bind nothing)."""

    def __init__(self, bind: Callable[[str], object]) -> None:
        super().__init__()
        self._bind = bind

    def _targets(self, target: cst.BaseExpression) -> None:
        for name in target_names(target):
            self._bind(name)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._targets(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._targets(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._targets(node.target)

    def visit_For(self, node: cst.For) -> None:
        self._targets(node.target)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self._targets(node.target)

    def visit_AsName(self, node: cst.AsName) -> None:
        self._targets(node.name)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._targets(node.target)

    def visit_Del(self, node: cst.Del) -> None:
        self._targets(node.target)


def module_variables(module: cst.Module, scope: Scope) -> set[str]:
    """Module-level names bound exactly once in the whole module, by ``name = tf.Variable(...)`` at
    module level: any other binding of the name anywhere (a rebinding, a ``global`` declaration, a
    parameter, a loop target, an import, a def) and the name is not provably a variable."""
    candidates: set[str] = set()
    for statement in module.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if (isinstance(small, cst.Assign) and len(small.targets) == 1
                    and isinstance(small.targets[0].target, cst.Name) and isinstance(small.value, cst.Call)
                    and qualified_name(scope, small.value.func) == "tensorflow.Variable"):
                candidates.add(small.targets[0].target.value)
    if not candidates:
        return set()
    counts: dict[str, int] = {}

    def bind(name: str) -> None:
        counts[name] = counts.get(name, 0) + 1

    class _Bindings(_TargetBindings):
        """Target bindings, and every other way a name is bound or declared anywhere in the module."""

        def visit_Param(self, node: cst.Param) -> None:
            bind(node.name.value)

        def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
            bind(node.name.value)

        def visit_ClassDef(self, node: cst.ClassDef) -> None:
            bind(node.name.value)

        def visit_ImportAlias(self, node: cst.ImportAlias) -> None:
            if node.asname is None:
                bind(str(node.evaluated_name).split(".")[0])

        def visit_Global(self, node: cst.Global) -> None:
            for item in node.names:
                bind(item.name.value)

        def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
            for item in node.names:
                bind(item.name.value)

    module.visit(_Bindings(bind))
    return {name for name in candidates if counts.get(name, 0) == 1}


def rebound_names(function: cst.FunctionDef) -> set[str]:
    """Names an assignment, loop, ``with ... as``, ``:=`` or ``del`` in ``function``'s body binds
    (``x`` of ``x = ...`` and ``x, y = ...``; not ``x`` of ``x.attr = ...`` or ``x[0] = ...``)."""
    found: set[str] = set()
    function.body.visit(_TargetBindings(found.add))
    return found


def instance_variables(classdef: cst.ClassDef, scope: Scope) -> set[str]:
    """``self.<attr>`` (spelled so) for each attribute the class's ``__init__`` binds, once and at its
    top level, to ``tf.Variable(...)`` and that no other assignment in the class sets (any
    ``<obj>.<attr> = ...``, ``<attr> = ...`` in the class body, ``setattr``)."""
    init = next((s for s in classdef.body.body if isinstance(s, cst.FunctionDef) and s.name.value == "__init__"), None)
    if init is None or not init.params.params or init.params.params[0].name.value != "self":
        return set()
    candidates: set[str] = set()
    for statement in init.body.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if (isinstance(small, cst.Assign) and len(small.targets) == 1
                    and isinstance(small.targets[0].target, cst.Attribute)
                    and isinstance(small.targets[0].target.value, cst.Name)
                    and small.targets[0].target.value.value == "self"
                    and isinstance(small.value, cst.Call)
                    and qualified_name(scope, small.value.func) == "tensorflow.Variable"):
                candidates.add(small.targets[0].target.attr.value)
    if not candidates or "self" in rebound_names(init):
        return set()
    counts: dict[str, int] = {}
    setattr_used = False

    def bind(target: cst.CSTNode) -> None:
        if isinstance(target, cst.Attribute):
            counts[target.attr.value] = counts.get(target.attr.value, 0) + 1
        elif isinstance(target, cst.Name):
            counts[target.value] = counts.get(target.value, 0) + 1
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                bind(element.value)
        elif isinstance(target, cst.StarredElement):
            bind(target.value)

    class _V(cst.CSTVisitor):
        def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
            bind(node.target)

        def visit_AugAssign(self, node: cst.AugAssign) -> None:
            bind(node.target)

        def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
            bind(node.target)

        def visit_For(self, node: cst.For) -> None:
            bind(node.target)

        def visit_AsName(self, node: cst.AsName) -> None:
            bind(node.name)

        def visit_Del(self, node: cst.Del) -> None:
            bind(node.target)

        def visit_Call(self, node: cst.Call) -> None:
            nonlocal setattr_used
            if qualified_name(scope, node.func) in ("builtins.setattr", "builtins.delattr"):
                setattr_used = True

    classdef.body.visit(_V())
    if setattr_used:
        return set()
    return {f"self.{name}" for name in candidates if counts.get(name, 0) == 1}
