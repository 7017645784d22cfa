"""The process-wide recorder of ``retrace-fix record``: this process's traces written at its end.

Installed by the recorder's ``sitecustomize`` in every Python process that
``retrace-fix record`` (or ``bench``, ``--verify``) starts, when
``$RETRACE_FIX_SHARD_DIR`` is set (:mod:`retrace_fix.traces.per_process` sets
it).  :class:`ProcessRecorder` proves at interpreter shutdown (before the
``atexit`` handlers tear TensorFlow and Keras down) and writes
``traces-<pid>-<random>.json`` into that directory at exit, on SIGTERM (then
dies by it as it would have), and from multiprocessing's exit finalizers in
forked children (which skip ``atexit``); a forked child starts empty and
writes its own file.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import sys
import threading
from typing import Any, Callable, Iterator

from retrace_fix.sources.discovery import ENV_PROJECT_ROOT
from retrace_fix.traces.model import save_trace_file
from retrace_fix.traces.per_process import ENV_SHARD_DIR
from retrace_fix.traces.recorder import Recorder, activate
from retrace_fix.traces.tf_patching import ON_PATCH, is_patched, report_error


class ProcessRecorder:
    """Writes the recorder's traces to ``<shard dir>/<pid>.json`` at exit, SIGTERM included."""

    def __init__(self, shard_dir: str, project_root: str | None):
        self.shard_dir = shard_dir
        self.recorder = Recorder(project_root)
        self._previous_sigterm: Any = None
        self._token: str | None = None
        self._finalizer: Any = None  # multiprocessing.util.Finalize that writes at a child's exit
        #: proving or writing now: a SIGTERM that arrives meanwhile (multiprocessing terminates its
        #: pool workers while they write at exit) waits for it instead of re-entering the recorder,
        #: whose lock this thread may hold (that deadlocked)
        self._busy = False
        self._sigterm_waiting = False

    def install(self) -> None:
        atexit.register(self.write)
        _register_before_atexit(self._prove_at_exit)
        ON_PATCH.append(self._on_patch)
        activate(self.recorder)

    def _prove_at_exit(self) -> None:
        """Prove while TensorFlow and Keras are intact: threading's exit hook runs before the
        ``atexit`` handlers, some of which (AutoGraph's temporary files, Keras's tree registry)
        would make a trial fail for reasons of their own.  ``write`` then does not prove again.

        While another (non-daemon) thread of the program still runs, the program has not
        finished: the proofs then wait for ``write``, after those threads were joined."""
        current = threading.current_thread()
        if any(t is not current and t.is_alive() and not t.daemon for t in threading.enumerate()):
            return
        with self._not_interrupted_by_sigterm():
            try:
                if is_patched():
                    self.recorder.prove()
            except KeyboardInterrupt:  # Ctrl-C while proving: keep what was proved, write, leave
                pass
            finally:
                self._proved_at_exit = True

    @contextlib.contextmanager
    def _not_interrupted_by_sigterm(self) -> Iterator[None]:
        """Run the block to its end; a SIGTERM that arrives meanwhile is acted on after it (see
        :meth:`_on_sigterm`).  Re-entered (a write from a handler), it changes nothing."""
        if self._busy:
            yield
            return
        self._busy = True
        try:
            yield
        finally:
            self._busy = False
            if self._sigterm_waiting:
                self._sigterm_waiting = False
                self._on_sigterm(signal.SIGTERM, None)

    def shard_path(self) -> str:
        """``traces-<pid>-<random>.json``: unique even when a later process reuses the pid."""
        if self._token is None:
            self._token = f"{os.getpid()}-{os.urandom(4).hex()}"
        return os.path.join(self.shard_dir, f"traces-{self._token}.json")

    def write(self) -> None:
        """:meth:`_write`, to its end even when SIGTERM arrives meanwhile."""
        with self._not_interrupted_by_sigterm():
            self._write()

    def _write(self) -> None:
        """Write this process's shard (once TensorFlow was imported and something traced).

        Ctrl-C cannot cut it short.  The shard directory is never created here:
        when ``retrace-fix record`` has already merged and removed it (a process
        that outlived the recording), there is nobody left to read the shard.
        """
        if not is_patched():
            return
        previous_sigint = None
        if threading.current_thread() is threading.main_thread():
            try:
                previous_sigint = signal.signal(signal.SIGINT, signal.SIG_IGN)
            except (ValueError, OSError):  # pragma: no cover
                previous_sigint = None
        try:
            prove = not getattr(self, "_proved_at_exit", False)
            trace_set = self.recorder.trace_set(prove=prove)
            if len(trace_set):
                save_trace_file(trace_set, self.shard_path(), make_parents=False)
        except FileNotFoundError:
            pass  # the recording is over (its shard directory is gone)
        except Exception as exc:
            print(f"retrace-fix: could not write traces: {exc}", file=sys.stderr)
        finally:
            if previous_sigint is not None:
                signal.signal(signal.SIGINT, previous_sigint)

    def _on_patch(self) -> None:
        """Once TF is in: take over SIGTERM (main thread only) so a terminated program still writes."""
        if self._previous_sigterm is not None or threading.current_thread() is not threading.main_thread():
            return
        try:
            self._previous_sigterm = signal.getsignal(signal.SIGTERM)
            signal.signal(signal.SIGTERM, self._on_sigterm)
        except (ValueError, OSError):  # pragma: no cover - embedded interpreters
            pass

    def _on_sigterm(self, signum, frame) -> None:
        if self._busy:  # proving or writing already: finish that first (_not_interrupted_by_sigterm)
            self._sigterm_waiting = True
            return
        self.write()
        previous = self._previous_sigterm
        if callable(previous):
            previous(signum, frame)
        elif previous == signal.SIG_IGN:
            return
        else:  # default: die by the signal, as without the recorder
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGTERM)

    def after_fork(self) -> None:
        """A forked child writes its own shard.

        Children of ``multiprocessing`` (``fork`` and ``forkserver`` start
        methods; ``spawn`` children are fresh interpreters with their own
        ``atexit``) end with ``os._exit``, which skips ``atexit``: they write
        from multiprocessing's exit finalizers instead.  But
        ``BaseProcess._bootstrap`` clears the finalizer registry
        (``util._finalizer_registry.clear()``) after the fork, before the
        child's work, and only then runs ``util._run_after_forkers()``; so the
        finalizer is registered now (for forks that never bootstrap) *and*
        again from an after-forker (``util.register_after_fork``), which is
        what survives in pool workers and forkserver children.
        """
        self._token = None
        self._finalizer = None
        util = sys.modules.get("multiprocessing.util")
        if util is not None:
            try:
                self.ensure_exit_writer()
                util.register_after_fork(self, ProcessRecorder.ensure_exit_writer)
            except Exception as exc:  # pragma: no cover - a multiprocessing without these
                report_error(exc)

    def ensure_exit_writer(self) -> None:
        """Register ``write`` with multiprocessing's exit finalizers (once per registry)."""
        util = sys.modules.get("multiprocessing.util")
        if util is None:
            return
        if self._finalizer is not None and self._finalizer.still_active():
            return
        # exitpriority below 0: after multiprocessing has joined this process's own children
        self._finalizer = util.Finalize(None, self.write, exitpriority=-100)


def _register_before_atexit(callback: Callable[[], None]) -> None:
    """Run ``callback`` when the interpreter shuts down, before the ``atexit`` handlers
    (``threading``'s exit hook; plain ``atexit`` where this Python has none)."""
    register = getattr(threading, "_register_atexit", None)
    try:
        if register is not None:
            register(callback)
            return
    except RuntimeError:  # pragma: no cover - already shutting down
        return
    atexit.register(callback)  # pragma: no cover - Python < 3.9


_PROCESS: ProcessRecorder | None = None


def install_process_recorder() -> bool:
    """Install the shard-writing recorder when ``$RETRACE_FIX_SHARD_DIR`` is set; True if installed."""
    global _PROCESS
    shard_dir = os.environ.get(ENV_SHARD_DIR)
    if not shard_dir or _PROCESS is not None:
        return False
    _PROCESS = ProcessRecorder(shard_dir, os.environ.get(ENV_PROJECT_ROOT) or None)
    _PROCESS.install()
    return True


def _after_fork_in_child() -> None:
    """A forked child writes its own traces (registered after the recorder's own fork handler)."""
    if _PROCESS is not None:
        _PROCESS.after_fork()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
