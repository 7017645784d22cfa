"""What is on disk under a directory, to prove that a command changed nothing it should not.

``digest(top)`` maps every entry below ``top`` (links not followed) to its kind
and content hash, permission bits included; two digests compare equal exactly
when nothing was created, removed, rewritten, re-linked or re-moded.
"""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path


def digest(top: Path | str) -> dict[str, tuple]:
    """``{relative path: (kind, content hash or link target, mode)}`` for everything under ``top``."""
    top = os.fspath(top)
    seen: dict[str, tuple] = {}
    for dirpath, dirnames, filenames in os.walk(top):
        for name in sorted(dirnames + filenames):
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, top)
            info = os.lstat(path)
            mode = stat.S_IMODE(info.st_mode)
            if stat.S_ISLNK(info.st_mode):
                seen[rel] = ("link", os.readlink(path), mode)
            elif stat.S_ISDIR(info.st_mode):
                seen[rel] = ("dir", "", mode)
            elif stat.S_ISREG(info.st_mode):
                with open(path, "rb") as handle:
                    seen[rel] = ("file", hashlib.sha256(handle.read()).hexdigest(), mode)
            else:
                seen[rel] = ("other", stat.S_IFMT(info.st_mode), mode)
    return seen


def changed(before: dict[str, tuple], after: dict[str, tuple]) -> list[str]:
    """The paths whose entry differs (created, removed or changed), sorted."""
    return sorted(p for p in set(before) | set(after) if before.get(p) != after.get(p))


def tree_and_parent(root: Path) -> tuple[dict[str, tuple], dict[str, tuple]]:
    """The digests of ``root`` and of its parent directory (which holds ``root`` too)."""
    return digest(root), digest(root.parent)
