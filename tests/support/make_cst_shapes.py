"""Regenerate ``tests/data/cst_shapes.json``: the modules hypothesmith builds from LibCST's node
types, for ``tests/engine/test_fuzz.py::test_arbitrary_cst_shapes_every_codemod_runs``.

Building them costs about five seconds per run (most drafts are rejected), and the test drew
the same fixed sample on every run anyway (``derandomize=True``), so the sample is stored.
Run ``python -m tests.support.make_cst_shapes [EXAMPLES]`` from the checkout (default 150; the stored 91
distinct modules came from such a draw) after upgrading hypothesmith or LibCST, or to draw more: the
draw depends on their versions and on this file's code, so a new one differs.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import hypothesmith
import libcst as cst
from hypothesis import HealthCheck, given, settings

from tests.engine.test_fuzz import libcst_parses

OUT = Path(__file__).resolve().parents[1] / "data" / "cst_shapes.json"


def main(count: int = 150) -> int:
    drawn: list[str] = []

    @settings(max_examples=count, deadline=None, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
    @given(hypothesmith.from_node(cst.Module).filter(libcst_parses))
    def collect(source: str) -> None:
        if source not in drawn:
            drawn.append(source)

    collect()
    OUT.write_text(json.dumps(drawn, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{len(drawn)} modules -> {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main(*(int(a) for a in sys.argv[1:])))
