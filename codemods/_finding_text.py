"""The text of a trace-driven finding: one line of at most :data:`MAX_MESSAGE`
characters, clauses joined and shortened, code quoted on one line.

Shared by RTF003, RTF004 and RTF005 (and the call-site decision's wording).
"""

from __future__ import annotations

import re

import libcst as cst

from retrace_fix.node_text import code_of
from retrace_fix.traces.generalize import SignatureDecision


def short(node: cst.CSTNode, limit: int = 60) -> str:
    text = " ".join(code_of(node).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


#: one finding, one line: the text line of a trace-driven finding stays about this long
MAX_MESSAGE = 160
_LEADING_PARAM = re.compile(r"^`([^`]+)`")


def _param_of(text: str) -> str | None:
    found = _LEADING_PARAM.match(text)
    return found.group(1) if found else None


def clauses(plan: SignatureDecision) -> list[tuple[str | None, str, bool]]:
    """What keeps ``plan`` from a signature, one clause per parameter: ``(param, text, blocking)``.

    ``blocking``: the clause, not only a variation, keeps the signature from being written.  A
    blocker replaces the clause saying that the same parameter varied, keeping its values.
    """
    order: list[str] = []
    texts: dict[str, str] = {}
    params: dict[str, str | None] = {}
    varied: dict[str, str] = {}
    blocking: set[str] = set()
    for text in plan.problems:
        param = _param_of(text)
        key = param or text
        if key not in texts:
            order.append(key)
            texts[key], params[key], varied[key] = text, param, text
    for param, text in plan.blockers:
        key = param or text
        if key not in texts:
            # the very clause a problem already lists (an item of a container, `xs[0]`): once
            key = next((k for k, listed in varied.items() if listed == text), key)
        if key in blocking:
            continue
        blocking.add(key)
        params[key] = param
        if key not in texts:
            order.append(key)
        elif key in varied and param is not None:
            problem = varied[key]
            head = f"`{param}`: "
            if problem != text and problem.startswith(head) and text.startswith(f"`{param}` "):
                values = re.sub(r" varies \((.*)\)$", r" \1", problem[len(head):])
                text = f"`{param}` ({values})" + text[len(param) + 2:]
        texts[key] = text
    return [(params[key], texts[key], key in blocking) for key in order]


def joined(items) -> str:
    """Clauses joined with ``; `` (a clause ending with a full stop, like an error message, loses it)."""
    return "; ".join(item[:-1] if item.endswith(".") and not item.endswith("..") else item for item in items)


def short_list(items: list[str], limit: int = 2) -> str:
    """``a; b (+3 more)``"""
    shown = "; ".join(items[:limit])
    return shown + (f" (+{len(items) - limit} more)" if len(items) > limit else "")


def one_line(text: str, limit: int = MAX_MESSAGE) -> str:
    """``text`` within ``limit`` characters: first without its parenthesised values (``(Python int
    1, 2, 3)``, the reason keeps them), then cut at a clause boundary (or a word)."""
    while len(text) > limit:
        shorter = re.sub(r" \((?:Python|`)[^()]*(?:\([^()]*\))?[^()]*\)", "", text, count=1)
        if shorter == text:
            break
        text = shorter
    if len(text) <= limit:
        return text
    cut = text.rfind("; ", 0, limit - 1)
    if cut < limit // 2:
        cut = text.rfind(" ", 0, limit - 1)
    return text[:cut].rstrip(" ;,:") + " …"
