"""Fidelity of the recorder: a program traces and prints the same alone and under ``retrace-fix record``.

For every program -- the lifetime-sensitive ones in ``benchmarks/fidelity_programs/``
(bound methods, lambdas and temporary objects as arguments, weakref-keyed
caches, ``__del__``, generators, variables created on the first call,
tf.functions of ``functools.partial`` and callable objects), every
case of the public-report corpus ``benchmarks/reports/`` and every executed
golden case (``golden/*/*/drive.py`` with its ``input.py``) -- on a temporary
copy that is its own git root:

1. run it alone and under ``retrace-fix record``, both with a probe
   (``benchmarks/fidelity_probe/sitecustomize.py``) that writes TensorFlow's own
   ``experimental_get_tracing_count()`` of every project tf.function at the end
   of the program, summed over the Function objects of one origin and over the
   processes; the probe holds only weak references;
2. check that TensorFlow's counts are the same in both runs (recording changed
   no function's tracing), that the outputs are the same (the JSON result of a
   report case within its tolerances, else stdout with numbers within 1e-5),
   and that the trace file's count of each function (``total_traces``) is
   TensorFlow's.  When the outputs differ, the program runs alone once more: if
   they differ between two plain runs too, the program is ``nondeterministic``
   and its outputs are not held against the recorder.

::

    python benchmarks/fidelity.py [--only NAME ...] [--set programs,reports,golden] [--jobs N] [--json FILE]
                                  [--keep DIR] [--repo CHECKOUT]

``--repo`` records with another checkout's ``retrace_fix`` (the figures before a change).

Prints one line per program (TF alone, TF recorded, trace file, outputs) and
exits 1 when any program differs.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from dataclasses import asdict, dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
PROGRAMS = HERE / "fidelity_programs"
REPORTS = HERE / "reports"
GOLDEN = REPO / "golden"
PROBE_DIR = HERE / "fidelity_probe"
SETS = ("programs", "reports", "golden")
RUN_TIMEOUT = 300

sys.path.insert(0, str(REPO))

from retrace_fix.bench.outputs import compare_text, compare_values  # noqa: E402


@dataclass
class Program:
    name: str  # set/slug
    make: object  # callable(dest) -> None: copies the program's files into dest
    command: list[str]
    rtol: float = 1e-5
    atol: float = 1e-6
    json_output: bool = False  # compare the JSON of the last stdout line (or out.json)


@dataclass
class Run:
    exit_code: int
    stdout: str
    tf_counts: dict[str, int]
    file_counts: dict[str, int] | None = None  # trace file: origin -> total_traces (recorded run)
    variable_creation: dict[str, int] = field(default_factory=dict)
    proofs: dict[str, int] = field(default_factory=dict)  # result -> how many proofs (recorded run)
    seconds: float = 0.0
    stderr_tail: str = ""


@dataclass
class Result:
    name: str
    alone: dict[str, int]
    recorded: dict[str, int]
    trace_file: dict[str, int] | None
    outputs: str  # same | differ | nondeterministic | failed
    problems: list[str]
    seconds: float
    exit_codes: tuple[int, int] = (0, 0)
    variable_creation: dict[str, int] = field(default_factory=dict)
    proofs: dict[str, int] = field(default_factory=dict)


# --------------------------------------------------------------------------- programs


def _copy_tree(source: Path, ignore: tuple[str, ...] = ()):
    def make(dest: Path) -> None:
        shutil.copytree(source, dest, ignore=shutil.ignore_patterns("__pycache__", "out.json", ".retrace", *ignore),
                        dirs_exist_ok=True)
    return make


def _copy_files(files: dict[str, Path]):
    def make(dest: Path) -> None:
        dest.mkdir(parents=True, exist_ok=True)
        for name, source in files.items():
            shutil.copyfile(source, dest / name)
    return make


def load_programs(sets: tuple[str, ...] = SETS, only: list[str] | None = None,
                  batch_programs: bool = False) -> list[Program]:
    """The programs of ``sets``; with ``batch_programs``, the lifetime programs (those ``only``
    selects) as one program that runs them one after another in one process (``programs (N)``)."""
    found: list[Program] = []
    if "programs" in sets:
        paths = sorted(PROGRAMS.glob("*.py"))
        if batch_programs:
            if only:
                paths = [p for p in paths if p.stem in only or f"programs/{p.stem}" in only]
            found.append(Program(f"programs ({len(paths)})", _batch_tree(paths),
                                 [sys.executable, "run_programs.py"]))
        else:
            for path in paths:
                found.append(Program(f"programs/{path.stem}", _copy_files({path.name: path}),
                                     [sys.executable, path.name], json_output=True))
    if "reports" in sets:
        for case in sorted(p for p in REPORTS.iterdir() if (p / "case.toml").is_file()):
            meta = tomllib.loads((case / "case.toml").read_text(encoding="utf-8"))
            found.append(Program(
                f"reports/{case.name}",
                _copy_tree(case, ("case.toml", "hand_fix", "hand_fix.patch", "README.md")),
                [sys.executable, meta.get("main", "main.py")],
                rtol=float(meta.get("rtol", 1e-4)), atol=float(meta.get("atol", 1e-6)), json_output=True,
            ))
    if only:
        wanted = set(only)
        found = [p for p in found if "/" not in p.name or p.name in wanted or p.name.split("/", 1)[1] in wanted]
    if "golden" in sets:
        drives = sorted(GOLDEN.glob("*/*/drive.py"))
        if only:
            drives = [d for d in drives if f"{d.parent.parent.name}/{d.parent.name}" in wanted or d.parent.name in wanted]
        if drives:
            found.append(Program(f"golden ({len(drives)} cases)", _golden_tree(drives),
                                 [sys.executable, "run_goldens.py"]))
    return found


def _golden_tree(drives: list[Path]):
    """All executed golden cases in one tree, run one after another by one process
    (``run_goldens.py``; TensorFlow is imported once): ``<codemod>__<case>/`` holds its
    ``input.py`` and ``drive.py``.  Both runs run the same sequence, so what one case leaves
    behind (Keras's name counters, TF's state) is the same on both sides."""
    def make(dest: Path) -> None:
        dest.mkdir(parents=True, exist_ok=True)
        names = []
        for drive in drives:
            case = drive.parent
            name = f"{case.parent.name}__{case.name}"
            (dest / name).mkdir()
            shutil.copyfile(case / "input.py", dest / name / "input.py")
            shutil.copyfile(drive, dest / name / "drive.py")
            names.append(name)
        (dest / "run_goldens.py").write_text(GOLDEN_RUNNER.replace("NAMES", repr(names)), encoding="utf-8")
    return make


def _batch_tree(paths: list[Path]):
    """The lifetime programs in one tree, run one after another by ``run_programs.py``
    (what ``tests/benchmarks/test_fidelity_tf.py`` runs: two processes instead of two per program)."""
    def make(dest: Path) -> None:
        dest.mkdir(parents=True, exist_ok=True)
        for path in paths:
            shutil.copyfile(path, dest / path.name)
        (dest / "run_programs.py").write_text(BATCH_RUNNER.replace("NAMES", repr([p.name for p in paths])),
                                              encoding="utf-8")
    return make


BATCH_RUNNER = """\
import runpy

for name in NAMES:
    print(f"=== {name}", flush=True)
    runpy.run_path(name, run_name="__main__")
"""


#: the child that runs every golden drive.py (seeds as the semantic tests set them)
GOLDEN_RUNNER = """\
import contextlib, io, os, runpy, sys, traceback
import tensorflow as tf

root = os.getcwd()
for name in NAMES:
    directory = os.path.join(root, name)
    for module in [m for m, v in sys.modules.items() if m == "input" or str(getattr(v, "__file__", "")).startswith(directory)]:
        del sys.modules[module]
    tf.keras.utils.set_random_seed(0)
    sys.path.insert(0, directory)
    os.chdir(directory)
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            runpy.run_path("drive.py", run_name="__main__")
        error = ""
    except BaseException as exc:
        error = f"{type(exc).__name__}: {exc}".splitlines()[0]
    finally:
        os.chdir(root)
        sys.path.remove(directory)
    print(f"=== {name}")
    print(out.getvalue(), end="")
    if error:
        print(f"error: {error}")
"""


# --------------------------------------------------------------------------- running


#: the checkout whose ``retrace_fix`` records (``--repo``: measure another version against the same probe)
RECORDER_REPO = REPO


def _env(probe_out: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RETRACE_FIX_")}
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    env["FIDELITY_PROBE_DIR"] = str(probe_out)
    env["PYTHONHASHSEED"] = "0"
    paths = [str(PROBE_DIR), str(RECORDER_REPO)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else [])
    env["PYTHONPATH"] = os.pathsep.join(paths)
    return env


def _probe_counts(probe_out: Path) -> dict[str, int]:
    counts: dict[str, int] = {}
    for path in sorted(probe_out.glob("probe-*.json")):
        for origin, count in json.loads(path.read_text(encoding="utf-8")).items():
            counts[origin] = counts.get(origin, 0) + count
    return {k: v for k, v in counts.items() if v}


def _origin(function) -> str:
    """``FILE::QUALNAME::LINE`` (``::WRAPS`` for a partial or callable object), as the probe names it."""
    wraps = getattr(function, "wraps", None)  # --repo: an older checkout's records have none
    return "::".join([function.file, function.qualname, str(function.firstlineno)] + ([wraps] if wraps else []))


def _file_counts(trace_file: Path) -> tuple[dict[str, int] | None, dict[str, int], dict[str, int]]:
    """(origin -> total_traces, origin -> variable-creation traces, proof result -> count) of a trace file."""
    from retrace_fix.traces.model import TraceFileError, load_trace_file

    if not trace_file.is_file():
        return None, {}, {}
    try:
        trace_set = load_trace_file(str(trace_file))
    except TraceFileError:
        return None, {}, {}
    counts = {_origin(f): f.total_traces for f in trace_set}
    extra = {_origin(f): sum(getattr(t, "variable_creation", 0) for t in f.traces) for f in trace_set}
    proofs: dict[str, int] = {}
    for function in trace_set:
        for proof in function.proofs.values():
            proofs[proof.result] = proofs.get(proof.result, 0) + 1
    return counts, {k: v for k, v in extra.items() if v}, proofs


def run_once(program: Program, work: Path, recorded: bool) -> Run:
    tree = work / ("recorded" if recorded else "alone")
    if tree.exists():
        shutil.rmtree(tree)
    program.make(tree)
    subprocess.run(["git", "init", "-q", str(tree)], check=True, capture_output=True)
    probe_out = work / ("probe-recorded" if recorded else "probe-alone")
    shutil.rmtree(probe_out, ignore_errors=True)
    probe_out.mkdir()
    trace_file = work / "traces.json"
    command = list(program.command)
    if recorded:
        command = [sys.executable, "-m", "retrace_fix", "record", "-o", str(trace_file), "--", *command]
    start = time.monotonic()
    try:
        result = subprocess.run(command, cwd=tree, env=_env(probe_out), capture_output=True, text=True,
                                timeout=RUN_TIMEOUT)
        code, stdout, stderr = result.returncode, result.stdout, result.stderr
    except subprocess.TimeoutExpired:
        code, stdout, stderr = 124, "", f"timed out after {RUN_TIMEOUT} s"
    seconds = time.monotonic() - start
    if program.json_output and (tree / "out.json").is_file():
        stdout = stdout + "\n" + (tree / "out.json").read_text(encoding="utf-8")
    run = Run(code, stdout, _probe_counts(probe_out), seconds=round(seconds, 1),
              stderr_tail=stderr.strip().splitlines()[-1][:200] if code and stderr.strip() else "")
    if recorded:
        run.file_counts, run.variable_creation, run.proofs = _file_counts(trace_file)
    return run


def _outputs_differ(program: Program, a: Run, b: Run) -> list[str]:
    if a.exit_code != b.exit_code:
        return [f"exit code {a.exit_code} alone, {b.exit_code} recorded"]
    if program.json_output:
        last = [_last_json(r.stdout) for r in (a, b)]
        if last[0] is not None or last[1] is not None:
            return compare_values(last[0], last[1], program.rtol, program.atol)
    return compare_text(a.stdout, b.stdout, program.rtol, program.atol)


def _last_json(stdout: str):
    for line in reversed([line for line in stdout.splitlines() if line.strip()]):
        try:
            return json.loads(line)
        except ValueError:
            return None
    return None


def check(program: Program, work_root: Path) -> Result:
    work = work_root / program.name.replace("/", "__")
    work.mkdir(parents=True, exist_ok=True)
    start = time.monotonic()
    alone = run_once(program, work, recorded=False)
    recorded = run_once(program, work, recorded=True)
    problems: list[str] = []
    differences = _outputs_differ(program, alone, recorded)
    outputs = "same"
    if differences:
        again = run_once(program, work, recorded=False)
        if _outputs_differ(program, alone, again):
            outputs = "nondeterministic"
        else:
            outputs = "differ"
            problems.append(f"outputs differ: {differences[0]}")
    if alone.exit_code and recorded.exit_code:
        outputs = f"failed ({alone.exit_code})" if outputs == "same" else outputs
    for origin in sorted(set(alone.tf_counts) | set(recorded.tf_counts)):
        a, r = alone.tf_counts.get(origin, 0), recorded.tf_counts.get(origin, 0)
        if a != r:
            problems.append(f"{origin}: TF traced {a} alone, {r} recorded")
    if recorded.file_counts is None:
        if recorded.tf_counts:
            problems.append("no trace file")
    else:
        for origin in sorted(set(recorded.file_counts) | set(recorded.tf_counts)):
            f, r = recorded.file_counts.get(origin, 0), recorded.tf_counts.get(origin, 0)
            if f != r:
                problems.append(f"{origin}: the trace file says {f}, TF {r}")
    return Result(program.name, alone.tf_counts, recorded.tf_counts, recorded.file_counts, outputs, problems,
                  round(time.monotonic() - start, 1), (alone.exit_code, recorded.exit_code),
                  recorded.variable_creation, recorded.proofs)


# --------------------------------------------------------------------------- report


def _total(counts: dict[str, int] | None) -> str:
    return "-" if counts is None else str(sum(counts.values()))


def render(results: list[Result]) -> str:
    width = max([len(r.name) for r in results] + [7])
    lines = [f"{'program':<{width}}  {'TF alone':>8}  {'TF rec':>6}  {'file':>4}  {'outputs':<16}  verdict"]
    for r in results:
        verdict = "ok" if not r.problems else "DIFFERS: " + "; ".join(r.problems[:3])
        lines.append(f"{r.name:<{width}}  {_total(r.alone):>8}  {_total(r.recorded):>6}  {_total(r.trace_file):>4}  "
                     f"{r.outputs:<16}  {verdict}")
    bad = sum(1 for r in results if r.problems)
    lines.append(f"{len(results)} programs, {len(results) - bad} identical, {bad} differ")
    proofs: dict[str, int] = {}
    for r in results:
        for result, count in r.proofs.items():
            proofs[result] = proofs.get(result, 0) + count
    variable_creation = sum(sum(r.variable_creation.values()) for r in results)
    lines.append(f"TF traces: {sum(sum(r.alone.values()) for r in results)} alone, "
                 f"{sum(sum(r.recorded.values()) for r in results)} recorded, "
                 f"{sum(sum((r.trace_file or {}).values()) for r in results)} in the trace files "
                 f"({variable_creation} variable-creation); proofs: "
                 + (", ".join(f"{n} {k}" for k, n in sorted(proofs.items())) or "none"))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", metavar="NAME", help="programs by name (set/name or name)")
    parser.add_argument("--set", default=",".join(SETS), help=f"comma list of {', '.join(SETS)}")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--json", type=Path, help="write the results here")
    parser.add_argument("--keep", type=Path, help="keep the copies here")
    parser.add_argument("--repo", type=Path, help="record with the retrace_fix of this checkout (default: this one)")
    options = parser.parse_args(argv)
    global RECORDER_REPO
    RECORDER_REPO = (options.repo or REPO).resolve()
    sets = tuple(s.strip() for s in options.set.split(",") if s.strip())
    unknown = sorted(set(sets) - set(SETS))
    if unknown:
        parser.error(f"unknown set {unknown[0]!r}")
    programs = load_programs(sets, options.only)
    if not programs:
        parser.error("no program selected")
    work_root = options.keep or Path(tempfile.mkdtemp(prefix="retrace-fidelity-"))
    work_root.mkdir(parents=True, exist_ok=True)
    try:
        with concurrent.futures.ThreadPoolExecutor(max(1, options.jobs)) as pool:
            futures = [pool.submit(check, p, work_root) for p in programs]
            for future in concurrent.futures.as_completed(futures):  # progress on stderr
                done = future.result()
                print(f"{done.name}: {'ok' if not done.problems else '; '.join(done.problems[:2])} "
                      f"({sum(done.alone.values())} traces, {done.seconds} s)", file=sys.stderr, flush=True)
            results = [f.result() for f in futures]
    finally:
        if options.keep is None:
            shutil.rmtree(work_root, ignore_errors=True)
    print(render(results))
    if options.json:
        options.json.write_text(json.dumps([asdict(r) for r in results], indent=1), encoding="utf-8")
    return 1 if any(r.problems for r in results) else 0


if __name__ == "__main__":
    raise SystemExit(main())
