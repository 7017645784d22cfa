"""Which project a trace file belongs to, and which trace file applies to which root.

A trace names source files relative to the project root it was recorded in
(``train.py::train_step``), and such names are common: applied to another
repository that happens to have the same file and function, a recorded
signature is wrong there and raises at run time.  So a trace file records its
project (:func:`project_of`: the root's name, and its git remote and commit
when it is a git checkout), and a fix run applies it only to the roots it
belongs to (:class:`TraceAssignment`):

* ``--traces ROOT=FILE`` applies FILE to the files of ROOT, and nowhere else;
* a plain ``--traces FILE`` applies to a root when the projects agree: the
  same git remote when both have one, else the same directory name.  In a run
  over one root, a file without project information (recorded before it was
  stored) or from a checkout with another name still applies, unless the git
  remotes differ; in a run over several roots it applies only to the root it
  matches, and to none when it matches none or several;
* in a run over several roots, a root that no ``--traces`` covers uses its own
  ``.retrace/traces.json`` when it has one.

Pure Python apart from ``git`` (through :mod:`retrace_fix.bulk.git`), which is
asked only in the process that writes or reads a trace file, never in a
recorded program.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Any

from retrace_fix.bulk.git import GitError, output, run_git
from retrace_fix.traces.model import TraceFileError, TraceSet, load_trace_file

#: the trace file a root holds for itself (what ``retrace-fix record`` writes by default)
OWN_TRACES = os.path.join(".retrace", "traces.json")


def project_of(root: str | os.PathLike) -> dict:
    """``{"name", "remote", "commit"}`` of the project at ``root`` (remote and commit: None outside git).

    The remote is ``origin`` (else the first remote), with any user name or password left out.
    """
    root = os.path.realpath(root)
    project: dict[str, Any] = {"name": os.path.basename(root) or root, "remote": None, "commit": None}
    if not os.path.exists(os.path.join(root, ".git")):
        return project
    try:
        remotes = output(run_git(["remote"], cwd=root, check=False, timeout=10)).split()
        if remotes:
            remote = "origin" if "origin" in remotes else remotes[0]
            url = output(run_git(["remote", "get-url", remote], cwd=root, check=False, timeout=10)).strip()
            project["remote"] = _without_credentials(url) or None
        commit = output(run_git(["rev-parse", "--verify", "-q", "HEAD"], cwd=root, check=False, timeout=10)).strip()
        project["commit"] = commit if re.fullmatch(r"[0-9a-f]{40,64}", commit) else None
    except (GitError, OSError, ValueError, Exception):  # no git, a broken repository: the name is enough
        pass
    return project


def _without_credentials(url: str) -> str:
    """``https://user:token@host/x`` -> ``https://host/x`` (a token must never reach a trace file)."""
    return re.sub(r"^([a-zA-Z][a-zA-Z0-9+.-]*://)[^/@]*@", r"\1", url.strip())


def remote_key(url: str | None) -> str | None:
    """A remote URL in a form that compares equal across spellings (scheme, user, ``.git``, case of the host)."""
    if not url:
        return None
    text = _without_credentials(url).strip().rstrip("/")
    text = re.sub(r"\.git$", "", text)
    scp = re.fullmatch(r"(?:[^@/]+@)?([^:/]+):(?!//)(.+)", text)  # git@host:owner/name
    if scp:
        host, path = scp.groups()
    else:
        found = re.fullmatch(r"[a-zA-Z][a-zA-Z0-9+.-]*://(?:[^@/]*@)?([^/:]+)(?::\d+)?/(.+)", text)
        if not found:
            return text
        host, path = found.groups()
    return f"{host.lower()}/{path.strip('/')}"


def belongs(project: dict | None, root: str, root_project: dict, several_roots: bool) -> tuple[bool, str]:
    """(whether a trace file of ``project`` applies to ``root``, why not)."""
    if project is None:
        if several_roots:
            return False, "it does not say which project it was recorded in (recorded by an older retrace-fix)"
        return True, ""
    recorded, here = remote_key(project.get("remote")), remote_key(root_project.get("remote"))
    if recorded and here:
        if recorded == here:
            return True, ""
        return False, f"it was recorded in {project.get('remote')}, and {root} is {root_project.get('remote')}"
    if project.get("name") == root_project.get("name"):
        return True, ""
    if several_roots:
        return False, f"it was recorded in a project named {project.get('name')!r}"
    return True, ""


def describe(project: dict | None) -> str:
    if not project:
        return "an unknown project"
    text = repr(project.get("name"))
    if project.get("remote"):
        text += f" ({project['remote']}"
        text += f" at {project['commit'][:12]})" if project.get("commit") else ")"
    return text


# ---------------------------------------------------------------------------
# a fix run


@dataclass(frozen=True)
class TraceSource:
    """One ``--traces`` argument: ``FILE`` (``root`` None) or ``ROOT=FILE``."""

    label: str  # as given
    trace_set: TraceSet
    root: str | None = None  # realpath of ROOT for ``ROOT=FILE``


def parse_traces_argument(text: str) -> tuple[str | None, str]:
    """``ROOT=FILE`` -> (ROOT, FILE); ``FILE`` -> (None, FILE).  A path that exists as given is a FILE."""
    if "=" in text and not os.path.exists(text):
        root, _, path = text.partition("=")
        if root and path:
            return root, path
    return None, text


def load_sources(arguments: list[str]) -> list[TraceSource]:
    """Load every ``--traces`` argument; raises TraceFileError (one line) for a bad file or root."""
    sources = []
    for argument in arguments:
        root, path = parse_traces_argument(argument)
        if root is not None and not os.path.isdir(root):
            raise TraceFileError(f"{argument}: {root} is not a directory (the form is --traces ROOT=FILE)")
        sources.append(TraceSource(argument, load_trace_file(path), os.path.realpath(root) if root else None))
    return sources


@dataclass
class RootTraces:
    """The traces that apply to one root, and where they came from."""

    trace_set: TraceSet | None
    labels: tuple = ()  # the trace files that apply
    refused: tuple = ()  # (label, why) of plain files that do not belong to this root


@dataclass
class TraceAssignment:
    """Which trace files apply to which root of a run (picklable: sent to workers)."""

    sources: tuple = ()  # TraceSource, in command-line order
    several_roots: bool = False  # a bulk run: files must belong to a root to apply to it
    own_files: bool = False  # roots without --traces use their own .retrace/traces.json
    _cache: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def active(self) -> bool:
        return bool(self.sources) or self.own_files

    def for_root(self, root: str) -> RootTraces:
        """The traces of ``root`` (a realpath), computed once per root and process."""
        cached = self._cache.get(root)
        if cached is None:
            cached = self._cache[root] = self._resolve(root)
        return cached

    def _resolve(self, root: str) -> RootTraces:
        explicit = [s for s in self.sources if s.root is not None and _contains(s.root, root)]
        if explicit:
            return RootTraces(_merged(s.trace_set for s in explicit), tuple(s.label for s in explicit))
        plain = [s for s in self.sources if s.root is None]
        chosen, refused = [], []
        root_project = project_of(root) if plain else {}
        for source in plain:
            ok, why = belongs(source.trace_set.project, root, root_project, self.several_roots)
            (chosen.append(source) if ok else refused.append((source.label, why)))
        if chosen:
            return RootTraces(_merged(s.trace_set for s in chosen), tuple(s.label for s in chosen), tuple(refused))
        if self.own_files:
            own = os.path.join(root, OWN_TRACES)
            if os.path.isfile(own):
                try:
                    return RootTraces(load_trace_file(own), (own,), tuple(refused))
                except TraceFileError as exc:
                    return RootTraces(None, (), (*refused, (own, str(exc))))
        return RootTraces(None, (), tuple(refused))


def _contains(outer: str, inner: str) -> bool:
    return inner == outer or inner.startswith(outer.rstrip(os.sep) + os.sep)


def _merged(trace_sets) -> TraceSet:
    result = TraceSet()
    for trace_set in trace_sets:
        result = result.merge(trace_set)
    return result


# ---------------------------------------------------------------------------
# what the traces did not reach

#: at most this many unmatched functions are named per trace file
MAX_NAMED = 6


def coverage_lines(assignment: TraceAssignment | None, files: list) -> list[str]:
    """One line per trace file with recorded functions that matched no ``def`` of the files checked,
    and per trace file (plain or ``ROOT=FILE``) that applies to no root of the run (``files``:
    FileResults): a trace file that matches nothing always says so."""
    if assignment is None or not assignment.active:
        return []
    # root -> relpath of each file checked -> keys matched in it (None: no trace-driven codemod looked)
    checked: dict[str, dict[str, set | None]] = {}
    for result in files:
        if result.trace_root:
            in_root = checked.setdefault(result.trace_root, {})
            hits = None if result.trace_hits is None else {tuple(key) for key in result.trace_hits}
            if hits is not None or result.trace_relpath not in in_root:
                in_root[result.trace_relpath] = hits
    lines = []
    used_plain: set[str] = set()
    for root in sorted(checked):
        traces = assignment.for_root(root)
        used_plain.update(traces.labels)
        if traces.trace_set is None or all(hits is None for hits in checked[root].values()):
            continue  # no traces here, or no trace-driven codemod ran (--select)
        missing = []
        for function in traces.trace_set:
            if function.wraps is not None:
                continue  # the code a partial or callable object calls: no codemod matches it, by design
            if function.file not in checked[root]:
                missing.append(f"{function.file}::{function.qualname} ({function.file} was not checked)")
                continue
            matched = checked[root][function.file]
            if matched is not None and function.key not in matched:
                missing.append(f"{function.file}::{function.qualname} (no matching tf.function: renamed, removed "
                               "or its parameters changed since recording; re-record)")
        if missing:
            total = len(traces.trace_set)
            named = ", ".join(missing[:MAX_NAMED]) + (f", and {len(missing) - MAX_NAMED} more" if len(missing) > MAX_NAMED else "")
            where = ", ".join(traces.labels)
            lines.append(f"traces: {len(missing)} of {total} recorded function{'s' if total != 1 else ''} in {where} "
                         f"matched nothing in the files checked: {named}")
    if checked:
        refusals: dict[str, list[str]] = {}
        for root in sorted(checked):
            for label, why in assignment.for_root(root).refused:
                refusals.setdefault(label, []).append(why)
                if assignment.own_files and label == os.path.join(root, OWN_TRACES):
                    # the root's own .retrace/traces.json cannot be used: said, never silently passed over
                    lines.append(f"traces: {why} (this root's own trace file: not used)")
        for source in assignment.sources:
            if source.label in used_plain:
                continue
            if source.root is not None:
                lines.append(f"traces: {source.label} applies to nothing: none of the files checked lies in "
                             f"{_shown(source.root)}")
            elif source.label in refusals:
                lines.append(f"traces: {source.label} applies to none of the roots checked ({refusals[source.label][0]}); "
                             "give it as --traces ROOT=FILE to apply it to one")
            else:
                lines.append(f"traces: {source.label} applies to none of the roots checked")
    return lines


def _shown(path: str) -> str:
    """``path`` relative to the current directory when it lies inside it."""
    cwd = os.path.realpath(os.getcwd())
    return os.path.relpath(path, cwd) if _contains(cwd, path) and path != cwd else path
