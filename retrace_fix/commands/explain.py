"""``retrace-fix codemods`` (the list of codes) and ``retrace-fix explain CODE`` (one code's page)."""

from __future__ import annotations

import sys
from typing import IO

from retrace_fix.codemods import RULES, rule
from retrace_fix.docstring_markdown import doc_to_markdown, doc_to_text
from retrace_fix.output.render import stream_is_terminal

EXIT_OK, EXIT_ERROR = 0, 2


def list_codes(out: IO[str] | None = None) -> int:
    """One line per code: code, name, tier, summary."""
    out = out or sys.stdout
    for code, record in RULES.items():
        out.write(f"{code}  {record.name:<24} {record.tier.value:<10} {record.summary}\n")
    return EXIT_OK


def explain(code: str, out: IO[str] | None = None, err: IO[str] | None = None) -> int:
    """The *What it does / Why it retraces / Example / Fix safety* page of ``code``.

    On a terminal the page is rendered from its Markdown with rich (headings,
    highlighted code, colour); into a pipe or a file it is plain text.
    """
    out = out or sys.stdout
    found = rule(code)
    if found is None:
        (err or sys.stderr).write(f"retrace-fix: error: unknown code `{code}` (see `retrace-fix codemods`)\n")
        return EXIT_ERROR
    if stream_is_terminal(out):
        from rich.console import Console
        from rich.markdown import Markdown

        page = doc_to_markdown(found.page, title=f"{found.code} {found.name}")
        Console(file=out, highlight=False).print(Markdown(page))
    else:
        out.write(doc_to_text(found.page))
    return EXIT_OK
