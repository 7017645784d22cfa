"""Before LibCST: a file's bytes decoded, and the codemods it needs.

Files whose bytes cannot contain a target (no trigger text, no recorded traces) are never
parsed, not even by CPython (``--check-syntax`` checks them).  The others are parsed by
CPython first: its tree drops the codemods that cannot act on the module
(:meth:`~retrace_fix.codemods._base.RetraceCodemod.might_apply_to_tree`) and tells what
LibCST must see (:mod:`retrace_fix.partial_parse`).
"""

from __future__ import annotations

import ast
import io
import tokenize
from typing import Any

from retrace_fix.codemods._base import RetraceCodemod
from retrace_fix.engine.hostile_input import SyntaxProblem, cpython_check, cpython_syntax_problem
from retrace_fix.engine.options import FileJob, RunOptions
from retrace_fix.partial_parse import Outline


def decode_source(data: bytes) -> tuple[str, str]:
    """(text, encoding) of a file's bytes: PEP 263 cookie or BOM, else UTF-8."""
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    return data.decode(encoding), encoding


def round_trips(data: bytes, text: str, encoding: str) -> bool:
    """Whether writing ``text`` back in ``encoding`` would give ``data`` (not so for ``unicode_escape``)."""
    if encoding in ("utf-8", "utf-8-sig"):
        return True
    try:
        return text.encode(encoding) == data
    except (UnicodeEncodeError, LookupError):
        return False


def might_contain_target(data: bytes, codemods: list[type[RetraceCodemod]], has_traces: bool) -> bool:
    if has_traces:
        return True
    return any(cls.might_apply(data) for cls in codemods)


def trace_work(job: FileJob, options: RunOptions) -> tuple[bool, bool]:
    """(its root's traces mention the file, RTF005's call-site plan reports or edits in it): where
    either holds, the trace-driven codemods act on the file; elsewhere it is planned as in a run
    without traces."""
    traces = options.traces_for(job.root)
    has_traces = traces is not None and traces_mention(traces, job.relpath)
    call_sites = options.call_sites_for(job.root)
    edits_here = call_sites is not None and bool(call_sites.editing(job.relpath) or call_sites.defined_in(job.relpath))
    return has_traces, edits_here


def codemods_to_run(
    data: bytes, text: str, codemods: list[type[RetraceCodemod]], options: RunOptions, has_traces: bool,
    tree: ast.Module | None = None,
) -> tuple[list[type[RetraceCodemod]], SyntaxProblem | None, Outline | None]:
    """The codemods a file needs LibCST for (none: never parsed), CPython's syntax verdict on
    it, and CPython's tree of it read for the tf.function analyses (None when not built).

    The byte prefilter drops codemods whose triggers the bytes lack; CPython's tree then
    drops those that cannot act on it (:meth:`RetraceCodemod.might_apply_to_tree`: a
    codemod that needs a tf.function, in a module where no name can be one).  A file
    whose bytes leave no codemod is not parsed at all, not even by CPython: its syntax
    is not checked unless ``options.check_syntax`` (``--check-syntax``) asks for it.
    ``tree``: CPython's tree of ``text`` already made (a notebook's, read with its cells), not
    parsed again.
    """
    if has_traces or not options.prefilter:
        return codemods, cpython_syntax_problem(text), None
    to_run = [cls for cls in codemods if cls.might_apply(data)]
    if not to_run:
        return to_run, cpython_syntax_problem(text) if options.check_syntax else None, None
    problem, python_tree = (None, tree) if tree is not None else cpython_check(text, want_tree=True)
    if python_tree is None:
        return to_run, problem, None
    outline = Outline(text, python_tree)
    return [cls for cls in to_run if cls.might_apply_to_tree(python_tree, outline)], problem, outline


def traces_mention(traces: Any, relpath: str) -> bool:
    """Do the traces record a function defined in this file (a ``functools.partial``'s too: RTF006
    reads them), or a call made from it (RTF009 binds a callable passed at a recorded call site,
    whatever module defines the tf.function)?"""
    try:
        return bool(traces.find(relpath, wrapped=True)) or any(
            site.file == relpath for function in traces if function.wraps is None for site in function.call_sites
        )
    except Exception:  # pragma: no cover - defensive: a trace set without find()
        return False

