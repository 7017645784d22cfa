"""Per-module facts every codemod needs, computed once per tree and shared.

* which ``def``s are tf.functions, and through which spelling
  (:mod:`retrace_fix.tf_functions`);
* the import/alias table (:mod:`retrace_fix.tfnames`);
* ``# retrace-fix: ignore[...]`` suppressions;
* a lazily computed position table (only files with findings pay for it, and only for the
  statements that hold a finding: :mod:`retrace_fix.positions`);
* the ``co_qualname`` of every ``def`` (:func:`qualnames`: how recorded traces name them).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from retrace_fix.cst_tree import module_code
from retrace_fix.positions import StatementPositions
from retrace_fix.tf_functions import TfFunctionSite, find_tf_functions
from retrace_fix.tfnames import ImportTable, Scope

SUPPRESSION_RE = re.compile(r"#\s*retrace-fix:\s*ignore(?:\[(?P<codes>[A-Za-z0-9_,\s]*)\])?")


@dataclass
class Suppressions:
    """Line number → suppressed codes (an empty set suppresses every code)."""

    by_line: dict[int, frozenset[str]] = field(default_factory=dict)

    @classmethod
    def from_source(cls, text: str) -> "Suppressions":
        by_line: dict[int, frozenset[str]] = {}
        if "retrace-fix" not in text:
            return cls(by_line)
        for number, line in enumerate(text.splitlines(), start=1):
            match = SUPPRESSION_RE.search(line)
            if match:
                codes = match.group("codes")
                by_line[number] = frozenset(
                    c.strip().upper() for c in (codes or "").split(",") if c.strip()
                )
        return cls(by_line)

    def suppresses(self, line: int, code: str) -> bool:
        codes = self.by_line.get(line)
        if codes is None:
            return False
        return not codes or any(code.startswith(c) for c in codes)


@dataclass
class ModuleAnalysis:
    """Everything a codemod needs to know about one parsed module."""

    module: cst.Module
    table: ImportTable
    tf_functions: dict[cst.FunctionDef, TfFunctionSite]
    suppressions: Suppressions
    wrapper: MetadataWrapper
    #: the text ``module`` was parsed from (its ``.code``)
    module_text: str = ""
    #: an edited tree's line -> the file's line (set by the codemod from its settings; None when
    #: no earlier codemod edited the tree): messages quote the file's lines, not the edited tree's
    origin_line: object = None
    _positions: object = None

    @classmethod
    def build(cls, module: cst.Module, source_text: str | None = None, module_text: str | None = None) -> "ModuleAnalysis":
        """``source_text``: the file's text (its suppression comments; default: the module's code);
        ``module_text``: the text ``module`` was parsed from when that is not ``source_text``
        (partial parsing empties defs)."""
        table = ImportTable.from_module(module)
        text = source_text if source_text is not None else module_code(module)  # an edited module's
        return cls(
            module=module,
            table=table,
            tf_functions=find_tf_functions(module, Scope(table)),
            suppressions=Suppressions.from_source(text),
            wrapper=MetadataWrapper(module, unsafe_skip_copy=True),
            module_text=module_text if module_text is not None else text,
        )

    def position(self, node: cst.CSTNode):
        if self._positions is None:
            self._positions = StatementPositions(self.module, self.module_text,
                                                 lambda: self.wrapper.resolve(PositionProvider))
        return self._positions[node]

    def line_of(self, node: cst.CSTNode) -> int:
        return self.position(node).start.line

    def file_line_of(self, node: cst.CSTNode) -> int:
        """``node``'s line in the file as the user has it, for messages ("the loop at line 12").

        :meth:`line_of` is the line in this tree, which an earlier codemod of the run may have
        edited (a line inserted above); the engine maps findings' positions back itself.
        """
        line = self.line_of(node)
        return self.origin_line(line) if self.origin_line is not None else line

    def column_of(self, node: cst.CSTNode) -> int:
        return self.position(node).start.column


# --------------------------------------------------------------------------- qualified names


class _QualnameCollector(cst.CSTVisitor):
    def __init__(self) -> None:
        self.names: dict[cst.FunctionDef, str] = {}
        self._stack: list[tuple[str, bool]] = []  # (name, is_function)

    def _prefix(self) -> str:
        parts: list[str] = []
        for name, is_function in self._stack:
            parts.append(name)
            if is_function:
                parts.append("<locals>")
        return ".".join(parts)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._stack.append((node.name.value, False))

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self._stack.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        prefix = self._prefix()
        self.names[node] = f"{prefix}.{node.name.value}" if prefix else node.name.value
        self._stack.append((node.name.value, True))

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._stack.pop()


def qualnames(module: cst.Module) -> dict[cst.FunctionDef, str]:
    """``co_qualname`` of every ``def`` (``Cls.step``, ``outer.<locals>.inner``)."""
    collector = _QualnameCollector()
    module.visit(collector)
    return collector.names
