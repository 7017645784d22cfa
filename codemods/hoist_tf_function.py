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
    * ``tf.function(lambda img: f(img, data_format=data_format))`` or
      ``tf.function(functools.partial(f, data_format=data_format), ...)`` of a
      module-level or imported ``f`` - a callable that only forwards to ``f`` -
      called where it is made (``tf.function(...)(image)``, or ``fn = ...`` with
      ``fn`` only called) becomes the same module-level ``_tf_f`` (or an existing
      ``name = tf.function(f, ...)``), called with the whole argument list:
      ``_tf_f(image, data_format=data_format)`` (the lambda's parameters replaced
      by the call's arguments, the bound values passed as they were).  The
      lambda's body must be one call of ``f`` that passes each parameter once,
      as a whole argument, and otherwise names, attributes or constants; a
      partial binds names, attributes, constants or lists of them.  This form
      is found from the code alone: each run of the function makes the new
      function and calls it, so each run traces (with ``--traces``, the message
      gives the measured count: "traced 6 times by 6 function objects, 1
      distinct signature");
    * ``tf.function(self.loss, ...)`` in a method (a loss or acquisition function
      rebuilt at every optimisation step) is created once per object and kept on
      it: ``if getattr(self, "_tf_loss", None) is None: self._tf_loss =
      tf.function(self.loss, ...)``, then ``self._tf_loss`` in its place
      (``tf.function(lambda: self.loss(x))()`` becomes ``self._tf_loss(x)``).  This form
      is found from the code alone (a method that wraps its own method runs once
      per step) unless the new function is returned or stored, and from traces.

    Nothing is reported when the new function closes over an object that is
    itself new each time - a model built in the loop or the function around
    the creation, or a parameter to which every looped call of this module
    passes a new object (``train(build_model(fold), data)`` per
    cross-validation fold): one trace per model is inherent, and a moved
    function would keep using the first model.  With traces the recording
    decides: when every re-created function closed over another model,
    optimizer or variable than the one before (the trace file's
    ``fresh_captures``), it is not a retrace, whatever the code shows.

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
    NumPy array passed as ``x`` would reach ``f`` as a tensor).  A forwarding
    lambda or partial made once at module level is safe when every bound value
    is a Python constant where the function is made - a literal, a
    module-level name bound once to one, or a parameter never rebound whose
    default is a string, a bool or ``None``: the lambda read those values at
    each call, and passed as arguments they are part of the trace key, so the
    shared function traces at most once per distinct value, never more than
    the one trace per call before.  It is unsafe when another bound value
    becomes an argument (a NumPy array reaches ``f`` as a tensor, a list as a
    copy, and an object new at every call is kept by the tf.function, one
    trace each), when ``f`` is imported or has trace-time side effects, or
    when a keyword does not appear in ``f``'s signature (``**kwargs``).  It
    stays where ``f`` is nested or rebound, where the lambda does more than
    forward (an expression of a parameter, a parameter passed twice or not at
    all, ``*args``), where the new function is returned, stored or passed on,
    and where a partial binds a local name that a loop may rebind before the
    call (a partial reads it once, when it is made).  A
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

from dataclasses import replace

import libcst as cst

from retrace_fix.codemods._base import RetraceCodemod
from retrace_fix.codemods._creations import creation_subject
from retrace_fix.codemods._hoist_decider import HoistDecider, HoistDecision
from retrace_fix.codemods._tree_facts import tree_facts
from retrace_fix.findings import Tier
from retrace_fix.rules import Rule

RULE = Rule("RTF006", "hoist-tf-function", Tier.SAFE, doc=__doc__, summary=(
                "a tf.function re-created per call (nested def, tf.function(f) per call) moved to module level "
                "or made a decorated method"
            ))


class HoistTfFunctionCommand(RetraceCodemod):
    RULES = (RULE,)
    ORDER = 50  # after the trace-driven codemods: they match traces by the def's original place
    TRIGGERS = (b"function",)
    #: reads only the tf.functions, the defs that create them and the names they use (partial parsing)
    NEEDS_WHOLE_MODULE = False

    @classmethod
    def might_apply_to_tree(cls, tree, outline) -> bool:
        """A creation inside a def that may run over and over: in a loop of its def, in a def
        (not a factory) called in a loop, or ``tf.function(self.m)``, ``tf.function(lambda ...)``
        or ``tf.function(partial(...))`` in a def (:meth:`~retrace_fix.codemods._tree_facts.TreeFacts.repeated_creations`:
        the candidates of :class:`~retrace_fix.codemods._hoist_decider.HoistDecider` without
        traces, the only runs the engine asks this in)."""
        return outline.references_tf_function and tree_facts(tree, outline).repeated_creations(
            module_loops=False, method_wraps=True)

    # ------------------------------------------------------------------ deciding

    def transform_module_impl(self, tree: cst.Module) -> cst.Module:
        self._edits: list[HoistDecision] = []
        decisions = HoistDecider(self).decisions()
        if not decisions:
            return tree
        for decision in decisions:
            creation = decision.creation
            saved = self._function_stack
            self._function_stack = list(creation.suppression_functions)
            try:
                edit = self.report(
                    creation.node,
                    decision.message,
                    decision.tier,
                    reason=decision.reason,
                    subjects=(creation_subject(creation, self.qualname),),
                    verifiable=decision.verifiable,
                )
            finally:
                self._function_stack = saved
            decision.finding = len(self.findings) - 1
            if edit and decision.kind != "diagnostic":
                self._edits.append(decision)
        self._drop_stranded()
        if not self._edits:
            return tree
        self._removed = {id(p.creation.node): p for p in self._edits if p.kind in ("module-def", "method")}
        self._renames = {i: p for p in self._edits if p.kind == "method" for i in p.renames}
        self._replaced = {id(p.replace): p for p in self._edits if p.kind == "module-assign"}
        self._extra_calls = {i: p for p in self._edits if p.extra for i in p.calls}
        self._cached = {id(p.replace): p for p in self._edits if p.kind == "self-cache"}
        self._forwarded = {i: p for p in self._edits if p.kind == "module-forward" for i in p.forwards}
        self._dropped = {i for p in self._edits if p.kind == "module-forward" for i in p.dropped}
        self._before: dict[int, list[cst.BaseStatement]] = {}
        for decision in self._edits:
            if decision.kind == "self-cache":
                self._before.setdefault(id(decision.anchor), []).append(_cache_statement(decision))
        self._assigned: set[str] = {p.name for p in self._edits if p.kind == "module-forward" and p.reuse}
        self._pending: dict[int, list[tuple[HoistDecision, cst.BaseStatement]]] = {}
        return super().transform_module_impl(tree)

    def _drop_stranded(self) -> None:
        """A moved def that calls a sibling def moves only if that sibling moves too."""
        while True:
            moved = {(id(p.creation.owner), p.name) for p in self._edits if p.kind == "module-def"}
            stranded = [p for p in self._edits if any((id(p.creation.owner), n) not in moved for n in p.needs)]
            if not stranded:
                return
            for decision in stranded:
                self._edits.remove(decision)
                if 0 <= decision.finding < len(self.findings):
                    self.findings[decision.finding] = replace(self.findings[decision.finding], applied=False)

    # ------------------------------------------------------------------ editing

    def leave_FunctionDef(self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef):
        result = super().leave_FunctionDef(original_node, updated_node)
        decision = getattr(self, "_removed", {}).get(id(original_node))
        if decision is None:
            return result
        moved = updated_node
        if decision.kind == "method":
            params = moved.params
            first = cst.Param(cst.Name(decision.self_name))
            if params.posonly_params:
                params = params.with_changes(posonly_params=[first, *params.posonly_params])
            else:
                params = params.with_changes(params=[first, *params.params])
            moved = moved.with_changes(params=params)
        if decision.extra:
            params = moved.params
            added = [cst.Param(cst.Name(n)) for n in decision.extra]
            star = params.star_arg if isinstance(params.star_arg, cst.Param) else cst.ParamStar()
            moved = moved.with_changes(params=params.with_changes(star_arg=star,
                                                                  kwonly_params=[*params.kwonly_params, *added]))
        comments = [line for line in moved.leading_lines if line.comment is not None]
        moved = moved.with_changes(leading_lines=comments)
        self._pending.setdefault(id(decision.anchor), []).append((decision, moved))
        return cst.RemoveFromParent()

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.BaseExpression:
        decision = getattr(self, "_renames", {}).get(id(original_node))
        if decision is None:
            return updated_node
        return cst.Attribute(value=cst.Name(decision.self_name), attr=cst.Name(decision.name))

    def leave_SimpleStatementLine(self, original_node: cst.SimpleStatementLine,
                                  updated_node: cst.SimpleStatementLine):
        if id(original_node) in getattr(self, "_dropped", ()):
            return cst.RemoveFromParent()  # `fn = tf.function(lambda x: f(x, k))`: its calls now call `_tf_f`
        return updated_node

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        decision = getattr(self, "_forwarded", {}).get(id(original_node))
        if decision is not None:  # fn(x) / tf.function(partial(f, k=k))(x) -> _tf_f(x, k=k)
            if decision.name not in self._assigned:
                self._assigned.add(decision.name)
                assert decision.wrap is not None and decision.target is not None
                value = decision.wrap.with_changes(args=[cst.Arg(decision.target), *decision.wrap.args[1:]])
                self._pending.setdefault(id(decision.anchor), []).append((decision, _assignment(decision.name, value)))
            return decision.forwards[id(original_node)]
        decision = getattr(self, "_extra_calls", {}).get(id(original_node))
        if decision is not None:
            args = list(updated_node.args)
            if args and args[-1].comma is cst.MaybeSentinel.DEFAULT:
                args[-1] = args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
            added = [cst.Arg(cst.Name(n), keyword=cst.Name(n), equal=cst.AssignEqual(
                whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")),
                comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))) for n in decision.extra]
            added[-1] = added[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
            return updated_node.with_changes(args=[*args, *added])
        decision = getattr(self, "_cached", {}).get(id(original_node))
        if decision is not None:
            cached = cst.Attribute(cst.Name(decision.self_name), cst.Name(decision.name))
            if decision.lambda_call is not None:  # tf.function(lambda: self.m(a))() -> self._tf_m(a)
                return decision.lambda_call.with_changes(func=cached)
            return cached
        decision = getattr(self, "_replaced", {}).get(id(original_node))
        if decision is None:
            return updated_node
        if decision.name not in self._assigned:  # identical tf.function(f, ...) calls share one module-level name
            self._assigned.add(decision.name)
            if decision.lambda_call is not None:
                assert isinstance(decision.wrap, cst.Call)
                value = decision.wrap.with_changes(args=[cst.Arg(decision.target), *decision.wrap.args[1:]])
            else:
                value = updated_node
            self._pending.setdefault(id(decision.anchor), []).append((decision, _assignment(decision.name, value)))
        if decision.lambda_call is not None:
            return decision.lambda_call.with_changes(func=cst.Name(decision.name))
        return cst.Name(decision.name)

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
        if id(original_node.body[0]) in self._removed or id(original_node.body[0]) in self._dropped:
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


def _cache_statement(decision) -> cst.If:
    """``if getattr(self, "_tf_m", None) is None: self._tf_m = tf.function(self.m, ...)``."""
    holder = cst.Attribute(cst.Name(decision.self_name), cst.Name(decision.name))
    test = cst.parse_expression(f'getattr({decision.self_name}, "{decision.name}", None) is None')
    assign = cst.SimpleStatementLine([cst.Assign(targets=[cst.AssignTarget(holder)], value=decision.wrap)])
    return cst.If(test=test, body=cst.IndentedBlock(body=[assign]))
