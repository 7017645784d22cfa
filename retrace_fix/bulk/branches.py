"""``--branch NAME``: the fixes as one commit on a new branch of each changed git repository.

The commit is built with git's plumbing on a temporary index, so the current
branch, ``HEAD``, the index and the working tree (uncommitted work included)
are never touched:

1. the new branch starts at ``HEAD`` (``git rev-parse``); a branch of that
   name that exists already is never moved;
2. a fixed file goes into the commit only when the text the fixes were
   computed from is exactly the file's content in ``HEAD`` (same blob id), or
   is it with CRLF line endings where ``HEAD`` has LF (a ``core.autocrlf`` or
   ``eol=crlf`` checkout that git shows clean: the fixed text is committed
   with LF, as ``git add`` would store it); a file with uncommitted changes,
   or not in ``HEAD``, is left out with a note (the fix was computed on text
   that is not what the branch holds);
3. ``git read-tree HEAD`` into a temporary index, ``git hash-object -w`` of
   each fixed file, ``git update-index --index-info``, ``git write-tree``,
   ``git commit-tree -p HEAD`` and ``git update-ref`` (which refuses when the
   branch appeared meanwhile).

Roots in the same repository share its one commit.  The message lists the
fixes by code, one line per fix with its reason, ready for a pull request.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING

from retrace_fix import __version__
from retrace_fix.sources.discovery import display_path
from retrace_fix.findings import FileResult, Finding
from retrace_fix.bulk.git import GitError, output, repository_toplevel, run_git
from retrace_fix.wording import plural

if TYPE_CHECKING:  # pragma: no cover
    from retrace_fix.bulk.roots import Root
    from retrace_fix.bulk.run import BulkReport

#: who commits when git knows no identity (no user.name / user.email anywhere)
FALLBACK_IDENTITY = {
    "GIT_AUTHOR_NAME": "retrace-fix", "GIT_AUTHOR_EMAIL": "retrace-fix@localhost",
    "GIT_COMMITTER_NAME": "retrace-fix", "GIT_COMMITTER_EMAIL": "retrace-fix@localhost",
}


class BranchError(Exception):
    """No branch could be made in a repository; the message is one line."""


def check_branch_name(name: str) -> None:
    """Raise ValueError (one line) unless ``name`` is a valid git branch name."""
    try:
        done = run_git(["check-ref-format", "--branch", name], check=False)
    except GitError as exc:
        raise ValueError(f"--branch {name}: {exc}") from None
    if done.returncode != 0 or name.startswith("-"):
        raise ValueError(f"--branch {name}: not a valid git branch name")


@dataclass
class FileChange:
    repo_path: str  # relative to the repository's top level, POSIX separators
    result: FileResult


@dataclass
class Repository:
    toplevel: str
    roots: list["Root"] = field(default_factory=list)
    changes: list[FileChange] = field(default_factory=list)


@dataclass
class Commit:
    commit: str
    committed: list[FileChange]
    left_out: list[tuple[str, str]]  # (repo path, why)


def commit_branches(name: str, report: "BulkReport", err: IO[str], proof: str | None = None) -> None:
    """Make branch ``name`` in every repository holding a changed root; record results in ``report``.

    ``report.branches`` gets each root's commit, ``report.branch_errors`` the
    roots that got no branch (those messages are also printed); notes about
    files left out go to ``err``.  ``proof``: what ``--verify`` showed, for the
    commit message.
    """
    repositories: dict[str, Repository] = {}
    report.committed_files = report.committed_fixes = 0
    for root in report.roots:
        if not root.changed:
            continue
        try:
            toplevel, prefix = _repository_of(root.key)
        except GitError as exc:
            _fail(report, [root], f"{root.label}: no branch {name}: not in a git repository ({exc})", err)
            continue
        repository = repositories.setdefault(toplevel, Repository(toplevel))
        repository.roots.append(root)
        repository.changes += [FileChange(prefix + root.relpath(f), f) for f in root.changed]
    for repository in repositories.values():
        where = display_path(Path(repository.toplevel))
        try:
            made = commit_fixes(repository.toplevel, name, repository.changes, proof=proof)
        except BranchError as exc:
            _fail(report, repository.roots, f"{where}: no branch {name}: {exc}", err)
            continue
        for repo_path, why in made.left_out:
            err.write(f"note: {where}: {repo_path} is not in branch {name}: {why}\n")
        fixes = sum(change.result.applied_count for change in made.committed)
        report.committed_files += len(made.committed)
        report.committed_fixes += fixes
        err.write(
            f"branch {name} created in {where} at {made.commit[:12]}: "
            f"{plural(len(made.committed), 'file')}, {plural(fixes, 'fix')}\n"
        )
        committed = {id(change.result) for change in made.committed}
        for root in repository.roots:
            if any(id(f) in committed for f in root.changed):
                report.branches[root.name] = made.commit


def _fail(report: "BulkReport", roots: list["Root"], message: str, err: IO[str]) -> None:
    err.write(f"retrace-fix: error: {message}\n")
    for root in roots:
        report.branch_errors[root.name] = message


def _repository_of(directory: str) -> tuple[str, str]:
    """(top level, this directory's path in the repository with a trailing ``/`` or '').

    The repository is the one whose ``.git`` entry is at or above ``directory``
    (:func:`~retrace_fix.bulk.git.repository_toplevel`): a bare repository
    committed into the tree (``tools/HEAD``, ``tools/config``...) is never it.
    """
    toplevel = repository_toplevel(directory)
    prefix = os.path.relpath(os.path.realpath(directory), toplevel)
    return toplevel, "" if prefix == os.curdir else Path(prefix).as_posix() + "/"


def commit_fixes(toplevel: str, name: str, changes: list[FileChange], proof: str | None = None) -> Commit:
    """Commit ``changes`` on top of ``HEAD`` as the new branch ``name``; raises BranchError."""
    try:
        head = output(run_git(["rev-parse", "--verify", "--quiet", "HEAD^{commit}"], cwd=toplevel, check=False))
        if not head:
            raise BranchError("the repository has no commit to branch from")
        if run_git(["show-ref", "--verify", "--quiet", f"refs/heads/{name}"], cwd=toplevel, check=False).returncode == 0:
            raise BranchError(f"a branch named {name} exists already (it is left as it is)")
        in_head = _head_blobs(toplevel)
        algorithm = _object_format(toplevel)
        committed: list[FileChange] = []
        left_out: list[tuple[str, str]] = []
        lf_in_repository: set[int] = set()  # changes whose CRLF checkout is LF in the repository
        for change in sorted(changes, key=lambda c: c.repo_path):
            entry = in_head.get(os.fsencode(change.repo_path))
            original = _encoded(change.result, change.result.original)
            if entry is None:
                left_out.append((change.repo_path, "not committed in HEAD"))
            elif entry[1] != b"blob" or original is None:
                left_out.append((change.repo_path, "it has changes not committed in HEAD (commit or stash them first)"))
            elif entry[2] == _blob_id(original, algorithm):
                committed.append(change)
            elif b"\r\n" in original and entry[2] == _blob_id(original.replace(b"\r\n", b"\n"), algorithm):
                # core.autocrlf / eol=crlf: the checkout has CRLF where the repository keeps LF, and git
                # shows the file clean; the fixed text is committed as `git add` would store it
                lf_in_repository.add(id(change))
                committed.append(change)
            else:
                left_out.append((change.repo_path, "it has changes not committed in HEAD (commit or stash them first)"))
        if not committed:
            raise BranchError("; ".join(f"{path}: {why}" for path, why in left_out) or "nothing to commit")
        with tempfile.TemporaryDirectory(prefix="retrace-fix-branch-") as scratch:
            env = {"GIT_INDEX_FILE": os.path.join(scratch, "index")}
            run_git(["read-tree", "HEAD"], cwd=toplevel, env=env)
            entries = []
            for change in committed:
                data = _encoded(change.result, change.result.fixed) or b""
                if id(change) in lf_in_repository:
                    data = data.replace(b"\r\n", b"\n")
                blob = output(run_git(["hash-object", "-w", "--no-filters", "--stdin"], cwd=toplevel, input=data))
                mode = in_head[os.fsencode(change.repo_path)][0]
                entries.append(mode + b" " + blob.encode() + b"\t" + os.fsencode(change.repo_path) + b"\0")
            run_git(["update-index", "-z", "--index-info"], cwd=toplevel, env=env, input=b"".join(entries))
            tree = output(run_git(["write-tree"], cwd=toplevel, env=env))
        identity = {} if run_git(["var", "GIT_COMMITTER_IDENT"], cwd=toplevel, check=False).returncode == 0 else FALLBACK_IDENTITY
        message = commit_message([c.result for c in committed], {id(c.result): c.repo_path for c in committed}, proof)
        commit = output(run_git(["commit-tree", tree, "-p", head, "-F", "-"], cwd=toplevel, env=identity,
                                input=message.encode("utf-8")))
        run_git(["update-ref", "-m", f"retrace-fix: --branch {name}", f"refs/heads/{name}", commit, ""], cwd=toplevel)
    except GitError as exc:
        raise BranchError(str(exc)) from None
    return Commit(commit=commit, committed=committed, left_out=left_out)


def _head_blobs(toplevel: str) -> dict[bytes, tuple[bytes, bytes, str]]:
    """Every path in ``HEAD``: (mode, type, object id)."""
    listing = run_git(["ls-tree", "-r", "-z", "--full-tree", "HEAD"], cwd=toplevel).stdout
    entries = {}
    for record in listing.split(b"\0"):
        if not record:
            continue
        meta, _, path = record.partition(b"\t")
        mode, kind, object_id = meta.split(b" ")
        entries[path] = (mode, kind, object_id.decode())
    return entries


def _object_format(toplevel: str) -> str:
    done = run_git(["rev-parse", "--show-object-format"], cwd=toplevel, check=False)
    return "sha256" if done.returncode == 0 and output(done) == "sha256" else "sha1"


def _blob_id(data: bytes, algorithm: str) -> str:
    return hashlib.new(algorithm, b"blob %d\0" % len(data) + data).hexdigest()


def _encoded(result: FileResult, text: str | None) -> bytes | None:
    if text is None:
        return None
    try:
        return text.encode(result.encoding)
    except (UnicodeEncodeError, LookupError):
        return None


def commit_message(results: list[FileResult], repo_paths: dict[int, str], proof: str | None = None) -> str:
    """Subject, then the applied fixes grouped by code: ``- path:line: reason`` each; then ``proof``
    (a ``--verify`` run's table: what running the program with the fixes showed)."""
    by_code: dict[str, list[tuple[str, Finding]]] = defaultdict(list)
    for result in results:
        for finding in result.findings:
            if finding.applied:
                by_code[finding.code].append((repo_paths[id(result)], finding))
    total = sum(len(v) for v in by_code.values())
    lines = [f"retrace-fix: {plural(total, 'fix')} for tf.function retracing ({', '.join(sorted(by_code))})", ""]
    for code in sorted(by_code):
        fixes = sorted(by_code[code], key=lambda pf: (pf[0], pf[1].line, pf[1].column))
        lines.append(f"{code} {_code_name(code)} ({len(fixes)}):")
        for path, finding in fixes:
            reason = f" (unsafe: {finding.reason})" if finding.reason else ""
            lines.append(f"- {path}:{finding.line}: {finding.message}{reason}")
        lines.append("")
    if proof:
        lines += [proof.rstrip("\n"), ""]
    lines.append(f"Made by retrace-fix {__version__}; `retrace-fix explain CODE` describes each fix.")
    return "\n".join(lines) + "\n"


def _code_name(code: str) -> str:
    from retrace_fix.codemods import rule

    found = rule(code)
    return found.name if found is not None else ""


__all__ = ["BranchError", "check_branch_name", "commit_branches", "commit_fixes", "commit_message"]
