"""Hostile ignore patterns (issue 26, items 4 and 5): a bad or slow pattern never kills or stalls a run.

* A ``.gitignore`` line git cannot use (``!``, ``\\``, ``[z-a]``) is that root's problem:
  reported with its file and line, skipped as git skips it, and every other file and
  root is still fixed.
* The same pattern as ``--exclude`` or in ``[tool.retrace-fix] exclude`` is a usage
  error: exit 2, one line, nothing written.
* ``tool = 5`` (or any ``tool`` that is not a table), a pyproject.toml that is not UTF-8
  or not TOML: a usage error naming the file, never a traceback nor silence.
* Matching is linear in the name's length: ``*a*a*a*a*a*a*a*a*b`` against a name of 60
  ``a``\\ s took over 100 s with Python's backtracking ``re``.
* A property test throws random patterns and names through discovery: no exception,
  bounded time, the same answers as pathspec's reference matcher on names it can match quickly.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from retrace_fix.sources.discovery import discover
from retrace_fix.sources.ignore_patterns import check_patterns, compile_patterns
from tests.support.cli_runner import run_cli
from tests.bulk.test_run import RELAX, write

BAD_PATTERNS = ["!", "\\", "[z-a]", "src/[z-a]/x.py", "a\\"]


def fixed(path: Path) -> bool:
    return "experimental_relax_shapes" not in path.read_text()


@pytest.mark.parametrize("bad", BAD_PATTERNS)
def test_bad_gitignore_line_is_that_roots_problem_and_the_rest_still_runs(tmp_path, bad):
    write(tmp_path / "one/.gitignore", f"skipped.py\n{bad}\nbuild/\n")
    write(tmp_path / "one/model.py", RELAX)
    write(tmp_path / "one/skipped.py", RELAX)
    write(tmp_path / "one/build/gen.py", RELAX)
    write(tmp_path / "two/model.py", RELAX)
    code, out, err = run_cli("--jobs", "1", "one", "two", cwd=tmp_path).outcome
    assert "Traceback" not in err and "internal error" not in err
    assert f"one/.gitignore: line 2: `{bad}`: invalid pattern" in err
    assert fixed(tmp_path / "one/model.py") and fixed(tmp_path / "two/model.py")
    # the good lines around the bad one still apply
    assert not fixed(tmp_path / "one/skipped.py") and not fixed(tmp_path / "one/build/gen.py")
    assert code == 2  # the root's problem is reported as an error


def test_bad_gitignore_line_does_not_stop_other_roots_patches(tmp_path):
    write(tmp_path / "repos/one/.gitignore", "[z-a]\n")
    write(tmp_path / "repos/one/model.py", RELAX)
    write(tmp_path / "repos/two/model.py", RELAX)
    result = run_cli("--jobs", "1", "--patch-dir", "patches", "repos/one", "repos/two", cwd=tmp_path)
    assert "Traceback" not in result.stderr
    assert "repos/one/.gitignore: line 1: `[z-a]`: invalid pattern" in result.stderr
    patches = sorted(p.name for p in (tmp_path / "patches").iterdir())
    assert len(patches) == 2, patches


@pytest.mark.parametrize("bad", BAD_PATTERNS)
def test_bad_exclude_option_is_a_usage_error(tmp_path, bad):
    write(tmp_path / "model.py", RELAX)
    code, out, err = run_cli("--exclude", bad, "model.py", cwd=tmp_path).outcome
    assert code == 2
    assert err.startswith("retrace-fix: error: --exclude: ") and err.count("\n") == 1, err
    assert f"`{bad}`: invalid pattern (" in err and "skipped" not in err
    assert not fixed(tmp_path / "model.py")


@pytest.mark.parametrize("bad", BAD_PATTERNS)
def test_bad_config_exclude_is_a_usage_error(tmp_path, bad):
    (tmp_path / "pyproject.toml").write_text("[tool.retrace-fix]\nexclude = ['%s']\n" % bad)
    write(tmp_path / "model.py", RELAX)
    code, out, err = run_cli("model.py", cwd=tmp_path).outcome
    assert code == 2
    assert err.startswith("retrace-fix: error: ") and "pyproject.toml: `exclude`" in err and err.count("\n") == 1, err
    assert not fixed(tmp_path / "model.py")


@pytest.mark.parametrize("text, words", [
    ("tool = 5\n", "`tool` must be a table"),
    ("tool = 'retrace-fix'\n", "`tool` must be a table"),
    ("[tool]\nretrace-fix = 5\n", "[tool.retrace-fix] must be a table"),
    ("[tool.retrace-fix\n", "invalid TOML"),
    (b"[tool.other]\nname = '\xff'\n", "not valid UTF-8"),
])
def test_unusable_pyproject_from_the_current_directory_up_is_a_usage_error(tmp_path, text, words):
    data = text if isinstance(text, bytes) else text.encode()
    (tmp_path / "pyproject.toml").write_bytes(data)
    write(tmp_path / "sub/model.py", RELAX)
    code, out, err = run_cli("model.py", cwd=tmp_path / "sub").outcome
    assert code == 2, err
    assert "Traceback" not in err and words in err and "pyproject.toml" in err
    assert err.count("\n") == 1, err
    assert not fixed(tmp_path / "sub/model.py")


def test_bench_exclude_is_checked_too():
    from retrace_fix.bench import BenchError
    from retrace_fix.bench.copying import exclude_matcher

    with pytest.raises(BenchError, match=r"--exclude: `\[z-a\]`: invalid pattern"):
        exclude_matcher(Path("/nonexistent"), Path("/nonexistent"), ["[z-a]"])


def test_star_pattern_against_a_long_name_is_linear(tmp_path):
    """Python's re: 6 stars 4.6 s, 8 stars over 100 s on 60 characters; RE2: microseconds."""
    import re2  # noqa: F401 - a dependency: without it this test would take hours, not fail

    stars = "*a" * 8 + "*b"
    write(tmp_path / ".gitignore", stars + "\n" + "\n".join("*a" * n + "*b" for n in range(2, 30)) + "\n")
    for length in (60, 200):
        write(tmp_path / ("a" * length + ".py"), RELAX)
    (tmp_path / ("a" * 250)).mkdir()
    write(tmp_path / ("a" * 250) / ("a" * 200 + ".py"), RELAX)
    start = time.monotonic()
    found = discover([str(tmp_path)], [(tmp_path, ["*a*a*a*a*a*a*a*a*a*a*a*a*b"])])
    elapsed = time.monotonic() - start
    assert len(found.files) == 3 and not found.problems
    assert elapsed < 2.0, elapsed


def test_a_huge_gitignore_is_reported_not_read(tmp_path):
    from retrace_fix.sources.discovery import MAX_GITIGNORE_BYTES

    (tmp_path / ".gitignore").write_bytes(b"*a*b\n" * (MAX_GITIGNORE_BYTES // 5 + 1))
    write(tmp_path / "ab.py", RELAX)
    found = discover([str(tmp_path)], [])
    assert [p.name for p in found.files] == ["ab.py"]
    assert any("larger than" in problem for problem in found.problems)


def test_a_gitignore_of_many_patterns_stays_fast_and_is_capped(tmp_path, monkeypatch):
    """Which patterns match is asked of re2.Set prefilters: one pass per set, not per pattern."""
    from retrace_fix.sources import ignore_patterns

    lines = [f"*a*b/**/gen_{index}_*.py" for index in range(3000)] + ["skip_*.py"]
    patterns = compile_patterns(lines)
    assert not patterns.problems
    start = time.monotonic()
    answers = [patterns.match_file(f"pkg/sub/module_{index}.py") for index in range(300)]
    assert time.monotonic() - start < 1.0  # pattern by pattern: about 25 ms a name
    assert answers == [False] * 300 and patterns.match_file("pkg/skip_me.py")
    assert patterns.match_file("xayb/q/gen_7_x.py") and not patterns.match_file("xayb/q/gen_7.py")
    monkeypatch.setattr(ignore_patterns, "MAX_PATTERNS", 100)
    capped = compile_patterns(lines)
    assert len(capped.patterns) == 100
    assert capped.problems == ["line 101: more than 100 patterns: this line and the rest not used"]


def test_patterns_over_the_set_budget_are_still_matched(monkeypatch):
    """A set RE2 cannot compile within its memory budget is split, down to patterns searched alone."""
    from retrace_fix.sources import ignore_patterns

    monkeypatch.setattr(ignore_patterns, "SET_SIZE", 100_000)  # one set of all: over RE2's budget
    lines = ["*a" * 24 + f"*b{index}" for index in range(1000)] + ["keep.py"]
    patterns = compile_patterns(lines)
    assert not patterns.problems and len(patterns._sets) > 1
    assert patterns.match_file("a" * 30 + "b7") and not patterns.match_file("a" * 30 + "c7")
    assert patterns.match_file("dir/keep.py")


# -- property: random patterns and names through discovery ------------------------------------

PATTERN_CHARS = st.sampled_from(list("ab*?[]!-/\\^ .#\udce9") + ["**", "*/", "**/", "/**", "[!a]", "[a-z]", "[z-a]", "\\*", "[[:alpha:]]"])
PATTERNS = st.lists(st.lists(PATTERN_CHARS, max_size=10).map("".join), min_size=1, max_size=6)
NAME_CHARS = st.sampled_from(list("ab.-_ [!]*?") + ["\\", "\udce9"])  # \udce9: an undecodable byte (Latin-1 é)
NAMES = st.lists(st.text(NAME_CHARS, min_size=1, max_size=12), min_size=1, max_size=3)


def _reference(lines: list[str], name: str) -> bool | None:
    """pathspec's own matcher (Python re) where it accepts the lines; None where it refuses them."""
    import pathspec

    try:
        spec = pathspec.GitIgnoreSpec.from_lines(lines, backend="simple")
    except Exception:
        return None
    return spec.match_file(name)


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(gitignore=PATTERNS, excludes=PATTERNS, names=NAMES)
def test_random_patterns_and_names_never_raise_and_stay_fast(tmp_path_factory, gitignore, excludes, names):
    root = tmp_path_factory.mktemp("prop")
    (root / ".gitignore").write_bytes(("\n".join(gitignore) + "\n").encode("utf-8", "surrogateescape"))
    made = []
    for index, name in enumerate(names):
        name = name.replace("/", "_").strip() or "x"
        if name in (".", ".."):
            name = "x" + name
        path = root / f"d{index}" / (name + ".py")
        path.parent.mkdir()
        path.write_bytes(b"x = 1\n")
        made.append(path)
    bad = check_patterns(excludes)
    usable = [p for p in excludes if check_patterns([p]) is None]
    assert (bad is None) == (usable == excludes)
    start = time.monotonic()
    found = discover([str(root)], [(root, usable)])
    assert time.monotonic() - start < 2.0
    assert {p for p in found.files} <= set(made)
    # same answers as pathspec where its matcher accepts every line (short names: it is quick there)
    lines = [line for line in gitignore if not compile_patterns([line]).problems]
    if any("[[" in line or "\udce9" in line for line in lines):
        return  # `[[:alpha:]]`: RE2 reads git's character class, Python's re a nested set; git agrees with RE2
    for path in made:
        rel = path.relative_to(root).as_posix()
        expected = _reference(lines, rel)
        if expected is not None:
            assert compile_patterns(lines).match_file(rel) == expected, (lines, rel)


def test_names_and_patterns_that_are_not_utf8(tmp_path):
    """An undecodable byte in a name (Python's surrogateescape) crashed RE2, which takes only UTF-8;
    a Latin-1 .gitignore line still meets the Latin-1 names, as in git."""
    root = os.fsencode(tmp_path)
    (tmp_path / ".gitignore").write_bytes(b"caf\xe9_*.py\n[z-a]\xff\n")
    for name in (b"caf\xe9_skip.py", b"caf\xe9.py", b"model.py"):
        with open(root + b"/" + name, "wb") as handle:
            handle.write(RELAX.encode())
    code, out, err = run_cli("--jobs", "1", "--diff", ".", cwd=tmp_path).outcome
    assert "Traceback" not in err and "internal error" not in err
    assert ".gitignore: line 2:" in err and "invalid pattern" in err
    assert '+++ "b/caf\\351.py"' in out and "+++ b/model.py" in out
    assert "skip" not in out


def test_directory_patterns_keep_gitignore_priority():
    """pathspec marks a directory match with a named group; ours must be its name (an upgrade renaming it fails here)."""
    from pathspec.patterns.gitignore import spec

    from retrace_fix.sources import ignore_patterns

    assert ignore_patterns._DIR_MARK == spec._DIR_MARK
    patterns = compile_patterns(["build/", "!build/keep.py", "*.log", "!important.log"])
    assert patterns.match_file("build/") and patterns.match_file("build/x.py")
    assert not patterns.match_file("build/keep.py")  # a file pattern beats the directory pattern, as pathspec decides
    assert patterns.match_file("a/debug.log") and not patterns.match_file("a/important.log")


def test_a_symbolic_gitignore_is_not_followed_as_git_does_not(tmp_path):
    """git (2.32 on) does not follow a .gitignore that is a link; nor does discovery (no outside file is read)."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret").write_text("x.py\n\\\n")  # a line that would be echoed as a bad pattern
    root = tmp_path / "root"
    root.mkdir()
    os.symlink(outside / "secret", root / ".gitignore")
    write(root / "x.py", RELAX)
    found = discover([str(root)], [])
    assert [p.name for p in found.files] == ["x.py"] and found.problems == []


def test_a_deeper_gitignore_re_includes_what_a_higher_one_ignores_as_git_does(tmp_path, monkeypatch):
    """The deepest ``.gitignore`` with a pattern matching a path decides: its ``!pattern`` brings back a
    file a higher one ignores; a file under an ignored directory stays out (git never looks inside).
    The files found are exactly those git itself does not ignore (``git ls-files --others --exclude-standard``)."""
    import subprocess

    monkeypatch.chdir(tmp_path)
    subprocess.run(["git", "init", "-q", "."], check=True)
    (tmp_path / ".gitignore").write_text("*_gen.py\nbuild/\nskip.py\n")
    files = ["a.py", "a_gen.py", "pkg/keep_gen.py", "pkg/drop_gen.py", "pkg/skip.py", "pkg/deep/skip.py",
             "pkg/deep/other_gen.py", "build/kept_gen.py", "pkg/build/x.py"]
    for name in files:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x = 1\n")
    (tmp_path / "pkg" / ".gitignore").write_text("!keep_gen.py\n!skip.py\n!build/\n")
    (tmp_path / "pkg" / "deep" / ".gitignore").write_text("skip.py\n")
    (tmp_path / "build" / ".gitignore").write_text("!kept_gen.py\n")  # inside an ignored directory
    listed = subprocess.run(["git", "ls-files", "--others", "--exclude-standard"], check=True,
                            capture_output=True, text=True).stdout.split()
    by_git = sorted(name for name in listed if name.endswith(".py"))
    assert by_git == ["a.py", "pkg/build/x.py", "pkg/keep_gen.py", "pkg/skip.py"]
    found = discover(["."], [])
    assert sorted(p.relative_to(tmp_path).as_posix() for p in found.files) == by_git
