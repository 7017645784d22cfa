"""Parse only what the tf.function analyses read: the other defs and classes become blank lines.

LibCST costs ten to twenty times CPython's parser, and a module that passes the
prefilter is mostly code that has nothing to do with its tf.functions (a test
module of 13,000 lines with three ``@tf.function`` tests in it).  :func:`prune`
reads CPython's tree, which the engine has already built, and returns the text
with the lines of every ``def`` and ``class`` the analyses need not see emptied:
the same number of lines, every other line unchanged, so each node LibCST builds
from it sits at the line and column it has in the file.

A *unit* is a ``def`` or ``class`` at module level or in the body of a class
(a ``def`` always goes whole, nested defs included).  What stays:

* all module-level code that is not a unit (imports, assignments,
  ``if __name__ == "__main__":`` blocks and whatever they hold);
* every unit that names tf.function: the identifier ``function`` (``tf.function``,
  ``def_function.function``) or a name an import binds to it
  (``from tensorflow import function as tfn``);
* then, until nothing changes, every unit that

  - mentions the name of a function the kept code defines, as a name or an
    attribute (the call sites of a tf.function, ``self.step(x)`` included; the
    callers of a function that creates one; ``tf.py_function(f)``);
  - defines a function of the same name as one the kept code defines (the
    call-site analysis ignores names that two defs share);
  - binds, where the module-wide analyses look, a name the kept code uses as a
    bare name: a module-level def or class, a method (the call-site analysis
    files methods with the module's names), a class attribute, a ``global``
    (what ``tf``, ``range``, a helper or a class passed as an argument mean);
    also a method that the kept code passes as ``self.m`` (``tf.function(self._step)``);

* of a class that stays: its header and decorators, every statement of its
  body that is not a unit, the members the rules above keep, the members by which
  tf.function keys its instances (``__eq__``, ``__hash__``, ``__tf_tracing_type__``,
  ``__tf_flatten__``), and its first member when nothing else would be left.

Every name-keyed question the analyses ask about a module (what does this name
mean, who calls this function, which class is this, which defs share this
name) is asked with a name of the kept code, and every unit that could change
the answer stays; questions that are not name-keyed are about the tf.functions,
which stay.  The name ``tf`` is always relevant (RTF001 asks whether it is
free to import).

A codemod is given the pruned module only if it declares ``NEEDS_WHOLE_MODULE =
False`` (:class:`~retrace_fix.codemods._base.RetraceCodemod`): it promises that
everything it reports or edits is about the tf.functions of the module - inside
them, in the calls that create them, at the calls of them - and that what it
reads elsewhere it finds through the questions above.  The engine never writes a
pruned tree: a file that one of its codemods would edit is run again on the
whole module.  ``tests/test_partial_parse.py`` checks on every golden case and
on generated programs that the findings are the same either way;
``benchmarks/corpus.py --check-prefilter`` checks real projects.
"""

from __future__ import annotations

import ast
import re
import weakref
from dataclasses import dataclass, field

from retrace_fix.ast_walk import TreeIndex, walk
from retrace_fix.tf_functions import ast_references_tf_function
from retrace_fix.tfnames import BUILTIN_NAMES

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")
#: members by which tf.function keys the instances of a class (RTF104 reads them)
IDENTITY_MEMBERS = frozenset({"__eq__", "__hash__", "__tf_tracing_type__", "__tf_flatten__"})
#: names the analyses look up without the code mentioning them
ALWAYS_RELEVANT = frozenset({"tf"})

_UNIT_TYPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


class _Names:
    """What the rules need to know about some statements.

    ``mentions``: every identifier (names, attributes, defs, classes, parameters,
    keywords, imports); ``names``: the bare names; ``functions``: the names of the
    defs, at any depth; ``declared``: the names declared ``global`` or ``nonlocal``;
    ``function_aliases``: the names an import binds to ``function``; ``imported``: the
    names imports bind; ``creates``: whether a call's function is named like tf.function
    (``tf_function_names``), and ``wrapped`` the first argument of such calls (``f`` of
    ``tf.function(f)``, ``m`` of ``tf.function(self.m)``).
    """

    __slots__ = ("mentions", "names", "functions", "declared", "function_aliases", "imported", "wrapped", "root")

    def __init__(self, nodes, index: TreeIndex) -> None:
        self.root = nodes[0] if len(nodes) == 1 else None
        mentions: set[str] = set()
        names: set[str] = set()
        functions: set[str] = set()
        declared: set[str] = set()
        aliases: set[str] = set()
        imported: set[str] = set()
        self.wrapped: list[tuple[ast.expr, ast.expr]] = []  # (the called function, its first argument)
        mention = mentions.add
        for root in nodes:
            for node in index.subtree(root):
                kind = type(node)
                if kind is ast.Name:
                    mention(node.id)
                    names.add(node.id)
                elif kind is ast.Attribute:
                    mention(node.attr)
                elif kind is ast.Call:
                    if node.args:
                        self.wrapped.append((node.func, node.args[0]))
                elif kind is ast.arg:
                    mention(node.arg)
                elif kind is ast.keyword:
                    if node.arg:
                        mention(node.arg)
                elif kind is ast.FunctionDef or kind is ast.AsyncFunctionDef:
                    mention(node.name)
                    functions.add(node.name)
                elif kind is ast.ClassDef:
                    mention(node.name)
                elif kind is ast.alias:
                    mentions.update(node.name.split("."))
                    bound = node.asname or node.name.split(".")[0]
                    mention(bound)
                    imported.add(bound)
                    if node.name == "function" and node.asname:
                        aliases.add(node.asname)
                elif kind is ast.ImportFrom:
                    if node.module:
                        mentions.update(node.module.split("."))
                elif kind is ast.Global or kind is ast.Nonlocal:
                    mentions.update(node.names)
                    declared.update(node.names)
                elif kind is ast.ExceptHandler or kind is ast.MatchAs or kind is ast.MatchStar:
                    if node.name:
                        mention(node.name)
                elif kind is ast.MatchMapping:
                    if node.rest:
                        mention(node.rest)
                elif kind is ast.MatchClass:
                    mentions.update(node.kwd_attrs)
        self.mentions = mentions
        self.names = names
        self.functions = functions
        self.declared = declared
        self.function_aliases = aliases
        self.imported = imported

    def wrap_targets(self, tf_function_names: set[str]) -> set[str]:
        """The names ``tf.function(f)``, ``tf.function(...)(f)`` and ``tf.function(self.m)`` wrap."""
        targets: set[str] = set()
        for func, first in self.wrapped:
            if type(func) is ast.Call:
                func = func.func
            name = func.id if type(func) is ast.Name else func.attr if type(func) is ast.Attribute else None
            if name not in tf_function_names:
                continue
            if type(first) is ast.Name:
                targets.add(first.id)
            elif type(first) is ast.Attribute:
                targets.add(first.attr)
        return targets


@dataclass(eq=False)
class _Unit:
    node: ast.stmt
    first: int  # first line (1-based; the first decorator's)
    last: int  # last line
    #: the class it is a member of, weakly: a class holds its members, and a strong reference back
    #: would make every class with members a cycle, its tree left to the cyclic collector after
    #: each file (the outline's list of units keeps the class alive); None at module level
    parent_ref: "weakref.ReferenceType[_Unit] | None"
    own: _Names  # a def: all of it; a class: its header and the statements that are not members
    binds: set[str]  # names it binds where the module-wide analyses look
    members: list["_Unit"] = field(default_factory=list)
    kept: bool = False

    @property
    def parent(self) -> "_Unit | None":
        return self.parent_ref() if self.parent_ref is not None else None

    @property
    def name(self) -> str:
        return self.node.name  # type: ignore[attr-defined]


class Outline:
    """CPython's tree of one module, read for what the tf.function analyses need of it."""

    def __init__(self, text: str, tree: ast.Module) -> None:
        self.text = text
        self.tree = tree
        self._index: TreeIndex | None = None
        self._references: bool | None = None
        self._lines: list[str] | None = None
        self._units: list[_Unit] = []
        self._active: set[int] = set()  # ids of the _Names of the code about tf.functions
        self._tf_function_code: list[ast.AST] = []
        #: what the codemods' tree checks read of ``tree`` (:mod:`retrace_fix.codemods._tree_facts`)
        self.tree_facts: object = None

    @property
    def index(self) -> TreeIndex:
        """The one walk of ``tree`` that every reader of it asks (made on first use)."""
        if self._index is None:
            self._index = TreeIndex(self.tree)
        return self._index

    @property
    def references_tf_function(self) -> bool:
        """Could any name of the module be ``tf.function``
        (:func:`~retrace_fix.tf_functions.ast_references_tf_function`)?"""
        if self._references is None:
            self._references = ast_references_tf_function(self.tree, self.index)
        return self._references

    def tf_function_code(self) -> list[ast.AST]:
        """The statements (and defs and classes) a tf.function, and so its body, can be in:
        those that name tf.function and the defs that ``tf.function(f)`` wraps."""
        self._read()
        return self._tf_function_code

    def pruned_text(self) -> str | None:
        """The text with the lines of every def and class the tf.function analyses need not
        see emptied (line endings kept); None when nothing would be emptied."""
        self._read()
        units, active = self._units, self._active
        if not units:
            return None
        everything = [*self._fixed, *(unit.own for unit in units)]
        # 2. the code that calls the tf.functions, or the functions that create them
        functions = _wrap_names(self._fixed, self._tf_function_names, self.index).union(
            *(names.functions for names in everything if id(names) in active))
        active = active | {id(names) for names in everything if not functions.isdisjoint(names.mentions)}
        # 3. the definitions that code asks about by name; the analyses read the values of
        # assignments (module level, class bodies), so their names count too
        names = set(ALWAYS_RELEVANT).union(*(names.names for names in everything if id(names) in active))
        valued = [(code, _bindings([code.root], self.index) | code.declared) for code in self._fixed]
        valued += [(unit.own, unit.binds) for unit in units if isinstance(unit.node, ast.ClassDef)]
        changed = True
        while changed:
            changed = False
            for code, binds in valued:
                if id(code) not in active and not binds.isdisjoint(names):
                    active.add(id(code))
                    names |= code.names
                    changed = True
        shadowing = BUILTIN_NAMES | set().union(*(names.imported for names in self._fixed)) | ALWAYS_RELEVANT
        for unit in units:
            if id(unit.own) in active or not unit.binds.isdisjoint(names) or (
                unit.parent is None and not unit.binds.isdisjoint(shadowing)
            ):
                _keep(unit)
        # 4. what a class that stays needs: the members tf.function keys its instances by, a body
        for unit in units:
            if unit.kept and unit.members:
                for member in unit.members:
                    if member.name in IDENTITY_MEMBERS:
                        _keep(member)
                if len(unit.members) == len(unit.node.body) and not any(m.kept for m in unit.members):  # type: ignore[attr-defined]
                    _keep(unit.members[0])
        lines = self._lines
        assert lines is not None
        blank = [False] * (len(lines) + 1)
        pruned = False
        for unit in units:
            if not unit.kept and (unit.parent is None or unit.parent.kept):
                blank[unit.first:unit.last + 1] = [True] * (unit.last + 1 - unit.first)
                pruned = True
        if not pruned:
            return None
        return "".join(
            line[len(line.rstrip("\r\n")):] if blank[number] else line
            for number, line in enumerate(lines, start=1)
        )

    def _read(self) -> None:
        """Units, module-level code, and (step 1) the code about tf.functions."""
        if self._lines is not None:
            return
        lines = self._lines = _LINE.findall(self.text)
        units, index = self._units, self.index
        fixed: list[_Names] = []  # module-level code that is not a unit: always kept
        for statement in self.tree.body:
            if not (isinstance(statement, _UNIT_TYPES) and _unit(statement, None, lines, units, index)):
                fixed.append(_Names([statement], index))
        self._fixed = fixed
        everything = [*fixed, *(unit.own for unit in units)]
        self._tf_function_names = tf_function_names = {"function"}.union(
            *(names.function_aliases for names in everything))
        # 1. the code that names tf.function, and the defs it wraps
        seeds = [names for names in everything if not tf_function_names.isdisjoint(names.mentions)]
        wrapped = set().union(*(names.wrap_targets(tf_function_names) for names in seeds))
        self._active = {id(names) for names in seeds}
        self._active.update(id(names) for names in everything if not wrapped.isdisjoint(names.functions))
        code: list[ast.AST] = [names.root for names in fixed if id(names) in self._active]
        code.extend(unit.node for unit in units if id(unit.own) in self._active)
        self._tf_function_code = code


def _keep(unit: _Unit | None) -> None:
    while unit is not None and not unit.kept:
        unit.kept = True
        unit = unit.parent


def _first_line(node: ast.stmt) -> int:
    decorators = getattr(node, "decorator_list", None)
    return min([node.lineno, *(d.lineno for d in decorators)]) if decorators else node.lineno


def _unit(node: ast.stmt, parent: _Unit | None, lines: list[str], units: list[_Unit], index: TreeIndex) -> _Unit | None:
    """The unit of a def or class that has its lines to itself (else None: it stays as code)."""
    first, last = _first_line(node), node.end_lineno
    if last is None or last > len(lines) or not _alone_on_lines(node, first, last, lines):
        return None
    parent_ref = weakref.ref(parent) if parent is not None else None
    if not isinstance(node, ast.ClassDef):
        own = _Names([node], index)
        unit = _Unit(node, first, last, parent_ref, own, {node.name, *own.declared})  # type: ignore[attr-defined]
        units.append(unit)
        return unit
    header: list[ast.AST] = [*node.bases, *node.keywords, *node.decorator_list]
    unit = _Unit(node, first, last, parent_ref, _Names((), index), set())
    units.append(unit)
    rest: list[ast.stmt] = []
    for statement in node.body:
        member = _unit(statement, unit, lines, units, index) if isinstance(statement, _UNIT_TYPES) else None
        if member is None:
            rest.append(statement)
        else:
            unit.members.append(member)
    unit.own = _Names([*header, *rest], index)
    unit.own.mentions.add(node.name)
    unit.binds = {node.name, *unit.own.declared, *_bindings(rest, index)}
    return unit


def _alone_on_lines(node: ast.stmt, first: int, last: int, lines: list[str]) -> bool:
    """Nothing but indentation before the unit on its first line, nothing but a comment after it."""
    if not lines[first - 1].lstrip(" \t\f").startswith(("@", "def", "async", "class")):
        return False
    tail = lines[last - 1].rstrip("\r\n").encode("utf-8")[node.end_col_offset or 0:].strip()
    return not tail or tail.startswith(b"#")


def _bindings(statements: list[ast.stmt], index: TreeIndex) -> set[str]:
    """Every name the statements bind, nested scopes included (a superset of what a class body binds)."""
    names: set[str] = set()
    for statement in statements:
        for node in index.subtree(statement):
            kind = type(node)
            if kind is ast.Name:
                if type(node.ctx) is not ast.Load:
                    names.add(node.id)
            elif kind is ast.alias:
                names.add(node.asname or node.name.split(".")[0])
            elif kind in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
                names.add(node.name)
            elif kind in (ast.ExceptHandler, ast.MatchAs, ast.MatchStar):
                if node.name:
                    names.add(node.name)
            elif kind is ast.MatchMapping:
                if node.rest:
                    names.add(node.rest)
    return names


def _wrap_names(fixed: list[_Names], tf_function_names: set[str], index: TreeIndex) -> set[str]:
    """Names module-level code binds to a value that names tf.function (``g = tf.function(f)``):
    the call-site analyses call them like functions."""
    names: set[str] = set()
    for code in fixed:
        if tf_function_names.isdisjoint(code.mentions):
            continue
        for node in index.subtree(code.root):
            if not isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.NamedExpr)) or node.value is None:
                continue
            if any(
                (type(sub) is ast.Name and sub.id in tf_function_names)
                or (type(sub) is ast.Attribute and sub.attr in tf_function_names)
                for sub in walk(node.value)
            ):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    names.update(sub.id for sub in walk(target) if type(sub) is ast.Name)
    return names
