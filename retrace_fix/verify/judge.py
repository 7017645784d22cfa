"""One run of the program with some fixes, judged against the reference run.

A set of fixes passes when the program

* exits as the reference did (exit 0; where the reference failed: now runs),
* writes the same outputs: its standard output (``--compare-stdout REGEX``: the
  matching lines) and the ``--compare`` files, numbers within ``--rtol`` and
  ``--atol`` (bench's comparison, :mod:`retrace_fix.bench.outputs`),
* traces no function more than the program with the fixes kept so far, and
  fewer times in all (for fixes that do not aim at trace counts, such as
  RTF002: no more in all).

Outputs that differ between two runs of the reference itself (a timestamp, a
timing) are not the fix's doing: the first time a trial's stdout differs at all
(even within the tolerance: an absolute clock such as ``time.time()`` moves by
less than ``rtol`` times its value), the reference runs once more, and the
tokens of its stdout that differ between its own two runs, by any amount (a
number, an id, a hex address), are masked on their lines; the
rest of each line is still compared (a ``--compare`` file that varies is left
out whole, with a note).  When that leaves nothing stable to compare in stdout
and neither ``--compare`` nor ``--compare-stdout`` names what matters, no fix
is verified (``unverifiable``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable

from retrace_fix.bench.outputs import (OutputError, TextOutput, compare_values, line_difference, line_mask, mask_summary,
                                       stdout_matches)
from retrace_fix.bench.verdict import function_rows, why_failed
from retrace_fix.bench.runs import RunRecord
from retrace_fix.wording import plural

@dataclass(frozen=True)
class Comparison:
    """What outputs to compare, and how closely."""

    pattern: re.Pattern | None = None  # --compare-stdout: only the matching lines of stdout
    compare_paths: tuple[str, ...] = ()  # --compare files, relative to the project root
    rtol: float = 1e-5
    atol: float = 1e-8

    def describe(self) -> str:
        parts = [f"stdout lines matching /{self.pattern.pattern}/" if self.pattern is not None else "stdout"]
        parts += list(self.compare_paths)
        return " and ".join(parts) if len(parts) < 3 else ", ".join(parts[:-1]) + " and " + parts[-1]


@dataclass
class Verdict:
    passed: bool
    failure: str = ""  # exit | timeout | output | traces | unverifiable (when not passed)
    detail: str = ""  # one line: the proof, or why not
    record: RunRecord | None = None


@dataclass
class Reference:
    """The runs every trial is compared with: the original program (or its first version that runs)."""

    record: RunRecord
    comparison: Comparison
    what: str = "the original"  # how the report names it
    #: runs the reference once more (None: the run budget is spent)
    rerun: Callable[[], RunRecord | None] | None = None
    notes: list[str] = field(default_factory=list)
    second: RunRecord | None = None
    _checked: bool = False
    _masks: dict = field(default_factory=dict)  # stdout line index -> LineMask (what varies on it)
    _stdout_unstable: bool = False  # its number of lines varies between two runs
    _unstable_files: set = field(default_factory=set)  # --compare files that vary between two runs

    @property
    def ok(self) -> bool:
        return self.record.ok

    @property
    def records(self) -> list[RunRecord]:
        return [self.record] + ([self.second] if self.second is not None else [])

    # ---------------------------------------------------------------- outputs

    def _stdout(self, record: RunRecord) -> str:
        text = record.outputs.get("stdout", "")
        return stdout_matches(text, self.comparison.pattern) if self.comparison.pattern is not None else text

    def _differences(self, a: RunRecord, b: RunRecord) -> list[str]:
        """Every difference between the reference's outputs ``a`` and a run's ``b`` (what varies masked)."""
        c = self.comparison
        found: list[str] = []
        lines_a, lines_b = self._stdout(a).splitlines(), self._stdout(b).splitlines()
        if self._stdout_unstable:
            pass
        elif len(lines_a) != len(lines_b):
            found.append(f"stdout: {plural(len(lines_a), 'line')} before, {len(lines_b)} after")
        else:
            for index, (la, lb) in enumerate(zip(lines_a, lines_b)):
                mask = self._masks.get(index)
                if mask is not None:
                    problem = mask.difference(lb, c.rtol, c.atol)
                else:
                    problem = line_difference(la, lb, c.rtol, c.atol)
                if problem is not None:
                    found.append(f"stdout line {index + 1}: {problem}")
        for rel in c.compare_paths:
            if rel in self._unstable_files:
                continue
            if rel in b.missing_outputs and rel not in a.missing_outputs:
                error = b.outputs.get(rel)
                why = str(error) if isinstance(error, OutputError) else "not written"
                found.append(f"{rel}: {why} by the fixed program")
                continue
            diffs = self._file_differences(a, b, rel)
            if diffs:
                found.append(diffs[0])
        return found

    def _file_differences(self, a: RunRecord, b: RunRecord, rel: str) -> list[str]:
        c = self.comparison
        va, vb = a.outputs.get(rel), b.outputs.get(rel)
        if isinstance(va, TextOutput) and isinstance(vb, str):
            vb = TextOutput(vb)
        return compare_values(va, vb, c.rtol, c.atol, rel)

    def output_differences(self, trial: RunRecord) -> list[str]:
        """How the trial's outputs differ from the reference's (what varies run to run masked)."""
        found = self._differences(self.record, trial)
        if not self._checked and (found or self._stdout(self.record) != self._stdout(trial)):
            # a printed number that moved at all may be a clock that moves by less than the tolerance:
            # only the reference's own second run tells (what differs there is masked, exactly)
            self._check_determinism()
            found = self._differences(self.record, trial)
        return found

    def _check_determinism(self) -> None:
        """Run the reference again; mask the tokens of its stdout (and the files) that vary between its runs."""
        self._checked = True
        second = self.rerun() if self.rerun is not None else None
        if second is None:
            return
        self.second = second
        if not second.ok:
            self.notes.append(f"{self.what} failed when run again ({why_failed(second)}): outputs compared "
                              "with its first run")
            return
        c = self.comparison
        lines_a, lines_b = self._stdout(self.record).splitlines(), self._stdout(second).splitlines()
        varying: list[str] = []
        if len(lines_a) != len(lines_b):
            self._stdout_unstable = True
            varying.append(f"stdout: {plural(len(lines_a), 'line')} in one run, {len(lines_b)} in the other")
        else:
            for index, (la, lb) in enumerate(zip(lines_a, lines_b)):
                mask = line_mask(la, lb, c.rtol, c.atol)
                if mask is not None:
                    self._masks[index] = mask
            if self._masks:
                index, mask = next(iter(self._masks.items()))
                more = f" (+{plural(len(self._masks) - 1, 'line')})" if len(self._masks) > 1 else ""
                varying.append(f"stdout: {mask_summary(self._masks.values())} on "
                               f"{plural(len(self._masks), 'line')}, line {index + 1}: {mask.shown().strip()!r}{more}")
        for rel in c.compare_paths:
            diffs = self._file_differences(self.record, second, rel)
            if diffs:
                self._unstable_files.add(rel)
                varying.append(f"{diffs[0]}: {rel} is not compared")
        if varying:
            self.notes.append(f"{self.what}'s outputs vary between two of its own runs ({'; '.join(varying)}): "
                              "only what varies is masked (…), the rest is compared (seed the program, or use "
                              "--compare-stdout REGEX)")
        if self.unverifiable:
            self.notes.append(self.unverifiable)

    # ---------------------------------------------------------------- what was compared

    def _stdout_stable(self) -> bool:
        """Is anything left in stdout that a changed result would show in (a stable number or line)?"""
        if self._stdout_unstable:
            return False
        lines = self._stdout(self.record).splitlines()
        for index, line in enumerate(lines):
            mask = self._masks.get(index)
            if mask is None and line.strip():
                return True
            if mask is not None and mask.stable_numbers:
                return True
        return False

    @property
    def unverifiable(self) -> str:
        """Why no fix can be verified (outputs vary in everything, nothing named to compare), or ``""``."""
        c = self.comparison
        if not (self._stdout_unstable or self._masks) or c.pattern is not None or c.compare_paths:
            return ""
        if self._stdout_stable():
            return ""
        return (f"nothing stable left to compare: {self.what}'s stdout varies between two of its own runs in every "
                "value it prints, so no fix can be verified; name what to compare with --compare-stdout REGEX "
                "or --compare PATH")

    def scope(self) -> str:
        """What the runs are compared in, with what is masked: ``stdout (1 varying number masked)``."""
        c = self.comparison
        parts = [f"stdout lines matching /{c.pattern.pattern}/" if c.pattern is not None else "stdout"]
        if self._stdout_unstable:
            parts[0] += " (not compared: its number of lines varies run to run)"
        elif self._masks:
            parts[0] += f" ({mask_summary(self._masks.values())})"
        parts += [rel + (" (varies run to run: not compared)" if rel in self._unstable_files else "")
                  for rel in c.compare_paths]
        return " and ".join(parts) if len(parts) < 3 else ", ".join(parts[:-1]) + " and " + parts[-1]

    def describe(self) -> str:
        """Exactly what a passing run was compared in: ``stdout: 12 lines, 1 varying number masked``."""
        c = self.comparison
        what = f"stdout lines matching /{c.pattern.pattern}/" if c.pattern is not None else "stdout"
        lines = len(self._stdout(self.record).splitlines())
        if self._stdout_unstable:
            parts = [f"{what}: not compared (its number of lines varies run to run)"]
        elif self._masks:
            parts = [f"{what}: {plural(lines, 'line')}, {mask_summary(self._masks.values())}"]
        else:
            parts = [f"{what}: {plural(lines, 'line')} equal" if lines else f"{what}: empty in both"]
        for rel in c.compare_paths:
            parts.append(f"{rel}: varies run to run, not compared" if rel in self._unstable_files else f"{rel} equal")
        return "; ".join(parts)


def judge(trial: RunRecord, reference: Reference, kept: RunRecord | None, aims_at_traces: bool) -> Verdict:
    """Does ``trial`` pass?  ``kept``: the run of the program with the fixes kept so far (None: none)."""
    state = kept if kept is not None else reference.record
    if not trial.ok:
        failure = "timeout" if trial.timed_out else "exit"
        if not reference.ok and not state.ok:
            return Verdict(False, failure, f"the program still fails with it ({why_failed(trial)})", trial)
        return Verdict(False, failure, f"the program fails with it ({why_failed(trial)})", trial)
    if not state.ok:  # the program failed without these fixes: that they make it run is the result
        return Verdict(True, detail=f"{reference.what} fails ({why_failed(state)}); with it the program runs "
                                    f"(exit 0, {plural(trial.total_traces, 'trace')})", record=trial)
    differences = reference.output_differences(trial) if reference.ok else []
    if reference.unverifiable:
        return Verdict(False, "unverifiable", reference.unverifiable, trial)
    if differences:
        more = f" (and {len(differences) - 1} more)" if len(differences) > 1 else ""
        return Verdict(False, "output", differences[0] + more, trial)
    rows = function_rows([state], [trial])
    worse = [row for row in rows if row.before and row.before[0] and row.after and row.after[0] > row.before[0]]
    if worse:
        row = worse[0]
        return Verdict(False, "traces", f"`{row.file}::{row.qualname}` traces more: {row.before[0]} → {row.after[0]}",
                       trial)
    before, after = state.total_traces, trial.total_traces
    if after > before or (aims_at_traces and after == before):
        return Verdict(False, "traces", f"traces {before} → {after} (no fewer)", trial)
    outputs = reference.describe()
    code = f"exit 0 as {reference.what}" if kept is None else "exit 0"
    return Verdict(True, detail=f"{code}, {outputs}, traces {before} → {after}", record=trial)


def judge_group(trial: RunRecord, reference: Reference, kept: RunRecord | None, units: list[Any]) -> Verdict:
    """:func:`judge` for a set of units (fewer traces required when any of them aims at trace counts)."""
    return judge(trial, reference, kept, any(unit.aims_at_traces for unit in units))
