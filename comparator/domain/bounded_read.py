"""Reading an input file no further than its limit allows.

``Path.read_bytes`` reads a file whole before anyone can look at its size: a 2 GiB file, a
FIFO fed without end, or ``/dev/zero`` would fill the memory before the size check that
follows. :func:`read_limited` refuses a regular file by its size before reading it, and reads
anything else in pieces, stopping one byte past the limit.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

_READ_CHUNK = 1 << 20


def read_limited(path: Path, limit: int) -> bytes | None:
    """The bytes of the file at ``path``, or None when it has more than ``limit`` bytes
    (read no further than one byte past it). Raises OSError as :meth:`Path.open` does."""
    with path.open("rb") as file:
        info = os.fstat(file.fileno())
        if stat.S_ISREG(info.st_mode) and info.st_size > limit:
            return None
        pieces: list[bytes] = []
        size = 0
        while size <= limit:
            piece = file.read(min(_READ_CHUNK, limit + 1 - size))
            if not piece:
                break
            pieces.append(piece)
            size += len(piece)
    return None if size > limit else b"".join(pieces)
