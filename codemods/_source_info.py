"""What the source says about each recorded tf.function, and the signature plan made from it.

For RTF003 (input-signature), RTF004 (reduce-retracing) and RTF005
(call-site-tensor): :func:`signature_decisions_by_def` reads each matched ``def``'s
:class:`~retrace_fix.traces.generalize.SourceInfo` (parameters, the ``self``
TensorFlow skips, an existing signature, ``jit_compile``/``autograph``, what
this module's calls pass, what the body does with each parameter, whether a
codemod of this run rewrote the body) and hands it with the traces to
:func:`retrace_fix.traces.generalize.decide_signature` (cached per tree).

Never imports TensorFlow.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Callable

import libcst as cst

from retrace_fix.analysis import TfFunctionSite
from retrace_fix.codemods._body_facts import body_facts, is_tf_api
from retrace_fix.codemods._callsites import ModuleCalls
from retrace_fix.codemods._rewritten import rewrite_reason, rewritten_by
from retrace_fix.codemods._tf_values import instance_variables, module_variables
from retrace_fix.codemods._traced_functions import literal_default, param_infos, per_tree, traced_functions
from retrace_fix.tfnames import Scope, dotted_name
from retrace_fix.traces.generalize import ParamInfo, SignatureDecision, SourceInfo, decide_signature

if TYPE_CHECKING:  # pragma: no cover
    from retrace_fix.codemods._base import RetraceCodemod


_SIGNATURE_PLANS_KEY = "retrace_fix.trace_plans"


def site_keywords(site: TfFunctionSite) -> dict[str, cst.Arg]:
    """Keyword arguments already given to the ``tf.function(...)`` of this site."""
    return site.keywords()


def _method_info(node: cst.FunctionDef, site: TfFunctionSite, scope: Scope, infos: list[ParamInfo]) -> tuple[str | None, str | None]:
    """(parameter TensorFlow skips, problem) for methods."""
    if site.class_name is None:
        return None, None
    if site.form == "wrap-call":
        # tf.function(self._step): a bound method, its first parameter is already bound
        return (infos[0].name if infos else None), None
    kinds = set()
    for decorator in node.decorators:
        name = scope.qualify(decorator.decorator)
        if name in ("builtins.staticmethod", "builtins.classmethod"):
            kinds.add(name.split(".")[1])
    if "staticmethod" in kinds:
        return None, None
    if not infos or infos[0].kind != "positional":
        return None, None
    first = infos[0].name
    if "classmethod" in kinds:
        return first, f"`{first}` of a classmethod is not skipped by TensorFlow (only a parameter named `self` is)"
    if first != "self":
        return first, f"the first parameter `{first}` is not named `self` (TensorFlow skips `self` by name only)"
    return "self", None


def signature_decisions_by_def(codemod: "RetraceCodemod") -> dict[cst.FunctionDef, SignatureDecision]:
    """The signature plan of every recorded tf.function of this tree (cached per tree)."""
    return per_tree(codemod, _SIGNATURE_PLANS_KEY, lambda: _decide_all(codemod))


def _decide_all(codemod: "RetraceCodemod") -> dict[cst.FunctionDef, SignatureDecision]:
    analysis = codemod.analysis
    result: dict[cst.FunctionDef, SignatureDecision] = {}
    if codemod.settings.traces is not None and analysis.tf_functions:
        scope = Scope(analysis.table)
        variables = module_variables(analysis.module, scope)
        for node, function in traced_functions(codemod).items():
            site = analysis.tf_functions[node]
            infos = param_infos(node)
            skip_self, problem = _method_info(node, site, scope, infos)
            params = {p.name for p in infos if p.name != skip_self}
            tensor_names = {
                name
                for name in params
                if function.traces
                and all(t.args.get(name, {}).get("kind") in ("tensor", "ragged", "sparse") for t in function.traces)
            }
            dense_names = {
                name for name in tensor_names if all(t.args.get(name, {}).get("kind") == "tensor" for t in function.traces)
            }
            sites = _call_sites(codemod, node)
            keywords = site_keywords(site)
            jit = keywords.get("jit_compile")
            autograph = keywords.get("autograph")
            source = SourceInfo(
                params=infos,
                skip_self=skip_self,
                method_problem=problem,
                has_signature="input_signature" in keywords,
                jit_compile=jit is not None and not (isinstance(jit.value, cst.Name) and jit.value.value in ("False", "None")),
                autograph=autograph is None or (isinstance(autograph.value, cst.Name) and autograph.value.value == "True"),
                tensor_at_call_sites=_tensor_at_call_sites(sites, scope),
                call_site_values=_explicit_values(sites),
                facts=body_facts(node, params, scope, tensor_names, project_functions(codemod, scope),
                                 dense_names=dense_names,
                                 variables=variables | _self_variables(analysis.module, node, skip_self, scope)),
                rewritten=_rewritten_note(codemod, node),
            )
            result[node] = decide_signature(function, source)
    return result


def _self_variables(module: cst.Module, node: cst.FunctionDef, skip_self: str | None, scope: Scope) -> set[str]:
    """``self.<attr>`` names of the ``tf.Variable`` attributes of the class whose method ``node`` is."""
    if skip_self != "self":
        return set()
    for statement in module.body:
        if isinstance(statement, cst.ClassDef) and any(s is node for s in statement.body.body):
            return instance_variables(statement, scope)
    return set()


def project_functions(codemod: "RetraceCodemod", scope: Scope) -> Callable[[cst.BaseExpression], str | None]:
    """Which callees are functions of the user's own project: a def at the top of this module, a name
    imported relatively (``from .ops import double``) or from a module that is a file of the project
    (``from helpers import double``, ``import helpers`` then ``helpers.double``: ``helpers.py`` or
    ``helpers/`` beside the file or at the project root).  Returns the callee's dotted name, else None."""
    filename = codemod.context.filename
    relpath = codemod.settings.relpath
    module = codemod.analysis.module
    top_defs = {s.name.value for s in module.body if isinstance(s, cst.FunctionDef)}
    table = scope.table
    folders: list[str] = []
    if filename:
        here = os.path.dirname(os.path.abspath(filename))
        folders.append(here)
        if relpath and os.path.abspath(filename).replace(os.sep, "/").endswith("/" + relpath):
            root = os.path.abspath(filename)[: -len(relpath) - 1]
            if root and root != here:
                folders.append(root)
    found: dict[str, bool] = {}

    def in_project(top: str) -> bool:
        if top not in found:
            found[top] = bool(top) and any(
                os.path.isfile(os.path.join(f, top + ".py")) or os.path.isdir(os.path.join(f, top)) for f in folders)
        return found[top]

    def project_function(func: cst.BaseExpression) -> str | None:
        dotted = dotted_name(func)
        if dotted is None:
            return None
        head = dotted.split(".", 1)[0]
        if scope.is_local(head):
            return None  # a value of the function's own
        if table.aliases.get(head, "") is None:  # bound by a relative import
            return dotted
        if dotted == head and head in top_defs and head not in table.aliases:
            return dotted  # a function of this module
        qualified = scope.qualify(func)
        if qualified and "." in qualified and not is_tf_api(qualified) and in_project(qualified.split(".", 1)[0]):
            return qualified
        return None

    return project_function


def _rewritten_note(codemod: "RetraceCodemod", node: cst.FunctionDef) -> str:
    """Why the recorded proofs do not cover ``node``'s body: a codemod of this run rewrote it, or ""."""
    code = rewritten_by(codemod.context.scratch, codemod.qualname(node))
    return rewrite_reason(code) if code is not None else ""


def _call_sites(codemod: "RetraceCodemod", node: cst.FunctionDef) -> list:
    """The calls of ``node`` in this module (RTF001's call-site analysis), or []."""
    calls = ModuleCalls.get(codemod.analysis, codemod.context.scratch)
    callee = calls.callable_for(node)
    return calls.calls_of(callee) if callee is not None else []


def _tensor_at_call_sites(sites: list, scope: Scope) -> frozenset:
    """Parameters that every call in this module passes as a TensorFlow op's result."""
    if not sites:
        return frozenset()
    params: set[str] | None = None
    for site in sites:
        tensors = {
            name
            for name, expr in site.args.items()
            if isinstance(expr, cst.Call) and is_tf_api(scope.qualify(expr.func))
        }
        params = tensors if params is None else params & tensors
    return frozenset(params or ())


def _explicit_values(sites: list) -> dict[str, list]:
    """Per parameter: the values calls in this module pass explicitly (NO_LITERAL when not a literal)."""
    values: dict[str, list] = {}
    for site in sites:
        for name, expr in site.args.items():
            values.setdefault(name, []).append(literal_default(expr))
    return values
