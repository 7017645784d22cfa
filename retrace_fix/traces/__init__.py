"""Traces: the recorder, the portable trace file, merging and the report.

Recording: ``recorder`` (the Recorder), ``tf_patching`` (the hooks in TF's
Function class), ``import_hook``, ``function_stats``, ``trace_encoding``,
``frames``, ``process_recorder`` (the recorder of each process ``record``
starts), ``per_process`` (recording other processes, merging their files),
``context`` (``record_traces``), ``pytest_plugin``, ``cells``.  The file:
``model``, ``json_limits``, ``project``.  The recorded command: ``supervise``,
``reaper``.  Fixes from traces: ``summaries``, ``signature_candidates``,
``prover``, ``generalize``.  The report: ``retrace_report``, ``plot``.

Importing this package is cheap and never imports TensorFlow; the recorder
patches TensorFlow only once TensorFlow itself is imported.  ``record_traces``
(public API) is re-exported lazily from :mod:`retrace_fix.traces.context`: no
module of the package is imported with it.
"""

from __future__ import annotations

from typing import Any

__all__ = ["record_traces"]


def __getattr__(name: str) -> Any:
    if name == "record_traces":
        from retrace_fix.traces.context import record_traces

        return record_traces
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
