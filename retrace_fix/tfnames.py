"""Resolve what ``tf``, ``tf.function``, ``range`` and ``keras`` mean in one module.

A cheap stand-in for LibCST's ``QualifiedNameProvider`` (which costs about four
times the parse): one walk over the module's import statements builds an alias
table, and a per-function table of local bindings handles shadowing
(``def f(tf): ...`` or ``import numpy as tf`` inside a function).

The table maps a bound name to the dotted name it stands for::

    import tensorflow as tf                  tf       -> tensorflow
    from tensorflow import function as tfn   tfn      -> tensorflow.function
    from tensorflow import keras             keras    -> tensorflow.keras
    import keras                             keras    -> keras

``qualify(node)`` turns ``tf.keras.Model`` into ``tensorflow.keras.Model``;
:func:`canonical` folds the many spellings of the same API together
(``tensorflow.keras.X`` / ``tf_keras.X`` / ``keras.X`` → ``keras.X``,
``tensorflow.compat.v2.function`` → ``tensorflow.function``).

It is also the one home of "who binds what": :func:`binding_sites` walks a scope and
names every binding with the node that makes it; :func:`local_bindings`,
:func:`bound_names`, :func:`statement_binds`, :func:`times_bound` and
:func:`global_names` are the questions the codemods ask of it.  Its counterpart, "who
reads what": :func:`mentions`, :func:`names_in` and :func:`loads_of`.
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass, field
from typing import Iterator

import libcst as cst

from retrace_fix.cst_tree import target_names
from retrace_fix.fastvisit import push_children

BUILTIN_NAMES = frozenset(dir(builtins))

TF_FUNCTION = "tensorflow.function"
_TF_PREFIXES = ("tensorflow.compat.v2.", "tensorflow.compat.v1.", "tensorflow.experimental.numpy.")
_KERAS_PREFIXES = (
    "tensorflow.keras.",
    "tensorflow.python.keras.",
    "tf_keras.",
    "keras.src.",
    "tensorflow.compat.v2.keras.",
    "tensorflow.compat.v1.keras.",
)

# Public TF spellings of tf.function besides tensorflow.function itself.
_FUNCTION_ALIASES = {
    "tensorflow.python.eager.def_function.function": TF_FUNCTION,
    "tensorflow.python.eager.polymorphic_function.polymorphic_function.function": TF_FUNCTION,
}


def dotted_name(node: cst.BaseExpression) -> str | None:
    """``a.b.c`` for a Name/Attribute chain, else None."""
    parts: list[str] = []
    while isinstance(node, cst.Attribute):
        parts.append(node.attr.value)
        node = node.value
    if isinstance(node, cst.Name):
        parts.append(node.value)
        return ".".join(reversed(parts))
    return None


def _module_dotted(node: cst.BaseExpression | None) -> str | None:
    return dotted_name(node) if node is not None else None


def canonical(qualified: str | None) -> str | None:
    """Fold equivalent spellings: compat.v2, tf.keras/tf_keras → keras, def_function."""
    if qualified is None:
        return None
    if qualified in _FUNCTION_ALIASES:
        return _FUNCTION_ALIASES[qualified]
    for prefix in _KERAS_PREFIXES:
        if qualified.startswith(prefix) or qualified == prefix[:-1]:
            return "keras" + qualified[len(prefix) - 1 :]
    for prefix in _TF_PREFIXES:
        if qualified.startswith(prefix):
            return canonical("tensorflow." + qualified[len(prefix) :])
    return qualified


@dataclass
class ImportTable:
    """Module-level name → dotted name, plus every name the module rebinds."""

    aliases: dict[str, str] = field(default_factory=dict)
    rebound: set[str] = field(default_factory=set)  # module-level non-import bindings

    @classmethod
    def from_module(cls, module: cst.Module) -> "ImportTable":
        table = cls()
        clear_binding_cache()  # a new module: the cached function tables are of old trees
        _collect_bindings(module.body, table.aliases, table.rebound)
        for name in table.rebound:
            table.aliases.pop(name, None)
        return table

    def name_for(self, qualified: str) -> str | None:
        """The local spelling of module ``qualified`` (``tensorflow`` → ``tf``)."""
        for local, target in sorted(self.aliases.items()):
            if target == qualified:
                return local
        return None


class Scope:
    """A chain of binding tables: the module's, then one per enclosing function."""

    def __init__(self, table: ImportTable) -> None:
        self.table = table
        self._locals: list[dict[str, str | None]] = []

    def push_function(self, node: cst.FunctionDef | cst.Lambda) -> None:
        self._locals.append(_cached_local_bindings(node))

    def pop_function(self) -> None:
        self._locals.pop()

    def lookup(self, name: str) -> str | None:
        """Qualified meaning of a bare name, ``None`` when it is a plain local value."""
        for frame in reversed(self._locals):
            if name in frame:
                return frame[name]
        if name in self.table.aliases:
            return self.table.aliases[name]
        if name in self.table.rebound:
            return None
        if name in BUILTIN_NAMES:
            return "builtins." + name
        return None

    def is_local(self, name: str) -> bool:
        """Is ``name`` bound in one of the enclosing functions (not the module)?"""
        return any(name in frame for frame in self._locals)

    def qualify(self, node: cst.BaseExpression) -> str | None:
        """Canonical dotted meaning of ``node`` (``tf.function`` → ``tensorflow.function``)."""
        dotted = dotted_name(node)
        if dotted is None:
            return None
        head, _, rest = dotted.partition(".")
        base = self.lookup(head)
        if base is None:
            return None
        return canonical(f"{base}.{rest}" if rest else base)

    def is_tf_function(self, node: cst.BaseExpression) -> bool:
        return self.qualify(node) == TF_FUNCTION

    def is_builtin(self, node: cst.BaseExpression, name: str) -> bool:
        return self.qualify(node) == "builtins." + name

    def tf_module_name(self) -> str | None:
        """How this module spells ``tensorflow`` (``tf``), if it imports it and no local shadows it."""
        local = self.table.name_for("tensorflow")
        if local is not None and self.lookup(local) == "tensorflow":
            return local
        return None


# --------------------------------------------------------------------------- bindings


def _bind_import(node: cst.Import | cst.ImportFrom, out: dict[str, str | None]) -> None:
    if isinstance(node, cst.Import):
        for alias in node.names:
            full = dotted_name(alias.name) or ""
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                out[alias.asname.name.value] = full
            else:
                head = full.split(".")[0]
                out[head] = head
        return
    if node.relative:  # from . import x: project-local, never tensorflow
        if isinstance(node.names, cst.ImportStar):
            return
        for alias in node.names:
            bound = alias.asname.name if alias.asname is not None else alias.name
            if isinstance(bound, cst.Name):
                out[bound.value] = None
        return
    module = _module_dotted(node.module) or ""
    if isinstance(node.names, cst.ImportStar):
        return
    for alias in node.names:
        name = dotted_name(alias.name) or ""
        bound = alias.asname.name if alias.asname is not None else alias.name
        if isinstance(bound, cst.Name):
            out[bound.value] = f"{module}.{name}"


def binding_sites(scope, nested: bool = False) -> Iterator[tuple[str, cst.CSTNode]]:
    """Every name bound in ``scope``, with the node that binds it, in source order.

    ``scope`` is a function or lambda (its parameters and body), a class (its body), or any
    other node or list of nodes (a module, a statement, a block).  The binding node is an
    ``Assign`` (once per name per target), ``AnnAssign``, ``AugAssign``, ``For``, ``NamedExpr``,
    the ``AsName`` of ``with``/``except``, the ``Import``/``ImportFrom`` statement
    (``import a.b`` binds ``a``), a ``Param``, a ``FunctionDef``/``ClassDef`` (its name), or a
    ``Global``/``Nonlocal`` (each name it declares: a declaration, not a binding).
    Comprehension targets bind nothing outside the comprehension.  A def, class or lambda
    inside ``scope`` is a scope of its own: its body is walked only when ``nested`` is true.
    """
    if isinstance(scope, (cst.FunctionDef, cst.Lambda)):
        roots = [scope.params, scope.body]
    elif isinstance(scope, cst.ClassDef):
        roots = [scope.body]
    elif isinstance(scope, (list, tuple)):
        roots = list(scope)
    else:
        roots = [scope]
    stack = list(reversed(roots))
    actions = _ACTIONS
    while stack:
        node = stack.pop()
        action = actions.get(type(node))
        if action is None:
            push_children(node, stack)
        elif action == _TARGET:
            for name in target_names(node.target):
                yield name, node
            push_children(node, stack)
        elif action == _LEAF:
            continue
        elif action == _ASSIGN:
            for target in node.targets:
                for name in target_names(target.target):
                    yield name, node
            push_children(node, stack)
        elif action == _SCOPE:  # a def or class binds its name here
            if type(node) is not cst.Lambda:
                yield node.name.value, node
            if nested:
                push_children(node, stack)
        elif action == _PARAM:
            yield node.name.value, node
            push_children(node, stack)
        elif action == _IMPORT:
            for name in _imported_names(node):
                yield name, node
        elif action == _AS_NAME:  # with ... as x / except E as x (imports are handled above)
            for name in target_names(node.name):
                yield name, node
        else:  # global / nonlocal
            for item in node.names:
                yield item.name.value, node


_SCOPE, _IMPORT, _ASSIGN, _TARGET, _AS_NAME, _PARAM, _DECLARED, _LEAF = range(8)
#: what binding_sites does with a node, by type (other types: walk their children)
_ACTIONS = {
    cst.FunctionDef: _SCOPE, cst.ClassDef: _SCOPE, cst.Lambda: _SCOPE,
    cst.Import: _IMPORT, cst.ImportFrom: _IMPORT,
    cst.Assign: _ASSIGN,
    cst.AnnAssign: _TARGET, cst.AugAssign: _TARGET, cst.For: _TARGET, cst.NamedExpr: _TARGET,
    cst.AsName: _AS_NAME,
    cst.Param: _PARAM,
    cst.Global: _DECLARED, cst.Nonlocal: _DECLARED,
    cst.Name: _LEAF, cst.Integer: _LEAF, cst.Float: _LEAF, cst.Imaginary: _LEAF, cst.SimpleString: _LEAF,
    cst.Ellipsis: _LEAF,
}

_DECLARATIONS = (cst.Global, cst.Nonlocal)
#: bindings that take effect on every pass of a loop or read the old value: never "bound once"
_REBINDINGS = (cst.AugAssign, cst.For)


def _imported_names(node: cst.Import | cst.ImportFrom) -> list[str]:
    if isinstance(node.names, cst.ImportStar):
        return []
    names = []
    for alias in node.names:
        bound = alias.asname.name if alias.asname is not None else alias.name
        while isinstance(bound, cst.Attribute):  # import a.b binds a
            bound = bound.value
        if isinstance(bound, cst.Name):
            names.append(bound.value)
    return names


def bound_names(scope, nested: bool = False) -> set[str]:
    """The names :func:`binding_sites` finds bound in ``scope`` (declarations left out)."""
    return {name for name, node in binding_sites(scope, nested) if not isinstance(node, _DECLARATIONS)}


def statement_binds(statement: cst.CSTNode) -> set[str]:
    """The names a statement binds in the scope that holds it (a def or class: its name)."""
    if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
        return {statement.name.value}
    return bound_names(statement)


def times_bound(function: cst.FunctionDef, name: str) -> int:
    """How often ``function`` binds ``name`` in its own scope, parameters included; a binding
    that repeats or reads the old value (``for name in``, ``name += 1``) counts twice, so that
    1 means "bound once"."""
    return sum(
        2 if isinstance(node, _REBINDINGS) else 1
        for bound, node in binding_sites(function)
        if bound == name and not isinstance(node, _DECLARATIONS)
    )


def global_names(module: cst.Module) -> set[str]:
    """Names some function of ``module`` declares ``global`` (and may rebind)."""
    return {name for name, node in binding_sites(module, nested=True) if isinstance(node, cst.Global)}


def _scope_bindings(roots: list, imports: dict[str, str | None], values: set[str]) -> None:
    """Names bound directly in one scope, starting from ``roots``: imports into ``imports``
    (name -> what it imports), the rest into ``values``."""
    seen: set[int] = set()
    for name, node in binding_sites(roots):
        kind = type(node)
        if kind is cst.Import or kind is cst.ImportFrom:
            if id(node) not in seen:
                seen.add(id(node))
                _bind_import(node, imports)
        elif kind is cst.Global:
            values.discard(name)
        elif kind is not cst.Nonlocal:
            values.add(name)


def _collect_bindings(body, aliases: dict[str, str | None], rebound: set[str]) -> None:
    imports: dict[str, str | None] = {}
    values: set[str] = set()
    _scope_bindings(list(body), imports, values)
    for name, target in imports.items():
        if target is None:
            rebound.add(name)
        else:
            aliases[name] = target
    # An import alias inside `with ... as tf` etc. is rare; plain rebinding wins.
    rebound.update(n for n in values if n not in imports)


# Binding tables per function node (nodes are immutable, so a table never goes
# stale); every codemod pushes every function it visits, so without the cache each
# function body would be walked once per codemod.  Cleared for every new module.
_LOCALS_CACHE: dict[int, tuple[cst.CSTNode, dict[str, str | None]]] = {}
_LOCALS_CACHE_LIMIT = 20_000


def clear_binding_cache() -> None:
    _LOCALS_CACHE.clear()


def _cached_local_bindings(node: cst.FunctionDef | cst.Lambda) -> dict[str, str | None]:
    entry = _LOCALS_CACHE.get(id(node))
    if entry is not None and entry[0] is node:
        return entry[1]
    imports: dict[str, str | None] = {}
    values: set[str] = set()
    _scope_bindings([node.params, node.body], imports, values)
    frame: dict[str, str | None] = {name: None for name in values}
    frame.update(imports)
    if len(_LOCALS_CACHE) >= _LOCALS_CACHE_LIMIT:
        _LOCALS_CACHE.clear()
    _LOCALS_CACHE[id(node)] = (node, frame)
    return frame


def mentions(expr: cst.CSTNode, name: str) -> bool:
    """Does ``expr`` read the name ``name`` (not as an attribute: ``x.name`` reads only ``x``)?"""
    return name in names_in(expr)


def names_in(expr: cst.CSTNode) -> list[str]:
    """The plain names in ``expr``, in source order, attribute names left out (``x.name`` has only
    ``x``); the keyword of a keyword argument is a name here too."""
    found: list[str] = []

    class _Names(cst.CSTVisitor):
        def visit_Name(self, node: cst.Name) -> None:
            found.append(node.value)

        def visit_Attribute(self, node: cst.Attribute) -> bool:
            node.value.visit(self)
            return False

    expr.visit(_Names())
    return found


def loads_of(function: cst.FunctionDef, name: str) -> list[cst.Name]:
    """Every read of local ``name`` in ``function`` (nested scopes that rebind it skipped)."""
    found: list[cst.Name] = []

    class _V(cst.CSTVisitor):
        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            return node is function or name not in local_bindings(node)

        def visit_Lambda(self, node: cst.Lambda) -> bool:
            return name not in local_bindings(node)

        def visit_Attribute(self, node: cst.Attribute) -> bool:
            node.value.visit(self)
            return False

        def visit_AssignTarget(self, node: cst.AssignTarget) -> bool:
            return not isinstance(node.target, cst.Name)  # `a[batch] = ...` reads it

        def visit_Arg(self, node: cst.Arg) -> bool:
            node.value.visit(self)
            return False

        def visit_Param(self, node: cst.Param) -> bool:
            return False

        def visit_Name(self, node: cst.Name) -> None:
            if node.value == name:
                found.append(node)

    function.body.visit(_V())
    return found


def named_params(params: cst.Parameters, keyword_only: bool = True) -> list[cst.Param]:
    """The parameters a call binds by name or position, in order: positional-only, ordinary, then
    (unless ``keyword_only`` is False) keyword-only; never ``*args`` or ``**kwargs``."""
    positional = [*params.posonly_params, *params.params]
    return [*positional, *params.kwonly_params] if keyword_only else positional


def all_params(params: cst.Parameters) -> list[cst.Param]:
    """Every parameter that binds a name: :func:`named_params`, then ``*args`` and ``**kwargs``."""
    return [*named_params(params), *(p for p in (params.star_arg, params.star_kwarg) if isinstance(p, cst.Param))]


def local_bindings(node: cst.FunctionDef | cst.Lambda) -> dict[str, str | None]:
    """Names bound in a function's own scope: imports map to their target, others to None."""
    return dict(_cached_local_bindings(node))
