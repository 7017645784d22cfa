"""Patches: diffs written, patches parsed and applied, hunks found, split and chosen.

* :mod:`~retrace_fix.patch.diffs` - unified diffs of two texts, the one way retrace-fix
  writes a diff;
* :mod:`~retrace_fix.patch.parse` - unified diffs parsed into hunks and file patches
  (which write themselves back as patch text);
* :mod:`~retrace_fix.patch.hunk_search` - where a hunk's lines sit in a file, in
  bounded time;
* :mod:`~retrace_fix.patch.apply_text` - hunks applied to one text, all or nothing,
  with offsets and line endings handled as ``patch`` does;
* :mod:`~retrace_fix.patch.paths` - the paths a patch may write (inside the root,
  never into ``.git``);
* :mod:`~retrace_fix.patch.apply_files` - saved patches applied to the files under a
  root: the work of ``retrace-fix apply`` (:mod:`retrace_fix.commands.apply`);
* :mod:`~retrace_fix.patch.hunk_edits` - splitting hunks and reading back hand-edited
  ones (``-i``'s ``s`` and ``e``);
* :mod:`~retrace_fix.patch.interactive` - ``-i``: each hunk shown, applied when
  accepted.
"""
