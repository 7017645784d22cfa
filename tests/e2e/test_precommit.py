"""The pre-commit hooks, run the way pre-commit runs them.

pre-commit executes ``entry`` + ``args`` + the staged files of the hook's
types (in parallel chunks when ``require_serial`` is false), from the
repository root, and fails the hook when it exits non-zero *or* modified a
file.  pre-commit itself is not needed: this test reads
``.pre-commit-hooks.yaml`` and does the same in a scratch git repository.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.cli_runner import CliResult, run_cli

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "golden" / "predict-to-call"

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


# --------------------------------------------------------------------------- the manifest


def _scalar(text: str):
    text = text.strip()
    if text.startswith("[") and text.endswith("]"):
        return [item.strip() for item in text[1:-1].split(",") if item.strip()]
    if text in ("true", "false"):
        return text == "true"
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    return text


def load_hooks(path: Path) -> list[dict]:
    """The hook list of a ``.pre-commit-hooks.yaml`` written as ``- key: value`` blocks."""
    hooks: list[dict] = []
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.split(" #")[0].rstrip() if not raw.lstrip().startswith("#") else ""
        if not line.strip():
            continue
        match = re.match(r"^(- |  )(\w+):\s*(.*)$", line)
        assert match, f"unexpected line in {path.name}: {raw!r}"
        if match.group(1) == "- ":
            hooks.append({})
        hooks[-1][match.group(2)] = _scalar(match.group(3))
    return hooks


HOOKS = {hook["id"]: hook for hook in load_hooks(ROOT / ".pre-commit-hooks.yaml")}


def test_manifest_declares_both_hooks():
    assert sorted(HOOKS) == ["retrace-fix", "retrace-fix-check"]
    for hook in HOOKS.values():
        assert hook["language"] == "python"
        assert hook["types"] == ["python"]
        assert hook["require_serial"] is False
        assert shlex.split(hook["entry"])[0] == "retrace-fix"
        assert hook["name"] and hook["description"]
    assert "--check" in shlex.split(HOOKS["retrace-fix-check"]["entry"])
    assert "--check" not in shlex.split(HOOKS["retrace-fix"]["entry"])
    assert "--diff" not in shlex.split(HOOKS["retrace-fix"]["entry"])


def test_manifest_parses_as_yaml_the_same_way():
    yaml = pytest.importorskip("yaml")
    assert yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")) == list(HOOKS.values())


# --------------------------------------------------------------------------- running a hook


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=repo, check=True, capture_output=True, text=True
    ).stdout


def staged_files(repo: Path, hook: dict) -> list[str]:
    names = git(repo, "diff", "--cached", "--name-only", "--diff-filter=ACMR", "-z").split("\0")
    pattern = re.compile(hook.get("files", ""))
    # types: [python] — pre-commit tags .py/.pyi files "python"
    return [n for n in names if n and n.endswith((".py", ".pyi")) and pattern.search(n)]


def entry_argv(hook: dict) -> list[str]:
    argv = shlex.split(hook["entry"]) + list(hook.get("args", []))
    executable = shutil.which(argv[0])
    if executable is None:  # not installed as a console script: same program
        return [sys.executable, "-m", "retrace_fix", *argv[1:]]
    return [executable, *argv[1:]]


def run_hook(repo: Path, hook_id: str, files: list[str] | None = None) -> subprocess.CompletedProcess:
    hook = HOOKS[hook_id]
    if files is None:
        files = staged_files(repo, hook)
    return subprocess.run(entry_argv(hook) + files, cwd=repo, capture_output=True, text=True, timeout=120)


def run_hook_here(repo: Path, hook_id: str, files: list[str]) -> CliResult:
    """:func:`run_hook` through the in-process runner: the same arguments, no new interpreter."""
    hook = HOOKS[hook_id]
    program, *args = shlex.split(hook["entry"])
    assert program == "retrace-fix"
    return run_cli(*args, *hook.get("args", []), *files, cwd=repo)


def hook_passes(repo: Path, proc: subprocess.CompletedProcess | CliResult) -> bool:
    """pre-commit's verdict: exit code 0 and no file modified by the hook."""
    modified = subprocess.run(["git", "diff", "--quiet"], cwd=repo).returncode != 0
    return proc.returncode == 0 and not modified


@pytest.fixture
def repo(tmp_path):
    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True)
    git(repo, "init", "-q")
    git(repo, "config", "user.email", "dev@example.com")
    git(repo, "config", "user.name", "dev")
    git(repo, "config", "commit.gpgsign", "false")
    shutil.copyfile(GOLDEN / "keras-sequential-in-tf-function" / "input.py", repo / "src" / "model.py")
    shutil.copyfile(GOLDEN / "batching-arguments-diagnosed" / "input.py", repo / "src" / "diagnosed.py")
    shutil.copyfile(GOLDEN / "non-keras-predict-left-alone" / "input.py", repo / "src" / "clean.py")
    shutil.copyfile(GOLDEN / "comments-and-formatting-preserved" / "input.py", repo / "src" / "unstaged.py")
    (repo / "notes.txt").write_text("model.predict(x) inside @tf.function\n", encoding="utf-8")
    git(repo, "add", "src/model.py", "src/diagnosed.py", "src/clean.py", "notes.txt")
    return repo


def test_fix_hook_fixes_staged_files_and_then_passes(repo):
    proc = run_hook(repo, "retrace-fix")
    assert proc.returncode == 0, proc.stderr
    # the staged fixable file was fixed, so pre-commit fails the hook ("files were modified")
    assert not hook_passes(repo, proc)
    assert (repo / "src" / "model.py").read_text(encoding="utf-8") == (
        GOLDEN / "keras-sequential-in-tf-function" / "expected.py"
    ).read_text(encoding="utf-8")
    assert git(repo, "diff", "--name-only").split() == ["src/model.py"]
    # diagnostics are shown (they need a person), files not passed are untouched
    assert "src/diagnosed.py:9:9: RTF002 [diagnostic]" in proc.stdout
    assert (repo / "src" / "unstaged.py").read_bytes() == (
        GOLDEN / "comments-and-formatting-preserved" / "input.py"
    ).read_bytes()
    # the developer stages the fix and commits again: the hook passes (the same command, in this process)
    git(repo, "add", "src/model.py")
    second = run_hook_here(repo, "retrace-fix", staged_files(repo, HOOKS["retrace-fix"]))
    assert hook_passes(repo, second), second.stdout + second.stderr


def test_check_hook_fails_on_findings_and_writes_nothing(repo):
    # in this process: the installed executable is started by the fix hook's test above (the same
    # program, the same way); this hook's entry differs in its arguments only
    proc = run_hook_here(repo, "retrace-fix-check", staged_files(repo, HOOKS["retrace-fix-check"]))
    assert proc.returncode == 1
    assert not subprocess.run(["git", "diff", "--quiet"], cwd=repo).returncode  # nothing modified
    lines = proc.stdout.splitlines()
    assert [line.split(": RTF")[0] for line in lines] == [
        "src/diagnosed.py:9:9",
        "src/diagnosed.py:10:9",
        "src/diagnosed.py:11:9",
        "src/model.py:8:12",
        "src/model.py:13:9",
    ]
    assert "src/model.py:8:12: RTF002 [*] [safe]" in proc.stdout


def test_check_hook_passes_on_clean_files(repo):
    git(repo, "rm", "-q", "--cached", "src/model.py", "src/diagnosed.py")
    assert staged_files(repo, HOOKS["retrace-fix-check"]) == ["src/clean.py"]
    proc = run_hook_here(repo, "retrace-fix-check", ["src/clean.py"])
    assert hook_passes(repo, proc), proc.stdout + proc.stderr
    assert proc.stdout == ""


def test_hooks_give_the_same_verdict_on_parallel_chunks(repo):
    """require_serial: false — pre-commit may split the files over several processes."""
    files = staged_files(repo, HOOKS["retrace-fix-check"])
    assert files == ["src/clean.py", "src/diagnosed.py", "src/model.py"]
    # the hook's command in this process (the fix hook's first run above is the installed
    # executable, as pre-commit starts it)
    whole = run_hook_here(repo, "retrace-fix-check", files)
    chunks = [run_hook_here(repo, "retrace-fix-check", chunk) for chunk in (files[:1], files[1:2], files[2:])]
    assert [c.returncode for c in chunks] == [0, 1, 1]
    assert "".join(c.stdout for c in chunks) == whole.stdout


def test_fix_hook_reports_an_unparseable_staged_file(repo):
    (repo / "src" / "broken.py").write_text("@tf.function\ndef f(:\n    return model.predict(x)\n", encoding="utf-8")
    git(repo, "add", "src/broken.py")
    proc = run_hook_here(repo, "retrace-fix", staged_files(repo, HOOKS["retrace-fix"]))
    assert proc.returncode == 2
    assert "src/broken.py" in proc.stderr and "cannot parse" in proc.stderr
    # the other staged files are still fixed
    assert git(repo, "diff", "--name-only").split() == ["src/model.py"]
