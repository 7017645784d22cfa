"""Atomic writes: the one module through which retrace-fix writes files.

Fixed sources, applied patches, ``.rej`` files, trace files and recorder
shards, patch directories, summaries, plots and bench timings are all written
here, so the same rules hold for every one of them.

Where
    The target is resolved (symbolic links followed) and refused
    (:class:`UnsafeTarget`) when the resolved path has a version-control
    directory in it (``.git``, ``.hg``, ``.svn`` in any case, and the names
    macOS and Windows treat as the same: ``.Git.``, ``.g\\u200cit``,
    ``GIT~1``), or lies outside ``root`` when a root is given.  The
    directory is then opened, checked again through the open descriptor, and
    every later step (temporary file, re-reads, rename) happens relative to
    that descriptor, so a directory swapped for a link in between cannot
    redirect the write.
Special files
    A character device or a FIFO (``/dev/null``, ``/dev/full``, a named
    pipe, ``/dev/stdout``) named as an output is written as a stream, as a
    shell's ``>`` would, never replaced by a regular file; a block device or a
    socket is refused (:func:`write_stream`).
How
    A temporary file ``.NAME.<pid>-<random>.retrace-tmp`` next to the target,
    written and fsynced, with the mode and owner (where allowed) of the file
    it replaces (a new file: ``0666`` less the umask, as any program would
    create it), renamed over the target with ``os.replace``; then the
    directory is fsynced.  A file is never half-written.
Concurrent edits
    :func:`replace_file` re-reads the target right before the rename and
    refuses (:class:`FileChangedError`) when it no longer holds what was read
    at the start.  On Linux the rename is an atomic exchange
    (``renameat2(RENAME_EXCHANGE)``): the file that was in place at that very
    instant comes out under the temporary name and is checked once more (same
    inode, same content); if an edit landed after the check, in place or by an
    editor renaming a new file over it, the exchange is undone (the edit wins,
    the fix is not written).  Elsewhere the file's identity is checked right
    before ``os.replace`` and the replaced file read once more after it, and
    an edit seen then is put back.  What remains is a process that opened the
    file *before* the exchange and writes to it *after* that last check: its
    write goes to the replaced, now unlinked, file (without the exchange, also
    a rename-style save in the microseconds between the identity check and
    ``os.replace``).
Stale temporary files
    A process killed while writing (SIGKILL cannot be caught) leaves its
    temporary file behind.  The next write into that directory removes such
    files when the process that made them no longer runs on this machine (or,
    for names without a pid, when they are over an hour old).  They never
    end in ``.py``, so the engine never reads them.

Pure standard library; the recorder and the bench probe import it inside the
user's program.
"""

from __future__ import annotations

import errno
import os
import re
import stat
import threading
import time
from contextlib import contextmanager
from typing import Iterator

#: Version-control metadata directories: never written into.
VCS_DIRS = (".git", ".hg", ".svn")
TEMP_SUFFIX = ".retrace-tmp"
#: A temporary file whose name carries no pid is stale after this many seconds.
STALE_AFTER_SECONDS = 3600

# Code points HFS+ ignores in names (git's is_hfs_dotgit list): ".g\u200cit" is ".git" there.
_HFS_IGNORED = re.compile("[\u200b-\u200f\u202a-\u202e\u2060-\u2064\u206a-\u206f\ufeff]")
_SHORT_NAME = re.compile(r"(git|hg|svn)~[0-9]+")  # NTFS 8.3 names of .git & co (GIT~1)
_TEMP_NAME = re.compile(r"^\..*\.(?P<pid>[0-9]+)-[0-9a-f]{8}" + re.escape(TEMP_SUFFIX) + r"$", re.DOTALL)
_LEGACY_TEMP_NAME = re.compile(r"^\..*\.[A-Za-z0-9_]{8}" + re.escape(TEMP_SUFFIX) + r"$", re.DOTALL)
_DIR_FD = os.open in os.supports_dir_fd and os.rename in os.supports_dir_fd and os.link in os.supports_dir_fd
_CLEANED: set[tuple[int, int]] = set()  # (st_dev, st_ino) of directories already swept in this run
_CLEANED_LOCK = threading.Lock()


def forget_swept_directories() -> None:
    """A new run sweeps each directory again: in a process that runs many (the tests, a program
    calling :func:`retrace_fix.cli.main`), a directory removed and made again may get the inode
    of one swept by an earlier run, and its stale temporary files would be left."""
    with _CLEANED_LOCK:
        _CLEANED.clear()


class WriteRefused(OSError):
    """A write that was refused; the file is as it was.  The message is one line.

    An OSError, so that callers that report any failure to write report these too.
    """


class FileChangedError(WriteRefused):
    """The file changed on disk since it was read (or during the write), or it is read-only."""


class UnsafeTarget(WriteRefused):
    """The resolved target is inside a version-control directory or outside the allowed root."""


# --------------------------------------------------------------------------- where


def vcs_dir_name(part: str) -> str | None:
    """The VCS directory ``part`` names (``.git``, ``.hg``, ``.svn``) on some file system, else None.

    Case-insensitive, trailing dots and spaces ignored (Windows), HFS+
    ignorable code points removed (macOS), 8.3 short names (``GIT~1``).
    """
    name = _HFS_IGNORED.sub("", part).rstrip(". ").lower()
    if name in VCS_DIRS:
        return name
    short = _SHORT_NAME.fullmatch(name)
    if short:
        return "." + short.group(1)
    return None


def unsafe_reason(real: str, root_real: str | None = None, is_directory: bool = False) -> str | None:
    """Why the resolved absolute path ``real`` must not be written (None when it may).

    ``is_directory``: ``real`` is the directory written into, which may be the root itself.
    """
    for part in real.replace("\\", "/").split("/"):
        vcs = vcs_dir_name(part)
        if vcs is not None:
            return f"resolves inside {vcs} ({real})"
    if root_real is not None and not (is_inside(root_real, real) or (is_directory and real == root_real)):
        return f"resolves outside the root {root_real} ({real})"
    return None


def is_inside(root_real: str, path: str) -> bool:
    """True when ``path`` is strictly below ``root_real`` (both resolved, absolute)."""
    try:
        return os.path.commonpath([root_real, path]) == root_real and path != root_real
    except ValueError:
        return False


def resolve_target(path: str | os.PathLike, root: str | os.PathLike | None = None, follow: bool = True) -> str:
    """The resolved absolute path a write to ``path`` would change; raises :class:`UnsafeTarget`.

    With ``follow`` (the default) a final symbolic link is followed (the file it
    points to is what changes); without, only the directory is resolved (the
    link itself would be replaced).
    """
    path = os.fspath(path)
    if follow:
        real = os.path.realpath(path)
    else:
        absolute = os.path.abspath(path)
        real = os.path.join(os.path.realpath(os.path.dirname(absolute)), os.path.basename(absolute))
    root_real = os.path.realpath(root) if root is not None else None
    reason = unsafe_reason(real, root_real)
    if reason:
        raise UnsafeTarget(reason)
    return real


# --------------------------------------------------------------------------- the open directory


class _Directory:
    """An open, checked directory; every operation is relative to it."""

    def __init__(self, path: str, root_real: str | None):
        self.path = path
        self.fd: int | None = None
        if not _DIR_FD:
            reason = unsafe_reason(os.path.realpath(path), root_real, is_directory=True)
            if reason:
                raise UnsafeTarget(reason)
            return
        self.fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0))
        try:
            # Where the descriptor really is, now: resolve again and compare identities.
            now = os.path.realpath(path)
            reason = unsafe_reason(now, root_real, is_directory=True)
            if reason:
                raise UnsafeTarget(reason)
            opened, current = os.fstat(self.fd), os.stat(now)
            if (opened.st_dev, opened.st_ino) != (current.st_dev, current.st_ino):
                raise UnsafeTarget(f"{path}: the directory moved while being written to; not written")
        except BaseException:
            os.close(self.fd)
            raise

    def __enter__(self) -> _Directory:
        return self

    def __exit__(self, *exc) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def _name(self, name: str) -> str:
        return name if self.fd is not None else os.path.join(self.path, name)

    def _kw(self) -> dict:
        return {"dir_fd": self.fd} if self.fd is not None else {}

    def open(self, name: str, flags: int, mode: int = 0o666) -> int:
        return os.open(self._name(name), flags | getattr(os, "O_CLOEXEC", 0), mode, **self._kw())

    def lstat(self, name: str) -> os.stat_result:
        return os.stat(self._name(name), follow_symlinks=False, **self._kw())

    def writable(self, name: str) -> bool:
        if self.fd is not None and os.access in os.supports_dir_fd:
            return os.access(name, os.W_OK, dir_fd=self.fd)
        return os.access(self._name(name), os.W_OK)

    def replace(self, src: str, dst: str) -> None:
        if self.fd is not None:
            os.replace(src, dst, src_dir_fd=self.fd, dst_dir_fd=self.fd)
        else:
            os.replace(self._name(src), self._name(dst))

    def link(self, src: str, dst: str) -> None:
        if self.fd is not None:
            os.link(src, dst, src_dir_fd=self.fd, dst_dir_fd=self.fd, follow_symlinks=False)
        else:
            os.link(self._name(src), self._name(dst))

    def unlink(self, name: str) -> None:
        os.unlink(self._name(name), **self._kw())

    def entries(self) -> Iterator[os.DirEntry]:
        with os.scandir(self.fd if self.fd is not None else self.path) as found:
            yield from found

    def fsync(self) -> None:
        if self.fd is None:
            return
        try:
            os.fsync(self.fd)
        except OSError:  # some file systems cannot fsync a directory
            pass

    def identity(self) -> tuple[int, int]:
        info = os.fstat(self.fd) if self.fd is not None else os.stat(self.path)
        return (info.st_dev, info.st_ino)

    # ------------------------------------------------------------------ temporary files

    def write_temp(self, target_name: str, data: bytes, mode: int | None = None,
                   owner: tuple[int, int] | None = None) -> str:
        """A fsynced temporary file holding ``data`` next to ``target_name``; returns its name.

        ``mode`` None: the kernel's default for a new file (0666 less the umask).
        """
        for _ in range(100):
            name = temp_name(target_name)
            try:
                fd = self.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o666)
            except FileExistsError:
                continue
            break
        else:  # pragma: no cover - 100 collisions of 32 random bits
            raise FileExistsError(errno.EEXIST, "cannot create a temporary file", target_name)
        try:
            try:
                if owner is not None and hasattr(os, "fchown") and owner != (os.getuid(), os.getgid()):
                    try:  # keep the owner (only root may give a file away; others keep theirs)
                        os.fchown(fd, *owner)
                    except OSError:
                        pass
                if mode is not None:  # after fchown, which clears set-id bits
                    os.fchmod(fd, mode)
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view):]
                os.fsync(fd)
            finally:
                os.close(fd)
        except BaseException:
            self.discard(name)
            raise
        return name

    def discard(self, name: str | None) -> None:
        if name is None:
            return
        try:
            self.unlink(name)
        except OSError:
            pass

    def clean_stale_temps(self) -> None:
        """Remove temporary files of writers that died (once per directory and run)."""
        try:
            key = self.identity()
        except OSError:
            return
        with _CLEANED_LOCK:
            if key in _CLEANED:
                return
            _CLEANED.add(key)
        try:
            for entry in self.entries():
                if entry.name.endswith(TEMP_SUFFIX) and _is_stale(entry):
                    self.discard(entry.name)
        except OSError:
            pass


def temp_name(target_name: str) -> str:
    """``.NAME.<pid>-<8 hex>.retrace-tmp`` (NAME shortened so the result stays a valid name)."""
    return f".{target_name[:120]}.{os.getpid()}-{os.urandom(4).hex()}{TEMP_SUFFIX}"


def _is_stale(entry: os.DirEntry) -> bool:
    try:
        if not entry.is_file(follow_symlinks=False):
            return False
        match = _TEMP_NAME.match(entry.name)
        if match:
            return not process_alive(int(match.group("pid")))
        if _LEGACY_TEMP_NAME.match(entry.name):
            return time.time() - entry.stat(follow_symlinks=False).st_mtime > STALE_AFTER_SECONDS
    except (OSError, ValueError):
        pass
    return False


def process_alive(pid: int) -> bool:
    """Whether a process with this pid runs on this machine (in this pid namespace)."""
    if pid <= 0:
        return False
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OverflowError:
        return False
    except OSError:  # PermissionError: it exists, owned by someone else
        return True
    return True


def _read_fd(fd: int) -> bytes:
    chunks = []
    offset = 0
    while True:
        chunk = os.pread(fd, 1 << 20, offset)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        offset += len(chunk)


#: the directory retrace-fix keeps its own files in (``record`` writes ``.retrace/traces.json``)
RETRACE_DIR = ".retrace"
#: what a ``.retrace`` directory retrace-fix creates holds, so that git ignores it (as ruff's cache does)
RETRACE_DIR_GITIGNORE = "# Automatically created by retrace-fix.\n*\n"


def make_parent_dirs(path: str | os.PathLike) -> None:
    """Create the missing directories above ``path`` (checked like any write first).

    A ``.retrace`` directory created here gets a ``.gitignore`` that ignores
    everything in it, itself included, so recorded traces never end up in a
    commit by accident.  A ``.retrace`` directory that already existed is left
    as it is (its owner may keep its files in git on purpose).
    """
    real = resolve_target(path, follow=False)
    directory = os.path.dirname(real)
    missing = []
    current = directory
    while not os.path.lexists(current) and os.path.dirname(current) != current:
        missing.append(current)
        current = os.path.dirname(current)
    try:
        os.makedirs(directory, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise WriteRefused(f"{_first_non_directory(directory)}: not a directory") from None
    for created in missing:
        if os.path.basename(created) == RETRACE_DIR:
            try:
                with open(os.path.join(created, ".gitignore"), "x", encoding="utf-8") as handle:
                    handle.write(RETRACE_DIR_GITIGNORE)
            except OSError:  # another process made it first, or it cannot be written: never fail a save for it
                pass


@contextmanager
def _parent_of(
    path: str | os.PathLike, root: str | os.PathLike | None, *, follow: bool = True, make_parents: bool = False
) -> Iterator[tuple[_Directory, str]]:
    """The directory a write to ``path`` changes, open and cleaned of stale temporary files, and the name in it.

    ``path`` is resolved as :func:`resolve_target` does (``follow``: a final
    symbolic link is followed); ``make_parents`` creates missing directories.
    """
    real = resolve_target(path, root, follow=follow)
    parent = os.path.dirname(real)
    if make_parents:
        make_parent_dirs(real)
    try:
        directory = _Directory(parent, os.path.realpath(root) if root is not None else None)
    except NotADirectoryError:
        raise WriteRefused(f"{_first_non_directory(parent)}: not a directory") from None
    with directory:
        directory.clean_stale_temps()
        yield directory, os.path.basename(real)


def _first_non_directory(directory: str) -> str:
    """The first component of ``directory`` that exists but is not a directory (itself if none)."""
    path = os.path.abspath(directory)
    parts = path.split(os.sep)
    for index in range(2, len(parts) + 1):
        prefix = os.sep.join(parts[:index]) or os.sep
        if os.path.lexists(prefix) and not os.path.isdir(prefix):
            return prefix
    return directory


# --------------------------------------------------------------------------- the writers


def replace_file(
    path: str | os.PathLike,
    data: bytes,
    expected_old: bytes,
    root: str | os.PathLike | None = None,
) -> None:
    """Replace an existing file's content with ``data``; it must still hold ``expected_old``.

    Follows a symbolic link to the file it points to (that file is what the
    user edits), keeps its permission bits and owner, and refuses
    (:class:`FileChangedError`) a read-only file or one that changed on disk
    since ``expected_old`` was read, also in the moment of the rename (see the
    module docstring for the window that remains).
    """
    with _parent_of(path, root) as (directory, name):
        try:
            info = directory.lstat(name)
        except FileNotFoundError:
            raise FileChangedError("deleted on disk during the run; not written") from None
        if not stat.S_ISREG(info.st_mode):
            raise FileChangedError("no longer a regular file; not written")
        # No write permission bit at all means read-only on purpose, even for root
        # (whom os.access would let through).
        if not directory.writable(name) or not stat.S_IMODE(info.st_mode) & 0o222:
            raise FileChangedError("file is read-only; not written")
        temp: str | None = directory.write_temp(name, data, stat.S_IMODE(info.st_mode), (info.st_uid, info.st_gid))
        try:
            try:
                fd = directory.open(name, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
            except OSError as exc:
                raise FileChangedError(f"cannot re-read before writing ({exc.strerror})") from None
            try:
                checked = os.fstat(fd)
                if _read_fd(fd) != expected_old:
                    raise FileChangedError("changed on disk during the run; not written")
                temp = _commit(directory, temp, name, fd, checked, expected_old)
            finally:
                os.close(fd)
        finally:
            directory.discard(temp)


def _same_file(a: os.stat_result, b: os.stat_result) -> bool:
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def _commit(directory: _Directory, temp: str, name: str, fd: int, checked: os.stat_result, expected: bytes) -> None:
    """Put ``temp`` in place of ``name``, which was ``checked`` (open as ``fd``) and held ``expected``.

    With an atomic exchange (Linux ``renameat2(RENAME_EXCHANGE)``) what was at
    ``name`` at that very instant ends up at ``temp`` and is checked there: any
    edit made before the exchange, in place or by renaming a new file over
    ``name``, is seen and put back.  Elsewhere the file is checked right before
    ``os.replace`` and the replaced file read once more after it.
    Returns None (the temporary name is used up).
    """
    ours = directory.lstat(temp)
    if _exchange(directory, temp, name):
        try:
            out = directory.lstat(temp)  # what was at ``name`` at the instant of the exchange
            unchanged = _same_file(out, checked) and _read_fd(fd) == expected
        except OSError:
            unchanged = False
        if unchanged:
            directory.unlink(temp)
            directory.fsync()
            return None
        # An edit landed after the check: it goes back, unless ``name`` changed again meanwhile.
        try:
            if _same_file(directory.lstat(name), ours) and _exchange(directory, temp, name):
                directory.unlink(temp)  # ours
                directory.fsync()
                raise FileChangedError("changed on disk while being written; the other edit was kept, not written")
        except FileNotFoundError:
            pass
        kept = f".{name[:120]}.{int(time.time())}.retrace-kept"
        directory.replace(temp, kept)
        raise FileChangedError(
            f"changed on disk twice while being written; the version edited during the write is in {kept}"
        )
    try:
        if not _same_file(directory.lstat(name), checked):
            raise FileChangedError("replaced on disk during the run; not written")
    except FileNotFoundError:
        raise FileChangedError("deleted on disk during the run; not written") from None
    directory.replace(temp, name)
    directory.fsync()
    replaced = _read_fd(fd)
    if replaced != expected:
        _put_back(directory, name, replaced, ours, checked)
    return None


_RENAME_EXCHANGE = 2
_LIBC: list = []  # [the C library with renameat2, or None], loaded once


def _exchange(directory: _Directory, a: str, b: str) -> bool:
    """Atomically swap the names ``a`` and ``b``; False where the system cannot (nothing happened)."""
    if directory.fd is None:
        return False
    if not _LIBC:
        _LIBC.append(_load_renameat2())
    libc = _LIBC[0]
    if libc is None:
        return False
    import ctypes

    if libc.renameat2(directory.fd, os.fsencode(a), directory.fd, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, getattr(errno, "ENOTSUP", -1), getattr(errno, "EOPNOTSUPP", -1)):
        return False
    raise OSError(err, os.strerror(err))


def _load_renameat2():
    if not hasattr(os, "uname") or os.uname().sysname != "Linux":
        return None
    try:
        import ctypes
        import ctypes.util

        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        function = libc.renameat2
    except (OSError, AttributeError, ImportError):
        return None
    function.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    function.restype = ctypes.c_int
    return libc


def _put_back(directory: _Directory, name: str, edited: bytes, ours: os.stat_result, info: os.stat_result) -> None:
    """An edit landed between the last check and ``os.replace``: the edited content goes back."""
    restored = False
    try:
        if _same_file(directory.lstat(name), ours):
            temp = directory.write_temp(name, edited, stat.S_IMODE(info.st_mode), (info.st_uid, info.st_gid))
            try:
                directory.replace(temp, name)
                temp = None
                directory.fsync()
                restored = True
            finally:
                directory.discard(temp)
    except OSError:
        pass
    if restored:
        raise FileChangedError("changed on disk while being written; the other edit was kept, not written")
    raise FileChangedError(
        "changed on disk while being written and again since; check the file, the fix may be in it"
    )


def create_file(path: str | os.PathLike, data: bytes, root: str | os.PathLike | None = None) -> None:
    """Create ``path`` (and missing parent directories) holding ``data``; never replaces anything.

    Raises FileExistsError when something is there (also when it appeared
    during the write).  The file gets the default mode of a new file.
    """
    with _parent_of(path, root, follow=False, make_parents=True) as (directory, name):
        temp = directory.write_temp(name, data)
        try:
            directory.link(temp, name)  # atomic, and never replaces an existing file
            directory.fsync()
        finally:
            directory.discard(temp)


def write_file(
    path: str | os.PathLike,
    data: bytes,
    root: str | os.PathLike | None = None,
    make_parents: bool = False,
) -> None:
    """Create or replace ``path`` with ``data`` (outputs: ``.rej``, trace files, patches, plots).

    A symbolic link at ``path`` is replaced, not followed.  An existing regular
    file keeps its permission bits; a new one gets the default mode of a new
    file (0666 less the umask).  Without ``make_parents`` a missing directory is
    FileNotFoundError.

    A special file is never replaced.  Without ``root`` (an output the user
    named) a character device or a FIFO at ``path`` - or that a link at
    ``path`` leads to - is written as a stream, as a shell's ``>`` would; a
    link to a descriptor of this process (``/dev/stdout``, ``/dev/fd/N``,
    ``/proc/self/fd/N``) writes to that descriptor, whatever it is open on; a
    block device or a socket is refused (:func:`write_stream`).  With ``root``
    (a ``.rej`` file in a tree that may come from someone else) a special file
    at ``path`` is refused (:class:`WriteRefused`): a FIFO must not stall the run.
    """
    if root is None and write_stream(path, data):
        return
    with _parent_of(path, root, follow=False, make_parents=make_parents) as (directory, name):
        mode = None
        try:
            info = directory.lstat(name)
        except FileNotFoundError:
            pass
        else:
            if stat.S_ISDIR(info.st_mode):
                raise IsADirectoryError(errno.EISDIR, "is a directory", os.fspath(path))
            kind = _special_kind(info.st_mode)
            if kind is not None:  # in a root, or appeared since write_stream looked: never replaced
                raise WriteRefused(f"is a {kind}, not a regular file")
            if stat.S_ISREG(info.st_mode):
                mode = stat.S_IMODE(info.st_mode)
        temp = directory.write_temp(name, data, mode)
        try:
            directory.replace(temp, name)
            temp = None
            directory.fsync()
        finally:
            directory.discard(temp)


#: a link to one of this process's descriptors: /dev/stdout -> /proc/self/fd/1, /dev/fd/N
_OWN_DESCRIPTOR = re.compile(r"^/(?:proc/(?:self|thread-self|(?P<pid>[0-9]+))|dev)/fd/(?P<fd>[0-9]+)$")


def _special_kind(mode: int) -> str | None:
    """What special file ``mode`` is (None: a regular file, a directory or a link)."""
    for test, kind in ((stat.S_ISCHR, "character device"), (stat.S_ISFIFO, "FIFO"),
                       (stat.S_ISBLK, "block device"), (stat.S_ISSOCK, "socket")):
        if test(mode):
            return kind
    return None


def _own_descriptor(path: str) -> int | None:
    """The descriptor of this process that ``path``, or a link on its way, names (``/dev/stdout``...)."""
    current = os.path.abspath(path)
    for _ in range(40):
        found = _OWN_DESCRIPTOR.match(current)
        if found and (found.group("pid") is None or int(found.group("pid")) == os.getpid()):
            return int(found.group("fd"))
        try:
            target = os.readlink(current)
        except OSError:
            return None
        current = os.path.normpath(os.path.join(os.path.dirname(current), target))
    return None


def is_special_target(path: str | os.PathLike) -> bool:
    """Whether a write to ``path`` would go to a special file (:func:`write_stream`'s cases)."""
    path = os.fspath(path)
    if _own_descriptor(path) is not None:
        return True
    try:
        return _special_kind(os.stat(path).st_mode) is not None
    except OSError:
        return False


def write_stream(path: str | os.PathLike, data: bytes) -> bool:
    """Write ``data`` to the special file at ``path`` as a stream; False when ``path`` is no special file.

    A character device or FIFO (at ``path``, or where a link at ``path`` leads)
    is opened for writing - never created, truncated or renamed over - and
    written; a link to a descriptor of this process writes to that
    descriptor.  A block device or socket raises :class:`WriteRefused`; so does
    a special file whose resolved path is inside a version-control directory.
    The device's own errors (``/dev/full``: ENOSPC) are raised as OSError.
    """
    path = os.fspath(path)
    descriptor = _own_descriptor(path)
    if descriptor is not None:
        _flush_standard_streams(descriptor)
        _write_all(descriptor, data)
        return True
    try:
        info = os.stat(path)  # links followed: where the bytes would go
    except OSError:
        return False
    kind = _special_kind(info.st_mode)
    if kind is None:
        return False
    real = os.path.realpath(path)
    reason = unsafe_reason(real)
    if reason:
        raise UnsafeTarget(reason)
    if kind not in ("character device", "FIFO"):
        raise WriteRefused(f"is a {kind} (only a regular file, a character device or a FIFO is written)")
    fd = _open_stream(path, kind)
    try:
        opened = os.fstat(fd)
        if _special_kind(opened.st_mode) not in ("character device", "FIFO"):  # swapped since: nothing written yet
            raise WriteRefused(f"changed from a {kind} while being opened")
        _write_all(fd, data)
    finally:
        os.close(fd)
    return True


#: seconds a FIFO named as an output may go without a reader before the write is refused
FIFO_READER_WAIT = 10.0


def _open_stream(path: str, kind: str) -> int:
    """``path`` opened for writing - never created or truncated - in blocking mode.

    The open itself does not block: a FIFO that no process opens for reading
    within :data:`FIFO_READER_WAIT` seconds is refused (a FIFO planted where an
    output goes must not stall the run); a reader that starts a moment after
    the run (``mkfifo f; consumer < f & retrace-fix --summary f``) is waited for.
    """
    flags = os.O_WRONLY | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NONBLOCK", 0)
    deadline = time.monotonic() + FIFO_READER_WAIT
    while True:
        try:
            fd = os.open(path, flags)
            break
        except OSError as exc:
            if exc.errno != errno.ENXIO or kind != "FIFO":
                raise
            if time.monotonic() >= deadline:
                raise WriteRefused(f"is a FIFO that no process reads (waited {FIFO_READER_WAIT:g} s)") from None
            time.sleep(0.05)
    try:
        import fcntl

        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
    except ImportError:  # pragma: no cover - no FIFOs or devices there either
        pass
    except OSError:
        os.close(fd)
        raise
    return fd


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _flush_standard_streams(descriptor: int) -> None:
    """Python's own buffered output to ``descriptor`` goes first, so the bytes keep their order."""
    import sys

    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None and stream.fileno() == descriptor:
                stream.flush()
        except (AttributeError, OSError, ValueError):
            pass


def delete_file(path: str | os.PathLike, expected_old: bytes, root: str | os.PathLike | None = None) -> None:
    """Delete ``path`` only when it still holds ``expected_old``; raises FileChangedError otherwise.

    The file is first renamed aside (atomic), then checked again through a
    descriptor opened before: an edit that landed in between puts it back.
    """
    with _parent_of(path, root) as (directory, name):
        try:
            fd = directory.open(name, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        except FileNotFoundError:
            raise FileChangedError("deleted on disk during the run") from None
        try:
            if _read_fd(fd) != expected_old:
                raise FileChangedError("changed on disk during the run; not deleted")
            aside = temp_name(name)
            directory.replace(name, aside)
            if _read_fd(fd) == expected_old:
                directory.unlink(aside)
                directory.fsync()
                return
        finally:
            os.close(fd)
        try:
            directory.link(aside, name)  # put it back, unless something new is there
        except FileExistsError:
            raise FileChangedError(
                f"changed on disk while being deleted and re-created since; the edited file is {aside}"
            ) from None
        directory.discard(aside)
        raise FileChangedError("changed on disk while being deleted; the edit was kept, not deleted")


__all__ = [
    "FileChangedError",
    "RETRACE_DIR",
    "RETRACE_DIR_GITIGNORE",
    "STALE_AFTER_SECONDS",
    "TEMP_SUFFIX",
    "UnsafeTarget",
    "VCS_DIRS",
    "WriteRefused",
    "create_file",
    "delete_file",
    "is_inside",
    "is_special_target",
    "make_parent_dirs",
    "process_alive",
    "replace_file",
    "resolve_target",
    "temp_name",
    "unsafe_reason",
    "vcs_dir_name",
    "write_file",
    "write_stream",
]
