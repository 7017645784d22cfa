"""The base of the codemods that edit a recorded tf.function where it is created.

RTF003 (input-signature) and RTF004 (reduce-retracing) read the recorded traces of a
tf.function (:func:`~retrace_fix.codemods._source_info.signature_decisions_by_def`) and edit its
``@tf.function(...)`` decorator or its ``tf.function(f, ...)`` call.
:class:`TracedDefsCodemod` finds those places and calls :meth:`handle_traced` once
for each: at the decorator while visiting the ``def``, or at the ``tf.function``
call (unless the ``def`` line's suppression comment names the code).
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import libcst as cst

from retrace_fix.analysis import TfFunctionSite
from retrace_fix.codemods._base import RetraceCodemod
from retrace_fix.codemods._source_info import signature_decisions_by_def
from retrace_fix.traces.generalize import SignatureDecision


class TracedDefsCodemod(RetraceCodemod, ABC):
    """Calls :meth:`handle_traced` for each tf.function of the module with recorded traces
    (``ABC``: not listed by ``libcst.tool list``)."""

    def visit_Module(self, node: cst.Module) -> bool:
        self._plans = signature_decisions_by_def(self) if self.settings.traces is not None else {}
        self._wrap_sites: dict[cst.Call, tuple[cst.FunctionDef, TfFunctionSite]] = {}
        for function, site in self.analysis.tf_functions.items():
            if site.form == "wrap-call" and function in self._plans and site.call is not None:
                self._wrap_sites[site.call] = (function, site)
        return True

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        super().visit_FunctionDef(node)
        plan = self._plans.get(node)
        site = self.tf_site(node)
        if plan is not None and site is not None and site.form != "wrap-call" and site.decorator is not None:
            self.handle_traced(node, site, plan, site.decorator)
        return True

    def visit_Call(self, node: cst.Call) -> bool:
        entry = self._wrap_sites.get(node)
        if entry is not None:
            function, site = entry
            if not self.def_suppressed(function):
                self.handle_traced(function, site, self._plans[function], node)
        return True

    def def_suppressed(self, function: cst.FunctionDef) -> bool:
        """A suppression comment for this codemod's code on the ``def`` line."""
        sup = self.analysis.suppressions
        return bool(sup.by_line) and sup.suppresses(self.analysis.line_of(function.name), self.CODE)

    @abstractmethod
    def handle_traced(self, function: cst.FunctionDef, site: TfFunctionSite, plan: SignatureDecision,
                      anchor: cst.CSTNode) -> None:
        """Report on (and edit at ``anchor``) one tf.function with recorded traces."""
