"""``ast.walk`` about three times faster, for the prefilter's reads of CPython's tree.

:func:`walk` yields every node under a root (the root included) depth first,
without the ``ctx`` singletons (``Load``/``Store``/``Del``: a ``Name`` still has
its ``ctx`` attribute).  ``ast.walk`` goes through ``iter_child_nodes`` and
``iter_fields``, two generators per node; this reads each node class's child
fields once.  The order differs from ``ast.walk`` (depth first, children last
to first): callers collect sets and flags, never sequences.
"""

from __future__ import annotations

import ast
from typing import Iterator

_AST = ast.AST
_FIELDS: dict[type, tuple[str, ...]] = {}


def child_fields(cls: type) -> tuple[str, ...]:
    """The fields of an ``ast`` node class that can hold nodes (``ctx`` left out)."""
    fields = _FIELDS.get(cls)
    if fields is None:
        fields = _FIELDS[cls] = tuple(name for name in cls._fields if name != "ctx")
    return fields


def push_children(node: ast.AST, stack: list) -> None:
    """Append the child nodes of ``node`` to ``stack``."""
    for name in _FIELDS.get(type(node)) or child_fields(type(node)):
        value = getattr(node, name, None)
        if type(value) is list:
            for item in value:
                if isinstance(item, _AST):
                    stack.append(item)
        elif isinstance(value, _AST):
            stack.append(value)


def outermost_loops(root: ast.AST) -> Iterator[ast.AST]:
    """The ``for`` and ``while`` statements under ``root`` that no other one holds (their
    subtrees hold every loop under ``root``; a loop in a def in a loop is held)."""
    stack = [root]
    while stack:
        node = stack.pop()
        if type(node) is ast.For or type(node) is ast.While:
            yield node
        else:
            push_children(node, stack)


def walk(root: ast.AST) -> Iterator[ast.AST]:
    """Every node under ``root``, ``root`` first (depth first, ``ctx`` nodes left out)."""
    stack = [root]
    pop, push, fields_of = stack.pop, stack.append, _FIELDS.get
    while stack:
        node = pop()
        yield node
        for name in fields_of(type(node)) or child_fields(type(node)):
            value = getattr(node, name, None)
            if type(value) is list:
                for item in value:
                    if isinstance(item, _AST):
                        push(item)
            elif isinstance(value, _AST):
                push(value)
