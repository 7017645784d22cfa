"""Rendering: diffs, findings, the summary line; text (coloured only on a terminal) and JSON."""

from __future__ import annotations

import json
import re
from typing import IO, TYPE_CHECKING

from retrace_fix.findings import FileResult, Finding, Tier
from retrace_fix.wording import plural
from retrace_fix.patch.diffs import unified_diff
from retrace_fix.notebooks.notebook import cell_diff, is_notebook

if TYPE_CHECKING:  # pragma: no cover
    from retrace_fix.engine.options import RunResult

JSON_SCHEMA_VERSION = 1


def file_diff(result: FileResult) -> str:
    if not result.changed:
        return ""
    if is_notebook(result.path):  # one diff per changed cell, headed path:cell N
        return cell_diff(result.original or "", result.fixed or "", result.path)
    return unified_diff(result.original or "", result.fixed or "", result.path, quoted=True)


def finding_line(finding: Finding) -> str:
    """``path:line:col: CODE [tier] message`` (``[*]`` marks a fix this run applies);
    ``path:cell N:line:col: ...`` in a notebook (ruff's form).

    An unsafe fix's ``reason`` follows in parentheses; the ``reason`` of other findings (the
    full explanation) is left to JSON, SARIF and ``explain``: one finding, one line.
    """
    mark = " [*]" if finding.applied else ""
    where = finding.path if finding.cell is None else f"{finding.path}:cell {finding.cell}"
    text = f"{where}:{finding.line}:{finding.column + 1}: {finding.code}{mark} [{finding.tier.value}] {finding.message}"
    if finding.reason and finding.tier is Tier.UNSAFE:
        text += f" (unsafe: {finding.reason})"
    if finding.verification is not None:  # --verify: what running the program showed
        text += f" ({finding.verification.status} in round {finding.verification.round}: {finding.verification.proof})"
    return visible(text)


#: control characters (C0 but tab, DEL, C1): in a file name they would reach the terminal or split a line
_CONTROL = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f]")


def visible(line: str) -> str:
    """``line`` with every control character written as a C escape (``\\033``, ``\\n``), as git
    quotes a file name: an escape sequence or a newline in a name never reaches the terminal."""
    return _CONTROL.sub(lambda m: {"\n": "\\n", "\r": "\\r"}.get(m.group(), f"\\{ord(m.group()):03o}"), line)


def summary_line(run: RunResult, mode: str) -> str:
    changed = sum(1 for f in run.files if f.changed)
    fixes = sum(f.applied_count for f in run.files)
    diagnostics = sum(1 for r in run.files for f in r.findings if f.tier is Tier.DIAGNOSTIC)
    # fixes held back by their tier or a suppression (a file with an error applies none: it says why)
    hidden = sum(1 for r in run.files if r.error is None for f in r.findings if f.fixable and not f.applied)
    errors = len(run.errors)
    if mode == "fix":
        head = f"{plural(changed, 'file')} changed, {plural(fixes, 'fix')} applied"
    else:
        head = f"{plural(changed, 'file')} would change, {plural(fixes, 'fix')} available"
    line = f"{head}, {plural(diagnostics, 'diagnostic')}, {plural(errors, 'error')}"
    if hidden:
        line += f" ({plural(hidden, 'fix')} not applied: unsafe or suppressed; see --unsafe-fixes)"
    return line


def branch_summary_line(run: RunResult, branch: str, files: int, fixes: int, branch_errors: int) -> str:
    """The summary of a ``--branch`` run: what was committed (no file of the working tree is written)."""
    diagnostics = sum(1 for r in run.files for f in r.findings if f.tier is Tier.DIAGNOSTIC)
    errors = len(run.errors) + branch_errors
    line = (f"{plural(files, 'file')} committed to branch {branch}, {plural(fixes, 'fix')}; working tree unchanged, "
            f"{plural(diagnostics, 'diagnostic')}, {plural(errors, 'error')}")
    changed = sum(1 for f in run.files if f.changed)
    if changed > files:
        line += f" ({plural(changed - files, 'fixed file')} not committed: see above)"
    return line


def write_diffs(run: RunResult, out: IO[str], color: bool) -> None:
    for result in run.files:
        diff = file_diff(result)
        if not diff:
            continue
        if color:
            _write_colored_diff(diff, out)
        else:
            out.write(diff)


def _write_colored_diff(diff: str, out: IO[str]) -> None:
    from rich.console import Console
    from rich.text import Text

    console = Console(file=out, force_terminal=True, highlight=False, soft_wrap=True)
    for line in diff.splitlines():
        style = None
        if line.startswith(("---", "+++")):
            style = "bold"
        elif line.startswith("@@"):
            style = "cyan"
        elif line.startswith("+"):
            style = "green"
        elif line.startswith("-"):
            style = "red"
        console.print(Text(line, style=style or ""))


def write_findings(run: RunResult, out: IO[str], only_unapplied: bool = False, only_tier: Tier | None = None) -> None:
    for finding in run.findings:
        if only_unapplied and finding.applied:
            continue
        if only_tier is not None and finding.tier is not only_tier:
            continue
        out.write(finding_line(finding) + "\n")


def write_errors(run: RunResult, err: IO[str]) -> None:
    for message in run.errors:
        err.write(f"error: {visible(message)}\n")


def to_json(run: RunResult, mode: str, include_diff: bool) -> str:
    files = []
    for result in run.files:
        if not (result.findings or result.error or result.changed):
            continue
        entry: dict = {
            "path": result.path,
            "changed": result.changed,
            "findings": [f.to_json() for f in result.findings],
            "error": result.error,
        }
        if include_diff:
            entry["diff"] = file_diff(result)
        files.append(entry)
    payload = {
        "version": JSON_SCHEMA_VERSION,
        "mode": mode,
        "files": files,
        "summary": {
            "files_scanned": len(run.files),
            "files_changed": sum(1 for f in run.files if f.changed),
            "fixes": sum(f.applied_count for f in run.files),
            "diagnostics": sum(1 for r in run.files for f in r.findings if f.tier is Tier.DIAGNOSTIC),
            "errors": len(run.errors),
            "text": summary_line(run, mode),
        },
    }
    return json.dumps(payload, indent=2, sort_keys=False) + "\n"


def stream_is_terminal(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
