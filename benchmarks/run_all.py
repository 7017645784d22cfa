"""Run every benchmark program through ``retrace-fix bench`` and write ``docs/results.md``.

Each scenario is a directory ``benchmarks/programs/<name>/`` holding a small
program (``drive.py`` plus the module it imports) and ``expected.json``::

    {"title": "...", "seed": "004 test 2",
     "record_first": true,              # trace-driven: record first, then bench --traces
     "bench_args": ["--compare", "out.json"],
     "traces_before": 5,                # total traces of the original (omit when it fails)
     "before_fails": false,             # the original is expected to fail (e.g. predict in tf.function)
     "traces_after": 1,                 # total traces after the fix (what a careful hand fix gets)
     "fixes": ["RTF003"],               # codes expected among the applied fixes
     "why": "..."}

The scenario is copied to a temporary directory (its own project root, so
that nothing else in this repository is copied or fixed), recorded with
``retrace-fix record`` when ``record_first`` is set, and benchmarked with
``retrace-fix bench --format json``.  The Markdown table marks the machine
(CPU model, cores, TensorFlow version)::

    python benchmarks/run_all.py [--runs 3] [--only NAME ...] [--output docs/results.md] [--json FILE]
    python benchmarks/run_all.py --from-json FILE      # re-render the Markdown of a saved run

Exit code 0 when every scenario matched its expectations, 1 otherwise.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
PROGRAMS = HERE / "programs"
DEFAULT_OUTPUT = REPO / "docs" / "results.md"


def scenarios(only: list[str] | None = None) -> list[Path]:
    found = sorted(p for p in PROGRAMS.iterdir() if (p / "expected.json").is_file())
    if only:
        unknown = sorted(set(only) - {p.name for p in found})
        if unknown:
            raise SystemExit(f"run_all: unknown scenario {unknown[0]!r} (have: {', '.join(p.name for p in found)})")
        found = [p for p in found if p.name in only]
    return found


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RETRACE_FIX_")}
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    # make `python -m retrace_fix` work from a checkout that is not installed
    env["PYTHONPATH"] = str(REPO) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def run_scenario(directory: Path, runs: int, work: Path) -> dict:
    """Record (if asked) and bench one scenario; returns the bench JSON plus our checks."""
    expected = json.loads((directory / "expected.json").read_text(encoding="utf-8"))
    project = work / directory.name
    shutil.copytree(directory, project, ignore=shutil.ignore_patterns("expected.json", "__pycache__", "*.npy", "out.json"))
    env = _env()
    bench = [sys.executable, "-m", "retrace_fix", "bench", "--runs", str(runs), "--format", "json", "-q"]
    if expected.get("record_first"):
        traces = work / f"{directory.name}.traces.json"
        record = subprocess.run(
            [sys.executable, "-m", "retrace_fix", "record", "-o", str(traces), "--", sys.executable, "drive.py"],
            cwd=project, env=env, capture_output=True, text=True,
        )
        if record.returncode != 0:
            return {"scenario": directory.name, "expected": expected, "error": f"record failed:\n{record.stderr[-2000:]}"}
        bench += ["--traces", str(traces)]
    bench += list(expected.get("bench_args", [])) + ["--", sys.executable, "drive.py"]
    result = subprocess.run(bench, cwd=project, env=env, capture_output=True, text=True)
    try:
        report = json.loads(result.stdout)
    except ValueError:
        return {
            "scenario": directory.name, "expected": expected,
            "error": f"bench exited {result.returncode} without a report:\n{result.stderr[-2000:]}",
        }
    report["scenario"] = directory.name
    report["expected"] = expected
    report["checks"] = check(report, expected)
    return report


def check(report: dict, expected: dict) -> list[str]:
    """Where the result departs from expected.json (empty: as expected)."""
    problems = []
    details = report.get("run_details", [])
    before_failed = any(not r["ok"] for r in details if r["side"] == "before")
    if expected.get("before_fails") and not before_failed:
        problems.append("the original was expected to fail but ran")
    if not expected.get("before_fails") and before_failed:
        problems.append("the original failed")
    traces = report.get("traces", {})
    if "traces_before" in expected and not before_failed and traces.get("before") != expected["traces_before"]:
        problems.append(f"traces before {traces.get('before')}, expected {expected['traces_before']}")
    if "traces_after" in expected and traces.get("after") != expected["traces_after"]:
        problems.append(f"traces after {traces.get('after')}, expected {expected['traces_after']}")
    applied = set(report.get("fixes", {}).get("by_code", {}))
    missing = [code for code in expected.get("fixes", []) if code not in applied]
    if missing:
        problems.append(f"expected fixes not applied: {', '.join(missing)}")
    if report.get("exit_code") != 0:
        problems.append(f"bench verdict: {report.get('verdict')}")
    return problems


def _ms(stat: dict | None) -> str:
    if not stat:
        return "—"
    value = stat["median"]
    return f"{value * 1000:.0f} ms" if value < 0.9995 else f"{value:.2f} s"


def _range(stat: dict | None) -> str:
    if not stat:
        return "—"
    if len(stat["values"]) == 1:
        return _ms(stat)
    return f"{_ms(stat)} ({_ms({'median': stat['min']})}–{_ms({'median': stat['max']})})"


def markdown(results: list[dict], runs: int, load: tuple[float, float] | None = None) -> str:
    machine = next((r.get("machine") for r in results if r.get("machine")), None) or {}
    tf_version = next((r.get("tensorflow") for r in results if r.get("tensorflow")), None) or "?"
    gpu = _gpu_name()
    lines = [
        "# Benchmark results",
        "",
        f"Generated by `python benchmarks/run_all.py --runs {runs}` on {datetime.date.today().isoformat()}.",
        "",
        f"**Machine:** {machine.get('cpu', '?')} ({machine.get('cores', '?')} cores), "
        f"{machine.get('platform', '?')}, Python {machine.get('python', '?')}, TensorFlow {tf_version}, "
        f"{'GPU: ' + gpu if gpu else 'CPU only (no GPU)'}."
        + (f" Load average (1 min) {load[0]:.1f} at the start, {load[1]:.1f} at the end: other work shared "
           "the machine, so compare the CPU-time speedups too." if load and max(load) > 1.5 else ""),
        "",
        "Every scenario is a small program under `benchmarks/programs/` run through `retrace-fix bench` "
        f"({runs} fresh process{'es' if runs != 1 else ''} per tree, alternating). Trace-driven scenarios are recorded first "
        "(`retrace-fix record`) and fixed with `--traces`. *Program time* is the run time of the program "
        "without the TensorFlow/Keras imports (they cost seconds and are the same before and after); "
        "*tracing* is TensorFlow's own graph-building time. Medians, with min–max over the runs; speedup = "
        "median before / median after, of the program's wall time and of its CPU time (all threads; "
        "less disturbed by other load on the machine).",
        "",
        "| Scenario | Seed | Fixes | Traces before | Traces after (expected) | Program time before | "
        "Program time after | Speedup (wall / CPU) | Tracing before → after | Outputs | Result |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        expected = r["expected"]
        if "error" in r:
            lines.append(f"| {expected.get('title', r['scenario'])} | {expected.get('seed', '')} | | | | | | | | | "
                         f"error: {r['error'].splitlines()[0]} |")
            continue
        timing = r.get("timing", {})
        program, tracing = timing.get("program_s", {}), timing.get("tracing_s", {})
        before_failed = any(not x["ok"] for x in r["run_details"] if x["side"] == "before")
        traces_before = "fails" if before_failed else str(r["traces"]["before"])
        traces_after = f"{r['traces']['after']} ({expected.get('traces_after', '?')})"
        fixes = ", ".join(f"{c} ×{n}" for c, n in sorted(r["fixes"]["by_code"].items())) or "none"
        speedup = program.get("speedup")
        cpu_speedup = timing.get("program_cpu_s", {}).get("speedup")
        outputs = r["outputs"]
        if before_failed:
            outputs_text = "n/a (original fails)"
        elif outputs["compared"]:
            outputs_text = "equal" if outputs["equal"] else "DIFFER"
        else:
            outputs_text = "not compared"
        result = "as expected" if not r["checks"] else "; ".join(r["checks"])
        lines.append(
            f"| {expected.get('title', r['scenario'])} | {expected.get('seed', '')} | {fixes} | {traces_before} | "
            f"{traces_after} | {_range(program.get('before'))} | {_range(program.get('after'))} | "
            f"{'—' if speedup is None else f'{speedup:.2f}×'} / {'—' if cpu_speedup is None else f'{cpu_speedup:.2f}×'} | "
            f"{_ms(tracing.get('before'))} → {_ms(tracing.get('after'))} | {outputs_text} | {result} |"
        )
    lines += ["", "## Scenarios", ""]
    for r in results:
        expected = r["expected"]
        lines.append(f"- **{expected.get('title', r['scenario'])}** (`benchmarks/programs/{r['scenario']}`): "
                     f"{expected.get('why', '')}.")
        if r.get("verdict"):
            lines.append(f"  Verdict: {r['verdict']}")
    lines.append("")
    return "\n".join(lines)


def _load() -> float | None:
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):
        return None


def _gpu_name() -> str | None:
    nvidia_smi = shutil.which("nvidia-smi")
    if not nvidia_smi:
        return None
    try:
        out = subprocess.run([nvidia_smi, "-L"], capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return out.splitlines()[0] if out else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="runs per tree (default 3)")
    parser.add_argument("--only", nargs="*", help="scenario names to run (default: all)")
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT, help="Markdown file to write")
    parser.add_argument("--json", type=Path, help="also write every bench report as JSON")
    parser.add_argument("--from-json", type=Path, help="only render the Markdown from a file written by --json")
    options = parser.parse_args(argv)
    if options.from_json:
        saved = json.loads(options.from_json.read_text(encoding="utf-8"))
        for result in saved["results"]:  # expectations as they are now
            path = PROGRAMS / result["scenario"] / "expected.json"
            if path.is_file():
                result["expected"] = json.loads(path.read_text(encoding="utf-8"))
        load = tuple(saved["load"]) if saved.get("load") else None
        options.output.write_text(markdown(saved["results"], saved["runs"], load), encoding="utf-8")
        return 0
    results = []
    load_start = _load()
    with tempfile.TemporaryDirectory(prefix="retrace-fix-benchmarks-") as work:
        for directory in scenarios(options.only):
            print(f"run_all: {directory.name} ...", file=sys.stderr, flush=True)
            result = run_scenario(directory, options.runs, Path(work))
            results.append(result)
            status = result.get("error") or ("as expected" if not result["checks"] else "; ".join(result["checks"]))
            print(f"run_all: {directory.name}: {result.get('verdict', '')} [{status.splitlines()[0]}]", file=sys.stderr)
    options.output.parent.mkdir(parents=True, exist_ok=True)
    load_end = _load()
    load = (load_start, load_end) if load_start is not None and load_end is not None else None
    options.output.write_text(markdown(results, options.runs, load), encoding="utf-8")
    print(f"run_all: wrote {options.output}", file=sys.stderr)
    if options.json:
        saved = {"runs": options.runs, "load": load, "results": results}
        options.json.write_text(json.dumps(saved, indent=2) + "\n", encoding="utf-8")
    return 0 if all("error" not in r and not r["checks"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
