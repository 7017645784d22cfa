"""Candidate fixes of one recorded tf.function, built from its traces alone, and the search that picks one.

Pure Python: no TensorFlow, no LibCST.  Both sides of a trace-driven fix call
:func:`search_candidates` with the same inputs (the recorded traces, the
parameters, which one is ``self``):

* the recorder, at the end of the recorded program, with an *oracle* that
  trial-traces each candidate on a fresh ``tf.function`` around the live
  Python function (``get_concrete_function``: traced, never executed) and
  stores the outcome in the trace file under :attr:`Candidate.key`;
* the fixer (RTF003, RTF004, RTF005) with an oracle that reads those
  stored outcomes (:func:`stored_oracle`), so it finds the proof of exactly the
  fix it is about to propose and walks the dtype ladders to the same answer.

The kinds of candidates (``Candidate.fix``):

``input_signature`` (RTF003)
    one spec per parameter: tensors generalised over every trace (``None``
    where a dimension varied, ``shape=None`` where the rank varied), Python
    ``int``/``float``/``bool`` values as scalar tensors of the first dtype of
    their ladder that traces (:data:`DTYPE_LADDERS`), trailing parameters whose
    literal default every call used stay pinned.  Traced with
    ``tf.function(f, input_signature=...).get_concrete_function()``.
``reduce_retracing`` (RTF004)
    the traces grouped by everything but tensor shapes; per group whose shapes
    varied, the group's arguments with each tensor relaxed to the shape
    ``reduce_retracing`` generalises it to, the rest as recorded.
``call_site`` (RTF005)
    the Python scalars whose value varied and the tensors whose dtype drifted,
    converted to tensors of one dtype each (as a caller would with
    ``tf.constant(v, dtype)`` / ``tf.cast``); every recorded trace with those
    substitutions, the other arguments as recorded.
``reduce_retracing`` after ``call_site`` (RTF005 with RTF004)
    the ``call_site`` substitutions first, then ``reduce_retracing``'s relaxed
    shapes over the converted traces (grouped by everything but tensor shapes):
    the combination proven when, with the values converted, relaxing folds more
    traces than either fix alone.  Its ``fix`` is ``reduce_retracing``; its key
    starts with ``reduce_retracing after call_site``.
``scalar`` / ``cast`` (probes)
    one parameter converted, every other argument as in the first trace: which
    dtype each parameter can take, and which one blocks when a candidate fails.

A trial argument is a value descriptor (``docs/trace-format.md``): tensor,
ragged and sparse descriptors are traced as specs of that shape and dtype,
Python values and objects are passed as recorded (objects: the live object the
recorder saw), containers and distributed values element by element.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Optional

from retrace_fix import __version__
from retrace_fix.traces.summaries import (
    INT32_MAX,
    INT32_MIN,
    NO_LITERAL,
    TENSOR_KINDS,
    ParamInfo,
    Spec,
    TensorSpecInfo,
    ValueSummary,
    _listed,
    _python_repr,
    _unique,
    render_spec,
    summarize,
)
from retrace_fix.traces.model import FunctionTraces, Proof, Trace

FIX_SIGNATURE = "input_signature"
FIX_RELAX = "reduce_retracing"
FIX_CALL_SITE = "call_site"
FIX_SCALAR = "scalar"
FIX_CAST = "cast"

#: dtypes a Python scalar is tried as, in order; the first that traces is proposed
DTYPE_LADDERS = {"int": ("int32", "int64", "float32"), "float": ("float32", "float64"), "bool": ("bool",)}
#: order in which the recorded dtypes of a drifting tensor are tried for a call-site cast
DRIFT_ORDER = ("float32", "float64", "int32", "int64", "bfloat16", "float16")
#: at most this many trials (argument sets) per candidate; later groups/traces are left out
MAX_TRIALS = 8

#: ``oracle(candidate)``: the outcome of trial-tracing ``candidate``, or None when unknown
Oracle = Callable[["Candidate"], Optional[Proof]]

#: the fixer's note when a file holds no proof at all (recorded before proofs, or proofs turned off)
UNPROVEN_NOTE = f"not proven on the live function (re-record with retrace-fix >= {__version__})"
#: ... and when it holds proofs, but none of this candidate
UNMATCHED_NOTE = "not proven: the trace file has no proof of this fix (the code changed since recording? re-record)"


# ---------------------------------------------------------------------------
# candidates


@dataclass
class Candidate:
    """One fix to trial-trace; ``key`` identifies it in the trace file's ``proofs``."""

    fix: str
    key: str
    #: input_signature: ``[(param, Spec)]`` in parameter order (``self`` and pinned ones left out)
    signature: list = field(default_factory=list)
    pinned: list = field(default_factory=list)
    #: reduce_retracing / call_site / probes: argument sets, ``{param: value descriptor}`` each
    trials: list = field(default_factory=list)
    #: parameter -> dtype it becomes (scalar slots of a signature, converted call-site arguments, probes)
    converts: dict = field(default_factory=dict)
    #: reduce_retracing: how many of the recorded traces it would have saved (each group of traces
    #: that differ in shapes alone keeps two: the first, exact, and one relaxed)
    saves: int = 0
    #: traced on a ``tf.function(..., reduce_retracing=True)`` (``reduce_retracing`` candidates)
    relax: bool = False
    #: parameters whose ``tf.constant(param[, dtype])`` calls in the body are traced as
    #: ``tf.convert_to_tensor(param)`` / ``tf.cast(param, dtype)`` (the body edit RTF005 pairs with
    #: the call-site conversion; the prover patches ``tf.constant`` for exactly these tensors)
    constants: tuple = ()


def render_arg(desc: dict) -> str:
    """Compact text of a trial argument (for keys): ``float32[None, 4]``, ``3``, ``<Sequential#1>``."""
    kind = desc.get("kind")
    if kind in TENSOR_KINDS or kind == "variable":
        shape = desc.get("shape")
        dims = "?" if shape is None else ", ".join("None" if d is None else str(d) for d in shape)
        prefix = "" if kind == "tensor" else f"{kind}:"
        extra = f":r{desc.get('ragged_rank')}" if kind == "ragged" else ""
        return f"{prefix}{desc.get('dtype')}[{dims}]{extra}"
    if kind == "python":
        return _python_repr(desc) if desc.get("type") != "float" else repr(desc.get("value"))
    if kind == "object":
        return f"<{desc.get('type')}#{desc.get('id')}>"
    if kind in ("list", "tuple", "per_replica"):
        inner = ", ".join(render_arg(d) for d in desc.get("items", []))
        return {"list": f"[{inner}]", "tuple": f"({inner})"}.get(kind, f"PerReplica({inner})")
    if kind in ("dict", "namedtuple"):
        inner = ", ".join(f"{k}={render_arg(v)}" for k, v in desc.get("items", {}).items())
        return f"{desc.get('type')}({inner})" if kind == "namedtuple" else "{" + inner + "}"
    return f"<{desc.get('type', kind)}>"


def _render_trial(trial: dict) -> str:
    return ", ".join(f"{name}={render_arg(desc)}" for name, desc in trial.items())


def _digest(trials: list) -> str:
    text = json.dumps(trials, sort_keys=True, separators=(",", ":"))
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:10]


def _tensor_desc(dtype: str, shape: list | None = ()) -> dict:
    return {"kind": "tensor", "shape": list(shape) if shape is not None else None, "dtype": dtype}


# ---------------------------------------------------------------------------
# which traces count


def _steady(traces: Iterable[Trace]) -> list[Trace]:
    """Traces made from eager code (a nested trace is redone only when its caller retraces)."""
    return [t for t in traces if not t.nested]


def distinct_by_instance(traces: Iterable[Trace], skip_self: str | None) -> tuple[int, bool]:
    """(distinct traces ignoring ``self``, whether one instance traced more than once)."""
    groups: dict[Any, set] = {}
    everything: set = set()
    for trace in traces:
        owner = None
        args = dict(trace.args)
        if skip_self and skip_self in args:
            self_desc = args.pop(skip_self)
            owner = (self_desc.get("type"), self_desc.get("id"))
        key = json.dumps(args, sort_keys=True, separators=(",", ":"))
        groups.setdefault(owner, set()).add(key)
        everything.add(key)
    return len(everything), any(len(keys) > 1 for keys in groups.values())


# ---------------------------------------------------------------------------
# the signature layout: what each parameter becomes


@dataclass
class Slot:
    """One parameter of a candidate signature."""

    param: str
    kind: str  # spec | scalar | blocked
    spec: Spec | None = None
    ladder: tuple = ()  # scalar: dtypes to try, in order
    python_type: str | None = None  # scalar: the Python type recorded
    varies: bool = False  # scalar: its value varied between traces
    reason: str = ""  # blocked: why (names the parameter)
    #: spec: a Python list/tuple of numbers whose values varied, given a 1-D tensor spec
    #: (:func:`number_sequence_spec`); the body then sees a tensor where it saw a list
    sequence: bool = False


@dataclass
class Layout:
    """What a signature generalised from the traces would be, parameter by parameter."""

    retraced: bool = False
    nested_only: bool = False  # retraced only while callers were traced: nothing at steady state
    distinct: int = 0
    summaries: dict = field(default_factory=dict)  # param -> ValueSummary (``self`` left out)
    slots: list = field(default_factory=list)  # [Slot] of the parameters that get a spec
    pinned: list = field(default_factory=list)  # trailing parameters left to their defaults
    structural: list = field(default_factory=list)  # [(param or None, why)] blockers of the def's shape
    star_keys: list = field(default_factory=list)  # ``args_0``... of ``*args``

    @property
    def blocked(self) -> list[Slot]:
        return [s for s in self.slots if s.kind == "blocked"]

    @property
    def possible(self) -> bool:
        return self.retraced and not self.structural and not self.blocked


def pinnable(param: ParamInfo, summary: ValueSummary | None) -> bool:
    """A parameter with a literal default that every recorded call left at that default."""
    if not param.has_default or param.default is NO_LITERAL:
        return False
    if summary is None:  # never recorded: it always took its default
        return True
    if summary.kind != "python" or summary.varies:
        return False
    (type_name,) = summary.types or ("?",)
    value = summary.values[0]
    default = param.default
    if default is None:
        return type_name == "NoneType"
    if type(default).__name__ != type_name:
        return False
    if isinstance(default, float) and isinstance(value, float) and value != value and default != default:
        return True
    return value == default


def scalar_ladder(summary: ValueSummary) -> tuple[tuple, str | None]:
    """(dtypes to try, why none) for a Python-value parameter."""
    types = summary.types
    if len(types) != 1:
        return (), f"`{summary.path}`: Python type varies ({_listed(types)})"
    type_name = types[0]
    ladder = DTYPE_LADDERS.get(type_name)
    values = _listed(_python_repr({"type": type_name, "value": v}) for v in summary.values)
    if ladder is None:
        what = "None" if type_name == "NoneType" else f"a Python {type_name}"
        if summary.varies:
            return (), f"`{summary.path}`: Python {type_name} varies ({values}) — each value builds a new graph"
        return (), (
            f"`{summary.path}` is {what} ({values}) in every call and has no default to pin — "
            "give it a default or close over it"
        )
    if type_name == "float" and any(not isinstance(v, (int, float)) for v in summary.values):
        return (), f"`{summary.path}`: non-finite Python float"
    if type_name == "int" and any(not (INT32_MIN <= v <= INT32_MAX) for v in summary.values):
        ladder = tuple(d for d in ladder if d != "int32")
    return ladder, None


def layout(
    function: FunctionTraces,
    params: list[ParamInfo],
    skip_self: str | None,
    unpinnable: Iterable[str] = (),
) -> Layout:
    """The signature the traces allow, before any proof (``unpinnable``: parameters not to pin)."""
    result = Layout()
    traces = list(function.traces)
    result.distinct, _ = distinct_by_instance(traces, skip_self)
    # retracing is what calls cost at steady state: a trace made while a caller was traced is
    # redone only when the caller retraces, and one made by get_concrete_function() (an export,
    # a warm-up) is asked for explicitly, once
    calls = [t for t in traces if t.via == "call"]
    _, retraced_with_nested = distinct_by_instance(calls, skip_self)
    _, result.retraced = distinct_by_instance(_steady(calls), skip_self)
    result.nested_only = retraced_with_nested and not result.retraced
    if not result.retraced:
        return result
    params = [p for p in params if p.name != skip_self]
    named = {p.name for p in params} | ({skip_self} if skip_self else set())
    for param in params:
        if param.kind == "var_positional":
            result.structural.append(
                (param.name, f"`*{param.name}`: a signature would fix the number of positional arguments")
            )
        elif param.kind == "keyword_only" and not param.has_default:
            result.structural.append((
                param.name,
                f"keyword-only parameter `{param.name}` has no default (TensorFlow requires one with a signature)",
            ))
    var_keyword = next((p for p in params if p.kind == "var_keyword"), None)
    var_positional = next((p for p in params if p.kind == "var_positional"), None)
    if var_positional is not None:
        pattern = re.compile(re.escape(var_positional.name) + r"_\d+$")
        result.star_keys = _unique(k for t in traces for k in t.args if pattern.match(k) and k not in named)
    extra = _unique(k for t in traces for k in t.args if k not in named and k not in result.star_keys)
    if extra:
        if var_keyword is not None:
            result.structural.append((
                var_keyword.name,
                f"callers pass {_listed('`' + k + '`' for k in extra)} through `**{var_keyword.name}`, "
                "which a signature drops",
            ))
        else:
            result.structural.append((None, "the traces do not match the parameters (re-record)"))
    for param in params:
        if param.kind in ("var_keyword", "var_positional"):
            continue
        descs = [t.args[param.name] for t in traces if param.name in t.args]
        if descs:
            result.summaries[param.name] = summarize(descs, param.name)
    for key in result.star_keys:
        descs = [t.args[key] for t in traces if key in t.args]
        if len(descs) == len(traces):
            result.summaries[key] = summarize(descs, key)

    signable = [p for p in params if p.kind in ("positional", "keyword_only")]
    blocked_pins = set(unpinnable)
    pinned: list[str] = []
    for param in reversed(signable):
        if param.name in blocked_pins or not pinnable(param, result.summaries.get(param.name)):
            break
        pinned.append(param.name)
    result.pinned = pinned[::-1]
    for param in signable:
        if param.name in result.pinned:
            continue
        result.slots.append(_slot(param, result.summaries.get(param.name)))
    return result


def _slot(param: ParamInfo, summary: ValueSummary | None) -> Slot:
    name = param.name
    if summary is None:
        return Slot(name, "blocked", reason=f"`{name}` was never recorded")
    if summary.kind == "python":
        ladder, why = scalar_ladder(summary)
        if not ladder:
            return Slot(name, "blocked", reason=why or f"`{name}` cannot become a tensor")
        return Slot(name, "scalar", ladder=ladder, python_type=summary.types[0], varies=summary.varies)
    sequence = number_sequence_spec(summary)
    if sequence is not None:
        return Slot(name, "spec", spec=sequence, sequence=True, varies=True)
    if summary.problems:
        return Slot(name, "blocked", reason=summary.problems[0])
    if summary.blockers or summary.spec is None:
        return Slot(name, "blocked", reason=(summary.blockers or [f"`{name}` cannot be described by a signature"])[0])
    return Slot(name, "spec", spec=summary.spec)


#: the tensor dtype a list of Python numbers of one type becomes (``tf.constant``'s choice)
SEQUENCE_DTYPES = {"float": "float32", "int": "int32"}


def number_sequence_spec(summary: ValueSummary) -> TensorSpecInfo | None:
    """``TensorSpec([n], float32|int32)`` for a list/tuple parameter of ``n`` Python numbers of one type
    (floats, or ints within int32) whose values varied between traces: every new value was a new trace,
    and one 1-D tensor slot serves them all.  None for anything else (nested, mixed, bools, a fixed value)."""
    if summary.kind not in ("list", "tuple") or not summary.varies or not summary.children:
        return None
    types = {t for child in summary.children for t in (child.types if child.kind == "python" else ["?"])}
    if len(types) != 1 or next(iter(types)) not in SEQUENCE_DTYPES:
        return None
    (type_name,) = types
    values = [v for child in summary.children for v in child.values]
    if type_name == "float" and any(not isinstance(v, (int, float)) or v != v or v in (float("inf"), float("-inf"))
                                    for v in values):
        return None  # non-finite floats are stored as text
    if type_name == "int" and any(not isinstance(v, int) or not (INT32_MIN <= v <= INT32_MAX) for v in values):
        return None
    return TensorSpecInfo("tensor", (len(summary.children),), SEQUENCE_DTYPES[type_name])


def signature_candidate(lay: Layout, dtypes: dict) -> Candidate:
    """The ``input_signature`` candidate of ``lay`` with the scalar slots at ``dtypes``."""
    specs: list = []
    for slot in lay.slots:
        if slot.kind == "spec":
            specs.append((slot.param, slot.spec))
        elif slot.kind == "scalar":
            specs.append((slot.param, TensorSpecInfo("tensor", (), dtypes[slot.param])))
    text = ", ".join(f"{param}={render_spec(spec)}" for param, spec in specs) or "(no parameters)"
    if lay.pinned:
        text += "; pinned: " + ", ".join(lay.pinned)
    converts = {s.param: dtypes[s.param] for s in lay.slots if s.kind == "scalar"}
    return Candidate(FIX_SIGNATURE, f"{FIX_SIGNATURE}: {text}", signature=specs, pinned=list(lay.pinned),
                     trials=[{}], converts=converts)


# ---------------------------------------------------------------------------
# trial argument sets


def _trial_args(trace: Trace, skip_self: str | None) -> dict:
    return {name: desc for name, desc in trace.args.items() if name != skip_self}


def probe_candidate(function: FunctionTraces, skip_self: str | None, param: str, dtype: str, fix: str,
                    constants: tuple = ()) -> Candidate:
    """``param`` converted to ``dtype`` (``scalar``: a Python value as a scalar tensor; ``cast``: a
    tensor's dtype), every other argument as in the first steady trace; ``constants``: the body's
    ``tf.constant(param)`` traced as a conversion of the tensor (see :attr:`Candidate.constants`)."""
    traces = _steady(function.traces) or list(function.traces)
    args = dict(_trial_args(traces[0], skip_self))
    if fix == FIX_SCALAR:
        args[param] = _tensor_desc(dtype)
    else:
        args[param] = {**args[param], "dtype": dtype}
    key = f"{fix} {param}={dtype}{_constants_key(constants)}: {_render_trial(args)}"
    return Candidate(fix, key, trials=[args], converts={param: dtype}, constants=tuple(constants))


def _constants_key(constants: tuple) -> str:
    return f" (tf.constant of {', '.join(constants)} as conversions)" if constants else ""


def _strip_shapes(desc: Any) -> Any:
    """``desc`` with every tensor shape left out (what ``reduce_retracing`` cannot relax stays)."""
    if isinstance(desc, dict):
        if desc.get("kind") in TENSOR_KINDS:
            return {k: v for k, v in desc.items() if k != "shape"}
        return {k: _strip_shapes(v) for k, v in desc.items()}
    if isinstance(desc, list):
        return [_strip_shapes(v) for v in desc]
    return desc


def _has_tensor(desc: Any) -> bool:
    if isinstance(desc, dict):
        return desc.get("kind") in TENSOR_KINDS or any(_has_tensor(v) for v in desc.values())
    if isinstance(desc, list):
        return any(_has_tensor(v) for v in desc)
    return False


def relax(descs: list[dict]) -> dict:
    """The descriptor ``reduce_retracing`` generalises ``descs`` (same structure, same dtypes) to."""
    first = descs[0]
    kind = first.get("kind")
    if kind in TENSOR_KINDS:
        shapes = [d.get("shape") for d in descs]
        ranks = {None if s is None else len(s) for s in shapes}
        if None in ranks or len(ranks) > 1:
            return {**first, "shape": None}
        dims = [shapes[0][i] if len({s[i] for s in shapes}) == 1 else None for i in range(len(shapes[0]))]
        return {**first, "shape": dims}
    if kind in ("list", "tuple", "per_replica"):
        return {**first, "items": [relax([d["items"][i] for d in descs]) for i in range(len(first.get("items", [])))]}
    if kind in ("dict", "namedtuple"):
        return {**first, "items": {k: relax([d["items"][k] for d in descs]) for k in first.get("items", {})}}
    return first


def relax_candidate(function: FunctionTraces, skip_self: str | None) -> Candidate | None:
    """``reduce_retracing=True``: one trial per group of traces (same everything but tensor shapes)
    whose shapes varied; None when no group's shapes varied (then it folds nothing)."""
    trials, saves = _relaxed_trials([_trial_args(trace, skip_self) for trace in function.traces])
    if not trials:
        return None
    return Candidate(FIX_RELAX, f"{FIX_RELAX}: {_shown_relaxed(trials)} #{_digest(trials)}", trials=trials,
                     saves=saves, relax=True)


def _relaxed_trials(argument_sets: list[dict]) -> tuple[list[dict], int]:
    """(the relaxed argument set of every group whose shapes varied, the traces relaxing saves)."""
    groups: dict[str, list[dict]] = {}
    for args in argument_sets:
        groups.setdefault(json.dumps(_strip_shapes(args), sort_keys=True), []).append(args)
    trials = []
    saves = 0
    for members in groups.values():
        distinct = _unique(json.dumps(m, sort_keys=True) for m in members)
        if len(distinct) < 2 or not any(_has_tensor(v) for v in members[0].values()):
            continue
        saves += len(distinct) - 2
        trials.append({name: relax([m[name] for m in members]) for name in members[0]})
    return trials[:MAX_TRIALS], saves


def _shown_relaxed(trials: list[dict]) -> str:
    return "; ".join(
        ", ".join(f"{n}={render_arg(d)}" for n, d in trial.items() if _has_tensor(d)) for trial in trials[:2]
    )


def call_site_targets(lay: Layout) -> dict[str, tuple[str, tuple]]:
    """Parameters a call-site conversion would change: ``{param: ("scalar" | "cast", dtype ladder)}``.

    Python int/float/bool values that varied become scalar tensors; tensors whose dtype drifted
    are cast to one dtype.
    """
    targets: dict[str, tuple[str, tuple]] = {}
    for name, summary in lay.summaries.items():
        if summary.kind == "python" and summary.varies:
            ladder, _ = scalar_ladder(summary)
            if ladder:
                targets[name] = (FIX_SCALAR, ladder)
        elif summary.kind == "tensor" and summary.dtype_varies:
            dtypes = summary.dtypes
            ordered = [d for d in DRIFT_ORDER if d in dtypes] + [d for d in dtypes if d not in DRIFT_ORDER]
            targets[name] = (FIX_CAST, tuple(ordered))
    return targets


def convert_args(args: dict, dtypes: dict, kinds: dict) -> dict:
    """``args`` (a trial's or trace's arguments) with each parameter of ``dtypes`` converted as a caller
    would: ``kinds[param]`` ``scalar`` (a Python value -> a scalar tensor) or ``cast`` (a tensor's dtype)."""
    out = dict(args)
    for name, dtype in dtypes.items():
        if name not in out:
            continue
        if kinds[name] == FIX_SCALAR:
            out[name] = _tensor_desc(dtype)
        else:
            out[name] = {**out[name], "dtype": dtype}
    return out


def call_site_candidate(function: FunctionTraces, skip_self: str | None, dtypes: dict, kinds: dict,
                        constants: tuple = ()) -> Candidate:
    """The recorded traces with ``dtypes`` applied (``kinds[param]``: scalar or cast), deduplicated."""
    trials: list[dict] = []
    seen: set[str] = set()
    for trace in _steady(function.traces) or function.traces:
        args = convert_args(_trial_args(trace, skip_self), dtypes, kinds)
        ident = json.dumps(args, sort_keys=True)
        if ident not in seen:
            seen.add(ident)
            trials.append(args)
    trials = trials[:MAX_TRIALS]
    return Candidate(FIX_CALL_SITE, f"{FIX_CALL_SITE}: {_head(dtypes)}{_constants_key(constants)} #{_digest(trials)}",
                     trials=trials, converts=dict(dtypes), constants=tuple(constants))


def _head(dtypes: dict) -> str:
    return ", ".join(f"{name}={dtype}" for name, dtype in dtypes.items())


def call_site_relax_candidate(
    function: FunctionTraces, skip_self: str | None, dtypes: dict, kinds: dict, constants: tuple = ()
) -> Candidate | None:
    """``reduce_retracing=True`` on top of the call-site conversion ``dtypes``: the converted steady traces
    grouped by everything but tensor shapes, each group whose shapes varied relaxed; None when relaxing
    the converted traces would save nothing (then ``reduce_retracing`` adds nothing to the conversion)."""
    converted = [convert_args(_trial_args(t, skip_self), dtypes, kinds) for t in _steady(function.traces)]
    trials, saves = _relaxed_trials(converted)
    if not trials or saves <= 0:
        return None
    key = (f"{FIX_RELAX} after {FIX_CALL_SITE} ({_head(dtypes)}{_constants_key(constants)}): "
           f"{_shown_relaxed(trials)} #{_digest(trials)}")
    return Candidate(FIX_RELAX, key, trials=trials, converts=dict(dtypes), saves=saves, relax=True,
                     constants=tuple(constants))


def traces_after(
    function: FunctionTraces, skip_self: str | None, dtypes: dict, kinds: dict, relaxed: bool = False
) -> int:
    """How many distinct traces the recorded calls would have made with the call-site conversion ``dtypes``
    (and ``reduce_retracing`` when ``relaxed``: each group that differs in shapes alone keeps two).

    Traces made while a caller was traced (``nested``) have no call site to convert: they are counted
    as recorded.
    """
    converted = [convert_args(_trial_args(t, skip_self), dtypes, kinds) for t in _steady(function.traces)]
    keys = _unique(json.dumps(args, sort_keys=True) for args in converted)
    if relaxed:
        groups: dict[str, int] = {}
        for key in keys:
            shapeless = json.dumps(_strip_shapes(json.loads(key)), sort_keys=True)
            groups[shapeless] = groups.get(shapeless, 0) + 1
        count = sum(min(n, 2) for n in groups.values())
    else:
        count = len(keys)
    nested = _unique(
        json.dumps(_trial_args(t, skip_self), sort_keys=True) for t in function.traces if t.nested
    )
    return count + len(nested)


# ---------------------------------------------------------------------------
# the search


@dataclass
class Outcome:
    """What the search found for one kind of fix."""

    status: str  # traced | failed | unproven | blocked | none
    candidate: Candidate | None = None
    error: str | None = None  # failed: the error of the trial that decides
    param: str | None = None  # failed: the parameter that cannot become a tensor (None: not one parameter)
    tried: tuple = ()  # failed: the dtypes tried for ``param``
    note: str | None = None  # unproven: why

    @property
    def proven(self) -> bool:
        return self.status == "traced"


def _unproven(candidate: Candidate, proof: Proof | None) -> Outcome:
    note = proof.note if proof is not None and proof.note else None
    return Outcome("unproven", candidate, note=note)


#: the errors ``tf.constant`` raises for a symbolic tensor (the body converts its own parameter):
#: without a dtype, and with one (``tf.constant(i, tf.float32)``)
CONSTANT_REFUSES = ("Expected any non-tensor type", "of type 'SymbolicTensor'")


def _known(proof: Proof | None) -> bool:
    return proof is not None and proof.result in ("traced", "failed")


def _first_traced(
    function: FunctionTraces, skip_self: str | None, param: str, ladder: tuple, fix: str, oracle: Oracle
) -> tuple[str | None, str | None, Proof | None]:
    """(first dtype of ``ladder`` whose probe traces, the first probe error, an unknown proof if the ladder
    could not be walked to the end)."""
    first_error = None
    for dtype in ladder:
        proof = oracle(probe_candidate(function, skip_self, param, dtype, fix))
        if not _known(proof):
            return None, first_error, proof or Proof(fix, "not_run")
        if proof.traced:
            return dtype, first_error, None
        first_error = first_error or proof.error
    return None, first_error, None


def _first_patched(function: FunctionTraces, skip_self: str | None, param: str, ladder: tuple, oracle: Oracle) -> str | None:
    """The first dtype of ``ladder`` whose probe traces with the body's ``tf.constant(param)`` as a
    conversion (None: none does, or it was not tried -- an older recording: the failure stands)."""
    for dtype in ladder:
        proof = oracle(probe_candidate(function, skip_self, param, dtype, FIX_SCALAR, (param,)))
        if proof is not None and proof.traced:
            return dtype
    return None


def _outcome(candidate: Candidate, oracle: Oracle) -> Outcome:
    """What the proof of ``candidate`` says: traced, failed (with its error) or unproven."""
    proof = oracle(candidate)
    if not _known(proof):
        return _unproven(candidate, proof)
    return Outcome("traced", candidate) if proof.traced else Outcome("failed", candidate, error=proof.error)


def search_signature(lay: Layout, function: FunctionTraces, skip_self: str | None, oracle: Oracle) -> Outcome:
    """Walk the signature candidates of ``lay`` (dtype ladders) until one traces."""
    if not lay.retraced:
        return Outcome("none")
    if not lay.possible:
        return Outcome("blocked")
    scalars = [s for s in lay.slots if s.kind == "scalar"]
    dtypes = {s.param: s.ladder[0] for s in scalars}
    first = signature_candidate(lay, dtypes)
    proof = oracle(first)
    if not _known(proof):
        return _unproven(first, proof)
    if proof.traced:
        return Outcome("traced", first)
    if len(scalars) == 1:
        slot = scalars[0]
        for dtype in slot.ladder[1:]:
            candidate = signature_candidate(lay, {slot.param: dtype})
            later = oracle(candidate)
            if not _known(later):
                return _unproven(candidate, later)
            if later.traced:
                return Outcome("traced", candidate)
        # the scalar, or the rest of the signature? a probe with only the scalar converted tells
        dtype, error, unknown = _first_traced(function, skip_self, slot.param, slot.ladder[:1], FIX_SCALAR, oracle)
        if unknown is not None:
            return _unproven(first, unknown)
        if dtype is None:
            return Outcome("failed", first, error=proof.error, param=slot.param, tried=slot.ladder)
        return Outcome("failed", first, error=proof.error)
    if not scalars:
        return Outcome("failed", first, error=proof.error)
    chosen: dict[str, str] = {}
    for slot in scalars:
        dtype, error, unknown = _first_traced(function, skip_self, slot.param, slot.ladder, FIX_SCALAR, oracle)
        if unknown is not None:
            return _unproven(first, unknown)
        if dtype is None:
            return Outcome("failed", first, error=error or proof.error, param=slot.param, tried=slot.ladder)
        chosen[slot.param] = dtype
    if chosen == dtypes:
        return Outcome("failed", first, error=proof.error)
    return _outcome(signature_candidate(lay, chosen), oracle)


def search_relax(function: FunctionTraces, skip_self: str | None, oracle: Oracle) -> Outcome:
    candidate = relax_candidate(function, skip_self)
    if candidate is None:
        return Outcome("none")
    return _outcome(candidate, oracle)


def search_call_site(lay: Layout, function: FunctionTraces, skip_self: str | None, oracle: Oracle) -> Outcome:
    targets = call_site_targets(lay)
    if not targets:
        return Outcome("none")
    chosen: dict[str, str] = {}
    constants: list[str] = []
    kinds = {name: kind for name, (kind, _) in targets.items()}
    for name, (kind, ladder) in targets.items():
        dtype, error, unknown = _first_traced(function, skip_self, name, ladder, kind, oracle)
        if unknown is not None:
            return _unproven(call_site_candidate(function, skip_self, {n: l[0] for n, (_, l) in targets.items()}, kinds), unknown)
        if dtype is None and kind == FIX_SCALAR and error and any(m in error for m in CONSTANT_REFUSES):
            # the body converts its own parameter (``tf.constant(i)``): try it with those calls as conversions
            dtype = _first_patched(function, skip_self, name, ladder, oracle)
            if dtype is not None:
                constants.append(name)
        if dtype is None:
            return Outcome("failed", None, error=error, param=name, tried=ladder)
        chosen[name] = dtype
    candidate = call_site_candidate(function, skip_self, chosen, kinds, tuple(constants))
    return _outcome(candidate, oracle)


@dataclass
class CandidateOutcomes:
    """Every kind of fix for one function, searched in order: a signature, ``reduce_retracing``
    for the shape part, a call-site conversion for the Python values and dtypes that vary."""

    layout: Layout
    signature: Outcome
    relax: Outcome
    call_site: Outcome
    #: ``reduce_retracing`` on top of the traced call-site conversion (none: relaxing the converted
    #: traces saves nothing, or the conversion did not trace)
    call_site_relax: Outcome = field(default_factory=lambda: Outcome("none"))


def search_candidates(
    function: FunctionTraces,
    params: list[ParamInfo],
    skip_self: str | None,
    oracle: Oracle,
    unpinnable: Iterable[str] = (),
) -> CandidateOutcomes:
    """Search every kind of candidate for ``function``; ``oracle`` proves (recorder) or looks up (fixer)."""
    lay = layout(function, params, skip_self, unpinnable)
    signature = search_signature(lay, function, skip_self, oracle)
    relax_outcome = Outcome("none")
    call_site = Outcome("none")
    if lay.retraced:
        # searched even when the signature traced: the fixer may still refuse the signature for a
        # reason only the source shows (a parameter used as a Python value), and then offers these
        relax_outcome = search_relax(function, skip_self, oracle)
        call_site = search_call_site(lay, function, skip_self, oracle)
    combined = Outcome("none")
    if call_site.status == "traced" and call_site.candidate is not None:
        kinds = {name: kind for name, (kind, _) in call_site_targets(lay).items()}
        combined = search_call_site_relax(function, skip_self, call_site.candidate.converts, kinds, oracle,
                                          call_site.candidate.constants)
    return CandidateOutcomes(lay, signature, relax_outcome, call_site, combined)


def search_call_site_relax(
    function: FunctionTraces, skip_self: str | None, dtypes: dict, kinds: dict, oracle: Oracle, constants: tuple = ()
) -> Outcome:
    """The proof of ``reduce_retracing=True`` on the traces converted at the call sites (``dtypes``)."""
    candidate = call_site_relax_candidate(function, skip_self, dtypes, kinds, constants)
    if candidate is None:
        return Outcome("none")
    return _outcome(candidate, oracle)


def stored_oracle(function: FunctionTraces) -> Oracle:
    """The fixer's oracle: the proof stored in the trace file for the candidate's key, if any."""

    def oracle(candidate: Candidate) -> Proof | None:
        proof = function.proofs.get(candidate.key)
        if proof is None:
            note = UNPROVEN_NOTE if not function.proofs else UNMATCHED_NOTE
            return Proof(candidate.fix, "not_run", note=note)
        return proof

    return oracle


def error_line(exc: BaseException) -> str:
    """``Type: message``: the useful line of an exception (usually the last non-empty line of ``str(exc)``)."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    name = type(exc).__name__
    text = lines[-1] if lines else ""
    if text.startswith(f"{name}: "):
        text = text[len(name) + 2:]
    if len(text) > 120 and ". " in text[:-1]:  # a long explanation: its first sentence says it
        text = text[: text.index(". ") + 1]
    if len(text) > 300:
        text = text[:299] + "…"
    return f"{name}: {text}" if text else name
