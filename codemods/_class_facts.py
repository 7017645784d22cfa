"""Facts about a class and its attributes, read from the module alone.

Shared by RTF006 (hoist-tf-function: a nested def made a method, ``tf.function(self.m)``
cached on the object) and RTF009 (bind-callable-once): the class that holds a method
(:func:`enclosing_class`), its statements, where an attribute is assigned
(:func:`attribute_stores`), the ``self.x`` a method reads that another method sets
(:func:`attributes_set_per_call`), why instances may not be hashable keys
(:func:`unhashable`) and why a new method may override a base class's
(:func:`base_class_risks`).
"""

from __future__ import annotations

import libcst as cst

from retrace_fix.codemods._creations import Creation
from retrace_fix.cst_tree import find_nodes, stored_targets
from retrace_fix.node_text import short_code
from retrace_fix.tfnames import dotted_name, named_params, statement_binds

#: methods that run once per object: what they set is not a per-call value
INIT_METHODS = frozenset({"__init__", "__post_init__", "__new__", "build", "setup"})


def method_self(owner: cst.FunctionDef, creation: Creation, scope) -> str | None:
    """The first parameter of ``owner`` when it is a plain method of a class (not static/class)."""
    if len(creation.functions) != 1:
        return None  # a def inside a function inside a method: no class to add it to
    params = named_params(owner.params, keyword_only=False)
    if not params:
        return None
    for decorator in owner.decorators:
        q = scope.qualify(decorator.decorator)
        if q in ("builtins.staticmethod", "builtins.classmethod"):
            return None
    first = params[0].name.value
    return first if first == "self" else None


def first_param(function: cst.FunctionDef) -> str | None:
    params = named_params(function.params, keyword_only=False)
    return params[0].name.value if params else None


def enclosing_class(module: cst.Module, function: cst.FunctionDef) -> cst.ClassDef | None:
    found: list[cst.ClassDef] = []

    class _V(cst.CSTVisitor):
        def visit_ClassDef(self, node: cst.ClassDef) -> bool:
            if isinstance(node.body, cst.IndentedBlock) and any(s is function for s in node.body.body):
                found.append(node)
            return True

    module.visit(_V())
    return found[0] if found else None


def class_statements(cls: cst.ClassDef) -> list[cst.CSTNode]:
    body = cls.body.body if isinstance(cls.body, cst.IndentedBlock) else []
    return list(body)


def attribute_stores(module: cst.Module, attr: str) -> list[cst.CSTNode]:
    """``x.attr = ...`` / ``x.attr += ...`` / ``setattr(x, "attr", ...)`` anywhere in the module."""

    def stores(node: cst.CSTNode) -> bool:
        if isinstance(node, cst.Call):
            if isinstance(node.func, cst.Name) and node.func.value == "setattr" and len(node.args) >= 2:
                value = node.args[1].value
                return isinstance(value, cst.SimpleString) and value.evaluated_value == attr
            return False
        return not isinstance(node, cst.AssignTarget) and any(
            isinstance(target, cst.Attribute) and target.attr.value == attr for target in stored_targets(node)
        )

    return [node for node in _store_candidates(module) if stores(node)]


#: the module :func:`_store_candidates` read last, and its answer (the tree is kept referenced,
#: so an edited tree, a new object, never finds the old answer)
_CANDIDATES: tuple = (None, [])
_STORE_TYPES = (cst.Call, cst.Assign, cst.AugAssign, cst.AnnAssign)


def _store_candidates(module: cst.Module) -> list[cst.CSTNode]:
    """The nodes of ``module`` that can store an attribute (calls and assignments), in source
    order: one walk per tree however many attributes :func:`attribute_stores` is asked about."""
    global _CANDIDATES
    if _CANDIDATES[0] is not module:
        _CANDIDATES = (module, find_nodes(module, lambda node: isinstance(node, _STORE_TYPES)))
    return _CANDIDATES[1]


def unhashable(cls: cst.ClassDef) -> str | None:
    """Why instances of ``cls`` may not serve as keys of tf.function's per-object cache."""
    for decorator in cls.decorators:
        expr = decorator.decorator
        name = dotted_name(expr.func if isinstance(expr, cst.Call) else expr) or ""
        if name.split(".")[-1] in ("dataclass", "define", "frozen", "s", "attrs"):
            return f"is a `@{name}` class (value-based equality)"
    for statement in class_statements(cls):
        for attr in ("__eq__", "__slots__", "__hash__"):
            if attr in statement_binds(statement):
                return f"defines `{attr}`"
    return None


def base_class_risks(cls: cst.ClassDef, name: str, module: cst.Module) -> list[str]:
    """Why adding method ``name`` to ``cls`` may override something this module does not show."""
    local = {s.name.value: s for s in module.body if isinstance(s, cst.ClassDef)}
    risks: list[str] = []
    seen: set[str] = set()

    def walk(klass: cst.ClassDef) -> None:
        for base in klass.bases:
            if base.keyword is not None:
                continue
            shown = dotted_name(base.value) or short_code(base.value)
            if shown == "object" or shown in seen:
                continue
            seen.add(shown)
            defined = local.get(shown)
            if defined is None:
                risks.append(f"`{shown}` (a base class of `{cls.name.value}`) may define `{name}` or rely on "
                             "instances being plain keys: the new method would override it")
                continue
            if any(name in statement_binds(s) for s in class_statements(defined)):
                risks.append(f"`{shown}` defines `{name}`")
                continue
            walk(defined)

    walk(cls)
    for other in local.values():
        if other is not cls and any(dotted_name(b.value) == cls.name.value for b in other.bases):
            if any(name in statement_binds(s) for s in class_statements(other)):
                risks.append(f"`{other.name.value}`, a subclass of `{cls.name.value}`, defines `{name}`")
    return risks


def attributes_set_per_call(cls: cst.ClassDef, inner: cst.FunctionDef, self_name: str) -> list[str]:
    """``self.x`` the body reads that a method other than ``__init__`` sets: a per-call value frozen by tracing."""
    read = dict.fromkeys(self_attribute_reads(inner, self_name))
    methods = {s.name.value for s in class_statements(cls) if isinstance(s, cst.FunctionDef)}
    out = []
    for statement in class_statements(cls):
        if not isinstance(statement, cst.FunctionDef) or statement.name.value in INIT_METHODS:
            continue
        for attr in _self_stores(statement, self_name):
            if attr in read and attr not in methods:
                out.append(f"`{self_name}.{attr}` is set in `{statement.name.value}`: the method keeps the value "
                           "its first trace read")
                read.pop(attr)
    return out


def _self_stores(function: cst.FunctionDef, self_name: str) -> list[str]:
    """The attributes of ``self_name`` that ``function`` assigns, in source order."""
    return [
        target.attr.value
        for node in find_nodes(function, lambda n: isinstance(n, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign)))
        for target in stored_targets(node)
        if isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) and target.value.value == self_name
    ]


def self_attribute_reads(function: cst.FunctionDef, self_name: str) -> list[str]:
    found: dict[str, None] = {}

    class _V(cst.CSTVisitor):
        def visit_Attribute(self, node: cst.Attribute) -> None:
            if isinstance(node.value, cst.Name) and node.value.value == self_name:
                found[node.attr.value] = None

    function.body.visit(_V())
    return list(found)


def attribute_names(module: cst.Module) -> set[str]:
    """Every ``x.name`` attribute name the module spells."""
    found: set[str] = set()

    class _V(cst.CSTVisitor):
        def visit_Attribute(self, node: cst.Attribute) -> None:
            found.add(node.attr.value)

        def visit_SimpleString(self, node: cst.SimpleString) -> None:
            value = node.evaluated_value
            if isinstance(value, str) and value.isidentifier():
                found.add(value)  # getattr(obj, "name")

    module.visit(_V())
    return found
