"""RTF007 list-loop-to-tensor-array.

What it does
    Inside a tf.function, finds the unrolled loop that builds a Python list
    and stacks it::

        outputs = []
        for i in range(n):
            ...
            outputs.append(expr)
        ... tf.stack(outputs, axis=k) ...   (or tf.concat(outputs, 0))

    when there is evidence that the unrolled size varies: the loop bound is a
    parameter traced (``--traces``) or called in this module with several
    Python ints, or ``len(x)`` / ``x.shape[k]`` of a tensor parameter whose
    dimension varied in the traces.  It rewrites it into one graph loop::

        outputs = tf.TensorArray(tf.int32, size=n)
        for i in tf.range(n):
            ...
            outputs = outputs.write(i, expr)
        ... tf.experimental.numpy.moveaxis(outputs.stack(), 0, k) ...   (outputs.stack(), outputs.concat())

    The element dtype comes from the code (``tf.cast``, ``output_type=``,
    ``dtype=``, ops that keep their input's dtype) or from the traces of the
    parameters it is computed from; a bound ``len(x)`` or ``x.shape[k]``
    becomes ``tf.shape(x)[k]``.  Conditions: the list starts empty, is
    appended to once per iteration (not under an ``if``), and is read only by
    the one ``tf.stack``/``tf.concat`` after the loop; the body passes RTF001's
    checks for a graph loop except for the append itself.  Where the pattern
    cannot be rewritten (the list is read elsewhere, the body indexes Python
    lists with ``i``, ``break``, a ``range`` with a step, ...), it reports a
    diagnostic with the unrolled size recorded in the traces.  Loops over
    constants (``range(3)``) are unrolled on purpose and left alone.

Why it retraces
    A Python loop inside a tf.function is unrolled while tracing: ``range(n)``
    with a Python ``n`` builds ``n`` copies of the body, and ``n`` is part of
    the trace key, so every new length traces a new (longer) graph.  Only a
    graph loop (``tf.range`` with a tensor bound) serves every length with one
    graph - but a graph loop cannot append to a Python list
    (``InaccessibleTensorError``), which is why RTF001 leaves such loops alone.
    ``tf.TensorArray`` is the graph loop's list.  With the loop rewritten, the
    bound can become a tensor: RTF003 gives it a ``tf.TensorSpec([], tf.int32)``
    slot from the traces.

Example
    Before::

        @tf.function
        def decode(state, max_len):
            tokens = []
            for i in range(max_len):
                state = tf.tanh(state)
                tokens.append(tf.argmax(state, axis=-1, output_type=tf.int32))
            return tf.stack(tokens, axis=1)

        for max_len in (5, 8, 6):
            decode(tf.ones([2, 4]), max_len)

    After (with ``--unsafe-fixes``)::

        @tf.function
        def decode(state, max_len):
            tokens = tf.TensorArray(tf.int32, size=max_len)
            for i in tf.range(max_len):
                state = tf.tanh(state)
                tokens = tokens.write(i, tf.argmax(state, axis=-1, output_type=tf.int32))
            return tf.experimental.numpy.moveaxis(tokens.stack(), 0, 1)

        for max_len in (5, 8, 6):
            decode(tf.ones([2, 4]), tf.constant(max_len))

    A bound that is a parameter used nowhere else is passed as a tensor where
    this module calls the function (elsewhere, RTF003 gives it a
    ``tf.TensorSpec([], tf.int32)`` slot from the traces).

Fix safety
    unsafe (``--unsafe-fixes``), at best: the graph loop traces its body once,
    with a tensor ``i``, so Python code in the body that the analysis cannot
    see into (a Keras layer call, a helper) runs once instead of ``n`` times;
    the stacked result's loop dimension is ``None`` in the static shape
    (``outputs.shape[1]`` after the loop no longer gives ``n``); every element
    must have the same dtype and shape; and ``n == 0`` gives an empty tensor
    where ``tf.stack([])`` raised.  A ``--verify`` run proves it on the
    program.  A diagnostic when the element dtype is unknown (a ``--verify``
    run may try ``tf.float32``).

    A decode loop whose carried tensor grows every step (``tokens =
    tf.concat([tokens, next], axis=1)``) cannot be a plain graph loop: the
    loop variable's shape must not change.  That loop is a diagnostic, and a
    ``--verify`` candidate that also declares a shape invariant as the first
    statement of the body,
    ``tf.autograph.experimental.set_loop_options(shape_invariants=[(tokens,
    tf.TensorShape([None] * tokens.shape.rank))])``: the rank is kept (Keras
    layers need it), every dimension is free, and ``tokens`` loses its static
    shape inside and after the loop - which only a run of the program can
    show to be harmless.
"""

from __future__ import annotations

import libcst as cst
from libcst.codemod.visitors import AddImportsVisitor

from retrace_fix.codemods._base import RetraceCodemod
from retrace_fix.codemods._list_loop_decider import LoopDecider, Rewrite, tf_attr
from retrace_fix.codemods._rewritten import mark_rewritten
from retrace_fix.codemods._tree_facts import tree_facts
from retrace_fix.findings import Tier
from retrace_fix.rules import Rule

RULE = Rule("RTF007", "list-loop-to-tensor-array", Tier.UNSAFE, doc=__doc__,
            summary="for i in range(n): xs.append(e) + tf.stack(xs) in a tf.function -> tf.TensorArray + tf.range")


class ListLoopToTensorArrayCommand(RetraceCodemod):
    RULES = (RULE,)
    ORDER = 16  # before RTF003 and RTF001: they read the graph loop it writes
    TRIGGERS = (b"append",)
    #: reads only the tf.functions, the defs that create them and the names they use (partial parsing)
    NEEDS_WHOLE_MODULE = False

    @classmethod
    def might_apply_to_tree(cls, tree, outline) -> bool:
        """A ``for ... in range(...)`` that appends in its body, inside a def that can be a
        tf.function (the only loops :class:`~retrace_fix.codemods._list_loop_decider.LoopDecider`
        rewrites or explains)."""
        return outline.references_tf_function and tree_facts(tree, outline).range_loop_with_append()

    def transform_module_impl(self, tree: cst.Module) -> cst.Module:
        self._applied = {}
        if not self.analysis.tf_functions:
            return tree
        decider = LoopDecider(self)
        for function in list(self.analysis.tf_functions):
            decider.function(function)
        if not decider.rewrites:
            return tree
        self._import_needed = False
        self._applied: dict[int, Rewrite] = {}
        self._by_node: dict[int, tuple[str, Rewrite]] = {}
        self._wrap: dict[int, Rewrite] = {}  # call-site arguments that become tf.constant(...)
        for loop_id, (function, rewrite) in decider.rewrites.items():
            saved = self._function_stack
            self._function_stack = [function]  # its decorator and def lines suppress too
            try:
                self._decide(rewrite)
            finally:
                self._function_stack = saved
        if not self._applied:
            return tree
        return super().transform_module_impl(tree)

    def transform_module(self, tree: cst.Module) -> cst.Module:
        result = super().transform_module(tree)
        self.context.scratch.pop(AddImportsVisitor.CONTEXT_KEY, None)
        return result

    def _decide(self, rewrite) -> None:
        if not isinstance(rewrite, Rewrite):
            loop, message, subjects = rewrite
            self.report(loop, message, Tier.DIAGNOSTIC, subjects=subjects)
            return
        # a diagnostic only for lack of evidence (a dtype, a parameter's type): a --verify run may try it
        verifiable = rewrite.tier is Tier.DIAGNOSTIC
        edit = self.report(rewrite.loop, rewrite.message, rewrite.tier, reason=rewrite.reason, subjects=rewrite.subjects,
                           verifiable=verifiable)
        if not edit:
            return
        self._applied[id(rewrite.loop)] = rewrite
        for key, kind in ((rewrite.init, "init"), (rewrite.append, "append"), (rewrite.reduce, "reduce")):
            self._by_node[id(key)] = (kind, rewrite)
        mark_rewritten(self.context.scratch, rewrite.owner, self.CODE)
        saved = self._function_stack
        for site, expr in rewrite.call_args:
            self._function_stack = list(site.functions)
            try:
                if self.report(expr, f"pass `{rewrite.bound_param}` as a tensor: with the graph loop one trace serves "
                                     "every length", rewrite.tier, reason=rewrite.reason, subjects=rewrite.subjects,
                               verifiable=verifiable):
                    self._wrap[id(expr)] = rewrite
            finally:
                self._function_stack = saved

    def _tf(self) -> str:
        name = self.scope.tf_module_name()
        if name is None:
            name, self._import_needed = "tf", True
        return name

    def leave_For(self, original_node: cst.For, updated_node: cst.For) -> cst.For:
        rewrite = self._applied.get(id(original_node))
        if rewrite is None:
            return updated_node
        tf = self._tf()
        new_iter = cst.Call(func=tf_attr(tf, "range"), args=[cst.Arg(rewrite.bound)])
        updated_node = updated_node.with_changes(iter=new_iter)
        if rewrite.invariants:
            updated_node = updated_node.with_changes(body=updated_node.body.with_changes(
                body=[_shape_invariants(tf, rewrite.invariants), *updated_node.body.body]))
        return updated_node

    def leave_SimpleStatementLine(self, original_node, updated_node):
        entry = getattr(self, "_by_node", {}).get(id(original_node))
        if entry is None:
            return updated_node
        kind, rewrite = entry
        tf = self._tf()
        if kind == "init":
            dtype = tf_attr(tf, rewrite.dtype or "float32")
            args = [cst.Arg(dtype)]
            if rewrite.size is not None:
                args.append(cst.Arg(rewrite.size, keyword=cst.Name("size"), equal=_EQUAL))
            else:
                args.append(cst.Arg(cst.Integer("0"), keyword=cst.Name("size"), equal=_EQUAL))
                args.append(cst.Arg(cst.Name("True"), keyword=cst.Name("dynamic_size"), equal=_EQUAL))
            array = cst.Call(func=tf_attr(tf, "TensorArray"), args=_commas(args))
            assign = updated_node.body[0].with_changes(value=array)
            return updated_node.with_changes(body=[assign])
        # the append: `xs.append(expr)` -> `xs = xs.write(i, expr)`
        call = updated_node.body[0].value
        expr = call.args[0].value
        write = cst.Call(func=cst.Attribute(value=cst.Name(rewrite.name), attr=cst.Name("write")),
                         args=_commas([cst.Arg(cst.Name(rewrite.target)), cst.Arg(expr)]))
        assign = cst.Assign(targets=[cst.AssignTarget(cst.Name(rewrite.name))], value=write)
        return updated_node.with_changes(body=[assign])

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        wrap = getattr(self, "_wrap", {})
        if wrap and any(id(a.value) in wrap for a in original_node.args):
            args = [
                new.with_changes(value=cst.Call(func=tf_attr(self._tf(), "constant"), args=[cst.Arg(new.value)]))
                if id(old.value) in wrap else new
                for old, new in zip(original_node.args, updated_node.args)
            ]
            updated_node = updated_node.with_changes(args=args)
        entry = getattr(self, "_by_node", {}).get(id(original_node))
        if entry is None:
            return updated_node
        _, rewrite = entry
        extra = [a for a in updated_node.args if a.keyword is not None and a.keyword.value == "name"]
        method = "concat" if rewrite.axis is None else "stack"
        result = cst.Call(func=cst.Attribute(value=cst.Name(rewrite.name), attr=cst.Name(method)),
                          args=[a.with_changes(comma=cst.MaybeSentinel.DEFAULT) for a in extra])
        if rewrite.axis in (None, 0):
            return result
        tf = self._tf()
        moveaxis = cst.Attribute(value=cst.Attribute(value=tf_attr(tf, "experimental"), attr=cst.Name("numpy")),
                                 attr=cst.Name("moveaxis"))
        axis = cst.Integer(str(rewrite.axis)) if rewrite.axis >= 0 else cst.UnaryOperation(cst.Minus(),
                                                                                      cst.Integer(str(-rewrite.axis)))
        return cst.Call(func=moveaxis, args=_commas([cst.Arg(result), cst.Arg(cst.Integer("0")), cst.Arg(axis)]))

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        if getattr(self, "_import_needed", False):
            AddImportsVisitor.add_needed_import(self.context, "tensorflow", asname="tf")
        return updated_node


_EQUAL = cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))


def _shape_invariants(tf: str, names: tuple[str, ...]) -> cst.SimpleStatementLine:
    """``tf.autograph.experimental.set_loop_options(shape_invariants=[(x, tf.TensorShape([None] *
    x.shape.rank))])``: the loop carries ``x`` with its rank kept and every dimension free (a
    Keras layer given ``x`` needs the rank)."""
    pairs = ", ".join(f"({n}, {tf}.TensorShape([None] * {n}.shape.rank))" for n in names)
    return cst.parse_statement(f"{tf}.autograph.experimental.set_loop_options(shape_invariants=[{pairs}])\n")


def _commas(args: list[cst.Arg]) -> list[cst.Arg]:
    out = []
    for index, arg in enumerate(args):
        last = index == len(args) - 1
        out.append(arg.with_changes(comma=cst.MaybeSentinel.DEFAULT if last else
                                    cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))))
    return out
