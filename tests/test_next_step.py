"""The first run points to the next step: one line on stderr when only a recorded run can judge."""

from __future__ import annotations

import io
import os
import shutil
import sys
from pathlib import Path

import pytest

from retrace_fix.cli import main

ROOT = Path(__file__).resolve().parent.parent
#: rebuilt from a public retracing report: `encode` retraces for every sequence length, and
#: nothing in its code says so (a static run has no fix and no diagnostic to offer)
PROGRAM = ROOT / "benchmarks" / "programs" / "sequence-lengths"
HINT = (
    "hint: 1 tf.function in 1 file can only be judged from a run of your program: "
    "retrace-fix --verify prog/ -- python train.py "
    "(or retrace-fix record -- python train.py, then --traces .retrace/traces.json)"
)


@pytest.fixture
def here(tmp_path, monkeypatch):
    shutil.copytree(PROGRAM, tmp_path / "prog", ignore=shutil.ignore_patterns("*.json"))
    monkeypatch.chdir(tmp_path)
    for name in [n for n in os.environ if n.startswith("RETRACE_FIX")]:
        monkeypatch.delenv(name)
    return tmp_path


def run(capsys, *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(["--jobs", "1", *args])
    out, err = capsys.readouterr()
    return exit_info.value.code, out, err


def test_a_static_run_that_finds_nothing_says_what_to_run_next(here, capsys):
    code, out, err = run(capsys, "--diff", "prog/")
    assert (code, out) == (0, "")
    assert err == "0 files would change, 0 fixes available, 0 diagnostics, 0 errors\n" + HINT + "\n"


@pytest.mark.parametrize("mode", [[], ["--check"]])
def test_fix_and_check_runs_say_it_once_too(here, capsys, mode):
    _, _, err = run(capsys, *mode, "prog/")
    assert err.count("hint:") == 1 and err.endswith(HINT + "\n")


def test_counts_every_tf_function_once_over_several_paths(here, capsys):
    (here / "more.py").write_text(
        "import tensorflow as tf\n\n\n@tf.function\ndef a(x):\n    return x\n\n\n"
        "@tf.function(input_signature=[tf.TensorSpec([None])])\ndef signed(x):\n    return x\n\n\n"
        "b = tf.function(lambda x: x)\n\n\ndef c(x):\n    return x\n\n\nc = tf.function(c)\n",
        encoding="utf-8",
    )
    _, _, err = run(capsys, "--diff", "prog/", "more.py")
    hints = [line for line in err.splitlines() if line.startswith("hint:")]
    assert hints == [HINT.replace("1 tf.function in 1 file", "3 tf.functions in 2 files")
                     .replace("--verify prog/", "--verify prog/ more.py")]


@pytest.mark.parametrize("extra", [["--format", "json"], ["--format", "sarif"], ["--quiet"],
                                   ["--select", "RTF002"], ["--ignore", "RTF003,RTF004,RTF005,RTF008"]])
def test_never_in_machine_output_quiet_runs_or_without_trace_driven_codes(here, capsys, extra):
    _, _, err = run(capsys, "--check", *extra, "prog/")
    assert "hint" not in err


def test_never_with_traces(here, capsys):
    (here / "traces.json").write_text(
        '{"format": "retrace-fix-traces", "version": 1, "functions": []}', encoding="utf-8")
    code, _, err = run(capsys, "--diff", "--traces", "traces.json", "prog/")
    assert code == 0, err
    assert "hint" not in err


def test_never_without_a_tf_function_needing_traces(here, capsys):
    (here / "plain").mkdir()
    (here / "plain" / "a.py").write_text("def function(x):\n    return x.function\n", encoding="utf-8")
    (here / "plain" / "b.py").write_text(
        "import tensorflow as tf\n\n\n@tf.function(input_signature=[tf.TensorSpec([None])])\n"
        "def signed(x):\n    return x\n", encoding="utf-8")
    _, _, err = run(capsys, "--diff", "plain/")
    assert "hint" not in err


def test_never_on_standard_input(here, capsys, monkeypatch):
    source = (here / "prog" / "encoder.py").read_bytes()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(source), encoding="utf-8"))
    _, _, err = run(capsys, "--diff", "-", "--stdin-filename", "prog/encoder.py")
    assert "hint" not in err


def test_interactive_runs_say_it_once_after_the_summary(here, capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    _, _, err = run(capsys, "-i", "prog/")
    assert err.endswith("0 of 0 hunks applied in 0 files, 0 diagnostics, 0 errors\n" + HINT + "\n")


def test_long_path_lists_are_not_repeated(here, capsys):
    names = [f"prog/{'x' * 30}_{i}.py" for i in range(3)]
    for name in names:
        shutil.copyfile(here / "prog" / "encoder.py", here / name)
    _, _, err = run(capsys, "--check", *names)
    assert "retrace-fix --verify PATH... -- python train.py" in err


def test_roots_whose_own_traces_apply_are_not_counted(here, capsys):
    for name in ("traced", "untraced"):
        (here / name / ".git").mkdir(parents=True)
        shutil.copyfile(here / "prog" / "encoder.py", here / name / "encoder.py")
    _, _, err = run(capsys, "--diff", "traced/", "untraced/")
    assert "hint: 2 tf.functions in 2 files" in err
    (here / "traced" / ".retrace").mkdir()
    (here / "traced" / ".retrace" / "traces.json").write_text(
        '{"format": "retrace-fix-traces", "version": 1, "functions": []}', encoding="utf-8")
    _, _, err = run(capsys, "--diff", "traced/", "untraced/")  # several roots: each uses its own traces
    assert "hint: 1 tf.function in 1 file" in err
