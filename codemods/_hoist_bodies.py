"""What a function body does while it traces, for RTF006 (hoist-tf-function).

:func:`body_hazards` sorts what keeps one shared tf.function from being the same
program (variables and objects created while tracing) from what only makes sharing
unsafe (Python side effects at trace time); :func:`fresh_objects` names the
captured variables bound to an object built anew on every call.
"""

from __future__ import annotations

import libcst as cst

from retrace_fix.codemods._tf_values import is_tf_op
from retrace_fix.cst_tree import target_names
from retrace_fix.node_text import short_code
from retrace_fix.tfnames import dotted_name

#: calls whose purpose is a Python side effect at trace time
_SIDE_EFFECT_PREFIXES = (
    "builtins.print", "builtins.input", "builtins.open", "builtins.exec", "builtins.eval",
    "builtins.setattr", "builtins.delattr", "logging.", "time.", "random.", "numpy.random.",
    "datetime.", "sys.", "os.", "warnings.",
)
_MUTATORS = frozenset({"append", "extend", "insert", "pop", "remove", "clear", "update", "setdefault", "add",
                       "discard", "popitem"})
#: TensorFlow classes that are values, not stateful objects
_TF_VALUE_CLASSES = frozenset({
    "tensorflow.TensorArray", "tensorflow.TensorSpec", "tensorflow.TensorShape", "tensorflow.SparseTensor",
    "tensorflow.SparseTensorSpec", "tensorflow.RaggedTensorSpec", "tensorflow.IndexedSlices",
    "tensorflow.DType", "tensorflow.GradientTape",
})
_STATEFUL_METHODS = frozenset({"add_weight", "add_variable"})


def body_hazards(function: cst.FunctionDef, scope, module: cst.Module) -> tuple[list[str], list[str]]:
    """(what forbids sharing one function: variables and objects created while tracing,
    what makes it unsafe: Python side effects at trace time)."""
    blockers: list[str] = []
    effects: list[str] = []
    local_classes = {s.name.value for s in module.body if isinstance(s, cst.ClassDef)}
    local_names = set()

    class _Locals(cst.CSTVisitor):
        def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
            local_names.update(target_names(node.target))

    function.body.visit(_Locals())

    class _V(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            q = scope.qualify(node.func)
            shown = short_code(node)
            func = node.func
            last = (q or dotted_name(func) or "").rsplit(".", 1)[-1]
            if q == "tensorflow.Variable" or (q or "").startswith(("tensorflow.random.Generator", "tensorflow.Module")):
                blockers.append(f"`{shown}` creates a variable while tracing (a shared function creates it once, "
                                "not once per call)")
            elif q is not None and q.startswith("keras.") and last[:1].isupper():
                blockers.append(f"`{shown}` creates a Keras object (and its variables) while tracing")
            elif isinstance(func, cst.Attribute) and func.attr.value in _STATEFUL_METHODS:
                blockers.append(f"`{shown}` creates a variable while tracing")
            elif isinstance(func, cst.Name) and func.value in local_classes:
                blockers.append(f"`{shown}` creates a `{func.value}` object while tracing (it may hold variables)")
            elif q is not None and q.startswith("tensorflow.") and last[:1].isupper() and q not in _TF_VALUE_CLASSES:
                blockers.append(f"`{shown}` creates a `{last}` object while tracing")
            elif q is not None and q.startswith(_SIDE_EFFECT_PREFIXES):
                effects.append(f"`{shown}` runs while tracing: once per call before, once per trace after")
            elif isinstance(func, cst.Attribute) and func.attr.value in _MUTATORS and not (
                isinstance(func.value, cst.Name) and func.value.value in local_names
            ) and not is_tf_op(scope, func):
                effects.append(f"`{shown}` changes Python state while tracing: once per call before, once per "
                               "trace after")

        def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
            if isinstance(node.target, (cst.Attribute, cst.Subscript)):
                effects.append(f"`{short_code(node.target)} = ...` changes Python state while tracing: once per "
                               "call before, once per trace after")

        def visit_AugAssign(self, node: cst.AugAssign) -> None:
            if isinstance(node.target, (cst.Attribute, cst.Subscript)):
                effects.append(f"`{short_code(node)}` changes Python state while tracing")

        def visit_Global(self, node: cst.Global) -> None:
            effects.append("it declares `global` names and may rebind them while tracing")

        def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
            blockers.append("it rebinds variables of the enclosing function (`nonlocal`)")

    function.body.visit(_V())
    return list(dict.fromkeys(blockers)), list(dict.fromkeys(effects))


def fresh_objects(owner: cst.FunctionDef, names: set[str], scope) -> list[str]:
    """Names of ``names`` that ``owner`` binds to an object it constructs (``model = keras.Sequential(...)``,
    ``opt = Optimizer(...)``, ``v = tf.Variable(...)``): new on every call of ``owner``."""
    found: list[str] = []

    class _V(cst.CSTVisitor):
        def visit_Assign(self, node: cst.Assign) -> None:
            value = node.value
            if not isinstance(value, cst.Call):
                return
            q = scope.qualify(value.func) or dotted_name(value.func) or ""
            last = q.rsplit(".", 1)[-1]
            if not (last[:1].isupper() or q == "tensorflow.Variable"):
                return
            for target in node.targets:
                found.extend(n for n in target_names(target.target) if n in names)

        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            return node is owner

    owner.visit(_V())
    return found
