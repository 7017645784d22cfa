"""The two copies of the project that ``retrace-fix bench`` runs CMD in.

VCS, virtual-environment and cache directories are never copied (the
discovery's defaults), nor what ``--exclude`` names; symbolic links are copied
as links, never followed.  Nothing named ``.git`` (``.hg``, ``.svn``, in any
spelling) is copied, whatever it is: a worktree's or submodule's ``.git`` file,
or a link named ``.git``, would make git in a copy act on the original's
repository.  A project bigger than :data:`MAX_COPY_BYTES` is
refused before anything is copied.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Callable, Sequence

from retrace_fix.bench import BenchError
from retrace_fix.sources.discovery import DEFAULT_EXCLUDED_DIRS
from retrace_fix.sources.writes import vcs_dir_name
from retrace_fix.sources.ignore_patterns import check_patterns, compile_patterns

#: Refuse to copy a project bigger than this (use --exclude for data directories).
MAX_COPY_BYTES = 2 * 1024**3


def exclude_matcher(project_root: Path, cwd: Path, patterns: Sequence[str]) -> Callable[[Path, bool], bool]:
    """Is a path left out of the copies?  Raises BenchError for a bad ``--exclude`` pattern."""
    spec = None
    if patterns:
        problem = check_patterns(patterns)
        if problem:
            raise BenchError(f"--exclude: {problem}")
        spec = compile_patterns(list(patterns))

    def excluded(path: Path, is_dir: bool) -> bool:
        if is_dir and path.name in DEFAULT_EXCLUDED_DIRS or vcs_dir_name(path.name) is not None:
            return True
        if spec is None:
            return False
        for base in (cwd, project_root):
            try:
                rel = path.relative_to(base).as_posix()
            except ValueError:
                continue
            if spec.match_file(rel + ("/" if is_dir else "")):
                return True
        return False

    return excluded


def _walk_project(root: Path, excluded: Callable[[Path, bool], bool]):
    """(directory, dirnames, filenames) of what gets copied; links are listed as files."""
    for dirpath, dirnames, filenames in os.walk(root):
        directory = Path(dirpath)
        kept_dirs = []
        for name in sorted(dirnames):
            sub = directory / name
            if sub.is_symlink():
                filenames.append(name)  # copied as a link, never followed
                continue
            if not excluded(sub, True):
                kept_dirs.append(name)
        dirnames[:] = kept_dirs
        yield directory, kept_dirs, [n for n in sorted(filenames) if not excluded(directory / n, False)]


def project_size(root: Path, excluded: Callable[[Path, bool], bool], limit: int = MAX_COPY_BYTES) -> int:
    total = 0
    for directory, _dirs, files in _walk_project(root, excluded):
        for name in files:
            try:
                total += (directory / name).lstat().st_size
            except OSError:
                pass
        if total > limit:
            break
    return total


def copy_project(root: Path, dest: Path, excluded: Callable[[Path, bool], bool]) -> None:
    """Copy ``root`` to ``dest`` (which must not exist); symbolic links are copied as links."""
    dest.mkdir(parents=True)
    for directory, dirs, files in _walk_project(root, excluded):
        target_dir = dest / directory.relative_to(root)
        for name in dirs:
            (target_dir / name).mkdir(exist_ok=True)
        for name in files:
            source = directory / name
            target = target_dir / name
            try:
                if source.is_symlink():
                    os.symlink(os.readlink(source), target)
                elif source.is_file():
                    shutil.copy2(source, target)
            except OSError as exc:
                raise BenchError(f"cannot copy {source}: {exc.strerror or exc}") from None
