"""Re-record the ``traces.json`` of golden cases from their ``drive.py`` (real TensorFlow).

A golden case's traces are what a recording of its drive program writes: the
traces, the call sites and the proofs (each candidate fix trial-traced on the
live function at the end of the recording).  Usage::

    python tests/support/record_golden_traces.py                   # every case with drive.py and traces.json
    python tests/support/record_golden_traces.py input-signature/python-int-step-count ...

Each case runs in this one process (TensorFlow is imported once), in a copy of
its directory that is the project root, the way ``tests/support/semantic_runner.py``
runs it, under ``record_traces(..., prove=True)``.  Then re-run the golden
tests with ``--update-golden`` and read the diff.
"""

from __future__ import annotations

import json
import os
import runpy
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "golden"
SKIP = {"input.py", "expected.py", "findings.txt", "case.toml", "traces.json"}


def cases(names: list[str]) -> list[Path]:
    if names:
        return [GOLDEN / name for name in names]
    return sorted(p.parent for p in GOLDEN.glob("*/*/traces.json") if (p.parent / "drive.py").is_file())


def record(case: Path, work: Path) -> None:
    import tensorflow as tf

    from retrace_fix.traces.context import record_traces

    directory = Path(os.path.realpath(work / case.parent.name / case.name))
    directory.mkdir(parents=True)
    shutil.copyfile(case / "input.py", directory / "input.py")
    for path in case.iterdir():
        if path.is_file() and path.name not in SKIP:
            shutil.copyfile(path, directory / path.name)
    for name in [n for n, m in sys.modules.items() if n == "input" or str(getattr(m, "__file__", "") or "").startswith(str(work))]:
        del sys.modules[name]
    tf.keras.utils.set_random_seed(0)
    sys.path.insert(0, str(directory))
    cwd = os.getcwd()
    os.chdir(directory)
    output = directory / "traces.json"
    try:
        with record_traces(output, project_root=str(directory), prove=True):
            namespace = runpy.run_path(str(directory / "drive.py"), run_name="__main__")  # noqa: F841 (kept alive for the proofs)
    finally:
        os.chdir(cwd)
        sys.path.remove(str(directory))
    data = json.loads(output.read_text(encoding="utf-8"))
    (case / "traces.json").write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{case.relative_to(GOLDEN)}: {sum(len(f['traces']) for f in data['functions'])} traces, "
          f"{sum(len(f['proofs']) for f in data['functions'])} proofs")


def main(argv: list[str]) -> int:
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    work = Path(tempfile.mkdtemp(prefix="golden-traces-"))
    try:
        for case in cases(argv):
            record(case, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
