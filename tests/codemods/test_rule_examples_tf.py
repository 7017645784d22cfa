"""The ``Example`` blocks of rule pages that need recorded traces, under real TensorFlow.

*Before* runs in this process under the trace recorder (``record_traces``, project
root = the example's directory); then the codemod, given those traces, must write
exactly the *After* block, and leave *After* as it is.
"""

from __future__ import annotations

import runpy

import pytest

pytest.importorskip("tensorflow")  # skipped, not an error, where TensorFlow is not installed

from retrace_fix.rules import Example, Rule
from tests.support.rule_examples import check_fix, examples, program

pytestmark = pytest.mark.tf

TRACED = examples(traced=True)


@pytest.mark.parametrize("rule, example", [(r, e) for _, r, e in TRACED], ids=[i for i, _, _ in TRACED])
def test_traced_example(rule: Rule, example: Example, tmp_path):
    from retrace_fix.traces.context import record_traces
    from retrace_fix.traces.model import load_trace_files

    script = tmp_path / "example.py"
    script.write_text(program(example.before), encoding="utf-8")
    trace_file = tmp_path / "traces.json"
    with record_traces(trace_file, project_root=str(tmp_path)):
        runpy.run_path(str(script), run_name="example")
    traces = load_trace_files([str(trace_file)])
    check_fix(tmp_path, rule, example, traces)
