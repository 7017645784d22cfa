"""Saved patches applied to the files under a root: the work of ``retrace-fix apply``.

``retrace-fix apply PATCH... [--root DIR] [--dry-run]`` (the command's entry and
options: :mod:`retrace_fix.commands.apply`) applies saved patches safely: each
patch is parsed (:mod:`retrace_fix.patch.parse`), its paths checked
(:mod:`retrace_fix.patch.paths`), its hunks applied to each file's text
(:mod:`retrace_fix.patch.apply_text`), and the files written through
:mod:`retrace_fix.sources.writes`.

What ``apply`` guarantees:

* **Nothing is written before everything is checked.**  Every patch is parsed
  and every path of every patch is validated first; a patch naming an absolute
  path, a path whose ``..`` leaves the root, a path inside ``.git``, or a path
  that goes through a symbolic link leading out of the root makes the whole
  command refuse (exit 2) without touching anything.  The same is checked
  on the *resolved* path (every symbolic link followed): a path that ends up
  inside ``.git``, ``.hg`` or ``.svn`` (any case) or outside the root is
  refused, and :mod:`retrace_fix.sources.writes` checks it once more at write time.
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
import signal
import stat
import sys
from collections import Counter
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Iterator, Sequence

from retrace_fix.patch.apply_text import apply_hunks
from retrace_fix.patch.parse import DEV_NULL, FilePatch, PatchError, decode, encode, parse_patch
from retrace_fix.patch.paths import UnsafePath, non_directory_parent, validate_path
from retrace_fix.sources.bounded_read import InputError, read_limited
from retrace_fix.sources.writes import WriteRefused, create_file, delete_file, replace_file, write_file
from retrace_fix.wording import plural

EXIT_OK, EXIT_REJECTED, EXIT_ERROR = 0, 1, 2


@dataclass
class FileAction:
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


def plan(patch_names: Sequence[str], root: Path, stdin: IO[bytes] | None = None) -> list[FileAction]:
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
    plans: dict[str, FileAction] = {}
    for file_patch in parsed:
        paths = [p for p in (file_patch.source, file_patch.target) if p != DEV_NULL]
        try:
            reals = {validate_path(root_real, p) for p in paths}
        except UnsafePath as exc:
            problems.append(f"{file_patch.patch_name}: refused: {exc}")
            continue
        real = reals.pop()
        entry = plans.setdefault(real, FileAction(posixpath.normpath(file_patch.path), real, [], root=root_real))
        entry.patches.append(file_patch)
    if problems:
        raise PatchError("\n".join(problems))
    result = []
    for entry in plans.values():
        _decide(entry)
        result.append(entry)
    result.sort(key=lambda e: e.relpath)
    return result


def _decide(entry: FileAction) -> None:
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
        blocker = non_directory_parent(entry.root, entry.real) if entry.root else None
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


def _write(entry: FileAction) -> str | None:
    """Carry out one plan through :mod:`retrace_fix.sources.writes`; an error message instead of raising."""
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


#: what ``apply`` says it did to a file, and what it would do (``--dry-run``)
_DONE = {"modify": "patched", "create": "created", "delete": "deleted"}
_WOULD = {"modify": "would patch", "create": "would create", "delete": "would delete"}


def apply_patches(
    patch_names: Sequence[str],
    root: Path,
    dry_run: bool = False,
    out: IO[str] | None = None,
    err: IO[str] | None = None,
    stdin: IO[bytes] | None = None,
) -> int:
    """Apply the patches named (``-``: ``stdin``) to the files under ``root``; return the exit code.

    What happens to each file goes to ``out``, errors and the summary line to
    ``err``.  Nothing is written with ``dry_run``, nor when some patch cannot be
    used at all.
    """
    err = err or sys.stderr
    try:
        plans = plan(patch_names, root, stdin)
    except PatchError as exc:
        for line in str(exc).splitlines():
            err.write(f"retrace-fix: error: {line}\n")
        err.write("retrace-fix: nothing was written\n")
        return EXIT_ERROR
    out = out or sys.stdout
    counts: Counter[str] = Counter()
    with _sigint_held() if not dry_run else nullcontext():
        for entry in plans:
            counts.update(_carry_out(entry, dry_run, out, err))
    prefix = "dry run: " if dry_run else ""
    err.write(
        f"{prefix}{plural(counts['applied'], 'file')} {'would be ' if dry_run else ''}patched, "
        f"{counts['rejected']} rejected, {counts['already']} already applied, "
        f"{plural(counts['errors'], 'error')}\n"
    )
    if counts["errors"]:
        return EXIT_ERROR
    if counts["rejected"]:
        return EXIT_REJECTED
    return EXIT_OK


def _carry_out(entry: FileAction, dry_run: bool, out: IO[str], err: IO[str]) -> tuple[str, ...]:
    """Write one file's plan (unless ``dry_run``) and say what became of it; the counts it adds to."""
    rel = entry.relpath
    hunks = plural(sum(len(p.hunks) for p in entry.patches), "hunk")
    if entry.action == "error":
        err.write(f"error: {rel}: {entry.message}\n")
        return ("errors",)
    if entry.action == "already":
        out.write(f"{rel}: already applied (skipped)\n")
        return ("already",)
    failure = None if dry_run else _write(entry)
    if entry.action == "reject":
        rej = rel + ".rej"
        if dry_run:
            out.write(f"{rel}: would reject: {entry.message}; file would be left untouched, "
                      f"{hunks} would go to {rej}\n")
        elif failure:
            err.write(f"error: {rel}: rejected ({entry.message}); {failure}\n")
            return ("rejected", "errors")
        elif not entry.rej_written:
            out.write(f"{rel}: rejected: {entry.message}; its directory does not exist, no .rej written\n")
        else:
            out.write(f"{rel}: rejected: {entry.message}; file left untouched, {hunks} written to {rej}\n")
        return ("rejected",)
    if failure:
        err.write(f"error: {rel}: {failure}\n")
        return ("errors",)
    notes = f" ({'; '.join(entry.notes)})" if entry.notes else ""
    out.write(f"{rel}: {(_WOULD if dry_run else _DONE)[entry.action]} ({hunks}){notes}\n")
    return ("applied",)


__all__ = ["EXIT_ERROR", "EXIT_OK", "EXIT_REJECTED", "FileAction", "MAX_PATCH_BYTES", "apply_patches", "plan"]
