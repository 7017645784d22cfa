"""Trace-driven fixes end to end, under real TensorFlow: record → fix → run again.

One project of seed-style programs (varying batch sizes, varying sequence
lengths, a Python-int step count, a method, the ``tf.function(f)`` call form,
a train step taking model/optimizer/loss objects, dtype drift), each next to a
hand-fixed twin written the way a careful engineer would fix it.  The whole
project is recorded once and run once more after ``retrace-fix --traces
traces.json .`` (two TensorFlow processes in all):

* every fixed function now traces exactly as often as its hand-fixed twin;
* every output is unchanged (allclose);
* a second fix run prints nothing and changes nothing;
* dtype drift that the body casts away anyway is cast at the call sites (RTF005).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("tensorflow")  # skipped, not an error, where TensorFlow is not installed

import numpy as np

from tests.support.cli_runner import process_env, results_line, run_cli, run_cli_process

pytestmark = pytest.mark.tf


SCENARIOS = {
    # seed 004, Test 2: batches of 16, 32 and 64 rows
    "s_batch": """
        import tensorflow as tf

        tf.keras.utils.set_random_seed(1)
        model = tf.keras.Sequential([tf.keras.Input(shape=(50,)), tf.keras.layers.Dense(4)])


        @tf.function{hand}
        def predict_no_signature(X):
            return model(X, training=False)


        RESULTS = [predict_no_signature(tf.random.stateless_normal([b, 50], seed=[b, 0])) for b in (16, 32, 64)]
        FUNCTIONS = {{"predict_no_signature": predict_no_signature}}
    """,
    # seed 001: sequences of different lengths
    "s_seqlen": """
        import tensorflow as tf


        @tf.function{hand}
        def simple_computation(input_tensor):
            return tf.reduce_sum(input_tensor, axis=-1)


        RESULTS = [simple_computation(tf.reshape(tf.range(10.0 * n), [10, n])) for n in (20, 21, 25)]
        FUNCTIONS = {{"simple_computation": simple_computation}}
    """,
    # seed 004, Test 3: a Python int step count
    "s_steps": """
        import tensorflow as tf


        @tf.function{hand}
        def train_with_python_args(X, y, num_steps):
            loss = tf.constant(0.0)
            for i in {range}(num_steps):
                loss = loss + tf.reduce_mean(tf.square(X - y)) * 0.5
            return loss


        X = tf.ones([8, 4])
        y = tf.zeros([8, 4])
        RESULTS = [train_with_python_args(X, y, 10), train_with_python_args(X, y, 20), train_with_python_args(X, y, 30)]
        FUNCTIONS = {{"train_with_python_args": train_with_python_args}}
    """,
    # a method: `self` is not part of the signature
    "s_method": """
        import tensorflow as tf


        class Normalizer(tf.Module):
            def __init__(self):
                super().__init__()
                self.scale = tf.Variable(2.0)

            @tf.function{hand}
            def normalize(self, x, center=True):
                if center:
                    x = x - tf.reduce_mean(x, axis=0)
                return x * self.scale


        norm = Normalizer()
        RESULTS = [norm.normalize(tf.reshape(tf.range(b * 3.0), [b, 3])) for b in (2, 4, 8)]
        FUNCTIONS = {{"Normalizer.normalize": norm.normalize}}
    """,
    # the tf.function(f) call form
    "s_callform": """
        import tensorflow as tf


        def scale_rows(x, factor):
            return x * factor


        scale_rows_fn = tf.function(scale_rows{hand_call})
        RESULTS = [scale_rows_fn(tf.ones([n, 2]), tf.constant(2.0)) for n in (1, 2, 3)]
        FUNCTIONS = {{"scale_rows": scale_rows_fn}}
    """,
    # seed 003, Example 1: the same model/optimizer/loss objects, batch sizes 10, 20, 10, 30
    # a Python int exponent (tensorflow/tensorflow#7170, #52190): `k` as an int32 tensor fails
    # ("Input 'y' of 'Pow' Op has type int32 that does not match type float32"); float32 traces
    "s_pow": """
        import tensorflow as tf


        @tf.function{hand}
        def power(x, k):
            return tf.math.pow(x, k)


        RESULTS = [power(tf.constant([1.0, 2.0, 3.0]), k) for k in (1, 2, 3)]
        FUNCTIONS = {{"power": power}}
    """,
    # the rank varies (tensorflow/tensorflow#33434): only `shape=None` accepts every call
    "s_rank": """
        import tensorflow as tf


        @tf.function{hand}
        def total(x):
            return tf.reduce_sum(x * 2.0)


        RESULTS = [total(tf.ones([2])), total(tf.ones([2, 3])), total(tf.ones([2, 3, 4]))]
        FUNCTIONS = {{"total": total}}
    """,
    # a Python float that never varies (`rate=0.25` in every call, no default) next to a varying
    # batch: as a float32 tensor it traces, and the signature covers both
    "s_constant_rate": """
        import tensorflow as tf


        @tf.function{hand}
        def scaled(x, rate):
            return x * (1.0 - rate)


        RESULTS = [scaled(tf.ones([b, 3]), 0.25) for b in (2, 4, 8)]
        FUNCTIONS = {{"scaled": scaled}}
    """,
    # ... the same, but the body branches on it in Python: it blocks the signature, and
    # reduce_retracing still folds the batch sizes
    "s_blocker": """
        import tensorflow as tf


        @tf.function{hand}
        def regularized(x, dropout):
            if dropout > 0:
                x = x * (1.0 - dropout)
            return tf.reduce_sum(x, axis=1)


        RESULTS = [regularized(tf.ones([b, 3]), 0.1) for b in (2, 4, 8, 16)]
        FUNCTIONS = {{"regularized": regularized}}
    """,
    # a helper retraced only while its caller traced: nothing at steady state; fixing the
    # caller fixes both (the helper is left alone)
    "s_nested": """
        import tensorflow as tf


        @tf.function
        def helper(x):
            return x * 2.0


        @tf.function{hand}
        def caller(x):
            return tf.reduce_sum(helper(x), axis=0)


        RESULTS = [caller(tf.ones([b, 3])) for b in (2, 4, 8)]
        FUNCTIONS = {{"caller": caller, "helper": helper}}
    """,
    # a MirroredStrategy step on two logical CPUs: one PerReplica argument, four batch sizes
    "s_dist": """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
        with strategy.scope():
            weights = tf.Variable([[1.0], [2.0], [3.0], [4.0]])


        def replica_step(x):
            return tf.reduce_sum(tf.matmul(x, weights))


        @tf.function{hand}
        def distributed_step(x):
            per_replica = strategy.run(replica_step, args=(x,))
            return strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica, axis=None)


        RESULTS = []
        for batch in (8, 6, 4, 2):
            dataset = tf.data.Dataset.from_tensors(tf.ones([batch, 4]))
            for x in strategy.experimental_distribute_dataset(dataset):
                RESULTS.append(distributed_step(x))
        FUNCTIONS = {{"distributed_step": distributed_step}}
    """,
    "s_train": """
        import numpy as np
        import tensorflow as tf


        @tf.function{hand}
        def train_step(x, y, model, optimizer, loss_fn):
            with tf.GradientTape() as tape:
                logits = model(x)
                loss = loss_fn(y, logits)
            gradients = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(gradients, model.trainable_variables))
            return loss


        tf.keras.utils.set_random_seed(3)
        model = tf.keras.layers.Dense(10)
        optimizer = tf.keras.optimizers.Adam()
        loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
        rng = np.random.default_rng(0)
        RESULTS = []
        for epoch in range(2):
            for batch_size in [10, 20, 10, 30]:
                x = tf.constant(rng.normal(size=(batch_size, 5)), dtype=tf.float32)
                y = rng.integers(0, 10, size=batch_size)
                RESULTS.append(train_step(x, y, model, optimizer, loss_fn))
        FUNCTIONS = {{"train_step": train_step}}
    """,
}

#: how a careful engineer fixes each scenario by hand
HAND_FIXES = {
    "s_batch": {"hand": "(input_signature=[tf.TensorSpec(shape=[None, 50], dtype=tf.float32)])"},
    "s_seqlen": {"hand": "(input_signature=[tf.TensorSpec(shape=[10, None], dtype=tf.float32)])"},
    "s_steps": {
        "hand": "(input_signature=[tf.TensorSpec([8, 4], tf.float32), tf.TensorSpec([8, 4], tf.float32),"
                " tf.TensorSpec([], tf.int32)])",
        "range": "tf.range",
    },
    "s_method": {"hand": "(input_signature=[tf.TensorSpec(shape=[None, 3], dtype=tf.float32)])"},
    "s_callform": {"hand_call": ", input_signature=[tf.TensorSpec([None, 2], tf.float32), tf.TensorSpec([], tf.float32)]"},
    "s_train": {"hand": "(reduce_retracing=True)"},
    "s_pow": {"hand": "(input_signature=[tf.TensorSpec([3], tf.float32), tf.TensorSpec([], tf.float32)])"},
    "s_rank": {"hand": "(input_signature=[tf.TensorSpec(None, tf.float32)])"},
    "s_constant_rate": {"hand": "(input_signature=[tf.TensorSpec([None, 3], tf.float32), tf.TensorSpec([], tf.float32)])"},
    "s_blocker": {"hand": "(reduce_retracing=True)"},
    "s_nested": {"hand": "(input_signature=[tf.TensorSpec([None, 3], tf.float32)])"},
    "s_dist": {"hand": "(reduce_retracing=True)"},
}

#: programs whose retracing no safe fix of RTF003/RTF004 can remove: left alone, with a diagnostic
DIAGNOSED = {
    # a Python int passed to `tf.constant(k + 1)`, which refuses a tensor ("Expected any non-tensor
    # type"): every dtype fails the proof (`tf.constant(k)` itself RTF005 now rewrites with its call
    # sites: golden/call-site-tensor/own-constant-step)
    "s_constant": """
        import tensorflow as tf


        @tf.function
        def shifted(x, k):
            return x + tf.constant(k + 1)


        RESULTS = [shifted(tf.constant([1, 2]), k) for k in (1, 2, 3)]
        FUNCTIONS = {"shifted": shifted}
    """,
}

DRIFT = """
    import tensorflow as tf


    @tf.function
    def mixed_type_op(x, y):
        return tf.cast(x, tf.float32) + y


    RESULTS = [
        mixed_type_op(tf.constant(1, dtype=tf.int32), tf.constant(2.0)),
        mixed_type_op(tf.constant(1.0), tf.constant(2.0)),
        mixed_type_op(tf.constant(1, dtype=tf.int64), tf.constant(2.0)),
    ]
    FUNCTIONS = {"mixed_type_op": mixed_type_op}
"""

DRIVE = """
    import importlib
    import json
    import sys

    import tensorflow as tf

    # two logical CPUs for the MirroredStrategy program (before anything initialises the devices)
    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)

    out = {}
    for name in sys.argv[1:]:
        module = importlib.import_module(name)
        out[name] = {
            "results": [r.numpy().tolist() for r in module.RESULTS],
            "traces": {k: f.experimental_get_tracing_count() for k, f in module.FUNCTIONS.items()},
        }
    print("RESULTS " + json.dumps(out))
"""


def _render(template: str, **fills: str) -> str:
    values = {"hand": "", "hand_call": "", "range": "range", **fills}
    return textwrap.dedent(template).lstrip().format(**values)


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> dict:
    root = tmp_path_factory.mktemp("trace_fixes")
    names = []
    for name, template in SCENARIOS.items():
        (root / f"{name}.py").write_text(_render(template), encoding="utf-8")
        (root / f"hand_{name}.py").write_text(_render(template, **HAND_FIXES[name]), encoding="utf-8")
        names += [name, f"hand_{name}"]
    (root / "s_drift.py").write_text(textwrap.dedent(DRIFT).lstrip(), encoding="utf-8")
    names.append("s_drift")
    for name, program in DIAGNOSED.items():
        (root / f"{name}.py").write_text(textwrap.dedent(program).lstrip(), encoding="utf-8")
        names.append(name)
    (root / "drive.py").write_text(textwrap.dedent(DRIVE).lstrip(), encoding="utf-8")
    originals = {p.name: p.read_text(encoding="utf-8") for p in root.glob("*.py")}

    recorded = run_cli_process(root, "record", "-o", "traces.json", "--", sys.executable, "drive.py", *names, timeout=300)
    assert recorded.returncode == 0, recorded.stderr[-3000:]
    before = results_line(recorded.stdout)
    fixed = run_cli("--traces", "traces.json", ".", cwd=root)
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    rerun = subprocess.run([sys.executable, "drive.py", *names], cwd=root, env=process_env(), capture_output=True,
                           text=True, timeout=300)
    assert rerun.returncode == 0, rerun.stderr[-3000:]
    return {"root": root, "before": before, "after": results_line(rerun.stdout), "fixed": fixed,
            "originals": originals}


def test_the_scenarios_retraced_before(project):
    for name in SCENARIOS:
        for function, count in project["before"][name]["traces"].items():
            hand = project["before"][f"hand_{name}"]["traces"][function]
            assert count > hand, (name, function, count, hand)


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_trace_count_equals_the_hand_fix(project, name):
    after = project["after"][name]["traces"]
    hand = project["after"][f"hand_{name}"]["traces"]
    assert after == hand, (name, (project["root"] / f"{name}.py").read_text())


@pytest.mark.parametrize("name", [*SCENARIOS, "s_drift", *DIAGNOSED])
def test_outputs_are_unchanged(project, name):
    before = project["before"][name]["results"]
    after = project["after"][name]["results"]
    assert len(before) == len(after)
    for b, a in zip(before, after):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-5, atol=1e-6)


def test_the_fix_touched_only_the_retracing_programs(project):
    root = project["root"]
    for path in root.glob("*.py"):
        changed = path.read_text(encoding="utf-8") != project["originals"][path.name]
        assert changed == (path.stem in SCENARIOS or path.stem == "s_drift"), path.name
    s_steps = (root / "s_steps.py").read_text(encoding="utf-8")
    assert "tf.TensorSpec(shape=[], dtype=tf.int32)" in s_steps
    assert "@tf.function(reduce_retracing=True)" in (root / "s_train.py").read_text(encoding="utf-8")
    assert "tf.function(scale_rows, input_signature=" in (root / "s_callform.py").read_text(encoding="utf-8")


def test_a_second_fix_run_prints_nothing(project):
    root = project["root"]
    files = [f"{name}.py" for name in [*SCENARIOS, "s_drift"]]
    snapshot = {f: (root / f).read_text(encoding="utf-8") for f in files}
    again = run_cli("--traces", "traces.json", *files, cwd=root)
    assert again.returncode == 0, again.stderr
    assert again.stdout == ""
    assert {f: (root / f).read_text(encoding="utf-8") for f in files} == snapshot
    diff = run_cli("--diff", "--traces", "traces.json", *files, cwd=root)
    assert (diff.returncode, diff.stdout) == (0, "")


def test_dtype_drift_is_cast_at_the_call_sites(project):
    """The body casts `x` to float32 first: casting at the call sites computes the same, in one trace."""
    text = (project["root"] / "s_drift.py").read_text(encoding="utf-8")
    assert "mixed_type_op(tf.cast(tf.constant(1, dtype=tf.int32), tf.float32), tf.constant(2.0))" in text
    assert "mixed_type_op(tf.cast(tf.constant(1, dtype=tf.int64), tf.float32), tf.constant(2.0))" in text
    assert project["before"]["s_drift"]["traces"] == {"mixed_type_op": 3}
    assert project["after"]["s_drift"]["traces"] == {"mixed_type_op": 1}


@pytest.fixture(scope="module")
def check_of_the_originals(project, tmp_path_factory) -> subprocess.CompletedProcess:
    """``--check`` on the programs as they were recorded (every finding, applied or not)."""
    root = tmp_path_factory.mktemp("originals")
    for name, text in project["originals"].items():
        (root / name).write_text(text, encoding="utf-8")
    (root / "traces.json").write_bytes((project["root"] / "traces.json").read_bytes())
    return run_cli("--check", "--traces", "traces.json", ".", cwd=root)


def test_every_finding_is_one_short_line(check_of_the_originals):
    lines = check_of_the_originals.stdout.splitlines()
    messages = [re.sub(r"^\S+ RTF\d+ (\[\*\] )?\[\w+\] ", "", line) for line in lines]
    long = [message for message in messages if len(message) > 160]
    assert lines and not long, long


def test_the_reason_of_a_failed_proof_quotes_the_error(project):
    check = run_cli("--check", "--format", "json", "--traces", "traces.json", "s_constant.py", cwd=project["root"])
    (finding,) = json.loads(check.stdout)["files"][0]["findings"]
    assert finding["tier"] == "diagnostic"
    assert ("`k` was trial-traced on the live function as a scalar tensor of int32, int64, float32: each fails "
            "(TypeError: Expected any non-tensor type, but got a tensor instead.)") in finding["reason"]


def test_the_proofs_decide_the_tier(check_of_the_originals):
    out = check_of_the_originals.stdout
    # the int exponent becomes the dtype that traced, and the fix is safe
    assert "s_pow.py:4:1: RTF003 [*] [safe] `power` traced 3 times (`k`: Python int varies (1, 2, 3) → float32 tensor)" in out
    # tf.constant(k) refuses a tensor: the static check says so, and the proof failed for every dtype
    assert ("s_constant.py:4:1: RTF003 [diagnostic] `shifted` traced 3 times: `k` (Python int 1, 2, 3) cannot become "
            "a tensor: `tf.constant(k + 1)` needs a Python value\n") in out
    # rank drift: an unknown-rank spec, proven
    assert "s_rank.py:4:1: RTF003 [*] [safe] `total` traced 3 times (`x` rank varies)" in out
    # the never-varying blocker is named, and reduce_retracing is offered for the shapes
    assert ("s_blocker.py:4:1: RTF004 [*] [safe] `regularized` traced 4 times on tensor shapes alone (`x` dim 0: 2, "
            "4, 8, 16): `dropout` blocks an input_signature; add reduce_retracing=True") in out
    # the nested-only helper is not a finding; its caller is
    assert "s_nested.py:4:" not in out and "s_nested.py:9:1: RTF003 [*] [safe] `caller`" in out
    # dtype drift the body casts away: cast at the call sites, proven, in place of RTF003's diagnostic
    assert ("s_drift.py:4:1: RTF005 [*] [safe] `mixed_type_op` traced 3 times (`x`: dtype varies (int32, float32, "
            "int64)): cast `x` to tf.float32 at its 3 call sites (3 → 1 traces)") in out
    assert "s_drift.py:4:1: RTF003" not in out
    # the distributed step generalises like its components
    assert ("s_dist.py:12:1: RTF004 [*] [safe] `distributed_step` traced 4 times on tensor shapes alone: `x` is a "
            "PerReplica value (no input_signature can name it); add reduce_retracing=True") in out
