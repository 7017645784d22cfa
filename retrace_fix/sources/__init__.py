"""The files a run reads and writes: which files, read within limits, written atomically.

* :mod:`~retrace_fix.sources.discovery` - which files a run looks at: paths, ``.gitignore``,
  excludes, the project root;
* :mod:`~retrace_fix.sources.ignore_patterns` - gitignore-style patterns that never crash
  and never stall a run;
* :mod:`~retrace_fix.sources.bounded_read` - an input file named on the command line, read
  within a size limit;
* :mod:`~retrace_fix.sources.stdin` - one source from standard input (``-``,
  ``--stdin-filename``);
* :mod:`~retrace_fix.sources.writes` - atomic writes: the one module through which
  retrace-fix writes files.
"""
