"""``python -m retrace_fix.scaffold``: a new code is one module, one golden folder and the generated docs.

The scaffold runs on a copy of the checkout (``codemods/``, ``docs/``, ``mkdocs.yml``
and the ``retrace_fix`` package, whose ``codemods`` is the copy's folder), never
on the repository itself.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from retrace_fix.scaffold import main

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def checkout(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("checkout")
    # the package's bytecode comes along (tests/conftest.py compiles it before the run; copies keep
    # each source's modification time, which the bytecode names): each of the processes below would
    # otherwise compile the modules it imports again where PYTHONDONTWRITEBYTECODE is set; a module
    # the scaffold writes or changes has no valid bytecode and is compiled from its new source
    shutil.copytree(ROOT / "codemods", root / "codemods")
    shutil.copytree(ROOT / "docs", root / "docs", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "retrace_fix", root / "retrace_fix")
    (root / "retrace_fix" / "codemods").symlink_to(root / "codemods", target_is_directory=True)
    shutil.copyfile(ROOT / "mkdocs.yml", root / "mkdocs.yml")
    (root / "golden").mkdir()
    return root


def python(root: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RETRACE_FIX")}
    env["PYTHONPATH"] = str(root)  # the copy's retrace_fix (and codemods) before the installed one
    return subprocess.run([sys.executable, *args], cwd=root, env=env, capture_output=True, text=True, timeout=300)


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and not p.relative_to(root).as_posix().startswith("retrace_fix/")
    }


@pytest.fixture(scope="module")
def scaffolded(checkout):
    """Both new codes of the tests below, then one process for what only the copy can answer.

    RTF109 (a diagnostic) by ``python -m retrace_fix.scaffold`` in the copy, the files it changed
    taken before the next; RTF019 (an unsafe fix) by :func:`main` in this process, whose docs step is
    a child process that must import the copy as :func:`python` has it do.  Then one process (each
    costs the imports): the docs are current, the table finds RTF109 after the other diagnostics,
    with its rule, and the CLI lists, explains and runs it; and runs RTF019 on its golden cases."""
    before = snapshot(checkout)
    proc = python(checkout, "-m", "retrace_fix.scaffold", "RTF109", "static-shape-read", "--summary", 'reads x.shape["0"]')
    after = snapshot(checkout)
    changed = sorted(p for p in after if before.get(p) != after[p])
    out, err = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as monkeypatch, redirect_stdout(out), redirect_stderr(err):
        for name in [k for k in os.environ if k.startswith("RETRACE_FIX")]:
            monkeypatch.delenv(name)
        monkeypatch.setenv("PYTHONPATH", str(checkout))
        status = scaffold_main(["RTF019", "demo-fix", "--tier", "unsafe", "--root", str(checkout)])
    fix = {"status": status, "out": out.getvalue(), "err": err.getvalue(),
           "source": (checkout / "codemods" / "demo_fix.py").read_text() if status == 0 else ""}
    probe = python(checkout, "-c", PROBE, str(ROOT))
    assert probe.returncode == 0, probe.stderr
    return proc, changed, fix, json.loads(probe.stdout)


def test_a_new_diagnostic_is_one_module_one_golden_folder_and_the_docs(checkout, scaffolded):
    proc, changed, _, probe = scaffolded
    assert proc.returncode == 0, proc.stderr
    assert changed == [
        "codemods/static_shape_read.py",
        "docs/codemods/RTF109.md",
        "docs/codemods/index.md",
        "golden/static-shape-read/negative/findings.txt",
        "golden/static-shape-read/negative/input.py",
        "golden/static-shape-read/positive/findings.txt",
        "golden/static-shape-read/positive/input.py",
        "mkdocs.yml",
    ]
    assert "- RTF109 static-shape-read: codemods/RTF109.md" in (checkout / "mkdocs.yml").read_text()

    assert probe["retrace_fix"] == str(checkout / "retrace_fix" / "__init__.py")  # the copy, not the repository
    assert probe["gen_docs_check"] == 0
    assert probe["rule"] == ["StaticShapeReadCommand", "static-shape-read", "diagnostic", "static-shape-read",
                             'reads x.shape["0"]', 120]
    listing, page, check, _ = probe["runs"]
    assert 'RTF109  static-shape-read        diagnostic reads x.shape["0"]' in listing[1]
    assert page[1].startswith("RTF109 static-shape-read.\n\nWhat it does\n")
    # its cases run (nothing reported yet: the new code starts red in test_rules / test_rule_examples)
    assert check == [0, ""]


PROBE = """
import json, runpy, sys
sys.path.append(sys.argv[1])  # the repository, for tests.support.cli_runner; retrace_fix comes from the copy
import retrace_fix
from retrace_fix.codemods import REGISTRY, RULES, codemod_for
from tests.support.cli_runner import run_cli
sys.argv = ["docs/gen_docs.py", "--check"]
try:
    runpy.run_path("docs/gen_docs.py", run_name="__main__")
    gen_docs_check = 0
except SystemExit as exc:
    gen_docs_check = exc.code or 0
rule = RULES["RTF109"]
runs = [run_cli(*args) for args in (["codemods"], ["explain", "RTF109"],
                                   ["--check", "--select", "RTF109", "golden/static-shape-read"],
                                   ["--diff", "--unsafe-fixes", "--select", "RTF019", "golden/demo-fix"])]
print(json.dumps({
    "retrace_fix": retrace_fix.__file__,
    "gen_docs_check": gen_docs_check,
    "rule": [REGISTRY[-1].__name__, rule.name, rule.tier.value, rule.golden, rule.summary, codemod_for("RTF109").ORDER],
    "runs": [[run.returncode, run.stdout] for run in runs],
}))
"""


def test_a_new_fix_gets_a_command_that_edits_nothing_yet(checkout, scaffolded):
    # scaffolded in this process (``-m retrace_fix.scaffold`` in the copy is run above), run on its
    # golden cases by the copy's command line in the fixture's one process
    _, _, fix, probe = scaffolded
    assert fix["status"] == 0, fix["err"]
    assert "wrote codemods/demo_fix.py" in fix["out"]
    source = fix["source"]
    assert "class DemoFixCommand(RetraceCodemod):" in source and "Tier.UNSAFE, doc=__doc__" in source
    assert "    ORDER = 75\n" in source  # after RTF010, the last fix (65)
    diff = probe["runs"][3]
    assert diff == [0, ""]
    assert not (checkout / "golden/demo-fix/positive/expected.py").exists()  # must not change until implemented


@pytest.mark.parametrize(
    "args, message",
    [
        (["RTF001", "again"], "RTF001 exists already (range-to-tf-range)"),
        (["RTF1", "short-code"], "code `RTF1`: expected RTF and three digits"),
        (["RTF110", "Bad_Name"], "name `Bad_Name`: expected lower-case words"),
        (["RTF110", "dtype-drift"], "a rule named `dtype-drift` exists already"),
        (["RTF110", "x", "--tier", "maybe"], "argument --tier: invalid choice"),
    ],
)
def test_bad_input_is_one_line_and_writes_nothing(checkout, args, message, capsys):
    before = snapshot(checkout)
    assert scaffold_main([*args, "--root", str(checkout)]) == 2  # in this process: it refuses before writing
    stderr = capsys.readouterr().err
    assert len(stderr.splitlines()) == 1 and message in stderr, stderr
    assert snapshot(checkout) == before


def scaffold_main(argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as exc:  # argparse's errors
        return exc.code


def test_outside_a_checkout_it_says_so(tmp_path, capsys):
    assert scaffold_main(["RTF110", "new-code", "--root", str(tmp_path)]) == 2
    assert "no codemods here; run it from the root of a retrace-fix checkout" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []
