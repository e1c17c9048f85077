"""ConversionError, InternalError, re-raising an exception with a better message while keeping its
type, and the text of a broadcast mismatch (shared by static shape inference and eager kernels)."""
from __future__ import annotations

from typing import Any, NoReturn, Optional, Sequence


class ConversionError(Exception):
    """The source of a function cannot be converted (unsupported syntax, no source, ...)."""


class InternalError(RuntimeError):
    """dy2st built something inconsistent (a Program reading a value nothing assigns): a bug of
    dy2st, not of the user's code, reported where it is built instead of failing later."""


class KeyErrorMessage(KeyError):
    """A KeyError whose text is a message (a KeyError prints its argument's repr, which would
    quote and escape the whole user-code report)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


KeyErrorMessage.__name__ = "KeyError"     # reports name the type the user's code would raise


def reraise_as(e: BaseException, message: str, origin: Any = None) -> NoReturn:
    """Raise an exception of e's type carrying `message` (the traceback chain is cut)."""
    try:
        new = KeyErrorMessage(message) if type(e) is KeyError else type(e)(message)
    except Exception:  # noqa: BLE001 - constructors with other signatures
        new = None
    if new is None or str(new) != message:
        e.args = (message,)
        new = e
    new.__dict__.update({k: v for k, v in getattr(e, "__dict__", {}).items() if k != "args"})
    if origin is not None:
        new.dy2st_origin = origin
    raise new.with_traceback(None) from None


def broadcast_mismatch(op: str, a: Sequence[int], b: Sequence[int]) -> Optional[str]:
    """Why shapes `a` and `b` cannot be broadcast, naming the first failing dim of each (counted
    from the left, as the user wrote the shapes); None when they can (-1 is an unknown dim)."""
    for i in range(1, min(len(a), len(b)) + 1):
        da, db = a[-i], b[-i]
        if da != db and 1 not in (da, db) and -1 not in (da, db):
            return (f"{op}: shapes {list(a)} and {list(b)} cannot be broadcast: dim "
                    f"{len(a) - i} of the first is {da} but dim {len(b) - i} of the second is "
                    f"{db} (sizes must match or be 1)")
    return None
