"""Notebooks under real TensorFlow: record a notebook executed by nbconvert, fix the right cell.

One module-scoped recording of the notebook (a ``%%time`` cell among its cells: its
body runs under ``<timed exec>``), one ``--verify`` run of a copy (its
original and its fixed notebook), and one notebook that uses the IPython extension
(``%load_ext retrace_fix``) in its own kernel: four kernels, each importing
TensorFlow (~25 s each on 2 cores).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

pytest.importorskip("tensorflow")
pytest.importorskip("nbconvert")
pytest.importorskip("ipykernel")

from retrace_fix.commands.record import run_record
from retrace_fix.notebooks.notebook import split_source
from retrace_fix.traces.model import load_trace_file
from tests.support.cli_runner import run_cli

pytestmark = pytest.mark.tf

CELLS = [
    ("code", "import tensorflow as tf\n%config Application.log_level = 'WARN'"),
    ("markdown", "A function that retraces for every length:"),
    ("code", "@tf.function\ndef double(x):\n    return x * 2"),
    ("code", "!echo shell lines are fine\nresults = []\nfor n in range(1, 5):\n    results.append(float(tf.reduce_sum(double(tf.ones([n])))))\nprint(results)"),
    ("code", "print('traces', double.experimental_get_tracing_count())"),
]


#: a ``%%time`` cell: IPython compiles its body under ``<timed exec>``, not under the cell's file name
TIMED_CELL = ("code", "%%time\n@tf.function\ndef triple(x):\n    return x * 3\nfor n in range(1, 4):\n    triple(tf.ones([n]))")


def _notebook(cells_of: list = CELLS) -> str:
    cells = []
    for number, (kind, source) in enumerate(cells_of):
        cell = {"cell_type": kind, "id": f"cell-{number}", "metadata": {}, "source": split_source(source)}
        if kind == "code":
            cell.update(execution_count=None, outputs=[])
        cells.append(cell)
    metadata = {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}}
    return json.dumps({"cells": cells, "metadata": metadata, "nbformat": 4, "nbformat_minor": 5}, indent=1) + "\n"


def _execute(project: Path, traces: str) -> tuple[int, list[str]]:
    """Record ``nb.ipynb`` executed by nbconvert: (exit code, the printed lines of the executed notebook)."""
    cwd = os.getcwd()
    os.chdir(project)
    try:
        code = run_record([sys.executable, "-m", "jupyter", "nbconvert", "--to", "notebook", "--execute", "nb.ipynb",
                           "--output", "executed.ipynb"], traces)
    finally:
        os.chdir(cwd)
    executed = json.loads((project / "executed.ipynb").read_text())
    # a cell's standard output joined before it is split into lines: the kernel may send one
    # print's pieces as separate stream outputs ('traces', ' 4\n'), depending on when it flushed
    printed = [line for cell in executed["cells"]
               for line in "".join("".join(out["text"]) for out in cell.get("outputs", [])
                                   if out.get("name") == "stdout").splitlines()]
    return code, printed


def _project(tmp_path_factory, cells_of: list = CELLS) -> Path:
    project = tmp_path_factory.mktemp("nbproject")
    (project / "pyproject.toml").write_text("[project]\nname = 'nbproject'\n")
    (project / "nb.ipynb").write_text(_notebook(cells_of))
    return project


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    project = _project(tmp_path_factory, [*CELLS, TIMED_CELL])
    before = _execute(project, "t.json")
    fixed = run_cli("--traces", "t.json", "nb.ipynb", cwd=project)
    return project, before, fixed


@pytest.fixture(scope="module")
def verified(tmp_path_factory):
    project = _project(tmp_path_factory)
    result = run_cli("--verify", "nb.ipynb", "--", sys.executable, "-m", "jupyter", "nbconvert", "--to", "notebook",
                     "--execute", "nb.ipynb", "--output", "executed.ipynb", cwd=project)
    return project, result


def test_the_kernels_traces_are_named_by_notebook_and_line(recorded):
    project, (code, printed), _ = recorded
    assert code == 0
    assert "traces 4" in printed
    functions = load_trace_file(str(project / "t.json")).functions
    function, timed = sorted(functions.values() if isinstance(functions, dict) else functions,
                             key=lambda f: f.firstlineno)
    assert (function.file, function.qualname, function.firstlineno) == ("nb.ipynb", "double", 3)
    assert len(function.traces) == 4
    assert [(s.file, s.line) for s in function.call_sites] == [("nb.ipynb", 9)]  # cell 4 (text lines 6-10), its line 4
    # the body of the %%time cell (text lines 12-17), compiled as <timed exec>: its decorator's line
    assert (timed.file, timed.qualname, timed.firstlineno, len(timed.traces)) == ("nb.ipynb", "triple", 13, 3)
    assert [(s.file, s.line) for s in timed.call_sites] == [("nb.ipynb", 17)]  # the call in the body, not `%%time`


FIXED_CELL = (
    "@tf.function(input_signature=[tf.TensorSpec(shape=[None], dtype=tf.float32)])\n"
    "def double(x):\n    return x * 2"
)


def _sources(project: Path) -> list[str]:
    return ["".join(c["source"]) for c in json.loads((project / "nb.ipynb").read_text())["cells"]]


FIXED_TIMED_CELL = TIMED_CELL[1].replace(
    "@tf.function\n", "@tf.function(input_signature=[tf.TensorSpec(shape=[None], dtype=tf.float32)])\n")


def test_the_fix_goes_into_the_functions_cell(recorded):
    project, _, fixed = recorded
    assert fixed.returncode == 0, fixed.stderr
    assert _sources(project) == [FIXED_CELL if i == 2 else source for i, (_, source) in enumerate(CELLS)] + [
        FIXED_TIMED_CELL]


def test_verify_proves_the_fix_on_the_executed_notebook(verified):
    project, result = verified
    assert result.returncode == 0, result.stderr
    assert _sources(project) == [FIXED_CELL if i == 2 else source for i, (_, source) in enumerate(CELLS)]
    # the executed notebooks were compared (what the cells printed), and the traces dropped
    assert "verified 1 of 1 candidate fix" in result.stderr and "traces 4 \u2192 1" in result.stderr
    assert "outputs vary" not in result.stderr


EXTENSION_CELLS = [
    "%load_ext retrace_fix\n%retrace_fix record",
    "import tensorflow as tf",
    "@tf.function\ndef double(x):\n    return x * 2",
    "for n in range(1, 4):\n    double(tf.ones([n]))",
    "%retrace_fix report",
    "%retrace_fix diff",
    "%retrace_fix fix",
]


@pytest.fixture(scope="module")
def extension(tmp_path_factory):
    """A notebook that records itself with ``%retrace_fix``, run by nbclient in a real kernel; the front
    end's path of the session's notebook is given as Jupyter Server gives it ($JPY_SESSION_NAME)."""
    import nbclient
    import nbformat

    project = tmp_path_factory.mktemp("extension")
    (project / "pyproject.toml").write_text("[project]\nname = 'extension'\n")
    # nbformat 4.5 cells carry an id (nbformat warns about a cell without one)
    cells = [{"cell_type": "code", "id": f"cell-{number}", "execution_count": None, "metadata": {}, "outputs": [],
              "source": split_source(source)} for number, source in enumerate(EXTENSION_CELLS)]
    text = json.dumps({"cells": cells, "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
                       "language": "python"}}, "nbformat": 4, "nbformat_minor": 5}, indent=1) + "\n"
    (project / "session.ipynb").write_text(text)
    notebook = nbformat.reads(text, as_version=4)
    old = os.environ.get("JPY_SESSION_NAME")
    os.environ["JPY_SESSION_NAME"] = str(project / "session.ipynb")
    try:
        nbclient.NotebookClient(notebook, timeout=300, resources={"metadata": {"path": str(project)}}).execute()
    finally:
        if old is None:
            os.environ.pop("JPY_SESSION_NAME", None)
        else:
            os.environ["JPY_SESSION_NAME"] = old
    printed = ["".join(out.get("text", "")) for cell in notebook.cells for out in cell.outputs
               if out.get("name") == "stdout"]
    return project, printed


def test_the_extension_records_reports_diffs_and_fixes_its_own_notebook(extension):
    project, printed = extension
    assert printed[0].startswith("retrace-fix: recording the traces of session.ipynb")
    assert "session.ipynb:cell 3:1 double: 3 calls, 3 traces, 2 retraces" in printed[1]
    assert printed[2].startswith("--- session.ipynb:cell 3\n+++ session.ipynb:cell 3\n")
    assert "+@tf.function(input_signature=[tf.TensorSpec(shape=[None], dtype=tf.float32)])" in printed[2]
    assert printed[3].startswith("retrace-fix: 1 fix written to session.ipynb")
    assert _sources_of(project / "session.ipynb")[2] == FIXED_CELL


def _sources_of(path: Path) -> list[str]:
    return ["".join(c["source"]) for c in json.loads(path.read_text())["cells"]]
