"""``retrace-fix bench``: prove on your own workload that the fixes remove retraces, keep results, and pay.

::

    retrace-fix bench [--runs N] [--traces FILE] [--unsafe-fixes] [--select CODES]
                      [--compare PATH] [--compare-stdout REGEX] [--rtol 1e-5]
                      [--format text|json|markdown] -- CMD [ARGS...]

1. The project (the git root above the current directory, else the current
   directory) is copied twice into a temporary directory: ``before/`` as it is,
   ``after/`` fixed in-process by the engine with the given options (what
   ``retrace-fix [--traces ...] [--unsafe-fixes] .`` would write).  Without
   ``--traces`` the original's first run is recorded and its traces drive the
   fixes (``--no-record``: static fixes only).  VCS, virtual-environment and
   cache directories are not copied; ``--exclude`` leaves out more.  The
   user's tree is only read.
2. CMD runs N times in each tree (alternating, in fresh processes, from the
   copy of the current directory) under the trace recorder and a timing probe
   (:mod:`retrace_fix.bench_child`): per run the traces of every tf.function,
   the wall time of CMD, the program time without the TensorFlow import, and
   TensorFlow's own graph-building time.
3. Outputs are compared (``--compare PATH`` files: .npy, .npz, .json or text;
   ``--compare-stdout REGEX`` lines) with ``--rtol``/``--atol``.

Exit codes: 0 the fixed version is validated (or the original failed and the
fixed version runs); 1 outputs differ, the fixed version traces more, or its
CMD fails (also when the original fails too: nothing could be validated);
2 bad arguments (also a ``--compare`` file the original never writes, or a
``--compare-stdout`` pattern matching none of its lines).

This module never imports TensorFlow.
"""

from __future__ import annotations

import json
import math
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Callable, List, Optional, Sequence

EXIT_OK, EXIT_FAIL, EXIT_ERROR = 0, 1, 2
FORMATS = ("text", "json", "markdown")
JSON_FORMAT = "retrace-fix-bench"
JSON_VERSION = 1
SIDES = ("before", "after")
#: Refuse to copy a project bigger than this (use --exclude for data directories).
MAX_COPY_BYTES = 2 * 1024**3
#: How much of a failing run's stderr to show.
STDERR_TAIL_LINES = 12

_NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|[-+]?(?:nan|inf)\b", re.IGNORECASE)


class BenchError(Exception):
    """A bad argument or an unusable project: reported, exit 2."""


@dataclass
class BenchRequest:
    command: list[str]
    runs: int = 3
    traces: list[str] = field(default_factory=list)
    unsafe_fixes: bool | None = None
    select: list[str] | None = None
    ignore: list[str] = field(default_factory=list)
    exclude: list[str] = field(default_factory=list)
    compare: list[str] = field(default_factory=list)
    compare_stdout: str | None = None
    rtol: float = 1e-5
    atol: float = 1e-8
    output_format: str = "text"
    timeout: float | None = None
    keep: bool = False
    config: Path | None = None
    quiet: bool = False
    record: bool = True  # without --traces: fix from the traces of the original's first run


@dataclass
class FixSummary:
    """What the fix step did to the ``after`` tree."""

    files_changed: list[str] = field(default_factory=list)
    applied: Counter = field(default_factory=Counter)  # code -> fixes applied
    diagnostics: int = 0
    not_applied: int = 0  # fixable findings left out (unsafe tier, suppressed)
    errors: list[str] = field(default_factory=list)
    diff: str = ""

    @property
    def total_applied(self) -> int:
        return sum(self.applied.values())

    def to_json(self) -> dict:
        return {
            "files_changed": list(self.files_changed),
            "applied": self.total_applied,
            "by_code": dict(sorted(self.applied.items())),
            "diagnostics": self.diagnostics,
            "not_applied": self.not_applied,
            "errors": list(self.errors),
            "diff": self.diff,
        }


#: ``fixer(before_root, after_root, project_root, traces) -> FixSummary`` rewrites the after
#: tree; ``traces`` is the TraceSet recorded by the first run of the original (or None).
Fixer = Callable[[Path, Path, Path, Any], FixSummary]


@dataclass
class RunRecord:
    """One execution of CMD in one tree."""

    side: str
    index: int
    exit_code: int | None = None
    wall_s: float = 0.0
    program_s: float | None = None
    program_cpu_s: float | None = None
    tf_import_s: float | None = None
    tracing_s: float | None = None
    tensorflow: str | None = None
    timed_out: bool = False
    start_error: str | None = None
    traces: dict[tuple, int] = field(default_factory=dict)  # (file, qualname, firstlineno) -> traces
    calls: dict[tuple, int] = field(default_factory=dict)
    outputs: dict[str, Any] = field(default_factory=dict)  # compare spec -> loaded value
    missing_outputs: list[str] = field(default_factory=list)
    stderr_tail: str = ""
    trace_set: Any = None  # the merged TraceSet of the run (not serialised)

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and not self.timed_out and self.start_error is None

    @property
    def total_traces(self) -> int:
        return sum(self.traces.values())

    def to_json(self) -> dict:
        return {
            "side": self.side,
            "index": self.index,
            "exit_code": self.exit_code,
            "ok": self.ok,
            "timed_out": self.timed_out,
            "wall_s": self.wall_s,
            "program_s": self.program_s,
            "program_cpu_s": self.program_cpu_s,
            "tf_import_s": self.tf_import_s,
            "tracing_s": self.tracing_s,
            "traces": self.total_traces,
        }


# --------------------------------------------------------------------------- arguments


def validate(request: BenchRequest) -> list[str]:
    """Check the arguments; return the command (leading ``--`` removed); raises BenchError."""
    command = list(request.command or [])
    if command and command[0] == "--":
        command = command[1:]
    if not command:
        raise BenchError("no command given (usage: retrace-fix bench [OPTIONS] -- CMD [ARGS...])")
    if request.runs < 1:
        raise BenchError(f"--runs must be at least 1, got {request.runs}")
    for name, value in (("--rtol", request.rtol), ("--atol", request.atol)):
        if not (value >= 0) or math.isinf(value):
            raise BenchError(f"{name} must be a finite number >= 0, got {value}")
    if request.output_format not in FORMATS:
        raise BenchError(f"--format must be one of {', '.join(FORMATS)}, got {request.output_format!r}")
    if request.timeout is not None and not request.timeout > 0:
        raise BenchError(f"--timeout must be positive, got {request.timeout}")
    if request.compare_stdout is not None:
        try:
            re.compile(request.compare_stdout)
        except re.error as exc:
            raise BenchError(f"--compare-stdout: invalid regular expression: {exc}") from None
    return command


def _relative_compare_path(spec: str, project_root: Path, cwd: Path) -> str:
    """A ``--compare`` path as a POSIX path relative to the project root; raises BenchError."""
    path = Path(spec)
    absolute = path if path.is_absolute() else cwd / path
    absolute = Path(os.path.normpath(absolute))
    try:
        return absolute.relative_to(project_root).as_posix()
    except ValueError:
        raise BenchError(f"--compare {spec}: outside the project ({project_root}); name a file the command writes inside it") from None


# --------------------------------------------------------------------------- copying


def _exclude_matcher(project_root: Path, cwd: Path, patterns: Sequence[str]) -> Callable[[Path, bool], bool]:
    from retrace_fix.discovery import DEFAULT_EXCLUDED_DIRS

    spec = None
    if patterns:
        import pathspec

        spec = pathspec.GitIgnoreSpec.from_lines(list(patterns))

    def excluded(path: Path, is_dir: bool) -> bool:
        if is_dir and path.name in DEFAULT_EXCLUDED_DIRS:
            return True
        if spec is None:
            return False
        for base in (cwd, project_root):
            try:
                rel = path.relative_to(base).as_posix()
            except ValueError:
                continue
            if spec.match_file(rel + ("/" if is_dir else "")):
                return True
        return False

    return excluded


def _walk_project(root: Path, excluded: Callable[[Path, bool], bool]):
    """(directory, dirnames, filenames) of what gets copied; links are listed as files."""
    for dirpath, dirnames, filenames in os.walk(root):
        directory = Path(dirpath)
        kept_dirs = []
        for name in sorted(dirnames):
            sub = directory / name
            if sub.is_symlink():
                filenames.append(name)  # copied as a link, never followed
                continue
            if not excluded(sub, True):
                kept_dirs.append(name)
        dirnames[:] = kept_dirs
        yield directory, kept_dirs, [n for n in sorted(filenames) if not excluded(directory / n, False)]


def project_size(root: Path, excluded: Callable[[Path, bool], bool], limit: int = MAX_COPY_BYTES) -> int:
    total = 0
    for directory, _dirs, files in _walk_project(root, excluded):
        for name in files:
            try:
                total += (directory / name).lstat().st_size
            except OSError:
                pass
        if total > limit:
            break
    return total


def copy_project(root: Path, dest: Path, excluded: Callable[[Path, bool], bool]) -> None:
    """Copy ``root`` to ``dest`` (which must not exist); symbolic links are copied as links."""
    dest.mkdir(parents=True)
    for directory, dirs, files in _walk_project(root, excluded):
        target_dir = dest / directory.relative_to(root)
        for name in dirs:
            (target_dir / name).mkdir(exist_ok=True)
        for name in files:
            source = directory / name
            target = target_dir / name
            try:
                if source.is_symlink():
                    os.symlink(os.readlink(source), target)
                elif source.is_file():
                    shutil.copy2(source, target)
            except OSError as exc:
                raise BenchError(f"cannot copy {source}: {exc.strerror or exc}") from None


# --------------------------------------------------------------------------- fixing


def engine_fixer(request: BenchRequest, project_root: Path) -> Fixer:
    """The default fixer: the engine with the request's options, on the copied files.

    Options, codes, trace files and the files to fix are resolved at once (a bad
    argument is a BenchError before anything runs); discovery runs on the
    user's tree, read only, so the fixed files are those ``retrace-fix .`` would
    write.
    """
    import dataclasses

    from retrace_fix.engine import FileJob, process_file
    from retrace_fix.findings import Tier
    from retrace_fix.output import file_diff
    from retrace_fix.run_fix import FixRequest, UsageProblem, prepare

    fix_request = FixRequest(
        paths=[str(project_root)],
        traces=list(request.traces),
        unsafe_fixes=request.unsafe_fixes,
        select=request.select,
        ignore=list(request.ignore),
        exclude=list(request.exclude),
        config=request.config,
    )
    try:
        options, files, _problems = prepare(fix_request)
    except UsageProblem as exc:
        raise BenchError(str(exc)) from None

    def fix(before_root: Path, after_root: Path, root: Path, traces: Any = None) -> FixSummary:
        run_options = options if traces is None else dataclasses.replace(options, traces=traces)
        summary = FixSummary()
        diffs = []
        for path in files:
            try:
                rel = path.relative_to(root).as_posix()
            except ValueError:
                continue
            target = after_root / rel
            if not target.is_file() or target.is_symlink():
                continue
            result = process_file(FileJob(path=target, display=rel, relpath=rel), run_options)
            if result.error:
                summary.errors.append(result.error)
                continue
            for finding in result.findings:
                if finding.applied:
                    summary.applied[finding.code] += 1
                elif finding.tier is Tier.DIAGNOSTIC:
                    summary.diagnostics += 1
                else:
                    summary.not_applied += 1
            if result.changed:
                target.write_bytes((result.fixed or "").encode(result.encoding))
                summary.files_changed.append(rel)
                diffs.append(file_diff(result))
        summary.diff = "".join(diffs)
        return summary

    return fix


# --------------------------------------------------------------------------- running

_SHIM = '''\
"""retrace-fix bench timing probe (generated by retrace_fix.bench; see retrace_fix/bench_child.py)."""
import os
import sys

_SKIP = {skip!r}


def _retrace_fix_bench_install():
    package_path = os.environ.get("RETRACE_FIX_PACKAGE_PATH")
    added = bool(package_path) and package_path not in sys.path
    if added:
        sys.path.insert(0, package_path)
    try:
        from retrace_fix import bench_child

        bench_child.install()
    except Exception as exc:  # never stop the program from starting
        print("retrace-fix bench: timing probe not installed: %r" % (exc,), file=sys.stderr)
    finally:
        if added:
            try:
                sys.path.remove(package_path)
            except ValueError:
                pass


def _retrace_fix_bench_chain():
    import importlib.machinery
    import importlib.util

    skip = {{os.path.abspath(p) for p in _SKIP}}
    skip.add(os.path.dirname(os.path.abspath(__file__)))
    path = [p for p in sys.path if os.path.abspath(p or os.curdir) not in skip]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", path)
    if spec is None or spec.loader is None:
        return
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        print("Error in sitecustomize; set PYTHONVERBOSE for traceback:\\n%s: %s" % (type(exc).__name__, exc), file=sys.stderr)


_retrace_fix_bench_install()
_retrace_fix_bench_chain()
'''


def write_shim(directory: Path) -> Path:
    """Write the timing probe's ``sitecustomize.py`` shim into ``directory``."""
    from retrace_fix.traces.record_cmd import SITECUSTOMIZE_DIR

    directory.mkdir(parents=True, exist_ok=True)
    (directory / "sitecustomize.py").write_text(_SHIM.format(skip=[SITECUSTOMIZE_DIR]), encoding="utf-8")
    return directory


def child_env(shard_dir: Path, timing_dir: Path, tree_root: Path, shim_dir: Path, prove: bool = False) -> dict[str, str]:
    """The environment of one run: the recorder first on PYTHONPATH, then the timing probe.

    Only the run whose traces drive the fixes (``prove``) trial-traces the candidate fixes at its
    end (proofs); every other run leaves them out, so that they cost no time that is measured.
    """
    from retrace_fix.bench_child import ENV_BENCH_DIR
    from retrace_fix.traces.prover import ENV_PROOF_SECONDS
    from retrace_fix.traces.record_cmd import SITECUSTOMIZE_DIR, recording_env

    base = {k: v for k, v in os.environ.items() if not k.startswith("RETRACE_FIX_") or k.startswith("RETRACE_FIX_PROOF_")}
    env = recording_env(str(shard_dir), str(tree_root), base)
    if not prove:
        env[ENV_PROOF_SECONDS] = "0"
    rest = env["PYTHONPATH"][len(SITECUSTOMIZE_DIR):]
    env["PYTHONPATH"] = SITECUSTOMIZE_DIR + os.pathsep + str(shim_dir) + rest
    env[ENV_BENCH_DIR] = str(timing_dir)
    return env


def map_command(command: list[str], project_root: Path, tree_root: Path) -> list[str]:
    """Arguments that are absolute paths inside the project point into the copy instead."""
    mapped = []
    for arg in command:
        if os.path.isabs(arg):
            try:
                rel = Path(os.path.normpath(arg)).relative_to(project_root)
            except ValueError:
                mapped.append(arg)
                continue
            mapped.append(str(tree_root / rel))
        else:
            mapped.append(arg)
    return mapped


def _tail(path: Path, lines: int = STDERR_TAIL_LINES) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    return "\n".join(text.rstrip("\n").splitlines()[-lines:])


_TIMING_FIELDS = ("program_s", "program_cpu_s", "tf_import_s", "tracing_s")


def _read_timings(timing_dir: Path, record: RunRecord) -> None:
    """Sum the timing probe's numbers over the Python processes of one run."""
    totals: dict[str, float | None] = dict.fromkeys(_TIMING_FIELDS)
    for path in sorted(timing_dir.glob("timing-*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        for name in _TIMING_FIELDS:
            value = data.get(name)
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                totals[name] = (totals[name] or 0.0) + float(value)
        record.tensorflow = record.tensorflow or data.get("tensorflow")
    for name, value in totals.items():
        setattr(record, name, value)


def _read_traces(shard_dir: Path, record: RunRecord) -> None:
    from retrace_fix.traces.record_cmd import merge_shards

    trace_set = merge_shards(str(shard_dir))
    record.trace_set = trace_set
    for function in trace_set:
        record.traces[function.key] = function.total_traces
        record.calls[function.key] = function.calls
    record.tensorflow = record.tensorflow or trace_set.tensorflow_version


@dataclass
class _Tree:
    side: str
    root: Path  # the copy of the project root
    cwd: Path  # the copy of the current directory


def run_once(
    tree: _Tree,
    index: int,
    command: list[str],
    work: Path,
    shim_dir: Path,
    project_root: Path,
    compare_paths: list[str],
    timeout: float | None,
    prove: bool = False,
) -> RunRecord:
    """Run CMD once in ``tree`` under the recorder and the timing probe (``prove``: see :func:`child_env`)."""
    record = RunRecord(side=tree.side, index=index)
    run_dir = work / "runs" / f"{tree.side}-{index}"
    shard_dir, timing_dir = run_dir / "shards", run_dir / "timing"
    shard_dir.mkdir(parents=True)
    timing_dir.mkdir()
    for rel in compare_paths:  # a stale result must never be compared
        stale = tree.root / rel
        if stale.is_file() or stale.is_symlink():
            stale.unlink()
    env = child_env(shard_dir, timing_dir, tree.root, shim_dir, prove)
    argv = map_command(command, project_root, tree.root)
    stdout_path, stderr_path = run_dir / "stdout.txt", run_dir / "stderr.txt"
    with open(stdout_path, "wb") as out, open(stderr_path, "wb") as err:
        started = time.perf_counter()
        try:
            process = subprocess.Popen(argv, cwd=tree.cwd, env=env, stdout=out, stderr=err, stdin=subprocess.DEVNULL)
        except OSError as exc:
            record.start_error = f"cannot run {argv[0]}: {exc.strerror or exc}"
            return record
        try:
            returncode = process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            returncode = process.wait()
            record.timed_out = True
        except BaseException:  # Ctrl-C: do not leave the child behind
            process.kill()
            process.wait()
            raise
        record.wall_s = time.perf_counter() - started
    record.exit_code = 128 - returncode if returncode < 0 else returncode
    record.stderr_tail = _tail(stderr_path)
    _read_timings(timing_dir, record)
    _read_traces(shard_dir, record)
    record.outputs["stdout"] = stdout_path.read_text(encoding="utf-8", errors="replace")
    for rel in compare_paths:
        path = tree.root / rel
        if not path.is_file():
            record.missing_outputs.append(rel)
            continue
        try:
            record.outputs[rel] = load_output(path)
        except OutputError as exc:
            record.missing_outputs.append(rel)
            record.outputs[rel] = OutputError(str(exc))
    return record


# --------------------------------------------------------------------------- comparing


class OutputError(Exception):
    """An output file that cannot be read or parsed."""


def load_output(path: Path) -> Any:
    """The value of a results file: .npy → array, .npz → {name: array}, .json → data, else text."""
    suffix = path.suffix.lower()
    if suffix in (".npy", ".npz"):
        try:
            import numpy as np
        except ImportError:  # pragma: no cover - numpy comes with TensorFlow
            raise OutputError(f"{path.name}: reading {suffix} files needs numpy") from None
        try:
            if suffix == ".npy":
                return np.load(path, allow_pickle=False)
            with np.load(path, allow_pickle=False) as archive:
                return {name: archive[name] for name in sorted(archive.files)}
        except (OSError, ValueError) as exc:
            raise OutputError(f"{path.name}: cannot read: {exc}") from None
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise OutputError(f"{path.name}: cannot read: {exc.strerror or exc}") from None
    if suffix == ".json":
        try:
            return json.loads(text)
        except ValueError as exc:
            raise OutputError(f"{path.name}: invalid JSON: {exc}") from None
    return TextOutput(text)


class TextOutput(str):
    """Text compared line by line, numbers with tolerance."""


def _close(a: float, b: float, rtol: float, atol: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= atol + rtol * abs(b)


def compare_text(a: str, b: str, rtol: float, atol: float, where: str = "") -> list[str]:
    """Differences between two texts: same lines, numbers equal within tolerance."""
    lines_a, lines_b = a.splitlines(), b.splitlines()
    if len(lines_a) != len(lines_b):
        return [f"{where or 'text'}: {len(lines_a)} lines before, {len(lines_b)} after"]
    problems = []
    for number, (la, lb) in enumerate(zip(lines_a, lines_b), 1):
        if la == lb:
            continue
        if _NUMBER.sub("#", la) != _NUMBER.sub("#", lb):
            problems.append(f"{where}line {number}: {la.strip()!r} before, {lb.strip()!r} after")
            continue
        for na, nb in zip(_NUMBER.findall(la), _NUMBER.findall(lb)):
            if not _close(float(na), float(nb), rtol, atol):
                problems.append(f"{where}line {number}: {na} before, {nb} after ({la.strip()!r})")
                break
        if len(problems) >= 5:
            break
    return problems


def compare_values(a: Any, b: Any, rtol: float, atol: float, where: str = "") -> list[str]:
    """Differences between two loaded outputs (empty when equal within tolerance)."""
    label = where or "value"
    if isinstance(a, OutputError) or isinstance(b, OutputError):
        return [f"{label}: {a if isinstance(a, OutputError) else b}"]
    if _is_array(a) or _is_array(b):
        return _compare_arrays(a, b, rtol, atol, label)
    if isinstance(a, TextOutput) and isinstance(b, str):
        return compare_text(a, b, rtol, atol, f"{where}: " if where else "")
    if isinstance(a, dict) and isinstance(b, dict):
        if sorted(map(str, a)) != sorted(map(str, b)):
            return [f"{label}: keys {sorted(map(str, a))} before, {sorted(map(str, b))} after"]
        problems = []
        for key in a:
            problems += compare_values(a[key], b[key], rtol, atol, f"{where}[{key!r}]" if where else repr(key))
        return problems
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        if len(a) != len(b):
            return [f"{label}: {len(a)} items before, {len(b)} after"]
        problems = []
        for i, (x, y) in enumerate(zip(a, b)):
            problems += compare_values(x, y, rtol, atol, f"{where}[{i}]")
            if len(problems) >= 5:
                break
        return problems
    if _is_number(a) and _is_number(b):
        return [] if _close(float(a), float(b), rtol, atol) else [f"{label}: {a!r} before, {b!r} after"]
    return [] if a == b else [f"{label}: {_short(a)} before, {_short(b)} after"]


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_array(value: Any) -> bool:
    return type(value).__module__ == "numpy" and hasattr(value, "shape") and hasattr(value, "dtype")


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _compare_arrays(a: Any, b: Any, rtol: float, atol: float, label: str) -> list[str]:
    import numpy as np

    if not (_is_array(a) and _is_array(b)):
        return [f"{label}: {type(a).__name__} before, {type(b).__name__} after"]
    if a.shape != b.shape:
        return [f"{label}: shape {a.shape} before, {b.shape} after"]
    if a.dtype.kind in "biufc" and b.dtype.kind in "biufc":
        close = np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=True)
        if bool(np.all(close)):
            return []
        bad = np.argwhere(~close)
        index = tuple(int(i) for i in bad[0])
        diff = np.abs(a.astype(np.float64) - b.astype(np.float64))
        finite = diff[np.isfinite(diff)]
        worst = float(finite.max()) if finite.size else float("nan")
        return [
            f"{label}: {len(bad)} of {a.size} elements differ (max abs diff {worst:.3g}; "
            f"first at {index}: {a[index]!r} before, {b[index]!r} after)"
        ]
    if a.dtype != b.dtype or not bool(np.all(a == b)):
        return [f"{label}: arrays of dtype {a.dtype} differ"]
    return []


def stdout_matches(text: str, pattern: re.Pattern) -> str:
    """The lines of ``text`` matching ``pattern`` (its groups, tab-joined, when it has groups)."""
    out = []
    for line in text.splitlines():
        match = pattern.search(line)
        if match is None:
            continue
        if pattern.groups:
            out.append("\t".join("" if g is None else g for g in match.groups()))
        else:
            out.append(line)
    return "\n".join(out)


# --------------------------------------------------------------------------- the report


@dataclass
class Stat:
    values: list[float]

    @property
    def median(self) -> float:
        return statistics.median(self.values)

    def to_json(self) -> dict:
        return {"median": self.median, "min": min(self.values), "max": max(self.values), "values": self.values}


def _stat(records: list[RunRecord], attribute: str) -> Stat | None:
    values = [getattr(r, attribute) for r in records]
    if not values or any(v is None for v in values):
        return None
    return Stat([float(v) for v in values])


@dataclass
class FunctionRow:
    file: str
    qualname: str
    before: list[int]
    after: list[int]
    calls_before: int | None = None
    calls_after: int | None = None

    @staticmethod
    def _summary(values: list[int]) -> int | None:
        return int(statistics.median_low(values)) if values else None

    @property
    def traces_before(self) -> int | None:
        return self._summary(self.before)

    @property
    def traces_after(self) -> int | None:
        return self._summary(self.after)

    def to_json(self) -> dict:
        return {
            "file": self.file,
            "qualname": self.qualname,
            "traces_before": self.traces_before,
            "traces_after": self.traces_after,
            "traces_before_runs": self.before,
            "traces_after_runs": self.after,
            "calls_before": self.calls_before,
            "calls_after": self.calls_after,
        }


def function_rows(before: list[RunRecord], after: list[RunRecord]) -> list[FunctionRow]:
    """One row per tf.function, matched across the trees by file and qualified name.

    The fix may move lines (an injected signature), so first lines only order
    same-named functions of a file.
    """

    def labelled(records: list[RunRecord]) -> dict[tuple[str, str], list[tuple[list[int], list[int]]]]:
        keys = sorted({k for r in records for k in r.traces}, key=lambda k: (k[0], k[2], k[1]))
        grouped: dict[tuple[str, str], list[tuple[list[int], list[int]]]] = {}
        for key in keys:
            counts = [r.traces.get(key, 0) for r in records]
            calls = [r.calls.get(key, 0) for r in records]
            grouped.setdefault((key[0], key[1]), []).append((counts, calls))
        return grouped

    b, a = labelled(before), labelled(after)
    rows = []
    for file, qualname in sorted(set(b) | set(a)):
        lb, la = b.get((file, qualname), []), a.get((file, qualname), [])
        for i in range(max(len(lb), len(la))):
            name = qualname if i == 0 else f"{qualname} #{i + 1}"
            tb, cb = lb[i] if i < len(lb) else ([0] * len(before), [0] * len(before))
            ta, ca = la[i] if i < len(la) else ([0] * len(after), [0] * len(after))
            rows.append(
                FunctionRow(
                    file=file,
                    qualname=name,
                    before=tb,
                    after=ta,
                    calls_before=FunctionRow._summary(cb),
                    calls_after=FunctionRow._summary(ca),
                )
            )
    return rows


@dataclass
class BenchReport:
    command: list[str]
    runs: int
    rtol: float
    atol: float
    project: str
    fixes: FixSummary
    records: list[RunRecord] = field(default_factory=list)
    functions: list[FunctionRow] = field(default_factory=list)
    output_differences: list[str] = field(default_factory=list)
    compared: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    status: str = "ok"  # ok | fail | error
    verdict: str = ""
    exit_code: int = EXIT_OK
    nothing_to_fix: bool = False

    def side(self, side: str) -> list[RunRecord]:
        return [r for r in self.records if r.side == side]

    def ok_runs(self, side: str) -> list[RunRecord]:
        return [r for r in self.side(side) if r.ok]

    def all_ok(self, side: str) -> bool:
        runs = self.side(side)
        return bool(runs) and all(r.ok for r in runs)

    @property
    def tensorflow(self) -> str | None:
        return next((r.tensorflow for r in self.records if r.tensorflow), None)

    def traces_total(self, side: str) -> int | None:
        """Median total traces of the side's successful runs (None when none succeeded)."""
        runs = self.ok_runs(side)
        if not runs:
            return None
        return int(statistics.median_low([r.total_traces for r in runs]))

    def timing(self, attribute: str) -> tuple[Stat | None, Stat | None, float | None]:
        sb, sa = _stat(self.ok_runs("before"), attribute), _stat(self.ok_runs("after"), attribute)
        ratio = None
        if sb is not None and sa is not None and sa.median > 0:
            ratio = sb.median / sa.median
        return sb, sa, ratio

    @property
    def speedup_metric(self) -> str:
        program = self.timing("program_s")
        return "program_s" if program[0] is not None and program[1] is not None else "wall_s"

    @property
    def speedup(self) -> float | None:
        return self.timing(self.speedup_metric)[2]

    def to_json(self) -> dict:
        timing = {}
        for attribute in ("wall_s", "program_s", "program_cpu_s", "tracing_s"):
            sb, sa, ratio = self.timing(attribute)
            timing[attribute] = {
                "before": sb.to_json() if sb else None,
                "after": sa.to_json() if sa else None,
                "speedup": ratio,
            }
        return {
            "format": JSON_FORMAT,
            "version": JSON_VERSION,
            "command": self.command,
            "project": self.project,
            "runs": self.runs,
            "rtol": self.rtol,
            "atol": self.atol,
            "tensorflow": self.tensorflow,
            "machine": machine_info(),
            "fixes": self.fixes.to_json(),
            "nothing_to_fix": self.nothing_to_fix,
            "traces": {"before": self.traces_total("before"), "after": self.traces_total("after")},
            "functions": [row.to_json() for row in self.functions],
            "timing": timing,
            "speedup": self.speedup,
            "speedup_metric": self.speedup_metric,
            "outputs": {
                "compared": self.compared,
                "equal": not self.output_differences,
                "differences": self.output_differences,
            },
            "run_details": [r.to_json() for r in self.records],
            "notes": self.notes,
            "status": self.status,
            "verdict": self.verdict,
            "exit_code": self.exit_code,
        }


def machine_info() -> dict:
    """CPU model, core count, OS and Python: where the numbers were measured."""
    cpu = platform.processor() or ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as handle:
            for line in handle:
                if line.lower().startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {
        "cpu": cpu or platform.machine(),
        "cores": os.cpu_count(),
        "platform": platform.platform(terse=True),
        "python": platform.python_version(),
    }


def judge(report: BenchReport) -> None:
    """Fill in status, verdict and exit code."""
    before_ok, after_ok = report.all_ok("before"), report.all_ok("after")
    tb, ta = report.traces_total("before"), report.traces_total("after")
    fixes = report.fixes.total_applied
    fixes_text = f"{fixes} fix{'es' if fixes != 1 else ''} in {len(report.fixes.files_changed)} file{'s' if len(report.fixes.files_changed) != 1 else ''}"
    if report.nothing_to_fix:
        report.status, report.exit_code = "ok", EXIT_OK
        report.verdict = "nothing to fix with these options: the fixed tree equals the original (see `retrace-fix --check`)"
        return
    if not after_ok:
        failed = next(r for r in report.side("after") if not r.ok)
        why = _failure_text(failed)
        report.status, report.exit_code = "fail", EXIT_FAIL
        if before_ok:
            report.verdict = f"FAIL: the fixed version fails ({why}) where the original runs"
        else:
            report.verdict = f"FAIL: the command fails in both trees ({why}): nothing could be validated"
        return
    if not before_ok:
        failed = next(r for r in report.side("before") if not r.ok)
        report.status, report.exit_code = "ok", EXIT_OK
        report.verdict = (
            f"OK: the original fails ({_failure_text(failed)}) and the fixed version runs "
            f"({fixes_text}; {ta} trace{'s' if ta != 1 else ''})"
        )
        return
    problems = []
    if report.output_differences:
        problems.append(f"outputs differ ({report.output_differences[0]})")
    if tb is not None and ta is not None and ta > tb:
        problems.append(f"the fixed version traces more ({tb} → {ta})")
    if problems:
        report.status, report.exit_code = "fail", EXIT_FAIL
        report.verdict = "FAIL: " + "; ".join(problems)
        return
    parts = [f"traces {tb} → {ta}"]
    metric = report.speedup_metric
    sb, sa, ratio = report.timing(metric)
    if ratio is not None and sb is not None and sa is not None:
        overlap = min(sb.values) <= max(sa.values) and min(sa.values) <= max(sb.values) and len(sb.values) > 1
        what = "program time" if metric == "program_s" else "wall time"
        if ratio >= 1:
            speed = f"{ratio:.2f}× faster ({what} {_seconds(sb.median)} → {_seconds(sa.median)})"
        else:
            speed = f"{1 / ratio:.2f}× slower ({what} {_seconds(sb.median)} → {_seconds(sa.median)})"
        cpu = report.timing("program_cpu_s")[2] if metric == "program_s" else None
        if cpu is not None:
            speed = speed[:-1] + f"; CPU time {cpu:.2f}×)"
        if overlap:
            speed += ", within run-to-run noise"
        parts.append(speed)
    tracing = report.timing("tracing_s")
    if tracing[0] is not None and tracing[1] is not None:
        parts.append(f"tracing {_seconds(tracing[0].median)} → {_seconds(tracing[1].median)}")
    if report.compared:
        parts.append(f"outputs equal (rtol {report.rtol:g})")
    else:
        parts.append("outputs not compared (use --compare or --compare-stdout)")
    report.status, report.exit_code = "ok", EXIT_OK
    report.verdict = f"OK: {fixes_text}; " + ", ".join(parts)


def _failure_text(record: RunRecord) -> str:
    if record.start_error:
        return record.start_error
    if record.timed_out:
        return "timed out"
    return f"exit code {record.exit_code}"


def _seconds(value: float | None) -> str:
    if value is None:
        return "—"
    if value < 1:
        return f"{value * 1000:.1f} ms"
    return f"{value:.2f} s"


def _stat_text(stat: Stat | None) -> str:
    if stat is None:
        return "—"
    if len(stat.values) == 1:
        return _seconds(stat.median)
    return f"{_seconds(stat.median)} ({_seconds(min(stat.values))}–{_seconds(max(stat.values))})"


def _count_text(values: list[int]) -> str:
    if not values:
        return "—"
    low, high = min(values), max(values)
    median = int(statistics.median_low(values))
    return str(median) if low == high else f"{median} ({low}–{high})"


def _ratio_text(ratio: float | None) -> str:
    return "—" if ratio is None else f"{ratio:.2f}×"


def table_rows(report: BenchReport) -> tuple[list[str], list[list[str]], list[str], list[list[str]]]:
    """(trace header, trace rows, timing header, timing rows) shared by every text format."""
    trace_header = ["tf.function", "traces before", "traces after", "calls"]
    trace_rows = []
    # successful runs only: a failed run stops early and traces less
    idx_b = [i for i, r in enumerate(report.side("before")) if r.ok]
    idx_a = [i for i, r in enumerate(report.side("after")) if r.ok]

    def cell(values: list[int], runs: list[RunRecord]) -> str:
        if not runs:
            return ""
        return _count_text(values) if values else "failed"

    for row in report.functions:
        before = [row.before[i] for i in idx_b if i < len(row.before)]
        after = [row.after[i] for i in idx_a if i < len(row.after)]
        calls = row.calls_after if row.calls_after else row.calls_before
        trace_rows.append([f"{row.file}::{row.qualname}", cell(before, report.side("before")),
                           cell(after, report.side("after")), str(calls or "—")])
    total_b = [report.side("before")[i].total_traces for i in idx_b]
    total_a = [report.side("after")[i].total_traces for i in idx_a]
    trace_rows.append(["total", cell(total_b, report.side("before")), cell(total_a, report.side("after")), ""])
    timing_header = ["time (median, min–max)", "before", "after", "speedup"]
    timing_rows = []
    for attribute, label in (
        ("wall_s", "wall time of CMD"),
        ("program_s", "program time (no TF import)"),
        ("program_cpu_s", "program CPU time"),
        ("tracing_s", "TF graph building"),
    ):
        sb, sa, ratio = report.timing(attribute)
        if sb is None and sa is None:
            continue
        timing_rows.append([label, _stat_text(sb), _stat_text(sa), _ratio_text(ratio)])
    return trace_header, trace_rows, timing_header, timing_rows


def _plain_table(header: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(str(c)) for c in column) for column in zip(header, *rows)]
    lines = ["  ".join(str(c).ljust(w) for c, w in zip(header, widths)).rstrip()]
    lines.append("  ".join("-" * w for w in widths))
    for row in rows:
        lines.append("  ".join(str(c).ljust(w) for c, w in zip(row, widths)).rstrip())
    return "\n".join(lines) + "\n"


def _md_table(header: list[str], rows: list[list[str]]) -> str:
    def cell(value: str) -> str:
        return str(value).replace("|", "\\|")

    lines = ["| " + " | ".join(cell(h) for h in header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def _headline(report: BenchReport) -> str:
    fixes = report.fixes
    codes = ", ".join(f"{code} ×{n}" for code, n in sorted(fixes.applied.items())) or "none"
    return (
        f"retrace-fix bench: {' '.join(report.command)}  ({report.runs} run{'s' if report.runs != 1 else ''} per tree"
        f"{', TensorFlow ' + report.tensorflow if report.tensorflow else ''})\n"
        f"fixes applied: {fixes.total_applied} ({codes}) in {len(fixes.files_changed)} file(s)"
        f"{'; ' + str(fixes.diagnostics) + ' diagnostic(s) left' if fixes.diagnostics else ''}\n"
    )


def _failure_details(report: BenchReport) -> list[str]:
    """The first failing run of each side, with the tail of its stderr."""
    lines = []
    for side in SIDES:
        failed = [r for r in report.side(side) if not r.ok]
        if not failed:
            continue
        record = failed[0]
        lines.append(f"{side} run {record.index + 1} of {report.runs}: {_failure_text(record)}"
                     f"{f' ({len(failed)} of {report.runs} runs failed)' if len(failed) > 1 else ''}")
        lines += ["    " + line for line in record.stderr_tail.splitlines()]
    return lines


def render_text(report: BenchReport) -> str:
    out = [_headline(report)]
    if report.records:
        header, rows, theader, trows = table_rows(report)
        out.append("\n" + _plain_table(header, rows))
        if trows:
            out.append("\n" + _plain_table(theader, trows))
    for line in _failure_details(report):
        out.append(line + "\n")
    for note in report.notes:
        out.append(f"note: {note}\n")
    for difference in report.output_differences[1:6]:
        out.append(f"differs: {difference}\n")
    out.append(f"\n{report.verdict}\n")
    return "".join(out)


def render_markdown(report: BenchReport) -> str:
    out = [f"### retrace-fix bench: `{' '.join(report.command)}`\n\n"]
    fixes = report.fixes
    codes = ", ".join(f"{code} ×{n}" for code, n in sorted(fixes.applied.items())) or "none"
    out.append(
        f"{report.runs} run(s) per tree{', TensorFlow ' + report.tensorflow if report.tensorflow else ''}, "
        f"{machine_info()['cpu']}. Fixes applied: **{fixes.total_applied}** ({codes}) in "
        f"{len(fixes.files_changed)} file(s).\n\n"
    )
    if report.records:
        header, rows, theader, trows = table_rows(report)
        out.append(_md_table(header, rows) + "\n")
        if trows:
            out.append(_md_table(theader, trows) + "\n")
    for line in _failure_details(report):
        out.append(f"    {line}\n")
    for note in report.notes:
        out.append(f"> note: {note}\n")
    mark = "✅" if report.status == "ok" else "❌"
    out.append(f"\n{mark} **{report.verdict}**\n")
    if fixes.diff:
        out.append(f"\n<details><summary>diff</summary>\n\n```diff\n{fixes.diff}```\n\n</details>\n")
    return "".join(out)


def render_rich(report: BenchReport, stream: IO[str]) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console(file=stream)
    console.print(_headline(report).rstrip(), markup=False, highlight=False)
    if report.records:
        header, rows, theader, trows = table_rows(report)
        for head, body in ((header, rows), (theader, trows)):
            if not body:
                continue
            table = Table(show_header=True, header_style="bold")
            for i, column in enumerate(head):
                table.add_column(column, justify="left" if i == 0 else "right")
            for row in body:
                style = "bold" if row[0] == "total" else None
                table.add_row(*row, style=style)
            console.print(table)
    for line in _failure_details(report):
        console.print(line, markup=False, highlight=False)
    for note in report.notes:
        console.print(f"note: {note}", markup=False, highlight=False)
    for difference in report.output_differences[1:6]:
        console.print(f"differs: {difference}", markup=False, highlight=False)
    colour = "green" if report.status == "ok" else "red"
    console.print(report.verdict, style=f"bold {colour}", markup=False, highlight=False)


def render(report: BenchReport, output_format: str, stream: IO[str]) -> None:
    if output_format == "json":
        stream.write(json.dumps(report.to_json(), indent=2, ensure_ascii=False) + "\n")
    elif output_format == "markdown":
        stream.write(render_markdown(report))
    else:
        from retrace_fix.output import stream_is_terminal

        if stream_is_terminal(stream):
            render_rich(report, stream)
        else:
            stream.write(render_text(report))


# --------------------------------------------------------------------------- the command


def compare_runs(report: BenchReport, pattern: re.Pattern | None, compare_paths: list[str]) -> None:
    """Compare outputs of each before/after pair of successful runs (fills differences and notes)."""
    before, after = report.side("before"), report.side("after")
    keys = list(compare_paths) + (["stdout"] if pattern is not None else [])
    report.compared = [("stdout /" + pattern.pattern + "/") if k == "stdout" else k for k in keys]
    if not keys:
        return

    def value(record: RunRecord, key: str) -> Any:
        if key == "stdout":
            return TextOutput(stdout_matches(record.outputs.get("stdout", ""), pattern))
        return record.outputs.get(key)

    for b, a in zip(before, after):
        if not (b.ok and a.ok):
            continue
        for key in keys:
            label = report.compared[keys.index(key)]
            if key in a.missing_outputs and key not in b.missing_outputs:
                report.output_differences.append(f"{key}: not written by the fixed version (run {a.index + 1})")
                continue
            diffs = compare_values(value(b, key), value(a, key), report.rtol, report.atol, label)
            report.output_differences += [d for d in diffs if d not in report.output_differences]
    ok_before = [r for r in before if r.ok]
    for key in keys:
        if any(compare_values(value(ok_before[0], key), value(r, key), report.rtol, report.atol) for r in ok_before[1:]):
            report.notes.append(
                f"{report.compared[keys.index(key)]}: the original's outputs differ between its own runs "
                "(nondeterministic: seed the program for a meaningful comparison)"
            )


def _check_compare_sources(report: BenchReport, pattern: re.Pattern | None, compare_paths: list[str]) -> None:
    """An argument that compares nothing is a usage error (exit 2)."""
    ok_before = report.ok_runs("before")
    if not ok_before:
        return
    first = ok_before[0]
    for rel in compare_paths:
        if rel in first.missing_outputs:
            error = first.outputs.get(rel)
            if isinstance(error, OutputError):
                raise BenchError(f"--compare {rel}: {error}")
            raise BenchError(f"--compare {rel}: the original run did not write this file")
    if pattern is not None and not stdout_matches(first.outputs.get("stdout", ""), pattern):
        raise BenchError(f"--compare-stdout {pattern.pattern!r} matched no line of the original's output")


def run_bench(
    request: BenchRequest,
    fixer: Fixer | None = None,
    out: IO[str] | None = None,
    err: IO[str] | None = None,
) -> int:
    """Run the whole bench; print the report on ``out``; return the exit code."""
    out = out or sys.stdout
    err = err or sys.stderr
    try:
        report = bench(request, fixer=fixer, err=err)
    except BenchError as exc:
        err.write(f"retrace-fix bench: error: {exc}\n")
        return EXIT_ERROR
    render(report, request.output_format, out)
    return report.exit_code


def bench(
    request: BenchRequest,
    fixer: Fixer | None = None,
    err: IO[str] | None = None,
) -> BenchReport:
    """Copy, fix, run and compare; raises BenchError for bad arguments."""
    from retrace_fix.discovery import find_project_root

    err = err or sys.stderr
    command = validate(request)
    cwd = Path.cwd().resolve()
    project_root = Path(find_project_root(cwd)).resolve()
    if cwd != project_root and project_root not in cwd.parents:  # pragma: no cover - find_project_root contract
        project_root = cwd
    compare_paths = [_relative_compare_path(spec, project_root, cwd) for spec in request.compare]
    pattern = re.compile(request.compare_stdout) if request.compare_stdout is not None else None
    excluded = _exclude_matcher(project_root, cwd, request.exclude)
    size = project_size(project_root, excluded)
    if size > MAX_COPY_BYTES:
        raise BenchError(
            f"{project_root} holds more than {MAX_COPY_BYTES // 1024**3} GiB; "
            "leave data directories out with --exclude"
        )
    fixer = fixer or engine_fixer(request, project_root)
    auto_record = request.record and not request.traces
    log = (lambda message: None) if request.quiet else (lambda message: (err.write(message + "\n"), err.flush()))
    work = Path(tempfile.mkdtemp(prefix="retrace-fix-bench-"))
    try:
        name = project_root.name or "project"
        trees = {}
        for side in SIDES:
            root = work / side / name
            copy_project(project_root, root, excluded)
            trees[side] = _Tree(side=side, root=root, cwd=root / cwd.relative_to(project_root))
        shim_dir = write_shim(work / "site")

        def run(side: str, index: int, prove: bool = False) -> RunRecord:
            record = run_once(
                trees[side], index, command, work, shim_dir, project_root, compare_paths, request.timeout, prove
            )
            state = "ok" if record.ok else _failure_text(record)
            traces = record.total_traces
            log(
                f"  run {index + 1}/{request.runs} {side:<6} {state:<12} wall {_seconds(record.wall_s)}, "
                f"{traces} trace{'s' if traces != 1 else ''}"
            )
            return record

        records: list[RunRecord] = []
        recorded = None
        if auto_record:
            log(f"retrace-fix bench: recording `{' '.join(command)}` on the original to find trace-driven fixes")
            records.append(run("before", 0, prove=True))
            recorded = records[0].trace_set if records[0].trace_set is not None and len(records[0].trace_set) else None
        summary = fixer(trees["before"].root, trees["after"].root, project_root, recorded)
        report = BenchReport(
            command=command,
            runs=request.runs,
            rtol=request.rtol,
            atol=request.atol,
            project=str(project_root),
            fixes=summary,
            records=records,
        )
        if recorded is not None:
            report.notes.append(
                f"fixes driven by the traces of the original's first run ({sum(len(f.traces) for f in recorded)} "
                f"distinct traces of {len(recorded)} function{'s' if len(recorded) != 1 else ''}); "
                "give --traces to use a recording of your own, --no-record for static fixes only"
            )
        for problem in summary.errors:
            report.notes.append(f"not fixed: {problem}")
        if not summary.files_changed:
            report.nothing_to_fix = True
            report.functions = function_rows(report.side("before"), [])
            judge(report)
            return report
        log(
            f"retrace-fix bench: {summary.total_applied} fix(es) in {len(summary.files_changed)} file(s); "
            f"running `{' '.join(command)}` {request.runs}× per tree in {work}"
        )
        for index in range(request.runs):
            order = SIDES if index % 2 == 0 else tuple(reversed(SIDES))
            for side in order:
                if index == 0 and side == "before" and auto_record:
                    continue  # the recording run is the original's first run
                report.records.append(run(side, index))
        report.records.sort(key=lambda r: (SIDES.index(r.side), r.index))
        _check_compare_sources(report, pattern, compare_paths)
        report.functions = function_rows(report.side("before"), report.side("after"))
        compare_runs(report, pattern, compare_paths)
        if report.all_ok("before") and report.all_ok("after") and not any(r.traces for r in report.records):
            report.notes.append("no tf.function traces were recorded (does CMD run Python code of this project that uses TensorFlow?)")
        judge(report)
        if request.keep:
            report.notes.append(f"trees kept in {work}")
        return report
    finally:
        if not request.keep:
            shutil.rmtree(work, ignore_errors=True)


def register(app: Any) -> None:
    """Add the ``bench`` subcommand to the typer ``app``."""
    import typer

    @app.command(
        "bench",
        help="Run CMD before and after the fixes (on copies of the project) and compare traces, time and outputs.",
        context_settings={"allow_interspersed_args": False, "ignore_unknown_options": True},
    )
    def bench_command(
        command: List[str] = typer.Argument(None, help="the command to run, after --"),
        runs: int = typer.Option(3, "--runs", "-n", help="runs per tree (fresh processes)"),
        traces: Optional[List[str]] = typer.Option(None, "--traces", help="recorded trace file (repeatable; merged)"),
        unsafe_fixes: Optional[bool] = typer.Option(None, "--unsafe-fixes/--no-unsafe-fixes", help="also apply fixes of the unsafe tier"),
        select: Optional[List[str]] = typer.Option(None, "--select", help="only these codes (comma list, prefixes allowed)"),
        ignore: Optional[List[str]] = typer.Option(None, "--ignore", help="all but these codes"),
        exclude: Optional[List[str]] = typer.Option(None, "--exclude", help="gitignore-style pattern: not copied, not fixed (repeatable)"),
        compare: Optional[List[str]] = typer.Option(None, "--compare", help="results file CMD writes (.npy/.npz/.json/text), relative to the current directory (repeatable)"),
        compare_stdout: Optional[str] = typer.Option(None, "--compare-stdout", help="compare the stdout lines matching this regex (its groups, if any)"),
        rtol: float = typer.Option(1e-5, "--rtol", help="relative tolerance for numbers"),
        atol: float = typer.Option(1e-8, "--atol", help="absolute tolerance for numbers"),
        output_format: str = typer.Option("text", "--format", help="text, json or markdown"),
        timeout: Optional[float] = typer.Option(None, "--timeout", help="seconds per run before it is killed"),
        keep: bool = typer.Option(False, "--keep", help="keep the temporary trees (their path is printed)"),
        config: Optional[Path] = typer.Option(None, "--config", help="pyproject.toml to read [tool.retrace-fix] from"),
        record: bool = typer.Option(True, "--record/--no-record", help="without --traces: fix from the traces of the original's first run"),
        quiet: bool = typer.Option(False, "--quiet", "-q", help="no progress lines on stderr"),
    ) -> None:
        def codes(values: Optional[List[str]]) -> list[str]:
            return [c.strip().upper() for v in values or [] for c in v.split(",") if c.strip()]

        request = BenchRequest(
            command=list(command or []),
            runs=runs,
            traces=list(traces or []),
            unsafe_fixes=unsafe_fixes,
            select=codes(select) or None,
            ignore=codes(ignore),
            exclude=list(exclude or []),
            compare=list(compare or []),
            compare_stdout=compare_stdout,
            rtol=rtol,
            atol=atol,
            output_format=output_format,
            timeout=timeout,
            keep=keep,
            config=config,
            quiet=quiet,
            record=record,
        )
        raise typer.Exit(run_bench(request))
