"""Durable file replacement (a reader sees the old file or the new one, never a partial write)
and the lock that serialises savers of one model path."""
from __future__ import annotations

import contextlib
import os
import secrets
from typing import Iterator

try:
    import fcntl
except ImportError:                     # Windows
    fcntl = None                        # type: ignore[assignment]


def write_atomic(path: str, data: bytes) -> None:
    """Write data to a temp file next to path, fsync it, then rename it over path.

    The temp file is created with mode 0o666 so that the umask (and a directory's default ACL)
    applies as to any ordinary new file; tempfile.mkstemp would force 0o600."""
    tmp = f"{path}.{secrets.token_hex(8)}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
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


def fsync_dir(path: str) -> None:
    """Flush the directory holding path, so a rename into it survives a crash (where it can)."""
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


@contextlib.contextmanager
def save_lock(lock_path: str) -> Iterator[None]:
    """Hold an exclusive lock on lock_path (created if missing, never deleted: deleting it would
    let two savers lock two different files) for the duration of one save."""
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o666)
    try:
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX)
        else:
            import msvcrt
            msvcrt.locking(fd, msvcrt.LK_LOCK, 1)    # retries for 10 s, then raises OSError
        yield
    finally:
        os.close(fd)                    # closing releases the lock
