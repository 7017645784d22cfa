"""Per-module facts every codemod needs, computed once per tree and shared.

* which ``def``s are tf.functions, and through which spelling
  (``@tf.function``, ``@tf.function(...)``, ``g = tf.function(f, ...)``,
  ``tf.function(...)(f)``, ``self.step = tf.function(self._step)``);
* the import/alias table (:mod:`retrace_fix.tfnames`);
* ``# retrace-fix: ignore[...]`` suppressions;
* a lazily computed position table (only files with findings pay for it);
* the ``co_qualname`` of every ``def`` (:func:`qualnames`: how recorded traces name them).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from retrace_fix.tfnames import ImportTable, Scope, dotted_name, push_children

_EXIT = object()  # marks the end of a scope on the finder's walk stack
_LEAVES = frozenset({cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.Ellipsis})

SUPPRESSION_RE = re.compile(r"#\s*retrace-fix:\s*ignore(?:\[(?P<codes>[A-Za-z0-9_,\s]*)\])?")


@dataclass
class Suppressions:
    """Line number → suppressed codes (an empty set suppresses every code)."""

    by_line: dict[int, frozenset[str]] = field(default_factory=dict)

    @classmethod
    def from_source(cls, text: str) -> "Suppressions":
        by_line: dict[int, frozenset[str]] = {}
        if "retrace-fix" not in text:
            return cls(by_line)
        for number, line in enumerate(text.splitlines(), start=1):
            match = SUPPRESSION_RE.search(line)
            if match:
                codes = match.group("codes")
                by_line[number] = frozenset(
                    c.strip().upper() for c in (codes or "").split(",") if c.strip()
                )
        return cls(by_line)

    def suppresses(self, line: int, code: str) -> bool:
        codes = self.by_line.get(line)
        if codes is None:
            return False
        return not codes or any(code.startswith(c) for c in codes)


@dataclass
class TfFunctionSite:
    """How one ``def`` becomes a tf.function."""

    node: cst.FunctionDef
    form: str  # "decorator" | "decorator-call" | "wrap-call"
    decorator: cst.Decorator | None = None
    call: cst.Call | None = None  # the tf.function(...) call that carries keyword options
    class_name: str | None = None  # set for methods


class _TfFunctionFinder:
    """Collects decorated tf.functions and the ``tf.function(f)`` call forms.

    A read-only walk over the dataclass fields (:func:`retrace_fix.tfnames.push_children`):
    LibCST's ``visit`` would rebuild every node of the module on the way.
    """

    def __init__(self, scope: Scope) -> None:
        self.scope = scope
        self.sites: dict[cst.FunctionDef, TfFunctionSite] = {}
        self.wrap_calls: list[tuple[cst.Call, cst.BaseExpression, tuple]] = []
        # scope key -> {def name -> node}; scope key = tuple of enclosing def/class nodes
        self.defs: dict[tuple, dict[str, cst.FunctionDef]] = {}
        self.references_tf_function = False
        self._stack: list[cst.CSTNode] = []

    # -- scopes
    def _key(self) -> tuple:
        return tuple(self._stack)

    def walk(self, module: cst.Module) -> None:
        exit_marker = _EXIT
        stack: list = [module]
        while stack:
            node = stack.pop()
            if node is exit_marker:
                left = stack.pop()
                if type(left) is cst.ClassDef:
                    self._stack.pop()
                elif type(left) is cst.FunctionDef:
                    self._stack.pop()
                    self.scope.pop_function()
                else:  # Lambda
                    self.scope.pop_function()
                continue
            kind = type(node)
            if kind is cst.Name:
                if node.value == "function" and self.scope.is_tf_function(node):
                    self.references_tf_function = True
                continue
            if kind is cst.Attribute:
                if node.attr.value == "function" and self.scope.is_tf_function(node):
                    self.references_tf_function = True
                    continue
            elif kind is cst.Call:
                self._visit_call(node)
            elif kind is cst.FunctionDef:
                self._enter_function(node)
                stack.append(node)
                stack.append(exit_marker)
            elif kind is cst.ClassDef:
                self._stack.append(node)
                stack.append(node)
                stack.append(exit_marker)
            elif kind is cst.Lambda:
                self.scope.push_function(node)
                stack.append(node)
                stack.append(exit_marker)
            elif kind in _LEAVES:
                continue
            push_children(node, stack)

    def _enter_function(self, node: cst.FunctionDef) -> None:
        self.defs.setdefault(self._key(), {})[node.name.value] = node
        for decorator in node.decorators:
            expr = decorator.decorator
            if self.scope.is_tf_function(expr):
                self.sites[node] = TfFunctionSite(node, "decorator", decorator=decorator)
                self.references_tf_function = True
                break
            if isinstance(expr, cst.Call) and self.scope.is_tf_function(expr.func):
                self.sites[node] = TfFunctionSite(
                    node, "decorator-call", decorator=decorator, call=expr
                )
                self.references_tf_function = True
                break
        self._stack.append(node)
        self.scope.push_function(node)

    def _visit_call(self, node: cst.Call) -> None:
        func = node.func
        if self.scope.is_tf_function(func):
            self.references_tf_function = True
            if node.args and node.args[0].keyword is None:
                # tf.function(f, ...)
                self.wrap_calls.append((node, node.args[0].value, self._key()))
        elif (
            isinstance(func, cst.Call)
            and self.scope.is_tf_function(func.func)
            and node.args
            and node.args[0].keyword is None
        ):
            # tf.function(...)(f)
            self.wrap_calls.append((func, node.args[0].value, self._key()))

    def resolve_wrap_calls(self) -> None:
        for call, target, key in self.wrap_calls:
            node, class_name = self._resolve_target(target, key)
            if node is not None and node not in self.sites:
                self.sites[node] = TfFunctionSite(node, "wrap-call", call=call, class_name=class_name)

    def _resolve_target(self, target: cst.BaseExpression, key: tuple):
        dotted = dotted_name(target)
        if dotted is None:
            return None, None
        parts = dotted.split(".")
        if len(parts) == 1:
            # innermost enclosing function/module scope that defines the name
            for depth in range(len(key), -1, -1):
                scope_key = key[:depth]
                if depth and isinstance(scope_key[-1], cst.ClassDef):
                    continue  # class bodies are not enclosing scopes for names
                found = self.defs.get(scope_key, {}).get(parts[0])
                if found is not None:
                    return found, None
            return None, None
        if len(parts) == 2 and parts[0] in ("self", "cls"):
            for depth in range(len(key), 0, -1):
                if isinstance(key[depth - 1], cst.ClassDef):
                    cls_node = key[depth - 1]
                    found = self.defs.get(key[:depth], {}).get(parts[1])
                    return found, cls_node.name.value
        return None, None


@dataclass
class ModuleAnalysis:
    """Everything a codemod needs to know about one parsed module."""

    module: cst.Module
    table: ImportTable
    tf_functions: dict[cst.FunctionDef, TfFunctionSite]
    suppressions: Suppressions
    wrapper: MetadataWrapper
    _positions: object = None
    #: the module names tf.function somewhere (a site, a call, ``tf.function`` as a value)
    references_tf_function: bool = False

    @classmethod
    def build(cls, module: cst.Module, source_text: str | None = None) -> "ModuleAnalysis":
        table = ImportTable.from_module(module)
        finder = _TfFunctionFinder(Scope(table))
        finder.walk(module)
        finder.resolve_wrap_calls()
        for site in finder.sites.values():
            if site.class_name is None:
                site.class_name = _enclosing_class(finder, site.node)
        text = source_text if source_text is not None else module.code
        return cls(
            module=module,
            table=table,
            tf_functions=finder.sites,
            suppressions=Suppressions.from_source(text),
            wrapper=MetadataWrapper(module, unsafe_skip_copy=True),
            references_tf_function=finder.references_tf_function,
        )

    def position(self, node: cst.CSTNode):
        if self._positions is None:
            self._positions = self.wrapper.resolve(PositionProvider)
        return self._positions[node]

    def line_of(self, node: cst.CSTNode) -> int:
        return self.position(node).start.line

    def column_of(self, node: cst.CSTNode) -> int:
        return self.position(node).start.column


def _enclosing_class(finder: _TfFunctionFinder, node: cst.FunctionDef) -> str | None:
    for key, defs in finder.defs.items():
        if defs.get(node.name.value) is node:
            if key and isinstance(key[-1], cst.ClassDef):
                return key[-1].name.value
            return None
    return None


# --------------------------------------------------------------------------- qualified names


class _QualnameCollector(cst.CSTVisitor):
    def __init__(self) -> None:
        self.names: dict[cst.FunctionDef, str] = {}
        self._stack: list[tuple[str, bool]] = []  # (name, is_function)

    def _prefix(self) -> str:
        parts: list[str] = []
        for name, is_function in self._stack:
            parts.append(name)
            if is_function:
                parts.append("<locals>")
        return ".".join(parts)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._stack.append((node.name.value, False))

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self._stack.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        prefix = self._prefix()
        self.names[node] = f"{prefix}.{node.name.value}" if prefix else node.name.value
        self._stack.append((node.name.value, True))

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._stack.pop()


def qualnames(module: cst.Module) -> dict[cst.FunctionDef, str]:
    """``co_qualname`` of every ``def`` (``Cls.step``, ``outer.<locals>.inner``)."""
    collector = _QualnameCollector()
    module.visit(collector)
    return collector.names
