"""Each parameter RTF005 would convert at the call sites, and what the function's body allows.

A varying Python scalar becomes ``tf.constant(v, dtype=...)`` (:func:`scalar_target`),
a tensor whose dtype drifts becomes ``tf.cast(v, ...)`` (:func:`cast_target`).  Each
returns a :class:`Target` (the conversion, what varied, unsafe notes, plain
information for the reason), or the reason the value stays as it is.
Never imports TensorFlow.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from retrace_fix.codemods._call_site_matching import ParsedModule
from retrace_fix.codemods._call_site_records import Conversion
from retrace_fix.codemods._call_site_wording import unique_list
from retrace_fix.codemods._finding_text import short
from retrace_fix.codemods._flag_branches import flag_branch_risk
from retrace_fix.codemods._keras import KerasEvidence
from retrace_fix.codemods._own_constants import own_constants
from retrace_fix.tfnames import Scope, local_bindings
from retrace_fix.traces.signature_candidates import FIX_CAST, FIX_SCALAR
from retrace_fix.traces.generalize import BodyFacts, _listed, _python_repr, classify_scalar


@dataclass
class Target:
    conversion: Conversion
    what: str  # "`alpha`: Python float varies (0.1, 0.2)"
    notes: list  # unsafe reasons
    info: list  # said in the reason, not a risk
    short: str = ""  # "`alpha`: Python float varies"
    python_type: str = ""  # scalar: int, float, bool
    constants: bool = False  # the body's ``tf.constant(param)`` calls are rewritten too (``_own_constants``)


def _values(summary) -> str:
    type_name = summary.types[0] if summary.types else ""
    return _listed(_python_repr({"type": type_name, "value": v}) for v in summary.values)


def scalar_target(param: str, dtype: str, summary, source, summaries: dict, proven: bool,
                   node: cst.FunctionDef | None = None, scope: Scope | None = None,
                   patched: bool = False) -> Target | str:
    """A varying Python scalar becoming a ``dtype`` tensor at the call sites, or why it stays a Python value.

    A Python test on a bool (``if flag:``) becomes a ``tf.cond``: safe when the proof traced the body with
    the flag as a tensor (so both branches trace to one structure) and no branch has a Python side
    effect (``_flag_branches``); otherwise unsafe, with the reason.

    ``patched``: the proof traced the body with its ``tf.constant(param[, dtype])`` calls as conversions
    (``_own_constants``); those calls are rewritten with the call sites when they are the only uses that
    need a Python value and every other use is safe with a tensor."""
    type_name = summary.types[0]
    what = f"`{param}`: Python {type_name} varies ({_values(summary)})"
    facts = source.facts
    uses = facts.uses.get(param, [])
    tests = [u for u in uses if u.kind == "other" and u.in_test]
    constants: list = []
    if patched and node is not None and scope is not None:
        found = own_constants(node, param, type_name, scope)
        if isinstance(found, str):
            return f"`{param}` stays a Python value ({found})"
        if not found:
            return f"`{param}` stays a Python value (the proof converted a `tf.constant({param})` the source does not spell so)"
        constants = found
    converted = {short(c.call) for c in constants}
    rest_uses = [u for u in uses if u not in tests and not (u.kind == "tf_arg" and u.text in converted)]
    rest = BodyFacts(uses={param: rest_uses}, shape_reads=facts.shape_reads, reassigned=facts.reassigned)
    status, notes = classify_scalar(param, dtype, rest, summaries, source.jit_compile, source.autograph, proven)
    if status in ("blocked", "unseen"):  # unseen: RTF003's signature is the candidate --verify proves
        return f"`{param}` stays a Python value ({'; '.join(notes)})"
    if constants and status != "safe":
        return f"`{param}` stays a Python value (besides `tf.constant({param})`: {'; '.join(notes)})"
    notes = list(notes) if status == "unsafe" else []
    info: list[str] = []
    if constants:
        pairs = unique_list(f"`{short(c.call)}` becomes `{_own_spelled(c)}`" for c in constants)
        info.append(
            f"in the body {', '.join(pairs)} (the same tensor for a Python value; the proof traced the body so)"
        )
    if tests:
        if not source.autograph:
            return f"`{param}` stays a Python value (`{tests[0].text}` needs one with autograph=False)"
        risk = (
            flag_branch_risk(node, param, scope)
            if proven and type_name == "bool" and node is not None and scope is not None
            else "not proven"
        )
        if risk == "not proven":
            notes.append(
                f"Python `if`/`while` on `{tests[0].text}` becomes a tf.cond/tf.while_loop: both branches are traced, "
                "their results are not proven the same"
            )
        elif risk is not None:
            notes.append(risk)
        else:
            info.append(
                f"`if` on `{param}` becomes a tf.cond: the proof traced both branches to one structure, and "
                "neither has a Python side effect"
            )
    if type_name == "float" and dtype == "float32":
        info.append(
            f"`{param}` is a Python float (float64) and arrives as float32: TensorFlow converted it to float32 at "
            "its first op with a float32 tensor anyway; Python arithmetic on it in the body is now float32"
        )
    for use in uses:
        if use.kind == "cast" and use.dtype and use.dtype != dtype and type_name == "float" and use.dtype == "float64":
            notes.append(f"`{use.text}`: the value arrives as {dtype}, so float64 precision is lost")
    return Target(Conversion(param, FIX_SCALAR, dtype), what, notes, info, f"`{param}`: Python {type_name} varies",
                   type_name, constants=bool(constants))


def _own_spelled(found) -> str:
    if found.dtype is None:
        return f"tf.convert_to_tensor({found.param})"
    return f"tf.cast({found.param}, {cst.Module(body=[]).code_for_node(found.dtype)})"


def cast_target(param: str, dtype: str, summary, node: cst.FunctionDef, parsed: ParsedModule, keras, source) -> Target | str:
    """A tensor whose dtype drifts, cast to ``dtype`` at the call sites: safe where the body does not
    depend on the dtype it receives (a Keras model casts its inputs; ``tf.cast(x, dtype)``)."""
    dtypes = summary.dtypes
    what = f"`{param}`: dtype varies ({', '.join(dtypes)})"
    others = [d for d in dtypes if d != dtype]
    notes: list[str] = []
    uses = _tensor_uses(node, param, parsed, keras)
    floats = all(d.startswith(("float", "bfloat")) for d in dtypes)
    for kind, text, target in uses:
        if kind == "cast" and target == dtype:
            continue
        if kind == "keras" and floats and dtype == "float32":
            continue
        notes.append(
            f"`{text}` receives {dtype} where some calls passed {', '.join(others)}: casting at the call site "
            "changes what it computes (precision, result dtype)"
        )
        break
    info = []
    lossy = [d for d in others if _narrower(dtype, d)]
    if lossy and not notes:
        info.append(
            f"`{param}` values recorded as {', '.join(lossy)} are cast to {dtype} (precision is lost), which the "
            "body did with them anyway"
        )
    return Target(Conversion(param, FIX_CAST, dtype), what, notes, info, what)


def _narrower(dtype: str, other: str) -> bool:
    bits = {"float16": 16, "bfloat16": 16, "float32": 32, "float64": 64, "int8": 8, "int16": 16, "int32": 32, "int64": 64}
    return bits.get(dtype, 64) < bits.get(other, 0) or (dtype.startswith("int") and other.startswith("float"))


def _tensor_uses(node: cst.FunctionDef, param: str, parsed: ParsedModule, keras: KerasEvidence) -> list[tuple[str, str, str | None]]:
    """Every use of ``param`` in the body: ``("cast", text, dtype)`` for ``tf.cast(param, tf.X)``,
    ``("keras", text, None)`` for the input of a Keras model call, ``("other", text, None)``."""
    scope = parsed.scope
    scope.push_function(node)
    collector = _TensorUses(param, scope, keras)
    collector.functions.append(node)
    node.body.visit(collector)
    return collector.uses


class _TensorUses(cst.CSTVisitor):
    def __init__(self, param: str, scope: Scope, keras: KerasEvidence) -> None:
        self.param = param
        self.scope = scope
        self.keras = keras
        self.functions: list[cst.FunctionDef] = []
        self.stack: list[cst.CSTNode] = []
        self.uses: list[tuple[str, str, str | None]] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.stack.append(node)  # popped by on_leave, which LibCST calls for a skipped node too
        if isinstance(node, (cst.FunctionDef, cst.Lambda)) and self.param in local_bindings(node):
            return False  # a nested def with its own `param`
        return super().on_visit(node)

    def on_leave(self, original_node: cst.CSTNode) -> None:
        super().on_leave(original_node)
        self.stack.pop()

    def visit_Name(self, node: cst.Name) -> None:
        if node.value != self.param or len(self.stack) < 2:
            return
        parent = self.stack[-2]
        if isinstance(parent, cst.Attribute) and parent.attr is node:
            return
        if isinstance(parent, cst.Arg) and parent.keyword is node:
            return
        if isinstance(parent, cst.Arg) and parent.value is node and len(self.stack) >= 3:
            call = self.stack[-3]
            if isinstance(call, cst.Call) and call.args and call.args[0] is parent:
                if self.scope.qualify(call.func) == "tensorflow.cast":
                    dtype = next((a.value for a in call.args[1:] if a.keyword is None or a.keyword.value == "dtype"), None)
                    target = self.scope.qualify(dtype) if dtype is not None else None
                    self.uses.append(("cast", short(call), target.rsplit(".", 1)[-1] if target else None))
                    return
                if self.keras.receiver_is_model(call.func, self.functions, self.scope, False):
                    self.uses.append(("keras", short(call), None))
                    return
            if isinstance(call, cst.Call):
                self.uses.append(("other", short(call), None))
                return
        self.uses.append(("other", short(parent), None))
