"""Traces: the recorder, the portable trace file, merging and the report.

Importing this package is cheap and never imports TensorFlow; the recorder
patches TensorFlow only once TensorFlow itself is imported.  ``record_traces``
is re-exported lazily from :mod:`retrace_fix.traces.context`.
"""

from __future__ import annotations

from typing import Any

__all__ = ["record_traces"]


def __getattr__(name: str) -> Any:
    if name == "record_traces":
        from retrace_fix.traces.context import record_traces

        return record_traces
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
