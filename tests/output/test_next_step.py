"""The first run points to the next step: one line on stderr when only a recorded run can judge."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.support.cli_runner import run_cli

ROOT = Path(__file__).resolve().parents[2]
#: rebuilt from a public retracing report: `encode` retraces for every sequence length, and
#: nothing in its code says so (a static run has no fix and no diagnostic to offer)
PROGRAM = ROOT / "benchmarks" / "programs" / "sequence-lengths"
HINT = (
    "hint: 1 tf.function in 1 file can only be judged from a run of your program: "
    "retrace-fix --verify prog/ -- <your command> "
    "(or retrace-fix record -- <your command>, then --traces .retrace/traces.json)"
)


@pytest.fixture
def here(tmp_path, monkeypatch):
    shutil.copytree(PROGRAM, tmp_path / "prog", ignore=shutil.ignore_patterns("*.json"))
    monkeypatch.chdir(tmp_path)
    for name in [n for n in os.environ if n.startswith("RETRACE_FIX")]:
        monkeypatch.delenv(name)
    return tmp_path


def test_a_static_run_that_finds_nothing_says_what_to_run_next(here):
    code, out, err = run_cli("--jobs", "1", "--diff", "prog/").outcome
    assert (code, out) == (0, "")
    assert err == "0 files would change, 0 fixes available, 0 diagnostics, 0 errors\n" + HINT + "\n"


@pytest.mark.parametrize("mode", [[], ["--check"]])
def test_fix_and_check_runs_say_it_once_too(here, mode):
    _, _, err = run_cli("--jobs", "1", *mode, "prog/").outcome
    assert err.count("hint:") == 1 and err.endswith(HINT + "\n")


def test_counts_every_tf_function_once_over_several_paths(here):
    (here / "more.py").write_text(
        "import tensorflow as tf\n\n\n@tf.function\ndef a(x):\n    return x\n\n\n"
        "@tf.function(input_signature=[tf.TensorSpec([None])])\ndef signed(x):\n    return x\n\n\n"
        "b = tf.function(lambda x: x)\n\n\ndef c(x):\n    return x\n\n\nc = tf.function(c)\n",
        encoding="utf-8",
    )
    _, _, err = run_cli("--jobs", "1", "--diff", "prog/", "more.py").outcome
    hints = [line for line in err.splitlines() if line.startswith("hint:")]
    assert hints == [HINT.replace("1 tf.function in 1 file", "3 tf.functions in 2 files")
                     .replace("--verify prog/", "--verify prog/ more.py")]


@pytest.mark.parametrize("extra", [["--format", "json"], ["--format", "sarif"], ["--quiet"],
                                   ["--select", "RTF002"], ["--ignore", "RTF003,RTF004,RTF005,RTF008"]])
def test_never_in_machine_output_quiet_runs_or_without_trace_driven_codes(here, extra):
    _, _, err = run_cli("--jobs", "1", "--check", *extra, "prog/").outcome
    assert "hint" not in err


def test_never_with_traces(here):
    (here / "traces.json").write_text(
        '{"format": "retrace-fix-traces", "version": 1, "functions": []}', encoding="utf-8")
    code, _, err = run_cli("--jobs", "1", "--diff", "--traces", "traces.json", "prog/").outcome
    assert code == 0, err
    assert "hint" not in err


def test_never_without_a_tf_function_needing_traces(here):
    (here / "plain").mkdir()
    (here / "plain" / "a.py").write_text("def function(x):\n    return x.function\n", encoding="utf-8")
    (here / "plain" / "b.py").write_text(
        "import tensorflow as tf\n\n\n@tf.function(input_signature=[tf.TensorSpec([None])])\n"
        "def signed(x):\n    return x\n", encoding="utf-8")
    _, _, err = run_cli("--jobs", "1", "--diff", "plain/").outcome
    assert "hint" not in err


def test_never_on_standard_input(here):
    source = (here / "prog" / "encoder.py").read_bytes()
    code, out, err = run_cli("--jobs", "1", "--diff", "-", "--stdin-filename", "prog/encoder.py", stdin=source).outcome
    assert (code, out) == (0, "")
    assert "hint" not in err


def test_interactive_runs_say_it_once_after_the_summary(here):
    _, _, err = run_cli("--jobs", "1", "-i", "prog/").outcome
    assert err.endswith("0 of 0 hunks applied in 0 files, 0 diagnostics, 0 errors\n" + HINT + "\n")


def test_long_path_lists_are_not_repeated(here):
    names = [f"prog/{'x' * 30}_{i}.py" for i in range(3)]
    for name in names:
        shutil.copyfile(here / "prog" / "encoder.py", here / name)
    _, _, err = run_cli("--jobs", "1", "--check", *names).outcome
    assert "retrace-fix --verify PATH... -- <your command>" in err


def test_roots_whose_own_traces_apply_are_not_counted(here):
    for name in ("traced", "untraced"):
        (here / name / ".git").mkdir(parents=True)
        shutil.copyfile(here / "prog" / "encoder.py", here / name / "encoder.py")
    _, _, err = run_cli("--jobs", "1", "--diff", "traced/", "untraced/").outcome
    assert "hint: 2 tf.functions in 2 files" in err
    (here / "traced" / ".retrace").mkdir()
    (here / "traced" / ".retrace" / "traces.json").write_text(
        '{"format": "retrace-fix-traces", "version": 1, "functions": []}', encoding="utf-8")
    _, _, err = run_cli("--jobs", "1", "--diff", "traced/", "untraced/").outcome  # several roots: each uses its own traces
    assert "hint: 1 tf.function in 1 file" in err


def test_the_hint_names_a_script_with_a_main_guard_that_exists(here):
    (here / "train.py").write_text("import sys\n", encoding="utf-8")  # no __main__ guard: not named
    (here / "run_model.py").write_text("def main():\n    pass\n\n\nif __name__ == '__main__':\n    main()\n",
                                       encoding="utf-8")
    _, _, err = run_cli("--jobs", "1", "--diff", "prog/").outcome
    assert err.endswith(HINT.replace("<your command>", "python run_model.py") + "\n")


def test_the_hint_names_pytest_where_there_are_tests(here):
    (here / "tests").mkdir()
    (here / "tests" / "test_model.py").write_text("def test_x():\n    pass\n", encoding="utf-8")
    _, _, err = run_cli("--jobs", "1", "--diff", "prog/").outcome
    assert err.endswith(HINT.replace("<your command>", "python -m pytest") + "\n")
    assert "train.py" not in err
