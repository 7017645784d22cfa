"""Finding / tier types shared by the codemods, the engine and every output format."""

from __future__ import annotations

import enum
from dataclasses import asdict, dataclass, field, replace
from typing import Iterable, Mapping


class Tier(str, enum.Enum):
    """How far a fix may be trusted; decided per site, not per codemod."""

    SAFE = "safe"  # applied by default: behaviour preserved for every call the code/traces show
    UNSAFE = "unsafe"  # needs --unsafe-fixes: may change behaviour for unseen inputs
    DIAGNOSTIC = "diagnostic"  # never edits: explains what to do by hand

    def __str__(self) -> str:  # pragma: no cover - trivial
        return self.value


@dataclass(frozen=True)
class Finding:
    """One site a codemod looked at and has something to say about.

    ``applied`` is True when the codemod edited the site in this run; a fixable
    finding that was not applied (unsafe tier without ``--unsafe-fixes``,
    suppressed, or ``--check``) keeps ``applied`` False.
    """

    code: str
    message: str
    tier: Tier
    line: int
    column: int = 0
    path: str = ""
    applied: bool = False
    #: the full explanation: for an unsafe fix, why it may change behaviour (printed with the
    #: finding); for trace-driven findings of any tier, also what was proven or what blocks the
    #: fix (JSON, SARIF; the text line stays one short line)
    reason: str = ""
    #: what the finding is about, ``(kind, function qualname, parameter)``: the engine
    #: keeps one finding per problem (see :func:`drop_duplicates`); never printed
    subjects: tuple = field(default=(), compare=False, repr=False)
    #: a diagnostic that refuses a fix only for lack of evidence (a call the rewriter cannot
    #: see into, a value it cannot follow): ``--verify`` may apply it and let the user's own
    #: program prove or refute it.  Never printed.
    verifiable: bool = field(default=False, compare=False, repr=False)
    #: the fix's identity in its file, ``(code, line in the file, ordinal among the
    #: findings of that code on that line)``: stable whichever other fixes a run applies,
    #: so that a ``--verify`` run can apply any subset of the fixes
    fix_id: tuple = field(default=(), compare=False, repr=False)
    #: what a ``--verify`` run of the user's program showed about this fix (None otherwise)
    verification: "Verification | None" = field(default=None, compare=False, repr=False)
    #: in a notebook: the 1-based cell (among all cells) that holds the site; ``line`` is then the
    #: line in that cell (None in a ``.py`` file)
    cell: int | None = None

    @property
    def fixable(self) -> bool:
        return self.tier is not Tier.DIAGNOSTIC

    def with_path(self, path: str) -> "Finding":
        return replace(self, path=path)

    def sort_key(self) -> tuple:
        return (self.path, self.cell or 0, self.line, self.column, self.code, self.message)

    def to_json(self) -> dict:
        data = asdict(self)
        del data["subjects"]
        del data["verifiable"]
        del data["fix_id"]
        del data["verification"]
        if self.cell is None:  # only findings in notebooks name a cell
            del data["cell"]
        data["column"] = self.column + 1  # 1-based, as the text format prints it
        data["tier"] = self.tier.value
        data["fixable"] = self.fixable
        if self.verification is not None:  # a --verify run: what the user's program showed
            data["verification"] = self.verification.to_json()
        return data


@dataclass(frozen=True)
class Verification:
    """What running the user's program with a fix showed (``retrace-fix --verify``)."""

    #: ``verified`` (kept: the program ran with it and passed), ``rejected`` (a run refuted
    #: it), ``untested`` (no run could judge it: the run budget, a failing original)
    status: str
    round: int  # the fix round that proposed it (1 = the original's traces)
    proof: str  # one line: what the run showed, or why it was rejected
    #: for a rejected fix: ``exit`` (it crashed or exited otherwise), ``timeout``, ``output``
    #: (printed or written results differ), ``traces`` (a function traces more, or no fewer
    #: traces in all); "" otherwise
    failure: str = ""

    @property
    def verified(self) -> bool:
        return self.status == "verified"

    def to_json(self) -> dict:
        return {"status": self.status, "round": self.round, "proof": self.proof, "failure": self.failure}


def drop_duplicates(
    findings: list[Finding],
    suppressed: Iterable[tuple[str, tuple]] = (),
    defers_to: Mapping[str, tuple[str, ...]] | None = None,
) -> list[Finding]:
    """One problem, one finding: ``findings`` without those that repeat a problem another code reports.

    ``defers_to`` maps a code to the codes that win over it (each rule's
    :attr:`~retrace_fix.rules.Rule.defers_to`; the table is
    :data:`retrace_fix.codemods.DEFERS_TO`): a finding of the key code is dropped
    when a finding of a winning code -- reported, or hidden by a suppression
    comment -- is about the same subject (the same parameter of the same
    function, the same kind of problem).  ``suppressed`` holds ``(code,
    subject)`` of the findings suppression comments hid.

    Only findings of selected codes count: ``--select RTF103`` (or ``--ignore
    RTF001``) still reports RTF103.  A suppression comment for the winner's code
    also hides the loser's duplicate (the problem was acknowledged where the
    winner reports it); one for the loser's code never hides the winner.
    """
    defers_to = defers_to or {}
    claimed = {(f.code, s) for f in findings for s in f.subjects} | set(suppressed)
    if not claimed:
        return findings
    return [
        f for f in findings
        if not any((winner, s) in claimed for winner in defers_to.get(f.code, ()) for s in f.subjects)
    ]


@dataclass
class FileResult:
    """What the engine learned about one file."""

    path: str  # as displayed: relative to the current directory where possible
    original: str | None = None  # decoded text (None when the file could not be read)
    fixed: str | None = None  # decoded text after fixes (== original when nothing changed)
    findings: list[Finding] = field(default_factory=list)
    error: str | None = None  # "path:line: reason" style message when the file was skipped
    encoding: str = "utf-8"
    skipped: bool = False  # prefilter decided the file cannot contain a target
    #: why a skipped file is no Python source (an R notebook): said for a file named on the command
    #: line, as a note, not an error ("" when there is nothing to say)
    skip_note: str = ""
    #: tf.functions found without an ``input_signature``: whether they retrace depends on
    #: the arguments of a real run, which only recorded traces show (0 when not parsed)
    unsigned_tf_functions: int = 0
    #: the project root whose traces applied to this file (resolved path; "" when none), and the
    #: file's path relative to it (the name traces give it)
    trace_root: str = ""
    trace_relpath: str = ""
    #: ``(file, qualname, firstlineno)`` of the recorded functions matched to a ``def`` of this
    #: file (None: no trace-driven codemod looked at it)
    trace_hits: list | None = None
    #: how many times LibCST parsed this file's text (a partial parse followed by the whole
    #: module counts 2; 0: never parsed): the engine's cost statistic, summed by benchmarks
    #: and by tests that compare runs
    libcst_parses: int = 0

    @property
    def changed(self) -> bool:
        return self.error is None and self.fixed is not None and self.fixed != self.original

    @property
    def applied_count(self) -> int:
        """Fixes in the fixed text (none when the file has an error: e.g. its write was refused)."""
        if self.error is not None:
            return 0
        return sum(1 for f in self.findings if f.applied)
