"""RTF004 reduce-retracing.

What it does
    Renames the deprecated ``experimental_relax_shapes=`` keyword of
    ``tf.function`` to ``reduce_retracing=`` in every spelling: ``@tf.function(...)``,
    ``tf.function(f, ...)``, ``tf.function(...)(f)`` and aliases such as
    ``from tensorflow import function as tfn``.  With recorded traces
    (``--traces``) it also adds ``reduce_retracing=True`` where the traces show
    shape-only retracing that an ``input_signature`` cannot fix.

Why it retraces
    Without relaxation, every new input shape builds a new graph.
    ``reduce_retracing=True`` makes TensorFlow generalise the differing dimensions
    to ``None`` on the second shape, so later shapes reuse that graph.
    ``experimental_relax_shapes`` is the old name of the same switch and is
    deprecated.

Example
    Before::

        @tf.function(experimental_relax_shapes=True)
        def step(x):
            return tf.reduce_sum(x)

    After::

        @tf.function(reduce_retracing=True)
        def step(x):
            return tf.reduce_sum(x)

    Trace-driven (``--traces``): a function whose recorded traces differ in
    tensor shapes, but for which no ``input_signature`` is possible — typically
    ``train_step(x, y, model, optimizer, loss_fn)`` called with the same model
    and optimizer every step, a parameter that never varies but is used as a
    Python value, or a ``MirroredStrategy`` step whose argument is a
    ``PerReplica`` value — gets ``reduce_retracing=True``; the finding names the
    parameter that blocks the signature.  It is also the partial fix when
    Python values vary too (the shape part): offered when some values recur
    with several shapes, so that relaxing folds traces.  Never where the
    function traced once (or only inside a caller's trace), never where RTF003
    can inject a signature (TensorFlow ignores ``reduce_retracing`` once there
    is one), never where
    ``reduce_retracing``/``experimental_relax_shapes``/``input_signature`` is
    already given.  When the body reads a static size of a dimension that
    varied (``x.shape[0]``, ``len(x)``, ``x.shape.as_list()``) it is a
    diagnostic instead: on the generalised trace that size is ``None``.
    Where RTF005 (call-site-tensor) passes the varying Python values as
    tensors at the call sites, it is added on top when relaxing the converted
    traces folds more (a float next to a model, three batch sizes per value:
    6 traces, 3 with the conversion, 2 with both), proven on the converted
    arguments with relaxed shapes.

    Before::

        model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        optimizer = tf.keras.optimizers.SGD()

        @tf.function
        def train_step(x, y, model, optimizer):
            ...

        for batch in (10, 20, 10, 30):
            train_step(tf.zeros([batch, 4]), tf.zeros([batch]), model, optimizer)

    After (with ``--traces`` recorded from that loop)::

        model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        optimizer = tf.keras.optimizers.SGD()

        @tf.function(reduce_retracing=True)
        def train_step(x, y, model, optimizer):
            ...

        for batch in (10, 20, 10, 30):
            train_step(tf.zeros([batch, 4]), tf.zeros([batch]), model, optimizer)

    The loop traced ``train_step`` three times before (batch sizes 10, 20 and
    30), twice after (the second shape is generalised and serves the third).

Fix safety
    safe.  The rename is an exact alias: TensorFlow maps one keyword onto the
    other.  When both keywords are already present the site is reported as a
    diagnostic and left alone (TensorFlow would reject or ignore one of them).

    The trace-driven ``reduce_retracing=True`` is safe with a proof: at the
    end of the recording, a fresh ``tf.function`` around the live function
    traced with the relaxed shapes (``None`` where a dimension varied, the
    other arguments as recorded), and the body has no static-shape read of
    those dimensions.  Then the first trace stays exact, later shapes reuse
    the relaxed trace, and every call still gets a graph (nothing is
    rejected); the objects and Python values still key the cache as before.
    unsafe (``--unsafe-fixes``) without a proof: a trace file recorded before
    proofs, an argument object or instance no longer alive at the end of the
    program, the time budget spent (the reason says which); and where the body
    reads a clock, draws a random number or changes Python state it does not
    own while tracing (RTF102: one draw per
    trace, so fewer traces change the results).  diagnostic when
    the proof failed (the relaxed trace raised, for instance a helper that
    reads a static dimension): the error is quoted.
"""

from __future__ import annotations

import re

import libcst as cst

from retrace_fix.codemods._finding_text import MAX_MESSAGE, clauses, joined, one_line, short_list
from retrace_fix.codemods._source_info import site_keywords
from retrace_fix.codemods._tf_function_edits import add_keyword
from retrace_fix.codemods._traced_defs import TracedDefsCodemod
from retrace_fix.analysis import TfFunctionSite
from retrace_fix.findings import Tier
from retrace_fix.rules import Rule
from retrace_fix.traces.generalize import SignatureDecision

RULE = Rule("RTF004", "reduce-retracing", Tier.SAFE, doc=__doc__,
            summary="use reduce_retracing=True (rename experimental_relax_shapes; add it where traces show shape-only retracing)")

OLD_KEYWORD = "experimental_relax_shapes"
NEW_KEYWORD = "reduce_retracing"
_OLD_KEYWORD_PASSED = re.compile(rf"\b{OLD_KEYWORD}\s*=(?!=)")


class ReduceRetracingCommand(TracedDefsCodemod):
    RULES = (RULE,)
    ORDER = 40  # after RTF003: it adds reduce_retracing only where no signature fits
    TRIGGERS = (OLD_KEYWORD.encode(),)
    NEEDS_WHOLE_MODULE = False  # reads the rest of the module by name only

    @classmethod
    def likely_to_edit(cls, outline) -> bool:
        """The deprecated keyword passed (``experimental_relax_shapes=``): renamed where the call is a tf.function."""
        return _OLD_KEYWORD_PASSED.search(outline.text) is not None

    # ------------------------------------------------------------------ trace-driven

    def visit_Module(self, node: cst.Module) -> bool:
        self._edits: set[cst.CSTNode] = set()
        return super().visit_Module(node)

    def handle_traced(self, function: cst.FunctionDef, site: TfFunctionSite, plan: SignatureDecision, anchor: cst.CSTNode) -> None:
        converted = self.call_sites_converted(plan.function)
        if converted is not None:  # RTF005 passes tensors at the call sites: relax the converted traces
            self._after_call_sites(function, site, converted, anchor)
            return
        if not plan.retraced or plan.already_signed or plan.possible:
            return  # traced once / only nested / RTF003 injects a signature
        relax = plan.relax
        if relax is None or relax.status == "none" or not plan.shape_varies:
            return  # no group of traces differs in shapes alone: reduce_retracing would fold nothing
        if not plan.shape_only and relax.candidate is not None and relax.candidate.saves == 0:
            return  # the values that vary dominate: on the recorded run relaxing would have saved nothing
        keywords = site_keywords(site)
        if {"input_signature", NEW_KEYWORD, OLD_KEYWORD} & set(keywords):
            return
        name = function.name.value
        changes = short_list(plan.changes) or "shapes vary"
        alone = "on tensor shapes alone" if plan.shape_only else "partly on tensor shapes"
        head = f"`{name}` traced {plan.distinct_traces} times {alone} ({changes})"
        parts = clauses(plan)
        explained = f"{head}; no input_signature: " + joined([*(text for _, text, _ in parts), *plan.notes])
        if plan.static_blockers:
            message = f"`{name}` traced {plan.distinct_traces} times {alone}, but {plan.static_blockers[0]}"
            reason = f"{explained}; after that, {NEW_KEYWORD}=True or an input_signature removes the retraces"
            self.report(anchor, one_line(message), Tier.DIAGNOSTIC, reason=reason)
            return
        blockers = [(param, text) for param, text, blocking in parts if blocking]
        who = blockers[0][0] if blockers else None
        why = f"`{who}` blocks an input_signature" if who else "no input_signature fits"
        if who is not None and plan.outcomes is not None and getattr(plan.outcomes.layout.summaries.get(who), "kind", None) == "per_replica":
            why = f"`{who}` is a PerReplica value (no input_signature can name it)"
        if relax.status == "failed" and not plan.rewritten:
            message = f"{head}, but with relaxed shapes tracing fails: {relax.error}"
            self.report(anchor, one_line(message), Tier.DIAGNOSTIC, reason=f"{explained}; {NEW_KEYWORD}=True was tried on the live function and failed: {relax.error}")
            return
        message = f"{head}: {why}; add {NEW_KEYWORD}=True"
        if len(message) > MAX_MESSAGE:  # one line: the dimensions that varied are in the reason
            message = f"`{name}` traced {plan.distinct_traces} times {alone}: {why}; add {NEW_KEYWORD}=True"
        message = one_line(message)
        draws = plan.source.facts.draws_note() if plan.source is not None else None
        if plan.rewritten:  # the proof, traced or failed, was made on the body before this run rewrote it
            tier, reason = Tier.UNSAFE, plan.rewritten
        elif relax.status == "traced" and not draws:
            tier = Tier.SAFE
            reason = f"{explained}; proven on the live function: a fresh tf.function traced with the relaxed shapes"
            if not plan.shape_only:
                reason += " (the values that vary still retrace, each once per shape)"
        else:
            tier, reason = Tier.UNSAFE, draws or relax.note or "not proven on the live function"
        if self.report(anchor, message, tier, reason=reason):
            self._edits.add(anchor)

    def _after_call_sites(self, function: cst.FunctionDef, site: TfFunctionSite, decision, anchor: cst.CSTNode) -> None:
        """``reduce_retracing=True`` on top of RTF005's call-site conversion, when relaxing the converted
        traces folds more (proven on the live function with the converted arguments and relaxed shapes)."""
        if decision.relax not in ("traced", "unproven"):
            return  # the conversion alone leaves nothing for reduce_retracing to fold
        if {"input_signature", NEW_KEYWORD, OLD_KEYWORD} & set(site_keywords(site)):
            return
        params = ", ".join(f"`{c.param}`" for c in decision.conversions)
        message = one_line(
            f"`{function.name.value}` traced {decision.before} times, partly on tensor shapes: with {params} passed "
            f"as tensors (RTF005), add {NEW_KEYWORD}=True ({decision.before} → {decision.relax_after} traces)"
        )
        if decision.relax == "traced" and not decision.draws:
            tier = Tier.SAFE
            reason = (
                f"proven on the live function: a fresh tf.function traced with {params} converted as at the call "
                "sites and the shapes relaxed as reduce_retracing generalises them"
            )
        else:
            tier, reason = Tier.UNSAFE, decision.draws or decision.relax_note or "not proven on the live function"
        if self.report(anchor, message, tier, reason=reason):
            self._edits.add(anchor)

    def leave_Decorator(self, original_node: cst.Decorator, updated_node: cst.Decorator) -> cst.Decorator:
        if original_node not in self._edits:
            return updated_node
        return updated_node.with_changes(decorator=add_keyword(updated_node.decorator, NEW_KEYWORD, cst.Name("True")))

    # ------------------------------------------------------------------ rename

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        if original_node in self._edits:
            return add_keyword(updated_node, NEW_KEYWORD, cst.Name("True"))
        if not self.scope.is_tf_function(original_node.func):
            return updated_node
        keywords = {arg.keyword.value for arg in original_node.args if arg.keyword is not None}
        if OLD_KEYWORD not in keywords:
            return updated_node
        if NEW_KEYWORD in keywords:
            self.report(
                original_node,
                f"`{OLD_KEYWORD}` and `{NEW_KEYWORD}` are both given; remove `{OLD_KEYWORD}`",
                Tier.DIAGNOSTIC,
            )
            return updated_node
        if not self.report(
            original_node,
            f"`{OLD_KEYWORD}` is the deprecated name of `{NEW_KEYWORD}`",
            Tier.SAFE,
        ):
            return updated_node
        return updated_node.with_changes(
            args=[
                arg.with_changes(keyword=cst.Name(NEW_KEYWORD))
                if arg.keyword is not None and arg.keyword.value == OLD_KEYWORD
                else arg
                for arg in updated_node.args
            ]
        )
