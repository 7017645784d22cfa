"""The line that points a first run to its next step.

A run without traces judges each tf.function by its code alone, but most
retracing depends on the arguments a real run passes: a static
``retrace-fix --diff src/`` over functions that retrace nine times can rightly
say "0 fixes available".  So when such a run saw tf.functions that only a
recorded run can judge (no ``input_signature``), and the trace-driven codes are
selected, it says so once, on standard error, with the command to run next.
Never in JSON or SARIF output, never with ``--quiet``, never on standard input
(editors), never in bulk runs, and never when there is no tf.function.  The
command it names exists: a script of the project with a ``__main__`` guard,
``python -m pytest`` where there are tests, else the placeholder
``<your command>``.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import TYPE_CHECKING

from retrace_fix.fix_request import FixRequest, UsageProblem, resolve_options
from retrace_fix.wording import plural

if TYPE_CHECKING:  # pragma: no cover
    from retrace_fix.engine.options import RunResult

#: the paths are repeated in the suggested command up to this length; longer lists become PATH...
MAX_PATHS_SHOWN = 60


def trace_driven_codes() -> list[str]:
    """The codes whose fixes come from recorded traces (their page's example names ``--traces``)."""
    from retrace_fix.codemods import REGISTRY, RULES

    codes = {code for code, rule in RULES.items() if any(example.needs_traces for example in rule.examples)}
    codes.update(code for cls in REGISTRY if cls.NEEDS_TRACES for code in cls.codes())
    return sorted(codes)


def next_step_hint(request: FixRequest, result: "RunResult") -> str | None:
    """The one-line hint for this run (None: nothing to say)."""
    if request.output_format != "text" or request.quiet or request.traces or request.stdin_filename is not None:
        return None
    if request.patch_dir or request.branch or request.repos or request.scheduler or request.shard is not None:
        return None  # bulk runs over many projects: there is no one program to run
    if request.verify is not None:
        return None  # --verify ran the program and recorded it
    if not any(f.unsigned_tf_functions for f in result.files):
        return None
    try:
        options, _ = resolve_options(request)
    except UsageProblem:  # pragma: no cover - the run itself got past this
        return None
    if not any(options.code_selected(code) for code in trace_driven_codes()):
        return None
    # over several paths, a root's own .retrace/traces.json applies without --traces
    untraced = [f for f in result.files if not (f.trace_root and options.traces_for(f.trace_root) is not None)]
    functions = sum(f.unsigned_tf_functions for f in untraced)
    if not functions:
        return None
    files = sum(1 for f in untraced if f.unsigned_tf_functions)
    paths = " ".join(shlex.quote(p) for p in request.paths)
    if len(paths) > MAX_PATHS_SHOWN:
        paths = "PATH..."
    command = program_command(Path.cwd(), [f.path for f in result.files if f.unsigned_tf_functions])
    notebooks = sorted({f.path for f in untraced if f.unsigned_tf_functions and f.path.endswith(".ipynb")})
    if notebooks and len(notebooks) == files:  # only notebooks: a kernel runs them (docs/notebooks.md)
        name = shlex.quote(notebooks[0]) if len(notebooks) == 1 else "NOTEBOOK.ipynb"
        command = f"jupyter nbconvert --to notebook --execute {name}"
    return (
        f"hint: {plural(functions, 'tf.function')} in {plural(files, 'file')} can only be judged from a run "
        f"of your program: retrace-fix --verify {paths} -- {command} "
        f"(or retrace-fix record -- {command}, then --traces .retrace/traces.json)"
    )


#: the placeholder when no command that exists could be named
PLACEHOLDER = "<your command>"
#: at most this many files are read looking for a script
MAX_SCRIPTS_READ = 200
_MAIN_GUARD = re.compile(rb"^if\s+__name__\s*==\s*['\"]__main__['\"]\s*:", re.MULTILINE)
_TEST_FILE = re.compile(r"^(test_.*|.*_test)\.py$")


def program_command(cwd: Path, files: list[str]) -> str:
    """A command that exists to run from ``cwd``: ``python SCRIPT`` for a script with a ``__main__``
    guard (in ``cwd`` first, then among ``files``), ``python -m pytest`` where there are tests, else
    the placeholder ``<your command>``: never a file that is not there."""
    candidates = sorted(p for p in _listdir(cwd) if p.suffix == ".py" and p.is_file())
    candidates += [cwd / f for f in files if f.endswith(".py")]
    seen: set[Path] = set()
    for path in candidates[:MAX_SCRIPTS_READ]:
        if path in seen or _TEST_FILE.match(path.name):
            continue
        seen.add(path)
        try:
            with open(path, "rb") as handle:
                data = handle.read(1 << 20)
        except OSError:
            continue
        if _MAIN_GUARD.search(data):
            try:
                shown = path.relative_to(cwd).as_posix()
            except ValueError:
                continue
            return f"python {shlex.quote(shown)}"
    if _has_tests(cwd):
        return "python -m pytest"
    return PLACEHOLDER


def _has_tests(cwd: Path) -> bool:
    for name in ("tests", "test"):
        folder = cwd / name
        if folder.is_dir() and any(_TEST_FILE.match(p.name) for p in _listdir(folder)):
            return True
    return any(_TEST_FILE.match(p.name) for p in _listdir(cwd))


def _listdir(folder: Path) -> list[Path]:
    try:
        return list(folder.iterdir())
    except OSError:
        return []


__all__ = ["next_step_hint", "trace_driven_codes"]
