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


BIND_THEN_COMPILE = textwrap.dedent(
    """\
    import tensorflow as tf


    @tf.function
    def run_epoch(fn, x):
        return fn(x)


    class Agent:
        def update(self, x):
            return x * 2


    agent = Agent()
    for epoch in range(3):
        run_epoch(agent.update, tf.constant(1.0))


    def fit(model, data, lrs):
        for lr in lrs:
            model.compile(optimizer=tf.keras.optimizers.SGD(lr), loss="mse")
            model.fit(data)
    """
)


def test_lines_quoted_in_messages_are_the_files_after_an_earlier_insertion(tmp_path: Path):
    # RTF009 inserts `agent_update = agent.update` above line 15; RTF010 runs after it on the
    # edited tree, and its message must still name the loop and the fit call by the file's lines
    (tmp_path / "train.py").write_text(BIND_THEN_COMPILE)
    code, out, _ = run_cli("--check", "train.py", cwd=tmp_path).outcome
    assert code == 1
    lines = BIND_THEN_COMPILE.splitlines()
    assert lines[19] == "    for lr in lrs:" and lines[21] == "        model.fit(data)"
    rtf010 = [line for line in out.splitlines() if " RTF010 " in line]
    assert len(rtf010) == 1
    assert rtf010[0].startswith("train.py:21:9: RTF010 [unsafe] `model.compile(...)` in the loop at line 20 "
                                "that also trains `model` (`model.fit`, line 22): ")
    assert any(line.startswith("train.py:16:15: RTF009 [*] [safe]") for line in out.splitlines())
