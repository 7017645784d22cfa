"""RTF001 range-to-tf-range.

What it does
    Inside a tf.function (any spelling, nested functions included), rewrites
    ``for i in range(args)`` to ``for i in tf.range(args)`` - but only where the
    loop bound is, or becomes, a tensor *and* the loop body is provably safe for
    a tensor loop variable:

    * the bound is a TensorFlow value: ``range(tf.shape(x)[0])``, a name
      assigned from a TF op, a parameter whose recorded traces (``--traces``)
      are all tensors, or a parameter with a ``tf.TensorSpec`` slot in the
      function's ``input_signature`` (including one the input-signature
      codemod, RTF003, has just added); or
    * the bound is an integer *parameter* that this module passes as varying
      Python ints (``train(x, 10)``, ``train(x, 20)``; ``for steps in [...]:
      train(x, steps)``; or traces showing several int values), every use of
      that parameter is such a loop bound, and every call site in the module
      passes a Python int.  Then the loops become ``tf.range`` loops *and* those
      call sites pass ``tf.constant(<value>)``, so the step count is a tensor
      and all of them share one trace.

    The body must pass :func:`retrace_fix.codemods._loop_safety.loop_blockers`: ``i`` is
    never a Python list/tuple/dict index or slice, never in a Python
    ``if``/``while``/``and``/``or``/``not`` test, f-string or ``str()``, never
    mixed with Python floats or values of unknown dtype (``x * i``) or divided
    with ``/``; the body has no ``.append``/``.extend``/``+=`` on Python lists,
    no item or attribute writes, no ``tf.Variable`` or Keras object creation,
    no ``print``/``logging``/``time``/``random`` side effects, no calls into
    Python code the analysis cannot see, no ``break``/``continue``/``return``/
    ``for ... else``, and no loop-carried value that starts as a Python number,
    ``None`` or container, grows (``tf.concat([x, y], 0)``), or is first bound
    inside the loop and read after it.

    Where a step-count parameter causes retracing but a blocker remains, the
    loop is reported as a diagnostic naming the blocking line; RTF103 (varying
    Python arguments) does not repeat at the call sites what this codemod fixes
    or explains (one problem, one finding; ``--select RTF103`` still reports
    it).  A loop that appends to a Python list and stacks it is RTF007's
    (list-loop-to-tensor-array): it rewrites it into a ``tf.TensorArray``
    graph loop or says why not, and this code's diagnostic about the same step
    count is dropped.  Loops over literals and constants (``range(3)``,
    ``range(NUM_LAYERS)``), ``len()`` of Python lists and static shapes
    (``range(x.shape[0])``) are left alone without a word: they are unrolled
    on purpose and do not retrace.  If the
    module has no name for TensorFlow, ``import tensorflow as tf`` is added
    (only when ``tf`` is unbound).

Why it retraces
    ``for i in range(n)`` with a Python int ``n`` is unrolled while tracing,
    and ``n`` itself is part of the trace key: ``train(x, 10)``, ``train(x,
    20)`` and ``train(x, 30)`` build three graphs, each ``n`` copies of the
    body.  ``tf.range(n)`` alone does not help (``tf.range(python_int)`` still
    traces once per value); ``n`` must arrive as a tensor.  A tensor ``n`` with
    ``for i in tf.range(n)`` is one ``tf.while_loop`` whose trip count is
    chosen at run time: one trace for every step count.

Example
    Before::

        @tf.function
        def train(x, num_steps):
            total = tf.zeros([])
            for i in range(num_steps):
                total += tf.reduce_sum(x) * 0.1
            return total

        for steps in [10, 20, 30]:
            train(x, steps)

    After::

        @tf.function
        def train(x, num_steps):
            total = tf.zeros([])
            for i in tf.range(num_steps):
                total += tf.reduce_sum(x) * 0.1
            return total

        for steps in [10, 20, 30]:
            train(x, tf.constant(steps))

Fix safety
    safe, per site, because every rewrite comes with a proof: AutoGraph already
    turns ``range(<tensor>)`` into ``tf.range`` (so a tensor bound changes
    nothing but the spelling), and a step-count parameter is only converted
    when it is used nowhere but as the bound of loops whose bodies passed the
    checks above, so the loop computes the same values as a graph loop.  Calls
    from other modules keep passing Python ints and keep working.  Functions
    with ``autograph=False`` are never touched.  Suppress a loop with
    ``# retrace-fix: ignore[RTF001]`` on its line (its call sites are then left
    alone too).  Where the only blockers are what the analysis cannot see (a
    call into project code or Keras, a value of unknown type carried by the
    loop), the loop stays a diagnostic; ``retrace-fix --verify`` tries the
    rewrite anyway and keeps it only if the user's program then prints the
    same results and traces less.
"""

from __future__ import annotations

import libcst as cst
from libcst.codemod.visitors import AddImportsVisitor

from retrace_fix.codemods._base import RetraceCodemod
from retrace_fix.codemods._callsites import CachedScope, ModuleCalls
from retrace_fix.codemods._range_decider import RangeDecider
from retrace_fix.codemods._tree_facts import tree_facts
from retrace_fix.findings import Tier
from retrace_fix.rules import Rule

RULE = Rule("RTF001", "range-to-tf-range", Tier.SAFE, doc=__doc__, summary=(
                "for i in range(n) -> tf.range(n) in a tf.function where n is (or becomes) a tensor "
                "and the body is provably safe for a tensor i"
            ),
            # RTF007 rewrites the loop that appends to a Python list (the blocker RTF001 names) into a
            # tf.TensorArray graph loop, or says why it cannot
            defers_to=("RTF007",),
)


class RangeToTfRangeCommand(RetraceCodemod):
    RULES = (RULE,)
    ORDER = 30
    TRIGGERS = (b"range",)
    NEEDS_WHOLE_MODULE = False  # reads the rest of the module by name only

    @classmethod
    def might_apply_to_tree(cls, tree, outline) -> bool:
        """A ``for ... in range(...)`` with a bound that is not a number literal, inside a def
        that can be a tf.function: every loop and call-site argument
        :class:`~retrace_fix.codemods._range_decider.RangeDecider` changes or explains starts
        from one whose bound is a parameter or a tensor."""
        return outline.references_tf_function and tree_facts(tree, outline).range_loop_with_a_bound()

    def transform_module(self, tree: cst.Module) -> cst.Module:
        result = super().transform_module(tree)
        # the import (if any) has been added; do not make later codemods run it again
        self.context.scratch.pop(AddImportsVisitor.CONTEXT_KEY, None)
        return result

    def transform_module_impl(self, tree: cst.Module) -> cst.Module:
        self.scope = CachedScope(self.analysis.table, self.context.scratch)
        self.calls = ModuleCalls.get(self.analysis, self.context.scratch)
        decider = RangeDecider(self)
        tree.visit(decider)
        self.changes = decider.changes
        self._import_needed = False
        if not self.changes.loops and not self.changes.args:
            return tree
        tree = super().transform_module_impl(tree)
        if self._import_needed:
            AddImportsVisitor.add_needed_import(self.context, "tensorflow", asname="tf")
        return tree

    def leave_For(self, original_node: cst.For, updated_node: cst.For) -> cst.For:
        change = self.changes.loops.get(original_node)
        if change is None:
            return updated_node
        if not self.report(original_node.iter, change.message, change.tier, reason=change.reason, subjects=change.subjects,
                           verifiable=change.verifiable):
            return updated_node
        assert change.tf_name is not None
        self._import_needed |= change.tf_name == "tf" and self.changes.needs_import
        new_iter = updated_node.iter.with_changes(
            func=cst.Attribute(value=cst.Name(change.tf_name), attr=cst.Name("range"))
        )
        return updated_node.with_changes(iter=new_iter)

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        changes = self.changes.args.get(original_node)
        if not changes:
            return updated_node
        replace: dict[int, str] = {}
        for change in changes:
            if self.report(change.value, change.message, change.tier, subjects=change.subjects, verifiable=change.verifiable):
                for index, arg in enumerate(original_node.args):
                    if arg.value is change.value:
                        replace[index] = change.tf_name
        if not replace:
            return updated_node
        args = list(updated_node.args)
        for index, tf_name in replace.items():
            self._import_needed |= tf_name == "tf" and self.changes.needs_import
            arg = args[index]
            args[index] = arg.with_changes(
                value=cst.Call(
                    func=cst.Attribute(value=cst.Name(tf_name), attr=cst.Name("constant")),
                    args=[cst.Arg(arg.value)],
                )
            )
        return updated_node.with_changes(args=args)
