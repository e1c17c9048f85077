"""ConversionError, and re-raising an exception with a better message while keeping its type."""
from __future__ import annotations

from typing import Any, NoReturn


class ConversionError(Exception):
    """The source of a function cannot be converted (unsupported syntax, no source, ...)."""


def reraise_as(e: BaseException, message: str, origin: Any = None) -> NoReturn:
    """Raise an exception of e's type carrying `message` (the traceback chain is cut)."""
    try:
        new = type(e)(message)
    except Exception:  # noqa: BLE001 - constructors with other signatures
        new = None
    if new is None or str(new) != message:
        e.args = (message,)
        new = e
    new.__dict__.update({k: v for k, v in getattr(e, "__dict__", {}).items() if k != "args"})
    if origin is not None:
        new.dy2st_origin = origin
    raise new.with_traceback(None) from None
