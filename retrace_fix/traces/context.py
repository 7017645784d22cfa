"""``record_traces(path)``: record the tf.function traces of a block of code in-process."""

from __future__ import annotations

import contextlib
import os
from typing import Iterator

from retrace_fix.traces import recorder as _recorder
from retrace_fix.traces.model import save_trace_file


@contextlib.contextmanager
def record_traces(
    path: str | os.PathLike, project_root: str | None = None, prove: bool = True
) -> Iterator[_recorder.Recorder]:
    """Record every tf.function trace made inside the ``with`` block and write ``path`` on exit.

    The file is written (atomically) also when the block raises.  Paths in it are
    relative to ``project_root`` (default: ``$RETRACE_FIX_PROJECT_ROOT``, else the
    git root of the current directory, else the current directory); functions
    outside it are not recorded.  TensorFlow is not imported here: if it is not
    imported yet, tf.function is patched as soon as it is.  Calls are counted
    from entering the block; a function appears in the file only if it traced
    inside the block.  Yields the :class:`~retrace_fix.traces.recorder.Recorder`
    (``.trace_set()`` gives a snapshot).

    On exit, before the file is written, the candidate fixes of every function
    that traced more than once are trial-traced on the live functions and the
    outcomes stored as ``proofs`` (``prove=False`` skips that; see
    :mod:`retrace_fix.traces.prover` for the time budget).
    """
    active = _recorder.activate(_recorder.Recorder(project_root))
    try:
        yield active
    finally:
        try:
            from retrace_fix.traces.project import project_of

            trace_set = active.trace_set(prove=prove)
            trace_set.project = project_of(active.project_root)
            save_trace_file(trace_set, path)
        finally:
            _recorder.deactivate(active)
