"""Program runs that several tests make identically: made once, replayed to the next test.

``--verify`` and ``bench`` run the user's program through
:func:`retrace_fix.bench.runs.run_once`: a process started on a copy of the project
under the recorder.  Tests that check each output mode of one verification
(write, ``--diff``, ``-i``, ``--patch-dir``, ``--branch``) make the very same runs
one after another: the same files, command and order.  :func:`replay_identical_runs`
makes such a run once and gives its record to the next test that makes it.

The key is everything a run depends on: the bytes of every file of the copy it runs
in (names included), the folder it starts in relative to the copy, the command, its
side and number, the compared paths, the timeout, ``prove`` and this process's
environment (which the run's inherits; ``PYTEST_CURRENT_TEST`` aside).  Any other run
is made for real.  A record that names the copy it ran in (a traceback's file names in its
standard error) is given to the next copy with that name replaced, only where both
names have the same length (the kept tail of standard error then starts at the same
place) and only the text of standard error and of the outputs names it; otherwise the
run is made again.  The first test that makes a run always makes it: a test run alone
checks the whole path, processes included.
"""

from __future__ import annotations

import copy
import hashlib
import os
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest


def tree_digest(root: Path) -> str:
    """SHA-256 over the relative names and bytes of every file under ``root``."""
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            digest.update(path.relative_to(root).as_posix().encode("utf-8", "surrogateescape") + b"\0")
            digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


def _names(record: Any, folder: str) -> bool:
    """Does anything the record keeps mention ``folder`` (a path of the copy it ran in)?"""
    return folder in repr((record.outputs, record.stderr_tail, record.traces, record.calls, record.missing_outputs))


def _moved(record: Any, old: str, new: str) -> Any:
    """A copy of ``record`` for a run in ``new`` instead of ``old`` (None: it cannot be told)."""
    moved = copy.deepcopy(record)
    if old == new or not _names(record, old):
        return moved
    if len(old) != len(new):
        return None
    moved.stderr_tail = moved.stderr_tail.replace(old, new)
    moved.outputs = {name: value.replace(old, new) if isinstance(value, str) else value
                     for name, value in moved.outputs.items()}
    return None if _names(moved, old) else moved


def replay_identical_runs(monkeypatch: pytest.MonkeyPatch, module: ModuleType, store: dict) -> None:
    """Make ``module.run_once`` (the name the caller imported) replay runs kept in ``store``
    (a module-scoped dict) and keep the runs it makes there."""
    real = module.run_once

    def run_once(tree, index, command, work, project_root, compare_paths, timeout, prove=False):
        environment = tuple(sorted((name, value) for name, value in os.environ.items()
                                   if name != "PYTEST_CURRENT_TEST"))
        key = (tree_digest(tree.root), tree.cwd.relative_to(tree.root).as_posix(), tree.side, index,
               tuple(command), tuple(compare_paths), timeout, prove, environment)
        if key in store:
            kept, ran_in = store[key]
            record = _moved(kept, ran_in, str(tree.root))
            if record is not None:
                return record
        record = real(tree, index, command, work, project_root, compare_paths, timeout, prove)
        if not _names(record, str(project_root)):
            store[key] = (copy.deepcopy(record), str(tree.root))
        return record

    monkeypatch.setattr(module, "run_once", run_once)
