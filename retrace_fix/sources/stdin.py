"""``retrace-fix [--diff|--check] - --stdin-filename NAME``: one source from standard input.

As with ruff and black, an editor pipes the buffer in and names the file it
holds.  The name decides everything a file of that name would get: the
``[tool.retrace-fix]`` settings (searched from the name's directory), the
excludes (a file a directory walk would skip comes back untouched, so an editor
may send every file), the recorded traces that apply to it, and the name in
findings and diff headers.  Nothing is read from or written to that path.  A
name whose real location leaves its project root (a link out of the tree) is
refused as on the command line: the source comes back untouched, exit 2.

Fix mode writes the source to standard output - fixed, or exactly as it came
when there is nothing to fix, the name is excluded, or it cannot be parsed (so
an editor that replaces its buffer with the output loses nothing); findings,
errors and the summary go to standard error.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from retrace_fix.sources.discovery import is_excluded, outside_root
from retrace_fix.engine.options import FileJob, RunOptions, RunResult
from retrace_fix.engine.process import process_file
from retrace_fix.engine.run import explicit_roots, make_jobs
from retrace_fix.findings import FileResult
from retrace_fix.fix_request import FixRequest, resolve_options

#: how the source is named without --stdin-filename (as ruff names it)
UNNAMED = "-"


@dataclass
class StdinSource:
    """The bytes read from standard input and the file they stand for."""

    job: FileJob
    data: bytes
    options: RunOptions
    excluded: bool = False  # a walk would skip a file of this name: passed through untouched
    refused: str | None = None  # the name leads out of its project root: passed through, an error

    def run(self) -> RunResult:
        if self.refused is not None:
            return RunResult(files=[FileResult(path=self.job.display, error=f"{self.job.display}: {self.refused}")])
        if self.excluded:
            return RunResult(files=[FileResult(path=self.job.display, skipped=True)])
        return RunResult(files=[process_file(self.job, self.options)])

    def output(self, result: RunResult) -> tuple[bytes, str | None]:
        """What fix mode writes to standard output, and an error when the fix cannot be encoded."""
        fixed = result.files[0]
        if not fixed.changed:
            return self.data, None
        try:
            return (fixed.fixed or "").encode(fixed.encoding), None
        except UnicodeEncodeError as exc:
            return self.data, f"{fixed.path}:1: cannot encode the fixed source as {fixed.encoding}: {exc.reason}"


def read_stdin_source(request: FixRequest, stream: IO | None = None) -> StdinSource:
    """Read standard input for ``request`` (``request.stdin_filename`` is set); raises UsageProblem."""
    options, excludes = resolve_options(request)
    name = request.stdin_filename or UNNAMED
    data = _read_all(stream if stream is not None else sys.stdin)
    if name == UNNAMED:
        job = FileJob(path=Path(os.path.abspath(UNNAMED)), display=UNNAMED, relpath=UNNAMED, data=data)
        return StdinSource(job, data, options)
    path = Path(os.path.abspath(name))
    job = make_jobs([path], explicit_roots(options))[0]
    job.data = data
    return StdinSource(job, data, options, excluded=is_excluded(path, excludes), refused=outside_root(path))


def _read_all(stream: IO) -> bytes:
    raw = getattr(stream, "buffer", None)
    if raw is not None:
        return raw.read()
    text = stream.read()  # a text stream without bytes underneath (tests)
    return text.encode("utf-8", "surrogateescape") if isinstance(text, str) else text


__all__ = ["StdinSource", "UNNAMED", "read_stdin_source"]
