"""The roots of a run: which root each argument belongs to, and each root's unique name.

* A local path's root is the directory it names, or the directory holding the
  file it names; arguments with the same root directory form one root, labelled
  by the first spelling given.
* A git URL (``URL[@REV]``, see :mod:`retrace_fix.bulk.git_sources`) is a root of its
  own, named after the repository.
* Names (the stem of the root's ``--patch-dir`` patch) are the directory's or
  repository's name with unusual characters replaced; when two roots share a
  name the later ones get ``-2``, ``-3``... in argument order.  They are given
  over the whole list of roots, so that a shard of the list (``--shard``)
  names its roots exactly as the whole run does.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Iterable

from retrace_fix.bulk.git_sources import GitSource, is_git_url, parse_git_root


class RootError(Exception):
    """A root that cannot be used at all (a malformed git URL): that root's error."""


@dataclass
class RootEntry:
    label: str  # the first spelling given for this root
    key: str  # absolute directory of a local root; ``URL[@REV]`` of a git root
    paths: list[str] = field(default_factory=list)  # every argument that belongs to it, as given
    source: GitSource | None = None  # set for a git URL root
    name: str = ""  # unique in the run: the stem of its patch file
    error: str | None = None  # a malformed git URL (``URL@``, ``URL@-x``): reported for this root only

    @property
    def is_remote(self) -> bool:
        return self.source is not None


def root_directory(raw: str) -> str:
    """The absolute root directory of a local path argument (links stay as given)."""
    absolute = os.path.abspath(raw)
    if os.path.isdir(absolute) or not os.path.exists(absolute):
        return absolute
    return os.path.dirname(absolute)


def root_key(raw: str) -> str:
    try:
        source = _source(raw)
    except RootError:
        return _bad_key(raw)
    return source.spec if source is not None else root_directory(raw)


def _bad_key(raw: str) -> str:
    """The key of a malformed git URL root (no directory nor URL can have it)."""
    return "\0" + raw


def plan_roots(paths: Iterable[str]) -> list[RootEntry]:
    """One entry per distinct root, in argument order, each with a unique name.

    A malformed git URL is an entry with its ``error`` set: that root's error,
    not the whole list's.
    """
    entries: list[RootEntry] = []
    by_key: dict[str, RootEntry] = {}
    for raw in paths:
        error = None
        try:
            source = _source(raw)
        except RootError as exc:
            source, error = None, str(exc)
        key = _bad_key(raw) if error else source.spec if source is not None else root_directory(raw)
        entry = by_key.get(key)
        if entry is None:
            entry = by_key[key] = RootEntry(label=raw, key=key, source=source, error=error)
            entries.append(entry)
        entry.paths.append(raw)
    bases = [
        e.source.repo_name if e.source else e.label if e.error else os.path.basename(e.key.rstrip(os.sep))
        for e in entries
    ]
    for entry, name in zip(entries, unique_names(bases)):
        entry.name = name
    return entries


def has_git_urls(paths: Iterable[str]) -> bool:
    """A git URL among ``paths`` (a malformed one counts: it is reported as a root of its own)."""
    return any(is_git_url(raw) for raw in paths)


def _source(raw: str) -> GitSource | None:
    try:
        return parse_git_root(raw)
    except ValueError as exc:
        raise RootError(str(exc)) from None


def sanitize_name(name: str) -> str:
    """A file-name stem: characters other than letters, digits, ``._+-`` become ``_``."""
    name = re.sub(r"[^A-Za-z0-9._+-]+", "_", name).strip("._") or "root"
    return name[:100]


def unique_names(bases: Iterable[str]) -> list[str]:
    """Sanitised names, the later of equal ones suffixed ``-2``, ``-3``... in order."""
    taken: set[str] = set()
    names = []
    for raw in bases:
        base = sanitize_name(raw or "root")
        name, n = base, 1
        while name in taken:
            n += 1
            name = f"{base}-{n}"
        taken.add(name)
        names.append(name)
    return names


def contains(directory: str, path: str) -> bool:
    """``path`` is ``directory`` or lies under it (both absolute)."""
    return path == directory or path.startswith(directory.rstrip(os.sep) + os.sep)


__all__ = [
    "RootEntry",
    "RootError",
    "contains",
    "has_git_urls",
    "plan_roots",
    "root_directory",
    "root_key",
    "sanitize_name",
    "unique_names",
]
