"""Notebooks (``.ipynb``): golden cases, the masking of IPython syntax, and the command line.

Golden cases live in ``golden/notebooks/<case>/``: ``input.ipynb``, ``expected.ipynb``
when the notebook changes (compared byte for byte: outputs, metadata, key order,
indentation and the final newline must survive), ``findings.txt`` (``cell N:LINE:COL:
CODE ...``) and an optional ``case.toml`` (``select``; default: every code).
``--update-golden`` rewrites them.
"""

from __future__ import annotations

import ast
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from retrace_fix.engine.options import FileJob, RunOptions
from retrace_fix.engine.process import process_file
from retrace_fix.notebooks.notebook import (
    NotebookError, cell_diff, read_notebook, splice_sources, split_source, validation_problem,
)
from tests.support.cli_runner import run_cli
from tests.support.golden import GOLDEN_ROOT

CASES = sorted(p.parent for p in (GOLDEN_ROOT / "notebooks").glob("*/input.ipynb"))


def _options(case: Path) -> RunOptions:
    path = case / "case.toml"
    settings = tomllib.loads(path.read_text()) if path.exists() else {}
    select = settings.get("select")
    return RunOptions(select=tuple(select) if select else None, unsafe_fixes=bool(settings.get("unsafe-fixes")))


def _run(case: Path, source: Path, workdir: Path):
    target = workdir / "input.ipynb"
    shutil.copyfile(source, target)
    return process_file(FileJob(path=target, display="input.ipynb", relpath="input.ipynb"), _options(case))


def _render(findings) -> str:
    out = []
    for f in findings:
        mark = " [*]" if f.applied else ""
        out.append(f"cell {f.cell}:{f.line}:{f.column + 1}: {f.code}{mark} [{f.tier.value}] {f.message}\n")
    return "".join(out)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_notebook_golden_case(case: Path, tmp_path, request):
    result = _run(case, case / "input.ipynb", tmp_path)
    assert result.error is None, result.error
    expected_path = case / "expected.ipynb"
    findings = _render(result.findings)
    fixed = (result.fixed or "").encode("utf-8")
    if request.config.getoption("--update-golden"):
        if fixed == (case / "input.ipynb").read_bytes():
            expected_path.unlink(missing_ok=True)
        else:
            expected_path.write_bytes(fixed)
        (case / "findings.txt").write_text(findings, encoding="utf-8")
    expected = (expected_path if expected_path.exists() else case / "input.ipynb").read_bytes()
    assert findings == (case / "findings.txt").read_text(encoding="utf-8")
    assert fixed == expected, cell_diff(result.original or "", result.fixed or "", "input.ipynb")


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_notebook_golden_case_is_idempotent_and_valid(case: Path, tmp_path):
    expected_path = case / "expected.ipynb"
    if not expected_path.exists():
        pytest.skip("the case does not change")
    result = _run(case, expected_path, tmp_path)
    assert result.error is None and result.fixed == result.original
    assert validation_problem(expected_path.read_text(encoding="utf-8")) is None
    # only the sources of code cells changed: outputs, counts, metadata and every other cell are equal
    before = json.loads((case / "input.ipynb").read_text(encoding="utf-8"))
    after = json.loads(expected_path.read_text(encoding="utf-8"))
    for cell in [*before["cells"], *after["cells"]]:
        cell.pop("source")
    assert before == after


def test_golden_cases_cover_the_brief():
    names = {c.name for c in CASES}
    assert {"magics-of-each-kind", "names-across-cells", "cell-magics-left-alone", "outputs-and-metadata-kept",
            "unchanged-byte-identical", "string-sources-and-own-style"} <= names
    assert not (GOLDEN_ROOT / "notebooks" / "unchanged-byte-identical" / "expected.ipynb").exists()


# --------------------------------------------------------------------------- masking


def _plain(python: str) -> str:
    """A notebook's text without the comments that mark where each cell ends."""
    return re.sub(r"  # __rtf_cell_\d+__", "", python)


def test_repeated_lines_stay_in_their_cells():
    notebook = read_notebook(_notebook("x = 1", "x = 1"))
    text = notebook.fixed_text(notebook.python.replace("x = 1", "x = 10", 1), validate=False)
    assert [c["source"] for c in json.loads(text)["cells"]] == [["x = 10"], ["x = 1"]]


def test_a_fixed_notebook_is_checked_by_reading_its_new_sources_back(monkeypatch):
    """Only the changed sources differ from the file, each read back: nbformat is not run."""
    from retrace_fix.notebooks import notebook as module

    monkeypatch.setattr(module, "validation_problem", lambda text: pytest.fail("nbformat was run"))
    notebook = read_notebook(_notebook("x = 1\ny = 2", "z = 3"))
    text = notebook.fixed_text(notebook.python.replace("y = 2", "y = 20"))
    assert [c["source"] for c in json.loads(text)["cells"]] == [["x = 1\n", "y = 20"], ["z = 3"]]
    monkeypatch.setattr(module, "_render", lambda old, source, ascii_only: old[:-1] + ', "w = 4"]')
    with pytest.raises(NotebookError, match="does not read back as written") as raised:
        notebook.fixed_text(notebook.python.replace("y = 2", "y = 20"))
    assert raised.value.cell == 1
    assert notebook.fixed_text(notebook.python.replace("y = 2", "y = 20"), validate=False).count("w = 4") == 1


def test_a_fix_that_loses_a_cells_end_is_refused():
    notebook = read_notebook(_notebook("x = 1", "y = 2"))
    with pytest.raises(NotebookError, match="changed the end of the cell"):
        notebook.fixed_text("x = 1  # __rtf_cell_0__\ny = 3\n", validate=False)


def _notebook(*sources: str, kinds: tuple[str, ...] = ()) -> str:
    cells = []
    for index, source in enumerate(sources):
        kind = kinds[index] if index < len(kinds) else "code"
        cell = {"cell_type": kind, "metadata": {}, "source": split_source(source)}
        if kind == "code":
            cell.update(execution_count=None, outputs=[])
        cells.append(cell)
    return json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1) + "\n"


@pytest.mark.parametrize("line", [
    "%matplotlib inline", "!pip install -q tensorflow", "files = !ls -l", "a, b = %time f()", "tf.function?",
    "tf.function??", "?tf.constant", "%%time", "  %time f(x)", "x?  ",
])
def test_ipython_lines_are_masked_and_restored_byte_for_byte(line):
    indent = "if True:\n" if line.startswith("  ") else ""
    source = f"import tensorflow as tf\n{indent}{line}\nx = 1"
    if line == "%%time":
        source = "%%time\nimport tensorflow as tf\nx = 1"
    notebook = read_notebook(_notebook(source))
    assert line.strip() not in notebook.python
    assert not notebook.broken  # every line is Python once masked
    compile(notebook.python, "<nb>", "exec")  # the engine's text is Python
    # a fix elsewhere in the text brings back every masked line exactly
    fixed = notebook.python.replace("x = 1", "x = 2")
    sources = json.loads(notebook.fixed_text(fixed, validate=False))["cells"][0]["source"]
    assert "".join(sources) == source.replace("x = 1", "x = 2")


def test_assigned_magics_keep_their_target_names():
    notebook = read_notebook(_notebook("files = !ls\nfirst, rest = %sx ls"))
    assert _plain(notebook.python).splitlines() == ["files = __rtf_ipy_0__", "first, rest = __rtf_ipy_1__"]


def test_a_magic_continued_with_a_backslash_is_masked_whole():
    notebook = read_notebook(_notebook("%timeit -n 1 \\\n    f(x)\ny = 1"))
    assert notebook.python == "__rtf_ipy_0__\n__rtf_ipy_1__\ny = 1  # __rtf_cell_0__\n"


def test_only_lines_cpython_rejects_are_masked():
    source = "total = (1 +\n         2\n         % 2)\ntext = '''what?\n!not a shell line\n'''"
    notebook = read_notebook(_notebook(source))
    assert _plain(notebook.python) == source + "\n"


def test_cells_are_one_module_with_a_line_map():
    notebook = read_notebook(_notebook("import tensorflow as tf", "# words", "x = 1\ny = 2", "", "z = 3",
                                       kinds=("code", "markdown", "code", "code", "code")))
    assert _plain(notebook.python) == "import tensorflow as tf\nx = 1\ny = 2\nz = 3\n"
    assert [notebook.locate(n) for n in (1, 2, 3, 4)] == [(1, 1), (3, 1), (3, 2), (5, 1)]


def test_non_python_cell_magics_are_left_out():
    notebook = read_notebook(_notebook("%%bash\necho hi", "%%writefile a.py\nx = (", "%%html\n<b>", "y = 1"))
    assert notebook.python == "y = 1  # __rtf_cell_3__\n"  # each cell's last line marks its end
    assert notebook.locate(1) == (4, 1)


def test_an_unknown_cell_magic_is_left_out_and_named():
    notebook = read_notebook(_notebook("x = 1", "%%mystery\nx = 1", "y = 2"))
    assert notebook.python == "x = 1  # __rtf_cell_0__\ny = 2  # __rtf_cell_2__\n"
    [error] = notebook.broken
    assert (error.cell, error.line, error.message) == (
        2, 1, "unknown cell magic %%mystery: retrace-fix cannot tell whether its body is Python")


def test_a_cell_that_does_not_parse_is_left_out_and_named():
    notebook = read_notebook(_notebook("x = 1", "batch_size =", "y = 2"))
    assert notebook.python == "x = 1  # __rtf_cell_0__\ny = 2  # __rtf_cell_2__\n"
    assert notebook.locate(2) == (3, 1)
    [error] = notebook.broken
    assert (error.cell, error.line, error.message) == (2, 1, "cannot parse: invalid syntax")


@pytest.mark.parametrize("text, message", [
    ('{"cells": [', "not valid JSON"),
    ('{"nbformat": 3, "nbformat_minor": 0, "worksheets": []}', "nbformat 3 notebooks are not supported"),
    ('[1, 2]', "not an object"),
    ('{"nbformat": 4, "cells": [{"cell_type": "code", "source": 3}]}', "source is not a string"),
])
def test_files_that_are_no_notebook_are_refused(text, message):
    with pytest.raises(NotebookError, match=message):
        read_notebook(text)


def test_a_fix_that_changes_cells_line_for_line_goes_to_each_cell():
    notebook = read_notebook(_notebook("a = 1", "b = 2"))
    text = notebook.fixed_text(notebook.python.replace("a = 1", "a = 10").replace("b = 2", "b = 20"), validate=False)
    assert [c["source"] for c in json.loads(text)["cells"]] == [["a = 10"], ["b = 20"]]


def test_lines_inserted_at_a_boundary_go_to_the_cell_they_precede():
    notebook = read_notebook(_notebook("a = 1", "for i in x:\n    f = g()"))
    assert notebook.python == "a = 1  # __rtf_cell_0__\nfor i in x:\n    f = g()  # __rtf_cell_1__\n"
    fixed = "a = 1  # __rtf_cell_0__\nf = g()\nfor i in x:\n    pass  # __rtf_cell_1__\n"
    text = notebook.fixed_text(fixed, validate=False)
    assert [c["source"] for c in json.loads(text)["cells"]] == [["a = 1"], ["f = g()\n", "for i in x:\n", "    pass"]]


def test_a_fix_that_drops_ipython_syntax_is_refused():
    notebook = read_notebook(_notebook("!ls\nx = 1"))
    with pytest.raises(NotebookError, match="removed IPython syntax"):
        notebook.fixed_text("x = 2  # __rtf_cell_0__\n", validate=False)


def test_splicing_keeps_unchanged_items_and_the_lists_layout():
    text = '{\n  "cells": [\n    {"cell_type": "code", "source": [\n        "a = \\u00e9\\n",\n        "b = 1"\n    ]}\n  ]\n}'
    out = splice_sources(text, {0: "a = \u00e9\nb = 2"})
    assert out == text.replace('"b = 1"', '"b = 2"')


# --------------------------------------------------------------------------- the command line

RELAX = "@tf.function(experimental_relax_shapes=True)\ndef f(x):\n    return x"
FIXED = "@tf.function(reduce_retracing=True)\ndef f(x):\n    return x"


@pytest.fixture
def project(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.retrace-fix]\nexclude = ['skipped/']\n")
    (tmp_path / "nb.ipynb").write_text(_notebook("import tensorflow as tf\n%matplotlib inline", "# title", RELAX,
                                                 kinds=("code", "markdown", "code")))
    return tmp_path


def test_check_names_the_cell(project):
    code, out, _ = run_cli("--check", "nb.ipynb", cwd=project).outcome
    assert code == 1
    assert out == ("nb.ipynb:cell 3:1:2: RTF004 [*] [safe] `experimental_relax_shapes` is the deprecated name of "
                   "`reduce_retracing`\n")


def test_json_and_sarif_give_the_cell(project):
    data = json.loads(run_cli("--check", "--format", "json", "nb.ipynb", cwd=project).stdout)
    finding = data["files"][0]["findings"][0]
    assert (finding["cell"], finding["line"], finding["column"]) == (3, 1, 2)  # the column 1-based, as in text
    sarif = json.loads(run_cli("--check", "--format", "sarif", "nb.ipynb", cwd=project).stdout)
    result = sarif["runs"][0]["results"][0]
    assert result["properties"]["cell"] == 3 and result["properties"]["lineInCell"] == 1
    line = result["locations"][0]["physicalLocation"]["region"]["startLine"]
    assert "experimental_relax_shapes" in (project / "nb.ipynb").read_text().splitlines()[line - 1]


def test_diff_is_per_cell_and_writes_nothing(project):
    before = (project / "nb.ipynb").read_bytes()
    code, out, _ = run_cli("--diff", "nb.ipynb", cwd=project).outcome
    assert code == 1
    assert out == (
        "--- nb.ipynb:cell 3\n+++ nb.ipynb:cell 3\n@@ -1,3 +1,3 @@\n"
        "-@tf.function(experimental_relax_shapes=True)\n+@tf.function(reduce_retracing=True)\n"
        " def f(x):\n     return x\n"
    )
    assert (project / "nb.ipynb").read_bytes() == before


def test_fix_changes_only_that_source_line(project):
    before = (project / "nb.ipynb").read_text()
    assert run_cli("nb.ipynb", cwd=project).returncode == 0
    after = (project / "nb.ipynb").read_text()
    assert after == before.replace("experimental_relax_shapes", "reduce_retracing")
    assert run_cli("--check", "nb.ipynb", cwd=project).returncode == 0  # a second run finds nothing


def test_interactive_walks_the_cells_hunks(project):
    code, out, _ = run_cli("-i", "nb.ipynb", cwd=project, stdin="y\n").outcome
    assert code == 0
    assert "nb.ipynb:cell 3  (hunk 1 of 1)" in out and "--- a/nb.ipynb:cell 3" in out
    assert "reduce_retracing" in (project / "nb.ipynb").read_text()


def test_interactive_no_leaves_the_notebook_alone(project):
    before = (project / "nb.ipynb").read_bytes()
    assert run_cli("-i", "nb.ipynb", cwd=project, stdin="n\n").returncode == 0
    assert (project / "nb.ipynb").read_bytes() == before


def test_interactive_refuses_an_edit_that_leaves_the_cell_unparseable(project, monkeypatch, tmp_path):
    script = tmp_path / "editor.py"
    script.write_text("import pathlib, sys\npath = pathlib.Path(sys.argv[1])\n"
                      "path.write_text(path.read_text().replace('reduce_retracing=True)', 'reduce_retracing=True'))\n")
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", f"{sys.executable} {script}")
    before = (project / "nb.ipynb").read_bytes()
    code, out, _ = run_cli("-i", "nb.ipynb", cwd=project, stdin="e\nn\nn\n").outcome
    assert code == 0
    assert "Your edited hunk does not apply: the cell would not parse: cannot parse: '(' was never closed" in out
    assert (project / "nb.ipynb").read_bytes() == before


def test_stdin_filename_reads_a_notebook(project):
    data = (project / "nb.ipynb").read_bytes()
    result = run_cli("-", "--stdin-filename", "nb.ipynb", cwd=project, stdin=data)
    assert result.returncode == 0
    assert result.stdout_bytes == data.replace(b"experimental_relax_shapes", b"reduce_retracing")
    diff = run_cli("--diff", "-", "--stdin-filename", "nb.ipynb", cwd=project, stdin=data)
    assert diff.returncode == 1 and diff.stdout.startswith("--- nb.ipynb:cell 3\n")


def test_directories_find_notebooks_but_not_checkpoints_or_excluded_ones(project):
    for folder in (".ipynb_checkpoints", "skipped"):
        (project / folder).mkdir()
        shutil.copy(project / "nb.ipynb", project / folder / "nb-checkpoint.ipynb")
    out = run_cli("--check", ".", cwd=project).stdout
    assert out.startswith("nb.ipynb:cell 3:1:2: RTF004") and out.count("\n") == 1


def test_patch_dir_writes_a_patch_of_the_notebooks_json_that_git_applies(project):
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    before = (project / "nb.ipynb").read_text()
    code = run_cli("--patch-dir", "patches", ".", cwd=project).returncode
    assert code == 0 and (project / "nb.ipynb").read_text() == before
    patch = next((project / "patches").glob("*.patch"))
    text = patch.read_text()
    assert "--- a/nb.ipynb\n+++ b/nb.ipynb\n" in text
    assert '-    "@tf.function(experimental_relax_shapes=True)\\n",\n' in text
    subprocess.run(["git", "apply", str(patch)], cwd=project, check=True)
    assert (project / "nb.ipynb").read_text() == before.replace("experimental_relax_shapes", "reduce_retracing")


def test_bad_notebooks_are_errors_naming_the_cell_and_others_are_fixed(tmp_path):
    bad = {
        "json.ipynb": '{"cells": [',
        "v3.ipynb": json.dumps({"nbformat": 3, "nbformat_minor": 0, "worksheets": [], "metadata": {}}),
        "syntax.ipynb": _notebook("import tensorflow as tf", RELAX + "\ndef g(:\n    pass"),
        "exercise.ipynb": _notebook("import tensorflow as tf", "batch_size =", RELAX),
        "magic.ipynb": _notebook("import tensorflow as tf", RELAX, "%%mystery\nx = 1"),
        "two.ipynb": _notebook("import tensorflow as tf", "x =", RELAX, "y ="),
    }
    for name, text in bad.items():
        (tmp_path / name).write_text(text)
    (tmp_path / "good.ipynb").write_text(_notebook("import tensorflow as tf", RELAX))
    code, out, err = run_cli(".", cwd=tmp_path).outcome
    assert code == 2
    assert "error: json.ipynb:1:12: cannot read the notebook: not valid JSON" in err
    assert "error: v3.ipynb:1: nbformat 3 notebooks are not supported" in err
    assert ("error: syntax.ipynb:cell 2:4:7: cannot parse: invalid syntax; the other cells were checked, "
            "notebook left unchanged") in err
    # an unfinished cell does not hide the others' findings; the notebook is still not written
    assert "error: exercise.ipynb:cell 2:1:13: cannot parse: invalid syntax; the other cells were checked" in err
    assert ("error: magic.ipynb:cell 3:1:1: unknown cell magic %%mystery: retrace-fix cannot tell whether its "
            "body is Python; the other cells were checked, notebook left unchanged") in err
    assert ("error: two.ipynb:cell 2:1:4: cannot parse: invalid syntax (and 1 more cell); the other cells were "
            "checked, notebook left unchanged") in err
    for name, text in bad.items():
        assert (tmp_path / name).read_text() == text
    assert "reduce_retracing" in (tmp_path / "good.ipynb").read_text()
    # a cell left out does not hide the others' findings; the notebook is still an error (exit 2)
    code, out, err = run_cli("--check", "exercise.ipynb", "magic.ipynb", "syntax.ipynb", cwd=tmp_path).outcome
    assert code == 2
    assert out.splitlines() == [
        "exercise.ipynb:cell 3:1:2: RTF004 [safe] `experimental_relax_shapes` is the deprecated name of "
        "`reduce_retracing`",
        "magic.ipynb:cell 2:1:2: RTF004 [safe] `experimental_relax_shapes` is the deprecated name of "
        "`reduce_retracing`",
    ]  # syntax.ipynb's decorated cell is the one left out: nothing of it is reported
    assert err.count("error: ") == 3 and "0 fixes available, 0 diagnostics, 3 errors\n" in err
    # in a fix run the fix is shown as left to do (no [*]: nothing is written), not as held back by its tier
    code, out, err = run_cli("exercise.ipynb", cwd=tmp_path).outcome
    assert code == 2 and out.startswith("exercise.ipynb:cell 3:1:2: RTF004 [safe]")
    assert "0 files changed, 0 fixes applied, 0 diagnostics, 1 error\n" in err
    assert (tmp_path / "exercise.ipynb").read_text() == bad["exercise.ipynb"]


# --------------------------------------------------------------------------- --verify on notebooks


def test_an_executed_notebook_compares_by_what_its_cells_computed():
    from retrace_fix.bench.outputs import compare_values, notebook_outputs

    def executed(count: int, seconds: str, value: str) -> str:
        cell = {"cell_type": "code", "execution_count": count, "metadata": {"execution": {"took": seconds}},
                "source": [f"x = {count}"], "outputs": [
                    {"name": "stdout", "output_type": "stream", "text": [f"loss {value}\n"]},
                    {"name": "stderr", "output_type": "stream", "text": [f"I0000 {seconds} pid 123\n"]},
                    {"data": {"text/plain": [value]}, "execution_count": count, "metadata": {},
                     "output_type": "execute_result"}]}
        return json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5})

    first = notebook_outputs(executed(1, "0.5", "0.25"))
    assert first == "[cell 1]\nloss 0.25\n0.25\n"
    assert compare_values(first, notebook_outputs(executed(7, "9.9", "0.25")), 1e-5, 1e-8, "nb") == []
    assert compare_values(first, notebook_outputs(executed(1, "0.5", "0.5")), 1e-5, 1e-8, "nb") != []


@pytest.mark.parametrize("command, written", [
    (["jupyter", "nbconvert", "--to", "notebook", "--execute", "nb.ipynb"], ["nb.nbconvert.ipynb"]),
    (["jupyter", "nbconvert", "--to", "notebook", "--execute", "d/nb.ipynb", "--output", "run"], ["d/run.ipynb"]),
    (["jupyter", "nbconvert", "--to=notebook", "--execute", "--inplace", "nb.ipynb"], ["nb.ipynb"]),
    (["papermill", "in.ipynb", "out.ipynb"], ["out.ipynb"]),
    (["jupyter", "nbconvert", "--to", "html", "--execute", "nb.ipynb"], []),
    (["python", "train.py"], []),
])
def test_verify_compares_the_notebook_a_runner_writes(command, written):
    from retrace_fix.verify.session import executed_notebooks

    assert executed_notebooks(command) == written


def test_the_next_step_hint_runs_the_notebook_through_a_kernel(project):
    err = run_cli("--check", "nb.ipynb", cwd=project).stderr
    assert ("retrace-fix --verify nb.ipynb -- jupyter nbconvert --to notebook --execute nb.ipynb "
            "(or retrace-fix record -- jupyter nbconvert --to notebook --execute nb.ipynb, then") in err


# --------------------------------------------------------------------------- the IPython extension (no kernel)


class _Shell:
    def __init__(self, **namespace):
        self.user_ns = namespace


def test_a_session_without_a_file_reads_its_cells_as_in_n(tmp_path, monkeypatch):
    from retrace_fix.notebooks.ipython import Session, session_notebook

    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    monkeypatch.chdir(tmp_path)
    shell = _Shell(In=["", "import tensorflow as tf", "def f(:", "%time x = 1\n@tf.function(experimental_relax_shapes=True)\ndef g(x):\n    return x"])
    session = Session(shell)
    assert session_notebook(shell) is None
    notebook = read_notebook(session.history())
    assert [c.number for c in notebook.code] == [1, 2, 3]  # cell N is In[N]; In[2] does not parse: left empty
    assert session.diff().startswith("--- In:cell 3\n+++ In:cell 3\n")
    assert session.fix().startswith("retrace-fix: this front end does not give the notebook's path")


TIMED = "%%time\n@tf.function\ndef triple(x):\n    return x * 3\nclass M:\n    def step(self):\n        return 1\n"


def test_the_bodies_of_timed_and_captured_cells_map_back_to_their_cell(tmp_path, monkeypatch):
    """``%%time`` compiles a cell's body under ``<timed exec>`` (``%%timeit``: ``<magic-timeit>``), a name
    every such cell shares and with no text kept: a function is placed by its name and line in the
    body; ``%%capture`` runs its body as a cell of its own (text in linecache)."""
    import linecache

    from retrace_fix.traces.cells import CellLocator

    monkeypatch.chdir(tmp_path)
    cells_source = [
        "import tensorflow as tf",  # text line 1
        "\n" + TIMED,  # cell 2: blank line, %%time, then the body: `@tf.function` is cell line 3, text line 4
        "%%timeit -n 1\ndef twice(x):\n    return x\ntwice(1)",  # cell 3: text lines 10-13
        "%%capture out\ndef quiet(x):\n    return x",  # cell 4: text lines 14-16
        "%%time\ndef same(x):\n    return x",  # cells 5 and 6 both define `same` on body line 1
        "%%time\ndef same(x):\n    return 2 * x",
    ]
    (tmp_path / "nb.ipynb").write_text(_notebook(*cells_source))
    cells = CellLocator(str(tmp_path), [str(tmp_path / "nb.ipynb")], search=False)
    assert cells.locate("<timed exec>", 1, "triple") == ("nb.ipynb", 4)  # its decorator's line
    assert cells.locate("<timed exec>", 2, "triple") == ("nb.ipynb", 4 + 1)
    assert cells.locate("<timed exec>", 5, "M.step") == ("nb.ipynb", 4 + 4)
    assert cells.locate("<magic-timeit>", 1, "twice") == ("nb.ipynb", 11)
    assert cells.locate("<timed exec>", 1, "twice") is None  # a %%timeit cell's body is not %%time's
    assert cells.locate("<timed exec>", 1, "same") is None  # two cells match: not guessed
    assert cells.locate("<timed exec>", 3, "triple") is None  # no def of it there
    assert cells.locate("<timed exec>", 2) is None  # a call site: no name to place it by
    kernel_file = str(tmp_path / "ipykernel_1" / "123.py")
    linecache.cache[kernel_file] = (0, None, ["def quiet(x):\n", "    return x\n"], kernel_file)
    # a call on a line of a timed body: placed by the frame of the cell that ran the magic (cell 3)
    timeit_file = str(tmp_path / "ipykernel_1" / "456.py")
    linecache.cache[timeit_file] = (0, None, [cells_source[2]], timeit_file)  # no IPython here: as is
    try:
        assert cells.locate(kernel_file, 1) == ("nb.ipynb", 15)
        assert cells.locate(timeit_file, 1) == ("nb.ipynb", 10)  # the cell as a whole
        assert cells.locate_in_magic(timeit_file, "<magic-timeit>", 3) == ("nb.ipynb", 13)  # twice(1)
        assert cells.locate_in_magic(timeit_file, "<timed exec>", 3) is None  # not a %%time cell
        assert cells.locate_in_magic(kernel_file, "<magic-timeit>", 1) is None  # not a magic's cell
    finally:
        linecache.cache.pop(kernel_file, None)
        linecache.cache.pop(timeit_file, None)


def test_the_session_notebook_is_the_one_the_front_end_names(tmp_path, monkeypatch):
    from retrace_fix.notebooks.ipython import session_notebook

    (tmp_path / "a.ipynb").write_text(_notebook("x = 1"))
    monkeypatch.setenv("JPY_SESSION_NAME", str(tmp_path / "a.ipynb"))
    assert session_notebook(_Shell()) == str(tmp_path / "a.ipynb")
    monkeypatch.delenv("JPY_SESSION_NAME")
    assert session_notebook(_Shell(__vsc_ipynb_file__=str(tmp_path / "a.ipynb"))) == str(tmp_path / "a.ipynb")
    assert session_notebook(_Shell(__vsc_ipynb_file__=str(tmp_path / "missing.ipynb"))) is None


def test_an_indented_cell_is_read_dedented_and_written_with_its_indent(tmp_path):
    source = "  @tf.function(experimental_relax_shapes=True)\n  def f(x):\n\n      return x  # kept\n  pip install -q x"
    (tmp_path / "nb.ipynb").write_text(_notebook("import tensorflow as tf", source))
    notebook = read_notebook((tmp_path / "nb.ipynb").read_text())
    assert notebook.python.splitlines()[1:4] == ["@tf.function(experimental_relax_shapes=True)", "def f(x):", ""]
    code, out, _ = run_cli("--check", "nb.ipynb", cwd=tmp_path).outcome
    assert out.startswith("nb.ipynb:cell 2:1:4: RTF004")  # the column in the cell, indentation included
    assert run_cli("nb.ipynb", cwd=tmp_path).returncode == 0
    cells = json.loads((tmp_path / "nb.ipynb").read_text())["cells"]
    assert "".join(cells[1]["source"]) == source.replace("experimental_relax_shapes", "reduce_retracing")


def test_branch_commits_the_fixed_notebook_and_leaves_the_worktree(project):
    def git(*args: str) -> str:
        return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=project, check=True,
                              capture_output=True, text=True).stdout

    git("init", "-q")
    git("add", ".")
    git("commit", "-qm", "start")
    before = (project / "nb.ipynb").read_text()
    assert run_cli("--branch", "fixes", ".", cwd=project).returncode == 0
    assert (project / "nb.ipynb").read_text() == before
    assert git("show", "fixes:nb.ipynb") == before.replace("experimental_relax_shapes", "reduce_retracing")


def test_report_names_a_notebooks_cells(project, monkeypatch):
    from retrace_fix.traces import retrace_report

    monkeypatch.chdir(project)
    monkeypatch.setattr(retrace_report, "_NOTEBOOKS", {})
    # line 3 of the notebook's code: cell 3's first line (cell 1 holds lines 1-2, cell 2 is markdown)
    assert retrace_report.location("nb.ipynb", 3) == "nb.ipynb:cell 3:1"
    assert retrace_report.location("missing.ipynb", 3) == "missing.ipynb:3"
    assert retrace_report.location("train.py", 3) == "train.py:3"


def test_notebooks_of_other_languages_are_not_python_sources(tmp_path):
    text = json.loads(_notebook("library(ggplot2)\nx <- tf$function(f)"))
    text["metadata"] = {"kernelspec": {"name": "ir", "language": "R", "display_name": "R"}}
    (tmp_path / "r.ipynb").write_text(json.dumps(text))
    # found by a directory walk: skipped silently, like a file that is not .py
    code, out, err = run_cli("--check", "--check-syntax", ".", cwd=tmp_path).outcome
    assert (code, out) == (0, "") and "0 errors" in err and "note:" not in err
    # named on the command line: named in a note, still no error
    for args in (["--check", "--check-syntax", "r.ipynb"], ["--diff", "r.ipynb"], ["r.ipynb"]):
        code, out, err = run_cli(*args, cwd=tmp_path).outcome
        assert (code, out) == (0, "") and "0 errors" in err
        assert "note: r.ipynb: not a Python notebook (its kernel runs R); skipped\n" in err
    assert json.loads((tmp_path / "r.ipynb").read_text()) == text
    code, out, err = run_cli("--check", "-q", "r.ipynb", cwd=tmp_path).outcome
    assert (code, out, err) == (0, "", "")


LINES = [
    "import tensorflow as tf", "x = 1", "%matplotlib inline", "!pip install -q x", "files = !ls", "tf.function?",
    "?tf.constant", "%timeit -n 1 \\", "  f(x)", "if x:", "    !echo $x", "    y = 2", "pip install y", "",
    "total = (1 +", "         2)", "s = '''what?", "!not shell'''", "# comment?", "%%time", "  indented = 3",
]


@settings(max_examples=150, deadline=None, derandomize=True)
@given(st.lists(st.lists(st.sampled_from(LINES), max_size=6), min_size=1, max_size=4), st.booleans())
def test_reading_and_writing_back_is_the_identity(cells, final_newline):
    sources = ["\n".join(lines) + ("\n" if final_newline and lines else "") for lines in cells]
    text = _notebook(*sources)
    try:
        notebook = read_notebook(text)
    except NotebookError as exc:
        assert exc.cell is not None and 1 <= exc.cell <= len(sources)
        return
    assert all(1 <= error.cell <= len(sources) for error in notebook.broken)
    compile(notebook.python, "<nb>", "exec")
    assert notebook.fixed_text(notebook.python, validate=False) == text
    # an edit of one line comes back in its cell only, every IPython line restored
    found = re.search(r"(?m)^x = 1(?=(?:  # __rtf_cell_\d+__)?$)", notebook.python)
    if found is not None:
        edited = notebook.python[:found.start()] + "x = 10" + notebook.python[found.end():]
        changed = json.loads(notebook.fixed_text(edited, validate=False))
        expected = list(sources)
        # the line the edit touched, in its cell (a line a magic's `\` continuation took along is masked:
        # the first `x = 1` of the text need not be the first of its cell)
        cell, line = notebook.locate(notebook.python.count("\n", 0, found.start()) + 1)
        lines = list(cells[cell - 1])
        assert lines[line - 1] == "x = 1"
        lines[line - 1] = "x = 10"
        expected[cell - 1] = "\n".join(lines) + ("\n" if final_newline else "")
        assert ["".join(c["source"]) for c in changed["cells"]] == expected


# ----------------------------------------------------------------------------- the prefilter: code cells only


def _with_output(source: str, output: str, markdown: str = "") -> str:
    """A notebook of one code cell whose output (and a markdown cell) say ``output``/``markdown``."""
    document = json.loads(_notebook(markdown, source, kinds=("markdown", "code")))
    document["cells"][1]["outputs"] = [{"output_type": "stream", "name": "stdout", "text": [output]}]
    return json.dumps(document, indent=1) + "\n"


def _process(tmp_path, text: str, options: RunOptions = RunOptions()):
    path = tmp_path / "nb.ipynb"
    path.write_text(text)
    return process_file(FileJob(path=path, display="nb.ipynb", relpath="nb.ipynb"), options)


def test_outputs_and_markdown_do_not_pass_the_prefilter(tmp_path, monkeypatch):
    """A notebook whose outputs and markdown mention ``.predict(`` and tf.function but whose code
    cannot hold a target is skipped on its code alone: its cells are not read, as a .py's bytes
    without a trigger are not parsed (its broken cell is reported only with --check-syntax)."""
    from retrace_fix.engine import notebook_file

    read: list[object] = []
    real = notebook_file.read_notebook
    monkeypatch.setattr(notebook_file, "read_notebook", lambda *a: read.append(a) or real(*a))
    text = _with_output("x = [1, 2\nprint(x", "model.predict(x) in a @tf.function: range(3)",
                        markdown="Call `model.predict()` on a `tf.keras.Model`, then `tf.function(step)`.")
    result = _process(tmp_path, text)
    assert (result.skipped, result.error, read) == (True, None, [])
    checked = _process(tmp_path, text, RunOptions(check_syntax=True))
    assert checked.error.startswith("nb.ipynb:cell 2:2:6: cannot parse: ")  # the broken cell, where every cell is parsed
    assert len(read) == 1


def test_code_that_can_hold_a_target_passes_the_prefilter(tmp_path, monkeypatch):
    """The twin: the same notebook with the call in its code is read, its cells parsed once."""
    import json as json_module

    from retrace_fix.engine import notebook_file

    source = "import tensorflow as tf\n\n@tf.function(experimental_relax_shapes=True)\ndef step(x):\n    return x\n"
    text = _with_output(source, "done")
    loads: list[int] = []
    real_loads = json_module.loads
    monkeypatch.setattr(json_module, "loads", lambda s, *a, **k: loads.append(s == text) or real_loads(s, *a, **k))
    result = _process(tmp_path, text)
    assert result.error is None and [f.code for f in result.findings] == ["RTF004"]
    assert result.fixed != result.original and "reduce_retracing=True" in result.fixed
    assert loads.count(True) == 1  # the JSON is read once (language, prefilter and cells from the same document)
    broken = _process(tmp_path, _with_output(source + "x = [1\n", "done"))
    assert broken.error.startswith("nb.ipynb:cell 2:6:")  # a broken cell of a notebook read is reported


# ----------------------------------------------------------------------------- the cells checked at once


@pytest.mark.parametrize("sources, broken", [
    (("x = 1", "y = 2\nif y:\n    z = 3", "%time f()\nw = 4"), []),
    (("x = [1,", "2]"), [1, 2]),  # the text parses, a statement runs from cell 1 into cell 2
    (("if x:\n    y = 1", "else:\n    y = 2"), [2]),  # one if statement across two cells
    (("@decorate", "def f():\n    pass"), [1]),  # a decorator left alone in its cell
    (("s = '''a", "b'''"), [1, 2]),  # a string across cells
    (("x = 1", "from __future__ import annotations"), []),  # the text does not parse, each cell does
    (("x = 1", "await g()"), []),  # top-level await: a cell allows it
    (("x = 1 +", "y = 2"), [1]),
    (("def f(:\n    pass", "y = 2", "z = (\n"), [1, 3]),
])
def test_cells_checked_at_once_are_broken_as_alone(sources, broken):
    """The cells without IPython syntax are checked with one parse of the text where it shows each
    is Python alone; else each alone: the broken cells, their errors and the text are as when every
    cell is compiled alone."""
    from retrace_fix.notebooks import notebook as module

    notebook = read_notebook(_notebook(*sources))
    assert [error.cell for error in notebook.broken] == broken
    for error in notebook.broken:
        alone = module._syntax_error(sources[error.cell - 1])
        assert (error.line, error.column) == (alone.lineno or 1, alone.offset or 1)
    kept = [source for number, source in enumerate(sources, 1) if number not in broken]
    assert [cell.source for cell in notebook.code] == kept
    if notebook.tree is not None:
        assert not broken
        assert ast.dump(notebook.tree, include_attributes=True) == ast.dump(ast.parse(notebook.python), include_attributes=True)


def test_the_engine_parses_a_notebooks_text_once(tmp_path, monkeypatch):
    """CPython's tree made while reading the cells is the one the prefilter reads."""
    from retrace_fix.engine import prefilter

    parsed: list[str] = []
    real = prefilter.cpython_check
    monkeypatch.setattr(prefilter, "cpython_check", lambda text, **k: parsed.append(text) or real(text, **k))
    source = "import tensorflow as tf\n\n@tf.function(experimental_relax_shapes=True)\ndef step(x):\n    return x\n"
    result = _process(tmp_path, _with_output(source, "done"))
    assert [f.code for f in result.findings] == ["RTF004"] and parsed == []
    split = _process(tmp_path, _notebook("import tensorflow as tf", "x = [1,", "2]", source))
    assert split.error.startswith("nb.ipynb:cell 2:") and [f.code for f in split.findings] == ["RTF004"]
    assert len(parsed) == 1  # cells 2 and 3 were not shown to be Python alone: the engine parsed the text


# ----------------------------------------------------------------------------- cells with IPython syntax


@pytest.mark.parametrize("sources", [
    ("!pip install -q tensorflow\nimport tensorflow as tf", "x = 1"),
    ("%matplotlib inline\n!ls\nfiles = !ls", "time.sleep(1)\nrun(x)"),
    ("x = 1", "cat[1"),  # a name IPython runs without % (automagic), where Python fails: masked
    ("cd ..\nimport os",),
    ("%time f(\n", "y = 2"),  # still broken once masked: left out and named
    ("!pip install x", "if x:\n    y = 1", "else:\n    y = 2"),  # the joined check fails: read to the end
])
def test_a_cell_with_ipython_syntax_reads_as_when_compiled_to_the_end(sources):
    """The round that would only confirm a masked cell is left to the check of all cells at once;
    where that fails, the notebook is read again compiling every cell to the end: the result is
    always that of compiling each cell until it parses."""
    from retrace_fix.notebooks import notebook as module

    text = _notebook(*sources)
    fast = read_notebook(text)
    exact = module._read(module.load_document(text), defer=False)
    assert fast.python == exact.python
    assert [(c.index, c.text, c.masks, c.start) for c in fast.code] == [(c.index, c.text, c.masks, c.start) for c in exact.code]
    assert [(e.cell, e.line, e.column, e.message) for e in fast.broken] == [(e.cell, e.line, e.column, e.message) for e in exact.broken]
    if fast.tree is not None:
        assert ast.dump(fast.tree) == ast.dump(ast.parse(fast.python))


def test_a_masked_cell_is_compiled_once_per_line_cpython_rejects(monkeypatch):
    """``!pip install`` then Python: one compile finds the line to mask, the check of all cells at
    once confirms the rest (it was two compiles of the cell, then that check)."""
    from retrace_fix.notebooks import notebook as module

    compiled: list[str] = []
    real = module._syntax_error
    monkeypatch.setattr(module, "_syntax_error", lambda text: compiled.append(text) or real(text))
    notebook = read_notebook(_notebook("!pip install -q tensorflow\nimport tensorflow as tf", "time.sleep(1)", "x = 1"))
    assert not notebook.broken and notebook.tree is not None
    assert compiled == ["!pip install -q tensorflow\nimport tensorflow as tf"]  # time.sleep(1): Python, not compiled alone
