"""A ``--verify`` run: copies of the project, the runs of CMD, and the fix rounds.

The user's project is copied once (``original/``, never run in) and once more
as the working copy the engine reads (``fixed/``: the original plus the fixes
kept so far).  Every run of CMD gets a fresh copy of the original with the
texts under trial written over it, so no run sees what an earlier one left
behind.  Runs go through :func:`retrace_fix.bench.runs.run_once` (the recorder
and the timing probe).  The result is an ordinary
:class:`~retrace_fix.engine.options.RunResult` of the user's files, holding only the
verified fixes, with every candidate's :class:`~retrace_fix.findings.Verification`,
and a :class:`~retrace_fix.verify.summary.VerifyReport`.
"""

from __future__ import annotations

import dataclasses
import os
import re
import shutil
import tempfile
from pathlib import Path
from typing import IO, Any, Callable

from retrace_fix.bench import BenchError
from retrace_fix.bench.copying import copy_project, exclude_matcher
from retrace_fix.bench.options import (check_compare_sources, check_comparison, check_copy_size, command_after_dashes,
                                      progress_log, project_of_cwd)
from retrace_fix.bench.outputs import relative_compare_path
from retrace_fix.bench.verdict import seconds_text
from retrace_fix.bench.runs import RunRecord, Tree, run_once
from retrace_fix.sources.discovery import display_path
from retrace_fix.engine.options import RunResult
from retrace_fix.findings import FileResult, Finding, Verification
from retrace_fix.fix_request import FixRequest, VerifyOptions, prepare
from retrace_fix.linemap import LineMap
from retrace_fix.verify import VerifyError
from retrace_fix.verify.fix_units import Fixer, Unit, group_units
from retrace_fix.bench.verdict import why_failed
from retrace_fix.verify.judge import Comparison, Reference, Verdict, judge_group
from retrace_fix.verify.summary import RoundReport, UnitOutcome, VerifyReport
from retrace_fix.verify.search import SearchResult, search
from retrace_fix.wording import plural

#: the most fix rounds and runs a user may ask for
MAX_ROUNDS = 10
#: why a fix of a round whose program failed was left for the next round
DEFERRED = "the program did not run yet: proposed again from the traces of the fixed program"


def check_options(verify: VerifyOptions) -> list[str]:
    """The command (leading ``--`` removed); raises VerifyError on a bad option."""
    try:
        command = command_after_dashes(
            verify.command, "--verify needs the command to run after `--` (retrace-fix --verify PATH... -- CMD [ARGS...])"
        )
        if not 1 <= verify.rounds <= MAX_ROUNDS:
            raise BenchError(f"--rounds must be between 1 and {MAX_ROUNDS}, got {verify.rounds}")
        if verify.max_runs < 2:
            raise BenchError(f"--max-runs must be at least 2 (the original and one trial), got {verify.max_runs}")
        check_comparison(verify.rtol, verify.atol, verify.timeout, verify.compare_stdout)
    except BenchError as exc:
        raise VerifyError(str(exc)) from None
    return command


@dataclasses.dataclass
class Runner:
    """Runs CMD on fresh copies of the original with some files replaced; counts the runs."""

    work: Path
    original: Path
    project_root: Path
    cwd_rel: Path
    command: list[str]
    compare_paths: list[str]
    timeout: float | None
    budget: int
    log: Callable[[str], None]
    count: int = 0

    def __post_init__(self) -> None:
        self._copy_excluded = exclude_matcher(self.original, self.original, [])

    @property
    def remaining(self) -> int:
        return self.budget - self.count

    def run(self, label: str, files: dict[str, bytes], side: str = "trial") -> RunRecord:
        self.count += 1
        root = self.work / "trees" / str(self.count) / self.original.name
        copy_project(self.original, root, self._copy_excluded)
        for rel, data in files.items():
            (root / rel).write_bytes(data)
        try:
            # every run may drive the next round: the recorder trial-traces the candidate fixes at its end
            record = run_once(Tree(side=side, root=root, cwd=root / self.cwd_rel), self.count, self.command,
                              self.work, self.project_root, self.compare_paths, self.timeout,
                              prove=True)
        finally:
            shutil.rmtree(root.parent, ignore_errors=True)
        state = "ok" if record.ok else why_failed(record)
        self.log(f"  run {self.count}: {label}: {state}; {plural(record.total_traces, 'trace')}, "
                 f"wall {seconds_text(record.wall_s)}")
        return record

    def maybe_run(self, label: str, files: dict[str, bytes], side: str = "trial") -> RunRecord | None:
        return self.run(label, files, side) if self.remaining > 0 else None


def executed_notebooks(command: list[str]) -> list[str]:
    """The notebooks a notebook runner in ``command`` writes after executing them (compared as
    outputs: :func:`retrace_fix.bench.outputs.notebook_outputs`): ``jupyter nbconvert --to notebook
    --execute`` (``--output``/``--output-dir``, ``--inplace``, else ``NAME.nbconvert.ipynb`` next to
    the notebook) and ``papermill IN OUT``."""
    words = [Path(word).name for word in command[:3]]
    notebooks = [arg for arg in command if arg.endswith(".ipynb") and not arg.startswith("-")]
    if "papermill" in words:
        return notebooks[1:2]
    options: dict[str, str] = {}
    for index, arg in enumerate(command):
        if arg.startswith("--") and "=" in arg:
            key, value = arg.split("=", 1)
            options[key] = value
        elif arg in ("--to", "--output", "--output-dir") and index + 1 < len(command):
            options[arg] = command[index + 1]
    notebooks = [arg for arg in notebooks if arg not in options.values()]
    runs_nbconvert = "nbconvert" in words or "jupyter-nbconvert" in words
    if not runs_nbconvert or "--execute" not in command or options.get("--to") != "notebook" or len(notebooks) != 1:
        return []
    source = Path(notebooks[0])
    if "--inplace" in command:
        return [str(source)]
    name = options.get("--output", source.stem + ".nbconvert")
    name = name if name.endswith(".ipynb") else name + ".ipynb"
    return [str(Path(options.get("--output-dir", str(source.parent))) / name)]


def run_verify(request: FixRequest, err: IO[str]) -> tuple[RunResult, VerifyReport]:
    """Record, fix and prove; raises VerifyError or UsageProblem (exit 2) before anything runs."""
    assert request.verify is not None
    command = check_options(request.verify)
    verify = request.verify
    log = progress_log(err, request.quiet)
    options, files, problems = prepare(request)
    cwd, project_root = project_of_cwd()
    rels: dict[str, Path] = {}
    for path in files:
        real = Path(os.path.realpath(path))
        try:
            rels[real.relative_to(project_root).as_posix()] = path
        except ValueError:
            raise VerifyError(f"{display_path(path, cwd)}: outside the project ({project_root}); "
                              "--verify runs the command on a copy of the project") from None
    try:
        compare_paths = [relative_compare_path(spec, project_root, cwd) for spec in verify.compare]
        for spec in executed_notebooks(command):  # what a notebook's cells computed, not its timings
            implied = relative_compare_path(spec, project_root, cwd)
            if implied not in compare_paths:
                compare_paths.append(implied)
    except BenchError as exc:
        raise VerifyError(str(exc)) from None
    excluded = exclude_matcher(project_root, cwd, request.exclude)
    try:
        check_copy_size(project_root, excluded)
    except BenchError as exc:
        raise VerifyError(str(exc)) from None
    comparison = Comparison(
        pattern=re.compile(verify.compare_stdout) if verify.compare_stdout is not None else None,
        compare_paths=tuple(compare_paths), rtol=verify.rtol, atol=verify.atol,
    )
    work = Path(tempfile.mkdtemp(prefix="retrace-fix-verify-"))
    try:
        name = project_root.name or "project"
        original, fixed = work / "original" / name, work / "fixed" / name
        try:
            copy_project(project_root, original, excluded)
            copy_project(project_root, fixed, excluded)
        except BenchError as exc:
            raise VerifyError(str(exc)) from None
        runner = Runner(work, original, project_root, cwd.relative_to(project_root), command, compare_paths,
                        verify.timeout, verify.max_runs, log)
        session = _Session(runner, Fixer(fixed, sorted(rels), options), comparison, verify.rounds, log)
        given = options.traces_for(str(project_root)) if request.traces else None
        report = session.run(command, str(project_root), given, bool(request.traces))
        report.displays = {rel: display_path(path, cwd) for rel, path in rels.items()}
        result = session.result(rels, original, cwd)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for problem in problems:
        result.files.append(FileResult(path=problem.split(":")[0], error=problem))
    return result, report


class _Session:
    def __init__(self, runner: Runner, fixer: Fixer, comparison: Comparison, rounds: int,
                 log: Callable[[str], None]) -> None:
        self.runner = runner
        self.fixer = fixer
        self.comparison = comparison
        self.max_rounds = rounds
        self.log = log
        self.kept_files: dict[str, bytes] = {}  # rel -> the text with every kept fix (vs the original)
        self.kept_record: RunRecord | None = None
        self.rounds: list[RoundReport] = []

    # ---------------------------------------------------------------- rounds

    def run(self, command: list[str], project: str, given_traces: Any, traces_given: bool) -> VerifyReport:
        runner = self.runner
        self.log(f"retrace-fix --verify: running `{' '.join(command)}` on a copy of the project "
                 "(the original, under the trace recorder)")
        baseline = runner.run("the original", {}, side="before")
        if baseline.start_error:
            raise VerifyError(f"`{' '.join(command)}` cannot start: {baseline.start_error}")
        self._check_compare_sources(baseline)
        reference = Reference(baseline, self.comparison,
                              rerun=lambda: runner.maybe_run("the original again", {}, side="before"))
        report = VerifyReport(command=command, project=project, comparison=self.comparison, baseline=baseline,
                              reference=reference, max_runs=runner.budget, rounds=self.rounds)
        recorded = baseline.trace_set if baseline.trace_set is not None and len(baseline.trace_set) else None
        traces, source = (given_traces, "--traces") if traces_given else (recorded, "the original's run")
        if traces is None:
            source = "none (static fixes only)" if baseline.ok else "none: the original fails before tracing"
        rejected: set[tuple] = set()
        for number in range(1, self.max_rounds + 1):
            results = self.fixer.run(traces)
            units = group_units(results)
            skipped = [u for u in units if u.signature in rejected]
            units = [u for u in units if u.signature not in rejected]
            round_report = RoundReport(number=number, traces_from=source, results=results,
                                       candidates=len(units), skipped_units=skipped)
            self.rounds.append(round_report)
            if not units:
                break
            if runner.remaining <= 0:
                round_report.outcomes += [UnitOutcome(u, "untested", None, "the run budget is spent (--max-runs)")
                                          for u in units]
                report.notes.append(f"round {number}: the run budget is spent (--max-runs {runner.budget})")
                break
            self.log(f"retrace-fix --verify: round {number}: {plural(len(units), 'candidate fix')}"
                     f" ({', '.join(u.label() for u in units[:4])}{', ...' if len(units) > 4 else ''})")
            state = self.kept_record or baseline
            texts: dict[int, dict[str, bytes]] = {}
            test = self._tester(number, traces, reference, texts)
            if state.ok:
                found = search(units, test, runner.remaining)
            else:
                found = self._make_it_run(units, test)
            round_report.runs = found.runs
            self._record(round_report, found)
            rejected |= {unit.signature for unit, verdict in found.rejected if verdict.failure != "unverifiable"}
            if reference.unverifiable:
                break
            if not found.accepted or found.proof is None:
                break
            proven = texts[id(found.proof)]
            for rel, data in proven.items():
                (self.fixer.root / rel).write_bytes(data)
            self.kept_files.update(proven)
            self.kept_record = found.proof.record
            if not reference.ok and self.kept_record is not None and self.kept_record.ok:
                kept = dict(self.kept_files)
                reference = Reference(self.kept_record, self.comparison, what="the first fixed version that runs",
                                      rerun=lambda: runner.maybe_run("the first fixed version again", kept))
                report.references.append(reference)
            assert self.kept_record is not None
            trace_set = self.kept_record.trace_set
            traces = trace_set if trace_set is not None and len(trace_set) else None
            source = f"the run that proved round {number}" if traces is not None else "none (no tf.function traced)"
        self._drop_deferred()
        report.final = self.kept_record
        report.runs = runner.count
        return report

    def _drop_deferred(self) -> None:
        """A fix left for the next round is reported there (once), not as untested here."""
        for index, round_report in enumerate(self.rounds):
            later = {o.unit.signature for r in self.rounds[index + 1 :] for o in r.outcomes}
            later |= {u.signature for r in self.rounds[index + 1 :] for u in r.skipped_units}
            round_report.outcomes = [o for o in round_report.outcomes
                                     if not (o.status == "untested" and o.unit.signature in later)]
            for outcome in round_report.outcomes:
                if outcome.status == "untested" and outcome.detail == DEFERRED:
                    outcome.detail = ("not tried: the program failed until other fixes of this round made it run, "
                                      "and no later round proposed it again (see --rounds)")

    def _tester(self, number: int, traces: Any, reference: Reference,
                texts: dict[int, dict[str, bytes]]) -> Callable[[list[Unit], list[Unit], Verdict | None], Verdict]:
        def test(kept_units: list[Unit], trial_units: list[Unit], kept: Verdict | None) -> Verdict:
            if reference.unverifiable:  # no run can tell: outputs vary in everything they print
                return Verdict(False, "unverifiable", reference.unverifiable)
            units = kept_units + trial_units
            trial = self.fixer.texts(traces, units)
            files = {**self.kept_files, **{rel: text.encode(enc) for rel, (text, enc) in trial.items()}}
            shown = trial_units[0].label() if len(trial_units) == 1 else plural(len(trial_units), "fix")
            label = f"round {number}: {shown}" + (f" on top of {len(kept_units)} kept" if kept_units else "")
            record = self.runner.run(label, files)
            verdict = judge_group(record, reference, kept.record if kept is not None else self.kept_record, units)
            texts[id(verdict)] = {rel: text.encode(enc) for rel, (text, enc) in trial.items()}
            if not verdict.passed:
                self.log(f"    not kept ({shown}): {verdict.detail}")
            return verdict

        return test

    def _make_it_run(self, units: list[Unit], test: Callable[[list[Unit], list[Unit], Verdict | None], Verdict]) -> SearchResult:
        """The program fails as it is: keep the fixes that make it run.

        First only the fixes that do not aim at trace counts (RTF002: the usual
        cause of a failure inside a tf.function); the others are proposed again
        from the traces of the run that works.  Then all of them.
        """
        found: SearchResult[Unit] = SearchResult()
        other = [u for u in units if u.aims_at_traces]
        groups = [g for g in ([u for u in units if not u.aims_at_traces], units) if g]
        if len(groups) == 2 and len(groups[0]) == len(groups[1]):
            groups.pop()
        last: Verdict | None = None
        for group in groups:
            if self.runner.remaining <= 0:
                break
            found.runs += 1
            last = test([], group, None)
            if last.passed:
                found.accepted = list(group)
                found.proof = last
                for unit in group:
                    found.kept_by[id(unit)] = last
                if group is not units:
                    found.untested = [u for u in other]
                return found
        if last is None:
            found.untested = list(units)
        else:
            found.rejected = [(unit, last) for unit in units]
        return found

    def _record(self, round_report: RoundReport, found: SearchResult) -> None:
        for unit in found.accepted:
            verdict = found.kept_by[id(unit)]
            round_report.outcomes.append(UnitOutcome(unit, "verified", verdict, verdict.detail))
        for unit, verdict in found.rejected:
            status = "untested" if verdict.failure == "unverifiable" else "rejected"
            round_report.outcomes.append(UnitOutcome(unit, status, verdict, verdict.detail))
        for unit in found.untested:
            why = DEFERRED if found.accepted else "the run budget is spent (--max-runs)"
            round_report.outcomes.append(UnitOutcome(unit, "untested", None, why))

    def _check_compare_sources(self, baseline: RunRecord) -> None:
        """A comparison that compares nothing is a usage error (exit 2), as in bench."""
        if baseline.ok:
            try:
                check_compare_sources(baseline, self.comparison.pattern, self.comparison.compare_paths)
            except BenchError as exc:
                raise VerifyError(str(exc)) from None

    # ---------------------------------------------------------------- the user's files

    def result(self, rels: dict[str, Path], original_root: Path, cwd: Path) -> RunResult:
        """The user's files: the original text, the text with the verified fixes, every finding labelled."""
        files: list[FileResult] = []
        for rel, path in sorted(rels.items()):
            display = display_path(path, cwd)
            first = self.rounds[0].results.get(rel) if self.rounds else None
            if first is None:
                files.append(FileResult(path=display, skipped=True))
                continue
            if first.error:
                files.append(FileResult(path=display, error=first.error.replace(rel, display, 1)))
                continue
            original = first.original or ""
            encoding = first.encoding
            fixed = self.kept_files[rel].decode(encoding) if rel in self.kept_files else original
            files.append(FileResult(path=display, original=original, fixed=fixed, encoding=encoding,
                                    findings=self._findings(rel, original, display), skipped=first.skipped))
        return RunResult(files=files)

    def _findings(self, rel: str, original: str, display: str) -> list[Finding]:
        chosen: dict[tuple, Finding] = {}
        for round_report in self.rounds:
            result = round_report.results.get(rel)
            if result is None or result.error:
                continue
            base = result.original or ""
            line_map = LineMap(original, base) if base != original else None
            labels = round_report.labels(rel)
            for finding in result.findings:
                line = line_map.original_line(finding.line) if line_map is not None else finding.line
                label = labels.get(finding.fix_id) if finding.applied else None
                if finding.applied and (label is None or label.status != "verified") and finding.fix_id not in \
                        round_report.representatives(rel):
                    continue  # a fix not kept is reported once, at its unit's first site
                verification = Verification(label.status, round_report.number, label.proof,
                                            label.failure) if label is not None else None
                labelled = dataclasses.replace(finding, line=line, path=display, verification=verification,
                                               applied=label is not None and label.status == "verified")
                key = (finding.code, line, finding.message)
                previous = chosen.get(key)
                if previous is None or _rank(labelled) >= _rank(previous):  # the later round's word, unless it says less
                    chosen[key] = labelled
        return sorted(chosen.values(), key=Finding.sort_key)


def _rank(finding: Finding) -> int:
    """A verified fix says most, then a fix with any verdict, then a finding without one."""
    if finding.verification is None:
        return 0
    return 2 if finding.verification.verified else 1
