"""Corpus check: run retrace-fix over real trees and prove it is safe to point at them.

For every TREE given on the command line (a checkout of some repository; never
commit their code):

1. ``retrace-fix --diff --check-syntax --format json`` on the tree as it is: files,
   lines, files that do not parse (reported and skipped, not crashes), files that would change,
   fixes and diagnostics by code, time.  A crash is an exit code other than 0/1/2,
   a traceback on stderr, or an ``internal error`` message.
2. The tree is copied to a temporary directory and fixed in place there
   (``retrace-fix`` without ``--diff``).  Every file the first run said would change
   must now differ from the original and still parse (LibCST and CPython's own
   parser when the original passed it); every other file of the copy must be
   byte-identical to the original; the result must equal what ``--diff`` showed.
3. ``retrace-fix --diff`` again on the fixed copy: the diff must be empty and no
   fix may be offered again (idempotence).
4. Notebooks (``.ipynb``): a changed one must still read (every cell parses), be
   valid for ``nbformat`` (where installed, when the original was) and keep its
   outputs and metadata (everything but the code cells' ``source``); what was
   written must be what ``--diff`` showed per cell; and the findings must be those
   of the same cells read as one script (the notebook's Python text run as a
   ``.py`` file), located in the same cells.  Notebooks with an error are counted
   by kind: *refused* (nothing of it could be analysed: not JSON, an nbformat the
   tool cannot read), *with a cell left out* (a code cell that is not Python --
   an unfinished exercise, R pasted in, an unknown cell magic -- is named and left
   out, the other cells are analysed and compared as above, the notebook is not
   written) and any other error (a fix that could not be written back).  A notebook
   whose kernel runs another language (R, Julia) is skipped, not counted.

With ``--unsafe-fixes`` the unsafe tier is applied as well (more rewrites, more to
check).  ``--check-prefilter`` also runs the engine in-process with the prefilter
off (every file parsed and given to every codemod) and requires the same findings
and the same fixed text for every file; ``--baseline DIR`` runs a different
checkout of retrace-fix (e.g. before a speed change) on the same tree and requires
the same findings and diffs.  Exit status 1 when any check fails.  Usage::

    python benchmarks/corpus.py TREE [TREE...] [--jobs N] [--unsafe-fixes]
        [--check-prefilter] [--baseline DIR] [--json FILE] [--keep DIR]
"""

from __future__ import annotations

import argparse
import ast
import collections
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CLI = [sys.executable, "-m", "retrace_fix"]


def run_cli(args: list[str], cwd: Path, pythonpath: Path = ROOT) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(pythonpath) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.pop("RETRACE_FIX_TRACES", None)
    return subprocess.run([*CLI, *args], cwd=cwd, env=env, capture_output=True, text=True)


def python_files(tree: Path) -> list[Path]:
    from retrace_fix.sources.discovery import discover

    return discover([str(tree)], []).files


def crash_signs(proc: subprocess.CompletedProcess) -> list[str]:
    signs = []
    if proc.returncode not in (0, 1, 2):
        signs.append(f"exit code {proc.returncode}")
    if "Traceback (most recent call last)" in proc.stderr:
        signs.append("traceback on stderr: " + proc.stderr.strip().splitlines()[-1][:300])
    return signs


def parses(text: str, strict: bool) -> str | None:
    """Why ``text`` does not parse (LibCST; with ``strict`` also CPython), else None."""
    import libcst as cst

    try:
        cst.parse_module(text)
    except Exception as exc:  # noqa: BLE001 - any failure is the finding
        return f"LibCST: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
    if strict:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                ast.parse(text)
            except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
                return f"CPython: {type(exc).__name__}: {exc}"
    return None


def decode(data: bytes) -> str:
    from retrace_fix.engine.prefilter import decode_source

    return decode_source(data)[0]


def cpython_accepts(data: bytes) -> bool:
    try:
        text = decode(data)
    except Exception:  # noqa: BLE001
        return False
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            ast.parse(text)
        except Exception:  # noqa: BLE001
            return False
    return True


def snapshot(tree: Path) -> dict[str, bytes]:
    """Every regular file under ``tree`` (relative POSIX path -> bytes); links are not followed."""
    files = {}
    for dirpath, dirnames, filenames in os.walk(tree):
        dirnames.sort()
        for name in sorted(filenames):
            path = Path(dirpath) / name
            if path.is_symlink() or not path.is_file():
                continue
            try:
                files[path.relative_to(tree).as_posix()] = path.read_bytes()
            except OSError:
                continue
    return files


def summarise(payload: dict) -> dict:
    fixes: collections.Counter = collections.Counter()
    available: collections.Counter = collections.Counter()
    diagnostics: collections.Counter = collections.Counter()
    errors = {"parse": [], "read": [], "internal": [], "other": []}
    changed = []
    for entry in payload["files"]:
        if entry.get("changed"):
            changed.append(entry["path"])
        for finding in entry["findings"]:
            if finding["tier"] == "diagnostic":
                diagnostics[finding["code"]] += 1
            elif finding["applied"]:
                fixes[finding["code"]] += 1
            else:
                available[finding["code"]] += 1
        error = entry.get("error")
        if error:
            if "internal error" in error:
                errors["internal"].append(error)
            elif "cannot parse" in error:
                errors["parse"].append(error)
            elif "cannot read" in error or "cannot decode" in error:
                errors["read"].append(error)
            else:
                errors["other"].append(error)
    return {
        "changed": sorted(changed),
        "fixes": dict(sorted(fixes.items())),
        "not_applied": dict(sorted(available.items())),
        "diagnostics": dict(sorted(diagnostics.items())),
        "errors": errors,
    }


def findings_key(payload: dict) -> list:
    return sorted(
        (e["path"], f["line"], f["column"], f["code"], f["tier"], f["applied"], f["message"])
        for e in payload["files"]
        for f in e["findings"]
    )


def diffs_key(payload: dict) -> dict:
    return {e["path"]: e.get("diff", "") for e in payload["files"] if e.get("changed")}


def check_tree(tree: Path, options: argparse.Namespace, workdir: Path) -> dict:
    name = tree.name
    report: dict = {"tree": str(tree), "name": name, "problems": []}
    problems: list[str] = report["problems"]
    listed = python_files(tree)
    report["files"] = len(listed)
    report["lines"] = sum(p.read_bytes().count(b"\n") for p in listed if p.is_file())
    common = ["--format", "json", "--jobs", str(options.jobs)] + (["--unsafe-fixes"] if options.unsafe_fixes else [])
    # every file's syntax is checked (by default a file that cannot hold a target is never parsed)
    checked = ["--check-syntax", *common]

    # 1. --diff on the original tree
    before = snapshot(tree)
    start = time.perf_counter()
    first = run_cli(["--diff", *checked, "."], cwd=tree)
    report["seconds"] = round(time.perf_counter() - start, 2)
    problems += [f"first run: {s}" for s in crash_signs(first)]
    try:
        payload = json.loads(first.stdout)
    except json.JSONDecodeError:
        problems.append(f"first run: no JSON on stdout (exit {first.returncode}): {first.stderr[-500:]}")
        return report
    summary = summarise(payload)
    report.update(
        files_changed=len(summary["changed"]),
        fixes=summary["fixes"],
        not_applied=summary["not_applied"],
        diagnostics=summary["diagnostics"],
        parse_failures=summary["errors"]["parse"],
        read_failures=summary["errors"]["read"],
        other_errors=summary["errors"]["other"],
        exit_code=first.returncode,
    )
    problems += [f"crash: {e}" for e in summary["errors"]["internal"]]
    if snapshot(tree) != before:
        problems.append("the --diff run modified the original tree")
    expected = {e["path"]: e for e in payload["files"] if e.get("changed")}

    # 2. fix a copy in place
    copy = workdir / name
    shutil.copytree(tree, copy, symlinks=True)
    fixed_run = run_cli([*checked, "."], cwd=copy)
    problems += [f"fix run: {s}" for s in crash_signs(fixed_run)]
    after = snapshot(copy)
    changed_paths = {path for path in set(before) | set(after) if before.get(path) != after.get(path)}
    expected_paths = set(expected)
    for path in sorted(changed_paths - expected_paths):
        problems.append(f"{path}: changed on disk although --diff showed no change")
    for path in sorted(expected_paths - changed_paths):
        problems.append(f"{path}: --diff showed a change that the fix run did not write")
    from retrace_fix.patch.diffs import unified_diff

    for path in sorted(changed_paths & expected_paths):
        if path.endswith(".ipynb"):
            problems += notebook_problems(path, before[path], after[path], expected[path].get("diff"))
            continue
        try:
            new_text = decode(after[path])
            old_text = decode(before[path])
        except Exception as exc:  # noqa: BLE001
            problems.append(f"{path}: the fixed file cannot be decoded ({exc})")
            continue
        why = parses(new_text, strict=cpython_accepts(before[path]))
        if why:
            problems.append(f"{path}: the fixed file does not parse: {why}")
        if unified_diff(old_text, new_text, path, quoted=False) != expected[path].get("diff"):
            problems.append(f"{path}: what was written differs from the --diff output")

    # 3. second run on the fixed copy: nothing left to do
    second = run_cli(["--diff", *checked, "."], cwd=copy)
    problems += [f"second run: {s}" for s in crash_signs(second)]
    try:
        again = json.loads(second.stdout)
    except json.JSONDecodeError:
        problems.append(f"second run: no JSON on stdout (exit {second.returncode})")
        again = {"files": []}
    for entry in again["files"]:
        if entry.get("changed"):
            problems.append(f"{entry['path']}: not idempotent, the second run changes it again")
        elif any(f["applied"] for f in entry["findings"]):
            problems.append(f"{entry['path']}: not idempotent, the second run offers a fix again")
    report["second_run_changed"] = sum(1 for e in again["files"] if e.get("changed"))

    # 4. notebooks: the findings of their cells read as one script
    notebooks = [p for p in listed if p.suffix == ".ipynb"]
    if notebooks:
        report["notebooks"] = compare_notebooks_with_scripts(tree, notebooks, payload, options, problems)
        report["notebooks"]["changed"] = sum(1 for path in expected if path.endswith(".ipynb"))
        report["notebooks"]["unchanged_identical"] = sum(
            1 for path in before if path.endswith(".ipynb") and path not in expected and after.get(path) == before[path])
        report["notebooks"].update(notebook_errors(tree, payload))

    # optional: the prefilter loses nothing
    if options.check_prefilter:
        report["prefilter"] = compare_prefilter(tree, options, problems)
    # optional: the same findings as another checkout
    if options.baseline:
        base = run_cli(["--diff", *common, "."], cwd=tree, pythonpath=Path(options.baseline).resolve())
        problems += [f"baseline run: {s}" for s in crash_signs(base)]
        try:
            base_payload = json.loads(base.stdout)
        except json.JSONDecodeError:
            problems.append("baseline run: no JSON on stdout")
        else:
            if findings_key(base_payload) != findings_key(payload):
                problems.append("baseline: different findings")
            if diffs_key(base_payload) != diffs_key(payload):
                problems.append("baseline: different diffs")
            report["baseline_findings"] = len(findings_key(base_payload))
    if not options.keep:
        shutil.rmtree(copy, ignore_errors=True)
    return report


def notebook_problems(path: str, old: bytes, new: bytes, shown_diff: str | None) -> list[str]:
    """What is wrong with a notebook the fix run changed (nothing: [])."""
    from retrace_fix.notebooks.notebook import NotebookError, cell_diff, read_notebook, validation_problem

    problems = []
    old_text, new_text = old.decode("utf-8"), new.decode("utf-8")
    try:
        read_notebook(new_text).require_every_cell()
    except NotebookError as exc:
        problems.append(f"{path}: the fixed notebook does not read: {exc.location(path)}: {exc.message}")
    invalid = validation_problem(new_text)
    if invalid and not validation_problem(old_text):
        problems.append(f"{path}: the fixed notebook is not valid: {invalid}")
    before, after = json.loads(old_text), json.loads(new_text)
    for cell in [*before.get("cells", []), *after.get("cells", [])]:
        if cell.get("cell_type") == "code":
            cell.pop("source", None)
    if before != after:
        problems.append(f"{path}: the fix changed more than the code cells' source (outputs, metadata or cells)")
    if cell_diff(old_text, new_text, path) != shown_diff:
        problems.append(f"{path}: what was written differs from the --diff output")
    return problems


def notebook_errors(tree: Path, payload: dict) -> dict[str, list[str]]:
    """The notebooks the run reported an error for, by kind: ``refused`` (nothing of it read),
    ``cell_left_out`` (a code cell that is not Python left out, the others analysed), ``other``."""
    from retrace_fix.notebooks.notebook import NotebookError, read_notebook

    kinds: dict[str, list[str]] = {"refused": [], "cell_left_out": [], "other_errors": []}
    for entry in payload["files"]:
        if not entry["path"].endswith(".ipynb") or not entry.get("error"):
            continue
        try:
            notebook = read_notebook((tree / entry["path"]).read_bytes())
        except (OSError, NotebookError):
            kind = "refused"
        else:
            kind = "cell_left_out" if notebook.broken else "other_errors"
        kinds[kind].append(entry["error"])
    return {kind: sorted(errors) for kind, errors in kinds.items()}


def compare_notebooks_with_scripts(tree: Path, notebooks: list[Path], payload: dict, options: argparse.Namespace,
                                   problems: list[str]) -> dict:
    """The findings of each notebook against those of its cells read as one script (the same Python
    text given to the engine as a ``.py`` file), located back into cells."""
    from retrace_fix.engine.options import FileJob, RunOptions
    from retrace_fix.engine.process import process_file
    from retrace_fix.notebooks.notebook import NotebookError, is_python_notebook, read_notebook

    by_path = {e["path"]: e for e in payload["files"]}
    opts = RunOptions(unsafe_fixes=options.unsafe_fixes)
    compared = findings = other_language = 0
    cwd = os.getcwd()
    os.chdir(tree)
    try:
        for path in notebooks:
            rel = path.relative_to(tree).as_posix()
            try:
                data = path.read_bytes()
                notebook = read_notebook(data)
            except (OSError, NotebookError):
                continue  # refused: the notebook run reports it (notebook_errors counts it)
            if not is_python_notebook(data.decode("utf-8")):
                other_language += 1
                if by_path.get(rel, {}).get("findings") or by_path.get(rel, {}).get("error"):
                    problems.append(f"{rel}: a notebook of another language was not skipped")
                continue
            script = process_file(FileJob(path=Path(rel).with_suffix(".py"), display=rel, relpath=rel,
                                          data=notebook.python.encode("utf-8")), opts)
            if script.error:
                if not by_path.get(rel, {}).get("error"):
                    problems.append(f"{rel}: its cells read as a script are an error, the notebook is not: "
                                    f"{script.error}")
                continue
            compared += 1
            expected = sorted(
                (f.code, *notebook.locate(f.line), f.column + notebook.column_offset(f.line) + 1, f.applied)
                for f in script.findings)
            if notebook.broken:  # a notebook with a cell left out is never written: no fix of it is applied
                expected = sorted((*key[:-1], False) for key in expected)
            found = sorted((f["code"], f["cell"], f["line"], f["column"], f["applied"])
                           for f in by_path.get(rel, {}).get("findings", []))
            findings += len(found)
            if found != expected:
                problems.append(f"{rel}: findings differ from its cells read as a script: {found} != {expected}")
    finally:
        os.chdir(cwd)
    return {"files": len(notebooks), "skipped_other_language": other_language, "compared_with_scripts": compared,
            "findings": findings}


def compare_prefilter(tree: Path, options: argparse.Namespace, problems: list[str]) -> dict:
    from retrace_fix.engine.options import RunOptions
    from retrace_fix.engine.run import run

    files = python_files(tree)
    cwd = os.getcwd()
    os.chdir(tree)
    try:
        results = {}
        for prefilter in (True, False):
            opts = RunOptions(unsafe_fixes=options.unsafe_fixes, prefilter=prefilter)
            start = time.perf_counter()
            outcome = run(files, opts, jobs=options.jobs)
            results[prefilter] = (outcome, time.perf_counter() - start)
    finally:
        os.chdir(cwd)
    filtered, unfiltered = results[True][0], results[False][0]
    by_path = {r.path: r for r in unfiltered.files}
    parsed = 0
    for result in filtered.files:
        other = by_path.get(result.path)
        if other is None:
            continue
        if not result.skipped:
            parsed += 1
        if [f.to_json() for f in result.findings] != [f.to_json() for f in other.findings]:
            problems.append(f"{result.path}: the prefilter changes the findings")
        if (result.fixed if result.changed else None) != (other.fixed if other.changed else None):
            problems.append(f"{result.path}: the prefilter changes the fixed text")
        if bool(result.error) != bool(other.error) and "cannot parse" not in (result.error or other.error or ""):
            problems.append(f"{result.path}: the prefilter changes the error ({result.error} / {other.error})")
    return {
        "parsed_with_prefilter": parsed,
        "seconds_with_prefilter": round(results[True][1], 2),
        "seconds_without_prefilter": round(results[False][1], 2),
        "findings": len(filtered.findings),
    }


def baseline_problem(checkout: Path) -> str | None:
    """Why ``checkout`` cannot be run as the baseline, else None.  The codemods live in
    ``codemods/`` and are installed as ``retrace_fix.codemods``: on PYTHONPATH a checkout
    without the link ``retrace_fix/codemods -> ../codemods`` would take the *installed*
    codemods, and the comparison would run a mix of the two."""
    if not (checkout / "retrace_fix" / "cli.py").is_file():
        return "not a retrace-fix checkout"
    if (checkout / "codemods").is_dir() and not (checkout / "retrace_fix" / "codemods").exists():
        return (
            "retrace_fix/codemods is missing: link it (ln -s ../codemods retrace_fix/codemods), "
            "or the installed codemods would be mixed into the baseline"
        )
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="+", type=Path)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--unsafe-fixes", action="store_true", help="apply the unsafe tier too")
    parser.add_argument("--check-prefilter", action="store_true", help="compare with the prefilter off")
    parser.add_argument("--baseline", default=None, help="another retrace-fix checkout to compare with")
    parser.add_argument("--json", dest="json_out", default=None, help="write the figures here")
    parser.add_argument("--keep", default=None, help="keep the fixed copies in this directory")
    options = parser.parse_args(argv)
    if options.baseline:
        problem = baseline_problem(Path(options.baseline))
        if problem:
            print(f"--baseline {options.baseline}: {problem}", file=sys.stderr)
            return 2

    reports = []
    with tempfile.TemporaryDirectory(prefix="retrace-corpus-") as tmp:
        workdir = Path(options.keep) if options.keep else Path(tmp)
        workdir.mkdir(parents=True, exist_ok=True)
        for tree in options.trees:
            if not tree.is_dir():
                print(f"{tree}: not a directory", file=sys.stderr)
                return 2
            report = check_tree(tree.resolve(), options, workdir)
            reports.append(report)
            print_report(report)

    totals = {
        "trees": len(reports),
        "files": sum(r.get("files", 0) for r in reports),
        "lines": sum(r.get("lines", 0) for r in reports),
        "parse_failures": sum(len(r.get("parse_failures", [])) for r in reports),
        "read_failures": sum(len(r.get("read_failures", [])) for r in reports),
        "files_changed": sum(r.get("files_changed", 0) for r in reports),
        "seconds": round(sum(r.get("seconds", 0) for r in reports), 1),
        "problems": sum(len(r["problems"]) for r in reports),
    }
    for key in ("fixes", "not_applied", "diagnostics"):
        counter: collections.Counter = collections.Counter()
        for r in reports:
            counter.update(r.get(key, {}))
        totals[key] = dict(sorted(counter.items()))
    print(
        f"TOTAL {totals['trees']} trees, {totals['files']} files, {totals['lines']} lines: "
        f"{totals['parse_failures']} parse failures, {totals['read_failures']} unreadable, "
        f"{totals['files_changed']} files changed, fixes {totals['fixes']}, "
        f"diagnostics {totals['diagnostics']}, {totals['seconds']} s; "
        f"{totals['problems']} problems"
    )
    if options.json_out:
        Path(options.json_out).write_text(json.dumps({"totals": totals, "trees": reports}, indent=2) + "\n")
    return 1 if totals["problems"] else 0


def print_report(report: dict) -> None:
    print(
        f"{report['name']}: {report.get('files', 0)} files, {report.get('lines', 0)} lines, "
        f"{len(report.get('parse_failures', []))} parse failures, {report.get('files_changed', 0)} changed, "
        f"fixes {report.get('fixes', {})}, diagnostics {report.get('diagnostics', {})}, "
        f"{report.get('seconds', 0)} s, exit {report.get('exit_code')}"
    )
    for failure in report.get("parse_failures", []):
        print(f"    reported: {failure}")
    for problem in report["problems"]:
        print(f"    PROBLEM: {problem}")
    if "prefilter" in report:
        print(f"    prefilter: {report['prefilter']}")
    if "notebooks" in report:
        nb = report["notebooks"]
        print(f"    notebooks: {nb['files']} files, {nb['skipped_other_language']} of another language (skipped), "
              f"{len(nb['refused'])} refused, {len(nb['cell_left_out'])} with a cell left out, "
              f"{len(nb['other_errors'])} other errors, {nb['changed']} changed, "
              f"{nb['unchanged_identical']} unchanged and byte-identical after the write run, {nb['findings']} findings, "
              f"{nb['compared_with_scripts']} compared with their cells read as a script")
        for kind in ("refused", "cell_left_out", "other_errors"):
            for error in nb[kind]:
                print(f"    {kind.replace('_', ' ')}: {error}")


if __name__ == "__main__":
    sys.exit(main())
