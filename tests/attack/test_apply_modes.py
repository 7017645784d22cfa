"""git mode lines in patches (issue 26, item 6): ``apply`` never reports "patched" for what it did not do.

``apply`` writes plain files only: a mode change (``old mode``/``new mode``), a new
executable file and a symbolic link (``new file mode 120000``) are refused with one
line naming the file and ``git apply``, and nothing is written.
"""

from __future__ import annotations

import os

import pytest

from tests.support.cli_runner import run_cli

MODE_CHANGE = """\
diff --git a/run.py b/run.py
old mode 100644
new mode 100755
--- a/run.py
+++ b/run.py
@@ -1 +1 @@
-x = 1
+x = 2
"""

NEW_LINK = """\
diff --git a/link b/link
new file mode 120000
--- /dev/null
+++ b/link
@@ -0,0 +1 @@
+/etc/passwd
\\ No newline at end of file
"""

NEW_EXECUTABLE = """\
diff --git a/tool.sh b/tool.sh
new file mode 100755
--- /dev/null
+++ b/tool.sh
@@ -0,0 +1 @@
+echo hi
"""

NEW_PLAIN = """\
diff --git a/plain.py b/plain.py
new file mode 100644
--- /dev/null
+++ b/plain.py
@@ -0,0 +1 @@
+y = 1
"""


@pytest.mark.parametrize("patch, name, words", [
    (MODE_CHANGE, "run.py", "mode changes are not supported"),
    (NEW_LINK, "link", "symbolic links are not supported"),
    (NEW_EXECUTABLE, "tool.sh", "`new file mode 100755` is not supported"),
    (NEW_PLAIN + MODE_CHANGE, "run.py", "mode changes are not supported"),
])
def test_mode_lines_are_refused_and_nothing_is_written(tmp_path, patch, name, words):
    (tmp_path / "run.py").write_text("x = 1\n")
    (tmp_path / "p.patch").write_text(patch)
    code, out, err = run_cli("apply", "--root", str(tmp_path), "p.patch", cwd=tmp_path).outcome
    assert code == 2, (out, err)
    assert f"{name}: {words}" in err and "git apply" in err
    assert "patched" not in out
    assert (tmp_path / "run.py").read_text() == "x = 1\n"
    assert not os.path.lexists(tmp_path / "link") and not (tmp_path / "tool.sh").exists()
    assert not (tmp_path / "plain.py").exists()  # all or nothing: the good file diff waits too
    assert not os.access(tmp_path / "run.py", os.X_OK)


def test_plain_new_file_mode_still_applies(tmp_path):
    (tmp_path / "p.patch").write_text(NEW_PLAIN)
    code, out, err = run_cli("apply", "--root", str(tmp_path), "p.patch", cwd=tmp_path).outcome
    assert code == 0, err
    assert (tmp_path / "plain.py").read_text() == "y = 1\n"


DELETE_LINK = """\
diff --git a/link b/link
deleted file mode 120000
--- a/link
+++ /dev/null
@@ -1 +0,0 @@
-run.py
\\ No newline at end of file
"""

DELETE_EXECUTABLE = """\
diff --git a/run.py b/run.py
deleted file mode 100755
--- a/run.py
+++ /dev/null
@@ -1 +0,0 @@
-x = 1
"""


def test_deleting_a_link_is_refused_and_an_executable_file_is_deleted(tmp_path):
    (tmp_path / "run.py").write_text("x = 1\n")
    os.symlink("run.py", tmp_path / "link")
    (tmp_path / "p.patch").write_text(DELETE_LINK)
    code, out, err = run_cli("apply", "--root", str(tmp_path), "p.patch", cwd=tmp_path).outcome
    assert code == 2 and "link: symbolic links are not supported" in err
    assert os.path.islink(tmp_path / "link") and (tmp_path / "run.py").exists()
    (tmp_path / "p.patch").write_text(DELETE_EXECUTABLE)
    code, out, err = run_cli("apply", "--root", str(tmp_path), "p.patch", cwd=tmp_path).outcome
    assert code == 0, err
    assert not (tmp_path / "run.py").exists()
