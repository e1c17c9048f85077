"""print and assert inside converted code: Python behaviour for Python values, and for symbolic
tensors a build-time line plus a print / assert op that runs every time the program runs."""
from __future__ import annotations

import sys
from typing import Any, Callable, Optional

from ..runtime.origin import user_origin
from ..runtime.program import Variable
from ..runtime.side_effects import assert_true, print_values


def Print(*args: Any, sep: str = " ", end: str = "\n", file: Any = None, flush: bool = False) -> None:
    if file is not None or not any(isinstance(a, Variable) for a in args):
        print(*args, sep=sep, end=end, file=file, flush=flush)
        return
    # Once, while the program is built: which symbolic tensors will be printed.
    print("[dy2st build]", *args, sep=sep, end=end, file=sys.stdout)
    parts, tensors = [], []
    for a in args:
        if isinstance(a, Variable):
            parts.append({"t": len(tensors)})
            tensors.append(a)
        else:
            parts.append({"s": str(a)})
    print_values(parts, tensors, sep=sep, end=end)


def Assert(test: Any, message: Optional[Callable[[], Any]] = None) -> None:
    if not isinstance(test, Variable):
        if not test:
            raise AssertionError(message() if message is not None else "")
        return
    text = ""
    if message is not None:
        msg = message()
        text = msg if isinstance(msg, str) else repr(msg)
    origin = user_origin()
    where = f' (File "{origin.file}", line {origin.line}: {origin.source})' if origin else ""
    from ..runtime import ops
    assert_true(ops.all(test) if test.ndim else test, text, where)
