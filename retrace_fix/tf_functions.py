"""Which ``def``s of a module are tf.functions: the one detector, asked at three prices.

1. :func:`may_reference_tf_function` - the file's bytes (a regular expression,
   :data:`TF_FUNCTION_REFERENCE`): could it name ``tf.function`` at all?  The
   engine's prefilter asks it before anything is parsed.
2. :func:`ast_references_tf_function` - CPython's ``ast`` of the file (a tenth of
   a LibCST parse): could any name in it be ``tf.function``, given its imports?
3. :func:`find_tf_functions` - the LibCST tree, with scopes: which ``def`` becomes
   a tf.function, and through which spelling (``@tf.function``,
   ``@tf.function(...)``, ``g = tf.function(f, ...)``, ``tf.function(...)(f)``,
   ``self.step = tf.function(self._step)``).

Each answer covers the next one: a file the bytes or the ``ast`` rule out holds
no tf.function that the tree would find (``benchmarks/corpus.py`` checks it on
real projects, ``tests/test_tf_functions.py`` on the golden cases).  All three
resolve names with :mod:`retrace_fix.tfnames`.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

import libcst as cst

from retrace_fix.ast_walk import TreeIndex
from retrace_fix.tfnames import TF_FUNCTION, Scope, canonical, dotted_name, push_children

_EXIT = object()  # marks the end of a scope on the finder's walk stack
_LEAVES = frozenset({cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.Ellipsis})

# --------------------------------------------------------------------------- 1. bytes

#: Bytes that any reference to ``tf.function`` needs: an attribute ``<x>.function``
#: (``tf.function``, ``tf.compat.v2.function``, ``def_function.function``, also with
#: whitespace or a line continuation after the dot) or the name ``function`` in an
#: import statement (``from tensorflow import function as tfn``, parenthesised or
#: continued).  Far narrower than ``b"function"`` (in about half of all TensorFlow
#: files, against under a tenth for this), and it misses nothing that
#: :func:`find_tf_functions` resolves as tf.function.
TF_FUNCTION_REFERENCE = re.compile(
    rb"\.[ \t\\\r\n]*function\b"
    rb"|\bimport[ \t]*\([^)]*\bfunction\b"
    rb"|\bimport\b(?:[^\n;#\\]|\\(?:\r\n|\n|.))*\bfunction\b"
)


# The same three alternatives, searched faster: ``re`` tries every alternative at every
# byte of the file, and a pattern that starts with ``\b`` has no literal to skip ahead
# to.  The attribute alternative starts with a literal ``.``; the two import
# alternatives are tried only where the word ``import`` is.
_ATTRIBUTE = re.compile(rb"\.[ \t\\\r\n]*function\b")
_IMPORT_PARENTHESISED = re.compile(rb"import[ \t]*\([^)]*\bfunction\b")
_IMPORT_LINE = re.compile(rb"import\b(?:[^\n;#\\]|\\(?:\r\n|\n|.))*\bfunction\b")
_WORD_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


def may_reference_tf_function(data: bytes) -> bool:
    """:data:`TF_FUNCTION_REFERENCE` in ``data`` (the last answer is remembered: every
    codemod of a run asks about the same file)."""
    if _LAST_REFERENCE[0] is data:
        return _LAST_REFERENCE[1]
    found = b"function" in data and (_ATTRIBUTE.search(data) is not None or _imports_function(data))
    _LAST_REFERENCE[:] = [data, found]
    return found


def _imports_function(data: bytes) -> bool:
    """The import alternatives of :data:`TF_FUNCTION_REFERENCE`, tried at each word ``import``."""
    at = data.find(b"import")
    while at != -1:
        if (at == 0 or data[at - 1] not in _WORD_BYTES) and (
            _IMPORT_PARENTHESISED.match(data, at) or _IMPORT_LINE.match(data, at)
        ):
            return True
        at = data.find(b"import", at + 6)
    return False


_LAST_REFERENCE: list = [None, False]


# --------------------------------------------------------------------------- 2. CPython's ast


def ast_references_tf_function(tree: ast.Module, index: TreeIndex | None = None) -> bool:
    """Could any ``function`` name or attribute in the module be ``tf.function``?

    A superset of what :func:`find_tf_functions` resolves:
    imports anywhere in the module count, shadowing is ignored.  Deciding this on
    CPython's tree costs a tenth of what parsing with LibCST would.  ``index``: the
    tree's :class:`~retrace_fix.ast_walk.TreeIndex`, if made already.
    """
    if index is None:
        index = TreeIndex(tree)
    bound: dict[str, list[str]] = {}
    for node in index.of_type(ast.Import):
        for alias in node.names:  # type: ignore[attr-defined]
            if alias.asname:
                bound.setdefault(alias.asname, []).append(alias.name)
            else:
                head = alias.name.split(".")[0]
                bound.setdefault(head, []).append(head)
    for node in index.of_type(ast.ImportFrom):
        if node.level or not node.module:  # type: ignore[attr-defined]
            continue
        for alias in node.names:  # type: ignore[attr-defined]
            if alias.name != "*":
                bound.setdefault(alias.asname or alias.name, []).append(f"{node.module}.{alias.name}")  # type: ignore[attr-defined]
    if not bound:
        return False
    # a bare name an import binds to tf.function (`tfn` from `import function as tfn`), used
    aliases = {name for name, targets in bound.items() if any(canonical(target) == TF_FUNCTION for target in targets)}
    if aliases and any(node.id in aliases for node in index.of_type(ast.Name)):  # type: ignore[attr-defined]
        return True
    for node in index.of_type(ast.Attribute):  # `<chain>.function`
        if node.attr != "function":  # type: ignore[attr-defined]
            continue
        parts: list[str] = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name):
            continue
        rest = ".".join(reversed(parts))
        for target in bound.get(node.id, ()):
            if canonical(f"{target}.{rest}" if rest else target) == TF_FUNCTION:
                return True
    return False


# --------------------------------------------------------------------------- 3. the LibCST tree


def find_tf_functions(module: cst.Module, scope: Scope) -> dict[cst.FunctionDef, TfFunctionSite]:
    """Every ``def`` of ``module`` that becomes a tf.function, with how it does."""
    finder = _TfFunctionFinder(scope)
    finder.walk(module)
    finder.resolve_wrap_calls()
    for site in finder.sites.values():
        if site.class_name is None:
            site.class_name = _enclosing_class(finder, site.node)
    return finder.sites


@dataclass
class TfFunctionSite:
    """How one ``def`` becomes a tf.function."""

    node: cst.FunctionDef
    form: str  # "decorator" | "decorator-call" | "wrap-call"
    decorator: cst.Decorator | None = None
    call: cst.Call | None = None  # the tf.function(...) call that carries keyword options
    class_name: str | None = None  # set for methods

    def keywords(self) -> dict[str, cst.Arg]:
        """Keyword arguments already given to the ``tf.function(...)`` of this site."""
        call = self.call
        if call is None and self.decorator is not None and isinstance(self.decorator.decorator, cst.Call):
            call = self.decorator.decorator
        if call is None:
            return {}
        return {arg.keyword.value: arg for arg in call.args if arg.keyword is not None}

    @property
    def has_input_signature(self) -> bool:
        """Given an ``input_signature``: it cannot retrace on shapes or dtypes, and traces judge nothing."""
        return "input_signature" in self.keywords()


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
                continue
            if kind is cst.Call:
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
                break
            if isinstance(expr, cst.Call) and self.scope.is_tf_function(expr.func):
                self.sites[node] = TfFunctionSite(
                    node, "decorator-call", decorator=decorator, call=expr
                )
                break
        self._stack.append(node)
        self.scope.push_function(node)

    def _visit_call(self, node: cst.Call) -> None:
        func = node.func
        if self.scope.is_tf_function(func):
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


def _enclosing_class(finder: _TfFunctionFinder, node: cst.FunctionDef) -> str | None:
    for key, defs in finder.defs.items():
        if defs.get(node.name.value) is node:
            if key and isinstance(key[-1], cst.ClassDef):
                return key[-1].name.value
            return None
    return None
