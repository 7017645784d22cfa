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

    Trace-driven (``--traces``): a function whose recorded traces differ only in
    tensor shapes (same dtypes, same Python values, the same objects), but for
    which no ``input_signature`` is possible — typically
    ``train_step(x, y, model, optimizer, loss_fn)`` called with the same model
    and optimizer every step — gets ``reduce_retracing=True``.  Never where the
    function traced once, never where RTF003 can inject a signature (TensorFlow
    ignores ``reduce_retracing`` once there is one), never where
    ``reduce_retracing``/``experimental_relax_shapes``/``input_signature`` is
    already given.  When the body reads a static size of a dimension that
    varied (``x.shape[0]``, ``len(x)``, ``x.shape.as_list()``) it is a
    diagnostic instead: on the generalised trace that size is ``None``.

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

    The trace-driven ``reduce_retracing=True`` is safe: the first trace stays
    exact, later shapes reuse a trace whose varying dimensions are ``None``, and
    every call still gets a graph (nothing is rejected).  The body was checked
    for static-shape reads of those dimensions; the objects and Python values
    that were recorded constant still key the cache as before.
"""

from __future__ import annotations

import libcst as cst

from retrace_fix.codemods._base import RetraceCodemod
from retrace_fix.codemods._trace_plan import add_keyword, plans, site_keywords
from retrace_fix.analysis import TfFunctionSite
from retrace_fix.findings import Tier
from retrace_fix.rules import Rule
from retrace_fix.traces.generalize import SignaturePlan

RULE = Rule(
    code="RTF004",
    name="reduce-retracing",
    tier=Tier.SAFE,
    summary="use reduce_retracing=True (rename experimental_relax_shapes; add it where traces show shape-only retracing)",
    doc=__doc__,
    golden="reduce-retracing",
)

OLD_KEYWORD = "experimental_relax_shapes"
NEW_KEYWORD = "reduce_retracing"


class ReduceRetracingCommand(RetraceCodemod):
    RULES = (RULE,)
    ORDER = 40  # after RTF003: it adds reduce_retracing only where no signature fits
    TRIGGERS = (OLD_KEYWORD.encode(),)
    NEEDS_WHOLE_MODULE = False  # reads the rest of the module by name only

    # ------------------------------------------------------------------ trace-driven

    def visit_Module(self, node: cst.Module) -> bool:
        self._plans = plans(self) if self.settings.traces is not None else {}
        self._edits: set[cst.CSTNode] = set()
        self._wrap_sites: dict[cst.Call, tuple[cst.FunctionDef, TfFunctionSite]] = {}
        for function, site in self.analysis.tf_functions.items():
            if site.form == "wrap-call" and function in self._plans and site.call is not None:
                self._wrap_sites[site.call] = (function, site)
        return True

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        super().visit_FunctionDef(node)
        plan = self._plans.get(node)
        site = self.tf_site(node)
        if plan is not None and site is not None and site.form != "wrap-call" and site.decorator is not None:
            self._handle_traces(node, site, plan, site.decorator)
        return True

    def visit_Call(self, node: cst.Call) -> bool:
        entry = self._wrap_sites.get(node)
        if entry is not None:
            function, site = entry
            sup = self.analysis.suppressions
            if not (sup.by_line and sup.suppresses(self.analysis.line_of(function.name), self.CODE)):
                self._handle_traces(function, site, self._plans[function], node)
        return True

    def _handle_traces(self, function: cst.FunctionDef, site: TfFunctionSite, plan: SignaturePlan, anchor: cst.CSTNode) -> None:
        if not plan.shape_only or not plan.shape_varies or plan.already_signed or plan.possible:
            return  # traced once / not only shapes (RTF003 says why) / RTF003 injects a signature
        keywords = site_keywords(site)
        if {"input_signature", NEW_KEYWORD, OLD_KEYWORD} & set(keywords):
            return
        name = function.name.value
        changes = "; ".join(plan.changes) or "shapes vary"
        head = f"`{name}` traced {plan.distinct_traces} times on tensor shapes alone ({changes})"
        if plan.static_blockers:
            self.report(
                anchor,
                f"{head}, but " + "; ".join(plan.static_blockers)
                + f"; after that, {NEW_KEYWORD}=True or an input_signature removes the retraces",
                Tier.DIAGNOSTIC,
            )
            return
        why = plan.refusals[0] if plan.refusals else "no input_signature is possible"
        if self.report(anchor, f"{head} and no input_signature fits ({why}): add {NEW_KEYWORD}=True", Tier.SAFE):
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
