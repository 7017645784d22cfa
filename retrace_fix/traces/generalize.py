"""Generalise the recorded traces of one tf.function into one ``input_signature``.

Pure Python: no TensorFlow, no LibCST.  The codemods (RTF003 input-signature,
RTF004 reduce-retracing) collect what the function's *source* says
(:class:`ParamInfo`, :class:`BodyFacts`) and call :func:`decide_signature`, which
combines it with the *traces* -- through the candidate search of
:mod:`retrace_fix.traces.signature_candidates`, answered by the proofs the recorder stored
(a fresh tf.function traced with the exact candidate on the live function, or
the error) -- and decides, with reasons:

* whether the function retraced at all (two distinct traces of one instance;
  functions that traced once are never touched);
* the signature: per tensor parameter the common rank and dtype with ``None``
  in every dimension that varied, ``shape=None`` when the rank varied
  (ragged/sparse keep their spec class, nested list/tuple/dict/namedtuple
  containers keep the recorded container type); a Python int/float/bool
  becomes a scalar ``TensorSpec`` of the first dtype that traced when the body
  only uses it as a tensor operand or a ``range`` bound of a safe loop;
  trailing parameters with defaults that never varied stay pinned defaults;
* its tier: safe only with a proof; unsafe without one (the reason says so);
  refused, quoting the error, when the proof failed;
* or why there can be none (:attr:`SignatureDecision.refusals`), and whether the
  retracing is *shape-only* (then ``reduce_retracing=True`` is the fallback,
  unless the body reads static shapes that would become ``None``).

The rules follow TensorFlow's binding of ``input_signature`` (TF 2.15-2.21):
``self`` is skipped by name; a parameter without a spec must have a default
and is then pinned to it; keyword-only parameters need defaults; ``**kwargs``
are dropped; ``*args`` consume every remaining spec; a ``tf.Variable`` passed
into a TensorSpec slot becomes a read-only snapshot; the container type of a
nested spec must match exactly.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from retrace_fix.traces.signature_candidates import distinct_by_instance as _distinct_by_instance
from retrace_fix.traces.signature_candidates import search_candidates, stored_oracle
from retrace_fix.traces.model import FunctionTraces, Trace
from retrace_fix.traces.summaries import (  # noqa: F401  (re-exported: the fixer's vocabulary)
    NO_LITERAL,
    TENSOR_KINDS,
    ContainerSpec,
    ParamInfo,
    TensorSpecInfo,
    ValueSummary,
    _listed,
    _python_repr,
    _unique,
    namedtuple_names,
    render_spec,
    summarize,
)
from retrace_fix.wording import a_or_an

# ---------------------------------------------------------------------------
# what the source says


@dataclass(frozen=True)
class ScalarUse:
    """One use of a parameter in the body, classified for a Python-scalar → tensor conversion.

    kinds: ``range`` (bound of ``for ... in range(...)``; ``blockers`` say why the
    loop is not safe with a tensor bound), ``tf_range`` (argument of
    ``tf.range``), ``cast`` (first argument of ``tf.cast``; ``dtype`` the target when written), ``binop`` (arithmetic
    operand; ``other`` names the other operand when it is a parameter), ``compare``
    (``<``/``<=``/``>``/``>=`` with another parameter ``other``, outside a Python test),
    ``random_kw`` (``mean/stddev/minval/maxval`` of ``tf.random.*``; ``dtype``
    when a dtype keyword is given), ``tf_arg`` (any other argument of a
    TensorFlow API), ``project_call`` (an argument of a function of the
    user's own project that the rewriter does not see into, ``double(offset)``:
    only a run of the program can tell whether it takes a tensor; ``other``
    names the function), ``index`` (an index of a dense tensor, ``grid_sizes[dim]``,
    or the indices of a module-level ``tf.Variable``'s ``scatter_nd_update([[epoch]], ...)``:
    TensorFlow takes a scalar int tensor there as it takes the Python int), ``other``
    (anything else: Python control flow, a Python call, an index of a Python list,
    ``return`` ...).
    """

    kind: str
    text: str
    other: str | None = None
    blockers: tuple = ()
    dtype: str | None = None
    float_op: bool = False  # arithmetic only valid on floats (``/``)
    needs_python: bool = False  # tf_arg: an argument TensorFlow needs as a Python value (``num=``, ``axis=``)
    #: other: the use is (part of) the test of a Python ``if``/``while``/``x if c else y`` (with a tensor,
    #: AutoGraph turns it into ``tf.cond``/``tf.while_loop``: both branches are traced)
    in_test: bool = False


@dataclass(frozen=True)
class ShapeRead:
    """A static-shape read in the body: ``x.shape[0]``, ``len(x)``, ``x.shape.as_list()`` ..."""

    param: str
    dims: frozenset | None  # None: every dim
    text: str
    derived: bool = False  # read on a local variable computed from the parameter
    via_len: bool = False  # ``len(x)``: of a Python container, its (stable) length


@dataclass
class BodyFacts:
    """What the function body does with its parameters."""

    uses: dict = field(default_factory=dict)  # param -> [ScalarUse]
    shape_reads: list = field(default_factory=list)  # [ShapeRead]
    reassigned: set = field(default_factory=set)
    #: clock or random draws in the body (``np.random.uniform(0.5, 1.5)``): one per trace, frozen
    trace_draws: list = field(default_factory=list)
    #: changes to Python state the call does not own (``tracker.value += 1``, ``history.append(x)`` on a
    #: parameter, a global or a closure): made once per trace, not per call
    trace_mutations: list = field(default_factory=list)

    def draws_note(self) -> str | None:
        """Why a fix that removes traces changes the results here (None: it does not)."""
        if self.trace_draws:
            return (
                f"the body draws `{self.trace_draws[0]}` while tracing, once per trace: with fewer traces, fewer "
                "draws, and other results"
            )
        if self.trace_mutations:
            return (
                f"the body changes Python state while tracing (`{self.trace_mutations[0]}`), once per trace: with "
                "fewer traces, other results"
            )
        return None


@dataclass
class SourceInfo:
    """The ``def`` and its tf.function spelling."""

    params: list  # [ParamInfo], in order
    skip_self: str | None = None  # the parameter TF skips by name (``self`` of a method)
    method_problem: str | None = None  # e.g. a classmethod's ``cls``
    has_signature: bool = False  # input_signature= already given
    jit_compile: bool = False  # XLA needs static sizes
    autograph: bool = True  # autograph=False: ``range(tensor)`` is a TypeError
    #: parameters every call site in the module already passes as a tensor (``tf.constant(n)``):
    #: Python values recorded for them are stale
    tensor_at_call_sites: frozenset = frozenset()
    #: values the calls in this module pass explicitly, per parameter (NO_LITERAL: not a literal);
    #: a pinned default must accept every one of them
    call_site_values: dict = field(default_factory=dict)
    facts: BodyFacts = field(default_factory=BodyFacts)
    #: why the recorded proofs do not cover this body ("" when they do): a codemod rewrote it in
    #: this run (RTF007, RTF008), so a fix it unlocks is unsafe until the program is recorded again
    rewritten: str = ""


# ---------------------------------------------------------------------------
# the plan


@dataclass
class SignatureDecision:
    """The decision for one recorded tf.function."""

    function: FunctionTraces
    retraced: bool = False
    distinct_traces: int = 0
    specs: list = field(default_factory=list)  # [(param, Spec)] in signature order
    pinned: list = field(default_factory=list)  # params left to their defaults
    conversions: dict = field(default_factory=dict)  # param -> dtype (Python scalar -> tensor)
    unsafe_reasons: list = field(default_factory=list)
    #: conversions that pass a tensor into project code the rewriter does not see into
    #: (``double(offset)``): a diagnostic whose edit a ``--verify`` run may try and prove
    unseen_reasons: list = field(default_factory=list)
    refusals: list = field(default_factory=list)  # why no signature; empty = possible
    problems: list = field(default_factory=list)  # variation reduce_retracing cannot remove
    static_blockers: list = field(default_factory=list)  # static-shape reads of varying dims
    changes: list = field(default_factory=list)  # what varied, for messages
    already_signed: bool = False
    shape_varies: bool = False  # some tensor argument changed shape between traces
    details: list = field(default_factory=list)  # why a varying value cannot simply become a tensor
    #: step counts (Python ints used as ``range`` bounds): when no signature is possible,
    #: RTF001 converts their call sites or explains the loop's blocker, so RTF003 need not
    loop_blocked: dict = field(default_factory=dict)  # param -> [problem, refusal?]
    #: (kind, param) of what varied: "python-value" (a non-bool Python value), "dtype"
    #: (a tensor's dtype); the call-site diagnostics RTF103/RTF105 defer to RTF003 on them
    varied: list = field(default_factory=list)
    #: every retrace happened while a caller was being traced: nothing to pay at steady state
    nested_only: bool = False
    #: (param, why) of the parameters that keep a signature from being written, in order
    blockers: list = field(default_factory=list)
    #: the proof of the signature: "proven" (a fresh tf.function traced with it), "unproven"
    #: (no proof in the trace file), "failed" (the trial raised: see ``refusals``), "" (no signature)
    proof: str = ""
    proof_note: str = ""  # unproven: why
    #: the candidate searches (:mod:`retrace_fix.traces.signature_candidates`): signature, reduce_retracing, call site
    outcomes: Any = None
    #: more explanation for the finding's reason (what a failed proof tried, what to do)
    notes: list = field(default_factory=list)
    #: :attr:`SourceInfo.rewritten`: the proofs were made on the body before this run changed it
    rewritten: str = ""
    #: what the source says (:class:`SourceInfo`): parameters, ``self``, the body's uses
    source: Any = None

    @property
    def possible(self) -> bool:
        return self.retraced and not self.already_signed and not self.refusals

    @property
    def tier(self) -> str:
        return "unsafe" if self.unsafe_reasons else "safe"

    @property
    def shape_only(self) -> bool:
        """Every retrace came from tensor shapes alone (reduce_retracing can fold them)."""
        return self.retraced and not self.problems

    @property
    def relax(self) -> Any:
        """The ``reduce_retracing`` outcome (status traced / failed / unproven / none)."""
        return self.outcomes.relax if self.outcomes is not None else None

    def render(self, tf: str = "tf") -> list[str]:
        return [render_spec(spec, tf) for _, spec in self.specs]


def distinct_by_instance(function: FunctionTraces, skip_self: str | None) -> tuple[int, bool]:
    """(distinct traces ignoring ``self``, whether one instance traced more than once)."""
    return _distinct_by_instance(function.traces, skip_self)


def decide_signature(function: FunctionTraces, source: SourceInfo) -> SignatureDecision:
    """Decide the signature (or why there is none) for ``function`` defined as ``source`` says.

    The traces decide the candidate (:func:`retrace_fix.traces.signature_candidates.search_candidates`,
    the same search the recorder proved at record time, answered here from the stored
    proofs); the source adds what only it knows: the body's uses of each parameter, static
    shape reads, calls in the module that pass values a pinned default would reject.
    """
    plan = SignatureDecision(function=function, rewritten=source.rewritten, source=source)
    unpinnable = [
        p.name for p in source.params
        if any(not _same_literal(v, p.default) for v in source.call_site_values.get(p.name, ()))
    ]
    outcomes = search_candidates(function, source.params, source.skip_self, stored_oracle(function), unpinnable)
    plan.outcomes = outcomes
    lay = outcomes.layout
    plan.distinct_traces, plan.retraced, plan.nested_only = lay.distinct, lay.retraced, lay.nested_only
    if not plan.retraced:
        return plan
    if source.has_signature or function.has_input_signature:
        plan.already_signed = True
        return plan

    params = [p for p in source.params if p.name != source.skip_self]
    traces: list[Trace] = list(function.traces)
    # -- structural refusals
    if source.method_problem:
        _refuse(plan, source.skip_self, source.method_problem)
    for param, reason in lay.structural:
        _refuse(plan, param, reason)
        if "which a signature drops" in reason:
            var_keyword = next(p for p in params if p.kind == "var_keyword")
            plan.problems.append(f"keyword arguments through `**{var_keyword.name}` vary")
        elif reason.startswith("the traces do not match"):
            plan.problems.append("stale traces")
    var_positional = next((p for p in params if p.kind == "var_positional"), None)
    if var_positional is not None:
        if len(_unique(sum(1 for k in t.args if k in lay.star_keys) for t in traces)) > 1:
            plan.problems.append(f"the number of arguments passed through `*{var_positional.name}` varies")
        for key in lay.star_keys:
            if key in lay.summaries:
                plan.problems.extend(lay.summaries[key].problems)

    summaries = lay.summaries
    plan.pinned = list(lay.pinned)
    signable = [p for p in params if p.kind in ("positional", "keyword_only")]
    for param in signable:
        summary = summaries.get(param.name)
        if summary is None:
            continue
        plan.problems.extend(summary.problems)
        if summary.dtype_varies:
            plan.varied.append(("dtype", param.name))
        if summary.kind == "python" and summary.varies and summary.types != ["bool"]:
            plan.varied.append(("python-value", param.name))
        plan.shape_varies = plan.shape_varies or (summary.kind != "python" and summary.shape_varies)
        if summary.varies and summary.kind in TENSOR_KINDS + ("list", "tuple", "dict", "namedtuple", "per_replica") and not summary.problems:
            plan.changes.append(_describe_change(summary))

    signature = outcomes.signature
    dtypes = dict(signature.candidate.converts) if signature.candidate is not None else {}
    proven = signature.status == "traced" and not source.rewritten
    by_name = {p.name: p for p in params}
    for slot in lay.slots:
        param = by_name[slot.param]
        summary = summaries.get(slot.param)
        if slot.kind == "blocked":
            _refuse(plan, slot.param, slot.reason)
            if summary is not None and summary.kind == "python" and summary.varies:
                plan.problems.append(slot.reason)  # a varying value reduce_retracing cannot fold
            continue
        if slot.kind == "scalar":
            _decide_scalar(plan, param, summary, source, summaries, dtypes.get(slot.param, slot.ladder[0]), proven)
            continue
        if slot.sequence:
            _decide_sequence(plan, slot, summary)
        plan.specs.append((slot.param, slot.spec))

    # -- static-shape reads of dims that become None
    for read in source.facts.shape_reads:
        summary = summaries.get(read.param)
        if summary is None:
            continue
        message = _static_read_blocker(read, summary)
        if message:
            plan.static_blockers.append(message)
            plan.blockers.append((read.param, message))
    plan.refusals.extend(plan.static_blockers)
    # -- the proof
    if source.rewritten:
        # the proof (traced or failed) was made on the body before this run rewrote it
        if not plan.refusals:
            plan.proof = "unproven"
            plan.proof_note = source.rewritten
            plan.unsafe_reasons.insert(0, source.rewritten)
    elif signature.status == "failed":
        # refused by the live function itself; said even when the source already refused
        plan.proof = "failed"
        if signature.param is not None:
            name = signature.param
            tried = ", ".join(signature.tried)
            error = f" ({signature.error})" if plan.refusals else ""
            if not plan.refusals:
                _refuse(plan, name, f"`{name}` cannot become a tensor: {signature.error}")
            plan.notes.append(
                f"`{name}` was trial-traced on the live function as a scalar tensor of {tried}: each fails{error}; "
                f"make the body accept a tensor `{name}` (for instance tf.convert_to_tensor or tf.cast where it "
                "needs a Python number), then re-record"
            )
        else:
            if not plan.refusals:
                _refuse(plan, None, f"the signature fails to trace: {signature.error}")
            plan.notes.append(
                "the signature generalised from the traces was trial-traced on the live function and failed; "
                "a dimension that becomes None is probably read statically in the body or in a function it calls"
            )
    elif not plan.refusals:
        if signature.status == "traced":
            plan.proof = "proven"
        elif signature.status == "unproven":
            plan.proof = "unproven"
            plan.proof_note = signature.note or "not proven on the live function"
            plan.unsafe_reasons.insert(0, plan.proof_note)
    note = source.facts.draws_note()
    if note and not plan.refusals:
        plan.unsafe_reasons.append(note)
    # problems are de-duplicated (a container reports its children's)
    plan.problems = _unique(plan.problems)
    plan.refusals = _unique(plan.refusals)
    if plan.refusals:
        plan.specs = []
        plan.conversions = {}
        plan.unsafe_reasons = []
    return plan


def _refuse(plan: SignatureDecision, param: str | None, reason: str) -> None:
    plan.refusals.append(reason)
    plan.blockers.append((param, reason))


def _same_literal(value: Any, default: Any) -> bool:
    return value is not NO_LITERAL and type(value) is type(default) and value == default


def _decide_sequence(plan: SignatureDecision, slot, summary: ValueSummary) -> None:
    """A list/tuple of Python numbers that varied becomes a 1-D tensor slot: unsafe at most, for the
    body then sees a tensor where it saw a list (Python arithmetic on its items runs in the tensor's
    dtype, ``for``/``if`` on them become graph loops and conditions); a ``--verify`` run proves it."""
    dtype = slot.spec.dtype
    kind = "list" if summary.kind == "list" else "tuple"
    item = "float" if dtype.startswith("float") else "int"
    plan.changes.append(f"`{slot.param}`: Python {kind} of {len(summary.children)} {item}s varies → {dtype} tensor")
    plan.unsafe_reasons.append(
        f"`{slot.param}` becomes a {dtype} tensor where the body saw a Python {kind}: arithmetic on its items "
        "runs in graph ops of that dtype, and Python `if`/`for` on them become graph control flow"
    )


def _decide_scalar(
    plan: SignatureDecision, param: ParamInfo, summary: ValueSummary, source: SourceInfo, summaries: dict,
    dtype: str, proven: bool,
) -> None:
    """Decide whether Python-scalar ``param`` may become a ``dtype`` tensor (the dtype the search chose:
    the first of its ladder that traced on the live function, or the first of the ladder unproven).
    ``source``: the function's body facts, its jit_compile/autograph flags and its module's call sites."""
    facts, tensor_at_call_sites = source.facts, source.tensor_at_call_sites
    call_site_values = source.call_site_values.get(param.name, ())
    values = _listed(_python_repr({"type": summary.types[0] if summary.types else "", "value": v}) for v in summary.values)
    if param.name in tensor_at_call_sites:
        # the calls already pass a tensor (e.g. RTF001 wrapped them in tf.constant): the body sees one
        status, notes = "safe", []
    else:
        status, notes = classify_scalar(param.name, dtype, facts, summaries, source.jit_compile, source.autograph, proven)
    what = f"Python {summary.types[0]}"
    if summary.varies:
        if dtype == "bool" and status == "blocked":
            # a flag (training=True/False) is at most two graphs, usually on purpose: not a
            # problem to report, and reduce_retracing still folds the shapes of each value
            _refuse(plan, param.name, f"`{param.name}` is a Python bool flag used as a Python value ({'; '.join(notes)})")
            return
        problem = f"`{param.name}`: {what} varies ({values})"
        if param.name not in tensor_at_call_sites:
            plan.problems.append(problem)
        uses = facts.uses.get(param.name, [])
        step_count = (
            dtype == "int32"
            and param.name not in facts.reassigned
            and any(u.kind == "range" for u in uses)
            and all(
                u.kind == "range"
                or classify_scalar(param.name, dtype, BodyFacts(uses={param.name: [u]}), summaries)[0] == "safe"
                for u in uses
            )
        )
        if step_count:  # RTF001 converts its call sites and loops, or explains the loop's blocker
            plan.loop_blocked[param.name] = [problem]
        if status == "blocked":
            refusal = f"`{param.name}` cannot become a tensor: {'; '.join(notes)}"
            _refuse(plan, param.name, refusal)
            plan.details.append(refusal)
            if step_count:
                plan.loop_blocked[param.name].append(refusal)
            return
        plan.changes.append(f"`{param.name}`: {what} varies ({values}) → {dtype} tensor")
    else:
        if status == "safe":
            plan.changes.append(f"`{param.name}`: Python {summary.types[0]} {values} in every call → {dtype} tensor")
        if status != "safe":
            why = "; ".join(notes) if notes else "it is used as a Python value"
            overridden = [v for v in call_site_values if not _same_literal(v, param.default)]
            if param.has_default and param.default is not NO_LITERAL and overridden:
                shown = "a non-literal value" if overridden[0] is NO_LITERAL else repr(overridden[0])
                _refuse(
                    plan, param.name,
                    f"a call in this module passes {shown} as `{param.name}`, which pinning its default would "
                    f"reject, and it cannot safely become a tensor ({why})",
                )
            else:
                _refuse(
                    plan, param.name,
                    f"`{param.name}` ({what} {values} in every call) has no usable default and cannot safely "
                    f"become a tensor ({why})",
                )
            return
    if status == "unsafe":
        plan.unsafe_reasons.extend(notes)
    if status == "unseen":
        plan.unseen_reasons.extend(notes)
    plan.conversions[param.name] = dtype
    plan.specs.append((param.name, TensorSpecInfo("tensor", (), dtype)))


def classify_scalar(
    name: str,
    dtype: str,
    facts: BodyFacts,
    summaries: dict,
    jit_compile: bool = False,
    autograph: bool = True,
    proven: bool = False,
) -> tuple[str, list[str]]:
    """("safe" | "unsafe" | "unseen" | "blocked", notes) for turning Python-scalar ``name`` into a ``dtype`` tensor.

    ``unseen``: nothing blocks it but a call into the project's own code the rewriter does not see
    into (``double(offset)``); a run of the program decides (``--verify``).

    ``proven``: a fresh tf.function traced with the conversion, so every use whose only risk
    is a dtype mismatch (TensorFlow raises on those while tracing) is known to be fine.
    """
    if name in facts.reassigned:
        return "blocked", [f"`{name}` is reassigned in the body"]
    blocked: list[str] = []
    unsafe: list[str] = []
    unseen: list[str] = []
    for use in facts.uses.get(name, []):
        if use.kind == "range":
            if dtype != "int32":
                blocked.append(f"`{use.text}` needs an int")
            elif not autograph:
                blocked.append(f"`{use.text}` needs a Python int with autograph=False")
            elif use.blockers:
                blocked.append(f"the loop `{use.text}` is not safe with a tensor bound ({'; '.join(use.blockers)})")
        elif use.kind == "tf_range":
            if dtype not in ("int32", "float32"):
                blocked.append(f"`{use.text}` needs a number")
        elif use.kind == "cast":
            pass
        elif use.kind == "index":
            if dtype not in ("int32", "int64"):
                blocked.append(f"`{use.text}` needs an int index")
            elif jit_compile and not proven:
                unsafe.append(f"`{use.text}`: with jit_compile, XLA may need the index at compile time")
        elif use.kind == "binop":
            if dtype == "bool":
                blocked.append(f"`{use.text}` does arithmetic on a bool")
            elif use.float_op and dtype != "float32":
                unsafe.append(f"`{use.text}` divides an int32 tensor (a float64 result instead of a Python float)")
            else:
                other = summaries.get(use.other) if use.other else None
                other_dtype = None
                if other is not None and isinstance(other.spec, TensorSpecInfo) and other.spec.kind == "tensor":
                    other_dtype = other.spec.dtype
                if other_dtype != dtype and not proven:
                    unsafe.append(f"`{use.text}`: `{name}` becomes {a_or_an(dtype)} {dtype} tensor; the other operand must be {dtype} too")
        elif use.kind == "compare":
            other = summaries.get(use.other) if use.other else None
            if other is None or not (isinstance(other.spec, TensorSpecInfo) and other.spec.kind == "tensor"):
                blocked.append(f"`{use.text}` compares it with a Python value (a Python bool, not a tensor)")
            elif other.spec.dtype != dtype and not proven:
                unsafe.append(f"`{use.text}`: `{name}` becomes {a_or_an(dtype)} {dtype} tensor; `{use.other}` is {other.spec.dtype}")
        elif use.kind == "random_kw":
            if (dtype != "float32" or (use.dtype not in (None, "float32"))) and not proven:
                unsafe.append(f"`{use.text}` receives a {dtype} tensor")
        elif use.kind == "tf_arg":
            # TensorFlow converts the Python number to a tensor anyway: the values are the same,
            # only static sizes computed from it become unknown inside the graph -- and the dtype:
            # a Python number takes the other operand's dtype, a tensor keeps its own
            if use.needs_python:
                blocked.append(f"`{use.text}` needs a Python value")
            elif jit_compile:
                unsafe.append(f"`{use.text}`: with jit_compile, XLA needs the value at compile time")
            elif any(read.param == name for read in facts.shape_reads):
                unsafe.append(f"`{use.text}`: a static size computed from `{name}` is read in the body")
            elif not proven and dtype != "bool":
                unsafe.append(
                    f"`{use.text}` gets {a_or_an(dtype)} {dtype} tensor where TensorFlow converted a Python number "
                    "to the dtype it needed"
                )
        elif use.kind == "project_call":
            unseen.append(f"`{use.text}` passes it to `{use.other}`, code of this project that retrace-fix does not "
                          f"see into: whether it takes {a_or_an(dtype)} {dtype} tensor is for a run of the program to "
                          "prove (--verify)")
        else:
            blocked.append(f"`{use.text}` uses it as a Python value")
    if blocked:
        return "blocked", _unique(blocked)
    if unseen:
        return "unseen", _unique(unseen + unsafe)
    if unsafe:
        return "unsafe", _unique(unsafe)
    return "safe", []



def _static_read_blocker(read: ShapeRead, summary: ValueSummary) -> str | None:
    if not summary.shape_varies:
        return None
    if read.via_len and not read.derived and summary.kind in ("list", "tuple", "dict", "namedtuple"):
        return None  # the number of elements of a Python container, which did not vary
    name = read.param
    if summary.kind in TENSOR_KINDS and not summary.deep_varying:
        varying = summary.varying_dims
        rank = None if summary.spec is None or not isinstance(summary.spec, TensorSpecInfo) or summary.spec.shape is None else len(summary.spec.shape)
        if rank is None and summary.dim_values:
            rank = len(summary.dim_values)
        if read.dims is not None and varying is not None:
            hits = sorted({(d + rank if d < 0 and rank is not None else d) for d in read.dims} & set(varying))
            if not hits:
                return None
            dim = hits[0]
            sizes = _listed("?" if s is None else s for s in summary.dim_values.get(dim, []))
            source = f" (computed from `{name}`)" if read.derived else ""
            return (
                f"`{read.text}`{source} reads dim {dim} of `{name}`, which varies ({sizes}; "
                f"use `tf.shape({name})[{dim}]`)"
            )
    source = f" (computed from `{name}`)" if read.derived else ""
    return f"`{read.text}`{source} reads the static shape of `{name}`, which varies (use `tf.shape({name})`)"


def _describe_change(summary: ValueSummary) -> str:
    if summary.kind == "per_replica" and summary.children:
        first = _describe_change(summary.children[0])
        return f"`{summary.path}` (PerReplica)" + first[first.index("`", 1) + 1:] if first.startswith("`") else first
    if summary.children:
        parts = [_describe_change(c) for c in summary.children if c.varies and not c.problems]
        return "; ".join(parts) if parts else f"`{summary.path}` shapes vary"
    if summary.kind in TENSOR_KINDS and summary.varying_dims:
        dims = sorted(summary.varying_dims)
        parts = []
        for dim in dims:
            sizes = summary.dim_values.get(dim, [])
            parts.append(f"dim {dim}: {_listed('?' if s is None else s for s in sizes)}")
        return f"`{summary.path}` " + "; ".join(parts)
    if summary.kind in TENSOR_KINDS and summary.varying_dims is None:
        return f"`{summary.path}` rank varies"
    return f"`{summary.path}` shapes vary"
