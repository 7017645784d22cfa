"""RTF002 predict-to-call.

What it does
    Inside a tf.function, rewrites ``model.predict(x, ...)`` and
    ``model.predict_on_batch(x)`` to ``model(x, training=False)`` when ``model``
    is known to be a Keras model: built or loaded in the module
    (``keras.Sequential``, ``keras.Model``, ``tf.keras.models.load_model``, a
    subclass of ``keras.Model``), a parameter annotated as a Keras model, ``self``
    in a Keras model subclass, or a call using Keras-only keywords (``verbose=``).
    ``verbose=`` is dropped.  A call with ``batch_size=``, ``steps=``,
    ``callbacks=``, extra positional arguments, or a dataset/generator input is
    reported as a diagnostic instead.  Other ``predict`` methods (a
    project-local ``Predictor.predict``, a functional
    ``predict_on_batch(weights, x, training)``) are left alone.

    Outside any tf.function, ``model.predict(x)`` / ``predict_on_batch(x)``
    called inside a Python ``for``/``while`` loop (or comprehension) becomes
    ``model(x, training=False).numpy()`` - unsafe tier, applied only with
    ``--unsafe-fixes`` - when ``model`` is a single-output Keras model built in
    the module (``keras.Sequential(...)``, or ``keras.Model(inputs, outputs)``
    with one output) and the call passes one input and nothing but
    ``verbose=0`` (a ``predict`` that prints its progress bar is reported as a
    diagnostic instead: the direct call would drop that output).  The
    same holds for a receiver ``self.<attr>`` that every ``self.<attr> = ...``
    of the module builds as such a model, and for a call in a method that
    runs once per step: a method a loop of the module calls
    (``agent.act(state)`` in ``for state in states``), directly or through
    ``self.<method>()`` calls of such a method - the usual agent shape.
    A model built anew in the same loop iteration (or the same call of such
    a method) as its only ``predict`` is left alone: each model is asked
    once, so there is no per-step setup to save (a new model needs its own
    functions either way); asked twice there, or in an inner loop, it is
    reported.

    ``model.train_on_batch(...)`` once per step of a Python loop (same
    rule for "per step"; ``model`` provably Keras) is a diagnostic: each call
    converts its inputs and dispatches Keras' train function.  Measured on
    Keras 3 (TensorFlow 2.21, CPU, a 2-layer Dense model, batch 32):
    5.2 ms per ``train_on_batch`` against 4.1 ms for a ``tf.function`` train
    step (1.3x); the same run measured ``predict`` on one row at 190 ms
    against 4.4 ms for the direct call (43x), which is why ``predict`` gets
    a fix and ``train_on_batch`` only a note.

Why it retraces
    ``Model.predict`` is a high-level batch endpoint that manages its own
    tf.function.  Called on a symbolic tensor during tracing it fails: Keras 3
    raises ``AttributeError: 'SymbolicTensor' object has no attribute 'numpy'``,
    tf-keras raises ``RuntimeError: Detected a call to `Model.predict` inside a
    `tf.function```.  Calling the model directly is the documented replacement,
    and it is a single graph op sequence that traces once per input signature.
    In an eager Python loop, every ``predict`` call rebuilds its data adapter,
    iterator and callbacks and dispatches its own tf.function: for one batch
    that fixed cost is many times the model's run time (Keras documents
    ``model(x)`` for small inputs in loops).

Example
    Before::

        model = tf.keras.Sequential([tf.keras.layers.Dense(1)])

        @tf.function
        def infer(x):
            return model.predict(x, verbose=0)

        for batch in batches:
            outputs.append(model.predict(batch, verbose=0))

        class Agent:
            def __init__(self):
                self.q_net = tf.keras.Sequential([tf.keras.layers.Dense(2)])

            def act(self, state):
                return self.q_net.predict(state[None], verbose=0)

        for state in states:
            agent.act(state)

    After (the loop only with ``--unsafe-fixes``)::

        model = tf.keras.Sequential([tf.keras.layers.Dense(1)])

        @tf.function
        def infer(x):
            return model(x, training=False)

        for batch in batches:
            outputs.append(model(batch, training=False).numpy())

        class Agent:
            def __init__(self):
                self.q_net = tf.keras.Sequential([tf.keras.layers.Dense(2)])

            def act(self, state):
                return self.q_net(state[None], training=False).numpy()

        for state in states:
            agent.act(state)

Fix safety
    safe inside a tf.function: ``predict`` never worked there, and
    ``training=False`` is what ``predict`` uses (accepted even by subclassed
    models whose ``call`` has no ``training`` argument).  unsafe outside a
    tf.function, with the reason "no internal batching: large inputs may not
    fit in memory; ``.numpy()`` needs the TensorFlow backend": ``predict``
    splits its input into batches of 32 and concatenates the results, the
    direct call runs the whole input at once.  ``.numpy()`` keeps the return
    type (an ndarray of the model's output dtype) with tf.keras and with
    Keras 3 on the TensorFlow backend, and the values are the same up to float
    rounding for models without batch-dependent layers; a multi-backend
    Keras 3 project on JAX gets arrays without ``.numpy()`` (found in
    keras-team/keras's own tests), so review the backend before applying.  Models whose ``predict_step``
    is overridden, multi-output models, datasets, generators and
    ``batch_size``/``steps``/``callbacks`` are left alone.

    ``retrace-fix --verify`` also tries, and keeps only if the user's program
    then runs as it should, the direct call where nothing here proves the
    receiver is Keras (a model passed in from another module) and where only
    ``batch_size=`` stops the rewrite inside a tf.function.
"""

from __future__ import annotations

import ast
import re

import libcst as cst

from retrace_fix.codemods._base import RetraceCodemod
from retrace_fix.codemods._keras import KerasEvidence
from retrace_fix.codemods._predict_facts import (
    MODEL_WORD_BYTES,
    PREDICT_METHODS,
    has_predict_call,
    is_self_attribute,
    one_output,
    per_step_methods,
    quiet,
    per_step_candidates,
    graph_predict_candidates,
    without_keyword,
)
from retrace_fix.codemods._predict_receivers import graph_calls_may_report
from retrace_fix.findings import Tier
from retrace_fix.node_text import short_code
from retrace_fix.partial_parse import Outline
from retrace_fix.rules import Rule
from retrace_fix.tf_functions import may_reference_tf_function
from retrace_fix.tfnames import local_bindings

RULE = Rule("RTF002", "predict-to-call", Tier.SAFE, doc=__doc__,
            summary="model.predict(x) / predict_on_batch(x) inside tf.function -> model(x, training=False)")

#: a call of ``...Model``/``...Sequential`` in bytes (``model_builds``): the name, then what the tokenizer
#: skips (spaces, continuations, comments and newlines in brackets) or a closing parenthesis, then ``(``
_MODEL_BUILD = re.compile(rb"\b(?:Model|Sequential)(?:[ \t\f\r\n\\)]|#[^\n]*+)*+\(")

#: keywords ``Model.predict`` accepts that are meaningless for a direct call
DROPPABLE_KEYWORDS = frozenset({"verbose"})
#: keywords only Keras' predict has: their presence identifies the receiver as Keras
KERAS_ONLY_KEYWORDS = frozenset(
    {"verbose", "batch_size", "steps", "callbacks", "max_queue_size", "workers", "use_multiprocessing"}
)
#: keywords whose behaviour a direct call cannot reproduce
BLOCKING_KEYWORDS = KERAS_ONLY_KEYWORDS - DROPPABLE_KEYWORDS


class PredictToCallCommand(RetraceCodemod):
    RULES = (RULE,)
    ORDER = 10
    TRIGGERS = (b".predict", b".train_on_batch")
    #: it also reports Keras predict calls outside any tf.function (its unsafe form):
    #: its TRIGGERS and might_apply_to_tree decide whether a file is worth parsing
    REQUIRES_TF_FUNCTION = False

    @classmethod
    def might_apply(cls, data: bytes) -> bool:
        """A predict call (TRIGGERS), and what :meth:`might_apply_to_tree` needs besides, in bytes:
        a possible tf.function (a predict call in one), or, for a call once per loop step, a
        ``...Model(``/``...Sequential(`` call for ``predict`` (``model_builds``: the receiver is
        assigned one) or a word of Keras-model evidence for ``train_on_batch`` (``Model``,
        ``Sequential``, a loader, ``applications``:
        :func:`~retrace_fix.codemods._predict_facts.model_evidence`)."""
        if not super().might_apply(data):
            return False
        if may_reference_tf_function(data):
            return True
        if b".predict" in data and _MODEL_BUILD.search(data) is not None:
            return True
        return b".train_on_batch" in data and any(word in data for word in MODEL_WORD_BYTES)

    @classmethod
    def might_apply_to_tree(cls, tree: ast.Module, outline: Outline) -> bool:
        """A Keras call is reported outside a tf.function only once per step of a Python loop, on
        a model the module builds or shows (:func:`per_step_candidates`), and a predict call
        inside a tf.function (:func:`graph_predict_candidates`, in the code a tf.function can be
        in: :meth:`Outline.tf_function_code`): a module needs parsing when it has such a call."""
        index = outline.index
        if per_step_candidates(index):
            return True
        if not outline.references_tf_function or not has_predict_call(index):
            return False
        roots = outline.tf_function_code()
        # a blocked call reports only on a receiver that may be a Keras model
        return graph_predict_candidates(roots, index) and graph_calls_may_report(roots, index)

    def transform_module_impl(self, tree: cst.Module) -> cst.Module:
        self.keras = KerasEvidence.collect(tree, self.scope)
        self._classes: list[cst.ClassDef] = []
        self._loop_frames: list[list[cst.CSTNode]] = [[]]
        self._per_step_methods = per_step_methods(tree)
        return super().transform_module_impl(tree)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._classes.append(node)

    def leave_ClassDef(self, original_node: cst.ClassDef, updated_node: cst.ClassDef) -> cst.ClassDef:
        self._classes.pop()
        return updated_node

    def _self_is_model(self) -> bool:
        return bool(self._classes) and "local." + self._classes[-1].name.value in self.keras.model_classes

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        func = original_node.func
        if isinstance(func, cst.Attribute) and func.attr.value == "train_on_batch" and not self.in_tf_function:
            self._train_on_batch_per_step(original_node)
            return updated_node
        if not (isinstance(func, cst.Attribute) and func.attr.value in PREDICT_METHODS):
            return updated_node
        if not self.in_tf_function:
            return self.leave_predict_outside_tf_function(original_node, updated_node)
        receiver = func.value
        keywords = {a.keyword.value for a in original_node.args if a.keyword is not None}
        is_keras = bool(keywords & KERAS_ONLY_KEYWORDS) or self.keras.receiver_is_model(
            receiver, self._function_stack, self.scope, self._self_is_model()
        )
        method = func.attr.value
        if not is_keras:
            return self._unknown_receiver(original_node, updated_node, method)
        blocker = self._blocker(original_node, method)
        if blocker:
            # `batch_size=` only splits the input: the direct call computes the same rows
            verifiable = self._blocker(without_keyword(original_node, "batch_size"), method) is None
            if self.report(
                original_node,
                f"`{method}` inside a tf.function fails at trace time; {blocker}, so call the "
                "model directly by hand (`model(x, training=False)`)",
                Tier.DIAGNOSTIC,
                verifiable=verifiable,
            ):
                return self.direct_call(updated_node)
            return updated_node
        if not self.report(
            original_node,
            f"Keras `{method}` inside a tf.function fails at trace time; call the model directly",
            Tier.SAFE,
        ):
            return updated_node
        return self.direct_call(updated_node)

    def _unknown_receiver(self, original_node: cst.Call, updated_node: cst.Call, method: str) -> cst.BaseExpression:
        """``x.predict(...)`` in a tf.function on a receiver not provably Keras.

        Said nothing about in an ordinary run (a project's own ``predict`` method is
        none of retrace-fix's business); in a ``--verify`` run the direct call is a
        candidate, which the user's program keeps only if it then runs as it should.
        """
        if not self.settings.verify_candidates or self._blocker(original_node, method) is not None:
            return updated_node
        receiver = original_node.func.value  # type: ignore[attr-defined]
        if not isinstance(receiver, (cst.Name, cst.Attribute)):
            return updated_node
        if isinstance(receiver, cst.Name) and self.keras.provably_not_model(receiver.value):
            return updated_node  # an instance of a class of this module that is no Keras model
        if not self.report(
            original_node,
            f"`{method}` inside a tf.function: if `{short_code(receiver)}` is a Keras model this fails at "
            "trace time, but nothing here shows what it is; the direct call `model(x, training=False)` "
            "is a candidate for --verify",
            Tier.DIAGNOSTIC,
            verifiable=True,
        ):
            return updated_node
        return self.direct_call(updated_node)

    # ------------------------------------------------------------ outside tf.function (unsafe)

    #: why the out-of-tf.function rewrite needs --unsafe-fixes
    UNSAFE_REASON = (
        "no internal batching: large inputs may not fit in memory; `.numpy()` needs the TensorFlow backend "
        "(Keras 3 on JAX returns arrays without it)"
    )

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool | None:
        self._loops_stack().append([])
        return super().visit_FunctionDef(node)

    def leave_FunctionDef(self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef):
        self._loops_stack().pop()
        return super().leave_FunctionDef(original_node, updated_node)

    def _loops_stack(self) -> list[list[cst.CSTNode]]:
        stack = getattr(self, "_loop_frames", None)
        if stack is None:
            stack = self._loop_frames = [[]]
        return stack

    def _enter_loop(self, node: cst.CSTNode) -> None:
        self._loops_stack()[-1].append(node)

    def _leave_loop(self, original_node: cst.CSTNode, updated_node):
        self._loops_stack()[-1].pop()
        return updated_node

    visit_For = visit_While = visit_ListComp = visit_GeneratorExp = visit_SetComp = visit_DictComp = _enter_loop
    leave_For = leave_While = leave_ListComp = leave_GeneratorExp = leave_SetComp = leave_DictComp = _leave_loop

    def _in_loop_body(self, node: cst.CSTNode) -> bool:
        """Does ``node`` run once per iteration of an enclosing loop (of the same function)?"""
        return self._innermost_loop(node) is not None

    def _innermost_loop(self, node: cst.CSTNode) -> cst.CSTNode | None:
        """The innermost loop (of the same function) whose every iteration runs ``node``, or None."""
        loops = self._loops_stack()[-1]
        if not loops:
            return None
        start = self.analysis.position(node).start
        at = (start.line, start.column)
        for loop in reversed(loops):
            if isinstance(loop, cst.For):
                parts = [loop.body]
            elif isinstance(loop, cst.While):
                parts = [loop]
            elif isinstance(loop, cst.DictComp):
                parts = [loop.key, loop.value]
            else:
                parts = [loop.elt]  # type: ignore[attr-defined]
            for part in parts:
                pos = self.analysis.position(part)
                if (pos.start.line, pos.start.column) <= at <= (pos.end.line, pos.end.column):
                    return loop
        return None

    def leave_predict_outside_tf_function(
        self, original_node: cst.Call, updated_node: cst.Call
    ) -> cst.BaseExpression:
        """``model.predict(x)`` in a Python loop → ``model(x, training=False).numpy()`` (unsafe)."""
        func = original_node.func
        assert isinstance(func, cst.Attribute)
        receiver = func.value
        if isinstance(receiver, cst.Name):
            model_kind = self._single_output_model(receiver.value)
        elif is_self_attribute(receiver):
            model_kind = self._single_output_attribute(receiver.attr.value)  # type: ignore[attr-defined]
        else:
            return updated_node
        if model_kind is None or self._blocker(original_node, func.attr.value) is not None:
            return updated_node
        where = self._per_step_place(original_node)
        if where is None:
            return updated_node
        method = func.attr.value
        if method == "predict" and not quiet(original_node):
            self.report(
                original_node,
                f"Keras `{method}` on one batch {where} pays its per-call setup every iteration; "
                f"`{short_code(receiver)}(x, training=False).numpy()` is faster, but this call prints a progress "
                "bar the direct call would drop: pass `verbose=0` to allow the rewrite",
                Tier.DIAGNOSTIC,
            )
            return updated_node
        if not self.report(
            original_node,
            f"Keras `{method}` on one batch {where} pays its per-call setup every iteration; "
            f"call the {model_kind} directly and take `.numpy()`",
            Tier.UNSAFE,
            reason=self.UNSAFE_REASON,
        ):
            return updated_node
        direct = self.direct_call(updated_node)
        return cst.Call(func=cst.Attribute(value=direct, attr=cst.Name("numpy")), args=[])

    def _per_step_place(self, node: cst.CSTNode) -> str | None:
        """Where ``node`` runs once per iteration of a Python loop, in words; None when it does not
        provably: in the body of a loop of its own function, or in a method that a loop of this
        module calls (``agent.act(state)`` in ``for step in ...``, directly or through
        ``self.<method>()`` calls)."""
        receiver = node.func.value if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) else None
        loop = self._innermost_loop(node)
        if loop is not None:
            if receiver is not None and _built_per_iteration(loop, receiver):
                return None  # a new model each iteration, asked once: its one predict is no per-step cost
            return "in a Python loop"
        function = self.current_function
        if self._classes and function is not None and function.name.value in self._per_step_methods:
            if receiver is not None and _built_per_iteration(function, receiver):
                return None  # the method builds the model it asks once per call
            return f"in `{function.name.value}`, which a Python loop calls every step,"
        return None

    def _train_on_batch_per_step(self, node: cst.Call) -> None:
        """``model.train_on_batch(...)`` once per step of a Python loop: a diagnostic."""
        receiver = node.func.value  # type: ignore[attr-defined]
        if isinstance(receiver, cst.Name):
            is_keras = self.keras.receiver_is_model(receiver, self._function_stack, self.scope, False)
        else:
            is_keras = is_self_attribute(receiver) and receiver.attr.value in self.keras.model_attrs  # type: ignore[attr-defined]
        if not is_keras:
            return
        where = self._per_step_place(node)
        if where is None:
            return
        self.report(
            node,
            f"Keras `train_on_batch` {where} converts its inputs and dispatches Keras' train function on "
            "every call (measured: about 1.3x a tf.function train step on a small model, more with Python "
            "inputs of varying shapes); for a tight loop, write the step as a `@tf.function` "
            "(`tf.GradientTape`, `optimizer.apply_gradients`) and call it with tensors",
            Tier.DIAGNOSTIC,
        )

    def _single_output_attribute(self, attr: str) -> str | None:
        """"model" when every ``self.<attr> = ...`` of this module builds a single-output Keras model."""
        if attr not in self.keras.model_attrs:
            return None
        values = [value for _fn, targets, value in self.keras._pending
                  if any(is_self_attribute(t) and t.attr.value == attr for t in targets)]  # type: ignore[attr-defined]
        if not values:
            return None
        return "model" if self._single_output_builds(values) else None

    def _single_output_model(self, name: str) -> str | None:
        """"model" when every binding of ``name`` visible here builds a single-output Keras model."""
        owner = None
        for function in reversed(self._function_stack):
            if name in local_bindings(function):
                owner = function
                break
        values = [value for fn, targets, value in self.keras._pending if fn is owner
                  and any(isinstance(t, cst.Name) and t.value == name for t in targets)]
        if owner is None:
            rebound = [v for fn, targets, v in self.keras._pending if fn is None
                       and any(isinstance(t, cst.Name) and t.value == name for t in targets)]
            values = rebound
        if not values or name not in self.keras.model_names.get(owner, set()):
            return None
        return "model" if self._single_output_builds(values) else None

    def _single_output_builds(self, values: list[cst.BaseExpression]) -> bool:
        """Does every value build a single-output Keras model (``Sequential(...)``, ``Model(inputs, output)``)?"""
        for value in values:
            if not isinstance(value, cst.Call):
                return False
            qualified = self.scope.qualify(value.func)
            if qualified in ("keras.Sequential", "keras.models.Sequential"):
                continue
            if qualified in ("keras.Model", "keras.models.Model") and one_output(value, self.keras):
                continue
            return False
        return True

    def _blocker(self, node: cst.Call, method: str) -> str | None:
        positional = [a for a in node.args if a.keyword is None and not a.star]
        if any(a.star for a in node.args):
            return "it passes *args/**kwargs"
        keywords = [a.keyword.value for a in node.args if a.keyword is not None]
        if len(positional) > 1:
            return "it passes more than one positional argument"
        if not positional and "x" not in keywords:
            return "it has no input argument"
        blocking = sorted(set(keywords) & BLOCKING_KEYWORDS)
        if blocking:
            return f"`{blocking[0]}=` has no equivalent in a direct call"
        unknown = sorted(set(keywords) - DROPPABLE_KEYWORDS - {"x"})
        if unknown:
            return f"`{unknown[0]}=` has no equivalent in a direct call"
        x = self.input_arg(node).value
        if self._is_dataset_or_generator(x):
            return "its input is a dataset or generator"
        return None

    @staticmethod
    def input_arg(node: cst.Call) -> cst.Arg:
        for arg in node.args:
            if arg.keyword is None or arg.keyword.value == "x":
                return arg
        raise ValueError("no input argument")  # guarded by _blocker

    def _is_dataset_or_generator(self, x: cst.BaseExpression) -> bool:
        if isinstance(x, cst.GeneratorExp):
            return True
        if isinstance(x, cst.Call):
            qualified = self.scope.qualify(x.func) or ""
            if qualified.startswith("tensorflow.data.") or ".data.Dataset" in qualified:
                return True
            if isinstance(x.func, cst.Attribute) and x.func.attr.value in (
                "batch", "map", "from_tensor_slices", "from_generator", "prefetch", "shuffle",
            ):
                return True
        return False

    @classmethod
    def direct_call(cls, node: cst.Call) -> cst.Call:
        """``m.predict(x, verbose=0)`` → ``m(x, training=False)``, keeping x's formatting."""
        x_arg = cls.input_arg(node)
        receiver = node.func.value  # type: ignore[attr-defined]
        last = node.args[-1]
        x_is_last = last is x_arg
        # x keeps its own comma (and any comment after it); the new keyword takes
        # the comma of the original last argument, so a multi-line call keeps its shape.
        x_comma = x_arg.comma
        if x_is_last or isinstance(x_comma, cst.MaybeSentinel):
            x_comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        first = x_arg.with_changes(keyword=None, equal=cst.MaybeSentinel.DEFAULT, comma=x_comma)
        training = cst.Arg(
            keyword=cst.Name("training"),
            value=cst.Name("False"),
            equal=cst.AssignEqual(
                whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")
            ),
            comma=cst.MaybeSentinel.DEFAULT if x_is_last else last.comma,
        )
        return node.with_changes(func=receiver, args=[first, training])


def _built_per_iteration(scope: cst.CSTNode, receiver: cst.BaseExpression) -> bool:
    """Is ``receiver`` (``model``, ``self.model``) assigned in ``scope`` (a loop, or a function's body)
    and asked to predict only once there: a new model each iteration or call, whose one ``predict``
    pays a setup that a direct call would pay too (the model's functions are new with it)."""
    shown = short_code(receiver)
    assigned = predicts = 0

    class _Visitor(cst.CSTVisitor):
        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            return node is scope

        def visit_ClassDef(self, node: cst.ClassDef) -> bool:
            return False

        def visit_Lambda(self, node: cst.Lambda) -> bool:
            return False

        def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
            nonlocal assigned
            assigned += _binds(node.target, shown)

        def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
            nonlocal assigned
            assigned += node.value is not None and _binds(node.target, shown)

        def visit_Call(self, node: cst.Call) -> None:
            nonlocal predicts
            func = node.func
            if isinstance(func, cst.Attribute) and func.attr.value in PREDICT_METHODS and short_code(func.value) == shown:
                predicts += 1

    body = scope.body if isinstance(scope, (cst.For, cst.While, cst.FunctionDef)) else None
    if body is None:
        return False  # a comprehension binds nothing per iteration but its targets
    body.visit(_Visitor())
    return assigned > 0 and predicts == 1


def _binds(target: cst.BaseExpression, shown: str) -> bool:
    """Does an assignment target (a name, an attribute, a tuple of them) bind ``shown``?"""
    if isinstance(target, (cst.Tuple, cst.List)):
        return any(_binds(element.value, shown) for element in target.elements)
    return isinstance(target, (cst.Name, cst.Attribute)) and short_code(target) == shown
