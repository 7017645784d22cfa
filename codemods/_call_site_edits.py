"""What converting a parameter means at one recorded call site: wrap the argument
passed, add a literal default, nothing (it already passes a tensor), or why the
site cannot be rewritten.

:func:`site_edits` is one pure function of the file's text, run by the
pre-pass (:func:`site_verdict`) and again by the worker on the same text, so a
site the decision approved is the site RTF005 edits.  Never imports TensorFlow.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from retrace_fix.codemods._call_site_matching import (
    ParsedModule,
    already_tensor,
    bind_arguments,
    calls_by_name,
    find_site,
    suppressed_site,
)
from retrace_fix.codemods._call_site_records import DONE, EDIT, REFUSED, Callee, SiteVerdict
from retrace_fix.codemods._tf_function_edits import tf_spelling
from retrace_fix.traces.model import FunctionTraces


@dataclass
class SiteMatch:
    """A recorded call site found again: the call, and what to do with each converted parameter."""

    call: cst.Call | None
    status: str
    reason: str = ""
    #: (conversion, "wrap" | "add", the argument to wrap or the default's source)
    edits: tuple = ()


def site_edits(parsed: ParsedModule, line: int, column: int | None, callee: Callee, conversions: tuple) -> SiteMatch:
    """What converting ``conversions`` means at the call recorded at ``line``/``column``."""
    where = f"{parsed.relpath}:{line}"
    call, functions, why = find_site(parsed, line, column, callee)
    if call is None:
        if _converted_everywhere(parsed, callee, conversions):
            return SiteMatch(None, DONE)  # fixed since recording (an import added above moved the lines)
        return SiteMatch(None, REFUSED, why)
    if suppressed_site(parsed, call, functions):
        return SiteMatch(call, REFUSED, f"{where}: suppressed by a `# retrace-fix: ignore` comment")
    if tf_spelling(parsed.analysis.table)[0] is None:
        return SiteMatch(call, REFUSED, f"{where}: no name for TensorFlow is free in this module")
    bound, problem = bind_arguments(call, callee)
    if problem:
        return SiteMatch(call, REFUSED, f"{where}: {problem}")
    scope = parsed.scope
    edits = []
    for conversion in conversions:
        arg = bound.get(conversion.param)
        spec = next(p for p in callee.params if p.name == conversion.param)
        if isinstance(arg, cst.Arg):
            if already_tensor(arg.value, conversion, scope):
                continue
            edits.append((conversion, "wrap", arg))
        elif arg == "star":
            return SiteMatch(call, REFUSED, f"{where}: passes `{conversion.param}` through *args/**kwargs")
        elif spec.has_default:
            if spec.kind == "positional_only":
                return SiteMatch(call, REFUSED, f"{where}: leaves positional-only `{spec.name}` at its default")
            if spec.default is None:
                return SiteMatch(
                    call, REFUSED, f"{where}: leaves `{spec.name}` at its default, which is not a literal to pass here"
                )
            edits.append((conversion, "add", spec.default))
        else:
            return SiteMatch(call, REFUSED, f"{where}: does not pass `{spec.name}` (the code changed since recording?)")
    if not edits:
        return SiteMatch(call, DONE)
    return SiteMatch(call, EDIT, edits=tuple(edits))


def _converted_everywhere(parsed: ParsedModule, callee: Callee, conversions: tuple) -> bool:
    """Does every call of ``callee`` by name in the module already pass each conversion as a tensor?"""
    calls = calls_by_name(parsed, callee, set(parsed.analysis.tf_functions), attributes=True)
    if not calls:
        return False
    scope = parsed.scope
    for call in calls:
        bound, problem = bind_arguments(call, callee)
        if problem:
            return False
        for conversion in conversions:
            arg = bound.get(conversion.param)
            if not (isinstance(arg, cst.Arg) and already_tensor(arg.value, conversion, scope)):
                return False
    return True


def site_verdict(site, callee: Callee, conversions: tuple, function: FunctionTraces, module, sources: dict) -> SiteVerdict:
    where = f"{site.file}:{site.line}"
    if site.file not in sources:
        return SiteVerdict(site.file, site.line, site.column, site.count, REFUSED,
                           f"{where}: the file is not among the files of this run")
    parsed = module(site.file)
    if parsed is None:
        return SiteVerdict(site.file, site.line, site.column, site.count, REFUSED, f"{where}: the file cannot be parsed")
    match = site_edits(parsed, site.line, site.column, callee, conversions)
    return SiteVerdict(site.file, site.line, site.column, site.count, match.status, match.reason)
