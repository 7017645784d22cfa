"""Map line numbers of an edited text back to the text it was made from.

Codemods run one after another on the same tree.  When an earlier one edits
the tree (adds ``import tensorflow as tf``, splits a call over lines), a later
one sees and reports positions in the edited code; users, SARIF viewers and the
hunk review need positions in the file as it is on disk.  This maps them back
with :mod:`difflib`: a line that survived unchanged maps to its original line,
a line inside a replaced block maps to the matching line of the block it
replaced (its last line when the new block is longer), and an inserted line
maps to the original line it was inserted before.
"""

from __future__ import annotations

import bisect
import difflib
import re
from typing import Callable

#: line ends as Python's tokenizer (hence LibCST positions) and SARIF count them
NEWLINE = re.compile(r"\r\n|\r|\n")


#: line breaks ``str.splitlines`` knows besides CRLF, LF and CR
_OTHER_BREAKS = re.compile("[\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")


def source_lines(text: str) -> list[str]:
    """Lines with their ends, split on CRLF, LF and CR only (not form feeds or ``\\u2028``):
    ``str.splitlines`` where the text holds none of the other breaks it knows (nearly always)."""
    if _OTHER_BREAKS.search(text) is None:
        return text.splitlines(True)
    lines, start = [], 0
    for match in NEWLINE.finditer(text):
        lines.append(text[start : match.end()])
        start = match.end()
    if start < len(text):
        lines.append(text[start:])
    return lines


class LineMap:
    """``original_line(n)``: the 1-based line of ``original`` that line ``n`` of ``edited`` comes from."""

    def __init__(self, original: str, edited: str) -> None:
        old = source_lines(original)
        new = source_lines(edited)
        self._old_count = len(old)
        matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
        self._opcodes = matcher.get_opcodes()
        self._starts = [j1 for _tag, _i1, _i2, j1, _j2 in self._opcodes]

    def original_line(self, line: int) -> int:
        j = line - 1
        if j < 0 or not self._opcodes:
            return line
        index = max(0, bisect.bisect_right(self._starts, j) - 1)
        tag, i1, i2, j1, _j2 = self._opcodes[index]
        if tag == "equal":
            i = i1 + (j - j1)
        elif tag == "replace":
            i = i1 + min(j - j1, i2 - i1 - 1)
        else:  # "insert": the line the insertion sits before ("delete" blocks hold no edited line)
            i = i1
        return max(1, min(i + 1, max(self._old_count, 1)))


class LazyLineMap:
    """A :class:`LineMap` of ``original`` and ``edited()``, made on the first question.

    A codemod that runs after an edit is handed ``original_line`` for its messages ("the loop at
    line 12") and fix identities; most never ask, and the diff costs time on a large file.
    """

    def __init__(self, original: str, edited: Callable[[], str]) -> None:
        self._original = original
        self._edited = edited
        self._map: LineMap | None = None

    def original_line(self, line: int) -> int:
        if self._map is None:
            self._map = LineMap(self._original, self._edited())
        return self._map.original_line(line)
