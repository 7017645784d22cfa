"""RTF005's whole-project pre-pass (:func:`with_call_site_plans`): which recorded call sites are
rewritten, decided once per project root before any file is processed."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from retrace_fix import fastvisit
from retrace_fix.engine.hostile_input import MAX_BRACKET_DEPTH, cpython_syntax_problem, max_bracket_depth, risky_for_libcst
from retrace_fix.engine.options import FileJob, RunOptions
from retrace_fix.engine.prefilter import decode_source
from retrace_fix.notebooks.notebook import NotebookError, is_notebook, read_notebook


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
    if risky_for_libcst(data) or max_bracket_depth(data) > MAX_BRACKET_DEPTH or cpython_syntax_problem(text):
        return None
    return text

