"""Reading an input file named on the command line, within a size limit.

``apply PATCH`` and ``--repos FILE`` read what a user was given: ``/dev/zero``,
a FIFO nobody writes to or a huge file must not make the run read without
bound or hang.  A named path must be a regular file (checked on the open
descriptor, opened without blocking so a FIFO cannot stall the open); standard
input (``-``) is read up to the limit.
"""

from __future__ import annotations

import os
import stat
import sys
from typing import IO


class InputError(Exception):
    """The input cannot be used: not a regular file, too large, unreadable (the message says which)."""


def describe_size(limit: int) -> str:
    return f"{limit >> 20} MiB" if limit >= 1 << 20 else f"{limit} bytes"


def read_limited(name: str, limit: int, stdin: IO[bytes] | None = None) -> bytes:
    """The bytes of ``name`` (``-``: standard input); raises InputError past ``limit`` bytes."""
    if name == "-":
        stream = stdin if stdin is not None else sys.stdin.buffer
        data = stream.read(limit + 1)
    else:
        try:
            fd = os.open(name, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
        except OSError as exc:
            raise InputError(f"cannot read: {exc.strerror or exc}") from None
        with os.fdopen(fd, "rb") as handle:
            mode = os.fstat(fd).st_mode
            if not stat.S_ISREG(mode):
                raise InputError("not a regular file (a device, FIFO, socket or directory is not read)")
            try:
                data = handle.read(limit + 1)
            except OSError as exc:
                raise InputError(f"cannot read: {exc.strerror or exc}") from None
    if len(data) > limit:
        raise InputError(f"larger than {describe_size(limit)} (refused)")
    return data
