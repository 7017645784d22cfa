"""Where recorded code stands: project files and the frames of a call that traced.

:func:`relative_source_path` names a code object's file relative to the project
root (None for code outside it, in site-packages or generated);
:func:`callers` lists the frames above a call (file, line and, on Python 3.11+,
the column of the call being made), innermost first, for the recorder's
``call_sites``.  Pure standard library.
"""

from __future__ import annotations

import itertools
import os
from typing import Any

_IGNORED_DIR_NAMES = frozenset({"site-packages", "dist-packages"})
_START_CWD = os.getcwd()


def relative_source_path(filename: str, project_root: str) -> str | None:
    """``filename`` as a POSIX path relative to ``project_root``; None when it is not project code."""
    if not filename or filename.startswith("<"):
        return None
    if not os.path.isabs(filename):
        filename = os.path.join(_START_CWD, filename)
    real = os.path.realpath(filename)
    try:
        rel = os.path.relpath(real, project_root)
    except ValueError:  # another drive on Windows
        return None
    parts = rel.split(os.sep)
    if parts[0] == os.pardir or os.path.isabs(rel):
        return None
    if _IGNORED_DIR_NAMES.intersection(parts):
        return None
    return "/".join(parts)


_MAX_CALLER_FRAMES = 40


def callers(frame: Any) -> list[tuple[str, int, int | None]]:
    """``(filename, line, column)`` of ``frame`` and the frames above it (innermost first).

    The column (0-based, in UTF-8 bytes as Python counts it) of the call being made comes from
    ``co_positions()`` on Python 3.11+; None before.
    """
    found = []
    while frame is not None and len(found) < _MAX_CALLER_FRAMES:
        code = frame.f_code
        column = None
        positions = getattr(code, "co_positions", None)
        if positions is not None and frame.f_lasti >= 0:
            try:
                position = next(itertools.islice(positions(), frame.f_lasti // 2, None), None)
            except Exception:  # pragma: no cover - defensive
                position = None
            if position is not None and position[2] is not None:
                column = position[2]
        found.append((code.co_filename, frame.f_lineno, column))
        frame = frame.f_back
    return found
