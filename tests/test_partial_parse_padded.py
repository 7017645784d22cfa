"""Partial parsing on every golden case padded with defs and classes built to collide with its
names (a def shadowing a name it uses, a method or class attribute of that name, a caller in a
loop, a ``global``): the same findings, fixed text and errors with partial parsing on and off.

The helpers and the unpadded cases are in ``tests/test_partial_parse.py``; the padded cases
are a module of their own, the suite's largest, so that pytest-xdist's ``--dist loadfile``
can give the two halves to different workers.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

from tests.support.golden import GoldenCase, discover_cases
from retrace_fix.engine.options import RunOptions
from tests.test_partial_parse import (
    assert_same_either_way,
    option_sets,
    partial_outcome,
    pruned,
    trees_shared,
    with_plans,
)

CASES = discover_cases()


def colliding_blocks(source: str) -> list[str]:
    """Defs and classes that collide with the names of ``source``: each one must stay
    exactly when the analyses would see it."""
    tree = ast.parse(source)
    names = sorted({n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} - {"self", "cls"})[:12]
    functions = sorted({n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))})
    blocks = []
    for index, name in enumerate(names):
        blocks.append(f"def _pad_global_{index}():\n    global {name}\n    {name} = 2\n")
        blocks.append(f"class _PadAttr{index}:\n    {name} = 1\n\n    def other(self):\n        return 0\n")
        blocks.append(f"class _PadMethod{index}:\n    def {name}(self):\n        return 1\n")
    for index, name in enumerate(functions):
        blocks.append(f"def _pad_caller_{index}():\n    for _k in range(3):\n        {name}(_k)\n")
        blocks.append(f"class _PadSame{index}:\n    def {name}(self, x):\n        return x\n")
        blocks.append(f"def _pad_nested_{index}():\n    def {name}(x):\n        return x\n    return {name}\n")
    return blocks


UNRELATED_BLOCKS = ["def _pad_unrelated(a, b):\n    return a + b\n", "class _PadUnrelated:\n    def m(self):\n        return 1\n"]


@functools.lru_cache(maxsize=None)
def padded_variants(source: str) -> tuple[str, str, str]:
    """``source`` with every colliding block added once: half of them after the imports (before
    the module-level code), the other half at the end; and with a def that shadows nothing
    added after the imports."""
    blocks = colliding_blocks(source)
    early = "\n\n".join([*UNRELATED_BLOCKS, *blocks[0::2]])
    late = "\n\n".join([*UNRELATED_BLOCKS, *blocks[1::2]])
    lines = source.splitlines(keepends=True)
    tree = ast.parse(source)
    after_imports = 0
    for statement in tree.body:
        if not isinstance(statement, (ast.Import, ast.ImportFrom)):
            break
        after_imports = statement.end_lineno or after_imports
    head, tail = "".join(lines[:after_imports]), "".join(lines[after_imports:])
    shadowing = "def _pad_first():\n    return 0\n"
    return head + early + "\n\n" + tail, source.rstrip("\n") + "\n\n\n" + late, head + shadowing + tail


#: padded_run's results: {(case id, variant, options): (the options with RTF005's plan, partial_outcome)}
_PADDED: dict[tuple[str, int, int], tuple[RunOptions, object]] = {}


def padded_run(case: GoldenCase, variant: int, options: int, tmp_path: Path) -> tuple[RunOptions, object | None]:
    """:func:`partial_outcome` of ``padded_variants(input.py)[variant]`` with ``option_sets(case)[options]``
    (and RTF005's plan of that text, made once: :func:`with_plans`), run once per process (the padded
    cases and the check that they compare partial results share it)."""
    key = (case.id, variant, options)
    if key not in _PADDED:
        source = padded_variants((case.directory / "input.py").read_text(encoding="utf-8"))[variant]
        planned = with_plans(source, option_sets(case)[options], tmp_path)
        _PADDED[key] = planned, partial_outcome(source, planned, tmp_path)
    return _PADDED[key]


def padded_partial_outcome(case: GoldenCase, variant: int, options: int, tmp_path: Path) -> object | None:
    return padded_run(case, variant, options, tmp_path)[1]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_padded_golden_cases_same_either_way(case: GoldenCase, tmp_path):
    source = (case.directory / "input.py").read_text(encoding="utf-8")
    for index, variant in enumerate(padded_variants(source)):
        with trees_shared():  # the runs of one text share its parse
            for number in range(len(option_sets(case))):
                planned, partial = padded_run(case, index, number, tmp_path)
                if partial is not None:
                    assert_same_either_way(variant, planned, tmp_path, partial)


def test_reports_from_a_partial_parse_are_compared(tmp_path):
    """The shortcut above skips only whole-module results: a third of the padded cases
    report from a partial parse, and those are compared (here, the cases of one codemod)."""
    cases = [case for case in CASES if case.codemod_name == "call-site-diagnostics"]
    compared = [case.id for case in cases
                if padded_partial_outcome(case, 1, 0, tmp_path) is not None]
    assert len(compared) >= len(cases) // 2, compared


def test_padding_is_pruned():
    """The padded cases test something: most of them are partly pruned."""
    pruned_cases = 0
    for case in CASES:
        source = (case.directory / "input.py").read_text(encoding="utf-8")
        variant = padded_variants(source)[1]
        if pruned(variant) is not None:
            pruned_cases += 1
    assert pruned_cases >= 0.8 * len(CASES)
