"""The base of the codemods that only report (the RTF1xx diagnostics), and their rule pages.

* :class:`ReportOnlyCodemod` - a codemod that modifies nothing: every finding is
  a diagnostic.  One such codemod emits several codes; ``RetraceCodemod.report``
  checks suppressions (``# retrace-fix: ignore[RTF104]``) against the code
  being reported;
* :class:`TfFunctionDiagnostics` - one that reads only modules with tf.functions
  (the rest of the module by name only), with the run's cached binding tables;
* :func:`doc_page` - the *What it does / Why it retraces / Example / Fix safety*
  page of one code;
* :func:`report_only_rules` - the rules of one such codemod, a row per code.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import libcst as cst

from retrace_fix.codemods._base import RetraceCodemod
from retrace_fix.codemods._callsites import CachedScope
from retrace_fix.findings import Tier
from retrace_fix.rules import Rule


class ReportOnlyCodemod(RetraceCodemod, ABC):
    """The base of the codemods that only report (``ABC``: not listed by ``libcst.tool list``)."""

    TIER = Tier.DIAGNOSTIC

    def report(
        self,
        node: cst.CSTNode,
        message: str,
        tier: Tier = Tier.DIAGNOSTIC,
        *,
        reason: str = "",
        code: str | None = None,
        subjects: tuple = (),
    ) -> bool:
        super().report(node, message, Tier.DIAGNOSTIC, reason=reason, code=code or self.CODE, subjects=subjects)
        return False  # diagnostics never edit

    def diagnose(self, node: cst.CSTNode, code: str, message: str, functions=(), subjects: tuple = ()) -> None:
        """Report ``message`` at ``node`` as ``code``; ``functions`` are the defs around it (suppression)."""
        saved = self._function_stack
        if functions:
            self._function_stack = list(functions)
        try:
            self.report(node, message, code=code, subjects=subjects)
        finally:
            self._function_stack = saved


class TfFunctionDiagnostics(ReportOnlyCodemod, ABC):
    """A report-only codemod that reads only modules with tf.functions, the rest of the module by name
    only, with the binding tables the run's codemods share (``self.scope``)."""

    NEEDS_WHOLE_MODULE = False

    def transform_module_impl(self, tree: cst.Module) -> cst.Module:
        if self.analysis.tf_functions:
            self.scope = CachedScope(self.analysis.table, self.context.scratch)
            self.diagnose_module(tree)
        return tree

    @abstractmethod
    def diagnose_module(self, tree: cst.Module) -> None:
        """Report on ``tree``, a module with tf.functions (never edits it)."""


def doc_page(what: str, why: str, example: str, safety: str) -> str:
    """The *What it does / Why it retraces / Example / Fix safety* page of one code."""
    def block(text: str) -> str:
        lines = text.strip("\n").splitlines()
        return "\n".join(("    " + line) if line.strip() else "" for line in lines)

    return (
        f"What it does\n{block(what)}\n\n"
        f"Why it retraces\n{block(why)}\n\n"
        f"Example\n{block(example)}\n\n"
        f"Fix safety\n{block(safety)}\n"
    )


def report_only_rules(golden: str, *rows: tuple) -> tuple[Rule, ...]:
    """The rules of a report-only codemod whose cases live in ``golden/<golden>/``, every one a diagnostic:
    a row per code, ``(code, name, summary, doc)`` or ``(code, name, summary, doc, defers_to)``."""
    return tuple(Rule(code, name, Tier.DIAGNOSTIC, summary, doc, golden, *rest) for code, name, summary, doc, *rest in rows)
