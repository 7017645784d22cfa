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

from dataclasses import dataclass

import libcst as cst
from libcst.codemod.visitors import AddImportsVisitor

from retrace_fix.codemods._base import RetraceCodemod
from retrace_fix.codemods._callsites import CachedScope
from retrace_fix.codemods._loop_safety import loop_blockers
from retrace_fix.codemods._tf_values import range_call
from retrace_fix.codemods._rewritten import mark_rewritten
from retrace_fix.codemods._traced_functions import param_infos, traced_dims, traced_functions
from retrace_fix.cst_tree import parent_map, target_names
from retrace_fix.findings import Tier
from retrace_fix.node_text import short_code
from retrace_fix.rules import Rule
from retrace_fix.tfnames import local_bindings, named_params

RULE = Rule(
    code="RTF008",
    name="static-to-dynamic-shape",
    tier=Tier.SAFE,
    summary="x.shape[i] where a tensor is accepted -> tf.shape(x)[i], when traces show that dimension varying",
    doc=__doc__,
    golden="static-to-dynamic-shape",
)

#: TensorFlow calls whose shape argument (position, keyword) takes a list of sizes that may be tensors
SHAPE_ARGUMENTS = {
    "tensorflow.reshape": (1, "shape"),
    "tensorflow.zeros": (0, "shape"),
    "tensorflow.ones": (0, "shape"),
    "tensorflow.fill": (0, "dims"),
    "tensorflow.broadcast_to": (1, "shape"),
    "tensorflow.tile": (1, "multiples"),
    "tensorflow.image.resize": (1, "size"),
    "tensorflow.random.normal": (0, "shape"),
    "tensorflow.random.uniform": (0, "shape"),
    "tensorflow.random.truncated_normal": (0, "shape"),
    "tensorflow.random.stateless_normal": (0, "shape"),
    "tensorflow.random.stateless_uniform": (0, "shape"),
}
#: TensorFlow calls whose scalar arguments may be tensors
SCALAR_ARGUMENTS = {"tensorflow.range": ("start", "limit", "delta")}
_INT_OPERATORS = (cst.Add, cst.Subtract, cst.Multiply, cst.FloorDivide, cst.Modulo)


@dataclass
class _Read:
    """One static shape read to rewrite."""

    holder: str  # the tensor's name
    index: cst.BaseExpression | None  # the index expression, kept as written; None: the whole shape
    message: str
    function: cst.FunctionDef  # where the read is
    owners: tuple[str, ...]  # qualnames of the recorded tf.functions whose behaviour it changes
    subject: tuple


class StaticToDynamicShapeCommand(RetraceCodemod):
    RULES = (RULE,)
    ORDER = 14  # before RTF003: the signature it adds needs the dynamic reads
    TRIGGERS = (b"shape",)
    NEEDS_TRACES = True

    def transform_module_impl(self, tree: cst.Module) -> cst.Module:
        self._reads: dict[int, _Read] = {}
        if self.settings.traces is None or not self.analysis.tf_functions:
            return tree
        self._reads = _Planner(self).plan()
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


def whole_shape(node: cst.CSTNode) -> str | None:
    """The tensor's name of ``name.shape``, ``name.get_shape()`` or ``name.shape.as_list()`` / ``.get_shape().as_list()``."""
    if isinstance(node, cst.Call) and not node.args and isinstance(node.func, cst.Attribute):
        attr = node.func.attr.value
        if attr == "as_list":
            return whole_shape(node.func.value)
        if attr == "get_shape" and isinstance(node.func.value, cst.Name):
            return node.func.value.value
        return None
    if isinstance(node, cst.Attribute) and node.attr.value == "shape" and isinstance(node.value, cst.Name):
        return node.value.value
    return None


def static_read(node: cst.CSTNode) -> tuple[str, cst.BaseExpression] | None:
    """``(name, index)`` of ``name.shape[k]``, ``name.get_shape()[k]`` or ``name.shape.as_list()[k]``."""
    if not isinstance(node, cst.Subscript) or len(node.slice) != 1:
        return None
    element = node.slice[0].slice
    if not isinstance(element, cst.Index) or _integer(element.value) is None:
        return None
    base = node.value
    if isinstance(base, cst.Call) and not base.args and isinstance(base.func, cst.Attribute):
        attr = base.func.attr.value
        if attr == "as_list" and isinstance(base.func.value, cst.Attribute) and base.func.value.attr.value == "shape":
            base = base.func.value
        elif attr == "get_shape":
            base = cst.Attribute(value=base.func.value, attr=cst.Name("shape"))
        else:
            return None
    if isinstance(base, cst.Attribute) and base.attr.value == "shape" and isinstance(base.value, cst.Name):
        return base.value.value, element.value
    return None


def _integer(expr: cst.BaseExpression) -> int | None:
    if isinstance(expr, cst.Integer):
        return int(expr.value, 0)
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus) and isinstance(
        expr.expression, cst.Integer
    ):
        return -int(expr.expression.value, 0)
    return None


class _Planner:
    """Finds, on the unchanged tree, the reads to rewrite."""

    def __init__(self, codemod: StaticToDynamicShapeCommand) -> None:
        self.c = codemod
        self.analysis = codemod.analysis
        self.scope = CachedScope(self.analysis.table, codemod.context.scratch)
        self.reads: dict[int, _Read] = {}

    def plan(self) -> dict[int, _Read]:
        module_defs = {
            s.name.value: s for s in self.analysis.module.body
            if isinstance(s, cst.FunctionDef) and s not in self.analysis.tf_functions
        }
        rebound = {name for name in module_defs if self._module_bindings(name) != 1}
        helpers: dict[cst.FunctionDef, dict[str, tuple]] = {}
        for function, traces in traced_functions(self.c).items():
            site = self.analysis.tf_functions[function]
            params = [p.name for p in param_infos(function)]
            if site.class_name is not None and params and site.form != "wrap-call":
                params = params[1:]  # self
            varying = {}
            for param in params:
                found = traced_dims(traces, param)
                if found is None:
                    continue
                dims, sizes = found
                if dims is None or dims:
                    varying[param] = (dims, sizes)
            varying = {p: v for p, v in varying.items() if p not in _rebound_names(function)}
            if not varying:
                continue
            qualname = self.c.qualname(function)
            self._scan(function, varying, qualname, (qualname,), loops=True)
            for call, helper in self._helper_calls(function, module_defs, rebound):
                for param, arg in _bind(call, helper).items():
                    if isinstance(arg, cst.Name) and arg.value in varying:
                        entry = helpers.setdefault(helper, {})
                        if param not in entry:
                            entry[param] = (*varying[arg.value], qualname, arg.value)
        for helper, mapped in helpers.items():
            mapped = {p: v for p, v in mapped.items() if p not in _rebound_names(helper)}
            for param, (dims, sizes, caller, caller_param) in mapped.items():
                self._scan(helper, {param: (dims, sizes)}, self.c.qualname(helper), (caller,), loops=False,
                           via=(caller, caller_param))
        return self.reads

    def _module_bindings(self, name: str) -> int:
        count = 0
        for statement in self.analysis.module.body:
            if name in local_bindings_of_statement(statement):
                count += 1
        return count

    def _helper_calls(self, function: cst.FunctionDef, module_defs: dict, rebound: set) -> list:
        found = []
        shadowed = set(local_bindings(function))

        class _V(cst.CSTVisitor):
            def visit_Call(self, node: cst.Call) -> None:
                func = node.func
                if isinstance(func, cst.Name) and func.value in module_defs and func.value not in rebound \
                        and func.value not in shadowed:
                    found.append((node, module_defs[func.value]))

        function.body.visit(_V())
        return found

    def _scan(self, function: cst.FunctionDef, varying: dict, qualname: str, owners: tuple, loops: bool,
              via: tuple | None = None) -> None:
        parents = parent_map(function)
        scope = self.scope
        scope.push_function(function)
        try:
            counts: dict[str, int] = {}
            for node, holder, index, text in _reads_of(function, set(varying)):
                counts[text] = counts.get(text, 0) + 1
                subject = ("static-shape-read", qualname, f"{text}#{counts[text]}")
                dims, sizes = varying[holder]
                dim = self._dim(index, sizes)
                if dims is not None and (dim is None or dim not in dims):
                    continue  # a dimension that never varied: it stays static
                if not self._accepts(node, parents, function, loops):
                    continue
                seen = ", ".join("?" if s is None else str(s) for s in sizes.get(dim, [])) if dim is not None else ""
                varies = f"dim {dim} of `{holder}` varies in the recorded traces ({seen})" if seen else \
                    f"the rank of `{holder}` varies in the recorded traces"
                shown = short_code(node)
                if via is None:
                    message = (f"`{shown}` is a static size, and {varies}: read it at run time with "
                               f"`tf.shape({holder})[{short_code(index)}]`, so that a signature can leave it `None`")
                else:
                    caller, caller_param = via
                    varies = varies.replace(f"`{holder}`", f"`{caller_param}`", 1)
                    message = (f"`{shown}` in `{function.name.value}`, which `{caller}` calls with its "
                               f"`{caller_param}`, is a static size, and {varies}: read it at run time with "
                               f"`tf.shape({holder})[{short_code(index)}]`")
                self.reads[id(node)] = _Read(holder, index, message, function, owners, subject)
            self._whole_shapes(function, varying, parents, qualname, owners, via)
        finally:
            scope.pop_function()

    def _whole_shapes(self, function, varying: dict, parents: dict, qualname: str, owners: tuple, via) -> None:
        """``tf.zeros(x.shape)``, ``tf.reshape(y, x.shape)``: the whole static shape as a shape argument."""
        planner = self
        ordinals = _as_list_ordinals(function)

        class _V(cst.CSTVisitor):
            def visit_Call(self, node: cst.Call) -> None:
                expected = SHAPE_ARGUMENTS.get(planner.scope.qualify(node.func) or "")
                if expected is None:
                    return
                for arg in node.args:
                    holder = whole_shape(arg.value)
                    if holder is None or holder not in varying or not _is_argument(node, arg, *expected):
                        continue
                    if any(holder in local_bindings(f) for f in _nested_defs_around(parents, arg.value, function)):
                        continue
                    dims, sizes = varying[holder]
                    shown = short_code(arg.value)
                    if dims is None:
                        varies = f"the rank of `{holder}` varies in the recorded traces"
                    else:
                        varies = "; ".join(
                            f"dim {d} of `{holder}` varies ({', '.join('?' if v is None else str(v) for v in sizes.get(d, []))})"
                            for d in sorted(dims)
                        ) + " in the recorded traces"
                    where = "" if via is None else f" in `{function.name.value}`, which `{via[0]}` calls with its `{via[1]}`,"
                    if via is not None:
                        varies = varies.replace(f"`{holder}`", f"`{via[1]}`")
                    message = (f"`{shown}`{where} is a static shape, and {varies}: read it at run time with "
                               f"`tf.shape({holder})`")
                    ordinal = ordinals.get(id(arg.value))
                    text = f"{holder}.shape.as_list()#{ordinal}" if ordinal else f"{holder}.shape"
                    subject = ("static-shape-read", qualname, text)
                    planner.reads[id(arg.value)] = _Read(holder, None, message, function, owners, subject)

        function.body.visit(_V())

    @staticmethod
    def _dim(index: cst.BaseExpression, sizes: dict) -> int | None:
        k = _integer(index)
        if k is None:
            return None
        if k >= 0:
            return k
        rank = len(sizes) if sizes else None
        return rank + k if rank is not None and rank + k >= 0 else None

    # -- where a tensor is accepted
    def _accepts(self, node: cst.CSTNode, parents: dict, function: cst.FunctionDef, loops: bool,
                 depth: int = 0) -> bool:
        current = node
        while True:
            parent = parents.get(id(current))
            if isinstance(parent, cst.BinaryOperation) and isinstance(parent.operator, _INT_OPERATORS):
                other = parent.right if parent.left is current else parent.left
                if not _int_like(other):
                    return False
                current = parent
                continue
            if isinstance(parent, cst.UnaryOperation) and isinstance(parent.operator, cst.Minus):
                current = parent
                continue
            break
        if isinstance(parent, cst.Element):
            container = parents.get(id(parent))
            arg = parents.get(id(container))
            call = parents.get(id(arg))
            if isinstance(container, (cst.List, cst.Tuple)) and isinstance(arg, cst.Arg) and isinstance(call, cst.Call):
                expected = SHAPE_ARGUMENTS.get(self.scope.qualify(call.func) or "")
                return expected is not None and _is_argument(call, arg, *expected)
            return False
        if isinstance(parent, cst.Arg) and parent.value is current:
            call = parents.get(id(parent))
            if not isinstance(call, cst.Call) or parent.star:
                return False
            q = self.scope.qualify(call.func) or ""
            if q in SCALAR_ARGUMENTS:
                return parent.keyword is None or parent.keyword.value in SCALAR_ARGUMENTS[q]
            if q == "builtins.range" and loops:
                loop = parents.get(id(call))
                if isinstance(loop, cst.For) and loop.iter is call and range_call(loop, self.scope) is call:
                    return not loop_blockers(loop, self.scope, function=function,
                                             tensor_names=self._tensor_names(function))
            return False
        if isinstance(parent, cst.Assign) and parent.value is current and depth == 0:
            targets = parent.targets
            if len(targets) != 1 or not isinstance(targets[0].target, cst.Name):
                return False
            name = targets[0].target.value
            uses = _loads_of(function, name)
            if _bindings_count(function, name) != 1 or not uses:
                return False
            return all(self._accepts(use, parents, function, loops, depth + 1) for use in uses)
        return False

    def _tensor_names(self, function: cst.FunctionDef) -> set[str]:
        traced = traced_functions(self.c).get(function)
        if traced is None:
            return set()
        return {
            name for name in traced.params
            if traced.traces and all(t.args.get(name, {}).get("kind") == "tensor" for t in traced.traces)
        }


# --------------------------------------------------------------------------- small facts


def local_bindings_of_statement(statement: cst.CSTNode) -> set[str]:
    """Names a module-level statement binds (defs, classes, assignments, imports)."""
    if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
        return {statement.name.value}
    names: set[str] = set()

    class _V(cst.CSTVisitor):
        def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
            names.update(target_names(node.target))

        def visit_AugAssign(self, node: cst.AugAssign) -> None:
            names.update(target_names(node.target))

        def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
            names.update(target_names(node.target))

        def visit_ImportAlias(self, node: cst.ImportAlias) -> None:
            bound = node.asname.name if node.asname is not None else node.name
            while isinstance(bound, cst.Attribute):
                bound = bound.value
            if isinstance(bound, cst.Name):
                names.add(bound.value)

        def visit_For(self, node: cst.For) -> None:
            names.update(target_names(node.target))

        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            names.add(node.name.value)
            return False

        def visit_ClassDef(self, node: cst.ClassDef) -> bool:
            names.add(node.name.value)
            return False

    statement.visit(_V())
    return names


def _rebound_names(function: cst.FunctionDef) -> set[str]:
    """Names the function's body binds (its parameters rebound included)."""
    names: set[str] = set()

    class _V(cst.CSTVisitor):
        def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
            names.update(target_names(node.target))

        def visit_AugAssign(self, node: cst.AugAssign) -> None:
            names.update(target_names(node.target))

        def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
            names.update(target_names(node.target))

        def visit_For(self, node: cst.For) -> None:
            names.update(target_names(node.target))

        def visit_AsName(self, node: cst.AsName) -> None:
            names.update(target_names(node.name))

        def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
            names.update(target_names(node.target))

        def visit_Global(self, node: cst.Global) -> None:
            names.update(item.name.value for item in node.names)

        def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
            names.update(item.name.value for item in node.names)

    function.body.visit(_V())
    return names


def _bindings_count(function: cst.FunctionDef, name: str) -> int:
    count = 0

    class _V(cst.CSTVisitor):
        def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
            nonlocal count
            count += target_names(node.target).count(name)

        def _twice(self, target: cst.BaseExpression) -> None:
            nonlocal count
            count += 2 * target_names(target).count(name)  # rebound on every pass: never "bound once"

        def visit_AugAssign(self, node: cst.AugAssign) -> None:
            self._twice(node.target)

        def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
            nonlocal count
            count += target_names(node.target).count(name)

        def visit_For(self, node: cst.For) -> None:
            self._twice(node.target)

        def visit_AsName(self, node: cst.AsName) -> None:
            nonlocal count
            count += target_names(node.name).count(name)

        def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
            nonlocal count
            count += target_names(node.target).count(name)

        def visit_Param(self, node: cst.Param) -> None:
            nonlocal count
            count += node.name.value == name

        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            return node is function

        def visit_Lambda(self, node: cst.Lambda) -> bool:
            return False

    function.visit(_V())
    return count


def _shadowing(node: cst.CSTNode, names: set[str]) -> set[str]:
    """The names among ``names`` that a nested def or lambda binds (reads inside are not ours)."""
    if isinstance(node, (cst.FunctionDef, cst.Lambda)):
        return set(local_bindings(node)) & names
    return set()


def _shape_aliases(function: cst.FunctionDef, names: set[str]) -> dict[str, str]:
    """Locals bound once to a static shape of one of ``names``: ``shape = x.get_shape().as_list()`` -> x."""
    aliases: dict[str, str] = {}

    class _V(cst.CSTVisitor):
        def visit_Assign(self, node: cst.Assign) -> None:
            if len(node.targets) != 1 or not isinstance(node.targets[0].target, cst.Name):
                return
            value = node.value
            if isinstance(value, cst.Call) and not value.args and isinstance(value.func, cst.Attribute) and \
                    value.func.attr.value in ("as_list", "get_shape"):
                value = value.func.value if value.func.attr.value == "as_list" else \
                    cst.Attribute(value=value.func.value, attr=cst.Name("shape"))
            if isinstance(value, cst.Call) and not value.args and isinstance(value.func, cst.Attribute) and \
                    value.func.attr.value == "get_shape":
                value = cst.Attribute(value=value.func.value, attr=cst.Name("shape"))
            if isinstance(value, cst.Attribute) and value.attr.value == "shape" and \
                    isinstance(value.value, cst.Name) and value.value.value in names:
                aliases[node.targets[0].target.value] = value.value.value

        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            return node is function

    function.visit(_V())
    return {alias: x for alias, x in aliases.items() if alias not in names and _bindings_count(function, alias) == 1}


def _reads_of(function: cst.FunctionDef, names: set[str]) -> list[tuple[cst.Subscript, str, cst.BaseExpression, str]]:
    """Static shape reads of ``names`` in ``function``'s body, in source order (nested scopes that rebind
    skipped): ``(node, tensor name, index, how it reads)``; ``shape[k]`` of ``shape = x.shape`` included."""
    found: list = []
    aliases = _shape_aliases(function, names)

    class _V(cst.CSTVisitor):
        def __init__(self) -> None:
            self.hidden: list[set[str]] = []

        def on_visit(self, node: cst.CSTNode) -> bool:
            hidden = _shadowing(node, names)
            self.hidden.append(hidden)
            if isinstance(node, cst.Subscript):
                read = static_read(node)
                if read is not None and read[0] in names and not any(read[0] in h for h in self.hidden):
                    found.append((node, read[0], read[1], f"{read[0]}.shape[{short_code(read[1])}]"))
                    return False
                alias = _alias_read(node, aliases)
                if alias is not None and not any(alias[0] in h or aliases[alias[0]] in h for h in self.hidden):
                    found.append((node, aliases[alias[0]], alias[1], f"{alias[0]}[{short_code(alias[1])}]"))
                    return False
            return True

        def on_leave(self, original_node: cst.CSTNode) -> None:
            self.hidden.pop()

    function.body.visit(_V())
    return found


def _alias_read(node: cst.Subscript, aliases: dict[str, str]) -> tuple[str, cst.BaseExpression] | None:
    if not isinstance(node.value, cst.Name) or node.value.value not in aliases or len(node.slice) != 1:
        return None
    element = node.slice[0].slice
    if isinstance(element, cst.Index) and _integer(element.value) is not None:
        return node.value.value, element.value
    return None


def _as_list_ordinals(function: cst.FunctionDef) -> dict[int, int]:
    """id of each ``x.shape.as_list()`` call -> its ordinal among the ``.as_list()`` reads of ``x`` in
    the function (source order): RTF106 names the same read by it."""
    ordinals: dict[int, int] = {}
    counts: dict[str, int] = {}

    class _V(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            func = node.func
            if isinstance(func, cst.Attribute) and func.attr.value == "as_list" and \
                    isinstance(func.value, cst.Attribute) and func.value.attr.value == "shape" and \
                    isinstance(func.value.value, cst.Name):
                name = func.value.value.value
                counts[name] = counts.get(name, 0) + 1
                ordinals[id(node)] = counts[name]

    function.body.visit(_V())
    return ordinals


def _nested_defs_around(parents: dict, node: cst.CSTNode, function: cst.FunctionDef) -> list:
    """The defs and lambdas between ``node`` and ``function`` (they may rebind its names)."""
    found = []
    current = parents.get(id(node))
    while current is not None and current is not function:
        if isinstance(current, (cst.FunctionDef, cst.Lambda)):
            found.append(current)
        current = parents.get(id(current))
    return found


def _loads_of(function: cst.FunctionDef, name: str) -> list[cst.Name]:
    """Every read of local ``name`` in ``function`` (nested scopes that rebind it skipped)."""
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
            return not isinstance(node.target, cst.Name)  # `a[batch] = ...` reads it

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


def _int_like(expr: cst.BaseExpression) -> bool:
    """An integer the same as a Python value or as an int32 tensor: literals, shape reads, their arithmetic."""
    if _integer(expr) is not None:
        return True
    if static_read(expr) is not None:
        return True
    if isinstance(expr, cst.Subscript) and isinstance(expr.value, cst.Call) and \
            isinstance(expr.value.func, cst.Attribute) and expr.value.func.attr.value == "shape":
        return True  # tf.shape(y)[k]
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, _INT_OPERATORS):
        return _int_like(expr.left) and _int_like(expr.right)
    return False


def _is_argument(call: cst.Call, arg: cst.Arg, position: int, keyword: str) -> bool:
    if arg.keyword is not None:
        return arg.keyword.value == keyword
    positional = [a for a in call.args if a.keyword is None and not a.star]
    return len(positional) > position and positional[position] is arg


def _bind(call: cst.Call, helper: cst.FunctionDef) -> dict[str, cst.BaseExpression]:
    """Parameter of ``helper`` -> the argument ``call`` passes it (plain positional and keyword arguments)."""
    params = [p.name.value for p in named_params(helper.params, keyword_only=False)]
    names = set(params) | {p.name.value for p in helper.params.kwonly_params}
    bound: dict[str, cst.BaseExpression] = {}
    index = 0
    for arg in call.args:
        if arg.star:
            return bound
        if arg.keyword is None:
            if index < len(params):
                bound[params[index]] = arg.value
            index += 1
        elif arg.keyword.value in names:
            bound[arg.keyword.value] = arg.value
    return bound


__all__ = ["SHAPE_ARGUMENTS", "StaticToDynamicShapeCommand", "static_read"]
