"""The recorded traces of each tf.function of a tree, matched to its ``def``.

A recorded function is found again by its project-relative file and qualified
name, falling back to the first line (``co_firstlineno`` is the first
decorator's line); one whose parameters differ from the recorded ones (the code
changed since recording) is left out.  :func:`param_infos` reads a ``def``'s
parameters and literal defaults; :func:`traced_dims` says which dimensions of a
tensor parameter varied between the traces; :func:`per_tree` keeps what is
worked out once per tree (these matches, the signature plans) in ``context.scratch``.

Never imports TensorFlow.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any, Callable, TypeVar

import libcst as cst

from retrace_fix.analysis import qualnames
from retrace_fix.node_text import code_of
from retrace_fix.tfnames import named_params
from retrace_fix.traces.generalize import NO_LITERAL, TENSOR_KINDS, ParamInfo, summarize
from retrace_fix.traces.model import FunctionTraces

if TYPE_CHECKING:  # pragma: no cover
    from retrace_fix.codemods._base import RetraceCodemod


_TRACED_KEY = "retrace_fix.traced_functions"
_NOTED_KEY = "retrace_fix.traced_functions.noted"
T = TypeVar("T")


def literal_default(node: cst.BaseExpression | None) -> Any:
    if node is None:
        return NO_LITERAL
    try:
        value = ast.literal_eval(code_of(node).strip())
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return NO_LITERAL
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return NO_LITERAL


def param_infos(node: cst.FunctionDef) -> list[ParamInfo]:
    params = node.params
    infos: list[ParamInfo] = []
    for param in named_params(params, keyword_only=False):
        infos.append(ParamInfo(param.name.value, "positional", param.default is not None, literal_default(param.default)))
    if isinstance(params.star_arg, cst.Param):
        infos.append(ParamInfo(params.star_arg.name.value, "var_positional"))
    for param in params.kwonly_params:
        infos.append(ParamInfo(param.name.value, "keyword_only", param.default is not None, literal_default(param.default)))
    if isinstance(params.star_kwarg, cst.Param):
        infos.append(ParamInfo(params.star_kwarg.name.value, "var_keyword"))
    return infos


def match_traces(codemod: "RetraceCodemod", node: cst.FunctionDef, qualname: str, unique: bool):
    """The recorded FunctionTraces of ``node``, or None."""
    traces = codemod.settings.traces
    relpath = codemod.settings.relpath
    if traces is None or not relpath:
        return None
    analysis = codemod.analysis
    first_line = analysis.file_line_of(node.decorators[0] if node.decorators else node)
    if unique:
        found = traces.find(relpath, qualname, first_line)
    else:
        found = [f for f in traces.find(relpath, qualname=qualname) if f.firstlineno == first_line]
    if not found:
        found = [f for f in traces.find(relpath, line=first_line) if f.name == node.name.value]
    return found[0] if len(found) == 1 else None


def traced_functions(codemod: "RetraceCodemod") -> dict[cst.FunctionDef, FunctionTraces]:
    """The recorded traces of every tf.function of this tree (cached per tree).

    Functions whose parameters differ from the recorded ones (the code changed
    since recording) are left out.  RTF003, RTF004 and RTF106 share this lookup.
    """
    return per_tree(codemod, _TRACED_KEY, lambda: _match_all(codemod))


def per_tree(codemod: "RetraceCodemod", key: str, build: Callable[[], T]) -> T:
    """``build()``, made once per tree: kept in ``context.scratch[key]`` with the module it was made for."""
    module = codemod.analysis.module
    cache = codemod.context.scratch.get(key)
    if cache is not None and cache[0] is module:
        return cache[1]
    result = build()
    codemod.context.scratch[key] = (module, result)
    return result


def _match_all(codemod: "RetraceCodemod") -> dict[cst.FunctionDef, FunctionTraces]:
    analysis = codemod.analysis
    result: dict[cst.FunctionDef, FunctionTraces] = {}
    if codemod.settings.traces is not None and analysis.tf_functions:
        names = qualnames(analysis.module)
        counts: dict[str, int] = {}
        for name in names.values():
            counts[name] = counts.get(name, 0) + 1
        for node in analysis.tf_functions:
            qualname = names.get(node)
            if qualname is None:
                continue
            function = match_traces(codemod, node, qualname, counts[qualname] == 1)
            if function is None:
                continue
            if function.params and function.params != [p.name for p in param_infos(node)]:
                continue  # the code changed since recording
            result[node] = function
    return result


def note_matched(scratch: dict, function: FunctionTraces) -> None:
    """Count a record that a codemod read for something that is no tf.function ``def`` (RTF006: the
    traces of a lambda or ``functools.partial`` wrapped per call) as matched in this file."""
    scratch.setdefault(_NOTED_KEY, set()).add(function.key)


def matched_keys(scratch: dict) -> list | None:
    """The keys of the recorded functions matched in the tree (None: nothing looked them up)."""
    cache = scratch.get(_TRACED_KEY)
    noted = scratch.get(_NOTED_KEY, set())
    if cache is None and not noted:
        return None
    keys = set(noted)
    if cache is not None:
        keys |= {function.key for function in cache[1].values()}
    return sorted(keys)


def traced_dims(function: FunctionTraces, param: str) -> tuple[frozenset | None, dict] | None:
    """The dimensions of tensor parameter ``param`` that ``reduce_retracing`` turns to ``None``.

    Those are the dimensions whose static size differed between the recorded
    traces (a size recorded as ``None`` counts as a size of its own): TensorFlow
    generalises each later trace to the most specific shape common with the
    earlier ones, so a dimension that never varied keeps its size.  This is the
    same notion of "varies" RTF004 checks static-shape reads against.

    Returns ``(dims, sizes)``: ``dims`` None means every dimension (the rank
    varied or was unknown), ``sizes`` maps a dimension to the sizes seen, in
    first-seen order.  A parameter that was never a tensor gets
    ``(frozenset(), {})``; None when no trace records ``param`` at all.
    """
    descs = [trace.args[param] for trace in function.traces if param in trace.args]
    if not descs:
        return None
    tensors = [desc for desc in descs if desc.get("kind") in TENSOR_KINDS]
    if not tensors:
        return frozenset(), {}  # a Python value, an object, a container, a variable: no shape to relax
    if len({desc.get("kind") for desc in tensors}) > 1:
        return None, {}  # tensor and ragged/sparse in different calls: nothing is known per dimension
    summary = summarize(tensors, param)
    return summary.varying_dims, dict(summary.dim_values)
