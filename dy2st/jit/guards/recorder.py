"""Which functions a trace ran, with the objects their parameters were bound to: the trace of a
StaticFunction records them here (convert_call and the Layer hook report each converted call),
and its guards are built from their reads."""
from __future__ import annotations

import threading
import types
from contextlib import contextmanager
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

from .reads import parameter_names, reads_of

# (function, {parameter name: object it was bound to}) for each function the trace ran
Call = Tuple[types.FunctionType, Dict[str, Any]]


class _Stack(threading.local):
    def __init__(self) -> None:
        self.frames: List[List[Call]] = []


_stack = _Stack()


@contextmanager
def recording() -> Iterator[List[Call]]:
    """Collect the calls of one trace (nested traces collect their own)."""
    calls: List[Call] = []
    _stack.frames.append(calls)
    try:
        yield calls
    finally:
        _stack.frames.pop()


def active() -> bool:
    return bool(_stack.frames)


def note_call(fn: types.FunctionType, bound: Dict[str, Any]) -> None:
    """The trace runs `fn` with these parameter bindings (the non-tensor ones matter)."""
    frames = _stack.frames
    if frames:
        frames[-1].append((fn, bound))


def note_function(fn: types.FunctionType, converted: Callable,
                  self_obj: Any = None) -> Callable:
    """convert_call's result for `fn` while a trace records: noted with its bound `self`; when
    `fn` reads attributes of its other parameters, a wrapper notes the objects it is called
    with (so `cfg.k` of a helper's argument is guarded too)."""
    if not _stack.frames:
        return converted
    code = fn.__code__
    params = parameter_names(code)
    bound = {params[0]: self_obj} if self_obj is not None and params else {}
    note_call(fn, bound)
    skip = 1 if self_obj is not None else 0
    wanted = {name for kind, name, _ in reads_of(code).chains
              if kind == "local" and name in params[skip:]}
    if not wanted:
        return converted
    frames = _stack.frames[-1]

    def recorded(*args: Any, **kwargs: Any) -> Any:
        found = dict(bound)
        # bound with types.MethodType, a method gets its self as the first argument here too
        for name, value in zip(params, args):
            if name in wanted:
                found[name] = value
        for name, value in kwargs.items():
            if name in wanted:
                found[name] = value
        frames.append((fn, found))
        return converted(*args, **kwargs)
    return recorded


def bound_arguments(fn: types.FunctionType, self_obj: Any, args: Tuple,
                    kwargs: Dict[str, Any]) -> Dict[str, Any]:
    """{parameter name: value} of a canonical call of the top function (self first)."""
    params = parameter_names(fn.__code__)
    out: Dict[str, Any] = {}
    values: List[Any] = ([self_obj] if self_obj is not None else []) + list(args)
    for name, value in zip(params, values):
        out[name] = value
    out.update(kwargs)
    return out


def first_param(fn: types.FunctionType) -> Optional[str]:
    params = parameter_names(fn.__code__)
    return params[0] if params else None
