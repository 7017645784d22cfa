"""retrace_fix.fastvisit calls the same visitor methods in the same order as LibCST,
and transformers built on it produce the same code."""

from __future__ import annotations

import functools
from pathlib import Path

import libcst as cst
import pytest

from retrace_fix import fastvisit

GOLDEN = Path(__file__).resolve().parent.parent / "golden"

KITCHEN_SINK = '''\
"""Module docstring."""
from __future__ import annotations
import os, sys as system
from a.b import (c as d, e)
from . import sibling
from .pkg import *

x: int = 1; y = z = (1, 2)
x += 1
del y
async def coroutine(a, /, b=2, *args, c: int = 3, **kwargs) -> None:
    async with open(a) as f, open(b):
        async for item in f:
            await item
    return [i async for i in f if i]

@decorator(arg)
@other
class Thing(Base, metaclass=Meta):
    attribute = lambda self, v=1: v + 1
    def method(self):
        global counter
        nonlocal_value = (yield)
        yield from range(3)
        return {k: v for k, v in self.items() if k}, {s for s in "ab"}, (g for g in ())

def walrus(values):
    if (n := len(values)) > 10 and not values or values[1:2:3]:
        print(f"{n!r:>{width}} {values=}", *values, sep="")
    try:
        pass
    except (ValueError, TypeError) as error:
        raise RuntimeError("x") from error
    else:
        assert values, "message"
    finally:
        pass
    try:
        pass
    except* OSError:
        pass
    while True:
        break
    else:
        continue
    with (open("a") as a, open("b") as b):
        pass
    match values:
        case [1, 2, *rest] if rest:
            pass
        case {"key": value, **others}:
            pass
        case Point(x=0, y=yy) | None:
            pass
        case _:
            pass
    return -x ** 2 @ y // 3 if x is not None else ~x << 1 | 2 & 3 ^ 4

items = [*a, *b]; mapping = {**a, "k": 1}
s = "implicit" "concatenation" r"raw"
t = a[1, 2:3, ...]
'''


class Recorder(cst.CSTVisitor):
    def __init__(self) -> None:
        self.log: list = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.log.append(("visit", type(node).__name__, id(node)))
        return not isinstance(node, cst.Lambda)  # children of lambdas are skipped

    def on_leave(self, original_node: cst.CSTNode) -> None:
        self.log.append(("leave", type(original_node).__name__, id(original_node)))

    def on_visit_attribute(self, node: cst.CSTNode, attribute: str) -> None:
        self.log.append(("attr", id(node), attribute))

    def on_leave_attribute(self, original_node: cst.CSTNode, attribute: str) -> None:
        self.log.append(("/attr", id(original_node), attribute))


class Hooks(cst.CSTVisitor):
    """Typed hooks only (the fast dispatch path), one of them a per-field hook."""

    def __init__(self) -> None:
        self.log: list = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self.log.append(("def", node.name.value))
        return node.name.value != "walrus"  # skip one body

    def visit_Call(self, node: cst.Call) -> None:
        self.log.append(("call", id(node)))

    def leave_Name(self, original_node: cst.Name) -> None:
        self.log.append(("name", original_node.value))


class HooksWithField(Hooks):
    def visit_Arg_value(self, node: cst.Arg) -> None:
        self.log.append(("arg-value", id(node)))


class FieldHooksAndLeave(HooksWithField):
    """Per-field hooks on both sides of a field, one overriding a hook of its base with LibCST's
    no-op stub, and a generic ``on_leave`` (as LibCST's ``ScopeVisitor`` has them)."""

    visit_Call = cst.CSTVisitor.visit_Call  # LibCST's stub: the base's hook is no longer called

    def leave_ClassDef_bases(self, original_node: cst.ClassDef) -> None:
        self.log.append(("bases-done", id(original_node)))

    def on_leave(self, original_node: cst.CSTNode) -> None:
        self.log.append(("leave", type(original_node).__name__))
        super().on_leave(original_node)


class TokenHooks(cst.CSTVisitor):
    """Hooks a token type: token fields must then be walked."""

    def __init__(self) -> None:
        self.log: list = []

    def visit_Comment(self, node: cst.Comment) -> None:
        self.log.append(("comment", node.value))

    def leave_Comma(self, original_node: cst.Comma) -> None:
        self.log.append(("comma", id(original_node)))

    def visit_Name(self, node: cst.Name) -> None:
        self.log.append(("name", node.value))


class CommaSpacer(cst.CSTTransformer):
    """Edits tokens: a transformer with token hooks sees every token field."""

    def __init__(self) -> None:
        self.leaves: list = []

    def leave_Comma(self, original_node, updated_node):
        self.leaves.append("comma")
        return updated_node.with_changes(whitespace_after=cst.SimpleWhitespace("  "))

    def leave_Comment(self, original_node, updated_node):
        self.leaves.append(original_node.value)
        return updated_node.with_changes(value=original_node.value.upper())


class Renamer(cst.CSTTransformer):
    """Edits, removals and flattening, to exercise every LibCST helper's rules."""

    def __init__(self) -> None:
        self.leaves: list = []

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.Name:
        self.leaves.append(original_node.value)
        if original_node.value == "values":
            return updated_node.with_changes(value="vals")
        return updated_node

    def leave_Pass(self, original_node, updated_node):
        return cst.RemoveFromParent()

    def leave_Del(self, original_node, updated_node):
        return cst.RemoveFromParent()

    def leave_Expr(self, original_node, updated_node):
        if isinstance(original_node.value, cst.Await):
            return cst.FlattenSentinel([updated_node, updated_node.with_changes(value=cst.Name("extra"))])
        return updated_node

    def leave_Arg(self, original_node, updated_node):
        if isinstance(original_node.value, cst.Name) and original_node.value.value == "arg":
            return cst.RemoveFromParent()
        return updated_node


@functools.cache
def sources() -> tuple[str, ...]:
    found = [KITCHEN_SINK]
    for path in sorted(GOLDEN.glob("*/*/input.py"))[:40]:
        found.append(path.read_text(encoding="utf-8"))
    return tuple(found)


@functools.cache
def trees() -> tuple[cst.Module, ...]:
    """LibCST's tree of each of :func:`sources`, parsed once per module: a tree is immutable, and
    every test runs both walks (LibCST's and the fast one) on the same tree object."""
    return tuple(cst.parse_module(source) for source in sources())


#: LibCST's own transformer runs: {(transformer class, index into trees()): (code, leaves)}; the
#: reference of a tree and a transformer class is the same whatever test asks (LibCST's version and
#: the tree, hence its text, are fixed for the process)
_LIBCST_TRANSFORMS: dict[tuple[type, int], tuple[str, list]] = {}


@pytest.fixture(scope="module", autouse=True)
def _drop_the_trees():
    """The trees and LibCST's results go with the module: kept, they would be walked by every
    garbage collection of the modules that run after it in this process."""
    yield
    trees.cache_clear()
    _LIBCST_TRANSFORMS.clear()


def libcst_transform(index: int, transformer: type) -> tuple[str, list]:
    """(code, leaves) of LibCST's own visit of ``trees()[index]`` with a new ``transformer``."""
    key = (transformer, index)
    if key not in _LIBCST_TRANSFORMS:
        slow, slow_tree = _run(trees()[index], transformer, fast=False)
        _LIBCST_TRANSFORMS[key] = (slow_tree.code, list(slow.leaves))
    return _LIBCST_TRANSFORMS[key]


def _run(tree: cst.Module, visitor_class: type, fast: bool, transforms: bool = True):
    visitor = visitor_class()
    if fast:
        with fastvisit.installed(transforms=transforms):
            result = tree.visit(visitor)
    else:
        result = tree.visit(visitor)
    return visitor, result


@pytest.mark.parametrize("visitor_class", [Recorder, Hooks, HooksWithField, FieldHooksAndLeave, TokenHooks])
def test_visitor_callbacks_identical(visitor_class):
    for tree in trees():
        slow, slow_result = _run(tree, visitor_class, fast=False)
        fast, fast_result = _run(tree, visitor_class, fast=True)
        assert fast.log == slow.log
        assert fast_result is tree and slow_result is tree


@pytest.mark.parametrize("transforms", [True, False])
def test_transformer_output_identical(transforms):
    for index, tree in enumerate(trees()):
        slow_code, slow_leaves = libcst_transform(index, Renamer)
        fast, fast_tree = _run(tree, Renamer, fast=True, transforms=transforms)
        assert fast_tree.code == slow_code
        assert fast.leaves == slow_leaves
    assert "vals" in cst.parse_module(KITCHEN_SINK).visit(Renamer()).code


@pytest.mark.parametrize("transformer", [CommaSpacer, Renamer])
def test_token_editing_transformer_identical(transformer):
    for index, tree in enumerate(trees()):
        slow_code, slow_leaves = libcst_transform(index, transformer)
        fast, fast_tree = _run(tree, transformer, fast=True)
        assert fast_tree.code == slow_code
        assert fast.leaves == slow_leaves


def test_token_fields_are_skipped_only_without_token_hooks():
    assert fastvisit._visitor_info(Hooks).skip_tokens
    assert not fastvisit._visitor_info(TokenHooks).skip_tokens
    assert not fastvisit._visitor_info(HooksWithField).skip_tokens  # per-field hooks: walk everything
    assert not fastvisit._visitor_info(Recorder).skip_tokens  # its own on_visit sees every node
    assert fastvisit._skips_tokens(Renamer) and not fastvisit._skips_tokens(CommaSpacer)


def test_unchanged_transform_returns_the_same_tree():
    tree = cst.parse_module(KITCHEN_SINK)
    with fastvisit.installed():
        assert tree.visit(cst.CSTTransformer()) is tree


def test_removing_a_required_child_still_raises():
    class Bad(cst.CSTTransformer):
        def leave_Name(self, original_node, updated_node):
            return cst.RemoveFromParent()

    tree = cst.parse_module("x = y\n")
    with pytest.raises(TypeError):
        tree.visit(Bad())
    with fastvisit.installed(), pytest.raises(TypeError):
        tree.visit(Bad())


def test_installed_restores_libcst():
    original = cst.CSTNode.visit
    with fastvisit.installed():
        assert cst.CSTNode.visit is fastvisit.fast_visit
    assert cst.CSTNode.visit is original


def test_every_plain_node_class_has_a_plan():
    import inspect

    from libcst._nodes.base import CSTNode

    classes = set()
    stack = [CSTNode]
    while stack:
        for sub in stack.pop().__subclasses__():
            classes.add(sub)
            stack.append(sub)
    generic = {c.__name__ for c in classes if not inspect.isabstract(c) and fastvisit.field_plan(c) is None}
    # these build their children conditionally: LibCST's own code handles them
    assert generic <= {"FormattedStringExpression", "TemplatedStringExpression", "ImportFrom",
                       "LazyImportFrom", "TypeParam"}


def test_hook_tables_find_what_getattr_finds():
    """A visitor class's hooks are read from a table (its own methods and LibCST's, not every
    ``getattr`` through ``CSTVisitor``'s MRO): the same function for every name, descriptors,
    LibCST's no-op stubs and LibCST's own real hooks (``ScopeVisitor``) included."""
    from libcst.metadata.scope_provider import ScopeVisitor

    class Descriptors(cst.CSTVisitor):
        @staticmethod
        def visit_Name(node):
            return None

        @classmethod
        def leave_Name(cls, node):
            return None

    class Stubbed(Descriptors):
        visit_Call = cst.CSTVisitor.visit_Call

        def visit_Arg(self, node):
            return None

    class Scopes(ScopeVisitor):
        def visit_Name(self, node):  # overrides LibCST's own hook
            return None

    def own(function):
        return None if function is None or getattr(function, "_is_no_op", False) else function

    for cls in (Descriptors, Stubbed, Scopes, HooksWithField, FieldHooksAndLeave):
        table = fastvisit._hook_table(cls)
        assert table is not None, cls
        names = set(table) | {name for name in dir(cls) if name.startswith(("visit_", "leave_"))}
        assert [name for name in names if own(table.get(name)) != own(getattr(cls, name, None))] == [], cls
