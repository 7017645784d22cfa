"""The candidate fixes of a --verify round, grouped into units, and the text of any subset of them.

The engine runs on the working copy of the project (the original plus the
fixes kept in earlier rounds) with ``verify_candidates``: the safe and unsafe
tiers and the verifiable diagnostics are edited.  Fixes that stand or fall
together form one :class:`Unit` (a loop and the call sites that pass it a
tensor share a subject); a subset of units is applied through the engine's
``fix_selection`` (:attr:`~retrace_fix.findings.Finding.fix_id`), so the text
a run proves is exactly the text that gets written.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from retrace_fix.engine.call_sites import with_call_site_plans
from retrace_fix.engine.options import FileJob, RunOptions
from retrace_fix.engine.process import process_file
from retrace_fix.findings import FileResult, Finding

#: codes whose fixes do not aim at trace counts: RTF002 makes a program that fails inside a
#: tf.function run (or a Python loop of predict calls faster); RTF010 keeps Keras's train
#: function across epochs, whose traces the recorder leaves out (Keras internals).  Their
#: criterion: the program exits as before (or, where it failed, now runs), its outputs match,
#: it traces no more.
NON_TRACE_CODES = frozenset({"RTF002", "RTF010"})


@dataclass
class Unit:
    """Fixes that a run keeps or drops together."""

    rel: str  # the file, relative to the project root
    code: str
    findings: list[Finding] = field(default_factory=list)  # lines of the round's text
    #: stays the same across rounds (the code of the fixed lines, not their numbers): a unit
    #: a run refuted is not proposed again
    signature: tuple = ()

    @property
    def keys(self) -> frozenset:
        """The fix identities of the unit in the engine's selection form ``(rel, code, line, ordinal)``."""
        return frozenset((self.rel, *f.fix_id) for f in self.findings)

    @property
    def first(self) -> Finding:
        return min(self.findings, key=lambda f: (f.line, f.column))

    @property
    def aims_at_traces(self) -> bool:
        return self.code not in NON_TRACE_CODES

    def label(self) -> str:
        first = self.first
        more = f" (+{len(self.findings) - 1} sites)" if len(self.findings) > 1 else ""
        return f"{self.rel}:{first.line} {self.code}{more}"


def selection(units: Iterable[Unit]) -> frozenset:
    keys: set = set()
    for unit in units:
        keys |= unit.keys
    return frozenset(keys)


class Fixer:
    """The engine on one working copy of the project (``root``), for the files ``rels``."""

    def __init__(self, root: Path, rels: list[str], options: RunOptions) -> None:
        self.root = root
        self.rels = rels
        self.options = options

    def run(self, traces: Any, selected: frozenset | None = None, rels: Iterable[str] | None = None) -> dict[str, FileResult]:
        """Every file's result with the candidates applied (``selected``: only those)."""
        options = dataclasses.replace(self.options, traces=traces, trace_assignment=None, verify_candidates=True,
                                      fix_selection=selected, call_site_plans=None)
        wanted = list(self.rels if rels is None else rels)
        jobs = {rel: FileJob(path=self.root / rel, display=rel, relpath=rel) for rel in [*self.rels, *wanted]}
        jobs = {rel: job for rel, job in jobs.items() if job.path.is_file() and not job.path.is_symlink()}
        # RTF005 decides over the whole project at once (a function's call sites may be in any module)
        options = with_call_site_plans(list(jobs.values()), options)
        results = {}
        for rel in wanted:
            if rel in jobs:
                results[rel] = process_file(jobs[rel], options)
        return results

    def texts(self, traces: Any, units: Iterable[Unit]) -> dict[str, tuple[str, str]]:
        """The changed files' ``(text, encoding)`` with exactly ``units`` applied."""
        units = list(units)
        files = sorted({unit.rel for unit in units})
        results = self.run(traces, selection(units), files)
        return {rel: (result.fixed or "", result.encoding) for rel, result in results.items() if result.changed}


def group_units(results: dict[str, FileResult]) -> list[Unit]:
    """The applied (candidate) fixes of each file, grouped: one unit per subject, else per finding."""
    units: dict[tuple, Unit] = {}
    for rel, result in sorted(results.items()):
        if result.error:
            continue
        lines = (result.original or "").splitlines()
        for finding in result.findings:
            if not finding.applied or not finding.fix_id:
                continue
            key = (rel, finding.code, finding.subjects) if finding.subjects else (rel, *finding.fix_id)
            unit = units.setdefault(key, Unit(rel=rel, code=finding.code))
            unit.findings.append(finding)
        for unit in units.values():
            if unit.rel == rel and not unit.signature:
                texts = tuple(sorted(_line(lines, f.line) for f in unit.findings))
                unit.signature = (rel, unit.code, tuple(sorted(map(str, unit.findings[0].subjects))), texts)
    return sorted(units.values(), key=lambda u: (u.rel, u.first.line, u.first.column, u.code))


def _line(lines: list[str], number: int) -> str:
    return lines[number - 1].strip() if 0 < number <= len(lines) else ""
