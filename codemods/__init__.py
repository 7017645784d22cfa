"""retrace-fix codemods (``retrace_fix.codemods``): one module per codemod, registered here by code.

The folder is ``codemods/`` at the top of the repository, installed as the
``retrace_fix.codemods`` package.  Every class is a LibCST
``VisitorBasedCodemodCommand``; with the repository's ``.libcst.codemod.yaml``
(``modules: ['retrace_fix.codemods']``) they also run as, e.g.::

    python -m libcst.tool codemod predict_to_call.PredictToCallCommand src/

The order of :data:`REGISTRY` is the order the engine applies them in.  The
command classes are reached through their modules (not bound here), so that
``python -m libcst.tool list`` names each by its own module.
"""

from __future__ import annotations

import inspect
import sys

from typing import TYPE_CHECKING

from retrace_fix.codemods import (
    diagnostics_calls,
    diagnostics_graph,
    input_signature,
    predict_to_call,
    range_to_tf_range,
    reduce_retracing,
)

if TYPE_CHECKING:  # pragma: no cover
    from retrace_fix.codemods._base import RetraceCodemod

REGISTRY: list[type[RetraceCodemod]] = [
    predict_to_call.PredictToCallCommand,
    input_signature.InputSignatureCommand,
    range_to_tf_range.RangeToTfRangeCommand,
    reduce_retracing.ReduceRetracingCommand,
    diagnostics_graph.GraphDiagnosticsCommand,
    diagnostics_calls.CallSiteDiagnosticsCommand,
]

# RTF002 also reports Keras predict calls outside any tf.function (its unsafe
# form): its TRIGGERS alone decide whether a file is worth parsing.
predict_to_call.PredictToCallCommand.REQUIRES_TF_FUNCTION = False


def by_code() -> dict[str, type[RetraceCodemod]]:
    return {cls.CODE: cls for cls in sorted(REGISTRY, key=lambda c: c.CODE)}


def all_codes() -> dict[str, type[RetraceCodemod]]:
    """Every code a codemod can emit (diagnostic codes included) → the codemod emitting it."""
    codes: dict[str, type[RetraceCodemod]] = {}
    for cls in REGISTRY:
        codes[cls.CODE] = cls
        for extra in getattr(cls, "EXTRA_CODES", {}):
            codes[extra] = cls
    return dict(sorted(codes.items()))


def documentation(code: str) -> str | None:
    """The *What it does / Why it retraces / Example / Fix safety* page of a code."""
    code = code.upper()
    cls = all_codes().get(code)
    if cls is None:
        return None
    extra = getattr(cls, "EXTRA_CODES", {}).get(code)
    if extra is not None:
        return inspect.cleandoc(extra["doc"])
    return inspect.cleandoc(sys.modules[cls.__module__].__doc__ or "")


__all__ = ["REGISTRY", "by_code", "all_codes", "documentation"]
