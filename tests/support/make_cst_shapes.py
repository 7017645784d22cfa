"""Regenerate the stored hypothesmith samples of ``tests/engine/test_fuzz.py``:

* ``tests/data/cst_shapes.json``: modules built from LibCST's node types, for
  ``test_arbitrary_cst_shapes_every_codemod_runs``;
* ``tests/data/python_programs.json``: modules built from Python's grammar, for
  ``test_arbitrary_python_with_prefilter`` and ``test_arbitrary_python_every_codemod_runs``.

Building them costs seconds per run (most drafts are rejected), and the tests drew the same
fixed sample on every run anyway (``derandomize=True``), so the samples are stored.
Run ``python -m tests.support.make_cst_shapes [SHAPES [PROGRAMS]]`` from the checkout (defaults
150 and 80; the stored 91 distinct shapes came from such a draw) after upgrading hypothesmith or
LibCST, or to draw more: the draw depends on their versions and on this file's code, so a new
one differs.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import hypothesmith
import libcst as cst
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.engine.test_fuzz import libcst_parses

DATA = Path(__file__).resolve().parents[1] / "data"
OUT = DATA / "cst_shapes.json"
PROGRAMS = DATA / "python_programs.json"


def draw(strategy: st.SearchStrategy[str], count: int) -> list[str]:
    """The distinct modules of a derandomized draw of ``count`` examples, in drawing order."""
    drawn: list[str] = []

    @settings(max_examples=count, deadline=None, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
    @given(strategy.filter(libcst_parses))
    def collect(source: str) -> None:
        if source not in drawn:
            drawn.append(source)

    collect()
    return drawn


def write(path: Path, modules: list[str]) -> None:
    path.write_text(json.dumps(modules, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{len(modules)} modules -> {path}")


def main(shapes: int = 150, programs: int = 80) -> int:
    write(OUT, draw(hypothesmith.from_node(cst.Module), shapes))
    write(PROGRAMS, draw(hypothesmith.from_grammar(), programs))
    return 0


if __name__ == "__main__":
    sys.exit(main(*(int(a) for a in sys.argv[1:])))
