"""RTF009's decisions: what to do with each callable argument built anew in a loop.

:class:`ArgDecider` reads the unchanged tree (and the recorded traces) and returns one
:class:`CallableArg` per bound method, ``functools.partial`` or lambda passed to a
tf.function inside a loop that it has something to say about: bind it once before
the loop (safe or unsafe), or only report why it stays.  The command in
:mod:`retrace_fix.codemods.bind_callable_once` reports them and makes the edits.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from retrace_fix.codemods._base import RetraceCodemod
from retrace_fix.codemods._callsites import CallSite, literal_value
from retrace_fix.codemods._class_facts import (
    INIT_METHODS,
    attribute_stores,
    attributes_set_per_call,
    class_statements,
    enclosing_class,
    first_param,
    self_attribute_reads,
)
from retrace_fix.codemods._module_reader import ModuleReader
from retrace_fix.cst_tree import find_nodes, method_call_on
from retrace_fix.findings import Tier
from retrace_fix.node_text import code_of, short_code
from retrace_fix.tfnames import all_params, named_params


_MUTATORS = frozenset({"append", "extend", "insert", "pop", "remove", "clear", "update", "setdefault", "add",
                       "discard", "popitem", "sort", "reverse"})


@dataclass
class CallableArg:
    """One callable argument this codemod reports."""

    node: cst.BaseExpression  # the argument expression
    site: CallSite
    loop: cst.CSTNode  # the loop statement the binding goes before
    kind: str  # "bound method" | "functools.partial" | "lambda"
    tier: Tier
    message: str
    reason: str = ""
    name: str = ""


class ArgDecider(ModuleReader):
    """Decides, on the unchanged tree, what to do with every callable argument built in a loop."""

    def __init__(self, codemod: RetraceCodemod) -> None:
        super().__init__(codemod)
        self.module = self.analysis.module
        self._names: set[str] | None = None
        self._taken: set[str] = set()
        self._shared: dict[tuple[int, str], str] = {}  # (loop, code) -> the name it is bound to

    def decisions(self) -> list[CallableArg]:
        graph_code = set(self.analysis.tf_functions)
        out: list[CallableArg] = []
        seen: set[int] = set()
        for site in [*self.calls.calls, *self.forwarded_sites(), *self.recorded_sites()]:
            if not site.loops or set(site.functions) & graph_code:
                continue  # not repeated here, or traced only while another tf.function traces
            loop = site.loops[-1]
            if not isinstance(loop, (cst.For, cst.While)):
                continue  # a comprehension: no statement to bind before
            for param, expr in site.args.items():
                if id(expr) in seen:
                    continue
                decision = self.decide(site, loop, param, expr)
                if decision is not None:
                    seen.add(id(expr))
                    out.append(decision)
        return out

    def forwarded_sites(self) -> list["_RecordedSite"]:
        """Calls, in a loop, of a module-level function that passes one of its parameters straight on to
        a tf.function of this module (``run_epoch(fn, b)`` whose body calls ``step(fn, b)``)."""
        graph_code = set(self.analysis.tf_functions)
        forwarders: dict[str, tuple[cst.FunctionDef, dict[str, str]]] = {}
        for site in self.calls.calls:
            wrapper = site.function
            if wrapper is None or len(site.functions) != 1 or wrapper in graph_code:
                continue
            if wrapper not in self.module.body or self.calls.plain_def_names.get(wrapper.name.value) != 1:
                continue
            params = [p.name.value for p in named_params(wrapper.params, keyword_only=False)]
            for callee_param, expr in site.args.items():
                if isinstance(expr, cst.Name) and expr.value in params and not any(
                    b.kind != "param" for b in self.calls.bindings.get(wrapper, {}).get(expr.value, [])
                ):
                    entry = forwarders.setdefault(wrapper.name.value, (wrapper, {}))
                    entry[1][expr.value] = site.callee.name
        out = []
        for name, (wrapper, passed) in forwarders.items():
            params = [p.name.value for p in named_params(wrapper.params, keyword_only=False)]
            for plain in self.calls.plain_calls.get(name, []):
                if not plain.loops or not isinstance(plain.call.func, cst.Name):
                    continue
                args = _bind_recorded(plain.call, params, passed)
                if args:
                    site = _RecordedSite(plain.call, plain.loops, plain.function, name, args, {})
                    site.shown = f"`{name}` (which passes it to the tf.function `{next(iter(passed.values()))}`)"
                    out.append(site)
        return out

    def recorded_sites(self) -> list["_RecordedSite"]:
        """Calls of this file that the traces show passing a new callable object at every call (the
        tf.function may be defined in another module)."""
        traces, relpath = self.c.settings.traces, self.c.settings.relpath
        if traces is None or not relpath:
            return []
        known = {id(site.call) for site in self.calls.calls}
        by_position: dict[tuple[int, int], list] = {}
        for plain in (p for group in self.calls.plain_calls.values() for p in group):
            if plain.loops and id(plain.call) not in known:
                position = (self.line(plain.call), self.analysis.column_of(plain.call))
                by_position.setdefault(position, []).append(plain)
        if not by_position:
            return []
        out = []
        for function in traces:
            if function.wraps is not None:
                continue  # a partial's or callable object's record: its parameters are not the call's
            params = _new_callables(function)
            if not params:
                continue
            for recorded in function.call_sites:
                if recorded.file != relpath:
                    continue
                found = [p for (line, column), group in by_position.items() for p in group
                         if line == recorded.line and (recorded.column is None or column == recorded.column)]
                if len(found) != 1:
                    continue
                plain = found[0]
                args = _bind_recorded(plain.call, function.params, params)
                if args:
                    out.append(_RecordedSite(plain.call, plain.loops, plain.function, function.name, args, params))
        return out

    # -- one argument
    def decide(self, site: CallSite, loop, param: str, expr: cst.BaseExpression) -> CallableArg | None:
        callee = site.callee.name
        shown = getattr(site, "shown", "") or f"`{callee}`"
        recorded = getattr(site, "recorded", {}).get(param)
        if recorded is not None and not _matches(expr, recorded, self.scope):
            return None
        if isinstance(expr, cst.Attribute):
            verdict = self.bound_method(site, loop, expr, recorded=recorded is not None)
            if verdict is None:
                return None
            kind = "bound method"
            head = (f"`{short_code(expr)}` makes a new bound-method object at every access: {shown} "
                    f"traces again on every call of the loop at line {self.file_line(loop)}")
        elif isinstance(expr, cst.Call) and self.scope.qualify(expr.func) == "functools.partial":
            verdict = self.partial(site, loop, expr)
            kind = "functools.partial"
            head = (f"`{short_code(expr)}` builds a new `functools.partial` object at every iteration of the loop "
                    f"at line {self.file_line(loop)}: {shown} traces again on every call")
        elif isinstance(expr, cst.Lambda):
            verdict = self.lambda_(site, loop, expr)
            kind = "lambda"
            head = (f"`{short_code(expr)}` builds a new function object at every iteration of the loop at line "
                    f"{self.file_line(loop)}: {shown} traces again on every call")
        else:
            return None
        if verdict is None:
            return None
        tier, why = verdict
        if tier is Tier.DIAGNOSTIC:
            return CallableArg(expr, site, loop, kind, tier, f"{head}; it stays: {why}")
        key = (id(loop), code_of(expr))
        name = self._shared.get(key) or self.fresh(expr, param, callee)
        self._shared[key] = name
        message = f"{head}: build it once before the loop (`{name} = {short_code(expr)}`)"
        return CallableArg(expr, site, loop, kind, tier, message, reason=why if tier is Tier.UNSAFE else "", name=name)

    # -- the parts
    def rebound_in_loop(self, site: CallSite, loop, name: str) -> cst.CSTNode | None:
        """A binding of ``name`` inside ``loop`` (in the call's scope), or the loop itself for a global name
        that some function declares ``global``."""
        key = site.function
        for binding in self.calls.bindings.get(key, {}).get(name, []):
            if loop in binding.loops:
                return binding.node
        if name in self.global_decls:
            return loop
        return None

    def bound_method(self, site, loop, expr: cst.Attribute, recorded: bool = False) -> tuple[Tier, str] | None:
        receiver = expr.value
        if not isinstance(receiver, cst.Name):
            return None
        cls = self.receiver_class(site, receiver.value)
        attr = expr.attr.value
        if cls is None and not recorded:
            return None  # a receiver whose class this module does not show: it may be a plain attribute
        method = self.method_of(cls, attr) if cls is not None else None
        if method is None and not recorded:
            return None
        rebound = self.rebound_in_loop(site, loop, receiver.value)
        if rebound is not None:
            where = f"line {self.file_line(rebound)}" if rebound is not loop else "a function declares it `global`"
            return (Tier.DIAGNOSTIC, f"`{receiver.value}` is rebound in the loop ({where}): a new object per "
                    "iteration; keep one object, or pass its tensors instead of its method")
        stores = attribute_stores(self.module, attr)
        if stores:
            return (Tier.DIAGNOSTIC, f"an attribute `{attr}` is assigned at line {self.file_line(stores[0])}: "
                    f"`{short_code(expr)}` may be another function by then")
        if method is None:  # the traces saw a new bound method at every call; its class is elsewhere
            return (Tier.UNSAFE, f"this module does not show the class of `{receiver.value}`: retrace-fix cannot "
                    f"check that `{attr}` reads no attribute that changes (a shared trace keeps the value it saw first)")
        changed = self.state_changed(cls, method)
        if changed:
            return (Tier.UNSAFE, f"`{cls.name.value}.{attr}` reads state its object changes: {changed}")
        return (Tier.SAFE, "")

    def state_changed(self, cls: cst.ClassDef, method: cst.FunctionDef) -> str | None:
        """Why ``method`` (and the methods of ``cls`` it calls on ``self``) may read a value that changes
        after ``__init__``, or None."""
        methods = {s.name.value: s for s in class_statements(cls) if isinstance(s, cst.FunctionDef)}
        todo, done = [method], set()
        while todo:
            current = todo.pop()
            if id(current) in done:
                continue
            done.add(id(current))
            self_name = first_param(current) or "self"
            per_call = attributes_set_per_call(cls, current, self_name)
            if per_call:
                return per_call[0]
            for attr in self_attribute_reads(current, self_name):
                if attr in methods:
                    todo.append(methods[attr])
                    continue
                for store in attribute_stores(self.module, attr):
                    if not self.in_init(cls, store):
                        return (f"`{self_name}.{attr}` is assigned at line {self.file_line(store)}: the method keeps "
                                "the value its first trace read")
        return None

    def in_init(self, cls: cst.ClassDef, node: cst.CSTNode) -> bool:
        line = self.line(node)
        for statement in class_statements(cls):
            if isinstance(statement, cst.FunctionDef) and statement.name.value in INIT_METHODS:
                position = self.analysis.position(statement)
                if position.start.line <= line <= position.end.line:
                    return True
        return False

    def receiver_class(self, site: CallSite, name: str) -> cst.ClassDef | None:
        function = site.function
        if function is not None and name == "self":
            params = named_params(function.params, keyword_only=False)
            if params and params[0].name.value == "self":
                return enclosing_class(self.module, function)
            return None
        if isinstance(site, CallSite):
            bindings = self.calls.reaching(site, name)
        else:  # a recorded call: every binding of the name in its scope
            bindings = self.calls.bindings.get(site.function, {}).get(name) or (
                self.calls.bindings.get(None, {}).get(name, []))
        classes = set()
        for binding in bindings:
            if binding.kind != "assign" or not isinstance(binding.value, cst.Call):
                return None
            func = binding.value.func
            if not isinstance(func, cst.Name) or func.value not in self.calls.classes:
                return None
            classes.add(func.value)
        if len(classes) != 1:
            return None
        return self.calls.classes[classes.pop()]

    def method_of(self, cls: cst.ClassDef, attr: str) -> cst.FunctionDef | None:
        """The plain ``def attr`` of ``cls`` (not a property or static method), when nothing else defines it."""
        found = None
        for statement in class_statements(cls):
            if isinstance(statement, cst.FunctionDef) and statement.name.value in ("__getattr__", "__getattribute__"):
                return None
            if isinstance(statement, cst.FunctionDef) and statement.name.value == attr:
                if found is not None:
                    return None  # a property setter or redefinition
                found = statement
            elif isinstance(statement, cst.SimpleStatementLine) and _assigns(statement, attr):
                return None
        if found is None:
            return None
        for decorator in found.decorators:
            expr = decorator.decorator
            name = (self.scope.qualify(expr.func if isinstance(expr, cst.Call) else expr) or "").split(".")[-1]
            if name != "classmethod":
                return None  # a property, a static method, or a decorator that may return anything
        return found

    def partial(self, site: CallSite, loop, expr: cst.Call) -> tuple[Tier, str] | None:
        unsafe: list[str] = []
        for arg in expr.args:
            if arg.star:
                return None
            value = arg.value
            if literal_value(value) is not None:
                continue
            if isinstance(value, cst.Name):
                rebound = self.rebound_in_loop(site, loop, value.value)
                if rebound is not None:
                    return (Tier.DIAGNOSTIC, f"it is built from `{value.value}`, which the loop rebinds: pass that "
                            "value as an argument (a tensor) instead")
                mutated = self.mutated_in_loop(loop, value.value)
                if mutated is not None:
                    unsafe.append(f"`{value.value}` is changed in the loop (line {self.file_line(mutated)}): the "
                                  "shared trace keeps the value it saw first")
                continue
            if isinstance(value, cst.Attribute) and isinstance(value.value, cst.Name):
                if self.scope.qualify(value) is not None and self.scope.qualify(value).split(".")[0] in (
                    "tensorflow", "numpy", "keras", "math"
                ):
                    continue
                method = self.bound_method(site, loop, value)
                if method is None:
                    return None  # an attribute this module cannot follow: perhaps mutable state
                if method[0] is Tier.DIAGNOSTIC:
                    return method
                if method[0] is Tier.UNSAFE:
                    unsafe.append(method[1])
                continue
            return None  # a value computed in the loop: its evaluation cannot move
        if unsafe:
            return (Tier.UNSAFE, unsafe[0])
        return (Tier.SAFE, "")

    def lambda_(self, site: CallSite, loop, expr: cst.Lambda) -> tuple[Tier, str] | None:
        own = {p.name.value for p in all_params(expr.params)}
        free, attrs = _free_names(expr.body, own)
        for param in named_params(expr.params):
            if param.default is not None:  # evaluated where the lambda is built
                names, reads = _free_names(param.default, set())
                free.extend(n for n in names if n not in free)
                attrs.extend(reads)
        for name in free:
            rebound = self.rebound_in_loop(site, loop, name)
            if rebound is not None:
                return (Tier.DIAGNOSTIC, f"it uses `{name}`, which the loop rebinds: pass that value as an "
                        "argument (a tensor) of the tf.function instead")
        for attribute, called in attrs:
            q = self.scope.qualify(attribute)
            if q is not None and q.split(".")[0] in ("tensorflow", "numpy", "keras", "math"):
                continue
            if called and isinstance(attribute.value, cst.Name):
                verdict = self.bound_method(site, loop, attribute)
                if verdict is not None and verdict[0] is Tier.SAFE:
                    continue
                if verdict is not None and verdict[0] is not Tier.SAFE:
                    return (Tier.UNSAFE, verdict[1])
            return (Tier.UNSAFE, f"the lambda reads `{short_code(attribute)}`: the old program traced again at "
                    "every call and saw its new value; the shared trace keeps the value it saw first")
        return (Tier.SAFE, "")

    def mutated_in_loop(self, loop, name: str) -> cst.CSTNode | None:
        def mutates(node: cst.CSTNode) -> bool:
            if isinstance(node, cst.AssignTarget):
                target = node.target
                return isinstance(target, (cst.Subscript, cst.Attribute)) and isinstance(target.value, cst.Name) \
                    and target.value.value == name
            return method_call_on(node, name, _MUTATORS)

        found = find_nodes(loop, mutates)
        return found[0] if found else None

    # -- the new name
    def fresh(self, expr: cst.BaseExpression, param: str, callee: str) -> str:
        if self._names is None:
            names: set[str] = set()

            class _V(cst.CSTVisitor):
                def visit_Name(self, node: cst.Name) -> None:
                    names.add(node.value)

            self.module.visit(_V())
            self._names = names
        if isinstance(expr, cst.Attribute):
            receiver = expr.value.value if isinstance(expr.value, cst.Name) else "bound"
            bases = [expr.attr.value, f"{receiver}_{expr.attr.value}"]
        elif isinstance(expr, cst.Call) and expr.args and isinstance(expr.args[0].value, cst.Name):
            bases = [f"{expr.args[0].value.value}_fn", f"{expr.args[0].value.value}_partial"]
        else:
            bases = [f"{callee}_{param}", f"{callee}_{param}_fn"]
        for base in bases:
            if base not in self._names and base not in self._taken:
                self._taken.add(base)
                return base
        index = 2
        while f"{bases[-1]}_{index}" in self._names or f"{bases[-1]}_{index}" in self._taken:
            index += 1
        self._taken.add(f"{bases[-1]}_{index}")
        return f"{bases[-1]}_{index}"


@dataclass
class _RecordedSite:
    """A call recorded in the traces (its callee may live in another module), shaped like a CallSite."""

    call: cst.Call
    loops: tuple
    function: cst.FunctionDef | None
    callee_name: str
    args: dict[str, cst.BaseExpression]
    recorded: dict[str, set[str]]  # parameter -> the types of the new objects it got, one per call
    shown: str = ""  # how messages name the callee (default: its name)

    @property
    def functions(self) -> tuple:
        return (self.function,) if self.function is not None else ()

    @property
    def callee(self):
        return self

    @property
    def name(self) -> str:
        return self.callee_name


def _new_callables(function) -> dict[str, set[str]]:
    """Parameters that got a new bound method, partial or function object in every recorded trace
    (two traces at least): ``{param: type}``."""
    out: dict[str, str] = {}
    if len(function.traces) < 2:
        return out
    for param in function.params:
        values = [t.args.get(param) for t in function.traces if not t.nested]
        if len(values) < 2 or not all(isinstance(v, dict) and v.get("kind") == "object" for v in values):
            continue
        types = {v.get("type") for v in values}
        ids = {v.get("id") for v in values}
        if types <= {"method", "partial", "function"} and len(ids) == len(values):
            out[param] = types
    return out


def _bind_recorded(call: cst.Call, params: list[str], wanted: dict) -> dict[str, cst.BaseExpression]:
    """The arguments of ``call`` bound to the recorded parameters in ``wanted``."""
    positional = [a for a in call.args if a.keyword is None]
    if any(a.star for a in call.args):
        return {}
    names = list(params)
    if names and names[0] in ("self", "cls") and isinstance(call.func, cst.Attribute) and \
            len(positional) < len(names):
        names = names[1:]
    out = {}
    for index, arg in enumerate(positional):
        if index < len(names) and names[index] in wanted:
            out[names[index]] = arg.value
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value in wanted:
            out[arg.keyword.value] = arg.value
    return out


def _matches(expr: cst.BaseExpression, kinds: set[str], scope) -> bool:
    """The expression builds a kind of object the traces saw."""
    if isinstance(expr, cst.Attribute):
        return "method" in kinds
    if isinstance(expr, cst.Call):
        return "partial" in kinds and scope.qualify(expr.func) == "functools.partial"
    return isinstance(expr, cst.Lambda) and "function" in kinds


def _assigns(statement: cst.SimpleStatementLine, name: str) -> bool:
    for small in statement.body:
        targets = []
        if isinstance(small, cst.Assign):
            targets = [t.target for t in small.targets]
        elif isinstance(small, (cst.AnnAssign, cst.AugAssign)):
            targets = [small.target]
        if any(isinstance(t, cst.Name) and t.value == name for t in targets):
            return True
    return False


def _free_names(body: cst.BaseExpression, own: set[str]) -> tuple[list[str], list[tuple[cst.Attribute, bool]]]:
    """Names a lambda body reads from outside (not its parameters), and its outermost attribute reads
    (each with whether it is called)."""
    names: list[str] = []
    attrs: list[cst.Attribute] = []
    called: set[int] = set()

    class _V(cst.CSTVisitor):
        def __init__(self) -> None:
            self.inner: list[set[str]] = [set(own)]

        def visit_Lambda(self, node: cst.Lambda) -> None:
            self.inner.append(self.inner[-1] | {p.name.value for p in all_params(node.params)})

        def leave_Lambda(self, original_node: cst.Lambda) -> None:
            self.inner.pop()

        def visit_Call(self, node: cst.Call) -> None:
            if isinstance(node.func, cst.Attribute):
                called.add(id(node.func))

        def visit_Attribute(self, node: cst.Attribute) -> bool:
            attrs.append(node)  # the outermost attribute of a chain: only its root is visited
            root = node.value
            while isinstance(root, cst.Attribute):
                root = root.value
            root.visit(self)
            return False

        def visit_Arg(self, node: cst.Arg) -> bool:
            node.value.visit(self)  # not the keyword's name
            return False

        def visit_Name(self, node: cst.Name) -> None:
            if node.value not in self.inner[-1] and node.value not in names and node.value not in (
                "True", "False", "None"
            ):
                names.append(node.value)

    body.visit(_V())
    return names, [(a, id(a) in called) for a in attrs]
