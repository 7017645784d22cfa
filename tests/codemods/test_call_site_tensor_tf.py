"""RTF005 end to end under real TensorFlow: record → fix → run again, across modules.

Programs rebuilt from the patterns of public reports where a tf.function took a
Keras model or optimizer (no input_signature possible) next to Python numbers
that change per step, or data whose dtype drifts, and the accepted fix passed
tensors at the call site:

* annealed Python floats next to a model and an optimizer
  (yerkojahve/Meta-Pseudo-label#1, "pass them as tf.constant");
* an exploration rate that decays, passed to an agent's method
  (keiohta/tf2rl#99 and #100, which converted the arguments at the call site);
* labels that arrive as NumPy int64 in one loop and int32 tensors in another
  (NatLabRockies/graph-env#24 for the dtype pattern);
* a float that varies with batch sizes that vary too (RTF005 with RTF004);
* a call made through ``functools.partial`` in another module: nothing edited.

Each program's tf.function lives in one module and is called from another; a
hand-fixed twin does what the engineer did.  One recording (with proofs), one
fix run, one run of the fixed project (three TensorFlow processes in all):

* every fixed function traces exactly as often as its hand-fixed twin;
* every output is unchanged (allclose);
* the call sites were edited in the calling modules, the defs were not (except
  ``reduce_retracing=True`` where RTF004 adds it);
* a second fix run with the same traces prints nothing.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("tensorflow")  # skipped, not an error, where TensorFlow is not installed

import numpy as np

from tests.support.cli_runner import process_env, results_line, run_cli, run_cli_process

pytestmark = pytest.mark.tf


#: name -> (the module with the tf.function, the module that calls it); ``{lib}`` names the first,
#: ``{hand}`` / ``{hand_def}`` are empty in the program and hold the hand fix in its twin
PROGRAMS = {
    "anneal": (
        """
        import tensorflow as tf


        @tf.function{hand_def}
        def train_step(batch, model, optimizer, temperature, kl_weight):
            x, y = batch
            with tf.GradientTape() as tape:
                logits = model(x) / temperature
                fit = tf.reduce_mean(tf.square(logits[:, 0] - y))
                spread = tf.reduce_mean(tf.square(logits))
                loss = fit + kl_weight * spread
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            return loss
        """,
        """
        import numpy as np
        import tensorflow as tf

        from {lib} import train_step

        tf.keras.utils.set_random_seed(0)
        model = tf.keras.Sequential([tf.keras.Input(shape=(3,)), tf.keras.layers.Dense(2)])
        optimizer = tf.keras.optimizers.SGD(0.05)
        rng = np.random.default_rng(0)
        RESULTS = []
        for step in range(8):
            temperature = max(1.0, 2.5 - 0.5 * (step // 2))
            kl_weight = min(1.0, 0.25 * (step // 2))
            batch = (tf.constant(rng.normal(size=(6, 3)).astype("float32")),
                     tf.constant(rng.normal(size=(6,)).astype("float32")))
            RESULTS.append(train_step(batch, model, optimizer, {temperature}, {kl_weight}))
        FUNCTION = train_step
        """,
        {"temperature": "tf.constant(temperature, tf.float32)", "kl_weight": "tf.constant(kl_weight, tf.float32)"},
    ),
    "explore": (
        """
        import tensorflow as tf


        class Agent(tf.Module):
            def __init__(self):
                super().__init__()
                self.q_net = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(3)])

            @tf.function{hand_def}
            def action_values(self, net, obs, epsilon):
                q = net(obs)
                return q * (1.0 - epsilon) + epsilon * tf.reduce_mean(q, axis=1, keepdims=True)
        """,
        """
        import numpy as np
        import tensorflow as tf

        from {lib} import Agent

        tf.keras.utils.set_random_seed(1)
        agent = Agent()
        rng = np.random.default_rng(1)
        RESULTS = []
        epsilon = 0.5
        for episode in range(4):
            obs = tf.constant(rng.normal(size=(2, 4)).astype("float32"))
            RESULTS.append(agent.action_values(agent.q_net, obs, {epsilon}))
            epsilon = epsilon * 0.5
        FUNCTION = agent.action_values
        """,
        {"epsilon": "tf.constant(epsilon, tf.float32)"},
    ),
    "labels": (
        """
        import tensorflow as tf

        classifier = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(4)])


        @tf.function{hand_def}
        def loss_of(model, x, labels):
            onehot = tf.one_hot(tf.cast(labels, tf.int32), 4)
            return tf.reduce_mean(tf.square(model(x) - onehot))
        """,
        """
        import numpy as np
        import tensorflow as tf

        from {lib} import classifier, loss_of

        rng = np.random.default_rng(2)
        x = tf.constant(rng.normal(size=(5, 2)).astype("float32"))
        RESULTS = []
        for _ in range(2):
            numpy_labels = rng.integers(0, 4, size=5)  # int64 from NumPy
            RESULTS.append(loss_of(classifier, x, {numpy_labels}))
            tensor_labels = tf.constant(rng.integers(0, 4, size=5), tf.int32)
            RESULTS.append(loss_of(classifier, x, {tensor_labels}))
        FUNCTION = loss_of
        """,
        {"numpy_labels": "tf.cast(numpy_labels, tf.int32)", "tensor_labels": "tensor_labels"},
    ),
    "batches": (
        """
        import tensorflow as tf

        scorer = tf.keras.Sequential([tf.keras.Input(shape=(3,)), tf.keras.layers.Dense(1)])


        @tf.function{hand_def}
        def weighted_score(model, x, weight):
            return weight * tf.reduce_sum(model(x))
        """,
        """
        import numpy as np
        import tensorflow as tf

        from {lib} import scorer, weighted_score

        rng = np.random.default_rng(3)
        RESULTS = []
        for weight in (0.5, 1.5):
            for rows in (2, 4, 8):
                x = tf.constant(rng.normal(size=(rows, 3)).astype("float32"))
                RESULTS.append(weighted_score(scorer, x, {weight}))
        FUNCTION = weighted_score
        """,
        {"weight": "tf.constant(weight, tf.float32)", "hand_def": "(reduce_retracing=True)"},
    ),
}

#: a recorded call that cannot be rewritten (it goes through functools.partial): nothing is edited
REFUSED = (
    """
    import tensorflow as tf

    shifter = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(2)])


    @tf.function
    def shifted(model, x, offset):
        return model(x) + offset
    """,
    """
    import functools

    import tensorflow as tf

    from partial_lib import shifted, shifter

    RESULTS = [functools.partial(shifted, shifter)(tf.ones([1, 2]), offset) for offset in (1.0, 2.0, 3.0)]
    FUNCTION = shifted
    """,
)

DRIVE = """
    import importlib
    import json
    import sys

    out = {}
    for name in sys.argv[1:]:
        module = importlib.import_module(name)
        out[name] = {
            "results": [r.numpy().tolist() for r in module.RESULTS],
            "traces": module.FUNCTION.experimental_get_tracing_count(),
        }
    print("RESULTS " + json.dumps(out))
"""


def _render(template: str, **fills: str) -> str:
    return textwrap.dedent(template).lstrip().format(**fills)


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> dict:
    root = tmp_path_factory.mktemp("call_sites")
    (root / ".git").mkdir()
    names = []
    for name, (lib, caller, hand) in PROGRAMS.items():
        plain = {key: key for key in hand if key != "hand_def"}
        (root / f"{name}_lib.py").write_text(_render(lib, hand_def=""), encoding="utf-8")
        (root / f"{name}_run.py").write_text(_render(caller, lib=f"{name}_lib", **plain), encoding="utf-8")
        (root / f"hand_{name}_lib.py").write_text(_render(lib, hand_def=hand.get("hand_def", "")), encoding="utf-8")
        fixes = {key: value for key, value in hand.items() if key != "hand_def"}
        (root / f"hand_{name}_run.py").write_text(_render(caller, lib=f"hand_{name}_lib", **fixes), encoding="utf-8")
        names += [f"{name}_run", f"hand_{name}_run"]
    (root / "partial_lib.py").write_text(_render(REFUSED[0]), encoding="utf-8")
    (root / "partial_run.py").write_text(_render(REFUSED[1]), encoding="utf-8")
    names.append("partial_run")
    (root / "drive.py").write_text(textwrap.dedent(DRIVE).lstrip(), encoding="utf-8")
    originals = {p.name: p.read_text(encoding="utf-8") for p in root.glob("*.py")}

    recorded = run_cli_process(root, "record", "-o", "traces.json", "--", sys.executable, "drive.py", *names)
    assert recorded.returncode == 0, recorded.stderr[-3000:]
    check = run_cli("--check", "--traces", "traces.json", ".", cwd=root)
    fixed = run_cli("--traces", "traces.json", ".", cwd=root)
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    rerun = subprocess.run([sys.executable, "drive.py", *names], cwd=root, env=process_env(), capture_output=True,
                           text=True, timeout=600)
    assert rerun.returncode == 0, rerun.stderr[-3000:]
    return {"root": root, "before": results_line(recorded.stdout), "after": results_line(rerun.stdout),
            "check": check, "originals": originals}


def test_the_programs_retraced_before(project):
    for name in PROGRAMS:
        assert project["before"][f"{name}_run"]["traces"] > project["before"][f"hand_{name}_run"]["traces"], name


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_trace_count_equals_the_hand_fix(project, name):
    root = project["root"]
    after = project["after"][f"{name}_run"]["traces"]
    hand = project["after"][f"hand_{name}_run"]["traces"]
    assert after == hand, (name, (root / f"{name}_run.py").read_text(), (root / f"{name}_lib.py").read_text())


@pytest.mark.parametrize("name", [*(f"{n}_run" for n in PROGRAMS), "partial_run"])
def test_outputs_are_unchanged(project, name):
    before = project["before"][name]["results"]
    after = project["after"][name]["results"]
    assert len(before) == len(after)
    for b, a in zip(before, after):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-5, atol=1e-6)


def test_the_call_sites_were_edited_in_the_calling_modules(project):
    root = project["root"]
    anneal = (root / "anneal_run.py").read_text(encoding="utf-8")
    assert ("train_step(batch, model, optimizer, tf.constant(temperature, dtype=tf.float32), "
            "tf.constant(kl_weight, dtype=tf.float32))") in anneal
    assert "agent.action_values(agent.q_net, obs, tf.constant(epsilon, dtype=tf.float32))" in (
        root / "explore_run.py").read_text(encoding="utf-8")
    labels = (root / "labels_run.py").read_text(encoding="utf-8")
    assert "loss_of(classifier, x, tf.cast(numpy_labels, tf.int32))" in labels
    assert "loss_of(classifier, x, tf.cast(tensor_labels, tf.int32))" in labels
    assert "weighted_score(scorer, x, tf.constant(weight, dtype=tf.float32))" in (
        root / "batches_run.py").read_text(encoding="utf-8")
    assert "@tf.function(reduce_retracing=True)" in (root / "batches_lib.py").read_text(encoding="utf-8")
    unchanged = [n for n in project["originals"] if n.startswith(("hand_", "partial_", "drive"))]
    unchanged += [f"{name}_lib.py" for name in PROGRAMS if name != "batches"]
    for name in unchanged:
        assert (root / name).read_text(encoding="utf-8") == project["originals"][name], name


def test_the_findings_name_the_parameters_and_the_refused_call(project):
    out = project["check"].stdout
    assert project["check"].returncode == 1
    assert ("anneal_lib.py:4:1: RTF005 [*] [safe] `train_step` traced 4 times: pass `temperature`, `kl_weight` as "
            "tf.constant(..., dtype=tf.float32) at its call site (4 → 1 traces)\n") in out
    assert "labels_lib.py:6:1: RTF005 [*] [safe] `loss_of` traced 2 times (`labels`: dtype varies (int64, int32))" in out
    assert "batches_lib.py:6:1: RTF004 [*] [safe] `weighted_score` traced 6 times, partly on tensor shapes" in out
    assert ("partial_lib.py:6:1: RTF005 [diagnostic] `shifted` traced 3 times: `offset` cannot be converted at every "
            "call site: partial_run.py:7 calls it through `functools.partial(shifted, shifter)`, not by name") in out
    for line in out.splitlines():
        message = line.split("] ", 1)[-1]
        assert len(message) <= 170, line


def test_a_second_fix_run_prints_nothing(project):
    root = project["root"]
    again = run_cli("--check", "--traces", "traces.json", *(f"{n}_{part}.py" for n in PROGRAMS for part in ("lib", "run")), cwd=root)
    assert (again.returncode, again.stdout) == (0, ""), again.stdout
