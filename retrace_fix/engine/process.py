"""One file, start to end (:func:`process_file`): read, decode, prefilter, the hostile-input
guards, then LibCST and the codemods (:mod:`retrace_fix.engine.transform`) in this process or,
where that is risky, in a forked child.  Never raises."""

from __future__ import annotations

import gc
from contextlib import contextmanager
from dataclasses import replace

import libcst as cst

from retrace_fix import fastvisit
from retrace_fix.codemods._tree_facts import tree_facts
from retrace_fix.codemods._unsigned_count import unsigned_tf_functions
from retrace_fix.engine.call_sites import with_call_site_plans
from retrace_fix.engine.hostile_input import (
    MAX_BRACKET_DEPTH, PARSE_ERROR_PREFIX, max_bracket_depth, risky_for_libcst, syntax_error_message,
)
from retrace_fix.engine.isolation import isolated
from retrace_fix.engine.notebook_file import process_notebook
from retrace_fix.engine.options import FileJob, RunOptions, codemods_for_file, selected_codemods
from retrace_fix.engine.prefilter import decode_source, codemods_to_run, round_trips, trace_work, traces_mention
from retrace_fix.engine.transform import TransformInput, transform, transform_isolated
from retrace_fix.findings import FileResult
from retrace_fix.notebooks.notebook import is_notebook


def process_file(job: FileJob, options: RunOptions) -> FileResult:
    """Run the selected codemods over one file; never raises.

    RTF005 needs the run's call-site plan (:func:`~retrace_fix.engine.call_sites.with_call_site_plans`); a caller that did not make
    one gets a plan of this file alone (its call sites in other files are then outside the run).
    """
    if options.call_site_plans is None and options.wants_call_site_plans:
        options = with_call_site_plans([job], options)
    with _gc_paused():
        result = _process_file(job, options)
    if options.trace_assignment is not None:  # which root's traces this file was checked against
        result.trace_root, result.trace_relpath = job.root, job.relpath
        if result.trace_hits is None and not result.error and any(cls.NEEDS_TRACES for cls in selected_codemods(options)):
            traces = options.traces_for(job.root)
            if traces is not None and not traces_mention(traces, job.relpath):
                result.trace_hits = []  # looked at by the trace-driven codemods: no recorded function here
    return result


def without_text(result: FileResult) -> FileResult:
    """``result`` as a run hands it on: a file with nothing to report (no fix, no finding, no
    error) keeps no text, its ``original`` and ``fixed`` become ``""`` (it was read: not None;
    it is not changed: nothing to write, diff or patch).

    Nothing reads the text of such a file: diffs, writes, patches, branches and SARIF read the
    files a run changed and those with findings.  Carrying it cost a bulk run most of what its
    workers sent back (70 of 74 MB over the 34-root corpus: pickled, piped, unpickled) and the
    memory of every file's text until the run ended.
    """
    if result.original and result.error is None and not result.findings and not result.changed:
        result.original = result.fixed = ""
    return result


def _process_file(job: FileJob, options: RunOptions) -> FileResult:
    result = FileResult(path=job.display)
    try:
        data = job.data if job.data is not None else job.path.read_bytes()
    except OSError as exc:
        result.error = f"{job.display}:1: cannot read: {exc.strerror or exc}"
        return result
    if is_notebook(job.path.name) and not job.python_of_notebook:
        return process_notebook(job, options, data, _process_file)
    try:
        text, encoding = decode_source(data)
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        result.error = f"{job.display}:{line}: cannot decode: {exc}"
        return result
    except (SyntaxError, LookupError) as exc:  # a bad or unknown PEP 263 cookie
        result.error = f"{job.display}:1: cannot decode: {exc}"
        return result
    if not round_trips(data, text, encoding):
        result.error = (
            f"{job.display}:1: its encoding ({encoding}) does not give back the same bytes "
            "when written; file left unchanged"
        )
        return result
    result.original = result.fixed = text
    result.encoding = encoding
    has_traces, edits_here = trace_work(job, options)
    to_run, problem, outline = codemods_to_run(
        data, text, codemods_for_file(options, has_traces or edits_here), options, has_traces or edits_here,
        job.python_tree if encoding == "utf-8" else None,  # a notebook's tree is of its text as UTF-8
    )
    if problem is not None and problem.confirmable and max_bracket_depth(data) > MAX_BRACKET_DEPTH:
        problem = replace(problem, confirmable=False)
    if not to_run:
        # Nothing to rewrite, but a file that does not parse is still reported
        # (unless LibCST, which may know newer syntax than this Python, accepts it).
        result.skipped = True
        if outline is not None and outline.references_tf_function:
            # the next-step hint counts the tf.functions no signature fixes, parsed or not
            result.unsigned_tf_functions = unsigned_tf_functions(outline.tree, tree_facts(outline.tree, outline))
        if problem is not None:
            result.libcst_parses = int(problem.confirmable)
            if problem.confirmable and isolated(_libcst_accepts, (text,), len(data)) == ("ok", True):
                return result
            result.error = syntax_error_message(job.display, problem)
        return result
    if problem is not None and not problem.confirmable:
        result.error = syntax_error_message(job.display, problem)
        return result
    parse_text = None  # the text LibCST parses when not the whole module
    if outline is not None and options.partial_parse and not any(cls.NEEDS_WHOLE_MODULE for cls in to_run) \
            and not any(cls.likely_to_edit(outline) for cls in to_run):  # an edited file is run whole anyway
        parse_text = outline.pruned_text()
    work = TransformInput(job, options, text, encoding, to_run, has_traces, problem is None, parse_text,
                          outline.tree if outline is not None else None)
    if problem is None and not risky_for_libcst(data):
        with fastvisit.installed():
            transformed = transform(work)
        if transformed is not None:
            return transformed
        # RecursionError on deeply nested (but valid) code: retry with a big stack
    status, value = isolated(transform_isolated, (work,), len(data))
    if status == "ok" and value is not None:
        if problem is not None and value.error:  # LibCST refused it too: say where CPython locates the error
            value.error = syntax_error_message(job.display, problem)
        return value
    reason = value if status != "ok" else f"{PARSE_ERROR_PREFIX}: nested too deeply for LibCST"
    result.error = f"{job.display}:1: {reason}; file left unchanged"
    return result


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
    """No cyclic GC while one file is read, planned, parsed and transformed.

    Its trees (CPython's, LibCST's, a notebook's JSON) are acyclic and die with the file, but
    while they live, every few hundred allocations the collector would traverse them (a
    sixth of a bulk run's CPU).  What the file leaves behind is collected after it.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()

