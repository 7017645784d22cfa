"""Small reads of a LibCST tree that several codemods and analyses share.

* :func:`parent_map` - each node's parent, keyed by ``id(node)`` (LibCST nodes hold
  no parent link; metadata's ``ParentNodeProvider`` needs a wrapper and a copy);
* :func:`target_names` - the plain names an assignment or loop target binds
  (``a``, ``a, (b, *c)``); attributes and subscripts bind no name;
* :func:`node_ids` - the ids of a node and every node under it.
"""

from __future__ import annotations

import libcst as cst


def parent_map(root: cst.CSTNode) -> dict[int, cst.CSTNode]:
    """``{id(node): parent}`` for every node under ``root`` (``root`` itself has none)."""
    parents: dict[int, cst.CSTNode] = {}

    class _V(cst.CSTVisitor):
        def __init__(self) -> None:
            self.stack: list[cst.CSTNode] = []

        def on_visit(self, node: cst.CSTNode) -> bool:
            if self.stack:
                parents[id(node)] = self.stack[-1]
            self.stack.append(node)
            return True

        def on_leave(self, original_node: cst.CSTNode) -> None:
            self.stack.pop()

    root.visit(_V())
    return parents


def target_names(target: cst.BaseExpression) -> list[str]:
    """The names ``target`` binds, in order: ``a`` → ``[a]``, ``a, (b, *c)`` → ``[a, b, c]``."""
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [name for element in target.elements for name in target_names(element.value)]
    if isinstance(target, cst.StarredElement):
        return target_names(target.value)
    return []


def node_ids(node: cst.CSTNode | None) -> set[int]:
    """``{id(n)}`` of ``node`` and every node under it (empty for None)."""
    found: set[int] = set()
    if node is None:
        return found

    class _V(cst.CSTVisitor):
        def on_visit(self, n: cst.CSTNode) -> bool:
            found.add(id(n))
            return True

    node.visit(_V())
    return found
