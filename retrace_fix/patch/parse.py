"""Patches parsed: unified diffs (plain or git) read with :mod:`unidiff` into hunks and file patches.

A :class:`FilePatch` is what a patch says about one file (its paths, with git's
``a/``/``b/`` prefixes stripped and C-quoting undone, and its :class:`Hunk` s);
both write themselves back as patch text (``FILE.rej``, the hunks of ``-i``).
Refused with :class:`PatchError`: text that is not a unified diff, binary
patches, renames and copies, mode-only diffs, and git mode lines asking for more
than a plain file (a mode change, an executable new file, a symbolic link).

Applying hunks to a text is :mod:`retrace_fix.patch.apply_text`; applying saved
patches to the files under a root (``retrace-fix apply``) is
:mod:`retrace_fix.patch.apply_files`; diffs are written by
:mod:`retrace_fix.patch.diffs`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from retrace_fix.patch.diffs import NO_NEWLINE, quote_path

DEV_NULL = "/dev/null"
#: text codec used for patches and files: byte-exact round trip for any
#: ASCII-compatible encoding (UTF-8, Latin-1, ...)
_CODEC, _ERRORS = "utf-8", "surrogateescape"


def decode(data: bytes) -> str:
    """A patch's or a file's bytes as text; :func:`encode` gives back the same bytes."""
    return data.decode(_CODEC, _ERRORS)


def encode(text: str) -> bytes:
    """Text from :func:`decode` (or a patch built from it) as bytes."""
    return text.encode(_CODEC, _ERRORS)


def unquote_path(name: str) -> str:
    """Undo git's C-quoting of a path in a diff header (``"a/caf\\303\\251.py"``)."""
    name = name.rstrip("\r")
    if len(name) < 2 or not (name.startswith('"') and name.endswith('"')):
        return name
    body = name[1:-1]
    raw = bytearray()
    i = 0
    simple = {"n": 10, "t": 9, "r": 13, "a": 7, "b": 8, "f": 12, "v": 11, '"': 34, "\\": 92}
    while i < len(body):
        char = body[i]
        if char == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            if nxt in simple:
                raw.append(simple[nxt])
                i += 2
                continue
            octal = re.match(r"[0-7]{3}", body[i + 1 : i + 4])
            if octal:
                raw.append(int(octal.group(0), 8))
                i += 4
                continue
        raw.extend(encode(char))
        i += 1
    return decode(bytes(raw))


@dataclass
class Hunk:
    """One hunk: ``ops`` are (kind, line) with kind ' ', '-' or '+' and line with its ending."""

    source_start: int
    source_length: int
    target_start: int
    target_length: int
    header: str  # the "@@ ... @@ section" line, with newline
    ops: list[tuple[str, str]] = field(default_factory=list)

    @property
    def old_lines(self) -> list[str]:
        return [text for kind, text in self.ops if kind != "+"]

    @property
    def new_lines(self) -> list[str]:
        return [text for kind, text in self.ops if kind != "-"]

    @property
    def changed_source_lines(self) -> tuple[int, int]:
        """First and last original line number touched (removed, or next to an insertion)."""
        line = self.source_start if self.source_length else self.source_start + 1
        first = last = None
        for kind, _ in self.ops:
            if kind == "-":
                first = line if first is None else first
                last = line
                line += 1
            elif kind == "+":
                first = line if first is None else first
                last = max(last or line, line)
            else:
                line += 1
        if first is None:
            return (self.source_start, self.source_start)
        return (first, last or first)

    def text(self) -> str:
        """The hunk as it appears in a patch (header, lines, no-newline markers)."""
        out = [self.header]
        for kind, line in self.ops:
            if line.endswith("\n"):
                out.append(kind + line)
            else:
                out.append(kind + line + "\n")
                out.append(NO_NEWLINE)
        return "".join(out)


@dataclass
class FilePatch:
    """The hunks a patch has for one file, with its (stripped, unquoted) paths."""

    source: str  # path relative to the root, or DEV_NULL
    target: str
    hunks: list[Hunk]
    patch_name: str = ""  # which patch file it came from

    @property
    def path(self) -> str:
        return self.target if self.target != DEV_NULL else self.source

    @property
    def is_new(self) -> bool:
        return self.source == DEV_NULL

    @property
    def is_deleted(self) -> bool:
        return self.target == DEV_NULL

    def text(self) -> str:
        src = DEV_NULL if self.is_new else _label("a/", self.source)
        dst = DEV_NULL if self.is_deleted else _label("b/", self.target)
        return f"--- {src}\n+++ {dst}\n" + "".join(h.text() for h in self.hunks)


def _label(prefix: str, path: str) -> str:
    return quote_path(prefix + path)


class PatchError(Exception):
    """A patch that cannot be used at all (parse error, unsupported kind, refused path)."""


def _convert_hunk(hunk) -> Hunk:
    header = f"@@ -{hunk.source_start},{hunk.source_length} +{hunk.target_start},{hunk.target_length} @@"
    if hunk.section_header:
        header += " " + hunk.section_header.rstrip("\r\n")
    ops: list[tuple[str, str]] = []
    for line in hunk:
        kind = line.line_type
        if kind == "\\":
            if ops:
                last_kind, last_text = ops[-1]
                if last_text.endswith("\n"):
                    ops[-1] = (last_kind, last_text[:-1])
            continue
        if kind not in (" ", "-", "+"):
            kind = " "  # an empty context line whose leading space was stripped
        ops.append((kind, line.value))
    return Hunk(
        source_start=hunk.source_start,
        source_length=hunk.source_length,
        target_start=hunk.target_start,
        target_length=hunk.target_length,
        header=header + "\n",
        ops=ops,
    )


def parse_patch(text: str, patch_name: str = "<patch>") -> list[FilePatch]:
    """Parse a unified diff (plain or git) into :class:`FilePatch` objects; raises PatchError."""
    from unidiff import PatchSet
    from unidiff.errors import UnidiffParseError

    try:
        patch_set = PatchSet(text)
    except UnidiffParseError as exc:
        raise PatchError(f"{patch_name}: not a valid unified diff: {exc}") from None
    except Exception as exc:  # unidiff raises assorted errors on garbage
        raise PatchError(f"{patch_name}: not a valid unified diff: {type(exc).__name__}: {exc}") from None
    if not len(patch_set):
        raise PatchError(f"{patch_name}: no file differences found in the patch")
    raw = [(unquote_path(pf.source_file or DEV_NULL), unquote_path(pf.target_file or DEV_NULL), pf) for pf in patch_set]
    names = [n for s, t, _ in raw for n in (s, t) if n != DEV_NULL]
    # -p1 when every name carries git's a/ (source) or b/ (target) prefix, as git diff writes them
    strip = all(s == DEV_NULL or s.startswith("a/") for s, _, _ in raw) and all(
        t == DEV_NULL or t.startswith("b/") for _, t, _ in raw
    ) and bool(names)
    result = []
    for source, target, pf in raw:
        if getattr(pf, "is_binary_file", False):
            raise PatchError(f"{patch_name}: {pf.path}: binary patches are not supported")
        mode_problem = _mode_problem(pf)
        if mode_problem:
            raise PatchError(f"{patch_name}: {unquote_path(pf.path)}: {mode_problem}")
        if strip:
            source = source if source == DEV_NULL else source[2:]
            target = target if target == DEV_NULL else target[2:]
        if source == DEV_NULL and target == DEV_NULL:
            raise PatchError(f"{patch_name}: a file diff names /dev/null on both sides")
        if source != DEV_NULL and target != DEV_NULL and source != target:
            raise PatchError(
                f"{patch_name}: {source} -> {target}: renames and copies are not supported"
            )
        if not len(pf) and not (source == DEV_NULL or target == DEV_NULL):
            raise PatchError(f"{patch_name}: {target if target != DEV_NULL else source}: "
                             "no hunks (mode-only, rename-only or empty diffs are not supported)")
        result.append(FilePatch(source, target, [_convert_hunk(h) for h in pf], patch_name))
    return result


#: git's mode lines; only a regular, not executable file (100644) is what ``apply`` writes
_MODE_LINE = re.compile(r"^(old mode|new mode|new file mode|deleted file mode) ([0-7]+)\s*$")
_PLAIN_MODE = "100644"


def _mode_problem(pf) -> str | None:
    """Why a file diff's git mode lines ask for more than ``apply`` does (None: nothing more).

    ``apply`` writes regular files with the permissions they have (new ones: 0644
    less the umask); it never changes modes nor makes symbolic links, so a mode
    change, an executable new file or a symbolic link (120000) is refused rather
    than reported "patched" for something it did not do.
    """
    for line in getattr(pf, "patch_info", None) or ():
        match = _MODE_LINE.match(str(line).rstrip("\r\n"))
        if not match:
            continue
        kind, mode = match.groups()
        if kind in ("old mode", "new mode"):
            return "mode changes are not supported (`old mode`/`new mode`; use `git apply`)"
        if mode == "120000":
            return f"symbolic links are not supported (`{kind} 120000`; use `git apply`)"
        if kind == "deleted file mode" and mode == "100755":
            continue  # deleting an executable file: its content is checked, its mode does not matter
        if mode != _PLAIN_MODE:
            return f"`{kind} {mode}` is not supported (only {_PLAIN_MODE}; use `git apply`)"
    return None


__all__ = ["DEV_NULL", "FilePatch", "Hunk", "PatchError", "decode", "encode", "parse_patch", "unquote_path"]
