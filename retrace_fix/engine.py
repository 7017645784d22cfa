"""discover files → prefilter text → parse → run codemods → results.

The engine never imports TensorFlow.  Files whose bytes cannot contain a target
(no trigger text, no recorded traces) are never parsed, not even by CPython
(``--check-syntax`` checks them).  The others are parsed by CPython first: its
tree drops the codemods that cannot act on the module
(:meth:`~retrace_fix.codemods._base.RetraceCodemod.might_apply_to_tree`) and
tells what LibCST must see (:mod:`retrace_fix.partial_parse`).  One LibCST parse
per file; the selected codemods run one after another on that tree and share its
analysis (imports, tf.function sites, suppressions, positions) while it is
unchanged.  A file parsed in part that a codemod would edit is parsed and run
again whole: what is written always comes from the whole module.
"""

from __future__ import annotations

import ast
import faulthandler
import gc
import io
import multiprocessing
import os
import pickle
import re
import select
import signal
import symtable
import sys
import threading
import time
import tokenize
import traceback
import warnings
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Iterable

import libcst as cst
from libcst.codemod import CodemodContext

from retrace_fix.codemods import DEFERS_TO, REGISTRY, RULES
from retrace_fix.codemods._base import CodemodSettings, RetraceCodemod, shared_analysis
from retrace_fix import fastvisit
from retrace_fix.sources.discovery import display_path, find_project_root
from retrace_fix.findings import FileResult, Finding, drop_duplicates
from retrace_fix.linemap import LineMap
from retrace_fix.notebooks.notebook import (
    Notebook, NotebookError, is_notebook, is_python_notebook, language as notebook_language, read_document,
    read_notebook,
)
from retrace_fix.partial_parse import Outline
from retrace_fix.wording import plural

PARSE_ERROR_PREFIX = "cannot parse"
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
    #: :func:`with_call_site_plans` before the files are processed; None: not made yet
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
    chosen = []
    for cls in REGISTRY:
        if not any(options.code_selected(c) for c in cls.codes()):
            continue
        if cls.NEEDS_TRACES and not options.has_traces:
            continue
        chosen.append(cls)
    return chosen


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


# --------------------------------------------------------------------------- one file


def decode_source(data: bytes) -> tuple[str, str]:
    """(text, encoding) of a file's bytes: PEP 263 cookie or BOM, else UTF-8."""
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    return data.decode(encoding), encoding


def _round_trips(data: bytes, text: str, encoding: str) -> bool:
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


# Hostile input.  LibCST's native parser recurses once per nesting level on the C
# stack and memoises heavily: ~10,000 nested parentheses or `and` operands crash
# the process (SIGSEGV) and 30,000 parentheses exhaust memory.  CPython's own
# compiler is an order of magnitude cheaper and refuses (with a SyntaxError,
# RecursionError or MemoryError) most such input, so every file goes through
# `compile()` first; what it rejects for nesting is never handed to LibCST, and
# what remains risky (long `and`/`or` chains, which CPython keeps flat, huge
# files, files CPython rejects that LibCST might still accept) is parsed in a
# forked child process with a large stack, a memory cap and a time limit, so the
# worst it can do is fail that one file.

#: CPython messages that mean "nested too deeply": LibCST is never asked.
_NESTING_MESSAGES = ("too many nested parentheses", "too many levels of indentation", "too complex")
#: LibCST nests a chain of boolean operators one level per operand.
_BOOL_OPERATOR = re.compile(rb"\b(?:and|or)\b")
RISKY_BOOL_OPERATORS = 1500
#: files larger than this are parsed in a child process (LibCST needs ~350 bytes of
#: memory and ~10 us per byte of source on large files)
RISKY_SIZE = 2 * 1024 * 1024
#: the most bracket nesting CPython allows; deeper input never reaches LibCST
MAX_BRACKET_DEPTH = 200
_ISOLATED_STACK = 512 * 1024 * 1024
_ISOLATED_RECURSION_LIMIT = 30_000
_ISOLATED_MEMORY = 6 * 1024 * 1024 * 1024  # bytes on top of what the process maps already
#: time limit of a child: this many seconds plus so many per MiB of source (LibCST
#: parses about 100 KiB/s on large files; a 10 MB file gets 360 s)
ISOLATED_TIMEOUT = 60
ISOLATED_TIMEOUT_PER_MB = 30


@dataclass(frozen=True)
class SyntaxProblem:
    """The first error CPython's compiler reports for a file."""

    line: int
    column: int  # 1-based
    message: str
    #: False when the error is excessive nesting (or NUL bytes): LibCST is not asked
    #: whether it accepts the file anyway
    confirmable: bool = True


def cpython_syntax_problem(text: str) -> SyntaxProblem | None:
    """Check ``text`` with CPython's parser (nothing is executed); None when it is valid."""
    return cpython_check(text)[0]


def cpython_check(text: str, want_tree: bool = False) -> tuple[SyntaxProblem | None, ast.Module | None]:
    """CPython's verdict on ``text``, and its ``ast`` tree when ``want_tree``.

    Without a tree this builds the symbol table only (``symtable``: parser and
    scope analysis, about 5% of a LibCST parse), the cheapest complete check
    CPython offers.
    """
    if "\0" in text:
        nul = text.index("\0")
        line = text.count("\n", 0, nul) + 1
        return SyntaxProblem(line, nul - text.rfind("\n", 0, nul), "source contains a NUL byte", False), None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            if want_tree:
                return None, ast.parse(text)
            symtable.symtable(text, "<retrace-fix>", "exec")
        except SyntaxError as exc:
            message = exc.msg or "invalid syntax"
            nesting = any(m in message for m in _NESTING_MESSAGES)
            return SyntaxProblem(exc.lineno or 1, exc.offset or 1, message, confirmable=not nesting), None
        except (RecursionError, MemoryError):
            return SyntaxProblem(1, 1, "nested too deeply (Python's own parser gives up)", confirmable=False), None
        except Exception as exc:  # pragma: no cover - defensive: ValueError, OverflowError and the like
            return SyntaxProblem(1, 1, f"{type(exc).__name__}: {exc}", confirmable=False), None
    return None, None


def _max_bracket_depth(data: bytes) -> int:
    depth = deepest = 0
    for match in re.finditer(rb"[()\[\]{}]", data):
        if match.group() in b"([{":
            depth += 1
            deepest = max(deepest, depth)
        elif depth:
            depth -= 1
    return deepest


def _risky_for_libcst(data: bytes) -> bool:
    """Would parsing these (CPython-valid) bytes in this process risk a crash or huge memory?"""
    if len(data) > RISKY_SIZE:
        return True
    if data.count(b"and") + data.count(b"or") < RISKY_BOOL_OPERATORS:  # cheap upper bound
        return False
    return sum(1 for _ in _BOOL_OPERATOR.finditer(data)) >= RISKY_BOOL_OPERATORS


def plan_codemods(
    data: bytes, text: str, codemods: list[type[RetraceCodemod]], options: RunOptions, has_traces: bool
) -> tuple[list[type[RetraceCodemod]], SyntaxProblem | None, Outline | None]:
    """The codemods a file needs LibCST for (none: never parsed), CPython's syntax verdict on
    it, and CPython's tree of it read for the tf.function analyses (None when not built).

    The byte prefilter drops codemods whose triggers the bytes lack; CPython's tree then
    drops those that cannot act on it (:meth:`RetraceCodemod.might_apply_to_tree`: a
    codemod that needs a tf.function, in a module where no name can be one).  A file
    whose bytes leave no codemod is not parsed at all, not even by CPython: its syntax
    is not checked unless ``options.check_syntax`` (``--check-syntax``) asks for it.
    """
    if has_traces or not options.prefilter:
        return codemods, cpython_syntax_problem(text), None
    to_run = [cls for cls in codemods if cls.might_apply(data)]
    if not to_run:
        return to_run, cpython_syntax_problem(text) if options.check_syntax else None, None
    problem, python_tree = cpython_check(text, want_tree=True)
    if python_tree is None:
        return to_run, problem, None
    outline = Outline(text, python_tree)
    return [cls for cls in to_run if cls.might_apply_to_tree(python_tree, outline)], problem, outline


def process_file(job: FileJob, options: RunOptions) -> FileResult:
    """Run the selected codemods over one file; never raises.

    RTF005 needs the run's call-site plan (:func:`with_call_site_plans`); a caller that did not make
    one gets a plan of this file alone (its call sites in other files are then outside the run).
    """
    if options.call_site_plans is None and options.wants_call_site_plans:
        options = with_call_site_plans([job], options)
    result = _process_file(job, options)
    if options.trace_assignment is not None:  # which root's traces this file was checked against
        result.trace_root, result.trace_relpath = job.root, job.relpath
        if result.trace_hits is None and not result.error and any(cls.NEEDS_TRACES for cls in selected_codemods(options)):
            traces = options.traces_for(job.root)
            if traces is not None and not _traces_mention(traces, job.relpath):
                result.trace_hits = []  # looked at by the trace-driven codemods: no recorded function here
    return result


def _process_file(job: FileJob, options: RunOptions) -> FileResult:
    result = FileResult(path=job.display)
    try:
        data = job.data if job.data is not None else job.path.read_bytes()
    except OSError as exc:
        result.error = f"{job.display}:1: cannot read: {exc.strerror or exc}"
        return result
    if is_notebook(job.path.name) and not job.python_of_notebook:
        return _process_notebook(job, options, data)
    try:
        text, encoding = decode_source(data)
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        result.error = f"{job.display}:{line}: cannot decode: {exc}"
        return result
    except (SyntaxError, LookupError) as exc:  # a bad or unknown PEP 263 cookie
        result.error = f"{job.display}:1: cannot decode: {exc}"
        return result
    if not _round_trips(data, text, encoding):
        result.error = (
            f"{job.display}:1: its encoding ({encoding}) does not give back the same bytes "
            "when written; file left unchanged"
        )
        return result
    result.original = result.fixed = text
    result.encoding = encoding
    traces = options.traces_for(job.root)
    has_traces = traces is not None and _traces_mention(traces, job.relpath)
    call_sites = options.call_sites_for(job.root)
    edits_here = call_sites is not None and bool(call_sites.editing(job.relpath) or call_sites.defined_in(job.relpath))
    to_run, problem, outline = plan_codemods(
        data, text, codemods_for_file(options, has_traces or edits_here), options, has_traces or edits_here
    )
    if problem is not None and problem.confirmable and _max_bracket_depth(data) > MAX_BRACKET_DEPTH:
        problem = replace(problem, confirmable=False)
    if not to_run:
        # Nothing to rewrite, but a file that does not parse is still reported
        # (unless LibCST, which may know newer syntax than this Python, accepts it).
        result.skipped = True
        if problem is not None:
            result.libcst_parses = int(problem.confirmable)
            if problem.confirmable and _isolated(_libcst_accepts, (text,), len(data)) == ("ok", True):
                return result
            result.error = _syntax_error_message(job.display, problem)
        return result
    if problem is not None and not problem.confirmable:
        result.error = _syntax_error_message(job.display, problem)
        return result
    parse_text = None  # the text LibCST parses when not the whole module
    if outline is not None and options.partial_parse and not any(cls.NEEDS_WHOLE_MODULE for cls in to_run):
        parse_text = outline.pruned_text()
    args = (job, options, text, encoding, to_run, has_traces, problem is None, parse_text)
    if problem is None and not _risky_for_libcst(data):
        with _gc_paused(), fastvisit.installed():
            transformed = _transform(*args)
        if transformed is not None:
            return transformed
        # RecursionError on deeply nested (but valid) code: retry with a big stack
    status, value = _isolated(_transform_isolated, args, len(data))
    if status == "ok" and value is not None:
        if problem is not None and value.error:  # LibCST refused it too: say where CPython locates the error
            value.error = _syntax_error_message(job.display, problem)
        return value
    reason = value if status != "ok" else f"{PARSE_ERROR_PREFIX}: nested too deeply for LibCST"
    result.error = f"{job.display}:1: {reason}; file left unchanged"
    return result


def _process_notebook(job: FileJob, options: RunOptions, data: bytes) -> FileResult:
    """A notebook: its code cells as one module (:mod:`retrace_fix.notebooks.notebook`), located and written per cell.

    The result's ``original``/``fixed`` are the notebook's JSON text (what is written, diffed
    per cell and patched); findings carry the cell and the line in it.  Never raises.
    """
    try:
        return _read_and_process_notebook(job, options, data)
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:  # JSON nested beyond the stack, a bug: that notebook fails alone
        return FileResult(path=job.display, error=(
            f"{job.display}:1: internal error reading the notebook: {type(exc).__name__}: {exc}; "
            "notebook left unchanged"))


def _read_and_process_notebook(job: FileJob, options: RunOptions, data: bytes) -> FileResult:
    result = FileResult(path=job.display)
    try:
        text, _cells = read_document(data)  # a file that is no notebook is an error, whatever it holds
        if not is_python_notebook(text):  # an R, Julia ... notebook: not a Python source
            result.skipped = True
            result.skip_note = f"{job.display}: not a Python notebook (its kernel runs {notebook_language(text)}); skipped"
            return result
        traces = options.traces_for(job.root)
        has_traces = traces is not None and _traces_mention(traces, job.relpath)
        checked = options.check_syntax or not options.prefilter  # every cell parsed, as every .py is then
        if not checked and not might_contain_target(data, selected_codemods(options), has_traces):
            result.skipped = True  # nothing to look for: its cells are not parsed (as a .py is not)
            return result
        notebook = read_notebook(data)
    except NotebookError as exc:
        result.error = f"{exc.location(job.display)}: {exc.message}; notebook left unchanged" \
            if "left unchanged" not in exc.message else f"{exc.location(job.display)}: {exc.message}"
        return result
    inner = _process_file(replace(job, data=notebook.python.encode("utf-8"), python_of_notebook=True), options)
    if inner.error is None and inner.encoding != "utf-8":  # a coding cookie in the first cell
        inner.error = f"{job.display}:1: a coding declaration ({inner.encoding}) in a notebook's code; file left unchanged"
    result.skipped = inner.skipped
    result.unsigned_tf_functions = inner.unsigned_tf_functions
    result.trace_hits = inner.trace_hits
    result.original = result.fixed = notebook.json_text
    if inner.error:
        result.error = _notebook_error(inner.error, job.display, notebook)
        return result
    located = []
    for finding in inner.findings:
        cell, line = notebook.locate(finding.line)
        located.append(replace(finding, line=line, cell=cell, column=finding.column + notebook.column_offset(finding.line),
                               message=_cell_lines(finding.message, notebook),
                               reason=_cell_lines(finding.reason, notebook)))
    result.findings = sorted(located, key=Finding.sort_key)
    if notebook.broken:  # the other cells were read and reported; nothing is written to it
        result.findings = [replace(f, applied=False) for f in result.findings]  # no fix of it is applied
        first = notebook.broken[0]
        more = f" (and {plural(len(notebook.broken) - 1, 'more cell')})" if len(notebook.broken) > 1 else ""
        result.error = (f"{first.location(job.display)}: {first.message}{more}; the other cells were "
                        "checked, notebook left unchanged")
        return result
    if inner.changed:
        try:
            result.fixed = notebook.fixed_text(inner.fixed or "")
        except NotebookError as exc:
            result.findings = []
            result.error = f"{exc.location(job.display)}: {exc.message}"
    return result


_LINE_MENTION = re.compile(r"\blines? (\d+(?:(?:, and |, | and )\d+)*)\b")


def _cell_lines(text: str, notebook: Notebook) -> str:
    """A message's "line N" / "lines N, M" (lines of the notebook's text) as "cell C line L" /
    "cell C lines L, K" (one group per cell)."""
    def cell_lines(match: re.Match) -> str:
        groups: list[tuple[int, list[int]]] = []
        for number in re.findall(r"\d+", match.group(1)):
            cell, line = notebook.locate(int(number))
            if groups and groups[-1][0] == cell:
                groups[-1][1].append(line)
            else:
                groups.append((cell, [line]))
        return ", ".join(f"cell {cell} line{'s' if len(lines) > 1 else ''} {', '.join(map(str, lines))}"
                         for cell, lines in groups)

    return _LINE_MENTION.sub(cell_lines, text) if text else text


def _notebook_error(message: str, display: str, notebook: Notebook) -> str:
    """An error about the notebook's Python text, located in its cell."""
    head = f"{display}:"
    match = re.match(r"(\d+)(?::(\d+))?: ", message[len(head):]) if message.startswith(head) else None
    if match is None:
        return message
    cell, line = notebook.locate(int(match.group(1)))
    column = f":{match.group(2)}" if match.group(2) else ""
    rest = message[len(head) + match.end():]
    if "left unchanged" not in rest:
        rest += "; notebook left unchanged"
    return f"{display}:cell {cell}:{line}{column}: {rest.replace('file left unchanged', 'notebook left unchanged')}"


def _syntax_error_message(display: str, problem: SyntaxProblem) -> str:
    return f"{display}:{problem.line}:{problem.column}: {PARSE_ERROR_PREFIX}: {problem.message}"


def _transform(
    job: FileJob,
    options: RunOptions,
    text: str,
    encoding: str,
    codemods: list[type[RetraceCodemod]],
    has_traces: bool,
    compiles: bool,
    parse_text: str | None = None,
    in_child: bool = False,
) -> FileResult | None:
    """Parse and run ``codemods``; None when the code is nested too deeply for this stack.

    With ``parse_text`` (``text`` with the defs and classes the codemods need not see
    emptied, :mod:`retrace_fix.partial_parse`) LibCST parses that instead; whenever that
    run would not simply report (a codemod edits, or anything fails) the whole module is
    run instead, so what is written always comes from the whole module.
    """
    if parse_text is not None:
        partial = _transform_text(job, options, text, encoding, codemods, has_traces, compiles, in_child, parse_text)
        if partial is None or (partial is not _WHOLE_MODULE and partial.error is None):
            return partial
        whole = _transform_text(job, options, text, encoding, codemods, has_traces, compiles, in_child)
        if whole is not None:
            whole.libcst_parses += 1  # the partial parse before it
        return whole
    return _transform_text(job, options, text, encoding, codemods, has_traces, compiles, in_child)


#: what :func:`_transform_text` of a partial text returns when the whole module must be run
_WHOLE_MODULE: Any = object()


def _transform_text(
    job: FileJob,
    options: RunOptions,
    text: str,
    encoding: str,
    codemods: list[type[RetraceCodemod]],
    has_traces: bool,
    compiles: bool,
    in_child: bool = False,
    source: str | None = None,
) -> FileResult | None:
    """:func:`_transform` of ``source`` (default: ``text``, the file's text); a partial
    ``source`` gives :data:`_WHOLE_MODULE` where the whole module must be run."""
    partial = source is not None
    result = FileResult(path=job.display, original=text, fixed=text, encoding=encoding, libcst_parses=1)
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
    # fix identities hold lines of the file: a codemod that runs on a tree an earlier one
    # edited needs the map back (only where identities matter: --verify runs)
    track_origin = options.verify_candidates or options.fix_selection is not None
    context = CodemodContext(filename=str(job.path))
    findings: list[Finding] = []
    suppressed: list[tuple[str, tuple]] = []  # (code, subject) of findings a comment hid
    edited = False
    line_map: tuple[cst.Module, LineMap] | None = None  # an edited tree's lines -> the file's
    for cls in codemods:
        if track_origin and edited:
            if line_map is None or line_map[0] is not tree:
                line_map = (tree, LineMap(text, tree.code))
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
                line_map = (before, LineMap(text, before.code))
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
        tail = _lost_tail(parsed, text)
        if tail is None:
            result.findings = []
            result.error = (
                f"{job.display}:1: LibCST does not reproduce this file byte for byte; file left unchanged"
            )
            return result
        new_text = tree.code + tail
        if new_text != text:
            problem = _output_problem(new_text, compiles)
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
    """Why rewritten code must not be written (it does not parse or compile), else None."""
    try:
        cst.parse_module(new_text)
    except cst.ParserSyntaxError as exc:
        return f"does not parse ({exc.message.strip()})"
    if original_compiles:
        problem = cpython_syntax_problem(new_text)
        if problem is not None:
            return f"does not compile (line {problem.line}: {problem.message})"
    return None


def _transform_isolated(*args: Any) -> FileResult | None:
    with fastvisit.installed():
        return _transform(*args, in_child=True)


def _libcst_accepts(text: str) -> bool:
    try:
        cst.parse_module(text)
    except (KeyboardInterrupt, SystemExit):  # pragma: no cover
        raise
    except BaseException:
        return False
    return True


@contextmanager
def _gc_paused():
    """No cyclic GC while a tree is built and transformed (trees are acyclic; ~20% faster)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _isolated(func: Callable[..., Any], args: tuple, size: int) -> tuple[str, Any]:
    """Run ``func(*args)`` in a forked child: ``("ok", value)`` or ``("failed", reason)``.

    The child runs it on a thread with a large stack and a high recursion limit,
    under a memory cap and a time limit, so that a LibCST crash (SIGSEGV on deep
    nesting), a runaway allocation or a hang fails this file only.  Without
    ``os.fork`` (Windows) it runs in this process.
    """
    if not hasattr(os, "fork"):  # pragma: no cover - Windows
        return _in_process(func, args)
    timeout = ISOLATED_TIMEOUT + ISOLATED_TIMEOUT_PER_MB * size / (1024 * 1024)
    try:
        read_fd, write_fd = os.pipe()
    except OSError:  # pragma: no cover - out of file descriptors
        return _in_process(func, args)
    try:
        pid = os.fork()
    except OSError:  # pragma: no cover - no fork allowed here (or no memory for it)
        os.close(read_fd)
        os.close(write_fd)
        return _in_process(func, args)
    if pid == 0:  # pragma: no cover - child (coverage does not follow forks)
        status = 0
        try:
            os.close(read_fd)
            faulthandler.disable()  # a crash here is reported by the parent, quietly
            payload = pickle.dumps(("ok", _call_with_big_stack(func, args)))
            with os.fdopen(write_fd, "wb") as pipe:
                pipe.write(payload)
        except BaseException:
            status = 1
        finally:
            os._exit(status)
    os.close(write_fd)
    chunks: list[bytes] = []
    deadline = time.monotonic() + timeout
    timed_out = False
    try:
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                timed_out = True
                break
            ready, _, _ = select.select([read_fd], [], [], remaining)
            if not ready:
                continue
            chunk = os.read(read_fd, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(read_fd)
        if timed_out:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:  # pragma: no cover
                pass
        _, wait_status = os.waitpid(pid, 0)
    if timed_out:
        return "failed", (
            f"gave up after {timeout:.0f} s: {size / (1024 * 1024):.1f} MB is too large or too complex "
            "to rewrite in time"
        )
    if chunks:
        try:
            return pickle.loads(b"".join(chunks))
        except Exception:  # pragma: no cover - a truncated payload
            pass
    if os.WIFSIGNALED(wait_status):
        number = os.WTERMSIG(wait_status)
        name = signal.Signals(number).name if number in signal.Signals._value2member_map_ else str(number)
        return "failed", f"{PARSE_ERROR_PREFIX}: LibCST crashed ({name}; nested too deeply or out of memory)"
    return "failed", f"{PARSE_ERROR_PREFIX}: LibCST failed (out of memory?)"


def _in_process(func: Callable[..., Any], args: tuple) -> tuple[str, Any]:
    """The fallback where no child can be forked: no isolation, but no crash on an exception."""
    try:
        return "ok", func(*args)
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:
        return "failed", f"{PARSE_ERROR_PREFIX}: {type(exc).__name__}: {exc}"


def _call_with_big_stack(func: Callable[..., Any], args: tuple) -> Any:  # pragma: no cover - child only
    try:
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        with open("/proc/self/statm") as statm:
            mapped = int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
        cap = mapped + _ISOLATED_STACK + _ISOLATED_MEMORY
        if hard == resource.RLIM_INFINITY or cap < hard:
            resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    except (ImportError, OSError, ValueError):
        pass
    outcome: list[Any] = []

    def target() -> None:
        sys.setrecursionlimit(max(sys.getrecursionlimit(), _ISOLATED_RECURSION_LIMIT))
        outcome.append(func(*args))

    threading.stack_size(_ISOLATED_STACK)
    thread = threading.Thread(target=target, name="retrace-fix-isolated")
    thread.start()
    thread.join()
    if not outcome:
        raise RuntimeError("the isolated call failed")
    return outcome[0]


def _traces_mention(traces: Any, relpath: str) -> bool:
    """Do the traces record a function defined in this file, or a call made from it (RTF009 binds a
    callable passed at a recorded call site, whatever module defines the tf.function)?"""
    try:
        return bool(traces.find(relpath)) or any(
            site.file == relpath for function in traces for site in function.call_sites
        )
    except Exception:  # pragma: no cover - defensive: a trace set without find()
        return False


# --------------------------------------------------------------------------- the call-site pre-pass


def with_call_site_plans(jobs: list[FileJob], options: RunOptions) -> RunOptions:
    """``options`` with RTF005's plan of every project root of ``jobs`` (:mod:`retrace_fix.codemods._call_site_decision`).

    RTF005 rewrites every recorded call site of a function or none, and those sites may be in any
    module: that is decided here, once, from the files of the run that define a candidate function
    or hold one of its recorded call sites (read and parsed only here, cheaply: most files hold
    neither); every worker then receives the same plan.
    """
    if not options.wants_call_site_plans:
        return options
    from retrace_fix.codemods._call_site_decision import build_plan, wants_files

    by_root: dict[str, dict[str, FileJob]] = {}
    for job in jobs:
        by_root.setdefault(job.root, {})[job.relpath] = job
    plans: dict[str, Any] = {}
    for root, files in sorted(by_root.items()):
        traces = options.traces_for(root)
        if traces is None:
            continue
        sources: dict[str, str | None] = {}
        for relpath in sorted(wants_files(traces, files)):
            job = files.get(relpath)
            if job is not None:
                sources[relpath] = _safe_source(job)
        with fastvisit.installed():  # its passes only read the trees, as the codemods' do
            plans[root] = build_plan(sources, traces)
    return replace(options, call_site_plans=plans)


def _safe_source(job: FileJob) -> str | None:
    """The text of a file LibCST can parse in this process, else None."""
    try:
        data = job.data if job.data is not None else job.path.read_bytes()
        if is_notebook(job.path.name) and not job.python_of_notebook:  # its code cells, as the fixer reads them
            data = read_notebook(data).python.encode("utf-8")
        text, _ = decode_source(data)
    except (OSError, UnicodeDecodeError, SyntaxError, LookupError, NotebookError):
        return None
    if _risky_for_libcst(data) or _max_bracket_depth(data) > MAX_BRACKET_DEPTH or cpython_syntax_problem(text):
        return None
    return text


# --------------------------------------------------------------------------- many files


_WORKER_OPTIONS: RunOptions | None = None


def _init_worker(options: RunOptions) -> None:
    global _WORKER_OPTIONS
    _WORKER_OPTIONS = options
    gc.freeze()  # the imported modules never become garbage: keep them out of collections


def _stop_workers(grace: float = 5.0, deadline: float = 30.0) -> None:
    """Terminate every worker process of this run, and any the pool's manager thread starts while
    it winds down (workers are started on demand): until none is left.  One that ignores SIGTERM
    for ``grace`` seconds (a loaded machine) is killed; no worker outlives the run."""
    end = time.monotonic() + deadline
    while True:
        children = multiprocessing.active_children()
        if not children or time.monotonic() > end:
            return
        for child in children:
            child.terminate()
        for child in children:
            child.join(timeout=grace)
            if child.is_alive():
                child.kill()
                child.join()


def _work_chunk(jobs: list[FileJob]) -> list[FileResult]:
    assert _WORKER_OPTIONS is not None
    return [process_file(job, _WORKER_OPTIONS) for job in jobs]


CHUNK_FILES = 16  # at most this many files per task sent to a worker
CHUNKS_PER_WORKER = 32  # aim: each worker gets at least this many tasks' worth of bytes


def plan_chunks(work: list[FileJob], workers: int) -> list[list[FileJob]]:
    """Split ``work`` into worker tasks, largest files first (longest job first).

    One large file can take seconds while thousands of small ones take
    milliseconds each: started last, it would keep one worker busy after the
    others ran dry.  Files go out largest first, in tasks of about
    ``total bytes / (workers * CHUNKS_PER_WORKER)`` (so the largest go one by
    one) and never more than ``CHUNK_FILES`` files.  Output order does not depend
    on this: results are sorted by path.
    """
    sized = []
    for job in work:
        try:
            size = job.path.stat().st_size
        except OSError:
            size = 0
        sized.append((size, job))
    sized.sort(key=lambda item: -item[0])  # stable: equal sizes keep their order
    target = max(1, sum(size for size, _ in sized) // (workers * CHUNKS_PER_WORKER))
    chunks: list[list[FileJob]] = []
    chunk: list[FileJob] = []
    weight = 0
    for size, job in sized:
        chunk.append(job)
        weight += size
        if weight >= target or len(chunk) >= CHUNK_FILES:
            chunks.append(chunk)
            chunk, weight = [], 0
    if chunk:
        chunks.append(chunk)
    return chunks


def _work_isolated(job: FileJob, options: RunOptions) -> FileResult:
    """After a worker died: one file at a time in its own child process."""
    try:
        size = job.path.stat().st_size
    except OSError:
        size = 0
    status, value = _isolated(process_file, (job, options), size)
    if status == "ok":
        return value
    return FileResult(path=job.display, error=f"{job.display}:1: {value}; file left unchanged")


def make_jobs(files: list[Path], explicit_roots: tuple[str, ...] = ()) -> list[FileJob]:
    """One job per file, with its project root and its path relative to it.

    ``explicit_roots``: the realpaths of ``--traces ROOT=FILE`` roots.  A file inside one of them
    that lies deeper than the project root found for it (plain folders, no git) gets that ROOT
    as its root: the trace file was recorded there, and names the files relative to it.
    """
    cwd = Path.cwd()
    jobs = []
    roots: dict[Path, Path] = {}
    for path in files:
        directory = path.parent
        if directory not in roots:
            found = find_project_root(directory)
            real = os.path.realpath(directory)
            inside = [r for r in explicit_roots if _within(real, r) and _within(r, found)]
            roots[directory] = max(inside, key=len) if inside else found
        root = roots[directory]
        try:  # the recorder names files by their resolved path, relative to the same root
            rel = Path(os.path.realpath(path)).relative_to(root).as_posix()
        except ValueError:
            rel = display_path(path, cwd)
        jobs.append(FileJob(path=path, display=display_path(path, cwd), relpath=rel, root=str(root)))
    return jobs


def _within(inner: str, outer: str) -> bool:
    return inner == outer or inner.startswith(outer.rstrip(os.sep) + os.sep)


def explicit_roots(options: RunOptions) -> tuple[str, ...]:
    """The ``ROOT`` of every ``--traces ROOT=FILE`` of the run (realpaths)."""
    assignment = options.trace_assignment
    return tuple(s.root for s in assignment.sources if s.root is not None) if assignment is not None else ()


def run(
    files: list[Path],
    options: RunOptions,
    jobs: int | None = None,
    on_result: Callable[[FileResult], None] | None = None,
) -> RunResult:
    """Process ``files``; results come back sorted by display path whatever ``jobs`` is."""
    work = make_jobs(files, explicit_roots(options))
    options = with_call_site_plans(work, options)
    workers = max(1, jobs or os.cpu_count() or 1)
    results: list[FileResult] = []
    if workers == 1 or len(work) < 2:
        for job in work:
            res = process_file(job, options)
            results.append(res)
            if on_result:
                on_result(res)
    else:
        context = multiprocessing.get_context("fork") if sys.platform.startswith("linux") else None
        chunks = plan_chunks(work, workers)
        collected: set[int] = set()  # indexes of the chunks whose results came back
        futures: list[Future[list[FileResult]]] = []
        try:
            with ProcessPoolExecutor(
                max_workers=min(workers, len(work)),
                mp_context=context,
                initializer=_init_worker,
                initargs=(options,),
            ) as pool:
                futures = [pool.submit(_work_chunk, chunk) for chunk in chunks]
                try:
                    for index, future in enumerate(futures):
                        for res in future.result():
                            results.append(res)
                            if on_result:
                                on_result(res)
                        collected.add(index)
                except KeyboardInterrupt:
                    # Ctrl-C: drop the queued tasks and stop the workers now rather
                    # than after the chunks they hold (nothing has been written yet)
                    pool.shutdown(wait=False, cancel_futures=True)
                    _stop_workers()
                    raise
        except BrokenProcessPool:
            # A worker died (killed, or a crash no guard foresaw).  Chunks that
            # finished are kept; the files of every other chunk are redone, each in
            # its own child: the culprit fails alone, the others are fixed.
            for index, chunk in enumerate(chunks):
                if index in collected:
                    continue
                future = futures[index] if index < len(futures) else None
                done = future is not None and future.done() and not future.cancelled() and future.exception() is None
                for res in future.result() if done else (_work_isolated(job, options) for job in chunk):
                    results.append(res)
                    if on_result:
                        on_result(res)
    results.sort(key=lambda r: r.path)
    return RunResult(files=results)
