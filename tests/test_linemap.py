"""Findings point at lines of the file on disk, even after an earlier codemod shifted the code.

Codemods run in turn on one tree; RTF001 can add ``import tensorflow as tf`` at
the top, and RTF004, which runs after it, then sees every later line one lower.
Pure rewriter: no TensorFlow import.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from retrace_fix.linemap import LineMap
from tests.support.cli_runner import run_cli

SHIFTED = textwrap.dedent(
    """\
    from tensorflow import function, shape, zeros


    @function
    def row_total(x):
        total = zeros([])
        for i in range(shape(x)[0]):
            total += x[i]
        return total


    @function(experimental_relax_shapes=True)
    def relaxed(x):
        return x
    """
)


def test_line_map_follows_insertions_replacements_and_deletions():
    original = "a\nb\nc\nd\ne\n"
    edited = "a\nNEW\nb\nC1\nC2\nd\n"  # insert before b, c -> C1 C2, e deleted
    lines = LineMap(original, edited)
    assert [lines.original_line(n) for n in range(1, 7)] == [1, 2, 2, 3, 3, 4]
    assert LineMap("x\n", "x\n").original_line(1) == 1
    assert LineMap("", "import tf\n").original_line(1) == 1
    # lines counted as Python's tokenizer (and LibCST) counts them: U+2028 and form feeds
    # do not end a line, a lone CR does
    assert LineMap("a\nb\n", "x\u2028y\na\nb\n").original_line(3) == 2
    assert LineMap("a\rb\n", "x\na\rb\n").original_line(3) == 2


def test_findings_after_an_import_insertion_keep_the_file_lines(tmp_path: Path):
    (tmp_path / "shift.py").write_text(SHIFTED)
    code, out, _ = run_cli("--check", "shift.py", cwd=tmp_path).outcome
    assert code == 1
    assert out.splitlines() == [
        "shift.py:7:14: RTF001 [*] [safe] `range(shape(x)[0])` has a tensor bound: loop with `tf.range` "
        "(one graph loop, traced once)",
        "shift.py:12:2: RTF004 [*] [safe] `experimental_relax_shapes` is the deprecated name of `reduce_retracing`",
    ]
    assert SHIFTED.splitlines()[11] == "@function(experimental_relax_shapes=True)"
