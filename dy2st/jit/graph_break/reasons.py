"""Why and where a trace broke: the user's line in the function and one sentence of reason."""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Iterator, List, Optional, Tuple

import gast

from ...runtime.origin import Origin
from ...runtime.widened import WidenedReadError
from ...transformers.analysis import read_names
from ..errors import ConversionError, user_frames


@dataclass(frozen=True)
class GraphBreakInfo:
    """One break: the user's file, line and source, the function it is in, and why."""
    filename: str
    lineno: int
    function: str
    source: str
    reason: str
    kind: str

    def __str__(self) -> str:
        return f"{os.path.basename(self.filename)}:{self.lineno}  {self.source}  ({self.reason})"


_HOOK_KINDS = {
    "__array__": "numpy", "__array_function__": "numpy", "__array_ufunc__": "numpy",
    "__bool__": "decision", "__int__": "value", "__float__": "value", "__index__": "value",
    "__len__": "value", "__iter__": "value",
}
_PROGRAM_FILE = os.path.join("runtime", "program.py")
# the kind of a break at a read of a loop variable whose dtype a tensor loop widened: an export
# traces it as a check instead (it fails when the loop ran no turn), so it does not refuse one
LOOP_DTYPE = "loop-dtype"


def _chain(e: BaseException) -> Iterator[BaseException]:
    seen = set()
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        yield e
        e = e.__cause__ or e.__context__


def _innermost(tb: Optional[TracebackType]) -> Optional[TracebackType]:
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb


def classify(e: BaseException) -> Tuple[str, str]:
    """(kind, reason) of a failed trace."""
    for exc in _chain(e):
        last = _innermost(exc.__traceback__)
        if last is None:
            continue
        code = last.tb_frame.f_code
        if code.co_filename.endswith(_PROGRAM_FILE) and code.co_name in _HOOK_KINDS:
            return _HOOK_KINDS[code.co_name], _hook_reason(code.co_name, exc)
    for exc in _chain(e):
        if isinstance(exc, WidenedReadError):
            return LOOP_DTYPE, _first_sentence(_plain(exc))
        if isinstance(exc, ConversionError):
            text = re.sub(r'\s*\(File "[^"]+", line \d+\)', "", _plain(exc))
            return "unsupported", _first_sentence(text)
    return "error", f"{type(e).__name__} while tracing: {_first_sentence(_plain(e))}"


def _plain(e: BaseException) -> str:
    """The message without an `In user code:` block."""
    text = str(e)
    if text.startswith("In user code:"):
        text = text.rsplit("\n\n", 1)[-1].strip()
        text = re.sub(r"^\w+(Error|Exception): ", "", text)
    return text


def _first_sentence(text: str) -> str:
    text = " ".join(text.split())
    m = re.search(r"[.;] ", text)
    if m:
        text = text[:m.start()]
    return text if len(text) <= 200 else text[:197] + "..."


def _hook_reason(hook: str, exc: BaseException) -> str:
    message = _plain(exc)
    if hook in ("__array_function__", "__array_ufunc__"):
        m = re.match(r"numpy\.(\w+)\(\)", message)
        name = m.group(1) if m else "a numpy function"
        hint = re.search(r"use (dy2st\.\w+)\(\.\.\.\) \((paddle\.\w+)\)", message)
        if hint:
            return (f"np.{name} applied to a symbolic tensor: use {hint.group(2)} to keep it in "
                    "the graph")
        return f"np.{name} applied to a symbolic tensor: it needs the tensor's value"
    if hook == "__array__":
        return ("numpy (or a C extension) needs the value of a symbolic tensor: use paddle "
                "functions to keep it in the graph")
    if hook == "__bool__":
        return ("a Python decision on a tensor value that conversion cannot turn into cond/while: "
                "use the tensor directly in an `if`/`while` of the converted function")
    if hook in ("__len__", "__iter__"):
        return f"{message}"
    return ("a Python number (int(), float(), an index) taken from a symbolic tensor: keep it a "
            "tensor to stay in the graph")


def break_origin(e: BaseException, filename: str, function: str,
                 first: int, last: int) -> Optional[Origin]:
    """The innermost frame of `function` (lines first..last of filename) in e's tracebacks:
    converted branch and loop bodies are frames of the function too, and the innermost is the
    line that broke (or the call that led to it)."""
    for exc in _chain(e):
        frames: List[Origin] = user_frames(exc.__traceback__)
        origin = getattr(exc, "dy2st_origin", None)
        if origin is not None:
            frames.append(origin)
        mine = [o for o in frames if o.file == filename and o.function == function and
                first <= o.line <= last]
        if mine:
            return mine[-1]
    return None


_VIEWS = ("numpy", "tolist", "item")


def _view_call(node: Any) -> bool:
    return (isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) and
            node.func.attr in _VIEWS)


def value_hint(stmt: Any, fdef: Any) -> Optional[str]:
    """When the statement that broke works on a tensor's value (`x.numpy()` in it, or a name
    the function assigns from one): what that code is, for the reason."""
    if any(_view_call(n) for n in gast.walk(stmt)):
        return "numpy/Python code on a tensor's value (.numpy(), .tolist(), .item())"
    views = {t.id for n in gast.walk(fdef) if isinstance(n, gast.Assign) and _view_call(n.value)
             for t in n.targets if isinstance(t, gast.Name)}
    used = sorted(views & read_names(stmt))
    if used:
        return f"numpy/Python code on `{used[0]}`, a tensor's value"
    return None
