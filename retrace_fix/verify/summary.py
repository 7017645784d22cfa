"""What a ``--verify`` run did: per candidate fix, per round, per run; text, JSON and the commit's proof.

The text goes to standard error (standard output carries the diff, the
findings or the JSON document); ``--format json`` adds it as the ``verify``
key (:meth:`VerifyReport.to_json`, documented in ``docs/verify.md``).
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from typing import Any

from retrace_fix.bench.render import plain_table, table_rows
from retrace_fix.bench.verdict import BenchReport, FixSummary, failure_text, function_rows, seconds_text, why_failed
from retrace_fix.bench.runs import RunRecord
from retrace_fix.findings import FileResult
from retrace_fix.linemap import LineMap
from retrace_fix.verify.fix_units import Unit
from retrace_fix.verify.judge import Comparison, Reference, Verdict
from retrace_fix.wording import plural

JSON_FORMAT = "retrace-fix-verify"
JSON_VERSION = 1
#: a difference in time smaller than this says nothing about a fix (process start, a loaded machine)
NOISE_S = 0.05


@dataclass
class UnitOutcome:
    unit: Unit
    status: str  # verified | rejected | untested
    verdict: Verdict | None
    detail: str

    @property
    def failure(self) -> str:
        return self.verdict.failure if self.verdict is not None and self.status == "rejected" else ""


@dataclass(frozen=True)
class Label:
    status: str
    proof: str
    failure: str


@dataclass
class RoundReport:
    number: int
    traces_from: str  # where the traces of this round's fixes came from
    results: dict[str, FileResult]  # the engine's candidates, on the round's text (rel -> result)
    candidates: int = 0
    skipped_units: list[Unit] = field(default_factory=list)  # refuted in an earlier round: not tried again
    runs: int = 0
    outcomes: list[UnitOutcome] = field(default_factory=list)

    @property
    def skipped(self) -> int:
        return len(self.skipped_units)

    def representatives(self, rel: str) -> set[tuple]:
        """fix_id of the first site of each candidate unit of ``rel`` (proposed, skipped, any outcome)."""
        units = [o.unit for o in self.outcomes] + self.skipped_units
        return {u.first.fix_id for u in units if u.rel == rel}

    def labels(self, rel: str) -> dict[tuple, Label]:
        """fix_id -> what the runs showed, for the candidates of file ``rel``."""
        found = {}
        for outcome in self.outcomes:
            if outcome.unit.rel != rel:
                continue
            for finding in outcome.unit.findings:
                found[finding.fix_id] = Label(outcome.status, outcome.detail, outcome.failure)
        return found

    def count(self, status: str) -> int:
        return sum(1 for o in self.outcomes if o.status == status)


@dataclass
class VerifyReport:
    command: list[str]
    project: str
    comparison: Comparison
    baseline: RunRecord
    reference: Reference
    max_runs: int
    rounds: list[RoundReport] = field(default_factory=list)
    references: list[Reference] = field(default_factory=list)  # later references (the first version that runs)
    final: RunRecord | None = None  # the run of the program with every verified fix
    runs: int = 0
    notes: list[str] = field(default_factory=list)
    displays: dict[str, str] = field(default_factory=dict)  # file relative to the project -> as the user sees it

    def where(self, round_number: int, outcome: UnitOutcome) -> str:
        """``path:line`` of a unit's first site in the user's file, the path as the findings show it."""
        rel = outcome.unit.rel
        return f"{self.displays.get(rel, rel)}:{self.line_of(round_number, outcome)}"

    # ---------------------------------------------------------------- facts

    def compared(self) -> str:
        """What the runs were compared in, as the last reference leaves it (what varies masked)."""
        return (self.references[-1] if self.references else self.reference).scope()

    @property
    def unverifiable(self) -> str:
        """Why candidates could not be verified (outputs vary in everything), or ``""``."""
        return next((r.unverifiable for r in [self.reference, *self.references] if r.unverifiable), "")

    @property
    def exit_code(self) -> int | None:
        """2: the original fails and no fix made it run (nothing could be verified); 1: nothing stable to
        compare; None: the fix command's exit code."""
        if not self.baseline.ok and not self.verified:
            return 2
        if self.unverifiable:
            return 1
        return None

    @property
    def outcomes(self) -> list[tuple[int, UnitOutcome]]:
        return [(r.number, o) for r in self.rounds for o in r.outcomes]

    @property
    def verified(self) -> int:
        return sum(1 for _n, o in self.outcomes if o.status == "verified")

    @property
    def candidates(self) -> int:
        """Distinct candidate fixes over every round."""
        return len({o.unit.signature for _n, o in self.outcomes})

    @property
    def rounds_run(self) -> int:
        return sum(1 for r in self.rounds if r.runs)

    def all_notes(self) -> list[str]:
        notes = list(self.notes)
        for reference in [self.reference, *self.references]:
            notes += [n for n in reference.notes if n not in notes]
        return notes

    def line_of(self, round_number: int, outcome: UnitOutcome) -> int:
        """The unit's first line in the user's file (a later round's text has the earlier fixes)."""
        line = outcome.unit.first.line
        if round_number == 1 or not self.rounds:
            return line
        first = self.rounds[0].results.get(outcome.unit.rel)
        this = self.rounds[round_number - 1].results.get(outcome.unit.rel)
        if first is None or this is None or first.original == this.original:
            return line
        return LineMap(first.original or "", this.original or "").original_line(line)

    def bench(self) -> BenchReport:
        """Bench's report of the original's runs against the run of the verified version."""
        before = self.reference.records
        after = [dataclasses.replace(self.final, side="after", index=0)] if self.final is not None else []
        report = BenchReport(command=self.command, runs=1, rtol=self.comparison.rtol, atol=self.comparison.atol,
                             project=self.project, fixes=FixSummary(), records=[*before, *after])
        report.functions = function_rows(before, after)
        return report

    # ---------------------------------------------------------------- the verdict

    def verdict(self) -> str:
        command = f"`{' '.join(self.command)}`"
        runs = plural(self.runs, "run")
        failing = not self.baseline.ok
        why = f"the original fails ({why_failed(self.baseline)}): nothing could be verified"
        if not self.candidates:
            head = "nothing to verify: no candidate fix for this program"
            return f"{head}; {why}" if failing else head
        if not self.verified:
            rejected = sum(1 for _n, o in self.outcomes if o.status == "rejected")
            head = (f"no fix verified: {plural(self.candidates, 'candidate fix')}, "
                    f"{rejected} refuted by a run of {command} ({runs})")
            if self.unverifiable:
                head += f"; {self.unverifiable}"
            return f"{head}; {why}" if failing else head
        rounds = plural(self.rounds_run, "round")
        parts = [f"verified {self.verified} of {plural(self.candidates, 'candidate fix')} in {rounds} ({runs} of {command})"]
        final = self.final
        if failing:
            parts.append(f"the original fails ({why_failed(self.baseline)}) and with the verified fixes it runs")
        if final is not None:
            before = "—" if failing else str(self.baseline.total_traces)
            if final.total_traces or self.baseline.total_traces:
                parts.append(f"traces {before} → {final.total_traces}")
            else:
                parts.append("no tf.function traced before or after")
            speed = self._speed()
            if speed:
                parts.append(speed)
        if self.unverifiable:
            parts.append(f"the other candidates untested: {self.unverifiable}")
        return "; ".join(parts)

    def _speed(self) -> str:
        bench = self.bench()
        metric = bench.speedup_metric
        sb, sa, ratio = bench.timing(metric)
        if ratio is None or sb is None or sa is None:
            return ""
        what = "program time" if metric == "program_s" else "wall time"
        if abs(sb.median - sa.median) < NOISE_S:
            return f"{what} {seconds_text(sb.median)} → {seconds_text(sa.median)} (no difference beyond run-to-run noise)"
        factor = f"{ratio:.1f}× faster" if ratio >= 1 else f"{1 / ratio:.1f}× slower"
        return (f"{what} {seconds_text(sb.median)} → {seconds_text(sa.median)} ({factor}; "
                "few runs: `retrace-fix bench` measures it)")

    # ---------------------------------------------------------------- text

    def fix_rows(self) -> list[list[str]]:
        rows = []
        for number, outcome in self.outcomes:
            unit = outcome.unit
            sites = f" (+{len(unit.findings) - 1})" if len(unit.findings) > 1 else ""
            status = outcome.status + (f" [{outcome.failure}]" if outcome.failure else "")
            rows.append([status, self.where(number, outcome), unit.code + sites, str(number), outcome.detail])
        return rows

    def text(self) -> str:
        tensorflow = next((r.tensorflow for r in [self.baseline, self.final] if r is not None and r.tensorflow), None)
        out = [f"retrace-fix --verify: `{' '.join(self.command)}` ({plural(self.runs, 'run')}"
               f"{', TensorFlow ' + tensorflow if tensorflow else ''}; compared: {self.compared()})\n"]
        rows = self.fix_rows()
        if rows:
            out.append("\n" + plain_table(["fix", "where", "code", "round", "what the run showed"], rows))
        if self.final is not None:
            header, trace_rows, timing_header, timing_rows = table_rows(self.bench())
            out.append("\n" + plain_table(header, trace_rows))
            if timing_rows:
                out.append("\n" + plain_table(timing_header, timing_rows))
        for note in self.all_notes():
            out.append(f"note: {note}\n")
        out.append(f"\n{self.verdict()}\n")
        return "".join(out)

    def proof_table(self) -> str:
        """The proof for a commit message (``--branch``): the verified fixes and the traces."""
        lines = [f"Verified by `retrace-fix --verify`: `{' '.join(self.command)}` ran on a copy of the project "
                 f"before and after the fixes ({plural(self.runs, 'run')}; compared: {self.compared()}).", ""]
        rows = [row[1:] for row, (_n, outcome) in zip(self.fix_rows(), self.outcomes) if outcome.status == "verified"]
        if rows:
            lines.append(plain_table(["where", "code", "round", "what the run showed"], rows).rstrip("\n"))
        if self.final is not None:
            header, trace_rows, _th, _tr = table_rows(self.bench())
            lines += ["", plain_table(header[:3], [row[:3] for row in trace_rows]).rstrip("\n")]
        lines += ["", self.verdict()]
        return "\n".join(lines) + "\n"

    # ---------------------------------------------------------------- JSON

    def to_json(self) -> dict:
        bench = self.bench().to_json() if self.final is not None else None
        fixes = []
        for number, outcome in self.outcomes:
            fixes.append({
                "path": self.displays.get(outcome.unit.rel, outcome.unit.rel),
                "line": self.line_of(number, outcome),
                "code": outcome.unit.code,
                "sites": len(outcome.unit.findings),
                "round": number,
                "status": outcome.status,
                "failure": outcome.failure,
                "proof": outcome.detail,
            })
        return {
            "format": JSON_FORMAT,
            "version": JSON_VERSION,
            "command": self.command,
            "project": self.project,
            "compared": self.compared(),
            "rtol": self.comparison.rtol,
            "atol": self.comparison.atol,
            "runs": self.runs,
            "max_runs": self.max_runs,
            "original": _run_json(self.baseline),
            "fixed": _run_json(self.final) if self.final is not None else None,
            "rounds": [
                {"round": r.number, "traces_from": r.traces_from, "candidates": r.candidates,
                 "verified": r.count("verified"), "rejected": r.count("rejected"), "untested": r.count("untested"),
                 "skipped": r.skipped, "runs": r.runs}
                for r in self.rounds
            ],
            "fixes": fixes,
            "functions": bench["functions"] if bench else [],
            "timing": bench["timing"] if bench else None,
            "notes": self.all_notes(),
            "verified": self.verified,
            "candidates": self.candidates,
            "verdict": self.verdict(),
        }

    def add_to_json(self, text: str) -> str:
        payload = json.loads(text)
        payload["verify"] = self.to_json()
        return json.dumps(payload, indent=2, sort_keys=False) + "\n"


def _run_json(record: RunRecord) -> dict[str, Any]:
    return {
        "ok": record.ok,
        "exit_code": record.exit_code,
        "failure": "" if record.ok else failure_text(record),
        "error": "" if record.ok else why_failed(record),
        "traces": record.total_traces,
        "wall_s": record.wall_s,
        "program_s": record.program_s,
    }
