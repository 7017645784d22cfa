"""gitignore-style patterns that never crash and never stall a run.

pathspec translates each line into a regular expression with git's semantics
(``GitIgnoreSpecPattern``); this module compiles each expression with RE2
(``google-re2``), which matches in time linear in the name's length: a line
such as ``*a*a*a*a*a*a*a*a*b`` against a 60-character name took over 100 s
with Python's backtracking ``re``, and takes microseconds here.  Patterns are
kept one by one (not as one ``re2.Set``, whose compilation fails past a memory
budget for a long ``.gitignore``), and the last matching pattern decides as in
pathspec's ``GitIgnoreSpec``.

A line git cannot use (``!``, a trailing ``\\``, ``[z-a]``) or one too large
for RE2 is skipped, as git skips it, and named in :attr:`IgnorePatterns.problems`:
the caller reports it (a root's ``.gitignore``) or refuses it
(``--exclude``, ``[tool.retrace-fix] exclude``: :func:`check_patterns`).
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass, field
from typing import Any, Iterable

#: pathspec's name for the group that marks a directory match (``foo/`` matching ``foo/bar``)
_DIR_MARK = "ps_d"
#: longest pattern line looked at (longer lines are reported and skipped)
MAX_PATTERN_CHARS = 4096


@dataclass
class IgnorePatterns:
    """Compiled patterns of one source (a ``.gitignore`` file or a list of excludes)."""

    #: (include, compiled) in file order; include False for a negated ``!pattern``
    patterns: list[tuple[bool, Any]] = field(default_factory=list)
    #: "line N: `pattern`: reason" for every line skipped
    problems: list[str] = field(default_factory=list)

    def match_file(self, name: str) -> bool:
        """Is ``name`` (``a/b.py``, or ``a/b/`` for a directory) ignored?

        The rule of pathspec's ``GitIgnoreSpec``: the last matching pattern wins,
        except that a file pattern beats a directory pattern, and an including
        directory pattern beats an earlier file pattern.
        """
        include: bool | None = None
        priority = 0
        for pattern_include, regex in self.patterns:
            match = regex.search(name)  # as pathspec: most translations are anchored with ^, a few not
            if match is None:
                continue
            dir_mark = match.groupdict().get(_DIR_MARK)
            this_priority = 1 if dir_mark else 2
            if (pattern_include and dir_mark) or this_priority >= priority:
                include, priority = pattern_include, this_priority
        return bool(include)


#: without RE2 (an install with ``--no-deps``), a line with more ``*`` than this is refused: Python's
#: ``re`` backtracks, and each further star multiplies the time by the name's length
FALLBACK_MAX_STARS = 3


def _compile(regex: str, line: str) -> Any:
    """RE2 (linear time); Python's ``re`` when google-re2 is missing, for lines with few stars."""
    try:
        import re2
    except ImportError:  # pragma: no cover - google-re2 is a dependency
        if line.count("*") > FALLBACK_MAX_STARS:
            raise ValueError(f"more than {FALLBACK_MAX_STARS} `*` need google-re2 (pip install google-re2)") from None
        return re.compile(regex)
    options = re2.Options()
    options.log_errors = False
    return re2.compile(regex, options)


def compile_patterns(lines: Iterable[str]) -> IgnorePatterns:
    """Compile gitignore lines; bad lines are skipped and named in ``problems``."""
    from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern

    result = IgnorePatterns()
    for number, line in enumerate(lines, 1):
        shown = line if len(line) <= 80 else line[:77] + "..."
        if len(line) > MAX_PATTERN_CHARS:
            result.problems.append(f"line {number}: `{shown}`: longer than {MAX_PATTERN_CHARS} characters (skipped)")
            continue
        try:
            with warnings.catch_warnings():  # re's FutureWarning about `[[` is not the user's business
                warnings.simplefilter("ignore")
                pattern = GitIgnoreSpecPattern(line)
            if pattern.include is None:  # blank line or comment
                continue
            regex = pattern.regex.pattern
            if isinstance(regex, bytes):  # pragma: no cover - lines are str
                regex = regex.decode("utf-8", "surrogateescape")
            compiled = _compile(regex, line)
        except Exception as exc:  # GitIgnorePatternError, re.error, re2.error: git ignores such a line
            reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            result.problems.append(f"line {number}: `{shown}`: invalid pattern ({reason}; skipped, as git does)")
            continue
        result.patterns.append((bool(pattern.include), compiled))
    return result


def check_patterns(patterns: Iterable[str]) -> str | None:
    """The first bad pattern of ``--exclude`` or ``[tool.retrace-fix] exclude``, described; None if all are good."""
    for pattern in patterns:
        problems = compile_patterns([pattern]).problems
        if problems:
            return problems[0].split(": ", 1)[1]
    return None
