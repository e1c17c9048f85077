"""Ops run for their effect: printing tensor values and run-time assertions."""
from __future__ import annotations

import ast
import sys
from typing import Any, List, Optional

import numpy as np

from . import ops, state
from .registry import apply, register_op
from .tensor import Tensor
from .widened import WIDENED, WidenedReadError


def _format(v: Any, number: bool = False) -> str:
    # (a Python number a trace holds prints as that number, as eager code prints it)
    return repr(np.asarray(v).item()) if number else repr(Tensor(np.asarray(v)))


@register_op("print", infer=lambda *xs, parts, sep, end, stream="stdout": [], n_outputs=0)
def _print_kernel(*xs, parts, sep, end, stream="stdout"):
    texts = [p["s"] if "s" in p else _format(xs[p["t"]], p.get("number", False)) for p in parts]
    out = sys.stderr if stream == "stderr" else sys.stdout
    out.write(sep.join(texts) + end)
    out.flush()
    return ()


def print_values(parts: List[dict], tensors: List[Any], sep: str = " ", end: str = "\n",
                 stream: str = "stdout") -> None:
    """Append a print op: parts are {"s": text} or {"t": index into tensors} (with
    "number": True for a Python number the program holds)."""
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


# the user's name of a value that no path may read (program.maybe_undefined): its check raises
# ValueError with `where` as the message (a tensor whose value after a loop is not followed)
REFUSED = "<refused>"
# the marker names of two more kinds of value a tensor loop may leave without one: a variable
# that was None before the loop (its check raises TypeError, `where` the message) and a dict key
# the loop adds or deletes (KeyError, `where` the key's repr)
IS_NONE = "<none>"
MISSING_KEY = "<missing key>"


@register_op("check_defined", infer=lambda flag, *, name, where, free=False: [], n_outputs=0)
def _check_defined_kernel(flag, *, name, where, free=False):
    if not flag and name == REFUSED:
        raise ValueError(where)
    if not flag and name in (IS_NONE, WIDENED):
        raise TypeError(where)
    if not flag and name == MISSING_KEY:
        raise KeyError(_key_of(where))
    if not flag and free:       # read by a nested function: Python raises NameError
        raise NameError(f"cannot access free variable '{name}' where it is not associated with "
                        f"a value in enclosing scope{where}")
    if not flag:
        raise UnboundLocalError(f"local variable '{name}' is used, but the program took a path "
                                f"on which it is never assigned{where}")
    return ()


def _key_of(text: str) -> Any:
    """The dict key whose repr a MISSING_KEY check holds (the repr itself if it is no literal)."""
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def check_entry(entry: tuple) -> None:
    """check_defined for a program.maybe_undefined entry (flag, user's name, where, origin): a
    refused value is blamed on the line its entry names, an unassigned one on the reading line.
    A widened loop variable read where its dtype shows (`s * 2`, `s.sum()`) is a graph break
    while breaks may run code as Python; in one graph, the program fails there, at the loop's
    line, on the paths where eager code has the other dtype (the loop ran no turn)."""
    flag, name, where, origin = entry
    if name == WIDENED and state.breaks_allowed():
        raise WidenedReadError(where)
    check_defined(flag, name, where, origin if name in (REFUSED, WIDENED) else None)


def refused_value(var: Any, message: str, origin: Any) -> Any:
    """A placeholder like `var` whose every read fails, when the program runs through it, with
    ValueError(message) at `origin`."""
    out = ops.full([d if d >= 0 else 1 for d in var._shape], 0, var.dtype)
    out.block.program.maybe_undefined[out.name] = (ops.full([], False, "bool"), REFUSED, message,
                                                   origin)
    return out


def check_defined(flag: Any, name: str, where: str, origin: Any = None) -> None:
    """An op that fails like Python's UnboundLocalError when `flag` is false (`origin`: the
    user's line to blame when the caller's frame is not the user's)."""
    # circle: runtime.control_flow.cond imports this module at import time (via runtime.control_flow -> runtime.control_flow.while_loop -> runtime.control_flow.loop_aliases)
    from .control_flow.cond import read_as_free_variable
    attrs = {"name": name, "where": where}
    if read_as_free_variable(name):
        attrs["free"] = True
    apply("check_defined", [flag], attrs)
    if origin is not None:
        state.current_block().ops[-1].origin = origin
