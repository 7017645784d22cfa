"""RTF005 call-site-tensor across modules: the whole-project plan, all call sites or none.

No TensorFlow: trace files are written by hand, with the call sites and the proofs a
recording stores (``tests/support/tracefiles.py``).  Real recordings are in
``golden/call-site-tensor/`` and ``tests/codemods/test_call_site_tensor_tf.py``.
"""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path

import pytest

from retrace_fix.codemods._call_site_decision import build_plan, might_convert, wants_files
from retrace_fix.codemods._call_site_records import EDIT, REFUSED
from retrace_fix.engine.call_sites import with_call_site_plans
from retrace_fix.engine.options import RunOptions
from retrace_fix.engine.run import make_jobs, run
from retrace_fix.findings import Tier
from retrace_fix.traces.model import TraceSet, load_trace_files
from tests.support.cli_runner import run_cli
from tests.support.tracefiles import with_proofs


STEPS = """\
import tensorflow as tf


@tf.function
def step(model, x, rate):
    return model(x) * rate
"""

MAIN = """\
from lib.steps import step


def run(model, x):
    for rate in (0.1, 0.2):
        step(model, x, rate)
"""

EVALUATE = """\
import tensorflow as tf
from lib.steps import step as evaluate_step


def evaluate(model, x):
    return evaluate_step(model, x, 0.5)
"""

MODEL = {"kind": "object", "type": "Sequential", "id": 1}
X = {"kind": "tensor", "shape": [2, 3], "dtype": "float32"}


def rate(value: float) -> dict:
    return {"kind": "python", "type": "float", "value": value}


def column(text: str, line: int, needle: str) -> int:
    """The UTF-8 byte column of ``needle`` on ``line`` (how Python records a call's position)."""
    source = text.splitlines()[line - 1]
    return len(source[: source.index(needle)].encode("utf-8"))


def site(files: dict, path: str, line: int, needle: str, count: int = 1) -> dict:
    return {"file": path, "line": line, "column": column(files[path], line, needle), "count": count}


def trace_file(functions: list[dict], result: str = "traced") -> dict:
    data = {"format": "retrace-fix-traces", "version": 2, "tensorflow": "2.21.0", "functions": functions}
    return with_proofs(data, result=result) if result else data


def step_function(sites: list[dict], values=(0.1, 0.2, 0.5)) -> dict:
    return {
        "file": "lib/steps.py", "qualname": "step", "firstlineno": 4, "name": "step",
        "params": ["model", "x", "rate"], "calls": len(values), "reduce_retracing": False,
        "has_input_signature": False,
        "traces": [{"args": {"model": MODEL, "x": X, "rate": rate(v)}, "count": 1, "nested": False, "via": "call"}
                   for v in values],
        "call_sites": sites,
    }


def make_project(root: Path, files: dict) -> Path:
    (root / ".git").mkdir(parents=True)
    for path, text in files.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return root


@pytest.fixture
def project(tmp_path: Path) -> dict:
    files = {"lib/steps.py": STEPS, "lib/__init__.py": "", "main.py": MAIN, "tools/evaluate.py": EVALUATE}
    root = make_project(tmp_path / "proj", files)
    sites = [site(files, "main.py", 6, "step(", 2), site(files, "tools/evaluate.py", 6, "evaluate_step(")]
    (root / "traces.json").write_text(json.dumps(trace_file([step_function(sites)])), encoding="utf-8")
    return {"root": root, "files": files}


def options(root: Path, **kwargs) -> RunOptions:
    return RunOptions(traces=load_trace_files([str(root / "traces.json")]), **kwargs)


def in_dir(root: Path):
    class _Cwd:
        def __enter__(self):
            self.old = os.getcwd()
            os.chdir(root)

        def __exit__(self, *exc):
            os.chdir(self.old)

    return _Cwd()


def fixed(result) -> dict:
    return {r.path: r.fixed for r in result.files}


def lines(result) -> list[str]:
    return [f"{f.path}:{f.line}: {f.code} [{f.tier.value}]{' *' if f.applied else ''} {f.message}" for f in result.findings]


# --------------------------------------------------------------------------- every site, in any module


def test_every_recorded_call_site_is_converted_in_every_module(project):
    root = project["root"]
    with in_dir(root):
        result = run(sorted(root.rglob("*.py")), options(root), jobs=1)
    out = fixed(result)
    assert out["main.py"] == (
        "from lib.steps import step\n"
        "import tensorflow as tf\n\n\n"
        "def run(model, x):\n"
        "    for rate in (0.1, 0.2):\n"
        "        step(model, x, tf.constant(rate, dtype=tf.float32))\n"
    )
    assert "return evaluate_step(model, x, tf.constant(0.5, dtype=tf.float32))\n" in out["tools/evaluate.py"]
    assert out["lib/steps.py"] == STEPS
    found = lines(result)
    assert found == [
        "lib/steps.py:4: RTF005 [safe] * `step` traced 3 times (`rate`: Python float varies): pass `rate` as "
        "tf.constant(..., dtype=tf.float32) at its 2 call sites (3 → 1 traces)",
        "main.py:6: RTF005 [safe] * pass `rate` as tf.constant(..., dtype=tf.float32) so that `step` "
        "(lib/steps.py:4) traces once, not 3 times",
        "tools/evaluate.py:6: RTF005 [safe] * pass `rate` as tf.constant(..., dtype=tf.float32) so that `step` "
        "(lib/steps.py:4) traces once, not 3 times",
    ]
    definition = next(f for f in result.findings if f.path == "lib/steps.py")
    assert "proven on the live function" in definition.reason
    assert "main.py:6 (2 traced calls), tools/evaluate.py:6 (1 traced call)" in definition.reason
    assert "`model` is an object (Sequential)" in definition.reason


def test_output_is_identical_for_any_number_of_workers(project):
    root = project["root"]
    with in_dir(root):
        one = run(sorted(root.rglob("*.py")), options(root), jobs=1)
        two = run(sorted(root.rglob("*.py")), options(root), jobs=2)
    assert fixed(one) == fixed(two)
    assert lines(one) == lines(two)


def test_a_call_site_file_outside_the_run_blocks_every_site(project):
    root = project["root"]
    with in_dir(root):
        result = run([root / "lib" / "steps.py", root / "main.py"], options(root), jobs=1)
    assert all(r.fixed == r.original for r in result.files)
    (finding,) = result.findings
    assert finding.tier is Tier.DIAGNOSTIC
    assert finding.message == (
        "`step` traced 3 times: `rate` cannot be converted at every call site: tools/evaluate.py:6: the file is not "
        "among the files of this run"
    )
    assert "call sites that cannot be rewritten: tools/evaluate.py:6" in finding.reason


def test_a_second_run_with_the_same_traces_prints_nothing(project):
    root = project["root"]
    with in_dir(root):
        first = run(sorted(root.rglob("*.py")), options(root), jobs=1)
        for result in first.files:
            (root / result.path).write_text(result.fixed, encoding="utf-8")
        again = run(sorted(root.rglob("*.py")), options(root), jobs=1)
    assert again.findings == []
    assert all(r.fixed == r.original for r in again.files)


def test_the_plan_reads_only_the_files_of_candidate_functions(project):
    traces = load_trace_files([str(project["root"] / "traces.json")])
    assert wants_files(traces, ["lib/steps.py", "main.py", "tools/evaluate.py", "other.py"]) == {
        "lib/steps.py", "main.py", "tools/evaluate.py"}
    assert wants_files(traces, ["main.py"]) == set()  # the def is not in the run: nothing to decide
    (function,) = traces
    assert might_convert(function)


def test_a_file_without_tf_function_text_is_still_rewritten(tmp_path):
    """The engine's byte prefilter would skip a module that only calls the function."""
    files = {"steps.py": STEPS, "loop.py": "from steps import step\n\nfor r in (1.0, 2.0):\n    step(m, x, r)\n"}
    root = make_project(tmp_path / "proj", files)
    function = step_function([site(files, "loop.py", 4, "step(", 2)], values=(1.0, 2.0))
    function["file"] = "steps.py"
    (root / "traces.json").write_text(json.dumps(trace_file([function])), encoding="utf-8")
    with in_dir(root):
        result = run(sorted(root.glob("*.py")), options(root), jobs=1)
    assert fixed(result)["loop.py"].endswith("    step(m, x, tf.constant(r, dtype=tf.float32))\n")


# --------------------------------------------------------------------------- sites that cannot be rewritten


@pytest.mark.parametrize(
    "main, line, needle, why",
    [
        # the code changed since recording: the call moved
        ("from lib.steps import step\n\n\n\ndef run(model, x):\n    for rate in (0.1, 0.2):\n        step(model, x, rate)\n",
         6, "for", "main.py:6: no call at the recorded position (the code changed since recording? re-record)"),
        # called through a variable
        ("from lib.steps import step\n\n\ndef run(model, x, fn=step):\n    for rate in (0.1, 0.2):\n        fn(model, x, rate)\n",
         6, "fn(", "main.py:6 calls it through `fn` (a variable, a wrapper or library code)"),
        # the value comes through **kwargs
        ("from lib.steps import step\n\n\ndef run(model, x, **kw):\n    for rate in (0.1, 0.2):\n        step(model, x, **kw)\n",
         6, "step(", "main.py:6: passes `rate` through *args/**kwargs"),
        # functools.partial
        ("import functools\nfrom lib.steps import step\n\ndef run(model, x):\n    for rate in (0.1, 0.2):\n        functools.partial(step, model)(x, rate)\n",
         6, "functools", "main.py:6 calls it through `functools.partial(step, model)`, not by name"),
        # suppressed on the call's line
        ("from lib.steps import step\n\n\ndef run(model, x):\n    for rate in (0.1, 0.2):\n        step(model, x, rate)  # retrace-fix: ignore[RTF005]\n",
         6, "step(", "main.py:6: suppressed by a `# retrace-fix: ignore` comment"),
    ],
    ids=["moved", "variable", "kwargs", "partial", "suppressed"],
)
def test_a_site_that_cannot_be_rewritten_blocks_the_fix_and_is_named(tmp_path, main, line, needle, why):
    files = {"lib/steps.py": STEPS, "lib/__init__.py": "", "main.py": main}
    root = make_project(tmp_path / "proj", files)
    sites = [{"file": "main.py", "line": line, "column": column(main, line, needle), "count": 2}]
    (root / "traces.json").write_text(json.dumps(trace_file([step_function(sites, (0.1, 0.2))])), encoding="utf-8")
    with in_dir(root):
        result = run(sorted(root.rglob("*.py")), options(root), jobs=1)
    assert all(r.fixed == r.original for r in result.files)
    (finding,) = [f for f in result.findings if f.code == "RTF005"]
    assert finding.tier is Tier.DIAGNOSTIC and finding.path == "lib/steps.py"
    assert why in finding.reason, finding.reason
    assert len(finding.message) <= 160


def test_a_default_left_out_is_passed_explicitly(tmp_path):
    steps = STEPS.replace("def step(model, x, rate):", "def step(model, x, rate=0.5):")
    main = "from steps import step\n\n\ndef run(m, x):\n    step(m, x)\n    step(m, x, rate=0.25)\n"
    files = {"steps.py": steps, "main.py": main}
    root = make_project(tmp_path / "proj", files)
    function = step_function([site(files, "main.py", 5, "step("), site(files, "main.py", 6, "step(")], (0.5, 0.25))
    function["file"] = "steps.py"
    (root / "traces.json").write_text(json.dumps(trace_file([function])), encoding="utf-8")
    with in_dir(root):
        result = run(sorted(root.glob("*.py")), options(root), jobs=1)
    assert fixed(result)["main.py"] == (
        "from steps import step\nimport tensorflow as tf\n\n\ndef run(m, x):\n"
        "    step(m, x, rate=tf.constant(0.5, dtype=tf.float32))\n"
        "    step(m, x, rate=tf.constant(0.25, dtype=tf.float32))\n"
    )


def test_a_non_literal_default_left_out_is_refused(tmp_path):
    steps = "import tensorflow as tf\n\nRATE = 0.5\n\n@tf.function\ndef step(model, x, rate=RATE):\n    return model(x) * rate\n"
    main = "from steps import step\n\n\ndef run(m, x):\n    step(m, x)\n    step(m, x, 0.25)\n"
    files = {"steps.py": steps, "main.py": main}
    root = make_project(tmp_path / "proj", files)
    function = step_function([site(files, "main.py", 5, "step("), site(files, "main.py", 6, "step(")], (0.5, 0.25))
    function.update(file="steps.py", firstlineno=5)
    (root / "traces.json").write_text(json.dumps(trace_file([function])), encoding="utf-8")
    with in_dir(root):
        result = run(sorted(root.glob("*.py")), options(root), jobs=1)
    assert all(r.fixed == r.original for r in result.files)
    (finding,) = result.findings
    assert "main.py:5: leaves `rate` at its default, which is not a literal to pass here" in finding.reason


def test_a_column_in_utf8_bytes_finds_the_call_after_non_ascii_text(tmp_path):
    main = "from lib.steps import step\n\n\ndef run(model, x):\n    for rate in (0.1, 0.2):\n        é = 1; step(model, x, rate)\n"
    files = {"lib/steps.py": STEPS, "lib/__init__.py": "", "main.py": main}
    root = make_project(tmp_path / "proj", files)
    sites = [site(files, "main.py", 6, "step(", 2)]
    assert sites[0]["column"] == len("        é = 1; ".encode("utf-8"))  # 16 bytes, 15 characters
    (root / "traces.json").write_text(json.dumps(trace_file([step_function(sites, (0.1, 0.2))])), encoding="utf-8")
    with in_dir(root):
        result = run(sorted(root.rglob("*.py")), options(root), jobs=1)
    assert "é = 1; step(model, x, tf.constant(rate, dtype=tf.float32))" in fixed(result)["main.py"]


# --------------------------------------------------------------------------- tiers


def test_without_a_proof_the_fix_is_unsafe_and_applied_only_with_unsafe_fixes(project):
    root = project["root"]
    data = json.loads((root / "traces.json").read_text())
    for function in data["functions"]:
        function["proofs"] = []
    (root / "traces.json").write_text(json.dumps(data), encoding="utf-8")
    with in_dir(root):
        default = run(sorted(root.rglob("*.py")), options(root), jobs=1)
        unsafe = run(sorted(root.rglob("*.py")), options(root, unsafe_fixes=True), jobs=1)
    assert all(r.fixed == r.original for r in default.files)
    assert {f.tier for f in default.findings} == {Tier.UNSAFE} and not any(f.applied for f in default.findings)
    assert all(f.reason.startswith("not proven on the live function") for f in default.findings)
    assert fixed(unsafe)["main.py"] != MAIN and all(f.applied for f in unsafe.findings)


def test_a_failed_proof_is_a_diagnostic_quoting_the_error(project):
    root = project["root"]
    data = json.loads((root / "traces.json").read_text())
    data = trace_file([step_function(data["functions"][0]["call_sites"])], result="failed")
    (root / "traces.json").write_text(json.dumps(data), encoding="utf-8")
    with in_dir(root):
        result = run(sorted(root.rglob("*.py")), options(root), jobs=1)
    assert all(r.fixed == r.original for r in result.files)
    (finding,) = result.findings
    assert finding.tier is Tier.DIAGNOSTIC
    assert finding.message == "`step` traced 3 times: `rate` cannot become a tensor: TypeError: failed in a test"


def test_a_call_that_was_not_recorded_makes_the_fix_unsafe(project):
    root = project["root"]
    (root / "main.py").write_text(MAIN + "\n\ndef later(model, x):\n    return step(model, x, 0.9)\n", encoding="utf-8")
    with in_dir(root):
        result = run(sorted(root.rglob("*.py")), options(root), jobs=1)
    definition = next(f for f in result.findings if f.path == "lib/steps.py")
    assert definition.tier is Tier.UNSAFE
    assert "calls that were not recorded may still pass Python values and trace on their own: " \
        "`step(model, x, 0.9)` at main.py:10" in definition.reason


# --------------------------------------------------------------------------- one problem, one finding


def test_rtf003_and_rtf103_defer_to_rtf005_in_the_def_module(tmp_path):
    text = STEPS + "\n\ndef run(model, x):\n    for rate in (0.1, 0.2, 0.3):\n        step(model, x, rate)\n"
    files = {"steps.py": text}
    root = make_project(tmp_path / "proj", files)
    function = step_function([site(files, "steps.py", 11, "step(", 3)], (0.1, 0.2, 0.3))
    function["file"] = "steps.py"
    (root / "traces.json").write_text(json.dumps(trace_file([function])), encoding="utf-8")
    with in_dir(root):
        both = run([root / "steps.py"], options(root, unsafe_fixes=False), jobs=1)
        without = run([root / "steps.py"], options(root, ignore=("RTF005",)), jobs=1)
    assert [f.code for f in both.findings] == ["RTF005", "RTF005"]
    assert sorted({f.code for f in without.findings}) == ["RTF003"]


def test_the_plan_is_made_once_and_reaches_every_worker(project):
    root = project["root"]
    with in_dir(root):
        jobs = make_jobs(sorted(root.rglob("*.py")))
        planned = with_call_site_plans(jobs, options(root))
    (plan,) = planned.call_site_plans.values()
    (decision,) = plan.decisions.values()
    assert [s.status for s in decision.sites] == [EDIT, EDIT]
    assert plan.editing("main.py") and plan.editing("tools/evaluate.py") and not plan.editing("lib/steps.py")
    assert with_call_site_plans(jobs, RunOptions()) == RunOptions()  # no traces: no plan


def test_the_cli_fixes_across_modules(project):
    root = project["root"]
    check = run_cli("--check", "--traces", "traces.json", ".", cwd=root)
    assert check.returncode == 1, check.stderr
    assert check.stdout.count("RTF005 [*] [safe]") == 3
    fix = run_cli("--traces", "traces.json", ".", cwd=root)
    assert fix.returncode == 0, fix.stderr
    assert "tf.constant(0.5, dtype=tf.float32)" in (root / "tools" / "evaluate.py").read_text()
    again = run_cli("--check", "--traces", "traces.json", ".", cwd=root)
    assert (again.returncode, again.stdout) == (0, "")


def test_build_plan_refuses_a_site_in_a_file_that_cannot_be_parsed(project):
    traces = load_trace_files([str(project["root"] / "traces.json")])
    sources = {"lib/steps.py": STEPS, "main.py": MAIN, "tools/evaluate.py": None}
    (decision,) = build_plan(sources, traces).decisions.values()
    assert [s.status for s in decision.sites] == [EDIT, REFUSED]
    assert decision.sites[1].reason == "tools/evaluate.py:6: the file cannot be parsed"
    assert decision.tier is Tier.DIAGNOSTIC


def test_trace_set_without_call_sites_gives_no_plan(project):
    data = json.loads((project["root"] / "traces.json").read_text())
    data["functions"][0]["call_sites"] = []
    traces = TraceSet.from_json(data)
    assert build_plan({"lib/steps.py": STEPS}, traces).decisions == {}




def test_a_proven_conversion_is_preferred_to_an_unproven_signature(tmp_path):
    """Where RTF003's signature has no proof but the call-site conversion has one, RTF005 fixes it (safe)
    and RTF003 writes nothing; with both proven, the signature wins and RTF005 says nothing."""
    steps = "import tensorflow as tf\n\n\n@tf.function\ndef step(x, rate):\n    return x * rate\n"
    main = "from steps import step\n\n\ndef run(x):\n    for rate in (0.1, 0.2):\n        step(x, rate)\n"
    files = {"steps.py": steps, "main.py": main}
    root = make_project(tmp_path / "proj", files)
    function = {
        "file": "steps.py", "qualname": "step", "firstlineno": 4, "name": "step", "params": ["x", "rate"],
        "calls": 2, "traces": [{"args": {"x": X, "rate": rate(v)}, "count": 1, "nested": False, "via": "call"}
                               for v in (0.1, 0.2)],
        "call_sites": [site(files, "main.py", 6, "step(", 2)],
    }
    data = trace_file([function])
    (root / "traces.json").write_text(json.dumps(data), encoding="utf-8")
    with in_dir(root):
        both_proven = run(sorted(root.glob("*.py")), options(root), jobs=1)
    assert [f.code for f in both_proven.findings] == ["RTF003"]
    data["functions"][0]["proofs"] = [p for p in data["functions"][0]["proofs"] if p["fix"] != "input_signature"]
    (root / "traces.json").write_text(json.dumps(data), encoding="utf-8")
    with in_dir(root):
        result = run(sorted(root.glob("*.py")), options(root), jobs=1)
    assert [(f.code, f.tier) for f in result.findings] == [("RTF005", Tier.SAFE), ("RTF005", Tier.SAFE)]
    assert fixed(result)["steps.py"] == steps
    assert "step(x, tf.constant(rate, dtype=tf.float32))" in fixed(result)["main.py"]
    definition = next(f for f in result.findings if f.path == "steps.py")
    assert "the signature RTF003 would write is not proven" in definition.reason


@pytest.mark.parametrize("blocker", ["model, ", ""], ids=["rtf005", "rtf003"])
def test_a_body_that_draws_at_trace_time_makes_fewer_traces_unsafe(tmp_path, blocker):
    """`np.random.uniform` in the body runs once per trace (tensorflow/tensorflow#33297): a fix that
    removes traces removes draws, and the results change.  Unsafe, whichever code fixes it."""
    steps = ("import numpy as np\nimport tensorflow as tf\n\n\n@tf.function\n"
             f"def augment({blocker}x, level):\n"
             "    return x * np.random.uniform(0.5, 1.5) + tf.cast(level, tf.float32)\n")
    main = f"from steps import augment\n\n\ndef run(model, x):\n    for level in (0, 1, 2):\n        augment({blocker}x, level)\n"
    files = {"steps.py": steps, "main.py": main}
    root = make_project(tmp_path / "proj", files)
    args = ({"model": MODEL} if blocker else {}) | {"x": X}
    function = {
        "file": "steps.py", "qualname": "augment", "firstlineno": 5, "name": "augment",
        "params": [*args, "level"], "calls": 3,
        "traces": [{"args": {**args, "level": {"kind": "python", "type": "int", "value": v}}, "count": 1,
                    "nested": False, "via": "call"} for v in (0, 1, 2)],
        "call_sites": [site(files, "main.py", 6, "augment(", 3)],
    }
    (root / "traces.json").write_text(json.dumps(trace_file([function])), encoding="utf-8")
    with in_dir(root):
        result = run(sorted(root.glob("*.py")), options(root, select=("RTF003", "RTF005")), jobs=1)
    assert all(r.fixed == r.original for r in result.files)
    assert result.findings and {f.tier for f in result.findings} == {Tier.UNSAFE}
    assert {f.code for f in result.findings} == ({"RTF005"} if blocker else {"RTF003"})
    assert all("the body draws `np.random.uniform(0.5, 1.5)` while tracing" in f.reason for f in result.findings)


def _drift_tier(body: str) -> Tier:
    text = f"import tensorflow as tf\n\n\n@tf.function\ndef f(x):\n{textwrap.indent(body, '    ')}\n\n\nf(a)\nf(b)\n"
    function = {
        "file": "m.py", "qualname": "f", "firstlineno": 4, "name": "f", "params": ["x"], "calls": 2,
        "traces": [{"args": {"x": {"kind": "tensor", "shape": [2], "dtype": d}}, "count": 1, "nested": False,
                    "via": "call"} for d in ("float64", "float32")],
        "call_sites": [{"file": "m.py", "line": text.splitlines().index(call) + 1, "column": 0, "count": 1}
                       for call in ("f(a)", "f(b)")],
    }
    traces = TraceSet.from_json(trace_file([function]))
    (decision,) = build_plan({"m.py": text}, traces).decisions.values()
    return decision.tier


def test_a_drifting_dtype_is_cast_safely_only_where_the_body_casts_it_anyway():
    # the body casts to the same dtype (spelled with dtype=); a nested def's own `x` does not count
    assert _drift_tier(
        "def inner(x):\n    return tf.reduce_sum(x)\n"
        "return inner(tf.ones([2])) + tf.reduce_sum(tf.cast(x, dtype=tf.float32))"
    ) is Tier.SAFE
    # the body computes with the float64 values: casting them changes the results
    assert _drift_tier("return tf.reduce_sum(x)") is Tier.UNSAFE
    assert _drift_tier("return tf.reduce_sum(tf.cast(x, tf.float64))") is Tier.UNSAFE
