"""The paths a patch may write: relative, inside the root, never into ``.git``, ``.hg`` or ``.svn``.

:func:`validate_path` checks a patch's path both as written and resolved (every
symbolic link followed) before ``retrace-fix apply`` writes anything;
:mod:`retrace_fix.sources.writes` checks it once more at write time.
"""

from __future__ import annotations

import os
import posixpath
import re

from retrace_fix.patch.parse import PatchError
from retrace_fix.sources.writes import is_inside, unsafe_reason, vcs_dir_name


class UnsafePath(PatchError):
    """A patch path that would be written outside the root (or into .git)."""


def validate_path(root_real: str, relpath: str) -> str:
    """The real absolute path ``relpath`` names under ``root_real``; raises UnsafePath.

    Refused: empty names, NUL bytes, absolute paths (POSIX or Windows style),
    backslashes, ``..`` that leaves the root, any component naming a
    version-control directory (``.git``, ``.hg``, ``.svn``, in any case or
    spelling a file system treats as the same: see
    :func:`retrace_fix.sources.writes.vcs_dir_name`), and paths whose resolved form
    (symbolic links followed, in any directory on the way or the file itself)
    leaves the root or enters such a directory.
    """
    if not relpath or "\x00" in relpath:
        raise UnsafePath(f"{relpath!r}: empty path or NUL byte")
    if relpath.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", relpath) or relpath.startswith("~"):
        raise UnsafePath(f"{relpath}: absolute path")
    if "\\" in relpath:
        raise UnsafePath(f"{relpath}: backslash in path")
    normal = posixpath.normpath(relpath)
    if normal in (".", "..") or normal.startswith("../"):
        raise UnsafePath(f"{relpath}: leaves the root")
    for part in normal.split("/"):
        vcs = vcs_dir_name(part)
        if vcs is not None:
            raise UnsafePath(f"{relpath}: inside {vcs}")
    full = os.path.join(root_real, *normal.split("/"))
    real = os.path.realpath(full)
    if not is_inside(root_real, real):
        raise UnsafePath(f"{relpath}: goes through a symbolic link that leaves the root (to {real})")
    reason = unsafe_reason(real, root_real)
    if reason is not None:
        raise UnsafePath(f"{relpath}: {reason}")
    return real


def non_directory_parent(root_real: str, real: str) -> str | None:
    """The first directory on the way from the root to ``real`` that exists but is not a directory."""
    parts = os.path.relpath(os.path.dirname(real), root_real).split(os.sep)
    path = root_real
    for part in parts:
        if part in ("", "."):
            continue
        path = os.path.join(path, part)
        if not os.path.lexists(path):
            return None
        if not os.path.isdir(path):
            return os.path.relpath(path, root_real).replace(os.sep, "/")
    return None


__all__ = ["UnsafePath", "non_directory_parent", "validate_path"]
