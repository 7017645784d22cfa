"""Base class shared by every retrace-fix codemod.

A codemod is a plain LibCST ``VisitorBasedCodemodCommand`` (so
``python -m libcst.tool codemod`` can run it) that additionally

* reports a :class:`~retrace_fix.findings.Finding` for every site it looks at,
  with a tier decided for that site;
* edits a site only when :meth:`RetraceCodemod.report` says so (the tier is
  allowed, the line is not suppressed, the run is not ``--check``);
* knows whether the node being visited is inside a tf.function
  (``self.in_tf_function``) and what names mean (``self.scope.qualify``).

Subclasses that override ``visit_FunctionDef``/``leave_FunctionDef`` or the
Lambda variants must call ``super()``.
"""

from __future__ import annotations

import argparse
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any, ClassVar, Iterator

import libcst as cst
from libcst.codemod import CodemodContext, VisitorBasedCodemodCommand
from libcst.metadata import MetadataWrapper

from retrace_fix.analysis import ModuleAnalysis, TfFunctionSite
from retrace_fix.findings import Finding, Tier
from retrace_fix.tfnames import Scope

_ANALYSIS_KEY = "retrace_fix.analysis"


@dataclass(frozen=True)
class CodemodSettings:
    """What the engine tells every codemod about this run."""

    unsafe_fixes: bool = False
    traces: Any = None  # retrace_fix.traces.model.TraceSet, or None
    relpath: str | None = None  # the file's path relative to the project root (trace lookup)
    source_text: str | None = None  # the original text (suppression comments)


class RetraceCodemod(VisitorBasedCodemodCommand):
    CODE: ClassVar[str] = ""
    NAME: ClassVar[str] = ""
    SUMMARY: ClassVar[str] = ""
    #: the tier users should expect from this codemod (sites may differ)
    TIER: ClassVar[Tier] = Tier.SAFE
    #: byte strings of which at least one must occur in a file worth parsing
    TRIGGERS: ClassVar[tuple[bytes, ...]] = (b"function",)
    #: True when the codemod only acts on recorded traces (``--traces``)
    NEEDS_TRACES: ClassVar[bool] = False

    DESCRIPTION: ClassVar[str] = ""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.CODE and not cls.DESCRIPTION:
            cls.DESCRIPTION = f"{cls.CODE} {cls.NAME}: {cls.SUMMARY}"

    def __init__(
        self,
        context: CodemodContext,
        settings: CodemodSettings | None = None,
        unsafe_fixes: bool = False,
        traces: str | None = None,
    ) -> None:
        super().__init__(context)
        if settings is None:  # run from `python -m libcst.tool codemod`
            trace_set = None
            if traces:
                from retrace_fix.traces.model import load_trace_files

                trace_set = load_trace_files([traces])
            settings = CodemodSettings(unsafe_fixes=unsafe_fixes, traces=trace_set,
                                       relpath=context.filename)
        self.settings = settings
        self.findings: list[Finding] = []
        self.analysis: ModuleAnalysis | None = None
        self.scope: Scope | None = None
        self._function_stack: list[cst.FunctionDef] = []
        self._tf_depth = 0

    @staticmethod
    def add_args(arg_parser: argparse.ArgumentParser) -> None:
        arg_parser.add_argument("--unsafe-fixes", action="store_true", dest="unsafe_fixes",
                                help="also apply fixes of the unsafe tier")
        arg_parser.add_argument("--traces", dest="traces", default=None,
                                help="recorded trace file (retrace-fix record)")

    # ------------------------------------------------------------------ plumbing

    def transform_module(self, tree: cst.Module) -> cst.Module:
        cached = self.context.scratch.get(_ANALYSIS_KEY)
        if cached is not None and cached.module is tree:
            self.analysis = cached
        else:
            self.analysis = ModuleAnalysis.build(tree, self._source_text_for(tree))
            self.context.scratch[_ANALYSIS_KEY] = self.analysis
        self.scope = Scope(self.analysis.table)
        return super().transform_module(tree)

    def _source_text_for(self, tree: cst.Module) -> str | None:
        if self.settings.source_text is not None and self.context.scratch.get(_ANALYSIS_KEY) is None:
            return self.settings.source_text
        return None  # recompute from the (possibly changed) tree

    def _handle_metadata_reference(self, module: cst.Module) -> Iterator[cst.Module]:
        # Share one MetadataWrapper (and its lazily computed positions) between
        # codemods while the tree is unchanged; never deep-copy the module.
        return _reuse_wrapper(self, module)

    # ------------------------------------------------------------------ scopes

    @property
    def in_tf_function(self) -> bool:
        return self._tf_depth > 0

    @property
    def current_function(self) -> cst.FunctionDef | None:
        return self._function_stack[-1] if self._function_stack else None

    def tf_site(self, node: cst.FunctionDef) -> TfFunctionSite | None:
        assert self.analysis is not None
        return self.analysis.tf_functions.get(node)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool | None:
        self._function_stack.append(node)
        assert self.scope is not None
        self.scope.push_function(node)
        if self._tf_depth or node in self.analysis.tf_functions:
            self._tf_depth += 1
        return True

    def leave_FunctionDef(self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef):
        self._function_stack.pop()
        self.scope.pop_function()
        if self._tf_depth:
            self._tf_depth -= 1
        return updated_node

    def visit_Lambda(self, node: cst.Lambda) -> bool | None:
        self.scope.push_function(node)
        return True

    def leave_Lambda(self, original_node: cst.Lambda, updated_node: cst.Lambda):
        self.scope.pop_function()
        return updated_node

    # ------------------------------------------------------------------ findings

    def is_suppressed(self, node: cst.CSTNode) -> bool:
        assert self.analysis is not None
        sup = self.analysis.suppressions
        if not sup.by_line:
            return False
        position = self.analysis.position(node)
        lines = {position.start.line, position.end.line}
        for function in self._function_stack:
            anchor = function.decorators[0] if function.decorators else function
            lines.add(self.analysis.line_of(anchor))
            lines.add(self.analysis.line_of(function.name))
        return any(sup.suppresses(line, self.CODE) for line in lines)

    def report(
        self,
        node: cst.CSTNode,
        message: str,
        tier: Tier,
        *,
        reason: str = "",
        code: str | None = None,
    ) -> bool:
        """Record a finding at ``node``; return True when the caller should edit it."""
        code = code or self.CODE
        if self.is_suppressed(node):
            return False
        applied = tier is Tier.SAFE or (tier is Tier.UNSAFE and self.settings.unsafe_fixes)
        assert self.analysis is not None
        position = self.analysis.position(node)
        self.findings.append(
            Finding(
                code=code,
                message=message,
                tier=tier,
                line=position.start.line,
                column=position.start.column,
                applied=applied,
                reason=reason,
            )
        )
        if tier is Tier.DIAGNOSTIC:
            return False
        if tier is Tier.UNSAFE and not self.settings.unsafe_fixes:
            return False
        return True


@contextmanager
def _reuse_wrapper(codemod: RetraceCodemod, module: cst.Module):
    analysis = codemod.analysis
    wrapper = analysis.wrapper if analysis is not None and analysis.module is module else None
    if wrapper is None:
        wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    old = codemod.context.wrapper
    with codemod.resolve(wrapper):
        codemod.context = replace(codemod.context, wrapper=wrapper)
        try:
            yield wrapper.module
        finally:
            codemod.context = replace(codemod.context, wrapper=old)
