"""Messages that send the user somewhere true (issue 21, item 5).

Each message a user acts on is checked here for what it claims: the exit code of a
``--verify`` whose command cannot run, the diagnostics a ``--diff`` counts, the default
trace file of ``report``, where a syntax error is, the columns of JSON output, and a
trace file given for a root that is a plain folder (or that matches nothing).
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

from tests.support.cli_runner import run_cli

ROOT = Path(__file__).resolve().parents[2]
CASE = ROOT / "golden" / "input-signature" / "varying-batch-size"
#: a diagnostic only: a NumPy draw inside a tf.function runs once, while tracing
DIAGNOSED = "import numpy as np\nimport tensorflow as tf\n\n\n@tf.function\ndef f(x):\n    return x + np.random.rand()\n"


def test_verify_exits_2_when_the_original_fails_and_nothing_could_be_verified(tmp_path: Path):
    (tmp_path / "model.py").write_text(DIAGNOSED, encoding="utf-8")
    code, out, err = run_cli("--verify", ".", "--", sys.executable, "train.py", cwd=tmp_path).outcome
    assert code == 2, err
    assert "the original fails (exit code 2: " in err and "train.py" in err
    assert "nothing to verify: no candidate fix for this program; the original fails (exit code 2: " in err
    assert "nothing could be verified" in err
    assert (tmp_path / "model.py").read_text(encoding="utf-8") == DIAGNOSED


def test_verify_exits_2_when_the_command_cannot_start(tmp_path: Path):
    (tmp_path / "model.py").write_text(DIAGNOSED, encoding="utf-8")
    code, _out, err = run_cli("--verify", ".", "--", "no-such-program-retrace-fix", cwd=tmp_path).outcome
    assert code == 2
    assert "retrace-fix: error: `no-such-program-retrace-fix` cannot start: cannot run no-such-program-retrace-fix" in err


def test_diff_prints_the_diagnostics_it_counts_on_stderr_and_only_the_diff_on_stdout(tmp_path: Path):
    (tmp_path / "model.py").write_text(DIAGNOSED, encoding="utf-8")
    code, out, err = run_cli("--diff", "model.py", cwd=tmp_path).outcome
    assert (code, out) == (0, "")
    lines = err.splitlines()
    assert lines[0].startswith("model.py:7:16: RTF102 [diagnostic] `np.random.rand()` runs once, while tracing")
    assert "0 files would change, 0 fixes available, 1 diagnostic, 0 errors" in lines
    code, _out, err = run_cli("--diff", "--quiet", "model.py", cwd=tmp_path).outcome
    assert err == ""


def test_report_reads_what_record_writes_by_default(tmp_path: Path):
    code, out, err = run_cli("report", cwd=tmp_path).outcome
    assert (code, out) == (2, "")
    assert err == ("retrace-fix: error: no trace file given, and .retrace/traces.json (what `retrace-fix record -- CMD` "
                   "writes) does not exist here: record your program first, or name trace files "
                   "(retrace-fix report TRACES...)\n")
    (tmp_path / ".retrace").mkdir()
    shutil.copyfile(CASE / "traces.json", tmp_path / ".retrace" / "traces.json")
    code, out, err = run_cli("report", cwd=tmp_path).outcome
    assert code == 0, err
    assert "predict_no_signature" in out
    named = run_cli("report", ".retrace/traces.json", cwd=tmp_path).outcome  # DESIGN.md's form still works
    assert named == (0, out, err)


def test_a_syntax_error_is_located_where_cpython_locates_it(tmp_path: Path):
    (tmp_path / "broken.py").write_text("import tensorflow as tf\n\n@tf.function\ndef broken(:\n    pass\n",
                                        encoding="utf-8")
    try:
        compile((tmp_path / "broken.py").read_text(), "broken.py", "exec")
    except SyntaxError as exc:
        where = f"{exc.lineno}:{exc.offset}"
    assert where == "4:12"
    code, _out, err = run_cli("--check", "broken.py", cwd=tmp_path).outcome
    assert code == 2
    assert "error: broken.py:4:12: cannot parse: invalid syntax\n" in err


def test_json_columns_are_1_based_like_the_text(tmp_path: Path):
    (tmp_path / "model.py").write_text(DIAGNOSED, encoding="utf-8")
    _code, text, _err = run_cli("--check", "model.py", cwd=tmp_path).outcome
    _code, payload, _err = run_cli("--check", "--format", "json", "model.py", cwd=tmp_path).outcome
    finding = json.loads(payload)["files"][0]["findings"][0]
    assert text.startswith(f"model.py:{finding['line']}:{finding['column']}: RTF102")
    assert (finding["line"], finding["column"]) == (7, 16)


def _two_plain_folders(tmp_path: Path) -> Path:
    outer = tmp_path / "outer"  # not a repository, nor are the folders inside it
    for name in ("recorded", "other"):
        (outer / name).mkdir(parents=True)
        shutil.copyfile(CASE / "input.py", outer / name / "input.py")
    shutil.copyfile(CASE / "traces.json", outer / "recorded" / "t.json")
    return outer


def test_a_trace_file_given_for_a_plain_folder_applies_to_it(tmp_path: Path):
    outer = _two_plain_folders(tmp_path)
    code, out, err = run_cli("--check", "--traces", "recorded=recorded/t.json", "recorded", "other", cwd=outer).outcome
    assert code == 1, err
    assert out.startswith("recorded/input.py:7:1: RTF003 [*] [safe] `predict_no_signature` traced 3 times")
    assert "other/input.py" not in out and "traces:" not in err


def test_a_trace_file_that_matches_nothing_says_so(tmp_path: Path):
    outer = _two_plain_folders(tmp_path)
    code, out, err = run_cli("--check", "--traces", "other=recorded/t.json", "recorded", cwd=outer).outcome
    assert (code, out) == (0, "")
    assert "retrace-fix: traces: other=recorded/t.json applies to nothing: none of the files checked lies in other\n" in err
