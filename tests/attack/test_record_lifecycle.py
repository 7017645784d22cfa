"""``retrace-fix record`` under kill, concurrency and a terminal (issue 14, item 7). No TensorFlow:
the recorded commands are plain Python, which is all these need.

* SIGKILL to ``record`` stops the command and its children and removes the
  shard directory (the watcher of :mod:`retrace_fix.traces.supervise`).
* A command killed before it recorded anything leaves the previous trace file.
* Two recordings to one file: the second is refused before its command runs.
* In a terminal the command reads its input, Ctrl-C reaches it, and Ctrl-Z
  stops the job until it is continued (it runs in its own process group).

Every test hashes the project and its parent before and after and names what changed.
"""

from __future__ import annotations

import json
import os
import pty
import select
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from retrace_fix.commands.record import run_record
from tests.support.tree_state import changed, digest

REPO = Path(__file__).resolve().parents[2]
GOOD = {"format": "retrace-fix-traces", "version": 1, "tensorflow": "2.21.0", "functions": []}


def env_with_repo() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RETRACE_FIX")}
    env["PYTHONPATH"] = str(REPO)
    return env


def wait_for(path: Path, process: subprocess.Popen | None = None, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not path.exists():
        assert process is None or process.poll() is None, "the process ended early"
        assert time.monotonic() < deadline, f"{path.name} never appeared"
        time.sleep(0.02)


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    try:  # a zombie no one has reaped yet counts as gone
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


def record_in_subprocess(project: Path, output: str, *cmd: str) -> subprocess.Popen:
    driver = (
        "import sys; from retrace_fix.commands.record import run_record; "
        f"sys.exit(run_record(sys.argv[1:], {output!r}))"
    )
    return subprocess.Popen([sys.executable, "-c", driver, *cmd], cwd=project, env=env_with_repo(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / ".git").mkdir()
    return root


SLEEPER = textwrap.dedent(
    """\
    import os, subprocess, sys, time
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
    with open("pids.json.tmp", "w") as note:
        note.write('{"shards": "%s", "self": %d, "child": %d}' % (os.environ["RETRACE_FIX_SHARD_DIR"], os.getpid(), child.pid))
    os.rename("pids.json.tmp", "pids.json")
    while not os.path.exists("stop"):
        time.sleep(0.05)
    child.kill()
    """
)


def test_sigkill_to_record_stops_the_command_and_removes_the_shards(project):
    (project / "sleeper.py").write_text(SLEEPER)
    before = digest(project.parent)
    record = record_in_subprocess(project, "traces.json", sys.executable, "sleeper.py")
    try:
        wait_for(project / "pids.json", record)
        pids = json.loads((project / "pids.json").read_text())
        assert Path(pids["shards"]).is_dir()
        record.send_signal(signal.SIGKILL)
        record.wait(timeout=30)
        deadline = time.monotonic() + 30
        lock = project / ".traces.json.lock"
        while not (gone(pids["self"]) and gone(pids["child"]) and not Path(pids["shards"]).exists()
                   and not lock.exists()):
            assert time.monotonic() < deadline, "the recorded command, its shards or the lock outlived record"
            time.sleep(0.05)
    finally:
        (project / "stop").touch()
        record.stdout.close()
        record.stderr.close()
    (project / "stop").unlink()
    assert changed(before, digest(project.parent)) == ["proj/pids.json"]


def test_a_killed_command_that_recorded_nothing_leaves_the_good_trace_file(project, capsys):
    (project / "traces.json").write_text(json.dumps(GOOD))
    (project / "die.py").write_text("import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n")
    before = digest(project.parent)
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(project)
        code = run_record([sys.executable, "die.py"], "traces.json")
    assert code == 128 + signal.SIGKILL
    assert capsys.readouterr().err == (
        "retrace-fix record: the command was killed by SIGKILL and recorded no traces; traces.json left as it was\n"
    )
    assert changed(before, digest(project.parent)) == []


def test_a_second_recording_to_the_same_file_is_refused_before_it_runs(project, capsys):
    (project / "sleeper.py").write_text(SLEEPER)
    first = record_in_subprocess(project, "traces.json", sys.executable, "sleeper.py")
    try:
        wait_for(project / "pids.json", first)
        before = digest(project.parent)
        with pytest.MonkeyPatch.context() as patch:
            patch.chdir(project)
            code = run_record([sys.executable, "-c", "open('second-ran', 'w').close()"], "traces.json")
        err = capsys.readouterr().err
        assert code == 2
        assert err == (
            f"retrace-fix record: another recording to traces.json is running (pid {first.pid}); "
            "wait for it or record to another file with -o\n"
        )
        assert changed(before, digest(project.parent)) == []
        with pytest.MonkeyPatch.context() as patch:  # another file is fine meanwhile
            patch.chdir(project)
            assert run_record([sys.executable, "-c", "pass"], "other.json") == 0
    finally:
        (project / "stop").touch()
        _, first_err = first.communicate(timeout=60)
    assert first.returncode == 0, first_err
    assert "recorded 0 traces of 0 functions to traces.json" in first_err
    assert not (project / "second-ran").exists()
    assert sorted(p.name for p in project.iterdir()) == [
        ".git", "other.json", "pids.json", "sleeper.py", "stop", "traces.json"]  # no lock file left


def test_a_lock_left_by_a_killed_recording_does_not_block_the_next(project, capsys):
    (project / ".traces.json.lock").write_text("12345\n")  # what a SIGKILLed record leaves
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(project)
        assert run_record([sys.executable, "-c", "pass"], "traces.json") == 0
    assert sorted(p.name for p in project.iterdir()) == [".git", "traces.json"]


# --------------------------------------------------------------------------- in a terminal


def in_a_terminal(project: Path, program: str, steps) -> tuple[int, bytes]:
    """Run ``record`` as the session leader of a new pseudo-terminal; ``steps(pid, fd, read_until)``."""
    pid, fd = pty.fork()
    if pid == 0:  # pragma: no cover - the child
        os.chdir(project)
        os.environ.update(env_with_repo())
        driver = "import sys; from retrace_fix.commands.record import run_record; sys.exit(run_record(sys.argv[1:], 't.json'))"
        os.execv(sys.executable, [sys.executable, "-c", driver, sys.executable, "-c", program])
    seen = bytearray()

    def read_until(token: bytes, seconds: float = 60) -> bytes:
        deadline = time.monotonic() + seconds
        while token not in seen and time.monotonic() < deadline:
            ready, _, _ = select.select([fd], [], [], 0.1)
            if ready:
                try:
                    seen.extend(os.read(fd, 4096))
                except OSError:
                    break
        assert token in seen, bytes(seen)
        return bytes(seen)

    status = None
    try:
        steps(pid, fd, read_until)
        deadline = time.monotonic() + 60
        while status is None:
            done, raw = os.waitpid(pid, os.WNOHANG)
            if done:
                status = raw
            else:
                assert time.monotonic() < deadline, "record did not finish"
                time.sleep(0.02)
    finally:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        os.close(fd)
    return os.waitstatus_to_exitcode(status), bytes(seen)


READER = "print('ready', flush=True); print('got', input())"


def test_in_a_terminal_the_command_reads_its_input(project):
    def steps(pid, fd, read_until):
        read_until(b"ready")
        os.write(fd, b"hello\n")
        read_until(b"recorded")

    code, seen = in_a_terminal(project, READER, steps)
    assert code == 0 and b"got hello" in seen


def test_in_a_terminal_ctrl_c_reaches_the_command(project):
    def steps(pid, fd, read_until):
        read_until(b"ready")
        os.write(fd, b"\x03")
        read_until(b"recorded")

    code, seen = in_a_terminal(project, "import time; print('ready', flush=True); time.sleep(60)", steps)
    assert code == 128 + signal.SIGINT and b"KeyboardInterrupt" in seen


def test_in_a_terminal_ctrl_z_stops_the_job_until_it_continues(project):
    def steps(pid, fd, read_until):
        read_until(b"ready")
        os.write(fd, b"\x1a")
        deadline = time.monotonic() + 30
        while True:  # what a shell sees: the job is stopped
            stopped, status = os.waitpid(pid, os.WUNTRACED | os.WNOHANG)
            if stopped:
                assert os.WIFSTOPPED(status), status
                break
            assert time.monotonic() < deadline, "record did not stop with the command"
            time.sleep(0.02)
        os.kill(pid, signal.SIGCONT)  # fg
        time.sleep(0.2)
        os.write(fd, b"again\n")
        read_until(b"recorded")

    code, seen = in_a_terminal(project, READER, steps)
    assert code == 0 and b"got again" in seen
