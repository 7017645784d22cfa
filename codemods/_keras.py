"""Is this expression a Keras model?  Static evidence gathered from one module.

Evidence, strongest first:

* the name (or ``self.attr``) is assigned from a Keras model constructor or loader
  (``keras.Sequential(...)``, ``tf.keras.Model(...)``, ``keras.models.load_model(...)``,
  ``keras.applications.ResNet50(...)``) or from a class in this module that
  subclasses a Keras model;
* a parameter annotated as a Keras model (``model: keras.Model``);
* ``self`` inside a class that subclasses a Keras model.

Anything else (a project-local ``Predictor``, a scikit-learn estimator, a
function parameter with no annotation) is *not* Keras.
"""

from __future__ import annotations

import libcst as cst

from retrace_fix.tfnames import Scope, dotted_name, local_bindings

KERAS_MODEL_CLASSES = frozenset(
    {
        "keras.Model",
        "keras.Sequential",
        "keras.models.Model",
        "keras.models.Sequential",
        "keras.engine.training.Model",
        "keras.engine.sequential.Sequential",
    }
)
KERAS_MODEL_FACTORIES = frozenset(
    {
        "keras.models.load_model",
        "keras.saving.load_model",
        "keras.models.clone_model",
        "keras.models.model_from_json",
    }
)


def is_keras_model_callee(qualified: str | None, local_model_classes: set[str]) -> bool:
    """Does calling ``qualified`` return a Keras model?"""
    if qualified is None:
        return False
    if qualified in KERAS_MODEL_CLASSES or qualified in KERAS_MODEL_FACTORIES:
        return True
    if qualified.startswith("keras.applications.") and qualified.split(".")[-1][:1].isupper():
        return True
    return qualified in local_model_classes


class KerasEvidence(cst.CSTVisitor):
    """One walk over a module: local Keras model classes, names and self-attributes bound to models."""

    def __init__(self, scope: Scope) -> None:
        self.scope = scope
        self.model_classes: set[str] = set()  # "local.<ClassName>" qualified keys
        # scope owner (a FunctionDef, or None for the module) -> names bound to a Keras model there
        self.model_names: dict[cst.FunctionDef | None, set[str]] = {}
        self.model_attrs: set[str] = set()  # attribute names: self.<attr> = <keras model>
        self.local_classes: set[str] = set()  # names of every class this module defines
        self._pending: list[tuple[cst.FunctionDef | None, list[cst.BaseExpression], cst.BaseExpression]] = []
        self._functions: list[cst.FunctionDef] = []

    @classmethod
    def collect(cls, module: cst.Module, scope: Scope) -> "KerasEvidence":
        evidence = cls(scope)
        module.visit(evidence)
        evidence._resolve()
        return evidence

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.local_classes.add(node.name.value)
        for base in node.bases:
            qualified = self.scope.qualify(base.value)
            if qualified in KERAS_MODEL_CLASSES or (
                dotted_name(base.value) is not None
                and "local." + (dotted_name(base.value) or "") in self.model_classes
            ):
                self.model_classes.add("local." + node.name.value)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._functions.append(node)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._functions.pop()

    def _owner(self) -> cst.FunctionDef | None:
        return self._functions[-1] if self._functions else None

    def visit_Assign(self, node: cst.Assign) -> None:
        self._pending.append((self._owner(), [t.target for t in node.targets], node.value))

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self._pending.append((self._owner(), [node.target], node.value))
        if self._is_model_annotation(node.annotation):
            self._bind(self._owner(), node.target)

    def visit_Param(self, node: cst.Param) -> None:
        if node.annotation is not None and self._is_model_annotation(node.annotation):
            self.model_names.setdefault(self._owner(), set()).add(node.name.value)

    def _is_model_annotation(self, annotation: cst.Annotation) -> bool:
        expr = annotation.annotation
        if isinstance(expr, cst.SimpleString):
            return expr.evaluated_value.split(".")[-1] in ("Model", "Sequential")
        qualified = self.scope.qualify(expr)
        if qualified in KERAS_MODEL_CLASSES:
            return True
        name = dotted_name(expr)
        return name is not None and "local." + name in self.model_classes

    def _bind(self, owner: cst.FunctionDef | None, target: cst.BaseExpression) -> None:
        if isinstance(target, cst.Name):
            self.model_names.setdefault(owner, set()).add(target.value)
        elif isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name):
            if target.value.value == "self":
                self.model_attrs.add(target.attr.value)

    def _resolve(self) -> None:
        for owner, targets, value in self._pending:
            if self._value_is_model(value):
                for target in targets:
                    self._bind(owner, target)

    def _value_is_model(self, value: cst.BaseExpression) -> bool:
        if not isinstance(value, cst.Call):
            return False
        qualified = self.scope.qualify(value.func)
        if qualified is None:
            name = dotted_name(value.func)
            qualified = "local." + name if name else None
        return is_keras_model_callee(qualified, self.model_classes)

    def provably_not_model(self, name: str) -> bool:
        """Is every assignment of ``name`` (in any scope) an instance of a local class that is no Keras model?"""
        values = [value for _owner, targets, value in self._pending
                  if any(isinstance(t, cst.Name) and t.value == name for t in targets)]
        return bool(values) and all(
            isinstance(v, cst.Call) and isinstance(v.func, cst.Name) and v.func.value in self.local_classes
            and "local." + v.func.value not in self.model_classes
            for v in values
        )

    def receiver_is_model(
        self,
        receiver: cst.BaseExpression,
        functions: list[cst.FunctionDef],
        scope: Scope,
        self_is_model: bool,
    ) -> bool:
        """``functions`` is the stack of enclosing defs, innermost last; ``scope`` mirrors it."""
        if isinstance(receiver, cst.Name):
            name = receiver.value
            if name == "self":
                return self_is_model
            # The innermost scope that binds the name decides.
            for function in reversed(functions):
                if name in self.model_names.get(function, ()):
                    return True
                if name in local_bindings(function):
                    return False
            return name in self.model_names.get(None, ())
        if (
            isinstance(receiver, cst.Attribute)
            and isinstance(receiver.value, cst.Name)
            and receiver.value.value == "self"
        ):
            return receiver.attr.value in self.model_attrs
        return False
