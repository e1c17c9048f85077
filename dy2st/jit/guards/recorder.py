"""Which functions a trace ran, with the objects their parameters were bound to: the trace of a
StaticFunction records them here (convert_call and the Layer hook report each converted call),
and its guards are built from their reads. The objects of locals a bytecode scan cannot follow
(`c = pick(self); c.k`) are taken from the running frames: convert_call reports the frame
that calls it while such a function runs, and its locals are read then and after the trace."""
from __future__ import annotations

import os
import sys
import threading
import types
from contextlib import contextmanager
from typing import Any, Callable, Dict, FrozenSet, Iterator, List, Optional, Sequence, Tuple

import numpy as np

from ...runtime import state
from ...runtime.errors import ConversionError
from ...runtime.program import Variable
from ...runtime.tensor import Tensor
from .reads import parameter_names, reads_of, rebound_cells

# (function, {parameter name: object it was bound to}) for each function the trace ran
Call = Tuple[types.FunctionType, Dict[str, Any]]
# values of opaque locals that are no object a guard could read attributes of
_PLAIN = (int, float, bool, str, bytes, complex, type(None))
RETURNED = "<returned>"     # the binding of a call's result in a Call
UNGUARDED = "<unguarded>"   # the binding of why the trace read state no guard can see
DEEP = "<deep>"             # the binding of an object library code was given (see note_deep)
READ = "<read>"             # the binding of a (read, value, what, ok) guard made by a caller
LAYER = "<layer>"           # the binding of (a Layer called, whether its forward is library)
_DATA = (Tensor, Variable, np.ndarray)   # their attributes are in the key, not guards


class _Record:
    """The calls of one trace; the code objects whose frames hold opaque locals, with the
    function and the names; the frames of them seen so far."""

    __slots__ = ("calls", "watched", "frames", "held", "hook", "old_hook")

    def __init__(self) -> None:
        self.calls: List[Call] = []
        self.held: Dict[Tuple, Any] = {}    # (code, local, id of its object) captured
        self.watched: Dict[types.CodeType, Tuple[types.FunctionType, FrozenSet[str]]] = {}
        self.frames: Dict[int, types.FrameType] = {}
        self.hook: Any = None           # the trace hook taking watched frames (see _hook)
        self.old_hook: Any = None       # the hook it replaced (another tracer's, or None)


class _Stack(threading.local):
    def __init__(self) -> None:
        self.frames: List[_Record] = []


_stack = _Stack()
# how many recordings (in any thread) watch frames: convert_call reports its caller while > 0
watching = 0
_watching_lock = threading.Lock()   # traces in two threads change the count together


@contextmanager
def recording() -> Iterator[List[Call]]:
    """Collect the calls of one trace (nested traces collect their own)."""
    global watching
    record = _Record()
    _stack.frames.append(record)
    try:
        yield record.calls
    finally:
        _stack.frames.pop()
        if record.hook is not None and sys.gettrace() is record.hook:
            sys.settrace(record.old_hook)
        if record.watched:
            with _watching_lock:
                watching -= 1
            for frame in record.frames.values():     # the locals' last values
                _capture(record, frame)
            record.frames.clear()
            record.held.clear()


def watch(fn: types.FunctionType, code: Optional[types.CodeType]) -> None:
    """The trace runs `code` (fn's converted code): if fn reads attributes of locals assigned
    from calls or expressions, the objects those locals hold in its frames (and in the frames
    of the code nested in it: converted branches and loop bodies) are guarded too."""
    global watching
    if not _stack.frames or code is None:
        return
    names = reads_of(fn.__code__).opaque
    if not names:
        return
    record = _stack.frames[-1]
    if not record.watched:
        with _watching_lock:
            watching += 1
    _hook(record)           # its frames (a helper's too) are taken as they start
    todo = [code]
    while todo:
        c = todo.pop()
        if c not in record.watched:
            record.watched[c] = (fn, names)
            todo.extend(k for k in c.co_consts if isinstance(k, types.CodeType))


@contextmanager
def top_frame(code: Optional[types.CodeType]) -> Iterator[None]:
    """While the trace calls the top function: its frame is taken when it starts (see _hook),
    so its opaque locals are read even when it calls nothing (`c = A if f else B; return
    x * c.k`)."""
    record = _stack.frames[-1] if _stack.frames else None
    if record is not None and code in record.watched:
        _hook(record)
    yield


def _hook(record: _Record) -> None:
    """From now until the recording ends, the frames of watched code (the functions whose
    opaque locals are guarded and the code nested in them: converted loop bodies and
    branches, lambdas, comprehensions) are taken when they start, by a trace hook that
    follows calls only (no line events) and keeps any other hook; so opaque locals are read
    even in a frame that calls nothing after assigning them (`c = (A, B)[i]` in a loop body, a
    lambda's parameter that `max(..., key=lambda c: c.k)` binds)."""
    if record.hook is not None:
        return
    old = sys.gettrace()
    watched, frames = record.watched, record.frames

    def started(frame: types.FrameType, event: str, arg: Any) -> Any:
        local = old(frame, event, arg) if old is not None else None
        if frame.f_code not in watched:
            return local
        frames[id(frame)] = frame
        if local is None:
            frame.f_trace_lines = False     # only its return event: no cost per line
        return _at_return(record, local)
    record.hook, record.old_hook = started, old
    sys.settrace(started)


def _at_return(record: _Record, local: Any) -> Any:
    """A frame's local trace function that captures its opaque locals when it returns: a
    local kept in a cell of the code around it (a converted loop body's `nonlocal c`, rebound
    on the next turn or after the loop) holds another object by the end of the trace; any
    other tracer's local function still sees every event."""
    def traced(frame: types.FrameType, event: str, arg: Any) -> Any:
        nonlocal local
        if event == "return":
            _capture(record, frame)
        if local is not None:
            local = local(frame, event, arg)
        return traced
    return traced


def see(frame: types.FrameType) -> None:
    """convert_call was called from `frame`: if it runs watched code, its opaque locals are
    captured now (a local rebound later in the frame) and again when the trace ends."""
    frames = _stack.frames
    if frames and frame.f_code in frames[-1].watched:
        record = frames[-1]
        record.frames[id(frame)] = frame
        _capture(record, frame)


def _capture(record: _Record, frame: types.FrameType) -> None:
    fn, names = record.watched[frame.f_code]
    values = frame.f_locals
    held = record.held
    for name in names:
        value = values.get(name)
        if type(value) in _PLAIN or isinstance(value, _DATA):
            continue        # a number is in the code's reads; a tensor's shape is in the key
        key = (fn.__code__, name, id(value))
        if key not in held:
            held[key] = value   # (kept alive, so that an id is not reused while recording)
            record.calls.append((fn, {name: value}))


def active() -> bool:
    return bool(_stack.frames)


def note_call(fn: types.FunctionType, bound: Dict[str, Any]) -> None:
    """The trace runs `fn` with these parameter bindings (the non-tensor ones matter)."""
    frames = _stack.frames
    if frames:
        frames[-1].calls.append((fn, bound))


def note_function(fn: types.FunctionType, converted: Callable,
                  self_obj: Any = None) -> Callable:
    """convert_call's result for `fn` while a trace records: noted with its bound `self`; when
    `fn` reads attributes of its other parameters, a wrapper notes the objects it is called
    with (so `cfg.k` of a helper's argument is guarded too)."""
    if not _stack.frames:
        return converted
    code = fn.__code__
    rebound = rebound_cells(code)
    if rebound:
        refuse(f"`{fn.__qualname__}` rebinds the closure variable `{sorted(rebound)[0]}`")
    params = parameter_names(code)
    bound = {params[0]: self_obj} if self_obj is not None and params else {}
    note_call(fn, bound)
    watch(fn, getattr(getattr(converted, "__func__", converted), "__code__", None))
    skip = 1 if self_obj is not None else 0
    wanted = {name for kind, name, _ in reads_of(code).chains
              if kind == "local" and name in params[skip:]}
    frames = _stack.frames[-1].calls

    def recorded(*args: Any, **kwargs: Any) -> Any:
        if wanted:
            found = dict(bound)
            # bound with types.MethodType, a method gets its self as the first argument too
            for name, value in bind(code, args, kwargs).items():
                if name in wanted:
                    found[name] = value
            frames.append((fn, found))
        out = converted(*args, **kwargs)
        if type(out) not in _PLAIN and not isinstance(out, _DATA):
            frames.append((fn, {RETURNED: out}))    # the caller may read `pick(cfg).k`
        return out
    return recorded


def _builtin() -> None:
    """Stands for the builtin of a Call noted by note_returned or note_unguarded (it reads
    nothing itself)."""


def note_returned(value: Any) -> None:
    """A builtin returned `value` to the traced code (`max(...)`, `d.get(k)`): paths read off a
    call's result are guarded on it, as on a user function's result."""
    frames = _stack.frames
    if frames and type(value) not in _PLAIN and not isinstance(value, _DATA):
        frames[-1].calls.append((_builtin, {RETURNED: value}))


def note_unguarded(why: str) -> None:
    """The trace depends on state no guard can check (`why` says what): its program is not
    reused."""
    frames = _stack.frames
    if frames:
        frames[-1].calls.append((_builtin, {UNGUARDED: why}))


def note_deep(value: Any) -> None:
    """Library code was given `value` (a user object, or a container of them) and may have read
    any of its attributes: they are guarded, objects in them too (values.deep_snapshot)."""
    frames = _stack.frames
    if frames:
        frames[-1].calls.append((_builtin, {DEEP: value}))


def note_layer(layer: Any, library: bool) -> None:
    """The trace called `layer` (Layer.__call__): its hooks are guarded, and when its forward
    runs as library code (`library`) its attributes and sublayers too (layer_states.py)."""
    frames = _stack.frames
    if frames:
        frames[-1].calls.append((_builtin, {LAYER: (layer, library)}))


def note_read(read: Callable[[], Any], value: Any, what: str,
              ok: Optional[Callable[[Any], bool]] = None) -> None:
    """A guard made by the caller: `read()` gave `value` (compared by `ok`, or as any guarded
    value is)."""
    frames = _stack.frames
    if frames:
        frames[-1].calls.append((_builtin, {READ: (read, value, what, ok)}))


def environ() -> Dict[str, str]:
    """The process environment now, as a plain dict."""
    return dict(os.environ)


def note_environ() -> None:
    """The trace read the process environment (`os.getenv`, `os.environ.get`)."""
    now = environ()
    note_read(environ, now, "os.environ", lambda v: v == now)


class HiddenStateBreak(ConversionError):
    """A call reads state no guard can check: in the default mode its statement runs as
    Python on every call (a graph break)."""


class HiddenStateError(ConversionError):
    """A full_graph=True function calls something whose result no guard can check."""


def refuse(why: str) -> None:
    """The trace reached a read no guard can check (`why`): a graph break in the default mode
    (the statement runs as Python on every call); an error with full_graph=True (a program
    that ran it once would give that one result on every call)."""
    if state.build_state.dynamic_view > 0:
        raise HiddenStateBreak(f"{why}: it runs as Python on every call")
    raise HiddenStateError(
        f"{why}, which no guard can check: a full_graph=True program cannot repeat it on "
        "every call. Call it outside the function and pass the result in, use paddle's own "
        "random ops (paddle.rand & co), or use full_graph=False (it then runs as Python on "
        "every call)")


def bound_arguments(fn: types.FunctionType, self_obj: Any, args: Tuple,
                    kwargs: Dict[str, Any]) -> Dict[str, Any]:
    """{parameter name: value} of a canonical call of the top function (self first)."""
    values: List[Any] = ([self_obj] if self_obj is not None else []) + list(args)
    return bind(fn.__code__, values, kwargs)


def bind(code: types.CodeType, args: Sequence[Any], kwargs: Dict[str, Any]) -> Dict[str, Any]:
    """{parameter name: value} of a call of `code` with these arguments: a `*args` parameter
    gets the tuple of the extra positional ones, a `**kw` one the dict of the extra keywords."""
    n = code.co_argcount
    names = code.co_varnames
    out: Dict[str, Any] = dict(zip(names[:n], args))
    star = code.co_flags & 0x04
    rest = n + code.co_kwonlyargcount
    if star:
        out[names[rest]] = tuple(args[n:])
    if code.co_flags & 0x08:
        known = set(names[:rest])
        out[names[rest + bool(star)]] = {k: v for k, v in kwargs.items() if k not in known}
        kwargs = {k: v for k, v in kwargs.items() if k in known}
    out.update(kwargs)
    return out


def first_param(fn: types.FunctionType) -> Optional[str]:
    params = parameter_names(fn.__code__)
    return params[0] if params else None
