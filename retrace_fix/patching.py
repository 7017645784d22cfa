"""Atomic writes.  (Diffs: :mod:`retrace_fix.diffs`.)"""

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
