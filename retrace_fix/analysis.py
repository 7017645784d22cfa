"""Per-module facts every codemod needs, computed once per tree and shared.

* which ``def``s are tf.functions, and through which spelling
  (:mod:`retrace_fix.tf_functions`);
* the import/alias table (:mod:`retrace_fix.tfnames`);
* ``# retrace-fix: ignore[...]`` suppressions;
* a lazily computed position table (only files with findings pay for it, and only for the
  statements that hold a finding: :mod:`retrace_fix.positions`);
* the ``co_qualname`` of every ``def`` (:func:`qualnames`: how recorded traces name them);
* LibCST's scope analysis without LibCST's empty walks (:func:`resolve_whole_module`).
"""

from __future__ import annotations

import functools
import inspect
import re
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Mapping

import libcst as cst
from libcst.metadata import BatchableMetadataProvider, MetadataWrapper, PositionProvider, ScopeProvider
from libcst.metadata.scope_provider import ScopeVisitor

from retrace_fix.cst_tree import module_code
from retrace_fix.fastvisit import SKIP_TOKENS_ATTRIBUTE, push_children
from retrace_fix.positions import StatementPositions
from retrace_fix.tf_functions import TfFunctionSite, find_tf_functions
from retrace_fix.tfnames import ImportTable, Scope

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
class ModuleAnalysis:
    """Everything a codemod needs to know about one parsed module."""

    module: cst.Module
    table: ImportTable
    tf_functions: dict[cst.FunctionDef, TfFunctionSite]
    suppressions: Suppressions
    wrapper: MetadataWrapper
    #: the text ``module`` was parsed from (its ``.code``)
    module_text: str = ""
    #: an edited tree's line -> the file's line (set by the codemod from its settings; None when
    #: no earlier codemod edited the tree): messages quote the file's lines, not the edited tree's
    origin_line: object = None
    _positions: object = None

    @classmethod
    def build(cls, module: cst.Module, source_text: str | None = None, module_text: str | None = None) -> "ModuleAnalysis":
        """``source_text``: the file's text (its suppression comments; default: the module's code);
        ``module_text``: the text ``module`` was parsed from when that is not ``source_text``
        (partial parsing empties defs)."""
        table = ImportTable.from_module(module)
        text = source_text if source_text is not None else module_code(module)  # an edited module's
        return cls(
            module=module,
            table=table,
            tf_functions=find_tf_functions(module, Scope(table)),
            suppressions=Suppressions.from_source(text),
            wrapper=MetadataWrapper(module, unsafe_skip_copy=True),
            module_text=module_text if module_text is not None else text,
        )

    def _statement_positions(self) -> StatementPositions:
        if self._positions is None:
            self._positions = StatementPositions(self.module, self.module_text,
                                                 lambda: self.wrapper.resolve(PositionProvider))
        return self._positions  # type: ignore[return-value]

    def position(self, node: cst.CSTNode):
        return self._statement_positions()[node]

    def top_level_statement(self, node: cst.CSTNode) -> cst.BaseStatement | None:
        """The statement of ``module.body`` that holds ``node`` (found by identity: no code is
        generated); None when ``node`` is not below one (a token, or not in this tree)."""
        index = self._statement_positions().statement_of(node)
        return self.module.body[index] if index is not None else None

    def scopes(self) -> Mapping[cst.CSTNode, Any]:
        """``ScopeProvider``'s answer for this tree (resolved once, on :attr:`wrapper`)."""
        return resolve_whole_module(self.wrapper, ScopeProvider)

    def line_of(self, node: cst.CSTNode) -> int:
        return self.position(node).start.line

    def file_line_of(self, node: cst.CSTNode) -> int:
        """``node``'s line in the file as the user has it, for messages ("the loop at line 12").

        :meth:`line_of` is the line in this tree, which an earlier codemod of the run may have
        edited (a line inserted above); the engine maps findings' positions back itself.
        """
        line = self.line_of(node)
        return self.origin_line(line) if self.origin_line is not None else line

    def column_of(self, node: cst.CSTNode) -> int:
        return self.position(node).start.column


# --------------------------------------------------------------------------- qualified names


#: the nodes a ``def`` or ``class`` can sit in: statements and the blocks of compound ones
_HOLDS_DEFS = (cst.BaseCompoundStatement, cst.BaseSuite, cst.Else, cst.ExceptHandler, cst.ExceptStarHandler,
               cst.Finally, cst.MatchCase)


def qualnames(module: cst.Module) -> dict[cst.FunctionDef, str]:
    """``co_qualname`` of every ``def`` (``Cls.step``, ``outer.<locals>.inner``), in source order.

    A ``def`` or ``class`` is a statement, so only compound statements and their blocks are
    entered (no expression, no simple statement: a tenth of the nodes)."""
    names: dict[cst.FunctionDef, str] = {}
    stack: list[tuple[cst.CSTNode, str]] = [(statement, "") for statement in reversed(module.body)]
    children: list = []
    while stack:
        node, prefix = stack.pop()
        if isinstance(node, cst.FunctionDef):
            name = f"{prefix}.{node.name.value}" if prefix else node.name.value
            names[node] = name
            prefix = f"{name}.<locals>"
        elif isinstance(node, cst.ClassDef):
            prefix = f"{prefix}.{node.name.value}" if prefix else node.name.value
        children.clear()
        push_children(node, children)
        stack.extend((child, prefix) for child in children if isinstance(child, _HOLDS_DEFS))
    return names


# --------------------------------------------------------------------------- metadata


class _ScopeVisitor(ScopeVisitor):
    """LibCST's scope visitor, walked without the token fields (whitespace, commas, brackets:
    about half of a module's nodes, :data:`~retrace_fix.fastvisit.SKIP_TOKENS_ATTRIBUTE`).  The
    visitor gives every node it leaves its scope, tokens included; nothing asks a token's
    scope, and no name, assignment or access sits below a token field, so every other
    node's answer is LibCST's (``tests/test_analysis_scopes.py`` compares them)."""


setattr(_ScopeVisitor, SKIP_TOKENS_ATTRIBUTE, True)


@functools.lru_cache(maxsize=None)
def _module_only(provider: type) -> bool:
    """Does the batchable ``provider`` do all its work in ``visit_Module`` (as ``ScopeProvider``
    and ``ExpressionContextProvider`` do: each walks the tree with a visitor of its own)?  Read
    once per provider class (a scan of its members)."""
    if not issubclass(provider, BatchableMetadataProvider) or provider.gen_cache is not None:
        return False
    hooks = {
        name for name in dir(provider)
        if name.startswith(("visit_", "leave_")) and not getattr(getattr(provider, name), "_is_no_op", False)
    }
    return hooks == {"visit_Module"}


@functools.lru_cache(maxsize=None)
def _scope_hook_is_known() -> bool:
    """Is ``ScopeProvider.visit_Module`` this LibCST's (1.x) three lines: a ``ScopeVisitor(self)``
    walks the module, then ``infer_accesses()``?  Read from its source, as :mod:`retrace_fix.fastvisit`
    reads LibCST's; another LibCST's hook runs as it is (its full walk), never a guess of it."""
    try:
        lines = [line.strip() for line in inspect.getsource(ScopeProvider.visit_Module).splitlines()]
    except (OSError, TypeError):
        return False
    body = [line for line in lines[1:] if line and not line.startswith("#")]
    return body == ["visitor = ScopeVisitor(self)", "node.visit(visitor)", "visitor.infer_accesses()"]


def resolve_whole_module(wrapper: MetadataWrapper, provider: type) -> Mapping[cst.CSTNode, Any]:
    """``wrapper.resolve(provider)``, less LibCST's walk around it.

    LibCST resolves a batchable provider by walking the whole tree, every whitespace and
    comma included, and calling the provider's hooks on each node; ``ScopeProvider`` and
    ``ExpressionContextProvider`` have one hook, ``visit_Module``, which does all their work
    with a walk of its own, so the outer walk (one per provider, and a scan of the
    provider's methods) calls nothing.  Such a provider is run here by calling that hook
    with its dependencies resolved the same way; the result is stored on ``wrapper`` as
    LibCST stores it, so a later ``wrapper.resolve`` finds it.  Any other provider goes
    through ``wrapper.resolve``.
    """
    done = getattr(wrapper, "_metadata", None)  # LibCST's table of resolved providers (libcst.metadata.wrapper)
    if not isinstance(done, dict):  # another LibCST's wrapper: its own resolution
        return wrapper.resolve(provider)
    if provider in done:
        return done[provider]
    if not _module_only(provider):
        return wrapper.resolve(provider)
    dependencies = {dependency: resolve_whole_module(wrapper, dependency)
                    for dependency in provider.get_inherited_dependencies()}
    instance = provider()
    instance.metadata = dependencies
    try:
        if provider is ScopeProvider and _scope_hook_is_known():
            # ScopeProvider.visit_Module, with a visitor that does not walk into tokens
            visitor = _ScopeVisitor(instance)
            wrapper.module.visit(visitor)
            visitor.infer_accesses()
        else:
            instance.visit_Module(wrapper.module)
    finally:
        instance.metadata = {}
    result = MappingProxyType(dict(instance._computed))
    done[provider] = result
    return result
