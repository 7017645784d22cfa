"""Resolve what ``tf``, ``tf.function``, ``range`` and ``keras`` mean in one module.

A cheap stand-in for LibCST's ``QualifiedNameProvider`` (which costs about four
times the parse): one walk over the module's import statements builds an alias
table, and a per-function table of local bindings handles shadowing
(``def f(tf): ...`` or ``import numpy as tf`` inside a function).

The table maps a bound name to the dotted name it stands for::

    import tensorflow as tf                  tf       -> tensorflow
    from tensorflow import function as tfn   tfn      -> tensorflow.function
    from tensorflow import keras             keras    -> tensorflow.keras
    import keras                             keras    -> keras

``qualify(node)`` turns ``tf.keras.Model`` into ``tensorflow.keras.Model``;
:func:`canonical` folds the many spellings of the same API together
(``tensorflow.keras.X`` / ``tf_keras.X`` / ``keras.X`` → ``keras.X``,
``tensorflow.compat.v2.function`` → ``tensorflow.function``).
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass, field

import libcst as cst

BUILTIN_NAMES = frozenset(dir(builtins))

TF_FUNCTION = "tensorflow.function"
_TF_PREFIXES = ("tensorflow.compat.v2.", "tensorflow.compat.v1.", "tensorflow.experimental.numpy.")
_KERAS_PREFIXES = (
    "tensorflow.keras.",
    "tensorflow.python.keras.",
    "tf_keras.",
    "keras.src.",
    "tensorflow.compat.v2.keras.",
    "tensorflow.compat.v1.keras.",
)

# Public TF spellings of tf.function besides tensorflow.function itself.
_FUNCTION_ALIASES = {
    "tensorflow.python.eager.def_function.function": TF_FUNCTION,
    "tensorflow.python.eager.polymorphic_function.polymorphic_function.function": TF_FUNCTION,
}


def dotted_name(node: cst.BaseExpression) -> str | None:
    """``a.b.c`` for a Name/Attribute chain, else None."""
    parts: list[str] = []
    while isinstance(node, cst.Attribute):
        parts.append(node.attr.value)
        node = node.value
    if isinstance(node, cst.Name):
        parts.append(node.value)
        return ".".join(reversed(parts))
    return None


def _module_dotted(node: cst.BaseExpression | None) -> str | None:
    return dotted_name(node) if node is not None else None


def canonical(qualified: str | None) -> str | None:
    """Fold equivalent spellings: compat.v2, tf.keras/tf_keras → keras, def_function."""
    if qualified is None:
        return None
    if qualified in _FUNCTION_ALIASES:
        return _FUNCTION_ALIASES[qualified]
    for prefix in _KERAS_PREFIXES:
        if qualified.startswith(prefix) or qualified == prefix[:-1]:
            return "keras" + qualified[len(prefix) - 1 :]
    for prefix in _TF_PREFIXES:
        if qualified.startswith(prefix):
            return canonical("tensorflow." + qualified[len(prefix) :])
    return qualified


@dataclass
class ImportTable:
    """Module-level name → dotted name, plus every name the module rebinds."""

    aliases: dict[str, str] = field(default_factory=dict)
    rebound: set[str] = field(default_factory=set)  # module-level non-import bindings

    @classmethod
    def from_module(cls, module: cst.Module) -> "ImportTable":
        table = cls()
        _collect_bindings(module.body, table.aliases, table.rebound)
        for name in table.rebound:
            table.aliases.pop(name, None)
        return table

    def name_for(self, qualified: str) -> str | None:
        """The local spelling of module ``qualified`` (``tensorflow`` → ``tf``)."""
        for local, target in sorted(self.aliases.items()):
            if target == qualified:
                return local
        return None


class Scope:
    """A chain of binding tables: the module's, then one per enclosing function."""

    def __init__(self, table: ImportTable) -> None:
        self.table = table
        self._locals: list[dict[str, str | None]] = []

    def push_function(self, node: cst.FunctionDef | cst.Lambda) -> None:
        self._locals.append(local_bindings(node))

    def pop_function(self) -> None:
        self._locals.pop()

    def lookup(self, name: str) -> str | None:
        """Qualified meaning of a bare name, ``None`` when it is a plain local value."""
        for frame in reversed(self._locals):
            if name in frame:
                return frame[name]
        if name in self.table.aliases:
            return self.table.aliases[name]
        if name in self.table.rebound:
            return None
        if name in BUILTIN_NAMES:
            return "builtins." + name
        return None

    def qualify(self, node: cst.BaseExpression) -> str | None:
        """Canonical dotted meaning of ``node`` (``tf.function`` → ``tensorflow.function``)."""
        dotted = dotted_name(node)
        if dotted is None:
            return None
        head, _, rest = dotted.partition(".")
        base = self.lookup(head)
        if base is None:
            return None
        return canonical(f"{base}.{rest}" if rest else base)

    def is_tf_function(self, node: cst.BaseExpression) -> bool:
        return self.qualify(node) == TF_FUNCTION

    def is_builtin(self, node: cst.BaseExpression, name: str) -> bool:
        return self.qualify(node) == "builtins." + name

    def tf_module_name(self) -> str | None:
        """How this module spells ``tensorflow`` (``tf``), if it imports it and no local shadows it."""
        local = self.table.name_for("tensorflow")
        if local is not None and self.lookup(local) == "tensorflow":
            return local
        return None


# --------------------------------------------------------------------------- bindings


def _bind_import(node: cst.Import | cst.ImportFrom, out: dict[str, str | None]) -> None:
    if isinstance(node, cst.Import):
        for alias in node.names:
            full = dotted_name(alias.name) or ""
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                out[alias.asname.name.value] = full
            else:
                head = full.split(".")[0]
                out[head] = head
        return
    if node.relative:  # from . import x: project-local, never tensorflow
        if isinstance(node.names, cst.ImportStar):
            return
        for alias in node.names:
            bound = alias.asname.name if alias.asname is not None else alias.name
            if isinstance(bound, cst.Name):
                out[bound.value] = None
        return
    module = _module_dotted(node.module) or ""
    if isinstance(node.names, cst.ImportStar):
        return
    for alias in node.names:
        name = dotted_name(alias.name) or ""
        bound = alias.asname.name if alias.asname is not None else alias.name
        if isinstance(bound, cst.Name):
            out[bound.value] = f"{module}.{name}"


def _target_names(node: cst.BaseExpression) -> list[str]:
    if isinstance(node, cst.Name):
        return [node.value]
    if isinstance(node, (cst.Tuple, cst.List)):
        names: list[str] = []
        for element in node.elements:
            names.extend(_target_names(element.value))
        return names
    if isinstance(node, cst.StarredElement):
        return _target_names(node.value)
    return []


class _BindingCollector(cst.CSTVisitor):
    """Names bound directly in one scope (nested defs/classes/lambdas are not entered)."""

    def __init__(self) -> None:
        self.imports: dict[str, str | None] = {}
        self.values: set[str] = set()
        self._depth = 0

    def _enter_nested(self, name: cst.Name | None) -> bool:
        if self._depth > 0:
            if name is not None:
                self.values.add(name.value)
            return False
        self._depth += 1
        return True

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return self._enter_nested(node.name)

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return self._enter_nested(node.name)

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return self._depth == 0 and self._enter_nested(None)

    def visit_Import(self, node: cst.Import) -> None:
        _bind_import(node, self.imports)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        _bind_import(node, self.imports)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self.values.update(_target_names(node.target))

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self.values.update(_target_names(node.target))

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self.values.update(_target_names(node.target))

    def visit_For(self, node: cst.For) -> None:
        self.values.update(_target_names(node.target))

    def visit_AsName(self, node: cst.AsName) -> None:
        # with ... as x / except E as x (import aliases are handled by _bind_import)
        self.values.update(_target_names(node.name))

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self.values.update(_target_names(node.target))

    def visit_Param(self, node: cst.Param) -> None:
        self.values.add(node.name.value)

    def visit_Global(self, node: cst.Global) -> None:
        for item in node.names:
            self.values.discard(item.name.value)

    # Comprehension variables live in their own scope.
    def visit_CompFor(self, node: cst.CompFor) -> bool:
        return True


def _collect_bindings(body, aliases: dict[str, str | None], rebound: set[str]) -> None:
    collector = _BindingCollector()
    collector._depth = 1  # the module itself is the scope being collected
    for statement in body:
        statement.visit(collector)
    for name, target in collector.imports.items():
        if target is None:
            rebound.add(name)
        else:
            aliases[name] = target
    # An import alias inside `with ... as tf` etc. is rare; plain rebinding wins.
    rebound.update(n for n in collector.values if n not in collector.imports)


def local_bindings(node: cst.FunctionDef | cst.Lambda) -> dict[str, str | None]:
    """Names bound in a function's own scope: imports map to their target, others to None."""
    collector = _BindingCollector()
    collector._depth = 1
    node.params.visit(collector)
    node.body.visit(collector)
    frame: dict[str, str | None] = {name: None for name in collector.values}
    frame.update(collector.imports)
    return frame
