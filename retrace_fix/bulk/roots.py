"""The roots of a run: the one root type, which root each argument belongs to, each root's unique name.

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

:class:`Root` is a root from planning to report: :func:`group_roots` makes one
per distinct root, a run (:func:`build_roots`, or a run of one task per root)
gives it its files, and its properties are the numbers of its summary row.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from retrace_fix.bulk.git_sources import GitSource, is_git_url, parse_git_root
from retrace_fix.findings import FileResult, Tier


class RootError(Exception):
    """A root that cannot be used at all (a malformed git URL): that root's error."""


@dataclass
class Root:
    """One root of a run: a local directory, or a git URL whose files are named ``<name>/<path>``."""

    label: str  # the first spelling given for this root (command line or --repos)
    key: str  # absolute directory of a local root (links stay as given); ``URL[@REV]`` of a git root
    paths: list[str] = field(default_factory=list)  # every argument that belongs to it, as given
    source: GitSource | None = None  # set for a git URL root
    name: str = ""  # unique in the run: the stem of its patch file
    url_error: str | None = None  # a malformed git URL (``URL@``, ``URL@-x``): reported for this root only
    files: list[FileResult] = field(default_factory=list)  # what the run made of it (and its problems)

    @property
    def is_remote(self) -> bool:
        return self.source is not None

    # ---------------------------------------------------------------- numbers

    @property
    def scanned(self) -> list[FileResult]:
        """Python files looked at (problems such as a missing root are not files)."""
        return [f for f in self.files if f.original is not None or f.path.endswith((".py", ".pyi", ".ipynb"))]

    @property
    def changed(self) -> list[FileResult]:
        return [f for f in self.files if f.changed]

    @property
    def fixes(self) -> dict[str, int]:
        counts = Counter(x.code for f in self.files for x in f.findings if x.applied)
        return dict(sorted(counts.items()))

    @property
    def diagnostics(self) -> int:
        return sum(1 for f in self.files for x in f.findings if x.tier is Tier.DIAGNOSTIC)

    @property
    def not_applied(self) -> int:
        return sum(1 for f in self.files for x in f.findings if x.fixable and not x.applied)

    @property
    def errors(self) -> list[str]:
        return [f.error for f in self.files if f.error]

    def relpath(self, file_result: FileResult) -> str:
        """The file's path in the root (POSIX separators): in the repository for a git root."""
        if self.is_remote:
            prefix = self.name + "/"
            return file_result.path[len(prefix):] if file_result.path.startswith(prefix) else file_result.path
        absolute = os.path.abspath(file_result.path)
        return Path(os.path.relpath(absolute, self.key)).as_posix()


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


def group_roots(paths: Iterable[str]) -> list[Root]:
    """One root per distinct root, in argument order, each with a unique name (and no files yet).

    A malformed git URL is a root with its ``url_error`` set: that root's error,
    not the whole list's.
    """
    roots: list[Root] = []
    by_key: dict[str, Root] = {}
    for raw in paths:
        error = None
        try:
            source = _source(raw)
        except RootError as exc:
            source, error = None, str(exc)
        key = _bad_key(raw) if error else source.spec if source is not None else root_directory(raw)
        root = by_key.get(key)
        if root is None:
            root = by_key[key] = Root(label=raw, key=key, source=source, url_error=error)
            roots.append(root)
        root.paths.append(raw)
    bases = [
        r.source.repo_name if r.source else r.label if r.url_error else os.path.basename(r.key.rstrip(os.sep))
        for r in roots
    ]
    for root, name in zip(roots, unique_names(bases)):
        root.name = name
    return roots


def build_roots(paths: Iterable[str], files: Iterable[FileResult], all_paths: Iterable[str] | None = None) -> list[Root]:
    """The roots of ``paths`` (local ones), in argument order, each with its share of ``files``.

    ``all_paths`` is the whole list when this run is one shard of it (``--shard``):
    names are given over it, and a file that a deeper root of another shard owns
    is left out, so the shards together give exactly the whole run's roots.
    """
    paths = list(paths)
    wanted = {root_directory(raw) for raw in paths}
    every = group_roots(all_paths if all_paths is not None else paths)
    roots = [root for root in every if root.key in wanted]
    by_label: dict[str, Root] = {}
    for root in roots:
        for raw in root.paths:
            by_label.setdefault(raw, root)
    here = {id(root) for root in roots}
    ordered = sorted(every, key=lambda r: len(r.key), reverse=True)  # deepest first
    for file_result in files:
        absolute = os.path.abspath(file_result.path)
        owner = by_label.get(file_result.path) if file_result.original is None else None
        owner = owner or next((r for r in ordered if contains(r.key, absolute)), None)
        if owner is None:
            owner = roots[0] if roots else None
        if owner is not None and id(owner) in here:
            owner.files.append(file_result)
    return roots


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
    "Root",
    "RootError",
    "build_roots",
    "contains",
    "has_git_urls",
    "group_roots",
    "root_directory",
    "root_key",
    "sanitize_name",
    "unique_names",
]
