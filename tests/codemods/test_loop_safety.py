"""retrace_fix.codemods._loop_safety: the proofs behind RTF001 (and RTF003's scalar conversion).

Pure LibCST: no TensorFlow import.
"""

from __future__ import annotations

import inspect
import textwrap

import libcst as cst
import pytest

from retrace_fix.codemods._loop_safety import Blocker, loop_blockers
from retrace_fix.codemods._param_safety import param_blockers
from retrace_fix.codemods._tf_values import range_call
from retrace_fix.tfnames import ImportTable, Scope

HEADER = "import tensorflow as tf\nimport numpy as np\nimport random\nimport logging\n\n"


def first_loop(body: str):
    """(module, function, loop, scope with the function pushed) for ``def f(x, n): <body>``."""
    source = HEADER + "def f(x, n):\n" + textwrap.indent(textwrap.dedent(body), "    ")
    module = cst.parse_module(source)
    function = next(s for s in module.body if isinstance(s, cst.FunctionDef))
    loops: list[cst.For] = []

    class _V(cst.CSTVisitor):
        def visit_For(self, node: cst.For) -> None:
            loops.append(node)

    function.visit(_V())
    scope = Scope(ImportTable.from_module(module))
    scope.push_function(function)
    return module, function, loops[0], scope


def reasons(body: str, tensor_names=("x",)) -> list[str]:
    _, function, loop, scope = first_loop(body)
    return [b.reason for b in loop_blockers(loop, scope, function=function, tensor_names=tensor_names)]


SAFE_BODIES = {
    "tf-ops-on-carried-tensor": """
        acc = tf.zeros([3])
        for i in range(n):
            acc = acc + tf.cast(i, tf.float32) * x
        return acc
    """,
    "tensor-array": """
        ta = tf.TensorArray(tf.float32, size=n)
        for i in range(n):
            ta = ta.write(i, x * 2.0)
        return ta.stack()
    """,
    "tensor-indexing-and-int-arithmetic": """
        total = tf.zeros([])
        for i in range(n):
            j = i + 1
            total += tf.reduce_sum(x[j % 3]) * 0.5
        return total
    """,
    "unused-loop-variable": """
        for _ in range(n):
            pass
    """,
    "nested-constant-loop": """
        acc = tf.zeros([])
        for i in range(n):
            for k in range(3):
                acc = acc + tf.cast(k, tf.float32)
        return acc
    """,
    "tf-print-and-tf-cond": """
        acc = tf.zeros([])
        for i in range(n):
            tf.print(i)
            if tf.equal(i, 0):
                acc = acc + 1.0
        return acc
    """,
}


@pytest.mark.parametrize("body", SAFE_BODIES.values(), ids=SAFE_BODIES.keys())
def test_safe_bodies_have_no_blockers(body: str):
    assert reasons(body) == []


HAZARDS = {
    "list-index": ("""
        for i in range(n):
            x = layers[i](x)
        return x
    """, "`layers[i]` indexes a Python list"),
    "list-slice": ("""
        acc = tf.zeros([])
        for i in range(n):
            acc += tf.reduce_sum(weights[:i])
        return acc
    """, "`weights[:i]` indexes a Python list"),
    "list-append": ("""
        out = []
        for i in range(n):
            out.append(x * 2)
        return tf.stack(out)
    """, "`out.append(x * 2)` mutates a Python container"),
    "list-plus-equals": ("""
        out = []
        for i in range(n):
            out += [x]
        return out
    """, "`out += [x]` grows a Python list"),
    "dict-write": ("""
        d = {}
        for i in range(n):
            d[i] = x
        return d
    """, "writes into `d`"),
    "if-on-loop-variable": ("""
        for i in range(n):
            if i == 0:
                x = x * 10.0
        return x
    """, "`if i == 0` branches on the loop variable in Python"),
    "while-on-loop-variable": ("""
        for i in range(n):
            while i > 0:
                i -= 1
        return x
    """, "nested while loop"),
    "f-string": ("""
        for i in range(n):
            x = tf.identity(x, name=f"step_{i}")
        return x
    """, "formats the loop variable into a string"),
    "str-call": ("""
        for i in range(n):
            tag = str(i)
        return x
    """, "`str(i)` needs a Python value"),
    "python-float": ("""
        for i in range(n):
            x = x + i * 0.5
        return x
    """, "`i * 0.5` mixes the loop variable with a Python float"),
    "true-division": ("""
        for i in range(n):
            x = x + tf.cast(i / 2, tf.float32)
        return x
    """, "`i / 2` divides the loop variable"),
    "unknown-dtype": ("""
        for i in range(n):
            x = x * i
        return x
    """, "`x * i` mixes the loop variable with `x` of unknown dtype"),
    "tf-variable": ("""
        for i in range(n):
            v = tf.Variable(1.0)
        return x
    """, "creates a tf.Variable inside the loop"),
    "keras-layer": ("""
        for i in range(n):
            x = tf.keras.layers.Dense(3)(x)
        return x
    """, "constructs a Keras object"),
    "print": ("""
        for i in range(n):
            print("step", i)
        return x
    """, "is a Python side effect"),
    "logging": ("""
        for i in range(n):
            logging.info("step")
        return x
    """, "is a Python side effect"),
    "np-random": ("""
        for i in range(n):
            x = x + np.random.rand()
        return x
    """, "is a Python side effect"),
    "attribute-write": ("""
        for i in range(n):
            self.count = i
        return x
    """, "sets an attribute"),
    "break": ("""
        for i in range(n):
            x = x + 1.0
            break
        return x
    """, "`break` leaves the loop early"),
    "return": ("""
        for i in range(n):
            return x
    """, "returns from inside the loop"),
    "for-else": ("""
        for i in range(n):
            x = x + 1.0
        else:
            x = x - 1.0
        return x
    """, "`for ... else`"),
    "python-number-carried": ("""
        total = 0
        for i in range(n):
            total += tf.reduce_sum(x)
        return total
    """, "`total` is a Python number before the loop"),
    "none-carried": ("""
        last = None
        for i in range(n):
            last = x * 2.0
        return last
    """, "`last` is None before the loop"),
    "growing-shape": ("""
        y = tf.zeros([0])
        for i in range(n):
            y = tf.concat([y, x], 0)
        return y
    """, "changes the shape of `y` every iteration"),
    "defined-in-loop-used-after": ("""
        for i in range(n):
            y = x * 2.0
        return y
    """, "`y` is first assigned inside the loop and read after it"),
    "loop-variable-used-after": ("""
        for i in range(n):
            x = x + 1.0
        return x, i
    """, "the loop variable `i` is read after the loop"),
    "unknown-call": ("""
        for i in range(n):
            x = helper(x)
        return x
    """, "`helper(x)` calls Python code retrace-fix cannot see into"),
    "nested-def": ("""
        for i in range(n):
            def g():
                return 1
        return x
    """, "defines a function inside the loop body"),
}


@pytest.mark.parametrize("body, expected", HAZARDS.values(), ids=HAZARDS.keys())
def test_each_hazard_is_a_blocker_naming_the_code(body: str, expected: str):
    found = reasons(body)
    assert any(expected in r for r in found), found


#: statements that block by their kind alone, each with the whole reason it gives
STATEMENT_KINDS = {
    "continue": ("continue", "`continue` skips part of the body: a graph loop needs it as a loop-carried flag"),
    "return": ("return x", "`return x` returns from inside the loop"),
    "yield": ("yield x", "`yield` inside the loop"),
    "raise": ("raise ValueError(n)", "`raise ValueError(n)` raises from inside the loop"),
    "try": ("try:\n    x = x + 1.0\nexcept ValueError:\n    pass",
            "`try` inside the loop: exceptions cannot cross a graph loop"),
    "with": ("with tf.name_scope('s'):\n    x = x + 1.0", "`with tf.name_scope('s')` enters a context manager inside the loop"),
    "global": ("global g", "`global` inside the loop body"),
    "del": ("del x", "`del x` deletes a name inside the loop"),
    "import": ("import os", "an import inside the loop body"),
    "import-from": ("from os import path", "an import inside the loop body"),
    "while": ("while x > 0:\n    x = x - 1.0", "`while x > 0` is a nested while loop"),
}


@pytest.mark.parametrize("statement, reason", STATEMENT_KINDS.values(), ids=STATEMENT_KINDS.keys())
def test_a_statement_that_blocks_by_its_kind_says_so_in_full(statement: str, reason: str):
    body = "for i in range(n):\n" + textwrap.indent(statement, "    ") + "\nreturn x\n"
    assert reason in reasons(body)


def test_blockers_carry_the_offending_node():
    _, function, loop, scope = first_loop("""
        for i in range(n):
            x = layers[i](x)
        return x
    """)
    blockers = loop_blockers(loop, scope, function=function, tensor_names={"x"})
    subscript = [b for b in blockers if "indexes" in b.reason][0]
    assert isinstance(subscript, Blocker)
    assert isinstance(subscript.node, cst.Subscript)
    assert cst.Module([]).code_for_node(subscript.node) == "layers[i]"


def test_indexing_a_known_tensor_is_safe_but_an_unknown_value_is_not():
    body = """
        acc = tf.zeros([])
        for i in range(n):
            acc = acc + data[i]
        return acc
    """
    assert any("indexes" in r for r in reasons(body, tensor_names=()))
    assert reasons(body, tensor_names=("data",)) == []


def test_without_function_the_carried_checks_are_skipped():
    _, _function, loop, scope = first_loop("""
        total = 0
        for i in range(n):
            total += tf.reduce_sum(x)
        return total
    """)
    assert loop_blockers(loop, scope) == []


def test_param_blockers_accepts_only_safe_range_bounds_and_tf_ops():
    _, function, _loop, scope = first_loop("""
        acc = tf.zeros([])
        for i in range(n):
            acc = acc + tf.cast(n, tf.float32)
        return acc
    """)
    assert param_blockers(function, "n", scope) == []
    _, function, _loop, scope = first_loop("""
        for i in range(n):
            pass
        return n * 2
    """)
    assert [b.reason for b in param_blockers(function, "n", scope)] == [
        "`return n * 2` uses `n` as a Python value"
    ]
    _, function, _loop, scope = first_loop("""
        for i in range(n):
            x = layers[i](x)
        return x
    """)
    assert any("indexes a Python list" in b.reason for b in param_blockers(function, "n", scope))


def test_range_call_resolves_aliases_and_shadowing():
    module = cst.parse_module("from builtins import range as r\nfor i in r(3):\n    pass\nfor j in range(2):\n    pass\n")
    scope = Scope(ImportTable.from_module(module))
    loops = [s for s in module.body if isinstance(s, cst.For)]
    assert range_call(loops[0], scope) is not None
    assert range_call(loops[1], scope) is not None
    shadowed = cst.parse_module("def range(n):\n    return []\nfor i in range(3):\n    pass\n")
    loop = [s for s in shadowed.body if isinstance(s, cst.For)][0]
    assert range_call(loop, Scope(ImportTable.from_module(shadowed))) is None


def test_public_signatures_are_stable():
    """RTF003 imports these: keep the parameters it relies on."""
    params = inspect.signature(loop_blockers).parameters
    assert list(params)[:2] == ["for_node", "scope"]
    assert params["function"].kind is inspect.Parameter.KEYWORD_ONLY
    assert params["tensor_names"].kind is inspect.Parameter.KEYWORD_ONLY
    assert list(inspect.signature(param_blockers).parameters)[:3] == ["function", "param", "scope"]
    assert Blocker._fields[:2] == ("node", "reason")
    assert Blocker(None, "why").grows is None  # added fields have defaults: Blocker(node, reason) still builds


def test_a_carried_tensor_that_grows_names_itself():
    """RTF007 turns exactly these blockers into a shape invariant (a --verify candidate)."""
    _, function, loop, scope = first_loop("""
        tokens = tf.identity(prompt)
        for i in range(n):
            tokens = tf.concat([tokens, tokens[:, -1:]], axis=1)
        return tokens
    """)
    grows = [b.grows for b in loop_blockers(loop, scope, function=function)]
    assert "tokens" in grows
