"""Running ``git`` from retrace-fix: never interactive, never redirected, never running a repository's commands.

Every git command retrace-fix runs (shallow clones on workers, branch commits on
the coordinator, a trace file's project) goes through :func:`run_git`, so that

* a variable such as ``GIT_DIR`` or ``GIT_INDEX_FILE`` left in the environment
  (inside a git hook, say) cannot point the command at another repository or
  index;
* git never waits for a password or a host key on the terminal
  (``GIT_TERMINAL_PROMPT=0``, standard input closed), never starts a pager or
  an editor, and Git LFS never downloads large files into a checkout;
* a repository's own configuration never runs a command. The code retrace-fix
  reads came from someone else, and so may the ``.git/config`` (or a bare
  repository committed into the tree) next to it. Every command runs with
  ``safe.bareRepository=explicit`` (a directory that merely looks like a bare
  repository is never used), ``core.fsmonitor=false`` and
  ``core.hooksPath=/dev/null`` (no hook runs); every setting of the
  repository's own configuration files (``local``/``worktree`` scope, includes
  followed) that names a command - filters, diff drivers and textconv,
  ``diff.external``, ``core.sshCommand``, ``core.pager``, credential helpers,
  ``gpg.program``, ... (:data:`COMMAND_SETTINGS`) - is overridden with an empty
  value (one ``git config --list`` per command finds them); diff-like commands
  get ``--no-ext-diff --no-textconv`` and commits are never signed.  The
  user's own (global, system) settings still apply: their identity, their
  credential helpers for a clone;
* a repository is found only through a ``.git`` entry at or above a directory
  (:func:`repository_root`, :func:`repository_toplevel`), never through a
  directory that looks like a bare repository, and a ``.git`` whose
  configuration moves the work tree elsewhere (``core.worktree``) is refused;
* a failure becomes one line: the first ``fatal:``/``error:`` line git printed.
"""

from __future__ import annotations

import os
import re
import stat
import subprocess
import tempfile
from pathlib import Path
from typing import Mapping, Sequence

#: variables that would make a git command act on another repository, index or object store
REDIRECTING_VARIABLES = (
    "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_COMMON_DIR", "GIT_NAMESPACE", "GIT_PREFIX", "GIT_QUARANTINE_PATH",
)

#: ``-c`` options of every command: no implicit bare repository, no file system monitor, no hook
PROTECTIONS = (
    "-c", "safe.bareRepository=explicit",
    "-c", "core.fsmonitor=false",
    "-c", "core.hooksPath=/dev/null",
)

#: settings whose value is a command git may run (lower-case; ``*`` is a subsection).  Those that
#: a repository's own configuration files set are overridden with an empty value (no command).
COMMAND_SETTINGS = (
    "filter.*.clean", "filter.*.smudge", "filter.*.process",
    "diff.external", "diff.*.command", "diff.*.textconv", "interactive.difffilter",
    "merge.*.driver", "difftool.*.cmd", "mergetool.*.cmd", "trailer.*.command", "trailer.*.cmd",
    "core.sshcommand", "core.gitproxy", "core.askpass", "core.editor", "sequence.editor",
    "core.pager", "pager.*", "core.alternaterefscommand",
    "credential.helper", "credential.*.helper",
    "gpg.program", "gpg.*.program", "gpg.ssh.defaultkeycommand",
    "remote.*.uploadpack", "remote.*.receivepack", "remote.*.vcs",
    "submodule.*.update", "web.browser", "browser.*.cmd", "man.*.cmd", "imap.tunnel", "sendemail.smtpserver",
)
_COMMAND_SETTING = re.compile(
    "|".join(
        re.escape(pattern).replace(r"\*", ".*").join(("(?:", ")")) for pattern in COMMAND_SETTINGS
    ).join(("^(?:", ")$")),
    re.DOTALL,
)
#: the scopes of the files a repository holds (included files take their includer's scope)
REPOSITORY_SCOPES = ("local", "worktree")

#: options added after the subcommand's name: no external diff, no textconv, no signing, no hook
COMMAND_OPTIONS: dict[str, tuple[str, ...]] = {
    **{name: ("--no-ext-diff", "--no-textconv") for name in (
        "diff", "diff-files", "diff-index", "diff-tree", "log", "show", "format-patch", "whatchanged")},
    "commit-tree": ("--no-gpg-sign",),
    "commit": ("--no-gpg-sign", "--no-verify"),
}

#: an empty environment variable, the value ``--config-env`` gives a setting
EMPTY_VARIABLE = "RETRACE_FIX_GIT_EMPTY"

#: seconds a command may take when the caller gives no limit (a configuration can include a FIFO)
DEFAULT_TIMEOUT = 300


class GitError(Exception):
    """A git command failed; the message is one line."""


class Stopped(BaseException):
    """Raised by a signal handler to stop a process in the middle of its work, a git command
    perhaps: ``subprocess.run`` then kills git *and waits for it*, so that nothing writes into the
    clone any more once the process has ended.  (On ``KeyboardInterrupt`` it kills git but does not
    wait: it takes Ctrl-C to have reached git too.)"""


def raise_stopped(signum: int, frame: object) -> None:
    """A signal handler (SIGTERM): :class:`Stopped` where the process is."""
    raise Stopped


def git_environment(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in REDIRECTING_VARIABLES}
    env.update({
        "GIT_TERMINAL_PROMPT": "0", "GIT_LFS_SKIP_SMUDGE": "1", "LC_ALL": "C",
        "GIT_PAGER": "cat", "PAGER": "cat", "GIT_EDITOR": ":", "GIT_SEQUENCE_EDITOR": ":", EMPTY_VARIABLE: "",
    })
    env.update(extra or {})
    return env


def repository_root(start: str | os.PathLike[str]) -> str | None:
    """The nearest directory at or above ``start`` (resolved) that holds a ``.git`` entry, else None."""
    directory = Path(os.path.realpath(start))
    if not os.path.isdir(directory):
        directory = directory.parent
    return next((str(above) for above in (directory, *directory.parents) if os.path.lexists(above / ".git")), None)


def repository_toplevel(start: str | os.PathLike[str]) -> str:
    """The work tree of the repository whose ``.git`` entry is at or above ``start``; raises GitError.

    Git must agree: a ``.git`` that git does not take for a repository, or whose
    configuration puts the work tree somewhere else (``core.worktree``), is refused.
    """
    top = repository_root(start)
    if top is None:
        raise GitError(f"no .git at or above {os.path.realpath(start)}")
    check_git_entry(top)
    shown = output(run_git(["rev-parse", "--show-toplevel"], cwd=top))
    if not shown or os.path.realpath(shown) != top:
        where = os.path.join(top, ".git")
        raise GitError(f"{where}: git's work tree for it is {shown or 'none'}, not {top} (core.worktree?)")
    return top


def check_git_entry(top: str) -> None:
    """Raise GitError when ``top``'s ``.git`` (or its ``config``) is a FIFO, a device or a socket.

    git would open it and wait (a FIFO) or read without end (``/dev/zero``):
    a tree from someone else must not stall the run.
    """
    entry = os.path.join(top, ".git")
    for path, allowed in ((entry, (stat.S_ISDIR, stat.S_ISREG)), (os.path.join(entry, "config"), (stat.S_ISREG,))):
        try:
            mode = os.stat(path).st_mode
        except OSError:
            return  # missing or dangling: git passes it by
        if not any(test(mode) for test in allowed):
            raise GitError(f"{path}: not a regular file or directory")
        if stat.S_ISREG(mode):
            return


def run_git(
    args: Sequence[str],
    cwd: str | os.PathLike[str] | None = None,
    *,
    input: bytes | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float | None = None,
    check: bool = True,
    own_repository: bool = False,
) -> subprocess.CompletedProcess[bytes]:
    """``git ARGS`` in ``cwd``, protected; raises :class:`GitError` (one line) when it fails and ``check``.

    ``cwd`` None: a command that needs no repository (it runs in an empty temporary directory,
    so the current directory's repository is never read); path arguments must then be absolute.
    ``own_repository``: ``cwd`` is a repository this process made (``git init --template=``, as
    :func:`~retrace_fix.bulk.git_sources.clone` does) and whose configuration only it wrote: no
    setting of it names a command, so its settings are not listed first (one git process less).
    """
    if cwd is None:
        with tempfile.TemporaryDirectory(prefix="retrace-fix-git-") as nowhere:
            return _run(args, nowhere, [], input, env, timeout, check)
    overrides = [] if own_repository else _repository_overrides(cwd, timeout)
    return _run(args, cwd, overrides, input, env, timeout, check)


def _run(
    args: Sequence[str],
    cwd: str | os.PathLike[str],
    overrides: Sequence[str],
    input: bytes | None,
    env: Mapping[str, str] | None,
    timeout: float | None,
    check: bool,
) -> subprocess.CompletedProcess[bytes]:
    timeout = DEFAULT_TIMEOUT if timeout is None else timeout
    try:
        done = subprocess.run(
            ["git", *PROTECTIONS, *overrides, *_with_command_options(args)],
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
        raise GitError(f"git {_subcommand(args)} gave up after {timeout:.0f} s") from None
    except OSError as exc:
        raise GitError(f"cannot run git: {exc.strerror or exc}") from None
    if check and done.returncode != 0:
        raise GitError(first_error_line(done.stderr) or f"git {_subcommand(args)} failed (exit {done.returncode})")
    return done


def _subcommand_index(args: Sequence[str]) -> int | None:
    i = 0
    while i < len(args):
        if args[i] in ("-c", "-C", "--config-env"):
            i += 2
        elif args[i].startswith("-"):
            i += 1
        else:
            return i
    return None


def _subcommand(args: Sequence[str]) -> str:
    index = _subcommand_index(args)
    return args[index] if index is not None else " ".join(args[:1])


def _with_command_options(args: Sequence[str]) -> list[str]:
    index = _subcommand_index(args)
    if index is None or args[index] not in COMMAND_OPTIONS:
        return list(args)
    return [*args[: index + 1], *COMMAND_OPTIONS[args[index]], *args[index + 1:]]


def _repository_overrides(cwd: str | os.PathLike[str], timeout: float | None) -> list[str]:
    """Options that empty every command setting of the repository's own files (``-c KEY=``)."""
    top = repository_root(cwd)
    if top is None:
        return []
    check_git_entry(top)
    done = _run(["config", "--list", "--show-scope", "--includes", "-z"], cwd, [], None, None, timeout, False)
    if done.returncode != 0:
        if not done.stderr.strip():
            return []
        raise GitError(first_error_line(done.stderr) or "git config failed")
    keys: list[str] = []
    fields = done.stdout.split(b"\0")
    for scope, entry in zip(fields[0::2], fields[1::2]):
        key = entry.split(b"\n", 1)[0].decode("utf-8", "surrogateescape")
        if scope.decode("ascii", "replace") in REPOSITORY_SCOPES and _COMMAND_SETTING.match(key.lower()):
            if key not in keys:
                keys.append(key)
    # ``-c KEY=`` splits at the first ``=``: a subsection holding one (``filter "a=b"``) needs
    # ``--config-env`` (git 2.31), which splits at the last; an older git refuses the command
    return [option for key in keys
            for option in ((f"--config-env={key}={EMPTY_VARIABLE}",) if "=" in key else ("-c", f"{key}="))]


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
