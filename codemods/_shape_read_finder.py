"""RTF008's decisions: which static shape reads become ``tf.shape(x)[k]``.

:class:`ReadFinder` reads each tf.function of the unchanged tree with its recorded
traces and finds the ``x.shape[k]`` reads (and their spellings, aliases such as
``shape = x.shape``, and reads in module-level helpers the function calls) of a
dimension that the traces show varying, where a tensor is accepted: one
:class:`ShapeRead` each.  The small facts it reads are functions here too.  The
command in :mod:`retrace_fix.codemods.static_to_dynamic_shape` reports them and
makes the edits.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from retrace_fix.codemods._base import RetraceCodemod
from retrace_fix.codemods._loop_safety import loop_blockers
from retrace_fix.codemods._module_reader import ModuleReader
from retrace_fix.codemods._static_shapes import integer, static_read
from retrace_fix.codemods._tf_values import range_call
from retrace_fix.codemods._traced_functions import param_infos, traced_dims, traced_functions
from retrace_fix.cst_tree import parent_map
from retrace_fix.node_text import short_code
from retrace_fix.tfnames import binding_sites, loads_of, local_bindings, named_params, statement_binds, times_bound


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
class ShapeRead:
    """One static shape read to rewrite."""

    holder: str  # the tensor's name
    index: cst.BaseExpression | None  # the index expression, kept as written; None: the whole shape
    message: str
    function: cst.FunctionDef  # where the read is
    owners: tuple[str, ...]  # qualnames of the recorded tf.functions whose behaviour it changes
    subject: tuple


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


class ReadFinder(ModuleReader):
    """Finds, on the unchanged tree, the reads to rewrite."""

    def __init__(self, codemod: RetraceCodemod) -> None:
        super().__init__(codemod)
        self.reads: dict[int, ShapeRead] = {}

    def find(self) -> dict[int, ShapeRead]:
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
            if name in statement_binds(statement):
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
                self.reads[id(node)] = ShapeRead(holder, index, message, function, owners, subject)
            self._whole_shapes(function, varying, parents, qualname, owners, via)
        finally:
            scope.pop_function()

    def _whole_shapes(self, function, varying: dict, parents: dict, qualname: str, owners: tuple, via) -> None:
        """``tf.zeros(x.shape)``, ``tf.reshape(y, x.shape)``: the whole static shape as a shape argument."""
        finder = self
        ordinals = _as_list_ordinals(function)

        class _V(cst.CSTVisitor):
            def visit_Call(self, node: cst.Call) -> None:
                expected = SHAPE_ARGUMENTS.get(finder.scope.qualify(node.func) or "")
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
                    finder.reads[id(arg.value)] = ShapeRead(holder, None, message, function, owners, subject)

        function.body.visit(_V())

    @staticmethod
    def _dim(index: cst.BaseExpression, sizes: dict) -> int | None:
        k = integer(index)
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
            uses = loads_of(function, name)
            if times_bound(function, name) != 1 or not uses:
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


def _rebound_names(function: cst.FunctionDef) -> set[str]:
    """Names the function's body binds or declares, in nested scopes too (its parameters rebound
    included, the parameters of nested functions not)."""
    return {name for name, node in binding_sites(function.body, nested=True) if not isinstance(node, cst.Param)}


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
    return {alias: x for alias, x in aliases.items() if alias not in names and times_bound(function, alias) == 1}


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
    if isinstance(element, cst.Index) and integer(element.value) is not None:
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


def _int_like(expr: cst.BaseExpression) -> bool:
    """An integer the same as a Python value or as an int32 tensor: literals, shape reads, their arithmetic."""
    if integer(expr) is not None:
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
