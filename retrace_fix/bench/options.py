"""The options ``retrace-fix bench`` and ``--verify`` share: their checks, error texts and project.

Both run CMD (after ``--``) on copies of the project and compare its outputs
(``--compare``, ``--compare-stdout``) with ``--rtol``/``--atol`` and ``--timeout``; the checks
here raise :class:`~retrace_fix.bench.BenchError` with the one wording both
commands print (``--verify`` reports it as its own error).
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import IO, Callable, Sequence

from retrace_fix.bench import BenchError
from retrace_fix.bench.copying import MAX_COPY_BYTES, project_size
from retrace_fix.bench.outputs import OutputError, stdout_matches
from retrace_fix.bench.runs import RunRecord


def command_after_dashes(command: Sequence[str] | None, missing: str) -> list[str]:
    """The command to run (a leading ``--`` removed); BenchError(``missing``) when there is none."""
    words = list(command or [])
    if words and words[0] == "--":
        words = words[1:]
    if not words:
        raise BenchError(missing)
    return words


def check_comparison(rtol: float, atol: float, timeout: float | None, compare_stdout: str | None) -> None:
    """Check the tolerances, the timeout and the ``--compare-stdout`` pattern; raises BenchError."""
    for name, value in (("--rtol", rtol), ("--atol", atol)):
        if not (value >= 0) or math.isinf(value):
            raise BenchError(f"{name} must be a finite number >= 0, got {value}")
    if timeout is not None and not timeout > 0:
        raise BenchError(f"--timeout must be positive, got {timeout}")
    if compare_stdout is not None:
        try:
            re.compile(compare_stdout)
        except re.error as exc:
            raise BenchError(f"--compare-stdout: invalid regular expression: {exc}") from None


def check_compare_sources(original: RunRecord, pattern: re.Pattern | None, compare_paths: Sequence[str]) -> None:
    """A comparison that compares nothing is a usage error (BenchError, exit 2): a ``--compare``
    file the original's successful run did not write, a ``--compare-stdout`` that matches none
    of its lines."""
    for rel in compare_paths:
        if rel in original.missing_outputs:
            error = original.outputs.get(rel)
            why = str(error) if isinstance(error, OutputError) else "the original run did not write this file"
            raise BenchError(f"--compare {rel}: {why}")
    if pattern is not None and not stdout_matches(original.outputs.get("stdout", ""), pattern):
        raise BenchError(f"--compare-stdout {pattern.pattern!r} matched no line of the original's output")


def project_of_cwd() -> tuple[Path, Path]:
    """(the current directory, the project root above it) as resolved paths."""
    from retrace_fix.sources.discovery import find_project_root

    cwd = Path.cwd().resolve()
    project_root = Path(find_project_root(cwd))
    if cwd != project_root and project_root not in cwd.parents:  # pragma: no cover - find_project_root contract
        project_root = cwd
    return cwd, project_root


def check_copy_size(project_root: Path, excluded: Callable[[Path, bool], bool]) -> None:
    """Refuse a project bigger than :data:`~retrace_fix.bench.copying.MAX_COPY_BYTES` (BenchError)."""
    if project_size(project_root, excluded) > MAX_COPY_BYTES:
        raise BenchError(
            f"{project_root} holds more than {MAX_COPY_BYTES // 1024**3} GiB; leave data directories out with --exclude"
        )


def progress_log(err: IO[str], quiet: bool) -> Callable[[str], None]:
    """Where the progress lines go: ``err``, flushed line by line, or nowhere with ``--quiet``."""
    if quiet:
        return lambda message: None

    def log(message: str) -> None:
        err.write(message + "\n")
        err.flush()

    return log
