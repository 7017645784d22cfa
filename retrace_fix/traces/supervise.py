"""The life of the command ``retrace-fix record`` runs: started, waited for, never left behind.

* **Its own process group.**  The command starts in a new process group, so
  that everything it starts (pool workers, a forkserver, shell pipelines) can
  be waited for and, if need be, stopped together.
* **The terminal follows it.**  When ``record`` runs in the foreground of a
  terminal, the command's group is made the terminal's foreground group, as a
  shell does: it reads the terminal, Ctrl-C and Ctrl-Z reach it directly.
  When the command is stopped (Ctrl-Z), ``record`` takes the terminal back and
  stops too, so that the shell sees the job stopped; ``fg`` and ``bg``
  resume both.
* **Signals sent to ``record``** (SIGINT, SIGTERM, SIGHUP: ``kill``, a CI
  timeout) are passed on to the command, which writes its traces on the way out.
* **The rest of the group.**  After the command exits, ``record`` waits up to
  :data:`DRAIN_SECONDS` for the other processes of its group (a forkserver,
  workers still writing their traces) before it reads the shards.
* **``record`` killed outright** (SIGKILL cannot be caught or forwarded): a
  watcher process (:mod:`retrace_fix.traces.reaper`) started first, in a
  session of its own, holds the read end of a pipe that only ``record`` can
  write to.  The kernel closes it when ``record`` dies, and the watcher then
  stops the command's process group and removes the shard directory (and
  the trace file's lock file, see :class:`retrace_fix.commands.record.OutputLock`).
  Processes that leave the group on purpose (``setsid``, daemons) are not
  followed, as with a shell's job control.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from typing import Any

REAPER_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "reaper.py")
DRAIN_SECONDS = 5.0
FORWARDED_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))


def foreground_terminal() -> int | None:
    """A file descriptor of the terminal whose foreground group we are (None when there is none).

    Only from the main thread: giving the terminal away needs signal handling.
    """
    if threading.current_thread() is not threading.main_thread() or not hasattr(os, "tcgetpgrp"):
        return None
    for fd in (0, 1, 2):
        try:
            if os.isatty(fd) and os.tcgetpgrp(fd) == os.getpgrp():
                return fd
        except OSError:
            continue
    return None


def give_terminal(fd: int, pgid: int) -> bool:
    """Make ``pgid`` the foreground group of the terminal ``fd`` (SIGTTOU held off meanwhile)."""
    try:
        previous = signal.signal(signal.SIGTTOU, signal.SIG_IGN)
    except (ValueError, OSError):  # pragma: no cover - not the main thread
        return False
    try:
        os.tcsetpgrp(fd, pgid)
        return True
    except OSError:
        return False
    finally:
        signal.signal(signal.SIGTTOU, previous)


class Reaper:
    """The watcher process that cleans up if ``record`` dies (see the module docstring)."""

    def __init__(self, shard_dir: str, lock: str | None = None):
        read_end, self._write_end = os.pipe()  # both close-on-exec: the command inherits neither
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-I", "-S", REAPER_SCRIPT, str(read_end), shard_dir, *([lock] if lock else [])],
                pass_fds=(read_end,),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
        except BaseException:
            os.close(self._write_end)
            raise
        finally:
            os.close(read_end)

    def tell(self, line: str) -> None:
        try:
            os.write(self._write_end, line.encode("ascii") + b"\n")
        except OSError:  # the watcher is gone: nothing to tell
            pass

    def done(self) -> None:
        """``record`` cleaned up itself: the watcher exits without touching anything."""
        if self._write_end < 0:
            return
        self.tell("done")
        os.close(self._write_end)
        self._write_end = -1
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:  # pragma: no cover
            pass


class Supervised:
    """The recorded command, in its own process group; see the module docstring."""

    def __init__(self, cmd: list[str], env: dict[str, str], shard_dir: str, lock: str | None = None):
        self.reaper = Reaper(shard_dir, lock)
        self.terminal = foreground_terminal()
        kwargs: dict[str, Any] = {"process_group": 0} if sys.version_info >= (3, 11) else {"preexec_fn": os.setpgrp}
        try:
            self.process = subprocess.Popen(cmd, env=env, **kwargs)
        except BaseException:
            self.reaper.done()
            raise
        self.pgid = self.process.pid
        try:  # also from here, as shells do: whichever of the two runs first
            os.setpgid(self.pgid, self.pgid)
        except OSError:
            pass
        self.reaper.tell(f"pgid {self.pgid}")
        if self.terminal is not None and not give_terminal(self.terminal, self.pgid):
            self.terminal = None
        self._continue_group()

    def _continue_group(self) -> None:
        try:
            os.killpg(self.pgid, signal.SIGCONT)  # in case it read the terminal before it was given
        except OSError:
            pass

    def _take_terminal_back(self) -> None:
        if self.terminal is not None:
            give_terminal(self.terminal, os.getpgrp())

    def wait(self) -> int:
        """Wait for the command (signals to us are passed on); its return code as Popen gives it."""

        def forward(signum, frame):
            try:
                self.process.send_signal(signum)
            except OSError:
                pass

        previous = {}
        for signum in FORWARDED_SIGNALS:
            try:
                previous[signum] = signal.signal(signum, forward)
            except (ValueError, OSError):  # not the main thread
                pass
        try:
            return self._wait_with_job_control()
        finally:
            for signum, handler in previous.items():
                signal.signal(signum, handler)
            self._take_terminal_back()

    def _wait_with_job_control(self) -> int:
        if self.terminal is None:
            return self.process.wait()
        while True:
            try:
                pid, status = os.waitpid(self.process.pid, os.WUNTRACED)
            except ChildProcessError:  # reaped elsewhere
                return self.process.wait()
            if pid == 0:  # pragma: no cover - only with WNOHANG
                continue
            if os.WIFSTOPPED(status):
                self._stop_with_the_command()
                continue
            code = os.waitstatus_to_exitcode(status)
            self.process.returncode = code
            return code

    def _stop_with_the_command(self) -> None:
        """The command was stopped (Ctrl-Z): stop too, so the shell sees its job stopped; then resume it."""
        self._take_terminal_back()
        os.kill(os.getpid(), signal.SIGSTOP)
        # continued (fg or bg): the command follows; it gets the terminal if we have it
        try:
            in_foreground = os.tcgetpgrp(self.terminal) == os.getpgrp()
        except OSError:
            in_foreground = False
        if in_foreground:
            give_terminal(self.terminal, self.pgid)
        self._continue_group()

    def drain(self, seconds: float = DRAIN_SECONDS) -> bool:
        """Wait until the rest of the command's process group has exited; False when some still run."""
        deadline = time.monotonic() + seconds
        while True:
            try:
                os.killpg(self.pgid, 0)
            except ProcessLookupError:
                return True
            except PermissionError:
                pass
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.02)

    def finished(self) -> None:
        """Everything is cleaned up: release the watcher."""
        self.reaper.done()


__all__ = ["DRAIN_SECONDS", "Reaper", "Supervised", "foreground_terminal", "give_terminal"]
