"""Roots given as git URLs (``URL[@REV]``) and the shallow clone a worker makes of one.

A line of ``--repos FILE`` (or a PATH argument) is a git URL when it has a
scheme (``https://``, ``ssh://``, ``git://``, ``file://``...) or git's scp-like
form ``user@host:path``; anything else is a local path.  An optional ``@REV``
at the end of the URL's path names a branch, a tag or a commit, as pip's
``git+URL@REV`` does (``git@github.com:org/repo.git@v2.1``); without it the
remote's default branch (its ``HEAD``) is used.

:func:`clone` fetches exactly that one commit (``--depth 1``, no tags, no
hooks, no LFS downloads) into an empty directory, and checks out only what a
run reads (:data:`CHECKOUT`: Python files, ``.gitignore`` files, the root's
``.retrace/`` traces), in three git processes (init, fetch, checkout).  A ``file://`` URL of a repository on this machine
borrows its objects (git's alternates, as ``git clone --shared`` does) instead
of packing and copying them: nothing is transferred, and the source is only
read; the commit its ``HEAD`` or ``@REV`` names is read from its files
(:func:`local_revision`), so such a clone is two git processes (init,
checkout), with a fetch only for what reading cannot settle.  Git runs with
:mod:`retrace_fix.bulk.git`'s protections.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from retrace_fix.bulk.git import GitError, output, run_git

_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
_SCP_LIKE = re.compile(r"^[^\s/@:]+@[^\s/:]+:")
#: seconds one fetch may take before the clone is given up
CLONE_TIMEOUT = 900
#: what a clone checks out (git's sparse checkout, gitignore syntax): every file a run reads
#: (discovery takes regular ``*.py``/``*.pyi``/``*.ipynb`` files and honours ``.gitignore`` files; a root's
#: own traces are ``.retrace/traces.json``; ``.gitattributes`` decide how files are checked out)
CHECKOUT = ("*.py", "*.pyi", "*.ipynb", ".gitignore", ".gitattributes", "/.retrace/")


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
        info = dest / ".git" / "info"
        info.mkdir(parents=True, exist_ok=True)
        (info / "sparse-checkout").write_text("".join(line + "\n" for line in CHECKOUT), encoding="utf-8")
        # the repository is this function's own (no template, nothing but what is written here):
        # its settings are not listed before each command (git.run_git's own_repository)
        local = local_git_dir(source.url)
        target = None  # what to check out: the object a local repository's ref names, else what was fetched
        if local is not None:  # every object is already here: borrowed, nothing is transferred
            (dest / ".git" / "objects" / "info").mkdir(parents=True, exist_ok=True)
            (dest / ".git" / "objects" / "info" / "alternates").write_text(
                str((local / "objects").absolute()) + "\n", encoding="utf-8")
            target = local_revision(local, source.rev)
        if target is None:
            depth = [] if local is not None else ["--depth", "1"]
            # no housekeeping after the fetch (git maintenance --auto): the clone lives for one run
            run_git(["-c", "maintenance.auto=false", "-c", "gc.auto=0",
                     "fetch", "-q", *depth, "--no-tags", "--", source.url, source.rev or "HEAD"],
                    cwd=dest, timeout=timeout, own_repository=True)
        # the sparse checkout's setting given to the one command that reads it (no `git config` process)
        run_git(["-c", "core.sparseCheckout=true", "-c", "advice.detachedHead=false",
                 "checkout", "-q", "--detach", target or "FETCH_HEAD"], cwd=dest, timeout=timeout, own_repository=True)
        # the commit its detached HEAD names (no `git rev-parse` process where the file says it)
        return _read_ref(dest / ".git", "HEAD") or output(run_git(["rev-parse", "HEAD"], cwd=dest, own_repository=True))
    except GitError as exc:
        raise CloneError(f"cannot clone: {exc}") from None
    except OSError as exc:
        raise CloneError(f"cannot clone into {dest}: {exc.strerror or exc}") from None


_COMMIT_ID = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")


def local_git_dir(url: str) -> Path | None:
    """The git directory of the repository a ``file://`` URL names on this machine, whose objects a
    clone borrows; else None.

    Found on the file system (``PATH/.git``, or ``PATH`` itself for a bare repository): no git
    command runs in a repository someone else may have written."""
    if not url.startswith("file://"):
        return None
    from urllib.parse import urlparse
    from urllib.request import url2pathname

    parsed = urlparse(url)
    if parsed.netloc not in ("", "localhost"):
        return None
    path = Path(url2pathname(parsed.path))
    git_dir = path / ".git"
    if not git_dir.is_dir():  # a bare repository (or a .git file: a linked work tree, not borrowed)
        git_dir = path if (path / "HEAD").is_file() and not git_dir.exists() else None
    if git_dir is None or (git_dir / "commondir").exists():
        return None
    objects = git_dir / "objects"
    return git_dir if objects.is_dir() and (objects / "pack").is_dir() else None


#: where ``git fetch`` looks for a name on the remote, in its order (git's ``ref_rev_parse_rules``)
_REF_RULES = ("refs/{}", "refs/tags/{}", "refs/heads/{}", "refs/remotes/{}", "refs/remotes/{}/HEAD")
_REF_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/-]*")


def local_revision(git_dir: Path, rev: str | None) -> str | None:
    """The object id that ``rev`` (None: ``HEAD``) names in the repository ``git_dir``, read from its
    files as ``git fetch`` would find it there: ``HEAD`` (followed to its branch), else the first of
    git's rules for a name, a loose ref before the packed ones.  None where its files do not settle
    it (a commit id or an expression: git fetches those and says what is wrong; a ref storage other
    than files): the caller fetches.

    Only files are read -- no git command runs in the source -- and only an object id is taken
    from them; a clone checks out that object from the borrowed objects, as it would check out what
    a fetch of that name gives (an annotated tag is peeled to its commit by the checkout)."""
    if rev is None or rev == "HEAD":
        return _read_ref(git_dir, "HEAD")
    if not _REF_NAME.fullmatch(rev) or ".." in rev or "//" in rev or rev.endswith((".lock", "/", ".")):
        return None
    for rule in ("{}", *_REF_RULES) if rev.startswith("refs/") else _REF_RULES:
        found = _read_ref(git_dir, rule.format(rev))
        if found is not None:
            return found
    return None


def _read_ref(git_dir: Path, name: str, hops: int = 0) -> str | None:
    try:
        loose = (git_dir / name).read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        loose = None
    if loose is not None:
        if _COMMIT_ID.fullmatch(loose):
            return loose
        target = loose[len("ref: "):] if loose.startswith("ref: refs/") else None
        if target is None or hops >= 5 or ".." in target:
            return None
        return _read_ref(git_dir, target, hops + 1)
    if name == "HEAD":
        return None
    try:
        packed = (git_dir / "packed-refs").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    for line in packed.splitlines():
        object_id, _, ref = line.partition(" ")
        if ref == name and _COMMIT_ID.fullmatch(object_id):
            return object_id
    return None


__all__ = ["CLONE_TIMEOUT", "CloneError", "GitSource", "clone", "is_git_url", "local_git_dir", "local_revision",
           "parse_git_root"]
