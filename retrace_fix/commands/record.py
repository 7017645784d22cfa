"""``retrace-fix record [-o FILE] -- CMD [ARGS...]``: run CMD with the recorder installed.

Every Python process CMD starts (CMD itself, and its Python children, since the
environment is inherited) imports the recorder's ``sitecustomize``, which
installs the recorder lazily and writes one shard per process into a temporary
directory (:mod:`retrace_fix.traces.per_process`).  When CMD ends, the shards are
merged into FILE (default ``.retrace/traces.json``).

How CMD is run, waited for and cleaned up after (its own process group, the
terminal, signals, a watcher for when ``record`` itself is killed) is
:mod:`retrace_fix.traces.supervise`.  One recording per FILE at a time
(:class:`OutputLock`); a command that fails without recording anything leaves
an existing FILE as it was.
"""

from __future__ import annotations

import os
import shutil
import signal
import sys
import tempfile

from retrace_fix.sources.discovery import find_project_root
from retrace_fix.traces.model import save_trace_file
from retrace_fix.traces.project import project_of
from retrace_fix.traces.cells import ENV_NOTEBOOKS, notebooks_in_command
from retrace_fix.traces.per_process import merge_shards, recording_env
from retrace_fix.traces.supervise import Supervised
from retrace_fix.sources.writes import RETRACE_DIR, WriteRefused, is_special_target, make_parent_dirs, resolve_target

DEFAULT_OUTPUT = os.path.join(RETRACE_DIR, "traces.json")  # the directory gets its own .gitignore


class RecordingBusy(Exception):
    """Another ``retrace-fix record`` is writing the same trace file."""


class OutputLock:
    """An exclusive lock on the trace file's name, held for the whole recording.

    Two recordings to one file would otherwise both run and the last one to
    finish would silently replace the other's traces.  The second one is
    refused before its command starts (exit 2, naming the first one's pid).
    The lock is ``flock`` on ``.NAME.lock`` next to the trace file: the kernel
    drops it when its holder dies, even by SIGKILL, so a stale lock file never
    blocks anyone; it is removed when the recording ends (after a SIGKILL, by
    the watcher of :mod:`retrace_fix.traces.supervise`).  A no-op where
    ``fcntl`` does not exist (Windows), and for an output that is a special
    file (``-o /dev/stdout``, a FIFO): it is written as a stream, never
    replaced, and nothing is created next to it (in ``/dev``).
    """

    def __init__(self, output: str):
        absolute = os.path.abspath(output)
        self.path = os.path.join(os.path.dirname(absolute), f".{os.path.basename(absolute)}.lock")
        self.fd: int | None = None
        self.special = is_special_target(absolute)

    def acquire(self) -> None:
        try:
            import fcntl
        except ImportError:  # pragma: no cover - Windows
            return
        if self.special:
            return
        make_parent_dirs(self.path)  # a new .retrace/ gets its own .gitignore
        while True:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o666)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
                os.close(fd)
                raise RecordingBusy(holder) from None
            except BaseException:
                os.close(fd)
                raise
            try:  # the previous holder may have removed the file between our open and flock
                same = os.path.samestat(os.fstat(fd), os.stat(self.path))
            except FileNotFoundError:
                same = False
            if same:
                break
            os.close(fd)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)
        self.fd = fd

    def release(self) -> None:
        if self.fd is None:
            return
        try:
            os.unlink(self.path)  # while holding it: the next recording makes a fresh one
        except OSError:
            pass
        os.close(self.fd)
        self.fd = None


def _describe_exit(returncode: int) -> str:
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        return f"the command was killed by {name}"
    return f"the command exited with status {returncode}"


def run_record(cmd: list[str], output: str | None) -> int:
    """Run ``cmd`` under the recorder and write the merged traces to ``output``.

    Returns CMD's exit code (128 + N when it was killed by signal N), or 2 when
    CMD is empty or cannot be started, the trace file cannot be written, or
    another recording to the same file is running.  A command that fails
    without recording anything leaves an existing trace file as it was.
    """
    if cmd and cmd[0] == "--":
        cmd = cmd[1:]
    if not cmd:
        print("retrace-fix record: no command given (usage: retrace-fix record [-o FILE] -- CMD [ARGS...])", file=sys.stderr)
        return 2
    output = output or DEFAULT_OUTPUT
    try:
        resolve_target(output, follow=False)
    except WriteRefused as exc:
        print(f"retrace-fix record: cannot write {output}: {exc}", file=sys.stderr)
        return 2
    lock = OutputLock(output)
    try:
        lock.acquire()
    except RecordingBusy as busy:
        holder = f" (pid {busy.args[0]})" if busy.args and busy.args[0] else ""
        print(f"retrace-fix record: another recording to {output} is running{holder}; "
              "wait for it or record to another file with -o", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"retrace-fix record: cannot write {output}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    try:
        return _record_locked(cmd, output, lock)
    finally:
        lock.release()


def _record_locked(cmd: list[str], output: str, lock: OutputLock) -> int:
    shard_dir = tempfile.mkdtemp(prefix="retrace-fix-shards-")
    child: Supervised | None = None
    try:
        root = find_project_root()
        env = recording_env(shard_dir, root)
        notebooks = notebooks_in_command(cmd)  # a kernel's cells map back to these notebooks
        if notebooks:
            env[ENV_NOTEBOOKS] = notebooks
        try:
            child = Supervised(cmd, env, shard_dir, lock.path if lock.fd is not None else None)
        except FileNotFoundError:
            print(f"retrace-fix record: command not found: {cmd[0]}", file=sys.stderr)
            return 2
        except OSError as exc:
            print(f"retrace-fix record: cannot run {cmd[0]}: {exc.strerror or exc}", file=sys.stderr)
            return 2
        returncode = child.wait()
        exit_code = 128 - returncode if returncode < 0 else returncode
        if not child.drain():
            print("retrace-fix record: processes the command started are still running; "
                  "traces they write from now on are not recorded", file=sys.stderr)
        trace_set = merge_shards(shard_dir)
        trace_set.project = project_of(root)  # which project the traces belong to
    finally:
        shutil.rmtree(shard_dir, ignore_errors=True)
        if child is not None:
            child.finished()
    if not len(trace_set) and exit_code != 0 and os.path.lexists(output):
        print(f"retrace-fix record: {_describe_exit(returncode)} and recorded no traces; "
              f"{output} left as it was", file=sys.stderr)
        return exit_code
    try:
        save_trace_file(trace_set, output)
    except OSError as exc:
        print(f"retrace-fix record: cannot write {output}: {exc.strerror or exc}", file=sys.stderr)
        return exit_code or 2
    from retrace_fix.traces.retrace_report import recorded_line

    print(f"retrace-fix: {recorded_line(trace_set)} to {output}", file=sys.stderr)
    return exit_code
