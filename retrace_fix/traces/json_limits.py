"""Parse JSON that nobody vouches for (trace files, recorder shards) within fixed limits.

A trace file may come from another machine, a CI artefact or a program that
crashed while writing; whatever it holds, reading it must end in a value or in
one :class:`JSONLimitError` with a one-line reason, never in a traceback.
The limits are far above what the recorder writes:

* at most :data:`MAX_BYTES` bytes (a file of zeros or ``/dev/zero`` stops there);
* UTF-8 text, no lone surrogates (they cannot be printed or written back);
* nesting at most :data:`MAX_DEPTH` arrays/objects deep (Python's ``json``
  raises RecursionError near 1,000, and code walking the data recursively
  later would too);
* integers of at most :data:`MAX_INT_DIGITS` digits (a 5,000-digit number
  otherwise costs quadratic time or hits Python's 4,300-digit limit).

``NaN`` and ``Infinity`` are read as Python does; the trace-file checker
rejects them where a finite number is required.
"""

from __future__ import annotations

import json
from typing import IO, Any

MAX_BYTES = 256 * 1024 * 1024
MAX_DEPTH = 200
MAX_INT_DIGITS = 20


class JSONLimitError(ValueError):
    """The text is not JSON within the limits; the message is one line."""


def read_limited(handle: IO[bytes]) -> bytes:
    """Read at most :data:`MAX_BYTES` bytes; JSONLimitError when there is more."""
    data = handle.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise JSONLimitError(f"larger than {MAX_BYTES // (1024 * 1024)} MiB")
    return data


def _parse_int(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_INT_DIGITS:
        raise JSONLimitError(f"a number of {digits} digits (at most {MAX_INT_DIGITS})")
    return int(text)


def loads_limited(raw: bytes) -> Any:
    """The JSON value of ``raw``; raises JSONLimitError with a one-line reason."""
    if len(raw) > MAX_BYTES:
        raise JSONLimitError(f"larger than {MAX_BYTES // (1024 * 1024)} MiB")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise JSONLimitError(f"not UTF-8 text (byte {exc.start})") from None
    try:
        data = json.loads(text, parse_int=_parse_int)
    except json.JSONDecodeError as exc:
        raise JSONLimitError(f"invalid JSON at line {exc.lineno}: {exc.msg}") from None
    except RecursionError:
        raise JSONLimitError(f"nested more than {MAX_DEPTH} levels deep") from None
    except JSONLimitError:
        raise
    except (ValueError, MemoryError) as exc:
        raise JSONLimitError(f"invalid JSON: {type(exc).__name__}: {one_line(str(exc))}") from None
    check_tree(data)
    return data


def check_tree(data: Any) -> None:
    """Depth and string checks over a parsed value, without recursion."""
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            if depth > MAX_DEPTH:
                raise JSONLimitError(f"nested more than {MAX_DEPTH} levels deep")
            for key, item in value.items():
                _check_string(key)
                stack.append((item, depth + 1))
        elif isinstance(value, list):
            if depth > MAX_DEPTH:
                raise JSONLimitError(f"nested more than {MAX_DEPTH} levels deep")
            stack.extend((item, depth + 1) for item in value)
        elif isinstance(value, str):
            _check_string(value)


def _check_string(text: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise JSONLimitError(f"a string holds a lone surrogate (\\u{ord(text[exc.start]):04x})") from None


def one_line(text: str) -> str:
    """``text`` with line breaks escaped, so that a message stays on one line."""
    return text.replace("\r", "\\r").replace("\n", "\\n")


__all__ = ["JSONLimitError", "MAX_BYTES", "MAX_DEPTH", "MAX_INT_DIGITS", "check_tree", "loads_limited", "one_line",
           "read_limited"]
