"""The options ``retrace-fix bench`` and ``--verify`` share: their checks, error texts and project.

Both run CMD (after ``--``) on copies of the project and compare its outputs
with ``--rtol``/``--atol``, ``--timeout`` and ``--compare-stdout``; the checks
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


def project_of_cwd() -> tuple[Path, Path]:
    """(the current directory, the project root above it) as resolved paths."""
    from retrace_fix.discovery import find_project_root

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
