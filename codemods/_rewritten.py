"""Which tf.functions a codemod of this run rewrote the body of.

RTF008 (static-to-dynamic-shape) and RTF007 (list-loop-to-tensor-array) change
what a tf.function's body does with its inputs, so that a signature with
``None`` dimensions (RTF003) or ``reduce_retracing`` (RTF004) fits it.  The
traces - and the proofs recorded with them - describe the body before that
change: a proof that traced says nothing about the new body, and one that
failed may have failed on what was rewritten.  RTF003 and RTF004 then offer
their fix as an unsafe one (:attr:`retrace_fix.traces.generalize.SourceInfo.rewritten`),
until the program is recorded again.

The facts live in the codemod context's scratch space, keyed by the
function's qualified name (the name traces use; it survives the edits): they
belong to one engine run.  Run as separate ``python -m libcst.tool codemod``
commands, each codemod is its own run, and RTF003 then judges the new body by
the old body's proofs (re-record between the two).
"""

from __future__ import annotations

_KEY = "retrace_fix.rewritten_bodies"


def mark_rewritten(scratch: dict, qualname: str, code: str) -> None:
    """Record that ``code`` rewrote the body of the tf.function ``qualname`` in this run."""
    scratch.setdefault(_KEY, {}).setdefault(qualname, code)


def rewritten_by(scratch: dict, qualname: str) -> str | None:
    """The code that rewrote the body of ``qualname`` in this run, or None."""
    return scratch.get(_KEY, {}).get(qualname)


def rewrite_reason(code: str) -> str:
    """The unsafe reason of a trace-driven fix on a body ``code`` rewrote."""
    return (f"{code} rewrote its body in this run, after the traces and their proofs were recorded: "
            "re-record to prove the signature")
