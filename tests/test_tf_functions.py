"""The one tf.function detector at its three prices: each answer covers the next one."""

from __future__ import annotations

import ast
from pathlib import Path

import libcst as cst
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from retrace_fix.tf_functions import (
    _LAST_REFERENCE,
    TF_FUNCTION_REFERENCE,
    ast_references_tf_function,
    find_tf_functions,
    may_reference_tf_function,
)
from retrace_fix.tfnames import ImportTable, Scope

GOLDEN = Path(__file__).resolve().parent.parent / "golden"
SOURCES = sorted(p for p in GOLDEN.glob("*/*/*.py") if p.name in ("input.py", "expected.py"))


def sites(text: str) -> dict:
    module = cst.parse_module(text)
    return find_tf_functions(module, Scope(ImportTable.from_module(module)))


@pytest.mark.parametrize("path", SOURCES, ids=[p.relative_to(GOLDEN).as_posix() for p in SOURCES])
def test_bytes_cover_ast_and_ast_covers_the_tree(path):
    data = path.read_bytes()
    text = data.decode("utf-8")
    found = sites(text)
    could = ast_references_tf_function(ast.parse(text))
    may = may_reference_tf_function(data)
    assert (not found or could) and (not could or may), (bool(found), could, may)


@pytest.mark.parametrize(
    "text, forms",
    [
        ("import tensorflow as tf\n@tf.function\ndef f(x):\n    return x\n", ["decorator"]),
        ("from tensorflow import function as tfn\n@tfn(jit_compile=True)\ndef f(x):\n    return x\n", ["decorator-call"]),
        ("import tensorflow as tf\ndef f(x):\n    return x\ng = tf.function(f)\n", ["wrap-call"]),
        (
            "import tensorflow as tf\nclass M:\n    def __init__(self):\n        self.step = tf.function(self._step)\n"
            "    def _step(self, x):\n        return x\n",
            ["wrap-call"],
        ),
    ],
)
def test_every_spelling_is_found_at_every_price(text, forms):
    found = sites(text)
    assert [site.form for site in found.values()] == forms
    assert ast_references_tf_function(ast.parse(text)) and may_reference_tf_function(text.encode())


@pytest.mark.parametrize(
    "text",
    [
        "def function():\n    return 1\n",  # a function named function
        "import numpy as np\nx = np.vectorize(abs)\n",
        "from functools import partial\n",
    ],
)
def test_no_tf_function_at_any_price(text):
    assert not sites(text)
    assert not ast_references_tf_function(ast.parse(text))
    assert not may_reference_tf_function(text.encode())


def test_a_shadowed_name_is_ruled_out_by_the_tree_only():
    text = "import tensorflow as tf\ndef f(tf):\n    @tf.function\n    def g(x):\n        return x\n    return g\n"
    assert not sites(text)  # `tf` is a parameter there
    assert ast_references_tf_function(ast.parse(text)) and may_reference_tf_function(text.encode())


_PIECES = [b"import", b"function", b".", b" ", b"\t", b"\\\n", b"\\", b"(", b")", b"#", b";", b"\n", b"\r\n",
           b"re", b"x", b"_", b"from tensorflow ", b"as tfn", b"\xc3\xa9", b"def_function"]


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.lists(st.sampled_from(_PIECES), max_size=14))
def test_the_fast_byte_check_is_the_regular_expression(pieces):
    """may_reference_tf_function searches TF_FUNCTION_REFERENCE's alternatives separately: same answers."""
    data = b"".join(pieces)
    expected = b"function" in data and TF_FUNCTION_REFERENCE.search(data) is not None
    _LAST_REFERENCE[:] = [None, False]
    assert may_reference_tf_function(data) is expected


def test_the_fast_byte_check_on_the_golden_sources():
    for path in SOURCES:
        data = path.read_bytes()
        _LAST_REFERENCE[:] = [None, False]
        assert may_reference_tf_function(data) == (TF_FUNCTION_REFERENCE.search(data) is not None), path
