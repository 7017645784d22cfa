"""``retrace-fix apply PATCH... [--root DIR] [--dry-run]``: apply saved patches safely.

The options are declared in :mod:`retrace_fix.cli`, which imports this module only
when ``apply`` runs.  The work (parsing, checking every path, all or nothing per
file, ``.rej``, atomic writes, and the exit codes) is
:func:`retrace_fix.patch.apply_files.apply_patches`.
"""

from __future__ import annotations

from pathlib import Path

from retrace_fix.patch.apply_files import apply_patches


def run_apply(patches: list[str], root: Path, dry_run: bool) -> int:
    """Apply ``patches`` (``-``: standard input) under ``root``; returns the exit code."""
    return apply_patches(patches, root, dry_run)


__all__ = ["run_apply"]
