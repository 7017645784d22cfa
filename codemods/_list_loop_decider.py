"""RTF007's decisions: which list-building loops become ``tf.TensorArray`` loops.

:class:`LoopDecider` reads each tf.function of the unchanged tree (and its recorded
traces) and finds ``xs = []; for i in range(n): xs.append(e); tf.stack(xs)``: a
:class:`Rewrite` when the loop may run as a graph loop (safe or unsafe), or the
diagnostic that says why it stays.  The small facts it reads - appends of a loop,
the ``xs = []`` that starts one, the size and dtype of the array - are functions
here too.  The command in :mod:`retrace_fix.codemods.list_loop_to_tensor_array`
reports them and makes the edits.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from retrace_fix.codemods._base import RetraceCodemod
from retrace_fix.codemods._loop_safety import loop_blockers
from retrace_fix.codemods._module_reader import ModuleReader
from retrace_fix.codemods._stated_types import dtype_of
from retrace_fix.codemods._static_shapes import integer
from retrace_fix.codemods._tf_values import is_tf_op, range_call
from retrace_fix.codemods._traced_functions import traced_dims, traced_functions
from retrace_fix.cst_tree import find_nodes, node_ids, parent_map
from retrace_fix.findings import Tier
from retrace_fix.node_text import short_code
from retrace_fix.tfnames import loads_of, named_params, names_in, times_bound


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
class Rewrite:
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


def tf_attr(tf: str, name: str) -> cst.Attribute:
    return cst.Attribute(value=cst.Name(tf), attr=cst.Name(name))


class LoopDecider(ModuleReader):
    """Finds list-building loops of the tf.functions and decides what to do with each."""

    def __init__(self, codemod: RetraceCodemod) -> None:
        super().__init__(codemod)
        self.traced = traced_functions(codemod) if codemod.settings.traces is not None else {}
        #: id(loop) -> (its tf.function, a Rewrite or the (loop, message, subjects) of a diagnostic)
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
                hard.append(f"line {self.analysis.file_line_of(blocker.node)}: {blocker.reason}")
            elif _UNSEEN in blocker.reason:
                unseen.append(f"`{short_code(blocker.node)}`")
            elif any(text in blocker.reason for text in _UNKNOWN_TYPE):
                unknown.append(blocker.reason)
            else:
                hard.append(f"line {self.analysis.file_line_of(blocker.node)}: {blocker.reason}")
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
        self.rewrites[id(loop)] = function, Rewrite(
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
        if not isinstance(arg, cst.Name) or arg.value not in _params(function) or times_bound(function, arg.value) != 1:
            return "", []
        if [id(u) for u in loads_of(function, arg.value)] != [id(arg)]:
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
        uses = loads_of(function, name)
        others = [u for u in uses if id(u) not in node_ids(append_statement)]
        loop_ids = node_ids(loop)
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
                axis = integer(axis_arg.value)
                if axis is not None:
                    return call, axis, ""
            return None, None, f"`{short_code(call)}` stacks along an axis retrace-fix cannot read"
        if q == "tensorflow.concat":
            axis_arg = others_args[0] if len(others_args) == 1 else None
            if axis_arg is not None and (axis_arg.keyword is None or axis_arg.keyword.value == "axis") and \
                    integer(axis_arg.value) == 0:
                return call, None, ""
            return None, None, f"`{short_code(call)}` concatenates along an axis other than 0"
        return None, None, f"`{name}` is used by `{short_code(call.func)}`, not by `tf.stack`/`tf.concat`"


def _sizes(values: list) -> str:
    return ", ".join("?" if v is None else str(v) for v in values[:6]) + (", ..." if len(values) > 6 else "")


def _params(function: cst.FunctionDef) -> set[str]:
    return {x.name.value for x in named_params(function.params)}


def _loops_of(function: cst.FunctionDef) -> list[cst.For]:
    """The ``for`` loops of the function's own body, in source order (nested defs skipped)."""
    return find_nodes(function, lambda node: isinstance(node, cst.For), skip=(cst.FunctionDef, cst.Lambda))


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
    if init is None or times_bound(function, name) != 1:
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


def _size_of(expr: cst.BaseExpression | None) -> tuple[str | None, int | None]:
    """``("x", 0)`` for ``len(x)`` / ``x.shape[0]``, else ``(None, None)``."""
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and expr.func.value == "len" and \
            len(expr.args) == 1 and isinstance(expr.args[0].value, cst.Name):
        return expr.args[0].value.value, 0
    if isinstance(expr, cst.Subscript) and len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Index):
        base = expr.value
        k = integer(expr.slice[0].slice.value)
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
    shape = cst.Call(func=tf_attr(tf, "shape"), args=[cst.Arg(cst.Name(holder))])
    return cst.Subscript(value=shape, slice=[cst.SubscriptElement(cst.Index(cst.Integer(str(dim))))])


def _evaluable_at(bound: cst.BaseExpression, function: cst.FunctionDef, init, loop) -> bool:
    """Every name of ``bound`` is a parameter the function never rebinds (so ``size=`` may read it early)."""
    params = _params(function)
    names = [n for n in names_in(bound) if n not in ("tf", "len", "tensorflow")]
    return all(n in params and times_bound(function, n) == 1 for n in names)


def _element_dtype(expr: cst.BaseExpression, loop: cst.For, function: cst.FunctionDef, tensors: dict,
                   scope, depth: int = 0) -> str | None:
    """The dtype of what the loop appends, from the code or from the traced parameters."""
    if depth > 8:
        return None
    if isinstance(expr, cst.Name):
        if expr.value in tensors and times_bound(function, expr.value) == 1:
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
