"""RTF006's decisions: what to do with each repeated tf.function creation.

:class:`HoistDecider` reads the unchanged tree and returns one :class:`HoistDecision`
per creation it has something to say about: move a nested ``def`` to module level
("module-def") or make it a method ("method"), create ``tf.function(f)`` once at
module level ("module-assign") or once per object ("self-cache"), or only report
why it stays ("diagnostic").  The command in
:mod:`retrace_fix.codemods.hoist_tf_function` reports them and makes the edits.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import libcst as cst

from retrace_fix.codemods._class_facts import (
    attribute_stores,
    attributes_set_per_call,
    base_class_risks,
    class_statements,
    enclosing_class,
    first_param,
    method_self,
    self_attribute_reads,
)
from retrace_fix.codemods._creations import Creation, find_creations, is_factory, repeated_evidence
from retrace_fix.codemods._fresh_captures import fresh_captures
from retrace_fix.codemods._hoist_bodies import body_hazards, fresh_objects
from retrace_fix.codemods._hoist_facts import NOT_A_RETRACE, HoistFacts
from retrace_fix.codemods._hoist_forward import (
    Forwarder,
    bound_names,
    forwarded_args,
    has_attribute,
    literal,
    read_forwarder,
)
from retrace_fix.codemods._hoist_syntax import (
    access_name,
    escapes,
    header_ids,
    is_tf_function_decorator,
    lambda_arguments,
    lambda_target_call,
    statement_of,
)
from retrace_fix.cst_tree import node_ids, parent_map
from retrace_fix.findings import Tier
from retrace_fix.node_text import code_of, short_code
from retrace_fix.tfnames import statement_binds


@dataclass
class HoistDecision:
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
    #: module-forward: id of each call of the new function -> the call of the module-level one
    forwards: dict[int, cst.Call] = field(default_factory=dict)
    dropped: set[int] = field(default_factory=set)  # module-forward: ids of statements removed (`fn = ...`)
    reuse: bool = False  # module-forward: the module already has ``name = tf.function(f)``


_OTHER_FORMS = ("create it once (module level or `__init__`) and reuse it (retrace-fix moves nested defs, "
                "`tf.function(f)` of a module-level or imported `f` and `tf.function(lambda: f(...))()`)")


class HoistDecider(HoistFacts):
    """Decides, on the unchanged tree, what to do with every repeated tf.function creation."""

    def decisions(self) -> list[HoistDecision]:
        candidates: list[tuple[Creation, str]] = []
        for creation in find_creations(self.analysis, self.scope, self.c.context.scratch):
            owner = creation.owner
            if owner is None or any(f in self.analysis.tf_functions for f in creation.functions):
                continue  # module level (RTF101's), or created only while another tf.function traces
            if creation.guarded or is_factory(owner):
                continue
            recorded = self.trace_evidence(creation)
            if recorded is NOT_A_RETRACE:
                continue  # the recording: every new function closed over a new model (one trace per model)
            evidence = (recorded or repeated_evidence(creation, self.calls, self.file_line)
                        or self.method_evidence(creation) or self.forward_evidence(creation))
            if evidence is None:
                continue
            if recorded is None and fresh_captures(creation, self.calls, self.scope, self.analysis.module):
                continue  # the code: it closes over an object new at every creation (recorded traces decide first)
            candidates.append((creation, evidence))
        if not candidates:
            return []
        self._siblings: dict[int, set[str]] = {}
        for creation, _ in candidates:
            if creation.is_def:
                self._siblings.setdefault(id(creation.owner), set()).add(creation.node.name.value)
        decisions = [self.decide(creation, evidence) for creation, evidence in candidates]
        return self.settle_siblings([decision for decision in decisions if decision is not None])

    def decide(self, creation: Creation, evidence: str) -> HoistDecision | None:
        head = f"{creation.shown} creates a new tf.function {evidence}"
        if creation.is_def:
            return self.decide_def(creation, head)
        return self.decide_call(creation, head)

    def diagnostic(self, creation: Creation, head: str, why: str, verifiable: bool = False) -> HoistDecision:
        return HoistDecision(creation, "diagnostic", f"{head}; it stays: {why}", Tier.DIAGNOSTIC, verifiable=verifiable)

    def decide_def(self, creation: Creation, head: str) -> HoistDecision | None:
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
        inside = node_ids(inner.body)
        for access in uses:
            use = access.node
            if id(use) not in inside and self.line(use) < def_line:
                problems.append(f"`{name}` is used before its definition (line {self.file_line(use)})")
                break
            escape = escapes(use, parents, self.scope)
            if escape is not None:
                soft.append(f"`{name}` is {escape}: callers may expect a new function each time "
                            "(create it once where it is used, or cache it)")
                break
        extra = [d for d in inner.decorators if not is_tf_function_decorator(d, self.scope)]
        if extra:
            problems.append(f"it has another decorator (`@{short_code(extra[0].decorator)}`), which would run once "
                            "instead of on every call")
        if inner.asynchronous is not None:
            problems.append("it is `async`")
        # what the def line evaluates (decorators, defaults, annotations) and what the body reads
        header = header_ids(inner)
        header_names = [a for a in owner_scope.accesses if id(a.node) in header]
        captured: dict[str, tuple] = {}  # name -> (line, column) of its first read
        module_names: dict[str, None] = {}
        late = [access_name(a) for a in sorted(header_names, key=lambda a: self.position(a.node) or (0, 0))
                if self.resolve(a, inner) == "captured"]
        if late:
            problems.append(f"its decorator or defaults read {', '.join(f'`{n}`' for n in dict.fromkeys(late))} "
                            f"of `{owner.name.value}`")
        body_reads: list = []
        for scope in self.scopes_under(inner_scope):
            for access in scope.accesses:
                where = self.resolve(access, inner, own_scopes=True)
                if where == "captured":  # a name's first read in the code (accesses are a set)
                    name_read, at = access_name(access), self.position(access.node) or (0, 0)
                    captured[name_read] = min(captured.get(name_read, at), at)
                elif where == "module":
                    module_names[access_name(access)] = None
                body_reads.append(access)
        captured = dict(sorted(captured.items(), key=lambda item: (item[1], item[0])))
        captured.pop(name, None)  # recursion: after the move the module-level name is the function itself
        # sibling tf.functions it calls resolve to the module-level ones once they move too
        needs = {n for n in captured if n in self._siblings.get(id(owner), ()) and n != name}
        for sibling in needs:
            captured.pop(sibling)
        blockers, effects = body_hazards(inner, self.scope, self.analysis.module)
        problems.extend(blockers)
        unsafe.extend(effects)
        move_kind = None
        self_name = method_self(owner, creation, self.scope)
        if self_name is not None and list(captured) == [self_name]:
            move_kind = "method"
        if not captured:
            move_kind = "module-def"
        elif needs:
            move_kind = None  # a method that calls siblings: left to the user
        if move_kind is None and fresh_objects(owner, set(captured), self.scope):
            return None  # it closes over objects built anew on every call: one trace per call is inherent
        if move_kind is None:
            shown = ", ".join(f"`{n}`" for n in captured)
            where = "them" if len(captured) > 1 else "it"
            problems.insert(0, f"it uses {shown} of `{owner.name.value}` (pass {where} as "
                               f"{'arguments' if len(captured) > 1 else 'an argument'} to move it out)")
            message = "; ".join([*problems, *soft])
            if len(problems) == 1 and not soft and not needs and self._calls_only(uses, owner):
                # the edit a --verify run may try: captured values passed as keyword arguments, to a
                # method when it also uses the instance (`self` cannot be a keyword of a tf.function call)
                if self_name is not None and self_name in captured:
                    decision = self._method_decision(creation, head, name, uses, header_names, module_names, [],
                                             self_name, owner, inner)
                    kind = "method"
                else:
                    decision = self._module_def_decision(creation, head, name, uses, header_names, needs,
                                                         module_names, [])
                    kind = "module-def"
                if decision.kind == kind and (kind == "method" or "self" not in captured):
                    decision.tier, decision.verifiable = Tier.DIAGNOSTIC, True
                    decision.message, decision.reason = self.diagnostic(creation, head, message).message, ""
                    decision.extra = [n for n in captured if kind == "module-def" or n != self_name]
                    decision.calls = {id(parent_map(owner)[id(a.node)]) for a in uses}
                    return decision
            return self.diagnostic(creation, head, message)
        if problems:
            return self.diagnostic(creation, head, "; ".join([*problems, *soft]))
        if move_kind == "module-def":
            decision = self._module_def_decision(creation, head, name, uses, header_names, needs, module_names, unsafe)
            return self._soften(decision, creation, head, soft)
        if needs:
            return self.diagnostic(creation, head, f"it uses {', '.join(f'`{n}`' for n in sorted(needs))} "
                                                   f"of `{owner.name.value}`")
        assert self_name is not None
        decision = self._method_decision(creation, head, name, uses, header_names, module_names, unsafe, self_name,
                                         owner, inner)
        return self._soften(decision, creation, head, soft)

    def _method_decision(self, creation, head, name, uses, header_names, module_names, unsafe, self_name, owner,
                     inner) -> HoistDecision:
        """A ``@tf.function`` method of the class of ``owner`` (a method whose body defines it)."""
        cls = enclosing_class(self.analysis.module, owner)
        assert cls is not None
        unsafe = list(unsafe)
        taken = self.method_taken(cls, name)
        if taken:
            return self.diagnostic(creation, head, taken)
        unsafe.extend(base_class_risks(cls, name, self.analysis.module))
        unsafe.extend(self.rebound(module_names))
        unsafe.extend(attributes_set_per_call(cls, inner, self_name))
        header_problem = [a for a in header_names if self.resolve(a, inner) not in ("module", "builtin")]
        if header_problem:
            return self.diagnostic(creation, head, "its decorator or defaults read local values")
        decision = self._fix(creation, head, "method", unsafe,
                              f"make it a `@tf.function` method (`{self_name}.{name}`): one function per object, "
                              "traced once")
        decision.name, decision.anchor, decision.container, decision.self_name = name, owner, cls, self_name
        decision.renames = {id(a.node) for a in uses}
        return decision

    def _soften(self, decision: HoistDecision, creation: Creation, head: str, soft: list[str]) -> HoistDecision:
        """A fix refused only for lack of evidence: a diagnostic whose edit a --verify run may try."""
        if not soft or decision.kind == "diagnostic":
            return decision
        decision.message = self.diagnostic(creation, head, "; ".join(soft)).message
        decision.tier, decision.reason, decision.verifiable = Tier.DIAGNOSTIC, "", True
        return decision

    def _module_def_decision(self, creation, head, name, uses, header_names, needs, module_names,
                             unsafe) -> HoistDecision:
        inner = creation.node
        anchor = self.anchor_of(inner)
        late = self.late_header_names(header_names, anchor, inner)
        if late:
            return self.diagnostic(creation, head, f"its decorator or defaults read {late}, which is not "
                                                   "bound at module level before it")
        taken = self.name_taken(name, uses)
        if taken:
            return self.diagnostic(creation, head, taken)
        unsafe = [*unsafe, *self.rebound(module_names)]
        self._taken.add(name)
        decision = self._fix(creation, head, "module-def", unsafe, "move it to module level: one function, traced once")
        decision.name, decision.anchor, decision.container, decision.needs = name, anchor, self.analysis.module, needs
        return decision

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

    def _fix(self, creation: Creation, head: str, kind: str, unsafe: list[str], what: str) -> HoistDecision:
        tier = Tier.UNSAFE if unsafe else Tier.SAFE
        return HoistDecision(creation, kind, f"{head}: {what}", tier, reason="; ".join(dict.fromkeys(unsafe)))

    def decide_call(self, creation: Creation, head: str) -> HoistDecision:
        call = creation.node
        assert isinstance(call, cst.Call)
        wrap = call if self.scope.is_tf_function(call.func) else None
        if wrap is None:  # tf.function(...)(f): leave the spelling to the user
            return self.diagnostic(creation, head, _OTHER_FORMS)
        target = wrap.args[0].value
        owner = creation.owner
        parents = parent_map(owner)
        parent = parents.get(id(call))
        forwarder, refusal = read_forwarder(target, self.scope)
        if refusal is not None:
            return self.diagnostic(creation, head, refusal)
        if forwarder is not None:
            return self._forward_decision(creation, head, wrap, forwarder, parents)
        lambda_call = None
        if isinstance(target, cst.Lambda):
            lambda_call = lambda_target_call(target, parent, call)
            if lambda_call is None:
                return self.diagnostic(creation, head, _OTHER_FORMS)
            target = lambda_call.func
        owner_scope = self.scopes.get(call)
        anchor = self.anchor_of(call)
        unsafe: list[str] = []
        imported = self.imported_function(target, owner_scope, anchor)
        if imported is not None:
            definition = None
            shown = imported
            unsafe.append(f"`{shown}` is defined in another module: retrace-fix cannot check that it creates no "
                          "variables while tracing (a shared function creates them once)")
        elif isinstance(target, cst.Name):
            shown = target.value
            definition = self.module_def(target.value)
            refusal = self._module_def_refusal(shown, definition, anchor, owner.name.value)
            if refusal is not None:
                return self.diagnostic(creation, head, refusal)
        elif self.own_method(creation, target) is not None:
            return self._self_cache_decision(creation, head, wrap, target, owner_scope, anchor, parents, lambda_call)
        else:
            return self.diagnostic(creation, head, _OTHER_FORMS)
        refusal = self._options_refusal(wrap, owner_scope, anchor)
        if refusal is not None:
            return self.diagnostic(creation, head, refusal)
        soft: list[str] = []
        if lambda_call is not None:
            replace = parent
            refusal, risk = lambda_arguments(lambda_call, shown)
            if refusal:
                return self.diagnostic(creation, head, refusal)
            unsafe.extend(filter(None, [risk]))
        else:
            replace = call
            escape = escapes(call, parents, self.scope, created=True)
            holder = parents.get(id(call))
            if escape is None and isinstance(holder, cst.Assign):
                escape = self.assigned_escape(holder, owner_scope, parents)
            soft = [f"the new tf.function is {escape}: callers may expect a new function each time"] if escape else []
        if definition is not None:
            blockers, effects = body_hazards(definition, self.scope, self.analysis.module)
            if blockers:
                return self.diagnostic(creation, head, "; ".join(blockers))
            unsafe.extend(effects)
        created = code_of(wrap.with_changes(args=[cst.Arg(target), *wrap.args[1:]]))
        name = self._wraps.get(created) or self.fresh(f"_tf_{shown.rsplit('.', 1)[-1]}")
        self._wraps[created] = name
        decision = self._fix(creation, head, "module-assign", unsafe,
                              f"create it once, at module level (`{name}`), and reuse it")
        decision.name, decision.anchor, decision.container = name, anchor, self.analysis.module
        decision.wrap, decision.replace, decision.lambda_call, decision.target = wrap, replace, lambda_call, target
        return self._soften(decision, creation, head, soft if lambda_call is None else [])

    def _self_cache_decision(self, creation: Creation, head: str, wrap: cst.Call, target: cst.Attribute,
                         owner_scope, anchor, parents: dict, lambda_call: cst.Call | None = None) -> HoistDecision:
        """``tf.function(self.m, ...)`` (or ``tf.function(lambda: self.m(a))()``) in a method: one
        tf.function per object, cached on it."""
        owner = creation.owner
        self_name = target.value.value
        attr = target.attr.value
        cls = enclosing_class(self.analysis.module, owner)
        if cls is None:
            return self.diagnostic(creation, head, _OTHER_FORMS)
        methods = [s for s in class_statements(cls) if isinstance(s, cst.FunctionDef) and s.name.value == attr]
        if len(methods) != 1 or methods[0].decorators:
            return self.diagnostic(creation, head, f"`{short_code(target)}` is not a plain method of "
                                                   f"`{cls.name.value}`; create the tf.function once in `__init__`")
        method = methods[0]
        if method in self.analysis.tf_functions and self.analysis.tf_functions[method].form != "wrap-call":
            return self.diagnostic(creation, head, f"`{short_code(target)}` is already a tf.function")
        stores = attribute_stores(self.analysis.module, attr)
        if stores:
            return self.diagnostic(creation, head, f"an attribute `{attr}` is assigned at line "
                                                   f"{self.file_line(stores[0])}: `{short_code(target)}` may be another "
                                                   "function by then")
        if any("__slots__" in statement_binds(s) for s in class_statements(cls)):
            return self.diagnostic(creation, head, f"`{cls.name.value}` defines `__slots__`: no attribute to cache "
                                                   "the tf.function on")
        wrap_ids = {i for arg in wrap.args[1:] for i in node_ids(arg.value)}
        for access in owner_scope.accesses if owner_scope is not None else ():
            if id(access.node) in wrap_ids and self.resolve(access, None) not in ("module", "builtin"):
                return self.diagnostic(creation, head, f"its options read `{access_name(access)}`, a value of "
                                                       f"this call of `{owner.name.value}`")
        statement = statement_of(creation.node, parents, owner)
        if statement is None:
            return self.diagnostic(creation, head, _OTHER_FORMS)
        blockers, effects = body_hazards(method, self.scope, self.analysis.module)
        if blockers:
            return self.diagnostic(creation, head, "; ".join(blockers))
        unsafe = list(effects)
        unsafe.extend(attributes_set_per_call(cls, method, first_param(method) or self_name))
        for read in self_attribute_reads(method, first_param(method) or self_name):
            outside = [n for n in attribute_stores(self.analysis.module, read)  # the class's own: above
                       if not any(self.inside(n, f) for f in class_statements(cls) if isinstance(f, cst.FunctionDef))]
            if outside and read not in {m.name.value for m in class_statements(cls) if isinstance(m, cst.FunctionDef)}:
                unsafe.append(f"`{self_name}.{read}` is assigned at line {self.file_line(outside[0])}: the method keeps "
                              "the value its first trace read")
        bases = [short_code(b.value) for b in cls.bases if short_code(b.value) != "object"]
        if bases:
            unsafe.append(f"`{cls.name.value}` derives from `{bases[0]}`: an attribute holding a tf.function may be "
                          "tracked or saved with the object (Keras layers, `tf.Module`)")
        soft: list[str] = []
        if lambda_call is not None:
            refusal, risk = lambda_arguments(lambda_call, attr, ", and a Python number traces once per value")
            if refusal:
                return self.diagnostic(creation, head, refusal)
            unsafe.extend(filter(None, [risk]))
        else:
            escape = escapes(creation.node, parents, self.scope, created=True)
            holder = parents.get(id(creation.node))
            if escape is None and isinstance(holder, cst.Assign):
                escape = self.assigned_escape(holder, owner_scope, parents)
            soft = [f"the new tf.function is {escape}: callers may expect a new function each time"] if escape else []
        name = self.fresh_attribute(f"_tf_{attr}")
        decision = self._fix(creation, head, "self-cache", unsafe,
                              f"create it once per object and keep it on `{self_name}.{name}`")
        decision.name, decision.self_name, decision.anchor = name, self_name, statement
        decision.wrap = wrap.with_changes(args=[cst.Arg(target), *wrap.args[1:]]) if lambda_call is not None else wrap
        decision.lambda_call = lambda_call
        decision.replace = parents.get(id(creation.node)) if lambda_call is not None else creation.node
        return self._soften(decision, creation, head, soft)

    # ------------------------------------------------------------------ forwarding lambdas and partials

    def forward_evidence(self, creation: Creation) -> str | None:
        """``tf.function(lambda x: f(x, k))`` or ``tf.function(partial(f, k=k))`` that the function
        calls where it creates it: every call of the function makes and traces a new one."""
        node = creation.node
        if creation.is_def or not isinstance(node, cst.Call) or not self.scope.is_tf_function(node.func) \
                or not node.args:
            return None
        forwarder, _ = read_forwarder(node.args[0].value, self.scope)
        if forwarder is None:
            return None
        target, wrap_scope, anchor = forwarder.func, self.scopes.get(node), self.anchor_of(node)
        module_level = isinstance(target, cst.Name) and self.module_def(target.value) is not None
        if not (module_level or self.imported_function(target, wrap_scope, anchor) is not None
                or self.imported_name(target, anchor) is not None):
            return None  # forwards to a local or an object's method: only a loop or the traces tell
        sites, _, why = self._forward_sites(node, parent_map(creation.owner), wrap_scope)
        if why is not None:
            return None
        return (f"every time `{creation.owner.name.value}` runs (each run wraps "
                f"`{short_code(node.args[0].value)}` anew and calls it: a trace per run)")

    def _forward_sites(self, wrap: cst.Call, parents: dict, wrap_scope) -> tuple[list, set, str | None]:
        """(the calls of the new tf.function, the statements to drop, None) or ([], set(), why it stays):
        called where it is made, or bound to a local name that is only called."""
        parent = parents.get(id(wrap))
        if isinstance(parent, cst.Call) and parent.func is wrap:
            return [parent], set(), None
        if isinstance(parent, cst.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0].target,
                                                                                       cst.Name):
            name = parent.targets[0].target.value
            line = parents.get(id(parent))
            if not (isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1
                    and isinstance(parents.get(id(line)), cst.IndentedBlock)):
                return [], set(), f"`{name} = ...` shares its line with other statements"
            bindings = list(wrap_scope.assignments[name]) if wrap_scope is not None else []
            if len(bindings) != 1:
                return [], set(), f"the new tf.function is assigned to `{name}`, which is rebound"
            sites = []
            for access in bindings[0].references:
                use = access.node
                up = parents.get(id(use))
                if not (isinstance(up, cst.Call) and up.func is use):
                    escape = escapes(use, parents, self.scope) or "used as a value"
                    return [], set(), (f"the new tf.function is assigned to `{name}`, which is {escape}: callers "
                                       "may expect a new function each time")
                if self.scopes.get(up) is not wrap_scope:
                    return [], set(), f"`{name}` is called inside a nested function, lambda or comprehension"
                sites.append(up)
            if not sites:
                return [], set(), f"`{name}` is never called"
            return sites, {id(line)}, None
        escape = escapes(wrap, parents, self.scope, created=True) or "used as a value"
        return [], set(), f"the new tf.function is {escape}: callers may expect a new function each time"

    def _module_def_refusal(self, shown: str, definition: cst.FunctionDef | None, anchor: cst.CSTNode,
                            owner_name: str) -> str | None:
        """Why ``shown``, the function a module-level ``tf.function(shown)`` would wrap, cannot be
        (None: it can): ``definition`` is its one module-level def, None when there is none."""
        if definition is None:
            return f"`{shown}` is not a function defined once at module level; create the tf.function once and reuse it"
        if definition in self.analysis.tf_functions and self.analysis.tf_functions[definition].form != "wrap-call":
            return f"`{shown}` is already a tf.function"
        if self.line(definition) >= self.line(anchor):
            return f"`{shown}` is defined after `{owner_name}`"
        return None

    def _options_refusal(self, wrap: cst.Call, scope: Any, anchor: cst.CSTNode) -> str | None:
        """Why the hoisted ``tf.function(...)``'s function or options cannot move to module level
        (None: they can): each name they read must be bound there before ``anchor``."""
        wrap_ids = node_ids(wrap.func) | {i for arg in wrap.args[1:] for i in node_ids(arg.value)}
        for access in scope.accesses if scope is not None else ():
            if id(access.node) in wrap_ids:
                where = self.resolve(access, None)
                if where not in ("module", "builtin") or not self.bound_before(access, anchor):
                    return f"its options read `{access_name(access)}`, which is not bound at module level before it"
        return None

    def _forward_decision(self, creation: Creation, head: str, wrap: cst.Call, forwarder: Forwarder,
                          parents: dict) -> HoistDecision:
        """``tf.function(lambda x: f(x, k))`` / ``tf.function(partial(f, k=k))`` called where it is made:
        one module-level ``tf.function(f)``, called with the bound values as arguments."""
        target = forwarder.func
        wrap_scope = self.scopes.get(wrap)
        anchor = self.anchor_of(wrap)
        unsafe: list[str] = []
        definition = None
        imported = self.imported_function(target, wrap_scope, anchor) or self.imported_name(target, anchor)
        if imported is not None:
            shown = imported
            if shown.rsplit(".", 1)[-1][:1].isupper():
                return self.diagnostic(creation, head, f"`{shown}` looks like a class: a tf.function of it would "
                                                       "return the object it builds")
            unsafe.append(f"`{shown}` is defined in another module: retrace-fix cannot check that it creates no "
                          "variables while tracing (a shared function creates them once)")
        elif isinstance(target, cst.Name):
            shown = target.value
            definition = self.module_def(shown)
            visible = list(self.scopes[target][shown]) if target in self.scopes else []
            if any(type(a.scope).__name__ != "GlobalScope" for a in visible):
                definition = None  # the name the lambda or partial reads is not the module's def
            refusal = self._module_def_refusal(shown, definition, anchor, creation.owner.name.value)
            if refusal is not None:
                return self.diagnostic(creation, head, refusal)
        else:
            return self.diagnostic(creation, head, f"`{short_code(target)}` is not a function defined at module "
                                                   "level or imported; create the tf.function once and reuse it")
        refusal = self._options_refusal(wrap, wrap_scope, anchor)
        if refusal is not None:
            return self.diagnostic(creation, head, refusal)
        sites, dropped, why = self._forward_sites(wrap, parents, wrap_scope)
        if why is not None:
            return self.diagnostic(creation, head, why)
        mapped = {}
        for site in sites:
            args, why = forwarded_args(forwarder, site)
            if why is not None:
                return self.diagnostic(creation, head, why)
            mapped[id(site)] = (site, args)
        if forwarder.kind == "partial" and dropped:
            attribute = next((v for v in forwarder.bound if has_attribute(v)), None)
            if attribute is not None:
                return self.diagnostic(creation, head, f"`{short_code(attribute)}` may change between "
                                                       "`functools.partial` (which reads it once) and the calls")
            moved = self._rebound_bound_value(forwarder, wrap_scope, creation.owner)
            if moved:
                return self.diagnostic(creation, head, f"`{moved}` may change between `functools.partial` (which "
                                                       "reads it once) and the calls")
        risky = [short_code(v) for v in forwarder.bound if not self._constant_value(v, wrap_scope)]
        if risky:
            verb = "becomes an argument instead of a bound value" if len(risky) == 1 else \
                "become arguments instead of bound values"
            unsafe.append(f"{', '.join(f'`{n}`' for n in risky)} {verb}: a NumPy array "
                          f"passed that way reaches `{shown}` as a tensor, a list as a copy, and an object new at "
                          "every call is kept by the tf.function (one trace each)")
        if definition is not None:
            blockers, effects = body_hazards(definition, self.scope, self.analysis.module)
            if blockers:
                return self.diagnostic(creation, head, "; ".join(blockers))
            unsafe.extend(effects)
            body_scope = self.scopes.get(definition.body)
            if body_scope is not None:  # a global it reads that changes: the shared trace keeps the first value
                reads = {access_name(a): None for scope in self.scopes_under(body_scope) for a in scope.accesses
                         if self.resolve(a, definition, own_scopes=True) == "module"}
                unsafe.extend(self.rebound(reads))
            shown_params = {p.name.value for p in (*definition.params.params, *definition.params.kwonly_params)}
            keywords = [a.keyword.value for _, args in mapped.values() for a in args if a.keyword is not None]
            unseen = [k for k in dict.fromkeys(keywords) if k not in shown_params]
            if unseen:
                unsafe.append(f"`{shown}` does not show a parameter `{unseen[0]}` (it takes it through `**kwargs`, "
                              "if at all): retrace-fix cannot check how it is used")
        created = code_of(wrap.with_changes(args=[cst.Arg(target), *wrap.args[1:]]))
        existing = self._existing_wrap(created, anchor)
        name = existing or self._wraps.get(created) or self.fresh(f"_tf_{shown.rsplit('.', 1)[-1]}")
        self._wraps[created] = name
        decision = self._fix(creation, head, "module-forward", unsafe,
                             f"create `tf.function({shown})` once, at module level (`{name}`), and pass the bound "
                             "values as arguments")
        decision.name, decision.anchor, decision.container = name, anchor, self.analysis.module
        decision.wrap, decision.target, decision.reuse = wrap, target, existing is not None
        decision.forwards = {i: site.with_changes(func=cst.Name(name), args=args) for i, (site, args) in mapped.items()}
        decision.dropped = dropped
        return decision

    def imported_name(self, target: cst.BaseExpression, anchor) -> str | None:
        """``f`` imported once at module level (``from ops import f``), before ``anchor``: its name."""
        if not isinstance(target, cst.Name) or target not in self.scopes:
            return None
        name = target.value
        visible = list(self.scopes[target][name])
        if len(visible) != 1 or type(visible[0]).__name__ != "ImportAssignment" or name in self.global_decls \
                or type(visible[0].scope).__name__ != "GlobalScope":
            return None
        if self.line(visible[0].node) >= self.line(anchor):
            return None
        return name

    def _constant_value(self, value: cst.BaseExpression, wrap_scope) -> bool:
        """A bound value that is a Python constant where the function is made: a literal, a module-level name
        bound once to one, or a parameter (never rebound) whose default is a string, a bool or None."""
        if literal(value):
            return True
        if not isinstance(value, cst.Name) or wrap_scope is None:
            return False
        visible = list(wrap_scope[value.value])
        if len(visible) != 1:
            return False
        node = visible[0].node
        if isinstance(node, cst.Param):
            default = node.default
            return isinstance(default, (cst.SimpleString, cst.ConcatenatedString)) or (
                isinstance(default, cst.Name) and default.value in ("True", "False", "None"))
        if type(visible[0].scope).__name__ == "GlobalScope" and value.value not in self.global_decls:
            for statement in self.analysis.module.body:
                if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
                    assign = statement.body[0]
                    if isinstance(assign, cst.Assign) and len(assign.targets) == 1 \
                            and assign.targets[0].target is node:
                        return literal(assign.value)
        return False

    def _rebound_bound_value(self, forwarder: Forwarder, wrap_scope, owner: cst.FunctionDef) -> str | None:
        """A local name the partial binds that may hold another value when the bound function is called."""
        parents = parent_map(owner)
        for name in bound_names(forwarder):
            visible = list(wrap_scope[name.value]) if wrap_scope is not None else []
            local = [a for a in visible if type(a.scope).__name__ != "GlobalScope"]
            if not local:
                continue
            if len(visible) != 1:
                return name.value
            node = visible[0].node
            current = node
            while current is not None and current is not owner:
                if isinstance(current, (cst.For, cst.While, cst.ListComp, cst.SetComp, cst.DictComp,
                                        cst.GeneratorExp)):
                    return name.value
                current = parents.get(id(current))
        return None

    def _existing_wrap(self, created: str, anchor) -> str | None:
        """The name of a module-level ``name = tf.function(f, ...)`` before ``anchor`` (bound once)."""
        for statement in self.analysis.module.body:
            if statement is anchor:
                return None
            if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
                assign = statement.body[0]
                if isinstance(assign, cst.Assign) and len(assign.targets) == 1 \
                        and isinstance(assign.targets[0].target, cst.Name) and code_of(assign.value) == created:
                    name = assign.targets[0].target.value
                    if len(list(self.global_scope.assignments[name])) == 1 and name not in self.global_decls:
                        return name
        return None

    def settle_siblings(self, decisions: list[HoistDecision]) -> list[HoistDecision]:
        """Nested defs of one function that call each other move together, in the weakest tier of them."""
        by_name = {(id(p.creation.owner), p.name): p for p in decisions if p.kind == "module-def"}
        changed = True
        while changed:
            changed = False
            for decision in decisions:
                if decision.kind != "module-def" or not decision.needs:
                    continue
                needed = [by_name.get((id(decision.creation.owner), n)) for n in sorted(decision.needs)]
                missing = [n for n, p in zip(sorted(decision.needs), needed) if p is None or p.kind != "module-def"]
                if missing:
                    head = decision.message.split(": ", 1)[0]
                    shown = ", ".join(f"`{n}`" for n in missing)
                    decisions[decisions.index(decision)] = self.diagnostic(
                        decision.creation, head, f"it uses {shown} of `{decision.creation.owner.name.value}`, which cannot "
                                             "move")
                    by_name.pop((id(decision.creation.owner), decision.name), None)
                    changed = True
                    break
                if decision.tier is Tier.SAFE and any(p.tier is Tier.UNSAFE for p in needed):
                    decision.tier = Tier.UNSAFE
                    decision.reason = "; ".join(filter(None, [decision.reason, "it calls " + ", ".join(
                        f"`{p.name}`" for p in needed if p.tier is Tier.UNSAFE) + ", whose move is unsafe"]))
                    changed = True
        return decisions
