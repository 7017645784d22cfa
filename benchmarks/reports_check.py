"""Check retrace-fix against small programs rebuilt from public retracing reports.

Every case is a directory ``benchmarks/reports/<slug>/`` holding a program
(``main.py`` plus the modules it imports) and ``case.toml`` (where the report
is, the pattern, what a TF engineer did by hand, the trace counts; see
``benchmarks/reports/README.md``).  The hand-fixed program is either a
``hand_fix/`` directory (files that replace the program's) or a
``hand_fix.patch`` (``git apply`` format).

For each case, on temporary copies (each its own git root, so nothing outside
the copy is ever read as project or touched):

1. the original runs under ``retrace-fix record``: its output (``out.json`` if
   it writes one, else the JSON on its last stdout line), its exit code and
   the total traces of the project's tf.functions (``retrace-fix report
   --format json``, ``total_traces`` summed);
2. each *mode* fixes a fresh copy and records it again: ``default``
   (``retrace-fix --traces T .``), ``unsafe`` (``--unsafe-fixes``), ``verify``
   (``retrace-fix --verify --traces T . -- CMD``: only the fixes the program's
   own runs prove, in chained rounds; off unless ``--verify`` or ``--modes``);
3. the hand fix is recorded the same way (its figures are checked against
   ``case.toml``).

A fixed program is *broken* when it fails where the original ran, its output
differs (numbers within ``rtol``/``atol``) or it traces more than the
original.  *Noise* is any finding on a case marked ``retraces = false``.

::

    python benchmarks/reports_check.py [--only SLUG ...] [--jobs N] [--json FILE]
                                       [--modes default,unsafe] [--verify] [--keep DIR]

Exit code 1 when a default-tier or verify run broke a program, else 0 (2: bad arguments).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

HERE = Path(__file__).resolve().parent
CASES = HERE / "reports"
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import run_all  # noqa: E402  (benchmarks/run_all.py: the child environment)

from retrace_fix.bench.outputs import OutputError, compare_values, load_output  # noqa: E402

#: Files of a case that are not part of the program.
CASE_META = ("case.toml", "hand_fix", "hand_fix.patch", "README.md", "__pycache__", "out.json", ".retrace")
RUN_TIMEOUT = 300


# --------------------------------------------------------------------------- cases


@dataclass
class Case:
    slug: str
    path: Path
    meta: dict

    @property
    def retraces(self) -> bool:
        return bool(self.meta.get("retraces", True))

    @property
    def command(self) -> list[str]:
        return [sys.executable, self.meta.get("main", "main.py")]

    @property
    def rtol(self) -> float:
        return float(self.meta.get("rtol", 1e-4))

    @property
    def atol(self) -> float:
        return float(self.meta.get("atol", 1e-6))


def load_cases(only: list[str] | None = None, root: Path = CASES) -> list[Case]:
    found = sorted(p for p in root.iterdir() if (p / "case.toml").is_file())
    if only:
        unknown = sorted(set(only) - {p.name for p in found})
        if unknown:
            raise SystemExit(f"reports_check: unknown case {unknown[0]!r}")
        found = [p for p in found if p.name in only]
    return [Case(p.name, p, tomllib.loads((p / "case.toml").read_text(encoding="utf-8"))) for p in found]


# --------------------------------------------------------------------------- running


@dataclass
class Run:
    """One recorded run of a program tree."""

    exit_code: int
    traces: int | None  # total traces of the project's tf.functions (None: no trace file)
    per_function: dict[str, int] = field(default_factory=dict)
    output: object = None
    output_error: str | None = None
    stderr_tail: str = ""
    seconds: float = 0.0


def copy_program(case: Case, dest: Path) -> Path:
    shutil.copytree(case.path, dest, ignore=shutil.ignore_patterns(*CASE_META))
    _git_init(dest)
    return dest


def _git_init(directory: Path) -> None:
    # its own git root: the recorder and the fixer take the copy as the project
    subprocess.run(["git", "init", "-q", str(directory)], check=True, capture_output=True)


def _retrace_fix(*args: str) -> list[str]:
    return [sys.executable, "-m", "retrace_fix", *args]


def read_output(tree: Path, stdout: str) -> tuple[object, str | None]:
    out = tree / "out.json"
    if out.is_file():
        try:
            return load_output(out), None
        except OutputError as exc:
            return None, str(exc)
    lines = [line for line in stdout.splitlines() if line.strip()]
    if not lines:
        return None, "no output (no out.json, empty stdout)"
    try:
        return json.loads(lines[-1]), None
    except ValueError:
        return None, f"last stdout line is not JSON: {lines[-1][:80]!r}"


def trace_counts(trace_file: Path, cwd: Path) -> tuple[int | None, dict[str, int]]:
    if not trace_file.is_file():
        return None, {}
    result = subprocess.run(_retrace_fix("report", "--format", "json", str(trace_file)),
                            cwd=cwd, env=run_all._env(), capture_output=True, text=True)
    try:
        functions = json.loads(result.stdout)["functions"]
    except (ValueError, KeyError):
        return None, {}
    per_function = {f"{f['file']}::{f['qualname']}": f["total_traces"] for f in functions}
    return sum(per_function.values()), per_function


_ERROR_LINE = re.compile(r"^[\w.]*(Error|Exception|Exit|Interrupt)\b.*")


def error_line(stderr: str) -> str:
    """The exception line of a failed run (else its last stderr line)."""
    lines = [line.strip() for line in stderr.strip().splitlines() if line.strip()]
    errors = [line for line in lines if _ERROR_LINE.match(line)]
    return (errors or lines or [""])[-1][:300]


def record(case: Case, tree: Path, trace_file: Path) -> Run:
    start = time.monotonic()
    try:
        result = subprocess.run(_retrace_fix("record", "-o", str(trace_file), "--", *case.command),
                                cwd=tree, env=run_all._env(), capture_output=True, text=True, timeout=RUN_TIMEOUT)
        code, stdout, stderr = result.returncode, result.stdout, result.stderr
    except subprocess.TimeoutExpired as exc:
        code, stdout, stderr = 124, exc.stdout or "", f"timed out after {RUN_TIMEOUT} s"
        stdout = stdout.decode() if isinstance(stdout, bytes) else stdout
    traces, per_function = trace_counts(trace_file, tree)
    output, error = read_output(tree, stdout) if code == 0 else (None, None)
    tail = error_line(stderr) if code != 0 else ""
    return Run(code, traces, per_function, output, error, tail, round(time.monotonic() - start, 1))


# --------------------------------------------------------------------------- modes


@dataclass
class Outcome:
    """What one mode did to one case."""

    mode: str
    available: bool = True
    fix_exit: int | None = None
    applied: list[str] = field(default_factory=list)  # codes of applied fixes, one per fix
    diagnostics: list[str] = field(default_factory=list)  # codes of findings not applied
    messages: list[str] = field(default_factory=list)
    changed: bool = False
    run: Run | None = None
    broken: list[str] = field(default_factory=list)
    note: str = ""


def _findings(stdout: str) -> tuple[list[str], list[str], list[str]]:
    try:
        report = json.loads(stdout)
    except ValueError:
        return [], [], []
    applied, diagnostics, messages = [], [], []
    for entry in report.get("files", []):
        for finding in entry.get("findings", []):
            (applied if finding.get("applied") else diagnostics).append(finding["code"])
            messages.append(f"{finding.get('path')}:{finding.get('line')} {finding['code']} "
                            f"[{finding.get('tier')}{', applied' if finding.get('applied') else ''}] "
                            f"{finding.get('message', '')}")
    return applied, diagnostics, messages


def _fix_with(extra: list[str]) -> Callable[[Case, Path, Path], Outcome]:
    def fix(case: Case, tree: Path, traces: Path) -> Outcome:
        before = {p: p.read_bytes() for p in tree.rglob("*.py")}
        result = subprocess.run(_retrace_fix("--traces", str(traces), "--format", "json", *extra, "."),
                                cwd=tree, env=run_all._env(), capture_output=True, text=True)
        applied, diagnostics, messages = _findings(result.stdout)
        changed = any(p.read_bytes() != content for p, content in before.items() if p.exists())
        outcome = Outcome("", fix_exit=result.returncode, applied=applied, diagnostics=diagnostics,
                          messages=messages, changed=changed)
        if result.returncode not in (0, 1):
            outcome.note = f"retrace-fix exited {result.returncode}: {result.stderr.strip()[-300:]}"
        return outcome
    return fix


def verify_mode(case: Case, tree: Path, traces: Path) -> Outcome:
    """``retrace-fix --verify --traces T . -- CMD``: writes only the fixes the program's runs prove."""
    before = {p: p.read_bytes() for p in tree.rglob("*.py")}
    compare = ["--compare", "out.json"] if (tree.parent / "original" / "out.json").is_file() else []
    command = _retrace_fix("--verify", "--traces", str(traces), "--format", "json", "--rtol", str(case.rtol),
                           "--atol", str(case.atol), "--timeout", str(RUN_TIMEOUT), *compare, ".", "--", *case.command)
    try:
        result = subprocess.run(command, cwd=tree, env=run_all._env(), capture_output=True, text=True,
                                timeout=RUN_TIMEOUT * 10)
    except subprocess.TimeoutExpired:
        return Outcome("verify", fix_exit=124, note=f"retrace-fix --verify timed out after {RUN_TIMEOUT * 10} s")
    applied, diagnostics, messages = _findings(result.stdout)
    changed = any(p.read_bytes() != content for p, content in before.items() if p.exists())
    outcome = Outcome("verify", fix_exit=result.returncode, applied=applied, diagnostics=diagnostics,
                      messages=messages, changed=changed)
    try:
        verify = json.loads(result.stdout).get("verify") or {}
    except ValueError:
        verify = {}
    if result.returncode not in (0, 1):
        outcome.note = f"retrace-fix exited {result.returncode}: {result.stderr.strip()[-300:]}"
    elif verify:
        rejected = [f"{f['code']} {f['failure']}" for f in verify.get("fixes", []) if f["status"] == "rejected"]
        outcome.note = (f"{verify.get('verified', 0)}/{verify.get('candidates', 0)} verified in {verify.get('runs')} runs"
                        + (f"; rejected: {', '.join(rejected)}" if rejected else ""))
    return outcome


#: A mode fixes ``tree`` in place (given the original's traces) and says what it did.
MODES: dict[str, Callable[[Case, Path, Path], Outcome]] = {
    "default": _fix_with([]),
    "unsafe": _fix_with(["--unsafe-fixes"]),
    "verify": verify_mode,
}


def judge(case: Case, original: Run, fixed: Run) -> list[str]:
    """Why the fixed run counts as broken (empty: not broken)."""
    problems = []
    if original.exit_code != 0:  # nothing to keep: a fixed program can only do better
        return problems
    if fixed.exit_code != 0:
        problems.append(f"exit {fixed.exit_code}: {fixed.stderr_tail}")
        return problems
    if original.output_error is None:
        if fixed.output_error:
            problems.append(f"output: {fixed.output_error}")
        else:
            diffs = compare_values(original.output, fixed.output, case.rtol, case.atol)
            if diffs:
                problems.append("output differs: " + "; ".join(diffs[:2]))
    if original.traces is not None and fixed.traces is not None and fixed.traces > original.traces:
        problems.append(f"more traces: {original.traces} -> {fixed.traces}")
    return problems


# --------------------------------------------------------------------------- one case


def apply_hand_fix(case: Case, tree: Path) -> str | None:
    directory, patch = case.path / "hand_fix", case.path / "hand_fix.patch"
    if directory.is_dir():
        shutil.copytree(directory, tree, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__"))
        return None
    if patch.is_file():
        result = subprocess.run(["git", "apply", str(patch)], cwd=tree, capture_output=True, text=True)
        return None if result.returncode == 0 else f"git apply failed: {result.stderr.strip()}"
    return "no hand_fix/ or hand_fix.patch"


def check_case(case: Case, work: Path, modes: list[str]) -> dict:
    base = work / case.slug
    base.mkdir(parents=True)
    original_tree = copy_program(case, base / "original")
    traces = base / "original.traces.json"
    original = record(case, original_tree, traces)
    result: dict = {"case": case.slug, "source": case.meta.get("source", ""), "pattern": case.meta.get("pattern", ""),
                    "retraces": case.retraces, "original": asdict(original), "modes": {}, "problems": []}
    if original.exit_code != 0 and not case.meta.get("original_fails"):
        result["problems"].append(f"the original failed (exit {original.exit_code}): {original.stderr_tail[-300:]}")
    if original.exit_code == 0 and case.meta.get("original_fails"):
        result["problems"].append("case.toml says the original fails, but it ran")
    if original.output_error:
        result["problems"].append(f"the original's output: {original.output_error}")
    expected = case.meta.get("traces_before")
    if expected is not None and original.traces != expected:
        result["problems"].append(f"traces before {original.traces}, case.toml says {expected}")

    fixed_texts: dict[str, tuple[dict, Outcome]] = {}
    for mode in modes:
        tree = copy_program(case, base / mode)
        outcome = MODES[mode](case, tree, traces)
        outcome.mode = mode
        if outcome.available:
            snapshot = {str(p.relative_to(tree)): p.read_bytes() for p in sorted(tree.rglob("*.py"))}
            same = next((o for s, o in fixed_texts.values() if s == snapshot), None)
            if same is not None and same.run is not None:  # identical tree: same run
                outcome.run, outcome.broken = same.run, list(same.broken)
            elif not outcome.changed:
                outcome.run, outcome.broken = original, []
            else:
                outcome.run = record(case, tree, base / f"{mode}.traces.json")
                outcome.broken = judge(case, original, outcome.run)
            fixed_texts[mode] = (snapshot, outcome)
        result["modes"][mode] = asdict(outcome)

    hand_tree = copy_program(case, base / "hand_fix")
    problem = apply_hand_fix(case, hand_tree)
    if problem:
        result["problems"].append(f"hand fix: {problem}")
        result["hand_fix"] = None
    else:
        hand = record(case, hand_tree, base / "hand_fix.traces.json")
        result["hand_fix"] = asdict(hand)
        broken = judge(case, original, hand)
        if broken:
            result["problems"].append("hand fix: " + "; ".join(broken))
        expected = case.meta.get("traces_hand_fix")
        if expected is not None and hand.traces != expected:
            result["problems"].append(f"hand-fix traces {hand.traces}, case.toml says {expected}")
    return result


# --------------------------------------------------------------------------- summary


def _traces(mode: dict | None) -> str:
    if not mode or not mode.get("available", True):
        return "n/a"
    run = mode.get("run") or {}
    if run.get("exit_code"):
        return f"CRASH({run['exit_code']})"
    return "?" if run.get("traces") is None else str(run["traces"])


def _codes(mode: dict | None) -> str:
    if not mode or not mode.get("available", True):
        return ""
    applied = sorted(set(mode["applied"]))
    diagnostics = sorted(set(mode["diagnostics"]))
    text = ",".join(applied) or "-"
    if diagnostics:
        text += " (diag " + ",".join(diagnostics) + ")"
    return text


def _short(text: str, limit: int = 70) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


FIGURE_MODES = ("default", "unsafe", "verify")


def totals(results: list[dict]) -> dict:
    figures = {"cases": len(results), "broken_default": [], "broken_unsafe": [], "at_hand_fix_default": [],
               "at_hand_fix_unsafe": [], "improved_default": [], "improved_unsafe": [], "noise": [],
               "case_problems": [], "traces_before": 0, "traces_default": 0, "traces_unsafe": 0, "traces_hand_fix": 0}
    if any("verify" in r["modes"] for r in results):
        figures.update(broken_verify=[], at_hand_fix_verify=[], improved_verify=[], traces_verify=0)
    for r in results:
        if r["original"]["exit_code"] != 0:  # no baseline: counted in broken/improved/at the hand fix only
            hand = (r.get("hand_fix") or {}).get("traces")
            for mode in FIGURE_MODES:
                m = r["modes"].get(mode)
                run = (m or {}).get("run") or {}
                if m and not m["broken"] and run and not run.get("exit_code"):
                    figures[f"improved_{mode}"].append(r["case"])
                    if hand is not None and run.get("traces") is not None and run["traces"] <= hand:
                        figures[f"at_hand_fix_{mode}"].append(r["case"])
            continue
        before = r["original"]["traces"] or 0
        hand = (r.get("hand_fix") or {}).get("traces")
        figures["traces_before"] += before
        figures["traces_hand_fix"] += hand if hand is not None else before
        if r["problems"]:
            figures["case_problems"].append(r["case"])
        for mode in FIGURE_MODES:
            m = r["modes"].get(mode)
            if not m:
                continue
            run = m.get("run") or {}
            after = run.get("traces") if not run.get("exit_code") else None
            figures[f"traces_{mode}"] += after if after is not None else before
            if m["broken"]:
                figures[f"broken_{mode}"].append(r["case"])
                continue
            if after is not None and after < before:
                figures[f"improved_{mode}"].append(r["case"])
            if after is not None and hand is not None and after <= hand:
                figures[f"at_hand_fix_{mode}"].append(r["case"])
        default = r["modes"].get("default")
        if default and not r["retraces"] and (default["applied"] or default["diagnostics"]):
            figures["noise"].append(r["case"])
    return figures


def render(results: list[dict], figures: dict) -> str:
    with_verify = "broken_verify" in figures
    header = ["case", "before", "default", "unsafe", "hand fix", "outputs same?", "broken?", "codes (default / unsafe)"]
    if with_verify:
        header[4:4] = ["verify"]
        header[-1] = "codes (default / unsafe / verify)"
    rows = []
    for r in results:
        modes = r["modes"]
        hand = r.get("hand_fix") or {}
        broken = [f"{m}: {_short('; '.join(v['broken']))}" for m, v in modes.items() if v.get("broken")]
        same = "yes" if not any("output" in b for v in modes.values() for b in v.get("broken", [])) else "NO"
        if r["original"]["exit_code"] != 0:
            same = "n/a"
        row = [
            r["case"] + ("" if r["retraces"] else " (no retrace)"),
            str(r["original"]["traces"]) if r["original"]["exit_code"] == 0 else f"CRASH({r['original']['exit_code']})",
            _traces(modes.get("default")), _traces(modes.get("unsafe")),
            "?" if hand.get("traces") is None else str(hand["traces"]),
            same, "; ".join(broken) or "no",
            f"{_codes(modes.get('default'))} / {_codes(modes.get('unsafe'))}",
        ]
        if with_verify:
            row[4:4] = [_traces(modes.get("verify"))]
            row[-1] += f" / {_codes(modes.get('verify'))}"
        rows.append(row)
    widths = [max(len(h), *(len(row[i]) for row in rows)) if rows else len(h) for i, h in enumerate(header)]
    lines = [" | ".join(h.ljust(w) for h, w in zip(header, widths)), "-+-".join("-" * w for w in widths)]
    lines += [" | ".join(c.ljust(w) for c, w in zip(row, widths)) for row in rows]
    n = figures["cases"]
    lines += [
        "",
        f"TOTAL {n} cases; traces (cases whose original runs): before {figures['traces_before']}, default {figures['traces_default']}, "
        f"unsafe {figures['traces_unsafe']}, hand fix {figures['traces_hand_fix']}",
        f"broken by the default run: {len(figures['broken_default'])} {figures['broken_default'] or ''} (must be 0)",
        f"broken by --unsafe-fixes: {len(figures['broken_unsafe'])} {figures['broken_unsafe'] or ''}",
        f"at the hand fix's level: default {len(figures['at_hand_fix_default'])}/{n}, "
        f"unsafe {len(figures['at_hand_fix_unsafe'])}/{n}",
        f"improved (fewer traces, not broken): default {len(figures['improved_default'])}, "
        f"unsafe {len(figures['improved_unsafe'])}",
        f"noise on programs that do not retrace: {len(figures['noise'])} {figures['noise'] or ''}",
    ]
    if with_verify:
        lines[-4:-4] = [
            f"broken by --verify: {len(figures['broken_verify'])} {figures['broken_verify'] or ''} (must be 0); "
            f"traces with --verify {figures['traces_verify']}; at the hand fix's level {len(figures['at_hand_fix_verify'])}/{n}; "
            f"improved {len(figures['improved_verify'])}",
        ]
    problems = [(r["case"], p) for r in results for p in r["problems"]]
    if problems:
        lines += ["", "case problems (the corpus, not the tool):"] + [f"  {c}: {p}" for c, p in problems]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", metavar="SLUG", help="only these cases")
    parser.add_argument("--jobs", type=int, default=1, help="cases checked in parallel (default 1)")
    parser.add_argument("--json", type=Path, help="write every result and the totals as JSON")
    parser.add_argument("--modes", default="default,unsafe", help="comma list of modes (default: default,unsafe)")
    parser.add_argument("--verify", action="store_true", help="also run the verify mode (retrace-fix --verify)")
    parser.add_argument("--keep", type=Path, help="work in this directory and keep it (default: a temporary one)")
    parser.add_argument("--cases", type=Path, default=CASES, help=argparse.SUPPRESS)
    options = parser.parse_args(argv)
    modes = [m.strip() for m in options.modes.split(",") if m.strip()] + (["verify"] if options.verify else [])
    unknown = [m for m in modes if m not in MODES]
    if unknown or options.jobs < 1:
        parser.error(f"unknown mode {unknown[0]!r} (have: {', '.join(MODES)})" if unknown else "--jobs must be >= 1")
    cases = load_cases(options.only, options.cases)
    if options.keep:
        options.keep.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="retrace-fix-reports-", dir=options.keep) as work:
        def one(case: Case) -> dict:
            print(f"reports_check: {case.slug} ...", file=sys.stderr, flush=True)
            return check_case(case, Path(work), modes)
        with concurrent.futures.ThreadPoolExecutor(max_workers=options.jobs) as pool:
            results = list(pool.map(one, cases))
        if options.keep:
            shutil.copytree(work, options.keep / "last", dirs_exist_ok=True)
    figures = totals(results)
    print(render(results, figures))
    if options.json:
        options.json.write_text(json.dumps({"results": results, "totals": figures}, indent=2, default=str) + "\n",
                                encoding="utf-8")
    return 1 if figures["broken_default"] or figures.get("broken_verify") else 0


if __name__ == "__main__":
    sys.exit(main())
