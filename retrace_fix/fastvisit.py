"""A faster ``CSTNode.visit`` for read-only visitors (``libcst.CSTVisitor``).

LibCST walks a tree for a read-only visitor the same way as for a transformer:
every node it passes is rebuilt (``_visit_and_replace_children`` constructs and
validates a copy) and then thrown away, and every field of every node costs two
formatted ``getattr`` look-ups for ``visit_<Node>_<field>`` hooks that LibCST
itself defines as no-op stubs.  The codemods walk each parsed file several times
with such visitors, so that overhead is most of the rewriter's time.

:func:`install` replaces ``CSTNode.visit`` with a walk that calls exactly the same
visitor methods in exactly the same order -- ``on_visit``; per visited field
``on_visit_attribute``, the children, ``on_leave_attribute``; ``on_leave`` -- and
returns the node itself, as LibCST does for a CSTVisitor, without rebuilding
anything.  The field order of each node class is read from the source of its
``_visit_and_replace_children`` (a single ``return Node(field=visit_*(self,
"field", self.field, visitor), ...)``); node classes whose method has any other
shape, and transformers, go through LibCST's own code unchanged.  Hooks are
resolved once per visitor class and node type; LibCST's no-op stubs (marked
``_is_no_op``) are skipped, and so are the per-field hooks of a visitor class
that defines none.  The engine installs it; ``tests/test_fastvisit.py`` checks the
call sequence against LibCST's on real code.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import textwrap
from contextlib import contextmanager
from typing import Any, Iterator

import libcst as cst
from libcst import CSTTransformer, CSTValidationError, CSTVisitor, FlattenSentinel, MaybeSentinel, RemovalSentinel
from libcst._nodes.base import CSTNode

_ORIGINAL_VISIT = CSTNode.visit
# LibCST's visit_* helpers, by what they do with a transformer's result
_REQUIRED, _OPTIONAL, _SENTINEL, _SEQUENCE, _BODY = range(5)
SEQUENCE_KINDS = frozenset({_SEQUENCE, _BODY})
_HELPERS = {
    "visit_required": _REQUIRED,
    "visit_optional": _OPTIONAL,
    "visit_sentinel": _SENTINEL,
    "visit_sequence": _SEQUENCE,
    "visit_body_sequence": _BODY,
}
_GENERIC = object()  # a node class (or visitor class) that takes LibCST's own path

#: Fields that only ever hold tokens (whitespace, comments, brackets, commas, dots,
#: operators) or plain values (strings, flags).  About two thirds of all nodes of a
#: module sit below them.  A visitor with no hook for any token type (and no per-field
#: hooks) cannot observe them, so the walk skips them; a transformer that cannot see
#: them cannot change them; :func:`push_children` never pushes them.
_TOKEN_FIELDS = frozenset(
    {
        "lpar", "rpar", "comma", "semicolon", "leading_lines", "lines_after_decorators", "header",
        "footer", "colon", "first_colon", "second_colon", "lbracket", "rbracket", "lbrace", "rbrace",
        "equal", "dot", "operator", "asynchronous", "trailing_whitespace", "separator",
        "trailing_comma", "newline", "comment", "empty_lines", "first_line", "last_line",
        "relative", "posonly_ind", "star", "default_indent", "default_newline", "encoding",
        "has_trailing_newline", "indent", "start", "end", "conversion",
    }
)


def _token_type_names() -> frozenset[str]:
    import libcst
    from libcst._nodes import op, whitespace

    names = {"LeftParen", "RightParen", "LeftSquareBracket", "RightSquareBracket", "LeftCurlyBrace",
             "RightCurlyBrace", "Asynchronous", "ParamSlash"}
    for module in (op, whitespace):
        names.update(
            name for name, value in vars(module).items()
            if isinstance(value, type) and issubclass(value, CSTNode) and value.__module__ == module.__name__
        )
    assert all(isinstance(getattr(libcst, n, None), type) or n.startswith("_") for n in names)
    return frozenset(names)


_TOKEN_TYPES = _token_type_names()


def _is_token_field(name: str) -> bool:
    return name in _TOKEN_FIELDS or name.startswith("whitespace")
_PLANS: dict[type, Any] = {}

#: a visitor class that sets this attribute to True (on itself, not inherited) has the walk skip
#: the token fields (:data:`_TOKEN_FIELDS`) even though it has generic hooks: it promises that
#: what it does with the nodes below them does not matter to its users
SKIP_TOKENS_ATTRIBUTE = "retrace_fix_skip_token_fields"


def field_plan(cls: type) -> tuple[tuple[str, int, bool], ...] | None:
    """``((field, helper kind, holds only tokens), ...)`` in LibCST's visiting order, or None."""
    method = klass = None
    for klass in cls.__mro__:
        if "_visit_and_replace_children" in klass.__dict__:
            method = klass.__dict__["_visit_and_replace_children"]
            break
    if method is None or klass is None or getattr(method, "__isabstractmethod__", False):
        return None
    try:
        function = ast.parse(textwrap.dedent(inspect.getsource(method))).body[0]
    except (OSError, TypeError, SyntaxError, IndexError):
        return None
    body = [
        statement for statement in getattr(function, "body", [])
        if not (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant))
    ]
    if len(body) != 1 or not isinstance(body[0], ast.Return):
        return None
    call = body[0].value
    if isinstance(call, ast.Name) and call.id == "self":
        return ()  # a leaf: ``return self``
    if not isinstance(call, ast.Call) or call.args:
        return None
    constructs_own_class = (isinstance(call.func, ast.Name) and call.func.id == klass.__name__) or (
        isinstance(call.func, ast.Attribute)
        and call.func.attr == "__class__"
        and isinstance(call.func.value, ast.Name)
        and call.func.value.id == "self"
    )
    if not constructs_own_class:
        return None
    steps = []
    for keyword in call.keywords:
        value = keyword.value
        if keyword.arg is None:
            return None
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in _HELPERS:
            args = value.args
            if (
                len(args) != 4
                or value.keywords
                or not (isinstance(args[0], ast.Name) and args[0].id == "self")
                or not (isinstance(args[1], ast.Constant) and args[1].value == keyword.arg)
                or not (isinstance(args[2], ast.Attribute) and isinstance(args[2].value, ast.Name))
                or args[2].value.id != "self"
                or args[2].attr != keyword.arg
                or not (isinstance(args[3], ast.Name) and args[3].id == "visitor")
            ):
                return None
            steps.append((keyword.arg, _HELPERS[value.func.id], _is_token_field(keyword.arg)))
        elif isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name) and value.value.id == "self":
            if value.attr != keyword.arg:
                return None  # a plain value copied over (Name.value): nothing to visit
        else:
            return None
    return tuple(steps)


def _decision_or_generic(cls: type) -> Any:
    plan = field_plan(cls)
    return _GENERIC if plan is None else plan  # () is a leaf's plan, not a failure


def _own(cls: type, name: str) -> Any:
    """The function ``cls.<name>`` unless it is absent or one of LibCST's no-op stubs."""
    function = getattr(cls, name, None)
    if function is None or getattr(function, "_is_no_op", False):
        return None
    return function


_LIBCST_HOOKS: dict[type, dict[str, Any]] = {}


def _libcst_hooks(klass: type) -> dict[str, Any]:
    """The hooks a LibCST class (``CSTVisitor``, ``ScopeVisitor``...) has through its MRO that are
    not no-op stubs: ``{"visit_Name": function, ...}`` (made once per class)."""
    found = _LIBCST_HOOKS.get(klass)
    if found is None:
        found = {}
        for name in dir(klass):
            if name.startswith(("visit_", "leave_")):
                function = _own(klass, name)
                if function is not None:
                    found[name] = function
        _LIBCST_HOOKS[klass] = found
    return found


def _hook_table(cls: type) -> dict[str, Any] | None:
    """``cls``'s ``visit_*``/``leave_*`` functions as ``getattr`` finds them (no-op stubs may be
    among them), where its MRO is classes of its own followed by the whole MRO of a LibCST class
    (a visitor class made on the fly: its few hooks are read, LibCST's are known); else None."""
    mro = cls.__mro__
    for index, klass in enumerate(mro):
        if klass.__module__.startswith("libcst"):
            break
    else:
        return None
    if mro[index:] != klass.__mro__ or any(k.__module__.startswith("libcst") for k in mro[:index]):
        return None
    table = dict(_libcst_hooks(klass))
    for own in mro[:index]:
        for name in vars(own):
            if name.startswith(("visit_", "leave_")):
                table[name] = getattr(cls, name, None)  # as getattr finds it: the MRO, descriptors
    return table


#: node class -> ("visit_<Node>", "leave_<Node>")
_HOOK_NAMES: dict[type, tuple[str, str]] = {}
#: (node class, whether token fields are skipped) -> the fields a walk enters, ((name, holds a
#: sequence), ...), or None for a node class that takes LibCST's own path
_WALKED_FIELDS: dict[tuple[type, bool], tuple[tuple[str, bool], ...] | None] = {}


def _walked_fields(node_type: type, skip_tokens: bool) -> tuple[tuple[str, bool], ...] | None:
    key = (node_type, skip_tokens)
    if key not in _WALKED_FIELDS:
        plan = _PLANS.get(node_type)
        if plan is None:
            plan = _PLANS[node_type] = _decision_or_generic(node_type)
        _WALKED_FIELDS[key] = None if plan is _GENERIC else tuple(
            (name, many >= _SEQUENCE) for name, many, token in plan if not (token and skip_tokens)
        )
    return _WALKED_FIELDS[key]


class _VisitorInfo:
    __slots__ = ("cls", "generic_visit", "generic_leave", "attribute_hooks", "hooks", "skip_tokens",
                 "entries", "on_visit", "on_leave", "table", "named_field_hooks", "field_entries")

    def __init__(self, cls: type) -> None:
        self.cls = cls
        self.generic_visit = cls.on_visit is not CSTVisitor.on_visit
        self.generic_leave = cls.on_leave is not CSTVisitor.on_leave
        self.on_visit, self.on_leave = cls.on_visit, cls.on_leave
        overridden = (
            cls.on_visit_attribute is not CSTVisitor.on_visit_attribute
            or cls.on_leave_attribute is not CSTVisitor.on_leave_attribute
        )
        self.attribute_hooks = overridden or any(_defines_attribute_hooks(klass) for klass in cls.__mro__)
        #: per-field hooks only as ``visit_<Node>_<field>``/``leave_..`` methods, called by LibCST's own
        #: ``on_visit_attribute``/``on_leave_attribute`` (as LibCST's ``ScopeVisitor`` has them)
        self.named_field_hooks = self.attribute_hooks and not overridden
        self.field_entries: dict[type, tuple[Any, Any, Any]] = {}
        self.hooks: dict[type, tuple[Any, Any]] = {}
        self.skip_tokens = bool(cls.__dict__.get(SKIP_TOKENS_ATTRIBUTE)) or not (
            self.generic_visit or self.generic_leave or self.attribute_hooks or hooks_token_types(cls)
        )
        #: node class -> (the fields walked: ((name, holds a sequence), ...), visit hook, leave hook);
        #: (None, None, None) for a node class that takes LibCST's own path
        self.entries: dict[type, tuple[Any, Any, Any]] = {}
        self.table = _hook_table(cls)

    def hooks_for(self, node_type: type) -> tuple[Any, Any]:
        entry = self.hooks.get(node_type)
        if entry is None:
            names = _HOOK_NAMES.get(node_type)
            if names is None:
                names = _HOOK_NAMES[node_type] = (f"visit_{node_type.__name__}", f"leave_{node_type.__name__}")
            entry = self.hooks[node_type] = (self._hook(names[0]), self._hook(names[1]))
        return entry

    def entry(self, node_type: type) -> tuple[Any, Any, Any]:
        """What :func:`_walk` does at a node of ``node_type``, decided once per visitor class."""
        fields = _walked_fields(node_type, self.skip_tokens)
        if fields is None:
            found: tuple[Any, Any, Any] = (None, None, None)
        elif self.generic_visit and self.generic_leave:
            found = (fields, self.on_visit, self.on_leave)
        else:
            visit, leave = self.hooks_for(node_type)
            found = (fields, self.on_visit if self.generic_visit else visit,
                     self.on_leave if self.generic_leave else leave)
        self.entries[node_type] = found
        return found

    def field_entry(self, node_type: type) -> tuple[Any, Any, Any]:
        """:meth:`entry` with each field's own hooks: ((name, holds a sequence, ``visit_<Node>_<field>``,
        ``leave_<Node>_<field>``), ...), None where the class has none (or LibCST's no-op stub)."""
        fields, visit, leave = self.entries.get(node_type) or self.entry(node_type)
        if fields is not None:
            fields = tuple(
                (name, many, self._hook(f"visit_{node_type.__name__}_{name}"),
                 self._hook(f"leave_{node_type.__name__}_{name}"))
                for name, many in fields
            )
        found = self.field_entries[node_type] = (fields, visit, leave)
        return found

    def _hook(self, name: str) -> Any:
        """The class's hook ``name`` as :func:`_own` finds it: None where it has none or only
        LibCST's no-op stub (read from :attr:`table` where the class has one)."""
        if self.table is None:
            return _own(self.cls, name)
        function = self.table.get(name)
        return None if function is None or getattr(function, "_is_no_op", False) else function


_ATTRIBUTE_HOOKS: dict[type, bool] = {}


def _lasting(klass: type) -> bool:
    """Is ``klass`` one of LibCST's (or ``object``, ``abc.ABC``): a class whose answers may be kept?"""
    return klass.__module__.startswith("libcst") or klass.__module__ in ("builtins", "abc")


def _defines_attribute_hooks(klass: type) -> bool:
    """Does ``klass`` itself define a ``visit_<Node>_<field>``/``leave_..`` hook (not a stub)?"""
    found = _ATTRIBUTE_HOOKS.get(klass)
    if found is None:
        import libcst

        found = False
        for name, value in vars(klass).items():
            if not name.startswith(("visit_", "leave_")) or getattr(value, "_is_no_op", False):
                continue
            node_name, _, field_name = name.partition("_")[2].partition("_")
            if field_name and isinstance(getattr(libcst, node_name, None), type):
                found = True
                break
        if _lasting(klass):  # classes made on the fly are not kept alive
            _ATTRIBUTE_HOOKS[klass] = found
    return found


_TOKEN_HOOKS: dict[type, bool] = {}


def hooks_token_types(cls: type) -> bool:
    """Does ``cls`` (or a base) hook a token type (``visit_Comma``, ``leave_Comment``...)?"""
    for klass in cls.__mro__:
        found = _TOKEN_HOOKS.get(klass)
        if found is None:
            found = False
            for name, value in vars(klass).items():
                if name.startswith(("visit_", "leave_")) and name[6:] in _TOKEN_TYPES:
                    if not getattr(value, "_is_no_op", False):
                        found = True
                        break
            if _lasting(klass):
                _TOKEN_HOOKS[klass] = found
        if found:
            return True
    return False


_INFO_ATTRIBUTE = "_retrace_fix_fast_visit"


def _visitor_info(cls: type) -> Any:
    # kept on the class itself: codemods define visitor classes inside functions
    info = cls.__dict__.get(_INFO_ATTRIBUTE)
    if info is None:
        mro = cls.__mro__  # not issubclass: an ABC's check of a new class scans all its subclasses
        plain = CSTVisitor in mro and CSTTransformer not in mro
        info = _VisitorInfo(cls) if plain else _GENERIC
        try:
            setattr(cls, _INFO_ATTRIBUTE, info)
        except (TypeError, AttributeError):  # pragma: no cover - a class that refuses attributes
            pass
    return info


def _walk(node: CSTNode, visitor: CSTVisitor, info: _VisitorInfo) -> None:
    """The walk of a visitor without per-field hooks (nearly all): each node's fields, hooks
    and token skipping come from one table look-up (:meth:`_VisitorInfo.entry`)."""
    cls = node.__class__
    entry = info.entries.get(cls)
    if entry is None:
        entry = info.entry(cls)
    fields, visit, leave = entry
    if fields is None:
        _ORIGINAL_VISIT(node, visitor)  # its children come back through fast_visit
        return
    if info.generic_visit:
        descend = visit(visitor, node)
    else:
        descend = visit is None or visit(visitor, node) is not False
    if descend:
        for name, many in fields:
            value = getattr(node, name)
            if many:
                for child in value:
                    _walk(child, visitor, info)
            elif value is not None and value.__class__ is not MaybeSentinel:
                _walk(value, visitor, info)
    if leave is not None:
        leave(visitor, node)


def _walk_named_field_hooks(node: CSTNode, visitor: CSTVisitor, info: _VisitorInfo) -> None:
    """:func:`_walk` for a visitor whose per-field hooks are ``visit_<Node>_<field>`` methods that
    LibCST's ``on_visit_attribute`` would look up by name: each field's hooks come with its entry
    (:meth:`_VisitorInfo.field_entry`), and a field with none costs no call."""
    cls = node.__class__
    entry = info.field_entries.get(cls)
    if entry is None:
        entry = info.field_entry(cls)
    fields, visit, leave = entry
    if fields is None:
        _ORIGINAL_VISIT(node, visitor)  # its children come back through fast_visit
        return
    if info.generic_visit:
        descend = visit(visitor, node)
    else:
        descend = visit is None or visit(visitor, node) is not False
    if descend:
        for name, many, before, after in fields:
            value = getattr(node, name)
            if before is not None:
                before(visitor, node)
            if many:
                for child in value:
                    _walk_named_field_hooks(child, visitor, info)
            elif value is not None and value.__class__ is not MaybeSentinel:
                _walk_named_field_hooks(value, visitor, info)
            if after is not None:
                after(visitor, node)
    if leave is not None:
        leave(visitor, node)


def _walk_with_attribute_hooks(node: CSTNode, visitor: CSTVisitor, info: _VisitorInfo) -> None:
    """:func:`_walk` for a visitor with per-field hooks (``on_visit_attribute``,
    ``visit_<Node>_<field>``): every field is announced, as LibCST does."""
    cls = type(node)
    plan = _PLANS.get(cls)
    if plan is None:
        plan = _PLANS[cls] = _decision_or_generic(cls)
    if plan is _GENERIC:
        _ORIGINAL_VISIT(node, visitor)  # its children come back through fast_visit
        return
    if info.generic_visit:
        descend = visitor.on_visit(node)
    else:
        visit = info.hooks_for(cls)[0]
        descend = visit is None or visit(visitor, node) is not False
    if descend:
        skip_tokens = info.skip_tokens
        for name, many, token in plan:
            if token and skip_tokens:
                continue
            value = getattr(node, name)
            visitor.on_visit_attribute(node, name)
            if many >= _SEQUENCE:
                for child in value:
                    _walk_with_attribute_hooks(child, visitor, info)
            elif value is not None and value.__class__ is not MaybeSentinel:
                _walk_with_attribute_hooks(value, visitor, info)
            visitor.on_leave_attribute(node, name)
    if info.generic_leave:
        visitor.on_leave(node)
    else:
        leave = info.hooks_for(cls)[1]
        if leave is not None:
            leave(visitor, node)


def _skips_tokens(cls: type) -> bool:
    """May a transformer of class ``cls`` skip token fields?  Only with LibCST's plain
    per-type dispatch (or a class that says it dispatches so), no per-field hooks and
    no hook for a token type."""
    cached = cls.__dict__.get("_retrace_fix_skip_tokens")
    if cached is None:
        standard = getattr(cls, "retrace_fix_standard_dispatch", None)
        plain = (
            cls.on_visit is CSTTransformer.on_visit
            and cls.on_leave is CSTTransformer.on_leave
            and cls.on_visit_attribute is CSTTransformer.on_visit_attribute
            and cls.on_leave_attribute is CSTTransformer.on_leave_attribute
        )
        if standard is not None:
            plain = bool(standard())
        cached = plain and not any(_defines_attribute_hooks(k) for k in cls.__mro__) and not hooks_token_types(cls)
        try:
            setattr(cls, "_retrace_fix_skip_tokens", cached)
        except (TypeError, AttributeError):  # pragma: no cover
            pass
    return cached


def _transform(node: CSTNode, visitor: CSTTransformer) -> Any:
    """LibCST's transformer visit, except that a node whose children all come back
    unchanged (the same objects) is kept instead of being rebuilt as an equal copy:
    ``leave_*`` then gets ``updated_node is original_node``, and a pass that changes
    nothing returns the very tree it was given."""
    cls = type(node)
    plan = _PLANS.get(cls)
    if plan is None:
        plan = _PLANS[cls] = _decision_or_generic(cls)
    if plan is _GENERIC:
        result = _ORIGINAL_VISIT(node, visitor)
        return node if result is not node and _same_fields(node, result) else result
    updated = node
    if visitor.on_visit(node):
        changes = None
        skip_tokens = _skips_tokens(type(visitor))
        for name, kind, token in plan:
            if token and skip_tokens:
                continue
            value = getattr(node, name)
            visitor.on_visit_attribute(node, name)
            if kind >= _SEQUENCE:
                new_value = _transform_sequence(value, visitor, kind == _BODY)
            elif value is None or value.__class__ is MaybeSentinel:
                new_value = value
            else:
                new_value = _transform(value, visitor)
                if new_value is not value:
                    new_value = _single_result(node, name, kind, value, new_value)
            visitor.on_leave_attribute(node, name)
            if new_value is not value:
                if changes is None:
                    changes = {}
                changes[name] = new_value
        if changes is not None:
            updated = dataclasses.replace(node, **changes)
    result = visitor.on_leave(node, updated)
    if result is not updated and not isinstance(result, (CSTNode, RemovalSentinel, FlattenSentinel)):
        raise CSTValidationError(
            "Expected a node of type CSTNode or a RemovalSentinel, "
            + f"but got a return value of {type(result).__name__}"
        )
    return result


def _same_fields(old: CSTNode, new: Any) -> bool:
    """Is ``new`` a copy of ``old`` made of the very same children?"""
    if type(new) is not type(old):
        return False
    for field in dataclasses.fields(old):
        a, b = getattr(old, field.name), getattr(new, field.name)
        if a is b:
            continue
        if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
            if len(a) == len(b) and all(x is y for x, y in zip(a, b)):
                continue
        elif not isinstance(a, CSTNode) and a == b:  # strings, MaybeSentinel
            continue
        return False
    return True


def _single_result(parent: CSTNode, name: str, kind: int, old: CSTNode, new: Any) -> Any:
    """What LibCST's visit_required/optional/sentinel make of a child's new value."""
    if isinstance(new, FlattenSentinel):
        raise TypeError(
            f"We got a FlattenSentinel while visiting a {type(old).__name__}. This "
            "node's parent does not allow for it to be it to be replaced with a sequence."
        )
    if isinstance(new, RemovalSentinel):
        if kind == _REQUIRED:
            raise TypeError(
                f"We got a RemovalSentinel while visiting a {type(old).__name__}. This "
                "node's parent does not allow it to be removed."
            )
        return None if kind == _OPTIONAL else MaybeSentinel.DEFAULT
    return new


def _transform_sequence(children: Any, visitor: CSTTransformer, body: bool) -> Any:
    """LibCST's visit_sequence / visit_body_sequence; the same object when nothing changed."""
    results: list = []
    changed = False
    for child in children:
        new_child = _transform(child, visitor)
        if new_child is child:
            results.append(child)
            continue
        changed = True
        if isinstance(new_child, RemovalSentinel):
            continue
        if isinstance(new_child, FlattenSentinel):
            for item in new_child:
                if body and not child._is_removable() and item._is_removable():
                    continue
                results.append(item)
        elif not (body and not child._is_removable() and new_child._is_removable()):
            results.append(new_child)
    return tuple(results) if changed else children


def fast_visit(self: CSTNode, visitor: Any) -> Any:
    info = _visitor_info(type(visitor))
    if info is _GENERIC:
        if isinstance(visitor, CSTTransformer) and _TRANSFORMS:
            return _transform(self, visitor)
        return _ORIGINAL_VISIT(self, visitor)
    if info.named_field_hooks:
        _walk_named_field_hooks(self, visitor, info)
    elif info.attribute_hooks:
        _walk_with_attribute_hooks(self, visitor, info)
    else:
        _walk(self, visitor, info)
    return self


_TRANSFORMS = True


def install(transforms: bool = True) -> None:
    """Use :func:`fast_visit` for every ``CSTNode.visit`` in this process (idempotent);
    ``transforms=False`` leaves transformer passes to LibCST."""
    global _TRANSFORMS
    _TRANSFORMS = transforms
    CSTNode.visit = fast_visit  # type: ignore[method-assign]


@contextmanager
def installed(transforms: bool = True) -> Iterator[None]:
    """:func:`install` for the duration of a ``with`` block (restores what was there)."""
    global _TRANSFORMS
    previous, previous_transforms = CSTNode.visit, _TRANSFORMS
    install(transforms)
    try:
        yield
    finally:
        CSTNode.visit = previous  # type: ignore[method-assign]
        _TRANSFORMS = previous_transforms


# --------------------------------------------------------------------------- read-only walks
#
# The binding tables (retrace_fix.tfnames) and the tf.function finder
# (retrace_fix.tf_functions) only read the tree, so they walk the dataclass fields
# directly with an explicit stack (about 0.1x the parse, where LibCST's own ``visit``
# costs about 0.6x), skipping whitespace, brackets and other tokens that never hold
# a name or an expression.

_FIELDS: dict[type, tuple[str, ...]] = {}


def child_fields(cls: type) -> tuple[str, ...]:
    """Names of the fields of a node class that can hold names or expressions, in source order."""
    names = _FIELDS.get(cls)
    if names is None:
        names = tuple(
            f.name for f in dataclasses.fields(cls)
            if f.name not in _TOKEN_FIELDS and not f.name.startswith("whitespace")
        )
        if "decorators" in names:  # decorators come first in the source
            names = ("decorators", *(n for n in names if n != "decorators"))
        _FIELDS[cls] = names
    return names


_CHILD_PLANS: dict[type, tuple[tuple[str, bool], ...] | None] = {}


def _child_layout(cls: type) -> tuple[tuple[str, bool], ...] | None:
    """``((field, is_sequence), ...)`` of the non-token node fields, in source order."""
    if cls not in _CHILD_PLANS:
        plan = field_plan(cls)
        if plan is not None:
            wanted = set(child_fields(cls))
            steps = [(name, kind in SEQUENCE_KINDS) for name, kind, _token in plan if name in wanted]
            if "decorators" in wanted:  # decorators first, as child_fields orders them
                steps.sort(key=lambda step: step[0] != "decorators")
            _CHILD_PLANS[cls] = tuple(steps)
        else:
            _CHILD_PLANS[cls] = None
    return _CHILD_PLANS[cls]


def push_children(node: cst.CSTNode, stack: list) -> None:
    """Push ``node``'s children onto ``stack`` so that popping yields them in source order."""
    plan = _child_layout(type(node))
    if plan is None:  # a node class whose fields LibCST visits conditionally
        children: list = []
        for name in child_fields(type(node)):
            value = getattr(node, name)
            if isinstance(value, cst.CSTNode):
                children.append(value)
            elif type(value) is tuple or type(value) is list:
                children.extend(item for item in value if isinstance(item, cst.CSTNode))
        children.reverse()
        stack.extend(children)
        return
    for name, many in reversed(plan):
        value = getattr(node, name)
        if many:
            stack.extend(reversed(value))
        elif value is not None and value.__class__ is not cst.MaybeSentinel:
            stack.append(value)


def plan_node_types() -> None:
    """Decide now, for every node class LibCST exports, what the walks otherwise decide on meeting
    its first node (:func:`field_plan` reads the source of its ``_visit_and_replace_children``:
    about a millisecond a class).  The engine's worker pool calls it before it forks: its workers
    inherit the plans instead of each making them again."""
    for value in vars(cst).values():
        if isinstance(value, type) and issubclass(value, CSTNode):
            if value not in _PLANS:
                _PLANS[value] = _decision_or_generic(value)
            _child_layout(value)
