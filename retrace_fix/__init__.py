"""retrace-fix: find and fix TensorFlow tf.function retracing."""

__version__ = "0.1.0"


def load_ipython_extension(shell):  # pragma: no cover - exercised in a real kernel (tests/notebooks/test_notebook_tf.py)
    """``%load_ext retrace_fix``: the ``%retrace_fix`` magic (:mod:`retrace_fix.notebooks.ipython`).

    Imported by name when IPython loads the extension, so that importing ``retrace_fix``
    stays free of the engine's imports.
    """
    from importlib import import_module

    import_module("retrace_fix.notebooks.ipython").load_ipython_extension(shell)


def unload_ipython_extension(shell):  # pragma: no cover - see load_ipython_extension
    from importlib import import_module

    import_module("retrace_fix.notebooks.ipython").unload_ipython_extension(shell)
