"""`retrace-fix -i`: scripted answers decide exactly which hunks land (no TensorFlow)."""

from __future__ import annotations

import io
import os
import re
import shlex
import textwrap
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from retrace_fix.engine.options import RunResult
from retrace_fix.findings import FileResult, Finding, Tier
from retrace_fix.patch.interactive import Session, file_hunks
from retrace_fix.fix_request import FixRequest
from tests.support.cli_runner import run_cli

ONE = """\
import numpy as np
import tensorflow as tf

model = tf.keras.Sequential([tf.keras.layers.Dense(1)])


@tf.function(experimental_relax_shapes=True)
def pool(x):
    return tf.reduce_mean(x, axis=1)


def unrelated_one():
    return 1


def unrelated_two():
    return 2


@tf.function
def predict_batch(x):
    # keep this comment
    return model.predict(x, verbose=0)


def unrelated_three():
    return 3


def evaluate(batches):
    outputs = []
    for batch in batches:
        outputs.append(model.predict(batch, verbose=0))
    return np.concatenate(outputs)


def unrelated_four():
    return 4


@tf.function(experimental_relax_shapes=True)
def pool_again(x):
    return tf.reduce_max(x, axis=1)
"""

#: one.py's hunks: 1-based line -> replacement line (H1 RTF004 safe, H2 RTF002 safe,
#: H3 RTF002 unsafe, H4 RTF004 safe)
ONE_HUNKS = {
    "H1": (7, "@tf.function(reduce_retracing=True)\n"),
    "H2": (23, "    return model(x, training=False)\n"),
    "H3": (33, "        outputs.append(model(batch, training=False).numpy())\n"),
    "H4": (41, "@tf.function(reduce_retracing=True)\n"),
}

TWO = """\
import tensorflow as tf

model = tf.keras.Sequential([tf.keras.layers.Dense(1)])


@tf.function(experimental_relax_shapes=True)
def pool(x):
    return tf.reduce_mean(x, axis=1)


def unrelated():
    return 0


@tf.function
def predict_batch(x):
    return model.predict(x)
"""

TWO_HUNKS = {
    "T1": (6, "@tf.function(reduce_retracing=True)\n"),
    "T2": (17, "    return model(x, training=False)\n"),
}


def expected(text: str, hunks: dict, accepted: str) -> str:
    lines = text.splitlines(keepends=True)
    for name in accepted.split():
        if name in hunks:
            number, replacement = hunks[name]
            lines[number - 1] = replacement
    return "".join(lines)


@pytest.fixture
def project(tmp_path, monkeypatch):
    (tmp_path / "one.py").write_text(ONE, encoding="utf-8")
    (tmp_path / "two.py").write_text(TWO, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run_session(answers: str, extra=("--unsafe-fixes",)) -> tuple[int, str, str]:
    return run_cli("-i", "-j", "1", *extra, "one.py", "two.py", stdin=answers).outcome


def landed(project: Path, one: str, two: str) -> None:
    assert (project / "one.py").read_text(encoding="utf-8") == expected(ONE, ONE_HUNKS, one)
    assert (project / "two.py").read_text(encoding="utf-8") == expected(TWO, TWO_HUNKS, two)


def prompts(out: str) -> list[str]:
    return re.findall(r"Apply this hunk \[([^\]]*)\]\? (\S*)", out)


def test_yes_and_no_pick_exactly_those_hunks(project):
    code, out, err = run_session("y\nn\ny\nn\ny\nn\n")
    assert code == 0
    landed(project, one="H1 H3", two="T1")
    assert len(prompts(out)) == 6
    assert "3 of 6 hunks applied in 2 files" in err


def test_enter_takes_the_default_safe_yes_unsafe_no(project):
    code, out, _ = run_session("\n" * 6)
    assert code == 0
    landed(project, one="H1 H2 H4", two="T1 T2")
    shown = [choices for choices, _ in prompts(out)]
    # git's keys, only where they can do something: K/k back, J/j on, g with several hunks, e always
    assert shown == ["Y,n,a,d,A,q,j,J,g,e,?", "Y,n,a,d,A,q,K,j,J,g,e,?", "y,N,a,d,A,q,K,j,J,g,e,?",
                     "Y,n,a,d,A,q,K,g,e,?", "Y,n,a,d,A,q,j,J,g,e,?", "Y,n,a,d,A,q,K,g,e,?"]


def test_each_hunk_shows_file_code_tier_and_reason(project):
    _, out, _ = run_session("n\nn\nn\n")
    blocks = out.split("Apply this hunk")
    assert "one.py  (hunk 1 of 4)" in blocks[0]
    assert "RTF004 [safe] line 7:" in blocks[0]
    assert "-@tf.function(experimental_relax_shapes=True)" in blocks[0]
    assert "+@tf.function(reduce_retracing=True)" in blocks[0]
    assert "RTF002 [safe] line 23:" in blocks[1]
    assert "RTF002 [unsafe] line 33:" in blocks[2]
    assert (
        "unsafe: no internal batching: large inputs may not fit in memory; `.numpy()` needs the TensorFlow "
        "backend (Keras 3 on JAX returns arrays without it)" in blocks[2]
    )
    assert "\x1b[" not in out  # no colour when stdout is not a terminal


def test_a_accepts_the_rest_of_the_file_only(project):
    code, out, _ = run_session("n\na\ny\nn\n")
    assert code == 0
    landed(project, one="H2 H3 H4", two="T1")
    assert len(prompts(out)) == 4
    assert "one.py  (hunk 3 of 4): accepted (rest of this file)" in out


def test_d_skips_the_rest_of_the_file_only(project):
    code, out, _ = run_session("y\nd\nn\ny\n")
    assert code == 0
    landed(project, one="H1", two="T2")
    assert len(prompts(out)) == 4


def test_capital_a_accepts_that_codemod_everywhere(project):
    # A on H1 (RTF004): H4 and T1 (RTF004) are accepted without asking; RTF002 hunks still ask
    code, out, _ = run_session("A\nn\nn\nn\n")
    assert code == 0
    landed(project, one="H1 H4", two="T1")
    assert len(prompts(out)) == 4
    assert "accepted (every reduce-retracing hunk)" in out


def test_capital_a_covers_unsafe_hunks_of_the_codemod(project):
    # A on H2 (RTF002, safe) also takes H3 (RTF002, unsafe) and T2; H4 and T1 still ask
    code, out, _ = run_session("n\nA\nn\nn\n")
    assert code == 0
    landed(project, one="H2 H3", two="T2")
    assert len(prompts(out)) == 4


def test_q_keeps_what_was_accepted_and_stops(project):
    code, out, err = run_session("y\nn\nq\n")
    assert code == 0
    landed(project, one="H1", two="")
    assert len(prompts(out)) == 3
    assert "1 of 6 hunks applied in 1 file" in err


def test_end_of_input_means_quit(project):
    code, out, _ = run_session("y\n")
    assert code == 0
    landed(project, one="H1", two="")
    assert "q (end of input)" in out


def test_no_answers_at_all_touches_nothing(project):
    code, _, _ = run_session("")
    assert code == 0
    landed(project, one="", two="")


def test_question_mark_prints_help_and_asks_again(project):
    code, out, _ = run_session("?\ny\n")
    assert code == 0
    landed(project, one="H1", two="")
    assert "a - apply this hunk and all later hunks in this file" in out
    assert "j - leave this hunk undecided, see next undecided hunk" in out
    assert "k - " not in out  # help lists only the keys the prompt offers
    assert "A - apply this hunk and every remaining hunk of this codemod, in every file" in out
    assert [answer for _, answer in prompts(out)][:2] == ["?", "y"]


def test_unknown_answer_asks_again(project):
    code, out, _ = run_session("maybe\nY\n")
    assert code == 0
    assert "unknown answer 'maybe'" in out
    landed(project, one="H1", two="")


def test_unsafe_hunks_are_only_offered_with_unsafe_fixes(project):
    code, out, _ = run_session("y\n" * 10, extra=())
    assert code == 0
    landed(project, one="H1 H2 H4", two="T1 T2")
    assert len(prompts(out)) == 5


def test_scripted_through_a_pipe_in_a_subprocess(project):
    proc = subprocess.run(
        [sys.executable, "-m", "retrace_fix.cli", "-i", "--unsafe-fixes", "-j", "1", "."],
        input="n\ny\n\nn\nd\n",
        capture_output=True,
        text=True,
        cwd=project,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    landed(project, one="H2", two="")


def test_crlf_file_keeps_its_line_endings(project):
    (project / "two.py").write_bytes(TWO.replace("\n", "\r\n").encode())
    assert run_cli("-i", "-j", "1", "two.py", stdin="n\ny\n").returncode == 0
    want = expected(TWO, TWO_HUNKS, "T2").replace("\n", "\r\n").encode()
    assert (project / "two.py").read_bytes() == want


def test_engine_errors_give_exit_2_but_other_files_are_offered(project):
    (project / "broken.py").write_text("def f(:\n    return tf.function\n", encoding="utf-8")
    result = run_cli("-i", "-j", "1", ".", stdin="y\n" * 10)
    assert result.returncode == 2
    assert "error: broken.py:1:7: cannot parse" in result.stderr
    landed(project, one="H1 H2 H4", two="T1 T2")


# --------------------------------------------------------------------------- write safety


def make_result(path: Path, original: str, fixed: str, lines: list[int]) -> RunResult:
    findings = [Finding("RTF004", "demo", Tier.SAFE, line, 0, path.name, applied=True) for line in lines]
    return RunResult(files=[FileResult(path=path.name, original=original, fixed=fixed, findings=findings)])


def session(result: RunResult, answers: str) -> tuple[int, Session, str, str]:
    out, err = io.StringIO(), io.StringIO()
    s = Session(FixRequest(paths=["."], mode="interactive"), result, stdin=io.StringIO(answers), out=out, err=err)
    code = s.run()
    return code, s, out.getvalue(), err.getvalue()


def test_accepted_hunks_that_do_not_parse_together_leave_the_file_untouched(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    comments = "".join(f"# c{i}\n" for i in range(8))
    original = "a = 1\n" + comments + "b = 2\n"
    fixed = "a = (\n" + comments + ")\n"  # parses as a whole, not hunk by hunk
    (tmp_path / "f.py").write_text(original)
    result = make_result(tmp_path / "f.py", original, fixed, [1, 10])
    assert len(file_hunks(result.files[0])) == 2
    code, _, _, err = session(result, "y\nn\n")
    assert code == 2
    assert "do not parse together" in err
    assert (tmp_path / "f.py").read_text() == original


def test_file_changed_on_disk_is_not_overwritten(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    original, fixed = "x = 1\n", "x = 2\n"
    (tmp_path / "f.py").write_text("x = 3\n")  # someone edited it after the run read it
    code, _, _, err = session(make_result(tmp_path / "f.py", original, fixed, [1]), "y\n")
    assert code == 2
    assert "changed on disk" in err
    assert (tmp_path / "f.py").read_text() == "x = 3\n"


def test_hunk_without_a_finding_is_attributed_to_the_files_fixes(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    filler = "".join(f"y{i} = {i}\n" for i in range(10))
    original = "import os\n" + filler + "z = old\n"
    fixed = "import os\nimport tensorflow as tf\n" + filler + "z = new\n"
    (tmp_path / "f.py").write_text(original)
    result = make_result(tmp_path / "f.py", original, fixed, [12])
    items = file_hunks(result.files[0])
    assert [it.inferred for it in items] == [True, False]
    assert items[0].codemods == items[1].codemods == frozenset({"reduce-retracing"})
    code, _, out, _ = session(result, "y\ny\n")
    assert code == 0
    assert "no finding on these lines" in out
    assert (tmp_path / "f.py").read_text() == fixed


# --------------------------------------------------------------------------- a real terminal


@pytest.mark.skipif(not sys.platform.startswith("linux") and sys.platform != "darwin", reason="needs a pty")
def test_colour_prompt_on_a_pseudo_terminal(project):
    import pty

    master, slave = pty.openpty()
    env = dict(os.environ, TERM="xterm-256color", COLUMNS="120")
    env.pop("NO_COLOR", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "retrace_fix.cli", "-i", "-j", "1", "two.py"],
        stdin=slave, stdout=slave, stderr=slave, cwd=project, env=env, close_fds=True,
    )
    os.close(slave)
    seen = b""

    def read_until(marker: bytes, limit: float = 60.0, times: int = 1) -> None:
        nonlocal seen
        deadline = time.monotonic() + limit
        while seen.count(marker) < times and time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.5)
            if ready:
                try:
                    chunk = os.read(master, 4096)
                except OSError:
                    break
                if not chunk:
                    break
                seen += chunk

    try:
        read_until(b"Apply this hunk")
        assert b"Apply this hunk" in seen
        first = seen
        os.write(master, b"y\n")
        read_until(b"Apply this hunk", times=2)  # the prompt for hunk 2 of 2
        assert b"(hunk 2 of 2)" in seen
        os.write(master, b"q\n")
        proc.wait(timeout=60)
        read_until(b"applied in", limit=5)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
    assert proc.returncode == 0
    assert b"\x1b[" in first  # coloured on a terminal
    text = re.sub(rb"\x1b\[[0-9;]*m", b"", first).decode()
    assert "Apply this hunk [Y,n,a,d,A,q,j,J,g,e,?]?" in text
    assert "+@tf.function(reduce_retracing=True)" in text
    assert (project / "two.py").read_text() == expected(TWO, TWO_HUNKS, "T1")


# --------------------------------------------------------------------------- git add -p's j/k/J/K, g, s, e


def shown_hunks(out: str) -> list[str]:
    """The hunk headers in the order the session showed them: 'one.py 1', 'two.py 2', ..."""
    return [f"{path} {number}" for path, number in re.findall(r"^(\S+)  \(hunk (\d+) of \d+[,)]", out, re.M)]


def test_j_and_k_leave_hunks_undecided_and_the_walk_comes_back(project):
    # one.py: j (H1 undecided) j (H2 undecided) k (back to H2) n (H2) y (H3) y (H4), wrap to H1: y
    code, out, _ = run_session("j\nj\nk\nn\ny\ny\ny\nn\nn\n")
    assert code == 0
    landed(project, one="H1 H3 H4", two="")
    assert shown_hunks(out) == ["one.py 1", "one.py 2", "one.py 3", "one.py 2", "one.py 3", "one.py 4",
                                "one.py 1", "two.py 1", "two.py 2"]


def test_capital_j_and_k_move_one_hunk_and_revisit_a_decided_one(project):
    # y on H1, K back to it (shown as marked), n changes the decision; J steps over H2 and H3 back
    code, out, _ = run_session("y\nK\nn\nJ\nK\ny\nn\nn\nn\nn\n")
    assert code == 0
    landed(project, one="H2", two="")
    assert "one.py  (hunk 1 of 4, marked: apply)" in out
    assert shown_hunks(out)[:6] == ["one.py 1", "one.py 2", "one.py 1", "one.py 2", "one.py 3", "one.py 2"]


def test_navigation_keys_are_refused_where_they_lead_nowhere(project):
    code, out, _ = run_session("k\nK\ny\nq\n")
    assert code == 0
    assert "No previous undecided hunk" in out and "No previous hunk" in out
    landed(project, one="H1", two="")


def test_g_lists_the_hunks_and_goes_to_the_one_chosen(project):
    # y on H1; at H2, g -> list, 3 -> H3: y; then H4: n; then back to H2: n; two.py: g2 straight to T2: y, T1: n
    code, out, _ = run_session("y\ng\n3\ny\nn\nn\ng2\ny\nn\n")
    assert code == 0
    landed(project, one="H1 H3", two="T2")
    listing = out.split("go to which hunk? ")[0].rsplit("Apply this hunk", 1)[1].splitlines()[1:]
    assert listing == [
        "+  1: @@ -4,7 +4,7 @@  -@tf.function(experimental_relax_shapes=True)",
        "   2: @@ -20,7 +20,7 @@  -    return model.predict(x, verbose=0)",
        "   3: @@ -30,7 +30,7 @@  -        outputs.append(model.predict(batch, verbose=0))",
        "   4: @@ -38,6 +38,6 @@  -@tf.function(experimental_relax_shapes=True)",
    ]
    assert shown_hunks(out) == ["one.py 1", "one.py 2", "one.py 3", "one.py 4", "one.py 2",
                                "two.py 1", "two.py 2", "two.py 1"]


def test_g_with_a_number_out_of_range_stays_on_the_hunk(project):
    code, out, _ = run_session("g9\ngx\ny\nq\n")
    assert code == 0
    assert "Sorry, only 4 hunks available." in out and "Invalid number: 'x'" in out
    landed(project, one="H1", two="")


CLOSE = """\
import tensorflow as tf


@tf.function(experimental_relax_shapes=True)
def first(x):
    return x


@tf.function(experimental_relax_shapes=True)
def second(x):
    return x
"""


def close_session(answers: str, project) -> tuple[int, str, str]:
    (project / "close.py").write_text(CLOSE, encoding="utf-8")
    return run_cli("-i", "-j", "1", "close.py", stdin=answers).outcome


def test_s_splits_a_hunk_and_each_piece_is_decided_alone(project):
    code, out, err = close_session("s\nn\ny\n", project)
    assert code == 0
    assert prompts(out)[0][0] == "Y,n,a,d,A,q,s,e,?"  # one hunk holding both decorators: s is offered
    assert "Split into 2 hunks." in out
    first, second = out.split("Split into 2 hunks.")[1].split("Apply this hunk")[:2]
    assert "close.py  (hunk 1 of 2)" in first and "RTF004 [safe] line 4:" in first and "line 9" not in first
    assert "@@ -1,8 +1,8 @@" in first
    assert "close.py  (hunk 2 of 2)" in second and "RTF004 [safe] line 9:" in second
    assert "@@ -5,7 +5,7 @@" in second
    assert (project / "close.py").read_text() == CLOSE.replace(
        "@tf.function(experimental_relax_shapes=True)\ndef second",
        "@tf.function(reduce_retracing=True)\ndef second")
    assert "1 of 2 hunks applied in 1 file" in err


def test_split_pieces_accepted_together_give_the_whole_hunk(project):
    code, out, _ = close_session("s\ny\ny\n", project)
    assert code == 0
    assert (project / "close.py").read_text() == CLOSE.replace("experimental_relax_shapes", "reduce_retracing")


def editor(tmp_path: Path, monkeypatch, *edits: tuple[str, str]) -> Path:
    """$EDITOR: a script that makes the n-th edit (old, new) on its n-th run; returns its log."""
    script = tmp_path / "editor.py"
    log = tmp_path / "editor.log"
    script.write_text(textwrap.dedent(f"""\
        import pathlib, sys
        edits = {list(edits)!r}
        log = pathlib.Path({str(log)!r})
        runs = log.read_text().count("\\n") if log.exists() else 0
        path = pathlib.Path(sys.argv[1])
        text = path.read_bytes().decode()
        with log.open("a") as handle:
            handle.write(repr(text) + "\\n")
        old, new = edits[min(runs, len(edits) - 1)]
        path.write_bytes(text.replace(old, new).encode())
    """))
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}")
    return log


def test_e_edits_the_hunk_and_the_edit_is_applied(project, monkeypatch, tmp_path):
    log = editor(tmp_path, monkeypatch, ("+@tf.function(reduce_retracing=True)", "+@tf.function(reduce_retracing=True, jit_compile=False)"))
    code, out, err = run_session("e\nn\nn\nn\nn\nn\n")
    assert code == 0, err
    want = expected(ONE, ONE_HUNKS, "").replace(
        "@tf.function(experimental_relax_shapes=True)\ndef pool(x):",
        "@tf.function(reduce_retracing=True, jit_compile=False)\ndef pool(x):")
    assert (project / "one.py").read_text() == want
    buffer = eval(log.read_text().splitlines()[0])
    assert buffer.startswith("# Manual hunk edit mode -- see bottom for a quick guide.\n@@ -4,7 +4,7 @@\n")
    assert "-@tf.function(experimental_relax_shapes=True)\n+@tf.function(reduce_retracing=True)\n" in buffer
    assert "# To remove '-' lines, make them ' ' lines (context)." in buffer
    assert shown_hunks(out)[:2] == ["one.py 1", "one.py 2"]  # the edited hunk is decided: on to the next
    assert "1 of 6 hunks applied in 1 file" in err


def test_e_an_edit_that_does_not_apply_can_be_edited_again(project, monkeypatch, tmp_path):
    log = editor(
        tmp_path, monkeypatch,
        (" def pool(x):\n", " def pool_renamed(x):\n"),  # a context line that is not the file's
        (" def pool_renamed(x):\n", " def pool(x):\n"),  # put back: the hunk applies again
    )
    code, out, _ = run_session("e\ny\nq\n")
    assert code == 0
    assert "Your edited hunk does not apply: its ' ' and '-' lines are no longer the file's lines" in out
    assert 'Edit again (saying "no" discards!) [y/n]? y' in out
    second = eval(log.read_text().splitlines()[1])
    assert " def pool_renamed(x):\n" in second  # the second round starts from the first edit
    landed(project, one="H1", two="")  # accepted once it applied; then q


def test_e_an_edit_that_breaks_the_syntax_is_refused_and_no_discards_it(project, monkeypatch, tmp_path):
    editor(tmp_path, monkeypatch, ("+@tf.function(reduce_retracing=True)", "+@tf.function(reduce_retracing=True"))
    code, out, _ = run_session("e\nn\ny\nq\n")
    assert code == 0
    assert "Your edited hunk does not apply: the file would not parse" in out
    assert shown_hunks(out)[:2] == ["one.py 1", "one.py 1"]  # discarded: the same hunk is asked again
    landed(project, one="H1", two="")  # y took the hunk as it was


def test_e_removing_every_line_aborts_the_edit(project, monkeypatch, tmp_path):
    hunk_text = "".join(f"{line}\n" for line in [
        " model = tf.keras.Sequential([tf.keras.layers.Dense(1)])", " ", " ",
        "-@tf.function(experimental_relax_shapes=True)", "+@tf.function(reduce_retracing=True)",
        " def pool(x):", "     return tf.reduce_mean(x, axis=1)", " "])
    editor(tmp_path, monkeypatch, ("@@ -4,7 +4,7 @@\n" + hunk_text, ""))
    code, out, _ = run_session("e\nn\nq\n")
    assert code == 0
    assert "Every line of the hunk was removed: edit aborted" in out
    landed(project, one="", two="")


def test_e_with_a_failing_editor_leaves_the_hunk_as_it_was(project, monkeypatch):
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", "false")
    code, out, _ = run_session("e\ny\nq\n")
    assert code == 0
    assert "There was a problem with the editor" in out
    landed(project, one="H1", two="")
