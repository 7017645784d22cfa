"""Races and signals around writing (issue 14, items 4, 5 and 7): no edit lost, nothing left behind.

* An edit that lands while retrace-fix writes a file (during the temporary
  file's write and fsync, just before the rename, or as an editor's
  rename-style save) is never overwritten: the write is refused and the edit
  kept.  Driven deterministically by hooks, and once for real with another
  process appending to 300 files while they are fixed.
* A writer killed by SIGKILL leaves its temporary file; the next run cleans it.
* Bytes that LibCST would lose (a lone carriage return at the end) are kept;
  a file whose encoding cannot give back its bytes (``unicode_escape``) is
  refused with that reason; refused writes are not counted as applied; trace
  files get the usual mode of a new file.

Every test hashes the tree and its parent before and after and names exactly
what changed.
"""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from retrace_fix.sources import writes
from retrace_fix.traces.model import TraceSet, save_trace_file
from tests.support.tree_state import changed, digest
from tests.support.cli_runner import run_cli

RELAX_SRC = textwrap.dedent(
    """\
    import tensorflow as tf


    @tf.function(experimental_relax_shapes=True)
    def total(x):
        return tf.reduce_sum(x)
    """
)
RELAX_FIXED = RELAX_SRC.replace("experimental_relax_shapes", "reduce_retracing")
EDIT = "# edited by someone else meanwhile\n"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "tree"
    root.mkdir()
    (root / "a.py").write_text(RELAX_SRC)
    (root / "b.py").write_text(RELAX_SRC)
    return root


# --------------------------------------------------------------------------- item 5: concurrent edits


def test_an_edit_during_the_temporary_files_fsync_is_kept(tree, monkeypatch):
    """Before: the file was compared, then the temporary file written and fsynced and renamed:
    an edit in between was silently overwritten."""
    real_fsync = os.fsync
    edited = []

    def fsync_with_an_edit(fd):
        if not edited and stat.S_ISREG(os.fstat(fd).st_mode):
            edited.append(True)
            with open(tree / "a.py", "a") as handle:
                handle.write(EDIT)
        return real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync_with_an_edit)
    before = digest(tree.parent)
    code, _, err = run_cli("--jobs", "1", "a.py", cwd=tree).outcome
    assert code == 2
    assert "error: a.py:1: changed on disk during the run; not written" in err
    assert (tree / "a.py").read_text() == RELAX_SRC + EDIT
    assert changed(before, digest(tree.parent)) == ["tree/a.py"]


def _edit_in_place(path: Path) -> None:
    with open(path, "a") as handle:
        handle.write(EDIT)


def _edit_by_rename(path: Path) -> None:  # how most editors save
    new = path.with_name(path.name + ".editor-swp")
    new.write_text(path.read_text() + EDIT)
    os.replace(new, path)


@pytest.mark.parametrize("edit", [_edit_in_place, _edit_by_rename])
def test_an_edit_at_the_instant_of_the_rename_is_kept(tree, monkeypatch, edit):
    """The edit lands after the last comparison, right before the atomic exchange: undone, edit kept."""
    real_exchange = writes._exchange

    def exchange_after_an_edit(directory, a, b):
        if b == "a.py":
            edit(tree / "a.py")
        return real_exchange(directory, a, b)

    if writes._load_renameat2() is None:  # pragma: no cover - not Linux
        pytest.skip("no atomic exchange (renameat2) here")
    monkeypatch.setattr(writes, "_exchange", exchange_after_an_edit)
    before = digest(tree.parent)
    code, _, err = run_cli("--jobs", "1", ".", cwd=tree).outcome
    assert code == 2
    assert "error: a.py:1: changed on disk while being written; the other edit was kept, not written" in err
    assert (tree / "a.py").read_text() == RELAX_SRC + EDIT
    assert (tree / "b.py").read_text() == RELAX_FIXED
    assert changed(before, digest(tree.parent)) == ["tree/a.py", "tree/b.py"]
    assert not [p for p in tree.iterdir() if p.name.endswith((".retrace-tmp", ".retrace-kept"))]


def test_without_an_atomic_exchange_an_edit_before_the_rename_is_put_back(tree, monkeypatch):
    """Where renameat2 is missing: checked right before os.replace and once more after it."""
    monkeypatch.setattr(writes, "_exchange", lambda directory, a, b: False)
    real_replace = writes._Directory.replace

    def replace_after_an_edit(self, src, dst):
        if dst == "a.py" and src.endswith(writes.TEMP_SUFFIX):
            _edit_in_place(tree / "a.py")
        return real_replace(self, src, dst)

    monkeypatch.setattr(writes._Directory, "replace", replace_after_an_edit)
    code, _, err = run_cli("--jobs", "1", "a.py", cwd=tree).outcome
    assert code == 2
    assert "error: a.py:1: changed on disk while being written; the other edit was kept, not written" in err
    assert (tree / "a.py").read_text() == RELAX_SRC + EDIT


APPENDER = textwrap.dedent(
    """\
    import os, random, sys, time
    names = sys.argv[1:]
    written = []
    start = time.monotonic()
    open("appender-ready", "w").close()
    while not os.path.exists("appender-stop") and time.monotonic() - start < 120:
        name = random.choice(names)
        line = f"# edit {len(written)}\\n"
        with open(name, "a") as handle:
            handle.write(line)
        written.append((name, line))
        time.sleep(0.0002)  # a busy editor, not a flood: the files stay small
    with open("appender-log", "w") as log:
        log.writelines(f"{name}\\t{line}" for name, line in written)
    """
)


def test_another_process_appending_to_300_files_loses_no_edit(tmp_path):
    """For real: 300 files fixed while another process appends lines to them at random.

    Every appended line must be in its file afterwards; each file is either
    fixed or refused ("changed on disk ...") with every edit in it.  (Before:
    edits landing between the comparison and the rename were lost.)
    """
    root = tmp_path / "tree"
    root.mkdir()
    names = [f"m{i:03}.py" for i in range(300)]
    for name in names:
        (root / name).write_text(RELAX_SRC)
    (tmp_path / "appender.py").write_text(APPENDER)
    appender = subprocess.Popen([sys.executable, str(tmp_path / "appender.py"), *names], cwd=root)
    try:
        deadline = time.monotonic() + 60
        while not (root / "appender-ready").exists():
            assert appender.poll() is None and time.monotonic() < deadline
            time.sleep(0.01)
        code, _, err = run_cli("--jobs", "1", *names, cwd=root).outcome
    finally:
        (root / "appender-stop").touch()
        appender.wait(timeout=120)
    log = (root / "appender-log").read_text().splitlines(keepends=True)
    assert len(log) > 100, "the appender hardly ran"
    expected: dict[str, list[str]] = {name: [] for name in names}
    for entry in log:
        name, line = entry.split("\t", 1)
        expected[name].append(line)
    refused = fixed = 0
    for name in names:
        text = (root / name).read_text()
        head = RELAX_FIXED if text.startswith(RELAX_FIXED) else RELAX_SRC
        assert text == head + "".join(expected[name]), f"{name}: an edit was lost"
        if head == RELAX_FIXED:
            fixed += 1
        else:
            refused += 1
            assert f"error: {name}:1: changed on disk" in err
    assert fixed + refused == 300 and code == (2 if refused else 0)
    assert not [p for p in root.iterdir() if p.name.endswith((".retrace-tmp", ".retrace-kept"))]


# --------------------------------------------------------------------------- item 7: SIGKILL mid-write


def test_a_temporary_file_left_by_a_killed_writer_is_cleaned_by_the_next_run(tree):
    """SIGKILL while the temporary file is being written: the next run removes it (and fixes the file).

    The writer is a forked copy of this process running ``retrace-fix`` (its own pid, which names the
    temporary file; no fresh interpreter's imports): SIGKILL ends it where it is, whatever it runs."""

    def stall(fd):
        open("stalled", "w").close()
        time.sleep(120)

    sys.stdout.flush()
    sys.stderr.flush()
    writer = os.fork()
    if writer == 0:  # pragma: no cover - the copy, the writer; it never returns
        try:
            os.fsync = stall
            run_cli("--jobs", "1", "a.py", cwd=tree)
        finally:
            os._exit(1)
    status = None
    try:
        deadline = time.monotonic() + 120
        while not (tree / "stalled").exists():
            ended, status = os.waitpid(writer, os.WNOHANG)
            if ended:
                break
            status = None
            assert time.monotonic() < deadline
            time.sleep(0.02)
    finally:
        if status is None:  # still running (stalled, or past the deadline): killed, and waited for
            os.kill(writer, signal.SIGKILL)
            status = os.waitpid(writer, 0)[1]
    assert os.waitstatus_to_exitcode(status) == -signal.SIGKILL  # not ended before it stalled
    (tree / "stalled").unlink()
    left = [p.name for p in tree.iterdir() if p.name.endswith(".retrace-tmp")]
    assert len(left) == 1 and left[0].startswith(".a.py.")
    before = digest(tree.parent)
    code, _, err = run_cli("--jobs", "1", "a.py", "b.py", cwd=tree).outcome
    assert code == 0, err
    assert not [p for p in tree.iterdir() if p.name.endswith(".retrace-tmp")]
    assert changed(before, digest(tree.parent)) == sorted(["tree/a.py", "tree/b.py", f"tree/{left[0]}"])


def test_stale_temporary_files_are_told_apart_from_live_ones(tree):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead_pid = int(dead.stdout)
    names = {
        "dead": f".a.py.{dead_pid}-0123abcd.retrace-tmp",  # its writer is gone
        "live": f".a.py.{os.getppid()}-0123abcd.retrace-tmp",  # its writer still runs
        "old": ".a.py.k3j2_x9q.retrace-tmp",  # no pid (an older retrace-fix), two hours old
        "young": ".b.py.z9y8_w7v.retrace-tmp",  # no pid, written a moment ago
        "other": ".a.py.notours.tmp",
    }
    for name in names.values():
        (tree / name).write_text("partial")
    two_hours_ago = time.time() - 7200
    os.utime(tree / names["old"], (two_hours_ago, two_hours_ago))
    code, _, _ = run_cli("--jobs", "1", "a.py", cwd=tree).outcome
    assert code == 0
    left = {p.name for p in tree.iterdir() if p.name.startswith(".")}
    assert left == {names["live"], names["young"], names["other"]}


# --------------------------------------------------------------------------- items 4 and 7: bytes, encodings, counts, modes


@pytest.mark.parametrize(
    ("newline", "ending"),
    [("\n", "\r"), ("\r\n", "\r\n\r"), ("\n", "\r\r"), ("\n", "\n\r"), ("\r\n", "\r")],
)
def test_a_lone_carriage_return_at_the_end_is_kept(tree, newline, ending):
    """LibCST's code generation drops the last ``\\r`` of ``...return x\\r`` (and ``\\r\\n\\r``)."""
    body = RELAX_SRC.rstrip("\n").replace("\n", newline)
    data = (body + ending).encode()
    (tree / "a.py").write_bytes(data)
    before = digest(tree.parent)
    code, _, err = run_cli("--jobs", "1", "a.py", cwd=tree).outcome
    assert code == 0, err
    assert (tree / "a.py").read_bytes() == data.replace(b"experimental_relax_shapes", b"reduce_retracing")
    assert changed(before, digest(tree.parent)) == ["tree/a.py"]


def test_a_unicode_escape_file_is_refused_with_its_reason(tree):
    data = b'# -*- coding: unicode_escape -*-\n' + RELAX_SRC.encode() + b'NAME = "\\u00e9"\n'
    (tree / "a.py").write_bytes(data)
    before = digest(tree.parent)
    code, _, err = run_cli("--jobs", "1", "a.py", "b.py", cwd=tree).outcome
    assert code == 2
    assert ("error: a.py:1: its encoding (unicode_escape) does not give back the same bytes when written; "
            "file left unchanged") in err
    assert "changed on disk" not in err
    assert (tree / "a.py").read_bytes() == data
    assert changed(before, digest(tree.parent)) == ["tree/b.py"]


def test_refused_writes_are_not_counted_as_applied(tree):
    (tree / "c.py").write_text(RELAX_SRC.replace("def total", "def total2"))
    os.chmod(tree / "b.py", 0o444)
    os.chmod(tree / "c.py", 0o444)
    try:
        code, _, err = run_cli("--jobs", "1", ".", cwd=tree).outcome
    finally:
        os.chmod(tree / "b.py", 0o644)
        os.chmod(tree / "c.py", 0o644)
    assert code == 2
    assert "1 file changed, 1 fix applied, 0 diagnostics, 2 errors" in err.splitlines()


def test_trace_files_get_the_mode_of_a_new_file(tmp_path):
    old_umask = os.umask(0o022)
    try:
        save_trace_file(TraceSet(), tmp_path / "new.json")
        (tmp_path / "kept.json").write_text("{}")
        os.chmod(tmp_path / "kept.json", 0o640)
        save_trace_file(TraceSet(), tmp_path / "kept.json")
    finally:
        os.umask(old_umask)
    assert stat.S_IMODE(os.stat(tmp_path / "new.json").st_mode) == 0o644
    assert stat.S_IMODE(os.stat(tmp_path / "kept.json").st_mode) == 0o640
