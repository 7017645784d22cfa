"""Hostile trace files (issue 14, item 3): exit 2 with one line, in every command that loads them.

The commands are ``retrace-fix --traces`` (fix and ``--diff``), ``report``,
``bench --traces`` and the merge of several files (repeated ``--traces``, and
the recorder's shard merge, which skips a bad shard with one line).  Every
test hashes the project and its parent before and after: nothing is written.
Also here: fields that the codemods turn into source text cannot carry code.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from retrace_fix.traces import json_limits
from retrace_fix.traces.model import TraceFileError, load_trace_file
from retrace_fix.traces.per_process import merge_shards
from tests.support.tree_state import changed, digest
from tests.support.cli_runner import run_cli

SOURCE = """\
import tensorflow as tflow
from tensorflow import function as compiled


@compiled
def mean_row(x):
    return tflow.reduce_mean(x, axis=0)
"""


def tensor(shape, dtype="float32") -> dict:
    return {"kind": "tensor", "shape": shape, "dtype": dtype}


def good_file(arg: dict | None = None, **function) -> dict:
    traces = [{"args": {"x": arg or tensor([n, 3])}, "count": 1, "nested": False, "via": "call"} for n in (2, 4)]
    entry = {"file": "input.py", "qualname": "mean_row", "firstlineno": 5, "name": "mean_row", "params": ["x"],
             "calls": 2, "reduce_retracing": False, "has_input_signature": False, "traces": traces}
    entry.update(function)
    return {"format": "retrace-fix-traces", "version": 1, "tensorflow": "2.21.0", "functions": [entry]}


def nested_list(depth: int) -> str:
    return "[" * depth + "]" * depth


#: name -> file content (text, or bytes)
HOSTILE: dict[str, str | bytes] = {
    "array-nested-1000-deep": '{"format": "retrace-fix-traces", "version": 1, "functions": ' + nested_list(1000) + "}",
    "array-nested-900-deep": nested_list(900),
    "object-nested-5000-deep": '{"a": ' * 5000 + "1" + "}" * 5000,
    "deep-inside-a-value": json.dumps(good_file({"kind": "other", "type": "X"})).replace(
        '"type": "X"', '"type": "X", "repr": ' + nested_list(900)),
    "version-of-5000-digits": '{"format": "retrace-fix-traces", "version": ' + "9" * 5000 + ', "functions": []}',
    "count-of-5000-digits": json.dumps(good_file()).replace('"count": 1', '"count": 1' + "0" * 4999, 1),
    "negative-huge-line": json.dumps(good_file()).replace('"firstlineno": 5', '"firstlineno": -' + "9" * 30),
    "lone-surrogate": json.dumps(good_file()).replace('"mean_row"', '"mean\\ud800row"', 1),
    "not-utf8": b'{"format": "retrace-fix-traces", "version": 1, "functions": [], "x": "\xff\xfe"}',
    "binary": bytes(range(256)) * 4,
    "empty": "",
    "top-level-null": "null",
    "functions-is-an-object": '{"format": "retrace-fix-traces", "version": 1, "functions": {"a": 1}}',
    "nan-seconds": json.dumps(good_file()).replace('"via": "call"', '"via": "call", "seconds": NaN', 1),
    "infinite-float-dims": json.dumps(good_file(tensor([1e999, 3]))),
    "negative-dims": json.dumps(good_file(tensor([-1, 3]))),
    "control-character-in-qualname": json.dumps(good_file(qualname="mean_row\x1b[2J")),
    "file-leaving-the-project": json.dumps(good_file(file="../outside.py")),
    "dtype-carrying-code": json.dumps(good_file(tensor([None, 3], "float32, name=__import__('os').system('x')"))),
    "dtype-with-newline": json.dumps(good_file(tensor([None, 3], "float32\nimport os"))),
    "ragged-rank-carrying-code": json.dumps(good_file({"kind": "ragged", "shape": [None, None], "dtype": "float32",
                                                       "ragged_rank": "1) or exec('x'", "row_splits_dtype": "int64"})),
    "row-splits-dtype-carrying-code": json.dumps(good_file({"kind": "ragged", "shape": [None, None], "dtype": "float32",
                                                            "ragged_rank": 1, "row_splits_dtype": "int64)#"})),
    "namedtuple-class-carrying-code": json.dumps(good_file({"kind": "namedtuple", "type": "P(x=1) or exec('x') or P",
                                                            "items": {"a": tensor([2])}})),
    "namedtuple-field-carrying-code": json.dumps(good_file({"kind": "namedtuple", "type": "Point",
                                                            "items": {"a=1) or exec('x') or Point(a": tensor([2])}})),
    "call-site-leaving-the-project": json.dumps(dict(good_file(call_sites=[{"file": "../x.py", "line": 3}]), version=2)),
    "proof-error-with-escape-codes": json.dumps(dict(good_file(proofs=[{
        "candidate": "input_signature: x", "fix": "input_signature", "result": "failed",
        "error": "TypeError\n\x1b[2Jfake prompt $"}]), version=2)),
    "project-name-with-newline": json.dumps(dict(good_file(), version=2, project={"name": "p\nq", "remote": None})),
}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / ".git").mkdir()
    (root / "input.py").write_text(SOURCE)
    (tmp_path / "good.json").write_text(json.dumps(good_file()))
    return root


def write_hostile(project: Path, name: str) -> Path:
    content = HOSTILE[name]
    path = project.parent / f"{name}.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8", errors="surrogatepass")
    return path


COMMANDS = {
    "fix": lambda bad, good: ["--jobs", "1", "--unsafe-fixes", "--traces", bad, "input.py"],
    "diff": lambda bad, good: ["--diff", "--jobs", "1", "--unsafe-fixes", "--traces", bad, "input.py"],
    "merge": lambda bad, good: ["--diff", "--jobs", "1", "--traces", good, "--traces", bad, "input.py"],
    "report": lambda bad, good: ["report", good, bad],
    "report-json": lambda bad, good: ["report", "--format", "json", bad],
    "bench": lambda bad, good: ["bench", "--runs", "1", "--traces", bad, "--", "python", "-c", "pass"],
}


@pytest.mark.parametrize("command", list(COMMANDS))
@pytest.mark.parametrize("name", list(HOSTILE))
def test_hostile_trace_file_is_exit_2_with_one_line_and_writes_nothing(project, name, command):
    bad = write_hostile(project, name)
    before = digest(project.parent)
    code, out, err = run_cli(*COMMANDS[command](str(bad), str(project.parent / "good.json")), cwd=project).outcome
    assert code == 2, (out, err)
    lines = err.splitlines()
    assert len(lines) == 1 and str(bad) in lines[0], err
    assert "Traceback" not in err and out == ""
    assert changed(before, digest(project.parent)) == []


def test_the_issue_files_give_these_messages(project):
    """The two files of issue 14, item 3, and what is said about them."""
    deep = write_hostile(project, "array-nested-1000-deep")
    digits = write_hostile(project, "version-of-5000-digits")
    with pytest.raises(TraceFileError) as info:
        load_trace_file(str(deep))
    assert str(info.value) == f"{deep}: not a usable trace file: nested more than 200 levels deep"
    with pytest.raises(TraceFileError) as info:
        load_trace_file(str(digits))
    assert str(info.value) == f"{digits}: not a usable trace file: a number of 5000 digits (at most 20)"


def test_a_file_over_the_size_limit_is_not_read_to_the_end(project, monkeypatch):
    monkeypatch.setattr(json_limits, "MAX_BYTES", 1024)
    big = project.parent / "big.json"
    big.write_text(json.dumps(good_file(params=["x"] * 1000)))
    with pytest.raises(TraceFileError, match="not a usable trace file: larger than"):
        load_trace_file(str(big))


def test_injected_code_never_reaches_a_diff(project):
    """Before: the dtype was pasted into ``tf.TensorSpec(..., dtype=tf.<dtype>)`` as it came."""
    bad = write_hostile(project, "dtype-carrying-code")
    code, out, err = run_cli("--diff", "--jobs", "1", "--unsafe-fixes", "--traces", str(bad), "input.py", cwd=project).outcome
    assert code == 2 and "__import__" not in out
    assert err == (
        f"retrace-fix: error: {bad}: invalid trace file: functions[0].traces[0].args.x.dtype: expected a dtype name "
        "such as 'float32', got \"float32, name=__import__('os').system('x')\"\n"
    )


def test_the_good_file_still_gives_the_signature(project):
    good = project.parent / "good.json"
    code, out, _ = run_cli("--diff", "--jobs", "1", "--unsafe-fixes", "--traces", str(good), "input.py", cwd=project).outcome
    assert code == 1
    assert "+@compiled(input_signature=[tflow.TensorSpec(shape=[None, 3], dtype=tflow.float32)])" in out


@pytest.mark.parametrize("name", ["array-nested-1000-deep", "version-of-5000-digits", "lone-surrogate", "binary"])
def test_a_hostile_shard_is_skipped_with_one_line(tmp_path, capsys, name):
    shards = tmp_path / "shards"
    shards.mkdir()
    content = HOSTILE[name]
    (shards / "traces-1.json").write_bytes(content if isinstance(content, bytes)
                                           else content.encode("utf-8", "surrogatepass"))
    (shards / "traces-2.json").write_text(json.dumps(good_file()))
    before = digest(tmp_path)
    merged = merge_shards(str(shards))
    assert [f.qualname for f in merged] == ["mean_row"]
    err = capsys.readouterr().err
    assert err.startswith("retrace-fix: skipping a shard: ") and err.count("\n") == 1
    assert changed(before, digest(tmp_path)) == []
