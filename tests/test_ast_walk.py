"""retrace_fix.ast_walk.walk visits exactly the nodes ast.walk does, less the ctx singletons."""

from __future__ import annotations

import ast
from pathlib import Path

from retrace_fix.ast_walk import push_children, walk

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
