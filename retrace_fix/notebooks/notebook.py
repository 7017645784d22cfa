"""Jupyter notebooks as Python sources: one text for the engine, and the way back.

A notebook (``.ipynb``, nbformat 4) is read as one module: its code cells, in
order, joined into one Python text -- names defined in one cell are seen in the
next, as in a kernel.  IPython syntax is masked line for line with placeholders
the rewriter never touches, and restored byte for byte afterwards:

* line magics (``%matplotlib inline``, ``%timeit f(x)``), shell lines
  (``!pip install x``), help (``obj?``, ``obj??``, ``?obj``), and their assigned
  forms (``files = !ls``, ``t = %timeit -o f()``), continuation lines included;
  automagics (``pip install x``, ``ls data/``: a magic's name without ``%``);
* a cell whose first line is indented: IPython takes that indentation off every
  line, and so does the text here (it is put back on the lines a fix writes);
* a cell magic on a cell's first line: the body of ``%%time``, ``%%timeit``,
  ``%%capture``, ``%%prun`` ... is Python (the magic line is masked); cells of
  ``%%bash``, ``%%writefile``, ``%%html`` and the other known non-Python cell
  magics are left out of the text and never changed.

A code cell that cannot be read as Python -- it does not parse even with its
IPython syntax masked (an exercise left unfinished, R pasted in), or it starts
with a cell magic this module does not know -- is left out of the text too and
named in :attr:`Notebook.broken`: the other cells are still read as one module,
but the notebook is an error of its run and is never written.  Only a file that is
no notebook at all (bad JSON, an nbformat other than 4, cells that are not cells)
raises :class:`NotebookError`: nothing of it can be read.

A line is masked only where CPython rejects it: ``%`` continuing a bracketed
expression, or a ``?`` inside a string, stays Python.  Each cell's last line
ends with a comment naming the cell (``  # __rtf_cell_3__``; a comment can end
any complete cell): the fixed text is cut back into cells there, so that a cell's
lines stay in their cell whatever the fixes do around them, identical lines in
other cells included.

:class:`Notebook` holds the text and the line map: a line of the text back to its
cell (1-based among all cells, as ruff and Jupyter count them) and its line in
the cell (:meth:`Notebook.locate`); :meth:`Notebook.fixed_text` turns a fixed
Python text back into the notebook's JSON.  Writing changes only the ``source``
of the code cells that changed, spliced into the file's own JSON text: outputs,
execution counts, metadata, key order, indentation, escapes and the final
newline stay as they were, and ``source`` keeps its form (a list of lines or one
string).  A notebook nothing changes in is never re-serialised.

:func:`cell_diff` shows the change per cell, headed ``path:cell N`` (ruff's form).
Only the standard library is needed: a changed notebook differs from its file only in
the new ``source`` values, each read back before it is written (:func:`splice_sources`),
so a notebook ``nbformat`` finds valid stays valid.
"""

from __future__ import annotations

import ast
import difflib
import json
import re
import warnings
from dataclasses import dataclass, field
from json.decoder import scanstring

from retrace_fix.patch.diffs import labelled_diff
from retrace_fix.linemap import source_lines

SUFFIX = ".ipynb"
#: the Jupyter front ends' checkpoint copies: never sources of their own
CHECKPOINTS_DIR = ".ipynb_checkpoints"

#: cell magics whose body is Python run in the kernel's namespace
PYTHON_CELL_MAGICS = frozenset({"time", "timeit", "capture", "prun", "debug", "tensorflow_version"})
#: cell magics whose body is not Python for this kernel (another language, a file, a subprocess)
OTHER_CELL_MAGICS = frozenset({
    "bash", "sh", "script", "sx", "system", "shell", "writefile", "file", "html", "HTML", "javascript", "js",
    "latex", "markdown", "svg", "perl", "ruby", "python", "python2", "python3", "pypy", "sql", "R", "bigquery",
    "cython", "octave", "matlab", "julia", "dot", "mermaid", "ai", "gemini", "cmd", "powershell", "pyspark",
    "spark", "sparksql", "configure", "local", "info", "help", "cleanup", "memit", "heat", "manim",
})

_PLACEHOLDER = "__rtf_ipy_{}__"
_PLACEHOLDER_RE = re.compile(r"^([ \t]*)(?:(.*?) = )?__rtf_ipy_(\d+)__(\r\n|\r|\n)?$")
_RESERVED = "__rtf_"
#: the comment that ends each cell's last line in the text: where a fixed text is cut back into cells
_CELL_END = "  # __rtf_cell_{}__"
_CELL_END_RE = re.compile(r"  # __rtf_cell_(\d+)__(\r\n|\r|\n)?$")
#: a line that may be IPython syntax (CPython decides: only lines it rejects are masked)
#: magics IPython runs without their ``%`` (automagic, on by default) and the shell commands it aliases
_AUTOMAGIC = (
    "alias|bookmark|cat|cd|clear|conda|cp|dhist|dirs|env|history|ldir|less|lf|lk|ll|load_ext|ls|lx|mamba|man|"
    "matplotlib|mkdir|more|mv|pinfo|pip|popd|pushd|pwd|reload_ext|reset|rm|rmdir|run|sx|system|tensorflow_version|"
    "time|timeit|unalias|who|whos"
)
_CANDIDATE = re.compile(
    r"^[ \t]*(?:[%!?]|.*\?[ \t]*$)"
    r"|^[ \t]*[A-Za-z_][\w.]*(?:[ \t]*,[ \t]*[A-Za-z_][\w.]*)*[ \t]*=[ \t]*[!%]"
    rf"|^[ \t]*(?:{_AUTOMAGIC})\b"
)
#: a candidate line CPython is likely to reject (the forms of :data:`_CANDIDATE` less an automagic
#: name followed by what Python allows after a name: ``time.sleep(1)``, ``run(x)``, ``env = {}``).
#: Only a guess of how many times a cell is compiled (:func:`_mask_cell`'s ``defer``), never of what is masked
_LIKELY = re.compile(
    r"^[ \t]*(?:[%!?]|.*\?[ \t]*$)"
    r"|^[ \t]*[A-Za-z_][\w.]*(?:[ \t]*,[ \t]*[A-Za-z_][\w.]*)*[ \t]*=[ \t]*[!%]"
    rf"|^[ \t]*(?:{_AUTOMAGIC})(?:[ \t]*$|[ \t]+(?=[^ \t=(\[,:)#.\r\n]|\.[^A-Za-z_]))"
)
#: the two, searched over a whole cell at once (:func:`_any_line`)
_MULTILINE = {pattern: re.compile(pattern.pattern, re.MULTILINE) for pattern in (_CANDIDATE, _LIKELY)}
_ASSIGNED = re.compile(r"^([ \t]*)([A-Za-z_][\w.]*(?:[ \t]*,[ \t]*[A-Za-z_][\w.]*)*)[ \t]*=[ \t]*[!%]")
_CELL_MAGIC = re.compile(r"^%%([A-Za-z_][\w-]*|!)")
#: most masking rounds for one cell (each masks at least one line)
_MAX_ROUNDS = 10_000


class NotebookError(ValueError):
    """A notebook that cannot be read, or whose fix cannot be written back.

    ``cell`` is the 1-based cell it is about (None: the whole file), ``line`` the line in it.
    """

    def __init__(self, message: str, cell: int | None = None, line: int = 1, column: int = 1) -> None:
        super().__init__(message)
        self.message, self.cell, self.line, self.column = message, cell, line, column

    def location(self, path: str) -> str:
        if self.cell is None:  # a line of the file (its JSON)
            return f"{path}:{self.line}" + (f":{self.column}" if self.line > 1 or self.column > 1 else "")
        return f"{path}:cell {self.cell}:{self.line}:{self.column}"


def is_notebook(path: str) -> bool:
    return str(path).endswith(SUFFIX)


@dataclass
class _CodeCell:
    index: int  # 0-based among all cells
    source: str  # exactly as in the notebook
    text: str  # masked, ending with a line end (empty for an empty cell)
    start: int  # its first line in the notebook's text (1-based)
    added_newline: bool  # the notebook's source has no final line end; the text has one
    #: masked lines: placeholder number -> (the placeholder's indent, the original line without its end)
    masks: dict[int, tuple[str, str]] = field(default_factory=dict)
    #: the indentation IPython strips from a cell whose first line is indented (every line that has it)
    indent: str = ""

    @property
    def line_count(self) -> int:
        return len(source_lines(self.text))

    @property
    def number(self) -> int:
        return self.index + 1


@dataclass
class Notebook:
    """A notebook read as one Python text (``python``), with the way back to its cells and JSON."""

    json_text: str
    cells: list  # the parsed ``cells`` (JSON values)
    code: list[_CodeCell]
    python: str
    #: code cells that cannot be read as Python (they do not parse even with IPython syntax masked: an
    #: unfinished exercise, R pasted in a Python notebook; or an unknown cell magic), one NotebookError
    #: each: left out of ``python`` so the other cells are still read; the notebook is an error of its
    #: run and is never written
    broken: list = field(default_factory=list)
    #: CPython's tree of :attr:`python` (``ast.parse``) where reading the notebook made it, else None
    tree: object = field(default=None, repr=False, compare=False)

    def require_every_cell(self, cell: int | None = None) -> "Notebook":
        """This notebook, after raising the NotebookError of its first cell left out (of ``cell`` only,
        when given): where every cell must be Python, as in a notebook about to be written."""
        for error in self.broken:
            if cell is None or error.cell == cell:
                raise error
        return self

    def locate(self, line: int) -> tuple[int, int]:
        """(cell number, line in the cell) of a 1-based line of :attr:`python`."""
        owner = None
        for cell in self.code:
            if cell.start > line:
                break
            owner = cell
        if owner is None:
            return (self.code[0].number if self.code else 1), line
        return owner.number, line - owner.start + 1

    def fixed_text(self, fixed_python: str, validate: bool = True) -> str:
        """The notebook's JSON text with the cells of ``fixed_python`` spliced in (raises NotebookError).

        ``validate``: each new ``source`` must read back as the cell's new source, a string or a
        list of strings (:func:`splice_sources`); nothing else of the file changes, so a notebook
        ``nbformat`` finds valid stays valid (its schema asks of a source just that), and
        ``nbformat`` is not run.
        """
        if fixed_python == self.python:
            return self.json_text
        sources = self._split(fixed_python)
        changed = {}
        for cell in self.code:
            new_source = self._unmask(cell, sources[cell.index])
            if new_source != cell.source:
                changed[cell.index] = new_source
        if not changed:
            return self.json_text
        return splice_sources(self.json_text, changed, check=validate)

    def _split(self, fixed_python: str) -> dict[int, str]:
        """``fixed_python`` cut into the code cells it came from, at the comment that ends each cell's
        last line (a cell's lines stay in their cell whatever a fix does around them; lines a fix adds
        after a cell's last line belong to the next cell)."""
        parts: dict[int, list[str]] = {cell.index: [] for cell in self.code}
        expected = iter([cell for cell in self.code if cell.text])  # an empty cell has no line to mark
        current = next(expected, None)
        for line in source_lines(fixed_python):
            if current is None:  # after the last cell's end
                parts[self.code[-1].index].append(line)
                continue
            parts[current.index].append(line)
            end = _CELL_END_RE.search(line)
            if end is None:
                continue
            if int(end.group(1)) != current.index:
                raise NotebookError("a fix moved code between cells; notebook left unchanged", cell=current.number)
            parts[current.index][-1] = line[:end.start()] + (end.group(2) or "")
            current = next(expected, None)
        if current is not None:
            raise NotebookError("a fix changed the end of the cell; notebook left unchanged", cell=current.number)
        return {index: "".join(lines) for index, lines in parts.items()}

    def _unmask(self, cell: _CodeCell, text: str) -> str:
        lines = source_lines(text)
        seen: set[int] = set()
        for number, line in enumerate(lines):
            match = _PLACEHOLDER_RE.match(line)
            if match is None:
                continue
            key = int(match.group(3))
            if key not in cell.masks or key in seen:
                raise NotebookError(
                    "a fix moved IPython syntax between cells; notebook left unchanged", cell=cell.number,
                    line=number + 1,
                )
            seen.add(key)
            indent, original = cell.masks[key]
            if original.startswith(indent):  # where a fix moved it, with the indentation it has there
                original = match.group(1) + original[len(indent):]
            lines[number] = original + (match.group(4) or "")
        missing = set(cell.masks) - seen
        if missing:
            raise NotebookError("a fix removed IPython syntax; notebook left unchanged", cell=cell.number)
        if cell.indent:
            lines = _reindent(cell, lines)
        restored = "".join(lines)
        if cell.added_newline and restored.endswith("\n"):
            restored = restored[:-1]
        return restored

    def column_offset(self, line: int) -> int:
        """What to add to a column of line ``line`` of :attr:`python` for the column in its cell
        (the indentation IPython took off an indented cell)."""
        cell_number, in_cell = self.locate(line)
        for cell in self.code:
            if cell.number == cell_number and cell.indent:
                raw = source_lines(cell.source)
                if 0 < in_cell <= len(raw) and raw[in_cell - 1].startswith(cell.indent):
                    return len(cell.indent)
        return 0


def _reindent(cell: _CodeCell, lines: list[str]) -> list[str]:
    """A dedented cell's new lines with the cell's indentation put back: an unchanged line is
    the notebook's line, a new one gets the indentation (blank lines stay blank)."""
    raw = source_lines(cell.source)
    dedented, _ = _dedent(cell.source)
    if cell.added_newline and dedented and not dedented[-1].endswith(("\n", "\r")):
        dedented[-1] += "\n"
        raw[-1] += "\n"
    out: list[str] = []
    matcher = difflib.SequenceMatcher(None, dedented, lines, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            out.extend(raw[i1:i2])
        elif tag == "replace" and i2 - i1 == j2 - j1:  # line for line: each keeps whether it was indented
            out.extend(cell.indent + line if line.strip() and raw[i].startswith(cell.indent) else line
                       for i, line in zip(range(i1, i2), lines[j1:j2]))
        else:
            out.extend(cell.indent + line if line.strip() else line for line in lines[j1:j2])
    return out


# --------------------------------------------------------------------------- reading


def language(json_text: str) -> str | None:
    """The language of a notebook's kernel, as its metadata names it (None: not said)."""
    try:
        document = json.loads(json_text)
    except (ValueError, RecursionError):
        return None
    return document_language(document)


def document_language(document: object) -> str | None:
    """:func:`language` of a notebook's JSON already read (``json.loads``)."""
    try:
        metadata = document.get("metadata") or {}  # type: ignore[union-attr]
        values = ((metadata.get("kernelspec") or {}).get("language"), (metadata.get("language_info") or {}).get("name"))
    except AttributeError:
        return None
    for value in values:
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def is_python_notebook(json_text: str) -> bool:
    """Does the notebook run Python (its kernel's language is Python, or not said)?"""
    return is_python_language(language(json_text))


def is_python_language(name: str | None) -> bool:
    """Is a kernel's language (:func:`language`, None: not said) Python?"""
    return name is None or name.lower() in ("python", "python3", "ipython", "ipython3")


@dataclass(frozen=True)
class Document:
    """A notebook's JSON read once (:func:`load_document`): what reading it goes on from."""

    json_text: str
    cells: list
    #: the language of its kernel (:func:`document_language`; None: not said)
    language: str | None

    def code_source_bytes(self) -> bytes:
        """The code cells' sources, one after another (a line end between two), in UTF-8: all of the
        notebook that can become Python (outputs, images and markdown are not)."""
        return "\n".join(source for _cell, source in cell_sources(self.cells)).encode("utf-8", "surrogatepass")


def load_document(data: bytes | str) -> Document:
    """A notebook's bytes or text read as JSON and checked to be nbformat 4 (every code cell's
    source a string or strings); raises NotebookError."""
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise NotebookError(f"cannot decode: not UTF-8 ({exc.reason} at byte {exc.start})") from None
    else:
        text = data
    try:
        document = json.loads(text)
    except ValueError as exc:
        if isinstance(exc, json.JSONDecodeError):
            raise NotebookError(f"cannot read the notebook: not valid JSON: {exc.msg}", line=exc.lineno,
                                column=exc.colno) from None
        raise NotebookError(f"cannot read the notebook: not valid JSON: {exc}") from None
    except RecursionError:
        raise NotebookError("cannot read the notebook: its JSON is nested too deeply") from None
    if not isinstance(document, dict):
        raise NotebookError("cannot read the notebook: its JSON is not an object")
    version = document.get("nbformat")
    if version != 4:
        if isinstance(version, int) and not isinstance(version, bool) and version < 4:
            raise NotebookError(
                f"nbformat {version} notebooks are not supported; convert it first "
                "(jupyter nbconvert --to notebook --nbformat 4)"
            )
        raise NotebookError(f"cannot read the notebook: nbformat {version!r} is not 4")
    cells = document.get("cells")
    if not isinstance(cells, list):
        raise NotebookError("cannot read the notebook: it has no list of cells")
    for index, cell in enumerate(cells):
        if not isinstance(cell, dict):
            raise NotebookError("cannot read the cell: not a JSON object", cell=index + 1)
        if cell.get("cell_type") == "code":
            join_source(cell.get("source", ""), index + 1)
    return Document(text, cells, document_language(document))


def read_notebook(data: bytes | str, document: Document | None = None) -> Notebook:
    """The notebook in ``data`` (its file's bytes or text) as one Python text; raises NotebookError.

    ``document``: the same bytes already read (:func:`load_document`), not read again.

    A cell with IPython syntax is compiled until it parses, one line masked per round
    (:func:`_mask_cell`); the round that would only confirm it (no line left that CPython is
    likely to reject) is left to the check of all cells at once (:func:`_joined_tree`), which
    shows every cell parses alone.  Where that check fails, the notebook is read again with
    every such cell compiled to the end: the result is the same either way, most notebooks
    are compiled once less per cell with a magic.
    """
    if document is None:
        document = load_document(data)
    return _read(document, defer=True) or _read(document, defer=False)


def _read(document: Document, defer: bool) -> Notebook | None:
    """:func:`read_notebook`; None when ``defer`` left a cell unconfirmed that the joined check does not confirm."""
    text, cells = document.json_text, document.cells
    masked_cells: list[tuple[int, str, str, dict, str]] = []  # (index, source, masked text, masks, indent)
    broken: list[NotebookError] = []
    unchecked: set[int] = set()  # cells not compiled to the end: checked all at once (_joined_tree)
    deferred = False  # a cell with IPython syntax among them
    masks = _Counter()
    for index, cell in enumerate(cells):
        if cell.get("cell_type") != "code":
            continue
        source = join_source(cell.get("source", ""), index + 1)
        try:
            if _RESERVED in source:
                raise NotebookError(f"the cell holds the name {_RESERVED}..., which retrace-fix reserves",
                                    cell=index + 1)
            masked = _mask_cell(source, index + 1, masks, check=False, defer=defer)
        except NotebookError as exc:  # this cell cannot be read as Python: the others still are
            broken.append(exc)
            continue
        if masked is None:  # a cell magic whose body is not Python
            continue
        masked_text, cell_masks, indent, checked = masked
        if checked is None:
            deferred = True
        if not checked:
            unchecked.add(index)
        masked_cells.append((index, source, masked_text, cell_masks, indent))
    code = _code_cells(masked_cells)
    python = "".join(cell.text for cell in code)
    tree = _joined_tree(python, code) if unchecked else None
    if deferred and tree is None:  # a cell compiled short of the end may need more masking: to the end
        return None
    if unchecked and tree is None:  # some cell may not be Python alone: each is checked on its own
        kept = []
        for entry in masked_cells:
            index = entry[0]
            if index in unchecked:
                try:
                    _check_syntax(entry[2], index + 1)
                except NotebookError as exc:
                    broken.append(exc)
                    continue
            kept.append(entry)
        if len(kept) < len(masked_cells):
            code = _code_cells(kept)
            python = "".join(cell.text for cell in code)
        broken.sort(key=lambda error: error.cell or 0)
    return Notebook(text, cells, code, python, broken, tree=tree)


def _code_cells(masked_cells: list[tuple[int, str, str, dict, str]]) -> list[_CodeCell]:
    """The code cells of the notebook's text, one after another, each cell's last line marked."""
    code: list[_CodeCell] = []
    line = 1
    for index, source, masked_text, cell_masks, indent in masked_cells:
        added = bool(masked_text) and not masked_text.endswith(("\n", "\r"))
        if added:
            masked_text += "\n"
        count = 0
        if masked_text:  # the cell's end, marked on its last line (a comment ends any complete cell)
            lines = source_lines(masked_text)
            count = len(lines)
            body = lines[-1].rstrip("\r\n")
            lines[-1] = body + _CELL_END.format(index) + lines[-1][len(body):]
            masked_text = "".join(lines)
        entry = _CodeCell(index, source, masked_text, line, added, cell_masks, indent)
        line += count  # entry.line_count: the marking comment adds no line
        code.append(entry)
    return code


def _joined_tree(python: str, code: list[_CodeCell]) -> ast.Module | None:
    """CPython's tree of the notebook's text (``ast.parse``, as the engine's prefilter parses a
    file) when it shows that every cell is Python on its own, else None.

    It shows it when the text parses and no statement runs from one cell into the next:
    the tokens of each cell are then those it has alone, at its end no bracket or string
    is open and no block goes on, so the cell parses alone too (``from __future__`` and
    top-level ``await``, which a cell allows and the text may not, make the text fail:
    then each cell is checked alone, as are the cells of a text that does not parse).
    """
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(python)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return None
    # each cell's last line: the line before the next cell's first (the cells follow one another)
    following = [cell.start for cell in code[1:]] + ([code[-1].start + code[-1].line_count] if code else [])
    ends = [after - 1 for cell, after in zip(code, following) if cell.text]
    cell = 0
    for statement in tree.body:
        first = min([statement.lineno, *(d.lineno for d in getattr(statement, "decorator_list", ()))])
        while cell < len(ends) and ends[cell] < first:
            cell += 1
        if cell == len(ends) or (statement.end_lineno or statement.lineno) > ends[cell]:
            return None  # it starts in one cell and ends in another
    return tree


def join_source(source: object, cell: int) -> str:
    """A cell's ``source`` (a string or a list of strings) as one string."""
    if isinstance(source, str):
        return source
    if isinstance(source, list):
        try:
            return "".join(source)  # a part that is no string: TypeError
        except TypeError:
            pass
    raise NotebookError("cannot read the cell: its source is not a string or a list of strings", cell=cell)


class _Counter:
    def __init__(self) -> None:
        self.next = 0

    def take(self) -> int:
        self.next += 1
        return self.next - 1


def _any_line(pattern: re.Pattern, lines: list[str], text: str) -> bool:
    """Does ``pattern`` match at the start of a line of ``lines`` (``text``'s lines)?  One search
    of the text (the pattern compiled with MULTILINE too) where its only line end is LF: a line's
    ``^``/``$`` are then those of the text's lines."""
    if "\r" in text:
        return any(pattern.match(line) for line in lines)
    return _MULTILINE[pattern].search(text) is not None


def _dedent(source: str) -> tuple[list[str], str]:
    """The cell's lines as IPython runs them, and the indentation taken off: a cell whose first
    non-blank line is indented loses that indentation on every line that starts with it."""
    lines = source_lines(source)
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is None:
        return lines, ""
    indent = re.match(r"[ \t]*", lines[first]).group(0)
    if not indent:
        return lines, ""
    return [line[len(indent):] if line.startswith(indent) else line for line in lines], indent


def _mask_cell(
    source: str, number: int, counter: _Counter, check: bool = True, defer: bool = False,
) -> tuple[str, dict[int, tuple[str, str]], str, bool | None] | None:
    """(the cell's text with IPython lines masked, the masks, the indentation taken off, whether it
    was compiled); None for a cell that is not Python.  ``check=False``: a cell with no line that
    may be IPython syntax is not compiled here (the caller checks it).  ``defer``: nor is a cell
    once no line is left that CPython is likely to reject (:data:`_LIKELY`): its last round, which
    would confirm it, is the caller's to do (whether compiled is then None)."""
    lines, indent = _dedent(source)
    masks: dict[int, tuple[str, str]] = {}
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is not None:
        magic = _CELL_MAGIC.match(lines[first])
        if magic is not None:
            name = magic.group(1)
            if name in OTHER_CELL_MAGICS or name == "!":
                return None
            if name not in PYTHON_CELL_MAGICS:
                raise NotebookError(
                    f"unknown cell magic %%{name}: retrace-fix cannot tell whether its body is Python",
                    cell=number,
                )
            _mask_lines(lines, first, first + 1, counter, masks)
    text = "".join(lines)
    if not _any_line(_CANDIDATE, lines, text):
        if check:
            _check_syntax(text, number)
        return text, masks, indent, check
    for _ in range(_MAX_ROUNDS):
        text = "".join(lines)
        if defer and not _any_line(_LIKELY, lines, text):
            return text, masks, indent, None
        error = _syntax_error(text)
        if error is None:
            return text, masks, indent, True
        start = _magic_start(lines, error.lineno or 1, masks)
        if start is None:
            _raise_syntax(error, number)
        end = start + 1
        while end < len(lines) and lines[end - 1].rstrip("\r\n").endswith("\\"):
            end += 1  # a magic continued with a backslash takes the next line along
        _mask_lines(lines, start, end, counter, masks)
    raise NotebookError("too much IPython syntax to read", cell=number)  # pragma: no cover


def _magic_start(lines: list[str], error_line: int, masks: dict) -> int | None:
    """The 0-based line of the IPython syntax CPython stumbled on at ``error_line``, if any."""
    index = min(max(error_line - 1, 0), len(lines) - 1)
    for start in range(index, -1, -1):  # the error may sit on a continuation line of the magic
        if _PLACEHOLDER_RE.match(lines[start]):
            return None
        if _CANDIDATE.match(lines[start]):
            return start
        if start == 0 or not lines[start - 1].rstrip("\r\n").endswith("\\"):
            return None
    return None


def _mask_lines(lines: list[str], start: int, end: int, counter: _Counter, masks: dict) -> None:
    indent = re.match(r"[ \t]*", lines[start]).group(0)
    assigned = _ASSIGNED.match(lines[start]) if end == start + 1 else None
    for number in range(start, end):
        line = lines[number]
        body = line.rstrip("\r\n")
        ending = line[len(body):]
        earlier = _PLACEHOLDER_RE.match(line)
        if earlier is not None and int(earlier.group(3)) in masks:  # masked already (as a line of its own)
            body = masks.pop(int(earlier.group(3)))[1]
        key = counter.take()
        masks[key] = (indent, body)
        target = f"{assigned.group(2)} = " if assigned is not None and number == start else ""
        lines[number] = indent + target + _PLACEHOLDER.format(key) + ending


def _syntax_error(text: str) -> SyntaxError | None:
    """CPython's verdict on a cell's text, without a traceback: the error's traceback would hold
    this frame, which holds the error (a cycle), and the frames of its callers with the notebook's
    cells and trees, left to the cyclic collector after every notebook with a magic."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(text, "<cell>", "exec", ast.PyCF_ONLY_AST | ast.PyCF_ALLOW_TOP_LEVEL_AWAIT, dont_inherit=True)
    except SyntaxError as exc:
        return exc.with_traceback(None)
    except (ValueError, RecursionError, MemoryError) as exc:  # null bytes; nesting beyond the parser
        return SyntaxError(str(exc), ("<cell>", 1, 1, ""))
    return None


def _check_syntax(text: str, number: int) -> None:
    error = _syntax_error(text)
    if error is not None:
        _raise_syntax(error, number)


_CANNOT_PARSE = "cannot parse: "


def _raise_syntax(error: SyntaxError, number: int) -> None:
    raise NotebookError(
        f"{_CANNOT_PARSE}{error.msg}", cell=number, line=error.lineno or 1, column=error.offset or 1,
    )


# --------------------------------------------------------------------------- writing


def split_source(text: str) -> list[str]:
    """A source string as nbformat's list of lines (each but the last keeps its ``\\n``)."""
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def splice_sources(json_text: str, sources: dict[int, str], check: bool = False) -> str:
    """``json_text`` with the ``source`` of the cells ``sources`` names (0-based) replaced, nothing else.

    The new value takes the old one's form and layout: a list of lines indented as
    the old list was, an unchanged line written exactly as before; the file's way
    of writing non-ASCII characters (raw or ``\\u`` escapes) is kept.  ``check``: each
    new value is read back (raises NotebookError unless it is the new source, as a
    string or a list of strings); the rest of the text is the file's, byte for byte.
    """
    spans = _source_spans(json_text, sources)
    ascii_only = "\\u" in json_text and not any(ord(ch) > 127 for ch in json_text)
    pieces, last = [], 0
    for index in sorted(sources):
        if index not in spans:
            raise NotebookError("cannot find the cell's source in the file", cell=index + 1)
        start, end = spans[index]
        pieces.append(json_text[last:start])
        rendered = _render(json_text[start:end], sources[index], ascii_only)
        if check and not _reads_back(rendered, sources[index]):
            raise NotebookError("the fixed cell's source does not read back as written; notebook left unchanged",
                                cell=index + 1)
        pieces.append(rendered)
        last = end
    pieces.append(json_text[last:])
    return "".join(pieces)


def _reads_back(rendered: str, source: str) -> bool:
    """Is ``rendered`` the JSON of ``source``, as a string or a list of strings (nbformat's multiline string)?"""
    try:
        value = json.loads(rendered)
    except ValueError:
        return False
    if isinstance(value, list):
        return all(isinstance(line, str) for line in value) and "".join(value) == source
    return value == source


def _render(old: str, source: str, ascii_only: bool) -> str:
    if not old.startswith("["):
        return json.dumps(source, ensure_ascii=ascii_only)
    known: dict[str, str] = {}  # a line's value -> how the file wrote it
    items = _array_items(old)
    for start, end in items:
        known.setdefault(json.loads(old[start:end]), old[start:end])
    lines = split_source(source)
    rendered = [known.get(line) or json.dumps(line, ensure_ascii=ascii_only) for line in lines]
    if not rendered:
        return "[]"
    if items:
        opening = old[1:items[0][0]]
        closing = old[items[-1][1]:-1]
        between = old[items[0][1]:items[1][0]] if len(items) > 1 else "," + opening
    else:  # an empty list in the file: one line per item, indented one step below the brackets
        opening, closing, between = "\n", "\n", ",\n"
    return "[" + opening + between.join(rendered) + closing + "]"


_WS = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


def _skip_ws(text: str, at: int) -> int:
    return _WS.match(text, at).end()


def _skip_value(text: str, at: int) -> int:
    return _DECODER.raw_decode(text, at)[1]


def _object_members(text: str, at: int):
    """(key, value start, value end) of the object starting at ``at``; the object's end comes last as (None, end, end)."""
    assert text[at] == "{"
    at = _skip_ws(text, at + 1)
    if text[at] == "}":
        yield None, at + 1, at + 1
        return
    while True:
        key, at = scanstring(text, at + 1)
        at = _skip_ws(text, at)
        at = _skip_ws(text, at + 1)  # the ':'
        end = _skip_value(text, at)
        yield key, at, end
        at = _skip_ws(text, end)
        if text[at] == "}":
            yield None, at + 1, at + 1
            return
        at = _skip_ws(text, at + 1)  # the ','


def _array_items(text: str, at: int = 0) -> list[tuple[int, int]]:
    """(start, end) of each item of the array starting at ``at``."""
    assert text[at] == "["
    items = []
    at = _skip_ws(text, at + 1)
    if text[at] == "]":
        return items
    while True:
        end = _skip_value(text, at)
        items.append((at, end))
        at = _skip_ws(text, end)
        if text[at] == "]":
            return items
        at = _skip_ws(text, at + 1)


def _source_spans(json_text: str, cells: "set[int] | dict | None" = None) -> dict[int, tuple[int, int]]:
    """(start, end) in ``json_text`` of each cell's ``source`` value, by 0-based cell index (of the
    cells in ``cells`` only, when given: the others are skipped whole, their outputs unread)."""
    spans: dict[int, tuple[int, int]] = {}
    top = _skip_ws(json_text, 0)
    for key, start, _end in _object_members(json_text, top):
        if key != "cells":
            continue
        for index, (cell_start, _cell_end) in enumerate(_array_items(json_text, start)):
            if cells is not None and index not in cells:
                continue
            for cell_key, value_start, value_end in _object_members(json_text, cell_start):
                if cell_key == "source":
                    spans[index] = (value_start, value_end)
    return spans


def source_line_offsets(json_text: str, cell: int) -> list[int]:
    """1-based lines of ``json_text`` where each line of cell ``cell`` (1-based) starts, as far as it can tell.

    A ``source`` written as a list gives one entry per item; as one string, the line of the string.
    """
    spans = _source_spans(json_text, {cell - 1})
    if cell - 1 not in spans:
        return []
    start, end = spans[cell - 1]
    value = json_text[start:end]
    if not value.startswith("["):
        return [json_text.count("\n", 0, start) + 1]
    return [json_text.count("\n", 0, start + item) + 1 for item, _ in _array_items(value)]


def validation_problem(json_text: str) -> str | None:
    """What ``nbformat`` (when installed) finds wrong with a notebook; None when valid or unknown.
    No run calls it (a fixed notebook's new sources are read back instead): it is the oracle of the
    checking tools, the tests and ``benchmarks/corpus.py``."""
    try:
        import nbformat
    except ImportError:
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            nbformat.validate(nbformat.reads(json_text, as_version=nbformat.NO_CONVERT))
    except Exception as exc:  # nbformat.ValidationError and what reading a broken file raises
        return str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return None


# --------------------------------------------------------------------------- diffs


def code_sources(json_text: str) -> list[tuple[int, str]]:
    """(1-based cell number, source) of each code cell of a notebook's JSON text."""
    return cell_sources(json.loads(json_text).get("cells", []))


def cell_sources(cells: list) -> list[tuple[int, str]]:
    """(1-based cell number, source) of each code cell of a notebook's cells (read from its JSON)."""
    return [
        (index + 1, join_source(cell.get("source", ""), index + 1))
        for index, cell in enumerate(cells)
        if isinstance(cell, dict) and cell.get("cell_type") == "code"
    ]


def cell_label(path: str, cell: int) -> str:
    return f"{path}:cell {cell}"


def changed_cells(old_json: str, new_json: str) -> list[tuple[int, str, str]]:
    """(cell number, old source, new source) of each code cell whose source differs."""
    new = dict(code_sources(new_json))
    return [(cell, source, new[cell]) for cell, source in code_sources(old_json) if new.get(cell, source) != source]


def cell_diff(old_json: str, new_json: str, path: str) -> str:
    """A unified diff per changed code cell, each headed ``--- path:cell N`` / ``+++ path:cell N``."""
    out = []
    for cell, old, new in changed_cells(old_json, new_json):
        label = cell_label(path, cell)
        if old and new and not old.endswith("\n") and not new.endswith("\n"):
            old, new = old + "\n", new + "\n"  # Jupyter's last line has no line end: no marker for that
        out.append(labelled_diff(old, new, label, label))
    return "".join(out)


__all__ = [
    "CHECKPOINTS_DIR", "Document", "Notebook", "NotebookError", "SUFFIX", "cell_diff", "cell_label", "changed_cells",
    "code_sources", "is_notebook", "join_source", "load_document", "read_notebook", "source_line_offsets",
    "splice_sources", "split_source", "validation_problem",
]
