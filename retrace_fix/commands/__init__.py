"""One module per ``retrace-fix`` command, on top of the shared core.

:mod:`retrace_fix.cli` parses the command line and calls these: ``fix`` (the
default command: ``--diff``, ``--check``, ``-i``, ``--patch-dir``), ``apply``,
``bench``, ``record``, ``report``, and ``explain`` (with ``codemods``, the list
of codes).  No command module imports another, nor the command line.
"""
