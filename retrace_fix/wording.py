"""How retrace-fix words a count (``1 file``, ``2 files``, ``3 fixes``) and an article (``an int``)."""

from __future__ import annotations

from typing import Any


def plural(count: Any, word: str) -> str:
    """``count`` and ``word``, in the plural unless ``count`` is 1 (``-es`` after s, x, z, ch, sh)."""
    if count == 1:
        return f"{count} {word}"
    return f"{count} {word}{'es' if word.endswith(('s', 'x', 'z', 'ch', 'sh')) else 's'}"


def a_or_an(word: str) -> str:
    """The indefinite article for ``word`` by its first letter: ``an`` before a vowel, else ``a``."""
    return "an" if word[:1] in "aeiou" else "a"
