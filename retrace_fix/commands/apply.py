"""``retrace-fix apply PATCH... [--root DIR] [--dry-run]``: apply saved patches safely.

The work (parsing, checking every path, all or nothing per file, ``.rej``,
atomic writes) is :func:`retrace_fix.patches.apply_patches`, which also holds
the patch primitives that ``-i`` and ``--patch-dir`` share; this module is the
command's entry.
"""

from __future__ import annotations

from retrace_fix.patches import EXIT_ERROR, EXIT_OK, EXIT_REJECTED, apply_patches, register

__all__ = ["EXIT_ERROR", "EXIT_OK", "EXIT_REJECTED", "apply_patches", "register"]
