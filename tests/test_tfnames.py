"""The cheap import/alias table: what names mean in a module, shadowing included."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from retrace_fix.analysis import ModuleAnalysis
from retrace_fix.tfnames import (
    ImportTable,
    Scope,
    binding_sites,
    bound_names,
    canonical,
    global_names,
    statement_binds,
    times_bound,
)


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


_BINDER = textwrap.dedent("""\
    def f(a, *rest, k=1, **kw):
        import numpy as np, os.path
        from . import near as far
        b = c, *d = make()
        e: int = 0
        a += 1
        for (g, h) in pairs:
            with open(g) as i, lock:
                if (j := h):
                    pass
        try:
            pass
        except ValueError as err:
            pass
        global G
        [m for m in rest]
        square = lambda n: n * n

        def inner(p):
            q = p

        class K:
            r = 1
""")


def test_binding_sites_name_each_binding_once_with_its_node():
    function = cst.parse_module(_BINDER).body[0]
    sites = [(name, type(node).__name__) for name, node in binding_sites(function)]
    assert sites == [
        ("a", "Param"), ("rest", "Param"), ("k", "Param"), ("kw", "Param"),
        ("np", "Import"), ("os", "Import"), ("far", "ImportFrom"),
        ("b", "Assign"), ("c", "Assign"), ("d", "Assign"), ("e", "AnnAssign"), ("a", "AugAssign"),
        ("g", "For"), ("h", "For"), ("i", "AsName"), ("j", "NamedExpr"), ("err", "AsName"),
        ("G", "Global"), ("square", "Assign"), ("inner", "FunctionDef"), ("K", "ClassDef"),
    ]
    # comprehension targets (m), lambda parameters (n) and nested scopes' names (p, q, r) are not f's
    assert {"p", "q", "r"} <= bound_names(function.body, nested=True) - bound_names(function)
    assert "G" not in bound_names(function) and "m" not in bound_names(function, nested=True)


def test_times_bound_counts_loop_and_augmented_bindings_twice():
    function = cst.parse_module(_BINDER).body[0]
    assert [times_bound(function, n) for n in ("a", "b", "g", "inner", "q", "G", "missing")] == [3, 1, 2, 1, 0, 0, 0]


def test_statement_binds_and_global_names():
    module = cst.parse_module(_BINDER + "import a.b\nx = y = 1\nfor z in w:\n    v = z\n")
    assert [statement_binds(s) for s in module.body] == [{"f"}, {"a"}, {"x", "y"}, {"z", "v"}]
    assert global_names(module) == {"G"}
