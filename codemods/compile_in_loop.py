"""RTF010 compile-in-loop.

What it does
    TODO: the code it reports (and what it rewrites it to), and the code it leaves alone.

Why it retraces
    TODO: why that code makes a tf.function trace again.

Example
    Before::

        @tf.function
        def step(x, n):
            return x * n

        for n in [1, 2, 3]:
            step(tf.ones([2]), n)  # RTF010: TODO mark every line it reports

    After::

        @tf.function
        def step(x, n):
            return x * n

        for n in [1, 2, 3]:
            step(tf.ones([2]), tf.constant(n))

Fix safety
    unsafe: TODO why the rewrite keeps the program's results, decided per site.
"""

from __future__ import annotations

import libcst as cst

from retrace_fix.codemods._base import RetraceCodemod
from retrace_fix.findings import Tier
from retrace_fix.rules import Rule

RULE = Rule(
    code="RTF010",
    name="compile-in-loop",
    tier=Tier.UNSAFE,
    summary="model.compile(...) in a loop that also trains drops the train function: compile once, then assign the learning rate",
    doc=__doc__,
    golden="compile-in-loop",
)


class CompileInLoopCommand(RetraceCodemod):
    RULES = (RULE,)
    ORDER = 70
    TRIGGERS = (b"function",)  # files without any of these bytes are never parsed

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        if not self.in_tf_function:  # kept by the base class
            return updated_node
        # TODO: decide per site whether the fix keeps behaviour (its tier), then:
        # if not self.report(original_node, "what retraces here", Tier.UNSAFE):
        #     return updated_node  # suppressed, or unsafe without --unsafe-fixes
        # return <the rewritten node>
        return updated_node
