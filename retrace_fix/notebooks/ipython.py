"""``%load_ext retrace_fix``: record, report and fix the tf.functions of a live Jupyter or IPython session.

::

    %retrace_fix record        record this kernel's traces from now on (TensorFlow is patched when imported)
    %retrace_fix report        which argument made each function retrace (what was recorded so far)
    %retrace_fix diff          the fixes, one diff per cell, traces included; writes nothing
    %retrace_fix fix           write them into the notebook file (only where the front end gives its path)
    %retrace_fix save [PATH]   write the traces (default .retrace/traces.json)
    %retrace_fix stop          stop recording

The session's notebook file is the one the front end names: ``$JPY_SESSION_NAME``
(Jupyter Server 2: JupyterLab, Notebook 7), ``__vsc_ipynb_file__`` (VS Code) or
``__session__``; ``diff`` and ``fix`` work on it, with the traces of its cells
mapped back to it (:mod:`retrace_fix.traces.cells`).  Where no file is known
(Colab, a terminal), ``diff`` works on the cells the session ran (``In``), cell N
being ``In[N]``, and ``fix`` refuses.  The engine never imports TensorFlow; the
recorder only patches it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from retrace_fix.sources.discovery import find_project_root
from retrace_fix.engine.options import FileJob, RunOptions
from retrace_fix.engine.process import process_file
from retrace_fix.findings import FileResult
from retrace_fix.notebooks.notebook import NotebookError, cell_diff, read_notebook
from retrace_fix.output.render import finding_line
from retrace_fix.traces import recorder as _recorder
from retrace_fix.traces.cells import CellLocator, history_notebook
from retrace_fix.wording import plural

#: the name a session without a notebook file gives its cells (in traces and diffs)
HISTORY = "In"
USAGE = "usage: %retrace_fix record | report | diff | fix | save [PATH] | stop"


def session_notebook(shell: Any) -> str | None:
    """The path of the session's notebook file, where the front end tells it (None: unknown)."""
    namespace = getattr(shell, "user_ns", {}) or {}
    for candidate in (os.environ.get("JPY_SESSION_NAME"), namespace.get("__vsc_ipynb_file__"),
                      namespace.get("__session__")):
        if isinstance(candidate, str) and candidate.endswith(".ipynb") and os.path.isfile(candidate):
            return os.path.abspath(candidate)
    return None


class Session:
    """The extension's state in one kernel: the recorder and where the session's cells live."""

    def __init__(self, shell: Any) -> None:
        self.shell = shell
        self.recorder: _recorder.Recorder | None = None

    # ---------------------------------------------------------------- where the cells are

    def notebook(self) -> str | None:
        return session_notebook(self.shell)

    def root(self) -> str:
        path = self.notebook()
        return find_project_root(os.path.dirname(path) if path else os.getcwd())

    def history(self) -> str:
        """The cells this session ran as a notebook text (a cell that does not parse left empty)."""
        sources = [str(s) for s in (getattr(self.shell, "user_ns", {}) or {}).get("In", [""])]
        for index in range(1, len(sources)):
            try:
                if read_notebook(history_notebook(["", sources[index]])).broken:
                    sources[index] = ""
            except NotebookError:
                sources[index] = ""
        return history_notebook(sources)

    # ---------------------------------------------------------------- commands

    def record(self) -> str:
        if self.recorder is not None:
            return "retrace-fix: already recording"
        recorder = _recorder.Recorder(self.root())
        notebook = self.notebook()
        recorder._cells = CellLocator(recorder.project_root, [notebook] if notebook else [],
                                      history=None if notebook else (HISTORY, self.history), search=False)
        self.recorder = _recorder.activate(recorder)
        where = os.path.relpath(notebook) if notebook else "the cells of this session (In)"
        return f"retrace-fix: recording the traces of {where}"

    def stop(self) -> str:
        if self.recorder is None:
            return "retrace-fix: not recording"
        _recorder.deactivate(self.recorder)
        self.recorder = None
        return "retrace-fix: stopped recording"

    def traces(self, prove: bool = False) -> Any:
        if self.recorder is None:
            return None
        trace_set = self.recorder.trace_set(prove=prove)
        from retrace_fix.traces.project import project_of

        trace_set.project = project_of(self.recorder.project_root)
        return trace_set

    def report(self) -> str:
        from retrace_fix.traces.retrace_report import render_report

        trace_set = self.traces()
        if trace_set is None:
            return "retrace-fix: not recording (%retrace_fix record first)"
        return render_report(trace_set) if len(trace_set) else "retrace-fix: no traces recorded yet"

    def save(self, path: str) -> str:
        from retrace_fix.traces.model import save_trace_file

        trace_set = self.traces(prove=True)
        if trace_set is None:
            return "retrace-fix: not recording (%retrace_fix record first)"
        save_trace_file(trace_set, path)
        return f"retrace-fix: {len(trace_set)} functions saved to {path}"

    def run(self) -> FileResult:
        """The engine over the session's notebook (or its cells), with the traces recorded so far."""
        options = RunOptions(traces=self.traces(prove=True))
        notebook = self.notebook()
        root = self.root()
        if notebook is not None:
            rel = Path(os.path.relpath(os.path.realpath(notebook), root)).as_posix()
            job = FileJob(path=Path(notebook), display=os.path.relpath(notebook), relpath=rel, root=root)
        else:
            data = self.history().encode("utf-8")
            job = FileJob(path=Path(os.getcwd()) / "session.ipynb", display=HISTORY, relpath=HISTORY,
                          data=data, root=root)
        return process_file(job, options)

    def diff(self) -> str:
        result = self.run()
        lines = [result.error] if result.error else []
        if result.changed:
            lines.append(cell_diff(result.original or "", result.fixed or "", result.path).rstrip("\n"))
        lines += [finding_line(f) for f in result.findings if not f.applied]
        return "\n".join(lines) if lines else "retrace-fix: nothing to fix"

    def fix(self) -> str:
        from retrace_fix.sources.writes import WriteRefused, replace_file

        if self.notebook() is None:
            return "retrace-fix: this front end does not give the notebook's path; use %retrace_fix diff"
        result = self.run()
        if result.error:
            return result.error
        if not result.changed:
            return "retrace-fix: nothing to fix"
        try:
            replace_file(Path(self.notebook() or ""), (result.fixed or "").encode("utf-8"),
                         expected_old=(result.original or "").encode("utf-8"))
        except (WriteRefused, OSError) as exc:
            return f"retrace-fix: {result.path}: not written: {exc}"
        fixes = sum(1 for f in result.findings if f.applied)
        return f"retrace-fix: {plural(fixes, 'fix')} written to {result.path} (reload it in the front end)"

    def __call__(self, line: str) -> None:
        words = line.split()
        command = words[0] if words else ""
        if command == "save":
            print(self.save(words[1] if len(words) > 1 else os.path.join(".retrace", "traces.json")))
        elif command in ("record", "report", "diff", "fix", "stop") and len(words) == 1:
            print(getattr(self, command)())
        else:
            print(USAGE)


def load_ipython_extension(shell: Any) -> None:
    """Register ``%retrace_fix`` in ``shell`` (IPython's extension hook)."""
    session = Session(shell)
    shell.register_magic_function(session, magic_kind="line", magic_name="retrace_fix")
    shell.user_ns.setdefault("_retrace_fix_session", session)


def unload_ipython_extension(shell: Any) -> None:
    session = shell.user_ns.pop("_retrace_fix_session", None)
    if session is not None and session.recorder is not None:
        session.stop()


__all__ = ["HISTORY", "Session", "load_ipython_extension", "session_notebook", "unload_ipython_extension"]
