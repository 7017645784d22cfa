"""Every codemod is a plain LibCST codemod: ``python -m libcst.tool codemod <module>.<Command> PATH``
gives the same code as retrace-fix (the golden ``expected.py``) on every golden input.

The runs use the repository's ``.libcst.codemod.yaml`` (``modules: ['codemods']``, formatter
``cat``), copied into a scratch directory that is the working directory, exactly as a user
with that file in their project would run it.  Cases that select several codemods run them
one after another in registry order, as the engine does; ``case.toml``'s ``unsafe-fixes``
becomes ``--unsafe-fixes`` and a case's ``traces.json`` becomes ``--traces``.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from codemods import REGISTRY
from retrace_fix.engine import selected_codemods
from tests.golden import GoldenCase, discover_cases

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / ".libcst.codemod.yaml"
CASES = discover_cases()


def command_name(cls: type) -> str:
    """``predict_to_call.PredictToCallCommand``: the name libcst.tool finds through ``modules: ['codemods']``."""
    module = cls.__module__
    assert module.startswith("codemods."), module
    return f"{module[len('codemods.'):]}.{cls.__name__}"


def libcst_tool(cwd: Path, command: str, paths: list[str], extra: list[str] = ()) -> subprocess.CompletedProcess:
    argv = [sys.executable, "-m", "libcst.tool", "codemod", command, *paths, "--hide-progress", *extra]
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=300)


def case_plan(case: GoldenCase) -> tuple[tuple[type, ...], bool, bool]:
    options = case.options()
    chain = tuple(selected_codemods(options))
    return chain, options.unsafe_fixes, options.traces is not None


def test_every_registered_codemod_is_covered_by_a_golden_case():
    covered = {cls for case in CASES for cls in case_plan(case)[0]}
    assert set(REGISTRY) <= covered


def test_config_finds_the_codemods():
    text = CONFIG.read_text(encoding="utf-8")
    assert "- 'codemods'" in text or '- "codemods"' in text or "- codemods" in text


def test_libcst_tool_matches_golden_expected(tmp_path):
    """One libcst.tool run per codemod over all cases that share options (traces: one run per case)."""
    shutil.copyfile(CONFIG, tmp_path / ".libcst.codemod.yaml")
    groups: dict[tuple, list[tuple[GoldenCase, Path]]] = {}
    for index, case in enumerate(CASES):
        chain, unsafe, has_traces = case_plan(case)
        workdir = tmp_path / f"case{index:03d}"
        workdir.mkdir()
        shutil.copyfile(case.directory / "input.py", workdir / "input.py")
        key = (chain, unsafe, str(case.directory) if has_traces else None)
        groups.setdefault(key, []).append((case, workdir))

    failures = []
    for (chain, unsafe, traces_dir), members in groups.items():
        extra = ["--unsafe-fixes"] if unsafe else []
        if traces_dir is not None:
            shutil.copyfile(Path(traces_dir) / "traces.json", members[0][1] / "traces.json")
            extra += ["--traces", str(members[0][1] / "traces.json")]
        paths = [str((workdir / "input.py").relative_to(tmp_path)) for _, workdir in members]
        for cls in chain:
            proc = libcst_tool(tmp_path, command_name(cls), paths, extra)
            if proc.returncode != 0 or "Failed to codemod 0 files" not in proc.stderr:
                failures.append(f"{command_name(cls)} on {[c.id for c, _ in members]}:\n{proc.stderr[-2000:]}")
        for case, workdir in members:
            got = (workdir / "input.py").read_text(encoding="utf-8")
            want = (case.directory / "expected.py").read_text(encoding="utf-8")
            if got != want:
                failures.append(f"{case.id}: libcst.tool output differs from expected.py")
    assert not failures, "\n\n".join(failures)


def test_external_form_without_config(tmp_path):
    """Without the yaml: ``-x codemods.<module>.<Command>`` and ``--no-format`` (the default formatter is black)."""
    case = next(c for c in CASES if c.id == "predict-to-call/keras-sequential-in-tf-function")
    shutil.copyfile(case.directory / "input.py", tmp_path / "model.py")
    cls = next(c for c in REGISTRY if c.NAME == "predict-to-call")
    proc = libcst_tool(tmp_path, "-x", [f"codemods.{command_name(cls)}", "model.py", "--no-format"])
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "model.py").read_text(encoding="utf-8") == (case.directory / "expected.py").read_text(
        encoding="utf-8"
    )


def test_stdin_form_prints_the_fixed_code(tmp_path):
    case = next(c for c in CASES if c.id == "predict-to-call/keras-sequential-in-tf-function")
    shutil.copyfile(CONFIG, tmp_path / ".libcst.codemod.yaml")
    cls = next(c for c in REGISTRY if c.NAME == "predict-to-call")
    proc = subprocess.run(
        [sys.executable, "-m", "libcst.tool", "codemod", command_name(cls), "-"],
        cwd=tmp_path,
        input=(case.directory / "input.py").read_text(encoding="utf-8"),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == (case.directory / "expected.py").read_text(encoding="utf-8") + "\n"  # print() adds one


@pytest.mark.parametrize("cls", REGISTRY, ids=[c.CODE for c in REGISTRY])
def test_codemod_describes_itself_for_libcst_tool(cls):
    assert cls.DESCRIPTION.startswith(f"{cls.CODE} {cls.NAME}")
