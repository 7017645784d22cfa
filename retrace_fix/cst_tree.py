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
  (:func:`statement_codes`) for the module generated last;
* :func:`track_source`, :func:`layout_of` - where each top-level statement of the module
  being transformed stands in its text (:class:`SourceLayout`), and the code of a tree a
  codemod edited spliced from that text: only the statements it changed are generated.
"""

from __future__ import annotations

import ast
import bisect
import dataclasses
import re
import threading
from typing import Callable, Collection, Sequence

import libcst as cst
from libcst._nodes.internal import CodegenState


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
    last are kept for :func:`statement_codes`.  The module being transformed, or a tree a
    codemod made of it, is not generated but laid out (:func:`layout_of`): its unchanged
    statements are the text they were parsed from.  A module without a final newline, or with no
    node, is generated whole (LibCST drops or adds a newline there)."""
    layout = layout_of(module)
    if layout is not None:
        return layout.code
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


# --------------------------------------------------------------------------- layouts

#: line ends as LibCST counts them (``libcst.metadata.position_provider.NEWLINE_RE``)
_NEWLINE = re.compile(r"\r\n?|\n")


def _nodes(module: cst.Module) -> tuple:
    return (*module.header, *module.body, *module.footer)


@dataclasses.dataclass(eq=False, slots=True)
class SourceLayout:
    """Where each top-level node (header line, statement, footer line) of ``module`` stands in
    ``code``: the text it was parsed from, or for a tree a codemod edited, that text with the
    changed statements' code spliced in (:func:`layout_of`).

    ``starts[i]`` is the offset of ``nodes[i]`` (``starts[-1]``: the end of the code);
    ``generated`` holds the indices of the nodes whose span is LibCST's code of them (made
    here); every other span is text the module was parsed from.
    """

    module: cst.Module
    code: str
    nodes: tuple
    starts: list[int]
    generated: frozenset[int]
    _lines: list[int] | None = None
    #: ``module`` is LibCST's parse of ``code`` (not a tree a codemod made)
    parsed: bool = False
    #: for a parsed module: (node index -> CPython's statement, where each line of ``code`` starts)
    python: tuple[dict[int, ast.stmt], list[int]] | None = dataclasses.field(default=None, init=False)

    def span(self, index: int) -> str:
        return self.code[self.starts[index]:self.starts[index + 1]]

    def body_first_lines(self) -> list[int]:
        """The 1-based line of :attr:`code` where each statement of ``module.body`` starts (its
        leading blank and comment lines included)."""
        if self._lines is None:
            line_starts = [0] + [match.end() for match in _NEWLINE.finditer(self.code)]
            self._lines = [bisect.bisect_right(line_starts, start) for start in self.starts[:-1]]
        header = len(self.module.header)
        return self._lines[header:header + len(self.module.body)]


def statement_first_lines(module: cst.Module, tree: ast.Module) -> list[int] | None:
    """The first line of each top-level statement of ``module`` (its leading blank and comment
    lines included), from CPython's ``tree`` of the same text; None when they do not pair up."""
    paired = paired_statements(module.body, tree.body)
    return None if paired is None else [first for first, _node in paired]


def paired_statements(statements: "Sequence[cst.BaseStatement]", nodes: list) -> list[tuple[int, ast.stmt]] | None:
    """(first line, CPython's statement) of each of ``statements`` (a block's), paired with
    ``nodes`` (the same block's in CPython's tree: a line of simple statements is several);
    None when they do not pair up."""
    taken, paired = 0, []
    for statement in statements:
        if taken >= len(nodes):
            return None
        node = nodes[taken]
        first = min([node.lineno, *(decorator.lineno for decorator in getattr(node, "decorator_list", ()))])
        paired.append((first - len(statement.leading_lines), node))
        taken += len(statement.body) if isinstance(statement, cst.SimpleStatementLine) else 1
    return paired if taken == len(nodes) else None


def _parsed_layout(module: cst.Module, text: str, tree: ast.Module | None) -> SourceLayout | None:
    """The layout of ``module`` in ``text``, the text it was parsed from, by CPython's tree of it
    (``tree``, else parsed here); None when the lines do not fit.  Not proven here: a span is
    proven (its LibCST code compared) where a codemod changes its statement (:func:`_spliced`),
    and :mod:`retrace_fix.positions` checks each statement it generates against the text."""
    if not module.body or not module.has_trailing_newline or not text.endswith("\n"):
        return None  # (LibCST drops a carriage return that ends a file: that text is generated whole)
    if tree is None:
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
            return None
    paired = paired_statements(module.body, tree.body)
    if paired is None:
        return None
    firsts = [first for first, _node in paired]
    line_starts = [0] + [match.end() for match in _NEWLINE.finditer(text)]
    count = len(line_starts) - 1  # the text ends with a line end: its last entry is len(text)
    header, footer = len(module.header), len(module.footer)
    lines = [*range(1, header + 1), *firsts, *range(count - footer + 1, count + 1)]
    if lines[0] != 1 or lines[-1] > count or any(b <= a for a, b in zip(lines, lines[1:])):
        return None
    starts = [line_starts[line - 1] for line in lines] + [len(text)]
    layout = SourceLayout(module, text, _nodes(module), starts, frozenset(), lines, parsed=True)
    layout.python = (dict(zip(range(header, header + len(paired)), (node for _first, node in paired))), line_starts)
    return layout


def _spliced(base: SourceLayout, module: cst.Module) -> SourceLayout | None:
    """The layout of ``module``, a tree made from ``base.module`` (the nodes it did not change
    are the same objects), with ``base``'s span of each unchanged node and LibCST's code of
    each new one; None when the nodes are reordered, none is kept, or a proof fails.

    The proof: every node of ``base`` that ``module`` dropped or replaced, and the nodes on
    both sides of a place where nodes were only inserted, must be exactly their LibCST code in
    ``base.code`` (as :func:`retrace_fix.engine.transform._fixed_code` requires of the whole
    module).  Then every cut is where LibCST puts it, and the rest is ``base``'s own text.
    A ``def`` or ``class`` replaced by one that keeps its body (a decorator edited) is
    proven up to the body, which LibCST generates last: its old head must start its span,
    and its code is the new head and the rest of the span, the body's own text.
    """
    if not module.has_trailing_newline or (module.default_indent, module.default_newline) != (
            base.module.default_indent, base.module.default_newline):
        return None
    nodes = _nodes(module)
    where = {id(node): index for index, node in enumerate(base.nodes)}
    kept = [where.get(id(node)) for node in nodes]
    indices = [index for index in kept if index is not None]
    if not indices or any(b <= a for a, b in zip(indices, indices[1:])):
        return None
    kept_set = set(indices)
    count = len(base.nodes)
    to_prove = set(range(count)) - kept_set
    previous = -1
    following = [count] * (len(kept) + 1)  # the next kept base index at or after each position
    for position in range(len(kept) - 1, -1, -1):
        following[position] = kept[position] if kept[position] is not None else following[position + 1]
    for position, index in enumerate(kept):
        if index is not None:
            previous = index
        elif following[position] == previous + 1:  # inserted between two neighbours: prove the cut
            to_prove.update(i for i in (previous, previous + 1) if 0 <= i < count)
    base_module = base.module
    headed = _same_bodies(base, nodes, kept, following)
    spliced: dict[int, str] = {}  # position in ``nodes`` -> its code: its head and the body's text
    for index in to_prove:
        span = base.span(index)
        if index in headed:
            position = headed[index]
            edits = _edits(base, index, nodes[position], module)
            code = _applied(span, base.starts[index], edits) if edits is not None else None
            if code is not None:
                spliced[position] = code
                continue
        if index not in base.generated and base_module.code_for_node(base.nodes[index]) != span:
            return None
    pieces, generated = [], set()
    for position, (node, index) in enumerate(zip(nodes, kept)):
        if position in spliced:
            pieces.append(spliced[position])
        elif index is None:
            pieces.append(module.code_for_node(node))
            generated.add(position)
        else:
            pieces.append(base.span(index))
            if index in base.generated:
                generated.add(position)
    starts, offset = [], 0
    for piece in pieces:
        starts.append(offset)
        offset += len(piece)
    starts.append(offset)
    return SourceLayout(module, "".join(pieces), nodes, starts, frozenset(generated))


def _same_bodies(base: SourceLayout, nodes: tuple, kept: list, following: list[int]) -> dict[int, int]:
    """``{index in base: position in nodes}`` of each ``def`` or ``class`` that a codemod replaced by
    one of its kind, alone in its place (:func:`_edits` tells what changed in it)."""
    places: dict[tuple[int, int], list[int]] = {}
    previous = -1
    for position, index in enumerate(kept):
        if index is not None:
            previous = index
        else:
            places.setdefault((previous, following[position]), []).append(position)
    pairs: dict[int, int] = {}
    for (before, after), positions in places.items():
        if after != before + 2 or len(positions) != 1:
            continue
        old, new = base.nodes[before + 1], nodes[positions[0]]
        if type(old) is type(new) and isinstance(new, _HEADED):
            pairs[before + 1] = positions[0]
    return pairs


class _BodyReached(Exception):
    pass


class _HeadState(CodegenState):
    """LibCST's code generation, stopped where ``body`` starts."""

    body: cst.CSTNode | None = None

    def before_codegen(self, node: cst.CSTNode) -> None:
        if node is self.body:
            raise _BodyReached


_HEADED = (cst.FunctionDef, cst.ClassDef)


def _head_code(module: cst.Module, node: cst.FunctionDef | cst.ClassDef, indent: list[str]) -> str | None:
    """LibCST's code of a ``def`` or ``class`` up to its body, which it generates last (the body's
    code is the same after any head), at indentation ``indent``; None if it never got there."""
    state = _HeadState(default_indent=module.default_indent, default_newline=module.default_newline)
    state.indent_tokens = list(indent)
    state.body = node.body
    try:
        node._codegen(state)
    except _BodyReached:
        return "".join(state.tokens)
    return None


def _code_at(module: cst.Module, node: cst.CSTNode, indent: list[str]) -> str:
    """LibCST's code of a statement at indentation ``indent`` (as its block generates it)."""
    state = CodegenState(default_indent=module.default_indent, default_newline=module.default_newline)
    state.indent_tokens = list(indent)
    node._codegen(state)
    return "".join(state.tokens)


def _edits(base: SourceLayout, index: int, new: cst.CSTNode, module: cst.Module) -> list[tuple[int, int, str]] | None:
    """How ``base.nodes[index]``, a ``def`` or ``class``, became ``new`` (one of its kind), as
    ``(offset in base.code, length, new code)`` edits of its text; None where that is not shown.

    Each edit is proven: the old code it replaces is LibCST's and stands at that offset.  A
    ``def`` or ``class`` that keeps its body is edited in its head alone; one whose body is the
    same block with some statements replaced (a method's decorator edited) is edited in those
    statements alone, each found by CPython's tree (the parsed module's) and edited the same
    way, or generated whole, at the block's indentation."""
    python = base.python
    statement = python[0].get(index) if python is not None else None
    return _node_edits(base, base.starts[index], base.nodes[index], new, statement, [], module)


def _node_edits(base: SourceLayout, start: int, old: cst.CSTNode, new: cst.CSTNode, statement: "ast.stmt | None",
                indent: list[str], module: cst.Module) -> list[tuple[int, int, str]] | None:
    text, base_module = base.code, base.module
    if isinstance(old, _HEADED) and type(new) is type(old) and new.body is old.body:
        old_head, new_head = _head_code(base_module, old, indent), _head_code(module, new, indent)
        if old_head is None or new_head is None or not text.startswith(old_head, start):
            return None
        return [(start, len(old_head), new_head)]
    block, new_block = getattr(old, "body", None), getattr(new, "body", None)
    if (statement is None or base.python is None or not isinstance(old, _HEADED) or type(new) is not type(old)
            or not isinstance(block, cst.IndentedBlock) or not isinstance(new_block, cst.IndentedBlock)
            or len(block.body) != len(new_block.body) or not _same_but_body(old, new)
            or any(getattr(block, name) is not getattr(new_block, name) for name in ("header", "indent", "footer"))):
        if not indent:
            return None  # a top-level statement: proven whole by the caller
        old_code = _code_at(base_module, old, indent)
        if not text.startswith(old_code, start):
            return None
        return [(start, len(old_code), _code_at(module, new, indent))]
    paired = paired_statements(block.body, statement.body)
    if paired is None:
        return None
    line_starts = base.python[1]
    inner = [*indent, block.indent if block.indent is not None else base_module.default_indent]
    edits: list[tuple[int, int, str]] = []
    for old_statement, new_statement, (first, node) in zip(block.body, new_block.body, paired):
        if old_statement is new_statement:
            continue
        if not 1 <= first < len(line_starts):
            return None
        found = _node_edits(base, line_starts[first - 1], old_statement, new_statement, node, inner, module)
        if found is None:
            return None
        edits.extend(found)
    return edits


def _same_but_body(old: cst.CSTNode, new: cst.CSTNode) -> bool:
    """Are all of ``new``'s fields but its body the very objects of ``old``'s?"""
    return all(getattr(new, field.name) is getattr(old, field.name)
               for field in dataclasses.fields(old) if field.name != "body")


def _applied(span: str, offset: int, edits: list[tuple[int, int, str]]) -> str | None:
    """``span`` (which starts at ``offset`` of its text) with ``edits`` made; None if they overlap
    or fall outside it."""
    pieces, at = [], 0
    for start, length, code in sorted(edits):
        start -= offset
        if start < at or start + length > len(span):
            return None
        pieces.append(span[at:start])
        pieces.append(code)
        at = start + length
    pieces.append(span[at:])
    return "".join(pieces)


class _Tracked(threading.local):
    """The layouts of the file being transformed, newest last, and the parsed module not laid
    out yet: ``(module, text, CPython's tree or None)`` (:func:`track_source`)."""

    def __init__(self) -> None:
        self.layouts: list[SourceLayout] = []
        self.source: tuple | None = None


_TRACKED = _Tracked()  # per thread: a thread transforms one file at a time


def track_source(module: cst.Module | None, text: str = "", tree: ast.Module | None = None) -> None:
    """Start (or with None, end) a file: ``module`` was parsed from ``text``; ``tree`` is CPython's
    tree of ``text`` where one was made.  Nothing is computed until a layout is asked for."""
    _TRACKED.layouts.clear()
    _TRACKED.source = (module, text, tree) if module is not None else None


def known_layout(module: cst.Module) -> SourceLayout | None:
    """The layout of ``module`` when it is the tracked module or a tree already laid out."""
    for layout in reversed(_TRACKED.layouts):
        if layout.module is module:
            return layout
    source = _TRACKED.source
    if source is not None and source[0] is module:
        _TRACKED.source = None
        layout = _parsed_layout(*source)
        if layout is not None:
            _TRACKED.layouts.append(layout)
        return layout
    return None


def layout_of(module: cst.Module) -> SourceLayout | None:
    """:func:`known_layout`, else ``module`` spliced from the newest layout (a tree a codemod
    edited): its unchanged statements' text, its new statements' code; None when it cannot be
    (no file tracked, the statements reordered, a proof failed)."""
    layout = known_layout(module)
    if layout is not None:
        return layout
    source = _TRACKED.source
    if source is not None:
        known_layout(source[0])
    if not _TRACKED.layouts:
        return None
    layout = _spliced(_TRACKED.layouts[-1], module)
    if layout is not None:
        _TRACKED.layouts.append(layout)
    return layout
