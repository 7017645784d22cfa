"""Code a Jupyter kernel ran, mapped back to the notebook cell it came from (the recorder's side).

A kernel compiles each cell under a generated file name: ipykernel's
``<tempdir>/ipykernel_<pid>/<hash>.py`` (``ipykernel.compiler.get_file_name``),
plain IPython's ``<ipython-input-N-hash>``.  That name lies outside the project,
so the recorder would ignore the functions defined in a notebook.  IPython keeps
the code it compiled (the cell after its own transforms: magics become
``get_ipython()`` calls, leading blank lines go) in :mod:`linecache` under that
name; :class:`CellLocator` finds the notebook cell whose source, transformed the
same way, is that code, and gives the notebook's path (relative to the project
root) and the line in the notebook's Python text (:mod:`retrace_fix.notebooks.notebook`:
the code cells joined in order).  That is the name and line the fixer gives a
notebook's ``def``, so ``--traces`` matches it as it matches a ``.py`` file.

Which notebooks: those named on the recorded command line (``retrace-fix record``
passes them in ``$RETRACE_FIX_NOTEBOOKS``), then those in the kernel's working
directory (nbconvert, ``jupyter execute`` and papermill start the kernel in the
notebook's directory).

A cell magic whose body is Python runs that body apart from the cell.
``%%capture`` runs it as a cell of its own (a generated file name, its text in
:mod:`linecache`): it is matched as the body after the magic line.  ``%%time``
compiles it under ``<timed exec>`` (``<timed eval>`` for one expression) and
``%%timeit`` under ``<magic-timeit>``, names every such cell shares, with no text
kept; there a function is matched by its qualified name and first line among the
``def``s of those cells' bodies (transformed as the kernel does), and mapped only
where exactly one place matches.  A call made on a line of such a body is placed
by the frame of the cell that ran the magic (:meth:`CellLocator.locate_in_magic`).

Never imports TensorFlow; IPython only where the kernel has it loaded already.
"""

from __future__ import annotations

import ast
import glob
import json
import linecache
import os
import re
import sys
from typing import Callable

from retrace_fix.linemap import LineMap, source_lines
from retrace_fix.notebooks.notebook import PYTHON_CELL_MAGICS, Notebook, NotebookError, read_notebook

#: ``os.pathsep``-separated notebooks named on the recorded command line
ENV_NOTEBOOKS = "RETRACE_FIX_NOTEBOOKS"
_KERNEL_CELL = re.compile(r"ipykernel_\d+[\\/]-?\d+\.py$")
_IPYTHON_CELL = re.compile(r"^<ipython-input-\d+-[0-9a-f]+>$")
#: the names IPython's timing magics compile a cell's body under -> the cell magic that does it
TIMED_FILES = {"<timed exec>": "time", "<timed eval>": "time", "<magic-timeit>": "timeit"}
_CELL_MAGIC_LINE = re.compile(r"%%([A-Za-z_][\w-]*)")


def is_cell_file(filename: str) -> bool:
    """Is ``filename`` the name a kernel compiled a cell (or a timed cell's body) under?"""
    return bool(_KERNEL_CELL.search(filename) or _IPYTHON_CELL.match(filename) or filename in TIMED_FILES)


def _magic_body(source: str) -> tuple[str, str, int] | None:
    """(the cell magic's name, the body, how many lines precede the body) of a cell that starts
    with a cell magic whose body is Python (IPython drops the blank lines before it); else None."""
    lines = source_lines(source)
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is None:
        return None
    magic = _CELL_MAGIC_LINE.match(lines[first])
    if magic is None or magic.group(1) not in PYTHON_CELL_MAGICS:
        return None
    return magic.group(1), "".join(lines[first + 1:]), first + 1


def _defined_at(text: str, qualname: str, line: int) -> bool:
    """Does ``text`` define a function ``qualname`` whose ``def`` (or first decorator) is on ``line``?"""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    found = False

    def visit(node: ast.AST, prefix: str) -> None:
        nonlocal found
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = prefix + child.name
                if not isinstance(child, ast.ClassDef) and name == qualname and line in (
                        child.lineno, *(d.lineno for d in child.decorator_list)):
                    found = True
                inner = name + (".<locals>." if not isinstance(child, ast.ClassDef) else ".")
                visit(child, inner)
            else:
                visit(child, prefix)

    visit(tree, "")
    return found


def notebooks_in_command(cmd: list[str]) -> str:
    """The value of ``$RETRACE_FIX_NOTEBOOKS`` for a recorded command: its existing ``.ipynb`` arguments."""
    found = [os.path.abspath(arg) for arg in cmd if arg.endswith(".ipynb") and os.path.isfile(arg)]
    return os.pathsep.join(found)


def _transformer():
    """IPython's own cell transform in this process (identity where IPython is not running)."""
    ipython = sys.modules.get("IPython")
    shell = None
    if ipython is not None:
        try:
            shell = ipython.get_ipython()
        except Exception:  # pragma: no cover - defensive
            shell = None
    if shell is None:
        return lambda source: source

    def transform(source: str) -> str:
        try:
            return shell.transform_cell(source)
        except Exception:  # an IPython that cannot transform it: compare the raw source
            return source

    return transform


class CellLocator:
    """``locate(filename, line)``: the notebook path and line of a kernel's cell file and line.

    ``notebooks``: paths to look in before the others (a live session's own notebook file);
    ``history``: a live session whose notebook file is unknown gives the cells it ran as a
    notebook text (:func:`history_notebook`) named ``history[0]`` (not a file).
    """

    def __init__(self, project_root: str, notebooks: list[str] | None = None,
                 history: "tuple[str, Callable[[], str]] | None" = None, search: bool = True) -> None:
        self.project_root = project_root
        self.first = list(notebooks or [])
        self.search = search  # also the notebooks of $RETRACE_FIX_NOTEBOOKS and the working directory
        self.history = history
        self._notebooks: list[tuple[str, Notebook]] | None = None
        self._cells: dict[str, tuple[str, int, LineMap, str] | None] = {}
        self._timed: dict[tuple, tuple[str, int] | None] = {}

    def locate(self, filename: str, line: int, qualname: str | None = None) -> tuple[str, int] | None:
        """The notebook (relative to the project root) and the line of its text of ``line`` of the
        code a kernel compiled under ``filename``; ``qualname``: the function defined there (needed
        for a timed cell's body, whose name every timed cell shares)."""
        if filename in TIMED_FILES:
            key = (filename, qualname, line)
            if key not in self._timed:
                self._timed[key] = self._find_timed(TIMED_FILES[filename], qualname, line) if qualname else None
            return self._timed[key]
        if filename not in self._cells:
            self._cells[filename] = self._find(filename)
        found = self._cells[filename]
        if found is None:
            return None
        rel, start, line_map, _source = found
        return rel, start + line_map.original_line(line) - 1

    def locate_in_magic(self, cell_file: str, timed_file: str, line: int) -> tuple[str, int] | None:
        """Line ``line`` of the body a ``%%time``/``%%timeit`` cell compiled under ``timed_file``, the
        cell being the one the kernel compiled under ``cell_file`` (the frame that ran the magic)."""
        if cell_file not in self._cells:
            self._cells[cell_file] = self._find(cell_file)
        found = self._cells[cell_file]
        body = _magic_body(found[3]) if found is not None else None
        if body is None or body[0] != TIMED_FILES.get(timed_file):
            return None
        rel, start, _line_map, _source = found
        _magic, source, before = body
        transformed = _transformer()(source)
        return rel, start + before + LineMap(source, transformed).original_line(line) - 1

    def _all_candidates(self) -> list[tuple[str, Notebook]]:
        candidates = list(self._candidates())
        if self.history is not None:  # the session's cells as they are now (they grow as it runs)
            try:
                candidates.append((self.history[0], read_notebook(self.history[1]())))
            except NotebookError:
                pass
        return candidates

    def _find(self, filename: str) -> tuple[str, int, LineMap, str] | None:
        """(notebook, first line of the matching cell or body in its text, the line map, the cell's
        source: "" where the body of a magic matched, not the whole cell)."""
        text = "".join(linecache.getlines(filename))
        if not text:
            return None
        transform = _transformer()
        for rel, notebook in self._all_candidates():
            for cell in notebook.code:
                transformed = transform(cell.source)
                if transformed == text or transformed.rstrip() == text.rstrip():
                    return rel, cell.start, LineMap(cell.source, transformed), cell.source
                body = _magic_body(cell.source)  # %%capture runs its body as a cell of its own
                if body is not None:
                    _magic, source, before = body
                    transformed = transform(source)
                    if transformed.strip() and (transformed == text or transformed.rstrip() == text.rstrip()):
                        return rel, cell.start + before, LineMap(source, transformed), ""
        return None

    def _find_timed(self, magic: str, qualname: str, line: int) -> tuple[str, int] | None:
        """Where the body of a ``%%time``/``%%timeit`` cell defines ``qualname`` on its line ``line``:
        the one place among the notebooks' cells of that magic, else None (none, or several)."""
        transform = _transformer()
        places = set()
        for rel, notebook in self._all_candidates():
            for cell in notebook.code:
                body = _magic_body(cell.source)
                if body is None or body[0] != magic:
                    continue
                _magic, source, before = body
                transformed = transform(source)
                if _defined_at(transformed, qualname, line):
                    places.add((rel, cell.start + before + LineMap(source, transformed).original_line(line) - 1))
        return places.pop() if len(places) == 1 else None

    def _candidates(self) -> list[tuple[str, Notebook]]:
        if self._notebooks is not None:
            return self._notebooks
        paths = list(self.first)
        if self.search:
            paths += [p for p in os.environ.get(ENV_NOTEBOOKS, "").split(os.pathsep) if p]
            try:
                paths += sorted(glob.glob(os.path.join(os.getcwd(), "*.ipynb")))
            except OSError:  # pragma: no cover - the working directory is gone
                pass
        self._notebooks = []
        seen: set[str] = set()
        for path in paths:
            real = os.path.realpath(path)
            rel = os.path.relpath(real, self.project_root)
            if real in seen or rel.split(os.sep)[0] == os.pardir:
                continue
            seen.add(real)
            try:
                with open(real, "rb") as handle:
                    notebook = read_notebook(handle.read())
            except (OSError, NotebookError):
                continue
            self._notebooks.append(("/".join(rel.split(os.sep)), notebook))
        return self._notebooks


def history_notebook(sources: list[str]) -> str:
    """A notebook text (nbformat 4) of code cells with these sources, in order: a live session's
    cells as it ran them (``In``), where cell N is ``In[N]`` (``sources[0]`` is IPython's empty
    ``In[0]``)."""
    from retrace_fix.notebooks.notebook import split_source

    cells = [{"cell_type": "code", "execution_count": number, "metadata": {}, "outputs": [],
              "source": split_source(source)} for number, source in enumerate(sources[1:], 1)]
    return json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1) + "\n"


__all__ = ["CellLocator", "ENV_NOTEBOOKS", "history_notebook", "is_cell_file", "notebooks_in_command"]
