"""Finding / tier types shared by the codemods, the engine and every output format."""

from __future__ import annotations

import enum
from dataclasses import asdict, dataclass, field
from typing import Iterable


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
    reason: str = ""  # for unsafe fixes: why the fix may change behaviour
    #: what the finding is about, ``(kind, function qualname, parameter)``: the engine
    #: keeps one finding per problem (see :data:`DEFERS_TO`); never printed
    subjects: tuple = field(default=(), compare=False, repr=False)

    @property
    def fixable(self) -> bool:
        return self.tier is not Tier.DIAGNOSTIC

    def with_path(self, path: str) -> "Finding":
        return Finding(**{**asdict(self), "tier": self.tier, "path": path})

    def sort_key(self) -> tuple:
        return (self.path, self.line, self.column, self.code, self.message)

    def to_json(self) -> dict:
        data = asdict(self)
        del data["subjects"]
        data["tier"] = self.tier.value
        data["fixable"] = self.fixable
        return data


#: One problem, one finding.  A finding of the key code is dropped when a finding of
#: one of the listed codes -- reported, or suppressed by a comment -- is about the
#: same subject (the same parameter of the same function, the same kind of problem).
#: Each winner has more evidence than the static call-site diagnostic it replaces:
#:
#: * RTF001 over RTF103 (a Python int step count): RTF001 has proved the loop safe
#:   and fixes the call sites, or names the line that blocks the fix, where RTF103's
#:   "pass a tensor" would be wrong advice;
#: * RTF003 over RTF103 and RTF105 (with ``--traces``): the recorded traces show the
#:   values and dtypes every caller really passed, those in other modules included,
#:   and RTF003 either fixes it with a signature or says why none is possible.
#:
#: Only findings of selected codes count: ``--select RTF103`` (or ``--ignore
#: RTF001``) still reports RTF103.  A suppression comment for the winner's code also
#: hides the loser's duplicate (the problem was acknowledged where the winner
#: reports it); one for the loser's code never hides the winner.
DEFERS_TO: dict[str, tuple[str, ...]] = {
    "RTF103": ("RTF001", "RTF003"),
    "RTF105": ("RTF003",),
}


def drop_duplicates(findings: list[Finding], suppressed: Iterable[tuple[str, tuple]] = ()) -> list[Finding]:
    """``findings`` without those that repeat a problem another code reports (:data:`DEFERS_TO`).

    ``suppressed`` holds ``(code, subject)`` of the findings suppression comments hid.
    """
    claimed = {(f.code, s) for f in findings for s in f.subjects} | set(suppressed)
    if not claimed:
        return findings
    return [
        f for f in findings
        if not any((winner, s) in claimed for winner in DEFERS_TO.get(f.code, ()) for s in f.subjects)
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

    @property
    def changed(self) -> bool:
        return self.error is None and self.fixed is not None and self.fixed != self.original

    @property
    def applied_count(self) -> int:
        """Fixes in the fixed text (none when the file has an error: e.g. its write was refused)."""
        if self.error is not None:
            return 0
        return sum(1 for f in self.findings if f.applied)
