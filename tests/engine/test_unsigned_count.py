"""The next-step hint counts, in a file no codemod parses, the tf.functions without a signature on
CPython's tree (:func:`retrace_fix.codemods._unsigned_count.unsigned_tf_functions`): the same number
LibCST's finder gives, so the hint does not depend on whether a codemod parsed the file."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from retrace_fix.codemods._tree_facts import tree_facts
from retrace_fix.codemods._unsigned_count import unsigned_tf_functions
from retrace_fix.engine.options import FileJob, RunOptions
from retrace_fix.engine.process import process_file
from retrace_fix.partial_parse import Outline

TF = "import tensorflow as tf\n\n"
SIGNED = "@tf.function(input_signature=[tf.TensorSpec(None)])\n"


def libcst_count(text: str) -> int:
    job = FileJob(path=Path("/nonexistent/input.py"), display="input.py", relpath="input.py", data=text.encode())
    result = process_file(job, RunOptions(prefilter=False, select=("RTF004",)))
    assert not result.error, result.error
    return result.unsigned_tf_functions


@pytest.mark.parametrize("text, count", [
    # a variable of a method's name wraps no def (the method is not visible by a bare name)
    (TF + "class A:\n    def step(self, x):\n        return x\n\nstep = A().step\nstep = tf.function(step)\n", 0),
    # self.m in the innermost class
    (TF + "class A:\n    def __init__(self):\n        self.f = tf.function(self.g)\n\n    def g(self, x):\n"
     "        return x\n", 1),
    # the last def of the name in the scope, whose own decorator carries a signature
    (TF + "def f(x):\n    return x\n\nh = tf.function(f)\n\n" + SIGNED + "def f(x):\n    return x\n", 0),
    # a def of the function around the call, and the decorated ones
    (TF + "def outer():\n    def f(x):\n        return x\n    return tf.function(f)\n\n@tf.function\ndef g(x):\n"
     "    return x\n\n" + SIGNED + "def k(x):\n    return x\n", 2),
    # obj.m of another object: no def
    (TF + "class A:\n    def m(self, x):\n        return x\n\na = A()\nf = tf.function(a.m)\n", 0),
])
def test_the_cpython_count_is_libcsts(text, count):
    tree = ast.parse(text)
    assert unsigned_tf_functions(tree, tree_facts(tree, Outline(text, tree))) == count
    assert libcst_count(text) == count
