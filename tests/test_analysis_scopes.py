"""``analysis.resolve_whole_module`` gives LibCST's scopes: for every node of the tree that is
not below a token field, the same scope, with the same assignments, accesses and references
(``wrapper.resolve(ScopeProvider)``, LibCST's own walk, is the reference), on every golden
input and on this project's own larger modules."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import ExpressionContextProvider, MetadataWrapper, ScopeProvider

from retrace_fix import fastvisit
from retrace_fix.analysis import resolve_whole_module
from retrace_fix.fastvisit import push_children

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted((ROOT / "golden").glob("*/*/input.py")) + [
    ROOT / "codemods" / "_hoist_decider.py",  # nested defs, classes, comprehensions, lambdas
    ROOT / "codemods" / "_callsites.py",  # string annotations (parsed into nodes of their own)
    ROOT / "retrace_fix" / "fastvisit.py",
]


def _described(scopes, tree_ids: dict[int, int]):
    """Each scope (by the node it belongs to) with its assignments, accesses and references,
    nodes named by their place in the tree (nodes the provider made itself by their type)."""
    def name(thing) -> str:
        node = getattr(thing, "node", None)
        if node is None:
            return f"{type(thing).__name__}:{getattr(thing, 'name', '')}"
        return str(tree_ids.get(id(node), type(node).__name__))

    described = {}
    for scope in {id(s): s for s in scopes.values() if s is not None}.values():
        accesses = sorted((name(a), tuple(sorted(name(r) for r in a.referents))) for a in scope.accesses)
        assignments = sorted(
            (key, name(a), tuple(sorted(name(r) for r in a.references)))
            for key, found in scope._assignments.items() for a in found
        )
        described[id(scope)] = (type(scope).__name__, name(scope), accesses, assignments)
    return described


@pytest.mark.parametrize("path", SOURCES, ids=[str(p.relative_to(ROOT)) for p in SOURCES])
def test_scopes_are_libcsts(path: Path) -> None:
    module = cst.parse_module(path.read_text(encoding="utf-8"))
    expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(ScopeProvider)
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    with fastvisit.installed():  # as the engine runs it: the walk skips the token fields
        actual = resolve_whole_module(wrapper, ScopeProvider)
    assert len(actual) < len(expected)  # the tokens were skipped
    assert wrapper.resolve(ScopeProvider) is actual  # stored where LibCST keeps it
    assert ExpressionContextProvider in wrapper._metadata

    tree: list[cst.CSTNode] = []  # every node outside token fields
    stack: list = [module]
    while stack:
        node = stack.pop()
        tree.append(node)
        push_children(node, stack)
    tree_ids = {id(node): index for index, node in enumerate(tree)}
    assert len(tree) > 10
    expected_scopes, actual_scopes = _described(expected, tree_ids), _described(actual, tree_ids)
    for node in tree:
        want, got = expected.get(node), actual.get(node)
        assert (want is None) == (got is None), node
        if want is not None:
            assert expected_scopes[id(want)] == actual_scopes[id(got)], type(node).__name__
    assert sorted(expected_scopes.values()) == sorted(actual_scopes.values())


def test_the_fast_scope_walk_is_taken_only_for_the_known_libcst_hook(monkeypatch) -> None:
    """This LibCST's ``ScopeProvider.visit_Module`` is the three lines the fast walk copies; where
    it is not (another LibCST), the hook runs as it is: every node, tokens included, LibCST's."""
    import retrace_fix.analysis as analysis

    assert analysis._scope_hook_is_known()
    module = cst.parse_module(SOURCES[0].read_text(encoding="utf-8"))
    expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(ScopeProvider)
    monkeypatch.setattr(analysis, "_scope_hook_is_known", lambda: False)
    with fastvisit.installed():
        actual = resolve_whole_module(MetadataWrapper(module, unsafe_skip_copy=True), ScopeProvider)
    assert len(actual) == len(expected)  # tokens too: LibCST's own walk
    assert set(map(id, actual)) == set(map(id, expected))
