"""The source text of a LibCST node, as codemods quote it.

* :func:`code_of` - exactly as it would be written (a rewrite measuring a line,
  a literal read back with ``ast.literal_eval``);
* :func:`short_code` - on one line, for a finding's message: whitespace runs become
  one space, a compound statement loses its trailing colon, and text longer than
  ``limit`` is cut with ``...``.
"""

from __future__ import annotations

import libcst as cst

_EMPTY = cst.Module(body=[])


def code_of(node: cst.CSTNode) -> str:
    """The code of ``node``, exactly."""
    return _EMPTY.code_for_node(node)


def short_code(node: cst.CSTNode, limit: int = 60) -> str:
    """The code of ``node`` on one line, shortened to ``limit`` characters."""
    text = " ".join(code_of(node).split())
    if text.endswith(":") and isinstance(node, cst.BaseCompoundStatement):
        text = text[:-1]
    if len(text) > limit:
        text = text[: limit - 3].rstrip() + "..."
    return text


def first_line(node: cst.CSTNode, limit: int = 60) -> str:
    """The first line of ``node``'s code, shortened to ``limit`` characters (a statement as a message names it)."""
    text = code_of(node).strip().splitlines()[0]
    return text if len(text) <= limit else text[: limit - 3] + "..."
