"""for loops: range / enumerate / zip / tensors iterate in Python when their bounds are Python
values and become a `while` op over an index when a bound or the iterable is symbolic."""
from __future__ import annotations

from typing import Any, Callable, List, Optional, Sequence

from ..runtime import ops
from ..runtime.control_flow.loop_growth import refuse_listing
from ..runtime.control_flow.unrolled import UnrolledLoop, unrolled_loop
from ..runtime.control_flow.while_loop import static_while
from ..runtime.program import Variable
from ..runtime.python_value import PythonValue
from ..runtime.tensor import Tensor, TensorLike
from .branches import IfElse
from .loops import run_static_loop
from .operators import Len, as_bool
from .trace_paths import copy_containers, refuse_inside_try


def _sym(x: Any) -> bool:
    return isinstance(x, Variable)


def _py_int(x: Any) -> Any:
    return int(x) if isinstance(x, Tensor) else x


class TensorRange:
    """range() with a symbolic bound: item k is start + k * step."""

    def __init__(self, start: Any, stop: Any, step: Any) -> None:
        if isinstance(step, int) and step == 0:
            raise ValueError("range() arg 3 must not be zero")
        self.start, self.stop, self.step = start, stop, step

    def length(self) -> Any:
        if isinstance(self.start, int) and self.start == 0:
            span = self.stop
        elif _sym(self.stop) or _sym(self.start):
            span = ops.subtract(self.stop, self.start)
        else:
            span = self.stop - self.start
        if isinstance(self.step, int) and self.step == 1:
            return _as_int64(span)      # a negative span runs no iteration: index < span fails
        step = _as_int64(self.step)
        sign = (1 if self.step > 0 else -1) if isinstance(self.step, int) else _sign(step)
        n = ops.floor_divide(ops.add(_as_int64(span), ops.subtract(step, sign)), step)
        return ops.maximum(n, _as_int64(0))

    def item(self, k: Any) -> Any:
        """Item k: a Python int in eager code, so a PythonValue (runtime/python_value.py)."""
        if isinstance(self.step, int) and self.step == 1:
            out = ops.add(k, self.start) if not (isinstance(self.start, int) and self.start == 0) else k
        else:
            out = ops.add(ops.multiply(k, self.step), self.start)
        if type(out) is Variable and out.dtype == "int64" and not out._shape:
            out.__class__ = PythonValue
        return out


def _sign(step: Any) -> Any:
    return ops.cast(ops.sign(step), "int64")


def _as_int64(x: Any) -> Any:
    if isinstance(x, TensorLike):
        return x if x.dtype == "int64" else ops.cast(x, "int64")
    return ops.full([], int(x), "int64")


class TensorItems:
    """Rows of a tensor along axis 0."""

    def __init__(self, x: Any) -> None:
        self.x = x

    def length(self) -> Any:
        return Len(self.x)

    def item(self, k: Any) -> Any:
        return self.x[k]


class ArrayItems:
    """The items of a tensor array (a list grown in a tensor loop)."""

    def __init__(self, array: Any) -> None:
        self.array = array

    def length(self) -> Any:
        return ops.array_length(self.array)

    def item(self, k: Any) -> Any:
        return ops.array_read(self.array, k)


class SymbolicEnumerate:
    def __init__(self, inner: Any, start: Any) -> None:
        self.inner, self.start = inner, start

    def length(self) -> Any:
        return self.inner.length()

    def item(self, k: Any) -> Any:
        """(index, item k of the inner iterable): the index is a Python int in eager code."""
        index = k if isinstance(self.start, int) and self.start == 0 else ops.add(k, self.start)
        if type(index) is Variable and index.dtype == "int64" and not index._shape:
            index.__class__ = PythonValue
        return index, self.inner.item(k)


class SymbolicZip:
    def __init__(self, parts: List[Any]) -> None:
        self.parts = parts

    def length(self) -> Any:
        lengths = [p.length() for p in self.parts]
        out = lengths[0]
        for n in lengths[1:]:
            out = ops.minimum(_as_int64(out), _as_int64(n)) if (_sym(out) or _sym(n)) else min(out, n)
        return out

    def item(self, k: Any) -> Any:
        return tuple(p.item(k) for p in self.parts)


class _PythonSeq:
    """A Python sequence zipped with symbolic iterables (indexed by a Python int only)."""

    def __init__(self, seq: Sequence[Any]) -> None:
        self.seq = list(seq)

    def length(self) -> int:
        return len(self.seq)

    def item(self, k: Any) -> Any:
        if _sym(k):
            return ops.stack(self.seq)[k] if all(isinstance(v, TensorLike) for v in self.seq) else \
                _unsupported(self.seq)
        return self.seq[k]


def _unsupported(seq: Any) -> Any:
    raise TypeError("cannot index a Python list of non-tensors by a symbolic loop index; "
                    "iterate over it with a Python loop instead")


def symbolic_iterable(it: Any) -> Optional[Any]:
    """The symbolic view of `it`, or None when a Python loop fits."""
    if isinstance(it, (TensorRange, SymbolicEnumerate, SymbolicZip)):
        return it
    if isinstance(it, Variable):
        return ArrayItems(it) if it.kind == "array" else TensorItems(it)
    return None


def Range(*args: Any) -> Any:
    """range() that accepts tensor bounds."""
    if not 1 <= len(args) <= 3:
        raise TypeError(f"range expected 1 to 3 arguments, got {len(args)}")
    args = tuple(_py_int(a) for a in args)
    if not any(_sym(a) for a in args):
        return range(*args)
    start, stop, step = (0, args[0], 1) if len(args) == 1 else (args[0], args[1], args[2] if len(args) == 3 else 1)
    return TensorRange(start, stop, step)


class ReversedRange(TensorRange):
    """reversed(range(...)) with a symbolic bound: the range's items, last first."""

    def __init__(self, forward: TensorRange) -> None:
        super().__init__(forward.start, forward.stop, forward.step)
        self.forward = forward

    def length(self) -> Any:
        return self.forward.length()

    def item(self, k: Any) -> Any:
        last = ops.subtract(self.forward.length(), _as_int64(1))
        return self.forward.item(ops.subtract(last, k))


def Reversed(seq: Any) -> Any:
    """reversed() in a loop header: a range stays a range (last first), a range with a tensor
    bound a tensor range."""
    if isinstance(seq, range):
        return seq[::-1]
    if type(seq) is TensorRange:
        return ReversedRange(seq)
    if type(seq) is ReversedRange:
        return seq.forward
    return reversed(seq)


def Enumerate(iterable: Any, start: int = 0) -> Any:
    sym = symbolic_iterable(iterable)
    if sym is None:
        return enumerate(iterable, start)
    return SymbolicEnumerate(sym, start)


def Zip(*iterables: Any) -> Any:
    syms = [symbolic_iterable(it) for it in iterables]
    if all(s is None for s in syms):
        return zip(*iterables)
    if any(s is None and not isinstance(it, Tensor) for s, it in zip(syms, iterables)) and all(
            s is None or (isinstance(s, TensorItems) and s.x._shape and s.x._shape[0] >= 0)
            for s in syms):
        return zip(*iterables)    # a Python sequence beside tensors of known length: unroll
    parts = [s if s is not None else (TensorItems(it) if isinstance(it, Tensor) else _PythonSeq(it))
             for s, it in zip(syms, iterables)]
    return SymbolicZip(parts)


def For(iterable: Any, body: Callable, get_args: Callable, set_args: Callable,
        names: Sequence[str], extra_cond: Optional[Callable], arrays: Sequence[str] = ()) -> None:
    """for item in iterable: body(item), stopping when extra_cond() (a break flag) is false."""
    sym = symbolic_iterable(iterable)
    if sym is None:
        refuse_listing(iterable, "a `for` loop over the keys")
        loop = unrolled_loop()
        try:
            _python_for(iterable, body, get_args, set_args, names, extra_cond, arrays, loop)
        finally:
            if loop is not None:
                loop.mark()
        return
    _static_for(sym, body, get_args, set_args, names, extra_cond, arrays)


def _python_for(iterable: Any, body: Callable, get_args: Callable, set_args: Callable,
                names: Sequence[str], extra_cond: Optional[Callable], arrays: Sequence[str],
                loop: Optional[UnrolledLoop]) -> None:
    """The loop run by Python (each iteration traced in turn), the rest of it a tensor loop once
    the break flag or a grown list becomes data-dependent."""
    for item in iterable:
        if loop is not None:
            loop.mark()
        go = extra_cond() if extra_cond is not None else True
        if not _sym(go):
            if not go:
                break
            if arrays and isinstance(iterable, range):
                # A list grown here may get a data-dependent length (an append under a
                # tensor `if`): then the rest of the range runs as a tensor loop instead.
                saved = copy_containers(get_args())
                try:
                    body(item)
                except (TypeError, ValueError):
                    set_args(saved)
                    _static_for(TensorRange(item, iterable.stop, iterable.step), body,
                                get_args, set_args, names, extra_cond, arrays)
                    return
                continue
            body(item)
            continue
        if isinstance(iterable, range):
            # The break flag became a tensor: the rest of the range runs as a tensor loop
            # (whose lists grow into tensor arrays, as the iterations taken are data).
            rest = TensorRange(item, iterable.stop, iterable.step)
            _static_for(rest, body, get_args, set_args, names, extra_cond, arrays)
            return
        # other Python iterables: every later iteration runs under the flag
        IfElse(go, lambda item=item: body(item), lambda: None, get_args, set_args, names,
               tuple(range(len(names))))


def _static_for(sym: Any, body: Callable, get_args: Callable, set_args: Callable,
                names: Sequence[str], extra_cond: Optional[Callable], arrays: Sequence[str]) -> None:
    """A `while` op over the items of a symbolic iterable (index 0 .. length)."""
    refuse_inside_try("`for` loop")
    length = sym.length()
    index: List[Any] = [None]

    def cond_fn() -> Any:
        c = ops.less_than(index[0], length)
        if extra_cond is not None:
            go = extra_cond()
            c = ops.logical_and(c, as_bool(go)) if _sym(go) else (c if go else as_bool(False))
        return c

    def body_fn() -> None:
        body(sym.item(index[0]))

    def set_extra(vals: Sequence[Any]) -> None:
        index[0] = vals[0]

    def get_extra() -> List[Any]:
        return [ops.add(index[0], 1)]

    run_static_loop(cond_fn, body_fn, get_args, set_args, names,
                    extra_vars=(ops.full([], 0, "int64"),), set_extra=set_extra, get_extra=get_extra,
                    arrays=arrays)


def ListComp(fn: Callable, iterable: Any) -> Any:
    """[fn(v) for v in iterable]; over rows whose number is only known at run time, a tensor
    array built by a `while` op (it works like a list: indexing, len, stack, iteration)."""
    sym = symbolic_iterable(iterable)
    length = sym.length() if sym is not None else None
    if sym is None or not _sym(length):
        return [fn(v) for v in (iterable if sym is None else
                                (sym.item(k) for k in range(length)))]
    i0 = ops.full([], 0, "int64")
    arr0 = ops.create_array("float32")

    def body(i, arr):
        return ops.add(i, 1), ops.array_write(fn(sym.item(i)), i, arr)

    _, out = static_while(lambda i, arr: ops.less_than(i, length), body, [i0, arr0],
                          names=["<index>", "<list>"])
    return out
