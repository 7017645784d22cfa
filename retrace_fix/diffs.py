"""Unified diffs of two texts (difflib), the one way retrace-fix writes a diff.

Diffs use git's ``a/`` and ``b/`` prefixes, so that they apply with ``git apply``
or ``patch -p1`` as well as with ``retrace-fix apply``.  Lines are split on
``\\n`` only, as git and patch do; a last line without a newline gets git's
``\\ No newline at end of file`` marker.

One choice is left to the caller, and :func:`unified_diff` requires it:
``quoted=True`` C-quotes a path in the ``---``/``+++`` headers where git would
(a control character, a double quote or a backslash in it), so that a patch file
names the file exactly for the tools that read it back (``--patch-dir``, the
hunks of ``-i``); ``quoted=False`` writes the path as it is, for people reading
``--diff`` output.  Both give the same bytes for every ordinary path.
"""

from __future__ import annotations

import difflib
import re

NO_NEWLINE = "\\ No newline at end of file\n"


def unified_diff(old: str, new: str, path: str, *, quoted: bool, context: int = 3) -> str:
    """A unified diff of two texts of the file at display path ``path`` ('' when equal).

    ``quoted``: C-quote the path in the headers where git would (patch files), or
    leave it as it is (``--diff`` output).
    """
    old_label, new_label = f"a/{path}", f"b/{path}"
    if quoted:
        old_label, new_label = quote_path(old_label), quote_path(new_label)
    return labelled_diff(old, new, old_label, new_label, context)


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


def quote_path(path: str) -> str:
    """``path`` as git writes it in a diff header: C-quoted only when it holds a control
    character, a double quote or a backslash (non-ASCII names are left as they are)."""
    if not re.search(r'[\x00-\x1f"\\\x7f]', path):
        return path
    escapes = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r"}
    out = []
    for char in path:
        if char in escapes:
            out.append(escapes[char])
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            out.append(f"\\{ord(char):03o}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'
