"""Worker tasks: largest files first, so one big file does not keep a worker busy after the others ran dry.

Pure rewriter: no TensorFlow import.  No timings: the plan itself is checked.
"""

from __future__ import annotations

from pathlib import Path

from retrace_fix.engine.options import RunOptions
from retrace_fix.engine.pool import CHUNK_FILES, chunk_jobs
from retrace_fix.engine.run import make_jobs, run

RELAX_SRC = "import tensorflow as tf\n\n\n@tf.function(experimental_relax_shapes=True)\ndef f(x):\n    return x\n"


def _tree(tmp_path: Path, sizes: dict[str, int]) -> list[Path]:
    for name, size in sizes.items():
        (tmp_path / name).write_text("x = 1\n" + "#" * max(0, size - 6) + "\n")
    return sorted(tmp_path.glob("*.py"))


def test_largest_files_go_first_and_alone(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    sizes = {"big.py": 400_000, "medium.py": 150_000, **{f"small{i:02}.py": 1_000 for i in range(40)}}
    chunks = chunk_jobs(make_jobs(_tree(tmp_path, sizes)), workers=2)

    names = [[job.path.name for job in chunk] for chunk in chunks]
    assert names[0] == ["big.py"] and names[1] == ["medium.py"]
    assert all(len(chunk) <= CHUNK_FILES for chunk in chunks)
    flat = [name for chunk in names for name in chunk]
    assert sorted(flat) == sorted(sizes) and len(flat) == len(set(flat))  # every file exactly once


def test_a_missing_file_is_planned_and_reported(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    files = _tree(tmp_path, {"a.py": 10, "b.py": 10})
    gone = tmp_path / "gone.py"
    chunks = chunk_jobs(make_jobs([*files, gone]), workers=2)
    assert sorted(job.path.name for chunk in chunks for job in chunk) == ["a.py", "b.py", "gone.py"]
    result = run([*files, gone], RunOptions(), jobs=2)
    errors = {r.path: r.error for r in result.files if r.error}
    assert list(errors) == ["gone.py"] and errors["gone.py"].startswith("gone.py:1: cannot read:")


def test_parallel_results_do_not_depend_on_the_plan(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for index in range(30):
        (tmp_path / f"m{index:02}.py").write_text(RELAX_SRC + "#" * (index * 997))
    files = sorted(tmp_path.glob("*.py"))
    serial = run(files, RunOptions(), jobs=1)
    parallel = run(files, RunOptions(), jobs=2)
    assert [r.path for r in parallel.files] == [p.name for p in files]
    assert [(r.path, r.fixed, [f.to_json() for f in r.findings]) for r in parallel.files] == [
        (r.path, r.fixed, [f.to_json() for f in r.findings]) for r in serial.files
    ]
    assert all("reduce_retracing=True" in r.fixed for r in parallel.files)
