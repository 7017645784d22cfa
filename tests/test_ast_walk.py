"""retrace_fix.ast_walk.walk visits exactly the nodes ast.walk does, less the ctx singletons."""

from __future__ import annotations

import ast
from pathlib import Path

from retrace_fix.ast_walk import outermost_loops, push_children, walk

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted([*ROOT.glob("retrace_fix/*.py"), *ROOT.glob("codemods/*.py"), *ROOT.glob("golden/*/*/input.py")])


def test_same_nodes_as_ast_walk():
    for path in SOURCES:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        expected = [n for n in ast.walk(tree) if not isinstance(n, ast.expr_context)]
        found = list(walk(tree))
        assert len(found) == len(expected) and {id(n) for n in found} == {id(n) for n in expected}, path


def test_push_children_matches_iter_child_nodes():
    tree = ast.parse("def f(a, *b, c=1, **d):\n    return [x for x in a if x] + g(*b, k=c)\n")
    for node in ast.walk(tree):
        children: list = []
        push_children(node, children)
        assert [id(c) for c in children] == [id(c) for c in ast.iter_child_nodes(node)
                                             if not isinstance(c, ast.expr_context)]


def test_outermost_loops_hold_every_loop():
    tree = ast.parse(
        "for a in x:\n    while a:\n        pass\n"
        "def f():\n    for b in y:\n        for c in b:\n            pass\n"
        "async def g():\n    async for d in z:\n        while d:\n            pass\n"
        "if x:\n    while True:\n        def h():\n            for e in w:\n                pass\n"
    )
    loops = list(outermost_loops(tree))
    assert sorted(loop.lineno for loop in loops) == [1, 5, 10, 13]  # the async for is no For
    every = {id(n) for n in ast.walk(tree) if isinstance(n, (ast.For, ast.While))}
    assert every == {id(n) for loop in loops for n in walk(loop) if isinstance(n, (ast.For, ast.While))}
