"""Bulk runs: many roots in one call (directories, git URLs), one summary row and one patch per root.

Modules (none imported here, so that importing one imports only what it needs):

* :mod:`~retrace_fix.bulk.roots`: the root type, which root each argument belongs to, unique names;
* :mod:`~retrace_fix.bulk.run`: ``--repos FILE``, the per-root report (table, JSON, ``--summary``)
  and ``--patch-dir``;
* :mod:`~retrace_fix.bulk.root_task`: one root processed where a task runs (a Dask worker, or here);
* :mod:`~retrace_fix.bulk.scheduler`: the coordinator of a run of one task per root;
* :mod:`~retrace_fix.bulk.cluster`: running those tasks on a Dask cluster (``--scheduler``);
* :mod:`~retrace_fix.bulk.shard`: ``--shard K/N``;
* :mod:`~retrace_fix.bulk.branches`: ``--branch NAME``, the fixes committed to new branches;
* :mod:`~retrace_fix.bulk.git_sources`: roots given as git URLs and their shallow clones;
* :mod:`~retrace_fix.bulk.git`: the hardened runner every git command goes through.
"""
