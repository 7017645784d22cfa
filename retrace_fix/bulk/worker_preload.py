"""Imported once by the server ``--scheduler local``'s Dask workers are forked from, and by each
worker of a cluster started for one run: the engine ready before the first root comes.

Importing it imports the engine (the codemods, LibCST), builds what a worker otherwise builds on
its first files (every codemod's dispatch table and the walks' plans of LibCST's node classes,
:func:`~retrace_fix.engine.warm_up.warm_up_every_codemod`: about 0.2 s of CPU), and moves
everything made so far out of the garbage collector's passes (``gc.freeze``, as the engine's own
worker processes do).  In the server this is done once, while the coordinator imports its own
modules, and each forked worker inherits it: two workers no longer pay 0.2 s each on their first
roots.  Its work is done on import because a ``forkserver`` preloads modules, not functions.
"""

from __future__ import annotations

import gc

import retrace_fix.engine.run  # noqa: F401  (the engine, its codemods and LibCST)
from retrace_fix.engine.warm_up import warm_up_every_codemod

warm_up_every_codemod()
gc.freeze()
