"""Where a git root's clone is made, and its removal on a thread of its own.

A clone lives for one root: it is written, read once and removed.  Where the
machine has a memory-backed file system with room to spare (Linux's
``/dev/shm``), clones go there: a checkout is a few hundred small files, and
on a disk file system writing, journaling and removing them cost more than
the clone's git work (the 34-repository benchmark corpus: 1.9-3.5 s of system
CPU on ext4 against 0.4 s on tmpfs for the same clones).  Otherwise, and when
``RETRACE_FIX_SCRATCH`` names a directory (which then always wins), the
clone goes where it went before: the Dask worker's local directory, else the
system's temporary directory (``TMPDIR``).

A clone that fails on the memory file system while that file system is left
with less than :data:`MEMORY_RESERVE` free (it filled up) is made again on
the disk (:func:`scratch_bases` lists both; the caller tries them in turn).

Nothing cleans a memory file system but its owner: a clone there is named after
the machine and the process that made it (:func:`scratch_prefix`), and a
process that dies before removing its clones (a Dask worker killed mid-root)
leaves them to the next one that looks (:func:`sweep_orphans`: the first clone
of every process, and the coordinator when a run's workers have ended), which
removes those of this machine whose process is gone, as Dask purges the local
directories of dead workers.
"""

from __future__ import annotations

import atexit
import multiprocessing.util
import os
import queue
import re
import shutil
import socket
import sys
import threading

#: a directory named here holds every clone (tests, a user who wants them on a given disk)
SCRATCH_ENV = "RETRACE_FIX_SCRATCH"
#: a memory-backed file system that clones go to when it has room
MEMORY_SCRATCH = "/dev/shm"
#: free bytes the memory file system must have for clones to go there (a Docker
#: container's default /dev/shm, 64 MiB, does not)
MEMORY_RESERVE = 2 << 30


def scratch_bases() -> list[str | None]:
    """The directories to make a clone in, in the order to try them (None: the system's
    temporary directory); the second, where there is one, is the disk for a clone that
    filled the memory file system."""
    chosen = os.environ.get(SCRATCH_ENV)
    if chosen:
        return [chosen]
    disk = _worker_directory()
    if _roomy_memory():
        if os.getpid() not in _SWEPT:  # the first clone of this process looks for orphans first
            _SWEPT.add(os.getpid())
            sweep_orphans()
        return [MEMORY_SCRATCH, disk]
    return [disk]


def scratch_prefix() -> str:
    """The start of a clone's scratch directory's name: this machine's and this process's."""
    return f"retrace-fix-{_host()}-{os.getpid()}-"


def sweep_orphans() -> None:
    """Remove the clones that processes of this machine left on the memory file system when
    they died (their process is gone); those of live processes, of other machines or users stay."""
    try:
        entries = list(os.scandir(MEMORY_SCRATCH))
    except OSError:
        return
    own = re.compile(rf"retrace-fix-{re.escape(_host())}-(\d+)-")
    for entry in entries:
        match = own.match(entry.name)
        if match is None or _alive(int(match.group(1))):
            continue
        try:
            if entry.is_dir(follow_symlinks=False) and entry.stat(follow_symlinks=False).st_uid == os.getuid():
                shutil.rmtree(entry.path, ignore_errors=True)
        except OSError:
            continue


_SWEPT: set[int] = set()  # the processes that swept already (a forked worker is a new one)


def _host() -> str:
    return re.sub(r"[^A-Za-z0-9.]", "_", socket.gethostname()) or "host"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process: alive
        return True
    return True


def short_of_space(base: str | None) -> bool:
    """Whether ``base`` is the memory file system and now holds less than the reserve."""
    return base == MEMORY_SCRATCH and not _roomy_memory()


def _roomy_memory() -> bool:
    if not sys.platform.startswith("linux") or not os.access(MEMORY_SCRATCH, os.W_OK | os.X_OK):
        return False
    try:
        stats = os.statvfs(MEMORY_SCRATCH)
    except OSError:
        return False
    return stats.f_bavail * stats.f_frsize >= MEMORY_RESERVE


def _worker_directory() -> str | None:
    """The Dask worker's local directory when running on one, else None (the system default)."""
    if "distributed" not in sys.modules:  # no Dask worker runs here (nor is Dask imported for nothing)
        return None
    try:
        from distributed import get_worker

        return get_worker().local_directory
    except (ImportError, ValueError):
        return None


class _Reaper:
    """Removes scratch directories on a daemon thread of its own, one after another."""

    def __init__(self) -> None:
        self._queue: queue.Queue[str] = queue.Queue()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def discard(self, path: str) -> None:
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                if self._thread is None:  # a process that ends normally leaves no scratch behind:
                    atexit.register(self.wait)
                    # a multiprocessing child (a Dask worker) ends with os._exit, after these only
                    multiprocessing.util.Finalize(None, self.wait, exitpriority=10)
                self._thread = threading.Thread(target=self._remove, name="retrace-fix-scratch", daemon=True)
                self._thread.start()
        self._queue.put(path)

    def wait(self) -> None:
        self._queue.join()

    def _remove(self) -> None:
        while True:
            path = self._queue.get()
            try:
                shutil.rmtree(path, ignore_errors=True)
            finally:
                self._queue.task_done()


_REAPER = _Reaper()


def _new_reaper() -> None:  # a forked child starts with none: the parent's thread, queue and locks stay its own
    global _REAPER
    _REAPER = _Reaper()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_new_reaper)


def discard_scratch(path: str) -> None:
    """Remove a clone's scratch directory, on a thread of its own: the next root's clone and files
    go on meanwhile (removing a checkout of hundreds of files took as long as making it, 0.04-0.3 s,
    all of it waiting on the file system).  Also waited for when the process ends normally."""
    _REAPER.discard(path)


def wait_for_scratch() -> None:
    """Return once every scratch directory discarded so far is removed."""
    _REAPER.wait()


__all__ = ["MEMORY_RESERVE", "MEMORY_SCRATCH", "SCRATCH_ENV", "discard_scratch", "scratch_bases", "scratch_prefix",
           "short_of_space", "sweep_orphans", "wait_for_scratch"]
