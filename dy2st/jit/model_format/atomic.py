"""Durable file replacement: a reader sees the old file or the new one, never a partial write."""
from __future__ import annotations

import os
import tempfile


def _write_atomic(path: str, data: bytes) -> None:
    """Write data to a temp file next to path, fsync it, then rename it over path."""
    fd, tmp = tempfile.mkstemp(prefix=os.path.basename(path) + ".", suffix=".tmp",
                               dir=os.path.dirname(path) or ".")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _fsync_dir(path: str) -> None:
    try:
        fd = os.open(os.path.dirname(path) or ".", os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass                            # some file systems cannot fsync a directory
    finally:
        os.close(fd)
