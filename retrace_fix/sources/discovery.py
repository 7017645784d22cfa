"""Which files a run looks at: paths, .gitignore, excludes, project roots.

* A file named on the command line is always processed (if it is a Python file),
  unless its real location (links followed) leaves its project root: the
  nearest directory at or above it, as written, that holds ``.git``, else the
  current directory (or the file's own directory when it is not below it).  A
  directory named on the command line is refused the same way when it is a
  link out of the repository that holds it.  Such a path is reported (exit 2)
  and never read: a link in someone else's tree must not carry a file from
  outside it into a fix, a diff or a patch.
* A directory is walked: ``*.py`` files and ``*.ipynb`` notebooks, not following symbolic links (no loops,
  nothing reached outside the tree), skipping the usual tool/VCS/virtualenv
  directories, every ``.gitignore`` on the way (from the repository root down)
  and the ``--exclude`` / ``[tool.retrace-fix] exclude`` patterns.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from retrace_fix.bulk.git import repository_root
from retrace_fix.sources.ignore_patterns import IgnorePatterns, compile_patterns

DEFAULT_EXCLUDED_DIRS = frozenset(
    {
        ".bzr", ".direnv", ".eggs", ".git", ".git-rewrite", ".hg", ".ipynb_checkpoints",
        ".mypy_cache", ".nox", ".pants.d", ".pytest_cache", ".pytype", ".ruff_cache",
        ".svn", ".tox", ".venv", ".retrace", "__pycache__", "__pypackages__", "_build",
        "buck-out", "node_modules", "site-packages", "venv",
    }
)
PYTHON_SUFFIXES = (".py", ".pyi")
#: what a run reads: Python files and Jupyter notebooks (their code cells: retrace_fix.notebooks.notebook)
SOURCE_SUFFIXES = (*PYTHON_SUFFIXES, ".ipynb")
#: Environment variable naming the project root that recorded paths are relative to.
ENV_PROJECT_ROOT = "RETRACE_FIX_PROJECT_ROOT"


class DiscoveryError(Exception):
    """A path named on the command line does not exist (reported, exit 2)."""


@dataclass
class Discovered:
    files: list[Path] = field(default_factory=list)  # absolute, sorted by display path
    problems: list[str] = field(default_factory=list)  # "path: reason" for skipped named paths
    #: each file's realpath as found (links resolved), for the files of ``files``
    real: dict[Path, str] = field(default_factory=dict, repr=False)


def find_project_root(start: str | os.PathLike | None = None) -> str:
    """The project root: the directory trace files name source files relative to.

    It is the join key between a recording and a fix run, so everything that
    records or reads traces asks this one function (the recorder, ``record``,
    ``bench``, the engine and the codemods run by ``libcst.tool``):

    1. ``$RETRACE_FIX_PROJECT_ROOT`` when it is set (``record`` sets it for the
       processes it records, so that they all agree with it);
    2. else the nearest directory holding a ``.git`` entry, from ``start`` upwards
       (``start``: a directory, or a file's directory; default: the current
       directory), found as bulk runs find a repository
       (:func:`retrace_fix.bulk.git.repository_root`);
    3. else the current directory.

    Paths are resolved (symbolic links followed), as the recorder resolves the
    files it records.  A string: it also goes into environment variables.
    """
    override = os.environ.get(ENV_PROJECT_ROOT)
    if override:
        return os.path.realpath(override)
    cwd = os.path.realpath(os.getcwd())
    return repository_root(start if start is not None else cwd) or cwd


class ProjectRoots:
    """:func:`find_project_root` for the directories of many files (a run's jobs): the current
    directory is resolved once, and each directory is asked for a ``.git`` entry once (the
    directories of a repository share their ancestors: 971 directories of the 34-root corpus
    asked 13,000 ``lstat`` of the same few hundred paths)."""

    def __init__(self) -> None:
        self._override = os.environ.get(ENV_PROJECT_ROOT)
        self._cwd: str | None = None
        self._has_git: dict[str, bool] = {}

    def of(self, real_directory: str) -> str:
        """The project root of a directory, given by its realpath (a directory, not a file)."""
        if self._override:
            return os.path.realpath(self._override)
        directory = real_directory
        while True:
            found = self._has_git.get(directory)
            if found is None:
                found = self._has_git[directory] = os.path.lexists(os.path.join(directory, ".git"))
            if found:
                return directory
            parent = os.path.dirname(directory)
            if parent == directory:
                break
            directory = parent
        if self._cwd is None:
            self._cwd = os.path.realpath(os.getcwd())
        return self._cwd


def display_path(path: Path, cwd: Path | None = None) -> str:
    """Path relative to the current directory where possible (POSIX separators)."""
    cwd = cwd or Path.cwd()
    relative = posix_relative(str(path), str(cwd))
    if relative is not None:
        return relative
    try:
        return path.relative_to(cwd).as_posix()
    except ValueError:
        return path.as_posix()


def posix_relative(path: str, base: str) -> str | None:
    """``PurePath(path).relative_to(base).as_posix()`` for two absolute POSIX paths as pathlib
    writes them (``str`` of a ``Path``, or ``os.path.realpath``), on strings; None where that is
    not shown so simply (another separator, not below ``base``): ask pathlib then.

    A bulk run asks this for every file several times (display paths, ignore rules,
    trace paths); pathlib's ``relative_to`` builds two paths each time.
    """
    if os.sep != "/" or not base.startswith("/") or not path.startswith("/"):
        return None
    if path == base:
        return "."
    prefix = base if base.endswith("/") else base + "/"
    if not path.startswith(prefix) or "//" in path or "/./" in path or path.endswith("/."):
        return None
    return path[len(prefix):]


#: a ``.gitignore`` larger than this is reported and not used (real ones are a few KiB)
MAX_GITIGNORE_BYTES = 1 << 20


class _IgnoreRules:
    """``.gitignore`` files (cached per directory) plus extra exclude patterns.

    A line git cannot use is skipped (as git skips it) and, for a ``.gitignore``,
    named in :attr:`problems`; extra patterns were checked before the run
    (:func:`retrace_fix.sources.ignore_patterns.check_patterns`).
    """

    def __init__(self, excludes: list[tuple[Path, list[str]]]) -> None:
        # excludes: (base directory, patterns) pairs; patterns are gitignore-style
        self._extra = [(base, compile_patterns(pats)) for base, pats in excludes if pats]
        self._gitignores: dict[Path, IgnorePatterns | None] = {}
        self.problems: list[str] = []

    def _spec_for(self, directory: Path) -> IgnorePatterns | None:
        if directory not in self._gitignores:
            spec = None
            gitignore = directory / ".gitignore"
            try:
                # a regular file, not a link: git (2.32 on) does not follow a symbolic .gitignore either
                if stat.S_ISREG(os.lstat(gitignore).st_mode):
                    with open(gitignore, "rb") as handle:
                        data = handle.read(MAX_GITIGNORE_BYTES + 1)
                    if len(data) > MAX_GITIGNORE_BYTES:
                        self.problems.append(
                            f"{display_path(gitignore)}: larger than {MAX_GITIGNORE_BYTES >> 20} MiB (not used)"
                        )
                    else:
                        # surrogateescape: a line of Latin-1 bytes meets the file names of those bytes, as in git
                        spec = compile_patterns(data.decode("utf-8", "surrogateescape").splitlines())
                        self.problems += [f"{display_path(gitignore)}: {problem}" for problem in spec.problems]
            except OSError:
                spec = None
            self._gitignores[directory] = spec
        return self._gitignores[directory]

    def ignored(self, path: Path, is_dir: bool, gitignore_dirs: list[Path]) -> bool:
        for base, spec in self._extra:
            if _matches(spec, path, base, is_dir):
                return True
        # as git: the deepest .gitignore with a pattern matching the path decides (a `!pattern`
        # there re-includes what a .gitignore higher up ignores)
        for directory in reversed(gitignore_dirs):
            spec = self._spec_for(directory)
            decision = _decision(spec, path, directory, is_dir) if spec is not None else None
            if decision is not None:
                return decision
        return False


def _relative_name(path: Path, base: Path, is_dir: bool) -> str | None:
    rel = posix_relative(str(path), str(base))
    if rel is None:
        try:
            rel = path.relative_to(base).as_posix()
        except ValueError:
            return None
    return rel + "/" if is_dir else rel


def _matches(spec: IgnorePatterns, path: Path, base: Path, is_dir: bool) -> bool:
    rel = _relative_name(path, base, is_dir)
    return rel is not None and spec.match_file(rel)


def _decision(spec: IgnorePatterns, path: Path, base: Path, is_dir: bool) -> bool | None:
    rel = _relative_name(path, base, is_dir)
    return spec.decision(rel) if rel is not None else None


def _gitignore_chain(directory: Path, repo_root: Path | None) -> list[Path]:
    """Directories from the repository root down to ``directory`` (their .gitignore files apply)."""
    if repo_root is None:
        return [directory]
    chain = []
    current = directory
    while True:
        chain.append(current)
        if current == repo_root or current.parent == current:
            break
        current = current.parent
    return list(reversed(chain))


def _repo_root(directory: Path) -> Path | None:
    for candidate in [directory, *directory.parents]:
        if (candidate / ".git").exists():
            return candidate
    return None


def outside_root(path: str | os.PathLike) -> str | None:
    """Why a path named on the command line is refused: its real location leaves its project root.

    The project root is the nearest directory at or above the path, as written
    (links not followed), that holds ``.git``; without one, the folder given: a
    directory itself, a file's current directory when the file is below it,
    else the file's directory.  None when the path stays inside (a path
    without links always does).
    """
    absolute = Path(os.path.abspath(path))
    if absolute.is_dir():
        root = _repo_root(absolute) or absolute
    else:
        cwd = Path(os.path.abspath(os.getcwd()))
        base = absolute.parent
        root = _repo_root(base) or (cwd if base == cwd or cwd in base.parents else base)
    real, real_root = Path(os.path.realpath(absolute)), Path(os.path.realpath(root))
    if real == real_root or real_root in real.parents:
        return None
    return f"refused: a link to {real}, outside its project root {root}"


def discover(paths: list[str], excludes: list[tuple[Path, list[str]]]) -> Discovered:
    """Expand command-line paths to the Python files to process."""
    rules = _IgnoreRules(excludes)
    result = Discovered()
    seen: set[str] = set()  # realpaths (normalised strings: no Path needed to compare them)

    def add(path: Path, real: str | None = None) -> None:
        """``real``: the file's realpath, where known (a walked file: its directory's, and its name)."""
        real = real if real is not None else os.path.realpath(path)
        if real not in seen:
            seen.add(real)
            result.files.append(path)
            result.real[path] = real

    for raw in paths:
        path = Path(raw)
        if not path.exists() and not path.is_symlink():
            raise DiscoveryError(f"{raw}: no such file or directory")
        absolute = Path(os.path.abspath(path))
        if absolute.is_file() or absolute.is_dir():
            escape = outside_root(absolute)
            if escape is not None:
                result.problems.append(f"{raw}: {escape}")
                continue
        if absolute.is_file():
            if absolute.suffix in SOURCE_SUFFIXES:
                add(absolute)
            else:
                result.problems.append(f"{raw}: not a Python file (skipped)")
            continue
        if not absolute.is_dir():
            result.problems.append(f"{raw}: not a regular file or directory (skipped)")
            continue
        repo_root = _repo_root(absolute)
        # a directory to walk -> its path, its realpath (no link below the top) and the directories
        # whose .gitignore applies in it (its parent's and itself), made when its parent was walked
        below: dict[str, tuple[Path, str, list[Path]]] = {}
        for dirpath, dirnames, filenames in os.walk(absolute, onerror=_walk_error(result)):
            known = below.pop(dirpath, None)
            if known is not None:
                directory, real_directory, chain = known
            else:  # the top
                directory = Path(dirpath)
                real_directory = os.path.realpath(dirpath)
                chain = _gitignore_chain(directory, repo_root)
            if ".gitignore" not in filenames:  # nothing of this directory's own to read (as _spec_for finds)
                chain = chain[:-1]
            kept = []
            for name in sorted(dirnames):
                if name in DEFAULT_EXCLUDED_DIRS:
                    continue
                child = os.path.join(dirpath, name)
                if os.path.islink(child):
                    continue
                sub = directory / name
                if rules.ignored(sub, True, chain):
                    continue
                kept.append(name)
                below[child] = (sub, os.path.join(real_directory, name), [*chain, sub] if repo_root is not None else [sub])
            dirnames[:] = kept
            for name in sorted(filenames):
                if not name.endswith(SOURCE_SUFFIXES):
                    continue
                file_path = directory / name
                try:
                    mode = os.lstat(file_path).st_mode
                except OSError:
                    continue
                if not stat.S_ISREG(mode):
                    continue  # never follow a link out of the tree; no FIFOs, sockets, devices
                if rules.ignored(file_path, False, chain):
                    continue
                add(file_path, os.path.join(real_directory, name))  # a regular file: realpath is its directory's
    result.problems += rules.problems
    cwd = Path.cwd()
    result.files.sort(key=lambda p: display_path(p, cwd))
    return result


def is_excluded(path: Path, excludes: list[tuple[Path, list[str]]]) -> bool:
    """Would walking the tree skip the file ``path`` (it need not exist)?

    The same rules as a walk: the usual tool/VCS/virtualenv directories, every
    ``.gitignore`` from the repository root down, and the exclude patterns.  A
    walk starts at the repository root holding ``path``, else at the current
    directory when ``path`` is below it, else at ``path``'s directory.
    """
    rules = _IgnoreRules(excludes)
    path = Path(os.path.abspath(path))
    repo_root = _repo_root(path.parent)
    top = repo_root or Path.cwd()
    try:
        below = path.parent.relative_to(top).parts
    except ValueError:
        top, below = path.parent, ()
    current = top
    for name in below:
        parent, current = current, current / name
        if name in DEFAULT_EXCLUDED_DIRS or rules.ignored(current, True, _gitignore_chain(parent, repo_root)):
            return True
    return rules.ignored(path, False, _gitignore_chain(path.parent, repo_root))


def _walk_error(result: Discovered):
    def onerror(error: OSError) -> None:
        result.problems.append(f"{error.filename}: cannot read directory ({error.strerror})")

    return onerror


def discover_roots(paths: list[str], excludes: list[tuple[Path, list[str]]]) -> Discovered:
    """Like :func:`discover`, one root at a time: a root that does not
    exist (or cannot be walked) becomes a problem of that root instead of stopping the run."""
    result = Discovered()
    seen: set[str] = set()
    for raw in paths:
        try:
            found = discover([raw], excludes)
        except DiscoveryError as exc:
            result.problems.append(str(exc))
            continue
        except OSError as exc:
            result.problems.append(f"{raw}: cannot read ({exc.strerror or exc})")
            continue
        for path in found.files:
            key = found.real.get(path) or os.path.realpath(path)
            if key not in seen:
                seen.add(key)
                result.files.append(path)
                result.real[path] = key
        # a .gitignore shared by several roots (their repository's) is reported once
        result.problems.extend(p for p in found.problems if p not in result.problems)
    cwd = Path.cwd()
    result.files.sort(key=lambda p: display_path(p, cwd))
    return result
