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
"""

from __future__ import annotations

import ast
import re
from typing import Callable, Mapping

import libcst as cst
from libcst._position import CodeRange
from libcst.metadata.position_provider import PositionProvidingCodegenState

from retrace_fix.cst_tree import known_layout, statement_first_lines
from retrace_fix.fastvisit import push_children

_NEWLINE = re.compile(r"\r\n?|\n")  # LibCST's line breaks (libcst.metadata.position_provider.NEWLINE_RE)


class _Collector:
    """Stands in for the provider whose ``_computed`` table the codegen state fills."""

    def __init__(self) -> None:
        self._computed: dict[cst.CSTNode, CodeRange] = {}


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
        #: statement index -> (its nodes' positions, or None where its code is not where it should be;
        #: whether all of it was generated)
        self._done: dict[int, tuple[Mapping[cst.CSTNode, CodeRange] | None, bool]] = {}
        self._walked = 0  # the statements walked for statement_of
        self._lazy_walk = False
        self._shared_nodes = False  # a node object at two places: every statement is generated whole

    def __getitem__(self, node: cst.CSTNode) -> CodeRange:
        if self._full is None:
            index = self._statement_index(node)
            if index is not None:
                done = self._done.get(index)
                if done is None:  # the statement's code up to the node's end
                    done = self._done[index] = self._generate(index, None if self._shared_nodes else node)
                elif done[0] is not None and node not in done[0] and not done[1]:  # the rest of it
                    done = self._done[index] = self._generate(index, None)
                positions = done[0]
                if positions is not None and node in positions:
                    return positions[node]
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
        found = self._statement_of.get(id(node))
        while found is None and self._walked < len(statements):
            index = self._walked
            self._walked += 1
            stack: list = [statements[index]]
            while stack:
                current = stack.pop()
                if id(current) in self._statement_of:
                    self._shared_nodes = True
                self._statement_of[id(current)] = index
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

    def _generate(self, index: int, until: cst.CSTNode | None) -> tuple[Mapping[cst.CSTNode, CodeRange] | None, bool]:
        """The positions of statement ``index``'s nodes, generated up to the end of ``until``
        (None: the whole statement), and whether all of it was; (None, True) where its code
        is not where CPython's tree put it.  A node's position depends only on the code
        before its end, so the code generated so far is what must stand in the text."""
        assert self._first_lines is not None
        first_line = self._first_lines[index]
        module, collector = self._module, _Collector()
        state = _PartialState(
            default_indent=module.default_indent,
            default_newline=module.default_newline,
            provider=collector,  # type: ignore[arg-type]
            line=first_line,
        )
        if index == len(module.body) - 1 and not module.has_trailing_newline:
            until = None  # its code's last newline is not in the text: compared whole, as below
        state.until = until
        try:
            module.body[index]._codegen(state)
        except Exception:
            if state.stopped is None:
                raise
            # (LibCST's positions of the nodes around ``until``, written as its code generation
            # unwinds, are partial: only what was recorded when it stopped is kept)
        complete = state.stopped is None
        tokens = state.tokens if complete else state.tokens[:state.stopped[1]]
        positions = collector._computed if complete else state.stopped[0]
        code = "".join(tokens)
        if complete and index == len(module.body) - 1 and not module.has_trailing_newline \
                and code.endswith(module.default_newline):
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

    def after_codegen(self, node: cst.CSTNode) -> None:
        super().after_codegen(node)
        if node is self.until:
            self.stopped = (dict(self.provider._computed), len(self.tokens))  # type: ignore[attr-defined]
            raise _Stop


def _first_lines(module: cst.Module, text: str) -> list[int] | None:
    """The first line of each top-level statement of ``module`` (its leading blank and
    comment lines included), from CPython's tree of ``text``; None when they do not pair up."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return None
    return statement_first_lines(module, tree)
