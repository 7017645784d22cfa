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


def new_repo(path: Path, files: dict[str, str]) -> Path:
    """A repository on branch ``main`` with one commit of ``files`` (and its own committer identity)."""
    path.mkdir(parents=True)
    git(path, "init", "-q", "-b", "main")
    git(path, "config", "user.name", "Test Author")
    git(path, "config", "user.email", "author@example.com")
    for name, text in files.items():
        write(path / name, text)
    commit_all(path, "start")
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
