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

Fix safety
    safe.  The rename is an exact alias: TensorFlow maps one keyword onto the
    other.  When both keywords are already present the site is reported as a
    diagnostic and left alone (TensorFlow would reject or ignore one of them).
"""

from __future__ import annotations

import libcst as cst

from codemods._base import RetraceCodemod
from retrace_fix.findings import Tier

OLD_KEYWORD = "experimental_relax_shapes"
NEW_KEYWORD = "reduce_retracing"


class ReduceRetracingCommand(RetraceCodemod):
    CODE = "RTF004"
    NAME = "reduce-retracing"
    SUMMARY = "use reduce_retracing=True (rename experimental_relax_shapes; add it where traces show shape-only retracing)"
    TIER = Tier.SAFE
    TRIGGERS = (OLD_KEYWORD.encode(),)

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
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
