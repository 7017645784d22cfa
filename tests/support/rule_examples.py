"""Run the ``Example`` section of a rule's page as a golden case (shared by the example tests).

An example is a *Before* block and the block after it (:class:`retrace_fix.rules.Example`).
Blocks are program fragments: the imports they use but do not write (``tf``, ``np``,
``time``, ``random``) are put in front before they run.  The codemod of the rule runs
alone (``--select CODE``), with ``--unsafe-fixes`` when the *After* label names it.
"""

from __future__ import annotations

import re
from pathlib import Path

from retrace_fix.codemods import RULES
from retrace_fix.engine.options import FileJob, RunOptions
from retrace_fix.engine.process import process_file
from retrace_fix.findings import FileResult
from retrace_fix.rules import Example, Rule

IMPORTS = {"tf": "import tensorflow as tf", "np": "import numpy as np", "time": "import time", "random": "import random"}


def program(block: str) -> str:
    """``block`` with the imports it needs in front."""
    needed = [line for name, line in IMPORTS.items() if re.search(rf"(?<![\w.]){name}\.", block) and line not in block]
    return "\n".join(needed) + "\n\n\n" + block if needed else block


def examples(traced: bool) -> list[tuple[str, Rule, Example]]:
    """``(id, rule, example)`` of every example that needs (``traced``) or does not need recorded traces."""
    found = []
    for code, rule in RULES.items():
        for number, example in enumerate(rule.examples, 1):
            if example.needs_traces == traced:
                found.append((f"{code}-{number}", rule, example))
    return found


def run(directory: Path, text: str, rule: Rule, example: Example, traces=None) -> FileResult:
    """The engine on ``text`` as ``directory/example.py`` with the example's options."""
    path = directory / "example.py"
    path.write_text(text, encoding="utf-8")
    options = RunOptions(select=(rule.code,), unsafe_fixes=example.unsafe_fixes, traces=traces)
    result = process_file(FileJob(path=path, display="example.py", relpath="example.py"), options)
    assert result.error is None, result.error
    return result


def check_fix(directory: Path, rule: Rule, example: Example, traces=None) -> None:
    """The codemod turns *Before* into *After* exactly, and leaves *After* as it is."""
    result = run(directory, program(example.before), rule, example, traces)
    assert result.fixed == program(example.after), f"{rule.code}: the page's After is not what the codemod writes"
    again = run(directory, program(example.after), rule, example, traces)
    assert again.fixed == again.original, f"{rule.code}: the page's After is changed again"
    assert not any(f.applied for f in again.findings)
