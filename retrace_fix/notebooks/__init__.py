"""Jupyter notebooks: their code cells as one module, and the ``%load_ext retrace_fix`` magic.

* :mod:`~retrace_fix.notebooks.notebook` - a notebook's code cells as one Python text
  (IPython syntax masked), mapped back to cells; diffs per cell; writing cells back;
* :mod:`~retrace_fix.notebooks.ipython` - the ``%retrace_fix`` magic of a live Jupyter or
  IPython session (loaded by :func:`retrace_fix.load_ipython_extension`).
"""
