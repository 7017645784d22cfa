"""``retrace-fix -i PATH...``: walk the hunks one by one, apply what is accepted.

For every hunk of every changed file (files in path order, hunks top to bottom)
the session shows the file, the code(s), tier and message of the findings on
the hunk's lines (and, for an unsafe fix, why it is unsafe), then the hunk —
coloured on a terminal — and asks::

    Apply this hunk [Y,n,a,d,A,q,?]?

=====  =====================================================================
y      apply this hunk
n      do not apply this hunk
a      apply this hunk and every remaining hunk of this file
d      do not apply this hunk nor any remaining hunk of this file
A      apply this hunk and every remaining hunk of the same codemod(s), in
       every file (any tier)
q      quit: do not apply this hunk nor any later one; what was accepted so
       far (this file included) is written
?      help
=====  =====================================================================

Enter picks the default, shown in upper case: **y** for a safe fix, **n** for
an unsafe one (a hunk holding any unsafe fix counts as unsafe).  ``Y``, ``N``,
``D`` and ``Q`` mean the same as their lower-case keys; ``a`` and ``A`` differ.

Answers are read line by line from standard input, which need not be a
terminal, so sessions can be scripted (``printf 'y\\nn\\n' | retrace-fix -i
src/``).  End of input means ``q``.

A file is written once its hunks are decided: the accepted hunks are applied as
a patch to the text that was read (so a partial acceptance yields exactly those
hunks), the result is parsed again with LibCST — a result that does not parse
is not written and is reported as an error — and written atomically, refusing
if the file changed on disk meanwhile.

Exit status: 0, or 2 when a file could not be read, parsed or written.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING

from retrace_fix.patches import Hunk, apply_hunks, parse_patch
from retrace_fix.diffs import unified_diff
from retrace_fix.findings import FileResult, Finding, Tier
from retrace_fix.wording import plural

if TYPE_CHECKING:  # pragma: no cover
    from retrace_fix.engine import RunResult
    from retrace_fix.fix_request import FixRequest

EXIT_OK, EXIT_ERROR = 0, 2

KEYS = "ynadAq?"
HELP = {
    "y": "apply this hunk",
    "n": "do not apply this hunk",
    "a": "apply this hunk and all remaining hunks in this file",
    "d": "do not apply this hunk nor any remaining hunk in this file",
    "A": "apply this hunk and every remaining hunk of this codemod, in every file",
    "q": "quit; do not apply this hunk nor any remaining one (accepted hunks are written)",
    "?": "print help",
}
_ALIASES = {"Y": "y", "N": "n", "D": "d", "Q": "q", "yes": "y", "no": "n", "quit": "q", "h": "?", "help": "?"}


@dataclass
class HunkItem:
    """One hunk of one file, with the findings that explain it."""

    file: FileResult
    hunk: Hunk
    index: int  # 1-based within the file
    total: int
    findings: list[Finding] = field(default_factory=list)
    codemods: frozenset[str] = frozenset()  # codemod names, for 'A'
    inferred: bool = False  # no finding on its lines: attributed to the file's fixes

    @property
    def unsafe(self) -> bool:
        return any(f.tier is Tier.UNSAFE for f in self.findings)

    @property
    def default(self) -> str:
        return "n" if self.unsafe else "y"


def _codemod_name(code: str) -> str:
    from retrace_fix.codemods import codemod_for

    cls = codemod_for(code)
    return cls.NAME if cls is not None else code


def file_hunks(file_result: FileResult) -> list[HunkItem]:
    """Split a changed file's diff into hunks and attribute the applied findings to them."""
    diff = unified_diff(file_result.original or "", file_result.fixed or "", file_result.path, quoted=True)
    if not diff:
        return []
    hunks = parse_patch(diff, file_result.path)[0].hunks
    items = [HunkItem(file_result, h, i, len(hunks)) for i, h in enumerate(hunks, 1)]
    applied = [f for f in file_result.findings if f.applied]
    for finding in applied:
        target = _owner(items, finding.line)
        target.findings.append(finding)
    every = frozenset(_codemod_name(f.code) for f in applied)
    for item in items:
        if item.findings:
            item.codemods = frozenset(_codemod_name(f.code) for f in item.findings)
        else:  # e.g. an import a fix elsewhere in the file needs
            item.inferred = True
            item.codemods = every
            item.findings = [f for f in applied]
    return items


def _owner(items: list[HunkItem], line: int) -> HunkItem:
    for item in items:  # the hunk whose changed lines hold the finding
        first, last = item.hunk.changed_source_lines
        if first <= line <= last:
            return item
    for item in items:  # the hunk whose lines (context included) hold it
        start = item.hunk.source_start
        if start <= line < start + max(item.hunk.source_length, 1):
            return item
    return min(items, key=lambda it: abs(it.hunk.changed_source_lines[0] - line))


class Session:
    def __init__(self, request: "FixRequest", result: "RunResult",
                 stdin: IO[str] | None = None, out: IO[str] | None = None, err: IO[str] | None = None) -> None:
        from retrace_fix import output

        self.request = request
        self.result = result
        self.stdin = stdin or sys.stdin
        self.out = out or sys.stdout
        self.err = err or sys.stderr
        self.color = output.stream_is_terminal(self.out)
        self.echo = not output.stream_is_terminal(self.stdin)
        self.accept_codemods: set[str] = set()
        self.errors: list[str] = []
        self.total = self.accepted = self.files_written = 0
        self._console = None
        if self.color:
            from rich.console import Console

            self._console = Console(file=self.out, force_terminal=True, highlight=False, soft_wrap=True)

    # ------------------------------------------------------------------ output

    def _print(self, text: str = "", style: str = "", end: str = "\n") -> None:
        if self._console is not None:
            from rich.text import Text

            self._console.print(Text(text, style=style), end=end)
        else:
            self.out.write(text + end)
        self.out.flush()

    def _show(self, item: HunkItem) -> None:
        path = item.file.path
        self._print()
        self._print(f"{path}  (hunk {item.index} of {item.total})", style="bold")
        for finding in item.findings:
            self._print(
                f"  {finding.code} [{finding.tier.value}] line {finding.line}: {finding.message}",
                style="yellow" if finding.tier is Tier.UNSAFE else "",
            )
            if finding.reason and finding.tier is Tier.UNSAFE:
                self._print(f"    unsafe: {finding.reason}", style="yellow")
            if finding.verification is not None:  # --verify: what running the program showed
                check = finding.verification
                self._print(f"    {check.status} (round {check.round}): {check.proof}",
                            style="green" if check.verified else "yellow")
        if item.inferred:
            self._print("  (no finding on these lines: part of the fixes above in this file)", style="dim")
        self._print(f"--- a/{path}", style="bold red")
        self._print(f"+++ b/{path}", style="bold green")
        for line in item.hunk.text().splitlines():
            style = "cyan" if line.startswith("@@") else "green" if line.startswith("+") else (
                "red" if line.startswith("-") else "")
            self._print(line, style=style)

    def _help(self) -> None:
        for key in KEYS:
            self._print(f"{key} - {HELP[key]}", style="red")

    # ------------------------------------------------------------------ input

    def ask(self, item: HunkItem) -> str:
        default = item.default
        choices = ",".join(k.upper() if k == default else k for k in KEYS)
        while True:
            self._print(f"Apply this hunk [{choices}]? ", style="bold blue", end="")
            line = self.stdin.readline()
            if not line:  # end of input: quit
                if self.echo:
                    self._print("q (end of input)")
                return "q"
            answer = line.strip()
            if self.echo:
                self._print(answer)
            if not answer:
                return default
            answer = _ALIASES.get(answer, answer)
            if answer == "?":
                self._help()
                continue
            if answer in KEYS:
                return answer
            self._print(f"unknown answer {answer!r}", style="red")
            self._help()

    # ------------------------------------------------------------------ the walk

    def run(self) -> int:
        from retrace_fix import output

        work: list[tuple[FileResult, list[HunkItem]]] = []
        for file_result in self.result.files:
            if not file_result.changed:
                continue
            try:
                work.append((file_result, file_hunks(file_result)))
            except Exception as exc:  # pragma: no cover - defensive: our own diff always parses
                self.errors.append(f"{file_result.path}:1: cannot split the diff into hunks: {exc}")
        self.total = sum(len(items) for _, items in work)
        for file_result, items in work:
            if self._walk_file(file_result, items):
                break
        remaining = [f for f in self.result.findings if not f.applied]
        for finding in remaining:
            self.out.write(output.finding_line(finding) + "\n")
        for message in [*self.result.errors, *self.errors]:
            self.err.write(f"error: {message}\n")
        if not self.request.quiet:
            self.err.write(self.summary() + "\n")
        return EXIT_ERROR if (self.result.errors or self.errors) else EXIT_OK

    def _walk_file(self, file_result: FileResult, items: list[HunkItem]) -> bool:
        """Decide every hunk of one file, write the accepted ones; True when the user quit."""
        accepted: list[Hunk] = []
        rest_of_file: str | None = None  # 'a' or 'd'
        quit_now = False
        for item in items:
            if rest_of_file == "d":
                continue
            if rest_of_file == "a" or (item.codemods and item.codemods <= self.accept_codemods):
                why = "rest of this file" if rest_of_file == "a" else "every " + ", ".join(sorted(item.codemods)) + " hunk"
                self._print(f"{file_result.path}  (hunk {item.index} of {item.total}): accepted ({why})", style="dim")
                accepted.append(item.hunk)
                continue
            self._show(item)
            answer = self.ask(item)
            if answer == "q":
                quit_now = True
                break
            if answer in ("y", "a", "A"):
                accepted.append(item.hunk)
            if answer in ("a", "d"):
                rest_of_file = answer
            if answer == "A":
                self.accept_codemods |= set(item.codemods)
        if accepted:
            self._write(file_result, accepted)
        return quit_now

    def _write(self, file_result: FileResult, hunks: list[Hunk]) -> None:
        import libcst as cst

        from retrace_fix.patching import FileChangedError, atomic_write

        original = file_result.original or ""
        outcome = apply_hunks(original, hunks, allow_offset=False)
        if not outcome.ok or outcome.text is None:  # pragma: no cover - our hunks come from this text
            self.errors.append(f"{file_result.path}:1: the accepted hunks do not apply; file left untouched")
            return
        try:
            cst.parse_module(outcome.text)
        except cst.ParserSyntaxError as exc:
            self.errors.append(
                f"{file_result.path}:1: the accepted hunks do not parse together ({exc.message}); file left untouched"
            )
            return
        except (RecursionError, MemoryError) as exc:  # pragma: no cover
            self.errors.append(f"{file_result.path}:1: cannot parse the result ({type(exc).__name__}); not written")
            return
        encoding = file_result.encoding
        try:
            atomic_write(
                Path(file_result.path),
                outcome.text.encode(encoding),
                expected_old=original.encode(encoding),
            )
        except FileChangedError as exc:
            self.errors.append(f"{file_result.path}:1: {exc}")
            return
        except (OSError, UnicodeEncodeError) as exc:
            self.errors.append(f"{file_result.path}:1: cannot write: {getattr(exc, 'strerror', None) or exc}")
            return
        self.accepted += len(hunks)
        self.files_written += 1

    def summary(self) -> str:
        diagnostics = sum(1 for r in self.result.files for f in r.findings if f.tier is Tier.DIAGNOSTIC)
        errors = len(self.result.errors) + len(self.errors)
        total = self.total
        return (
            f"{self.accepted} of {plural(total, 'hunk')} applied in {plural(self.files_written, 'file')}, "
            f"{plural(diagnostics, 'diagnostic')}, {plural(errors, 'error')}"
        )


def run_interactive(request: "FixRequest", result: "RunResult") -> int:
    """Entry point used by :func:`retrace_fix.commands.fix.finish` for ``-i/--interactive``."""
    return Session(request, result).run()


__all__ = ["HunkItem", "Session", "file_hunks", "run_interactive"]
