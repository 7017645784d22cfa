"""``retrace-fix record [-o FILE] -- CMD [ARGS...]``: run CMD with the recorder installed.

Every Python process CMD starts (CMD itself, and its Python children, since the
environment is inherited) imports the recorder's ``sitecustomize``, which
installs the recorder lazily and writes one shard per process into a temporary
directory (:mod:`retrace_fix.traces.shards`).  When CMD ends, the shards are
merged into FILE (default ``.retrace/traces.json``).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile

from retrace_fix.traces.model import save_trace_file
from retrace_fix.discovery import find_project_root
from retrace_fix.patching import RETRACE_DIR
from retrace_fix.traces.project import project_of
from retrace_fix.traces.shards import merge_shards, recording_env

DEFAULT_OUTPUT = os.path.join(RETRACE_DIR, "traces.json")  # the directory gets its own .gitignore

_FORWARDED_SIGNALS = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)


def _terminal_interrupts_child() -> bool:
    """True when we run in a terminal's foreground process group.

    Then Ctrl-C's SIGINT already reaches the child (same process group), and
    forwarding it too would interrupt the child twice (possibly while it writes
    its traces).
    """
    for fd in (0, 1, 2):
        try:
            if os.isatty(fd) and os.tcgetpgrp(fd) == os.getpgrp():
                return True
        except (OSError, AttributeError):
            continue
    return False


def _wait_forwarding_signals(process: subprocess.Popen) -> int:
    """Wait for ``process``, passing SIGINT/SIGTERM/SIGHUP on to it meanwhile."""
    skip_sigint = _terminal_interrupts_child()

    def forward(signum, frame):
        if signum == signal.SIGINT and skip_sigint:
            return
        try:
            process.send_signal(signum)
        except OSError:
            pass

    previous = {}
    for signum in _FORWARDED_SIGNALS:
        try:
            previous[signum] = signal.signal(signum, forward)
        except (ValueError, OSError):  # not the main thread
            pass
    try:
        return process.wait()
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def run_record(cmd: list[str], output: str | None) -> int:
    """Run ``cmd`` under the recorder and write the merged traces to ``output``.

    Returns CMD's exit code (128 + N when it was killed by signal N), or 2 when
    CMD is empty or cannot be started, or the trace file cannot be written.
    """
    if cmd and cmd[0] == "--":
        cmd = cmd[1:]
    if not cmd:
        print("retrace-fix record: no command given (usage: retrace-fix record [-o FILE] -- CMD [ARGS...])", file=sys.stderr)
        return 2
    output = output or DEFAULT_OUTPUT
    shard_dir = tempfile.mkdtemp(prefix="retrace-fix-shards-")
    try:
        root = find_project_root()
        env = recording_env(shard_dir, root)
        try:
            process = subprocess.Popen(cmd, env=env)
        except FileNotFoundError:
            print(f"retrace-fix record: command not found: {cmd[0]}", file=sys.stderr)
            return 2
        except OSError as exc:
            print(f"retrace-fix record: cannot run {cmd[0]}: {exc.strerror or exc}", file=sys.stderr)
            return 2
        returncode = _wait_forwarding_signals(process)
        exit_code = 128 - returncode if returncode < 0 else returncode
        trace_set = merge_shards(shard_dir)
        trace_set.project = project_of(root)  # which project the traces belong to
    finally:
        shutil.rmtree(shard_dir, ignore_errors=True)
    try:
        save_trace_file(trace_set, output)
    except OSError as exc:
        print(f"retrace-fix record: cannot write {output}: {exc.strerror or exc}", file=sys.stderr)
        return exit_code or 2
    from retrace_fix.traces.report import recorded_line

    print(f"retrace-fix: {recorded_line(trace_set)} to {output}", file=sys.stderr)
    return exit_code
