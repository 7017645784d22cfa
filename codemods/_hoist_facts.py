"""What one module says about names and repeated creations, for RTF006 (hoist-tf-function).

:class:`HoistFacts` wraps LibCST's scope analysis of the module being read: where a
name read resolves (local, captured, module, builtin), whether a module-level name
is bound before a statement, which names are free for a new module-level function
or attribute, and the evidence (recorded traces, a method wrapping its own method)
that a creation runs over and over.  :class:`~retrace_fix.codemods._hoist_decider.HoistDecider`
builds on it.
"""

from __future__ import annotations

import libcst as cst

from retrace_fix.codemods._base import RetraceCodemod
from retrace_fix.codemods._class_facts import (
    attribute_names,
    attribute_stores,
    class_statements,
    enclosing_class,
    method_self,
    unhashable,
)
from retrace_fix.codemods._creations import Creation
from retrace_fix.codemods._hoist_forward import is_partial
from retrace_fix.codemods._hoist_syntax import access_name, escapes, is_node, lambda_target_call, wrapped_target
from retrace_fix.codemods._module_reader import ModuleReader
from retrace_fix.codemods._traced_functions import note_matched
from retrace_fix.cst_tree import parent_map
from retrace_fix.node_text import short_code
from retrace_fix.traces.function_stats import WRAPS_PARTIAL
from retrace_fix.tfnames import BUILTIN_NAMES, dotted_name, statement_binds


_SCOPES_KEY = "retrace_fix.hoist.scopes"

#: :meth:`HoistFacts.trace_evidence`'s answer when the traces show that every re-creation closed over a
#: new variable-owning object (a new model per fold): one trace per object, nothing to remove
NOT_A_RETRACE = "not a retrace"


class HoistFacts(ModuleReader):
    """Scope facts of one module, computed on demand and shared by the decisions of one run."""

    def __init__(self, codemod: RetraceCodemod) -> None:
        super().__init__(codemod)
        self._scopes = None
        self._taken: set[str] = set()  # names this run gives out
        self._wraps: dict[str, str] = {}  # the code of a module-level tf.function(f, ...) -> its name

    @property
    def scopes(self):
        if self._scopes is None:
            cached = self.c.context.scratch.get(_SCOPES_KEY)
            if cached is not None and cached[0] is self.analysis.module:
                self._scopes = cached[1]
            else:
                self._scopes = self.analysis.scopes()
                self.c.context.scratch[_SCOPES_KEY] = (self.analysis.module, self._scopes)
        return self._scopes

    @property
    def global_scope(self):
        return self.scopes[self.analysis.module]

    def trace_evidence(self, creation: Creation) -> str | None:
        traces = self.c.settings.traces
        relpath = self.c.settings.relpath
        if traces is None or not relpath:
            return None
        node = creation.node
        wraps, forwarding = None, False
        if isinstance(node, cst.FunctionDef):
            qualname = self.c.qualname(node)
            line = self.line(node.decorators[0] if node.decorators else node)
        else:
            target = wrapped_target(node, self.scope)
            forwarding = isinstance(target, cst.Lambda) and bool(target.params.params)
            if is_partial(target, self.scope) and target.args and isinstance(target.args[0].value, cst.Name):
                # tf.function(partial(f, ...)): the recorder keeps its traces under `f`, as `wraps` records
                definition = self.module_def(target.args[0].value.value)
                if definition is None or definition in self.analysis.tf_functions:
                    return None  # a partial of a tf.function: the record at its position is ambiguous
                qualname, wraps, forwarding = self.c.qualname(definition), WRAPS_PARTIAL, True
                line = self.line(definition.decorators[0] if definition.decorators else definition)
            elif isinstance(target, cst.Lambda):
                qualname = self.c.qualname(creation.owner) + ".<locals>.<lambda>"
                line = self.line(target)
            elif isinstance(target, cst.Name):
                definition = self.module_def(target.value)
                if definition is None:
                    return None
                qualname = self.c.qualname(definition)
                line = self.line(definition.decorators[0] if definition.decorators else definition)
            elif self.own_method(creation, target) is not None:
                cls = enclosing_class(self.analysis.module, creation.owner)
                methods = [s for s in class_statements(cls) if isinstance(s, cst.FunctionDef)
                           and s.name.value == target.attr.value] if cls is not None else []
                if len(methods) != 1:
                    return None
                qualname = self.c.qualname(methods[0])
                line = self.line(methods[0].decorators[0] if methods[0].decorators else methods[0])
            else:
                return None
        found = traces.find(relpath, qualname, line, wrapped=wraps is not None)
        found = [f for f in found if f.wraps == wraps]
        if len(found) != 1:
            return None
        function = found[0]
        note_matched(self.c.context.scratch, function)  # the run's "matched nothing" list leaves it out
        if not function.recreated:  # re-created within one process (a count summed over merged files is not)
            return None
        if function.fresh_captures >= function.recreated:
            return NOT_A_RETRACE  # each new function closed over a new model/variable: one trace per object
        total = function.total_traces
        distinct = len(function.traces)
        if forwarding:  # lambdas with parameters and partials: how many function objects traced
            objects = function.recreated + 1
            signatures = f"{distinct} distinct signature{'s' if distinct != 1 else ''}"
            return (f"every time `{creation.owner.name.value}` runs (the recorded run traced it {total} times by "
                    f"{objects} function objects, {signatures})")
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
            lambda_call = lambda_target_call(target, parents.get(id(node)), node)
            target = lambda_call.func if lambda_call is not None else target
        if self.own_method(creation, target) is None:
            return None
        escape = escapes(node, parents, self.scope, created=True)
        holder = parents.get(id(node))
        if escape is None and isinstance(holder, cst.Assign):
            escape = self.assigned_escape(holder, self.scopes.get(node), parents)
        if escape is not None:
            return None  # returned or stored: perhaps a factory, called once; traces can still tell
        return f"every time the method `{creation.owner.name.value}` runs (each call wraps `{short_code(node.args[0].value)}` anew)"

    def own_method(self, creation: Creation, target: cst.BaseExpression) -> str | None:
        """``self`` when ``target`` is ``self.m``, ``owner`` a plain method with that first parameter."""
        owner = creation.owner
        if not (isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name)) or owner is None:
            return None
        self_name = method_self(owner, creation, self.scope)
        return self_name if self_name is not None and target.value.value == self_name else None

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
        """The module-level statement that holds ``node``.

        Found by identity; the position search below (every top-level statement's code
        generated) gives the same statement -- top-level statements' lines do not overlap,
        and a node's first line lies within its statement's -- and is kept for a node that
        is not in the tree's statements."""
        statement = self.analysis.top_level_statement(node)
        if statement is not None:
            return statement
        line = self.line(node)
        best = None
        for statement in self.analysis.module.body:
            position = self.analysis.position(statement)
            if position.start.line <= line <= position.end.line:
                best = statement
        assert best is not None
        return best

    def inside(self, node: cst.CSTNode, function: cst.FunctionDef) -> bool:
        line = self.line(node)
        position = self.analysis.position(function)
        return position.start.line <= line <= position.end.line

    def fresh_attribute(self, base: str) -> str:
        used = attribute_names(self.analysis.module) | self._taken
        name, index = base, 2
        while name in used:
            name, index = f"{base}_{index}", index + 1
        self._taken.add(name)
        return name

    def position(self, node: cst.CSTNode) -> tuple[int, int]:
        position = self.analysis.position(node)
        return (position.start.line, position.start.column)

    def imported_function(self, target: cst.BaseExpression, owner_scope, anchor) -> str | None:
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

    def assigned_escape(self, assign: cst.Assign, owner_scope, parents: dict) -> str | None:
        """``fn = tf.function(f)``: how ``fn`` lets the function out, or None when it is only called."""
        for target in assign.targets:
            name = target.target.value
            bindings = list(owner_scope.assignments[name]) if owner_scope is not None else []
            if len(bindings) != 1:
                return f"assigned to `{name}`, which is rebound"
            for access in bindings[0].references:
                escape = escapes(access.node, parents, self.scope)
                if escape is not None:
                    return f"assigned to `{name}`, which is {escape}"
        return None

    def scopes_under(self, top) -> list:
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

    def resolve(self, access, inner: cst.FunctionDef | None, own_scopes: bool = False) -> str:
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
            elif own_scopes and inner is not None and self.within(scope, inner):
                kinds.add("local")
            else:
                kinds.add("captured")
        for kind in ("captured", "local", "module"):
            if kind in kinds:
                return kind
        return "builtin"

    def within(self, scope, inner: cst.FunctionDef) -> bool:
        top = self.scopes.get(inner.body)
        while scope is not None:
            if scope is top:
                return True
            parent = getattr(scope, "parent", None)
            if parent is scope:
                return False
            scope = parent
        return False

    def bound_before(self, access, anchor: cst.CSTNode) -> bool:
        if any(type(r.scope).__name__ == "BuiltinScope" for r in access.referents):
            return True
        line = self.line(anchor)
        referents = [r for r in access.referents if type(r.scope).__name__ == "GlobalScope"]
        return bool(referents) and all(
            is_node(r.node) and self.line(r.node) < line for r in referents
        ) and access_name(access) not in self.global_decls

    def late_header_names(self, accesses, anchor, inner) -> str | None:
        for access in accesses:
            if self.resolve(access, inner) in ("module", "builtin") and not self.bound_before(access, anchor):
                return f"`{access_name(access)}`"
        return None

    def rebound(self, names) -> list[str]:
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

    def name_taken(self, name: str, own_uses) -> str | None:
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

    def method_taken(self, cls: cst.ClassDef, name: str) -> str | None:
        for statement in class_statements(cls):
            if name in statement_binds(statement):
                return f"`{cls.name.value}` already has `{name}`"
        for node in attribute_stores(self.analysis.module, name):
            return f"`{short_code(node)}` sets an attribute named `{name}`"
        if unhashable(cls):
            return (f"a tf.function method needs instances that are hashable and weakly referenceable, and "
                    f"`{cls.name.value}` {unhashable(cls)}")
        return None

    def fresh(self, base: str) -> str:
        name, n = base, 2
        while name in BUILTIN_NAMES or list(self.global_scope.assignments[name]) or name in self._taken or \
                any(scope.accesses[name] for scope in set(self.scopes.values())):
            name = f"{base}_{n}"
            n += 1
        self._taken.add(name)
        return name
