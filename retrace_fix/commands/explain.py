"""``retrace-fix codemods`` (the list of codes) and ``retrace-fix explain CODE`` (one code's page)."""

from __future__ import annotations

import sys
from typing import IO

from retrace_fix.codemods import RULES, documentation

EXIT_OK, EXIT_ERROR = 0, 2


def list_codes(out: IO[str] | None = None) -> int:
    """One line per code: code, name, tier, summary."""
    out = out or sys.stdout
    for code, rule in RULES.items():
        out.write(f"{code}  {rule.name:<24} {rule.tier.value:<10} {rule.summary}\n")
    return EXIT_OK


def explain(code: str, out: IO[str] | None = None, err: IO[str] | None = None) -> int:
    """The *What it does / Why it retraces / Example / Fix safety* page of ``code``."""
    doc = documentation(code)
    if doc is None:
        (err or sys.stderr).write(f"retrace-fix: error: unknown code `{code}` (see `retrace-fix codemods`)\n")
        return EXIT_ERROR
    (out or sys.stdout).write(doc + "\n")
    return EXIT_OK
