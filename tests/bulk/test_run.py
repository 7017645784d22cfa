"""Bulk runs over several generated repositories: --patch-dir, --repos, --summary (no TensorFlow)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.cli_runner import run_cli

PREDICT = """\
import tensorflow as tf

model = tf.keras.Sequential([tf.keras.layers.Dense(1)])


@tf.function
def predict_batch(x):
    return model.predict(x, verbose=0)
"""

RELAX = """\
import tensorflow as tf


@tf.function(experimental_relax_shapes=True)
def mean_pool(x):
    return tf.reduce_mean(x, axis=1)
"""

CLEAN = """\
import tensorflow as tf


@tf.function
def double(x):
    return x * 2
"""

LATIN1 = "# -*- coding: latin-1 -*-\n" + RELAX.replace("@tf", "# caf\xe9\n@tf")


def write(path: Path, text: str, newline: str = "\n", encoding: str = "utf-8") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.replace("\n", newline).encode(encoding))


def git_init(path: Path) -> None:
    path.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", str(path)], check=True)


@pytest.fixture
def workspace(tmp_path, monkeypatch):
    if shutil.which("git") is None:
        pytest.skip("git not installed")
    ws = tmp_path / "ws"
    alpha = ws / "repos" / "alpha"
    git_init(alpha)
    write(alpha / "pkg" / "model.py", PREDICT)
    write(alpha / "pkg" / "pool.py", RELAX)
    write(alpha / "pkg" / "clean.py", CLEAN)
    write(alpha / "crlf.py", RELAX, newline="\r\n")
    write(alpha / "legacy.py", LATIN1, encoding="latin-1")
    write(alpha / "nonl.py", RELAX.rstrip("\n"))
    write(alpha / "build" / "generated.py", RELAX)
    write(alpha / ".gitignore", "build/\n")
    beta = ws / "repos" / "beta"
    git_init(beta)
    write(beta / "train.py", RELAX + "\n\n" + PREDICT.split("\n", 1)[1])
    write(beta / "broken.py", "def f(:\n    return tf.function\n")
    gamma = ws / "repos" / "gamma"
    git_init(gamma)
    write(gamma / "ok.py", CLEAN)
    other = ws / "other" / "alpha"  # same name as repos/alpha
    git_init(other)
    write(other / "relax.py", RELAX)
    monkeypatch.chdir(ws)
    return ws


ROOTS = ["repos/alpha", "repos/beta", "repos/gamma", "other/alpha", "repos/missing"]


def tree(top: Path) -> dict[str, bytes]:
    files = {}
    for dirpath, dirnames, filenames in os.walk(top):
        dirnames[:] = [d for d in dirnames if d != ".git"]
        for name in filenames:
            path = Path(dirpath) / name
            files[path.relative_to(top).as_posix()] = path.read_bytes()
    return files


def test_patch_dir_is_identical_for_any_jobs_and_touches_no_source(workspace):
    before = tree(workspace / "repos") | {"other/" + k: v for k, v in tree(workspace / "other").items()}
    code1, out1, err1 = run_cli("--patch-dir", "out1", "-j", "1", *ROOTS).outcome
    code2, out2, _ = run_cli("--patch-dir", "out2", "-j", "2", *ROOTS).outcome
    assert code1 == code2 == 2  # repos/missing and beta/broken.py are errors ...
    after = tree(workspace / "repos") | {"other/" + k: v for k, v in tree(workspace / "other").items()}
    assert after == before  # ... and no source file was touched
    patches1, patches2 = tree(workspace / "out1"), tree(workspace / "out2")
    assert sorted(patches1) == ["alpha-2.patch", "alpha.patch", "beta.patch"]  # gamma: no changes, no patch
    assert patches1 == patches2
    assert out1.replace("out1", "outN") == out2.replace("out2", "outN")
    alpha = patches1["alpha.patch"].decode("latin-1")
    assert alpha.index("--- a/crlf.py") < alpha.index("--- a/legacy.py") < alpha.index("--- a/pkg/model.py")
    assert "generated.py" not in alpha  # .gitignore of the repository applies
    assert "-@tf.function(experimental_relax_shapes=True)\r\n" in alpha  # CRLF kept
    assert "# caf\xe9" in alpha  # latin-1 bytes kept as they are
    assert "\\ No newline at end of file" in alpha
    assert "repos/missing: no such file or directory" in err1
    assert "broken.py" in err1


def test_patches_apply_with_git_and_with_retrace_fix_apply_like_write_mode(workspace, tmp_path):
    roots = ROOTS[:4]
    pristine = tmp_path / "pristine"
    shutil.copytree(workspace, pristine, symlinks=True)
    code, _, _ = run_cli("--patch-dir", str(tmp_path / "patches"), *roots).outcome
    assert code == 2  # beta/broken.py
    # write mode on one copy
    written = tmp_path / "written"
    shutil.copytree(pristine, written, symlinks=True)
    os.chdir(written)
    code, _, _ = run_cli(*roots).outcome
    assert code == 2
    # git apply on another, retrace-fix apply on a third
    for tool in ("git", "retrace-fix"):
        copy = tmp_path / tool
        shutil.copytree(pristine, copy, symlinks=True)
        for root, name in zip(roots, ["alpha", "beta", "gamma", "alpha-2"]):
            patch = tmp_path / "patches" / f"{name}.patch"
            if not patch.exists():
                assert name == "gamma"
                continue
            if tool == "git":
                check = subprocess.run(["git", "apply", "--check", str(patch)], cwd=copy / root,
                                       capture_output=True, text=True)
                assert check.returncode == 0, check.stderr
                subprocess.run(["git", "apply", str(patch)], cwd=copy / root, check=True)
            else:
                code, _, err = run_cli("apply", "--root", str(copy / root), str(patch)).outcome
                assert code == 0, err
        assert tree(copy) == tree(written), tool


def test_text_table_json_and_markdown_summary(workspace):
    code, out, err = run_cli("--patch-dir", "out", "--summary", "out/SUMMARY.md", *ROOTS).outcome
    assert code == 2
    table = out.splitlines()
    assert table[0].split() == ["root", "files", "changed", "fixes", "diagnostics", "errors", "patch"]
    rows = {line.split()[0]: line.split() for line in table[2:7]}
    assert rows["repos/alpha"] == ["repos/alpha", "6", "5", "RTF002:1", "RTF004:4", "0", "0", "out/alpha.patch"]
    assert rows["repos/beta"][1:3] == ["2", "1"] and rows["repos/beta"][-2:] == ["1", "out/beta.patch"]
    assert rows["repos/gamma"] == ["repos/gamma", "1", "0", "-", "0", "0", "-"]
    assert rows["other/alpha"][-1] == "out/alpha-2.patch"
    assert rows["repos/missing"] == ["repos/missing", "0", "0", "-", "0", "1", "-"]
    assert "3 patches written to out" in err
    md = (workspace / "out" / "SUMMARY.md").read_text()
    assert "| `repos/alpha` | 6 | 5 | RTF002 ×1, RTF004 ×4 | 0 | 0 | `out/alpha.patch` |" in md
    assert "| `repos/gamma` | 1 | 0 | – | 0 | 0 | – |" in md
    assert "| code | rule | fixes |" in md  # the rule's name, the word users see (docs/contributing.md)
    assert "| RTF002 | predict-to-call | 2 |" in md and "| RTF004 | reduce-retracing | 6 |" in md
    assert "- `repos/missing`: repos/missing: no such file or directory" in md

    code, out, _ = run_cli("--diff", "--format", "json", *ROOTS).outcome
    assert code == 2
    payload = json.loads(out)
    assert list(payload)[:4] == ["version", "mode", "files", "summary"]
    roots = {r["root"]: r for r in payload["roots"]}
    assert list(roots) == ROOTS
    assert roots["repos/alpha"]["fixes"] == {"RTF002": 1, "RTF004": 4}
    assert roots["repos/alpha"]["files_scanned"] == 6 and roots["repos/alpha"]["patch"] is None
    assert roots["repos/beta"]["errors"] == 1 and "broken.py" in roots["repos/beta"]["error_messages"][0]
    assert roots["other/alpha"]["name"] == "alpha-2"
    assert payload["roots_total"]["fixes_total"] == 8


def test_repos_file_with_comments_and_relative_paths(workspace, tmp_path):
    lists = workspace / "lists"
    lists.mkdir()
    (lists / "repos.txt").write_text(
        "# the roots\n../repos/alpha\n\n   ../repos/beta   # trailing comment\n#../repos/gamma\n"
        f"{workspace / 'other' / 'alpha'}\n"
    )
    code, out, _ = run_cli("--patch-dir", "via-file", "--repos", "lists/repos.txt").outcome
    assert code == 2  # beta/broken.py
    code_args, _, _ = run_cli("--patch-dir", "via-args", "repos/alpha", "repos/beta", str(workspace / "other" / "alpha")).outcome
    assert tree(workspace / "via-file") == tree(workspace / "via-args")
    assert sorted(tree(workspace / "via-file")) == ["alpha-2.patch", "alpha.patch", "beta.patch"]
    assert "repos/gamma" not in out


def test_unreadable_repos_file_is_an_error(workspace):
    code, _, err = run_cli("--diff", "--repos", "nope.txt").outcome
    assert code == 2 and "--repos nope.txt: cannot read" in err


def test_fix_mode_with_a_broken_root_still_fixes_the_others(workspace):
    code, out, err = run_cli("repos/missing", "repos/alpha", "other/alpha").outcome
    assert code == 2
    assert "experimental_relax_shapes" not in (workspace / "repos/alpha/pkg/pool.py").read_text()
    assert "reduce_retracing=True" in (workspace / "other/alpha/relax.py").read_text()
    assert "repos/missing: no such file or directory" in err
    assert "total (3 roots)" in err  # the table goes to stderr when stdout carries the findings


def test_single_root_without_changes_writes_no_patch(workspace):
    code, out, _ = run_cli("--patch-dir", "out", "repos/gamma").outcome
    assert code == 0
    assert not (workspace / "out").exists() or not any((workspace / "out").iterdir())
    assert "repos/gamma" in out


def test_interrupted_run_writes_no_patch(workspace, monkeypatch):
    import retrace_fix.commands.fix as fix_command

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(fix_command, "run", interrupted)
    code, _, _ = run_cli("--patch-dir", "out", *ROOTS[:2]).outcome
    assert code == 130
    assert not (workspace / "out").exists()


def test_patch_dir_with_interactive_is_refused(workspace):
    code, _, err = run_cli("-i", "--patch-dir", "out", "repos/alpha").outcome
    assert code == 2 and "cannot be combined" in err


def test_a_notebook_with_findings_has_the_same_sarif_location_from_a_git_url(tmp_path):
    """A root given as a git URL is processed in a clone: a notebook there that has findings but no
    fix keeps its text (SARIF places its findings in its cells by it), as in a run over the path."""
    from tests.support.gitrepos import new_repo

    cells = [{"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
              "source": "import tensorflow as tf\nx = 1\n"},
             {"cell_type": "markdown", "metadata": {}, "source": "text"},
             {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
              "source": "@tf.function\ndef f(x):\n    return x\n\nfor i in range(3):\n    f(i)\n"}]
    notebook = json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})
    repo = new_repo(tmp_path / "repo", {"nb.ipynb": notebook})
    (tmp_path / "urls.txt").write_text(repo.as_uri() + "\n")

    def locations(*args: str) -> list:
        result = run_cli("--check", "--format", "sarif", *args, cwd=tmp_path)
        results = json.loads(result.stdout)["runs"][0]["results"]
        return [(r["ruleId"], r["locations"]) for r in results]

    plain = locations("repo")
    assert [rule for rule, _ in plain] == ["RTF103"]
    assert plain[0][1][0]["logicalLocations"][0]["name"] == "cell 3"
    assert plain[0][1][0]["physicalLocation"]["region"]["startLine"] == 1  # the cell's own line
    assert locations("--repos", "urls.txt") == plain
