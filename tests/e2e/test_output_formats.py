"""The documented JSON output schema (docs/output-formats.md) is pinned here: keys, types, exit codes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.support.cli_runner import run_cli

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "golden" / "predict-to-call"

TOP_KEYS = ["version", "mode", "files", "summary"]
FILE_KEYS = ["path", "changed", "findings", "error"]
FINDING_KEYS = ["code", "message", "tier", "line", "column", "path", "applied", "reason", "fixable"]
SUMMARY_KEYS = ["files_scanned", "files_changed", "fixes", "diagnostics", "errors", "text"]


def run_json(*args: str) -> tuple[int, dict]:
    """``retrace-fix ARGS`` (tests/support/cli_runner.py): the exit code and the JSON it printed."""
    result = run_cli(*args)
    return result.returncode, json.loads(result.stdout)


@pytest.fixture
def project(tmp_path, monkeypatch):
    shutil.copyfile(GOLDEN / "keras-sequential-in-tf-function" / "input.py", tmp_path / "fixable.py")
    shutil.copyfile(GOLDEN / "batching-arguments-diagnosed" / "input.py", tmp_path / "diagnosed.py")
    shutil.copyfile(GOLDEN / "non-keras-predict-left-alone" / "input.py", tmp_path / "clean.py")
    # a file the prefilter reads (a tf.function and a predict call), which does not parse
    (tmp_path / "broken.py").write_text("@tf.function\ndef f(:\n    return model.predict(x)\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def check_shape(payload: dict, mode: str, with_diff: bool) -> None:
    assert list(payload) == TOP_KEYS
    assert payload["version"] == 1
    assert payload["mode"] == mode
    assert list(payload["summary"]) == SUMMARY_KEYS
    for entry in payload["files"]:
        assert list(entry) == FILE_KEYS + (["diff"] if with_diff else [])
        assert isinstance(entry["path"], str) and isinstance(entry["changed"], bool)
        assert entry["error"] is None or isinstance(entry["error"], str)
        for finding in entry["findings"]:
            assert list(finding) == FINDING_KEYS
            assert finding["tier"] in ("safe", "unsafe", "diagnostic")
            assert finding["fixable"] == (finding["tier"] != "diagnostic")
            assert finding["path"] == entry["path"]
            assert isinstance(finding["line"], int) and isinstance(finding["column"], int)


def test_json_check_schema(project):
    code, payload = run_json("--check", "--format", "json", ".")
    assert code == 2  # broken.py is an error; the other files are still reported
    check_shape(payload, "check", with_diff=False)
    files = {entry["path"]: entry for entry in payload["files"]}
    assert sorted(files) == ["broken.py", "diagnosed.py", "fixable.py"]  # clean.py has nothing to say
    assert files["broken.py"]["error"].startswith("broken.py:") and "cannot parse" in files["broken.py"]["error"]
    fixable = files["fixable.py"]["findings"]
    assert [(f["line"], f["column"], f["applied"]) for f in fixable] == [(8, 12, True), (13, 9, True)]  # 1-based column
    assert [f["tier"] for f in files["diagnosed.py"]["findings"]] == ["diagnostic"] * 3
    assert payload["summary"] == {
        "files_scanned": 4,
        "files_changed": 1,
        "fixes": 2,
        "diagnostics": 3,
        "errors": 1,
        "text": "1 file would change, 2 fixes available, 3 diagnostics, 1 error",
    }


def test_json_diff_schema_includes_diffs(project):
    (project / "broken.py").unlink()
    code, payload = run_json("--diff", "--format", "json", ".")
    assert code == 1
    check_shape(payload, "diff", with_diff=True)
    files = {entry["path"]: entry for entry in payload["files"]}
    assert files["fixable.py"]["diff"].startswith("--- a/fixable.py\n+++ b/fixable.py\n")
    assert files["diagnosed.py"]["diff"] == ""
    assert (project / "fixable.py").read_bytes() == (GOLDEN / "keras-sequential-in-tf-function" / "input.py").read_bytes()


def test_json_fix_mode_writes_and_exits_zero(project):
    (project / "broken.py").unlink()
    code, payload = run_json("--format", "json", ".")
    assert code == 0
    check_shape(payload, "fix", with_diff=False)
    assert payload["summary"]["files_changed"] == 1
    expected = (GOLDEN / "keras-sequential-in-tf-function" / "expected.py").read_text(encoding="utf-8")
    assert (project / "fixable.py").read_text(encoding="utf-8") == expected
