"""The cheap import/alias table: what names mean in a module, shadowing included."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from retrace_fix.analysis import ModuleAnalysis
from retrace_fix.tfnames import ImportTable, Scope, canonical


def _scope(src: str) -> Scope:
    return Scope(ImportTable.from_module(cst.parse_module(textwrap.dedent(src))))


@pytest.mark.parametrize(
    "src, expr, expected",
    [
        ("import tensorflow as tf", "tf.function", "tensorflow.function"),
        ("import tensorflow", "tensorflow.function", "tensorflow.function"),
        ("from tensorflow import function", "function", "tensorflow.function"),
        ("from tensorflow import function as tfn", "tfn", "tensorflow.function"),
        ("import tensorflow.compat.v2 as tf", "tf.function", "tensorflow.function"),
        ("import tensorflow as tf", "tf.keras.Model", "keras.Model"),
        ("from tensorflow import keras", "keras.Sequential", "keras.Sequential"),
        ("import keras", "keras.models.load_model", "keras.models.load_model"),
        ("import tf_keras as keras", "keras.Model", "keras.Model"),
        ("import tensorflow as tf", "range", "builtins.range"),
        ("import tensorflow as tf", "tf.range", "tensorflow.range"),
        ("import numpy as tf", "tf.function", "numpy.function"),
        # try: import tensorflow as tf / except ImportError: tf = None -> still tensorflow
        ("try:\n    import tensorflow as tf\nexcept ImportError:\n    tf = None", "tf.function", "tensorflow.function"),
        ("range = my_range", "range", None),
        ("from . import tf", "tf.function", None),
        ("", "tf.function", None),
    ],
)
def test_qualify(src, expr, expected):
    scope = _scope(src)
    assert scope.qualify(cst.parse_expression(expr)) == expected


def test_function_locals_shadow_module_names():
    module = cst.parse_module(
        textwrap.dedent(
            """\
            import tensorflow as tf

            def f(tf):
                pass

            def g():
                import numpy as tf

            def h():
                pass
            """
        )
    )
    scope = Scope(ImportTable.from_module(module))
    f, g, h = [s for s in module.body if isinstance(s, cst.FunctionDef)]
    for function, expected in ((f, None), (g, "numpy.function"), (h, "tensorflow.function")):
        scope.push_function(function)
        assert scope.qualify(cst.parse_expression("tf.function")) == expected
        scope.pop_function()


def test_canonical_folds_keras_and_compat_spellings():
    assert canonical("tensorflow.python.keras.models.Sequential") == "keras.models.Sequential"
    assert canonical("tensorflow.compat.v1.keras.Model") == "keras.Model"
    assert canonical("tensorflow.python.eager.def_function.function") == "tensorflow.function"


def test_tf_function_sites_in_every_spelling():
    module = cst.parse_module(
        textwrap.dedent(
            """\
            import tensorflow as tf
            from tensorflow import function as tfn

            @tf.function
            def a(x): return x

            @tfn(reduce_retracing=True)
            def b(x): return x

            def c(x): return x
            c_fn = tf.function(c)

            def d(x): return x
            d_fn = tf.function(jit_compile=True)(d)

            class M:
                def __init__(self):
                    self.step = tf.function(self._step)

                def _step(self, x): return x

                def plain(self, x): return x

            def not_traced(x): return x
            """
        )
    )
    analysis = ModuleAnalysis.build(module)
    forms = {site.node.name.value: (site.form, site.class_name) for site in analysis.tf_functions.values()}
    assert forms == {
        "a": ("decorator", None),
        "b": ("decorator-call", None),
        "c": ("wrap-call", None),
        "d": ("wrap-call", None),
        "_step": ("wrap-call", "M"),
    }
