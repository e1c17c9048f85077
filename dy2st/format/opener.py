"""The one way loaders open a file they were given: regular files only, never blocking, and every
path or OS failure reported as a ModelFormatError naming the file and the reason."""
from __future__ import annotations

import errno
import os
import stat
from typing import BinaryIO, Optional

from .errors import ModelFormatError

# A path this long in a message is cut: the reason matters, not the 100,000th character.
_SHOWN_PATH_CHARS = 200
_KINDS = {stat.S_IFDIR: "a directory", stat.S_IFIFO: "a FIFO (named pipe)",
          stat.S_IFCHR: "a character device", stat.S_IFBLK: "a block device",
          stat.S_IFSOCK: "a socket", stat.S_IFLNK: "a symbolic link"}
# O_NONBLOCK: opening a FIFO that replaced the file after the stat check returns at once
# instead of waiting for a writer (the fstat after opening then refuses it).
_OPEN_FLAGS = (os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) |
               getattr(os, "O_BINARY", 0) | getattr(os, "O_NOCTTY", 0))


def shown_path(path: str) -> str:
    """The path as messages show it: whole when short, else its start and end."""
    text = path.replace("\0", "\\0")
    if len(text) <= _SHOWN_PATH_CHARS:
        return text
    half = _SHOWN_PATH_CHARS // 2
    return f"{text[:half]}...{text[-half:]} ({len(text)} characters)"


def path_error(path: str, e: BaseException) -> ModelFormatError:
    """An OSError / ValueError raised for `path`, as a ModelFormatError naming file and reason."""
    if isinstance(e, OSError):
        reason = {errno.ENAMETOOLONG: "the file name is too long",
                  errno.ELOOP: "it is a symbolic link loop (too many levels of links)",
                  errno.ENOENT: "no such file", errno.EACCES: "permission denied",
                  errno.EISDIR: "it is a directory, not a file",
                  errno.ENOTDIR: "a part of the path is not a directory"}.get(
                      e.errno, e.strerror or str(e))
    else:
        reason = str(e) or type(e).__name__
    return ModelFormatError(f"{shown_path(path)}: cannot be read: {reason}")


def _file_kind(mode: int) -> str:
    return _KINDS.get(stat.S_IFMT(mode), "not a regular file")


def open_regular_file(path: "str | os.PathLike[str]", missing_ok: bool = False
                      ) -> Optional[BinaryIO]:
    """`path` opened for binary reading after checking that it is a regular file (symlinks to
    one are followed). None when it does not exist and `missing_ok`; otherwise every failure,
    a FIFO, device, directory or socket included, is a ModelFormatError naming the file."""
    try:
        path = os.fspath(path)
    except TypeError as e:
        raise ModelFormatError(f"{path!r}: not a file path ({e})") from None
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    if "\0" in path:
        raise ModelFormatError(f"{shown_path(path)}: cannot be read: the file name contains a "
                               "NUL byte")
    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):
            raise ModelFormatError(f"{shown_path(path)}: is {_file_kind(st.st_mode)}, not a "
                                   "regular file; refusing to read it")
        fd = os.open(path, _OPEN_FLAGS)
    except FileNotFoundError as e:
        if missing_ok:
            return None
        raise path_error(path, e) from None
    except (OSError, ValueError) as e:
        raise path_error(path, e) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):        # replaced between the stat and the open
            raise ModelFormatError(f"{shown_path(path)}: is {_file_kind(st.st_mode)}, not a "
                                   "regular file; refusing to read it")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_regular_file(path: "str | os.PathLike[str]", limit: Optional[int] = None,
                      what: str = "limit", missing_ok: bool = False) -> Optional[bytes]:
    """The bytes of the regular file at `path` (see open_regular_file), refused without
    reading them when there are more than `limit` (`what` names the limit in the message)."""
    f = open_regular_file(path, missing_ok)
    if f is None:
        return None
    shown = shown_path(os.fspath(path) if not isinstance(path, bytes) else os.fsdecode(path))
    with f:
        try:
            size = os.fstat(f.fileno()).st_size
            if limit is not None and size > limit:
                raise ModelFormatError(f"{shown}: is larger than the {what} ({size} bytes, "
                                       f"at most {limit})")
            # read one byte more than the limit: a file growing while read is caught too
            data = f.read() if limit is None else f.read(limit + 1)
        except OSError as e:
            raise path_error(shown, e) from None
    if limit is not None and len(data) > limit:
        raise ModelFormatError(f"{shown}: grew larger than the {what} ({limit} bytes) while it "
                               "was read")
    return data
