"""Who calls which tf.function with what, in one module.

Shared by RTF001 (may a step-count parameter become a tensor at its call
sites?) and the call-site diagnostics (RTF101 per-call tf.functions, RTF103
varying Python arguments, RTF104 new objects per call, RTF105 dtype drift).

One walk over the module records

* the tf.functions a call can name: module-level ``@tf.function`` defs,
  module-level ``g = tf.function(f, ...)`` names, and methods (called as
  ``self.m(...)`` inside their class, or ``obj.m(...)`` when ``m`` names one def
  in the module);
* every call of them, with each argument bound to its parameter, the loops
  around the call (in the same function) and the function it sits in;
* every binding of every name, per scope, in source order with the loops around
  it, so an argument ``x`` can be traced to the assignments that reach the call
  (earlier in the same scope, or anywhere in a loop that also contains the call);
* every call of any plain function or method name (to tell whether a function
  that creates a tf.function is called repeatedly).

Pure LibCST; never imports TensorFlow.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from retrace_fix.analysis import ModuleAnalysis, TfFunctionSite
from retrace_fix.tfnames import Scope, dotted_name, local_bindings, named_params

_CACHE_KEY = "retrace_fix.callsites"
_BINDINGS_KEY = "retrace_fix.local_bindings"


class CachedScope(Scope):
    """A :class:`Scope` whose per-function binding tables are computed once per node.

    The cache lives in ``context.scratch`` and is keyed by node identity, so the
    codemods of one run share it; functions an earlier codemod rewrote are new
    nodes and get fresh tables.
    """

    def __init__(self, table, scratch: dict | None = None) -> None:
        super().__init__(table)
        cache = scratch.setdefault(_BINDINGS_KEY, {}) if scratch is not None else {}
        self._cache: dict = cache

    def push_function(self, node) -> None:
        frame = self._cache.get(node)
        if frame is None:
            frame = self._cache[node] = local_bindings(node)
        self._locals.append(frame)

    def bindings(self, node) -> dict:
        frame = self._cache.get(node)
        if frame is None:
            frame = self._cache[node] = local_bindings(node)
        return frame


@dataclass
class Binding:
    """One binding of a name: ``x = value``, ``for x in iter``, ``x += value``, a parameter."""

    name: str
    kind: str  # assign | for | aug | param | other
    value: cst.BaseExpression | None
    order: int
    loops: tuple[cst.CSTNode, ...]
    node: cst.CSTNode
    iter: cst.BaseExpression | None = None  # for-bindings: the iterable
    index: int | None = None  # for-bindings: position in a tuple target (enumerate)
    chain: tuple = ()  # conditional blocks (if/else/loop/try bodies) around it, same function


@dataclass
class TfCallable:
    """A tf.function this module can call by name."""

    name: str  # the called name: "train" or, for methods, the attribute "step"
    node: cst.FunctionDef
    site: TfFunctionSite
    params: list[str]  # positional-or-keyword parameters, without self/cls for methods
    kwonly: list[str]
    has_varargs: bool
    is_method: bool
    class_name: str | None

    @property
    def all_params(self) -> list[str]:
        return [*self.params, *self.kwonly]


@dataclass
class CallSite:
    call: cst.Call
    callee: TfCallable
    args: dict[str, cst.BaseExpression]  # parameter -> argument expression
    order: int
    loops: tuple[cst.CSTNode, ...]  # loops around the call, same function, outermost first
    function: cst.FunctionDef | None  # innermost enclosing def (None: module level)
    functions: tuple[cst.FunctionDef, ...]
    complete: bool  # False when *args/**kwargs made the binding unknowable
    chain: tuple = ()  # conditional blocks around the call, same function


@dataclass
class PlainCall:
    call: cst.Call
    loops: tuple[cst.CSTNode, ...]
    function: cst.FunctionDef | None
    in_loop_anywhere: bool  # inside a loop of any enclosing function or comprehension


@dataclass
class Evidence:
    """What a call-site argument tells about the Python value passed."""

    kind: str  # literal | loop-variable | counter
    type: str | None  # int | float | str | bool | None (unknown)
    value: object = None  # for literals
    node: cst.CSTNode | None = None


@dataclass
class ModuleCalls:
    module: cst.Module
    callables: dict[str, TfCallable] = field(default_factory=dict)
    calls: list[CallSite] = field(default_factory=list)
    plain_calls: dict[str, list[PlainCall]] = field(default_factory=dict)
    bindings: dict[object, dict[str, list[Binding]]] = field(default_factory=dict)
    classes: dict[str, cst.ClassDef] = field(default_factory=dict)
    def_names: dict[str, int] = field(default_factory=dict)  # def name -> how many defs
    # the same split by how a call finds them: methods (obj.name) and every other def (a bare name)
    method_def_names: dict[str, int] = field(default_factory=dict)
    plain_def_names: dict[str, int] = field(default_factory=dict)

    # ---------------------------------------------------------------- building

    @classmethod
    def get(cls, analysis: ModuleAnalysis, scratch: dict) -> "ModuleCalls":
        cached = scratch.get(_CACHE_KEY)
        if cached is not None and cached.module is analysis.module:
            return cached
        result = cls.build(analysis, scratch)
        scratch[_CACHE_KEY] = result
        return result

    @classmethod
    def build(cls, analysis: ModuleAnalysis, scratch: dict | None = None) -> "ModuleCalls":
        result = cls(module=analysis.module)
        collector = _Collector(result, analysis, CachedScope(analysis.table, scratch))
        analysis.module.visit(collector)
        collector.finish()
        return result

    # ---------------------------------------------------------------- queries

    def calls_of(self, callee: TfCallable) -> list[CallSite]:
        return [c for c in self.calls if c.callee is callee]

    def callable_for(self, node: cst.FunctionDef) -> TfCallable | None:
        for c in self.callables.values():
            if c.node is node:
                return c
        return None

    def reaching(self, site: CallSite, name: str) -> list[Binding]:
        """Bindings of ``name`` that can reach a call.

        Earlier bindings in the call's scope, back to the last one that runs on
        every path to the call (its conditional blocks enclose the call); plus
        bindings later in a loop that also contains the call, unless that
        unconditional binding sits inside the same loop.
        """
        for function in reversed(site.functions):
            scoped = self.bindings.get(function, {}).get(name)
            if scoped:
                if function is site.function:
                    return _reaching(scoped, site)
                return list(scoped)  # a closure variable: any binding of the enclosing function
        scoped = self.bindings.get(None, {}).get(name, [])
        if site.function is None:
            return _reaching(scoped, site)
        return list(scoped)

    def scalar_evidence(self, site: CallSite, expr: cst.BaseExpression) -> list[Evidence]:
        """Python-scalar facts about ``expr`` passed at ``site`` (empty: not known to be a Python scalar)."""
        literal = literal_value(expr)
        if literal is not None:
            return [Evidence("literal", literal[0], literal[1], expr)]
        if isinstance(expr, cst.BinaryOperation):
            left, right = self.scalar_evidence(site, expr.left), self.scalar_evidence(site, expr.right)
            if not left or not right:
                return []  # an operand not known to be a Python scalar (`tf.ones([4]) * epoch`): maybe a tensor
            return [Evidence(e.kind, e.type, None, expr) for e in left + right if e.kind != "literal"]
        if not isinstance(expr, cst.Name):
            return []
        found: list[Evidence] = []
        bindings = self.reaching(site, expr.value)
        for b in bindings:
            if b.kind == "for" and b.node in site.loops:
                item_type = iterable_item_type(b.iter, b.index)
                if item_type is not None:
                    found.append(Evidence("loop-variable", item_type, None, b.node))
            elif b.kind == "aug" and set(b.loops) & set(site.loops):
                lit = literal_value(b.value) if b.value is not None else None
                found.append(Evidence("counter", lit[0] if lit else None, None, b.node))
        if found:
            return found
        if bindings and all(b.kind == "assign" and literal_value(b.value) is not None for b in bindings):
            return [Evidence("literal", *literal_value(b.value), b.node) for b in bindings]  # type: ignore[misc]
        return []

    def creation_sites(self, site: CallSite, expr: cst.BaseExpression, scope: Scope) -> list[tuple[cst.CSTNode, str, bool]]:
        """``(node, class name, per_iteration)`` for each object construction ``expr`` may pass.

        Only constructions of classes compared by identity: a class of this module
        without ``__eq__``/``__hash__``/``__tf_tracing_type__`` (and not a
        dataclass or NamedTuple), or a Keras model/layer/optimizer.
        """
        if isinstance(expr, cst.Call):
            name = self.object_class(expr, scope)
            if name:
                return [(expr, name, bool(site.loops))]
            return []
        if not isinstance(expr, cst.Name):
            return []
        out = []
        for b in self.reaching(site, expr.value):
            if b.kind == "assign" and isinstance(b.value, cst.Call):
                name = self.object_class(b.value, scope)
                if name:
                    per_iteration = bool(set(b.loops) & set(site.loops))
                    out.append((b.node, name, per_iteration))
        return out

    def object_class(self, call: cst.Call, scope: Scope) -> str | None:
        name = dotted_name(call.func)
        if name is None:
            return None
        cls = self.classes.get(name)
        if cls is not None:
            return name if compared_by_identity(cls) else None
        q = scope.qualify(call.func)
        if q is None:
            return None
        last = q.rsplit(".", 1)[-1]
        if q.startswith("keras.") and last[:1].isupper() and not q.startswith(("keras.ops", "keras.backend")):
            return name
        if q in ("keras.models.load_model", "keras.saving.load_model", "keras.models.clone_model"):
            return name
        return None

    def repeated_calls(self, name: str) -> list[PlainCall]:
        """Calls of a function or method named ``name`` that run repeatedly: inside a loop or comprehension.

        (Two call sites are not enough: a factory called twice usually builds two
        different functions on purpose.)
        """
        return [c for c in self.plain_calls.get(name, []) if c.in_loop_anywhere]


def _reaching(bindings: list[Binding], site: CallSite) -> list[Binding]:
    before = [b for b in bindings if b.order < site.order]
    killer = None
    for b in before:
        if b.kind in ("assign", "for", "param", "other") and site.chain[: len(b.chain)] == b.chain:
            killer = b  # runs on every path to the call (latest wins)
    if killer is None:
        out = list(before)
    else:
        out = [b for b in before if b.order >= killer.order]
    for b in bindings:
        if b.order > site.order:
            shared = set(b.loops) & set(site.loops)
            if shared and (killer is None or not (shared & set(killer.loops))):
                out.append(b)
    return out


# --------------------------------------------------------------------------- value helpers


def literal_value(expr: cst.BaseExpression | None) -> tuple[str, object] | None:
    """``("int", 10)`` for a Python literal argument, else None."""
    if expr is None:
        return None
    if isinstance(expr, cst.Integer):
        return ("int", expr.evaluated_value)
    if isinstance(expr, cst.Float):
        return ("float", expr.evaluated_value)
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
        inner = literal_value(expr.expression)
        if inner is not None and inner[0] in ("int", "float"):
            return (inner[0], -inner[1])  # type: ignore[operator]
        return None
    if isinstance(expr, cst.SimpleString):
        try:
            value = expr.evaluated_value
        except Exception:  # pragma: no cover
            return None
        return ("str", value) if isinstance(value, str) else None
    if isinstance(expr, cst.Name) and expr.value in ("True", "False"):
        return ("bool", expr.value == "True")
    return None


def iterable_item_type(it: cst.BaseExpression | None, index: int | None) -> str | None:
    """The Python type of a loop variable: ``range`` → int, ``[10, 20]`` → int, ``enumerate`` index → int."""
    if it is None:
        return None
    if isinstance(it, cst.Call) and isinstance(it.func, cst.Name):
        if it.func.value == "range" and index is None:
            return "int"
        if it.func.value == "enumerate" and index == 0:
            return "int"
        return None
    if isinstance(it, (cst.List, cst.Tuple, cst.Set)) and index is None and it.elements:
        types = set()
        for element in it.elements:
            lit = literal_value(element.value)
            if lit is None:
                return None
            types.add(lit[0])
        return types.pop() if len(types) == 1 else None
    return None


def compared_by_identity(cls: cst.ClassDef) -> bool:
    """Does tf.function key instances of this class by identity (a new one retraces)?"""
    for decorator in cls.decorators:
        name = dotted_name(decorator.decorator if not isinstance(decorator.decorator, cst.Call)
                           else decorator.decorator.func) or ""
        if name.split(".")[-1] in ("dataclass", "define", "frozen", "attrs", "s"):
            return False
    for base in cls.bases:
        name = dotted_name(base.value) or ""
        if name.split(".")[-1] in ("NamedTuple", "Enum", "IntEnum", "ExtensionType", "BatchableExtensionType"):
            return False
    for statement in cls.body.body:
        if isinstance(statement, cst.FunctionDef) and statement.name.value in (
            "__eq__", "__hash__", "__tf_tracing_type__", "__tf_flatten__"
        ):
            return False
    return True


# --------------------------------------------------------------------------- the walk


class _Collector(cst.CSTVisitor):
    def __init__(self, result: ModuleCalls, analysis: ModuleAnalysis, scope: "CachedScope") -> None:
        self.result = result
        self.analysis = analysis
        self.scope = scope
        self.order = 0
        self.functions: list[cst.FunctionDef] = []
        self.classes: list[cst.ClassDef] = []
        self.loops: list[list[cst.CSTNode]] = [[]]  # one loop stack per function scope
        self.any_loop_depth: list[int] = [0]
        self.raw_calls: list[tuple] = []
        self.chains: list[list[cst.CSTNode]] = [[]]  # conditional blocks per function scope
        self._conditional: set[int] = set()
        self.wrap_names: dict[cst.Call, str] = {}
        self.module_defs: dict[str, cst.FunctionDef] = {}
        self.containers: list[str] = []  # "class" / "def", innermost last: is this def a method?

    # -- scopes
    def _in_class_body(self) -> bool:
        return bool(self.containers) and self.containers[-1] == "class"

    def _key(self):
        return self.functions[-1] if self.functions else None

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        if not self.functions and not self.classes:
            self.result.classes[node.name.value] = node
        self.classes.append(node)
        self.containers.append("class")

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self.classes.pop()
        self.containers.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        name = node.name.value
        self.result.def_names[name] = self.result.def_names.get(name, 0) + 1
        by_kind = self.result.method_def_names if self._in_class_body() else self.result.plain_def_names
        by_kind[name] = by_kind.get(name, 0) + 1
        self.containers.append("def")
        if not self.functions and not self.classes:
            self.module_defs[node.name.value] = node
        self._bind_name(node.name.value, "other", None, node)
        self.functions.append(node)
        self.scope.push_function(node)
        self.loops.append([])
        self.chains.append([])
        self.any_loop_depth.append(self.any_loop_depth[-1])
        for param in named_params(node.params):
            self._bind_name(param.name.value, "param", param.default, param)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.containers.pop()
        self.functions.pop()
        self.scope.pop_function()
        self.loops.pop()
        self.chains.pop()
        self.any_loop_depth.pop()

    # -- conditional blocks
    def visit_If(self, node: cst.If) -> None:
        self._conditional.add(id(node.body))

    def visit_Else(self, node: cst.Else) -> None:
        self._conditional.add(id(node.body))

    def visit_Try(self, node: cst.Try) -> None:
        self._conditional.add(id(node.body))

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        self._conditional.add(id(node.body))

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        if id(node) in self._conditional:
            self.chains[-1].append(node)

    def leave_IndentedBlock(self, original_node: cst.IndentedBlock) -> None:
        if self.chains[-1] and self.chains[-1][-1] is original_node:
            self.chains[-1].pop()

    def visit_Lambda(self, node: cst.Lambda) -> None:
        self.scope.push_function(node)

    def leave_Lambda(self, original_node: cst.Lambda) -> None:
        self.scope.pop_function()

    # -- loops
    def _enter_loop(self, node: cst.CSTNode) -> None:
        self.loops[-1].append(node)
        self.chains[-1].append(node)
        self.any_loop_depth[-1] += 1

    def _leave_loop(self) -> None:
        self.loops[-1].pop()
        self.chains[-1].pop()
        self.any_loop_depth[-1] -= 1

    def visit_For(self, node: cst.For) -> bool:
        # the iterable is evaluated once, outside the loop
        node.iter.visit(self)
        self._enter_loop(node)
        self._bind_target(node.target, "for", None, node, it=node.iter)
        node.target.visit(self)
        node.body.visit(self)
        self._leave_loop()
        if node.orelse is not None:
            node.orelse.visit(self)
        return False

    def visit_While(self, node: cst.While) -> None:
        self._enter_loop(node)

    def leave_While(self, original_node: cst.While) -> None:
        self._leave_loop()

    def _comp_enter(self, node) -> None:
        self._enter_loop(node)
        comp = node.for_in
        while comp is not None:  # comprehension targets: loop variables of this comprehension
            self._bind_target(comp.target, "for", None, node, it=comp.iter)
            comp = comp.inner_for_in

    def _comp_leave(self) -> None:
        self._leave_loop()

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _comp_enter

    def leave_ListComp(self, original_node) -> None:
        self._comp_leave()

    leave_SetComp = leave_DictComp = leave_GeneratorExp = leave_ListComp

    # -- bindings
    def _bind_name(self, name: str, kind: str, value, node, it=None, index=None) -> None:
        self.order += 1
        self.result.bindings.setdefault(self._key(), {}).setdefault(name, []).append(
            Binding(name, kind, value, self.order, tuple(self.loops[-1]), node, it, index, tuple(self.chains[-1]))
        )

    def _bind_target(self, target, kind, value, node, it=None) -> None:
        if isinstance(target, cst.Name):
            self._bind_name(target.value, kind, value, node, it=it)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for index, element in enumerate(target.elements):
                inner = element.value
                if isinstance(inner, cst.Name):
                    self._bind_name(inner.value, kind if kind == "for" else "other", None, node, it=it, index=index)
                else:
                    self._bind_target(inner, "other", None, node)
        elif isinstance(target, cst.StarredElement):
            self._bind_target(target.value, "other", None, node)

    def visit_Assign(self, node: cst.Assign) -> None:
        pass

    def leave_Assign(self, original_node: cst.Assign) -> None:
        for target in original_node.targets:
            self._bind_target(target.target, "assign", original_node.value, original_node)
            if (
                not self.functions
                and not self.classes
                and isinstance(target.target, cst.Name)
                and isinstance(original_node.value, cst.Call)
            ):
                value = original_node.value
                for call in (value, value.func if isinstance(value.func, cst.Call) else None):
                    if call is not None:
                        self.wrap_names[call] = target.target.value

    def leave_AnnAssign(self, original_node: cst.AnnAssign) -> None:
        if original_node.value is not None:
            self._bind_target(original_node.target, "assign", original_node.value, original_node)

    def leave_AugAssign(self, original_node: cst.AugAssign) -> None:
        self._bind_target(original_node.target, "aug", original_node.value, original_node)

    def visit_AsName(self, node: cst.AsName) -> None:
        self._bind_target(node.name, "other", None, node)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._bind_target(node.target, "assign", node.value, node)

    # -- calls
    def visit_Call(self, node: cst.Call) -> None:
        self.order += 1
        self.raw_calls.append(
            (node, self.order, tuple(self.loops[-1]), tuple(self.functions), tuple(self.classes),
             self.any_loop_depth[-1] > 0, tuple(self.chains[-1]), self._in_class_body())
        )

    # -- resolution
    def finish(self) -> None:
        result = self.result
        sites = self.analysis.tf_functions
        # tf.functions callable by name; a name that two of them claim (a method and a function) is dropped
        claimed: dict[str, int] = {}
        for node, site in sites.items():
            is_method = site.class_name is not None
            if site.form == "wrap-call":
                name = self.wrap_names.get(site.call) if site.call is not None else None
                if name is None:
                    continue
                is_method = False
            elif is_method:
                name = node.name.value
                if result.method_def_names.get(name, 0) != 1:  # obj.name(...) could reach another class's
                    continue
            elif self.module_defs.get(node.name.value) is node and result.plain_def_names.get(node.name.value) == 1:
                name = node.name.value  # a method of the same name is never reached by a bare name
            else:
                continue
            claimed[name] = claimed.get(name, 0) + 1
            params = [p.name.value for p in named_params(node.params, keyword_only=False)]
            if site.class_name is not None and site.form != "wrap-call" and params and params[0] in ("self", "cls"):
                params = params[1:]
            result.callables[name] = TfCallable(
                name=name,
                node=node,
                site=site,
                params=params,
                kwonly=[p.name.value for p in node.params.kwonly_params],
                has_varargs=isinstance(node.params.star_arg, cst.Param),
                is_method=is_method,
                class_name=site.class_name,
            )
        for name, count in claimed.items():
            if count > 1:
                del result.callables[name]

        def binds(function: cst.FunctionDef, name: str) -> bool:
            return name in self.scope.bindings(function)

        for call, order, loops, functions, classes, in_loop, chain, in_class_body in self.raw_calls:
            func = call.func
            name = None
            if isinstance(func, cst.Name):
                name = func.value
                if in_class_body and name in result.method_def_names:
                    continue  # a class body sees its own methods by bare name
                if any(binds(f, name) for f in functions):
                    shadowed = True
                else:
                    shadowed = False
                if not shadowed:
                    result.plain_calls.setdefault(name, []).append(
                        PlainCall(call, loops, functions[-1] if functions else None, in_loop)
                    )
                callee = result.callables.get(name)
                if callee is None or shadowed or callee.is_method:
                    continue
            elif isinstance(func, cst.Attribute):
                name = func.attr.value
                result.plain_calls.setdefault(name, []).append(
                    PlainCall(call, loops, functions[-1] if functions else None, in_loop)
                )
                callee = result.callables.get(name)
                if callee is None or not callee.is_method:
                    continue
            else:
                continue
            args, complete = _bind_args(call, callee)
            site = CallSite(call, callee, args, order, loops, functions[-1] if functions else None, functions,
                            complete, chain)
            if callee.is_method and not self._receiver_is_instance(site, func.value, classes):
                continue  # obj.step(...) on an object not known to be of the method's class
            result.calls.append(site)

    def _receiver_is_instance(self, site: CallSite, receiver: cst.BaseExpression, classes: tuple) -> bool:
        """``self.m(...)`` inside the class, or ``obj.m(...)`` with ``obj = TheClass(...)`` reaching the call."""
        cls_name = site.callee.class_name
        if not isinstance(receiver, cst.Name) or cls_name is None:
            return False
        if receiver.value == "self":
            return bool(classes) and classes[-1].name.value == cls_name
        bindings = self.result.reaching(site, receiver.value)
        return bool(bindings) and all(
            b.kind == "assign" and isinstance(b.value, cst.Call) and dotted_name(b.value.func) == cls_name
            for b in bindings
        )


def _bind_args(call: cst.Call, callee: TfCallable) -> tuple[dict[str, cst.BaseExpression], bool]:
    args: dict[str, cst.BaseExpression] = {}
    complete = True
    position = 0
    for arg in call.args:
        if arg.star:
            complete = False
            continue
        if arg.keyword is not None:
            args[arg.keyword.value] = arg.value
            continue
        if position < len(callee.params):
            args[callee.params[position]] = arg.value
        position += 1
    return args, complete


def py_function_targets(tree: cst.Module, scope) -> set[str]:
    """Names passed as the function argument of ``tf.py_function``/``tf.numpy_function``."""
    names: set[str] = set()

    class _V(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            q = scope.qualify(node.func) or ""
            if q in ("tensorflow.py_function", "tensorflow.numpy_function", "tensorflow.py_func"):
                for index, arg in enumerate(node.args):
                    if (arg.keyword is None and index == 0) or (arg.keyword is not None and arg.keyword.value == "func"):
                        if isinstance(arg.value, cst.Name):
                            names.add(arg.value.value)

    tree.visit(_V())
    return names
