"""The engine: files → prefilter → parse → codemods → results, never importing TensorFlow.

Modules (each imported by its own path; this file imports nothing):

* :mod:`~retrace_fix.engine.options`: what a run is asked (:class:`RunOptions`, :class:`FileJob`),
  what it returns (:class:`RunResult`) and which codemods it selects;
* :mod:`~retrace_fix.engine.prefilter`: decoding a file, and which codemods it needs (bytes, then
  CPython's tree) before LibCST sees it;
* :mod:`~retrace_fix.engine.hostile_input`: CPython's verdict on a file and what may not be handed to
  LibCST in this process (nesting, size, long boolean chains);
* :mod:`~retrace_fix.engine.isolation`: running one call in a forked child with a big stack, a memory
  cap and a time limit;
* :mod:`~retrace_fix.engine.process`: one file, start to end (:func:`process_file`), and what a run
  hands on of its result (:func:`without_text`);
* :mod:`~retrace_fix.engine.transform`: one LibCST parse, the codemods in turn, the output checked;
* :mod:`~retrace_fix.engine.notebook_file`: a notebook's code cells as one module, located per cell;
* :mod:`~retrace_fix.engine.call_sites`: RTF005's whole-project pre-pass;
* :mod:`~retrace_fix.engine.pool`: the worker processes and how files are dealt to them;
* :mod:`~retrace_fix.engine.warm_up`: what every worker would build on its first files, built once
  before the pool forks;
* :mod:`~retrace_fix.engine.run`: a run over many files (:func:`run`, :func:`make_jobs`).
"""
