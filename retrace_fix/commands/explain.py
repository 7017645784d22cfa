"""``retrace-fix codemods`` (the list of codes) and ``retrace-fix explain CODE`` (one code's page)."""

from __future__ import annotations

import sys
from typing import IO

from retrace_fix.codemods import all_codes, documentation

EXIT_OK, EXIT_ERROR = 0, 2


def list_codes(out: IO[str] | None = None) -> int:
    """One line per code: code, name, tier, summary."""
    out = out or sys.stdout
    for code, cls in all_codes().items():
        extra = getattr(cls, "EXTRA_CODES", {}).get(code)
        if extra is not None:
            name, tier, summary = extra["name"], extra["tier"], extra["summary"]
        else:
            name, tier, summary = cls.NAME, cls.TIER.value, cls.SUMMARY
        tier = getattr(tier, "value", tier)
        out.write(f"{code}  {name:<24} {tier:<10} {summary}\n")
    return EXIT_OK


def explain(code: str, out: IO[str] | None = None, err: IO[str] | None = None) -> int:
    """The *What it does / Why it retraces / Example / Fix safety* page of ``code``."""
    doc = documentation(code)
    if doc is None:
        (err or sys.stderr).write(f"retrace-fix: error: unknown code `{code}` (see `retrace-fix codemods`)\n")
        return EXIT_ERROR
    (out or sys.stdout).write(doc + "\n")
    return EXIT_OK
