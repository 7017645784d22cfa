"""gitignore-style patterns that never crash and never stall a run.

pathspec translates each line into a regular expression with git's semantics
(``GitIgnoreSpecPattern.pattern_to_regex``); this module compiles each
expression with RE2 (``google-re2``), which matches in time linear in the
name's length: a line such as ``*a*a*a*a*a*a*a*a*b`` against a 60-character
name took over 100 s with Python's backtracking ``re``, and takes
microseconds here.  The last matching pattern decides, as in pathspec's
``GitIgnoreSpec`` (a file pattern beats a directory pattern).

A long ``.gitignore`` must not stall the run either: which patterns match a
name is first asked of ``re2.Set`` objects of at most :data:`SET_SIZE`
patterns each (one pass over the name per set, where a pattern-by-pattern
search costs each pattern), and only those are searched for pathspec's
directory mark.  A set that RE2 cannot compile within its memory budget is
split; a pattern that fits in none is searched on its own.  At most
:data:`MAX_PATTERNS` lines of one source are used (the rest are reported).

A line git cannot use (``!``, a trailing ``\\``, ``[z-a]``) or one too large
for RE2 is skipped, as git skips it, and named in :attr:`IgnorePatterns.problems`:
the caller reports it (a root's ``.gitignore``) or refuses it
(``--exclude``, ``[tool.retrace-fix] exclude``: :func:`check_patterns`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

#: pathspec's name for the group that marks a directory match (``foo/`` matching ``foo/bar``)
_DIR_MARK = "ps_d"
#: longest pattern line looked at (longer lines are reported and skipped)
MAX_PATTERN_CHARS = 4096
#: pattern lines of one source used at most (a .gitignore of 10,000 patterns is far beyond real ones)
MAX_PATTERNS = 10_000
#: patterns per ``re2.Set`` (small sets keep RE2's DFA small: no memory bail-out while matching)
SET_SIZE = 256
#: without RE2 (an install with ``--no-deps``), a line with more ``*`` than this is refused: Python's
#: ``re`` backtracks, and each further star multiplies the time by the name's length
FALLBACK_MAX_STARS = 3


@dataclass
class IgnorePatterns:
    """Compiled patterns of one source (a ``.gitignore`` file or a list of excludes)."""

    #: (include, compiled) in file order; include False for a negated ``!pattern``
    patterns: list[tuple[bool, Any]] = field(default_factory=list)
    #: "line N: `pattern`: reason" for every line skipped
    problems: list[str] = field(default_factory=list)
    #: (re2.Set, the indices of ``patterns`` it holds) - a prefilter; empty without RE2
    _sets: list[tuple[Any, list[int]]] = field(default_factory=list, repr=False)
    #: indices of ``patterns`` no set holds: always searched
    _alone: list[int] = field(default_factory=list, repr=False)

    def match_file(self, name: str) -> bool:
        """Is ``name`` (``a/b.py``, or ``a/b/`` for a directory) ignored?"""
        return bool(self.decision(name))

    def decision(self, name: str) -> bool | None:
        """What these patterns say of ``name``: True ignored, False re-included by a ``!pattern``,
        None when no pattern matches it (a ``.gitignore`` higher up then decides).

        The rule of pathspec's ``GitIgnoreSpec``: the last matching pattern wins,
        except that a file pattern beats a directory pattern, and an including
        directory pattern beats an earlier file pattern.
        """
        name = without_surrogates(name)
        include: bool | None = None
        priority = 0
        for index in self._candidates(name):
            pattern_include, regex = self.patterns[index]
            match = regex.search(name)  # as pathspec: most translations are anchored with ^, a few not
            if match is None:
                continue
            dir_mark = match.groupdict().get(_DIR_MARK)
            this_priority = 1 if dir_mark else 2
            if (pattern_include and dir_mark) or this_priority >= priority:
                include, priority = pattern_include, this_priority
        return include

    def _candidates(self, name: str) -> Sequence[int]:
        """Indices of the patterns that may match ``name``, in file order."""
        if not self._sets:
            return self._alone
        found = list(self._alone)
        for regex_set, indices in self._sets:
            found += [indices[i] for i in regex_set.Match(name) or ()]
        return sorted(found)


_SURROGATES = re.compile("[\ud800-\udfff]")


def without_surrogates(text: str) -> str:
    """``text`` with each lone surrogate (an undecodable byte of a file name, kept by Python's
    ``surrogateescape``) moved to a private-use character of plane 15: RE2 takes only UTF-8,
    and patterns and names are moved alike, so a Latin-1 name still meets its Latin-1 pattern."""
    if not _SURROGATES.search(text):
        return text
    return _SURROGATES.sub(lambda m: chr(0xF0000 + ord(m.group()) - 0xD800), text)


def _re2():
    try:
        import re2
    except ImportError:  # pragma: no cover - google-re2 is a dependency
        return None
    return re2


def _compile(regex: str, line: str) -> Any:
    """RE2 (linear time); Python's ``re`` when google-re2 is missing, for lines with few stars."""
    re2 = _re2()
    if re2 is None:  # pragma: no cover - google-re2 is a dependency
        if line.count("*") > FALLBACK_MAX_STARS:
            raise ValueError(f"more than {FALLBACK_MAX_STARS} `*` need google-re2 (pip install google-re2)")
        return re.compile(regex)
    options = re2.Options()
    options.log_errors = False
    return re2.compile(regex, options)


def _build_sets(result: IgnorePatterns, regexes: list[str]) -> None:
    """Group the patterns into compiled ``re2.Set`` prefilters (split where RE2's budget is exceeded)."""
    re2 = _re2()
    if re2 is None:  # pragma: no cover - google-re2 is a dependency
        result._alone = list(range(len(regexes)))
        return
    options = re2.Options()
    options.log_errors = False
    options.never_capture = True  # a set reports which patterns match, never groups

    def add(indices: list[int]) -> None:
        regex_set = re2.Set.SearchSet(options)
        try:
            for index in indices:
                regex_set.Add(regexes[index])
            regex_set.Compile()
        except Exception:  # over RE2's memory budget: halve, down to patterns searched alone
            if len(indices) == 1:
                result._alone.append(indices[0])
                return
            half = len(indices) // 2
            add(indices[:half])
            add(indices[half:])
            return
        result._sets.append((regex_set, indices))

    for start in range(0, len(regexes), SET_SIZE):
        add(list(range(start, min(start + SET_SIZE, len(regexes)))))
    result._alone.sort()


def _reason(exc: Exception) -> str:
    """One line saying what is wrong with a pattern (re2 gives bytes)."""
    message = exc.args[0] if len(exc.args) == 1 else str(exc)
    if isinstance(message, bytes):
        message = message.decode("utf-8", "replace")
    message = str(message).strip()
    return message.splitlines()[0] if message else type(exc).__name__


def compile_patterns(lines: Iterable[str]) -> IgnorePatterns:
    """Compile gitignore lines; bad lines are skipped and named in ``problems``."""
    from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern

    result = IgnorePatterns()
    regexes: list[str] = []
    for number, line in enumerate(lines, 1):
        shown = line if len(line) <= 80 else line[:77] + "..."
        if len(regexes) >= MAX_PATTERNS:
            result.problems.append(f"line {number}: more than {MAX_PATTERNS} patterns: this line and the rest not used")
            break
        if len(line) > MAX_PATTERN_CHARS:
            result.problems.append(f"line {number}: `{shown}`: longer than {MAX_PATTERN_CHARS} characters (skipped)")
            continue
        try:
            regex, include = GitIgnoreSpecPattern.pattern_to_regex(without_surrogates(line))
            if include is None or regex is None:  # blank line or comment
                continue
            if isinstance(regex, bytes):  # pragma: no cover - lines are str
                regex = regex.decode("utf-8", "surrogateescape")
            compiled = _compile(regex, line)
        except Exception as exc:  # GitIgnorePatternError, re2.error, re.error: git ignores such a line
            reason = _reason(exc)
            result.problems.append(f"line {number}: `{shown}`: invalid pattern ({reason}; skipped, as git does)")
            continue
        result.patterns.append((bool(include), compiled))
        regexes.append(regex)
    _build_sets(result, regexes)
    return result


def check_patterns(patterns: Iterable[str]) -> str | None:
    """The first bad pattern of ``--exclude`` or ``[tool.retrace-fix] exclude``, described; None if all are good."""
    for pattern in patterns:
        problems = compile_patterns([pattern]).problems
        if problems:  # refused, not skipped: the run stops before it starts
            return problems[0].split(": ", 1)[1].replace("; skipped, as git does)", ")").replace(" (skipped)", "")
    return None
