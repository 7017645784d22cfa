"""A code's documentation (``retrace_fix.codemods.documentation``) as Markdown.

The documentation of every code is written in one plain-text shape, the one
``retrace-fix explain CODE`` prints::

    RTF002 predict-to-call.

    What it does
        Inside a tf.function, rewrites ``model.predict(x)`` ...

    Example
        Before::

            @tf.function
            ...

A line ``CODE name.`` is the title, an unindented line is a section heading,
an indented paragraph ending in ``::`` introduces a literal (Python) block, and
````code```` is inline code.  :func:`doc_to_markdown` turns that into Markdown
for the docs site (``docs/codemods/<CODE>.md``) and SARIF rule help.  Text
that does not follow the shape comes out as plain paragraphs.
"""

from __future__ import annotations

import re
import textwrap

_INLINE = re.compile(r"``(.+?)``(?!`)", re.S)
_TITLE = re.compile(r"^(RTF\d+)\s+([\w-]+)\.?\s*$")


_ROLE = re.compile(r":(?:py:)?(?:func|class|meth|mod|attr|data|obj|exc|const):`~?([^`]+)`")


def _inline(text: str) -> str:
    text = _ROLE.sub(r"``\1``", text)  # Sphinx roles (:func:`x`) read as inline code

    def code(match: re.Match) -> str:
        content = " ".join(match.group(1).split())
        if "`" in content:
            return f"`` {content} ``"
        return f"`{content}`"

    return _INLINE.sub(code, text)


def _indent_of(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _body_to_markdown(lines: list[str]) -> list[str]:
    """Dedented section body → Markdown lines (paragraphs, literal blocks, bullet lists)."""
    out: list[str] = []
    paragraph: list[str] = []
    i = 0

    def flush() -> None:
        if paragraph:
            out.append(_inline("\n".join(paragraph)))
            out.append("")
            paragraph.clear()

    while i < len(lines):
        line = lines[i]
        if not line.strip():
            flush()
            i += 1
            continue
        stripped = line.rstrip()
        if stripped.endswith("::") and _indent_of(line) == 0:
            lead = stripped[:-2].rstrip()
            paragraph.append(lead + ":" if lead else "")
            if not lead:
                paragraph.pop()
            flush()
            i += 1
            block: list[str] = []
            while i < len(lines) and (not lines[i].strip() or _indent_of(lines[i]) > 0):
                block.append(lines[i])
                i += 1
            while block and not block[-1].strip():
                block.pop()
            while block and not block[0].strip():
                block.pop(0)
            out.append("```python")
            out.extend(textwrap.dedent("\n".join(block)).splitlines())
            out.append("```")
            out.append("")
            continue
        if _indent_of(line) > 0 and not paragraph:  # an indented block without '::' stays literal
            flush()
            block = []
            while i < len(lines) and (not lines[i].strip() or _indent_of(lines[i]) > 0):
                block.append(lines[i])
                i += 1
            while block and not block[-1].strip():
                block.pop()
            out.append("```")
            out.extend(textwrap.dedent("\n".join(block)).splitlines())
            out.append("```")
            out.append("")
            continue
        if stripped.lstrip().startswith(("* ", "- ")) and paragraph and not paragraph[-1].lstrip().startswith(("* ", "- ")):
            flush()
        paragraph.append(stripped)
        i += 1
    flush()
    return out


def split_sections(doc: str) -> tuple[str, list[tuple[str, list[str]]]]:
    """(title line, [(heading, dedented body lines)]) of a code's documentation."""
    lines = doc.strip("\n").splitlines()
    title = ""
    if lines and _TITLE.match(lines[0].strip()):  # "RTF002 predict-to-call." (absent in a diagnostic's page)
        title = lines.pop(0).strip()
    sections: list[tuple[str, list[str]]] = []
    current: tuple[str, list[str]] | None = None
    for line in lines:
        if line.strip() and _indent_of(line) == 0:
            current = (line.strip(), [])
            sections.append(current)
        else:
            if current is None:
                if not line.strip():
                    continue  # blank lines between the title and the first heading
                current = ("", [])  # text before any heading
                sections.append(current)
            current[1].append(line)
    return title, [(heading, textwrap.dedent("\n".join(body)).splitlines()) for heading, body in sections]


def literal_blocks(lines: list[str]) -> list[tuple[str, str]]:
    """``(label, code)`` of every literal block in a dedented section body: the paragraph
    ending in ``::`` (without the colons, lines joined) and the indented block after it,
    dedented, ending with one newline."""
    blocks: list[tuple[str, str]] = []
    paragraph: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            paragraph = []
            i += 1
            continue
        if _indent_of(line) == 0 and line.rstrip().endswith("::"):
            label = " ".join([*(p.strip() for p in paragraph), line.strip()[:-2].strip()]).strip()
            paragraph = []
            i += 1
            block: list[str] = []
            while i < len(lines) and (not lines[i].strip() or _indent_of(lines[i]) > 0):
                block.append(lines[i])
                i += 1
            code = textwrap.dedent("\n".join(block)).strip("\n")
            blocks.append((label, code + "\n"))
            continue
        paragraph.append(line)
        i += 1
    return blocks


def doc_to_markdown(doc: str, heading_level: int = 1, title: str | None = None) -> str:
    """The documentation text of one code as a Markdown page (ends with one newline).

    ``title`` (e.g. ``"RTF101 tf-function-per-call"``) is used when the text has no
    title line of its own.
    """
    own_title, sections = split_sections(doc)
    title = own_title or (title or "")
    match = _TITLE.match(title)
    hashes = "#" * heading_level
    out: list[str] = []
    if match:
        out += [f"{hashes} {match.group(1)} {match.group(2)}".rstrip(), ""]
    elif title:
        out += [f"{hashes} {_inline(title)}", ""]
    for heading, body in sections:
        if heading:
            out += [f"{hashes}# {heading.rstrip(':')}", ""]
        out += _body_to_markdown(body)
    while out and not out[-1].strip():
        out.pop()
    return "\n".join(out) + "\n"


def _plain_code(match: re.Match) -> str:
    content = match.group(1)
    return content if "`" in content else f"`{content}`"  # code that quotes code reads best bare


def doc_to_text(doc: str) -> str:
    """The documentation of one code as plain text (what ``explain`` prints into a pipe).

    The page keeps its shape; inline code loses one of its two backticks
    (````x```` → `` `x` ``, Sphinx roles likewise; code that holds backticks
    itself loses both) and a paragraph ending in
    ``::`` ends in ``:``.  Literal blocks are left exactly as written.
    """
    out: list[str] = []
    prose: list[str] = []
    literal_indent: int | None = None  # indentation of the paragraph that opened a literal block

    def flush() -> None:
        if prose:
            text = _ROLE.sub(r"``\1``", "\n".join(prose))
            out.extend(_INLINE.sub(_plain_code, text).split("\n"))
            prose.clear()

    for line in doc.strip("\n").splitlines():
        if literal_indent is not None:
            if not line.strip() or _indent_of(line) > literal_indent:
                out.append(line.rstrip())
                continue
            literal_indent = None
        if line.rstrip().endswith("::"):
            literal_indent = _indent_of(line)
            lead = line.rstrip()[:-2].rstrip()
            if lead:
                prose.append(lead + ":")
            flush()
            continue
        prose.append(line.rstrip())
    flush()
    while out and not out[-1]:
        out.pop()
    return "\n".join(out) + "\n"


__all__ = ["doc_to_markdown", "doc_to_text", "literal_blocks", "split_sections"]
