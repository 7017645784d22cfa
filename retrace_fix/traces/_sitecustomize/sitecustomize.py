"""retrace-fix recorder bootstrap, imported by ``site`` in every Python process started by
``retrace-fix record`` (its directory is put first on ``PYTHONPATH``).

* A no-op unless ``RETRACE_FIX_SHARD_DIR`` is set.
* Cheap: it does not import TensorFlow.  It installs an import hook that patches
  tf.function's class once TensorFlow imports it, and an atexit handler that
  writes this process's shard; then the modules ``RETRACE_FIX_SITE_MODULES``
  names (comma-separated: ``retrace-fix bench``'s timing probe), calling
  their ``install()``.
* Chains to the ``sitecustomize`` module that would have been imported without
  this directory on the path (a virtualenv's or the distribution's).
"""

import importlib
import os
import sys


def _install_recorder():
    if not os.environ.get("RETRACE_FIX_SHARD_DIR"):
        return
    # Make our package importable without exposing our environment's other packages
    # to the program: the path entry is removed again once the modules are loaded.
    package_path = os.environ.get("RETRACE_FIX_PACKAGE_PATH")
    added = bool(package_path) and package_path not in sys.path
    if added:
        sys.path.insert(0, package_path)
    try:
        _install("retrace_fix.traces.process_recorder", "install_process_recorder", "recorder")
        for name in os.environ.get("RETRACE_FIX_SITE_MODULES", "").split(","):
            if name.strip():
                _install(name.strip(), "install", name.strip())
    finally:
        if added:
            try:
                sys.path.remove(package_path)
            except ValueError:
                pass


def _install(module_name, function, what):
    try:
        getattr(importlib.import_module(module_name), function)()
    except Exception as exc:  # never stop the program from starting
        print(f"retrace-fix: {what} not installed: {exc!r}", file=sys.stderr)


def _chain_to_next_sitecustomize():
    import importlib.machinery
    import importlib.util

    here = os.path.dirname(os.path.abspath(__file__))
    path = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", path)
    if spec is None or spec.loader is None:
        return
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # what site.py does for a failing sitecustomize
        print(f"Error in sitecustomize; set PYTHONVERBOSE for traceback:\n{type(exc).__name__}: {exc}", file=sys.stderr)


_install_recorder()
_chain_to_next_sitecustomize()
