"""A notebook as one module: its code cells' Python processed as a file is
(:func:`process_notebook`), its findings and errors located per cell, its fix written per cell."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Callable

from retrace_fix.engine.options import FileJob, RunOptions, codemods_for_file
from retrace_fix.engine.prefilter import might_contain_target, trace_work
from retrace_fix.findings import FileResult, Finding
from retrace_fix.notebooks.notebook import (
    Notebook, NotebookError, is_python_language, load_document, read_notebook,
)
from retrace_fix.wording import plural


#: processes the Python text of a notebook as a file (:func:`retrace_fix.engine.process._process_file`)
ProcessPython = Callable[[FileJob, RunOptions], FileResult]


def process_notebook(job: FileJob, options: RunOptions, data: bytes, process_python: ProcessPython) -> FileResult:
    """A notebook: its code cells as one module (:mod:`retrace_fix.notebooks.notebook`), located and written per cell.

    The result's ``original``/``fixed`` are the notebook's JSON text (what is written, diffed
    per cell and patched); findings carry the cell and the line in it.  Never raises.
    """
    try:
        return _read_and_process_notebook(job, options, data, process_python)
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:  # JSON nested beyond the stack, a bug: that notebook fails alone
        return FileResult(path=job.display, error=(
            f"{job.display}:1: internal error reading the notebook: {type(exc).__name__}: {exc}; "
            "notebook left unchanged"))


def _read_and_process_notebook(job: FileJob, options: RunOptions, data: bytes, process_python: ProcessPython) -> FileResult:
    result = FileResult(path=job.display)
    try:
        document = load_document(data)  # a file that is no notebook is an error, whatever it holds
        if not is_python_language(document.language):  # an R, Julia ... notebook: not a Python source
            result.skipped = True
            result.skip_note = f"{job.display}: not a Python notebook (its kernel runs {document.language}); skipped"
            return result
        # the codemods a .py of this root would be prefiltered for: the trace-driven ones only
        # where its traces (or RTF005's plan) concern the notebook
        traces_apply = any(trace_work(job, options))
        checked = options.check_syntax or not options.prefilter  # every cell parsed, as every .py is then
        # the prefilter reads the code cells' sources, which hold all the notebook's Python can
        # hold (outputs, images and markdown that mention range( or predict do not count)
        codemods = codemods_for_file(options, traces_apply)
        if not checked and not might_contain_target(document.code_source_bytes(), codemods, traces_apply):
            result.skipped = True  # nothing to look for: its cells are not parsed (as a .py is not)
            return result
        notebook = read_notebook(data, document)
    except NotebookError as exc:
        result.error = f"{exc.location(job.display)}: {exc.message}; notebook left unchanged" \
            if "left unchanged" not in exc.message else f"{exc.location(job.display)}: {exc.message}"
        return result
    inner = process_python(replace(job, data=notebook.python.encode("utf-8"), python_of_notebook=True,
                                   python_tree=notebook.tree), options)
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

