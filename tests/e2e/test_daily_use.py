"""Daily use: standard input for editors, --show-fixes, help and usage, explain, .retrace/.

In-process through ``retrace_fix.cli.main``; no TensorFlow.
"""

from __future__ import annotations

import io
import os
import re
import shutil
import textwrap
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from retrace_fix import __version__
from retrace_fix.cli import USAGE_LINE, app
from tests.support.cli_runner import run_cli

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "golden"

RELAX = textwrap.dedent(
    """\
    import tensorflow as tf


    @tf.function(experimental_relax_shapes=True)
    def total(x):
        return tf.reduce_sum(x)
    """
)
RELAX_FIXED = RELAX.replace("experimental_relax_shapes", "reduce_retracing")
RELAX_DIFF = (
    "@@ -1,6 +1,6 @@\n"
    " import tensorflow as tf\n"
    " \n"
    " \n"
    "-@tf.function(experimental_relax_shapes=True)\n"
    "+@tf.function(reduce_retracing=True)\n"
    " def total(x):\n"
    "     return tf.reduce_sum(x)\n"
)
RELAX_FINDING = "RTF004 [*] [safe] `experimental_relax_shapes` is the deprecated name of `reduce_retracing`"


@pytest.fixture
def here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name in [n for n in os.environ if n.startswith("RETRACE_FIX")]:
        monkeypatch.delenv(name)
    return tmp_path


def cli(*args: str, stdin: bytes | None = None) -> tuple[int, bytes, str]:
    """``retrace-fix ARGS`` (tests/support/cli_runner.py): (exit code, stdout bytes, stderr text)."""
    result = run_cli(*args, stdin=stdin)
    return result.returncode, result.stdout_bytes, result.stderr


# --------------------------------------------------------------------------- standard input


def test_diff_of_stdin_is_named_by_stdin_filename_and_writes_nothing(here):
    code, out, err = cli("--diff", "-", "--stdin-filename", "pkg/relax.py",
                         stdin=RELAX.encode())
    assert code == 1
    assert out.decode() == "--- a/pkg/relax.py\n+++ b/pkg/relax.py\n" + RELAX_DIFF
    assert err == "1 file would change, 1 fix available, 0 diagnostics, 0 errors\n"
    assert list(here.iterdir()) == []  # the name is only a name


def test_fix_mode_writes_the_fixed_source_to_stdout(here):
    code, out, err = cli("-", "--stdin-filename", "relax.py", stdin=RELAX.encode())
    assert code == 0
    assert out == RELAX_FIXED.encode()
    assert err == "1 file changed, 1 fix applied, 0 diagnostics, 0 errors\n"
    assert list(here.iterdir()) == []


def test_stdin_filename_alone_reads_stdin_as_ruff_does(here):
    code, out, _ = cli("--stdin-filename", "relax.py", stdin=RELAX.encode())
    assert code == 0 and out == RELAX_FIXED.encode()


def test_fix_mode_gives_back_the_exact_bytes_when_nothing_changes(here):
    source = "\ufeff# -*- coding: utf-8 -*-\r\nimport tensorflow as tf\r\n\r\nx = tf.constant(1)  # caf\u00e9\r\n"
    code, out, err = cli("-", "--stdin-filename", "x.py", stdin=source.encode("utf-8"))
    assert code == 0 and out == source.encode("utf-8")
    assert err == "0 files changed, 0 fixes applied, 0 diagnostics, 0 errors\n"


def test_fix_mode_keeps_crlf_and_the_encoding_of_the_input(here):
    latin = "# -*- coding: latin-1 -*-\n# caf\u00e9\n" + RELAX
    code, out, _ = cli("-", "--stdin-filename", "x.py",
                       stdin=latin.replace("\n", "\r\n").encode("latin-1"))
    assert code == 0
    assert out == ("# -*- coding: latin-1 -*-\n# caf\u00e9\n" + RELAX_FIXED).replace("\n", "\r\n").encode("latin-1")


def test_fix_mode_gives_the_source_back_when_it_does_not_parse(here):
    broken = b"import tensorflow as tf\n\n@tf.function(\ndef f(:\n"
    code, out, err = cli("-", "--stdin-filename", "pkg/x.py", stdin=broken)
    assert code == 2
    assert out == broken  # an editor replacing its buffer with the output loses nothing
    assert "error: pkg/x.py:4:" in err and "cannot parse" in err


def test_check_of_unnamed_stdin_calls_it_dash(here):
    code, out, _ = cli("--check", "-", stdin=RELAX.encode())
    assert code == 1
    assert out.decode() == f"-:4:2: {RELAX_FINDING}\n"


def test_json_of_stdin_names_the_file(here):
    import json

    code, out, _ = cli("--check", "--format", "json", "-", "--stdin-filename", "a/b.py",
                       stdin=RELAX.encode())
    assert code == 1
    payload = json.loads(out)
    assert [f["path"] for f in payload["files"]] == ["a/b.py"]
    assert payload["files"][0]["findings"][0]["code"] == "RTF004"


def project_with_config(root: Path) -> Path:
    (root / "proj" / "generated").mkdir(parents=True)
    (root / "proj" / "pyproject.toml").write_text(
        '[tool.retrace-fix]\nexclude = ["generated/"]\nselect = ["RTF002"]\n', encoding="utf-8")
    return root / "proj"


def test_the_name_decides_the_config_even_from_another_directory(here, monkeypatch):
    project_with_config(here)
    elsewhere = here / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # editors run the command from anywhere
    code, out, _ = cli("--diff", "-", "--stdin-filename", "../proj/model.py",
                       stdin=RELAX.encode())
    assert (code, out) == (0, b"")  # select = ["RTF002"] in proj/: RTF004 is not asked for
    code, out, _ = cli("--diff", "-", "--stdin-filename", "../other.py",
                       stdin=RELAX.encode())
    assert code == 1 and out.startswith(f"--- a/{here / 'other.py'}\n".encode())  # as for a file named so


@pytest.mark.parametrize("name", ["proj/generated/relax.py", "proj/.venv/relax.py", "proj/build/relax.py"])
def test_an_excluded_name_comes_back_untouched(here, name):
    project = project_with_config(here)
    (project / ".git").mkdir()
    (project / ".gitignore").write_text("build/\n", encoding="utf-8")
    (project / "pyproject.toml").write_text('[tool.retrace-fix]\nexclude = ["generated/"]\n', encoding="utf-8")
    code, out, err = cli("-", "--stdin-filename", name, stdin=RELAX.encode())
    assert (code, out) == (0, RELAX.encode())
    code, out, _ = cli("--diff", "-", "--stdin-filename", name, stdin=RELAX.encode())
    assert (code, out) == (0, b"")
    code, out, _ = cli("--diff", "-", "--stdin-filename", "proj/relax.py",
                       stdin=RELAX.encode())
    assert code == 1  # the same source under a name that is not excluded


def test_the_name_decides_which_traces_apply(here):
    case = GOLDEN / "input-signature" / "alias-spelling"
    shutil.copyfile(case / "traces.json", here / "traces.json")
    source = (case / "input.py").read_bytes()
    code, out, _ = cli("-", "--stdin-filename", "input.py", "--traces", "traces.json",
                       stdin=source)
    assert code == 0 and out == (case / "expected.py").read_bytes()
    code, out, _ = cli("-", "--stdin-filename", "other.py", "--traces", "traces.json",
                       stdin=source)
    assert code == 0 and out == source  # the traces were recorded for input.py


@pytest.mark.parametrize(
    "args, message",
    [
        (["--diff", "-", "a.py"], "`-` (standard input) cannot be combined with other paths"),
        (["--diff", "--stdin-filename", "x.py", "a.py"], "--stdin-filename names the source read from standard input"),
        (["-i", "-"], "--interactive reads its answers from standard input"),
        (["--patch-dir", "out", "-"], "--patch-dir cannot be combined with `-`"),
        (["--branch", "fixes", "-"], "--branch cannot be combined with `-`"),
        (["--format", "json", "-"], "--format json with `-` needs --diff or --check"),
        (["--stdin-filename", "", "-"], "--stdin-filename needs a file name"),
    ],
)
def test_stdin_misuse_is_one_line_and_exit_2(here, args, message):
    code, out, err = cli(*args, stdin=RELAX.encode())
    assert code == 2 and out == b""
    assert err.splitlines() == [f"retrace-fix: error: {message}" + err.splitlines()[0].split(message, 1)[1]]
    assert list(here.iterdir()) == []


# --------------------------------------------------------------------------- --show-fixes


def test_show_fixes_lists_what_fix_mode_applied(here):
    (here / "relax.py").write_text(RELAX, encoding="utf-8")
    (here / "keep.py").write_text(RELAX, encoding="utf-8")
    code, out, _ = cli("keep.py")
    assert (code, out) == (0, b"")  # without it, fix mode lists only what is left to do by hand
    code, out, _ = cli("--show-fixes", "relax.py")
    assert code == 0
    assert out.decode() == f"relax.py:4:2: {RELAX_FINDING}\n"
    assert (here / "relax.py").read_text(encoding="utf-8") == RELAX_FIXED


def test_show_fixes_goes_to_stderr_when_stdout_carries_the_source(here):
    code, out, err = cli("--show-fixes", "-", "--stdin-filename", "relax.py",
                         stdin=RELAX.encode())
    assert code == 0 and out == RELAX_FIXED.encode()
    assert err.splitlines()[0] == f"relax.py:4:2: {RELAX_FINDING}"


@pytest.mark.parametrize("mode", ["--diff", "--check", "-i"])
def test_show_fixes_outside_fix_mode_is_an_error(here, mode):
    (here / "relax.py").write_text(RELAX, encoding="utf-8")
    code, _, err = cli(mode, "--show-fixes", "relax.py")
    assert code == 2
    assert err.startswith("retrace-fix: error: --show-fixes lists the fixes a fix run applies;")


# --------------------------------------------------------------------------- help, usage, version


def test_no_arguments_prints_one_usage_line():
    code, out, err = cli()
    assert (code, out, err) == (2, b"", USAGE_LINE + "\n")
    assert "error" not in err.lower() and len(USAGE_LINE) <= 100


def test_version_is_listed_in_help_and_works_both_ways():
    code, out, _ = cli("--help")
    assert code == 0 and re.search(rb"^  --version +Show the version and exit\.$", out, re.M)
    code, out, _ = cli("--version")
    assert (code, out) == (0, f"retrace-fix {__version__}\n".encode())
    result = CliRunner().invoke(app, ["--version"])  # through typer too, not only main()'s shortcut
    assert (result.exit_code, result.output) == (0, f"retrace-fix {__version__}\n")


def test_help_lists_every_command_summary_in_full(monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    code, out, _ = cli("--help")
    assert code == 0
    commands = out.decode().split("Commands:\n", 1)[1]
    listed: dict[str, str] = {}
    for line in commands.splitlines():
        match = re.match(r"^  (\S+)\s+(.*)$", line)
        if match:
            name = match.group(1)
            listed[name] = match.group(2)
        elif line.strip():
            listed[name] += " " + line.strip()
    group = typer.main.get_command(app)
    assert sorted(listed) == sorted(group.commands)
    for name, command in group.commands.items():
        assert command.short_help, f"{name}: give it a short_help (click cuts a long help at 45 characters)"
        assert listed[name] == command.short_help
        assert not listed[name].endswith("...")


def test_report_help_lists_only_the_formats_report_accepts():
    code, out, _ = cli("report", "--help")
    assert code == 0
    assert b"--format <text|json>" in out and b"sarif" not in out
    code, _, err = cli("report", "--format", "sarif", "t.json")
    assert code == 2 and "sarif" in err


# --------------------------------------------------------------------------- explain


def test_explain_into_a_pipe_is_plain_text():
    code, out, _ = cli("explain", "RTF002")
    text = out.decode()
    assert code == 0
    assert "``" not in text and "::" not in text
    assert text.startswith("RTF002 predict-to-call.\n\nWhat it does\n    Inside a tf.function, rewrites `model.predict(x, ...)`")
    assert "\nExample\n    Before:\n\n        model = tf.keras.Sequential([tf.keras.layers.Dense(1)])\n" in text
    assert "\x1b[" not in text


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_explain_on_a_terminal_renders_the_markdown_in_colour(monkeypatch):
    from retrace_fix.commands.explain import explain

    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    monkeypatch.setenv("COLUMNS", "100")
    out = FakeTerminal()
    assert explain("RTF002", out=out) == 0
    text = out.getvalue()
    assert "\x1b[" in text
    plain = re.sub(r"\x1b\[[0-9;]*m", "", text)
    assert "``" not in plain and "`model.predict" not in plain  # inline code is styled, not quoted
    assert "RTF002 predict-to-call" in plain and "What it does" in plain
    assert "return model(x, training=False)" in plain


# --------------------------------------------------------------------------- .retrace/ and site/


def test_a_retrace_directory_the_tool_creates_ignores_itself(tmp_path):
    from retrace_fix.traces.model import TraceSet, save_trace_file

    save_trace_file(TraceSet(), tmp_path / "proj" / ".retrace" / "traces.json")
    assert (tmp_path / "proj" / ".retrace" / ".gitignore").read_text() == "# Automatically created by retrace-fix.\n*\n"
    assert not (tmp_path / "proj" / ".gitignore").exists()
    if shutil.which("git"):
        import subprocess

        subprocess.run(["git", "init", "-q", str(tmp_path / "proj")], check=True)
        status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=tmp_path / "proj",
                                capture_output=True, text=True, check=True)
        assert status.stdout == ""


def test_an_existing_retrace_directory_is_left_as_it_is(tmp_path):
    from retrace_fix.traces.model import TraceSet, save_trace_file

    (tmp_path / ".retrace").mkdir()
    save_trace_file(TraceSet(), tmp_path / ".retrace" / "traces.json")
    assert sorted(p.name for p in (tmp_path / ".retrace").iterdir()) == ["traces.json"]
    save_trace_file(TraceSet(), tmp_path / "other" / "traces.json")  # not a .retrace directory
    assert sorted(p.name for p in (tmp_path / "other").iterdir()) == ["traces.json"]


def test_this_repository_ignores_the_built_site():
    ignored = (ROOT / ".gitignore").read_text(encoding="utf-8").splitlines()
    assert "site/" in ignored and ".retrace/" in ignored
