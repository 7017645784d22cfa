"""Generalising recorded traces into one input_signature (pure: no TensorFlow)."""

from __future__ import annotations

import libcst as cst
import pytest

from retrace_fix.analysis import qualnames
from retrace_fix.codemods._body_facts import body_facts
from retrace_fix.codemods._traced_functions import literal_default, param_infos
from retrace_fix.tfnames import ImportTable, Scope
from retrace_fix.traces.generalize import (
    NO_LITERAL,
    BodyFacts,
    ContainerSpec,
    ParamInfo,
    ScalarUse,
    ShapeRead,
    SourceInfo,
    TensorSpecInfo,
    decide_signature,
    render_spec,
    summarize,
)
from retrace_fix.traces.signature_candidates import search_candidates
from retrace_fix.traces.model import FunctionTraces, Proof, Trace


def tensor(shape, dtype="float32"):
    return {"kind": "tensor", "shape": shape, "dtype": dtype}


def py(value):
    return {"kind": "python", "type": type(value).__name__, "value": value}


def obj(type_name, ident):
    return {"kind": "object", "type": type_name, "id": ident}


def function(*arg_sets, params=None, **flags):
    params = params or list(arg_sets[0])
    traces = [Trace(args=args) for args in arg_sets]
    return FunctionTraces(file="m.py", qualname="f", firstlineno=1, name="f", params=params, calls=len(traces),
                          traces=traces, **flags)


def source(*params, facts=None, **kwargs):
    infos = [p if isinstance(p, ParamInfo) else ParamInfo(p) for p in params]
    return SourceInfo(params=infos, facts=facts or BodyFacts(), **kwargs)


def proved(fn, src, result="traced"):
    """``fn`` with a proof of ``result`` for every candidate the search asks about (as a recording
    whose every trial traced -- or failed -- would store)."""

    def oracle(candidate):
        proof = Proof(candidate.fix, result, error=None if result == "traced" else "TypeError: boom")
        fn.add_proof(candidate.key, proof)
        return proof

    search_candidates(fn, src.params, src.skip_self, oracle)
    return fn


# --------------------------------------------------------------------------- summarize


def test_dims_that_varied_become_none_and_the_rest_stay():
    summary = summarize([tensor([16, 50]), tensor([32, 50]), tensor([64, 50])], "X")
    assert summary.spec == TensorSpecInfo("tensor", (None, 50), "float32")
    assert summary.varying_dims == frozenset({0})
    assert summary.dim_values[0] == [16, 32, 64]
    assert not summary.problems and not summary.blockers


def test_a_dim_that_was_none_in_every_trace_is_not_a_variation():
    ragged = {"kind": "ragged", "dtype": "int32", "ragged_rank": 1, "row_splits_dtype": "int64"}
    summary = summarize([{**ragged, "shape": [2, None]}, {**ragged, "shape": [3, None]}], "r")
    assert summary.spec == TensorSpecInfo("ragged", (None, None), "int32", 1, "int64")
    assert summary.varying_dims == frozenset({0})


def test_dtype_drift_is_a_problem_not_a_shape_change():
    summary = summarize([tensor([], "int32"), tensor([], "float32")], "x")
    assert summary.spec is None
    assert summary.problems == ["`x`: dtype varies (int32, float32) — cast at the call site"]


def test_rank_change_gives_an_unknown_rank_spec():
    summary = summarize([tensor([3]), tensor([3, 4])], "x")
    assert summary.spec == TensorSpecInfo("tensor", None, "float32")
    assert not summary.problems and not summary.blockers
    assert summary.varying_dims is None and summary.rank_varies


def test_nested_containers_keep_their_type():
    descs = [
        {"kind": "tuple", "items": [tensor([n]), {"kind": "dict", "items": {"a": tensor([n, 2])}}]}
        for n in (2, 3)
    ]
    summary = summarize(descs, "pair")
    assert summary.spec == ContainerSpec(
        "tuple",
        (TensorSpecInfo("tensor", (None,), "float32"),
         ContainerSpec("dict", (("a", TensorSpecInfo("tensor", (None, 2), "float32")),))),
    )
    assert summary.deep_varying


def test_python_value_inside_a_container_blocks_and_varying_one_is_a_problem():
    same = summarize([{"kind": "list", "items": [tensor([n]), py(1.0)]} for n in (2, 3)], "xs")
    assert same.spec is None and not same.problems
    assert "`xs[1]` is a Python value inside a container" in same.blockers[0]
    varying = summarize([{"kind": "list", "items": [py(v)]} for v in (1, 2)], "xs")
    assert varying.problems == ["`xs[0]`: Python value varies (1, 2) inside a container"]


def test_objects_length_and_kind_changes():
    assert summarize([obj("Dense", 1), obj("Dense", 1)], "m").blockers
    new = summarize([obj("Dense", 1), obj("Dense", 2)], "m")
    assert new.problems == ["`m`: a new Dense object in 2 traces — create it once and reuse it (objects are compared by identity)"]
    assert summarize([{"kind": "list", "items": [tensor([1])]}, {"kind": "list", "items": []}], "xs").problems
    mixed = summarize([tensor([1]), py(None)], "mask")
    assert "None in some calls" in mixed.problems[0]


def test_render_spec():
    assert render_spec(TensorSpecInfo("tensor", (None, 50), "float32")) == "tf.TensorSpec(shape=[None, 50], dtype=tf.float32)"
    assert render_spec(TensorSpecInfo("tensor", None, "int32"), "tflow") == "tflow.TensorSpec(shape=None, dtype=tflow.int32)"
    assert (render_spec(TensorSpecInfo("ragged", (None, None), "int32", 1, "int32"))
            == "tf.RaggedTensorSpec(shape=[None, None], dtype=tf.int32, ragged_rank=1, row_splits_dtype=tf.int32)")
    assert render_spec(TensorSpecInfo("sparse", (None, 4), "float32")) == "tf.SparseTensorSpec(shape=[None, 4], dtype=tf.float32)"
    one = ContainerSpec("tuple", (TensorSpecInfo("tensor", (), "bool"),))
    assert render_spec(one) == "(tf.TensorSpec(shape=[], dtype=tf.bool),)"
    named = ContainerSpec("namedtuple", (("x", TensorSpecInfo("tensor", (1,), "int64")),), "Batch")
    assert render_spec(named) == "Batch(x=tf.TensorSpec(shape=[1], dtype=tf.int64))"


# --------------------------------------------------------------------------- decide_signature


def test_traced_once_is_left_alone():
    plan = decide_signature(function({"x": tensor([2])}), source("x"))
    assert not plan.retraced and not plan.possible and not plan.shape_only


def test_each_instance_tracing_once_is_not_a_retrace():
    fn = function({"self": obj("M", 1), "x": tensor([1])}, {"self": obj("M", 2), "x": tensor([2])})
    assert not decide_signature(fn, source("self", "x", skip_self="self")).retraced
    fn.add_trace(Trace(args={"self": obj("M", 1), "x": tensor([3])}))
    plan = decide_signature(fn, source("self", "x", skip_self="self"))
    assert plan.possible and [name for name, _ in plan.specs] == ["x"]


def test_existing_signature_is_left_alone():
    fn = function({"x": tensor([2])}, {"x": tensor([3])})
    assert decide_signature(fn, source("x", has_signature=True)).already_signed
    fn.has_input_signature = True
    assert not decide_signature(fn, source("x")).possible


def test_trailing_defaults_that_never_changed_are_pinned():
    fn = function({"x": tensor([2]), "scale": py(2.0), "training": py(False)},
                  {"x": tensor([3]), "scale": py(2.0), "training": py(False)})
    src = source("x", ParamInfo("scale", has_default=True, default=2.0), ParamInfo("training", has_default=True, default=False))
    plan = decide_signature(fn, src)
    assert plan.possible and plan.tier == "unsafe" and plan.proof == "unproven"  # no proof in the traces
    assert plan.unsafe_reasons[0].startswith("not proven on the live function (re-record with retrace-fix >= ")
    plan = decide_signature(proved(fn, src), src)
    assert plan.possible and plan.tier == "safe" and plan.proof == "proven"
    assert [name for name, _ in plan.specs] == ["x"] and plan.pinned == ["scale", "training"]


def test_a_constant_that_is_not_the_default_becomes_a_scalar_spec_when_safe():
    facts = BodyFacts(uses={"offset": [ScalarUse("binop", "x + offset", other="x")]})
    fn = function({"x": tensor([2]), "offset": py(3.0)}, {"x": tensor([3]), "offset": py(3.0)})
    src = source("x", ParamInfo("offset", has_default=True, default=1.0), facts=facts)
    plan = decide_signature(proved(fn, src), src)
    assert plan.conversions == {"offset": "float32"} and plan.tier == "safe"
    unsafe = BodyFacts(uses={"offset": [ScalarUse("binop", "h + offset")]})
    unproven = function({"x": tensor([2]), "offset": py(3.0)}, {"x": tensor([3]), "offset": py(3.0)})
    refused = decide_signature(unproven, source("x", ParamInfo("offset", has_default=True, default=1.0), facts=unsafe))
    assert not refused.possible and refused.shape_only  # a constant is only converted when provably safe
    assert refused.blockers[0][0] == "offset"  # ... and the message names it
    src = source("x", ParamInfo("offset", has_default=True, default=1.0), facts=unsafe)
    assert decide_signature(proved(unproven, src), src).tier == "safe"  # the proof settles `h`'s dtype


@pytest.mark.parametrize(
    "uses, proven, unproven",
    [
        ([ScalarUse("range", "for i in range(n)")], "safe", "unsafe"),
        ([ScalarUse("tf_range", "tf.range(n)"), ScalarUse("cast", "tf.cast(n, tf.float32)")], "safe", "unsafe"),
        ([ScalarUse("binop", "k * n", other="k")], "safe", "unsafe"),  # k: int32 tensor parameter
        # x: float32; the proof settles the dtype (a mismatch fails the trace)
        ([ScalarUse("binop", "x * n", other="x")], "safe", "unsafe"),
        ([ScalarUse("tf_arg", "tf.tile(x, [n, 1])")], "safe", "unsafe"),  # TF converts it anyway
        ([ScalarUse("tf_arg", "tf.split(x, n)", needs_python=True)], "blocked", "blocked"),
        ([ScalarUse("binop", "h * n")], "safe", "unsafe"),  # h: a local of unknown dtype
        ([ScalarUse("binop", "n / 2", float_op=True)], "unsafe", "unsafe"),  # a float64 tensor, traced or not
        ([ScalarUse("range", "for i in range(n)", blockers=("`outs.append(i)` mutates a list",))], "blocked", "blocked"),
        ([ScalarUse("other", "n > 0")], "blocked", "blocked"),
        ([ScalarUse("compare", "k < n", other="k")], "safe", "unsafe"),  # two int32 tensors: a bool tensor
        ([ScalarUse("compare", "x < n", other="x")], "safe", "unsafe"),  # float32 against int32: the proof decides
        ([ScalarUse("compare", "m < n", other="m")], "blocked", "blocked"),  # m: not a tensor parameter
    ],
)
def test_varying_python_int_conversion(uses, proven, unproven):
    facts = BodyFacts(uses={"n": uses})
    fn = function({"x": tensor([3]), "k": tensor([], "int32"), "n": py(10)},
                  {"x": tensor([3]), "k": tensor([], "int32"), "n": py(20)})
    src = source("x", "k", "n", facts=facts)
    for status, plan in ((unproven, decide_signature(fn, src)), (proven, decide_signature(proved(fn, src), src))):
        assert not plan.shape_only  # a varying Python value: reduce_retracing cannot help
        if status == "blocked":
            assert not plan.possible
            assert any("`n` cannot become a tensor" in r for r in plan.refusals)
        else:
            assert plan.possible and plan.conversions == {"n": "int32"}
            assert plan.tier == status, plan.unsafe_reasons
            assert plan.specs[-1] == ("n", TensorSpecInfo("tensor", (), "int32"))


def test_the_first_dtype_of_the_ladder_that_traces_is_proposed():
    """`tf.math.pow(x, k)` with a float32 `x`: int32 and int64 fail, float32 traces."""
    fn = function({"x": tensor([2]), "k": py(1)}, {"x": tensor([2]), "k": py(2)})
    src = source("x", "k", facts=BodyFacts(uses={"k": [ScalarUse("tf_arg", "tf.math.pow(x, k)")]}))
    error = "TypeError: Input 'y' of 'Pow' Op has type {} that does not match type float32 of argument 'x'."

    def oracle(candidate):
        dtype = candidate.converts.get("k")
        if dtype == "float32":
            proof = Proof(candidate.fix, "traced")
        else:
            proof = Proof(candidate.fix, "failed", error=error.format(dtype))
        fn.add_proof(candidate.key, proof)
        return proof

    search_candidates(fn, src.params, None, oracle)
    plan = decide_signature(fn, src)
    assert plan.possible and plan.tier == "safe" and plan.conversions == {"k": "float32"}
    assert plan.specs == [("x", TensorSpecInfo("tensor", (2,), "float32")), ("k", TensorSpecInfo("tensor", (), "float32"))]


def test_a_failed_proof_refuses_and_names_the_parameter():
    """`tf.constant(k)`: every dtype fails, and so does the probe of `k` alone."""
    fn = function({"x": tensor([2]), "k": py(1)}, {"x": tensor([2]), "k": py(2)})
    src = source("x", "k", facts=BodyFacts(uses={"k": [ScalarUse("tf_arg", "tf.constant(k)")]}))
    plan = decide_signature(proved(fn, src, "failed"), src)
    assert not plan.possible and plan.proof == "failed"
    assert plan.refusals == ["`k` cannot become a tensor: TypeError: boom"]
    assert plan.blockers == [("k", plan.refusals[0])]
    assert plan.notes[0].startswith("`k` was trial-traced on the live function as a scalar tensor of int32, int64, float32")


def test_a_tensorflow_argument_is_unsafe_under_xla_or_with_static_reads():
    fn = function({"x": tensor([3]), "n": py(1)}, {"x": tensor([3]), "n": py(2)})
    tile = [ScalarUse("tf_arg", "tf.tile(x, [n])")]
    src = source("x", "n", facts=BodyFacts(uses={"n": tile}), jit_compile=True)
    jit = decide_signature(proved(fn, src), src)
    assert jit.tier == "unsafe" and "XLA" in jit.unsafe_reasons[0]
    reads = BodyFacts(uses={"n": tile}, shape_reads=[ShapeRead("n", frozenset({0}), "y.shape[0]", derived=True)])
    src = source("x", "n", facts=reads)
    assert decide_signature(proved(fn, src), src).tier == "unsafe"
    src = source("x", "n", facts=BodyFacts(uses={"n": tile}))
    assert decide_signature(proved(fn, src), src).tier == "safe"


def test_step_count_blocked_only_by_its_loop_is_left_to_rtf001():
    facts = BodyFacts(uses={"n": [ScalarUse("range", "for i in range(n)", blockers=("append",))]})
    fn = function({"n": py(2)}, {"n": py(3)})
    plan = decide_signature(fn, source("n", facts=facts))
    assert set(plan.loop_blocked) == {"n"}
    assert set(plan.problems) | set(plan.refusals) <= set(plan.loop_blocked["n"])


def test_bool_flags_are_not_problems():
    facts = BodyFacts(uses={"training": [ScalarUse("other", "if training")]})
    fn = function({"x": tensor([2]), "training": py(True)}, {"x": tensor([3]), "training": py(False)})
    plan = decide_signature(fn, source("x", "training", facts=facts))
    assert not plan.possible and plan.shape_only and plan.shape_varies


def test_out_of_range_ints_are_int64_and_mixed_python_types_refuse():
    big = decide_signature(function({"n": py(2**40)}, {"n": py(3)}), source("n"))
    assert big.conversions == {"n": "int64"}  # outside the int32 range: the ladder starts at int64
    mixed = decide_signature(function({"n": py(1)}, {"n": py(1.5)}), source("n"))
    assert any("Python type varies (int, float)" in r for r in mixed.refusals)


def test_objects_block_the_signature_but_shapes_alone_can_be_relaxed():
    fn = function({"x": tensor([10, 5]), "model": obj("Dense", 1)}, {"x": tensor([20, 5]), "model": obj("Dense", 1)})
    plan = decide_signature(fn, source("x", "model"))
    assert not plan.possible and plan.shape_only and plan.shape_varies
    new_model = function({"x": tensor([10, 5]), "model": obj("Dense", 1)}, {"x": tensor([10, 5]), "model": obj("Dense", 2)})
    assert not decide_signature(new_model, source("x", "model")).shape_only


def test_structural_refusals():
    fn = function({"x": tensor([2]), "scale": py(0.5)}, {"x": tensor([3]), "scale": py(0.5)})
    kwonly = decide_signature(fn, source("x", ParamInfo("scale", "keyword_only")))
    assert not kwonly.possible and kwonly.shape_only
    assert "keyword-only parameter `scale` has no default" in kwonly.refusals[0]
    extra = function({"x": tensor([2]), "factor": py(2.0)}, {"x": tensor([3]), "factor": py(3.0)}, params=["x", "options"])
    kwargs = decide_signature(extra, source("x", ParamInfo("options", "var_keyword")))
    assert not kwargs.possible and not kwargs.shape_only
    assert "through `**options`" in kwargs.refusals[0]
    star = function({"args_0": tensor([2])}, {"args_0": tensor([3])}, params=["args"])
    starred = decide_signature(star, source(ParamInfo("args", "var_positional")))
    assert not starred.possible and starred.shape_only
    method = decide_signature(fn, source("x", "scale", method_problem="`cls` of a classmethod"))
    assert method.refusals[0] == "`cls` of a classmethod"


def test_variables_are_refused():
    var = {"kind": "variable", "shape": [2], "dtype": "float32", "trainable": True}
    plan = decide_signature(function({"v": var, "x": tensor([1])}, {"v": var, "x": tensor([2])}), source("v", "x"))
    assert not plan.possible and "tf.Variable" in plan.refusals[0]


def test_static_shape_reads_of_varying_dims_block():
    fn = function({"x": tensor([2, 4])}, {"x": tensor([3, 4])})
    for read, blocked in [
        (ShapeRead("x", frozenset({0}), "x.shape[0]"), True),
        (ShapeRead("x", frozenset({-1}), "x.shape[-1]"), False),
        (ShapeRead("x", frozenset({1}), "x.shape[1]"), False),
        (ShapeRead("x", frozenset({-2}), "x.shape[-2]"), True),
        (ShapeRead("x", None, "x.shape.as_list()"), True),
        (ShapeRead("x", frozenset({0}), "h.shape[0]", derived=True), True),
    ]:
        plan = decide_signature(fn, source("x", facts=BodyFacts(shape_reads=[read])))
        assert plan.possible is not blocked, read
        if blocked:
            assert plan.static_blockers and plan.shape_only
    message = decide_signature(fn, source("x", facts=BodyFacts(shape_reads=[ShapeRead("x", frozenset({0}), "len(x)")])))
    assert message.static_blockers == ["`len(x)` reads dim 0 of `x`, which varies (2, 3; use `tf.shape(x)[0]`)"]


# --------------------------------------------------------------------------- the source side


def _def(code: str) -> tuple[cst.Module, cst.FunctionDef]:
    module = cst.parse_module(code)
    node = next(n for n in module.body if isinstance(n, cst.FunctionDef))
    return module, node


def _facts(code: str, params: set[str], tensors: set[str] = frozenset()) -> BodyFacts:
    module, node = _def(code)
    return body_facts(node, params, Scope(ImportTable.from_module(module)), set(tensors))


def test_shape_reads_found_in_the_body():
    facts = _facts(
        "import tensorflow as tf\n"
        "def f(x, y):\n"
        "    a = x.shape[0] + len(y)\n"
        "    b = x.shape.as_list()[-1]\n"
        "    c = x.get_shape()[1]\n"
        "    d = x.shape.rank\n"
        "    h = tf.matmul(x, x)\n"
        "    e = h.shape[0]\n"
        "    f = tf.shape(x)[0]\n"
        "    g = tf.reshape(x, x.shape)\n",
        {"x", "y"},
    )
    found = {(r.param, None if r.dims is None else tuple(sorted(r.dims)), r.text, r.derived) for r in facts.shape_reads}
    assert found == {
        ("x", (0,), "x.shape[0]", False),
        ("y", (0,), "len(y)", False),
        ("x", (-1,), "x.shape.as_list()[-1]", False),
        ("x", (1,), "x.get_shape()[1]", False),
        ("x", (0,), "h.shape[0]", True),
        ("x", None, "x.shape", False),
    }


def test_scalar_uses_are_classified():
    facts = _facts(
        "import tensorflow as tf\n"
        "def f(x, n, lr, k):\n"
        "    for i in range(n - 1):\n"
        "        x = x + 1.0\n"
        "    y = x * lr + tf.random.normal([2], stddev=lr)\n"
        "    z = tf.tile(x, [k, 1])\n"
        "    if k > 2:\n"
        "        z = z + tf.cast(k, tf.float32)\n"
        "    return tf.range(n), z, y\n",
        {"x", "n", "lr", "k"},
        {"x"},
    )
    kinds = {name: [u.kind for u in uses] for name, uses in facts.uses.items() if name != "x"}
    assert kinds == {"n": ["range", "tf_range"], "lr": ["binop", "random_kw"], "k": ["tf_arg", "other", "cast"]}
    assert facts.uses["lr"][0].other == "x"
    assert "x" in facts.reassigned
    assert facts.uses["n"][0].text == "for i in range(n - 1)" and facts.uses["n"][0].blockers == ()


def test_a_nested_def_that_shadows_a_parameter_is_not_a_use():
    facts = _facts("def f(x, n):\n    def g(n):\n        return n > 1\n    return x * n\n", {"x", "n"})
    assert [u.kind for u in facts.uses["n"]] == ["binop"]


def test_params_defaults_and_qualnames():
    module, node = _def("def f(a, b=2, *args, c=None, d='s', e=[1], **kw):\n    pass\n")
    infos = param_infos(node)
    assert [(p.name, p.kind, p.has_default) for p in infos] == [
        ("a", "positional", False), ("b", "positional", True), ("args", "var_positional", False),
        ("c", "keyword_only", True), ("d", "keyword_only", True), ("e", "keyword_only", True),
        ("kw", "var_keyword", False),
    ]
    assert [p.default for p in infos[3:6]] == [None, "s", NO_LITERAL]
    assert literal_default(cst.parse_expression("-1.5")) == -1.5
    names = qualnames(cst.parse_module("class A:\n    def m(self):\n        def inner():\n            pass\n"))
    assert sorted(names.values()) == ["A.m", "A.m.<locals>.inner"]


def test_stale_python_values_when_the_calls_already_pass_tensors():
    """RTF001 wrapped the call sites in tf.constant: the recorded ints are no longer a problem."""
    uses = BodyFacts(uses={"n": [ScalarUse("other", "if n > 2")]})
    fn = function({"x": tensor([2]), "m": obj("Dense", 1), "n": py(1)}, {"x": tensor([3]), "m": obj("Dense", 1), "n": py(2)})
    stale = decide_signature(fn, source("x", "m", "n", facts=uses, tensor_at_call_sites=frozenset({"n"})))
    assert not stale.possible and stale.shape_only
    fresh = decide_signature(fn, source("x", "m", "n", facts=uses))
    assert not fresh.shape_only


def test_range_bound_needs_autograph():
    facts = BodyFacts(uses={"n": [ScalarUse("range", "for i in range(n)")]})
    fn = function({"n": py(1)}, {"n": py(2)})
    assert not decide_signature(fn, source("n", facts=facts, autograph=False)).possible


def test_a_default_some_call_in_the_code_overrides_is_not_pinned():
    fn = function({"x": tensor([2]), "training": py(False)}, {"x": tensor([3]), "training": py(False)})
    infos = ("x", ParamInfo("training", has_default=True, default=False))
    assert decide_signature(fn, source(*infos, call_site_values={"training": [False]})).pinned == ["training"]
    facts = BodyFacts(uses={"training": [ScalarUse("other", "if training")]})
    evaluation = decide_signature(fn, source(*infos, facts=facts, call_site_values={"training": [True]}))
    assert not evaluation.possible and evaluation.shape_only  # reduce_retracing instead


def test_dict_keys_that_were_not_strings_are_not_guessed():
    descs = [{"kind": "dict", "items": {"0": tensor([n])}} for n in (1, 2)]
    summary = summarize(descs, "d")
    assert summary.spec is None and summary.blockers and not summary.problems


def test_len_of_a_python_container_is_not_a_static_shape_read():
    fn = function({"xs": {"kind": "list", "items": [tensor([1]), tensor([1])]}},
                  {"xs": {"kind": "list", "items": [tensor([2]), tensor([2])]}})
    read = ShapeRead("xs", frozenset({0}), "len(xs)", via_len=True)
    assert decide_signature(fn, source("xs", facts=BodyFacts(shape_reads=[read]))).possible
    deeper = ShapeRead("xs", None, "xs[0].shape[0]")
    assert not decide_signature(fn, source("xs", facts=BodyFacts(shape_reads=[deeper]))).possible


def test_comparisons_with_a_tensor_parameter_outside_python_tests():
    facts = _facts(
        "import tensorflow as tf\n"
        "def f(coin, eps, a, b):\n"
        "    c = tf.where(coin < eps, a, b)\n"
        "    d = tf.where(eps >= coin, a, b)\n"
        "    if coin > eps:\n"
        "        c = c + 1\n"
        "    e = coin < eps < 1.0\n"
        "    g = eps == coin\n"
        "    return c, d, e, g\n",
        {"coin", "eps", "a", "b"},
    )
    assert [(u.kind, u.text, u.other) for u in facts.uses["eps"]] == [
        ("compare", "coin < eps", "coin"),
        ("compare", "eps >= coin", "coin"),
        ("other", "coin > eps", None),  # a Python test: autograph would make it a tf.cond
        ("other", "e = coin < eps < 1.0", None),  # chained: left to the general rule
        ("other", "g = eps == coin", None),
    ]


def test_changes_to_python_state_outside_the_call_are_trace_time_effects():
    facts = _facts(
        "import numpy as np\n"
        "import tensorflow as tf\n"
        "COUNT = 0\n"
        "def f(x, tracker, history, cfg):\n"
        "    global COUNT\n"
        "    tracker.value += 1\n"
        "    history.append(x)\n"
        "    COUNT += 1\n"
        "    cfg['seen'] = True\n"  # a plain assignment: lazy set-up, not counted
        "    outs = []\n"
        "    outs.append(x)\n"
        "    cache = {}\n"
        "    cache.update(a=1)\n"
        "    total = 0\n"
        "    total += 1\n"
        "    y = np.add(x, 1)\n"
        "    def body(acc):\n"
        "        acc.append(1)\n"
        "        return acc\n"
        "    return tf.add(x, 1)\n",
        {"x", "tracker", "history", "cfg"},
    )
    assert facts.trace_mutations == ["tracker.value += 1", "history.append(x)", "COUNT += 1"]
    assert facts.draws_note() == (
        "the body changes Python state while tracing (`tracker.value += 1`), once per trace: with fewer traces, "
        "other results"
    )


def test_a_trace_time_effect_makes_a_proven_signature_unsafe():
    fn = function({"x": tensor([3]), "n": py(1)}, {"x": tensor([3]), "n": py(2)})
    facts = BodyFacts(uses={"n": [ScalarUse("tf_arg", "tf.tile(x, [n])")]}, trace_mutations=["calls.append(1)"])
    plan = decide_signature(proved(fn, source("x", "n", facts=facts)), source("x", "n", facts=facts))
    assert plan.possible and plan.tier == "unsafe"
    assert any("changes Python state while tracing (`calls.append(1)`)" in r for r in plan.unsafe_reasons)
