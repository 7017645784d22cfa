"""What RTF002 (predict-to-call) reads about ``model.predict`` calls and the loops around them.

The cheap prefilter on CPython's tree (:func:`has_predict_call`,
:func:`per_step_candidates`, :func:`graph_predict_candidates`), the methods a Python loop runs every step
(:func:`per_step_methods`), and the facts about one call (``verbose=0``, a functional
model with a single output) and its edit (a keyword dropped).  The command in
:mod:`retrace_fix.codemods.predict_to_call` decides and edits with them.
"""

from __future__ import annotations

import ast

import libcst as cst

from retrace_fix.ast_walk import TreeIndex, walk
from retrace_fix.codemods._keras import KerasEvidence

PREDICT_METHODS = ("predict", "predict_on_batch")
#: Keras calls that pay a per-call setup when made once per step of a Python loop
PER_STEP_METHODS = (*PREDICT_METHODS, "train_on_batch")


def _per_step_call(node: ast.AST, methods: tuple[str, ...] = PREDICT_METHODS) -> bool:
    """Is ``node`` a call ``<x>.<method>(...)`` of one of ``methods``?"""
    return type(node) is ast.Call and type(node.func) is ast.Attribute and node.func.attr in methods


def has_predict_call(index: TreeIndex) -> bool:
    """Is there a ``.predict(...)``/``.predict_on_batch(...)`` call in the indexed tree?"""
    return any(_per_step_call(node) for node in index.of_type(ast.Call))


#: keywords ``Model.predict`` takes that a direct call also takes (``predict_to_call.DROPPABLE_KEYWORDS``, ``x``)
_DIRECT_KEYWORDS = frozenset({"verbose", "x"})
#: keywords only Keras' predict has (``predict_to_call.KERAS_ONLY_KEYWORDS``)
KERAS_ONLY_KEYWORDS = frozenset(
    {"verbose", "batch_size", "steps", "callbacks", "max_queue_size", "workers", "use_multiprocessing"})
#: the names a module's Keras-model evidence (:class:`~retrace_fix.codemods._keras.KerasEvidence`) is spelt with
_MODEL_WORDS = frozenset({"Model", "Sequential", "load_model", "clone_model", "model_from_json", "applications"})
#: the same words in bytes (the byte prefilter)
MODEL_WORD_BYTES = tuple(word.encode() for word in sorted(_MODEL_WORDS))
_MODEL_BUILDERS = frozenset({"Model", "Sequential"})


def blocked(call: ast.Call) -> bool:
    """Does ``PredictToCallCommand._blocker`` surely refuse the call (``*args``, two positional
    arguments, no input, a keyword a direct call lacks)?  A dataset input is not looked at."""
    if any(type(a) is ast.Starred for a in call.args) or any(k.arg is None for k in call.keywords):
        return True
    keywords = {k.arg for k in call.keywords}
    if len(call.args) > 1 or (not call.args and "x" not in keywords):
        return True
    return not keywords <= _DIRECT_KEYWORDS


def keras_keyword(call: ast.Call) -> bool:
    """Does the call pass a keyword only Keras' predict takes (its receiver is then Keras)?"""
    return any(k.arg in KERAS_ONLY_KEYWORDS for k in call.keywords)


def model_evidence(index: TreeIndex) -> bool:
    """Can :class:`~retrace_fix.codemods._keras.KerasEvidence` find a Keras model in the indexed
    tree?  Its every piece of evidence (a constructor, a loader, an application, a base class, an
    annotation) names ``Model``, ``Sequential``, a loader or ``applications`` somewhere."""
    words = _MODEL_WORDS
    return (
        any(node.id in words for node in index.of_type(ast.Name))
        or any(node.attr in words for node in index.of_type(ast.Attribute))
        or any(not words.isdisjoint(node.name.split(".")) or node.asname in words for node in index.of_type(ast.alias))
        or any(node.module and "applications" in node.module.split(".") for node in index.of_type(ast.ImportFrom))
        or any(type(node.value) is str and node.value.rsplit(".", 1)[-1] in _MODEL_BUILDERS
               for node in index.of_type(ast.Constant))
    )


def model_builds(index: TreeIndex) -> tuple[set[str], set[str]]:
    """(names, ``self`` attributes) some assignment gives a call of ``...Sequential`` or a ``...Model``
    that may have one output (``PredictToCallCommand._single_output_builds``: only those builds make
    the direct call safe outside a tf.function)."""
    names: set[str] = set()
    attrs: set[str] = set()
    builds: list[tuple[list, ast.Call]] = []
    assigned: dict[str, list] = {}  # name -> the values Assign/AnnAssign give it (``KerasEvidence._pending``)
    for node in index.of_type(ast.Assign, ast.AnnAssign, ast.NamedExpr):
        kind = type(node)
        targets = node.targets if kind is ast.Assign else [node.target]
        value = node.value
        if kind is not ast.NamedExpr and value is not None:
            for target in targets:
                if type(target) is ast.Name:
                    assigned.setdefault(target.id, []).append(value)
        if type(value) is not ast.Call:
            continue
        if _last(value.func) in _MODEL_BUILDERS:
            builds.append((targets, value))
    for targets, value in builds:
        if _last(value.func) == "Model" and not may_have_one_output(value, assigned):
            continue
        for target in targets:
            if type(target) is ast.Name:
                names.add(target.id)
            elif type(target) is ast.Attribute and type(target.value) is ast.Name and target.value.id == "self":
                attrs.add(target.attr)
    return names, attrs


def _last(func: ast.AST) -> str | None:
    return func.id if type(func) is ast.Name else func.attr if type(func) is ast.Attribute else None


_ONE_OUTPUT = (ast.Call, ast.Attribute, ast.Subscript)


def may_have_one_output(call: ast.Call, assigned: dict[str, list]) -> bool:
    """Can ``Model(inputs, outputs)`` have a single output (``one_output``): ``outputs`` (the keyword,
    else the second positional argument) a call, an attribute, a subscript, or a name that every
    assignment (``assigned``: name -> values, any scope) gives one of those; never a list, a tuple
    or a dict of outputs, nor a model without outputs here (``Model()`` subclassed)?"""
    outputs = next((k.value for k in reversed(call.keywords) if k.arg == "outputs"), None)
    positional = [a for a in call.args if type(a) is not ast.Starred]
    if outputs is None and len(positional) >= 2:
        outputs = positional[1]
    if type(outputs) is ast.Name:
        values = assigned.get(outputs.id, [])
        return bool(values) and all(type(v) in _ONE_OUTPUT for v in values)
    return type(outputs) in _ONE_OUTPUT


def per_step_candidates(index: TreeIndex) -> bool:
    """Can a Keras call outside any tf.function be reported (the unsafe rewrite or a note)?  Only
    a call made once per step: in the body of a loop, or in a method of a class that a loop calls
    every step (:func:`ast_per_step_methods`); and only ``name.predict(x)``/``self.<attr>.predict(x)``
    (a call :func:`blocked` does not refuse) on a name or attribute assigned a
    ``...Model(...)``/``...Sequential(...)`` call, or ``name.train_on_batch(...)``/
    ``self.<attr>.train_on_batch(...)`` in a module with Keras-model evidence (:func:`model_evidence`:
    the decider asks for a Keras receiver).  ``index``: the module's tree; where each such call runs is
    read from the statements around it (:func:`_place`), not from a walk of the module."""
    calls = [node for node in index.of_type(ast.Call) if _per_step_call(node, PER_STEP_METHODS)]
    names = attrs = evidence = step_methods = looped = None
    for node, at, around in index.statements_around_each(calls):
        # the decider reports only a call made once per step (its _per_step_place)
        per_step, in_class, defs = _place(index, at, around)
        if not per_step:
            if looped is None:
                looped = _comprehension_steps(index)
            per_step = id(node) in looped
        if not per_step and in_class and defs:
            if step_methods is None:
                step_methods = ast_per_step_methods(index)
            per_step = not step_methods.isdisjoint(defs)
        if not per_step:
            continue  # asked once: nothing to say
        func = node.func
        receiver = func.value
        on_self = type(receiver) is ast.Attribute and type(receiver.value) is ast.Name and receiver.value.id == "self"
        if func.attr == "train_on_batch":
            if type(receiver) is ast.Name or on_self:
                if evidence is None:
                    evidence = model_evidence(index)
                if evidence:
                    return True
        elif not blocked(node):
            if names is None:
                names, attrs = model_builds(index)
            if (type(receiver) is ast.Name and receiver.id in names) or (on_self and receiver.attr in attrs):
                return True
    return False


def _place(index: TreeIndex, at: int, around: list) -> tuple[bool, bool, list[str]]:
    """(in a loop's per-step part: a ``for``'s body, anywhere in a ``while``; in a class; the names
    of the defs around it) of the node at ``at`` in the indexed tree, the statements ``around`` it."""
    in_loop = in_class = False
    defs: list[str] = []
    for statement in around:
        kind = type(statement)
        if kind is ast.While:
            in_loop = True
        elif kind is ast.For or kind is ast.AsyncFor:
            in_loop = in_loop or _holds(index, statement.body, at)
        elif kind is ast.ClassDef:
            in_class = True
        elif kind is ast.FunctionDef or kind is ast.AsyncFunctionDef:
            defs.append(statement.name)
    return in_loop, in_class, defs


def _holds(index: TreeIndex, statements: list[ast.stmt], at: int) -> bool:
    """Is the node at ``at`` in one of ``statements`` (a block)?"""
    return any(start <= at < end for start, end in map(index.span, statements))


def _comprehension_steps(index: TreeIndex) -> set[int]:
    """The ids of the nodes a comprehension of the indexed tree runs per item (its ``elt``, a dict
    comprehension's key and value)."""
    parts = [comp.elt for comp in index.of_type(ast.ListComp, ast.SetComp, ast.GeneratorExp)]
    parts += [part for comp in index.of_type(ast.DictComp) for part in (comp.key, comp.value)]
    return {id(node) for part in parts for node in walk(part)}


def ast_per_step_methods(index: TreeIndex) -> frozenset[str]:
    """:func:`per_step_methods` read on CPython's tree (``index``'s), as a superset: the names called
    as ``obj.<name>(...)`` in the body (or a ``while`` loop's test) of a ``for``/``while`` loop of
    the innermost def around the call, and the ``self.<name>()`` calls of the defs so named,
    transitively."""
    in_loops: set[str] = set()
    self_calls: dict[str, set[str]] = {}
    calls = [node for node in index.of_type(ast.Call) if type(node.func) is ast.Attribute]
    for node, at, around in index.statements_around_each(calls):
        function, in_loop = None, False
        for statement in around:
            kind = type(statement)
            if kind is ast.FunctionDef or kind is ast.AsyncFunctionDef:
                function, in_loop = statement.name, False
            elif kind is ast.For or kind is ast.AsyncFor:
                in_loop = in_loop or _holds(index, statement.body, at)
            elif kind is ast.While:
                in_loop = in_loop or not _holds(index, statement.orelse, at)  # its test or body
        if in_loop:
            in_loops.add(node.func.attr)
        receiver = node.func.value
        if function is not None and type(receiver) is ast.Name and receiver.id == "self":
            self_calls.setdefault(function, set()).add(node.func.attr)
    found = set(in_loops)
    todo = list(found)
    while todo:
        for callee in self_calls.get(todo.pop(), ()):
            if callee not in found:
                found.add(callee)
                todo.append(callee)
    return frozenset(found)


def graph_predict_candidates(roots: list[ast.AST], index: TreeIndex) -> bool:
    """Can a predict call in code a tf.function may run (``roots``, statements of the indexed
    tree) be reported: one :func:`blocked` does not refuse (reported on Keras evidence, or as a
    ``--verify`` candidate), or one with a Keras-only keyword, or any in a module with Keras-model
    evidence (:func:`model_evidence`)?"""
    calls = [n for root in roots for n in index.subtree(root) if _per_step_call(n)]
    if any(not blocked(c) or keras_keyword(c) for c in calls):
        return True
    return bool(calls) and model_evidence(index)


def is_self_attribute(node: cst.CSTNode) -> bool:
    return isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == "self"


class _StepCalls(cst.CSTVisitor):
    """The method names called in the body of a Python loop (``agent.act(s)``), and the
    ``self.<method>()`` calls each method makes."""

    def __init__(self) -> None:
        self.in_loops: set[str] = set()
        self.self_calls: dict[str, set[str]] = {}
        self._frames: list[tuple[str | None, int]] = [(None, 0)]

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._frames.append((node.name.value, 0))

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._frames.pop()

    def _looped(self, *parts: cst.CSTNode | None) -> None:
        name, depth = self._frames[-1]
        self._frames[-1] = (name, depth + 1)
        for part in parts:
            if part is not None:
                part.visit(self)
        self._frames[-1] = (name, depth)

    def visit_For(self, node: cst.For) -> bool:
        node.target.visit(self)
        node.iter.visit(self)
        self._looped(node.body)
        if node.orelse is not None:
            node.orelse.visit(self)
        return False

    def visit_While(self, node: cst.While) -> bool:
        self._looped(node.test, node.body)
        if node.orelse is not None:
            node.orelse.visit(self)
        return False

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if not isinstance(func, cst.Attribute):
            return
        name, depth = self._frames[-1]
        if depth:
            self.in_loops.add(func.attr.value)
        if name is not None and isinstance(func.value, cst.Name) and func.value.value == "self":
            self.self_calls.setdefault(name, set()).add(func.attr.value)


def per_step_methods(module: cst.Module) -> frozenset[str]:
    """Names of the methods a Python loop of ``module`` calls every step: called as
    ``obj.<name>(...)`` in a loop body, or as ``self.<name>()`` from such a method."""
    calls = _StepCalls()
    module.visit(calls)
    found = set(calls.in_loops)
    todo = list(found)
    while todo:
        for callee in calls.self_calls.get(todo.pop(), ()):
            if callee not in found:
                found.add(callee)
                todo.append(callee)
    return frozenset(found)


def without_keyword(call: cst.Call, keyword: str) -> cst.Call:
    return call.with_changes(args=[a for a in call.args if a.keyword is None or a.keyword.value != keyword])


def quiet(call: cst.Call) -> bool:
    """``verbose=0`` / ``verbose=False``: ``predict`` prints nothing a direct call would drop."""
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == "verbose":
            value = arg.value
            return (isinstance(value, cst.Integer) and value.evaluated_value == 0) or (
                isinstance(value, cst.Name) and value.value == "False"
            )
    return False


def one_output(call: cst.Call, evidence: KerasEvidence) -> bool:
    """``keras.Model(inputs, outputs)`` with ``outputs`` a single tensor expression."""
    outputs = None
    positional = [a for a in call.args if a.keyword is None and not a.star]
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == "outputs":
            outputs = arg.value
    if outputs is None and len(positional) >= 2:
        outputs = positional[1].value
    if outputs is None:
        return False
    if isinstance(outputs, cst.Name):
        # every assignment of that name (any scope) must be a single tensor expression
        values = [value for _owner, targets, value in evidence._pending
                  if any(isinstance(t, cst.Name) and t.value == outputs.value for t in targets)]
        return bool(values) and all(isinstance(v, (cst.Call, cst.Attribute, cst.Subscript)) for v in values)
    return isinstance(outputs, (cst.Call, cst.Attribute, cst.Subscript))
