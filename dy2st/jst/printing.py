"""print and assert inside converted code: Python behaviour for Python values, and for symbolic
tensors a build-time line plus a print / assert op that runs every time the program runs."""
from __future__ import annotations

import io
import sys
from typing import Any, Callable, Optional

from ..runtime import ops, state
from ..runtime.origin import user_origin
from ..runtime.program import Variable
from ..runtime.python_value import PythonValue
from ..runtime.side_effects import assert_true, print_values
from ..runtime.size import Size
from .trace_paths import refuse_inside_try


def _has_symbolic(value: Any) -> bool:
    if isinstance(value, Variable):
        return True
    if type(value) in (list, tuple, Size):
        return any(_has_symbolic(v) for v in value)
    if type(value) is dict:
        return any(_has_symbolic(v) for v in value.values())
    return False


def _parts(value: Any, parts: list, tensors: list, top: bool = True) -> None:
    """Text and tensor pieces of str(value), tensors (also inside lists, tuples and dicts)
    filled in when the program runs."""
    if isinstance(value, Variable):
        parts.append({"t": len(tensors), "number": True} if isinstance(value, PythonValue)
                     else {"t": len(tensors)})     # (an unknown dim is one too)
        tensors.append(value)
    elif type(value) in (list, tuple, Size) and _has_symbolic(value):
        # a traced shape with an unknown dim prints as eager's paddle.Size
        open_, close = {list: ("[", "]"), tuple: ("(", ")"),
                        Size: ("paddle.Size([", "])")}[type(value)]
        parts.append({"s": open_})
        for k, v in enumerate(value):
            if k:
                parts.append({"s": ", "})
            _parts(v, parts, tensors, top=False)
        parts.append({"s": "," + close if type(value) is tuple and len(value) == 1 else close})
    elif type(value) is dict and _has_symbolic(value):
        parts.append({"s": "{"})
        for k, (key, v) in enumerate(value.items()):
            parts.append({"s": (", " if k else "") + repr(key) + ": "})
            _parts(v, parts, tensors, top=False)
        parts.append({"s": "}"})
    else:
        parts.append({"s": str(value) if top else repr(value)})   # as print / list.__repr__ do


def Print(*args: Any, sep: str = " ", end: str = "\n", file: Any = None, flush: bool = False) -> None:
    if not any(_has_symbolic(a) for a in args):
        if state.in_static_mode() and file in (None, sys.stdout, sys.stderr):
            # a program being built prints its text on every run, as eager code does on every
            # call (printed once, while tracing, later calls of the program showed nothing)
            text = io.StringIO()
            print(*args, sep=sep, end="", file=text)
            print_values([{"s": text.getvalue()}], [], sep="", end=end,
                         stream="stderr" if file is sys.stderr else "stdout")
            return
        print(*args, sep=sep, end=end, file=file, flush=flush)
        return
    # Once, while the program is built: which symbolic tensors will be printed.
    out = file if file is not None else sys.stdout
    out.write("[dy2st build] ")
    print(*args, sep=sep, end=end, file=out)
    if file is not None and file not in (sys.stdout, sys.stderr):
        raise TypeError("print(..., file=...) of a symbolic tensor can only write to sys.stdout or "
                        "sys.stderr when the program runs")
    stream = "stderr" if file is sys.stderr else "stdout"
    pieces = []
    tensors: list = []
    for a in args:
        parts: list = []
        _parts(a, parts, tensors)
        pieces.append(parts)
    flat = []
    for k, parts in enumerate(pieces):
        if k:
            flat.append({"s": sep})
        flat.extend(parts)
    print_values(flat, tensors, sep="", end=end, stream=stream)


def Assert(test: Any, message: Optional[Callable[[], Any]] = None) -> None:
    if not isinstance(test, Variable):
        if not test:
            raise AssertionError(message() if message is not None else "")
        return
    refuse_inside_try("`assert`")    # its AssertionError is raised when the program runs
    text = ""
    if message is not None:
        msg = message()
        text = msg if isinstance(msg, str) else repr(msg)
    origin = user_origin()
    where = f' (File "{origin.file}", line {origin.line}: {origin.source})' if origin else ""
    assert_true(ops.all(test) if test.ndim else test, text, where)
