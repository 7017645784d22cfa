"""What the runs of ``retrace-fix bench`` wrote, loaded and compared with tolerance.

``--compare PATH`` files (.npy, .npz, .json or text) and ``--compare-stdout
REGEX`` lines: numbers are equal within ``--rtol``/``--atol``, everything else
exactly.
"""

from __future__ import annotations

import difflib
import json
import math
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from retrace_fix.bench import BenchError

_NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|[-+]?(?:nan|inf)\b", re.IGNORECASE)


class OutputError(Exception):
    """An output file that cannot be read or parsed."""


def relative_compare_path(spec: str, project_root: Path, cwd: Path) -> str:
    """A ``--compare`` path as a POSIX path relative to the project root; raises BenchError."""
    path = Path(spec)
    absolute = Path(os.path.normpath(path if path.is_absolute() else cwd / path))
    try:
        return absolute.relative_to(project_root).as_posix()
    except ValueError:
        raise BenchError(f"--compare {spec}: outside the project ({project_root}); name a file the command writes inside it") from None


def load_output(path: Path) -> Any:
    """The value of a results file: .npy → array, .npz → {name: array}, .json → data, else text."""
    suffix = path.suffix.lower()
    if suffix in (".npy", ".npz"):
        try:
            import numpy as np
        except ImportError:  # pragma: no cover - numpy comes with TensorFlow
            raise OutputError(f"{path.name}: reading {suffix} files needs numpy") from None
        try:
            if suffix == ".npy":
                return np.load(path, allow_pickle=False)
            with np.load(path, allow_pickle=False) as archive:
                return {name: archive[name] for name in sorted(archive.files)}
        except (OSError, ValueError) as exc:
            raise OutputError(f"{path.name}: cannot read: {exc}") from None
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise OutputError(f"{path.name}: cannot read: {exc.strerror or exc}") from None
    if suffix == ".json":
        try:
            return json.loads(text)
        except ValueError as exc:
            raise OutputError(f"{path.name}: invalid JSON: {exc}") from None
    if suffix == ".ipynb":
        return notebook_outputs(text, path.name)
    return TextOutput(text)


def notebook_outputs(text: str, name: str = "notebook") -> "TextOutput":
    """What an executed notebook's cells printed and returned, as text: per code cell its standard
    output, its results' and displays' ``text/plain``, and its errors (name and value). Sources,
    execution counts, timings and other metadata are left out: only what the code computed counts."""
    try:
        cells = json.loads(text).get("cells", [])
    except (ValueError, AttributeError) as exc:
        raise OutputError(f"{name}: not a notebook: {exc}") from None
    lines: list[str] = []
    for number, cell in enumerate(cells if isinstance(cells, list) else [], 1):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        lines.append(f"[cell {number}]")
        for output in cell.get("outputs") or []:
            kind = output.get("output_type")
            if kind == "stream" and output.get("name") != "stderr":  # stderr: logs and warnings, not results
                lines.append(_joined(output.get("text", "")))
            elif kind in ("execute_result", "display_data"):
                lines.append(_joined((output.get("data") or {}).get("text/plain", "")))
            elif kind == "error":
                lines.append(f"{output.get('ename', '')}: {output.get('evalue', '')}")
    return TextOutput("\n".join(line.rstrip("\n") for line in lines) + "\n")


def _joined(value: Any) -> str:
    return "".join(value) if isinstance(value, list) else str(value)


class TextOutput(str):
    """Text compared line by line, numbers with tolerance."""


def _close(a: float, b: float, rtol: float, atol: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= atol + rtol * abs(b)


def _same_number(a: str, b: str) -> bool:
    """Two spellings of exactly one value (``1.0`` and ``1.00``; NaN is NaN): no tolerance."""
    x, y = float(a), float(b)
    return x == y or (math.isnan(x) and math.isnan(y))


def compare_text(a: str, b: str, rtol: float, atol: float, where: str = "") -> list[str]:
    """Differences between two texts: same lines, numbers equal within tolerance."""
    lines_a, lines_b = a.splitlines(), b.splitlines()
    if len(lines_a) != len(lines_b):
        return [f"{where or 'text'}: {len(lines_a)} lines before, {len(lines_b)} after"]
    problems = []
    for number, (la, lb) in enumerate(zip(lines_a, lines_b), 1):
        problem = line_difference(la, lb, rtol, atol)
        if problem is not None:
            problems.append(f"{where}line {number}: {problem}")
        if len(problems) >= 5:
            break
    return problems


def line_difference(a: str, b: str, rtol: float, atol: float) -> str | None:
    """How two lines differ (their numbers within tolerance count as equal), or None."""
    if a == b:
        return None
    if _NUMBER.sub("#", a) != _NUMBER.sub("#", b):
        return f"{a.strip()!r} before, {b.strip()!r} after"
    for na, nb in zip(_NUMBER.findall(a), _NUMBER.findall(b)):
        if not _close(float(na), float(nb), rtol, atol):
            return f"{na} before, {nb} after ({a.strip()!r})"
    return None


def compare_values(a: Any, b: Any, rtol: float, atol: float, where: str = "") -> list[str]:
    """Differences between two loaded outputs (empty when equal within tolerance)."""
    label = where or "value"
    if isinstance(a, OutputError) or isinstance(b, OutputError):
        return [f"{label}: {a if isinstance(a, OutputError) else b}"]
    if _is_array(a) or _is_array(b):
        return _compare_arrays(a, b, rtol, atol, label)
    if isinstance(a, TextOutput) and isinstance(b, str):
        return compare_text(a, b, rtol, atol, f"{where}: " if where else "")
    if isinstance(a, dict) and isinstance(b, dict):
        if sorted(map(str, a)) != sorted(map(str, b)):
            return [f"{label}: keys {sorted(map(str, a))} before, {sorted(map(str, b))} after"]
        problems = []
        for key in a:
            problems += compare_values(a[key], b[key], rtol, atol, f"{where}[{key!r}]" if where else repr(key))
        return problems
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        if len(a) != len(b):
            return [f"{label}: {len(a)} items before, {len(b)} after"]
        problems = []
        for i, (x, y) in enumerate(zip(a, b)):
            problems += compare_values(x, y, rtol, atol, f"{where}[{i}]")
            if len(problems) >= 5:
                break
        return problems
    if _is_number(a) and _is_number(b):
        return [] if _close(float(a), float(b), rtol, atol) else [f"{label}: {a!r} before, {b!r} after"]
    return [] if a == b else [f"{label}: {_short(a)} before, {_short(b)} after"]


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_array(value: Any) -> bool:
    return type(value).__module__ == "numpy" and hasattr(value, "shape") and hasattr(value, "dtype")


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _compare_arrays(a: Any, b: Any, rtol: float, atol: float, label: str) -> list[str]:
    import numpy as np

    if not (_is_array(a) and _is_array(b)):
        return [f"{label}: {type(a).__name__} before, {type(b).__name__} after"]
    if a.shape != b.shape:
        return [f"{label}: shape {a.shape} before, {b.shape} after"]
    if a.dtype.kind in "biufc" and b.dtype.kind in "biufc":
        close = np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=True)
        if bool(np.all(close)):
            return []
        bad = np.argwhere(~close)
        index = tuple(int(i) for i in bad[0])
        diff = np.abs(a.astype(np.float64) - b.astype(np.float64))
        finite = diff[np.isfinite(diff)]
        worst = float(finite.max()) if finite.size else float("nan")
        return [
            f"{label}: {len(bad)} of {a.size} elements differ (max abs diff {worst:.3g}; "
            f"first at {index}: {a[index]!r} before, {b[index]!r} after)"
        ]
    if a.dtype != b.dtype or not bool(np.all(a == b)):
        return [f"{label}: arrays of dtype {a.dtype} differ"]
    return []


def stdout_matches(text: str, pattern: re.Pattern) -> str:
    """The lines of ``text`` matching ``pattern`` (its groups, tab-joined, when it has groups)."""
    out = []
    for line in text.splitlines():
        match = pattern.search(line)
        if match is None:
            continue
        if pattern.groups:
            out.append("\t".join("" if g is None else g for g in match.groups()))
        else:
            out.append(line)
    return "\n".join(out)


# --------------------------------------------------------------------------- what varies run to run

#: the tokens of a line: a hex address, a number, a word (an id when it holds a digit), a run of
#: spaces, any other character
_TOKEN = re.compile(r"0[xX][0-9a-fA-F]+|" + _NUMBER.pattern + r"|\w+|\s+|.", re.IGNORECASE | re.DOTALL)
_HEX = re.compile(r"0[xX][0-9a-fA-F]+")
#: a line template with more varying spans than this is masked whole (a regular expression with
#: many lazy wildcards can take long to fail)
MAX_SPANS = 12


def tokens(line: str) -> list[str]:
    return _TOKEN.findall(line)


def token_kind(token: str) -> str:
    """``address``, ``number``, ``id`` (a word holding a digit), ``word`` or ``text``."""
    if _HEX.fullmatch(token):
        return "address"
    if _NUMBER.fullmatch(token):
        return "number"
    if re.fullmatch(r"\w+", token):
        return "id" if any(c.isdigit() for c in token) else "word"
    return "text"


@dataclass(frozen=True)
class LineMask:
    """A line of the reference with the tokens that varied between two of its runs masked.

    ``segments``: ``(token, False)`` for a stable token, ``(shown, True)`` for a varying span
    (the reference's tokens there, possibly none: text one run had and the other not).
    """

    segments: tuple[tuple[str, bool], ...]

    @property
    def spans(self) -> list[str]:
        """The kind of each masked span (``number``, ``address``, ``id``, ``word``, ``text``)."""
        kinds = []
        for text, masked in self.segments:
            if masked:
                parts = [t for t in tokens(text) if not t.isspace()]
                kinds.append(token_kind(parts[0]) if len(parts) == 1 else "text")
        return kinds

    @property
    def whole(self) -> bool:
        """Nothing stable left on the line but spaces and punctuation."""
        return not any(not masked and token_kind(text) in ("number", "address", "id", "word")
                       for text, masked in self.segments)

    @property
    def too_many_spans(self) -> bool:
        """So many varying spans that the line is masked whole (not compared at all)."""
        return sum(1 for _text, masked in self.segments if masked) > MAX_SPANS

    @property
    def stable_numbers(self) -> int:
        """The numbers of the line that are still compared."""
        if self.too_many_spans:
            return 0
        return sum(1 for text, masked in self.segments if not masked and token_kind(text) == "number")

    def shown(self) -> str:
        return "".join("…" if masked else text for text, masked in self.segments)

    def varying_tokens(self, line: str) -> tuple[list[bool], set[int]] | None:
        """Per token of ``line`` (the reference line this mask was made from): masked?, and the gaps."""
        varying: list[bool] = []
        gaps: set[int] = set()
        for text, masked in self.segments:
            parts = tokens(text)
            if masked and not parts:
                gaps.add(len(varying))
            varying += [masked] * len(parts)
        return (varying, gaps) if len(varying) == len(tokens(line)) else None

    def difference(self, line: str, rtol: float, atol: float) -> str | None:
        """How ``line`` differs from the stable part of the reference line (numbers within tolerance), or None."""
        if self.too_many_spans:
            return None
        pattern, expected = [], []
        for text, masked in self.segments:
            if masked:
                if not pattern or pattern[-1] != ".*?":
                    pattern.append(".*?")
            elif token_kind(text) == "number":
                pattern.append(f"({_NUMBER.pattern})")
                expected.append(text)
            else:
                pattern.append(re.escape(text))
        match = re.fullmatch("".join(pattern), line, re.IGNORECASE | re.DOTALL)
        if match is None:
            return f"{self.shown().strip()!r} before (… varies run to run), {line.strip()!r} after"
        for want, got in zip(expected, match.groups()):
            if not _close(float(want), float(got), rtol, atol):
                return f"{want} before, {got} after ({self.shown().strip()!r}; … varies run to run)"
        return None


def line_mask(a: str, b: str, rtol: float, atol: float, previous: LineMask | None = None) -> LineMask | None:
    """Line ``a`` of one run of the reference with what differs in ``b`` (another run) masked.

    None: the lines are equal.  ``previous``: the mask an earlier pair of runs gave for this
    line, whose masked spans stay masked.

    A number that differs at all between the two runs varies, whatever ``rtol``/``atol``
    (kept for the callers; they apply only when the original is compared with the fixed
    program): an absolute clock (``time.time()`` ~1.7e9 s, ``perf_counter()`` since boot)
    moves by less than ``rtol`` times its value between two runs, and compared within the
    tolerance it would pass for a stable result.  Two spellings of one value (``1.0``,
    ``1.00``) are the same number.
    """
    ta, tb = tokens(a), tokens(b)
    varying = [False] * len(ta)
    gaps: set[int] = set()  # text only ``b`` has, before token i of ``a``
    # the same number of tokens: token by token; else the tokens the two lines share, in order
    opcodes = [("replace", 0, len(ta), 0, len(tb))] if len(ta) == len(tb) else \
        difflib.SequenceMatcher(None, ta, tb, autojunk=False).get_opcodes()
    for tag, i1, i2, j1, j2 in opcodes:
        if tag == "equal":
            continue
        if tag == "replace" and i2 - i1 == j2 - j1:
            for i, j in zip(range(i1, i2), range(j1, j2)):
                same = ta[i] == tb[j] or (token_kind(ta[i]) == token_kind(tb[j]) == "number" and _same_number(
                    ta[i], tb[j]))
                varying[i] = not same
            continue
        if i1 == i2:
            gaps.add(i1)
        for i in range(i1, i2):
            varying[i] = True
    if previous is not None:
        old = previous.varying_tokens(a)
        if old is not None:
            varying = [x or y for x, y in zip(varying, old[0])]
            gaps |= old[1]
    if not any(varying) and not gaps:
        return None
    segments: list[tuple[str, bool]] = []
    for index, token in enumerate(ta + [""]):
        if index in gaps and not (segments and segments[-1][1]):
            segments.append(("", True))
        if index == len(ta):
            break
        if varying[index]:
            if segments and segments[-1][1]:
                segments[-1] = (segments[-1][0] + token, True)
            else:
                segments.append((token, True))
        else:
            segments.append((token, False))
    return LineMask(tuple(segments))



def mask_summary(masks: Iterable[LineMask]) -> str:
    """``1 varying number masked``, ``2 varying numbers and 1 varying address masked``."""
    counts: dict[str, int] = {}
    for mask in masks:
        for kind in mask.spans:
            counts[kind] = counts.get(kind, 0) + 1
    if not counts:
        return ""
    names = {"number": "number", "address": "address", "id": "id", "word": "word", "text": "text span"}
    order = ["number", "address", "id", "word", "text"]
    parts = []
    for kind in order:
        if kind in counts:
            noun = names[kind]
            parts.append(f"{counts[kind]} varying {noun}{'' if counts[kind] == 1 else ('es' if noun.endswith('s') else 's')}")
    text = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    return text + " masked"
