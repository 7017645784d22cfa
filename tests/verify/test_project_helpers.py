"""A parameter passed into the user's own code is a ``--verify`` candidate, not a dead end (issue 21, item 4).

``x + double(offset)`` with ``double`` defined in another module of the project: the rewriter
does not see into ``double``, so it cannot tell whether a tensor ``offset`` works there.  That
is a question a run of the program answers: RTF003 reports a diagnostic marked verifiable
(its edit is a ``--verify`` candidate, proven in ``tests/verify/test_project_helpers_tf.py``), and a
call into code that is not the project's (the standard library) stays a plain refusal.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.cli_runner import run_cli

HELPERS = "def double(v):\n    return v * 2\n"


def main_source(call: str, imports: str = "from helpers import double\n", extra: str = "") -> str:
    return (f"import tensorflow as tf\n{imports}\n{extra}\n@tf.function\ndef step(x, offset):\n"
            f"    return x + {call}\n\n\nfor i in range(6):\n    step(tf.constant(1.0), i)\n")


def traces(source: str) -> dict:
    line = source.splitlines().index("@tf.function") + 1
    runs = [{"args": {"x": {"kind": "tensor", "shape": [], "dtype": "float32"},
                      "offset": {"kind": "python", "type": "int", "value": i}}, "count": 1, "nested": False,
             "via": "call"} for i in range(6)]
    return {"format": "retrace-fix-traces", "version": 2, "functions": [
        {"file": "main.py", "qualname": "step", "firstlineno": line, "name": "step", "params": ["x", "offset"],
         "calls": 6, "reduce_retracing": False, "has_input_signature": False, "traces": runs}]}


def check(tmp_path: Path, source: str, *options: str) -> tuple[int, dict]:
    (tmp_path / ".git").mkdir()
    (tmp_path / "helpers.py").write_text(HELPERS, encoding="utf-8")
    (tmp_path / "main.py").write_text(source, encoding="utf-8")
    (tmp_path / "t.json").write_text(json.dumps(traces(source)), encoding="utf-8")
    code, out, err = run_cli("--check", "--format", "json", "--traces", "t.json", *options, "main.py",
                             cwd=tmp_path).outcome
    assert code in (0, 1), err
    findings = json.loads(out)["files"][0]["findings"] if json.loads(out)["files"] else []
    return code, {f["code"]: f for f in findings}


@pytest.mark.parametrize(("call", "imports", "extra", "callee"), [
    ("double(offset)", "from helpers import double\n", "", "helpers.double"),
    ("helpers.double(offset)", "import helpers\n", "", "helpers.double"),
    ("triple(offset)", "", "\ndef triple(v):\n    return v * 3\n\n", "triple"),
])
def test_a_parameter_passed_into_project_code_is_a_verifiable_diagnostic(tmp_path, call, imports, extra, callee):
    _code, findings = check(tmp_path, main_source(call, imports, extra))
    finding = findings["RTF003"]
    assert finding["tier"] == "diagnostic" and finding["applied"] is False
    assert finding["message"] == (
        "`step` traced 6 times (`offset`: Python int varies (0, 1, 2, 3, …) → int32 tensor): an input_signature "
        f"would make it trace once, but `{call}` passes it to `{callee}`, project code retrace-fix does not see "
        "into: `retrace-fix --verify` can prove it")
    assert "uses it as a Python value" not in finding["reason"]


def test_the_verify_candidates_edit_it(tmp_path):
    """What ``--verify`` runs: the engine with ``verify_candidates`` applies the verifiable diagnostic."""
    from retrace_fix.engine.options import FileJob, RunOptions
    from retrace_fix.engine.process import process_file
    from retrace_fix.traces.model import load_trace_file

    source = main_source("double(offset)")
    check(tmp_path, source)
    options = RunOptions(traces=load_trace_file(str(tmp_path / "t.json")), verify_candidates=True)
    result = process_file(FileJob(path=tmp_path / "main.py", display="main.py", relpath="main.py",
                                  root=str(tmp_path)), options)
    assert [(f.code, f.applied, f.verifiable) for f in result.findings] == [("RTF003", True, True)]
    assert result.fixed == source.replace("@tf.function\n", (
        "@tf.function(input_signature=[\n"
        "    tf.TensorSpec(shape=[], dtype=tf.float32),\n"
        "    tf.TensorSpec(shape=[], dtype=tf.int32),\n"
        "])\n"))


def test_a_call_into_code_outside_the_project_stays_a_refusal(tmp_path):
    _code, findings = check(tmp_path, main_source("float(math.floor(offset))", "import math\n"))
    finding = findings["RTF003"]
    assert finding["tier"] == "diagnostic"
    assert "`math.floor(offset)` uses it as a Python value" in finding["message"]
    assert "--verify" not in finding["message"]
