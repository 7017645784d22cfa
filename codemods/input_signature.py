"""RTF003 input-signature.

What it does
    With recorded traces (``--traces``), generalises every trace of a
    tf.function into one signature and injects it:
    ``input_signature=[tf.TensorSpec(shape=[None, 50], dtype=tf.float32), ...]``,
    in every spelling (``@tf.function`` becomes ``@tf.function(input_signature=[...])``,
    ``@tf.function(...)`` and ``tf.function(f, ...)`` get the keyword added,
    methods leave ``self`` out).  Per tensor parameter the spec keeps the common
    rank and dtype and puts ``None`` in every dimension that varied; a tensor
    whose *rank* varied gets ``shape=None``; ragged and sparse tensors get
    ``tf.RaggedTensorSpec`` / ``tf.SparseTensorSpec``; nested lists, tuples,
    dicts and namedtuples keep the container type that was recorded.  A Python
    int/float/bool becomes a scalar ``tf.TensorSpec`` of the first dtype that
    traced on the live function (int: int32, int64, float32; float: float32,
    float64; bool: bool), when the body only uses it as a tensor operand or as
    the bound of a ``range`` loop that is safe with a tensor bound (RTF001's
    loop analysis); a value that never varied is converted too when it has no
    default to pin, so that it does not block the signature.  A list or tuple
    of Python numbers of one type (floats, or ints within int32) whose values
    varied between calls (per-batch ``weights``, ``bounds`` computed in Python)
    becomes a 1-D ``tf.TensorSpec([n], tf.float32)`` (``tf.int32``): the
    signature converts the caller's list, so call sites stay as they are;
    unsafe at most, since the body then sees a tensor where it saw a list.  Trailing
    parameters with defaults that every call left alone stay pinned defaults.
    ``import tensorflow as tf`` is added when the module has no name for
    TensorFlow.  Functions that traced once are never touched, and neither are
    functions that retraced only while a calling tf.function was being traced
    (nested traces cost nothing once the caller's graph exists: fix the caller).

    When no signature is possible it says why, as an RTF003 diagnostic of one
    line naming the parameter that blocks it (the full explanation is the
    finding's ``reason``, in JSON and SARIF): a dtype that varies ("`x`: dtype
    varies (int32, float32) — cast at the call site"), a new object per call,
    a varying string, a ``tf.Variable``, a Python value the body uses as one
    (``tf.constant(n)``, ``int(n)``, ``n > 0``, ``xs[n]``, ``str(n)``, f-strings,
    ``np.*(n)``), a proof that failed on the live function (the error quoted),
    ``**kwargs`` used by callers, a keyword-only parameter without a default, a
    ``cls``/non-``self`` first parameter, or a static-shape read of a dimension
    that would become ``None`` (``x.shape[0]``, ``len(x)``,
    ``x.shape.as_list()``).  When the only thing that varied is tensor shapes,
    RTF004 adds ``reduce_retracing=True`` instead and this codemod stays silent.

    One problem, one finding: the call-site diagnostics RTF105 (dtype drift)
    and RTF103 (varying Python values) do not repeat, for the same parameter,
    what this finding reports from the traces (``--select RTF105`` alone
    still reports it).  Where no signature fits but the recorded call sites
    can pass the varying values as tensors, RTF005 (call-site-tensor) does it,
    and its finding at the def replaces this diagnostic (``--select RTF003``
    still shows it).

Why it retraces
    tf.function keys its graph cache on every argument's shape, dtype and
    Python value.  Each new batch size, sequence length or Python ``int``
    builds and optimises a new graph.  An ``input_signature`` with ``None`` in
    the varying dimensions (and scalar tensors for varying Python numbers)
    makes every recorded call fit one graph.

Example
    Before::

        model = tf.keras.Sequential([tf.keras.layers.Dense(1)])

        @tf.function
        def predict(x):
            return model(x, training=False)

        for batch in (16, 32, 64):
            predict(tf.random.normal([batch, 50]))

    After (with ``--traces`` recorded from that loop)::

        model = tf.keras.Sequential([tf.keras.layers.Dense(1)])

        @tf.function(input_signature=[tf.TensorSpec(shape=[None, 50], dtype=tf.float32)])
        def predict(x):
            return model(x, training=False)

        for batch in (16, 32, 64):
            predict(tf.random.normal([batch, 50]))

    The loop traced ``predict`` three times before, once after.

Fix safety
    safe only with a proof: at the end of the recording, the recorder built
    this exact signature and traced a fresh ``tf.function`` around the live
    Python function with it (``get_concrete_function``: traced, never run; the
    program's own functions and variables untouched), and it traced.  On top
    of the proof, the static checks still hold: the spec is the most specific
    common supertype of the recorded traces, the body reads no static size of
    a dimension that becomes ``None``, and converted Python scalars are only
    used as a ``range`` bound of a safe loop, in ``tf.range``/``tf.cast``, in
    arithmetic, as an argument TensorFlow converts to a tensor anyway (nested
    lists included: ``tf.gather_nd(x, [[n]])``), as an index of a tensor
    (``grid_sizes[dim]``, ``x[dim, ...]``, ``x[..., dim]``, where ``grid_sizes``
    was recorded as a tensor or is a TensorFlow op's result; never an index of
    a Python list), or in the indices of a ``tf.Variable`` bound once at module
    level or in ``__init__`` (``history.scatter_nd_update([[epoch]], [loss])``,
    ``self.history...``).
    unsafe (``--unsafe-fixes``) without a proof (a trace file recorded before
    proofs, a proof that could not run — the instance was gone, the time
    budget was spent — or code that changed since recording: the reason says
    "not proven on the live function"), and, even when proven, where a
    converted number feeds a division (a float64 tensor instead of a Python
    float), ``jit_compile`` (XLA needs the value at compile time) or a static
    size computed from it, and where the body reads a clock, draws a random
    number or changes Python state it does not own (``history.append(x)`` on a
    parameter) while tracing (RTF102: one draw per trace, so fewer traces change
    the results).  diagnostic when the proof failed: the signature
    raised on the live function (``tf.math.pow(x, k)`` with an int32 ``k``
    fails, so float32 is tried next; ``tf.constant(k)`` fails for every
    dtype), and where a converted number is passed to a function of the
    user's own project that the rewriter does not see into (``x +
    double(offset)``, ``double`` defined in another module): only a run can
    tell whether that function takes a tensor, so ``--verify`` tries the
    signature and the program's run keeps or drops it.  A proof shows the
    body *traces*; it does not show the results are the same, which is what
    the static checks (and ``bench``) are for.  In every tier, calls with
    shapes, dtypes or pinned values that were never recorded raise
    ``TypeError`` instead of retracing — record a representative run (see
    ``docs/trace-driven-fixes.md``).
    ``reduce_retracing`` is ignored once a signature exists.
"""

from __future__ import annotations

import libcst as cst

from retrace_fix.codemods._finding_text import clauses, joined, one_line, short_list
from retrace_fix.codemods._tf_function_edits import add_keyword, call_arg_indent, tf_spelling
from retrace_fix.codemods._traced_defs import TracedDefsCodemod
from retrace_fix.node_text import code_of
from retrace_fix.analysis import TfFunctionSite
from retrace_fix.findings import Tier
from retrace_fix.rules import Rule
from retrace_fix.traces.generalize import SignatureDecision, namedtuple_names, render_spec

RULE = Rule("RTF003", "input-signature", Tier.SAFE, doc=__doc__,
            summary="inject input_signature=[tf.TensorSpec(...)] generalised from recorded traces",
            # RTF005 converts the varying values at the call sites where no signature fits, or says why it
            # cannot: its finding at the def replaces this one's "no input_signature" diagnostic
            defers_to=("RTF005",),
)

KEYWORD = "input_signature"
#: longest decorator/call line (with its indentation) kept on one line
MAX_LINE = 88


class InputSignatureCommand(TracedDefsCodemod):
    RULES = (RULE,)
    ORDER = 20  # before RTF001, which reads the signature it adds
    NEEDS_TRACES = True

    # ------------------------------------------------------------------ traversal

    def visit_Module(self, node: cst.Module) -> bool:
        self._edits: dict[cst.CSTNode, cst.BaseExpression] = {}
        self._import_needed: str | None = None
        return super().visit_Module(node)

    def leave_Decorator(self, original_node: cst.Decorator, updated_node: cst.Decorator) -> cst.Decorator:
        value = self._edits.get(original_node)
        if value is None:
            return updated_node
        return updated_node.with_changes(decorator=add_keyword(updated_node.decorator, KEYWORD, value))

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        value = self._edits.get(original_node)
        if value is None:
            return updated_node
        return add_keyword(updated_node, KEYWORD, value)

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        if self._import_needed == "tf":
            self.add_needed_import("tensorflow", asname="tf")
        elif self._import_needed == "tensorflow":
            self.add_needed_import("tensorflow")
        return updated_node

    # ------------------------------------------------------------------ decisions

    def handle_traced(self, function: cst.FunctionDef, site: TfFunctionSite, plan: SignatureDecision, anchor: cst.CSTNode) -> None:
        if not plan.retraced or plan.already_signed:
            return  # traced once, or only while callers were traced (nothing at steady state)
        if self.call_sites_converted(plan.function):
            return  # RTF005 passes tensors at the call sites instead (its finding at the def says so)
        name = function.name.value
        count = f"`{name}` traced {plan.distinct_traces} times"
        if not plan.possible:
            if plan.shape_only:
                return  # only shapes varied: RTF004 adds reduce_retracing=True (or says what blocks it)
            explained = {text for texts in plan.loop_blocked.values() for text in texts}
            if all(text in explained for text in [*plan.problems, *plan.details]):
                return  # a step count blocked by its loop alone: RTF001 explains it at the loop
            self._refusal(anchor, function, plan, count)
            return
        tf_name, import_needed = self._tf_name()
        if tf_name is None:
            message = f"{count}: no name for TensorFlow is free in this module to write the signature with"
            self.report(anchor, message, Tier.DIAGNOSTIC, reason=message)
            return
        missing = sorted(n for _, spec in plan.specs for n in namedtuple_names(spec) if not self._module_binds(n))
        if missing:
            message = f"{count}: its signature needs the namedtuple class `{missing[0]}`, which this module does not define or import"
            self.report(anchor, message, Tier.DIAGNOSTIC, reason=message)
            return
        changes = short_list(plan.changes)
        message = f"{count} ({changes}): add an input_signature so it traces once" if changes else f"{count}: add an input_signature so it traces once"
        specs = ", ".join(f"{param}={render_spec(spec, tf_name)}" for param, spec in plan.specs)
        verifiable = bool(plan.unseen_reasons)
        if verifiable:  # a tensor into the project's own code: only a run of the program can prove it
            tier, reason = Tier.DIAGNOSTIC, "; ".join(plan.unseen_reasons + plan.unsafe_reasons)
            message = f"{count} ({changes}): an input_signature would make it trace once, but " \
                      f"{plan.unseen_reasons[0].split(', code of this project', 1)[0]}, project code retrace-fix " \
                      "does not see into: `retrace-fix --verify` can prove it"
        elif plan.unsafe_reasons:
            tier, reason = Tier.UNSAFE, "; ".join(plan.unsafe_reasons)
        else:
            tier = Tier.SAFE
            reason = (
                f"proven on the live function: a fresh tf.function around `{name}` traced with "
                f"input_signature ({specs or 'no parameters'})"
            )
            if plan.pinned:
                reason += f", {', '.join('`' + p + '`' for p in plan.pinned)} pinned to the default"
            reason += "; calls with other shapes, dtypes or pinned values now raise TypeError instead of retracing"
        if not self.report(anchor, message, tier, reason=reason, subjects=self._subjects(function, plan, message),
                           verifiable=verifiable):
            return
        self._edits[anchor] = self._signature_value(plan, tf_name, anchor)
        if import_needed:
            self._import_needed = tf_name

    def _refusal(self, anchor: cst.CSTNode, function: cst.FunctionDef, plan: SignatureDecision, count: str) -> None:
        """One line naming the parameter that blocks the signature (and what to do); everything in ``reason``."""
        parts = clauses(plan)
        lead = next((text for _, text, blocking in parts if blocking), None) or (parts[0][1] if parts else "no input_signature fits")
        rest = len(parts) - 1
        message = f"{count}: {lead}" + (f" (+{rest} more)" if rest > 0 else "")
        reason = f"{count}; no input_signature: " + joined([*(text for _, text, _ in parts), *plan.notes])
        relax = plan.relax
        if relax is not None and relax.status in ("traced", "unproven") and plan.shape_varies:
            reason += "; reduce_retracing=True folds the shape part (RTF004)"
        subjects = (*self._subjects(function, plan, reason), self.subject("function", function, ""))
        self.report(anchor, one_line(message), Tier.DIAGNOSTIC, reason=reason, subjects=subjects)

    # ------------------------------------------------------------------ helpers

    def _subjects(self, function: cst.FunctionDef, plan: SignatureDecision, message: str) -> tuple:
        """What varied and the message names: the call-site diagnostics (RTF103 Python values,
        RTF105 dtypes) defer to this finding (:attr:`retrace_fix.rules.Rule.defers_to`)."""
        return tuple(self.subject(kind, function, param) for kind, param in plan.varied if f"`{param}`" in message)

    def _module_binds(self, name: str) -> bool:
        table = self.analysis.table
        return name in table.aliases or name in table.rebound

    def _tf_name(self) -> tuple[str | None, bool]:
        """(how to spell ``tensorflow`` here, whether an import must be added)."""
        return tf_spelling(self.analysis.table)

    def _signature_value(self, plan: SignatureDecision, tf_name: str, anchor: cst.CSTNode) -> cst.BaseExpression:
        specs = plan.render(tf_name)
        one_line = "[" + ", ".join(specs) + "]"
        current = anchor.decorator if isinstance(anchor, cst.Decorator) else anchor
        arg_indent = call_arg_indent(current)
        if arg_indent is not None:  # one argument per line: the new one gets its own line
            length = len(arg_indent) + self.analysis.column_of(anchor) + len(KEYWORD) + len(one_line) + 2
        else:
            length = self.analysis.column_of(anchor) + len(code_of(current)) + len(KEYWORD) + len(one_line) + 4
        if length <= MAX_LINE or not specs:
            return cst.parse_expression(one_line)
        outer = arg_indent or ""
        return cst.parse_expression("[\n" + "".join(f"{outer}    {spec},\n" for spec in specs) + f"{outer}]")
