"""``retrace-fix -i PATH...``: walk the hunks one by one, apply what is accepted.

For every hunk of every changed file (files in path order, hunks top to bottom)
the session shows the file, the code(s), tier and message of the findings on
the hunk's lines (and, for an unsafe fix, why it is unsafe), then the hunk —
coloured on a terminal — and asks, with the keys of ``git add -p``::

    Apply this hunk [Y,n,a,d,A,q,j,J,g,s,e,?]?

=====  =====================================================================
y      apply this hunk
n      do not apply this hunk
a      apply this hunk and every later undecided hunk of this file
d      do not apply this hunk nor any later undecided hunk of this file
A      apply this hunk and every remaining hunk of the same codemod(s), in
       every file (any tier)
q      quit: do not apply this hunk nor any undecided one; what was accepted
       so far (this file included) is written
k, K   leave this hunk undecided, see the previous undecided hunk / the
       previous hunk
j, J   leave this hunk undecided, see the next undecided hunk / the next hunk
g      go to a hunk: ``g`` lists this file's hunks and asks for a number
       (``g3`` goes straight to hunk 3)
s      split this hunk into smaller ones, one per run of changed lines (each
       piece is then undecided)
e      edit this hunk in ``$VISUAL``/``$EDITOR``; the edited hunk must still
       apply to the file and leave it parseable, else you may edit again
?      help
=====  =====================================================================

Only the keys that can do something are offered (``j`` when an undecided
hunk follows, ``s`` when the hunk can be split, ...).  As in ``git add -p``,
moving and jumping stay within one file, and after a decision the walk goes
on to the next undecided hunk (wrapping to an earlier one left undecided);
the file is done when every hunk is decided.

Enter picks the default, shown in upper case: **y** for a safe fix, **n** for
an unsafe one (a hunk holding any unsafe fix counts as unsafe).  ``Y``, ``N``,
``D`` and ``Q`` mean the same as their lower-case keys; ``a``/``A``,
``j``/``J`` and ``k``/``K`` differ.

Answers are read line by line from standard input, which need not be a
terminal, so sessions can be scripted (``printf 'y\\nn\\n' | retrace-fix -i
src/``).  End of input means ``q``.

A file is written once its hunks are decided: the accepted hunks are applied as
a patch to the text that was read (so a partial acceptance yields exactly those
hunks), the result is parsed again with LibCST — a result that does not parse
is not written and is reported as an error — and written atomically, refusing
if the file changed on disk meanwhile.

A notebook's hunks are those of its changed cells, each shown under
``path:cell N``; the accepted ones are applied to their cells' sources, which are
spliced back into the notebook (only those sources change) and checked to parse.

Exit status: 0, or 2 when a file could not be read, parsed or written.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING

from retrace_fix.patch.hunk_edits import EditError, can_split, edit_buffer, merge_overlapping, parse_edited, split_hunk
from retrace_fix.patch.apply_text import apply_hunks
from retrace_fix.patch.parse import Hunk, decode, encode, parse_patch
from retrace_fix.patch.diffs import labelled_diff, unified_diff
from retrace_fix.notebooks.notebook import NotebookError, cell_label, changed_cells, is_notebook, read_notebook, splice_sources
from retrace_fix.findings import FileResult, Finding, Tier
from retrace_fix.wording import plural

if TYPE_CHECKING:  # pragma: no cover
    from retrace_fix.engine.options import RunResult
    from retrace_fix.fix_request import FixRequest

EXIT_OK, EXIT_ERROR = 0, 2

#: every key, in the order the prompt offers them (git's order)
KEYS = "ynadAqkKjJgse?"
HELP = {
    "y": "apply this hunk",
    "n": "do not apply this hunk",
    "a": "apply this hunk and all later hunks in this file",
    "d": "do not apply this hunk nor any later hunk in this file",
    "A": "apply this hunk and every remaining hunk of this codemod, in every file",
    "q": "quit; do not apply this hunk nor any undecided one (accepted hunks are written)",
    "k": "leave this hunk undecided, see previous undecided hunk",
    "K": "leave this hunk undecided, see previous hunk",
    "j": "leave this hunk undecided, see next undecided hunk",
    "J": "leave this hunk undecided, see next hunk",
    "g": "select a hunk to go to",
    "s": "split the current hunk into smaller hunks",
    "e": "manually edit the current hunk",
    "?": "print help",
}
#: what git says when a key cannot do anything here
UNAVAILABLE = {
    "k": "No previous undecided hunk",
    "K": "No previous hunk",
    "j": "No next undecided hunk",
    "J": "No next hunk",
    "g": "No other hunks to go to",
    "s": "Sorry, cannot split this hunk",
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
    edited: bool = False  # changed by hand with 'e'
    #: in a notebook: the cell (1-based) the hunk is in, and that cell's source, which the hunk applies to
    cell: int | None = None
    base: str | None = None

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
    """Split a changed file's diff into hunks and attribute the applied findings to them.

    A notebook's hunks are those of each changed cell's source (in cell order).
    """
    if is_notebook(file_result.path):
        return _notebook_hunks(file_result)
    diff = unified_diff(file_result.original or "", file_result.fixed or "", file_result.path, quoted=True)
    if not diff:
        return []
    hunks = parse_patch(diff, file_result.path)[0].hunks
    items = [HunkItem(file_result, h, i, len(hunks)) for i, h in enumerate(hunks, 1)]
    applied = [f for f in file_result.findings if f.applied]
    for finding in applied:
        target = _owner(items, finding.line)
        target.findings.append(finding)
    return _attribute(items, applied)


def _notebook_hunks(file_result: FileResult) -> list[HunkItem]:
    items: list[HunkItem] = []
    applied = [f for f in file_result.findings if f.applied]
    for cell, old, new in changed_cells(file_result.original or "", file_result.fixed or ""):
        diff = labelled_diff(old, new, "a/cell", "b/cell")
        cell_items = [HunkItem(file_result, h, 0, 0, cell=cell, base=old) for h in parse_patch(diff)[0].hunks]
        for finding in applied:
            if finding.cell == cell and cell_items:
                _owner(cell_items, finding.line).findings.append(finding)
        items.extend(cell_items)
    for number, item in enumerate(items, 1):
        item.index, item.total = number, len(items)
    return _attribute(items, applied)


def _attribute(items: list[HunkItem], applied: list[Finding]) -> list[HunkItem]:
    every = frozenset(_codemod_name(f.code) for f in applied)
    for item in items:
        if item.findings:
            item.codemods = frozenset(_codemod_name(f.code) for f in item.findings)
        else:  # e.g. an import a fix elsewhere in the file needs
            item.inferred = True
            item.codemods = every
            item.findings = [f for f in applied]
    return items


def split_item(item: HunkItem) -> list[HunkItem]:
    """The hunk of ``item`` split at its unchanged lines, each piece with the findings on its lines."""
    pieces = [HunkItem(item.file, hunk, 0, 0, cell=item.cell, base=item.base) for hunk in split_hunk(item.hunk)]
    if len(pieces) < 2:
        return [item]
    if not item.inferred:
        for finding in item.findings:
            _owner(pieces, finding.line).findings.append(finding)
    for piece in pieces:
        piece.edited = item.edited
        if piece.findings:
            piece.codemods = frozenset(_codemod_name(f.code) for f in piece.findings)
        else:  # nothing reported on its own lines: it belongs to the fixes of the hunk it came from
            piece.inferred = True
            piece.codemods = item.codemods
            piece.findings = list(item.findings)
    return pieces


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
        from retrace_fix.output import render as output

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

    def _show(self, item: HunkItem, decision: str | None = None) -> None:
        path = item.file.path if item.cell is None else cell_label(item.file.path, item.cell)
        marked = {"y": ", marked: apply", "n": ", marked: skip"}.get(decision or "", "")
        self._print()
        self._print(f"{path}  (hunk {item.index} of {item.total}{marked})", style="bold")
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
        if item.edited:
            self._print("  (edited by hand)", style="dim")
        self._print(f"--- a/{path}", style="bold red")
        self._print(f"+++ b/{path}", style="bold green")
        for line in item.hunk.text().splitlines():
            style = "cyan" if line.startswith("@@") else "green" if line.startswith("+") else (
                "red" if line.startswith("-") else "")
            self._print(line, style=style)

    def _help(self, keys: str = KEYS) -> None:
        for key in keys:
            self._print(f"{key} - {HELP[key]}", style="red")

    # ------------------------------------------------------------------ input

    def _read(self, prompt: str, at_end: str = "(end of input)") -> str | None:
        """One answer (stripped); None at the end of input (echoed as ``at_end``)."""
        self._print(prompt, style="bold blue", end="")
        line = self.stdin.readline()
        if not line:
            if self.echo:
                self._print(at_end)
            return None
        answer = line.strip()
        if self.echo:
            self._print(answer)
        return answer

    def ask(self, item: HunkItem, keys: str = "ynadAq?") -> tuple[str, str]:
        """The user's key for ``item`` among ``keys`` (and what followed ``g``, as in ``g3``)."""
        default = item.default
        choices = ",".join(k.upper() if k == default else k for k in keys)
        while True:
            answer = self._read(f"Apply this hunk [{choices}]? ", at_end="q (end of input)")
            if answer is None:  # end of input: quit
                return "q", ""
            if not answer:
                return default, ""
            answer = _ALIASES.get(answer, answer)
            key, rest = answer[:1], answer[1:].strip()
            if key == "g" and rest:
                answer = "g"
            if answer == "?":
                self._help(keys)
                continue
            if answer in keys:
                return answer, rest
            if answer in UNAVAILABLE:
                self._print(UNAVAILABLE[answer], style="red")
                continue
            self._print(f"unknown answer {answer!r}", style="red")
            self._help(keys)

    # ------------------------------------------------------------------ the walk

    def run(self) -> int:
        from retrace_fix.output import render as output

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
        """Decide every hunk of one file, write the accepted ones; True when the user quit.

        ``position`` is the hunk shown next: after a decision the next undecided one
        (wrapping to the top, as ``git add -p`` does); after j/k/J/K/g the one moved
        to, decided or not; None once every hunk is decided.
        """
        decisions: list[str | None] = [None] * len(items)  # 'y', 'n', or None (undecided)
        quit_now = False

        def undecided(indexes) -> int | None:
            return next((i for i in indexes if decisions[i] is None), None)

        def onwards(index: int) -> int | None:  # the next undecided hunk after ``index``, else from the top
            found = undecided(range(index + 1, len(items)))
            return found if found is not None else undecided(range(index + 1))

        position = undecided(range(len(items)))
        while position is not None:
            item = items[position]
            if decisions[position] is None and item.codemods and item.codemods <= self.accept_codemods:
                why = "every " + ", ".join(sorted(item.codemods)) + " hunk"
                self._print(f"{file_result.path}  (hunk {item.index} of {item.total}): accepted ({why})", style="dim")
                decisions[position] = "y"
                position = onwards(position)
                continue
            self._show(item, decisions[position])
            previous = undecided(range(position - 1, -1, -1))
            following = undecided(range(position + 1, len(items)))
            keys = "ynadAq" + "".join(key for key, on in (
                ("k", previous is not None), ("K", position > 0),
                ("j", following is not None), ("J", position + 1 < len(items)),
                ("g", len(items) > 1), ("s", can_split(item.hunk)), ("e", True),
            ) if on) + "?"
            answer, argument = self.ask(item, keys)
            if answer == "q":
                quit_now = True
                break
            if answer in ("y", "n", "a", "d", "A"):
                decisions[position] = "n" if answer in ("n", "d") else "y"
                if answer in ("a", "d"):
                    verdict = "accepted" if answer == "a" else "skipped"
                    for later in range(position + 1, len(items)):
                        if decisions[later] is None:
                            decisions[later] = decisions[position]
                            self._print(f"{file_result.path}  (hunk {later + 1} of {len(items)}): "
                                        f"{verdict} (rest of this file)", style="dim")
                if answer == "A":
                    self.accept_codemods |= set(item.codemods)
                position = onwards(position)
            elif answer in ("j", "k"):
                position = following if answer == "j" else previous
            elif answer in ("J", "K"):
                position += 1 if answer == "J" else -1
            elif answer == "g":
                position = self._go_to(items, decisions, position, argument)
            elif answer == "s":
                pieces = split_item(item)
                items[position:position + 1] = pieces
                decisions[position:position + 1] = [None] * len(pieces)
                self.total += len(pieces) - 1
                for number, each in enumerate(items, 1):
                    each.index, each.total = number, len(items)
                self._print(f"Split into {len(pieces)} hunks.", style="bold")
            elif answer == "e":
                edited = self._edit(item)
                if edited is not None:  # marked to be applied, as git marks an edited hunk
                    item.hunk, item.edited = edited, True
                    decisions[position] = "y"
                    position = onwards(position)
        accepted = [item for item, decision in zip(items, decisions) if decision == "y"]
        if accepted and is_notebook(file_result.path):
            self._write_notebook(file_result, accepted)
        elif accepted:
            self._write(file_result, [item.hunk for item in accepted])
        return quit_now

    def _go_to(self, items: list[HunkItem], decisions: list[str | None], position: int, argument: str) -> int:
        """The hunk ``g`` picks: ``argument`` (``g3``), else one chosen from the list."""
        if not argument:
            for number, (item, decision) in enumerate(zip(items, decisions), 1):
                mark = {"y": "+", "n": "-"}.get(decision or "", " ")
                changed = next((kind + text for kind, text in item.hunk.ops if kind != " "), "")
                self._print(f"{mark}{number:>3}: {item.hunk.header.strip()}  {changed.rstrip()}")
            argument = self._read("go to which hunk? ") or ""
        if not argument.isdigit():
            if argument:
                self._print(f"Invalid number: {argument!r}", style="red")
            return position
        number = int(argument)
        if not 1 <= number <= len(items):
            self._print(f"Sorry, only {plural(len(items), 'hunk')} available.", style="red")
            return position
        return number - 1

    def _edit(self, item: HunkItem) -> Hunk | None:
        """The hunk as edited in the user's editor, checked; None when the edit is given up."""
        import libcst as cst

        original = item.base if item.cell is not None else item.file.original or ""
        text = edit_buffer(item.hunk)
        while True:
            edited_text = self._run_editor(text)
            if edited_text is None:
                return None
            try:
                hunk = parse_edited(edited_text, item.hunk)
            except EditError as exc:
                problem = str(exc)
            else:
                if hunk is None:
                    self._print("Every line of the hunk was removed: edit aborted, the hunk is left as it was.")
                    return None
                outcome = apply_hunks(original, [hunk], allow_offset=False)
                problem = ""
                if not outcome.ok or outcome.text is None:
                    problem = "its ' ' and '-' lines are no longer the file's lines at this place"
                elif item.cell is not None:  # the cell's IPython syntax is CPython's to check, not LibCST's
                    try:
                        read_notebook(splice_sources(item.file.original or "", {item.cell - 1: outcome.text})
                                      ).require_every_cell(item.cell)
                    except NotebookError as exc:
                        problem = f"the cell would not parse: {exc.message} (line {exc.line})"
                else:
                    try:
                        cst.parse_module(outcome.text)
                    except cst.ParserSyntaxError as exc:
                        problem = f"the file would not parse: {exc.message.strip()} (line {exc.raw_line})"
                if not problem:
                    return hunk
            self._print(f"Your edited hunk does not apply: {problem}.", style="red")
            again = self._read('Edit again (saying "no" discards!) [y/n]? ')
            if not again or not again.lower().startswith("y"):
                return None
            text = edited_text

    def _run_editor(self, text: str) -> str | None:
        """``text`` after the user's editor ($VISUAL, $EDITOR, else a default); None when it failed."""
        import click

        try:
            edited = click.edit(encode(text), require_save=False, extension=".diff")
        except click.ClickException as exc:
            self._print(f"There was a problem with the editor: {exc.format_message()}", style="red")
            return None
        return decode(edited) if edited is not None else text

    def _write(self, file_result: FileResult, hunks: list[Hunk]) -> None:
        import libcst as cst

        from retrace_fix.sources.writes import WriteRefused, replace_file

        original = file_result.original or ""
        outcome = apply_hunks(original, merge_overlapping(hunks), allow_offset=False)
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
            replace_file(
                Path(file_result.path),
                outcome.text.encode(encoding),
                expected_old=original.encode(encoding),
            )
        except WriteRefused as exc:
            self.errors.append(f"{file_result.path}:1: {exc}")
            return
        except (OSError, UnicodeEncodeError) as exc:
            self.errors.append(f"{file_result.path}:1: cannot write: {getattr(exc, 'strerror', None) or exc}")
            return
        self.accepted += len(hunks)
        self.files_written += 1

    def _write_notebook(self, file_result: FileResult, items: list[HunkItem]) -> None:
        """Apply the accepted hunks cell by cell, splice the cells into the notebook's JSON, write it."""
        from retrace_fix.sources.writes import WriteRefused, replace_file

        original = file_result.original or ""
        by_cell: dict[int, list[HunkItem]] = {}
        for item in items:
            by_cell.setdefault(item.cell or 0, []).append(item)
        sources = {}
        for cell, cell_items in sorted(by_cell.items()):
            outcome = apply_hunks(cell_items[0].base or "", merge_overlapping([i.hunk for i in cell_items]),
                                  allow_offset=False)
            if not outcome.ok or outcome.text is None:  # pragma: no cover - our hunks come from this text
                self.errors.append(f"{cell_label(file_result.path, cell)}: the accepted hunks do not apply; "
                                   "notebook left untouched")
                return
            sources[cell - 1] = outcome.text
        try:
            text = splice_sources(original, sources)
            read_notebook(text).require_every_cell()  # every cell still parses (IPython syntax included)
        except NotebookError as exc:
            self.errors.append(f"{exc.location(file_result.path)}: the accepted hunks do not parse together "
                               f"({exc.message}); notebook left untouched")
            return
        try:
            replace_file(Path(file_result.path), text.encode("utf-8"), expected_old=original.encode("utf-8"))
        except WriteRefused as exc:
            self.errors.append(f"{file_result.path}:1: {exc}")
            return
        except OSError as exc:
            self.errors.append(f"{file_result.path}:1: cannot write: {exc.strerror or exc}")
            return
        self.accepted += len(items)
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


__all__ = ["HunkItem", "Session", "file_hunks", "run_interactive", "split_item"]
