"""pytest plugin: ``pytest --retrace-record FILE`` records the tf.function traces of a test run.

Registered through the ``pytest11`` entry point, so it is loaded by every pytest
run: without the option it does nothing and imports nothing heavy (no
TensorFlow).  With it, the recorder is installed when pytest is configured and
FILE (relative to the invocation directory) is written atomically when the
session finishes, failing tests included, after the candidate fixes of every
function that retraced were trial-traced (proofs, see
:mod:`retrace_fix.traces.prover`).
"""

from __future__ import annotations

import os
from typing import Any

_STATE_KEY = "_retrace_fix_record_state"


def pytest_addoption(parser: Any) -> None:
    group = parser.getgroup("retrace-fix")
    group.addoption(
        "--retrace-record",
        metavar="FILE",
        default=None,
        help="record tf.function traces during the test run and write them to FILE (retrace-fix trace format)",
    )


def pytest_configure(config: Any) -> None:
    path = config.getoption("retrace_record", default=None)
    if not path:
        return
    from retrace_fix.traces import recorder

    state = {
        "recorder": recorder.activate(recorder.Recorder()),
        "path": os.path.join(str(config.invocation_params.dir), path),
        "message": None,
    }
    setattr(config, _STATE_KEY, state)


def _write(state: dict) -> None:
    from retrace_fix.traces.model import save_trace_file

    if state["message"] is not None:
        return
    from retrace_fix.traces.retrace_report import recorded_line

    trace_set = state["recorder"].trace_set(prove=True)
    from retrace_fix.traces.project import project_of

    trace_set.project = project_of(state["recorder"].project_root)
    save_trace_file(trace_set, state["path"])
    state["message"] = f"retrace-fix: {recorded_line(trace_set)} to {state['path']}"


def pytest_sessionfinish(session: Any, exitstatus: Any) -> None:
    state = getattr(session.config, _STATE_KEY, None)
    if state is not None:
        _write(state)


def pytest_terminal_summary(terminalreporter: Any, exitstatus: Any, config: Any) -> None:
    state = getattr(config, _STATE_KEY, None)
    if state is not None and state["message"]:
        terminalreporter.write_line(state["message"])


def pytest_unconfigure(config: Any) -> None:
    state = getattr(config, _STATE_KEY, None)
    if state is None:
        return
    delattr(config, _STATE_KEY)
    from retrace_fix.traces import recorder

    try:
        _write(state)  # no-op when the session finished normally
    finally:
        recorder.deactivate(state["recorder"])
