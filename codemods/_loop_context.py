"""What surrounds a loop in its function: the names bound before it (and to what),
and the names read after it (a later iteration of an enclosing loop included).

The body checker of :mod:`retrace_fix.codemods._loop_safety` reads it for its
loop-carried checks: a value that starts as a Python number and changes in the
loop, a name first bound in the loop and read after it.  Pure LibCST.
"""

from __future__ import annotations

import libcst as cst

from retrace_fix.codemods._tf_values import names_in
from retrace_fix.tfnames import all_params


class LoopContext(cst.CSTVisitor):
    """Bindings before the loop and names read after it (textual order; loops folded)."""

    def __init__(self, loop: cst.For) -> None:
        self.loop = loop
        self.state = "before"
        self.before: dict[str, cst.BaseExpression | str] = {}
        self.after_reads: set[str] = set()
        self._loops: list[cst.CSTNode] = []
        self.enclosing_loops: list[cst.CSTNode] = []

    def run(self, function: cst.FunctionDef) -> "LoopContext":
        for param in all_params(function.params):
            self.before[param.name.value] = "param"
        function.body.visit(self)
        for outer in self.enclosing_loops[:1]:
            # the outer loop runs its body again after this loop: every read in it counts
            self.after_reads |= names_in(outer)
        return self

    def _bind(self, target: cst.BaseExpression, value) -> None:
        if self.state != "before":
            return
        if isinstance(target, cst.Name):
            self.before[target.value] = value
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._bind(element.value, "unknown")
        elif isinstance(target, cst.StarredElement):
            self._bind(target.value, "unknown")

    def visit_For(self, node: cst.For) -> bool:
        if node is self.loop:
            self.enclosing_loops = list(self._loops)
            self.state = "after"
            return False
        if self.state == "after":
            # a later `for i in ...` rebinds its target: the reads of `i` in its body are not of ours
            node.iter.visit(self)
            outer, self.after_reads = self.after_reads, set()
            node.body.visit(self)
            self.after_reads = outer | (self.after_reads - set(names_in(node.target)))
            if node.orelse is not None:
                node.orelse.visit(self)
            return False
        self._bind(node.target, "python-loop")
        self._loops.append(node)
        return True

    def leave_For(self, original_node: cst.For) -> None:
        if self._loops and self._loops[-1] is original_node:
            self._loops.pop()

    def visit_While(self, node: cst.While) -> None:
        self._loops.append(node)

    def leave_While(self, original_node: cst.While) -> None:
        self._loops.pop()

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._bind(target.target, node.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._bind(node.target, node.value if node.value is not None else "unknown")

    def visit_AsName(self, node: cst.AsName) -> None:
        self._bind(node.name, "unknown")

    def visit_Name(self, node: cst.Name) -> None:
        if self.state == "after":
            self.after_reads.add(node.value)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        if self.state == "after":
            self.after_reads |= names_in(node.body)
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False
