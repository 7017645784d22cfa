"""Which candidate fixes pass together: all at once, then by halves down to one.

``test(kept, trial, proof)`` runs the program with the units ``kept`` so far
and the units on ``trial`` applied (``proof``: the verdict of the run that
proved the kept ones, None before any) and returns a
:class:`~retrace_fix.verify.judge.Verdict`.  The search keeps a
growing set of accepted units:

* all remaining units are tried at once; if they pass, they are all kept;
* otherwise they are split in halves, and each half is searched the same way
  on top of what was kept meanwhile, down to single units: a single unit that
  fails is rejected with its run's reason (exception, output difference,
  trace count).

With ``k`` failing units among ``n`` this takes about ``1 + 2k·log2(n)`` runs
(one run when everything passes); ``budget`` caps it, and units no run could
judge are returned as untested.  Every kept set was run as a whole: the
verdict of the last passing run proves the final set.  Pure (no I/O): the
runs are ``test``'s business.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Generic, Sequence, TypeVar

from retrace_fix.verify.judge import Verdict

U = TypeVar("U")


@dataclass
class SearchResult(Generic[U]):
    accepted: list[U] = field(default_factory=list)
    rejected: list[tuple[U, Verdict]] = field(default_factory=list)
    untested: list[U] = field(default_factory=list)
    runs: int = 0
    #: the verdict of the run that proved ``accepted`` as a whole (None: nothing accepted)
    proof: Verdict | None = None
    #: per accepted unit, the verdict of the run that kept it
    kept_by: dict[int, Verdict] = field(default_factory=dict)


def search(units: Sequence[U], test: Callable[[list[U], list[U], Verdict | None], Verdict], budget: int) -> SearchResult[U]:
    """Keep the units that pass on top of each other; at most ``budget`` calls of ``test``."""
    result: SearchResult[U] = SearchResult()

    def visit(group: list[U]) -> None:
        if not group:
            return
        if result.runs >= budget:
            result.untested.extend(group)
            return
        result.runs += 1
        verdict = test(list(result.accepted), group, result.proof)
        if verdict.passed:
            result.accepted.extend(group)
            result.proof = verdict
            for unit in group:
                result.kept_by[id(unit)] = verdict
            return
        if len(group) == 1:
            result.rejected.append((group[0], verdict))
            return
        middle = len(group) // 2
        visit(group[:middle])
        visit(group[middle:])

    visit(list(units))
    return result
