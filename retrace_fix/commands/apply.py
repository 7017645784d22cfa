"""``retrace-fix apply PATCH... [--root DIR] [--dry-run]``: apply saved patches safely.

This module is the command: its arguments and options.  The work (parsing,
checking every path, all or nothing per file, ``.rej``, atomic writes, and the
exit codes) is :func:`retrace_fix.patch.apply_files.apply_patches`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, List

from retrace_fix.patch.apply_files import apply_patches


def register(app: Any) -> None:
    """Add ``retrace-fix apply`` to the typer ``app`` (called by :mod:`retrace_fix.cli`)."""
    import typer

    @app.command(
        "apply",
        short_help="Apply saved patches under a root; conflicts go to FILE.rej.",
        help="Apply saved patches (e.g. from --patch-dir) under --root. Each file's hunks apply "
        "all or nothing; a file whose hunks do not match is left untouched and its hunks go to "
        "FILE.rej. Paths outside the root are refused. Exit 0 applied, 1 some rejected, 2 errors.",
    )
    def apply_command(
        patches: List[str] = typer.Argument(..., help="patch files ('-' reads standard input)"),
        root: Path = typer.Option(Path("."), "--root", help="directory the patch paths are relative to"),
        dry_run: bool = typer.Option(False, "--dry-run", help="show what would apply; write nothing"),
    ) -> None:
        raise typer.Exit(apply_patches(list(patches), root, dry_run))


__all__ = ["register"]
