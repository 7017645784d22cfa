"""``retrace-fix record [-o FILE] -- CMD [ARGS...]``: run CMD with the recorder installed.

Every Python process CMD starts (CMD itself, and its Python children, since the
environment is inherited) imports our ``sitecustomize``, which installs the
recorder lazily and writes one shard per process into a temporary directory.
When CMD ends, the shards are merged into FILE (default ``.retrace/traces.json``).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile

import retrace_fix
from retrace_fix.traces.model import TraceFileError, TraceSet, load_trace_file, save_trace_file
from retrace_fix.traces.recorder import ENV_PACKAGE_PATH, ENV_PROJECT_ROOT, ENV_SHARD_DIR, find_project_root

DEFAULT_OUTPUT = os.path.join(".retrace", "traces.json")

#: The directory put first on the child's PYTHONPATH.
SITECUSTOMIZE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_sitecustomize")

_FORWARDED_SIGNALS = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)


def recording_env(shard_dir: str, project_root: str, base: dict[str, str] | None = None) -> dict[str, str]:
    """The environment that makes every Python process write its traces into ``shard_dir``."""
    env = dict(os.environ if base is None else base)
    env[ENV_SHARD_DIR] = shard_dir
    env[ENV_PROJECT_ROOT] = project_root
    env[ENV_PACKAGE_PATH] = os.path.dirname(os.path.dirname(os.path.abspath(retrace_fix.__file__)))
    existing = env.get("PYTHONPATH")
    env["PYTHONPATH"] = SITECUSTOMIZE_DIR + (os.pathsep + existing if existing else "")
    return env


def merge_shards(shard_dir: str) -> TraceSet:
    """Merge every shard in ``shard_dir``; unreadable shards are reported and skipped."""
    result = TraceSet()
    for name in sorted(os.listdir(shard_dir)):
        if not name.endswith(".json") or name.startswith("."):
            continue
        try:
            result = result.merge(load_trace_file(os.path.join(shard_dir, name)))
        except TraceFileError as exc:
            print(f"retrace-fix: skipping a shard: {exc}", file=sys.stderr)
    return result


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
        env = recording_env(shard_dir, find_project_root())
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
