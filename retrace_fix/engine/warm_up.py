"""What every worker of a pool would build for itself, built once before the pool forks
(:func:`warm_up`): the workers inherit it, as they inherit the imported modules.

A process builds some things on first use: the codemods' dispatch tables (LibCST's
matcher scan of the ~3,000 attributes of each class) and the walks' plan of each LibCST
node class (read from the source of its ``_visit_and_replace_children``).  In a run of
two workers each paid for them on its first files: about 0.25 s of CPU each.  Built
here, they are paid once, before the fork.  What is left to a worker's first file is a
few milliseconds.  (``nbformat`` is not warmed: no run uses it, a fixed notebook is
checked by reading its new sources back, :func:`~retrace_fix.notebooks.notebook.splice_sources`;
warming it cost 0.1 s of the serial start.)
"""

from __future__ import annotations

from typing import Iterable

from retrace_fix import fastvisit
from retrace_fix.codemods import REGISTRY
from retrace_fix.codemods._base import RetraceCodemod
from retrace_fix.engine.options import FileJob, RunOptions, codemods_for_file

#: below this many files a pool does not warm up: its workers may never need what it builds
MIN_FILES = 64


def warm_up(work: list[FileJob], options: RunOptions) -> None:
    """Build what the workers of a run over ``work`` would each build on their first files.

    Never raises, reads and writes no file, and changes no result: it only fills caches
    that the first files fill otherwise.
    """
    if len(work) < MIN_FILES:
        return
    # the codemods of a file no traces concern: those of nearly every file of a run
    _build(codemods_for_file(options, False))


def warm_up_every_codemod() -> None:
    """Build what any run's workers would build on their first files, for every codemod of the
    registry: for processes forked before a run's options are known (``--scheduler local``'s
    workers' server, :mod:`retrace_fix.bulk.worker_preload`).  Never raises."""
    _build(REGISTRY)


def _build(codemods: Iterable[type[RetraceCodemod]]) -> None:
    try:
        for cls in codemods:
            cls.retrace_fix_standard_dispatch()  # its dispatch table, made once per class
        fastvisit.plan_node_types()
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException:  # pragma: no cover - a cache left cold costs time, never a result
        pass
