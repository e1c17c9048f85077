"""Shape ops: shape, reshape, squeeze/unsqueeze, transpose, concat, stack, flatten, expand."""
from __future__ import annotations

import builtins
from typing import Any, List, Optional, Sequence

import numpy as np

from ..dtype import int64
from ..program import Variable
from ..registry import Meta, apply, register_op
from ..tensor import Tensor
from . import infer as I
from .creation import split_shape
from .operands import as_tensor, cast, promote


@register_op("shape", infer=lambda x: Meta((len(x._shape),), int64))
def _shape_kernel(x):
    return np.array(x.shape, dtype=np.int64)


def shape(input: Any) -> Any:
    """The shape of `input` as a 1-D int64 tensor."""
    return apply("shape", [input])


@register_op("numel", infer=lambda x: Meta((), int64))
def _numel_kernel(x):
    return np.array(x.size, dtype=np.int64)


def numel(x: Any, name: Optional[str] = None) -> Any:
    """Number of elements as an int64 0-d tensor."""
    return apply("numel", [x])


def rank(input: Any) -> int:
    return input.ndim


# ----------------------------------------------------------------------------- reshape
def _resolve_shape(op: str, in_shape: Sequence[int], template: Sequence[Optional[int]]) -> tuple:
    out = []
    for i, d in enumerate(template):
        if d == 0:
            if i >= len(in_shape):
                raise ValueError(f"{op}: 0 in position {i} copies a dim the input does not have")
            # A copied unknown dim is marked like a tensor dim so it is not taken for the -1.
            out.append(in_shape[i] if in_shape[i] >= 0 else -2)
        elif d is None:
            out.append(-2)          # a tensor dim, value unknown until run time
        else:
            out.append(int(d))
    if out.count(-1) > 1:
        raise ValueError(f"{op}: only one dim may be -1, got {list(template)}")
    known_in = I.known(in_shape)
    if -1 in out:
        others = [d for d in out if d != -1]
        if known_in and I.known(others):
            rest = I.prod(others)
            total = I.prod(in_shape)
            if rest == 0 or total % rest:
                raise ValueError(f"{op}: cannot reshape a tensor of shape {list(in_shape)} "
                                 f"({total} elements) into {list(template)}")
            out[out.index(-1)] = total // rest
        else:
            _resolve_past_copied_dims(op, in_shape, template, out)
    elif known_in and I.known(out) and I.prod(out) != I.prod(in_shape):
        raise ValueError(f"{op}: cannot reshape a tensor of shape {list(in_shape)} "
                         f"({I.prod(in_shape)} elements) into {list(template)}")
    return tuple(-1 if d < 0 else d for d in out)


def _resolve_past_copied_dims(op: str, in_shape: Sequence[int], template: Sequence[Any],
                              out: List[int]) -> None:
    """Set the -1 of `out` when the only unknown input dims are copied in place by a 0 (flatten
    with an unknown batch, reshape([0, -1])): they cancel out of the element count."""
    copied = {i for i, d in enumerate(template) if d == 0 and in_shape[i] < 0}
    rest_in = [d for i, d in enumerate(in_shape) if i not in copied]
    rest_out = [d for i, d in enumerate(out) if i not in copied and d != -1]
    if not copied or not I.known(rest_in) or not I.known(rest_out):
        return
    rest, total = I.prod(rest_out), I.prod(rest_in)
    if rest == 0:
        return
    if total % rest:
        raise ValueError(f"{op}: cannot reshape a tensor of shape {list(in_shape)} into "
                         f"{list(template)}: its known dims hold {total} elements per row")
    out[out.index(-1)] = total // rest


def _reshape_infer(x, *dims, shape):
    return Meta(_resolve_shape("reshape", x._shape, shape), x.dtype)


@register_op("reshape", infer=_reshape_infer)
def _reshape_kernel(x, *dims, shape):
    it = iter(dims)
    real = [int(next(it)) if d is None else (x.shape[i] if d == 0 else d) for i, d in enumerate(shape)]
    try:
        return np.reshape(x, real)
    except ValueError:
        raise ValueError(f"reshape: cannot reshape a tensor of shape {list(x.shape)} into "
                         f"{real}") from None


def reshape(x: Any, shape: Any, name: Optional[str] = None) -> Any:
    """x with a new shape (one dim may be -1; 0 copies the input dim; dims may be tensors)."""
    template, dims = split_shape(shape)
    return apply("reshape", [x, *dims], {"shape": template})


def flatten(x: Any, start_axis: int = 0, stop_axis: int = -1, name: Optional[str] = None) -> Any:
    """Merge dims start_axis..stop_axis into one."""
    nd = x.ndim
    if nd == 0:
        return reshape(x, [1])
    s, e = start_axis % nd, stop_axis % nd
    template = [0] * s + [-1] + [0] * 0
    tail = x._value.shape[e + 1:] if isinstance(x, Tensor) else x._shape[e + 1:]
    if builtins.any(d < 0 for d in tail):
        return apply("flatten", [x], {"start_axis": s, "stop_axis": e})
    return reshape(x, template + list(tail))


def _flatten_infer(x, start_axis, stop_axis):
    mid = x._shape[start_axis:stop_axis + 1]
    merged = I.prod(mid) if I.known(mid) else -1
    return Meta(x._shape[:start_axis] + (merged,) + x._shape[stop_axis + 1:], x.dtype)


@register_op("flatten", infer=_flatten_infer)
def _flatten_kernel(x, start_axis, stop_axis):
    return x.reshape(x.shape[:start_axis] + (-1,) + x.shape[stop_axis + 1:])


def _squeeze_axes(shape, axis):
    if axis is None:
        return [i for i, d in enumerate(shape) if d == 1]
    axes = [axis] if isinstance(axis, int) else list(axis)
    return [a % len(shape) for a in axes if shape[a % len(shape)] == 1]


@register_op("squeeze", infer=lambda x, axes: Meta(tuple(d for i, d in enumerate(x._shape)
                                                         if i not in axes), x.dtype))
def _squeeze_kernel(x, axes):
    return np.squeeze(x, axis=tuple(axes)) if axes else x


def squeeze(x: Any, axis: Any = None, name: Optional[str] = None) -> Any:
    """Drop dims of size 1 (only those in `axis` when given)."""
    shp = x._value.shape if isinstance(x, Tensor) else x._shape
    if axis is None and isinstance(x, Variable) and -1 in shp:
        raise ValueError("squeeze without axis on a tensor with unknown dims; give axis")
    return apply("squeeze", [x], {"axes": _squeeze_axes(shp, axis)})


def _unsqueeze_infer(x, axes):
    out = list(x._shape)
    for a in axes:
        out.insert(a, 1)
    return Meta(tuple(out), x.dtype)


@register_op("unsqueeze", infer=_unsqueeze_infer)
def _unsqueeze_kernel(x, axes):
    for a in axes:
        x = np.expand_dims(x, a)
    return x


def unsqueeze(x: Any, axis: Any, name: Optional[str] = None) -> Any:
    """Insert dims of size 1 at `axis` (an int or a list)."""
    axes = [axis] if isinstance(axis, int) else [int(a) for a in axis]
    nd = x.ndim
    norm = []
    for a in axes:
        nd += 1
        norm.append(a % nd if a < 0 else a)
    return apply("unsqueeze", [x], {"axes": norm})


@register_op("transpose", infer=lambda x, perm: Meta(tuple(x._shape[p] for p in perm), x.dtype))
def _transpose_kernel(x, perm):
    return np.transpose(x, perm)


def transpose(x: Any, perm: Sequence[int], name: Optional[str] = None) -> Any:
    """Permute the dims of x."""
    perm = [int(p) % max(x.ndim, 1) for p in perm]
    if sorted(perm) != list(range(x.ndim)):
        raise ValueError(f"transpose: perm {perm} is not a permutation of {x.ndim} dims")
    return apply("transpose", [x], {"perm": perm})


def t(input: Any, name: Optional[str] = None) -> Any:
    """Transpose of a tensor of rank <= 2."""
    if input.ndim > 2:
        raise ValueError(f"t() expects a tensor of rank <= 2, got rank {input.ndim}")
    return input if input.ndim < 2 else transpose(input, [1, 0])


# ----------------------------------------------------------------------------- concat / stack
def _concat_infer(*xs, axis):
    first = xs[0]._shape
    nd = len(first)
    ax = axis % nd
    out = list(first)
    total = 0
    for x in xs:
        if len(x._shape) != nd:
            raise ValueError(f"concat: all inputs need rank {nd}, got {[list(v._shape) for v in xs]}")
        for i, (a, b) in enumerate(zip(out, x._shape)):
            if i != ax and a != b and a >= 0 and b >= 0:
                raise ValueError(f"concat: shapes {[list(v._shape) for v in xs]} differ in dim {i}")
            if i != ax and a < 0:
                out[i] = b
        total = -1 if (total < 0 or x._shape[ax] < 0) else total + x._shape[ax]
    out[ax] = total
    return Meta(tuple(out), xs[0].dtype)


@register_op("concat", infer=_concat_infer)
def _concat_kernel(*xs, axis):
    return np.concatenate(xs, axis=axis)


def _stack_infer(*xs, axis):
    base = list(xs[0]._shape)
    for x in xs[1:]:
        if len(x._shape) != len(base):
            raise ValueError(f"stack: inputs have different ranks {[list(v._shape) for v in xs]}")
    ax = axis % (len(base) + 1)
    base.insert(ax, len(xs))
    return Meta(tuple(base), xs[0].dtype)


@register_op("stack", infer=_stack_infer)
def _stack_kernel(*xs, axis):
    return np.stack(xs, axis=axis)


def same_dtype(xs: List[Any]) -> List[Any]:
    xs = [as_tensor(x) for x in xs]
    d = xs[0].dtype
    for x in xs[1:]:
        d = promote(d, x.dtype)
    return [cast(x, d) for x in xs]


def _is_array(x: Any) -> bool:
    return isinstance(x, Variable) and x.kind == "array"


def concat(x: Any, axis: Any = 0, name: Optional[str] = None) -> Any:
    """Join tensors along an existing axis."""
    if _is_array(x):
        # circle: runtime.ops.array imports this module at import time
        from .array import array_concat
        return array_concat(x, int(axis))
    xs = same_dtype(list(x))
    if not xs:
        raise ValueError("concat needs at least one tensor")
    return apply("concat", xs, {"axis": int(axis)})


def stack(x: Any, axis: int = 0, name: Optional[str] = None) -> Any:
    """Join tensors along a new axis."""
    if _is_array(x):
        # circle: runtime.ops.array imports this module at import time
        from .array import array_stack
        return array_stack(x, int(axis))
    xs = same_dtype(list(x))
    if not xs:
        raise ValueError("stack needs at least one tensor")
    return apply("stack", xs, {"axis": int(axis)})


# ----------------------------------------------------------------------------- expand
def _expand_infer(x, *dims, shape):
    out = []
    offset = len(shape) - len(x._shape)
    for i, d in enumerate(shape):
        src = x._shape[i - offset] if i >= offset else 1
        if d is None:
            out.append(-1)
        elif d == -1:
            out.append(src)
        else:
            if src not in (1, -1, d):
                raise ValueError(f"expand: cannot expand shape {list(x._shape)} to {list(shape)}")
            out.append(d)
    return Meta(tuple(out), x.dtype)


@register_op("expand", infer=_expand_infer)
def _expand_kernel(x, *dims, shape):
    it = iter(dims)
    offset = len(shape) - x.ndim
    real = []
    for i, d in enumerate(shape):
        if d is None:
            real.append(int(next(it)))
        elif d == -1:
            real.append(x.shape[i - offset])
        else:
            real.append(d)
    return np.broadcast_to(x, real).copy()


def expand(x: Any, shape: Any, name: Optional[str] = None) -> Any:
    """Broadcast x to `shape` (-1 keeps a dim)."""
    template, dims = split_shape(shape)
    return apply("expand", [x, *dims], {"shape": template})


broadcast_to = expand


def expand_as(x: Any, y: Any, name: Optional[str] = None) -> Any:
    return expand(x, y.shape)
