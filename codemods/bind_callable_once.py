"""RTF009 bind-callable-once.

What it does
    Finds a call of a tf.function of this module (or of a module-level function
    that passes that parameter straight on to one), inside a ``for``/``while``
    loop, that passes a callable built anew at every iteration: a bound method
    (``agent.update``: every attribute access makes a new bound-method object),
    ``functools.partial(...)`` or a ``lambda``.  Where the parts of that callable
    stay the same for the whole loop, it builds the callable once, just before
    the loop (``agent_update = agent.update``), and passes that name.

    A bound method is bound once only when this module shows the receiver's class
    (``self`` in its own class, or a name bound by ``Agent(...)``) and that class
    defines the method; a receiver rebound in the loop, an attribute of that name
    assigned anywhere in the module, or a lambda that uses a variable the loop
    rebinds (a loop variable) keep the callable where it is, and the finding
    says so at the call site.  Receivers whose class this module does not show,
    properties, static methods and callables that are not built in a loop are
    left alone (they may well be one object) - unless recorded traces
    (``--traces``) show the call: a call site recorded in this file whose
    tf.function (defined here or in any other module) got a new bound method,
    ``partial`` or function object at every call is bound once too, as an
    unsafe fix when the receiver's class is not in this module.

Why it retraces
    tf.function keys a trace on each Python argument; a callable that is not a
    tensor is told apart by identity.  ``agent.update is agent.update`` is
    ``False``: each access builds a new bound-method object, and so does every
    ``functools.partial(...)`` or ``lambda`` expression.  Passed to a tf.function
    inside a loop, each of them is a new key: every call traces (and optimises)
    the graph again, although the arguments mean the same thing.

Example
    Before::

        class Agent:
            def __init__(self):
                self.w = tf.Variable(2.0)

            def update(self, x):
                return self.w * x


        @tf.function
        def run_epoch(fn, batches):
            return tf.add_n([fn(b) for b in batches])


        agent = Agent()
        for epoch in range(10):
            run_epoch(agent.update, batches)

    After::

        class Agent:
            def __init__(self):
                self.w = tf.Variable(2.0)

            def update(self, x):
                return self.w * x


        @tf.function
        def run_epoch(fn, batches):
            return tf.add_n([fn(b) for b in batches])


        agent = Agent()
        agent_update = agent.update
        for epoch in range(10):
            run_epoch(agent_update, batches)

Fix safety
    safe when the callable provably means the same at every iteration: the
    receiver is not rebound in the loop, the method is a ``def`` of its class
    that nothing reassigns, the method reads only attributes set in
    ``__init__``, and a ``partial``'s parts or a lambda's free names are names
    the loop does not rebind (nor any function declares ``global``).  unsafe
    (``--unsafe-fixes``) when the method reads an attribute another method sets,
    or a lambda reads an attribute or calls a method this module cannot see
    into, or a ``partial`` gets a container the loop mutates: the old program
    traced again at every call and saw the new value; a shared trace keeps the
    value of its first trace.  A bound method whose class this module does
    not show (found from traces) is unsafe for the same reason: its reads
    cannot be checked.  Never edits a callable built from a loop
    variable or a receiver the loop rebinds (a new object per iteration is
    then what the program means).
"""

from __future__ import annotations

import ast

import libcst as cst

from retrace_fix.codemods._base import RetraceCodemod
from retrace_fix.codemods._bind_decider import ArgDecider
from retrace_fix.codemods._bind_facts import loops_pass_new_callables
from retrace_fix.codemods._tree_facts import tree_facts
from retrace_fix.findings import Tier
from retrace_fix.node_text import code_of
from retrace_fix.rules import Rule

RULE = Rule("RTF009", "bind-callable-once", Tier.SAFE, doc=__doc__, summary=(
                "a bound method, functools.partial or lambda built in a loop and passed to a tf.function: "
                "bound once before the loop"
            ))


class BindCallableOnceCommand(RetraceCodemod):
    RULES = (RULE,)
    ORDER = 60
    TRIGGERS = (b"function",)  # files without any of these bytes are never parsed
    # NEEDS_WHOLE_MODULE stays True: the receiver's class and every store of an attribute anywhere decide

    @classmethod
    def might_apply_to_tree(cls, tree: ast.Module, outline) -> bool:
        """A loop with a call that passes an attribute, a lambda or a ``partial(...)`` to a name this
        module defines (a def) or assigns (``step = tf.function(...)``).

        Without traces (the only runs the engine asks this in) RTF009 looks only at the calls that
        :class:`~retrace_fix.codemods._callsites.ModuleCalls` resolves: a callee named by a bare name
        or an attribute that is a tf.function of this module (a def, or a module-level
        ``name = tf.function(...)``), or a module-level def that passes a parameter on to one.
        Most loops of a TensorFlow module pass an attribute to some call (``len(self.x)``); few
        pass one to a function of their own module, so most files never need the whole module.
        """
        if not outline.references_tf_function:
            return False
        index = outline.index
        loops = index.outermost_loops()
        if not loops:
            return False
        callees = {node.name for node in index.of_type(ast.FunctionDef, ast.AsyncFunctionDef)}
        callees.update(target.id for node in index.of_type(ast.Assign) for target in node.targets
                       if type(target) is ast.Name)
        facts = tree_facts(tree, outline)
        # ModuleCalls' sites (a tf.function of this module called by a bare name or as a method
        # of an instance), and the calls of a def of the module's body (a forwarder, by a bare name)
        forwarders = {node.name for node in tree.body if type(node) in (ast.FunctionDef, ast.AsyncFunctionDef)}

        def resolvable(func: ast.expr) -> bool:
            return facts.may_call_a_tf_function(func) or (type(func) is ast.Name and func.id in forwarders)

        for loop in loops:  # an outer loop holds the calls of the loops inside it
            for node in index.subtree(loop):
                if type(node) is not ast.Call:
                    continue
                func = node.func
                name = func.id if type(func) is ast.Name else func.attr if type(func) is ast.Attribute else None
                if name not in callees or not resolvable(func):
                    continue
                for value in [*node.args, *(k.value for k in node.keywords)]:
                    if isinstance(value, (ast.Attribute, ast.Lambda)) or (
                        isinstance(value, ast.Call) and "partial" in ast.unparse(value.func)
                    ):
                        # then what the decider also asks: the def's own loop, no graph code, a forwarder's body
                        return loops_pass_new_callables(tree, facts)
        return False

    def transform_module_impl(self, tree: cst.Module) -> cst.Module:
        if not self.analysis.tf_functions and self.settings.traces is None:
            return tree
        decisions = ArgDecider(self).decisions()
        if not decisions:
            return tree
        self._args: dict[int, str] = {}
        self._pending: dict[int, list[cst.SimpleStatementLine]] = {}
        given: dict[tuple[int, str], str] = {}
        for decision in decisions:
            saved = self._function_stack
            self._function_stack = list(decision.site.functions)
            try:
                edit = self.report(decision.node, decision.message, decision.tier, reason=decision.reason)
            finally:
                self._function_stack = saved
            if not edit or decision.tier is Tier.DIAGNOSTIC:
                continue
            key = (id(decision.loop), code_of(decision.node))
            name = given.get(key)
            if name is None:
                name = given[key] = decision.name
                statement = cst.SimpleStatementLine(
                    [cst.Assign(targets=[cst.AssignTarget(cst.Name(name))], value=decision.node)]
                )
                self._pending.setdefault(id(decision.loop), []).append(statement)
            self._args[id(decision.node)] = name
        if not self._args:
            return tree
        return super().transform_module_impl(tree)

    # ------------------------------------------------------------------ editing

    def _swap(self, original_node, updated_node):
        name = self._args.get(id(original_node))
        return cst.Name(name) if name is not None else updated_node

    def leave_Attribute(self, original_node: cst.Attribute, updated_node: cst.Attribute):
        return self._swap(original_node, updated_node)

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call):
        return self._swap(original_node, updated_node)

    def leave_Lambda(self, original_node: cst.Lambda, updated_node: cst.Lambda):
        result = super().leave_Lambda(original_node, updated_node)
        return self._swap(original_node, result)

    def _with_bindings(self, original: tuple, updated: tuple) -> list | None:
        if not any(id(s) in self._pending for s in original):
            return None
        out = []
        for old, new in zip(original, updated):
            added = self._pending.get(id(old))
            if added:
                leading = list(new.leading_lines)
                blanks = []
                while leading and leading[0].comment is None:
                    blanks.append(leading.pop(0))
                out.append(added[0].with_changes(leading_lines=blanks))
                out.extend(added[1:])
                new = new.with_changes(leading_lines=leading)
            out.append(new)
        return out

    def leave_IndentedBlock(self, original_node: cst.IndentedBlock, updated_node: cst.IndentedBlock):
        body = self._with_bindings(original_node.body, updated_node.body)
        return updated_node if body is None else updated_node.with_changes(body=body)

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        body = self._with_bindings(original_node.body, updated_node.body)
        return updated_node if body is None else updated_node.with_changes(body=body)
