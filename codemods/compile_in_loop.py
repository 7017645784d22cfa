"""RTF010 compile-in-loop.

What it does
    Reports ``model.compile(...)`` inside a ``for``/``while`` loop that also
    trains the same model (``model.fit``, ``train_on_batch``, ``evaluate``);
    a compile under an ``if`` inside the loop (some iterations only), and the
    compile of a model the loop builds anew (``model = keras.Sequential(...)``
    in the loop: cross-validation folds, restarts), are left alone.
    Where the compile call only changes the learning rate - its optimizer is a
    constructor call such as ``tf.keras.optimizers.SGD(learning_rate=lr)``
    whose other arguments, like the other compile arguments, stay the same in
    the loop - it compiles on the first iteration only and afterwards sets the
    learning rate of the optimizer it already has
    (``model.optimizer.learning_rate.assign(lr)``).  Elsewhere it only reports.

Why it retraces
    ``compile`` throws away the model's train, test and predict functions (and
    builds a new optimizer).  The next ``fit`` builds a new ``tf.function`` for
    the train step and traces it again: one full trace (and graph
    optimisation) of the model's training step per iteration, usually to change
    nothing but a number.

Example
    Before::

        for epoch, lr in enumerate([0.1, 0.05, 0.01]):
            model.compile(optimizer=tf.keras.optimizers.SGD(learning_rate=lr), loss="mse")
            model.fit(x, y, epochs=1, verbose=0)

    After (``--unsafe-fixes``)::

        compiled_once = False
        for epoch, lr in enumerate([0.1, 0.05, 0.01]):
            if not compiled_once:
                model.compile(optimizer=tf.keras.optimizers.SGD(learning_rate=lr), loss="mse")
                compiled_once = True
            else:
                model.optimizer.learning_rate.assign(lr)
            model.fit(x, y, epochs=1, verbose=0)

Fix safety
    unsafe: a new optimizer starts with fresh state (momentum, Adam's moments,
    the iteration count) and compile resets the metrics; keeping the optimizer
    changes the results of every optimizer that has state, and a learning rate
    given as a schedule cannot be assigned.  A ``--verify`` run keeps the fix
    only where the program's own outputs stay the same (Keras's train
    function is not in the recording, so the run is judged by its outputs:
    same exit, same results, no more traces).  A compile call whose
    optimizer is not built in the call, whose other arguments change in the
    loop, or that compiles another model than the loop trains is only reported.
"""

from __future__ import annotations

import ast
import re

import libcst as cst

from retrace_fix.ast_walk import TreeIndex, walk
from retrace_fix.codemods._base import RetraceCodemod
from retrace_fix.codemods._callsites import ModuleCalls, literal_value
from retrace_fix.cst_tree import find_nodes, method_call_on
from retrace_fix.findings import Tier
from retrace_fix.node_text import code_of, short_code
from retrace_fix.rules import Rule
from retrace_fix.tfnames import binding_sites, global_names

RULE = Rule("RTF010", "compile-in-loop", Tier.UNSAFE, doc=__doc__, summary=(
                "model.compile(...) in a loop that also trains drops the train function: compile once, "
                "then assign the learning rate"
            ))

_TRAIN_METHODS = ("fit", "train_on_batch", "evaluate", "test_on_batch", "fit_generator")
_LR_KEYWORDS = ("learning_rate", "lr")
#: what :meth:`CompileInLoopCommand.might_apply_to_tree` needs besides ``.compile(``, in bytes
_TRAIN_WORD = re.compile(rb"\b(?:" + b"|".join(m.encode() for m in _TRAIN_METHODS) + rb")\b")
_LOOP_WORD = re.compile(rb"\b(?:for|while)\b")


class CompileInLoopCommand(RetraceCodemod):
    RULES = (RULE,)
    ORDER = 65
    TRIGGERS = (b".compile(",)
    REQUIRES_TF_FUNCTION = False  # Keras builds the train function itself

    @classmethod
    def might_apply(cls, data: bytes) -> bool:
        """``.compile(``, a training method's name and a loop keyword: what :meth:`might_apply_to_tree`
        looks for, read in the bytes (most files that compile a model never do it in a loop)."""
        return super().might_apply(data) and _TRAIN_WORD.search(data) is not None and (
            _LOOP_WORD.search(data) is not None)

    @classmethod
    def might_apply_to_tree(cls, tree: ast.Module, outline) -> bool:
        """A loop that calls ``.compile(...)`` and one of the training methods.

        An outer loop holds every call of the loops inside it: the outermost loops are the
        ones to look at, each read once."""
        index = outline.index
        for loop in index.outermost_loops():
            called = {n.func.attr for n in index.subtree(loop)
                      if type(n) is ast.Call and type(n.func) is ast.Attribute}
            if "compile" in called and not called.isdisjoint(_TRAIN_METHODS) and _may_report(loop, index):
                return True
        return False

    def transform_module_impl(self, tree: cst.Module) -> cst.Module:
        self._globals = global_names(tree)
        self._loops: list[cst.CSTNode] = []
        self._ifs: list[int] = []  # for each `if` around the node: how many loops were open at it
        self._edits: dict[int, tuple[str, str, cst.BaseExpression]] = {}  # id(statement) -> (flag, receiver, lr)
        self._flags: set[str] = set()
        self._pending_flags: dict[int, str] = {}  # id(loop) -> the flag set before it
        self._names = _all_names(tree)
        self.calls = ModuleCalls.get(self.analysis, self.context.scratch)
        return super().transform_module_impl(tree)

    # -- loops, and conditions inside them
    def visit_If(self, node: cst.If) -> None:
        self._ifs.append(len(self._loops))

    def leave_If(self, original_node: cst.If, updated_node: cst.If):
        self._ifs.pop()
        return updated_node

    def visit_For(self, node: cst.For) -> None:
        self._loops.append(node)

    def visit_While(self, node: cst.While) -> None:
        self._loops.append(node)

    def leave_For(self, original_node: cst.For, updated_node: cst.For):
        self._loops.pop()
        return self._with_flag(original_node, updated_node)

    def leave_While(self, original_node: cst.While, updated_node: cst.While):
        self._loops.pop()
        return self._with_flag(original_node, updated_node)

    def _with_flag(self, original, updated):
        flag = self._pending_flags.pop(id(original), None)
        if flag is None:
            return updated
        leading = list(updated.leading_lines)
        blanks = []
        while leading and leading[0].comment is None:
            blanks.append(leading.pop(0))
        statement = cst.SimpleStatementLine(
            [cst.Assign(targets=[cst.AssignTarget(cst.Name(flag))], value=cst.Name("False"))], leading_lines=blanks
        )
        return cst.FlattenSentinel([statement, updated.with_changes(leading_lines=leading)])

    # -- the compile statement
    def leave_SimpleStatementLine(self, original_node: cst.SimpleStatementLine,
                                  updated_node: cst.SimpleStatementLine):
        if not self._loops or len(original_node.body) != 1:
            return updated_node
        if self._ifs and self._ifs[-1] >= len(self._loops):
            return updated_node  # compiled under a condition inside the loop: chosen iterations only
        expr = original_node.body[0]
        call = expr.value if isinstance(expr, cst.Expr) else None
        if not (isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute)
                and call.func.attr.value == "compile" and isinstance(call.func.value, cst.Name)):
            return updated_node
        receiver = call.func.value.value
        loop = self._loops[-1]
        trains = _trains(loop, receiver)
        if trains is None:
            return updated_node
        if receiver in _bound_in(loop):
            return updated_node  # a new model each iteration (cross-validation, restarts): it must compile
        head = (f"`{receiver}.compile(...)` in the loop at line {self.analysis.file_line_of(loop)} that also trains "
                f"`{receiver}` (`{receiver}.{trains.func.attr.value}`, line {self.analysis.file_line_of(trains)}): each "
                "compile drops the train function, which is traced again on the next call")
        lr, why = self._only_learning_rate(call, loop, receiver)
        if lr is None:
            self.report(call, f"{head}; compile once before the loop and change the learning rate with "
                              f"`{receiver}.optimizer.learning_rate.assign(...)` or a `LearningRateScheduler` "
                              f"callback ({why})", Tier.DIAGNOSTIC)
            return updated_node
        flag = self._fresh(f"{receiver}_compiled" if receiver != "model" else "compiled_once")
        message = (f"{head}: compile on the first iteration only, then "
                   f"`{receiver}.optimizer.learning_rate.assign({short_code(lr)})`")
        reason = ("the model keeps one optimizer: its state (momentum, moments, iterations) and the metrics are "
                  "no longer reset at every compile")
        if not self.report(call, message, Tier.UNSAFE, reason=reason):
            return updated_node
        self._flags.add(flag)
        self._pending_flags[id(loop)] = flag
        assign = cst.parse_statement(f"{receiver}.optimizer.learning_rate.assign({code_of(lr)})")
        set_flag = cst.parse_statement(f"{flag} = True")
        compile_line = updated_node.with_changes(leading_lines=[])
        return cst.If(
            test=cst.parse_expression(f"not {flag}"),
            body=cst.IndentedBlock(body=[compile_line, set_flag]),
            orelse=cst.Else(body=cst.IndentedBlock(body=[assign])),
            leading_lines=updated_node.leading_lines,
        )

    def _only_learning_rate(self, call: cst.Call, loop, receiver: str) -> tuple[cst.BaseExpression | None, str]:
        """The learning-rate expression when it is the only thing this compile call changes, else why not."""
        rebound = _bound_in(loop) | self._globals
        if receiver in rebound:
            return None, f"`{receiver}` is rebound in the loop"
        optimizer = None
        for index, arg in enumerate(call.args):
            if arg.star:
                return None, "it passes `*args`/`**kwargs`"
            if (arg.keyword is not None and arg.keyword.value == "optimizer") or (arg.keyword is None and index == 0):
                optimizer = arg.value
                continue
            if not _invariant(arg.value, rebound):
                return None, f"`{short_code(arg.value)}` changes in the loop"
        if not isinstance(optimizer, cst.Call):
            return None, "its optimizer is not built in the call"
        q = self.scope.qualify(optimizer.func) or ""
        if not (q.startswith(("keras.", "tensorflow.keras.")) and ".optimizers." in f".{q}"):
            return None, "its optimizer is not a Keras optimizer built in the call"
        lr = None
        for index, arg in enumerate(optimizer.args):
            if arg.star:
                return None, "the optimizer gets `*args`/`**kwargs`"
            if (arg.keyword is not None and arg.keyword.value in _LR_KEYWORDS) or (arg.keyword is None and index == 0):
                lr = arg.value
            elif not _invariant(arg.value, rebound):
                return None, f"the optimizer's `{short_code(arg.value)}` changes in the loop"
        if lr is None or _invariant(lr, rebound):
            return None, "the learning rate does not change in the loop"
        if isinstance(lr, cst.Call) and not isinstance(lr.func, cst.Name):
            return None, "the learning rate may be a schedule"
        return lr, ""

    def _fresh(self, base: str) -> str:
        name, index = base, 2
        while name in self._names or name in self._flags:
            name, index = f"{base}_{index}", index + 1
        return name


def _may_report(outer: ast.AST, index: TreeIndex) -> bool:
    """Is there, in ``outer`` or a loop inside it, a loop ``L`` holding a ``name.compile(...)``
    statement and a training call on the same ``name`` that no assignment in ``L`` rebinds (what
    :meth:`CompileInLoopCommand.leave_SimpleStatementLine` asks of the innermost loop around
    the compile, with ``_trains`` and ``_bound_in``)?"""
    for loop in index.subtree(outer):
        if type(loop) not in (ast.For, ast.AsyncFor, ast.While):
            continue
        compiled, trained, bound = set(), set(), set()
        for node in index.subtree(loop):
            kind = type(node)
            if kind is ast.Expr:
                call = node.value  # type: ignore[attr-defined]
                if type(call) is ast.Call and type(call.func) is ast.Attribute and call.func.attr == "compile" \
                        and type(call.func.value) is ast.Name:  # type: ignore[attr-defined]
                    compiled.add(call.func.value.id)  # type: ignore[attr-defined]
            elif kind is ast.Call:
                func = node.func  # type: ignore[attr-defined]
                if type(func) is ast.Attribute and func.attr in _TRAIN_METHODS and type(func.value) is ast.Name:
                    trained.add(func.value.id)  # type: ignore[attr-defined]
            elif kind is ast.Assign or kind is ast.AugAssign or kind is ast.NamedExpr or kind is ast.For:
                targets = node.targets if kind is ast.Assign else [node.target]  # type: ignore[attr-defined]
                for target in targets:
                    bound.update(n.id for n in walk(target)  # type: ignore[attr-defined]
                                 if type(n) is ast.Name and type(n.ctx) is ast.Store)  # type: ignore[attr-defined]
        if not (compiled & trained) <= bound:
            return True
    return False


def _trains(loop: cst.CSTNode, receiver: str) -> cst.Call | None:
    found = find_nodes(loop, lambda node: method_call_on(node, receiver, _TRAIN_METHODS), skip=(cst.FunctionDef,))
    return found[0] if found else None


def _invariant(expr: cst.BaseExpression, rebound: set[str]) -> bool:
    """A literal, a name the loop does not rebind, an attribute chain of one, or a list/tuple/dict of those."""
    if literal_value(expr) is not None:
        return True
    if isinstance(expr, cst.Name):
        return expr.value not in rebound
    if isinstance(expr, cst.Attribute):
        return _invariant(expr.value, rebound)
    if isinstance(expr, (cst.List, cst.Tuple)):
        return all(not isinstance(e, cst.StarredElement) and _invariant(e.value, rebound) for e in expr.elements)
    if isinstance(expr, cst.Dict):
        return all(isinstance(e, cst.DictElement) and _invariant(e.key, rebound) and _invariant(e.value, rebound)
                   for e in expr.elements)
    return False


def _all_names(tree: cst.Module) -> set[str]:
    names: set[str] = set()

    class _V(cst.CSTVisitor):
        def visit_Name(self, node: cst.Name) -> None:
            names.add(node.value)

    tree.visit(_V())
    return names


def _bound_in(loop: cst.CSTNode) -> set[str]:
    """Names the loop binds (its target, assignments, ``with ... as``, walrus, imports, nested defs), in
    nested scopes too."""
    skipped = (cst.Param, cst.Global, cst.Nonlocal)
    return {name for name, node in binding_sites(loop, nested=True) if not isinstance(node, skipped)}
