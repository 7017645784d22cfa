"""RTF001's decisions: which ``for ... in range(n)`` loops become ``tf.range`` loops.

:class:`RangeDecider` walks the unchanged tree once, before any edit, and collects
:class:`RangeChanges`: the loops whose bound is (or, with a call-site argument passed
as a tensor, becomes) a tensor and whose body is safe with a tensor loop variable
(:class:`LoopChange`, or the diagnostic that says why not), and the call-site
arguments that become tensors (:class:`ArgChange`).  It also holds what the decision
reads: recorded facts about a parameter (:func:`trace_param_facts`), the operands of
TF ops, the ``autograph=False`` check.  The command in
:mod:`retrace_fix.codemods.range_to_tf_range` reports them and makes the edits.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from retrace_fix.codemods._base import RetraceCodemod
from retrace_fix.codemods._callsites import CachedScope, CallSite, ModuleCalls, TfCallable, py_function_targets
from retrace_fix.codemods._input_signatures import signature_tensor_params
from retrace_fix.codemods._loop_safety import Blocker, loop_blockers
from retrace_fix.codemods._param_safety import param_blockers
from retrace_fix.codemods._tf_values import is_tensor_expr, is_tf_op, range_call, tf_valued_names
from retrace_fix.analysis import TfFunctionSite
from retrace_fix.findings import Tier
from retrace_fix.node_text import short_code
from retrace_fix.tfnames import Scope, binding_sites, canonical, global_names, named_params


@dataclass
class LoopChange:
    tier: Tier
    message: str
    tf_name: str | None = None
    reason: str = ""
    subjects: tuple = ()  # a step-count parameter: RTF103 defers to this finding
    verifiable: bool = False  # a diagnostic whose edit --verify may try (tf_name is set)


@dataclass
class ArgChange:
    value: cst.BaseExpression
    message: str
    tf_name: str
    subjects: tuple = ()
    tier: Tier = Tier.SAFE
    verifiable: bool = False


#: blockers that only say what the analysis cannot see (a call into code it cannot
#: read, a value of unknown type): a --verify run may try the rewrite anyway
_EVIDENCE_LACKING = ("cannot see into", "of unknown type before the loop", "of unknown dtype")


def lacks_evidence(blocker: Blocker) -> bool:
    return any(text in blocker.reason for text in _EVIDENCE_LACKING)


@dataclass
class RangeChanges:
    loops: dict[cst.For, LoopChange] = field(default_factory=dict)
    args: dict[cst.Call, list[ArgChange]] = field(default_factory=dict)
    needs_import: bool = False


def _has_keyword(site: TfFunctionSite | None, keyword: str) -> bool:
    return site is not None and site.call is not None and any(
        a.keyword is not None and a.keyword.value == keyword for a in site.call.args
    )


def autograph_disabled(site: TfFunctionSite | None) -> bool:
    if site is None or site.call is None:
        return False
    for arg in site.call.args:
        if arg.keyword is not None and arg.keyword.value == "autograph":
            return not (isinstance(arg.value, cst.Name) and arg.value.value == "True")
    return False


def trace_param_facts(settings, qualname: str, firstlineno: int) -> dict[str, dict]:
    """Per parameter: {"kinds": set, "dtypes": set, "values": list} over every recorded trace."""
    traces = getattr(settings, "traces", None)
    if traces is None or not settings.relpath:
        return {}
    try:
        functions = traces.find(settings.relpath, qualname, firstlineno)
    except Exception:  # pragma: no cover - a trace model without find()
        return {}
    facts: dict[str, dict] = {}
    for function in functions:
        for trace in getattr(function, "traces", []):
            for param, desc in (getattr(trace, "args", {}) or {}).items():
                if not isinstance(desc, dict):
                    continue
                fact = facts.setdefault(param, {"kinds": set(), "dtypes": set(), "values": [], "types": set()})
                fact["kinds"].add(desc.get("kind"))
                if desc.get("dtype") is not None:
                    fact["dtypes"].add(desc.get("dtype"))
                if desc.get("kind") == "python":
                    fact["types"].add(desc.get("type"))
                    if desc.get("value") not in fact["values"]:
                        fact["values"].append(desc.get("value"))
    return facts


def qualname_of(functions: list[cst.FunctionDef], classes_at: dict[cst.FunctionDef, list[str]]) -> str:
    parts: list[str] = []
    for index, function in enumerate(functions):
        if index == 0:
            parts.extend(classes_at.get(function, []))
        else:
            parts.append("<locals>")
            parts.extend(classes_at.get(function, []))
        parts.append(function.name.value)
    return ".".join(parts)


def tf_op_operands(expr: cst.CSTNode, scope: Scope) -> set[str]:
    """Plain names passed to TF ops inside ``expr`` (``x`` in ``range(tf.shape(x)[0])``)."""
    found: set[str] = set()

    class _V(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            if is_tf_op(scope, node.func):
                for arg in node.args:
                    if isinstance(arg.value, cst.Name):
                        found.add(arg.value.value)

    expr.visit(_V())
    return found


def _values_text(values: list) -> str:
    shown = ", ".join(repr(v) for v in values[:5])
    return shown + (", ..." if len(values) > 5 else "")


class RangeDecider(cst.CSTVisitor):
    """Decides, before any edit, which loops and call-site arguments change."""

    def __init__(self, codemod: RetraceCodemod) -> None:
        self.codemod = codemod
        self.analysis = codemod.analysis
        self.scope = CachedScope(self.analysis.table, codemod.context.scratch)
        self.calls: ModuleCalls = codemod.calls
        self.changes = RangeChanges()
        self.functions: list[cst.FunctionDef] = []
        self.classes: list[str] = []
        self.classes_at: dict[cst.FunctionDef, list[str]] = {}
        self._param_decided: set[tuple[int, str]] = set()

    # -- scopes
    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.classes.append(node.name.value)

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self.classes.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.classes_at[node] = list(self.classes)
        self.classes = []
        self.functions.append(node)
        self.scope.push_function(node)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.functions.pop()
        self.scope.pop_function()
        self.classes = self.classes_at.pop(original_node)

    def visit_Lambda(self, node: cst.Lambda) -> None:
        self.scope.push_function(node)

    def leave_Lambda(self, original_node: cst.Lambda) -> None:
        self.scope.pop_function()

    # -- helpers
    def tf_sites(self) -> list[tuple[cst.FunctionDef, TfFunctionSite]]:
        return [(f, self.analysis.tf_functions[f]) for f in self.functions if f in self.analysis.tf_functions]

    def tf_name(self) -> str | None:
        """How to spell ``tf`` here; None when no safe spelling exists."""
        local = self.scope.tf_module_name()
        if local is not None:
            return local
        for name, target in sorted(self.analysis.table.aliases.items()):
            # import tensorflow.compat.v2 as tf
            if canonical(f"{target}.range") == "tensorflow.range" and self.scope.lookup(name) == target:
                return name
        if self._tf_unbound():
            self.changes.needs_import = True
            return "tf"
        return None

    def _tf_unbound(self) -> bool:
        table = self.analysis.table
        if "tf" in table.aliases or "tf" in table.rebound:
            return False
        return not any("tf" in self.scope.bindings(f) for f in self.functions)

    def suppressed(self, node: cst.CSTNode, functions: tuple[cst.FunctionDef, ...]) -> bool:
        sup = self.analysis.suppressions
        if not sup.by_line:
            return False
        lines = {self.analysis.position(node).start.line}
        for function in functions:
            anchor = function.decorators[0] if function.decorators else function
            lines.add(self.analysis.line_of(anchor))
            lines.add(self.analysis.line_of(function.name))
        return any(sup.suppresses(line, "RTF001") for line in lines)

    def first_blocker(self, blockers: list[Blocker]) -> Blocker:
        """The first blocker in source order; on one line, the most specific reason."""
        def key(b: Blocker):
            position = self.analysis.position(b.node)
            generic = any(text in b.reason for text in
                          ("cannot see into", "of unknown type before the loop", "needs a Python value"))
            return (position.start.line, generic, position.start.column)
        return min(blockers, key=key)

    def blocker_text(self, blocker: Blocker) -> str:
        return f"line {self.analysis.file_line_of(blocker.node)}: {blocker.reason}"

    # -- tensor facts for the innermost function
    def facts(self, function: cst.FunctionDef) -> tuple[set[str], dict[str, dict]]:
        """(tensor parameter names, trace facts) for ``function``."""
        site = self.analysis.tf_functions.get(function)
        tensor = signature_tensor_params(site, function, self.scope)
        facts: dict[str, dict] = {}
        if site is not None:
            anchor = function.decorators[0] if function.decorators else function
            facts = trace_param_facts(self.codemod.settings, qualname_of(self.functions, self.classes_at_all()),
                                      self.analysis.file_line_of(anchor))
            for param, fact in facts.items():
                if fact["kinds"] == {"tensor"}:
                    tensor.add(param)
            callee = self.calls.callable_for(function)
            if callee is not None:
                tensor |= self._call_site_tensor_params(callee)
        return tensor, facts

    def py_function_names(self) -> set[str]:
        cached = getattr(self, "_py_function_names", None)
        if cached is None:
            cached = self._py_function_names = py_function_targets(self.analysis.module, Scope(self.analysis.table))
        return cached

    def module_tf_names(self) -> set[str]:
        """Module-level names every module-level assignment of which is a TF value
        (``w = tf.Variable(...)``, ``table = tf.constant(...)``) and nothing rebinds globally."""
        cached = getattr(self, "_module_tf_names", None)
        if cached is not None:
            return cached
        values = module_level_values(self.analysis.module)
        globals_ = global_names(self.analysis.module)
        scope = Scope(self.analysis.table)
        names = {
            name for name, assigned in values.items()
            if name not in globals_ and assigned and all(
                isinstance(v, cst.Call) and (is_tf_op(scope, v.func) or scope.qualify(v.func) == "tensorflow.Variable")
                for v in assigned
            )
        }
        self._module_tf_names = names
        return names

    def classes_at_all(self) -> dict[cst.FunctionDef, list[str]]:
        return self.classes_at

    def _call_site_tensor_params(self, callee: TfCallable) -> set[str]:
        sites = self.calls.calls_of(callee)
        if not sites:
            return set()
        out = set()
        for param in callee.all_params:
            exprs = [s.args.get(param) for s in sites]
            if all(e is not None and self._tensor_arg(s, e) for s, e in zip(sites, exprs)):
                out.add(param)
        return out

    def _tensor_arg(self, site: CallSite, expr: cst.BaseExpression) -> bool:
        def tensorish(e: cst.BaseExpression | None) -> bool:
            if isinstance(e, cst.Call):
                q = self.scope.qualify(e.func) or ""
                return is_tf_op(self.scope, e.func) or q.startswith("numpy.")
            return False

        if tensorish(expr):
            return True
        if isinstance(expr, cst.Name):
            bindings = self.calls.reaching(site, expr.value)
            return bool(bindings) and all(b.kind == "assign" and tensorish(b.value) for b in bindings)
        return False

    # -- the decision
    def visit_For(self, node: cst.For) -> None:
        if not self.functions:
            return
        sites = self.tf_sites()
        if not sites or any(autograph_disabled(site) for _, site in sites):
            return
        if any(f.name.value in self.py_function_names() and f not in self.analysis.tf_functions
               for f in self.functions):
            return  # runs eagerly under tf.py_function/numpy_function: `range` stays Python
        call = range_call(node, self.scope)
        if call is None:
            return
        function = self.functions[-1]
        tensor_params, facts = self.facts(function)
        tensor_params |= self.module_tf_names() - set(self.scope.bindings(function))
        tf_names = tf_valued_names(function, self.scope, tensor_params)
        bounds = [a.value for a in call.args]
        if any(is_tensor_expr(b, self.scope, tf_names) for b in bounds):
            self._tensor_bound(node, call, function, tf_names)
            return
        params = {p.name.value for p in named_params(function.params)}
        for bound in bounds:
            if isinstance(bound, cst.Name) and bound.value in params and function in self.analysis.tf_functions:
                self._int_param(node, function, bound.value, tensor_params, facts)
                return

    def _tensor_bound(self, node: cst.For, call: cst.Call, function: cst.FunctionDef, tf_names: set[str]) -> None:
        # AutoGraph already runs this body with a tensor `i`; names the bound feeds
        # to TF ops (`x` in `tf.shape(x)[0]`) are tensors there too.
        tf_names = tf_names | tf_op_operands(call, self.scope)
        blockers = loop_blockers(node, self.scope, function=function, tensor_names=tf_names)
        if blockers:
            return  # AutoGraph already loops over the tensor; no retrace to report
        tf_name = self.tf_name()
        if tf_name is None:
            return
        self.changes.loops[node] = LoopChange(
            Tier.SAFE,
            f"`{short_code(call)}` has a tensor bound: loop with `tf.range` (one graph loop, traced once)",
            tf_name,
        )

    def _int_param(self, node, function, param, tensor_params, facts) -> None:
        key = (id(function), param)
        if key in self._param_decided:
            return
        self._param_decided.add(key)
        fact = facts.get(param)
        if fact is not None and fact["kinds"] - {"python"}:
            return  # traced with tensors (or mixed): not a Python step count
        if _has_keyword(self.analysis.tf_functions.get(function), "input_signature"):
            return  # a signature without a TensorSpec slot for it: a tensor would not bind
        callee = self.calls.callable_for(function)
        sites = self.calls.calls_of(callee) if callee is not None else []
        values: list = []
        wraps: list[tuple[CallSite, cst.BaseExpression]] = []
        varying_loopvar = False
        unknown_site = False
        for site in sites:
            expr = site.args.get(param)
            if expr is None:
                continue  # default value: stays a Python int, still correct
            evidence = self.calls.scalar_evidence(site, expr)
            if evidence and all(e.type == "int" for e in evidence):
                for e in evidence:
                    if e.kind == "literal":
                        if e.value not in values:
                            values.append(e.value)
                    else:
                        varying_loopvar = True
                wraps.append((site, expr))
            elif not self._tensor_arg(site, expr):
                unknown_site = True
        traced_values = []
        if fact is not None and fact["types"] <= {"int"}:
            traced_values = [v for v in fact["values"] if isinstance(v, int) and not isinstance(v, bool)]
        varying = varying_loopvar or len(values) >= 2 or len(traced_values) >= 2
        if not varying:
            return  # one value (or no evidence): one trace, nothing to fix
        shown = values or traced_values
        name = function.name.value
        if shown and not varying_loopvar:
            cause = f"`{name}` traces once per Python int `{param}` ({_values_text(shown)})"
        else:
            cause = f"`{name}` traces once per Python int `{param}` (a loop variable is passed)"
        subjects = (self.codemod.subject("python-value", function, param),)
        blockers = param_blockers(function, param, self.scope, tensor_names=tensor_params)
        loops = self._loops_over(function, param)
        functions = tuple(self.functions)
        if blockers:
            first = self.first_blocker(blockers)
            message = (f"{cause}, and the loop is not provably safe as a `tf.range` loop: "
                       f"{self.blocker_text(first)}")
            if self._verify_candidate(blockers, wraps, loops, functions):
                self._decide_rewrite(loops, wraps, cause, param, name, subjects, Tier.DIAGNOSTIC, message)
                return
            self.changes.loops.setdefault(node, LoopChange(Tier.DIAGNOSTIC, message, subjects=subjects))
            return
        if not wraps or any(self.suppressed(loop, functions) for loop in loops):
            if wraps:  # a suppressed loop: its step-count finding is hidden, and so is RTF103's duplicate
                self.codemod.suppressed_subjects.extend(("RTF001", s) for s in subjects)
            elif not unknown_site:
                self.changes.loops.setdefault(
                    node,
                    LoopChange(
                        Tier.DIAGNOSTIC,
                        f"{cause}; the loop is safe for `tf.range`: pass `{param}` as a tensor "
                        f"(`tf.constant(...)`) where `{name}` is called",
                        subjects=subjects,
                    ),
                )
            return
        self._decide_rewrite(loops, wraps, cause, param, name, subjects, Tier.SAFE)

    def _verify_candidate(self, blockers: list[Blocker], wraps: list, loops: list[cst.For], functions: tuple) -> bool:
        """In a --verify run: are the blockers only what the analysis cannot see, and is there an edit?"""
        if not self.codemod.settings.verify_candidates or not wraps or not loops:
            return False
        if not all(lacks_evidence(b) for b in blockers):
            return False
        return not any(self.suppressed(loop, functions) for loop in loops) and self.tf_name() is not None

    def _decide_rewrite(self, loops, wraps, cause: str, param: str, name: str, subjects: tuple,
                      tier: Tier, diagnostic: str = "") -> None:
        """The loops over ``param`` become ``tf.range`` loops, the call sites pass tensors.

        ``tier`` DIAGNOSTIC: a --verify candidate (``diagnostic`` is its message).
        """
        tf_name = self.tf_name()
        if tf_name is None:
            return
        verifiable = tier is Tier.DIAGNOSTIC
        for loop in loops:
            self.changes.loops[loop] = LoopChange(
                tier, diagnostic or f"{cause}: loop with `tf.range` and pass `{param}` as a tensor", tf_name,
                subjects=subjects, verifiable=verifiable,
            )
        for site, expr in wraps:
            if self.suppressed(expr, site.functions):
                continue
            self.changes.args.setdefault(site.call, []).append(
                ArgChange(expr, f"pass `{param}` as a tensor: each Python int traces `{name}` again", tf_name,
                         subjects, tier=tier, verifiable=verifiable)
            )

    def _loops_over(self, function: cst.FunctionDef, param: str) -> list[cst.For]:
        scope = self.scope
        found: list[cst.For] = []

        class _V(cst.CSTVisitor):
            def visit_FunctionDef(self, n: cst.FunctionDef) -> bool:
                return n is function

            def visit_For(self, n: cst.For) -> None:
                call = range_call(n, scope)
                if call is not None and any(
                    isinstance(a.value, cst.Name) and a.value.value == param for a in call.args
                ):
                    found.append(n)

        function.visit(_V())
        return found


def module_level_values(module: cst.Module) -> dict[str, list]:
    """Every module-level binding of every name: the assigned value, or None for any other form."""
    values: dict[str, list] = {}
    for name, node in binding_sites(module):
        plain = isinstance(node, cst.Assign) and any(
            isinstance(t.target, cst.Name) and t.target.value == name for t in node.targets
        )
        values.setdefault(name, []).append(node.value if plain else None)
    return values
