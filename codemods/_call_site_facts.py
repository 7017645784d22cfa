"""RTF103-RTF107's tree check, sharper: what the call-site diagnostics compare, read in CPython's tree.

:meth:`~retrace_fix.codemods._tree_facts.TreeFacts.calls_a_tf_function_with_arguments` lets a module
through when a call of a tf.function of the module passes, for one parameter, two sources, or one
that varies in a loop around the call.  :func:`may_compare_arguments` asks the same of the files
it lets through, closer to what :class:`~retrace_fix.codemods.call_site_diagnostics.CallSiteDiagnosticsCommand`
reads:

* **a keyword is one parameter**: two keywords of one call (``sample(num_chains=4,
  num_results=1000)``) are two parameters with one source each, not two sources of one; a keyword
  may still be the parameter of any position;
* **a value varies in a loop only if the diagnostics can see it vary**: a loop variable, a counter,
  arithmetic, an object made per iteration (a class of the module, anything of Keras: RTF104), a
  TensorFlow/NumPy constructor whose shape may read a name (``tf.zeros([n])``: RTF107); never a
  literal, ``x.astype(...)`` (one dtype), nor ``tf.constant(...)``/``np.array(...)`` without a
  ``shape=`` that reads a name (their dtype and shape come from the text: the same every
  iteration);
* **a constructor's literal value counts by its type**: ``tf.constant(4)`` and ``tf.constant(5)``
  state the same dtype and shape (``_stated_types`` reads the literals' kinds and nesting, never
  their values), so they are one source.

Still a superset of the LibCST analysis: everything else is counted as the facts count it.
"""

from __future__ import annotations

import ast
import copy

from retrace_fix.codemods._tree_facts import _literal, call_arguments

#: the last parts of the constructors whose dtype and shape ``_stated_types`` reads from the value's
#: literal kinds and nesting (``tensorflow.constant``, ``numpy.array``...), unless ``shape=`` is passed
_VALUE_CONSTRUCTORS = frozenset({"constant", "convert_to_tensor", "array", "asarray"})
_VALUE_KEYWORDS = frozenset({"value", "object"})


def _last_part(func: ast.AST) -> str | None:
    if type(func) is ast.Attribute:
        return func.attr  # type: ignore[attr-defined]
    return func.id if type(func) is ast.Name else None  # type: ignore[attr-defined]


class _Kinds(ast.NodeTransformer):
    """Every number, string or bool literal replaced by its kind (``4`` -> ``int``)."""

    def visit_Constant(self, node: ast.Constant) -> ast.AST:
        if type(node.value) in (int, float, str, bool):
            return ast.Name(id=f"<{type(node.value).__name__}>", ctx=ast.Load())
        return node


def _normalised_source(call: ast.Call, source: object) -> object:
    """``source`` (``TreeFacts._call_source``) with the literals of a value constructor's value read by kind."""
    if type(source) is not str or _last_part(call.func) not in _VALUE_CONSTRUCTORS:
        return source
    call = copy.deepcopy(call)
    if call.args and type(call.args[0]) is not ast.Starred:
        call.args[0] = _Kinds().visit(call.args[0])
    for keyword in call.keywords:
        if keyword.arg in _VALUE_KEYWORDS:
            keyword.value = _Kinds().visit(keyword.value)
    return ast.dump(call)


def _reads_a_name(call: ast.Call) -> bool:
    """Can the shape a constructor states hold a name (``shape_dims``: a name as an argument, or as an
    item of a list or tuple argument)?"""
    for value in [*call.args, *(k.value for k in call.keywords)]:
        if type(value) is ast.Starred:
            value = value.value  # type: ignore[attr-defined]
        if type(value) is ast.Name:
            return True
        if type(value) in (ast.List, ast.Tuple) and any(type(e) in (ast.Name, ast.Starred) for e in value.elts):  # type: ignore[attr-defined]
            return True
    return False


def call_may_vary(call: ast.AST, facts) -> bool:
    """Can the diagnostics see the value of ``call`` (one the facts say tells something) differ from one
    iteration to the next: an object (RTF104's per-iteration objects) or a shape that may read a name?"""
    if type(call) is not ast.Call:
        return True
    func = call.func  # type: ignore[attr-defined]
    if type(func) is ast.Attribute and func.attr == "astype":  # type: ignore[attr-defined]
        return False  # one dtype, no shape
    root = func
    while type(root) is ast.Attribute:
        root = root.value  # type: ignore[attr-defined]
    if type(root) is not ast.Name or root.id in facts.classes:  # type: ignore[attr-defined]
        return True
    qualified = facts.qualified(func)
    if not qualified or any(q == "keras" or q.startswith("keras.") for q in qualified):
        return True  # an object made per iteration (or anything: not resolved)
    if _last_part(func) in _VALUE_CONSTRUCTORS:
        shape = next((k.value for k in call.keywords if k.arg == "shape"), None)  # type: ignore[attr-defined]
        return (shape is not None and any(type(n) is ast.Name for n in ast.walk(shape))) or len(call.args) > 2  # type: ignore[attr-defined]
    return _reads_a_name(call)  # type: ignore[arg-type]


_IDENTITY_FREE_DECORATORS = frozenset({"dataclass", "define", "frozen", "attrs", "s"})
_IDENTITY_FREE_BASES = frozenset({"NamedTuple", "Enum", "IntEnum", "ExtensionType", "BatchableExtensionType"})
_IDENTITY_FREE_METHODS = frozenset({"__eq__", "__hash__", "__tf_tracing_type__", "__tf_flatten__"})
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)


def _dotted_last(expr: ast.AST) -> str:
    """The last part of a dotted name (``""`` for anything else), as ``dotted_name(...).split(".")[-1]``."""
    node = expr
    while type(node) is ast.Attribute:
        node = node.value  # type: ignore[attr-defined]
    if type(node) is not ast.Name:
        return ""
    return expr.attr if type(expr) is ast.Attribute else expr.id  # type: ignore[attr-defined]


def compared_by_identity(node: ast.ClassDef) -> bool:
    """``_callsites.compared_by_identity`` on CPython's tree: no dataclass/attrs decorator, no
    NamedTuple/Enum/ExtensionType base, no ``__eq__``/``__hash__``/``__tf_tracing_type__``/``__tf_flatten__``."""
    for decorator in node.decorator_list:
        if _dotted_last(decorator.func if type(decorator) is ast.Call else decorator) in _IDENTITY_FREE_DECORATORS:  # type: ignore[attr-defined]
            return False
    if any(_dotted_last(base) in _IDENTITY_FREE_BASES for base in node.bases):
        return False
    return not any(type(s) in _DEFS and s.name in _IDENTITY_FREE_METHODS for s in node.body)  # type: ignore[attr-defined]


class _Module:
    """What the call-site analysis knows of the module's top level: its classes, by name
    (``ModuleCalls.classes``: outside any def or class), and how many defs each name has."""

    def __init__(self, tree: ast.Module, facts) -> None:
        self.classes: dict[str, list[ast.ClassDef]] = {}
        self.plain_defs: dict[str, int] = {}  # defs outside a class body (any depth): ``plain_def_names``
        self.method_defs: dict[str, int] = {}  # defs in a class body (its ``if`` blocks too): ``method_def_names``
        #: module-level ``name = tf.function(...)``/``tf.function(...)(f)``: ``wrap_names``' callables
        self.wrap_names: set[str] = set()
        stack: list[tuple[ast.AST, bool, bool]] = [(tree, True, False)]  # (node, at module level, in a class body)
        while stack:
            node, top, in_class = stack.pop()
            kind = type(node)
            if kind is ast.ClassDef:
                if top:
                    self.classes.setdefault(node.name, []).append(node)  # type: ignore[attr-defined, arg-type]
                body = {id(b) for b in node.body}  # type: ignore[attr-defined]
                for child in ast.iter_child_nodes(node):
                    stack.append((child, False, id(child) in body))
                continue
            if kind in _DEFS:
                counts = self.method_defs if in_class else self.plain_defs
                counts[node.name] = counts.get(node.name, 0) + 1  # type: ignore[attr-defined]
                for child in ast.iter_child_nodes(node):
                    stack.append((child, False, False))
                continue
            if kind is ast.Assign and top and facts._creates(node.value):  # type: ignore[attr-defined]
                self.wrap_names.update(t.id for t in node.targets if type(t) is ast.Name)  # type: ignore[attr-defined]
            for child in ast.iter_child_nodes(node):
                stack.append((child, top, in_class))

    def may_be_callable(self, func: ast.AST) -> bool:
        """Can ``ModuleCalls`` resolve a call of ``func``: a def named once outside class bodies (or a
        module-level ``name = tf.function(...)``), a method named once in class bodies?"""
        if type(func) is ast.Name:
            return self.plain_defs.get(func.id, 0) == 1 or func.id in self.wrap_names  # type: ignore[attr-defined]
        return type(func) is ast.Attribute and self.method_defs.get(func.attr, 0) == 1  # type: ignore[attr-defined]

    def states_nothing(self, call: ast.AST, facts) -> bool:
        """Does ``call`` give the call-site analysis no evidence at all: an instance of a class of the
        module compared by value (``object_class`` skips it; it states no dtype or shape), or a
        ``tf.constant``/``tf.convert_to_tensor``/``np.array``/``np.asarray`` of a value whose kinds
        and nesting the text does not show (a name, an attribute...) with no ``dtype`` nor ``shape``?"""
        if type(call) is not ast.Call:
            return False
        func = call.func  # type: ignore[attr-defined]
        if type(func) is ast.Name and func.id in self.classes:  # type: ignore[attr-defined]
            return not any(compared_by_identity(c) for c in self.classes[func.id])  # type: ignore[attr-defined]
        if type(func) is ast.Name and (func.id in facts.classes or func.id in self.classes):  # type: ignore[attr-defined]
            return False
        if _last_part(func) not in _VALUE_CONSTRUCTORS or len(call.args) > 1:  # type: ignore[attr-defined]
            return False
        keywords = {k.arg for k in call.keywords}  # type: ignore[attr-defined]
        if None in keywords or "dtype" in keywords or "shape" in keywords:
            return False
        value = call.args[0] if call.args else next(  # type: ignore[attr-defined]
            (k.value for k in call.keywords if k.arg in _VALUE_KEYWORDS), None)  # type: ignore[attr-defined]
        return type(value) in (ast.Name, ast.Attribute, ast.Subscript, ast.BinOp, ast.BoolOp, ast.Compare,
                               ast.IfExp, ast.ListComp, ast.GeneratorExp, ast.Dict, ast.Set)


class _Bindings:
    """The bindings of the module by id, and whether one made in a loop may vary there."""

    def __init__(self, facts, module: _Module) -> None:
        self.facts = facts
        self.module = module
        self.nodes: dict[int, ast.AST] | None = None

    def evidence(self, binding: int) -> bool:
        """Can ``binding`` give the analysis evidence (not ``x = tf.constant(v)``, ``p = Player(...)``
        of a class compared by value: :meth:`_Module.states_nothing`)?"""
        node = self._node(binding)
        value = getattr(node, "value", None) if type(node) in (ast.Assign, ast.AnnAssign, ast.NamedExpr) else None
        return value is None or not self.module.states_nothing(value, self.facts)

    def _node(self, binding: int) -> ast.AST | None:
        if self.nodes is None:
            self.nodes = {id(n): n for n in self.facts.index.nodes}
        return self.nodes.get(binding)

    def varies(self, binding: int, loop_valued: set[str]) -> bool:
        """Can ``binding`` (a valued binding of a name) give a value that differs from one iteration to the next?"""
        node = self._node(binding)
        if node is None:
            return True
        kind = type(node)
        value = getattr(node, "value", None) if kind in (ast.Assign, ast.AnnAssign, ast.NamedExpr) else None
        if binding in self.facts._loop_bindings:
            if value is None:
                return True  # a loop variable or a counter
            if _literal(value):
                return False
            return call_may_vary(value, self.facts)
        # a binding outside any loop that reads a name the loop binds
        if value is None or type(value) is not ast.Call:
            return False
        reads = {n.id for n in ast.walk(value) if type(n) is ast.Name}
        return not reads.isdisjoint(loop_valued) and call_may_vary(value, self.facts)


def may_compare_arguments(facts) -> bool:
    """Does a call of a tf.function of this module pass arguments the call-site diagnostics can compare
    (the facts' question, sharper: see the module docstring)?"""
    per_parameter: dict[tuple[str, int], set] = {}
    per_keyword: dict[tuple[str, str], set] = {}
    loop_valued = facts.loop_valued
    module = _Module(facts.tree, facts)
    bindings = _Bindings(facts, module)
    for name, call, in_loop, chain in facts._call_sites:
        if not facts.may_call_a_tf_function(call.func) or not module.may_be_callable(call.func):
            continue
        for value, position, keyword in call_arguments(call):
            kind = type(value)
            key = (name, position)
            if kind is ast.Name:
                sources = {b for b in facts._sources(value.id, chain) if bindings.evidence(b)}
                varies = in_loop and any(bindings.varies(b, loop_valued) for b in sources)
            elif kind is ast.BinOp:
                sources, varies = {id(value)}, True
            elif kind is ast.Call and facts.call_tells(value):
                if module.states_nothing(value, facts):
                    continue
                sources, varies = {_normalised_source(value, facts._call_source(value))}, call_may_vary(value, facts)
            elif _literal(value):
                sources, varies = {ast.dump(value)}, False
            else:
                continue
            if keyword is None:
                per_parameter.setdefault(key, set()).update(sources)
            else:
                per_keyword.setdefault((name, keyword), set()).update(sources)
            if sources and in_loop and varies:
                return True
    if any(len(sources) >= 2 for sources in (*per_parameter.values(), *per_keyword.values())):
        return True
    # a keyword may be the parameter of any position
    return any(len(sources | positional) >= 2
               for (name, _keyword), sources in per_keyword.items()
               for (other, _position), positional in per_parameter.items() if other == name)
