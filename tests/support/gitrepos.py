"""Small git repositories for tests: create, commit, inspect (``git`` must be installed)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.bulk.test_run import write


def git(cwd: Path, *args: str, text: bool = True) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=text)
    return done.stdout.strip() if text else done.stdout


def git_bytes(cwd: Path, *args: str) -> bytes:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True).stdout


def commit_all(repo: Path, message: str) -> str:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD")


#: the committer identity of every repository :func:`new_repo` makes, as ``git config user.*`` writes it
IDENTITY = "[user]\n\tname = Test Author\n\temail = author@example.com\n"


def new_repo(path: Path, files: dict[str, str]) -> Path:
    """A repository on branch ``main`` with one commit of ``files`` (and its own committer identity).

    Three git processes: the identity is appended to ``.git/config`` as ``git config`` would write
    it (two processes fewer), and the commit's hash is not asked for."""
    path.mkdir(parents=True)
    git(path, "init", "-q", "-b", "main")
    with open(path / ".git" / "config", "a", encoding="utf-8") as config:
        config.write(IDENTITY)
    for name, text in files.items():
        write(path / name, text)
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "start")
    return path


def state(repo: Path) -> dict[str, str]:
    """What --branch must leave alone: HEAD, the current branch, the index, the working tree's status."""
    return {
        "head": git(repo, "rev-parse", "HEAD"),
        "branch": git(repo, "symbolic-ref", "-q", "HEAD"),
        "index": git(repo, "ls-files", "--stage"),
        "staged": git(repo, "diff", "--cached"),
        "unstaged": git(repo, "diff"),
        "status": git(repo, "status", "--porcelain", "--untracked-files=all"),
    }
