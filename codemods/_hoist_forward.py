"""Forwarding callables wrapped in a new tf.function per call, for RTF006 (hoist-tf-function).

``tf.function(lambda img: f(img, data_format=data_format))`` and
``tf.function(functools.partial(f, data_format=data_format))`` only forward to
``f`` with some values bound.  :func:`read_forwarder` reads such a callable (or
says why it does more than forward), and :func:`forwarded_args` turns a call of
the new function into the argument list of ``f`` itself: the lambda's parameters
replaced by the call's arguments, the bound values kept, so that the call can go
to one module-level ``tf.function(f)`` instead.  Pure LibCST.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from retrace_fix.codemods._hoist_syntax import LITERALS, simple_value
from retrace_fix.node_text import short_code
from retrace_fix.tfnames import dotted_name

#: names that read the same Python constant everywhere
CONSTANT_NAMES = frozenset({"True", "False", "None"})


@dataclass(frozen=True)
class Forwarder:
    """A lambda or ``functools.partial`` that only calls ``func``."""

    kind: str  # "lambda" | "partial"
    func: cst.BaseExpression  # the function it calls: a name or a dotted name
    params: tuple[str, ...]  # the lambda's parameters, in order (a partial: none)
    args: tuple[cst.Arg, ...]  # the lambda's call of ``func``; the partial's bound arguments
    bound: tuple[cst.BaseExpression, ...]  # the values it binds (not parameters), in order

    @property
    def shown(self) -> str:
        return short_code(self.func)


def is_partial(node: cst.BaseExpression, scope) -> bool:
    """``functools.partial(...)`` in any import spelling."""
    return isinstance(node, cst.Call) and scope.qualify(node.func) == "functools.partial"


def read_forwarder(target: cst.BaseExpression, scope) -> tuple[Forwarder | None, str | None]:
    """(the forwarder, None); (None, why it does more than forward); (None, None) when ``target`` is
    neither a lambda with parameters nor a ``functools.partial``."""
    if isinstance(target, cst.Lambda):
        return _read_lambda(target)
    if is_partial(target, scope):
        return _read_partial(target)
    return None, None


def _read_lambda(target: cst.Lambda) -> tuple[Forwarder | None, str | None]:
    params = target.params
    if not params.params and not params.posonly_params and not params.kwonly_params \
            and not isinstance(params.star_arg, cst.Param) and params.star_kwarg is None:
        return None, None  # tf.function(lambda: f(...)): the zero-argument form
    if params.posonly_params or params.kwonly_params or isinstance(params.star_arg, cst.Param) \
            or params.star_kwarg is not None:
        return None, "the lambda has `*`, `**`, positional-only or keyword-only parameters"
    if any(p.default is not None for p in params.params):
        return None, "the lambda's parameters have defaults"
    names = tuple(p.name.value for p in params.params)
    body = target.body
    if not isinstance(body, cst.Call) or dotted_name(body.func) is None:
        return None, f"the lambda computes `{short_code(body)}` instead of only calling a function"
    if dotted_name(body.func).split(".", 1)[0] in names:
        return None, f"the lambda calls `{short_code(body.func)}` of its own parameter"
    used: dict[str, int] = dict.fromkeys(names, 0)
    bound = []
    for arg in body.args:
        if arg.star:
            return None, f"the lambda passes `{arg.star}{short_code(arg.value)}`, which retrace-fix cannot map"
        value = arg.value
        if isinstance(value, cst.Name) and value.value in used:
            used[value.value] += 1
            continue
        inner = [n for n in _names(value) if n in used]
        if inner:
            return None, f"the lambda uses `{inner[0]}` in an expression (`{short_code(value)}`)"
        if not _bindable(value):
            return None, f"the lambda computes `{short_code(value)}` at every call"
        bound.append(value)
    for name, count in used.items():
        if count > 1:
            return None, f"the lambda passes its parameter `{name}` {count} times"
        if count == 0:
            return None, f"the lambda does not pass its parameter `{name}` to `{short_code(body.func)}`"
    return Forwarder("lambda", body.func, names, tuple(body.args), tuple(bound)), None


def _read_partial(target: cst.Call) -> tuple[Forwarder | None, str | None]:
    if not target.args or target.args[0].star or target.args[0].keyword is not None \
            or dotted_name(target.args[0].value) is None:
        return None, f"`{short_code(target)}` does not bind a named function"
    bound = []
    for arg in target.args[1:]:
        if arg.star:
            return None, f"the partial binds `{arg.star}{short_code(arg.value)}`, which retrace-fix cannot map"
        if not _bindable(arg.value):
            return None, f"the partial binds `{short_code(arg.value)}`, which is computed when it is created"
        bound.append(arg.value)
    return Forwarder("partial", target.args[0].value, (), tuple(target.args[1:]), tuple(bound)), None


def _bindable(expr: cst.BaseExpression) -> bool:
    """A value the new call can compute where it is called: a name, an attribute chain, a literal, or a
    list or tuple of them (a container: the fix is then unsafe)."""
    if isinstance(expr, (cst.List, cst.Tuple)):
        return all(isinstance(e, cst.Element) and simple_value(e.value) for e in expr.elements)
    return simple_value(expr)


def has_attribute(expr: cst.CSTNode) -> bool:
    """``expr`` reads an attribute (``self.k``, ``[cfg.a, 1]``)."""
    found = []

    class _V(cst.CSTVisitor):
        def visit_Attribute(self, node: cst.Attribute) -> None:
            found.append(node)

    expr.visit(_V())
    return bool(found)


def _names(expr: cst.CSTNode) -> list[str]:
    found: list[str] = []

    class _V(cst.CSTVisitor):
        def visit_Name(self, node: cst.Name) -> None:
            found.append(node.value)

        def visit_Attribute(self, node: cst.Attribute) -> bool:
            node.value.visit(self)
            return False  # `x.attr`: `attr` is no name read

    expr.visit(_V())
    return found


def forwarded_args(forwarder: Forwarder, call: cst.Call) -> tuple[list[cst.Arg] | None, str | None]:
    """The arguments ``func`` gets when the new function is called as ``call``, or (None, why not)."""
    if any(arg.star for arg in call.args):
        return None, f"`{short_code(call)}` passes `*`/`**` arguments, which retrace-fix cannot map"
    computed = [a.value for a in call.args if not simple_value(a.value)]
    if computed and any(has_attribute(value) for value in forwarder.bound):
        # the bound attribute would be read in another order relative to the computed argument
        return None, (f"`{short_code(call)}` computes `{short_code(computed[0])}`, which may change the bound "
                      "attribute it would now be read with")
    if forwarder.kind == "partial":
        return _partial_args(forwarder, call)
    given: dict[str, cst.BaseExpression] = {}
    order: list[str] = []
    for index, arg in enumerate(call.args):
        if arg.keyword is None:
            if index >= len(forwarder.params):
                return None, f"`{short_code(call)}` passes more arguments than the lambda takes"
            name = forwarder.params[index]
        else:
            name = arg.keyword.value
            if name not in forwarder.params or name in given:
                return None, f"`{short_code(call)}` passes `{name}`, which the lambda does not take once"
        given[name] = arg.value
        order.append(name)
    missing = [p for p in forwarder.params if p not in given]
    if missing:
        return None, f"`{short_code(call)}` does not pass `{missing[0]}`"
    used = [a.value.value for a in forwarder.args if isinstance(a.value, cst.Name) and a.value.value in given]
    if used != order and not all(simple_value(v) for v in given.values()):
        return None, (f"`{short_code(call)}` computes its arguments in another order than `{forwarder.shown}` "
                      "takes them")
    out = []
    for arg in forwarder.args:
        if isinstance(arg.value, cst.Name) and arg.value.value in given:
            arg = arg.with_changes(value=given[arg.value.value])
        out.append(arg)
    return _commas(out), None


def _partial_args(forwarder: Forwarder, call: cst.Call) -> tuple[list[cst.Arg] | None, str | None]:
    bound_keywords = {a.keyword.value for a in forwarder.args if a.keyword is not None}
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value in bound_keywords:
            return None, f"`{short_code(call)}` overrides the bound keyword `{arg.keyword.value}`"
    positional = [a for a in (*forwarder.args, *call.args) if a.keyword is None]
    keywords = [a for a in (*forwarder.args, *call.args) if a.keyword is not None]
    return _commas([cst.Arg(forwarder.func), *positional, *keywords])[1:], None


def _commas(args: list[cst.Arg]) -> list[cst.Arg]:
    """``args`` separated by ``", "``, with no comma after the last."""
    out = []
    for index, arg in enumerate(args):
        if index == len(args) - 1:
            out.append(arg.with_changes(comma=cst.MaybeSentinel.DEFAULT))
        elif not isinstance(arg.comma, cst.Comma):
            out.append(arg.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))))
        else:
            out.append(arg)
    return out


def literal(expr: cst.BaseExpression) -> bool:
    """A Python constant: a number, a string, ``True``/``False``/``None``."""
    if isinstance(expr, LITERALS):
        return True
    if isinstance(expr, cst.ConcatenatedString):
        return True
    if isinstance(expr, cst.Name):
        return expr.value in CONSTANT_NAMES
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
        return isinstance(expr.expression, (cst.Integer, cst.Float))
    return False


def bound_names(forwarder: Forwarder) -> list[cst.Name]:
    """The names the bound values read (an attribute chain's head, a list's elements)."""
    out: list[cst.Name] = []

    class _V(cst.CSTVisitor):
        def visit_Name(self, node: cst.Name) -> None:
            if node.value not in CONSTANT_NAMES:
                out.append(node)

        def visit_Attribute(self, node: cst.Attribute) -> bool:
            node.value.visit(self)
            return False

    for value in forwarder.bound:
        value.visit(_V())
    return out
