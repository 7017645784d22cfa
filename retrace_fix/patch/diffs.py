"""Unified diffs of two texts (difflib), the one way retrace-fix writes a diff.

Diffs use git's ``a/`` and ``b/`` prefixes, so that they apply with ``git apply``
or ``patch -p1`` as well as with ``retrace-fix apply``.  Lines are split on
``\\n`` only, as git and patch do; a last line without a newline gets git's
``\\ No newline at end of file`` marker.

One choice is left to the caller, and :func:`unified_diff` requires it:
``quoted=True`` C-quotes a path in the ``---``/``+++`` headers as git does with
``core.quotePath`` on (its default: a control character, a double quote, a
backslash or a byte outside ASCII in it), so that a patch file names the file
exactly for the tools that read it back (``--patch-dir``, the hunks of ``-i``)
and no escape sequence or newline in a file name reaches a terminal or breaks
the diff (``--diff``); ``quoted=False`` writes the path as it is.  Both give
the same bytes for every ordinary path.
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


#: git's C escapes (quote.c, ``sq_lookup``); other bytes to quote are written as three octal digits
_ESCAPES = {0x07: "\\a", 0x08: "\\b", 0x09: "\\t", 0x0A: "\\n", 0x0B: "\\v", 0x0C: "\\f", 0x0D: "\\r",
            0x22: '\\"', 0x5C: "\\\\"}


def quote_path(path: str) -> str:
    """``path`` as git writes it in a diff header with ``core.quotePath`` on (git's default):
    C-quoted when it holds a control character, a double quote, a backslash or a
    byte outside ASCII (each such byte of its UTF-8 form as ``\\ooo``)."""
    if not re.search(r'[\x00-\x1f"\\\x7f-\U0010ffff]', path):
        return path
    try:
        data = path.encode("utf-8", "surrogateescape")  # undecodable bytes of an os name, as they were
    except UnicodeEncodeError:
        data = path.encode("utf-8", "surrogatepass")
    out = []
    for byte in data:
        if byte in _ESCAPES:
            out.append(_ESCAPES[byte])
        elif byte < 0x20 or byte >= 0x7F:
            out.append(f"\\{byte:03o}")
        else:
            out.append(chr(byte))
    return '"' + "".join(out) + '"'
