"""Every codemod is a plain LibCST codemod: ``python -m libcst.tool codemod <module>.<Command> PATH``
gives the same code as retrace-fix (the golden ``expected.py``) on every golden input.

The runs use the repository's ``.libcst.codemod.yaml`` (``modules: ['retrace_fix.codemods']``, formatter
``cat``), copied into a scratch directory that is the working directory, exactly as a user
with that file in their project would run it (the runs over every golden case add ``--no-format``:
``cat`` gives the text back unchanged, one process per file; the stdin form runs it).  Cases that select several codemods run them
one after another in registry order, as the engine does (the largest group through libcst.tool's
worker pool, where each file's codemod is pickled to a forked process; the others with ``-j 1``,
in this process: a pool per command would only add its forks); ``case.toml``'s ``unsafe-fixes``
becomes ``--unsafe-fixes`` and a case's ``traces.json`` becomes ``--traces``.  Cases that chain a
body rewrite (RTF007, RTF008) into a trace-driven fix of the same body are one-run features
(:func:`one_run_chain`): as separate commands the second sees only the proofs of the old body.
"""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from libcst.tool import main as libcst_tool_main

from retrace_fix.codemods import REGISTRY
from retrace_fix.engine.options import selected_codemods
from tests.support.golden import GoldenCase, discover_cases

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / ".libcst.codemod.yaml"
CASES = discover_cases()


def command_name(cls: type) -> str:
    """``predict_to_call.PredictToCallCommand``: the name libcst.tool finds through ``modules: ['retrace_fix.codemods']``."""
    module = cls.__module__
    assert module.startswith("retrace_fix.codemods."), module
    return f"{module[len('retrace_fix.codemods.'):]}.{cls.__name__}"


def libcst_tool(cwd: Path, command: str, paths: list[str], extra: list[str] = ()) -> subprocess.CompletedProcess:
    """``python -m libcst.tool codemod COMMAND PATHS`` in ``cwd`` (see :func:`libcst_tool_main_in`)."""
    return libcst_tool_main_in(cwd, ["codemod", command, *paths, "--hide-progress", *extra])


def libcst_tool_main_in(cwd: Path, args: list[str], stdin: str = "") -> subprocess.CompletedProcess:
    """``python -m libcst.tool ARGS`` in ``cwd`` with ``stdin``, through libcst.tool's own entry
    point in this process (its config lookup, module search, argument parsing and worker pool);
    a process per call would only add its imports. Whether the codemods import outside the
    repository is checked in a process of its own below."""
    out, err = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(cwd)
        patch.setattr(sys, "stdin", io.StringIO(stdin))
        patch.setattr(sys, "stdout", out)
        patch.setattr(sys, "stderr", err)
        code = libcst_tool_main("libcst.tool", args)
    return subprocess.CompletedProcess(["libcst.tool", *args], code, out.getvalue(), err.getvalue())


def case_plan(case: GoldenCase) -> tuple[tuple[type, ...], bool, bool]:
    options = case.options()
    chain = tuple(selected_codemods(options))
    return chain, options.unsafe_fixes, options.traces is not None


#: codemods that rewrite a tf.function's body, and the trace-driven ones that then fit it: the engine
#: tells the second that the first rewrote the body in this run (codemods/_rewritten.py, in the
#: run's scratch space); separate libcst.tool commands are separate runs and share no such fact
BODY_REWRITERS, PROOF_READERS = {"RTF007", "RTF008"}, {"RTF003", "RTF004"}


def one_run_chain(chain: tuple) -> bool:
    codes = {cls.CODE for cls in chain}
    return bool(codes & BODY_REWRITERS) and bool(codes & PROOF_READERS)


def test_config_finds_the_codemods():
    text = CONFIG.read_text(encoding="utf-8")
    assert "- 'retrace_fix.codemods'" in text


def test_libcst_tool_lists_each_codemod_by_its_module(tmp_path):
    """``libcst.tool list``: one line per codemod, named ``<module>.<Command>`` (no ``__init__.``
    names, no base classes), and no top-level ``codemods`` package is importable outside the repository."""
    shutil.copyfile(CONFIG, tmp_path / ".libcst.codemod.yaml")
    proc = libcst_tool_main_in(tmp_path, ["list"])
    assert proc.returncode == 0, proc.stderr
    listed = [line.split(" - ", 1)[0] for line in proc.stdout.splitlines()]
    assert listed == sorted(command_name(cls) for cls in REGISTRY)
    probe = subprocess.run([sys.executable, "-c", "import importlib.util; print(importlib.util.find_spec('codemods'))"],
                           cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert probe.stdout.strip() == "None", probe.stdout


def _run_groups(tmp_path: Path, with_traces: bool) -> tuple[list[str], list[GoldenCase]]:
    """Run libcst.tool over the golden inputs; (failure messages, cases whose file came back unchanged)."""
    shutil.copyfile(CONFIG, tmp_path / ".libcst.codemod.yaml")
    groups: dict[tuple, list[tuple[GoldenCase, Path]]] = {}
    merged: dict[tuple, list[dict]] = {}
    for index, case in enumerate(CASES):
        if case.options().verify_candidates:
            continue  # the candidates of a --verify run: an engine setting, no LibCST command option
        chain, unsafe, has_traces = case_plan(case)
        if has_traces != with_traces or one_run_chain(chain):
            continue
        workdir = tmp_path / f"case{index:03d}"
        workdir.mkdir()
        shutil.copyfile(case.directory / "input.py", workdir / "input.py")
        groups.setdefault((chain, unsafe), []).append((case, workdir))
        if has_traces:  # one trace file for the group: the case's functions, re-keyed to its copy
            data = json.loads((case.directory / "traces.json").read_text(encoding="utf-8"))
            for function in data["functions"]:
                function["file"] = f"{workdir.name}/input.py"
                for site in function.get("call_sites", []):  # the recorded calls move with the file
                    site["file"] = f"{workdir.name}/{site['file']}"
            merged.setdefault((chain, unsafe), []).append(data)

    failures: list[str] = []
    unchanged: list[GoldenCase] = []
    pooled = max(groups, key=lambda key: len(groups[key]))  # > 4 files: libcst.tool starts 2 workers
    assert len(groups[pooled]) > 4
    for number, ((chain, unsafe), members) in enumerate(groups.items()):
        # --no-format: the config's formatter (``cat``, a process per file that copies it) is
        # run by test_stdin_form_prints_the_fixed_code; here it would only add ~70 processes
        extra = ["--no-format", "--unsafe-fixes"] if unsafe else ["--no-format"]
        if (chain, unsafe) != pooled:
            extra += ["-j", "1"]
        if with_traces:
            parts = merged[(chain, unsafe)]
            trace_file = tmp_path / f"traces{number}.json"
            trace_file.write_text(
                json.dumps({**parts[0], "functions": [f for part in parts for f in part["functions"]]}),
                encoding="utf-8",
            )
            extra += ["--traces", trace_file.name]
        paths = [f"{workdir.name}/input.py" for _, workdir in members]
        for cls in chain:
            proc = libcst_tool(tmp_path, command_name(cls), paths, extra)
            if proc.returncode != 0 or "Failed to codemod 0 files" not in proc.stderr:
                failures.append(f"{command_name(cls)} on {[c.id for c, _ in members]}:\n{proc.stderr[-2000:]}")
        for case, workdir in members:
            got = (workdir / "input.py").read_text(encoding="utf-8")
            want = case.expected_path.read_text(encoding="utf-8")
            if got != want:
                failures.append(f"{case.id}: libcst.tool output differs from expected.py")
                if got == (case.directory / "input.py").read_text(encoding="utf-8"):
                    unchanged.append(case)
    return failures, unchanged


def test_libcst_tool_matches_golden_expected(tmp_path):
    """One libcst.tool run per codemod over all cases that share options."""
    failures, _ = _run_groups(tmp_path, with_traces=False)
    assert not failures, "\n\n".join(failures)


def test_libcst_tool_with_traces_matches_golden_expected(tmp_path):
    """Trace-driven cases: ``--traces FILE``; the file's paths are relative to the project root (here the cwd)."""
    failures, _ = _run_groups(tmp_path, with_traces=True)
    assert not failures, "\n\n".join(failures)


def test_external_form_without_config(tmp_path):
    """Without the yaml: ``-x retrace_fix.codemods.<module>.<Command>`` and ``--no-format`` (the default formatter is black)."""
    case = next(c for c in CASES if c.id == "predict-to-call/keras-sequential-in-tf-function")
    shutil.copyfile(case.directory / "input.py", tmp_path / "model.py")
    cls = next(c for c in REGISTRY if c.NAME == "predict-to-call")
    proc = libcst_tool(tmp_path, "-x", [f"retrace_fix.codemods.{command_name(cls)}", "model.py", "--no-format"])
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "model.py").read_text(encoding="utf-8") == (case.directory / "expected.py").read_text(
        encoding="utf-8"
    )


def test_stdin_form_prints_the_fixed_code(tmp_path):
    case = next(c for c in CASES if c.id == "predict-to-call/keras-sequential-in-tf-function")
    shutil.copyfile(CONFIG, tmp_path / ".libcst.codemod.yaml")
    cls = next(c for c in REGISTRY if c.NAME == "predict-to-call")
    proc = libcst_tool_main_in(tmp_path, ["codemod", command_name(cls), "-"],
                               stdin=(case.directory / "input.py").read_text(encoding="utf-8"))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == (case.directory / "expected.py").read_text(encoding="utf-8") + "\n"  # print() adds one


@pytest.mark.parametrize("cls", REGISTRY, ids=[c.CODE for c in REGISTRY])
def test_codemod_describes_itself_for_libcst_tool(cls):
    assert cls.DESCRIPTION.startswith(f"{cls.CODE} {cls.NAME}")
