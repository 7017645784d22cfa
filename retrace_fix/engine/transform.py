"""One LibCST parse of a file and the selected codemods run one after another on that tree,
sharing its analysis (imports, tf.function sites, suppressions, positions) while it is
unchanged; the fixed code is checked before it is returned.  A file parsed in part
(:mod:`retrace_fix.partial_parse`) that a codemod would edit is parsed and run again whole:
what is written always comes from the whole module.
"""

from __future__ import annotations

import ast
import traceback
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import libcst as cst
from libcst.codemod import CodemodContext

from retrace_fix import fastvisit
from retrace_fix.codemods import DEFERS_TO
from retrace_fix.codemods._base import CodemodSettings, RetraceCodemod, shared_analysis
from retrace_fix.cst_tree import layout_of, module_code, statement_codes, track_source
from retrace_fix.engine.hostile_input import PARSE_ERROR_PREFIX, cpython_syntax_problem
from retrace_fix.engine.options import FileJob, RunOptions
from retrace_fix.findings import FileResult, Finding, drop_duplicates
from retrace_fix.linemap import LazyLineMap


@dataclass(frozen=True)
class TransformInput:
    """One file's decoded text and what decides how it is transformed."""

    job: FileJob
    options: RunOptions
    text: str
    encoding: str
    codemods: list[type[RetraceCodemod]]
    has_traces: bool
    #: whether CPython compiles ``text`` (then the fixed code must compile too)
    compiles: bool
    #: the text LibCST parses when not the whole module (:mod:`retrace_fix.partial_parse`)
    parse_text: str | None = None
    #: CPython's tree of ``text`` where the prefilter made one (where each statement stands:
    #: :func:`retrace_fix.cst_tree.track_source`)
    python_tree: ast.Module | None = None


def transform(work: TransformInput, in_child: bool = False) -> FileResult | None:
    """Parse and run ``work.codemods``; None when the code is nested too deeply for this stack.

    With ``parse_text`` (``text`` with the defs and classes the codemods need not see
    emptied, :mod:`retrace_fix.partial_parse`) LibCST parses that instead; whenever that
    run would not simply report (a codemod edits, or anything fails) the whole module is
    run instead, so what is written always comes from the whole module.
    """
    if work.parse_text is not None:
        partial = _transform_text(work, in_child, work.parse_text)
        if partial is None or (partial is not _WHOLE_MODULE and partial.error is None):
            return partial
        whole = _transform_text(work, in_child)
        if whole is not None:
            whole.libcst_parses += 1  # the partial parse before it
        return whole
    return _transform_text(work, in_child)


#: what :func:`_transform_text` of a partial text returns when the whole module must be run
_WHOLE_MODULE: Any = object()


def _transform_text(work: TransformInput, in_child: bool = False, source: str | None = None) -> FileResult | None:
    """:func:`transform` of ``source`` (default: ``text``, the file's text); a partial
    ``source`` gives :data:`_WHOLE_MODULE` where the whole module must be run."""
    try:
        return _transform_tracked(work, in_child, source)
    finally:
        track_source(None)  # the file's trees are not kept


def _transform_tracked(work: TransformInput, in_child: bool, source: str | None) -> FileResult | None:
    job, options, text, codemods, has_traces = work.job, work.options, work.text, work.codemods, work.has_traces
    partial = source is not None
    result = FileResult(path=job.display, original=text, fixed=text, encoding=work.encoding, libcst_parses=1)
    try:
        tree = parsed = cst.parse_module(text if source is None else source)
    except cst.ParserSyntaxError as exc:
        result.error = f"{job.display}:{exc.raw_line}:{exc.raw_column + 1}: {PARSE_ERROR_PREFIX}: {exc.message}"
        return result
    except RecursionError:
        if not in_child:
            return None
        result.error = f"{job.display}:1: {PARSE_ERROR_PREFIX}: nested too deeply for LibCST"
        return result
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:  # MemoryError, a Rust panic (PanicException is a BaseException)
        result.error = f"{job.display}:1: {PARSE_ERROR_PREFIX}: LibCST failed ({type(exc).__name__}: {exc})"
        return result
    # where the statements stand in the text: the code of an edited tree is spliced from it
    track_source(parsed, text if source is None else source, work.python_tree if source is None else None)
    call_sites = options.call_sites_for(job.root)
    settings = CodemodSettings(
        unsafe_fixes=options.unsafe_fixes,
        traces=options.traces_for(job.root) if has_traces else None,
        relpath=job.relpath,
        source_text=text,
        parsed_text=source,
        call_sites=call_sites,
        verify_candidates=options.verify_candidates,
        selected_fixes=_selection_for(options.fix_selection, job.relpath),
    )
    # a codemod that runs on a tree an earlier one edited is given the map back to the file's
    # lines: its messages quote lines ("the loop at line 12") and fix identities hold them
    context = CodemodContext(filename=str(job.path))
    findings: list[Finding] = []
    suppressed: list[tuple[str, tuple]] = []  # (code, subject) of findings a comment hid
    edited = False
    line_map: tuple[cst.Module, LazyLineMap] | None = None  # an edited tree's lines -> the file's
    for cls in codemods:
        if edited:
            if line_map is None or line_map[0] is not tree:
                line_map = (tree, LazyLineMap(text, lambda t=tree: module_code(t)))
            codemod = cls(context, replace(settings, origin_line=line_map[1].original_line))
        else:
            codemod = cls(context, settings)
        before = tree
        try:
            tree = codemod.transform_module(tree)
        except (KeyboardInterrupt, SystemExit):
            raise
        except RecursionError:
            if not in_child:
                return None
            result.error = f"{job.display}:1: nested too deeply for the rewriter ({cls.CODE}); file left unchanged"
            return result
        except BaseException as exc:  # a codemod bug must not take the run down
            where = traceback.extract_tb(exc.__traceback__)[-1] if exc.__traceback__ else None
            at = f" ({Path(where.filename).name}:{where.lineno})" if where else ""
            result.error = (
                f"{job.display}:1: internal error in {cls.CODE}: {type(exc).__name__}: {exc}{at}; "
                "file left unchanged"
            )
            return result
        context = codemod.context
        reported = [f for f in codemod.findings if options.code_selected(f.code)]
        if edited and reported:  # positions in the code an earlier codemod edited: map them to the file's
            if line_map is None or line_map[0] is not before:
                line_map = (before, LazyLineMap(text, lambda t=before: module_code(t)))
            reported = [replace(f, line=line_map[1].original_line(f.line)) for f in reported]
        # a codemod edits a site only when report() said so, which records an applied finding
        edited = edited or any(f.applied for f in codemod.findings)
        if edited and partial:
            return _WHOLE_MODULE
        findings.extend(reported)
        suppressed.extend(s for s in codemod.suppressed_subjects if options.code_selected(s[0]))
    analysis = shared_analysis(context)
    if analysis is not None:
        result.unsigned_tf_functions = sum(not site.has_input_signature for site in analysis.tf_functions.values())
    # one problem, one finding: drop call-site diagnostics another selected code already covers
    findings = drop_duplicates(findings, suppressed, DEFERS_TO)
    if has_traces:  # which recorded functions this file's defs matched (unmatched ones are reported)
        from retrace_fix.codemods._traced_functions import matched_keys

        hits = matched_keys(context.scratch)
        if hits is None and any(cls.NEEDS_TRACES for cls in codemods):
            hits = []  # a trace-driven codemod ran and found no tf.function to match
        result.trace_hits = hits
    result.findings = sorted((f.with_path(job.display) for f in findings), key=Finding.sort_key)
    if not edited:
        return result  # no code generation: the tree is the one parsed from ``text``
    try:
        new_text = _fixed_code(parsed, tree, text)
        if new_text is None:
            result.findings = []
            result.error = (
                f"{job.display}:1: LibCST does not reproduce this file byte for byte; file left unchanged"
            )
            return result
        if new_text != text:
            problem = _output_problem(new_text, work.compiles)
            if problem:
                result.findings = []
                result.error = (
                    f"{job.display}:1: internal error: the fixed code {problem}; file left unchanged"
                )
                return result
    except (KeyboardInterrupt, SystemExit):
        raise
    except RecursionError:
        if not in_child:
            return None
        result.error = f"{job.display}:1: nested too deeply for the rewriter; file left unchanged"
        result.findings = []
        return result
    except BaseException as exc:  # pragma: no cover - a LibCST bug
        result.error = f"{job.display}:1: internal error: {type(exc).__name__}: {exc}; file left unchanged"
        result.findings = []
        return result
    result.fixed = new_text
    return result


def _fixed_code(parsed: cst.Module, tree: cst.Module, text: str) -> str | None:
    """The code of ``tree`` (``parsed`` after the codemods), and the proof that LibCST
    reproduces ``text`` from ``parsed`` where it was changed; None when it does not.

    The codemods leave the top-level statements they do not change as the very objects
    parsed (:func:`retrace_fix.fastvisit._transform`).  Where CPython's tree of ``text``
    places every statement (:func:`retrace_fix.cst_tree.layout_of`), an unchanged statement
    is its own text and only a changed one is generated: each statement a codemod replaced
    or dropped, and the neighbours of a place where one was only inserted, must be exactly
    LibCST's code of it at its place in ``text``, so every cut is where LibCST puts it and
    the rest is the file's text.  Otherwise ``text`` must be, piece by piece, the code of
    all of ``parsed``'s statements (:func:`_code_by_pieces`) or, where that does not hold
    (a file without a final newline, a LibCST whose module code is more than its
    statements' code), the whole of both modules is generated and compared
    (:func:`_lost_tail`).
    """
    layout = layout_of(tree)
    if layout is not None:
        return layout.code
    pieces = _code_by_pieces(parsed, tree, text)
    if pieces is not None:
        return pieces
    tail = _lost_tail(parsed, text)
    return None if tail is None else tree.code + tail


def _code_by_pieces(parsed: cst.Module, tree: cst.Module, text: str) -> str | None:
    """``tree``'s code when ``text`` (less a lost final ``\r``) is proven to be ``parsed``'s
    code statement by statement; None when that cannot be shown this way."""
    if not (parsed.has_trailing_newline and tree.has_trailing_newline):
        return None  # the module's last newline token is dropped: compare the whole code
    if (parsed.default_indent, parsed.default_newline) != (tree.default_indent, tree.default_newline):
        return None
    # id of a node of ``tree`` -> its code (generated already where a codemod after the edit read it)
    known = statement_codes(tree)
    fixed: dict[int, str] = {}
    new_parts = []
    for node in (*tree.header, *tree.body, *tree.footer):
        code = known.get(id(node)) if known is not None else None
        code = fixed[id(node)] = code if code is not None else tree.code_for_node(node)
        new_parts.append(code)
    offset = 0
    for node in (*parsed.header, *parsed.body, *parsed.footer):
        code = fixed.get(id(node))
        if code is None:
            code = parsed.code_for_node(node)
        if not text.startswith(code, offset):
            return None
        offset += len(code)
    if offset == 0:
        return None  # an empty module's code is one newline
    tail = text[offset:]
    if tail not in ("", "\r"):  # LibCST drops one carriage return at the very end of a file
        return None
    return "".join(new_parts) + tail


def _lost_tail(parsed: cst.Module, text: str) -> str | None:
    """What LibCST's code generation leaves off the end of ``text`` ('' normally); None if more differs.

    LibCST drops one carriage return at the very end of a file (``return x\\r``,
    ``...\\r\\n\\r``); it is put back after the rewritten code.  Only computed
    for files that are edited.
    """
    code = parsed.code
    if code == text:
        return ""
    if text.startswith(code) and text[len(code):] == "\r":
        return "\r"
    return None


def _selection_for(selection: frozenset | None, relpath: str) -> frozenset | None:
    """The fix identities ``(code, line, ordinal)`` of one file in a run's selection."""
    if selection is None:
        return None
    return frozenset(key[1:] for key in selection if key[0] == relpath)


def _output_problem(new_text: str, original_compiles: bool) -> str | None:
    """Why rewritten code must not be written (it does not parse or compile), else None.

    Where CPython compiles the original, CPython's verdict on the fixed code decides
    (the code LibCST wrote from a tree it parsed: CPython accepting it proves it valid
    Python, and LibCST is not asked to parse it again).  Where CPython refuses the
    original (syntax newer than this Python, which LibCST accepted), LibCST's parser
    is the only judge there is.
    """
    if original_compiles:
        problem = cpython_syntax_problem(new_text)
        if problem is not None:
            return f"does not compile (line {problem.line}: {problem.message})"
        return None
    try:
        cst.parse_module(new_text)
    except cst.ParserSyntaxError as exc:
        return f"does not parse ({exc.message.strip()})"
    return None


def transform_isolated(work: TransformInput) -> FileResult | None:
    """:func:`transform` in a forked child (:func:`retrace_fix.engine.isolation.isolated`)."""
    with fastvisit.installed():
        return transform(work, in_child=True)

