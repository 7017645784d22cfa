"""Hunks taken apart and edited by hand, as ``git add -p`` does (``s`` and ``e`` of ``-i``).

* :func:`split_hunk` cuts a hunk at its unchanged lines: one smaller hunk per
  run of changed lines, each with the unchanged lines around it (so two
  neighbours share the lines between them).
* :func:`edit_buffer` / :func:`parse_edited` are the text an editor gets for a
  hunk and the hunk read back from it: ``#`` lines are dropped, the ``@@``
  header is recomputed, every other line must start with ``' '``, ``'-'`` or
  ``'+'``.  The edited hunk starts where the original did; whether it still
  applies is checked against the file's text by the caller.
* :func:`merge_overlapping` joins accepted hunks whose lines overlap (the
  pieces of a split hunk), so that they apply together in one pass.
"""

from __future__ import annotations

from retrace_fix.patch.diffs import split_lines
from retrace_fix.patch.parse import Hunk

EDIT_HEADER = "# Manual hunk edit mode -- see bottom for a quick guide.\n"
EDIT_GUIDE = """\
# ---
# To remove '-' lines, make them ' ' lines (context).
# To remove '+' lines, delete them.
# Lines starting with # will be removed.
#
# If the edited hunk applies cleanly (and the file still parses), it is marked
# to be applied. If it does not, you will be given an opportunity to edit
# again. If all lines of the hunk are removed, the edit is aborted and the
# hunk is left as it was.
"""


class EditError(Exception):
    """An edited hunk that cannot be read back (a line of an unknown kind)."""


def make_hunk(source_start: int, target_start: int, ops: list[tuple[str, str]]) -> Hunk:
    """A hunk of ``ops`` whose first line is line ``source_start`` of the old text
    (``target_start`` of the new); counts and the ``@@`` header are computed."""
    old = sum(1 for kind, _ in ops if kind != "+")
    new = sum(1 for kind, _ in ops if kind != "-")
    source = source_start if old else source_start - 1  # unified diffs name the line before an empty side
    target = target_start if new else target_start - 1
    header = f"@@ -{source},{old} +{target},{new} @@\n"
    return Hunk(source_start=source, source_length=old, target_start=target, target_length=new,
                header=header, ops=list(ops))


def _first_lines(hunk: Hunk) -> tuple[int, int]:
    """The old and new line numbers of the hunk's first line (also when a side is empty)."""
    old = hunk.source_start if hunk.source_length else hunk.source_start + 1
    new = hunk.target_start if hunk.target_length else hunk.target_start + 1
    return old, new


def split_hunk(hunk: Hunk) -> list[Hunk]:
    """The hunk cut at its unchanged lines (``[hunk]`` when it has one run of changes)."""
    kinds = [kind for kind, _ in hunk.ops]
    blocks: list[tuple[int, int]] = []  # [start, end) of each run of changed lines
    i = 0
    while i < len(kinds):
        if kinds[i] == " ":
            i += 1
            continue
        start = i
        while i < len(kinds) and kinds[i] != " ":
            i += 1
        blocks.append((start, i))
    if len(blocks) < 2:
        return [hunk]
    old_at, new_at = [], []  # the old/new line number each op starts at
    old, new = _first_lines(hunk)
    for kind in kinds:
        old_at.append(old)
        new_at.append(new)
        old += kind != "+"
        new += kind != "-"
    pieces = []
    for number, (start, end) in enumerate(blocks):
        first = blocks[number - 1][1] if number else 0
        last = blocks[number + 1][0] if number + 1 < len(blocks) else len(kinds)
        pieces.append(make_hunk(old_at[first], new_at[first], hunk.ops[first:last]))
    return pieces


def can_split(hunk: Hunk) -> bool:
    return len(split_hunk(hunk)) > 1


def edit_buffer(hunk: Hunk) -> str:
    """What the editor shows for ``hunk``."""
    return EDIT_HEADER + hunk.text() + EDIT_GUIDE


def parse_edited(text: str, original: Hunk) -> Hunk | None:
    """The hunk read back from an edited :func:`edit_buffer`; None when every line was removed.

    Raises :class:`EditError` for a line that is none of ``' '``, ``'-'``, ``'+'``, ``'#'``.
    """
    ops: list[tuple[str, str]] = []
    for number, line in enumerate(split_lines(text), 1):
        if line.startswith("#"):
            continue
        if line.startswith("@@") and not ops:
            continue  # the header: recomputed below
        if line.startswith("\\"):  # "\ No newline at end of file": the line before has none
            if ops:
                kind, last = ops[-1]
                ops[-1] = (kind, last[:-2] if last.endswith("\r\n") else last.rstrip("\n"))
            continue
        if line in ("\n", "\r\n"):  # an empty unchanged line whose leading space an editor removed
            ops.append((" ", line))
            continue
        if line[:1] not in (" ", "-", "+"):
            raise EditError(f"line {number} starts with none of ' ', '-', '+', '#': {line.rstrip()!r}")
        body = line[1:]
        ops.append((line[0], body if body.endswith("\n") else body + "\n"))
    if not ops:
        return None
    old, new = _first_lines(original)
    return make_hunk(old, new, ops)


def merge_overlapping(hunks: list[Hunk]) -> list[Hunk]:
    """``hunks`` (of one file, in order) with every group that shares old lines joined into one.

    A line one hunk removes and another keeps is removed; lines both add at the
    same place come in hunk order.
    """
    merged: list[Hunk] = []
    for hunk in sorted(hunks, key=lambda h: _first_lines(h)[0]):
        if merged and _first_lines(hunk)[0] < _first_lines(merged[-1])[0] + merged[-1].source_length:
            merged[-1] = _join(merged[-1], hunk)
        else:
            merged.append(hunk)
    return merged


def _join(first: Hunk, second: Hunk) -> Hunk:
    start = _first_lines(first)[0]
    end = max(start + first.source_length, _first_lines(second)[0] + second.source_length)
    kept: dict[int, tuple[str, str]] = {}  # old line number -> (' ' or '-', text)
    added: dict[int, list[str]] = {}  # old line number -> lines added before it
    for hunk in (first, second):
        line = _first_lines(hunk)[0]
        for kind, text in hunk.ops:
            if kind == "+":
                added.setdefault(line, []).append(text)
                continue
            if kind == "-" or line not in kept:
                kept[line] = (kind, text)
            line += 1
    ops: list[tuple[str, str]] = []
    for line in range(start, end + 1):
        ops.extend(("+", text) for text in added.get(line, []))
        if line < end:
            ops.append(kept[line])
    return make_hunk(start, _first_lines(first)[1], ops)


__all__ = ["EditError", "can_split", "edit_buffer", "make_hunk", "merge_overlapping", "parse_edited", "split_hunk"]
