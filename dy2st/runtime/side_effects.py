"""Ops run for their effect: printing tensor values and run-time assertions."""
from __future__ import annotations

import sys
from typing import Any, List, Optional

import numpy as np

from .registry import apply, register_op


def _format(v: Any) -> str:
    from .tensor import Tensor
    return repr(Tensor(np.asarray(v)))


@register_op("print", infer=lambda *xs, parts, sep, end, stream="stdout": [], n_outputs=0)
def _print_kernel(*xs, parts, sep, end, stream="stdout"):
    texts = [p["s"] if "s" in p else _format(xs[p["t"]]) for p in parts]
    out = sys.stderr if stream == "stderr" else sys.stdout
    out.write(sep.join(texts) + end)
    out.flush()
    return ()


def print_values(parts: List[dict], tensors: List[Any], sep: str = " ", end: str = "\n",
                 stream: str = "stdout") -> None:
    """Append a print op: parts are {"s": text} or {"t": index into tensors}."""
    attrs = {"parts": parts, "sep": sep, "end": end}
    if stream != "stdout":
        attrs["stream"] = stream
    apply("print", tensors, attrs)


@register_op("assert", infer=lambda cond, *xs, message, where: [], n_outputs=0)
def _assert_kernel(cond, *xs, message, where):
    if not np.all(cond):
        detail = f": {message}" if message else ""
        raise AssertionError(f"assertion failed when the program ran{detail}{where}")
    return ()


def assert_true(cond: Any, message: Optional[str] = None, where: str = "") -> None:
    apply("assert", [cond], {"message": message or "", "where": where})


# Exception types a saved program may raise by name (anything else raises RuntimeError).
RAISABLE = {t.__name__: t for t in (ValueError, TypeError, RuntimeError, AssertionError,
                                    IndexError, KeyError, ZeroDivisionError, NotImplementedError,
                                    ArithmeticError, LookupError, AttributeError, NameError,
                                    UnboundLocalError)}
RAISABLE["UndefinedVarError"] = UnboundLocalError
RAISABLE["UndefinedFreeVarError"] = NameError


@register_op("raise", infer=lambda *xs, type, message: [], n_outputs=0)
def _raise_kernel(*xs, type, message):
    exc = RAISABLE.get(type)
    if exc is None:
        raise RuntimeError(f"{type}: {message}")
    raise exc(message)


def raise_when_run(exc: BaseException) -> None:
    """An op that raises `exc` (type and message) if the program runs through it."""
    apply("raise", [], {"type": type(exc).__name__, "message": str(exc)})


@register_op("check_defined", infer=lambda flag, *, name, where, free=False: [], n_outputs=0)
def _check_defined_kernel(flag, *, name, where, free=False):
    if not flag and free:       # read by a nested function: Python raises NameError
        raise NameError(f"cannot access free variable '{name}' where it is not associated with "
                        f"a value in enclosing scope{where}")
    if not flag:
        raise UnboundLocalError(f"local variable '{name}' is used, but the program took a path "
                                f"on which it is never assigned{where}")
    return ()


def check_defined(flag: Any, name: str, where: str, origin: Any = None) -> None:
    """An op that fails like Python's UnboundLocalError when `flag` is false (`origin`: the
    user's line to blame when the caller's frame is not the user's)."""
    from .control_flow import _read_as_free_variable
    attrs = {"name": name, "where": where}
    if _read_as_free_variable(name):
        attrs["free"] = True
    apply("check_defined", [flag], attrs)
    if origin is not None:
        from . import state
        state.current_block().ops[-1].origin = origin
