"""`retrace-fix apply`: clean trees, drifted trees (.rej), offsets, CRLF, hostile patches (no TensorFlow)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from retrace_fix.patch import diffs
from retrace_fix.patch import apply_files as patches
from retrace_fix.patch.apply_files import apply_patches
from retrace_fix.patch.apply_text import apply_hunks
from retrace_fix.patch.parse import parse_patch
from retrace_fix.patch.paths import validate_path
from retrace_fix.patch.diffs import split_lines
from tests.support.cli_runner import run_cli


def unified_diff(old: str, new: str, path: str) -> str:
    """A patch file's diff (paths C-quoted where git would)."""
    return diffs.unified_diff(old, new, path, quoted=True)


A_OLD = "".join(f"line {i}\n" for i in range(1, 21))
A_NEW = A_OLD.replace("line 3\n", "LINE 3\n").replace("line 17\n", "LINE 17\n")
B_OLD = "import tensorflow as tf\n\n\n@tf.function(experimental_relax_shapes=True)\ndef f(x):\n    return x\n"
B_NEW = B_OLD.replace("experimental_relax_shapes", "reduce_retracing")


def snapshot(top: Path) -> dict[str, bytes | str]:
    """Every file, link and directory under ``top`` with its content / target."""
    seen: dict[str, bytes | str] = {}
    for dirpath, dirnames, filenames in os.walk(top):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            rel = path.relative_to(top).as_posix()
            if path.is_symlink():
                seen[rel] = "link->" + os.readlink(path)
            elif path.is_dir():
                seen[rel] = "dir"
            else:
                seen[rel] = path.read_bytes()
    return seen


@pytest.fixture
def tree(tmp_path):
    root = tmp_path / "root"
    (root / "pkg").mkdir(parents=True)
    (root / "a.py").write_text(A_OLD)
    (root / "pkg" / "b.py").write_text(B_OLD)
    patch = tmp_path / "fix.patch"
    patch.write_text(unified_diff(A_OLD, A_NEW, "a.py") + unified_diff(B_OLD, B_NEW, "pkg/b.py"))
    return root, patch


def test_clean_tree_applies_everything(tree):
    root, patch = tree
    code, out, err = run_cli("apply", "--root", str(root), str(patch)).outcome
    assert code == 0, err
    assert (root / "a.py").read_text() == A_NEW
    assert (root / "pkg" / "b.py").read_text() == B_NEW
    assert "a.py: patched (2 hunks)" in out
    assert "pkg/b.py: patched (1 hunk)" in out
    assert "2 files patched, 0 rejected" in err
    assert not list(root.rglob("*.rej")) and not list(root.rglob("*.retrace-tmp"))


def test_dry_run_writes_nothing(tree):
    root, patch = tree
    before = snapshot(root)
    code, out, _ = run_cli("apply", "--dry-run", "--root", str(root), str(patch)).outcome
    assert code == 0
    assert "a.py: would patch (2 hunks)" in out
    assert snapshot(root) == before


def test_drifted_file_is_left_untouched_with_a_rej(tree):
    root, patch = tree
    drifted = A_OLD.replace("line 16\n", "line sixteen\n")  # context of the second hunk
    (root / "a.py").write_text(drifted)
    code, out, _ = run_cli("apply", "--root", str(root), str(patch)).outcome
    assert code == 1
    assert (root / "a.py").read_text() == drifted  # all or nothing: hunk 1 matched but is not applied
    assert (root / "pkg" / "b.py").read_text() == B_NEW  # the other file still applies
    assert "a.py: rejected: hunk 2 (@@ -14,7 +14,7 @@) does not match" in out
    rej = (root / "a.py.rej").read_text()
    assert rej == unified_diff(A_OLD, A_NEW, "a.py")  # every hunk of the file, as a valid patch
    # the .rej applies once the drift is resolved
    (root / "a.py").write_text(A_OLD)
    code, _, _ = run_cli("apply", "--root", str(root), str(root / "a.py.rej")).outcome
    assert code == 0 and (root / "a.py").read_text() == A_NEW


def test_dry_run_reports_rejects_without_writing_rej(tree):
    root, patch = tree
    (root / "a.py").write_text(A_OLD.replace("line 3\n", "drift\n"))
    before = snapshot(root)
    code, out, _ = run_cli("apply", "--dry-run", "--root", str(root), str(patch)).outcome
    assert code == 1
    assert "a.py: would reject: hunk 1" in out
    assert snapshot(root) == before


def test_offset_match_is_applied_and_reported(tree):
    root, patch = tree
    (root / "a.py").write_text("# new header\n# another\n" + A_OLD)
    code, out, _ = run_cli("apply", "--root", str(root), str(patch)).outcome
    assert code == 0
    assert (root / "a.py").read_text() == "# new header\n# another\n" + A_NEW
    assert "hunk 1 applied at offset +2 lines" in out
    assert "hunk 2 applied at offset +2 lines" in out


def test_applying_twice_reports_already_applied(tree):
    root, patch = tree
    assert run_cli("apply", "--root", str(root), str(patch)).outcome[0] == 0
    code, out, _ = run_cli("apply", "--root", str(root), str(patch)).outcome
    assert code == 0
    assert "a.py: already applied (skipped)" in out
    assert (root / "a.py").read_text() == A_NEW
    assert not list(root.rglob("*.rej"))


def test_missing_file_is_rejected(tree):
    root, patch = tree
    (root / "a.py").unlink()
    code, out, _ = run_cli("apply", "--root", str(root), str(patch)).outcome
    assert code == 1
    assert "a.py: rejected: no such file" in out
    assert not (root / "a.py").exists()
    assert (root / "pkg" / "b.py").read_text() == B_NEW


def test_crlf_file_with_lf_patch_keeps_crlf(tree):
    root, patch = tree
    (root / "a.py").write_bytes(A_OLD.replace("\n", "\r\n").encode())
    code, out, _ = run_cli("apply", "--root", str(root), str(patch)).outcome
    assert code == 0
    assert (root / "a.py").read_bytes() == A_NEW.replace("\n", "\r\n").encode()
    assert "line endings differ from the patch" in out


def test_crlf_patch_on_crlf_file_is_exact(tmp_path):
    old, new = A_OLD.replace("\n", "\r\n"), A_NEW.replace("\n", "\r\n")
    (tmp_path / "a.py").write_bytes(old.encode())
    (tmp_path / "p.patch").write_bytes(unified_diff(old, new, "a.py").encode())
    code, out, _ = run_cli("apply", "--root", str(tmp_path), str(tmp_path / "p.patch")).outcome
    assert code == 0
    assert (tmp_path / "a.py").read_bytes() == new.encode()
    assert "line endings" not in out


def test_plain_paths_without_prefixes_and_stdin(tmp_path):
    (tmp_path / "a.py").write_text(A_OLD)
    text = unified_diff(A_OLD, A_NEW, "a.py").replace("--- a/a.py", "--- a.py").replace("+++ b/a.py", "+++ a.py")
    code, _, _ = run_cli("apply", "--root", str(tmp_path), "-", stdin=text).outcome
    assert code == 0
    assert (tmp_path / "a.py").read_text() == A_NEW


def test_new_and_deleted_files(tmp_path):
    (tmp_path / "old.py").write_text("x = 1\n")
    patch = tmp_path / "p.patch"
    patch.write_text(
        "--- /dev/null\n+++ b/pkg/new.py\n@@ -0,0 +1,2 @@\n+a = 1\n+b = 2\n"
        "--- a/old.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-x = 1\n"
    )
    code, out, _ = run_cli("apply", "--root", str(tmp_path), str(patch)).outcome
    assert code == 0, out
    assert (tmp_path / "pkg" / "new.py").read_text() == "a = 1\nb = 2\n"
    assert not (tmp_path / "old.py").exists()
    assert "pkg/new.py: created" in out and "old.py: deleted" in out
    # again: both are already applied
    code, out, _ = run_cli("apply", "--root", str(tmp_path), str(patch)).outcome
    assert code == 0
    # a new file that exists with other content is rejected
    (tmp_path / "pkg" / "new.py").write_text("other\n")
    (tmp_path / "old.py").write_text("x = 1\n")
    code, out, _ = run_cli("apply", "--root", str(tmp_path), str(patch)).outcome
    assert code == 1
    assert "pkg/new.py: rejected: the patch creates it" in out
    assert (tmp_path / "pkg" / "new.py").read_text() == "other\n"
    assert not (tmp_path / "old.py").exists()


def test_real_git_diff_with_quoted_unicode_name(tmp_path):
    if shutil.which("git") is None:
        pytest.skip("git not installed")
    repo = tmp_path / "repo"
    repo.mkdir()
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@e", "-c", "core.quotepath=true"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    name = "café.py"
    (repo / name).write_text(B_OLD)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "x"], check=True)
    (repo / name).write_text(B_NEW)
    diff = subprocess.run([*git, "diff"], check=True, capture_output=True).stdout
    assert b'"a/caf\\303\\251.py"' in diff
    (tmp_path / "g.patch").write_bytes(diff)
    (repo / name).write_text(B_OLD)
    code, out, err = run_cli("apply", "--root", str(repo), str(tmp_path / "g.patch")).outcome
    assert code == 0, err
    assert (repo / name).read_text() == B_NEW


# --------------------------------------------------------------------------- hostile patches


def hostile_setup(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "root"
    root.mkdir()
    (root / "good.py").write_text(A_OLD)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "target.py").write_text(A_OLD)
    (tmp_path / "outside.py").write_text(A_OLD)
    (root / "linkdir").symlink_to(outside, target_is_directory=True)
    (root / "linkfile.py").symlink_to(tmp_path / "outside.py")
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text(A_OLD)
    return root, outside


HOSTILE = {
    "traversal": "../outside.py",
    "nested-traversal": "pkg/../../outside.py",
    "absolute": "{abs}",
    "symlinked-directory": "linkdir/target.py",
    "symlinked-file": "linkfile.py",
    "into-git": ".git/config",
    "windows-absolute": "C:/outside.py",
    "backslash-traversal": "..\\outside.py",
}


@pytest.mark.parametrize("kind", list(HOSTILE))
def test_hostile_patch_is_refused_and_nothing_changes(tmp_path, kind):
    root, _ = hostile_setup(tmp_path)
    bad = HOSTILE[kind].format(abs=(tmp_path / "outside.py").as_posix())
    good_diff = unified_diff(A_OLD, A_NEW, "good.py")
    header_bad = f"--- {bad}\n+++ {bad}\n" if kind in ("absolute", "windows-absolute") else None
    bad_diff = unified_diff(A_OLD, A_NEW, bad)
    if header_bad:  # no a/ b/ prefix in front of an absolute path
        bad_diff = header_bad + bad_diff.split("\n", 2)[2]
        good_diff = good_diff.replace("--- a/good.py", "--- good.py").replace("+++ b/good.py", "+++ good.py")
    (tmp_path / "first.patch").write_text(good_diff)
    (tmp_path / "evil.patch").write_text(good_diff + bad_diff)  # a good file first, then the bad one
    before = snapshot(tmp_path)
    code, out, err = run_cli("apply", "--root", str(root), str(tmp_path / "first.patch"), str(tmp_path / "evil.patch")).outcome
    assert code == 2
    assert "refused" in err and "nothing was written" in err
    assert out == ""
    assert snapshot(tmp_path) == before  # nothing inside the root, nothing outside


def test_hostile_patch_refused_in_dry_run_too(tmp_path):
    root, _ = hostile_setup(tmp_path)
    (tmp_path / "evil.patch").write_text(unified_diff(A_OLD, A_NEW, "../outside.py"))
    code, _, err = run_cli("apply", "--dry-run", "--root", str(root), str(tmp_path / "evil.patch")).outcome
    assert code == 2 and "leaves the root" in err


def test_symlink_staying_inside_the_root_is_allowed(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "a.py").write_text(A_OLD)
    (tmp_path / "alias").symlink_to(tmp_path / "real", target_is_directory=True)
    (tmp_path / "p.patch").write_text(unified_diff(A_OLD, A_NEW, "alias/a.py"))
    code, _, _ = run_cli("apply", "--root", str(tmp_path), str(tmp_path / "p.patch")).outcome
    assert code == 0
    assert (tmp_path / "real" / "a.py").read_text() == A_NEW
    assert (tmp_path / "alias").is_symlink()


def test_validate_path_rules(tmp_path):
    root = os.path.realpath(tmp_path)
    assert validate_path(root, "pkg/./x.py") == os.path.join(root, "pkg", "x.py")
    assert validate_path(root, "pkg/../x.py") == os.path.join(root, "x.py")  # stays inside
    for bad in ("", "/etc/passwd", "../x", "a/../../x", ".git/hooks/pre-commit", "A/.GIT/x", "~/x", "a\\b", "x\0y", "."):
        with pytest.raises(patches.UnsafePath):
            validate_path(root, bad)


def test_invalid_patch_is_an_error_and_nothing_is_written(tree):
    root, patch = tree
    garbage = root.parent / "garbage.patch"
    garbage.write_text("--- a/a.py\n+++ b/a.py\n@@ -1,3 +1,3 @@\n line 1\n-line 2\n")  # hunk too short
    before = snapshot(root)
    code, _, err = run_cli("apply", "--root", str(root), str(patch), str(garbage)).outcome
    assert code == 2
    assert "garbage.patch" in err and "nothing was written" in err
    assert snapshot(root) == before


def test_renames_and_binary_are_refused(tmp_path):
    (tmp_path / "r.patch").write_text("--- a/x.py\n+++ b/y.py\n@@ -1 +1 @@\n-a\n+b\n")
    code, _, err = run_cli("apply", "--root", str(tmp_path), str(tmp_path / "r.patch")).outcome
    assert code == 2 and "renames" in err


def test_ctrl_c_during_the_write_phase_finishes_the_writes_first(tree, monkeypatch, ctrl_c_delivered):
    root, patch = tree
    real_write = patches._write
    calls = []

    def write_then_interrupt(entry):
        calls.append(entry.relpath)
        if len(calls) == 1:
            os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C after the first file
        return real_write(entry)

    monkeypatch.setattr(patches, "_write", write_then_interrupt)
    with pytest.raises(KeyboardInterrupt):
        apply_patches([str(patch)], root)
    assert calls == ["a.py", "pkg/b.py"]
    assert (root / "a.py").read_text() == A_NEW and (root / "pkg" / "b.py").read_text() == B_NEW
    assert not list(root.rglob("*.retrace-tmp"))


# --------------------------------------------------------------------------- the primitives


def test_split_lines_only_on_newline():
    assert split_lines("a\x0cb\nc\rd\r\ne\u2028f") == ["a\x0cb\n", "c\rd\r\n", "e\u2028f"]
    assert split_lines("") == []


def test_no_newline_at_end_of_file_round_trips():
    for old, new in [("a\nb", "a\nc"), ("a\nb", "a\nb\n"), ("a\nb\n", "a\nb"), ("", "x\n"), ("x\n", "")]:
        diff = unified_diff(old, new, "f.py")
        assert apply_hunks(old, parse_patch(diff)[0].hunks).text == new, (old, new, diff)


LINE = st.sampled_from(["a\n", "b\n", "c\n", "d\r\n", "\x0c\n", "e", "  f\n", "\n", "g\u2028h\n"])


@settings(max_examples=150, deadline=None)
@given(old=st.lists(LINE, max_size=30), new=st.lists(LINE, max_size=30), pick=st.lists(st.booleans(), max_size=12))
def test_any_subset_of_hunks_applies_exactly(old, new, pick):
    # a line without newline may only be last
    old_text = "".join(line if line.endswith("\n") else line + "\n" for line in old[:-1]) + "".join(old[-1:])
    new_text = "".join(line if line.endswith("\n") else line + "\n" for line in new[:-1]) + "".join(new[-1:])
    diff = unified_diff(old_text, new_text, "f.py")
    if not diff:
        assert old_text == new_text
        return
    hunks = parse_patch(diff)[0].hunks
    assert apply_hunks(old_text, hunks, allow_offset=False).text == new_text
    chosen = [h for h, keep in zip(hunks, pick + [True] * len(hunks)) if keep]
    result = apply_hunks(old_text, chosen, allow_offset=False)
    # oracle: splice each chosen hunk's new lines in at its stated position
    lines = split_lines(old_text)
    for hunk in reversed(chosen):
        start = hunk.source_start - 1 if hunk.source_length else hunk.source_start
        lines[start : start + hunk.source_length] = hunk.new_lines
    assert result.text == "".join(lines)


def test_git_patch_with_an_empty_new_file(tmp_path):
    (tmp_path / "g.patch").write_text(
        "diff --git a/sub/__init__.py b/sub/__init__.py\nnew file mode 100644\nindex 0000000..e69de29\n"
    )
    code, out, _ = run_cli("apply", "--root", str(tmp_path), str(tmp_path / "g.patch")).outcome
    assert code == 0, out
    assert (tmp_path / "sub" / "__init__.py").read_bytes() == b""
