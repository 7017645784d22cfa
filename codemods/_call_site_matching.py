"""Finding a recorded call site of a tf.function again, and binding its arguments.

A trace file records each call site by file, line and UTF-8 byte column; this
module finds that call in the source again (:func:`find_site`), checks that it
calls the function (by a name the def or its ``tf.function(...)`` is bound to,
or an import alias of it), binds its arguments to the parameters of the
:class:`~retrace_fix.codemods._call_site_records.Callee` (:func:`bind_arguments`),
and tells whether one already passes a tensor (:func:`already_tensor`).  It also
finds the calls that were not recorded (:func:`unrecorded_calls`).

:class:`ParsedModule` is one file as the pre-pass and the worker both see it
(the same text, so a site the decision approved is the site edited).
Never imports TensorFlow.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from retrace_fix.analysis import ModuleAnalysis
from retrace_fix.codemods._call_site_records import CODE, Callee, Conversion, ParamSpec
from retrace_fix.codemods._callsites import ModuleCalls
from retrace_fix.codemods._finding_text import short
from retrace_fix.codemods._traced_functions import literal_default
from retrace_fix.linemap import source_lines
from retrace_fix.node_text import code_of
from retrace_fix.tfnames import Scope
from retrace_fix.traces.signature_candidates import FIX_SCALAR
from retrace_fix.traces.model import FunctionTraces
from retrace_fix.traces.summaries import NO_LITERAL


#: the TensorFlow calls that already hand a function a tensor of a known dtype
_CONVERTERS = {"tensorflow.constant", "tensorflow.cast", "tensorflow.convert_to_tensor"}


@dataclass
class ParsedModule:
    relpath: str
    text: str
    tree: cst.Module
    analysis: ModuleAnalysis
    lines: list
    #: line -> [(call, the defs around it)], built on first use (one walk for every site of the file)
    _calls: dict | None = None

    @property
    def scope(self) -> Scope:
        return Scope(self.analysis.table)

    def calls_on(self, line: int) -> list[tuple[cst.Call, tuple]]:
        """Every call starting on ``line``, with the defs around it (outermost first)."""
        if self._calls is None:
            self._calls = _index_calls(self)
        return self._calls.get(line, [])


def read_module(relpath: str, text: str) -> ParsedModule | None:
    try:
        tree = cst.parse_module(text)
    except Exception:  # noqa: BLE001 - a file LibCST cannot parse: its sites are refused
        return None
    return ParsedModule(relpath, text, tree, ModuleAnalysis.build(tree, text), source_lines(text))


def module_of(relpath: str) -> str:
    """``pkg/train.py`` -> ``pkg.train`` (``__init__`` files name their package)."""
    parts = relpath[:-3].split("/") if relpath.endswith(".py") else relpath.split("/")
    if parts and parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def callee_of(node: cst.FunctionDef, parsed: ParsedModule, source, skip_self: str | None) -> Callee:
    names = {node.name.value}
    site = parsed.analysis.tf_functions.get(node)
    if site is not None and site.form == "wrap-call" and site.call is not None:
        names.update(_assigned_names(parsed.tree, site.call))
    params: list[ParamSpec] = []
    p = node.params
    for param in p.posonly_params:
        params.append(_param_spec(param, "positional_only"))
    for param in p.params:
        params.append(_param_spec(param, "positional"))
    if isinstance(p.star_arg, cst.Param):
        params.append(ParamSpec(p.star_arg.name.value, "var_positional"))
    for param in p.kwonly_params:
        params.append(_param_spec(param, "keyword_only"))
    if isinstance(p.star_kwarg, cst.Param):
        params.append(ParamSpec(p.star_kwarg.name.value, "var_keyword"))
    if skip_self is not None and params and params[0].name == skip_self:
        params = params[1:]
    return Callee(frozenset(names), tuple(params), module_of(parsed.relpath))


def _param_spec(param: cst.Param, kind: str) -> ParamSpec:
    if param.default is None:
        return ParamSpec(param.name.value, kind)
    literal = literal_default(param.default)
    text = None if literal is NO_LITERAL else " ".join(code_of(param.default).split())
    return ParamSpec(param.name.value, kind, True, text)


def _assigned_names(tree: cst.Module, call: cst.Call) -> set[str]:
    """``g`` of ``g = tf.function(f)`` and ``step`` of ``self.step = tf.function(self._step)``."""
    found: set[str] = set()

    class _Assignments(cst.CSTVisitor):
        def visit_Assign(self, node: cst.Assign) -> None:
            if node.value is call:
                for target in node.targets:
                    if isinstance(target.target, cst.Name):
                        found.add(target.target.value)
                    elif isinstance(target.target, cst.Attribute):
                        found.add(target.target.attr.value)

    tree.visit(_Assignments())
    return found


def _index_calls(parsed: ParsedModule) -> dict[int, list[tuple[cst.Call, tuple]]]:
    found: dict[int, list[tuple[cst.Call, tuple]]] = {}
    analysis = parsed.analysis

    class _Calls(cst.CSTVisitor):
        def __init__(self) -> None:
            self.functions: list[cst.FunctionDef] = []

        def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
            self.functions.append(node)

        def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
            self.functions.pop()

        def visit_Call(self, node: cst.Call) -> None:
            found.setdefault(analysis.line_of(node), []).append((node, tuple(self.functions)))

    parsed.tree.visit(_Calls())
    return found


def _char_column(parsed: ParsedModule, line: int, column: int) -> int:
    """The character column of UTF-8 byte ``column`` of ``line`` (how Python records call positions)."""
    if not 1 <= line <= len(parsed.lines):
        return column
    data = parsed.lines[line - 1].encode("utf-8")
    return len(data[:column].decode("utf-8", errors="ignore"))


def callee_name(func: cst.BaseExpression) -> str | None:
    if isinstance(func, cst.Name):
        return func.value
    if isinstance(func, cst.Attribute):
        return func.attr.value
    return None


def _calls_callee(func: cst.BaseExpression, callee: Callee, parsed: ParsedModule) -> bool:
    name = callee_name(func)
    if name is None:
        return False
    if name in callee.names:
        return True
    if isinstance(func, cst.Name):
        target = parsed.analysis.table.aliases.get(name)
        if target:
            module, _, attr = target.rpartition(".")
            return attr in callee.names and (not module or callee.def_module.endswith(module) or module.endswith(callee.def_module))
    return False


def find_site(parsed: ParsedModule, line: int, column: int | None, callee: Callee) -> tuple[cst.Call | None, tuple, str]:
    """The call of ``callee`` recorded at ``line``/``column`` (UTF-8 bytes), the defs around it, or why none."""
    where = f"{parsed.relpath}:{line}"
    candidates = parsed.calls_on(line)
    if column is not None:
        char = _char_column(parsed, line, column)
        candidates = [(c, f) for c, f in candidates if parsed.analysis.column_of(c) == char]
    matching = [(c, f) for c, f in candidates if _calls_callee(c.func, callee, parsed)]
    if len(matching) == 1:
        return matching[0][0], matching[0][1], ""
    if len(matching) > 1:
        return None, (), f"{where}: more than one call of `{sorted(callee.names)[0]}` at the recorded position"
    if candidates:
        call = candidates[0][0]
        shown = short(call.func, 40)
        if isinstance(call.func, (cst.Name, cst.Attribute)):
            return None, (), f"{where} calls it through `{shown}` (a variable, a wrapper or library code)"
        return None, (), f"{where} calls it through `{shown}`, not by name"
    return None, (), f"{where}: no call at the recorded position (the code changed since recording? re-record)"


def bind_arguments(call: cst.Call, callee: Callee) -> tuple[dict, str]:
    """parameter -> its ``Arg`` (or ``"star"`` when it may come through ``*a``/``**k``), or a mismatch."""
    params = callee.params
    positional = [p for p in params if p.kind in ("positional_only", "positional")]
    by_name = {p.name: p for p in params if p.kind not in ("positional_only", "var_positional", "var_keyword")}
    takes_star = any(p.kind == "var_positional" for p in params)
    takes_kwargs = any(p.kind == "var_keyword" for p in params)
    bound: dict = {}
    index = 0
    star = False
    double_star = False
    for arg in call.args:
        if arg.star == "*":
            star = True
            continue
        if arg.star == "**":
            double_star = True
            continue
        if arg.keyword is None:
            if star:
                continue  # its position is unknown
            if index < len(positional):
                bound[positional[index].name] = arg
            elif not takes_star:
                return {}, "passes more positional arguments than the function takes (the code changed since recording?)"
            index += 1
        else:
            keyword = arg.keyword.value
            if keyword in by_name:
                bound[keyword] = arg
            elif not takes_kwargs:
                return {}, f"passes `{keyword}`, which the function does not take (the code changed since recording?)"
    for position, param in enumerate(positional):
        if param.name not in bound and ((star and position >= index) or double_star):
            bound[param.name] = "star"
    for param in params:
        if param.kind == "keyword_only" and param.name not in bound and double_star:
            bound[param.name] = "star"
    return bound, ""


def already_tensor(expr: cst.BaseExpression, conversion: Conversion, scope: Scope) -> bool:
    """Does ``expr`` already hand over a ``conversion.dtype`` tensor (``tf.constant(v, dtype=tf.float32)``)?"""
    if not isinstance(expr, cst.Call) or scope.qualify(expr.func) not in _CONVERTERS:
        return False
    dtype = None
    positional = [a for a in expr.args if a.keyword is None and not a.star]
    if len(positional) > 1:
        dtype = positional[1].value
    for arg in expr.args:
        if arg.keyword is not None and arg.keyword.value == "dtype":
            dtype = arg.value
    if dtype is None:
        return conversion.kind == FIX_SCALAR and scope.qualify(expr.func) == "tensorflow.constant" and (
            conversion.dtype in ("int32", "float32", "bool")
        )
    qualified = scope.qualify(dtype)
    return qualified is not None and qualified.rsplit(".", 1)[-1] == conversion.dtype


def suppressed_site(parsed: ParsedModule, call: cst.Call, functions: tuple) -> bool:
    sup = parsed.analysis.suppressions
    if not sup.by_line:
        return False
    position = parsed.analysis.position(call)
    lines = {position.start.line, position.end.line}
    for function in functions:
        lines.add(parsed.analysis.line_of(function.decorators[0] if function.decorators else function))
        lines.add(parsed.analysis.line_of(function.name))
    return any(sup.suppresses(line, CODE) for line in lines)


def unrecorded_calls(function: FunctionTraces, callee: Callee, conversions: tuple, sites: tuple, parsed: ParsedModule,
                      module, node: cst.FunctionDef) -> list[str]:
    """Calls of the function in the files read that were not recorded (and are not in a tf.function, where
    they trace only with their caller): after the fix they may pass Python values and trace on their own."""
    recorded: dict[str, set] = {}
    for site in sites:
        recorded.setdefault(site.file, set()).add(site.line)
    found: list[str] = []
    for relpath in sorted({parsed.relpath, *recorded}):
        other = module(relpath)
        if other is None:
            continue
        scope = other.scope
        tf_defs = set(other.analysis.tf_functions)
        calls: list[cst.Call] = []
        if relpath == parsed.relpath:
            module_calls = ModuleCalls.get(other.analysis, {})
            target = module_calls.callable_for(next((n for n in other.analysis.tf_functions if n is node), node))
            if target is not None:
                calls = [c.call for c in module_calls.calls_of(target) if not (set(c.functions) & tf_defs)]
        else:
            calls = calls_by_name(other, callee, tf_defs)
        for call in calls:
            line = other.analysis.line_of(call)
            if line in recorded.get(relpath, ()):
                continue
            bound, problem = bind_arguments(call, callee)
            if problem:
                continue
            args = [bound.get(c.param) for c in conversions]
            if all(isinstance(a, cst.Arg) and already_tensor(a.value, c, scope) for a, c in zip(args, conversions)):
                continue
            found.append(f"`{short(call, 40)}` at {relpath}:{line}")
    return found


def calls_by_name(parsed: ParsedModule, callee: Callee, tf_defs: set, attributes: bool = False) -> list[cst.Call]:
    """Calls of ``callee`` by a bare name (and ``obj.name(...)`` when ``attributes``), outside tf.functions."""
    calls: list[cst.Call] = []

    class _Calls(cst.CSTVisitor):
        def __init__(self) -> None:
            self.depth = 0

        def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
            if node in tf_defs:
                self.depth += 1

        def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
            if original_node in tf_defs:
                self.depth -= 1

        def visit_Call(self, node: cst.Call) -> None:
            kinds = (cst.Name, cst.Attribute) if attributes else (cst.Name,)
            if not self.depth and isinstance(node.func, kinds) and _calls_callee(node.func, callee, parsed):
                calls.append(node)

    parsed.tree.visit(_Calls())
    return calls


def module_for(relpath: str, text: str, tree: cst.Module, analysis: ModuleAnalysis) -> ParsedModule:
    """The worker's view of its file, for :func:`site_edits` (the tree the pre-pass parsed from the same text)."""
    return ParsedModule(relpath, text, tree, analysis, source_lines(text))
