"""Can the receiver of a blocked ``predict`` call in a tf.function be a Keras model (RTF002's tree check)?

Inside a tf.function, :class:`~retrace_fix.codemods.predict_to_call.PredictToCallCommand`
reports a call its ``_blocker`` refuses (two positional arguments, ``training=``...) only on
Keras evidence: a keyword only Keras' ``predict`` takes, or a receiver
:meth:`~retrace_fix.codemods._keras.KerasEvidence.receiver_is_model` accepts (``self`` in a
class deriving from a Keras model, a name or ``self.<attr>`` assigned a model constructor,
loader or application, or annotated as a model).  :func:`receiver_may_be_model` reads the
same in CPython's tree, as a superset (scopes ignored, any import alias or assignment that
may stand for a model class counts): a module whose blocked calls all fail it reports
nothing there.
"""

from __future__ import annotations

import ast

from retrace_fix.ast_walk import TreeIndex, walk
from retrace_fix.codemods._predict_facts import PREDICT_METHODS, blocked, keras_keyword

#: the last parts of the model classes and loaders of :mod:`~retrace_fix.codemods._keras`
_MODEL_CLASS_WORDS = frozenset({"Model", "Sequential"})
_MODEL_CALL_WORDS = _MODEL_CLASS_WORDS | {"load_model", "clone_model", "model_from_json"}
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)


class _ModelNames:
    """The names, ``self`` attributes and classes of one module that may be Keras models."""

    def __init__(self, index: TreeIndex) -> None:
        self.classes: dict[str, list[ast.ClassDef]] = {}
        self.imported: dict[str, set[str]] = {}  # name -> the dotted names imports bind it to
        self.assigned: set[str] = set()  # names bound by an assignment (an alias of a model class?)
        bindings: list[tuple[list[ast.expr], ast.expr | None, ast.expr | None]] = []  # (targets, value, annotation)
        params: list[ast.arg] = []
        named: list[ast.expr] = []  # walrus targets: no evidence, but a name they bind is no alias to trust
        for node in index.nodes:
            kind = type(node)
            if kind is ast.ClassDef:
                self.classes.setdefault(node.name, []).append(node)  # type: ignore[attr-defined]
            elif kind is ast.Import:
                for alias in node.names:  # type: ignore[attr-defined]
                    name = alias.asname or alias.name.split(".")[0]
                    self.imported.setdefault(name, set()).add(alias.name if alias.asname else name)
            elif kind is ast.ImportFrom:
                for alias in node.names:  # type: ignore[attr-defined]
                    self.imported.setdefault(alias.asname or alias.name, set()).add(
                        f"{node.module or ''}.{alias.name}")  # type: ignore[attr-defined]
            elif kind is ast.Assign:
                bindings.append((node.targets, node.value, None))  # type: ignore[attr-defined]
            elif kind is ast.AnnAssign:
                bindings.append(([node.target], node.value, node.annotation))  # type: ignore[attr-defined]
            elif kind is ast.NamedExpr:
                named.append(node.target)  # type: ignore[attr-defined]
            elif kind is ast.arg:
                params.append(node)  # type: ignore[arg-type]
        #: name -> the values assigned to it as a plain target (``KerasEvidence._pending``: Assign, AnnAssign)
        self.values: dict[str, list[ast.expr | None]] = {}
        for targets, value, annotation in bindings:
            for target in targets:
                self.assigned.update(n.id for n in walk(target) if type(n) is ast.Name)  # type: ignore[attr-defined]
                if type(target) is ast.Name and value is not None:
                    self.values.setdefault(target.id, []).append(value)  # type: ignore[attr-defined]
        self.assigned.update(n.id for n in named if type(n) is ast.Name)  # type: ignore[attr-defined]
        self.names: set[str] = set()
        self.attrs: set[str] = set()
        for targets, value, annotation in bindings:
            if not (self._model_call(value) or (annotation is not None and self._model_annotation(annotation))):
                continue
            for target in targets:
                if type(target) is ast.Name:
                    self.names.add(target.id)  # type: ignore[attr-defined]
                elif type(target) is ast.Attribute and type(target.value) is ast.Name:  # type: ignore[attr-defined]
                    self.attrs.add(target.attr)  # type: ignore[attr-defined]
        self.names.update(p.arg for p in params if p.annotation is not None and self._model_annotation(p.annotation))

    def _names_a_model(self, expr: ast.AST, words: frozenset[str]) -> bool:
        """Can the name or attribute chain ``expr`` resolve to one of ``words`` (a model class, or a
        loader), a Keras application, or a class of this module (which may derive from a model)?"""
        kind = type(expr)
        if kind is ast.Attribute:
            if expr.attr in words:  # type: ignore[attr-defined]
                return True
            parts = []
            while type(expr) is ast.Attribute:
                parts.append(expr.attr)  # type: ignore[attr-defined]
                expr = expr.value  # type: ignore[attr-defined]
            if "applications" in parts:
                return True
            if type(expr) is ast.Name and expr.id in self.assigned and parts[0][:1].isupper():  # type: ignore[attr-defined]
                return True  # ``apps = keras.applications; apps.ResNet50()``: a local alias of a module
            return type(expr) is ast.Name and any(  # an imported module whose path says applications
                "applications" in target.split(".") for target in self.imported.get(expr.id, ()))  # type: ignore[attr-defined]
        if kind is not ast.Name:
            return False
        name = expr.id  # type: ignore[attr-defined]
        if name in self.imported:  # an import decides (``Scope.lookup``: imports before local bindings)
            return name in words or any(target.rsplit(".", 1)[-1] in words or "applications" in target.split(".")
                                        for target in self.imported[name])
        if name in self.classes:  # a class of this module: "local.<name>" among the model classes?
            return any(self.model_class(c, frozenset({name})) for c in self.classes[name])
        return name in words or name in self.assigned

    def _model_call(self, value: ast.AST | None) -> bool:
        """Can ``value`` be a call that returns a Keras model (``_KerasEvidence._value_is_model``)?"""
        return type(value) is ast.Call and self._names_a_model(value.func, _MODEL_CALL_WORDS)  # type: ignore[attr-defined]

    def _model_annotation(self, annotation: ast.AST) -> bool:
        """Can ``annotation`` name a Keras model class (a string ending ``Model``/``Sequential`` too)?"""
        if type(annotation) is ast.Constant:
            value = annotation.value  # type: ignore[attr-defined]
            return type(value) is str and value.split(".")[-1] in _MODEL_CLASS_WORDS
        return self._names_a_model(annotation, _MODEL_CLASS_WORDS)

    def model_class(self, node: ast.ClassDef, seen: frozenset[str] = frozenset()) -> bool:
        """Can the class ``node`` derive from a Keras model (directly, or through a class of this module)?"""
        for base in node.bases:
            if type(base) is ast.Name and base.id in self.classes:  # type: ignore[attr-defined]
                name = base.id  # type: ignore[attr-defined]
                if name in self.assigned or name in self.imported or name in _MODEL_CLASS_WORDS:
                    return True  # also bound otherwise: it may be anything
                if name not in seen and any(self.model_class(c, seen | {name}) for c in self.classes[name]):
                    return True
            elif self._names_a_model(base, _MODEL_CLASS_WORDS):
                return True
        return False


    def provably_not_model(self, name: str) -> bool:
        """``KerasEvidence.provably_not_model``: every value assigned to ``name`` (any scope) is a call of a
        class of this module that cannot derive from a Keras model."""
        values = self.values.get(name)
        return bool(values) and all(
            type(v) is ast.Call and type(v.func) is ast.Name and v.func.id in self.classes  # type: ignore[attr-defined]
            and not any(self.model_class(c) for c in self.classes[v.func.id])  # type: ignore[attr-defined]
            for v in values)


def _innermost_classes(tree: ast.Module) -> dict[int, ast.ClassDef | None]:
    """id(call) -> the innermost class around it (None: none)."""
    found: dict[int, ast.ClassDef | None] = {}
    stack: list[tuple[ast.AST, ast.ClassDef | None]] = [(tree, None)]
    while stack:
        node, owner = stack.pop()
        if type(node) is ast.Call:
            found[id(node)] = owner
        inner = node if type(node) is ast.ClassDef else owner
        for child in ast.iter_child_nodes(node):
            stack.append((child, inner))  # type: ignore[arg-type]
    return found


def receivers_may_be_models(calls: list[ast.Call], index: TreeIndex) -> bool:
    """Can the receiver of one of the predict ``calls`` (``<receiver>.predict(...)``) be a Keras
    model by ``KerasEvidence.receiver_is_model``: ``self`` in a class that may derive from a
    model, a name assigned a possible model call or annotated as a model anywhere in the
    module, ``self.<attr>`` so assigned or annotated?  Any other receiver is never one."""
    if not calls:
        return False
    names = _ModelNames(index)
    classes: dict[int, ast.ClassDef | None] | None = None
    for call in calls:
        receiver = call.func.value  # type: ignore[attr-defined]
        if type(receiver) is ast.Name:
            if receiver.id != "self":
                if receiver.id in names.names:
                    return True
                continue
            if classes is None:
                classes = _innermost_classes(index.root)
            owner = classes.get(id(call))
            if owner is not None and names.model_class(owner):
                return True
        elif type(receiver) is ast.Attribute and type(receiver.value) is ast.Name \
                and receiver.value.id == "self" and receiver.attr in names.attrs:  # type: ignore[attr-defined]
            return True
    return False


def graph_calls_may_report(roots: list[ast.AST], index: TreeIndex) -> bool:
    """Can a predict call in ``roots`` (the code a tf.function can run) be reported: one with a
    Keras-only keyword; one :func:`~retrace_fix.codemods._predict_facts.blocked` does not refuse
    on ``self``, on ``self.<attr>`` or on a name that may be a Keras model or is not provably none
    (``_unknown_receiver``'s ``--verify`` candidates: a name every assignment gives an object of a
    class of the module that derives from no model is none); or a blocked one on a receiver that
    may be a Keras model (:func:`receivers_may_be_models`)?"""
    calls = [n for root in roots for n in index.subtree(root)
             if type(n) is ast.Call and type(n.func) is ast.Attribute and n.func.attr in PREDICT_METHODS]  # type: ignore[attr-defined]
    if any(keras_keyword(c) for c in calls):
        return True
    names: _ModelNames | None = None
    for call in calls:
        if blocked(call):
            continue
        receiver = call.func.value  # type: ignore[attr-defined]
        if type(receiver) is ast.Attribute:
            return True
        if type(receiver) is not ast.Name:
            continue  # no Keras evidence, and no --verify candidate (``_unknown_receiver``)
        if receiver.id == "self":
            return True
        if names is None:
            names = _ModelNames(index)
        if receiver.id in names.names or not names.provably_not_model(receiver.id):
            return True  # a Keras model, or a --verify candidate
    return receivers_may_be_models([c for c in calls if blocked(c)], index)
