"""Recording other processes: one shard of traces per Python process, merged afterwards.

:func:`recording_env` is the environment that makes every Python process started
with it (and their Python children, which inherit it) import the recorder's
``sitecustomize`` (:data:`SITECUSTOMIZE_DIR`, first on ``PYTHONPATH``) and write
its traces into a shard directory (:mod:`retrace_fix.traces.process_recorder`); :func:`merge_shards` merges what they wrote.
Used by ``retrace-fix record`` and ``retrace-fix bench``.
"""

from __future__ import annotations

import os
import sys

import retrace_fix
from retrace_fix.sources.discovery import ENV_PROJECT_ROOT
from retrace_fix.traces.model import TraceFileError, TraceSet, load_trace_file

#: The directory put first on the child's PYTHONPATH.
SITECUSTOMIZE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_sitecustomize")
#: Environment variable naming the directory where each process writes its traces
#: (:mod:`retrace_fix.traces.process_recorder`).
ENV_SHARD_DIR = "RETRACE_FIX_SHARD_DIR"
#: Environment variable naming the directory holding the ``retrace_fix`` package (for sitecustomize).
ENV_PACKAGE_PATH = "RETRACE_FIX_PACKAGE_PATH"
#: Environment variable naming more modules (comma-separated) whose ``install()`` the sitecustomize
#: calls after the recorder's (``retrace-fix bench``'s timing probe).
ENV_SITE_MODULES = "RETRACE_FIX_SITE_MODULES"


def recording_env(
    shard_dir: str, project_root: str, base: dict[str, str] | None = None, site_modules: tuple[str, ...] = ()
) -> dict[str, str]:
    """The environment that makes every Python process write its traces into ``shard_dir``
    (and install ``site_modules`` after the recorder)."""
    env = dict(os.environ if base is None else base)
    env[ENV_SHARD_DIR] = shard_dir
    if site_modules:
        env[ENV_SITE_MODULES] = ",".join(site_modules)
    env[ENV_PROJECT_ROOT] = project_root
    env[ENV_PACKAGE_PATH] = os.path.dirname(os.path.dirname(os.path.abspath(retrace_fix.__file__)))
    existing = env.get("PYTHONPATH")
    env["PYTHONPATH"] = SITECUSTOMIZE_DIR + (os.pathsep + existing if existing else "")
    return env


def merge_shards(shard_dir: str) -> TraceSet:
    """Merge every shard in ``shard_dir``; unreadable shards are reported and skipped."""
    result = TraceSet()
    for name in sorted(os.listdir(shard_dir)):
        if not name.endswith(".json") or name.startswith("."):
            continue
        try:
            result = result.merge(load_trace_file(os.path.join(shard_dir, name)))
        except TraceFileError as exc:
            print(f"retrace-fix: skipping a shard: {exc}", file=sys.stderr)
    return result
