"""retrace-fix codemods: one module per codemod, registered here by code.

Every class is a LibCST ``VisitorBasedCodemodCommand``; with the repository's
``.libcst.codemod.yaml`` they also run as, e.g.::

    python -m libcst.tool codemod predict_to_call.PredictToCallCommand src/

The order of :data:`REGISTRY` is the order the engine applies them in.
"""

from __future__ import annotations

import inspect
import sys

from codemods._base import CodemodSettings, RetraceCodemod
from codemods.input_signature import InputSignatureCommand
from codemods.diagnostics_calls import CallSiteDiagnosticsCommand
from codemods.diagnostics_graph import GraphDiagnosticsCommand
from codemods.predict_to_call import PredictToCallCommand
from codemods.range_to_tf_range import RangeToTfRangeCommand
from codemods.reduce_retracing import ReduceRetracingCommand

REGISTRY: list[type[RetraceCodemod]] = [
    PredictToCallCommand,
    InputSignatureCommand,
    RangeToTfRangeCommand,
    ReduceRetracingCommand,
    GraphDiagnosticsCommand,
    CallSiteDiagnosticsCommand,
]

# RTF002 also reports Keras predict calls outside any tf.function (its unsafe
# form): its TRIGGERS alone decide whether a file is worth parsing.
PredictToCallCommand.REQUIRES_TF_FUNCTION = False


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


__all__ = ["REGISTRY", "CodemodSettings", "RetraceCodemod", "by_code", "all_codes", "documentation"]
