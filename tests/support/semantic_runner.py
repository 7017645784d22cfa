"""Child process of ``test_semantic_golden_tf.py``: run golden ``drive.py`` programs under TensorFlow.

Usage: ``python tests/support/semantic_runner.py MANIFEST RESULTS``.  MANIFEST is a JSON
list of ``{"id": ..., "directory": ...}``; each directory holds ``input.py``
(the code of one side: a case's ``input.py`` or its ``expected.py``) and the
case's ``drive.py``.  For every case, in one process (TensorFlow is imported
once), this

* resets every random seed and Keras's seed generator (``keras.utils.set_random_seed(0)``;
  not ``clear_session()``, whose ``gc.collect()`` costs half a second per case),
* puts the directory first on ``sys.path`` and forgets any module imported
  from a previous case (so ``import input`` gets this case's module),
* runs ``drive.py`` as ``__main__`` with stdout captured, inside the trace
  recorder (``record_traces``, project root = the directory),
* and appends ``{"id", "stdout", "error", "traces": {qualname: total traces}}``
  to RESULTS (JSON lines, flushed per case, so a crash names its case).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import runpy
import sys
import traceback


def _forget_case_modules(directory: str) -> None:
    prefix = directory + os.sep
    for name, module in list(sys.modules.items()):
        path = getattr(module, "__file__", None)
        if name == "input" or (isinstance(path, str) and path.startswith(prefix)):
            del sys.modules[name]


def run_case(case: dict) -> dict:
    import tensorflow as tf

    from retrace_fix.traces.context import record_traces
    from retrace_fix.traces.model import load_trace_file

    directory = os.path.realpath(case["directory"])
    _forget_case_modules(directory)
    tf.keras.utils.set_random_seed(0)
    stdout = io.StringIO()
    error = None
    trace_file = os.path.join(directory, ".traces.json")
    sys.path.insert(0, directory)
    cwd = os.getcwd()
    os.chdir(directory)
    try:
        with record_traces(trace_file, project_root=directory, prove=False):  # counts only: no proofs
            with contextlib.redirect_stdout(stdout):
                runpy.run_path(os.path.join(directory, "drive.py"), run_name="__main__")
    except BaseException as exc:  # SystemExit included: the case failed, the runner goes on
        if isinstance(exc, SystemExit) and exc.code in (0, None):
            error = None
        else:
            error = "".join(traceback.format_exception_only(type(exc), exc)).strip()
    finally:
        os.chdir(cwd)
        sys.path.remove(directory)
        _forget_case_modules(directory)
    traces: dict[str, int] = {}
    if os.path.exists(trace_file):
        for function in load_trace_file(trace_file):
            traces[function.qualname] = traces.get(function.qualname, 0) + function.total_traces
    return {"id": case["id"], "stdout": stdout.getvalue(), "error": error, "traces": traces}


def main(argv: list[str]) -> int:
    manifest_path, results_path = argv
    with open(manifest_path, encoding="utf-8") as handle:
        cases = json.load(handle)
    import tensorflow  # noqa: F401  (once, before the first case)

    with open(results_path, "w", encoding="utf-8") as out:
        for case in cases:
            result = run_case(case)
            out.write(json.dumps(result) + "\n")
            out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
