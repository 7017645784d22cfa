"""Issue 26, item 3: an output path that is a device node or a FIFO is written as a stream or
refused, never replaced by a regular file (no TensorFlow).

The attack: ``--summary /dev/full`` (as root) replaced the device with a regular file; a FIFO
or character device given to ``--summary``, ``-o``, ``--plot`` or as a ``--patch-dir`` file
became a regular file.  Nothing here touches the real ``/dev``: the devices are made with
``mknod`` in the test's directory (root only), the FIFOs with ``mkfifo``, and ``/dev/stdout``
is a link of the test's own to one of its descriptors.
"""

from __future__ import annotations

import contextlib
import os
import select
import stat
import sys
import threading
from pathlib import Path

import pytest

from retrace_fix.sources.writes import WriteRefused, write_file
from tests.support.cli_runner import run_cli
from tests.bulk.test_run import RELAX, write

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")


@contextlib.contextmanager
def fifo_reader(path: Path):
    """A FIFO at ``path`` with a reader; yields the bytes read so far (a list: complete on exit)."""
    os.mkfifo(path)
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a reader now: a writer's open does not wait
    got: list[bytes] = []
    stop = threading.Event()

    def drain() -> None:
        while True:
            # read before the wait: the last wait must start after the writer is done. A wait that
            # timed out just before the data came, on a thread scheduled late, returned nothing
            # while stop was already set, and the data was never read (a busy machine)
            stopping = stop.is_set()
            ready, _, _ = select.select([fd], [], [], 0.05)
            chunk = b""
            if ready:
                try:
                    chunk = os.read(fd, 1 << 16)
                except BlockingIOError:
                    pass
                got.append(chunk)
            if stopping and not chunk:
                return

    thread = threading.Thread(target=drain, daemon=True)
    thread.start()
    try:
        yield got
    finally:
        stop.set()
        thread.join(10)
        os.close(fd)


def kind(path: Path) -> str:
    mode = os.lstat(path).st_mode
    return "fifo" if stat.S_ISFIFO(mode) else "chr" if stat.S_ISCHR(mode) else "blk" if stat.S_ISBLK(mode) \
        else "link" if stat.S_ISLNK(mode) else "file" if stat.S_ISREG(mode) else "other"


def device(path: Path, mode: int, major: int, minor: int) -> Path:
    try:
        os.mknod(path, mode | 0o600, os.makedev(major, minor))
    except (PermissionError, OSError) as exc:
        pytest.skip(f"cannot make device nodes here ({exc})")
    return path


@pytest.fixture
def project(tmp_path, monkeypatch):
    write(tmp_path / "proj" / "model.py", RELAX)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_a_fifo_that_no_process_reads_is_refused_not_waited_on_forever(project, monkeypatch):
    """A FIFO planted where an output goes (``.retrace/traces.json`` in a downloaded tree, say)."""
    from retrace_fix.sources import writes

    monkeypatch.setattr(writes, "FIFO_READER_WAIT", 0.3)
    os.mkfifo(project / "nobody.fifo")
    code, _, err = run_cli("--diff", "--summary", "nobody.fifo", "proj").outcome
    assert code == 2
    assert "--summary nobody.fifo: not written: is a FIFO that no process reads (waited 0.3 s)" in err
    assert kind(project / "nobody.fifo") == "fifo"


def test_a_reader_that_starts_a_moment_later_is_waited_for(tmp_path):
    """``mkfifo f; consumer < f & retrace-fix --summary f``: the consumer may open it a little later."""
    fifo = tmp_path / "late.fifo"
    os.mkfifo(fifo)
    got: list[bytes] = []

    def late_reader() -> None:
        threading.Event().wait(0.3)
        with open(fifo, "rb") as handle:
            got.append(handle.read())

    thread = threading.Thread(target=late_reader, daemon=True)
    thread.start()
    write_file(fifo, b"the summary\n")
    thread.join(10)
    assert got == [b"the summary\n"] and kind(fifo) == "fifo"


def test_summary_into_a_fifo_is_streamed(project):
    with fifo_reader(project / "summary.fifo") as got:
        code, _, err = run_cli("--diff", "--summary", "summary.fifo", "proj").outcome
    assert code == 1, err  # --diff with a change
    assert kind(project / "summary.fifo") == "fifo"  # today: a regular file
    assert b"".join(got).startswith(b"# retrace-fix summary\n")


def test_a_patch_dir_file_that_is_a_fifo_is_streamed(project):
    (project / "out").mkdir()
    with fifo_reader(project / "out" / "proj.patch") as got:
        code, _, err = run_cli("--patch-dir", "out", "proj").outcome
    assert code == 0, err
    assert kind(project / "out" / "proj.patch") == "fifo"
    assert b"+@tf.function(reduce_retracing=True)" in b"".join(got)


def test_a_trace_file_into_a_fifo_is_streamed_and_no_lock_is_made_beside_it(project):
    with fifo_reader(project / "traces.fifo") as got:
        code, _, err = run_cli("record", "-o", "traces.fifo", "--", sys.executable, "-c", "pass").outcome
    assert code == 0, err
    assert kind(project / "traces.fifo") == "fifo"
    assert b'"functions"' in b"".join(got)
    assert not (project / ".traces.fifo.lock").exists()


def test_a_plot_into_a_fifo_is_streamed(tmp_path):
    pytest.importorskip("matplotlib")
    from retrace_fix.traces.plot import write_plot

    with fifo_reader(tmp_path / "chart.fifo") as got:
        write_plot([], tmp_path / "chart.fifo")
    assert kind(tmp_path / "chart.fifo") == "fifo"
    assert b"".join(got)[:4] == b"\x89PNG"


def test_character_devices_are_written_never_replaced(project):
    null = device(project / "null", stat.S_IFCHR, 1, 3)
    full = device(project / "full", stat.S_IFCHR, 1, 7)
    code, _, err = run_cli("--diff", "--summary", "null", "proj").outcome
    assert code == 1, err
    code, _, err = run_cli("--diff", "--summary", "full", "proj").outcome
    assert code == 2
    assert "retrace-fix: error: --summary full: cannot write: No space left on device" in err
    code, _, err = run_cli("record", "-o", "full", "--", sys.executable, "-c", "pass").outcome
    assert code == 2 and "cannot write full: No space left on device" in err
    assert (kind(null), kind(full)) == ("chr", "chr")  # today: both regular files
    assert not (project / ".full.lock").exists()


def test_a_block_device_is_refused_unopened(project):
    block = device(project / "disk", stat.S_IFBLK, 7, 250)  # a loop device: never opened
    code, _, err = run_cli("--diff", "--summary", "disk", "proj").outcome
    assert code == 2
    assert ("--summary disk: not written: is a block device "
            "(only a regular file, a character device or a FIFO is written)") in err
    assert kind(block) == "blk"


def test_a_link_to_a_descriptor_of_the_process_writes_to_it(project):
    """``--summary /dev/stdout`` with standard output redirected to a file: the file gets the
    summary, the link stays (today: the link was replaced by a regular file)."""
    read_end, write_end = os.pipe()
    try:
        os.symlink(f"/proc/self/fd/{write_end}" if os.path.isdir("/proc/self/fd") else f"/dev/fd/{write_end}",
                   project / "stdout")
        code, _, err = run_cli("--diff", "--summary", "stdout", "proj").outcome
        os.close(write_end)
        write_end = -1
        assert code == 1, err
        assert kind(project / "stdout") == "link"
        assert os.read(read_end, 1 << 16).startswith(b"# retrace-fix summary\n")
    finally:
        os.close(read_end)
        if write_end >= 0:
            os.close(write_end)


def test_a_fifo_in_a_patched_tree_never_stalls_apply(tmp_path):
    """A ``.rej`` path that is a FIFO in a tree from someone else: refused, not waited on, not replaced."""
    root = tmp_path / "root"
    write(root / "a.py", "drifted\n")
    os.mkfifo(root / "a.py.rej")
    patch = tmp_path / "fix.patch"
    patch.write_text("--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-old\n+new\n")
    code, out, err = run_cli("apply", "--root", str(root), str(patch)).outcome
    assert code != 0
    assert kind(root / "a.py.rej") == "fifo"
    assert "is a FIFO, not a regular file" in out + err
    with pytest.raises(WriteRefused, match="is a FIFO, not a regular file"):
        write_file(root / "a.py.rej", b"x", root=root)
