"""Fix identities and selections: how ``--verify`` applies any subset of the candidate fixes.

Every finding has a ``fix_id`` ``(code, line in the file, ordinal)``; a run with
``RunOptions.fix_selection`` edits exactly the selected sites (one mechanism in
``RetraceCodemod.report``), and identities do not move whichever other fixes
are applied.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from retrace_fix.engine.options import FileJob, RunOptions
from retrace_fix.engine.process import process_file

SOURCE = textwrap.dedent(
    """\
    import tensorflow as tf

    from models import build_model

    model = build_model()
    keras_model = tf.keras.Sequential([tf.keras.layers.Dense(1)])


    @tf.function
    def infer(x):
        a = model.predict(x)
        b = keras_model.predict(x, verbose=0)
        c = keras_model.predict(x, batch_size=8); d = keras_model.predict(x, batch_size=4)
        return a + b + c + d
    """
)


def run(tmp_path: Path, source: str, **options) -> tuple[str, list]:
    path = tmp_path / "prog.py"
    path.write_text(source)
    result = process_file(FileJob(path=path, display="prog.py", relpath="prog.py"), RunOptions(**options))
    assert result.error is None, result.error
    return result.fixed, result.findings


def test_candidates_have_identities_by_line_and_ordinal(tmp_path):
    fixed, findings = run(tmp_path, SOURCE, select=("RTF002",), verify_candidates=True)
    assert [(f.fix_id, f.tier.value, f.applied) for f in findings] == [
        (("RTF002", 11, 0), "diagnostic", True),  # receiver from another module: a --verify candidate
        (("RTF002", 12, 0), "safe", True),
        (("RTF002", 13, 0), "diagnostic", True),  # only batch_size= blocks it
        (("RTF002", 13, 1), "diagnostic", True),  # the second finding of the code on that line
    ]
    assert fixed.count("training=False") == 4


def test_an_ordinary_run_edits_only_the_safe_fix(tmp_path):
    fixed, findings = run(tmp_path, SOURCE, select=("RTF002",))
    assert [(f.line, f.applied) for f in findings] == [(12, True), (13, False), (13, False)]
    assert "model.predict(x)" in fixed and fixed.count("training=False") == 1


def test_a_selection_edits_exactly_the_selected_sites(tmp_path):
    selection = frozenset({("prog.py", "RTF002", 13, 1), ("prog.py", "RTF002", 11, 0)})
    fixed, findings = run(tmp_path, SOURCE, select=("RTF002",), verify_candidates=True, fix_selection=selection)
    assert [f.fix_id for f in findings if f.applied] == [("RTF002", 11, 0), ("RTF002", 13, 1)]
    lines = fixed.splitlines()
    assert lines[10] == "    a = model(x, training=False)"
    assert lines[11] == "    b = keras_model.predict(x, verbose=0)"  # safe, but not selected
    assert lines[12] == "    c = keras_model.predict(x, batch_size=8); d = keras_model(x, training=False)"


def test_an_empty_selection_and_another_file_selection_edit_nothing(tmp_path):
    for selection in (frozenset(), frozenset({("other.py", "RTF002", 12, 0)})):
        fixed, findings = run(tmp_path, SOURCE, select=("RTF002",), verify_candidates=True, fix_selection=selection)
        assert fixed == SOURCE
        assert len(findings) == 4 and not any(f.applied for f in findings)


STEP_COUNT = textwrap.dedent(
    """\
    import time

    from tensorflow import function


    @function
    def run(x, n):
        for i in range(n):
            x = x + 1.0
        return x


    def main(x):
        return [run(x, 2), run(x, 3)]


    @function
    def stamp(x):
        return x + time.time()
    """
)


def test_identities_are_lines_of_the_file_after_an_earlier_codemod_inserted_lines(tmp_path):
    """RTF001 adds `import tensorflow as tf`: RTF102, run after it, reports at lines of the file."""
    fixed, findings = run(tmp_path, STEP_COUNT, select=("RTF001", "RTF102"), verify_candidates=True)
    assert "from tensorflow import function\nimport tensorflow as tf\n" in fixed
    assert [f.fix_id for f in findings] == [("RTF001", 8, 0), ("RTF001", 14, 0), ("RTF001", 14, 1), ("RTF102", 19, 0)]
    assert all(f.fix_id[1] == f.line for f in findings)
    assert fixed.splitlines()[19] == "    return x + time.time()"  # line 20 of the edited text
    # the same identities select the same sites, whichever subset is chosen
    only_calls = frozenset({("prog.py", "RTF001", 14, 0), ("prog.py", "RTF001", 14, 1)})
    fixed, findings = run(tmp_path, STEP_COUNT, select=("RTF001",), verify_candidates=True, fix_selection=only_calls)
    assert "for i in range(n):" in fixed and "run(x, tf.constant(2)), run(x, tf.constant(3))" in fixed
