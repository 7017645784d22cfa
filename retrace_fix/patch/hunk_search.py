"""Where does a hunk's text sit in a file?  Nearest to the stated line first, in bounded time.

``patch`` and ``git apply`` look for a hunk's context at the line the hunk
names and then further and further away.  Done naively that compares the hunk
at every line of the file: a hunk that matches nowhere costs a pass over the
whole file, and a patch of many such hunks on a large file takes minutes.

Here each file gets an index (line text -> the sorted positions where it
occurs), built once and shared by all hunks.  A hunk is only tried where its
rarest line occurs (a hunk with a line that occurs nowhere is rejected at once),
nearest to the expected position first, so the result is the one a full scan
would give.  Every line comparison is counted against a budget proportional to
the size of the file and of the patch; a file whose hunks exhaust it (only
pathological input: hunks made of lines that occur everywhere) gets its
remaining hunks rejected to the ``.rej`` file, never a wrong match.
"""

from __future__ import annotations

from bisect import bisect_left
from typing import Sequence

#: Line comparisons allowed per file: this many per line of the file and of the hunks searched, plus a floor.
BUDGET_PER_LINE = 16
BUDGET_FLOOR = 100_000


def eol(line: str) -> str:
    """The line's ending: ``\\r\\n``, ``\\n`` or '' (last line without newline)."""
    if line.endswith("\r\n"):
        return "\r\n"
    if line.endswith("\n"):
        return "\n"
    return ""


def strip_eol(line: str) -> str:
    return line[: len(line) - len(eol(line))]


class HunkSearch:
    """Finds hunks' old (or new) lines in one file's lines; create one per file and reuse it."""

    def __init__(self, lines: Sequence[str]):
        self.lines = lines
        self._index: dict[bool, dict[str, list[int]]] = {}
        self.budget = BUDGET_FLOOR + BUDGET_PER_LINE * len(lines)
        self.exhausted = False

    def _positions(self, loose: bool) -> dict[str, list[int]]:
        table = self._index.get(loose)
        if table is None:
            table = {}
            for number, line in enumerate(self.lines):
                table.setdefault(strip_eol(line) if loose else line, []).append(number)
            self._index[loose] = table
        return table

    def matches_at(self, pos: int, wanted: Sequence[str], loose: bool) -> bool:
        """``wanted`` is at ``pos`` (exactly, or ignoring line endings with ``loose``)."""
        lines = self.lines
        if pos < 0 or pos + len(wanted) > len(lines):
            return False
        for offset, line in enumerate(wanted):
            self.budget -= 1
            have = lines[pos + offset]
            if have != line and not (loose and strip_eol(have) == strip_eol(line)):
                return False
        return True

    def find(self, wanted: Sequence[str], expected: int, lower: int, loose: bool) -> int | None:
        """Position of ``wanted`` at or after ``lower``, nearest ``expected`` first (ties: earlier)."""
        lines = self.lines
        expected = max(lower, min(expected, len(lines)))
        if not wanted:  # pure insertion without context: only where the patch says
            return expected if lower <= expected <= len(lines) else None
        if len(wanted) > len(lines):
            return None
        self.budget += BUDGET_PER_LINE * len(wanted)
        table = self._positions(loose)
        anchor, occurrences = 0, None
        for offset, line in enumerate(wanted):
            found = table.get(strip_eol(line) if loose else line)
            if not found:
                return None  # a line that is nowhere in the file
            if occurrences is None or len(found) < len(occurrences):
                anchor, occurrences = offset, found
                if len(found) == 1:
                    break
        assert occurrences is not None
        last_start = len(lines) - len(wanted)
        right = bisect_left(occurrences, expected + anchor)
        left = right - 1
        while left >= 0 or right < len(occurrences):
            if self.budget <= 0:
                self.exhausted = True
                return None
            left_pos = occurrences[left] - anchor if left >= 0 else None
            right_pos = occurrences[right] - anchor if right < len(occurrences) else None
            if right_pos is None or (left_pos is not None and expected - left_pos <= right_pos - expected):
                pos, left = left_pos, left - 1
                if pos < lower:  # everything further left is below ``lower`` too
                    left = -1
                    continue
            else:
                pos, right = right_pos, right + 1
                if pos > last_start:  # everything further right does not fit either
                    right = len(occurrences)
                    continue
            if pos >= lower and self.matches_at(pos, wanted, loose):
                return pos
        return None


__all__ = ["BUDGET_FLOOR", "BUDGET_PER_LINE", "HunkSearch", "eol", "strip_eol"]
