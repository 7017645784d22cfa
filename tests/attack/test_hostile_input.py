"""Hostile and odd input, through the command line.

Every case: a clear ``path:line: reason`` message where something cannot be
processed, the right exit code (2 for a file that cannot be read or parsed, and
the rest is still processed; 1 for ``--diff`` with a diff; 0 when clean), and
nothing else affected: a fixable file next to the odd one is still fixed.

Most cases run the CLI in this process (tests/support/cli_runner.py) with ``--jobs 1``; the
ones that could crash an interpreter (deep nesting) or hang one (a FIFO, a symlink loop) run
it in a forked copy of this process with a timeout (``run_cli_forked``), and the one about
the real standard streams' encoding runs ``python -m retrace_fix`` in a subprocess.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.support.cli_runner import run_cli, run_cli_forked

RELAX_SRC = textwrap.dedent(
    """\
    import tensorflow as tf


    @tf.function(experimental_relax_shapes=True)
    def total(x):
        return tf.reduce_sum(x)
    """
)
RELAX_FIXED = RELAX_SRC.replace("experimental_relax_shapes", "reduce_retracing")


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A project with one fixable file, ``good.py``."""
    (tmp_path / "good.py").write_text(RELAX_SRC)
    return tmp_path


def good_was_fixed(tree: Path) -> bool:
    return (tree / "good.py").read_text() == RELAX_FIXED


def no_traceback(err: str) -> None:
    assert "Traceback" not in err


# ----------------------------------------------------------------------------- syntax


def test_syntax_errors_reported_with_position_others_fixed(tree):
    (tree / "broken_target.py").write_text("import tensorflow as tf\n\n@tf.function\ndef f(:\n    pass\n")
    (tree / "broken_plain.py").write_text("x = (\n")  # nothing to rewrite: CPython's check reports it
    code, out, err = run_cli("--jobs", "1", "--check-syntax", ".", cwd=tree).outcome
    assert code == 2
    # a file with targets is offered to LibCST too; it refuses it, and the error is where CPython locates it
    assert "error: broken_target.py:4:7: cannot parse: invalid syntax" in err
    assert "error: broken_plain.py:1:5: cannot parse: '(' was never closed" in err
    assert good_was_fixed(tree)
    assert (tree / "broken_plain.py").read_text() == "x = (\n"
    no_traceback(err)


def test_python2_code_is_reported_not_rewritten(tree):
    (tree / "py2.py").write_text('print "hello"\nexec "x = 1"\n')
    (tree / "py2_target.py").write_text(
        "import tensorflow as tf\n\n@tf.function(experimental_relax_shapes=True)\ndef f(x):\n"
        "    print 'tracing'\n    return x\n"
    )
    code, out, err = run_cli("--jobs", "1", "--diff", "--check-syntax", ".", cwd=tree).outcome
    assert code == 2
    assert "error: py2.py:1:1: cannot parse: Missing parentheses in call to 'print'" in err
    assert "error: py2_target.py:" in err and "py2_target.py:1: " not in err
    assert "+++ b/good.py" in out and "py2" not in out
    no_traceback(err)


def test_nul_byte_is_a_parse_error(tree):
    (tree / "nul.py").write_bytes(b"x = 1\ny = '\x00'\n")
    code, out, err = run_cli("--jobs", "1", "--check-syntax", ".", cwd=tree).outcome
    assert code == 2
    assert "error: nul.py:2:6: cannot parse: source contains a NUL byte" in err
    assert good_was_fixed(tree)


# ----------------------------------------------------------------------------- encodings


def test_undecodable_bytes_reported_with_line(tree):
    (tree / "bad.py").write_bytes(b"x = 1\ny = '\xff\xfe'\n")
    code, out, err = run_cli("--jobs", "1", ".", cwd=tree).outcome
    assert code == 2
    assert "error: bad.py:2: cannot decode: 'utf-8' codec can't decode byte 0xff" in err
    assert good_was_fixed(tree)


def test_unknown_coding_cookie_reported(tree):
    (tree / "cookie.py").write_bytes(b"# -*- coding: klingon -*-\nx = 1\n")
    code, out, err = run_cli("--jobs", "1", ".", cwd=tree).outcome
    assert code == 2 and "error: cookie.py:1: cannot decode: unknown encoding: klingon" in err
    assert good_was_fixed(tree)


def test_latin1_coding_cookie_survives_byte_exactly(tmp_path):
    original = ("# -*- coding: latin-1 -*-\n# caf\xe9 cr\xe8me\n" + RELAX_SRC + "NAME = 'na\xefve'\n").encode("latin-1")
    (tmp_path / "latin.py").write_bytes(original)
    code, out, err = run_cli("--jobs", "1", "--diff", "latin.py", cwd=tmp_path).outcome
    assert code == 1 and "+@tf.function(reduce_retracing=True)" in out
    code, out, err = run_cli("--jobs", "1", "latin.py", cwd=tmp_path).outcome
    assert code == 0, err
    assert (tmp_path / "latin.py").read_bytes() == original.replace(b"experimental_relax_shapes", b"reduce_retracing")
    assert b"caf\xe9" in (tmp_path / "latin.py").read_bytes()


def test_bom_kept(tmp_path):
    original = ("\ufeff# ünïcode\n" + RELAX_SRC).encode("utf-8")
    (tmp_path / "bom.py").write_bytes(original)
    code, out, err = run_cli("--jobs", "1", ".", cwd=tmp_path).outcome
    assert code == 0, err
    assert (tmp_path / "bom.py").read_bytes() == original.replace(b"experimental_relax_shapes", b"reduce_retracing")


# ----------------------------------------------------------------------------- layout


def test_crlf_and_mixed_line_endings_kept(tmp_path):
    crlf = RELAX_SRC.replace("\n", "\r\n").encode()
    lines = RELAX_SRC.splitlines(keepends=True)
    mixed = "".join(line.replace("\n", "\r\n") if i % 2 else line for i, line in enumerate(lines)).encode()
    (tmp_path / "crlf.py").write_bytes(crlf)
    (tmp_path / "mixed.py").write_bytes(mixed)
    code, out, err = run_cli("--jobs", "1", ".", cwd=tmp_path).outcome
    assert code == 0, err
    assert (tmp_path / "crlf.py").read_bytes() == crlf.replace(b"experimental_relax_shapes", b"reduce_retracing")
    assert (tmp_path / "mixed.py").read_bytes() == mixed.replace(b"experimental_relax_shapes", b"reduce_retracing")
    code, out, err = run_cli("--jobs", "1", "--diff", ".", cwd=tmp_path).outcome
    assert (code, out) == (0, "")


def test_tabs_and_form_feeds(tmp_path):
    source = RELAX_SRC.replace("    return", "\treturn") + "\f\n\x0c# section two\ndef later():\n\treturn 1\n"
    (tmp_path / "tabs.py").write_text(source)
    code, out, err = run_cli("--jobs", "1", "--diff", ".", cwd=tmp_path).outcome
    assert code == 1
    # the diff is split on newlines only: the form feed lines are not cut in two
    assert out.count("\\ No newline at end of file") == 0
    assert all(line[:1] in ("-", "+", " ", "@") for line in out.splitlines(keepends=True)[2:] if line != "\n")
    code, out, err = run_cli("--jobs", "1", ".", cwd=tmp_path).outcome
    assert code == 0
    assert (tmp_path / "tabs.py").read_text() == source.replace("experimental_relax_shapes", "reduce_retracing")


def test_empty_and_comment_only_files(tree):
    (tree / "empty.py").write_bytes(b"")
    (tree / "comments.py").write_text("# just a comment\n\n\n")
    (tree / "__init__.py").write_text("")
    code, out, err = run_cli("--jobs", "1", "--check", "empty.py", "comments.py", "__init__.py", cwd=tree).outcome
    assert (code, out) == (0, "")
    assert "0 errors" in err


# ----------------------------------------------------------------------------- size and depth


def test_ten_megabyte_file(tree):
    rows = ",\n".join(f"    ({i}, {i * 7 % 1000}, 'token_{i}')" for i in range(300_000))
    big = f"TABLE = [\n{rows},\n]\n"
    assert len(big) > 10_000_000
    (tree / "big_table.py").write_text(big)
    code, out, err = run_cli("--jobs", "1", ".", cwd=tree).outcome
    assert code == 0, err
    assert good_was_fixed(tree)
    assert (tree / "big_table.py").read_text() == big


def test_large_file_with_a_target_is_parsed_in_a_child(tmp_path):
    # over RISKY_SIZE: LibCST runs in a forked child with a memory cap and a time limit
    filler = "x" * 2_300_000
    source = RELAX_SRC + f'\nDATA = "{filler}"\n'
    (tmp_path / "large.py").write_text(source)
    code, out, err = run_cli("--jobs", "1", ".", cwd=tmp_path).outcome
    assert code == 0, err
    assert (tmp_path / "large.py").read_text() == source.replace("experimental_relax_shapes", "reduce_retracing")


def test_deep_nesting_reported_or_processed_never_crashes(tree):
    # CPython refuses 5,000 nested brackets: reported without ever reaching LibCST
    # (whose parser would overflow the C stack); 300 levels in a file without targets too
    (tree / "deep_parens.py").write_text(
        "import tensorflow as tf\n\n@tf.function\ndef f(x):\n    return " + "(" * 5000 + "x" + ")" * 5000 + "\n"
    )
    (tree / "deep_plain.py").write_text("y = " + "[" * 300 + "]" * 300 + "\n")
    (tree / "deep_unary.py").write_text("import tensorflow as tf\n@tf.function\ndef f(x):\n    return " + "-" * 30000 + "x\n")
    # valid Python that LibCST nests one level per operand: parsed in a child with a big stack
    (tree / "long_and.py").write_text(
        "import tensorflow as tf\n\n@tf.function(experimental_relax_shapes=True)\ndef f(x):\n    return "
        + " and ".join(["x"] * 20000) + "\n"
    )
    (tree / "long_sum.py").write_text(
        "import tensorflow as tf\n\n@tf.function(experimental_relax_shapes=True)\ndef f(x):\n    return "
        + " + ".join(["x"] * 1000) + "\n"  # over 600 already fails in this process's stack: fixed in the child
    )
    proc = run_cli_forked("--diff", "--check-syntax", ".", cwd=tree, timeout=240)
    assert proc.returncode == 2, proc.stderr
    no_traceback(proc.stderr)
    assert "error: deep_parens.py:5:" in proc.stderr and "too many nested parentheses" in proc.stderr
    assert "error: deep_plain.py:1:" in proc.stderr and "too many nested parentheses" in proc.stderr
    assert "error: deep_unary.py:1:1: cannot parse: nested too deeply" in proc.stderr
    assert "+++ b/good.py" in proc.stdout
    # the long chains are valid Python: fixed, or at worst reported, never a crash
    for name in ("long_and.py", "long_sum.py"):
        assert f"+++ b/{name}" in proc.stdout or f"error: {name}:" in proc.stderr
    assert "+++ b/long_sum.py" in proc.stdout


# ----------------------------------------------------------------------------- the file system


def test_symlink_loops(tree):
    (tree / "pkg").mkdir()
    (tree / "pkg" / "loop").symlink_to("..")  # a directory loop inside the tree
    (tree / "pkg" / "self.py").symlink_to("self.py")  # a link to itself
    (tree / "dangling.py").symlink_to("nowhere.py")
    (tree / "named_loop").symlink_to("named_loop")
    proc = run_cli_forked("--diff", ".", cwd=tree)
    assert proc.returncode == 1, proc.stderr  # links are not followed inside a tree
    assert proc.stdout.count("+++ b/") == 1 and "+++ b/good.py" in proc.stdout
    # a loop named on the command line is looked at, never walked: in this process
    code, out, err = run_cli("--diff", "named_loop", "good.py", cwd=tree).outcome
    assert code == 2
    assert "named_loop: not a regular file or directory (skipped)" in err
    assert "+++ b/good.py" in out
    no_traceback(err)


def test_fifo_and_directory_named_like_python_files(tree):
    os.mkfifo(tree / "pipe.py")  # reading it would block forever
    (tree / "package.py").mkdir()
    (tree / "package.py" / "inner.py").write_text(RELAX_SRC)
    proc = run_cli_forked("--diff", ".", cwd=tree)
    assert proc.returncode == 1, proc.stderr
    assert "+++ b/good.py" in proc.stdout and "+++ b/package.py/inner.py" in proc.stdout


def test_non_python_files_named_on_the_command_line(tree):
    (tree / "notes.txt").write_text("not python\n")
    (tree / "setup.cfg").write_text("[metadata]\n")
    code, out, err = run_cli("--jobs", "1", "notes.txt", "setup.cfg", "good.py", cwd=tree).outcome
    assert code == 2
    assert "notes.txt: not a Python file (skipped)" in err and "setup.cfg: not a Python file (skipped)" in err
    assert good_was_fixed(tree)


def test_missing_path_is_a_usage_error(tree):
    code, out, err = run_cli("--jobs", "1", "nope.py", cwd=tree).outcome
    assert code == 2 and "retrace-fix: error: nope.py: no such file or directory" in err
    assert (tree / "good.py").read_text() == RELAX_SRC  # nothing was touched


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root reads files whatever their mode")
def test_unreadable_file_and_directory_real_permissions(tree):
    (tree / "secret.py").write_text(RELAX_SRC)
    (tree / "locked").mkdir()
    (tree / "locked" / "inner.py").write_text(RELAX_SRC)
    os.chmod(tree / "secret.py", 0)
    os.chmod(tree / "locked", 0)
    try:
        code, out, err = run_cli("--jobs", "1", ".", cwd=tree).outcome
    finally:
        os.chmod(tree / "secret.py", 0o644)
        os.chmod(tree / "locked", 0o755)
    assert code == 2
    assert "secret.py:1: cannot read: Permission denied" in err
    assert "locked: cannot read directory (Permission denied)" in err
    assert good_was_fixed(tree)


def test_unreadable_file_and_directory(tree, monkeypatch):
    """The same as above by simulation (the suite may run as root, who reads anything)."""
    (tree / "secret.py").write_text(RELAX_SRC)
    (tree / "locked").mkdir()
    (tree / "locked" / "inner.py").write_text(RELAX_SRC)
    real_read_bytes, real_scandir = Path.read_bytes, os.scandir

    def read_bytes(self):
        if self.name == "secret.py":
            raise PermissionError(13, "Permission denied", str(self))
        return real_read_bytes(self)

    def scandir(path="."):
        if not isinstance(path, int) and os.path.basename(os.fspath(path)) == "locked":
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real_scandir(path)

    monkeypatch.setattr(Path, "read_bytes", read_bytes)
    monkeypatch.setattr(os, "scandir", scandir)
    code, out, err = run_cli("--jobs", "1", ".", cwd=tree).outcome
    assert code == 2
    assert "error: secret.py:1: cannot read: Permission denied" in err
    assert "locked: cannot read directory (Permission denied)" in err
    assert good_was_fixed(tree)
    assert (tree / "locked" / "inner.py").read_text() == RELAX_SRC


def test_read_only_file_is_reported_not_written(tree):
    (tree / "readonly.py").write_text(RELAX_SRC)
    os.chmod(tree / "readonly.py", 0o444)
    try:
        code, out, err = run_cli("--jobs", "1", ".", cwd=tree).outcome
        assert code == 2
        assert "error: readonly.py:1: file is read-only; not written" in err
        assert (tree / "readonly.py").read_text() == RELAX_SRC
        assert stat.S_IMODE(os.stat(tree / "readonly.py").st_mode) == 0o444
        assert good_was_fixed(tree)
        code, out, err = run_cli("--jobs", "1", "--diff", "readonly.py", cwd=tree).outcome  # reading is fine
        assert code == 1 and "+++ b/readonly.py" in out
    finally:
        os.chmod(tree / "readonly.py", 0o644)


def test_file_changed_during_the_run_is_not_overwritten(tree, monkeypatch):
    (tree / "moving.py").write_text(RELAX_SRC)
    from retrace_fix.commands import fix as fix_command

    real_run = fix_command.run

    def run_then_edit(*args, **kwargs):
        result = real_run(*args, **kwargs)
        (tree / "moving.py").write_text(RELAX_SRC + "# edited by someone else meanwhile\n")
        return result

    monkeypatch.setattr(fix_command, "run", run_then_edit)
    code, out, err = run_cli("--jobs", "1", ".", cwd=tree).outcome
    assert code == 2
    assert "error: moving.py:1: changed on disk during the run; not written" in err
    assert (tree / "moving.py").read_text().endswith("# edited by someone else meanwhile\n")
    assert good_was_fixed(tree)


def test_written_file_keeps_its_mode(tree):
    os.chmod(tree / "good.py", 0o750)
    code, out, err = run_cli("--jobs", "1", ".", cwd=tree).outcome
    assert code == 0
    assert good_was_fixed(tree)
    assert stat.S_IMODE(os.stat(tree / "good.py").st_mode) == 0o750
    assert not [p for p in tree.iterdir() if p.name.endswith(".retrace-tmp")]


def test_file_names_that_are_not_utf8(tree):
    bad = os.fsencode(tree) + b"/caf\xe9.py"  # Latin-1 name: undecodable as UTF-8
    broken = os.fsencode(tree) + b"/br\xf6ken.py"
    with open(bad, "wb") as handle:
        handle.write(RELAX_SRC.encode())
    with open(broken, "wb") as handle:
        handle.write(b"x = (\n")
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}  # strict encoding: must not crash
    root = Path(__file__).resolve().parents[2]
    env["PYTHONPATH"] = str(root) + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.run([sys.executable, "-m", "retrace_fix", "--diff", "--check-syntax", "."], cwd=tree,
                          env=env, capture_output=True, timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert b'+++ "b/caf\\351.py"\n' in proc.stdout  # the name's own bytes, quoted as git does: the diff applies
    assert b"error: br\\udcf6ken.py:1:5: cannot parse" in proc.stderr
    assert b"Traceback" not in proc.stderr
    # write mode: in this process, whose standard streams are strict UTF-8 too (tests/support/cli_runner.py)
    code, _, err = run_cli("--check-syntax", ".", cwd=tree).outcome
    assert code == 2 and "Traceback" not in err
    with open(bad, "rb") as handle:
        assert handle.read() == RELAX_FIXED.encode()
    assert good_was_fixed(tree)


# ----------------------------------------------------------------------------- the safety nets


def test_a_forked_run_gives_what_a_run_here_gives_and_ends_only_its_copy(tree, monkeypatch):
    """``run_cli_forked``, which the crash and hang cases above use: the same outcome as
    ``run_cli``; a copy that hangs is killed at the timeout, one that crashes gives the signal."""
    import signal
    import time

    from tests.support import cli_runner

    forked = run_cli_forked("--diff", "good.py", cwd=tree)
    assert forked.outcome == run_cli("--diff", "good.py", cwd=tree).outcome and forked.returncode == 1
    monkeypatch.setattr(cli_runner, "main", lambda argv: time.sleep(60))
    with pytest.raises(subprocess.TimeoutExpired):
        run_cli_forked("--diff", ".", cwd=tree, timeout=0.5)
    monkeypatch.setattr(cli_runner, "main", _crash)
    assert run_cli_forked("--diff", ".", cwd=tree).outcome == (-signal.SIGSEGV, "", "")


def _crash(argv: list[str]) -> None:  # runs in the forked copy
    import faulthandler
    import signal

    faulthandler.disable()  # pytest's handler, inherited, would print a "Fatal Python error" into the test run's output
    os.kill(os.getpid(), signal.SIGSEGV)


def test_a_crashing_or_hanging_child_fails_one_file(monkeypatch):
    import signal
    import time

    from retrace_fix.engine import isolation

    def segfault():
        os.kill(os.getpid(), signal.SIGSEGV)

    status, reason = isolation.isolated(segfault, (), 0)
    assert status == "failed" and "LibCST crashed (SIGSEGV" in reason
    monkeypatch.setattr(isolation, "ISOLATED_TIMEOUT", 1)
    monkeypatch.setattr(isolation, "ISOLATED_TIMEOUT_PER_MB", 0)
    status, reason = isolation.isolated(time.sleep, (30,), 0)
    assert status == "failed" and reason.startswith("gave up after 1 s")
    assert isolation.isolated(sum, ([1, 2],), 0) == ("ok", 3)

    def no_fork():
        raise OSError(1, "Operation not permitted")

    monkeypatch.setattr(os, "fork", no_fork)  # a sandbox without fork: in-process, no crash
    assert isolation.isolated(sum, ([1, 2],), 0) == ("ok", 3)
    assert isolation.isolated(int, ("x",), 0)[0] == "failed"


def test_a_dying_worker_costs_one_file(tmp_path, monkeypatch):
    """A worker killed mid-run (OOM killer, a crash no guard foresaw): the pool breaks,
    the remaining files are redone one per child, the culprit alone is reported."""
    from retrace_fix.engine import pool
    from retrace_fix.engine.options import RunOptions
    from retrace_fix.engine.run import run

    for index in range(6):
        (tmp_path / f"m{index}.py").write_text(RELAX_SRC)
    (tmp_path / "poison.py").write_text(RELAX_SRC)
    real = pool.process_file

    def process_file(job, options):
        if job.path.name == "poison.py":
            os._exit(9)
        return real(job, options)

    monkeypatch.setattr(pool, "process_file", process_file)  # what the workers run
    monkeypatch.chdir(tmp_path)
    files = sorted(tmp_path.glob("*.py"))
    result = run(files, RunOptions(), jobs=2)
    assert [r.path for r in result.files] == [p.name for p in files]
    errors = {r.path: r.error for r in result.files if r.error}
    assert list(errors) == ["poison.py"] and "LibCST failed" in errors["poison.py"]
    assert all(r.fixed == RELAX_FIXED for r in result.files if r.path != "poison.py")
