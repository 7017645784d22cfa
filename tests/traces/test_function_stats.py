"""Unit tests of retrace_fix/traces/function_stats.py: the variable-owning objects a tf.function closes over.

No TensorFlow: stand-in classes carry the package and class names the recorder reads
(``tests/codemods/test_fresh_captures_tf.py`` runs the real thing).
"""

from __future__ import annotations

import gc
import types

from retrace_fix.traces.function_stats import fresh_capture, owns_variables, variable_owner_captures

Layer = type("Layer", (), {"__module__": "keras.src.layers.layer"})
Model = type("Model", (Layer,), {"__module__": "keras.src.models.model"})
Variable = type("Variable", (), {"__module__": "tensorflow.python.ops.variables"})
NotTf = type("Layer", (), {"__module__": "myproject.layers"})  # a project's own class of that name


class FakeFunction:
    """What the recorder reads of a tf.function: its ``_python_function``."""

    def __init__(self, python_function):
        self._python_function = python_function


def make_step(net, rate, config):
    def step(x):
        return net, rate, config, x

    return FakeFunction(step)


def test_owns_variables_by_tensorflow_or_keras_class_names_in_the_mro():
    assert owns_variables(Model()) and owns_variables(Variable())
    assert not owns_variables(NotTf()) and not owns_variables(0.05) and not owns_variables([Model()])


def test_a_new_model_is_a_fresh_capture_the_same_model_is_not():
    first, second = Model(), Model()
    before = variable_owner_captures(make_step(first, 0.1, {"a": 1}))
    assert [name for name, _ in before] == ["net"]  # the float and the dict are no variable owners
    assert fresh_capture(before, variable_owner_captures(make_step(second, 0.1, {"a": 1})))
    assert not fresh_capture(before, variable_owner_captures(make_step(first, 0.2, {"a": 2})))


def test_a_model_gone_since_is_another_model_and_nothing_is_held():
    first = Model()
    before = variable_owner_captures(make_step(first, 0.1, None))
    del first
    gc.collect()
    assert before[0][1]() is None  # held weakly
    assert fresh_capture(before, variable_owner_captures(make_step(Model(), 0.1, None)))


def test_a_bound_methods_instance_counts_as_self():
    class Trainer(Layer):
        def loss(self):
            return 0.0

    one, other = Trainer(), Trainer()
    before = variable_owner_captures(FakeFunction(types.MethodType(Trainer.loss, one)))
    assert [name for name, _ in before] == ["self"]
    assert fresh_capture(before, variable_owner_captures(FakeFunction(other.loss)))
    assert not fresh_capture(before, variable_owner_captures(FakeFunction(one.loss)))
    assert not fresh_capture((), variable_owner_captures(FakeFunction(other.loss)))  # nothing to compare with
