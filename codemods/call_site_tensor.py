"""RTF005 call-site-tensor.

What it does
    With recorded traces (``--traces``), rewrites the recorded call sites of a
    tf.function -- in any module of the project -- so that the Python numbers
    that varied arrive as tensors, ``f(x, tf.constant(lr, dtype=tf.float32))``,
    and tensors whose dtype drifted arrive cast to one dtype,
    ``f(tf.cast(obs, tf.float32))``.  It acts where RTF003 cannot write an
    ``input_signature`` (another parameter is a Keras model, an optimizer, a
    string or an object; a dtype drifts; a value that never varied is needed
    as a Python value), or only one without a proof while the conversion has
    one.  A parameter left at its default at some calls gets the default
    passed explicitly (``lr=tf.constant(0.1, dtype=tf.float32)``) when it is a
    literal.

    A body that converts its own parameter (``tf.constant(i) + tf.constant(i)``
    of a Python step counter) cannot take a tensor as it is: ``tf.constant``
    refuses a symbolic tensor.  Then the call sites are rewritten together
    with the body: ``tf.constant(i)`` becomes ``tf.convert_to_tensor(i)`` and
    ``tf.constant(i, D)`` becomes ``tf.cast(i, D)`` (a Python int or bool
    only), which give the same tensor for a Python value and accept the
    tensor the call sites now pass.  Only the bare parameter as the value is
    rewritten (``tf.constant(i + 1)``, ``shape=`` are left alone), and only
    when every other use of it is safe with a tensor.

    Every recorded call site of the function is rewritten, or none: a call
    that cannot be (the file is not part of the run, the code changed since
    recording and the call is not at the recorded position, the value comes
    through ``*args``/``**kwargs``, the function is called through a variable,
    ``partial`` or library code, a ``# retrace-fix: ignore`` comment) is named
    in a diagnostic at the ``def``, and nothing is edited.  The finding is
    reported once at the ``def`` (what varied, how many traces before and
    after) and at each call site it rewrites.  With RTF004 it also proves
    ``reduce_retracing=True`` on the converted traces, for the shapes that
    still vary.

    Left alone: functions that traced once or only inside a caller's trace,
    functions RTF003 gives a signature, step counts RTF001 converts, a Python
    ``bool`` flag that is the only thing that varies (two graphs, usually on
    purpose), a ``training`` flag (``is_training``, ``train``) when it is the
    only value that could be converted, and values the body needs as Python values (``int(n)``,
    ``tf.constant(n)`` without the proof above, ``range`` bounds of unsafe
    loops, an index of a Python list such as ``heads[index](x)``, a method of an
    object not provably one ``tf.Variable``: RTF003's diagnostic says so).  An
    index of a tensor (``grid_sizes[dim]``) and the indices of a ``tf.Variable``
    bound once at module level or in ``__init__`` (``history.scatter_nd_update([[epoch]], ...)``)
    take the scalar int32 tensor as they take the Python int.

Why it retraces
    tf.function keys its graph cache on the *value* of every Python number and
    on the dtype of every tensor: ``step(model, x, 0.1)`` and ``step(model, x,
    0.2)`` are two graphs, and so are a float64 NumPy array and a float32
    tensor.  A scalar tensor of one dtype is keyed by its dtype and shape only,
    so every value shares one graph.  When a signature is impossible (a model
    argument), converting at the call site is the fix TensorFlow's guide
    recommends.

Example
    Before::

        model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(4)])

        @tf.function
        def langevin_step(model, x, alpha):
            return x + alpha * model(x)

        x = tf.ones([2, 4])
        for alpha in (0.1, 0.01, 0.001):
            x = langevin_step(model, x, alpha)

    After (with ``--traces`` recorded from that loop)::

        model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(4)])

        @tf.function
        def langevin_step(model, x, alpha):
            return x + alpha * model(x)

        x = tf.ones([2, 4])
        for alpha in (0.1, 0.01, 0.001):
            x = langevin_step(model, x, tf.constant(alpha, dtype=tf.float32))

    The loop traced ``langevin_step`` three times before, once after.

Fix safety
    safe only with a proof and a body that treats the tensor as it treated the
    Python value.  The proof: at the end of the recording, a fresh
    ``tf.function`` around the live Python function traced with exactly these
    parameters as tensors of the dtype chosen (int: int32, int64, float32;
    float: float32, float64; bool: bool; a drifting dtype: float32 first) and
    every other argument as recorded.  The body: the value is only used in
    arithmetic with tensors, as an argument TensorFlow converts anyway, in
    ``tf.range``/``tf.cast``, ``variable.assign(...)``, or not at all (RTF003's
    checks); a drifting tensor is only fed to a Keras model (which casts its
    inputs) or to ``tf.cast`` to the same dtype.  The body's own
    ``tf.constant(i)`` calls: the proof traced them as the conversions they
    become -- the trial patches ``tf.constant`` to convert exactly the
    parameter's tensor (compared by identity; any other tensor still raises,
    so a computed ``tf.constant(i + 1)`` fails the proof), which is the
    rewritten body; a recording made before this proof existed keeps the
    diagnostic.  A Python float becomes
    float32, as TensorFlow made it at its first op anyway (the reason says so).
    A Python ``bool`` tested by ``if flag:`` / ``a if flag else b`` becomes a
    ``tf.cond``: both branches are traced into one graph and the branch is
    picked at run time.  That is safe when the proof traced the body with the
    flag as a bool tensor (AutoGraph's ``tf.cond`` refuses branches of another
    structure or dtype, so a proof that traced shows they agree) and no branch
    has a Python side effect (``print``, ``list.append``, an assignment to an
    attribute, an item or a global: it would now run for the branch not taken
    too).  A bool flag that is the only thing that varied (at most two
    graphs, often on purpose) gets a finding only when its fix is safe so.
    unsafe (``--unsafe-fixes``) without a proof (an old trace file, a proof that
    could not run), where the body branches on the value in Python and the
    branch is not proven (no proof, a ``while`` on the value, a branch with a
    Python side effect, or a flag named like ``training`` that selects
    training-mode behaviour -- two graphs on purpose), where a cast changes what the body computes (float64
    data used by float ops), where only part of the varying values can be
    converted (the recording proved them all together), where calls of the function in the files read were not
    recorded (they may still pass Python values), or where the body reads a
    clock, draws a random number or changes Python state it does not own
    (``tracker.calls += 1``) while tracing (RTF102: one draw per trace,
    so fewer traces change the results).  diagnostic when the proof
    failed (the error is quoted) or a recorded call site cannot be rewritten
    (named).  Calls from code outside the run keep passing Python values and
    keep working.
"""

from __future__ import annotations

import libcst as cst

from retrace_fix.codemods._base import RetraceCodemod
from retrace_fix.codemods._own_constants import own_constants, rewritten
from retrace_fix.codemods._call_site_decision import build_plan
from retrace_fix.codemods._call_site_edits import site_edits
from retrace_fix.codemods._call_site_matching import module_for
from retrace_fix.codemods._call_site_records import EDIT, CallSitePlan, Decision
from retrace_fix.codemods._tf_function_edits import add_keyword, tf_spelling
from retrace_fix.codemods._traced_functions import traced_functions
from retrace_fix.findings import Tier
from retrace_fix.tfnames import Scope
from retrace_fix.rules import Rule
from retrace_fix.traces.signature_candidates import FIX_SCALAR

RULE = Rule("RTF005", "call-site-tensor", Tier.SAFE, doc=__doc__, summary=(
                "at the call sites recorded in traces, pass varying Python scalars (or drifting dtypes) as "
                "tf.constant(v, dtype) / tf.cast where no input_signature fits"
            ))


class CallSiteTensorCommand(RetraceCodemod):
    RULES = (RULE,)
    #: first of all: the recorded call positions are positions in the file as it is, before any edit
    ORDER = 5
    TRIGGERS = (b"(",)
    REQUIRES_TF_FUNCTION = False  # a call site may sit in a module that never names tf.function
    NEEDS_TRACES = True

    def visit_Module(self, node: cst.Module) -> bool:
        self._edits: dict[cst.Call, list] = {}
        self._body_edits: dict[cst.Call, object] = {}  # the def's tf.constant(param) -> OwnConstant
        self._tf_name: str | None = None
        plan: CallSitePlan | None = self.settings.call_sites
        relpath = self.settings.relpath
        if plan is None and self.settings.traces is not None and relpath:
            # run on its own (``python -m libcst.tool codemod``): this file is the whole run, so its
            # functions' call sites in other files are named, not rewritten
            plan = build_plan({relpath: node.code}, self.settings.traces)
        if plan is None or not relpath:
            return False
        defined = plan.defined_in(relpath)
        if defined:
            self._report_defs(defined)
        editing = plan.editing(relpath)
        if editing:
            self._plan_sites(editing, relpath)
        return bool(self._edits or self._body_edits)

    # ------------------------------------------------------------------ the def

    def _report_defs(self, decisions: list[Decision]) -> None:
        by_key = {decision.key: decision for decision in decisions}
        for node, function in traced_functions(self).items():
            decision = by_key.get(function.key)
            if decision is None:
                continue
            site = self.analysis.tf_functions.get(node)
            anchor: cst.CSTNode = node
            if site is not None and site.form == "wrap-call" and site.call is not None:
                anchor = site.call
            elif site is not None and site.decorator is not None:
                anchor = site.decorator
            applied = self.report(anchor, decision.message, decision.tier, reason=decision.reason,
                                  subjects=decision.subjects, verifiable=decision.verifiable)
            if applied and decision.own_constants and decision.tier is not Tier.DIAGNOSTIC:
                self._plan_body(node, decision.own_constants)

    def _plan_body(self, node: cst.FunctionDef, params: tuple) -> None:
        """The body's ``tf.constant(param)`` calls, rewritten with the call sites (``_own_constants``)."""
        tf_name, import_needed = tf_spelling(self.analysis.table)
        if tf_name is None:
            return
        for param, python_type in params:
            found = own_constants(node, param, python_type, Scope(self.analysis.table))
            if isinstance(found, str):
                continue  # cannot happen: the plan was made from this text
            for item in found:
                self._body_edits[item.call] = item
        self._body_tf = tf_name

    # ------------------------------------------------------------------ the call sites

    def _plan_sites(self, decisions: list[Decision], relpath: str) -> None:
        text = self.settings.source_text if self.settings.source_text is not None else self.analysis.module.code
        parsed = module_for(relpath, text, self.analysis.module, self.analysis)
        tf_name, import_needed = tf_spelling(self.analysis.table)
        for decision in decisions:
            for site in decision.sites_in(relpath):
                match = site_edits(parsed, site.line, site.column, decision.callee, decision.conversions)
                if match.status != EDIT or match.call is None or tf_name is None:
                    continue  # cannot happen: the plan was made from this text
                if not self.report(match.call, decision.site_message, decision.tier, reason=decision.reason,
                                   subjects=decision.subjects[1:], verifiable=decision.verifiable):
                    continue
                self._edits.setdefault(match.call, []).extend(match.edits)
                self._tf_name = tf_name
                if import_needed:
                    self._import = tf_name

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        own = self._body_edits.get(original_node)
        if own is not None:
            return rewritten(own, self._body_tf)
        edits = self._edits.get(original_node)
        if not edits:
            return updated_node
        tf_name = self._tf_name
        wraps = {id(arg): conversion for conversion, action, arg in edits if action == "wrap"}
        args = [
            arg.with_changes(value=_converted(arg.value, wraps[id(original)], tf_name)) if id(original) in wraps else arg
            for original, arg in zip(original_node.args, updated_node.args)
        ]
        result = updated_node.with_changes(args=args)
        for conversion, action, default in edits:
            if action == "add":
                value = _converted(cst.parse_expression(default), conversion, tf_name)
                result = add_keyword(result, conversion.param, value)
        return result

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        name = getattr(self, "_import", None)
        if name == "tf":
            self.add_needed_import("tensorflow", asname="tf")
        elif name == "tensorflow":
            self.add_needed_import("tensorflow")
        return updated_node


def _converted(value: cst.BaseExpression, conversion, tf_name: str) -> cst.Call:
    """``tf.constant(value, dtype=tf.float32)`` / ``tf.cast(value, tf.float32)``."""
    dtype = cst.Attribute(value=cst.Name(tf_name), attr=cst.Name(conversion.dtype))
    comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    if conversion.kind == FIX_SCALAR:
        return cst.Call(
            func=cst.Attribute(value=cst.Name(tf_name), attr=cst.Name("constant")),
            args=[
                cst.Arg(value=value, comma=comma),
                cst.Arg(
                    value=dtype,
                    keyword=cst.Name("dtype"),
                    equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")),
                ),
            ],
        )
    return cst.Call(
        func=cst.Attribute(value=cst.Name(tf_name), attr=cst.Name("cast")),
        args=[cst.Arg(value=value, comma=comma), cst.Arg(value=dtype)],
    )
