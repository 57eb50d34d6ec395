"""Atomic file writes: nothing half-written is ever left under a result's name."""

from __future__ import annotations

import contextlib
import os
import uuid
from pathlib import Path


def atomic_write(path, data: bytes) -> None:
    """Write ``data`` to a temporary file in the same folder, then ``os.replace`` it onto ``path``.

    The file gets ordinary permissions (the umask), and is flushed to disk before the rename, so a
    crash leaves either the old file or the new one, never a torn one.
    """
    path = Path(path)
    tmp = path.parent / f".{path.name}.{os.getpid()}.{uuid.uuid4().hex}.tmp"
    try:
        with open(tmp, "xb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
