"""The positions LibCST's ``PositionProvider`` gives, for the few nodes a run asks about.

``PositionProvider`` generates the code of the whole module while tracking the line and
column of every node and token: on a typical file that is the most expensive metadata
a run asks for, and a run asks for it only to print a finding's ``line:column``, for
a few nodes, nearly always inside one or two top-level statements.

:class:`StatementPositions` generates only the top-level statements that hold a node it
is asked about, each with LibCST's own position-tracking code generator started at the
statement's first line.  That line comes from CPython's tree of the same text (its first
token's line, less the blank and comment lines LibCST attaches to the statement; for the
module being transformed, from the tree the prefilter made, and for a tree a codemod
edited, from where its statements were spliced: :func:`retrace_fix.cst_tree.layout_of`),
and it is checked: the statement's generated code must stand in the text at that line.  When
anything does not fit -- the text does not compile for this Python, the statements do
not pair up, the code is not where it should be, a node below a token field -- the
answer comes from LibCST's full run, so the positions are always LibCST's.

Where the module is the one parsed from the file being transformed, a node in a statement
of a top-level class's or def's block (a method) is found by generating that statement
alone, from its own first line (CPython's tree again) at the block's indentation; and the generation
stops after the node asked (a node's position depends only on the code before its end).
"""

from __future__ import annotations

import ast
import functools
import hashlib
import inspect
import re
from typing import Any, Callable, Mapping

import libcst as cst
from libcst._position import CodePosition, CodeRange
from libcst.metadata.position_provider import PositionProvidingCodegenState

from retrace_fix.cst_tree import paired_statements, known_layout, statement_first_lines
from retrace_fix.fastvisit import push_children

_NEWLINE = re.compile(r"\r\n?|\n")  # LibCST's line breaks (libcst.metadata.position_provider.NEWLINE_RE)


class _Collector:
    """Stands in for the provider whose ``_computed`` table the codegen state fills (keyed by the
    node, or by ``id(node)`` where the state says so: ``KEYED_BY_ID``)."""

    def __init__(self) -> None:
        self._computed: dict = {}


class StatementPositions:
    """``node -> CodeRange`` as ``PositionProvider`` gives it for ``module`` (parsed from ``text``)."""

    def __init__(self, module: cst.Module, text: str, full: Callable[[], Mapping[cst.CSTNode, CodeRange]]) -> None:
        self._module = module
        self._text = text
        self._full_run = full
        self._full: Mapping[cst.CSTNode, CodeRange] | None = None
        self._statement_of: dict[int, int] | None = None  # id(node) -> index of its top-level statement
        self._first_lines: list[int] | None = None
        self._first_lines_done = False
        self._line_offsets: list[int] | None = None
        #: statement index -> (its nodes' positions by ``id(node)``, or None where its code is not where
        #: it should be; whether all of it was generated)
        self._done: dict[int, tuple[Mapping[int, CodeRange] | None, bool]] = {}
        self._walked = 0  # the statements walked for statement_of
        self._lazy_walk = False
        #: where the module is the parsed one: id(node) -> index of the statement of a top-level
        #: class's block that holds it, and the class's statements (first line, CPython's statement)
        self._inner: dict[int, int] = {}
        self._python: dict | None = None
        self._class_lines: dict[int, list | None] = {}
        self._shared_nodes = False  # a node object at two places: every statement is generated whole

    def __getitem__(self, node: cst.CSTNode) -> CodeRange:
        if self._full is None:
            index = self._statement_index(node)
            if index is not None:
                inner = self._inner.get(id(node))
                key = index if inner is None else (index, inner)  # a statement of a class: generated alone
                done = self._done.get(key)
                if done is None:  # the statement's code up to the node's end
                    done = self._done[key] = self._generate(key, None if self._shared_nodes else node)
                elif done[0] is not None and id(node) not in done[0] and not done[1]:  # the rest of it
                    done = self._done[key] = self._generate(key, None)
                positions = done[0]
                if positions is not None and id(node) in positions:
                    return positions[id(node)]
            self._full = self._full_run()
        return self._full[node]

    # ------------------------------------------------------------------ which statement

    def statement_of(self, node: cst.CSTNode) -> int | None:
        """The index in ``module.body`` of the top-level statement that holds ``node`` (by
        identity, no code generated); None for a node that is not in the module's statements
        (or sits below a token field).

        The statements are walked in order, as far as the node asked (findings are reported
        in source order), where the module is the one parsed from the file being transformed
        (:func:`retrace_fix.cst_tree.known_layout`: LibCST's parser makes every node anew);
        any other tree is walked whole at once, which also tells whether one node object sits
        at two places (then every statement is generated whole, as LibCST's run records the
        last place)."""
        statements = self._module.body
        if self._statement_of is None:
            self._statement_of = {}
            layout = known_layout(self._module)
            self._lazy_walk = layout is not None and layout.parsed
            if self._lazy_walk and layout.python is not None and self._module.has_trailing_newline:
                self._python = layout.python[0]
                if layout.code == self._text:
                    self._line_offsets = layout.python[1]  # where each line of the text starts
        found = self._statement_of.get(id(node))
        table, inner_of = self._statement_of, self._inner
        while found is None and self._walked < len(statements):
            index = self._walked
            self._walked += 1
            statement = statements[index]
            stack: list = [statement]
            if self._python is not None and isinstance(statement, (cst.ClassDef, cst.FunctionDef)) \
                    and isinstance(statement.body, cst.IndentedBlock):
                # the statements of its block, each with its own index in the block
                block, stack = statement.body, []
                for inner, child in enumerate(block.body):
                    below = [child]
                    while below:
                        current = below.pop()
                        table[id(current)] = index
                        inner_of[id(current)] = inner
                        push_children(current, below)
                children: list = []
                own = {id(block), *map(id, block.body)}  # walked above, or here
                for current in (statement, block):
                    table[id(current)] = index
                    children.clear()
                    push_children(current, children)
                    stack.extend(child for child in children if id(child) not in own)
            while stack:
                current = stack.pop()
                if id(current) in table:
                    self._shared_nodes = True
                table[id(current)] = index
                push_children(current, stack)
            if self._lazy_walk:
                found = self._statement_of.get(id(node))
        return found if found is not None else self._statement_of.get(id(node))

    def _statement_index(self, node: cst.CSTNode) -> int | None:
        if self._first_lines is None:
            if self._first_lines_done:
                return None
            self._first_lines_done = True
            layout = known_layout(self._module)  # the module being transformed: its lines are known
            if layout is not None and layout.code == self._text:
                self._first_lines = layout.body_first_lines()
            else:
                self._first_lines = _first_lines(self._module, self._text)
            if self._first_lines is None:
                return None
        return self.statement_of(node)

    # ------------------------------------------------------------------ one statement

    def _class_statement(self, index: int, inner: int) -> tuple[int, cst.BaseStatement, list[str]] | None:
        """(first line, statement, indentation) of statement ``inner`` of the block of the class
        or def that is statement ``index``, from CPython's tree of the text; None when they do not
        pair up."""
        if index not in self._class_lines:
            statement = self._module.body[index]
            python = self._python.get(len(self._module.header) + index) if self._python is not None else None
            paired = paired_statements(statement.body.body, python.body) \
                if isinstance(python, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) else None
            self._class_lines[index] = None if paired is None else [first for first, _node in paired]
        lines = self._class_lines[index]
        if lines is None:
            return None
        block = self._module.body[index].body
        return lines[inner], block.body[inner], [block.indent if block.indent is not None else self._module.default_indent]

    def _generate(self, key: int | tuple[int, int], until: cst.CSTNode | None) -> tuple[Mapping[int, CodeRange] | None, bool]:
        """The positions of statement ``key``'s nodes (a top-level statement's index, or the
        indices of a class and of a statement of its block), generated up to the end of ``until``
        (None: the whole statement), and whether all of it was; (None, True) where its code
        is not where CPython's tree put it.  A node's position depends only on the code
        before its end, so the code generated so far is what must stand in the text."""
        assert self._first_lines is not None
        module, collector = self._module, _Collector()
        if isinstance(key, tuple):
            found = self._class_statement(*key)
            if found is None:
                return None, True
            first_line, statement, indent = found
            last = False
        else:
            first_line, statement, indent = self._first_lines[key], module.body[key], []
            last = key == len(module.body) - 1 and not module.has_trailing_newline
        state = _state_class()(
            default_indent=module.default_indent,
            default_newline=module.default_newline,
            provider=collector,  # type: ignore[arg-type]
            line=first_line,
        )
        state.indent_tokens = list(indent)
        if last:
            until = None  # its code's last newline is not in the text: compared whole, as below
        state.until = until
        try:
            statement._codegen(state)
        except Exception:
            if state.stopped is None:
                raise
            # (LibCST's positions of the nodes around ``until``, written as its code generation
            # unwinds, are partial: only what was recorded when it stopped is kept)
        complete = state.stopped is None
        tokens = state.tokens if complete else state.tokens[:state.stopped[1]]
        positions = collector._computed if complete else state.stopped[0]
        if not state.KEYED_BY_ID:
            positions = {id(node): position for node, position in positions.items()}
        code = "".join(tokens)
        if complete and last and code.endswith(module.default_newline):
            code = code[: -len(module.default_newline)]  # as the module's own code generation drops it
        if self._line_offsets is None:
            self._line_offsets = [0] + [match.end() for match in _NEWLINE.finditer(self._text)]
        offsets = self._line_offsets
        if not 1 <= first_line <= len(offsets) or not self._text.startswith(code, offsets[first_line - 1]):
            return None, True  # not where CPython's tree put it: LibCST's full run decides
        return positions, complete


class _Stop(Exception):
    """Raised when the node a position was asked for has been generated."""


class _PartialState(PositionProvidingCodegenState):
    """LibCST's position-tracking code generation, stopped after the node ``until`` (when set):
    ``stopped`` is then the positions recorded so far (final: a node's entry is written when
    its code generation ends) and the number of tokens generated."""

    until: cst.CSTNode | None = None
    stopped: tuple[dict, int] | None = None
    #: whether the provider's table is keyed by ``id(node)`` (LibCST's is keyed by the node)
    KEYED_BY_ID = False

    def after_codegen(self, node: cst.CSTNode) -> None:
        super().after_codegen(node)
        if node is self.until:
            self.stopped = (dict(self.provider._computed), len(self.tokens))  # type: ignore[attr-defined]
            raise _Stop


class _SyntacticPosition:
    """``PositionProvidingCodegenState.record_syntactic_position`` as a plain context manager
    (LibCST's is a generator-based ``contextmanager``: a generator and a wrapper per node)."""

    __slots__ = ("state", "node", "start_node", "end_node", "start")

    def __init__(self, state: "_FastPartialState", node: cst.CSTNode, start_node, end_node) -> None:
        self.state, self.node, self.start_node, self.end_node = state, node, start_node, end_node
        self.start = CodePosition(state.line, state.column)

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc_info: object) -> bool:
        state = self.state
        computed = state.provider._computed  # type: ignore[attr-defined]
        start = computed[id(self.start_node)].start if self.start_node is not None else self.start
        end = computed[id(self.end_node)].end if self.end_node is not None else CodePosition(state.line, state.column)
        computed[id(self.node)] = CodeRange(start, end)
        return False


class _FastPartialState(_PartialState):
    """:class:`_PartialState` with LibCST's per-token and per-node bookkeeping written out: a token
    without a line break only moves the column (LibCST splits every token on line breaks), a
    node's position is written in :meth:`after_codegen` itself, and a syntactic position is
    recorded by :class:`_SyntacticPosition`; the table is keyed by ``id(node)`` (the nodes are those
    of the module, alive while it is).  Used only where LibCST's methods are the ones this
    was written from (:func:`_libcst_state_is_known`); ``tests/test_positions.py`` compares every
    node's position with LibCST's full run."""

    def add_token(self, value: str) -> None:
        self.tokens.append(value)
        if "\n" in value or "\r" in value:
            self._update_position(value)
        else:
            self.column += len(value)

    KEYED_BY_ID = True  # no Python-level ``CSTNode.__hash__`` per table access

    def after_codegen(self, node: cst.CSTNode) -> None:
        start = self._stack.pop()
        computed = self.provider._computed  # type: ignore[attr-defined]
        key = id(node)
        if key not in computed:
            computed[key] = CodeRange(start, CodePosition(self.line, self.column))
        if node is self.until:
            self.stopped = (dict(computed), len(self.tokens))
            raise _Stop

    def record_syntactic_position(self, node: cst.CSTNode, *, start_node: cst.CSTNode | None = None,
                                  end_node: cst.CSTNode | None = None) -> Any:
        return _SyntacticPosition(self, node, start_node, end_node)


#: digests of the LibCST methods :class:`_FastPartialState` writes out (their code lines, stripped,
#: comments left out), as LibCST 1.x has them
_KNOWN_STATE_METHODS = {
    "add_token": "a0e464e2d3f887d5",
    "_update_position": "9a3c3afe28006120",
    "after_codegen": "a54d32b9f405244d",
    "record_syntactic_position": "420f8ccb4887e8f3",
}


@functools.lru_cache(maxsize=None)
def _libcst_state_is_known() -> bool:
    """Are LibCST's position-tracking methods the ones :class:`_FastPartialState` was written from?
    Another LibCST's run as they are."""
    for name, digest in _KNOWN_STATE_METHODS.items():
        try:
            source = inspect.getsource(getattr(PositionProvidingCodegenState, name))
        except (OSError, TypeError, AttributeError):
            return False
        lines = [line.strip() for line in source.splitlines() if line.strip() and not line.strip().startswith("#")]
        if hashlib.sha256("\n".join(lines).encode()).hexdigest()[:16] != digest:
            return False
    return True


def _state_class() -> type[_PartialState]:
    """The code generation state :meth:`StatementPositions._generate` uses."""
    return _FastPartialState if _libcst_state_is_known() else _PartialState


def _first_lines(module: cst.Module, text: str) -> list[int] | None:
    """The first line of each top-level statement of ``module`` (its leading blank and
    comment lines included), from CPython's tree of ``text``; None when they do not pair up."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return None
    return statement_first_lines(module, tree)
