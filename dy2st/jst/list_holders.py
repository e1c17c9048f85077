"""Other holders of a list that a tensor loop or `if` turns into a tensor array: another name, a
container entry or an attribute reachable from the converted function's frames would keep the
old list (an array is no Python list object), so the conversion refuses (a graph break)."""
from __future__ import annotations

import sys
import types
from typing import Any, Iterator, List, Optional, Sequence, Set, Tuple

from ..runtime.errors import ConversionError
from ..runtime.tensor import TensorLike

_DEPTH = 3          # container/attribute levels searched below a frame's local or global
_SKIPPED = (types.FunctionType, types.ModuleType, types.MethodType, type, TensorLike,
            types.BuiltinFunctionType, str, bytes, int, float, bool, type(None))


class AliasedListError(ConversionError, TypeError):
    """A list grown in a tensor loop / tensor `if` has another holder that would keep its old
    contents: a graph break with full_graph=False, this error in one graph or a saved model."""


def converted_frames() -> Iterator[types.FrameType]:
    """The frames of converted code on the stack, innermost first (loop and branch bodies, the
    converted function, converted functions it is called from)."""
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_filename.startswith("<dy2st"):
            yield frame
        frame = frame.f_back


def refuse_other_holders(lst: Any, spec: str, what: str) -> None:
    """Raise AliasedListError when the list object `lst` (the one `spec` - `acc`, `d['acc']`,
    `self.acc` - names) has a holder other than spec in the converted frames."""
    if type(lst) is not list:
        return
    others = other_holders(lst, spec)
    if not others:
        return
    stmt = "loop" if "loop" in what else "`if`"
    raise AliasedListError(
        f"the list `{spec}` grown in {what} becomes a tensor array, but the same list object is "
        f"also held as `{others[0]}`, which would keep the list's old contents. Grow a list that "
        f"no other name, container or attribute holds (make `{others[0]}` after the {stmt}, or "
        f"build a new list), or run this function with full_graph=False, where the {stmt} runs "
        "as Python.")


def other_holders(lst: list, spec: str) -> List[str]:
    """Where else than spec the converted frames hold lst: `alias`, `d['a']`, `self.acc`, or
    `acc (in f)` in a converted function further out that passed the list in."""
    root = spec.split("[", 1)[0].split(".", 1)[0]
    found: List[str] = []
    seen: Set[int] = {id(lst)}
    own = True           # still inside the frames that share the loop variable's binding
    for frame in converted_frames():
        code = frame.f_code
        here: List[str] = []
        for name, value in list(frame.f_locals.items()):
            if value is lst:
                here.append(name)
            else:
                _search(value, name, lst, here, seen, _DEPTH)
        for name, value in list(frame.f_globals.items()):
            if type(value) in (list, dict) and not name.startswith("__"):
                if value is lst:
                    here.append(name)
                else:
                    _search(value, name, lst, here, seen, 1)
        where = "" if own else f" (in {code.co_name})"
        found += [p + where for p in here if not (own and p == spec)]
        if root in code.co_cellvars or (root in code.co_varnames and root not in code.co_freevars):
            own = False      # the frame that owns the binding: frames further out are others'
    return _unique(found)


def _search(value: Any, path: str, lst: list, found: List[str], seen: Set[int],
            depth: int) -> None:
    """Append the paths below value (entries, attributes) that hold lst."""
    if depth <= 0 or isinstance(value, _SKIPPED) or id(value) in seen:
        return
    seen.add(id(value))
    for key, item in _children(value):
        sub = f"{path}[{key!r}]" if not isinstance(key, _Attr) else f"{path}.{key}"
        if item is lst:
            found.append(sub)
        else:
            _search(item, sub, lst, found, seen, depth - 1)


class _Attr(str):
    """An attribute name among _children's keys (spelled `.name`, not `['name']`)."""


def _children(value: Any) -> Sequence[Tuple[Any, Any]]:
    t = type(value)
    if t is dict:
        return list(value.items())
    if t in (list, tuple):
        return list(enumerate(value))
    attrs: Optional[dict] = getattr(value, "__dict__", None)
    if type(attrs) is not dict:
        return ()
    return [(_Attr(k), v) for k, v in attrs.items()]


def _unique(paths: List[str]) -> List[str]:
    out: List[str] = []
    for p in paths:
        if p not in out:
            out.append(p)
    return out
