"""Hostile inputs to the run itself (issue 26, item 6): repository lists, patch files, configuration.

* A malformed ``URL@REV`` in ``--repos`` is that root's error: the other roots still get their patches.
* ``apply /dev/zero``, ``--repos /dev/zero`` (and a FIFO): refused at once, nothing read without bound.
* A patch or repository list over the size limit is refused with one line.
"""

from __future__ import annotations

import os

import pytest

from tests.support.cli_runner import run_cli
from tests.bulk.test_run import RELAX, write


@pytest.mark.parametrize("bad", ["https://example.invalid/x.git@-rf", "git@h:x.git@", "ssh://h/x.git@a b"])
def test_malformed_rev_in_repos_is_that_roots_error(tmp_path, bad):
    write(tmp_path / "alpha/model.py", RELAX)
    write(tmp_path / "beta/model.py", RELAX)
    (tmp_path / "repos.txt").write_text(f"alpha\n{bad}\nbeta\n")
    code, out, err = run_cli("--patch-dir", "patches", "--repos", "repos.txt", cwd=tmp_path).outcome
    assert code == 2
    assert "Traceback" not in err and bad.split("@")[0] in err
    assert sorted(p.name for p in (tmp_path / "patches").iterdir()) == ["alpha.patch", "beta.patch"]


def test_malformed_rev_with_shard_is_that_roots_error(tmp_path):
    write(tmp_path / "alpha/model.py", RELAX)
    code, out, err = run_cli("--shard", "1/1", "--diff", "alpha", "git@h:x.git@", cwd=tmp_path).outcome
    assert code == 2
    assert "git@h:x.git@: empty revision after '@'" in err
    assert "+++ b/alpha/model.py" in out or "alpha/model.py" in out


@pytest.mark.parametrize("special", ["/dev/zero", "fifo"])
def test_apply_refuses_a_special_file(tmp_path, special):
    if special == "fifo":
        special = str(tmp_path / "p.fifo")
        os.mkfifo(special)  # nobody writes: a blocking open or read would hang
    code, out, err = run_cli("apply", "--root", str(tmp_path), special, cwd=tmp_path).outcome
    assert code == 2
    assert "not a regular file" in err and "nothing was written" in err, err


@pytest.mark.parametrize("special", ["/dev/zero", "fifo"])
def test_repos_refuses_a_special_file(tmp_path, special):
    if special == "fifo":
        special = str(tmp_path / "p.fifo")
        os.mkfifo(special)
    code, out, err = run_cli("--patch-dir", "p", "--repos", special, cwd=tmp_path).outcome
    assert code == 2
    assert "not a regular file" in err and err.count("\n") == 1, err


def test_apply_from_endless_stdin_stops_at_the_limit(tmp_path, monkeypatch):
    from retrace_fix.patch import apply_files as patches

    monkeypatch.setattr(patches, "MAX_PATCH_BYTES", 1 << 16)
    code, out, err = run_cli("apply", "--root", str(tmp_path), "-", cwd=tmp_path, stdin=b"\0" * (1 << 17)).outcome
    assert code == 2 and "larger than" in err, err


def test_repos_over_the_limit_is_refused(tmp_path, monkeypatch):
    from retrace_fix.bulk import run

    monkeypatch.setattr(run, "MAX_REPOS_BYTES", 1 << 10)
    (tmp_path / "repos.txt").write_text("alpha\n" * 1000)
    code, out, err = run_cli("--patch-dir", "p", "--repos", "repos.txt", cwd=tmp_path).outcome
    assert code == 2 and "larger than" in err and err.count("\n") == 1, err


@pytest.mark.parametrize("option", ["--traces", "--config"])
@pytest.mark.parametrize("special", ["/dev/zero", "fifo"])
def test_traces_and_config_refuse_a_special_file(tmp_path, option, special):
    if special == "fifo":
        special = str(tmp_path / "p.fifo")
        os.mkfifo(special)  # a blocking open would hang the run
    write(tmp_path / "model.py", RELAX)
    code, out, err = run_cli(option, special, "--diff", "model.py", cwd=tmp_path).outcome
    assert code == 2
    assert "not a regular file" in err and err.count("\n") == 1, err
