"""RTF005's decisions as records: what the whole-project pre-pass hands every worker.

* :class:`Decision` - what RTF005 does about one recorded tf.function: its tier,
  the finding at the ``def`` and at each rewritten call site, the
  :class:`Conversion` of each parameter, the :class:`Callee` as its call sites
  see it, and a :class:`SiteVerdict` per recorded call site (``edit``,
  ``done`` or ``refused``);
* :class:`CallSitePlan` - every decision of one project root, by function key
  (``CodemodSettings.call_sites``; RTF003 and RTF004 read it too).

Made by :mod:`retrace_fix.codemods._call_site_decision`.  Never imports TensorFlow.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from retrace_fix.codemods._base import CodemodSettings
from retrace_fix.findings import Tier


CODE = "RTF005"

#: a site's status in a decision
EDIT, DONE, REFUSED = "edit", "done", "refused"


@dataclass(frozen=True)
class Conversion:
    """One parameter a call site passes as a tensor: ``scalar`` (``tf.constant(v, dtype=...)``) or ``cast``
    (``tf.cast(v, ...)``)."""

    param: str
    kind: str
    dtype: str


@dataclass(frozen=True)
class ParamSpec:
    """What a call site needs to know about one parameter of the ``def``."""

    name: str
    kind: str  # positional_only | positional | var_positional | keyword_only | var_keyword
    has_default: bool = False
    default: str | None = None  # the source of a literal default (None: no default, or not a literal)


@dataclass(frozen=True)
class Callee:
    """The function as its call sites see it."""

    names: frozenset  # the names a call may use: the def's name, the names a tf.function(...) is bound to
    params: tuple  # (ParamSpec, ...) without the ``self`` TensorFlow skips
    def_module: str  # dotted module of the def (``pkg.train``), to resolve ``from pkg.train import f as g``


@dataclass(frozen=True)
class SiteVerdict:
    """One recorded call site: ``edit`` (converted by this fix), ``done`` (already passes tensors), or
    ``refused`` (``reason`` names the file and line)."""

    file: str
    line: int
    column: int | None
    count: int
    status: str
    reason: str = ""

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"


@dataclass
class Decision:
    """What RTF005 does about one recorded tf.function."""

    key: tuple
    qualname: str
    name: str
    file: str
    tier: Tier
    message: str  # the finding at the def (one line)
    reason: str  # the full explanation
    conversions: tuple = ()  # (Conversion, ...)
    callee: Callee | None = None
    sites: tuple = ()  # (SiteVerdict, ...): every recorded call site
    site_message: str = ""  # the finding at each rewritten call site
    verifiable: bool = False
    before: int = 0
    after: int = 0
    #: ``reduce_retracing=True`` on top of the conversion (RTF004 adds it): "" (not needed), traced,
    #: unproven or failed, and its message/reason parts
    relax: str = ""
    relax_note: str = ""
    relax_after: int = 0
    #: what the finding is about: RTF003's refusal and the call-site diagnostics defer to it
    subjects: tuple = ()
    #: every recorded call site already passes these tensors (fixed since recording): nothing to report
    done: bool = False
    #: ``(param, python type)`` whose ``tf.constant(param)`` calls in the body are rewritten (``_own_constants``)
    own_constants: tuple = ()
    #: the body draws random numbers or reads a clock while tracing: fewer traces change the results
    draws: str | None = None

    @property
    def fixable(self) -> bool:
        return not self.done and self.tier is not Tier.DIAGNOSTIC and any(s.status == EDIT for s in self.sites)

    def applies(self, settings: CodemodSettings) -> bool:
        """Do the call sites pass tensors after this run: converted by RTF005 now (the tier allowed), or
        already?  RTF003 then writes no signature, RTF004 relaxes the converted traces."""
        if self.done:
            return True
        if not self.fixable:
            return False
        return self.tier is Tier.SAFE or settings.unsafe_fixes or settings.verify_candidates

    def sites_in(self, file: str) -> list[SiteVerdict]:
        return [s for s in self.sites if s.file == file and s.status == EDIT]


@dataclass
class CallSitePlan:
    """Every decision of one project root, by function key."""

    decisions: dict = field(default_factory=dict)

    def for_function(self, key: tuple) -> Decision | None:
        return self.decisions.get(key)

    def defined_in(self, file: str) -> list[Decision]:
        """The decisions to report at a def of ``file``."""
        return [d for d in self.decisions.values() if d.file == file and not d.done]

    def editing(self, file: str) -> list[Decision]:
        return [d for d in self.decisions.values() if d.fixable and d.sites_in(file)]

    def files(self) -> set[str]:
        return {d.file for d in self.decisions.values()} | {s.file for d in self.decisions.values() for s in d.sites}
