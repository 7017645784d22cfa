"""Running ``git`` from retrace-fix: never interactive, never redirected by the caller's environment.

Every git command retrace-fix runs (shallow clones on workers, branch commits on
the coordinator) goes through :func:`run_git`, so that

* a variable such as ``GIT_DIR`` or ``GIT_INDEX_FILE`` left in the environment
  (inside a git hook, say) cannot point the command at another repository or
  index;
* git never waits for a password or a host key on the terminal
  (``GIT_TERMINAL_PROMPT=0``, standard input closed) and Git LFS never
  downloads large files into a checkout;
* a failure becomes one line: the first ``fatal:``/``error:`` line git printed.
"""

from __future__ import annotations

import os
import subprocess
from typing import Mapping, Sequence

#: variables that would make a git command act on another repository, index or object store
REDIRECTING_VARIABLES = (
    "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_COMMON_DIR", "GIT_NAMESPACE", "GIT_PREFIX", "GIT_QUARANTINE_PATH",
)


class GitError(Exception):
    """A git command failed; the message is one line."""


def git_environment(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in REDIRECTING_VARIABLES}
    env.update({"GIT_TERMINAL_PROMPT": "0", "GIT_LFS_SKIP_SMUDGE": "1", "LC_ALL": "C"})
    env.update(extra or {})
    return env


def run_git(
    args: Sequence[str],
    cwd: str | os.PathLike[str] | None = None,
    *,
    input: bytes | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float | None = None,
    check: bool = True,
) -> subprocess.CompletedProcess[bytes]:
    """``git ARGS`` in ``cwd``; raises :class:`GitError` (one line) when it fails and ``check``."""
    try:
        done = subprocess.run(
            ["git", *args],
            cwd=cwd,
            input=input,
            stdin=None if input is not None else subprocess.DEVNULL,
            capture_output=True,
            env=git_environment(env),
            timeout=timeout,
        )
    except FileNotFoundError:
        raise GitError("git is not installed (or not on PATH)") from None
    except subprocess.TimeoutExpired:
        raise GitError(f"git {args[0]} gave up after {timeout:.0f} s") from None
    except OSError as exc:
        raise GitError(f"cannot run git: {exc.strerror or exc}") from None
    if check and done.returncode != 0:
        raise GitError(first_error_line(done.stderr) or f"git {args[0]} failed (exit {done.returncode})")
    return done


def first_error_line(stderr: bytes) -> str:
    """The line that says what went wrong: the first ``fatal:``/``error:`` line, else the first line."""
    lines = [line.strip() for line in stderr.decode("utf-8", "replace").splitlines() if line.strip()]
    for line in lines:
        if line.startswith(("fatal:", "error:")):
            return line
    return lines[0] if lines else ""


def output(done: subprocess.CompletedProcess[bytes]) -> str:
    """A command's standard output as one stripped line of text."""
    return done.stdout.decode("utf-8", "surrogateescape").strip()
