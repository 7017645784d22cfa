"""Hunks applied to one text, all or nothing, with offsets and line endings handled as ``patch`` does.

A hunk whose context is found a few lines away from where the patch says still
applies (nearest first, in bounded time: :mod:`retrace_fix.patch.hunk_search`),
and the offset is reported; a text whose line endings differ from the patch's
(CRLF vs LF) still matches and keeps its own line endings.  When some hunk does
not match, nothing is applied, and the outcome says whether every hunk's result
is already there (the patch was applied before).

Shared by ``retrace-fix apply`` (:mod:`retrace_fix.patch.apply_files`) and ``-i``
(:mod:`retrace_fix.patch.interactive`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from retrace_fix.patch.diffs import split_lines
from retrace_fix.patch.hunk_search import HunkSearch
from retrace_fix.patch.hunk_search import eol as _eol
from retrace_fix.patch.hunk_search import strip_eol as _strip_eol
from retrace_fix.patch.parse import Hunk


@dataclass
class HunkResult:
    index: int  # 1-based within the file
    hunk: Hunk
    applied: bool
    offset: int = 0  # lines away from where the patch said
    loose_eol: bool = False  # matched only after ignoring line endings


@dataclass
class TextOutcome:
    text: str | None  # the new text (None when some hunk did not match)
    hunks: list[HunkResult]
    already_applied: bool = False
    search_exhausted: bool = False  # some hunk was not searched to the end (see hunk_search)

    @property
    def ok(self) -> bool:
        return self.text is not None

    def notes(self) -> list[str]:
        notes = []
        for result in self.hunks:
            if result.applied and result.offset:
                sign = "+" if result.offset > 0 else ""
                notes.append(f"hunk {result.index} applied at offset {sign}{result.offset} "
                             f"line{'s' if abs(result.offset) != 1 else ''}")
            if result.applied and result.loose_eol:
                notes.append(f"hunk {result.index}: line endings differ from the patch; kept the file's")
        return notes


def _dominant_eol(lines: Sequence[str]) -> str:
    crlf = sum(1 for line in lines if line.endswith("\r\n"))
    return "\r\n" if crlf * 2 > len(lines) else "\n"


def apply_hunks(text: str, hunks: Sequence[Hunk], allow_offset: bool = True) -> TextOutcome:
    """Apply ``hunks`` (in order) to ``text``; all or nothing.

    Context and removed lines must match exactly, or — when the file's line
    endings differ from the patch's — after ignoring line endings (added lines
    then take the file's line ending).  With ``allow_offset`` a hunk may match
    a few lines away from its stated position (nearest first).
    """
    lines = split_lines(text)
    search = HunkSearch(lines)
    file_eol: str | None = None
    results: list[HunkResult] = []
    edits: list[tuple[int, int, list[str]]] = []
    lower = 0
    drift = 0
    for index, hunk in enumerate(hunks, 1):
        wanted = hunk.old_lines
        expected = (hunk.source_start - 1 if hunk.source_length else hunk.source_start) + drift
        pos = None
        loose = False
        for loose_try in (False, True):
            if allow_offset:
                pos = search.find(wanted, expected, lower, loose_try)
            elif expected >= lower and search.matches_at(expected, wanted, loose_try):
                pos = expected
            if pos is not None:
                loose = loose_try
                break
        if pos is None:
            results.append(HunkResult(index, hunk, applied=False))
            continue
        offset = pos - (hunk.source_start - 1 if hunk.source_length else hunk.source_start)
        drift = offset
        replacement: list[str] = []
        if wanted:
            eol = _dominant_eol(lines[pos : pos + len(wanted)])
        else:
            if file_eol is None:
                file_eol = _dominant_eol(lines)
            eol = file_eol
        cursor = pos
        for kind, line in hunk.ops:
            if kind == " ":
                replacement.append(lines[cursor])  # the file's own line (its own ending)
                cursor += 1
            elif kind == "-":
                cursor += 1
            else:
                if loose:
                    region_end = lines[pos + len(wanted) - 1] if wanted else ""
                    keep_missing = not _eol(line) and wanted and not _eol(region_end)
                    line = _strip_eol(line) + ("" if keep_missing else eol)
                replacement.append(line)
        edits.append((pos, len(wanted), replacement))
        results.append(HunkResult(index, hunk, applied=True, offset=offset, loose_eol=loose))
        lower = pos + len(wanted)
    if not all(r.applied for r in results):
        already = _already_applied(search, hunks)
        return TextOutcome(None, results, already_applied=already, search_exhausted=search.exhausted)
    out = list(lines)
    for pos, length, replacement in reversed(edits):
        out[pos : pos + length] = replacement
    # fix up a missing newline in the middle of the file (a hunk ended at a line without
    # newline that is no longer last): impossible for well-formed patches, guard anyway
    for i in range(len(out) - 1):
        if not out[i].endswith("\n"):
            out[i] += _dominant_eol(out)
    return TextOutcome("".join(out), results)


def _already_applied(search: HunkSearch, hunks: Sequence[Hunk]) -> bool:
    """True when every hunk's result (context + added lines) is already in the file, in order."""
    lower = 0
    for hunk in hunks:
        wanted = hunk.new_lines
        if not wanted or hunk.new_lines == hunk.old_lines:
            return False
        expected = hunk.target_start - 1 if hunk.target_length else hunk.target_start
        pos = search.find(wanted, expected, lower, loose=False)
        if pos is None:
            pos = search.find(wanted, expected, lower, loose=True)
        if pos is None:
            return False
        lower = pos + len(wanted)
    return True


__all__ = ["HunkResult", "TextOutcome", "apply_hunks"]
