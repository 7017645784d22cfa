"""One run of CMD in one copy of the project, under the trace recorder and the timing probe.

CMD runs in a fresh process from the copy of the current directory, with the
recorder's ``sitecustomize`` first on ``PYTHONPATH``: it installs the recorder,
then the timing probe (:mod:`retrace_fix.bench.probe`, named in
``$RETRACE_FIX_SITE_MODULES``).  A run
yields a :class:`RunRecord`: exit code, wall time, the probe's timings, the
traces of every tf.function, and the outputs to compare.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from retrace_fix.bench.outputs import OutputError, load_output
from retrace_fix.bench import probe
from retrace_fix.bench.probe import ENV_BENCH_DIR
from retrace_fix.traces.per_process import merge_shards, recording_env

#: How much of a failing run's stderr to show.
STDERR_TAIL_LINES = 12


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


def child_env(shard_dir: Path, timing_dir: Path, tree_root: Path, prove: bool = False) -> dict[str, str]:
    """The environment of one run: the recorder's sitecustomize, which installs the timing probe after it.

    Only the run whose traces drive the fixes (``prove``) trial-traces the candidate fixes at its
    end (proofs); every other run leaves them out, so that they cost no time that is measured.
    """
    from retrace_fix.traces.prover import ENV_PROOF_SECONDS

    base = {k: v for k, v in os.environ.items() if not k.startswith("RETRACE_FIX_") or k.startswith("RETRACE_FIX_PROOF_")}
    env = recording_env(str(shard_dir), str(tree_root), base, site_modules=(probe.__name__,))
    if not prove:
        env[ENV_PROOF_SECONDS] = "0"
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
    trace_set = merge_shards(str(shard_dir))
    record.trace_set = trace_set
    for function in trace_set:
        record.traces[function.key] = function.total_traces
        record.calls[function.key] = function.calls
    record.tensorflow = record.tensorflow or trace_set.tensorflow_version


@dataclass
class Tree:
    side: str
    root: Path  # the copy of the project root
    cwd: Path  # the copy of the current directory


def run_once(
    tree: Tree,
    index: int,
    command: list[str],
    work: Path,
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
    env = child_env(shard_dir, timing_dir, tree.root, prove)
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
