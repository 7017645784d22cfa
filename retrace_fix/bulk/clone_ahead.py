"""Clones made ahead, on the core a run leaves idle while it starts.

A root given as a ``file://`` URL of a repository on this machine is cloned by the task that
processes it (:mod:`retrace_fix.bulk.root_task`): a ``git checkout`` from the borrowed objects,
20-70 ms of CPU a root.  Before the first task runs, the command imports the engine (and, for
``--scheduler local``, Dask, and the workers' server is forked from it:
:mod:`retrace_fix.bulk.worker_server`); one core has nothing to do.  The command line starts a
*cloner* first (:func:`clones_ahead`, given the arguments and the ``--repos`` file's lines) for a
run whose roots are cloned on this machine -- ``--scheduler local``, or no ``--scheduler`` (the
workers forked from the command, :mod:`retrace_fix.bulk.forked_roots`) -- which clones those
roots meanwhile, from the last backwards (the workers take them from the first); a worker that
reaches a root the cloner has finished takes that clone instead of making one (:func:`take`).

* The cloner is a process of its own at the lowest priority (``nice 19``, which its git
  inherits), in this process's session: it runs on what the run leaves idle.  (As a thread it
  would hold the coordinator's interpreter lock while descheduled; in a session of its own it
  would be a scheduling group of its own under Linux's autogroup, as entitled to a core as the
  whole run, whatever its nice.)
* Only roots whose objects are on this machine are cloned ahead (a checkout, bounded by the
  root's size); a fetch over the network is left to its task.  The cloner stops at the first root
  a worker has claimed (the workers have come that far), when the clones no worker has taken
  reach :data:`HELD_LIMIT`, when the scratch file system runs short of room, or when the
  coordinator is gone.
* A root is known by its URL and revision as written (:func:`key`), so the cloner needs nothing
  of the run but its arguments.  Claims are directories (``mkdir`` has one winner).  In the run's
  directory (where clones go, named after the coordinator, so that an orphan is swept as a dead
  process's clones are): the cloner creates ``KEY.claim`` before cloning the root into
  ``KEY.part`` and renames that to ``KEY.ready`` once the checkout is complete.  A worker creates
  ``KEY.claim`` too: where it can, the cloner never will and the worker clones; where it cannot,
  the cloner has the root and the worker renames ``KEY.ready`` to ``KEY.taken``, or clones as it
  would have where the clone is not ready (being made, or it failed: the worker's own clone then
  says what is wrong).  A task tried again finds the claim and no ready clone: it clones.
* When the command ends the coordinator ends the cloner -- which ends its git and waits for it,
  so that nothing writes into the directory any more -- and removes the directory with every
  clone no worker took.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Sequence

from retrace_fix.bulk.git import Stopped, raise_stopped
from retrace_fix.bulk.git_sources import CloneError, GitSource, clone, local_git_dir, parse_git_root
from retrace_fix.bulk.scratch import scratch_bases, scratch_prefix, short_of_space

#: bytes of clones the cloner may hold that no worker has taken yet
HELD_LIMIT = 256 << 20
#: seconds the cloner has to end its git once told to stop, before it is killed
STOP_GRACE = 10.0
_CHECKOUT = "checkout"
_COMMIT = "commit"
_ROOTS = "roots.json"
_directory: str | None = None  # the running cloner's, while the block that started it runs


def key(source: GitSource) -> str:
    """The name a root's clone has in the cloner's directory: its URL and revision, hashed."""
    return hashlib.sha256(source.spec.encode("utf-8", "surrogateescape")).hexdigest()[:24]


@contextmanager
def clones_ahead(entries: Sequence[str]) -> Iterator[str | None]:
    """For the block: a cloner cloning ahead the roots among ``entries`` (arguments, ``--repos``
    lines) that are git URLs of repositories on this machine, the last first; yields its directory
    (:func:`active_directory` too), or None where there is nothing to clone ahead (no such root, a
    platform without ``nice``, no room).  At the end the cloner is ended and the directory removed:
    the block holds the workers' whole life."""
    global _directory
    roots = _local_roots(entries)
    if not roots or not hasattr(os, "nice") or _directory is not None:
        yield None
        return
    try:
        directory = tempfile.mkdtemp(prefix=scratch_prefix() + "ahead-", dir=scratch_bases()[0])
    except OSError:
        yield None
        return
    cloner = None
    try:
        listing = Path(directory) / _ROOTS
        listing.write_text(json.dumps(roots), encoding="utf-8")
        cloner = subprocess.Popen(
            [sys.executable, "-m", "retrace_fix.bulk.clone_ahead", str(listing)],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
    except OSError:
        cloner = None
    _directory = directory if cloner is not None else None
    try:
        yield _directory
    finally:
        _directory = None
        if cloner is not None:
            _stop(cloner)
        shutil.rmtree(directory, ignore_errors=True)


def active_directory() -> str | None:
    """The directory of the cloner this process runs now (:func:`clones_ahead`), else None."""
    return _directory


def _local_roots(entries: Sequence[str]) -> list[list[str | None]]:
    """``[[key, url, rev], ...]`` for the distinct entries that are git URLs of local repositories."""
    roots: list[list[str | None]] = []
    seen: set[str] = set()
    for entry in entries:
        try:
            source = parse_git_root(entry)
        except ValueError:
            continue
        if source is None or local_git_dir(source.url) is None or key(source) in seen:
            continue
        seen.add(key(source))
        roots.append([key(source), source.url, source.rev])
    return roots


def _stop(cloner: subprocess.Popen[bytes]) -> None:
    if cloner.poll() is None:
        cloner.terminate()  # the cloner ends its git, waits for it and exits
        try:
            cloner.wait(STOP_GRACE)
        except subprocess.TimeoutExpired:  # pragma: no cover - a cloner that does not answer
            cloner.kill()
            cloner.wait()


def take(directory: str, source: GitSource) -> tuple[str, Path, str] | None:
    """On a worker about to clone ``source``: ``(scratch to discard, checkout, commit)`` of the clone
    the cloner made of it, or None (then clone it; the cloner will not any more)."""
    base = Path(directory)
    name = key(source)
    try:
        os.mkdir(base / f"{name}.claim")
        return None  # the cloner has not come this far, and now stops here
    except FileExistsError:
        pass
    except OSError:  # the run's directory is gone or unwritable: clone as usual
        return None
    taken = base / f"{name}.taken"
    try:
        os.rename(base / f"{name}.ready", taken)
        commit = (taken / _COMMIT).read_text(encoding="ascii").strip()
    except OSError:  # not ready (being made, or the clone failed), or taken by a try before
        return None
    return str(taken), taken / _CHECKOUT, commit


def clone_ahead(directory: Path, roots: Sequence[Sequence[str | None]]) -> None:
    """The cloner's work: ``roots`` (``[key, url, rev]`` in the run's order) cloned into
    ``directory`` from the last, until one of them is claimed already (or another reason to stop,
    see the module's description)."""
    parent = os.getppid()
    base = str(directory.parent)
    held = 0
    for name, url, rev in reversed(roots):
        if os.getppid() != parent or held >= HELD_LIMIT or short_of_space(base):
            return
        try:
            os.mkdir(directory / f"{name}.claim")
        except OSError:  # a worker has it (or the run's directory is gone): the workers are here
            return
        part = directory / f"{name}.part"
        try:
            commit = clone(GitSource(str(url), rev), part / _CHECKOUT)
            (part / _COMMIT).write_text(commit + "\n", encoding="ascii")
        except (CloneError, OSError):
            shutil.rmtree(part, ignore_errors=True)
            continue  # its task clones it again, and reports what is wrong
        held += _size(part)
        os.rename(part, directory / f"{name}.ready")


def _size(tree: Path) -> int:
    total = 0
    for folder, _dirs, files in os.walk(tree):
        for name in files:
            try:
                total += os.lstat(os.path.join(folder, name)).st_size
            except OSError:
                continue
    return total


def main(argv: Sequence[str]) -> int:
    """``python -m retrace_fix.bulk.clone_ahead DIRECTORY/roots.json``: the cloner."""
    signal.signal(signal.SIGTERM, raise_stopped)  # in a git command: git is killed and waited for
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the coordinator's: it ends the cloner
    os.nice(19)
    listing = Path(argv[0])
    try:
        clone_ahead(listing.parent, json.loads(listing.read_text(encoding="utf-8")))
    except Stopped:
        pass
    return 0


if __name__ == "__main__":  # pragma: no cover - run as the cloner's process
    sys.exit(main(sys.argv[1:]))


__all__ = ["HELD_LIMIT", "active_directory", "clone_ahead", "clones_ahead", "key", "take"]
