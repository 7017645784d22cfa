"""The server process ``--scheduler local``'s Dask workers are forked from (the ``forkserver`` start method).

Its own module, importing nothing of the engine, so that a run can start it before it imports
anything heavy: the command line starts it as soon as it reads ``--scheduler local``
(:func:`worker_server`, for the whole command).  The server holds Dask and the engine
(:data:`WORKER_PRELOAD`, the engine's caches built) before it forks a worker.  Two ways:

* the command's own process (the console script, ``python -m retrace_fix``) imports Dask and the
  engine itself (0.75 s) and the server is *forked* from it, then builds the caches (0.25 s)
  while the command parses its arguments and starts the cluster: the imports are made once, not
  in both processes (0.75 s of CPU less), and the other core is left to the clones made ahead
  (:mod:`retrace_fix.bulk.clone_ahead`);
* elsewhere (a caller's own process, which may run threads; a platform without ``fork``), a fresh
  interpreter is started as the server and imports both itself, while the caller imports its own.

:func:`retrace_fix.bulk.cluster.dask_client` enters the same block; the outermost one stops the
server.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import threading
import time
from contextlib import contextmanager
from typing import Collection, Iterator, Sequence

#: what the server process that ``--scheduler local``'s workers are forked from imports once
#: (the second: the engine, warmed up and frozen, :mod:`retrace_fix.bulk.worker_preload`)
WORKER_PRELOAD = ("distributed", "retrace_fix.bulk.worker_preload")
#: seconds the end of a run waits for multiprocessing's resource tracker to end (it takes a few ms)
TRACKER_WAIT = 5.0


@contextmanager
def worker_server(fork_here: bool = False) -> Iterator[bool]:
    """The server process ``--scheduler local``'s workers are forked from (:data:`WORKER_PRELOAD`
    imported there once), started without waiting for it, for the block; yields False where the
    platform has no ``forkserver`` (the workers then start as Dask starts them).

    ``fork_here``: this process is the command's own, and may import Dask and the engine here and
    fork the server from itself (:func:`_forked_server`), where it runs no other thread.

    Entered as soon as a run knows it will start a LocalCluster, so that the server's imports
    (about a second of CPU) overlap the coordinator's own work (importing Dask, starting the
    scheduler).  At the end a server this block started is stopped and waited for (its CPU and
    its workers' is then this process's children's, and no process outlives the run); one that
    ran before is left alone.  Nesting is allowed: the outermost block that started it stops it.
    The same holds for multiprocessing's resource tracker, which the server starts where none runs.
    """
    if "forkserver" not in multiprocessing.get_all_start_methods():
        yield False
        return
    from multiprocessing import forkserver, resource_tracker

    server = getattr(forkserver, "_forkserver", None)
    ran_before = getattr(server, "_forkserver_pid", None) is not None
    tracker = getattr(resource_tracker, "_resource_tracker", None)  # the server starts it too
    tracker_ran_before = getattr(tracker, "_pid", None) is not None
    # the caller's own children, left alone at the end (only a run that starts the tracker looks)
    children_before = set() if tracker_ran_before else {child.pid for child in multiprocessing.active_children()}
    try:
        context = multiprocessing.get_context("forkserver")
        if not ran_before:
            context.set_forkserver_preload(list(WORKER_PRELOAD))  # imported there; one that fails fails no run
            if fork_here and _may_fork_server():
                with _forked_server():
                    forkserver.ensure_running()
        forkserver.ensure_running()
    except (OSError, ValueError, RuntimeError):  # pragma: no cover - no server: Dask's own start method
        yield False
        return
    try:
        yield True
    finally:
        stop = getattr(server, "_stop", None)
        if not ran_before and stop is not None:
            _end_server(getattr(server, "_forkserver_pid", None))
            stop()  # reaps it, and the module forgets it (a later run starts another)
        if not tracker_ran_before and tracker is not None:
            # and waits for it: no process of the run outlives it (one starts again on demand)
            _stop_tracker(tracker, spare=children_before)


def _stop_tracker(tracker: object, spare: Collection[int | None] = ()) -> None:
    """Stop multiprocessing's resource tracker (started by this run's server) and wait for it to
    end -- for :data:`TRACKER_WAIT` seconds at most.  It ends once every process holding it open has
    closed it, and a cluster whose start was interrupted (Ctrl-C) goes on starting workers on its
    own thread, which then hold it: waiting for ever there hung the run (while that thread waited
    on the tracker's lock).  Such workers still alive are ended first (the multiprocessing children
    of this process but those in ``spare``, which it had before the run); one started after that
    leaves the tracker to end with it, after this process (a zombie until then, reaped by the
    system)."""
    lock, pid = getattr(tracker, "_lock", None), getattr(tracker, "_pid", None)
    if lock is None or not hasattr(tracker, "_fd"):  # pragma: no cover - another Python
        getattr(tracker, "_stop", lambda: None)()
        return
    for child in multiprocessing.active_children():  # none after a cluster closed as it should
        if child.pid not in spare:
            child.kill()
    if not lock.acquire(timeout=TRACKER_WAIT):  # pragma: no cover - held by a thread that is stuck
        return
    try:
        if tracker._fd is None:  # type: ignore[attr-defined]
            return
        os.close(tracker._fd)  # type: ignore[attr-defined]  # its "alive" pipe: it ends at EOF
        tracker._fd = tracker._pid = None  # type: ignore[attr-defined]
        deadline = time.monotonic() + TRACKER_WAIT
        pause = 0.001
        while pid is not None and time.monotonic() < deadline:
            try:
                if os.waitpid(pid, os.WNOHANG)[0]:
                    return
            except ChildProcessError:  # reaped already
                return
            time.sleep(pause)
            pause = min(pause * 2, 0.05)
    finally:
        lock.release()


def _may_fork_server() -> bool:
    """Whether the server can be forked from this process: Linux (as the engine's own pool forks),
    no other thread (a forked copy would hold the locks other threads held), and Dask at hand (its
    import, with the engine's, is made here first)."""
    if not sys.platform.startswith("linux") or threading.active_count() != 1:
        return False
    try:
        import distributed  # noqa: F401

        import retrace_fix.engine.run  # noqa: F401
    except ImportError:
        return False
    return threading.active_count() == 1


@contextmanager
def _forked_server() -> Iterator[None]:
    """While ``forkserver.ensure_running()`` runs: the server it starts is a fork of this process
    running ``multiprocessing.forkserver.main``, not a new interpreter (``spawnv_passfds``)."""
    from multiprocessing import resource_tracker, util

    resource_tracker.ensure_running()  # spawned as ever (the server's start would start it first)
    spawn = util.spawnv_passfds

    def fork_instead(path: str, args: Sequence[str], passfds: Sequence[int]) -> int:
        if len(passfds) != 2 or "multiprocessing.forkserver" not in args[-1]:
            return spawn(path, args, passfds)  # another protocol (Python 3.14 passes a key too)
        return _fork_server(*passfds)

    util.spawnv_passfds = fork_instead
    try:
        yield
    finally:
        util.spawnv_passfds = spawn


def _fork_server(listener_fd: int, alive_r: int) -> int:
    """Fork the server: it keeps the standard streams and the two descriptors a spawned server is
    passed, closes every other this process had open (the ``alive`` pipe's writing end above all:
    the server ends when the last process holding it ends), and never returns to this process's
    code (``os._exit``: no exit handler of the command runs there)."""
    pid = os.fork()
    if pid:
        return pid
    code = 0
    try:
        # Ctrl-C is the command's to act on (it closes the cluster): ignored here before the preload,
        # it is what the server gives each worker it forks (the handlers it finds after its preload),
        # so that a worker interrupted inside Dask prints no tracebacks (30-70 lines) on the terminal
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        keep = {0, 1, 2, listener_fd, alive_r}
        for fd in sorted(int(name) for name in os.listdir("/proc/self/fd")):
            if fd not in keep:
                try:
                    os.close(fd)
                except OSError:
                    pass
        from multiprocessing import forkserver

        forkserver.main(listener_fd, alive_r, list(WORKER_PRELOAD))
    except SystemExit:  # the last client is gone
        pass
    except BaseException:  # pragma: no cover - reported as a spawned server would
        code = 1
        sys.excepthook(*sys.exc_info())
        sys.stderr.flush()
    finally:
        os._exit(code)


def _end_server(pid: int | None) -> None:
    """End the workers' server at once: it holds no state, and ending politely would cost its
    interpreter's shutdown (0.3 s of wall time).  Its workers have ended with the cluster -- unless
    the cluster never finished starting (Ctrl-C in the middle, when Dask cannot always close it):
    those left are ended first, since they hold multiprocessing's resource tracker open, which the
    run then stops and waits for."""
    if pid is None:
        return
    for worker in [*_children(pid), pid]:
        try:
            os.kill(worker, signal.SIGKILL)
        except OSError:  # gone already
            pass


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (Linux's ``/proc``; none found elsewhere)."""
    found = []
    try:
        entries = os.listdir("/proc")
    except OSError:  # pragma: no cover - no /proc
        return found
    for entry in entries:
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as stat:
                    fields = stat.read().rsplit(b")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry))
    return found


__all__ = ["WORKER_PRELOAD", "worker_server"]
