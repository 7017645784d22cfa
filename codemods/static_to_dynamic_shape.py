"""RTF008 static-to-dynamic-shape.

What it does
    With recorded traces (``--traces``), rewrites a static shape read of a
    tf.function's tensor parameter - ``x.shape[k]``, ``x.get_shape()[k]``,
    ``x.shape.as_list()[k]``, or ``shape[k]`` of a local bound once to
    ``x.shape`` (``shape = x.get_shape().as_list()``) - to the dynamic
    ``tf.shape(x)[k]``, when the
    traces show dimension ``k`` of ``x`` varying and the read sits where a
    tensor is accepted:

    * an element of the shape argument of ``tf.reshape``, ``tf.zeros``,
      ``tf.ones``, ``tf.fill``, ``tf.broadcast_to``, ``tf.tile``,
      ``tf.image.resize`` or the ``tf.random`` samplers;
    * a bound of ``tf.range``, or of ``range`` when the loop's body is safe
      as a graph loop (RTF001's loop analysis);
    * integer arithmetic (``+ - * // %`` with integers or other shape reads)
      feeding one of those, or a local name assigned once from such an
      expression and used only there (``batch = x.shape[0]``).

    The whole static shape passed as such a shape argument
    (``tf.random.normal(x.shape)``, ``tf.reshape(y, x.shape)``) becomes
    ``tf.shape(x)`` when any dimension of ``x`` varied.

    It also rewrites such reads in a module-level helper that a recorded
    tf.function calls with that parameter (``hw_flatten(x)`` inside the
    tf.function, ``x.shape[0]`` inside ``hw_flatten``).  Reads that need a
    Python ``int`` (``if x.shape[0] > 1``, ``np.zeros(x.shape)``, a returned
    value, a loop whose body needs Python values) are left to RTF106, and
    dimensions that never varied in the traces stay static.  Without traces
    there is no evidence of retracing: nothing changes.

Why it retraces
    A dimension that varies between calls retraces the function once per
    size.  The cure is a signature (or ``reduce_retracing``) that leaves that
    dimension ``None`` - but then ``x.shape[0]`` is ``None`` while tracing, and
    ``tf.reshape(x, [x.shape[0], -1])`` fails with "Failed to convert elements
    of [None, -1] to Tensor".  ``tf.shape(x)[0]`` is read when the graph runs:
    it has the same value whenever the static size is known, and works when it
    is not.  With the read rewritten, RTF003 can put ``None`` there (after the
    program is recorded again, or with ``--unsafe-fixes``).

Example
    Before::

        @tf.function
        def flatten(x):
            return tf.reshape(x, [x.shape[0], -1])

        for batch in (8, 5, 3):
            flatten(tf.ones([batch, 6, 4]))

    After (with ``--traces`` recorded from that loop)::

        @tf.function
        def flatten(x):
            return tf.reshape(x, [tf.shape(x)[0], -1])

        for batch in (8, 5, 3):
            flatten(tf.ones([batch, 6, 4]))

Fix safety
    safe: where a tensor is accepted, ``tf.shape(x)[k]`` is the same number as
    ``x.shape[k]`` whenever the latter is known (TensorFlow folds it into the
    static shapes of the results too), and a ``range`` loop changes into a
    graph loop only when its body passed RTF001's checks.  The fix changes no
    traces by itself; in the same run RTF003 offers the signature it unlocks as
    an unsafe fix, because the traces (and their proofs) were recorded on the
    old body: record again to prove it.
"""

from __future__ import annotations

import libcst as cst
from libcst.codemod.visitors import AddImportsVisitor

from retrace_fix.codemods._base import RetraceCodemod
from retrace_fix.codemods._rewritten import mark_rewritten
from retrace_fix.codemods._shape_read_finder import ReadFinder, ShapeRead
from retrace_fix.findings import Tier
from retrace_fix.rules import Rule

RULE = Rule("RTF008", "static-to-dynamic-shape", Tier.SAFE, doc=__doc__,
            summary="x.shape[i] where a tensor is accepted -> tf.shape(x)[i], when traces show that dimension varying")


class StaticToDynamicShapeCommand(RetraceCodemod):
    RULES = (RULE,)
    ORDER = 14  # before RTF003: the signature it adds needs the dynamic reads
    TRIGGERS = (b"shape",)
    NEEDS_TRACES = True

    def transform_module_impl(self, tree: cst.Module) -> cst.Module:
        self._reads: dict[int, ShapeRead] = {}
        if self.settings.traces is None or not self.analysis.tf_functions:
            return tree
        self._reads = ReadFinder(self).find()
        if not self._reads:
            return tree
        self._import_needed = False
        tree = super().transform_module_impl(tree)
        if self._import_needed:
            AddImportsVisitor.add_needed_import(self.context, "tensorflow", asname="tf")
        return tree

    def transform_module(self, tree: cst.Module) -> cst.Module:
        result = super().transform_module(tree)
        self.context.scratch.pop(AddImportsVisitor.CONTEXT_KEY, None)
        return result

    def leave_Subscript(self, original_node: cst.Subscript, updated_node: cst.Subscript) -> cst.BaseExpression:
        return self._rewrite(original_node, updated_node)

    def leave_Attribute(self, original_node: cst.Attribute, updated_node: cst.Attribute) -> cst.BaseExpression:
        return self._rewrite(original_node, updated_node)  # x.shape, a whole shape argument

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        return self._rewrite(original_node, updated_node)  # x.get_shape() / x.shape.as_list()

    def _rewrite(self, original_node: cst.CSTNode, updated_node: cst.BaseExpression) -> cst.BaseExpression:
        read = self._reads.get(id(original_node))
        if read is None:
            return updated_node
        if not self.report(original_node, read.message, Tier.SAFE, subjects=(read.subject,)):
            return updated_node
        tf_name = self.scope.tf_module_name()
        if tf_name is None:
            if self.scope.lookup("tf") is not None or "tf" in self.analysis.table.rebound:
                return updated_node  # no free name for TensorFlow here: leave it
            tf_name, self._import_needed = "tf", True
        for owner in read.owners:
            mark_rewritten(self.context.scratch, owner, self.CODE)
        shape = cst.Call(
            func=cst.Attribute(value=cst.Name(tf_name), attr=cst.Name("shape")),
            args=[cst.Arg(cst.Name(read.holder))],
        )
        if read.index is None:
            return shape
        return cst.Subscript(value=shape, slice=[cst.SubscriptElement(cst.Index(read.index))])
