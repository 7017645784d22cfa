"""Recording changes nothing the program sees, and the trace file's counts are TensorFlow's.

``benchmarks/fidelity.py`` runs each program alone and under ``retrace-fix
record``, with a probe that reads TensorFlow's own
``experimental_get_tracing_count()`` of every project tf.function (summed over
the Function objects of one origin) at the end.  Here: the lifetime-sensitive
programs of ``benchmarks/fidelity_programs`` (a bound method, lambdas and
temporary objects, a weakref-keyed cache, ``__del__``, generators, variables
created on the first call, tf.functions of a partial and a callable object), run one after another in one process, and one
case of the public-report corpus (padded batches with a lazily built model).
The whole corpus and the executed goldens are the benchmark's (figures in
docs/robustness.md): 58 programs and 112 golden cases, about 15 minutes of
two cores on an idle machine, too long for the suite.
"""

from __future__ import annotations

import concurrent.futures
import importlib.util
import sys
from pathlib import Path

import pytest

pytest.importorskip("tensorflow")  # skipped, not an error, where TensorFlow is not installed

pytestmark = pytest.mark.tf

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
#: what each lifetime program traces alone (TF's count, summed over its functions)
LIFETIME = {
    "bound_method": 8,  # recorded it traced 2 while the recorder held the newest method object
    "del_order": 4,
    "generators": 8,
    "lambda_arg": 12,
    "lazy_variables": 7,  # the trace file said 4: the variable-creation traces were folded
    "partial_callable": 9,  # the trace file said 0: a partial or callable object has no code object
    "weakref_cache": 10,
}
REPORTS = ["h2-mirrored-padded-batches"]  # padded batches under MirroredStrategy (two logical CPUs)


def _load():
    if "fidelity" not in sys.modules:  # dataclasses look their module up in sys.modules
        spec = importlib.util.spec_from_file_location("fidelity", BENCHMARKS / "fidelity.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules["fidelity"] = module
        spec.loader.exec_module(module)
    return sys.modules["fidelity"]


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    """The lifetime programs run one after another in one process (alone, recorded), and the
    corpus case; the two programs run side by side."""
    fidelity = _load()
    programs = fidelity.load_programs(("programs", "reports"), list(LIFETIME) + REPORTS, batch_programs=True)
    assert [p.name for p in programs] == [f"programs ({len(LIFETIME)})"] + [f"reports/{n}" for n in REPORTS]
    work = tmp_path_factory.mktemp("fidelity")
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        return {r.name: r for r in pool.map(lambda p: fidelity.check(p, work), programs)}


def per_program(counts, name):
    return {origin: n for origin, n in (counts or {}).items() if origin.startswith(f"{name}.py::")}


def test_lifetime_programs_print_the_same_recorded(results):
    result = results[f"programs ({len(LIFETIME)})"]
    assert result.outputs == "same" and result.exit_codes == (0, 0)


@pytest.mark.parametrize("name", sorted(LIFETIME))
def test_lifetime_programs_trace_the_same_recorded(results, name):
    result = results[f"programs ({len(LIFETIME)})"]
    alone = per_program(result.alone, name)
    assert sum(alone.values()) == LIFETIME[name]
    assert per_program(result.recorded, name) == alone  # TF's counts, per function
    assert per_program(result.trace_file, name) == alone  # the trace file's total_traces are TF's
    assert not [p for p in result.problems if p.startswith(f"{name}.py::")]


@pytest.mark.parametrize("name", REPORTS)
def test_corpus_programs_trace_and_print_the_same_recorded(results, name):
    result = results[f"reports/{name}"]
    assert result.problems == [] and result.outputs == "same"
    assert result.recorded == result.alone and result.trace_file == result.recorded
    assert result.alone  # the probe saw the program's tf.functions


def test_a_recorder_that_holds_objects_is_caught(results, tmp_path, monkeypatch):
    """The check can fail: with the recorder holding objects for proofs (the opt-in), the bound
    method program traces fewer times recorded than alone."""
    fidelity = _load()
    monkeypatch.setattr(fidelity, "_env", _keeping_env(fidelity._env))
    (program,) = fidelity.load_programs(("programs",), ["bound_method"])
    result = fidelity.check(program, tmp_path)
    assert (sum(result.alone.values()), sum(result.recorded.values())) == (8, 2)
    assert any("TF traced 8 alone, 2 recorded" in p for p in result.problems)


def _keeping_env(make_env):
    def env(probe_out):
        environment = make_env(probe_out)
        environment["RETRACE_FIX_PROOF_KEEP_ALIVE"] = "1"
        return environment
    return env
