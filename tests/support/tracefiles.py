"""Hand-written trace files with the proofs a recording would store (pure Python, no TensorFlow).

A trace-driven fix is safe only with a proof: the recorder trial-traced the
exact candidate on the live function.  Tests that write trace files by hand
add those proofs with :func:`with_proofs`, as if every trial had traced (or
failed), using the same candidate search as the recorder and the fixer.
"""

from __future__ import annotations

from typing import Iterable

from retrace_fix.traces.signature_candidates import search_candidates
from retrace_fix.traces.summaries import ParamInfo
from retrace_fix.traces.model import Proof, TraceSet


def with_proofs(data: dict, result: str = "traced", params: Iterable[ParamInfo] | None = None,
                skip_self: str | None = None) -> dict:
    """``data`` (a trace file's JSON) with a ``result`` proof of every candidate the search asks about.

    ``params``: the parameters as the source spells them (defaults decide what is pinned);
    by default, each recorded parameter without a default.
    """
    trace_set = TraceSet.from_json(data)
    for function in trace_set:
        infos = list(params) if params is not None else [ParamInfo(name) for name in function.params]

        def oracle(candidate, function=function):
            proof = Proof(candidate.fix, result, error=None if result == "traced" else "TypeError: failed in a test")
            function.add_proof(candidate.key, proof)
            return proof

        search_candidates(function, infos, skip_self, oracle)
    out = trace_set.to_json()
    out["tensorflow"] = data.get("tensorflow")
    return out
