"""What the tf.function codemods' tree checks read in CPython's tree: one walk per file.

The engine asks every codemod :meth:`~retrace_fix.codemods._base.RetraceCodemod.might_apply_to_tree`
before LibCST parses a file (ten to twenty times CPython's parse, and the codemods' passes after
it).  "The module names tf.function" lets through nearly every file of a TensorFlow project,
though only a few of them hold what a codemod reports.  :class:`TreeFacts` reads, in two walks of
CPython's tree, the few facts each codemod's decision starts from:

* the names that can be ``tf.function`` (:attr:`TreeFacts.tf_names`: ``function`` and the names
  imports bind to it) and the *tf.function candidates*: every ``def`` decorated with such a name
  (or a call of one), and every ``def`` whose name ``tf.function(f)``/``tf.function(...)(f)``
  wraps (``f``, ``self.f``), at any depth: a superset of what
  :func:`~retrace_fix.tf_functions.find_tf_functions` resolves;
* the *creations* (as :mod:`retrace_fix.codemods._creations` finds them: a candidate decorated
  ``def``, ``tf.function(f, ...)``, ``tf.function(...)(f)``), each with the ``def`` around it, the
  loops around it in that ``def`` and the kind of its first argument;
* the names called inside a loop or comprehension anywhere (a function that is called
  repeatedly), and the names called with at least one argument;
* what the code inside the candidates calls (clocks and random draws, resolved through the
  module's imports), and its ``for ... in range(...)`` loops;
* whether any call passes ``input_signature``, ``reduce_retracing`` or
  ``experimental_relax_shapes``.

Every fact over-approximates the LibCST analysis it stands for (names are matched by their
last part, scopes and shadowing are ignored, any loop counts): a check built on them may let
a file through for nothing, never drop one that would report.  ``tests/engine/test_prefilter.py``
checks that on every golden case and on near misses; ``benchmarks/corpus.py --check-prefilter``
on real projects.
"""

from __future__ import annotations

import ast

from retrace_fix.ast_walk import TreeIndex, child_fields, walk
from retrace_fix.codemods._creations import FACTORY_NAMES
from retrace_fix.codemods._forward_facts import may_forward
from retrace_fix.codemods._trace_time_draws import draws_at_trace_time
from retrace_fix.tfnames import TF_FUNCTION, canonical

#: keywords of tf.function that make shapes generalise (RTF106 reads static shapes under them)
SHAPE_KEYWORDS = frozenset({"input_signature", "reduce_retracing", "experimental_relax_shapes"})

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_REPEATING = frozenset((*_LOOPS, *_COMPREHENSIONS))
_AST = ast.AST
#: the walk's graph levels: code a tf.function may run (a candidate's), and code one surely runs
_GRAPH, _SURELY_GRAPH = 1, 2
_SHAPE_READS = frozenset({"shape", "get_shape"})
#: iterables whose items the call-site analysis types (``range(...)``, ``enumerate(...)``, ``[10, 20]``)
_LITERAL_ITERABLES = (ast.List, ast.Tuple, ast.Set)
_NAMED_BINDINGS = (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)


def _module_level_imports(tree: ast.Module) -> set[str]:
    """The names absolute imports bind at module level (also inside its ``if``/``try`` blocks)."""
    names: set[str] = set()
    statements = list(tree.body)
    while statements:
        statement = statements.pop()
        kind = type(statement)
        if kind is ast.Import:
            names.update(a.asname or a.name.split(".")[0] for a in statement.names)  # type: ignore[attr-defined]
        elif kind is ast.ImportFrom and not statement.level:  # type: ignore[attr-defined]
            names.update(a.asname or a.name for a in statement.names)  # type: ignore[attr-defined]
        elif kind is ast.If:
            statements.extend([*statement.body, *statement.orelse])  # type: ignore[attr-defined]
        elif kind is ast.Try or kind.__name__ == "TryStar":
            statements.extend([*statement.body, *statement.orelse, *statement.finalbody])  # type: ignore[attr-defined]
            for handler in statement.handlers:  # type: ignore[attr-defined]
                statements.extend(handler.body)
    return names
_BINDINGS = frozenset({ast.Assign, ast.AnnAssign, ast.AugAssign, ast.NamedExpr, ast.For, ast.AsyncFor, ast.comprehension})


#: the last part of the TensorFlow/NumPy calls whose dtype or shape
#: :mod:`~retrace_fix.codemods._stated_types` reads (``tf.zeros``, ``np.random.rand``, ``np.float32``)
_STATING_CALLS = frozenset({
    "constant", "convert_to_tensor", "cast", "zeros", "ones", "eye", "fill", "reshape", "range",
    "normal", "uniform", "truncated_normal", "stateless_normal", "array", "asarray", "empty", "full",
    "rand", "randn", "random", "randint", "choice", "standard_normal", "random_sample", "linspace",
    "identity", "float16", "bfloat16", "float32", "float64", "half", "double", "int8", "int16", "int32",
    "int64", "uint8", "uint16", "uint32", "uint64", "bool", "complex64", "complex128", "string",
})


def _telling(qualified: str) -> bool:
    """Can a call of the canonical name ``qualified`` state an object the call-site analysis
    compares (anything of Keras: ``ModuleCalls.object_class``), a dtype or a shape
    (a TensorFlow or NumPy constructor of :mod:`~retrace_fix.codemods._stated_types`)?"""
    if qualified.startswith("keras.") or qualified == "keras":
        return True
    return qualified.startswith(("tensorflow.", "numpy.")) and qualified.rsplit(".", 1)[-1] in _STATING_CALLS


def call_arguments(call: ast.Call):
    """(value, position, keyword) of each argument of ``call`` a call site is compared by: the
    positional ones numbered (``*args`` binds nothing known and takes no position: left out),
    then the keyword ones with their name (``**kwargs`` left out)."""
    position = 0
    for value in call.args:
        if type(value) is ast.Starred:
            continue
        yield value, position, None
        position += 1
    for keyword in call.keywords:
        if keyword.arg is not None:
            yield keyword.value, None, keyword.arg


def _literal(value: ast.AST | None) -> bool:
    """A literal the call-site analysis reads as a Python value (``10``, ``-0.5``, ``"adam"``)."""
    if type(value) is ast.UnaryOp:
        value = value.operand  # type: ignore[attr-defined]
    return type(value) is ast.Constant and type(value.value) in (int, float, str)  # type: ignore[attr-defined]


def _valued_names(node: ast.AST, tells) -> list[str]:
    """The names a binding gives a value that :class:`~retrace_fix.codemods._callsites.ModuleCalls`
    can read evidence from: ``x = <call>`` where ``tells`` says the call can state an object, a
    dtype or a shape (:meth:`TreeFacts.call_tells`), ``x = <literal>``, a
    counter (``x += ...``), ``for x in range(...)``, ``for i, _ in enumerate(...)``, ``for x in
    [10, 20]`` (a loop variable whose type is known); never a name unpacked from a tuple (those
    bindings carry nothing) or a loop over anything else."""
    kind = type(node)
    if kind is ast.Assign:
        if tells(node.value) or _literal(node.value):  # type: ignore[attr-defined]
            return [t.id for t in node.targets if type(t) is ast.Name]  # type: ignore[attr-defined]
        return []
    if kind is ast.AnnAssign or kind is ast.NamedExpr:
        if type(node.target) is ast.Name and (tells(node.value) or _literal(node.value)):  # type: ignore[attr-defined]
            return [node.target.id]  # type: ignore[attr-defined]
        return []
    if kind is ast.AugAssign:
        return [node.target.id] if type(node.target) is ast.Name else []  # type: ignore[attr-defined]
    target, iterable = node.target, node.iter  # type: ignore[attr-defined]
    if type(iterable) is ast.Call and type(iterable.func) is ast.Name:  # type: ignore[attr-defined]
        if iterable.func.id == "range" and type(target) is ast.Name:  # type: ignore[attr-defined]
            return [target.id]  # type: ignore[attr-defined]
        if iterable.func.id == "enumerate" and type(target) in (ast.Tuple, ast.List) and target.elts \
                and type(target.elts[0]) is ast.Name:  # type: ignore[attr-defined]
            return [target.elts[0].id]  # type: ignore[attr-defined]
        return []
    if type(iterable) in _LITERAL_ITERABLES and type(target) is ast.Name:
        return [target.id]  # type: ignore[attr-defined]
    return []


def tree_facts(tree: ast.Module, outline) -> "TreeFacts":
    """The facts of ``tree``, read once per file (kept on ``outline``, which is per file)."""
    facts = getattr(outline, "tree_facts", None)
    if facts is None or facts.tree is not tree:
        facts = TreeFacts(tree, outline.index if outline.tree is tree else None)
        outline.tree_facts = facts
    return facts


def _called_name(func: ast.expr) -> str | None:
    """The name a call is found by: ``f`` of ``f(...)``, ``m`` of ``obj.m(...)``."""
    kind = type(func)
    if kind is ast.Name:
        return func.id  # type: ignore[attr-defined]
    if kind is ast.Attribute:
        return func.attr  # type: ignore[attr-defined]
    return None


class TreeFacts:
    """The facts of one module (see the module docstring); built by :func:`tree_facts`."""

    def __init__(self, tree: ast.Module, index: TreeIndex | None = None) -> None:
        self.tree = tree
        self.index = index = index if index is not None else TreeIndex(tree)
        #: name -> the dotted names imports anywhere bind it to
        self.imports: dict[str, set[str]] = {}
        self.tf_names: set[str] = {"function"}
        self.range_names: set[str] = {"range"}
        calls: list[ast.Call] = index.of_type(ast.Call)
        assigns: list[ast.Assign] = index.of_type(ast.Assign)
        defs: list[ast.AST] = index.of_type(*_DEFS)
        self.shape_keywords = any(k.arg in SHAPE_KEYWORDS for k in index.of_type(ast.keyword)) and any(
            k.arg in SHAPE_KEYWORDS for call in calls for k in call.keywords)  # a class's keywords do not count
        #: name -> the bindings that may give it a value the call-site analysis reads
        #: (:func:`_valued_names`): only such names can carry evidence as arguments
        self.valued: dict[str, list[int]] = {}  # ...each binding by its id
        #: name -> the names in the calls assigned to it (``x = tf.zeros([n])``: ``n`` may vary)
        self.call_values: dict[str, set[str]] = {}
        bindings = index.of_type(*_BINDINGS)
        #: the names of the module's classes (RTF104's objects)
        self.classes: set[str] = {node.name for node in index.of_type(ast.ClassDef)}  # type: ignore[attr-defined]
        #: names bound other than by an absolute import, anywhere (``tf = ...``, a parameter, a def)
        self.rebound: set[str] = {
            node.id for node in index.of_type(ast.Name) if type(node.ctx) is not ast.Load}  # type: ignore[attr-defined]
        rebound = self.rebound
        rebound.update(node.arg for node in index.of_type(ast.arg))  # type: ignore[attr-defined]
        rebound |= self.classes
        rebound.update(node.name for node in index.of_type(*_NAMED_BINDINGS) if node.name)  # type: ignore[attr-defined]
        rebound.update(node.rest for node in index.of_type(ast.MatchMapping) if node.rest)  # type: ignore[attr-defined]
        rebound.update(node.name for node in defs)  # type: ignore[attr-defined]
        for node in index.of_type(ast.Import):
            for alias in node.names:  # type: ignore[attr-defined]
                if alias.asname:
                    self._bind(alias.asname, alias.name)
                else:
                    head = alias.name.split(".")[0]
                    self._bind(head, head)
        for node in index.of_type(ast.ImportFrom):
            if node.level or not node.module:  # type: ignore[attr-defined]
                rebound.update(a.asname or a.name for a in node.names)  # type: ignore[attr-defined]
                continue
            for alias in node.names:  # type: ignore[attr-defined]
                if alias.name != "*":
                    self._bind(alias.asname or alias.name, f"{node.module}.{alias.name}")  # type: ignore[attr-defined]
        for node in bindings:
            for name in _valued_names(node, self.call_tells):
                self.valued.setdefault(name, []).append(id(node))
                value = getattr(node, "value", None)
                if type(value) is ast.Call:
                    self.call_values.setdefault(name, set()).update(
                        sub.id for sub in walk(value) if type(sub) is ast.Name)  # type: ignore[attr-defined]
        for name, imported in self.imports.items():
            if any(target.rsplit(".", 1)[-1] == "function" for target in imported):
                self.tf_names.add(name)
            if any(target.rsplit(".", 1)[-1] == "range" for target in imported):
                self.range_names.add(name)
        # tf.function(f) / tf.function(...)(f): the names they wrap, and the names they are assigned to
        self.wrapped: set[str] = set()
        self.callables: set[str] = set()  # names a call of a tf.function of this module can use
        for call in calls:
            func = call.func
            if type(func) is ast.Call:
                func = func.func  # type: ignore[attr-defined]
            if not self.is_tf_function(func) or not call.args:
                continue
            first = call.args[0]
            if type(first) is ast.Name:
                self.wrapped.add(first.id)  # type: ignore[attr-defined]
            elif type(first) is ast.Attribute:
                self.wrapped.add(first.attr)  # type: ignore[attr-defined]
        for assign in assigns:
            value = assign.value
            if type(value) is ast.Call and (
                self.is_tf_function(value.func)  # type: ignore[attr-defined]
                or (type(value.func) is ast.Call and self.is_tf_function(value.func.func))  # type: ignore[attr-defined]
            ):
                self.callables.update(target.id for target in assign.targets if type(target) is ast.Name)  # type: ignore[attr-defined]
        self.candidates: set[int] = set()  # ids of the defs that can be tf.functions
        self.decorated: set[int] = set()  # ...of those, the ones a decorator makes one
        self.surely: set[int] = set()  # ...of those, the ones LibCST surely finds (their calls are graph code)
        module_imports = _module_level_imports(tree)
        for node in defs:
            if any(self._tf_decorator(d) for d in node.decorator_list):  # type: ignore[attr-defined]
                if any(self._surely_tf_function(d.func if type(d) is ast.Call else d, module_imports)  # type: ignore[attr-defined]
                       for d in node.decorator_list):  # type: ignore[attr-defined]
                    self.surely.add(id(node))
                self.decorated.add(id(node))
                self.candidates.add(id(node))
                self.callables.add(node.name)  # type: ignore[attr-defined]
            elif node.name in self.wrapped:  # type: ignore[attr-defined]
                self.candidates.add(id(node))
        # the defs whose own tf.function passes a shape keyword (RTF106 reads static shapes only
        # directly in their bodies: ``_ReadOnly._relaxed_dims`` of the innermost def)
        relaxed_names: set[str] = set()
        for call in calls:
            func = call.func
            inner = func if type(func) is ast.Call else call
            if type(func) is ast.Call:
                func = func.func  # type: ignore[attr-defined]
            if call.args and self.is_tf_function(func) and any(k.arg in SHAPE_KEYWORDS for k in inner.keywords):  # type: ignore[attr-defined]
                first = call.args[0]
                if type(first) is ast.Name:
                    relaxed_names.add(first.id)  # type: ignore[attr-defined]
                elif type(first) is ast.Attribute:
                    relaxed_names.add(first.attr)  # type: ignore[attr-defined]
        self._relaxed: set[int] = {
            id(node) for node in defs if id(node) in self.candidates and (
                node.name in relaxed_names  # type: ignore[attr-defined]
                or any(type(d) is ast.Call and self.is_tf_function(d.func)  # type: ignore[attr-defined]
                       and any(k.arg in SHAPE_KEYWORDS for k in d.keywords)  # type: ignore[attr-defined]
                       for d in node.decorator_list))}  # type: ignore[attr-defined]
        #: (creation node, the name of the def around it or None, a loop around it in that def,
        #: the first argument of a call creation or None)
        self.creations: list[tuple[ast.AST, str | None, bool, ast.expr | None]] = []
        self.loop_called: set[str] = set()  # names called inside a loop or comprehension
        self.loop_valued: set[str] = set()  # valued names with a binding inside a loop (or a loop's target)
        #: (callable, call, inside a loop, the ids of the defs around the call)
        self._call_sites: list[tuple[str, ast.Call, bool, tuple]] = []
        #: the names :class:`~retrace_fix.codemods._callsites.ModuleCalls` can resolve a call to a
        #: tf.function of this module by: a candidate def at module level or a module-level
        #: ``name = tf.function(...)`` (called by a bare name), a candidate def in a class body
        #: (called as ``obj.name(...)``); a candidate nested in a def is never a callable
        self.plain_callables: set[str] = set()
        self.method_callables: set[str] = set()
        self._binding_def: dict[int, int] = {}  # id(binding) -> id(the innermost def around it)
        self._instances: set[str] | None = None  # names assigned ``C(...)`` of a class C of this module (lazy)
        self._loop_bindings: set[int] = set()  # ids of the bindings inside a loop (or a loop's target)
        self._first_params: dict[str, set[str]] | None = None  # def name -> its first parameters (lazy)
        self._parents: dict[int, ast.AST] = {}  # id(call) -> the node holding it (lazy, with _first_params)
        self.graph_draws = False  # a clock or random draw inside a candidate (or a tf.function(lambda))
        #: `for ... in range(...)` inside a candidate, each with the id of the innermost def around it
        self.graph_range_loops: list[tuple[ast.AST, int | None]] = []
        #: id of the innermost def (None: outside any) -> the names stored in its own code
        self._stores: dict[int | None, set[str]] = {}
        self._params: dict[int, set[str]] = {}  # id(def) -> the names of its parameters
        #: a static shape read directly in the body of a candidate whose own tf.function passes a
        #: shape keyword: `.shape`, `.get_shape`, `len` (RTF106's reads)
        self.graph_shape_reads = False
        if self.candidates or self.wrapped or calls:
            self._walk()

    # ------------------------------------------------------------------ names

    def _bind(self, name: str, target: str) -> None:
        self.imports.setdefault(name, set()).add(target)

    def is_tf_function(self, expr: ast.AST) -> bool:
        """Can ``expr`` be ``tf.function``?  (``<x>.function`` or a name imports bind to a ``function``.)"""
        kind = type(expr)
        if kind is ast.Attribute:
            return expr.attr == "function"  # type: ignore[attr-defined]
        return kind is ast.Name and expr.id in self.tf_names  # type: ignore[attr-defined]

    def _tf_decorator(self, decorator: ast.expr) -> bool:
        return self.is_tf_function(decorator) or (type(decorator) is ast.Call and self.is_tf_function(decorator.func))  # type: ignore[attr-defined]

    def _surely_tf_function(self, expr: ast.AST, module_imports: set[str]) -> bool:
        """Does every reading of ``expr`` make it ``tf.function``, as LibCST's scope resolves it?
        Its head is imported at module level, only ever bound by absolute imports, each of
        which makes ``expr`` resolve to ``tensorflow.function``."""
        parts: list[str] = []
        while type(expr) is ast.Attribute:
            parts.append(expr.attr)  # type: ignore[attr-defined]
            expr = expr.value  # type: ignore[attr-defined]
        if type(expr) is not ast.Name:
            return False
        head = expr.id  # type: ignore[attr-defined]
        if head in self.rebound or head not in module_imports:
            return False
        rest = ".".join(reversed(parts))
        return all(canonical(f"{target}.{rest}" if rest else target) == TF_FUNCTION
                   for target in self.imports.get(head, ("",)))

    def call_tells(self, value: ast.AST | None) -> bool:
        """Can the call-site analysis read something from the call ``value``: an object of a class
        of this module or of Keras (RTF104), a dtype (``x.astype(...)``, a TF/NumPy constructor:
        RTF105) or a shape (RTF107)?  Those are calls of a class of the module or of a name
        imports bind (what ``Scope.qualify`` resolves)."""
        if type(value) is not ast.Call:
            return False
        func = value.func  # type: ignore[attr-defined]
        if type(func) is ast.Attribute and func.attr == "astype":  # type: ignore[attr-defined]
            return True
        root = func
        while type(root) is ast.Attribute:
            root = root.value  # type: ignore[attr-defined]
        if type(root) is not ast.Name:
            return False
        if root.id in self.classes:  # type: ignore[attr-defined]
            return True
        return root.id in self.imports and any(_telling(q) for q in self.qualified(func))  # type: ignore[attr-defined]

    def _creates(self, value: ast.AST) -> bool:
        """Is ``value`` ``tf.function(...)`` or ``tf.function(...)(...)``?"""
        return type(value) is ast.Call and (
            self.is_tf_function(value.func)  # type: ignore[attr-defined]
            or (type(value.func) is ast.Call and self.is_tf_function(value.func.func)))  # type: ignore[attr-defined]

    def may_call_a_tf_function(self, func: ast.expr) -> bool:
        """Can ``ModuleCalls`` resolve a call of ``func`` to a tf.function of this module: a bare
        name of :attr:`plain_callables`, or ``<name>.m(...)`` of a method of
        :attr:`method_callables` on ``self`` or on a name some assignment gives ``C(...)`` of a
        class ``C`` of this module (``ModuleCalls._receiver_is_instance``)?"""
        if type(func) is ast.Name:
            return func.id in self.plain_callables  # type: ignore[attr-defined]
        if not (type(func) is ast.Attribute and type(func.value) is ast.Name and func.attr in self.method_callables):  # type: ignore[attr-defined]
            return False
        receiver = func.value.id  # type: ignore[attr-defined]
        if receiver == "self":
            return True
        if self._instances is None:
            self._instances = {
                target.id  # type: ignore[attr-defined]
                for node in self.index.of_type(ast.Assign) if type(node.value) is ast.Call  # type: ignore[attr-defined]
                and type(node.value.func) is ast.Name and node.value.func.id in self.classes  # type: ignore[attr-defined]
                for target in node.targets if type(target) is ast.Name  # type: ignore[attr-defined]
            }
        return receiver in self._instances

    def _call_source(self, call: ast.Call) -> object:
        """What a call passed as an argument brings: the same dtype, shape or Keras object type
        wherever its text is the same and it reads no name but imported ones (``tf.constant([1.0])``
        twice is one source); an object of a class of this module (compared by identity), or a
        call that reads other names (``tf.zeros([n])``: ``n`` may differ), is a source of its own."""
        root = call.func
        while type(root) is ast.Attribute:
            root = root.value  # type: ignore[attr-defined]
        if type(root) is ast.Name and root.id in self.classes:  # type: ignore[attr-defined]
            return id(call)
        for part in (*call.args, *call.keywords):
            for node in walk(part):
                if type(node) is ast.Name and node.id not in self.imports:  # type: ignore[attr-defined]
                    return id(call)
        return ast.dump(call)

    def _sources(self, name: str, chain: tuple) -> set[int]:
        """The valued bindings of ``name`` a call inside the defs ``chain`` can read: those of
        those defs and of the module (``ModuleCalls.reaching`` reads one of these scopes)."""
        owners = self._binding_def
        return {b for b in self.valued.get(name, ()) if owners.get(b) is None or owners[b] in chain}

    def qualified(self, func: ast.expr) -> set[str]:
        """The canonical dotted names ``func`` (a name or attribute chain) can mean through the imports."""
        parts: list[str] = []
        while type(func) is ast.Attribute:
            parts.append(func.attr)  # type: ignore[attr-defined]
            func = func.value  # type: ignore[attr-defined]
        if type(func) is not ast.Name:
            return set()
        rest = ".".join(reversed(parts))
        return {
            canonical(f"{target}.{rest}" if rest else target) or ""
            for target in self.imports.get(func.id, ())  # type: ignore[attr-defined]
        }

    # ------------------------------------------------------------------ the walk

    def _walk(self) -> None:
        """Creations, loop calls, calls with arguments, and what the candidates' code does."""
        # (node, def name around it, a loop around it in that def, a loop around it anywhere, graph code)
        # and the context: (the ids of the defs around it, "class"/"def" for the innermost
        # container, None at module level; in the body of a def whose own tf.function passes
        # input_signature/reduce_retracing/experimental_relax_shapes)
        stack: list[tuple[ast.AST, str | None, bool, bool, int, tuple]] = [
            (self.tree, None, False, False, 0, ((), None, False))]
        pop, push = stack.pop, stack.append
        candidates, decorated, surely = self.candidates, self.decorated, self.surely
        while stack:
            node, owner, loop, any_loop, graph, ctx = pop()
            kind = type(node)
            if kind is ast.Name and type(node.ctx) is ast.Store:  # type: ignore[attr-defined]
                self._stores.setdefault(ctx[0][-1] if ctx[0] else None, set()).add(node.id)  # type: ignore[attr-defined]
            if kind in _BINDINGS:
                if ctx[0]:
                    self._binding_def[id(node)] = ctx[0][-1]
                if any_loop or kind is ast.For or kind is ast.AsyncFor:
                    self.loop_valued.update(_valued_names(node, self.call_tells))
                    self._loop_bindings.add(id(node))
            if kind is ast.Call:
                name = _called_name(node.func)  # type: ignore[attr-defined]
                if name is not None:
                    if any_loop:
                        self.loop_called.add(name)
                    if name in self.callables and graph != _SURELY_GRAPH:
                        self._call_sites.append((name, node, any_loop, ctx[0]))  # type: ignore[arg-type]
                func = node.func  # type: ignore[attr-defined]
                inner = func.func if type(func) is ast.Call else None
                if node.args and type(node.args[0]) is not ast.Starred and (  # type: ignore[attr-defined]
                    self.is_tf_function(func) or (inner is not None and self.is_tf_function(inner))
                ):
                    first = node.args[0]  # type: ignore[attr-defined]
                    self.creations.append((node, owner, loop, first))
                    if type(first) is ast.Lambda:  # tf.function(lambda ...): its body is graph code
                        push((first, owner, loop, any_loop, graph or _GRAPH, ctx))
                        for child in node.args[1:]:  # type: ignore[attr-defined]
                            push((child, owner, loop, any_loop, graph, ctx))
                        for keyword in node.keywords:  # type: ignore[attr-defined]
                            push((keyword, owner, loop, any_loop, graph, ctx))
                        push((func, owner, loop, any_loop, graph, ctx))
                        continue
                if graph and not self.graph_draws and any(draws_at_trace_time(q) for q in self.qualified(func)):
                    self.graph_draws = True
            elif graph and ctx[2] and not self.graph_shape_reads and (
                (kind is ast.Attribute and node.attr in _SHAPE_READS)  # type: ignore[attr-defined]
                or (kind is ast.Name and node.id == "len")  # type: ignore[attr-defined]
            ):
                self.graph_shape_reads = True
            elif kind is ast.FunctionDef or kind is ast.AsyncFunctionDef:
                if id(node) in decorated:
                    self.creations.append((node, owner, loop, None))
                for decorator in node.decorator_list:  # type: ignore[attr-defined]
                    push((decorator, owner, loop, any_loop, graph, ctx))
                for child in (node.args, node.returns):  # type: ignore[attr-defined]
                    if child is not None:
                        push((child, owner, loop, any_loop, graph, ctx))
                inside = _SURELY_GRAPH if graph == _SURELY_GRAPH or id(node) in surely else (
                    _GRAPH if graph or id(node) in candidates else 0)
                if id(node) in candidates:
                    if ctx[1] is None:
                        self.plain_callables.add(node.name)  # type: ignore[attr-defined]
                    elif ctx[1] == "class":
                        self.method_callables.add(node.name)  # type: ignore[attr-defined]
                arguments = node.args  # type: ignore[attr-defined]
                self._params[id(node)] = {a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs,
                                                          *(x for x in (arguments.vararg, arguments.kwarg) if x))}
                inner_ctx = ((*ctx[0], id(node)), "def", id(node) in self._relaxed)
                for statement in node.body:  # type: ignore[attr-defined]
                    push((statement, node.name, False, any_loop, inside, inner_ctx))  # type: ignore[attr-defined]
                continue
            elif kind is ast.ClassDef:
                for child in (*node.decorator_list, *node.bases, *node.keywords):  # type: ignore[attr-defined]
                    push((child, owner, loop, any_loop, graph, ctx))
                inner_ctx = (ctx[0], "class", ctx[2])
                for statement in node.body:  # type: ignore[attr-defined]
                    push((statement, owner, loop, any_loop, graph, inner_ctx))
                continue
            elif kind is ast.Assign and ctx[1] is None and self._creates(node.value):  # type: ignore[attr-defined]
                self.plain_callables.update(t.id for t in node.targets if type(t) is ast.Name)  # type: ignore[attr-defined]
            elif kind in _REPEATING:
                if graph and (kind is ast.For or kind is ast.AsyncFor):
                    iterable = node.iter  # type: ignore[attr-defined]
                    if type(iterable) is ast.Call and _called_name(iterable.func) in self.range_names:
                        self.graph_range_loops.append((node, ctx[0][-1] if ctx[0] else None))
                loop = any_loop = True  # for its children: every part of a loop may repeat
            for name in child_fields(kind):
                value = getattr(node, name, None)
                for item in value if type(value) is list else (value,):
                    # attribute chains, names and constants (more than half the nodes) are read
                    # here, not pushed: an attribute's one child is its value, the others are leaves
                    while type(item) is ast.Attribute:
                        if graph and ctx[2] and item.attr in _SHAPE_READS:  # type: ignore[attr-defined]
                            self.graph_shape_reads = True
                        item = item.value  # type: ignore[attr-defined]
                    if type(item) is ast.Name:
                        if type(item.ctx) is ast.Store:  # type: ignore[attr-defined]
                            self._stores.setdefault(ctx[0][-1] if ctx[0] else None, set()).add(item.id)  # type: ignore[attr-defined]
                        if graph and ctx[2] and item.id == "len":  # type: ignore[attr-defined]
                            self.graph_shape_reads = True
                    elif type(item) is not ast.Constant and isinstance(item, _AST):
                        push((item, owner, loop, any_loop, graph, ctx))

    # ------------------------------------------------------------------ what the checks ask

    @property
    def has_candidates(self) -> bool:
        """Can any ``def`` of the module be a tf.function?"""
        return bool(self.candidates)

    def repeated_creations(self, *, module_loops: bool, method_wraps: bool) -> bool:
        """Is there a creation that may run over and over
        (:func:`~retrace_fix.codemods._creations.repeated_evidence`, and with ``method_wraps``
        RTF006's ``tf.function(self.m)`` in a method and its forwarding ``tf.function(lambda x:
        f(x, k))``/``tf.function(partial(f, k=k))`` in a def)?  ``module_loops``: a creation in a loop
        outside any def counts (RTF101's; RTF006 moves only creations inside a def)."""
        for _node, owner, loop, first in self.creations:
            if owner is None:
                if loop and module_loops:
                    return True
                continue
            if loop:
                return True
            if owner in FACTORY_NAMES:
                continue
            if owner in self.loop_called:
                return True
            if method_wraps and first is not None and type(first) in (ast.Lambda, ast.Call) \
                    and may_forward(first, self.tree, self):
                return True
            if method_wraps and type(first) is ast.Attribute and self._own_method_wrap(_node, owner, first):
                return True
        return False

    def _own_method_wrap(self, node: ast.AST, owner: str, first: ast.Attribute) -> bool:
        """Can ``HoistFacts.method_evidence`` find evidence in ``tf.function(<x>.m)`` (``node``) in the
        def ``owner``: ``<x>`` is the first parameter of a def of that name (the method's ``self``),
        and the new function does not escape (``escapes``: it is called, an attribute of it is
        read, it is passed to a call or assigned to names only)?"""
        if type(first.value) is not ast.Name:
            return False
        if self._first_params is None:
            self._first_params = {}
            self._parents = {}
            for each in self.index.nodes:
                kind = type(each)
                if kind is ast.FunctionDef or kind is ast.AsyncFunctionDef:
                    arguments = [*each.args.posonlyargs, *each.args.args]  # type: ignore[attr-defined]
                    if arguments:
                        self._first_params.setdefault(each.name, set()).add(arguments[0].arg)  # type: ignore[attr-defined]
                for name in child_fields(kind):
                    value = getattr(each, name, None)
                    for child in value if type(value) is list else (value,):
                        if type(child) is ast.Call:
                            self._parents[id(child)] = each
        if first.value.id not in self._first_params.get(owner, ()):  # type: ignore[attr-defined]
            return False
        parent = self._parents.get(id(node))
        kind = type(parent)
        if kind is ast.Call:
            return True  # called, or passed to a call (a TF op's argument does not escape)
        if kind is ast.Attribute:
            return True
        if kind is ast.Assign:
            return all(type(t) is ast.Name for t in parent.targets)  # type: ignore[attr-defined]
        return kind is ast.keyword

    def calls_a_tf_function_with_arguments(self) -> bool:
        """Does a call of a name that can be a tf.function of this module pass arguments the
        call-site diagnostics (RTF103, RTF104, RTF105, RTF107) can compare?

        An argument carries evidence only as a call (an object constructed, a dtype or shape
        stated), a number or string literal, arithmetic, or a name with valued bindings
        (:func:`_valued_names`, each binding one source); never as an attribute, a subscript, a
        lambda...  Every diagnostic compares, one parameter at a time: a value that varies in
        a loop around the call (a loop variable, a counter, an object or a shape made per
        iteration: a call or arithmetic there, or a name bound in a loop or assigned a call
        that reads such a name), or two sources for the parameter over all the calls (two
        literals, dtypes, shapes, objects).  A parameter is keyed by its position, and a
        keyword argument counts for every parameter.
        """
        per_parameter: dict[tuple[str, int], set] = {}
        by_keyword: dict[str, set] = {}
        loop_valued = self.loop_valued
        for name, call, in_loop, chain in self._call_sites:
            if not self.may_call_a_tf_function(call.func):
                continue
            for value, position, keyword in call_arguments(call):
                kind = type(value)
                key = (name, position)
                # the distinct values an argument can bring: a binding, a call, a literal
                if kind is ast.Name:
                    sources = self._sources(value.id, chain)  # type: ignore[attr-defined]
                    varies = not sources.isdisjoint(self._loop_bindings) or not loop_valued.isdisjoint(
                        self.call_values.get(value.id, ()))  # type: ignore[attr-defined]
                elif kind is ast.BinOp:
                    sources, varies = {id(value)}, True
                elif kind is ast.Call and self.call_tells(value):
                    sources, varies = {self._call_source(value)}, True
                elif _literal(value):
                    sources, varies = {ast.dump(value)}, False
                else:
                    continue
                if keyword is None:
                    per_parameter.setdefault(key, set()).update(sources)
                else:
                    by_keyword.setdefault(name, set()).update(sources)
                if sources and in_loop and varies:
                    return True
        if any(len(sources) >= 2 for sources in by_keyword.values()):
            return True
        return any(len(sources | by_keyword.get(name, set())) >= 2 for (name, _), sources in per_parameter.items())

    def range_loop_with_a_bound(self) -> bool:
        """A graph ``for ... in range(...)`` with a bound that may be a parameter or a tensor
        (:meth:`_may_be_tensor`): RTF001 acts only on those (``range(3)``, ``range(len(x))`` and
        ``range(self.n)`` are Python loops AutoGraph unrolls)."""
        return any(
            any(self._may_be_tensor(arg, function) for arg in loop.iter.args)  # type: ignore[attr-defined]
            for loop, function in self.graph_range_loops if self.may_be_builtin_range(loop.iter)  # type: ignore[attr-defined]
        )

    def may_be_builtin_range(self, call: ast.Call) -> bool:
        """Can ``call`` be what ``_tf_values.range_call`` accepts: ``range(...)`` of the builtin
        (``Scope.qualify`` gives ``builtins.range``: a bare name, or an attribute of an imported
        ``builtins``) with one to three positional arguments?  Never ``tf.range(...)``: already a
        graph loop, nothing for RTF001 or RTF007 to change."""
        if not 1 <= len(call.args) <= 3 or call.keywords or any(type(a) is ast.Starred for a in call.args):
            return False
        func = call.func
        if type(func) is ast.Name:
            return True
        while type(func) is ast.Attribute:
            func = func.value  # type: ignore[attr-defined]
        return type(func) is ast.Name and any(
            target.split(".")[0] == "builtins" for target in self.imports.get(func.id, ()))  # type: ignore[attr-defined]

    def _may_be_tensor(self, expr: ast.AST, function: int | None) -> bool:
        """Can :func:`~retrace_fix.codemods._tf_values.is_tensor_expr` call ``expr`` a tensor, or
        is it a name (a parameter): a name, a call of an imported name (a TF op), a subscript of
        one (``tf.shape(x)[0]``), arithmetic on one?  Never an attribute (``self.n``, ``x.shape[0]``),
        ``len(x)`` or a number.  A name only as a parameter of ``function`` (the innermost def
        around the loop), a name its own code stores (``tf_valued_names``) or one the module's
        code stores (``RangeDecider.module_tf_names``)."""
        kind = type(expr)
        if kind is ast.Name:
            name = expr.id  # type: ignore[attr-defined]
            return (function is not None and (name in self._params.get(function, ()) or name in self._stores.get(function, ()))
                    ) or name in self._stores.get(None, ())
        if kind is ast.Call:
            root = expr.func  # type: ignore[attr-defined]
            while type(root) is ast.Attribute:
                root = root.value  # type: ignore[attr-defined]
            return type(root) is ast.Name and root.id in self.imports  # type: ignore[attr-defined]
        if kind is ast.Subscript:
            return self._may_be_tensor(expr.value, function)  # type: ignore[attr-defined]
        if kind is ast.BinOp:
            return self._may_be_tensor(expr.left, function) or self._may_be_tensor(expr.right, function)  # type: ignore[attr-defined]
        if kind is ast.UnaryOp:
            return self._may_be_tensor(expr.operand, function)  # type: ignore[attr-defined]
        return False

    def range_loop_with_append(self) -> bool:
        """A graph ``for ... in range(...)`` whose body appends to something (RTF007's loops)."""
        for loop, _function in self.graph_range_loops:
            if not self.may_be_builtin_range(loop.iter):  # type: ignore[attr-defined]
                continue
            for statement in loop.body:  # type: ignore[attr-defined]
                for node in self.index.subtree(statement):
                    if type(node) is ast.Call and type(node.func) is ast.Attribute and node.func.attr == "append":  # type: ignore[attr-defined]
                        return True
        return False
