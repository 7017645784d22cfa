"""Semantic golden tests: every golden case with a ``drive.py`` runs before and after under real TensorFlow.

The convention (also in ``tests/support/golden.py``): ``drive.py`` does ``from input
import ...``, calls the case's functions the way the seeds do and prints
results.  It is run once with the case's ``input.py`` and once with its
``expected.py`` (copied to ``input.py``), under the trace recorder.  Then

* both runs succeed, and their stdout is the same: same lines, numbers equal
  within rtol 1e-5 / atol 1e-6; lines starting with ``traces`` report trace
  counts (``traces 3``) and are not outputs: their numbers must not grow;
* no function of ``input.py`` traces more after than before (recorder counts; a function
  moved out of the function that created it is matched by its name), nor do they all together;
* ``case.toml``'s ``[semantic]`` table, when present, adds expectations::

      [semantic]
      before = "raises"          # the original must fail (e.g. Keras 3 `predict` in a tf.function),
      raises = "AttributeError"  #   with an error matching this regex; the fixed code must run
                                 #   (when the case has an expected.py)
      traces-after = { predict = 1 }   # exact recorder trace count per qualname after the fix
      traces-before = { predict = 4 }  # ... and before it (with traces-after: the fix's drop, asserted)

All cases of one side run in one child process (``tests/support/semantic_runner.py``;
TensorFlow is imported once); the two sides run concurrently.  Cases without
``expected.py`` (must not change) run once.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("tensorflow")  # skipped, not an error, where TensorFlow is not installed

from retrace_fix.bench.outputs import compare_text
from tests.support.golden import GoldenCase, discover_cases

pytestmark = pytest.mark.tf

RUNNER = Path(__file__).resolve().parents[1] / "support" / "semantic_runner.py"
REPO = RUNNER.parents[2]
RTOL, ATOL = 1e-5, 1e-6
CASE_FILES = {"input.py", "expected.py", "findings.txt", "case.toml", "traces.json"}

CASES = [c for c in discover_cases() if (c.directory / "drive.py").is_file()]


def semantic_spec(case: GoldenCase) -> dict:
    spec = case.settings().get("semantic", {})
    unknown = sorted(set(spec) - {"before", "raises", "traces-after", "traces-before"})
    assert not unknown, f"{case.id}/case.toml: unknown [semantic] key {unknown[0]!r}"
    return spec


def changed(case: GoldenCase) -> bool:
    return case.changes


def _materialise(case: GoldenCase, side: str, root: Path) -> Path:
    directory = root / side / case.id.replace("/", "__")
    directory.mkdir(parents=True)
    source = case.directory / "input.py" if side == "before" else case.expected_path
    shutil.copyfile(source, directory / "input.py")
    for path in case.directory.iterdir():
        if path.is_file() and path.name not in CASE_FILES:
            shutil.copyfile(path, directory / path.name)  # drive.py and any helper it needs
    return directory


def _read_results(path: Path) -> dict[str, dict]:
    results = {}
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                item = json.loads(line)
                results[item["id"]] = item
    return results


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> dict[str, dict[str, dict]]:
    if importlib.util.find_spec("tensorflow") is None:
        pytest.skip("TensorFlow is not installed")
    root = Path(os.path.realpath(tmp_path_factory.mktemp("semantic")))
    env = {k: v for k, v in os.environ.items() if not k.startswith("RETRACE_FIX_")}
    env["TF_CPP_MIN_LOG_LEVEL"] = "2"
    env["PYTHONPATH"] = str(REPO) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    unchanged = {c.id for c in CASES if not changed(c)}
    for side in ("before", "after"):
        cases = [c for c in CASES if side == "before" or c.id not in unchanged]
        manifest = [{"id": c.id, "directory": str(_materialise(c, side, root))} for c in cases]
        (root / f"{side}.json").write_text(json.dumps(manifest), encoding="utf-8")
    processes = {}
    out: dict[str, dict[str, dict]] = {}
    try:
        for side in ("before", "after"):
            with open(root / f"{side}.stderr", "wb") as stderr:
                processes[side] = subprocess.Popen(
                    [sys.executable, str(RUNNER), str(root / f"{side}.json"), str(root / f"{side}.results")],
                    cwd=root, env=env, stdout=subprocess.DEVNULL, stderr=stderr,
                )
        for side, process in processes.items():
            code = process.wait(timeout=600)
            out[side] = _read_results(root / f"{side}.results")
            out[side]["__exit__"] = {"code": code, "stderr": (root / f"{side}.stderr").read_text(errors="replace")[-3000:]}
    finally:
        for process in processes.values():
            if process.poll() is None:
                process.kill()
                process.wait()
    for case in CASES:  # unchanged cases ran once: the after side is the same run
        if case.id in unchanged and case.id in out["before"]:
            out["after"][case.id] = out["before"][case.id]
    return out


def _result(results: dict, side: str, case: GoldenCase) -> dict:
    result = results[side].get(case.id)
    if result is None:
        crashed = results[side]["__exit__"]
        pytest.fail(f"the {side} runner stopped before {case.id} (exit {crashed['code']}):\n{crashed['stderr']}")
    return result


def split_trace_lines(stdout: str) -> tuple[str, list[str]]:
    """(output text without ``traces`` lines, the ``traces`` lines)."""
    outputs, traces = [], []
    for line in stdout.splitlines():
        (traces if line.split(" ", 1)[0] == "traces" else outputs).append(line)
    return "\n".join(outputs), traces


def original_traces(before: dict[str, int], qualname: str) -> int | None:
    """The traces of the function ``qualname`` names in the original run.

    A function RTF006 moved out of the function that created it has a new qualified
    name (``animate.<locals>.step`` becomes ``step``, ``M.run.<locals>.step``
    becomes ``M.step``): it is compared with the functions of the same name.  None when
    the original had no such function (``tf.function(lambda: f(x))`` became a
    tf.function of ``f``): then only the total counts.
    """
    if qualname in before:
        return before[qualname]
    short = qualname.rsplit(".", 1)[-1]
    same = [count for name, count in before.items() if name.rsplit(".", 1)[-1] == short]
    return sum(same) if same else None


def _numbers(line: str) -> list[int]:
    return [int(n) for n in re.findall(r"\b\d+\b", line)]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_semantics_preserved_and_traces_not_increased(case: GoldenCase, results):
    spec = semantic_spec(case)
    before, after = _result(results, "before", case), _result(results, "after", case)
    if spec.get("before") == "raises":
        assert before["error"], f"{case.id}: [semantic] before = \"raises\", but the original drive ran"
        if "raises" in spec:
            assert re.search(spec["raises"], before["error"]), before["error"]
        if changed(case):  # a must-not-change case may show code that fails as it is
            assert after["error"] is None, f"{case.id}: the fixed code fails: {after['error']}\n{after['stdout']}"
    else:
        assert before["error"] is None, f"{case.id}: the original drive fails: {before['error']}"
        assert after["error"] is None, f"{case.id}: the fixed code fails: {after['error']}\n{after['stdout']}"
        out_before, traces_before = split_trace_lines(before["stdout"])
        out_after, traces_after = split_trace_lines(after["stdout"])
        assert out_before.strip(), f"{case.id}: drive.py printed no results"
        assert compare_text(out_before, out_after, RTOL, ATOL) == [], (out_before, out_after)
        assert len(traces_before) == len(traces_after)
        for line_before, line_after in zip(traces_before, traces_after):
            for n_before, n_after in zip(_numbers(line_before), _numbers(line_after)):
                assert n_after <= n_before, f"{case.id}: {line_before!r} before, {line_after!r} after"
        for name, count in after["traces"].items():
            original = original_traces(before["traces"], name)
            assert original is None or count <= original, f"{case.id}: {name} traces {original} before, {count} after"
        assert sum(after["traces"].values()) <= sum(before["traces"].values())
    for name, count in spec.get("traces-after", {}).items():
        assert after["traces"].get(name, 0) == count, f"{case.id}: {name}: {after['traces']}"
    for name, count in spec.get("traces-before", {}).items():
        assert before["traces"].get(name, 0) == count, f"{case.id}: {name}: {before['traces']}"


def test_every_fixed_case_that_can_run_has_a_drive():
    """Positive cases of codemods that change runtime behaviour are executed (not just compared as text)."""
    runtime = {"input-signature", "range-to-tf-range", "predict-to-call", "reduce-retracing"}
    positives = [
        c for c in discover_cases()
        if c.codemod_name in runtime and changed(c) and (c.directory / "drive.py").is_file()
    ]
    assert len(positives) >= 10, [c.id for c in positives]
