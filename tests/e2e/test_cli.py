"""The CLI contract: modes, exit codes, output ordering, config, suppressions, errors."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from tests.support.cli_runner import run_cli

PREDICT_SRC = textwrap.dedent(
    """\
    import tensorflow as tf

    model = tf.keras.Sequential([tf.keras.layers.Dense(1)])


    @tf.function
    def infer(x):
        return model.predict(x)
    """
)
RELAX_SRC = textwrap.dedent(
    """\
    import tensorflow as tf


    @tf.function(experimental_relax_shapes=True)
    def total(x):
        return tf.reduce_sum(x)
    """
)
CLEAN_SRC = "import tensorflow as tf\n\n\n@tf.function\ndef f(x):\n    return x + 1\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "predict.py").write_text(PREDICT_SRC)
    (tmp_path / "pkg" / "relax.py").write_text(RELAX_SRC)
    (tmp_path / "pkg" / "clean.py").write_text(CLEAN_SRC)
    return tmp_path


def test_diff_prints_sorted_diff_writes_nothing_and_exits_1(project: Path):
    before = {p: p.read_bytes() for p in project.rglob("*.py")}
    proc = run_cli("--diff", "pkg/", cwd=project)
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout == (
        "--- a/pkg/predict.py\n"
        "+++ b/pkg/predict.py\n"
        "@@ -5,4 +5,4 @@\n"
        " \n"
        " @tf.function\n"
        " def infer(x):\n"
        "-    return model.predict(x)\n"
        "+    return model(x, training=False)\n"
        "--- a/pkg/relax.py\n"
        "+++ b/pkg/relax.py\n"
        "@@ -1,6 +1,6 @@\n"
        " import tensorflow as tf\n"
        " \n"
        " \n"
        "-@tf.function(experimental_relax_shapes=True)\n"
        "+@tf.function(reduce_retracing=True)\n"
        " def total(x):\n"
        "     return tf.reduce_sum(x)\n"
    )
    assert "2 files would change, 2 fixes available, 0 diagnostics, 0 errors" in proc.stderr
    assert {p: p.read_bytes() for p in project.rglob("*.py")} == before


def test_diff_on_clean_tree_prints_nothing_and_exits_0(project: Path):
    proc = run_cli("--diff", "pkg/clean.py", cwd=project)
    assert proc.returncode == 0
    assert proc.stdout == ""


def test_fix_in_place_then_second_run_is_empty(project: Path):
    proc = run_cli("pkg", cwd=project)
    assert proc.returncode == 0, proc.stderr
    assert "2 files changed, 2 fixes applied" in proc.stderr
    assert "return model(x, training=False)" in (project / "pkg" / "predict.py").read_text()
    assert "reduce_retracing=True" in (project / "pkg" / "relax.py").read_text()
    assert (project / "pkg" / "clean.py").read_text() == CLEAN_SRC
    again = run_cli("--diff", "pkg", cwd=project)
    assert again.returncode == 0 and again.stdout == ""


def test_fix_keeps_file_mode_crlf_and_bom(tmp_path: Path):
    path = tmp_path / "crlf.py"
    data = ("\ufeff" + RELAX_SRC).replace("\n", "\r\n").encode("utf-8")
    path.write_bytes(data)
    path.chmod(0o750)
    proc = run_cli("crlf.py", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    new = path.read_bytes()
    assert new == data.replace(b"experimental_relax_shapes", b"reduce_retracing")
    assert (path.stat().st_mode & 0o777) == 0o750


def test_check_lists_findings_and_exits_1(project: Path):
    proc = run_cli("--check", "pkg", cwd=project)
    assert proc.returncode == 1
    assert proc.stdout.splitlines() == [
        "pkg/predict.py:8:12: RTF002 [*] [safe] Keras `predict` inside a tf.function fails at trace time; call the model directly",
        "pkg/relax.py:4:2: RTF004 [*] [safe] `experimental_relax_shapes` is the deprecated name of `reduce_retracing`",
    ]


def test_check_json_format(project: Path):
    proc = run_cli("--check", "--format", "json", "pkg", cwd=project)
    assert proc.returncode == 1
    payload = json.loads(proc.stdout)
    assert payload["mode"] == "check"
    assert [f["path"] for f in payload["files"]] == ["pkg/predict.py", "pkg/relax.py"]
    finding = payload["files"][0]["findings"][0]
    assert finding["code"] == "RTF002" and finding["tier"] == "safe" and finding["line"] == 8
    assert payload["summary"]["files_changed"] == 2


def test_jobs_1_and_2_give_identical_output(tmp_path: Path):
    for i in range(12):
        (tmp_path / f"m{i:02d}.py").write_text(PREDICT_SRC if i % 2 else RELAX_SRC)
    (tmp_path / "broken.py").write_text("def f(:\n")
    one = run_cli("--diff", "--check-syntax", "--jobs", "1", ".", cwd=tmp_path)
    two = run_cli("--diff", "--check-syntax", "--jobs", "2", ".", cwd=tmp_path)
    assert one.returncode == two.returncode == 2
    assert one.stdout == two.stdout and one.stdout.count("--- a/") == 12
    assert one.stderr == two.stderr


def test_unparseable_file_is_reported_others_processed_exit_2(project: Path):
    (project / "pkg" / "bad.py").write_text("x = (\n")
    (project / "pkg" / "bad_target.py").write_text("import tensorflow as tf\n@tf.function\ndef f(:\n")
    proc = run_cli("--diff", "pkg", cwd=project)
    assert proc.returncode == 2
    assert "error: pkg/bad_target.py:" in proc.stderr and "cannot parse" in proc.stderr
    assert "pkg/bad.py" not in proc.stderr  # nothing to rewrite there: never parsed
    assert "--- a/pkg/predict.py" in proc.stdout  # the others were still processed
    assert "Traceback" not in proc.stderr
    checked = run_cli("--diff", "--check-syntax", "pkg", cwd=project)
    assert checked.returncode == 2 and "error: pkg/bad.py:1:5: cannot parse: '(' was never closed" in checked.stderr
    assert checked.stdout == proc.stdout


def test_files_without_targets_are_not_parsed_unless_asked(project: Path):
    (project / "pkg" / "bad.py").write_text("x = (\n")
    proc = run_cli("--check", "pkg/bad.py", cwd=project)
    assert proc.returncode == 0 and "bad.py" not in proc.stderr
    proc = run_cli("--check", "--check-syntax", "pkg/bad.py", cwd=project)
    assert proc.returncode == 2 and "error: pkg/bad.py:1:5: cannot parse" in proc.stderr
    (project / "pyproject.toml").write_text("[tool.retrace-fix]\ncheck-syntax = true\n")
    assert run_cli("--check", "pkg/bad.py", cwd=project).returncode == 2
    assert run_cli("--check", "--no-check-syntax", "pkg/bad.py", cwd=project).returncode == 0


def test_undecodable_file_is_reported(tmp_path: Path):
    (tmp_path / "latin.py").write_bytes(b"x = '\xff\xfe'\n")
    proc = run_cli("--check", ".", cwd=tmp_path)
    assert proc.returncode == 2
    assert "latin.py:1: cannot decode" in proc.stderr


@pytest.mark.parametrize(
    "args, message",
    [
        (["--diff", "missing/"], "missing/: no such file or directory"),
        (["--diff", "--check", "."], "--diff and --check cannot be combined"),
        (["--select", "XYZ9", "."], "unknown code `XYZ9`"),
        (["--jobs", "0", "."], "--jobs"),
        (["--format", "yaml", "."], "yaml"),
        (["--traces", "nope.json", "."], "nope.json"),
        (["explain", "RTF999"], "unknown code `RTF999`"),
    ],
)
def test_bad_arguments_exit_2_with_one_line_message(tmp_path: Path, args, message):
    proc = run_cli(*args, cwd=tmp_path)
    assert proc.returncode == 2
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr
    assert len([line for line in proc.stderr.splitlines() if line.strip()]) == 1


def test_select_and_ignore(project: Path):
    only_predict = run_cli("--check", "--select", "RTF002", "pkg", cwd=project)
    assert [line.split(": ")[1].split()[0] for line in only_predict.stdout.splitlines()] == ["RTF002"]
    not_predict = run_cli("--check", "--ignore", "RTF002", "pkg", cwd=project)
    assert "RTF002" not in not_predict.stdout and "RTF004" in not_predict.stdout


def test_config_select_exclude_and_unsafe(project: Path):
    (project / "pyproject.toml").write_text(
        '[tool.retrace-fix]\nselect = ["RTF004"]\nexclude = ["pkg/relax.py"]\n'
    )
    proc = run_cli("--check", ".", cwd=project)
    assert proc.returncode == 0 and proc.stdout == ""
    (project / "pyproject.toml").write_text('[tool.retrace-fix]\nbogus = 1\n')
    bad = run_cli("--check", ".", cwd=project)
    assert bad.returncode == 2 and "unknown key `bogus`" in bad.stderr


def test_gitignore_and_exclude_are_honoured(project: Path):
    (project / ".git").mkdir()
    (project / ".gitignore").write_text("pkg/relax.py\n")
    proc = run_cli("--diff", ".", cwd=project)
    assert "relax.py" not in proc.stdout and "predict.py" in proc.stdout
    proc = run_cli("--diff", "--exclude", "pkg/predict.py", ".", cwd=project)
    assert proc.returncode == 0 and proc.stdout == ""
    # a file named explicitly is processed even when ignored
    proc = run_cli("--diff", "pkg/relax.py", cwd=project)
    assert "relax.py" in proc.stdout


def test_suppression_comment(tmp_path: Path):
    (tmp_path / "s.py").write_text(PREDICT_SRC.replace("model.predict(x)", "model.predict(x)  # retrace-fix: ignore[RTF002]"))
    proc = run_cli("--diff", "s.py", cwd=tmp_path)
    assert proc.returncode == 0 and proc.stdout == ""


def test_codemods_and_explain(tmp_path: Path):
    listing = run_cli("codemods", cwd=tmp_path)
    assert listing.returncode == 0
    assert any(line.startswith("RTF002  predict-to-call") for line in listing.stdout.splitlines())
    explain = run_cli("explain", "rtf002", cwd=tmp_path)
    assert explain.returncode == 0
    for heading in ("What it does", "Why it retraces", "Example", "Fix safety"):
        assert heading in explain.stdout


def test_diff_works_next_to_subcommands(project: Path):
    # a directory that happens to share nothing with subcommand names; `--diff` first
    proc = run_cli("--diff", "pkg/", cwd=project)
    assert proc.returncode == 1
    help_proc = run_cli("--help", cwd=project)
    assert help_proc.returncode == 0
    for command in ("record", "report", "codemods", "explain"):
        assert command in help_proc.stdout


def test_no_paths_is_an_error(tmp_path: Path):
    proc = run_cli("--diff", cwd=tmp_path)
    assert proc.returncode == 2 and "no paths given" in proc.stderr


def test_non_python_file_named_is_reported(tmp_path: Path):
    (tmp_path / "notes.txt").write_text("hello")
    proc = run_cli("--check", "notes.txt", cwd=tmp_path)
    assert proc.returncode == 2 and "notes.txt: not a Python file" in proc.stderr


# A handler registered before the command runs (so it runs after the command's own): what the
# interpreter's last garbage collection will find to look at, and the command's output so far.
_AT_EXIT_PROBE = """\
import atexit, gc, sys
atexit.register(lambda: print("frozen at exit:", gc.get_freeze_count() > 0, file=sys.stderr))
from retrace_fix.cli import main
sys.argv = ["retrace-fix", *sys.argv[1:]]
main()
"""


def test_a_command_of_its_own_process_leaves_the_heap_out_of_the_last_collection(project, monkeypatch):
    """Run as the process's own command (``argv`` not given), the heap is frozen as the process
    exits, after the command's exit handlers: the interpreter's last collection looks at nothing
    (0.3 s of a ``--scheduler local`` run); the output is whole.  Called with ``argv`` (a program or
    a test calling it in its own process), nothing of that process is frozen."""
    import subprocess
    import sys

    (project / "pkg" / "relax.py").write_text(RELAX_SRC)
    done = subprocess.run([sys.executable, "-c", _AT_EXIT_PROBE, "--check", "pkg"], cwd=project,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stderr
    assert "RTF004" in done.stdout and done.stderr.endswith("frozen at exit: True\n")
    import atexit
    import gc

    registered: list[object] = []
    monkeypatch.setattr(atexit, "register", registered.append)
    assert run_cli("--check", "pkg", cwd=project).returncode == 1
    assert gc.freeze not in registered
