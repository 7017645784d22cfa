"""How RTF006 (hoist-tf-function) reads the code around a tf.function creation.

Small syntax facts, each a function of the tree alone: the nodes a ``def`` line
evaluates (:func:`header_ids`), how a use lets a function out (:func:`escapes`),
the statement that holds a node (:func:`statement_of`), what ``tf.function(...)``
wraps (:func:`wrapped_target`), ``f(args)`` of ``tf.function(lambda: f(args))()``
(:func:`lambda_target_call`) and what passing its arguments risks
(:func:`lambda_arguments`), and values that are the same inside or outside a
graph (:func:`simple_value`).
"""

from __future__ import annotations

import libcst as cst

from retrace_fix.codemods._tf_values import is_tf_op
from retrace_fix.cst_tree import node_ids
from retrace_fix.node_text import short_code
from retrace_fix.tfnames import named_params

#: literals that read the same as Python values and as graph constants
LITERALS = (cst.Integer, cst.Float, cst.SimpleString, cst.Imaginary)


def is_node(node) -> bool:
    return isinstance(node, cst.CSTNode)


def access_name(access) -> str:
    node = access.node
    return node.value if isinstance(node, cst.Name) else short_code(node)


def header_ids(inner: cst.FunctionDef) -> set[int]:
    """Nodes the ``def`` statement evaluates in the enclosing scope: decorators, defaults, annotations."""
    ids: set[int] = set()
    for decorator in inner.decorators:
        ids |= node_ids(decorator.decorator)
    params = inner.params
    for param in named_params(params):
        ids |= node_ids(param.default)
        ids |= node_ids(param.annotation)
    for param in (params.star_arg, params.star_kwarg):
        if isinstance(param, cst.Param):
            ids |= node_ids(param.annotation)
    ids |= node_ids(inner.returns)
    return ids


def escapes(node: cst.CSTNode, parents: dict, scope, created: bool = False) -> str | None:
    """How a use of the function lets it out of its function, or None when it is only called.

    ``created``: ``node`` is the ``tf.function(...)`` call itself; an assignment to a name
    that is only called is fine.
    """
    parent = parents.get(id(node))
    if isinstance(parent, cst.Call) and parent.func is node:
        return None  # called
    if isinstance(parent, cst.Attribute) and parent.value is node:
        return None  # step.get_concrete_function(...), step.experimental_get_tracing_count()
    if isinstance(parent, cst.Arg):
        call = parents.get(id(parent))
        if isinstance(call, cst.Call) and is_tf_op(scope, call.func):
            return None  # tf.map_fn(step, x)
        return f"passed to `{short_code(call.func) if isinstance(call, cst.Call) else '...'}`"
    if isinstance(parent, cst.Return):
        return "returned"
    if isinstance(parent, (cst.Yield,)):
        return "yielded"
    if created and isinstance(parent, cst.Assign):
        return "stored" if not all(isinstance(t.target, cst.Name) for t in parent.targets) else None
    if isinstance(parent, (cst.Assign, cst.AnnAssign, cst.AugAssign)):
        return "stored"
    return "used as a value"


def is_tf_function_decorator(decorator: cst.Decorator, scope) -> bool:
    expr = decorator.decorator
    return scope.is_tf_function(expr) or (isinstance(expr, cst.Call) and scope.is_tf_function(expr.func))


def statement_of(node: cst.CSTNode, parents: dict, owner: cst.FunctionDef) -> cst.BaseStatement | None:
    """The statement of ``owner``'s blocks that holds ``node`` (None: it sits in a lambda, nested def or
    comprehension, whose code runs at another time)."""
    current = node
    while True:
        parent = parents.get(id(current))
        if parent is None:
            return None
        if isinstance(parent, cst.IndentedBlock):
            return current if isinstance(current, cst.BaseStatement) else None
        if isinstance(parent, (cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp,
                               cst.SimpleStatementSuite)) or (isinstance(parent, cst.FunctionDef) and parent is not owner):
            return None
        current = parent


def wrapped_target(call: cst.Call, scope) -> cst.BaseExpression | None:
    """What ``tf.function(target, ...)`` wraps."""
    if scope.is_tf_function(call.func) and call.args:
        return call.args[0].value
    return None


def lambda_target_call(target: cst.Lambda, parent: cst.CSTNode | None, wrap: cst.Call) -> cst.Call | None:
    """``f(args)`` of ``tf.function(lambda: f(args))()``, else None."""
    params = target.params
    if params.params or params.posonly_params or params.kwonly_params or isinstance(params.star_arg, cst.Param) \
            or params.star_kwarg is not None:
        return None
    if not (isinstance(parent, cst.Call) and parent.func is wrap and not parent.args):
        return None
    body = target.body
    if isinstance(body, cst.Call) and (
        isinstance(body.func, cst.Name)
        or (isinstance(body.func, cst.Attribute) and isinstance(body.func.value, cst.Name)
            and body.func.value.value == "self")  # self.m(...): a method's own method
    ):
        return body
    return None


def lambda_arguments(lambda_call: cst.Call, shown: str, note: str = "") -> tuple[str | None, str | None]:
    """For ``tf.function(lambda: f(args))()`` made ``f_once(args)``: (why it stays, when an argument
    would be computed outside the graph; else the unsafe reason, when captured values become arguments)."""
    for arg in lambda_call.args:
        if arg.star or not simple_value(arg.value):
            return f"the lambda passes `{short_code(arg.value)}`, which would be computed outside the graph", None
    names = [short_code(a.value) for a in lambda_call.args if not isinstance(a.value, LITERALS)]
    if not names:
        return None, None
    verb = "becomes an argument" if len(names) == 1 else "become arguments"
    return None, (f"{', '.join(f'`{n}`' for n in names)} {verb} instead of a captured value: a NumPy array passed "
                  f"that way reaches `{shown}` as a tensor{note}")


def simple_value(expr: cst.BaseExpression) -> bool:
    """A value that is the same computed inside or outside the graph: a name, an attribute chain, a literal."""
    if isinstance(expr, LITERALS):
        return True
    if isinstance(expr, cst.Name):
        return True
    if isinstance(expr, cst.Attribute):
        return simple_value(expr.value)
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
        return isinstance(expr.expression, (cst.Integer, cst.Float))
    return False
