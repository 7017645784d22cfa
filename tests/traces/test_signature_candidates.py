"""Candidate fixes built from traces alone, and the search over stored proofs (pure: no TensorFlow)."""

from __future__ import annotations

from retrace_fix.traces.signature_candidates import (
    FIX_CALL_SITE,
    FIX_CAST,
    FIX_RELAX,
    FIX_SCALAR,
    FIX_SIGNATURE,
    UNMATCHED_NOTE,
    UNPROVEN_NOTE,
    call_site_relax_candidate,
    error_line,
    layout,
    search_candidates,
    relax_candidate,
    signature_candidate,
    stored_oracle,
    traces_after,
)
from retrace_fix.traces.summaries import NO_LITERAL, ParamInfo
from retrace_fix.traces.model import FunctionTraces, Proof, Trace


def tensor(shape, dtype="float32"):
    return {"kind": "tensor", "shape": shape, "dtype": dtype}


def py(value):
    return {"kind": "python", "type": type(value).__name__, "value": value}


def function(*arg_sets, nested=()):
    traces = [Trace(args=args, nested=i in nested) for i, args in enumerate(arg_sets)]
    return FunctionTraces(file="m.py", qualname="f", firstlineno=1, name="f", params=list(arg_sets[0]),
                          calls=len(traces), traces=traces)


def asked(fn, params, answer=lambda candidate: Proof(candidate.fix, "traced"), skip_self=None):
    """The keys the search asks about, in order, and the plan, for an oracle that answers ``answer``."""
    keys = []

    def oracle(candidate):
        keys.append(candidate.key)
        return answer(candidate)

    return keys, search_candidates(fn, params, skip_self, oracle)


def test_the_signature_key_is_the_fix_as_written():
    fn = function({"x": tensor([2, 5]), "training": py(False)}, {"x": tensor([3, 5]), "training": py(False)})
    lay = layout(fn, [ParamInfo("x"), ParamInfo("training", has_default=True, default=False)], None)
    candidate = signature_candidate(lay, {})
    assert candidate.key == "input_signature: x=tf.TensorSpec(shape=[None, 5], dtype=tf.float32); pinned: training"
    assert candidate.fix == FIX_SIGNATURE and candidate.pinned == ["training"]


def test_the_ladder_is_walked_in_order_and_stops_at_the_first_that_traces():
    fn = function({"x": tensor([2]), "k": py(1)}, {"x": tensor([2]), "k": py(2)})

    def answer(candidate):
        traced = candidate.fix != FIX_SIGNATURE or candidate.converts["k"] == "float32"
        return Proof(candidate.fix, "traced" if traced else "failed", error=None if traced else "TypeError: no")

    keys, plan = asked(fn, [ParamInfo("x"), ParamInfo("k")], answer)
    signature_keys = [k for k in keys if k.startswith("input_signature")]
    assert [k.rsplit("dtype=tf.", 1)[1] for k in signature_keys] == ["int32)", "int64)", "float32)"]
    assert plan.signature.status == "traced" and plan.signature.candidate.converts == {"k": "float32"}


def test_the_fixer_replays_the_same_search_from_the_stored_proofs():
    fn = function({"x": tensor([2]), "k": py(1.5)}, {"x": tensor([3]), "k": py(2.5)})
    params = [ParamInfo("x"), ParamInfo("k")]
    assert stored_oracle(fn)(signature_candidate(layout(fn, params, None), {"k": "float32"})).note == UNPROVEN_NOTE
    keys, recorded = asked(fn, params, lambda c: fn.proofs.setdefault(c.key, Proof(c.fix, "traced")))
    replayed = search_candidates(fn, params, None, stored_oracle(fn))
    assert replayed.signature.status == "traced"
    assert replayed.signature.candidate.key == recorded.signature.candidate.key == keys[0]
    # a candidate the recording did not prove (the code changed): unproven, and the note says so
    changed = [ParamInfo("x"), ParamInfo("k"), ParamInfo("training", has_default=True, default=False)]
    outcome = search_candidates(fn, changed, None, stored_oracle(fn)).signature
    assert (outcome.status, outcome.note) == ("unproven", UNMATCHED_NOTE)
    assert outcome.candidate.key.endswith("; pinned: training")


def test_a_never_varying_value_without_a_default_becomes_a_scalar_slot_not_a_blocker():
    fn = function({"x": tensor([2]), "rate": py(0.25)}, {"x": tensor([3]), "rate": py(0.25)})
    lay = layout(fn, [ParamInfo("x"), ParamInfo("rate")], None)
    assert [(s.param, s.kind) for s in lay.slots] == [("x", "spec"), ("rate", "scalar")]
    assert lay.slots[1].ladder == ("float32", "float64") and not lay.slots[1].varies
    pinned = layout(fn, [ParamInfo("x"), ParamInfo("rate", has_default=True, default=0.25)], None)
    assert pinned.pinned == ["rate"] and [s.param for s in pinned.slots] == ["x"]


def test_nested_only_retraces_are_not_retraces():
    fn = function({"x": tensor([2])}, {"x": tensor([3])}, {"x": tensor([4])}, nested=(1, 2))
    keys, plan = asked(fn, [ParamInfo("x")])
    assert plan.layout.nested_only and not plan.layout.retraced and keys == []


def test_traces_made_by_get_concrete_function_are_not_retraces():
    """An export or a warm-up asks for its trace once: nothing to fix at steady state."""
    traces = [Trace(args={"x": tensor([2])}), Trace(args={"x": tensor([None])}, via="get_concrete_function")]
    fn = FunctionTraces(file="m.py", qualname="f", firstlineno=1, name="f", params=["x"], calls=1, traces=traces)
    keys, plan = asked(fn, [ParamInfo("x")])
    assert not plan.layout.retraced and not plan.layout.nested_only and keys == []
    fn.traces.append(Trace(args={"x": tensor([3])}))
    assert search_candidates(fn, [ParamInfo("x")], None, lambda c: Proof(c.fix, "traced")).layout.retraced


def test_reduce_retracing_relaxes_each_group_of_same_values_and_counts_what_it_saves():
    fn = function(*({"x": tensor([n, 4]), "mode": py(m)} for m in ("a", "b") for n in (1, 2, 3)))
    candidate = relax_candidate(fn, None)
    assert candidate.fix == FIX_RELAX
    assert candidate.trials == [{"x": tensor([None, 4]), "mode": py("a")}, {"x": tensor([None, 4]), "mode": py("b")}]
    assert candidate.saves == 2  # 3 shapes per value: the third reuses the relaxed trace
    each_value_its_shape = function({"x": tensor([1, 4]), "n": py(1)}, {"x": tensor([2, 4]), "n": py(2)})
    assert relax_candidate(each_value_its_shape, None) is None


def test_rank_drift_and_distributed_values_relax():
    per_replica = [{"kind": "per_replica", "items": [tensor([n, 4]), tensor([n, 4])]} for n in (4, 3, 2)]
    fn = function(*({"x": value} for value in per_replica))
    assert relax_candidate(fn, None).trials == [{"x": {"kind": "per_replica", "items": [tensor([None, 4])] * 2}}]
    ranks = function({"x": tensor([2])}, {"x": tensor([2, 3])})
    assert relax_candidate(ranks, None).trials == [{"x": tensor(None)}]
    assert signature_candidate(layout(ranks, [ParamInfo("x")], None), {}).key == (
        "input_signature: x=tf.TensorSpec(shape=None, dtype=tf.float32)"
    )


def test_call_site_conversion_of_varying_scalars_and_drifting_dtypes():
    fn = function(
        {"x": tensor([2], "float32"), "alpha": py(0.1), "model": {"kind": "object", "type": "Dense", "id": 1}},
        {"x": tensor([2], "float64"), "alpha": py(0.2), "model": {"kind": "object", "type": "Dense", "id": 1}},
    )
    keys, plan = asked(fn, [ParamInfo("x"), ParamInfo("alpha"), ParamInfo("model")])
    assert plan.signature.status == "blocked"  # the model
    assert plan.call_site.status == "traced"
    candidate = plan.call_site.candidate
    assert candidate.fix == FIX_CALL_SITE and candidate.converts == {"x": "float32", "alpha": "float32"}
    assert candidate.trials == [
        {"x": tensor([2], "float32"), "alpha": tensor([]), "model": {"kind": "object", "type": "Dense", "id": 1}}
    ]  # both traces become one once converted


def test_reduce_retracing_after_the_call_site_conversion_is_its_own_proven_candidate():
    model = {"kind": "object", "type": "Dense", "id": 1}
    fn = function(*({"x": tensor([n, 3]), "w": py(w), "model": model} for w in (0.5, 1.5) for n in (2, 4, 8)))
    keys, plan = asked(fn, [ParamInfo("x"), ParamInfo("w"), ParamInfo("model")])
    assert plan.call_site.candidate.converts == {"w": "float32"}
    combined = plan.call_site_relax
    assert combined.status == "traced" and combined.candidate.fix == FIX_RELAX and combined.candidate.relax
    assert combined.candidate.key.startswith("reduce_retracing after call_site (w=float32): x=float32[None, 3]")
    assert combined.candidate.trials == [{"x": tensor([None, 3]), "w": tensor([]), "model": model}]
    assert combined.candidate.key in keys  # the recorder proves it
    kinds = {"w": FIX_SCALAR}
    assert traces_after(fn, None, {"w": "float32"}, kinds) == 3
    assert traces_after(fn, None, {"w": "float32"}, kinds, relaxed=True) == 2
    # relaxing saves nothing with two shapes: no combined candidate
    two = function(*({"x": tensor([n, 3]), "w": py(w), "model": model} for w in (0.5, 1.5) for n in (2, 4)))
    assert call_site_relax_candidate(two, None, {"w": "float32"}, kinds) is None
    drift = function({"x": tensor([2], "float64")}, {"x": tensor([2], "float32")})
    assert traces_after(drift, None, {"x": "float32"}, {"x": FIX_CAST}) == 1


def test_error_line_keeps_the_useful_line():
    error = TypeError("in user code:\n\n    File x\n\n    TypeError: Input 'y' of 'Pow' Op has type int32 that does not match\n")
    assert error_line(error) == "TypeError: Input 'y' of 'Pow' Op has type int32 that does not match"
    long = ValueError("Iterating over a symbolic `tf.Tensor` is not allowed. You can attempt the following resolutions to "
                      "the problem: If you are running in Graph mode, use Eager execution mode.")
    assert error_line(long) == "ValueError: Iterating over a symbolic `tf.Tensor` is not allowed."


def test_no_literal_defaults_are_never_pinned():
    fn = function({"x": tensor([2]), "n": py(3)}, {"x": tensor([3]), "n": py(3)})
    lay = layout(fn, [ParamInfo("x"), ParamInfo("n", has_default=True, default=NO_LITERAL)], None)
    assert lay.pinned == [] and lay.slots[1].kind == "scalar"


def seq(kind, *values):
    return {"kind": kind, "items": [py(v) for v in values]}


def test_a_varying_list_of_numbers_becomes_one_1d_tensor_slot():
    fn = function(
        {"x": tensor([3]), "weights": seq("list", 0.5, 1.0, 2.0), "bounds": seq("tuple", -1, 1)},
        {"x": tensor([3]), "weights": seq("list", 0.25, 1.0, 3.0), "bounds": seq("tuple", -2, 2)},
    )
    lay = layout(fn, [ParamInfo("x"), ParamInfo("weights"), ParamInfo("bounds")], None)
    assert [(s.param, s.kind, s.sequence) for s in lay.slots] == [
        ("x", "spec", False), ("weights", "spec", True), ("bounds", "spec", True)]
    assert signature_candidate(lay, {}).key == (
        "input_signature: x=tf.TensorSpec(shape=[3], dtype=tf.float32), "
        "weights=tf.TensorSpec(shape=[3], dtype=tf.float32), bounds=tf.TensorSpec(shape=[2], dtype=tf.int32)")


def test_lists_that_are_no_single_number_tensor_stay_blocked():
    cases = {
        "bools": (seq("list", True, False), seq("list", False, False)),
        "mixed": (seq("list", 1, 2.0), seq("list", 2, 3.0)),
        "fixed": (seq("list", 1.0, 2.0), seq("list", 1.0, 2.0)),  # no retrace comes from it
        "length": (seq("list", 1.0), seq("list", 1.0, 2.0)),
        "int64": (seq("list", 2**40), seq("list", 2**41)),
    }
    for name, (first, second) in cases.items():
        fn = function({"x": tensor([2]), "v": first}, {"x": tensor([3]), "v": second})
        lay = layout(fn, [ParamInfo("x"), ParamInfo("v")], None)
        slot = next(s for s in lay.slots if s.param == "v")
        assert not slot.sequence, name
