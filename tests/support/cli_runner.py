"""The one way tests run ``retrace-fix ARGS``: in this process, as a user's shell would.

``run_cli(*args, cwd=..., stdin=...)`` calls :func:`retrace_fix.cli.main` with the
process-wide state a fresh ``retrace-fix`` process would see, and gives back what a
shell sees: the exit code and what was written to standard output and standard error.
Starting a Python process per run costs a second or more (the imports); most tests only
read output and exit codes, which need no process boundary.

What is set for the call and restored after it:

* the working directory (``cwd``);
* ``$RETRACE_FIX_*`` variables are unset (the test runner's own must not leak in), and
  ``env`` adds or overrides variables;
* standard input is ``stdin`` (text or bytes), or empty, as ``< /dev/null`` would be;
* standard output and standard error are fresh UTF-8 streams over bytes, like a pipe's:
  the CLI may write bytes to ``sys.stdout.buffer`` and reconfigure the streams' error
  handlers, as it does in a real process.

Tests keep a subprocess where the process boundary is the behaviour: signals, the real
standard streams' encodings, the recorder, pre-commit hooks, packaging, ``record``'s
child, a fresh interpreter's imports.  A run that could hang or crash the interpreter, and
needs nothing else of a process, runs in a forked copy of this one (``run_cli_forked``).
"""

from __future__ import annotations

import io
import json
import os
import pickle
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass
from pathlib import Path

import pytest

from retrace_fix.cli import main


@dataclass
class CliResult:
    """What a shell sees of one run (the attribute names of ``subprocess.CompletedProcess``)."""

    args: tuple[str, ...]
    returncode: int
    stdout_bytes: bytes
    stderr_bytes: bytes

    @property
    def stdout(self) -> str:
        return self.stdout_bytes.decode("utf-8")

    @property
    def stderr(self) -> str:
        return self.stderr_bytes.decode("utf-8")

    @property
    def outcome(self) -> tuple[int, str, str]:
        """``(exit code, stdout, stderr)``, to unpack."""
        return self.returncode, self.stdout, self.stderr


def _stream(data: bytes = b"") -> io.TextIOWrapper:
    return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8")


def run_cli(*args: str | os.PathLike, cwd: Path | str | None = None, stdin: str | bytes | None = None,
            env: dict[str, str] | None = None) -> CliResult:
    """``retrace-fix ARGS`` in ``cwd`` (default: the current directory), in this process."""
    argv = [os.fspath(arg) for arg in args]
    if isinstance(stdin, str):
        stdin = stdin.encode("utf-8")
    out, err = _stream(), _stream()
    with pytest.MonkeyPatch.context() as patch:
        for name in [name for name in os.environ if name.startswith("RETRACE_FIX")]:
            patch.delenv(name)
        for name, value in (env or {}).items():
            patch.setenv(name, value)
        if cwd is not None:
            patch.chdir(cwd)
        patch.setattr(sys, "stdin", _stream(stdin or b""))
        patch.setattr(sys, "stdout", out)
        patch.setattr(sys, "stderr", err)
        try:
            main(argv)
            code = 0  # pragma: no cover - main always exits
        except SystemExit as exc:  # sys.exit(None) is 0, sys.exit("message") is 1, as in a process
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    out.flush()
    err.flush()
    return CliResult(tuple(argv), code, out.buffer.getvalue(), err.buffer.getvalue())


def run_cli_forked(*args: str | os.PathLike, cwd: Path | str | None = None, timeout: float = 120) -> CliResult:
    """:func:`run_cli` in a forked copy of this process, for a run that might hang (a FIFO, a
    symlink loop) or crash the interpreter (a C stack overflow): that ends the copy only, as it
    would end a ``retrace-fix`` process, without a fresh interpreter's second of imports.

    A copy still running after ``timeout`` seconds is killed and ``subprocess.TimeoutExpired``
    raised; one that dies gives the exit code :mod:`subprocess` would (minus the signal's number)
    and no output.  Not for what a fresh process is needed for: its imports, the real standard
    streams and their encodings, signals sent from outside."""
    argv = [os.fspath(arg) for arg in args]
    with tempfile.TemporaryFile() as results:
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the copy; it never returns
            try:
                run = run_cli(*argv, cwd=cwd)
                payload = (run.returncode, run.stdout_bytes, run.stderr_bytes)
            except BaseException:
                payload = (1, b"", traceback.format_exc().encode("utf-8"))
            results.write(pickle.dumps(payload))
            results.flush()
            os._exit(0)
        deadline = time.monotonic() + timeout
        while not (ended := os.waitpid(pid, os.WNOHANG))[0]:
            if time.monotonic() > deadline:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                raise subprocess.TimeoutExpired(["retrace-fix", *argv], timeout)
            time.sleep(0.01)
        status = os.waitstatus_to_exitcode(ended[1])
        if status != 0:
            return CliResult(tuple(argv), status, b"", b"")
        results.seek(0)
        code, out, err = pickle.loads(results.read())
    return CliResult(tuple(argv), code, out, err)


#: the checkout: a child process imports this tree's ``retrace_fix`` first
CHECKOUT = Path(__file__).resolve().parents[2]


def process_env() -> dict[str, str]:
    """The environment of a ``python -m retrace_fix`` child: this one without ``$RETRACE_FIX_*``
    (as :func:`run_cli` clears them), TensorFlow's logs quiet, this checkout first on the path."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("RETRACE_FIX_")}
    env["TF_CPP_MIN_LOG_LEVEL"] = "3"
    env["PYTHONPATH"] = str(CHECKOUT) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def run_cli_process(cwd: Path, *args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    """``python -m retrace_fix ARGS`` in ``cwd`` as a child process (for runs that execute
    TensorFlow programs: ``record``, ``--verify``, ``bench``)."""
    return subprocess.run([sys.executable, "-m", "retrace_fix", *args], cwd=cwd, env=process_env(),
                          capture_output=True, text=True, timeout=timeout)


def results_line(stdout: str) -> dict:
    """The JSON after ``RESULTS `` on the line a test program prints its results on."""
    line = next(l for l in stdout.splitlines() if l.startswith("RESULTS "))
    return json.loads(line[len("RESULTS "):])
