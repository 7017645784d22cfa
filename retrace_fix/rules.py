"""One record per code: :class:`Rule`.

A rule is what a user sees of a code: its name, the tier to expect, the one-line
summary of ``retrace-fix codemods``, the page ``retrace-fix explain CODE`` prints
(*What it does / Why it retraces / Example / Fix safety*), and which codes' findings
replace its own when both are about the same problem (:attr:`Rule.defers_to`).
Each rule is declared in the codemod module that emits it, next to the code that
reports it (``RULES`` of the codemod class); :mod:`retrace_fix.codemods` collects
them into the one table every command reads.

The ``Example`` section of a rule's page is executable: :attr:`Rule.examples`
gives its *Before* / *After* (or *By hand*) blocks, and ``tests/codemods/test_rule_examples.py``
runs them, so the page cannot drift from what the codemod does.
"""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass

from retrace_fix.docstring_markdown import literal_blocks, split_sections
from retrace_fix.findings import Tier

CODE_PATTERN = re.compile(r"^RTF\d{3}$")
NAME_PATTERN = re.compile(r"^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$")


@dataclass(frozen=True)
class Example:
    """One *Before* block of a rule's ``Example`` section and the block that follows it.

    ``after_label`` is that block's lead-in: ``After`` (what the codemod writes; the
    label names the options it needs, e.g. ``--unsafe-fixes`` or ``--traces``) or
    ``By hand`` (a diagnostic: what a person writes instead).
    """

    before: str
    after: str
    after_label: str

    @property
    def by_hand(self) -> bool:
        return self.after_label.lower().startswith("by hand")

    @property
    def unsafe_fixes(self) -> bool:
        return "--unsafe-fixes" in self.after_label

    @property
    def needs_traces(self) -> bool:
        return "--traces" in self.after_label


@dataclass(frozen=True)
class Rule:
    """Everything about one code that is not the code reporting it."""

    code: str  # "RTF002"
    name: str  # "predict-to-call"
    tier: Tier  # what to expect from the code; every site is decided again
    summary: str  # one line for ``retrace-fix codemods``
    #: the ``retrace-fix explain`` page: *What it does / Why it retraces / Example / Fix
    #: safety* (a codemod module's docstring, titled ``CODE name.``, or a diagnostic's page)
    doc: str
    golden: str = ""  # the folder under ``golden/`` holding its cases; "" means the rule's name
    #: one problem, one finding: a finding of this code is dropped when a finding of one
    #: of these codes (reported, or hidden by a suppression comment) is about the same
    #: subject (see :func:`retrace_fix.findings.drop_duplicates`)
    defers_to: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not CODE_PATTERN.match(self.code):
            raise ValueError(f"rule code {self.code!r}: expected RTF and three digits")
        if not NAME_PATTERN.match(self.name):
            raise ValueError(f"{self.code}: rule name {self.name!r}: expected lower-case words joined by '-'")
        if not self.golden:
            object.__setattr__(self, "golden", self.name)

    @property
    def page(self) -> str:
        """The documentation as ``retrace-fix explain`` prints it."""
        return inspect.cleandoc(self.doc)

    @property
    def examples(self) -> list[Example]:
        """The *Before* blocks of the ``Example`` section, each with the block after it."""
        _, sections = split_sections(self.page)
        body = next((lines for heading, lines in sections if heading.rstrip(":") == "Example"), [])
        blocks = literal_blocks(body)
        examples = []
        for (label, code), following in zip(blocks, blocks[1:]):
            if label.lower().startswith("before"):
                examples.append(Example(before=code, after=following[1], after_label=following[0]))
        return examples
