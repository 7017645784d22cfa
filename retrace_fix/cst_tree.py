"""Small reads of a LibCST tree that several codemods and analyses share.

* :func:`parent_map` - each node's parent, keyed by ``id(node)`` (LibCST nodes hold
  no parent link; metadata's ``ParentNodeProvider`` needs a wrapper and a copy);
* :func:`target_names` - the plain names an assignment or loop target binds
  (``a``, ``a, (b, *c)``); attributes and subscripts bind no name;
* :func:`node_ids` - the ids of a node and every node under it;
* :func:`find_nodes` - the nodes under a node that match a test, in source order;
* :func:`method_call_on` - is a node ``name.method(...)`` for one of some methods;
* :func:`stored_targets` - what an assignment stores to (``a``, ``b.c``, ``d[0]``);
* :func:`module_code` - a module's code, statement by statement, remembered
  (:func:`statement_codes`) for the module generated last.
"""

from __future__ import annotations

from typing import Callable, Collection

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


def find_nodes(root: cst.CSTNode, match: Callable[[cst.CSTNode], bool], skip: tuple[type, ...] = ()) -> list:
    """Every node under ``root`` (``root`` included) for which ``match`` is true, in source order;
    a node of a type in ``skip`` (other than ``root``) is neither tested nor entered."""
    found: list = []

    class _V(cst.CSTVisitor):
        def on_visit(self, node: cst.CSTNode) -> bool:
            if skip and node is not root and isinstance(node, skip):
                return False
            if match(node):
                found.append(node)
            return True

    root.visit(_V())
    return found


def method_call_on(node: cst.CSTNode, name: str, methods: Collection[str]) -> bool:
    """Is ``node`` a call ``name.m(...)`` with ``m`` in ``methods``?"""
    if not isinstance(node, cst.Call):
        return False
    func = node.func
    return (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name)
            and func.value.value == name and func.attr.value in methods)


def stored_targets(node: cst.CSTNode) -> list[cst.BaseExpression]:
    """What an ``Assign``, ``AssignTarget``, ``AugAssign`` or ``AnnAssign`` stores to, tuples and lists
    taken apart (``a, (b.c, *d[0]) = ...`` → ``a``, ``b.c``, ``d[0]``); nothing for other nodes."""
    if isinstance(node, cst.Assign):
        targets = [t.target for t in node.targets]
    elif isinstance(node, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign)):
        targets = [node.target]
    else:
        return []
    out: list[cst.BaseExpression] = []
    while targets:
        target = targets.pop(0)
        if isinstance(target, (cst.Tuple, cst.List)):
            targets[:0] = [element.value for element in target.elements]
        else:
            out.append(target)
    return out


#: (the module :func:`module_code` generated last, ``{id(top-level node): its code}``)
_LAST_CODES: list = [None, None]


def module_code(module: cst.Module) -> str:
    """``module.code``, generated one top-level node (header line, statement, footer line) at a
    time, as LibCST's module does (each from no indentation); the pieces of the module generated
    last are kept for :func:`statement_codes`.  A module without a final newline, or with no
    node, is generated whole (LibCST drops or adds a newline there)."""
    nodes = (*module.header, *module.body, *module.footer)
    if not module.has_trailing_newline or not nodes:
        return module.code
    codes = {id(node): module.code_for_node(node) for node in nodes}
    _LAST_CODES[:] = [module, codes]
    return "".join(codes[id(node)] for node in nodes)


def statement_codes(module: cst.Module) -> dict[int, str] | None:
    """The code of each top-level node of ``module`` by ``id`` when :func:`module_code` generated
    it last, else None."""
    return _LAST_CODES[1] if _LAST_CODES[0] is module else None
