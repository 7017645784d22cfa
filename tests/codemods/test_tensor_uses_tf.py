"""The tensor-index and Variable-indices fixes, executed: same outputs, N traces -> 1.

Runs the ``input.py`` and ``expected.py`` of the two positive golden cases in this process
(TensorFlow imported once) and compares results and tf.function trace counts.
"""

from __future__ import annotations

from pathlib import Path

import pytest

tf = pytest.importorskip("tensorflow")

from tests.support.case_modules import load_module  # noqa: E402

pytestmark = pytest.mark.tf

GOLDEN = Path(__file__).resolve().parents[2] / "golden"


def _both(case: str):
    directory = GOLDEN / case
    return [load_module(directory / f"{side}.py", f"tensor_uses_{side}_{directory.name.replace('-', '_')}")
            for side in ("input", "expected")]


def test_tensor_index_param_same_values_one_trace():
    results, counts = [], []
    for module in _both("input-signature/tensor-index-param"):
        out = module.run(tf.constant([32, 48, 64]), tf.reshape(tf.range(9), [3, 3]), tf.constant([-0.5, 0.0, 0.5]))
        results.append([[t.numpy().tolist() for t in pair] for pair in out])
        counts.append(module.neighbour_indices.experimental_get_tracing_count())
    assert results[0] == results[1]
    assert results[0][2][1] == [8, 12, 16]  # grid[2, ...] + grid[..., 2]: the index reached the op
    assert counts == [3, 1]


def test_variable_scatter_indices_same_history_one_trace():
    losses, histories, counts = [], [], []
    for module in _both("call-site-tensor/variable-scatter-indices"):
        module.model.set_weights([tf.ones([3, 2]).numpy(), tf.zeros([2]).numpy()])
        losses.append([float(v) for v in module.run(tf.reshape(tf.range(6, dtype=tf.float32), [2, 3]))])
        histories.append(module.history.numpy().tolist())
        counts.append(module.train_step.experimental_get_tracing_count())
    assert losses[0] == losses[1]
    assert histories[0] == histories[1] == [7.5, 7.5, 7.5, 7.5]
    assert counts == [4, 1]


def test_self_variable_scatter_indices_same_history_one_trace():
    losses, histories, counts = [], [], []
    for module in _both("input-signature/self-variable-scatter-indices"):
        trainer = module.Trainer()
        trainer.weights.assign([1.0, 2.0, 3.0])
        losses.append([float(v) for v in module.run(trainer, tf.constant([1.0, 2.0, 3.0]))])
        histories.append(trainer.history.numpy().tolist())
        counts.append(trainer.train_step.experimental_get_tracing_count())
    assert losses[0] == losses[1]
    assert histories[0] == histories[1]
    assert histories[0][3] == pytest.approx(14 / 3)
    assert counts == [4, 1]
