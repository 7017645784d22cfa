"""RTF005's static checks for a bool flag's branches and for the body's own ``tf.constant(param)``."""

from __future__ import annotations

import libcst as cst
import pytest

from retrace_fix.codemods._flag_branches import flag_branch_risk
from retrace_fix.codemods._own_constants import own_constants, rewritten
from retrace_fix.tfnames import ImportTable, Scope


def _def(source: str) -> tuple[cst.FunctionDef, Scope]:
    module = cst.parse_module("import tensorflow as tf\n\n" + source)
    node = next(s for s in module.body if isinstance(s, cst.FunctionDef))
    return node, Scope(ImportTable.from_module(module))


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("    if flag:\n        return x * 2.0\n    return x\n", None),
        ("    return x * 2.0 if flag else x\n", None),
        ("    y = x\n    if not flag and y is not None:\n        y = tf.nn.relu(y)\n    return y\n", None),
        ("    if flag:\n        print('on')\n    return x\n", "print('on')"),
        ("    outs = []\n    if flag:\n        outs.append(x)\n    return x\n", "outs.append(x)"),
        ("    if flag:\n        self.mode = 1\n    return x\n", "self.mode = 1"),
        ("    while flag:\n        x = x - 1\n    return x\n", "tf.while_loop"),
        ("    return x\n", "not found"),
    ],
)
def test_flag_branch_risk(body, expected):
    node, scope = _def(f"def f(self, x, flag):\n{body}")
    risk = flag_branch_risk(node, "flag", scope)
    if expected is None:
        assert risk is None
    else:
        assert risk is not None and expected in risk


def test_a_training_flag_is_never_called_safe():
    node, scope = _def("def f(x, training):\n    if training:\n        x = x * 2.0\n    return x\n")
    assert "training-mode" in flag_branch_risk(node, "training", scope)


def test_own_constants_rewrites_the_bare_parameter():
    node, scope = _def("def f(x, i):\n    return tf.constant(i) + tf.constant(i, dtype=tf.float32) + x\n")
    found = own_constants(node, "i", "int", scope)
    assert [cst.Module(body=[]).code_for_node(rewritten(c, "tf")) for c in found] == [
        "tf.convert_to_tensor(i)",
        "tf.cast(i, tf.float32)",
    ]


@pytest.mark.parametrize(
    ("body", "python_type", "reason"),
    [
        ("tf.constant(i + 1)", "int", "needs a Python value"),
        ("tf.constant(i, shape=[2])", "int", "needs a Python value"),
        ("tf.constant(i, tf.float64)", "float", "round it through float32"),
    ],
)
def test_own_constants_refuses_what_it_cannot_rewrite(body, python_type, reason):
    node, scope = _def(f"def f(x, i):\n    return x + {body}\n")
    refused = own_constants(node, "i", python_type, scope)
    assert isinstance(refused, str) and reason in refused


def test_own_constants_ignores_a_nested_def_that_rebinds_the_parameter():
    node, scope = _def("def f(x, i):\n    def g(i):\n        return tf.constant(i + 1)\n    return x + tf.constant(i)\n")
    assert len(own_constants(node, "i", "int", scope)) == 1
