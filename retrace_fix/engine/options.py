"""What a run is asked and what it gives back: :class:`RunOptions` (picklable, sent to every
worker), :class:`FileJob` (one file), :class:`RunResult`, and which codemods the options select."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from retrace_fix.codemods import REGISTRY, RULES
from retrace_fix.codemods._base import RetraceCodemod
from retrace_fix.findings import FileResult, Finding

CALL_SITE_CODE = "RTF005"


@dataclass(frozen=True)
class RunOptions:
    """Everything that decides what a run does to a file (picklable for workers)."""

    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] = ()
    unsafe_fixes: bool = False
    traces: Any = None  # retrace_fix.traces.model.TraceSet
    #: which trace files apply to which project root (retrace_fix.traces.project.TraceAssignment);
    #: None: ``traces`` applies to every file
    trace_assignment: Any = None
    #: skip files whose bytes cannot hold a target before parsing them (False: parse
    #: every file; the corpus check uses it to prove the prefilter loses nothing)
    prefilter: bool = True
    #: give LibCST only the statements the analyses read when every codemod to run
    #: allows it (retrace_fix.partial_parse; False: always the whole module)
    partial_parse: bool = True
    #: also check the syntax of files whose bytes cannot hold a target (``--check-syntax``);
    #: by default they are never parsed, so their syntax errors are not reported
    check_syntax: bool = False
    #: RTF005's whole-project decisions, per project root (resolved path -> CallSitePlan), made by
    #: :func:`~retrace_fix.engine.call_sites.with_call_site_plans` before the files are processed; None: not made yet
    call_site_plans: Any = None
    #: a ``--verify`` run: also edit unsafe fixes and the diagnostics a codemod could
    #: fix but lacks the evidence for (the user's program then proves or refutes them)
    verify_candidates: bool = False
    #: only these fixes, ``(relpath, code, line, ordinal)`` (a finding's ``fix_id`` under
    #: its file's relpath); None: every fix the tiers allow
    fix_selection: frozenset | None = None

    @property
    def wants_call_site_plans(self) -> bool:
        """Is there RTF005 work for the pre-pass (traces, and RTF005 selected)?"""
        return self.has_traces and self.code_selected(CALL_SITE_CODE)

    def call_sites_for(self, root: str) -> Any:
        """RTF005's plan for the files of project root ``root`` (None: none)."""
        return (self.call_site_plans or {}).get(root)

    @property
    def has_traces(self) -> bool:
        return self.traces is not None or (self.trace_assignment is not None and self.trace_assignment.active)

    def traces_for(self, root: str) -> Any:
        """The TraceSet that applies to the files of project root ``root`` (None: no traces)."""
        if self.trace_assignment is None:
            return self.traces
        return self.trace_assignment.for_root(root).trace_set

    def code_selected(self, code: str) -> bool:
        code = code.upper()
        if self.select is not None and not any(code.startswith(s) for s in self.select):
            return False
        return not any(code.startswith(i) for i in self.ignore)


@dataclass
class FileJob:
    path: Path  # absolute
    display: str
    relpath: str  # relative to the project root, for trace lookup
    data: bytes | None = None  # the source, when it is not read from ``path`` (standard input)
    root: str = ""  # the project root (resolved): which traces apply
    python_of_notebook: bool = False  # ``data`` is the Python text of the notebook at ``path``
    #: CPython's tree of that text, where reading the notebook made it (never sent to a worker)
    python_tree: Any = field(default=None, repr=False, compare=False)


@dataclass
class RunResult:
    files: list[FileResult] = field(default_factory=list)

    @property
    def errors(self) -> list[str]:
        return [f.error for f in self.files if f.error]

    @property
    def findings(self) -> list[Finding]:
        return sorted((f for r in self.files for f in r.findings), key=Finding.sort_key)


def selected_codemods(options: RunOptions) -> list[type[RetraceCodemod]]:
    """The codemods of the registry that ``--select``/``--ignore`` and the traces leave (asked for
    every file: decided once per selection)."""
    select = tuple(options.select) if options.select is not None else None
    return list(_selected(select, tuple(options.ignore), options.has_traces))


@functools.lru_cache(maxsize=64)
def _selected(select: tuple[str, ...] | None, ignore: tuple[str, ...], has_traces: bool) -> tuple:
    options = RunOptions(select=select, ignore=ignore)
    return tuple(
        cls for cls in REGISTRY
        if any(options.code_selected(c) for c in cls.codes()) and (has_traces or not cls.NEEDS_TRACES)
    )


def codemods_for_file(options: RunOptions, traces_apply: bool) -> list[type[RetraceCodemod]]:
    """The selected codemods that can act on one file: the trace-driven ones only where
    ``traces_apply`` (its root's traces mention the file, or RTF005's plan reports or edits
    in it).  Elsewhere they act on nothing (they read no traces there), so a file of a run
    that has traces, or of a bulk run whose other roots do, is planned, prefiltered and
    parsed exactly as in a run without traces."""
    chosen = selected_codemods(options)
    if traces_apply:
        return chosen
    return [cls for cls in chosen if not cls.NEEDS_TRACES]


def unknown_codes(codes: Iterable[str]) -> list[str]:
    known = list(RULES)
    return [c for c in codes if not any(k.startswith(c.upper()) for k in known)]
