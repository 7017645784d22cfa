"""An int parameter that indexes a tensor or a tf.Variable's indices: uses a scalar int32 tensor serves.

`param_blockers` (RTF001) and `body_facts` (RTF003/RTF005) accept ``grid_sizes[dim]`` on a dense tensor
and ``history.scatter_nd_update([[epoch]], ...)`` on a module-level ``tf.Variable`` bound once; an index of
a Python list, of anything unknown, and a method of an unknown or rebound receiver stay blockers.
"""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from retrace_fix.codemods._body_facts import body_facts
from retrace_fix.codemods._param_safety import param_blockers
from retrace_fix.codemods._tf_values import instance_variables, module_variables
from retrace_fix.tfnames import ImportTable, Scope
from retrace_fix.traces.generalize import BodyFacts, ScalarUse, classify_scalar


def _parsed(body: str, module_lines: str = ""):
    source = ("import tensorflow as tf\n" + textwrap.dedent(module_lines)
              + "def f(grid, heads, x, n):\n" + textwrap.indent(textwrap.dedent(body), "    "))
    module = cst.parse_module(source)
    function = next(s for s in module.body if isinstance(s, cst.FunctionDef))
    return module, function, Scope(ImportTable.from_module(module))


def blockers(body: str, tensor_names=("grid", "x")) -> list[str]:
    _, function, scope = _parsed(body)
    scope.push_function(function)
    return [b.reason for b in param_blockers(function, "n", scope, tensor_names=tensor_names)]


@pytest.mark.parametrize("body", [
    "size = grid[n]\nreturn tf.cast(2 / (size - 1), tf.float32)",
    "return grid[n, ...]",
    "return grid[..., n]",
    "return tf.shape(x)[n]",
])
def test_param_blockers_accept_an_index_of_a_tensor(body):
    assert blockers(body) == []


@pytest.mark.parametrize("body, tensor_names, reason", [
    ("return heads[n](x)", ("grid", "x"), "`return heads[n](x)` uses `n` as a Python value"),
    ("return grid[n]", (), "`return grid[n]` uses `n` as a Python value"),  # grid not known to be a tensor
    ("grid = [1, 2]\nreturn grid[n]", ("grid",), "`return grid[n]` uses `n` as a Python value"),  # rebound
    ("return tf.split(x, 2)[n]", ("x",), "`return tf.split(x, 2)[n]` uses `n` as a Python value"),  # a list
    ("return grid[n:]", ("grid",), "`return grid[n:]` uses `n` as a Python value"),  # a slice: static shape
    ("return grid[n + 1]", ("grid",), "`return grid[n + 1]` uses `n` as a Python value"),
    ("def g(grid):\n    return grid[n]\nreturn g([1])", ("grid",), "`return grid[n]` uses `n` as a Python value"),
])
def test_param_blockers_keep_an_index_of_anything_else(body, tensor_names, reason):
    assert blockers(body, tensor_names) == [reason]


def uses(body: str, module_lines: str = "", dense=("grid", "x")) -> list[tuple[str, str]]:
    module, function, scope = _parsed(body, module_lines)
    facts = body_facts(function, {"grid", "heads", "x", "n"}, scope, set(dense),
                       variables=module_variables(module, scope))
    return [(u.kind, u.text) for u in facts.uses["n"]]


HISTORY = "history = tf.Variable(tf.zeros([5]))\n"


@pytest.mark.parametrize("body, module_lines, expected", [
    ("size = grid[n]", "", [("index", "grid[n]")]),
    ("a = grid[n, ...] + grid[..., n]", "", [("index", "grid[n, ...]"), ("index", "grid[..., n]")]),
    ("history.scatter_nd_update([[n]], [x])", HISTORY, [("index", "history.scatter_nd_update([[n]], [x])")]),
    ("history.scatter_nd_add(indices=[[n]], updates=[x])", HISTORY,
     [("index", "history.scatter_nd_add(indices=[[n]], updates=[x])")]),
    ("history.scatter_nd_update([[0]], [n])", HISTORY, [("tf_arg", "history.scatter_nd_update([[0]], [n])")]),
    ("tf.gather_nd(x, [[n]])", "", [("tf_arg", "tf.gather_nd(x, [[n]])")]),
])
def test_body_facts_safe_tensor_uses(body, module_lines, expected):
    assert uses(body, module_lines) == expected


@pytest.mark.parametrize("body, module_lines, text", [
    ("y = heads[n](x)", "", "y = heads[n](x)"),  # a Python list of layers
    ("y = grid[n]", "", "y = grid[n]"),  # grid not recorded as a dense tensor (dense=())
    ("history.scatter_nd_update([[n]], [x])", "", "history.scatter_nd_update([[n]], [x])"),  # unknown receiver
    ("history.scatter_nd_update([[n]], [x])", HISTORY + "history = tf.Variable(tf.ones([5]))\n",
     "history.scatter_nd_update([[n]], [x])"),  # rebound
    ("global history\nhistory.scatter_nd_update([[n]], [x])", HISTORY,
     "history.scatter_nd_update([[n]], [x])"),  # declared global: may be rebound
    ("history = x\nhistory.scatter_nd_update([[n]], [x])", HISTORY,
     "history.scatter_nd_update([[n]], [x])"),  # a local of the same name
])
def test_body_facts_other_uses_stay_python_values(body, module_lines, text):
    dense = () if body == "y = grid[n]" else ("grid", "x")
    assert uses(body, module_lines, dense) == [("other", text)]


def test_an_index_use_is_safe_for_int_dtypes_only():
    facts = BodyFacts(uses={"n": [ScalarUse("index", "grid[n]")]})
    assert classify_scalar("n", "int32", facts, {}) == ("safe", [])
    assert classify_scalar("n", "float32", facts, {}) == ("blocked", ["`grid[n]` needs an int index"])
    assert classify_scalar("n", "int32", facts, {}, jit_compile=True)[0] == "unsafe"


CLASS = '''
import tensorflow as tf


class Logger:
    def __init__(self):
        self.history = tf.Variable(tf.zeros([5]))
        self.scale = tf.Variable(1.0)
        self.steps = tf.Variable(0)

    def reset(self):
        self.scale = tf.Variable(2.0)

    def step(self, x, n):
        self.history.scatter_nd_update([[n]], [x])
        self.scale.scatter_nd_update([[n]], [x])
        self.steps.scatter_nd_update([[n]], [x])
'''


def test_instance_variables_are_the_attributes_init_binds_once():
    module = cst.parse_module(CLASS)
    scope = Scope(ImportTable.from_module(module))
    classdef = next(s for s in module.body if isinstance(s, cst.ClassDef))
    assert instance_variables(classdef, scope) == {"self.history", "self.steps"}
    with_setattr = CLASS + "\n    def set(self, name):\n        setattr(self, name, 1)\n"
    module = cst.parse_module(with_setattr)
    classdef = next(s for s in module.body if isinstance(s, cst.ClassDef))
    assert instance_variables(classdef, Scope(ImportTable.from_module(module))) == set()


def test_body_facts_accept_the_indices_of_a_self_variable():
    module = cst.parse_module(CLASS)
    scope = Scope(ImportTable.from_module(module))
    classdef = next(s for s in module.body if isinstance(s, cst.ClassDef))
    step = next(s for s in classdef.body.body if isinstance(s, cst.FunctionDef) and s.name.value == "step")
    facts = body_facts(step, {"x", "n"}, scope, {"x"}, variables=instance_variables(classdef, scope))
    assert [u.kind for u in facts.uses["n"]] == ["index", "other", "index"]
    rebound = cst.parse_module(CLASS.replace("        self.history.scatter", "        self = other\n        self.history.scatter"))
    classdef = next(s for s in rebound.body if isinstance(s, cst.ClassDef))
    step = next(s for s in classdef.body.body if isinstance(s, cst.FunctionDef) and s.name.value == "step")
    facts = body_facts(step, {"x", "n"}, scope, {"x"}, variables={"self.history"})
    assert [u.kind for u in facts.uses["n"]] == ["other", "other", "other"]
