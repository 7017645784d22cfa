"""``retrace-fix bench`` on a real TensorFlow program: record, fix from the traces, run both trees.

Kept to two benches of one run per tree: four fresh TensorFlow processes.
"""

from __future__ import annotations

import hashlib
import io
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("tensorflow")  # skipped, not an error, where TensorFlow is not installed

from tests.support.cli_runner import process_env
from tests.support.tracefiles import with_proofs

pytestmark = pytest.mark.tf

pytest.importorskip("numpy")

PROG = textwrap.dedent(
    """\
    import tensorflow as tf


    @tf.function
    def energy(x):
        return tf.reduce_sum(tf.square(x), axis=1)
    """
)
DRIVE = textwrap.dedent(
    """\
    import numpy as np
    import tensorflow as tf

    from prog import energy

    out = [float(energy(tf.ones([n, 4]) * n).numpy().sum()) for n in (2, 3, 5, 7, 2, 3)]
    np.save("out.npy", np.array(out, dtype="float32"))
    print("sum", sum(out))
    """
)


def tree_hash(root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            digest.update(path.relative_to(root).as_posix().encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    project = tmp_path / "proj"
    project.mkdir()
    (project / "prog.py").write_text(PROG)
    (project / "drive.py").write_text(DRIVE)
    return project


def test_bench_records_fixes_removes_retraces_keeps_outputs_and_leaves_the_tree_alone(project: Path):
    """`retrace-fix bench -- python drive.py`: the original's first run is recorded and drives RTF003."""
    before = tree_hash(project)
    result = subprocess.run(
        [sys.executable, "-m", "retrace_fix", "bench", "--runs", "1", "--compare", "out.npy",
         "--compare-stdout", "^sum", "--format", "json", "--", sys.executable, "drive.py"],
        cwd=project, env=process_env(), capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(result.stdout)
    assert report["fixes"]["by_code"] == {"RTF003": 1}
    assert "input_signature=[tf.TensorSpec(shape=[None, 4], dtype=tf.float32)]" in report["fixes"]["diff"]
    assert report["traces"] == {"before": 4, "after": 1}
    assert [(f["file"], f["qualname"], f["traces_before"], f["traces_after"], f["calls_after"])
            for f in report["functions"]] == [("prog.py", "energy", 4, 1, 6)]
    assert report["outputs"] == {"compared": ["out.npy", "stdout /^sum/"], "equal": True, "differences": [],
                                 "masked": [], "stable": True}
    assert report["tensorflow"]
    assert any(note.startswith("fixes driven by the traces of the original's first run") for note in report["notes"])
    timing = report["timing"]
    for metric in ("wall_s", "program_s", "program_cpu_s", "tracing_s"):
        assert timing[metric]["before"]["median"] > 0 and timing[metric]["after"]["median"] > 0
        assert timing[metric]["speedup"] is not None
    assert report["speedup_metric"] == "program_s" and report["speedup"] == timing["program_s"]["speedup"]
    assert report["verdict"].startswith("OK: 1 fix in 1 file; traces 4 → 1, ")
    assert tree_hash(project) == before
    assert not (project / "out.npy").exists()


def _trace_file(path: Path) -> Path:
    """What `retrace-fix record` writes for DRIVE (four batch sizes of one tf.function)."""
    traces = [
        {"args": {"x": {"kind": "tensor", "shape": [n, 4], "dtype": "float32"}}, "count": 1, "nested": False, "via": "call"}
        for n in (2, 3, 5, 7)
    ]
    path.write_text(json.dumps(with_proofs({
        "format": "retrace-fix-traces", "version": 1, "tensorflow": "2.21.0",
        "functions": [{"file": "prog.py", "qualname": "energy", "firstlineno": 4, "name": "energy", "params": ["x"],
                       "calls": 6, "reduce_retracing": False, "has_input_signature": False, "traces": traces}],
    })))  # with the proofs the end of the recording stores
    return path


def test_bench_exit_1_when_a_fix_changes_results(project: Path, tmp_path: Path, monkeypatch):
    """A deliberately broken fixer: the real fix (from a --traces file) plus a change of the numbers."""
    from retrace_fix.commands.bench import BenchRequest, engine_fixer, run_bench

    traces = _trace_file(tmp_path / "traces.json")
    before = tree_hash(project)
    monkeypatch.chdir(project)
    monkeypatch.setenv("TF_CPP_MIN_LOG_LEVEL", "2")
    request = BenchRequest(command=[sys.executable, "drive.py"], runs=1, traces=[str(traces)],
                           compare=["out.npy"], quiet=True)
    real_fix = engine_fixer(request, project)

    def broken(before_root: Path, after_root: Path, project_root: Path, recorded=None):
        assert recorded is None  # --traces given: no recording run
        summary = real_fix(before_root, after_root, project_root, recorded)
        prog = after_root / "prog.py"
        prog.write_text(prog.read_text().replace("tf.square(x)", "tf.square(x) * 1.001"))
        return summary

    out = io.StringIO()
    assert run_bench(request, fixer=broken, out=out, err=io.StringIO()) == 1
    text = out.getvalue()
    assert "FAIL: outputs differ (out.npy: 6 of 6 elements differ" in text
    assert "prog.py::energy  4              1" in text
    assert tree_hash(project) == before
