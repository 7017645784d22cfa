"""RTF005's whole-project decision: which recorded call sites of which tf.function pass tensors.

The rule of RTF005 (call-site-tensor) is *every recorded call site of a function
is rewritten, or none*: a function whose Python values arrive as tensors from
some callers and as Python values from others traces for both.  The engine
processes files independently (in worker processes, output identical for any
``--jobs``), so that decision is taken once, before the files are processed:
:func:`build_plan` reads only the files that define a candidate function or hold
one of its recorded call sites, and the
:class:`~retrace_fix.codemods._call_site_records.CallSitePlan` it returns goes to
every worker (``CodemodSettings.call_sites``).  In each file RTF005 then reports
what was decided -- once at the ``def``, and at every call site it rewrites --
and RTF003/RTF004 read it too (a function whose calls are converted gets no
signature; ``reduce_retracing`` is proven on the converted traces).

One function's decision (:func:`_decide`) runs in named steps: is there
anything to decide (:func:`_subject`), which parameters the body lets become
tensors (:func:`_body_verdicts`), the proof of exactly that conversion
(:func:`_proof`), what converting does at every recorded call site
(:func:`_converted`), then the finding (:func:`_refused`, or :func:`_fix`).

Never imports TensorFlow.
"""

from __future__ import annotations

from abc import ABC
from dataclasses import dataclass
from typing import Iterable

import libcst as cst
from libcst.codemod import CodemodContext

from retrace_fix.codemods._base import CodemodSettings, RetraceCodemod
from retrace_fix.codemods._call_site_edits import site_verdict
from retrace_fix.codemods._call_site_matching import ParsedModule, callee_of, read_module, unrecorded_calls
from retrace_fix.codemods._call_site_records import CODE, DONE, REFUSED, Callee, CallSitePlan, Decision, SiteVerdict
from retrace_fix.codemods._call_site_targets import Target, cast_target, scalar_target
from retrace_fix.codemods._call_site_wording import actions_text, params_text, proof_wording, spelled, varied_text
from retrace_fix.codemods._finding_text import MAX_MESSAGE, clauses, joined, one_line
from retrace_fix.codemods._flag_branches import TRAINING_FLAGS
from retrace_fix.codemods._keras import KerasEvidence
from retrace_fix.codemods._source_info import signature_decisions_by_def
from retrace_fix.codemods._traced_functions import traced_functions
from retrace_fix.findings import Tier
from retrace_fix.traces.signature_candidates import (
    FIX_CAST,
    FIX_SCALAR,
    call_site_candidate,
    call_site_relax_candidate,
    call_site_targets,
    stored_oracle,
    traces_after,
)
from retrace_fix.traces.generalize import SignatureDecision, _listed
from retrace_fix.traces.model import FunctionTraces, Proof, TraceSet

#: the Python types whose values ``tf.constant(v)`` converts (and the dtype it gives each)
_DEFAULT_DTYPE = {"int": "int32", "float": "float32", "bool": "bool"}
#: how many refused or unrecorded sites a message names before "(+N more)"
_NAMED = 2


# --------------------------------------------------------------------------- which functions


def wants_files(traces: TraceSet, available: Iterable[str]) -> set[str]:
    """The files the pre-pass must read: the def and call-site files of every recorded function that might
    get a call-site conversion (cheap: from the traces alone)."""
    available = set(available)
    files: set[str] = set()
    for function in traces:
        if function.wraps is None and function.file in available and function.call_sites and might_convert(function):
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


# --------------------------------------------------------------------------- the pre-pass


class _Reader(RetraceCodemod, ABC):
    """Only its analysis is used: the signature plans of a module (never transforms anything; ``ABC``
    keeps it out of ``python -m libcst.tool list``)."""


def build_plan(sources: dict, traces: TraceSet) -> CallSitePlan:
    """Decide RTF005 for every recorded function of one project root.

    ``sources``: relative path -> text of every file of the run under this root that the pre-pass
    should read (:func:`wants_files`), or None for one that cannot be read or parsed safely.  A file
    missing from it is not part of the run: its call sites cannot be rewritten.
    """
    result = CallSitePlan()
    modules: dict[str, ParsedModule | None] = {}

    def module(relpath: str) -> ParsedModule | None:
        if relpath not in modules:
            text = sources.get(relpath)
            modules[relpath] = read_module(relpath, text) if text is not None else None
        return modules[relpath]

    for def_file in sorted({f.file for f in traces
                            if f.wraps is None and f.file in sources and f.call_sites and might_convert(f)}):
        parsed = module(def_file)
        if parsed is None:
            continue
        reader = _Reader(CodemodContext(filename=def_file), CodemodSettings(traces=traces, relpath=def_file, source_text=parsed.text))
        reader.analysis = parsed.analysis
        reader.scope = parsed.scope
        signature_decisions = signature_decisions_by_def(reader)
        for node, function in traced_functions(reader).items():
            if not function.call_sites or not might_convert(function):
                continue
            signature_decision = signature_decisions.get(node)
            if signature_decision is None:
                continue
            decision = _decide(function, node, signature_decision, parsed, module, sources)
            if decision is not None:
                result.decisions[function.key] = decision
    return result


# --------------------------------------------------------------------------- one function


@dataclass
class _Subject:
    """One recorded tf.function RTF005 decides about, and what every step of the decision reads."""

    function: FunctionTraces
    node: cst.FunctionDef
    plan: SignatureDecision
    parsed: ParsedModule
    #: param -> (FIX_SCALAR | FIX_CAST, dtypes to try): what varied and a call site could convert
    targets: dict
    #: RTF003 could write a signature (unproven, where the call-site conversion traced)
    fallback: bool

    @property
    def source(self):
        return self.plan.source

    @property
    def skip_self(self) -> str | None:
        return self.plan.source.skip_self

    @property
    def name(self) -> str:
        return self.node.name.value

    @property
    def before(self) -> int:
        return self.plan.distinct_traces

    @property
    def head(self) -> str:
        return f"`{self.name}` traced {self.before} times"

    @property
    def kinds(self) -> dict:
        return {param: kind for param, (kind, _) in self.targets.items()}

    def decision(self, tier: Tier, message: str, reason: str, *args, **kwargs) -> Decision:
        function = self.function
        return Decision(function.key, function.qualname, self.name, function.file, tier, message, reason,
                        *args, **kwargs)


@dataclass
class _Conversion:
    """What converting the accepted parameters at every recorded call site does."""

    accepted: list  # (Target, ...)
    conversions: tuple  # (Conversion, ...)
    callee: Callee
    sites: tuple  # (SiteVerdict, ...): every recorded call site
    subjects: tuple  # what a finding is about
    after: int  # traces on the recorded run once converted
    relax: str = ""  # reduce_retracing=True on top: "" (not needed), traced, unproven or failed
    relax_note: str = ""
    relax_after: int = 0

    def decision(self, subject: _Subject, tier: Tier, message: str, reason: str, **kwargs) -> Decision:
        return subject.decision(tier, message, reason, self.conversions, self.callee, self.sites,
                                before=subject.before, after=self.after, **kwargs)


def _decide(
    function: FunctionTraces,
    node: cst.FunctionDef,
    plan: SignatureDecision,
    parsed: ParsedModule,
    module,
    sources: dict,
) -> Decision | None:
    subject = _subject(function, node, plan, parsed)
    if subject is None:
        return None
    #: only Python bools varied: at most two graphs, often on purpose; converted only when that is
    #: proven harmless (the proof traced the flag as a tensor, no branch has a Python side effect)
    lone_flag = _only_flags(function, subject.targets, plan.outcomes.layout.summaries, subject.skip_self)
    accepted, kept, failed_proof = _body_verdicts(subject)
    no_signature = _no_signature(subject)
    if not accepted:
        return _unconvertible(subject, failed_proof, kept, no_signature)
    if _flags_only(subject, accepted, lone_flag):
        return None
    conversions = tuple(t.conversion for t in accepted)
    proof = _proof(subject, accepted, conversions)
    if lone_flag and not proof.traced:
        return None  # a flag alone: only a proven conversion is worth a finding
    converted = _converted(subject, accepted, module, sources)
    if all(s.status == DONE for s in converted.sites):  # converted since recording (a second run, same traces)
        return converted.decision(subject, Tier.SAFE, "", "", relax=converted.relax, relax_note=converted.relax_note,
                                  relax_after=converted.relax_after, done=True, draws=subject.source.facts.draws_note())
    if not _folds(subject, converted):
        return None  # converting these values would fold nothing on the recorded run
    unrecorded = unrecorded_calls(function, converted.callee, conversions, converted.sites, parsed, module, node)
    reason_parts = _reason_parts(subject, converted, kept, no_signature)
    proof_text, proof_status = proof_wording(subject.name, proof, conversions)
    refused = [s for s in converted.sites if s.status == REFUSED]
    if subject.fallback and (refused or proof_status != "traced"):
        return None  # RTF003 offers its (unproven) signature
    if refused:
        return _refused(subject, converted, refused, reason_parts, proof_text)
    if proof_status == "failed":
        message = one_line(f"{subject.head}: with {params_text(conversions)} as tensors tracing fails: {proof.error}")
        reason = "; ".join([*reason_parts, proof_text])
        return converted.decision(subject, Tier.DIAGNOSTIC, message, reason, subjects=converted.subjects)
    return _fix(subject, converted, reason_parts, proof_text, proof_status, unrecorded)


def _subject(function: FunctionTraces, node: cst.FunctionDef, plan: SignatureDecision,
             parsed: ParsedModule) -> _Subject | None:
    """The function as RTF005 decides about it, or None where RTF005 has nothing to say: traced once,
    only inside its callers or already signed; a signature RTF003 can write wins; suppressed; nothing
    varied that a call site could convert."""
    source = plan.source
    if source is None or not plan.retraced or plan.nested_only or plan.already_signed:
        return None  # traced once / only inside callers / signed
    # a signature RTF003 can write wins, unless it is unproven while the call-site conversion traced
    fallback = plan.possible
    if fallback and not (plan.proof == "unproven" and plan.outcomes.call_site.status == "traced"):
        return None
    if _suppressed_def(parsed, node):
        return None
    targets = call_site_targets(plan.outcomes.layout)
    if not targets:
        return None
    return _Subject(function, node, plan, parsed, targets, fallback)


def _body_verdicts(subject: _Subject) -> tuple[list[Target], list[str], str | None]:
    """Per varying parameter, what the body allows: the conversions it accepts, why the others stay as
    they are (kept), and the failed trial-trace of the conversion where that is why."""
    plan, parsed, node = subject.plan, subject.parsed, subject.node
    call_site = plan.outcomes.call_site
    summaries = plan.outcomes.layout.summaries
    chosen = dict(call_site.candidate.converts) if call_site.candidate is not None else {}
    #: parameters the proof traced with the body's ``tf.constant(param)`` as conversions
    patched = set(call_site.candidate.constants) if call_site.candidate is not None else set()
    keras = KerasEvidence.collect(parsed.tree, parsed.scope)
    accepted: list[Target] = []
    kept: list[str] = []  # why a varying value stays a Python value / a dtype stays drifting
    failed_proof: str | None = None
    for param, (kind, ladder) in subject.targets.items():
        summary = summaries.get(param)
        if param in plan.loop_blocked:
            continue  # a step count: RTF001 converts its call sites or explains its loop
        dtype = chosen.get(param, ladder[0])
        proven = call_site.status == "traced"
        if kind == FIX_SCALAR:
            target = scalar_target(param, dtype, summary, subject.source, summaries, proven, node, parsed.scope,
                                   patched=param in patched)
        else:
            target = cast_target(param, dtype, summary, node, parsed, keras, subject.source)
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
    return accepted, kept, failed_proof


def _no_signature(subject: _Subject) -> str:
    """Why RTF003 writes no input_signature instead, for the reason."""
    plan, targets = subject.plan, subject.targets
    if subject.fallback:
        return f"the signature RTF003 would write is {plan.proof_note or 'not proven'}"
    no_signature = joined(text for param, text, _ in clauses(plan) if param not in targets)
    if no_signature:
        return no_signature
    drifting = [p for p, (kind, _) in targets.items() if kind == FIX_CAST]
    if drifting:
        return f"{_listed(f'`{p}`' for p in drifting)} arrives in several dtypes, and a signature takes one"
    return "no signature accepts every recorded call"


def _unconvertible(subject: _Subject, failed_proof: str | None, kept: list[str], no_signature: str) -> Decision | None:
    """No parameter can become a tensor: a finding only where the trial-trace of the conversion failed."""
    if failed_proof is None or subject.plan.proof == "failed":
        return None  # RTF003 says why each value must stay a Python value (or quotes the failed proof)
    head = subject.head
    message = one_line(f"{head}: {failed_proof}")
    reason = f"{head}; no input_signature: {no_signature}; at the call sites: {joined(kept)}"
    return subject.decision(Tier.DIAGNOSTIC, message, reason, subjects=(("function", subject.function.qualname, ""),))


def _flags_only(subject: _Subject, accepted: list[Target], lone_flag: bool) -> bool:
    """Would only flags change: a training-mode flag (two graphs on purpose), or a flag alone whose
    ``tf.cond`` is not proven harmless?  Then RTF005 says nothing."""
    if all(t.python_type == "bool" and t.conversion.param in TRAINING_FLAGS for t in accepted):
        return True
    return lone_flag and (subset_of(accepted, subject.targets) or any(t.notes for t in accepted))


def _proof(subject: _Subject, accepted: list[Target], conversions: tuple) -> Proof:
    """The recording's proof of exactly this conversion (not run where only some targets convert)."""
    function, targets = subject.function, subject.targets
    dtypes = {c.param: c.dtype for c in conversions}
    own = tuple(t.conversion.param for t in accepted if t.constants)
    proof = stored_oracle(function)(call_site_candidate(function, subject.skip_self, dtypes, subject.kinds, own))
    if subset_of(accepted, targets) and not proof.traced and not proof.failed:
        proof = Proof(proof.fix, "not_run", note=(
            f"not proven: the recording trial-traced {params_text(conversions)} converted together with "
            f"{_listed(f'`{p}`' for p in targets if p not in dtypes)}, which must stay as they are"
        ))
    return proof


def _converted(subject: _Subject, accepted: list[Target], module, sources: dict) -> _Conversion:
    """The conversion of ``accepted`` at every recorded call site: each site's verdict, the traces it
    leaves, and ``reduce_retracing=True`` on top (RTF004 adds it where the shapes still vary)."""
    function, node, plan, skip_self = subject.function, subject.node, subject.plan, subject.skip_self
    conversions = tuple(t.conversion for t in accepted)
    dtypes = {c.param: c.dtype for c in conversions}
    after = traces_after(function, skip_self, dtypes, subject.kinds)
    callee = callee_of(node, subject.parsed, subject.source, skip_self)
    sites = tuple(site_verdict(site, callee, conversions, function, module, sources) for site in function.call_sites)
    subjects = (("function", function.qualname, ""), *(
        ("dtype" if t.conversion.kind == FIX_CAST else "python-value", function.qualname, t.conversion.param)
        for t in accepted
    ))
    converted = _Conversion(accepted, conversions, callee, sites, subjects, after, relax_after=after)
    if not plan.shape_varies or plan.static_blockers:  # a static read of a varying dim: RTF004 says so
        return converted
    own = tuple(t.conversion.param for t in accepted if t.constants)
    combined = call_site_relax_candidate(function, skip_self, dtypes, subject.kinds, own)
    if combined is None:
        return converted
    proof = stored_oracle(function)(combined)
    converted.relax = proof.result if proof.result in ("traced", "failed") else "unproven"
    converted.relax_note = proof.error or proof.note or ""
    converted.relax_after = traces_after(function, skip_self, dtypes, subject.kinds, relaxed=True)
    return converted


def _folds(subject: _Subject, converted: _Conversion) -> bool:
    """Does the conversion (with ``reduce_retracing`` where that is not known to fail) fold traces?"""
    if converted.after < subject.before:
        return True
    return converted.relax in ("traced", "unproven") and converted.relax_after < subject.before


def _at_sites(sites: tuple) -> str:
    return "at its call site" if len(sites) == 1 else f"at its {len(sites)} call sites"


def _reason_parts(subject: _Subject, converted: _Conversion, kept: list[str], no_signature: str) -> list[str]:
    """The reason of a finding, clause by clause: what varied and why no signature, the conversion at
    the call sites and the traces it leaves, what stays as it is, ``reduce_retracing`` on top."""
    before, accepted, sites = subject.before, converted.accepted, converted.sites
    conversion_text = "; ".join(f"`{t.conversion.param}` becomes {spelled(t.conversion, t.conversion.param)} "
                                f"{_at_sites(sites)}" for t in accepted)
    site_list = ", ".join(f"{s.where} ({s.count} traced call{'s' if s.count != 1 else ''})" for s in sites)
    parts = [
        f"{subject.head} ({joined(t.what for t in accepted)}); no input_signature: {no_signature}",
        f"{conversion_text} ({site_list}): {before} → {converted.after} traces on the recorded run",
        *(i for t in accepted for i in t.info),
    ]
    if kept:
        parts.append("left as they are: " + joined(kept))
    if converted.relax in ("traced", "unproven"):
        parts.append(f"reduce_retracing=True then folds the shapes (RTF004): {before} → {converted.relax_after} traces")
    return parts


def _refused(subject: _Subject, converted: _Conversion, refused: list[SiteVerdict], reason_parts: list[str],
             proof_text: str) -> Decision:
    """Some recorded call site cannot be rewritten: every site or none, so a diagnostic naming it."""
    conversions = converted.conversions
    more = f" (+{len(refused) - 1} more)" if len(refused) > 1 else ""
    message = one_line(f"{subject.head}: {params_text(conversions)} cannot be converted at every call site: "
                       f"{refused[0].reason}{more}")
    reason = "; ".join([
        *reason_parts,
        "call sites that cannot be rewritten: " + joined(s.reason for s in refused),
        f"convert them by hand at every call site ({', '.join(spelled(c, c.param) for c in conversions)})",
        proof_text,
    ])
    return converted.decision(subject, Tier.DIAGNOSTIC, message, reason, subjects=converted.subjects)


def _fix(subject: _Subject, converted: _Conversion, reason_parts: list[str], proof_text: str, proof_status: str,
         unrecorded: list[str]) -> Decision | None:
    """Every recorded call site is rewritten: safe where nothing speaks against it, else unsafe with why
    (None where that is no better than RTF003's unproven signature)."""
    accepted = converted.accepted
    unsafe = [n for t in accepted for n in t.notes]
    draws = subject.source.facts.draws_note()
    if draws:
        unsafe.append(draws)
    if proof_status != "traced":
        unsafe.insert(0, proof_text)
    if unrecorded:
        shown = joined(unrecorded[:_NAMED]) + (f" (+{len(unrecorded) - _NAMED} more)" if len(unrecorded) > _NAMED else "")
        unsafe.append(f"calls that were not recorded may still pass Python values and trace on their own: {shown}")
    tier = Tier.UNSAFE if unsafe else Tier.SAFE
    if subject.fallback and tier is not Tier.SAFE:
        return None  # no better than RTF003's unproven signature: RTF003 offers that
    # safe: the whole reason; unsafe: printed after the finding, why it is unsafe and nothing more
    reason = "; ".join([*reason_parts, proof_text] if tier is Tier.SAFE else unsafe)
    before, after, name, function = subject.before, converted.after, subject.name, subject.function
    actions, where = actions_text(converted.conversions), _at_sites(converted.sites)
    expected = f"{before} → {after} traces"
    message = f"{subject.head} ({varied_text(accepted)}): {actions} {where} ({expected})"
    if len(message) > MAX_MESSAGE:
        message = f"{subject.head}: {actions} {where} ({expected})"
    times = "once" if after == 1 else f"{after} times"
    site_message = one_line(f"{actions} so that `{name}` ({function.file}:{function.firstlineno}) traces {times}, "
                            f"not {before} times")
    return converted.decision(
        subject, tier, one_line(message), reason,
        site_message=site_message, verifiable=proof_status != "traced",
        relax=converted.relax, relax_note=converted.relax_note, relax_after=converted.relax_after,
        subjects=converted.subjects, draws=draws,
        own_constants=tuple((t.conversion.param, t.python_type) for t in accepted if t.constants),
    )


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


def _suppressed_def(parsed: ParsedModule, node: cst.FunctionDef) -> bool:
    sup = parsed.analysis.suppressions
    if not sup.by_line:
        return False
    lines = {parsed.analysis.line_of(node.name)}
    if node.decorators:
        lines.add(parsed.analysis.line_of(node.decorators[0]))
    return any(sup.suppresses(line, CODE) for line in lines)
