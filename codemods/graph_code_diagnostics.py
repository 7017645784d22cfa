"""Diagnostics about the code inside a tf.function: RTF102, RTF106.

They read the module, never edit.  Each code's rule (name, tier, summary, the
page ``retrace-fix explain CODE`` prints) is in :data:`RULES`.
"""

from __future__ import annotations

import libcst as cst

from retrace_fix.codemods._callsites import py_function_targets as _py_function_targets
from retrace_fix.codemods._report_only import TfFunctionDiagnostics, doc_page, report_only_rules
from retrace_fix.codemods._shape_read_facts import relaxed_shape_reads
from retrace_fix.codemods._static_shapes import static_read
from retrace_fix.codemods._trace_time_draws import CLOCKS as _CLOCKS
from retrace_fix.codemods._traced_functions import traced_dims, traced_functions
from retrace_fix.codemods._tree_facts import tree_facts
from retrace_fix.node_text import short_code
from retrace_fix.tfnames import dotted_name, named_params


RTF102_DOC = doc_page(
    what="""
Reports calls to ``time.time()`` (and the other ``time`` clocks),
``datetime.now()``/``utcnow()``/``date.today()``, the ``random`` module and
``np.random`` inside a tf.function (any spelling, nested functions included;
functions handed to ``tf.py_function``/``tf.numpy_function`` are exempt because
they do run on every call).  Never edits.
""",
    why="""
A tf.function runs its Python body only while tracing.  The clock or random
call runs once, and its result is baked into the graph as a constant: every
later call reuses the same "current time" or the same "random" number, until
something else makes the function retrace - then the value silently changes.
The graph-side equivalents run on every call: ``tf.timestamp()`` for clocks,
``tf.random.uniform``/``tf.random.normal`` or a ``tf.random.Generator`` for
random numbers.
""",
    example="""
Before::

    @tf.function
    def train_step(x):
        noise = random.random()          # RTF102: one value for every call
        start = time.time()              # RTF102: frozen at trace time
        ...

By hand::

    @tf.function
    def train_step(x):
        noise = tf.random.uniform([])
        start = tf.timestamp()
        ...
""",
    safety="""
diagnostic only.  Replacing the call changes the program's results (it fixes
a bug): the new code draws a fresh value on every call, and a seeded
``random``/``np.random`` stream is not reproduced by ``tf.random``.  Suppress
with ``# retrace-fix: ignore[RTF102]`` when the trace-time value is intended.
""",
)

RTF106_DOC = doc_page(
    what="""
Reports static shape reads of a parameter - ``x.shape[k]``,
``x.shape.as_list()``, ``x.get_shape()[k]`` - inside a tf.function where that
dimension is or becomes ``None``: the function already has
``reduce_retracing=True`` (or ``experimental_relax_shapes=True``), which turns
the batch dimension into ``None`` from the second distinct shape on, or an
``input_signature`` whose spec for ``x`` has ``None`` in dimension ``k``.
With recorded traces (``--traces``) of a ``reduce_retracing`` function, only
the dimensions whose size differed between the traces count (TensorFlow keeps
a dimension that never varied static), so a read of a dimension that RTF004
left static when it added ``reduce_retracing=True`` is not reported.
Reads guarded by ``is None`` are not reported.  ``len(x)`` is reported only
where a Python int is needed - inside ``range(...)`` or a numpy call:
elsewhere AutoGraph turns it into ``tf.shape(x)[0]``, which works in TF
ops (and ``x`` may be a tuple, whose length never changes).  Never edits.

One problem, one finding: where RTF008 (static-to-dynamic-shape) rewrites the
same read to ``tf.shape(x)[k]`` - a tensor is accepted there and the recorded
traces show the dimension varying - this finding is dropped as its duplicate.
""",
    why="""
Shape generalisation is how retracing is removed: a ``None`` dimension lets
one graph serve every size.  But a static read of that dimension then gives
``None``: ``tf.reshape(x, [x.shape[0], -1])`` fails with "Failed to convert
elements of [None, -1] to Tensor", ``range(x.shape[0])`` and
``np.zeros(x.shape)`` fail with a TypeError, and ``range(len(x))`` silently
turns an unrolled loop into a graph loop (a body that appends to a Python list
then breaks).  Code like this also keeps retrace-fix from
adding a signature or ``reduce_retracing=True`` for you.
""",
    example="""
Before::

    @tf.function(reduce_retracing=True)
    def flatten(x):
        return tf.reshape(x, [x.shape[0], -1])   # RTF106: None on the 2nd shape

By hand::

    @tf.function(reduce_retracing=True)
    def flatten(x):
        return tf.reshape(x, [tf.shape(x)[0], -1])
""",
    safety="""
diagnostic only.  ``tf.shape(x)[k]`` is a tensor, not a Python int: it works
in TF ops, but not where Python needs an int (``range`` becomes a graph loop,
Python ``if`` becomes ``tf.cond``), so the rewrite is left to you.
""",
)

RULES = report_only_rules(
    "graph-code-diagnostics",
    ("RTF102", "python-side-effect",
     "time.time()/datetime.now()/random/np.random inside a tf.function run once, at trace time", RTF102_DOC),
    # RTF008 rewrites the read to tf.shape(x)[k] where a tensor is accepted and traces show it varying
    ("RTF106", "static-shape-blocks-fix",
     "x.shape[0]/range(len(x)) where reduce_retracing or input_signature make the dimension None",
     RTF106_DOC, ("RTF008",)),
)

_RELAX_KEYWORDS = ("reduce_retracing", "experimental_relax_shapes")


class GraphDiagnosticsCommand(TfFunctionDiagnostics):
    RULES = RULES
    ORDER = 100
    NAME = "graph-code-diagnostics"
    SUMMARY = "Python side effects (time, random) and static-shape reads inside a tf.function"

    @classmethod
    def might_apply_to_tree(cls, tree, outline) -> bool:
        """A def that can be a tf.function, and either a clock or random draw (resolved through
        the imports) in the code of one (RTF102), or a static shape read there (``.shape``,
        ``.get_shape``, ``len``) in a module where a call passes ``input_signature``,
        ``reduce_retracing`` or ``experimental_relax_shapes`` (RTF106 reads static shapes only
        under them; with traces the engine does not ask)."""
        if not outline.references_tf_function:
            return False
        facts = tree_facts(tree, outline)
        return facts.has_candidates and (facts.graph_draws or (
            facts.shape_keywords and facts.graph_shape_reads and relaxed_shape_reads(tree, facts)))

    def diagnose_module(self, tree: cst.Module) -> None:
        self._py_function_targets = _py_function_targets(tree, self.scope)
        tree.visit(_ReadOnly(self))


class _ReadOnly(cst.CSTVisitor):
    """Walks the tree with the codemod's scope/function bookkeeping, reporting only."""

    def __init__(self, codemod: GraphDiagnosticsCommand) -> None:
        self.c = codemod
        # per function: (param -> None-able dims (None: all), why they are None), or None
        self.relaxed: list[_Relaxed | None] = []
        self.exempt_depth = 0
        self.graph_lambdas: set[int] = set()
        self.int_contexts: dict[int, str] = {}  # id(len call) -> the call that needs a Python int
        self.read_counts: dict[tuple, int] = {}  # (function, read text) -> reads so far (RTF008's subjects)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.c.visit_FunctionDef(node)
        exempt = node.name.value in self.c._py_function_targets and node not in self.c.analysis.tf_functions
        self.exempt_depth += 1 if exempt or self.exempt_depth else 0
        self.relaxed.append(self._relaxed_dims(node))

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.relaxed.pop()
        if self.exempt_depth:
            self.exempt_depth -= 1
        self.c.leave_FunctionDef(original_node, original_node)

    def visit_Lambda(self, node: cst.Lambda) -> None:
        self.c.visit_Lambda(node)
        if id(node) in self.graph_lambdas:
            self.c._tf_depth += 1  # tf.function(lambda x: ...): the lambda body is graph code

    def leave_Lambda(self, original_node: cst.Lambda) -> None:
        if id(original_node) in self.graph_lambdas:
            self.c._tf_depth -= 1
        self.c.leave_Lambda(original_node, original_node)

    # ------------------------------------------------------------ RTF102
    def visit_Call(self, node: cst.Call) -> None:
        if node.args and isinstance(node.args[0].value, cst.Lambda) and node.args[0].keyword is None \
                and self.c.scope.is_tf_function(node.func):
            self.graph_lambdas.add(id(node.args[0].value))
        if not self.c.in_tf_function or self.exempt_depth:
            return
        q = self.c.scope.qualify(node.func)
        if q is None:
            return
        if q == "builtins.range" or q.startswith("numpy."):
            for arg in node.args:
                for inner in _len_calls(arg.value):
                    self.int_contexts[id(inner)] = "range" if q == "builtins.range" else q
        shown = short_code(node)
        if q in _CLOCKS:
            self.c.report(
                node,
                f"`{shown}` runs once, while tracing: its value is frozen into the graph; "
                f"use `{_CLOCKS[q]}`",
                code="RTF102",
            )
        elif q.startswith(("random.", "numpy.random.")):
            self.c.report(
                node,
                f"`{shown}` runs once, while tracing: the same number is reused on every call; "
                "use `tf.random.uniform`/`tf.random.normal` (or a `tf.random.Generator`)",
                code="RTF102",
            )

    # ------------------------------------------------------------ RTF106
    def _relaxed_dims(self, node: cst.FunctionDef) -> _Relaxed | None:
        """For a tf.function that generalises shapes: param -> dims that may be None (None: all)."""
        site = self.c.analysis.tf_functions.get(node)
        if site is None or site.call is None:
            return None
        params = [p.name.value for p in named_params(node.params, keyword_only=False)]
        if site.class_name is not None and params and params[0] in ("self", "cls"):
            params = params[1:]
        reassigned = _reassigned(node)
        params = [p for p in params if p not in reassigned]
        keywords = {a.keyword.value: a.value for a in site.call.args if a.keyword is not None}
        signature = keywords.get("input_signature")
        if isinstance(signature, (cst.List, cst.Tuple)):
            dims: dict[str, set[int] | None] = {}
            for param, element in zip(params, signature.elements):
                none_dims = _spec_none_dims(element.value)
                if none_dims is None or none_dims:
                    dims[param] = none_dims
            return _Relaxed(dims, "signature") if dims else None
        if not any(
            isinstance(value, cst.Name) and value.value == "True"
            for value in (keywords.get(keyword) for keyword in _RELAX_KEYWORDS)
        ):
            return None
        if "input_signature" in keywords:
            return _Relaxed({p: {0} for p in params}, "signature")  # a signature TensorFlow honours instead
        traced = traced_functions(self.c).get(node) if self.c.settings.traces is not None else None
        if traced is None:
            return _Relaxed({p: {0} for p in params}, "batch")  # no traces: assume the batch dimension varies
        # recorded traces: TensorFlow only generalises the dimensions that differed between them
        relaxed = _Relaxed({}, "traces")
        for param in params:
            found = traced_dims(traced, param)
            if found is None:
                relaxed.dims[param] = {0}  # not recorded: the batch-dimension assumption, as without traces
                relaxed.sizes[param] = None
                continue
            dims, sizes = found
            if dims is None or dims:
                relaxed.dims[param] = None if dims is None else set(dims)
                relaxed.sizes[param] = sizes
        return relaxed if relaxed.dims else None

    def _dims_for(self, name: str) -> tuple[set[int] | None, _Relaxed] | None:
        relaxed = self.relaxed[-1] if self.relaxed else None
        if not relaxed or name not in relaxed.dims:
            return None
        if self.c.current_function is None or self.c.current_function not in self.c.analysis.tf_functions:
            return None
        return relaxed.dims[name], relaxed

    def _why(self, relaxed: _Relaxed, name: str, dims: list[int] | None = None) -> str:
        """Why dimension(s) ``dims`` of ``name`` are None (``dims`` None: its None dimensions)."""
        if relaxed.source == "signature":
            return "the input_signature leaves that dimension `None`"
        sizes = relaxed.sizes.get(name)
        if relaxed.source == "batch" or sizes is None:
            return "`reduce_retracing` makes the batch dimension `None` from the second shape on"
        varying = relaxed.dims[name]
        if varying is None:
            return f"`reduce_retracing` makes the shape of `{name}` unknown: its rank varies in the recorded traces"
        shown = sorted(varying if dims is None else set(dims) & varying)

        def seen(dim: int) -> str:
            return ", ".join("?" if size is None else str(size) for size in sizes.get(dim, []))

        if len(shown) == 1:
            return (
                f"`reduce_retracing` makes dim {shown[0]} of `{name}` `None`: "
                f"it varies in the recorded traces ({seen(shown[0])})"
            )
        listed = "; ".join(f"dim {dim}: {seen(dim)}" for dim in shown)
        return (
            f"`reduce_retracing` makes dims {', '.join(map(str, shown))} of `{name}` `None`: "
            f"they vary in the recorded traces ({listed})"
        )

    def _read_subject(self, node: cst.Subscript) -> tuple:
        """The problem RTF008 names the same read with: its text and its ordinal in the function."""
        read = static_read(node)
        function = self.c.current_function
        if read is None or function is None:
            return ()
        return self._counted_read(function, f"{read[0]}.shape[{short_code(read[1])}]")

    def _counted_read(self, function: cst.FunctionDef, text: str) -> tuple:
        """``(("static-shape-read", function, "text#n"),)``: the ``n``-th read of ``text`` in ``function``."""
        key = (id(function), text)
        self.read_counts[key] = self.read_counts.get(key, 0) + 1
        return (("static-shape-read", self.c.qualname(function), f"{text}#{self.read_counts[key]}"),)

    def visit_Subscript(self, node: cst.Subscript) -> None:
        subjects = self._read_subject(node)
        # x.shape[k] / x.get_shape()[k]
        base = node.value
        holder = None
        if isinstance(base, cst.Attribute) and base.attr.value == "shape" and isinstance(base.value, cst.Name):
            holder = base.value.value
        elif (
            isinstance(base, cst.Call)
            and isinstance(base.func, cst.Attribute)
            and base.func.attr.value == "get_shape"
            and isinstance(base.func.value, cst.Name)
        ):
            holder = base.func.value.value
        if holder is None or len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
            return
        index = node.slice[0].slice.value
        negative = (
            isinstance(index, cst.UnaryOperation)
            and isinstance(index.operator, cst.Minus)
            and isinstance(index.expression, cst.Integer)
        )
        if not isinstance(index, cst.Integer) and not negative:
            return
        found = self._dims_for(holder)
        if found is None:
            return
        dims, relaxed = found
        if negative:
            # x.shape[-1]: only the recorded traces tell which dimension that is
            rank = _traced_rank(relaxed.sizes.get(holder)) if relaxed.source == "traces" and dims is not None else None
            if rank is None:
                return
            k = rank - index.expression.evaluated_value
            if k < 0:
                return
        else:
            k = index.evaluated_value
        if dims is not None and k not in dims:
            return
        if self._none_guarded(node):
            return
        self._rtf106(node, f"`{short_code(node)}` is `None` here ({self._why(relaxed, holder, [k])}); "
                           f"use `tf.shape({holder})[{short_code(index)}]`", subjects)

    def _rtf106(self, node: cst.CSTNode, message: str, subjects: tuple = ()) -> None:
        self.c.report(node, message, code="RTF106", subjects=subjects)

    def visit_Comparison(self, node: cst.Comparison) -> None:
        # `x.shape[0] is None` guards: remember them so the read inside is not reported
        for target in node.comparisons:
            if isinstance(target.operator, (cst.Is, cst.IsNot)) and isinstance(target.comparator, cst.Name) \
                    and target.comparator.value == "None":
                self._guards().add(id(node.left))

    def _guards(self) -> set[int]:
        guards = getattr(self, "_guard_ids", None)
        if guards is None:
            guards = self._guard_ids = set()
        return guards

    def _none_guarded(self, node: cst.CSTNode) -> bool:
        return id(node) in self._guards()

    def visit_Attribute(self, node: cst.Attribute) -> None:
        # x.shape.as_list()
        if node.attr.value != "as_list":
            return
        inner = node.value
        if isinstance(inner, cst.Attribute) and inner.attr.value == "shape" and isinstance(inner.value, cst.Name):
            function = self.c.current_function
            text = f"{inner.value.value}.shape.as_list()"
            subjects = () if function is None else self._counted_read(function, text)
            found = self._dims_for(inner.value.value)
            if found is None:
                return
            dims, relaxed = found
            self._rtf106(node, f"`{short_code(inner)}.as_list()` holds `None` here "
                               f"({self._why(relaxed, inner.value.value)}); use `tf.shape({inner.value.value})`", subjects)

    def leave_Call(self, original_node: cst.Call) -> None:
        # len(x) where a Python int is needed: range(len(x)), np.zeros(len(x))
        needed_by = self.int_contexts.pop(id(original_node), None)
        if needed_by is None:
            return
        if not (self.c.scope.is_builtin(original_node.func, "len") and len(original_node.args) == 1):
            return
        arg = original_node.args[0].value
        if not isinstance(arg, cst.Name):
            return
        found = self._dims_for(arg.value)
        if found is None:
            return
        dims, relaxed = found
        if dims is not None and 0 not in dims:
            return
        size = f"tf.shape({arg.value})[0]"
        if needed_by == "range":
            effect = "the loop becomes a graph loop (a body that indexes or appends to Python lists breaks)"
            remedy = f"loop over `tf.range({size})` with a `tf.TensorArray`"
        else:
            effect = f"`{needed_by.replace('numpy.', 'np.')}` of it fails with a TypeError"
            remedy = f"use the TF op with `{size}`"
        self._rtf106(original_node, f"`{short_code(original_node)}` is a tensor, not a Python int, once dimension 0 "
                                    f"is `None` ({self._why(relaxed, arg.value, [0])}): {effect}; {remedy}, or keep the "
                                    "dimension static")


class _Relaxed:
    """The None-able dimensions of one tf.function's parameters, and where they come from."""

    def __init__(self, dims: dict[str, set[int] | None], source: str) -> None:
        self.dims = dims  # param -> dims that may be None (None: every dim)
        self.source = source  # "signature" | "batch" (no traces: dim 0 assumed) | "traces"
        self.sizes: dict[str, dict | None] = {}  # traces: param -> {dim: sizes seen}; None: not recorded


def _traced_rank(sizes: dict | None) -> int | None:
    return len(sizes) if sizes else None


def _len_calls(node: cst.BaseExpression) -> list[cst.Call]:
    """``len(...)`` calls that are ``node`` or an arithmetic operand of it (``len(x) - 1``)."""
    if isinstance(node, cst.Call):
        return [node]
    if isinstance(node, cst.BinaryOperation):
        return _len_calls(node.left) + _len_calls(node.right)
    if isinstance(node, cst.UnaryOperation):
        return _len_calls(node.expression)
    return []


def _spec_none_dims(spec: cst.BaseExpression) -> set[int] | None:
    """Dims that are None in ``tf.TensorSpec(shape=[None, 50], ...)``; None = unknown rank; set() = none."""
    if not isinstance(spec, cst.Call):
        return set()
    name = dotted_name(spec.func) or ""
    if not name.endswith("Spec"):
        return set()
    shape = None
    for index, arg in enumerate(spec.args):
        if arg.keyword is not None and arg.keyword.value == "shape":
            shape = arg.value
        elif arg.keyword is None and index == 0:
            shape = arg.value
    if shape is None or (isinstance(shape, cst.Name) and shape.value == "None"):
        return None
    if not isinstance(shape, (cst.List, cst.Tuple)):
        return set()
    return {
        i for i, element in enumerate(shape.elements)
        if isinstance(element.value, cst.Name) and element.value.value == "None"
    }


def _reassigned(node: cst.FunctionDef) -> set[str]:
    params = {p.name.value for p in named_params(node.params, keyword_only=False)}
    out: set[str] = set()

    class _V(cst.CSTVisitor):
        def visit_AssignTarget(self, n: cst.AssignTarget) -> None:
            if isinstance(n.target, cst.Name):
                out.add(n.target.value)

        def visit_AugAssign(self, n: cst.AugAssign) -> None:
            if isinstance(n.target, cst.Name):
                out.add(n.target.value)

        def visit_FunctionDef(self, n: cst.FunctionDef) -> bool:
            return n is node

    node.visit(_V())
    return out & params
