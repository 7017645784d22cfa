"""Patches: parsed, applied to a text, applied to a tree of files (``retrace-fix apply``).

The patch primitives shared with :mod:`retrace_fix.interactive` and
:mod:`retrace_fix.bulk.run`: parsing with :mod:`unidiff` and applying hunks to a
text with offset search (diffs are written by :mod:`retrace_fix.diffs`); and
the work of ``retrace-fix apply PATCH... [--root DIR] [--dry-run]``
(:mod:`retrace_fix.commands.apply` is the command's entry), which applies saved
patches safely.

What ``apply`` guarantees:

* **Nothing is written before everything is checked.**  Every patch is parsed
  and every path of every patch is validated first; a patch naming an absolute
  path, a path whose ``..`` leaves the root, a path inside ``.git``, or a path
  that goes through a symbolic link leading out of the root makes the whole
  command refuse (exit 2) without touching anything.  The same is checked
  on the *resolved* path (every symbolic link followed): a path that ends up
  inside ``.git``, ``.hg`` or ``.svn`` (any case) or outside the root is
  refused, and :mod:`retrace_fix.writes` checks it once more at write time.
* **All or nothing per file.**  A file is written only when every hunk for it
  (from every patch given) matches.  Otherwise it is left untouched and all of
  its hunks go to ``FILE.rej`` (a valid patch, so it can be applied later).
* **Offsets like ``patch``.**  A hunk whose context is found a few lines away
  from where the patch says still applies; the offset is reported.  A file
  whose line endings differ from the patch's (CRLF vs LF) still matches; the
  file keeps its own line endings, and that is reported too.
* **Already applied** (every hunk's result is already there): reported and
  skipped, no ``.rej``.
* **New and deleted files** (``--- /dev/null`` / ``+++ /dev/null``) are
  supported: a new file is created only if it does not exist (or already has
  exactly that content); a file is deleted only if it has exactly the content
  the patch removes.  Renames, copies, mode-only and binary patches are refused,
  and so is any git mode line asking for more than a plain file: a mode change
  (``old mode``/``new mode``), a new executable file, a symbolic link
  (``new file mode 120000``).
* **Atomic writes.**  Each file is replaced via a temporary file and
  ``os.replace``; Ctrl-C, SIGTERM and SIGHUP are held back until the write
  phase is over (then delivered), so an interrupted run never leaves a
  half-written file, a temporary file or a half-applied patch set.

Exit codes: 0 everything applied (or already applied), 1 some file rejected
(see its ``.rej``), 2 an error (bad patch, refused path, unreadable file, write
failure).
"""

from __future__ import annotations

import os
import posixpath
import re
import signal
import stat
import sys
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Iterator, List, Sequence

from retrace_fix.bounded_read import InputError, read_limited
from retrace_fix.diffs import NO_NEWLINE, quote_path, split_lines
from retrace_fix.hunk_search import HunkSearch
from retrace_fix.hunk_search import eol as _eol
from retrace_fix.hunk_search import strip_eol as _strip_eol
from retrace_fix.writes import (
    WriteRefused,
    create_file,
    delete_file,
    is_inside,
    replace_file,
    unsafe_reason,
    vcs_dir_name,
    write_file,
)

EXIT_OK, EXIT_REJECTED, EXIT_ERROR = 0, 1, 2
DEV_NULL = "/dev/null"
#: text codec used for patches and files: byte-exact round trip for any
#: ASCII-compatible encoding (UTF-8, Latin-1, ...)
_CODEC, _ERRORS = "utf-8", "surrogateescape"


# =========================================================================== primitives


def decode(data: bytes) -> str:
    return data.decode(_CODEC, _ERRORS)


def encode(text: str) -> bytes:
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


# --------------------------------------------------------------------------- hunks


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


# --------------------------------------------------------------------------- applying


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


# =========================================================================== paths


class UnsafePath(PatchError):
    """A patch path that would be written outside the root (or into .git)."""


def validate_path(root_real: str, relpath: str) -> str:
    """The real absolute path ``relpath`` names under ``root_real``; raises UnsafePath.

    Refused: empty names, NUL bytes, absolute paths (POSIX or Windows style),
    backslashes, ``..`` that leaves the root, any component naming a
    version-control directory (``.git``, ``.hg``, ``.svn``, in any case or
    spelling a file system treats as the same: see
    :func:`retrace_fix.writes.vcs_dir_name`), and paths whose resolved form
    (symbolic links followed, in any directory on the way or the file itself)
    leaves the root or enters such a directory.
    """
    if not relpath or "\x00" in relpath:
        raise UnsafePath(f"{relpath!r}: empty path or NUL byte")
    if relpath.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", relpath) or relpath.startswith("~"):
        raise UnsafePath(f"{relpath}: absolute path")
    if "\\" in relpath:
        raise UnsafePath(f"{relpath}: backslash in path")
    normal = posixpath.normpath(relpath)
    if normal in (".", "..") or normal.startswith("../"):
        raise UnsafePath(f"{relpath}: leaves the root")
    for part in normal.split("/"):
        vcs = vcs_dir_name(part)
        if vcs is not None:
            raise UnsafePath(f"{relpath}: inside {vcs}")
    full = os.path.join(root_real, *normal.split("/"))
    real = os.path.realpath(full)
    if not _inside(root_real, real):
        raise UnsafePath(f"{relpath}: goes through a symbolic link that leaves the root (to {real})")
    reason = unsafe_reason(real, root_real)
    if reason is not None:
        raise UnsafePath(f"{relpath}: {reason}")
    return real


_inside = is_inside


def _non_directory_parent(root_real: str, real: str) -> str | None:
    """The first directory on the way from the root to ``real`` that exists but is not a directory."""
    parts = os.path.relpath(os.path.dirname(real), root_real).split(os.sep)
    path = root_real
    for part in parts:
        if part in ("", "."):
            continue
        path = os.path.join(path, part)
        if not os.path.lexists(path):
            return None
        if not os.path.isdir(path):
            return os.path.relpath(path, root_real).replace(os.sep, "/")
    return None


# =========================================================================== the command


@dataclass
class FilePlan:
    """What will happen to one real file."""

    relpath: str
    real: str
    patches: list[FilePatch]
    action: str = ""  # modify | create | delete | reject | already | error
    old_bytes: bytes | None = None
    new_bytes: bytes | None = None
    notes: list[str] = field(default_factory=list)
    message: str = ""
    rej_written: bool = True
    root: str = ""  # the resolved root: no write may leave it

    @property
    def rej_path(self) -> str:
        return self.real + ".rej"

    def rej_text(self) -> str:
        return "".join(p.text() for p in self.patches)


#: a patch larger than this is refused (``apply /dev/zero`` must not read without bound)
MAX_PATCH_BYTES = 256 << 20


def _read_patch(name: str, stdin: IO[bytes] | None) -> str:
    try:
        data = read_limited(name, MAX_PATCH_BYTES, stdin)
    except InputError as exc:
        raise PatchError(f"{name}: {exc}") from None
    return decode(data)


def plan(patch_names: Sequence[str], root: Path, stdin: IO[bytes] | None = None) -> list[FilePlan]:
    """Parse and validate every patch, then decide every file; writes nothing.

    Raises PatchError for anything that must stop the whole command (exit 2).
    """
    if not root.is_dir():
        raise PatchError(f"{root}: root is not a directory")
    root_real = os.path.realpath(root)
    parsed: list[FilePatch] = []
    problems: list[str] = []
    for name in patch_names:
        try:
            parsed.extend(parse_patch(_read_patch(name, stdin), name))
        except PatchError as exc:
            problems.append(str(exc))
    plans: dict[str, FilePlan] = {}
    for file_patch in parsed:
        paths = [p for p in (file_patch.source, file_patch.target) if p != DEV_NULL]
        try:
            reals = {validate_path(root_real, p) for p in paths}
        except UnsafePath as exc:
            problems.append(f"{file_patch.patch_name}: refused: {exc}")
            continue
        real = reals.pop()
        entry = plans.setdefault(real, FilePlan(posixpath.normpath(file_patch.path), real, [], root=root_real))
        entry.patches.append(file_patch)
    if problems:
        raise PatchError("\n".join(problems))
    result = []
    for entry in plans.values():
        _decide(entry)
        result.append(entry)
    result.sort(key=lambda e: e.relpath)
    return result


def _decide(entry: FilePlan) -> None:
    """Fill in ``action``, ``new_bytes`` and messages for one file (reads, never writes)."""
    exists = os.path.lexists(entry.real)
    if exists:
        try:
            info = os.stat(entry.real)
        except OSError as exc:
            entry.action, entry.message = "error", f"cannot stat: {exc.strerror}"
            return
        if not stat.S_ISREG(info.st_mode):
            entry.action, entry.message = "error", "not a regular file"
            return
        try:
            entry.old_bytes = Path(entry.real).read_bytes()
        except OSError as exc:
            entry.action, entry.message = "error", f"cannot read: {exc.strerror or exc}"
            return
    else:
        blocker = _non_directory_parent(entry.root, entry.real) if entry.root else None
        if blocker is not None:
            entry.action, entry.message = "error", f"cannot be created: {blocker} is not a directory"
            return
    text: str | None = decode(entry.old_bytes) if entry.old_bytes is not None else None
    failures: list[str] = []
    already = True
    for file_patch in entry.patches:
        if file_patch.is_new:
            content = "".join(line for h in file_patch.hunks for line in h.new_lines)
            if text is None:
                text, already = content, False
            elif text == content and already:
                continue
            else:
                failures.append("the patch creates it, but it already exists with other content")
                already = False
            continue
        if file_patch.is_deleted:
            content = "".join(line for h in file_patch.hunks for line in h.old_lines)
            if text is None and already:
                continue  # already deleted
            if text == content:
                text, already = None, False
            else:
                failures.append("the patch deletes it, but its content differs" if text is not None
                                else "no such file")
                already = False
            continue
        if text is None:
            failures.append("no such file")
            already = False
            continue
        outcome = apply_hunks(text, file_patch.hunks)
        if outcome.ok:
            text, already = outcome.text, False
            entry.notes.extend(outcome.notes())
        elif outcome.already_applied and already:
            continue
        else:
            already = False
            for result in outcome.hunks:
                if not result.applied:
                    failures.append(f"hunk {result.index} ({result.hunk.header.strip()}) does not match")
            if outcome.search_exhausted:
                failures.append("search limit reached (the hunks' lines occur too often to search them all)")
    if failures:
        entry.action = "reject"
        entry.message = "; ".join(failures)
    elif already:
        entry.action = "already"
    elif text is None:
        entry.action = "delete"
    else:
        entry.new_bytes = encode(text)
        entry.action = "create" if entry.old_bytes is None else "modify"
        if entry.new_bytes == entry.old_bytes:
            entry.action = "already"


#: signals held back while files are written: Ctrl-C, ``kill`` (SIGTERM), a closed terminal (SIGHUP)
_HELD_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))


@contextmanager
def _sigint_held() -> Iterator[list[int]]:
    """Hold Ctrl-C, SIGTERM and SIGHUP back while files are written; deliver them afterwards.

    The set of files is finished (each write is atomic, and none is cut off
    halfway, so no temporary file is left behind); then Ctrl-C raises
    KeyboardInterrupt and SIGTERM/SIGHUP are raised again with the handler
    they had (by default: the process ends, killed by that signal).  A signal
    that was ignored stays ignored.
    """
    pending: list[int] = []  # the signals received, in order
    previous: dict = {}
    try:
        for signum in _HELD_SIGNALS:
            handler = signal.getsignal(signum)
            if handler is signal.SIG_IGN or handler is None:
                continue
            previous[signum] = handler
            signal.signal(signum, lambda number, frame: pending.append(number))
    except ValueError:  # not the main thread
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        yield pending
        return
    try:
        yield pending
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    for signum in (s for s in _HELD_SIGNALS if s in pending and s != signal.SIGINT):
        signal.raise_signal(signum)  # the default handler ends the process here
    if signal.SIGINT in pending:
        raise KeyboardInterrupt


def _write(entry: FilePlan) -> str | None:
    """Carry out one plan through :mod:`retrace_fix.writes`; an error message instead of raising."""
    root = entry.root or None
    try:
        if entry.action == "modify":
            replace_file(entry.real, entry.new_bytes or b"", expected_old=entry.old_bytes or b"", root=root)
        elif entry.action == "create":
            create_file(entry.real, entry.new_bytes or b"", root=root)
        elif entry.action == "delete":
            delete_file(entry.real, entry.old_bytes or b"", root=root)
        elif entry.action == "reject":
            if not os.path.isdir(os.path.dirname(entry.rej_path)):
                entry.rej_written = False  # nowhere to put it: the directory is gone
            else:
                write_file(entry.rej_path, encode(entry.rej_text()), root=root)
    except WriteRefused as exc:
        return str(exc)
    except FileExistsError:
        return "appeared on disk during the run; not written"
    except OSError as exc:
        return f"cannot write: {exc.strerror or exc}"
    return None


def apply_patches(
    patch_names: Sequence[str],
    root: Path,
    dry_run: bool = False,
    out: IO[str] | None = None,
    err: IO[str] | None = None,
    stdin: IO[bytes] | None = None,
) -> int:
    out = out or sys.stdout
    err = err or sys.stderr
    try:
        plans = plan(patch_names, root, stdin)
    except PatchError as exc:
        for line in str(exc).splitlines():
            err.write(f"retrace-fix: error: {line}\n")
        err.write("retrace-fix: nothing was written\n")
        return EXIT_ERROR
    verb = {"modify": "would patch" if dry_run else "patched",
            "create": "would create" if dry_run else "created",
            "delete": "would delete" if dry_run else "deleted"}
    counts = {"applied": 0, "rejected": 0, "already": 0, "errors": 0}
    with _sigint_held() if not dry_run else _null_context():
        for entry in plans:
            rel = entry.relpath
            hunks = sum(len(p.hunks) for p in entry.patches)
            if entry.action == "error":
                err.write(f"error: {rel}: {entry.message}\n")
                counts["errors"] += 1
                continue
            if entry.action == "already":
                out.write(f"{rel}: already applied (skipped)\n")
                counts["already"] += 1
                continue
            failure = None if dry_run else _write(entry)
            if entry.action == "reject":
                counts["rejected"] += 1
                rej = rel + ".rej"
                if dry_run:
                    out.write(f"{rel}: would reject: {entry.message}; file would be left untouched, "
                              f"{_hunks(hunks)} would go to {rej}\n")
                elif failure:
                    err.write(f"error: {rel}: rejected ({entry.message}); {failure}\n")
                    counts["errors"] += 1
                elif not entry.rej_written:
                    out.write(f"{rel}: rejected: {entry.message}; its directory does not exist, "
                              "no .rej written\n")
                else:
                    out.write(f"{rel}: rejected: {entry.message}; file left untouched, "
                              f"{_hunks(hunks)} written to {rej}\n")
                continue
            if failure:
                err.write(f"error: {rel}: {failure}\n")
                counts["errors"] += 1
                continue
            counts["applied"] += 1
            notes = f" ({'; '.join(entry.notes)})" if entry.notes else ""
            out.write(f"{rel}: {verb[entry.action]} ({_hunks(hunks)}){notes}\n")
    prefix = "dry run: " if dry_run else ""
    err.write(
        f"{prefix}{_files(counts['applied'])} {'would be ' if dry_run else ''}patched, "
        f"{counts['rejected']} rejected, {counts['already']} already applied, "
        f"{counts['errors']} error{'s' if counts['errors'] != 1 else ''}\n"
    )
    if counts["errors"]:
        return EXIT_ERROR
    if counts["rejected"]:
        return EXIT_REJECTED
    return EXIT_OK


@contextmanager
def _null_context() -> Iterator[None]:
    yield None


def _hunks(n: int) -> str:
    return f"{n} hunk{'s' if n != 1 else ''}"


def _files(n: int) -> str:
    return f"{n} file{'s' if n != 1 else ''}"


def register(app) -> None:
    """Add ``retrace-fix apply`` to the typer app (called by :mod:`retrace_fix.cli`)."""
    import typer

    @app.command(
        "apply",
        short_help="Apply saved patches under a root; conflicts go to FILE.rej.",
        help="Apply saved patches (e.g. from --patch-dir) under --root. Each file's hunks apply "
        "all or nothing; a file whose hunks do not match is left untouched and its hunks go to "
        "FILE.rej. Paths outside the root are refused. Exit 0 applied, 1 some rejected, 2 errors.",
    )
    def apply_command(
        patches: List[str] = typer.Argument(..., help="patch files ('-' reads standard input)"),
        root: Path = typer.Option(Path("."), "--root", help="directory the patch paths are relative to"),
        dry_run: bool = typer.Option(False, "--dry-run", help="show what would apply; write nothing"),
    ) -> None:
        raise typer.Exit(apply_patches(list(patches), root, dry_run))


__all__ = [
    "FilePatch",
    "Hunk",
    "PatchError",
    "UnsafePath",
    "apply_hunks",
    "apply_patches",
    "parse_patch",
    "plan",
    "register",
    "split_lines",
    "unquote_path",
    "validate_path",
]
