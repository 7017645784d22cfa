"""retrace_fix.ast_walk.walk visits exactly the nodes ast.walk does, less the ctx singletons; its
TreeIndex gives back what walks of the tree and of its statements would."""

from __future__ import annotations

import ast
from pathlib import Path

from retrace_fix.ast_walk import TreeIndex, outermost_loops, push_children, walk

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
    loops = TreeIndex(tree).outermost_loops()
    assert [loop.lineno for loop in loops] == [13, 10, 5, 1]  # walk order; the async for is no For
    assert [id(loop) for loop in outermost_loops(tree)] == [id(loop) for loop in loops]
    every = {id(n) for n in ast.walk(tree) if isinstance(n, (ast.For, ast.While))}
    assert every == {id(n) for loop in loops for n in walk(loop) if isinstance(n, (ast.For, ast.While))}


def test_tree_index_is_the_walk_of_the_tree_and_of_each_statement():
    for path in SOURCES:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        index = TreeIndex(tree)
        walked = list(walk(tree))
        assert [id(n) for n in index.nodes] == [id(n) for n in walked], path
        assert [id(n) for n in index.subtree(tree)] == [id(n) for n in walked], path
        for kind in {type(n) for n in walked}:
            assert [id(n) for n in index.of_type(kind)] == [id(n) for n in walked if type(n) is kind], (path, kind)
        assert index.of_type(ast.Lambda, ast.Call) == [*index.of_type(ast.Lambda), *index.of_type(ast.Call)]
        for node in walked:
            if isinstance(node, (ast.stmt, ast.expr)):  # a statement's is a slice, an expression's a walk
                assert [id(n) for n in index.subtree(node)] == [id(n) for n in walk(node)], (path, node.lineno)
        # the loops no loop holds, read from a walk of each loop
        held = {id(n) for loop in walked if isinstance(loop, (ast.For, ast.While)) for n in list(walk(loop))[1:]}
        outermost = [n for n in walked if isinstance(n, (ast.For, ast.While)) and id(n) not in held]
        assert [id(n) for n in index.outermost_loops()] == [id(n) for n in outermost], path


def test_tree_index_of_an_empty_module_and_missing_kinds():
    index = TreeIndex(ast.parse(""))
    assert len(index.nodes) == 1 and index.of_type(ast.Call) == [] and index.outermost_loops() == []
    assert index.of_type(ast.Module) == [index.root] and index.subtree(index.root) == index.nodes


def test_statements_around_a_node_are_its_statement_ancestors():
    tree = ast.parse(
        "class A:\n    def f(self):\n        while x:\n            for a in b:\n                m.predict(a)\n"
        "        else:\n            pass\n"
        "    @d(k.g())\n    def h(self):\n        return [m.predict(y) for y in z]\n"
        "n.fit(x)\n"
    )
    index = TreeIndex(tree)
    parents = {id(child): node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    expected: dict[int, list[int]] = {}
    for node in index.nodes[1:]:
        ancestors, up = [], parents[id(node)]
        while up is not tree:
            if isinstance(up, ast.stmt):
                ancestors.append(up)
            up = parents[id(up)]
        assert [id(s) for s in index.statements_around(node)] == [id(s) for s in reversed(ancestors)]
        expected[id(node)] = [id(s) for s in reversed(ancestors)]
        assert index.nodes[index.position(node)] is node
        if isinstance(node, ast.stmt):
            start, end = index.span(node)
            assert [id(n) for n in index.nodes[start:end]] == [id(n) for n in walk(node)]

    # every node at once, in one pass: the same statements, and each node's position
    for kind in (None, ast.Call, ast.Name):
        targets = index.nodes[1:] if kind is None else index.of_type(kind)
        found = list(index.statements_around_each(targets))
        assert [id(node) for node, _, _ in found] == [id(node) for node in targets]
        for node, at, around in found:
            assert index.nodes[at] is node and [id(s) for s in around] == expected[id(node)]
