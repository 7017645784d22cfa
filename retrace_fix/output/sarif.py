"""``--format sarif``: the run as a SARIF 2.1.0 log (GitHub code scanning, CI dashboards).

One run, one tool component (``retrace-fix``) with one rule per code that any
codemod can emit (:data:`retrace_fix.codemods.RULES`): ``id`` (``RTF002``), ``name``
(``predict-to-call``), the one-line summary, the first paragraph of the
documentation as the full description, and the whole *What it does / Why it
retraces / Example / Fix safety* page as help (text and Markdown).  The rule's
tier is in its property bag.

Each finding is a result whose location is the file (a URI relative to the
directory retrace-fix ran in, ``uriBaseId`` ``%SRCROOT%``) and the line and
column of the site.  Columns count Unicode code points (``columnKind``).

Levels say what is left for a person to do:

* ``note`` — a fix retrace-fix applies by itself (the safe tier, or the unsafe
  tier with ``--unsafe-fixes``); the result carries the edit in ``fixes``.
* ``warning`` — a diagnostic (never edited: fix it by hand) or a fix of the
  unsafe tier that was not enabled (review it, then run with
  ``--unsafe-fixes``).

``fixes`` hold the edits as ``artifactChanges`` with character-exact
replacements computed from the file's diff: every changed block of the file is
given to the applied finding whose line it contains, or else to the nearest
applied finding of that file.  Regions refer to the file as it was read,
before this run wrote anything.  Files that could not be read or parsed are
``toolExecutionNotifications`` of level ``error`` (``executionSuccessful`` is
then false).
"""

from __future__ import annotations

import difflib
import json
import os
import re
from dataclasses import replace
from pathlib import Path
from urllib.parse import quote

from retrace_fix import __version__
from retrace_fix.engine.options import RunResult
from retrace_fix.findings import FileResult, Finding, Tier
from retrace_fix.linemap import NEWLINE, source_lines
from retrace_fix.notebooks.notebook import is_notebook, source_line_offsets

SARIF_VERSION = "2.1.0"
SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
SRCROOT = "%SRCROOT%"



# --------------------------------------------------------------------------- rules


def _first_paragraph(doc: str) -> str:
    """The first paragraph of a code's documentation (the start of *What it does*)."""
    from retrace_fix.docstring_markdown import split_sections

    _, sections = split_sections(doc)
    paragraph: list[str] = []
    for _, body in sections:
        for line in body:
            if not line.strip():
                if paragraph:
                    break
                continue
            paragraph.append(line.strip())
        if paragraph:
            break
    return " ".join(paragraph).replace("``", "`")


def _rules() -> tuple[list[dict], dict[str, int]]:
    from retrace_fix.codemods import RULES
    from retrace_fix.docstring_markdown import doc_to_markdown

    rules: list[dict] = []
    index: dict[str, int] = {}
    for code, record in RULES.items():
        name, tier, summary = record.name, record.tier.value, record.summary
        doc = record.page
        full = _first_paragraph(doc) or summary
        level = "warning" if tier in (Tier.DIAGNOSTIC.value, Tier.UNSAFE.value) else "note"
        rule: dict = {
            "id": code,
            "name": name,
            "shortDescription": {"text": sentence(summary or name)},
            "fullDescription": {"text": sentence(full)},
            "help": {
                "text": doc or summary,
                "markdown": doc_to_markdown(doc, title=f"{code} {name}") if doc else summary,
            },
            "defaultConfiguration": {"level": level},
            "properties": {"tier": tier, "tags": ["tensorflow", "tf.function", "retracing", "performance"]},
        }
        index[code] = len(rules)
        rules.append(rule)
    return rules, index


# --------------------------------------------------------------------------- locations


def artifact_location(path: str) -> dict:
    """A relative URI (against %SRCROOT%, the run's directory) or a file URI for absolute paths."""
    posix = path.replace(os.sep, "/")
    if Path(path).is_absolute():
        return {"uri": Path(path).as_uri()}
    return {"uri": quote(posix, safe="/-._~"), "uriBaseId": SRCROOT}


class _Text:
    """Offsets ↔ (line, column) for one text; both 1-based, columns in code points."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.line_starts = [0] + [m.end() for m in NEWLINE.finditer(text)]

    def position(self, offset: int) -> tuple[int, int]:
        lo, hi = 0, len(self.line_starts) - 1
        while lo < hi:  # last line start <= offset
            mid = (lo + hi + 1) // 2
            if self.line_starts[mid] <= offset:
                lo = mid
            else:
                hi = mid - 1
        return lo + 1, offset - self.line_starts[lo] + 1

    def region(self, start: int, end: int) -> dict:
        start_line, start_column = self.position(start)
        end_line, end_column = self.position(end)
        return {
            "startLine": start_line,
            "startColumn": start_column,
            "endLine": end_line,
            "endColumn": end_column,
            "charOffset": start,
            "charLength": end - start,
        }


class _Change:
    """One changed block of a file: old lines [i1, i2) → new text, narrowed to the changed characters."""

    def __init__(self, old: _Text, old_lines: list[str], new_lines: list[str], i1: int, i2: int, j1: int, j2: int):
        self.first_line = i1 + 1  # 1-based old line range the block touches (insertions: the line after)
        self.last_line = max(i1 + 1, i2)
        start = old.line_starts[i1] if i1 < len(old.line_starts) else len(old.text)
        old_block = "".join(old_lines[i1:i2])
        new_block = "".join(new_lines[j1:j2])
        prefix = 0
        limit = min(len(old_block), len(new_block))
        while prefix < limit and old_block[prefix] == new_block[prefix]:
            prefix += 1
        suffix = 0
        while (
            suffix < limit - prefix
            and old_block[len(old_block) - 1 - suffix] == new_block[len(new_block) - 1 - suffix]
        ):
            suffix += 1
        self.start = start + prefix
        self.end = start + len(old_block) - suffix
        self.inserted = new_block[prefix : len(new_block) - suffix]
        self.old = old

    def replacement(self) -> dict:
        return {"deletedRegion": self.old.region(self.start, self.end), "insertedContent": {"text": self.inserted}}


def file_changes(original: str, fixed: str) -> list[_Change]:
    """The changed blocks between two texts of one file, in order."""
    if original == fixed:
        return []
    old = _Text(original)
    old_lines = source_lines(original)
    new_lines = source_lines(fixed)
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    return [
        _Change(old, old_lines, new_lines, i1, i2, j1, j2)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes()
        if tag != "equal"
    ]


def _assign_changes(findings: list[Finding], changes: list[_Change]) -> dict[int, list[_Change]]:
    """Index into ``findings`` (applied ones) → the changed blocks that make up its fix."""
    applied = [i for i, f in enumerate(findings) if f.applied]
    owned: dict[int, list[_Change]] = {i: [] for i in applied}
    if not applied:
        return owned
    for change in changes:
        inside = [i for i in applied if change.first_line <= findings[i].line <= change.last_line]
        if not inside:
            distance = lambda i: min(abs(findings[i].line - change.first_line), abs(findings[i].line - change.last_line))
            inside = [min(applied, key=lambda i: (distance(i), findings[i].line))]
        for i in inside:
            owned[i].append(change)
    for i in applied:  # a finding inside another finding's block still gets that block
        if not owned[i] and changes:
            line = findings[i].line
            nearest = min(changes, key=lambda c: (min(abs(line - c.first_line), abs(line - c.last_line)), c.first_line))
            owned[i].append(nearest)
    return owned


# --------------------------------------------------------------------------- results


def sentence(text: str) -> str:
    """``text`` ending with a full stop (SARIF messages are sentences)."""
    text = text.strip()
    return text if not text or text.endswith((".", "!", "?")) else text + "."


def _message(finding: Finding) -> str:
    text = sentence(finding.message)
    if finding.reason:
        label = "Unsafe fix" if finding.tier is Tier.UNSAFE else "Why"
        text += f" {label}: {sentence(finding.reason)}"
    if finding.tier is Tier.UNSAFE and not finding.applied:
        text += " The fix is applied with --unsafe-fixes."
    return text


def _level(finding: Finding) -> str:
    return "note" if finding.fixable and finding.applied else "warning"


def _in_file(findings: list[Finding], file_result: FileResult) -> list[Finding]:
    """``findings`` placed on the lines of the file itself: in a notebook, the line of its JSON
    text that holds the cell's line (the artifact a viewer shows is the ``.ipynb`` file)."""
    if not is_notebook(file_result.path) or not file_result.original:
        return findings
    offsets: dict[int, list[int]] = {}
    placed = []
    for finding in findings:
        if finding.cell not in offsets:
            offsets[finding.cell] = source_line_offsets(file_result.original, finding.cell or 0)
        lines = offsets[finding.cell]
        line = lines[min(max(finding.line, 1), len(lines)) - 1] if lines else 1
        placed.append(replace(finding, line=line, column=0))
    return placed


def _file_results(file_result: FileResult, rule_index: dict[str, int]) -> list[dict]:
    in_cells = sorted(file_result.findings, key=Finding.sort_key)
    findings = _in_file(in_cells, file_result)
    changes = file_changes(file_result.original or "", file_result.fixed or "") if file_result.changed else []
    owned = _assign_changes(findings, changes)
    location = artifact_location(file_result.path)
    results = []
    for i, finding in enumerate(findings):
        result: dict = {
            "ruleId": finding.code,
            "level": _level(finding),
            "message": {"text": _message(finding)},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": dict(location),
                        "region": {"startLine": max(1, finding.line), "startColumn": finding.column + 1},
                    }
                }
            ],
            "properties": {
                "tier": finding.tier.value,
                "fixable": finding.fixable,
                "applied": finding.applied,
            },
        }
        if finding.code in rule_index:
            result["ruleIndex"] = rule_index[finding.code]
        cell_finding = in_cells[i]
        if cell_finding.cell is not None:  # a notebook: the cell, and the line and column in it
            result["properties"].update(cell=cell_finding.cell, lineInCell=cell_finding.line,
                                        columnInCell=cell_finding.column + 1)
            result["locations"][0]["physicalLocation"]["region"] = {"startLine": max(1, finding.line)}
            result["locations"][0]["logicalLocations"] = [{"name": f"cell {cell_finding.cell}", "kind": "module"}]
        if finding.reason:
            result["properties"]["reason"] = finding.reason
            if finding.tier is Tier.UNSAFE:
                result["properties"]["unsafeReason"] = finding.reason
        blocks = owned.get(i)
        if blocks:
            result["fixes"] = [
                {
                    "description": {"text": sentence(f"{finding.code}: {finding.message}")},
                    "artifactChanges": [
                        {
                            "artifactLocation": dict(location),
                            "replacements": [c.replacement() for c in sorted(blocks, key=lambda c: c.start)],
                        }
                    ],
                }
            ]
        results.append(result)
    return results


_ERROR_LINE = re.compile(r":(\d+)(?::(\d+))?:")


def _notification(file_result: FileResult) -> dict:
    message = file_result.error or ""
    notification: dict = {"level": "error", "message": {"text": sentence(message)}}
    rest = message[len(file_result.path) :] if message.startswith(file_result.path) else ""
    match = _ERROR_LINE.match(rest)
    if file_result.path:
        physical: dict = {"artifactLocation": artifact_location(file_result.path)}
        if match:
            region = {"startLine": max(1, int(match.group(1)))}
            if match.group(2):
                region["startColumn"] = max(1, int(match.group(2)))
            physical["region"] = region
        notification["locations"] = [{"physicalLocation": physical}]
    return notification


def sarif_log(result: RunResult) -> dict:
    """The SARIF log of a finished run as a JSON-ready dict."""
    rules, rule_index = _rules()
    results: list[dict] = []
    notifications: list[dict] = []
    for file_result in sorted(result.files, key=lambda r: r.path):
        if file_result.error:
            notifications.append(_notification(file_result))
            continue
        results.extend(_file_results(file_result, rule_index))
    invocation: dict = {"executionSuccessful": not notifications}
    if notifications:
        invocation["toolExecutionNotifications"] = notifications
    run: dict = {
        "tool": {
            "driver": {
                "name": "retrace-fix",
                "version": __version__,
                "semanticVersion": __version__,
                "rules": rules,
            }
        },
        "invocations": [invocation],
        "originalUriBaseIds": {SRCROOT: {"uri": Path.cwd().as_uri().rstrip("/") + "/"}},
        "columnKind": "unicodeCodePoints",
        "newlineSequences": ["\r\n", "\n", "\r"],
        "results": results,
    }
    return {"$schema": SARIF_SCHEMA, "version": SARIF_VERSION, "runs": [run]}


def to_sarif(result: RunResult) -> str:
    """The SARIF 2.1.0 log of a finished run, as text (ends with a newline)."""
    return json.dumps(sarif_log(result), indent=2, ensure_ascii=False) + "\n"


__all__ = ["to_sarif", "sarif_log", "file_changes", "artifact_location", "SARIF_VERSION"]
