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
import re
from abc import ABC
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, ClassVar, Iterator

import libcst as cst
from libcst.codemod import Codemod, CodemodContext, VisitorBasedCodemodCommand
from libcst.metadata import MetadataWrapper

from retrace_fix import fastvisit
from retrace_fix.analysis import ModuleAnalysis, TfFunctionSite, qualnames
from retrace_fix.findings import Finding, Tier
from retrace_fix.rules import Rule
from retrace_fix.tf_functions import may_reference_tf_function
from retrace_fix.tfnames import Scope

if TYPE_CHECKING:
    import ast

    from retrace_fix.partial_parse import Outline

_ANALYSIS_KEY = "retrace_fix.analysis"
_QUALNAMES_KEY = "retrace_fix.qualnames"


def shared_analysis(context: CodemodContext) -> ModuleAnalysis | None:
    """The :class:`ModuleAnalysis` the codemods of a run shared on ``context`` (None before any ran)."""
    return context.scratch.get(_ANALYSIS_KEY)


def _trigger_found(trigger: "bytes | re.Pattern[bytes]", data: bytes) -> bool:
    if isinstance(trigger, bytes):
        return trigger in data
    return trigger.search(data) is not None


@dataclass(frozen=True)
class CodemodSettings:
    """What the engine tells every codemod about this run."""

    unsafe_fixes: bool = False
    traces: Any = None  # retrace_fix.traces.model.TraceSet, or None
    relpath: str | None = None  # the file's path relative to the project root (trace lookup)
    source_text: str | None = None  # the original text (suppression comments)
    #: the text LibCST parsed when it is not ``source_text`` (partial parsing empties defs); None: ``source_text``
    parsed_text: str | None = None
    #: a ``--verify`` run: also edit the unsafe fixes and the diagnostics reported with
    #: ``verifiable=True``; the user's program then keeps or drops each of them
    verify_candidates: bool = False
    #: RTF005's decisions for the file's project root (``retrace_fix.codemods._call_site_records.CallSitePlan``),
    #: made once for the whole run before the files are processed; None without traces or RTF005
    call_sites: Any = None
    #: only these fixes may be edited, by identity ``(code, line in the file, ordinal)``
    #: (:attr:`~retrace_fix.findings.Finding.fix_id`); None: every fix the tiers allow.
    #: ``--verify`` applies subsets of the candidate fixes this way.
    selected_fixes: frozenset | None = None
    #: line of the tree being transformed -> line of the file (an earlier codemod may have
    #: edited the tree); None: the same line
    origin_line: Any = None


class RetraceCodemod(VisitorBasedCodemodCommand, ABC):
    """The base of every retrace-fix codemod (never run itself: ``ABC`` keeps it out of
    ``python -m libcst.tool list``)."""

    #: the codes this codemod reports, one :class:`~retrace_fix.rules.Rule` each, declared
    #: in its module; :mod:`retrace_fix.codemods` collects them into the table of codes
    RULES: ClassVar[tuple[Rule, ...]] = ()
    #: where the engine runs it: the codemods of a run take turns on one tree, in
    #: ascending ``ORDER`` (fixes first, 10-99; diagnostics, which only read, 100 on)
    ORDER: ClassVar[int] = 100
    #: the code :meth:`report` uses by default (the first rule's)
    CODE: ClassVar[str] = ""
    #: the codemod's name: its golden/ folder, its LibCST description, ``A`` of ``-i``
    #: (a codemod with one rule takes the rule's name, summary and tier)
    NAME: ClassVar[str] = ""
    SUMMARY: ClassVar[str] = ""
    #: the tier users should expect from this codemod (sites may differ)
    TIER: ClassVar[Tier] = Tier.SAFE
    #: byte strings (or compiled ``re`` patterns over bytes) of which at least one
    #: must occur in a file worth parsing
    TRIGGERS: ClassVar[tuple["bytes | re.Pattern[bytes]", ...]] = (b"function",)
    #: True when the codemod only acts in modules that define or create a
    #: tf.function: such a file must also match
    #: :data:`~retrace_fix.tf_functions.TF_FUNCTION_REFERENCE`
    #: before it is parsed (the engine's prefilter: most files of a TensorFlow
    #: project contain ``function`` or ``range`` but never reference tf.function).
    #: Set it to False for a codemod that also acts outside tf.functions.
    REQUIRES_TF_FUNCTION: ClassVar[bool] = True
    #: True when the codemod only acts on recorded traces (``--traces``)
    NEEDS_TRACES: ClassVar[bool] = False
    #: True (the default, always correct): the engine gives it the whole module.  False
    #: promises what :mod:`retrace_fix.partial_parse` needs to parse only part of it:
    #: everything it reports or edits is about the tf.functions of the module (inside
    #: them, in the calls that create them, at the calls of them), and what it reads
    #: elsewhere it finds by name (what a name means, who calls a function, which defs
    #: share a name).  The engine then hands it a module where the defs and classes
    #: those questions never reach are blank lines, and runs the whole module again
    #: when a codemod would edit the file.  ``tests/test_partial_parse.py`` checks the
    #: promise on its golden cases.
    NEEDS_WHOLE_MODULE: ClassVar[bool] = True

    DESCRIPTION: ClassVar[str] = ""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        rules = cls.__dict__.get("RULES")
        if rules:
            own = cls.__dict__
            cls.CODE = own.get("CODE") or rules[0].code
            if len(rules) == 1:
                cls.NAME = own.get("NAME") or rules[0].name
                cls.SUMMARY = own.get("SUMMARY") or rules[0].summary
                cls.TIER = own.get("TIER") or rules[0].tier
        if cls.CODE and not cls.DESCRIPTION:
            cls.DESCRIPTION = f"{cls.CODE} {cls.NAME}: {cls.SUMMARY}"

    @classmethod
    def codes(cls) -> tuple[str, ...]:
        """Every code this codemod reports (its rules', in declaration order)."""
        return tuple(rule.code for rule in cls.RULES)

    def __init__(
        self,
        context: CodemodContext,
        settings: CodemodSettings | None = None,
        unsafe_fixes: bool = False,
        traces: str | None = None,
    ) -> None:
        self._fast_hooks = _hooks_of(type(self))
        if self._fast_hooks is None:
            super().__init__(context)
        else:
            # ContextAwareTransformer.__init__ without MatcherDecoratableTransformer's
            # scan of ~3,000 attributes for matcher decorators (15 ms per instance):
            # this class has none (see _plain_dispatch), and on_visit/on_leave here
            # do not consult them.
            Codemod.__init__(self, context)
            cst.CSTTransformer.__init__(self)
            self._extra_visit_funcs = {}
            self._extra_leave_funcs = {}
            self._matchers = {}
        if settings is None:  # run from `python -m libcst.tool codemod`
            trace_set = None
            if traces:
                from retrace_fix.traces.model import load_trace_files

                trace_set = load_trace_files([traces])
            settings = CodemodSettings(unsafe_fixes=unsafe_fixes, traces=trace_set,
                                       relpath=_project_relpath(context.filename))
        self.settings = settings
        self.findings: list[Finding] = []
        #: ``(code, subject)`` of the findings a suppression comment hid (the engine's
        #: one-problem-one-finding rule, :attr:`retrace_fix.rules.Rule.defers_to`)
        self.suppressed_subjects: list[tuple[str, tuple]] = []
        self.analysis: ModuleAnalysis | None = None
        self.scope: Scope | None = None
        self._function_stack: list[cst.FunctionDef] = []
        self._tf_depth = 0
        self._fix_ordinals: dict[tuple[str, int], int] = {}

    @classmethod
    def might_apply(cls, data: bytes) -> bool:
        """Can the raw bytes of a file hold a target of this codemod (decided before parsing)?"""
        if not any(_trigger_found(trigger, data) for trigger in cls.TRIGGERS):
            return False
        return not cls.REQUIRES_TF_FUNCTION or may_reference_tf_function(data)

    @classmethod
    def might_apply_to_tree(cls, tree: "ast.Module", outline: "Outline") -> bool:
        """Can a module whose bytes passed :meth:`might_apply` hold a target, seen in CPython's
        tree (a tenth of a LibCST parse)?  A superset of what the codemod acts on: False
        means it would report nothing there.  By default: a codemod that requires a
        tf.function needs a name that can be one
        (:attr:`~retrace_fix.partial_parse.Outline.references_tf_function`)."""
        return not cls.REQUIRES_TF_FUNCTION or outline.references_tf_function

    @classmethod
    def likely_to_edit(cls, outline: "Outline") -> bool:
        """Will the codemod probably edit this module (a guess from its text and CPython's tree)?

        A hint, never a promise either way: where it says yes, the engine gives LibCST the
        whole module at once instead of a part of it (:mod:`retrace_fix.partial_parse`),
        since a file that is edited is run again whole anyway.  By default: no.
        """
        return False

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
            source_text = self._source_text_for(tree)
            parsed_text = self.settings.parsed_text if source_text is not None else None
            self.analysis = ModuleAnalysis.build(tree, source_text, module_text=parsed_text)
            self.context.scratch[_ANALYSIS_KEY] = self.analysis
        self.analysis.origin_line = self.settings.origin_line  # this tree's lines -> the file's (messages)
        self.scope = Scope(self.analysis.table)
        if cst.CSTNode.visit is fastvisit.fast_visit:  # the engine installed it
            return super().transform_module(tree)
        with fastvisit.installed():  # libcst.tool and other direct callers walk as the engine does
            return super().transform_module(tree)

    def _source_text_for(self, tree: cst.Module) -> str | None:
        if self.settings.source_text is not None and self.context.scratch.get(_ANALYSIS_KEY) is None:
            return self.settings.source_text
        return None  # recompute from the (possibly changed) tree

    def _handle_metadata_reference(self, module: cst.Module) -> Iterator[cst.Module]:
        # Share one MetadataWrapper (and its lazily computed positions) between
        # codemods while the tree is unchanged; never deep-copy the module.
        return _reuse_wrapper(self, module)

    # ------------------------------------------------------------------ dispatch
    #
    # LibCST's codemod base (a MatcherDecoratableTransformer) evaluates matcher
    # decorators on every node and looks up ``visit_<Node>_<field>`` hooks with two
    # formatted getattr calls per field of every node: about half the cost of a
    # pass.  No retrace-fix codemod uses matcher decorators or per-field hooks, so
    # unless a subclass does, hooks are looked up once per node type and class.

    def on_visit(self, node: cst.CSTNode) -> bool:
        hooks = self._fast_hooks
        if hooks is None:
            return super().on_visit(node)
        entry = hooks.get(type(node)) or _hook_entry(type(self), hooks, type(node))
        visit = entry[0]
        if visit is None:
            return True
        return visit(self, node) is not False

    def on_leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode):
        hooks = self._fast_hooks
        if hooks is None:
            return super().on_leave(original_node, updated_node)
        entry = hooks.get(type(original_node)) or _hook_entry(type(self), hooks, type(original_node))
        leave = entry[1]
        if leave is None:
            return updated_node
        return leave(self, original_node, updated_node)

    @classmethod
    def retrace_fix_standard_dispatch(cls) -> bool:
        """True when on_visit/on_leave only call ``visit_<Node>``/``leave_<Node>``
        (retrace_fix.fastvisit may then skip token fields this class has no hooks for)."""
        return _hooks_of(cls) is not None

    def on_visit_attribute(self, node: cst.CSTNode, attribute: str) -> None:
        if self._fast_hooks is None:
            super().on_visit_attribute(node, attribute)

    def on_leave_attribute(self, original_node: cst.CSTNode, attribute: str) -> None:
        if self._fast_hooks is None:
            super().on_leave_attribute(original_node, attribute)

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

    def is_suppressed(self, node: cst.CSTNode, code: str | None = None) -> bool:
        """Is ``code`` (default: this codemod's) suppressed at ``node``, its line or an enclosing decorator line?"""
        code = code or self.CODE
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
        return any(sup.suppresses(line, code) for line in lines)

    def report(
        self,
        node: cst.CSTNode,
        message: str,
        tier: Tier,
        *,
        reason: str = "",
        code: str | None = None,
        subjects: tuple = (),
        verifiable: bool = False,
    ) -> bool:
        """Record a finding at ``node``; return True when the caller should edit it.

        ``subjects`` (from :meth:`subject`) say what problem the finding is about, so
        that the engine reports each problem once (:attr:`retrace_fix.rules.Rule.defers_to`).
        ``verifiable``: a diagnostic refused only for lack of evidence, whose edit the
        caller can still build; in a ``--verify`` run (``settings.verify_candidates``) it
        is edited like an unsafe fix, and the run of the user's program decides.

        Every finding gets an identity, :attr:`~retrace_fix.findings.Finding.fix_id`;
        with ``settings.selected_fixes`` only the selected fixes are edited (one
        mechanism for every codemod: the caller edits when this returns True).
        """
        code = code or self.CODE
        if code not in self.codes():
            raise ValueError(f"{type(self).__name__} reports {code}, which is none of its RULES")
        if self.is_suppressed(node, code):
            self.suppressed_subjects.extend((code, s) for s in subjects)
            return False
        candidates = self.settings.verify_candidates
        applied = (
            tier is Tier.SAFE
            or (tier is Tier.UNSAFE and (self.settings.unsafe_fixes or candidates))
            or (tier is Tier.DIAGNOSTIC and verifiable and candidates)
        )
        assert self.analysis is not None
        position = self.analysis.position(node)
        fix_id = self._fix_id(code, position.start.line)
        if applied and self.settings.selected_fixes is not None:
            applied = fix_id in self.settings.selected_fixes
        self.findings.append(
            Finding(
                code=code,
                message=message,
                tier=tier,
                line=position.start.line,
                column=position.start.column,
                applied=applied,
                reason=reason,
                subjects=tuple(subjects),
                verifiable=verifiable,
                fix_id=fix_id,
            )
        )
        return applied

    def _fix_id(self, code: str, line: int) -> tuple[str, int, int]:
        """``(code, line in the file, ordinal among this code's findings on that line)``."""
        origin = self.settings.origin_line
        file_line = origin(line) if origin is not None else line
        ordinal = self._fix_ordinals.get((code, file_line), 0)
        self._fix_ordinals[(code, file_line)] = ordinal + 1
        return (code, file_line, ordinal)

    def call_sites_converted(self, function: Any) -> Any:
        """RTF005's decision for recorded ``function`` (a ``FunctionTraces``) when it converts the
        function's call sites in this run, else None: RTF003 then writes no signature for it, and
        RTF004 proves ``reduce_retracing`` on the converted traces."""
        plan = self.settings.call_sites
        decision = plan.for_function(function.key) if plan is not None else None
        return decision if decision is not None and decision.applies(self.settings) else None

    def subject(self, kind: str, function: cst.FunctionDef, param: str) -> tuple[str, str, str]:
        """``(kind, qualname of function, param)``: the problem a finding is about.

        Kinds: ``"python-value"`` (a parameter called with varying Python values),
        ``"dtype"`` (a parameter called with tensors of varying dtypes), ``"function"``
        (``param`` empty: why the function as a whole keeps retracing).  ``function``
        is a def of the tree this codemod is transforming.
        """
        return (kind, self.qualname(function), param)

    def qualname(self, function: cst.FunctionDef) -> str:
        """``co_qualname`` of a def of the tree this codemod is transforming (how traces name it)."""
        assert self.analysis is not None
        cached = self.context.scratch.get(_QUALNAMES_KEY)
        if cached is None or cached[0] is not self.analysis.module:
            cached = (self.analysis.module, qualnames(self.analysis.module))
            self.context.scratch[_QUALNAMES_KEY] = cached
        return cached[1].get(function, function.name.value)


def _project_relpath(filename: str | None) -> str | None:
    """A file's path relative to its project root (how trace files name it)."""
    if not filename:
        return filename
    from pathlib import Path

    from retrace_fix.sources.discovery import find_project_root

    path = Path(filename).resolve()
    try:
        return path.relative_to(find_project_root(path.parent)).as_posix()
    except ValueError:
        return path.as_posix()


_NO_FAST_DISPATCH = object()
_FAST_DISPATCH: dict[type, Any] = {}


def _hooks_of(cls: type) -> dict | None:
    """Per node type ``(visit, leave)`` functions of a codemod class, or None when the
    class needs LibCST's generic dispatch (matcher decorators, per-field hooks)."""
    hooks = _FAST_DISPATCH.get(cls)
    if hooks is None:
        hooks = {} if _plain_dispatch(cls) else _NO_FAST_DISPATCH
        _FAST_DISPATCH[cls] = hooks
    return None if hooks is _NO_FAST_DISPATCH else hooks


def _plain_dispatch(cls: type) -> bool:
    from libcst.matchers._visitors import (
        _gather_constructed_leave_funcs,
        _gather_constructed_visit_funcs,
        _gather_matchers,
    )

    for name in dir(cls):
        if name.startswith(("visit_", "leave_")):
            node_name, _, field_name = name.partition("_")[2].partition("_")
            if field_name and isinstance(getattr(cst, node_name, None), type) and _own_hook(cls, name):
                return False  # a visit_<Node>_<field> hook
    probe = object.__new__(cls)
    try:
        if _gather_matchers(probe) or _gather_constructed_visit_funcs(probe) or _gather_constructed_leave_funcs(probe):
            return False
    except Exception:  # pragma: no cover - be conservative
        return False
    return True


def _own_hook(cls: type, name: str) -> Any:
    """``cls``'s method ``name`` unless it is one of LibCST's no-op stubs (or absent)."""
    for klass in cls.__mro__:
        if name in klass.__dict__:
            if klass.__module__.startswith("libcst."):
                return None
            return getattr(cls, name)
    return None


def _hook_entry(cls: type, hooks: dict, node_type: type) -> tuple:
    name = node_type.__name__
    entry = (_own_hook(cls, f"visit_{name}"), _own_hook(cls, f"leave_{name}"))
    hooks[node_type] = entry
    return entry


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
