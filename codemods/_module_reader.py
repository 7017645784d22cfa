"""What a codemod's decision-maker reads about the module being fixed.

:class:`ModuleReader` is the base of the classes that decide, on the unchanged
tree, what a codemod reports and edits (RTF006's ``HoistDecider`` through
``HoistFacts``, RTF007's ``_LoopDecider``, RTF008's ``_ReadFinder``, RTF009's
``_ArgDecider``): the codemod (``c``), the module's
analysis, a cached :class:`~retrace_fix.codemods._callsites.CachedScope`, and, on
first use, the module's calls, its ``global`` declarations and line numbers.
"""

from __future__ import annotations

import libcst as cst

from retrace_fix.codemods._base import RetraceCodemod
from retrace_fix.codemods._callsites import CachedScope, ModuleCalls
from retrace_fix.tfnames import global_names


class ModuleReader:
    """The module a codemod reads, and the facts about it that several decisions share."""

    def __init__(self, codemod: RetraceCodemod) -> None:
        self.c = codemod
        self.analysis = codemod.analysis
        self.scope = CachedScope(self.analysis.table, codemod.context.scratch)
        self._calls: ModuleCalls | None = None
        self._global_decls: set[str] | None = None

    @property
    def calls(self) -> ModuleCalls:
        """Every call of the module's functions (shared with the run's other codemods)."""
        if self._calls is None:
            self._calls = ModuleCalls.get(self.analysis, self.c.context.scratch)
        return self._calls

    @property
    def global_decls(self) -> set[str]:
        """Names some function of the module declares ``global``."""
        if self._global_decls is None:
            self._global_decls = global_names(self.analysis.module)
        return self._global_decls

    def line(self, node: cst.CSTNode) -> int:
        """``node``'s line in this tree (to compare positions)."""
        return self.analysis.line_of(node)

    def file_line(self, node: cst.CSTNode) -> int:
        """``node``'s line in the file, for messages (see ``ModuleAnalysis.file_line_of``)."""
        return self.analysis.file_line_of(node)
