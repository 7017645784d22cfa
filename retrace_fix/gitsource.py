"""Roots given as git URLs (``URL[@REV]``) and the shallow clone a worker makes of one.

A line of ``--repos FILE`` (or a PATH argument) is a git URL when it has a
scheme (``https://``, ``ssh://``, ``git://``, ``file://``...) or git's scp-like
form ``user@host:path``; anything else is a local path.  An optional ``@REV``
at the end of the URL's path names a branch, a tag or a commit, as pip's
``git+URL@REV`` does (``git@github.com:org/repo.git@v2.1``); without it the
remote's default branch (its ``HEAD``) is used.

:func:`clone` fetches exactly that one commit (``--depth 1``, no tags, no
hooks, no LFS downloads) into an empty directory; git runs with
:mod:`retrace_fix.gitcmd`'s protections.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from retrace_fix.gitcmd import GitError, output, run_git

_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
_SCP_LIKE = re.compile(r"^[^\s/@:]+@[^\s/:]+:")
#: seconds one fetch may take before the clone is given up
CLONE_TIMEOUT = 900


class CloneError(Exception):
    """A git root could not be cloned; the message is one line."""


@dataclass(frozen=True)
class GitSource:
    url: str
    rev: str | None = None

    @property
    def spec(self) -> str:
        """The root as written: ``URL`` or ``URL@REV``."""
        return f"{self.url}@{self.rev}" if self.rev else self.url

    @property
    def repo_name(self) -> str:
        """The repository's name: the URL's last path component without ``.git``."""
        path = _split(self.url)[1].rstrip("/")
        name = path.rsplit("/", 1)[-1]
        if name.endswith(".git"):
            name = name[: -len(".git")]
        return name or "repo"


def is_git_url(entry: str) -> bool:
    return bool(_SCHEME.match(entry) or _SCP_LIKE.match(entry))


def parse_git_root(entry: str) -> GitSource | None:
    """The :class:`GitSource` an entry names, or None for a local path.

    Raises ValueError for a URL or revision git could take for an option.
    """
    if not is_git_url(entry):
        return None
    head, path = _split(entry)
    rev = None
    if "@" in path:
        path, rev = path.rsplit("@", 1)
        if not rev:
            raise ValueError(f"{entry}: empty revision after '@'")
    url = head + path
    for what, value in (("URL", url), ("revision", rev or "")):
        if value.startswith("-") or any(c.isspace() or ord(c) < 32 for c in value):
            raise ValueError(f"{entry}: not a valid git {what}")
    return GitSource(url=url, rev=rev)


def _split(entry: str) -> tuple[str, str]:
    """(scheme and host part, path part) of a URL; the path part may end in ``@REV``."""
    scheme = _SCHEME.match(entry)
    if scheme:
        rest = entry[scheme.end():]
        slash = rest.find("/")
        if slash < 0:
            return entry, ""
        return entry[: scheme.end() + slash], rest[slash:]
    scp = _SCP_LIKE.match(entry)
    if scp:
        return entry[: scp.end()], entry[scp.end():]
    return "", entry


def clone(source: GitSource, dest: Path, timeout: float = CLONE_TIMEOUT) -> str:
    """Fetch ``source``'s one commit into the new directory ``dest`` and check it out; its commit id.

    Raises :class:`CloneError`.
    """
    try:
        dest.mkdir(parents=True)
        run_git(["init", "-q", "--template=", str(dest.absolute())])
        run_git(["fetch", "-q", "--depth", "1", "--no-tags", "--", source.url, source.rev or "HEAD"],
                cwd=dest, timeout=timeout)
        run_git(["-c", "advice.detachedHead=false", "checkout", "-q", "--detach", "FETCH_HEAD"],
                cwd=dest, timeout=timeout)
        return output(run_git(["rev-parse", "HEAD"], cwd=dest))
    except GitError as exc:
        raise CloneError(f"cannot clone: {exc}") from None
    except OSError as exc:
        raise CloneError(f"cannot clone into {dest}: {exc.strerror or exc}") from None


__all__ = ["CLONE_TIMEOUT", "CloneError", "GitSource", "clone", "is_git_url", "parse_git_root"]
