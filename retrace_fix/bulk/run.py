"""A bulk run's list and outputs: ``--repos FILE``, the per-root report (table, JSON, ``--summary``), ``--patch-dir``.

Bulk runs: many roots in one call, a summary per root, one patch per root.

* Every PATH argument (and every line of ``--repos FILE``) is a **root**: a
  directory (a repository, usually), or a file, whose root is then the
  directory holding it.  Arguments with the same directory form one root; a
  file under two nested roots belongs to the deeper one.
* All files of all roots go through the engine together, so ``--jobs N``
  workers stay busy across roots; the output does not depend on ``N``.
* A root that does not exist, cannot be read, or holds files that do not parse
  is reported (exit 2 at the end) while every other root is processed and
  written as usual.
* ``--patch-dir DIR`` writes ``DIR/<root-name>.patch`` per root that has
  changes (none for a root without changes, since ``git apply`` refuses empty
  patches), paths relative to the root, ``a/``/``b/`` prefixes, and touches no
  source file.  Names come from the root's directory name; when two roots
  share a name the later ones get ``-2``, ``-3``... in argument order (see
  :mod:`retrace_fix.bulk.roots`).  Each patch is written atomically; an
  interrupted run writes no patch.
* The per-root summary (files scanned, files changed, fixes by code,
  diagnostics, errors, patch) is printed as a table (to standard output with
  ``--patch-dir``, else to standard error after the summary line), added to
  ``--format json`` as ``"roots"``, and written as Markdown with
  ``--summary FILE.md``.
"""

from __future__ import annotations

import json
import os
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Callable

from retrace_fix.sources.bounded_read import InputError, describe_size, read_limited
from retrace_fix.patch.diffs import unified_diff
from retrace_fix.sources.discovery import display_path
from retrace_fix.patch.parse import encode
from retrace_fix.sources.writes import WriteRefused, write_file
from retrace_fix.bulk.git_sources import is_git_url
from retrace_fix.bulk.roots import Root, build_roots
from retrace_fix.wording import plural

if TYPE_CHECKING:  # pragma: no cover
    from retrace_fix.engine.options import RunResult
    from retrace_fix.fix_request import FixRequest

EXIT_OK, EXIT_FOUND, EXIT_ERROR = 0, 1, 2


class BulkError(Exception):
    """A bulk option that cannot be used (unreadable --repos file); exit 2 before any work."""


# --------------------------------------------------------------------------- roots


#: a --repos file larger than this is refused (``--repos /dev/zero`` must not read without bound)
MAX_REPOS_BYTES = 16 << 20


def read_repos_file(path: str) -> list[str]:
    """Roots listed in ``path`` (``-`` = standard input): one per line, ``#`` comments, blanks ignored.

    Relative entries are relative to the file's directory (to the current
    directory for standard input); git URLs are kept as written.
    """
    try:
        stdin = getattr(sys.stdin, "buffer", None)
        if path == "-" and stdin is None:  # a text stream without bytes underneath (tests)
            data = sys.stdin.read(MAX_REPOS_BYTES + 1).encode("utf-8", "surrogateescape")
            if len(data) > MAX_REPOS_BYTES:
                raise InputError(f"larger than {describe_size(MAX_REPOS_BYTES)} (refused)")
        else:
            data = read_limited(path, MAX_REPOS_BYTES, stdin)
        text = data.decode("utf-8")
    except InputError as exc:
        raise BulkError(f"--repos {path}: {exc}") from None
    except UnicodeDecodeError as exc:
        raise BulkError(f"--repos {path}: cannot read: {exc}") from None
    base = None if path == "-" else Path(path).parent
    roots = []
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip() if not raw.lstrip().startswith("#") else ""
        if not line:
            continue
        if base is not None and not os.path.isabs(line) and not is_git_url(line) and str(base) not in ("", "."):
            line = os.path.normpath(os.path.join(str(base), line))
        roots.append(line)
    return roots


# --------------------------------------------------------------------------- report


@dataclass
class BulkReport:
    mode: str
    roots: list[Root]
    patch_dir: Path | None = None
    patches: dict[str, str] = field(default_factory=dict)  # root name -> patch path (display)
    branches: dict[str, str] = field(default_factory=dict)  # root name -> commit of its --branch
    branch_errors: dict[str, str] = field(default_factory=dict)  # root name -> why it has no branch
    committed_files: int = 0  # --branch: files committed to the new branches (the working tree is left alone)
    committed_fixes: int = 0  # --branch: the fixes in those files
    write_errors: dict[str, str] = field(default_factory=dict)  # root name -> message

    @classmethod
    def build(cls, request: "FixRequest", result: "RunResult") -> "BulkReport":
        roots = build_roots(request.paths, result.files, getattr(request, "all_paths", None))
        return cls(mode=request.mode, roots=roots, patch_dir=request.patch_dir)

    # ---------------------------------------------------------------- rows

    def rows(self) -> list[dict]:
        rows = []
        for root in self.roots:
            errors = root.errors + [
                failures[root.name] for failures in (self.write_errors, self.branch_errors) if root.name in failures
            ]
            rows.append(
                {
                    "root": root.label,
                    "name": root.name,
                    "files_scanned": len(root.scanned),
                    "files_changed": len(root.changed),
                    "fixes": root.fixes,
                    "fixes_total": sum(root.fixes.values()),
                    "fixes_not_applied": root.not_applied,
                    "diagnostics": root.diagnostics,
                    "errors": len(errors),
                    "error_messages": errors,
                    "patch": self.patches.get(root.name),
                    "branch": self.branches.get(root.name),
                }
            )
        return rows

    def totals(self) -> dict:
        rows = self.rows()
        fixes: Counter[str] = Counter()
        for row in rows:
            fixes.update(row["fixes"])
        return {
            "roots": len(rows),
            "files_scanned": sum(r["files_scanned"] for r in rows),
            "files_changed": sum(r["files_changed"] for r in rows),
            "fixes": dict(sorted(fixes.items())),
            "fixes_total": sum(fixes.values()),
            "diagnostics": sum(r["diagnostics"] for r in rows),
            "errors": sum(r["errors"] for r in rows),
        }

    # ---------------------------------------------------------------- renderings

    def add_to_json(self, text: str) -> str:
        payload = json.loads(text)
        payload["roots"] = self.rows()
        payload["roots_total"] = self.totals()
        return json.dumps(payload, indent=2, sort_keys=False) + "\n"

    def text_table(self) -> str:
        header = ["root", "files", "changed", "fixes", "diagnostics", "errors"]
        with_patch = self.patch_dir is not None
        if with_patch:
            header.append("patch")
        table = [header]
        for row in self.rows():
            cells = _cells(row["root"], row, _fixes_text(row["fixes"], " ") or "-")
            if with_patch:
                cells.append(row["patch"] or "-")
            table.append(cells)
        totals = self.totals()
        total_row = _cells(f"total ({plural(totals['roots'], 'root')})", totals, _fixes_text(totals["fixes"], " ") or "-")
        if with_patch:
            total_row.append(str(len(self.patches)))
        table.append(total_row)
        widths = [max(len(r[i]) for r in table) for i in range(len(header))]
        numeric = {1, 2, 4, 5}
        lines = []
        for n, row in enumerate(table):
            cells = [c.rjust(w) if i in numeric else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths))]
            lines.append("  ".join(cells).rstrip())
            if n == 0 or n == len(table) - 2:
                lines.append("  ".join("-" * w for w in widths))
        return "\n".join(lines) + "\n"

    def markdown(self) -> str:
        totals = self.totals()
        with_patch = self.patch_dir is not None
        out = [
            "# retrace-fix summary",
            "",
            f"Mode `{self.mode}`: {plural(totals['roots'], 'root')}, "
            f"{totals['files_scanned']} files scanned, {totals['files_changed']} changed, "
            f"{totals['fixes_total']} fixes, {totals['diagnostics']} diagnostics, {totals['errors']} errors.",
            "",
        ]
        header = ["root", "files scanned", "files changed", "fixes", "diagnostics", "errors"]
        align = [":--", "--:", "--:", ":--", "--:", "--:"]
        if with_patch:
            header.append("patch")
            align.append(":--")
        out.append("| " + " | ".join(header) + " |")
        out.append("|" + "|".join(align) + "|")
        for row in self.rows():
            cells = _cells(f"`{_md(row['root'])}`", row, _md(_fixes_text(row["fixes"], ", ", "×")) or "–")
            if with_patch:
                cells.append(f"`{_md(row['patch'])}`" if row["patch"] else "–")
            out.append("| " + " | ".join(cells) + " |")
        total_cells = _cells("**total**", totals, _md(_fixes_text(totals["fixes"], ", ", "×")) or "–")
        if with_patch:
            total_cells.append(plural(len(self.patches), "patch"))
        out.append("| " + " | ".join(f"**{c}**" if i and c != "–" else c for i, c in enumerate(total_cells)) + " |")
        if totals["fixes"]:
            from retrace_fix.codemods import all_codes

            codes = all_codes()  # code -> the codemod reporting it (its NAME is the rule's name)
            out += ["", "## Fixes by code", "", "| code | rule | fixes |", "|:--|:--|--:|"]
            for code, count in totals["fixes"].items():
                name = codes[code].NAME if code in codes else ""
                out.append(f"| {code} | {name} | {count} |")
        errors = [(row["root"], m) for row in self.rows() for m in row["error_messages"]]
        if errors:
            out += ["", "## Errors", ""]
            out += [f"- `{_md(root)}`: {_md(message)}" for root, message in errors]
        return "\n".join(out) + "\n"

    def write_markdown(self, path: Path) -> str | None:
        """Write the Markdown summary atomically; an error message instead of raising."""
        try:
            write_file(os.path.abspath(path), self.markdown().encode("utf-8"), make_parents=True)
        except WriteRefused as exc:
            return f"--summary {path}: not written: {exc}"
        except OSError as exc:
            return f"--summary {path}: cannot write: {exc.strerror or exc}"
        return None


def _cells(label: str, row: dict, fixes: str) -> list[str]:
    """A table row's cells: ``label``, then the numbers of a root's row (or of the totals), ``fixes`` as written."""
    return [label, str(row["files_scanned"]), str(row["files_changed"]), fixes, str(row["diagnostics"]), str(row["errors"])]


def _fixes_text(fixes: dict[str, int], sep: str, times: str = ":") -> str:
    return sep.join(f"{code}{' ' if times == '×' else ''}{times}{count}" for code, count in fixes.items())


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ").replace("`", "'")


def report_for(request: "FixRequest", result: "RunResult", report: BulkReport | None = None) -> BulkReport | None:
    """The per-root report (``report`` when given) if this run has one to show (several roots, or a bulk option)."""
    wants = (
        bool(getattr(request, "repos", None))
        or getattr(request, "summary", None) is not None
        or getattr(request, "shard", None) is not None
        or getattr(request, "branch", None) is not None
    )
    report = report if report is not None else BulkReport.build(request, result)
    if wants or request.patch_dir is not None or len(report.roots) > 1:
        return report
    return None


def finish_report(report: BulkReport | None, request: "FixRequest", err: IO[str], text: bool) -> list[str]:
    """Print the table (text format) and write ``--summary``; returns error messages."""
    if report is None:
        return []
    if text:
        err.write(report.text_table())
    summary = getattr(request, "summary", None)
    if summary is not None:
        failure = report.write_markdown(summary)
        if failure:
            err.write(f"retrace-fix: error: {failure}\n")
            return [failure]
    return []


# --------------------------------------------------------------------------- --patch-dir


def patch_bytes(root: Root) -> bytes:
    """The root's patch: every changed file, sorted by path, in the file's own encoding."""
    chunks = []
    for file_result in sorted(root.changed, key=root.relpath):
        diff = unified_diff(file_result.original or "", file_result.fixed or "", root.relpath(file_result), quoted=True)
        try:
            chunks.append(diff.encode(file_result.encoding))
        except (UnicodeEncodeError, LookupError):
            chunks.append(encode(diff))
    return b"".join(chunks)


def write_patch_dir(request: "FixRequest", result: "RunResult", report: BulkReport | None = None,
                    extend_json: "Callable[[str], str] | None" = None) -> int:
    """``--patch-dir DIR``: one ``<root-name>.patch`` per root with changes; no source file is touched.

    ``report`` holds the roots when the caller built them (a run of one task per root);
    ``extend_json`` adds to the JSON document (``--verify``'s proof).
    """
    from retrace_fix.output import render as output

    out, err = sys.stdout, sys.stderr
    if request.mode == "interactive":
        err.write("retrace-fix: error: --patch-dir and --interactive cannot be combined\n")
        return EXIT_ERROR
    report = report if report is not None else BulkReport.build(request, result)
    patch_dir = Path(request.patch_dir or ".")
    try:
        patch_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        err.write(f"retrace-fix: error: --patch-dir {patch_dir}: cannot create: {exc.strerror or exc}\n")
        return EXIT_ERROR
    if not patch_dir.is_dir():
        err.write(f"retrace-fix: error: --patch-dir {patch_dir}: not a directory\n")
        return EXIT_ERROR
    for root in report.roots:
        data = patch_bytes(root)
        if not data:
            continue
        target = patch_dir / f"{root.name}.patch"
        try:
            write_file(os.path.abspath(target), data)
        except WriteRefused as exc:
            report.write_errors[root.name] = f"{target}: patch not written: {exc}"
            continue
        except OSError as exc:
            report.write_errors[root.name] = f"{target}: cannot write the patch: {exc.strerror or exc}"
            continue
        report.patches[root.name] = display_path(Path(os.path.abspath(target)))

    fmt = request.output_format
    if fmt == "json":
        text = report.add_to_json(output.to_json(result, request.mode, include_diff=False))
        out.write(extend_json(text) if extend_json is not None else text)
    else:
        if request.mode == "check":
            output.write_findings(result, out)
        out.write(report.text_table())
        output.write_errors(result, err)
        for message in report.write_errors.values():
            err.write(f"error: {message}\n")
        if not request.quiet:
            totals = report.totals()
            n = len(report.patches)
            err.write(
                f"{plural(n, 'patch')} written to {display_path(Path(os.path.abspath(patch_dir)))}: "
                f"{plural(totals['files_changed'], 'file')} changed, {plural(totals['fixes_total'], 'fix')}, "
                f"{plural(totals['diagnostics'], 'diagnostic')}, {plural(len(result.errors), 'error')}\n"
            )
    failures = finish_report(report, request, err, text=False)
    if result.errors or report.write_errors or report.branch_errors or failures:
        return EXIT_ERROR
    if request.mode == "diff" and report.patches:
        return EXIT_FOUND
    if request.mode == "check" and result.findings:
        return EXIT_FOUND
    return EXIT_OK


__all__ = [
    "BulkError",
    "BulkReport",
    "finish_report",
    "patch_bytes",
    "read_repos_file",
    "report_for",
    "write_patch_dir",
]
