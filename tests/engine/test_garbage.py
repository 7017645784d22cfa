"""A file the engine reads and drops before LibCST leaves no cyclic garbage behind.

Its trees die by reference counting when the file is done.  Garbage in a reference cycle waits
for the cyclic collector, which walks all of it: in a bulk run that was a class's tree per
``.py`` with classes (the outline's units held their class, the class its members) and a whole
notebook per notebook with a magic (a syntax error's traceback held the frames that read it),
a tenth of the workers' collector time.  Pure rewriter: no TensorFlow import.
"""

from __future__ import annotations

import gc
import json
from pathlib import Path

import pytest

from retrace_fix.engine.options import RunOptions
from retrace_fix.engine.process import process_file
from retrace_fix.engine.run import make_jobs

#: passes the byte prefilter and the tf.function reference, dropped by the tree checks; its
#: class has members (a unit of the outline that holds units)
CLASSES = """\
import tensorflow as tf

f = tf.function(lambda x: x)


class Layer(tf.keras.layers.Layer):
    def call(self, x):
        return x

    def build(self, shape):
        pass


def main(model, data):
    for i in range(3):
        model.predict(data)
"""

#: a magic CPython rejects before it is masked, then code the tree checks drop (no class)
MAGIC_CELLS = ["%matplotlib inline\n",
               "import tensorflow as tf\n\nf = tf.function(lambda x: x)\n\nfor i in range(3):\n    model.predict(data)\n"]


def _notebook(cells: list[str]) -> str:
    return json.dumps({
        "cells": [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
                   "source": source.splitlines(keepends=True)} for source in cells],
        "metadata": {}, "nbformat": 4, "nbformat_minor": 5,
    })


def _garbage_after(path: Path) -> tuple[list, object]:
    """The objects only the cyclic collector would free after ``path`` is processed, and its result."""
    job = make_jobs([path])[0]
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        result = process_file(job, RunOptions())
        gc.collect()
        garbage = list(gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    return garbage, result


@pytest.mark.parametrize("name, text", [("classes.py", CLASSES), ("magic.ipynb", _notebook(MAGIC_CELLS))])
def test_a_file_dropped_before_libcst_leaves_no_cycle(tmp_path: Path, name: str, text: str) -> None:
    path = tmp_path / name
    path.write_text(text)
    process_file(make_jobs([path])[0], RunOptions())  # first use fills the process's caches
    garbage, result = _garbage_after(path)
    assert result.skipped and not result.error and not result.findings  # read, checked, dropped
    assert [type(o).__name__ for o in garbage] == []
