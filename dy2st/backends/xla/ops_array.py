"""Tensor arrays and tapes while tracing: Python lists of jax values, manipulated by the ops' own
kernels at positions known while tracing (a loop whose trip count is known is unrolled, so its
appends are too). A position computed from the data is not lowerable yet (see docs/backends.md)."""
from __future__ import annotations

from typing import Any

import numpy as np

from ...runtime.registry import OPS
from .buffers import Buffer, stackable
from .loader import jax_modules
from .lower import is_static
from .table import lowers

_m = jax_modules


def list_op(cx, *ins: Any, **attrs: Any) -> Any:
    """The op's list kernel on copies of its list inputs (a traced branch must not change a list
    the other branch reads), with its positions known while tracing; buffers and positions
    computed from the data go to buffer_op."""
    if any(isinstance(v, Buffer) for v in ins) or (
            cx.op.type in _BY_POSITION and not is_static(ins[1]) and isinstance(ins[0], list)):
        return buffer_op(cx, *ins)
    args = []
    for v in ins:
        if isinstance(v, list):
            args.append(list(v))
        elif is_static(v) or v is None:
            args.append(v)
        elif cx.vars[cx.op.inputs[len(args)]].kind == "dense" and v.ndim == 0 and \
                v.dtype.kind in "iub":
            raise cx.not_lowerable("a tensor array position computed from the data (a loop "
                                   "whose trip count depends on the data)")
        else:
            args.append(v)
    return OPS[cx.op.type].kernel(*args, **attrs)


# ops reading or writing a tensor array at a position (their second input)
_BY_POSITION = ("array_write", "array_read", "tape_read")


def buffer_op(cx, *ins: Any) -> Any:
    """A tensor-array op on a buffer, or at a position computed from the data."""
    jnp = _m().jnp
    op = cx.op.type
    arr = ins[0]
    if isinstance(arr, list):
        if cx.probing and op == "array_write":          # only the item's shape matters here
            return list(arr) + [ins[2]]
        if op in ("array_read", "tape_read") and stackable(arr):
            return jnp.stack(arr)[ins[1]]
        raise cx.not_lowerable(f"{op} at a position computed from the data on a tensor array "
                               "that is not a loop buffer")
    if op == "tape_push":
        cx.overflow_if(arr.length >= arr.capacity)
        return Buffer(arr.data.at[arr.length].set(ins[1].astype(arr.data.dtype)), arr.length + 1)
    if op in ("tape_read", "array_read"):
        return arr.data[ins[1]]
    if op == "array_write":
        i = jnp.asarray(ins[1]).astype(jnp.int32)
        cx.overflow_if(i >= arr.capacity)
        return Buffer(arr.data.at[i].set(ins[2].astype(arr.data.dtype)),
                      jnp.maximum(arr.length, i + 1))
    raise cx.not_lowerable(f"{op} on a tensor array that a loop with a data-dependent trip "
                           "count appends to")


lowers("create_array", "array_write", "array_read", "array_pop", "array_slice", "array_join",
       "tape_create", "tape_push", "tape_read", "array_grad_clear", "array_grad_put",
       "array_grad_add", "array_grad_insert", "array_grad_unslice", "array_grad_head",
       "array_grad_tail")(list_op)


@lowers("array_length")
def _length(cx, array):
    if isinstance(array, Buffer):
        return array.length.astype(np.int64)
    return np.array(len(array), dtype=np.int64)


@lowers("array_stack")
def _stack(cx, array, axis):
    if not array:
        raise cx.not_lowerable("stacking an empty tensor array")
    return _m().jnp.stack(array, axis=axis)


@lowers("array_concat")
def _concat(cx, array, axis):
    if not array:
        raise cx.not_lowerable("concatenating an empty tensor array")
    return _m().jnp.concatenate(array, axis=axis)


@lowers("array_grad_read")
def _grad_read(cx, g, i, like):
    i = cx.static_int(i, "a tensor array position")
    item = g[i] if -len(g) <= i < len(g) else None
    return _m().jnp.zeros_like(like) if item is None else item


@lowers("array_grad_unstack")
def _unstack(cx, g, axis):
    return [_m().jnp.take(g, k, axis=axis) for k in range(g.shape[axis])]


@lowers("array_grad_split")
def _split(cx, g, array, axis):
    bounds = np.cumsum([a.shape[axis] for a in array])[:-1]
    return _m().jnp.split(g, bounds, axis=axis)
