"""Unified diffs (difflib).  Files are written by :mod:`retrace_fix.writes`.

Diffs use git's ``a/`` and ``b/`` prefixes so that they apply with ``git apply``
or ``patch -p1`` as well as with ``retrace-fix apply``.
"""

from __future__ import annotations

import difflib

NO_NEWLINE = "\\ No newline at end of file\n"


def unified_diff(old: str, new: str, path: str, context: int = 3) -> str:
    """A unified diff of two texts of the file at display path ``path`` ('' when equal)."""
    return labelled_diff(old, new, f"a/{path}", f"b/{path}", context)


def labelled_diff(old: str, new: str, old_label: str, new_label: str, context: int = 3) -> str:
    """A unified diff with the given ``---``/``+++`` labels ('' when equal), lines split on ``\\n`` only."""
    if old == new:
        return ""
    out: list[str] = []
    for line in difflib.unified_diff(split_lines(old), split_lines(new), old_label, new_label, n=context):
        if line.endswith("\n"):
            out.append(line)
        else:  # last line of a file without a trailing newline
            out.append(line + "\n")
            out.append(NO_NEWLINE)
    return "".join(out)


def split_lines(text: str) -> list[str]:
    """Lines with their endings, split on ``\\n`` only, as git and patch do.

    ``str.splitlines`` would also split at form feeds, ``\\x1c``-``\\x1e``,
    ``\\u2028`` and lone ``\\r``, which Python source may hold inside a line: the
    diff would then break lines apart that no patch tool sees as separate.
    """
    if not text:
        return []
    lines = text.split("\n")
    out = [line + "\n" for line in lines[:-1]]
    if lines[-1]:
        out.append(lines[-1])
    return out
