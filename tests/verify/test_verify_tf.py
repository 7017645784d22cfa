"""``retrace-fix --verify`` end to end on a real TensorFlow program: one command, chained rounds, a fix dropped.

The program fails first (``model.predict`` inside a tf.function); in one command

* round 1 (the original's run recorded nothing: it fails before tracing):
  RTF002 makes it run - kept;
* round 2, from the traces of that run: RTF003 gives ``infer`` a signature
  (4 traces → 1) - kept; RTF001 is offered as a candidate for ``refine``'s loop
  (a call into a helper the rewriter cannot see into) and traces fine (3 → 1),
  but the helper prints once per iteration at trace time, so the program's
  printed output changes - dropped, with the output difference as the reason.

One ``--verify`` run: six fresh TensorFlow processes.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.support.cli_runner import process_env

pytest.importorskip("tensorflow")  # skipped, not an error, where TensorFlow is not installed

pytestmark = pytest.mark.tf

INFERENCE = textwrap.dedent(
    """\
    import tensorflow as tf

    from blocks import log_step

    tf.keras.utils.set_random_seed(0)
    model = tf.keras.Sequential([tf.keras.Input(shape=(3,)), tf.keras.layers.Dense(2)])


    @tf.function
    def infer(x):
        return model.predict(x, verbose=0)


    @tf.function
    def refine(x, n):
        for i in range(n):
            x = log_step(x)
        return x


    def refine_all(x):
        return [refine(x, 2), refine(x, 3), refine(x, 4)]
    """
)
BLOCKS = textwrap.dedent(
    """\
    def log_step(x):
        print("refine step")
        return x * 0.5
    """
)
MAIN = textwrap.dedent(
    """\
    import numpy as np
    import tensorflow as tf

    from inference import infer, refine_all

    rng = np.random.default_rng(0)
    for n in (2, 3, 4, 5):
        y = infer(tf.constant(rng.normal(size=(n, 3)).astype("float32")))
        print("infer", n, round(float(y.numpy().sum()), 4))
    print("refine", [float(r.numpy().sum()) for r in refine_all(tf.ones([2]))])
    """
)
VERIFIED = INFERENCE.replace(
    "@tf.function\ndef infer(x):\n    return model.predict(x, verbose=0)",
    "@tf.function(input_signature=[tf.TensorSpec(shape=[None, 3], dtype=tf.float32)])\n"
    "def infer(x):\n    return model(x, training=False)",
)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "inference.py").write_text(INFERENCE)
    (root / "blocks.py").write_text(BLOCKS)
    (root / "main.py").write_text(MAIN)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def test_verify_chains_rounds_and_drops_the_fix_that_changes_the_printed_output(project: Path):
    result = subprocess.run(
        [sys.executable, "-m", "retrace_fix", "--verify", "--format", "json", ".", "--", sys.executable, "main.py"],
        cwd=project, env=process_env(), capture_output=True, text=True, timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.count("\n") > 1 and "run 1: the original" in result.stderr  # progress on stderr
    # write mode: exactly the verified fixes (RTF002, then RTF003 from the new traces), not RTF001
    assert (project / "inference.py").read_text() == VERIFIED
    assert (project / "blocks.py").read_text() == BLOCKS

    payload = json.loads(result.stdout)
    verify = payload["verify"]
    assert verify["original"]["ok"] is False
    assert "AttributeError" in verify["original"]["error"]
    assert [(f["round"], f["code"], f["status"], f["failure"]) for f in verify["fixes"]] == [
        (1, "RTF002", "verified", ""),
        (2, "RTF003", "verified", ""),
        (2, "RTF001", "rejected", "output"),
    ]
    made_it_run, signature, dropped = verify["fixes"]
    assert made_it_run["proof"].startswith("the original fails (exit code 1: AttributeError: ")
    assert made_it_run["proof"].endswith("with it the program runs (exit 0, 7 traces)")
    assert signature["proof"] == "exit 0, stdout: 14 lines equal, traces 7 → 4"
    assert dropped["proof"] == "stdout: 14 lines before, 6 after"  # "refine step" printed per trace, not per step
    assert dropped["sites"] == 4  # the loop and the three call sites: kept or dropped together
    assert [(r["round"], r["traces_from"]) for r in verify["rounds"]][:2] == [
        (1, "none: the original fails before tracing"), (2, "the run that proved round 1")]
    assert verify["fixed"] == {**verify["fixed"], "ok": True, "traces": 4}
    assert {(f["qualname"], f["traces_after"]) for f in verify["functions"]} == {("infer", 1), ("refine", 3)}
    assert verify["runs"] == 6 and verify["runs"] <= verify["max_runs"]

    findings = {f["code"]: f for f in payload["files"][0]["findings"]}
    assert findings["RTF001"]["applied"] is False and findings["RTF001"]["verification"]["status"] == "rejected"
    assert findings["RTF003"]["applied"] is True and findings["RTF003"]["verification"]["round"] == 2

    # the written program runs and prints what the first version that ran printed
    after = subprocess.run([sys.executable, "main.py"], cwd=project, env=process_env(), capture_output=True, text=True,
                           timeout=300)
    assert after.returncode == 0, after.stderr
    assert after.stdout.count("refine step") == 9 and after.stdout.splitlines()[-1].startswith("refine [")
