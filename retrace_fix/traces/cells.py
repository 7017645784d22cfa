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
notebook's directory).  The body of a ``%%time``/``%%timeit`` cell is compiled by
the magic under a name of its own (``<timed exec>``): it is not mapped.

Never imports TensorFlow; IPython only where the kernel has it loaded already.
"""

from __future__ import annotations

import glob
import json
import linecache
import os
import re
import sys
from typing import Callable

from retrace_fix.linemap import LineMap
from retrace_fix.notebooks.notebook import Notebook, NotebookError, read_notebook

#: ``os.pathsep``-separated notebooks named on the recorded command line
ENV_NOTEBOOKS = "RETRACE_FIX_NOTEBOOKS"
_KERNEL_CELL = re.compile(r"ipykernel_\d+[\\/]-?\d+\.py$")
_IPYTHON_CELL = re.compile(r"^<ipython-input-\d+-[0-9a-f]+>$")


def is_cell_file(filename: str) -> bool:
    """Is ``filename`` the name a kernel compiled a cell under?"""
    return bool(_KERNEL_CELL.search(filename) or _IPYTHON_CELL.match(filename))


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
        self._cells: dict[str, tuple[str, int, LineMap] | None] = {}

    def locate(self, filename: str, line: int) -> tuple[str, int] | None:
        if filename not in self._cells:
            self._cells[filename] = self._find(filename)
        found = self._cells[filename]
        if found is None:
            return None
        rel, start, line_map = found
        return rel, start + line_map.original_line(line) - 1

    def _find(self, filename: str) -> tuple[str, int, LineMap] | None:
        text = "".join(linecache.getlines(filename))
        if not text:
            return None
        transform = _transformer()
        candidates = list(self._candidates())
        if self.history is not None:  # the session's cells as they are now (they grow as it runs)
            try:
                candidates.append((self.history[0], read_notebook(self.history[1]())))
            except NotebookError:
                pass
        for rel, notebook in candidates:
            for cell in notebook.code:
                transformed = transform(cell.source)
                if transformed == text or transformed.rstrip() == text.rstrip():
                    return rel, cell.start, LineMap(cell.source, transformed)
        return None

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
