"""RTF006 on a tf.function around a forwarding lambda or ``functools.partial`` (no TensorFlow).

The golden cases ``golden/hoist-tf-function/forward-*`` hold the rewrites; these tests pin what
they cannot show: a file whose only recorded function is a partial's ``wraps`` record gets the
measured count, and how a call of the new function maps onto ``f``'s arguments.
"""

from __future__ import annotations

import json

import libcst as cst
import pytest

from retrace_fix.codemods._hoist_forward import forwarded_args, read_forwarder
from tests.support.cli_runner import run_cli

SOURCE = """\
import functools

import tensorflow as tf


def scale(x, k):
    return x * k


def run(x, k):
    return tf.function(functools.partial(scale, k=k))(x)
"""


def _partial_record() -> dict:
    function = {"file": "m.py", "qualname": "scale", "firstlineno": 6, "name": "scale", "params": ["x", "k"],
                "calls": 3, "recreated": 2, "wraps": "functools.partial", "bound": ["k"],
                "traces": [{"args": {"x": {"kind": "tensor", "shape": [2], "dtype": "float32"},
                                     "k": {"kind": "python", "type": "int", "value": 2}}, "count": 3}]}
    return {"format": "retrace-fix-traces", "version": 3, "functions": [function]}


def test_a_partials_record_gives_the_measured_count(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "m.py").write_text(SOURCE)
    (tmp_path / "traces.json").write_text(json.dumps(_partial_record()))
    result = run_cli("--check", "--select", "RTF006", "m.py", "--traces", "traces.json", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert "(the recorded run traced it 3 times by 3 function objects, 1 distinct signature)" in result.stdout
    assert "[unsafe]" in result.stdout  # `k` has no default: not provably a Python constant
    assert (tmp_path / "m.py").read_text() == SOURCE


def _forward(code: str):
    forwarder, refusal = read_forwarder(cst.parse_expression(code), scope=None)
    assert refusal is None
    return forwarder


def _mapped(forwarder, call: str) -> str | None:
    args, why = forwarded_args(forwarder, cst.parse_expression(call))
    if args is None:
        return None
    return cst.Module([]).code_for_node(cst.Call(cst.Name("f_once"), args))


@pytest.mark.parametrize(("call", "expected"), [
    ("fn(x, y)", "f_once(y, x, k)"),
    ("fn(b=y, a=x)", "f_once(y, x, k)"),
    ("fn(g(), h())", None),  # computed in another order than f takes them: refused
    ("fn(x)", None),  # `b` not passed
    ("fn(x, y, z)", None),
    ("fn(*xs)", None),
])
def test_a_lambda_call_maps_onto_the_functions_arguments(call, expected):
    assert _mapped(_forward("lambda a, b: f(b, a, k)"), call) == expected


def test_a_lambda_that_keeps_the_order_may_compute_its_arguments():
    assert _mapped(_forward("lambda a: f(a, k=k)"), "fn(g(x))") == "f_once(g(x), k=k)"


@pytest.mark.parametrize(("lambda_", "why"), [
    ("lambda a: f(a * 2, k)", "uses `a` in an expression"),
    ("lambda a: f(a, a)", "passes its parameter `a` 2 times"),
    ("lambda a, b: f(a)", "does not pass its parameter `b`"),
    ("lambda a: f(a, g(k))", "computes `g(k)`"),
    ("lambda a: f(*a)", "cannot map"),
    ("lambda a: a.f(k)", "of its own parameter"),
    ("lambda a=1: f(a)", "defaults"),
])
def test_a_lambda_that_does_more_than_forward_is_refused(lambda_, why):
    forwarder, refusal = read_forwarder(cst.parse_expression(lambda_), scope=None)
    assert forwarder is None and why in refusal


LAMBDA_SOURCE = """\
import tensorflow as tf


def scale(x, k):
    return x * k


def run(x, k="a"):
    return tf.function(lambda v: scale(v, k))(x)
"""


def test_a_lambdas_record_that_rtf006_reads_is_matched(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "m.py").write_text(LAMBDA_SOURCE)
    record = _partial_record()
    function = record["functions"][0]
    del function["wraps"], function["bound"]
    function.update(qualname="run.<locals>.<lambda>", firstlineno=9, name="<lambda>", params=["v"])
    function["traces"][0]["args"] = {"v": {"kind": "tensor", "shape": [2], "dtype": "float32"}}
    (tmp_path / "traces.json").write_text(json.dumps(record))
    result = run_cli("--check", "m.py", "--traces", "traces.json", cwd=tmp_path)
    assert "[safe]" in result.stdout and "traced it 3 times by 3 function objects" in result.stdout
    assert "matched nothing" not in result.stderr  # RTF006 read it: not reported as unmatched


def test_a_computed_argument_is_not_moved_past_a_bound_attribute():
    forwarder = _forward("lambda a: f(self.k, a)")
    assert _mapped(forwarder, "fn(g())") is None  # g() might change self.k: read after it before
    assert _mapped(forwarder, "fn(x)") == "f_once(self.k, x)"
