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
timing) are not the fix's doing: the first time a trial's output differs, the
reference runs once more and what varies between its own two runs is left out
of every comparison (with a note).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable

from retrace_fix.bench.outputs import OutputError, TextOutput, compare_values, line_difference, stdout_matches
from retrace_fix.bench.report import function_rows, why_failed
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
    failure: str = ""  # exit | timeout | output | traces (when not passed)
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
    _unstable: set = field(default_factory=set)  # ("stdout", line) / ("stdout", None) / (path, None)

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

    def _differences(self, a: RunRecord, b: RunRecord) -> list[tuple[tuple, str]]:
        """((what, line), message) for every difference between two runs' outputs."""
        c = self.comparison
        found: list[tuple[tuple, str]] = []
        lines_a, lines_b = self._stdout(a).splitlines(), self._stdout(b).splitlines()
        if len(lines_a) != len(lines_b):
            found.append((("stdout", None), f"stdout: {plural(len(lines_a), 'line')} before, {len(lines_b)} after"))
        else:
            for index, (la, lb) in enumerate(zip(lines_a, lines_b)):
                problem = line_difference(la, lb, c.rtol, c.atol)
                if problem is not None:
                    found.append((("stdout", index), f"stdout line {index + 1}: {problem}"))
        for rel in c.compare_paths:
            if rel in b.missing_outputs and rel not in a.missing_outputs:
                error = b.outputs.get(rel)
                why = str(error) if isinstance(error, OutputError) else "not written"
                found.append(((rel, None), f"{rel}: {why} by the fixed program"))
                continue
            va, vb = a.outputs.get(rel), b.outputs.get(rel)
            if isinstance(va, TextOutput) and isinstance(vb, str):
                vb = TextOutput(vb)
            diffs = compare_values(va, vb, c.rtol, c.atol, rel)
            if diffs:
                found.append(((rel, None), diffs[0]))
        return found

    def output_differences(self, trial: RunRecord) -> list[str]:
        """How the trial's outputs differ from the reference's (what varies run to run left out)."""
        found = self._differences(self.record, trial)
        if found and not self._checked:
            self._check_determinism()
        return [message for key, message in found if not self._masked(key)]

    def _masked(self, key: tuple) -> bool:
        return key in self._unstable or (key[0] == "stdout" and ("stdout", None) in self._unstable)

    def _check_determinism(self) -> None:
        self._checked = True
        second = self.rerun() if self.rerun is not None else None
        if second is None:
            return
        self.second = second
        if not second.ok:
            self.notes.append(f"{self.what} failed when run again ({why_failed(second)}): outputs compared "
                              "with its first run")
            return
        varying = self._differences(self.record, second)
        for key, message in varying:
            self._unstable.add(key)
        if varying:
            shown = "; ".join(message for _key, message in varying[:3])
            self.notes.append(f"{self.what}'s outputs vary between two of its own runs ({shown}): "
                              "those are not compared (seed the program, or use --compare-stdout REGEX)")


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
    outputs = f"{reference.comparison.describe()} equal"
    code = f"exit 0 as {reference.what}" if kept is None else "exit 0"
    return Verdict(True, detail=f"{code}, {outputs}, traces {before} → {after}", record=trial)


def judge_group(trial: RunRecord, reference: Reference, kept: RunRecord | None, units: list[Any]) -> Verdict:
    """:func:`judge` for a set of units (fewer traces required when any of them aims at trace counts)."""
    return judge(trial, reference, kept, any(unit.aims_at_traces for unit in units))
