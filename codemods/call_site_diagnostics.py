"""Diagnostics about how tf.functions are created and called: RTF101, RTF103, RTF104, RTF105, RTF107.

All static: they read the module, never edit.  Each code's rule (name, tier,
summary, the page ``retrace-fix explain CODE`` prints) is in :data:`RULES`.
"""

from __future__ import annotations

import libcst as cst

from retrace_fix.codemods._call_site_facts import may_compare_arguments
from retrace_fix.codemods._callsites import CallSite, ModuleCalls, TfCallable
from retrace_fix.codemods._creations import creation_subject, find_creations, repeated_evidence
from retrace_fix.codemods._fresh_captures import fresh_captures
from retrace_fix.codemods._input_signatures import signature_tensor_params
from retrace_fix.codemods._report_only import TfFunctionDiagnostics, doc_page, report_only_rules
from retrace_fix.codemods._stated_types import UNKNOWN, VARYING, dtype_of, shape_of
from retrace_fix.codemods._tree_facts import tree_facts
from retrace_fix.node_text import short_code

RTF101_DOC = doc_page(
    what="""
Reports a tf.function that is created over and over: a ``@tf.function``
``def``, ``tf.function(f)`` or ``tf.function(...)(f)`` inside a ``for``/``while``
loop or comprehension, or inside a function that this module calls in a loop.  Creation guarded by a cache check (``if key not in
cache:``, ``if self._fn is None:``), in ``__init__``/``build``, or in a
``functools.cache``d function is not reported, nor is a function that closes
over an object new at every creation (a model built in the same loop iteration
or call, or passed by every looped call as a new object, such as one model per
cross-validation fold): one trace per model is inherent.  Never edits.

One problem, one finding: a creation inside a function is RTF006's
(hoist-tf-function): it moves it out where it can prove the program stays the
same, or says what keeps it in place, and this finding is then dropped as its
duplicate.  Creations in module-level loops stay this code's.
""",
    why="""
Every ``tf.function(...)`` call makes a new Function object with an empty
trace cache.  Re-creating it per iteration or per call means every call traces
(and optimises) the graph again - the "(1) creating @tf.function repeatedly in
a loop" of TensorFlow's retracing warning.  The cache lives on the Function
object, so it only helps when the same object is called again.
""",
    example="""
Before::

    for batch in batches:
        @tf.function
        def step(x):                      # RTF101: a new function per batch
            return model(x, training=False)
        step(batch)

By hand::

    @tf.function
    def step(x):
        return model(x, training=False)

    for batch in batches:
        step(batch)
""",
    safety="""
diagnostic only.  Moving the definition out changes what the function closes
over (a loop variable captured by the inner function is frozen at trace time
once it is shared): pass such values as arguments when you hoist it.
""",
)

RTF103_DOC = doc_page(
    what="""
Reports a tf.function parameter that this module passes as a Python ``int``,
``float`` or ``str`` with varying values: different literals at different call
sites (``train(x, 10)``, ``train(x, 20)``), a loop variable
(``for epoch in range(n): step(x, epoch)``) or a counter (``step += 1``).
Booleans are not reported (two graphs at most, usually intended).  Parameters
with a ``tf.TensorSpec`` slot in ``input_signature`` are skipped (Python
numbers are converted to tensors there), and so are calls made inside another
tf.function's body: those trace only while that caller traces, never at
steady state (this holds for RTF104, RTF105 and RTF107 too).  Never edits.

One problem, one finding: when RTF001 also runs and fixes or explains the same
parameter as a step count (its loop analysis says whether ``tf.range`` is safe,
where "pass a tensor" alone could be wrong), RTF003 reports it from recorded
traces (``--traces``), RTF005 converts it at the recorded call sites, or RTF007
turns the list-building loop it bounds into a graph loop, this finding is
dropped as their duplicate; so it is when their finding is suppressed
(``# retrace-fix: ignore[RTF001]`` on the loop).
``--select RTF103`` (or ``--ignore RTF001``) always reports it, and
``ignore[RTF103]`` never hides RTF001's or RTF003's finding.
""",
    why="""
tf.function keys its traces on Python values, not just types: every distinct
``int``/``float``/``str`` argument builds a new graph ("(3) passing Python
objects instead of tensors").  An epoch counter or a loop variable makes that
one graph per iteration.
""",
    example="""
Before::

    @tf.function
    def train(x, num_steps):
        for _ in tf.range(num_steps):
            ...

    for n in [10, 20, 30]:
        train(x, n)                        # RTF103: 3 traces

By hand::

    @tf.function
    def train(x, num_steps):
        for _ in tf.range(num_steps):
            ...

    for n in [10, 20, 30]:
        train(x, tf.constant(n))           # 1 trace

(or give ``num_steps`` a slot in the signature:
``@tf.function(input_signature=[..., tf.TensorSpec([], tf.int32)])``)
""",
    safety="""
diagnostic only.  Inside the function a tensor is not a Python number:
``range(n)``, ``if n > 3:``, list indexing and string formatting behave
differently.  RTF001 converts step counts automatically when the body is proven
safe; the input-signature codemod (RTF003) does it from recorded traces.
""",
)

RTF104_DOC = doc_page(
    what="""
Reports a tf.function that receives a new object per call: an instance of a
class of this module that is compared by identity (no ``__eq__``/``__hash__``,
``__tf_tracing_type__``, not a dataclass or NamedTuple), or a Keras model,
layer or optimizer constructed in the loop that makes the call (or directly in
the call).  Also reports two or more different instances of such a local class
passed to the same parameter.  Never edits.
""",
    why="""
tf.function cannot look inside arbitrary Python objects: it keys them by
identity (a weak reference, compared with the object's own ``__eq__``).  A new
instance is a new key, so every new object traces a new graph, even when its
contents are equal.  Mutating an attribute of the *same* object does not
retrace, and the stale value is baked in.
""",
    example="""
Before::

    class Config:
        def __init__(self, scale):
            self.scale = scale

    @tf.function
    def apply(x, cfg):
        return x * cfg.scale

    apply(x, Config(2.0))
    apply(x, Config(2.0))                  # RTF104: traces again

By hand::

    @tf.function
    def apply(x, scale):
        return x * scale

    apply(x, tf.constant(2.0))

(or give ``Config`` a value-based ``__eq__``/``__hash__``, or ``__tf_tracing_type__``)
""",
    safety="""
diagnostic only: the fix changes the function's signature or the class.
""",
)

RTF105_DOC = doc_page(
    what="""
Reports a tf.function parameter that receives tensors (or numpy arrays) of
different dtypes at its call sites in this module: ``tf.constant(1)`` (int32)
and ``tf.constant(1.0)`` (float32), ``dtype=tf.float32`` in one branch and
``tf.float64`` in another, ``np.random.rand`` (float64) next to a float32
tensor.  The dtype is read from ``tf.constant``/``tf.convert_to_tensor``/
``tf.cast``/``tf.zeros``/``tf.random.*``/``np.*`` calls and the assignments
that reach the call.  Never edits.

One problem, one finding: with ``--traces``, dtype drift the traces recorded for
the same parameter is reported once, by the input-signature codemod (RTF003): the
recorded dtypes are what every caller really passed, those in other modules
included; RTF005 casts it at the recorded call sites where that keeps the results.
This finding is then dropped as their duplicate, also when RTF003's
finding is suppressed (``# retrace-fix: ignore[RTF003]`` on the decorator line).
``--select RTF105`` (or ``--ignore RTF003``) always reports it, and
``ignore[RTF105]`` never hides RTF003's finding.
""",
    why="""
The dtype is part of a tensor's trace type: ``TensorSpec([], tf.int32)`` and
``TensorSpec([], tf.float32)`` are different keys, and no signature or
``reduce_retracing`` can merge them.  Each dtype builds its own graph.
""",
    example="""
Before::

    @tf.function
    def mixed_type_op(x, y):
        return x + y

    mixed_type_op(tf.constant(1, dtype=tf.int32), tf.constant(2.0))
    mixed_type_op(tf.constant(1.0), tf.constant(2.0))    # RTF105: retraces

By hand: cast once, at the call site::

    @tf.function
    def mixed_type_op(x, y):
        return x + y

    mixed_type_op(tf.cast(tf.constant(1, dtype=tf.int32), tf.float32), tf.constant(2.0))
    mixed_type_op(tf.constant(1.0), tf.constant(2.0))
""",
    safety="""
diagnostic only: choosing the dtype changes results (precision, integer
arithmetic), so the cast is left to you.
""",
)

RTF107_DOC = doc_page(
    what="""
Reports a tf.function parameter that this module passes tensors (or numpy
arrays) of varying shapes, seen statically: ``tf.constant`` of literal lists of
different lengths, ``tf.random.normal([16, 50])`` next to ``[32, 50]``, a
shape built from a loop variable (``for batch_size in [10, 20, 30]:
tf.random.normal((batch_size, 5))``), ``np.random.randint(..., size=n)``, and
the assignments that reach the call.  It names the shapes and the generalised
``tf.TensorSpec`` (``None`` where the dimension varies).  Functions that already
have an ``input_signature`` or ``reduce_retracing=True`` are skipped.  Never
edits.
""",
    why="""
A tensor's shape is part of its trace type: without a signature, every new
shape builds a new graph.  ``input_signature=[tf.TensorSpec([None, 5],
tf.float32)]`` (or ``reduce_retracing=True``, which relaxes the shape from the
second one on) lets one graph serve every size.
""",
    example="""
Before::

    @tf.function
    def train_step(x):
        return tf.reduce_sum(x)

    for batch_size in [10, 20, 10, 30]:
        train_step(tf.random.normal((batch_size, 5)))    # RTF107: 3 traces

By hand (or record traces and let RTF003/RTF004 add it)::

    @tf.function(input_signature=[tf.TensorSpec([None, 5], tf.float32)])
    def train_step(x):
        return tf.reduce_sum(x)

    for batch_size in [10, 20, 10, 30]:
        train_step(tf.random.normal((batch_size, 5)))    # 1 trace
""",
    safety="""
diagnostic only: a signature rejects shapes and dtypes it does not cover, and a
``None`` dimension breaks static shape reads (``x.shape[0]``, see RTF106).
``retrace-fix record`` + ``--traces`` lets RTF003 (input_signature) and RTF004
(reduce_retracing) make that change from what really ran.
""",
)

RULES = report_only_rules(
    "call-site-diagnostics",
    # RTF006 moves the creation out where it can prove the program stays the same, or says
    # what keeps it in place
    ("RTF101", "tf-function-per-call",
     "a tf.function created inside a loop or a repeatedly called function traces every time", RTF101_DOC, ("RTF006",)),
    # RTF001 has proved the step-count loop safe and fixes the call sites, or names the
    # line that blocks the fix, where "pass a tensor" could be wrong advice; RTF003 (with
    # --traces) saw the values every caller really passed, other modules' included; RTF005
    # converts them at the call sites the traces recorded (or says why not); RTF007 turns the
    # list-building loop over it into a graph loop
    ("RTF103", "varying-python-argument",
     "a Python int/float/str passed with varying values (loop variable, counter, literals)",
     RTF103_DOC, ("RTF001", "RTF003", "RTF005", "RTF007")),
    ("RTF104", "object-argument-identity",
     "a new custom object or Keras model/optimizer passed per call retraces every time", RTF104_DOC),
    # RTF003 (with --traces) saw the dtypes every caller really passed, and either fixes
    # it with a signature or says why none is possible; RTF005 casts at the call sites
    ("RTF105", "dtype-drift",
     "the same parameter receives tensors of different dtypes", RTF105_DOC, ("RTF003", "RTF005")),
    ("RTF107", "shape-drift", "the same parameter receives tensors of varying shapes (static evidence)", RTF107_DOC),
)


class CallSiteDiagnosticsCommand(TfFunctionDiagnostics):
    RULES = RULES
    ORDER = 110
    NAME = "call-site-diagnostics"
    SUMMARY = "tf.functions created per call, varying Python arguments, new objects per call, dtype and shape drift"

    @classmethod
    def might_apply_to_tree(cls, tree, outline) -> bool:
        """A def that can be a tf.function, and either a creation that may run over and over
        (RTF101) or a call that passes an argument to a name a tf.function of this module is
        called by (RTF103, RTF104, RTF105, RTF107 read only such call sites)."""
        if not outline.references_tf_function:
            return False
        facts = tree_facts(tree, outline)
        return facts.has_candidates and (
            (facts.calls_a_tf_function_with_arguments() and may_compare_arguments(facts))
            or facts.repeated_creations(module_loops=True, method_wraps=False)
        )

    def diagnose_module(self, tree: cst.Module) -> None:
        self.calls = ModuleCalls.get(self.analysis, self.context.scratch)
        self._per_call_functions()
        graph_code = set(self.analysis.tf_functions)
        for callee in self.calls.callables.values():
            # a call made inside another tf.function's body traces only while that caller traces
            # (nested traces): nothing to pay at steady state, nothing to report
            sites = [s for s in self.calls.calls_of(callee) if not set(s.functions) & graph_code]
            if not sites:
                continue
            tensor_slots = signature_tensor_params(callee.site, callee.node, self.scope)
            for param in callee.all_params:
                exprs = [(s, s.args[param]) for s in sites if param in s.args]
                if not exprs:
                    continue
                if param not in tensor_slots:
                    self._varying_python(callee, param, exprs)
                self._object_identity(callee, param, exprs)
                if param not in tensor_slots:
                    self._dtype_drift(callee, param, exprs)
                if not _generalises_shapes(callee.site):
                    self._shape_drift(callee, param, exprs)

    # ------------------------------------------------------------ helpers

    def _functions_for(self, site: CallSite) -> tuple:
        return (*site.functions, site.callee.node)

    def _line(self, node: cst.CSTNode) -> int:
        return self.analysis.line_of(node)

    # ------------------------------------------------------------ RTF101

    def _per_call_functions(self) -> None:
        for creation in find_creations(self.analysis, self.scope, self.context.scratch):
            if any(f in self.analysis.tf_functions for f in creation.functions):
                continue  # created only while another tf.function traces: once per trace of that one (as RTF006)
            evidence = repeated_evidence(creation, self.calls, self.analysis.file_line_of)
            if evidence is None or fresh_captures(creation, self.calls, self.scope, self.analysis.module):
                continue  # (it closes over an object new at every creation: one trace per object is inherent)
            if creation.loops:
                advice = "each one traces from scratch; create it once, before the loop"
            else:
                advice = "each call traces from scratch; create the tf.function once (module level or `__init__`) or cache it"
            self.diagnose(
                creation.node,
                "RTF101",
                f"{creation.shown} creates a new tf.function {evidence}: {advice}",
                creation.suppression_functions,
                (creation_subject(creation, self.qualname),),
            )

    # ------------------------------------------------------------ RTF103

    def _varying_python(self, callee: TfCallable, param: str, exprs: list[tuple[CallSite, cst.BaseExpression]]) -> None:
        values: list = []
        types: set[str] = set()
        first_site: tuple[CallSite, cst.BaseExpression] | None = None
        loop_evidence = None
        for site, expr in exprs:
            for evidence in self.calls.scalar_evidence(site, expr):
                if evidence.type is None or evidence.type == "bool":
                    continue
                if first_site is None:
                    first_site = (site, expr)
                types.add(evidence.type)
                if evidence.kind == "literal":
                    if evidence.value not in values:
                        values.append(evidence.value)
                elif loop_evidence is None:
                    loop_evidence = (site, expr, evidence)
        kind = "/".join(sorted(types)) or "scalar"
        name = callee.name
        subjects = (self.subject("python-value", callee.node, param),)
        if loop_evidence is not None:
            site, expr, evidence = loop_evidence
            what = "loop variable" if evidence.kind == "loop-variable" else "counter"
            kind = evidence.type or kind
            self.diagnose(
                expr,
                "RTF103",
                f"`{short_code(expr)}` is a Python {kind} {what} passed as `{param}` to `{name}`: every value "
                f"traces a new graph; pass a tensor (`tf.constant({short_code(expr)})`) or give `{param}` a "
                "`tf.TensorSpec` slot in input_signature",
                self._functions_for(site),
                subjects,
            )
        elif len(values) >= 2 and first_site is not None:
            site, expr = first_site
            shown = ", ".join(repr(v) for v in values[:5]) + (", ..." if len(values) > 5 else "")
            self.diagnose(
                expr,
                "RTF103",
                f"`{name}` receives the Python {kind} `{param}` = {shown} at its call sites: each value "
                f"traces a new graph; pass a tensor (`tf.constant(...)`) or give `{param}` a `tf.TensorSpec` "
                "slot in input_signature",
                self._functions_for(site),
                subjects,
            )

    # ------------------------------------------------------------ RTF104

    def _object_identity(self, callee: TfCallable, param: str, exprs) -> None:
        name = callee.name
        distinct: dict[int, tuple] = {}
        for site, expr in exprs:
            for node, cls_name, per_iteration in self.calls.creation_sites(site, expr, self.scope):
                if per_iteration:
                    self.diagnose(
                        expr,
                        "RTF104",
                        f"`{name}` gets a new `{cls_name}` object as `{param}` on every iteration (created at "
                        f"line {self.analysis.file_line_of(node)}): tf.function tells objects apart by identity, so each one "
                        "traces a new graph; create it once, before the loop, or pass its tensors",
                        self._functions_for(site),
                    )
                    return
                if cls_name in self.calls.classes:
                    distinct.setdefault(id(node), (node, cls_name, site, expr))
        if len(distinct) >= 2:
            entries = sorted(distinct.values(), key=lambda e: self._line(e[0]))
            node, cls_name, site, expr = entries[1]
            lines = ", ".join(str(self.analysis.file_line_of(e[0])) for e in entries[:5])
            self.diagnose(
                expr,
                "RTF104",
                f"`{name}` receives {len(entries)} different `{cls_name}` objects as `{param}` (created at lines "
                f"{lines}): `{cls_name}` is compared by identity, so each instance traces a new graph; pass its "
                "tensors, or give the class `__tf_tracing_type__` (or value-based `__eq__` and `__hash__`)",
                self._functions_for(site),
            )

    # ------------------------------------------------------------ RTF105

    def _dtype_drift(self, callee: TfCallable, param: str, exprs) -> None:
        seen: list[str] = []
        where: dict[str, tuple[CallSite, cst.BaseExpression]] = {}
        in_loop = False
        for site, expr in exprs:
            for dtype in self._dtypes_at(site, expr):
                if dtype not in seen:
                    seen.append(dtype)
                    where[dtype] = (site, expr)
            in_loop = in_loop or bool(site.loops)
        if len(seen) < 2 or (len(exprs) < 2 and not in_loop):
            return
        site, expr = where[seen[1]]
        target = next((d for d in seen if d.startswith("float")), seen[0])
        self.diagnose(
            expr,
            "RTF105",
            f"`{callee.name}` receives `{param}` as {_and_list(seen)} tensors: each dtype traces a new graph; "
            f"cast at the call site (`tf.cast(..., tf.{target})`)",
            self._functions_for(site),
            (self.subject("dtype", callee.node, param),),
        )

    # ------------------------------------------------------------ RTF107

    def _shape_drift(self, callee: TfCallable, param: str, exprs) -> None:
        shapes: list[tuple] = []
        varying_site = None
        dtypes: list[str] = []
        for site, expr in exprs:
            for shape in self._shapes_at(site, expr):
                if shape is None:
                    continue
                if any(d is VARYING for d in shape) and varying_site is None:
                    varying_site = (site, expr)
                if shape not in shapes:
                    shapes.append(shape)
                    if varying_site is None and len(shapes) >= 2 and _differ(shapes):
                        varying_site = (site, expr)
            for dtype in self._dtypes_at(site, expr):
                if dtype not in dtypes:
                    dtypes.append(dtype)
        if varying_site is None:
            return
        site, expr = varying_site
        shown = ", ".join(_shape_text(s) for s in shapes[:4]) + (", ..." if len(shapes) > 4 else "")
        if any(d is VARYING for s in shapes for d in s):
            shown += " (`n` changes from call to call)"
        spec = _generalise(shapes)
        dtype = f"tf.{dtypes[0]}" if len(dtypes) == 1 else "..."
        what = "shapes" if len(shapes) > 1 else "shape"
        self.diagnose(
            expr,
            "RTF107",
            f"`{callee.name}` receives `{param}` with {what} {shown}: each new shape traces a new graph; "
            f"give it `tf.TensorSpec({spec}, {dtype})` in input_signature or add `reduce_retracing=True` "
            "(with `--traces`, RTF003/RTF004 do it for you)",
            self._functions_for(site),
        )

    def _shapes_at(self, site: CallSite, expr: cst.BaseExpression) -> list:
        direct = shape_of(expr, self.scope)
        if direct is not None:
            resolved = self._resolve_dims(site, direct)
            return [resolved] if resolved is not None else []
        if not isinstance(expr, cst.Name):
            return []
        out = []
        for binding in self.calls.reaching(site, expr.value):
            if binding.kind == "assign":
                shape = shape_of(binding.value, self.scope)
                resolved = self._resolve_dims(site, shape) if shape is not None else None
                if resolved is not None:
                    out.append(resolved)
        return out

    def _resolve_dims(self, site: CallSite, shape: tuple) -> tuple | None:
        """Symbolic dims (names) become VARYING (loop variable/counter), a literal, or UNKNOWN.

        A whole shape given as one name (``tf.zeros(shape)``) is only a 1-D shape
        when that name is known to be an int; otherwise the shape is unknown (None).
        """
        if len(shape) == 1 and isinstance(shape[0], cst.Name):
            evidence = self.calls.scalar_evidence(site, shape[0])
            if not evidence or any(e.type != "int" for e in evidence):
                return None
        resolved = []
        for dim in shape:
            if isinstance(dim, cst.Name):
                evidence = self.calls.scalar_evidence(site, dim)
                literals = {e.value for e in evidence if e.kind == "literal"}
                if any(e.kind != "literal" for e in evidence) or len(literals) > 1:
                    resolved.append(VARYING)
                elif len(literals) == 1:
                    resolved.append(literals.pop())
                else:
                    resolved.append(UNKNOWN)
            else:
                resolved.append(dim)
        return tuple(resolved)

    def _dtypes_at(self, site: CallSite, expr: cst.BaseExpression) -> list[str]:
        direct = dtype_of(expr, self.scope)
        if direct is not None:
            return [direct]
        if not isinstance(expr, cst.Name):
            return []
        out: list[str] = []
        for binding in self.calls.reaching(site, expr.value):
            if binding.kind == "assign":
                dtype = dtype_of(binding.value, self.scope)
                if dtype is not None and dtype not in out:
                    out.append(dtype)
        return out


def _and_list(items: list[str]) -> str:
    if len(items) <= 2:
        return " and ".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


# --------------------------------------------------------------------------- shapes


def _differ(shapes: list[tuple]) -> bool:
    known = [s for s in shapes if all(d not in (UNKNOWN, VARYING) for d in s)]
    if len({len(s) for s in shapes}) > 1:
        return True
    return len(set(known)) > 1


def _generalise(shapes: list[tuple]) -> str:
    ranks = {len(s) for s in shapes}
    if len(ranks) != 1:
        return "shape=None"
    dims = []
    for column in zip(*shapes):
        values = set(column)
        if len(values) == 1 and isinstance(column[0], int):
            dims.append(str(column[0]))
        else:
            dims.append("None")
    return "[" + ", ".join(dims) + "]"


def _shape_text(shape: tuple) -> str:
    return "[" + ", ".join("n" if d is VARYING else str(d) for d in shape) + "]"


def _generalises_shapes(site) -> bool:
    """The tf.function already has an input_signature or reduce_retracing/experimental_relax_shapes=True."""
    if site is None or site.call is None:
        return False
    for arg in site.call.args:
        if arg.keyword is None:
            continue
        if arg.keyword.value == "input_signature":
            return True
        if arg.keyword.value in ("reduce_retracing", "experimental_relax_shapes"):
            return isinstance(arg.value, cst.Name) and arg.value.value == "True"
    return False
