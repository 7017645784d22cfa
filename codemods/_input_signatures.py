"""What a tf.function's ``input_signature`` says about its parameters.

Shared by RTF001 (range-to-tf-range) and the call-site diagnostics (RTF101):
:func:`signature_tensor_params` names the parameters whose ``input_signature``
slot is a ``tf.TensorSpec`` (or another TypeSpec), so that they are tensors in
every trace.
"""

from __future__ import annotations

import libcst as cst

from retrace_fix.analysis import TfFunctionSite
from retrace_fix.tfnames import Scope, named_params


def signature_tensor_params(site: TfFunctionSite | None, node: cst.FunctionDef, scope: Scope) -> set[str]:
    """Parameters whose ``input_signature`` slot is a ``tf.TensorSpec`` (or another TypeSpec)."""
    if site is None or site.call is None:
        return set()
    for arg in site.call.args:
        if arg.keyword is not None and arg.keyword.value == "input_signature":
            value = arg.value
            if not isinstance(value, (cst.List, cst.Tuple)):
                return set()
            params = [p.name.value for p in named_params(node.params, keyword_only=False)]
            if params and params[0] == "self":
                params = params[1:]
            out = set()
            for param, element in zip(params, value.elements):
                spec = element.value
                if isinstance(spec, cst.Call):
                    q = scope.qualify(spec.func) or ""
                    if q.startswith("tensorflow.") and q.endswith("Spec"):
                        out.add(param)
            return out
    return set()
