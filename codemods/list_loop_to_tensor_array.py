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

from dataclasses import dataclass

import libcst as cst
from libcst.codemod.visitors import AddImportsVisitor

from retrace_fix.codemods._base import RetraceCodemod
from retrace_fix.codemods._callsites import CachedScope, ModuleCalls
from retrace_fix.codemods._loop_safety import loop_blockers
from retrace_fix.codemods._tf_values import is_tf_op, range_call
from retrace_fix.codemods._rewritten import mark_rewritten
from retrace_fix.codemods._traced_functions import traced_dims, traced_functions
from retrace_fix.codemods._stated_types import dtype_of
from retrace_fix.cst_tree import parent_map, target_names
from retrace_fix.findings import Tier
from retrace_fix.node_text import short_code
from retrace_fix.rules import Rule
from retrace_fix.tfnames import local_bindings, named_params

RULE = Rule(
    code="RTF007",
    name="list-loop-to-tensor-array",
    tier=Tier.UNSAFE,
    summary="for i in range(n): xs.append(e) + tf.stack(xs) in a tf.function -> tf.TensorArray + tf.range",
    doc=__doc__,
    golden="list-loop-to-tensor-array",
)

#: ops whose result has the dtype of their first argument
_SAME_DTYPE = frozenset({
    "abs", "negative", "square", "sqrt", "exp", "log", "tanh", "sigmoid", "sin", "cos", "identity",
    "reshape", "transpose", "squeeze", "expand_dims", "gather", "reverse", "tile", "pad", "roll",
    "reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod", "cumsum", "norm",
    "matmul", "add", "subtract", "multiply", "maximum", "minimum", "clip_by_value", "round", "floor", "ceil",
    "relu", "relu6", "elu", "selu", "softmax", "log_softmax", "l2_normalize", "softplus", "leaky_relu",
    "concat", "stack", "slice", "strided_slice", "one_hot_like", "gather_nd", "boolean_mask",
})
_INDEX_DTYPE = frozenset({"argmax", "argmin"})
#: what blocks a graph loop only for lack of evidence (the run of the program may prove it)
_UNSEEN = "cannot see into"
_UNKNOWN_TYPE = ("of unknown type before the loop",)


@dataclass
class _Rewrite:
    """One list-building loop and how to rewrite it."""

    loop: cst.For
    init: cst.SimpleStatementLine  # `xs = []`
    append: cst.SimpleStatementLine  # `xs.append(expr)`
    reduce: cst.Call  # `tf.stack(xs, ...)` / `tf.concat(xs, 0)`
    name: str  # xs
    target: str  # i
    bound: cst.BaseExpression  # the range argument, as it becomes (`tf.shape(x)[0]` for `len(x)`)
    size: cst.BaseExpression | None  # `size=` of the TensorArray; None: dynamic size
    dtype: str | None  # "int32"; None: unknown
    axis: int | None  # tf.stack axis (None: tf.concat along 0)
    message: str
    tier: Tier
    reason: str
    subjects: tuple
    owner: str  # qualname of the tf.function
    bound_param: str = ""  # the parameter the bound is, when it is one
    call_args: tuple = ()  # (call site, argument) of this module that pass it as Python ints
    #: carried names whose shape changes every iteration: a shape invariant of their rank, all dims None
    invariants: tuple[str, ...] = ()


class ListLoopToTensorArrayCommand(RetraceCodemod):
    RULES = (RULE,)
    ORDER = 16  # before RTF003 and RTF001: they read the graph loop it writes
    TRIGGERS = (b"append",)
    #: reads only the tf.functions, the defs that create them and the names they use (partial parsing)
    NEEDS_WHOLE_MODULE = False

    def transform_module_impl(self, tree: cst.Module) -> cst.Module:
        self._applied = {}
        if not self.analysis.tf_functions:
            return tree
        planner = _Planner(self)
        for function in list(self.analysis.tf_functions):
            planner.function(function)
        if not planner.rewrites:
            return tree
        self._import_needed = False
        self._applied: dict[int, _Rewrite] = {}
        self._by_node: dict[int, tuple[str, _Rewrite]] = {}
        self._wrap: dict[int, _Rewrite] = {}  # call-site arguments that become tf.constant(...)
        for loop_id, (function, plan) in planner.rewrites.items():
            saved = self._function_stack
            self._function_stack = [function]  # its decorator and def lines suppress too
            try:
                self._decide(plan)
            finally:
                self._function_stack = saved
        if not self._applied:
            return tree
        return super().transform_module_impl(tree)

    def transform_module(self, tree: cst.Module) -> cst.Module:
        result = super().transform_module(tree)
        self.context.scratch.pop(AddImportsVisitor.CONTEXT_KEY, None)
        return result

    def _decide(self, plan) -> None:
        if not isinstance(plan, _Rewrite):
            loop, message, subjects = plan
            self.report(loop, message, Tier.DIAGNOSTIC, subjects=subjects)
            return
        # a diagnostic only for lack of evidence (a dtype, a parameter's type): a --verify run may try it
        verifiable = plan.tier is Tier.DIAGNOSTIC
        edit = self.report(plan.loop, plan.message, plan.tier, reason=plan.reason, subjects=plan.subjects,
                           verifiable=verifiable)
        if not edit:
            return
        self._applied[id(plan.loop)] = plan
        for key, kind in ((plan.init, "init"), (plan.append, "append"), (plan.reduce, "reduce")):
            self._by_node[id(key)] = (kind, plan)
        mark_rewritten(self.context.scratch, plan.owner, self.CODE)
        saved = self._function_stack
        for site, expr in plan.call_args:
            self._function_stack = list(site.functions)
            try:
                if self.report(expr, f"pass `{plan.bound_param}` as a tensor: with the graph loop one trace serves "
                                     "every length", plan.tier, reason=plan.reason, subjects=plan.subjects,
                               verifiable=verifiable):
                    self._wrap[id(expr)] = plan
            finally:
                self._function_stack = saved

    def _tf(self) -> str:
        name = self.scope.tf_module_name()
        if name is None:
            name, self._import_needed = "tf", True
        return name

    def leave_For(self, original_node: cst.For, updated_node: cst.For) -> cst.For:
        plan = self._applied.get(id(original_node))
        if plan is None:
            return updated_node
        tf = self._tf()
        new_iter = cst.Call(func=_attr(tf, "range"), args=[cst.Arg(plan.bound)])
        updated_node = updated_node.with_changes(iter=new_iter)
        if plan.invariants:
            updated_node = updated_node.with_changes(body=updated_node.body.with_changes(
                body=[_shape_invariants(tf, plan.invariants), *updated_node.body.body]))
        return updated_node

    def leave_SimpleStatementLine(self, original_node, updated_node):
        entry = getattr(self, "_by_node", {}).get(id(original_node))
        if entry is None:
            return updated_node
        kind, plan = entry
        tf = self._tf()
        if kind == "init":
            dtype = _attr(tf, plan.dtype or "float32")
            args = [cst.Arg(dtype)]
            if plan.size is not None:
                args.append(cst.Arg(plan.size, keyword=cst.Name("size"), equal=_EQUAL))
            else:
                args.append(cst.Arg(cst.Integer("0"), keyword=cst.Name("size"), equal=_EQUAL))
                args.append(cst.Arg(cst.Name("True"), keyword=cst.Name("dynamic_size"), equal=_EQUAL))
            array = cst.Call(func=_attr(tf, "TensorArray"), args=_commas(args))
            assign = updated_node.body[0].with_changes(value=array)
            return updated_node.with_changes(body=[assign])
        # the append: `xs.append(expr)` -> `xs = xs.write(i, expr)`
        call = updated_node.body[0].value
        expr = call.args[0].value
        write = cst.Call(func=cst.Attribute(value=cst.Name(plan.name), attr=cst.Name("write")),
                         args=_commas([cst.Arg(cst.Name(plan.target)), cst.Arg(expr)]))
        assign = cst.Assign(targets=[cst.AssignTarget(cst.Name(plan.name))], value=write)
        return updated_node.with_changes(body=[assign])

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        wrap = getattr(self, "_wrap", {})
        if wrap and any(id(a.value) in wrap for a in original_node.args):
            args = [
                new.with_changes(value=cst.Call(func=_attr(self._tf(), "constant"), args=[cst.Arg(new.value)]))
                if id(old.value) in wrap else new
                for old, new in zip(original_node.args, updated_node.args)
            ]
            updated_node = updated_node.with_changes(args=args)
        entry = getattr(self, "_by_node", {}).get(id(original_node))
        if entry is None:
            return updated_node
        _, plan = entry
        extra = [a for a in updated_node.args if a.keyword is not None and a.keyword.value == "name"]
        method = "concat" if plan.axis is None else "stack"
        result = cst.Call(func=cst.Attribute(value=cst.Name(plan.name), attr=cst.Name(method)),
                          args=[a.with_changes(comma=cst.MaybeSentinel.DEFAULT) for a in extra])
        if plan.axis in (None, 0):
            return result
        tf = self._tf()
        moveaxis = cst.Attribute(value=cst.Attribute(value=_attr(tf, "experimental"), attr=cst.Name("numpy")),
                                 attr=cst.Name("moveaxis"))
        axis = cst.Integer(str(plan.axis)) if plan.axis >= 0 else cst.UnaryOperation(cst.Minus(),
                                                                                      cst.Integer(str(-plan.axis)))
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


def _attr(tf: str, name: str) -> cst.Attribute:
    return cst.Attribute(value=cst.Name(tf), attr=cst.Name(name))


def _commas(args: list[cst.Arg]) -> list[cst.Arg]:
    out = []
    for index, arg in enumerate(args):
        last = index == len(args) - 1
        out.append(arg.with_changes(comma=cst.MaybeSentinel.DEFAULT if last else
                                    cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))))
    return out


# --------------------------------------------------------------------------- the decisions


class _Planner:
    """Finds list-building loops of the tf.functions and decides what to do with each."""

    def __init__(self, codemod: ListLoopToTensorArrayCommand) -> None:
        self.c = codemod
        self.analysis = codemod.analysis
        self.scope = CachedScope(self.analysis.table, codemod.context.scratch)
        self.calls = ModuleCalls.get(self.analysis, codemod.context.scratch)
        self.traced = traced_functions(codemod) if codemod.settings.traces is not None else {}
        #: id(loop) -> (its tf.function, a _Rewrite or the (loop, message, subjects) of a diagnostic)
        self.rewrites: dict[int, tuple] = {}

    def function(self, function: cst.FunctionDef) -> None:
        site = self.analysis.tf_functions[function]
        if site.call is not None and any(
            a.keyword is not None and a.keyword.value == "autograph"
            and not (isinstance(a.value, cst.Name) and a.value.value == "True") for a in site.call.args
        ):
            return  # no AutoGraph: no graph loops
        loops = _loops_of(function)
        if not loops:
            return
        qualname = self.c.qualname(function)
        self.scope.push_function(function)
        try:
            for ordinal, loop in enumerate(loops, 1):
                self.loop(function, qualname, loop, ordinal)
        finally:
            self.scope.pop_function()

    # -- evidence
    def _param_values(self, function: cst.FunctionDef, param: str) -> tuple[list, bool]:
        """(the Python ints ``param`` was traced or called with, whether a loop variable or counter is passed)."""
        values: list = []
        varying = False
        traces = self.traced.get(function)
        if traces is not None:
            for trace in traces.traces:
                desc = trace.args.get(param, {})
                if desc.get("kind") == "python" and isinstance(desc.get("value"), int) and \
                        not isinstance(desc.get("value"), bool) and desc["value"] not in values:
                    values.append(desc["value"])
        callee = self.calls.callable_for(function)
        for site in self.calls.calls_of(callee) if callee is not None else []:
            expr = site.args.get(param)
            if expr is None:
                continue
            for evidence in self.calls.scalar_evidence(site, expr):
                if evidence.kind == "literal" and evidence.type == "int" and evidence.value not in values:
                    values.append(evidence.value)
                elif evidence.kind != "literal" and evidence.type == "int":
                    varying = True
        return values, varying

    def _call_site_dtypes(self, function: cst.FunctionDef) -> dict[str, str]:
        callee = self.calls.callable_for(function)
        sites = self.calls.calls_of(callee) if callee is not None else []
        found: dict[str, set] = {}
        for site in sites:
            for name in set(found) | set(site.args):
                expr = site.args.get(name)
                dtype = dtype_of(expr, self.scope) if isinstance(expr, cst.Call) and \
                    (self.scope.qualify(expr.func) or "").startswith("tensorflow.") else None
                found.setdefault(name, set()).add(dtype)
        return {name: dtypes.pop() for name, dtypes in found.items()
                if len(dtypes) == 1 and None not in dtypes and sites}

    def _call_site_tensors(self, function: cst.FunctionDef) -> set[str]:
        """Parameters every call in this module passes a TensorFlow op's result."""
        callee = self.calls.callable_for(function)
        sites = self.calls.calls_of(callee) if callee is not None else []
        if not sites:
            return set()
        out = None
        for site in sites:
            tensors = {name for name, expr in site.args.items()
                       if isinstance(expr, cst.Call) and is_tf_op(self.scope, expr.func)}
            out = tensors if out is None else out & tensors
        return out or set()

    def _tensor_params(self, function: cst.FunctionDef) -> dict[str, str]:
        """Parameters every trace recorded (or, without traces, every call of this module passes)
        as a tensor of one dtype -> that dtype."""
        traces = self.traced.get(function)
        if traces is None or not traces.traces:
            return self._call_site_dtypes(function)
        out = {}
        for name in traces.params:
            descs = [t.args.get(name, {}) for t in traces.traces]
            dtypes = {d.get("dtype") for d in descs}
            if all(d.get("kind") == "tensor" for d in descs) and len(dtypes) == 1:
                out[name] = dtypes.pop()
        return out

    def _unrolled(self, function: cst.FunctionDef, call: cst.Call, tensors: dict) -> tuple[str, list] | None:
        """(what sets the unrolled size, the sizes seen) when it varies, else None."""
        if len(call.args) != 1:
            arg = call.args[1].value if len(call.args) > 1 else None
        else:
            arg = call.args[0].value
        if isinstance(arg, cst.Name) and arg.value in _params(function):
            values, loop_variable = self._param_values(function, arg.value)
            if loop_variable:
                shown = f"{_sizes(values)}, and a loop variable, at the calls" if values else "a loop variable at the call"
                return f"`{arg.value}`", shown
            return (f"`{arg.value}`", f"{_sizes(values)} in the recorded calls") if len(values) >= 2 else None
        holder, dim = _size_of(arg)
        traces = self.traced.get(function)
        if holder is not None and holder in tensors and traces is not None:
            found = traced_dims(traces, holder)
            if found is None:
                return None
            dims, sizes = found
            if dims is None or dim in dims:
                return f"`{short_code(arg)}`", f"{_sizes(sizes.get(dim, []))} in the recorded calls"
        return None

    # -- one loop
    def loop(self, function: cst.FunctionDef, qualname: str, loop: cst.For, ordinal: int) -> None:
        call = range_call(loop, self.scope)
        if call is None:
            return
        appends = _appends_in(loop)
        if not appends:
            return
        tensors = self._tensor_params(function)
        unrolled = self._unrolled(function, call, tensors)
        tensor_names = set(tensors) | self._call_site_tensors(function)
        if unrolled is None:
            return  # a fixed size: unrolled on purpose, nothing retraces
        what, sizes = unrolled
        subjects = [("unrolled-loop", qualname, str(ordinal))]
        bound_arg = call.args[-1].value if len(call.args) <= 2 else None
        if isinstance(bound_arg, cst.Name):
            subjects.append(("python-value", qualname, bound_arg.value))
        head = (f"`for {short_code(loop.target)} in {short_code(call)}` is unrolled while tracing, {what} "
                f"copies of its body ({sizes}), and each size traces again")

        def diagnose(why: str) -> None:
            self.rewrites[id(loop)] = (function, (loop, f"{head}; it stays a Python loop: {why}", tuple(subjects)))

        if len(call.args) != 1:
            return diagnose(f"`{short_code(call)}` has a start or a step (write the TensorArray by hand)")
        if any(not name for _, name, _ in appends):
            return diagnose("an append is not run once per iteration (it is under an `if` or in a nested block)")
        if len(appends) != 1:
            return diagnose("the loop appends to more than one list")
        statement, name, expr = appends[0]
        if not isinstance(loop.target, cst.Name):
            return diagnose("the loop target is not a single name")
        init = _empty_list_init(function, name, loop)
        if init is None:
            return diagnose(f"`{name}` does not start as an empty list (`{name} = []`) before the loop")
        reduce, axis, problem = self._reduction(function, name, loop, statement)
        if problem:
            return diagnose(problem)
        blockers = loop_blockers(loop, self.scope, function=function, tensor_names=tensor_names)
        own = {id(statement.body[0].value)}  # the append itself: what the rewrite removes
        unseen: list[str] = []
        unknown: list[str] = []
        hard: list[str] = []
        growing: list[str] = []
        for blocker in blockers:
            if id(blocker.node) in own:
                continue
            if blocker.grows is not None:
                growing.append(blocker.grows)
                hard.append(f"line {self.analysis.line_of(blocker.node)}: {blocker.reason}")
            elif _UNSEEN in blocker.reason:
                unseen.append(f"`{short_code(blocker.node)}`")
            elif any(text in blocker.reason for text in _UNKNOWN_TYPE):
                unknown.append(blocker.reason)
            else:
                hard.append(f"line {self.analysis.line_of(blocker.node)}: {blocker.reason}")
        invariants = tuple(dict.fromkeys(growing))
        if hard and (len(hard) != len(growing) or not isinstance(loop.body, cst.IndentedBlock)):
            return diagnose(next(h for h in hard if not any(f"of `{g}` every" in h for g in growing))
                            if len(hard) != len(growing) else hard[0])
        bound = _dynamic_bound(call.args[0].value, tensors, self.scope)
        size = bound if _evaluable_at(bound, function, init, loop) else None
        dtype = _element_dtype(expr, loop, function, tensors, self.scope)
        reasons = ["the body is traced once with a tensor `i`, and the stacked result's loop dimension becomes "
                   "`None` in static shapes"]
        if unseen:
            reasons.append(f"{', '.join(dict.fromkeys(unseen))} run{'s' if len(unseen) == 1 else ''} once while "
                           "tracing instead of once per iteration (retrace-fix cannot see into "
                           f"{'it' if len(unseen) == 1 else 'them'})")
        message = f"{head}: build `{name}` with a `tf.TensorArray` in a `tf.range` loop (one graph loop)"
        tier = Tier.UNSAFE
        if unknown or dtype is None:
            missing = unknown[0] if unknown else f"the dtype of `{short_code(expr)}` is not known"
            message = f"{head}; a `tf.TensorArray` loop needs evidence retrace-fix lacks: {missing}"
            tier = Tier.DIAGNOSTIC
        elif invariants:
            names = ", ".join(f"`{n}`" for n in invariants)
            message = (f"{head}; {hard[0]}: a `tf.range` loop can carry {names} only with a shape "
                       "invariant (every dimension `None`), which a --verify run can try")
            tier = Tier.DIAGNOSTIC
            reasons.append(f"{names} loses {'its' if len(invariants) == 1 else 'their'} static shape inside "
                           "and after the loop")
        bound_param, call_args = self._step_count(function, call)
        if call_args and tier is not Tier.DIAGNOSTIC:
            message += f", and pass `{bound_param}` as a tensor where this module calls `{function.name.value}`"
        self.rewrites[id(loop)] = function, _Rewrite(
            loop=loop, init=init, append=statement, reduce=reduce, name=name, target=loop.target.value,
            bound=bound, size=size, dtype=dtype, axis=axis, message=message, tier=tier,
            reason="; ".join(reasons), subjects=tuple(subjects), owner=qualname,
            bound_param=bound_param, call_args=tuple(call_args), invariants=invariants,
        )

    def _step_count(self, function: cst.FunctionDef, call: cst.Call) -> tuple[str, list]:
        """A bound that is a parameter used nowhere else: the calls of this module that pass it Python ints.

        With the graph loop the parameter can be a tensor (it is then only the loop's bound and the
        TensorArray's size): passing ``tf.constant(n)`` makes one trace serve every length.
        """
        arg = call.args[0].value
        if not isinstance(arg, cst.Name) or arg.value not in _params(function) or _bindings(function, arg.value) != 1:
            return "", []
        if [id(u) for u in _loads_of(function, arg.value)] != [id(arg)]:
            return arg.value, []
        callee = self.calls.callable_for(function)
        out = []
        for site in self.calls.calls_of(callee) if callee is not None else []:
            expr = site.args.get(arg.value)
            if expr is None:
                continue
            evidence = self.calls.scalar_evidence(site, expr)
            if evidence and all(e.type == "int" for e in evidence):
                out.append((site, expr))
        return arg.value, out

    def _reduction(self, function, name, loop, append_statement) -> tuple[cst.Call | None, int | None, str]:
        """The one ``tf.stack(name, ...)``/``tf.concat(name, 0)`` after the loop, its axis, or the problem."""
        uses = _loads_of(function, name)
        others = [u for u in uses if id(u) not in _node_ids(append_statement)]
        loop_ids = _node_ids(loop)
        if len(others) != 1:
            return None, None, f"`{name}` is read {'elsewhere' if others else 'nowhere'} besides one `tf.stack`"
        use = others[0]
        if id(use) in loop_ids:
            return None, None, f"`{name}` is read inside the loop"
        parents = parent_map(function)
        arg = parents.get(id(use))
        call = parents.get(id(arg))
        if not (isinstance(arg, cst.Arg) and isinstance(call, cst.Call) and arg.keyword is None
                and call.args and call.args[0] is arg):
            return None, None, f"`{name}` is used other than by one `tf.stack`/`tf.concat` after the loop"
        if self.analysis.line_of(call) < self.analysis.line_of(loop):
            return None, None, f"`{name}` is read before the loop"
        q = self.scope.qualify(call.func)
        others_args = [a for a in call.args[1:] if not (a.keyword is not None and a.keyword.value == "name")]
        if q == "tensorflow.stack":
            if not others_args:
                return call, 0, ""
            axis_arg = others_args[0] if len(others_args) == 1 else None
            if axis_arg is not None and (axis_arg.keyword is None or axis_arg.keyword.value == "axis"):
                axis = _int_value(axis_arg.value)
                if axis is not None:
                    return call, axis, ""
            return None, None, f"`{short_code(call)}` stacks along an axis retrace-fix cannot read"
        if q == "tensorflow.concat":
            axis_arg = others_args[0] if len(others_args) == 1 else None
            if axis_arg is not None and (axis_arg.keyword is None or axis_arg.keyword.value == "axis") and \
                    _int_value(axis_arg.value) == 0:
                return call, None, ""
            return None, None, f"`{short_code(call)}` concatenates along an axis other than 0"
        return None, None, f"`{name}` is used by `{short_code(call.func)}`, not by `tf.stack`/`tf.concat`"


# --------------------------------------------------------------------------- small facts


def _sizes(values: list) -> str:
    return ", ".join("?" if v is None else str(v) for v in values[:6]) + (", ..." if len(values) > 6 else "")


def _params(function: cst.FunctionDef) -> set[str]:
    return {x.name.value for x in named_params(function.params)}


def _loops_of(function: cst.FunctionDef) -> list[cst.For]:
    """The ``for`` loops of the function's own body, in source order (nested defs skipped)."""
    found: list[cst.For] = []

    class _V(cst.CSTVisitor):
        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            return node is function

        def visit_Lambda(self, node: cst.Lambda) -> bool:
            return False

        def visit_For(self, node: cst.For) -> None:
            found.append(node)

    function.visit(_V())
    return found


def _appends_in(loop: cst.For) -> list[tuple[cst.SimpleStatementLine, str, cst.BaseExpression]]:
    """``(statement, name, expr)`` of each ``name.append(expr)`` in the loop body; ``name`` is ""
    for an append that does not run once per iteration (under an ``if``, in a nested block)."""
    found: list = []
    top = loop.body.body if isinstance(loop.body, cst.IndentedBlock) else []
    top_ids = {id(s) for s in top}

    class _V(cst.CSTVisitor):
        def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
            for small in node.body:
                if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
                    call = small.value
                    func = call.func
                    if isinstance(func, cst.Attribute) and func.attr.value == "append" and \
                            isinstance(func.value, cst.Name) and len(call.args) == 1 and \
                            call.args[0].keyword is None and not call.args[0].star:
                        if id(node) in top_ids and len(node.body) == 1:
                            found.append((node, func.value.value, call.args[0].value))
                        else:
                            found.append((node, "", call.args[0].value))

    loop.body.visit(_V())
    return found


def _empty_list_init(function: cst.FunctionDef, name: str, loop: cst.For) -> cst.SimpleStatementLine | None:
    """The ``name = []`` statement of the function's own block that holds the loop, before the loop,
    when it is the name's only binding."""
    statements = _block_of(function, loop)
    if statements is None:
        return None
    init = None
    for statement in statements:
        if statement is loop:
            break
        if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
            small = statement.body[0]
            if isinstance(small, cst.Assign) and len(small.targets) == 1 and \
                    isinstance(small.targets[0].target, cst.Name) and small.targets[0].target.value == name and \
                    isinstance(small.value, cst.List) and not small.value.elements:
                init = statement
    if init is None or _bindings(function, name) != 1:
        return None
    return init


def _block_of(function: cst.FunctionDef, loop: cst.For) -> list | None:
    found: list = []

    class _V(cst.CSTVisitor):
        def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
            if any(s is loop for s in node.body):
                found.append(list(node.body))

    function.visit(_V())
    return found[0] if found else None


def _bindings(function: cst.FunctionDef, name: str) -> int:
    count = 0

    class _V(cst.CSTVisitor):
        def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
            nonlocal count
            count += target_names(node.target).count(name)

        def visit_AugAssign(self, node: cst.AugAssign) -> None:
            nonlocal count
            count += 2 * target_names(node.target).count(name)

        def visit_For(self, node: cst.For) -> None:
            nonlocal count
            count += 2 * target_names(node.target).count(name)

        def visit_AsName(self, node: cst.AsName) -> None:
            nonlocal count
            count += target_names(node.name).count(name)

        def visit_Param(self, node: cst.Param) -> None:
            nonlocal count
            count += node.name.value == name

        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            return node is function

    function.visit(_V())
    return count


def _loads_of(function: cst.FunctionDef, name: str) -> list[cst.Name]:
    found: list[cst.Name] = []

    class _V(cst.CSTVisitor):
        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            return node is function or name not in local_bindings(node)

        def visit_Lambda(self, node: cst.Lambda) -> bool:
            return name not in local_bindings(node)

        def visit_Attribute(self, node: cst.Attribute) -> bool:
            node.value.visit(self)
            return False

        def visit_AssignTarget(self, node: cst.AssignTarget) -> bool:
            return not isinstance(node.target, cst.Name)

        def visit_Arg(self, node: cst.Arg) -> bool:
            node.value.visit(self)
            return False

        def visit_Param(self, node: cst.Param) -> bool:
            return False

        def visit_Name(self, node: cst.Name) -> None:
            if node.value == name:
                found.append(node)

    function.body.visit(_V())
    return found


def _node_ids(node: cst.CSTNode) -> set[int]:
    found: set[int] = set()

    class _V(cst.CSTVisitor):
        def on_visit(self, n: cst.CSTNode) -> bool:
            found.add(id(n))
            return True

    node.visit(_V())
    return found


def _int_value(expr: cst.BaseExpression) -> int | None:
    if isinstance(expr, cst.Integer):
        return int(expr.value, 0)
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus) and \
            isinstance(expr.expression, cst.Integer):
        return -int(expr.expression.value, 0)
    return None


def _size_of(expr: cst.BaseExpression | None) -> tuple[str | None, int | None]:
    """``("x", 0)`` for ``len(x)`` / ``x.shape[0]``, else ``(None, None)``."""
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and expr.func.value == "len" and \
            len(expr.args) == 1 and isinstance(expr.args[0].value, cst.Name):
        return expr.args[0].value.value, 0
    if isinstance(expr, cst.Subscript) and len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Index):
        base = expr.value
        k = _int_value(expr.slice[0].slice.value)
        if k is not None and k >= 0 and isinstance(base, cst.Attribute) and base.attr.value == "shape" and \
                isinstance(base.value, cst.Name):
            return base.value.value, k
    return None, None


def _dynamic_bound(expr: cst.BaseExpression, tensors: dict, scope) -> cst.BaseExpression:
    """``len(x)`` / ``x.shape[k]`` of a tensor -> ``tf.shape(x)[k]``; anything else as written."""
    holder, dim = _size_of(expr)
    if holder is None or holder not in tensors:
        return expr
    tf = scope.tf_module_name() or "tf"
    shape = cst.Call(func=_attr(tf, "shape"), args=[cst.Arg(cst.Name(holder))])
    return cst.Subscript(value=shape, slice=[cst.SubscriptElement(cst.Index(cst.Integer(str(dim))))])


def _evaluable_at(bound: cst.BaseExpression, function: cst.FunctionDef, init, loop) -> bool:
    """Every name of ``bound`` is a parameter the function never rebinds (so ``size=`` may read it early)."""
    names: list[str] = []

    class _V(cst.CSTVisitor):
        def visit_Name(self, node: cst.Name) -> None:
            names.append(node.value)

        def visit_Attribute(self, node: cst.Attribute) -> bool:
            node.value.visit(self)
            return False

    bound.visit(_V())
    params = _params(function)
    names = [n for n in names if n not in ("tf", "len", "tensorflow")]
    return all(n in params and _bindings(function, n) == 1 for n in names)


def _element_dtype(expr: cst.BaseExpression, loop: cst.For, function: cst.FunctionDef, tensors: dict,
                   scope, depth: int = 0) -> str | None:
    """The dtype of what the loop appends, from the code or from the traced parameters."""
    if depth > 8:
        return None
    if isinstance(expr, cst.Name):
        if expr.value in tensors and _bindings(function, expr.value) == 1:
            return tensors[expr.value]
        values = _assigned_values(function, expr.value)
        dtypes = {_element_dtype(v, loop, function, tensors, scope, depth + 1) for v in values} if values else {None}
        return dtypes.pop() if len(dtypes) == 1 else None
    if isinstance(expr, cst.Subscript):
        return _element_dtype(expr.value, loop, function, tensors, scope, depth + 1)
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, (cst.Add, cst.Subtract, cst.Multiply)):
        left = _element_dtype(expr.left, loop, function, tensors, scope, depth + 1)
        right = _element_dtype(expr.right, loop, function, tensors, scope, depth + 1)
        known = {d for d in (left, right) if d is not None}
        return known.pop() if len(known) == 1 else None
    if not isinstance(expr, cst.Call):
        return None
    q = scope.qualify(expr.func) or ""
    short = q.rsplit(".", 1)[-1]
    direct = dtype_of(expr, scope)
    if direct is not None:
        return direct
    keywords = {a.keyword.value: a.value for a in expr.args if a.keyword is not None}
    if q.startswith("tensorflow.") and short in _INDEX_DTYPE:
        value = keywords.get("output_type")
        if value is None:
            return "int64"
        name = scope.qualify(value) or ""
        return name.rsplit(".", 1)[-1] if name.startswith("tensorflow.") else None
    if q.startswith("tensorflow.") and "dtype" in keywords:
        name = scope.qualify(keywords["dtype"]) or ""
        return name.rsplit(".", 1)[-1] if name.startswith("tensorflow.") else None
    if q.startswith("tensorflow.") and short in _SAME_DTYPE and expr.args and expr.args[0].keyword is None:
        return _element_dtype(expr.args[0].value, loop, function, tensors, scope, depth + 1)
    return None


def _assigned_values(function: cst.FunctionDef, name: str) -> list[cst.BaseExpression]:
    values: list[cst.BaseExpression] = []

    class _V(cst.CSTVisitor):
        def visit_Assign(self, node: cst.Assign) -> None:
            for target in node.targets:
                if isinstance(target.target, cst.Name) and target.target.value == name:
                    values.append(node.value)

        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            return node is function

    function.visit(_V())
    return values
