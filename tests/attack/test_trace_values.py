"""Trace files whose values have the wrong type, and a root's own broken trace file (issue 26, item 6).

* A ``python`` value whose JSON does not fit its type (``{"type": "int", "value": "abc"}``)
  is a validation error naming the field (exit 2, one line), never "internal error in RTF003".
* In a run over several roots, a root's own ``.retrace/traces.json`` that cannot be used is
  said (one ``traces:`` line naming the file and why); the root is still fixed without it.
"""

from __future__ import annotations

import json

import pytest

from tests.support.cli_runner import run_cli
from tests.attack.test_trace_files import SOURCE, good_file
from tests.bulk.test_run import RELAX, write


def python(type_name, value):
    return {"kind": "python", "type": type_name, "value": value}


@pytest.mark.parametrize("value, words", [
    (python("int", "abc"), "expected an integer for a Python int, got a string"),
    (python("int", None), "expected an integer for a Python int, got null"),
    (python("int", True), "expected an integer for a Python int, got a boolean"),
    (python("bool", 5), "expected true or false for a Python bool, got an integer"),
    (python("float", "x"), "expected a number (or 'nan', 'inf', '-inf') for a Python float, got a string"),
    (python("str", 5), "expected a string for a Python str, got an integer"),
    (python("NoneType", 3), "expected null for a Python NoneType, got an integer"),
    ({"kind": "tuple", "items": [python("int", "z")]}, "x[0].value: expected an integer"),
])
def test_wrongly_typed_value_is_a_validation_error(tmp_path, value, words):
    (tmp_path / "input.py").write_text(SOURCE)
    data = good_file()
    data["functions"][0]["traces"][0]["args"]["x"] = value
    data["functions"][0]["traces"][1]["args"]["x"] = python("int", 3)
    (tmp_path / "t.json").write_text(json.dumps(data))
    code, out, err = run_cli("--diff", "--unsafe-fixes", "--traces", "t.json", "input.py", cwd=tmp_path).outcome
    assert code == 2, err
    assert "internal error" not in err and words in err and "t.json: invalid trace file" in err
    assert err.count("\n") == 1, err


def test_recorded_python_values_still_load(tmp_path):
    (tmp_path / "input.py").write_text(SOURCE)
    data = good_file()
    data["functions"][0]["traces"][0]["args"]["x"] = python("float", "nan")
    data["functions"][0]["traces"][1]["args"]["x"] = python("float", 2)
    (tmp_path / "t.json").write_text(json.dumps(data))
    code, out, err = run_cli("--diff", "--traces", "t.json", "input.py", cwd=tmp_path).outcome
    assert code in (0, 1) and "invalid trace file" not in err, err


@pytest.mark.parametrize("content", ["{not json", json.dumps({"format": "retrace-fix-traces", "version": 1, "functions": 5})])
def test_a_roots_own_invalid_trace_file_is_said(tmp_path, content):
    write(tmp_path / "alpha/model.py", RELAX)
    write(tmp_path / "alpha/.retrace/traces.json", content)
    write(tmp_path / "beta/model.py", RELAX)
    for root in ("alpha", "beta"):
        (tmp_path / root / ".git").mkdir()  # project roots: each has its own .retrace/
    code, out, err = run_cli("--diff", "alpha", "beta", cwd=tmp_path).outcome
    assert "Traceback" not in err
    own = str(tmp_path / "alpha/.retrace/traces.json")
    lines = [line for line in err.splitlines() if own in line]
    assert lines and lines[0].startswith("retrace-fix: traces: ") and "not used" in lines[0], err
    assert "+++ b/alpha/model.py" in out and "+++ b/beta/model.py" in out
