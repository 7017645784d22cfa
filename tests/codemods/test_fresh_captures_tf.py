"""Executed: a tf.function defined per call around each fold's new model traces once per model, never twice.

Issue 22's negative (``golden/hoist-tf-function/new-model-per-fold-traces``): ``train_fold(net,
...)`` defines ``@tf.function step`` closing over ``net`` and is called once per cross-validation
fold with a new model.  TensorFlow itself counts one trace per Function object and no object
traced twice (``experimental_get_tracing_count``); the recorder writes ``fresh_captures`` for each
re-creation around a new model, RTF006 reads that as "not a retrace" and says nothing.  The near
miss, ``train_epoch`` called every epoch with the same model, records the same trace counts but no
fresh capture, and stays reported.  One import of TensorFlow and one recording for the module.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

tf = pytest.importorskip("tensorflow")  # skipped, not an error, where TensorFlow is not installed

from retrace_fix.traces.context import record_traces  # noqa: E402
from retrace_fix.traces.model import load_trace_file  # noqa: E402
from tests.support.case_modules import CountingTf, load_module  # noqa: E402
from tests.support.cli_runner import run_cli  # noqa: E402

pytestmark = pytest.mark.tf

CASE = Path(__file__).resolve().parents[2] / "golden" / "hoist-tf-function" / "new-model-per-fold-traces"


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """The case run as drive.py runs it, recorded; the Function objects each call made, by function."""
    directory = Path(os.path.realpath(tmp_path_factory.mktemp("fresh-captures")))
    shutil.copyfile(CASE / "input.py", directory / "input.py")
    module = load_module(directory / "input.py", "_fresh_captures_case")
    made: dict[str, list] = {"train_fold": [], "train_epoch": []}
    rng = __import__("numpy").random.default_rng(0)
    x = rng.normal(size=(24, 4)).astype("float32")
    y = (x[:, :1] - x[:, 1:2]).astype("float32")
    batches = [(tf.constant(x[i:i + 8]), tf.constant(y[i:i + 8])) for i in range(0, 24, 8)]
    with record_traces(directory / "traces.json", project_root=str(directory), prove=False):
        for fold in range(3):
            module.tf = CountingTf(tf, made["train_fold"])
            module.train_fold(module.build(fold), batches)
        shared = module.build(7)
        for _ in range(3):
            module.tf = CountingTf(tf, made["train_epoch"])
            module.train_epoch(shared, batches)
    module.tf = tf
    return directory, made, load_trace_file(directory / "traces.json")


def _function(trace_set, qualname):
    [function] = [f for f in trace_set.functions.values() if f.qualname == qualname]
    return function


def test_each_folds_new_function_traces_once_and_none_twice(recorded):
    _, made, _ = recorded
    assert len(made["train_fold"]) == 3  # one tf.function per fold
    assert [f.experimental_get_tracing_count() for f in made["train_fold"]] == [1, 1, 1]
    assert len(made["train_epoch"]) == 3
    assert [f.experimental_get_tracing_count() for f in made["train_epoch"]] == [1, 1, 1]


def test_the_recording_tells_a_new_model_per_fold_from_the_same_model_per_epoch(recorded):
    _, _, trace_set = recorded
    fold = _function(trace_set, "train_fold.<locals>.step")
    epoch = _function(trace_set, "train_epoch.<locals>.step")
    # one input signature each, traced by 3 function objects
    assert (len(fold.traces), fold.total_traces, fold.recreated) == (1, 3, 2)
    assert (len(epoch.traces), epoch.total_traces, epoch.recreated) == (1, 3, 2)
    assert fold.fresh_captures == 2  # each re-creation closed over another model
    assert epoch.fresh_captures == 0  # the same model every time: a retrace to remove


def test_rtf006_is_quiet_on_the_folds_and_reports_the_epochs(recorded):
    directory, _, _ = recorded
    result = run_cli("--check", "--select", "RTF006,RTF101", "--traces", "traces.json", "input.py", cwd=directory)
    assert result.returncode == 1, result.stderr
    findings = [line for line in result.stdout.splitlines() if "RTF" in line]
    assert len(findings) == 1, result.stdout
    assert findings[0].startswith("input.py:27:5: RTF006 [diagnostic] `@tf.function def step` creates a new "
                                  "tf.function every time `train_epoch` runs (the recorded run traced it 3 times")
