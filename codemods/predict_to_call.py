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

Why it retraces
    ``Model.predict`` is a high-level batch endpoint that manages its own
    tf.function.  Called on a symbolic tensor during tracing it fails: Keras 3
    raises ``AttributeError: 'SymbolicTensor' object has no attribute 'numpy'``,
    tf-keras raises ``RuntimeError: Detected a call to `Model.predict` inside a
    `tf.function```.  Calling the model directly is the documented replacement,
    and it is a single graph op sequence that traces once per input signature.

Example
    Before::

        model = tf.keras.Sequential([tf.keras.layers.Dense(1)])

        @tf.function
        def infer(x):
            return model.predict(x, verbose=0)

    After::

        model = tf.keras.Sequential([tf.keras.layers.Dense(1)])

        @tf.function
        def infer(x):
            return model(x, training=False)

Fix safety
    safe inside a tf.function: ``predict`` never worked there, and
    ``training=False`` is what ``predict`` uses (accepted even by subclassed
    models whose ``call`` has no ``training`` argument).  Outside a tf.function
    the rewrite changes the return type (Tensor instead of ndarray) and drops
    batching; see the unsafe tier in the docs.
"""

from __future__ import annotations

import libcst as cst

from codemods._base import RetraceCodemod
from codemods._keras import KerasEvidence
from retrace_fix.findings import Tier

PREDICT_METHODS = ("predict", "predict_on_batch")
#: keywords ``Model.predict`` accepts that are meaningless for a direct call
DROPPABLE_KEYWORDS = frozenset({"verbose"})
#: keywords only Keras' predict has: their presence identifies the receiver as Keras
KERAS_ONLY_KEYWORDS = frozenset(
    {"verbose", "batch_size", "steps", "callbacks", "max_queue_size", "workers", "use_multiprocessing"}
)
#: keywords whose behaviour a direct call cannot reproduce
BLOCKING_KEYWORDS = KERAS_ONLY_KEYWORDS - DROPPABLE_KEYWORDS


class PredictToCallCommand(RetraceCodemod):
    CODE = "RTF002"
    NAME = "predict-to-call"
    SUMMARY = "model.predict(x) / predict_on_batch(x) inside tf.function -> model(x, training=False)"
    TIER = Tier.SAFE
    TRIGGERS = (b".predict",)

    def transform_module_impl(self, tree: cst.Module) -> cst.Module:
        self.keras = KerasEvidence.collect(tree, self.scope)
        self._classes: list[cst.ClassDef] = []
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
        if not (isinstance(func, cst.Attribute) and func.attr.value in PREDICT_METHODS):
            return updated_node
        if not self.in_tf_function:
            return self.leave_predict_outside_tf_function(original_node, updated_node)
        receiver = func.value
        keywords = {a.keyword.value for a in original_node.args if a.keyword is not None}
        is_keras = bool(keywords & KERAS_ONLY_KEYWORDS) or self.keras.receiver_is_model(
            receiver, self._function_stack, self.scope, self._self_is_model()
        )
        if not is_keras:
            return updated_node
        method = func.attr.value
        blocker = self._blocker(original_node, method)
        if blocker:
            self.report(
                original_node,
                f"`{method}` inside a tf.function fails at trace time; {blocker}, so call the "
                "model directly by hand (`model(x, training=False)`)",
                Tier.DIAGNOSTIC,
            )
            return updated_node
        if not self.report(
            original_node,
            f"Keras `{method}` inside a tf.function fails at trace time; call the model directly",
            Tier.SAFE,
        ):
            return updated_node
        return self.direct_call(updated_node)

    # Hook for the out-of-tf.function (unsafe) form.
    def leave_predict_outside_tf_function(
        self, original_node: cst.Call, updated_node: cst.Call
    ) -> cst.BaseExpression:
        return updated_node

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
