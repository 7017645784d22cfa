"""Atomic writes, and the directories they need.  (Diffs: :mod:`retrace_fix.diffs`.)"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path


def atomic_write(path: Path, data: bytes, expected_old: bytes | None = None) -> None:
    """Replace ``path``'s content with ``data`` via a temporary file and ``os.replace``.

    Keeps the file's permission bits; writes through a symbolic link to its
    target.  With ``expected_old``, refuses (``FileChangedError``) when the file
    no longer holds those bytes (it changed while we were working on it).
    """
    target = Path(os.path.realpath(path))
    # No write permission bit at all means read-only on purpose, even for root
    # (whom os.access would let through).
    if not os.access(target, os.W_OK) or not stat.S_IMODE(target.stat().st_mode) & 0o222:
        raise FileChangedError("file is read-only; not written")
    if expected_old is not None:
        try:
            current = target.read_bytes()
        except OSError as exc:
            raise FileChangedError(f"cannot re-read before writing ({exc.strerror})") from None
        if current != expected_old:
            raise FileChangedError("changed on disk during the run; not written")
    info = target.stat()
    mode = stat.S_IMODE(info.st_mode)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".retrace-tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp_name, mode)
        if hasattr(os, "chown") and (info.st_uid, info.st_gid) != (os.getuid(), os.getgid()):
            try:  # keep the owner (only root may give a file away; others keep theirs)
                os.chown(tmp_name, info.st_uid, info.st_gid)
            except OSError:
                pass
        os.replace(tmp_name, target)
    except BaseException:
        try:
            os.unlink(tmp_name)
        except OSError:
            pass
        raise


class FileChangedError(Exception):
    """Writing is refused: the file changed on disk since it was read, or it is read-only."""


#: the directory retrace-fix keeps its own files in (``record`` writes ``.retrace/traces.json``)
RETRACE_DIR = ".retrace"
#: what a ``.retrace`` directory retrace-fix creates holds, so that git ignores it (as ruff's cache does)
RETRACE_DIR_GITIGNORE = "# Automatically created by retrace-fix.\n*\n"


def make_parent_dirs(path: str | os.PathLike) -> None:
    """Create the missing directories above ``path``.

    A ``.retrace`` directory created here gets a ``.gitignore`` that ignores
    everything in it, itself included, so recorded traces never end up in a
    commit by accident.  A ``.retrace`` directory that already existed is left
    as it is (its owner may keep its files in git on purpose).
    """
    directory = Path(os.path.abspath(path)).parent
    missing = []
    current = directory
    while not current.exists() and current.parent != current:
        missing.append(current)
        current = current.parent
    os.makedirs(directory, exist_ok=True)
    for created in missing:
        if created.name == RETRACE_DIR:
            try:
                with open(created / ".gitignore", "x", encoding="utf-8") as handle:
                    handle.write(RETRACE_DIR_GITIGNORE)
            except OSError:  # another process made it first, or it cannot be written: never fail a save for it
                pass
