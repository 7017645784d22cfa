"""``--shard K/N``: only the K-th of N slices of the roots, for CI matrices without a cluster.

The roots (distinct root directories and git URLs, in argument order) are dealt
round-robin: the root at position ``i`` (from 0) belongs to shard ``i % N + 1``.
The slice depends only on the list, never on the machine or the file system's
contents, so N jobs given the same list cover every root exactly once; roots
keep the patch names the whole run gives them, so the N shards' patches and
summary rows together are exactly those of one run over the whole list.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Sequence, TypeVar

from retrace_fix.bulk.roots import group_roots

if TYPE_CHECKING:  # pragma: no cover
    from retrace_fix.fix_request import FixRequest

T = TypeVar("T")


@dataclass(frozen=True)
class Shard:
    index: int  # 1-based
    count: int

    @classmethod
    def parse(cls, text: str) -> "Shard":
        """``K/N`` with ``1 <= K <= N``; raises ValueError with a one-line message."""
        match = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", text)
        if not match:
            raise ValueError(f"--shard {text}: expected K/N, e.g. 1/4")
        index, count = int(match.group(1)), int(match.group(2))
        if count < 1 or not 1 <= index <= count:
            raise ValueError(f"--shard {text}: K must be between 1 and N")
        return cls(index, count)

    def select(self, items: Sequence[T]) -> list[T]:
        return [item for position, item in enumerate(items) if position % self.count == self.index - 1]

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def narrow(request: "FixRequest", shard: Shard) -> "FixRequest":
    """The request for this shard's roots only; ``all_paths`` keeps the whole list (for names)."""
    kept = {raw for root in shard.select(group_roots(request.paths)) for raw in root.paths}
    return replace(request, paths=[raw for raw in request.paths if raw in kept], all_paths=list(request.paths))


__all__ = ["Shard", "narrow"]
