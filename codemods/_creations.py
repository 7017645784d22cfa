"""Where a module creates tf.function objects, and which creations run over and over.

Shared by RTF101 (the diagnostic: a tf.function created per call or per
iteration) and RTF006 (hoist-tf-function, which moves such a creation out
where it can prove the program stays the same).  One problem, one finding:
both name the creation with :func:`creation_subject`, and RTF101 defers to
RTF006 where RTF006 reports.

A *creation* is a ``@tf.function`` ``def`` (decorator or decorator call),
``tf.function(f, ...)`` or ``tf.function(...)(f)``.  Its *static evidence* of
running repeatedly is a loop or comprehension around it in its own function,
or a call of its enclosing function in a loop of this module.  Creation guarded
by a cache check (``if key not in cache:``, ``if self._fn is None:``), in
``__init__``/``build``-like factories, or in a ``functools.cache``d function is
not repeated.

Pure LibCST; never imports TensorFlow.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from retrace_fix.codemods._callsites import ModuleCalls
from retrace_fix.node_text import short_code
from retrace_fix.tfnames import Scope, dotted_name

#: methods that build an object's parts once: a tf.function created there is per object, not per call
FACTORY_NAMES = ("__init__", "__new__", "__post_init__", "build", "setup", "__call__")
_CACHE_DECORATORS = ("cache", "lru_cache", "cached_property", "memoize", "memoized")


@dataclass(frozen=True)
class Creation:
    """One place a tf.function object is created."""

    #: the decorated ``def``, or the ``tf.function(...)`` call (``tf.function(...)(f)``: the outer call)
    node: cst.CSTNode
    #: the ``def``s around it, outermost first (a decorated def is not its own enclosing function)
    functions: tuple[cst.FunctionDef, ...]
    #: loops and comprehensions around it inside its innermost function (or at module level)
    loops: tuple[cst.CSTNode, ...]
    guarded: bool  # inside an ``if`` that checks a cache
    shown: str  # how messages name it: "`@tf.function def step`" or the call's code

    @property
    def is_def(self) -> bool:
        return isinstance(self.node, cst.FunctionDef)

    @property
    def owner(self) -> cst.FunctionDef | None:
        """The function whose every call runs this creation (None: module level)."""
        return self.functions[-1] if self.functions else None

    @property
    def suppression_functions(self) -> tuple[cst.FunctionDef, ...]:
        """The defs whose decorator/def lines suppress a finding here (a decorated def's own included)."""
        return (*self.functions, self.node) if isinstance(self.node, cst.FunctionDef) else self.functions


_CACHE_KEY = "retrace_fix.tf_function_creations"


def find_creations(analysis, scope: Scope, scratch: dict | None = None) -> list[Creation]:
    """Every tf.function creation of the module, in source order (kept in ``scratch`` while the
    tree is unchanged: RTF006 and RTF101 walk the same module)."""
    cached = scratch.get(_CACHE_KEY) if scratch is not None else None
    if cached is not None and cached[0] is analysis.module:
        return cached[1]
    finder = _CreationFinder(analysis, scope)
    analysis.module.visit(finder)
    if scratch is not None:
        scratch[_CACHE_KEY] = (analysis.module, finder.creations)
    return finder.creations


def repeated_evidence(creation: Creation, calls: ModuleCalls, line_of) -> str | None:
    """Why this module runs ``creation`` over and over (static evidence), or None.

    ``line_of`` gives a node's line.  The wording completes "... creates a new
    tf.function ...": ``"on every iteration of the loop at line 12"`` or
    ``"every time `run` runs, and it is called in a loop (line 30)"``.
    """
    if creation.loops:
        return f"on every iteration of the loop at line {line_of(creation.loops[-1])}"
    owner = creation.owner
    if creation.guarded or owner is None:
        return None
    if owner.name.value in FACTORY_NAMES or is_cached(owner):
        return None
    repeated = calls.repeated_calls(owner.name.value)
    if not repeated:
        return None
    return f"every time `{owner.name.value}` runs, and it is called in a loop (line {line_of(repeated[0].call)})"


def creation_subject(creation: Creation, qualname_of) -> tuple[str, str, str]:
    """``("tf-function-creation", where, what)``: the problem RTF101 and RTF006 both report.

    ``qualname_of`` maps a def to its qualified name.  Stable under edits that
    move lines (the enclosing function's name and the creation's code).
    """
    where = qualname_of(creation.owner) if creation.owner is not None else "<module>"
    return ("tf-function-creation", where or "<module>", creation.shown)


def is_factory(function: cst.FunctionDef) -> bool:
    """A method that builds an object's parts once, or a cached function."""
    return function.name.value in FACTORY_NAMES or is_cached(function)


def is_cached(function: cst.FunctionDef) -> bool:
    for decorator in function.decorators:
        expr = decorator.decorator
        name = dotted_name(expr.func if isinstance(expr, cst.Call) else expr) or ""
        if name.split(".")[-1] in _CACHE_DECORATORS:
            return True
    return False


class _CreationFinder(cst.CSTVisitor):
    """Every place a tf.function object is created, with its enclosing defs and loops."""

    def __init__(self, analysis, scope: Scope) -> None:
        self.analysis = analysis
        self.scope = scope
        self.functions: list[cst.FunctionDef] = []
        self.loops: list[list[cst.CSTNode]] = [[]]
        self.guards: list[list[bool]] = [[]]
        self.decorator_depth = 0
        self.creations: list[Creation] = []

    def _record(self, node: cst.CSTNode, shown: str) -> None:
        self.creations.append(
            Creation(node, tuple(self.functions), tuple(self.loops[-1]), any(self.guards[-1]), shown)
        )

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        site = self.analysis.tf_functions.get(node)
        if site is not None and site.form in ("decorator", "decorator-call"):
            self._record(node, f"`@tf.function def {node.name.value}`")
        self.functions.append(node)
        self.scope.push_function(node)
        self.loops.append([])
        self.guards.append([])

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.functions.pop()
        self.scope.pop_function()
        self.loops.pop()
        self.guards.pop()

    def visit_Lambda(self, node: cst.Lambda) -> None:
        self.scope.push_function(node)

    def leave_Lambda(self, original_node: cst.Lambda) -> None:
        self.scope.pop_function()

    def visit_Decorator(self, node: cst.Decorator) -> None:
        self.decorator_depth += 1

    def leave_Decorator(self, original_node: cst.Decorator) -> None:
        self.decorator_depth -= 1

    def visit_For(self, node: cst.For) -> bool:
        node.iter.visit(self)
        self.loops[-1].append(node)
        node.body.visit(self)
        self.loops[-1].pop()
        if node.orelse is not None:
            node.orelse.visit(self)
        return False

    def visit_While(self, node: cst.While) -> None:
        self.loops[-1].append(node)

    def leave_While(self, original_node: cst.While) -> None:
        self.loops[-1].pop()

    def _comp(self, node) -> None:
        self.loops[-1].append(node)

    def _comp_leave(self, original_node) -> None:
        self.loops[-1].pop()

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _comp
    leave_ListComp = leave_SetComp = leave_DictComp = leave_GeneratorExp = _comp_leave

    def visit_If(self, node: cst.If) -> None:
        self.guards[-1].append(_is_cache_guard(node.test))

    def leave_If(self, original_node: cst.If) -> None:
        self.guards[-1].pop()

    def visit_Call(self, node: cst.Call) -> None:
        if self.decorator_depth:
            return
        func = node.func
        positional = bool(node.args) and node.args[0].keyword is None and not node.args[0].star
        if self.scope.is_tf_function(func) and positional:
            self._record(node, f"`{short_code(node)}`")
        elif (
            isinstance(func, cst.Call)
            and self.scope.is_tf_function(func.func)
            and positional
            and not any(a.keyword is None for a in func.args)  # tf.function(...)(f), not tf.function(f)(x)
        ):
            self._record(node, f"`{short_code(node)}`")


def _is_cache_guard(test: cst.BaseExpression) -> bool:
    """``if key not in cache`` / ``if self._fn is None`` / ``if not hasattr(...)`` / ``if not self._fn``."""
    found = False

    class _V(cst.CSTVisitor):
        def visit_Comparison(self, node: cst.Comparison) -> None:
            nonlocal found
            for target in node.comparisons:
                if isinstance(target.operator, (cst.NotIn, cst.In)):
                    found = True
                if isinstance(target.operator, (cst.Is, cst.IsNot, cst.Equal)) and isinstance(
                    target.comparator, cst.Name
                ) and target.comparator.value == "None":
                    found = True

        def visit_Call(self, node: cst.Call) -> None:
            nonlocal found
            if isinstance(node.func, cst.Name) and node.func.value in ("hasattr", "getattr"):
                found = True

        def visit_UnaryOperation(self, node: cst.UnaryOperation) -> None:
            nonlocal found
            if isinstance(node.operator, cst.Not):
                found = True

    test.visit(_V())
    return found
