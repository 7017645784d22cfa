"""The edits RTF006 and RTF007 build only for a ``--verify`` run.

A site refused only for lack of evidence is reported as a diagnostic with
``verifiable=True``; in a ``--verify`` run (``settings.verify_candidates``) the
codemod builds the edit anyway and the user's program proves or refutes it.
A site refused for a reason the run cannot overturn (a variable created while
tracing) is never edited.
"""

from __future__ import annotations

import textwrap

import libcst as cst
from libcst.codemod import CodemodContext

from retrace_fix.codemods import codemod_for
from retrace_fix.codemods._base import CodemodSettings
from retrace_fix.findings import Tier


def run(code: str, source: str, verify: bool):
    source = textwrap.dedent(source)
    settings = CodemodSettings(verify_candidates=verify, relpath="m.py", source_text=source)
    codemod = codemod_for(code)(CodemodContext(filename="m.py"), settings=settings)
    return codemod.transform_module(cst.parse_module(source)).code, codemod.findings


CAPTURED = """\
import tensorflow as tf


def fused_project(features, num_hash, hash_scale):
    @tf.function
    def func(x):
        return tf.one_hot(tf.cast(x * hash_scale, tf.int32) % num_hash, num_hash)

    return func(features)


def main(batches):
    for batch in batches:
        fused_project(batch, 8, 7.0)
"""


def test_captured_locals_become_keyword_arguments_only_in_a_verify_run():
    text, findings = run("RTF006", CAPTURED, verify=False)
    assert text == CAPTURED
    [finding] = findings
    assert (finding.tier, finding.applied, finding.verifiable) == (Tier.DIAGNOSTIC, False, True)
    assert "it uses `hash_scale`, `num_hash` of `fused_project`" in finding.message

    text, findings = run("RTF006", CAPTURED, verify=True)
    assert text == """\
import tensorflow as tf


@tf.function
def func(x, *, hash_scale, num_hash):
    return tf.one_hot(tf.cast(x * hash_scale, tf.int32) % num_hash, num_hash)


def fused_project(features, num_hash, hash_scale):
    return func(features, hash_scale=hash_scale, num_hash=num_hash)


def main(batches):
    for batch in batches:
        fused_project(batch, 8, 7.0)
"""
    assert [(f.tier, f.applied) for f in findings] == [(Tier.DIAGNOSTIC, True)]


RETURNED = """\
import tensorflow as tf

SCALE = 2.0


def make():
    @tf.function
    def scaled(x):
        return x * SCALE

    return scaled


def main(batches):
    return [make()(b) for b in batches]
"""


def test_a_returned_function_moves_only_in_a_verify_run():
    assert run("RTF006", RETURNED, verify=False)[0] == RETURNED
    text, findings = run("RTF006", RETURNED, verify=True)
    assert "@tf.function\ndef scaled(x):\n    return x * SCALE\n\n\ndef make():\n    return scaled\n" in text
    assert "callers may expect a new function each time" in findings[0].message


VARIABLES = """\
import tensorflow as tf


def accumulate(x):
    @tf.function
    def step(v):
        total = tf.Variable(0.0)
        return total.assign_add(tf.reduce_sum(v))

    return step(x)


def main(batches):
    for batch in batches:
        accumulate(batch)
"""


def test_a_function_that_creates_variables_never_moves():
    for verify in (False, True):
        text, [finding] = run("RTF006", VARIABLES, verify=verify)
        assert text == VARIABLES
        assert (finding.tier, finding.applied, finding.verifiable) == (Tier.DIAGNOSTIC, False, False)


UNKNOWN_DTYPE = """\
import tensorflow as tf

dense = tf.keras.layers.Dense(3)


@tf.function
def outputs(x, n):
    rows = []
    for i in range(n):
        rows.append(dense(x))
    return tf.stack(rows)


def main(x):
    for n in (2, 3):
        outputs(x, n)
"""


def test_an_unknown_element_dtype_is_tried_as_float32_only_in_a_verify_run():
    text, [finding] = run("RTF007", UNKNOWN_DTYPE, verify=False)
    assert text == UNKNOWN_DTYPE
    assert (finding.tier, finding.verifiable) == (Tier.DIAGNOSTIC, True)
    assert "the dtype of `dense(x)` is not known" in finding.message
    text, _ = run("RTF007", UNKNOWN_DTYPE, verify=True)
    assert "    rows = tf.TensorArray(tf.float32, size=n)\n    for i in tf.range(n):\n" in text
    assert "        rows = rows.write(i, dense(x))\n    return rows.stack()\n" in text
    assert "outputs(x, tf.constant(n))" in text
