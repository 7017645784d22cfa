"""Clean up after a ``retrace-fix record`` that died without cleaning up (SIGKILL, OOM killer).

``retrace-fix record`` starts this script (``python -I -S reaper.py FD SHARD_DIR [LOCK]``,
in a session of its own, standard streams on ``/dev/null``) before it starts
the recorded command, and keeps the write end of a pipe whose read end is
``FD``.  It writes ``pgid N`` once the command runs (in process group ``N``)
and ``done`` once it has merged the traces and removed ``SHARD_DIR`` itself.

The kernel closes the pipe when ``record`` exits, however it exits.  End of
file without ``done`` means it died: the command's process group gets
SIGTERM (and SIGCONT, for stopped members), then SIGKILL after
:data:`GRACE_SECONDS`, and the shard directory is removed once the group is
gone; so is the lock file of the trace file (``LOCK``), if no new recording
holds it by then.  Standard library only, no ``site``: it must start fast and import
nothing of the program's environment.
"""

from __future__ import annotations

import os
import shutil
import signal
import sys
import time

GRACE_SECONDS = 5.0
KILL_WAIT_SECONDS = 5.0


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _wait_gone(pgid: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not _group_alive(pgid):
            return True
        time.sleep(0.05)
    return not _group_alive(pgid)


def stop_group(pgid: int, grace: float = GRACE_SECONDS) -> None:
    """SIGTERM (+ SIGCONT) to the group, SIGKILL after ``grace`` seconds, until it is gone."""
    try:
        os.killpg(pgid, signal.SIGTERM)
        os.killpg(pgid, signal.SIGCONT)
    except (ProcessLookupError, PermissionError):
        return
    if _wait_gone(pgid, grace):
        return
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        return
    _wait_gone(pgid, KILL_WAIT_SECONDS)


def remove_lock(path: str) -> None:
    """Remove the lock file of the dead recording, unless a new recording holds it already."""
    try:
        import fcntl

        fd = os.open(path, os.O_RDWR)
    except (ImportError, OSError):
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # held by someone else: theirs now
        if os.path.samestat(os.fstat(fd), os.stat(path)):
            os.unlink(path)
    except OSError:
        pass
    finally:
        os.close(fd)


def watch(fd: int, shard_dir: str, lock: str | None = None) -> int:
    """Block until ``record`` closes the pipe; clean up unless it said ``done``."""
    pgid = None
    done = False
    pending = b""
    while True:
        try:
            chunk = os.read(fd, 4096)
        except InterruptedError:  # pragma: no cover - PEP 475 retries
            continue
        except OSError:
            break
        if not chunk:
            break
        pending += chunk
        *lines, pending = pending.split(b"\n")
        for line in lines:
            if line.startswith(b"pgid "):
                try:
                    pgid = int(line[5:])
                except ValueError:
                    pgid = None
            elif line == b"done":
                done = True
    if done:
        return 0
    if pgid is not None and pgid > 1:
        stop_group(pgid)
    shutil.rmtree(shard_dir, ignore_errors=True)
    if lock:
        remove_lock(lock)
    return 0


def main(argv: list[str]) -> int:
    if len(argv) not in (3, 4):
        print("usage: reaper.py FD SHARD_DIR [LOCK]", file=sys.stderr)
        return 2
    for signum in (signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, signal.SIG_IGN)  # the pipe, not the terminal, tells it what to do
    return watch(int(argv[1]), argv[2], argv[3] if len(argv) == 4 else None)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
