"""retrace-fix codemods (``retrace_fix.codemods``) and the table of their codes.

The folder is ``codemods/`` at the top of the repository, installed as the
``retrace_fix.codemods`` package.  Each public module (a name without a leading
underscore) holds one codemod: a LibCST ``VisitorBasedCodemodCommand`` subclass
of :class:`~retrace_fix.codemods._base.RetraceCodemod` whose ``RULES`` declare
the codes it reports (:class:`retrace_fix.rules.Rule`).  Modules whose name
starts with ``_`` are shared helpers.  With the repository's
``.libcst.codemod.yaml`` (``modules: ['retrace_fix.codemods']``) every codemod
also runs as, e.g.::

    python -m libcst.tool codemod predict_to_call.PredictToCallCommand src/

This module collects them, so that adding a code is adding a module:

* :data:`REGISTRY` - the codemods in the order the engine runs them (``ORDER``);
* :data:`RULES` - every code's rule, by code: the one table that the commands,
  the engine (:data:`DEFERS_TO`), SARIF, the docs and the tests read.

The command classes are reached through their modules (not bound here), so that
``python -m libcst.tool list`` names each by its own module.
"""

from __future__ import annotations

import importlib
import pkgutil
from types import MappingProxyType
from typing import Mapping

from retrace_fix.codemods._base import RetraceCodemod
from retrace_fix.rules import Rule


def _discover() -> list[type[RetraceCodemod]]:
    """Every codemod class of this package's public modules, in the engine's order."""
    found: list[type[RetraceCodemod]] = []
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        found += [
            value
            for value in vars(module).values()
            if isinstance(value, type)
            and issubclass(value, RetraceCodemod)
            and value.__module__ == module.__name__
            and value.RULES
        ]
    return sorted(found, key=lambda cls: (cls.ORDER, cls.__module__, cls.__name__))


def _table(registry: list[type[RetraceCodemod]]) -> dict[str, tuple[Rule, type[RetraceCodemod]]]:
    table: dict[str, tuple[Rule, type[RetraceCodemod]]] = {}
    for cls in registry:
        for rule in cls.RULES:
            if rule.code in table:
                raise RuntimeError(f"{rule.code} is declared by {table[rule.code][1].__name__} and {cls.__name__}")
            table[rule.code] = (rule, cls)
    for rule, cls in table.values():
        unknown = [code for code in rule.defers_to if code not in table]
        if unknown:
            raise RuntimeError(f"{rule.code} ({cls.__name__}) defers to unknown code {unknown[0]}")
    return dict(sorted(table.items()))


#: the codemods, in the order the engine runs them on a tree
REGISTRY: list[type[RetraceCodemod]] = _discover()
_TABLE = _table(REGISTRY)
#: every code's rule, sorted by code
RULES: Mapping[str, Rule] = MappingProxyType({code: rule for code, (rule, _) in _TABLE.items()})
#: one problem, one finding: code -> the codes whose findings about the same subject replace its own
DEFERS_TO: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {code: rule.defers_to for code, rule in RULES.items() if rule.defers_to}
)


def rule(code: str) -> Rule | None:
    """The rule of ``code`` (any case), or None."""
    entry = _TABLE.get(code.upper())
    return entry[0] if entry else None


def codemod_for(code: str) -> type[RetraceCodemod] | None:
    """The codemod that reports ``code`` (any case), or None."""
    entry = _TABLE.get(code.upper())
    return entry[1] if entry else None


def all_codes() -> dict[str, type[RetraceCodemod]]:
    """Every code a codemod can emit (diagnostic codes included) → the codemod emitting it."""
    return {code: cls for code, (_, cls) in _TABLE.items()}


def documentation(code: str) -> str | None:
    """The *What it does / Why it retraces / Example / Fix safety* page of a code."""
    found = rule(code)
    return found.page if found is not None else None


__all__ = ["DEFERS_TO", "REGISTRY", "RULES", "all_codes", "codemod_for", "documentation", "rule"]
