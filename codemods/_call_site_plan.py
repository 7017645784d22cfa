"""RTF005's whole-project decision: which recorded call sites of which tf.function pass tensors.

The rule of RTF005 (call-site-tensor) is *every recorded call site of a function
is rewritten, or none*: a function whose Python values arrive as tensors from
some callers and as Python values from others traces for both.  The engine
processes files independently (in worker processes, output identical for any
``--jobs``), so that decision is taken once, before the files are processed:
:func:`build_plan` reads only the files that define a candidate function or hold
one of its recorded call sites, and the :class:`CallSitePlan` it returns goes to
every worker (``CodemodSettings.call_sites``).  In each file RTF005 then reports
what the plan decided -- once at the ``def``, and at every call site it
rewrites -- and RTF003/RTF004 read it too (a function whose calls are converted
gets no signature; ``reduce_retracing`` is proven on the converted traces).

Finding a recorded call again and binding its arguments (:func:`site_edits`) is
one pure function of the file's text, run by the pre-pass and again by the
worker on the same text, so a site the plan approved is the site edited.

Never imports TensorFlow.
"""

from __future__ import annotations

from abc import ABC
from dataclasses import dataclass, field
from typing import Iterable

import libcst as cst
from libcst.codemod import CodemodContext

from retrace_fix.analysis import ModuleAnalysis
from retrace_fix.codemods._base import CodemodSettings, RetraceCodemod
from retrace_fix.codemods._callsites import ModuleCalls
from retrace_fix.codemods._flag_branches import TRAINING_FLAGS, flag_branch_risk
from retrace_fix.codemods._own_constants import own_constants
from retrace_fix.codemods._keras import KerasEvidence
from retrace_fix.codemods._finding_text import clauses, joined, MAX_MESSAGE, one_line, short, short_list
from retrace_fix.codemods._source_info import plans
from retrace_fix.codemods._tf_function_edits import tf_spelling
from retrace_fix.codemods._traced_functions import traced_functions
from retrace_fix.node_text import code_of
from retrace_fix.findings import Tier
from retrace_fix.linemap import source_lines
from retrace_fix.tfnames import Scope, local_bindings
from retrace_fix.traces.candidates import (
    FIX_CAST,
    FIX_SCALAR,
    call_site_candidate,
    call_site_relax_candidate,
    call_site_targets,
    stored_oracle,
    traces_after,
)
from retrace_fix.traces.generalize import (
    BodyFacts,
    SignaturePlan,
    _listed,
    _python_repr,
    classify_scalar,
)
from retrace_fix.traces.model import FunctionTraces, Proof, TraceSet
from retrace_fix.wording import a_or_an

CODE = "RTF005"
#: a site's status in a decision
EDIT, DONE, REFUSED = "edit", "done", "refused"
#: the TensorFlow calls that already hand a function a tensor of a known dtype
_CONVERTERS = {"tensorflow.constant", "tensorflow.cast", "tensorflow.convert_to_tensor"}
#: the dtype ``tf.constant(v)`` gives a Python value of each type
_DEFAULT_DTYPE = {"int": "int32", "float": "float32", "bool": "bool"}
#: how many refused or unrecorded sites a message names before "(+N more)"
_NAMED = 2


# --------------------------------------------------------------------------- the plan


@dataclass(frozen=True)
class Conversion:
    """One parameter a call site passes as a tensor: ``scalar`` (``tf.constant(v, dtype=...)``) or ``cast``
    (``tf.cast(v, ...)``)."""

    param: str
    kind: str
    dtype: str


@dataclass(frozen=True)
class ParamSpec:
    """What a call site needs to know about one parameter of the ``def``."""

    name: str
    kind: str  # positional_only | positional | var_positional | keyword_only | var_keyword
    has_default: bool = False
    default: str | None = None  # the source of a literal default (None: no default, or not a literal)


@dataclass(frozen=True)
class Callee:
    """The function as its call sites see it."""

    names: frozenset  # the names a call may use: the def's name, the names a tf.function(...) is bound to
    params: tuple  # (ParamSpec, ...) without the ``self`` TensorFlow skips
    def_module: str  # dotted module of the def (``pkg.train``), to resolve ``from pkg.train import f as g``


@dataclass(frozen=True)
class SiteVerdict:
    """One recorded call site: ``edit`` (converted by this fix), ``done`` (already passes tensors), or
    ``refused`` (``reason`` names the file and line)."""

    file: str
    line: int
    column: int | None
    count: int
    status: str
    reason: str = ""

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"


@dataclass
class Decision:
    """What RTF005 does about one recorded tf.function."""

    key: tuple
    qualname: str
    name: str
    file: str
    tier: Tier
    message: str  # the finding at the def (one line)
    reason: str  # the full explanation
    conversions: tuple = ()  # (Conversion, ...)
    callee: Callee | None = None
    sites: tuple = ()  # (SiteVerdict, ...): every recorded call site
    site_message: str = ""  # the finding at each rewritten call site
    verifiable: bool = False
    before: int = 0
    after: int = 0
    #: ``reduce_retracing=True`` on top of the conversion (RTF004 adds it): "" (not needed), traced,
    #: unproven or failed, and its message/reason parts
    relax: str = ""
    relax_note: str = ""
    relax_after: int = 0
    #: what the finding is about: RTF003's refusal and the call-site diagnostics defer to it
    subjects: tuple = ()
    #: every recorded call site already passes these tensors (fixed since recording): nothing to report
    done: bool = False
    #: ``(param, python type)`` whose ``tf.constant(param)`` calls in the body are rewritten (``_own_constants``)
    own_constants: tuple = ()
    #: the body draws random numbers or reads a clock while tracing: fewer traces change the results
    draws: str | None = None

    @property
    def fixable(self) -> bool:
        return not self.done and self.tier is not Tier.DIAGNOSTIC and any(s.status == EDIT for s in self.sites)

    def applies(self, settings: CodemodSettings) -> bool:
        """Do the call sites pass tensors after this run: converted by RTF005 now (the tier allowed), or
        already?  RTF003 then writes no signature, RTF004 relaxes the converted traces."""
        if self.done:
            return True
        if not self.fixable:
            return False
        return self.tier is Tier.SAFE or settings.unsafe_fixes or settings.verify_candidates

    def sites_in(self, file: str) -> list[SiteVerdict]:
        return [s for s in self.sites if s.file == file and s.status == EDIT]


@dataclass
class CallSitePlan:
    """Every decision of one project root, by function key."""

    decisions: dict = field(default_factory=dict)

    def for_function(self, key: tuple) -> Decision | None:
        return self.decisions.get(key)

    def defined_in(self, file: str) -> list[Decision]:
        """The decisions to report at a def of ``file``."""
        return [d for d in self.decisions.values() if d.file == file and not d.done]

    def editing(self, file: str) -> list[Decision]:
        return [d for d in self.decisions.values() if d.fixable and d.sites_in(file)]

    def files(self) -> set[str]:
        return {d.file for d in self.decisions.values()} | {s.file for d in self.decisions.values() for s in d.sites}


# --------------------------------------------------------------------------- which functions


def wants_files(traces: TraceSet, available: Iterable[str]) -> set[str]:
    """The files the pre-pass must read: the def and call-site files of every recorded function that might
    get a call-site conversion (cheap: from the traces alone)."""
    available = set(available)
    files: set[str] = set()
    for function in traces:
        if function.file in available and function.call_sites and might_convert(function):
            files.add(function.file)
            files.update(site.file for site in function.call_sites)
    return files


def might_convert(function: FunctionTraces) -> bool:
    """Did a Python int/float/bool vary, or a tensor's dtype, between this function's traces?"""
    if len([t for t in function.traces if not t.nested]) < 2:
        return False
    values: dict[str, set] = {}
    dtypes: dict[str, set] = {}
    for trace in function.traces:
        for name, desc in trace.args.items():
            kind = desc.get("kind")
            if kind == "python" and desc.get("type") in _DEFAULT_DTYPE:
                values.setdefault(name, set()).add(repr(desc.get("value")))
            elif kind in ("tensor", "ragged", "sparse"):
                dtypes.setdefault(name, set()).add(desc.get("dtype"))
    return any(len(v) > 1 for v in values.values()) or any(len(d) > 1 for d in dtypes.values())


# --------------------------------------------------------------------------- reading modules


class _Reader(RetraceCodemod, ABC):
    """Only its analysis is used: the trace plans of a module (never transforms anything; ``ABC`` keeps
    it out of ``python -m libcst.tool list``)."""


@dataclass
class _Module:
    relpath: str
    text: str
    tree: cst.Module
    analysis: ModuleAnalysis
    lines: list
    #: line -> [(call, the defs around it)], built on first use (one walk for every site of the file)
    _calls: dict | None = None

    @property
    def scope(self) -> Scope:
        return Scope(self.analysis.table)

    def calls_on(self, line: int) -> list[tuple[cst.Call, tuple]]:
        """Every call starting on ``line``, with the defs around it (outermost first)."""
        if self._calls is None:
            self._calls = _index_calls(self)
        return self._calls.get(line, [])


def _read(relpath: str, text: str) -> _Module | None:
    try:
        tree = cst.parse_module(text)
    except Exception:  # noqa: BLE001 - a file LibCST cannot parse: its sites are refused
        return None
    return _Module(relpath, text, tree, ModuleAnalysis.build(tree, text), source_lines(text))


def module_of(relpath: str) -> str:
    """``pkg/train.py`` -> ``pkg.train`` (``__init__`` files name their package)."""
    parts = relpath[:-3].split("/") if relpath.endswith(".py") else relpath.split("/")
    if parts and parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


# --------------------------------------------------------------------------- the pre-pass


def build_plan(sources: dict, traces: TraceSet) -> CallSitePlan:
    """Decide RTF005 for every recorded function of one project root.

    ``sources``: relative path -> text of every file of the run under this root that the pre-pass
    should read (:func:`wants_files`), or None for one that cannot be read or parsed safely.  A file
    missing from it is not part of the run: its call sites cannot be rewritten.
    """
    plan = CallSitePlan()
    modules: dict[str, _Module | None] = {}

    def module(relpath: str) -> _Module | None:
        if relpath not in modules:
            text = sources.get(relpath)
            modules[relpath] = _read(relpath, text) if text is not None else None
        return modules[relpath]

    for def_file in sorted({f.file for f in traces if f.file in sources and f.call_sites and might_convert(f)}):
        parsed = module(def_file)
        if parsed is None:
            continue
        reader = _Reader(CodemodContext(filename=def_file), CodemodSettings(traces=traces, relpath=def_file, source_text=parsed.text))
        reader.analysis = parsed.analysis
        reader.scope = parsed.scope
        signature_plans = plans(reader)
        for node, function in traced_functions(reader).items():
            if not function.call_sites or not might_convert(function):
                continue
            signature_plan = signature_plans.get(node)
            if signature_plan is None:
                continue
            decision = _decide(function, node, signature_plan, parsed, module, sources)
            if decision is not None:
                plan.decisions[function.key] = decision
    return plan


# --------------------------------------------------------------------------- one function


@dataclass
class _Target:
    conversion: Conversion
    what: str  # "`alpha`: Python float varies (0.1, 0.2)"
    notes: list  # unsafe reasons
    info: list  # said in the reason, not a risk
    short: str = ""  # "`alpha`: Python float varies"
    python_type: str = ""  # scalar: int, float, bool
    constants: bool = False  # the body's ``tf.constant(param)`` calls are rewritten too (``_own_constants``)


def _decide(
    function: FunctionTraces,
    node: cst.FunctionDef,
    plan: SignaturePlan,
    parsed: _Module,
    module,
    sources: dict,
) -> Decision | None:
    source = plan.source
    if source is None or not plan.retraced or plan.nested_only or plan.already_signed:
        return None  # traced once / only inside callers / signed
    # a signature RTF003 can write wins, unless it is unproven while the call-site conversion traced
    fallback = plan.possible
    if fallback and not (plan.proof == "unproven" and plan.outcomes.call_site.status == "traced"):
        return None
    if _suppressed_def(parsed, node):
        return None
    outcomes = plan.outcomes
    lay = outcomes.layout
    targets = call_site_targets(lay)
    if not targets:
        return None
    skip_self = source.skip_self
    summaries = lay.summaries
    #: only Python bools varied: at most two graphs, often on purpose; converted only when that is
    #: proven harmless (the proof traced the flag as a tensor, no branch has a Python side effect)
    lone_flag = _only_flags(function, targets, summaries, skip_self)
    name = node.name.value
    qualname = function.qualname
    chosen = dict(outcomes.call_site.candidate.converts) if outcomes.call_site.candidate is not None else {}
    #: parameters the proof traced with the body's ``tf.constant(param)`` as conversions
    patched = set(outcomes.call_site.candidate.constants) if outcomes.call_site.candidate is not None else set()
    kinds = {param: kind for param, (kind, _) in targets.items()}
    keras = KerasEvidence.collect(parsed.tree, parsed.scope)

    # -- per parameter: what the body allows
    accepted: list[_Target] = []
    kept: list[str] = []  # why a varying value stays a Python value / a dtype stays drifting
    failed_proof: str | None = None
    call_site = outcomes.call_site
    for param, (kind, ladder) in targets.items():
        summary = summaries.get(param)
        if param in plan.loop_blocked:
            continue  # a step count: RTF001 converts its call sites or explains its loop
        dtype = chosen.get(param, ladder[0])
        proven = call_site.status == "traced"
        if kind == FIX_SCALAR:
            target = _scalar_target(param, dtype, summary, source, summaries, proven, node, parsed.scope,
                                    patched=param in patched)
        else:
            target = _cast_target(param, dtype, summary, node, parsed, keras, source)
        if isinstance(target, str):
            kept.append(target)  # the body needs a Python value: RTF003's diagnostic says so
        elif call_site.status == "failed" and call_site.param == param:
            failed_proof = (
                f"`{param}` cannot become a tensor: {call_site.error}"
                if call_site.error else f"`{param}` cannot become a tensor"
            )
            kept.append(
                f"`{param}` was trial-traced on the live function as a tensor of {', '.join(call_site.tried)}: "
                f"each fails ({call_site.error})"
            )
        else:
            accepted.append(target)
    before = plan.distinct_traces
    head = f"`{name}` traced {before} times"
    converted_params = set(targets)
    no_signature = joined(text for param, text, _ in clauses(plan) if param not in converted_params)
    if fallback:
        no_signature = f"the signature RTF003 would write is {plan.proof_note or 'not proven'}"
    elif not no_signature:
        drifting = [p for p, (kind, _) in targets.items() if kind == FIX_CAST]
        no_signature = (
            f"{_listed(f'`{p}`' for p in drifting)} arrives in several dtypes, and a signature takes one"
            if drifting else "no signature accepts every recorded call"
        )
    subjects = [("function", qualname, "")]
    if not accepted:
        if failed_proof is None or plan.proof == "failed":
            return None  # RTF003 says why each value must stay a Python value (or quotes the failed proof)
        message = one_line(f"{head}: {failed_proof}")
        reason = f"{head}; no input_signature: {no_signature}; at the call sites: {joined(kept)}"
        return Decision(function.key, qualname, name, function.file, Tier.DIAGNOSTIC, message, reason,
                        subjects=tuple(subjects))

    if all(t.python_type == "bool" and t.conversion.param in TRAINING_FLAGS for t in accepted):
        return None  # only a training-mode flag would change: two graphs on purpose, as for a flag alone
    if lone_flag and (subset_of(accepted, targets) or any(t.notes for t in accepted)):
        return None  # a flag alone whose tf.cond is not proven harmless: say nothing, as before
    conversions = tuple(t.conversion for t in accepted)
    dtypes = {c.param: c.dtype for c in conversions}
    subset = len(accepted) != len(targets)
    # -- the proof of exactly this conversion
    oracle = stored_oracle(function)
    own = tuple(t.conversion.param for t in accepted if t.constants)
    candidate = call_site_candidate(function, skip_self, dtypes, kinds, own)
    proof = oracle(candidate)
    if subset and not proof.traced and not proof.failed:
        proof = Proof(proof.fix, "not_run", note=(
            f"not proven: the recording trial-traced {_params(conversions)} converted together with "
            f"{_listed(f'`{p}`' for p in targets if p not in dtypes)}, which must stay as they are"
        ))
    if lone_flag and not proof.traced:
        return None  # a flag alone: only a proven conversion is worth a finding
    proof_text, proof_status = _proof_text(name, proof, conversions)
    after = traces_after(function, skip_self, dtypes, kinds)
    # -- the call sites
    callee = _callee(node, parsed, source, skip_self)
    sites = tuple(_site_verdict(site, callee, conversions, function, module, sources) for site in function.call_sites)
    done = all(s.status == DONE for s in sites)  # converted since recording (a second run, same traces)
    for target in accepted:
        kind = "dtype" if target.conversion.kind == FIX_CAST else "python-value"
        subjects.append((kind, qualname, target.conversion.param))
    # -- reduce_retracing on top (RTF004 adds it)
    relax, relax_note, relax_after = "", "", after
    if plan.shape_varies and not plan.static_blockers:  # a static read of a varying dim: RTF004 says so
        combined = call_site_relax_candidate(function, skip_self, dtypes, kinds, own)
        if combined is not None:
            combined_proof = oracle(combined)
            relax = combined_proof.result if combined_proof.result in ("traced", "failed") else "unproven"
            relax_note = combined_proof.error or combined_proof.note or ""
            relax_after = traces_after(function, skip_self, dtypes, kinds, relaxed=True)
    if done:
        return Decision(function.key, qualname, name, function.file, Tier.SAFE, "", "", conversions, callee, sites,
                        before=before, after=after, relax=relax, relax_note=relax_note, relax_after=relax_after,
                        done=True, draws=source.facts.draws_note())
    if after >= before and not (relax in ("traced", "unproven") and relax_after < before):
        return None  # converting these values would fold nothing on the recorded run
    unrecorded = _unrecorded_calls(function, callee, conversions, sites, parsed, module, node)
    changes = [t.what for t in accepted]
    actions = _actions(conversions)
    count = len(sites)
    where = "at its call site" if count == 1 else f"at its {count} call sites"
    expected = f"{before} → {after} traces"
    refused = [s for s in sites if s.status == REFUSED]
    what_varied = _what_varied(accepted)
    explained = f"{head} ({joined(changes)})"
    conversion_text = "; ".join(
        f"`{c.param}` becomes {_spelled(c, c.param)} {where}" for c in conversions
    )
    info = [i for t in accepted for i in t.info]
    notes = [n for t in accepted for n in t.notes]
    site_list = ", ".join(f"{s.where} ({s.count} traced call{'s' if s.count != 1 else ''})" for s in sites)
    reason_parts = [
        f"{explained}; no input_signature: {no_signature}",
        f"{conversion_text} ({site_list}): {expected} on the recorded run",
        *info,
    ]
    if kept:
        reason_parts.append("left as they are: " + joined(kept))
    if relax in ("traced", "unproven"):
        reason_parts.append(
            f"reduce_retracing=True then folds the shapes (RTF004): {before} → {relax_after} traces"
        )
    if fallback and (refused or proof_status != "traced"):
        return None  # RTF003 offers its (unproven) signature
    if refused:
        reason_parts.append("call sites that cannot be rewritten: " + joined(s.reason for s in refused))
        more = f" (+{len(refused) - 1} more)" if len(refused) > 1 else ""
        message = one_line(f"{head}: {_params(conversions)} cannot be converted at every call site: {refused[0].reason}{more}")
        reason_parts.append(f"convert them by hand at every call site ({', '.join(_spelled(c, c.param) for c in conversions)})")
        reason = "; ".join([*reason_parts, proof_text])
        return Decision(function.key, qualname, name, function.file, Tier.DIAGNOSTIC, message, reason,
                        conversions, callee, sites, subjects=tuple(subjects), before=before, after=after)
    if proof_status == "failed":
        message = one_line(f"{head}: with {_params(conversions)} as tensors tracing fails: {proof.error}")
        reason = "; ".join([*reason_parts, proof_text])
        return Decision(function.key, qualname, name, function.file, Tier.DIAGNOSTIC, message, reason,
                        conversions, callee, sites, subjects=tuple(subjects), before=before, after=after)
    unsafe = list(notes)
    draws = source.facts.draws_note()
    if draws:
        unsafe.append(draws)
    if proof_status != "traced":
        unsafe.insert(0, proof_text)
    if unrecorded:
        shown = joined(unrecorded[:_NAMED]) + (f" (+{len(unrecorded) - _NAMED} more)" if len(unrecorded) > _NAMED else "")
        unsafe.append(f"calls that were not recorded may still pass Python values and trace on their own: {shown}")
    tier = Tier.UNSAFE if unsafe else Tier.SAFE
    if fallback and tier is not Tier.SAFE:
        return None  # no better than RTF003's unproven signature: RTF003 offers that
    if tier is Tier.SAFE:
        reason_parts.append(proof_text)
        reason = "; ".join(reason_parts)
    else:  # printed after the finding: why it is unsafe, nothing more
        reason = "; ".join(unsafe)
    message = f"{head} ({what_varied}): {actions} {where} ({expected})"
    if len(message) > MAX_MESSAGE:
        message = f"{head}: {actions} {where} ({expected})"
    times = "once" if after == 1 else f"{after} times"
    site_message = one_line(f"{actions} so that `{name}` ({function.file}:{function.firstlineno}) traces {times}, not {before} times")
    return Decision(
        function.key, qualname, name, function.file, tier, one_line(message), reason, conversions, callee, sites,
        site_message=site_message, verifiable=proof_status != "traced", before=before, after=after,
        relax=relax, relax_note=relax_note, relax_after=relax_after, subjects=tuple(subjects), draws=draws,
        own_constants=tuple((t.conversion.param, t.python_type) for t in accepted if t.constants),
    )


def _what_varied(accepted: list[_Target]) -> str:
    """What varied, for the message: "`a`, `b`: Python floats vary; `x`: dtype varies (float64, float32)"."""
    parts: list[str] = []
    by_type: dict[str, list[str]] = {}
    for target in accepted:
        if target.conversion.kind == FIX_SCALAR:
            by_type.setdefault(target.python_type, []).append(target.conversion.param)
    for type_name, params in by_type.items():
        names = ", ".join(f"`{p}`" for p in params)
        parts.append(f"{names}: Python {type_name} varies" if len(params) == 1 else f"{names}: Python {type_name}s vary")
    parts += [t.short for t in accepted if t.conversion.kind == FIX_CAST]
    return short_list(parts)



def _params(conversions) -> str:
    return _listed(f"`{c.param}`" for c in conversions)


def _actions(conversions) -> str:
    scalars = [c for c in conversions if c.kind == FIX_SCALAR]
    casts = [c for c in conversions if c.kind == FIX_CAST]
    parts = []
    if scalars:
        dtypes = _unique_list(c.dtype for c in scalars)
        if len(dtypes) == 1:
            parts.append(f"pass {_params(scalars)} as tf.constant(..., dtype=tf.{dtypes[0]})")
        else:
            parts.append("pass " + ", ".join(f"`{c.param}` as a {c.dtype} tensor" for c in scalars))
    if casts:
        parts.append("cast " + ", ".join(f"`{c.param}` to tf.{c.dtype}" for c in casts))
    return " and ".join(parts)


def _unique_list(items) -> list:
    out: list = []
    for item in items:
        if item not in out:
            out.append(item)
    return out


def _spelled(conversion: Conversion, value: str) -> str:
    if conversion.kind == FIX_SCALAR:
        return f"tf.constant({value}, dtype=tf.{conversion.dtype})"
    return f"tf.cast({value}, tf.{conversion.dtype})"


def _proof_text(name: str, proof, conversions) -> tuple[str, str]:
    what = ", ".join(f"`{c.param}` as {a_or_an(c.dtype)} {c.dtype} tensor" for c in conversions)
    if proof is not None and proof.result == "traced":
        return (
            f"proven on the live function: a fresh tf.function around `{name}` traced with {what} and the other "
            "arguments as recorded", "traced",
        )
    if proof is not None and proof.result == "failed":
        return f"trial-traced on the live function with {what}, it fails: {proof.error}", "failed"
    note = proof.note if proof is not None and proof.note else "not proven on the live function"
    return note, "unproven"


def subset_of(accepted: list, targets: dict) -> bool:
    """Do the accepted conversions leave some varying target as it is?"""
    return len(accepted) != len(targets)


def _only_flags(function: FunctionTraces, targets: dict, summaries: dict, skip_self: str | None) -> bool:
    """Do the traces differ in nothing but Python bools (a flag such as ``training``)?"""
    flags = [p for p in targets if summaries.get(p) is not None and summaries[p].types == ["bool"]]
    if len(flags) != len(targets):
        return False
    seen = set()
    for trace in function.traces:
        rest = {k: v for k, v in trace.args.items() if k not in flags and k != skip_self}
        seen.add(repr(sorted(rest.items(), key=lambda item: item[0])))
    return len(seen) <= 1


def _suppressed_def(parsed: _Module, node: cst.FunctionDef) -> bool:
    sup = parsed.analysis.suppressions
    if not sup.by_line:
        return False
    lines = {parsed.analysis.line_of(node.name)}
    if node.decorators:
        lines.add(parsed.analysis.line_of(node.decorators[0]))
    return any(sup.suppresses(line, CODE) for line in lines)


# --------------------------------------------------------------------------- what the body allows


def _values(summary) -> str:
    type_name = summary.types[0] if summary.types else ""
    return _listed(_python_repr({"type": type_name, "value": v}) for v in summary.values)


def _scalar_target(param: str, dtype: str, summary, source, summaries: dict, proven: bool,
                   node: cst.FunctionDef | None = None, scope: Scope | None = None,
                   patched: bool = False) -> _Target | str:
    """A varying Python scalar becoming a ``dtype`` tensor at the call sites, or why it stays a Python value.

    A Python test on a bool (``if flag:``) becomes a ``tf.cond``: safe when the proof traced the body with
    the flag as a tensor (so both branches trace to one structure) and no branch has a Python side
    effect (``_flag_branches``); otherwise unsafe, with the reason.

    ``patched``: the proof traced the body with its ``tf.constant(param[, dtype])`` calls as conversions
    (``_own_constants``); those calls are rewritten with the call sites when they are the only uses that
    need a Python value and every other use is safe with a tensor."""
    type_name = summary.types[0]
    what = f"`{param}`: Python {type_name} varies ({_values(summary)})"
    facts = source.facts
    uses = facts.uses.get(param, [])
    tests = [u for u in uses if u.kind == "other" and u.in_test]
    constants: list = []
    if patched and node is not None and scope is not None:
        found = own_constants(node, param, type_name, scope)
        if isinstance(found, str):
            return f"`{param}` stays a Python value ({found})"
        if not found:
            return f"`{param}` stays a Python value (the proof converted a `tf.constant({param})` the source does not spell so)"
        constants = found
    converted = {short(c.call) for c in constants}
    rest_uses = [u for u in uses if u not in tests and not (u.kind == "tf_arg" and u.text in converted)]
    rest = BodyFacts(uses={param: rest_uses}, shape_reads=facts.shape_reads, reassigned=facts.reassigned)
    status, notes = classify_scalar(param, dtype, rest, summaries, source.jit_compile, source.autograph, proven)
    if status in ("blocked", "unseen"):  # unseen: RTF003's signature is the candidate --verify proves
        return f"`{param}` stays a Python value ({'; '.join(notes)})"
    if constants and status != "safe":
        return f"`{param}` stays a Python value (besides `tf.constant({param})`: {'; '.join(notes)})"
    notes = list(notes) if status == "unsafe" else []
    info: list[str] = []
    if constants:
        pairs = _unique_list(f"`{short(c.call)}` becomes `{_own_spelled(c)}`" for c in constants)
        info.append(
            f"in the body {', '.join(pairs)} (the same tensor for a Python value; the proof traced the body so)"
        )
    if tests:
        if not source.autograph:
            return f"`{param}` stays a Python value (`{tests[0].text}` needs one with autograph=False)"
        risk = (
            flag_branch_risk(node, param, scope)
            if proven and type_name == "bool" and node is not None and scope is not None
            else "not proven"
        )
        if risk == "not proven":
            notes.append(
                f"Python `if`/`while` on `{tests[0].text}` becomes a tf.cond/tf.while_loop: both branches are traced, "
                "their results are not proven the same"
            )
        elif risk is not None:
            notes.append(risk)
        else:
            info.append(
                f"`if` on `{param}` becomes a tf.cond: the proof traced both branches to one structure, and "
                "neither has a Python side effect"
            )
    if type_name == "float" and dtype == "float32":
        info.append(
            f"`{param}` is a Python float (float64) and arrives as float32: TensorFlow converted it to float32 at "
            "its first op with a float32 tensor anyway; Python arithmetic on it in the body is now float32"
        )
    for use in uses:
        if use.kind == "cast" and use.dtype and use.dtype != dtype and type_name == "float" and use.dtype == "float64":
            notes.append(f"`{use.text}`: the value arrives as {dtype}, so float64 precision is lost")
    return _Target(Conversion(param, FIX_SCALAR, dtype), what, notes, info, f"`{param}`: Python {type_name} varies",
                   type_name, constants=bool(constants))


def _own_spelled(found) -> str:
    if found.dtype is None:
        return f"tf.convert_to_tensor({found.param})"
    return f"tf.cast({found.param}, {cst.Module(body=[]).code_for_node(found.dtype)})"



def _cast_target(param: str, dtype: str, summary, node: cst.FunctionDef, parsed: _Module, keras, source) -> _Target | str:
    """A tensor whose dtype drifts, cast to ``dtype`` at the call sites: safe where the body does not
    depend on the dtype it receives (a Keras model casts its inputs; ``tf.cast(x, dtype)``)."""
    dtypes = summary.dtypes
    what = f"`{param}`: dtype varies ({', '.join(dtypes)})"
    others = [d for d in dtypes if d != dtype]
    notes: list[str] = []
    uses = _tensor_uses(node, param, parsed, keras)
    floats = all(d.startswith(("float", "bfloat")) for d in dtypes)
    for kind, text, target in uses:
        if kind == "cast" and target == dtype:
            continue
        if kind == "keras" and floats and dtype == "float32":
            continue
        notes.append(
            f"`{text}` receives {dtype} where some calls passed {', '.join(others)}: casting at the call site "
            "changes what it computes (precision, result dtype)"
        )
        break
    info = []
    lossy = [d for d in others if _narrower(dtype, d)]
    if lossy and not notes:
        info.append(
            f"`{param}` values recorded as {', '.join(lossy)} are cast to {dtype} (precision is lost), which the "
            "body did with them anyway"
        )
    return _Target(Conversion(param, FIX_CAST, dtype), what, notes, info, what)


def _narrower(dtype: str, other: str) -> bool:
    bits = {"float16": 16, "bfloat16": 16, "float32": 32, "float64": 64, "int8": 8, "int16": 16, "int32": 32, "int64": 64}
    return bits.get(dtype, 64) < bits.get(other, 0) or (dtype.startswith("int") and other.startswith("float"))


def _tensor_uses(node: cst.FunctionDef, param: str, parsed: _Module, keras: KerasEvidence) -> list[tuple[str, str, str | None]]:
    """Every use of ``param`` in the body: ``("cast", text, dtype)`` for ``tf.cast(param, tf.X)``,
    ``("keras", text, None)`` for the input of a Keras model call, ``("other", text, None)``."""
    scope = parsed.scope
    scope.push_function(node)
    collector = _TensorUses(param, scope, keras)
    collector.functions.append(node)
    node.body.visit(collector)
    return collector.uses


class _TensorUses(cst.CSTVisitor):
    def __init__(self, param: str, scope: Scope, keras: KerasEvidence) -> None:
        self.param = param
        self.scope = scope
        self.keras = keras
        self.functions: list[cst.FunctionDef] = []
        self.stack: list[cst.CSTNode] = []
        self.uses: list[tuple[str, str, str | None]] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.stack.append(node)  # popped by on_leave, which LibCST calls for a skipped node too
        if isinstance(node, (cst.FunctionDef, cst.Lambda)) and self.param in local_bindings(node):
            return False  # a nested def with its own `param`
        return super().on_visit(node)

    def on_leave(self, original_node: cst.CSTNode) -> None:
        super().on_leave(original_node)
        self.stack.pop()

    def visit_Name(self, node: cst.Name) -> None:
        if node.value != self.param or len(self.stack) < 2:
            return
        parent = self.stack[-2]
        if isinstance(parent, cst.Attribute) and parent.attr is node:
            return
        if isinstance(parent, cst.Arg) and parent.keyword is node:
            return
        if isinstance(parent, cst.Arg) and parent.value is node and len(self.stack) >= 3:
            call = self.stack[-3]
            if isinstance(call, cst.Call) and call.args and call.args[0] is parent:
                if self.scope.qualify(call.func) == "tensorflow.cast":
                    dtype = next((a.value for a in call.args[1:] if a.keyword is None or a.keyword.value == "dtype"), None)
                    target = self.scope.qualify(dtype) if dtype is not None else None
                    self.uses.append(("cast", short(call), target.rsplit(".", 1)[-1] if target else None))
                    return
                if self.keras.receiver_is_model(call.func, self.functions, self.scope, False):
                    self.uses.append(("keras", short(call), None))
                    return
            if isinstance(call, cst.Call):
                self.uses.append(("other", short(call), None))
                return
        self.uses.append(("other", short(parent), None))


# --------------------------------------------------------------------------- the callee


def _callee(node: cst.FunctionDef, parsed: _Module, source, skip_self: str | None) -> Callee:
    names = {node.name.value}
    site = parsed.analysis.tf_functions.get(node)
    if site is not None and site.form == "wrap-call" and site.call is not None:
        names.update(_assigned_names(parsed.tree, site.call))
    params: list[ParamSpec] = []
    p = node.params
    for param in p.posonly_params:
        params.append(_param_spec(param, "positional_only"))
    for param in p.params:
        params.append(_param_spec(param, "positional"))
    if isinstance(p.star_arg, cst.Param):
        params.append(ParamSpec(p.star_arg.name.value, "var_positional"))
    for param in p.kwonly_params:
        params.append(_param_spec(param, "keyword_only"))
    if isinstance(p.star_kwarg, cst.Param):
        params.append(ParamSpec(p.star_kwarg.name.value, "var_keyword"))
    if skip_self is not None and params and params[0].name == skip_self:
        params = params[1:]
    return Callee(frozenset(names), tuple(params), module_of(parsed.relpath))


def _param_spec(param: cst.Param, kind: str) -> ParamSpec:
    from retrace_fix.codemods._traced_functions import literal_default
    from retrace_fix.traces.summaries import NO_LITERAL

    if param.default is None:
        return ParamSpec(param.name.value, kind)
    literal = literal_default(param.default)
    text = None if literal is NO_LITERAL else " ".join(code_of(param.default).split())
    return ParamSpec(param.name.value, kind, True, text)


def _assigned_names(tree: cst.Module, call: cst.Call) -> set[str]:
    """``g`` of ``g = tf.function(f)`` and ``step`` of ``self.step = tf.function(self._step)``."""
    found: set[str] = set()

    class _Assignments(cst.CSTVisitor):
        def visit_Assign(self, node: cst.Assign) -> None:
            if node.value is call:
                for target in node.targets:
                    if isinstance(target.target, cst.Name):
                        found.add(target.target.value)
                    elif isinstance(target.target, cst.Attribute):
                        found.add(target.target.attr.value)

    tree.visit(_Assignments())
    return found


# --------------------------------------------------------------------------- call sites


@dataclass
class SiteMatch:
    """A recorded call site found again: the call, and what to do with each converted parameter."""

    call: cst.Call | None
    status: str
    reason: str = ""
    #: (conversion, "wrap" | "add", the argument to wrap or the default's source)
    edits: tuple = ()


def _index_calls(parsed: _Module) -> dict[int, list[tuple[cst.Call, tuple]]]:
    found: dict[int, list[tuple[cst.Call, tuple]]] = {}
    analysis = parsed.analysis

    class _Calls(cst.CSTVisitor):
        def __init__(self) -> None:
            self.functions: list[cst.FunctionDef] = []

        def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
            self.functions.append(node)

        def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
            self.functions.pop()

        def visit_Call(self, node: cst.Call) -> None:
            found.setdefault(analysis.line_of(node), []).append((node, tuple(self.functions)))

    parsed.tree.visit(_Calls())
    return found


def _char_column(parsed: _Module, line: int, column: int) -> int:
    """The character column of UTF-8 byte ``column`` of ``line`` (how Python records call positions)."""
    if not 1 <= line <= len(parsed.lines):
        return column
    data = parsed.lines[line - 1].encode("utf-8")
    return len(data[:column].decode("utf-8", errors="ignore"))


def callee_name(func: cst.BaseExpression) -> str | None:
    if isinstance(func, cst.Name):
        return func.value
    if isinstance(func, cst.Attribute):
        return func.attr.value
    return None


def _calls_callee(func: cst.BaseExpression, callee: Callee, parsed: _Module) -> bool:
    name = callee_name(func)
    if name is None:
        return False
    if name in callee.names:
        return True
    if isinstance(func, cst.Name):
        target = parsed.analysis.table.aliases.get(name)
        if target:
            module, _, attr = target.rpartition(".")
            return attr in callee.names and (not module or callee.def_module.endswith(module) or module.endswith(callee.def_module))
    return False


def find_site(parsed: _Module, line: int, column: int | None, callee: Callee) -> tuple[cst.Call | None, tuple, str]:
    """The call of ``callee`` recorded at ``line``/``column`` (UTF-8 bytes), the defs around it, or why none."""
    where = f"{parsed.relpath}:{line}"
    candidates = parsed.calls_on(line)
    if column is not None:
        char = _char_column(parsed, line, column)
        candidates = [(c, f) for c, f in candidates if parsed.analysis.column_of(c) == char]
    matching = [(c, f) for c, f in candidates if _calls_callee(c.func, callee, parsed)]
    if len(matching) == 1:
        return matching[0][0], matching[0][1], ""
    if len(matching) > 1:
        return None, (), f"{where}: more than one call of `{sorted(callee.names)[0]}` at the recorded position"
    if candidates:
        call = candidates[0][0]
        shown = short(call.func, 40)
        if isinstance(call.func, (cst.Name, cst.Attribute)):
            return None, (), f"{where} calls it through `{shown}` (a variable, a wrapper or library code)"
        return None, (), f"{where} calls it through `{shown}`, not by name"
    return None, (), f"{where}: no call at the recorded position (the code changed since recording? re-record)"


def site_edits(parsed: _Module, line: int, column: int | None, callee: Callee, conversions: tuple) -> SiteMatch:
    """What converting ``conversions`` means at the call recorded at ``line``/``column``."""
    where = f"{parsed.relpath}:{line}"
    call, functions, why = find_site(parsed, line, column, callee)
    if call is None:
        if _converted_everywhere(parsed, callee, conversions):
            return SiteMatch(None, DONE)  # fixed since recording (an import added above moved the lines)
        return SiteMatch(None, REFUSED, why)
    if _suppressed_site(parsed, call, functions):
        return SiteMatch(call, REFUSED, f"{where}: suppressed by a `# retrace-fix: ignore` comment")
    if tf_spelling(parsed.analysis.table)[0] is None:
        return SiteMatch(call, REFUSED, f"{where}: no name for TensorFlow is free in this module")
    bound, problem = _bind(call, callee)
    if problem:
        return SiteMatch(call, REFUSED, f"{where}: {problem}")
    scope = parsed.scope
    edits = []
    for conversion in conversions:
        arg = bound.get(conversion.param)
        spec = next(p for p in callee.params if p.name == conversion.param)
        if isinstance(arg, cst.Arg):
            if _already_tensor(arg.value, conversion, scope):
                continue
            edits.append((conversion, "wrap", arg))
        elif arg == "star":
            return SiteMatch(call, REFUSED, f"{where}: passes `{conversion.param}` through *args/**kwargs")
        elif spec.has_default:
            if spec.kind == "positional_only":
                return SiteMatch(call, REFUSED, f"{where}: leaves positional-only `{spec.name}` at its default")
            if spec.default is None:
                return SiteMatch(
                    call, REFUSED, f"{where}: leaves `{spec.name}` at its default, which is not a literal to pass here"
                )
            edits.append((conversion, "add", spec.default))
        else:
            return SiteMatch(call, REFUSED, f"{where}: does not pass `{spec.name}` (the code changed since recording?)")
    if not edits:
        return SiteMatch(call, DONE)
    return SiteMatch(call, EDIT, edits=tuple(edits))


def _bind(call: cst.Call, callee: Callee) -> tuple[dict, str]:
    """parameter -> its ``Arg`` (or ``"star"`` when it may come through ``*a``/``**k``), or a mismatch."""
    params = callee.params
    positional = [p for p in params if p.kind in ("positional_only", "positional")]
    by_name = {p.name: p for p in params if p.kind not in ("positional_only", "var_positional", "var_keyword")}
    takes_star = any(p.kind == "var_positional" for p in params)
    takes_kwargs = any(p.kind == "var_keyword" for p in params)
    bound: dict = {}
    index = 0
    star = False
    double_star = False
    for arg in call.args:
        if arg.star == "*":
            star = True
            continue
        if arg.star == "**":
            double_star = True
            continue
        if arg.keyword is None:
            if star:
                continue  # its position is unknown
            if index < len(positional):
                bound[positional[index].name] = arg
            elif not takes_star:
                return {}, "passes more positional arguments than the function takes (the code changed since recording?)"
            index += 1
        else:
            keyword = arg.keyword.value
            if keyword in by_name:
                bound[keyword] = arg
            elif not takes_kwargs:
                return {}, f"passes `{keyword}`, which the function does not take (the code changed since recording?)"
    for position, param in enumerate(positional):
        if param.name not in bound and ((star and position >= index) or double_star):
            bound[param.name] = "star"
    for param in params:
        if param.kind == "keyword_only" and param.name not in bound and double_star:
            bound[param.name] = "star"
    return bound, ""


def _converted_everywhere(parsed: _Module, callee: Callee, conversions: tuple) -> bool:
    """Does every call of ``callee`` by name in the module already pass each conversion as a tensor?"""
    calls = _calls_by_name(parsed, callee, set(parsed.analysis.tf_functions), attributes=True)
    if not calls:
        return False
    scope = parsed.scope
    for call in calls:
        bound, problem = _bind(call, callee)
        if problem:
            return False
        for conversion in conversions:
            arg = bound.get(conversion.param)
            if not (isinstance(arg, cst.Arg) and _already_tensor(arg.value, conversion, scope)):
                return False
    return True


def _already_tensor(expr: cst.BaseExpression, conversion: Conversion, scope: Scope) -> bool:
    """Does ``expr`` already hand over a ``conversion.dtype`` tensor (``tf.constant(v, dtype=tf.float32)``)?"""
    if not isinstance(expr, cst.Call) or scope.qualify(expr.func) not in _CONVERTERS:
        return False
    dtype = None
    positional = [a for a in expr.args if a.keyword is None and not a.star]
    if len(positional) > 1:
        dtype = positional[1].value
    for arg in expr.args:
        if arg.keyword is not None and arg.keyword.value == "dtype":
            dtype = arg.value
    if dtype is None:
        return conversion.kind == FIX_SCALAR and scope.qualify(expr.func) == "tensorflow.constant" and (
            conversion.dtype in ("int32", "float32", "bool")
        )
    qualified = scope.qualify(dtype)
    return qualified is not None and qualified.rsplit(".", 1)[-1] == conversion.dtype


def _suppressed_site(parsed: _Module, call: cst.Call, functions: tuple) -> bool:
    sup = parsed.analysis.suppressions
    if not sup.by_line:
        return False
    position = parsed.analysis.position(call)
    lines = {position.start.line, position.end.line}
    for function in functions:
        lines.add(parsed.analysis.line_of(function.decorators[0] if function.decorators else function))
        lines.add(parsed.analysis.line_of(function.name))
    return any(sup.suppresses(line, CODE) for line in lines)


def _site_verdict(site, callee: Callee, conversions: tuple, function: FunctionTraces, module, sources: dict) -> SiteVerdict:
    where = f"{site.file}:{site.line}"
    if site.file not in sources:
        return SiteVerdict(site.file, site.line, site.column, site.count, REFUSED,
                           f"{where}: the file is not among the files of this run")
    parsed = module(site.file)
    if parsed is None:
        return SiteVerdict(site.file, site.line, site.column, site.count, REFUSED, f"{where}: the file cannot be parsed")
    match = site_edits(parsed, site.line, site.column, callee, conversions)
    return SiteVerdict(site.file, site.line, site.column, site.count, match.status, match.reason)


def _unrecorded_calls(function: FunctionTraces, callee: Callee, conversions: tuple, sites: tuple, parsed: _Module,
                      module, node: cst.FunctionDef) -> list[str]:
    """Calls of the function in the files read that were not recorded (and are not in a tf.function, where
    they trace only with their caller): after the fix they may pass Python values and trace on their own."""
    recorded: dict[str, set] = {}
    for site in sites:
        recorded.setdefault(site.file, set()).add(site.line)
    found: list[str] = []
    for relpath in sorted({parsed.relpath, *recorded}):
        other = module(relpath)
        if other is None:
            continue
        scope = other.scope
        tf_defs = set(other.analysis.tf_functions)
        calls: list[cst.Call] = []
        if relpath == parsed.relpath:
            module_calls = ModuleCalls.get(other.analysis, {})
            target = module_calls.callable_for(next((n for n in other.analysis.tf_functions if n is node), node))
            if target is not None:
                calls = [c.call for c in module_calls.calls_of(target) if not (set(c.functions) & tf_defs)]
        else:
            calls = _calls_by_name(other, callee, tf_defs)
        for call in calls:
            line = other.analysis.line_of(call)
            if line in recorded.get(relpath, ()):
                continue
            bound, problem = _bind(call, callee)
            if problem:
                continue
            args = [bound.get(c.param) for c in conversions]
            if all(isinstance(a, cst.Arg) and _already_tensor(a.value, c, scope) for a, c in zip(args, conversions)):
                continue
            found.append(f"`{short(call, 40)}` at {relpath}:{line}")
    return found


def _calls_by_name(parsed: _Module, callee: Callee, tf_defs: set, attributes: bool = False) -> list[cst.Call]:
    """Calls of ``callee`` by a bare name (and ``obj.name(...)`` when ``attributes``), outside tf.functions."""
    calls: list[cst.Call] = []

    class _Calls(cst.CSTVisitor):
        def __init__(self) -> None:
            self.depth = 0

        def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
            if node in tf_defs:
                self.depth += 1

        def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
            if original_node in tf_defs:
                self.depth -= 1

        def visit_Call(self, node: cst.Call) -> None:
            kinds = (cst.Name, cst.Attribute) if attributes else (cst.Name,)
            if not self.depth and isinstance(node.func, kinds) and _calls_callee(node.func, callee, parsed):
                calls.append(node)

    parsed.tree.visit(_Calls())
    return calls


# --------------------------------------------------------------------------- in a worker


def module_for(relpath: str, text: str, tree: cst.Module, analysis: ModuleAnalysis) -> _Module:
    """The worker's view of its file, for :func:`site_edits` (the tree the pre-pass parsed from the same text)."""
    return _Module(relpath, text, tree, analysis, source_lines(text))


__all__ = [
    "CallSitePlan", "Conversion", "Decision", "SiteVerdict", "build_plan", "module_for", "site_edits",
    "wants_files",
]
