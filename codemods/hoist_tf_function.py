"""RTF006 hoist-tf-function.

What it does
    Finds a tf.function that is created anew each time a function runs -
    ``@tf.function def inner`` defined inside a function or method,
    ``tf.function(f)(x)`` or ``tf.function(lambda: f(x))()`` inside a function -
    when there is evidence that the function runs over and over: recorded
    traces (``--traces``) in which new function objects made at that place
    traced the same arguments again (the trace file's ``recreated``), a loop
    around the creation, or a loop in this module that calls the enclosing
    function.  Then, where the program provably stays the
    same, it creates the tf.function once:

    * a nested ``def`` whose body, decorators and defaults use only module-level
      names (and builtins) moves to module level, before the statement that
      held it;
    * a nested ``def`` inside a method that uses only ``self`` (and module-level
      names) becomes a ``@tf.function`` method of the class, called as
      ``self.inner(...)``;
    * ``tf.function(f, ...)`` of a module-level function becomes a module-level
      ``_tf_f = tf.function(f, ...)`` used in its place (identical calls share
      it); of a function of an imported module (``tf.function(ops.f)``), the
      same, as an unsafe fix;
    * ``tf.function(lambda: f(a, b))()`` becomes ``_tf_f(a, b)`` with the same
      module-level ``_tf_f``;
    * ``tf.function(self.loss, ...)`` in a method (a loss or acquisition function
      rebuilt at every optimisation step) is created once per object and kept on
      it: ``if getattr(self, "_tf_loss", None) is None: self._tf_loss =
      tf.function(self.loss, ...)``, then ``self._tf_loss`` in its place
      (``tf.function(lambda: self.loss(x))()`` becomes ``self._tf_loss(x)``).  This form
      is found from the code alone (a method that wraps its own method runs once
      per step) unless the new function is returned or stored, and from traces.

    Otherwise it says what keeps the function in place: the local variables
    it captures (pass them as arguments; not reported when one of them is an
    object the function builds anew on every call, such as a fresh model:
    then a trace per call is inherent), a use other than calling it (it is
    returned or stored: callers may expect a new function each time), variables
    or Keras objects created in its body, another decorator, or a name that is
    taken at module level.  Creations in ``__init__``/``build``, under a cache
    check (``if self._fn is None:``) or in a ``functools.cache``d function, and
    creations inside another tf.function (they run only while it traces), are
    left alone.  Where this code reports a creation, RTF101 does not repeat it.

Why it retraces
    A tf.function keeps its traces on the Function object.  Creating the object
    on every call - a ``@tf.function`` ``def`` inside the function that calls
    it, or ``tf.function(...)`` per call - starts every call with an empty
    cache: each call traces (and optimises) the graph again, even with exactly
    the same arguments.  ``retrace-fix report`` shows it as identical traces
    repeated ("the tf.function object is re-created").

Example
    Before::

        SCALE = 0.5


        def animate(frames):
            @tf.function
            def scaled(x):
                return x * SCALE

            return [scaled(f) for f in frames]


        for video in videos:
            animate(video)

    After::

        SCALE = 0.5


        @tf.function
        def scaled(x):
            return x * SCALE


        def animate(frames):
            return [scaled(f) for f in frames]


        for video in videos:
            animate(video)

Fix safety
    safe when the moved function is provably the same program: it reads only
    module-level names bound once (or ``self``, whose attributes it reads are
    set only in ``__init__``), its decorators and defaults are module-level
    expressions bound before the new position, it is only called where it was
    defined, it creates no variables or Keras objects (a shared function would
    create them once instead of per call), and the new name is free.  unsafe
    (``--unsafe-fixes``) when the function has Python side effects at trace
    time (``print``, appending to a list, setting an attribute: they now run
    once per trace instead of once per call), is defined in another module
    (its body cannot be checked), reads a module-level name that is bound more
    than once, becomes a method of a class with a base class this
    module does not show (it may define the same name), or when
    ``tf.function(lambda: f(x))()`` turns a captured value into an argument (a
    NumPy array passed as ``x`` would reach ``f`` as a tensor).  A
    ``tf.function(self.m)`` cached on the object is safe when ``m`` is a plain
    method that reads only attributes set in ``__init__`` and the class has no
    base class; unsafe when ``m`` reads an attribute set elsewhere (the shared
    trace keeps the first value), has trace-time side effects, or the class
    derives from another (a Keras layer or ``tf.Module`` tracks, and saves, an
    attribute holding a tf.function); a decorated method, ``__slots__``, an
    attribute of that name assigned somewhere, or a method that creates
    variables keep it in place.  The traces a
    moved function keeps are the ones its first call made: values it reads
    from Python state are those of that first trace, as for any tf.function
    that does not retrace.  A ``--verify`` run also tries two diagnostics that
    are refused only for lack of evidence: a function that uses local
    variables of its creator moves out with them as keyword-only parameters
    (``func(x, *, num_hash)``, called as ``func(x, num_hash=num_hash)``; when it
    also uses the instance of a method, it becomes a method of the class instead,
    ``self.func(x, num_hash=num_hash)``), and a returned or stored function moves
    all the same; the program's run decides.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import libcst as cst
from libcst.metadata import ScopeProvider

from retrace_fix.codemods._base import RetraceCodemod
from retrace_fix.codemods._callsites import CachedScope, ModuleCalls
from retrace_fix.codemods._creations import Creation, creation_subject, find_creations, is_factory, repeated_evidence
from retrace_fix.codemods._tf_values import is_tf_op
from retrace_fix.codemods.range_to_tf_range import _global_names
from retrace_fix.cst_tree import parent_map, target_names
from retrace_fix.findings import Tier
from retrace_fix.node_text import code_of, short_code
from retrace_fix.rules import Rule
from retrace_fix.tfnames import BUILTIN_NAMES, dotted_name, named_params

RULE = Rule(
    code="RTF006",
    name="hoist-tf-function",
    tier=Tier.SAFE,
    summary=(
        "a tf.function re-created per call (nested def, tf.function(f) per call) moved to module level "
        "or made a decorated method"
    ),
    doc=__doc__,
    golden="hoist-tf-function",
)

_SCOPES_KEY = "retrace_fix.hoist.scopes"
#: calls whose purpose is a Python side effect at trace time
_SIDE_EFFECT_PREFIXES = (
    "builtins.print", "builtins.input", "builtins.open", "builtins.exec", "builtins.eval",
    "builtins.setattr", "builtins.delattr", "logging.", "time.", "random.", "numpy.random.",
    "datetime.", "sys.", "os.", "warnings.",
)
_MUTATORS = frozenset({"append", "extend", "insert", "pop", "remove", "clear", "update", "setdefault", "add",
                       "discard", "popitem"})
#: TensorFlow classes that are values, not stateful objects
_TF_VALUE_CLASSES = frozenset({
    "tensorflow.TensorArray", "tensorflow.TensorSpec", "tensorflow.TensorShape", "tensorflow.SparseTensor",
    "tensorflow.SparseTensorSpec", "tensorflow.RaggedTensorSpec", "tensorflow.IndexedSlices",
    "tensorflow.DType", "tensorflow.GradientTape",
})
_STATEFUL_METHODS = frozenset({"add_weight", "add_variable"})
_INIT_METHODS = frozenset({"__init__", "__post_init__", "__new__", "build", "setup"})


@dataclass
class _Plan:
    """One creation site this codemod has something to say about."""

    creation: Creation
    kind: str  # "module-def" | "method" | "module-assign" | "self-cache" | "diagnostic"
    message: str
    tier: Tier
    reason: str = ""
    name: str = ""  # the new module-level or method name
    anchor: cst.CSTNode | None = None  # the statement the new one goes before (module body or class body)
    container: cst.CSTNode | None = None  # cst.Module or the ClassDef holding the anchor
    self_name: str = "self"
    renames: set[int] = field(default_factory=set)  # ids of Name nodes that become `self.<name>`
    wrap: cst.Call | None = None  # module-assign: the tf.function(...) call to move
    replace: cst.Call | None = None  # module-assign: the call replaced (by the name, or by `name(args)`)
    lambda_call: cst.Call | None = None  # tf.function(lambda: f(args))(): the `f(args)` call
    target: cst.BaseExpression | None = None  # module-assign: the wrapped function (`f`, `module.f`)
    verifiable: bool = False
    needs: set[str] = field(default_factory=set)  # sibling nested defs it calls: they must move too
    finding: int = -1  # index of its finding in the codemod's findings
    extra: list[str] = field(default_factory=list)  # captured names that become keyword-only parameters
    calls: set[int] = field(default_factory=set)  # ids of the calls that then pass them


class HoistTfFunctionCommand(RetraceCodemod):
    RULES = (RULE,)
    ORDER = 50  # after the trace-driven codemods: they match traces by the def's original place
    TRIGGERS = (b"function",)
    #: reads only the tf.functions, the defs that create them and the names they use (partial parsing)
    NEEDS_WHOLE_MODULE = False

    # ------------------------------------------------------------------ planning

    def transform_module_impl(self, tree: cst.Module) -> cst.Module:
        self._edits: list[_Plan] = []
        plans = _Planner(self).plans()
        if not plans:
            return tree
        for plan in plans:
            creation = plan.creation
            saved = self._function_stack
            self._function_stack = list(creation.suppression_functions)
            try:
                edit = self.report(
                    creation.node,
                    plan.message,
                    plan.tier,
                    reason=plan.reason,
                    subjects=(creation_subject(creation, self.qualname),),
                    verifiable=plan.verifiable,
                )
            finally:
                self._function_stack = saved
            plan.finding = len(self.findings) - 1
            if edit and plan.kind != "diagnostic":
                self._edits.append(plan)
        self._drop_stranded()
        if not self._edits:
            return tree
        self._removed = {id(p.creation.node): p for p in self._edits if p.kind in ("module-def", "method")}
        self._renames = {i: p for p in self._edits if p.kind == "method" for i in p.renames}
        self._replaced = {id(p.replace): p for p in self._edits if p.kind == "module-assign"}
        self._extra_calls = {i: p for p in self._edits if p.extra for i in p.calls}
        self._cached = {id(p.replace): p for p in self._edits if p.kind == "self-cache"}
        self._before: dict[int, list[cst.BaseStatement]] = {}
        for plan in self._edits:
            if plan.kind == "self-cache":
                self._before.setdefault(id(plan.anchor), []).append(_cache_statement(plan))
        self._assigned: set[str] = set()
        self._pending: dict[int, list[tuple[_Plan, cst.BaseStatement]]] = {}
        return super().transform_module_impl(tree)

    def _drop_stranded(self) -> None:
        """A moved def that calls a sibling def moves only if that sibling moves too."""
        while True:
            moved = {(id(p.creation.owner), p.name) for p in self._edits if p.kind == "module-def"}
            stranded = [p for p in self._edits if any((id(p.creation.owner), n) not in moved for n in p.needs)]
            if not stranded:
                return
            for plan in stranded:
                self._edits.remove(plan)
                if 0 <= plan.finding < len(self.findings):
                    self.findings[plan.finding] = replace(self.findings[plan.finding], applied=False)

    # ------------------------------------------------------------------ editing

    def leave_FunctionDef(self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef):
        result = super().leave_FunctionDef(original_node, updated_node)
        plan = getattr(self, "_removed", {}).get(id(original_node))
        if plan is None:
            return result
        moved = updated_node
        if plan.kind == "method":
            params = moved.params
            first = cst.Param(cst.Name(plan.self_name))
            if params.posonly_params:
                params = params.with_changes(posonly_params=[first, *params.posonly_params])
            else:
                params = params.with_changes(params=[first, *params.params])
            moved = moved.with_changes(params=params)
        if plan.extra:
            params = moved.params
            added = [cst.Param(cst.Name(n)) for n in plan.extra]
            star = params.star_arg if isinstance(params.star_arg, cst.Param) else cst.ParamStar()
            moved = moved.with_changes(params=params.with_changes(star_arg=star,
                                                                  kwonly_params=[*params.kwonly_params, *added]))
        comments = [line for line in moved.leading_lines if line.comment is not None]
        moved = moved.with_changes(leading_lines=comments)
        self._pending.setdefault(id(plan.anchor), []).append((plan, moved))
        return cst.RemoveFromParent()

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.BaseExpression:
        plan = getattr(self, "_renames", {}).get(id(original_node))
        if plan is None:
            return updated_node
        return cst.Attribute(value=cst.Name(plan.self_name), attr=cst.Name(plan.name))

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        plan = getattr(self, "_extra_calls", {}).get(id(original_node))
        if plan is not None:
            args = list(updated_node.args)
            if args and args[-1].comma is cst.MaybeSentinel.DEFAULT:
                args[-1] = args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
            added = [cst.Arg(cst.Name(n), keyword=cst.Name(n), equal=cst.AssignEqual(
                whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")),
                comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))) for n in plan.extra]
            added[-1] = added[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
            return updated_node.with_changes(args=[*args, *added])
        plan = getattr(self, "_cached", {}).get(id(original_node))
        if plan is not None:
            cached = cst.Attribute(cst.Name(plan.self_name), cst.Name(plan.name))
            if plan.lambda_call is not None:  # tf.function(lambda: self.m(a))() -> self._tf_m(a)
                return plan.lambda_call.with_changes(func=cached)
            return cached
        plan = getattr(self, "_replaced", {}).get(id(original_node))
        if plan is None:
            return updated_node
        if plan.name not in self._assigned:  # identical tf.function(f, ...) calls share one module-level name
            self._assigned.add(plan.name)
            if plan.lambda_call is not None:
                assert isinstance(plan.wrap, cst.Call)
                value = plan.wrap.with_changes(args=[cst.Arg(plan.target), *plan.wrap.args[1:]])
            else:
                value = updated_node
            self._pending.setdefault(id(plan.anchor), []).append((plan, _assignment(plan.name, value)))
        if plan.lambda_call is not None:
            return plan.lambda_call.with_changes(func=cst.Name(plan.name))
        return cst.Name(plan.name)

    def leave_IndentedBlock(self, original_node: cst.IndentedBlock, updated_node: cst.IndentedBlock):
        before = getattr(self, "_before", None)
        if before and any(id(s) in before for s in original_node.body):
            body = []
            for old, new in zip(original_node.body, updated_node.body):
                added = before.pop(id(old), [])
                if added:
                    leading = list(new.leading_lines)
                    blanks = leading[: len(leading) - len(_drop_leading_blanks(leading))]
                    body.append(added[0].with_changes(leading_lines=blanks))
                    body.extend(added[1:])
                    new = new.with_changes(leading_lines=leading[len(blanks):])
                body.append(new)
            return updated_node.with_changes(body=body)
        if not hasattr(self, "_removed") or len(updated_node.body) == len(original_node.body):
            return updated_node
        body = list(updated_node.body)
        if not body:
            return updated_node.with_changes(body=[cst.SimpleStatementLine([cst.Pass()])])
        if id(original_node.body[0]) in self._removed:
            # the block now starts with what followed the moved def: no blank line after the header
            first = body[0]
            body[0] = first.with_changes(leading_lines=_drop_leading_blanks(first.leading_lines))
        return updated_node.with_changes(body=body)

    def leave_ClassDef(self, original_node: cst.ClassDef, updated_node: cst.ClassDef):
        if not getattr(self, "_pending", None) or not isinstance(updated_node.body, cst.IndentedBlock):
            return updated_node
        body = _insert_before(original_node.body.body, updated_node.body.body, self._pending, blank=1)
        if body is None:
            return updated_node
        return updated_node.with_changes(body=updated_node.body.with_changes(body=body))

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        if not getattr(self, "_pending", None):
            return updated_node
        body = _insert_before(original_node.body, updated_node.body, self._pending, blank=2)
        return updated_node if body is None else updated_node.with_changes(body=body)


def _assignment(name: str, value: cst.BaseExpression) -> cst.SimpleStatementLine:
    return cst.SimpleStatementLine([cst.Assign(targets=[cst.AssignTarget(cst.Name(name))], value=value)])


def _drop_leading_blanks(lines) -> list[cst.EmptyLine]:
    lines = list(lines)
    while lines and lines[0].comment is None:
        lines.pop(0)
    return lines


def _insert_before(original, updated, pending: dict, blank: int) -> list | None:
    """``updated`` with the pending statements put before their anchors (matched in ``original``).

    A new statement takes the blank lines that separated its anchor from what came before;
    the anchor keeps its own leading lines (comments stay with it), with at least
    ``blank`` blank lines.
    """
    if not any(id(stmt) in pending for stmt in original):
        return None
    out = []
    for old, new in zip(original, updated):
        moved = pending.pop(id(old), None)
        if moved:
            leading = list(new.leading_lines)
            blanks = leading[: len(leading) - len(_drop_leading_blanks(leading))]
            for _, statement in moved:
                out.append(statement.with_changes(leading_lines=[*blanks, *statement.leading_lines]))
            if len(blanks) < blank:
                new = new.with_changes(leading_lines=[cst.EmptyLine()] * (blank - len(blanks)) + leading)
        out.append(new)
    return out


# --------------------------------------------------------------------------- the decisions


class _Planner:
    """Decides, on the unchanged tree, what to do with every repeated tf.function creation."""

    def __init__(self, codemod: HoistTfFunctionCommand) -> None:
        self.c = codemod
        self.analysis = codemod.analysis
        self.scope = CachedScope(self.analysis.table, codemod.context.scratch)
        self.calls = ModuleCalls.get(self.analysis, codemod.context.scratch)
        self._scopes = None
        self._global_decls: set[str] | None = None
        self._taken: set[str] = set()  # names this run gives out
        self._wraps: dict[str, str] = {}  # the code of a module-level tf.function(f, ...) -> its name

    # -- facts, computed on demand
    @property
    def scopes(self):
        if self._scopes is None:
            cached = self.c.context.scratch.get(_SCOPES_KEY)
            if cached is not None and cached[0] is self.analysis.module:
                self._scopes = cached[1]
            else:
                self._scopes = self.analysis.wrapper.resolve(ScopeProvider)
                self.c.context.scratch[_SCOPES_KEY] = (self.analysis.module, self._scopes)
        return self._scopes

    @property
    def global_scope(self):
        return self.scopes[self.analysis.module]

    @property
    def global_decls(self) -> set[str]:
        if self._global_decls is None:
            self._global_decls = _global_names(self.analysis.module)
        return self._global_decls

    def line(self, node: cst.CSTNode) -> int:
        return self.analysis.line_of(node)

    # -- the plan
    def plans(self) -> list[_Plan]:
        candidates: list[tuple[Creation, str]] = []
        for creation in find_creations(self.analysis, self.scope, self.c.context.scratch):
            owner = creation.owner
            if owner is None or any(f in self.analysis.tf_functions for f in creation.functions):
                continue  # module level (RTF101's), or created only while another tf.function traces
            if creation.guarded or is_factory(owner):
                continue
            evidence = (self.trace_evidence(creation) or repeated_evidence(creation, self.calls, self.line)
                        or self.method_evidence(creation))
            if evidence is None:
                continue
            candidates.append((creation, evidence))
        if not candidates:
            return []
        self._siblings: dict[int, set[str]] = {}
        for creation, _ in candidates:
            if creation.is_def:
                self._siblings.setdefault(id(creation.owner), set()).add(creation.node.name.value)
        plans = [self.decide(creation, evidence) for creation, evidence in candidates]
        return self.settle_siblings([plan for plan in plans if plan is not None])

    def trace_evidence(self, creation: Creation) -> str | None:
        traces = self.c.settings.traces
        relpath = self.c.settings.relpath
        if traces is None or not relpath:
            return None
        node = creation.node
        if isinstance(node, cst.FunctionDef):
            qualname = self.c.qualname(node)
            line = self.line(node.decorators[0] if node.decorators else node)
        else:
            target = _wrapped(node, self.scope)
            if isinstance(target, cst.Lambda):
                qualname = self.c.qualname(creation.owner) + ".<locals>.<lambda>"
                line = self.line(target)
            elif isinstance(target, cst.Name):
                definition = self.module_def(target.value)
                if definition is None:
                    return None
                qualname = self.c.qualname(definition)
                line = self.line(definition.decorators[0] if definition.decorators else definition)
            elif self._own_method(creation, target) is not None:
                cls = _enclosing_class(self.analysis.module, creation.owner)
                methods = [s for s in _class_statements(cls) if isinstance(s, cst.FunctionDef)
                           and s.name.value == target.attr.value] if cls is not None else []
                if len(methods) != 1:
                    return None
                qualname = self.c.qualname(methods[0])
                line = self.line(methods[0].decorators[0] if methods[0].decorators else methods[0])
            else:
                return None
        found = traces.find(relpath, qualname, line)
        if len(found) != 1:
            return None
        function = found[0]
        if not function.recreated:  # re-created within one process (a count summed over merged files is not)
            return None
        total = function.total_traces
        distinct = len(function.traces)
        shape = "the same trace each time" if distinct == 1 else f"repeating {distinct} distinct traces"
        return f"every time `{creation.owner.name.value}` runs (the recorded run traced it {total} times, {shape})"

    def method_evidence(self, creation: Creation) -> str | None:
        """``tf.function(self.m)`` in a method: the method is the object's per-step work (it is not a
        factory, and nothing caches the new function), so every call builds and traces a new one."""
        node = creation.node
        if creation.is_def or not isinstance(node, cst.Call) or not self.scope.is_tf_function(node.func):
            return None
        target = node.args[0].value
        parents = parent_map(creation.owner)
        if isinstance(target, cst.Lambda):
            lambda_call = _lambda_target_call(target, parents.get(id(node)), node)
            target = lambda_call.func if lambda_call is not None else target
        if self._own_method(creation, target) is None:
            return None
        escape = _escapes(node, parents, self.scope, created=True)
        holder = parents.get(id(node))
        if escape is None and isinstance(holder, cst.Assign):
            escape = self._assigned_escape(holder, self.scopes.get(node), parents)
        if escape is not None:
            return None  # returned or stored: perhaps a factory, called once; traces can still tell
        return f"every time the method `{creation.owner.name.value}` runs (each call wraps `{short_code(node.args[0].value)}` anew)"

    def module_def(self, name: str) -> cst.FunctionDef | None:
        """The module-level ``def name`` when that is the name's only module-level binding."""
        assignments = list(self.global_scope.assignments[name])
        if len(assignments) != 1 or name in self.global_decls:
            return None
        node = assignments[0].node
        if isinstance(node, cst.FunctionDef) and node in self.analysis.module.body:
            return node
        return None

    def anchor_of(self, node: cst.CSTNode) -> cst.CSTNode:
        """The module-level statement that holds ``node``."""
        line = self.line(node)
        best = None
        for statement in self.analysis.module.body:
            position = self.analysis.position(statement)
            if position.start.line <= line <= position.end.line:
                best = statement
        assert best is not None
        return best

    # -- one creation
    def decide(self, creation: Creation, evidence: str) -> _Plan | None:
        head = f"{creation.shown} creates a new tf.function {evidence}"
        if creation.is_def:
            return self.decide_def(creation, head)
        return self.decide_call(creation, head)

    def diagnostic(self, creation: Creation, head: str, why: str, verifiable: bool = False) -> _Plan:
        return _Plan(creation, "diagnostic", f"{head}; it stays: {why}", Tier.DIAGNOSTIC, verifiable=verifiable)

    def decide_def(self, creation: Creation, head: str) -> _Plan | None:
        inner = creation.node
        assert isinstance(inner, cst.FunctionDef)
        owner = creation.owner
        name = inner.name.value
        owner_scope = self.scopes.get(inner)
        inner_scope = self.scopes.get(inner.body)
        if owner_scope is None or inner_scope is None:
            return self.diagnostic(creation, head, "retrace-fix cannot resolve its names")
        problems: list[str] = []
        soft: list[str] = []  # refused for lack of evidence: a --verify run may try the edit
        unsafe: list[str] = []
        # the def is the name's only binding in its function, and it is only called
        bindings = list(owner_scope.assignments[name])
        if len(bindings) != 1 or bindings[0].node is not inner:
            problems.append(f"`{name}` is bound more than once in `{owner.name.value}`")
        def_line = self.line(inner)
        uses = [a for b in bindings if b.node is inner for a in b.references]
        parents = parent_map(owner)
        inside = _node_ids(inner.body)
        for access in uses:
            use = access.node
            if id(use) not in inside and self.line(use) < def_line:
                problems.append(f"`{name}` is used before its definition (line {self.line(use)})")
                break
            escape = _escapes(use, parents, self.scope)
            if escape is not None:
                soft.append(f"`{name}` is {escape}: callers may expect a new function each time "
                            "(create it once where it is used, or cache it)")
                break
        extra = [d for d in inner.decorators if not _is_tf_function_decorator(d, self.scope)]
        if extra:
            problems.append(f"it has another decorator (`@{short_code(extra[0].decorator)}`), which would run once "
                            "instead of on every call")
        if inner.asynchronous is not None:
            problems.append("it is `async`")
        # what the def line evaluates (decorators, defaults, annotations) and what the body reads
        header = _header_ids(inner)
        header_names = [a for a in owner_scope.accesses if id(a.node) in header]
        captured: dict[str, None] = {}
        module_names: dict[str, None] = {}
        late = [_access_name(a) for a in header_names if self._resolve(a, inner) == "captured"]
        if late:
            problems.append(f"its decorator or defaults read {', '.join(f'`{n}`' for n in dict.fromkeys(late))} "
                            f"of `{owner.name.value}`")
        body_reads: list = []
        for scope in self._scopes_under(inner_scope):
            for access in scope.accesses:
                where = self._resolve(access, inner, own_scopes=True)
                if where == "captured":
                    captured.setdefault(_access_name(access), self._position(access.node))
                elif where == "module":
                    module_names[_access_name(access)] = None
                body_reads.append(access)
        captured = dict(sorted(captured.items(), key=lambda item: item[1] or (0, 0)))
        captured.pop(name, None)  # recursion: after the move the module-level name is the function itself
        # sibling tf.functions it calls resolve to the module-level ones once they move too
        needs = {n for n in captured if n in self._siblings.get(id(owner), ()) and n != name}
        for sibling in needs:
            captured.pop(sibling)
        blockers, effects = _body_hazards(inner, self.scope, self.analysis.module)
        problems.extend(blockers)
        unsafe.extend(effects)
        plan_kind = None
        self_name = _method_self(owner, creation, self.scope)
        if self_name is not None and list(captured) == [self_name]:
            plan_kind = "method"
        if not captured:
            plan_kind = "module-def"
        elif needs:
            plan_kind = None  # a method that calls siblings: left to the user
        if plan_kind is None and _fresh_objects(owner, set(captured), self.scope):
            return None  # it closes over objects built anew on every call: one trace per call is inherent
        if plan_kind is None:
            shown = ", ".join(f"`{n}`" for n in captured)
            where = "them" if len(captured) > 1 else "it"
            problems.insert(0, f"it uses {shown} of `{owner.name.value}` (pass {where} as "
                               f"{'arguments' if len(captured) > 1 else 'an argument'} to move it out)")
            message = "; ".join([*problems, *soft])
            if len(problems) == 1 and not soft and not needs and self._calls_only(uses, owner):
                # the edit a --verify run may try: captured values passed as keyword arguments, to a
                # method when it also uses the instance (`self` cannot be a keyword of a tf.function call)
                if self_name is not None and self_name in captured:
                    plan = self._method_plan(creation, head, name, uses, header_names, module_names, [],
                                             self_name, owner, inner)
                    kind = "method"
                else:
                    plan = self._module_def_plan(creation, head, name, uses, header_names, needs, module_names, [])
                    kind = "module-def"
                if plan.kind == kind and (kind == "method" or "self" not in captured):
                    plan.tier, plan.verifiable = Tier.DIAGNOSTIC, True
                    plan.message, plan.reason = self.diagnostic(creation, head, message).message, ""
                    plan.extra = [n for n in captured if kind == "module-def" or n != self_name]
                    plan.calls = {id(parent_map(owner)[id(a.node)]) for a in uses}
                    return plan
            return self.diagnostic(creation, head, message)
        if problems:
            return self.diagnostic(creation, head, "; ".join([*problems, *soft]))
        if plan_kind == "module-def":
            plan = self._module_def_plan(creation, head, name, uses, header_names, needs, module_names, unsafe)
            return self._soften(plan, creation, head, soft)
        if needs:
            return self.diagnostic(creation, head, f"it uses {', '.join(f'`{n}`' for n in sorted(needs))} "
                                                   f"of `{owner.name.value}`")
        assert self_name is not None
        plan = self._method_plan(creation, head, name, uses, header_names, module_names, unsafe, self_name, owner, inner)
        return self._soften(plan, creation, head, soft)

    def _method_plan(self, creation, head, name, uses, header_names, module_names, unsafe, self_name, owner,
                     inner) -> _Plan:
        """A ``@tf.function`` method of the class of ``owner`` (a method whose body defines it)."""
        cls = _enclosing_class(self.analysis.module, owner)
        assert cls is not None
        unsafe = list(unsafe)
        taken = self._method_taken(cls, name)
        if taken:
            return self.diagnostic(creation, head, taken)
        unsafe.extend(_base_class_risks(cls, name, self.analysis.module))
        unsafe.extend(self._rebound(module_names))
        unsafe.extend(_attributes_set_per_call(cls, inner, self_name))
        header_problem = [a for a in header_names if self._resolve(a, inner) not in ("module", "builtin")]
        if header_problem:
            return self.diagnostic(creation, head, "its decorator or defaults read local values")
        plan = self._fix_plan(creation, head, "method", unsafe,
                              f"make it a `@tf.function` method (`{self_name}.{name}`): one function per object, "
                              "traced once")
        plan.name, plan.anchor, plan.container, plan.self_name = name, owner, cls, self_name
        plan.renames = {id(a.node) for a in uses}
        return plan

    def _soften(self, plan: _Plan, creation: Creation, head: str, soft: list[str]) -> _Plan:
        """A fix refused only for lack of evidence: a diagnostic whose edit a --verify run may try."""
        if not soft or plan.kind == "diagnostic":
            return plan
        plan.message = self.diagnostic(creation, head, "; ".join(soft)).message
        plan.tier, plan.reason, plan.verifiable = Tier.DIAGNOSTIC, "", True
        return plan

    def _module_def_plan(self, creation, head, name, uses, header_names, needs, module_names, unsafe) -> _Plan:
        inner = creation.node
        anchor = self.anchor_of(inner)
        late = self._late_header_names(header_names, anchor, inner)
        if late:
            return self.diagnostic(creation, head, f"its decorator or defaults read {late}, which is not "
                                                   "bound at module level before it")
        taken = self._name_taken(name, uses)
        if taken:
            return self.diagnostic(creation, head, taken)
        unsafe = [*unsafe, *self._rebound(module_names)]
        self._taken.add(name)
        plan = self._fix_plan(creation, head, "module-def", unsafe, "move it to module level: one function, traced once")
        plan.name, plan.anchor, plan.container, plan.needs = name, anchor, self.analysis.module, needs
        return plan

    def _calls_only(self, uses, owner: cst.FunctionDef) -> bool:
        """Every use of the def is a plain call (where extra keyword arguments can be passed)."""
        parents = parent_map(owner)
        for access in uses:
            parent = parents.get(id(access.node))
            if not (isinstance(parent, cst.Call) and parent.func is access.node):
                return False
            if any(arg.star == "**" for arg in parent.args):
                return False
        return bool(uses)

    def _fix_plan(self, creation: Creation, head: str, kind: str, unsafe: list[str], what: str) -> _Plan:
        tier = Tier.UNSAFE if unsafe else Tier.SAFE
        return _Plan(creation, kind, f"{head}: {what}", tier, reason="; ".join(dict.fromkeys(unsafe)))

    def decide_call(self, creation: Creation, head: str) -> _Plan:
        call = creation.node
        assert isinstance(call, cst.Call)
        wrap = call if self.scope.is_tf_function(call.func) else None
        if wrap is None:  # tf.function(...)(f): leave the spelling to the user
            return self.diagnostic(creation, head, _OTHER_FORMS)
        target = wrap.args[0].value
        owner = creation.owner
        parents = parent_map(owner)
        parent = parents.get(id(call))
        lambda_call = None
        if isinstance(target, cst.Lambda):
            lambda_call = _lambda_target_call(target, parent, call)
            if lambda_call is None:
                return self.diagnostic(creation, head, _OTHER_FORMS)
            target = lambda_call.func
        owner_scope = self.scopes.get(call)
        anchor = self.anchor_of(call)
        unsafe: list[str] = []
        imported = self._imported_function(target, owner_scope, anchor)
        if imported is not None:
            definition = None
            shown = imported
            unsafe.append(f"`{shown}` is defined in another module: retrace-fix cannot check that it creates no "
                          "variables while tracing (a shared function creates them once)")
        elif isinstance(target, cst.Name):
            shown = target.value
            definition = self.module_def(target.value)
            if definition is None:
                return self.diagnostic(creation, head, f"`{shown}` is not a function defined once at module "
                                                       "level; create the tf.function once and reuse it")
            if definition in self.analysis.tf_functions and \
                    self.analysis.tf_functions[definition].form != "wrap-call":
                return self.diagnostic(creation, head, f"`{shown}` is already a tf.function")
            if self.line(definition) >= self.line(anchor):
                return self.diagnostic(creation, head, f"`{shown}` is defined after `{owner.name.value}`")
        elif self._own_method(creation, target) is not None:
            return self._self_cache_plan(creation, head, wrap, target, owner_scope, anchor, parents, lambda_call)
        else:
            return self.diagnostic(creation, head, _OTHER_FORMS)
        wrap_ids = _node_ids(wrap.func) | {i for arg in wrap.args[1:] for i in _node_ids(arg.value)}
        for access in owner_scope.accesses if owner_scope is not None else ():
            if id(access.node) in wrap_ids:
                where = self._resolve(access, None)
                if where not in ("module", "builtin") or not self._bound_before(access, anchor):
                    return self.diagnostic(creation, head, f"its options read `{_access_name(access)}`, which is not "
                                                           "bound at module level before it")
        soft: list[str] = []
        if lambda_call is not None:
            replace = parent
            for arg in lambda_call.args:
                if arg.star or not _simple_value(arg.value):
                    return self.diagnostic(creation, head, f"the lambda passes `{short_code(arg.value)}`, which "
                                                           "would be computed outside the graph")
            names = [short_code(a.value) for a in lambda_call.args if not isinstance(a.value, _LITERALS)]
            if names:
                unsafe.append(
                    f"{', '.join(f'`{n}`' for n in names)} {'becomes an argument' if len(names) == 1 else 'become arguments'}"
                    f" instead of a captured value: a NumPy array passed that way reaches `{shown}` as a tensor"
                )
        else:
            replace = call
            escape = _escapes(call, parents, self.scope, created=True)
            holder = parents.get(id(call))
            if escape is None and isinstance(holder, cst.Assign):
                escape = self._assigned_escape(holder, owner_scope, parents)
            soft = [f"the new tf.function is {escape}: callers may expect a new function each time"] if escape else []
        if definition is not None:
            blockers, effects = _body_hazards(definition, self.scope, self.analysis.module)
            if blockers:
                return self.diagnostic(creation, head, "; ".join(blockers))
            unsafe.extend(effects)
        created = code_of(wrap.with_changes(args=[cst.Arg(target), *wrap.args[1:]]))
        name = self._wraps.get(created) or self._fresh(f"_tf_{shown.rsplit('.', 1)[-1]}")
        self._wraps[created] = name
        plan = self._fix_plan(creation, head, "module-assign", unsafe,
                              f"create it once, at module level (`{name}`), and reuse it")
        plan.name, plan.anchor, plan.container = name, anchor, self.analysis.module
        plan.wrap, plan.replace, plan.lambda_call, plan.target = wrap, replace, lambda_call, target
        return self._soften(plan, creation, head, soft if lambda_call is None else [])

    def _own_method(self, creation: Creation, target: cst.BaseExpression) -> str | None:
        """``self`` when ``target`` is ``self.m``, ``owner`` a plain method with that first parameter."""
        owner = creation.owner
        if not (isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name)) or owner is None:
            return None
        self_name = _method_self(owner, creation, self.scope)
        return self_name if self_name is not None and target.value.value == self_name else None

    def _self_cache_plan(self, creation: Creation, head: str, wrap: cst.Call, target: cst.Attribute,
                         owner_scope, anchor, parents: dict, lambda_call: cst.Call | None = None) -> _Plan:
        """``tf.function(self.m, ...)`` (or ``tf.function(lambda: self.m(a))()``) in a method: one
        tf.function per object, cached on it."""
        owner = creation.owner
        self_name = target.value.value
        attr = target.attr.value
        cls = _enclosing_class(self.analysis.module, owner)
        if cls is None:
            return self.diagnostic(creation, head, _OTHER_FORMS)
        methods = [s for s in _class_statements(cls) if isinstance(s, cst.FunctionDef) and s.name.value == attr]
        if len(methods) != 1 or methods[0].decorators:
            return self.diagnostic(creation, head, f"`{short_code(target)}` is not a plain method of "
                                                   f"`{cls.name.value}`; create the tf.function once in `__init__`")
        method = methods[0]
        if method in self.analysis.tf_functions and self.analysis.tf_functions[method].form != "wrap-call":
            return self.diagnostic(creation, head, f"`{short_code(target)}` is already a tf.function")
        stores = _attribute_stores(self.analysis.module, attr)
        if stores:
            return self.diagnostic(creation, head, f"an attribute `{attr}` is assigned at line "
                                                   f"{self.line(stores[0])}: `{short_code(target)}` may be another "
                                                   "function by then")
        if any(_binds(s, "__slots__") for s in _class_statements(cls)):
            return self.diagnostic(creation, head, f"`{cls.name.value}` defines `__slots__`: no attribute to cache "
                                                   "the tf.function on")
        wrap_ids = {i for arg in wrap.args[1:] for i in _node_ids(arg.value)}
        for access in owner_scope.accesses if owner_scope is not None else ():
            if id(access.node) in wrap_ids and self._resolve(access, None) not in ("module", "builtin"):
                return self.diagnostic(creation, head, f"its options read `{_access_name(access)}`, a value of "
                                                       f"this call of `{owner.name.value}`")
        statement = _statement_of(creation.node, parents, owner)
        if statement is None:
            return self.diagnostic(creation, head, _OTHER_FORMS)
        blockers, effects = _body_hazards(method, self.scope, self.analysis.module)
        if blockers:
            return self.diagnostic(creation, head, "; ".join(blockers))
        unsafe = list(effects)
        unsafe.extend(_attributes_set_per_call(cls, method, _first_param(method) or self_name))
        for read in _self_attribute_reads(method, _first_param(method) or self_name):
            outside = [n for n in _attribute_stores(self.analysis.module, read)  # the class's own: above
                       if not any(self._inside(n, f) for f in _class_statements(cls) if isinstance(f, cst.FunctionDef))]
            if outside and read not in {m.name.value for m in _class_statements(cls) if isinstance(m, cst.FunctionDef)}:
                unsafe.append(f"`{self_name}.{read}` is assigned at line {self.line(outside[0])}: the method keeps "
                              "the value its first trace read")
        bases = [short_code(b.value) for b in cls.bases if short_code(b.value) != "object"]
        if bases:
            unsafe.append(f"`{cls.name.value}` derives from `{bases[0]}`: an attribute holding a tf.function may be "
                          "tracked or saved with the object (Keras layers, `tf.Module`)")
        soft: list[str] = []
        if lambda_call is not None:
            for arg in lambda_call.args:
                if arg.star or not _simple_value(arg.value):
                    return self.diagnostic(creation, head, f"the lambda passes `{short_code(arg.value)}`, which "
                                                           "would be computed outside the graph")
            names = [short_code(a.value) for a in lambda_call.args if not isinstance(a.value, _LITERALS)]
            if names:
                unsafe.append(
                    f"{', '.join(f'`{n}`' for n in names)} {'becomes an argument' if len(names) == 1 else 'become arguments'}"
                    f" instead of a captured value: a NumPy array passed that way reaches `{attr}` as a tensor, "
                    "and a Python number traces once per value"
                )
        else:
            escape = _escapes(creation.node, parents, self.scope, created=True)
            holder = parents.get(id(creation.node))
            if escape is None and isinstance(holder, cst.Assign):
                escape = self._assigned_escape(holder, owner_scope, parents)
            soft = [f"the new tf.function is {escape}: callers may expect a new function each time"] if escape else []
        name = self._fresh_attribute(f"_tf_{attr}")
        plan = self._fix_plan(creation, head, "self-cache", unsafe,
                              f"create it once per object and keep it on `{self_name}.{name}`")
        plan.name, plan.self_name, plan.anchor = name, self_name, statement
        plan.wrap = wrap.with_changes(args=[cst.Arg(target), *wrap.args[1:]]) if lambda_call is not None else wrap
        plan.lambda_call = lambda_call
        plan.replace = parents.get(id(creation.node)) if lambda_call is not None else creation.node
        return self._soften(plan, creation, head, soft)

    def _inside(self, node: cst.CSTNode, function: cst.FunctionDef) -> bool:
        line = self.line(node)
        position = self.analysis.position(function)
        return position.start.line <= line <= position.end.line

    def _fresh_attribute(self, base: str) -> str:
        used = _attribute_names(self.analysis.module) | self._taken
        name, index = base, 2
        while name in used:
            name, index = f"{base}_{index}", index + 1
        self._taken.add(name)
        return name

    # -- helpers
    def _position(self, node: cst.CSTNode) -> tuple[int, int]:
        position = self.analysis.position(node)
        return (position.start.line, position.start.column)

    def _imported_function(self, target: cst.BaseExpression, owner_scope, anchor) -> str | None:
        """``module.f`` where ``module`` is imported once at module level, before ``anchor``: its text."""
        dotted = dotted_name(target)
        if dotted is None or "." not in dotted:
            return None
        head = dotted.split(".", 1)[0]
        if owner_scope is not None and list(owner_scope.assignments[head]):
            return None  # a local name
        assignments = list(self.global_scope.assignments[head])
        if len(assignments) != 1 or type(assignments[0]).__name__ != "ImportAssignment" or head in self.global_decls:
            return None
        if self.line(assignments[0].node) >= self.line(anchor):
            return None
        return dotted

    def _assigned_escape(self, assign: cst.Assign, owner_scope, parents: dict) -> str | None:
        """``fn = tf.function(f)``: how ``fn`` lets the function out, or None when it is only called."""
        for target in assign.targets:
            name = target.target.value
            bindings = list(owner_scope.assignments[name]) if owner_scope is not None else []
            if len(bindings) != 1:
                return f"assigned to `{name}`, which is rebound"
            for access in bindings[0].references:
                escape = _escapes(access.node, parents, self.scope)
                if escape is not None:
                    return f"assigned to `{name}`, which is {escape}"
        return None

    def _scopes_under(self, top) -> list:
        """``top`` and every scope nested in it."""
        out = [top]
        for scope in set(self.scopes.values()):
            parent = getattr(scope, "parent", None)
            chain = []
            while parent is not None and parent is not scope:
                if parent is top:
                    out.append(scope)
                    break
                chain.append(parent)
                nxt = getattr(parent, "parent", None)
                if nxt is parent:
                    break
                parent = nxt
        return list(dict.fromkeys(out))

    def _resolve(self, access, inner: cst.FunctionDef | None, own_scopes: bool = False) -> str:
        """Where a name read resolves: "local" (inside ``inner``), "module", "builtin" or "captured"."""
        referents = list(access.referents)
        if not referents:
            return "module"  # unbound here: a global lookup at run time, now as before
        kinds = set()
        for referent in referents:
            scope = referent.scope
            kind = type(scope).__name__
            if kind == "BuiltinScope":
                kinds.add("builtin")
            elif kind == "GlobalScope":
                kinds.add("module")
            elif own_scopes and inner is not None and self._within(scope, inner):
                kinds.add("local")
            else:
                kinds.add("captured")
        for kind in ("captured", "local", "module"):
            if kind in kinds:
                return kind
        return "builtin"

    def _within(self, scope, inner: cst.FunctionDef) -> bool:
        top = self.scopes.get(inner.body)
        while scope is not None:
            if scope is top:
                return True
            parent = getattr(scope, "parent", None)
            if parent is scope:
                return False
            scope = parent
        return False

    def _bound_before(self, access, anchor: cst.CSTNode) -> bool:
        if any(type(r.scope).__name__ == "BuiltinScope" for r in access.referents):
            return True
        line = self.line(anchor)
        referents = [r for r in access.referents if type(r.scope).__name__ == "GlobalScope"]
        return bool(referents) and all(
            _is_node(r.node) and self.line(r.node) < line for r in referents
        ) and _access_name(access) not in self.global_decls

    def _late_header_names(self, accesses, anchor, inner) -> str | None:
        for access in accesses:
            if self._resolve(access, inner) in ("module", "builtin") and not self._bound_before(access, anchor):
                return f"`{_access_name(access)}`"
        return None

    def _rebound(self, names) -> list[str]:
        out = []
        for name in names:
            if name in self.global_decls:
                out.append(f"`{name}` is rebound with `global {name}` in a function: the moved function keeps "
                           "the value its first trace read")
                continue
            plain = [a for a in self.global_scope.assignments[name]
                     if type(a).__name__ == "Assignment" and not isinstance(a.node, (cst.FunctionDef, cst.ClassDef))]
            if len(plain) > 1:
                out.append(f"`{name}` is assigned {len(plain)} times at module level: the moved function keeps "
                           "the value its first trace read")
        return out

    def _name_taken(self, name: str, own_uses) -> str | None:
        if name in BUILTIN_NAMES:
            return f"its name `{name}` would shadow the builtin at module level"
        if list(self.global_scope.assignments[name]) or name in self._taken or name in self.global_decls:
            return f"the name `{name}` is taken at module level"
        own = {id(a.node) for a in own_uses}
        for scope in set(self.scopes.values()):
            for access in scope.accesses[name]:
                if id(access.node) not in own and all(
                    type(r.scope).__name__ in ("GlobalScope", "BuiltinScope") for r in access.referents
                ):
                    return f"the name `{name}` is read at module level elsewhere"
        return None

    def _method_taken(self, cls: cst.ClassDef, name: str) -> str | None:
        for statement in _class_statements(cls):
            if _binds(statement, name):
                return f"`{cls.name.value}` already has `{name}`"
        for node in _attribute_stores(self.analysis.module, name):
            return f"`{short_code(node)}` sets an attribute named `{name}`"
        if _unhashable(cls):
            return (f"a tf.function method needs instances that are hashable and weakly referenceable, and "
                    f"`{cls.name.value}` {_unhashable(cls)}")
        return None

    def _fresh(self, base: str) -> str:
        name, n = base, 2
        while name in BUILTIN_NAMES or list(self.global_scope.assignments[name]) or name in self._taken or \
                any(scope.accesses[name] for scope in set(self.scopes.values())):
            name = f"{base}_{n}"
            n += 1
        self._taken.add(name)
        return name

    def settle_siblings(self, plans: list[_Plan]) -> list[_Plan]:
        """Nested defs of one function that call each other move together, in the weakest tier of them."""
        by_name = {(id(p.creation.owner), p.name): p for p in plans if p.kind == "module-def"}
        changed = True
        while changed:
            changed = False
            for plan in plans:
                if plan.kind != "module-def" or not plan.needs:
                    continue
                needed = [by_name.get((id(plan.creation.owner), n)) for n in sorted(plan.needs)]
                missing = [n for n, p in zip(sorted(plan.needs), needed) if p is None or p.kind != "module-def"]
                if missing:
                    head = plan.message.split(": ", 1)[0]
                    shown = ", ".join(f"`{n}`" for n in missing)
                    plans[plans.index(plan)] = self.diagnostic(
                        plan.creation, head, f"it uses {shown} of `{plan.creation.owner.name.value}`, which cannot "
                                             "move")
                    by_name.pop((id(plan.creation.owner), plan.name), None)
                    changed = True
                    break
                if plan.tier is Tier.SAFE and any(p.tier is Tier.UNSAFE for p in needed):
                    plan.tier = Tier.UNSAFE
                    plan.reason = "; ".join(filter(None, [plan.reason, "it calls " + ", ".join(
                        f"`{p.name}`" for p in needed if p.tier is Tier.UNSAFE) + ", whose move is unsafe"]))
                    changed = True
        return plans


# --------------------------------------------------------------------------- small facts

_OTHER_FORMS = ("create it once (module level or `__init__`) and reuse it (retrace-fix moves nested defs, "
                "`tf.function(f)` of a module-level or imported `f` and `tf.function(lambda: f(...))()`)")

_LITERALS = (cst.Integer, cst.Float, cst.SimpleString, cst.Imaginary)


def _is_node(node) -> bool:
    return isinstance(node, cst.CSTNode)


def _access_name(access) -> str:
    node = access.node
    return node.value if isinstance(node, cst.Name) else short_code(node)


def _node_ids(node: cst.CSTNode | None) -> set[int]:
    found: set[int] = set()
    if node is None:
        return found

    class _V(cst.CSTVisitor):
        def on_visit(self, n: cst.CSTNode) -> bool:
            found.add(id(n))
            return True

    node.visit(_V())
    return found


def _header_ids(inner: cst.FunctionDef) -> set[int]:
    """Nodes the ``def`` statement evaluates in the enclosing scope: decorators, defaults, annotations."""
    ids: set[int] = set()
    for decorator in inner.decorators:
        ids |= _node_ids(decorator.decorator)
    params = inner.params
    for param in named_params(params):
        ids |= _node_ids(param.default)
        ids |= _node_ids(param.annotation)
    for param in (params.star_arg, params.star_kwarg):
        if isinstance(param, cst.Param):
            ids |= _node_ids(param.annotation)
    ids |= _node_ids(inner.returns)
    return ids


def _escapes(node: cst.CSTNode, parents: dict, scope, created: bool = False) -> str | None:
    """How a use of the function lets it out of its function, or None when it is only called.

    ``created``: ``node`` is the ``tf.function(...)`` call itself; an assignment to a name
    that is only called is fine.
    """
    parent = parents.get(id(node))
    if isinstance(parent, cst.Call) and parent.func is node:
        return None  # called
    if isinstance(parent, cst.Attribute) and parent.value is node:
        return None  # step.get_concrete_function(...), step.experimental_get_tracing_count()
    if isinstance(parent, cst.Arg):
        call = parents.get(id(parent))
        if isinstance(call, cst.Call) and is_tf_op(scope, call.func):
            return None  # tf.map_fn(step, x)
        return f"passed to `{short_code(call.func) if isinstance(call, cst.Call) else '...'}`"
    if isinstance(parent, cst.Return):
        return "returned"
    if isinstance(parent, (cst.Yield,)):
        return "yielded"
    if created and isinstance(parent, cst.Assign):
        return "stored" if not all(isinstance(t.target, cst.Name) for t in parent.targets) else None
    if isinstance(parent, (cst.Assign, cst.AnnAssign, cst.AugAssign)):
        return "stored"
    return "used as a value"


def _is_tf_function_decorator(decorator: cst.Decorator, scope) -> bool:
    expr = decorator.decorator
    return scope.is_tf_function(expr) or (isinstance(expr, cst.Call) and scope.is_tf_function(expr.func))


def _method_self(owner: cst.FunctionDef, creation: Creation, scope) -> str | None:
    """The first parameter of ``owner`` when it is a plain method of a class (not static/class)."""
    if len(creation.functions) != 1:
        return None  # a def inside a function inside a method: no class to add it to
    params = named_params(owner.params, keyword_only=False)
    if not params:
        return None
    for decorator in owner.decorators:
        q = scope.qualify(decorator.decorator)
        if q in ("builtins.staticmethod", "builtins.classmethod"):
            return None
    first = params[0].name.value
    return first if first == "self" else None


def _enclosing_class(module: cst.Module, function: cst.FunctionDef) -> cst.ClassDef | None:
    found: list[cst.ClassDef] = []

    class _V(cst.CSTVisitor):
        def visit_ClassDef(self, node: cst.ClassDef) -> bool:
            if isinstance(node.body, cst.IndentedBlock) and any(s is function for s in node.body.body):
                found.append(node)
            return True

    module.visit(_V())
    return found[0] if found else None


def _class_statements(cls: cst.ClassDef) -> list[cst.CSTNode]:
    body = cls.body.body if isinstance(cls.body, cst.IndentedBlock) else []
    return list(body)


def _binds(statement: cst.CSTNode, name: str) -> bool:
    if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
        return statement.name.value == name
    found = False

    class _V(cst.CSTVisitor):
        def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
            nonlocal found
            found = found or name in target_names(node.target)

        def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
            nonlocal found
            found = found or name in target_names(node.target)

        def visit_AugAssign(self, node: cst.AugAssign) -> None:
            nonlocal found
            found = found or name in target_names(node.target)

        def visit_ImportAlias(self, node: cst.ImportAlias) -> None:
            nonlocal found
            bound = node.asname.name if node.asname is not None else node.name
            found = found or (isinstance(bound, cst.Name) and bound.value == name)

        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            return False

    statement.visit(_V())
    return found


def _attribute_stores(module: cst.Module, attr: str) -> list[cst.CSTNode]:
    """``x.attr = ...`` / ``x.attr += ...`` / ``setattr(x, "attr", ...)`` anywhere in the module."""
    found: list[cst.CSTNode] = []

    class _V(cst.CSTVisitor):
        def _check(self, target, node) -> None:
            if isinstance(target, cst.Attribute) and target.attr.value == attr:
                found.append(node)
            elif isinstance(target, (cst.Tuple, cst.List)):
                for element in target.elements:
                    self._check(element.value, node)

        def visit_Assign(self, node: cst.Assign) -> None:
            for target in node.targets:
                self._check(target.target, node)

        def visit_AugAssign(self, node: cst.AugAssign) -> None:
            self._check(node.target, node)

        def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
            self._check(node.target, node)

        def visit_Call(self, node: cst.Call) -> None:
            if isinstance(node.func, cst.Name) and node.func.value == "setattr" and len(node.args) >= 2:
                value = node.args[1].value
                if isinstance(value, cst.SimpleString) and value.evaluated_value == attr:
                    found.append(node)

    module.visit(_V())
    return found


def _unhashable(cls: cst.ClassDef) -> str | None:
    """Why instances of ``cls`` may not serve as keys of tf.function's per-object cache."""
    for decorator in cls.decorators:
        expr = decorator.decorator
        name = dotted_name(expr.func if isinstance(expr, cst.Call) else expr) or ""
        if name.split(".")[-1] in ("dataclass", "define", "frozen", "s", "attrs"):
            return f"is a `@{name}` class (value-based equality)"
    for statement in _class_statements(cls):
        for attr in ("__eq__", "__slots__", "__hash__"):
            if _binds(statement, attr):
                return f"defines `{attr}`"
    return None


def _base_class_risks(cls: cst.ClassDef, name: str, module: cst.Module) -> list[str]:
    """Why adding method ``name`` to ``cls`` may override something this module does not show."""
    local = {s.name.value: s for s in module.body if isinstance(s, cst.ClassDef)}
    risks: list[str] = []
    seen: set[str] = set()

    def walk(klass: cst.ClassDef) -> None:
        for base in klass.bases:
            if base.keyword is not None:
                continue
            shown = dotted_name(base.value) or short_code(base.value)
            if shown == "object" or shown in seen:
                continue
            seen.add(shown)
            defined = local.get(shown)
            if defined is None:
                risks.append(f"`{shown}` (a base class of `{cls.name.value}`) may define `{name}` or rely on "
                             "instances being plain keys: the new method would override it")
                continue
            if any(_binds(s, name) for s in _class_statements(defined)):
                risks.append(f"`{shown}` defines `{name}`")
                continue
            walk(defined)

    walk(cls)
    for other in local.values():
        if other is not cls and any(dotted_name(b.value) == cls.name.value for b in other.bases):
            if any(_binds(s, name) for s in _class_statements(other)):
                risks.append(f"`{other.name.value}`, a subclass of `{cls.name.value}`, defines `{name}`")
    return risks


def _attributes_set_per_call(cls: cst.ClassDef, inner: cst.FunctionDef, self_name: str) -> list[str]:
    """``self.x`` the body reads that a method other than ``__init__`` sets: a per-call value frozen by tracing."""
    read: dict[str, None] = {}

    class _Reads(cst.CSTVisitor):
        def visit_Attribute(self, node: cst.Attribute) -> None:
            if isinstance(node.value, cst.Name) and node.value.value == self_name:
                read[node.attr.value] = None

    inner.body.visit(_Reads())
    methods = {s.name.value for s in _class_statements(cls) if isinstance(s, cst.FunctionDef)}
    out = []
    for statement in _class_statements(cls):
        if not isinstance(statement, cst.FunctionDef) or statement.name.value in _INIT_METHODS:
            continue
        for attr in _self_stores(statement, self_name):
            if attr in read and attr not in methods:
                out.append(f"`{self_name}.{attr}` is set in `{statement.name.value}`: the method keeps the value "
                           "its first trace read")
                read.pop(attr)
    return out


def _self_stores(function: cst.FunctionDef, self_name: str) -> list[str]:
    found: list[str] = []

    class _V(cst.CSTVisitor):
        def _check(self, target) -> None:
            if isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) and \
                    target.value.value == self_name:
                found.append(target.attr.value)
            elif isinstance(target, (cst.Tuple, cst.List)):
                for element in target.elements:
                    self._check(element.value)

        def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
            self._check(node.target)

        def visit_AugAssign(self, node: cst.AugAssign) -> None:
            self._check(node.target)

        def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
            self._check(node.target)

    function.visit(_V())
    return found


def _body_hazards(function: cst.FunctionDef, scope, module: cst.Module) -> tuple[list[str], list[str]]:
    """(what forbids sharing one function: variables and objects created while tracing,
    what makes it unsafe: Python side effects at trace time)."""
    blockers: list[str] = []
    effects: list[str] = []
    local_classes = {s.name.value for s in module.body if isinstance(s, cst.ClassDef)}
    local_names = set()

    class _Locals(cst.CSTVisitor):
        def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
            local_names.update(target_names(node.target))

    function.body.visit(_Locals())

    class _V(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            q = scope.qualify(node.func)
            shown = short_code(node)
            func = node.func
            last = (q or dotted_name(func) or "").rsplit(".", 1)[-1]
            if q == "tensorflow.Variable" or (q or "").startswith(("tensorflow.random.Generator", "tensorflow.Module")):
                blockers.append(f"`{shown}` creates a variable while tracing (a shared function creates it once, "
                                "not once per call)")
            elif q is not None and q.startswith("keras.") and last[:1].isupper():
                blockers.append(f"`{shown}` creates a Keras object (and its variables) while tracing")
            elif isinstance(func, cst.Attribute) and func.attr.value in _STATEFUL_METHODS:
                blockers.append(f"`{shown}` creates a variable while tracing")
            elif isinstance(func, cst.Name) and func.value in local_classes:
                blockers.append(f"`{shown}` creates a `{func.value}` object while tracing (it may hold variables)")
            elif q is not None and q.startswith("tensorflow.") and last[:1].isupper() and q not in _TF_VALUE_CLASSES:
                blockers.append(f"`{shown}` creates a `{last}` object while tracing")
            elif q is not None and q.startswith(_SIDE_EFFECT_PREFIXES):
                effects.append(f"`{shown}` runs while tracing: once per call before, once per trace after")
            elif isinstance(func, cst.Attribute) and func.attr.value in _MUTATORS and not (
                isinstance(func.value, cst.Name) and func.value.value in local_names
            ) and not is_tf_op(scope, func):
                effects.append(f"`{shown}` changes Python state while tracing: once per call before, once per "
                               "trace after")

        def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
            if isinstance(node.target, (cst.Attribute, cst.Subscript)):
                effects.append(f"`{short_code(node.target)} = ...` changes Python state while tracing: once per "
                               "call before, once per trace after")

        def visit_AugAssign(self, node: cst.AugAssign) -> None:
            if isinstance(node.target, (cst.Attribute, cst.Subscript)):
                effects.append(f"`{short_code(node)}` changes Python state while tracing")

        def visit_Global(self, node: cst.Global) -> None:
            effects.append("it declares `global` names and may rebind them while tracing")

        def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
            blockers.append("it rebinds variables of the enclosing function (`nonlocal`)")

    function.body.visit(_V())
    return list(dict.fromkeys(blockers)), list(dict.fromkeys(effects))


def _fresh_objects(owner: cst.FunctionDef, names: set[str], scope) -> list[str]:
    """Names of ``names`` that ``owner`` binds to an object it constructs (``model = keras.Sequential(...)``,
    ``opt = Optimizer(...)``, ``v = tf.Variable(...)``): new on every call of ``owner``."""
    found: list[str] = []

    class _V(cst.CSTVisitor):
        def visit_Assign(self, node: cst.Assign) -> None:
            value = node.value
            if not isinstance(value, cst.Call):
                return
            q = scope.qualify(value.func) or dotted_name(value.func) or ""
            last = q.rsplit(".", 1)[-1]
            if not (last[:1].isupper() or q == "tensorflow.Variable"):
                return
            for target in node.targets:
                found.extend(n for n in target_names(target.target) if n in names)

        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            return node is owner

    owner.visit(_V())
    return found


def _statement_of(node: cst.CSTNode, parents: dict, owner: cst.FunctionDef) -> cst.BaseStatement | None:
    """The statement of ``owner``'s blocks that holds ``node`` (None: it sits in a lambda, nested def or
    comprehension, whose code runs at another time)."""
    current = node
    while True:
        parent = parents.get(id(current))
        if parent is None:
            return None
        if isinstance(parent, cst.IndentedBlock):
            return current if isinstance(current, cst.BaseStatement) else None
        if isinstance(parent, (cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp,
                               cst.SimpleStatementSuite)) or (isinstance(parent, cst.FunctionDef) and parent is not owner):
            return None
        current = parent


def _first_param(function: cst.FunctionDef) -> str | None:
    params = named_params(function.params, keyword_only=False)
    return params[0].name.value if params else None


def _self_attribute_reads(function: cst.FunctionDef, self_name: str) -> list[str]:
    found: dict[str, None] = {}

    class _V(cst.CSTVisitor):
        def visit_Attribute(self, node: cst.Attribute) -> None:
            if isinstance(node.value, cst.Name) and node.value.value == self_name:
                found[node.attr.value] = None

    function.body.visit(_V())
    return list(found)


def _attribute_names(module: cst.Module) -> set[str]:
    """Every ``x.name`` attribute name the module spells."""
    found: set[str] = set()

    class _V(cst.CSTVisitor):
        def visit_Attribute(self, node: cst.Attribute) -> None:
            found.add(node.attr.value)

        def visit_SimpleString(self, node: cst.SimpleString) -> None:
            value = node.evaluated_value
            if isinstance(value, str) and value.isidentifier():
                found.add(value)  # getattr(obj, "name")

    module.visit(_V())
    return found


def _cache_statement(plan) -> cst.If:
    """``if getattr(self, "_tf_m", None) is None: self._tf_m = tf.function(self.m, ...)``."""
    holder = cst.Attribute(cst.Name(plan.self_name), cst.Name(plan.name))
    test = cst.parse_expression(f'getattr({plan.self_name}, "{plan.name}", None) is None')
    assign = cst.SimpleStatementLine([cst.Assign(targets=[cst.AssignTarget(holder)], value=plan.wrap)])
    return cst.If(test=test, body=cst.IndentedBlock(body=[assign]))


def _wrapped(call: cst.Call, scope) -> cst.BaseExpression | None:
    """What ``tf.function(target, ...)`` wraps."""
    if scope.is_tf_function(call.func) and call.args:
        return call.args[0].value
    return None


def _lambda_target_call(target: cst.Lambda, parent: cst.CSTNode | None, wrap: cst.Call) -> cst.Call | None:
    """``f(args)`` of ``tf.function(lambda: f(args))()``, else None."""
    params = target.params
    if params.params or params.posonly_params or params.kwonly_params or isinstance(params.star_arg, cst.Param) \
            or params.star_kwarg is not None:
        return None
    if not (isinstance(parent, cst.Call) and parent.func is wrap and not parent.args):
        return None
    body = target.body
    if isinstance(body, cst.Call) and (
        isinstance(body.func, cst.Name)
        or (isinstance(body.func, cst.Attribute) and isinstance(body.func.value, cst.Name)
            and body.func.value.value == "self")  # self.m(...): a method's own method
    ):
        return body
    return None


def _simple_value(expr: cst.BaseExpression) -> bool:
    """A value that is the same computed inside or outside the graph: a name, an attribute chain, a literal."""
    if isinstance(expr, _LITERALS):
        return True
    if isinstance(expr, cst.Name):
        return True
    if isinstance(expr, cst.Attribute):
        return _simple_value(expr.value)
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
        return isinstance(expr.expression, (cst.Integer, cst.Float))
    return False
