"""One call in a forked child (:func:`isolated`): a large stack, a high recursion limit, a memory
cap and a time limit, so that a LibCST crash, a runaway allocation or a hang fails one file only."""

from __future__ import annotations

import faulthandler
import gc
import os
import pickle
import select
import signal
import sys
import threading
import time
from typing import Any, Callable

from retrace_fix.engine.hostile_input import PARSE_ERROR_PREFIX

_ISOLATED_STACK = 512 * 1024 * 1024
_ISOLATED_RECURSION_LIMIT = 30_000
_ISOLATED_MEMORY = 6 * 1024 * 1024 * 1024  # bytes on top of what the process maps already
#: time limit of a child: this many seconds plus so many per MiB of source (LibCST
#: parses about 100 KiB/s on large files; a 10 MB file gets 360 s)
ISOLATED_TIMEOUT = 60
ISOLATED_TIMEOUT_PER_MB = 30


def isolated(func: Callable[..., Any], args: tuple, size: int) -> tuple[str, Any]:
    """Run ``func(*args)`` in a forked child: ``("ok", value)`` or ``("failed", reason)``.

    The child runs it on a thread with a large stack and a high recursion limit,
    under a memory cap and a time limit, so that a LibCST crash (SIGSEGV on deep
    nesting), a runaway allocation or a hang fails this file only.  Without
    ``os.fork`` (Windows) it runs in this process.
    """
    if not hasattr(os, "fork"):  # pragma: no cover - Windows
        return _in_process(func, args)
    timeout = ISOLATED_TIMEOUT + ISOLATED_TIMEOUT_PER_MB * size / (1024 * 1024)
    try:
        read_fd, write_fd = os.pipe()
    except OSError:  # pragma: no cover - out of file descriptors
        return _in_process(func, args)
    try:
        pid = os.fork()
    except OSError:  # pragma: no cover - no fork allowed here (or no memory for it)
        os.close(read_fd)
        os.close(write_fd)
        return _in_process(func, args)
    if pid == 0:  # pragma: no cover - child (coverage does not follow forks)
        status = 0
        try:
            os.close(read_fd)
            faulthandler.disable()  # a crash here is reported by the parent, quietly
            gc.enable()  # forked from a file's processing, where it is paused: hostile input needs it
            payload = pickle.dumps(("ok", _call_with_big_stack(func, args)))
            with os.fdopen(write_fd, "wb") as pipe:
                pipe.write(payload)
        except BaseException:
            status = 1
        finally:
            os._exit(status)
    os.close(write_fd)
    chunks: list[bytes] = []
    deadline = time.monotonic() + timeout
    timed_out = False
    try:
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                timed_out = True
                break
            ready, _, _ = select.select([read_fd], [], [], remaining)
            if not ready:
                continue
            chunk = os.read(read_fd, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(read_fd)
        if timed_out:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:  # pragma: no cover
                pass
        _, wait_status = os.waitpid(pid, 0)
    if timed_out:
        return "failed", (
            f"gave up after {timeout:.0f} s: {size / (1024 * 1024):.1f} MB is too large or too complex "
            "to rewrite in time"
        )
    if chunks:
        try:
            return pickle.loads(b"".join(chunks))
        except Exception:  # pragma: no cover - a truncated payload
            pass
    if os.WIFSIGNALED(wait_status):
        number = os.WTERMSIG(wait_status)
        name = signal.Signals(number).name if number in signal.Signals._value2member_map_ else str(number)
        return "failed", f"{PARSE_ERROR_PREFIX}: LibCST crashed ({name}; nested too deeply or out of memory)"
    return "failed", f"{PARSE_ERROR_PREFIX}: LibCST failed (out of memory?)"


def _in_process(func: Callable[..., Any], args: tuple) -> tuple[str, Any]:
    """The fallback where no child can be forked: no isolation, but no crash on an exception."""
    try:
        return "ok", func(*args)
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:
        return "failed", f"{PARSE_ERROR_PREFIX}: {type(exc).__name__}: {exc}"


def _call_with_big_stack(func: Callable[..., Any], args: tuple) -> Any:  # pragma: no cover - child only
    try:
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        with open("/proc/self/statm") as statm:
            mapped = int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
        cap = mapped + _ISOLATED_STACK + _ISOLATED_MEMORY
        if hard == resource.RLIM_INFINITY or cap < hard:
            resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    except (ImportError, OSError, ValueError):
        pass
    outcome: list[Any] = []

    def target() -> None:
        sys.setrecursionlimit(max(sys.getrecursionlimit(), _ISOLATED_RECURSION_LIMIT))
        outcome.append(func(*args))

    threading.stack_size(_ISOLATED_STACK)
    thread = threading.Thread(target=target, name="retrace-fix-isolated")
    thread.start()
    thread.join()
    if not outcome:
        raise RuntimeError("the isolated call failed")
    return outcome[0]

