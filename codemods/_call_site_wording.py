"""The wording of RTF005's findings: what varied, what to pass at the call sites,
how a conversion is spelled, and what the proof on the live function showed.
"""

from __future__ import annotations

from retrace_fix.codemods._call_site_records import Conversion
from retrace_fix.codemods._finding_text import short_list
from retrace_fix.traces.signature_candidates import FIX_CAST, FIX_SCALAR
from retrace_fix.traces.generalize import _listed
from retrace_fix.wording import a_or_an


def varied_text(accepted: list) -> str:
    """What varied, for the message: "`a`, `b`: Python floats vary; `x`: dtype varies (float64, float32)"."""
    parts: list[str] = []
    by_type: dict[str, list[str]] = {}
    for target in accepted:
        if target.conversion.kind == FIX_SCALAR:
            by_type.setdefault(target.python_type, []).append(target.conversion.param)
    for type_name, params in by_type.items():
        names = ", ".join(f"`{p}`" for p in params)
        parts.append(f"{names}: Python {type_name} varies" if len(params) == 1 else f"{names}: Python {type_name}s vary")
    parts += [t.short for t in accepted if t.conversion.kind == FIX_CAST]
    return short_list(parts)


def params_text(conversions) -> str:
    return _listed(f"`{c.param}`" for c in conversions)


def actions_text(conversions) -> str:
    scalars = [c for c in conversions if c.kind == FIX_SCALAR]
    casts = [c for c in conversions if c.kind == FIX_CAST]
    parts = []
    if scalars:
        dtypes = unique_list(c.dtype for c in scalars)
        if len(dtypes) == 1:
            parts.append(f"pass {params_text(scalars)} as tf.constant(..., dtype=tf.{dtypes[0]})")
        else:
            parts.append("pass " + ", ".join(f"`{c.param}` as a {c.dtype} tensor" for c in scalars))
    if casts:
        parts.append("cast " + ", ".join(f"`{c.param}` to tf.{c.dtype}" for c in casts))
    return " and ".join(parts)


def unique_list(items) -> list:
    out: list = []
    for item in items:
        if item not in out:
            out.append(item)
    return out


def spelled(conversion: Conversion, value: str) -> str:
    if conversion.kind == FIX_SCALAR:
        return f"tf.constant({value}, dtype=tf.{conversion.dtype})"
    return f"tf.cast({value}, tf.{conversion.dtype})"


def proof_wording(name: str, proof, conversions) -> tuple[str, str]:
    what = ", ".join(f"`{c.param}` as {a_or_an(c.dtype)} {c.dtype} tensor" for c in conversions)
    if proof is not None and proof.result == "traced":
        return (
            f"proven on the live function: a fresh tf.function around `{name}` traced with {what} and the other "
            "arguments as recorded", "traced",
        )
    if proof is not None and proof.result == "failed":
        return f"trial-traced on the live function with {what}, it fails: {proof.error}", "failed"
    note = proof.note if proof is not None and proof.note else "not proven on the live function"
    return note, "unproven"
