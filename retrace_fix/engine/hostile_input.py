"""Hostile input: CPython's verdict on a file, and what must not reach LibCST in this process.

LibCST's native parser recurses once per nesting level on the C stack and memoises
heavily: ~10,000 nested parentheses or ``and`` operands crash the process (SIGSEGV) and
30,000 parentheses exhaust memory.  CPython's own compiler is an order of magnitude
cheaper and refuses (with a SyntaxError, RecursionError or MemoryError) most such input,
so every file goes through it first (:func:`cpython_check`); what it rejects for nesting
is never handed to LibCST, and what remains risky (:func:`risky_for_libcst`: long
``and``/``or`` chains, which CPython keeps flat, huge files; and files CPython rejects
that LibCST might still accept) is parsed in a forked child process
(:mod:`retrace_fix.engine.isolation`), so the worst it can do is fail that one file.
"""

from __future__ import annotations

import ast
import re
import symtable
import warnings
from dataclasses import dataclass

#: how every parse error's message starts
PARSE_ERROR_PREFIX = "cannot parse"

#: CPython messages that mean "nested too deeply": LibCST is never asked.
_NESTING_MESSAGES = ("too many nested parentheses", "too many levels of indentation", "too complex")
#: LibCST nests a chain of boolean operators one level per operand.
_BOOL_OPERATOR = re.compile(rb"\b(?:and|or)\b")
RISKY_BOOL_OPERATORS = 1500
#: files larger than this are parsed in a child process (LibCST needs ~350 bytes of
#: memory and ~10 us per byte of source on large files)
RISKY_SIZE = 2 * 1024 * 1024
#: the most bracket nesting CPython allows; deeper input never reaches LibCST
MAX_BRACKET_DEPTH = 200


@dataclass(frozen=True)
class SyntaxProblem:
    """The first error CPython's compiler reports for a file."""

    line: int
    column: int  # 1-based
    message: str
    #: False when the error is excessive nesting (or NUL bytes): LibCST is not asked
    #: whether it accepts the file anyway
    confirmable: bool = True


def cpython_syntax_problem(text: str) -> SyntaxProblem | None:
    """Check ``text`` with CPython's parser (nothing is executed); None when it is valid."""
    return cpython_check(text)[0]


def cpython_check(text: str, want_tree: bool = False) -> tuple[SyntaxProblem | None, ast.Module | None]:
    """CPython's verdict on ``text``, and its ``ast`` tree when ``want_tree``.

    Without a tree this builds the symbol table only (``symtable``: parser and
    scope analysis, about 5% of a LibCST parse), the cheapest complete check
    CPython offers.
    """
    if "\0" in text:
        nul = text.index("\0")
        line = text.count("\n", 0, nul) + 1
        return SyntaxProblem(line, nul - text.rfind("\n", 0, nul), "source contains a NUL byte", False), None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            if want_tree:
                return None, ast.parse(text)
            symtable.symtable(text, "<retrace-fix>", "exec")
        except SyntaxError as exc:
            message = exc.msg or "invalid syntax"
            nesting = any(m in message for m in _NESTING_MESSAGES)
            return SyntaxProblem(exc.lineno or 1, exc.offset or 1, message, confirmable=not nesting), None
        except (RecursionError, MemoryError):
            return SyntaxProblem(1, 1, "nested too deeply (Python's own parser gives up)", confirmable=False), None
        except Exception as exc:  # pragma: no cover - defensive: ValueError, OverflowError and the like
            return SyntaxProblem(1, 1, f"{type(exc).__name__}: {exc}", confirmable=False), None
    return None, None


def max_bracket_depth(data: bytes) -> int:
    depth = deepest = 0
    for match in re.finditer(rb"[()\[\]{}]", data):
        if match.group() in b"([{":
            depth += 1
            deepest = max(deepest, depth)
        elif depth:
            depth -= 1
    return deepest


def risky_for_libcst(data: bytes) -> bool:
    """Would parsing these (CPython-valid) bytes in this process risk a crash or huge memory?"""
    if len(data) > RISKY_SIZE:
        return True
    if data.count(b"and") + data.count(b"or") < RISKY_BOOL_OPERATORS:  # cheap upper bound
        return False
    return sum(1 for _ in _BOOL_OPERATOR.finditer(data)) >= RISKY_BOOL_OPERATORS


def syntax_error_message(display: str, problem: SyntaxProblem) -> str:
    return f"{display}:{problem.line}:{problem.column}: {PARSE_ERROR_PREFIX}: {problem.message}"

